"""GPT-2-style decoders (weights.LEARNED_POSITION_TYPES): vLLM's gpt2.py builds a learned position table (wpe), biases on
every projection and LayerNorms with biases, and no rotary embedding. Checked against GPT-2 small's published parameter
count, 124,439,808 (the Hub model card's 124M; 50,257 x 768 token table + 1,024 x 768 position table + 12 blocks)."""

from kvplan.resolve import normalize
from kvplan.weights import count_weights, padded_vocab, weights_per_rank

GPT2 = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_embd": 768, "n_head": 12, "n_layer": 12,
        "n_positions": 1024, "n_ctx": 1024, "vocab_size": 50257, "torch_dtype": "float32"}
GPT2_PARAMS = 124_439_808  # transformers' GPT2LMHeadModel('gpt2').num_parameters(), lm_head tied


def _spec(**over):
    return normalize({**GPT2, **over}, model_id="gpt2", source="test")


def test_gpt2_counts_its_published_parameters_with_the_padded_vocab():
    spec = _spec()
    pad_rows = padded_vocab(spec) - 50257
    assert pad_rows == 47
    assert count_weights(spec).total_params == GPT2_PARAMS + pad_rows * 768


def test_gpt2_has_no_rotary_cache():
    rw = weights_per_rank(_spec(), tp=1, dtype_bytes=2)
    assert rw.rotary_bytes == 0


def test_the_position_table_follows_n_positions():
    short, long_ = count_weights(_spec()), count_weights(_spec(n_positions=2048, n_ctx=2048))
    assert long_.total_params - short.total_params == 1024 * 768


def test_biases_split_over_tp_like_their_weights():
    # at TP 2 each rank holds half of c_attn's and c_fc's biases, the whole of both c_proj biases, LayerNorms, wpe
    one = weights_per_rank(_spec(), tp=1, dtype_bytes=2).bytes
    two = weights_per_rank(_spec(), tp=2, dtype_bytes=2).bytes
    h, layers, vocab = 768, 12, padded_vocab(_spec())
    split = vocab * h + layers * (4 * h * h + 3 * h + 2 * h * 4 * h + 4 * h)  # wte, c_attn/c_proj/c_fc/c_proj + split biases
    assert one - two == split  # every split tensor halves, bytes 2 per element
