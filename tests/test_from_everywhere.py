"""`--from` on every command that plans a deployment (sweep, simulate, capacity, preflight, beside fit and scaffold:
cli.read_from), and the variables of a launch file read as its runtime reads them (kvplan.launch_vars): a compose
file's ${VAR} interpolation and a serve script's variables, so that the files `kvplan scaffold` writes plan back as
scaffold planned them."""

from __future__ import annotations


import pytest

from cli_runner import planned_json as _json, refused, run_cli, scaffolded as _scaffold

SERVE = "vllm serve Qwen/Qwen3-8B --max-model-len 16384 --gpu-memory-utilization 0.9 --enable-prefix-caching --port 8000"
DIRECT = ["Qwen/Qwen3-8B", "--max-model-len", "16384", "--gpu-memory-utilization", "0.9", "--enable-prefix-caching"]
WORKLOAD = ["--prompt-len", "constant:512", "--completion-len", "constant:64", "--rate", "2", "-n", "60"]


def _timeless(d):
    """The output without the simulator's own run time (simulator_wall_s), the one number the plan does not decide."""
    if isinstance(d, dict):
        return {k: _timeless(v) for k, v in d.items() if k != "simulator_wall_s"}
    return [_timeless(v) for v in d] if isinstance(d, list) else d


@pytest.mark.parametrize("command, own", [
    ("sweep", ["--vary", "kv_cache_dtype=auto,fp8"]),
    ("simulate", WORKLOAD),
    ("capacity", ["--prompt-len", "constant:512", "--completion-len", "constant:64", "-n", "40", "--slo", "ttft=2s"]),
])
def test_from_plans_as_the_same_flags_given_directly(monkeypatch, capsys, command, own):
    at = ["--gpu", "L4", "--vllm-version", "0.11.0"]
    direct = _json(monkeypatch, capsys, command, *DIRECT, *at, *own)
    cmd = _json(monkeypatch, capsys, command, "--from", SERVE, *at, *own)
    prov = cmd.pop("from_command")
    assert _timeless(cmd) == _timeless(direct)
    assert prov["planned"]["--max-model-len"] == "16384" and prov["not_planned"] == ["--port"]


def test_a_flag_on_both_must_agree_and_the_commands_own_flags_stay_theirs(monkeypatch, capsys):
    text = refused(monkeypatch, capsys, "--max-model-len", "simulate", "--gpu", "L4", "--max-model-len", "8192",
                   "--from", SERVE, *WORKLOAD)
    assert "8192" in text and "16384" in text
    refused(monkeypatch, capsys, "MODEL", "capacity", "Qwen/Qwen3-4B", "--gpu", "L4", "--from", SERVE)
    refused(monkeypatch, capsys, "--enable-prefix-caching", "sweep", "--gpu", "L4", "--no-enable-prefix-caching",
            "--from", SERVE)
    # simulate's workload flags are not vllm serve flags: in the command they are refused, as fit refuses them
    assert "--rate" in refused(monkeypatch, capsys, "--from", "simulate", "--gpu", "L4", "--from", SERVE + " --rate 2")


def test_sweep_vary_replaces_the_commands_flag_in_each_row(monkeypatch, capsys):
    at = ["--gpu", "L4", "--vary", "max_model_len=8192,32768"]
    direct = _json(monkeypatch, capsys, "sweep", "Qwen/Qwen3-8B", "--gpu-memory-utilization", "0.9",
                   "--enable-prefix-caching", *at)
    cmd = _json(monkeypatch, capsys, "sweep", "--from", SERVE, *at)
    prov = cmd.pop("from_command")
    assert cmd == direct and [r["max_model_len"] for r in cmd["rows"]] == [8192, 32768]
    assert "--max-model-len 16384 in the command: replaced by --vary max_model_len in each row" in prov["notes"]
    # a flag given here and varied is still refused, as without --from
    refused(monkeypatch, capsys, "--vary", "sweep", "--from", SERVE, "--max-model-len", "16384", *at)


def test_preflight_from(monkeypatch, capsys):
    direct = _json(monkeypatch, capsys, "preflight", *DIRECT, "--gpu", "L4")
    cmd = _json(monkeypatch, capsys, "preflight", "--from", SERVE, "--gpu", "L4")
    assert cmd.pop("from_command")["model"] == "Qwen/Qwen3-8B"
    assert cmd["request"] == direct["request"] and cmd["findings"] == direct["findings"]


# ---- variables ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("expr, env, expected", [
    ("${A}", {"A": "1"}, "1"),
    ("$A", {"A": "1"}, "1"),
    ("${A:-d}", {}, "d"),
    ("${A:-d}", {"A": ""}, "d"),
    ("${A-d}", {"A": ""}, ""),
    ("${A-d}", {}, "d"),
    ("${A:?need A}", {"A": "x"}, "x"),
    ("${A:+alt}", {"A": "x"}, "alt"),
    ("${A:+alt}", {}, ""),
    ("${A:-${B:-inner}}", {}, "inner"),
    ("pa$$word", {}, "pa$word"),
    ("${A}", {}, "${A}"),  # no value: kept as written (refused where it is planned)
])
def test_compose_interpolation(expr, env, expected):
    from kvplan.launch_vars import Values, expand

    values = Values(sources=[("--env", env)])
    assert expand(expr, values, compose=True) == expected
    assert ("A" in values.missing) == (expected == "${A}")


@pytest.mark.parametrize("args", [
    ("Qwen/Qwen3-8B", "--gpu", "L4", "--max-model-len", "16384"),
    ("Qwen/Qwen3-32B", "--gpu", "L4", "-tp", "4", "--kv-cache-dtype", "fp8", "--max-model-len", "8192",
     "--enable-prefix-caching", "--env", "VLLM_USE_V1=1", "--vllm-version", "0.11.0"),
    ("meta-llama/Llama-3.1-8B-Instruct", "--gpu", "A10G", "--max-model-len", "8192", "--gpu-memory-utilization",
     "0.85", "--max-num-seqs", "64", "--served-model-name", "llama", "--port", "8001"),
])
def test_scaffolds_own_files_plan_back_as_scaffold_planned(monkeypatch, capsys, tmp_path, args):
    tokens = _scaffold(monkeypatch, capsys, tmp_path / "out", *args)
    # the GPU and the release given again as well (the files name them too: test_scaffold_recheck)
    at = [a for i, a in enumerate(args) if a in ("--gpu", "--vllm-version") or args[i - 1] in ("--gpu", "--vllm-version")]
    direct = _json(monkeypatch, capsys, "fit", *[a for a in args if a not in ("--served-model-name", "llama", "--port",
                                                                              "8001")])
    assert direct["kv_cache_tokens"] == tokens
    for name in ("docker-compose.yml", "serve.sh"):
        cmd = _json(monkeypatch, capsys, "fit", "--from", str(tmp_path / "out" / name), *at)
        assert cmd["kv_cache_tokens"] == tokens, name
        prov = cmd.pop("from_command")
        assert any(n.startswith("variables read: ") and "${MODEL:-" in n for n in prov["notes"]), prov["notes"]
        assert cmd["args"] == direct["args"], name


def test_a_compose_files_variables_come_from_env_then_dotenv_then_the_default(monkeypatch, capsys, tmp_path):
    out = tmp_path / "out"
    _scaffold(monkeypatch, capsys, out, "Qwen/Qwen3-8B", "--gpu", "L4", "--max-model-len", "16384")
    compose, script = out / "docker-compose.yml", out / "serve.sh"
    # a .env beside them (the .env.example, filled in): its MODEL planned, by both
    (out / ".env").write_text((out / ".env.example").read_text().replace("MODEL=Qwen/Qwen3-8B", "MODEL=Qwen/Qwen3-4B"))
    for path in (compose, script):
        prov = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", str(path))["from_command"]
        assert prov["model"] == "Qwen/Qwen3-4B"
        assert f"${{MODEL:-Qwen/Qwen3-8B}} = 'Qwen/Qwen3-4B' ({out / '.env'})" in prov["notes"][0]
    # --env (the shell docker compose runs in) before the .env, as docker compose takes them; serve.sh sources its
    # .env over the caller's environment, as bash runs it
    a = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--env", "MODEL=Qwen/Qwen3-1.7B", "--env", "VLLM_USE_V1=1",
              "--from", str(compose))
    assert a["from_command"]["model"] == "Qwen/Qwen3-1.7B"
    # MODEL was the file's input, not the server's environment (scaffold would export it); vLLM's own stays
    assert a["args"]["env"] == [["VLLM_USE_V1", "1"]]
    assert "--env MODEL: read as the file's variables, not planned as the server's environment" in a["from_command"]["notes"]
    assert _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--env", "MODEL=Qwen/Qwen3-1.7B", "--from",
                 str(script))["from_command"]["model"] == "Qwen/Qwen3-4B"


def test_a_variable_with_no_value_is_refused_only_where_it_is_planned(monkeypatch, capsys, tmp_path):
    compose = tmp_path / "docker-compose.yml"
    compose.write_text('services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n    command: ["--model", '
                       '"Qwen/Qwen3-8B", "--max-model-len", "${MAX_LEN}", "--api-key", "${API_KEY:?set API_KEY}", '
                       '"--port", "${PORT}"]\n')
    text = refused(monkeypatch, capsys, "--from", "fit", "--gpu", "L4", "--from", str(compose))
    assert "--max-model-len is ${MAX_LEN} in the command, and MAX_LEN has no value" in text
    assert "give --env MAX_LEN=VALUE" in text and "kvplan does not read its own environment" in text
    assert f"no {tmp_path / '.env'}" in text and f"or set MAX_LEN in {tmp_path / '.env'}" in text  # where compose reads
    (tmp_path / ".env").write_text("MAX_LEN=8192  # a comment\n")
    prov = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", str(compose))["from_command"]
    assert prov["planned"] == {"--max-model-len": "8192", "--vllm-version": "0.11.0"}
    assert prov["not_planned"] == ["--api-key", "--port"]
    # the same with --env, and a plain command's $VAR
    (tmp_path / ".env").unlink()
    assert _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--env", "MAX_LEN=8192", "--from",
                 str(compose))["args"]["max_model_len"] == 8192
    a = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--env", "M=Qwen/Qwen3-8B", "--from",
              'vllm serve "$M" --max-model-len 8192')
    assert a["from_command"]["model"] == "Qwen/Qwen3-8B"
    # scaffold writes the port: a port with no value is refused there
    compose.write_text('services:\n  vllm:\n    command: --model Qwen/Qwen3-8B --max-model-len 8192 --port ${PORT}\n')
    refused(monkeypatch, capsys, "--port", "scaffold", str(tmp_path / "s"), "--gpu", "L4", "--from", str(compose))
    assert not (tmp_path / "s").exists()


def test_a_script_variable_set_on_some_paths_only_is_refused(monkeypatch, capsys, tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text('#!/bin/bash\nLEN=8192\nif [[ "$BIG" == 1 ]]; then\n  LEN=32768\nfi\nargs=(\n  # a comment (with parens)\n'
                      '  --max-model-len "$LEN"\n)\nexec vllm serve Qwen/Qwen3-8B "${args[@]}" "$@"\n')
    text = refused(monkeypatch, capsys, "--from", "fit", "--gpu", "L4", "--from", str(script))
    assert "the script sets LEN on some paths only" in text
    script.write_text(script.read_text().replace('if [[ "$BIG" == 1 ]]; then\n  LEN=32768\nfi\n', ""))
    assert _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", str(script))["args"]["max_model_len"] == 8192


@pytest.mark.parametrize("line", ['[[ "$BIG" == 1 ]] && LEN=32768', 'if [[ "$BIG" == 1 ]]; then LEN=32768; fi',
                                  'case "$SIZE" in\n  big) LEN=32768 ;;\nesac', 'read -r LEN < len.txt'])
def test_a_script_line_that_may_change_a_variable_makes_its_use_a_guess(monkeypatch, capsys, tmp_path, line):
    script = tmp_path / "serve.sh"
    script.write_text(f"source /opt/venv/bin/activate\nLEN=8192\n{line}\nLEN=1 echo ignored\n"
                      'vllm serve Qwen/Qwen3-8B --max-model-len "$LEN"\n')
    assert "the script sets LEN on some paths only" in refused(monkeypatch, capsys, "--from", "fit", "--gpu", "L4",
                                                                "--from", str(script))
    # without that line: a venv's activate sourced (not read) and a variable given to one command alone (LEN=1 echo)
    # change nothing
    script.write_text(script.read_text().replace(line + "\n", ""))
    assert _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", str(script))["args"]["max_model_len"] == 8192


def test_scaffold_from_its_own_files_writes_them_again(monkeypatch, capsys, tmp_path):
    args = ("Qwen/Qwen3-32B", "--gpu", "L4", "-tp", "4", "--kv-cache-dtype", "fp8", "--max-model-len", "8192",
            "--env", "VLLM_USE_V1=1", "--vllm-version", "0.11.0", "--served-model-name", "qwen", "--port", "8001")
    _scaffold(monkeypatch, capsys, tmp_path / "a", *args)
    for i, name in enumerate(("docker-compose.yml", "serve.sh")):
        again = tmp_path / f"b{i}"
        code, _, err = run_cli(monkeypatch, capsys, "scaffold", str(again), "--gpu", "L4", "--vllm-version", "0.11.0",
                               "--from", str(tmp_path / "a" / name))
        assert code == 0, err
        # the same files (serve.sh's comments on --dtype and --max-num-seqs aside: written out, they read back as given)
        for written in ("docker-compose.yml", ".env.example", "k8s/deployment.yaml", "README.md"):
            assert (again / written).read_text() == (tmp_path / "a" / written).read_text().replace(
                str(tmp_path / "a"), str(again)), (name, written)


def test_a_compose_services_image_pins_the_release(monkeypatch, capsys, tmp_path):
    out = tmp_path / "out"
    tokens = _scaffold(monkeypatch, capsys, out, "Qwen/Qwen3-8B", "--gpu", "L4", "--max-model-len", "16384",
                       "--vllm-version", "0.9.2")
    cmd = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", str(out / "docker-compose.yml"))
    assert cmd["vllm_version"] == "0.9.2" and cmd["kv_cache_tokens"] == tokens
    assert "vLLM 0.9.2: the release the image vllm/vllm-openai:v0.9.2 runs" in cmd["from_command"]["notes"]
    # another release given is a conflict, as any flag on both; the same one is none
    text = refused(monkeypatch, capsys, "--vllm-version", "fit", "--gpu", "L4", "--vllm-version", "0.11.0", "--from",
                   str(out / "docker-compose.yml"))
    assert "0.11.0" in text and "0.9.2" in text
    assert _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--vllm-version", "0.9.2", "--from",
                 str(out / "docker-compose.yml"))["kv_cache_tokens"] == tokens
    # a tag that pins no release: noted, planned at kvplan's default (or --vllm-version)
    compose = tmp_path / "docker-compose.yml"
    compose.write_text("services:\n  vllm:\n    image: ${IMAGE:-vllm/vllm-openai:latest}\n"
                       "    command: --model Qwen/Qwen3-8B --max-model-len 8192\n")
    prov = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", str(compose))["from_command"]
    assert any(n.startswith("the image vllm/vllm-openai:latest pins no vLLM release") for n in prov["notes"])
    prov = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--env", "IMAGE=vllm/vllm-openai:v0.10.1.1", "--from",
                 str(compose))["from_command"]
    assert prov["planned"]["--vllm-version"] == "0.10.1.1"


def test_script_words_as_bash_makes_them():
    from kvplan.launch_vars import Values, shell_words

    values = Values(sources=[("--env", {"B": "x y"})])
    words = shell_words('a ${A:-${B}}z "${A:-${B}}" ${C} "\\$HOME" \'$D\' "$@" "${args[@]}" e # c', values,
                        {"args": ["--port", "8000"]})
    # an unquoted expansion split on blanks, a quoted one whole, an unset one kept as written (named), $@ empty
    assert words == ["a", "x", "yz", "x y", "${C}", "$HOME", "$D", "--port", "8000", "e"]
    assert values.missing == {"C": ""}


def _compose(tmp_path, name: str, reservation: str, tp: int = 2) -> str:
    path = tmp_path / name
    path.write_text("services:\n  vllm:\n    image: vllm/vllm-openai:v0.33.0\n"
                    f"    command: [\"--model\", \"Qwen/Qwen3-8B\", \"--max-model-len\", \"8192\", \"-tp\", \"{tp}\"]\n"
                    + reservation)
    return str(path)


def test_a_compose_services_gpu_reservation_is_checked_against_the_ranks(monkeypatch, capsys, tmp_path):
    # the Compose specification's deploy.resources.reservations.devices (capabilities [gpu]: count or device_ids) and
    # a service's gpus: the GPUs docker gives the container, which TP x PP x PCP x DP must not exceed
    devices = "    deploy:\n      resources:\n        reservations:\n          devices:\n            - driver: nvidia\n"
    field = "services.vllm.deploy.resources.reservations.devices[0]"
    notes = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from",
                  _compose(tmp_path, "two.yml", devices + "              count: 2\n              capabilities: [gpu]\n")
                  )["from_command"]["notes"]
    assert f"{field}.count = 2: the GPUs of the plan's 2 ranks (tensor x pipeline x data parallel = 2 x 1 x 1)" in notes
    notes = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", _compose(
        tmp_path, "ids.yml", devices + "              device_ids: [\"0\", \"1\", \"2\"]\n              capabilities: [gpu]\n"
    ))["from_command"]["notes"]
    assert any(n.startswith(f"{field}.device_ids = 3: the service reserves 3 GPUs and vLLM uses 2") for n in notes)
    text = refused(monkeypatch, capsys, f"{field}.count", "fit", "--gpu", "L4", "--from", _compose(
        tmp_path, "one.yml", devices + "              count: 1\n              capabilities: [gpu]\n"))
    assert "the service reserves 1 GPU, and the command runs 2 ranks" in text and "count: 2" in text
    text = refused(monkeypatch, capsys, f"{field}.count", "fit", "--gpu", "L4", "--from", _compose(
        tmp_path, "bad.yml", devices + "              count: two\n              capabilities: [gpu]\n"))
    assert "not a whole number of GPUs" in text
    refused(monkeypatch, capsys, "services.vllm.gpus[0].count", "fit", "--gpu", "L4", "--from", _compose(
        tmp_path, "gpus.yml", "    gpus:\n      - driver: nvidia\n        count: 1\n"))
    # all of the host's GPUs, or none reserved: a number kvplan cannot know, not checked
    for name, reservation in (("all.yml", devices + "              count: all\n              capabilities: [gpu]\n"),
                              ("none.yml", "")):
        notes = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", _compose(tmp_path, name, reservation)
                      )["from_command"]["notes"]
        assert not any("services.vllm" in n for n in notes)
