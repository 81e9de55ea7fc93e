"""Audit findings on `kvplan fit`: fixes the user can pass as written, loads that run out of memory, inputs."""

from __future__ import annotations

import re

import pytest

import kvplan
from kvplan.resolve import resolve_model


def _apply(fix, model, gpu, **flags):
    """The plan after passing the fix exactly as it is written (a model replaces the positional argument)."""
    kw = dict(flags)
    kw.update({k: v for k, v in fix.flags.items() if k != "model"})
    if "gpu" in kw:
        gpu = kw.pop("gpu")
    return kvplan.fit(fix.flags.get("model", model), gpu, fixes=False, **kw)


# ---- the tensor-parallel fix: the smallest accepted size that starts


@pytest.mark.parametrize("model,gpu", [("Qwen/Qwen3-235B-A22B", "H100"), ("deepseek-ai/DeepSeek-R1", "8x H200")])
def test_tp_fix_is_the_smallest_accepted_size_that_starts(model, gpu):
    p = kvplan.fit(model, gpu)
    assert not p.fits
    tp_fixes = [f for f in p.fixes if "tensor_parallel_size" in f.flags]
    assert len(tp_fixes) == 1 and tp_fixes[0].fits
    tp = tp_fixes[0].flags["tensor_parallel_size"]
    assert tp > 2
    from kvplan.plan import accepted_tp_sizes

    for smaller in accepted_tp_sizes(resolve_model(model)):
        if 1 < smaller < tp:
            assert not kvplan.fit(model, gpu, fixes=False, tensor_parallel_size=smaller).fits
    assert kvplan.fit(model, gpu, fixes=False, tensor_parallel_size=tp).fits


def test_tp_fix_beyond_the_gpus_available_says_how_many_it_needs():
    p = kvplan.fit("Qwen/Qwen3-235B-A22B", "2x H100")
    (f,) = [f for f in p.fixes if "tensor_parallel_size" in f.flags]
    tp = f.flags["tensor_parallel_size"]
    assert tp > 2 and f.flags["num_gpus"] == tp
    assert f"needs {tp} GPUs; 2 available" in f.effect
    assert _apply(f, "Qwen/Qwen3-235B-A22B", "2x H100").fits


@pytest.mark.parametrize("model,gpu,flags", [
    ("Qwen/Qwen3-235B-A22B", "H100", {}),
    ("meta-llama/Llama-3.1-70B", "L4", {}),
    ("Qwen/Qwen3-8B", "T4", {}),
    ("Qwen/Qwen3-32B", "L40S", {}),
    ("meta-llama/Llama-3.1-8B-Instruct", "L4", {"max_model_len": 131072}),
])
def test_every_fix_can_be_passed_as_written_and_does_what_it_says(model, gpu, flags):
    p = kvplan.fit(model, gpu, **flags)
    assert not p.fits and p.fixes
    for f in p.fixes:
        assert not re.search(r"-\d[\d.]* GiB", f.effect), f.effect  # no negative memory
        assert _apply(f, model, gpu, **flags).fits == f.fits, f


def test_no_fix_names_a_quantization_the_checkpoint_lacks():
    p = kvplan.fit("Qwen/Qwen3-8B", "T4")
    assert not p.fits
    assert all(f.flags.get("quantization") in (None, "fp8") for f in p.fixes)


def test_a_quantized_catalog_checkpoint_is_offered_by_name():
    p = kvplan.fit("Qwen/Qwen3-235B-A22B", "H100")
    assert any(f.flags.get("model") == "Qwen/Qwen3-235B-A22B-FP8" for f in p.fixes)
    f = next(f for f in p.fixes if f.flags.get("model"))
    assert f.command_text.startswith("Qwen/Qwen3-235B-A22B-FP8")


# ---- weights beyond the GPU: the load runs out of memory


def test_weights_beyond_the_gpu_fail_while_loading_not_for_cache_blocks():
    p = kvplan.fit("meta-llama/Llama-3.1-70B", "L4")
    assert p.weights_bytes > p.total_bytes  # 70B in bf16 on a 24 GB card
    assert not p.fits and p.failure == "load"
    assert "out of memory while loading" in p.error
    assert "gpu_memory_utilization" not in p.error and "No available memory" not in p.error
    assert p.vllm_log[-1].startswith("torch.OutOfMemoryError")
    assert all("gpu_memory_utilization" not in f.flags for f in p.fixes)
    from kvplan.validate import uncertainty_band

    assert uncertainty_band(p) is None


def test_weights_within_the_card_but_beyond_the_budget_keep_vllms_error():
    # 8B bf16 (~15 GiB) on an L4 (21.95 GiB) at utilization 0.5: loads, then no memory for the cache blocks
    p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", gpu_memory_utilization=0.5, fixes=False)
    assert p.requested_bytes < p.weights_bytes < p.total_bytes
    assert p.failure == "memory" and p.error.startswith("No available memory for the cache blocks")


# ---- architectures a release does not register


def test_an_architecture_removed_before_the_release_does_not_start_and_the_fix_is_a_release_with_it():
    p = kvplan.fit("meta-llama/Llama-3.2-11B-Vision", "L40S", max_model_len=8192)  # newest rules
    assert not p.fits and p.failure == "architecture"
    assert "MllamaForConditionalGeneration was supported in vLLM until v0.10.2" in p.error
    assert p.vllm_log == ("ValueError: " + p.error,)
    from kvplan.validate import uncertainty_band

    assert uncertainty_band(p) is None
    (f,) = p.fixes
    assert f.flags == {"vllm_version": "0.10.2"}
    assert _apply(f, "meta-llama/Llama-3.2-11B-Vision", "L40S", max_model_len=8192).fits == f.fits
    assert kvplan.fit("meta-llama/Llama-3.2-11B-Vision", "L40S", max_model_len=8192, vllm_version="0.10.2").failure != "architecture"


def test_an_architecture_newer_than_the_release_is_refused_with_vllms_text():
    p = kvplan.fit("Qwen/Qwen3-8B", "H100", max_model_len=8192, vllm_version="0.7.3")
    assert p.failure == "architecture" and "Model architectures ['Qwen3ForCausalLM'] are not supported for now" in p.error
    assert kvplan.fit("Qwen/Qwen3-8B", "H100", max_model_len=8192, vllm_version="0.9.2").fits


@pytest.mark.parametrize("archs", [["FooBarForCausalLM"], None])
def test_an_unknown_architecture_is_a_warning_without_a_validated_band(tmp_path, archs):
    import json
    import warnings

    from kvplan.resolve import model_catalog
    from kvplan.validate import uncertainty_band

    cfg = dict(model_catalog()["meta-llama/Llama-3.1-8B-Instruct"]["config"])
    cfg.pop("architectures", None)
    if archs:
        cfg["architectures"] = archs
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no raw Python warning on stderr
        p = kvplan.fit(str(path), "L40S", max_model_len=8192)
    assert any("not in the registry of any vLLM release kvplan read" in w for w in p.warnings)
    assert uncertainty_band(p) is None
    assert uncertainty_band(kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L40S", max_model_len=8192)) is not None


def test_the_architecture_table_tool_reads_registries_out_of_wheels(tmp_path):
    import zipfile

    from repo_scripts import load_script

    tool = load_script("tools/build_architectures.py", "build_architectures")
    registries = {"0.9.0": '_TEXT_GENERATION_MODELS = {"A": ("a", "A"), "Gone": ("g", "G")}\n',
                  "0.10.0": '_TEXT_GENERATION_MODELS = {"A": ("a", "A"), "New": ("n", "N")}\n'
                            '_VLLM_MODELS = {**_TEXT_GENERATION_MODELS}\n_PREVIOUSLY_SUPPORTED_MODELS = {"Gone": "0.9.1"}\n'}
    wheels = []
    for version, text in registries.items():
        w = tmp_path / f"vllm-{version}-cp38-abi3-manylinux1_x86_64.whl"
        with zipfile.ZipFile(w, "w") as z:
            z.writestr("vllm/model_executor/models/registry.py", text)
        wheels.append(str(w))
    table = tool.build(wheels)
    assert table["versions_read"] == ["0.9.0", "0.10.0"]
    rows = table["architectures"]
    assert rows["A"] == {"first_read": "0.9.0", "last_read": "0.10.0"}
    assert rows["Gone"] == {"first_read": "0.9.0", "last_read": "0.9.0", "missing_from": "0.10.0", "supported_until": "0.9.1"}
    assert rows["New"] == {"first_read": "0.10.0", "last_read": "0.10.0", "missing_before": "0.9.0"}


# ---- the KV-per-token line of window-only models


def test_an_all_sliding_window_model_states_its_bytes_per_token_up_to_the_window():
    from kvplan.render import kv_per_token_text

    p = kvplan.fit("microsoft/Phi-3.5-mini-instruct", "H100", fixes=False)
    # Phi-3.5-mini: 32 layers x 32 KV heads x 96 head_dim x (K and V) x 2 bytes, every layer windowed
    per_token = 2 * 32 * 32 * 96 * 2
    text = kv_per_token_text(p)
    assert not text.startswith("0 B")
    assert f"{per_token:,} B" in text and f"at most its last {p.args.max_model_len:,} tokens there" in text
    assert p.kv_bytes_per_token == 0  # the plan's arithmetic is unchanged: window layers are a per-sequence cost
    full = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", fixes=False)
    assert kv_per_token_text(full) == f"{full.kv_bytes_per_token:,.0f} B ({full.kv_bytes_per_token / 1024:.1f} KiB) per rank"


# ---- --concurrency with --max-model-len auto


@pytest.mark.parametrize("value", [-1, 0, 0.5, 2.5])
def test_concurrency_must_be_a_whole_positive_number(value):
    from kvplan.api import max_model_len_for_concurrency
    from kvplan.errors import InputError

    base = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", fixes=False)
    with pytest.raises(InputError, match="--concurrency: must be a whole number"):
        max_model_len_for_concurrency(base, value)


def test_concurrency_beyond_max_num_seqs_is_refused_naming_the_flag():
    from kvplan.api import max_model_len_for_concurrency
    from kvplan.errors import InputError

    base = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", fixes=False)
    seqs = base.args.max_num_seqs
    with pytest.raises(InputError, match=f"--max-num-seqs {seqs + 44}"):
        max_model_len_for_concurrency(base, seqs + 44)
    raised = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", fixes=False, max_num_seqs=seqs + 44)
    assert max_model_len_for_concurrency(raised, seqs + 44)


@pytest.mark.parametrize("model", ["Qwen/Qwen3-32B", "google/gemma-3-27b-it", "Qwen/Qwen3-Next-80B-A3B-Instruct"])
@pytest.mark.parametrize("gpu", ["L4", "RTX 4090", "A100 40GB"])
def test_every_fix_applied_as_written_gives_the_verdict_it_states(model, gpu):
    # a fix is flags a user can pass; passing them must reproduce the fix's own verdict (over the catalog models and
    # GPUs of this grid; 174 fixes of 7 catalog models x 6 GPUs x 2 contexts agreed when the grid was widened by hand)
    import kvplan
    for mml in (None, 32768):
        base = {"max_model_len": mml} if mml else {}
        p = kvplan.fit(model, gpu, detect_gpu=False, **base)
        for f in p.fixes:
            kw = dict(f.flags)
            q = kvplan.fit(kw.pop("model", model), kw.pop("gpu", gpu), detect_gpu=False, fixes=False, **{**base, **kw})
            assert bool(q.fits) == bool(f.fits), (f.name, f.flags, q.error)
