"""A new user's pass over what was added last: `--from` a Dockerfile (or Containerfile), the `# Re-check:` line kvplan
scaffold writes and --from reads back, and AMD's node label. Each case was an internal error, a run past 30 s, a plan
from a Dockerfile docker reads otherwise (or refuses), or a refusal of one docker runs (the Dockerfile reference,
docs.docker.com/reference/dockerfile)."""

from __future__ import annotations

import pytest

from cli_runner import planned_json as _json, refused, refused_at_once

FLAGS = 'CMD ["--model", "Qwen/Qwen3-8B", "--max-model-len", "16384"]\n'
DIRECT = ["Qwen/Qwen3-8B", "--gpu", "L4", "--max-model-len", "16384", "--vllm-version", "0.11.0"]


def _write(tmp_path, text: str, name: str = "Dockerfile") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("text", [
    # a UTF-8 byte order mark (an editor on Windows writes one): BuildKit's parser drops it; before: 'line 2 (CMD):
    # comes before the first FROM'
    "\ufeffFROM vllm/vllm-openai:v0.11.0\n" + FLAGS,
    # SHELL with options before -c (hadolint's DL4006 asks for it): before, 'the command runs /bin/bash -o, not vllm
    # serve'
    'FROM vllm/vllm-openai:v0.11.0\nSHELL ["/bin/bash", "-o", "pipefail", "-c"]\n'
    "ENTRYPOINT vllm serve Qwen/Qwen3-8B --max-model-len 16384 2>&1 | tee /tmp/log\n",
    # an init or env(1) running the server (tini, dumb-init, /usr/bin/env): before, 'the command runs /usr/bin/tini --'
    'FROM vllm/vllm-openai:v0.11.0\nENTRYPOINT ["/usr/bin/tini", "--", "vllm", "serve"]\n'
    'CMD ["Qwen/Qwen3-8B", "--max-model-len", "16384"]\n',
    'FROM vllm/vllm-openai:v0.11.0\nENTRYPOINT ["dumb-init", "--single-child", "--", "/usr/bin/env", "vllm", "serve"]\n'
    'CMD ["Qwen/Qwen3-8B", "--max-model-len", "16384"]\n',
    # ARG declaring two names (ARG NAME[=DEFAULT] [NAME[=DEFAULT] ...]): before, TAG's default was 'v0.11.0
    # BASE=vllm/vllm-openai' and the FROM refused: 'the build argument BASE has no value'
    "ARG TAG=v0.11.0 BASE=vllm/vllm-openai\nFROM ${BASE}:${TAG}\n" + FLAGS,
    # the legacy form ENV NAME VALUE after a tab, its quotes removed (the reference: "quote characters will be removed
    # if they are not escaped"): before, 'LEN has no value' (a tab) and '"16384"' (its quotes) refused
    'FROM vllm/vllm-openai:v0.11.0\nENV\tLEN\t"16384"\nENTRYPOINT vllm serve Qwen/Qwen3-8B --max-model-len $LEN\n',
], ids=["bom", "shell-pipefail", "tini", "dumb-init-env", "arg-two-names", "env-legacy-tab-quotes"])
def test_a_dockerfile_docker_runs_plans_as_its_command(monkeypatch, capsys, tmp_path, text):
    direct = _json(monkeypatch, capsys, "fit", *DIRECT)
    plan = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", _write(tmp_path, text))
    assert plan["kv_cache_tokens"] == direct["kv_cache_tokens"] and plan["args"] == direct["args"]
    assert plan["vllm_version"] == "0.11.0"


def test_an_arg_before_from_is_not_seen_in_a_stage_that_does_not_declare_it(monkeypatch, capsys, tmp_path):
    # "An ARG declared before a FROM is outside of a build stage, so it can't be used in any instruction after a
    # FROM": ENV MAXLEN=${LEN} is empty, and the shell's ${MAXLEN:-16384} the default. Before: 8,192 planned
    text = ("ARG LEN=8192\nFROM vllm/vllm-openai:v0.11.0\nENV MAXLEN=${LEN}\n"
            "ENTRYPOINT vllm serve Qwen/Qwen3-8B --max-model-len ${MAXLEN:-16384}\n")
    plan = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", _write(tmp_path, text))
    assert plan["from_command"]["planned"]["--max-model-len"] == "16384"
    # declared in the stage (ARG LEN), it is the global one's value
    text = text.replace("FROM vllm/vllm-openai:v0.11.0\n", "FROM vllm/vllm-openai:v0.11.0\nARG LEN\n")
    plan = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", _write(tmp_path, text))
    assert plan["from_command"]["planned"]["--max-model-len"] == "8192"


def test_vllm_installed_over_the_images_is_the_release_planned(monkeypatch, capsys, tmp_path):
    # RUN pip install vllm==0.11.0 on the vllm/vllm-openai:v0.10.0 image replaces its vLLM; before: planned at 0.10.0
    text = "FROM vllm/vllm-openai:v0.10.0\nRUN pip install -U vllm==0.11.0\n" + FLAGS
    plan = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", _write(tmp_path, text))
    assert plan["vllm_version"] == "0.11.0"
    assert plan["kv_cache_tokens"] == _json(monkeypatch, capsys, "fit", *DIRECT)["kv_cache_tokens"]
    assert any("the release Dockerfile line 2 (RUN) installs" in n for n in plan["from_command"]["notes"])


@pytest.mark.parametrize("text, line, word", [
    # a typo: docker build stops ('unknown instruction: ENTRYPIONT'); before, planned with the image's entrypoint
    ("FROM vllm/vllm-openai:v0.11.0\nENTRYPIONT [\"vllm\", \"serve\", \"Qwen/Qwen3-8B\"]\n" + FLAGS, 2, "ENTRYPIONT"),
    # no blank after the instruction: one word, no instruction; before, the line was passed over
    ("FROM vllm/vllm-openai:v0.11.0\nCMD[\"--model\", \"Qwen/Qwen3-8B\"]\n", 2, 'CMD["--MODEL",'),
    # a script named Dockerfile: before, 'line 2 (VLLM): comes before the first FROM'
    ("#!/bin/bash\nvllm serve Qwen/Qwen3-8B --max-model-len 16384\n", 2, "VLLM"),
])
def test_a_line_of_no_instruction_is_refused_by_its_line(monkeypatch, capsys, tmp_path, text, line, word):
    out = refused(monkeypatch, capsys, f"Dockerfile line {line}", "fit", "--gpu", "L4", "--from", _write(tmp_path, text))
    assert f"{word!r} is no Dockerfile instruction" in out, out


@pytest.mark.parametrize("kind", ["ENV", "ARG"])
def test_variables_that_double_at_each_line_are_refused_at_once(monkeypatch, capsys, tmp_path, kind):
    # ENV A1=$A0$A0, A2=$A1$A1, ...: 2**61 characters at A60. Before: MemoryError after 30 s ('internal error', exit 3);
    # line 18 (A16, 2**17 characters) is the first past Linux's MAX_ARG_STRLEN, 131,072
    lines = [f"{kind} A0=xx"] + [f"{kind} A{i + 1}=${{A{i}}}$A{i}" for i in range(60)]
    body = "\n".join(lines) + "\n"
    text = (f"FROM vllm/vllm-openai:v0.11.0\n{body}" if kind == "ENV" else f"{body}FROM vllm/vllm-openai:v0.11.0\n") + FLAGS
    out = refused_at_once(monkeypatch, capsys, f"Dockerfile line 18 ({kind})", "fit", "--gpu", "L4", "--from",
                          _write(tmp_path, text))
    assert "131,072 characters" in out and "MAX_ARG_STRLEN" in out


def test_a_continuation_on_the_last_line_ends_the_instruction(monkeypatch, capsys, tmp_path):
    # an editor's last line `... \` with no line after it: the instruction ends at the file's end; before, the
    # escape character stayed a word ("'' in the command is no flag")
    text = "FROM vllm/vllm-openai:v0.11.0\nENV LEN=16384\nENTRYPOINT vllm serve Qwen/Qwen3-8B --max-model-len $LEN \\"
    plan = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", _write(tmp_path, text))
    assert plan["kv_cache_tokens"] == _json(monkeypatch, capsys, "fit", *DIRECT)["kv_cache_tokens"]


@pytest.mark.parametrize("text, field, says", [
    # 'FROM requires either one or three arguments'; before, AS without a name planned, and `--platform linux/amd64`
    # (a flag is --name=value) took linux/amd64 for the image
    ("FROM vllm/vllm-openai:v0.11.0 AS\n" + FLAGS, "Dockerfile line 1 (FROM)", "not IMAGE or IMAGE AS NAME"),
    ("FROM --platform linux/amd64 vllm/vllm-openai:v0.11.0\n" + FLAGS, "Dockerfile line 1 (FROM)",
     "reads linux/amd64 vllm/vllm-openai:v0.11.0"),
    # 'invalid escape token': before, the directive was passed over
    ("# escape=x\nFROM vllm/vllm-openai:v0.11.0\n" + FLAGS, "Dockerfile line 1 (# escape=)", "neither"),
])
def test_a_from_or_directive_docker_build_stops_on_is_refused(monkeypatch, capsys, tmp_path, text, field, says):
    assert says in refused(monkeypatch, capsys, field, "fit", "--gpu", "L4", "--from", _write(tmp_path, text))


@pytest.mark.parametrize("options, says", [
    ("--gpu NotAGPU", "--gpu: unknown GPU 'NotAGPU'"),
    ("--gpu 'NVIDIA L4' --gpu-gib 1e308", "--gpu-gib: GPU memory must be a positive finite number"),
    ("--gpu ''", "--gpu: empty GPU name"),
    ("--gpu 'NVIDIA L4' --vllm-version latest", "--vllm-version: cannot read a vLLM version from 'latest'"),
    ("--gpu 'NVIDIA L4' --gpu-gb 24 --gpu-gib 22", "both given"),
])
def test_a_recheck_line_value_kvplan_cannot_plan_is_refused_by_the_line(monkeypatch, capsys, tmp_path, options, says):
    # no --gpu / --vllm-version given: before, the error named the option ('error: --gpu: unknown GPU ...') as though
    # the user had given it, not the file's line that held it
    path = tmp_path / "serve.sh"
    path.write_text(f"#!/bin/bash\n# Re-check: kvplan fit --from serve.sh {options}\nvllm serve Qwen/Qwen3-8B "
                    "--max-model-len 8192\n")
    assert says in refused(monkeypatch, capsys, r"serve.sh line 2 (# Re-check:)", "fit", "--from", str(path))


def test_a_recheck_lines_wsl2_with_a_value_is_refused(monkeypatch, capsys, tmp_path):
    # --wsl2 takes no value; before, --wsl2=false planned the card under WSL2 (29,600 tokens where L4 plans 25,968)
    path = tmp_path / "serve.sh"
    path.write_text("# Re-check: kvplan fit --from serve.sh --gpu 'NVIDIA L4' --wsl2=false\nvllm serve Qwen/Qwen3-8B\n")
    assert "--wsl2 takes no value" in refused(monkeypatch, capsys, "serve.sh line 1 (# Re-check:)", "fit", "--from",
                                              str(path))


def test_an_amd_product_label_that_is_no_kubernetes_label_value_pins_no_card(monkeypatch, capsys, tmp_path):
    # 'AMD_Instinct_MI250X/MI250' (the catalog's alias 'AMD Instinct MI250X/MI250' written as the labeller writes a
    # name): '/' is in no label value, the API server refuses the nodeSelector; before, planned on the MI250X
    from test_from_k8s_gpu import SPEC, amd_manifest

    label = "AMD_Instinct_MI250X/MI250"
    field = f'{SPEC}.nodeSelector["amd.com/gpu.product-name"]'
    refused(monkeypatch, capsys, field, "fit", "--from",
            amd_manifest(tmp_path, f"      nodeSelector: {{amd.com/gpu.product-name: '{label}'}}\n"))


@pytest.mark.parametrize("entrypoint, cmd", [
    # an init alone as ENTRYPOINT runs the shell-form CMD (/bin/sh -c TEXT) as its command: before, 'the command
    # runs /bin/sh -c, not vllm serve'
    ('["/usr/bin/tini", "--"]', "vllm serve Qwen/Qwen3-8B --max-model-len 16384"),
    ('["tini", "--", "/bin/bash", "-c"]', '["vllm serve Qwen/Qwen3-8B --max-model-len 16384"]'),
    ('["/usr/bin/env", "bash", "-c"]', '["exec vllm serve Qwen/Qwen3-8B --max-model-len 16384"]'),
])
def test_an_init_or_env_running_a_shell_plans_its_script(monkeypatch, capsys, tmp_path, entrypoint, cmd):
    text = f"FROM vllm/vllm-openai:v0.11.0\nENTRYPOINT {entrypoint}\nCMD {cmd}\n"
    plan = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", _write(tmp_path, text))
    assert plan["kv_cache_tokens"] == _json(monkeypatch, capsys, "fit", *DIRECT)["kv_cache_tokens"]


def test_a_shell_form_cmd_given_to_vllm_serve_is_refused_by_its_line(monkeypatch, capsys, tmp_path):
    # docker runs `vllm serve /bin/sh -c 'Qwen/Qwen3-8B ...'`; before: '-c: not a vllm serve flag kvplan knows'
    text = 'FROM vllm/vllm-openai:v0.11.0\nENTRYPOINT ["vllm", "serve"]\nCMD Qwen/Qwen3-8B --max-model-len 16384\n'
    out = refused(monkeypatch, capsys, "Dockerfile line 3 (CMD)", "fit", "--gpu", "L4", "--from", _write(tmp_path, text))
    assert "runs vllm serve with /bin/sh -c TEXT as its arguments" in out and "CMD as a JSON list" in out


def test_an_unterminated_here_document_is_refused_by_its_line(monkeypatch, capsys, tmp_path):
    # BuildKit: 'unterminated heredoc' (moby/buildkit#5265); before, the rest of the file was skipped as its body and
    # the CMD before it planned (8,192 where the last CMD, inside the here-document, says 16,384)
    text = ("FROM vllm/vllm-openai:v0.11.0\nCMD [\"--model\", \"Qwen/Qwen3-8B\", \"--max-model-len\", \"8192\"]\n"
            "RUN <<EOF\necho hi\n" + FLAGS)
    out = refused(monkeypatch, capsys, "Dockerfile line 3 (RUN)", "fit", "--gpu", "L4", "--from", _write(tmp_path, text))
    assert "unterminated heredoc" in out


def test_a_shell_form_repeating_a_variable_is_refused_at_once(monkeypatch, capsys, tmp_path):
    """A shell form (or a script line) repeating a 1,000-character variable 100,000 times ran past 120 s: the command
    splitter joined its text once per character (quadratic), then shlex rebuilt the 100 MB word. The split is linear, a
    word longer than Linux's MAX_ARG_STRLEN (131,072) is refused, and the words reach the flag reader unsplit again."""
    value = "x" * 1000
    docker = tmp_path / "Dockerfile"
    docker.write_text(f"FROM vllm/vllm-openai:v0.11.0\nENV A={value}\n"
                      f"ENTRYPOINT vllm serve Qwen/Qwen3-8B --api-key {'$A' * 100000}\n")
    script = tmp_path / "serve.sh"
    script.write_text(f"A={value}\nvllm serve Qwen/Qwen3-8B --api-key {'$A' * 20000}\n")
    for path in (docker, script):
        out = refused_at_once(monkeypatch, capsys, "--from", "fit", "--gpu", "L4", "--from", str(path))
        assert "longer than Linux lets one argument be (MAX_ARG_STRLEN, 131,072)" in out, out
