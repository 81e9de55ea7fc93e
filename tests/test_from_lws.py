"""`--from` a LeaderWorkerSet (kubernetes-sigs/lws): vLLM's documented multi-node deployment on Kubernetes. The leader
template's vLLM container is planned (its `sh -c` line `ray start ...; vllm serve ...` read command by command), LWS's
LWS_GROUP_SIZE / LWS_WORKER_INDEX expanded, and the group's GPUs (the leader's limit + size - 1 workers') checked
against the plan's ranks, which vLLM places across the group's pods; amd.com/gpu limits are read as nvidia.com/gpu's."""

from __future__ import annotations


import pytest

from cli_runner import planned_json as _json, refused

# vLLM's docs/deployment/frameworks/lws.md (vllm-project/vllm 051f9b87) and kubernetes-sigs/lws
# docs/examples/vllm/GPU/lws.yaml (0e2e095a): two pods of 8 GPUs, the leader running vLLM's multi-node-serving.sh then
# the OpenAI server at TP 8 x PP 2. The model is the catalog's meta-llama/Llama-3.1-405B (the example's -Instruct has
# its architecture; no Hub here); volumes, probes and requests left out (they move nothing planned).
LWS = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: vllm
spec:
  replicas: 2
  leaderWorkerTemplate:
    size: 2
    restartPolicy: RecreateGroupOnPodRestart
    leaderTemplate:
      metadata:
        labels:
          role: leader
      spec:
        containers:
          - name: vllm-leader
            image: vllm/vllm-openai:v0.8.5
            env:
              - name: HUGGING_FACE_HUB_TOKEN
                value: $HUGGING_FACE_HUB_TOKEN
            command:
              - sh
              - -c
              - "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE);
                 python3 -m vllm.entrypoints.openai.api_server --port 8080 --model meta-llama/Llama-3.1-405B --tensor-parallel-size 8 --pipeline_parallel_size 2"
            resources:
              limits:
                nvidia.com/gpu: "8"
                memory: 1124Gi
    workerTemplate:
      spec:
        containers:
          - name: vllm-worker
            image: vllm/vllm-openai:v0.8.5
            command:
              - sh
              - -c
              - "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)"
            resources:
              limits:
                nvidia.com/gpu: "8"
                memory: 1124Gi
---
apiVersion: v1
kind: Service
metadata:
  name: vllm-leader
spec:
  ports:
    - name: http
      port: 8080
  selector:
    role: leader
"""
LEADER = 'spec.leaderWorkerTemplate.leaderTemplate.spec.containers[0].resources.limits["nvidia.com/gpu"]'
WORKER = 'spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].resources.limits["nvidia.com/gpu"]'
SIZE = "spec.leaderWorkerTemplate.size"
DIRECT = ("meta-llama/Llama-3.1-405B", "--gpu", "H100", "-tp", "8", "-pp", "2", "--vllm-version", "0.8.5")


def _write(tmp_path, text: str) -> str:
    path = tmp_path / "lws.yaml"
    path.write_text(text)
    return str(path)


def test_vllms_documented_lws_plans_as_its_flags_given_directly(monkeypatch, capsys, tmp_path):
    direct = _json(monkeypatch, capsys, "fit", *DIRECT)
    got = _json(monkeypatch, capsys, "fit", "--gpu", "H100", "--from", _write(tmp_path, LWS))
    prov = got.pop("from_command")
    assert direct["kv_cache_tokens"] > 0
    assert got["kv_cache_tokens"] == direct["kv_cache_tokens"] and got["args"] == direct["args"]
    assert got["vllm_version"] == direct["vllm_version"] and got["gpus_used"] == 16
    assert prov["command"].endswith("(LeaderWorkerSet vllm): python3 -m vllm.entrypoints.openai.api_server --port 8080 "
                                    "--model meta-llama/Llama-3.1-405B --tensor-parallel-size 8 "
                                    "--pipeline_parallel_size 2")
    assert f"{SIZE} x {LEADER}" not in " ".join(prov["notes"])  # two fields, the leader's and the workers'
    assert any(n.startswith(f"{LEADER} + ({SIZE} - 1) x {WORKER}: the group's 2 pods hold 8 + 1 x 8 = 16 GPUs, those "
                            "of the plan's 16 ranks") for n in prov["notes"]), prov["notes"]


@pytest.mark.parametrize("line", [
    "ray start --head --port=6379 && vllm serve deepseek-ai/DeepSeek-V3 -tp 8 --pipeline-parallel-size $(LWS_GROUP_SIZE)",
    "ray start --head --port=6379; exec vllm serve deepseek-ai/DeepSeek-V3 -tp 8 -pp $LWS_GROUP_SIZE | tee /tmp/log",
])
def test_a_ray_then_vllm_serve_line_is_read_with_lws_variables(monkeypatch, capsys, tmp_path, line):
    text = LWS.replace(LWS.split('- "bash')[1].split('"\n')[0], "").replace('- "bash"', f"- '{line}'")
    assert line in text
    direct = _json(monkeypatch, capsys, "fit", "deepseek-ai/DeepSeek-V3", "--gpu", "H100", "-tp", "8", "-pp", "2",
                   "--vllm-version", "0.8.5")
    got = _json(monkeypatch, capsys, "fit", "--gpu", "H100", "--from", _write(tmp_path, text))
    assert got["kv_cache_tokens"] == direct["kv_cache_tokens"] > 0 and got["args"] == direct["args"]


def test_too_few_group_gpus_are_refused_naming_the_fields(monkeypatch, capsys, tmp_path):
    path = _write(tmp_path, LWS.replace('nvidia.com/gpu: "8"', 'nvidia.com/gpu: "4"'))
    text = refused(monkeypatch, capsys, f"{LEADER} + ({SIZE} - 1) x {WORKER}", "fit", "--gpu", "H100", "--from", path)
    assert "the group's 2 pods hold 4 + 1 x 4 = 8 GPUs, and the command runs 16 ranks" in text
    assert "give each pod 8 GPUs (nvidia.com/gpu: 8), or more pods in the group (size)" in text
    # the size alone too small: one pod of 8 for 16 ranks
    path = _write(tmp_path, LWS.replace("size: 2", "size: 1"))
    assert "the group's one pod holds 8 GPUs" in refused(monkeypatch, capsys, LEADER, "fit", "--gpu", "H100", "--from",
                                                         path)


def test_more_group_gpus_are_noted_idle_and_different_limits_said(monkeypatch, capsys, tmp_path):
    got = _json(monkeypatch, capsys, "fit", "--gpu", "H100", "--from", _write(tmp_path, LWS.replace("size: 2", "size: 3")))
    notes = " | ".join(got["from_command"]["notes"])
    assert "the group's 3 pods hold 8 + 2 x 8 = 24 GPUs and vLLM uses 16" in notes and "8 of them idle" in notes
    worker_12 = LWS.replace('nvidia.com/gpu: "8"\n                memory: 1124Gi\n---',
                            'nvidia.com/gpu: "12"\n                memory: 1124Gi\n---')
    got = _json(monkeypatch, capsys, "fit", "--gpu", "H100", "--from", _write(tmp_path, worker_12))
    notes = " | ".join(got["from_command"]["notes"])
    assert f"{LEADER} = 8 and {WORKER} = 12 differ" in notes and "8 + 1 x 12 = 20 GPUs and vLLM uses 16" in notes


def test_without_a_leader_template_the_worker_template_is_the_leaders(monkeypatch, capsys, tmp_path):
    start, end = LWS.index("    leaderTemplate:"), LWS.index("    workerTemplate:")
    worker_end = LWS.index("---")
    text = LWS[:start] + "    workerTemplate:\n" + LWS[start:end].split("leaderTemplate:\n", 1)[1] + LWS[worker_end:]
    assert "leaderTemplate" not in text
    direct = _json(monkeypatch, capsys, "fit", *DIRECT)
    got = _json(monkeypatch, capsys, "fit", "--gpu", "H100", "--from", _write(tmp_path, text))
    assert got["kv_cache_tokens"] == direct["kv_cache_tokens"]
    field = LEADER.replace("leaderTemplate", "workerTemplate")
    assert any(n.startswith(f"{SIZE} x {field}: the group's 2 pods hold 2 x 8 = 16 GPUs")
               for n in got["from_command"]["notes"]), got["from_command"]["notes"]


def test_the_leaders_gpu_product_label_plans_the_gpu(monkeypatch, capsys, tmp_path):
    pinned = LWS.replace("      spec:\n        containers:\n          - name: vllm-leader",
                         "      spec:\n        nodeSelector:\n          nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3\n"
                         "        containers:\n          - name: vllm-leader")
    got = _json(monkeypatch, capsys, "fit", "--from", _write(tmp_path, pinned))
    direct = _json(monkeypatch, capsys, "fit", *DIRECT)
    assert got["kv_cache_tokens"] == direct["kv_cache_tokens"] and got["gpu"] == direct["gpu"]
    assert any(n.startswith('spec.leaderWorkerTemplate.leaderTemplate.spec.nodeSelector["nvidia.com/gpu.product"] = '
                            "NVIDIA-H100-80GB-HBM3: planned on") for n in got["from_command"]["notes"])


@pytest.mark.parametrize("size, words", [("0", "is 0, not a whole number of pods"),
                                         ('"2"', "is '2', not a whole number of pods")])
def test_a_size_that_is_no_count_is_refused(monkeypatch, capsys, tmp_path, size, words):
    path = _write(tmp_path, LWS.replace("size: 2", f"size: {size}"))
    assert words in refused(monkeypatch, capsys, SIZE, "fit", "--gpu", "H100", "--from", path)


AMD = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  template:
    spec:
      nodeSelector:
        amd.com/gpu.product-name: AMD_Instinct_MI300X_OAM
      containers:
        - name: vllm
          image: rocm/vllm:latest
          command: ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2", "--max-model-len", "8192"]
          resources:
            limits:
              amd.com/gpu: GPUS
"""
AMD_FIELD = 'spec.template.spec.containers[0].resources.limits["amd.com/gpu"]'


def test_an_amd_gpu_limit_is_checked_as_nvidias(monkeypatch, capsys, tmp_path):
    text = refused(monkeypatch, capsys, AMD_FIELD, "fit", "--gpu", "MI300X", "--from",
                   _write(tmp_path, AMD.replace("GPUS", "1")))
    assert "the pod gets 1 GPU, and the command runs 2 ranks" in text and "set amd.com/gpu: 2" in text
    got = _json(monkeypatch, capsys, "fit", "--gpu", "MI300X", "--from", _write(tmp_path, AMD.replace("GPUS", "2")))
    notes = got["from_command"]["notes"]
    assert any(n.startswith(f"{AMD_FIELD} = 2: the GPUs of the plan's 2 ranks") for n in notes), notes
    assert ('spec.template.spec.nodeSelector["amd.com/gpu.product-name"] = AMD_Instinct_MI300X_OAM: the pod\'s GPU, '
            "as --gpu MI300X names it") in notes, notes
    both = AMD.replace("amd.com/gpu: GPUS", "amd.com/gpu: 2\n              nvidia.com/gpu: 2")
    field = f'{AMD_FIELD.replace("amd.com", "nvidia.com")} and {AMD_FIELD}'
    assert "take GPUs of two vendors" in refused(monkeypatch, capsys, field, "fit", "--gpu", "MI300X", "--from",
                                                 _write(tmp_path, both))
