"""`--from` a SkyPilot task YAML (vLLM's docs/deployment/frameworks/skypilot.md serves with one): the vllm serve
command of its `run:` script with its `envs:` and SkyPilot's own variables, the GPU its resources.accelerators names
(planned where no --gpu is given), GPUs per node x nodes against the plan's ranks, the release its setup installs.
Before, the task was read as a script: $SKYPILOT_NUM_GPUS_PER_NODE and the envs had no value, and it was refused."""

from __future__ import annotations

import pytest

from cli_runner import planned_json as _json, refused

# vLLM's docs/deployment/frameworks/skypilot.md serve.yaml, with a catalog model, one accelerator and a pinned release
TASK = """\
resources:
  accelerators: L4:1
  use_spot: True
  disk_size: 512  # Ensure model checkpoints can fit.
  ports: 8081

envs:
  PYTHONUNBUFFERED: 1
  MODEL_NAME: Qwen/Qwen3-8B
  HF_TOKEN: <your-huggingface-token>

setup: |
  conda create -n vllm python=3.10 -y
  conda activate vllm
  pip install vllm==0.11.0
  pip install gradio openai

run: |
  conda activate vllm
  echo 'Starting vllm api server...'
  vllm serve $MODEL_NAME \\
    --port 8081 \\
    --max-model-len 16384 \\
    --trust-remote-code \\
    --tensor-parallel-size $SKYPILOT_NUM_GPUS_PER_NODE \\
    2>&1 | tee api_server.log &
  echo 'Waiting for vllm api server to start...'
  while ! `cat api_server.log | grep -q 'Uvicorn running on'`; do sleep 1; done
"""
DIRECT = ["Qwen/Qwen3-8B", "--gpu", "L4", "--max-model-len", "16384", "--vllm-version", "0.11.0"]


def _write(tmp_path, text: str, name: str = "serve.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_the_task_plans_on_the_gpu_it_asks_for_with_its_envs_and_release(monkeypatch, capsys, tmp_path):
    plan = _json(monkeypatch, capsys, "fit", "--from", _write(tmp_path, TASK))
    direct = _json(monkeypatch, capsys, "fit", *DIRECT)
    assert plan["kv_cache_tokens"] == direct["kv_cache_tokens"] == 21568 and plan["gpu"] == direct["gpu"]
    assert plan["args"] == direct["args"]
    notes = plan["from_command"]["notes"]
    assert any("resources.accelerators = L4: planned on --gpu 'NVIDIA L4', the GPU the task asks for" in n
               for n in notes), notes
    assert any("vLLM 0.11.0: the release" in n and "setup installs" in n for n in notes), notes
    # sky launch --env MODEL_NAME=... wins over the task's envs
    other = _json(monkeypatch, capsys, "fit", "--from", _write(tmp_path, TASK), "--env", "MODEL_NAME=Qwen/Qwen3-4B")
    assert other["model"] == "Qwen/Qwen3-4B"


def test_candidates_plan_the_gpu_given_and_say_so(monkeypatch, capsys, tmp_path):
    task = TASK.replace("accelerators: L4:1", "accelerators: {L4, A10g, A10, L40, A40, A100, A100-80GB}")
    plan = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", _write(tmp_path, task))
    assert plan["kv_cache_tokens"] == 21568
    assert any(n.startswith("resources.accelerators: any of L4, A10g") for n in plan["from_command"]["notes"])
    bare = _json(monkeypatch, capsys, "fit", "--from", _write(tmp_path, task))  # no --gpu: the default, warned of
    assert "Tesla T4" in bare["gpu"] and any("no --gpu given" in w for w in bare["warnings"])


def test_gpus_per_node_times_nodes_are_checked_against_the_ranks(monkeypatch, capsys, tmp_path):
    task = TASK.replace("accelerators: L4:1", "accelerators: A100-80GB:4").replace(
        "--max-model-len 16384", "--max-model-len 16384 -pp 2")
    out = refused(monkeypatch, capsys, "resources.accelerators", "fit", "--from", _write(tmp_path, task))
    assert "the task's nodes get 4 GPUs, and the command runs 8 ranks" in out, out
    two = task.replace("resources:", "num_nodes: 2\nresources:", 1)
    plan = _json(monkeypatch, capsys, "fit", "--from", _write(tmp_path, two, "two.yaml"))
    assert "A100 80GB" in plan["gpu"] and plan["args"]["tensor_parallel_size"] == 4
    assert any(n.startswith("num_nodes = 2") for n in plan["from_command"]["notes"])


@pytest.mark.parametrize("accelerators", ["TPU-v5e-8", "RTX3060"])
def test_a_name_kvplan_does_not_map_leaves_the_gpu_to_gpu(monkeypatch, capsys, tmp_path, accelerators):
    task = TASK.replace("accelerators: L4:1", f"accelerators: {accelerators}")
    plan = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", _write(tmp_path, task))
    assert plan["kv_cache_tokens"] == 21568
    assert any("no SkyPilot accelerator name kvplan maps" in n for n in plan["from_command"]["notes"])


def test_the_pasted_task_reads_as_the_file_does(tmp_path):
    from kvplan.serve_command import parse_serve_command

    pasted, from_file = parse_serve_command(TASK, text_only=True), parse_serve_command(_write(tmp_path, TASK))
    assert pasted.model == from_file.model == "Qwen/Qwen3-8B" and pasted.planned == from_file.planned
    assert pasted.sized_for[0] == from_file.sized_for[0] == {"gpu": "NVIDIA L4"}
