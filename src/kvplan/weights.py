"""Weight bytes: exact from checkpoint metadata where available, else counted from the architecture.

`count_weights(spec)` lists the model's tensors as components (embeddings, attention,
MLA, Gated DeltaNet / Mamba mixers, dense and MoE MLPs, norms, lm_head unless tied,
a vision tower), each tagged with how tensor parallelism splits it. `weights_per_rank`
turns that into the bytes one rank holds ("Model loading took X GiB"), for any
quantization, TP and PP. If the architecture cannot be counted and the checkpoint
gives no bytes, it raises: it never guesses.

Facts (docs/vllm-memory-model.md section 5): vocabulary padded to a multiple of 64
and split over TP; q/k/v/o, MLPs and every expert split over TP (KV projections
replicated when kv heads < TP); norms, routers and rotary caches replicated; the
rotary cos/sin cache is max_position x rotary_dim in the model dtype and is counted in W.
"""

from __future__ import annotations

import fnmatch
import functools
import math
import re
from dataclasses import dataclass, field, replace

from kvplan import versions
from kvplan.errors import InputError, UndeterminedError
from kvplan.resolve import DTYPE_BYTES, ModelSpec, QuantSpec, heads_per_rank, rope_params

VOCAB_PADDING = 64  # vocab_parallel_embedding.py DEFAULT_VOCAB_PADDING_SIZE
# Component.kind of a tensor vLLM allocates and fills at load from another checkpoint tensor: on the GPU, not on disk
LOAD_COPY = "load_copy"
UNGATED = "ungated"  # Component.kind of a dense MLP without a gate
# GPT-2-style decoders as vLLM builds them (models/gpt2.py GPT2Model / GPT2Block, read in the 0.6.4.post1, 0.8.3 and
# 0.25.1 wheels; models/gpt_bigcode.py GPTBigCodeModel, 0.6.4.post1 and 0.8.3): a learned position table
# wpe = nn.Embedding(max_position_embeddings, hidden), no rotary embedding; every projection with a bias (c_attn
# QKVParallelLinear and mlp.c_fc ColumnParallelLinear split over TP, attn.c_proj and mlp.c_proj RowParallelLinear whole on
# each rank, bias=True) and LayerNorms (ln_1, ln_2, ln_f) with a weight and a bias
LEARNED_POSITION_TYPES = ("gpt2", "gpt_bigcode")


@dataclass(frozen=True)
class Component:
    """A group of tensors: `params` elements, split by `shard` over TP ranks."""

    name: str           # embed_tokens, lm_head, self_attn, kv_replicated, mla_replicated, linear_attn, mlp, experts, router, norm, vision, rotary
    params: int
    shard: str          # "tp" (split), "replicated", "vocab" (split rows)
    layer: int | None   # decoder layer index (None: outside the layers)
    quantizable: bool   # a linear weight a weight-quantization method converts
    # "experts" for routed experts (MXFP4 applies only there), "in_proj_ba" for a Gated DeltaNet layer's fused b/a
    # projection (a skip list may keep it alone unquantized), "vision_linear" for a vision tower's Linear weights (only
    # a quantization of every Linear layer converts them), "fused_qkv_a" for an MLA layer's q_a_proj and
    # kv_a_proj_with_mqa (one module in vLLM), "vision_linear_bnb" for those only bitsandbytes converts
    # (Gemma 3's SigLIP MLP), LOAD_COPY for a tensor vLLM fills at load from another one (absent from the files),
    # UNGATED for a dense MLP without a gate (up_proj and down_proj alone: gated_mlp); "" for the rest
    kind: str = ""
    dtype_bytes: float | None = None  # fixed bytes per element (e.g. fp32 A_log); None = the model dtype


@dataclass(frozen=True)
class WeightCount:
    components: tuple[Component, ...]
    dtype_bytes: int
    active_params: int
    num_layers: int
    notes: tuple[str, ...] = ()

    @property
    def total_params(self) -> int:
        return sum(c.params for c in self.components)

    @property
    def total_bytes(self) -> int:
        return int(sum(c.params * (c.dtype_bytes or self.dtype_bytes) for c in self.components))


def padded_vocab(spec: ModelSpec) -> int:
    """The vocabulary as vLLM allocates its embedding and lm_head: padded to a multiple of 64 (0 without one)."""
    return math.ceil(spec.vocab_size / VOCAB_PADDING) * VOCAB_PADDING if spec.vocab_size else 0


# model types whose full-attention layers vLLM builds with Qwen3NextAttention (models/qwen3_next.py; models/qwen3_5.py
# imports it), which reads getattr(config, "attn_output_gate", True): a config that does not state the gate gets it.
# Read in the 0.10.2 and 0.29.0 wheels. vLLM's Qwen3NextConfig (transformers_utils/configs/qwen3_next.py) and
# transformers' (5.24.0) define no such field, so Qwen3-Next's config.json, which does not state it, runs gated;
# Qwen3.5/3.6/3.8 configs state attn_output_gate: true
_GATED_QUERY_BY_DEFAULT = ("qwen3_next", "qwen3_5")


def attn_output_gate(spec: ModelSpec) -> bool:
    """Whether vLLM builds the query projection twice the heads' width (the attention output gate's half)."""
    t = spec.text_config
    return bool(t.get("attn_output_gate", spec.model_type.startswith(_GATED_QUERY_BY_DEFAULT)))


# model types whose attention layers vLLM builds with a head count of their own, read from the config's
# num_attention_heads_per_layer: models/laguna.py LagunaDecoderLayer.__init__ passes per_layer_heads[layer_idx] to
# LagunaAttention, which sizes qkv_proj's query rows, o_proj's input and g_proj's per-head gate from it (0.21.0, 0.24.0,
# 0.29.0 and 0.33.0 wheels; no other model file reads the field)
PER_LAYER_HEADS_MODEL_TYPES = ("laguna",)


def layer_attention_heads(spec: ModelSpec, index: int) -> int:
    """The query heads vLLM builds decoder layer `index`'s attention with: num_attention_heads_per_layer[index] where
    the model type reads it (PER_LAYER_HEADS_MODEL_TYPES), else num_attention_heads."""
    per_layer = spec.text_config.get("num_attention_heads_per_layer")
    if (spec.model_type in PER_LAYER_HEADS_MODEL_TYPES and isinstance(per_layer, list) and 0 <= index < len(per_layer)
            and isinstance(per_layer[index], int) and per_layer[index] > 0):
        return per_layer[index]
    return spec.num_attention_heads


def head_gate_width(spec: ModelSpec, heads: int, head_dim: int) -> int:
    """Output width of Laguna's separate attention output gate g_proj (hidden -> this, no bias, split over TP like the
    query): models/laguna.py LagunaAttention.__init__ (0.29.0) builds it when config.gating is set, one gate per head for
    gating True or "per-head", one per channel (heads x head_dim) otherwise; 0 for every other model."""
    if spec.model_type not in PER_LAYER_HEADS_MODEL_TYPES:
        return 0
    gating = spec.text_config.get("gating")
    if not gating:
        return 0
    return heads if gating is True or gating in ("per-head", "per_head") else heads * head_dim


def gated_mlp(spec: ModelSpec) -> bool:
    act = str(spec.text_config.get("hidden_act") or spec.text_config.get("mlp_hidden_act") or "silu")
    # two-matrix MLPs (up, activation, down) in vLLM's model classes, whatever the activation (model_executor/models:
    # gpt_j.py GPTJMLP fc_in/fc_out, gpt_neox.py GPTNeoXMLP dense_h_to_4h/dense_4h_to_h, mpt.py MPTMLP up_proj/down_proj)
    if spec.model_type in ("nemotron_h", "gpt2", "gpt_bigcode", "falcon", "phi", "starcoder2", "opt", "bloom", "gptj",
                           "gpt_neox", "mpt"):
        return False
    return act in ("silu", "swiglu", "gelu_pytorch_tanh", "geglu", "gelu_new", "gelu") or "gate" in act


def moe_layers(spec: ModelSpec) -> set[int]:
    """Indices of decoder layers whose MLP is a mixture of experts."""
    t = spec.text_config
    n = spec.num_layers
    if not spec.is_moe:
        return set()
    if spec.model_type == "nemotron_h":
        pattern = str(t.get("hybrid_override_pattern") or "")
        return {i for i, c in enumerate(pattern[:n]) if c == "E"}
    if "first_k_dense_replace" in t:
        k = int(t.get("first_k_dense_replace") or 0)
        freq = int(t.get("moe_layer_freq") or 1)
        return {i for i in range(k, n) if (i - k) % freq == 0}
    if "expert_layer_period" in t:  # Jamba
        p, o = int(t["expert_layer_period"]), int(t.get("expert_layer_offset", 0))
        return {i for i in range(n) if i % p == o}
    if "interleave_moe_layer_step" in t:  # Llama 4
        step = int(t.get("interleave_moe_layer_step") or 1)
        return {i for i in range(n) if (i + 1) % step == 0}
    mlp_only = set(t.get("mlp_only_layers") or [])
    step = int(t.get("decoder_sparse_step") or 1)
    return {i for i in range(n) if i not in mlp_only and (i + 1) % step == 0}


def _attention_layer_of(spec: ModelSpec, index: int):
    """The attention LayerSpec of decoder layer `index` (Falcon-H1 layers hold two specs)."""
    if spec.model_type == "falcon_h1":
        return next(l for l in spec.layers[2 * index:2 * index + 2] if l.is_attention)
    return spec.layers[index]


def qkv_bias(spec: ModelSpec) -> bool:
    """Whether the fused q/k/v projection carries a bias: attention_bias in the config, Qwen2's q/k/v biases, and the
    GPT-2-style decoders' c_attn (LEARNED_POSITION_TYPES)."""
    return (bool(spec.text_config.get("attention_bias")) or spec.model_type.startswith("qwen2")
            or spec.model_type in LEARNED_POSITION_TYPES)


def _attention_params(spec: ModelSpec, n_kv: int, head_dim: int, layer: int, k_eq_v: bool = False) -> list[Component]:
    t = spec.text_config
    h, nh = spec.hidden_size, layer_attention_heads(spec, layer)
    q_out = nh * head_dim * (2 if attn_output_gate(spec) else 1)
    bias = qkv_bias(spec)
    qo = h * q_out + nh * head_dim * h + (q_out if bias else 0)
    n_proj = 1 if k_eq_v else 2  # attention_k_eq_v: the value projection is the key's (Gemma 4 global layers)
    kv = n_proj * h * n_kv * head_dim + (n_proj * n_kv * head_dim if bias else 0)
    out = [Component("self_attn", qo, "tp", layer, True), Component("kv_proj", kv, "kv", layer, True)]
    gate = h * head_gate_width(spec, nh, head_dim)
    if gate:  # Laguna's g_proj: a Linear of its own, which a skip list names apart (component_modules)
        out.append(Component("self_attn", gate, "tp", layer, True, kind="g_proj"))
    if k_eq_v:
        # the checkpoint ships no v_proj, but vLLM still builds the V slot of the fused qkv_proj and loads the key's
        # weights into it too (models/gemma4.py Gemma4Attention: QKVParallelLinear(hidden, head_dim, heads, kv_heads),
        # "k_eq_v layers load K weights into both K and V slots"; load_weights maps k_proj to shards "k" and "v"; read in
        # the 0.19.0, 0.20.0, 0.22.0, 0.25.1 and 0.33.0 wheels): a copy made at load, on the GPU, not in the files
        out.append(Component("kv_proj", kv, "kv", layer, True, kind=LOAD_COPY))
    if t.get("use_qk_norm") or spec.model_type.startswith(("qwen3", "gemma3", "olmo2")):
        out.append(Component("norm", 2 * head_dim, "replicated", layer, False))
    if t.get("sinks") or spec.model_type == "gpt_oss":
        out.append(Component("norm", nh, "tp", layer, False))  # attention sinks: one value per head
    return out


def _mla_params(spec: ModelSpec, layer: int) -> list[Component]:
    t = spec.text_config
    h, nh = spec.hidden_size, spec.num_attention_heads
    rank, rope = int(t["kv_lora_rank"]), int(t.get("qk_rope_head_dim", 64))
    nope, v_dim = int(t.get("qk_nope_head_dim", 128)), int(t.get("v_head_dim", 128))
    q_rank = t.get("q_lora_rank")
    if q_rank:
        # the query's down-projection q_a_proj (h x q_lora_rank) is replicated like kv_a_proj_with_mqa: a
        # ReplicatedLinear in models/deepseek_v2.py DeepseekV2MLAAttention.__init__ 0.9.1 and 0.27.1, fused with
        # kv_a_proj_with_mqa into DeepSeekV2FusedQkvAProjLinear (a MergedColumnParallelLinear with disable_tp=True) in
        # 0.20.0; ReplicatedLinear in minicpm3.py MiniCPM3Attention (0.20.0). Only q_b_proj is split by TP.
        q_a, q = h * int(q_rank), int(q_rank) * nh * (nope + rope)
        q_norm = int(q_rank)
    else:
        q_a, q, q_norm = 0, h * nh * (nope + rope), 0
    out = [
        # kind "mla": its kv_b_proj (rank x nh*(nope+v)) is what weights_per_rank's mla_kv_b_copy dequantizes
        Component("self_attn", q + rank * nh * (nope + v_dim) + nh * v_dim * h, "tp", layer, True, kind="mla"),
        # kind "fused_qkv_a": q_a_proj and kv_a_proj_with_mqa, one fused module (component_modules)
        Component("mla_replicated", q_a + h * (rank + rope), "replicated", layer, True, kind="fused_qkv_a" if q_rank else ""),
        Component("norm", rank + q_norm, "replicated", layer, False),
    ]
    index_dim = spec.layers[layer].index_head_dim if layer < len(spec.layers) else 0
    if index_dim:
        # DeepSeek-V3.2's lightning indexer, replicated on every rank (models/deepseek_v2.py Indexer): wq_b
        # q_lora_rank x index_heads*index_head_dim and wk h x index_head_dim (quantized with the model), the unquantized
        # weights_proj h x index_heads, and a LayerNorm of index_head_dim (fp32 weight and bias)
        heads = int(t.get("index_n_heads") or 64)
        out += [Component("indexer", int(q_rank or h) * heads * index_dim + h * index_dim, "replicated", layer, True),
                Component("indexer", h * heads, "replicated", layer, False),
                Component("norm", 2 * index_dim, "replicated", layer, False, dtype_bytes=4)]
    return out


def _recurrent_params(spec: ModelSpec, layer: int) -> list[Component]:
    rec = spec.layers[0].recurrent if spec.layers[0].recurrent else next(l.recurrent for l in spec.layers if l.recurrent)
    h = spec.hidden_size
    k = rec.conv_kernel
    if rec.kind == "gdn":
        key, val = rec.key_heads * rec.key_head_dim, rec.n_heads * rec.head_dim
        small = (2 * key + val) * k + rec.head_dim
        # in_proj_qkvz and out_proj, then in_proj_ba (h x 2 value heads) apart: a checkpoint may leave it alone
        # unquantized (FUSED_SHARDS)
        return [Component("linear_attn", h * (2 * key + 2 * val) + val * h, "tp", layer, True),
                Component("linear_attn", h * 2 * rec.n_heads, "tp", layer, True, kind="in_proj_ba"),
                Component("linear_attn_small", small, "tp", layer, False),
                Component("linear_attn_fp32", 2 * rec.n_heads, "tp", layer, False, dtype_bytes=4)]
    if rec.kind == "mamba2":
        i, g, n, heads = rec.intermediate, rec.n_groups, rec.state_size, rec.n_heads
        proj = h * (2 * i + 2 * g * n + heads) + i * h
        small = (i + 2 * g * n) * (k + 1) + i
        return [Component("mixer", proj, "tp", layer, True), Component("mixer_small", small, "tp", layer, False),
                Component("mixer_fp32", 3 * heads, "tp", layer, False, dtype_bytes=4)]
    if rec.kind == "mamba1":
        i, n = rec.intermediate, rec.state_size
        dt_rank = int(spec.text_config.get("mamba_dt_rank") or spec.text_config.get("time_step_rank") or math.ceil(h / 16))
        proj = h * 2 * i + i * (dt_rank + 2 * n) + dt_rank * i + i * h
        small = i * (k + 1) + i + i * n + i
        # vLLM builds a Mamba-1 mixer's in_proj, x_proj, dt_proj and out_proj with no quant_config, so no method
        # converts them: models/jamba.py JambaMambaMixer (0.6.3), layers/mamba/mamba_mixer.py MambaMixer (0.10.2,
        # 0.14.1, 0.24.0-0.33.0 wheels; Jamba, Mamba, FalconMamba); Mamba-2's MambaMixer2 passes it to in_proj and out_proj
        return [Component("mixer", proj, "tp", layer, False), Component("mixer_small", small, "tp", layer, False)]
    if rec.kind == "linear":
        return [Component("self_attn", 4 * h * h, "tp", layer, True)]
    raise UndeterminedError("config", f"cannot count the weights of {rec.kind} layers", "give a checkpoint folder or Hub id for exact bytes")


_QWEN_VISION = ("qwen2_vl", "qwen2_5_vl", "qwen2_5_omni", "qwen3_vl", "qwen3_5", "qwen3_6", "qwen3_omni")
# vision towers whose MLP is gated (gate, up, down): Qwen2.5-VL's SwiGLU blocks (qwen2_5_vl.py Qwen2_5_VisionMLP),
# Pixtral's (pixtral.py PixtralHFMLP) and Gemma 4's; CLIP, SigLIP, Qwen2-VL and Qwen3-VL use fc1 / fc2
_GATED_VISION = ("qwen2_5_vl", "qwen2_5_omni", "pixtral", "gemma4_vision")


def vision_mlp_gated(spec: ModelSpec) -> bool:
    """Whether the vision tower's MLP has three projections (gate, up, down) rather than two (fc1, fc2)."""
    family = str((spec.vision_config or {}).get("model_type") or spec.model_type)
    return family.startswith(_GATED_VISION) or spec.model_type.startswith(("qwen2_5_vl", "qwen2_5_omni"))


# vision towers whose Linear layers vLLM builds with the model's quantization config (quant_config passed down to
# every block's qkv / proj / MLP and to the patch mergers; the patch embedding is a Conv3dLayer, never quantized), read in
# the 0.17.0, 0.19.0 and 0.27.1 wheels: qwen2_5_vl.py Qwen2_5_VisionTransformer, qwen3_vl.py Qwen3_VisionTransformer,
# qwen3_5.py Qwen3_5ForConditionalGeneration / Qwen3_5MoeForConditionalGeneration (visual = Qwen3_VisionTransformer(...,
# quant_config=quant_config))
_QUANTIZABLE_VISION = ("qwen2_5_vl", "qwen3_vl", "qwen3_5")


def _gemma3_siglip(spec: ModelSpec) -> bool:
    """Gemma 3's multimodal model: a SigLIP tower and a one-matrix projector (gemma3_mm.py)."""
    v = spec.vision_config or {}
    return str(v.get("model_type") or "").startswith("siglip") and (
        "Gemma3ForConditionalGeneration" in (spec.architectures or ()) or spec.model_type.startswith("gemma3"))


def vision_bnb_only_params(spec: ModelSpec) -> int:
    """The vision tower's Linear weights that vLLM converts under bitsandbytes (or torchao) but builds unquantized under
    the other methods (Gemma 3's SigLIP MLP, see _vision_parts); 0 for a text model."""
    return _vision_parts(spec)[2] if spec.is_multimodal else 0


def vision_linear_params(spec: ModelSpec) -> int:
    """The vision tower's Linear weights that a quantization covering every Linear layer converts (online FP8): 0
    for a tower kvplan keeps in the model dtype (not in _QUANTIZABLE_VISION) or a text model."""
    return _vision_parts(spec)[1] if spec.is_multimodal else 0


def _vision_parts(spec: ModelSpec) -> tuple[int, int, int]:
    """The vision tower's parameters, and of them the weight matrices of its Linear layers where vLLM builds them with
    the model's quantization config (_QUANTIZABLE_VISION and Gemma 3's SigLIP; 0 elsewhere), and apart from those the
    ones it builds with it only under bitsandbytes or torchao (Gemma 3's SigLIP MLP when its sizes are not multiples of
    64)."""
    v = spec.vision_config or {}
    h = v.get("hidden_size") or v.get("embed_dim") or v.get("width")
    layers = v.get("num_hidden_layers") or v.get("depth") or v.get("num_layers")
    if not h or not layers:
        return 0, 0, 0
    inter = v.get("intermediate_size") or 4 * h
    patch, ch = v.get("patch_size") or 14, v.get("num_channels") or v.get("in_channels") or 3
    patch_area = math.prod(patch) if isinstance(patch, (list, tuple)) else patch * patch
    temporal = v.get("temporal_patch_size") or 1
    family = str(v.get("model_type") or spec.model_type)
    if family.startswith("gemma4"):
        return _gemma4_vision_params(v, int(h), int(layers), int(inter), spec.hidden_size), 0, 0
    if family.startswith("mllama"):
        return _mllama_vision_params(v, int(h), int(layers), int(inter), spec.hidden_size), 0, 0
    per_layer = 4 * h * h + (3 if vision_mlp_gated(spec) else 2) * h * inter + 9 * h + inter
    out_h = v.get("out_hidden_size") or spec.hidden_size
    if family.startswith(_QWEN_VISION) or spec.model_type.startswith(_QWEN_VISION):
        # the Qwen patch mergers: norm, then (h m^2 -> h m^2 -> out) over merged 2 x 2 patches (qwen2_vl.py PatchMerger,
        # qwen2_5_vl.py, qwen3_vl.py Qwen3_VisionPatchMerger), one more per deepstack level; Qwen3-VL's learned
        # position table (num_position_embeddings x h)
        merged = h * int(v.get("spatial_merge_size") or 2) ** 2
        mergers = 1 + len(v.get("deepstack_visual_indexes") or [])
        projector = mergers * (merged * merged + merged + merged * out_h + out_h + 2 * merged)
        projector += int(v.get("num_position_embeddings") or 0) * h
        linear = mergers * (merged * merged + merged * out_h)
    elif _gemma3_siglip(spec):
        # Gemma 3's projector is one matrix, vision hidden x text hidden, after an RMSNorm of the vision hidden size
        # (gemma3_mm.py Gemma3MultiModalProjector: mm_input_projection_weight, mm_soft_emb_norm; 0.9.1, 0.20.0), and
        # the tower ends in a LayerNorm (siglip.py SiglipVisionTransformer post_layernorm)
        projector = h * spec.hidden_size + h + 2 * h
        linear = 0
    else:  # LLaVA-style: a two-layer projector from the tower to the language model
        projector = h * out_h + out_h * spec.hidden_size + 2 * out_h
        linear = 0
    if family.startswith(("siglip", "clip")) and v.get("image_size"):
        # the learned position table: one row per patch (siglip.py SiglipVisionEmbeddings, 0.9.1 and 0.20.0), one
        # more for CLIP's class token, plus the class embedding itself (clip.py CLIPVisionEmbeddings)
        side = int(v["image_size"]) // (patch if isinstance(patch, int) else int(patch[0]))
        projector += (side * side + 2) * h if family.startswith("clip") else side * side * h
    total = int(layers * per_layer + ch * patch_area * temporal * h + projector)
    if _gemma3_siglip(spec):
        # Gemma 3 builds its SigLIP tower with the model's quantization config (gemma3_mm.py
        # Gemma3ForConditionalGeneration: SiglipVisionModel(config.vision_config, quant_config, ...), 0.9.1 and 0.20.0):
        # every block's qkv_proj and out_proj are converted, but its MLP (fc1, fc2) only when hidden and intermediate
        # sizes are multiples of 64, or the method is bitsandbytes or torchao (siglip.py SiglipMLP "quantizable",
        # 0.9.1 and 0.20.0): Gemma 3's 4304 is not
        mlp = int(layers * 2 * h * inter)
        if h % 64 == 0 and inter % 64 == 0:
            return total, int(layers * 4 * h * h) + mlp, 0
        return total, int(layers * 4 * h * h), mlp
    if not (family.startswith(_QUANTIZABLE_VISION) or spec.model_type.startswith(_QUANTIZABLE_VISION)):
        return total, 0, 0
    # the blocks' qkv (3 h x h), proj (h x h) and MLP matrices; their biases and norms stay in the model dtype
    return total, int(layers * (4 * h * h + (3 if vision_mlp_gated(spec) else 2) * h * inter) + linear), 0


def _mllama_vision_params(v: dict, h: int, layers: int, inter: int, text_hidden: int) -> int:
    """Llama-3.2-Vision's tower (MllamaVisionModel) and its projector, tensor by tensor, as models/mllama.py builds them
    (read in the 0.7.1 wheel): two encoders of the same layer, `num_hidden_layers` local and `num_global_layers` global
    ones (each a bias-free qkv and o projection, an fc1 / fc2 MLP with biases, two LayerNorms; a global layer adds two
    scalar gates); a bias-free patch projection (ColumnParallelConv2dPatch); the class embedding; a gated position
    table of (image_size / patch_size)^2 + 1 rows and its tile table, one row per aspect-ratio id (len(
    supported_aspect_ratios) + 1) of max_num_tiles x that many positions; the pre- and post-tile aspect-ratio
    embeddings with their gates; the pre and post LayerNorms; and a projector from vision_output_dim (the last hidden
    state concatenated with the intermediate ones) to the language model, with a bias."""
    global_layers = int(v.get("num_global_layers") or 0)
    per_layer = 4 * h * h + 2 * h * inter + inter + h + 4 * h
    patch, ch = v.get("patch_size") or 14, v.get("num_channels") or 3
    positions = (int(v.get("image_size") or 0) // int(patch)) ** 2 + 1
    tiles = int(v.get("max_num_tiles") or 4)
    ratio_ids = len(v.get("supported_aspect_ratios") or ()) + 1
    embeddings = (ch * patch * patch * h + h + positions * h + 1 + ratio_ids * tiles * positions * h
                  + 2 * (ratio_ids * tiles * h + 1) + 4 * h)
    out = int(v.get("vision_output_dim") or 0)
    return (layers + global_layers) * per_layer + 2 * global_layers + embeddings + out * text_hidden + text_hidden


def _gemma4_vision_params(v: dict, h: int, layers: int, inter: int, text_hidden: int) -> int:
    """Gemma 4's vision tower and its projector into the language model, tensor by tensor.

    vLLM builds the tower with transformers (models/gemma4_mm.py Gemma4ForConditionalGeneration:
    AutoModel.from_config(config.vision_config); 0.19.0, 0.20.0, 0.22.0, 0.25.1, 0.33.0 wheels), so its tensors are
    transformers' Gemma4VisionModel (models/gemma4/modeling_gemma4.py): a patch embedder (input_proj, 3 p^2 x h, no
    bias; position_embedding_table, 2 x position_embedding_size x h: one table per image axis), per encoder layer
    q/k/v/o (heads x head_dim, no bias), q_norm and k_norm (head_dim each; v_norm has no weight), four RMSNorms of h
    and a gated MLP (gate, up, down, no bias); std_bias and std_scale (h each) when the config standardizes. vLLM's own
    projector (Gemma4MultimodalEmbedder) is one bias-free h x text-hidden matrix between two weightless RMSNorms.
    Gemma-4-26B-A4B: 572.8 M (the generic two-layer LLaVA projector and SigLIP biases counted 557.4 M; the position
    table alone is 23.6 M)."""
    heads = int(v.get("num_attention_heads") or max(1, h // 64))
    head_dim = int(v.get("head_dim") or h // heads)
    kv_heads = int(v.get("num_key_value_heads") or heads)
    patch = v.get("patch_size") or 16
    patch_area = math.prod(patch) if isinstance(patch, (list, tuple)) else patch * patch
    attn = h * heads * head_dim * 2 + h * kv_heads * head_dim * 2 + 2 * head_dim
    per_layer = attn + 3 * h * inter + 4 * h
    embedder = 3 * patch_area * h + 2 * int(v.get("position_embedding_size") or 0) * h
    standardize = 2 * h if v.get("standardize") else 0
    return layers * per_layer + embedder + standardize + h * text_hidden


def count_weights(spec: ModelSpec) -> WeightCount:
    """Every tensor group of the model, with its TP split. Raises when the config lacks a needed size."""
    if spec.compressed_attention:
        return _deepseek_v4_count(spec)
    if spec.model_type == "whisper":
        return _whisper_count(spec)
    missing = [n for n, v in (("vocab_size", spec.vocab_size),) if not v]
    if spec.is_moe and not spec.moe_intermediate_size:
        missing.append("moe_intermediate_size")
    if not spec.intermediate_size and not spec.is_moe and spec.model_type not in ("mamba", "mamba2"):
        missing.append("intermediate_size")
    if missing:
        raise UndeterminedError("weights", f"cannot count {spec.id}'s weights: the config has no {', '.join(missing)}",
                                "give a checkpoint folder or Hub id (exact bytes from safetensors headers)")
    t = spec.text_config
    h = spec.hidden_size
    v_pad = padded_vocab(spec)
    comps = [Component("embed_tokens", v_pad * h, "vocab", None, False)]
    learned = spec.model_type in LEARNED_POSITION_TYPES
    if learned:
        if not spec.max_position_embeddings:
            raise UndeterminedError("weights", f"cannot count {spec.id}'s weights: the config has no n_positions "
                                    "(max_position_embeddings), the rows of its learned position table",
                                    "give a checkpoint folder or Hub id (exact bytes from safetensors headers)")
        # wpe, whole on every rank, and ln_f's bias (LEARNED_POSITION_TYPES)
        comps.append(Component("embed_positions", int(spec.max_position_embeddings) * h, "replicated", None, False))
        comps.append(Component("norm", h, "replicated", None, False))
    if not spec.tie_word_embeddings and not spec.is_pooling:
        # a pooling model has no output projection: its own class builds none, and the adapter that serves a
        # *ForCausalLM as one deletes it (vllm/model_executor/models/adapters.py)
        comps.append(Component("lm_head", v_pad * h, "vocab", None, False))
    comps.append(Component("norm", h, "replicated", None, False))
    gated = gated_mlp(spec)
    mlp_mult = 3 if gated else 2
    moe = moe_layers(spec)
    active = 0
    norms_per_layer = 4 if spec.model_type.startswith(("gemma2", "gemma3", "gemma4")) else 2
    layer_kinds = _decoder_layers(spec)
    for i, kinds in enumerate(layer_kinds):
        layer_comps: list[Component] = []
        for kind in kinds:
            if kind in ("full", "sliding", "chunked"):
                layer = _attention_layer_of(spec, i)
                layer_comps += _attention_params(spec, layer.num_kv_heads, layer.head_dim, i,
                                                 k_eq_v=kind == "full" and bool(t.get("attention_k_eq_v")))
            elif kind == "mla":
                layer_comps += _mla_params(spec, i)
            elif kind == "recurrent":
                layer_comps += _recurrent_params(spec, i)
        if _has_mlp(spec, kinds):
            if i in moe:
                e, ei = spec.num_experts, spec.moe_intermediate_size
                layer_comps.append(Component("experts", e * mlp_mult * h * ei, "tp", i, True, kind="experts"))
                if spec.model_type == "gpt_oss":
                    # gpt-oss's experts carry biases: FusedMoE(has_bias=True) (models/gpt_oss.py MLPBlock, 0.10.1.1-
                    # 0.33.0) creates w13_bias (E x 2 i, split over TP like the gate/up rows) and w2_bias (E x h, whole
                    # on every rank) (quantization/mxfp4.py Mxfp4MoEMethod.create_weights)
                    layer_comps.append(Component("expert_bias", e * 2 * ei, "tp", i, False, kind="expert_bias"))
                    layer_comps.append(Component("expert_bias", e * h, "replicated", i, False, kind="expert_bias"))
                layer_comps.append(Component("router", h * e, "replicated", i, False))
                if spec.shared_expert_intermediate_size:
                    layer_comps.append(Component("shared_expert", mlp_mult * h * spec.shared_expert_intermediate_size, "tp", i, True))
                if spec.model_type.startswith("qwen2_moe") or t.get("shared_expert_gate"):
                    layer_comps.append(Component("router", h, "replicated", i, False))
                if t.get("enable_moe_block") and spec.intermediate_size:
                    # Gemma 4's MoE layers (enable_moe_block) run a dense MLP of intermediate_size in parallel with
                    # the routed experts, each branch with its own norms; both are in the checkpoint
                    layer_comps.append(Component("mlp", mlp_mult * h * spec.intermediate_size, "tp", i, True,
                                                 kind="" if gated else UNGATED))
                    # and its router's per-dimension input scale (h) and per-expert output scale (E): models/gemma4.py
                    # Gemma4Router.scale, Gemma4MoE.per_expert_scale (0.19.0-0.33.0)
                    layer_comps.append(Component("router", h + e, "replicated", i, False))
                active += spec.num_experts_per_tok * mlp_mult * h * ei - e * mlp_mult * h * ei
            elif spec.intermediate_size:
                # Llama 4's dense layers (Maverick interleaves them with MoE layers) are intermediate_size_mlp wide, not
                # intermediate_size, which sizes its experts: Llama4DecoderLayer builds
                # LlamaMLP(intermediate_size=config.intermediate_size_mlp) where the layer is not a MoE layer
                # (vllm/model_executor/models/llama4.py, 0.10.0 to 0.33.0 wheels)
                width = (int(t["intermediate_size_mlp"]) if spec.model_type.startswith("llama4")
                         and t.get("intermediate_size_mlp") else spec.intermediate_size)
                layer_comps.append(Component("mlp", mlp_mult * h * width, "tp", i, True, kind="" if gated else UNGATED))
        layer_comps.append(Component("norm", norms_per_layer * h, "replicated", i, False))
        if learned:
            # ln_1 and ln_2 biases and the two RowParallelLinear biases (attn.c_proj, mlp.c_proj), whole on each
            # rank; mlp.c_fc's bias split like its weight (c_attn's: _attention_params)
            layer_comps.append(Component("norm", 4 * h, "replicated", i, False))
            if spec.intermediate_size and _has_mlp(spec, kinds):
                layer_comps.append(Component("norm", spec.intermediate_size, "tp", i, False))
        comps += layer_comps
    vision, vision_linear, vision_bnb = _vision_parts(spec) if spec.is_multimodal else (0, 0, 0)
    notes = []
    if vision:
        # its Linear weights apart: only a quantization that covers every Linear layer converts them (QuantSpec.applies_to)
        # Pixtral's tower as vLLM loads mistralai's checkpoints (Mistral format, PixtralForConditionalGeneration) is
        # plain nn.Linear layers, whole on every rank (models/pixtral.py VisionTransformer, FeedForward, Attention,
        # VisionLanguageAdapter, PatchMerger; 0.19.0 wheel); the HF-format PixtralHFVisionModel shards them, so at
        # TP > 1 this is its upper bound, as the encoder profile pass takes it (plan._multimodal_profile_bytes)
        shard = "replicated" if str((spec.vision_config or {}).get("model_type") or "") == "pixtral" else "tp"
        comps.append(Component("vision", vision - vision_linear - vision_bnb, shard, None, False))
        if vision_linear:
            comps.append(Component("vision", vision_linear, shard, None, False, kind="vision_linear"))
        if vision_bnb:
            comps.append(Component("vision", vision_bnb, shard, None, False, kind="vision_linear_bnb"))
        notes.append("vision tower counted from vision_config (an estimate)")
    total = sum(c.params for c in comps)
    return WeightCount(tuple(comps), spec.dtype_bytes, active_params=total + active, num_layers=len(layer_kinds), notes=tuple(notes))


def _whisper_count(spec: ModelSpec) -> WeightCount:
    """Whisper as vLLM builds it (model_executor/models/whisper.py, 0.11.0 and 0.34.0 wheels), d = d_model:

    - encoder: conv1 Conv1d(num_mel_bins, d, 3) and conv2 Conv1d(d, d, 3) with biases, learned positions
      max_source_positions x d, a final LayerNorm; each of encoder_layers layers a self-attention (QKVParallelLinear
      and out_proj, bias=True: the fused projection holds a k bias too) d x 3d + 3d + d x d + d, MLP fc1/fc2 with
      biases 2 d ffn + ffn + d, and two LayerNorms (4 d);
    - decoder: embed_tokens vocab x d (nn.Embedding, unpadded; proj_out is tied to it), learned positions
      max_target_positions x d, a final LayerNorm; each of decoder_layers layers the self-attention above, a
      cross-attention (q_proj d x d + d, kv_proj d x 2d + 2d, out_proj d x d + d), the MLP, three LayerNorms (6 d).
    Attention and MLP weights split over TP; embeddings, positions, convolutions and norms are counted whole."""
    r = spec.raw_config
    d = spec.hidden_size
    enc_ffn, dec_ffn = int(r["encoder_ffn_dim"]), int(r["decoder_ffn_dim"])
    attn = 4 * d * d + 4 * d
    comps = [
        Component("audio_encoder", int(r["num_mel_bins"]) * d * 3 + d + d * d * 3 + d
                  + int(r["max_source_positions"]) * d + 2 * d, "replicated", None, False),
        Component("embed_tokens", spec.vocab_size * d, "replicated", None, False),
        Component("embed_tokens", int(r["max_target_positions"]) * d, "replicated", None, False),
        Component("norm", 2 * d, "replicated", None, False),
    ]
    for i in range(int(r["encoder_layers"])):
        comps += [Component("audio_encoder", attn + 2 * d * enc_ffn + enc_ffn + d, "tp", None, True),
                  Component("norm", 4 * d, "replicated", None, False)]
    for i in range(spec.num_layers):
        comps += [Component("self_attn", 2 * attn, "tp", i, True),
                  Component("mlp", 2 * d * dec_ffn + dec_ffn + d, "tp", i, True, kind=UNGATED),
                  Component("norm", 6 * d, "replicated", i, False)]
    total = sum(c.params for c in comps)
    return WeightCount(tuple(comps), spec.dtype_bytes, active_params=total, num_layers=spec.num_layers,
                       notes=("Whisper: encoder, decoder, convolutional front end and embeddings counted as "
                              "vLLM's whisper.py builds them",))


# DeepSeek-V4's routed experts by the config's expert_dtype: MXFP4 (e2m1 plus one e8m0 scale per 32) or FP8 blocks
# with float32 scales per 128 x 128 (models/deepseek_v4/quant_config.py, DeepseekV4FP8Config)
_DSV4_EXPERT_BYTES = {"fp4": 0.5 + 1 / 32, "fp8": 1 + 4 / (128 * 128)}


def _deepseek_v4_count(spec: ModelSpec) -> WeightCount:
    """DeepSeek-V4, tensor by tensor as vLLM 0.28-0.33 builds it (models/deepseek_v4: attention.py, compressor.py,
    nvidia/model.py), read in the 0.33.0 wheel:

    - attention: the fused q-latent/KV projection h x (q_lora_rank + head_dim) replicated; wq_b
      q_lora_rank x heads*head_dim, the grouped output projection wo_a (heads*head_dim/o_groups) x o_groups*o_lora_rank
      and wo_b o_groups*o_lora_rank x h split over TP; q/kv norms; one float32 attention sink per head;
    - a compressor on every layer with ratio > 1: float32 positional bias ratio x coff*head_dim and an unquantized
      h x 2*coff*head_dim projection (coff 2 for ratio 4, which overlaps windows), replicated;
    - ratio-4 layers add the lightning indexer: wq_b q_lora_rank x index_heads*index_head_dim (FP8), an unquantized
      h x index_heads weights projection, and its own ratio-4 compressor of index_head_dim;
    - hyper-connections: per layer two float32 mixers (2+hc)*hc x hc*h with their bases and scales; at the head
      hc x hc*h;
    - MoE on every layer: routed experts in expert_dtype, a bf16 router, a float32 score bias (a vocab x top-k int32
      hash table instead on the first num_hash_layers layers), and n_shared_experts shared experts in FP8.
    """
    t = spec.text_config

    def need(name: str) -> int:
        value = t.get(name)
        if not value:
            raise UndeterminedError("weights", f"cannot count {spec.id}'s weights: the DeepSeek-V4 config has no {name}",
                                    "give the checkpoint's own config.json, or a checkpoint folder for exact bytes")
        return int(value)

    h, nh, hd = spec.hidden_size, spec.num_attention_heads, need("head_dim")
    q_rank, o_rank, groups = need("q_lora_rank"), need("o_lora_rank"), need("o_groups")
    hc = need("hc_mult")
    e, ei, top_k = spec.num_experts or need("n_routed_experts"), spec.moe_intermediate_size or need("moe_intermediate_size"), need("num_experts_per_tok")
    expert_dtype = str(t.get("expert_dtype") or "fp4")
    if expert_dtype not in _DSV4_EXPERT_BYTES:
        raise UndeterminedError("weights", f"DeepSeek-V4 expert_dtype {expert_dtype!r}: vLLM loads fp4 or fp8 experts only",
                                "give a checkpoint whose config says expert_dtype fp4 or fp8")
    shared = int(t.get("n_shared_experts") or 0)
    n_hash = int(t.get("num_hash_layers") or 0)
    v_pad = padded_vocab(spec)
    mix, hc_dim = (2 + hc) * hc, hc * h
    comps = [Component("embed_tokens", v_pad * h, "vocab", None, False), Component("norm", h, "replicated", None, False),
             Component("hyper_connections", hc * hc_dim + hc + 1, "replicated", None, False, dtype_bytes=4)]
    if not spec.tie_word_embeddings:
        comps.append(Component("lm_head", v_pad * h, "vocab", None, False))

    def compressor(head_dim: int, ratio: int, layer: int) -> list[Component]:
        coff = 2 if ratio == 4 else 1
        return [Component("compressor", ratio * coff * head_dim, "replicated", layer, False, dtype_bytes=4),
                Component("compressor", h * 2 * coff * head_dim + head_dim, "replicated", layer, False)]

    expert_bytes = _DSV4_EXPERT_BYTES[expert_dtype]
    active = 0
    for i, layer in enumerate(spec.layers):
        comps += [Component("mla_replicated", h * (q_rank + hd), "replicated", i, True),
                  Component("self_attn", q_rank * nh * hd + (nh * hd // groups) * groups * o_rank + groups * o_rank * h, "tp", i, True),
                  Component("norm", q_rank + hd + 2 * h, "replicated", i, False),
                  Component("norm", nh, "tp", i, False, dtype_bytes=4),
                  Component("hyper_connections", 2 * (mix * hc_dim + mix + 3), "replicated", i, False, dtype_bytes=4)]
        if layer.compress_ratio > 1:
            comps += compressor(hd, layer.compress_ratio, i)
        if layer.compress_ratio == 4:
            ih, ihd = need("index_n_heads"), need("index_head_dim")
            comps += [Component("indexer", q_rank * ih * ihd, "replicated", i, True),
                      Component("indexer", h * ih, "replicated", i, False)] + compressor(ihd, 4, i)
        comps.append(Component("experts", e * 3 * h * ei, "tp", i, True, kind="experts", dtype_bytes=expert_bytes))
        comps.append(Component("router", h * e, "replicated", i, False))
        if i < n_hash:
            comps.append(Component("router", spec.vocab_size * top_k, "replicated", i, False, dtype_bytes=4))
        else:
            comps.append(Component("router", e, "replicated", i, False, dtype_bytes=4))
        if shared:
            comps.append(Component("shared_expert", 3 * h * ei * shared, "tp", i, True))
        active -= (e - top_k) * 3 * h * ei
    total = sum(c.params for c in comps)
    return WeightCount(tuple(comps), spec.dtype_bytes, active_params=total + active, num_layers=len(spec.layers),
                       notes=(f"DeepSeek-V4 counted tensor by tensor; routed experts in {expert_dtype} "
                              f"({expert_bytes:.4g} B per weight)",))


def _has_mlp(spec: ModelSpec, kinds: tuple[str, ...]) -> bool:
    """Whether a decoder layer of `kinds` (_decoder_layers) has an MLP: Nemotron-H's MLPs are layers of their own, and a
    pure Mamba model's blocks are the mixer alone (mamba.py, mamba2.py MambaDecoderLayer / Mamba2DecoderLayer: norm +
    mixer)."""
    return (spec.model_type != "nemotron_h" or "mlp" in kinds) and spec.model_type not in ("mamba", "mamba2", "falcon_mamba")


def _decoder_layers(spec: ModelSpec) -> list[tuple[str, ...]]:
    """The cache kinds of each decoder layer (Falcon-H1 layers hold attention and a mixer)."""
    pattern = str(spec.text_config.get("hybrid_override_pattern") or "")
    if spec.model_type == "nemotron_h" and pattern:
        m = {"M": ("recurrent",), "*": ("full",), "-": ("mlp",), "E": ("mlp",)}
        return [m.get(c, ("mlp",)) for c in pattern[: spec.num_layers]]
    out: list[tuple[str, ...]] = []
    i = 0
    layers = spec.layers
    while i < len(layers):
        if spec.model_type == "falcon_h1" and i + 1 < len(layers) and layers[i + 1].kind == "recurrent":
            out.append((layers[i].kind, "recurrent"))
            i += 2
        else:
            out.append((layers[i].kind,))
            i += 1
    return out


def bnb_statistics_bytes(q: QuantSpec, nested_absmax: str = "float32") -> float:
    """Bytes per weight that a bitsandbytes 4-bit weight's statistics hold once vLLM has loaded it.

    The weight itself is two 4-bit values per uint8 (BitsAndBytesLinearMethod create_weights: total_size //
    quant_ratio bytes, quant_ratio 2 for a 16-bit params_dtype; layers/quantization/bitsandbytes.py 0.6.3-0.27.0).
    One absmax per `group_size` (64) weights: float32 without double quantization; with it (q.double_quant) an 8-bit
    absmax plus a float32 nested absmax per 256 blocks while vLLM keeps them as loaded (`nested_absmax` "kept", before
    0.10.0), a float32 absmax again once vLLM dequantizes them at load ("float32", from 0.10.0; versions.py
    "bnb_nested_absmax"). The 16-value code tables, offsets and the nested 256-value code add under 2 KiB per
    matrix and are left out."""
    block = q.group_size or 64
    if q.double_quant and nested_absmax == "kept":
        return 1 / block + 4 / (block * 256)
    return 4 / block


def bytes_per_quantized_param(q: QuantSpec, bnb_nested_absmax: str = "float32") -> float:
    """Bytes one quantized linear weight takes, scales and zero points included (section 5). `bnb_nested_absmax`:
    the release's handling of bitsandbytes' double-quantized statistics (bnb_statistics_bytes)."""
    g = q.group_size
    if q.scheme.startswith("nvfp4"):
        return 0.5 + 1 / 16                          # fp8 scale per 16 values
    if q.method == "mxfp4" or q.scheme.startswith("mxfp4"):
        return 0.5 + 1 / 32                          # e8m0 scale per 32 values (gpt-oss experts; compressed-tensors W4A4)
    if q.method == "bitsandbytes":
        # 8-bit: int8 weights (Int8Params) and a float32 SCB per output row, under 0.1 % of the weight
        return 0.5 + bnb_statistics_bytes(q, bnb_nested_absmax) if q.bits == 4 else 1.0
    if q.bits == 8 and (q.method in ("fp8", "modelopt") or "fp8" in q.scheme):
        if q.weight_block:
            # Fp8LinearMethod / Fp8MoEMethod create_weights: weight_scale_inv of ceil(out / n) x ceil(in / k) float32 per
            # weight (quantization/utils/fp8_utils.py create_fp8_scale_parameter, BlockQuantScaleParameter; 0.17-0.27.1)
            return 1.0 + 4 / (q.weight_block[0] * q.weight_block[1])
        return 1.0                                   # per-tensor / per-channel scales: < 0.05 %
    if q.bits in (4, 8) and g:
        # fp16 scales per group, and packed zero points per group where the format stores them (QuantSpec.zero_points:
        # not compressed-tensors' symmetric integer weights)
        return q.bits / 8 + 2 / g + ((q.bits / 8) / g if q.zero_points else 0.0)
    if q.bits:
        return q.bits / 8
    raise UndeterminedError("quantization", f"cannot size {q.method} weights from the architecture",
                            "give a checkpoint folder or Hub id so kvplan reads the exact bytes")


# vLLM's packed_modules_mapping for the fused layers a skip list is asked about: the fused module -> the checkpoint's
# shards, each of which the list must name for the fused module to stay unquantized (quant_utils.py is_layer_skipped,
# compressed_tensors/utils.py should_ignore_layer, 0.14.1 and 0.31.0). A Gated DeltaNet layer's in_proj_a / in_proj_b
# are fused into in_proj_ba (models/qwen3_5.py packed_modules_mapping, 0.31.0; layers/mamba/gdn_linear_attn.py
# create_ba_proj): block-wise FP8 cannot convert it (its 2 x value-heads rows are no multiple of the 128-row block:
# quantization/utils/fp8_utils.py validate_fp8_block_shape; gdn_linear_attn.py "ba_proj doesn't support blockwise fp8
# quantization"), so Qwen3.5/3.6 FP8 checkpoints list in_proj_a and in_proj_b of every linear-attention layer in
# modules_to_not_convert and keep them in bfloat16, the rest of the layer in FP8.
FUSED_SHARDS = {"qkv_proj": ("q_proj", "k_proj", "v_proj"), "gate_up_proj": ("gate_proj", "up_proj"),
                "in_proj_qkvz": ("in_proj_qkv", "in_proj_z"), "in_proj_ba": ("in_proj_b", "in_proj_a"),
                # MLA with a query LoRA: models/deepseek_v2.py DeepseekV2ForCausalLM.packed_modules_mapping (0.31.0)
                "fused_qkv_a_proj": ("q_a_proj", "kv_a_proj_with_mqa")}
# where a decoder layer's modules sit in the names vLLM matches a skip list against (a text model's model.layers, a
# multimodal one's language model)
LAYER_PREFIXES = ("model.layers", "model.language_model.layers", "language_model.model.layers")
# methods whose skip list vLLM reads by containment (an entry names every module whose name holds it: "down_proj"
# names each layer's mlp.down_proj): awq.py / awq_marlin.py is_layer_skipped(skip_with_substr=True), gguf.py
# is_layer_skipped_gguf, moe_wna16.py is_layer_skipped_quant (0.14.1; auto_awq.py match_mode "substring", moe_wna16.py
# 0.31.0). The others (Fp8Config's is_layer_skipped in its "exact" mode, compressed-tensors' should_ignore_layer) ask
# for the whole name, or a "re:" pattern re.match'ed against it.
# ModelOpt's is_layer_excluded (modelopt.py, 0.14.1, 0.31.0) asks both, then reads each entry as a shell wildcard
# (fnmatch: "model.layers.0.self_attn*").
SUBSTRING_SKIP_METHODS = frozenset({"awq", "awq_marlin", "gguf", "moe_wna16", "modelopt"})
# bitsandbytes reads llm_int8_skip_modules by dotted parts: an entry names a module when it equals one part of its
# name or a leading run of them ("mlp", "vision_tower", "model.layers.3"; not "down", nor "layers.3.mlp"):
# bitsandbytes.py is_layer_skipped_bnb (0.14.1, 0.27.0)
PART_SKIP_METHODS = frozenset({"bitsandbytes"})
WILDCARD_SKIP_METHODS = frozenset({"modelopt"})
# methods whose config rewrites a trailing-wildcard entry when handed the model's hf_to_vllm_mapper
# (modelopt_exclude_split)
SPLIT_SKIP_METHODS = frozenset({"modelopt"})


def modelopt_exclude_split(patterns) -> tuple:
    """A ModelOpt exclude list as ModelOptQuantConfig.apply_vllm_mapper rewrites it (modelopt.py, 0.13.0 to 0.33.0;
    versions.py "modelopt_exclude_split"): each "X*" whose X does not end in "." becomes "X" and "X.*", so X then
    names every module whose name holds it (is_layer_excluded's containment), not only those starting with it."""
    out: list = []
    for p in patterns:
        if isinstance(p, str) and len(p) >= 2 and p[-1] == "*" and p[-2] != ".":
            out += [p[:-1], p[:-1] + ".*"]
        else:
            out.append(p)
    return tuple(out)


def splits_exclude_list(quant: QuantSpec | None, architectures, release=None, exclude_split: bool | None = None) -> bool:
    """Whether the release rewrites `quant`'s ModelOpt exclude list (modelopt_exclude_split) for a model of
    `architectures`: a list to rewrite, the release's rule (`exclude_split`: versions.py "modelopt_exclude_split" at
    `release`, the newest release kvplan knows without one), and a model class with an hf_to_vllm_mapper
    (versions.has_hf_mapper)."""
    if quant is None or quant.method not in SPLIT_SKIP_METHODS or not quant.skip:
        return False
    release = release if release is not None else versions.parse_version(versions.DEFAULT_RELEASE)
    if exclude_split is None:
        exclude_split = bool(versions.rule_at("modelopt_exclude_split", release))
    return bool(exclude_split) and versions.has_hf_mapper(architectures, release)


def quant_as_read(quant: QuantSpec | None, architectures, release=None, exclude_split: bool | None = None) -> QuantSpec | None:
    """`quant` with its skip list as the release reads it for a model of `architectures`: a ModelOpt exclude list
    rewritten by modelopt_exclude_split where the release rewrites it (splits_exclude_list). The plan, the stored
    bytes and the refusals read one checkpoint this one way."""
    return _split_skip(quant) if splits_exclude_list(quant, architectures, release, exclude_split) else quant


def _split_skip(quant: QuantSpec | None) -> QuantSpec | None:
    """`quant` with its exclude list split (modelopt_exclude_split) where its method's config splits it."""
    if quant is None or quant.method not in SPLIT_SKIP_METHODS or not quant.skip:
        return quant
    return replace(quant, skip=modelopt_exclude_split(quant.skip))


@functools.lru_cache(maxsize=64)
def _module_index(patterns: tuple[str, ...]) -> tuple[frozenset, tuple, tuple]:
    """A skip list, ignore list or targets read once: (the plain entries, the compiled "re:" patterns, the plain
    entries without a shell wildcard character: what containment can find in a module's name); a broken "re:" entry
    names nothing."""
    exact, regexes = set(), []
    for p in patterns:
        if p.startswith("re:"):
            try:
                regexes.append(re.compile(p[3:]))
            except re.error:
                continue
        else:
            exact.add(p)
    return frozenset(exact), tuple(regexes), tuple(e for e in exact if e and not any(ch in e for ch in "*?["))


@functools.lru_cache(maxsize=64)
def _wildcard_index(exact: frozenset) -> tuple[tuple[str, ...], re.Pattern | None]:
    """The plain entries holding a shell wildcard: (the leading parts of those whose one wildcard is a trailing '*', the
    rest as one pattern (fnmatch.translate of each), or None)."""
    wild = [e for e in exact if any(ch in e for ch in "*?[")]
    heads = tuple(e[:-1] for e in wild if not any(ch in e[:-1] for ch in "*?[") and e.endswith("*"))
    rest = [fnmatch.translate(e) for e in wild if not (e.endswith("*") and e[:-1] in heads)]
    return heads, re.compile("|".join(f"(?:{w})" for w in rest)) if rest else None


def names_module(patterns, name: str, *, substring: bool = False, wildcard: bool = False, parts: bool = False) -> bool:
    """Whether a list of module patterns names the module `name` ("model.layers.3.self_attn.q_proj") as vLLM reads it:
    a "re:" entry re.match'ed against the whole name (compressed_tensors/utils.py check_equal_or_regex_match, 0.14.1;
    quantization/utils/config_utils.py is_equal_or_regex_match, 0.31.0, 0.33.0), any other entry equal to it, or with
    `substring` contained in it (the methods of SUBSTRING_SKIP_METHODS), with `wildcard` matching it as a shell pattern
    (fnmatch: WILDCARD_SKIP_METHODS), with `parts` equal to one of its dotted parts or a leading run of them
    (PART_SKIP_METHODS)."""
    return _names(_index_of(patterns), name, substring, wildcard, parts)


def _index_of(patterns) -> tuple[frozenset, tuple, tuple]:
    try:
        return _module_index(tuple(patterns))
    except TypeError:  # an entry that cannot be hashed
        return _module_index(tuple(map(str, patterns)))


def _names(index: tuple[frozenset, tuple, tuple], name: str, substring: bool, wildcard: bool, parts: bool) -> bool:
    exact, regexes, plain = index
    if name in exact or any(r.match(name) for r in regexes):
        return True
    if parts:
        pieces = name.split(".")
        if not exact.isdisjoint(pieces) or not exact.isdisjoint(".".join(pieces[:i]) for i in range(1, len(pieces))):
            return True
    if substring and any(e in name for e in plain):
        return True
    if not wildcard:
        return False
    heads, rest = _wildcard_index(exact)
    return name.startswith(heads) or (rest is not None and bool(rest.match(name)))


def names_layer_module(patterns, layer: int, module: str, class_name: str = "", *, substring: bool = False,
                       wildcard: bool = False, parts: bool = False, prefixes: tuple[str, ...] = LAYER_PREFIXES) -> bool:
    """Whether `patterns` (a skip list, or a config group's targets with `class_name` given) name decoder layer
    `layer`'s `module` ("self_attn.qkv_proj") as vLLM asks: the module's own name, or every shard of a fused module
    (qkv_proj: q_proj, k_proj and v_proj), under any of LAYER_PREFIXES; a target may also name the module's class,
    which matches by containment ("Linear" names every Linear layer: compressed_tensors find_matched_target).
    `prefixes`: where the layers sit (an MTP drafter's: MTP_LAYER_PREFIXES). bitsandbytes (`parts`) asks the fused
    module's own name alone: BitsAndBytesConfig.get_quant_method hands is_layer_skipped_bnb the layer's prefix with no
    packed_modules_mapping (bitsandbytes.py, 0.14.1, 0.24.0), so q_proj, k_proj and v_proj listed apart leave qkv_proj
    quantized."""
    head, _, last = module.rpartition(".")
    shards = [] if parts else [f"{head}.{p}" if head else p for p in FUSED_SHARDS.get(last, ())]
    index, how = _index_of(patterns), (substring, wildcard, parts)
    for prefix in prefixes:
        if _names(index, f"{prefix}.{layer}.{module}", *how):
            return True
        if shards and all(_names(index, f"{prefix}.{layer}.{s}", *how) for s in shards):
            return True
    # the class name: a "re:" target re.match'ed against it, any other contained in it ignoring case
    # (compressed_tensors/utils.py find_matched_target -> _find_first_match(check_contains=True);
    # quantization/utils/config_utils.py is_equal_or_regex_match, 0.31.0)
    return bool(class_name) and (any(p.lower() in class_name.lower() for p in map(str, patterns) if not p.startswith("re:"))
                                 or any(r.match(class_name) for r in index[1]))


# where a decoder layer's parts sit in the module names vLLM hands the quantization config (the prefixes its model
# files build), by model_type prefix; the rest: attention at self_attn, the dense MLP at mlp, the MoE block (experts,
# router "gate", shared_expert) at mlp. Read in the 0.31.0 wheel: models/gpt_oss.py TransformerBlock (attn; mlp with
# router and experts), llama4.py Llama4DecoderLayer (feed_forward: the dense MLP, or Llama4MoE with router, experts and
# shared_expert), mixtral.py MixtralDecoderLayer (block_sparse_moe: gate, experts), granitemoe.py /
# granitemoehybrid.py (block_sparse_moe; the shared expert is GraniteMoeSharedMLP at shared_mlp, its Linears
# input_linear and output_linear: granitemoeshared.py, granitemoehybrid.py), laguna.py LagunaAttention (g_proj, the
# per-head output gate, beside qkv_proj and o_proj), gemma4.py Gemma4DecoderLayer (mlp, and beside it router and experts
# directly under the layer; before 0.31.0 the experts sat at moe.experts: versions.py "layer_module_paths"), jamba.py JambaAttentionDecoderLayer (qkv_proj, o_proj directly under the layer;
# feed_forward: JambaMLP or JambaMoE with router, experts), nemotron_h.py (every layer's block is its mixer: attention,
# MLP or NemotronHMoE with gate, experts, shared_experts), minimax_m2.py MiniMaxM2DecoderLayer (its block_sparse_moe
# is built with prefix "mlp"), deepseek_v2.py / qwen3_moe.py / qwen3_next.py / laguna.py (mlp: gate, experts,
# shared_expert(s)).
_LAYER_PATHS = {"gpt_oss": {"attn": "attn", "router": "mlp.router"},
                "llama4": {"mlp": "feed_forward", "moe": "feed_forward", "router": "feed_forward.router"},
                "mixtral": {"moe": "block_sparse_moe"},
                "granitemoe": {"moe": "block_sparse_moe", "shared": "shared_mlp"},
                "gemma4": {"moe": "", "router": "router"},
                "jamba": {"attn": "", "mlp": "feed_forward", "moe": "feed_forward", "router": "feed_forward.router"},
                "nemotron_h": {"attn": "mixer", "mlp": "mixer", "moe": "mixer", "mamba": "mixer"},
                "mamba2": {"mamba": "mixer", "layers": "backbone.layers"}}
# model types whose layers vLLM builds with modules of their own names, matched whole (phi is not phi3): where the
# layers sit ("layers"), the attention's fused QKV and output projections ("qkv", "o"), a two-matrix MLP's up and down
# projections ("up", "down"), as the model files name them: phi.py PhiAttention qkv_proj / dense, PhiMLP fc1 / fc2;
# gpt2.py and gpt_bigcode.py transformer.h.N.attn.c_attn / c_proj, mlp.c_fc / c_proj; starcoder2.py mlp.c_fc / c_proj;
# gpt_neox.py gpt_neox.layers.N.attention.query_key_value / dense, mlp.dense_h_to_4h / dense_4h_to_h; falcon.py and
# bloom.py transformer.h.N.self_attention.query_key_value / dense, mlp.dense_h_to_4h / dense_4h_to_h; opt.py
# model.decoder.layers.N.self_attn.qkv_proj / out_proj, fc1 / fc2 under the layer; gpt_j.py transformer.h.N.attn.qkv_proj /
# out_proj, mlp.fc_in / fc_out; mpt.py transformer.blocks.N.attn.Wqkv / out_proj, ffn.up_proj / down_proj (0.24.0 and
# 0.31.0 wheels; the releases that serve phi, gpt_neox, starcoder2, gpt_bigcode or mpt through the Transformers backend
# keep these leaf names, their prefixes not read).
_OWN_LAYER_PATHS = {
    "phi": {"o": "dense", "up": "fc1", "down": "fc2"},
    "gpt2": {"layers": "transformer.h", "attn": "attn", "qkv": "c_attn", "o": "c_proj", "up": "c_fc", "down": "c_proj"},
    "gpt_bigcode": {"layers": "transformer.h", "attn": "attn", "qkv": "c_attn", "o": "c_proj", "up": "c_fc",
                    "down": "c_proj"},
    "starcoder2": {"up": "c_fc", "down": "c_proj"},
    "gpt_neox": {"layers": "gpt_neox.layers", "attn": "attention", "qkv": "query_key_value", "o": "dense",
                 "up": "dense_h_to_4h", "down": "dense_4h_to_h"},
    "falcon": {"layers": "transformer.h", "attn": "self_attention", "qkv": "query_key_value", "o": "dense",
               "up": "dense_h_to_4h", "down": "dense_4h_to_h"},
    "bloom": {"layers": "transformer.h", "attn": "self_attention", "qkv": "query_key_value", "o": "dense",
              "up": "dense_h_to_4h", "down": "dense_4h_to_h"},
    "opt": {"layers": "model.decoder.layers", "o": "out_proj", "mlp": "", "up": "fc1", "down": "fc2"},
    "gptj": {"layers": "transformer.h", "attn": "attn", "o": "out_proj", "up": "fc_in", "down": "fc_out"},
    "mpt": {"layers": "transformer.blocks", "attn": "attn", "qkv": "Wqkv", "o": "out_proj", "mlp": "ffn"},
}


def _layer_paths(model_type: str, module_paths: tuple = ()) -> dict[str, str]:
    """Where `model_type`'s layer parts sit in the newest release, with a release's own (model_type prefix, part,
    path) rows over them (versions.py "layer_module_paths")."""
    paths = dict(_OWN_LAYER_PATHS.get(model_type) or next((v for k, v in _LAYER_PATHS.items() if model_type.startswith(k)), {}))
    paths.update({part: path for prefix, part, path, _ in module_paths if model_type.startswith(prefix)})
    return paths


def _layer_prefixes(model_type: str, module_paths: tuple = ()) -> tuple[str, ...]:
    """The prefixes `model_type`'s decoder layers sit under: its own path where vLLM builds them elsewhere
    (transformer.h, backbone.layers), else LAYER_PREFIXES."""
    own = _layer_paths(model_type, module_paths).get("layers")
    return (own,) if own else LAYER_PREFIXES


def _two_modules(name: str, kind: str, layer: int | None, model_type: str,
                 module_paths: tuple) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """A _CT_SPLIT component's two modules as component_modules names them, with the layer prefixes to ask them
    under (_layer_prefixes); None where kvplan does not map it to two modules."""
    modules = component_modules(Component(name, 0, "tp", layer, True, kind=kind), model_type, module_paths)
    return (modules, _layer_prefixes(model_type, module_paths)) if len(modules) == 2 else None


def _mapped_paths(model_type: str, module_paths: tuple) -> dict[str, str]:
    """The paths a release's model maps a checkpoint's entries from onto its own (the fourth field of a
    "layer_module_paths" row), by part."""
    return {part: old for prefix, part, _, old in module_paths if old is not None and model_type.startswith(prefix)}


def _join(*parts: str) -> str:
    return ".".join(p for p in parts if p)


def component_modules(c: Component, model_type: str = "", module_paths: tuple = ()) -> tuple[str, ...]:
    """The modules vLLM builds for a decoder-layer component of a `model_type` model, as named under its layer (the
    names a skip list is matched against: _LAYER_PATHS, with a release's `module_paths` over them); () for a component kvplan does not map to modules (it is then
    read as the LM head or not at all)."""
    if model_type.startswith("deepseek_v4"):  # its own module tree (models/deepseek_v4), not mapped here
        return ()
    paths = _layer_paths(model_type, module_paths)
    attn, mlp, moe = paths.get("attn", "self_attn"), paths.get("mlp", "mlp"), paths.get("moe", "mlp")
    if c.kind == "mla":  # MLA (models/deepseek_v2.py DeepseekV2MLAAttention, 0.31.0): q_b_proj, or q_proj without q LoRA
        return ("self_attn.q_b_proj", "self_attn.kv_b_proj", "self_attn.o_proj")
    if c.name == "mla_replicated":  # the down-projections
        return ("self_attn.fused_qkv_a_proj",) if c.kind else ("self_attn.kv_a_proj_with_mqa",)
    if c.kind == "g_proj":
        return (_join(attn, "g_proj"),)
    if c.name in ("self_attn", "kv_proj"):
        return (_join(attn, paths.get("qkv", "qkv_proj")), _join(attn, paths.get("o", "o_proj")))
    if c.name == "mlp" and c.kind == UNGATED:  # an MLP without a gate builds its up projection alone (gated_mlp)
        return (_join(mlp, paths.get("up", "up_proj")), _join(mlp, paths.get("down", "down_proj")))
    if c.name == "mlp":
        return (_join(mlp, "gate_up_proj"), _join(mlp, "down_proj"))
    if c.name == "mixer":  # a Mamba-2 mixer's projections (layers/mamba/mamba_mixer2.py MambaMixer2: in_proj, out_proj)
        return (_join(paths.get("mamba", "mamba"), "in_proj"), _join(paths.get("mamba", "mamba"), "out_proj"))
    if c.name == "experts":
        return (_join(moe, "experts"),)
    if c.name == "shared_expert":
        if "shared" in paths:
            return (f"{paths['shared']}.input_linear", f"{paths['shared']}.output_linear")
        return (_join(moe, "shared_expert.gate_up_proj"), _join(moe, "shared_expert.down_proj"))
    if c.name == "router":
        return (paths.get("router", _join(moe, "gate")),)
    if c.name == "linear_attn":
        return ("linear_attn.in_proj_ba",) if c.kind == "in_proj_ba" else ("linear_attn.in_proj_qkvz", "linear_attn.out_proj")
    return ()


def _vision_module(c: Component, model_type: str) -> str:
    """A Linear module of the vision tower as vLLM names it, for a tower component kvplan may convert (_vision_parts):
    the Qwen towers' block attention (qwen2_5_vl.py / qwen3_vl.py: visual = ...VisionTransformer(prefix "visual"),
    blocks.N.attn.qkv), Gemma 3's SigLIP attention and, for the part only bitsandbytes converts, its MLP (gemma3_mm.py
    vision_tower = SiglipVisionModel(prefix "vision_tower"), siglip.py vision_model.encoder.layers.N.self_attn.qkv_proj,
    mlp.fc1; 0.31.0). "" for the rest of the tower (no Linear layer kvplan converts)."""
    if c.kind not in ("vision_linear", "vision_linear_bnb"):
        return ""
    if model_type.startswith(_QWEN_VISION):
        return "visual.blocks.0.attn.qkv"
    leaf = "mlp.fc1" if c.kind == "vision_linear_bnb" else "self_attn.qkv_proj"
    return f"vision_tower.vision_model.encoder.layers.0.{leaf}"


# methods whose skip list vLLM asks through quant_utils.py is_layer_skipped in its "exact" mode, where a routed-experts
# module is named by any entry that holds "experts" and contains the module's name ("model.layers.3.mlp.experts.0.
# down_proj" names "model.layers.3.mlp.experts"): fp8.py Fp8Config.get_quant_method (ignored_layers_match_mode
# "exact"), modelopt.py is_layer_excluded (asks is_layer_skipped first), mxfp4.py Mxfp4Config (0.31.0)
EXPERT_ENTRY_METHODS = frozenset({"fp8", "modelopt", "mxfp4"})


@functools.lru_cache(maxsize=64)
def _expert_entries(skip: tuple[str, ...]) -> tuple[str, ...]:
    """The entries of a skip list that spell "experts" (EXPERT_ENTRY_METHODS)."""
    return tuple(e for e in skip if "experts" in e)


# where an MTP drafter's decoder layers sit in the names vLLM builds, by model_type prefix: Qwen3-Next / Qwen3.5 build
# the drafter with prefix "mtp" and its layers at "mtp.layers.N" (models/qwen3_next_mtp.py, qwen3_5_mtp.py, read in
# 0.17.1, 0.24.0, 0.29.0 and 0.31.0). Others (DeepSeek's layers past num_hidden_layers: deepseek_mtp.py) are not mapped:
# their drafter is read as the method converts it.
MTP_LAYER_PREFIXES = {"qwen3_next": ("mtp.layers",), "qwen3_5": ("mtp.layers",)}


def _module_skipped(c: Component, q: QuantSpec, model_type: str = "", module_paths: tuple = (),
                    prefixes: tuple[str, ...] = LAYER_PREFIXES) -> bool:
    """Whether the skip list names every module vLLM builds for `c` (in c's layer; a component outside the layers is
    asked at layer 0), as q.method's config asks. Routed experts are also named as their method asks of them: by every
    one of expert 0's gate_proj, up_proj and down_proj (compressed-tensors: compressed_tensors_moe.py
    CompressedTensorsMoEMethod.get_moe_method, 0.31.0), by an entry spelling "experts" that contains their name
    (EXPERT_ENTRY_METHODS); a shared expert by its plural name (DeepSeek, GLM: shared_experts)."""
    if c.name.startswith("mtp."):  # the drafter's copy of a decoder-layer component (mtp_components), its layer 0
        mtp = next((v for k, v in MTP_LAYER_PREFIXES.items() if model_type.startswith(k)), None)
        if c.name == "mtp.eh_proj":  # Qwen's drafter builds it as mtp.fc, outside the layers
            return bool(mtp) and names_module(q.skip, "mtp.fc", substring=q.method in SUBSTRING_SKIP_METHODS,
                                              wildcard=q.method in WILDCARD_SKIP_METHODS, parts=q.method in PART_SKIP_METHODS)
        return bool(mtp) and _module_skipped(replace(c, name=c.name[4:], layer=0), q, model_type, module_paths, mtp)
    modules = component_modules(c, model_type, module_paths)
    if prefixes == LAYER_PREFIXES:  # a model whose layers vLLM builds elsewhere (transformer.h, backbone.layers)
        prefixes = _layer_prefixes(model_type, module_paths)
    how = {"substring": q.method in SUBSTRING_SKIP_METHODS, "wildcard": q.method in WILDCARD_SKIP_METHODS,
           "parts": q.method in PART_SKIP_METHODS}
    if c.name == "vision":
        tower = _vision_module(c, model_type)
        return bool(tower) and names_module(q.skip, tower, **how)
    if not modules:
        return c.name == "lm_head" and names_module(q.skip, "lm_head", **how)
    layer = c.layer or 0

    def named(names) -> bool:
        return all(names_layer_module(q.skip, layer, m, **how, prefixes=prefixes) for m in names)

    if named(modules):
        return True
    if c.kind == "mla":
        return named(("self_attn.q_proj",) + modules[1:])
    if c.name == "experts":
        mapped = _mapped_paths(model_type, module_paths)
        if "moe" in mapped and named((_join(mapped["moe"], "experts"),)):  # an entry the model's mapper rewrites
            return True
        if q.method in EXPERT_ENTRY_METHODS:
            names = [f"{prefix}.{layer}.{modules[0]}" for prefix in prefixes]
            return any(n in e for e in _expert_entries(tuple(map(str, q.skip))) for n in names)
        return named(tuple(f"{modules[0]}.0.{p}" for p in ("gate_proj", "up_proj", "down_proj")))
    if c.name == "shared_expert":
        return named(tuple(m.replace("shared_expert", "shared_experts") for m in modules))
    return False


@functools.lru_cache(maxsize=8192)
def _ct_untargeted(name: str, kind: str, layer: int | None, targets: tuple[str, ...], model_type: str,
                   module_paths: tuple = ()) -> bool:
    """Whether a compressed-tensors checkpoint's config-group targets leave component `name` of a decoder layer out, so
    that vLLM builds it unquantized: CompressedTensorsConfig.get_scheme_dict asks find_matched_target (compressed_tensors/
    utils.py) for the layer's name exact or "re:" re.match'ed, a fused layer by every one of its shards
    (_match_fused_layer), or its class by containment ("Linear" names every Linear layer); no match gives no scheme and
    UnquantizedLinearMethod from 0.21.0 (0.21.0, 0.22.0, 0.23.0, 0.24.0, 0.30.0 wheels; before, find_matched_target
    raises "Unable to find matching target": versions.py ct_untargeted_unquantized). Routed experts are asked by
    expert 0's gate_proj, up_proj and down_proj with the fused-experts class, which a "Linear" target also names
    (CompressedTensorsMoEMethod.get_moe_method, _add_fused_moe_to_target_scheme_map). A component counts as targeted
    where the targets name every module vLLM builds for it; one kvplan does not map to modules is read as targeted."""
    c = Component(name, 0, "tp", layer, True, kind=kind)
    modules = component_modules(c, model_type, module_paths)
    if not modules or name.startswith("mtp.") or name == "vision":
        return False
    prefixes = _layer_prefixes(model_type, module_paths)
    i = layer or 0

    def named(names, class_name: str = "Linear", patterns: tuple[str, ...] = targets) -> bool:
        return all(names_layer_module(patterns, i, m, class_name, prefixes=prefixes) for m in names)

    if name == "experts":
        expert_targets = targets + ("FusedMoE", "RoutedExperts") if "Linear" in targets else targets
        return not named(tuple(f"{modules[0]}.0.{p}" for p in ("gate_proj", "up_proj", "down_proj")), "FusedMoE",
                         expert_targets)
    if kind == "mla" and named(("self_attn.q_proj",) + modules[1:]):
        return False
    return not named(modules)


# components whose modules vLLM asks apart, each quantized or not by its own match (get_scheme_dict per layer): the
# attention's q and o rows ("self_attn": qkv_proj's q shard and o_proj), its k and v rows ("kv_proj": qkv_proj), a dense
# or shared MLP's gate_up_proj and down_proj
_CT_SPLIT = frozenset({"self_attn", "kv_proj", "mlp", "shared_expert"})


def _ct_split(c: Component) -> bool:
    """Whether `c` is a decoder-layer component whose two modules the targets are matched against apart."""
    return c.name in _CT_SPLIT and c.kind in ("", UNGATED, LOAD_COPY) and c.layer is not None


@functools.lru_cache(maxsize=8192)
def _ct_modules_untargeted(name: str, kind: str, layer: int | None, targets: tuple[str, ...], model_type: str,
                           module_paths: tuple = (), ignore: tuple = ()) -> tuple[bool, ...]:
    """For a _CT_SPLIT component, whether the targets leave out, or the ignore list names, each module
    component_modules names for it (in that order), every one asked alone as vLLM asks it (get_scheme_dict:
    should_ignore_layer, then find_matched_target, a fused module by all its shards); () for a component asked whole
    (_ct_untargeted)."""
    if not _ct_split(Component(name, 0, "tp", layer, True, kind=kind)):
        return ()
    split = _two_modules(name, kind, layer, model_type, module_paths)
    if split is None:
        return ()
    modules, prefixes = split
    return tuple(not names_layer_module(targets, layer or 0, m, "Linear", prefixes=prefixes)
                 or (bool(ignore) and names_layer_module(ignore, layer or 0, m, prefixes=prefixes)) for m in modules)


def ct_untargeted_share(c: Component, targets: tuple[str, ...], spec: ModelSpec | None, model_type: str = "",
                        module_paths: tuple = (), ignore: tuple = ()) -> float | None:
    """The share of component `c`'s parameters that a compressed-tensors checkpoint's targets leave unquantized, where
    its modules are matched apart (_CT_SPLIT): targets naming q_proj, k_proj and v_proj but not o_proj quantize
    qkv_proj and leave o_proj in the model dtype, gate_proj and up_proj without down_proj quantize gate_up_proj alone
    (CompressedTensorsConfig.get_quant_method asks get_scheme for each Linear layer's own prefix: compressed_tensors.py
    0.10.2-0.33.0). None for a component asked whole (_ct_untargeted). The attention's o rows are nh x head_dim x
    hidden of its params (_attention_params: q_out = nh x head_dim, doubled by an output gate, plus a q bias); a gated
    MLP's down_proj is a third of it, an ungated one's half (biases not apart). `ignore`: the ignore list, which
    keeps a module it names in the model dtype the same way (an ignored o_proj or down_proj beside a quantized
    qkv_proj or gate_up_proj; should_ignore_layer asks each Linear's own prefix)."""
    try:
        out = _ct_modules_untargeted(c.name, c.kind, c.layer, targets, model_type, module_paths, tuple(map(str, ignore)))
    except TypeError:  # an entry that cannot be hashed
        out = _ct_modules_untargeted(c.name, c.kind, c.layer, targets, model_type, module_paths)
    return _split_share(c, out, spec)


def _split_share(c: Component, out: tuple[bool, ...], spec: ModelSpec | None) -> float | None:
    """The share of a _CT_SPLIT component's parameters in the modules `out` flags (component_modules' order); None
    where it is not split in two or the share cannot be sized."""
    if len(out) != 2:
        return None
    first, second = out
    if c.name == "kv_proj":  # k and v rows: qkv_proj alone
        return 1.0 if first else 0.0
    if first == second:
        return 1.0 if first else 0.0
    o_share = _second_module_share(c, spec)
    return None if o_share is None else (1 - o_share) * first + o_share * second


def skipped_share(c: Component, q: QuantSpec, spec: ModelSpec | None, model_type: str = "",
                  module_paths: tuple = ()) -> float | None:
    """The share of component `c`'s parameters a skip list keeps in the model dtype where it names one of the two
    modules vLLM builds for a _CT_SPLIT component and not the other (o_proj beside qkv_proj, down_proj beside
    gate_up_proj): every method's config asks each Linear layer's own prefix (Fp8Config / AWQ is_layer_skipped,
    BitsAndBytesConfig is_layer_skipped_bnb, ModelOpt's exclude list: get_quant_method per layer), each entry matched
    as the method matches it (names_layer_module). None where the component is not split or the list names neither
    (or both: _skipped reads the whole). compressed-tensors: ct_untargeted_share, with its targets."""
    flags = skipped_modules(c, q, model_type, module_paths)
    return _split_share(c, flags, spec) if any(flags) and not all(flags) else None


def skipped_modules(c: Component, q: QuantSpec, model_type: str = "", module_paths: tuple = ()) -> tuple[bool, ...]:
    """For a _CT_SPLIT component under a method other than compressed-tensors, whether its skip list names each of the
    two modules component_modules names for it (skipped_share); () elsewhere."""
    if not q.skip or not _ct_split(c) or q.method == "compressed-tensors":
        return ()
    try:
        return _skipped_modules_cached(c.name, c.kind, c.layer, q.method, tuple(map(str, q.skip)), model_type,
                                       module_paths)
    except TypeError:  # a module path that cannot be hashed
        return ()


@functools.lru_cache(maxsize=8192)
def _skipped_modules_cached(name: str, kind: str, layer: int | None, method: str, skip: tuple[str, ...],
                            model_type: str, module_paths: tuple) -> tuple[bool, ...]:
    split = _two_modules(name, kind, layer, model_type, module_paths)
    if split is None:
        return ()
    modules, prefixes = split
    how = {"substring": method in SUBSTRING_SKIP_METHODS, "wildcard": method in WILDCARD_SKIP_METHODS,
           "parts": method in PART_SKIP_METHODS}

    def named(m: str) -> bool:
        return (names_layer_module(skip, layer or 0, m, **how, prefixes=prefixes)
                or (name == "shared_expert"
                    and names_layer_module(skip, layer or 0, m.replace("shared_expert", "shared_experts"), **how,
                                           prefixes=prefixes)))

    return tuple(named(m) for m in modules)


def _second_module_share(c: Component, spec: ModelSpec | None) -> float | None:
    """The share of a _CT_SPLIT component's parameters in its second module (o_proj, down_proj); 0 for kv_proj."""
    if c.name == "kv_proj":
        return 0.0
    if c.name == "self_attn":
        if spec is None:
            return None
        h, gate = spec.hidden_size, 2 if attn_output_gate(spec) else 1
        bias = qkv_bias(spec)
        # params = x * (h * gate + h + (gate if bias else 0)) with x = nh * head_dim; o_proj holds x * h
        return h / (h * gate + h + (gate if bias else 0))
    return 0.5 if c.kind == UNGATED else 1 / 3


def ct_matched_target(targets: tuple[str, ...], layer: int, module: str, class_name: str = "Linear",
                      prefixes: tuple[str, ...] = LAYER_PREFIXES, fused_first: bool = True) -> str | None:
    """The target vLLM's find_matched_target picks for decoder layer `layer`'s `module`, in its order of precedence
    (compressed_tensors/utils.py, 0.10.2-0.33.0): the first target (in target_scheme_map order) naming the layer's
    name exact or "re:" re.match'ed, else the first contained in its class name ignoring case (a "re:" one re.match'ed),
    else, for a fused layer whose every shard some target names, the first target of its first shard
    (_match_fused_layer); None where none does. `fused_first`: the fused layer's shards are tried before the class
    (from 0.27.0: versions.py "ct_fused_match_first"; the default, the newest release's order)."""
    head, _, last = module.rpartition(".")
    shards = [f"{head}.{p}" if head else p for p in FUSED_SHARDS.get(last, ())]

    def first(name: str, contains: bool = False) -> str | None:
        for t in targets:
            if t.startswith("re:"):
                try:
                    if re.match(t[3:], name):
                        return t
                except re.error:
                    continue
            elif (t.lower() in name.lower()) if contains else t == name:
                return t
        return None

    def fused() -> str | None:
        for prefix in prefixes if shards else ():
            hits = [first(f"{prefix}.{layer}.{s}") for s in shards]
            if all(hits):
                return hits[0]
        return None

    for prefix in prefixes:
        hit = first(f"{prefix}.{layer}.{module}")
        if hit:
            return hit
    by_class = (lambda: first(class_name, contains=True) if class_name else None)
    return (fused() or by_class()) if fused_first else (by_class() or fused())


def ct_module_scheme(quant: QuantSpec, layer: int, module: str, class_name: str = "Linear", model_type: str = "",
                     module_paths: tuple = (), ignore: bool = True, fused_first: bool = True,
                     linear_first: bool = False) -> QuantSpec | None:
    """The scheme a compressed-tensors checkpoint builds decoder layer `layer`'s `module` with, as
    CompressedTensorsConfig.get_scheme_dict picks it (compressed_tensors.py 0.10.2-0.33.0): None where the ignore list
    names it (should_ignore_layer; `ignore` False: a release that does not ask it) or no target does; else the scheme of
    the group whose target find_matched_target picks (ct_matched_target over QuantSpec.group_schemes), `quant` itself
    where one scheme sizes every module. A fused-experts class ("FusedMoE") is also named by a "Linear" target, whose
    scheme it takes (_add_fused_moe_to_target_scheme_map). `fused_first`: the release's order (ct_matched_target).
    `linear_first`: the fused experts take a "Linear" target's scheme before any other (get_moe_method before 0.12.0:
    'if "Linear" in quant_config.target_scheme_map: matched_target = "Linear"', compressed_tensors_moe.py 0.10.2,
    0.11.0; versions.py ct_moe_ignore_read False). Without a "Linear" target those releases match the literal names
    "re:.*down_proj.*", "re:.*gate_proj.*", "re:.*up_proj.*" against the targets, not read here: the experts are
    then matched as from 0.12.0."""
    prefixes = _layer_prefixes(model_type, module_paths)
    if ignore and quant.skip and names_layer_module(tuple(map(str, quant.skip)), layer, module, prefixes=prefixes):
        return None
    schemes = dict(quant.group_schemes) if quant.group_schemes else {t: quant for t in quant.targets or ("Linear",)}
    if linear_first and class_name == "FusedMoE" and "Linear" in schemes:
        return schemes["Linear"]
    names = tuple(schemes)
    if class_name == "FusedMoE" and "Linear" in schemes:
        schemes.setdefault("FusedMoE", schemes["Linear"])
        names += ("FusedMoE",)
    t = ct_matched_target(names, layer, module, class_name, prefixes, fused_first)
    return None if t is None else schemes[t]


def ct_experts_module(model_type: str = "", module_paths: tuple = (), layer: int = 0) -> str | None:
    """The module CompressedTensorsMoEMethod.get_moe_method keeps the scheme of for a MoE layer's routed experts: expert
    0's down_proj, the last of the three projections it asks (compressed_tensors_moe.py 0.12.0-0.33.0); None for a
    model whose experts kvplan does not map to modules."""
    modules = component_modules(Component("experts", 0, "tp", layer, True, kind="experts"), model_type, module_paths)
    return f"{modules[0]}.0.down_proj" if modules else None


def _ct_grouped_bytes(c: Component, quant: QuantSpec, db: float, spec: ModelSpec | None, model_type: str,
                      module_paths: tuple, fused_first: bool = True, experts_linear: bool = False) -> float | None:
    """Bytes per parameter of component `c` under a compressed-tensors checkpoint whose config groups hold different
    schemes (QuantSpec.group_schemes): each module vLLM builds sized with the scheme of the group whose target
    find_matched_target picks for it (ct_module_scheme without the ignore list, which _skipped reads), one no target
    names in the model dtype; a _CT_SPLIT component's two modules apart, by their shares of its parameters. Routed
    experts take expert 0's down_proj's with the fused-experts class. None for a component not mapped to modules."""
    modules = component_modules(c, model_type, module_paths)
    if not modules or c.layer is None or c.name.startswith("mtp.") or c.name == "vision":
        return None

    def width(module: str, class_name: str = "Linear", ignore: bool = False) -> float:
        sp = ct_module_scheme(quant, c.layer, module, class_name, model_type, module_paths, ignore=ignore,
                              fused_first=fused_first, linear_first=experts_linear)
        return db if sp is None else bytes_per_quantized_param(sp)

    if c.name == "experts":
        return width(f"{modules[0]}.0.down_proj", "FusedMoE")
    if _ct_split(c) and len(modules) == 2:
        second = _second_module_share(c, spec)
        if second is not None:
            return ((1 - second) * width(modules[0], ignore=True)
                    + (second * width(modules[1], ignore=True) if second else 0.0))
    return width(modules[0])


def _skipped(c: Component, q: QuantSpec, model_type: str = "", module_paths: tuple = ()) -> bool:
    """Whether `q` leaves component `c` of a `model_type` model in the model dtype: a method for the experts alone
    (MXFP4) leaves the rest, a compressed-tensors checkpoint's targets leave out what they do not name (_ct_untargeted),
    and the skip list keeps what it names (_module_skipped)."""
    if q.applies_to == "experts" and c.kind != "experts":
        return True
    if (q.method == "compressed-tensors" and q.targets and not _ct_split(c)
            and _ct_untargeted(c.name, c.kind, c.layer, tuple(q.targets), model_type, module_paths)):
        return True
    if not q.skip:
        return False
    try:
        return _skipped_cached(c.name, c.kind, c.layer, q.method, q.skip, model_type, module_paths)
    except TypeError:  # an entry that cannot be hashed
        return _module_skipped(c, q, model_type, module_paths)


@functools.lru_cache(maxsize=8192)
def _skipped_cached(name: str, kind: str, layer: int | None, method: str, skip: tuple, model_type: str,
                    module_paths: tuple = ()) -> bool:
    # a checkpoint lists hundreds of modules (Qwen3-235B-A22B-FP8: 283), and a plan asks of every component per rank
    # and stage, a sweep per point: each component's answer once per list
    return _module_skipped(Component(name, 0, "tp", layer, True, kind=kind), QuantSpec(method, 0, None, "", skip),
                           model_type, module_paths)


@dataclass(frozen=True)
class RankWeights:
    """Bytes one rank holds after loading, and how they were obtained."""

    bytes: int
    exact: bool
    method: str
    rotary_bytes: int = 0
    notes: tuple[str, ...] = field(default=())
    # the busiest rank's bytes by what a decode step does with them: "streamed" (read every step: attention, dense
    # MLPs, shared experts, norms, the LM head), "experts" (routed experts: only those the batch touches are read),
    # "input_embedding" (an untied table: a lookup), "vision" (the encoder: not run in decode), "drafter" (MTP)
    by_use: tuple[tuple[str, int], ...] = ()
    # pipeline parallelism: each stage's bytes (rotary cache included), first stage first; `bytes` is their maximum
    stage_bytes: tuple[int, ...] = ()
    # a checkpoint's bytes over what its config counts (1.0 without a checkpoint): far from 1 the files and the config
    # describe different models (a partial download, a config of another size)
    checkpoint_ratio: float = 1.0
    # the busiest rank's decoder-layer parameters (what make_layers builds; None where the architecture was not
    # counted): all --cpu-offload-gb may move to CPU memory, with a tower from the releases that offload it (by_use)
    layer_bytes: int | None = None


def _round_up(x: int, a: int) -> int:
    return -(-x // a) * a


# Marlin's MXFP4 experts: the per-rank intermediate size padded to 128, the hidden size to 256
# (mxfp4_round_up_hidden_size_and_intermediate_size, fused_moe/oracle/mxfp4.py 0.19.1)
MXFP4_MARLIN_ALIGN = (128, 256)


# Marlin's fused-MoE thread tiles: the expert's per-rank intermediate size a multiple of 64 (gate_up N = 2 x I a
# multiple of 128, down K = I a multiple of 64; quantization/utils/marlin_utils.py check_moe_marlin_supports_config)
MARLIN_MOE_TILE = 64


# the group sizes Marlin's fused MoE takes (-1: per channel); check_moe_marlin_supports_config refuses any other
MARLIN_MOE_GROUPS = (-1, 32, 64, 128)


def marlin_moe_width(i_rank: int, hidden: int, group: int, checked: bool = True) -> int:
    """The per-rank intermediate size of a fused-MoE layer as the Marlin MoE weight prep holds it, from a release that
    pads (versions.py "marlin_moe_tile_pad"): `i_rank` rounded up to a multiple of lcm(64, `group`) (`group` -1 or 0:
    per channel; marlin_utils.py marlin_moe_padded_intermediate, 0.25.0-0.33.0), the weights, scales and zero points
    zero-filled to it. `checked`: the method first asks check_moe_marlin_supports_layer(allow_tile_padding=True)
    (AWQ, GPTQ, compressed-tensors WNA16), which takes the layer only with the hidden size a multiple of 128, `i_rank`
    a multiple of the group and the group one of MARLIN_MOE_GROUPS (check_moe_marlin_supports_config: supports_group_size,
    0.28.0, 0.29.0, 0.33.0 wheels); a layer it refuses runs the Moe WNA16 / non-Marlin method on the checkpoint's
    own shapes (`i_rank` returned). FP8 weight-only Marlin pads without asking (prepare_fp8_moe_layer_for_marlin)."""
    if i_rank <= 0:
        return i_rank
    if checked and (hidden % 128 or (group > 0 and i_rank % group) or (group if group > 0 else -1) not in MARLIN_MOE_GROUPS):
        return i_rank
    return _round_up(i_rank, math.lcm(MARLIN_MOE_TILE, group if group > 0 else 1))


def marlin_dense_pad(n: int, k: int, group: int) -> tuple[int, int]:
    """A dense Linear layer's per-rank (N, K) as the Marlin weight prep holds it, from a release that pads (versions.py
    "marlin_dense_tile_pad"): the cheaper (by N x K, then N + K) of N rounded up to 64 with K to lcm(128, group) and
    N to 128 with K to lcm(64, group) (`group` -1: per channel); (n, k) where they already fit a family
    (marlin_utils.py marlin_padded_nk, 0.24.0-0.33.0)."""
    g = group if group > 0 else 1
    families = ((_round_up(n, 64), _round_up(k, math.lcm(128, g))), (_round_up(n, 128), _round_up(k, math.lcm(64, g))))
    return min(families, key=lambda nk: (nk[0] * nk[1], nk[0] + nk[1]))


def _marlin_mlp_factor(params: int, hidden: int, tp: int, gated: bool, group: int | None,
                       down_group: int | None = None, widths: tuple[float, float] = (1.0, 1.0)) -> float:
    """How much a dense MLP's weights grow on the rank under dense Marlin padding (marlin_dense_pad): its gate_up (or
    up) projection N = (2) I / TP, K = H, on Marlin with `group`, and down_proj N = H, K = I / TP with `down_group`
    (None: not on Marlin, held as is); `widths`: the two modules' bytes per parameter, which weigh them where their
    schemes differ. 1.0 where the split is uneven."""
    mult = 3 if gated else 2
    width = params // (mult * hidden) if hidden else 0
    if width <= 0 or width % tp:
        return 1.0
    i_rank = width // tp
    up = ((2 if gated else 1) * i_rank, hidden)
    down = (hidden, i_rank)

    def held(nk: tuple[int, int], g: int | None) -> int:
        # a group straddling the split is no Marlin layer (MarlinLinearKernel.can_implement): its shape is held as is
        if g is None or (nk is down and 0 < g < width and i_rank % g):
            return nk[0] * nk[1]
        n, k = marlin_dense_pad(*nk, g)
        return n * k

    raw = up[0] * up[1] * widths[0] + down[0] * down[1] * widths[1]
    return (held(up, group) * widths[0] + held(down, down_group) * widths[1]) / raw


def mxfp4_moe_backend(gpu_cc: tuple[int, int] | None, hopper_backend: str = "triton",
                      marlin_forced: bool = False, triton_cc_majors: tuple[int, ...] = (),
                      triton_forced: bool = False) -> str | None:
    """The kernel family that runs MXFP4 MoE experts on a CUDA GPU (quantization/mxfp4.py get_mxfp4_backend 0.16-0.18,
    fused_moe/oracle/mxfp4.py select_mxfp4_moe_backend 0.19.1-0.34.0): "flashinfer" on Blackwell 10.x, "triton" on
    Hopper where the release ships the Triton kernels (rules mxfp4_hopper_backend) and on the compute-capability
    majors where the release puts them before Marlin (`triton_cc_majors`, rules mxfp4_triton_cc_majors: 11.x in
    0.33.0), "marlin" on every other GPU and wherever VLLM_MXFP4_USE_MARLIN=1 forces it (`marlin_forced`,
    plan.mxfp4_marlin_forced); "triton" wherever --moe-backend triton asks for it (`triton_forced`,
    plan.mxfp4_triton_forced, on the GPUs the Triton kernels take); None without a GPU.
    The weights' layout (mxfp4_expert_layout) and the experts' workspace (plan.quantized_moe_experts) both follow it."""
    if gpu_cc is None:
        return None
    if triton_forced:
        return "triton"
    if (10, 0) <= gpu_cc < (11, 0) and not marlin_forced:
        return "flashinfer"
    if gpu_cc == (9, 0) and hopper_backend == "triton" and not marlin_forced:
        return "triton"
    if gpu_cc[0] in triton_cc_majors and not marlin_forced:
        return "triton"
    return "marlin"


@dataclass(frozen=True)
class Mxfp4Layout:
    """An MXFP4 expert as the MoE backend holds it on one rank after loading (mxfp4_expert_layout)."""

    backend: str
    i_pad: int            # the expert's intermediate width on the rank as the weights are created
    h_pad: int            # the hidden size as the weights are created
    factor: float         # bytes of one expert's weights and block scales over 3 x h x i_rank x (0.5 + 1/32)
    bias_bytes: int       # bytes per element of the expert biases the backend keeps (model dtype or float32)


def mxfp4_expert_layout(spec: ModelSpec, tp: int, gpu_cc: tuple[int, int] | None, hopper_backend: str = "triton",
                        keeps_scales: bool = False, swizzle_align: int = 1, dtype_bytes: int = 2,
                        marlin_forced: bool = False, triton_cc_majors: tuple[int, ...] = (),
                        triton_forced: bool = False) -> Mxfp4Layout | None:
    """How the MXFP4 MoE backend the GPU gets lays out one expert (None without a GPU; `marlin_forced`:
    VLLM_MXFP4_USE_MARLIN=1 where the release reads it, plan.mxfp4_marlin_forced).

    Create-time padding (quantization/mxfp4.py Mxfp4MoEMethod.create_weights to 0.18; fused_moe/oracle/mxfp4.py
    mxfp4_round_up_hidden_size_and_intermediate_size from 0.19): Marlin (below SM90, SM11x but in 0.33.0, SM12x, and
    Hopper before 0.12) the per-rank intermediate size to 128 and the hidden size to 256, SM100's FlashInfer TRTLLM both
    to 256, the Triton kernels (SM90; SM11x in 0.33.0) the intermediate size to 64. Marlin repacks in place of the loaded weights, its scales back to one
    e8m0 byte per 32 (quantization/utils/marlin_utils_fp4.py prepare_moe_mxfp4_layer_for_marlin,
    mxfp4_marlin_process_scales) and its biases in the model dtype. The Triton kernels swizzle (quantization/utils/
    mxfp4_utils.py _swizzle_mxfp4; triton_kernels HopperMXValueLayout / HopperMXScaleLayout): each packed weight,
    transposed, optionally pre-padded on both dims to `swizzle_align` bytes (rules mxfp4_triton_swizzle_align), is
    padded to 16 rows x 32 bytes; each scale tensor's rows to 2 x num_warps(8) x 2 x 8 = 256 and its columns to 2; the
    loaded weights are deleted, the loaded scales kept while `keeps_scales` (rules mxfp4_triton_keeps_scales), the
    biases converted to float32 (convert_to_mxfp4_moe_kernel_format: w13_bias.to(torch.float32)).
    On compute capability 10+ (11.x where the release runs the Triton kernels there, rules mxfp4_triton_cc_majors)
    triton_kernels picks its Blackwell layouts instead (tensor_details/layout.py make_default_matmul_mxfp4_w_layout /
    _w_scale_layout, the 0.33.0 wheel's vendored copy): BlackwellMXValueLayout pads each packed weight's contiguous
    dim (h / 2 bytes of gate_up, i / 2 of down, after the transpose) to 128 bytes, BlackwellMXScaleLayout each
    transposed scale tensor's (K, N) = (columns, rows) to multiples of (8, 128).
    gpt-oss-20b on one A100 (Marlin, 2944 x 3072): 13.70 GiB (logged 13.72 by 0.19.0); on two H100s with 0.19.0
    (Triton, scales kept, 64-byte pre-pad): 6.99 GiB (logged 7.01); gpt-oss-120b on one H100 with 0.14.1 (scales
    kept, no pre-pad): 64.33 GiB (logged 64.38).
    """
    i, h = spec.moe_intermediate_size, spec.hidden_size
    i_rank = i // tp
    backend = mxfp4_moe_backend(gpu_cc, hopper_backend, marlin_forced, triton_cc_majors, triton_forced)
    if backend is None or not i_rank or not h:
        return None
    unpadded = 3 * h * i_rank * (0.5 + 1 / 32)
    if backend == "flashinfer":
        i_pad, h_pad = _round_up(i_rank, 256), _round_up(h, 256)
        return Mxfp4Layout("FlashInfer (SM100)", i_pad, h_pad, (i_pad * h_pad) / (i_rank * h), 4)
    if backend == "triton" and gpu_cc >= (10, 0):
        i_pad = _round_up(i_rank, 64)  # the create-time round-up of the Triton kernels (64), as on Hopper
        w13 = _round_up(h // 2, 128) * 2 * i_pad       # gate_up: 2 i rows of h / 2 bytes, the h / 2 dim padded
        w2 = _round_up(i_pad // 2, 128) * h             # down: h rows of i / 2 bytes
        scales = (_round_up(h // 32, 8) * _round_up(2 * i_pad, 128)
                  + _round_up(i_pad // 32, 8) * _round_up(h, 128))
        kept = (2 * i_pad * (h // 32) + h * (i_pad // 32)) if keeps_scales else 0
        what = "Triton (Blackwell layout)" + (", loaded scales kept" if keeps_scales else "")
        return Mxfp4Layout(what, i_pad, h, (w13 + w2 + scales + kept) / unpadded, 4)
    if backend == "triton":
        i_pad = _round_up(i_rank, 64)
        a = max(1, swizzle_align)

        def value(rows: int, cols: int) -> int:  # a (rows x cols)-byte weight stored transposed, then swizzled
            cols, rows = _round_up(cols, a), _round_up(rows, a)  # the pre-pad acts on the transposed tensor
            return _round_up(rows, 16) * _round_up(cols, 32)

        w13 = value(2 * i_pad, h // 2)         # gate_up: (2 i) x (h / 2) bytes
        w2 = value(h, i_pad // 2)              # down: h x (i / 2) bytes
        scales = _round_up(2 * i_pad, 256) * _round_up(h // 32, 2) + _round_up(h, 256) * _round_up(i_pad // 32, 2)
        kept = (2 * i_pad * (h // 32) + h * (i_pad // 32)) if keeps_scales else 0
        what = ("Triton (SM90)" + (", loaded scales kept" if keeps_scales else "")
                + (f", {a}-byte swizzle pre-pad" if a > 1 else ""))
        return Mxfp4Layout(what, i_pad, h, (w13 + w2 + scales + kept) / unpadded, 4)
    i_pad, h_pad = _round_up(i_rank, MXFP4_MARLIN_ALIGN[0]), _round_up(h, MXFP4_MARLIN_ALIGN[1])
    return Mxfp4Layout("Marlin", i_pad, h_pad, (i_pad * h_pad) / (i_rank * h), dtype_bytes)


def mtp_components(spec: ModelSpec, count: WeightCount) -> list[Component]:
    """The multi-token-prediction drafter, counted: per MTP layer one decoder layer shaped like the model's last
    full-attention layer, the 2H -> H projection joining the embedding and the hidden state, and its norms. DeepSeek-style
    MTP modules also hold their own embedding and LM head (vLLM's deepseek_mtp.py builds both)."""
    h, out = spec.hidden_size, []
    v_pad = padded_vocab(spec)
    if spec.compressed_attention and spec.mtp_layers:
        # DeepSeek-V4 (models/deepseek_v4/nvidia/mtp.py): a decoder layer past num_hidden_layers keeps a sliding window
        # only (no compressor, no indexer); separate e_proj and h_proj (FP8), enorm/hnorm, the head's hyper-connection
        # mixer, and its own embedding and shared head
        template = [c for c in count.components if c.layer == len(spec.layers) - 1 and c.name not in ("compressor", "indexer")]
        for _ in range(spec.mtp_layers):
            out += [replace(c, name=f"mtp.{c.name}", layer=None) for c in template]
            out += [Component("mtp.eh_proj", 2 * h * h, "replicated", None, True),
                    Component("mtp.norm", 3 * h, "replicated", None, False),
                    Component("mtp.hyper_connections", int(spec.text_config.get("hc_mult") or 4) ** 2 * h + 5, "replicated", None, False,
                              dtype_bytes=4),
                    Component("mtp.embed_tokens", v_pad * h, "vocab", None, False),
                    Component("mtp.shared_head", v_pad * h, "vocab", None, False)]
        return out
    full = [i for i, l in enumerate(spec.layers) if l.kind in ("full", "mla")]
    if not full or not spec.mtp_layers:
        return []
    template = [c for c in count.components if c.layer == full[-1]]
    # the 2H -> H projection: DeepSeek / GLM build eh_proj as a plain nn.Linear, replicated and never quantized
    # (deepseek_mtp.py, glm4_moe_mtp.py DeepSeekMultiTokenPredictorLayer / Glm4MoeMultiTokenPredictorLayer, 0.33.0);
    # Qwen3-Next / Qwen3.5 build mtp.fc as a ColumnParallelLinear split over TP with the model's quant_config
    # (qwen3_next_mtp.py 0.11.0-0.33.0, without it in 0.10.2: versions.py "mtp_fc_unquantized"; qwen3_5_mtp.py
    # 0.17.1-0.33.0), which a skip list may name (_module_skipped)
    qwen = any(spec.model_type.startswith(k) for k in MTP_LAYER_PREFIXES)
    fc = Component("mtp.eh_proj", 2 * h * h, "tp" if qwen else "replicated", None, qwen)
    for _ in range(spec.mtp_layers):
        out += [replace(c, name=f"mtp.{c.name}", layer=None) for c in template]
        out += [fc, Component("mtp.norm", 3 * h, "replicated", None, False)]
        if spec.model_type.startswith(("deepseek_v3", "deepseek_v32", "kimi_k2")):
            out += [Component("mtp.embed_tokens", v_pad * h, "vocab", None, False),
                    Component("mtp.shared_head", v_pad * h, "vocab", None, False)]
    return out


def _param_bytes_rule(quant: QuantSpec | None, db: int, bnb_nested_absmax: str = "kept", bnb_experts: bool = True,
                      model_type: str = "", module_paths: tuple = (), experts_skip: bool = True,
                      spec: ModelSpec | None = None, fused_first: bool = True, experts_linear: bool = False):
    """Bytes per parameter of a component as stored and loaded: its own dtype where the count fixes one, the
    checkpoint's per-module precision where it lists them, the quantized width where the quantization applies.
    `bnb_nested_absmax` "kept" sizes bitsandbytes statistics as a checkpoint stores them; `bnb_experts` False keeps
    MoE experts in the model dtype under bitsandbytes (releases before 0.10.0, versions.py "bnb_quantizes_experts").
    `model_type` and `module_paths` name the modules a skip list is asked about (_LAYER_PATHS). `experts_skip` False:
    the routed experts are converted whatever the skip list says (compressed-tensors before 0.12.0: versions.py
    "ct_moe_ignore_read"). `spec`: the model, which sizes the attention's o_proj rows where a compressed-tensors
    checkpoint's targets quantize qkv_proj and not o_proj, or the reverse (ct_untargeted_share). `fused_first`: the
    release's find_matched_target order (versions.py "ct_fused_match_first"), where config groups hold different
    schemes; `experts_linear`: the release builds the routed experts with a "Linear" group's scheme before any other
    (before 0.12.0: ct_module_scheme linear_first)."""
    mixed = dict(quant.module_bytes) if quant is not None else {}
    ct_targets = tuple(quant.targets) if quant is not None and quant.method == "compressed-tensors" and quant.targets else ()

    def bytes_per_param(c: Component) -> float:
        if c.dtype_bytes:
            return c.dtype_bytes
        if mixed:  # per-module precision from the checkpoint; modules it does not list stay unquantized
            return mixed.get(c.name, db)
        converted = c.quantizable or (c.kind == "vision_linear" and quant is not None and quant.applies_to == "all_linear")
        if c.kind == "vision_linear_bnb":  # Gemma 3's SigLIP MLP: converted by bitsandbytes alone (_vision_parts)
            converted = quant is not None and quant.applies_to == "all_linear" and quant.method == "bitsandbytes"
        if quant is not None and quant.method == "bitsandbytes" and c.kind == "experts" and not bnb_experts:
            converted = False
        if (quant is not None and converted
                and not ((experts_skip or c.kind != "experts") and _skipped(c, quant, model_type, module_paths))):
            qb = bytes_per_quantized_param(quant, bnb_nested_absmax)  # a method it cannot size (no bits) raises
            grouped = (_ct_grouped_bytes(c, quant, db, spec, model_type, module_paths, fused_first, experts_linear)
                       if ct_targets and quant.group_schemes else None)
            if grouped is not None:
                return grouped
            share = (ct_untargeted_share(c, ct_targets, spec, model_type, module_paths, quant.skip) if ct_targets
                     else skipped_share(c, quant, spec, model_type, module_paths))
            return qb if not share else share * db + (1 - share) * qb
        return db

    return bytes_per_param


def stored_bytes(spec: ModelSpec, release=None) -> int:
    """The checkpoint's weight bytes counted from the architecture, each tensor at its stored precision (its
    quantization applied, its skip list read as `release` reads it (quant_as_read; the newest release kvplan knows
    without one), no kernel padding, no rotary cache, no MTP layers): what a download and the disk hold."""
    count = count_weights(spec)
    at = release if release is not None else versions.parse_version(versions.DEFAULT_RELEASE)
    rule = _param_bytes_rule(quant_as_read(spec.quant, spec.architectures, release), spec.dtype_bytes,
                             model_type=spec.model_type, spec=spec,
                             fused_first=bool(versions.rule_at("ct_fused_match_first", at)))
    return int(round(sum(c.params * rule(c) for c in count.components if c.kind != LOAD_COPY)))


def weights_per_rank(spec: ModelSpec, *, tp: int = 1, pp: int = 1, quant: QuantSpec | None = None,
                     dtype_bytes: int | None = None, gpu_cc: tuple[int, int] | None = None, ep: int = 1,
                     mtp: bool = False, gpu_vendor: str = "NVIDIA", vision: bool = True, dp: int = 1,
                     mxfp4_hopper_backend: str = "triton", mxfp4_triton_cc_majors: tuple[int, ...] = (),
                     mxfp4_triton_keeps_scales: bool = False,
                     mxfp4_triton_swizzle_align: int = 1, mxfp4_marlin_forced: bool = False,
                     mxfp4_triton_forced: bool = False, mrope_cache_factor: int = 4,
                     bnb_nested_absmax: str = "float32", bnb_experts: bool = True,
                     stages: list[tuple[int, int]] | None = None, mla_kv_b_copy: bool = False,
                     module_paths: tuple = (), exclude_split: bool = False,
                     marlin_moe: tuple[int, bool] | None = None, mtp_fc_unquantized: bool = False,
                     ct_experts_ignore: bool = True, mla_absorbed: bool = False,
                     marlin_dense: int | tuple | None = None, ct_fused_first: bool = True,
                     mla_requantize: bool = True, dense_zeros_freed: bool = False,
                     redundant_experts: int = 0) -> RankWeights:
    """Weight bytes on the busiest rank (the one with the smallest KV pool).

    `redundant_experts`: EPLB's redundant physical experts (--enable-eplb). vLLM builds every MoE layer with
    E + R global (physical) experts (fused_moe/layer.py determine_expert_counts, 0.34.0; FusedMoE.__init__'s
    global_num_experts = num_experts + num_redundant_experts, 0.9.2-0.33.0), so an EP rank holds (E + R) / ep whole
    experts (EPLB refuses an uneven split) and a rank without EP all E + R, sliced by TP.

    `bnb_nested_absmax`, `bnb_experts`: the release's bitsandbytes loading (versions.py "bnb_nested_absmax",
    "bnb_quantizes_experts"); a pre-quantized checkpoint's exact bytes are what its files store, so the statistics
    vLLM widens at load are added to them.

    `module_paths`: where the release builds a layer's parts, where it differs from the newest (versions.py
    "layer_module_paths"): the names a skip list is asked about. `exclude_split`: the release rewrites a ModelOpt
    exclude list for this model (quant_as_read); the checkpoint's bytes still belong to its own quantization.

    `mla_kv_b_copy`: the release keeps, for every MLA layer whose kv_b_proj is quantized, a model-dtype copy of it
    made at load (versions.py "mla_kv_b_copy"): heads/TP x (qk_nope + v) x kv_lora_rank elements per layer and rank,
    on top of the checkpoint's bytes.

    `marlin_moe`: the routed experts run on Marlin's fused MoE in a release whose weight prep pads them
    (plan.marlin_moe_experts): (the quantization's group size, -1 per channel; whether the method checks the shape
    first), read by marlin_moe_width.

    `marlin_dense`: the dense Linear layers run on Marlin in a release whose weight prep pads them to its thread
    tiles (plan.marlin_dense_group): the quantization's group size, -1 per channel, or, for a compressed-tensors
    checkpoint whose config groups hold different schemes, (scheme, its group size or None where that scheme is not on
    Marlin) for each. The quantized dense MLPs are held padded (marlin_dense_pad), each module as its own scheme's
    kernel holds it (a compressed-tensors down_proj the ignore list or the targets leave out is not padded); the
    attention's projections, multiples of the head size, are not read.

    `mtp_fc_unquantized`: the release builds the MTP drafter's fc without the quant_config for this checkpoint
    (versions.py "mtp_fc_unquantized", "mtp_fc_nvfp4_unquantized").

    `ct_experts_ignore` False: the release builds a compressed-tensors checkpoint's routed experts with the "Linear"
    group's scheme whatever its ignore list names (versions.py "ct_moe_ignore_read", before 0.12.0); the checkpoint's
    files still hold the experts it ignored in the model dtype.

    `ct_fused_first`: the release's compressed-tensors find_matched_target tries a fused layer's shards before its
    class (versions.py "ct_fused_match_first"), which decides a fused layer's scheme where config groups differ.

    `mla_absorbed`: the release's V0 MLA backend absorbs the projections at load and keeps the products beside the
    raw weights (versions.py "mla_absorbed_weights", 0.7.1-0.7.3): for every unquantized MLA layer and rank, W_QR
    (q_in x heads/TP x qk_rope), W_Q_UK (q_in x heads/TP x kv_lora_rank) and W_UV_O (heads/TP x kv_lora_rank x
    hidden) in the model dtype, q_in being q_lora_rank or, without one, the hidden size; for every FP8 MLA layer W_QR
    in the model dtype, W_Q_UK and W_UV_O requantized to FP8 (in the model dtype where `mla_requantize` is False:
    VLLM_MLA_DISABLE_REQUANTIZATION=1) and kv_b_proj's dequantized copy (heads/TP x (qk_nope + v) x kv_lora_rank).

    `dense_zeros_freed`: the release frees the checkpoint's packed zero points of the quantized dense Linear layers
    before it measures the load (symmetric GPTQ on Marlin up to 0.33: plan.gptq_zero_points_freed, versions.py
    "gptq_marlin_zeros_kept"): those layers are held at their weights and scales alone, the routed experts keep theirs;
    a checkpoint's exact bytes lose them the same way.

    `dp`: data-parallel engines. Without expert parallelism vLLM shards a MoE model's experts over all TP x DP ranks
    (fused_moe FusedMoEParallelConfig flatten_tp_across_dp; layer.py "self.tp_size * self.dp_size" from 0.8), so each
    rank holds 1 / (TP x DP) of every expert; the rest of the model is split by TP alone.

    Exact checkpoint bytes are spread over ranks in proportion to the counted split;
    without a checkpoint the count itself is used, labelled an estimate. `mtp`: the checkpoint's
    multi-token-prediction layers are loaded too, as the speculative drafter (on the last stage).
    """
    quant = quant if quant is not None else spec.quant
    # the checkpoint's bytes are the quantization it was made with, whichever way the release reads its skip list
    checkpoint_matches = spec.checkpoint is not None and (quant is spec.quant or quant == spec.quant
                                                          or (exclude_split and _split_skip(quant) == _split_skip(spec.quant)))
    if exclude_split:
        quant = _split_skip(quant)
    db = dtype_bytes or spec.dtype_bytes
    notes: list[str] = []
    try:
        count, why = count_weights(spec), None
    except UndeterminedError as exc:
        count, why = None, exc
    rotary = _rotary_bytes(spec, db, mrope_cache_factor)
    if count is None:
        if spec.checkpoint is None:
            raise why  # the count's own reason (a config without a needed size, an architecture not counted)
        if spec.checkpoint.mtp_included and spec.mtp_layers:
            raise UndeterminedError("weights", f"the checkpoint size given for {spec.id} includes its {spec.mtp_layers} "
                                    f"MTP layer(s), which vLLM does not load without MTP speculative decoding, and "
                                    f"the architecture could not be counted to take them out ({why})",
                                    "give a checkpoint folder or Hub id (exact bytes from safetensors headers)")
        per_rank = spec.checkpoint.total_bytes / (tp * pp)
        notes.append(f"weights split evenly over {tp * pp} rank(s): the architecture could not be counted")
        return RankWeights(int(per_rank) + rotary, exact=tp * pp == 1, method=spec.checkpoint.source, rotary_bytes=rotary, notes=tuple(notes))

    # with expert parallelism each rank holds whole experts, so the kernels see the full intermediate size
    moe_tp = tp * max(1, dp)  # the experts' tensor-parallel size
    physical = (spec.num_experts or 0) + max(0, int(redundant_experts))  # EPLB's physical experts per MoE layer
    layout = (mxfp4_expert_layout(spec, 1 if ep > 1 else moe_tp, gpu_cc, mxfp4_hopper_backend,
                                  mxfp4_triton_keeps_scales, mxfp4_triton_swizzle_align, db,
                                  marlin_forced=mxfp4_marlin_forced, triton_cc_majors=mxfp4_triton_cc_majors,
                                  triton_forced=mxfp4_triton_forced)
              if quant is not None and quant.method == "mxfp4" else None)
    pad, pad_note = (layout.factor, f"MXFP4 {layout.backend}: experts held as {layout.i_pad} x {layout.h_pad} per rank "
                     f"(x{layout.factor:.4f} on their weights and scales)") if layout is not None else (1.0, "")
    if spec.compressed_attention and str(spec.text_config.get("expert_dtype") or "fp4") == "fp4":
        # every MXFP4 MoE backend of 0.33 tiles the per-rank intermediate size in multiples of at least 128, and the
        # ROCm backends by default in multiples of 256 (fused_moe/oracle/mxfp4.py,
        # mxfp4_round_up_hidden_size_and_intermediate_size)
        i_rank = spec.moe_intermediate_size // (1 if ep > 1 else moe_tp)
        tile = 256 if gpu_vendor.upper() == "AMD" else 128
        pad = _round_up(i_rank, tile) / i_rank if i_rank else 1.0
        pad_note = f"MXFP4 experts padded to {_round_up(i_rank, tile)} rows per rank (x{pad:.4f})"
    marlin_padded = False  # the pad is Marlin MoE's: it reaches quantized experts only (unquantized ones run without it)
    if layout is None and marlin_moe is not None and spec.num_experts and not spec.compressed_attention:
        # Marlin MoE pads the experts' intermediate size to its thread tiles (marlin_moe_width): the weights, scales
        # and zero points grow with it, as the MXFP4 layout's do
        i_rank = spec.moe_intermediate_size // (1 if ep > 1 else moe_tp)
        width = marlin_moe_width(i_rank, spec.hidden_size, *marlin_moe)
        if width != i_rank:
            pad, marlin_padded = width / i_rank, True
            pad_note = (f"Marlin MoE: each expert's intermediate size on the rank padded {i_rank} -> {width} to the "
                        f"kernel's thread tiles (x{pad:.4f} on the experts' weights, scales and zero points)")
    if pad_note and pad != 1.0:
        notes.append(pad_note)

    unsized = quant is not None and not quant.bits and not quant.module_bytes  # a method kvplan does not model
    # exact checkpoint bytes are spread as the unquantized count spreads them; without them nothing sizes the weights
    bytes_per_param = _param_bytes_rule(None if unsized and spec.checkpoint is not None else quant, db,
                                        bnb_nested_absmax, bnb_experts, spec.model_type, module_paths, spec=spec,
                                        fused_first=ct_fused_first, experts_linear=not ct_experts_ignore)
    # compressed-tensors before 0.12.0: every MoE layer's experts take the "Linear" group's scheme, the ignore list unread
    ct_experts_built = (quant is not None and quant.method == "compressed-tensors" and bool(quant.skip) and not unsized
                        and not ct_experts_ignore)
    if ct_experts_built:
        bytes_per_param = _param_bytes_rule(quant, db, bnb_nested_absmax, bnb_experts, spec.model_type, module_paths,
                                            experts_skip=False, spec=spec, fused_first=ct_fused_first,
                                            experts_linear=not ct_experts_ignore)
    if (quant is not None and quant.method == "compressed-tensors" and quant.group_schemes and not ct_experts_ignore
            and spec.num_experts and moe_layers(spec)):
        first_moe = min(moe_layers(spec))
        module = ct_experts_module(spec.model_type, module_paths, first_moe)
        built = named = None
        if module:
            built, named = (ct_module_scheme(quant, first_moe, module, "FusedMoE", spec.model_type, module_paths,
                                             ignore=False, linear_first=first) for first in (True, False))
        if built is not None and named is not None and built != named:
            notes.append(f"compressed-tensors before 0.12.0: the routed experts are built with the 'Linear' group's "
                         f"scheme ({built.scheme}), though another group's target names them ({named.scheme}, as the "
                         "files hold them: CompressedTensorsMoEMethod.get_moe_method reads target_scheme_map['Linear'] "
                         "first); vLLM 0.12.0 or newer builds them with their own group's")
    # symmetric GPTQ on Marlin up to 0.33: the dense layers' qzeros are replaced by an empty tensor after loading
    # (MarlinLinearKernel.process_weights_after_loading), so the measured load holds their weights and scales alone
    zeros_freed = (dense_zeros_freed and quant is not None and not unsized and quant.zero_points
                   and quant.method == "gptq")
    if zeros_freed:
        kept_rule = bytes_per_param
        freed_rule = _param_bytes_rule(replace(quant, zero_points=False), db, bnb_nested_absmax, bnb_experts,
                                       spec.model_type, module_paths, spec=spec, fused_first=ct_fused_first,
                                       experts_linear=not ct_experts_ignore)

        def bytes_per_param(c: Component) -> float:
            return kept_rule(c) if c.kind == "experts" else freed_rule(c)
    # a double-quantized bitsandbytes checkpoint stores 8-bit statistics that vLLM 0.10+ holds as float32
    bnb_widened = quant is not None and quant.method == "bitsandbytes" and quant.double_quant and bnb_nested_absmax != "kept"
    widened = bnb_widened or ct_experts_built or zeros_freed  # the loaded bytes differ from what the files hold
    as_stored = (_param_bytes_rule(quant, db, "kept" if bnb_widened else bnb_nested_absmax, bnb_experts, spec.model_type,
                                   module_paths, spec=spec, fused_first=ct_fused_first,
                                   experts_linear=not ct_experts_ignore) if widened else bytes_per_param)

    by_scheme = dict(marlin_dense) if isinstance(marlin_dense, tuple) else None
    ct_modules = quant is not None and quant.method == "compressed-tensors" and not unsized

    def mlp_marlin(c: Component) -> tuple[int | None, int | None, tuple[float, float]] | None:
        """The Marlin groups of a dense MLP's two modules (None: not on Marlin) and their bytes per parameter; None
        where no module of it is on Marlin. A compressed-tensors checkpoint's modules each by their own scheme
        (ct_module_scheme: an ignored or untargeted one is unquantized, each group's scheme its own kernel)."""
        if marlin_dense is None or c.layer is None or bytes_per_param(c) >= db:
            return None
        modules = component_modules(c, spec.model_type, module_paths)
        if not ct_modules or len(modules) != 2:
            if by_scheme is not None:
                return None
            flags = skipped_modules(c, quant, spec.model_type, module_paths) if quant is not None else ()
            if any(flags):  # a module the skip list keeps in the model dtype is no Marlin layer
                groups = [None if f else marlin_dense for f in flags]
                return (groups[0], groups[1], tuple(db if f else bytes_per_quantized_param(quant) for f in flags))
            return (marlin_dense, marlin_dense, (1.0, 1.0))
        groups, widths = [], []
        for m in modules:
            sp = ct_module_scheme(quant, c.layer, m, "Linear", spec.model_type, module_paths, fused_first=ct_fused_first)
            groups.append(None if sp is None else (marlin_dense if by_scheme is None else by_scheme.get(sp)))
            widths.append(db if sp is None else bytes_per_quantized_param(sp))
        return (groups[0], groups[1], (widths[0], widths[1])) if groups != [None, None] else None

    @functools.lru_cache(maxsize=None)
    def mlp_pad(params: int, kind: str, up: int | None, down: int | None, widths: tuple[float, float]) -> float:
        factor = _marlin_mlp_factor(params, spec.hidden_size, tp, kind != UNGATED, up, down, widths)
        if factor != 1.0:
            notes.append(f"Marlin: a dense MLP's quantized weights held padded to the kernel's thread tiles on the rank "
                         f"(marlin_padded_nk, x{factor:.4f})")
        return factor

    def params_on_rank(c: Component) -> float:
        if c.kind == "expert_bias":
            experts = math.ceil(physical / ep) if ep > 1 else physical
            if c.shard == "replicated":  # w2_bias: E x hidden (Marlin's and FlashInfer's padded hidden)
                return experts * (layout.h_pad if layout is not None else spec.hidden_size)
            width = layout.i_pad if layout is not None else spec.moe_intermediate_size / (1 if ep > 1 else moe_tp)
            return experts * 2 * width
        if c.kind == "experts":
            # expert parallel: ceil(E / ep) whole experts on the busiest rank (fused_moe determine_expert_map,
            # section 5); otherwise every expert sliced by TP. Kernel padding applies either way.
            # EPLB's redundant experts (`redundant_experts`) add whole physical experts on every rank
            share = (math.ceil(physical / ep) if ep > 1 else physical / moe_tp) / spec.num_experts
            return c.params * share * (1.0 if marlin_padded and bytes_per_param(c) >= db else pad)
        marlin = mlp_marlin(c) if c.name == "mlp" and marlin_dense is not None else None
        if marlin is not None:
            return c.params / tp * mlp_pad(c.params, c.kind, *marlin)
        if c.shard in ("tp", "vocab"):
            return c.params / tp
        if c.shard == "kv":  # KV heads are replicated when there are fewer than TP ranks
            kv_rank = heads_per_rank(spec.num_kv_heads, tp)
            return c.params * kv_rank / max(spec.num_kv_heads, 1)
        return c.params

    def bytes_of(c: Component, on_rank: bool, rule=bytes_per_param) -> float:
        if on_rank and c.kind == "expert_bias" and layout is not None:
            return params_on_rank(c) * layout.bias_bytes  # the backend's bias dtype (float32 for the Triton kernels)
        return (params_on_rank(c) if on_rank else c.params) * rule(c)

    def use_of(c: Component) -> str:
        if c.kind in ("experts", "expert_bias"):
            return "experts"
        if c.name == "embed_tokens" and not spec.tie_word_embeddings:
            return "input_embedding"
        return "vision" if c.name == "vision" else "streamed"

    # `stages`: the planner's split (plan.pp_stages: the release's rule and VLLM_PP_LAYER_PARTITION); alone, the newest rule
    if stages is None or len(stages) != pp or stages[-1][1] != count.num_layers:  # a split of other layers: not these
        stages = pp_layer_split(count.num_layers, pp)
    # the MTP layers the checkpoint ships, as the release builds them (the drafter where MTP is on)
    shipped = mtp_components(spec, count) if spec.mtp_layers else []
    if mtp_fc_unquantized:
        shipped = [replace(c, quantizable=False) if c.name == "mtp.eh_proj" else c for c in shipped]
    drafter = shipped if mtp else []
    drafter_rank = sum(bytes_of(c, True) for c in drafter)
    stage_bytes = []
    stage_widened: list[float] = []  # per stage: what loading adds to the stored bytes (bitsandbytes statistics)
    stage_uses: list[dict[str, float]] = []
    stage_layers: list[float] = []  # per stage: its decoder layers' bytes
    for s, (lo, hi) in enumerate(stages):
        total = 0.0
        layers = 0.0
        widen = 0.0
        uses: dict[str, float] = {}
        for c in count.components:
            if c.layer is None:
                if c.name == "embed_tokens" and not (s == 0 or (s == pp - 1 and spec.tie_word_embeddings)):
                    continue
                if c.name in ("lm_head", "norm") and s != pp - 1:
                    continue
                if c.name == "vision" and (s != 0 or not vision):  # text-only mode loads no vision tower
                    continue
            elif not lo <= c.layer < hi:
                continue
            b = bytes_of(c, True)
            total += b
            if c.layer is not None:
                layers += b
            use = use_of(c)
            uses[use] = uses.get(use, 0.0) + b
            if widened:
                widen += b - bytes_of(c, True, as_stored)
        stage_bytes.append(total)
        stage_layers.append(layers)
        stage_widened.append(widen)
        stage_uses.append(uses)
    if zeros_freed and any(stage_widened):
        notes.append(f"GPTQ on Marlin: the dense layers' packed zero points (qzeros) are freed after loading, before "
                     f"vLLM measures the load: {min(stage_widened) / 1024 ** 3:+.3f} GiB per rank against "
                     f"the checkpoint's tensors (MarlinLinearKernel.process_weights_after_loading; kept from 0.34.0)")
    if ct_experts_built and any(stage_widened):
        notes.append(f"compressed-tensors before 0.12.0: the routed experts its ignore list names are built with the "
                     f"'Linear' group's scheme all the same (CompressedTensorsMoEMethod.get_moe_method reads no ignore "
                     f"list): {min(stage_widened) / 1024 ** 3:+.2f} GiB per rank against the files' 16-bit experts")
    # what the files hold: a tensor vLLM copies at load from another is not in them (it scales with the checkpoint's
    # bytes like its source)
    counted_total = sum(bytes_of(c, False) for c in count.components if c.kind != LOAD_COPY)
    notes += list(count.notes)
    # MLA (vLLM's MLA attention process_weights_after_loading; versions.py "mla_kv_b_copy"): kv_b_proj is dequantized
    # (get_and_maybe_dequant_weights) to the activation dtype and kept as W_UV / W_UK_T, two views of that copy, beside
    # the quantized weight: one model-dtype kv_lora_rank x heads*(qk_nope + v) tensor per layer and rank. An
    # unquantized kv_b_proj is returned as it is (no copy).
    kv_b_copy = [0.0] * len(stages)
    if mla_kv_b_copy and spec.text_config.get("kv_lora_rank"):
        t = spec.text_config
        per_layer = (spec.num_attention_heads / tp) * (int(t.get("qk_nope_head_dim", 128)) + int(t.get("v_head_dim", 128))) \
            * int(t["kv_lora_rank"]) * db
        for s, (lo, hi) in enumerate(stages):
            kv_b_copy[s] = sum(per_layer for c in count.components
                               if c.kind == "mla" and c.layer is not None and lo <= c.layer < hi and bytes_per_param(c) < db)
        if any(kv_b_copy):
            notes.append(f"MLA: the quantized kv_b_proj dequantized at load to one model-dtype copy per layer "
                         f"(W_UV / W_UK_T): +{max(kv_b_copy) / 1024 ** 3:.2f} GiB per rank")
    # MLA in the V0 backend of 0.7.1-0.7.3 (attention/backends/mla/utils.py, MLACommonImpl.process_weights_after_loading,
    # with VLLM_MLA_PERFORM_MATRIX_ABSORPTION on by default; versions.py "mla_absorbed_weights"): W_QR, the q
    # projection's rope columns made contiguous in the model dtype, and the absorbed W_Q_UK = W_Q x W_UK and W_UV_O =
    # W_UV x W_O, kept beside q_proj / kv_b_proj / o_proj ("another copy of raw weights for prefill"), inside the load
    # vLLM measures. An unquantized layer's products are in the model dtype; an FP8 layer's (Fp8LinearMethod or
    # compressed-tensors W8A8Fp8: is_layer_fp8) are requantized to FP8 with the weights' own scale groups (a float32
    # scale per block of a block-quantized checkpoint), in the model dtype under VLLM_MLA_DISABLE_REQUANTIZATION=1
    # (`mla_requantize` False), and W_UK / W_UV stay views of kv_b_proj dequantized (get_and_maybe_dequant_weights),
    # which so stays alive in the model dtype; 0.7.3 dequantizes another quantized layer too, its products in the model
    # dtype (0.7.1 and 0.7.2 run such a model without MLA: plan.kv.runs_mla).
    if mla_absorbed and spec.text_config.get("kv_lora_rank"):
        t = spec.text_config
        heads = spec.num_attention_heads / tp
        q_in = int(t.get("q_lora_rank") or t["hidden_size"])
        rank_dim, hidden = int(t["kv_lora_rank"]), int(t["hidden_size"])
        w_qr = heads * q_in * int(t.get("qk_rope_head_dim", 64)) * db
        products = heads * rank_dim * (q_in + hidden)  # W_Q_UK (q_in x heads x rank) and W_UV_O (heads x rank x hidden)
        fp8 = quant is not None and quant.bits == 8 and (
            quant.method == "fp8" or (quant.method == "compressed-tensors" and "fp8" in str(quant.scheme or "")))
        kv_b = heads * rank_dim * (int(t.get("qk_nope_head_dim", 128)) + int(t.get("v_head_dim", 128))) * db
        # another quantized layer (AWQ, GPTQ, ...: 0.7.3's get_and_maybe_dequant_weights runs quant_method.apply on an
        # identity) keeps the products in the model dtype
        per_layer_dequant = w_qr + products * db + kv_b
        per_layer_quantized = per_layer_dequant
        if fp8:
            if mla_requantize:
                bn, bk = quant.weight_block or (0, 0)
                n = heads * rank_dim
                scales = (4 * (math.ceil(q_in / bn) * math.ceil(n / bk) + math.ceil(n / bn) * math.ceil(hidden / bk))
                          if bn and bk else 0)
                per_layer_quantized = w_qr + products + scales + kv_b
        per_layer = w_qr + products * db
        absorbed = [0.0] * len(stages)
        quantized = False
        for s, (lo, hi) in enumerate(stages):
            for c in count.components:
                if c.kind == "mla" and c.layer is not None and lo <= c.layer < hi:
                    quantized = quantized or bytes_per_param(c) < db
                    absorbed[s] += per_layer if bytes_per_param(c) >= db else per_layer_quantized
        if any(absorbed):
            kv_b_copy = [k + a for k, a in zip(kv_b_copy, absorbed)]
            what = ((("FP8 W_Q_UK and W_UV_O requantized" if fp8 and mla_requantize else "W_Q_UK and W_UV_O in the model "
                      "dtype") + " and kv_b_proj dequantized") if quantized else "W_Q_UK and W_UV_O")
            notes.append(f"MLA (V0, matrix absorption): W_QR, {what} made at load beside the raw "
                         f"projections: +{max(absorbed) / 1024 ** 3:.2f} GiB per rank")
    if checkpoint_matches:
        ckpt_bytes = spec.checkpoint.total_bytes
        if spec.is_pooling and spec.checkpoint.lm_head_bytes:
            ckpt_bytes -= spec.checkpoint.lm_head_bytes  # skipped at load by the pooling adapter
            notes.append(f"pooling model: the checkpoint's lm_head ({spec.checkpoint.lm_head_bytes / 1024 ** 3:.2f} GiB) is not loaded")
        if spec.checkpoint.mtp_included and shipped:
            # a size given for the whole checkpoint holds its MTP layers, which the target model never loads: its
            # load_weights skips them (models/qwen3_5.py and qwen3_next.py: the "mtp." prefix; deepseek_v2.py and
            # glm4_moe.py: get_spec_layer_idx_from_weight_name, layers past num_hidden_layers; 0.20.0 and 0.34.0
            # wheels); with MTP on they are loaded apart, as the drafter (counted below)
            mtp_stored = sum(bytes_of(c, False, as_stored) for c in shipped)
            if mtp_stored >= ckpt_bytes:
                raise InputError("model.weights_bytes", f"{ckpt_bytes:,} B cannot hold the checkpoint's "
                                 f"{spec.mtp_layers} MTP layer(s) ({mtp_stored:,.0f} B counted) and the model",
                                 "give the checkpoint's whole size on disk")
            ckpt_bytes -= mtp_stored
            notes.append(f"the checkpoint size given includes {spec.mtp_layers} MTP layer(s) "
                         f"({mtp_stored / 1024 ** 3:.2f} GiB counted), which the target model does not load: taken out")
        if widened:  # the files hold the stored statistics: scale those, then add what loading widens
            stored_total = sum(bytes_of(c, False, as_stored) for c in count.components if c.kind != LOAD_COPY)
            scale = ckpt_bytes / stored_total
            loaded = [(b - w) * scale + w for b, w in zip(stage_bytes, stage_widened)]
            stage_uses = [{k: v * (n / b if b else 1.0) for k, v in u.items()} for u, b, n in zip(stage_uses, stage_bytes, loaded)]
            stage_layers = [v * (n / b if b else 1.0) for v, b, n in zip(stage_layers, stage_bytes, loaded)]
            stage_bytes = loaded
            if bnb_widened:
                notes.append(f"bitsandbytes double-quantized statistics dequantized to float32 at load: "
                             f"+{max(stage_widened) / 1024 ** 3:.2f} GiB over the checkpoint's bytes per rank")
        else:
            scale = ckpt_bytes / counted_total
            stage_bytes = [b * scale for b in stage_bytes]
            stage_uses = [{k: v * scale for k, v in u.items()} for u in stage_uses]
            stage_layers = [v * scale for v in stage_layers]
        if any(kv_b_copy):  # made at load, not in the files
            stage_bytes = [b + k for b, k in zip(stage_bytes, kv_b_copy)]
            for u, k in zip(stage_uses, kv_b_copy):
                u["streamed"] = u.get("streamed", 0.0) + k
        if drafter:
            if spec.checkpoint.mtp_bytes:  # the checkpoint's own MTP tensors, split like a decoder layer
                drafter_rank = spec.checkpoint.mtp_bytes * drafter_rank / sum(bytes_of(c, False) for c in drafter)
            notes.append(f"MTP drafter: {drafter_rank / 1024 ** 3:.2f} GiB per rank "
                         f"({'from the checkpoint' if spec.checkpoint.mtp_bytes else 'counted'})")
            stage_bytes[-1] += drafter_rank
            stage_uses[-1]["drafter"] = drafter_rank
        return RankWeights(int(round(max(stage_bytes))) + rotary, exact=not drafter or bool(spec.checkpoint.mtp_bytes),
                           method=f"exact: {spec.checkpoint.source}", rotary_bytes=rotary, notes=tuple(notes),
                           by_use=_busiest_uses(stage_bytes, stage_uses),
                           stage_bytes=tuple(int(round(b)) + rotary for b in stage_bytes),
                           checkpoint_ratio=1.0 if unsized else float(scale),
                           layer_bytes=int(round(stage_layers[stage_bytes.index(max(stage_bytes))])))
    if any(kv_b_copy):
        stage_bytes = [b + k for b, k in zip(stage_bytes, kv_b_copy)]
        for u, k in zip(stage_uses, kv_b_copy):
            u["streamed"] = u.get("streamed", 0.0) + k
    if drafter:
        notes.append(f"MTP drafter: {drafter_rank / 1024 ** 3:.2f} GiB per rank (counted; last pipeline stage)")
        stage_bytes[-1] += drafter_rank
        stage_uses[-1]["drafter"] = drafter_rank
    counted_rank = max(stage_bytes)
    busiest_layers = int(round(stage_layers[stage_bytes.index(counted_rank)]))
    how = "counted from the architecture"
    if quant is not None and quant.bits:
        how += (f" with {quant.scheme} weights ({bytes_per_quantized_param(quant, bnb_nested_absmax):.4g} B per "
                "quantized weight)")
    return RankWeights(int(round(counted_rank)) + rotary, exact=False, method=f"estimate: {how}",
                       rotary_bytes=rotary, notes=tuple(notes), by_use=_busiest_uses(stage_bytes, stage_uses),
                       stage_bytes=tuple(int(round(b)) + rotary for b in stage_bytes), layer_bytes=busiest_layers)


def _busiest_uses(stage_bytes: list[float], stage_uses: list[dict[str, float]]) -> tuple[tuple[str, int], ...]:
    uses = stage_uses[stage_bytes.index(max(stage_bytes))]
    return tuple((k, int(round(v))) for k, v in sorted(uses.items()))


def pp_layer_split(n_layers: int, pp: int, *, remainder: str = "middle",
                   partition: tuple[int, ...] | None = None) -> list[tuple[int, int]]:
    """The decoder layers [lo, hi) of each pipeline stage, as vLLM's get_pp_indices splits them
    (vllm/distributed/utils.py; read in the 0.7.3, 0.8.2, 0.10.0, 0.19.1 and 0.33.0 wheels).

    `partition`: VLLM_PP_LAYER_PARTITION's layer counts, taken as given (the caller checks them against n_layers and
    pp, as get_pp_indices does). Otherwise an even split, with the n_layers % pp layers left over placed by
    `remainder` (versions.py row "pp_remainder"): "last" (0.7.3 and before: the last stage takes them all, e.g. 61
    layers on 8 stages -> 7 x 7 + 12) or "middle" (vLLM PR #13839, first in 0.8.0: one each to the stages counted
    back from the second-to-last, so the last stage, which holds the LM head, never gets one: 61 on 4 -> 15, 15, 16, 15;
    30 on 4 -> 7, 8, 8, 7). Every caller (the weights per stage, the KV layers per stage) reads this one split."""
    if partition is not None:
        sizes = list(partition)
    else:
        base, rem = divmod(n_layers, pp)
        sizes = [base] * pp
        if remainder == "last":
            sizes[-1] += rem
        else:
            for i in range(2, rem + 2):
                sizes[-i % pp] += 1
    out, lo = [], 0
    for size in sizes:
        out.append((lo, lo + size))
        lo += size
    return out


_SPLIT_LIMIT, _ROUND = 20 * 1024 ** 2, 2 * 1024 ** 2
# PyTorch's caching allocator (c10/cuda/CUDACachingAllocator.cpp): a request of more than 1 MiB (kSmallSize) comes from
# the large pool, and one of 10 MiB (kMinLargeAlloc) or more gets a new segment rounded up to 2 MiB (kRoundLarge); the
# block is split only when what remains is more than 1 MiB (should_split), so a rest of 1 MiB or less stays in the
# block and counts as allocated
_MIN_LARGE_ALLOC, _SMALL_SIZE, _MIN_BLOCK = 10 * 1024 ** 2, 1024 ** 2, 512


def allocator_rounding_bytes(spec: ModelSpec, *, tp: int = 1, dtype_bytes: float = 2, ep: int = 1, dp: int = 1,
                             split_limit: bool = True, embed_bytes: int | None = None,
                             expandable_segments: bool = False, redundant_experts: int = 0) -> int:
    """What PyTorch's caching allocator adds to "Model loading took" per rank: the part of its 2 MiB-rounded block a
    large weight tensor keeps. Counted for the fused tensors vLLM builds, in `dtype_bytes`: qkv_proj (with Qwen's
    output gate, qwen3_next.py Qwen3NextAttention), o_proj, gate_up_proj and down_proj on every layer with an MLP, the
    experts' w13 and w2, a Gated DeltaNet layer's in_proj_qkvz, in_proj_ba and out_proj (layers/mamba/gdn_linear_attn.py),
    the embedding and an untied lm_head (none in a pooling model), which an FP8 checkpoint keeps in `embed_bytes`.

    Every release: a tensor of 10 MiB or more whose rounding leaves 1 MiB or less keeps that rest. Qwen3.5-27B at TP4:
    gate_up (85 MiB) on 64 layers, qkv (35 MiB) and o_proj (15 MiB) on 16, out_proj (15 MiB) on 48 keep 1 MiB each,
    144 MiB per rank (vLLM 0.19.0 logged 13.01 GiB for 12.86 of parameters and rotary cache); Qwen2.5-14B: 48
    down_proj (135 MiB), the embedding and lm_head (1,485 MiB) keep 1 MiB each (0.7.2 to 0.11.2 logged 27.5681 GiB,
    27.5192 counted without).
    `split_limit` (vLLM >= 0.21 loads weights under a 20 MiB max_split_size, gpu_worker.py _scoped_allocator_max_split):
    a tensor of 20 MiB or more is never split, so its whole rounding counts. Qwen2.5-1.5B: 28 x (1.5 + 1.75) MiB more
    (logged 2.98 GiB against 2.88 of parameters with 0.30 and 0.31). Llama-3.1-8B: 0 (every tensor a multiple of 2 MiB).
    Tensors of 1-10 MiB share 20 MiB segments and are not counted.
    AWQ and GPTQ checkpoints: the linear weights' `dtype_bytes` is bits / 8 (int32-packed INT4 / INT8), the embedding
    and lm_head in `embed_bytes`; the Marlin repack keeps the sizes (see plan.planner). Qwen2.5-7B AWQ: 28 x (gate_up
    64.75 MiB + 1.25, down 32.375 MiB + 1.625) + 2 x 0.5 = 81.5 MiB from 0.21 (0.22.1, 0.26.0 and 0.31.0 logged 5.29
    GiB for 5.20 of parameters and rotary cache).
    `expandable_segments` (PYTORCH_CUDA_ALLOC_CONF / PYTORCH_ALLOC_CONF expandable_segments:True): the allocator
    splits a block whenever the rest is 512 B (kMinBlockSize) or more, whatever max_split_size says
    (c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::should_split), and allocated_bytes, which
    torch.cuda.max_memory_allocated and so "Model loading took" read, counts the block's size: the request rounded up
    to 512 B only (round_size). The 2 MiB rests are not counted; what a tensor keeps is under 512 B."""
    def pad(nbytes: float) -> int:
        nbytes = int(nbytes)
        if expandable_segments:
            return (-nbytes) % _MIN_BLOCK if nbytes >= _MIN_LARGE_ALLOC else 0
        rest = (-nbytes) % _ROUND
        if split_limit and nbytes >= _SPLIT_LIMIT:
            return rest
        return rest if nbytes >= _MIN_LARGE_ALLOC and rest <= _SMALL_SIZE else 0

    h, b = spec.hidden_size, dtype_bytes
    v_pad = padded_vocab(spec)
    total = pad(v_pad / tp * h * (embed_bytes or b)) * (1 if spec.tie_word_embeddings or spec.is_pooling else 2)
    moe = moe_layers(spec)
    physical = (spec.num_experts or 0) + max(0, int(redundant_experts))  # EPLB's redundant experts (weights_per_rank)
    gate = 2 if attn_output_gate(spec) else 1
    for i, kinds in enumerate(_decoder_layers(spec)):
        if any(k in ("full", "sliding", "chunked") for k in kinds):
            layer = _attention_layer_of(spec, i)
            heads = layer_attention_heads(spec, i)
            q_rank = heads * layer.head_dim / tp
            kv_rank = heads_per_rank(layer.num_kv_heads, tp) * layer.head_dim
            total += pad((gate * q_rank + 2 * kv_rank) * h * b) + pad(q_rank * h * b)
            g_out = head_gate_width(spec, heads, layer.head_dim)
            total += pad(g_out / tp * h * b) if g_out else 0
        rec = next((l.recurrent for l in spec.layers if l.recurrent), None) if "recurrent" in kinds else None
        if rec is not None and rec.kind == "gdn":
            key, val = rec.key_heads * rec.key_head_dim, rec.n_heads * rec.head_dim
            total += pad((2 * key + 2 * val) / tp * h * b) + pad(2 * rec.n_heads / tp * h * b) + pad(val / tp * h * b)
        if i in moe and spec.moe_intermediate_size:
            experts = math.ceil(physical / ep) if ep > 1 else physical
            inter = spec.moe_intermediate_size if ep > 1 else spec.moe_intermediate_size / (tp * max(1, dp))
            total += pad(experts * 2 * inter * h * b) + pad(experts * inter * h * b)
        elif spec.intermediate_size and _has_mlp(spec, kinds):
            total += pad(2 * spec.intermediate_size / tp * h * b) + pad(spec.intermediate_size / tp * h * b)
    return total


def _rotary_bytes(spec: ModelSpec, dtype_bytes: int, mrope_cache_factor: int = 4) -> int:
    """The rotary cos/sin cache: max_position x rotary_dim in the model dtype (section 5).

    Llama-3.1-8B: 131,072 x 128 x 2 B = 32 MiB, which is why vLLM logs 14.9888 GiB for
    14.9575 GiB of parameters. A multimodal rotary embedding (rope parameters with an mrope_section: Qwen2-VL and
    later Qwen VL models, Qwen3.5/3.6) holds `mrope_cache_factor` times the positions, for video positions beyond
    max_position (layers/rotary_embedding/mrope.py MRotaryEmbedding: cache_max_position_num = max_position_embeddings
    * 4, from vLLM 0.7.2; 0.7.1 has none, rule mrope_cache_factor). Qwen3.5-27B: 4 x 262,144 x 64 x 2 B = 128 MiB.
    """
    t = spec.text_config
    if all(l.kind in ("recurrent", "none") for l in spec.layers):
        return 0
    if spec.model_type in LEARNED_POSITION_TYPES:  # learned positions (wpe), no get_rope
        return 0
    if spec.model_type == "granitemoehybrid" and t.get("position_embedding_type") != "rope":
        # Granite 4.0 hybrids' attention is NoPE: GraniteMoeHybridAttention builds get_rope only `if
        # config.position_embedding_type == "rope"`, else rotary_emb = None (models/granitemoehybrid.py, 0.9.0.1,
        # 0.19.1, 0.31.0 and 0.33.0); transformers' GraniteMoeHybridConfig defaults the field to None
        return 0
    if spec.model_type == "gpt_oss":
        # gpt-oss builds its rotary embedding in float32 whatever the model dtype: get_rope(..., dtype=torch.float32)
        # (models/gpt_oss.py OAIAttention, 0.10.1.1, 0.16.0, 0.19.0, 0.22.0, 0.33.0); YaRN caches
        # original_max_position x factor rows (131,072 x 64 x 4 B = 32 MiB)
        dtype_bytes = 4
    if spec.model_type.startswith("gemma4"):
        return _gemma4_rotary_elements(spec) * dtype_bytes
    rope = rope_params(t)
    partial = float(t.get("partial_rotary_factor") or rope.get("partial_rotary_factor") or 1.0)
    if spec.uses_mla:
        rot = int(t.get("qk_rope_head_dim", 64))
    else:
        rot = int(t.get("rotary_dim") or spec.head_dim * partial)
    max_pos = int(spec.max_position_embeddings or 0)
    if rope.get("rope_type") in ("yarn", "longrope") and rope.get("original_max_position_embeddings"):
        max_pos = max(max_pos, int(rope["original_max_position_embeddings"] * float(rope.get("factor", 1))))
    if rope.get("mrope_section"):
        max_pos *= mrope_cache_factor
    scaling = rope
    if rope and all(isinstance(v, dict) for v in rope.values()):  # transformers 5: one rope per layer type
        scaling = rope.get("full_attention") if isinstance(rope.get("full_attention"), dict) else {}
    kind = str(scaling.get("rope_type") or scaling.get("type") or "default")
    rows = max_pos
    if kind == "linear" and scaling.get("factor"):
        # LinearScalingRotaryEmbedding._compute_cos_sin_cache builds max_position x factor rows ("the maximum length
        # after applying the rope scaling"), read in layers/rotary_embedding.py 0.6.4-0.9.x and
        # layers/rotary_embedding/linear_scaling_rope.py 0.10-0.33. Gemma 3 4B/12B (factor 8, head 256): 512 MiB.
        rows = int(max_pos * float(scaling["factor"]))
    total = rows * rot
    if _gemma3_local_rope_apart(spec, t, scaling, kind):
        # Gemma 3's sliding layers build their own rotary embedding: rope_type default at rope_local_base_freq (10,000)
        # where the global layers take the config's rope (linear x8 at 1e6), so get_rope's cache (keyed by the rope
        # parameters) holds two: models/gemma3.py Gemma3Attention.__init__ (0.8.2-0.19.0: "Local attention. Override
        # the values in config.json"; 0.33.0: config.rope_parameters[layer_type]). The local one is max_position rows.
        total += max_pos * rot
    return total * dtype_bytes


def _gemma4_rotary_elements(spec: ModelSpec) -> int:
    """Gemma 4's rotary caches: one per distinct rope its attention layers ask for, max_position rows each.

    models/gemma4.py Gemma4Attention (0.19.0, 0.20.0, 0.22.0, 0.25.1, 0.33.0 wheels) calls get_rope with the layer's
    own head size (global_head_dim on full-attention layers, head_dim on sliding ones) and its layer type's
    rope_parameters (legacy configs: the one rope, at rope_local_base_freq on sliding layers); get_rope keeps one
    embedding per (head size, rotary dim, max_position, parameters) (layers/rotary_embedding/__init__.py _ROPE_DICT).
    Rotary dim is head size x partial_rotary_factor, except for "proportional" rope (the global layers'), whose
    Gemma4RotaryEmbedding passes the whole head size as rotary dim and pads the unrotated angles with zero
    frequencies (rotary_embedding/gemma4_rope.py: "rotary_dim = head_size (full application)"): its cache is
    max_position x head size. Gemma-4-26B-A4B: 262,144 x (256 + 512) elements, 0.375 GiB in bfloat16 (one 256-wide
    cache counted before: 0.125 GiB)."""
    t = spec.text_config
    nested = t.get("rope_parameters")
    per_type = isinstance(nested, dict) and bool(nested) and all(isinstance(x, dict) for x in nested.values())
    flat = rope_params(t) if not per_type else {}
    max_pos = int(spec.max_position_embeddings or 0)
    full_dim = int(t.get("global_head_dim") or spec.head_dim)
    seen: set[tuple] = set()
    total = 0
    for layer in spec.layers:
        if layer.kind not in ("full", "sliding"):
            continue
        head = full_dim if layer.kind == "full" else int(t.get("head_dim") or spec.head_dim)
        key_type = "full_attention" if layer.kind == "full" else "sliding_attention"
        if per_type and isinstance(nested.get(key_type), dict):
            params = dict(nested[key_type])
        else:
            params = dict(flat)
            if layer.kind == "sliding":
                params["rope_theta"] = t.get("rope_local_base_freq", 10000.0)
        kind = str(params.get("rope_type") or params.get("type") or "default")
        partial = float(params.get("partial_rotary_factor") or 1.0)
        rot = head if kind == "proportional" else int(head * partial)
        key = (head, rot, tuple(sorted((k, str(x)) for k, x in params.items())))
        if key not in seen:
            seen.add(key)
            total += max_pos * rot
    return total


def _gemma3_local_rope_apart(spec: ModelSpec, text: dict, rope: dict, kind: str) -> bool:
    """Whether a Gemma 3 model's sliding layers hold a rotary cache of their own (their rope differs from the global
    layers'). Gemma 3n and Gemma 4 build theirs in other model files and are not counted here."""
    if spec.model_type not in ("gemma3", "gemma3_text") or not any(l.kind == "sliding" for l in spec.layers):
        return False
    nested = text.get("rope_parameters")
    local = nested.get("sliding_attention") if isinstance(nested, dict) else None
    if not isinstance(local, dict):  # transformers 4: the local base beside the global rope (default 10,000)
        local = {"rope_type": "default", "rope_theta": text.get("rope_local_base_freq", 10000.0)}
    glob = nested.get("full_attention") if isinstance(nested, dict) and isinstance(nested.get("full_attention"), dict) else rope
    local_kind = str(local.get("rope_type") or local.get("type") or "default")
    theta = glob.get("rope_theta", text.get("rope_theta", 1000000.0))
    return local_kind != kind or float(local.get("rope_theta", 10000.0)) != float(theta)


def kv_dtype_bytes(kv_cache_dtype: str, model_dtype: str) -> int:
    """Bytes per KV element: 'auto' is the model dtype; fp8 variants are stored as uint8 (section 3.1)."""
    if kv_cache_dtype in ("auto", None):
        return DTYPE_BYTES[model_dtype]
    return DTYPE_BYTES[kv_cache_dtype]


# ---- LoRA buffers


def lora_buffer_bytes(spec: ModelSpec, *, max_loras: int, max_lora_rank: int, dtype_bytes: int, tp: int = 1,
                      fully_sharded: bool = False, extra_vocab: int = 0, moe_lora: bool = True,
                      embedding: bool = True, lm_head: bool = True, targets: frozenset | None = None, ep: int = 1,
                      moe_fully_sharded: bool = False) -> int:
    """GPU bytes of the LoRA slots vLLM allocates when --enable-lora is set, on one rank.

    vLLM wraps every supported linear layer (not only an adapter's targets) and the embedding and lm_head, and
    allocates max_loras slots of max_lora_rank for each at startup, inside "Model loading took" (vllm/lora/layers,
    model_manager._create_lora_modules, read in the 0.10-0.33 wheels):
      column-parallel (qkv, gate_up): A (R x in) per slice, B (out_slice / TP x R);
      row-parallel (o_proj, down): A (R x in / TP), B (out x R);  --fully-sharded-loras also splits A of a column
      layer and B of a row layer by TP;  embedding A (vocab + extra x R), B (hidden x R); lm_head A (R x hidden),
      B (vocab x R), neither split by TP;  a MoE layer (0.11.1 and later) R x 3 x (hidden + intermediate / TP) per
      local expert (lora/layers/fused_moe.py _create_lora_a_weights / _create_lora_b_weights: w13 A and B, w2 A and
      B): with expert parallelism (`ep` ranks, 0.21.0+) each rank holds E / ep experts at the whole intermediate size,
      and `moe_fully_sharded` (--fully-sharded-loras from 0.12.0) splits w13's A by rank and w2's B by hidden over TP.
      Up to 0.11 an extra vocabulary (default 256) adds its rows and embeddings.
    `embedding` / `lm_head` False: the model class lists no embed_tokens / lm_head in its embedding_modules, so
    neither is wrapped nor grown by the extra vocabulary (lora_embedding_modules). `targets`: the LORA_MODULES kinds
    --lora-target-modules leaves wrapped (lora_target_kinds), None for all.
    """
    if any(l.kind not in ("full", "sliding", "chunked", "none") for l in spec.layers):
        kinds = sorted({l.kind for l in spec.layers} - {"full", "sliding", "chunked", "none"})
        raise UndeterminedError("--enable-lora", f"LoRA buffers of {', '.join(kinds)} layers are not counted by kvplan",
                                "plan without --enable-lora, or give the LoRA memory as --overhead-gb in the simple mode")
    h, r = spec.hidden_size, max_lora_rank
    a_col = r // tp if fully_sharded else r
    on = (lambda kind: True) if targets is None else targets.__contains__
    embedding, lm_head = embedding and on("embed_tokens"), lm_head and on("lm_head")
    per_layer = 0
    moe = moe_layers(spec)
    gated = gated_mlp(spec)
    for i, layer in enumerate(spec.layers):
        if layer.kind == "none":
            continue
        q = layer_attention_heads(spec, i) * layer.head_dim
        kv_rank = heads_per_rank(layer.num_kv_heads, tp) * layer.head_dim
        if on("qkv_proj"):
            per_layer += 3 * a_col * h + r * (q // tp + 2 * kv_rank)                   # qkv
        if on("o_proj"):
            per_layer += r * q // tp + (h // tp if fully_sharded else h) * r            # o_proj
        if i in moe:
            if moe_lora and on("experts"):
                # experts sliced by TP: every rank holds all of them, intermediate / TP; under EP E / ep of them, whole
                local = spec.num_experts // ep if ep > 1 else spec.num_experts
                inter = spec.moe_intermediate_size if ep > 1 else spec.moe_intermediate_size // tp
                split = fully_sharded and moe_fully_sharded
                per_layer += local * (2 * (r // tp if split else r) * h + r * inter      # w13 A, w2 A
                                      + 2 * inter * r + (h // tp if split else h) * r)   # w13 B, w2 B
            # the router, a ReplicatedLinear hidden -> experts (GateLinear, its subclass, in 0.33.0) that every release
            # wraps as it wraps any Linear (ReplicatedLinearWithLoRA: A rank x hidden, B experts x rank, whole on each
            # rank; models/qwen3_moe.py 0.10.2, 0.12.0, 0.20.0, 0.33.0, llama4.py "router" 0.33.0)
            if on("gate"):
                per_layer += r * (h + spec.num_experts)
            shared = spec.shared_expert_intermediate_size
            if shared:  # the shared expert: a gated MLP of Linear layers, split over TP like a dense one
                if on("gate_up_proj"):
                    per_layer += 2 * a_col * h + r * 2 * shared // tp
                if on("down_proj"):
                    per_layer += r * shared // tp + (h // tp if fully_sharded else h) * r
        elif spec.intermediate_size:
            inter = spec.intermediate_size
            slices = 2 if gated else 1
            if on("gate_up_proj"):
                per_layer += slices * a_col * h + r * slices * inter // tp                # gate_up
            if on("down_proj"):
                per_layer += r * inter // tp + (h // tp if fully_sharded else h) * r      # down
    vocab = spec.vocab_size
    extra_vocab = extra_vocab if embedding or lm_head else 0
    embed = (vocab + extra_vocab) * r + h * r if embedding else 0
    head_vocab = math.ceil((vocab + extra_vocab) / 256) * 256 if extra_vocab else vocab  # padded to 256 on CUDA
    head = r * h + head_vocab * r if lm_head else 0
    extra = (int(embedding) + int(lm_head)) * extra_vocab * h  # the extra-vocabulary embeddings of the two wrappers
    # with an extra vocabulary the model's own embedding grows by extra x max_loras rows and its lm_head by extra rows
    base_growth = extra_vocab * h * (max_loras + (0 if spec.tie_word_embeddings else 1))
    return int((max_loras * (per_layer + embed + head + extra) + base_growth) * dtype_bytes)


# The modules lora_buffer_bytes counts, by vLLM's module name, with the adapter-side names a packed one stands for
# (the models' packed_modules_mapping: qkv_proj <- q_proj, k_proj, v_proj; gate_up_proj <- gate_proj, up_proj)
LORA_MODULES = {"qkv_proj": ("q_proj", "k_proj", "v_proj"), "o_proj": (), "gate_up_proj": ("gate_proj", "up_proj"),
                "down_proj": (), "experts": (), "gate": (), "embed_tokens": (), "lm_head": ()}
# the MoE router's module name where a model calls it otherwise (Llama 4's feed_forward.router)
_LORA_ALIASES = {"router": "gate"}


def lora_target_kinds(names, packed_children: bool) -> tuple[frozenset, tuple[str, ...]]:
    """(kinds, unmatched): the LORA_MODULES kinds --lora-target-modules `names` leave wrapped, and the names that wrap
    nothing. vLLM matches a module by its name's last part (lora/utils.py is_in_target_modules, 0.19.0), and from 0.20.0
    a packed module by any of its children's names too (`packed_children`, rules row lora_target_packed; 0.20.0 and
    0.33.0 wheels): before, q_proj or gate_proj wrap nothing. A name kvplan counts no module by is refused, naming the
    ones it does."""
    kinds, unmatched = set(), []
    children = {c for cs in LORA_MODULES.values() for c in cs}
    for name in names:
        last = name.rsplit(".", 1)[-1]
        last = _LORA_ALIASES.get(last, last)
        hit = [k for k, cs in LORA_MODULES.items() if last == k or (packed_children and last in cs)]
        if not hit and last in children:
            unmatched.append(name)
        elif not hit:
            raise InputError("--lora-target-modules", f"{name!r} names no module whose LoRA slots kvplan counts",
                             f"use vLLM's module names: {', '.join(LORA_MODULES)}"
                             + (" (or q_proj, k_proj, v_proj, gate_proj, up_proj)" if packed_children else ""))
        kinds.update(hit)
    return frozenset(kinds), tuple(unmatched)


def lora_embedding_modules(spec: ModelSpec, rules) -> tuple[bool, bool]:
    """(embedding, lm_head): whether vLLM's class for the model wraps its embedding and its lm_head with LoRA slots
    (rules row lora_embedding_archs, versions.LORA_EMBEDDING_ONLY_ARCHS)."""
    from kvplan.versions import LORA_EMBEDDING_ONLY_ARCHS

    archs = set(spec.architectures or ())
    embedding = bool(archs & rules.lora_embedding_archs)
    return embedding, embedding and not archs <= LORA_EMBEDDING_ONLY_ARCHS


def eagle_aux_states(draft: ModelSpec) -> int:
    """How many of the target's hidden states an EAGLE-3 head's fc reads (0 when it reads none): the config's
    num_aux_hidden_states, else its eagle_config's eagle_aux_hidden_state_layer_ids, else 3; 0 with eagle_config
    use_aux_hidden_state false (model_executor/models/llama_eagle3.py LlamaModel.__init__, 0.19.0 and 0.33.0)."""
    raw = draft.raw_config or draft.text_config
    eagle = raw.get("eagle_config") if isinstance(raw.get("eagle_config"), dict) else {}
    if eagle.get("use_aux_hidden_state") is False:
        return 0
    n = raw.get("num_aux_hidden_states")
    if isinstance(n, int) and n > 0:
        return n
    ids = eagle.get("eagle_aux_hidden_state_layer_ids")
    return len(ids) if ids else 3


def draft_vocab_size(draft: ModelSpec) -> int:
    """An EAGLE-3 head's output vocabulary: its config's draft_vocab_size, else the full vocabulary."""
    raw = draft.raw_config or draft.text_config
    v = raw.get("draft_vocab_size") or draft.text_config.get("draft_vocab_size")
    return int(v) if isinstance(v, int) and v > 0 else draft.vocab_size


def drafter_weights(draft: ModelSpec, target: ModelSpec, method: str, *, tp: int, pp: int, dtype_bytes: int,
                    **rank_kwargs) -> tuple[int, list[tuple[str, int]], list[str]]:
    """The speculative drafter's bytes on one rank (the last pipeline stage's), its parts and notes.

    Loaded inside load_model's memory profiler, so part of "Model loading took" (v1/worker/gpu_model_runner.py
    load_model; v1/worker/gpu/model_runner.py in model runner v2; 0.19.0 and 0.33.0), at the target's TP and dtype:
    - "draft_model": the whole small model, sharing nothing with the target (v1/spec_decode/draft_model.py
      DraftModelProposer._maybe_share_embeddings / _maybe_share_lm_head are no-ops).
    - "eagle" (model_executor/models/llama_eagle.py): num_hidden_layers Llama decoder layers (the first without its
      input norm) and fc (2H -> H, ReplicatedLinear: whole on every rank); no lm_head of its own (the target's is shared).
    - "eagle3" (llama_eagle3.py): the first layer's qkv_proj reads 2H (embeddings and hidden state), every layer
      has a hidden_norm, fc reads num_aux x target_hidden_size (ReplicatedLinear), a final norm, its own lm_head of
      draft_vocab_size rows (vocab-parallel, padded to 64) and d2t (draft_vocab_size int64) when that vocabulary
      differs from the target's; t2d is skipped on load.
    - embed_tokens: the target's is shared on a single pipeline stage (v1/spec_decode/llm_base_proposer.py
      _maybe_share_embeddings: the head's own table is deleted when the checkpoint ships none or an identical copy,
      which kvplan assumes); with PP > 1 the head keeps its own. The same sharing (and eagle3's own lm_head, eagle's
      shared one) is in v1/spec_decode/eagle.py EagleProposer.load_model of 0.9.0, 0.13.0 and 0.19.0.
    """
    if method == "draft_model":
        w = weights_per_rank(draft, tp=tp, pp=1, dtype_bytes=dtype_bytes if not draft.checkpoint else None, **rank_kwargs)
        same_rope = (draft.head_dim, draft.max_position_embeddings, rope_params(draft.text_config),
                     draft.text_config.get("rope_theta")) == (target.head_dim, target.max_position_embeddings,
                                                             rope_params(target.text_config), target.text_config.get("rope_theta"))
        if same_rope and w.rotary_bytes:
            # get_rope caches one rotary embedding per distinct (head size, rotary dim, max position, base, scaling,
            # dtype) in _ROPE_DICT (model_executor/layers/rotary_embedding/__init__.py, 0.19.0 and 0.33.0): a draft
            # model of the target's rope shares its cos/sin cache
            return (w.bytes - w.rotary_bytes, [("draft model", w.bytes - w.rotary_bytes)],
                    [f"draft model {draft.id}: {w.method}; its rotary cache is the target's (same rope)"])
        return w.bytes, [("draft model", w.bytes)], [f"draft model {draft.id}: {w.method}"]
    h, d = draft.hidden_size, draft.head_dim
    hq, hkv = heads_per_rank(draft.num_attention_heads, tp), heads_per_rank(draft.num_kv_heads, tp)
    inter = draft.intermediate_size // tp
    eagle3 = method == "eagle3"
    layers = 0
    for i in range(draft.num_layers):
        qkv_in = 2 * h if eagle3 and i == 0 else h
        layers += qkv_in * (hq + 2 * hkv) * d + hq * d * h + 3 * h * inter
        layers += 3 * h if eagle3 else h if i == 0 else 2 * h  # norms: input, post-attention (+ hidden_norm)
    parts = [(f"{draft.num_layers} decoder layer(s)", layers * dtype_bytes)]
    if eagle3:
        aux = eagle_aux_states(draft)
        target_h = int((draft.raw_config or {}).get("target_hidden_size") or h)
        if aux:
            parts.append((f"fc ({aux} x {target_h} -> {h}, every rank)", aux * target_h * h * dtype_bytes))
        parts.append(("norm", h * dtype_bytes))
        dv = draft_vocab_size(draft)
        parts.append((f"lm_head ({dv:,} draft-vocabulary rows)", math.ceil(dv / VOCAB_PADDING) * VOCAB_PADDING // tp * h * dtype_bytes))
        if dv != target.vocab_size:
            parts.append(("d2t (draft -> target token ids, int64)", dv * 8))
    else:
        parts.append((f"fc (2 x {h} -> {h}, every rank)", 2 * h * h * dtype_bytes))
    if pp > 1:
        parts.append(("embed_tokens (own: not shared across pipeline stages)", padded_vocab(draft) // tp * h * dtype_bytes))
    total = sum(b for _, b in parts)
    notes = [f"{method} drafter {draft.id}: " + " + ".join(f"{name} {b / 1024 ** 2:.1f} MiB" for name, b in parts)
             + ("" if pp > 1 else "; embed_tokens shared with the target (the head's own copy is dropped)")
             + ("" if method == "eagle3" else "; lm_head shared with the target")]
    if draft.quant is not None:
        notes.append(f"the drafter's {draft.quant.method} quantization is not modelled: counted at {dtype_bytes} B per weight")
    return total, parts, notes
