"""`kvplan capacity --target-rate`'s fleet check: each replica behind the router serves as many requests as one
replica's bisection probe, in the probe's order, so the figures printed for the fleet at the target are a replica's
at its share of the rate, not those of a run too short to build its queue."""

from __future__ import annotations

import json

import numpy as np

from cli_runner import run_cli

QWEN8 = "Qwen/Qwen3-8B"
CASE = [QWEN8, "--gpu", "H100", "-w", "sharegpt", "-n", "500", "--slo", "ttft=1s,tpot=50ms"]


def _one_replica(monkeypatch, capsys, rate: float, burstiness: float, seed: int) -> dict:
    code, out, err = run_cli(monkeypatch, capsys, "simulate", *CASE, "--rate", f"{rate!r}", "--burstiness",
                             f"{burstiness:g}", "--seed", str(seed), "--json")
    assert code == 0, err
    return json.loads(out)["slo_check"]


def test_the_fleet_at_the_target_is_no_better_than_one_replica_at_its_share(monkeypatch, capsys):
    """Qwen3-8B on an H100, ShareGPT's first 500 requests, 40 req/s: 8 replicas. The fleet ran the one 500-request
    sample at 40 req/s, 62 requests a replica, and printed TPOT p99 20.5 ms, where one replica at its 5 req/s
    measures 37.6-42.8 ms (Poisson arrivals, four seeds). A round-robin router spaces each replica's arrivals as
    the sum of 8 of the fleet's gaps (Gamma arrivals of burstiness 8 at 5 req/s: 30.8-41.0 ms TPOT, 222-252 ms
    TTFT): the fleet's figures must be no better than the best of those seeds, less 15 % for the sample's noise."""
    code, out, err = run_cli(monkeypatch, capsys, "capacity", *CASE, "--target-rate", "40", "--json")
    assert code == 0, err
    d = json.loads(out)
    k = d["replicas_needed"]
    assert k == 8, d  # 40 / 5.33 req/s rounded up, met by the fleet as it is now simulated
    fleet = d["at_target"]["slo_check"]
    assert fleet["meets"]
    share = 40 / k
    poisson = [_one_replica(monkeypatch, capsys, share, 1.0, s) for s in range(4)]
    spaced = [_one_replica(monkeypatch, capsys, share, float(k), s) for s in range(4)]
    assert fleet["tpot_ms"] >= 0.85 * min(c["tpot_ms"] for c in poisson), (fleet, poisson)
    assert fleet["tpot_ms"] >= 0.85 * min(c["tpot_ms"] for c in spaced), (fleet, spaced)
    assert fleet["ttft_ms"] >= 0.85 * min(c["ttft_ms"] for c in spaced), (fleet, spaced)
    # each replica served a probe's 500 requests: 4,000 in all
    assert d["at_target"]["requests_total"] == k * 500
    code, out, err = run_cli(monkeypatch, capsys, "capacity", *CASE, "--target-rate", "40")
    assert code == 0, err  # the progress line names the fleet's run
    assert "8 replicas at 40 req/s (4,000 requests): meets the SLO" in " ".join(err.split()), err


def test_copies_of_a_prefix_sharing_workload_share_no_prefix_across_copies():
    """Mooncake's conversation trace shares prompt prefixes (Workload.block_hashes): the fleet's copies keep that
    sharing within a copy and gain none across copies, or the fleet would hit a cache the workload never fills."""
    from kvplan.workload import WorkloadSpec, build_workload, fleet_workload

    w = build_workload(WorkloadSpec(workload="mooncake-conv", max_requests=300, rate_per_s=1.0, arrivals="poisson"))
    assert w.block_hashes is not None
    f = fleet_workload(w, 6.0, 3)
    assert f is not None and len(f) == 900
    n = len(w)
    copies = [[f.block_hashes[i * 3 + c] for i in range(n)] for c in range(3)]
    flat = [set(h for chain in cp for h in chain) for cp in copies]
    assert not (flat[0] & flat[1]) and not (flat[0] & flat[2]) and not (flat[1] & flat[2])
    for c in range(3):
        start = c * n // 3  # copy c begins 1/3 of the way further along
        src = [w.block_hashes[(i + start) % n] for i in range(n)]
        # the same equalities: a hash shared by two requests (or blocks) of w is shared by their copies, and only then
        pairs = {}
        for a, b in zip(src, copies[c]):
            assert len(a) == len(b)
            for x, y in zip(a, b):
                assert pairs.setdefault(x, y) == y
        assert len(set(pairs.values())) == len(pairs)
        assert np.array_equal(f.prompt_tokens[c::3], w.prompt_tokens[(np.arange(n) + start) % n])


def test_a_recorded_trace_is_not_redrawn_and_the_sample_is_capped():
    """A trace's own arrivals are not redrawn for the fleet (None: find_capacity checks one replica at its share
    with the whole trace); a drawn sample's copies stop at max_requests."""
    from kvplan.workload import WorkloadSpec, build_workload, fleet_workload

    trace = build_workload(WorkloadSpec(workload="azure-conv", max_requests=200, rate_per_s=1.0))
    assert trace.arrival_s is not None and fleet_workload(trace, 5.0, 4) is None
    drawn = build_workload(WorkloadSpec(workload="sharegpt", max_requests=200, rate_per_s=1.0))
    f = fleet_workload(drawn, 40.0, 8, max_requests=1000)
    assert len(f) == 1000 and "5 copies of the 200 requests" in " ".join(f.notes)
    gaps = np.diff(f.arrival_s)
    assert abs(1 / gaps.mean() - 40.0) < 4.0  # the whole rate, not a replica's
