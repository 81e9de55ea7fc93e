"""vLLM refuses a quantization method its release deprecates unless --allow-deprecated-quantization is given
(ModelConfig._verify_quantization, 0.14.0 on; the list per release in versions.py "deprecated_quant_methods")."""
import json
import subprocess
import sys

import pytest

import kvplan
from kvplan.versions import rules_for

# Meta's FP8 Llama 3.1 checkpoints declare quant_method "fbgemm_fp8" (8B shape; per-row FP8 weights, lm_head kept)
FBGEMM_CONFIG = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
    "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32, "vocab_size": 128256,
    "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "rope_theta": 500000.0, "torch_dtype": "bfloat16",
    "tie_word_embeddings": False,
    "quantization_config": {"quant_method": "fbgemm_fp8", "activation_scale_ub": 1200.0,
                            "modules_to_not_convert": ["lm_head"]},
}


@pytest.fixture()
def fbgemm_dir(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(FBGEMM_CONFIG))
    return tmp_path


def test_release_lists_as_read_in_the_wheels():
    assert rules_for("0.13.0").deprecated_quant_methods == ()
    assert "hqq" in rules_for("0.14.1").deprecated_quant_methods
    assert "hqq" not in rules_for("0.15.1").deprecated_quant_methods
    assert "experts_int8" in rules_for("0.19.0").deprecated_quant_methods
    assert rules_for("0.20.0").deprecated_quant_methods == ("tpu_int8", "fbgemm_fp8", "fp_quant")
    assert rules_for("0.33.0").deprecated_quant_methods == ("fbgemm_fp8", "fp_quant")


@pytest.mark.parametrize("version", ["0.14.0", "0.20.0", "0.33.0"])
def test_fbgemm_checkpoint_refused_without_the_flag(fbgemm_dir, version):
    p = kvplan.fit(str(fbgemm_dir), gpu="H100", max_model_len=8192, vllm_version=version)
    assert not p.fits
    assert p.failure_code == "quantization"
    assert "The quantization method fbgemm_fp8 is deprecated" in p.error
    assert "--allow-deprecated-quantization" in p.error


def test_fbgemm_checkpoint_starts_with_the_flag_and_before_0_14(fbgemm_dir):
    allowed = kvplan.fit(str(fbgemm_dir), gpu="H100", max_model_len=8192, vllm_version="0.33.0",
                         allow_deprecated_quantization=True)
    assert allowed.fits and allowed.kv_cache_tokens > 100_000
    older = kvplan.fit(str(fbgemm_dir), gpu="H100", max_model_len=8192, vllm_version="0.13.0")
    assert older.fits


def test_the_flag_is_refused_by_a_release_without_it(fbgemm_dir):
    with pytest.raises(kvplan.KvplanError, match="first in vLLM 0.14.0"):
        kvplan.fit(str(fbgemm_dir), gpu="H100", max_model_len=8192, vllm_version="0.12.0",
                   allow_deprecated_quantization=True)


def test_launch_files_carry_the_flag(fbgemm_dir, tmp_path):
    out = tmp_path / "proj"
    r = subprocess.run([sys.executable, "-m", "kvplan", "scaffold", str(out), str(fbgemm_dir), "--gpu", "H100",
                        "--max-model-len", "8192", "--allow-deprecated-quantization"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "--allow-deprecated-quantization" in (out / "serve.sh").read_text()
    refused = subprocess.run([sys.executable, "-m", "kvplan", "scaffold", str(tmp_path / "no"), str(fbgemm_dir),
                              "--gpu", "H100", "--max-model-len", "8192"], capture_output=True, text=True)
    assert refused.returncode != 0
    assert "deprecated" in refused.stderr + refused.stdout
    assert not (tmp_path / "no" / "serve.sh").exists()
