"""The simulator: invariants (hypothesis), agreement with a naive per-step reference, and
hand-checked scheduler scenarios."""

from __future__ import annotations

import math
import os
from collections import deque
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kvplan.errors import InputError
from kvplan.simulate import (EngineConfig, StepCoefficients, StepModel, _block_structure, parse_slo,
                             scheduler_rules, simulate, simulate_replicas, find_capacity)
from kvplan.workload import Workload

R19 = scheduler_rules("0.19.0")
EXAMPLES = int(os.environ.get("KVPLAN_SIM_EXAMPLES", "50"))  # raise for a deeper search
# 0.18 with --no-async-scheduling: vLLM turns async scheduling on by default from 0.14.0 (config/scheduler.py
# Field(default=None)), so 0.18's sync rules are those of the flag given off (0.18's whole-prompt gate: off)
R18 = replace(scheduler_rules("0.18.0"), async_scheduling=False)


def small_model(t_fixed_s: float = 0.001) -> StepModel:
    """A ~100M-parameter model on a slow GPU: step times of a few ms, both roofline sides visible."""
    return StepModel.from_numbers(
        weights_bytes=2e8, active_params=1e8, num_layers=4, hidden_size=512, num_attention_heads=8, num_kv_heads=2,
        head_dim=64, vocab_size=1000, kv_bytes_per_token=4 * 2 * 2 * 64 * 2, hbm_bytes_per_s=1e11,
        peak_flops_per_s=1e13, coeffs=replace(StepCoefficients(), t_fixed_s=t_fixed_s))


SM = small_model()


def wl(prompts, completions, arrivals=None) -> Workload:
    n = len(prompts)
    return Workload(name="t", prompt_tokens=np.asarray(prompts, dtype=np.int64),
                    completion_tokens=np.asarray(completions, dtype=np.int64),
                    arrival_s=np.zeros(n) if arrivals is None else np.asarray(arrivals, dtype=np.float64))


def cfg(blocks=1000, bs=16, seqs=8, budget=256, mml=4096, **kw) -> EngineConfig:
    return EngineConfig(num_gpu_blocks=blocks, block_size=bs, max_num_seqs=seqs, max_num_batched_tokens=budget,
                        max_model_len=mml, **kw)


# ------------------------------------------------------------------ a naive reference

def reference(w: Workload, c: EngineConfig, sm: StepModel, rules):
    """One step at a time, one request at a time, straight from the rules in the docstring of
    kvplan.simulate: running first in order, preempt the tail, FCFS admission gate. With async scheduling
    (0.19) each step is scheduled at the previous step's start: arrivals after that wait a step, and a
    finished request keeps its slot and blocks through the next step's scheduling."""
    usable, budget = c.usable_blocks, c.max_num_batched_tokens
    seqs = min(c.max_num_seqs, budget)
    bfor = c.blocks_for
    n = len(w)
    P, C, A = w.prompt_tokens.tolist(), w.completion_tokens.tolist(), w.arrival_s.tolist()
    total = w.prompt_tokens + w.completion_tokens
    rejected = (total > c.max_model_len) | np.array([bfor(int(t) - 1) > usable for t in total], dtype=bool)
    comp = [0] * n
    gen = [0] * n
    held = [0] * n
    first_tok = [math.inf] * n
    first_sched = [math.inf] * n
    finish = [math.inf] * n
    npre = [0] * n
    running: list = []
    waiting: deque = deque()
    free = usable
    now, nxt, done = 0.0, 0, 0
    want = int((~rejected).sum())
    max_used = 0
    lingering: list = []
    last_start = last_end = -1.0
    while done < want:
        decided = last_start if (rules.async_scheduling and last_end == now and (running or waiting)) else now
        while nxt < n and A[nxt] <= decided:
            if not rejected[nxt]:
                waiting.append(nxt)
            nxt += 1
        if not running and not waiting:
            for v in lingering:
                free += held[v]
                held[v] = 0
            lingering = []
            if nxt < n and A[nxt] <= now:
                continue
            now = A[nxt]
            continue
        tb = budget
        preempted = False
        sched = []
        i = 0
        while i < len(running) and tb > 0:
            r = running[i]
            ntok = min(P[r] + gen[r] - comp[r], tb)
            need = bfor(comp[r] + ntok) - held[r]
            gone = False
            while need > free:
                v = running.pop()
                free += held[v]
                held[v] = 0
                comp[v] = 0
                npre[v] += 1
                waiting.appendleft(v)
                preempted = True
                sched = [(x, k) for x, k in sched if x != v]
                if v == r:
                    gone = True
                    break
            if gone:
                break
            held[r] += need
            free -= need
            sched.append((r, ntok))
            tb -= ntok
            i += 1
        if not preempted:
            while waiting and tb > 0 and len(running) + len(lingering) < seqs:
                r = waiting[0]
                target = P[r] + gen[r]
                ntok = min(target, tb)
                if bfor(target if rules.admit_whole_prompt else ntok) > free:
                    break
                waiting.popleft()
                held[r] = bfor(ntok)
                free -= held[r]
                running.append(r)
                first_sched[r] = min(first_sched[r], decided)
                sched.append((r, ntok))
                tb -= ntok
        assert free >= 0
        max_used = max(max_used, usable - free)
        for v in lingering:
            free += held[v]
            held[v] = 0
        lingering = []
        if not sched:
            last_end = -1.0  # nothing in flight: the next schedule sees everything up to now
            continue
        dec = [(r, k) for r, k in sched if comp[r] == P[r] + gen[r] - 1 and gen[r] > 0]
        chunks = [(k, comp[r]) for r, k in sched if (r, k) not in dec]
        last_start = now
        now += sm.step_s(len(dec), sum(comp[r] + 1 for r, _ in dec), chunks, sorted(comp[r] + 1 for r, _ in dec))
        last_end = now
        for r, k in sched:
            comp[r] += k
            if comp[r] == P[r] + gen[r]:
                gen[r] += 1
                first_tok[r] = min(first_tok[r], now)
                if gen[r] >= C[r]:
                    finish[r] = now
                    if rules.async_scheduling:
                        lingering.append(r)
                    else:
                        free += held[r]
                        held[r] = 0
                    running.remove(r)
                    done += 1
    return dict(first_tok=np.array(first_tok), first_sched=np.array(first_sched), finish=np.array(finish),
                npre=np.array(npre), max_used=max_used)


requests_st = st.lists(st.tuples(st.integers(1, 120), st.integers(1, 50), st.floats(0, 0.3)), min_size=1, max_size=18)


@st.composite
def scenarios(draw):
    reqs = draw(requests_st)
    bs = draw(st.sampled_from([4, 16]))
    seqs = draw(st.integers(1, 8))
    budget = draw(st.integers(max(seqs, 8), 200))
    blocks = draw(st.integers(6, 120))
    rules = draw(st.sampled_from([R19, R18]))
    arr = np.sort(np.array([a for _, _, a in reqs]))
    return wl([p for p, _, _ in reqs], [c for _, c, _ in reqs], arr), cfg(blocks=blocks, bs=bs, seqs=seqs, budget=budget, mml=300), rules


@st.composite
def windowed_scenarios(draw):
    """Like `scenarios`, with sliding-window / chunked-local groups that stop growing at a cap
    (and sometimes no unbounded group at all, as in Phi-3 or a Mamba-only model)."""
    w, c, rules = draw(scenarios())
    caps = tuple(draw(st.lists(st.integers(0, 20), min_size=1, max_size=3)))
    return w, replace(c, window_caps=caps, fixed_blocks_per_seq=draw(st.integers(0, 3)),
                      blocks_per_boundary=draw(st.integers(0, 2))), rules


# Found by the search: a finished request keeps its blocks through the next schedule (async scheduling), and the
# engine's fast path used to free them whenever the decoders' next blocks fitted, though a running prefill's next
# chunk needed them (request 4 is preempted in vLLM, was not in the engine).
_LINGERING_PREFILL = (
    wl([9, 10, 1, 24, 17, 1], [9, 8, 6, 3, 1, 1], np.array([0, 0, 0, 0, 0, 0.25])),
    replace(cfg(blocks=45, bs=16, seqs=5, budget=10, mml=300), fixed_blocks_per_seq=3, blocks_per_boundary=1,
            window_caps=(1, 2, 2)),
    R19)


# Step models with window layers and a recurrent state: the engine's skip-ahead decode runs must still give the per-step
# times of StepModel.step_s, each decoder reading min(its context, window) of a window layer: a 1-token window (every
# context past it), one longer than any context, and two that the scenarios' contexts straddle (decoders on both sides,
# crossing during the engine's decode runs).
SM_WINDOW_PASSED = replace(SM, windows=((1, 2.0e4, 1.0e5),), state_bytes_per_seq=2.0e6)
SM_WINDOW_FILLING = replace(SM, windows=((10 ** 6, 2.0e4, 1.0e5),), state_bytes_per_seq=2.0e6)
SM_WINDOW_STRADDLED = replace(SM, windows=((12, 2.0e4, 1.0e5), (30, 1.0e4, 5.0e4)), state_bytes_per_seq=2.0e6)


@pytest.mark.parametrize("sm", [SM, SM_WINDOW_PASSED, SM_WINDOW_FILLING, SM_WINDOW_STRADDLED],
                         ids=["full-attention", "past-the-window", "filling-the-window", "straddling-the-windows"])
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sc=st.one_of(scenarios(), windowed_scenarios()))
@example(sc=_LINGERING_PREFILL)
def test_matches_reference_step_by_step(sm, sc):
    """The skip-ahead engine gives the same per-request times as a naive per-step loop (which
    charges `EngineConfig.blocks_for` directly), with and without window-capped groups, and with window layers
    and a recurrent state in the step model."""
    w, c, rules = sc
    res = simulate(w, c, sm, rules)
    ref = reference(w, c, sm, rules)
    ok = ~res.rejected
    np.testing.assert_allclose(res.finish_s[ok], ref["finish"][ok], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(res.first_token_s[ok], ref["first_tok"][ok], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(res.first_scheduled_s[ok], ref["first_sched"][ok], rtol=1e-9, atol=1e-9)
    assert res.preemptions_per_request.tolist() == ref["npre"].tolist()


def test_a_decode_run_stops_where_a_window_fills():
    """The engine's decode runs stop at the step where the longest decoder still below a window reaches it, so the
    charge stays the one step_s gives for each step of the run; decoders past it read the window, not their context."""
    sm = replace(SM, windows=((40, 2.0e4, 1.0e5),))
    assert sm.window_decode_s(2, 2 * 30)[2] == 11  # both at 30, 31, ... 40: eleven steps below or at it
    assert sm.window_decode_s(2, 2 * 45)[2] is None
    run = sum(sm.step_s(2, 2 * (30 + i)) for i in range(11))
    linear = 11 * sm.step_s(2, 60) + (sm.step_s(2, 62) - sm.step_s(2, 60)) * 55
    assert run == pytest.approx(linear, rel=1e-12)
    # straddling: contexts 20 and 50 (mean 35) read 20 + 40 tokens of the window layer, not 2 x 35; only one grows
    per_token = 2.0e4 / (sm.hbm_bytes_per_s * sm.coeffs.eta_kv_mem)
    read, growth, k = sm.window_decode_s(2, 70, [10, 40], base=10)
    assert read == pytest.approx(60 * per_token) and growth == pytest.approx(per_token) and k == 21
    assert sm.window_decode_s(2, 70)[0] == pytest.approx(70 * per_token)  # the mean's over-estimate, given no contexts
    assert sm.step_s(2, 70, decode_contexts=[20, 50]) < sm.step_s(2, 70)


def test_window_layers_read_at_most_their_window_and_recurrent_state_is_read_and_written():
    import kvplan

    gemma = StepModel.from_plan(kvplan.fit("google/gemma-3-27b-it", "H100", max_model_len=32768, fixes=False))
    (w, bpt, _), = gemma.windows
    assert w == 1024 and gemma.attn_flops_per_token_pair < 4.0 * 62 * 32 * 128  # only the 10 global layers see it all
    # past the window, a longer context costs only the global layers' reads
    grow = gemma.step_s(8, 8 * 9000) - gemma.step_s(8, 8 * 5000)
    assert grow == pytest.approx(8 * 4000 * gemma.per_context_token_s, rel=1e-9)
    below = gemma.step_s(8, 8 * 600) - gemma.step_s(8, 8 * 500)
    assert below > 8 * 100 * gemma.per_context_token_s * 2  # below it, the window layers' reads grow too
    hybrid = StepModel.from_plan(kvplan.fit("Qwen/Qwen3.6-35B-A3B", "H100", max_model_len=32768, fixes=False))
    assert hybrid.state_bytes_per_seq > 50 * 2 ** 20  # 30 GDN layers of fp32 state
    one = hybrid.explain_step(1, 1000)["terms_ms"]["recurrent_state_rw"]
    assert hybrid.explain_step(64, 64000)["terms_ms"]["recurrent_state_rw"] == pytest.approx(64 * one, rel=1e-3)
    assert one * 1e-3 == pytest.approx(2 * hybrid.state_bytes_per_seq / (hybrid.hbm_bytes_per_s * hybrid.coeffs.eta_kv_mem),
                                      rel=1e-3)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(scenarios(), windowed_scenarios()))
def test_invariants(sc):
    w, c, rules = sc
    res = simulate(w, c, SM, rules)
    ok = ~res.rejected
    # every admitted request finishes exactly once, after its first token, after it arrived
    assert np.isfinite(res.finish_s[ok]).all() and not np.isfinite(res.finish_s[~ok]).any()
    assert (res.first_token_s[ok] <= res.finish_s[ok] + 1e-12).all()
    assert (res.first_scheduled_s[ok] >= res.arrival_s[ok] - 1e-12).all()
    assert res.to_dict()["requests_completed"] == int(ok.sum())
    # blocks in use never exceed the pool
    assert res.kv_usage_peak <= 1.0 + 1e-12
    assert (res.ts_kv_usage <= 1.0 + 1e-12).all()
    assert res.max_running <= c.max_num_seqs
    # tokens conserved: every KV write is a prompt/output token or a recomputation of a discarded one
    written = res.prefill_tokens_computed + res.decode_tokens_computed
    assert written == int((w.prompt_tokens[ok] + w.completion_tokens[ok] - 1).sum()) + res.recomputed_tokens
    # FCFS among equals: identical requests are admitted and answered in arrival order
    key = list(zip(w.prompt_tokens.tolist(), w.completion_tokens.tolist()))
    for i in range(len(w)):
        for j in range(i + 1, len(w)):
            if key[i] == key[j] and ok[i] and ok[j]:
                assert res.first_scheduled_s[i] <= res.first_scheduled_s[j]
                assert res.first_token_s[i] <= res.first_token_s[j]


# ------------------------------------------------------------------ hand-checked scenarios

def test_async_scheduling_lags_one_step():
    """vLLM 0.19 schedules step s+1 while step s runs (async scheduling, on by default): a request that
    arrives while the engine is busy, or that waits for a finished request's slot, starts one step later
    than with synchronous scheduling; with an idle engine nothing changes."""
    assert R19.async_scheduling and scheduler_rules("0.14.0").async_scheduling
    assert not scheduler_rules("0.13.0").async_scheduling and not R18.async_scheduling
    sync = replace(R19, async_scheduling=False)
    step = SM.step_s(1, 64)  # ~ one decode step of the long request
    # B arrives while A decodes
    w = wl([40, 40], [200, 5], [0.0, 0.05])
    a, s = simulate(w, cfg(), SM, R19), simulate(w, cfg(), SM, sync)
    assert a.first_token_s[0] == s.first_token_s[0] and a.finish_s[0] < s.finish_s[0] + 1e-9  # A alone: unchanged
    lag = a.first_token_s[1] - s.first_token_s[1]
    assert 0.5 * step < lag < 2.5 * step
    assert a.first_scheduled_s[1] < s.first_scheduled_s[1] + 1e-12  # vLLM records the schedule() call, a step earlier
    # one sequence slot for B: A (short) frees it, C keeps the engine busy
    w = wl([20, 20, 20], [3, 100, 4], [0.0, 0.0, 0.0])
    c = cfg(seqs=2)
    a, s = simulate(w, c, SM, R19), simulate(w, c, SM, sync)
    assert a.finish_s[0] == pytest.approx(s.finish_s[0])
    assert a.first_scheduled_s[2] == pytest.approx(a.finish_s[0])  # decided when A's last output was processed
    assert s.first_scheduled_s[2] == pytest.approx(s.finish_s[0])
    assert a.first_token_s[2] - s.first_token_s[2] > 0.5 * step  # ... but A's slot is taken one step later
    # an idle engine schedules at once: a lone request is not delayed
    w = wl([40], [5], [0.3])
    assert simulate(w, cfg(), SM, R19).first_token_s[0] == pytest.approx(simulate(w, cfg(), SM, sync).first_token_s[0])


def test_whole_prompt_rule_019_vs_first_chunk_018():
    # 11 blocks x 16 = 10 usable. A: 100-token prompt (7 blocks) decodes for long. B: 100 tokens.
    w = wl([100, 100], [50, 2], [0.0, 0.0001])
    c = cfg(blocks=11, bs=16, seqs=4, budget=32, mml=400)
    r19 = simulate(w, c, SM, R19)
    r18 = simulate(w, c, SM, R18)
    # 0.19: B (needs 7 blocks, 3 free... then fewer) waits until A finishes
    assert r19.first_scheduled_s[1] >= r19.finish_s[0]
    # 0.18: B's first 32-token chunk (2 blocks) fits, so it starts while A runs, and preemption follows
    assert r18.first_scheduled_s[1] < r18.finish_s[0]
    assert r18.preemptions > 0


def test_preemption_takes_the_tail():
    # both fit at first, then grow past the pool: the later-admitted one is preempted, the first never
    w = wl([32, 32], [120, 120])
    c = cfg(blocks=13, bs=16, seqs=4, budget=128, mml=400)
    r = simulate(w, c, SM, R19)
    assert r.preemptions_per_request[0] == 0
    assert r.preemptions_per_request[1] >= 1
    assert r.finish_s[0] < r.finish_s[1]
    assert r.recomputed_tokens > 0
    assert r.kv_usage_peak == pytest.approx(1.0)


def test_fcfs_stops_at_first_unallocatable():
    # A holds 7-10 of 10 usable blocks until it ends; B needs 6 (cannot), C needs 1 (could) but must not skip B
    w = wl([100, 80, 10], [50, 5, 5], [0.0, 0.001, 0.002])
    c = cfg(blocks=11, bs=16, seqs=8, budget=256, mml=400)
    r = simulate(w, c, SM, R19)
    assert r.first_scheduled_s[1] >= r.finish_s[0] - 1e-12
    assert r.first_scheduled_s[2] >= r.first_scheduled_s[1]


def test_max_num_seqs_one_serialises():
    w = wl([10] * 5, [7] * 5)
    r = simulate(w, cfg(seqs=1), SM, R19)
    assert r.max_running == 1
    for i in range(1, 5):
        assert r.first_scheduled_s[i] == pytest.approx(r.finish_s[i - 1])


def test_chunked_prefill_ttft_is_sum_of_chunk_steps():
    # 1000-token prompt, 256-token budget: chunks 256, 256, 256, 232 with growing prefixes
    w = wl([1000], [3])
    r = simulate(w, cfg(budget=256, mml=2000), SM, R19)
    expect = sum(SM.step_s(0, 0, [(ch, pre)]) for ch, pre in ((256, 0), (256, 256), (256, 512), (232, 768)))
    assert r.ttft_s[0] == pytest.approx(expect, rel=1e-12)
    # then two decode steps, reading 1001 and 1002 tokens of context
    dec = SM.step_s(1, 1001) + SM.step_s(1, 1002)
    assert r.e2e_s[0] == pytest.approx(expect + dec, rel=1e-12)
    assert r.steps == 6


def test_long_prefill_threshold_caps_chunks():
    w = wl([300], [1])
    r = simulate(w, cfg(budget=256, long_prefill_token_threshold=100), SM, R19)
    expect = sum(SM.step_s(0, 0, [(100, pre)]) for pre in (0, 100, 200))
    assert r.ttft_s[0] == pytest.approx(expect, rel=1e-12)


def test_v0_ignores_long_prefill_threshold_without_chunked_prefill():
    """Regression: V0 without chunked prefill never applied long_prefill_token_threshold (only its chunked-prefill
    path caps partial prefills), so a whole prompt that fits the budget is admitted. The simulator used to cap the
    admission chunk at the threshold, refuse it as a partial prompt, and loop for ever without advancing time."""
    r0 = scheduler_rules("0.6.3")
    w = wl([300, 200, 90], [3, 4, 5], [0.0, 0.1, 0.1])
    capped = simulate(w, cfg(budget=256, mml=1024, long_prefill_token_threshold=100), SM, r0)
    plain = simulate(w, cfg(budget=256, mml=1024), SM, r0)
    assert capped.completed.all()
    np.testing.assert_array_equal(capped.finish_s, plain.finish_s)
    assert capped.steps == plain.steps
    # V1 caps every request at the threshold, with or without chunked prefill (vLLM caps before the
    # `not enable_chunked_prefill and num_new_tokens > token_budget` check): 300 tokens in three chunks
    v1_nochunk = replace(R18, chunked_prefill=False)
    one = simulate(wl([300], [1]), cfg(budget=256, mml=1024, long_prefill_token_threshold=100), SM, v1_nochunk)
    expect = sum(SM.step_s(0, 0, [(100, pre)]) for pre in (0, 100, 200))
    assert one.ttft_s[0] == pytest.approx(expect, rel=1e-12)


def test_a_loop_turn_without_progress_raises(monkeypatch):
    """The engine loop cannot spin: an empty schedule that changes nothing, twice at the same time, raises a
    RuntimeError naming the state (here forced by applying the threshold under V0 rules again)."""
    import kvplan.simulate as simmod

    orig = simmod._StepLimits.of

    def old_rule(c, rules):
        lim = orig(c, rules)
        return replace(lim, chunk_cap_tokens=min(lim.chunk_cap_tokens, c.long_prefill_token_threshold or lim.budget_tokens))

    monkeypatch.setattr(simmod._StepLimits, "of", staticmethod(old_rule))
    w = wl([300, 200], [3, 4], [0.0, 0.1])
    # request 0 is admitted with a 100-token chunk that V0's prefill-only steps never continue
    with pytest.raises(RuntimeError, match=r"stalled at t=.* a scheduling pass changed nothing.*1 running, 0 waiting"):
        simulate(w, cfg(budget=256, mml=1024, long_prefill_token_threshold=100), SM, scheduler_rules("0.6.3"))


@pytest.mark.parametrize("rules", [R18, R19], ids=["0.18", "0.19"])
def test_preempting_a_decoder_for_a_prefill_chunk_returns_its_block_and_token(rules):
    """Regression (block leak): the simulator schedules decoders before the running prefill chunks, but vLLM walks
    RUNNING in order and preempts its tail, which it has not scheduled yet. Here B (admitted after A) decodes while
    A prefills in threshold-sized chunks; in step 2 B's next token needs a new block, and A's chunk finds the pool
    empty and preempts B. B must give back the block just taken for it (and its token): it used to free only the
    blocks of its context, leaking one block for good ('blocks still held after every request finished', here a
    livelock as A then never fits)."""
    w = wl([12, 4], [1, 2])
    c = cfg(blocks=4, bs=4, seqs=4, budget=8, long_prefill_token_threshold=4, mml=64)
    r = simulate(w, c, SM, rules)
    s1 = SM.step_s(0, 0, [(4, 0), (4, 0)])  # A's first chunk, B's whole prompt: B's first token
    s2 = SM.step_s(0, 0, [(4, 4)])  # B (context 4) would need a 2nd block: preempted for A's chunk
    s3 = SM.step_s(0, 0, [(4, 8)])  # A's last chunk: its only token; B (prompt + 1 token) does not fit yet
    s45 = SM.step_s(0, 0, [(4, 0)]) + SM.step_s(0, 0, [(1, 4)])  # B recomputes 5 tokens, samples its 2nd
    assert r.preemptions_per_request.tolist() == [0, 1]
    assert r.first_token_s.tolist() == pytest.approx([s1 + s2 + s3, s1], rel=1e-12)
    assert r.finish_s.tolist() == pytest.approx([s1 + s2 + s3, s1 + s2 + s3 + s45], rel=1e-12)
    assert r.decode_tokens_computed == 0 and r.recomputed_tokens == 4
    assert r.prefill_tokens_computed == 12 + 4 + 5


threshold_scenarios_st = st.tuples(st.one_of(scenarios(), windowed_scenarios()), st.integers(1, 64))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(threshold_scenarios_st)
def test_invariants_with_long_prefill_threshold(sc):
    """With partial prefills capped by long_prefill_token_threshold (decoders preempted for later chunks), every
    admitted request finishes, blocks are all returned (the engine checks at the end) and tokens are conserved."""
    (w, c, rules), th = sc
    c = replace(c, long_prefill_token_threshold=th)
    res = simulate(w, c, SM, rules)
    ok = ~res.rejected
    assert np.isfinite(res.finish_s[ok]).all()
    assert res.kv_usage_peak <= 1.0 + 1e-12
    written = res.prefill_tokens_computed + res.decode_tokens_computed
    assert written == int((w.prompt_tokens[ok] + w.completion_tokens[ok] - 1).sum()) + res.recomputed_tokens


def test_decode_only_stretch_matches_closed_form():
    # one request alone: every decode step reads one more token
    w = wl([64], [500])
    r = simulate(w, cfg(), SM, R19)
    t = SM.step_s(0, 0, [(64, 0)]) + sum(SM.step_s(1, 64 + j + 1) for j in range(499))
    assert r.e2e_s[0] == pytest.approx(t, rel=1e-9)
    assert r.steps == 500


def test_worst_case_and_realized_concurrency():
    # pool of 100 usable blocks x 16 = 1600 tokens; max_model_len 800 -> worst case 2 requests
    w = wl([50] * 40, [20] * 40)
    r = simulate(w, cfg(blocks=101, seqs=64, budget=4096, mml=800), SM, R19)
    assert r.worst_case_concurrency == pytest.approx(2.0)
    assert r.max_running > 10 * r.worst_case_concurrency  # paging admits far more than the division
    d = r.to_dict()
    for key in ("requests_completed", "max_running", "mean_running", "worst_case_concurrency", "preemptions",
                "kv_usage_peak", "ttft_ms", "tpot_ms", "e2e_ms", "output_tokens_per_s"):
        assert key in d
    for key in ("ttft_ms", "tpot_ms", "e2e_ms"):
        assert set(d[key]) == {"mean", "p50", "p90", "p99"}


def test_rejects_requests_longer_than_max_model_len():
    w = wl([100, 900], [10, 200])
    r = simulate(w, cfg(mml=1000), SM, R19)
    assert r.rejected.tolist() == [False, True]
    assert r.to_dict()["requests_completed"] == 1


def test_prefix_cache_hits_shorten_ttft():
    hashes = ((1, 2, 3, 4), (1, 2, 3, 4))
    w = Workload(name="pc", prompt_tokens=np.array([260, 260]), completion_tokens=np.array([4, 4]),
                 arrival_s=np.array([0.0, 1.0]), block_hashes=hashes, hash_block_tokens=64)
    c = cfg(bs=16, budget=512, enable_prefix_caching=True)
    hit = simulate(w, c, SM, R19)
    miss = simulate(w, replace(c, enable_prefix_caching=False), SM, R19)
    assert hit.prefix_hit_tokens == 256  # 4 hash blocks of 64 tokens; prompt 260 leaves 4 to compute
    assert hit.ttft_s[1] < miss.ttft_s[1]
    assert hit.ttft_s[0] == pytest.approx(miss.ttft_s[0])


def test_prefix_cache_full_hit_keeps_one_token_to_compute():
    hashes = ((7, 8), (7, 8))
    w = Workload(name="pc", prompt_tokens=np.array([128, 128]), completion_tokens=np.array([2, 2]),
                 arrival_s=np.array([0.0, 1.0]), block_hashes=hashes, hash_block_tokens=64)
    r = simulate(w, cfg(enable_prefix_caching=True), SM, R19)
    assert r.prefix_hit_tokens == 64  # the last block is recomputed so the last token produces logits


def test_hybrid_fixed_state_blocks():
    fixed, per, note = _block_structure(lambda n: 3 + 2 * -(-n // 16), 16, 4096)
    assert (fixed, per, note) == (3, 2, "")
    _, _, note = _block_structure(lambda n: min(-(-n // 16), 8) + -(-n // 16), 16, 4096)
    assert "sliding" in note
    # fixed state limits concurrency: 40 usable blocks, each request holds 3 + 2*ceil(n/16)
    w = wl([16] * 20, [1] * 20)
    c = cfg(blocks=41, seqs=64, budget=4096, mml=64, fixed_blocks_per_seq=3, blocks_per_boundary=2)
    r = simulate(w, c, SM, R19)
    assert r.max_running == 8  # 8 x 5 = 40


def test_v0_rules_prefill_only_steps_and_watermark():
    r0 = scheduler_rules("0.6.3")
    assert r0.engine == "v0" and not r0.mixed_batches and r0.watermark_fraction == 0.01
    assert scheduler_rules("0.19.0").admit_whole_prompt and not scheduler_rules("0.10.0").admit_whole_prompt
    w = wl([64, 64], [50, 5], [0.0, 0.05])
    r = simulate(w, cfg(budget=256, mml=512), SM, r0)
    assert r.to_dict()["requests_completed"] == 2


def test_replicas_round_robin_and_least_loaded():
    rng = np.random.default_rng(1)
    n = 200
    w = wl(rng.integers(10, 200, n), rng.integers(5, 80, n), np.sort(rng.uniform(0, 2, n)))
    one = simulate(w, cfg(), SM, R19)
    for router in ("round-robin", "least-loaded"):
        two = simulate_replicas(w, cfg(), SM, 2, router, R19)
        assert two.to_dict()["requests_completed"] == n
        assert two.e2e_s.mean() < one.e2e_s.mean()
    with pytest.raises(InputError):
        simulate_replicas(w, cfg(), SM, 2, "random", R19)


def test_capacity_bisection_is_monotone_and_sizes_replicas():
    rng = np.random.default_rng(0)
    n = 300
    base = wl(rng.integers(50, 400, n), rng.integers(10, 100, n), np.sort(rng.uniform(0, n, n)))
    from kvplan.workload import with_rate

    slo = parse_slo("ttft=200ms,tpot=20ms", 90)
    cap = find_capacity(lambda r: with_rate(base, r), cfg(), SM, slo, R19, target_rate_per_s=None)
    assert cap.max_rate_per_s > 0
    assert all(m for r, m in cap.probes if r <= cap.max_rate_per_s)
    assert not any(m for r, m in cap.probes if r > cap.max_rate_per_s * 1.0001)
    cap2 = find_capacity(lambda r: with_rate(base, r), cfg(), SM, slo, R19, target_rate_per_s=cap.max_rate_per_s * 2.5)
    assert cap2.replicas_needed is not None and cap2.replicas_needed >= 3


def test_parse_slo():
    s = parse_slo("ttft=500ms,tpot=0.05s")
    assert (s.ttft_ms, s.tpot_ms, s.e2e_ms) == (500.0, 50.0, None)
    for bad in ("ttft", "speed=3ms", "ttft=-1ms", "ttft=abc"):
        with pytest.raises(InputError):
            parse_slo(bad)


def test_bad_inputs_raise_input_error():
    with pytest.raises(InputError):
        simulate(wl([10], [10]), cfg(blocks=1), SM, R19)
    with pytest.raises(InputError):
        simulate(Workload(name="x", prompt_tokens=np.array([1]), completion_tokens=np.array([1])), cfg(), SM, R19)


def test_step_model_regimes():
    sm = StepModel.from_numbers(weights_bytes=16e9, active_params=8e9, num_layers=32, hidden_size=4096,
                                num_attention_heads=32, num_kv_heads=8, head_dim=128, vocab_size=128256,
                                kv_bytes_per_token=131072, hbm_bytes_per_s=3.35e12, peak_flops_per_s=989e12)
    c = sm.coeffs
    # decode of one short request ~ weights over bandwidth + per-kernel costs + fixed + per-request overhead
    assert sm.step_s(1, 10) == pytest.approx(16e9 / (3.35e12 * c.eta_mem_stream) + sm.num_kernels * c.t_kernel_s
                                             + c.t_fixed_s + 32 * c.t_seq_layer_s, rel=0.01)
    # per-request cost: per scheduled request and layer, not per prefill token
    assert sm.num_layers == 32 and c.t_seq_layer_s > 0
    assert sm.fixed_part_s(64, 64) - sm.fixed_part_s(64, 32) == pytest.approx(32 * 32 * c.t_seq_layer_s)
    assert sm.step_s(0, 0, [(512, 0)]) - replace(sm, coeffs=replace(c, t_seq_layer_s=0.0)).step_s(0, 0, [(512, 0)]) \
        == pytest.approx(32 * c.t_seq_layer_s)
    # the untied input embedding table is a lookup, not streamed; no FLOPS -> bandwidth-only, with a note
    lean = StepModel.from_numbers(weights_bytes=16e9, active_params=8e9, num_layers=32, hidden_size=4096,
                                  num_attention_heads=32, num_kv_heads=8, head_dim=128, vocab_size=128256,
                                  kv_bytes_per_token=131072, hbm_bytes_per_s=3.35e12, peak_flops_per_s=None,
                                  embedding_bytes=1.05e9)
    assert lean.step_s(1, 10) < sm.step_s(1, 10) and lean.notes and "bandwidth-only" in lean.notes[0]
    assert lean.step_s(0, 0, [(8192, 0)]) < sm.step_s(0, 0, [(8192, 0)])
    # a 8192-token prefill is compute-bound: ~2 x params x tokens over peak
    assert sm.step_s(0, 0, [(8192, 0)]) > 2 * 7.4e9 * 8192 / (989e12 * c.eta_compute)
    # KV read grows step time linearly
    assert sm.step_s(64, 200_000) - sm.step_s(64, 100_000) == pytest.approx(100_000 * sm.per_context_token_s)
    # TP adds all-reduces; MoE reads only touched experts
    tp2 = StepModel.from_numbers(weights_bytes=16e9, active_params=8e9, num_layers=32, hidden_size=4096,
                                 num_attention_heads=32, num_kv_heads=8, head_dim=128, vocab_size=128256,
                                 kv_bytes_per_token=65536, hbm_bytes_per_s=3.35e12, peak_flops_per_s=989e12,
                                 tensor_parallel_size=2)
    assert tp2.num_allreduces == 64 and tp2.step_s(1, 10) < sm.step_s(1, 10)
    # without NVLink the same collectives go over PCIe (catalog text), slower
    tp2_pcie = StepModel.from_numbers(weights_bytes=16e9, active_params=8e9, num_layers=32, hidden_size=4096,
                                      num_attention_heads=32, num_kv_heads=8, head_dim=128, vocab_size=128256,
                                      kv_bytes_per_token=65536, hbm_bytes_per_s=3.35e12, peak_flops_per_s=989e12,
                                      tensor_parallel_size=2, nvlink=False, interconnect="PCIe 4.0 x16; no NVLink")
    assert tp2_pcie.link_bytes_per_s == pytest.approx(31.5e9 * tp2_pcie.coeffs.pcie_efficiency)
    assert tp2_pcie.step_s(256, 10) > tp2.step_s(256, 10) and any("PCIe 4.0" in n for n in tp2_pcie.notes)
    # GeForce (no GPUDirect P2P): NCCL stages through host memory -- the fitted no-P2P efficiency, slower still
    tp2_nop2p = StepModel.from_numbers(weights_bytes=16e9, active_params=8e9, num_layers=32, hidden_size=4096,
                                       num_attention_heads=32, num_kv_heads=8, head_dim=128, vocab_size=128256,
                                       kv_bytes_per_token=65536, hbm_bytes_per_s=3.35e12, peak_flops_per_s=989e12,
                                       tensor_parallel_size=2, nvlink=False, interconnect="PCIe 4.0 x16; no NVLink",
                                       p2p=False)
    assert tp2_nop2p.link_bytes_per_s == pytest.approx(31.5e9 * tp2_nop2p.coeffs.pcie_efficiency_no_p2p)
    assert tp2_nop2p.step_s(256, 10) > tp2_pcie.step_s(256, 10) and any("no P2P" in n for n in tp2_nop2p.notes)
    moe = StepModel.from_numbers(weights_bytes=60e9, active_params=3e9, num_layers=48, hidden_size=2048,
                                 num_attention_heads=32, num_kv_heads=4, head_dim=128, vocab_size=151936,
                                 kv_bytes_per_token=98304, hbm_bytes_per_s=1.8e12, peak_flops_per_s=500e12,
                                 num_experts=128, experts_per_tok=8, moe_intermediate_size=768)
    assert moe.step_s(1, 10) < moe.step_s(256, 10)
    # one token touches k of E experts; expert parallel over 2 ranks holds half, sees both ranks' tokens
    assert moe._weights_bytes(1) - moe.weights_bytes_per_rank == pytest.approx(moe.expert_bytes_per_rank * 8 / 128)
    ep2 = StepModel.from_numbers(weights_bytes=60e9, active_params=3e9, num_layers=48, hidden_size=2048,
                                 num_attention_heads=32, num_kv_heads=4, head_dim=128, vocab_size=151936,
                                 kv_bytes_per_token=98304, hbm_bytes_per_s=1.8e12, peak_flops_per_s=500e12,
                                 num_experts=128, experts_per_tok=8, moe_intermediate_size=768, expert_parallel_size=2)
    assert ep2.expert_bytes_per_rank == pytest.approx(moe.expert_bytes_per_rank / 2) and ep2.num_ep_collectives == 96


def test_with_real_plan_if_available():
    kvplan = pytest.importorskip("kvplan.api")
    from kvplan.simulate import StepModel as SMod, engine_config_from_plan

    try:
        p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", gpu="H100")
    except Exception as exc:  # the plan module is developed in parallel
        pytest.skip(f"plan unavailable: {exc}")
    c = engine_config_from_plan(p)
    assert c.num_gpu_blocks == p.num_gpu_blocks and c.block_size == p.block_size
    assert (c.fixed_blocks_per_seq, c.blocks_per_boundary) == (0, 1)
    sm = SMod.from_plan(p)
    assert 0.005 < sm.step_s(1, 1000) < 0.02


# ------------------------------------------------------------------ window-capped KV groups (sliding window, chunked local)

def test_window_caps_blocks_for_by_hand():
    # gpt-oss-like: one full group, one sliding group (+1 block, at most 5 growing), block 16
    c = cfg(fixed_blocks_per_seq=1, blocks_per_boundary=1, window_caps=(5,))
    assert [c.blocks_for(n) for n in (1, 16, 17, 80, 81, 160, 161)] == [3, 3, 5, 11, 12, 16, 17]
    assert c.blocks_for_array(np.array([1, 80, 81, 161])).tolist() == [3, 11, 12, 17]
    # only capped groups: blocks stop growing altogether
    c = cfg(fixed_blocks_per_seq=1, blocks_per_boundary=0, window_caps=(5,))
    assert c.blocks_for(80) == c.blocks_for(4000) == 6


def _plan_or_skip(model, gpu, **kw):
    kvplan = pytest.importorskip("kvplan")
    try:
        return kvplan.fit(model, gpu, fixes=False, **kw)
    except Exception as exc:  # the plan module is developed in parallel; some models need the Hub
        pytest.skip(f"plan unavailable: {exc}")


WINDOWED_PLANS = [
    ("openai/gpt-oss-20b", "H100", dict(max_model_len=32768)),  # sliding 128 + full
    ("microsoft/Phi-3-mini-4k-instruct", "RTX 3090", dict(max_model_len=4096)),  # sliding 2047: cap beyond 4096
    ("microsoft/Phi-3-mini-4k-instruct", "RTX 3090", dict(max_model_len=4096, max_num_batched_tokens=512)),  # capped, no full group
    ("google/gemma-3-27b-it", "H100", dict(max_model_len=32768)),  # 6 sliding groups + full
    ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "H100", dict(max_model_len=32768, tensor_parallel_size=8)),  # chunked local
]


@pytest.mark.parametrize("model,gpu,kw", WINDOWED_PLANS, ids=lambda v: v if isinstance(v, str) else "")
def test_simulator_charges_plan_blocks_for_windowed_models(model, gpu, kw):
    """One long request: what the simulator charges at each length is `plan.blocks_for_tokens(length)`."""
    from kvplan.simulate import engine_config_from_plan

    p = _plan_or_skip(model, gpu, **kw)
    c = engine_config_from_plan(p)
    assert c.blocks_note == ""
    mml = int(p.args.max_model_len)
    # the block formula, at every length
    assert all(c.blocks_for(n) == p.blocks_for_tokens(n) for n in range(1, mml + 1))
    if not c.window_caps:  # the window's cap lies beyond max_model_len: the O(1) full-attention structure
        assert all(g.kind != "chunked" for g in p.groups)
    # the engine's own books: one request alone whose KV ends at `length` tokens peaks at exactly its blocks,
    # fits a pool of exactly that many usable blocks without preemption, and is refused by one block fewer
    bs = c.block_size
    lengths = {1, bs, bs + 1, mml // 3, mml // 2 + 5, mml - 1}
    for cap in c.window_caps:
        lengths |= {cap * bs - 1, cap * bs, cap * bs + 1, cap * bs + bs + 1}
    for length in sorted(n for n in lengths if 2 <= n < mml):
        prompt = max(1, length // 2)
        w = wl([prompt], [length - prompt + 1])  # KV holds prompt + output - 1 tokens at the end
        need = p.blocks_for_tokens(length)
        roomy = simulate(w, replace(c, num_gpu_blocks=10 * need + 1), SM, R19)
        assert round(roomy.kv_usage_peak * 10 * need) == need, length
        tight = simulate(w, replace(c, num_gpu_blocks=need + 1), SM, R19)
        assert not tight.rejected[0] and tight.preemptions == 0 and tight.kv_usage_peak == pytest.approx(1.0), length
        assert simulate(w, replace(c, num_gpu_blocks=need), SM, R19).rejected[0], length


def test_window_caps_raise_realized_concurrency():
    """gpt-oss-20b: requests past the 128-token window (plus in-flight tokens) hold fewer blocks than
    if the sliding group kept growing, so more of them run at once on the same pool."""
    from kvplan.simulate import engine_config_from_plan

    p = _plan_or_skip("openai/gpt-oss-20b", "H100", max_model_len=32768)
    capped = engine_config_from_plan(p, num_gpu_blocks=30_000)
    grown = engine_config_from_plan(p, num_gpu_blocks=30_000, window_caps=False)
    assert capped.window_caps and not grown.window_caps
    assert grown.blocks_for(32768) == 1 + 2 * 2048 > capped.blocks_for(32768) == p.blocks_for_tokens(32768)
    rng = np.random.default_rng(3)
    n = 40
    w = wl(rng.integers(18_000, 24_000, n), rng.integers(200, 600, n), np.sort(rng.uniform(0, 1.0, n)))
    a = simulate(w, capped, SM, R19)
    b = simulate(w, grown, SM, R19)
    assert a.to_dict()["requests_completed"] == b.to_dict()["requests_completed"] == n
    assert a.max_running > b.max_running
    assert a.mean_running > b.mean_running
    assert a.worst_case_concurrency > b.worst_case_concurrency


def test_window_caps_with_prefix_caching_keep_the_books():
    """Prefix caching shares only the unbounded groups' blocks; the windowed groups stay private.
    Every request still finishes and the pool is never exceeded (the engine raises if blocks leak)."""
    rng = np.random.default_rng(5)
    n = 60
    hashes = tuple(tuple(rng.integers(0, 3, 6).tolist()) for _ in range(n))
    w = Workload(name="pc", prompt_tokens=rng.integers(100, 400, n), completion_tokens=rng.integers(1, 120, n),
                 arrival_s=np.sort(rng.uniform(0, 0.5, n)), block_hashes=hashes, hash_block_tokens=32)
    for caps, per in (((3,), 1), ((2, 6), 0)):
        c = cfg(blocks=90, bs=16, seqs=16, budget=256, mml=600, enable_prefix_caching=True,
                fixed_blocks_per_seq=1, blocks_per_boundary=per, window_caps=caps)
        r = simulate(w, c, SM, R19)
        assert r.to_dict()["requests_completed"] == int((~r.rejected).sum()) == n
        assert r.kv_usage_peak <= 1.0 + 1e-12 and r.prefix_hit_tokens > 0


def test_a_pooling_model_serves_each_request_as_one_prefill():
    # an embedding request ends with its prefill: the workload's completion lengths are not generated
    import kvplan
    from kvplan.simulate import StepModel as SMod, engine_config_from_plan, scheduler_rules, simulate_plan

    rng = np.random.default_rng(0)
    n = 200
    wl = Workload("mix", rng.integers(100, 2000, n), rng.integers(50, 500, n), np.cumsum(rng.exponential(0.05, n)))
    results = {}
    for runner in ("generate", "pooling"):
        p = kvplan.fit("Qwen/Qwen3-8B", gpu="H100", max_model_len=8192, runner=runner)
        results[runner] = simulate_plan(p, wl, engine_config_from_plan(p), SMod.from_plan(p), scheduler_rules(p.vllm_version))
    gen, pool = results["generate"], results["pooling"]
    assert not pool.rejected.any() and not gen.rejected.any()
    assert (pool.completion_tokens == 1).all() and pool.decode_tokens_computed < gen.decode_tokens_computed / 25
    assert pool.prefill_tokens_computed == gen.prefill_tokens_computed  # the same prompts, prefilled once each
    assert np.mean(pool.finish_s - pool.arrival_s) < np.mean(gen.finish_s - gen.arrival_s) / 5
    assert any("one prefill" in note for note in pool.notes)


def test_speculative_decoding_is_said_to_be_outside_the_step_model():
    import kvplan
    from kvplan.simulate import StepModel as SMod, engine_config_from_plan, scheduler_rules, simulate_plan

    p = kvplan.fit("Qwen/Qwen3.5-27B", gpu="H100", max_model_len=32768,
                   speculative_config='{"method": "mtp", "num_speculative_tokens": 3}')
    rng = np.random.default_rng(1)
    wl = Workload("w", rng.integers(100, 1000, 50), rng.integers(10, 100, 50), np.cumsum(rng.exponential(0.5, 50)))
    res = simulate_plan(p, wl, engine_config_from_plan(p), SMod.from_plan(p), scheduler_rules(p.vllm_version))
    assert any("speculative decoding (mtp, 3 tokens) is not in the step model" in n for n in res.notes)


def test_the_step_model_streams_the_weights_as_loaded_quantized_not_their_bf16_count():
    """A quantized checkpoint's decode step reads its own bytes: FP8 about half the bf16 model's, MXFP4 experts about
    a quarter; the untied input embedding (a lookup) and a vision tower (not run in decode) are not streamed."""
    import kvplan
    from kvplan.simulate import StepModel

    bf16 = kvplan.fit("Qwen/Qwen3-32B", "H100", max_model_len=16384)
    fp8 = kvplan.fit("Qwen/Qwen3-32B-FP8", "H100", max_model_len=16384)
    s16, s8 = StepModel.from_plan(bf16), StepModel.from_plan(fp8)
    assert 0.48 < s8.weights_bytes_per_rank / s16.weights_bytes_per_rank < 0.55
    uses = dict(fp8.weights_by_use)
    assert s8.weights_bytes_per_rank == uses["streamed"]
    assert sum(uses.values()) <= fp8.weights_bytes < sum(uses.values()) + 2 ** 27  # + the rotary cache
    # the fp8 model's decode is faster by about the bytes it does not read
    t16, t8 = (s.step_s(8, 8 * 512) for s in (s16, s8))
    assert t8 < 0.7 * t16

    oss = kvplan.fit("openai/gpt-oss-120b", "H100", max_model_len=16384)
    so = StepModel.from_plan(oss)
    bf16_experts = 36 * 128 * 3 * 2880 * 2880 * 2  # 36 layers x 128 experts x (gate, up, down) x 2880 x 2880, bf16
    assert 0.24 < so.expert_bytes_per_rank / bf16_experts < 0.30  # MXFP4: 4.25 bits of 16
    assert so.weights_bytes_per_rank + so.expert_bytes_per_rank <= oss.weights_bytes

    vl = kvplan.fit("Qwen/Qwen3-VL-30B-A3B-Instruct", "H100", max_model_len=16384)
    uses = dict(vl.weights_by_use)
    sv = StepModel.from_plan(vl)
    assert uses["vision"] > 0 and sv.weights_bytes_per_rank == uses["streamed"]
    deepstack = 3 * 8192 * 2048 * 2  # Qwen3-VL's deepstack input buffers (plan.deepstack_buffer_bytes), not weights read
    assert sv.weights_bytes_per_rank + sv.expert_bytes_per_rank == pytest.approx(vl.weights_bytes - uses["vision"] - uses["input_embedding"] - deepstack, abs=2 ** 27)  # the rotary cache


def test_a_gpu_with_measured_kernels_steps_at_its_own_efficiencies():
    import csv
    from pathlib import Path

    import kvplan
    from kvplan.simulate import DEFAULT_COEFFICIENTS, MEASURED_KERNELS_BY_GPU, StepModel

    # the table's values reproduce the kernel timings they were fitted on (bench/data/gpu_kernel_profiles.csv)
    rows = list(csv.DictReader((Path(__file__).resolve().parents[1] / "bench" / "data" / "gpu_kernel_profiles.csv").open()))
    c = MEASURED_KERNELS_BY_GPU["rtx-4090"][0]
    for r in (r for r in rows if r["gpu_id"] == "rtx-4090" and r["regime"] == "stream"):
        model_us = (float(r["weight_bytes"]) / (1.008e12 * c["eta_mem_stream"]) + c["t_kernel_s"]) * 1e6
        assert model_us == pytest.approx(float(r["time_us"]), rel=0.03), r["op"]
    big = [r for r in rows if r["gpu_id"] == "rtx-4090" and r["regime"] == "compute" and r["op"] == "gate_up_proj"]
    assert all(abs(2 * int(r["tokens"]) * int(r["k"]) * int(r["n"]) / (float(r["time_us"]) * 1e-6) / 165.2e12
                   / c["eta_compute"] - 1) < 0.1 for r in big)
    p4090 = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "RTX 4090", max_model_len=8192)
    sm = StepModel.from_plan(p4090)
    assert sm.coeffs.eta_mem_stream == 0.953 and sm.coeffs.eta_compute == 0.960 and any("measured" in n for n in sm.notes)
    # prefill attention runs at its own measured efficiency there (0.665), slower than the GEMMs' 0.960
    assert sm.prefill_attention_s(2048, 8192) > replace(sm, coeffs=replace(sm.coeffs, eta_attn_compute=None)).prefill_attention_s(2048, 8192)
    assert sm.coeffs.eta_kv_mem == DEFAULT_COEFFICIENTS.eta_kv_mem  # an end-to-end fit, not a kernel one: kept
    h100 = StepModel.from_plan(kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192))
    assert h100.coeffs == DEFAULT_COEFFICIENTS
    # faster streaming, faster decode: the same small batch steps quicker than with the global fit (from 24 sequences
    # its GEMMs' measured batch factor, 1.10, takes that back: test_decode_gemms_run_at_their_measured_batch_factor)
    default = StepModel.from_plan(p4090, DEFAULT_COEFFICIENTS)
    assert sm.step_s(8, 8 * 1000) < default.step_s(8, 8 * 1000)


def test_decode_gemms_run_at_their_measured_batch_factor():
    """A GPU whose layer GEMMs were timed at 2-256 tokens (gemm_batch_factors) streams its weights that much slower
    at a batch of that many tokens than at one; the table is the profiles' own ratio (bench/data/gpu_kernel_profiles.csv,
    "batch" rows); a GPU without one (H100) streams at the one-token rate up to the ridge."""
    import csv
    from collections import defaultdict
    from pathlib import Path

    import kvplan
    from kvplan.simulate import MEASURED_KERNELS_BY_GPU, StepModel, gemm_batch_factor

    rows = list(csv.DictReader((Path(__file__).resolve().parents[1] / "bench" / "data" / "gpu_kernel_profiles.csv").open()))
    one = {(r["setup"], r["op"]): float(r["time_us"]) for r in rows if r["regime"] == "stream"}
    at, base = defaultdict(float), defaultdict(float)
    for r in rows:
        if r["regime"] == "batch" and r["gpu_id"] == "rtx-4090":
            at[int(r["tokens"])] += float(r["time_us"])
            base[int(r["tokens"])] += one[(r["setup"], r["op"])]
    table = MEASURED_KERNELS_BY_GPU["rtx-4090"][0]["gemm_batch_factors"]
    assert dict(table) == {1: 1.0, **{t: pytest.approx(at[t] / base[t], abs=5e-4) for t in at}}
    assert table[5] == (24, 1.1) and gemm_batch_factor(table, 20) == pytest.approx((1.032 + 1.1) / 2)
    assert gemm_batch_factor(table, 1000) == 1.55 and gemm_batch_factor(table, 1) == 1.0
    p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "RTX 4090", max_model_len=8192)
    sm = StepModel.from_plan(p)
    flat = replace(sm, coeffs=replace(sm.coeffs, gemm_batch_factors=()))
    assert sm.step_s(1, 1000) == flat.step_s(1, 1000)
    extra = sm.step_s(24, 24 * 1000) - flat.step_s(24, 24 * 1000)
    assert extra == pytest.approx(0.1 * flat.dense_weights_read_s, rel=1e-6)  # ~1.6 ms of a ~23 ms step
    terms = sm.explain_step(24, 24 * 1000)["terms_ms"]
    assert "dense_weights_read" in terms and "linear_flops" not in terms
    # past the ridge the FLOPs decide, as before
    assert sm.step_s(0, 0, [(2048, 0)]) == flat.step_s(0, 0, [(2048, 0)])
    h100 = StepModel.from_plan(kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192))
    assert h100.coeffs.gemm_batch_factors == ()


def test_the_simulator_pads_to_the_capture_sizes_of_the_plans_release():
    """engine_config_from_plan reads the plan's own capture sizes (plan.cudagraph_plan): 0.31 on also captures
    max_num_seqs itself, so 100 decoding requests run a 100-token graph there and a 104-token one in 0.19; a B200
    (compute capability 10.0) captures up to 1,024 tokens from 0.28."""
    import kvplan
    from kvplan.simulate import engine_config_from_plan

    def cfg(version, gpu="H100", **kw):
        return engine_config_from_plan(kvplan.fit("Qwen/Qwen3-8B", gpu, max_model_len=8192, vllm_version=version,
                                                  fixes=False, **kw))

    assert cfg("0.19.0", max_num_seqs=100).graph_tokens(100) == 104
    assert cfg("0.33.0", max_num_seqs=100).graph_tokens(100) == 100
    assert cfg("0.33.0", "B200", max_num_batched_tokens=8192).cudagraph_max_tokens == 1024
    assert cfg("0.27.1", "B200", max_num_batched_tokens=8192).cudagraph_max_tokens == 512


def test_a_step_runs_its_forward_pass_over_its_cuda_graphs_padded_tokens():
    """vLLM 0.19 pads a step of at most the largest capture size to the next capture size (cudagraph_dispatcher.py);
    the linear layers see the padded tokens, the LM head and attention the real requests; eager plans pad nothing."""
    import kvplan
    from kvplan.simulate import StepModel, Workload, engine_config_from_plan, scheduler_rules, simulate

    p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "RTX 4090", max_model_len=8192, max_num_seqs=256)
    cfg = engine_config_from_plan(p)
    assert cfg.cudagraph_sizes[:6] == (1, 2, 4, 8, 16, 24) and cfg.cudagraph_sizes[-1] == cfg.cudagraph_max_tokens == 512
    assert [cfg.graph_tokens(t) for t in (1, 3, 17, 24, 250, 257, 500, 513, 2048)] == [1, 4, 24, 24, 256, 272, 512, 513, 2048]
    eager = engine_config_from_plan(kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "RTX 4090", max_model_len=8192,
                                               enforce_eager=True))
    assert eager.cudagraph_sizes == () and eager.graph_tokens(17) == 17
    # 17 requests decoding together step as long as the model says for 24 tokens through the GEMMs and 17 requests
    sm = StepModel.from_plan(p)
    w = Workload(name="t", prompt_tokens=np.full(17, 100, dtype=np.int64), completion_tokens=np.full(17, 3, dtype=np.int64),
                 arrival_s=np.zeros(17))
    rules = scheduler_rules("0.19.0")
    padded, unpadded = (simulate(w, c, sm, rules) for c in (cfg, replace(cfg, cudagraph_sizes=())))
    assert padded.finish_s.max() > unpadded.finish_s.max()
    decode_gap = sm.fixed_part_s(24, 17) - sm.fixed_part_s(17, 17)
    assert decode_gap > 0
    assert padded.finish_s.max() - unpadded.finish_s.max() == pytest.approx(2 * decode_gap, rel=1e-6)


def test_decodes_sharing_a_step_with_a_prefill_chunk_read_their_kv_at_the_measured_mixed_rate():
    import csv
    import statistics
    from pathlib import Path

    import kvplan
    from kvplan.simulate import MEASURED_KERNELS_BY_GPU, StepModel

    # the coefficient is the median the kernel cells give (bench/data/mixed_attention_cells.csv)
    cells = [r for r in csv.DictReader((Path(__file__).resolve().parents[1] / "bench" / "data" / "mixed_attention_cells.csv").open())
             if r["gpu_id"] == "rtx-4090" and float(r["decode_alone_us"]) >= 50]
    implied = [((float(r["mixed_us"]) - float(r["chunk_alone_us"])) / float(r["decode_alone_us"]) - 1)
               / (int(r["query_heads_per_kv_head"]) - 1) for r in cells]
    a = MEASURED_KERNELS_BY_GPU["rtx-4090"][0]["mixed_decode_kv_per_extra_head"]
    assert a == pytest.approx(statistics.median(implied), abs=0.001)

    sm = StepModel.from_plan(kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "RTX 4090", max_model_len=8192))
    assert sm.query_heads_per_kv_head == 4 and sm.mixed_decode_factor == pytest.approx(1 + 3 * a)
    # the decodes' KV costs that factor more in a mixed step; a decode-only step is unchanged
    alone = sm.step_s(0, 0, [(256, 0)])
    mixed = sm.step_s(64, 64 * 1000, [(256, 0)])
    assert mixed - alone > sm.per_context_token_s * 64 * 1000 * 1.9
    flat = replace(sm, coeffs=replace(sm.coeffs, mixed_decode_kv_per_extra_head=0.0))
    assert flat.step_s(64, 64 * 1000) == sm.step_s(64, 64 * 1000)
    # no measured mixed timing (H100) or one latent KV head (MLA): no penalty
    assert StepModel.from_plan(kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192)).mixed_decode_factor == 1.0
    lite = StepModel.from_plan(kvplan.fit("deepseek-ai/DeepSeek-V2-Lite", "RTX 4090", max_model_len=4096,
                                          gpu_memory_utilization=0.95, tensor_parallel_size=2))
    assert lite.query_heads_per_kv_head == 1 and lite.mixed_decode_factor == 1.0


def test_fused_moe_read_and_compute_add_up_on_the_gpu_whose_moe_kernels_were_measured():
    import csv
    from pathlib import Path

    import kvplan
    from kvplan.simulate import DEFAULT_COEFFICIENTS, MEASURED_KERNELS_BY_GPU, StepModel

    c = MEASURED_KERNELS_BY_GPU["rtx-pro-6000-blackwell"][0]
    rows = [r for r in csv.DictReader((Path(__file__).resolve().parents[1] / "bench" / "data" / "gpu_kernel_profiles.csv").open())
            if r["gpu_id"] == "rtx-pro-6000-blackwell" and r["op"].startswith("fused_moe")]
    assert len(rows) == 21
    for r in rows:  # every measured cell within 7 % of intercept + read + compute
        read = float(r["weight_bytes"]) / (1.792e12 * c["eta_expert_stream"])
        compute = 2 * int(r["tokens"]) * int(r["k"]) * int(r["n"]) / (503.8e12 * c["eta_moe_compute"])
        assert (33e-6 + read + compute) / (float(r["time_us"]) * 1e-6) == pytest.approx(1, abs=0.07), (r["op"], r["tokens"])
    # on that GPU a big decode batch costs more in the expert layers than the slower-of-the-two form gives
    p = kvplan.fit("Qwen/Qwen3-30B-A3B-Instruct-2507", "RTX PRO 6000 Blackwell Server Edition", max_model_len=8192)
    sm = StepModel.from_plan(p)
    flat = replace(sm, coeffs=replace(sm.coeffs, moe_overlap=1.0, eta_moe_compute=None))
    assert sm.moe_part_s(256, 256) > flat.moe_part_s(256, 256)
    assert DEFAULT_COEFFICIENTS.moe_overlap == 1.0  # GPUs without MoE kernel timings keep the roofline's max


def test_the_rtx_pro_6000s_dense_gemms_give_its_own_kernel_cost_and_its_experts_keep_their_read_rate():
    import csv
    from pathlib import Path

    import kvplan
    from kvplan.simulate import DEFAULT_COEFFICIENTS, MEASURED_KERNELS_BY_GPU, StepModel

    c = MEASURED_KERNELS_BY_GPU["rtx-pro-6000-blackwell"][0]
    rows = [r for r in csv.DictReader((Path(__file__).resolve().parents[1] / "bench" / "data" / "gpu_kernel_profiles.csv").open())
            if r["gpu_id"] == "rtx-pro-6000-blackwell" and r["regime"] == "stream" and r["kernels"] == "1"]
    assert len(rows) == 10
    for r in rows:  # the one-token GEMMs of Llama-3.1-8B and Qwen3-32B: within 6 %, but the one that read the L2
        model_us = (float(r["weight_bytes"]) / (1.792e12 * c["eta_mem_stream"]) + c["t_kernel_s"]) * 1e6
        l2 = float(r["weight_bytes"]) / (float(r["time_us"]) * 1e-6) > 1.792e12
        assert (model_us / float(r["time_us"]) - 1 > 1.0) if l2 else model_us == pytest.approx(float(r["time_us"]), rel=0.06), r["op"]
    assert c["t_kernel_s"] < DEFAULT_COEFFICIENTS.t_kernel_s and c["eta_expert_stream"] > c["eta_mem_stream"]
    # dense weights stream at the dense GEMMs' rate, the fused-MoE experts at their own
    sm = StepModel.from_plan(kvplan.fit("Qwen/Qwen3-30B-A3B-Instruct-2507", "RTX PRO 6000 Blackwell Server Edition", max_model_len=8192))
    assert sm.dense_weights_read_s == pytest.approx(sm.weights_bytes_per_rank / (1.792e12 * 0.812), rel=1e-3)
    same = replace(sm, coeffs=replace(sm.coeffs, eta_expert_stream=None))
    assert same.moe_part_s(8, 8) > sm.moe_part_s(8, 8)  # without it the experts would read at 0.812
    assert DEFAULT_COEFFICIENTS.eta_expert_stream is None


def test_a_run_whose_arrivals_outrun_the_server_says_so():
    n = 400
    prompts, outs = [2000] * n, [400] * n
    # one engine with 8 sequence slots: 0.2 s between arrivals keeps up, 0.002 s does not
    light = simulate(wl(prompts, outs, np.arange(n) * 5.0), cfg(blocks=4000), SM, R19)
    heavy = simulate(wl(prompts, outs, np.arange(n) * 0.002), cfg(blocks=4000), SM, R19)
    assert not any("overloaded" in x for x in light.notes)
    note = next(x for x in heavy.notes if x.startswith("overloaded"))
    assert f"{(n - 1) / (0.002 * (n - 1)):.2f} req/s" in note and "kvplan capacity" in note
    assert heavy.makespan_s > 1.5 * 0.002 * (n - 1)


def test_simulate_json_traces_its_step_times_to_their_terms():
    import json
    import subprocess

    r = subprocess.run(["kvplan", "simulate", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "RTX 4090", "--max-model-len", "8192",
                        "--prompt-len", "constant:1000", "--completion-len", "constant:100", "--rate", "2", "-n", "100", "--json"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    sm = json.loads(r.stdout)["step_model"]
    assert sm["coefficients"]["eta_mem_stream"] == 0.953 and sm["query_heads_per_kv_head"] == 4
    decode, prefill = sm["example_steps"]
    for step in (decode, prefill):  # the terms add up to the step's time
        parts = sum(step["terms_ms"].values())
        assert parts == pytest.approx(step["total_ms"], rel=1e-3)
    assert decode["decode_seqs"] >= 1 and decode["decode_context_tokens"] == decode["decode_seqs"] * 1050
    assert "dense_weights_read" in decode["terms_ms"] and "linear_flops" in prefill["terms_ms"] and prefill["prefill_chunks"] == [[2048, 0]]


def test_groups_that_do_not_list_every_layer_fall_back_to_all_layers_global():
    import kvplan
    from kvplan.simulate import _layer_reads

    v4 = kvplan.fit("deepseek-ai/DeepSeek-V4-Pro", "H200", tensor_parallel_size=8, max_model_len=131072, fixes=False)
    assert _layer_reads(v4) == {}  # layer tuples: one group entry stands for many layers
    sm = StepModel.from_plan(v4)
    assert sm.windows == () and sm.state_bytes_per_seq == 0.0


def test_the_measured_kernel_table_is_what_its_fit_script_prints():
    """MEASURED_KERNELS_BY_GPU's kernel-fitted values are bench/calibrate_step_model.py --gpu-profiles' fit, to the
    three decimals the table keeps (the table had kept 0.961 / 0.671 after the script's median became statistics'
    median, which averages the middle two of the 260 GEMMs and 24 attention chunks: 0.960 / 0.665)."""

    from kvplan.simulate import MEASURED_KERNELS_BY_GPU

    from repo_scripts import load_script

    script = load_script("bench/calibrate_step_model.py", "calibrate_step_model")
    fitted = script.fit_gpu_profiles()
    assert set(fitted) == set(MEASURED_KERNELS_BY_GPU)
    for gpu_id, (eta, t_kernel, eta_compute, eta_attn, eta_moe, eta_expert) in fitted.items():
        table = MEASURED_KERNELS_BY_GPU[gpu_id][0]
        assert table["eta_mem_stream"] == round(eta, 3) and table["eta_compute"] == round(eta_compute, 3), gpu_id
        assert table["eta_attn_compute"] == round(eta_attn, 3), gpu_id
        if t_kernel is not None:
            assert table["t_kernel_s"] == pytest.approx(round(t_kernel * 1e6, 1) * 1e-6), gpu_id
        if eta_moe is not None:
            assert table["eta_moe_compute"] == round(eta_moe, 3), gpu_id
        assert table.get("eta_expert_stream") == (None if eta_expert is None else round(eta_expert, 3)), gpu_id


def test_capacity_sizes_no_replicas_when_no_rate_meets_the_slo(monkeypatch):
    """capacity printed 'no probed rate meets ... (even 0.05 req/s)' and then 'target 10 req/s: 102 replicas': the
    replica search ran anyway and met the SLO by the luck of a smaller sample."""
    import kvplan.simulate as sim
    from kvplan.workload import with_rate

    rng = np.random.default_rng(0)
    n = 100
    base = wl(rng.integers(50, 400, n), rng.integers(10, 100, n), np.sort(rng.uniform(0, n, n)))
    calls = []
    monkeypatch.setattr(sim, "simulate_replicas", lambda *a, **k: calls.append(a) or pytest.fail("searched replicas"))
    slo = parse_slo("ttft=0.001ms", 90)  # no rate meets it
    cap = find_capacity(lambda r: with_rate(base, r), cfg(), SM, slo, R19, target_rate_per_s=10)
    assert cap.max_rate_per_s <= 0 and cap.replicas_needed is None and not calls
