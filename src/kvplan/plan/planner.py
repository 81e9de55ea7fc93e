"""The plan itself: the last module of kvplan.plan, which imports the others (none imports it).

`Plan` (the frozen result), plan() and _plan (the budget, the KV pool, tokens and concurrency, era by era),
--max-model-len auto and a given pool, the refusals vLLM raises at startup, the fit check and its error text,
capacity, the log lines vLLM prints, the cold-start outcome and margin, and the seed's simple plan.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from typing import Iterable

from kvplan.calibration import GIB, coefficients_for
from kvplan.errors import InputError, RefusedByVLLMError
from kvplan.plan.args import (AUTO_FIT, with_mtp_token_default, with_suffix_token_default, DEFAULT_BLOCK_SIZE, DRAFT_METHODS, MRV2_ENV, EngineArgs, Fix, KVGroup, Term,
                              _env_rules, cdiv, serve_as, st_module_as_read, v1_fallback)
from kvplan.plan.cudagraphs import (COLD_START_POOL_LOSS_BYTES, ColdStartLoss, ColdStartOutcome, _cold_start_warning,
                                    adaptive_verification_refusal, split_key_refusal,
                                    _spec_decode_piecewise, block_size_backend, check_model_runner_env,
                                    cold_start_pool_loss_bytes, compile_cache_note, cudagraph_plan, dynamic_sd_dp_warning,
                                    capture_skipped, adaptive_verification_warning,
                                    inductor_compiles,
                                    interactivity_head, model_runner, model_runner_choice, sizes_left,
                                    split_graphs_note)
from kvplan.plan.defaults import ct_moe_mixed_schemes, quant_capability_error, resolve_args, vllm_quant_method
from kvplan.plan.extensible import (MeasuredPool, cold_start_margin_growth_bytes, extended_line, extensible_kv_cache,
                                    fallback_note, kv_memory_hint, measured_pool, memory_after_warmup_line,
                                    startup_used_bytes, unified_memory_warning, utilization_text,
                                    utilization_warning)
from kvplan.plan.eplb import eplb_state_bytes, resolve_eplb
from kvplan.plan.kv import (cross_attention_tokens, dcp_checks, interleave_checks, pcp_checks, window_extra_tokens, _DSV4_BLOCK, _blocks_per_request, _group_blocks, _v0_mamba_cache_bytes, _v0_state_seqs,
                            build_groups, gdn_prefill, mamba_cache_mode, rank_weights)
from kvplan.plan.multimodal import _mm_limit_warnings, _text_only, deepstack_buffer_bytes, skip_mm_profiling_says
from kvplan.plan.kv_transfer import kv_transfer_refusal, kv_transfer_says
from kvplan.plan.serve_flags import (calculate_kv_scales_says, mamba_block_size_refusal, load_format_refusal, load_format_says, moe_backend_refusal, moe_backend_says,
                                     resolve_async_scheduling, sleep_mode_refusal,
                                     sleep_mode_says, sleep_pool_keeps_block_rounding)
from kvplan.plan.terms import (DRAFTER_PROFILE_LABEL, _drafter_profile_bytes, _pipeline_stage_pool,
                               check_flashinfer_sampler_env, computed_profile_terms, custom_allreduce_says, measured_terms,
                               pipeline_cold_start_loss, sampler_kernel_note, trtllm_workspace_in_estimate_bytes)
from kvplan.resolve import DTYPE_BYTES, GB, GPUSpec, ModelSpec, QuantSpec, heads_per_rank, mtp_n_predict, once
from kvplan.versions import (EXPERT_GROUP_ARCHS, LORA_UNSUPPORTED, NATIVE_LOW_PRECISION_CAPABILITY, VersionRules, architecture_refusal,
                             as_v0_engine, canonical_quant, check_serve_env, check_serve_values, eplb_architecture, lora_refusal,
                             newer_than_read, release_from, rule_span, rules_for)
from kvplan.weights import (LORA_MODULES, RankWeights, allocator_rounding_bytes, drafter_weights, kv_dtype_bytes,
                            lora_buffer_bytes, lora_embedding_modules, lora_target_kinds)


PER_ENGINE_FIELDS = ("kv_cache_bytes", "num_gpu_blocks", "kv_cache_tokens", "max_concurrency")


@dataclass(frozen=True)
class Plan:
    """What vLLM will do at startup, with every term that produced it (kvplan.fit returns one).

    Bytes are per rank (one GPU's share under tensor or pipeline parallelism), GiB = 2**30 bytes; tokens and
    concurrency are the server's (each data-parallel engine's where `engines` > 1):

    fits: whether vLLM starts (False: `error` is vLLM's message, `failure` its kind, `fixes` what would start).
    kv_cache_tokens: tokens the KV cache holds ("GPU KV cache size: N tokens"); num_gpu_blocks its blocks of
        `block_size` tokens, each bytes_per_block bytes.
    max_concurrency: requests of max_model_len tokens the cache holds at once ("Maximum concurrency for ...").
    kv_cache_bytes: the pool ("Available KV cache memory"), bytes per rank; negative where the weights leave none.
    total_bytes: the GPU's total as CUDA reports it; requested_bytes: total x gpu_memory_utilization.
    weights_bytes ("Model loading took"), activation_peak_bytes (the profile run's peak), non_torch_bytes,
        cudagraph_bytes (the CUDA-graph estimate the budget subtracts, where the release does): the budget's
        terms, bytes per rank; weights_exact: the weights were read from the checkpoint, not counted.
    kv_bytes_per_token: bytes per token per rank of the layers that grow with the context.
    args: the engine arguments with every default applied (given_args: as given); vllm_version, era: the rules.
    vllm_log: the startup lines vLLM would print; assumptions, warnings: what was assumed and what to heed.
    to_dict(): all of it as `kvplan fit --json` prints it (without its "uncertainty", the validated band).
    """

    model: ModelSpec
    gpu: GPUSpec
    args: EngineArgs                 # every default applied
    rules: VersionRules
    mode: str                        # "vllm" or "simple" (the seed's arithmetic)
    total_bytes: int
    requested_bytes: float
    weights_bytes: int               # per rank
    weights_exact: bool
    activation_peak_bytes: int
    non_torch_bytes: int
    cudagraph_bytes: int             # subtracted from the budget (0 where the era does not)
    cudagraph_capture_bytes: int     # predicted real capture (beyond the budget where not subtracted)
    kv_cache_bytes: float            # available KV memory per rank
    groups: tuple[KVGroup, ...]
    bytes_per_block: int
    num_gpu_blocks: int
    kv_cache_tokens: int
    max_concurrency: float
    kv_bytes_per_token: float        # grows with context: full-attention and MLA layers (per rank)
    state_bytes_per_sequence: int    # fixed per sequence: recurrent state, window-capped layers (per rank)
    fits: bool
    error: str | None
    estimated_max_model_len: int | None
    vllm_log: tuple[str, ...]
    terms: tuple[Term, ...]
    assumptions: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    fixes: tuple[Fix, ...] = ()
    failure: str | None = None       # None (starts), "memory" (the KV-cache checks), "load" (weights beyond the GPU),
                                     # "platform" (GPU generation, dtype), "architecture" (not registered) or
                                     # "state_blocks" (a hybrid's state blocks below max_num_seqs)
    # which check refused a "platform" plan, for what acts on the refusal (api's fixes, the log's exception) without
    # reading its message: "compute_capability" (below the wheels' floor), "bfloat16" (below 8.0), "quantization" (a
    # method needing a newer GPU), "attention_backend" (no backend takes the block size), "gdn_prefill_backend" (a
    # --gdn-prefill-backend of another platform: plan.kv.gdn_prefill), "fp8_e4m3_kv" (e4m3 in Triton below 8.9),
    # "moe_mixed_schemes" (a compressed-tensors ignore list naming part of expert 0: defaults.ct_moe_mixed_schemes);
    # None for every other plan
    failure_code: str | None = None
    weights_by_use: tuple[tuple[str, int], ...] = ()  # per rank, by what a decode step does with them (RankWeights.by_use)
    given_args: EngineArgs | None = None  # the flags as given, before defaults (a replan re-derives the defaults)
    # whether the engine runs chunked prefill (resolve_args: the flag where the release honours it, else the release's
    # default for the model); None for the seed's arithmetic, which plans no scheduler
    chunked_prefill: bool | None = None
    # speculative decoding's own terms (method, tokens; a drafter checkpoint's weights, KV layers and profile bytes)
    speculative: dict | None = None
    # the site calibration (kvplan reconcile --calibrate) this plan applied, for its replans on the same GPU and model
    site_offsets: dict | None = field(default=None, compare=False, repr=False)
    # whether this plan looked its GPU and model up in the site calibration (api.fit's default, which every planning
    # command goes through): its replans on another GPU or model then look theirs up too (api.replan)
    site_calibration: bool = field(default=False, compare=False, repr=False)
    # the CUDA graphs captured: effective mode, capture sizes, the drafter's graphs, their bytes (CudaGraphPlan.to_dict)
    cudagraphs: dict | None = None
    # the GPU model runner planned, {"runner": "v1" | "v2", "why": ...} (model_runner_choice: the release's default
    # and VLLM_USE_V2_MODEL_RUNNER); None for the seed's arithmetic and V0
    model_runner: dict | None = None
    # a compiling (cold) first start's pool beside the warm one planned here (ColdStartLoss.to_dict); None where no
    # start compiles (--enforce-eager, V0, compilation off) or the pool is given (--kv-cache-memory-bytes)
    first_start: dict | None = None
    # whether that compiling first start may be refused where this warm plan starts (the cold-start warning says so:
    # its pool, first_start's loss_bytes_most smaller, fails vLLM's checks); False where it starts or nothing compiles
    first_start_refused: bool = False
    # --hf-overrides (and --rope-scaling / --rope-theta) as applied to the model's config: {"given": the keys set,
    # "changed": {what: [before, after]}} (config_overrides_applied); None where none were given
    config_overrides: dict | None = None
    # the extensible KV cache (vLLM >= 0.34, versions.py kv_pool_sizing): the capacity the profile reserves and logs
    # as "Available KV cache memory" (kv_cache_bytes is then the pool committed after warmup, which the blocks, tokens
    # and concurrency come from), and every term of the measured sizing (plan.extensible.MeasuredPool.to_dict);
    # None where the pool is the profile's estimate
    kv_cache_capacity_bytes: float | None = None
    kv_pool: dict | None = None

    def __repr__(self) -> str:
        """The verdict and its figures on one line: a notebook cell that ends with a plan printed the dataclass whole,
        20,000 characters of model config and terms (p.to_dict() and the attributes hold all of it)."""
        a = self.args
        figures = (f"kv_cache_tokens={self.kv_cache_tokens:,}, max_concurrency={self.max_concurrency:.2f}, "
                   f"kv_cache_gib={self.kv_cache_bytes / GIB:.2f} (per rank), weights_gib={self.weights_bytes / GIB:.2f}")
        # fixes are counted where there are some: a replan looks for none, and "fixes=0" there would read as "none
        # exist" (p.fixes holds them)
        why = "" if self.fits else f", failure={self.failure!r}" + (f", fixes={len(self.fixes)}" if self.fixes else "")
        # data-parallel engines each hold their own pool: the figures are one engine's, as the attributes are
        engines = f", engines={self.engines} (figures per engine)" if self.engines > 1 else ""
        # the seed's arithmetic (--overhead-gb) plans no release's startup
        engine = "the seed's arithmetic" if self.mode == "simple" else f"vLLM {self.vllm_version}"
        return (f"Plan({self.model.id!r} on {self.gpus_used} x {self.gpu.name!r}, "
                f"{engine}, max_model_len={a.max_model_len:,}: fits={self.fits}{why}{engines}, {figures})")

    @property
    def vllm_version(self) -> str:
        return self.rules.version

    @property
    def transient_kept_bytes(self) -> int | None:
        """What the extensible KV cache keeps free for transients (vLLM >= 0.34 'Memory after warmup: ... GiB kept for
        transient activations'): the larger of the transient peak and torch's reservation growth, which kvplan takes
        as the peak (kv_pool's transient_peak_bytes); None where the pool is the profile's estimate."""
        return self.kv_pool.get("transient_peak_bytes") if self.kv_pool else None

    @property
    def era(self) -> str:
        return self.rules.era

    @property
    def block_size(self) -> int:
        return self.args.block_size or DEFAULT_BLOCK_SIZE

    @property
    def window_kv_per_token(self) -> tuple[float, int, int]:
        """(bytes per token per rank of the window-capped attention layers, the tokens per sequence they keep at most,
        the tokens' worth of pages vLLM reserves per sequence in them): their pages grow with each token up to the
        window, then stop; a sequence's reservation is the window plus the tokens of the steps in flight, in whole
        blocks (section 3.4), which is what state_bytes_per_sequence counts."""
        wins = [g for g in self.groups if g.kind in ("sliding", "chunked") and g.window]
        if not wins or self.mode != "vllm":
            return 0.0, 0, 0
        return (sum(g.num_layers * g.page_bytes / g.block_size for g in wins),
                max(min(g.window, self.args.max_model_len) for g in wins),
                max(_group_blocks(g, self.args.max_model_len, self.args, self.rules) * g.block_size for g in wins))

    @property
    def window_in_flight(self) -> tuple[int, int]:
        """(the batches a window layer's reservation counts in flight, max_num_batched_tokens): a window group's pages
        behind the window are freed as tokens are processed, so vLLM sizes each sequence for the window plus every
        scheduled-but-unsettled batch (VllmConfig.max_in_flight_tokens: max_concurrent_batches x
        max_num_batched_tokens; v1/kv_cache_interface.py SlidingWindowSpec.max_admission_blocks_per_request, 0.29.0)."""
        mnbt = self.args.max_num_batched_tokens
        return (window_extra_tokens(self.args, self.rules) // mnbt if mnbt else 0), mnbt

    @property
    def blocks_overridden(self) -> bool:
        """Whether the KV tensors are allocated at --num-gpu-blocks-override's count, whatever was profiled (V1 0.9.1
        logs the override and keeps the profiled count: versions.py gpu_blocks_override "ignored")."""
        return (self.args.num_gpu_blocks_override is not None
                and not (self.rules.is_v1 and self.rules.gpu_blocks_override == "ignored"))

    def window_kv_dict(self) -> dict | None:
        """window_kv_per_token and window_in_flight as --json gives them; None without window layers. Before, fit's
        'vLLM still reserves 16,528 tokens' pages of them per sequence: the window plus 2 x 8,192 tokens of the steps
        in flight' (gpt-oss-20b) was in no field."""
        win, cap, reserved = self.window_kv_per_token
        if not win:
            return None
        batches, mnbt = self.window_in_flight
        return {"bytes_per_token": win, "window_tokens": cap, "reserved_tokens_per_sequence": reserved,
                "steps_in_flight": batches, "tokens_per_step": mnbt}

    def blocks_for_tokens(self, num_tokens: int) -> int:
        """Blocks one request holding `num_tokens` tokens takes across all KV groups (section 3.4)."""
        return sum(_group_blocks(g, num_tokens, self.args, self.rules) for g in self.groups)

    @property
    def engines(self) -> int:
        """Data-parallel engines (vllm serve -dp): each holds its own weights and its own KV pool, so the pool,
        blocks, tokens and concurrency of this plan are per engine."""
        return self.args.data_parallel_size or 1

    @property
    def gpus_used(self) -> int:
        """GPUs vLLM occupies: TP x PP (x PCP) ranks per engine, times the engines."""
        return self.args.tensor_parallel_size * self.args.pipeline_parallel_size * self.args.pcp * self.engines

    def with_fixes(self, fixes: tuple[Fix, ...]) -> "Plan":
        return replace(self, fixes=fixes)

    def to_dict(self) -> dict:
        a = {k: v for k, v in asdict(self.args).items()}
        return {
            "model": self.model.id,
            "model_source": self.model.source,
            "gpu": self.gpu.name,
            "gpu_total_bytes": self.total_bytes,
            "vllm_version": self.vllm_version,
            "era": self.era,
            "mode": self.mode,
            "args": a,
            "kv_bytes_per_token": self.kv_bytes_per_token,
            "state_bytes_per_sequence": self.state_bytes_per_sequence,
            # the window layers' growth and reservation fit's 'KV per token' row prints (render.kv_per_token_text)
            "window_kv": self.window_kv_dict(),
            "weights_bytes": self.weights_bytes,
            "weights_exact": self.weights_exact,
            "budget_bytes": self.requested_bytes,
            "requested_bytes": self.requested_bytes,
            "activation_peak_bytes": self.activation_peak_bytes,
            "non_torch_bytes": self.non_torch_bytes,
            "cudagraph_bytes": self.cudagraph_bytes,
            "cudagraph_capture_bytes": self.cudagraph_capture_bytes,
            "kv_cache_bytes": self.kv_cache_bytes,
            "kv_cache_capacity_bytes": self.kv_cache_capacity_bytes,
            "kv_pool_sizing": self.kv_pool,
            "block_size": self.block_size,
            "bytes_per_block": self.bytes_per_block,
            "kv_cache_groups": [asdict(g) for g in self.groups],
            "num_gpu_blocks": self.num_gpu_blocks,
            "kv_cache_tokens": self.kv_cache_tokens,
            "max_concurrency": self.max_concurrency,
            "gpus_used": self.gpus_used,
            "engines": self.engines,
            "per_engine": list(PER_ENGINE_FIELDS),  # with data parallelism, these are each engine's (of `engines`)
            "kv_cache_tokens_all_engines": self.kv_cache_tokens * self.engines,
            "max_concurrency_all_engines": self.max_concurrency * self.engines,
            "fits": self.fits,
            "error": self.error,
            "failure": self.failure,
            "estimated_max_model_len": self.estimated_max_model_len,
            "vllm_log": list(self.vllm_log),
            "terms": [asdict(t) for t in self.terms],
            "assumptions": list(self.assumptions),
            "warnings": list(self.warnings),
            "fixes": [asdict(f) for f in self.fixes],
            "speculative": self.speculative,
            "cudagraphs": self.cudagraphs,
            "model_runner": self.model_runner,
            "first_start": self.first_start,
            # the offsets `kvplan reconcile --calibrate` stored for this GPU and model, where this plan applied them
            # (the same key in fit --json, sweep --json rows and the web API's answers)
            "site_calibration": site_calibration_dict(self.site_offsets),
            "hf_overrides": self.config_overrides,
            # the memory bar's segments per rank, headroom included (json_out.budget_segments): fit --json's, so a
            # notebook's to_dict() holds what the bar printed
            "budget_segments": [{"label": label, "bytes": b} for label, b in _budget_segments(self)],
        }


def _budget_segments(plan) -> list:
    from kvplan.json_out import budget_segments  # the bar's arithmetic, kept beside the JSON it was written for

    return budget_segments(plan)


def site_calibration_dict(offsets: dict | None) -> dict | None:
    """The site calibration a plan applied, as its JSON says it: where it came from and the bytes per rank it added
    to each measured term; None where none was applied."""
    if not offsets:
        return None
    out = {"source": offsets.get("source", "kvplan reconcile --calibrate")}
    for key in ("activation_peak_bytes", "non_torch_bytes", "cudagraph_bytes"):
        out[key] = int(offsets.get(key, 0))
    if offsets.get("n") is not None:
        out["startups"] = offsets.get("n")
    return out


def cold_start_margin_bytes(plan) -> int:
    """The most KV pool a plan's compiling first start loses (its first_start loss_bytes_most, per rank); the public
    pairs' largest (COLD_START_POOL_LOSS_BYTES) for a plan that carries none (V0, eager, a given pool)."""
    first = getattr(plan, "first_start", None)
    return int(first["loss_bytes_most"]) if isinstance(first, dict) and "loss_bytes_most" in first \
        else COLD_START_POOL_LOSS_BYTES


def _cold_start_outcome(groups, available: float, bytes_per_block: int, resolved: EngineArgs, rules: VersionRules,
                        gpu: GPUSpec, auto_fit: bool, loss: ColdStartLoss) -> ColdStartOutcome:
    """A compiling start's pool, loss.most below the warm one planned (`available`), put through the same checks."""
    cold = available - loss.most
    cold_blocks = max(0, int(cold // bytes_per_block))
    cold_fits, _, cold_len = _fit_check(groups, cold, bytes_per_block, cold_blocks, resolved, rules)
    # a hybrid's colder pool also holds fewer state blocks: the state-block check (state_blocks_refusal) refuses a
    # first start whose blocks fall below max_num_seqs, at any length (auto-fit's shorter one included)
    cold_state = state_blocks_refusal(groups, cold_blocks, resolved, rules, gpu) if cold_fits else None
    # --max-model-len -1 sizes the length from the colder pool instead of refusing it, unless not even one block is
    # left or the state blocks fall short
    shorter = auto_fit and not cold_fits and cold_len > 0 and not cold_state
    refused = bool(not cold_fits or cold_state) and not shorter
    return ColdStartOutcome(fits=cold_fits, estimated_max_model_len=cold_len, blocks=cold_blocks,
                            state_refusal=cold_state, shorter=shorter, refused=refused)


# --------------------------------------------------------------------------- the plan


def _format_gib(x: float) -> str:
    """vLLM's format_gib: str(round(x, 2)) (section 5)."""
    return str(round(x / GIB, 2))


def _plan_inputs(model, gpu, args) -> tuple[ModelSpec, GPUSpec, EngineArgs]:
    """plan()'s three inputs, of the types it plans with; anything else is an InputError naming the call that makes
    the right one (a name reached the planner as a string: "'str' object has no attribute 'cc'", and resolve_gpu's
    (spec, notes) pair as a tuple)."""
    if not isinstance(model, ModelSpec):
        raise InputError("model", f"kvplan.plan takes a resolved model, got {type(model).__name__} {model!r:.60}",
                         "kvplan.resolve_model(NAME_OR_FOLDER), or kvplan.fit(NAME, GPU, **flags), which resolves it")
    if isinstance(gpu, tuple) and gpu and isinstance(gpu[0], GPUSpec):
        raise InputError("gpu", "kvplan.plan takes the GPUSpec, got resolve_gpu's (spec, notes) pair",
                         "kvplan.resolve_gpu(NAME)[0]")
    if not isinstance(gpu, GPUSpec):
        raise InputError("gpu", f"kvplan.plan takes a resolved GPU, got {type(gpu).__name__} {gpu!r:.60}",
                         "kvplan.resolve_gpu(NAME)[0], or kvplan.fit(MODEL, NAME, **flags), which resolves it")
    if args is None:
        args = EngineArgs()
    elif not isinstance(args, EngineArgs):
        raise InputError("args", f"kvplan.plan takes EngineArgs, got {type(args).__name__}",
                         "kvplan.EngineArgs(**flags), or kvplan.fit(MODEL, GPU, **flags), which checks each flag")
    return model, gpu, args


def plan(model: ModelSpec, gpu: GPUSpec, args: EngineArgs | None = None, *, rules: VersionRules | None = None,
         extra_assumptions: Iterable[str] = (), site_offsets: dict | None = None, check_architecture: bool = True,
         pool_given: bool = False) -> Plan:
    """vLLM's startup for `model` on `gpu` with `args` (None fields, or no args, = the version's defaults): the
    planner itself, on a resolved model (kvplan.resolve_model) and GPU (kvplan.resolve_gpu(...)[0]); kvplan.fit
    resolves names, checks keyword flags and adds the fixes. `check_architecture`
    False: the release stands for an era (a record without a version), so neither its registry nor its argparse is
    checked. `pool_given`: args.kv_cache_memory_bytes is the pool a startup log recorded, taken as given to check the
    arithmetic after it (validate --given-kv), not vLLM's --kv-cache-memory-bytes, which the release may lack."""
    model, gpu, args = _plan_inputs(model, gpu, args)
    args, mtp_note = with_mtp_token_default(args, mtp_n_predict(model), model.id)
    args, suffix_note = with_suffix_token_default(args, rules or rules_for(args.vllm_version))
    extra_assumptions = tuple(extra_assumptions) + tuple(n for n in (mtp_note, suffix_note) if n)
    if check_architecture:  # the release is the one the user runs (validate infers some: not held to their argparse)
        # a flag or value `vllm serve` of this release refuses before sizing anything: refused here as the launch
        # files refuse it
        version = (rules or rules_for(args.vllm_version)).version
        check_serve_values({"--hf-overrides": args.hf_overrides or None, "--rope-scaling": args.rope_scaling or None,
                            "--rope-theta": args.rope_theta,
                            "--kv-cache-dtype": args.kv_cache_dtype, "--block-size": args.block_size,
                            "--max-lora-rank": args.max_lora_rank if args.enable_lora else None,
                            "--max-cpu-loras": args.max_cpu_loras if args.enable_lora else None,
                            "--lora-target-modules": " ".join(args.lora_targets or ()) or None,
                            "--mamba-ssm-cache-dtype": args.mamba_ssm_cache_dtype,
                            "--mamba-cache-dtype": args.mamba_cache_dtype,
                            "--decode-context-parallel-size": (args.decode_context_parallel_size
                                                               if (args.decode_context_parallel_size or 1) > 1 else None),
                            "--prefill-context-parallel-size": (args.prefill_context_parallel_size
                                                                if (args.prefill_context_parallel_size or 1) > 1 else None),
                            "--dcp-kv-cache-interleave-size": args.dcp_kv_cache_interleave_size,
                            "--cp-kv-cache-interleave-size": args.cp_kv_cache_interleave_size,
                            "--gdn-prefill-backend": args.gdn_prefill_backend,
                            "--moe-backend": args.moe_backend,
                            "--kv-cache-memory-bytes": None if pool_given else args.kv_cache_memory_bytes,
                            "--num-gpu-blocks-override": args.num_gpu_blocks_override,
                            "--mamba-block-size": args.mamba_block_size,
                            "--calculate-kv-scales": True if args.calculate_kv_scales else None,
                            "--enable-extensible-kv-cache": True if args.enable_extensible_kv_cache else None,
                            "--no-enable-extensible-kv-cache": True if args.enable_extensible_kv_cache is False else None,
                            "--skip-mm-profiling": True if args.skip_mm_profiling else None,
                            "--enable-sleep-mode": True if args.enable_sleep_mode else None,
                            "--disable-custom-all-reduce": True if args.disable_custom_all_reduce else None,
                            "--disable-hybrid-kv-cache-manager": True if args.disable_hybrid_kv_cache_manager else None,
                            "--no-disable-hybrid-kv-cache-manager": True if args.disable_hybrid_kv_cache_manager is False else None,
                            "--kv-transfer-config": args.kv_transfer_config or None,
                            "--disable-sliding-window": True if args.disable_sliding_window else None,
                            "--allow-deprecated-quantization": True if args.allow_deprecated_quantization else None,
                            # written by the launch files (deploy.spec_from_plan) under the same conditions, so fit
                            # refuses what scaffold refuses (a release older than the flag: SERVE_FLAG_SINCE)
                            "--data-parallel-size": args.data_parallel_size if (args.data_parallel_size or 1) > 1 else None,
                            "--enable-expert-parallel": True if args.enable_expert_parallel else None,
                            "--expert-placement-strategy": args.expert_placement_strategy,
                            "--enable-eplb": True if args.enable_eplb else None,
                            "--num-redundant-experts": args.num_redundant_experts,
                            "--eplb-config": args.eplb_config or None,
                            "--all2all-backend": args.all2all_backend,
                            "--pooler-config": args.pooler_config or None,
                            "--override-pooler-config": args.override_pooler_config or None,
                            "--speculative-config": args.speculative_config or None,
                            "--compilation-config": args.compilation_config or None,
                            "--cudagraph-capture-sizes": args.capture_sizes_given,
                            "--max-cudagraph-capture-size": args.max_cudagraph_capture_size,
                            "--performance-mode": args.performance_mode,
                            "--long-prefill-token-threshold": args.long_prefill_token_threshold or None,
                            "--long-prefill-token-threshold-adaptive": True if args.long_prefill_token_threshold_adaptive else None,
                            "--no-long-prefill-token-threshold-adaptive": (
                                True if args.long_prefill_token_threshold_adaptive is False else None),
                            "--async-scheduling": True if args.async_scheduling else None,
                            "--no-async-scheduling": True if args.async_scheduling is False else None,
                            "--cuda-graph-sizes": args.cuda_graph_sizes_given,
                            "--limit-mm-per-prompt": args.limit_mm_per_prompt or None,
                            "--language-model-only": True if args.language_model_only else None,
                            "--cpu-offload-gb": args.cpu_offload_gb or None}, version)
        check_serve_env(args.env, version)
        # --compilation-config keys the release's CompilationConfig refuses as unknown (rows compilation_split_capture_keys)
        split_key_refusal(args, rules or rules_for(args.vllm_version))
    base = model.before_overrides or model
    model, applied, override_notes, override_warnings = config_overrides_applied(model, args, rules or rules_for(args.vllm_version))
    model, window_notes = sliding_window_disabled(model, args, rules or rules_for(args.vllm_version), base)
    override_notes = list(override_notes) + window_notes
    p = _plan(model, gpu, args, rules=rules, extra_assumptions=tuple(extra_assumptions) + tuple(override_notes),
              site_offsets=site_offsets, check_architecture=check_architecture)
    if applied is not None:
        p = replace(p, config_overrides=applied, warnings=p.warnings + tuple(override_warnings))
    if p.fits and ((p.args.kv_cache_memory_bytes is not None and not pool_given)
                   or p.args.num_gpu_blocks_override is not None):
        p = _given_pool_allocation(p)
    # the flags as given (-1 too), not what an auto-fit planned with; the site calibration, for replans
    return replace(p, given_args=args, site_offsets=site_offsets or None)


# what an override's change is called in the plan's notes (ModelSpec fields named as the config names them)
_OVERRIDE_FIELD_NAMES = {"num_kv_heads": "num_key_value_heads", "num_layers": "num_hidden_layers"}
# keys transformers' PretrainedConfig and vLLM read from any model's config, which a config.json may leave out
_COMMON_CONFIG_KEYS = frozenset({"rope_scaling", "rope_theta", "rope_parameters", "sliding_window", "max_position_embeddings",
                                 "architectures", "torch_dtype", "dtype", "head_dim", "num_key_value_heads",
                                 "tie_word_embeddings", "quantization_config", "layer_types", "max_window_layers",
                                 "use_sliding_window", "partial_rotary_factor", "original_max_position_embeddings"})


def expert_placement(model: ModelSpec, args: EngineArgs, ep: int) -> tuple[str, str]:
    """(placement, why): the expert placement vLLM keeps for --expert-placement-strategy on `ep` EP ranks (1: no expert
    parallelism), as fused_moe/expert_map_manager.py determine_expert_placement_strategy and ExpertMapManager.
    _determine_placement_strategy settle it (0.33.0 and 0.34.0 wheels): round_robin only with EP over more than one
    rank, a model whose MoE layers pass num_expert_group > 1 (the config's n_group, in the classes of
    EXPERT_GROUP_ARCHS), no EPLB nor redundant experts (kvplan plans neither), and without data parallelism, where the
    default all2all backend (allgather_reducescatter) runs all2all kernels that keep no round-robin routing tables (only
    DeepEP low-latency and NIXL EP do); linear otherwise, with a warning in the log. "unknown" where the config has
    several expert groups but kvplan has not read whether the model's class passes them."""
    if (args.expert_placement_strategy or "linear") != "round_robin":
        return "linear", "linear placement"
    if ep <= 1:
        return "linear", "without expert parallelism over several ranks vLLM places experts linearly"
    groups = (model.text_config or {}).get("n_group")
    groups = groups if isinstance(groups, int) and not isinstance(groups, bool) else None
    if groups is None or groups <= 1:
        return "linear", (f"{model.id} routes over {groups or 'no'} expert group{'' if groups == 1 else 's'}: vLLM falls "
                          "back to linear placement ('Round-robin expert placement is only supported for models with "
                          "multiple expert groups')")
    if (args.data_parallel_size or 1) > 1:
        return "linear", ("with data parallelism the default all2all backend allgather_reducescatter keeps no round-robin "
                          "routing tables: vLLM falls back to linear placement")
    if not set(model.architectures or ()) & EXPERT_GROUP_ARCHS:
        return "unknown", (f"{model.id}'s config has {groups} expert groups, but kvplan has not read whether "
                           f"{'/'.join(model.architectures or ('its class',))} passes them to its MoE layers")
    return "round_robin", f"{ep} EP ranks, {groups} expert groups and no data parallelism keep it round_robin"


def _sizes_text(sizes, most: int, head: int) -> str:
    """Capture sizes as a note lists them: all of them up to `most`, else the first `head`, '...' and the last."""
    sizes = list(sizes)
    if len(sizes) <= most:
        return ", ".join(map(str, sizes))
    return f"{', '.join(map(str, sizes[:head]))}, ... {sizes[-1]}"


def _layers_text(model: ModelSpec) -> str:
    kinds = Counter((l.kind, l.window) for l in model.layers)
    return ", ".join(f"{n} {kind}" + (f" (window {window:,})" if window else "") for (kind, window), n in sorted(
        kinds.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0)))


def override_changes_text(changed: dict, length: str) -> str:
    """What an override changed (config_overrides_applied's {what: [before, after]}) as one line, 'what a -> b; ...',
    the derived max length ('max_model_len_limit') called `length`: the plan's note and serve.sh's comment."""
    return "; ".join(f"{length if what == 'max_model_len_limit' else what} " + (
        f"{a:,} -> {b:,}" if isinstance(a, int) and isinstance(b, int) else f"{a} -> {b}") for what, (a, b) in changed.items())


def config_overrides_applied(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> tuple[ModelSpec, dict | None, list[str], list[str]]:
    """`model` with --hf-overrides (and --rope-scaling / --rope-theta) applied to its config as vLLM `rules.version`
    applies them (resolve.apply_config_overrides), and what that changed: (the model, {"given", "changed"} for the
    plan's JSON, notes, warnings). Without overrides: the model as read (a replan's spec before its overrides)."""
    from kvplan.resolve import apply_config_overrides, context_limit

    overrides = args.config_overrides
    base = model.before_overrides or model
    if not overrides:
        return base, None, [], []
    flags = args.config_override_flags
    flag = flags[0]  # the field an error names
    new = apply_config_overrides(base, overrides, nested_merge=rules.hf_overrides_nested_merge, version=rules.version, flag=flag)
    warns: list[str] = []
    ropes = [r for key, r in overrides.items() if key in ("rope_scaling", "rope_parameters") and isinstance(r, dict)]
    ropes += [r for sub in overrides.values() if isinstance(sub, dict)
              for key, r in sub.items() if key in ("rope_scaling", "rope_parameters") and isinstance(r, dict)]
    for rope in ropes:
        kind = str(rope.get("rope_type") or rope.get("type") or "")
        if kind == "yarn" and rules.rope_yarn_from_original and "original_max_position_embeddings" not in rope:
            # _get_and_verify_max_len reads rope_scaling["original_max_position_embeddings"] for yarn (up to 0.29)
            raise InputError(flag, f"a yarn rope dict without original_max_position_embeddings: vLLM {rules.version} "
                             "reads it to derive the model's length (KeyError: 'original_max_position_embeddings')",
                             'add "original_max_position_embeddings": the length the model was trained at (32768 for Qwen3)')
    known = set(base.raw_config) | set(base.text_config) | _COMMON_CONFIG_KEYS
    for key in overrides:
        if key not in known:
            import difflib

            near = difflib.get_close_matches(key, sorted(k for k in known if isinstance(k, str)), n=1)
            warns.append(f"{flag} key {key!r} is not in {base.id}'s config: vLLM sets it all the same (setattr on the "
                         "config), and nothing kvplan derives reads it" + (f"; did you mean {near[0]!r}?" if near else ""))
    before, after = context_limit(base, rules), context_limit(new, rules)
    changed: dict = {}
    if before.tokens != after.tokens:
        changed["max_model_len_limit"] = [before.tokens, after.tokens]
    for name in ("num_kv_heads", "head_dim", "num_attention_heads", "num_layers", "hidden_size", "max_position_embeddings",
                 "num_experts", "num_experts_per_tok", "vocab_size", "dtype", "model_type", "architectures"):
        a, b = getattr(base, name), getattr(new, name)
        if a != b:
            changed[_OVERRIDE_FIELD_NAMES.get(name, name)] = [list(a) if isinstance(a, tuple) else a,
                                                              list(b) if isinstance(b, tuple) else b]
    if _layers_text(base) != _layers_text(new):
        changed["layers"] = [_layers_text(base), _layers_text(new)]
    said = override_changes_text(changed, "the derived max length")
    how = ("merges it: a sub-config's keys merged, other keys set as given" if rules.hf_overrides_nested_merge
           else "sets it: each key as given")
    note = (f"{' and '.join(flags)} {json.dumps(overrides)} applied to {base.id}'s config before anything is derived from it (as vLLM "
            f"{rules.version} {how}): " + (said or "nothing kvplan derives changed"))
    if before.tokens != after.tokens:
        note += f" ({after.how})"
    return new, {"given": overrides, "changed": changed}, [note], warns


def sliding_window_disabled(model: ModelSpec, args: EngineArgs, rules: VersionRules,
                            base: ModelSpec) -> tuple[ModelSpec, list[str]]:
    """`model` as vLLM serves it with --disable-sliding-window (rules row disable_sliding_window_rope_refused): its
    sliding-window layers built as full attention, and its derived max length capped at the config's window
    (ModelSpec.sliding_window_cap, read by resolve.context_limit before the rope factor, as _get_and_verify_max_len
    does); the notes saying so. Up to 0.11.x a rope_scaling of a type the release scales (not su / longrope / llama3;
    Gemma 3 aside) is refused with vLLM's NotImplementedError. `base`: the model as read, kept as before_overrides so
    that a replan without the flag starts from it. Without the flag: `model` as it is."""
    from kvplan.resolve import context_limit, sliding_window_of

    if not args.disable_sliding_window:
        return model, []
    if model.compressed_attention:
        raise InputError("--disable-sliding-window", f"{model.id}'s sliding window is part of DeepSeek-V4's compressed "
                         "attention, which kvplan has not read vLLM running without it",
                         "leave out --disable-sliding-window to plan it")
    rope = model.text_config.get("rope_scaling")
    kind = str(rope.get("rope_type") or rope.get("type") or "default") if isinstance(rope, dict) and rope else None
    if (rules.disable_sliding_window_rope_refused and kind is not None and kind not in rules.rope_unscaled_types
            and "gemma3" not in model.model_type):
        raise InputError("--disable-sliding-window", f"{model.id} has rope_scaling of type {kind}, and vLLM "
                         f"{rules.version} refuses to disable the sliding window of such a model (NotImplementedError: "
                         "\"Disabling sliding window is not supported for models with rope_scaling. Please raise an issue "
                         "so we can investigate.\")", "leave out --disable-sliding-window, or use vLLM "
                         f"{release_from('disable_sliding_window_rope_refused', False)} or newer, which takes it")
    window = sliding_window_of(model.text_config)
    windowed = sum(1 for l in model.layers if l.kind == "sliding")
    if window is None and not windowed:
        return model, [f"--disable-sliding-window: {model.id}'s config sets no sliding window, so vLLM {rules.version} "
                       "changes nothing (neither the layers nor the max length)"]
    layers = tuple(replace(l, kind="full", window=None) if l.kind == "sliding" else l for l in model.layers)
    new = replace(model, layers=layers, sliding_window_cap=window, before_overrides=base)
    before, after = context_limit(model, rules), context_limit(new, rules)
    said = [f"{windowed} sliding-window layer{'s' if windowed != 1 else ''} (window {window:,}) built as full attention, "
            "every token held" if windowed and window else ""]
    if before.tokens != after.tokens:
        said.append(f"the derived max length {before.tokens:,} -> {after.tokens:,} ({after.how})")
    elif window and window < (model.max_position_embeddings or before.tokens):
        said.append(f"the derived max length stays {after.tokens:,}: capped at the window, {window:,}, it is derived "
                    f"again from the rope scaling ({after.how})")
    elif window:
        said.append(f"the derived max length stays {after.tokens:,} (the window, {window:,}, is not below it)")
    return new, [f"--disable-sliding-window: vLLM {rules.version} drops the sliding window from the config "
                 "(ModelConfig.disable_sliding_window): " + "; ".join(x for x in said if x)]


def largest_given_pool_bytes(p: Plan) -> int:
    """The largest --kv-cache-memory-bytes whose blocks, CUDA graphs and a full step's activation peak still fit beside
    the weights and non-torch memory on the card (whole MiB)."""
    room = p.total_bytes - p.weights_bytes - p.non_torch_bytes - p.cudagraph_capture_bytes - p.activation_peak_bytes
    return max(0, int(room) // 2**20 * 2**20)


def _override_note(profiled: int, override: int, bytes_per_block: int, checked: str, rules: VersionRules) -> str:
    """The plan's note on --num-gpu-blocks-override: the count replaced, the memory it leaves unused or claims beyond
    the profile, and which count vLLM `rules.version` checks one max-length request against."""
    if checked == "ignored":
        return (f"--num-gpu-blocks-override {override:,}: vLLM {rules.version} logs 'Overriding num_gpu_blocks={profiled} "
                f"with num_gpu_blocks_override={override}' and keeps the profiled {profiled:,} blocks (its get_num_blocks "
                "returns the profiled count, v1/core/kv_cache_utils.py, 0.9.1 wheel; fixed in 0.9.2 by vLLM PR #19503): "
                "pool, tokens and concurrency are the profile's")
    diff = (profiled - override) * bytes_per_block
    side = (f"{diff / GIB:.2f} GiB of the profiled pool left unused" if diff > 0 else
            f"{-diff / GIB:.2f} GiB beyond the profiled pool, allocated whatever gpu_memory_utilization allows" if diff < 0
            else "the profiled pool exactly")
    where = ("engine/llm_engine.py _initialize_kv_caches; worker.py raise_if_cache_size_invalid" if not rules.is_v1 else
             "v1/core/kv_cache_utils.py get_kv_cache_configs (kv_cache_planning.py from 0.33)" if checked == "override"
             else "v1/core/kv_cache_utils.py get_kv_cache_config: check_enough_kv_cache_memory before get_num_blocks")
    return (f"--num-gpu-blocks-override {override:,}: vLLM {rules.version} replaces the profiled {profiled:,} blocks with it "
            f"('Overriding num_gpu_blocks={profiled} with num_gpu_blocks_override={override}') and allocates the KV tensors "
            f"at its size, {override * bytes_per_block / GIB:.2f} GiB ({side}); tokens and concurrency are the override's; "
            f"the max-length check reads the {'override' if checked == 'override' else 'profiled memory, not the override'} "
            f"({where})")


def _given_pool_allocation(p: Plan) -> Plan:
    """--kv-cache-memory-bytes (vLLM >= 0.10.2, PR #21489): gpu_worker's determine_available_memory returns the given
    bytes without checking them against the card ("This does not respect the gpu_memory_utilization config ... If
    OOM'ed, check the difference of initial free memory"). After the profile run frees its activations, the blocks
    are allocated beside the weights and non-torch memory, then the CUDA graphs are captured: a pool beyond what is
    left fails there with PyTorch's "CUDA out of memory", and one that leaves no room for the activation peak of a
    full step fails on the first such step."""
    pool = p.num_gpu_blocks * p.bytes_per_block
    resident = p.weights_bytes + p.non_torch_bytes + p.cudagraph_capture_bytes + pool
    override = p.args.num_gpu_blocks_override
    flag = (f"--num-gpu-blocks-override {override:,} ({pool / GIB:.2f} GiB)" if override is not None
            else f"--kv-cache-memory-bytes {pool / GIB:.2f} GiB")
    if resident > p.total_bytes:
        largest = largest_given_pool_bytes(p)
        fix = (f"{largest // p.bytes_per_block:,} blocks ({largest / GIB:.2f} GiB)" if override is not None and p.bytes_per_block
               else f"{largest / GIB:.2f} GiB")
        error = (f"CUDA out of memory while allocating the KV cache: {flag} of "
                 f"blocks beside {p.weights_bytes / GIB:.2f} GiB of weights, {p.non_torch_bytes / GIB:.2f} GiB non-torch "
                 f"and {p.cudagraph_capture_bytes / GIB:.2f} GiB of CUDA graphs exceed the {p.total_bytes / GIB:.2f} GiB of "
                 f"{p.gpu.name} (the flag ignores gpu_memory_utilization; {fix} leaves room for a full "
                 f"step's activations)")
        before_capture = tuple(line for line in p.vllm_log if not line.startswith("Graph capturing"))
        return replace(p, fits=False, error=error, failure="kv_alloc",
                       vllm_log=before_capture + ("torch.OutOfMemoryError: " + error,))
    if resident + p.activation_peak_bytes > p.total_bytes:
        short = resident + p.activation_peak_bytes - p.total_bytes
        return replace(p, warnings=p.warnings + (
            f"{flag} leaves {(p.total_bytes - resident) / GIB:.2f} GiB for a step's activations, "
            f"{short / GIB:.2f} GiB less than the profiled peak of {p.activation_peak_bytes / GIB:.2f} GiB: the first "
            f"full step of max_num_batched_tokens may fail with CUDA out of memory",))
    return p


def _plan(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, *, rules: VersionRules | None = None,
          extra_assumptions: Iterable[str] = (), site_offsets: dict | None = None, check_architecture: bool = True,
          auto_fit: bool = False) -> Plan:
    rules = rules or rules_for(args.vllm_version)
    rules, env_notes = _env_rules(args, rules)
    if rules.cudagraph_subtracted and not rules.cudagraph_subtracted_rocm and (gpu.vendor or "").upper() == "AMD":
        # 0.20-0.25 profile no CUDA-graph memory on ROCm (rules row cudagraph_subtracted_rocm): the graphs are captured
        # after the KV allocation, beyond the budget, as before 0.20
        rules = replace(rules, cudagraph_subtracted=False)
        env_notes = env_notes + [f"ROCm: vLLM {rules.version} takes no CUDA-graph memory estimate on ROCm "
                                 "(gpu_worker.py determine_available_memory profiles it on CUDA only until 0.26.0); "
                                 "the graphs are captured after the KV allocation, beyond the budget"]
    # a Pooling module of a type the release does not read: neither the runner nor the pooling mode comes from it
    model, st_note = st_module_as_read(model, args, rules)
    if st_note:
        extra_assumptions = tuple(extra_assumptions) + (st_note,)
    why_v0 = v1_fallback(model, gpu, args, rules)
    if why_v0:
        rules = as_v0_engine(rules, why_v0)
    if args.max_model_len == AUTO_FIT:
        return _auto_fit_plan(model, gpu, args, rules, extra_assumptions, site_offsets, check_architecture)
    resolved, quant, notes, chunked_prefill = resolve_args(model, gpu, args, rules)
    model, runner_note = serve_as(model, resolved)
    if runner_note:
        notes.append(runner_note)
    if model.is_pooling and resolved.runner_type != "pooling":
        resolved = replace(resolved, runner="pooling")  # resolved: vLLM's auto choice, made explicit
    check_model_runner_env(model, resolved, rules)
    if check_architecture:  # vLLM's refusals of --enable-sleep-mode (plan.serve_flags), where the release is the one run (a
        # record without a version stands for an era: a log that ran with it was not refused)
        sleep_mode_refusal(gpu, resolved, rules)
        mbs_note = mamba_block_size_refusal(model, resolved, rules)  # --mamba-block-size: refused, or what it moves
        notes += [mbs_note] if mbs_note else []
        load_format_refusal(model, args, rules)  # vLLM's refusals of --load-format (plan.serve_flags)
        moe_backend_refusal(model, gpu, resolved, rules)  # --moe-backend: vLLM's refusals (plan.serve_flags)
    # --kv-transfer-config: KVTransferConfig's kv_role checks; the connector names the release registers for the
    # engine that runs, where the release is the one run (plan.kv_transfer)
    kv_transfer_refusal(resolved, rules, check_release=check_architecture)
    requested_graphs = adaptive_verification_refusal(model, gpu, resolved, rules)  # the capture request it read
    check_flashinfer_sampler_env(model, gpu, rules)
    runner, runner_why = model_runner_choice(model, resolved, rules)
    if rules.window_inflight != "one":
        # the steps in flight follow the runner built (config/vllm.py VllmConfig.max_concurrent_batches, 0.26.0,
        # 0.29.0 and 0.33.0 wheels: pp + 1 on model runner v2, else 2 at PP=1 / pp): section 3.4
        inflight = "mrv2" if runner == "v2" else "mrv1-async"
        # the same rules in every row of a sweep (resolve.answers_kept): a VersionRules is hundreds of fields to copy
        rules = once(lambda: replace(rules, window_inflight=inflight), "window_inflight", rules, (inflight,))
    if resolved.env_value(MRV2_ENV) is not None and rules.mrv2_env != "unread":
        env_notes = env_notes + [f"model runner {runner}: {runner_why}"]
    notes = list(extra_assumptions) + list(rules.notes) + env_notes + notes + list(model.notes)
    notes += load_format_says(model, args, rules)  # --load-format: the loader; the same weights on the GPU
    notes += moe_backend_says(model, gpu, resolved, rules)  # --moe-backend: the experts' kernel, what kvplan sizes
    beyond = newer_than_read(rules)
    if resolved.overhead_gb is not None:  # the seed's arithmetic has no warnings: said among its assumptions
        _refuse_what_the_seed_ignores(model, args)
        return _simple_plan(model, gpu, resolved, rules, quant, notes + ([beyond] if beyond else []))
    warns: list[str] = [beyond] if beyond else []
    # --[no-]async-scheduling as the release resolves it (plan.serve_flags; refused with what it does not run with):
    # the resolved value is kept in the plan's args, which the window groups and the simulator read
    resolved = replace(resolved, async_scheduling_resolved=resolve_async_scheduling(model, resolved, rules, runner, warns,
                                                                           refuse=check_architecture))
    if resolved.enable_eplb or resolved.eplb_settings:  # (vLLM builds an --eplb-config given without EPLB too)
        # EPLB's redundant experts (or vLLM's refusal): the experts each rank builds (plan.eplb)
        resolved = replace(resolved, eplb_redundant=resolve_eplb(model, quant, resolved, rules, notes, warns, gpu))
    if resolved.cudagraph_mode and resolved.captures_cuda_graphs:  # NONE is modelled: no graphs, no graph memory
        warns.append(f"--compilation-config cudagraph_mode {resolved.cudagraph_mode}: kvplan reads it for the hybrid "
                     "state-block check, the speculative-decoding rounding of the capture sizes and the drafter's graphs; "
                     "the CUDA-graph memory per layer and capture size is still the one fitted on the releases' default mode"
                     + ("; it captures no PIECEWISE graph, so kvplan charges none, and the pool its first (largest) FULL "
                        "graph takes, which vLLM's estimate measures, is not modelled: the CUDA-graph term is a lower bound"
                        if resolved.cudagraph_mode in ("FULL", "FULL_DECODE_ONLY") else ""))
    dp_dynamic = dynamic_sd_dp_warning(resolved, rules)
    if dp_dynamic:
        warns.append(dp_dynamic)
    if why_v0:  # vLLM's own warning (engine/arg_utils.py _raise_or_fallback)
        warns.append(f"{why_v0} is not supported by the V1 Engine. Falling back to V0.")
    backend_error, block_warning = block_size_backend(model, gpu, args.block_size, resolved, rules)
    if block_warning:
        warns.append(block_warning)
    if quant is not None and quant.method == "gguf" and resolved.dtype == "bfloat16" and gpu.cc and gpu.cc >= (10, 0):
        # GGUFConfig.get_supported_act_dtypes drops bfloat16 on Blackwell (vLLM PR #30408, Dec 2025; the GGUF plugin
        # later restored it): which releases refuse is not pinned, so this is said, not planned
        warns.append("GGUF on a Blackwell GPU: vLLM releases since PR #30408 (Dec 2025) refuse bfloat16 for GGUF "
                     "weights there ('torch.bfloat16 is not supported for quantization method gguf'); pass --dtype float16")
    warns += _mm_limit_warnings(model, resolved)
    tp, pp = resolved.tensor_parallel_size, resolved.pipeline_parallel_size
    if pp > model.num_layers:  # a stage would hold no decoder layer: not a split kvplan can plan (nor one worth GPUs)
        raise InputError("--pipeline-parallel-size", f"{pp:,} stages for {model.num_layers} decoder layers leave stages "
                         "without a layer", f"at most {model.num_layers} (one layer per stage)")
    total = gpu.total_bytes
    util = resolved.gpu_memory_utilization
    requested = math.ceil(total * util) if rules.requested_is_ceil else total * util
    ep = resolved.expert_parallel_size
    spec = resolved.speculative
    text_only = _text_only(model, resolved, rules)
    w: RankWeights = rank_weights(model, gpu, resolved, rules, quant)
    if not 0.5 <= w.checkpoint_ratio <= 2.0:  # the bytes are the files', which then describe another model than the config
        files = model.checkpoint.total_bytes
        warns.append(f"the checkpoint's weight files hold {files / GIB:,.2f} GiB, but its config.json counts "
                     f"{files / w.checkpoint_ratio / GIB:,.2f} GiB of weights: a partial download (shards missing), or files "
                     "and config of different models? The plan uses the files' bytes")
    if text_only:
        notes.append("text-only mode (--limit-mm-per-prompt 0 for every modality, or --language-model-only): vLLM loads no "
                     "vision tower and profiles no encoder pass")
    if resolved.data_parallel_size > 1:
        notes.append(f"data parallel: {resolved.data_parallel_size} engines, each with the pool below; "
                     f"{resolved.data_parallel_size} x the concurrency in all")
    notes.append(f"weights: {w.method}")
    if gpu.vendor == "AMD" and rules.rocm_weights_log_measure == "device_used":
        notes.append(rocm_weights_log_note(rules, given_pool=resolved.kv_cache_memory_bytes is not None))
    if rules.engine != "v0" and inductor_compiles(resolved) and not resolved.env_on("VLLM_DISABLE_COMPILE_CACHE"):
        # whole here where the pool is given; else completed below, once the plan's cold-start loss is known
        notes.append(compile_cache_note(None, given_pool=resolved.kv_cache_memory_bytes is not None))
    # in bytes, so the parts add up to the term: the checkpoint's share per rank, then what loading adds or moves
    w_formula = f"{w.bytes:,} B per rank (TP={tp}, PP={pp}; rotary cache {w.rotary_bytes / 1024 ** 2:.1f} MiB included)"
    # linear weights of 2 or 1 byte(s), or AWQ / GPTQ integers packed into int32 (bits / 8 bytes a weight, the
    # embedding and lm_head in the model dtype). The Marlin repack keeps each tensor's size and frees the loaded one
    # before its replacement is allocated (0.22.1, 0.31.0: awq_marlin.py / auto_awq.py _convert_awq_to_standard_format
    # rebinds qweight, then kernels/linear/mixed_precision/marlin.py process_weights_after_loading sets x.data to
    # gptq_marlin_repack's output; 0.12.0: awq_marlin.py registers awq_marlin_repack's output and frees the loaded
    # tensor, which the next layer's repack gets back), so the allocator's best fit returns a block of the loaded
    # tensor's 2 MiB-rounded size (a decoder module a skip list keeps in 16 bits is still sized packed here)
    packed = (quant is not None and quant.method in ("awq", "gptq") and quant.bits in (4, 8)
              and not quant.module_bytes)
    if quant is None or quant.bits == 8 and quant.scheme.startswith("fp8") or packed:
        linear_bytes = quant.bits / 8 if packed else 1 if quant is not None else DTYPE_BYTES[resolved.dtype]
        sizes = dict(tp=tp, dtype_bytes=linear_bytes, ep=ep, dp=resolved.data_parallel_size * resolved.pcp,
                     split_limit=rules.allocator_split_limit, embed_bytes=DTYPE_BYTES[resolved.dtype],
                     redundant_experts=resolved.eplb_redundant)
        rounding = once(lambda: allocator_rounding_bytes(model, **sizes), "allocator_rounding", model,
                        tuple(sizes.items()))
        expandable = resolved.expandable_segments(rules.torch_alloc_conf_env)
        if rounding and expandable and sleep_pool_keeps_block_rounding(resolved, rules):
            notes.append("PyTorch's allocator has expandable_segments:True, but the weights load in sleep mode's CuMem "
                         "pool, which turns expandable segments off inside itself (device_allocator/cumem.py "
                         f"use_memory_pool, vLLM >= 0.20.1): weight tensors keep the 2 MiB-block rounding, "
                         f"{rounding / 1024 ** 2:.1f} MiB per rank")
            w = replace(w, bytes=w.bytes + rounding)
            w_formula += f" + {rounding:,} B allocator rounding (expandable segments off in the CuMem pool)"
        elif rounding and expandable:
            # the same tensors with expandable_segments:True: blocks rounded to 512 B (see allocator_rounding_bytes)
            kept = allocator_rounding_bytes(model, tp=tp, dtype_bytes=linear_bytes, ep=ep,
                                            dp=resolved.data_parallel_size * resolved.pcp,
                                            embed_bytes=DTYPE_BYTES[resolved.dtype],
                                            expandable_segments=True, redundant_experts=resolved.eplb_redundant)
            notes.append(f"PyTorch's allocator has expandable_segments:True ({' / '.join(rules.torch_alloc_conf_env)}): "
                         f"weight tensors take blocks rounded up to 512 B, not to 2 MiB, so the {rounding / 1024 ** 2:.1f} "
                         "MiB per rank of 2 MiB rounding is not counted")
            if kept:
                w = replace(w, bytes=w.bytes + kept)
                w_formula += f" + {kept:,} B allocator rounding (512 B blocks)"
        elif rounding:
            w = replace(w, bytes=w.bytes + rounding)
            w_formula += f" + {rounding:,} B allocator rounding"
            notes.append(f"weights load under a 20 MiB allocator split limit: tensors of 20 MiB or more are rounded up to "
                         f"2 MiB blocks, {rounding / 1024 ** 2:.1f} MiB per rank" if rules.allocator_split_limit else
                         f"the caching allocator keeps the rest (1 MiB or less) of the 2 MiB-rounded blocks of weight tensors "
                         f"of 10 MiB or more: {rounding / 1024 ** 2:.1f} MiB per rank")
    spec_info = {"method": spec[0], "num_speculative_tokens": spec[1]} if spec else None
    if (spec and spec[0] == "eagle3" and pp > 1 and rules.pp_spec_drafter == "mrv2"
            and not set(model.architectures or ()) & set(rules.pp_eagle3_aux_architectures)):
        # model runner v2 relays the target's auxiliary hidden states to the last stage only for decoders that can
        # (rules row pp_eagle3_aux_architectures; eagle3_utils.py verify_supports_aux_hidden_states_over_pp)
        warns.append(f"EAGLE-3 with pipeline parallelism: vLLM {rules.version} starts it only where the target's decoder "
                     "relays its auxiliary hidden states between stages (supports_aux_hidden_states_over_pp: LlamaModel, "
                     f"Qwen2Model and their subclasses); {'/'.join(model.architectures or ()) or model.id} is not among "
                     "the architectures kvplan read as doing so, and vLLM refuses it otherwise ('... does not support "
                     "eagle3 with pipeline parallelism')")
    if spec and spec[0] in DRAFT_METHODS:
        d_bytes, d_parts, d_notes = drafter_weights(resolved.draft, model, spec[0], tp=tp, pp=pp, dtype_bytes=DTYPE_BYTES[resolved.dtype],
                                              gpu_cc=gpu.cc, gpu_vendor=gpu.vendor)
        # the drafter loads on the last pipeline stage: the busiest rank grows only as far as that stage outgrows it
        stages = tuple(w.stage_bytes[:-1]) + (w.stage_bytes[-1] + d_bytes,) if w.stage_bytes else ()
        busiest = w.bytes - max(w.stage_bytes) + max(stages) if stages else w.bytes + d_bytes
        w = replace(w, bytes=busiest, exact=w.exact and spec[0] == "draft_model" and resolved.draft.checkpoint is not None,
                    by_use=tuple(w.by_use) + (("drafter", d_bytes),) if w.by_use else w.by_use, stage_bytes=stages)
        w_formula += f" + {d_bytes:,} B {spec[0]} drafter ({resolved.draft.id})"
        spec_info.update(draft_model=resolved.draft.id, draft_source=resolved.draft.source, draft_commit=resolved.draft.commit,
                         draft_decoder_layers=resolved.draft.num_layers,
                         draft_kv_layers=sum(l.kind != "none" for l in resolved.draft.layers) if rules.is_v1 else 0,
                         draft_weights_bytes=d_bytes, draft_weights_parts=dict(d_parts),
                         draft_profile_bytes=(_drafter_profile_bytes(model, resolved, rules) or (0,))[0],
                         lookahead_slots_per_sequence=spec[1])
        notes.extend(d_notes)
    if resolved.lora_settings_ignored:  # vLLM builds no LoRA config without --enable-lora: no slots, nothing checked
        warns.append(f"{', '.join(resolved.lora_settings_ignored)} without --enable-lora: vLLM ignores them (no LoRA "
                     "config is built, so no adapter slots are allocated; planned without them); add --enable-lora to "
                     "serve adapters")
    if resolved.enable_lora:
        refusal = lora_refusal(model.architectures, rules.version)
        if refusal and refusal[0] == "refused":
            row = LORA_UNSUPPORTED[refusal[1]]
            raise RefusedByVLLMError("--enable-lora", f"{refusal[1]} does not support LoRA yet.",
                                     "drop --enable-lora" + (f", or plan with --vllm-version {row[1]} or later (its class "
                                                             "implements SupportsLoRA)" if row[1] else ""),
                                     rule="LoRA on a model class without SupportsLoRA")
        if refusal:
            row = LORA_UNSUPPORTED[refusal[1]]
            warns.append(f"--enable-lora: {refusal[1]} has no LoRA support in vLLM {row[0]}"
                         + (f" and has it in {row[1]}; vLLM {rules.version} lies between the releases read"
                            if row[1] else f"; no later release read adds it, so vLLM {rules.version} may refuse "
                            f"('{refusal[1]} does not support LoRA yet.')"))
        loras, rank = resolved.max_loras or 1, resolved.max_lora_rank or 16
        embedding, head = lora_embedding_modules(model, rules)
        given = resolved.lora_targets
        targets, unmatched = lora_target_kinds(given, rules.lora_target_packed) if given else (None, ())
        if unmatched:
            packed = "qkv_proj" if any(n.endswith(("q_proj", "k_proj", "v_proj")) for n in unmatched) else "gate_up_proj"
            warns.append(f"--lora-target-modules {' '.join(unmatched)}: vLLM {rules.version} matches a module by its own "
                         f"name only (lora/utils.py is_in_target_modules; a packed module's children from 0.20.0), so "
                         f"{'they wrap' if len(unmatched) > 1 else 'it wraps'} nothing: give {packed} to put slots on "
                         "the fused layer")
        if ep > 1 and rules.lora_moe and model.is_moe and (targets is None or "experts" in targets):
            if not rules.lora_moe_ep:
                raise RefusedByVLLMError("--enable-expert-parallel", "EP support for Fused MoE LoRA is not implemented yet.",
                                         f"drop --enable-expert-parallel, or plan with --vllm-version "
                                         f"{release_from('lora_moe_ep', True)} or later (its MoE LoRA takes expert parallelism)",
                                         rule="MoE LoRA with expert parallelism before 0.21")
            placement, why = expert_placement(model, resolved, ep)
            if placement == "round_robin" and rules.lora_moe_placement == "refused":
                raise RefusedByVLLMError("--expert-placement-strategy",
                                         "Fused MoE LoRA with EP requires linear expert placement: adapter loading assumes "
                                         "a contiguous range of experts on each rank, got 'round_robin'. Set "
                                         "expert_placement_strategy='linear' to use MoE LoRA with expert parallelism.",
                                         f"drop --expert-placement-strategy round_robin (linear is the default): {why}",
                                         rule="MoE LoRA with round-robin expert placement from 0.34")
            if resolved.expert_placement_strategy == "round_robin" and placement == "linear" and rules.lora_moe_placement:
                notes.append(f"--expert-placement-strategy round_robin: {why}, so MoE LoRA loads as with linear placement")
            if placement == "unknown" and rules.lora_moe_placement:
                warns.append(f"--expert-placement-strategy round_robin with --enable-lora: {why}. Where it does and no "
                             "data parallelism is set, the placement stays round_robin and "
                             + ("vLLM 0.34 refuses the start ('Fused MoE LoRA with EP requires linear expert placement')"
                                if rules.lora_moe_placement == "refused" else
                                f"vLLM {rules.version} loads the adapters' experts for a linear placement"))
            if placement == "round_robin" and rules.lora_moe_placement == "contiguous":
                warns.append(f"--expert-placement-strategy round_robin with --enable-lora: {why}, but vLLM "
                             f"{rules.version} loads each rank's adapter experts as the contiguous range ep_rank x "
                             "local_num_experts (lora/model_manager.py), so adapters apply to other experts than the "
                             "ones a rank holds; vLLM 0.34 refuses this ('Fused MoE LoRA with EP requires linear expert "
                             "placement'): drop --expert-placement-strategy round_robin")
            if resolved.fully_sharded_loras:
                raise RefusedByVLLMError("--fully-sharded-loras", "Fused MoE LoRA does not support enable_expert_parallel=True "
                                         "together with fully_sharded_loras=True. Disable one of them.",
                                         "drop --fully-sharded-loras or --enable-expert-parallel",
                                         rule="MoE LoRA with expert parallelism and fully sharded LoRA")
        lora = lora_buffer_bytes(model, max_loras=loras, max_lora_rank=rank, dtype_bytes=DTYPE_BYTES[resolved.dtype], tp=tp,
                                 fully_sharded=resolved.fully_sharded_loras, extra_vocab=rules.lora_extra_vocab,
                                 moe_lora=rules.lora_moe, embedding=embedding, lm_head=head, targets=targets, ep=ep,
                                 moe_fully_sharded=rules.lora_moe_fully_sharded)
        w = replace(w, bytes=w.bytes + lora)
        w_formula += f" + {lora:,} B LoRA slots"
        arch = "/".join(model.architectures or ("the model class",))
        wrapped = ("embedding and lm_head" if head else f"embedding (no lm_head in {arch}'s embedding_modules)") if embedding \
            else f"not the embedding nor lm_head: {arch} lists neither in vLLM {rules.version}'s embedding_modules"
        if targets is not None:
            notes.append(f"--enable-lora: {lora / GIB:.2f} GiB of LoRA slots per rank ({loras} x rank {rank} on the "
                         f"modules --lora-target-modules {' '.join(given)} names: {', '.join(k for k in LORA_MODULES if k in targets)}"
                         f"{'' if embedding or not targets & {'embed_tokens', 'lm_head'} else f'; {wrapped}'}), "
                         "allocated while the model loads (lora/model_manager.py _match_target_modules)")
        else:
            notes.append(f"--enable-lora: {lora / GIB:.2f} GiB of LoRA slots per rank ({loras} x rank {rank} on every supported "
                         f"layer, {wrapped}), allocated while the model loads")
    if resolved.enable_eplb and resolved.eplb_redundant is not None and eplb_architecture(model.architectures, rules.release):
        # the balancer's state (plan.eplb.eplb_state_bytes), built while the model loads from 0.20.0 (rules row
        # eplb_state_measured "weights"), after "Model loading took" is measured before that
        experts_bytes = dict(w.by_use).get("experts", 0)
        state, state_parts = eplb_state_bytes(model, resolved, rules, experts_bytes)
        shown = ", ".join(f"{name} {b / 1024 ** 2:,.1f} MiB" for name, b in state_parts)
        if rules.eplb_state_measured == "weights":
            w = replace(w, bytes=w.bytes + state)
            w_formula += f" + {state:,} B EPLB state"
            notes.append(f"EPLB state per rank: {state / GIB:.3f} GiB ({shown}), allocated while the model loads "
                         "(v1/worker/gpu_model_runner.py load_model: EplbState.add_model inside the load's memory "
                         "measurement; distributed/eplb/eplb_state.py)")
        else:
            warns.append(f"EPLB state per rank: {state / GIB:.3f} GiB ({shown}), which vLLM {rules.version} allocates "
                         "after measuring the weights and before the profile run (v1/worker/gpu_model_runner.py "
                         "load_model), so no term of its budget counts it: the KV pool is sized as if it were not there "
                         "and the GPU holds that much beyond --gpu-memory-utilization")
    deepstack = deepstack_buffer_bytes(model, resolved, rules, text_only)
    if deepstack:
        w = replace(w, bytes=w.bytes + deepstack)
        w_formula += f" + {deepstack:,} B deepstack buffers"
        notes.append(f"Qwen3-VL deepstack buffers: {len(model.vision_config['deepstack_visual_indexes'])} x "
                     f"{resolved.max_num_batched_tokens:,} tokens x {model.hidden_size:,} x "
                     f"{DTYPE_BYTES.get(resolved.dtype, 2)} B = {deepstack / 1024 ** 2:.0f} MiB per rank, allocated while the "
                     "model loads (models/qwen3_vl.py)")
    if resolved.cpu_offload_gb:
        # only the parameters of the modules vLLM wraps move: the decoder layers make_layers builds, in layer order and
        # parameter by parameter until the bytes moved reach the budget, and from 0.30 a multimodal tower (rules row
        # cpu_offload_towers; model_executor/models/utils.py maybe_offload_to_cpu, offloader/uva.py UVAOffloader.
        # _maybe_offload_to_cpu); the embedding, lm_head, final norm, rotary cache, LoRA slots and a drafter stay. The
        # last parameter moved can overshoot the budget by its own size, which kvplan does not add
        budget = int(resolved.cpu_offload_gb * GIB)
        eligible, vision = _offloadable(w, rules)
        moved = min(eligible, budget)
        outside = w.bytes - eligible
        w = replace(w, bytes=w.bytes - moved)
        w_formula += f" - {moved:,} B CPU offload"
        parts = "decoder layers" + (" and vision tower" if vision else "")
        kept = (f"; {w.bytes / GIB:.2f} GiB stay on the GPU, {outside / GIB:.2f} GiB of them outside the {parts} (the "
                "embedding, lm_head, final norm and anything else vLLM does not offload)" if w.layer_bytes is not None else
                "; kvplan could not split this architecture's weights, so it counts the whole budget as moved")
        capped = (f", all {eligible / GIB:.2f} GiB of its {parts}" if eligible < budget else
                  ", whole parameters until the budget is reached: up to one parameter more may move")
        notes.append(f"--cpu-offload-gb {resolved.cpu_offload_gb:g}: {moved / GIB:.2f} GiB of weights per GPU move to CPU "
                     f"memory (streamed over PCIe every forward){capped if w.layer_bytes is not None else ''}{kept}")
    notes += list(w.notes)
    graphs = cudagraph_plan(model, gpu, resolved, rules, requested_graphs)
    graphs_on = sizes_left(resolved, graphs)  # False where vLLM set cudagraph_mode NONE for want of capture sizes
    adaptive_warning = adaptive_verification_warning(resolved, rules, graphs)
    if adaptive_warning:
        warns.append(adaptive_warning)
    measured = measured_terms(model, gpu, resolved, rules, graphs)
    act, act_f, src = measured["activation_peak"]
    sampler_note = sampler_kernel_note(rules, coefficients_for(rules.era), model)
    if sampler_note:
        notes.append(sampler_note)
    nt, nt_f, _ = measured["non_torch"]
    estimate, cg_f, _ = measured["cudagraph"]
    capture = measured["cudagraph_capture"][0]
    skipped = capture_skipped(model, resolved, rules, runner, graphs)
    if skipped:  # capture_model returns before capturing (model runner v2 with no size left): no graph pool
        capture = 0
    if site_offsets:
        act += int(site_offsets.get("activation_peak_bytes", 0))
        nt += int(site_offsets.get("non_torch_bytes", 0))
        estimate += int(site_offsets.get("cudagraph_bytes", 0))
        capture += int(site_offsets.get("cudagraph_bytes", 0))
        notes.append(f"site calibration applied: {site_offsets.get('source', 'kvplan reconcile --calibrate')}")
        # shown, not only listed: the numbers differ from an uncalibrated plan's (`kvplan validate`'s, --overhead-gb's)
        moved = [f"{name} {int(site_offsets.get(key, 0)) / GIB:+.2f} GiB" for key, name in
                 (("activation_peak_bytes", "activation"), ("non_torch_bytes", "non-torch"), ("cudagraph_bytes", "CUDA graphs"))
                 if int(site_offsets.get(key, 0))]
        warns.append(f"site calibration applied ({site_offsets.get('source', 'kvplan reconcile --calibrate')}): "
                     + (", ".join(moved) if moved else "no term moved") + " per rank, as those startups measured")
    cg = estimate if rules.cudagraph_subtracted else 0
    runner = model_runner(model, resolved, rules)
    graph_info = None
    if resolved.captures_cuda_graphs:
        g_per = coefficients_for(rules.era).g_per_layer_size
        drafter_graph_bytes = int(g_per * graphs.drafter_layers * graphs.drafter_graphs)
        graph_info = dict(graphs.to_dict(), capture_bytes=capture, drafter_graph_bytes=drafter_graph_bytes,
                          model_runner=runner)
        if runner == "v2" and rules.cudagraph_subtracted:
            # v2's estimate is its own (measured_terms): the speculator's PIECEWISE graphs at its per-layer rate and
            # its FULL ones at vLLM's 1 MiB floor, where the release's speculator captures them (rules row
            # mrv2_drafter_graph_methods), else none
            drafter_graph_bytes = int(graphs.mrv2_drafter_bytes) if rules.mrv2_cudagraph_estimate else 0
            graph_info["drafter_graph_bytes"] = drafter_graph_bytes
        if spec_info is not None:
            spec_info.update(drafter_cudagraphs=graphs.drafter_graphs, drafter_cudagraph_bytes=drafter_graph_bytes)
        if graphs.mode_note:
            notes.append(f"CUDA graphs: {graphs.mode_note}")
        late_ws = _flashinfer_workspace_after_kv(model, gpu, resolved, rules, runner, graphs)
        if late_ws:
            warns.append(late_ws)
        if graphs.lora_cases > 1:
            notes.append(f"CUDA graphs: --enable-lora captures each size {graphs.lora_cases} times, without and with "
                         "active LoRA (CompilationConfig.cudagraph_specialize_lora, on by default; "
                         "v1/cudagraph_dispatcher.py), so twice the graphs and their memory")
        if graphs.adaptive_sizes:
            pw = graphs.piecewise_sizes or ()
            notes.append(f"CUDA graphs: adaptive verification (vLLM {rules.version}): uniform decode batches, each request "
                         f"verifying up to {resolved.decode_query_len} tokens, replay {len(graphs.adaptive_sizes)} "
                         f"token-keyed FULL graphs up to {graphs.adaptive_sizes[-1]:,} tokens "
                         f"({', '.join(map(str, graphs.adaptive_sizes[:12]))}{', ...' if len(graphs.adaptive_sizes) > 12 else ''}) "
                         "instead of request-count ones (config/compilation.py varlen_decode_cudagraph_capture_grid, "
                         "config/vllm.py VllmConfig.get_varlen_decode_cudagraph_token_sizes, v1/worker/gpu/"
                         "cudagraph_utils.py CudaGraphManager)" + (f", beside {len(pw)} PIECEWISE sizes up to "
                                                                   f"{max(pw):,} tokens" if pw else ""))
        elif graphs.wide_grids and graphs_on:
            top_reqs = graphs.full_count(resolved.max_num_seqs, resolved.decode_query_len)
            notes.append(f"CUDA graphs: vLLM {rules.version} on compute capability 10.x splits the capture sizes: "
                         f"{len(graphs.piecewise_sizes)} prefill sizes up to {max(graphs.piecewise_sizes, default=0):,} "
                         f"tokens (PIECEWISE) and {top_reqs} uniform-decode graphs (FULL) from its request-count grid "
                         "(config/vllm.py VllmConfig._split_cudagraph_capture_sizes, config/compilation.py "
                         "prefill_cudagraph_capture_grid / decode_cudagraph_capture_grid); the per-graph memory rate was "
                         "fitted on captures of at most 1,024 tokens")
        if graphs_on and graphs.split is not None and not graphs.adaptive_sizes and (spec or graphs.drafter_decode_graphs):
            notes.append(split_graphs_note(graphs, rules))
        head = interactivity_head(resolved, rules)
        if head and graphs_on and graphs.source == "default":
            shown = _sizes_text(graphs.sizes, 40, 36)
            dense = sorted(s for s in (graphs.piecewise_sizes if graphs.piecewise_sizes is not None else graphs.sizes)
                           if s <= head)
            notes.append(f"CUDA graphs: --performance-mode interactivity: vLLM {rules.version}'s default grid takes every "
                         f"size 1-{max(dense, default=0)} at its head instead of 1, 2, 4 (config/vllm.py "
                         "VllmConfig._set_cudagraph_sizes" + (", config/compilation.py prefill_cudagraph_capture_grid "
                         "dense_head" if graphs.piecewise_sizes is not None else "") + f"): {len(graphs.sizes)} "
                         f"capture sizes ({shown})")
        if graphs.source != "default":
            given_sizes = graphs.sizes if graphs.split is None else graphs.split.prefill
            shown = _sizes_text(given_sizes, 12, 6)
            notes.append(f"CUDA graphs: {len(given_sizes)} capture size(s) ({shown or 'none'}) from {graphs.source} "
                         "(config/vllm.py VllmConfig._set_cudagraph_sizes), not vLLM's default list")
        if graphs.rounded_to > 1:
            how = (f"1 + {spec[1]} = {graphs.rounded_to}" if graphs.rounded_to == 1 + spec[1] else
                   f"max(1 + {spec[1]}, TP {resolved.tensor_parallel_size}) = {graphs.rounded_to}")
            notes.append(f"CUDA graphs: speculative decoding rounds the capture sizes to multiples of {how} "
                         f"({len(graphs.sizes)} sizes, largest {graphs.largest}; compilation.py "
                         "adjust_cudagraph_sizes_for_spec_decode)")
        if graphs.drafter_layers and runner == "v2" and (graphs.drafter_graphs or graphs.drafter_full_graphs):
            notes.append(f"CUDA graphs: model runner v2's speculator captures {graphs.drafter_graphs} PIECEWISE graph(s) "
                         f"of the drafter's {graphs.drafter_layers} layer(s) and {graphs.drafter_full_graphs} FULL "
                         "graph(s) with graph managers of its own, which vLLM's estimate captures and measures in full "
                         "beside the target's (v1/worker/gpu/cudagraph_utils.py profile_cudagraph_memory, 0.29.0-0.34.0): "
                         f"{drafter_graph_bytes / GIB:.3f} GiB at the per-layer rate and 1 MiB per FULL graph")
        elif graphs.drafter_layers and runner == "v2":
            notes.append(f"CUDA graphs: kvplan has not read model runner v2's speculator graphs for this method in vLLM "
                         f"{rules.version} (versions.py mrv2_drafter_graph_methods): the drafter's graph memory is not "
                         "counted apart")
        elif graphs.drafter_graphs:
            notes.append(f"CUDA graphs: the drafter's {graphs.drafter_layers} layer(s) capture {graphs.drafter_graphs} "
                         f"PIECEWISE graphs of their own in the target's graph pool ({drafter_graph_bytes / GIB:.3f} GiB "
                         "at the per-layer graph rate; llm_base_proposer.py initialize_cudagraph_keys)")
    v0_state = _v0_mamba_cache_bytes(model, resolved, rules)
    if v0_state:
        act += v0_state
        act_f += f" + V0 Mamba cache {v0_state / GIB:.2f} GiB"
        notes.append(f"V0 engine: the Mamba state of {_v0_state_seqs(resolved)} sequences ({v0_state / GIB:.2f} GiB) is allocated on the "
                     "profile run's first forward, so it is part of the peak (model_executor/models/mamba_cache.py)")
    drafter_profile = 0  # the drafter's profile buffers: on the last pipeline stage only, where the drafter is built
    for label, extra, note in computed_profile_terms(model, gpu, resolved, rules, act):
        act += extra
        if label == DRAFTER_PROFILE_LABEL:
            drafter_profile = extra
        if extra:
            act_f += f" + {label} {extra / GIB:.2f} GiB"
        notes.append(note)
    skip_note, skip_warning = skip_mm_profiling_says(model, resolved, rules, act)
    notes += [skip_note] if skip_note else []
    warns += [skip_warning] if skip_warning else []
    extensible, extensible_off = extensible_kv_cache(gpu, resolved, rules)
    # --enable-sleep-mode: no budget change (said), and the risks kvplan does not size
    sleep_notes, sleep_warns = sleep_mode_says(resolved, rules, quant, extensible=bool(extensible))
    notes += sleep_notes
    warns += sleep_warns
    if resolved.calculate_kv_scales:  # --calculate-kv-scales (0.7.0-0.27.x): said, nothing moves
        kv_scales_note, kv_scales_warning = calculate_kv_scales_says(model, resolved, rules)
        notes.append(kv_scales_note)
        warns += [kv_scales_warning] if kv_scales_warning else []
    kt_notes, kt_warns = kv_transfer_says(resolved, rules)  # --kv-transfer-config: the hybrid manager, the memory
    notes += kt_notes
    warns += kt_warns
    car_note = custom_allreduce_says(gpu, resolved, rules)  # --disable-custom-all-reduce: what the release charged
    if car_note:
        notes.append(car_note)
    capture_f = ""
    if extensible and cg:
        # model runner v2's profile_cudagraph_memory returns 0 with the extensible KV cache, which measures the capture
        # after warmup instead (v1/worker/gpu/model_runner.py GPUModelRunner.profile_cudagraph_memory, 0.34.0 wheel):
        # neither the capacity nor the transient peak holds an estimate
        notes.append(f"CUDA graphs: no estimate before the KV allocation (vLLM {rules.version}'s extensible KV cache "
                     f"measures the capture, ~{capture / GIB:.2f} GiB, after warmup: GPUModelRunner.profile_cudagraph_memory "
                     "returns 0)")
        capture_f = cg_f  # the capture's own formula, which the cudagraph_capture term shows
        cg, cg_f = 0, "0: not estimated with the extensible KV cache (GPUModelRunner.profile_cudagraph_memory, 0.34.0)"
    available = requested - w.bytes - nt - act - cg
    if rules.kv_pool_sizing == "extensible" and rules.is_v1 and not extensible:
        notes.append(fallback_note(rules, extensible_off, util))
        if "vmm_unavailable_reason" in extensible_off:  # found at startup: vLLM's warning (v1/executor/abstract.py)
            warns.append(f"Disabling the extensible KV cache: {extensible_off}. The KV cache will be sized from profiling "
                         "estimates instead of measured memory.")
    if resolved.kv_cache_memory_bytes is not None:
        # --kv-cache-memory-bytes: profiling still runs, but the pool is exactly this (section 1.3)
        available = float(resolved.kv_cache_memory_bytes)
        notes.append(f"KV-cache memory given: {available / GIB:.2f} GiB (--kv-cache-memory-bytes); utilization ignored")

    # the GDN prefill kernel (--gdn-prefill-backend), worked out once: build_groups reads whether it exports
    # checkpoints; vLLM's refusal of a backend the platform lacks, or its fallback warning, and what runs (V1)
    gdn_kernel = gdn_prefill(model.layers, gpu, resolved, rules)
    groups, bytes_per_block, block_formula = build_groups(model, resolved, rules, notes, warns, gpu, gdn_kernel)
    if resolved.pcp > 1:  # --prefill-context-parallel-size: refusals, its note (PCP runs on model runner v2)
        pcp_checks(model, resolved, rules, groups, notes, model_runner_choice(model, resolved, rules), gpu)
    dcp_checks(model, resolved, rules, groups, notes, warns, gpu)  # --decode-context-parallel-size: refusals, its note
    interleave_checks(resolved, rules, groups, notes, warns)  # --dcp/--cp-kv-cache-interleave-size: refusals, note
    gdn = gdn_kernel if rules.is_v1 else None
    if gdn is not None and gdn.note:
        notes.append(gdn.note)
    if gdn is not None and gdn.warning:
        warns.append(gdn.warning)
    act_first = act - measured["activation_peak"][0] + measured["activation_no_sampler"][0] - drafter_profile
    staged = _pipeline_stage_pool(model, resolved, rules, groups, w, requested, nt, cg, act, act_first,
                                  nt - measured["non_torch"][0] + measured["non_torch_no_sampler"][0])
    if staged is not None:
        available, bytes_per_block, stage_note, stage_pools = staged
        block_formula += f"; {stage_note}"
        notes.append(stage_note)
    bs = min(g.block_size for g in groups)
    if model.compressed_attention:
        bs = _DSV4_BLOCK  # "Setting kv cache block size to 256 for DEEPSEEK_SPARSE_SWA backend": the attention block
    resolved = replace(resolved, block_size=bs)
    num_blocks = max(0, int(available // bytes_per_block)) if available > 0 else 0
    capacity, capacity_blocks, pool, util_warning = available, num_blocks, None, None
    if extensible:
        # the profile's figure is only the capacity reserved; the pool is what the memory measured after warmup and
        # CUDA-graph capture leaves (plan.extensible)
        pool = measured_pool(total=total, requested=requested, weights=w.bytes, non_torch=nt,
                             capture=capture if graphs_on else 0, activation_peak=act,
                             cudagraph_estimate=cg, capacity_bytes=capacity, capacity_blocks=capacity_blocks,
                             bytes_per_block=bytes_per_block, groups=groups, args=resolved, rocm=gpu.vendor == "AMD")
        num_blocks = pool.num_blocks
        # the pool is the blocks committed, as vLLM logs it ('N KV cache blocks (S GiB)', 'Extended KV cache to N
        # blocks (S GiB)': num_blocks x bytes_per_block), not the bytes they were fitted into
        available = float(num_blocks * bytes_per_block)
        notes.append(f"extensible KV cache (vLLM {rules.version}): 'Available KV cache memory' {capacity / GIB:.2f} GiB is the "
                     f"capacity reserved; the pool, {available / GIB:.2f} GiB in {num_blocks:,} blocks, is what fits in "
                     f"{min(pool.available_bytes, capacity) / GIB:.2f} GiB, the memory measured after warmup and "
                     f"CUDA-graph capture leaves less a {pool.margin_bytes / GIB:.2f} GiB margin and the "
                     f"{pool.transient_peak_bytes / GIB:.2f} GiB transient peak (v1/worker/extensible_kv_cache.py "
                     "measure_kv_cache_bytes). Estimated, not measured on a 0.34 start: the non-torch, activation and "
                     f"CUDA-graph terms are era {rules.era}'s fits carried over, the memory in use before vLLM's snapshot "
                     f"{pool.startup_used_bytes / GIB:.1f} GiB, and the sizing warmup's peak and torch's reservation growth "
                     "are taken as no larger than the profile's peak")
        util_warning = utilization_warning(pool, args.gpu_memory_utilization)
        if util_warning:
            warns.append(util_warning)
        unified = unified_memory_warning(gpu, pool, rules)
        if unified:
            warns.append(unified)
        if gpu.vendor == "AMD":  # the runtime's version is not an input: its fallback is said, not planned
            notes.append("ROCm: HIP runtimes before ROCm/rocm-systems#2451 (TheRock 7.12) reject the extensible KV cache's "
                         "mappings (utils/vmm_driver.py unusable_runtime_reason, 0.34.0); vLLM then disables it with a "
                         "warning and sizes the pool from the profile's estimate at 0.92 (--no-enable-extensible-kv-cache "
                         "plans that)")
    profiled_blocks = None
    if resolved.num_gpu_blocks_override is not None and pool is None:
        # --num-gpu-blocks-override: the profiled count is logged and replaced; the KV tensors are allocated at the
        # override's size (the allocation is checked in plan(): _given_pool_allocation)
        checked = "override" if not rules.is_v1 else rules.gpu_blocks_override
        profiled_blocks = num_blocks
        if checked != "ignored":
            num_blocks = resolved.num_gpu_blocks_override
        if checked == "override":
            capacity, capacity_blocks = float(num_blocks * bytes_per_block), num_blocks
        notes.append(_override_note(profiled_blocks, resolved.num_gpu_blocks_override, bytes_per_block, checked, rules))
    max_len = resolved.max_model_len
    group_blocks = [_group_blocks(g, max_len, resolved, rules) for g in groups]
    per_req = sum(group_blocks)
    # its formula: each group's blocks, equal groups counted ("6 x 1,089 sliding"), so the parts add up to the term
    per_kind = Counter((g.kind, b) for g, b in zip(groups, group_blocks))
    per_req_formula = (" + ".join(f"{n} x {b:,} {kind}" if n > 1 else f"{b:,} {kind}" for (kind, b), n in per_kind.items())
                       + f": one {max_len:,}-token request's blocks in each of {len(groups)} group(s)")
    cross = next((g for g in groups if g.kind == "cross"), None)
    if cross is not None:
        enc = cross_attention_tokens(cross, resolved, rules)
        what = "max_num_batched_tokens" if rules.cross_attention_tokens == "batched_tokens" else "the encoder length"
        per_req_formula += (f"; cross-attention: cdiv({enc:,}, {cross.block_size}) whatever the request's length "
                            f"({what}: "
                            "CrossAttentionSpec.max_memory_usage_bytes takes scheduler_config."
                            "max_num_encoder_input_tokens, v1/kv_cache_interface.py)")
    if rules.dsv4_accounting in ("layer_tuple", "page_slots") and groups[0].fit_unit_bytes:
        # DeepSeek-V4 up to 0.26: a request's blocks weighted by each group's bytes over the attention group's
        per_req = cdiv(sum(b * g.page_bytes for g, b in zip(groups, group_blocks)), groups[0].page_bytes)
        per_req_formula = (f"cdiv({' + '.join(f'{b:,} x {g.page_bytes:,} B' for g, b in zip(groups, group_blocks))}, "
                           f"{groups[0].page_bytes:,} B): each group's blocks weighted by its page over the attention group's")
    logged_block = [_logged_block_size(g, max_len, resolved, rules) for g in groups]
    conc, tokens, conc_formula, tokens_formula = _capacity(groups, num_blocks, per_req, max_len, bs, rules, logged_block,
                                                           resolved.dcp)

    kv_per_token, state_per_seq = _per_token_and_state(groups, resolved, rules)
    kv_per_token_formula = _per_token_formula(model, groups, resolved)
    fits, error, est_len = _fit_check(groups, capacity, bytes_per_block, capacity_blocks, resolved, rules,
                                      hint=kv_memory_hint(extensible, util))
    after_warmup_error = False
    capacity_len = max_len if fits else est_len  # the length the capacity holds (auto-fit's first, tentative fit)
    if pool is not None and capacity > 0:
        # finalize_extensible_kv_cache checks one request again against the committed blocks, null block held back
        # (shrink_kv_cache_configs); an auto-fit length is fitted again to them, so the estimate is theirs
        final = (fits, error, est_len)
        after = _fit_check(groups, num_blocks * bytes_per_block if num_blocks > 1 else 0, bytes_per_block, num_blocks,
                           resolved, rules, hint=kv_memory_hint(True, util, after_warmup=True))
        after_warmup_error = fits and not after[0]
        fits, error, est_len = after if fits else (final[0], final[1], after[2] if after[2] is not None else final[2])
    failure = None if fits else "memory"
    if fits:
        # the Mamba-block check runs while the CUDA graphs are set up, against the blocks then allocated (the
        # capacity, with the extensible KV cache: config/compilation.py, 0.34.0)
        state_error = state_blocks_refusal(groups, capacity_blocks, resolved, rules, gpu, notes, warns)
        if state_error:
            fits, error, failure = False, state_error, "state_blocks"
    load_error = _load_oom(gpu, w.bytes)
    if (load_error is None and rules.online_fp8_loads_16bit and quant is not None and quant.method == "fp8"
            and quant.scheme.endswith("(online)")):
        # online FP8 up to 0.15 builds the whole model in its 16-bit dtype first (rules row online_fp8_loads_16bit)
        w16 = rank_weights(model, gpu, resolved, rules, None)
        full = w16.bytes
        if resolved.cpu_offload_gb:  # the 16-bit decoder layers move to the CPU as they are built, up to the budget
            full -= min(_offloadable(w16, rules)[0], int(resolved.cpu_offload_gb * GIB))
        load_error = _load_oom(gpu, full)
        if load_error:
            load_error += (f" (vLLM {rules.version}'s online FP8 allocates every Linear weight in {resolved.dtype} before "
                           f"quantizing it to the {w.bytes / GIB:.2f} GiB planned; from vLLM 0.16 it quantizes layer by "
                           "layer, or serve an FP8 checkpoint)")
    if load_error and resolved.enable_lora:
        load_error += (f" ({lora / GIB:.2f} GiB of them are the LoRA slots, {resolved.max_loras or 1} x rank "
                       f"{resolved.max_lora_rank or 16} on every wrapped module: fewer --max-loras, a lower "
                       "--max-lora-rank or --lora-target-modules shrink them)")
    if load_error:
        fits, error, failure, est_len = False, load_error, "load", None
    fp8_error = _fp8_e4m3_kv_error(gpu, resolved, rules, warns, kv_scales_method(quant, args.quantization, rules),
                                   args.kv_cache_dtype)
    marlin_warning = weight_only_marlin_warning(gpu, resolved, quant, rules)
    if marlin_warning:
        warns.append(marlin_warning)
    refusal = _startup_error(gpu, resolved, rules, quant, args.quantization)  # (Plan.failure_code, message) or None
    if refusal is None and gdn is not None and gdn.refusal:
        refusal = "gdn_prefill_backend", gdn.refusal
    if refusal is None and backend_error:
        refusal = "attention_backend", backend_error
    if refusal is None and fp8_error:
        refusal = "fp8_e4m3_kv", fp8_error
    e5m2_error = _e5m2_kv_error(resolved, quant, args.quantization, rules) if refusal is None else None
    if e5m2_error:
        refusal = "fp8_e5m2_kv_fp8_checkpoint", e5m2_error
    moe_mixed = ct_moe_mixed_schemes(model, quant, rules) if refusal is None else None
    if moe_mixed:
        refusal = "moe_mixed_schemes", moe_mixed
    failure_code = None
    if refusal:
        fits, failure = False, "platform"
        failure_code, error = refusal
    arch = architecture_refusal(model.architectures, rules.release) if check_architecture else None
    if arch and arch[0] == "unknown":
        warns.append(arch[1])
    elif arch:  # ModelConfig refuses it while reading the config: before any worker, GPU check or load
        fits, error, failure, failure_code = False, arch[1], "architecture", None
    # a compiling first start's pool beside the warm one planned here (fit --json first_start, --explain)
    moe_ws = measured.get("moe_workspace_in_non_torch", (0,))[0]
    cold_loss = (cold_start_pool_loss_bytes(model, resolved, rules, act + moe_ws)
                 if rules.engine != "v0"
                 and inductor_compiles(resolved) and resolved.kv_cache_memory_bytes is None
                 and resolved.num_gpu_blocks_override is None else None)
    if cold_loss is not None and staged is not None and cold_loss.modelled and cold_loss.most > 0:
        cold_loss = pipeline_cold_start_loss(model, resolved, rules, stage_pools, capacity, bytes_per_block,
                                             act_first + moe_ws, cold_loss)
    if cold_loss is not None and pool is not None and cold_loss.least > 0:
        # the extensible KV cache keeps max(floor, 0.75 P) free beside the transient peak P: the compile's transient
        # (the loss's `least`, in the profile's peak) raises that margin too (plan.extensible)
        grown = cold_start_margin_growth_bytes(pool, cold_loss.least, rocm=gpu.vendor == "AMD")
        if grown:
            cold_loss = replace(cold_loss, least=cold_loss.least + grown, most=cold_loss.most + grown,
                                formula=cold_loss.formula + f"; + {grown / GIB:.2f} GiB of the extensible KV cache's "
                                "margin, 0.75 x the larger transient peak")
    cache_note = compile_cache_note(None)
    if cold_loss is not None and cache_note in notes:
        notes[notes.index(cache_note)] = compile_cache_note(cold_loss)
    first_refused = False
    if fits and cold_loss is not None:
        outcome = _cold_start_outcome(groups, available, bytes_per_block, resolved, rules, gpu, auto_fit, cold_loss)
        cold_warning = _cold_start_warning(resolved, max_len, auto_fit, cold_loss, outcome)
        if cold_warning:
            warns.append(cold_warning)
        first_refused = outcome.refused  # refused implies a warning: the one reading of both
    if fits and conc < 1:
        # the release's own check passed (0.14-0.18 count only the first KV group's need), yet its log prints a
        # concurrency below 1x: the pool cannot hold one request of max_model_len in all its groups
        fix = ("--max-model-len auto --concurrency 1 gives the length that can" if profiled_blocks is None or
               num_blocks == profiled_blocks else
               f"--num-gpu-blocks-override {per_req + 1:,} or more holds one beside the null block (vLLM checks the "
               f"profiled memory, not the override, up to 0.20; vLLM issue #35541 reports such a server hanging)")
        warns.append(f"vLLM {rules.version} starts, but the pool holds {conc:.2f}x of one {max_len:,}-token request "
                     f"({num_blocks:,} of the {per_req:,} blocks it needs): a request that long cannot be held whole; "
                     + fix)
    # the budget's terms, the same whichever way the pool is sized
    terms = (
        Term("total", total, "bytes", f"{gpu.name}: {total / GIB:.2f} GiB", gpu.total_source),
        Term("requested", requested, "bytes", f"{'ceil(' if rules.requested_is_ceil else ''}{total / GIB:.2f} GiB x {util}{')' if rules.requested_is_ceil else ''}",
             "vllm-memory-model.md §1.2" if pool is None else "vllm/v1/worker/utils.py request_memory, 0.34.0"),
        Term("weights", w.bytes, "bytes", w_formula, w.method),
        Term("non_torch", nt, "bytes", nt_f, src),
        Term("activation_peak", act, "bytes", act_f, src),
        Term("cudagraph", cg, "bytes", cg_f if rules.cudagraph_subtracted else f"not subtracted in {rules.era} (captured after the KV allocation: ~{capture / GIB:.2f} GiB beyond the budget)", src),
    )
    terms = terms + ((
        Term("kv_cache", available, "bytes", "requested - weights - non_torch - activation_peak - cudagraph"
             if resolved.kv_cache_memory_bytes is None else f"--kv-cache-memory-bytes {resolved.kv_cache_memory_bytes:,} as given "
             "(the budget's other terms are profiled, not subtracted)", "vllm-memory-model.md §1.3"),
    ) if pool is None else (
        Term("kv_cache_capacity", capacity, "bytes", "requested - weights - non_torch - activation_peak - cudagraph: the profile's "
             "'Available KV cache memory', reserved as virtual memory and checked for one max-length request",
             "vllm/v1/worker/gpu_worker.py Worker.determine_available_memory, 0.34.0"),
        Term("startup_used", pool.startup_used_bytes, "bytes", "in use before vLLM's init snapshot (CUDA context, cuBLAS; NCCL and "
             "all-reduce buffers under TP/PP): not fitted, a judgement from the records' 'Free memory on device' lines, "
             "which read 0.07-0.61 GiB on one GPU by its size (0.19 on an L4, 0.51-0.61 on an H100)",
             "plan.extensible STARTUP_USED_*"),
        Term("init_free", pool.init_free_bytes, "bytes", f"total - startup_used = {total / GIB:.2f} - {pool.startup_used_bytes / GIB:.2f} GiB",
             "MemorySnapshot at Worker.init_device"),
        Term("cudagraph_capture", capture if graphs_on else 0, "bytes",
             "the captured CUDA-graph pool, resident when the pool is measured (fitted per layer and size, era " + rules.era + ")"
             + (f": {capture_f}" if capture_f else ""), src),
        Term("non_kv_used", pool.non_kv_used_bytes, "bytes", "weights + non_torch + cudagraph_capture: init_free - free after warmup - committed",
             "vllm/v1/worker/extensible_kv_cache.py measure_kv_cache_bytes, 0.34.0"),
        Term("transient_peak", pool.transient_peak_bytes, "bytes", "activation_peak + cudagraph (peak_activation_memory; the sizing "
             "warmup's allocated peak taken as no larger)", "gpu_worker.py initialize_from_config / record_transient_peak, 0.34.0"),
        Term("margin", pool.margin_bytes, "bytes", f"max({(3 if gpu.vendor == 'AMD' else 1)} GiB, 0.75 x transient_peak)",
             "extensible_kv_cache.py KV_CACHE_MARGIN_FLOOR_BYTES / KV_CACHE_MARGIN_FRACTION, 0.34.0"),
        Term("kv_cache", available, "bytes",
             f"min(requested - non_kv_used, init_free - non_kv_used - margin) - transient_peak = min({pool.budget_cap_bytes / GIB:.2f}, "
             f"{pool.device_cap_bytes / GIB:.2f}) GiB, at most the capacity: the pool committed after warmup",
             "extensible_kv_cache.py measure_kv_cache_bytes; kv_cache_planning.py finalize_extensible_kv_cache, 0.34.0"),
    ))
    terms = terms + (
        Term("kv_bytes_per_token", kv_per_token, "B/token", kv_per_token_formula, "vllm-memory-model.md §3.1"),
        Term("bytes_per_block", bytes_per_block, "B", block_formula, "vllm-memory-model.md §3.1-3.3"),
        Term("num_gpu_blocks", num_blocks, "blocks", f"--num-gpu-blocks-override {num_blocks:,} (profiled: floor({available / GIB:.4f} "
             f"GiB / {bytes_per_block:,} B) = {profiled_blocks:,})" if profiled_blocks is not None and num_blocks != profiled_blocks else
             f"floor({available / GIB:.4f} GiB / {bytes_per_block:,} B)" if pool is None else
             f"min(blocks whose {pool.segments} segment(s) each rounded up to 2 MiB fit in {pool.available_bytes / GIB:.4f} GiB = "
             f"{pool.measured_blocks:,}, capacity floor({capacity / GIB:.4f} GiB / {bytes_per_block:,} B) = {capacity_blocks:,})",
             "vllm-memory-model.md §3.3" if pool is None else "extensible_kv_cache.py ExtensibleKVCache.blocks_within, 0.34.0"),
        Term("blocks_per_request", per_req, "blocks", per_req_formula, "vllm-memory-model.md §3.4"),
        Term("max_concurrency", conc, "x", conc_formula, "vllm-memory-model.md §3.5"),
        Term("kv_cache_tokens", tokens, "tokens", tokens_formula, "vllm-memory-model.md §3.5"),
    )
    # a state-block refusal comes while the CUDA graphs are set up, after the pool is sized and logged: the pool's lines,
    # then vLLM's ValueError (not a KV-cache check's error line)
    state_refused = failure == "state_blocks"
    # V1's post-capture summary (versions.py row summary_log_format): printed once the capture is done, wherever the
    # pool was profiled; its terms join --explain
    summary = None
    if (rules.is_v1 and rules.summary_log_format and resolved.kv_cache_memory_bytes is None and not state_refused
            and failure not in ("load", "architecture", "platform")
            and ((fits or after_warmup_error) if pool is not None else (fits and not error))):
        # free memory at the init snapshot: total - startup_used on a discrete GPU; a unified-memory GPU's is the OS's
        # available memory (extensible.unified_memory_warning), which the plan does not hold
        unified = gpu.form == "integrated" and (gpu.vendor or "").upper() == "NVIDIA"
        used = None if unified else pool.startup_used_bytes if pool is not None else startup_used_bytes(resolved)
        summary = summary_figures(rules, total, util, requested, w.bytes, nt, act, cg,
                                  capture if graphs_on else 0,
                                  capacity if pool is not None else available, used)
        if pool is None and used is not None:
            terms = terms + (
                Term("startup_used", used, "bytes", "in use before vLLM's init snapshot (CUDA context, cuBLAS; NCCL and "
                     "all-reduce buffers under TP/PP): not fitted, a judgement from the records' 'Free memory on device' "
                     "lines, which read 0.07-0.61 GiB on one GPU by its size (0.19 on an L4, 0.51-0.61 on an H100); only "
                     "the summary's free figure and its second suggestion read it", "plan.extensible STARTUP_USED_*"),
                Term("init_free", summary.init_free, "bytes", f"total - startup_used = {total / GIB:.2f} - {used / GIB:.2f} GiB",
                     "MemorySnapshot at Worker.init_device"),
            )
        if pool is None:
            terms = terms + (Term("cudagraph_capture", summary.cudagraph_capture, "bytes",
                                  "the captured CUDA-graph pool (fitted per layer and size, era " + rules.era + ")", src),)
        peak_f = ("activation_peak + cudagraph (peak_activation_memory: the transient peak and the applied estimate)"
                  if summary.peak_activation != act else "activation_peak (peak_activation_memory)")
        limit_f = "weights + non_torch + summary_peak_activation + cudagraph_capture + 150 MiB"
        terms = terms + (
            Term("summary_peak_activation", summary.peak_activation, "bytes", peak_f,
                 "vllm/v1/worker/gpu_worker.py Worker.determine_available_memory"),
            Term("kv_cache_memory_to_requested_limit", summary.to_requested_limit, "bytes", f"requested - ({limit_f}): "
                 "the summary's first --kv-cache-memory suggestion", "gpu_worker.py Worker.compile_or_warm_up_model"),
        )
        if summary.to_gpu_limit is not None:
            terms = terms + (Term("kv_cache_memory_to_gpu_limit", summary.to_gpu_limit, "bytes", f"init_free - ({limit_f}): "
                                  "the summary's second --kv-cache-memory suggestion", "gpu_worker.py Worker.compile_or_warm_up_model"),)
    log = _log_lines(rules, gpu, util, requested, w.bytes, nt, act, cg, capture, available, num_blocks, bytes_per_block,
                     tokens, conc, max_len, fits, None if state_refused else error, bs, resolved,
                     runner=runner, pool=pool, capacity=capacity, after_warmup_error=after_warmup_error,
                     util_warning=util_warning, summary=summary, graphs_on=graphs_on,
                     capture_skipped=skipped)
    if state_refused:
        log += ("ValueError: " + error,)
    if failure == "load":  # the weights' allocations fail mid-load: no "Model loading took", budget or pool line
        log = ("torch.OutOfMemoryError: " + error,)
    if failure == "architecture":
        log = ("ValueError: " + error,)
    if failure == "platform":  # stopped at worker start (dtype check) or its first kernel: nothing is loaded or sized
        log = (("RuntimeError: " if failure_code == "compute_capability" else "ValueError: ") + error,)
    return Plan(model=model, gpu=gpu, args=resolved, rules=rules, mode="vllm", total_bytes=total, requested_bytes=requested,
                chunked_prefill=chunked_prefill,
                weights_bytes=w.bytes, weights_exact=w.exact, weights_by_use=w.by_use, activation_peak_bytes=act, non_torch_bytes=nt,
                cudagraph_bytes=cg, cudagraph_capture_bytes=capture, kv_cache_bytes=available, groups=groups,
                bytes_per_block=bytes_per_block, num_gpu_blocks=num_blocks, kv_cache_tokens=tokens, max_concurrency=conc,
                kv_bytes_per_token=kv_per_token, state_bytes_per_sequence=state_per_seq, fits=fits, error=error,
                estimated_max_model_len=est_len, vllm_log=log, terms=terms, assumptions=tuple(dict.fromkeys(notes)),
                warnings=tuple(warns), failure=failure, failure_code=failure_code, speculative=spec_info, cudagraphs=graph_info,
                model_runner={"runner": runner, "why": runner_why} if rules.is_v1 else None,
                first_start=cold_loss.to_dict(available) if cold_loss is not None else None,
                first_start_refused=first_refused,
                kv_cache_capacity_bytes=capacity if pool is not None else None,
                kv_pool=dict(pool.to_dict(), capacity_max_model_len=capacity_len) if pool is not None else None)


def _auto_fit_plan(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules,
                   extra_assumptions: Iterable[str], site_offsets: dict | None, check_architecture: bool) -> Plan:
    """--max-model-len -1 (>= 0.14, section 4): plan at the model's limit; when one request of that length does not
    fit, vLLM takes the estimated maximum length the fit check computes (a binary search of the same need) instead."""
    if not rules.max_model_len_auto_fit:
        raise InputError("--max-model-len", f"-1 (auto-fit) is not a vLLM {rules.version} option",
                         "give a length, or plan with --vllm-version 0.14 or newer")
    full = _plan(model, gpu, replace(args, max_model_len=None), rules=rules, extra_assumptions=extra_assumptions,
                 site_offsets=site_offsets, check_architecture=check_architecture, auto_fit=True)
    limit = full.args.max_model_len
    if not full.fits and (full.failure != "memory" or full.kv_cache_bytes <= 0):
        return full  # a platform error, or "No available memory for the cache blocks", comes first
    if full.kv_pool is not None:
        return _auto_fit_extensible(model, gpu, args, rules, extra_assumptions, site_offsets, check_architecture, full)
    if full.fits:
        note = f"Auto-fit max_model_len: full model context length {limit} fits in available KV cache memory"
        return replace(full, assumptions=full.assumptions + (note,), vllm_log=full.vllm_log + (note,))
    if not full.estimated_max_model_len:
        error = ("Cannot auto-fit max_model_len: not enough GPU memory available to serve even a single token. "
                 + (kv_memory_hint(False, 1.0) if rules.auto_fit_tentative else "Try increasing `gpu_memory_utilization`."))
        return replace(full, error=error, vllm_log=full.vllm_log + (error,))
    fitted = _plan(model, gpu, replace(args, max_model_len=full.estimated_max_model_len), rules=rules,
                   extra_assumptions=extra_assumptions, site_offsets=site_offsets, check_architecture=check_architecture,
                   auto_fit=True)
    fit_bytes = fitted.kv_cache_bytes
    if args.num_gpu_blocks_override is not None and rules.is_v1 and rules.gpu_blocks_override == "override":
        # 0.21+: auto-fit reads the override's memory (get_kv_cache_configs), less the null block from 0.29
        fit_bytes = (fitted.num_gpu_blocks - (1 if rules.null_block_in_fit_check else 0)) * fitted.bytes_per_block
    note = (f"Auto-fit max_model_len: reduced from {limit} to {fitted.args.max_model_len} to fit in available KV cache "
            f"memory ({fit_bytes / GIB:.2f} GiB GPU)")
    if rules.auto_fit_tentative:
        # 0.34 without the extensible KV cache: the final wording, a warning below 8,192 tokens
        # (AUTO_FIT_SHORT_MAX_MODEL_LEN, v1/core/kv_cache_planning.py _auto_fit_max_model_len)
        fitted_len = fitted.args.max_model_len
        note = _short_auto_fit_warning(f"--max-model-len auto reduced max_model_len from {limit} to {fitted_len} "
                                       f"({fit_bytes / GIB:.2f} GiB GPU available for the KV cache).",
                                       fitted_len, fitted.args.gpu_memory_utilization)
    log = list(fitted.vllm_log)
    at = next((i for i, line in enumerate(log) if "KV cache size" in line or "Maximum concurrency" in line), len(log))
    log.insert(at, note)  # logged while the KV-cache config is built, before the capacity lines
    return replace(fitted, assumptions=fitted.assumptions + (note,), vllm_log=tuple(log))


def _short_auto_fit_warning(line: str, length: int, util: float | None) -> str:
    """vLLM 0.34's auto-fit line, with the warning it adds below AUTO_FIT_SHORT_MAX_MODEL_LEN (8,192 tokens) and the way
    out for the utilization it ran at (v1/core/kv_cache_planning.py _auto_fit_max_model_len, 0.34.0 wheel)."""
    if length >= 8192:
        return line
    return line[:-1] + (f". Requests longer than {length} tokens will be rejected. "
                        + ("Increase `gpu_memory_utilization` or set --max-model-len explicitly."
                           if util is not None and util < 1.0 else "Use more GPUs or set --max-model-len explicitly."))


def _auto_fit_extensible(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules,
                         extra_assumptions: Iterable[str], site_offsets: dict | None, check_architecture: bool,
                         full: Plan) -> Plan:
    """--max-model-len -1 with the extensible KV cache (vLLM >= 0.34): the length is fitted to the capacity first (a
    tentative fit, logged as such), then again to the blocks committed after warmup and CUDA-graph capture
    (v1/core/kv_cache_planning.py _auto_fit_max_model_len with after_warmup, called by finalize_extensible_kv_cache,
    0.34.0 wheel), whose lines say so."""
    limit = full.args.max_model_len
    tentative_len = full.kv_pool.get("capacity_max_model_len") or 0
    if tentative_len <= 0:  # the capacity holds no token: the first fit's error, the estimate's hint
        error = ("Cannot auto-fit max_model_len: not enough GPU memory available to serve even a single token. "
                 + kv_memory_hint(True, full.args.gpu_memory_utilization))
        return replace(full, fits=False, failure="memory", error=error, vllm_log=full.vllm_log + ("ValueError: " + error,))
    final_len = limit if full.fits else full.estimated_max_model_len
    gib = f"{_format_gib(full.kv_cache_capacity_bytes - full.bytes_per_block)} GiB GPU"
    first = (f"Auto-fit max_model_len: full model context length {limit} fits in available KV cache memory ({gib})"
             if tentative_len >= limit else
             f"Auto-fit max_model_len: reduced from {limit} to {tentative_len} to fit in available KV cache memory ({gib})")
    first += "; the final length is set after CUDA graph capture and warmup"
    if not final_len:
        error = ("Cannot auto-fit max_model_len: not enough GPU memory available to serve even a single token. CUDA graph "
                 "capture and warmup left no memory for the KV cache. Increase `gpu_memory_utilization`, reduce the "
                 "memory CUDA graphs take (fewer or smaller capture sizes in the compilation config), or use more GPUs.")
        return replace(full, fits=False, failure="memory", error=error, estimated_max_model_len=0,
                       vllm_log=full.vllm_log + ("ValueError: " + error,))
    fitted = full if final_len == limit else _plan(
        model, gpu, replace(args, max_model_len=final_len), rules=rules, extra_assumptions=extra_assumptions,
        site_offsets=site_offsets, check_architecture=check_architecture, auto_fit=True)
    left = f"{_format_gib(max(fitted.num_gpu_blocks - 1, 0) * fitted.bytes_per_block)} GiB GPU"
    if final_len >= tentative_len:
        second = (f"Auto-fit max_model_len: using max_model_len={tentative_len}, which fits in the KV cache memory left "
                  f"after CUDA graph capture and warmup ({left}).")
    else:
        second = _short_auto_fit_warning(f"--max-model-len auto reduced max_model_len from {tentative_len} to {final_len} "
                                         f"({left} left for the KV cache after CUDA graph capture and warmup).",
                                         final_len, fitted.args.gpu_memory_utilization)
    log = list(fitted.vllm_log)
    at = next((i for i, line in enumerate(log) if line.startswith("Available KV cache memory")), -1) + 1
    log.insert(at, first)  # logged while the KV-cache config is built at the capacity
    at = next((i for i, line in enumerate(log) if "KV cache size" in line), len(log))
    log.insert(at, second)  # logged by finalize_extensible_kv_cache, before the capacity line
    return replace(fitted, assumptions=fitted.assumptions + (first, second), vllm_log=tuple(log))


def state_blocks_refusal(groups, num_blocks: int, args: EngineArgs, rules: VersionRules, gpu: GPUSpec | None = None,
                         notes: list[str] | None = None, warns: list[str] | None = None) -> str | None:
    """vLLM's refusal (rule state_blocks_refuse_max_num_seqs) of a hybrid model whose pool holds fewer blocks than
    max_num_seqs: each decoding sequence holds one recurrent-state block in a full CUDA graph, so the graphs cannot
    be captured; None when it does not apply (no recurrent group, --enforce-eager, a release before the check, or
    speculative decoding that downgrades the graphs to PIECEWISE: _spec_decode_piecewise, noted in `notes`). Refused
    with speculative decoding, a warning in `warns` names the attention-backend choice kvplan does not model."""
    if not rules.state_blocks_refuse_max_num_seqs or args.enforce_eager:
        return None
    if not any(g.kind == "recurrent" for g in groups) or num_blocks >= args.max_num_seqs:
        return None
    seqs = f"max_num_seqs ({args.max_num_seqs}) above the {num_blocks} Mamba cache blocks"
    if args.cudagraph_mode in ("NONE", "PIECEWISE"):
        if notes is not None:
            notes.append(f"{seqs} not refused: --compilation-config cudagraph_mode {args.cudagraph_mode} captures no FULL "
                         "decode graphs, and vLLM's state-block check runs only with them (config/compilation.py "
                         "resolve_cudagraph_mode_and_sizes: cudagraph_mode.has_full_cudagraphs())")
        return None
    if args.speculative:
        why = _spec_decode_piecewise((g.recurrent_kind for g in groups), args, rules, gpu)
        if why:
            if notes is not None:
                notes.append(f"{seqs} not refused: with speculative decoding {why}, so vLLM {rules.version} downgrades "
                             "the CUDA graphs to PIECEWISE ('not supported with spec-decode ...; setting "
                             "cudagraph_mode=PIECEWISE'), and its state-block check runs only with FULL decode graphs "
                             "(config/compilation.py resolve_cudagraph_mode_and_sizes)")
            return None
        if warns is not None:
            warns.append(f"{seqs} with speculative decoding: refused as vLLM does when it keeps FULL decode CUDA graphs, "
                         "which needs every attention backend to support uniform multi-token decode graphs "
                         "(UNIFORM_BATCH). kvplan expects the backend vLLM picks by default here to support them "
                         "(FlashAttention; FlashInfer with TRTLLM kernels on Blackwell) and does not model a fallback "
                         "or an --attention-backend choice without that support (e.g. FlashInfer without TRTLLM "
                         "kernels), under which vLLM downgrades to PIECEWISE graphs and starts (vLLM issue #49547)")
    return (f"max_num_seqs ({args.max_num_seqs}) exceeds available Mamba cache blocks ({num_blocks}). Each decode sequence "
            "requires one Mamba cache block, so CUDA graph capture cannot proceed. Please lower max_num_seqs to at most "
            f"{num_blocks} or increase gpu_memory_utilization.")


def _offloadable(w, rules: VersionRules) -> tuple[int, int]:
    """(the bytes --cpu-offload-gb may move to CPU memory, the vision tower's share of them): the decoder layers, with
    the tower from the releases that offload it (rules row cpu_offload_towers); every weight where the count could not
    split the layers out (RankWeights.layer_bytes None)."""
    vision = dict(w.by_use).get("vision", 0) if rules.cpu_offload_towers else 0
    return (w.layer_bytes + vision if w.layer_bytes is not None else w.bytes), vision


def _load_oom(gpu: GPUSpec, weights_per_rank: int) -> str | None:
    """Weights per rank beyond the GPU's whole memory: the load itself fails (PyTorch's caching allocator raises
    torch.OutOfMemoryError, "CUDA out of memory. Tried to allocate ..."), before vLLM profiles or sizes a KV pool, so
    gpu_memory_utilization cannot help. Weights within the card but beyond the budget load, and vLLM then reports
    "No available memory for the cache blocks" (the memory check of _fit_check)."""
    total = gpu.total_bytes
    if weights_per_rank <= total:
        return None
    return (f"CUDA out of memory while loading the model weights: {weights_per_rank / GIB:.2f} GiB per rank do not fit "
            f"in the {total / GIB:.2f} GiB of {gpu.name}")


def _startup_error(gpu: GPUSpec, args: EngineArgs, rules: VersionRules, quant: QuantSpec | None = None,
                   given_quant: str | None = None) -> tuple[str, str] | None:
    """Errors vLLM stops with before it sizes anything: the GPU generation, the dtype and the quantization method it
    supports, as (the check's Plan.failure_code, vLLM's message)."""
    if gpu.cc is None or gpu.vendor != "NVIDIA":
        return None
    floor = rules.min_compute_capability
    if gpu.cc < floor:
        return "compute_capability", (
            f"{gpu.name} has compute capability {gpu.compute_capability}, below the {floor[0]}.{floor[1]} that vLLM {rules.version}'s "
            f"wheels are built for (CUDA error: no kernel image is available for execution on the device)")
    if args.dtype == "bfloat16" and gpu.cc < (8, 0):
        return "bfloat16", (
            f"Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your {gpu.name} GPU has compute "
            f"capability {gpu.compute_capability}. You can use float16 instead by explicitly setting the `dtype` flag in CLI, "
            f"for example: --dtype=half.")
    method = canonical_quant(given_quant) if given_quant else vllm_quant_method(quant)
    named = str(given_quant).lower() if given_quant else ((quant.declared_method if quant is not None else "") or method)
    if named in rules.deprecated_quant_methods and not args.allow_deprecated_quantization:
        return "quantization", (
            f"The quantization method {named} is deprecated and will be removed in future versions of vLLM. To bypass, "
            f"set `--allow-deprecated-quantization`. (vLLM {rules.version}'s ModelConfig refuses it before loading; "
            "add --allow-deprecated-quantization to start it, or serve a checkpoint in another method)")
    error = quant_capability_error(method, gpu, rules.version)
    return ("quantization", error) if error else None


FP8E4NV_ERROR = "type fp8e4nv not supported in this architecture"

# the checkpoint methods whose FP8 / NVFP4 schemes take vLLM's native-or-Marlin kernel choice
# (versions.NATIVE_LOW_PRECISION_CAPABILITY); a weight-only (W8A16 / W4A16) scheme is Marlin on every GPU
_NATIVE_OR_MARLIN_METHODS = frozenset({"fp8", "modelopt", "compressed-tensors"})


def weight_only_marlin_warning(gpu: GPUSpec, args: EngineArgs, quant: QuantSpec | None, rules: VersionRules) -> str | None:
    """vLLM's weight-only Marlin fallback for FP8 / NVFP4 weights on an NVIDIA GPU below the capability of the native
    kernels (versions.NATIVE_LOW_PRECISION_CAPABILITY) that the method's own capability step admits: the weights keep
    their stored size (what the plan counts), the GEMMs run in the 16-bit model dtype. None elsewhere."""
    if (quant is None or quant.method not in _NATIVE_OR_MARLIN_METHODS or quant.weight_only or gpu.vendor != "NVIDIA"
            or gpu.cc is None):
        return None
    # a ModelOpt MIXED_PRECISION checkpoint holds FP8 (1 B) and NVFP4 (0.5625 B) modules (QuantSpec.module_bytes)
    kinds = ({"fp8" if b == 1 else "nvfp4" for _, b in quant.module_bytes} if quant.module_bytes
             else {quant.scheme.split(" ", 1)[0]})
    below = [k for k in ("fp8", "nvfp4") if k in kinds and gpu.cc < NATIVE_LOW_PRECISION_CAPABILITY[k]]
    if not below or quant_capability_error(vllm_quant_method(quant) or quant.method, gpu, rules.version):
        return None
    kind = below[-1]  # the mixed checkpoint's NVFP4 modules go to Marlin first (10.0 > 8.9)
    native = NATIVE_LOW_PRECISION_CAPABILITY[kind]
    bits = "FP8" if kind == "fp8" else "FP4"
    what = (f"the {', '.join(n for n, b in quant.module_bytes if (b == 1) == (kind == 'fp8'))} modules' {kind.upper()}"
            if len(kinds) > 1 else quant.scheme)
    return (f"{what} weights on {gpu.name} (compute capability {gpu.compute_capability}, below the "
            f"{native[0]}.{native[1]} of vLLM's native {bits} kernels): vLLM {rules.version} serves them weight-only "
            f"through Marlin ('Your GPU does not have native support for {bits} computation but {bits} quantization is "
            f"being used. Weight-only {bits} compression will be used leveraging the Marlin kernel.'): they take the "
            f"memory planned here, but their GEMMs run in {args.dtype}, so their prefill is no faster than a {args.dtype} "
            f"model's; native {bits} needs compute capability {native[0]}.{native[1]} or later")


def _flashinfer_workspace_after_kv(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules, runner: str,
                                   graphs) -> str:
    """A warning where model runner v1 captures PIECEWISE graphs only and FlashInfer serves the attention: its
    workspace (the TRTLLM-API buffer, or the metadata builder's; plan.terms.trtllm_workspace_in_estimate_bytes) would
    sit in the estimate's first FULL-mode warmup, but with no FULL graphs no forward inside profile_cudagraph_memory
    builds attention metadata, so vLLM makes it after the KV allocation (kernel_warmup's FlashInfer warmup, or the
    first request) and charges it nowhere in the --gpu-memory-utilization budget. '' elsewhere."""
    if runner != "v1" or graphs.mode != "PIECEWISE" or not rules.cudagraph_subtracted:
        return ""
    ws, _ = trtllm_workspace_in_estimate_bytes(model, gpu, args, rules, runner, replace(graphs, mode="FULL_AND_PIECEWISE"))
    if not ws:
        return ""
    return (f"FlashInfer's {ws / GIB:.2f} GiB attention workspace is made after the KV cache: with PIECEWISE-only CUDA "
            "graphs no warmup inside vLLM's CUDA-graph estimate builds attention metadata, so the buffer comes at vLLM's "
            "FlashInfer warmup or the first request, beyond the --gpu-memory-utilization budget; leave that much free "
            "beside it")


def _fp8_e4m3_kv_error(gpu: GPUSpec, args: EngineArgs, rules: VersionRules, warns: list[str],
                       e5m2_refused: bool = False, given_kv: str | None = None) -> str | None:
    """An FP8 e4m3 KV cache (--kv-cache-dtype fp8 / fp8_e4m3, e4m3 on NVIDIA) below compute capability 8.9 (rules row
    fp8_e4m3_kv_pre_ada): refused where the release sends it to the Triton backend (0.11.0), whose kernels cannot cast
    to e4m3 there; a warning where it picks FlashInfer (0.11.1+), whose e4m3 kernels on these GPUs vLLM's source does
    not settle (vLLM issue #26431)."""
    if (args.kv_cache_dtype not in ("fp8", "fp8_e4m3") or gpu.vendor != "NVIDIA" or gpu.cc is None
            or not (8, 0) <= gpu.cc < (8, 9) or rules.fp8_e4m3_kv_pre_ada == "none"):
        return None
    where = f"{gpu.name} (compute capability {gpu.compute_capability}, below 8.9)"
    # the flag as given, or the checkpoint's FP8 KV scheme that --kv-cache-dtype auto follows (resolve_args' note)
    flag = (f"--kv-cache-dtype {args.kv_cache_dtype}" if given_kv not in (None, "auto")
            else f"kv_cache_dtype auto -> {args.kv_cache_dtype} (the checkpoint declares an FP8 KV cache)")
    # e5m2, the way out, is itself refused where the checkpoint's quantization loads e4m3 KV scales (_e5m2_kv_error)
    e5m2 = (f"--kv-cache-dtype fp8_e5m2 is refused with this checkpoint too ('{E5M2_FP8_CHECKPOINT_ERROR}'): "
            "a 16-bit KV cache starts (--kv-cache-dtype auto, or bfloat16 where auto follows the checkpoint's FP8 KV "
            "scheme)" if e5m2_refused else None)
    if rules.fp8_e4m3_kv_pre_ada == "triton":
        return (f"{flag}: vLLM {rules.version} runs an FP8 KV cache on {where} with its "
                f"Triton attention backend, whose kernels cannot store e4m3 there: the first forward fails with "
                f"'{FP8E4NV_ERROR}. The supported fp8 dtypes are (\'fp8e4b15\', \'fp8e5\')' (vLLM issue #26431); "
                + (e5m2 or "--kv-cache-dtype fp8_e5m2 starts"))
    warns.append(f"{flag} on {where}: vLLM {rules.version} picks FlashInfer for an FP8 KV "
                 "cache here (FlashAttention 2 takes none); e4m3 fails wherever it reaches vLLM's Triton attention "
                 f"('{FP8E4NV_ERROR}', vLLM issue #26431; a forced TRITON_ATTN backend, or a model FlashInfer cannot "
                 "serve). " + (e5m2 or "--kv-cache-dtype fp8_e5m2 is the FP8 KV cache RTX 3090 owners run"))
    return None


def gemm_compute_dtype(quant: QuantSpec | None, quantization: str | None, gpu: GPUSpec, dtype: str = "bfloat16") -> str:
    """The dtype a step's Linear GEMMs run in, whose peak FLOPS the step-time model takes: "fp8" for FP8 weights with
    FP8 activations (an FP8, ModelOpt FP8 or compressed-tensors W8A8 FP8 checkpoint; online --quantization fp8, whose
    plan keeps the model's own quant None and the resolved quantization "fp8") where vLLM runs them natively (NVIDIA
    8.9+, versions.NATIVE_LOW_PRECISION_CAPABILITY; other vendors as their FP8 peak); `dtype` otherwise: weight-only
    schemes, FP8 weights on Marlin below 8.9, INT4 and FP4 (taken at the 16-bit rate), mixed-precision checkpoints."""
    if quant is None:
        kind = "fp8" if canonical_quant(quantization or "") == "fp8" else None
    elif quant.method in _NATIVE_OR_MARLIN_METHODS and not quant.weight_only and not quant.module_bytes:
        kind = quant.scheme.split(" ", 1)[0]
    else:
        kind = None
    if kind != "fp8" or (gpu.vendor == "NVIDIA" and gpu.cc is not None and gpu.cc < NATIVE_LOW_PRECISION_CAPABILITY["fp8"]):
        return dtype
    return "fp8"


def kv_scales_method(quant: QuantSpec | None, given_quant: str | None, rules: VersionRules) -> bool:
    """Whether vLLM builds each attention layer with a KV-cache quantization method (BaseKVCacheMethod, which loads
    k/v scales): Fp8Config for an FP8 checkpoint and, before 0.31, for online --quantization fp8 (quantization/fp8.py
    get_quant_method's Fp8KVCacheMethod; from 0.31 model_loader/weight_utils.py get_quant_config reads online fp8 as
    fp8_per_tensor, an OnlineQuantizationConfig that gives attention none, online/base.py, as the fp8_per_* shorthands
    do), every ModelOpt FP8 / NVFP4 config (modelopt.py ModelOptQuantConfigBase.get_quant_method's KVCacheMethodCls),
    a ModelOpt MIXED_PRECISION config only where it declares a KV-cache algorithm
    (ModelOptMixedPrecisionConfig.get_quant_method returns ModelOptKVCacheMethod "if self.kv_cache_quant_method", else
    None: modelopt.py in the 0.17.1, 0.20.0, 0.24.0, 0.27.0 and 0.33.0 wheels), and a compressed-tensors checkpoint
    declaring a kv_cache_scheme (CompressedTensorsKVCacheMethod), or any compressed-tensors checkpoint up to 0.23, whose
    Attention gets that method whatever the config declares and refuses e5m2 for it (versions.py
    "ct_e5m2_refused_without_kv_scheme"). Read in the 0.7.0, 0.10.2, 0.11.0, 0.12.0, 0.20.0, 0.24.0 and 0.33.0 wheels."""
    if quant is None:
        return False
    if quant.method == "fp8":
        online = quant.scheme.endswith("(online)")
        return not online or (canonical_quant(given_quant or "") == "fp8" and rules.online_fp8_kv_scales)
    if quant.method == "modelopt":
        return quant.kv_cache_fp8 or not quant.module_bytes  # module_bytes: a MIXED_PRECISION config
    return quant.method == "compressed-tensors" and (quant.kv_cache_fp8 or rules.ct_e5m2_refused_without_kv_scheme)


E5M2_FP8_CHECKPOINT_ERROR = "fp8_e5m2 kv-cache is not supported with fp8 checkpoints."


def _e5m2_kv_error(args: EngineArgs, quant: QuantSpec | None, given_quant: str | None, rules: VersionRules) -> str | None:
    """vLLM's refusal of --kv-cache-dtype fp8_e5m2 where the attention layers load e4m3 KV scales (kv_scales_method):
    Attention.__init__ raises it while the model is built (attention/layer.py 0.7.0-0.12.0,
    model_executor/layers/attention/attention.py 0.20.0-0.33.0)."""
    if args.kv_cache_dtype != "fp8_e5m2" or not kv_scales_method(quant, given_quant, rules):
        return None
    what = ("online --quantization fp8 (built with Fp8Config)" if quant.scheme.endswith("(online)")
            else f"the checkpoint's {quant.method} quantization ({quant.scheme})")
    if quant is not None and quant.method == "compressed-tensors" and not quant.kv_cache_fp8:
        return (f"{E5M2_FP8_CHECKPOINT_ERROR} (--kv-cache-dtype fp8_e5m2: up to vLLM 0.23 a compressed-tensors "
                "checkpoint gives every attention layer a KV-cache method even without a kv_cache_scheme, and vLLM "
                f"{rules.version} refuses e5m2 for it; from 0.24.0 such a checkpoint keeps fp8_e5m2. Use --kv-cache-dtype "
                "fp8 or auto, or a release from 0.24.0)")
    return (f"{E5M2_FP8_CHECKPOINT_ERROR} (--kv-cache-dtype fp8_e5m2: {what} gives every attention layer a KV-cache "
            "method with e4m3 scales; use --kv-cache-dtype fp8 or auto)")


def _logged_block_size(g: KVGroup, max_len: int, args: EngineArgs, rules: VersionRules) -> int:
    """The block size of a group's spec as vLLM holds it: a Mamba group's is max_model_len in "none" mode (one page a
    sequence: cache_config.mamba_block_size = max_model_len), the attention block size otherwise."""
    if g.kind == "recurrent" and mamba_cache_mode(g, args, rules) == "none":
        return max_len
    return g.block_size


def _capacity(groups, num_blocks: int, per_req: int, max_len: int, bs: int,
              rules: VersionRules, logged_block: list[int], dcp: int = 1) -> tuple[float, int, str, str]:
    """(max concurrency, KV-cache tokens) exactly as the version computes them (section 3.5), each with its formula
    in words and in the numbers that give it. `logged_block`: each group's spec block size (_logged_block_size).
    `dcp`: --decode-context-parallel-size; where the tokens are counted from blocks (0.10.2-0.20.0) vLLM multiplies them
    by it ("Multiplying the GPU KV cache size by the dcp_world_size", v1/core/kv_cache_utils.py; cp_world_size = pcp x
    dcp from 0.12.0); from 0.20.1 max concurrency x max_model_len carries it, per_req counting 1/dcp of the tokens."""
    if rules.tokens_formula == "blocks_x_block_size":
        tokens = num_blocks * bs
        return (tokens / max_len, tokens, f"{num_blocks:,} x {bs} / {max_len:,}",
                f"num_gpu_blocks x block_size = {num_blocks:,} x {bs}")
    conc = num_blocks / per_req if per_req else 0.0
    conc_formula = f"{num_blocks:,} / {per_req:,}"
    times = f" x dcp {dcp}" if dcp > 1 else ""
    if rules.tokens_formula == "blocks_per_group_x_block_size":
        if len(groups) == 1 and rules.uniform_spec_tokens_block == "cache":  # one spec: the cache's block size
            return (conc, num_blocks * bs * dcp, conc_formula, f"num_gpu_blocks x block_size{times} = {num_blocks:,} x {bs}{times}")
        min_bs = min(logged_block)
        return (conc, num_blocks // len(groups) * min_bs * dcp, conc_formula,
                f"num_gpu_blocks // num_groups x min block size{times} = {num_blocks:,} // {len(groups)} x {min_bs}{times}")
    return conc, int(conc * max_len), conc_formula, f"int(max_concurrency x max_model_len) = int({conc_formula} x {max_len:,})"


def _per_token_and_state(groups, args: EngineArgs, rules: VersionRules) -> tuple[float, int]:
    """Bytes that grow with each token (full attention, MLA) vs fixed per sequence (state, windows)."""
    per_token = 0.0
    state = 0
    for g in groups:
        if g.kind in ("full", "mla"):  # a DCP rank keeps 1/dcp of the tokens (plan.kv.dcp_checks)
            per_token += g.num_layers * g.page_bytes / g.block_size / args.dcp
        else:
            state += g.num_layers * g.page_bytes * _group_blocks(g, args.max_model_len, args, rules)
    return per_token, state


def _per_token_formula(model: ModelSpec, groups, args: EngineArgs) -> str:
    """How kv_bytes_per_token adds up: each growing group's layers x its bytes per token and layer (page / block size),
    with one attention layer's bytes spelled out (section 3.1)."""
    growing = [g for g in groups if g.kind in ("full", "mla")]
    if not growing:
        return "0: no layer keeps every token (window and state layers are a fixed cost per sequence)"
    per_layer = [g.page_bytes / g.block_size for g in growing]
    sums = " + ".join(f"{g.num_layers} x " + f"{b:,.4f}".rstrip("0").rstrip(".") + " B" for g, b in zip(growing, per_layer))
    shapes = {(l.num_kv_heads, l.head_dim, l.head_dim_v) for l in model.layers if l.is_attention}
    layer = next((l for l in model.layers if l.kind == growing[0].kind), None) if len(shapes) == 1 else None
    kvb = kv_dtype_bytes(args.kv_cache_dtype, args.dtype)
    if layer is None or model.compressed_attention or model.sparse_mla:
        how = "layers x bytes per token and layer (mean over the layers' shapes where they differ)"
    elif layer.kind == "mla":
        how = f"layers x one latent of {layer.head_dim} x {kvb} B per token, on every rank"
    else:
        heads = heads_per_rank(layer.num_kv_heads, args.tensor_parallel_size)
        how = (f"layers x {heads} KV head(s) per rank x (K {layer.head_dim} + V {layer.head_dim_v or layer.head_dim}) "
               f"x {kvb} B per token")
    if args.dcp > 1:  # each DCP rank keeps 1/dcp of a sequence's tokens (plan.kv.dcp_checks)
        return f"({sums}) / dcp {args.dcp}: {how}, 1/{args.dcp} of the tokens on each rank of a DCP group"
    return f"{sums}: {how}"


def _fit_check(groups, available: float, bytes_per_block: int, num_blocks: int, args: EngineArgs, rules: VersionRules,
               hint: str | None = None):
    """Does one max_model_len request fit? (section 4) -> (fits, vLLM's error text, estimated max length). `hint`: how
    0.34's messages say to make room (plan.extensible.kv_memory_hint; the estimate's text where not given)."""
    if hint is None:
        hint = kv_memory_hint(False, 1.0)
    max_len = args.max_model_len
    bs = min(g.block_size for g in groups)
    # V1 stops on available <= 0; V0 on no whole block (section 4)
    if available <= 0 or (rules.engine == "v0" and num_blocks <= 0):
        text = "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."
        if rules.no_memory_error_format == "short-see":
            text += " See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."
        if rules.no_memory_error_format == "hint":
            text = (f"No available memory for the cache blocks. {hint} "
                    "See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.")
        if rules.no_memory_error_format == "long":
            text = ("No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine "
                    "(this flag also controls CPU memory reservation on the CPU backend, despite its name). "
                    "See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.")
        return False, text, 0
    if rules.fit_error_format == "v0":
        pp = args.pipeline_parallel_size if rules.v0_capacity_per_stage else 1
        capacity = bs * (num_blocks // pp)
        if max_len > capacity:
            return False, (f"The model's max seq len ({max_len}) is larger than the maximum number of tokens that can be stored in KV cache "
                           f"({capacity}). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."), capacity
        return True, None, capacity
    avail = available - (bytes_per_block if rules.null_block_in_fit_check else 0)

    def needed(length: int) -> int:
        """Memory one request of `length` tokens needs, as this version's check computes it (section 4)."""
        if groups[0].fit_unit_bytes:  # DeepSeek-V4 up to 0.28: layer tuples
            return groups[0].fit_unit_bytes * _blocks_per_request(groups, length, args, rules)
        if rules.fit_need_formula == "sum_layers":  # each real layer's own need: padding slots do not count
            need = sum(g.num_layers * g.page_bytes * _group_blocks(g, length, args, rules) for g in groups)
            for g in groups:  # window layers held as full attention, charged their own window (fit_check_sees_windows)
                full = _group_blocks(g, length, args, rules)
                for kind, window, n in g.checked_windows:
                    need -= n * g.page_bytes * (full - _group_blocks(replace(g, kind=kind, window=window), length, args, rules))
            return need
        if rules.fit_need_formula == "first_group":
            return bytes_per_block * _group_blocks(groups[0], length, args, rules)
        return bytes_per_block * _blocks_per_request(groups, length, args, rules)

    need = needed(max_len)
    if need <= avail:
        return True, None, None
    lo, hi = 0, max_len
    while lo < hi:  # largest length whose need fits
        mid = (lo + hi + 1) // 2
        if needed(mid) <= avail:
            lo = mid
        else:
            hi = mid - 1
    est = lo
    fmt = rules.fit_error_format
    est_text = f"Based on the available memory, the estimated maximum model length is {est}. " if est else ""
    if fmt in ("v1-models-2f", "v1-models-2f-see"):
        see = " See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details." if fmt.endswith("-see") else ""
        return False, (f"To serve at least one request with the models's max seq len ({max_len}), ({need / GIB:.2f} GiB KV cache is needed, "
                       f"which is larger than the available KV cache memory ({avail / GIB:.2f} GiB). {est_text}Try increasing "
                       f"`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.{see}"), est
    if fmt == "v1-models-gib":
        return False, (f"To serve at least one request with the models's max seq len ({max_len}), ({_format_gib(need)} GiB KV cache is needed, "
                       f"which is larger than the available KV cache memory ({_format_gib(avail)} GiB). {est_text}Try increasing "
                       f"`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine. "
                       f"See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."), est
    if fmt == "v1-model-hint":  # 0.34.0 (versions.py fit_error_format)
        return False, (f"To serve at least one request with the model's max seq len ({max_len}), ({_format_gib(need)} GiB KV cache is "
                       f"needed, which is larger than the available KV cache memory ({_format_gib(avail)} GiB). {est_text}{hint} "
                       "Decreasing `max_model_len` also reduces what is needed. "
                       "See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."), est
    return False, (f"To serve at least one request with the model's max seq len ({max_len}), ({_format_gib(need)} GiB KV cache is needed, "
                   f"which is larger than the available KV cache memory ({_format_gib(avail)} GiB). {est_text}Try increasing "
                   f"`gpu_memory_utilization` (which also controls CPU memory on the CPU backend) or decreasing `max_model_len` when "
                   f"initializing the engine. See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."), est


# What Worker.compile_or_warm_up_model leaves out of its --kv-cache-memory suggestions "to avoid OOM"
# (redundancy_buffer_memory, v1/worker/gpu_worker.py, 0.10.2-0.34.0 wheels)
SUMMARY_REDUNDANCY_BYTES = 150 << 20


@dataclass(frozen=True)
class SummaryFigures:
    """The figures of V1's post-capture summary ('Free memory on device (F/T GiB) on startup. ... Actual usage is ...',
    versions.py row summary_log_format), each a plan term (bytes per rank)."""

    init_free: int | None   # total - startup_used (MemorySnapshot at Worker.init_device); None where kvplan cannot
    # see it (a unified-memory GPU, whose free memory vLLM reads as the OS's available memory)
    total: int
    util: float
    requested: int
    weights: int
    non_torch: int
    peak_activation: int    # as printed: 0.27 on add the applied CUDA-graph estimate (peak_activation_memory)
    cudagraph_capture: int  # the real capture's pool
    kv_in_use: float        # available_kv_cache_memory_bytes: the pool, or 0.34's capacity

    @property
    def non_kv(self) -> int:
        return self.weights + self.non_torch + self.peak_activation + self.cudagraph_capture

    @property
    def to_requested_limit(self) -> int:
        return self.requested - self.non_kv - SUMMARY_REDUNDANCY_BYTES

    @property
    def to_gpu_limit(self) -> int | None:
        return None if self.init_free is None else self.init_free - self.non_kv - SUMMARY_REDUNDANCY_BYTES


def summary_figures(rules: VersionRules, total: int, util: float, requested: float, weights: int, nt: int, act: int,
                    cg: int, capture: int, kv_in_use: float, startup_used: int | None) -> SummaryFigures:
    """The summary's figures from the plan's terms: peak activation is the profile's peak (0.10.2-0.26:
    torch_peak_increase) or, from 0.27, the transient peak plus the applied CUDA-graph estimate (gpu_worker.py
    determine_available_memory, 0.27.0-0.34.0 wheels; 0 under 0.34's extensible KV cache)."""
    peak = act + (cg if rules.summary_log_format == "consumed" and rules.cudagraph_subtracted else 0)
    return SummaryFigures(init_free=None if startup_used is None else int(total - startup_used), total=int(total),
                          util=util, requested=int(requested), weights=int(weights), non_torch=int(nt), peak_activation=int(peak),
                          cudagraph_capture=int(capture), kv_in_use=kv_in_use)


def summary_line(rules: VersionRules, f: SummaryFigures) -> str:
    """V1's post-capture summary as vLLM `rules.version` prints it (Worker.compile_or_warm_up_model; format_gib is
    str(round(x / GiB, 2)), the utilization Python's repr of the float; "…" for the figures of a free memory kvplan
    cannot see)."""
    free = "…" if f.init_free is None else _format_gib(f.init_free)
    to_gpu, to_gpu_gib = (("…", "…") if f.to_gpu_limit is None else (str(f.to_gpu_limit), _format_gib(f.to_gpu_limit)))
    head = (f"Free memory on device ({free}/{_format_gib(f.total)} GiB) on startup. Desired GPU memory "
            f"utilization is ({utilization_text(f.util)}, {_format_gib(f.requested)} GiB). ")
    if rules.summary_log_format == "consumed":
        usage = (f"Actual usage is {_format_gib(f.weights + f.non_torch)} GiB for consumed memory (weights + non-torch), "
                 f"{_format_gib(f.peak_activation)} GiB for peak activation, and {_format_gib(f.cudagraph_capture)} GiB for "
                 "CUDAGraph memory. ")
    else:
        usage = (f"Actual usage is {_format_gib(f.weights)} GiB for weight, {_format_gib(f.peak_activation)} GiB for peak "
                 f"activation, {_format_gib(f.non_torch)} GiB for non-torch memory, and {_format_gib(f.cudagraph_capture)} GiB "
                 "for CUDAGraph memory. ")
    if rules.summary_log_format == "weights-bytes":
        return (head + usage + f"Replace gpu_memory_utilization config with `--kv-cache-memory={f.to_requested_limit}` to "
                f"fit into requested memory, or `--kv-cache-memory={to_gpu}` to fully utilize gpu memory. Current kv "
                f"cache memory in use is {int(f.kv_in_use)} bytes.")
    return (head + usage + f"Replace gpu_memory_utilization config with `--kv-cache-memory={f.to_requested_limit}` "
            f"({_format_gib(f.to_requested_limit)} GiB) to fit into requested memory, or `--kv-cache-memory={to_gpu}` "
            f"({to_gpu_gib} GiB) to fully utilize gpu memory. Current kv cache memory in use is "
            f"{_format_gib(f.kv_in_use)} GiB.")


def rocm_weights_log_note(rules: VersionRules, given_pool: bool = False) -> str:
    """What ROCm's logged "Model loading took" measures where it is the device memory in use (rules row
    rocm_weights_log_measure "device_used"), against the weights the plan counts (allocated bytes), and whether the KV
    budget subtracts that figure (VersionRules.budget_weights_term "load_measure"), so that the pool shrinks with it.
    `given_pool`: --kv-cache-memory-bytes sets the pool, which no profile then sizes."""
    first, end = rule_span("rocm_weights_log_measure", rules.release)
    note = (f"ROCm: vLLM {rules.version} logs 'Model loading took' as the device memory the load used (total - free "
            f"from torch.cuda.mem_get_info, platforms/rocm.py get_current_memory_usage, in vLLM {first} and the releases before {end}), not "
            "torch's allocated bytes: the logged figure will read higher than the weights planned here by the caching "
            "allocator's cached blocks and the loader's temporaries, which kvplan cannot size; the plan's weights are "
            "the allocated bytes")
    if given_pool:
        return note + " (the KV pool is the one given, --kv-cache-memory-bytes: the figure moves only the log)"
    if rules.budget_weights_term == "load_measure":
        where = ("worker/worker.py determine_num_available_blocks" if rules.engine == "v0"
                 else "v1/worker/gpu_worker.py determine_available_memory")
        return note + (f". The KV budget subtracts that logged figure as the weights (memory_profiling's weights_memory, "
                       f"{where}), so the KV pool, its tokens and its concurrency will come out lower than planned by "
                       "as much as the log reads above the planned weights: the pool planned here is an upper bound")
    return note + (f" (the logged figure only: vLLM {rules.version}'s KV budget subtracts torch's allocated peak, not "
                   "this figure, so the KV pool is not moved by it)")


def _cudagraph_pool_line(capture: int, estimate: int) -> str:
    """'CUDA graph pool memory: ...' after the real capture (Worker.compile_or_warm_up_model, rounding each figure to
    2 decimals)."""
    diff = abs(capture - estimate)
    return (f"CUDA graph pool memory: {round(capture / GIB, 2)} GiB (actual), {round(estimate / GIB, 2)} GiB (estimated), "
            f"difference: {round(diff / GIB, 2)} GiB ({100 * diff / max(capture, 1):.1f}%).")


def _log_lines(rules: VersionRules, gpu: GPUSpec, util: float, requested: float, weights: int, nt: int, act: int, cg: int,
               capture: int, available: float, num_blocks: int, bytes_per_block: int, tokens: int, conc: float,
               max_len: int, fits: bool, error: str | None, bs: int, args: EngineArgs, graphs_on: bool,
               runner: str = "v1", pool: MeasuredPool | None = None, capacity: float | None = None,
               after_warmup_error: bool = False, util_warning: str | None = None,
               summary: SummaryFigures | None = None, capture_skipped: str = "") -> tuple[str, ...]:
    """The startup lines this vLLM version would print (formats: section 8). Model runner v2 prints no "Estimated CUDA
    graph memory" line (v1/worker/gpu/model_runner.py). With the extensible KV cache (`pool`), "Available KV cache
    memory" is the `capacity`; the capacity lines follow the CUDA-graph capture and the post-warmup measurement
    (v1/engine/core.py _initialize_kv_caches, 0.34.0), and an error of the second fit check comes after them. After
    the capture V1 compares the capture with its estimate (where one was applied) and prints the `summary`
    (summary_line; None where vLLM prints none). `graphs_on`: whether graphs are captured (plan.cudagraphs.sizes_left:
    args.captures_cuda_graphs, unless vLLM set cudagraph_mode NONE itself). `capture_skipped`: the
    warning capture_model logs where it finds no graph to capture (plan.cudagraphs.capture_skipped: cudagraph_mode
    NONE without --enforce-eager, or model runner v2 with no size left), in place of the capture line."""
    lines = []

    def capture_line() -> None:
        if capture_skipped:
            lines.append("WARNING " + capture_skipped)
        elif graphs_on:
            lines.append(f"Graph capturing finished in … secs, took {capture / GIB:.2f} GiB")

    def after_capture() -> None:
        if rules.is_v1 and rules.log_cudagraph_pool_memory and cg > 0 and graphs_on:
            lines.append(_cudagraph_pool_line(capture, cg))
        if summary is not None:
            lines.append(summary_line(rules, summary))
    fmt = rules.weights_log_format
    w = weights / GIB
    lines.append({"gb": f"Loading model weights took {w:.4f} GB",
                  "gib-4f": f"Model loading took {w:.4f} GiB and … seconds",
                  "gib-4f-memory": f"Model loading took {w:.4f} GiB memory and … seconds",
                  "gib-round-memory": f"Model loading took {round(w, 2)} GiB memory and … seconds"}[fmt])
    if rules.engine == "v0" and rules.era == "V0-c":
        lines.append(f"Memory profiling takes … seconds\nthe current vLLM instance can use total_gpu_memory ({gpu.total_gib:.2f}GiB) x "
                     f"gpu_memory_utilization ({util:.2f}) = {requested / GIB:.2f}GiB\nmodel weights take {w:.2f}GiB; non_torch_memory takes "
                     f"{nt / GIB:.2f}GiB; PyTorch activation peak memory takes {act / GIB:.2f}GiB; the rest of the memory reserved for KV Cache is "
                     f"{available / GIB:.2f}GiB.")
    if rules.is_v1 and rules.log_cudagraph_estimate and cg and runner == "v1":
        lines.append(f"Estimated CUDA graph memory: {cg / GIB:.2f} GiB total")
    if rules.is_v1 and args.kv_cache_memory_bytes is not None:  # gpu_worker's determine_available_memory (>= 0.10.2)
        lines.append(f"Initial free memory … GiB, reserved {available / GIB:.2f} GiB memory for KV Cache as specified by "
                     "kv_cache_memory_bytes config and skipped memory profiling.")
    elif rules.is_v1 and rules.available_kv_log:  # rules row available_kv_log
        shown = capacity if pool is not None else available
        lines.append(f"Available KV cache memory: {_format_gib(shown) if rules.available_kv_log == 'format_gib' else f'{shown / GIB:.2f}'} GiB")
    if args.num_gpu_blocks_override is not None and pool is None and bytes_per_block:
        lines.append(f"Overriding num_gpu_blocks={max(0, int(available // bytes_per_block)) if available > 0 else 0} "
                     f"with num_gpu_blocks_override={args.num_gpu_blocks_override}")
    if pool is not None and (fits or after_warmup_error):
        capture_line()
        after_capture()
        if util_warning:
            lines.append("WARNING " + util_warning)
        lines.append(memory_after_warmup_line(pool, bytes_per_block))
        if error:
            lines.append("ValueError: " + error)
            return tuple(lines)
        lines.append(f"GPU KV cache size: {tokens:,} tokens, Maximum concurrency for {max_len:,} tokens per request: {conc:.2f}x")
        lines.append(extended_line(pool))
        return tuple(lines)
    if rules.engine == "v0":
        cpu_blocks = int(4 * GIB // bytes_per_block) if bytes_per_block else 0
        dev = rules.v0_blocks_log_device
        lines.append(f"# {dev} blocks: {num_blocks}, # CPU blocks: {cpu_blocks}")
        lines.append(f"Maximum concurrency for {max_len} tokens per request: {conc:.2f}x")
    elif error:
        pass  # V1 raises in get_kv_cache_config's memory check, before it logs the KV cache size
    elif rules.kv_log_format == "v1-one-line":
        lines.append(f"GPU KV cache size: {tokens:,} tokens, Maximum concurrency for {max_len:,} tokens per request: {conc:.2f}x")
    else:
        if args.dcp > 1 and rules.tokens_formula == "blocks_per_group_x_block_size":
            # the tokens counted from blocks, then scaled (the release's wording: rules row dcp_multiplier_line)
            lines.append(rules.dcp_multiplier_line.format(dcp=args.dcp))
        lines.append(f"GPU KV cache size: {tokens:,} tokens")
        lines.append(f"Maximum concurrency for {max_len:,} tokens per request: {conc:.2f}x")
    if fits:
        capture_line()
    if fits and not error:
        after_capture()
    if error:
        lines.append("ValueError: " + error)
    return tuple(lines)


def _refuse_what_the_seed_ignores(model: ModelSpec, args: EngineArgs) -> None:
    """The seed's arithmetic (--overhead-gb: GPU GB x utilization - weights / TP - overhead) has no pipeline stages,
    LoRA slots, given pool, CPU offload, online quantization or drafter: a flag for one would be dropped unread, and
    the numbers silently those of a deployment without it. InputError naming the first."""
    spec = args.speculative
    ignored = [("--pipeline-parallel-size", (args.pipeline_parallel_size or 1) > 1, "pipeline stages"),
               ("--enable-lora", args.enable_lora, "LoRA slots"),
               ("--kv-cache-memory-bytes", args.kv_cache_memory_bytes is not None, "given KV pool"),
               ("--num-gpu-blocks-override", args.num_gpu_blocks_override is not None, "given block count"),
               ("--cpu-offload-gb", bool(args.cpu_offload_gb), "CPU offload"),
               ("--quantization", args.quantization is not None and model.quant is None,
                "online quantization (it counts the checkpoint's own weights)"),
               ("--speculative-config", bool(spec and (spec[0] == "mtp" or spec[0] in DRAFT_METHODS)),
                f"{spec[0] if spec else ''} drafter"),
               ("--decode-context-parallel-size", args.dcp > 1, "decode context parallelism"),
               ("--prefill-context-parallel-size", args.pcp > 1, "prefill context parallelism")]
    for flag, given, what in ignored:
        if given:
            raise InputError(flag, f"the seed's arithmetic (--overhead-gb) has no {what}, so {flag} would be ignored",
                             f"drop --overhead-gb to plan {flag} as vLLM starts it, or drop {flag}")


def _simple_plan(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules, quant: QuantSpec | None,
                 notes: list[str]) -> Plan:
    """The seed's arithmetic (anatomy-of-a-vllm-setup.txt, "Try It"), in decimal GB as it prints.

    KV bytes/token = 2 x layers x kv_heads x head_dim x dtype bytes (all layers full attention);
    budget = GPU GB x utilization; KV = budget - weights - overhead; tokens = KV / per-token;
    concurrency = tokens / max_model_len.
    """
    tp = args.tensor_parallel_size
    kv_dtype = kv_dtype_bytes(args.kv_cache_dtype, args.dtype)
    heads = heads_per_rank(model.num_kv_heads, tp)
    per_token = 2 * model.num_layers * heads * model.head_dim * kv_dtype
    # a quantized model, catalog or checkpoint: its weights as the full plan loads them (rank_weights: this GPU's MXFP4
    # backend and its padding too, the rotary cache), all layers on the rank; unquantized, the seed's parameter bytes
    weights = model.weights_bytes // tp if model.quant is None else rank_weights(
        model, gpu, args, rules, quant, pipeline=False).bytes
    total_gb = gpu.total_bytes / GB
    budget = total_gb * args.gpu_memory_utilization * GB
    overhead = args.overhead_gb * GB
    kv = budget - weights - overhead
    tokens_f = kv / per_token if kv > 0 else 0.0
    conc = tokens_f / args.max_model_len
    fits = tokens_f >= args.max_model_len
    error = None if fits else (f"KV budget {kv / GB:.2f} GB holds {tokens_f:,.0f} tokens, fewer than one {args.max_model_len:,}-token request"
                               if kv > 0 else f"weights and overhead exceed the budget: {kv / GB:.2f} GB left for the KV cache")
    notes = notes + [f"simple arithmetic (the seed's): {args.overhead_gb:g} GB overhead, all {model.num_layers} layers full attention, decimal GB"]
    terms = (
        Term("kv_bytes_per_token", per_token, "B/token", f"2 x {model.num_layers} layers x {heads} kv_heads x {model.head_dim} head_dim x {kv_dtype} B", "seed"),
        Term("weights", weights, "bytes", f"{weights / GB:.2f} GB ({weights:,} bytes)", "seed: real parameter bytes"),
        Term("budget", budget, "bytes", f"{total_gb:.2f} GB x {args.gpu_memory_utilization} = {budget / GB:.2f} GB", "seed"),
        Term("kv_cache", kv, "bytes", f"{budget / GB:.2f} - {weights / GB:.2f} - {args.overhead_gb:g} = {kv / GB:.2f} GB", "seed"),
        Term("kv_cache_tokens", tokens_f, "tokens", f"{kv:,.0f} B / {per_token:,} B = {tokens_f:,.0f}", "seed"),
        Term("max_concurrency", conc, "x", f"{tokens_f:,.0f} / {args.max_model_len:,} = {conc:,.0f}", "seed"),
    )
    log = (f"KV per token         : {per_token / 1024:.1f} KB", f"weights              : {weights / GB:.2f} GB",
           f"budget @ {args.gpu_memory_utilization:.0%}         : {budget / GB:.2f} GB", f"available for KV     : {kv / GB:.2f} GB",
           f"total cacheable tokens   : {tokens_f:,.0f}", f"concurrent seqs @ {args.max_model_len:<6}: {conc:,.0f}")
    return Plan(model=model, gpu=gpu, args=args, rules=rules, mode="simple", total_bytes=gpu.total_bytes, requested_bytes=budget,
                weights_bytes=int(weights), weights_exact=model.checkpoint is not None, activation_peak_bytes=0, non_torch_bytes=int(overhead),
                cudagraph_bytes=0, cudagraph_capture_bytes=0, kv_cache_bytes=kv, groups=(KVGroup("full", model.num_layers, args.block_size, per_token // model.num_layers * args.block_size),),
                bytes_per_block=per_token * args.block_size, num_gpu_blocks=max(0, int(kv // (per_token * args.block_size))),
                kv_cache_tokens=int(round(tokens_f)), max_concurrency=conc, kv_bytes_per_token=per_token, state_bytes_per_sequence=0,
                fits=fits, error=error, estimated_max_model_len=int(tokens_f) if not fits else None, vllm_log=log, terms=terms,
                assumptions=tuple(dict.fromkeys(notes)), failure=None if fits else "memory")
