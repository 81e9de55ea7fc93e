"""A new user's pass over the launch-file readers added last: a values file of vLLM's Helm chart (`--from
values.yaml#NAME`), a compose service's command, environment and GPU reservation, and a shell line's `vllm serve`
command (prefixes that run it as their argument, redirections). Each case was an internal error, a run past 30 s, or
a plan from input that should be refused or a refusal of a command bash runs as planned."""

from __future__ import annotations


import pytest

from cli_runner import planned_json as _json, refused, refused_at_once

M = "servingEngineSpec.modelSpec[0]"


def _anchors() -> str:
    """Nine lists of nine references, nested nine deep, as a YAML document's first key: *a9 is 9**9 words once
    written out."""
    lines = ["x-bomb:", '  a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    return "\n".join(lines) + "\n"


def _values(**entry) -> str:
    spec = {"name": "qwen", "repository": "vllm/vllm-openai", "tag": "v0.11.0", "modelURL": "Qwen/Qwen3-8B",
            "requestGPU": "1", "vllmConfig": "{maxModelLen: 8192}"}
    spec.update(entry)
    return _anchors() + "servingEngineSpec:\n  modelSpec:\n  - " + "\n    ".join(f"{k}: {v}" for k, v in spec.items()) + "\n"


@pytest.mark.parametrize("key", ["name", "requestGPU", "requestGPUType", "chatTemplate"])
def test_a_yaml_alias_bomb_in_a_helm_values_key_is_refused_by_that_key(monkeypatch, capsys, tmp_path, key):
    # before: str() of the value (the entry's name for #NAME, sprig's int of requestGPU, the limit's resource name,
    # the chat template's path) wrote 9**9 words: past 30 s and gigabytes
    path = tmp_path / "values.yaml"
    path.write_text(_values(**{key: "*a9"}))
    refused_at_once(monkeypatch, capsys, f"{M}.{key}", "fit", "--gpu", "L4", "--from", str(path))


def _compose(service: str) -> str:
    return _anchors() + "services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n" + service


@pytest.mark.parametrize("service, field", [
    ("    command: [--model, Qwen/Qwen3-8B, *a9]\n", "services.vllm.command[2]"),
    ("    entrypoint: *a9\n    command: [--model, Qwen/Qwen3-8B]\n", "services.vllm.entrypoint[0]"),
    ("    command: [--model, Qwen/Qwen3-8B]\n    environment: {VLLM_USE_V1: *a9}\n",
     "services.vllm.environment.VLLM_USE_V1"),
    ("    command: [--model, Qwen/Qwen3-8B]\n    environment: [*a9]\n", "services.vllm.environment[0]"),
    ("    command: [--model, Qwen/Qwen3-8B]\n    deploy: {resources: {reservations: {devices: [{capabilities: [gpu], "
     "count: *a9}]}}}\n", "services.vllm.deploy.resources.reservations.devices[0].count"),
], ids=["command", "entrypoint", "environment-map", "environment-list", "reservation-count"])
def test_a_yaml_alias_bomb_in_a_compose_service_is_refused_by_its_field(monkeypatch, capsys, tmp_path, service, field):
    # before: the compose reader's str() of each value (for interpolation) wrote 9**9 words: past 30 s and gigabytes
    path = tmp_path / "compose.yaml"
    path.write_text(_compose(service))
    refused_at_once(monkeypatch, capsys, field, "fit", "--gpu", "L4", "--from", str(path))


@pytest.mark.parametrize("prefix", [
    "time", "time -p", "nice -n 10", "nice -10", "nice -n10", "ionice -c2 -n0", "taskset -c 0-7", "taskset 0x3",
    "numactl --cpunodebind=0 --membind=0", "numactl -N 0 -m 0", "timeout 3600", "timeout -s KILL 1h", "stdbuf -oL",
    "command", "CUDA_VISIBLE_DEVICES=0 nohup numactl -N 1 taskset -c 8-15 time",
])
def test_a_program_that_runs_vllm_serve_as_its_argument_plans_the_command(monkeypatch, capsys, tmp_path, prefix):
    # bash runs `nice -n 10 vllm serve ...` as nice running vllm serve with the same arguments (nice, taskset,
    # numactl, timeout, stdbuf, time, command: none touches the GPU); before: refused as "the command runs 'nice -n',
    # not vllm serve"
    direct = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", "vllm serve Qwen/Qwen3-8B --max-model-len 8192")
    script = tmp_path / "serve.sh"
    script.write_text(f"#!/bin/bash\n{prefix} vllm serve Qwen/Qwen3-8B --max-model-len 8192 > log 2>&1 &\n")
    for source in (f"{prefix} vllm serve Qwen/Qwen3-8B --max-model-len 8192", str(script)):
        got = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", source)
        assert got["from_command"]["planned"] == direct["from_command"]["planned"] == {"--max-model-len": "8192"}
        assert got["kv_cache_tokens"] == direct["kv_cache_tokens"]
        assert any("it runs vllm serve with its arguments as given" in n for n in got["from_command"]["notes"])


@pytest.mark.parametrize("line, words", [
    ("numactl --hardware vllm serve Qwen/Qwen3-8B", "numactl --hardware"),
    ("command -v vllm serve Qwen/Qwen3-8B", "command -v"),
    ("taskset -p 0x3 vllm serve Qwen/Qwen3-8B", "taskset -p"),
])
def test_a_wrapper_option_that_may_run_no_command_is_refused_naming_it(monkeypatch, capsys, line, words):
    # the wrapper then prints, or acts on a running process: which command it runs would be a guess
    text = refused(monkeypatch, capsys, "--from", "fit", "--gpu", "L4", "--from", line)
    assert f"{words}: an option of" in text and "without" in text


@pytest.mark.parametrize("line", [
    "vllm serve Qwen/Qwen3-8B --max-model-len 8192 <<< hi",
    "vllm serve Qwen/Qwen3-8B --max-model-len 8192 {fd}>log 3>&-",
    "vllm serve Qwen/Qwen3-8B --max-model-len 8192 >& log",
    "(vllm serve Qwen/Qwen3-8B --max-model-len 8192)",
    "(cd /srv && vllm serve Qwen/Qwen3-8B --max-model-len 8192) > log 2>&1 &",
    "{ vllm serve Qwen/Qwen3-8B --max-model-len 8192; } 2>&1 | tee log",
    "! vllm serve Qwen/Qwen3-8B --max-model-len 8192",
    "if true; then vllm serve Qwen/Qwen3-8B --max-model-len 8192; fi",
    "while true; do vllm serve Qwen/Qwen3-8B --max-model-len 8192; sleep 5; done",
])
def test_redirections_subshells_and_groups_are_the_shells(monkeypatch, capsys, line):
    # before: '<<< hi' left 'hi' (refused: "'hi' in the command is no flag"), '>& log' left 'log', '{fd}>log' left
    # as an argument; '( ... )', '{ ...; }', '!', then / do read as the command's program ("the command runs
    # '(vllm serve', not vllm serve"). Bash runs the vllm serve inside with the same arguments.
    direct = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", "vllm serve Qwen/Qwen3-8B --max-model-len 8192")
    got = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", line)
    assert got["from_command"]["planned"] == direct["from_command"]["planned"] == {"--max-model-len": "8192"}
    assert got["from_command"]["not_planned"] == [] and got["kv_cache_tokens"] == direct["kv_cache_tokens"]


def test_dollar_paren_arithmetic_and_quoted_parens_stay_words(monkeypatch, capsys):
    # a subshell's parentheses are only those outside quotes and $( ): a value in quotes stays the value
    got = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from",
                "vllm serve Qwen/Qwen3-8B --chat-template '(x) { y; }' --max-model-len 8192")
    assert got["from_command"]["planned"] == {"--max-model-len": "8192"} and got["from_command"]["not_planned"] == [
        "--chat-template"]
    # an unquoted $( ), $(( )) or ` ` is one piece of its word, whatever blanks, ; or | it holds: before, bash's
    # words were cut inside it ("'*' in the command is no flag", "'8192)' ...", "an unclosed quote")
    for value in ("$((4096 * 2))", "$(echo 8192)", "$(echo 8192; echo x)", "`echo 8192 | cat`"):
        text = refused(monkeypatch, capsys, "--from", "fit", "--gpu", "L4", "--from",
                       f"vllm serve Qwen/Qwen3-8B --max-model-len {value} 2>&1 | tee log")
        assert f"--max-model-len is {value} in the command, a shell expansion whose value kvplan cannot know" in text


@pytest.mark.parametrize("service, field", [
    ("    deploy: [{capabilities: [gpu], count: 1}]\n", "services.vllm.deploy"),
    ("    deploy: {resources: [{reservations: {devices: [{capabilities: [gpu], count: 1}]}}]}\n",
     "services.vllm.deploy.resources"),
    ("    deploy: {resources: {reservations: {devices: {capabilities: [gpu], count: 1}}}}\n",
     "services.vllm.deploy.resources.reservations.devices"),
    ("    deploy: {resources: {reservations: {devices: [gpu]}}}\n", "services.vllm.deploy.resources.reservations.devices[0]"),
    ("    deploy: {resources: {reservations: {devices: [{capabilities: [[gpu]], count: 1}]}}}\n",
     "services.vllm.deploy.resources.reservations.devices[0].capabilities"),
    ("    gpus: 1\n", "services.vllm.gpus"),
    ("    gpus: {driver: nvidia, count: 1}\n", "services.vllm.gpus"),
], ids=["deploy-list", "resources-list", "devices-map", "device-word", "capabilities-nested", "gpus-number", "gpus-map"])
def test_a_compose_reservation_of_another_shape_is_refused_by_its_field(monkeypatch, capsys, tmp_path, service, field):
    # before: read as no reservation, and -tp 2 planned on 1 reserved GPU without the check (docker compose refuses
    # such a file: the Compose specification's schema); gpus: all and no reservation stay unchecked
    path = tmp_path / "compose.yaml"
    path.write_text("services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n"
                    "    command: [--model, Qwen/Qwen3-8B, --max-model-len, '8192', -tp, '2']\n" + service)
    assert "not a" in refused(monkeypatch, capsys, field, "fit", "--gpu", "L4", "--from", str(path))
    path.write_text(path.read_text().replace(service, "    gpus: all\n"))
    assert "services.vllm" not in " ".join(_json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", str(path))[
        "from_command"]["notes"])


@pytest.mark.parametrize("size", [65_537, 2 ** 70])
def test_a_leaderworkerset_group_past_any_deployment_is_refused(monkeypatch, capsys, tmp_path, size):
    # before: planned, noting "the group's 99999... pods hold ... GPUs and vLLM uses 2; 99999... of them idle"
    from kvplan.resolve import MAX_GPU_COUNT

    path = tmp_path / "lws.yaml"
    path.write_text(
        "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: v}\nspec:\n"
        f"  leaderWorkerTemplate:\n    size: {size}\n    leaderTemplate:\n      spec:\n        containers:\n"
        "        - name: vllm\n          image: vllm/vllm-openai:v0.8.5\n          command: [sh, -c, 'ray start --head; "
        "vllm serve Qwen/Qwen3-8B --max-model-len 8192 -pp 2']\n          resources: {limits: {nvidia.com/gpu: 1}}\n"
        "    workerTemplate:\n      spec:\n        containers:\n        - name: w\n          image: vllm/vllm-openai:v0.8.5\n"
        "          command: [sh, -c, 'ray start --block']\n          resources: {limits: {nvidia.com/gpu: 1}}\n")
    text = refused(monkeypatch, capsys, "spec.leaderWorkerTemplate.size", "fit", "--gpu", "L4", "--from", str(path))
    assert f"{size:,} pods, more than any one deployment spans (at most {MAX_GPU_COUNT:,}" in text


def _lws(tmp_path, worker: str) -> str:
    path = tmp_path / "lws.yaml"
    path.write_text(
        "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: v}\nspec:\n"
        "  leaderWorkerTemplate:\n    size: 2\n    leaderTemplate:\n      spec:\n        containers:\n"
        "        - name: vllm\n          image: vllm/vllm-openai:v0.8.5\n          command: [sh, -c, 'ray start --head; "
        "vllm serve Qwen/Qwen3-8B --max-model-len 8192 -pp 2']\n          resources: {limits: {nvidia.com/gpu: 1}}\n"
        "    workerTemplate:\n      spec:\n        containers:\n        - name: w\n          image: vllm/vllm-openai:v0.8.5\n"
        f"          command: {worker}\n          resources: {{limits: {{nvidia.com/gpu: 1}}}}\n")
    return str(path)


@pytest.mark.parametrize("worker", [
    "[sh, -c, 'vllm serve Qwen/Qwen3-8B --max-model-len 4096 --headless']",
    "null",  # the vllm/vllm-openai image's entrypoint: vllm serve
])
def test_a_leaderworkerset_worker_that_runs_vllm_serve_itself_is_noted(monkeypatch, capsys, tmp_path, worker):
    # before: the worker template's own vllm serve (its flags other than the leader's) was passed over in silence
    note = "spec.leaderWorkerTemplate.workerTemplate.spec.containers[0] runs vLLM's server in each worker pod too"
    got = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", _lws(tmp_path, worker))["from_command"]
    assert got["planned"]["--max-model-len"] == "8192" and any(n.startswith(note) for n in got["notes"])
    # a worker joining the leader's Ray cluster runs no server of its own: no note
    ray = "[sh, -c, 'ray start --address=$(LWS_LEADER_ADDRESS):6379 --block']"
    got = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", _lws(tmp_path, ray))["from_command"]
    assert not any(n.startswith(note) for n in got["notes"])
