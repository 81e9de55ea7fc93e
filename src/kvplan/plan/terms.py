"""The measured terms and the workspaces: what vLLM's memory profile measures, as kvplan computes or fits it.

The features the calibration's formulas read (TermFeatures, term_features), the all-reduce workspaces
(FlashInfer fusion, custom all-reduce), the MoE, AWQ-dequant and FP8 activation-quant workspaces, the sampler's
profile term and model runner v2's sampler state, the profile terms kvplan computes rather than fits (the
multimodal pass, a drafter, sparse-MLA and DeepSeek-V4 buffers), pipeline stages' pools, and measured_terms,
which assembles them. Imports kvplan.plan.args, multimodal, kv and cudagraphs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from kvplan.calibration import (CAPTURE_G_CONST, CAPTURE_G_PER, GIB, MRV2_G_CONST, MRV2_G_PER, ROCM_G_PER_GRAPH,
                                coefficients_for)
from kvplan.errors import InputError
from kvplan.plan.args import (DRAFT_METHODS, EngineArgs, _speculative_method, cdiv, compilation_object,
                             speculative_object)
from kvplan.plan.cudagraphs import (_FULL_DECODE_MODES, _NO_COMPILATION_MODES, ColdStartLoss, CudaGraphPlan, _compilation_mode,
                                    _eager_forward, cold_start_pool_loss_bytes, cudagraph_plan,
                                    MRV2_FULL_SAMPLES, model_runner, mrv2_graph_estimate_bytes, rocm_graph_units,
                                    sizes_left)
from kvplan.plan.kv import (_attention_page_per_token, _sparse_mla_latent_bytes, drafter_kv_layers, experts_quant,
                            marlin_method, marlin_moe_experts, moe_backend_for, mxfp4_marlin_forced,
                            mxfp4_triton_forced, stage_cache_layers)
from kvplan.plan.multimodal import SKIP_MM_PROFILING_NOTE, _multimodal_profile_bytes, mm_profiling_skipped
from kvplan.resolve import DTYPE_BYTES, GPUSpec, ModelSpec, QuantSpec, heads_per_rank, is_ct_wna16
from kvplan.versions import INTEGRATED_MEMORY_CC, VersionRules, canonical_quant
from kvplan.weights import (MXFP4_MARLIN_ALIGN, RankWeights, eagle_aux_states, kv_dtype_bytes, marlin_moe_width,
                            mxfp4_moe_backend, padded_vocab)


# vLLM masks top-k/top-p with its Triton kernel only for this many rows or more; fewer are sorted
# (v1/sample/ops/topk_topp_sampler.py apply_top_k_top_p, 0.17.0-0.19.1 wheels)
TRITON_TOPK_TOPP_MIN_ROWS = 8


def _sampler_term(c, rules: VersionRules, sequences: int | None = None) -> tuple[float, str]:
    """(bytes per logit, which term) of the V1 runner's profile sampler run: "flashinfer", the era's FlashInfer term
    where the sampler runs FlashInfer's top-k/top-p kernel (VLLM_USE_FLASHINFER_SAMPLER=1, rules row
    flashinfer_sampler "on") and the era has one apart; "triton", the Triton term where the release masks in place
    with its Triton kernel (rules row topk_topp_triton, `sequences` >= 8 rows) and the era's own term was measured on
    the sort; else "fitted", the era's term. From 0.21 the profile runs the PyTorch-native path too (rules row
    profile_sampler_warms_native), so FlashInfer's kernel, on by default there (row flashinfer_sampler "default_on"),
    never sets the peak."""
    if (rules.flashinfer_sampler == "on" and c.a_sampler_flashinfer is not None
            and not rules.profile_sampler_warms_native):
        return c.a_sampler_flashinfer, "flashinfer"
    if (rules.topk_topp_triton and c.a_sampler_triton is not None
            and (sequences is None or sequences >= TRITON_TOPK_TOPP_MIN_ROWS)):
        return c.a_sampler_triton, "triton"
    return c.a_sampler, "fitted"


def profile_sampler_term(model: ModelSpec, args: EngineArgs, rules: VersionRules, c,
                         sequences: int | None) -> tuple[float, str]:
    """(bytes per logit, which term) of this deployment's profile sampler run: "mrv2", model runner v2's, read from the
    code (mrv2_sampler_bytes_per_logit), else the V1 runner's (_sampler_term: "flashinfer", "triton" or "fitted").
    measured_terms charges it and tools/fit_calibration.py holds every term but "fitted" fixed."""
    if model_runner(model, args, rules) == "v2":
        a = mrv2_sampler_bytes_per_logit(rules, DTYPE_BYTES[args.dtype], args.tensor_parallel_size)
        if a is not None:
            return a, "mrv2"
    return _sampler_term(c, rules, sequences)


# Model runner v2's Gumbel sampler (v1/worker/gpu/sample/gumbel.py gumbel_sample, 0.22.1-0.33.0 wheels): one int64
# argmax and one fp32 maximum per row and 1,024-logit block
_MRV2_GUMBEL_BYTES_PER_LOGIT = (8 + 4) / 1024


def mrv2_sampler_bytes_per_logit(rules: VersionRules, dtype_bytes: int, tp: int) -> float | None:
    """Bytes per logit of model runner v2's profile sampler run, read from the code (rules row mrv2_profile_sampler);
    None where kvplan charges the era's fitted term instead (0.33+, whose second warmup pass runs the fp32 pipeline).

    profile_run samples the dummy forward's last token of each of its min(max_num_batched_tokens, max_num_seqs)
    requests (v1/worker/gpu/model_runner.py _dummy_run: num_reqs = min(num_tokens, max_num_reqs); _dummy_sampler_run).
    The logits come out of compute_logits in the model's dtype (model_executor/layers/logits_processor.py; with TP > 1
    each rank all-gathers its 1/TP shard into the full rows, platforms/interface.py use_all_gather). The dummy batch
    adds no request, so SamplingStates keeps top-k = vocabulary and top-p = 1.0 for every row (sample/states.py) and
    get_top_k_top_p returns neither: no top-k/top-p pass. 0.22-0.25 copy the logits to fp32 for every row
    (sample/sampler.py apply_sampling_params) while the caller holds the model-dtype ones; 0.26 has no copy (in-place
    ops on the model-dtype logits), 0.27 copies only when Sampler._requires_logits_processing finds a row to process
    and 0.28+ only when needs_logits_processing does (the dummy rows need none), so from 0.26 the Gumbel argmax reads
    the model-dtype logits in place (rules row mrv2_profile_sampler gives the wheels read)."""
    mode = rules.mrv2_profile_sampler
    if mode == "warmup":
        return None
    gather = dtype_bytes / tp if tp > 1 else 0.0
    extra = 4.0 if mode == "fp32_copy" else _MRV2_GUMBEL_BYTES_PER_LOGIT
    return dtype_bytes + max(gather, extra)


def mrv2_sampler_state_bytes(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> int:
    """Per rank, the penalty state model runner v2's sampler keeps for every request slot: output token counts
    (int32, max_num_seqs x vocabulary) and the prompt's token bitmask (int32, max_num_seqs x ceil(vocabulary / 32))
    (v1/worker/gpu/sample/penalties.py PenaltiesState.__init__, the same in the 0.22.1, 0.25.0, 0.27.0, 0.28.0, 0.32.0
    and 0.33.0 wheels). Sampler() allocates it in load_model after the weights are measured, on the last pipeline
    rank of a generate model (v1/worker/gpu/model_runner.py, 0.28.0), so it is neither weights nor profile peak: it
    shrinks the KV budget only where the budget charges the memory consumed since the init snapshot (rules row
    budget_counts_runner_buffers, 0.27+). 0 for model runner v1, whose sampler keeps no such tensor."""
    if not rules.budget_counts_runner_buffers or model_runner(model, args, rules) != "v2":
        return 0
    v = model.vocab_size
    return args.max_num_seqs * (4 * v + 4 * cdiv(v, 32))


def check_flashinfer_sampler_env(model: ModelSpec, gpu: GPUSpec, rules: VersionRules) -> None:
    """InputError where VLLM_USE_FLASHINFER_SAMPLER=1 (rules row flashinfer_sampler "on", set by the variable) asks for
    FlashInfer's sampler on an NVIDIA GPU outside the compute capabilities it runs on (rules row flashinfer_sampler_cc):
    vLLM then stops at startup with a RuntimeError ("FlashInfer does not support compute capability X", "unset
    VLLM_USE_FLASHINFER_SAMPLER=1") where the unset variable falls back to the PyTorch-native kernel."""
    span = rules.flashinfer_sampler_cc
    if (rules.flashinfer_sampler != "on" or not span or model.is_pooling or gpu.cc is None
            or (gpu.vendor or "").upper() != "NVIDIA"):
        return
    low, high = span
    if not low <= tuple(gpu.cc) <= high:
        raise InputError("--env VLLM_USE_FLASHINFER_SAMPLER",
                         f"=1 asks for FlashInfer's top-k/top-p sampler, which vLLM {rules.version} runs on compute "
                         f"capability {low[0]}.{low[1]}-{high[0]}.{high[1]} only: on the {gpu.name} "
                         f"({gpu.compute_capability}) the server stops at startup with a RuntimeError (FlashInfer's "
                         f"sampler does not support compute capability {gpu.compute_capability})",
                         "unset VLLM_USE_FLASHINFER_SAMPLER (vLLM then samples with its PyTorch-native kernel) or set it to 0")


def sampler_kernel_note(rules: VersionRules, c, model: ModelSpec) -> str | None:
    """What kvplan assumed about the sampler's top-k/top-p kernel where the release's default depends on the install
    (rules row flashinfer_sampler) and the era has a FlashInfer term apart; None elsewhere."""
    if model.is_pooling or c.a_sampler_flashinfer is None or rules.flashinfer_sampler != "if_installed":
        return None
    return (f"sampler: vLLM {rules.version} samples top-k/top-p with FlashInfer's kernel when flashinfer is installed "
            f"(VLLM_USE_FLASHINFER_SAMPLER unset); kvplan charges the PyTorch-native path ({c.a_sampler:.3g} B per logit). "
            f"A log saying 'Using FlashInfer for top-p & top-k sampling' ran the other: --env VLLM_USE_FLASHINFER_SAMPLER=1 "
            f"charges it ({c.a_sampler_flashinfer:.3g} B per logit)")


DRAFTER_PROFILE_LABEL = "speculative drafter buffers"


def computed_profile_terms(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules,
                           text_peak: int) -> list[tuple[str, int, str]]:
    """Profile-run memory kvplan computes from the model and the flags rather than fits: (label, bytes, note) for the
    multimodal encoder pass and the sparse-attention buffers of DeepSeek-V3.2 and -V4. `text_peak` is the fitted
    activation peak they are compared with or added to."""
    out = []
    mm = _multimodal_profile_bytes(model, args, rules, text_peak)
    if mm is not None and mm_profiling_skipped(model, args, rules):
        out.append(("multimodal encoder profile", 0, f"{SKIP_MM_PROFILING_NOTE}; with it the pass would add: {mm[1]}"))
    elif mm is not None:
        out.append(("multimodal encoder profile", mm[0], mm[1]))
    drafter = _drafter_profile_bytes(model, args, rules)
    if drafter is not None:
        out.append((DRAFTER_PROFILE_LABEL, drafter[0], drafter[1]))
    speculator = _speculator_state_bytes(model, args, rules)
    if speculator is not None:
        out.append(("speculator state", speculator[0], speculator[1]))
    for label, fn in (("DeepSeek-V4 workspaces", _dsv4_workspace_bytes), ("sparse-MLA indexer buffers", _sparse_mla_buffers)):
        term = fn(model, gpu, args, rules)
        if term:
            out.append((label, term[0], term[1]))
    return out


def _drafter_profile_bytes(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> tuple[int, str] | None:
    """What a drafter checkpoint (DRAFT_METHODS) adds to the profile run's peak, per rank, computed not fitted:
    - the proposer's persistent buffers, allocated with the model runner before the profile, T = max_num_batched_tokens
      rows: hidden_states and inputs_embeds (T x H_draft in the model dtype), input_ids and the arange (int32) and
      positions (int64) (v1/spec_decode/eagle.py EagleProposer.__init__, 0.19.0; v1/spec_decode/llm_base_proposer.py
      SpecDecodeBaseProposer.__init__, 0.33.0);
    - EAGLE-3: the target's auxiliary hidden states (num_aux x T x H, model dtype) that its forward keeps for the head
      (SupportsEagle3 models append hidden_states + residual at the aux layers), alive through the rest of the forward.
    The drafter's own dummy forward (_dummy_run -> drafter.dummy_run, one or a few layers) runs after the target's
    intermediates are freed and is taken to stay below the fitted peak."""
    spec = args.speculative
    if not spec or spec[0] not in DRAFT_METHODS or not rules.is_v1:
        return None
    draft, t, db = args.draft, args.max_num_batched_tokens, DTYPE_BYTES[args.dtype]
    buffers = t * (2 * draft.hidden_size * db + 4 + 8 + 4)
    aux = eagle_aux_states(draft) if spec[0] == "eagle3" else 0
    aux_bytes = aux * t * model.hidden_size * db
    text = (f"speculative drafter in the profile run: its buffers {t:,} tokens x (2 x {draft.hidden_size} x {db} B + 16 B) = "
            f"{buffers / 1024 ** 2:.0f} MiB")
    if aux_bytes:
        text += (f" + the target's {aux} auxiliary hidden states for the EAGLE-3 head, {aux} x {t:,} x {model.hidden_size} x "
                 f"{db} B = {aux_bytes / 1024 ** 2:.0f} MiB")
    return buffers + aux_bytes, text + " (computed, not fitted)"


# SuffixSpeculator's corpus defaults and layout (v1/worker/gpu/spec_decode/suffix/speculator.py and
# config/speculative.py, 0.34.0 wheel): suffix_decoding_corpus_tokens, hash-table slots per bucket, adaptive-verification
# match-length buckets
SUFFIX_CORPUS_TOKENS_DEFAULT = 1 << 20
_SUFFIX_BUCKET_SLOTS = 8
_SUFFIX_LEN_BUCKETS = 9


def _suffix_corpus_bytes(spec: dict, max_num_seqs: int, max_model_len: int, num_spec: int) -> tuple[int, str]:
    """SuffixSpeculator.__init__'s device tensors (0.34.0 wheel): the int32 corpus (one entry where it is off), two
    int64 hash tables of next_power_of_2(max(16, corpus // 4)) buckets x 8 slots (one bucket when off), the int64 scan
    scratch (max_num_seqs x cdiv(max_model_len, block), block 256 from 1,024 tokens, 128 from 256), and the drafts,
    confidences and acceptance statistics per request."""
    depth = spec.get("suffix_decoding_max_tree_depth", 24)
    corpus = int(spec.get("suffix_decoding_corpus_tokens", SUFFIX_CORPUS_TOKENS_DEFAULT))
    if spec.get("suffix_decoding_max_cached_requests", 10000) == 0 or (isinstance(depth, int) and depth < 2):
        corpus = 0
    buckets = 1 << (max(16, corpus // 4) - 1).bit_length() if corpus else 1
    block = 256 if max_model_len >= 1024 else 128 if max_model_len >= 256 else max(16, 1 << (max_model_len - 1).bit_length())
    scratch = max_num_seqs * cdiv(max_model_len, block) * 8
    per_request = max_num_seqs * (num_spec * (8 + 4) + 4 + 4 + 4) + 2 * _SUFFIX_LEN_BUCKETS * num_spec * 2 * 8
    total = 4 * max(corpus, 1) + 2 * buckets * _SUFFIX_BUCKET_SLOTS * 8 + scratch + per_request
    return total, (f"the suffix corpus {corpus:,} tokens x 4 B + 2 hash tables x {buckets:,} buckets x "
                   f"{_SUFFIX_BUCKET_SLOTS} x 8 B + scan scratch and per-request state = {total / 1024 ** 2:.1f} MiB")


def _speculator_state_bytes(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> tuple[int, str] | None:
    """What a drafter without weights (ngram, suffix) keeps on the GPU under model runner v2, per rank, allocated with
    the model runner before the profile run and so outside the KV pool:
    - the requests' whole token histories, max_num_seqs x max_model_len int32, on the device instead of UVA (pinned
      host) memory for the methods of rules row spec_dense_token_history (v1/worker/gpu/states.py RequestState,
      use_dense_all_token_ids; 0.33.0 and 0.34.0 wheels);
    - suffix decoding's GPU corpus and hash tables from 0.34 (rules row suffix_gpu_corpus, _suffix_corpus_bytes);
    - a model-based drafter's (mtp, eagle, eagle3, draft_model) cached draft logits with "draft_sample_method":
      "probabilistic", max_num_seqs x num_speculative_tokens x its vocabulary in the head dtype (rules row
      probabilistic_draft_logits).
    None where none applies (model runner v1 keeps the history in UVA memory and drafts on the CPU)."""
    spec = args.speculative
    if not spec or not rules.is_v1 or model_runner(model, args, rules) != "v2":
        return None
    obj = speculative_object(args.speculative_config)
    method = _speculative_method(obj)
    seqs, length = args.max_num_seqs, args.max_model_len
    parts, total = [], 0
    if (spec[0] != "ngram" and rules.probabilistic_draft_logits and seqs
            and str(obj.get("draft_sample_method", "greedy")).lower() == "probabilistic"):
        source = args.draft if spec[0] in DRAFT_METHODS else model
        head = (source.text_config or source.raw_config or {}).get("head_dtype")  # config/model.py _get_head_dtype
        head_bytes = DTYPE_BYTES.get(str(head).replace("torch.", ""), DTYPE_BYTES[args.dtype]) if head not in (None, "model") \
            else DTYPE_BYTES[args.dtype]
        logits = seqs * spec[1] * source.vocab_size * head_bytes
        total += logits
        parts.append(f"the cached draft logits (draft_sample_method probabilistic), {seqs:,} sequences x {spec[1]} "
                     f"token(s) x {source.vocab_size:,} x {head_bytes} B = {logits / 1024 ** 2:.1f} MiB")
    if spec[0] != "ngram" and not parts:
        return None
    if method in rules.spec_dense_token_history and seqs and length and length > 0:
        history = seqs * length * 4
        total += history
        parts.append(f"the token histories on the GPU, {seqs:,} sequences x {length:,} tokens x 4 B = "
                     f"{history / 1024 ** 2:.1f} MiB")
    if method == "suffix" and rules.suffix_gpu_corpus and seqs and length and length > 0:
        corpus, text = _suffix_corpus_bytes(obj, seqs, length, spec[1])
        total += corpus
        parts.append(text)
    if not parts:
        return None
    return total, (f"{method} drafting under model runner v2: " + "; ".join(parts)
                   + " (allocated with the model runner before the profile run; computed, not fitted)")


def _sparse_mla_buffers(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules) -> tuple[int, str] | None:
    """DeepSeek-V3.2's lightning-indexer buffers in the profile run, per rank (read in the 0.11-0.33 wheels:
    models/deepseek_v2.py, v1/attention/backends/mla/indexer.py and flashmla_sparse.py, layers/sparse_attn_indexer.py):
    the top-k indices T x index_topk int32; up to 0.12 a 2 L x 132 B indexer stand-in; from 0.13 one shared
    workspace, the larger of the indexer's keys (8 x factor x L entries of index_head_dim + 4 B) and, with the
    fp8_ds_mla cache, FlashMLA's bf16 prefill buffers (factor x L x 576, from 0.18 also q_concat T x heads x 576, from
    0.31 T x 64 x 576), factor 5 (from 0.32: 5 up to 256K tokens, else 2);
    from 0.19 a 512 MiB logits buffer; from 0.32 with TP > 1 a 2 x T x index_topk fp32 exchange."""
    if not model.sparse_mla:
        return None
    layer = next(l for l in model.layers if l.kind == "mla" and l.index_head_dim)
    t, length = args.max_num_batched_tokens, args.max_model_len
    topk = int(model.text_config.get("index_topk") or 2048)
    key_bytes = layer.index_head_dim + 4
    total = t * topk * 4
    if not rules.sparse_mla_shared_workspace:  # the rows sparse_mla_* of versions.py
        total += 2 * length * key_bytes
    else:
        factor = 5 if rules.sparse_mla_workspace_factor == "fixed" or length <= 262144 else 2
        prefill = 0
        if _sparse_mla_latent_bytes(args, rules, gpu) == 656:  # FlashMLA sparse: bf16 prefill gathers
            heads = heads_per_rank(model.num_attention_heads, args.tensor_parallel_size)
            prefill = factor * length * 576 * 2
            prefill += t * heads * 576 * 2 if rules.sparse_mla_prefill_q_concat else 0  # q_concat
            prefill += t * 64 * 576 * 2 if rules.sparse_mla_prefill_token_buffers else 0  # per-token buffers, heads padded to 64
        total += max(8 * factor * length * key_bytes, prefill)
        if rules.sparse_mla_logits_buffer:
            total += 512 * 1024 ** 2
        if rules.sparse_mla_tp_topk_exchange and args.tensor_parallel_size > 1:
            total += 2 * t * topk * 4
    return total, (f"sparse MLA (DeepSeek-V3.2): indexer buffers {total / GIB:.2f} GiB per rank in the profile run "
                   f"(max_model_len {length:,}, {t:,} batched tokens)")


def _dsv4_workspace_bytes(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules) -> tuple[int, str] | None:
    """DeepSeek-V4's sparse-attention buffers that the profile run sees, per rank, as read in the 0.28-0.33 wheels
    (models/deepseek_v4, v1/attention/backends/mla/indexer.py, v1/attention/ops/rocm_aiter_mla_sparse.py,
    v1/worker/workspace.py). They scale with max_num_batched_tokens T and max_model_len L, not with the model's
    activations, so the calibrated peak does not hold them:

    - the top-k index buffer, T x index_topk int32, and on ROCm one fp32 compressor scratch T x head_dim per ratio-128
      layer;
    - one shared workspace, grown to its largest request (not their sum): the attention gather, 4 x (L/4 + 128 + T)
      x head_dim bf16; the indexer's prefill keys, 10 L (up to 0.31; then 8 x factor x L / 4, the factor 5 up to
      256K tokens, else 2) entries of index_head_dim + 4 bytes; on ROCm the decode logits, rows x L/4 fp32 with T rows
      (up to 0.29) or min(T, max_num_seqs) rows;
    - a 512 MiB logits buffer the indexer allocates during the profile (VLLM_SPARSE_INDEXER_MAX_LOGITS_MB).
    """
    if not model.compressed_attention:
        return None
    layers = [l for l in model.layers if l.kind in ("csa", "hca", "swa")]
    t, length, seqs = args.max_num_batched_tokens, args.max_model_len, args.max_num_seqs
    head = layers[0].head_dim
    index_dim = next((l.index_head_dim for l in layers if l.index_head_dim), 128)
    topk = int(model.text_config.get("index_topk") or 0)
    rocm = gpu.vendor.upper() == "AMD"
    fixed = t * topk * 4 + (sum(1 for l in layers if l.kind == "hca") * t * head * 4 if rocm else 0)
    gather = 4 * (cdiv(length, 4) + 128 + t) * head * 2
    entries = 10 * length if rules.dsv4_indexer_factor == "fixed" else length * 8 * (5 if length <= 262144 else 2) // 4
    index_keys = entries * (index_dim + 4)
    rows = t if rules.dsv4_rocm_logit_rows == "tokens" else min(t, seqs)
    logits = rows * cdiv(length, 4) * 4 if rocm else 0
    workspace, which = max((gather, "attention gather"), (index_keys, "indexer prefill keys"),
                           (logits, f"ROCm decode logits ({rows:,} rows)"))
    total = fixed + workspace + 512 * 1024 ** 2
    era = "" if rules.dsv4_sparse_buffers_read else f"; as read in 0.28-0.33, applied to {rules.version}"
    return total, (f"DeepSeek-V4 sparse-attention buffers: {total / GIB:.2f} GiB per rank in the profile run (largest: the "
                   f"{which}, {workspace / GIB:.2f} GiB, at max_model_len {length:,} and {t:,} batched tokens{era})")


@dataclass(frozen=True)
class TermFeatures:
    """The shapes the measured terms scale with (per rank); coefficients turn them into bytes."""

    forward_bytes: float        # dense MLP live set: T x dtype x (3 H + 3 I / TP), 4 H where dense_hidden_rows says
    moe_bytes: float            # fused-MoE caches: T x top-k x dtype x (3 I_e / TP + H)
    sampler_elements: float     # logits of the profile's sequences: S x V_pad
    tp_gt_1: bool
    graph_layer_sizes: float    # decoder layers x CUDA-graph capture sizes (0 with --enforce-eager) x LoRA cases (the
                                # graphs --enable-lora captures per size), the drafter's layers x its PIECEWISE graphs
                                # included
    integrated_memory: bool     # GPU shares memory with the CPU (GB10, Jetson): free memory is the OS's
    t: int
    s: int
    v_pad: int
    n_layers: int
    n_sizes: int
    nvls: bool = False          # NCCL's NVLink SHARP buffers: Hopper-or-later GPUs on an NVSwitch, more than 2 TP ranks
    nvlink_tp: bool = False     # TP > 1 over NVLink on Hopper or later (cc 9.x/10.x)
    graphs: CudaGraphPlan | None = None  # the mode, capture sizes and drafter graphs behind n_sizes
    moe_workspace_bytes: float = 0.0  # the persistent fused-MoE workspace (rules moe_workspace_persistent), held under
                                      # the sampler too; moe_bytes is 0 where it is set
    hidden_rows: int = 3        # the T x H rows forward_bytes counts (dense_hidden_rows; 3 for MoE models)
    reduce_bytes: float = 0.0   # dense live set at down_proj's out-of-place all-reduce (allreduce_live_bytes; 0 where
                                # not counted): the forward's peak is the larger of it and forward_bytes
    moe_path: str = ""          # the quantized fused-MoE path (quantized_moe_experts' name) where it sets the terms

    @property
    def forward_peak_bytes(self) -> float:
        """The dense forward's peak live set: the MLP's at SiluAndMul or, where counted, at down_proj's all-reduce."""
        return max(self.forward_bytes, self.reduce_bytes)


def nvlink_tp_capable(gpu: GPUSpec) -> bool:
    """An NVIDIA GPU of compute capability 9.x/10.x whose tensor-parallel peers are on NVLink (bridged or switched)."""
    cc = gpu.cc or (0, 0)
    return gpu.vendor == "NVIDIA" and cc[0] in (9, 10) and bool(gpu.has_nvlink)


def nvls_capable(gpu: GPUSpec) -> bool:
    """Such a GPU on an NVLink switch (SXM/HGX boards, not PCIe or bridged cards), where NCCL turns NVLink SHARP on
    for communicators of more than 2 GPUs (vLLM issue #9699, measured on H100/H200)."""
    ic = str(gpu.interconnect or "").lower()
    return nvlink_tp_capable(gpu) and "bridge" not in ic and "c2c" not in ic.split(";")[0]


def custom_allreduce_says(gpu: GPUSpec, args: EngineArgs, rules: VersionRules) -> str | None:
    """The note of --disable-custom-all-reduce: whether vLLM `rules.version` would have built its custom all-reduce
    for this group, and what turning it off does to the budget; None without the flag.

    vLLM builds it (device_communicators/cuda_communicator.py, CustomAllreduce.__init__ in custom_all_reduce.py,
    0.4.2-0.34.0 wheels) for a tensor-parallel group of a size it supports (rules custom_allreduce_world_sizes), on
    CUDA where the GPUs pass its P2P test (_can_p2p) and, beyond two GPUs, are all on NVLink (is_full_nvlink /
    is_fully_connected: "not supported on more than two PCIe-only GPUs"), on ROCm only on MI300-class GPUs from 0.8.4
    (rules custom_allreduce_rocm). Without it the all-reduces go through NCCL (PyNcclCommunicator, built for every
    group of more than one GPU either way; symmetric memory or FlashInfer's all-reduce where those are on). Its
    buffers (rules custom_allreduce_buffer_mib, 24-32 MiB per rank) are allocated in init_device's
    init_worker_distributed_environment: after the budget's baseline snapshot up to 0.10 (rules nccl_charged), so
    vLLM charged them, before it from 0.11 (v1/worker/gpu_worker.py init_device, 0.10.2 and 0.11.0 wheels), so it
    does not. kvplan's non-torch terms were fitted on tensor-parallel startups without separating them (the TP term
    n_tp is 0 GiB in every era), so the plan is the same with and without the flag, and the note says what the
    release charges. Graph capture registers the kernel's graph buffers as IPC handles into rank_data (no new
    allocation); NCCL captured in CUDA graphs instead is not sized (vLLM PR #2192, which brought the kernel, measured
    0.5-1.0 GB more memory per GPU with NCCL in the graphs; the graph terms were fitted on startups of both kinds),
    and the note says so where graphs are captured."""
    if not args.disable_custom_all_reduce:
        return None
    v, tp = rules.version, args.tensor_parallel_size or 1
    head = "--disable-custom-all-reduce: "
    if tp <= 1:
        return (head + f"no custom all-reduce at TP 1 (vLLM {v} builds it only for a tensor-parallel group of more "
                "than one GPU, device_communicators/cuda_communicator.py), so the flag changes nothing")
    vendor = (gpu.vendor or "NVIDIA").upper()
    name = str(gpu.name or "")
    if vendor == "AMD" and not any(arch in name for arch in rules.custom_allreduce_rocm):
        on = (f"builds its custom all-reduce only on MI300-class GPUs ({', '.join(rules.custom_allreduce_rocm)}: "
              "platforms/rocm.py use_custom_allreduce)" if rules.custom_allreduce_rocm else
              "turns its custom all-reduce off on every ROCm GPU itself (ParallelConfig sets "
              "disable_custom_all_reduce, config.py up to 0.8.2)")
        return head + f"vLLM {v} {on}, so on {name} the flag changes nothing"
    if vendor not in ("NVIDIA", "AMD"):
        return head + f"vLLM builds its custom all-reduce only on CUDA and ROCm, so on {name} the flag changes nothing"
    sizes = rules.custom_allreduce_world_sizes
    if tp not in sizes:
        return (head + f"vLLM {v} builds its custom all-reduce only at TP {', '.join(map(str, sizes))} "
                f"(custom_all_reduce.py _SUPPORTED_WORLD_SIZES): at TP {tp} it is off anyway, so the flag changes "
                "nothing")
    ic = str(gpu.interconnect or "").lower()
    if vendor == "NVIDIA" and tp > 2 and not (gpu.has_nvlink and "bridge" not in ic):
        return (head + f"vLLM {v} turns its custom all-reduce off by itself beyond two GPUs not all on NVLink "
                "(\"Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs\", "
                f"custom_all_reduce.py), so at TP {tp} on {name} the flag only silences that warning; the plan is the "
                "same")
    meta, inp, rank_data = rules.custom_allreduce_buffer_mib
    total = meta + inp + rank_data
    where = ("" if vendor == "AMD" or gpu.has_nvlink else
             "where the two GPUs pass vLLM's P2P test (custom_all_reduce.py _can_p2p; GeForce cards without NVLink "
             "fail it unless a driver enables peer access, and vLLM then turns the kernel off by itself: \"Custom "
             "allreduce is disabled because your platform lacks GPU P2P capability\"), ")
    buffers = (f"{where}its buffers are {total} MiB per rank ({meta} MiB + meta_size() and {inp} MiB of IPC buffers, "
               f"{rank_data} MiB rank_data)")
    if rules.nccl_charged:
        budget = (f"allocated after the budget's baseline snapshot in vLLM {v} (init_device), which charges them "
                  "to the budget, so the flag gives them back to the KV cache; kvplan plans the same budget: its "
                  "non-torch terms were fitted on tensor-parallel startups without separating them (the TP term is "
                  "0 GiB: tens of MiB are within the fits' residuals)")
    else:
        budget = (f"allocated before the budget's baseline snapshot in vLLM {v} (gpu_worker.py init_device), so they "
                  "only lower the free memory vLLM checks at startup: the budget and the plan are the same")
    nccl = ("RCCL (pynccl) instead of vLLM's custom kernel (its quick all-reduce and AITER all-reduce, where the "
            "release has and enables them, go off with it)" if vendor == "AMD" else
            "NCCL (pynccl) instead of vLLM's custom kernel")
    graphs = ("" if args.enforce_eager else
              "; the CUDA graphs then capture NCCL's all-reduce instead, which can take more graph memory than the "
              "custom kernel (vLLM PR #2192 measured 0.5-1.0 GB more per GPU with NCCL in the graphs, vLLM 0.2; "
              "NCCL issue #1234): not sized, kvplan's graph terms are fitted on startups of both kinds")
    return head + f"tensor-parallel all-reduces go through {nccl}; {buffers}, {budget}{graphs}"


# FlashInfer's all-reduce + RMSNorm fusion workspace (versions.py fi_allreduce_fusion): the largest input the fused
# kernel takes, in MB per compute capability (major x 10 + minor) and TP size, as each table the pass reads
# (compilation/passes/fusion/allreduce_rms_fusion.py FI_ALLREDUCE_FUSION_MAX_SIZE_MB; config/compilation.py
# PassConfig.flashinfer_max_size: TP sizes outside the table build no workspace).
_FI_AR_MAX_MB_017 = {90: {2: 64, 4: 2, 8: 0.5}, 100: {2: 64, 4: 32, 8: 1}}
_FI_AR_MAX_MB_019 = {**_FI_AR_MAX_MB_017, 103: {2: 64, 4: 64, 8: 2}}
_FI_AR_MAX_MB_025 = {90: _FI_AR_MAX_MB_017[90], 100: {**_FI_AR_MAX_MB_017[100], 16: 64}, 103: {**_FI_AR_MAX_MB_019[103], 16: 64}}
_FI_AR_MAX_MB_027 = {**_FI_AR_MAX_MB_025, 107: {2: 64, 4: 64, 8: 2}}
FI_AR_FUSION_MAX_MB = {"0.17": _FI_AR_MAX_MB_017, "0.19": _FI_AR_MAX_MB_019, "0.25": _FI_AR_MAX_MB_025,
                       "0.27": _FI_AR_MAX_MB_027, "0.29": {**_FI_AR_MAX_MB_027, 103: {**_FI_AR_MAX_MB_025[103], 8: 4}}}
# The multicast granularity the driver recommends on Hopper/Blackwell NVSwitch systems, which flashinfer's
# SymmDeviceMemory rounds each buffer up to (flashinfer/comm/mnnvl.py _get_allocation_prop:
# cuMulticastGetGranularity(CU_MULTICAST_GRANULARITY_RECOMMENDED)): 512 MiB, as the workspace addresses logged in
# sgl-project/sglang PR #18341 (TP2, the same flashinfer allocator) show, each buffer 0x20000000 bytes past the last,
# the 2 MiB flag buffer included. The llm-d-planner 0.19.0 H100 sweep agrees (tests/data/extra_records.jsonl,
# the five beside calibration.py's workspace note): TP2/TP4 startups log 2.06-2.21 GiB of non-torch
# memory against 0.24-0.27 at TP1 and 0.54-0.55 at TP2 before 0.17, i.e. 1.4-1.6 GiB more, three such buffers.
FI_AR_MULTICAST_GRANULARITY = 512 * 1024 ** 2
_ALLOC_GRANULARITY = 2 * 1024 ** 2   # cuMemGetAllocationGranularity(RECOMMENDED) on these GPUs
_FI_AR_BARRIER_FLAGS = 256           # flashinfer/comm/trtllm_ar.py BarrierFlagCount
_FI_AR_MAX_COMM = 2147483647 & ~(_ALLOC_GRANULARITY - 1)  # trtllm_ar.py MAX_COMM_SIZE
_SIGNAL_PAD = 2048                   # mnnvl.py SIGNAL_PAD_SIZE (torch's symmetric memory keeps a pad of its own)


def _compiles(args: EngineArgs) -> bool:
    """Whether vLLM compiles the model with its own backend (and so builds its fusion passes): not with --enforce-eager
    (config/vllm.py sets the compilation mode NONE, 0.19.0) nor with a --compilation-config whose mode (or level) is
    other than VLLM_COMPILE (3): NONE (0), STOCK_TORCH_COMPILE (1) and DYNAMO_TRACE_ONCE (2) run no vLLM pass
    (config/vllm.py VllmConfig.__post_init__ 0.17.0, 0.19.1: 'optimizations settings that are only active during
    inductor compilation will be ignored'), nor with the backend "eager"."""
    if args.enforce_eager:
        return False
    cfg = compilation_object(args.compilation_config)
    mode = cfg.get("mode", cfg.get("level"))
    if mode is not None and str(mode).strip().upper() not in ("3", "VLLM_COMPILE", "PIECEWISE"):
        return False
    if str(cfg.get("backend") or "").strip().lower() == "eager":
        return False
    passes = cfg.get("pass_config")
    return not (isinstance(passes, dict) and passes.get("fuse_allreduce_rms") is False)


def fi_allreduce_workspace_bytes(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules) -> tuple[int, str]:
    """Per rank: the workspace of FlashInfer's all-reduce + RMSNorm fusion pass, allocated outside torch's allocator
    while the compile inside the profile run builds the pass, so vLLM counts it as non-torch memory (0 where the pass
    is off). With its text.

    The pass (compilation/passes/fusion/allreduce_rms_fusion.py AllReduceFusionPass.__init__, 0.19.0) sizes it for
    T = min(max size / (hidden x dtype bytes), max_num_batched_tokens) tokens and asks flashinfer for the 'trtllm'
    workspace (distributed/device_communicators/flashinfer_all_reduce.py get_fi_ar_workspace; the quantized patterns
    reuse it), three buffers per rank (flashinfer/comm/trtllm_ar.py trtllm_create_ipc_workspace_for_all_reduce_fusion):
    TP x T x hidden x 2 B, TP x 256 x 4 B of flags, and 3 Lamport buffers of TP x T x hidden x 2 B (4 B in float32),
    each rounded up to the multicast granularity (SymmDeviceMemory) or the allocation granularity (torch's symmetric
    memory), versions.py fi_allreduce_workspace_alloc. SymmDeviceMemory refuses a GPU without multicast support (no
    NVSwitch), and vLLM then runs without the fusion."""
    table = FI_AR_FUSION_MAX_MB.get(rules.fi_allreduce_fusion)
    tp = args.tensor_parallel_size
    cc = gpu.cc
    if not table or tp <= 1 or gpu.vendor != "NVIDIA" or cc is None or not _compiles(args):
        return 0, ""
    if not (cc == (9, 0) or (cc == (10, 0) if rules.fi_allreduce_fusion == "0.17" else cc[0] == 10)):
        return 0, ""
    if rules.fi_allreduce_fusion_pp_dp_1 and ((args.pipeline_parallel_size or 1) > 1 or (args.data_parallel_size or 1) > 1):
        return 0, ""
    max_mb = table.get(cc[0] * 10 + cc[1], {}).get(tp)
    multicast = rules.fi_allreduce_workspace_alloc == "multicast"
    if max_mb is None or (multicast and not nvls_capable(gpu)):
        return 0, ""
    db = DTYPE_BYTES[args.dtype]
    h = model.hidden_size
    t = min(int(max_mb * 1024 ** 2) // (h * db), args.max_num_batched_tokens)
    lamport_b = 4 if db == 4 else 2
    sizes = (tp * t * h * 2, tp * _FI_AR_BARRIER_FLAGS * 4, 3 * min(tp * t * h * lamport_b, _FI_AR_MAX_COMM))
    gran = FI_AR_MULTICAST_GRANULARITY if multicast else _ALLOC_GRANULARITY
    total = sum(-(-(s + _SIGNAL_PAD) // gran) * gran for s in sizes)
    how = (f"each rounded up to the {gran // 1024 ** 2} MiB multicast granularity" if multicast
           else "torch symmetric memory, 2 MiB granularity")
    return total, (f"FlashInfer all-reduce + RMSNorm fusion workspace (TP {tp}, T {t}: buffers of "
                   + ", ".join(f"{s / 1024 ** 2:.1f}" for s in sizes) + f" MiB, {how})")


# FlashInfer's TRTLLM-API attention workspace (v1/attention/backends/flashinfer.py _get_trtllm_workspace_buffer, read in
# the 0.29.0-0.33.0 wheels): one module-level buffer of VLLM_FLASHINFER_WORKSPACE_BUFFER_SIZE bytes, 394 MiB unless the
# variable says otherwise (envs.py)
FI_TRTLLM_WORKSPACE_ENV = "VLLM_FLASHINFER_WORKSPACE_BUFFER_SIZE"
FI_TRTLLM_WORKSPACE_DEFAULT = 394 * 1024 ** 2
# the KV dtypes FlashAttention stores only as FA3 on Hopper or FA4 on compute capability 10.x (v1/attention/backends/
# fa_utils.py flash_attn_supports_kv_cache_dtype; fp8_e5m2 never), so that FlashInfer serves them on 12.x
_FI_FP8_KV = ("fp8", "fp8_e4m3")


def trtllm_workspace_in_estimate_bytes(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules,
                                       runner: str, graphs: CudaGraphPlan | None) -> tuple[int, str]:
    """(bytes, why): FlashInfer's TRTLLM-API workspace inside the CUDA-graph estimate the budget subtracts (rules rows
    mrv2_estimate_trtllm_workspace for model runner v2, v1_estimate_trtllm_workspace for v1), 0 where vLLM's default
    attention backend runs no XQA / TRTLLM-gen kernel or no forward in the estimate's window has attention metadata.

    The buffer is allocated at the first attention forward that runs such a kernel (flashinfer.py FlashInferImpl.forward,
    decode through flashinfer_xqa_batch_decode_with_kv_cache or trtllm_batch_decode_with_kv_cache, prefill through
    TRTLLM-gen) and kept for the process. Neither runner's profile run passes attention metadata, so that forward comes
    in profile_cudagraph_memory's measured window: model runner v2's capture_model(); model runner v1's first FULL-mode
    warmup (force_attention), which it runs only where FULL graphs are captured. The estimate carries the buffer beside
    the graphs (the real capture, after it, does not). vLLM's backend, by default (platforms/cuda.py
    _get_backend_priorities; kvplan takes no --attention-backend): FlashInfer first for causal attention on compute
    capability 10.x, whose TRTLLM-gen kernels decode and prefill; FlashAttention first elsewhere, but its FA2 stores no
    fp8 KV cache, so an fp8 (e4m3) cache on 12.x goes to FlashInfer, which decodes through the dedicated XQA kernel where
    the head size is 16-256 and a multiple of 16 (FlashInferMetadataBuilder.__init__) from 0.28 (rules row
    trtllm_attention_cc_majors). Both need the TRTLLM cubins (utils/flashinfer.py supports_trtllm_attention:
    flashinfer-cubin installed or NVIDIA's artifactory reachable), which kvplan takes as present. MLA models run other
    backends; a model without attention layers has no such forward; attention layers of two head sizes (Gemma 4's
    head_dim and global_head_dim) take FlashAttention 4 or Triton on every layer (model_executor/models/config.py
    Gemma4Config.verify_and_update_config, read in the 0.20.0-0.33.0 wheels: it keeps FlashInfer out)."""
    row = rules.mrv2_estimate_trtllm_workspace if runner == "v2" else rules.v1_estimate_trtllm_workspace
    if (not row or not sizes_left(args, graphs) or model.uses_mla
            or model.is_attention_free or (gpu.vendor or "").upper() != "NVIDIA" or gpu.cc is None):
        return 0, ""
    if runner != "v2" and (graphs is None or graphs.mode not in _FULL_DECODE_MODES):
        return 0, ""
    if len({l.head_dim for l in model.layers if l.kind in ("full", "sliding", "chunked")}) > 1:
        return 0, ""
    heads = heads_per_rank(model.num_attention_heads, args.tensor_parallel_size)
    kv_heads = heads_per_rank(model.num_kv_heads, args.tensor_parallel_size)
    if not kv_heads or heads % kv_heads:
        return 0, ""
    major = gpu.cc[0]
    kv = (args.kv_cache_dtype or "auto").lower()
    builder = (major not in rules.trtllm_attention_cc_majors and runner == "v1"
               and major in rules.v1_estimate_fi_wrapper_workspace_cc_majors and kv in _FI_FP8_KV)
    if builder:
        why = (f"FlashInfer, which serves the {kv} KV cache on compute capability {gpu.compute_capability} (FA2 stores "
               "none), decoding through its own wrappers, whose metadata builder makes the buffer at its first one")
    elif major not in rules.trtllm_attention_cc_majors:
        return 0, ""
    elif major == 10:
        why = f"FlashInfer, vLLM's attention backend on compute capability {gpu.compute_capability}, with TRTLLM-gen kernels"
    elif major == 12 and kv in _FI_FP8_KV and 16 <= model.head_dim <= 256 and model.head_dim % 16 == 0:
        why = (f"FlashInfer, which serves the {kv} KV cache on compute capability {gpu.compute_capability} (FA2 stores "
               "none), decoding through its XQA kernel")
    else:
        return 0, ""
    label = "FlashInfer metadata-builder workspace" if builder else "FlashInfer TRTLLM-API workspace"
    size, source = FI_TRTLLM_WORKSPACE_DEFAULT, "394 MiB, vLLM's default"
    value = args.env_value(FI_TRTLLM_WORKSPACE_ENV)
    if value is not None:
        # envs.py reads it as int(value) where the buffer is made: a value int() refuses stops the server there; it
        # was taken as the default without a word
        try:
            size, source = int(value.strip()), f"{FI_TRTLLM_WORKSPACE_ENV}={value.strip()}"
        except ValueError:
            raise InputError(f"--env {FI_TRTLLM_WORKSPACE_ENV}", f"{value!r} is not a value vLLM reads (it takes "
                             f"int(value) when FlashInfer makes its workspace, as it does here: {why}): the server "
                             "stops with a ValueError", f"a whole number of bytes, e.g. {FI_TRTLLM_WORKSPACE_ENV}="
                             f"{FI_TRTLLM_WORKSPACE_DEFAULT} (394 MiB, the default), or unset") from None
        if size < 0:
            raise InputError(f"--env {FI_TRTLLM_WORKSPACE_ENV}", f"{value!r} is a negative size (torch.empty refuses "
                             "it when FlashInfer makes its workspace)", f"a whole number of bytes, e.g. "
                             f"{FI_TRTLLM_WORKSPACE_ENV}={FI_TRTLLM_WORKSPACE_DEFAULT}, or unset") from None
    per_elem = rules.fi_builder_workspace_bytes_per_elem if builder else 0
    footprint = args.max_num_batched_tokens * heads * model.head_dim * per_elem
    if footprint > size:
        size, source = footprint, (f"the prefill footprint, {args.max_num_batched_tokens:,} batched tokens x {heads} query "
                                   f"heads x {model.head_dim} x {per_elem} B, above {source}")
    where = ("the estimate's capture" if runner == "v2"
             else "the estimate's first FULL-graph warmup (at most this much: the estimate takes the larger of the FULL "
                  "and PIECEWISE first captures)")
    return size, (f"{size / GIB:.2f} GiB {label} ({source}), allocated by the first attention "
                  f"forward inside {where}: {why}")


def _profile_forward_eager(args: EngineArgs, rules: VersionRules) -> bool:
    """Whether the profile run's forward runs op by op in Python: V1 where _eager_forward says so; V0 unless a
    --compilation-config asks for a compilation level (V0 compiles nothing by default)."""
    if rules.is_v1:
        return _eager_forward(args)
    mode = _compilation_mode(args)
    return mode is None or mode in _NO_COMPILATION_MODES


def allreduce_live_bytes(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> int:
    """Per rank: the dense live set of an eager profile forward at down_proj's all-reduce, where TP > 1 and the
    all-reduce writes a new tensor (rules allreduce_out_of_place); 0 elsewhere.

    RowParallelLinear.forward (model_executor/layers/linear.py, read in the 0.6.5, 0.7.2 and 0.22.1 wheels; LoRA's
    RowParallelLinearWithLoRA the same, lora/layers/row_parallel_linear.py 0.22.1) keeps its GEMM output
    (output_parallel, T x H) referenced while tensor_model_parallel_all_reduce returns the reduced copy, so both are
    alive at once. Whichever path reduces it writes a new tensor (versions.py allreduce_out_of_place): the custom
    all-reduce (up to 8 MiB by default, custom_all_reduce.py CustomAllreduce.all_reduce: torch.empty_like, 0.6.5 and
    0.7.2 wheels) and pynccl past it (a T x H bfloat16 tensor is 80-640 MiB at T 8,192-32,768). Run eagerly, the
    caller's frames hold the three T x H rows of the live set (term_features) and the MLP's activation (I/TP), which
    down_proj is called with; Qwen2MLP also keeps gate_up (2 I/TP) under its own name (GATE_UP_HELD_MODEL_TYPES;
    models/qwen2.py Qwen2MLP.forward, 0.7.2 wheel too): T x dtype x (5 H + I/TP [+ 2 I/TP]). That passes the
    SiluAndMul point (3 H + 3 I/TP) for Qwen2-style MLPs at any TP > 1, for the others only where I/TP < H (LlamaMLP
    rebinds x, so gate_up is gone). The V0 Qwen2 TP 2 startups log it: Qwen2.5-14B, 0.7.2, T 32,768: 2.84 GiB (this
    term 2.83, the SiluAndMul point 2.20); Qwen2.5-32B, 0.7.1, T 10,000: 1.26 (1.25 / 1.06); DeepSeek-R1-Distill-
    Qwen-14B, 0.7.2, T 2,048: 0.19 (0.18 / 0.14). A compiled forward (Inductor frees the activation after its GEMM and
    the graph's own buffers differ) is not counted: its live set there is not read. At TP 1 (or an in-place all-reduce)
    the GEMM point beside a held gate_up, 4 H + 3 I/TP, is term_features' forward_bytes (dense_hidden_rows)."""
    if (model.is_moe or not model.intermediate_size or args.tensor_parallel_size <= 1
            or not rules.allreduce_out_of_place or not _profile_forward_eager(args, rules)):
        return 0
    inter = model.intermediate_size / args.tensor_parallel_size
    held = 2 * inter if model.model_type in GATE_UP_HELD_MODEL_TYPES else 0.0
    return int(args.max_num_batched_tokens * DTYPE_BYTES[args.dtype] * (5 * model.hidden_size + inter + held))


def dense_hidden_rows(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> int:
    """The T x H rows of the dense MLP's peak live set beside gate_up's output (2 I/TP) and the activation (I/TP)
    (term_features): 3, or 4 where an eager profile forward (_profile_forward_eager: V0, V1 with --enforce-eager or a
    compilation mode NONE) runs an MLP that keeps gate_up's output under its own name through down_proj
    (GATE_UP_HELD_MODEL_TYPES: Qwen2MLP.forward binds gate_up, then x = act_fn(gate_up), then down_proj(x),
    models/qwen2.py, read in the 0.6.4.post1, 0.7.2, 0.10.2, 0.17.0 and 0.29.0 wheels; qwen3.py imports it as
    Qwen3MLP): at down_proj's GEMM its T x H output is written while gate_up, the activation and the three rows are
    alive, 4 H + 3 I/TP, above the SiluAndMul point (3 H + 3 I/TP). LlamaMLP rebinds x, so gate_up is freed before
    down_proj (4 H + I/TP there, below SiluAndMul). Logged: Qwen2.5-14B on 0.7.2 at T 32,768 TP 1 3.79 GiB (4 H + 3 I:
    3.78, 3 H + 3 I: 3.47); Qwen3-8B on 0.29.0 eager 0.41 (0.406 / 0.38). A compiled forward frees gate_up after the
    activation (Inductor), not counted."""
    if model.model_type in GATE_UP_HELD_MODEL_TYPES and _profile_forward_eager(args, rules):
        return 4
    return 3


def term_features(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules,
                  graphs: CudaGraphPlan | None = None) -> TermFeatures:
    tp = args.tensor_parallel_size
    db = DTYPE_BYTES[args.dtype]
    t = args.max_num_batched_tokens
    s = min(args.max_num_seqs, t) if rules.is_v1 else args.max_num_seqs
    h = model.hidden_size
    v_pad = padded_vocab(model)
    rows = 3  # the dense live set's T x H rows (dense_hidden_rows); MoE models count none of them
    moe_path = ""
    if model.is_moe:
        # fused-MoE caches are sized by the tokens the layer holds (fused_moe.py fused_experts_impl: M x top-k x width):
        # with DP > 1 the dispatch gathers every engine's batch (layer.py naive / all-gather dispatch), up to the
        # release's chunk (rules row fused_moe_chunk_tokens); expert parallelism holds whole experts, else they are
        # sliced over TP x DP (weights_per_rank)
        dp = (args.data_parallel_size or 1) * args.pcp  # PCP ranks join the MoE's flattened TP x PCP x DP axis
        m = t * dp
        if rules.fused_moe_chunk_tokens:
            m = min(m, rules.fused_moe_chunk_tokens)
        width = model.moe_intermediate_size if args.enable_expert_parallel else model.moe_intermediate_size / (tp * dp)
        fwd, moe = 0.0, m * model.num_experts_per_tok * db * (3 * width + h)
        workspace = moe_workspace_bytes(model, args, rules, t * dp, width) if rules.moe_workspace_persistent else 0.0
        quantized = quantized_moe_experts(model, gpu, args, rules, width)
        if quantized and quantized[0] in rules.moe_quant_workspace:
            workspace = float(modular_workspace_bytes(t * dp, rules.fused_moe_chunk_tokens, model.num_experts_per_tok,
                                                      quantized[1], quantized[2], DTYPE_BYTES[args.dtype]))
        if quantized and quantized[0] == "nvfp4_vllm_cutlass":
            # its workspace (persistent) and its own copies (transient) replace the generic fused-MoE cache term
            workspace, moe = cutlass_fp4_moe_bytes(t * dp, model.num_experts_per_tok, quantized[1], quantized[2], db)
            moe_path = quantized[0]
        elif workspace:
            moe = 0.0
    else:
        # the dense MLP's live set at SiluAndMul: gate_up's output (2 I / TP) and the activation's (I / TP) beside three
        # T x H tensors. Eager (V0, --enforce-eager): the residual (updated in place by fused_add_rms_norm,
        # _custom_ops.py / layers/layernorm.py RMSNorm.forward_cuda), the attention output that post_attention_layernorm
        # normalises in place and the decoder layer hands to self.mlp, and the layer's input, which
        # LlamaModel.forward's loop variable still holds while the layer runs (models/llama.py LlamaModel.forward /
        # LlamaDecoderLayer.forward, read in the 0.6.4.post1, 0.7.2 and 0.17.0 wheels; Qwen2's the same). Compiled
        # (V1): compilation/backends.py split_graph cuts the graph at the attention ops (torch.fx split_module, 0.10.2
        # and 0.17.0 wheels), so the piece that runs a layer's MLP takes the attention output and the residual as
        # inputs, which the split module's frame holds through the piece, and keeps the new residual (o_proj output +
        # residual, RMSNorm.forward_native) for the layer's last add. kvplan counted 2 H until stop 27; the logged
        # peaks of the forward-dominated startups sit one T x H above that (Llama-3.1-8B 0.6.4 at T 20,000 / 29,000: 2.07 /
        # 2.99 GiB logged, 3 H + 3 I 2.06 / 2.99). Not read in the source, so not counted: at 65,536-131,072 tokens the
        # logs show one T x H more again (Llama-3.1-8B on an H200 NVL MIG slice, vLLM 0.10.0, warm, ssaketh-ch/llama31b-benchmark
        # logs that are not records (tests/data/SOURCES-logs.md, Thirtieth round): 40.44 GiB at 65,536
        # and 33.19 at 131,072, T x 2 B x (4 H + 3 I) apart; the 0.9.2 ROCm V0 start at 131,072 logs 14.63 GiB), where
        # 0.17.1's 8,192- and 16,384-token starts are 3 H + 3 I apart
        if model.intermediate_size:
            rows = dense_hidden_rows(model, args, rules)
        fwd, moe, workspace = t * db * (rows * h + 3 * model.intermediate_size / tp), 0.0, 0.0
    graphs = graphs or cudagraph_plan(model, gpu, args, rules)
    n_sizes = graphs.piecewise_count
    n_layers = len([l for l in model.layers if l.kind != "none"])
    return TermFeatures(forward_bytes=fwd, moe_bytes=moe, moe_workspace_bytes=workspace, sampler_elements=0.0 if model.is_pooling else float(s * v_pad),
                        tp_gt_1=tp > 1, graph_layer_sizes=float(n_layers * n_sizes * graphs.lora_cases
                                                                 + graphs.drafter_layers * graphs.drafter_graphs),
                        graphs=graphs,
                        integrated_memory=(gpu.compute_capability in INTEGRATED_MEMORY_CC), t=t, s=s, v_pad=v_pad,
                        n_layers=n_layers, n_sizes=n_sizes, nvls=tp > 2 and nvls_capable(gpu),
                        nvlink_tp=tp > 1 and nvlink_tp_capable(gpu),
                        hidden_rows=rows, reduce_bytes=float(allreduce_live_bytes(model, args, rules)), moe_path=moe_path)


def workspace_rounded(nbytes: float) -> int:
    """A buffer of the worker's WorkspaceManager as it is allocated: get_simultaneous rounds each size up to 256 B
    (v1/worker/workspace.py, 0.14.0-0.33.0)."""
    return cdiv(int(nbytes), 256) * 256


def modular_workspace_bytes(m_full: int, chunk: int, top_k: int, n_half: int, k: int, db: int) -> int:
    """What a FusedMoEModularKernel of TritonExperts or MarlinExperts takes from the worker's WorkspaceManager for
    m_full tokens: FusedMoEModularKernel._allocate_buffers (modular_kernel.py 0.14.0-0.33.0) asks the experts'
    workspace_shapes for workspace13 (M, top-k, max(n_half, k)) and workspace2 (M, top-k, max(2 n_half, k)), in the
    activation dtype, n_half the expert's intermediate width as the kernel holds it (TritonExperts: N = w13's rows =
    2 n_half, SiLU-and-mul halving it, fused_moe.py 0.14.0-0.19.0 / experts/triton_moe.py 0.33.0; MarlinExperts:
    N = marlin_moe_intermediate_size = n_half, with workspace1 (M x top-k, max(N, K)) and workspace2 (M x top-k x
    max(2N, K)), fused_marlin_moe.py 0.17.0-0.19.1: the same two sizes), k the hidden size as the kernel holds it;
    one chunk shares workspace13 with the output (M, k); get_simultaneous rounds each up to 256 B
    (v1/worker/workspace.py). Past `chunk` tokens (VLLM_FUSED_MOE_CHUNK_SIZE, rules fused_moe_chunk_tokens; 0 = no
    chunking) the two are sized for one chunk beside the whole output."""
    m = min(m_full, chunk) if chunk else m_full
    ws13 = m * top_k * max(n_half, k) * db
    ws2 = m * top_k * max(2 * n_half, k) * db
    if m == m_full:
        return workspace_rounded(max(ws13, m_full * k * db)) + workspace_rounded(ws2)
    return workspace_rounded(ws13) + workspace_rounded(ws2) + workspace_rounded(m_full * k * db)


def cutlass_fp4_moe_bytes(m: int, top_k: int, n: int, k: int, db: int) -> tuple[float, float]:
    """(persistent workspace, transient peak) bytes of vLLM's CUTLASS NVFP4 experts (CutlassExpertsFp4 in a
    FusedMoEKernelModularImpl) for m tokens, n the expert's intermediate width, k the hidden size (read in the 0.20.2
    wheel; 0.24.0's run_cutlass_moe_fp4 is the same).

    Workspace: CutlassExpertsFp4.workspace_shapes (fused_moe/experts/cutlass_moe.py) asks workspace13 (M x top-k,
    max(2N, K)), workspace2 (M x top-k, N) and the output (M, K); FusedMoEKernelModularImpl._allocate_buffers
    (modular_kernel.py; no chunking there in 0.20.2) takes workspace13 and the output as one buffer of the larger size
    beside workspace2 from the WorkspaceManager, which keeps them (each rounded up to 256 B).

    Transient: run_cutlass_moe_fp4 allocates outside the workspace. `a = ops.shuffle_rows(a, a_map)` expands the input
    to (M x top-k, K) in the activation dtype (_custom_ops.py shuffle_rows: torch.empty of the map's length) and keeps
    it bound to `a` to the end; after the second GEMM `c3 = ops.shuffle_rows(c3, c_map)` makes another (M x top-k, K);
    the output is then `(c3.view(m, top-k, k) * topk_weights...).sum(dim=1)`, a third (M, top-k, K) and its (M, K) sum,
    beside the (M, K) output FusedMoEKernelModularImpl.apply made with torch.empty_like(hidden_states). The FP4 copies
    of the input (M x top-k x K/2 B, scaled_fp4_experts_quant) are freed before the second GEMM, below that point."""
    workspace = workspace_rounded(max(m * top_k * max(2 * n, k), m * k) * db) + workspace_rounded(m * top_k * n * db)
    transient = m * db * (3 * top_k * k + 2 * k)
    return float(workspace), float(transient)


# --moe-backend values and the block-FP8 expert path each gives (_fp8_block_moe_experts)
_FP8_BLOCK_ASKED = {"triton": "fp8_block_triton", "deep_gemm": "fp8_block_deepgemm", "marlin": "fp8_block_marlin",
                    "flashinfer_trtllm": "fp8_block_flashinfer", "flashinfer_cutlass": "fp8_block_flashinfer"}


def _fp8_block_moe_experts(cc: tuple[int, int], args: EngineArgs, rules: VersionRules, width: float,
                           hidden: int, model: ModelSpec | None = None) -> tuple[str, int, int]:
    """Block FP8 ([128, 128]) experts by GPU class, in fused_moe/oracle/fp8.py select_fp8_moe_backend's order (0.17.0,
    0.19.1, 0.20.0, 0.22.1, 0.23.0, 0.24.0, 0.27.1, 0.28.0, 0.29.0, 0.33.0 wheels: AITER, FLASHINFER_TRTLLM,
    FLASHINFER_CUTLASS, DEEPGEMM, VLLM_CUTLASS, TRITON, MARLIN, the first whose experts class supports the device and
    the scheme). "fp8_block_triton" (TritonExperts, FusedMoEKernel built by make_fp8_moe_kernel): Hopper without expert
    parallelism (_get_priority_backends moves TRITON to the front: "On Hopper for Block Fp8, prefer Triton for TP and
    FI CUTLASS for EP"), and cc 8.9 / 12.x, where FlashInfer TRTLLM (Blackwell family 100 only) and CUTLASS (block
    scales on 9.0 only) do not run it, VLLM_CUTLASS (CutlassExpertsFp8) takes no block scales, and DeepGEMM runs on 9.0
    and 10.x only up to 0.23 and on 12.x too from 0.24 (platforms/cuda.py support_deep_gemm; rules deep_gemm_sm12x)
    with VLLM_USE_DEEP_GEMM on (its default). Before 0.17 there is no Hopper preference (rules fp8_block_hopper_triton):
    FlashInfer CUTLASS (block scales on 9.0) and DeepGEMM come before Triton there, so Hopper gets
    "fp8_block_flashinfer"; cc 8.9 and 12.x get TritonExperts from 0.14.0 too (0.14.0-0.16.0 wheels; rules
    moe_quant_workspace). Not charged: "fp8_block_deepgemm" (TritonOrDeepGemmExperts, whose
    DeepGEMM buffers are 'strictly larger than the triton workspaces' and padded per expert: not counted here),
    "fp8_block_flashinfer" (Hopper with EP, Blackwell 10.x: the workspace inside flashinfer) and "fp8_block_marlin"
    (below cc 8.9, TritonExperts needing current_platform.supports_fp8(): no startup to check it on). VLLM_USE_DEEP_GEMM
    or VLLM_MOE_USE_DEEP_GEMM set to 1 forces DeepGEMM, set to 0 removes it."""
    asked = moe_backend_for(model, args, rules, "fp8")
    if asked in _FP8_BLOCK_ASKED:
        # --moe-backend (0.17 on): select_fp8_moe_backend takes the backend asked for ahead of its priority list and
        # of VLLM_USE_DEEP_GEMM (fused_moe/oracle/fp8.py map_fp8_backend; plan.serve_flags.moe_backend refuses where it cannot run)
        return (_FP8_BLOCK_ASKED[asked], int(width), hidden)
    deep_gemm_env = [(n, args.env_value(n)) for n in ("VLLM_USE_DEEP_GEMM", "VLLM_MOE_USE_DEEP_GEMM")]
    deep_gemm_off = any(v is not None and not args.env_on(n) for n, v in deep_gemm_env)
    deep_gemm_forced = not deep_gemm_off and any(v is not None for _, v in deep_gemm_env)
    n_half = int(width)
    if deep_gemm_forced:
        return ("fp8_block_deepgemm", n_half, hidden)
    if cc == (9, 0) and not rules.fp8_block_hopper_triton:
        # before 0.17: FlashInfer CUTLASS, then DeepGEMM, ahead of Triton (rules fp8_block_hopper_triton): not charged
        return ("fp8_block_flashinfer", n_half, hidden)
    if cc == (9, 0):
        # ep_size > 1 in the oracle: --enable-expert-parallel splits the experts only over more than one rank
        # (fused_moe/config.py FusedMoEParallelConfig.make: use_ep = dp x pcp x tp > 1 and enable_expert_parallel,
        # 0.17.0 and 0.27.1 wheels); on one GPU the flag leaves ep_size 1, and Triton first
        expert_parallel = (args.enable_expert_parallel
                           and args.tensor_parallel_size * args.data_parallel_size * args.pcp > 1)
        return ("fp8_block_flashinfer" if expert_parallel else "fp8_block_triton", n_half, hidden)
    if (10, 0) <= cc < (11, 0):
        return ("fp8_block_flashinfer", n_half, hidden)
    if cc < (8, 9):
        return ("fp8_block_marlin", n_half, hidden)
    if cc[0] == 12 and rules.deep_gemm_sm12x and not deep_gemm_off:
        return ("fp8_block_deepgemm", n_half, hidden)
    return ("fp8_block_triton", n_half, hidden)


def quantized_moe_experts(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules,
                          width: float) -> tuple[str, int, int] | None:
    """The quantized fused-MoE path a checkpoint gets on this GPU, as (path, the expert's intermediate width and the
    hidden size as its kernel holds them), for the paths kvplan has read the workspace of (rules moe_quant_workspace
    says from which release each keeps it); None for the others.

    gpt-oss's MXFP4 ("mxfp4_marlin", "mxfp4_triton", "mxfp4_flashinfer"): quantization/mxfp4.py get_mxfp4_backend
    (0.16.0-0.18.0) and fused_moe/oracle/mxfp4.py select_mxfp4_moe_backend (0.19.1-0.33.0) give SM100 FlashInfer,
    SM90 (and 10.x without FlashInfer) the Triton kernels, and every other CUDA GPU Marlin, which needs the triton
    kernels on (9, 0) <= cc < (11, 0) only (the 0.33.0 wheel's take 9.0 <= cc < 13.0 and run 11.x ahead of Marlin,
    0.34.0 puts Marlin first there again: rules mxfp4_triton_cc_majors); VLLM_MXFP4_USE_MARLIN=1 forces it where the release reads it
    (mxfp4_marlin_forced), and before 0.12 Hopper runs Marlin too (rules mxfp4_hopper_backend). Marlin pads the expert's width to 128 and the hidden size to 256
    (mxfp4_round_up_hidden_size_and_intermediate_size, oracle/mxfp4.py 0.19.1; weights.mxfp4_expert_layout).

    Block FP8: _fp8_block_moe_experts. Not pinned, so not named here (their workspace stays 0 and the fused-MoE cache
    term stands): per-tensor / per-channel FP8 (online --quantization fp8 included: FlashInfer CUTLASS or vLLM CUTLASS
    first where they run), NVFP4 (oracle/nvfp4.py: FlashInfer CUTLASS on 12.x, whose FlashInferExperts.workspace_shapes
    ask the WorkspaceManager only for (M, K) and the output, flashinfer's own workspace allocated inside the kernel, not
    read) and AWQ/GPTQ Marlin MoE (awq_marlin.py calls fused_marlin_moe() in 0.20.0 and builds MarlinExperts in 0.22.1;
    0.21 not read; an explicit --quantization awq keeps AWQConfig's own MoE method)."""
    # the experts' own scheme: a compressed-tensors checkpoint's group that names them (experts_quant)
    q = experts_quant(model, model.quant, rules)
    if q is None or gpu.vendor != "NVIDIA" or gpu.cc is None or not model.num_experts_per_tok:
        return None
    if q.method in ("fp8", "compressed-tensors") and q.weight_block:
        # a compressed-tensors checkpoint whose group is block FP8 (strategy "block"): CompressedTensorsW8A8Fp8MoEMethod
        # maps it to the same kFp8Static128BlockSym weights and kFp8Dynamic128Sym activations, asks the same
        # select_fp8_moe_backend and builds the kernel with make_fp8_moe_kernel (compressed_tensors_moe.py 0.14.0-0.17.1,
        # compressed_tensors_moe/compressed_tensors_moe_w8a8_fp8.py 0.20.0, 0.24.0, 0.29.0 wheels); its
        # allow_vllm_cutlass=True adds nothing for block scales (CutlassExpertsFp8._supports_quant_scheme: per-tensor
        # and per-channel only). 0.13.0 calls fused_experts() per call, like Fp8MoEMethod there (rules
        # moe_quant_workspace, from 0.14)
        return _fp8_block_moe_experts(gpu.cc, args, rules, width, model.hidden_size, model)
    nvfp4 = q.bits == 4 and "nvfp4" in str(q.scheme or "") and q.method in ("modelopt", "compressed-tensors")
    if nvfp4 and (10, 0) <= gpu.cc < (13, 0) and moe_backend_for(model, args, rules, "nvfp4") == "cutlass":
        # --moe-backend cutlass: NvFp4MoeBackend.VLLM_CUTLASS (CutlassExpertsFp4: families 100, 110, 120), whatever
        # the activation (fused_moe/oracle/nvfp4.py map_nvfp4_backend, 0.17.0-0.34.0); its buffers: cutlass_fp4_moe_bytes
        return ("nvfp4_vllm_cutlass", int(width), model.hidden_size)
    if (nvfp4 and model.model_type.startswith("gemma4") and (10, 0) <= gpu.cc < (13, 0)
            and rules.nvfp4_gelu_vllm_cutlass):
        # NVFP4 experts with Gemma 4's gated GELU on Blackwell: VLLM_CUTLASS, the first NVFP4 backend that takes GELU
        # (rules nvfp4_gelu_vllm_cutlass; the RTX 5090 0.20.2 start logs "Using 'VLLM_CUTLASS' NvFp4 MoE backend");
        # its buffers: cutlass_fp4_moe_bytes
        return ("nvfp4_vllm_cutlass", int(width), model.hidden_size)
    wna16_asked = moe_backend_for(model, args, rules, "wna16") if is_ct_wna16(q) else None
    if wna16_asked not in (None, "marlin"):
        return None  # --moe-backend triton / humming / flashinfer_trtllm (0.25 on): no Marlin workspace (not read)
    if (is_ct_wna16(q) and q.bits == 4 and (7, 5) <= gpu.cc
            and (wna16_asked == "marlin" or not (10, 0) <= gpu.cc < (11, 0))):
        # compressed-tensors int4 weight-only experts: CompressedTensorsWNA16MarlinMoEMethod (compressed_tensors_moe/
        # compressed_tensors_moe_wna16_marlin.py) calls fused_marlin_moe() from apply in 0.22.1 and builds a
        # FusedMoEKernel of MarlinExperts from 0.23.0 (oracle/int_wna16.py select_wna16_moe_backend: FLASHINFER_TRTLLM,
        # Blackwell family 100 only, then MARLIN; make_wna16_moe_kernel; 0.23.0, 0.25.1, 0.29.0 wheels); N = the
        # expert's width (marlin_moe_intermediate_size), K = hidden. Blackwell 10.x left out (TRTLLM's MXINT4 kernels
        # take some of these checkpoints: not pinned). From 0.25.0 N is the padded width where the weight prep pads it
        # (marlin_moe_experts, weights.marlin_moe_width)
        marlin = marlin_moe_experts(model, gpu, rules, model.quant, args)
        n = marlin_moe_width(int(width), model.hidden_size, *marlin) if marlin else int(width)
        return ("ct_wna16_marlin", n, model.hidden_size)
    if q.method != "mxfp4":
        return None
    backend = mxfp4_moe_backend(gpu.cc, rules.mxfp4_hopper_backend, mxfp4_marlin_forced(args, rules, gpu.cc, model),
                                rules.mxfp4_triton_cc_majors, mxfp4_triton_forced(args, rules, gpu.cc, model))
    if backend != "marlin":
        return (f"mxfp4_{backend}", int(width), model.hidden_size)
    i_align, h_align = MXFP4_MARLIN_ALIGN
    return ("mxfp4_marlin", -(-int(width) // i_align) * i_align, -(-model.hidden_size // h_align) * h_align)


def moe_workspace_bytes(model: ModelSpec, args: EngineArgs, rules: VersionRules, m_full: int, width: float) -> float:
    """The fused-MoE workspace an unquantized MoE model keeps from its profile run on (rules moe_workspace_persistent):
    TritonExperts' two buffers (modular_workspace_bytes) at N = 2 x the expert's intermediate width on the rank,
    K = hidden; FusedMoEModularKernel gets both from the worker's WorkspaceManager (v1/worker/workspace.py). 0 where
    another kernel runs the experts (a quantized checkpoint's: quantized_moe_experts and the rules row
    moe_quant_workspace charge the paths read), online quantization (--quantization fp8 on a bf16 checkpoint)
    included: its config gives the MoE layers its own method (Fp8Config.get_quant_method -> Fp8OnlineMoEMethod,
    quantization/fp8.py 0.19.1), not UnquantizedFusedMoEMethod. A compressed-tensors checkpoint whose ignore list or
    targets leave the experts out builds them with UnquantizedFusedMoEMethod (compressed_tensors_moe.py get_moe_method,
    "ignored layer", 0.12.0-0.33.0; experts_quant), which keeps this workspace."""
    online = model.quant is None and bool(args.quantization)  # the resolved --quantization of a checkpoint is its own
    if (experts_quant(model, model.quant, rules) is not None or online
            or args.dtype not in ("bfloat16", "float16") or not model.num_experts_per_tok):
        return 0.0
    return float(modular_workspace_bytes(m_full, rules.fused_moe_chunk_tokens, model.num_experts_per_tok, int(width),
                                         model.hidden_size, DTYPE_BYTES[args.dtype]))


def _pipeline_stage_pool(model: ModelSpec, args: EngineArgs, rules: VersionRules, groups, w: RankWeights,
                         requested: float, nt: float, cg: float, act_last: float, act_other: float,
                         nt_other: float | None = None):
    """V1 with pipeline parallelism sizes each rank's blocks from its own pool and its own layers, then gives every rank
    the smallest count (v1/core/kv_cache_utils.py unify_kv_cache_configs; 0.10.0 wheel). A stage's pool is the budget
    less its own weights (the first stage holds the embedding, the last the LM head) and its own profile peak: only the
    last rank runs the dummy sampler (v1/worker/gpu_model_runner.py profile_run, `if get_pp_group().is_last_rank`) and,
    under model runner v2, holds the sampler's state (`nt_other`: the other ranks' non-torch term, default `nt`).
    Returns (the binding stage's pool, its bytes per block, a note, each stage's (pool, bytes per block)), or None where
    one pool stands for every rank: no PP, V0, --kv-cache-memory-bytes, per-stage weights unknown, or more than one KV
    group (the uniform-type path only)."""
    pp = args.pipeline_parallel_size or 1
    if (pp <= 1 or not rules.is_v1 or args.kv_cache_memory_bytes is not None or len(groups) != 1
            or len(w.stage_bytes) != pp or groups[0].kind == "recurrent"):
        return None
    per_stage = [sum(l.kind != "none" for l in layers) for layers in stage_cache_layers(model, args, rules)]
    if min(per_stage) <= 0:
        return None
    page = groups[0].page_bytes
    stage_bpb = [page * n for n in per_stage]
    drafter = drafter_kv_layers(model, args, rules)
    if drafter:
        # the drafter's KV layers are registered on the stage that builds it, the last (model runner v2 builds its
        # speculator under is_last_pp_rank: v1/worker/gpu/model_runner.py, 0.30.0-0.33.0 wheels; rules row
        # pp_spec_drafter), so only that stage's block holds their pages. MTP layers copy the model's own (its page);
        # a drafter checkpoint's layers are paged by their own shape (one group of summed pages where it differs)
        if args.speculative[0] == "mtp":
            own, extra_pages = page, page * len(drafter)
        elif model.sparse_mla or model.compressed_attention or groups[0].kind not in ("full", "mla"):
            return None  # a drafter beside DeepSeek's sparse layouts or in a windowed group: one pool (not modelled)
        else:
            kvb = kv_dtype_bytes(args.kv_cache_dtype, args.dtype)
            tp, bs = args.tensor_parallel_size, groups[0].block_size
            target = next(l for l in model.layers if l.kind != "none")
            own = bs * _attention_page_per_token(target, tp, kvb)
            extra_pages = sum(bs * _attention_page_per_token(l, tp, kvb) for l in drafter)
        stage_bpb = [own * n for n in per_stage]
        stage_bpb[-1] += extra_pages
        per_stage[-1] += len(drafter)
    extra = w.bytes - max(w.stage_bytes)  # what is added to every rank after counting (allocator rounding, LoRA, ...)
    stages = []
    for s, (wb, n, bpb) in enumerate(zip(w.stage_bytes, per_stage, stage_bpb)):
        last = s == pp - 1
        pool = requested - (wb + extra) - (nt if last or nt_other is None else nt_other) - (act_last if last else act_other) - cg
        stages.append((max(0, int(pool // bpb)) if pool > 0 else 0, pool, bpb, n, s))
    blocks, pool, bpb, n, s = min(stages)
    note = (f"pipeline parallel: each of the {pp} stages sizes its blocks from its own pool and layers and every rank takes "
            f"the smallest count; the binding stage is stage {s} ({n} KV layers, {pool / GIB:.2f} GiB"
            + (", no sampler in its profile" if s != pp - 1 else
               ", the sampler's profile" + (f" and the {args.speculative[0]} drafter's weights and {len(drafter)} KV "
                                            "layer(s)" + (", its profile buffers" if args.speculative[0] in DRAFT_METHODS
                                                          else "") if drafter else "")) + "); per stage: "
            + ", ".join(f"{p / GIB:.2f} GiB / {k} layers" for _, p, _, k, _ in stages))
    return pool, bpb, note, [(p, b) for _, p, b, _, _ in stages]


def pipeline_cold_start_loss(model: ModelSpec, args: EngineArgs, rules: VersionRules, stages, pool: float, bpb: int,
                             act_first: int, loss: ColdStartLoss) -> ColdStartLoss:
    """A compiling first start under pipeline parallelism: only the first stage compiles the embedding gather whose
    table Inductor's combo-kernel benchmark copies (cold_start_pool_loss_bytes). vLLM's decoders build embed_tokens on
    the first rank (and, tied, on the last for the LM head) and run it only `if get_pp_group().is_first_rank`; later
    stages start from the intermediate tensors (models/llama.py LlamaModel and models/qwen2.py Qwen2Model, __init__ and
    forward, 0.27.1 wheel). So the copy costs the first stage's pool, with its own profile peak (`act_first`: no
    sampler), and every rank then takes the smallest block count (_pipeline_stage_pool). `stages` holds each stage's
    (pool, bytes per block), `pool` / `bpb` the warm binding stage's; `loss` the single-pool loss (its formula kept).
    Returns the loss relative to the warm binding pool, so that first_start, the cold-start checks and the note read it
    as they read one pool's."""
    first = cold_start_pool_loss_bytes(model, args, rules, act_first)
    def cold_pool(cut: int) -> float:  # the binding stage's cold pool, each stage's pool in the binding stage's blocks
        return min((p - (cut if s == 0 else 0)) / b * bpb for s, (p, b) in enumerate(stages))
    least, most = (max(0, int(pool - cold_pool(cut))) for cut in (first.least, first.most))
    return ColdStartLoss(least, most, first.embedding_copy,
                         f"{first.formula}; pipeline parallel: on stage 0 only, which holds embed_tokens (its pool "
                         f"{stages[0][0] / GIB:.2f} GiB against the binding {pool / GIB:.2f} GiB), so the ranks' smallest "
                         f"pool loses {least / GIB:.2f}-{most / GIB:.2f} GiB", True)


# vLLM's plain AWQ linear method multiplies through a float16 copy of the weight once a call holds this many tokens:
# AWQLinearMethod.apply (model_executor/layers/quantization/awq.py, read in the 0.3.3 to 0.23.0 wheels) and
# AutoAWQLinearMethod.apply (auto_awq.py, 0.24.0, 0.25.1, 0.33.0) take FP16_MATMUL_HEURISTIC_CONDITION =
# x.shape[:-1].numel() >= 256, then ops.awq_dequantize(qweight, scales, qzeros, 0, 0, 0) builds the whole (in, out)
# weight in the activation dtype and torch.matmul multiplies it; fewer tokens run ops.awq_gemm without the copy.
# The Marlin methods (awq_marlin.py, auto_awq.py AutoAWQMarlinLinearMethod) never build it.
AWQ_DEQUANT_MIN_TOKENS = 256


def awq_linear_kernel(model: ModelSpec, gpu: GPUSpec, quant: QuantSpec | None, given: str | None,
                      rules: VersionRules) -> str | None:
    """"awq" where vLLM `rules.version` serves this AWQ checkpoint's Linear layers with its plain AWQ method, "marlin"
    where AWQ-Marlin converts them (rules row awq_auto_marlin; --quantization awq_marlin names Marlin itself). None where
    it is not known: a checkpoint that is not AWQ, a GPU not NVIDIA's (ROCm's Triton AWQ path not read) or of unknown
    capability, or a config without its quantization_config when no flag decides (the checkpoint's group size and
    zero point, which Marlin's conversion checks, are then unread)."""
    if quant is None or quant.method != "awq" or gpu.vendor != "NVIDIA" or gpu.cc is None:
        return None
    flag = canonical_quant(given or "")
    if flag == "awq_marlin":
        return "marlin"
    if flag == "awq" and not rules.awq_auto_marlin:
        return "awq"
    if not (model.raw_config.get("quantization_config") or (model.text_config or {}).get("quantization_config")):
        return None
    return "marlin" if marlin_method(replace(model, quant=quant), gpu, rules.version) else "awq"


def awq_kernel_note(model: ModelSpec, gpu: GPUSpec, quant: QuantSpec, given: str | None, rules: VersionRules,
                    kernel: str) -> str:
    """Which kernel serves an AWQ checkpoint's Linear layers (awq_linear_kernel), said as an assumption: the plain one
    costs the profile a float16 weight copy (awq_dequant_bytes), and where --quantization awq alone forces it, the
    note says so and names the fix (vLLM's own log there: "Use quantization=awq_marlin for faster inference",
    awq_marlin.py override_quantization_method, 0.20.0 wheel)."""
    if kernel == "marlin":
        return (f"AWQ: vLLM {rules.version} converts the Linear layers to AWQ-Marlin"
                + (" (--quantization awq_marlin)" if canonical_quant(given or "") == "awq_marlin" else "")
                + ", which builds no float16 weight copy")
    forced = canonical_quant(given or "") == "awq" and not rules.awq_auto_marlin
    would_convert = forced and marlin_method(replace(model, quant=quant), gpu, rules.version) is not None
    return (f"AWQ: vLLM {rules.version} serves the Linear layers with its plain AWQ kernel"
            + (" because --quantization awq forces it (before 0.24)" if forced else
               " (no AWQ-Marlin conversion for this GPU or checkpoint)")
            + f": at {AWQ_DEQUANT_MIN_TOKENS} or more batched tokens it multiplies through a float16 copy of each "
            "weight, counted in the activation peak"
            + ("; drop --quantization awq (or give awq_marlin) and vLLM converts them to AWQ-Marlin, faster and "
               "without the copy" if would_convert else ""))


def awq_dequant_bytes(model: ModelSpec, args: EngineArgs, rows: int = 3) -> tuple[int, str]:
    """The float16 weight copy the plain AWQ method adds to the profile forward's live set (AWQ_DEQUANT_MIN_TOKENS):
    the dense MLP's live set (term_features: T x (3 H + 3 I), 4 H where dense_hidden_rows counts down_proj's output,
    passed as rows) is what stays alive through Qwen2MLP.forward's down_proj
    call (gate_up is still referenced there, models/qwen2.py, 0.20.0-0.29.0 wheels), which adds down_proj's copy
    (I x H); at gate_up_proj's call x, the residual, gate_up_proj's copy (H x 2 I) and its output are alive, T x I less
    than the live set. The larger of the two, with I the rank's slice. 0 for other kernels, MoE models (their experts
    run the MoE methods) and profile batches under the threshold."""
    t = args.max_num_batched_tokens or 0
    if args.awq_kernel != "awq" or model.is_moe or not model.intermediate_size or t < AWQ_DEQUANT_MIN_TOKENS:
        return 0, ""
    db, h = DTYPE_BYTES[args.dtype], model.hidden_size
    inter = model.intermediate_size / args.tensor_parallel_size
    # with 4 rows (dense_hidden_rows: down_proj's output counted in the live set) the gate_up_proj point (T x (3 H +
    # 2 I) + 2 I x H) sits T x (H + I) below the live set plus its copy, not T x I
    below = t * ((rows - 3) * h + inter)
    extra = int(db * max(inter * h, 2 * inter * h - below))
    return extra, (f" + {extra / GIB:.3f} GiB plain-AWQ float16 weight copy (T({t}) >= {AWQ_DEQUANT_MIN_TOKENS}: "
                   + (f"I/TP({inter:g}) x {db} B x max(H({h}), 2 H - T)" if rows == 3 else
                      f"{db} B x max(I/TP({inter:g}) x H({h}), 2 I/TP x H - T x (H + I/TP))")
                   + ", awq_dequantize + torch.matmul)")


# Model types whose vLLM dense MLP keeps gate_up_proj's output referenced through the down_proj call: Qwen2MLP
# (models/qwen2.py, imported by qwen3.py as Qwen3MLP) and Qwen2MoeMLP (models/qwen2_moe.py, imported by qwen3_5.py and
# qwen3_next.py as Qwen3NextMLP), whose forward binds gate_up and the activation to different names (0.17.0, 0.21.0,
# 0.27.1 wheels). LlamaMLP (models/llama.py) rebinds one name, so gate_up is freed before down_proj and a copy made there
# stays below the peak at the activation (not listed).
GATE_UP_HELD_MODEL_TYPES = frozenset({"qwen2", "qwen3", "qwen3_5", "qwen3_5_text"})


def fp8_act_quant_bytes(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules) -> tuple[int, str]:
    """The FP8 copy of down_proj's input that a W8A8 FP8 Linear method adds to an eager profile forward's live set.

    Fp8LinearMethod and Fp8OnlineLinearMethod (layers/quantization/fp8.py, 0.17.0-0.27.1) on NVIDIA compute capability
    8.9 or later run a kernel that quantizes the activation into a new FP8 tensor before its GEMM, and keep neither a
    workspace nor a 16-bit weight copy: per-tensor weights (online FP8) on CUTLASS with per-token activation scales
    (kernels/linear/scaled_mm/cutlass.py CutlassFP8ScaledMMLinearKernel, FP8ScaledMMLinearKernel.apply_weights'
    quant_fp8, 0.17.0-0.27.1; FlashInfer's per-tensor kernel needs per-tensor activation scales; the 0.29.0 RTX 5090
    log names CUTLASS), block weights on CUTLASS or Triton (Fp8BlockScaledMMLinearKernel.apply_weights, 0.21.0/0.27.1;
    12.0 has no DeepGEMM, platforms/cuda.py support_deep_gemm 9.0 / 10.x, so not the FlashInfer + DeepGEMM kernel
    either), DeepGEMM on 9.0. Below 8.9 the weights go to FP8 Marlin, which keeps activations in 16 bits
    (MarlinFP8ScaledMMLinearKernel.is_supported, 0.21.0/0.27.1), as VLLM_TEST_FORCE_FP8_MARLIN=1 forces. The copy,
    T x I/TP x 1 B (its scales, 4 B per token or per 128 values, are under 4 % of it), is made while gate_up_proj's
    output, the activation and the residual stream are alive (GATE_UP_HELD_MODEL_TYPES), the live set term_features
    counts. Only where the forward is eager (_eager_forward): compiled, the graph frees gate_up after its last use, and
    vLLM's compiling RTX 5090 FP8 start on 0.29.0 logs a peak no larger than the BF16 one's (Qwen2.5-7B,
    tests/data/blind_records.jsonl notes: 1.36 against 1.4 GiB). V0 and other vendors: not read, 0."""
    q = model.quant
    t = args.max_num_batched_tokens or 0
    if (q is None or q.method != "fp8" or model.is_moe or not model.intermediate_size or not rules.is_v1
            or model.model_type not in GATE_UP_HELD_MODEL_TYPES or not _eager_forward(args)
            or gpu.vendor != "NVIDIA" or gpu.cc is None or gpu.cc < (8, 9) or args.env_on("VLLM_TEST_FORCE_FP8_MARLIN")):
        return 0, ""
    inter = model.intermediate_size / args.tensor_parallel_size
    extra = int(t * inter)
    return extra, (f" + {extra / GIB:.3f} GiB FP8 copy of down_proj's input (T({t}) x I/TP({inter:g}) x 1 B, "
                   "eager forward, gate_up still held)")


def measured_terms(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules,
                   graphs: CudaGraphPlan | None = None) -> dict[str, tuple[int, str, str]]:
    """Activation peak, non-torch and CUDA-graph bytes per rank, each with its formula and source. `graphs`: the
    deployment's cudagraph_plan where the caller has it (else it is worked out here)."""
    c = coefficients_for(rules.era)
    f = term_features(model, gpu, args, rules, graphs)
    tp, db, h = args.tensor_parallel_size, DTYPE_BYTES[args.dtype], model.hidden_size
    runner = model_runner(model, args, rules)
    # the forward's live set and the sampler's logits are not alive at once: the peak is the larger
    rows = f.hidden_rows
    awq_copy, awq_formula = awq_dequant_bytes(model, args, rows)
    fp8_copy, fp8_formula = fp8_act_quant_bytes(model, gpu, args, rules)
    # the AWQ and FP8 copies live only inside down_proj's GEMM call, gone before its all-reduce
    forward = max(c.a_forward * f.forward_bytes + awq_copy + fp8_copy, c.a_forward * f.reduce_bytes) + c.a_moe * f.moe_bytes
    a_sampler, sampler = profile_sampler_term(model, args, rules, c, f.s)
    ws = f.moe_workspace_bytes  # held from the forward through the sampler run: beside the larger of the two
    # 0.27+: the budget charges total_consumed (free memory at the init snapshot minus free memory after the profile)
    # plus only the transient headroom (torch peak minus torch allocated after the profile)
    # (utils/mem_utils.py memory_profiling, v1/worker/gpu_worker.py determine_available_memory, 0.30.0 wheel). The
    # fused-MoE workspace stays allocated after the profile (v1/worker/workspace.py WorkspaceManager keeps
    # _current_workspaces, 0.30.0), so vLLM's summary counts it in 'consumed memory (weights + non-torch)', not in
    # 'peak activation': the same bytes, filed where the log prints them (the KV budget is unchanged)
    ws_nt = ws if rules.budget_counts_runner_buffers else 0
    ws_act = ws - ws_nt
    act = max(forward, a_sampler * f.sampler_elements) + c.a_const + ws_act
    act_formula = "max(" + (f"{c.a_forward:g} x T({f.t}) x {db} B x ({rows} x {h} + 3 x {model.intermediate_size}/{tp})"
                            + (" at down_proj's GEMM (eager, gate_up still held)" if rows == 4 else "") if not model.is_moe
                            else f"{c.a_moe:g} x T({f.t}) x {db} B x (3 x top-k({model.num_experts_per_tok}) x H({h}) + 2 x H)"
                            " CUTLASS NVFP4 experts' expanded input, expanded output, weighted product, sum and output"
                            " (run_cutlass_moe_fp4)" if f.moe_path == "nvfp4_vllm_cutlass"
                            else "0" if ws else
                            f"{c.a_moe:g} x T({f.t}) x top-k({model.num_experts_per_tok}) x {db} B x (3 x {model.moe_intermediate_size}/{tp} + {h})")
    act_formula += awq_formula + fp8_formula
    if f.reduce_bytes:
        held = model.model_type in GATE_UP_HELD_MODEL_TYPES
        act_formula += (f", {c.a_forward:g} x T({f.t}) x {db} B x (5 x {h} + {'3' if held else '1'} x "
                        f"{model.intermediate_size}/{tp}) at down_proj's out-of-place all-reduce (eager: its GEMM output"
                        " and the reduced copy beside the live set" + (", gate_up still held" if held else "") + ")")
    act_formula += (f", {a_sampler:.3g} B x S({f.s}) x V_pad({f.v_pad})"
                    + (" model runner v2: " + ("model-dtype logits + their fp32 copy" if rules.mrv2_profile_sampler == "fp32_copy"
                                               else "model-dtype logits, no top-k/top-p") if sampler == "mrv2"
                       else " FlashInfer top-k/top-p" if sampler == "flashinfer" and a_sampler != c.a_sampler
                       else " Triton top-k/top-p" if sampler == "triton" and a_sampler != c.a_sampler else "") + ")"
                    + (f" + {c.a_const / GIB:.2f} GiB" if c.a_const else "")
                    + ((f" + {ws / GIB:.2f} GiB CUTLASS NVFP4 MoE workspace kept from the forward (T({f.t}) x top-k("
                        f"{model.num_experts_per_tok}) x {db} B x (max(2 I_e, H) + I_e), WorkspaceManager)"
                        if f.moe_path == "nvfp4_vllm_cutlass" else
                        f" + {ws / GIB:.2f} GiB fused-MoE workspace kept from the forward (T({f.t}) x top-k("
                        f"{model.num_experts_per_tok}) x {db} B x (max(I_e, H) + max(2 I_e, H)), WorkspaceManager)") if ws_act else ""))
    tp_term = c.n_tp if f.tp_gt_1 and rules.nccl_charged else 0.0
    nvls_term = c.n_nvls if f.nvls and rules.nccl_charged else 0.0
    nvlink_term = c.n_nvlink_tp if f.nvlink_tp else 0.0
    nt = c.n_const + tp_term + nvls_term + nvlink_term + (c.n_integrated if f.integrated_memory else 0.0)
    nt_formula = f"{c.n_const / GIB:.2f} GiB" + (f" + {c.n_tp / GIB:.2f} GiB NCCL/all-reduce buffers (TP>1, charged in {rules.era})" if tp_term else "")
    if nvlink_term:
        nt_formula += f" + {nvlink_term / GIB:.2f} GiB (TP>1 over NVLink on Hopper or later)"
    if nvls_term:
        nt_formula += f" + {nvls_term / GIB:.2f} GiB NCCL NVLink SHARP buffers (TP>2 on an NVSwitch, charged in {rules.era})"
    if f.integrated_memory:
        nt_formula += f" + {c.n_integrated / GIB:.2f} GiB (integrated memory: CPU-side use counts as consumed)"
    if ws_nt:
        nt += ws_nt
        nt_formula += (f" + {ws / GIB:.2f} GiB fused-MoE workspace kept after the profile (T({f.t}) x top-k("
                       f"{model.num_experts_per_tok}) x {db} B x (max(I_e, H) + max(2 I_e, H)), WorkspaceManager; consumed memory in {rules.era})")
    fi_ws, fi_text = fi_allreduce_workspace_bytes(model, gpu, args, rules)
    if fi_ws:
        nt += fi_ws
        nt_formula += f" + {fi_ws / GIB:.2f} GiB {fi_text}"
    state = mrv2_sampler_state_bytes(model, args, rules)
    if state:
        nt += state
        nt_formula += (f" + {state / GIB:.2f} GiB model runner v2 penalty state (S({args.max_num_seqs}) x (4 x V({model.vocab_size})"
                       " + 4 x ceil(V/32)) B, held from load; consumed memory in " + rules.era + ")")
    gc = c  # the graph coefficients: the estimate's where the budget subtracts it, the capture's where it only captures
    if runner == "v2" and rules.cudagraph_subtracted and not rules.mrv2_cudagraph_estimate:
        # model runner v2 before 0.29 (rules row mrv2_cudagraph_estimate) subtracts no estimate and captures after the KV allocation (below), as the eras
        # that subtract none do: the capture fit of those eras (calibration.py _G_CONST), not V1-e/f's estimate's
        gc = replace(c, g_const=CAPTURE_G_CONST, g_per_layer_size=CAPTURE_G_PER)
    g = f.graphs
    on = sizes_left(args, g)  # no graphs where vLLM set cudagraph_mode NONE for want of capture sizes
    capture = gc.g_const + gc.g_per_layer_size * f.graph_layer_sizes if on else 0.0
    lora_cases = g.lora_cases if g is not None else 1
    cg_formula = (f"{gc.g_const / GIB:.2f} GiB + {gc.g_per_layer_size / 1024 ** 2:.3f} MiB x {f.n_layers} layers x {f.n_sizes} capture sizes"
                  + (f" x {lora_cases} LoRA cases (with and without active LoRA)" if lora_cases > 1 else "")
                  if on else "0 (--enforce-eager: no CUDA graphs)" if args.enforce_eager
                  else "0 (--compilation-config cudagraph_mode NONE: no CUDA graphs)" if not args.captures_cuda_graphs
                  else "0 (no CUDA-graph capture size is left, so vLLM sets cudagraph_mode NONE: no CUDA graphs)")
    if on and g is not None:
        if g.drafter_graphs:
            cg_formula += (f" + {gc.g_per_layer_size / 1024 ** 2:.3f} MiB x {g.drafter_layers} drafter layer(s) x "
                           f"{g.drafter_graphs} PIECEWISE graphs ({gc.g_per_layer_size * g.drafter_layers * g.drafter_graphs / GIB:.3f} "
                           "GiB, in the same graph pool)")
        if g.mode in ("FULL", "FULL_DECODE_ONLY"):
            cg_formula += f" (cudagraph_mode {g.mode} captures no PIECEWISE graph)"
        cg_formula += (f" [{g.mode + ', ' if g.mode else ''}largest {g.largest}"
                       + (f", rounded to multiples of {g.rounded_to}" if g.rounded_to > 1 else "")
                       + (f", sizes from {g.source.split(';')[0]}" if g.source != "default" else "") + "]")
    estimate = capture  # what the budget subtracts where the era does: the same formula, but for model runner v2
    if runner == "v2" and on and rules.cudagraph_subtracted:
        if not rules.mrv2_cudagraph_estimate:
            # the estimate is 0 (v1/worker/gpu/model_runner.py profile_cudagraph_memory returns 0, 0.26.0 and 0.28.0
            # wheels), but capture_model still captures PIECEWISE then FULL graphs into the global pool after the KV
            # allocation (v1/worker/gpu/cudagraph_utils.py CudaGraphManager.capture, 0.26.0), as the V1 runner does: the
            # capture keeps the V1 formula, beyond the budget
            estimate = 0.0
            cg_formula = ("0: model runner v2 before 0.29 estimates no CUDA-graph memory (profile_cudagraph_memory "
                          f"returns 0); its capture, after the KV allocation, ~{capture / GIB:.2f} GiB = " + cg_formula)
        else:
            # 0.29+: the real capture against a throwaway pool, every PIECEWISE graph measured, the two largest FULL
            # graphs sampled and the rest extrapolated at >= 1 MiB each (cudagraphs.mrv2_graph_estimate_bytes): the
            # measured part grows with layers x capture sizes (calibration.py MRV2_G_*, fitted on the logged estimates)
            full = g.full_count(args.max_num_seqs, args.decode_query_len) * g.lora_cases
            measured = MRV2_G_CONST + MRV2_G_PER * f.graph_layer_sizes
            # the speculator's graphs are captured and measured in full (rules row mrv2_drafter_graph_methods): its
            # PIECEWISE ones are in graph_layer_sizes, its FULL ones cost what kvplan takes each FULL graph past the
            # samples to cost, vLLM's floor per graph (CudaGraphPlan.mrv2_drafter_bytes, the share the planner shows)
            drafter_full = g.mrv2_drafter_full_bytes
            capture = estimate = mrv2_graph_estimate_bytes(measured, full) + drafter_full
            cg_formula = (f"model runner v2: the profile's capture {measured / GIB:.2f} GiB = {MRV2_G_CONST / GIB:.2f} GiB + "
                          f"{MRV2_G_PER / 1024 ** 2:.3f} MiB x {f.n_layers} layers x {f.n_sizes} capture sizes"
                          + (f" x {g.lora_cases} LoRA cases" if g.lora_cases > 1 else "")
                          + (f" + {MRV2_G_PER / 1024 ** 2:.3f} MiB x {g.drafter_layers} drafter layer(s) x "
                             f"{g.drafter_graphs} PIECEWISE graphs of the speculator" if g.drafter_graphs else "")
                          + (f" (every PIECEWISE graph and the {min(full, MRV2_FULL_SAMPLES)} largest FULL ones), + "
                             f"{max(full - MRV2_FULL_SAMPLES, 0)} further FULL decode graphs x 1 MiB (vLLM's floor per graph)"
                             if full else f" (every PIECEWISE graph; cudagraph_mode {g.mode} captures no FULL graph)")
                          + (f", + the speculator's {g.drafter_full_graphs} FULL graphs x 1 MiB, measured in full "
                             "(profile_cudagraph_memory)" if g.drafter_full_graphs else ""))
    if on and rules.cudagraph_subtracted and estimate:
        # the estimate, not the real capture, holds FlashInfer's TRTLLM-API workspace (rules rows
        # mrv2_estimate_trtllm_workspace, v1_estimate_trtllm_workspace)
        trtllm_ws, trtllm_text = trtllm_workspace_in_estimate_bytes(model, gpu, args, rules, runner, g)
        if trtllm_ws and runner == "v1" and gpu.cc[0] not in rules.trtllm_attention_cc_majors:
            # the metadata builder's buffer (rules row v1_estimate_fi_wrapper_workspace_cc_majors) sits in the FULL
            # mode's first sample, and vLLM's estimate takes the larger of the two modes' first captures
            # (profile_cudagraph_memory: max(shared_memory_estimate.values()) + the per-graph rest): at least the
            # buffer, and the graphs' own estimate where that is larger
            cg_formula = f"max({cg_formula}; {trtllm_text})"
            estimate = max(estimate, trtllm_ws)
            if any(l.recurrent for l in model.layers):
                # the profile's builders go with its minimal KV cache (_cleanup_profiling_kv_cache) and the real
                # ones make their buffer anew; kernel_warmup's "Warming up FlashInfer attention" makes it before
                # capture_model only where every attention group is FlashInfer (model_executor/warmup/
                # kernel_warmup.py, 0.20.0-0.24.0), which a hybrid model's recurrent layers are not, so there the
                # real capture's first FULL warmup makes it and "Graph capturing finished" counts it
                capture += trtllm_ws
                cg_formula += ("; the capture holds it too: the recurrent layers' own backend keeps vLLM's FlashInfer "
                               "warmup from making it before capture_model")
        elif trtllm_ws:
            estimate += trtllm_ws
            cg_formula += f", + {trtllm_text}"
    if (on and g is not None and rules.cudagraph_rocm_cost == "per_graph"
            and (gpu.vendor or "").upper() == "AMD"):
        # ROCm from 0.26 (rules row cudagraph_rocm_cost; the releases that profile the graphs on ROCm too): a fixed cost
        # per hipGraph, not CUDA's shared pool (calibration.py ROCM_G_PER_GRAPH); the estimate, where the release
        # subtracts one, is a capture of the same graphs (model runner v2 0.29+) or the second capture of each mode
        # extrapolated (the V1 runner), each costing what every graph does
        units = rocm_graph_units(g, f.n_layers, args.max_num_seqs, args.decode_query_len)
        capture = gc.g_const + ROCM_G_PER_GRAPH * units
        rocm_formula = (f"{gc.g_const / GIB:.2f} GiB + {ROCM_G_PER_GRAPH / 1024 ** 2:.2f} MiB x {units:,} hipGraphs (ROCm: "
                        f"{f.n_layers} layers + 1 pieces per PIECEWISE size, 1 per FULL size) [{g.mode or 'PIECEWISE'}, "
                        f"largest {g.largest}]; the per-graph rate fitted on 3 ROCm startups of 0.27-0.30 "
                        "(calibration.py ROCM_G_PER_GRAPH)")
        if runner == "v2" and rules.cudagraph_subtracted and not rules.mrv2_cudagraph_estimate:
            estimate = 0.0
            cg_formula = ("0: model runner v2 before 0.29 estimates no CUDA-graph memory (profile_cudagraph_memory returns "
                          f"0); its capture, after the KV allocation, ~{capture / GIB:.2f} GiB = " + rocm_formula)
        else:
            estimate = capture
            cg_formula = rocm_formula
    return {
        # the peak of a rank that runs no sampler (a pipeline stage before the last: profile_run samples on the last rank)
        "activation_no_sampler": (int(forward + c.a_const + ws_act), "", c.source),
        "activation_peak": (int(act), act_formula, c.source),
        "non_torch": (int(nt), nt_formula, c.source),
        # a rank before the last pipeline stage builds no sampler, so it holds no sampler state
        "non_torch_no_sampler": (int(nt - state), "", c.source),
        # the estimate the budget subtracts (where the era subtracts one) and the graphs' real capture
        "cudagraph": (int(estimate), cg_formula, c.source),
        "cudagraph_capture": (int(capture), cg_formula, c.source),
        # the fused-MoE workspace filed under non-torch (0.27+) but allocated during the profile's forward: part of the
        # allocator's peak a cold start's Inductor copies are measured against (cold_start_pool_loss_bytes)
        "moe_workspace_in_non_torch": (int(ws_nt), "", c.source),
    }
