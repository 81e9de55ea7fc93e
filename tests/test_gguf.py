"""A single-file GGUF checkpoint (vllm serve ./model.gguf): shape from its metadata, weights from its tensor infos.
The files are written by the format's own library (gguf's GGUFWriter), with small shapes."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

import kvplan
from kvplan.errors import ConfigError, InputError
from kvplan.resolve import resolve_model
from kvplan.validate import uncertainty_band

gguf = pytest.importorskip("gguf")

GGUF_RELEASE = "0.23.0"  # the newest release with GGUF support (0.24.0 dropped it)
SHAPE = dict(hidden=256, layers=3, heads=8, kv_heads=2, ffn=512, vocab=1000, context=16384)


def write_gguf(path, arch="qwen2", tied=False, weight_type="Q8_0", kv_heads=SHAPE["kv_heads"], base_model_url=None):
    w = gguf.GGUFWriter(str(path), arch)
    if base_model_url:
        w.add_string("general.base_model.0.repo_url", base_model_url)
    w.add_context_length(SHAPE["context"])
    w.add_embedding_length(SHAPE["hidden"])
    w.add_block_count(SHAPE["layers"])
    w.add_feed_forward_length(SHAPE["ffn"])
    w.add_head_count(SHAPE["heads"])
    w.add_head_count_kv(kv_heads)
    w.add_rope_freq_base(1e6)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_token_list([f"t{i}".encode() for i in range(SHAPE["vocab"])])
    qtype = getattr(gguf.GGMLQuantizationType, weight_type)
    rng = np.random.default_rng(0)

    def matrix(name, rows, cols):
        data = rng.standard_normal((rows, cols)).astype(np.float32)
        if weight_type != "F32":
            data = gguf.quants.quantize(data, qtype)
        w.add_tensor(name, data, raw_dtype=qtype)

    h, kv = SHAPE["hidden"], kv_heads * SHAPE["hidden"] // SHAPE["heads"]
    matrix("token_embd.weight", SHAPE["vocab"], h)
    for i in range(SHAPE["layers"]):
        for name, rows, cols in (("attn_q", h, h), ("attn_k", kv, h), ("attn_v", kv, h), ("attn_output", h, h),
                                 ("ffn_gate", SHAPE["ffn"], h), ("ffn_up", SHAPE["ffn"], h), ("ffn_down", h, SHAPE["ffn"])):
            matrix(f"blk.{i}.{name}.weight", rows, cols)
        for norm in ("attn_norm", "ffn_norm"):
            w.add_tensor(f"blk.{i}.{norm}.weight", np.ones(h, np.float32))
    w.add_tensor("output_norm.weight", np.ones(h, np.float32))
    if not tied:
        matrix("output.weight", SHAPE["vocab"], h)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def test_the_shape_comes_from_the_metadata_and_the_weights_from_the_tensor_infos(tmp_path):
    path = write_gguf(tmp_path / "tiny-Q8_0.gguf")
    spec = resolve_model(str(path))
    assert spec.model_type == "qwen2" and spec.quant.method == "gguf" and "Q8_0" in spec.quant.scheme
    reader = gguf.GGUFReader(str(path))
    stored = sum(int(t.n_bytes) // (2 if len(t.shape) == 1 else 1) for t in reader.tensors)  # F32 norms held at 2 B
    assert spec.checkpoint.total_bytes == stored
    assert 8.4 < spec.quant.bits < 8.6  # Q8_0: 34 bytes per 32 weights
    p = kvplan.fit(str(path), "L4", max_model_len=4096, fixes=False, vllm_version=GGUF_RELEASE)
    head_dim = SHAPE["hidden"] // SHAPE["heads"]
    assert p.kv_bytes_per_token == 2 * SHAPE["layers"] * SHAPE["kv_heads"] * head_dim * 2
    assert p.weights_bytes >= stored and p.weights_exact
    assert any("no GGUF startup" in a for a in p.assumptions)
    band = uncertainty_band(p)
    assert band["outside_validation"] and "no GGUF startup" in band["text"]


def test_a_tied_file_has_no_output_projection(tmp_path):
    untied = resolve_model(str(write_gguf(tmp_path / "a.gguf")))
    tied = resolve_model(str(write_gguf(tmp_path / "b.gguf", tied=True)))
    assert tied.checkpoint.total_bytes < untied.checkpoint.total_bytes
    assert untied.checkpoint.lm_head_bytes > 0 and tied.checkpoint.lm_head_bytes == 0


def test_the_cli_plans_it_and_says_where_the_numbers_come_from(tmp_path):
    path = write_gguf(tmp_path / "tiny.gguf")
    r = subprocess.run(["kvplan", "fit", str(path), "--gpu", "L4", "--max-model-len", "4096", "--json",
                        "--vllm-version", GGUF_RELEASE],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["args"]["quantization"] == "gguf" and "PyTorch" not in r.stderr
    assert "GGUF" in d["uncertainty"]["text"]


def test_what_cannot_be_read_is_refused_by_name(tmp_path):
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF" + b"\0" * 7)
    with pytest.raises(InputError) as e:
        resolve_model(str(bad))
    assert e.value.field == "model" and "not a readable GGUF file" in str(e.value)
    with pytest.raises(ConfigError) as e:
        resolve_model(str(write_gguf(tmp_path / "x.gguf", arch="rwkv6")))
    assert "rwkv6" in str(e.value)
    r = subprocess.run(["kvplan", "fit", str(bad)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_bfloat16_gguf_on_blackwell_is_warned_and_float16_is_not(tmp_path):
    path = str(write_gguf(tmp_path / "tiny.gguf"))
    bf16 = kvplan.fit(path, "B200", max_model_len=4096, fixes=False, vllm_version=GGUF_RELEASE)
    assert bf16.args.dtype == "bfloat16" and any("PR #30408" in w for w in bf16.warnings)
    fp16 = kvplan.fit(path, "B200", max_model_len=4096, dtype="float16", fixes=False, vllm_version=GGUF_RELEASE)
    assert not any("PR #30408" in w for w in fp16.warnings)
    assert not any("PR #30408" in w for w in kvplan.fit(path, "H100", max_model_len=4096, fixes=False, vllm_version=GGUF_RELEASE).warnings)


@pytest.mark.parametrize("ref, gguf_form", [("unsloth/Qwen3-0.6B-GGUF:Q4_K_M", True), ("unsloth/Qwen3-8B-GGUF:UD-Q4_K_XL", True),
                                            ("org/model-GGUF:BF16", True), ("Qwen/Qwen3-8B:latest", False)])
def test_a_hub_gguf_reference_is_refused_by_what_it_is(ref, gguf_form):
    with pytest.raises(InputError) as e:
        resolve_model(ref)
    assert ("repo_id:quant_type" in str(e.value)) == gguf_form


def test_serve_sh_uses_the_base_models_tokenizer_where_the_file_names_it(tmp_path):
    from kvplan.deploy import render_files, spec_from_plan

    named = write_gguf(tmp_path / "a.gguf", base_model_url="https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct")
    serve = render_files(spec_from_plan(kvplan.fit(str(named), "L4", max_model_len=4096, fixes=False, vllm_version=GGUF_RELEASE)))["serve.sh"]
    assert "--tokenizer Qwen/Qwen2.5-0.5B-Instruct" in serve and f"{named.resolve()}" in serve
    unnamed = write_gguf(tmp_path / "b.gguf")
    serve = render_files(spec_from_plan(kvplan.fit(str(unnamed), "L4", max_model_len=4096, fixes=False, vllm_version=GGUF_RELEASE)))["serve.sh"]
    assert "--tokenizer" not in serve


def test_a_release_without_gguf_support_refuses_the_file_by_name(tmp_path):
    path = str(write_gguf(tmp_path / "tiny.gguf"))
    for version in ("0.24.0", "0.33.0"):
        with pytest.raises(InputError) as e:
            kvplan.fit(path, "L4", max_model_len=4096, vllm_version=version)
        assert e.value.field == "model" and f"vLLM {version} has no GGUF support" in str(e.value)
        assert "pin --vllm-version 0.23.0" in str(e.value)
    with pytest.raises(InputError) as e:
        kvplan.fit("Qwen/Qwen3-8B", "L4", quantization="gguf", vllm_version="0.24.0")
    assert "newest release read that has it is 0.23.0" in str(e.value)
    assert kvplan.fit(path, "L4", max_model_len=4096, vllm_version="0.23.0").fits
