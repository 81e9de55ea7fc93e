"""Model and GPU references: catalog, local checkpoint folder, bare config.json, and the Hub (a local stand-in)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fake_hub import COMMIT, FakeHub, safetensors_bytes
from kvplan.errors import ConfigError, InputError, UnknownGPUError, UnknownModelError
from kvplan.resolve import find_gpu, read_safetensors_header, resolve_gpu, resolve_model

TINY_CONFIG = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 256, "intermediate_size": 512,
    "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1000,
    "max_position_embeddings": 2048, "torch_dtype": "bfloat16", "tie_word_embeddings": False,
}


def tiny_tensors() -> dict:
    t = {"model.embed_tokens.weight": ("BF16", [1000, 256]), "lm_head.weight": ("BF16", [1000, 256]),
         "model.norm.weight": ("BF16", [256])}
    for i in range(2):
        p = f"model.layers.{i}."
        t.update({p + "self_attn.q_proj.weight": ("BF16", [256, 256]), p + "self_attn.k_proj.weight": ("BF16", [128, 256]),
                  p + "self_attn.v_proj.weight": ("BF16", [128, 256]), p + "self_attn.o_proj.weight": ("BF16", [256, 256]),
                  p + "mlp.gate_proj.weight": ("BF16", [512, 256]), p + "mlp.up_proj.weight": ("BF16", [512, 256]),
                  p + "mlp.down_proj.weight": ("BF16", [256, 512]), p + "input_layernorm.weight": ("BF16", [256]),
                  p + "post_attention_layernorm.weight": ("BF16", [256])})
    return t


def tiny_param_count() -> int:
    n = 0
    for _, shape in tiny_tensors().values():
        k = 1
        for d in shape:
            k *= d
        n += k
    return n


# ---- GPUs


@pytest.mark.parametrize("ref,expect", [
    ("h100", "NVIDIA H100 80GB SXM5"), ("A100-80GB", "NVIDIA A100 80GB SXM4"), ("NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB SXM4"),
    ("L4", "NVIDIA L4"), ("t4", "NVIDIA Tesla T4"), ("RTX 4090", "NVIDIA GeForce RTX 4090"), ("H200", "NVIDIA H200 141GB"),
])
def test_gpu_names_match_forgivingly(ref, expect):
    assert find_gpu(ref).name == expect


def test_gpu_totals_are_what_vllm_logs():
    assert round(find_gpu("T4").total_gib, 2) == 14.56
    assert round(find_gpu("RTX 3090").total_gib, 2) == 23.58
    assert round(find_gpu("H100").total_gib, 2) == 79.22
    assert round(find_gpu("L40S").total_gib, 2) == 44.31


def test_unknown_gpu_names_the_nearest():
    with pytest.raises(UnknownGPUError) as e:
        find_gpu("H1000X")
    assert "--gpu" in str(e.value) and "nearest" in str(e.value)
    with pytest.raises(UnknownGPUError) as e:  # an alias two cards share ('V100': 16 and 32 GB) is offered once
        find_gpu("H1000")
    near = str(e.value).split("nearest: ")[1].split(";")[0].split(", ")
    assert "V100" in near and len(near) == len(set(near))


def test_custom_gpu_size_and_fallback():
    spec, _ = resolve_gpu(None, gib=24)
    assert spec.total_bytes == 24 * 1024 ** 3
    spec, notes = resolve_gpu(None, detect=False)
    assert spec.name == "NVIDIA Tesla T4" and "T4" in notes[0]
    with pytest.raises(InputError):
        resolve_gpu(None, gib=-1)


# ---- models: catalog, folder, config.json


def test_catalog_model_resolves_offline_with_exact_weights():
    m = resolve_model("Qwen/Qwen2.5-0.5B-Instruct")
    assert m.num_layers == 24 and m.num_kv_heads == 2 and m.head_dim == 64
    assert m.weights_bytes == 988_065_536


def test_every_catalog_model_plans_offline():
    """Each shipped model gives a plan on 8 x H200 under the newest rules it is served by (no missing field)."""
    from kvplan import api
    from kvplan.resolve import catalog_ids

    failures = {}
    for model_id in catalog_ids():
        try:
            api.fit(model_id, "H200", tensor_parallel_size=8, detect_gpu=False, fixes=False, max_model_len=4096)
        except InputError as exc:
            if "not divisible" not in str(exc) and "--vllm-version" not in str(exc):
                failures[model_id] = str(exc)
    assert not failures


def test_glm45_catalog_config_completed_from_its_sources():
    """The shared GLM-4.5 config is an excerpt; the completed fields give the published 355 B parameters (bf16)."""
    from kvplan import api

    p = api.fit("zai-org/GLM-4.5", "H200", tensor_parallel_size=8, detect_gpu=False, fixes=False)
    params = p.weights_bytes * 8 / 2
    assert abs(params / 355e9 - 1) < 0.01
    assert p.model.num_kv_heads == 8 and p.model.num_layers == 92
    assert any("excerpt" in a and "vocab_size" in a and "slime" in a for a in p.assumptions)


def test_catalog_lookup_is_case_insensitive():
    assert resolve_model("qwen/qwen2.5-0.5b-instruct").id == "Qwen/Qwen2.5-0.5B-Instruct"


def test_unknown_model_names_nearest_catalog_ids():
    with pytest.raises(UnknownModelError) as e:
        resolve_model("Qwen2.5-0.5B-Instrct")
    assert "Qwen/Qwen2.5-0.5B-Instruct" in str(e.value)


def test_local_folder_reads_safetensors_headers_only(tmp_path: Path):
    (tmp_path / "config.json").write_text(json.dumps(TINY_CONFIG))
    blob = safetensors_bytes(tiny_tensors())
    (tmp_path / "model.safetensors").write_bytes(blob)
    m = resolve_model(str(tmp_path))
    assert m.checkpoint is not None
    assert m.checkpoint.total_bytes == tiny_param_count() * 2
    assert dict(m.checkpoint.bytes_by_dtype) == {"BF16": tiny_param_count() * 2}
    # the architecture count agrees with the checkpoint for a plain Llama
    from kvplan.weights import count_weights

    assert count_weights(m).total_params == tiny_param_count() + (1024 - 1000) * 256 * 2  # vocab padded to 64


def test_header_reader_never_reads_tensor_data(tmp_path: Path):
    blob = safetensors_bytes({"w": ("F32", [4, 4])})
    f = tmp_path / "x.safetensors"
    f.write_bytes(blob[:-64] + b"")  # truncated data: a header-only reader still works
    assert read_safetensors_header(f)["w"]["dtype"] == "F32"


def test_bare_config_json(tmp_path: Path):
    p = tmp_path / "config.json"
    p.write_text(json.dumps(TINY_CONFIG))
    m = resolve_model(str(p))
    assert m.hidden_size == 256 and m.checkpoint is None


def test_malformed_and_incomplete_configs(tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ConfigError) as e:
        resolve_model(str(bad))
    assert "not valid JSON" in str(e.value)
    incomplete = tmp_path / "inc.json"
    incomplete.write_text(json.dumps({"model_type": "llama", "hidden_size": 64}))
    with pytest.raises(ConfigError) as e:
        resolve_model(str(incomplete))
    assert "num_hidden_layers" in str(e.value)


def test_unsupported_layer_kind_says_what_is_missing(tmp_path: Path):
    cfg = dict(TINY_CONFIG, model_type="mystery", layer_types=["warp_attention", "full_attention"])
    p = tmp_path / "c.json"
    p.write_text(json.dumps(cfg))
    with pytest.raises(ConfigError) as e:
        resolve_model(str(p))
    assert "warp_attention" in str(e.value) and "supported" in str(e.value)


def test_multimodal_uses_text_config_and_counts_the_vision_tower():
    m = resolve_model("llava-hf/llava-1.5-7b-hf")
    assert m.is_multimodal and m.num_layers == 32 and m.hidden_size == 4096
    from kvplan.weights import count_weights

    assert any(c.name == "vision" and c.params > 2e8 for c in count_weights(m).components)


# ---- the Hub, through a local stand-in (HF_ENDPOINT)


def _run_cli(args: list[str], env_extra: dict) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    env.update(env_extra)
    return subprocess.run([sys.executable, "-m", "kvplan.cli.__main__", *args] if False else ["kvplan", *args],
                          capture_output=True, text=True, env=env, timeout=120)


@pytest.fixture()
def hub(tmp_path):
    with FakeHub() as h:
        h.add("acme/tiny-llama", "config.json", TINY_CONFIG)
        h.add("acme/tiny-llama", "model.safetensors", safetensors_bytes(tiny_tensors()))
        h.add("acme/gated-llama", "config.json", TINY_CONFIG)
        h.gated.add("acme/gated-llama")
        yield h


def test_hub_config_and_safetensors_metadata(hub, tmp_path):
    r = _run_cli(["fit", "acme/tiny-llama", "--revision", COMMIT, "--gpu", "L4", "--max-model-len", "2048", "--json"],
                 {"HF_ENDPOINT": hub.url, "HF_HOME": str(tmp_path / "hf")})
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["weights_exact"] is True
    assert d["model_source"].startswith("hub: acme/tiny-llama@" + COMMIT)
    assert d["kv_bytes_per_token"] == 2 * 2 * 2 * 64 * 2
    assert any("model.safetensors" in q for q in hub.requests)


def test_a_hub_model_is_scaffolded_at_the_commit_its_config_was_read_at(hub, tmp_path):
    """No --revision: main, read at the commit the Hub answered with, which serve.sh pins."""
    env = {"HF_ENDPOINT": hub.url, "HF_HOME": str(tmp_path / "hf")}
    r = _run_cli(["scaffold", str(tmp_path / "deploy"), "acme/tiny-llama", "--gpu", "L4", "--max-model-len", "2048"], env)
    assert r.returncode == 0, r.stderr
    serve = (tmp_path / "deploy" / "serve.sh").read_text()
    assert f'REVISION=${{REVISION:-{COMMIT}}}' in serve and "NOT pinned" not in serve


def test_hub_gated_repo_says_set_hf_token(hub, tmp_path):
    r = _run_cli(["fit", "acme/gated-llama", "--gpu", "L4"], {"HF_ENDPOINT": hub.url, "HF_HOME": str(tmp_path / "hf")})
    assert r.returncode != 0
    assert "gated or private: set HF_TOKEN" in r.stderr
    assert "Traceback" not in r.stderr


def test_hub_unknown_repo(hub, tmp_path):
    r = _run_cli(["fit", "acme/nothing-here", "--gpu", "L4"], {"HF_ENDPOINT": hub.url, "HF_HOME": str(tmp_path / "hf")})
    assert r.returncode == 2
    assert "not found" in r.stderr and "Traceback" not in r.stderr


def test_hub_offline_names_the_offline_options(tmp_path):
    r = _run_cli(["fit", "acme/not-cached", "--gpu", "L4"], {"HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")})
    assert r.returncode != 0
    assert "catalog id" in r.stderr and "HF_HUB_OFFLINE" in r.stderr


def test_hub_unreachable_names_the_offline_options(tmp_path):
    r = _run_cli(["fit", "acme/anything", "--gpu", "L4"], {"HF_ENDPOINT": "http://127.0.0.1:9", "HF_HOME": str(tmp_path / "hf"),
                                                            "HF_HUB_ETAG_TIMEOUT": "2", "HF_HUB_DOWNLOAD_TIMEOUT": "2"})
    assert r.returncode != 0
    assert "catalog id" in r.stderr and "Traceback" not in r.stderr


def test_an_unreachable_hub_falls_back_to_the_hf_cache_at_once(hub, tmp_path):
    import time

    home = {"HF_HOME": str(tmp_path / "hf")}
    first = _run_cli(["fit", "acme/tiny-llama", "--gpu", "L4", "--max-model-len", "2048", "--json"], {"HF_ENDPOINT": hub.url, **home})
    assert first.returncode == 0, first.stderr
    t0 = time.perf_counter()
    again = _run_cli(["fit", "acme/tiny-llama", "--gpu", "L4", "--max-model-len", "2048", "--json"],
                     {"HF_ENDPOINT": "http://127.0.0.1:9", **home})
    assert again.returncode == 0, again.stderr
    assert time.perf_counter() - t0 < 15  # no half-minute of retries
    d = json.loads(again.stdout)
    assert any("did not answer" in a for a in d["assumptions"])
    assert d["kv_bytes_per_token"] == json.loads(first.stdout)["kv_bytes_per_token"]
    gone = _run_cli(["fit", "acme/never-fetched", "--gpu", "L4"], {"HF_ENDPOINT": "http://127.0.0.1:9", **home})
    assert gone.returncode != 0 and "does not hold it" in gone.stderr and "Retrying" not in gone.stderr


def test_per_layer_lists_are_read_or_refused_clearly(tmp_path: Path):
    same = dict(TINY_CONFIG, intermediate_size=[512, 512])
    p = tmp_path / "same.json"
    p.write_text(json.dumps(same))
    assert resolve_model(str(p)).intermediate_size == 512
    differ = dict(TINY_CONFIG, intermediate_size=[512, 1024])
    q = tmp_path / "differ.json"
    q.write_text(json.dumps(differ))
    with pytest.raises(ConfigError) as e:
        resolve_model(str(q))
    assert str(e.value).startswith("intermediate_size") and "per-layer" in str(e.value)


def test_every_transformers_default_config_plans_or_fails_cleanly():
    """No config transformers knows makes the planner crash: it plans, or names what is missing."""
    import logging
    import warnings

    from transformers import CONFIG_MAPPING

    import kvplan
    from kvplan.errors import KvplanError
    from kvplan.resolve import normalize

    logging.disable(logging.WARNING)
    planned = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for model_type, cls in CONFIG_MAPPING.items():
            try:
                cfg = cls().to_dict()
            except Exception:
                continue  # a config class that cannot be built without arguments
            cfg["model_type"] = model_type
            try:
                spec = normalize(cfg, model_id=model_type, source="transformers default", autoconfig=False)
                kvplan.fit(spec, "H100", max_model_len=min(spec.max_position_embeddings or 2048, 2048), fixes=False)
                planned += 1
            except KvplanError:
                pass
    logging.disable(logging.NOTSET)
    assert planned > 200


def test_gemma4_moe_layers_keep_their_parallel_dense_mlp():
    # Gemma 4's MoE layers run a dense MLP beside the experts; two real startups (A100, H200) logged
    # "Model loading took 48.5 GiB" for google/gemma-4-26B-A4B in bf16
    from kvplan.weights import count_weights

    spec = resolve_model("google/gemma-4-26B-A4B")
    parts = count_weights(spec).components
    layer0 = {c.name for c in parts if c.layer == 0}
    assert {"experts", "mlp"} <= layer0
    total_gib = sum(c.params for c in parts) * 2 / 1024 ** 3
    assert abs(total_gib - 48.5) / 48.5 < 0.02


@pytest.mark.parametrize("written, expect", [
    ("NVIDIA A10G (AWS g5.12xlarge, 1 of 4 GPUs used)", "a10g"),      # remarks in parentheses
    ("NVIDIA GeForce RTX 4090 24GB", "rtx-4090"),                     # a memory size the catalog name lacks
    ("NVIDIA RTX PRO 6000 Blackwell (96GB)", "rtx-pro-6000-blackwell"),
    ("NVIDIA L40S-48GB", "l40s"),
    ("NVIDIA A100 40GB", "a100-40gb-sxm"),                            # the size picks the variant
])
def test_gpu_names_as_logs_and_reports_write_them(written, expect):
    assert find_gpu(written).id == expect


@pytest.mark.parametrize("written, expect, count", [
    ("NVIDIA A100-SXM4-80GB x 8", "a100-80gb-sxm", 8),                 # the count after the name
    ("NVIDIA GeForce RTX 3090 * 2", "rtx-3090", 2),
    ("8x NVIDIA H100 80GB HBM3", "h100-sxm", 8),                       # ... or before it
    ("GPU 0: NVIDIA L4 (UUID: GPU-9c1f2e4a)", "l4", None),             # a line of nvidia-smi -L
    ("NVIDIA GeForce RTX 4090", "rtx-4090", None),                     # RTX's X and a number are no count
    ("AMD Radeon RX 7900 XTX", "rx-7900-xtx", None),
])
def test_a_gpu_count_written_with_the_name_is_read_as_a_count(written, expect, count):
    from kvplan.resolve import gpu_count_in_name

    assert find_gpu(written).id == expect and gpu_count_in_name(written) == count


def test_a_logged_total_picks_the_variant_and_other_cards_stay_unknown():
    assert find_gpu("NVIDIA A100", total_bytes=int(39.39 * 1024 ** 3)).id == "a100-40gb-sxm"
    assert find_gpu("NVIDIA A100", total_bytes=int(79.25 * 1024 ** 3)).id == "a100-80gb-sxm"
    assert find_gpu("NVIDIA GeForce RTX 3090 Ti").id == "rtx-3090-ti"  # a card of its own, not the 3090
    with pytest.raises(UnknownGPUError):
        find_gpu("NVIDIA GeForce RTX 3090 Ti Laptop GPU")  # a different card is never matched to its neighbour


def test_mtp_tensors_are_kept_apart_from_the_target_model(tmp_path: Path):
    # vLLM skips a checkpoint's MTP module when it loads the target model (DeepSeek-style: layers numbered past
    # num_hidden_layers); it loads it only as the speculative drafter
    config = dict(TINY_CONFIG, num_nextn_predict_layers=1)
    tensors = tiny_tensors()
    mtp = {k.replace("layers.1.", "layers.2."): v for k, v in tiny_tensors().items() if "layers.1." in k}
    mtp["model.layers.2.eh_proj.weight"] = ("BF16", [256, 512])
    (tmp_path / "config.json").write_text(json.dumps(config))
    (tmp_path / "model.safetensors").write_bytes(safetensors_bytes({**tensors, **mtp}))
    m = resolve_model(str(tmp_path))
    assert m.checkpoint.total_bytes == tiny_param_count() * 2
    assert m.checkpoint.mtp_bytes == sum(math.prod(shape) for _, shape in mtp.values()) * 2
    assert m.mtp_layers == 1


def test_sentence_transformers_pooling_module_makes_a_causal_lm_a_pooling_model(tmp_path: Path, hub):
    # vLLM's --runner auto asks for a sentence-transformers Pooling module before the architecture
    # (vllm/config/model.py _get_default_runner_type): a Qwen3ForCausalLM embedding checkpoint is served as pooling
    from kvplan.plan import EngineArgs, plan

    (tmp_path / "config.json").write_text(json.dumps(TINY_CONFIG))
    (tmp_path / "model.safetensors").write_bytes(safetensors_bytes(tiny_tensors()))
    generative = resolve_model(str(tmp_path))
    assert not generative.is_pooling and generative.checkpoint.lm_head_bytes == 1000 * 256 * 2
    (tmp_path / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]))
    pooling = resolve_model(str(tmp_path))
    assert pooling.is_pooling and any("Pooling module" in n for n in pooling.notes)
    gpu = find_gpu("L4")
    p_gen, p_pool = (plan(m, gpu, EngineArgs(max_model_len=2048)) for m in (generative, pooling))
    assert p_gen.weights_bytes - p_pool.weights_bytes == 1000 * 256 * 2  # the lm_head is not loaded
    # --runner generate overrides the module, and says so
    p_back = plan(pooling, gpu, EngineArgs(max_model_len=2048, runner="generate"))
    assert p_back.weights_bytes == p_gen.weights_bytes and any("--runner generate" in a for a in p_back.assumptions)
    # the same through the Hub
    hub.add("acme/tiny-embed", "config.json", TINY_CONFIG)
    hub.add("acme/tiny-embed", "model.safetensors", safetensors_bytes(tiny_tensors()))
    hub.add("acme/tiny-embed", "modules.json", (tmp_path / "modules.json").read_text())
    r = _run_cli(["fit", "acme/tiny-embed", "--revision", COMMIT, "--gpu", "L4", "--max-model-len", "2048", "--json"],
                 {"HF_ENDPOINT": hub.url, "HF_HOME": str(tmp_path / "hf")})
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["weights_bytes"] == p_pool.weights_bytes
    assert any("pooling" in a for a in d["assumptions"])


def test_json_files_with_a_byte_order_mark_are_read(tmp_path: Path):
    # some Windows editors save UTF-8 with a BOM: config.json must not be refused for it, and a modules.json must not
    # be skipped for it (which would plan a sentence-transformers checkpoint as a generative model)
    bom = "\ufeff"
    (tmp_path / "config.json").write_text(bom + json.dumps(TINY_CONFIG), encoding="utf-8")
    (tmp_path / "model.safetensors").write_bytes(safetensors_bytes(tiny_tensors()))
    plain = resolve_model(str(tmp_path))
    assert plain.num_layers == 2 and plain.num_kv_heads == 2 and not plain.is_pooling
    (tmp_path / "modules.json").write_text(bom + json.dumps([
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]), encoding="utf-8")
    assert resolve_model(str(tmp_path)).is_pooling
    assert resolve_model(str(tmp_path / "config.json")).num_layers == 2  # a bare config.json too
    (tmp_path / "config.json").write_bytes(b"\xff\xfe{")  # neither UTF-8 nor JSON: still a clear error
    with pytest.raises(InputError) as e:
        resolve_model(str(tmp_path))
    assert e.value.field == "config.json"


def test_an_encoder_only_model_is_refused_with_the_reason(tmp_path: Path):
    # BERT-family attention is encoder-only: vLLM builds no KV-cache spec for it, so a KV pool would be invented
    from transformers import BertConfig

    config = dict(BertConfig().to_dict(), architectures=["BertModel"])
    (tmp_path / "config.json").write_text(json.dumps(config))
    with pytest.raises(InputError) as e:
        kvplan_fit(str(tmp_path / "config.json"))
    assert e.value.field == "model" and "encoder-only" in str(e.value) and "no KV cache" in str(e.value)


def kvplan_fit(model: str):
    import kvplan

    return kvplan.fit(model, gpu="T4", max_model_len=512)


def test_a_known_model_type_with_a_bad_value_is_named_as_rejected_not_unknown():
    from kvplan.resolve import _autoconfig_dict

    _, why = _autoconfig_dict({"model_type": "qwen2", "hidden_size": "weird", "num_hidden_layers": 2})
    assert "rejected this 'qwen2' config" in why and "hidden_size" in why
    _, why = _autoconfig_dict({"model_type": "mystery", "hidden_size": 8})
    assert "does not know model_type 'mystery'" in why


@pytest.mark.parametrize("name, want_gib", [("H100-80G", 79.2), ("A100 80G", 79.3), ("RTX 4090 24G", 23.6)])
def test_memory_written_without_the_b_still_names_the_card(name, want_gib):
    g, _ = resolve_gpu(name, detect=False)
    assert g.total_gib == pytest.approx(want_gib, abs=0.1)


def test_a_count_written_into_the_gpu_name_is_the_gpus_available_not_the_ranks():
    g, notes = resolve_gpu("4x H100", detect=False)
    assert "H100" in g.name and any("4 x NVIDIA H100" in n and "--num-gpus 4" in n for n in notes)
    import kvplan

    one = kvplan.fit("Qwen/Qwen3-8B", "2x L40S", max_model_len=8192, fixes=False)
    assert one.args.tensor_parallel_size == 1 and one.args.num_gpus == 2  # vllm serve's TP is its flag's
    assert any("names 2 GPUs, but vLLM uses 1" in w and "--tensor-parallel-size 2" in w for w in one.warnings)
    both = kvplan.fit("Qwen/Qwen3-8B", "2x L40S", max_model_len=8192, tensor_parallel_size=2, fixes=False)
    assert not any("names 2 GPUs" in w for w in both.warnings)
    with pytest.raises(InputError):
        kvplan.fit("Qwen/Qwen3-8B", "2x L40S", max_model_len=8192, tensor_parallel_size=4, fixes=False)
    seed = kvplan.fit(detect_gpu=False, fixes=False)  # the GPU's notes no longer replace the no-model note
    assert any("the seed's example" in a for a in seed.assumptions) and any("Tesla T4" in a for a in seed.assumptions)


@pytest.mark.parametrize("name, form", [("T4", "datacenter"), ("H100", "datacenter"), ("L40S", "datacenter"),
                                        ("RTX 4090", "desktop"), ("RTX A6000", "desktop"), ("RTX 6000 Ada", "desktop"),
                                        ("RTX 4090 Laptop", "laptop"), ("GB10", "integrated"), ("Jetson AGX Thor", "integrated"),
                                        ("MI300X", "datacenter")])
def test_a_gpu_says_what_kind_of_machine_holds_it(name, form):
    assert resolve_gpu(name, detect=False)[0].form == form


def test_a_file_that_is_not_a_config_is_named_for_what_it_is(tmp_path):
    gguf = tmp_path / "model-Q4_K_M.gguf"
    gguf.write_bytes(b"GGUF")
    with pytest.raises(InputError) as e:
        resolve_model(str(gguf))
    assert e.value.field == "model" and "not a readable GGUF file" in str(e.value) and "no such file" not in str(e.value)
    other = tmp_path / "weights.bin"
    other.write_bytes(b"\0")
    with pytest.raises(InputError) as e:
        resolve_model(str(other))
    assert "is a .bin file, not a config.json" in str(e.value)
    with pytest.raises(InputError) as e:
        resolve_model(str(tmp_path / "missing.json"))
    assert "no such file or folder" in str(e.value)


# configs that spell the model's shape their own way (as their checkpoints' config.json do, trimmed to what sizes the
# model), with the parameter counts their model cards publish
_OWN_SPELLINGS = {
    "facebook/opt-125m": ({"architectures": ["OPTForCausalLM"], "model_type": "opt", "hidden_size": 768, "ffn_dim": 3072,
                           "num_attention_heads": 12, "num_hidden_layers": 12, "max_position_embeddings": 2048,
                           "vocab_size": 50272, "word_embed_proj_dim": 768, "torch_dtype": "float16",
                           "activation_function": "relu", "do_layer_norm_before": True}, 125e6),
    "openai-community/gpt2": ({"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_embd": 768, "n_head": 12,
                               "n_layer": 12, "n_positions": 1024, "n_ctx": 1024, "vocab_size": 50257,
                               "activation_function": "gelu_new"}, 124e6),
    "EleutherAI/gpt-j-6b": ({"architectures": ["GPTJForCausalLM"], "model_type": "gptj", "n_embd": 4096, "n_head": 16,
                             "n_layer": 28, "n_positions": 2048, "n_inner": None, "rotary_dim": 64, "vocab_size": 50400,
                             "tie_word_embeddings": False, "torch_dtype": "float32", "activation_function": "gelu_new"},
                            6.053e9),
    "mosaicml/mpt-7b": ({"architectures": ["MPTForCausalLM"], "model_type": "mpt", "d_model": 4096, "n_heads": 32,
                         "n_layers": 32, "expansion_ratio": 4, "max_seq_len": 2048, "vocab_size": 50432,
                         "torch_dtype": "bfloat16", "attn_config": {"alibi": True, "attn_type": "multihead_attention"},
                         "no_bias": True}, 6.7e9),
    "EleutherAI/pythia-1.4b": ({"architectures": ["GPTNeoXForCausalLM"], "model_type": "gpt_neox", "hidden_size": 2048,
                                "intermediate_size": 8192, "num_attention_heads": 16, "num_hidden_layers": 24,
                                "max_position_embeddings": 2048, "vocab_size": 50304, "tie_word_embeddings": False,
                                "torch_dtype": "float16", "hidden_act": "gelu", "rotary_pct": 0.25}, 1.4146e9),
    "databricks/dbrx-instruct": ({"architectures": ["DbrxForCausalLM"], "model_type": "dbrx", "d_model": 6144,
                                  "n_heads": 48, "n_layers": 40, "max_seq_len": 32768, "vocab_size": 100352,
                                  "attn_config": {"clip_qkv": 8, "kv_n_heads": 8, "rope_theta": 500000},
                                  "ffn_config": {"ffn_hidden_size": 10752, "moe_num_experts": 16, "moe_top_k": 4},
                                  "tie_word_embeddings": False, "torch_dtype": "bfloat16"}, 132e9),
}


@pytest.mark.parametrize("model_id", sorted(_OWN_SPELLINGS))
def test_a_config_in_its_own_names_is_sized_as_its_model_card_says(model_id, tmp_path: Path):
    # GPT-2's n_embd / n_layer, MPT's d_model / n_layers / expansion_ratio, OPT's ffn_dim, DBRX's attn_config and
    # ffn_config: vLLM reads them through transformers' config classes, so a record of such a model is planned, and its
    # weights match the parameter count its model card publishes (MLPs of two matrices where the model has them)
    from kvplan.weights import count_weights

    config, params = _OWN_SPELLINGS[model_id]
    p = tmp_path / "config.json"
    p.write_text(json.dumps(config))
    spec = resolve_model(str(p))
    counted = sum(c.params for c in count_weights(spec).components)
    assert abs(counted - params) / params < 0.03, (counted, params)
    if "attn_config" in config:
        assert spec.num_kv_heads == config["attn_config"].get("kv_n_heads", spec.num_attention_heads)


@pytest.mark.parametrize("model_type, arch, config, params", [
    # state-spaces/mamba-2.8b-hf's config.json (its shape keys; 2.8B parameters) and tiiuae/falcon-mamba-7b's (7.27B)
    ("mamba", "MambaForCausalLM", {"hidden_size": 2560, "num_hidden_layers": 64, "intermediate_size": 5120, "state_size": 16,
                                   "conv_kernel": 4, "expand": 2, "time_step_rank": 160, "vocab_size": 50280,
                                   "torch_dtype": "float32"}, 2.8e9),
    ("falcon_mamba", "FalconMambaForCausalLM", {"hidden_size": 4096, "num_hidden_layers": 64, "intermediate_size": 8192,
                                                "state_size": 16, "conv_kernel": 4, "expand": 16, "time_step_rank": 256,
                                                "vocab_size": 65024, "torch_dtype": "bfloat16", "tie_word_embeddings": False},
     7.27e9),
])
def test_an_attention_free_mamba_v1_model_is_planned_on_v1_and_refused_on_v0_naming_why(model_type, arch, config, params):
    import kvplan
    from kvplan.errors import InputError
    from kvplan.resolve import normalize
    from kvplan.weights import count_weights

    # no attention heads, because there is no attention: every layer a Mamba v1 mixer of intermediate_size, no MLP
    spec = normalize({"architectures": [arch], "model_type": model_type, **config}, model_id=model_type, source="test")
    assert spec.is_attention_free and {l.recurrent.kind for l in spec.layers} == {"mamba1"}
    assert abs(sum(c.params for c in count_weights(spec).components) - params) / params < 0.02
    # V1 (0.10.2 on) keeps one page a sequence: conv (k - 1) x I and ssm I x N per layer, in the model dtype
    p = kvplan.fit(spec, "H100", max_model_len=8192, vllm_version="0.11.0", fixes=False)
    from kvplan.resolve import DTYPE_BYTES

    i, n, b = config["intermediate_size"], config["state_size"], DTYPE_BYTES[p.args.dtype]  # (a float32 checkpoint runs bf16)
    assert p.fits and p.bytes_per_block == 64 * (3 * i + i * n) * b and p.max_concurrency == p.num_gpu_blocks
    # up to 0.10.1 vLLM runs Mamba models on V0, whose state lives outside the KV cache: refused, saying so
    with pytest.raises(InputError) as exc:
        kvplan.fit(spec, "H100", max_model_len=8192, vllm_version="0.10.1", fixes=False)
    assert exc.value.field == "model" and "V0 engine" in str(exc.value) and "0.10.2" in exc.value.fix


def test_an_unknown_name_given_with_a_size_says_to_drop_the_name():
    """--gpu 'GRID A100D-20C' --gpu-gib 19.5 (a vGPU profile) was refused with 'or give --gpu-gib N for a custom card':
    the size was given, and giving it again changed nothing."""
    import pytest

    from kvplan.errors import InputError
    from kvplan.resolve import resolve_gpu

    with pytest.raises(InputError) as e:
        resolve_gpu("GRID A100D-20C", gib=19.5)
    assert "give --gpu-gib" not in str(e.value) and "leave out --gpu: --gpu-gib alone" in str(e.value)
    with pytest.raises(InputError) as e:
        resolve_gpu("GRID A100D-20C", gb=20)
    assert "--gpu-gb alone" in str(e.value)
    with pytest.raises(InputError) as e:  # without a size, the size is the fix
        resolve_gpu("GRID A100D-20C")
    assert "give --gpu-gib N for a custom card" in str(e.value)
    spec, _ = resolve_gpu(None, gib=19.5)
    assert spec.total_bytes == int(19.5 * 2**30)
