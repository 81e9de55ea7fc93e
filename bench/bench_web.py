"""Bounded load test of `kvplan web` on loopback: N concurrent POST /api/plan requests.

    python bench/bench_web.py [--requests 200] [--timeout-s 120]

Starts the server in a child process (uvicorn, 127.0.0.1, a free port), sends all requests
at once (the page's own body: a plan plus its concurrency curve), and prints p50/p99
latency, throughput, and whether the server stayed up (it must still answer afterwards).
Exit code 1 if any request failed or the server died.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import subprocess
import sys
import time

import httpx

SERVER = ("import uvicorn; from kvplan.web.app import create_app; "
          "uvicorn.run(create_app(), host='127.0.0.1', port={port}, log_level='warning')")
BODIES = [  # what the page sends while a user moves the max_model_len slider
    {"model": "meta-llama/Llama-3.1-8B-Instruct", "gpu": "L4", "max_model_len": n} for n in (4096, 8192, 16384, 32768)
] + [{"model": "Qwen/Qwen3.8-27B", "gpu": "H100", "max_model_len": n} for n in (32768, 131072)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_up(url: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/api/gpus", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise SystemExit(f"server at {url} did not come up in {timeout_s:g} s")


async def one(client: httpx.AsyncClient, body: dict) -> tuple[float, int]:
    t0 = time.perf_counter()
    r = await client.post("/api/plan", json=body)
    return time.perf_counter() - t0, r.status_code


async def storm(url: str, n: int, timeout_s: float) -> tuple[list[float], list[int], float]:
    limits = httpx.Limits(max_connections=n, max_keepalive_connections=n)
    async with httpx.AsyncClient(base_url=url, timeout=timeout_s, limits=limits) as client:
        t0 = time.perf_counter()
        results = await asyncio.gather(*(one(client, BODIES[i % len(BODIES)]) for i in range(n)), return_exceptions=True)
        wall_s = time.perf_counter() - t0
    latencies = [r[0] for r in results if isinstance(r, tuple)]
    statuses = [r[1] if isinstance(r, tuple) else -1 for r in results]
    return latencies, statuses, wall_s


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--timeout-s", type=float, default=120.0)
    args = ap.parse_args()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([sys.executable, "-c", SERVER.format(port=port)])
    try:
        wait_until_up(url, 60)
        latencies, statuses, wall_s = asyncio.run(storm(url, args.requests, args.timeout_s))
        alive = server.poll() is None and httpx.post(url + "/api/plan", json=BODIES[0], timeout=10).status_code == 200
    finally:
        server.terminate()
        server.wait(timeout=10)
    ok = sum(1 for s in statuses if s == 200)
    print(f"{args.requests} concurrent POST /api/plan on loopback (plan + concurrency curve each)")
    print(f"  ok {ok}/{args.requests}, wall {wall_s:.2f} s, {ok / wall_s:.1f} req/s")
    if latencies:
        print(f"  latency p50 {1e3 * statistics.median(latencies):.0f} ms, p99 {1e3 * percentile(latencies, 99):.0f} ms, "
              f"max {1e3 * max(latencies):.0f} ms")
    print(f"  server stayed up: {'yes' if alive else 'NO'}")
    return 0 if alive and ok == args.requests else 1


if __name__ == "__main__":
    sys.exit(main())
