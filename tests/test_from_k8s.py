"""`--from` a Kubernetes manifest (serve_command's manifest reader): the vLLM container of a Deployment / StatefulSet /
Pod / Job (several YAML documents read), its command and args as Kubernetes joins them, `$(VAR)` expanded from its
env as the kubelet expands it, a shell wrapper read as bash runs it, its env's VLLM_* variables and its image's release
planned, and its nvidia.com/gpu limit checked against the plan's ranks; so the k8s/deployment.yaml kvplan scaffold
writes plans back as scaffold planned it."""

from __future__ import annotations

import re

import pytest

from cli_runner import planned_json as _json, refused, run_cli


def _scaffold(monkeypatch, capsys, folder, *args) -> int:
    """Scaffold `args` into `folder`; the KV-cache tokens the scaffold planned (serve.sh's expected startup line)."""
    code, _, err = run_cli(monkeypatch, capsys, "scaffold", str(folder), *args)
    assert code == 0, err
    return int(re.search(r"GPU KV cache size: ([\d,]+) tokens", (folder / "serve.sh").read_text()).group(1)
               .replace(",", ""))


GPU_FIELD = 'spec.template.spec.containers[0].resources.limits["nvidia.com/gpu"]'


@pytest.mark.parametrize("args, gpus", [
    (("Qwen/Qwen3-8B", "--gpu", "L4", "--max-model-len", "16384"), 1),
    (("Qwen/Qwen3-32B", "--gpu", "L4", "-tp", "4", "--kv-cache-dtype", "fp8", "--max-model-len", "8192",
      "--vllm-version", "0.11.0", "--env", "VLLM_USE_V1=1"), 4),
])
def test_scaffolds_manifest_plans_back_as_scaffold_planned(monkeypatch, capsys, tmp_path, args, gpus):
    tokens = _scaffold(monkeypatch, capsys, tmp_path / "out", *args)
    direct = _json(monkeypatch, capsys, "fit", *args)
    assert direct["kv_cache_tokens"] == tokens
    cmd = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", str(tmp_path / "out" / "k8s" / "deployment.yaml"))
    prov = cmd.pop("from_command")
    assert cmd["kv_cache_tokens"] == tokens and cmd["args"] == direct["args"]
    assert cmd["vllm_version"] == direct["vllm_version"]  # the image's tag (0.11.0), or kvplan's default in both
    # the vllm container, not the init container that downloads the weights with the same image (python3 -c)
    assert prov["command"].startswith(f"{tmp_path / 'out' / 'k8s' / 'deployment.yaml'} (Deployment ")
    assert ": vllm serve " in prov["command"]
    assert prov["env"] == (["VLLM_USE_V1=1"] if "VLLM_USE_V1=1" in args else [])
    assert any(n.startswith(f"{GPU_FIELD} = {gpus}: the GPUs of the plan's {gpus} rank") for n in prov["notes"]), prov
    assert "--served-model-name" in prov["not_planned"]


def test_scaffold_from_its_manifest_writes_the_files_again(monkeypatch, capsys, tmp_path):
    args = ("Qwen/Qwen3-32B", "--gpu", "L4", "-tp", "4", "--kv-cache-dtype", "fp8", "--max-model-len", "8192",
            "--env", "VLLM_USE_V1=1", "--vllm-version", "0.11.0", "--served-model-name", "qwen", "--port", "8001")
    _scaffold(monkeypatch, capsys, tmp_path / "a", *args)
    code, _, err = run_cli(monkeypatch, capsys, "scaffold", str(tmp_path / "b"), "--gpu", "L4", "--from",
                           str(tmp_path / "a" / "k8s" / "deployment.yaml"))
    assert code == 0, err
    for written in ("docker-compose.yml", ".env.example", "k8s/deployment.yaml", "README.md"):
        assert (tmp_path / "b" / written).read_text() == (tmp_path / "a" / written).read_text().replace(
            str(tmp_path / "a"), str(tmp_path / "b")), written


@pytest.mark.parametrize("text, env, expected", [
    ("$(A)", {"A": "1"}, "1"),
    ("x$(A)y$(A)", {"A": "1"}, "x1y1"),
    ("$(B)", {"A": "1"}, "$(B)"),  # not defined: kept as written
    ("$$(A)", {"A": "1"}, "$(A)"),  # escaped
    ("$$$(A)", {"A": "1"}, "$1"),
    ("$A ${A} $(A", {"A": "1"}, "$A ${A} $(A"),  # no $(...) reference: as written, for a shell
    ("a$", {}, "a$"),
])
def test_kubernetes_expansion(text, env, expected):
    from kvplan.launch_vars import expand_kubernetes

    assert expand_kubernetes(text, env.get) == expected


POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: vllm
      image: vllm/vllm-openai:v0.11.0
      args: ["--model", "Qwen/Qwen3-8B", "--max-model-len", "$(LEN)", "--api-key", "$(KEY)", "--port", "$$(PORT)"]
      env:
        - name: LEN
          valueFrom: {configMapKeyRef: {name: c, key: len}}
        - name: KEY
          valueFrom: {secretKeyRef: {name: k, key: k}}
      resources:
        limits: {nvidia.com/gpu: 1}
"""


def test_a_manifest_variable_is_expanded_from_the_containers_env(monkeypatch, capsys, tmp_path):
    path = tmp_path / "pod.yaml"
    path.write_text(POD)
    # LEN from a configMap: its value is not in the manifest, and --max-model-len takes it
    text = refused(monkeypatch, capsys, "spec.containers[0].args[3]", "fit", "--gpu", "L4", "--from", str(path))
    assert "--max-model-len is $(LEN) in the command, and LEN is set from valueFrom.configMapKeyRef" in text
    assert "(spec.containers[0].env[0])" in text and "give --env LEN=VALUE" in text
    # given: planned, as the flag; the secret's $(KEY) is an API key (nothing planned) and $$(PORT) is the text $(PORT)
    a = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--env", "LEN=8192", "--from", str(path))
    direct = _json(monkeypatch, capsys, "fit", "Qwen/Qwen3-8B", "--gpu", "L4", "--max-model-len", "8192",
                   "--vllm-version", "0.11.0")
    assert a["kv_cache_tokens"] == direct["kv_cache_tokens"] and a["args"] == direct["args"]
    assert a["from_command"]["command"].endswith("--api-key '$(KEY)' --port '$(PORT)'")
    assert "read as the vllm/vllm-openai image's `vllm serve` entrypoint" in a["from_command"]["notes"][0]
    # the manifest's text in quotes ("$(cat pod.yaml)") reads as the file does
    text_given = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--env", "LEN=8192", "--from", POD)
    assert text_given["args"] == a["args"] and text_given["from_command"]["command"].startswith("the manifest (Pod p): ")
    # a literal value in env, one built from another ($(BASE)), as the kubelet expands them in order
    path.write_text(POD.replace("valueFrom: {configMapKeyRef: {name: c, key: len}}",
                                "value: \"$(BASE)\"").replace("      env:\n", "      env:\n        - {name: BASE, value: \"4096\"}\n"))
    assert _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", str(path))["args"]["max_model_len"] == 4096
    # not defined at all: Kubernetes passes $(NOPE) as written, which vLLM would refuse
    path.write_text(POD.replace('"$(LEN)"', '"$(NOPE)"'))
    text = refused(monkeypatch, capsys, "spec.containers[0].args[3]", "fit", "--gpu", "L4", "--from", str(path))
    assert "NOPE is not in the container's env, so Kubernetes passes $(NOPE) to vLLM as written" in text


SHELL = """\
apiVersion: v1
kind: Service
metadata: {name: llm}
spec:
  ports: [{port: 8000}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: llm}
spec:
  template:
    spec:
      containers:
        - name: proxy
          image: nginx
          command: ["nginx", "-g", "daemon off;"]
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          command: ["/bin/sh", "-c"]
          args:
            - |
              set -e
              exec vllm serve "$MODEL" --max-model-len "${MAX_LEN:-8192}" --port 8000
          env:
            - {name: MODEL, value: Qwen/Qwen3-8B}
            - {name: VLLM_USE_V1, value: "1"}
            - {name: MAX_LEN, value: "16384"}
          resources:
            limits: {nvidia.com/gpu: 2}
"""


def test_a_shell_wrapper_is_read_as_bash_runs_it_with_the_containers_env(monkeypatch, capsys, tmp_path):
    path = tmp_path / "llm.yaml"
    path.write_text(SHELL)
    a = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", str(path))
    direct = _json(monkeypatch, capsys, "fit", "Qwen/Qwen3-8B", "--gpu", "L4", "--max-model-len", "16384",
                   "--vllm-version", "0.11.0", "--env", "VLLM_USE_V1=1")
    assert a["kv_cache_tokens"] == direct["kv_cache_tokens"] and a["args"] == direct["args"]
    prov = a["from_command"]
    assert prov["command"].startswith(f"{path} (StatefulSet llm): exec vllm serve Qwen/Qwen3-8B --max-model-len 16384")
    assert prov["env"] == ["VLLM_USE_V1=1"]
    # the pod holds more GPUs than the ranks: said, not refused
    field = 'spec.template.spec.containers[1].resources.limits["nvidia.com/gpu"]'
    assert f"{field} = 2: the pod holds 2 GPUs and vLLM uses 1 (tensor x pipeline x data parallel = 1 x 1 x 1); " \
           "1 of them idle" in prov["notes"]
    # a variable the plan reads set from a secret: refused naming it, planned when given
    path.write_text(SHELL.replace('{name: VLLM_USE_V1, value: "1"}', "{name: VLLM_USE_V1, valueFrom: {secretKeyRef: "
                                  "{name: s, key: v1}}}"))
    text = refused(monkeypatch, capsys, "spec.template.spec.containers[1].env[1]", "fit", "--gpu", "L4", "--from",
                   str(path))
    assert "VLLM_USE_V1 is set from valueFrom.secretKeyRef" in text and "give --env VLLM_USE_V1=VALUE" in text
    assert _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--env", "VLLM_USE_V1=1", "--from",
                 str(path))["args"] == direct["args"]


TP = """\
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          command: ["vllm", "serve"]
          args: ["Qwen/Qwen3-8B", "--max-model-len", "8192"TP]
          resources:
            limits: {nvidia.com/gpu: 2}
"""


def test_the_gpu_limit_is_checked_against_the_plans_ranks(monkeypatch, capsys, tmp_path):
    path = tmp_path / "job.yaml"
    path.write_text(TP.replace("TP", ', "-tp", "4"'))
    text = refused(monkeypatch, capsys, GPU_FIELD, "fit", "--gpu", "L4", "--from",
                   str(path))
    assert "the pod gets 2 GPUs, and the command runs 4 ranks (tensor x pipeline x data parallel = 4 x 1 x 1)" in text
    assert "set nvidia.com/gpu: 4" in text
    # the ranks of the plan: the command's sizes with kvplan's own (-pp given here)
    path.write_text(TP.replace("TP", ""))
    refused(monkeypatch, capsys, GPU_FIELD, "fit", "--gpu", "L4", "-tp", "2", "-pp", "2", "--from", str(path))
    a = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "-tp", "2", "--from", str(path))
    assert a["gpus_used"] == 2 and any(n.startswith(f"{GPU_FIELD} = 2: the GPUs of the plan's 2 ranks")
                                       for n in a["from_command"]["notes"])
    for bad in ('"two"', "0"):
        path.write_text(TP.replace("TP", "").replace("gpu: 2", f"gpu: {bad}"))
        assert "not a whole number of GPUs" in refused(monkeypatch, capsys, GPU_FIELD, "fit", "--gpu", "L4", "--from",
                                                       str(path))


@pytest.mark.parametrize("change, field, words", [
    (lambda t: t.replace('"8192"TP', "8192"), "spec.template.spec.containers[0].args[2]", "quote it: \"8192\""),
    (lambda t: t.replace('          command: ["vllm", "serve"]\n', "").replace("TP", ""),
     "spec.template.spec.containers[0].command", 'set command: ["vllm", "serve"]'),
    (lambda t: t.replace('command: ["vllm", "serve"]', "command: vllm serve").replace("TP", ""),
     "spec.template.spec.containers[0].command", "write it as a list"),
    (lambda t: t.replace("TP", "") + "---\n" + t.replace("TP", "").replace("name: j", "name: k"), "--from",
     "2 containers that run vLLM (Job j: spec.template.spec.containers[0], Job k: spec.template.spec.containers[0])"),
    (lambda t: t.replace("vllm/vllm-openai:v0.11.0", "busybox").replace('["vllm", "serve"]', '["sleep"]')
     .replace("TP", ""), "--from", "no container that runs vLLM"),
])
def test_a_manifest_error_names_its_field_and_the_fix(monkeypatch, capsys, tmp_path, change, field, words):
    path = tmp_path / "job.yaml"
    path.write_text(change(TP))
    assert words in refused(monkeypatch, capsys, field, "fit", "--gpu", "L4", "--from", str(path))


def test_the_image_entrypoint_with_model_flag_and_other_commands_read_a_manifest(monkeypatch, capsys, tmp_path):
    path = tmp_path / "job.yaml"
    path.write_text(TP.replace('          command: ["vllm", "serve"]\n', "").replace('"Qwen/Qwen3-8B"', '"--model", '
                                                                                   '"Qwen/Qwen3-8B"').replace("TP", ""))
    direct = ["Qwen/Qwen3-8B", "--gpu", "L4", "--max-model-len", "8192", "--vllm-version", "0.11.0"]
    assert _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", str(path))["args"] == \
        _json(monkeypatch, capsys, "fit", *direct)["args"]
    sweep = _json(monkeypatch, capsys, "sweep", "--gpu", "L4", "--vary", "kv_cache_dtype=auto,fp8", "--from", str(path))
    sweep.pop("from_command")
    assert sweep == _json(monkeypatch, capsys, "sweep", *direct, "--vary", "kv_cache_dtype=auto,fp8")


def test_the_page_reads_a_pasted_manifest(monkeypatch, capsys, tmp_path):
    pytest.importorskip("fastapi", reason="kvplan[web] is not installed")
    from fastapi.testclient import TestClient

    from kvplan.web.app import create_app

    client = TestClient(create_app(upload_dir=str(tmp_path / "uploads")))
    path = tmp_path / "llm.yaml"
    path.write_text(SHELL)
    r = client.post("/api/plan", json={"from_command": SHELL, "gpu": "L4", "curve": False})
    assert r.status_code == 200, r.text
    cli = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", str(path))
    assert r.json()["kv_cache_tokens"] == cli["kv_cache_tokens"]
    assert r.json()["from_command"]["notes"] == cli["from_command"]["notes"]
    r = client.post("/api/plan", json={"from_command": SHELL.replace("gpu: 2", "gpu: 1"), "gpu": "L4",
                                       "tensor_parallel_size": 2, "curve": False})
    assert r.status_code == 400 and r.json()["field"] == "from_command", r.text
    assert "nvidia.com/gpu" in r.json()["message"]
