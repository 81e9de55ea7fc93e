"""A checkpoint's skip list is read as vLLM reads it: each module vLLM builds for a component ("model.layers.3.
self_attn.qkv_proj" and its shards q_proj/k_proj/v_proj, "...o_proj") is asked of the list with one matcher
(weights.names_module): a "re:" entry re.match'ed against the whole name (compressed-tensors), a plain entry equal to
it (compressed-tensors, Fp8Config) or contained in it (AWQ, bitsandbytes, GGUF, ModelOpt: skip_with_substr)."""
from dataclasses import replace

from kvplan.plan import defaults
from kvplan.resolve import resolve_model
from kvplan.weights import names_layer_module, names_module, weights_per_rank

GIB = 1024 ** 3
LAGUNA = "poolside/Laguna-S-2.1-FP8"   # compressed-tensors: exact names and "re:" patterns
QWEN_AWQ = "Qwen/Qwen2.5-72B-Instruct-AWQ"  # AWQ: modules_to_not_convert read by containment


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
