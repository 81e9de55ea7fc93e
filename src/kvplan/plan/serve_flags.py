"""The vllm serve flags the planner resolves and checks on their own, each against its release's rows in versions.py:
--enable-sleep-mode, --load-format, --[no-]async-scheduling, --moe-backend, --calculate-kv-scales and
--mamba-block-size. What they move is small or nothing (the weights' block
rounding under sleep mode, a sliding-window request's in-flight tokens under async scheduling); what they decide is
which starts vLLM refuses and what the plan says. One section each.

## --enable-sleep-mode

vLLM's --enable-sleep-mode (ModelConfig.enable_sleep_mode, vLLM PR #11743): the weights and the KV cache are
allocated in the CuMem allocator's pools (vllm/device_allocator/cumem.py CuMemAllocator, tags "weights" and
"kv_cache"), so that sleep() can offload the weights to CPU memory and discard the KV cache, and wake_up() map them
again. RL frameworks (verl, OpenRLHF) start vLLM this way.

What it changes at startup (facts per release in versions.py: rows sleep_mode_*):
- nothing in the budget: the pools are PyTorch MemPools over a pluggable allocator, so every tensor in them goes
  through the caching allocator (its 2 MiB blocks, its allocated-bytes counters), and "Model loading took"
  (max_memory_allocated), the profile's torch peak and the non-torch memory read them as without the pools
  (vllm/utils.py / utils/mem_utils.py memory_profiling, 0.7.2-0.26.0; total_consumed from mem_get_info from 0.27.0).
  The KV cache's blocks are counted before the pool allocates them (gpu_worker.py initialize_from_config).
- vLLM's refusals: a platform without the allocator (rows sleep_mode_vendors, sleep_mode_platform_refusal) and, in
  0.8.0-0.20.0, expandable_segments:True in PYTORCH_CUDA_ALLOC_CONF (row sleep_mode_expandable); PyTorch's own
  MemPool check where the option comes from PYTORCH_ALLOC_CONF, which vLLM does not look at up to 0.30 and the torch
  it pins reads first from 0.11.1 (rows sleep_mode_expandable_seen, torch_alloc_conf_env).
- from 0.20.1, expandable segments are turned off inside the pools, so the weights keep the 2 MiB-block rounding
  (sleep_pool_keeps_block_rounding, used by plan.planner).
- risks kvplan does not size, said as warnings: the weights outside the pool in 0.14.0-0.16.x, a checkpoint whose
  weights are converted after loading, whose freed pool segments vLLM's accounting misreads (0.11-0.26) or the pool
  keeps (pytorch#159674), and expandable segments in 0.7.x, which vLLM does not check yet.
- vLLM 0.34's extensible KV cache stays on under sleep mode and outside the pools (the note says so).

## --load-format

--load-format (vLLM's LoadConfig.load_format): which model loader reads the weights.

None of the loaders changes what the weights hold on the GPU: every one loads into the model vLLM built from the
config, quantization and dtype (model_executor/model_loader/, read in the 0.6.4-0.34.0 wheels), so the weights, the
profile run and the KV budget are planned as without the flag, and the plan's notes say so, naming the loader. What a
loader holds on the GPU only while loading (fastsafetensors' file buffers) is not in "Model loading took": that is
torch's allocated memory after the load less before it, each read after torch.cuda.empty_cache() and a peak reset
(DeviceMemoryProfiler, utils/mem_utils.py, and CudaPlatform.get_current_memory_usage, 0.20.0 wheel), and the profile
run's peak is reset after the load. What
the flag does change is which starts vLLM refuses: a value its release does not take (versions.LOAD_FORMATS, with the
text of argparse or of get_model_loader: rules row load_format_refusal), bitsandbytes without its quantization
(rules row bnb_load_format) and gguf on a model that is no GGUF file (rules row gguf_reference_refusal). The weights
bitsandbytes and GGUF put on the GPU are sized where kvplan already sizes them: --quantization bitsandbytes
(resolve.BNB_IN_FLIGHT, weights.py) and a .gguf model (resolve._from_gguf).

## --[no-]async-scheduling

vLLM's async scheduling (--[no-]async-scheduling): whether the engine schedules step s+1 while step s runs.

vLLM resolves SchedulerConfig.async_scheduling in VllmConfig.__post_init__ (config/vllm.py, 0.11.1-0.34.0 wheels;
EngineArgs.create_engine_config in engine/arg_utils.py up to 0.11.0). Given on, a combination the release does not
run with it is refused; left unset, the release's default applies: off up to 0.13, and from 0.14 on unless such a
combination (or a pooling model, from 0.20) keeps it off with a warning. The limits are the versions rows
async_scheduling_* (pipeline parallelism, speculative methods, the model runner they apply to, Mamba prefix caching).

What the resolved value moves: from 0.26 the tokens a sliding-window / chunked-local request may hold beyond its window
(VllmConfig.max_in_flight_tokens = max_concurrent_batches x max_num_batched_tokens: 2 at PP 1 with async on model
runner v1, pp + 1 on v2, else pp; plan.kv.window_extra_tokens), and the simulator's one-step scheduling lag
(simulate.SchedulerRules.async_scheduling). The planner keeps it in EngineArgs.async_scheduling_resolved.

## --moe-backend

vLLM's --moe-backend (KernelConfig.moe_backend, 0.17.0 on): which kernel the MoE experts run on, which values a
release refuses for the experts' quantization or the GPU (with vLLM's text), and what it changes of what kvplan sizes.

vLLM reads the flag in the select_*_moe_backend oracle of the experts' scheme (vllm/model_executor/layers/fused_moe/
oracle/unquantized.py, fp8.py, nvfp4.py, mxfp4.py, int_wna16.py), while the model's MoE layers are built: a value the
oracle maps (versions.MOE_BACKEND_ORACLES) is taken ahead of its priority list and of the environment variables that
steer the automatic choice (VLLM_USE_FLASHINFER_MOE_*, VLLM_MXFP4_USE_MARLIN, VLLM_USE_DEEP_GEMM); a value it does not
map raises "moe_backend='X' is not supported for {label} MoE. Expected one of [...]"; a backend whose experts class does
not run on the GPU raises "... MoE backend 'X' does not support the deployment configuration since kernel does not
support current device cuda." (FusedMoEExperts.is_supported_config). A model without MoE layers never asks an oracle.

The memory it moves is planned as the equivalent environment variable is (plan.kv.moe_backend_for is read by
plan.kv.mxfp4_marlin_forced / mxfp4_triton_forced / marlin_moe_experts and plan.terms._fp8_block_moe_experts /
quantized_moe_experts): MXFP4 experts on Marlin (VLLM_MXFP4_USE_MARLIN's padding and workspace) or on the Triton
kernels; block-FP8 experts on Triton (its workspace), DeepGEMM, FlashInfer or Marlin; NVFP4 experts on vLLM's CUTLASS
kernel (cutlass_fp4_moe_bytes); WNA16 experts on Marlin or off it.

## --calculate-kv-scales and --mamba-block-size

--calculate-kv-scales (CacheConfig.calculate_kv_scales, 0.7.0-0.27.x) moves no startup figure; what the plan says of it
and vLLM's deprecation warning (rules row calculate_kv_scales_deprecated) are calculate_kv_scales_says'.
--mamba-block-size (CacheConfig.mamba_block_size, 0.11.1 on) is refused without prefix caching; where it is taken,
plan.kv build_groups sizes the block it sets (mamba_block_size_refusal says which).
"""

from __future__ import annotations

from dataclasses import dataclass

from kvplan.errors import RefusedByVLLMError
from kvplan.plan.args import EngineArgs, speculative_object
from kvplan.plan.kv import experts_quant, prefix_caching_on
from kvplan.resolve import GPUSpec, ModelSpec, QuantSpec, is_ct_wna16
from kvplan.versions import (DEEPSEEK_V4_ARCHITECTURES, LOAD_FORMATS, LOAD_FORMATS_OLDEST_READ, VersionRules,
                             canonical_quant, first_release_where, load_formats_at, moe_backend_oracle,
                             moe_backend_oracle_since, moe_backend_taken, release_text, rules_for)
from kvplan.weights import mxfp4_moe_backend


# ====================================================================================================
# --enable-sleep-mode
# ====================================================================================================

# the variable, and the exact text, vLLM's CuMemAllocator.__init__ tests (cumem.py, 0.8.0-0.20.0 wheels)
_CUMEM_ENV, _EXPANDABLE = "PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"


def sleep_mode_refusal(gpu: GPUSpec, args: EngineArgs, rules: VersionRules) -> None:
    """RefusedByVLLMError, with vLLM's own text, where vLLM `rules.version` refuses --enable-sleep-mode: on a GPU
    whose platform its build has no sleep mode for, or with expandable segments its CuMemAllocator asserts against."""
    if not args.enable_sleep_mode:
        return
    vendor = (gpu.vendor or "NVIDIA").upper()
    if vendor not in {v.upper() for v in rules.sleep_mode_vendors}:
        platform = "ROCm" if vendor == "AMD" else vendor
        since = first_release_where("sleep_mode_vendors", lambda vendors: "AMD" in vendors)
        later = (f", or plan with --vllm-version {since} or later (its ROCm build takes it)"
                 if vendor == "AMD" and since else "")
        raise RefusedByVLLMError("--enable-sleep-mode", f"{rules.sleep_mode_platform_refusal} (vLLM {rules.version} "
                                 f"on {gpu.name}, a {platform} GPU: ModelConfig refuses it before loading anything)",
                                 "drop --enable-sleep-mode" + later, rule="sleep mode platform")
    if rules.sleep_mode_expandable == "refused" and _vllm_sees_expandable(args, rules):
        off_since = first_release_where("sleep_mode_expandable", lambda v: v == "off_in_pool")
        raise RefusedByVLLMError("--env", "Expandable segments are not compatible with memory pool. Please track "
                                 "https://github.com/pytorch/pytorch/issues/147851 for the latest updates. (vLLM "
                                 f"{rules.version}'s CuMemAllocator asserts it with --enable-sleep-mode and "
                                 f"{_CUMEM_ENV}={args.env_value(_CUMEM_ENV)}, before loading the weights)",
                                 f"remove expandable_segments:True from {_CUMEM_ENV}, drop --enable-sleep-mode, or plan "
                                 f"with --vllm-version {off_since} or later (its pool turns expandable segments off "
                                 "inside itself)", rule="sleep mode with expandable segments")
    if (rules.sleep_mode_expandable in ("refused", "off_in_pool") and _torch_expandable(args, rules)
            and not _vllm_sees_expandable(args, rules)):
        # vLLM looks for the option in PYTORCH_CUDA_ALLOC_CONF alone (rules row sleep_mode_expandable_seen), while the
        # torch it pins takes PYTORCH_ALLOC_CONF first (row torch_alloc_conf_env): neither its assert nor its switch
        # sees the option, so the first weight allocated in the pool meets PyTorch's own check
        # (c10/cuda/CUDACachingAllocator.cpp malloc: TORCH_CHECK(!active_pool, ...) with expandable segments on)
        name = next(n for n in rules.torch_alloc_conf_env if args.env_value(n) is not None)
        live_since = first_release_where("sleep_mode_expandable_seen", lambda v: v == "live")
        raise RefusedByVLLMError("--env", "torch.cuda.MemPool doesn't currently support expandable_segments. (PyTorch's "
                                 f"allocator check, as vLLM {rules.version} loads the weights into its sleep-mode "
                                 f"pool: {name}={args.env_value(name)} turns expandable segments on, and vLLM "
                                 f"{rules.version} looks for them in {_CUMEM_ENV} only)",
                                 f"remove expandable_segments:True from {name}, drop --enable-sleep-mode, or plan with "
                                 f"--vllm-version {live_since} or later (it reads the allocator's live settings and turns "
                                 "expandable segments off inside its pool)", rule="sleep mode with expandable segments")


def _torch_expandable(args: EngineArgs, rules: VersionRules) -> bool:
    """Whether the torch `rules.version` pins runs with expandable segments (rules row torch_alloc_conf_env)."""
    return args.expandable_segments(rules.torch_alloc_conf_env)


def _vllm_sees_expandable(args: EngineArgs, rules: VersionRules) -> bool:
    """Whether vLLM's own sleep-mode check finds expandable_segments:True (rules row sleep_mode_expandable_seen): a
    substring of PYTORCH_CUDA_ALLOC_CONF up to 0.30, the allocator's live settings from 0.31."""
    if rules.sleep_mode_expandable_seen == "live":
        return _torch_expandable(args, rules)
    return _EXPANDABLE in (args.env_value(_CUMEM_ENV) or "")


def sleep_pool_keeps_block_rounding(args: EngineArgs, rules: VersionRules) -> bool:
    """Whether the weights load in the CuMem pool with expandable segments turned off (vLLM >= 0.20.1), so that
    expandable_segments:True does not change their block rounding."""
    return (args.enable_sleep_mode and rules.sleep_mode_expandable == "off_in_pool"
            and rules.sleep_mode_weights_in_pool and _torch_expandable(args, rules) and _vllm_sees_expandable(args, rules))


def sleep_mode_says(args: EngineArgs, rules: VersionRules, quant: QuantSpec | None,
                    extensible: bool = False) -> tuple[list[str], list[str]]:
    """(notes, warnings) of --enable-sleep-mode: that the budget is unchanged and why, and the risks kvplan does not
    size. `extensible`: vLLM 0.34's extensible KV cache is on, which sleep mode leaves on (config/vllm.py
    _resolve_extensible_kv_cache names no sleep mode); it lives outside the CuMem pool and sleep() releases its
    physical memory itself (gpu_worker.py Worker.sleep, 0.34.0 wheel)."""
    if not args.enable_sleep_mode:
        return [], []
    v = rules.version
    pooled = " and ".join((["weights"] if rules.sleep_mode_weights_in_pool else [])
                          + ([] if extensible else ["KV cache"]))
    measure = ("total_consumed: the free memory lost, from mem_get_info" if rules.budget_counts_runner_buffers else
               "weights + torch peak + non-torch memory")
    notes = [f"sleep mode: {pooled} in vLLM's CuMem pools (device_allocator/cumem.py CuMemAllocator); no change to the "
             f"budget in vLLM {v}: the pools allocate through PyTorch's caching allocator, so the weights, the "
             f"profiled peak and the budget ({measure}) count them as without sleep mode"
             + ("; the extensible KV cache stays outside the pools (sleep() releases its pages itself)" if extensible
                else ", and the KV blocks are counted before the pool allocates them")]
    warns: list[str] = []
    if rules.sleep_mode_expandable == "unchecked" and _EXPANDABLE in (args.env_value(_CUMEM_ENV) or ""):
        warns.append(f"--enable-sleep-mode with expandable_segments:True: vLLM {v} does not check it, but PyTorch's "
                     "MemPool does not support expandable segments (pytorch/pytorch#147851), which vLLM 0.8.0-0.20.0 "
                     f"refuse at startup; remove it from {_CUMEM_ENV}")
    if not rules.sleep_mode_weights_in_pool:
        warns.append(f"--enable-sleep-mode: vLLM {v} loads the weights outside the CuMem pool (gpu_worker.py load_model "
                     "enters only the second of `with pool and config:`; fixed in 0.17.0, vLLM PR #32947), so "
                     "sleep() frees the KV cache but keeps the weights on the GPU")
    if quant is not None and rules.sleep_mode_weights_in_pool:
        if rules.sleep_mode_pool_trim and not rules.budget_counts_runner_buffers:
            warns.append(f"--enable-sleep-mode with a quantized checkpoint on vLLM {v}: segments of the weights pool "
                         "freed while the weights are converted (a repack, online quantization) are unmapped behind "
                         "PyTorch's memory_reserved(), which the budget reads, so vLLM can size the KV pool larger than "
                         "the GPU holds and run out of memory (vLLM issues #37096, #40256: 5.16 GiB of KV cache with "
                         "sleep mode, 3.17 without); kvplan plans the budget without sleep mode's error")
        elif rules.budget_counts_runner_buffers:
            warns.append(f"--enable-sleep-mode with a quantized checkpoint on vLLM {v}: blocks freed while the weights "
                         "are converted stay in the weights pool, which the load cannot reuse (pytorch#159674; vLLM "
                         "issues #43951, #48680: out of memory while loading), and what the pool keeps is charged to "
                         "the budget; kvplan plans without it")
    return notes, warns


# ====================================================================================================
# --load-format
# ====================================================================================================

# what each loader does with the weights, for the plan's notes (model_executor/model_loader/*.py, 0.6.4-0.34.0)
_HOW = {
    "auto": "safetensors files where the checkpoint has them, else .bin",
    "pt": "the checkpoint's .bin / .pt files only",
    "safetensors": "the checkpoint's .safetensors files only",
    "npcache": ".bin files converted once to numpy files on disk, then read from those",
    "hf": "the Hugging Face-format files, as auto",
    "mistral": "Mistral's consolidated*.safetensors files",
    "instanttensor": "safetensors files read by the instanttensor library",
    "fastsafetensors": ("each rank's safetensors files copied onto the GPU by the fastsafetensors library (GPU Direct "
                        "Storage where there is one) and handed out from those buffers, freed per batch of files "
                        "(weight_utils.fastsafetensors_weights_iterator: copy_files_to_device, fb.close()): the load "
                        "needs room for a batch of files beyond the weights, freed before the profile run"),
    "dummy": "random values in the checkpoint's own shapes and dtypes (initialize_dummy_weights); nothing read from disk",
    "tensorizer": "a tensorizer-serialized file deserialized into the model's tensors",
    "sharded_state": "each rank's own pre-sharded files (written by save_sharded_state)",
    "runai_streamer_sharded": "each rank's own pre-sharded files, streamed by the Run:ai Model Streamer",
    "runai_streamer": "safetensors files streamed by the Run:ai Model Streamer (local disk or object storage) into CPU "
                      "memory, then copied into the model's tensors",
    "modelexpress": "weights received from a ModelExpress server into the model's tensors",
    "ipc_cache": "weights received from another process's GPU memory (CUDA IPC) into the model's tensors",
    "bitsandbytes": "bitsandbytes' loader, as --quantization bitsandbytes picks it: sized by the quantization",
    "gguf": "the GGUF file's quantized tensors, as a .gguf model picks it: sized from the file",
}


def _value(args: EngineArgs, rules: VersionRules) -> str | None:
    """--load-format as the release reads it: lowercased by LoadConfig where argparse no longer holds it to its
    choices (load_format_refusal "loader", 0.10.1+), as given before."""
    v = args.load_format
    if v is None:
        return None
    v = str(v).strip()
    return v.lower() if rules.load_format_refusal == "loader" else v


def _is_gguf(model: ModelSpec) -> bool:
    return model.quant is not None and model.quant.method == "gguf"


def _model_arg(model: ModelSpec) -> str:
    """The model as vllm serve is given it: the local path, else the Hub id."""
    return str(model.local_dir or model.id)


def load_format_refusal(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> None:
    """RefusedByVLLMError, with vLLM's own text, where vLLM `rules.version` refuses --load-format as given: a value it
    does not take, bitsandbytes without its quantization (or that quantization with another load format before
    0.8.2), gguf on a model that is no GGUF file."""
    value = _value(args, rules)
    given_quant = canonical_quant(args.quantization) if args.quantization else None
    if rules.bnb_load_format == "paired" and given_quant == "bitsandbytes" and value not in (None, "bitsandbytes"):
        # (not given: the launch files write --load-format bitsandbytes, load_format_says)
        raise RefusedByVLLMError("--load-format", f"vLLM {rules.version}: \"BitsAndBytes quantization and QLoRA adapter "
                                 f"only support 'bitsandbytes' load format, but got {value}\" (EngineArgs)",
                                 "pass --load-format bitsandbytes with --quantization bitsandbytes (vLLM < 0.8.2 "
                                 "needs both)", rule="bnb_load_format")
    if value is None:
        return
    choices = load_formats_at(rules.release)
    if rules.release >= LOAD_FORMATS_OLDEST_READ and value not in choices:
        if rules.load_format_refusal == "argparse":
            said = (f"argument --load-format: invalid choice: '{value}' (choose from "
                    f"{', '.join(repr(c) for c in choices)})")
        else:
            said = f"Load format `{value}` is not supported"
        known = LOAD_FORMATS.get(value)
        why = ""
        if known is not None and rules.release < known[0]:
            why = f" ({value} is first in vLLM {release_text(known[0])})"
        elif known is not None and known[1] is not None:
            why = f" ({value} was removed in vLLM {release_text(known[1])})"
        raise RefusedByVLLMError("--load-format", f"vLLM {rules.version} does not take --load-format {value}{why}: "
                                 f"\"{said}\"", f"one of {', '.join(choices)}, or leave it out (auto)",
                                 rule="load_format_value")
    quant = canonical_quant(args.quantization or (model.quant.method if model.quant else ""))
    if value == "bitsandbytes" and given_quant != "bitsandbytes":
        if rules.bnb_load_format == "paired":
            raise RefusedByVLLMError("--load-format", f"vLLM {rules.version}: \"BitsAndBytes load format and QLoRA "
                                     "adapter only support 'bitsandbytes' quantization, but got "
                                     f"{given_quant}\" (EngineArgs)",
                                     "pass --quantization bitsandbytes with --load-format bitsandbytes (vLLM < 0.8.2 "
                                     "needs both), or leave --load-format out", rule="bnb_load_format")
        if not quant:  # an unquantized checkpoint: the layers vLLM built have no bitsandbytes method to load into
            raise RefusedByVLLMError("--load-format", f"vLLM {rules.version} builds the model unquantized without "
                                     "--quantization bitsandbytes, and BitsAndBytesModelLoader finds no layer to load "
                                     f"into: \"{rules.bnb_load_format}\" (AssertionError, _get_bnb_target_modules)",
                                     "add --quantization bitsandbytes (4-bit at load), or leave --load-format out",
                                     rule="bnb_load_format")
        ckpt = model.quant
        if ckpt is not None and not ckpt.hf_quant_config_only and canonical_quant(ckpt.method) != "bitsandbytes":
            # a checkpoint whose config.json declares another quantization: BitsAndBytesModelLoader reads its
            # quant_method before any weight and refuses it (load_weights, model_loader/loader.py 0.8.2-0.8.5;
            # bitsandbytes_loader.py _verify_model_compatibility 0.9.0-0.27.0; the loader is gone from 0.28.0)
            raise RefusedByVLLMError("--load-format", f"vLLM {rules.version}: \"BitsAndBytes loader does not support "
                                     f"{ckpt.method} quantization\" (ValueError, BitsAndBytesModelLoader, as it "
                                     "starts loading the weights): the checkpoint is already quantized with "
                                     f"{ckpt.method}", "leave --load-format out (vLLM loads the checkpoint with its own "
                                     f"{ckpt.method} method), or serve the unquantized checkpoint with --quantization "
                                     "bitsandbytes", rule="bnb_load_format")
    if value == "gguf" and not _is_gguf(model):
        raise RefusedByVLLMError("--load-format", f"vLLM {rules.version}'s GGUF loader takes a .gguf file only: \""
                                 + rules.gguf_reference_refusal.format(model=_model_arg(model))
                                 + "\" (GGUFModelLoader._prepare_weights)",
                                 "give the .gguf file as the model (vLLM then picks the GGUF loader itself), or leave "
                                 "--load-format out", rule="gguf_load_format")


def load_format_says(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> list[str]:
    """The plan's notes on --load-format: the loader, and that the weights on the GPU are the same as without it."""
    value = _value(args, rules)
    given_quant = canonical_quant(args.quantization) if args.quantization else None
    if value is None:
        if rules.bnb_load_format == "paired" and given_quant == "bitsandbytes":
            return [f"--quantization bitsandbytes: vLLM {rules.version} refuses it without --load-format bitsandbytes "
                    "(EngineArgs, vLLM < 0.8.2); the launch files write it"]
        return []
    if _is_gguf(model) and value != "gguf":
        return [f"--load-format {value}: vLLM sets load format and quantization to gguf itself for a .gguf model "
                "(EngineArgs check_gguf_file / is_gguf), so GGUFModelLoader loads it; the weights as the file sizes them"]
    if given_quant == "bitsandbytes" and value != "bitsandbytes":
        return [f"--load-format {value}: with --quantization bitsandbytes vLLM {rules.version} sets the load format to "
                "bitsandbytes itself (EngineArgs.create_load_config, vLLM >= 0.8.2); BitsAndBytesModelLoader loads it"]
    loader = LOAD_FORMATS.get(value, (None, None, "its loader"))[2]
    how = _HOW.get(value, "")
    if value in ("bitsandbytes", "gguf"):
        return [f"--load-format {value}: {loader}, {how}"]
    return [f"--load-format {value}: {loader}, {how}; the same weight tensors on the GPU as with auto, so the weights, "
            "the profile run and the KV budget are planned as without it"]


def serve_load_format(given: str | None, quantization: str | None, version: str) -> tuple[str | None, str]:
    """(the --load-format serve.sh writes for vLLM `version`, why): the value given, or bitsandbytes where the release
    needs it beside --quantization bitsandbytes (rules row bnb_load_format "paired")."""
    rules = rules_for(version)
    if given:
        return str(given).strip(), "as given: the loader that reads the weights (the same weights on the GPU)"
    if rules.bnb_load_format == "paired" and quantization == "bitsandbytes":
        return "bitsandbytes", (f"vLLM {rules.version} refuses --quantization bitsandbytes without it (< 0.8.2)")
    return None, ""


# ====================================================================================================
# --[no-]async-scheduling
# ====================================================================================================

_ASYNC_FLAG = "--async-scheduling"
_ASYNC_FIX = "drop --async-scheduling (or give --no-async-scheduling)"


def async_limit(model: ModelSpec, args: EngineArgs, rules: VersionRules, runner: str) -> tuple[str, str] | None:
    """(what keeps async scheduling from running in this combination at this release, in vLLM's words; the change that
    lifts it), or None."""
    scope = rules.async_scheduling_limits_runner
    limited = scope == "any" or (scope == "v1" and runner != "v2")
    if limited and (args.pipeline_parallel_size or 1) > 1 and not rules.async_scheduling_pp:
        return "pipeline parallelism (--pipeline-parallel-size > 1)", "--pipeline-parallel-size 1"
    method = args.speculative_method
    allowed = rules.async_scheduling_spec_methods
    if limited and method is not None and allowed != "*":
        if method not in allowed:
            return ((f"{method}-based speculative decoding", f"a speculative method it runs with ({', '.join(allowed)})")
                    if allowed else ("speculative decoding", "no --speculative-config"))
        obj = speculative_object(args.speculative_config) or {}
        if obj.get("disable_padded_drafter_batch"):
            return "disable_padded_drafter_batch=True", "disable_padded_drafter_batch false in --speculative-config"
    if (not rules.async_scheduling_mamba_prefix and "recurrent" in model.cache_kinds
            and rules.mamba_cache_mode != "none" and prefix_caching_on(args, rules, hybrid=True)):
        return "prefix caching for Mamba models", "--no-enable-prefix-caching"
    return None


def resolve_async_scheduling(model: ModelSpec, args: EngineArgs, rules: VersionRules, runner: str,
                             warns: list[str], refuse: bool = True) -> bool:
    """The async_scheduling vLLM runs with: the flag where given (refused where the release does not run it, when
    `refuse`: the release is the one run, not a versionless record's era), else the release's default. A default kept
    off by a limit is said in `warns`, as vLLM logs it."""
    if rules.engine != "v1":  # V0 has no async scheduler; the flag (0.10.x) builds a V1 engine's config only
        return bool(args.async_scheduling)
    found = async_limit(model, args, rules, runner)
    limit = found[0] if found else None
    if args.async_scheduling:
        if found and refuse:
            raise RefusedByVLLMError(_ASYNC_FLAG, f"vLLM {rules.version} does not run async scheduling with {limit} and refuses "
                                     f"to start", f"{_ASYNC_FIX}, or give {found[1]}", rule="async scheduling with " + limit)
        return True
    if args.async_scheduling is False or rules.async_scheduling_default == "off":
        return False
    if (args.runner_type == "pooling" or model.is_pooling) and not rules.async_scheduling_pooling_default:
        return False  # (vLLM logs it at debug level only)
    if limit:
        warns.append(f"async scheduling is off: vLLM {rules.version} turns it on by default but not with {limit} "
                     "(\"Async scheduling ... will be disabled\")")
        return False
    return True


# ====================================================================================================
# --moe-backend
# ====================================================================================================

# What each value runs, as the oracles' backend_to_kernel_cls name the experts classes (0.33.0 wheel)
KERNELS = {
    "triton": "Triton fused MoE (TritonExperts)", "batched_triton": "batched Triton fused MoE (BatchedTritonExperts)",
    "deep_gemm": "DeepGEMM", "cutlass": "vLLM's CUTLASS grouped GEMM", "flashinfer_trtllm": "FlashInfer TRTLLM-GEN",
    "flashinfer_cutlass": "FlashInfer CUTLASS", "flashinfer_cutedsl": "FlashInfer CuteDSL",
    "flashinfer_b12x": "FlashInfer b12x", "b12x": "b12x", "marlin": "Marlin (weight-only, activations in the model "
    "dtype)", "humming": "Humming", "triton_unfused": "the unfused OAI Triton kernels", "aiter": "ROCm AITER",
    "emulation": "emulation (dequantized weights)",
}
# the oracle's enum value a device refusal names (Enum.value), per scheme; the others are the value upper-cased
_ENUM = {
    ("unquantized", "flashinfer_trtllm"): "FlashInfer TRTLLM", ("unquantized", "flashinfer_cutlass"): "FlashInfer CUTLASS",
    ("unquantized", "aiter"): "ROCm AITER", ("fp8", "deep_gemm"): "DEEPGEMM", ("fp8", "cutlass"): "VLLM_CUTLASS",
    ("nvfp4", "cutlass"): "VLLM_CUTLASS", ("mxfp4", "flashinfer_trtllm"): "FLASHINFER_TRTLLM_MXFP4_BF16",
    ("mxfp4", "flashinfer_cutlass"): "FLASHINFER_CUTLASS_MXFP4_BF16", ("mxfp4", "deep_gemm"): "DEEPGEMM_MXFP4",
}
# the oracle's name in its refusal, before 0.34 ("quoted": whether the value is in quotes) and in 0.34's base.py
_NAMES = {"unquantized": ("Unquantized", False, "Unquantized"), "fp8": ("FP8", False, "Fp8"),
          "nvfp4": ("NvFp4", True, "NvFp4"), "mxfp4": ("Mxfp4", True, "Mxfp4"), "wna16": ("WNA16", True, "WNA16")}
# 0.17.0-0.19.0's unquantized oracle checks availability itself (oracle/unquantized.py select_unquantized_moe_backend)
_UNQUANTIZED_OLD = {"flashinfer_trtllm": "FlashInfer TRTLLM MoE backend is not available for this configuration.",
                    "flashinfer_cutlass": "FlashInfer CUTLASS MoE backend is not available for this configuration.",
                    "aiter": "ROCm AITer MoE backend is not available for this configuration."}


@dataclass(frozen=True)
class MoeBackend:
    """--moe-backend as the release and the model take it: `scheme`, the oracle that reads it (None: none does);
    `note`, what it runs and what kvplan sizes with it; `refusal`, vLLM's message where it stops (else None)."""

    asked: str
    scheme: str | None
    note: str
    refusal: str | None = None
    fix: str = "drop --moe-backend (auto: vLLM picks the kernel) or give one the message lists that runs on this GPU"


def moe_scheme(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> str | None:
    """Which oracle the routed experts ask (versions.MOE_BACKEND_ORACLES' schemes), None where kvplan has not read it
    (bitsandbytes, GGUF, INT8 W8A8, ModelOpt mixed precision, ...)."""
    q = experts_quant(model, model.quant, rules)
    if q is None:
        if model.quant is None and args.quantization:
            # online quantization: --quantization fp8 builds Fp8OnlineMoEMethod, which asks select_fp8_moe_backend
            return "fp8" if canonical_quant(args.quantization) == "fp8" else None
        return "unquantized"
    scheme = str(q.scheme or "")
    if q.method == "mxfp4":
        return "mxfp4"
    if scheme.startswith("nvfp4"):
        return "nvfp4"
    if q.bits == 8 and scheme.startswith("fp8"):
        return "fp8"
    if (q.method in ("gptq", "awq", "gptq_marlin", "awq_marlin") and q.bits in (4, 8)) or is_ct_wna16(q):
        return "wna16"
    return None


def _unsupported(scheme: str, asked: str, rules: VersionRules, device: str) -> str:
    """The oracle's ValueError for a backend whose experts class does not run on `device` ("cuda", "rocm")."""
    if rules.moe_backend_refusal_text == "unavailable" and scheme == "unquantized" and asked in _UNQUANTIZED_OLD:
        return _UNQUANTIZED_OLD[asked]
    old, quoted, new = _NAMES[scheme]
    value = _ENUM.get((scheme, asked), asked.upper())
    if (scheme, asked) == ("mxfp4", "aiter"):
        value = rules.mxfp4_aiter_backend_value
    if rules.moe_backend_refusal_text == "base":
        head = f"{new} MoE backend '{value}'"
    else:
        head = f"{old} MoE backend " + (f"'{value}'" if quoted else value)
    return (f"{head} does not support the deployment configuration since kernel does not support current device "
            f"{device}.")


def _device_refusal(scheme: str, asked: str, gpu: GPUSpec, rules: VersionRules,
                    args: EngineArgs | None = None) -> str | None:
    """vLLM's refusal where the backend's experts class does not run on `gpu` (the _supports_current_device of the
    classes read in the 0.17.0 and 0.33.0 wheels), None where it runs or kvplan has not read it. 0.17.0-0.19.0's
    unquantized oracle takes FlashInfer CUTLASS only with expert parallelism over several ranks and no data
    parallelism on cc >= 9.0 (oracle/unquantized.py flashinfer_cutlass_available, use_ep and not use_dp; `args`)."""
    if gpu.vendor not in ("NVIDIA", "AMD"):
        return None
    device = "cuda" if gpu.vendor == "NVIDIA" else "rocm"
    cc = gpu.cc
    if gpu.vendor == "AMD":
        # FlashInfer, Marlin, DeepGEMM and vLLM's CUTLASS kernels check p.is_cuda() first
        cuda_only = ("flashinfer_trtllm", "flashinfer_cutlass", "flashinfer_cutedsl", "marlin", "deep_gemm", "cutlass")
        return _unsupported(scheme, asked, rules, device) if asked in cuda_only else None
    if asked == "aiter" or asked.startswith("aiter_"):
        return _unsupported(scheme, asked, rules, device)  # rocm_aiter_ops: ROCm only
    if cc is None:
        return None
    ok = True
    if asked == "flashinfer_trtllm":
        ok = (10, 0) <= cc < (11, 0)  # TrtLlm*Experts: p.is_device_capability_family(100)
    elif asked == "flashinfer_cutlass" and scheme == "unquantized" and rules.moe_backend_refusal_text == "unavailable":
        ep = bool(args and args.enable_expert_parallel and args.tensor_parallel_size * (args.data_parallel_size or 1) > 1)
        ok = ep and (args.data_parallel_size or 1) == 1 and cc >= (9, 0)
    elif asked == "flashinfer_cutlass":
        # FlashInferExperts: 9.0, families 100 and 120, 110 up to 0.20 (rules flashinfer_cutlass_moe_sm110)
        ok = cc == (9, 0) or cc[0] in (10, 12) or (cc[0] == 11 and rules.flashinfer_cutlass_moe_sm110)
    elif asked == "marlin":
        ok = cc >= (7, 5)  # MarlinExpertsBase: p.has_device_capability((7, 5))
    elif asked == "triton" and scheme == "fp8" and cc < (8, 9):
        # TritonExperts._supports_quant_scheme lists the FP8 schemes only where current_platform.supports_fp8()
        # (CUDA cc >= 8.9; fused_moe.py 0.17.0 / 0.20.0, experts/triton_moe.py 0.25.0-0.34.0): the quantization scheme
        # is the reason, its QuantKeys printed after it
        return _unsupported(scheme, asked, rules, device).replace(
            "current device cuda.", "quantization scheme {the experts' weight x activation QuantKeys}.")
    elif asked == "deep_gemm" and scheme == "fp8":
        # DeepGemmExperts: is_deep_gemm_supported (9.0, family 100; family 120 from 0.24: rules deep_gemm_sm12x)
        ok = cc == (9, 0) or (10, 0) <= cc < (11, 0) or (cc[0] == 12 and rules.deep_gemm_sm12x)
    elif asked == "cutlass" and scheme == "nvfp4":
        ok = cc[0] in (10, 11, 12)  # CutlassExpertsFp4: families 100, 110, 120
    elif asked == "triton" and scheme == "mxfp4":
        ok = (9, 0) <= cc < rules.mxfp4_triton_cc_until  # the OAI Triton kernels' device gate
    return None if ok else _unsupported(scheme, asked, rules, device)


def _auto_kernel(scheme: str, gpu: GPUSpec, rules: VersionRules) -> str:
    """vLLM's automatic choice as kvplan plans it, for the notes."""
    if scheme == "mxfp4":
        auto = mxfp4_moe_backend(gpu.cc, rules.mxfp4_hopper_backend, False, rules.mxfp4_triton_cc_majors)
        return {"flashinfer": "FlashInfer", "triton": "the OAI Triton kernels", "marlin": "Marlin"}.get(auto or "", "?")
    return {"unquantized": "Triton fused MoE", "wna16": "Marlin"}.get(scheme, "its priority list's first")


def _sizes(scheme: str, asked: str, model: ModelSpec, gpu: GPUSpec, rules: VersionRules) -> str:
    """What the backend changes of what kvplan sizes, in words (the arithmetic is in plan.kv and plan.terms)."""
    q = experts_quant(model, model.quant, rules)
    if scheme == "mxfp4":
        if asked == "marlin":
            return ("as VLLM_MXFP4_USE_MARLIN=1 is planned: Marlin's padding (the expert's width to 128, the hidden size "
                    "to 256) and its workspace")
        if asked == "triton":
            return "the Triton kernels' layout (the width padded to 64, swizzled weights and scales)"
        if asked == "flashinfer_trtllm":
            return "FlashInfer's layout (both dims padded to 256), as vLLM's own choice on this GPU"
        return (f"kvplan has not read how {asked} lays out MXFP4 experts: planned with the layout of vLLM's automatic "
                f"choice ({_auto_kernel(scheme, gpu, rules)})")
    if scheme == "fp8" and q is not None and q.weight_block:
        return {"triton": "TritonExperts' workspace (N = 2 x the expert's width)",
                "marlin": "Marlin's tile padding (from 0.25); no workspace charged",
                "deep_gemm": "DeepGEMM's buffers are not counted", "flashinfer_trtllm": "FlashInfer's workspace lives "
                "inside flashinfer: not counted", "flashinfer_cutlass": "FlashInfer's workspace lives inside "
                "flashinfer: not counted"}.get(asked, "unchanged")
    if scheme == "fp8" and asked == "marlin":
        return "Marlin's tile padding of the experts (from 0.25)"
    if scheme == "nvfp4" and asked == "cutlass":
        return "vLLM's CUTLASS FP4 buffers (its workspace and its row-shuffled copies of the input)"
    if scheme == "wna16":
        return ("Marlin's tile padding and workspace" if asked == "marlin" else
                "no Marlin padding or workspace (this kernel's buffers are not read)")
    if scheme == "unquantized":
        return ("the Triton fused-MoE workspace kvplan charges (as for vLLM's automatic choice)" if asked == "triton"
                else "unchanged: the Triton fused-MoE workspace kvplan charges for vLLM's automatic choice is kept "
                "(this kernel's own buffers are not read)")
    return "unchanged"


def moe_backend(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules) -> MoeBackend | None:
    """--moe-backend as vLLM `rules.release` takes it for `model` on `gpu` (None: not given, or "auto")."""
    asked = args.moe_backend
    if not asked or asked == "auto":
        return None
    if args.enable_lora and asked in rules.moe_backend_lora_refused:  # VllmConfig checks LoRA first
        return MoeBackend(asked, None, "", refusal=(f"LoRA is not supported with moe_backend={asked!r}. Disable LoRA or "
                                                    "select a MoE backend that supports LoRA."),
                          fix="drop --enable-lora, or --moe-backend (auto: vLLM picks the kernel)")
    if asked in rules.moe_backend_deepseek_v4_only and not set(model.architectures) & set(DEEPSEEK_V4_ARCHITECTURES):
        return MoeBackend(asked, None, "", refusal=(
            f"moe_backend={asked!r} is only supported for DeepSeek-V4 models ({list(DEEPSEEK_V4_ARCHITECTURES)}), but the "
            f"model is {list(model.architectures)}."), fix="drop --moe-backend (auto: vLLM picks the kernel)")
    if not model.is_moe:
        return MoeBackend(asked, None, f"--moe-backend {asked}: the model has no MoE layers, and vLLM {rules.version} "
                          "reads the flag only where it builds them (fused_moe/oracle select_*_moe_backend): it changes "
                          "nothing")
    if set(model.architectures) & set(DEEPSEEK_V4_ARCHITECTURES):
        # models/deepseek_v4/nvidia/model.py (0.33.0) builds its own MoE paths for the mega-MoE backends
        # (MEGA_MOE_BACKENDS) and its MXFP4 experts ask select_deepseek_v4_mxfp4_moe_backend: not read here
        return MoeBackend(asked, None, f"--moe-backend {asked}: DeepSeek-V4 picks its MoE kernel in its own model code "
                          f"in vLLM {rules.version}, which kvplan has not read for the flag; planned as vLLM's automatic "
                          "choice")
    scheme = moe_scheme(model, args, rules)
    if scheme is None:
        return MoeBackend(asked, None, f"--moe-backend {asked}: kvplan has not read which kernel vLLM {rules.version} "
                          "then runs for these experts' quantization; planned as vLLM's automatic choice")
    oracle = moe_backend_oracle(scheme, rules.release)
    if oracle is None:
        since = moe_backend_oracle_since(scheme)
        first = release_text(since) if since and since > rules.release else None
        return MoeBackend(asked, scheme, f"--moe-backend {asked}: vLLM {rules.version}'s {scheme} MoE experts do not read "
                          "the flag (" + (f"they do from {first}" if first else "no oracle maps it") + "): vLLM picks "
                          "their kernel as without it")
    label, keys = oracle
    if asked not in keys:
        return MoeBackend(asked, scheme, "", refusal=(f"moe_backend='{asked}' is not supported for {label} MoE. "
                                                      f"Expected one of {list(keys)}."))
    refused = _device_refusal(scheme, asked, gpu, rules, args)
    if refused:
        return MoeBackend(asked, scheme, "", refusal=refused, fix=f"drop --moe-backend (auto: vLLM picks the kernel) or "
                          f"give another value the {label} MoE oracle maps: " + ", ".join(
                              k for k in keys if k != asked and moe_backend_taken(k, rules.release)
                              and _device_refusal(scheme, k, gpu, rules, args) is None))
    kernel = KERNELS.get(asked, asked)
    if scheme == "mxfp4" and asked == "triton":
        kernel = "the OAI Triton MXFP4 kernels (triton_kernels)"
    return MoeBackend(asked, scheme, f"--moe-backend {asked}: vLLM {rules.version} runs the {label} MoE experts on "
                      f"{kernel} (select_{scheme}_moe_backend takes it ahead of its automatic choice); what kvplan sizes: "
                      f"{_sizes(scheme, asked, model, gpu, rules)}")


def moe_backend_refusal(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules) -> None:
    """RefusedByVLLMError where vLLM `rules.release` stops on --moe-backend for this model and GPU (moe_backend)."""
    choice = moe_backend(model, gpu, args, rules)
    if choice is not None and choice.refusal:
        raise RefusedByVLLMError("--moe-backend", f"vLLM {rules.version} stops while it builds the model: "
                                 f"\"{choice.refusal}\"", choice.fix, rule="moe_backend")


def moe_backend_says(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules) -> list[str]:
    """The plan's note on --moe-backend ([] where not given)."""
    choice = moe_backend(model, gpu, args, rules)
    return [choice.note] if choice is not None and choice.note else []


def calculate_kv_scales_says(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> tuple[str, str | None]:
    """(note, warning or None) for --calculate-kv-scales (CacheConfig.calculate_kv_scales, 0.7.0-0.27.x). No startup
    figure moves: each Attention layer keeps its q/k/v scale tensors with or without it (attention/layer.py, 0.7.0-
    0.12.0; model_executor/layers/attention/attention.py, 0.18.0-0.27.0), and the first forward (V1: the profile run's
    dummy batch) sets them from torch.abs(q/k/v).max() (calc_kv_scales), temporaries of one layer's q, k or v, below
    the MLP activations that set the profile's peak; V1 runs that one step without CUDA graphs (gpu_model_runner.py,
    0.12.0-0.27.0), and captures its graphs as without the flag."""
    fp8 = (args.kv_cache_dtype or "auto").startswith("fp8")
    where = ("" if fp8 else "; with kv_cache_dtype auto the KV cache is stored unscaled and the scales go unused")
    recurrent = "recurrent" in model.cache_kinds and not model.is_attention_free
    hybrid = (f" (vLLM {rules.version} turns it off for this hybrid: 'Disabling calculate_kv_scales for hybrid model', "
              "HybridAttentionMambaModelConfig, model_executor/models/config.py, 0.19.0-0.27.0)"
              if recurrent and rules.calculate_kv_scales_deprecated else "")
    note = ("--calculate-kv-scales: no startup memory figure moves (planned as without it): the fp8 KV scales are taken "
            "from the first forward's q/k/v maxima, in V1 the profile run's dummy batch, with temporaries smaller than the "
            "MLP activations that set the peak; the scale tensors exist either way, and the CUDA graphs are captured as "
            f"without it{where}{hybrid}")
    warning = None
    if rules.calculate_kv_scales_deprecated:
        warning = ("The `--calculate-kv-scales` option is deprecated and will be removed in v0.19. The scales will be "
                   "loaded from the model checkpoint if available, otherwise they default to 1.0. (vLLM's warning, "
                   f"{rules.version}; the flag is gone from 0.28.0)")
    return note, warning


def mamba_block_size_refusal(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> str | None:
    """vLLM's refusal of --mamba-block-size (>= 0.11.1) where prefix caching is off: VllmConfig.validate_mamba_block_size
    (config/vllm.py, 0.11.1-0.34.0 wheels) raises "--mamba-block-size can only be set with --enable-prefix-caching" for
    a value other than max_model_len (the value vLLM itself gives it without prefix caching). Prefix caching as
    resolved: on by default for a model without recurrent layers, off for a hybrid before 0.26 (plan.kv
    prefix_caching_on). What the value moves (plan.kv build_groups): the block of 'all' mode (a Mamba1/2 family under
    prefix caching, 0.11.1-0.27); align mode sets mamba_block_size to the block size whatever is given
    (update_block_size_for_backend), and a model without recurrent layers never reads it."""
    given = args.mamba_block_size
    if given is None or given == args.max_model_len:
        return None
    kinds = {l.recurrent.kind for l in model.layers if l.recurrent is not None}
    if not prefix_caching_on(args, rules, hybrid=model.is_hybrid):
        raise RefusedByVLLMError("--mamba-block-size", "--mamba-block-size can only be set with --enable-prefix-caching",
                                 "add --enable-prefix-caching, or drop --mamba-block-size",
                                 rule="mamba_block_size without prefix caching")
    if kinds and rules.mamba_cache_mode == "all_if_supported_else_none" and not kinds <= {"mamba1", "mamba2"}:
        # 0.11.1-0.14: MambaModelConfig turns prefix caching off for a hybrid without Mamba prefix caching (GDN,
        # linear attention) in VllmConfig.__post_init__, before the 'after' validator reads it (models/config.py,
        # config/vllm.py, 0.11.1 and 0.13.0 wheels)
        raise RefusedByVLLMError("--mamba-block-size", "--mamba-block-size can only be set with --enable-prefix-caching",
                                 f"drop --mamba-block-size: vLLM {rules.version} turns prefix caching off for "
                                 f"{model.id} ('Hybrid or mamba-based model detected without support for prefix "
                                 "caching: disabling.'), then refuses it",
                                 rule="mamba_block_size without prefix caching")
    if not kinds:
        return (f"--mamba-block-size {given}: {model.id} has no Mamba / linear-attention layers, so nothing reads it "
                "(vLLM takes it where prefix caching is on)")
    if (kinds <= {"mamba1", "mamba2"} and rules.mamba_cache_mode.startswith("all_if_supported")
            and any(l.is_attention for l in model.layers)):
        return None  # 'all' mode: the block follows it (plan.kv build_groups says how)
    if not any(l.is_attention for l in model.layers):
        why = "the model has no attention layers whose block it would align"
    else:
        why = ("its 'align' mode sets mamba_block_size to the hybrid's block size whatever is given "
               "(platforms/interface.py update_block_size_for_backend)")
    return f"--mamba-block-size {given}: no block moves in vLLM {rules.version}: {why}"
