"""The nearest fixes and a cold first start: a fix whose warm plan starts but whose first, compiling start may be
refused (the cold-start warning) says so, with the value whose first start also holds one request."""

from __future__ import annotations

import json

import pytest

import kvplan
from kvplan.api import (AUTO_GPU_KINDS, first_start_holds, gpu_kinds_words, largest_max_model_len, max_model_len_for_concurrency,
                        replan)
from kvplan.plan import COLD_START_WARNING
from tests.cli_runner import run_cli


def _cold_refusal(q) -> bool:
    """The plan's own words: a cold-start warning that says the first start may be refused."""
    return any(w.startswith(COLD_START_WARNING) and "may be refused" in w for w in q.warnings)


@pytest.fixture(scope="module")
def llama_l4():
    # Llama-3.1-8B at its 131,072 default on an L4: the largest length that starts warm is 32,832 tokens (34,032 before model runner v2's graph
    # estimate charged 0.25 MiB x 32 layers x 51 sizes + 33 MiB, 0.43 GiB against 0.28), a pool of
    # one request; a compiling first start has 1.5+ GiB less (Inductor's copy of the 128k x 4096 embedding table)
    return kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4")


def test_max_model_len_fix_gives_the_first_start_length(llama_l4):
    p = llama_l4
    fix = next(f for f in p.fixes if f.name == "lower max_model_len")
    warm = fix.flags["max_model_len"]
    assert warm == largest_max_model_len(p)  # the warm answer is unchanged: kvplan plans the warm restart
    q = replan(p, max_model_len=warm)
    assert q.fits and q.first_start_refused and _cold_refusal(q)
    assert fix.first_start_refused
    first = fix.first_start_flags["max_model_len"]
    assert 0 < first < warm and first % p.block_size == 0
    assert fix.effect.startswith(f"starts: {q.kv_cache_tokens:,} tokens")
    assert fix.effect.endswith(f"(a first, compiling start needs --max-model-len {first:,} or less)")
    # the value given starts cold too (no cold-start warning at all), and one block more does not
    at = replan(p, max_model_len=first)
    assert first_start_holds(at) and not any(w.startswith(COLD_START_WARNING) for w in at.warnings)
    above = replan(p, max_model_len=first + p.block_size)
    assert above.fits and above.first_start_refused and _cold_refusal(above)


def test_first_start_refused_is_the_warning(llama_l4):
    # Plan.first_start_refused says what the warning says, in both directions, across lengths
    for length in (8192, 16384, 20672, 20688, 30000, 32832):  # about the first-start and warm edges
        q = replan(llama_l4, max_model_len=length)
        assert q.first_start_refused == _cold_refusal(q), length


def test_fix_json_carries_the_first_start(llama_l4):
    d = json.loads(json.dumps(llama_l4.to_dict()))
    fix = next(f for f in d["fixes"] if f["name"] == "lower max_model_len")
    assert fix["first_start_refused"] is True and fix["first_start_flags"] == {"max_model_len": 20672}  # 21,472 with V1-f non-torch 0.20 GiB, 21,888 with 0.15, 20,672 with model runner v2's graph estimate at 0.25 MiB x 32 layers x 51 sizes + 33 MiB (0.43 GiB, 0.28 before: 1,216 tokens x 128 KiB less)
    # a fix whose plan starts cold as well carries no first-start figure
    others = [f for f in d["fixes"] if f["name"] != "lower max_model_len"]
    assert others and all(f["first_start_refused"] is False and f["first_start_flags"] is None for f in others)


def test_fix_without_first_start_refusal_is_unchanged():
    # deepseek-coder-6.7b at its 65,536 limit on an L4: the H100 and TP 4 offered start cold as well (no note), while
    # a shorter length's pool is thin enough for the note
    p = kvplan.fit("deepseek-ai/deepseek-coder-6.7b-instruct", "L4")
    for name in ("a larger GPU", "tensor parallel 4"):
        fix = next(f for f in p.fixes if f.name == name)
        assert fix.fits and not fix.first_start_refused and fix.first_start_flags is None
        assert "first, compiling start" not in fix.effect
    assert next(f for f in p.fixes if f.name == "lower max_model_len").first_start_refused


def test_other_fix_says_its_first_start_may_be_refused():
    # a fix with no value to search (a larger GPU) whose plan carries the cold-start refusal says so, without a figure
    p = kvplan.fit("Qwen/Qwen2.5-14B-Instruct", "T4")
    fix = next(f for f in p.fixes if f.name == "a larger GPU")
    q = replan(p, gpu=kvplan.api.resolve_gpu(fix.flags["gpu"])[0])
    assert q.fits and _cold_refusal(q)
    assert fix.fits and fix.first_start_refused and fix.first_start_flags is None
    assert fix.effect.endswith("; a first, compiling start with it may be refused (fit with these flags shows the "
                               "cold-start warning)")


def test_max_num_seqs_fix_first_start_after_the_blocks_named():
    # a hybrid's state blocks below max_num_seqs: the warm count is above the blocks vLLM's message names (said
    # first), and a first start, with fewer blocks, needs fewer sequences (said after)
    p = kvplan.fit("nvidia/Nemotron-H-56B-Base-8K", "H200")
    assert p.failure == "state_blocks"
    fix = next(f for f in p.fixes if f.name == "lower max_num_seqs")
    warm, first = fix.flags["max_num_seqs"], fix.first_start_flags["max_num_seqs"]
    assert first < warm and fix.first_start_refused
    assert fix.effect.endswith(f"(more than the {p.num_gpu_blocks:,} vLLM's message names: fewer sequences leave a "
                               f"larger pool) (a first, compiling start needs --max-num-seqs {first:,} or less)")
    assert first_start_holds(replan(p, max_num_seqs=first))
    assert replan(p, max_num_seqs=first + 1).first_start_refused
    assert replan(p, max_num_seqs=warm).fits


def test_utilization_fix_first_start_needs_more():
    p = kvplan.fit("Qwen/Qwen3-32B", "H100")
    fix = next(f for f in p.fixes if f.name == "raise gpu_memory_utilization")
    warm, first = fix.flags["gpu_memory_utilization"], fix.first_start_flags["gpu_memory_utilization"]
    assert warm < first <= 0.98
    assert fix.effect.endswith(f"(a first, compiling start needs --gpu-memory-utilization {first:g} or more)")
    assert first_start_holds(replan(p, gpu_memory_utilization=first))
    assert replan(p, gpu_memory_utilization=round(first - 0.01, 2)).first_start_refused


def test_no_length_holds_a_first_start_is_said():
    # a pool so thin that the compiling start's loss leaves no block at any length
    p = kvplan.fit("meta-llama/Llama-2-7b-hf", "T4")
    fix = next(f for f in p.fixes if f.name == "lower max_model_len")
    assert fix.fits and fix.first_start_refused and fix.first_start_flags is None
    assert "a first, compiling start may be refused at any max-model-len here" in fix.effect
    assert not first_start_holds(replan(p, max_model_len=p.block_size))


def test_concurrency_inverse_with_first_start(llama_l4, monkeypatch, capsys):
    base = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", fixes=False)
    warm = max_model_len_for_concurrency(base, 1)
    first = max_model_len_for_concurrency(base, 1, first_start=True)
    assert first < warm and first_start_holds(replan(base, max_model_len=first))
    code, out, _ = run_cli(monkeypatch, capsys, "fit", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4",
                           "--max-model-len", "auto", "--concurrency", "1", "--json")
    d = json.loads(out)
    assert code == 0 and d["args"]["max_model_len"] == warm
    assert d["inverse"].endswith(f"(a first, compiling start needs --max-model-len {first:,} or less)")


def test_gpu_auto_prefers_a_card_whose_first_start_holds_too(monkeypatch, capsys):
    """`--gpu auto` picked the smallest card that starts warm (an A10 for Llama-3.1-8B at 33,000 tokens), whose first,
    compiling start the cold-start warning said may be refused; it now takes the smallest whose first start holds as
    well, and says which smaller card it passed over and why."""
    from kvplan.api import engine_args, gpu_and_tp_choices, smallest_gpu_and_tp
    from kvplan.resolve import resolve_model

    spec = resolve_model("meta-llama/Llama-3.1-8B-Instruct")
    args = engine_args(max_model_len=33000)
    cold, warm = gpu_and_tp_choices(spec, args)
    assert warm[2].fits and warm[2].first_start_refused and _cold_refusal(warm[2])
    assert cold[2].fits and first_start_holds(cold[2]) and not _cold_refusal(cold[2])
    assert cold[0].total_bytes * cold[1] > warm[0].total_bytes * warm[1]
    assert smallest_gpu_and_tp(spec, args)[:2] == cold[:2]
    assert smallest_gpu_and_tp(spec, args, first_start=False)[:2] == warm[:2]
    code, out, _ = run_cli(monkeypatch, capsys, "fit", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "auto",
                           "--max-model-len", "33000", "--json")
    d = json.loads(out)
    assert d["gpu"] == cold[0].name and not any("may be refused" in w for w in d["warnings"])
    assert f"is 1 x {cold[0].name} (1 x {warm[0].name} is smaller and starts warm, but its first start may be refused)" \
        in d["inverse"]
    # where the smallest warm start's first start holds too, it is the answer, said once (DeepSeek-V3 at 4,096 tokens
    # on 4 x B200 read '4 x NVIDIA B200 (4 x NVIDIA B200 is smaller and starts warm, but ...)')
    spec = resolve_model("deepseek-ai/DeepSeek-V3")
    cold, warm = gpu_and_tp_choices(spec, engine_args(max_model_len=4096))
    assert cold is warm and first_start_holds(cold[2])
    code, out, _ = run_cli(monkeypatch, capsys, "fit", "deepseek-ai/DeepSeek-V3", "--gpu", "auto", "--max-model-len", "4096",
                           "--json")
    assert json.loads(out)["inverse"] == (f"--gpu auto: the smallest catalog GPU x TP that starts is {cold[1]} x {cold[0].name}"
                                          f"; searched: {gpu_kinds_words(AUTO_GPU_KINDS)} (--gpu-kinds all searches every kind)")
