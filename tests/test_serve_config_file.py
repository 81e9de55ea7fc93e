"""`vllm serve --config FILE.yaml`: the file's keys read as flags the way the release's FlexibleArgumentParser reads
them (after the subcommand and a model given first, before the command's own flags, which win; true as --KEY, false
and maps per release: versions.py config_file_false / config_file_map / config_file_model). Before, every such command
was refused: "the command reads more flags from config.yaml, which kvplan does not read"."""

from __future__ import annotations

import time

import pytest

from cli_runner import planned_json as _json, refused

DIRECT = ["Qwen/Qwen3-8B", "--gpu", "L4", "--max-model-len", "16384"]


def _config(tmp_path, text: str, name: str = "config.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("release", ["0.11.0", "0.33.0"])
def test_the_files_keys_plan_as_the_same_flags_given_directly(monkeypatch, capsys, tmp_path, release):
    cfg = _config(tmp_path, "model: Qwen/Qwen3-8B\nmax-model-len: 16384\ngpu_memory_utilization: 0.9\nport: 8001\n")
    plan = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--vllm-version", release, "--from",
                 f"vllm serve --config {cfg}")
    direct = _json(monkeypatch, capsys, "fit", *DIRECT, "--gpu-memory-utilization", "0.9", "--vllm-version", release)
    assert plan["kv_cache_tokens"] == direct["kv_cache_tokens"] and plan["args"] == direct["args"]
    assert any(n.endswith("the model Qwen/Qwen3-8B") for n in plan["from_command"]["notes"])


def test_the_commands_own_flags_and_model_win(monkeypatch, capsys, tmp_path):
    cfg = _config(tmp_path, "model: Qwen/Qwen3-4B\nmax-model-len: 16384\n")
    plan = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", f"vllm serve Qwen/Qwen3-8B --config {cfg} "
                 "--max-model-len 8192")
    assert plan["model"] == "Qwen/Qwen3-8B" and plan["args"]["max_model_len"] == 8192
    assert any("its model Qwen/Qwen3-4B is not served" in n for n in plan["from_command"]["notes"])


def test_a_false_value_per_release(monkeypatch, capsys, tmp_path):
    cfg = _config(tmp_path, "model: Qwen/Qwen3-8B\nmax-model-len: 16384\nenable-prefix-caching: false\n")
    new = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--vllm-version", "0.33.0", "--from", f"vllm serve --config {cfg}")
    assert new["args"]["enable_prefix_caching"] is False  # --no-enable-prefix-caching (0.28+)
    mid = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--vllm-version", "0.20.0", "--from", f"vllm serve --config {cfg}")
    assert any("false is dropped by vLLM 0.20.0" in n for n in mid["from_command"]["notes"])
    out = refused(monkeypatch, capsys, f"--config {cfg}", "fit", "--gpu", "L4", "--vllm-version", "0.11.0", "--from",
                  f"vllm serve --config {cfg}")
    assert "StoreBoolean" in out


def test_a_map_value_is_json_from_0_20_and_refused_before(monkeypatch, capsys, tmp_path):
    cfg = _config(tmp_path, "model: Qwen/Qwen3-8B\nmax-model-len: 16384\ncompilation-config:\n  cudagraph_mode: NONE\n")
    plan = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", f"vllm serve --config {cfg}")
    direct = _json(monkeypatch, capsys, "fit", *DIRECT, "--compilation-config", '{"cudagraph_mode": "NONE"}')
    assert plan["kv_cache_tokens"] == direct["kv_cache_tokens"]
    out = refused(monkeypatch, capsys, f"--config {cfg}", "fit", "--gpu", "L4", "--vllm-version", "0.14.0", "--from",
                  f"vllm serve --config {cfg}")
    assert "passes as Python's text of it, not JSON" in out


def test_the_file_is_found_beside_the_script_that_names_it(monkeypatch, capsys, tmp_path):
    (tmp_path / "deploy").mkdir()
    _config(tmp_path / "deploy", "model: Qwen/Qwen3-8B\nmax-model-len: 16384\n")
    script = tmp_path / "deploy" / "serve.sh"
    script.write_text("#!/usr/bin/env bash\ncd \"$(dirname \"$0\")\"\nexec vllm serve --config config.yaml\n")
    monkeypatch.chdir(tmp_path)
    plan = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", str(script))
    assert plan["kv_cache_tokens"] == _json(monkeypatch, capsys, "fit", *DIRECT)["kv_cache_tokens"]


@pytest.mark.parametrize("command, says", [
    ("vllm serve Qwen/Qwen3-8B --config nowhere.yaml", "no such file here"),
    ("vllm serve Qwen/Qwen3-8B --config flags.json", "Config file must be of a yaml/yml type"),
    ("vllm serve Qwen/Qwen3-8B --config a.yaml --config b.yaml", "More than one config file specified"),
    ("vllm serve Qwen/Qwen3-8B --config", "No config file specified"),
])
def test_a_config_vllm_would_not_read_is_refused(monkeypatch, capsys, command, says):
    assert says in refused(monkeypatch, capsys, "--config", "fit", "--gpu", "L4", "--from", command)


def test_an_alias_bomb_is_refused_at_once(monkeypatch, capsys, tmp_path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"] + [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]"
                                                          for i in range(1, 9)]
    cfg = _config(tmp_path, "\n".join(lines) + "\n")
    start = time.monotonic()
    out = refused(monkeypatch, capsys, "--config", "fit", "--gpu", "L4", "--from", f"vllm serve Qwen/Qwen3-8B --config {cfg}")
    assert "more than 100,000 values" in out and time.monotonic() - start < 20


def test_the_page_reads_no_file_of_the_server():
    from kvplan.errors import InputError
    from kvplan.serve_command import parse_serve_command

    with pytest.raises(InputError) as err:
        parse_serve_command("vllm serve Qwen/Qwen3-8B --config config.yaml", text_only=True)
    assert err.value.field == "from_command" and "the page does not read" in err.value.message
