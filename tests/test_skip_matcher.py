"""A checkpoint's skip list is read as vLLM reads it: each module vLLM builds for a component ("model.layers.3.
self_attn.qkv_proj" and its shards q_proj/k_proj/v_proj, "...o_proj") is asked of the list with one matcher
(weights.names_module): a "re:" entry re.match'ed against the whole name (compressed-tensors), a plain entry equal to
it (compressed-tensors, Fp8Config) or contained in it (AWQ, GGUF, moe_wna16, ModelOpt: skip_with_substr), or one of
its dotted parts or a leading run of them (bitsandbytes)."""
from dataclasses import replace

from kvplan.plan import defaults
from kvplan.resolve import resolve_model
import pytest

from kvplan.weights import (Component, bytes_per_quantized_param, component_modules, count_weights, names_layer_module,
                            names_module, stored_bytes, weights_per_rank)

GIB = 1024 ** 3
LAGUNA = "poolside/Laguna-S-2.1-FP8"   # compressed-tensors: exact names and "re:" patterns
QWEN_AWQ = "Qwen/Qwen2.5-72B-Instruct-AWQ"  # AWQ: modules_to_not_convert read by containment
GEMMA4_NVFP4 = "nvidia/Gemma-4-26B-A4B-NVFP4"  # ModelOpt: exact, containment, shell wildcards
QWEN_MOE_FP8 = "Qwen/Qwen3-30B-A3B-FP8"  # Fp8Config: exact names


def _bytes(model, skip) -> int:
    return weights_per_rank(replace(model, quant=replace(model.quant, skip=tuple(skip))), tp=1).bytes


def test_the_matcher_asks_what_vllm_asks():
    name = "model.layers.3.self_attn.q_proj"
    assert names_module([r"re:.*\.(self_attn|mlp)\..*"], name)
    assert not names_module([r"re:.*\.(mlp)\..*"], name)
    assert names_module([name], name) and not names_module(["q_proj"], name)  # exact: a leaf is not the whole name
    assert names_module(["q_proj"], name, substring=True)
    assert names_module(["model.layers.3.self_attn*"], name, wildcard=True)
    assert not names_module(["model.layers.3.self_attn*"], name, substring=True)
    # a fused module is named when every shard is
    assert names_layer_module([r"re:.*self_attn.(q|k|v)_proj$"], 7, "self_attn.qkv_proj")
    assert not names_layer_module([r"re:.*self_attn.(q|k)_proj$"], 7, "self_attn.qkv_proj")
    # the block-FP8 check asks the same matcher
    assert defaults._ct_names_module((r"re:.*self_attn.(q|k|v|o)_proj$",), 7, "self_attn.qkv_proj")


def test_an_alternation_entry_keeps_every_module_it_matches_unquantized():
    """'re:.*\\.(self_attn|mlp)\\..*' (one entry for attention and MLP) read as dotted names spelled 'self_attnmlp' and
    kept nothing unquantized; vLLM ignores every attention and MLP module it matches, as the two entries apart do."""
    m = resolve_model(LAGUNA)
    none = _bytes(m, ["lm_head"])
    alternation = _bytes(m, ["lm_head", r"re:.*\.(self_attn|mlp)\..*"])
    apart = _bytes(m, ["lm_head", r"re:.*\.self_attn\..*", r"re:.*\.mlp\..*"])
    assert alternation == apart
    # attention, shared and routed experts at 2 bytes rather than ~1: most of the model doubles
    assert alternation > 1.5 * none
    # an alternation of the attention projections names attention alone
    attn_only = _bytes(m, ["lm_head", r"re:.*self_attn.(q|k|v|o|g)_proj$"])
    assert attn_only == _bytes(m, ["lm_head", r"re:.*\.self_attn\..*"])
    assert none < attn_only < alternation


def test_a_bare_leaf_entry_is_read_by_the_method_that_reads_the_list():
    """AWQ reads modules_to_not_convert by containment, so 'q_proj' ... 'o_proj' keep every layer's attention
    unquantized (as 'self_attn' does); compressed-tensors asks for the whole name, so there they name nothing."""
    q = resolve_model(QWEN_AWQ)
    leaves = _bytes(q, ["q_proj", "k_proj", "v_proj", "o_proj"])
    assert leaves == _bytes(q, ["self_attn"]) > _bytes(q, [])
    assert _bytes(q, ["gate_proj", "up_proj", "down_proj"]) == _bytes(q, ["mlp"]) > leaves
    # one shard of qkv_proj names part of a fused module: vLLM refuses a mixed one, kvplan keeps it quantized
    assert _bytes(q, ["q_proj"]) == _bytes(q, [])
    m = resolve_model(LAGUNA)
    assert _bytes(m, ["lm_head", "q_proj", "k_proj", "v_proj", "o_proj"]) == _bytes(m, ["lm_head"])


def _stored(model, skip, method=None) -> int:
    q = replace(model.quant, skip=tuple(skip), **({"method": method} if method else {}))
    return stored_bytes(replace(model, quant=q))


def test_experts_are_asked_by_the_name_their_architecture_builds():
    """vLLM names a layer's routed experts where its model file builds them (0.31.0): mlp.experts (qwen3_moe.py,
    gpt_oss.py, and minimax_m2.py, whose block_sparse_moe is built with prefix "mlp"), block_sparse_moe.experts
    (mixtral.py), feed_forward.experts (llama4.py), experts directly under the layer (gemma4.py Gemma4DecoderLayer)."""
    experts = Component("experts", 1, "tp", 3, True, kind="experts")
    names = {t: component_modules(experts, t) for t in ("qwen3_moe", "gpt_oss", "minimax_m2", "mixtral", "llama4_text",
                                                         "gemma4_text")}
    assert names == {"qwen3_moe": ("mlp.experts",), "gpt_oss": ("mlp.experts",), "minimax_m2": ("mlp.experts",),
                     "mixtral": ("block_sparse_moe.experts",), "llama4_text": ("feed_forward.experts",),
                     "gemma4_text": ("experts",)}
    # Gemma-4-26B-A4B-NVFP4 (ModelOpt: exact, containment and shell wildcards) lists 'model.language_model.layers.N.mlp*':
    # the dense MLP beside the experts stays in bf16, the experts (not under mlp) stay NVFP4
    m = resolve_model(GEMMA4_NVFP4)
    assert any(p.endswith(".mlp*") for p in m.quant.skip)
    listed = _stored(m, m.quant.skip)
    count = count_weights(m)
    expert_params = sum(c.params for c in count.components if c.kind == "experts")
    assert expert_params > 0
    wide = bytes_per_quantized_param(m.quant)
    with_experts = _stored(m, m.quant.skip + ("model.language_model.layers.*.experts*",))
    assert with_experts - listed == pytest.approx(expert_params * (2 - wide), rel=1e-9)
    # the name another architecture gives its experts names none of Gemma 4's
    assert _stored(m, m.quant.skip + ("model.language_model.layers.*.mlp.experts",)) == listed
    assert _stored(m, m.quant.skip + ("model.language_model.layers.*.block_sparse_moe*",)) == listed


def test_an_fp8_entry_inside_the_experts_names_them_and_compressed_tensors_asks_expert_0():
    """Fp8Config asks is_layer_skipped in its exact mode, where a routed-experts module is named by any entry that
    spells "experts" and holds its name (utils/quant_utils.py is_layer_skipped, 0.31.0); compressed-tensors asks expert
    0's gate_proj, up_proj and down_proj (compressed_tensors_moe.py CompressedTensorsMoEMethod.get_moe_method, 0.31.0)."""
    m = resolve_model(QWEN_MOE_FP8)
    layer5 = next(c for c in count_weights(m).components if c.kind == "experts" and c.layer == 5)
    delta = layer5.params * (2 - bytes_per_quantized_param(m.quant))
    base = _stored(m, m.quant.skip)
    one = m.quant.skip + ("model.layers.5.mlp.experts.3.down_proj",)
    assert _stored(m, one) - base == pytest.approx(delta, rel=1e-9)
    assert _stored(m, m.quant.skip + ("model.layers.15.mlp.experts.3.down_proj",)) - base == pytest.approx(delta, rel=1e-9)
    assert _stored(m, m.quant.skip + ("model.layers.5.mlp.expert.3.down_proj",)) == base  # no "experts" in it
    assert _stored(m, one, "compressed-tensors") == _stored(m, m.quant.skip, "compressed-tensors")
    expert0 = tuple(f"model.layers.5.mlp.experts.0.{p}" for p in ("gate_proj", "up_proj", "down_proj"))
    assert _stored(m, m.quant.skip + expert0, "compressed-tensors") - _stored(m, m.quant.skip, "compressed-tensors") \
        == pytest.approx(delta, rel=1e-9)


def test_mla_attention_is_asked_by_its_own_projections():
    """DeepSeek's MLA attention is no qkv_proj: vLLM builds q_b_proj (q_proj without a query LoRA), kv_b_proj and o_proj
    split over TP, and the replicated fused_qkv_a_proj (q_a_proj + kv_a_proj_with_mqa) (models/deepseek_v2.py
    DeepseekV2MLAAttention, packed_modules_mapping; 0.31.0)."""
    m = resolve_model("deepseek-ai/DeepSeek-R1")
    layers = range(m.num_layers)
    base = _stored(m, ())
    split = tuple(f"model.layers.{i}.self_attn.{p}" for i in layers for p in ("q_b_proj", "kv_b_proj", "o_proj"))
    down = tuple(f"model.layers.{i}.self_attn.{p}" for i in layers for p in ("q_a_proj", "kv_a_proj_with_mqa"))
    comps = count_weights(m).components
    wide = 2 - bytes_per_quantized_param(m.quant)
    mla = sum(c.params for c in comps if c.kind == "mla")
    replicated = sum(c.params for c in comps if c.name == "mla_replicated")
    assert _stored(m, split) - base == pytest.approx(mla * wide, rel=1e-9)
    assert _stored(m, down) - base == pytest.approx(replicated * wide, rel=1e-9)
    assert _stored(m, down[::2]) == base  # q_a_proj alone: one shard of the fused module
    assert _stored(m, tuple(f"model.layers.{i}.self_attn.{p}" for i in layers for p in ("qkv_proj", "o_proj"))) == base


def test_gemma4_experts_are_asked_where_the_release_builds_them():
    """Gemma 4's routed experts sat in Gemma4MoE at layers.N.moe.experts from 0.19.0 through 0.30.0 and directly under
    the layer (layers.N.experts) from 0.31.0 (models/gemma4.py Gemma4DecoderLayer): a skip list naming one place keeps
    the experts unquantized only in the releases that build them there (versions.py "layer_module_paths")."""
    from kvplan.versions import rules_for
    m = resolve_model(GEMMA4_NVFP4)
    experts = Component("experts", 1, "tp", 3, True, kind="experts")
    old, new = rules_for("0.30.0").layer_module_paths, rules_for("0.31.0").layer_module_paths
    assert component_modules(experts, m.model_type, old) == ("moe.experts",)
    assert component_modules(experts, m.model_type, new) == ("experts",)
    # another architecture's experts do not move
    assert component_modules(experts, "qwen3_moe", old) == ("mlp.experts",)
    layers = range(m.num_layers)
    moe_entries = tuple(f"model.language_model.layers.{i}.moe.experts" for i in layers)
    flat_entries = tuple(f"model.language_model.layers.{i}.experts" for i in layers)
    counted = replace(m, checkpoint=None)  # the count, so the skip list decides the experts' width

    def weights(skip, paths) -> int:
        return weights_per_rank(counted, tp=1, quant=replace(m.quant, skip=m.quant.skip + skip), module_paths=paths).bytes

    expert_params = sum(c.params for c in count_weights(m).components if c.kind == "experts")
    widen = expert_params * (2 - bytes_per_quantized_param(m.quant))
    assert weights(moe_entries, old) - weights((), old) == pytest.approx(widen, rel=1e-6)
    assert weights(moe_entries, new) == weights((), new)
    assert weights(flat_entries, new) - weights((), new) == pytest.approx(widen, rel=1e-6)
    # 0.28.0 to 0.30.0 map a checkpoint's "layers.N.experts" entry onto moe.experts (_GEMMA4_EXPERT_PARENT_MAPPER);
    # 0.19.0 to 0.26.0 have no such mapper, so there it names nothing
    assert weights(flat_entries, old) - weights((), old) == pytest.approx(widen, rel=1e-6)
    first = rules_for("0.26.0").layer_module_paths
    assert weights(flat_entries, first) == weights((), first)
    assert weights(moe_entries, first) - weights((), first) == pytest.approx(widen, rel=1e-6)
    # the rewrite reads whole ".experts" entries only: one naming an expert's projection is not rewritten
    one = tuple(f"model.language_model.layers.{i}.experts.0.down_proj" for i in layers)
    assert weights(one, old) == weights((), old)


def test_a_modelopt_trailing_wildcard_names_by_containment_once_the_mapper_splits_it():
    """ModelOptQuantConfig.apply_vllm_mapper rewrites "X*" as "X" and "X.*" (modelopt.py, 0.13.0 to 0.33.0), and
    is_layer_excluded finds "X" by containment: "layers.0.self_attn*" then names model.layers.0.self_attn.qkv_proj,
    which the shell pattern alone (anchored at the name's start) does not. vLLM hands the config the mapper only for a
    class with an hf_to_vllm_mapper: MiniMaxM2ForCausalLM from 0.26.0 (data/hf_mappers.json)."""
    from kvplan.api import fit
    from kvplan.versions import has_hf_mapper, parse_version
    from kvplan.weights import modelopt_exclude_split
    assert modelopt_exclude_split(("a.mlp*", "b.*", "*", "lm_head")) == ("a.mlp", "a.mlp.*", "b.*", "*", "lm_head")
    arch = ("MiniMaxM2ForCausalLM",)
    assert not has_hf_mapper(arch, parse_version("0.24.0")) and not has_hf_mapper(arch, parse_version("0.25.1"))
    assert has_hf_mapper(arch, parse_version("0.26.0")) and has_hf_mapper(arch, parse_version("0.33.0"))
    m = resolve_model("nvidia/MiniMax-M2.7-NVFP4")  # its list: model.layers.N.self_attn* for every layer
    attn = [e for e in m.quant.skip if e.endswith(".self_attn*")]
    assert len(attn) == m.num_layers
    short = tuple(e[len("model."):] if e in attn else e for e in m.quant.skip)

    def weights(skip, version) -> int:
        spec = replace(m, checkpoint=None, quant=replace(m.quant, skip=skip))
        return fit(spec, "H200", tensor_parallel_size=8, vllm_version=version).weights_bytes

    listed = weights(m.quant.skip, "0.26.0")
    assert weights(short, "0.26.0") == weights(short, "0.33.0") == listed  # split: containment finds the attention
    for version in ("0.12.0", "0.24.0"):  # no split (0.12.0) / no mapper (0.24.0): the pattern names nothing
        assert weights(m.quant.skip, version) == listed
        assert weights(short, version) == weights(tuple(e for e in m.quant.skip if e not in attn), version) < listed


def test_stored_bytes_read_a_modelopt_exclude_list_as_the_plan_does():
    """One ModelOpt checkpoint, one reading: stored_bytes (a checkpoint's size without its files) splits "X*" where the
    release does (weights.quant_as_read: 0.13.0+ and a model class with an hf_to_vllm_mapper, MiniMaxM2ForCausalLM
    from 0.26.0), as the plan's weights do, so each component is skipped alike in both."""
    from kvplan.versions import parse_version
    from kvplan.resolve import CheckpointWeights
    from kvplan.weights import _param_bytes_rule, _split_skip, quant_as_read
    m = resolve_model("nvidia/MiniMax-M2.7-NVFP4")
    attn = [e for e in m.quant.skip if e.endswith(".self_attn*")]
    short = replace(m, checkpoint=None, quant=replace(m.quant, skip=tuple(e[len("model."):] if e in attn else e
                                                                          for e in m.quant.skip)))
    full = replace(short, quant=m.quant)
    for version, split in (("0.33.0", True), ("0.26.0", True), ("0.24.0", False), ("0.12.0", False)):
        release = parse_version(version)
        read = quant_as_read(short.quant, short.architectures, release)
        assert (read.skip != short.quant.skip) == split
        # the components stored_bytes keeps in the model dtype are those the plan's weights keep (exclude_split)
        stored_rule = _param_bytes_rule(read, short.dtype_bytes, model_type=short.model_type)
        plan_rule = _param_bytes_rule(_split_skip(short.quant) if split else short.quant,
                                      short.dtype_bytes, model_type=short.model_type)
        comps = count_weights(short).components
        assert [stored_rule(c) for c in comps] == [plan_rule(c) for c in comps]
        # split: the shortened entries name the attention as the listed ones do; unsplit: they name nothing
        assert (stored_bytes(short, release) == stored_bytes(full, release)) == split
        assert stored_bytes(short, release) <= stored_bytes(full, release)
        plan = weights_per_rank(short, exclude_split=split)
        assert plan.bytes - plan.rotary_bytes == pytest.approx(stored_bytes(short, release), abs=2)
    assert stored_bytes(short) == stored_bytes(short, parse_version("0.33.0"))  # the newest reading without a release
    # the checkpoint's own bytes still size the plan when the release rewrites its list (they are one checkpoint)
    files = replace(short, checkpoint=CheckpointWeights((("total", stored_bytes(short)),), source="test"))
    exact = weights_per_rank(files, exclude_split=True)
    assert exact.method.startswith("exact") and exact.bytes - exact.rotary_bytes == pytest.approx(stored_bytes(short), abs=2)
    from kvplan.api import fit
    assert fit(replace(files, quant=m.quant), "H200", tensor_parallel_size=8, vllm_version="0.33.0").weights_exact


def _ct_fp8(model_id: str, ignore: list[str]):
    """A catalog config with a compressed-tensors FP8 quantization_config (one config group targeting Linear,
    per-channel weights, dynamic per-token activations) and the given ignore list."""
    import copy

    from kvplan.resolve import normalize
    raw = copy.deepcopy(resolve_model(model_id).raw_config)
    raw["quantization_config"] = {
        "quant_method": "compressed-tensors", "format": "float-quantized", "quantization_status": "compressed",
        "config_groups": {"group_0": {
            "targets": ["Linear"],
            "weights": {"num_bits": 8, "type": "float", "strategy": "channel", "symmetric": True, "dynamic": False},
            "input_activations": {"num_bits": 8, "type": "float", "strategy": "token", "symmetric": True,
                                  "dynamic": True}}},
        "ignore": ignore}
    return normalize(raw, model_id=f"test/{model_id.split('/')[1]}-FP8-ct", source="test")


def test_an_ignore_list_naming_part_of_expert_0_is_refused_as_vllm_refuses_it():
    """CompressedTensorsMoEMethod.get_moe_method asks the scheme of expert 0's gate_proj, up_proj and down_proj and
    raises "All MoE projections need to have same quantization scheme but found multiple" when the ignore list names
    some of them (compressed_tensors_moe.py, 0.12.0-0.33.0); kvplan read such a list as leaving the experts quantized
    and planned a start. 0.11.0 matched the experts against the targets alone."""
    from kvplan.api import fit
    from kvplan.diagnose import diagnose
    from kvplan.plan.defaults import MOE_MIXED_SCHEMES_ERROR
    model = "Qwen/Qwen3-30B-A3B"
    part = _ct_fp8(model, ["lm_head", r"re:.*mlp\.experts\.0\.gate_proj$"])
    for version in ("0.12.0", "0.33.0"):
        p = fit(part, "H200", vllm_version=version)
        assert not p.fits and p.failure_code == "moe_mixed_schemes" and p.error.startswith(MOE_MIXED_SCHEMES_ERROR)
        assert "gate_proj" in p.error and "layer 0's mlp.experts.0" in p.error
        assert p.fixes == ()  # no flag or GPU changes what the checkpoint lists
    assert fit(part, "H200", vllm_version="0.11.0").fits
    # all three, or none: one scheme, and the plan starts (the experts in bfloat16 with all three listed)
    whole = fit(_ct_fp8(model, ["lm_head", r"re:.*mlp\.experts\.0\.(gate|up|down)_proj$"]), "H200")
    none = fit(_ct_fp8(model, ["lm_head"]), "H200")
    assert whole.fits and none.fits and whole.weights_bytes > 1.8 * none.weights_bytes
    # the experts are asked where the release builds them: an entry for another architecture's path names nothing
    assert fit(_ct_fp8(model, ["lm_head", r"re:.*block_sparse_moe\.experts\.0\.gate_proj$"]), "H200").fits
    top = diagnose([f"ValueError: {MOE_MIXED_SCHEMES_ERROR}"]).top
    assert top is not None and top.fatal and top.layer == "model_weights" and "ignore list" in top.fix


def test_laguna_g_proj_and_granite_shared_mlp_are_asked_by_their_own_names():
    """vLLM builds Laguna's per-head output gate as its own Linear, self_attn.g_proj, beside qkv_proj and o_proj
    (models/laguna.py LagunaAttention, 0.31.0), and Granite-MoE's shared expert as shared_mlp.input_linear /
    output_linear (granitemoeshared.py, granitemoehybrid.py GraniteMoeSharedMLP, 0.31.0): a skip list names each by
    those names. kvplan asked g_proj with qkv_proj/o_proj and Granite's shared expert as mlp.shared_expert."""
    m = resolve_model(LAGUNA)
    g_entry = r"re:.*\.self_attn\.g_proj$"
    assert g_entry in m.quant.skip  # Laguna-S-2.1-FP8 lists it apart
    comps = count_weights(m).components
    g_params = sum(c.params for c in comps if c.kind == "g_proj")
    assert g_params > 0
    wide = 2 - bytes_per_quantized_param(m.quant)
    without_g = tuple(e for e in m.quant.skip if e != g_entry)
    assert _stored(m, m.quant.skip) - _stored(m, without_g) == pytest.approx(g_params * wide, rel=1e-9)
    assert _stored(m, ("lm_head", g_entry)) - _stored(m, ("lm_head",)) == pytest.approx(g_params * wide, rel=1e-9)
    # the gate is counted once: splitting it out of self_attn keeps the total
    assert count_weights(m).total_params == sum(c.params for c in comps)

    granite = resolve_model("ibm-granite/granite-4.0-h-small")
    q = replace(resolve_model(QWEN_MOE_FP8).quant, skip=())
    shared = Component("shared_expert", 1, "tp", 3, True)
    assert component_modules(shared, granite.model_type) == ("shared_mlp.input_linear", "shared_mlp.output_linear")
    spec = replace(granite, quant=q)
    shared_params = sum(c.params for c in count_weights(granite).components if c.name == "shared_expert")
    layers = range(granite.num_layers)
    named = tuple(f"model.layers.{i}.shared_mlp.{p}" for i in layers for p in ("input_linear", "output_linear"))
    base = stored_bytes(spec)
    assert stored_bytes(replace(spec, quant=replace(q, skip=named))) - base == \
        pytest.approx(shared_params * (2 - bytes_per_quantized_param(q)), rel=1e-9)
    other = tuple(f"model.layers.{i}.block_sparse_moe.shared_expert.{p}" for i in layers for p in ("gate_up_proj", "down_proj"))
    assert stored_bytes(replace(spec, quant=replace(q, skip=other))) == base


def test_an_mtp_drafter_is_asked_by_the_names_vllm_builds_for_it():
    """Qwen3-Next / Qwen3.5 build the MTP drafter's layers at mtp.layers.N (models/qwen3_5_mtp.py, qwen3_next_mtp.py,
    0.17.1-0.31.0). Qwen3.8-2.4T-A95B-FP8 lists mtp.layers.0's attention and shared expert in modules_to_not_convert:
    vLLM keeps them in bf16; kvplan asked no name for the drafter and counted them FP8."""
    from kvplan.weights import _skipped, mtp_components
    m = resolve_model("Qwen/Qwen3.8-2.4T-A95B-FP8")
    assert "mtp.layers.0.self_attn.q_proj" in m.quant.skip and m.mtp_layers == 1
    drafter = {c.name: c for c in mtp_components(m, count_weights(m)) if c.quantizable}
    kept = {n for n, c in drafter.items() if _skipped(c, m.quant, m.model_type)}
    # its experts are not listed: FP8; mtp.fc (the 2H -> H projection, a quantized ColumnParallelLinear) is listed
    assert kept == {"mtp.self_attn", "mtp.kv_proj", "mtp.shared_expert", "mtp.eh_proj"}
    widened = sum(drafter[n].params for n in kept) * (2 - bytes_per_quantized_param(m.quant))
    with_mtp = weights_per_rank(m, tp=1, mtp=True).bytes - weights_per_rank(m, tp=1).bytes
    unlisted = replace(m, quant=replace(m.quant, skip=tuple(e for e in m.quant.skip if not e.startswith("mtp."))))
    assert with_mtp - (weights_per_rank(unlisted, tp=1, mtp=True).bytes - weights_per_rank(unlisted, tp=1).bytes) \
        == pytest.approx(widened, abs=2)
    # the drafter's names are its own: the main model's layer 0 entries do not name it
    layer0 = replace(m, quant=replace(m.quant, skip=("model.layers.0.self_attn.q_proj", "model.layers.0.self_attn.k_proj",
                                                     "model.layers.0.self_attn.v_proj", "model.layers.0.self_attn.o_proj")))
    assert not _skipped(drafter["mtp.self_attn"], layer0.quant, m.model_type)


def test_a_regex_target_is_matched_against_the_layer_class_and_containment_keeps_its_case():
    """compressed-tensors matches a config group's targets against the module name, then against the layer's class
    name with check_contains: a "re:" target re.match'ed, any other contained in it ignoring case
    (is_equal_or_regex_match, quantization/utils/config_utils.py 0.31.0). kvplan matched no "re:" target against the
    class, so a group targeting "re:.*Linear" quantized nothing and the block-FP8 slice check passed a TP vLLM refuses.
    AWQ / GGUF / moe_wna16 containment ('module_name in prefix', is_layer_skipped substring mode, moe_wna16.py
    is_layer_skipped_quant, gguf.py is_layer_skipped_gguf; 0.31.0) does not lower-case."""
    import copy

    from kvplan.resolve import normalize
    from block_fp8 import fits, refusal
    assert names_layer_module(["re:.*Linear"], 3, "mlp.down_proj", "Linear")
    assert names_layer_module(["linear"], 3, "mlp.down_proj", "Linear")  # contained, case ignored
    assert not names_layer_module(["re:.*linear"], 3, "mlp.down_proj", "Linear")  # a regex keeps its case
    assert not names_layer_module(["re:.*Linear"], 3, "mlp.down_proj")  # a skip list is not asked of the class
    assert not names_module(["Q_PROJ"], "model.layers.3.self_attn.q_proj", substring=True)
    assert names_module(["q_proj"], "model.layers.3.self_attn.q_proj", substring=True)

    def block(targets):
        raw = copy.deepcopy(resolve_model("Qwen/Qwen3-32B").raw_config)
        raw["quantization_config"] = {
            "quant_method": "compressed-tensors", "format": "float-quantized", "quantization_status": "compressed",
            "config_groups": {"group_0": {
                "targets": targets,
                "weights": {"num_bits": 8, "type": "float", "strategy": "block", "block_structure": [128, 128],
                            "symmetric": True, "dynamic": False},
                "input_activations": {"num_bits": 8, "type": "float", "strategy": "group", "group_size": 128,
                                      "symmetric": True, "dynamic": True}}},
            "ignore": ["lm_head"]}
        return normalize(raw, model_id="test/Qwen3-32B-FP8-block", source="test")

    # 25600 / 16 = 1600 rows of gate_up_proj per rank: no whole number of 128-row blocks
    for targets in (["Linear"], ["re:.*Linear"]):
        e = refusal(block(targets), 16)
        assert "Weight output_partition_size = 1600 is not divisible by weight quantization block_n = 128." in str(e)
    assert fits(block(["re:.*Attention"]), 16)  # names no Linear class: nothing block-quantized


def test_before_0_12_compressed_tensors_builds_ignored_experts_quantized():
    """Before 0.12.0 CompressedTensorsMoEMethod.get_moe_method takes target_scheme_map["Linear"]'s scheme for every MoE
    layer and reads no ignore list (compressed_tensors_moe.py, 0.7.3-0.11.2; versions.py ct_moe_ignore_read): an
    ignore list naming every expert leaves them FP8 there, bf16 from 0.12.0. With the checkpoint's own bytes (its
    files hold those experts in bf16) the 0.11 plan loads what the no-ignore checkpoint loads."""
    from kvplan.api import fit
    from kvplan.resolve import CheckpointWeights
    from kvplan.versions import rules_for
    model = "Qwen/Qwen3-30B-A3B"
    assert not rules_for("0.11.2").ct_moe_ignore_read and rules_for("0.12.0").ct_moe_ignore_read
    ignored = _ct_fp8(model, ["lm_head", r"re:.*mlp\.experts\..*"])
    none = _ct_fp8(model, ["lm_head"])
    experts = sum(c.params for c in count_weights(none).components if c.name == "experts")
    for version in ("0.10.2", "0.11.0"):
        assert fit(ignored, "H200", vllm_version=version).weights_bytes == fit(none, "H200", vllm_version=version).weights_bytes
    at12 = fit(ignored, "H200", vllm_version="0.12.0").weights_bytes - fit(none, "H200", vllm_version="0.12.0").weights_bytes
    assert at12 == pytest.approx(experts * (2 - 1), rel=1e-6)
    # the files hold the ignored experts in bf16; vLLM 0.11 still builds them FP8
    files = replace(ignored, checkpoint=CheckpointWeights((("BF16", stored_bytes(ignored)),), "test"))
    assert stored_bytes(ignored) - stored_bytes(none) == pytest.approx(experts, rel=1e-6)
    w11 = weights_per_rank(files, tp=1, ct_experts_ignore=False)
    assert w11.bytes == pytest.approx(weights_per_rank(none, tp=1).bytes, rel=1e-9)
    assert any("before 0.12.0" in n for n in w11.notes)
    assert weights_per_rank(files, tp=1).bytes == pytest.approx(weights_per_rank(ignored, tp=1).bytes, rel=1e-9)
