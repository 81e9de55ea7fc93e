"""Data-parallel ranks stepping in lockstep (vLLM's DP for MoE models) and vLLM's DP balancer."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from kvplan.errors import InputError
from kvplan.simulate import (DP_STATS_PUBLISH_S, EngineConfig, StepModel, _DPBalancerView, _vllm_dp_pick,
                             scheduler_rules, simulate, simulate_replicas)
from kvplan.workload import Workload

R19 = scheduler_rules("0.19.0")
SM = StepModel.from_numbers(
    weights_bytes=2e8, active_params=1e8, num_layers=4, hidden_size=512, num_attention_heads=8, num_kv_heads=2,
    head_dim=64, vocab_size=1000, kv_bytes_per_token=4 * 2 * 2 * 64 * 2, hbm_bytes_per_s=1e11, peak_flops_per_s=1e13)


def wl(prompts, completions, arrivals) -> Workload:
    return Workload(name="t", prompt_tokens=np.asarray(prompts, dtype=np.int64),
                    completion_tokens=np.asarray(completions, dtype=np.int64), arrival_s=np.asarray(arrivals, dtype=float))


def cfg(**kw) -> EngineConfig:
    base = dict(num_gpu_blocks=2000, block_size=16, max_num_seqs=8, max_num_batched_tokens=256, max_model_len=8192)
    base.update(kw)
    return EngineConfig(**base)


def test_symmetric_ranks_in_lockstep_match_one_engine():
    """Two identical requests, one per rank: the slowest rank is either rank, so the timings equal a lone engine's."""
    two = simulate_replicas(wl([300, 300], [40, 40], [0.0, 0.0]), cfg(), SM, 2, "round-robin", R19, lockstep=True)
    one = simulate(wl([300], [40], [0.0]), cfg(), SM, R19)
    assert np.allclose(two.first_token_s, one.first_token_s[0])
    assert np.allclose(two.finish_s, one.finish_s[0])


def test_lockstep_stretches_the_lighter_rank():
    """Rank 1 decodes while rank 0 prefills a long prompt in chunks: in lockstep rank 1's steps last as long as
    rank 0's, so its request finishes later than on an independent replica; rank 0's is unaffected or slower."""
    w = wl([4000, 20], [5, 60], [0.0, 0.0])
    free = simulate_replicas(w, cfg(), SM, 2, "round-robin", R19)
    tied = simulate_replicas(w, cfg(), SM, 2, "round-robin", R19, lockstep=True)
    assert tied.completed.all() and free.completed.all()
    assert tied.finish_s[1] > free.finish_s[1] * 1.2
    assert tied.finish_s[0] >= free.finish_s[0] - 1e-9


def test_lockstep_books_and_summed_series():
    rng = np.random.default_rng(3)
    n = 90
    w = wl(rng.integers(20, 600, n), rng.integers(1, 400, n), np.sort(rng.uniform(0, 0.5, n)))
    res = simulate_replicas(w, cfg(num_gpu_blocks=300), SM, 3, "vllm-dp", R19, lockstep=True)
    assert res.completed.all()
    assert res.prefill_tokens_computed >= int(w.prompt_tokens.sum())
    assert res.decode_tokens_computed + n >= int(w.completion_tokens.sum())
    assert res.ts_t_s.size >= 3
    assert (res.ts_running <= 3 * 8).all() and res.ts_running.max() > res.max_running  # summed over the ranks
    assert (res.ts_kv_usage <= 1.0 + 1e-9).all()


def test_lockstep_rank_admits_once_finished_requests_release_their_blocks():
    """Regression: with async scheduling (0.19) a finished request holds its blocks through the next schedule, so
    rank 0's second request (which cannot fit beside the first) gets an empty schedule that only releases them.
    No rank then has a step to run: the driver used to end the run ('a lockstep rank holds requests it cannot
    schedule'); vLLM's ranks run a dummy step and rank 0 schedules again at once, as a lone engine does."""
    c = cfg(num_gpu_blocks=5, max_model_len=256)  # 4 usable blocks: 3 per request
    w = wl([40, 10, 40], [2, 1, 2], [0.0, 0.0, 0.0])  # round-robin: requests 0 and 2 on rank 0
    tied = simulate_replicas(w, c, SM, 2, "round-robin", R19, lockstep=True)
    alone = simulate(wl([40, 40], [2, 2], [0.0, 0.0]), c, SM, R19)
    assert tied.completed.all()
    np.testing.assert_allclose(tied.finish_s[[0, 2]], alone.finish_s, rtol=1e-12)
    np.testing.assert_allclose(tied.first_scheduled_s[[0, 2]], alone.first_scheduled_s, rtol=1e-12)


def test_lockstep_under_memory_pressure_finishes():
    """Tight pools, prefix caching and fixed state blocks with many requests per rank (the reference cases that
    stalled): every admitted request finishes."""
    rng = np.random.default_rng(5)
    n = 120
    w = wl(rng.integers(50, 1500, n), rng.integers(1, 300, n), np.sort(rng.uniform(0, 1, n)))
    for kw in (dict(num_gpu_blocks=120), dict(num_gpu_blocks=200, enable_prefix_caching=True),
               dict(num_gpu_blocks=300, fixed_blocks_per_seq=3, blocks_per_boundary=2)):
        c = cfg(max_num_seqs=16, max_model_len=2200, **kw)
        res = simulate_replicas(w, c, SM, 2, "vllm-dp", R19, lockstep=True)
        assert res.completed[~res.rejected].all()


def test_vllm_dp_balancer_scores_waiting_four_times():
    assert _vllm_dp_pick([(0, 5), (1, 0)]) == 1  # 5 vs 4
    assert _vllm_dp_pick([(1, 1), (0, 5)]) == 0  # 5 vs 5: lowest index
    assert _vllm_dp_pick([(2, 0), (0, 7)]) == 1  # 8 vs 7


def test_dp_balancer_sees_published_counts_plus_its_own_routings():
    """vLLM 0.19's API server balances on the counts its DP coordinator last published (every 100 ms), plus one
    waiting request per request it routed since; a rank's own counts leave out requests it has not read yet."""
    live = [[0, 6], [0, 0]]  # (waiting, running) as each rank's scheduler reports them
    view = _DPBalancerView([lambda: live[0], lambda: live[1]])
    assert DP_STATS_PUBLISH_S == 0.1
    # a burst inside one publication period: rank 1 (score 0), rank 1 again (4 < 6), then rank 0 (8 > 6)
    assert [view.pick(t) for t in (0.00, 0.01, 0.02)] == [1, 1, 0]
    live[:] = [[0, 7], [0, 2]]  # the ranks have read and scheduled them, but nothing is published before t = 0.1
    assert view.pick(0.05) == 1  # stale view: rank 0 1 x 4 + 6 = 10, rank 1 2 x 4 + 0 = 8
    assert view.view == [[1, 6], [3, 0]]
    live[:] = [[0, 7], [0, 3]]
    assert view.pick(0.10) == 1  # published: 7 vs 3, the routed-since counts dropped
    assert view.view == [[0, 7], [1, 3]]
    assert view.next_publish == pytest.approx(0.2)


def test_lockstep_dp_balancer_at_low_load_queues_nothing():
    """Requests far apart (each finished before the next arrives): the lagged view routes them without queueing."""
    w = wl([200] * 6, [5] * 6, np.arange(6) * 5.0)
    res = simulate_replicas(w, cfg(), SM, 2, "vllm-dp", R19, lockstep=True)
    assert res.completed.all()
    assert np.allclose(res.queue_s, 0.0, atol=1e-9)


def test_vllm_dp_router_without_lockstep_and_bad_router():
    w = wl([100] * 8, [10] * 8, np.linspace(0, 0.01, 8))
    res = simulate_replicas(w, cfg(), SM, 2, "vllm-dp", R19)
    assert res.completed.all()
    with pytest.raises(InputError):
        simulate_replicas(w, cfg(), SM, 2, "random", R19, lockstep=True)


def test_capacity_of_a_data_parallel_group_exceeds_one_engine():
    from kvplan.simulate import SLO, find_capacity

    rng = np.random.default_rng(1)
    n = 300
    prompts, completions = rng.integers(50, 400, n), rng.integers(20, 120, n)

    def at(rate):
        return wl(prompts, completions, np.cumsum(rng.exponential(1 / rate, n)))

    slo = SLO(ttft_ms=2000.0, percentile=90.0)
    one = find_capacity(at, cfg(), SM, slo, R19, max_probes=10)
    two = find_capacity(at, cfg(), SM, slo, R19, max_probes=10, data_parallel_size=2, lockstep=True)
    assert one.max_rate_per_s > 0
    assert two.max_rate_per_s > 1.3 * one.max_rate_per_s


def test_cli_simulates_data_parallel_moe_engines_in_lockstep():
    import json
    import subprocess

    r = subprocess.run(["kvplan", "simulate", "Qwen/Qwen3-30B-A3B-Instruct-2507", "--gpu", "H100", "-dp", "2",
                        "--enable-expert-parallel", "--max-model-len", "8192", "--prompt-len", "constant:500",
                        "--completion-len", "constant:50", "--rate", "20", "-n", "200", "--json"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["requests_completed"] == 200
    assert any("lockstep data-parallel ranks" in note for note in d["notes"])


EP2 = StepModel.from_numbers(weights_bytes=60e9, active_params=3e9, num_layers=48, hidden_size=2048,
                             num_attention_heads=32, num_kv_heads=4, head_dim=128, vocab_size=151936,
                             kv_bytes_per_token=98304, hbm_bytes_per_s=1.8e12, peak_flops_per_s=500e12,
                             num_experts=128, experts_per_tok=8, moe_intermediate_size=768, expert_parallel_size=2)


def test_dp_padding_sends_the_largest_ranks_batch_through_every_ranks_experts():
    """vLLM pads the DP ranks to the largest rank's batch (an idle rank's dummy batch too): from 0.16 only on steps
    every rank runs as a CUDA graph, before on every step unless eager. The padded tokens touch more experts, so the
    busy rank's steps take longer than with no padding."""
    # round-robin puts the four long requests on rank 0; rank 1's three short ones are done early, then it idles
    w = wl([50, 50, 50, 50, 50, 50, 50], [400, 5, 400, 5, 400, 5, 400], [0.0] * 7)
    eager = simulate_replicas(w, cfg(cudagraph_max_tokens=0), EP2, 2, "round-robin", R19, lockstep=True)
    graphs = simulate_replicas(w, cfg(cudagraph_max_tokens=512), EP2, 2, "round-robin", R19, lockstep=True)
    assert eager.completed.all() and graphs.completed.all()
    assert graphs.finish_s.max() > eager.finish_s.max() * 1.01
    # a prefill beyond the capture sizes: padded before 0.16 (every step), not from 0.16 (graph steps only)
    w = wl([4000, 20], [3, 200], [0.0, 0.0])
    old, new = (simulate_replicas(w, cfg(cudagraph_max_tokens=16), EP2, 2, "round-robin", scheduler_rules(v), lockstep=True)
                for v in ("0.15.1", "0.16.0"))
    assert old.first_token_s[0] > new.first_token_s[0]
    assert scheduler_rules("0.15.1").dp_padding == "every_step" and scheduler_rules("0.19.0").dp_padding == "graph_steps"


def test_expert_collectives_wait_for_the_rank_that_receives_the_most():
    """vLLM 0.19's default expert-parallel all2all (all2all_backend "allgather_reducescatter",
    vllm/distributed/device_communicators/all2all.py AgRsAll2AllManager) gathers every rank's tokens with
    all_gatherv and scatters the results back with reduce_scatterv; both end together on every rank. A rank
    prefilling next to an idle one (its dummy batch holds no tokens) must send its whole chunk to the idle rank and
    get the expert outputs back, so the step carries the chunk's transfer, though the busy rank receives nothing."""
    pcie = replace(EP2, link_bytes_per_s=16e9, collective_latency_s=20e-6)
    w = wl([2000], [2], [0.0])
    c = cfg(max_num_batched_tokens=2048, cudagraph_max_tokens=0)
    res = simulate_replicas(w, c, pcie, 2, "vllm-dp", R19, lockstep=True)
    alone = pcie.step_s(0, 0, [(2000, 0)])  # as if the other rank held 2000 tokens too
    expected = alone - pcie.moe_part_s(2000, 4000) + pcie.moe_part_s(0, 2000)
    assert res.first_token_s[0] == pytest.approx(expected, rel=1e-9)
    transfer = pcie.num_ep_collectives * 2000 * 2048 * 2 / 16e9
    assert expected - (alone - pcie.moe_part_s(2000, 4000) + pcie.moe_part_s(2000, 2000)) == pytest.approx(transfer)
    # two ranks of equal chunks: each receives the other's, as before
    both = simulate_replicas(wl([2000, 2000], [2, 2], [0.0, 0.0]), c, pcie, 2, "round-robin", R19, lockstep=True)
    assert both.first_token_s == pytest.approx([alone, alone], rel=1e-9)


def test_lockstep_kv_peak_and_mean_are_the_groups_not_rank_zeros():
    """Found by a sweep: the KV usage peak and time mean of a lockstep DP run were rank 0's alone, so with rank 0
    holding a short request and the other ranks long ones the reported peak (0.2 % of the pool) sat below the
    rank-averaged usage series (up to 30 %). The peak is now the busiest rank's, as max_running is, and the mean is
    the mean over the ranks, as the series is."""
    c = cfg(num_gpu_blocks=1001)  # 1000 usable blocks per rank
    w = wl([16, 600, 600, 600], [2, 6000, 6000, 6000], [0.0, 0.0, 0.0, 0.0])  # round-robin: the short one on rank 0
    res = simulate_replicas(w, c, SM, 4, "round-robin", R19, lockstep=True)
    assert res.completed.all() and res.ts_kv_usage.size > 5
    busiest = -(-(600 + 6000 - 1) // 16) / 1000  # blocks a long request holds at its end, over the usable pool
    assert res.kv_usage_peak == pytest.approx(busiest, abs=0.002)
    assert res.kv_usage_peak >= res.ts_kv_usage.max() - 1e-9
    # the time mean agrees with the averaged series (sampled, so loosely)
    assert res.to_dict()["kv_usage_mean"] == pytest.approx(float(res.ts_kv_usage.mean()), rel=0.15)
    assert "KV peak are the busiest rank's" in " ".join(res.notes)
