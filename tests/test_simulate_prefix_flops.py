"""Prefix caching of a preempted request's own blocks (vLLM's LRU free queue) and the step model's FLOP
accounting (logits once per scheduled request, no FLOPs for the embedding lookup, MoE experts per EP group)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from kvplan.simulate import EngineConfig, StepCoefficients, StepModel, _PrefixCache, scheduler_rules, simulate
from kvplan.workload import Workload, prefix_block_hashes

R19 = scheduler_rules("0.19.0")


def small_model() -> StepModel:
    return StepModel.from_numbers(
        weights_bytes=2e8, active_params=1e8, num_layers=4, hidden_size=512, num_attention_heads=8, num_kv_heads=2,
        head_dim=64, vocab_size=1000, kv_bytes_per_token=4 * 2 * 2 * 64 * 2, hbm_bytes_per_s=1e11,
        peak_flops_per_s=1e13, coeffs=replace(StepCoefficients(), t_fixed_s=0.001))


def cfg(blocks, **kw) -> EngineConfig:
    return EngineConfig(num_gpu_blocks=blocks, block_size=16, max_num_seqs=8, max_num_batched_tokens=256,
                        max_model_len=4096, **kw)


def test_free_queue_is_lru_and_frees_a_request_tail_first():
    pc = _PrefixCache(1, 10)
    pc.take(6)  # 4 plain blocks left at the head
    keys = ["a", "b", "c", "d"]
    pc.free_cached(reversed(keys))  # vLLM frees a request's blocks last first
    assert pc.free_blocks() == 8 and pc.match(keys) == (4, 4)
    pc.take(4)  # the never-used blocks go first: nothing evicted
    assert pc.match(keys) == (4, 4) and pc.evicted == 0
    pc.take(1)  # then the oldest free block: the request's LAST block
    assert pc.match(keys) == (3, 3) and pc.evicted == 1
    pc.acquire(keys[:3])  # a hit takes its blocks out of the free queue
    assert pc.free_blocks() == 0 and pc.in_use_blocks() == 3


def test_preempted_request_gets_its_own_cached_blocks_back():
    # two long requests in a pool too small for both to finish: the later one is preempted while decoding
    w = Workload(name="pre", prompt_tokens=np.array([400, 400]), completion_tokens=np.array([300, 300]),
                 arrival_s=np.array([0.0, 0.0]))
    c = cfg(80)  # 79 usable blocks; each request needs up to 44
    off = simulate(w, c, small_model(), R19)
    on = simulate(w, replace(c, enable_prefix_caching=True), small_model(), R19)
    assert off.preemptions >= 1 and on.preemptions >= 1
    assert off.prefix_hit_tokens == 0 and on.prefix_hit_tokens > 0  # its freed blocks were still cached
    assert on.prefill_tokens_computed < off.prefill_tokens_computed
    assert any("own freed blocks" in n for n in on.notes)
    # with unique per-request hashes (no shared prefixes) the hits are the same own-block hits
    h = prefix_block_hashes([400, 400], None, 16)
    uniq = simulate(replace(w, block_hashes=h, hash_block_tokens=16), replace(c, enable_prefix_caching=True),
                    small_model(), R19)
    assert uniq.prefix_hit_tokens == on.prefix_hit_tokens
    assert np.all(np.isfinite(on.finish_s))


def test_kv_usage_series_counts_cached_free_blocks_as_free_and_a_preempted_request_as_waiting():
    """The per-second series read what vLLM 0.19's gauges read (vllm/v1/core/sched/scheduler.py
    Scheduler.make_stats: num_running_reqs = len(running), num_waiting_reqs = len(waiting) + len(skipped_waiting),
    kv_cache_usage = BlockPool.get_usage() = 1 - free / (num_gpu_blocks - 1), vllm/v1/core/block_pool.py): a
    preempted request is prepended to WAITING (Scheduler._preempt_request) and counts there, and a freed block
    that keeps its hash for prefix caching sits in the free queue, so it counts as free."""
    w = Workload(name="pre", prompt_tokens=np.array([400, 400, 80]), completion_tokens=np.array([300, 300, 4]),
                 arrival_s=np.array([0.0, 0.0, 30.0]))
    c = replace(cfg(80), enable_prefix_caching=True)
    # the third request shares its first 64 tokens (4 blocks) with the first
    shared = replace(w, block_hashes=prefix_block_hashes([400, 400, 80], [[-1, 0], [-1, 0], [0, 64]], 16),
                     hash_block_tokens=16)
    apart = replace(w, block_hashes=prefix_block_hashes([400, 400, 80], None, 16), hash_block_tokens=16)
    r = simulate(shared, c, small_model(), R19, sample_interval_s=0.005)
    r_apart = simulate(apart, c, small_model(), R19, sample_interval_s=0.005)
    assert r.preemptions >= 1 and r_apart.prefix_hit_tokens > 0
    assert r.prefix_hit_tokens - r_apart.prefix_hit_tokens == 64  # the first's blocks were still cached at 30 s
    pairs = list(zip(r.ts_running.tolist(), r.ts_waiting.tolist()))
    first_both = pairs.index((2, 0))
    assert (1, 1) in pairs[first_both:]  # the preempted one: out of RUNNING, counted in WAITING
    # between the first two requests' finish and the third's arrival the pool holds only cached-free blocks:
    # vLLM's usage is 0 there, though a later hit could still find them
    gap = (r.ts_t_s > r.finish_s[:2].max() + 0.1) & (r.ts_t_s < 29.9)
    assert gap.any() and np.all(r.ts_kv_usage[gap] == 0.0)
    busy = (r.ts_t_s > 0.05) & (r.ts_t_s < r.finish_s[0] - 0.05)
    assert r.ts_kv_usage[busy].max() > 0.9  # both requests' own blocks fill the 79-block pool


def test_prefix_block_hashes_follow_the_tree():
    h = prefix_block_hashes([100, 70, 40], [[-1, 0], [0, 50], [1, 70]], 16)
    assert [len(x) for x in h] == [6, 4, 2]
    assert h[1][:3] == h[0][:3] and h[1][3] != h[0][3]  # 50 shared tokens = 3 full blocks
    assert h[2] == h[1][:2]


def test_logits_flops_do_not_scale_with_prefill_tokens():
    sm = small_model()
    no_head = replace(sm, lm_head_flops_per_seq=0.0)
    # a compute-bound step: one 4096-token prefill vs the same with no LM head: one logits row apart
    d = sm.fixed_part_s(4096, 1) - no_head.fixed_part_s(4096, 1)
    assert d == pytest.approx(sm.lm_head_flops_per_seq / (sm.peak_flops_per_s * sm.coeffs.eta_compute))
    d2 = sm.fixed_part_s(8192, 1) - no_head.fixed_part_s(8192, 1)
    assert d2 == pytest.approx(d)


def test_untied_embedding_lookup_costs_no_flops():
    kw = dict(weights_bytes=16e9, active_params=8.03e9, num_layers=32, hidden_size=4096, num_attention_heads=32,
              num_kv_heads=8, head_dim=128, vocab_size=128256, kv_bytes_per_token=131072, hbm_bytes_per_s=1e12,
              peak_flops_per_s=165e12)
    tied = StepModel.from_numbers(**kw)
    untied = StepModel.from_numbers(**kw, embedding_bytes=128256 * 4096 * 2)
    table = 128256 * 4096
    assert tied.linear_flops_per_token == pytest.approx(2 * (8.03e9 - table))
    assert untied.linear_flops_per_token == pytest.approx(2 * (8.03e9 - 2 * table))


def test_moe_experts_are_charged_for_the_group_tokens():
    ep2 = StepModel.from_numbers(weights_bytes=60e9, active_params=3e9, num_layers=48, hidden_size=2048,
                                 num_attention_heads=32, num_kv_heads=4, head_dim=128, vocab_size=151936,
                                 kv_bytes_per_token=98304, hbm_bytes_per_s=1.8e12, peak_flops_per_s=50e12,
                                 num_experts=128, experts_per_tok=8, moe_intermediate_size=768, expert_parallel_size=2)
    # one rank prefills 2048 tokens while the other decodes 128: the experts see 2176 tokens, not 4096
    assert ep2.moe_part_s(2048, 2176) < ep2.moe_part_s(2048, 4096)
    # the default (no group known) assumes every rank holds as many tokens as this one
    assert ep2.moe_part_s(2048, 2048 * 2) > ep2.moe_part_s(2048, 2048)
