"""`kvplan scaffold`'s launch flags against what each vLLM release's `vllm serve` accepts and does with them.

The facts are vLLM's, read in the release wheels (the file is named beside each): argparse choices, how a checkpoint's
own quantization config is taken, the --limit-mm-per-prompt format.
"""

from __future__ import annotations

import json
import shlex
import subprocess

import pytest

import kvplan
from kvplan.deploy import render_files, spec_from_plan
from kvplan.render import source_label
from kvplan.resolve import catalog_lookup
from kvplan.versions import serve_quantization


def _argv(plan) -> list[str]:
    return spec_from_plan(plan).serve_argv()


def _value(argv: list[str], flag: str):
    return argv[argv.index(flag) + 1] if flag in argv else None


def test_a_checkpoint_that_declares_its_quantization_in_config_json_gets_no_quantization_flag():
    """vLLM takes a config.json quantization_config's method when --quantization is not given (ModelConfig.
    _verify_quantization, every release). Writing the flag could only change that: for an NVFP4 ModelOpt checkpoint the
    scaffold wrote `--quantization modelopt`, the name of vLLM's FP8 ModelOpt method (the plan's method is
    modelopt_fp4); for an AWQ checkpoint `--quantization awq`, which makes 0.5-0.21 force the slow AWQ kernels
    instead of the awq_marlin ones they pick themselves (awq_marlin.py: "you specified quantization=awq explicitly,
    so forcing awq")."""
    config = catalog_lookup("nvidia/Gemma-4-31B-IT-NVFP4")["config"]
    assert config["quantization_config"]["quant_method"] == "modelopt"  # declared in config.json
    nvfp4 = kvplan.fit("nvidia/Gemma-4-31B-IT-NVFP4", "B200", max_model_len=8192, vllm_version="0.33.0")
    assert nvfp4.fits and "--quantization" not in _argv(nvfp4)
    awq = kvplan.fit("Qwen/Qwen2.5-72B-Instruct-AWQ", "H100", max_model_len=8192, tensor_parallel_size=2,
                     vllm_version="0.12.0")
    assert awq.fits and "--quantization" not in _argv(awq)
    # the method given is written as given (vLLM's spelling): awq_marlin stays awq_marlin, not the family name awq
    given = kvplan.fit("Qwen/Qwen2.5-72B-Instruct-AWQ", "H100", max_model_len=8192, tensor_parallel_size=2,
                       vllm_version="0.12.0", quantization="awq_marlin")
    assert _value(_argv(given), "--quantization") == "awq_marlin"
    online = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192, quantization="FP8")
    assert _value(_argv(online), "--quantization") == "fp8"  # an unquantized checkpoint: the flag is what quantizes


def test_a_modelopt_checkpoint_declared_only_in_hf_quant_config_needs_the_flag_before_0_10_1():
    """vLLM reads hf_quant_config.json itself from 0.10.1 (transformers_utils/config.py get_config; not in the 0.10.0
    wheel): before, a ModelOpt export whose config.json has no quantization_config loads as unquantized unless
    --quantization names vLLM's ModelOpt method."""
    assert "quantization_config" not in catalog_lookup("nvidia/Llama-3.1-70B-Instruct-FP8")["config"]
    for version, expected in (("0.9.2", "modelopt"), ("0.10.0", "modelopt"), ("0.10.1", None), ("0.33.0", None)):
        plan = kvplan.fit("nvidia/Llama-3.1-70B-Instruct-FP8", "H100", max_model_len=8192, tensor_parallel_size=4,
                          vllm_version=version)
        assert _value(_argv(plan), "--quantization") == expected, version


def test_a_given_quantization_is_written_in_vllms_spelling():
    # QUANTIZATION_METHODS (model_executor/layers/quantization/__init__.py) spells these with "-": argparse refuses
    # the "_" forms (its choices come from the QuantizationMethods Literal)
    assert serve_quantization("auto_round", None, False, "0.12.0") == "auto-round"
    assert serve_quantization("Compressed_Tensors", None, False, "0.12.0") == "compressed-tensors"
    assert serve_quantization(None, "modelopt_fp4", True, "0.9.0") == "modelopt_fp4"
    assert serve_quantization(None, "modelopt_fp4", False, "0.9.0") is None


# --block-size's argparse choices (config/cache.py BlockSize Literal: 1-128 in 0.8.5-0.11.0, 1-256 in 0.11.1-0.17; any
# positive int from 0.18)
BLOCK_CHOICES = {"0.10.2": {1, 8, 16, 32, 64, 128}, "0.11.1": {1, 8, 16, 32, 64, 128, 256}, "0.12.0": {1, 8, 16, 32, 64, 128, 256}}


@pytest.mark.parametrize("version", sorted(BLOCK_CHOICES))
def test_a_hybrid_models_aligned_block_size_is_left_to_vllm(version):
    """The planner aligns a hybrid's attention block size to its state pages (272 tokens for Qwen3-Next at TP 4);
    written as --block-size 272 argparse refuses it up to 0.17, and from 0.18 it would mark the size user-specified.
    vLLM derives it itself, so only a given --block-size is written."""
    plan = kvplan.fit("Qwen/Qwen3-Next-80B-A3B-Instruct", "H100", max_model_len=8192, tensor_parallel_size=4,
                      vllm_version=version)
    assert plan.block_size not in BLOCK_CHOICES[version]  # the aligned size: not a value the release's flag takes
    argv = _argv(plan)
    assert "--block-size" not in argv
    said = f"blocks           {plan.num_gpu_blocks:,} of {plan.block_size} tokens"  # the size stays in the arithmetic
    assert any(line.startswith(said) for line in spec_from_plan(plan).arithmetic)
    given = kvplan.fit("Qwen/Qwen3-8B", "H100", max_model_len=8192, block_size=32, vllm_version=version)
    assert _value(_argv(given), "--block-size") == "32"


def test_a_given_block_size_a_hybrid_raises_is_written_as_given():
    """Found by a sweep: Falcon-H1 with --block-size 16 on 0.11 plans a 1568-token block (vLLM raises the size to
    align attention pages with the Mamba state pages), and serve.sh wrote --block-size 1568, which 0.11's argparse
    (choices up to 128) refuses: scaffold failed where fit planned a start. The flag keeps the value given."""
    plan = kvplan.fit("tiiuae/Falcon-H1-7B", "H100", max_model_len=4096, block_size=16, vllm_version="0.11.0")
    assert plan.fits and plan.block_size == 1568
    argv = _argv(plan)
    assert _value(argv, "--block-size") == "16"
    serve = render_files(spec_from_plan(plan))["serve.sh"]
    assert "vLLM raises 16 to 1568" in serve


def test_data_parallel_arithmetic_counts_every_gpu_the_top_line_counts():
    plan = kvplan.fit("Qwen/Qwen3-8B", "H100", max_model_len=8192, tensor_parallel_size=2, data_parallel_size=2)
    spec = spec_from_plan(plan)
    serve = render_files(spec)["serve.sh"]
    assert "on 4 x NVIDIA H100" in serve
    gpu_line = next(line for line in spec.arithmetic if line.startswith("GPU"))
    assert " x 4 (2 engines of TP 2 x PP 1):" in gpu_line
    assert all(line.endswith("per engine (x 2 engines)") for line in spec.arithmetic
               if line.startswith(("max concurrency", "KV cache tokens")))
    compose = render_files(spec)["docker-compose.yml"]
    assert "count: 4" in compose


@pytest.mark.parametrize("version,given,expected", [
    # 0.5.5-0.8.4: nullable_kvs parses "image=2" and refuses JSON (engine/arg_utils.py)
    ("0.6.3", '{"image": 2}', "image=2"),
    # from 0.8.5 JSON (optional_type(json.loads)); the key=value form is deprecated there
    ("0.33.0", "image=2,video=0", '{"image":2,"video":0}'),
    ("0.33.0", '{"image": 2, "video": 0}', '{"image": 2, "video": 0}'),
])
def test_limit_mm_per_prompt_is_written_in_the_format_the_release_parses(version, given, expected):
    model = "llava-hf/llava-1.5-7b-hf" if version < "0.7" else "Qwen/Qwen3-VL-2B-Instruct"
    plan = kvplan.fit(model, "H100", max_model_len=4096, limit_mm_per_prompt=given, vllm_version=version)
    value = _value(_argv(plan), "--limit-mm-per-prompt")
    assert value == expected
    if version >= "0.8.5":
        assert json.loads(value)["image"] == 2


def test_every_serve_sh_of_a_spread_is_valid_bash_and_takes_only_values_the_release_has(tmp_path):
    """Catalog models x releases x TP/PP/DP x quantized checkpoints: bash -n passes, and every --block-size and
    --quantization written is one the release's argparse accepts."""
    cases = [("meta-llama/Llama-3.1-8B-Instruct", "L4", "0.6.3", {}),
             ("Qwen/Qwen3-Next-80B-A3B-Instruct", "H100", "0.12.0", {"tensor_parallel_size": 4}),
             ("ibm-granite/granite-4.0-h-small", "H100", "0.14.1", {}),
             ("deepseek-ai/DeepSeek-V2-Lite", "H100", "0.9.2", {}),
             ("openai/gpt-oss-20b", "H100", "0.10.2", {}),
             ("Qwen/Qwen3-32B-FP8", "H100", "0.9.2", {"tensor_parallel_size": 2, "pipeline_parallel_size": 2}),
             ("nvidia/Qwen3.6-35B-A3B-NVFP4", "B200", "0.33.0", {"data_parallel_size": 2})]
    for model, gpu, version, extra in cases:
        plan = kvplan.fit(model, gpu, max_model_len=8192, vllm_version=version, **extra)
        argv = _argv(plan)
        block = _value(argv, "--block-size")
        assert block is None or int(block) in BLOCK_CHOICES.get(version, {int(block)}), (model, version, block)
        assert "--quantization" not in argv, (model, version)  # each declares its own in config.json
        serve = tmp_path / f"{model.replace('/', '_')}-{version}.sh"
        serve.write_text(render_files(spec_from_plan(plan))["serve.sh"])
        assert subprocess.run(["bash", "-n", str(serve)]).returncode == 0, shlex.join(argv)


def test_the_gpu_sources_label_has_no_brackets_inside_the_brackets_it_is_shown_in():
    assert source_label("CUDA total (deviceQuery / torch): shared/data/gpus.json") == "CUDA total, deviceQuery / torch"
    assert source_label("seen in a vLLM startup log: https://example.org/x") == "seen in a vLLM startup log"


@pytest.mark.parametrize("value,before,first", [("bfloat16", "0.10.2", "0.11.0"), ("fp8_e4m3", "0.4.2", "0.4.3")])
def test_a_kv_cache_dtype_the_release_does_not_take_is_refused_naming_the_flag(value, before, first):
    """--kv-cache-dtype's choices grew after the flag (CacheDType in config/cache.py: bfloat16 from 0.11.0; 0.4.2's
    argparse takes auto and fp8 only): a launch file with a value its release lacks would not start."""
    from kvplan.errors import InputError

    with pytest.raises(InputError) as exc:  # the plan refuses it (scaffold plans first), as the launch files would
        kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192, kv_cache_dtype=value,
                   vllm_version=before)
    assert exc.value.field == "--kv-cache-dtype" and f"first in vLLM {first}" in str(exc.value)
    later = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192, kv_cache_dtype=value,
                       vllm_version=first)
    assert _value(_argv(later), "--kv-cache-dtype") == value


@pytest.mark.parametrize("version,size,ok", [("0.6.3", 64, False), ("0.6.4", 64, True), ("0.11.0", 256, False),
                                             ("0.11.1", 256, True), ("0.12.0", 256, True), ("0.17.0", 96, False), ("0.18.0", 96, True),
                                             ("0.29.0", 96, True), ("0.5.0", 24, False)])
def test_a_given_block_size_the_release_does_not_take_is_refused_naming_the_flag(version, size, ok):
    """--block-size choices by release: 8-32 up to 0.6.3 (engine/arg_utils.py), 64 and 128 in 0.6.4, 256 from 0.11.1
    (config/cache.py BlockSize), any positive int from 0.18 (block_size: int; a public 0.29.0 smoke test started
    gpt-oss-20b on an L4 with --block-size 96). Releases older than the flags read keep the oldest choices."""
    from kvplan.errors import InputError

    def plan():
        return kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192, block_size=size,
                          vllm_version=version)

    if ok:
        assert _value(_argv(plan()), "--block-size") == str(size)
        return
    with pytest.raises(InputError) as exc:  # the plan refuses it (scaffold plans first), as the launch files would
        plan()
    assert exc.value.field == "--block-size" and "drop --block-size" in str(exc.value)


def test_a_block_size_no_release_takes_is_refused_whatever_the_release():
    from kvplan.errors import InputError

    for size in (0, -16):
        with pytest.raises(InputError, match="positive") as exc:
            kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192, block_size=size)
        assert exc.value.field == "--block-size"


@pytest.mark.parametrize("version,size,model,slow", [
    ("0.20.0", 96, "meta-llama/Llama-3.1-8B-Instruct", False), ("0.20.0", 7, "meta-llama/Llama-3.1-8B-Instruct", True),
    ("0.17.0", 8, "meta-llama/Llama-3.1-8B-Instruct", True), ("0.15.0", 8, "meta-llama/Llama-3.1-8B-Instruct", False),
    ("0.29.0", 96, "meta-llama/Llama-3.1-8B-Instruct", False), ("0.20.0", 7, "deepseek-ai/DeepSeek-V2-Lite", False)])
def test_a_block_size_the_fast_attention_kernels_refuse_is_warned_as_flexattention(version, size, model, slow):
    """From 0.16 (v1/attention/backend.py supports_block_size; FlashAttention and Triton MultipleOf(16), FlashInfer
    16/32/64, FlexAttention any up to 0.20, last in platforms/cuda.py's list) a --block-size off the multiples of 16
    starts on FlexAttention; MLA backends have their own sizes, and releases before 0.16 were not read: no warning
    there. (From 0.21 FlexAttention refuses it too: the next test.)"""
    p = kvplan.fit(model, "H100", max_model_len=8192, block_size=size, vllm_version=version)
    assert p.fits and any("FlexAttention" in w for w in p.warnings) is slow


@pytest.mark.parametrize("version,kv,flex", [
    ("0.19.0", "fp8", "kv_cache_dtype not supported"), ("0.20.0", "fp8", "kv_cache_dtype not supported"),
    ("0.21.0", "auto", "block_size not supported"), ("0.29.0", "auto", "block_size not supported"),
    ("0.33.0", "fp8", "kv_cache_dtype not supported, block_size not supported")])
def test_a_block_size_no_attention_backend_takes_is_refused(version, kv, flex):
    """A --block-size off the multiples of 16 left FlexAttention, last in platforms/cuda.py's list, as the one backend;
    it stores no fp8 KV cache (supported_kv_cache_dtypes auto/bfloat16 in 0.16-0.17, auto/float16/bfloat16 from 0.18) and from 0.21.0
    takes only multiples of 16 itself (FlexAttentionBackend.get_supported_kernel_block_sizes MultipleOf(16); the 0.19.0
    and 0.20.0 wheels keep the base class's MultipleOf(1)). Then no backend is valid and vLLM stops with "No valid
    attention backend found" (CudaPlatform.get_attn_backend_cls), where the plan said it starts on FlexAttention. The
    fixes each start: a multiple of 16, and the model's dtype for the cache where FlexAttention takes the size."""
    kw = dict(max_model_len=8192, vllm_version=version)
    p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", block_size=8, kv_cache_dtype=kv, **kw)
    assert not p.fits and p.failure == "platform"
    assert p.error.startswith(f"No valid attention backend found for cuda with block_size=8, kv_cache_dtype={kv}")
    assert p.error.endswith(f"FLEX_ATTENTION: [{flex}].") and p.vllm_log == ("ValueError: " + p.error,)
    assert not any("FlexAttention" in w for w in p.warnings)
    want = [{"block_size": 16}] + ([{"kv_cache_dtype": "auto"}] if version < "0.21" else [])
    assert [f.flags for f in p.fixes] == want and all(f.fits for f in p.fixes)
    for f in p.fixes:
        q = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", **{"block_size": 8, "kv_cache_dtype": kv, **f.flags}, **kw)
        assert q.fits
    assert kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", block_size=32, kv_cache_dtype=kv, **kw).fits
    # 0.16-0.18 store no fp8 KV cache in FlexAttention either (auto/bfloat16 in the 0.16.0 and 0.17.0 wheels, float16
    # too in 0.18.0): refused there as well, where an auto cache still falls back to it
    for old_version in ("0.16.0", "0.17.0", "0.18.0"):
        old = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", block_size=8, kv_cache_dtype="fp8",
                         max_model_len=8192, vllm_version=old_version)
        assert old.failure == "platform" and "FLEX_ATTENTION: [kv_cache_dtype not supported]" in old.error, old_version
        assert [f.flags for f in old.fixes] == [{"block_size": 16}, {"kv_cache_dtype": "auto"}]
        auto = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", block_size=8, max_model_len=8192,
                          vllm_version=old_version)
        assert auto.fits and any("falls back to FlexAttention" in w for w in auto.warnings)
    assert kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", block_size=8, kv_cache_dtype="fp8", max_model_len=8192,
                      vllm_version="0.15.0").fits  # before 0.16 the backends' block sizes were not read


def test_vllm_use_v1_0_is_refused_for_0_11_0_whose_server_stops_on_it():
    """0.11.0 removed the V0 engine but still reads VLLM_USE_V1: with 0 its engine config picks no V1 and the API server
    asserts V1 (entrypoints/openai/api_server.py); 0.10 runs V0 with it, 0.11.1 no longer reads it (vllm/envs.py)."""
    from kvplan.errors import InputError

    def plan(version):
        return kvplan.fit("Qwen/Qwen3-8B", "H100", max_model_len=8192, env={"VLLM_USE_V1": "0"}, vllm_version=version)

    with pytest.raises(InputError) as exc:  # the plan refuses it (scaffold plans first), as the launch files would
        plan("0.11.0")
    assert exc.value.field == "--env" and "VLLM_USE_V1=0" in str(exc.value)
    for version in ("0.10.2", "0.11.1"):
        assert ("VLLM_USE_V1", "0") in spec_from_plan(plan(version)).env


@pytest.mark.parametrize("version,flag", [("0.6.4", ["--task", "embedding"]), ("0.6.5", ["--task", "embed"]),
                                          ("0.10.1", ["--runner", "pooling"])])
def test_a_pooling_model_is_served_with_the_task_name_its_release_takes(version, flag):
    """--task came in 0.6.4 taking "auto", "generate" and "embedding" only; "embed" is in 0.6.5's TaskOption
    (vllm/config.py), and --runner pooling replaced --task in 0.10.1."""
    plan = kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "L4", max_model_len=4096, runner="pooling", vllm_version=version)
    argv = _argv(plan)
    assert argv[argv.index(flag[0]):argv.index(flag[0]) + 2] == flag


def test_the_max_model_len_comment_states_no_equality_the_numbers_break():
    """For a hybrid in 0.12 the KV-cache tokens vLLM logs are blocks // groups x block size, not concurrency x length:
    the comment said 'KV pool holds 608,736 tokens = 72.20 sequences of 32,768 tokens' (608,736 / 32,768 = 18.6)."""
    plan = kvplan.fit("Qwen/Qwen3-Next-80B-A3B-Instruct", "H100", max_model_len=32768, tensor_parallel_size=4,
                      vllm_version="0.12.0")
    assert abs(plan.kv_cache_tokens / 32768 - plan.max_concurrency) > 1  # the two counts differ here
    why = next(f.why for f in spec_from_plan(plan).flags if f.name == "--max-model-len")
    assert f"{plan.max_concurrency:.2f} concurrent sequences of 32,768 tokens" in why
    assert f"{plan.kv_cache_tokens:,} KV-cache tokens" in why and "=" not in why


def test_the_dtype_and_max_num_seqs_comments_say_where_the_value_came_from():
    """A bfloat16 checkpoint on a T4 (cc 7.5) runs float16: the comment called it 'checkpoint dtype'; a given
    --max-num-seqs was called the 'version default'."""
    plan = kvplan.fit("Qwen/Qwen2.5-1.5B-Instruct", "T4", max_model_len=4096, max_num_seqs=64, vllm_version="0.10.2")
    assert str(plan.model.dtype).replace("torch.", "") == "bfloat16" and plan.args.dtype == "float16"
    why = {f.name: f.why for f in spec_from_plan(plan).flags}
    assert "checkpoint dtype" not in why["--dtype"] and "auto" in why["--dtype"]
    assert "default" not in why["--max-num-seqs"] and "as given" in why["--max-num-seqs"]


def test_a_release_older_than_the_checkpoints_quantization_method_is_refused():
    """ModelOpt's FP8 method is first in 0.6.1 (modelopt.py): 0.5.5 refuses --quantization modelopt (argparse choices)
    and cannot load the checkpoint without it."""
    from kvplan.errors import InputError

    plan = kvplan.fit("nvidia/Llama-3.1-70B-Instruct-FP8", "H100", max_model_len=8192, tensor_parallel_size=4,
                      vllm_version="0.5.5")
    with pytest.raises(InputError) as exc:
        spec_from_plan(plan)
    assert exc.value.field == "--vllm-version" and "first in vLLM 0.6.1" in str(exc.value)


def test_a_multi_line_log_line_stays_a_comment_in_serve_sh(tmp_path):
    """vLLM 0.7.3's memory-profiling summary spans lines; serve.sh commented only its first, and bash -n failed on the
    second ("the current vLLM instance can use total_gpu_memory (...)")."""
    plan = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192, vllm_version="0.7.3")
    assert any("\n" in line for line in plan.vllm_log)
    serve = tmp_path / "serve.sh"
    serve.write_text(render_files(spec_from_plan(plan))["serve.sh"])
    assert subprocess.run(["bash", "-n", str(serve)], capture_output=True).returncode == 0


def test_data_parallel_over_nodes_places_its_engines_with_ray():
    """TP 8 x DP 2 spans two 8-GPU nodes. vLLM's default data-parallel backend ("mp") starts every engine on the node
    it runs on; "--data-parallel-backend ray" (first in the 0.9.1 wheel's arg_utils.py) places them on the Ray cluster
    the LeaderWorkerSet builds."""
    from kvplan.errors import InputError

    plan = kvplan.fit("Qwen/Qwen3-8B", "H100", max_model_len=8192, tensor_parallel_size=8, data_parallel_size=2)
    spec = spec_from_plan(plan)
    assert spec.multi_node and _value(spec.serve_argv(), "--data-parallel-backend") == "ray"
    assert "k8s/leaderworkerset.yaml" in render_files(spec)
    single = kvplan.fit("Qwen/Qwen3-8B", "H100", max_model_len=8192, tensor_parallel_size=2, data_parallel_size=2)
    assert "--data-parallel-backend" not in _argv(single)  # one node: the default backend starts them there
    old = kvplan.fit("Qwen/Qwen3-8B", "H100", max_model_len=8192, tensor_parallel_size=8, data_parallel_size=2,
                     vllm_version="0.9.0")
    with pytest.raises(InputError) as exc:
        spec_from_plan(old)
    assert exc.value.field == "--data-parallel-backend"


def test_a_lora_rank_the_release_refuses_is_refused_naming_the_flag():
    """LoRAConfig takes ranks 8-256 in 0.7.3 (possible_max_ranks, vllm/config.py) and 1 only from 0.11.1 (MaxLoRARanks):
    vLLM stops at startup on any other."""
    from kvplan.errors import InputError

    for version, rank in (("0.7.3", 512), ("0.11.0", 1)):
        with pytest.raises(InputError) as exc:  # the plan refuses it (scaffold plans first), as the launch files would
            kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192, enable_lora=True,
                       max_lora_rank=rank, vllm_version=version)
        assert exc.value.field == "--max-lora-rank", version
    plan = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192, enable_lora=True,
                      max_lora_rank=512, vllm_version="0.8.5")
    assert _value(_argv(plan), "--max-lora-rank") == "512"


@pytest.mark.parametrize("value,before,first", [("float16", "0.12.0", "0.13.0"), ("bfloat16", "0.21.0", "0.22.0")])
def test_a_mamba_ssm_cache_dtype_the_release_lacks_is_refused_naming_the_flag(value, before, first):
    """MambaDType (config/cache.py): auto and float32 from 0.10.1, float16 from 0.13.0, bfloat16 from 0.22.0."""
    from kvplan.errors import InputError

    def plan(version):
        return kvplan.fit("ibm-granite/granite-4.0-h-small", "H100", max_model_len=8192, mamba_ssm_cache_dtype=value,
                          vllm_version=version)

    with pytest.raises(InputError) as exc:
        spec_from_plan(plan(before))
    assert exc.value.field == "--mamba-ssm-cache-dtype" and f"first in vLLM {first}" in str(exc.value)
    assert _value(_argv(plan(first)), "--mamba-ssm-cache-dtype") == value


@pytest.mark.parametrize("version,expected", [("0.5.2", None), ("0.6.6", ["--enable-chunked-prefill", "False"]),
                                              ("0.8.4", ["--enable-chunked-prefill", "False"]),
                                              ("0.8.5", ["--no-enable-chunked-prefill"])])
def test_chunked_prefill_is_turned_off_the_way_the_release_parses(version, expected):
    """--enable-chunked-prefill is store_true up to 0.5.2 (off by default, no automatic chunking before 0.5.4), a
    StoreBoolean taking True/False in 0.5.3-0.8.4 (no --no- form: argparse would refuse it), and a
    BooleanOptionalAction from 0.8.5 (engine/arg_utils.py)."""
    plan = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=4096, enable_chunked_prefill=False,
                      vllm_version=version)
    argv = _argv(plan)
    found = [a for a in argv if "chunked-prefill" in a]
    if expected is None:
        assert found == []
        return
    i = argv.index(expected[0])
    assert argv[i:i + len(expected)] == expected and len(found) == 1
    on = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=4096, enable_chunked_prefill=True,
                    vllm_version=version)
    assert "--enable-chunked-prefill" in _argv(on) and "False" not in _argv(on)


def test_prefix_caching_off_before_0_6_5_is_the_default_and_is_not_written():
    """--enable-prefix-caching is store_true before 0.6.5 and V0 keeps it off by default; --no-enable-prefix-caching
    (BooleanOptionalAction) is first in 0.6.5."""
    plan = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=4096, enable_prefix_caching=False,
                      vllm_version="0.6.3")
    assert not any("prefix-caching" in a for a in _argv(plan))
    later = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=4096, enable_prefix_caching=False,
                       vllm_version="0.6.5")
    assert "--no-enable-prefix-caching" in _argv(later)


def test_a_refused_plans_switch_fix_is_printed_as_the_bare_flag(tmp_path):
    """scaffold prints a refused plan's fixes as fit does (Fix.command_text): a switch is the flag alone, which
    vllm serve takes ('--enforce-eager True' it refuses)."""
    import subprocess

    # half its context: at the full 262,144 the newest rules refuse the length first (model runner v2's sampler state)
    r = subprocess.run(["kvplan", "scaffold", str(tmp_path / "out"), "Qwen/Qwen3.5-27B", "--gpu", "H100", "--max-model-len", "131072"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "Mamba cache blocks" in r.stderr
    assert "try: --enforce-eager  (" in r.stderr and "--enforce-eager True" not in r.stderr


_DRAFT = '{"method": "draft_model", "model": "meta-llama/Llama-3.2-1B-Instruct", "num_speculative_tokens": 3}'


def test_a_drafter_checkpoint_is_downloaded_by_the_init_container_and_counted_in_the_startup():
    # the init container fetched only the target model, so vLLM downloaded the drafter inside the startupProbe's
    # window (sized as 'never a download'), and neither the download time nor the PVC counted it

    plan = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192, speculative_config=_DRAFT)
    alone = spec_from_plan(kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192))
    spec = spec_from_plan(plan)
    draft = plan.speculative["draft_weights_bytes"]
    assert spec.draft_model_id == "meta-llama/Llama-3.2-1B-Instruct" and spec.draft_weights_bytes == draft > 2 * 2**30
    assert spec.startup_first.download_s > alone.startup_first.download_s * (1 + 0.9 * draft / alone.weights_bytes_total)
    files = render_files(spec)
    init = files["k8s/deployment.yaml"].split("containers:")[0]
    assert "snapshot_download('meta-llama/Llama-3.1-8B-Instruct'" in init
    assert "snapshot_download('meta-llama/Llama-3.2-1B-Instruct', revision='main'" in init
    assert "(with the drafter's)" in files["k8s/pvc.yaml"]
    # MTP and n-gram drafting fetch nothing more
    ngram = spec_from_plan(kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192,
                                      speculative_config='{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}'))
    assert ngram.draft_model_id is None and ngram.startup_first == alone.startup_first
    assert "n-gram drafting: no drafter weights" in render_files(ngram)["serve.sh"]


def test_the_drafters_bytes_are_the_whole_checkpoint_at_any_tp_and_preflight_counts_them():
    from kvplan.deploy import hub_drafter
    from kvplan.preflight import request_from_plan

    one = hub_drafter(kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192, speculative_config=_DRAFT))
    two = hub_drafter(kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192, speculative_config=_DRAFT,
                                 tensor_parallel_size=2))
    assert one[0] == two[0] == "meta-llama/Llama-3.2-1B-Instruct"
    assert abs(two[2] - one[2]) < 0.02 * one[2]  # the plan counts it per rank: 2 x half of it
    plan = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192, speculative_config=_DRAFT)
    alone = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192)
    assert request_from_plan(plan).weights_bytes == request_from_plan(alone).weights_bytes + one[2]


def test_a_sliding_window_model_is_refused_from_0_21_and_not_promised_flexattention_before():
    """gpt-oss and Gemma 3 keep sliding-window layers (kvplan groups them as a hybrid of attention kinds, with no
    recurrent state): from 0.21 FlexAttention takes no block size off the multiples of 16 either, so vLLM finds no
    backend for them as for a dense model; before, whether FlexAttention serves them (gpt-oss's sinks, Gemma 2's
    soft-capping) was not read for every family, so no fallback is promised. A recurrent hybrid keeps vLLM's own
    attention block size and is not judged by the flag."""
    for model in ("openai/gpt-oss-20b", "google/gemma-3-27b-it"):
        new = kvplan.fit(model, "H100", max_model_len=8192, block_size=8, vllm_version="0.29.0")
        assert new.failure == "platform" and new.error.startswith("No valid attention backend found")
        assert any(f.flags == {"block_size": 16} and f.fits for f in new.fixes)
        old = kvplan.fit(model, "H100", max_model_len=8192, block_size=8, vllm_version="0.20.0")
        assert old.failure != "platform" and not any("FlexAttention" in w for w in old.warnings)
    hybrid = kvplan.fit("Qwen/Qwen3.5-27B", "H100", max_model_len=8192, block_size=8, vllm_version="0.29.0")
    assert hybrid.failure != "platform"
