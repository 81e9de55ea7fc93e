"""`--from Dockerfile`: the command the container of a Dockerfile's last stage runs (ENTRYPOINT with CMD, as the
Dockerfile reference says they interact), its ENV as the server's environment and its base image's tag (or a `pip
install vllm==X.Y.Z`) as the release. Before, every Dockerfile was refused: "no `vllm serve ...` command found"."""

from __future__ import annotations

import pytest

from cli_runner import planned_json as _json, refused

DIRECT = ["Qwen/Qwen3-8B", "--gpu", "L4", "--max-model-len", "16384", "--vllm-version", "0.11.0"]


def _write(tmp_path, text: str, name: str = "Dockerfile") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("name, text", [
    # the image's own entrypoint (vllm serve) with an exec-form CMD of its flags; an ARG in FROM; continuations
    ("Dockerfile", "# syntax=docker/dockerfile:1\nARG TAG=v0.11.0\nFROM vllm/vllm-openai:${TAG}\n"
                   "ENV HF_HOME=/models\n# the model\nCMD [\"--model\", \"Qwen/Qwen3-8B\", \\\n"
                   "     \"--max-model-len\", \"16384\"]\n"),
    # an exec-form shell: `bash -c SCRIPT NAME ARGS`, the CMD its arguments ("$@")
    ("Dockerfile.args", "FROM vllm/vllm-openai:v0.11.0\n"
                        "ENTRYPOINT [\"/bin/bash\", \"-c\", \"exec vllm serve \\\"$@\\\"\", \"--\"]\n"
                        "CMD [\"Qwen/Qwen3-8B\", \"--max-model-len\", \"16384\"]\n"),
    # ENTRYPOINT set in the Dockerfile, the model first in CMD; CMD of the base image reset by it
    ("Containerfile", "FROM vllm/vllm-openai:v0.11.0\nENTRYPOINT [\"vllm\", \"serve\"]\n"
                      "CMD [\"Qwen/Qwen3-8B\", \"--max-model-len\", \"16384\", \"--port\", \"8000\"]\n"),
    # a shell-form ENTRYPOINT: /bin/sh -c reads the ENV at run time; its CMD is not run
    ("serve.Dockerfile", "FROM vllm/vllm-openai:v0.11.0\nENV MAX_LEN=16384\n"
                         "ENTRYPOINT vllm serve Qwen/Qwen3-8B --max-model-len ${MAX_LEN} 2>&1 | tee /tmp/vllm.log\n"
                         "CMD [\"--ignored\"]\n"),
    # another base image with vLLM installed by pip (the release), several stages, a here-document in a RUN
    ("Dockerfile.gpu", "FROM nvidia/cuda:12.8.0-runtime-ubuntu22.04 AS base\nRUN <<EOF\napt-get update\n"
                       "FROM nothing-here\nEOF\nRUN pip install --no-cache-dir \"vllm==0.11.0\" hf_transfer\n"
                       "FROM base AS serve\nENTRYPOINT [\"vllm\", \"serve\"]\n"
                       "CMD [\"Qwen/Qwen3-8B\", \"--max-model-len\", \"16384\"]\n"),
])
def test_a_dockerfile_plans_as_the_command_its_container_runs(monkeypatch, capsys, tmp_path, name, text):
    direct = _json(monkeypatch, capsys, "fit", *DIRECT)
    plan = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", _write(tmp_path, text, name))
    assert plan["kv_cache_tokens"] == direct["kv_cache_tokens"] and plan["args"] == direct["args"], name
    assert plan["vllm_version"] == "0.11.0"


def test_its_env_is_the_servers_environment_and_its_notes_say_what_was_read(monkeypatch, capsys, tmp_path):
    text = ("FROM vllm/vllm-openai:v0.10.1.1 AS serve\nENV VLLM_USE_V1=0 LEN=8192\n"
            "CMD [\"--model\", \"Qwen/Qwen3-8B\", \"--max-model-len\", \"8192\"]\n")
    plan = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", _write(tmp_path, text))
    v0 = _json(monkeypatch, capsys, "fit", "Qwen/Qwen3-8B", "--gpu", "L4", "--max-model-len", "8192",
               "--vllm-version", "0.10.1.1", "--env", "VLLM_USE_V1=0")
    assert plan["kv_cache_tokens"] == v0["kv_cache_tokens"] and plan["era"] == v0["era"]
    notes = plan["from_command"]["notes"]
    assert any(n.startswith("read as the vllm/vllm-openai image's `vllm serve` entrypoint") for n in notes), notes
    pip = ("FROM python:3.12-slim\nRUN pip install vllm==0.10.2\nFROM python:3.12-slim\n"
           "CMD [\"vllm\", \"serve\", \"Qwen/Qwen3-8B\", \"--max-model-len\", \"8192\"]\n")
    notes = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", _write(tmp_path, pip, "Dockerfile.pip"))[
        "from_command"]["notes"]
    # the pin is in the first stage, which the last one does not build on: no release from it
    assert not any("installs" in n for n in notes) and any("last of its 2 stages" in n for n in notes), notes


@pytest.mark.parametrize("text, field, says", [
    ("FROM vllm/vllm-openai:v0.11.0\nCMD [\"Qwen/Qwen3-8B\"]\n", "Dockerfile line 2 (CMD)",
     "name the model with --model"),
    ("FROM vllm/vllm-openai:v0.11.0\nCMD [\"--model\", \"Qwen/Qwen3-8B\", \"--max-model-len\", \"$LEN\"]\n",
     "Dockerfile line 2 (CMD)", "the exec form (a JSON list) runs no shell"),
    ("FROM python:3.12\nCMD [\"python3\", \"app.py\"]\n", "--from", "no `vllm serve ...`"),
    # a build argument with no value leaves no image docker build takes
    ("ARG TAG\nFROM vllm/vllm-openai:${TAG}\nCMD [\"--model\", \"Qwen/Qwen3-8B\"]\n", "Dockerfile line 2 (FROM)",
     "the build argument TAG has no value"),
    # a script in the image runs vllm serve: the Dockerfile does not show its command
    ("FROM vllm/vllm-openai:v0.11.0\nCOPY entrypoint.sh /\nENTRYPOINT [\"/entrypoint.sh\"]\n",
     "Dockerfile line 3 (ENTRYPOINT)", "--from entrypoint.sh"),
    ("FROM python:3.12\n", "--from", "sets no ENTRYPOINT or CMD"),
    ("CMD [\"vllm\", \"serve\", \"Qwen/Qwen3-8B\"]\nFROM python:3.12\n", "Dockerfile line 1 (CMD)",
     "comes before the first FROM"),
])
def test_a_dockerfile_whose_command_kvplan_cannot_know_is_refused_by_its_line(monkeypatch, capsys, tmp_path, text,
                                                                              field, says):
    out = refused(monkeypatch, capsys, field, "fit", "--gpu", "L4", "--from", _write(tmp_path, text))
    assert says in out, out


def test_a_pasted_dockerfile_reads_as_the_file_does(monkeypatch, capsys, tmp_path):
    text = "FROM vllm/vllm-openai:v0.11.0\nCMD [\"--model\", \"Qwen/Qwen3-8B\", \"--max-model-len\", \"16384\"]\n"
    from kvplan.serve_command import parse_serve_command

    pasted = parse_serve_command(text, text_only=True)
    from_file = parse_serve_command(_write(tmp_path, text))
    assert pasted.model == from_file.model == "Qwen/Qwen3-8B" and pasted.planned == from_file.planned
    assert pasted.planned["vllm_version"] == "0.11.0"


def test_the_pages_import_box_takes_a_dockerfiles_text(monkeypatch, capsys):
    from fastapi.testclient import TestClient

    from kvplan.web.app import create_app

    text = "FROM vllm/vllm-openai:v0.11.0\nCMD [\"--model\", \"Qwen/Qwen3-8B\", \"--max-model-len\", \"16384\"]\n"
    client = TestClient(create_app())
    read = client.post("/api/from_command", json={"from_command": text})
    assert read.status_code == 200 and read.json()["from_command"]["model"] == "Qwen/Qwen3-8B", read.text
    plan = client.post("/api/plan", json={"from_command": text, "gpu": "L4"})
    assert plan.status_code == 200, plan.text
    assert plan.json()["kv_cache_tokens"] == _json(monkeypatch, capsys, "fit", *DIRECT)["kv_cache_tokens"]
