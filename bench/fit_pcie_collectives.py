"""Fit kvplan's PCIe collective model on public nccl-tests measurements (bench/data/pcie_nccl_measurements.csv).

Model (the form simulate.StepModel uses): one collective over n PCIe GPUs without NVLink takes
    t = L + bus_bytes / B,   B = efficiency x raw x16 link rate of the PCIe generation,
with bus_bytes = size x 2(n-1)/n for all_reduce and size x (n-1)/n for all_gather (nccl-tests' busbw factors,
so B is the series' asymptotic busbw). Each series (one source, GPU, n, P2P state, collective) is fitted on its
rows of 64 KB and up by least squares on relative time error; rows that give only a busbw are read as B.
The pooled coefficients are medians over series: efficiency per P2P state (GeForce cards: no P2P); latency =
the median fitted intercept of the 2-GPU series (the 64 KB+ range is NCCL's Simple protocol; its intercept is
larger than the 8-64 B LL latency, which is printed for reference). The four vLLM validation runs are NOT used.

Run:  PYTHONPATH=src python bench/fit_pcie_collectives.py
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import numpy as np

from kvplan.simulate import PCIE_X16_BYTES_PER_S

DATA = Path(__file__).parent / "data" / "pcie_nccl_measurements.csv"


def bus_factor(collective: str, n: int) -> float:
    return 2.0 * (n - 1) / n if collective == "all_reduce" else (n - 1) / n


def fit_series(rows):
    """(L seconds or None, B bytes/s) for one series."""
    timed = [r for r in rows if r["time_us"] and int(r["size_bytes"]) >= 65536]
    if len(timed) >= 3:
        n = int(timed[0]["gpus"])
        x = np.array([int(r["size_bytes"]) * bus_factor(r["collective"], n) for r in timed])
        t = np.array([float(r["time_us"]) * 1e-6 for r in timed])
        a = np.stack([np.ones_like(x), x], axis=1) / t[:, None]  # minimise relative error
        (lat, inv_b), *_ = np.linalg.lstsq(a, np.ones_like(t), rcond=None)
        return max(lat, 0.0), 1.0 / inv_b
    bw = [float(r["busbw_gbps"]) * 1e9 for r in rows if r["busbw_gbps"] and int(r["size_bytes"]) >= 1 << 20]
    return None, (max(bw) if bw else None)


def main() -> dict:
    rows = list(csv.DictReader(DATA.open()))
    series = defaultdict(list)
    for r in rows:
        series[(r["source_url"], r["gpu"], r["gpus"], r["pcie_gen"], r["p2p"], r["collective"])].append(r)
    print("| GPU | n | PCIe | P2P | collective | fitted L (us) | fitted B (GB/s) | B / x16 link | source |")
    print("|---|---:|---:|---|---|---:|---:|---:|---|")
    eff = defaultdict(list)
    lat2 = []
    for (url, gpu, n, gen, p2p, coll), rs in series.items():
        lat, b = fit_series(rs)
        if b is None:
            continue
        e = b / PCIE_X16_BYTES_PER_S[gen]
        if p2p in ("0", "1"):
            eff[p2p].append(e)
        if n == "2" and lat is not None:
            lat2.append(lat)
        print(f"| {gpu} | {n} | {gen} | {p2p} | {coll} | {'' if lat is None else f'{lat * 1e6:.1f}'} | "
              f"{b / 1e9:.1f} | {e:.2f} | {url} |")
    small = [float(r["time_us"]) for r in rows if r["gpus"] == "2" and r["time_us"] and int(r["size_bytes"]) <= 8192]
    print(f"2-GPU rows <= 8 KB (LL protocol): median {np.median(small):.1f} us over {len(small)} rows")
    out = {"pcie_latency_s": float(np.median(lat2)),
           "pcie_efficiency (P2P)": float(np.median(eff["1"])),
           "pcie_efficiency_no_p2p": float(np.median(eff["0"]))}
    print()
    for k, v in out.items():
        print(f"{k}: {v:.3g}   (from {len(lat2) if 'latency' in k else len(eff['1' if '(P2P)' in k else '0'])} "
              f"'series')")
    return out


if __name__ == "__main__":
    main()
