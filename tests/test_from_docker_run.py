"""`--from` a `docker run` (or `podman run`) command: the command its container runs (the vllm/vllm-openai image's
`vllm serve` entrypoint with the flags after the image, --entrypoint's program, or the command after another image),
its -e / --env environment, its image's release and its --gpus against the plan's ranks. Before, vLLM's own
documented start (docs/deployment/docker.md) was refused: "no `vllm serve ...` command found"."""

from __future__ import annotations

import pytest

from cli_runner import planned_json as _json, refused

DIRECT = ["Qwen/Qwen3-8B", "--gpu", "L4", "--max-model-len", "16384", "--vllm-version", "0.11.0"]
# vLLM's docs/deployment/docker.md, its model and tag changed to ones kvplan's catalog and release tables hold
DOCS = ("docker run --runtime nvidia --gpus all -v ~/.cache/huggingface:/root/.cache/huggingface "
        "--env \"HUGGING_FACE_HUB_TOKEN=$HF_TOKEN\" -p 8000:8000 --ipc=host vllm/vllm-openai:v0.11.0 "
        "--model Qwen/Qwen3-8B --max-model-len 16384")


@pytest.mark.parametrize("command", [
    DOCS,
    DOCS.replace("docker run", "sudo docker container run -it --rm --name vllm --shm-size=16g -p8000:8000"),
    "podman run --device nvidia.com/gpu=all -d docker.io/vllm/vllm-openai:v0.11.0 --model Qwen/Qwen3-8B "
    "--max-model-len 16384",
    # another image running vllm serve through a shell; the release given, as that image pins none
    "docker run --gpus 1 nvidia/cuda:12.8.0-devel-ubuntu22.04 bash -c 'pip install vllm==0.11.0 && exec vllm serve "
    "Qwen/Qwen3-8B --max-model-len 16384'",
    "docker run --gpus=1 --entrypoint vllm vllm/vllm-openai:v0.11.0 serve Qwen/Qwen3-8B --max-model-len 16384",
])
def test_a_docker_run_plans_as_the_command_its_container_runs(monkeypatch, capsys, command):
    direct = _json(monkeypatch, capsys, "fit", *DIRECT)
    plan = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--vllm-version", "0.11.0", "--from", command)
    assert plan["kv_cache_tokens"] == direct["kv_cache_tokens"] and plan["args"] == direct["args"], command


def test_its_environment_image_and_gpus_are_read(monkeypatch, capsys):
    command = ("docker run -d --gpus '\"device=0,1\"' -e VLLM_USE_V1=0 -e VLLM_LOGGING_LEVEL vllm/vllm-openai:v0.10.1.1 "
               "--model Qwen/Qwen3-8B -tp 2 --max-model-len 8192")
    plan = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", command)
    v0 = _json(monkeypatch, capsys, "fit", "Qwen/Qwen3-8B", "--gpu", "L4", "-tp", "2", "--max-model-len", "8192",
               "--vllm-version", "0.10.1.1", "--env", "VLLM_USE_V1=0")
    assert plan["kv_cache_tokens"] == v0["kv_cache_tokens"] and plan["era"] == v0["era"]
    notes = plan["from_command"]["notes"]
    assert "vLLM 0.10.1.1: the release the image vllm/vllm-openai:v0.10.1.1 runs" in notes, notes
    assert any(n.startswith("docker run --gpus = 2: the GPUs of the plan's 2 ranks") for n in notes), notes
    assert any("docker run -e VLLM_LOGGING_LEVEL: the value of the shell docker runs in" in n for n in notes), notes


def test_a_docker_run_line_in_a_script_is_its_vllm_serve_line(monkeypatch, capsys, tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("#!/usr/bin/env bash\nset -e\nTAG=${TAG:-v0.11.0}\ndocker pull vllm/vllm-openai:$TAG\n"
                      "docker run --gpus all -p 8000:8000 \\\n  --ipc=host \\\n  vllm/vllm-openai:$TAG \\\n"
                      "  --model Qwen/Qwen3-8B --max-model-len 16384\n")
    plan = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", str(script))
    assert plan["kv_cache_tokens"] == _json(monkeypatch, capsys, "fit", *DIRECT)["kv_cache_tokens"]


@pytest.mark.parametrize("command, field, says", [
    ("docker run --gpus 2 vllm/vllm-openai:v0.11.0 --model Qwen/Qwen3-8B -tp 4", "docker run --gpus",
     "the container gets 2 GPUs, and the command runs 4 ranks"),
    ("docker run --gpus all --frobnicate x vllm/vllm-openai:v0.11.0 --model Qwen/Qwen3-8B", "--frobnicate",
     "an option of `docker run` kvplan does not know"),
    ("docker run --gpus all vllm/vllm-openai:v0.11.0 Qwen/Qwen3-8B", "--from", "the model is named by --model there"),
    ("docker run --gpus device=0,1 vllm/vllm-openai:v0.11.0 --model Qwen/Qwen3-8B", "--gpus",
     "both a count and device ids"),
    ("docker run --gpus all vllm/vllm-openai:v0.11.0", "--from", "no arguments"),
])
def test_a_docker_run_kvplan_cannot_read_exactly_is_refused_naming_why(monkeypatch, capsys, command, field, says):
    out = refused(monkeypatch, capsys, field, "fit", "--gpu", "L4", "--from", command)
    assert says in out, out


@pytest.mark.parametrize("line", [
    "bash -c 'vllm serve Qwen/Qwen3-8B --max-model-len 16384'",
    "exec sh -ec \"cd /srv && vllm serve Qwen/Qwen3-8B --max-model-len 16384 2>&1 | tee log\"",
    "bash -c 'exec vllm serve \"$@\"' vllm Qwen/Qwen3-8B --max-model-len 16384",
])
def test_a_shell_wrapper_line_plans_the_vllm_serve_its_script_runs(monkeypatch, capsys, tmp_path, line):
    """`bash -c 'vllm serve ...'` (a script's line, or the command given) was refused: "the command runs 'bash -c', not
    vllm serve"; a container's shell wrapper was already read this way."""
    direct = _json(monkeypatch, capsys, "fit", *DIRECT)
    script = tmp_path / "serve.sh"
    script.write_text(f"#!/usr/bin/env bash\nset -e\n{line}\n")
    for source in (line, str(script)):
        plan = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--vllm-version", "0.11.0", "--from", source)
        assert plan["kv_cache_tokens"] == direct["kv_cache_tokens"] and plan["args"] == direct["args"], source
