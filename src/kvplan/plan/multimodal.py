"""The multimodal encoder pass of vLLM's profile run (docs/vllm-memory-model.md, the activation peak).

Which tower a model has and what its largest item costs (_MM_TOWERS, _mm_tower, the LLaVA-Next and Pixtral
items, Whisper's audio item), --limit-mm-per-prompt read per modality, the items and tokens of a prefix-LM's
largest item, the bytes the dummy multimodal batch adds to the profile (_multimodal_profile_bytes, mllama on V0),
M-RoPE and deepstack buffers, and --skip-mm-profiling. Imports kvplan.plan.args only.
"""

from __future__ import annotations

from kvplan.calibration import GIB
from kvplan.plan.args import EngineArgs, _mm_limits_object, cdiv
from kvplan.resolve import DTYPE_BYTES, ModelSpec
from kvplan.versions import VersionRules
from kvplan.weights import vision_mlp_gated


# The vision towers whose profile-run memory kvplan computes, with the processor defaults vLLM profiles them at (the
# largest item of the modality with the most tokens): Qwen2/2.5-VL preprocessor max_pixels 12,845,056 and Qwen3-VL /
# Qwen3.5 / Qwen3.6 size.longest_edge 16,777,216 pixels, i.e. 16,384 tokens after the 2 x 2 merge; CLIP (LLaVA) one
# tile of (image_size / patch)^2 tokens plus the class token; Gemma 3's SigLIP one 896 x 896 image pooled to
# mm_tokens_per_image tokens (gemma3_mm.py: pan-and-scan off by default). rotary: the tower rotates q and k (two more
# copies of both).
_MM_TOWERS = {
    "qwen3": {"max_pixels": 16_777_216, "rotary": True},
    "qwen2_5": {"max_pixels": 12_845_056, "rotary": True},
    "qwen2": {"max_pixels": 12_845_056, "rotary": True},
    "clip": {"max_pixels": 0, "rotary": False},
    "siglip": {"max_pixels": 0, "rotary": False},  # Gemma 3: one 896 x 896 image = mm_tokens_per_image tokens
    # LLaVA-NeXT: CLIP over anyres tiles (_llava_next_item); Pixtral (Pixtral-12B, Mistral-Small-3.1/3.2): one image
    # of the tower's image_size square, rotary (2-D RoPE on q and k, in float32), gated MLP (_pixtral_item)
    "llava_next": {"max_pixels": 0, "rotary": False},
    "pixtral": {"max_pixels": 0, "rotary": True},
    # Whisper's audio encoder (_whisper_item): one item is 30 s of audio, max_source_positions encoder positions
    "whisper": {"max_pixels": 0, "rotary": False},
}


def _mm_tower(model: ModelSpec) -> str | None:
    if model.model_type == "whisper":
        return "whisper"
    v = model.vision_config or {}
    kind = str(v.get("model_type") or "")
    if kind.startswith(("qwen3_vl", "qwen3_5", "qwen3_6")):
        return "qwen3"
    if kind.startswith("qwen2_5_vl") or model.model_type.startswith("qwen2_5_vl"):
        return "qwen2_5"
    if kind.startswith("qwen2_vl") or model.model_type.startswith("qwen2_vl"):
        return "qwen2"
    if kind == "clip_vision_model" and model.model_type.startswith("llava") and not model.model_type.startswith(("llava_next", "llava_onevision")):
        return "clip"
    if kind == "siglip_vision_model" and str((model.raw_config or {}).get("model_type") or "").startswith("gemma3"):
        return "siglip"
    if kind == "clip_vision_model" and _hf_model_type(model) == "llava_next" and (model.raw_config or {}).get("image_grid_pinpoints"):
        return "llava_next"
    if kind == "pixtral":
        return "pixtral"
    return None


def _llava_next_item(model: ModelSpec) -> tuple[int, int, str]:
    """LLaVA-NeXT's profiled image: (tokens, CLIP tiles, the size), read in the 0.10.2 and 0.19.0 wheels. The dummy
    image is the grid pinpoint with the most features (models/llava_next.py
    LlavaNextProcessingInfo.get_image_size_with_most_features, which tries every image_grid_pinpoints entry); an image
    of exactly a pinpoint's size is tiled to that pinpoint (get_anyres_image_grid_shape), so the HF processor hands the
    tower 1 + (height / image_size) x (width / image_size) tiles of image_size square. Its tokens
    (get_num_image_tokens): the base tile's patches (the class token dropped by the "default" feature-select
    strategy), plus the unpadded grid features (the pinpoint's aspect equals the grid's, so nothing is cut) and one
    newline per grid row (_get_num_unpadded_features). llava-v1.6-mistral-7b-hf: 672 x 672, 5 tiles, 576 + 48 x 48 +
    48 = 2,928 tokens."""
    raw = model.raw_config or {}
    v = model.vision_config or {}
    size, patch = int(v.get("image_size") or 336), int(v.get("patch_size") or 14)
    side = size // patch
    base = side * side + (1 if raw.get("vision_feature_select_strategy") == "full" else 0)
    best = (0, 1, "")
    for height, width in raw.get("image_grid_pinpoints") or []:
        rows, cols = int(height) // size, int(width) // size
        tokens = base + (side * rows) * (side * cols) + side * rows
        if tokens > best[0]:
            best = (tokens, 1 + rows * cols, f"{width} x {height}")
    return best


def _pixtral_item(model: ModelSpec) -> tuple[int, int]:
    """Pixtral's profiled image: (tokens, tower patches), read in the 0.10.2 and 0.19.0 wheels. The dummy image is the
    largest the processor takes, max_image_size square (models/pixtral.py
    PixtralProcessingInfo.get_image_size_with_most_features; the mistral_common encoder's max_image_size, the
    vision_config image_size of the HF config, 1,540 for Mistral-Small-3.1 and 1,024 for Pixtral-12B; mistral3.py
    Mistral3ProcessingInfo the same): (image_size / patch)^2 tower patches, merged spatial_merge_size x
    spatial_merge_size into one image feature each (PatchMerger; 1 where the config has none). The prompt also holds
    an [IMG_BREAK] per row ([IMG_END] last), but the processor marks only the image tokens as embeddings
    (PromptUpdateDetails.select_token_id), and the encoder budget counts embeddings (multimodal/encoder_budget.py
    get_mm_max_toks_per_item: get_num_embeds; 0.10.2 multimodal/profiling.py _get_mm_max_tokens, mm_embeddings_only):
    Mistral-Small-3.1 55 x 55 = 3,025 tokens, which an 8,192-token budget takes twice (its 0.19.0 log: 'profiled with 2
    image items')."""
    v = model.vision_config or {}
    merge = int((model.raw_config or {}).get("spatial_merge_size") or v.get("spatial_merge_size") or 1)
    side = int(v.get("image_size") or 1024) // int(v.get("patch_size") or 16)
    return (side // merge) ** 2, side * side


def _whisper_item(model: ModelSpec) -> tuple[int, int, int, int]:
    """Whisper's profiled audio item: (encoder positions, mel values per position, d_model, encoder_ffn_dim), read in
    the 0.11.0, 0.13.0 and 0.34.0 wheels. vLLM profiles Whisper like a multimodal model (WhisperForConditionalGeneration
    is SupportsMultiModal; v1/worker/gpu_model_runner.py profile_run up to 0.32, v1/worker/gpu/mm/encoder_runner.py
    profile_encoder_cache from 0.33): the dummy audio is the feature extractor's chunk_length x sampling_rate samples
    (models/whisper.py WhisperDummyInputsBuilder.get_dummy_mm_data: 30 s), whose placeholder is max_source_positions
    tokens (WhisperProcessingInfo.get_num_audio_tokens, 1,500). WhisperEncoder.forward runs conv1 over num_mel_bins
    features of twice that many frames (3,000) and conv2 with stride 2 down to max_source_positions positions, then
    encoder_layers layers of full attention and an fc1 / GELU / fc2 MLP of encoder_ffn_dim, sharded like the vision
    towers (QKVParallelLinear, ColumnParallelLinear fc1, RowParallelLinear out_proj and fc2); its output, d_model wide,
    is what the encoder cache keeps."""
    cfg = model.raw_config or {}
    positions = int(cfg["max_source_positions"])
    return positions, 2 * int(cfg["num_mel_bins"]), int(cfg["d_model"]), int(cfg["encoder_ffn_dim"])


def mrope_cache_factor(model: ModelSpec, rules: VersionRules) -> int:
    """How many times max_position_embeddings the multimodal rotary cache holds: 4 from 0.7.2 (rule
    mrope_cache_factor), but 1 for the Qwen3-VL and Qwen3.5/3.6 text models from 0.32, whose decoder layers pass a
    positions factor of 1 unless video pruning is on (rule qwen3_mrope_positions_one; kvplan takes no
    --video-pruning-rate)."""
    kind = str(model.text_config.get("model_type") or model.model_type or "")
    if rules.qwen3_mrope_positions_one and kind.startswith(("qwen3_vl", "qwen3_5")):
        return 1
    return rules.mrope_cache_factor


def deepstack_buffer_bytes(model: ModelSpec, args: EngineArgs, rules: VersionRules, text_only: bool) -> int:
    """Qwen3-VL's deepstack input buffers: one max_num_batched_tokens x text hidden_size tensor in the model dtype per
    deepstack level, zeros allocated while the model is built (so inside vLLM's "Model loading took"), whole on
    every TP rank; none when the vision tower is not built or the config lists no deepstack levels (Qwen3.5/3.6).
    Read in the 0.11.0, 0.12.0, 0.17.0-0.20.0 and 0.33.0 wheels: models/qwen3_vl.py
    Qwen3VLForConditionalGeneration.__init__ ("register buffer for deepstack"), which qwen3_vl_moe.py shares.
    Qwen3-VL-30B-A3B: 3 x 2,048 x 2,048 x 2 B = 24 MiB at the A100 / RTX 3090 default token budget, 96 MiB at
    the H100's 8,192."""
    levels = len((model.vision_config or {}).get("deepstack_visual_indexes") or [])
    if not levels or text_only or not model.is_multimodal or not rules.qwen3_vl_deepstack_buffers:
        return 0
    return levels * args.max_num_batched_tokens * model.hidden_size * DTYPE_BYTES.get(args.dtype, 2)


# Multimodal prefix-LM models (bidirectional attention over an image's or video's tokens), for which vLLM forces
# --disable-chunked-mm-input on CUDA (platforms/cuda.py check_and_update_config, read in 0.22.0 and 0.33.0): read in
# the 0.22.0, 0.26.0, 0.27.0 and 0.33.0 wheels, transformers_utils/model_arch_config_convertor.py is_mm_prefix_lm.
# Gemma 4 (Gemma4ModelArchConfigConvertor, model_type gemma4 / gemma4_text, from 0.33 also gemma4_unified and
# diffusion_gemma): text_config.use_bidirectional_attention == "vision"; any other model: the config's own
# is_mm_prefix_lm, else this list (ModelArchConfigConvertorBase; 0.22.0-0.27.0 also list "umm", 0.33.0 does not).
_MM_PREFIX_LM_TYPES = ("bagel", "gemma3", "molmo2", "moondream3", "paligemma")
_GEMMA4_ARCH_TYPES = ("gemma4", "gemma4_text", "gemma4_unified", "gemma4_unified_text", "diffusion_gemma",
                      "diffusion_gemma_text")


def _has_encoder_pass(model: ModelSpec) -> bool:
    """Whether vLLM's profile run has an encoder pass for this model: a multimodal model's, or Whisper's audio encoder
    (an encoder-decoder model, no multimodal model to kvplan's other terms, which vLLM profiles like one: its processor
    takes audio, WhisperForConditionalGeneration is SupportsMultiModal in models/whisper.py)."""
    return model.is_multimodal or _mm_tower(model) == "whisper"


def _profiled_modalities(model: ModelSpec) -> tuple[str, ...]:
    """The modalities whose items the profile run's encoder pass encodes: Whisper's audio, a vision model's images
    and video."""
    return ("audio",) if _mm_tower(model) == "whisper" else ("image", "video")


# The modalities each multimodal family's processor supports (its ProcessingInfo.get_supported_mm_limits, read in the
# 0.33.0 wheel's model_executor/models: gemma3_mm.py, llava.py (LLaVA-NeXT through BaseLlavaProcessingInfo),
# mllama4.py, mistral3.py, pixtral.py {"image"}; qwen2_vl.py (Qwen2.5-VL, Qwen3-VL and Qwen3.5/3.6 inherit it),
# llava_onevision.py {"image", "video"}; gemma4_mm.py image and video, and audio where the config has an audio tower).
# A text-only deployment sets 0 for each of them; a family not listed is taken to have image and video.
_SUPPORTED_MODALITIES: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("gemma3", "llava", "llava_next", "llama4", "mistral3", "pixtral", "mllama"), ("image",)),
    **dict.fromkeys(("qwen2_vl", "qwen2_5_vl", "qwen3_vl", "qwen3_vl_moe", "qwen3_5", "qwen3_5_moe", "llava_onevision"),
                    ("image", "video")),
}


def supported_modalities(model: ModelSpec) -> tuple[str, ...]:
    """The modalities vLLM's processor takes for this multimodal model (_SUPPORTED_MODALITIES)."""
    kind = _hf_model_type(model)
    if kind in _GEMMA4_ARCH_TYPES:
        return ("image", "video") + (("audio",) if model.raw_config.get("audio_config") else ())
    return _SUPPORTED_MODALITIES.get(kind, ("image", "video"))


def _mm_limits_all_off(model: ModelSpec, args: EngineArgs) -> bool:
    """vLLM's text-only deployment of a multimodal model: --language-model-only, or a 0 limit for every modality the
    processor supports (config/model.py ModelConfig._supports_multimodal_inputs, 0.27.0-0.33.0; a modality not given
    is 999; supported_modalities). --enable-mm-embeds, which keeps it multimodal, is not modelled."""
    return _modalities_off(args, supported_modalities(model))


def _modalities_off(args: EngineArgs, modalities: tuple[str, ...]) -> bool:
    """--language-model-only, or --limit-mm-per-prompt 0 for each of `modalities` (one not given is 999)."""
    limits = args.mm_limits or {}
    return args.language_model_only or (bool(limits) and all(limits.get(m, 999) == 0 for m in modalities))


def _is_mm_prefix_lm(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> bool:
    """vLLM's ModelConfig.is_mm_prefix_lm for this deployment (see _MM_PREFIX_LM_TYPES). From 0.27.0 it is False when
    multimodal inputs are configuration-disabled (ModelConfig._supports_multimodal_for_mm_prefix, "Disabled mm_prefix
    attention mode because multimodal inputs are configuration-disabled"; absent from 0.26.0); up to 0.26 such a
    deployment is still a prefix-LM to vLLM."""
    if not model.is_multimodal:
        return False
    if rules.mm_prefix_lm_text_only_off and _mm_limits_all_off(model, args):
        return False
    kind = _hf_model_type(model)
    if kind in _GEMMA4_ARCH_TYPES:
        return model.text_config.get("use_bidirectional_attention") == "vision"
    if "is_mm_prefix_lm" in model.raw_config:
        return bool(model.raw_config["is_mm_prefix_lm"])
    return kind in _MM_PREFIX_LM_TYPES


def _hf_model_type(model: ModelSpec) -> str:
    """The config's top-level model_type (vLLM's hf_config.model_type: "gemma4", where ModelSpec.model_type is the
    text model's "gemma4_text")."""
    return str(model.raw_config.get("model_type") or model.model_type or "")


def _mm_items_tokens(model: ModelSpec, args: EngineArgs) -> dict[str, int]:
    """The processor's stated per-item token maxima by modality (ProcessingInfo.get_mm_max_tokens_per_item), {} where
    vLLM's answer is None (it then profiles dummy inputs instead). Of the prefix-LM models only Gemma 4, Bagel and
    Moondream 3 state them (read in 0.22.0 and 0.33.0); kvplan computes Gemma 4's (models/gemma4_mm.py
    Gemma4ProcessingInfo.get_mm_max_tokens_per_item): an image is vision_config.default_output_length soft tokens (or
    --mm-processor-kwargs max_soft_tokens, not modelled); a video min(32, the --limit-mm-per-prompt video
    num_frames) frames x (70 soft tokens + boi + eoi + 6 timestamp tokens), 2,496 at 32 frames, whatever the video
    count. An audio item is the processor's audio_seq_length, which no config.json holds; the Gemma 4 configs kvplan
    ships have no audio tower. Bagel's (vit_max_num_patch_per_side squared) and Moondream 3's are not computed."""
    if not model.is_multimodal or _hf_model_type(model) not in _GEMMA4_ARCH_TYPES:
        return {}
    frames = 32
    video = (_mm_limits_object(args.limit_mm_per_prompt) or {}).get("video")
    if isinstance(video, dict) and isinstance(video.get("num_frames"), int) and video["num_frames"] > 0:
        frames = min(frames, video["num_frames"])
    items = {"video": frames * (70 + 2 + 6)}
    image = int((model.vision_config or {}).get("default_output_length") or 0)
    if image:
        items["image"] = image
    return items


def _prefix_lm_item_tokens(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> int:
    """The largest multimodal item, in tokens, that vLLM makes room for in max_num_batched_tokens when it chose that
    number itself, for a multimodal prefix-LM model whose processor states its per-item maxima (read in the 0.22.0,
    0.25.1 and 0.33.0 wheels, absent from 0.21.0: engine/arg_utils.py _set_default_max_num_seqs_and_batched_tokens_args
    raises the default to EngineArgs._get_min_mm_batched_tokens when is_multimodal_model and is_mm_prefix_lm, vLLM PR
    #43051). That function asks for one item of every modality the model supports, not of those
    --limit-mm-per-prompt allows, so a 0 video limit still raises to a video item; only a text-only deployment from
    0.27.0 (_is_mm_prefix_lm) escapes it. Gemma 3's processor states no maxima, so vLLM keeps its default there.
    0 when vLLM raises nothing."""
    if not rules.mm_prefix_lm_batched_tokens_raise or not _is_mm_prefix_lm(model, args, rules):
        return 0
    return max(_mm_items_tokens(model, args).values(), default=0)


def _largest_active_mm_item(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> tuple[int, str] | None:
    """The largest item of the modalities a request may carry, when vLLM will not chunk it (a prefix-LM on CUDA:
    platforms/cuda.py forces --disable-chunked-mm-input), and so refuses a max_num_batched_tokens below it:
    multimodal/encoder_budget.py MultiModalBudget counts the modalities whose limit is above 0 (none with
    --language-model-only: config/multimodal.py get_limit_per_prompt), and v1/core/encoder_cache_manager.py
    compute_mm_encoder_budget raises "Chunked MM input disabled but max_tokens_per_mm_item (...) is larger than
    max_num_batched_tokens (...)" (read in 0.22.0 and 0.33.0; vllm-project/recipes issue #441 shows it before 0.22,
    which kvplan does not apply: those releases were not read). None when nothing is refused."""
    if not rules.mm_prefix_lm_item_refusal or not _is_mm_prefix_lm(model, args, rules) or args.language_model_only:
        return None
    limits = args.mm_limits or {}
    active = {m: n for m, n in _mm_items_tokens(model, args).items() if limits.get(m, 999) > 0}
    if not active:
        return None
    modality = max(active, key=active.__getitem__)
    return active[modality], modality


# the modalities vLLM's processors take (multimodal/processing/context.py names "image", "video" and "audio"; the
# per-modality dummy options of config/multimodal.py MultiModalConfig._validate_limit_per_prompt, 0.33.0)
_MODALITIES = ("image", "video", "audio")


def _mm_limit_warnings(model: ModelSpec, args: EngineArgs) -> list[str]:
    """What vLLM silently ignores in --limit-mm-per-prompt, said: every limit for a model that takes no multimodal
    input (config/model.py ModelConfig.__post_init__ builds the multimodal config, and reads the limits, only where the
    architecture supports multimodal input; 0.33.0), and a key that is no modality (MultiModalConfig takes any key;
    InputProcessingContext.allowed_mm_limits reads only the processor's own modalities), such as a typo."""
    limits = args.mm_limits
    if not limits:
        return []
    if not _has_encoder_pass(model):
        return [f"--limit-mm-per-prompt: {model.id} takes no image, video or audio input, so vLLM ignores the limits "
                "(drop the flag)"]
    unknown = [k for k in limits if k not in _MODALITIES]
    if not unknown:
        return []
    return [f"--limit-mm-per-prompt: {', '.join(repr(k) for k in unknown)} {'is no modality' if len(unknown) == 1 else 'are no modalities'} "
            f"vLLM reads (image, video, audio), so vLLM ignores {'it' if len(unknown) == 1 else 'them'} and limits "
            "nothing there (check the spelling)"]


def _text_only(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> bool:
    """vLLM's text-only mode: every modality's limit is 0 (or --language-model-only), so the vision tower is not built
    or loaded. Qwen2.5-VL and Qwen3-VL skip it from 0.10.1 (multimodal/registry.py "running in text-only mode", their
    model classes), every tower marked with _mark_tower_model from 0.15 (model_executor/models/interfaces.py): rules row
    mm_text_only_towers."""
    if not model.is_multimodal:
        return False
    if not _modalities_off(args, supported_modalities(model)):
        return False
    return rules.mm_text_only_towers == "all" or (rules.mm_text_only_towers == "qwen2_5_qwen3"
                                                  and _mm_tower(model) in ("qwen2_5", "qwen3"))


def _multimodal_profile_bytes(model: ModelSpec, args: EngineArgs, rules: VersionRules, text_peak: int) -> tuple[int, str] | None:
    """What the profile run's multimodal pass adds to the torch peak (read in the 0.10-0.33 wheels:
    v1/worker/gpu_model_runner.py profile_run, multimodal/encoder_budget.py, v1/core/encoder_cache_manager.py).

    vLLM runs the encoder once on the largest items of the modality with the most tokens per item (T): budget
    max(max_num_batched_tokens, T), items max(1, min(budget // T, max_num_seqs x (max_model_len // T))). Its outputs
    stay cached, and up to 0.32 the V1 runner also keeps the pixel tensors, while the text dummy run follows, so the
    peak is max(encoder forward, text peak + cached outputs + pixels). The encoder forward per patch: the pixels
    (float32, in the model's dtype from 0.9.0; up to 0.8 the Qwen2/2.5-VL models add a copy in the model's dtype),
    then in bf16 the position embeddings, and the larger of one attention block (residual, norm, q/k/v, rotated q/k copies, context)
    and one MLP block, plus Qwen3-VL's deepstack features. 0.11-0.12 profile Qwen3-VL with a video whose output is
    padded to 12.5 x its 12,288 tokens (qwen3_vl.py get_max_video_tokens). Returns None for a text model, a note with
    0 bytes for a vision tower kvplan does not compute. Whisper's audio encoder (_whisper_item) is profiled the same
    way, its decoder's dummy run taking token ids: an encoder-decoder model is no multimodal model to kvplan's other
    terms."""
    tower = _mm_tower(model)
    if not _has_encoder_pass(model):
        return None
    whisper = tower == "whisper"
    v0 = rules.engine != "v1"
    if v0 and _hf_model_type(model) == "mllama" and isinstance((model.raw_config or {}).get("vision_config"), dict):
        return _mllama_v0_profile_bytes(model, args, rules, text_peak)
    if v0 and tower not in ("clip", "siglip"):
        return 0, ("multimodal: V0's profile run encodes its dummy images inside the model forward (max_num_seqs cut to "
                   "max_num_batched_tokens // the largest item's tokens); that pass is not computed for this tower, so the "
                   "peak may be higher")
    if tower is None:
        return 0, (f"multimodal: the profile run's encoder pass of this vision tower "
                   f"({(model.vision_config or {}).get('model_type') or model.model_type}) is not modelled; the peak may be higher")
    if not whisper and model.raw_config and not isinstance(model.raw_config.get("vision_config"), dict):
        # the config as given has no vision_config: the class defaults transformers fills in are not the checkpoint's
        return 0, "multimodal: the config gives no vision_config, so the encoder's profile pass is not computed"
    v = model.vision_config or {}
    facts = _MM_TOWERS[tower]
    tp = args.tensor_parallel_size
    h = int(v.get("hidden_size") or v.get("embed_dim") or 0)
    inter = int(v.get("intermediate_size") or (h * int(v.get("mlp_ratio") or 4)))
    patch = int(v.get("patch_size") or 14)
    if not h and not whisper:
        return 0, "multimodal: the vision config gives no hidden size; the encoder's profile pass is not modelled"
    if whisper:
        per_item_tokens, pixels_per_patch, h, inter = _whisper_item(model)
        per_item_patches, width = per_item_tokens, h
    elif tower == "clip":
        per_item_tokens = (int(v.get("image_size") or 336) // patch) ** 2
        per_item_patches, pixels_per_patch = per_item_tokens + 1, 3 * patch * patch
        width = model.hidden_size
    elif tower == "llava_next":  # the CLIP tower over 1 + grid tiles of image_size square (class token included)
        per_item_tokens, tiles, _ = _llava_next_item(model)
        size = int(v.get("image_size") or 336)
        per_item_patches = tiles * ((size // patch) ** 2 + 1)
        # the tiles' pixels (3 x image_size^2 each) spread over the tower's positions (the class token has none)
        pixels_per_patch, width = 3 * size * size * tiles / per_item_patches, model.hidden_size
    elif tower == "pixtral":
        per_item_tokens, per_item_patches = _pixtral_item(model)
        pixels_per_patch, width = 3 * patch * patch, model.hidden_size
    elif tower == "siglip":  # Gemma 3 pools the tower's (896 / 14)^2 patches to mm_tokens_per_image (pan-and-scan off)
        per_item_patches = (int(v.get("image_size") or 896) // patch) ** 2
        per_item_tokens = int((model.raw_config or {}).get("mm_tokens_per_image") or 256)
        pixels_per_patch, width = 3 * patch * patch, model.hidden_size
    else:
        merge = int(v.get("spatial_merge_size") or 2)
        temporal = int(v.get("temporal_patch_size") or 2)
        per_item_patches = facts["max_pixels"] // (patch * patch)
        per_item_tokens = per_item_patches // (merge * merge)
        pixels_per_patch = 3 * temporal * patch * patch
        deepstack = len(v.get("deepstack_visual_indexes") or [])
        width = int(v.get("out_hidden_size") or model.hidden_size) * (1 + deepstack)
    limits = {"image": 0, "video": 0} if args.language_model_only else (args.mm_limits or {})
    if whisper:  # the audio item stands where the image does
        limits = {"image": 0 if args.language_model_only else limits.get("audio", 1), "video": 0}
    image_ok = limits.get("image", 1) > 0
    video_ok = tower not in ("clip", "siglip", "llava_next", "pixtral", "whisper") and limits.get("video", 1) > 0
    padded_tokens = 0
    if tower == "qwen3" and v.get("deepstack_visual_indexes") and rules.mm_video_padding and video_ok:
        per_item_tokens = 12_288  # video_preprocessor longest_edge 25,165,824 / (16^2 x 2^2 x 2 frames per patch)
        per_item_patches = per_item_tokens * 4
        padded_tokens = int(12.5 * per_item_tokens)
    elif not image_ok:
        if not video_ok:
            return 0, "multimodal: no modality is allowed (--limit-mm-per-prompt 0 or --language-model-only), so the profile run encodes none"
        if tower != "qwen3":
            return 0, "multimodal: only video is allowed; its profile pass is not modelled for this tower"
        per_item_tokens = 12_288
        per_item_patches = per_item_tokens * 4
    limit = limits.get("video" if padded_tokens or not image_ok else "image")
    if v0:
        # V0 (worker/model_runner.py profile_run): max_num_seqs = max(1, min(max_num_seqs, max_num_batched_tokens //
        # max_mm_tokens)) dummy sequences, each with the per-prompt limit of images (default 1), all encoded in the forward
        per_prompt = 1 if limit is None else max(1, limit)
        items = max(1, min(args.max_num_seqs, args.max_num_batched_tokens // (per_item_tokens * per_prompt))) * per_prompt
    else:
        # rules.mm_profile_items: up to 0.9.x the encoder budget's items are rounded up and neither floored at 1 nor
        # capped by max_model_len; from 0.10.1 a prompt holds at most max_model_len // T items (at least 1)
        budget = max(args.max_num_batched_tokens, per_item_tokens)
        if whisper and rules.cross_attention_tokens == "encoder_len":
            # up to 0.12 VllmConfig.__post_init__ sets max_num_encoder_input_tokens, the encoder compute budget, to the
            # encoder length (config/__init__.py 0.10.2 and 0.11.0, config/vllm.py 0.11.1 and 0.12.0: rules row
            # cross_attention_tokens), so the budget holds one item; from 0.13 it is max_num_batched_tokens
            budget = per_item_tokens
        if rules.mm_profile_items == "per_prompt":
            per_prompt = max(1, min(999 if limit is None else limit, args.max_model_len // per_item_tokens))
        else:
            per_prompt = 999 if limit is None else limit
        by_budget = cdiv(budget, per_item_tokens) if rules.mm_profile_items == "ceil" else budget // per_item_tokens
        items = max(1, min(by_budget, args.max_num_seqs * per_prompt))
    n = items * per_item_patches
    if tower == "pixtral":
        # the Mistral-format checkpoint vLLM loads for mistralai's Pixtral models (PixtralForConditionalGeneration:
        # "Resolved architecture" in the Mistral-Small-3.1 0.19.0 log) builds the tower of plain nn.Linear layers
        # (pixtral.py VisionTransformer, 0.10.2 and 0.19.0), whole on every rank; the HF-format PixtralHFVisionModel
        # (mistral3.py / llava.py) shards them, so at TP > 1 this is its upper bound
        tp = 1
    attention = 3 * h + (8 if facts["rotary"] else 4) * h / tp + (h if tp > 1 else 0)
    # intermediate tensors alive in the MLP: fc1 and its activation, or gate, up and their product for a gated one
    mlp = 3 * h + (3 if not whisper and vision_mlp_gated(model) else 2) * inter / tp
    deep = (len(v.get("deepstack_visual_indexes") or []) * int(v.get("out_hidden_size") or 0) / 4) if tower == "qwen3" else 0
    # the HF image processors hand vLLM float32 pixels (4 B a value), cast to the model's dtype on their way to the GPU
    # from 0.9.0 (rules.mm_pixels_model_dtype); they stay alive through the encoder. Up to 0.8.x the Qwen2-VL and
    # Qwen2.5-VL models also hold a copy in the tower's dtype for the whole tower (_process_image_input's
    # pixel_values.type(self.visual.dtype), qwen2_vl.py and qwen2_5_vl.py in the 0.8.5 wheel; a no-op on the already
    # cast pixels of 0.9.0.1, gone from 0.9.2, where the tower's own x.to(dtype) copy lives only until the patch
    # embedding)
    pixel_bytes = DTYPE_BYTES.get(args.dtype, 2) if rules.mm_pixels_model_dtype else 4
    pixel_copy = DTYPE_BYTES.get(args.dtype, 2) if tower in ("qwen2", "qwen2_5") and not rules.mm_pixels_model_dtype else 0
    encoder = (pixel_bytes + pixel_copy) * n * pixels_per_patch + 2 * n * (h + max(attention, mlp) + deep)
    mask = 0
    if tower == "pixtral" and rules.pixtral_sdpa_mask and not rules.pixtral_packed_attention:
        # without xformers the tower's SDPA takes one (patches, patches) block-diagonal mask over all the items'
        # patches, in the activation dtype, alive through every layer (rules.pixtral_sdpa_mask)
        mask = DTYPE_BYTES.get(args.dtype, 2) * n * n
        encoder += mask
    cached = 2 * items * (per_item_tokens + padded_tokens) * width
    pixels = pixel_bytes * n * pixels_per_patch if rules.mm_pixels_held and not v0 else 0
    extra = max(0, int(max(encoder, text_peak + cached + pixels) - text_peak))
    what = (f"{items} audio item(s) of {per_item_tokens:,} encoder positions each (30 s: {2 * per_item_tokens:,} mel frames)"
            if whisper else f"{items} item(s) of {per_item_tokens:,} tokens each ({n:,} patches in all)")
    caution = ""
    if tower == "pixtral":
        caution = (f"; the tower attends through a {mask / GIB:.2f} GiB patches x patches mask (PyTorch's SDPA: "
                   "xformers is no longer a vLLM dependency from 0.12), inside the encoder peak" if mask else
                   "; the tower attends over its packed patches by sequence lengths (MMEncoderAttention, cu_seqlens), "
                   "with no mask" if rules.pixtral_packed_attention else
                   "; xformers (a vLLM dependency up to 0.11) attends without a patches x patches mask")
    if tower in ("qwen2", "qwen2_5") and video_ok and image_ok and rules.qwen2_vl_video_profile and args.max_model_len > 16384:
        # qwen2_vl.py get_mm_max_tokens_per_item (rules row qwen2_vl_video_profile): a video of up to 14 frames sized from max_model_len outnumbers the
        # image (114,688 tokens at 128K); its frames' size comes from the HF video processor, so it is not computed
        video_tokens = min(7, args.max_model_len // per_item_tokens) * per_item_tokens  # 14 frames = 7 temporal patches
        caution = (f"; vLLM profiles a video of up to {video_tokens:,} tokens instead, whose frame size comes from the video "
                   "processor and is not computed: the peak may be much higher (--limit-mm-per-prompt "
                   "'{\"video\": 0}' makes the image the profiled item)")
    return extra, (f"multimodal: the profile run encodes {what}: encoder peak {encoder / GIB:.2f} GiB, its outputs "
                   f"kept for the text pass {cached / GIB:.2f} GiB{' (padded)' if padded_tokens else ''}, {'mel features' if whisper else 'pixels'} "
                   f"{pixels / GIB:.2f} GiB; the activation peak is {extra / GIB:.2f} GiB above the text-only one{caution}")


def _mllama_v0_profile_bytes(model: ModelSpec, args: EngineArgs, rules: VersionRules, text_peak: int) -> tuple[int, str]:
    """Llama-3.2-Vision (mllama) on the V0 engine: what its profile run's vision pass adds to the torch peak, computed
    from the source (read in the 0.6.3, 0.6.6.post1, 0.7.0-0.7.3, 0.8.5, 0.9.0.1, 0.9.2 and 0.10.0 wheels).

    worker/enc_dec_model_runner.py EncoderDecoderModelRunner.profile_run builds max_num_seqs dummy sequences, each with
    the per-prompt image limit of dummy images (1 unless --limit-mm-per-prompt says more), and runs them in one forward:
    unlike the decoder-only V0 runner it does not cut the sequences to max_num_batched_tokens // the image's tokens. Each
    dummy image fills max_num_tiles tiles (1024 x 1024 up to 0.7.2, max_num_tiles x image_size by image_size from 0.7.3),
    of (image_size / patch)^2 + 1 patches, padded to a multiple of 8 (L), so the tower sees N images x S = tiles x L
    tokens. models/mllama.py MllamaVisionModel.forward then holds, in the model dtype, with H = N x S x hidden:
    - the aspect-ratio attention mask, N x S x S (built by a matmul and a multiply: two copies while it is made);
    - after the 32 local layers, the encoder's output tuple (the final hidden state and the len(intermediate_layers_indices)
      kept states) and their torch.stack, while the 8 gated global layers run, each with its input, the global input the
      forward still holds, the attention output, the norm and the MLP's fc1 output and activation (2 x intermediate/TP):
      (5 + 2 x kept + 2 x intermediate / hidden / TP) x H, the peak of the pass (the local layers hold fewer, the final
      concatenation frees the stack first);
    - the pixels, float32 until 0.9.0 casts them (rules.mm_pixels_model_dtype), in rules.mllama_v0_pixel_copies copies;
    - the patch embedding's output (N x tiles x (image_size / patch)^2 x hidden / TP, before the class token and the
      padding): the forward binds it to `patch_embeds` and keeps that name to its return, so it lives through both
      encoders (ColumnParallelConv2dPatch's linear does not gather its output; the TP all-gather makes the copy the
      forward goes on with: 0.6.3-0.10.0 wheels).
    The language model's forward follows with the projected cross-attention states (N x tiles x patches x the text
    hidden size) beside the pixels."""
    v = model.raw_config["vision_config"]
    db = DTYPE_BYTES.get(args.dtype, 2)
    tp = args.tensor_parallel_size
    limit = (args.mm_limits or {}).get("image")
    per_seq = 0 if args.language_model_only else (1 if limit is None else limit)
    if not per_seq:
        return 0, "multimodal: no image is allowed (--limit-mm-per-prompt 0 or --language-model-only), so the profile run encodes none"
    size, patch = int(v.get("image_size") or 560), int(v.get("patch_size") or 14)
    tiles = int(v.get("max_num_tiles") or 4)
    hidden = int(v.get("hidden_size") or 1280)
    inter = int(v.get("intermediate_size") or 4 * hidden)
    kept = len(v.get("intermediate_layers_indices") or [3, 7, 15, 23, 30])
    patches = (size // patch) ** 2 + 1
    padded = cdiv(patches, 8) * 8
    n = args.max_num_seqs * per_seq
    seq = tiles * padded
    h = n * seq * hidden * db
    mask = n * seq * seq * db
    pixel_bytes = db if rules.mm_pixels_model_dtype else 4
    pixels = rules.mllama_v0_pixel_copies * pixel_bytes * n * tiles * 3 * size * size
    patch_out = n * tiles * (size // patch) ** 2 * hidden * db // tp
    vision = pixels + patch_out + max(2 * mask + h, mask + (5 + 2 * kept + 2 * inter / hidden / tp) * h)
    cross = n * tiles * patches * model.hidden_size * db
    extra = max(0, int(max(vision, text_peak + pixels + cross) - text_peak))
    return extra, (f"multimodal: the V0 encoder-decoder profile run encodes {n} dummy image(s) ({args.max_num_seqs} sequences "
                   f"x {per_seq}) of {tiles} tiles x {padded} tokens: the vision pass holds a {mask / GIB:.2f} GiB attention "
                   f"mask, {(5 + 2 * kept + 2 * inter / hidden / tp):.0f} hidden-state tensors of {h / GIB:.2f} GiB, the "
                   f"{patch_out / GIB:.2f} GiB patch embedding and {pixels / GIB:.2f} GiB of pixels, {vision / GIB:.2f} GiB; {extra / GIB:.2f} GiB above the text peak "
                   "(computed from models/mllama.py, not fitted)")


SKIP_MM_PROFILING_NOTE = (
    "multimodal: --skip-mm-profiling: the profile run encodes no items, so the peak holds neither the encoder forward "
    "nor its cached outputs (v1/worker/gpu_model_runner.py profile_run, vLLM PR #22950, read in the 0.10.1, 0.19.0 and "
    "0.27.1 wheels, and 0.27.1's v1/worker/gpu/model_runner.py; the text dummy run keeps its multimodal inputs, and the "
    "scheduler's encoder-cache budget is unchanged)")


def mm_profiling_skipped(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> bool:
    """Whether --skip-mm-profiling takes the encoder pass out of the profile run: a multimodal model on the V1 engine
    (the V0 runner, worker/model_runner.py of the 0.10.1 wheel, never reads the flag; a text model has no pass) with
    a modality allowed (with none the pass encodes nothing anyway). vLLM logs "Skipping memory profiling for
    multimodal encoder and encoder cache." (the V1 runner; 0.27.1's second runner skips it silently). Whisper's
    audio encoder pass too (_has_encoder_pass: the V1 runner's profile_run reads the flag for it)."""
    if not (args.skip_mm_profiling and _has_encoder_pass(model) and rules.is_v1):
        return False
    limits = {"image": 0, "video": 0, "audio": 0} if args.language_model_only else (args.mm_limits or {})
    return not all(limits.get(m, 1) == 0 for m in _profiled_modalities(model))


def skip_mm_profiling_says(model: ModelSpec, args: EngineArgs, rules: VersionRules,
                           text_peak: int) -> tuple[str | None, str | None]:
    """(an assumption, a warning) about --skip-mm-profiling: the risk vLLM's help names ("shifts the responsibility to
    users for estimating the peak memory usage of the activation of multimodal encoder and embedding cache",
    MultiModalConfig.skip_mm_profiling), or why the flag changes nothing here."""
    if not args.skip_mm_profiling:
        return None, None
    if not _has_encoder_pass(model):
        return "--skip-mm-profiling: a text model has no encoder pass to skip; the flag changes nothing", None
    if not rules.is_v1:
        return None, ("--skip-mm-profiling: the V0 engine's profile run does not read the flag (worker/model_runner.py, "
                      "0.10.1 wheel), so the encoder pass is profiled and planned as without it")
    if not mm_profiling_skipped(model, args, rules):
        return "--skip-mm-profiling: no modality is allowed, so there is no encoder pass to skip", None
    mm = _multimodal_profile_bytes(model, args, rules, text_peak)
    held = f"the {mm[0] / GIB:.2f} GiB" if mm and mm[0] else "the memory"
    return None, (f"--skip-mm-profiling: the KV pool takes {held} the encoder pass would have added to the profiled peak; "
                  f"a step that encodes {'audio' if _profiled_modalities(model) == ('audio',) else 'images or video'} needs it beside the pool and may fail with CUDA out of memory "
                  "(vLLM leaves that estimate to the user; lower --gpu-memory-utilization or --limit-mm-per-prompt to "
                  "leave room)")
