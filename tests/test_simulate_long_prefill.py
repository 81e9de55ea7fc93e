"""Where long_prefill_token_threshold caps a prefill chunk, by release (vllm/v1/core/sched/scheduler.py
Scheduler.schedule): V1 0.8-0.30 caps every request, chunked prefill or not; from 0.31 a step whose schedule() starts
with one request running or waiting takes no cap; from 0.34 the cap also needs chunked prefill. V0 caps only when
chunking."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import kvplan
from kvplan.simulate import EngineConfig, StepCoefficients, StepModel, scheduler_rules, simulate
from kvplan.workload import Workload

SM = StepModel.from_numbers(
    weights_bytes=2e8, active_params=1e8, num_layers=4, hidden_size=512, num_attention_heads=8, num_kv_heads=2,
    head_dim=64, vocab_size=1000, kv_bytes_per_token=4 * 2 * 2 * 64 * 2, hbm_bytes_per_s=1e11,
    peak_flops_per_s=1e13, coeffs=replace(StepCoefficients(), t_fixed_s=0.001))


def wl(prompts, completions, arrivals=None) -> Workload:
    n = len(prompts)
    return Workload(name="t", prompt_tokens=np.asarray(prompts, dtype=np.int64),
                    completion_tokens=np.asarray(completions, dtype=np.int64),
                    arrival_s=np.zeros(n) if arrivals is None else np.asarray(arrivals, dtype=np.float64))


def cfg(budget=512, threshold=100, mml=1024) -> EngineConfig:
    return EngineConfig(num_gpu_blocks=1000, block_size=16, max_num_seqs=8, max_num_batched_tokens=budget,
                        max_model_len=mml, long_prefill_token_threshold=threshold)


def chunks_s(*steps) -> float:
    """Seconds of prefill-only steps, each a list of (chunk tokens, prefix tokens)."""
    return sum(SM.step_s(0, 0, list(s)) for s in steps)


@pytest.mark.parametrize("version,needs_chunked,needs_company", [
    ("0.6.3", True, False),      # V0: only its chunked-prefill path caps partial prefills
    ("0.8.0", False, False), ("0.19.0", False, False), ("0.30.0", False, False),
    ("0.31.0", False, True), ("0.33.0", False, True),
    ("0.34.0", True, True)])
def test_rule_rows_by_release(version, needs_chunked, needs_company):
    r = scheduler_rules(version)
    assert (r.long_prefill_needs_chunked, r.long_prefill_needs_company) == (needs_chunked, needs_company)


def test_a_lone_request_is_capped_up_to_0_30_and_not_from_0_31():
    w = wl([300], [1])
    capped = chunks_s([(100, 0)], [(100, 100)], [(100, 200)])
    whole = chunks_s([(300, 0)])
    assert capped > whole
    assert simulate(w, cfg(), SM, scheduler_rules("0.30.0")).ttft_s[0] == pytest.approx(capped, rel=1e-12)
    for v in ("0.31.0", "0.33.0", "0.34.0"):
        r = simulate(w, cfg(), SM, scheduler_rules(v))
        assert r.ttft_s[0] == pytest.approx(whole, rel=1e-12), v
        assert r.steps == 1


@pytest.mark.parametrize("version", ["0.30.0", "0.33.0", "0.34.0"])
def test_two_requests_are_both_capped(version):
    """Two requests queued together: every step of theirs starts with two eligible, so each chunk is capped."""
    r = simulate(wl([300, 300], [1, 1]), cfg(), SM, scheduler_rules(version))
    expect = chunks_s(*[[(100, pre), (100, pre)] for pre in (0, 100, 200)])
    assert r.ttft_s.tolist() == pytest.approx([expect, expect], rel=1e-12)


@pytest.mark.parametrize("async_scheduling", [True, False])
def test_the_last_one_left_goes_uncapped_once_the_other_is_gone(async_scheduling):
    """A (16 tokens, one output) finishes in step 1. With async scheduling step 2 was scheduled before A's output
    was processed, so A still counts and B's second chunk is capped; B's last 200 tokens then go in one step.
    Without async scheduling A is gone at step 2: B's last 300 tokens go at once."""
    rules = replace(scheduler_rules("0.33.0"), async_scheduling=async_scheduling)
    r = simulate(wl([16, 400], [1, 1]), cfg(), SM, rules)
    step1 = chunks_s([(16, 0), (100, 0)])
    rest = chunks_s([(100, 100)], [(200, 200)]) if async_scheduling else chunks_s([(300, 100)])
    assert r.ttft_s[0] == pytest.approx(step1, rel=1e-12)
    assert r.ttft_s[1] == pytest.approx(step1 + rest, rel=1e-12)


def test_0_34_without_chunked_prefill_takes_no_cap():
    """0.34 caps only with chunked prefill: two 300-token prompts go whole in one step; 0.33 caps them."""
    w = wl([300, 300], [1, 1])
    capped = chunks_s(*[[(100, pre), (100, pre)] for pre in (0, 100, 200)])
    whole = chunks_s([(300, 0), (300, 0)])
    r34 = simulate(w, cfg(budget=1024), SM, replace(scheduler_rules("0.34.0"), chunked_prefill=False))
    r33 = simulate(w, cfg(budget=1024), SM, replace(scheduler_rules("0.33.0"), chunked_prefill=False))
    assert r34.ttft_s.tolist() == pytest.approx([whole, whole], rel=1e-12)
    assert r33.ttft_s.tolist() == pytest.approx([capped, capped], rel=1e-12)


def _cli(*args: str):
    """(exit code, output): an InputError is exit 2 with its message, as the console script gives it."""
    from typer.testing import CliRunner

    from kvplan.cli import app
    from kvplan.errors import InputError

    res = CliRunner().invoke(app, list(args))
    if isinstance(res.exception, InputError):
        return 2, str(res.exception)
    return res.exit_code, res.output


@pytest.mark.parametrize("version,refused", [("0.26.0", False), ("0.27.0", True), ("0.34.0", True)])
def test_a_threshold_above_max_model_len_is_refused_where_vllm_refuses_it(version, refused):
    """From 0.27.0 SchedulerConfig.verify_max_model_len refuses every threshold above max_model_len; before, only with
    max_num_partial_prefills > 1, which V1 does not run. The default 0 is never refused."""
    base = ["simulate", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4", "--max-model-len", "4096", "--vllm-version", version,
            "--prompt-len", "constant:500", "--completion-len", "constant:5", "-n", "5", "--rate", "1"]
    code, out = _cli(*base, "--long-prefill-token-threshold", "4097")
    if refused:
        assert code == 2 and "4097 is above max_model_len 4,096" in out and "at most 4096" in out
    else:
        assert code == 0, out
    for ok in ("4096", "0"):
        code, out = _cli(*base, "--long-prefill-token-threshold", ok)
        assert code == 0, out


def test_every_simulating_caller_gets_vllms_refusal_of_a_threshold_above_max_model_len():
    # the check lives where every command builds its server (simulate.serving_setup), as vLLM's own refusal
    from kvplan.errors import RefusedByVLLMError
    from kvplan.simulate import serving_setup

    plan = kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "L4", max_model_len=4096, vllm_version="0.27.0")
    with pytest.raises(RefusedByVLLMError) as e:
        serving_setup(plan, long_prefill_token_threshold=4097)
    assert e.value.field == "--long-prefill-token-threshold" and "cannot be greater than the max_model_len" in e.value.message
    serving_setup(plan, long_prefill_token_threshold=4096)
    serving_setup(kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "L4", max_model_len=4096, vllm_version="0.26.0"),
                  long_prefill_token_threshold=4097)


# --long-prefill-token-threshold-adaptive (SchedulerConfig.long_prefill_token_threshold_adaptive, 0.31.0-0.34.0 wheels):
# a cap that applies in the step is floored at max_num_batched_tokens // (requests running + waiting)

@pytest.mark.parametrize("version,has_it", [("0.8.0", False), ("0.30.0", False), ("0.31.0", True), ("0.32.0", True),
                                            ("0.33.0", True), ("0.34.0", True)])
def test_adaptive_rule_row_by_release(version, has_it):
    assert scheduler_rules(version).long_prefill_adaptive is has_it


def adaptive(c: EngineConfig) -> EngineConfig:
    return replace(c, long_prefill_token_threshold_adaptive=True)


@pytest.mark.parametrize("version", ["0.31.0", "0.33.0", "0.34.0"])
def test_adaptive_floors_the_cap_at_the_fair_share_of_the_budget(version):
    """Two 300-token prompts, budget 512, threshold 100: the floor is 512 // 2 = 256, so each takes 256 then 44
    (2 steps) where the plain threshold takes 100, 100, 100 (3 steps)."""
    w = wl([300, 300], [1, 1])
    plain = simulate(w, cfg(), SM, scheduler_rules(version))
    fair = simulate(w, adaptive(cfg()), SM, scheduler_rules(version))
    expect = chunks_s([(256, 0), (256, 0)], [(44, 256), (44, 256)])
    assert fair.ttft_s.tolist() == pytest.approx([expect, expect], rel=1e-12)
    assert plain.ttft_s.tolist() == pytest.approx([chunks_s(*[[(100, p), (100, p)] for p in (0, 100, 200)])] * 2,
                                                  rel=1e-12)
    assert fair.steps < plain.steps and fair.ttft_s.max() < plain.ttft_s.max()


def test_adaptive_keeps_a_threshold_above_the_fair_share():
    """Eight 300-token prompts, budget 512: while all eight run (50 outputs each, long after the prefills) the fair
    share 64 is under the threshold 100, which stays. (With one output each, the last ones left would take more.)"""
    w = wl([300] * 8, [50] * 8)
    rules = scheduler_rules("0.33.0")
    plain, fair = simulate(w, cfg(), SM, rules), simulate(w, adaptive(cfg()), SM, rules)
    assert fair.ttft_s.tolist() == plain.ttft_s.tolist() and fair.steps == plain.steps


def test_adaptive_without_a_threshold_or_before_0_31_changes_nothing():
    w = wl([300, 300], [1, 1])
    for c, version in ((cfg(threshold=0), "0.33.0"), (cfg(), "0.30.0")):
        plain, fair = simulate(w, c, SM, scheduler_rules(version)), simulate(w, adaptive(c), SM, scheduler_rules(version))
        assert fair.ttft_s.tolist() == plain.ttft_s.tolist() and fair.steps == plain.steps, version


def _sim_json(version: str, *extra: str) -> dict:
    import json

    code, out = _cli("simulate", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4", "--max-model-len", "4096",
                     "--vllm-version", version, "--prompt-len", "constant:3000", "--completion-len", "constant:5",
                     "-n", "20", "--rate", "4", "--seed", "1", "--long-prefill-token-threshold", "512", "--json", *extra)
    assert code == 0, out
    return json.loads(out)


def test_cli_adaptive_takes_fewer_steps_and_no_later_first_tokens():
    plain = _sim_json("0.33.0")
    off = _sim_json("0.33.0", "--no-long-prefill-token-threshold-adaptive")
    fair = _sim_json("0.33.0", "--long-prefill-token-threshold-adaptive")
    assert off["steps"] == plain["steps"] and off["ttft_ms"] == plain["ttft_ms"]  # off is vLLM's default
    assert fair["steps"] < plain["steps"]
    assert fair["ttft_ms"]["mean"] < plain["ttft_ms"]["mean"] and fair["ttft_ms"]["p99"] < plain["ttft_ms"]["p99"]


@pytest.mark.parametrize("flag", ["--long-prefill-token-threshold-adaptive", "--no-long-prefill-token-threshold-adaptive"])
def test_cli_refuses_the_adaptive_flag_before_0_31(flag):
    code, out = _cli("simulate", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4", "--max-model-len", "4096",
                     "--vllm-version", "0.30.0", "--prompt-len", "constant:500", "--completion-len", "constant:5",
                     "-n", "5", "--rate", "1", "--long-prefill-token-threshold", "512", flag)
    assert code == 2 and f"vLLM 0.30.0 has no {flag} flag" in out and "0.31.0" in out


def test_every_simulating_caller_gets_the_adaptive_flags_release_check():
    from kvplan.errors import InputError
    from kvplan.simulate import serving_setup

    old = kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "L4", max_model_len=4096, vllm_version="0.30.0")
    with pytest.raises(InputError) as e:
        serving_setup(old, long_prefill_token_threshold=512, long_prefill_token_threshold_adaptive=True)
    assert e.value.field == "--long-prefill-token-threshold-adaptive"
    serving_setup(old, long_prefill_token_threshold=512)  # not given: nothing to refuse
    new = kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "L4", max_model_len=4096, vllm_version="0.31.0")
    c, sm, _ = serving_setup(new, long_prefill_token_threshold=512, long_prefill_token_threshold_adaptive=True)
    assert c.long_prefill_token_threshold_adaptive and not any("changes nothing" in n for n in sm.notes)
    c, sm, _ = serving_setup(new, long_prefill_token_threshold_adaptive=True)
    assert any("changes nothing without --long-prefill-token-threshold" in n for n in sm.notes)


# --max-num-partial-prefills / --max-long-partial-prefills: flags of vllm serve 0.7.3-0.26.x (versions.SERVE_FLAG_SINCE /
# SERVE_FLAG_UNTIL); only their default 1 is simulated, every other value is refused as the release treats it (rules
# row concurrent_partial_prefills)

def _pp(version: str, *flags: str):
    return _cli("simulate", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4", "--max-model-len", "4096", "--vllm-version",
                version, "--prompt-len", "constant:500", "--completion-len", "constant:5", "-n", "5", "--rate", "1", *flags)


@pytest.mark.parametrize("version,flags,says", [
    ("0.7.2", ["--max-num-partial-prefills", "1"], "vLLM 0.7.2 has no --max-num-partial-prefills flag (first in vLLM 0.7.3)"),
    ("0.27.0", ["--max-long-partial-prefills", "1"], "(removed in vLLM 0.27.0)"),
    ("0.34.0", ["--max-num-partial-prefills", "2"], "(removed in vLLM 0.27.0)"),
    ("0.20.0", ["--max-num-partial-prefills", "2"], "Concurrent Partial Prefill is not supported"),
    ("0.26.0", ["--max-long-partial-prefills", "2"], "Concurrent Partial Prefill is not supported"),
    ("0.11.0", ["--max-num-partial-prefills", "2"], "asserts V1"),
    ("0.10.2", ["--max-num-partial-prefills", "4", "--max-long-partial-prefills", "2"],
     "V1 falls back to V0 for \"Concurrent Partial Prefill\""),
    ("0.10.2", ["--max-num-partial-prefills", "2", "--max-long-partial-prefills", "3"],
     "3 is above --max-num-partial-prefills 2"),
    ("0.7.3", ["--max-num-partial-prefills", "2"], "kvplan does not simulate"),
    ("0.20.0", ["--max-num-partial-prefills", "0"], "must be >= 1"),
])
def test_partial_prefills_other_than_one_are_refused_clearly(version, flags, says):
    code, out = _pp(version, *flags)
    assert code == 2 and says in out, out


@pytest.mark.parametrize("version", ["0.7.3", "0.10.2", "0.20.0", "0.26.0"])
def test_partial_prefills_at_their_default_simulate_as_without_them(version):
    import json

    plain = json.loads(_pp(version, "--json")[1])
    code, out = _pp(version, "--json", "--max-num-partial-prefills", "1", "--max-long-partial-prefills", "1")
    assert code == 0, out
    given = json.loads(out)
    assert given["steps"] == plain["steps"] and given["ttft_ms"] == plain["ttft_ms"]


def test_an_encoder_decoder_model_takes_no_threshold(tmp_path):
    """vLLM sets long_prefill_token_threshold to 0 for an encoder-decoder model (SchedulerConfig.__post_init__, with
    chunked prefill, before verify_max_model_len): Whisper simulates as without it, and one above max_model_len
    (448) is not refused."""
    import json

    from test_whisper import LARGE_V3  # openai/whisper-large-v3's config.json (the architecture fields)

    path = tmp_path / "whisper" / "config.json"
    path.parent.mkdir()
    path.write_text(json.dumps(LARGE_V3))
    base = ["simulate", str(path), "--gpu", "L4", "--vllm-version", "0.33.0", "--prompt-len", "constant:300",
            "--completion-len", "constant:50", "-n", "20", "--rate", "4", "--json"]
    runs = {}
    for t in ("0", "64", "5000"):
        code, out = _cli(*base, "--long-prefill-token-threshold", t)
        assert code == 0, out
        runs[t] = json.loads(out)
    for t in ("64", "5000"):
        assert runs[t]["steps"] == runs["0"]["steps"] and runs[t]["ttft_ms"] == runs["0"]["ttft_ms"]
        assert f"--long-prefill-token-threshold {t} is set to 0 by vLLM for an encoder-decoder model" in json.dumps(runs[t])


# the two long-prefill flags are vllm serve flags of the plan (FitFlags / EngineArgs): fit checks them with the release,
# simulate and capacity read them off the plan, scaffold writes them

def test_the_plans_threshold_and_floor_are_what_the_simulator_and_the_launch_files_take():
    from kvplan.deploy import spec_from_plan
    from kvplan.simulate import serving_setup

    plan = kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "L4", max_model_len=4096, vllm_version="0.33.0",
                      long_prefill_token_threshold=512, long_prefill_token_threshold_adaptive=True)
    c, _, _ = serving_setup(plan)
    assert c.long_prefill_token_threshold == 512 and c.long_prefill_token_threshold_adaptive
    argv = spec_from_plan(plan).serve_argv()
    i = argv.index("--long-prefill-token-threshold")
    assert argv[i + 1] == "512" and "--long-prefill-token-threshold-adaptive" in argv
    off = kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "L4", max_model_len=4096, vllm_version="0.33.0",
                     long_prefill_token_threshold_adaptive=False)
    argv = spec_from_plan(off).serve_argv()
    assert "--no-long-prefill-token-threshold-adaptive" in argv and "--long-prefill-token-threshold" not in argv
    plain = spec_from_plan(kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "L4", max_model_len=4096, vllm_version="0.33.0"))
    assert not any("long-prefill" in a for a in plain.serve_argv())


def test_fit_refuses_the_long_prefill_flags_where_vllm_does():
    from kvplan.errors import InputError, RefusedByVLLMError

    base = dict(model="Qwen/Qwen2.5-0.5B-Instruct", gpu="L4", max_model_len=4096)
    with pytest.raises(InputError) as e:
        kvplan.fit(**base, vllm_version="0.30.0", long_prefill_token_threshold=512,
                   long_prefill_token_threshold_adaptive=True)
    assert e.value.field == "--long-prefill-token-threshold-adaptive" and "first in vLLM 0.31.0" in e.value.message
    with pytest.raises(InputError) as e:
        kvplan.fit(**base, vllm_version="0.7.2", long_prefill_token_threshold=512)
    assert e.value.field == "--long-prefill-token-threshold" and "first in vLLM 0.7.3" in e.value.message
    with pytest.raises(RefusedByVLLMError) as e:
        kvplan.fit(**base, vllm_version="0.27.0", long_prefill_token_threshold=4097)
    assert "cannot be greater than the max_model_len (4096)" in e.value.message
    assert kvplan.fit(**base, vllm_version="0.26.0", long_prefill_token_threshold=4097).fits
    with pytest.raises(InputError) as e:
        kvplan.fit(**base, long_prefill_token_threshold=-1)
    assert e.value.field == "--long-prefill-token-threshold"
