"""`--from` a values file of vLLM's Helm chart (vllm-project/production-stack): each servingEngineSpec.modelSpec[]
entry planned as the chart's templates/deployment-vllm-multi.yaml writes its vllm container (serve_command's values
section), the entry chosen by `FILE#NAME` where there are several, its requestGPU checked against the plan's ranks, and
its keys named where a value is wrong. The inputs are the chart's own tutorial values files (tests/data/helm_values,
copied from production-stack a6c01db0)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from cli_runner import planned_json as _json, refused

DATA = Path(__file__).parent / "data" / "helm_values"
BASIC = DATA / "values-02-basic-config.yaml"
AT = "servingEngineSpec.modelSpec[0]"


def _changed(tmp_path, source: Path, change) -> str:
    """A copy of the chart's values file `source` with `change(its first modelSpec entry)` applied."""
    doc = yaml.safe_load(source.read_text())
    change(doc["servingEngineSpec"]["modelSpec"][0])
    path = tmp_path / "values.yaml"
    path.write_text(yaml.safe_dump(doc))
    return str(path)


def test_the_charts_basic_config_plans_as_its_flags_given_directly(monkeypatch, capsys):
    # the flags the template writes for values-02's vllmConfig, in its spellings: enableChunkedPrefill false ->
    # --no-enable-chunked-prefill, enablePrefixCaching false -> --no-enable-prefix-caching, then extraArgs
    direct = _json(monkeypatch, capsys, "fit", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4",
                   "--no-enable-chunked-prefill", "--no-enable-prefix-caching", "--max-model-len", "4096",
                   "--dtype", "bfloat16", "--gpu-memory-utilization", "0.8")
    cmd = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", str(BASIC))
    prov = cmd.pop("from_command")
    assert cmd["kv_cache_tokens"] == direct["kv_cache_tokens"] and cmd["args"] == direct["args"]
    assert prov["command"].startswith(f"{BASIC}: {AT} (llama3): vllm serve meta-llama/Llama-3.1-8B-Instruct "
                                      "--host 0.0.0.0 --port 8000 --no-enable-chunked-prefill")
    assert prov["not_planned"] == ["--host", "--port"]
    notes = " | ".join(prov["notes"])
    assert f"{AT}.requestGPU = 1: the GPUs of the plan's 1 rank" in notes
    assert f"{AT}: hf_token, pvcAccessMode, pvcStorage, replicaCount, requestCPU, requestMemory:" in notes
    assert "vllm/vllm-openai:latest pins no vLLM release" in notes


def test_lmcache_config_writes_the_kv_transfer_config_and_the_minimal_example_reads(monkeypatch, capsys):
    v1 = DATA / "values-14-vllm-v1.yaml"  # lmcache/vllm-openai, lmcacheConfig.enabled, enablePrefixCaching true
    direct = _json(monkeypatch, capsys, "fit", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4",
                   "--enable-prefix-caching", "--max-model-len", "4096", "--dtype", "bfloat16",
                   "--gpu-memory-utilization", "0.8",
                   "--kv-transfer-config", '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}')
    cmd = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", str(v1))
    prov = cmd.pop("from_command")
    assert cmd["kv_cache_tokens"] == direct["kv_cache_tokens"] and cmd["args"] == direct["args"]
    assert ": /opt/venv/bin/vllm serve " in prov["command"]  # the template's command for the lmcache image
    assert any(n.startswith(f"{AT}.lmcacheConfig: cpuOffloadingBufferSize") for n in prov["notes"])
    from kvplan.serve_command import parse_serve_command

    minimal = parse_serve_command(str(DATA / "values-01-minimal-example.yaml"))  # no vllmConfig: no engine flag
    assert (minimal.model, minimal.planned, minimal.not_planned) == ("facebook/opt-125m", {}, ("--host", "--port"))
    offloading = parse_serve_command(str(DATA / "values-05-cpu-offloading.yaml"))
    assert offloading.planned == {"max_model_len": "32000", "enable_prefix_caching": False, "kv_transfer_config":
                                  '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'}


def test_several_entries_are_chosen_by_name(monkeypatch, capsys):
    many = DATA / "values-04-multiple-models.yaml"
    text = refused(monkeypatch, capsys, "--from", "fit", "--gpu", "L4", "--from", str(many))
    assert "2 modelSpec entries the chart deploys (llama3, mistral)" in text and f"--from {many}#llama3" in text
    assert "no modelSpec entry named 'gemma' (its entries: llama3, mistral)" in refused(
        monkeypatch, capsys, "--from", "fit", "--gpu", "L4", "--from", f"{many}#gemma")
    from kvplan.serve_command import parse_serve_command

    mistral = parse_serve_command(f"{many}#mistral")
    assert mistral.model == "mistralai/Mistral-7B-Instruct-v0.2"
    assert mistral.planned == {"enable_prefix_caching": False, "max_model_len": "4096", "max_num_seqs": 32,
                               "gpu_memory_utilization": 0.95, "max_loras": 4}


def test_request_gpu_is_checked_against_the_ranks(monkeypatch, capsys, tmp_path):
    path = _changed(tmp_path, BASIC, lambda s: s["vllmConfig"].update(tensorParallelSize=2))
    text = refused(monkeypatch, capsys, f"{AT}.requestGPU", "fit", "--gpu", "L4", "--from", path)
    assert "the pod gets 1 GPU, and the command runs 2 ranks" in text and "set nvidia.com/gpu: 2" in text
    path = _changed(tmp_path, BASIC, lambda s: s.update(requestGPU=2) or s["vllmConfig"].update(tensorParallelSize=2))
    a = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", path)
    assert a["gpus_used"] == 2 and f"{AT}.requestGPU = 2: the GPUs of the plan's 2 ranks" in " ".join(
        a["from_command"]["notes"])


@pytest.mark.parametrize("change, field, words", [
    (lambda s: s.update(modelURL="{{ .Values.model }}"), f"{AT}.modelURL", "a Helm template expression"),
    (lambda s: s["vllmConfig"].update(extraArgs=["--kv-cache-dtype", "{{ .Values.kvDtype }}"]),
     f"{AT}.vllmConfig.extraArgs[1]", "Helm renders no template in values"),
    (lambda s: s["vllmConfig"].update(maxModelLen=1048576), f"{AT}.vllmConfig.maxModelLen",
     "writes as 1.048576e+06"),
    (lambda s: s.update(env=[{"name": "VLLM_USE_V1", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]),
     f"{AT}.env[0]", "give --env VLLM_USE_V1=VALUE"),
    (lambda s: s.pop("tag"), f"{AT}.tag", "the chart requires it"),
    (lambda s: s.update(enabled=False), "--from", "no modelSpec entries the chart deploys"),
])
def test_a_values_error_names_its_key(monkeypatch, capsys, tmp_path, change, field, words):
    assert words in refused(monkeypatch, capsys, field, "fit", "--gpu", "L4", "--from",
                            _changed(tmp_path, BASIC, change))


def test_image_release_v0_env_and_ignored_keys(monkeypatch, capsys, tmp_path):
    def change(s):
        s.update(tag="v0.11.0", env=[{"name": "VLLM_ALLOW_LONG_MAX_MODEL_LEN", "value": "1"}])
        s["vllmConfig"].update(maxModelLength=8192)  # no key of the template's: Helm ignores it

    a = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", _changed(tmp_path, BASIC, change))
    assert a["vllm_version"] == "0.11.0" and a["args"]["max_model_len"] == 4096
    assert a["from_command"]["env"] == ["VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"]
    assert any(n.startswith(f"{AT}.vllmConfig.maxModelLength: the chart's templates/deployment-vllm-multi.yaml "
                            "writes no flag") for n in a["from_command"]["notes"])
    from kvplan.serve_command import parse_serve_command

    v0 = parse_serve_command(_changed(tmp_path, BASIC, lambda s: s["vllmConfig"].update(v0="1")))
    assert v0.env == ("VLLM_USE_V1=0",)


def test_the_page_reads_a_pasted_values_file(monkeypatch, capsys, tmp_path):
    pytest.importorskip("fastapi", reason="kvplan[web] is not installed")
    from fastapi.testclient import TestClient

    from kvplan.web.app import create_app

    client = TestClient(create_app(upload_dir=str(tmp_path / "uploads")))
    r = client.post("/api/plan", json={"from_command": BASIC.read_text(), "gpu": "L4", "curve": False})
    assert r.status_code == 200, r.text
    cli = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", str(BASIC))
    assert r.json()["kv_cache_tokens"] == cli["kv_cache_tokens"]


def test_the_charts_v100_example_pins_its_release_and_v0_engine(monkeypatch, capsys):
    # values-25: vllm/vllm-openai:v0.8.5, vllmConfig.v0 "1" (env VLLM_USE_V1=0), tensorParallelSize 2 with requestGPU 2,
    # extraArgs --enforce-eager; no enablePrefixCaching key: --no-enable-prefix-caching
    gpu = "Tesla V100-SXM2-16GB"
    direct = _json(monkeypatch, capsys, "fit", "Qwen/Qwen2.5-7B-Instruct", "--gpu", gpu, "--no-enable-prefix-caching",
                   "--max-model-len", "8192", "--dtype", "half", "-tp", "2", "--gpu-memory-utilization", "0.9",
                   "--enforce-eager", "--vllm-version", "0.8.5", "--env", "VLLM_USE_V1=0")
    cmd = _json(monkeypatch, capsys, "fit", "--gpu", gpu, "--from", str(DATA / "values-25-v100-multi-gpu-tp2.yaml"))
    prov = cmd.pop("from_command")
    assert cmd["kv_cache_tokens"] == direct["kv_cache_tokens"] and cmd["args"] == direct["args"]
    assert cmd["vllm_version"] == "0.8.5" and prov["env"] == ["VLLM_USE_V1=0"]
    assert f"{AT}.requestGPU = 2: the GPUs of the plan's 2 ranks" in " ".join(prov["notes"])
    assert any("VLLM_ENABLE_CUDA_COMPATIBILITY" in n for n in prov["notes"])


def test_the_entrys_node_selector_terms_pin_the_gpu_by_its_key(monkeypatch, capsys, tmp_path):
    # the template writes nodeSelectorTerms as the pod's required node affinity: GPU Feature Discovery's product label
    # plans the GPU where no --gpu is given, named by the values key
    terms = [{"matchExpressions": [{"key": "nvidia.com/gpu.product", "operator": "In", "values": ["NVIDIA-L4"]}]}]
    path = _changed(tmp_path, BASIC, lambda s: s.update(nodeSelectorTerms=terms))
    a = _json(monkeypatch, capsys, "fit", "--from", path)
    assert a["kv_cache_tokens"] == _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", str(BASIC))["kv_cache_tokens"]
    assert f"{AT}.nodeSelectorTerms[0].matchExpressions[0].values = NVIDIA-L4: planned on NVIDIA L4" in a["from_command"]["notes"]


def test_request_gpu_type_amd_is_the_resource_the_texts_name(monkeypatch, capsys, tmp_path):
    # requestGPUType amd.com/gpu: the chart writes requestGPU as an amd.com/gpu limit, and the texts name that resource
    path = _changed(tmp_path, BASIC, lambda s: s.update(requestGPUType="amd.com/gpu")
                    or s["vllmConfig"].update(tensorParallelSize=2))
    text = refused(monkeypatch, capsys, f"{AT}.requestGPU", "fit", "--gpu", "MI300X", "--from", path)
    assert "the pod gets 1 GPU, and the command runs 2 ranks" in text and "set amd.com/gpu: 2" in text, text
    assert "nvidia.com" not in text, text
    path = _changed(tmp_path, BASIC, lambda s: s.update(requestGPUType="amd.com/gpu", requestGPU=0))
    notes = _json(monkeypatch, capsys, "fit", "--gpu", "MI300X", "--from", path)["from_command"]["notes"]
    assert any('sets no resources.limits["amd.com/gpu"]: the GPUs the pod gets are not checked' in n for n in notes)
    assert not any("nvidia.com" in n for n in notes), notes
