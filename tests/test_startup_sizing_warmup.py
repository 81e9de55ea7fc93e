"""vLLM 0.34's KV-cache sizing warmup as a phase of the startup-time model: its full-budget steps, each charged the
profile run's term (the same forward over max_num_batched_tokens tokens), shown only for starts that run it."""

from __future__ import annotations

import pytest

import kvplan
from kvplan.deploy import render_files, spec_from_plan
from kvplan.plan.extensible import kv_sizing_warmup_steps
from kvplan.startup import COEFFICIENTS, predict_startup
from kvplan.versions import rules_for


def _plan(version="0.34.0", **flags):
    flags.setdefault("max_model_len", 8192)
    return kvplan.fit("Qwen/Qwen3-8B", "H100", vllm_version=version, **flags)


def _steps(p, **kw):
    return kv_sizing_warmup_steps(p.rules, p.kv_pool is not None, p.args, **kw)


def test_row_steps_at_0_34():
    assert not rules_for("0.33.0").kv_cache_sizing_warmup
    assert rules_for("0.34.0").kv_cache_sizing_warmup


def test_prediction_adds_the_phase_only_with_steps():
    base = predict_startup(15.27, 1)
    assert "kv sizing warmup" not in base.phases() and base.kv_sizing_warmup_s == 0
    for steps in (1, 2):
        p = predict_startup(15.27, 1, kv_sizing_warmup_steps=steps)
        phases = p.phases()
        assert phases["kv sizing warmup"] == pytest.approx(steps * COEFFICIENTS.profile_s)
        assert phases["kv sizing warmup"] == pytest.approx(steps * phases["profile"])
        assert p.total_s == pytest.approx(base.total_s + steps * base.profile_s)
        assert sum(phases.values()) == pytest.approx(p.total_s)
        names = list(phases)
        assert names.index("profile") < names.index("kv sizing warmup") < names.index("capture")
    with pytest.raises(ValueError):
        predict_startup(15.27, 1, kv_sizing_warmup_steps=-1)


def test_steps_follow_the_release_and_the_pool_sizing():
    assert _steps(_plan("0.33.0")) == 0  # no sizing warmup before 0.34
    new = _plan()
    assert new.kv_pool is not None and _steps(new) == 1  # one step of max_num_batched_tokens
    off = _plan(enable_extensible_kv_cache=False)
    assert off.kv_pool is None and _steps(off) == 0
    assert _steps(new, pooling=True) == 0 and _steps(new, encoder_decoder=True) == 0


def test_second_step_for_prompt_logprobs_below_the_token_budget():
    # max_model_len < max_num_batched_tokens with several request slots: prompt logprobs are measured on one prompt
    # of max_model_len tokens first, then the full budget without them (run_kv_cache_sizing_warmup, 0.34.0)
    short = _plan(max_model_len=2048, max_num_batched_tokens=8192)
    assert short.args.max_model_len < short.args.max_num_batched_tokens and short.args.max_num_seqs > 1
    assert _steps(short) == 2
    one_slot = _plan(max_model_len=2048, max_num_batched_tokens=8192, max_num_seqs=1)
    assert _steps(one_slot) == 1


def test_scaffold_readme_rows():
    new = spec_from_plan(_plan())
    old = spec_from_plan(_plan("0.33.0"))
    assert "kv sizing warmup" in new.startup_first.phases() and "kv sizing warmup" in new.startup_restart.phases()
    assert "kv sizing warmup" not in old.startup_first.phases()
    readme = render_files(new)["README.md"]
    row = f"| kv sizing warmup | {COEFFICIENTS.profile_s:.0f} s | {COEFFICIENTS.profile_s:.0f} s |"
    assert row in readme
    assert "kv sizing warmup" not in render_files(old)["README.md"]
    # every phase but the new one is the same prediction at both releases
    a, b = new.startup_first.phases(), old.startup_first.phases()
    assert {k: v for k, v in a.items() if k != "kv sizing warmup"} == b
    assert new.startup_first.total_s == pytest.approx(old.startup_first.total_s + COEFFICIENTS.profile_s)
    text = " ".join(readme.split())
    assert "the `kv sizing warmup` row" in text and "which the prediction does not count" in text


# An encoder-decoder config kvplan can read (Whisper large-v3's shape, with the standard names its attribute_map would
# give): vLLM 0.34's run_kv_cache_sizing_warmup returns at once for model_runner.is_encoder_decoder
# (v1/worker/gpu/warmup.py, 0.34.0 wheel), which is ModelConfig.is_encoder_decoder: the config's is_encoder_decoder
# or its text config's (transformers_utils/config.py is_encoder_decoder)
_ENCODER_DECODER = {
    "architectures": ["WhisperForConditionalGeneration"], "model_type": "whisper", "is_encoder_decoder": True,
    "d_model": 1280, "hidden_size": 1280, "num_attention_heads": 20, "num_hidden_layers": 32,
    "decoder_attention_heads": 20, "decoder_layers": 32, "encoder_attention_heads": 20, "encoder_layers": 32,
    "decoder_ffn_dim": 5120, "encoder_ffn_dim": 5120, "intermediate_size": 5120, "max_source_positions": 1500,
    "max_target_positions": 448, "max_position_embeddings": 448, "num_mel_bins": 128, "vocab_size": 51866,
    "torch_dtype": "float16",
}


def _config_plan(tmp_path, encoder_decoder: bool):
    import json

    folder = tmp_path / ("encdec" if encoder_decoder else "decoder")
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(dict(_ENCODER_DECODER, is_encoder_decoder=encoder_decoder)))
    return kvplan.fit(str(folder / "config.json"), "H100", vllm_version="0.34.0")


def _probe_steps(p) -> int:
    """The sizing-warmup steps diagnose's startupProbe advice counted: its predicted startup against the prediction
    with each number of steps."""
    from kvplan.diagnose import probe_advice
    from kvplan.logs import StartupLog

    said = probe_advice(StartupLog(), p)["predicted_startup_s"]
    weights_gib = p.model.weights_bytes / 2**30
    steps = [n for n in (0, 1, 2) if round(predict_startup(weights_gib, p.args.tensor_parallel_size, download=True,
                                                           kv_sizing_warmup_steps=n).total_s) == said]
    assert len(steps) == 1, steps
    return steps[0]


def test_encoder_decoder_start_runs_no_sizing_warmup(tmp_path):
    encdec, dec = _config_plan(tmp_path, True), _config_plan(tmp_path, False)
    # both pools are the extensible KV cache's, at the same arguments: only the model kind tells the two apart
    # (apart from prefix caching, which vLLM turns off for the encoder-decoder model)
    from dataclasses import replace
    assert encdec.kv_pool is not None and dec.kv_pool is not None
    assert encdec.args.enable_prefix_caching is False and dec.args.enable_prefix_caching is None
    assert replace(encdec.args, enable_prefix_caching=None) == dec.args
    # 448 tokens < the token budget, several request slots: the decoder-only start runs the prompt-logprobs step too
    assert _steps(dec) == 2 and _steps(encdec, encoder_decoder=True) == 0
    # scaffold's prediction and diagnose's probe advice count the same steps, none for the encoder-decoder model
    for p, steps in ((dec, 2), (encdec, 0)):
        phases = spec_from_plan(p).startup_first.phases()
        assert phases.get("kv sizing warmup", 0) == pytest.approx(steps * COEFFICIENTS.profile_s)
        assert _probe_steps(p) == steps
    assert encdec.model.is_encoder_decoder and not dec.model.is_encoder_decoder


def test_encoder_decoder_read_from_the_text_config():
    from dataclasses import replace

    m = _plan().model
    assert not m.is_encoder_decoder
    assert replace(m, raw_config={"is_encoder_decoder": True}).is_encoder_decoder
    assert replace(m, raw_config={}, text_config={"is_encoder_decoder": True}).is_encoder_decoder
    assert not replace(m, raw_config={"is_encoder_decoder": False}, text_config={}).is_encoder_decoder
