"""vLLM 0.34.0's release tables, read from its wheel: the release lists, its quantization methods (the
QuantizationMethods Literal, DEPRECATED_QUANTIZATION_METHODS, W4AFP8Config's capability), its serve flags, the
environment variables its server refuses (Platform.validate_environ) and the architectures its registry holds."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

import kvplan
from kvplan.errors import InputError
from kvplan.versions import (PUBLISHED_RELEASES, RELEASES_READ, architecture_refusal, check_serve_env,
                             check_serve_flags, has_hf_mapper, parse_version, quant_method_last_read,
                             quant_min_capability, quantization_methods, rules_for, unpublished_release)

LLAMA_8B = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
    "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32, "vocab_size": 128256,
    "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "rope_theta": 500000.0, "torch_dtype": "bfloat16",
    "tie_word_embeddings": False,
}


def test_0_34_0_is_a_release_read_and_published():
    assert "0.34.0" in RELEASES_READ and "0.34.0" in PUBLISHED_RELEASES
    assert unpublished_release("0.34.0") is None
    assert "0.34.0" in kvplan.api.known_versions()
    dates = json.loads((Path(__file__).parents[1] / "tools" / "data" / "vllm_release_dates.json").read_text())
    assert [r["date"] for r in dates["releases"] if r["version"] == "0.34.0"] == ["2026-11-16"]


def test_scaffold_pins_0_34_0(tmp_path):
    from kvplan.deploy import pinned_release

    assert pinned_release("0.34.0") == "0.34.0" and pinned_release("vllm/vllm-openai:v0.34.0") == "0.34.0"
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text(json.dumps(LLAMA_8B))
    out = tmp_path / "proj"
    r = subprocess.run([sys.executable, "-m", "kvplan", "scaffold", str(out), str(tmp_path / "m"), "--gpu", "H100",
                        "--max-model-len", "8192", "--vllm-version", "0.34.0"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert '"vllm==0.34.0"' in (out / "pyproject.toml").read_text()
    assert "image: vllm/vllm-openai:v0.34.0" in (out / "docker-compose.yml").read_text()


def test_quantization_methods_as_0_34_0_lists_them():
    at_33, at_34 = quantization_methods("0.33.0"), quantization_methods("0.34.0")
    assert at_34 - at_33 == {"w4afp8", "lut_b_moe", "mxfp4_hadamard32"}
    assert at_33 - at_34 == {"fp_quant"}
    assert len(at_34) == 32
    assert quant_method_last_read("fp_quant", "0.34.0") == "0.33.0"
    # DEPRECATED_QUANTIZATION_METHODS: fp_quant went with its method
    assert rules_for("0.33.0").deprecated_quant_methods == ("fbgemm_fp8", "fp_quant")
    assert rules_for("0.34.0").deprecated_quant_methods == ("fbgemm_fp8",)
    # W4AFP8Config is an Fp8Config: its minimum capability, 7.5, from the release that adds it
    assert quant_min_capability("w4afp8", "0.34.0") == (7, 5)
    assert quant_min_capability("w4afp8", "0.33.0") is None


def test_fp_quant_is_refused_by_0_34_0(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "config.json").write_text(json.dumps(LLAMA_8B))
    with pytest.raises(InputError, match="no longer has quantization method 'fp_quant'.*0.33.0"):
        kvplan.fit(str(plain), gpu="H100", max_model_len=8192, vllm_version="0.34.0", quantization="fp_quant")
    declared = tmp_path / "fpq"
    declared.mkdir()
    (declared / "config.json").write_text(json.dumps(
        LLAMA_8B | {"quantization_config": {"quant_method": "fp_quant", "forward_dtype": "mxfp4"}}))
    with pytest.raises(InputError, match="fp_quant checkpoint .* vLLM 0.34.0 no longer has that method"):
        kvplan.fit(str(declared), gpu="H100", max_model_len=8192, vllm_version="0.34.0")


def test_the_flags_0_34_0_adds():
    check_serve_flags(["--enable-extensible-kv-cache", "--max-model-len", "--kv-cache-memory-bytes"], "0.34.0")
    with pytest.raises(InputError, match="first in vLLM 0.34.0"):
        check_serve_flags(["--enable-extensible-kv-cache"], "0.33.0")


@pytest.mark.parametrize("name, value", [("VLLM_USE_V2_MODEL_RUNNER", "0"), ("VLLM_USE_V2_MODEL_RUNNER", "true"),
                                         ("VLLM_MARLIN_INPUT_DTYPE", "int8"), ("VLLM_MARLIN_INPUT_DTYPE", "fp8")])
def test_environment_variables_0_34_0_refuses(name, value):
    check_serve_env([(name, value)], "0.33.0")  # read (or unknown, a warning) before 0.34.0
    with pytest.raises(InputError) as e:
        check_serve_env([(name, value)], "0.34.0")
    assert "no longer supported: Model Runner V1 has been removed" in e.value.message or "has been removed" in e.value.message
    assert "before 0.34.0" in e.value.fix


def test_model_runner_v2_forced_on_still_starts_on_0_34_0():
    check_serve_env([("VLLM_USE_V2_MODEL_RUNNER", "1")], "0.34.0")  # a warning there: redundant, not refused


def test_a_plan_and_the_launch_files_refuse_v1_on_0_34_0(tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text(json.dumps(LLAMA_8B))
    with pytest.raises(InputError, match="Model Runner V1 has been removed"):
        kvplan.fit(str(tmp_path / "m"), gpu="H100", max_model_len=8192, vllm_version="0.34.0",
                   env=["VLLM_USE_V2_MODEL_RUNNER=0"])
    assert kvplan.fit(str(tmp_path / "m"), gpu="H100", max_model_len=8192, vllm_version="0.33.0",
                      env=["VLLM_USE_V2_MODEL_RUNNER=0"]).fits
    r = subprocess.run([sys.executable, "-m", "kvplan", "scaffold", str(tmp_path / "proj"), str(tmp_path / "m"),
                        "--gpu", "H100", "--max-model-len", "8192", "--vllm-version", "0.34.0",
                        "--env", "VLLM_MARLIN_INPUT_DTYPE=int8"], capture_output=True, text=True)
    assert r.returncode != 0 and "VLLM_MARLIN_INPUT_DTYPE has been removed" in r.stdout + r.stderr


def test_architectures_0_34_0_registers_and_drops():
    release = parse_version("0.34.0")
    # new in 0.34.0's registry: refused by 0.33.0 (first registered in 0.34.0), planned by 0.34.0
    for arch in ("MistralLarge4ForCausalLM", "Lfm3ForCausalLM", "ZayaForCausalLM"):
        assert architecture_refusal([arch], release) is None
        kind, _, first = architecture_refusal([arch], parse_version("0.33.0"))
        assert kind == "unsupported" and first == "0.34.0"
    # Keye: moved to _PREVIOUSLY_SUPPORTED_MODELS with "0.33.0"; vLLM's own words
    kind, message, last = architecture_refusal(["KeyeForConditionalGeneration"], release)
    assert kind == "unsupported" and last == "0.33.0"
    assert message.startswith("Model architecture KeyeForConditionalGeneration was supported in vLLM until v0.33.0")
    assert architecture_refusal(["KeyeForConditionalGeneration"], parse_version("0.33.0")) is None
    kind, _, last = architecture_refusal(["PEagleDraftModel"], release)
    assert kind == "unsupported" and last == "0.33.0"
    assert has_hf_mapper(["Lfm3ForCausalLM"], release) and not has_hf_mapper(["Lfm3ForCausalLM"], parse_version("0.33.0"))
    assert not has_hf_mapper(["KeyeForConditionalGeneration"], release)
    # Lfm3ForCausalLM's LoRA embedding_modules hold embed_tokens and lm_head (models/lfm3.py, 0.34.0)
    assert "Lfm3ForCausalLM" in rules_for("0.34.0").lora_embedding_archs
    assert rules_for("0.34.0").lora_embedding_archs - rules_for("0.33.0").lora_embedding_archs == {"Lfm3ForCausalLM"}


@pytest.mark.parametrize("version, method", [("0.34.0", "lut_b_moe"), ("0.34.0", "mxfp4_hadamard32"),
                                             ("0.33.0", "nvfp4_per_token"), ("0.33.0", "int8_per_channel_weight_only")])
def test_online_only_quantization_is_said_to_be_unsized(tmp_path, version, method):
    # vLLM quantizes an unquantized checkpoint at load time for these (_ONLINE_SHORTHANDS): kvplan said the method
    # "needs a checkpoint quantized with" it, which vLLM does not require
    from kvplan.errors import UndeterminedError

    (tmp_path / "config.json").write_text(json.dumps(LLAMA_8B))
    with pytest.raises(UndeterminedError, match="at load time .* which kvplan does not size"):
        kvplan.fit(str(tmp_path), gpu="H100", max_model_len=8192, vllm_version=version, quantization=method)


@pytest.mark.parametrize("line, named", [
    ("ValueError: VLLM_USE_V2_MODEL_RUNNER=0 is no longer supported: Model Runner V1 has been removed. Unset this "
     "variable.", "Unset VLLM_USE_V2_MODEL_RUNNER"),
    ("(EngineCore_DP0 pid=4242) ERROR 12-02 01:00:00 [core.py:866] ValueError: VLLM_MARLIN_INPUT_DTYPE has been "
     "removed. Marlin no longer supports 8-bit activations. Use `--quantization humming` and set the activation dtype "
     "with VLLM_HUMMING_INPUT_QUANT_CONFIG, e.g. '{\"dtype\":\"int8\"}'.", "Remove VLLM_MARLIN_INPUT_DTYPE"),
])
def test_a_0_34_0_log_stopped_by_its_environment_is_diagnosed(line, named):
    from kvplan.diagnose import diagnose

    top = diagnose([line]).top
    assert top is not None and (top.symptom, top.layer) == ("invalid_engine_flags", "vllm_version_flags")
    assert named in top.fix
