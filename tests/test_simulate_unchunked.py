"""The simulator takes the plan's chunked-prefill setting: V1 with chunked prefill off (--no-enable-chunked-prefill,
honoured from 0.11.1; a pooling model's default) admits a WAITING request only if its whole prompt fits the step's
token budget left (vllm/v1/core/sched/scheduler.py Scheduler.schedule); up to 0.11 such a request is set aside and
later ones are still considered, from 0.12 the admission stops there."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import kvplan
from kvplan.simulate import (EngineConfig, StepCoefficients, StepModel, scheduler_rules, serving_setup, simulate,
                             simulate_plan)
from kvplan.workload import Workload

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"

SM = StepModel.from_numbers(
    weights_bytes=2e8, active_params=1e8, num_layers=4, hidden_size=512, num_attention_heads=8, num_kv_heads=2,
    head_dim=64, vocab_size=1000, kv_bytes_per_token=4 * 2 * 2 * 64 * 2, hbm_bytes_per_s=1e11,
    peak_flops_per_s=1e13, coeffs=replace(StepCoefficients(), t_fixed_s=0.001))


def wl(prompts, completions, arrivals) -> Workload:
    return Workload(name="t", prompt_tokens=np.asarray(prompts, dtype=np.int64),
                    completion_tokens=np.asarray(completions, dtype=np.int64),
                    arrival_s=np.asarray(arrivals, dtype=np.float64))


def cfg(budget=256) -> EngineConfig:
    return EngineConfig(num_gpu_blocks=1000, block_size=16, max_num_seqs=8, max_num_batched_tokens=budget,
                        max_model_len=budget)


@pytest.mark.parametrize("version,given,chunked", [
    ("0.11.1", False, False), ("0.34.0", False, False),   # the flag is taken
    ("0.11.0", False, True),                              # V1 forces chunked prefill on for a generative model
    ("0.11.1", None, True), ("0.34.0", None, True), ("0.34.0", True, True)])
def test_the_simulated_server_takes_the_plans_chunked_prefill(version, given, chunked):
    plan = kvplan.fit(LLAMA, "H100", max_model_len=8192, vllm_version=version, enable_chunked_prefill=given)
    assert plan.chunked_prefill is chunked
    _, _, rules = serving_setup(plan)
    assert rules.engine == "v1" and rules.chunked_prefill is chunked


def test_a_pooling_models_default_off_reaches_the_simulator():
    # Qwen3-8B as a pooling runner at 0.10.0: chunked prefill off by default (rules row pooling_chunked_prefill_default)
    plan = kvplan.fit("Qwen/Qwen3-8B", "H100", vllm_version="0.10.0", max_model_len=16384, runner="pooling")
    assert plan.chunked_prefill is False
    assert serving_setup(plan)[2].chunked_prefill is False


def test_oversize_rule_by_release():
    assert scheduler_rules("0.11.1").unchunked_oversize == "skip"
    assert scheduler_rules("0.12.0").unchunked_oversize == "stop"
    assert scheduler_rules("0.34.0").unchunked_oversize == "stop"


# Four decoders take 4 of the 256 tokens of every step; B's 254-token prompt fits a step alone but not beside them.
# C, a short prompt, arrives after B.
DECODERS = ([20] * 4, [40] * 4, [0.0] * 4)
W = wl(DECODERS[0] + [254, 10], DECODERS[1] + [1, 5], DECODERS[2] + [0.01, 0.02])


@pytest.mark.parametrize("version", ["0.11.1", "0.34.0"])
def test_without_chunked_prefill_a_prompt_waits_for_a_step_it_fits_whole(version):
    on = scheduler_rules(version)
    off = replace(on, chunked_prefill=False)
    r_on, r_off = simulate(W, cfg(), SM, on), simulate(W, cfg(), SM, off)
    assert r_on.completed.all() and r_off.completed.all()
    decoders_done = r_off.finish_s[:4].max()
    # chunked: B's first chunk (252 tokens) joins the decoders' step
    assert r_on.first_scheduled_s[4] < decoders_done
    # unchunked: B is admitted only once the decoders leave it the whole budget (with async scheduling, 0.19+, the
    # step after the decoders' last one is decided while that one runs)
    lead = 1.01 * SM.step_s(4, 60) if on.async_scheduling else 0.0  # one decode step
    assert r_off.first_scheduled_s[4] >= r_off.finish_s[:4].min() - lead - 1e-12
    assert r_off.first_scheduled_s[4] > r_on.first_scheduled_s[4]
    assert r_off.ttft_s[4] > r_on.ttft_s[4]


def test_up_to_0_11_a_later_prompt_goes_ahead_of_one_that_does_not_fit():
    skip = replace(scheduler_rules("0.11.1"), chunked_prefill=False)
    stop = replace(scheduler_rules("0.12.0"), chunked_prefill=False)
    r_skip, r_stop = simulate(W, cfg(), SM, skip), simulate(W, cfg(), SM, stop)
    # 0.11.1: B is set aside, C (10 tokens) is admitted beside the decoders, before B
    assert r_skip.first_scheduled_s[5] < r_skip.first_scheduled_s[4]
    assert r_skip.first_scheduled_s[5] < r_skip.finish_s[:4].min()
    # 0.12+: the admission stops at B; C comes after it
    assert r_stop.first_scheduled_s[5] >= r_stop.first_scheduled_s[4]
    assert r_stop.first_scheduled_s[5] >= r_stop.finish_s[:4].min() - 1e-12
    assert r_stop.first_scheduled_s[5] > r_skip.first_scheduled_s[5]


def test_a_plan_without_chunked_prefill_simulates_otherwise_than_with_it():
    rng = np.random.default_rng(1)
    n = 300
    w = Workload("w", rng.integers(2000, 7000, n), rng.integers(50, 300, n), np.cumsum(rng.exponential(1 / 8, n)))
    runs = {}
    for given in (None, False):
        plan = kvplan.fit(LLAMA, "H100", max_model_len=8192, vllm_version="0.34.0", enable_chunked_prefill=given)
        c, sm, rules = serving_setup(plan)
        runs[given] = simulate_plan(plan, w, c, sm, rules)
    assert runs[None].completed.all() and runs[False].completed.all()
    assert not np.array_equal(runs[None].first_scheduled_s, runs[False].first_scheduled_s)


@pytest.mark.parametrize("version,kw,noted", [
    ("0.7.3", dict(max_model_len=65536), True),                                # V0's default for contexts > 32K
    ("0.6.3", dict(max_model_len=8192, enable_chunked_prefill=True), True),    # given
    ("0.7.3", dict(max_model_len=8192), False),                                # V0 default off: modelled
    ("0.7.3", dict(max_model_len=65536, enable_chunked_prefill=False), False),
    ("0.10.0", dict(max_model_len=65536), False)])                             # V1: modelled
def test_a_v0_server_with_chunked_prefill_says_its_scheduling_is_not_modelled(version, kw, noted):
    plan = kvplan.fit(LLAMA, "H100", vllm_version=version, **kw)
    cfg_, sm, rules = serving_setup(plan)
    notes = [n for n in sm.notes if "V0 engine with chunked prefill" in n]
    assert bool(notes) is noted
    if noted:
        assert rules.engine == "v0" and plan.chunked_prefill
        assert f"at most {plan.args.max_num_batched_tokens:,} tokens are not modelled" in notes[0]
        assert f"up to {max(cfg_.max_num_batched_tokens, cfg_.max_model_len):,} tokens a step" in notes[0]
