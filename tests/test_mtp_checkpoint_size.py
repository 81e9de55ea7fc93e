"""A checkpoint size given whole (a record's model.weights_bytes: the files' sum, as vLLM's "Checkpoint size" line
prints it) holds the MTP layers the checkpoint ships. The target model's load_weights skips them (models/qwen3_5.py
and qwen3_next.py: the "mtp." prefix; deepseek_v2.py: get_spec_layer_idx_from_weight_name; 0.20.0 and 0.34.0
wheels), so without MTP speculative decoding they are not in the loaded weights, and with it they are the drafter."""
import copy

import pytest

from kvplan.resolve import CheckpointWeights, normalize, resolve_model
from kvplan.validate import _record_model
from kvplan.weights import stored_bytes, weights_per_rank

MODEL = "Qwen/Qwen3.6-35B-A3B"  # bf16, one MTP layer (mtp_num_hidden_layers 1)


def _spec(raw, checkpoint=None):
    return normalize(raw, model_id="test/mtp-size", source="test", checkpoint=checkpoint)


def _raw():
    return copy.deepcopy(resolve_model(MODEL).raw_config)


def _mtp_disk_bytes(raw) -> int:
    """The MTP layer's bytes on disk, from the count of the model itself: one more full-attention decoder layer (the
    MTP layer has that layer's shape), the 2H -> H fc and three H-wide norms, all bf16."""
    spec = _spec(raw)
    bigger = copy.deepcopy(raw)
    text = bigger["text_config"]
    text["layer_types"] = list(text["layer_types"]) + ["full_attention"]
    text["num_hidden_layers"] += 1
    h = spec.hidden_size
    return stored_bytes(_spec(bigger)) - stored_bytes(spec) + (2 * h * h + 3 * h) * 2


def test_record_size_loses_the_mtp_layers_the_target_does_not_load():
    raw = _raw()
    assert _spec(raw).mtp_layers == 1
    target = stored_bytes(_spec(raw))
    mtp = _mtp_disk_bytes(raw)
    whole = _spec(raw, CheckpointWeights((("total", target + mtp),), source="given", mtp_included=True))
    headers = _spec(raw, CheckpointWeights((("BF16", target),), source="headers", mtp_bytes=mtp))
    for tp in (1, 2):
        off = weights_per_rank(whole, tp=tp)
        assert off.bytes == pytest.approx(weights_per_rank(headers, tp=tp).bytes, rel=1e-9)
        assert any("MTP layer(s)" in n for n in off.notes)
        # with MTP on the layers come back once, as the drafter: the same as the headers' split gives
        on = weights_per_rank(whole, tp=tp, mtp=True)
        assert on.bytes == pytest.approx(weights_per_rank(headers, tp=tp, mtp=True).bytes, rel=1e-9)
    assert weights_per_rank(whole, mtp=True).bytes - weights_per_rank(whole).bytes == pytest.approx(mtp, rel=1e-9)


def test_size_without_mtp_layers_in_the_config_is_taken_whole():
    raw = copy.deepcopy(resolve_model("Qwen/Qwen3-8B").raw_config)
    spec = _spec(raw)
    assert spec.mtp_layers == 0
    size = stored_bytes(spec) + 12345
    given = weights_per_rank(_spec(raw, CheckpointWeights((("total", size),), source="given", mtp_included=True)))
    plain = weights_per_rank(_spec(raw, CheckpointWeights((("total", size),), source="given")))
    assert given.bytes == plain.bytes
    assert not any("MTP layer(s)" in n for n in given.notes)


def test_a_size_too_small_for_the_mtp_layers_is_refused():
    from kvplan.errors import InputError
    raw = _raw()
    small = _spec(raw, CheckpointWeights((("total", _mtp_disk_bytes(raw) // 2),), source="given", mtp_included=True))
    with pytest.raises(InputError, match="MTP"):
        weights_per_rank(small)


def test_a_record_weights_bytes_is_the_whole_checkpoint():
    rec = {"model": {"id": "test/mtp-size", "config": _raw(), "weights_bytes": 10 ** 10}}
    spec, _ = _record_model(rec, {}, [])
    assert spec.checkpoint.mtp_included and spec.checkpoint.total_bytes == 10 ** 10
