"""`kvplan fit --from 'vllm serve ...'`: a command people already hold, planned whole (kvplan.serve_command)."""

from __future__ import annotations

import json

import pytest

from cli_runner import refused, run_cli

SERVE = ("vllm serve Qwen/Qwen3-8B --max-model-len 32768 --gpu-memory-utilization 0.95 -tp 2 --enable-prefix-caching "
         "--host 0.0.0.0 --port 8000")
DIRECT = ["Qwen/Qwen3-8B", "--max-model-len", "32768", "--gpu-memory-utilization", "0.95", "-tp", "2",
          "--enable-prefix-caching"]


def _json(monkeypatch, capsys, *args) -> dict:
    code, out, err = run_cli(monkeypatch, capsys, "fit", *args, "--json")
    assert code in (0, 1), err
    return json.loads(out)


def test_command_plans_as_the_same_flags_given_directly(monkeypatch, capsys):
    direct = _json(monkeypatch, capsys, *DIRECT, "--gpu", "L4", "--vllm-version", "0.11.0")
    cmd = _json(monkeypatch, capsys, "--from", SERVE, "--gpu", "L4", "--vllm-version", "0.11.0")
    prov = cmd.pop("from_command")
    assert cmd == direct
    assert cmd["args"]["tensor_parallel_size"] == 2 and cmd["args"]["max_model_len"] == 32768
    # where each flag came from: the command, as planned
    assert prov["model"] == "Qwen/Qwen3-8B"
    assert prov["planned"] == {"--max-model-len": "32768", "--gpu-memory-utilization": 0.95,
                               "--tensor-parallel-size": 2, "--enable-prefix-caching": True}
    assert prov["command"] == SERVE


def test_server_flags_are_noted_not_planned(monkeypatch, capsys):
    prov = _json(monkeypatch, capsys, "--from", SERVE + " --api-key k --served-model-name q --chat-template t.jinja "
                 "--enable-auto-tool-choice --tool-call-parser hermes", "--gpu", "L4")["from_command"]
    assert prov["not_planned"] == ["--api-key", "--chat-template", "--enable-auto-tool-choice", "--host", "--port",
                                   "--served-model-name", "--tool-call-parser"]
    assert prov["notes"] == ["not planned with, as they move no GPU memory: " + ", ".join(prov["not_planned"])]
    code, out, _ = run_cli(monkeypatch, capsys, "fit", "--from", SERVE, "--gpu", "L4", "--explain")
    text = " ".join(out.split())
    assert "not planned with, as they move no GPU memory: --host, --port" in text
    assert "from the command: vllm serve Qwen/Qwen3-8B" in text and "--tensor-parallel-size 2" in text


def test_unmodelled_flags_are_refused_by_name(monkeypatch, capsys):
    text = refused(monkeypatch, capsys, "--from", "fit", "--gpu", "L4", "--from",
                   SERVE + " --kv-sharing-fast-prefill")
    assert "--kv-sharing-fast-prefill True" in text
    assert "kvplan does not model" in text
    # at vLLM's default it changes nothing: planned, and noted
    prov = _json(monkeypatch, capsys, "--from", SERVE + " --model-impl auto", "--gpu", "L4")["from_command"]
    assert "--model-impl" in prov["not_planned"]


def test_unknown_flags_are_refused_by_name(monkeypatch, capsys):
    text = refused(monkeypatch, capsys, "--from", "fit", "--gpu", "L4", "--from", SERVE + " --frobnicate 3")
    assert "not a vllm serve flag kvplan knows: --frobnicate" in text
    # kvplan's own flags are no vllm serve flags
    text = refused(monkeypatch, capsys, "--from", "fit", "--from", SERVE + " --gpu L4")
    assert "--gpu" in text
    refused(monkeypatch, capsys, "-O", "fit", "--gpu", "L4", "--from", SERVE + " -O 3")


def test_conflicting_flags_are_refused(monkeypatch, capsys):
    text = refused(monkeypatch, capsys, "--max-model-len", "fit", "--gpu", "L4", "--max-model-len", "16384",
                   "--from", SERVE)
    assert "16384" in text and "32768" in text
    text = refused(monkeypatch, capsys, "MODEL", "fit", "Qwen/Qwen3-4B", "--gpu", "L4", "--from", SERVE)
    assert "Qwen/Qwen3-4B" in text and "Qwen/Qwen3-8B" in text
    refused(monkeypatch, capsys, "--enable-prefix-caching", "fit", "--gpu", "L4", "--no-enable-prefix-caching",
            "--from", SERVE)
    refused(monkeypatch, capsys, "--env", "fit", "--gpu", "L4", "--env", "VLLM_USE_V1=0", "--from",
            "VLLM_USE_V1=1 " + SERVE)
    # the same value on both (as the planner reads it: 32k and 32000) and the same MODEL are no conflict
    a = _json(monkeypatch, capsys, "Qwen/Qwen3-8B", "--gpu", "L4", "--max-model-len", "32k", "--from",
              "vllm serve Qwen/Qwen3-8B --max-model-len 32000")
    assert a["args"]["max_model_len"] == 32000


def test_script_file_with_continuations(monkeypatch, capsys, tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text("#!/usr/bin/env bash\nset -euo pipefail\n# serve Qwen3-8B on two L4s\n"
                      "exec vllm serve Qwen/Qwen3-8B \\\n  --max-model-len 32768 \\\n  --gpu-memory-utilization 0.95 \\\n"
                      "  -tp 2 \\\n  --enable-prefix-caching \\\n  --host 0.0.0.0 --port 8000\n")
    direct = _json(monkeypatch, capsys, *DIRECT, "--gpu", "L4")
    cmd = _json(monkeypatch, capsys, "--from", str(script), "--gpu", "L4")
    prov = cmd.pop("from_command")
    assert cmd == direct
    assert prov["command"].startswith(str(script) + ": exec vllm serve Qwen/Qwen3-8B --max-model-len 32768")
    assert prov["not_planned"] == ["--host", "--port"]
    two = tmp_path / "two.sh"
    two.write_text("vllm serve a/b\nvllm serve c/d\n")
    assert "2 vllm serve commands" in refused(monkeypatch, capsys, "--from", "fit", "--from", str(two))
    none = tmp_path / "none.sh"
    none.write_text("echo hello\n")
    refused(monkeypatch, capsys, "--from", "fit", "--from", str(none))


def test_python_m_api_server_command(monkeypatch, capsys):
    direct = _json(monkeypatch, capsys, *DIRECT, "--gpu", "L4")
    cmd = _json(monkeypatch, capsys, "--gpu", "L4", "--from",
                "python3 -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B --max-model-len=32768 "
                "--gpu-memory-utilization 0.95 --tensor-parallel-size 2 --enable-prefix-caching --port 8000")
    prov = cmd.pop("from_command")
    assert cmd == direct and prov["model"] == "Qwen/Qwen3-8B"
    # a command naming no model
    assert "names no model" in refused(monkeypatch, capsys, "--from", "fit", "--gpu", "L4", "--from",
                                       "python -m vllm.entrypoints.openai.api_server --max-model-len 4096")


@pytest.mark.parametrize("prefix", ["VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 CUDA_VISIBLE_DEVICES=0,1 ",
                                    "env VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 CUDA_VISIBLE_DEVICES=0,1 "])
def test_env_prefixes_are_read_as_env(monkeypatch, capsys, prefix):
    direct = _json(monkeypatch, capsys, *DIRECT, "--gpu", "L4", "--env", "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1",
                   "--env", "CUDA_VISIBLE_DEVICES=0,1")
    cmd = _json(monkeypatch, capsys, "--gpu", "L4", "--from", prefix + SERVE)
    prov = cmd.pop("from_command")
    assert cmd == direct
    assert ["VLLM_ALLOW_LONG_MAX_MODEL_LEN", "1"] in cmd["args"]["env"]
    assert prov["env"] == ["VLLM_ALLOW_LONG_MAX_MODEL_LEN=1", "CUDA_VISIBLE_DEVICES=0,1"]


def test_switch_negation_short_flags_and_shell_variables(monkeypatch, capsys):
    a = _json(monkeypatch, capsys, "--gpu", "L4", "--from",
              "vllm serve Qwen/Qwen3-8B --max-model-len 8192 --no-enable-prefix-caching -dp 2")
    assert a["args"]["enable_prefix_caching"] is False and a["args"]["data_parallel_size"] == 2
    text = refused(monkeypatch, capsys, "--from", "fit", "--gpu", "L4", "--from", "vllm serve $MODEL --max-model-len 8192")
    assert "$MODEL" in text
    refused(monkeypatch, capsys, "--from", "fit", "--from", "not-a-file.sh")


def test_json_values_lists_negative_lengths_and_vllms_own_kv_cache_memory_spelling(monkeypatch, capsys):
    spec = '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}'
    direct = _json(monkeypatch, capsys, "Qwen/Qwen3-8B", "--gpu", "H100", "--vllm-version", "0.14.0", "--max-model-len",
                   "-1", "--kv-cache-memory-bytes", "8G", "--speculative-config", spec, "--cudagraph-capture-sizes",
                   "1,2,4,8")
    # --kv-cache-memory=N: the spelling vLLM's own startup summary suggests
    cmd = _json(monkeypatch, capsys, "--gpu", "H100", "--vllm-version", "0.14.0", "--from",
                f"vllm serve Qwen/Qwen3-8B --max-model-len -1 --speculative-config '{spec}' "
                "--cudagraph-capture-sizes 1 2 4 8 --kv-cache-memory=8G")
    prov = cmd.pop("from_command")
    assert cmd == direct and cmd["args"]["kv_cache_memory_bytes"] == 8 * 2**30
    assert prov["planned"]["--cudagraph-capture-sizes"] == "1,2,4,8" and prov["planned"]["--max-model-len"] == "-1"


def test_scaffold_from_a_command_writes_the_files_of_the_same_flags(monkeypatch, capsys, tmp_path):
    code, _, err = run_cli(monkeypatch, capsys, "scaffold", str(tmp_path / "a"), "--gpu", "L4", "--from",
                           "vllm serve Qwen/Qwen3-8B --max-model-len 16384 --port 8001 --served-model-name qwen "
                           "--api-key k --host 0.0.0.0 --enable-prefix-caching")
    assert code == 0, err
    assert "not written to serve.sh" in err and "--api-key" in " ".join(err.split())
    code, _, err = run_cli(monkeypatch, capsys, "scaffold", str(tmp_path / "b"), "Qwen/Qwen3-8B", "--gpu", "L4",
                           "--max-model-len", "16384", "--port", "8001", "--served-model-name", "qwen",
                           "--enable-prefix-caching")
    assert code == 0, err
    for name in ("serve.sh", "docker-compose.yml", ".env.example", "k8s/deployment.yaml"):
        assert (tmp_path / "a" / name).read_text() == (tmp_path / "b" / name).read_text().replace(
            str(tmp_path / "b"), str(tmp_path / "a")), name
    assert "--port" in (tmp_path / "a" / "serve.sh").read_text()
    assert "8001" in (tmp_path / "a" / ".env.example").read_text()
    refused(monkeypatch, capsys, "--port", "scaffold", str(tmp_path / "c"), "--gpu", "L4", "--port", "9000", "--from",
            "vllm serve Qwen/Qwen3-8B --port 8001")
    refused(monkeypatch, capsys, "MODEL", "scaffold", str(tmp_path / "d"), "--gpu", "L4")
    assert not (tmp_path / "c").exists() and not (tmp_path / "d").exists()


def test_a_word_no_flag_takes_is_refused(monkeypatch, capsys, tmp_path):
    assert "'extra'" in refused(monkeypatch, capsys, "--from", "fit", "--gpu", "L4", "--from",
                                "vllm serve Qwen/Qwen3-8B --max-model-len 4096 extra")
    refused(monkeypatch, capsys, "--enforce-eager", "fit", "--gpu", "L4", "--from",
            "vllm serve Qwen/Qwen3-8B --enforce-eager Qwen/Qwen3-4B")
    # a script in a folder whose name holds a space and 'vllm' is read as the file it is
    folder = tmp_path / "my vllm"
    folder.mkdir()
    (folder / "serve.sh").write_text("vllm serve Qwen/Qwen3-8B --max-model-len 4096 --port 8000\n")
    prov = _json(monkeypatch, capsys, "--gpu", "L4", "--from", str(folder / "serve.sh"))["from_command"]
    assert prov["planned"] == {"--max-model-len": "4096"} and prov["not_planned"] == ["--port"]


def _embedding_checkpoint(tmp_path):
    """Qwen3-Embedding-8B's config (the calibration record's) as a checkpoint folder: planned without the Hub."""
    from named_records import record

    folder = tmp_path / "Qwen3-Embedding-8B"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(record("calibration.jsonl", "qwen3-embedding-8b-h100-udef-tp1")
                                                   ["model"]["config"]))
    return str(folder)


def test_task_is_planned_as_the_runner_vllm_maps_it_to(monkeypatch, capsys, tmp_path):
    model = _embedding_checkpoint(tmp_path)
    at = ("--gpu", "H100", "--vllm-version", "0.11.0")
    runner = _json(monkeypatch, capsys, *at, "--from", f"vllm serve {model} --runner pooling")
    task = _json(monkeypatch, capsys, *at, "--from", f"vllm serve {model} --task embed")
    generative = _json(monkeypatch, capsys, *at, "--from", f"vllm serve {model}")
    prov = task.pop("from_command")
    runner.pop("from_command")
    generative.pop("from_command")
    assert task == runner and task != generative  # the pooling runner's plan, not the generative one
    assert task["kv_cache_bytes"] > generative["kv_cache_bytes"]  # no lm_head: more left for the KV cache
    assert prov["planned"] == {"--runner": "pooling"}
    assert prov["notes"][0].startswith("--task embed planned as --runner pooling")
    # generate (vLLM's default) plans as no --task; a --runner saying otherwise is refused
    gen = _json(monkeypatch, capsys, *at, "--from", f"vllm serve {model} --task generate")
    assert gen.pop("from_command")["planned"] == {} and gen == generative
    refused(monkeypatch, capsys, "--task", "fit", *at, "--from", f"vllm serve {model} --task embed --runner generate")
    refused(monkeypatch, capsys, "--runner", "fit", *at, "--runner", "generate", "--from", f"vllm serve {model} --task embed")
    # outside the releases that have it: refused, naming the release
    text = refused(monkeypatch, capsys, "--task", "fit", "--gpu", "H100", "--vllm-version", "0.13.0", "--from",
                   f"vllm serve {model} --task embed")
    assert "vLLM 0.13.0 has no --task" in text and "removed in vLLM 0.13.0" in text
    text = refused(monkeypatch, capsys, "--task", "fit", "--gpu", "H100", "--vllm-version", "0.6.0", "--from",
                   f"vllm serve {model} --task embed")
    assert "vLLM 0.6.0 has no --task" in text and "0.6.4" in text
    assert "unknown task 'frob'" in refused(monkeypatch, capsys, "--task", "fit", *at, "--from",
                                            f"vllm serve {model} --task frob")


COMPOSE_FLAGS = ("--model Qwen/Qwen3-8B --max-model-len 32768 --gpu-memory-utilization 0.95 -tp 2 "
                 "--enable-prefix-caching --port 8000")


@pytest.mark.parametrize("source", [
    "command: " + COMPOSE_FLAGS,
    COMPOSE_FLAGS,
    "command: >\n  " + COMPOSE_FLAGS.replace(" --", "\n  --"),  # a folded block, pasted from the file
    'command: ["--model", "Qwen/Qwen3-8B", "--max-model-len", "32768", "--gpu-memory-utilization", "0.95", '
    '"--tensor-parallel-size", "2", "--enable-prefix-caching", "--port", "8000"]',
])
def test_a_compose_command_of_the_image_is_read_as_vllm_serve(monkeypatch, capsys, source):
    direct = _json(monkeypatch, capsys, *DIRECT, "--gpu", "L4")
    cmd = _json(monkeypatch, capsys, "--gpu", "L4", "--from", source)
    prov = cmd.pop("from_command")
    assert cmd == direct and prov["model"] == "Qwen/Qwen3-8B" and prov["not_planned"] == ["--port"]
    assert prov["notes"][0].startswith("read as the vllm/vllm-openai image's `vllm serve` entrypoint")
    code, out, _ = run_cli(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", source)
    assert "read as the vllm/vllm-openai image's `vllm serve` entrypoint" in " ".join(out.split())


def test_a_compose_command_without_model_is_refused(monkeypatch, capsys):
    # the image's flags alone, the model not named with --model: which model would be a guess
    for source in ("command: --max-model-len 32768", '["--max-model-len", "32768"]'):
        text = refused(monkeypatch, capsys, "--from", "fit", "--gpu", "L4", "--from", source)
        assert "names no model with --model" in text
    text = refused(monkeypatch, capsys, "--from", "fit", "--gpu", "L4", "--from",
                   'command: ["Qwen/Qwen3-8B", "--max-model-len", "32768"]')
    assert "runs 'Qwen/Qwen3-8B'" in text and "--model MODEL" in text


@pytest.mark.parametrize("source", ["command: " + SERVE, "command: " + json.dumps(SERVE.split())])
def test_a_compose_command_running_vllm_serve_is_read_as_the_command(monkeypatch, capsys, source):
    direct = _json(monkeypatch, capsys, *DIRECT, "--gpu", "L4")
    cmd = _json(monkeypatch, capsys, "--gpu", "L4", "--from", source)
    prov = cmd.pop("from_command")
    assert cmd == direct and prov["command"] == SERVE and not any("entrypoint" in n for n in prov["notes"])


def test_a_compose_file_is_read_through_its_service_command(monkeypatch, capsys, tmp_path):
    compose = tmp_path / "docker-compose.yml"
    compose.write_text("services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n    command: >\n      "
                       + COMPOSE_FLAGS.replace(" --", "\n      --") + "\n  web:\n    image: nginx\n")
    # the service's image pins the release: planned at it, as --vllm-version 0.11.0
    pinned = _json(monkeypatch, capsys, *DIRECT, "--gpu", "L4", "--vllm-version", "0.11.0")
    cmd = _json(monkeypatch, capsys, "--gpu", "L4", "--from", str(compose))
    prov = cmd.pop("from_command")
    assert cmd == pinned and prov["command"].startswith(str(compose) + ": --model Qwen/Qwen3-8B")
    assert prov["notes"][0].startswith("read as the vllm/vllm-openai image's")
    direct = _json(monkeypatch, capsys, *DIRECT, "--gpu", "L4")
    # entrypoint: set in the file: read with it (no note), as a script's line
    compose.write_text('services:\n  vllm:\n    entrypoint: ["vllm", "serve"]\n    command: ["Qwen/Qwen3-8B", '
                       '"--max-model-len", "32768", "--gpu-memory-utilization", "0.95", "-tp", "2", '
                       '"--enable-prefix-caching", "--port", "8000"]\n')
    cmd = _json(monkeypatch, capsys, "--gpu", "L4", "--from", str(compose))
    prov = cmd.pop("from_command")
    assert cmd == direct and not any("entrypoint" in n for n in prov["notes"])
    # two services with commands: which one would be a guess
    compose.write_text("services:\n  a:\n    command: --model a/b\n  b:\n    command: --model c/d\n")
    assert "2 service commands" in refused(monkeypatch, capsys, "--from", "fit", "--gpu", "L4", "--from", str(compose))


def test_several_served_model_names_are_taken_as_vllm_serve_takes_them(monkeypatch, capsys, tmp_path):
    # --served-model-name is nargs="+" (the API answers to each name): the words after it are its values, not stray
    two = "vllm serve Qwen/Qwen3-8B --served-model-name Qwen/Qwen3-8B qwen3 --max-model-len 8192"
    prov = _json(monkeypatch, capsys, "--gpu", "L4", "--from", two)["from_command"]
    assert prov["planned"] == {"--max-model-len": "8192"} and prov["not_planned"] == ["--served-model-name"]
    # scaffold's files serve one name: refused until one of them is chosen, then that one is written
    text = refused(monkeypatch, capsys, "--served-model-name", "scaffold", str(tmp_path / "a"), "--gpu", "L4",
                   "--from", two)
    assert "Qwen/Qwen3-8B, qwen3" in text and not (tmp_path / "a").exists()
    refused(monkeypatch, capsys, "--served-model-name", "scaffold", str(tmp_path / "b"), "--gpu", "L4",
            "--served-model-name", "other", "--from", two)
    code, _, err = run_cli(monkeypatch, capsys, "scaffold", str(tmp_path / "c"), "--gpu", "L4",
                           "--served-model-name", "qwen3", "--from", two)
    assert code == 0, err
    assert "SERVED_MODEL_NAME=${SERVED_MODEL_NAME:-qwen3}" in (tmp_path / "c" / "serve.sh").read_text()
    # a startup log's command line names both
    from kvplan.logs import parse_log

    log = parse_log(["INFO 01-01 00:00:00 api_server.py:1] vLLM API server version 0.11.0",
                     f"INFO 01-01 00:00:00 api_server.py:2] {two} --port 8000"])
    assert {"Qwen/Qwen3-8B", "qwen3"} <= set(log.model_names)


@pytest.mark.parametrize("line", [
    "vllm serve Qwen/Qwen3-8B --max-model-len 8192 2>&1 | tee vllm.log",
    "ray start --head --port 6379 && vllm serve Qwen/Qwen3-8B --max-model-len 8192",
    "nohup vllm serve Qwen/Qwen3-8B --max-model-len 8192 > vllm.log 2>&1 &",
    "VLLM_LOGGING_LEVEL=DEBUG vllm serve Qwen/Qwen3-8B --max-model-len 8192 >>/var/log/vllm.log 2> err.txt",
    "cd /srv; exec vllm serve Qwen/Qwen3-8B --max-model-len 8192 &>vllm.log",
])
def test_a_shell_line_plans_its_vllm_serve_command_without_redirections(monkeypatch, capsys, tmp_path, line):
    # bash runs `ray start ... && vllm serve ...` as two commands and applies `> log 2>&1` itself: vLLM sees neither
    direct = _json(monkeypatch, capsys, "--gpu", "L4", "--from", "vllm serve Qwen/Qwen3-8B --max-model-len 8192")
    script = tmp_path / "serve.sh"
    script.write_text("#!/usr/bin/env bash\nset -euo pipefail\n" + line + "\n")
    for source in (line, str(script)):
        got = _json(monkeypatch, capsys, "--gpu", "L4", "--from", source)
        assert got["from_command"]["planned"] == direct["from_command"]["planned"] == {"--max-model-len": "8192"}
        assert got["kv_cache_tokens"] == direct["kv_cache_tokens"]
        assert {k: v for k, v in got["args"].items() if k != "env"} == {k: v for k, v in direct["args"].items() if k != "env"}
    # a redirection sign given as a value in quotes stays the value
    prov = _json(monkeypatch, capsys, "--gpu", "L4", "--from",
                 "vllm serve Qwen/Qwen3-8B --max-model-len 8192 --chat-template '>' > log")["from_command"]
    assert prov["not_planned"] == ["--chat-template"]
    assert "2 vllm serve commands" in refused(monkeypatch, capsys, "--from", "fit", "--gpu", "L4", "--from",
                                              "vllm serve Qwen/Qwen3-8B || vllm serve Qwen/Qwen3-4B")
