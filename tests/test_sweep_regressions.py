"""Regressions found by sweeping the model x GPU x vLLM-version space (every catalog model and local config on the
common GPUs and releases, with the usual flag variations)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import replace

import pytest

import kvplan
from kvplan import api
from kvplan.errors import UnknownGPUError
from kvplan.resolve import find_gpu, resolve_model
from kvplan.weights import weights_per_rank


def test_a_long_modules_to_not_convert_list_is_parsed_once_per_plan():
    # Qwen3-235B-A22B-FP8 lists 283 unconverted modules; --max-model-len auto on a T4 replans it dozens of times, and
    # each plan read the whole list once per component and rank: 5-9 s for one answer. A list 100x as long (as a
    # checkpoint that names every projection of every layer has) must still plan in well under a second per plan.
    spec = resolve_model("Qwen/Qwen3-30B-A3B-FP8")
    long_skip = tuple(f"model.layers.{i}.mlp.gate" for i in range(20_000)) + ("lm_head",)
    short_skip = ("model.layers.0.mlp.gate", "lm_head")
    long_spec = replace(spec, quant=replace(spec.quant, skip=long_skip))
    short_spec = replace(spec, quant=replace(spec.quant, skip=short_skip))
    start = time.perf_counter()
    long_w = weights_per_rank(long_spec, tp=2, quant=long_spec.quant)
    p = kvplan.fit(long_spec, "H100", tensor_parallel_size=2, max_model_len=8192)
    elapsed = time.perf_counter() - start
    # a hang guard, not a speed target (bench/ prints the figures): parsed once per component and rank, the list took
    # minutes here; parsed once per list it takes a fraction of a second, so a loaded machine stays far inside this
    assert elapsed < 60, f"{elapsed:.1f} s"
    # the same modules named once each: the same bytes (a pattern skips what its dotted parts name)
    assert long_w.bytes == weights_per_rank(short_spec, tp=2, quant=short_spec.quant).bytes
    assert p.fits and p.weights_bytes == api.fit(short_spec, "H100", tensor_parallel_size=2, max_model_len=8192).weights_bytes


@pytest.mark.parametrize("typed, meant", [("mi300", "AMD Instinct MI300X"), ("A100-80", "NVIDIA A100 80GB"),
                                          ("A100-40", "NVIDIA A100 40GB"), ("MI325", "AMD Instinct MI325X")])
def test_an_unknown_gpu_name_offers_first_the_card_whose_name_holds_it(typed, meant):
    # spelling alone ranked 'B300' above 'MI300X' for 'mi300', and the A800 above the A100 for 'A100-80'
    with pytest.raises(UnknownGPUError) as e:
        find_gpu(typed)
    near = str(e.value).split("nearest: ")[1].split(";")[0].split(", ")
    assert near[0].startswith(meant) and len(near) == len(set(near)) <= 3
    assert e.value.field == "--gpu"


def test_auto_length_does_not_answer_a_context_shorter_than_one_block():
    # Qwen2.5-72B-AWQ on an L40S at 0.20: from 0.12 max_num_batched_tokens (and the CUDA graphs with it) shrinks to
    # max_num_seqs x max_model_len, so a 1-token context starts where a 16-token one has no memory for cache blocks.
    # --max-model-len auto answered "1 is the largest context at which 8 full-length requests fit"; the plan at one
    # block says what stands in the way (no memory for the cache blocks) and how to get past it.
    base = kvplan.fit("Qwen/Qwen2.5-72B-Instruct-AWQ", "L40S", vllm_version="0.20.0", fixes=False)
    assert kvplan.fit(base.model, base.gpu, vllm_version="0.20.0", max_model_len=1, fixes=False).fits  # the premise
    assert api.max_model_len_for_concurrency(base, 8) is None
    r = subprocess.run(["kvplan", "fit", "Qwen/Qwen2.5-72B-Instruct-AWQ", "--gpu", "L40S", "--vllm-version", "0.20.0",
                        "--max-model-len", "auto", "--concurrency", "8", "--json"], capture_output=True, text=True, timeout=120)
    d = json.loads(r.stdout)
    assert r.returncode == 1 and not d["fits"] and d["args"]["max_model_len"] == 16
    assert d["error"].startswith("No available memory for the cache blocks") and d["fixes"]
    assert "not even 16 tokens" in d["inverse"]
    # where a length of a block or more answers, it still does (0.19.1: 144 tokens, 8.00x)
    older = kvplan.fit("Qwen/Qwen2.5-72B-Instruct-AWQ", "L40S", vllm_version="0.19.1", fixes=False)
    assert api.max_model_len_for_concurrency(older, 8) == 144


def test_auto_length_says_one_block_when_even_that_misses_the_concurrency():
    # Qwen2.5-7B on an L4 at 0.709 utilization: about 15 blocks at a 16-token context (0.7 left none once model runner
    # v2's sampler state is charged; 0.707 left about 15 while V1-f charged 0.20 GiB of non-torch memory, 78 at its 0.15;
    # 0.705 left 27 until model runner v2's graph estimate charged 0.25 MiB x 28 layers x 51 sizes + 33 MiB, 0.38 GiB
    # against 0.28, and now leaves none; 0.71 leaves 41, which would reach 32x),
    # so 32 requests never fit; the message said "even 1-token requests", a length the search no longer offers
    r = subprocess.run(["kvplan", "fit", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "L4", "--gpu-memory-utilization", "0.709",
                        "--max-model-len", "auto", "--concurrency", "32"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "--concurrency: even 16-token requests (one block) do not reach 32x" in r.stderr
    assert "lower --concurrency" in r.stderr


@pytest.mark.parametrize("command", ["simulate", "capacity"])
def test_simulate_and_capacity_json_print_the_refused_plan(command):
    # Llama-3.1-8B does not load on a T4: --json printed nothing on stdout (the refusal went to stderr alone), so a
    # script reading the JSON failed to parse it. Now the plan's JSON, as fit --json prints it, with the fixes (exit 1).
    r = subprocess.run(["kvplan", command, "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "T4", "-w", "azure-conv", "-n", "50",
                        "--json"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    d = json.loads(r.stdout)
    assert d["fits"] is False and "while loading the model weights" in d["error"] and d["fixes"]
    fit = subprocess.run(["kvplan", "fit", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "T4", "--json"],
                         capture_output=True, text=True, timeout=120)
    assert d == {k: v for k, v in json.loads(fit.stdout).items() if k != "uncertainty"}  # the band is fit's own
    assert "the plan does not start" in r.stderr  # the person at a terminal still reads why


@pytest.mark.parametrize("layout", ["checkpoint", "named"])
def test_a_config_path_reads_the_modelopt_quantization_file_beside_it(tmp_path, layout):
    # nvidia/Llama-3.1-70B-Instruct-FP8 declares its FP8 only in hf_quant_config.json (config.json has no
    # quantization_config), which vLLM reads. Given as a config path, kvplan read config.json alone and planned the
    # 16-bit weights: 131.45 GiB per rank where the checkpoint loads 67.70 GiB, refused where it starts.
    from kvplan.resolve import catalog_lookup

    entry = catalog_lookup("nvidia/Llama-3.1-70B-Instruct-FP8")
    assert "quantization_config" not in entry["config"] and entry["hf_quant_config"]  # the premise
    if layout == "checkpoint":  # a checkpoint's own files, side by side
        config, quant = tmp_path / "config.json", tmp_path / "hf_quant_config.json"
    else:  # saved under the model's name, as kvplan's catalog sources keep them
        config, quant = tmp_path / "nvidia--Llama-3.1-70B-Instruct-FP8.json", tmp_path / "nvidia--Llama-3.1-70B-Instruct-FP8.hf_quant_config.json"
    config.write_text(json.dumps(entry["config"]))
    alone = kvplan.fit(str(config), "H100", max_model_len=8192, fixes=False)
    quant.write_text(json.dumps(entry["hf_quant_config"]))
    p = kvplan.fit(str(config), "H100", max_model_len=8192, fixes=False)
    catalog = kvplan.fit("nvidia/Llama-3.1-70B-Instruct-FP8", "H100", max_model_len=8192, fixes=False)
    assert alone.model.quant is None and not alone.fits  # no file beside it: nothing says FP8, 16-bit weights
    assert p.model.quant.method == "modelopt" and p.model.quant.hf_quant_config_only
    assert p.fits and p.weights_bytes == catalog.weights_bytes < alone.weights_bytes
    assert p.kv_cache_tokens == catalog.kv_cache_tokens
    assert any(quant.name in a for a in p.assumptions)


def test_a_plan_that_starts_below_one_request_says_so():
    # gemma-2-9b (sliding + full groups) on a T4 at 0.16 with online FP8: the release's check counts only the first
    # group's need (1.06 GiB of 1.16), so vLLM starts and logs "Maximum concurrency ... 0.50x"; the plan said "fits"
    # and nothing else, though one 8,192-token request needs 897 blocks of the 451 there are (written for 0.15, which
    # cannot load the 9B's float16 copy on a T4 before quantizing it: 0.16 is the first to quantize layer by layer)
    p = kvplan.fit("google/gemma-2-9b", "T4", vllm_version="0.16.0", quantization="fp8")
    assert p.fits and 0.4 < p.max_concurrency < 0.6  # the numbers stay vLLM's (451 blocks, 0.50x when written)
    warning = next(w for w in p.warnings if "cannot be held whole" in w)
    assert f"{p.max_concurrency:.2f}x of one 8,192-token request" in warning
    assert f"{p.num_gpu_blocks:,} of the 897 blocks" in warning
    assert "--max-model-len auto --concurrency 1" in warning
    shorter = kvplan.fit("google/gemma-2-9b", "T4", vllm_version="0.16.0", quantization="fp8",
                         max_model_len=api.max_model_len_for_concurrency(p, 1))
    assert shorter.fits and shorter.max_concurrency >= 1 and not any("cannot be held whole" in w for w in shorter.warnings)


def test_a_quantized_checkpoint_with_larger_weights_than_the_plan_is_not_offered():
    # Qwen3-32B with --quantization bitsandbytes (4-bit) on a T4: "serve Qwen/Qwen3-32B-FP8" was offered (first without
    # the checkpoint's own --quantization, so its command was refused); FP8 weights are larger than bnb's 4-bit ones, so
    # the swap cannot help and is no longer offered (the flag replacement itself: the AWQ swap tests below)
    kw = dict(vllm_version="0.19.0", quantization="bitsandbytes", tensor_parallel_size=1)
    p = kvplan.fit("Qwen/Qwen3-32B", "T4", **kw)
    fp8 = kvplan.fit("Qwen/Qwen3-32B-FP8", "T4", **{**kw, "quantization": "fp8"}, fixes=False)
    assert fp8.weights_bytes > p.weights_bytes
    assert [f for f in p.fixes if f.flags.get("model") == "Qwen/Qwen3-32B-FP8"] == []
    # without a --quantization flag the FP8 checkpoint halves the bf16 weights: the checkpoint alone is the change
    plain = kvplan.fit("Qwen/Qwen3-32B", "L4", vllm_version="0.33.0")
    assert {"model": "Qwen/Qwen3-32B-FP8"} in [f.flags for f in plain.fixes]


def test_no_fix_repeats_the_online_fp8_flag_already_given():
    # --quantization fp8 on an L4 that still cannot load Qwen3-32B: "online FP8 weights (--quantization fp8)" was
    # offered as a fix, a change that changes nothing
    p = kvplan.fit("Qwen/Qwen3-32B", "L4", vllm_version="0.33.0", quantization="fp8")
    assert not p.fits and p.failure == "load"
    assert [f for f in p.fixes if f.flags == {"quantization": "fp8"}] == []
    assert any(f.fits for f in p.fixes)  # tensor parallelism or a larger card still answers
    plain = kvplan.fit("Qwen/Qwen3-32B", "L4", vllm_version="0.33.0")
    assert {"quantization": "fp8"} in [f.flags for f in plain.fixes]


def _catalog_with_int4_copy(monkeypatch, method: str, quant_config: dict) -> str:
    # the catalog holds no AWQ / GPTQ checkpoint whose base model it also holds: a copy of Qwen3-32B's entry with an
    # int4 quantization_config stands in for Qwen/Qwen3-32B-<METHOD> (the swap fix looks for the base id + a suffix)
    import copy

    from kvplan import resolve

    real = resolve.model_catalog()
    cid = f"Qwen/Qwen3-32B-{method.upper()}"
    entry = copy.deepcopy(real["Qwen/Qwen3-32B"])
    entry["id"] = cid
    for key in ("config", "resolved_config"):
        if isinstance(entry.get(key), dict):
            entry[key]["quantization_config"] = dict(quant_config, quant_method=method)
    catalog = {**real, cid: entry}
    monkeypatch.setattr(resolve, "model_catalog", lambda: catalog)
    return cid


def test_a_checkpoint_swap_fix_names_the_marlin_method_vllm_would_pick(monkeypatch):
    # Qwen3-32B with --quantization bitsandbytes on an L4 at 0.19: the swap to an AWQ checkpoint wrote --quantization
    # awq, which makes vLLM force its slower non-Marlin AWQ kernel ("you specified quantization=awq explicitly, so
    # forcing awq"); with no flag vLLM itself converts the checkpoint to awq_marlin there, so the fix names that
    cid = _catalog_with_int4_copy(monkeypatch, "awq", {"bits": 4, "group_size": 128, "zero_point": True, "version": "gemm"})
    kw = dict(vllm_version="0.19.0", quantization="bitsandbytes")
    p = kvplan.fit("Qwen/Qwen3-32B", "L4", **kw)
    fix = next(f for f in p.fixes if f.flags.get("model") == cid)
    assert fix.flags == {"model": cid, "quantization": "awq_marlin"}
    q = kvplan.fit(cid, "L4", **{**kw, "quantization": "awq_marlin"}, fixes=False)  # the command plans as claimed
    assert q.fits == fix.fits and q.weights_bytes == kvplan.fit(cid, "L4", vllm_version="0.19.0", fixes=False).weights_bytes
    # where Marlin is not there (a T4 at 0.13: awq_marlin needs cc 8.0 until 0.14) vLLM serves plain awq itself
    t4 = kvplan.fit("Qwen/Qwen3-32B", "T4", vllm_version="0.13.0", quantization="bitsandbytes")
    assert next(f for f in t4.fixes if f.flags.get("model") == cid).flags["quantization"] == "awq"


@pytest.mark.parametrize("method, config, gpu, version, expected", [
    ("awq", {"bits": 4, "group_size": 128, "zero_point": True}, "H100", "0.19.0", "awq_marlin"),
    ("awq", {"bits": 4, "group_size": 128, "zero_point": True}, "H100", "0.5.2", "awq"),      # before awq_marlin.py
    ("awq", {"bits": 4, "group_size": 128, "zero_point": True}, "V100-32GB", "0.19.0", "awq"),  # cc 7.0 < 7.5
    ("awq", {"bits": 4, "group_size": 256, "zero_point": True}, "H100", "0.19.0", "awq"),     # no Marlin group size
    ("awq", {"bits": 4, "group_size": 128}, "H100", "0.19.0", "awq"),                         # zero_point not stated
    ("gptq", {"bits": 4, "group_size": 128, "sym": True, "desc_act": False}, "A100-80GB", "0.19.0", "gptq_marlin"),
    ("gptq", {"bits": 8, "group_size": -1, "sym": True, "desc_act": True}, "A100-80GB", "0.19.0", "gptq_marlin"),
    ("gptq", {"bits": 4, "group_size": 128, "sym": False, "desc_act": False}, "A100-80GB", "0.19.0", "gptq"),
    ("gptq", {"bits": 3, "group_size": 128, "sym": True, "desc_act": False}, "A100-80GB", "0.19.0", "gptq"),
])
def test_checkpoint_quant_flag_follows_vllms_marlin_conversion(monkeypatch, method, config, gpu, version, expected):
    cid = _catalog_with_int4_copy(monkeypatch, method, config)
    assert api._checkpoint_quant_flag(resolve_model(cid), find_gpu(gpu), version) == expected


def test_online_fp8_is_not_offered_over_a_smaller_online_4bit_method():
    # --quantization bitsandbytes (4-bit NF4) for Qwen3-32B on an L4: "online FP8 weights" was offered, though FP8
    # weights are about twice the 4-bit ones; it is offered only where its weights are smaller than the plan's
    p = kvplan.fit("Qwen/Qwen3-32B", "L4", vllm_version="0.19.0", quantization="bitsandbytes")
    assert not p.fits
    fp8 = kvplan.fit("Qwen/Qwen3-32B", "L4", vllm_version="0.19.0", quantization="fp8", fixes=False)
    assert fp8.weights_bytes > p.weights_bytes  # the premise
    assert [f for f in p.fixes if f.flags == {"quantization": "fp8"}] == []
    assert any(f.fits for f in p.fixes)


@pytest.mark.parametrize("flag, kw, before, since, model", [
    ("--language-model-only", {"language_model_only": True}, "0.14.1", "0.17.0", "Qwen/Qwen3-VL-2B-Instruct"),
    ("--data-parallel-size", {"data_parallel_size": 2}, "0.8.2", "0.8.3", "meta-llama/Llama-3.1-8B"),
    ("--enable-expert-parallel", {"enable_expert_parallel": True, "tensor_parallel_size": 2}, "0.7.3", "0.8.0",
     "mistralai/Mixtral-8x7B-v0.1"),
    ("--speculative-config", {"speculative_config": '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}'},
     "0.7.3", "0.8.2", "meta-llama/Llama-3.1-8B"),
    ("--compilation-config", {"compilation_config": '{"cudagraph_mode": "PIECEWISE"}'}, "0.6.4", "0.6.5", "meta-llama/Llama-3.1-8B"),
])
def test_fit_refuses_a_flag_the_release_lacks_as_scaffold_does(flag, kw, before, since, model):
    # the sweep planned these (a start) on releases whose argparse has no such flag, while `kvplan scaffold` with the
    # same flags refused them (versions.SERVE_FLAG_SINCE); the plan now refuses them the same way
    from kvplan.errors import InputError

    with pytest.raises(InputError) as e:
        kvplan.fit(model, "H100", vllm_version=before, max_model_len=4096, fixes=False, **kw)
    assert e.value.field == flag and f"first in vLLM {since}" in str(e.value) and since in e.value.fix
    assert kvplan.fit(model, "H100", vllm_version=since, max_model_len=4096, fixes=False, **kw).fits
    # a single engine written as -dp 1 is not a flag the launch files write: not refused
    assert kvplan.fit("meta-llama/Llama-3.1-8B", "H100", vllm_version="0.8.2", data_parallel_size=1, fixes=False).fits


@pytest.mark.parametrize("command", ["simulate", "capacity"])
def test_simulate_and_capacity_count_every_gpu_of_a_data_parallel_plan(command):
    # "Qwen/Qwen3-30B-A3B on 1 x NVIDIA H100" was printed for -dp 2 (two GPUs): the header counted TP ranks only
    args = ["kvplan", command, "Qwen/Qwen3-30B-A3B", "--gpu", "H100", "-dp", "2", "--enable-expert-parallel",
            "--max-model-len", "8192", "--prompt-len", "constant:200", "--completion-len", "constant:20", "-n", "40"]
    r = subprocess.run(args + (["--rate", "4"] if command == "simulate" else []), capture_output=True, text=True,
                       timeout=300, env={**os.environ, "COLUMNS": "300"})
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr
    assert "on 2 x NVIDIA H100 80GB SXM5 (TP 1 x PP 1 x DP 2)" in r.stdout
    one = subprocess.run(["kvplan", "simulate", "Qwen/Qwen3-8B", "--gpu", "L4", "-tp", "2", "--max-model-len", "4096",
                          "--prompt-len", "constant:200", "--completion-len", "constant:20", "-n", "20", "--rate", "2"],
                         capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "300"})
    assert "on 2 x NVIDIA L4," in one.stdout and "DP" not in one.stdout.splitlines()[0]


def test_the_lower_max_model_len_fix_is_the_largest_length_that_starts():
    # V0 (0.7.1) sizes its token budget to max_model_len without chunked prefill, so the pool at the length given
    # (131,072: 72,192 tokens, the length vLLM's error names) is smaller than the pool at a shorter length: the fix
    # offered 72,192 where 80,816 starts (74,240 and 81,920 before the dense live set counted its third T x H row:
    # 0.75 GiB more peak at T 131,072)
    kw = dict(vllm_version="0.7.1", max_num_seqs=64, max_model_len=131072, gpu_memory_utilization=0.3)
    p = kvplan.fit("microsoft/Phi-3.5-mini-instruct", "H200", **kw)
    assert not p.fits and p.estimated_max_model_len == 72192
    fix = next(f for f in p.fixes if f.name == "lower max_model_len")
    best = fix.flags["max_model_len"]
    assert best == 80816 and fix.fits
    at = {n: kvplan.fit("microsoft/Phi-3.5-mini-instruct", "H200", **{**kw, "max_model_len": n}, fixes=False).fits
          for n in (best, best + 16)}
    assert at == {best: True, best + 16: False}
