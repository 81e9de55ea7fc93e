"""The GPU and release kvplan scaffold sized its files for, written in each file's `# Re-check: kvplan fit --from
FILE ...` line and read back by --from where no --gpu / --vllm-version is given: `kvplan fit --from serve.sh` of a
project scaffolded for an L4 planned the default T4 ("does not start", 0 tokens)."""

from __future__ import annotations


import pytest

from cli_runner import planned_json as _json, refused, run_cli, scaffolded as _scaffold

FILES = ("serve.sh", "docker-compose.yml", "k8s/deployment.yaml")


@pytest.mark.parametrize("args", [
    ("Qwen/Qwen3-8B", "--gpu", "L4", "--max-model-len", "16384"),
    ("Qwen/Qwen3-32B", "--gpu", "L4", "-tp", "4", "--kv-cache-dtype", "fp8", "--max-model-len", "8192",
     "--vllm-version", "0.11.0"),
    ("Qwen/Qwen3-8B", "--gpu", "L4", "--gpu-gib", "20", "--max-model-len", "8192"),  # a size given to a card
    ("Qwen/Qwen3-8B", "--gpu-gib", "40", "--max-model-len", "8192"),  # a size alone
    ("Qwen/Qwen3-8B", "--gpu", "H100 MIG 3g.40gb", "--gpu-gib", "39.5", "--max-model-len", "8192"),
    ("Qwen/Qwen3-8B", "--gpu", "RTX 4090", "--wsl2", "--max-model-len", "8192"),
    # under WSL2 a card whose nvidia-smi total the catalog lacks is given its total
    ("Qwen/Qwen2.5-1.5B-Instruct", "--gpu", "RTX 4060 Ti 16GB", "--wsl2", "--gpu-gib", "16", "--max-model-len", "4096"),
])
def test_each_file_plans_back_on_the_gpu_and_release_it_was_sized_for(monkeypatch, capsys, tmp_path, args):
    out = tmp_path / "out"
    tokens = _scaffold(monkeypatch, capsys, out, *args)
    direct = _json(monkeypatch, capsys, "fit", *args)
    assert direct["kv_cache_tokens"] == tokens
    for name in FILES:
        assert "# Re-check: kvplan fit --from " + name in (out / name).read_text(), name
        back = _json(monkeypatch, capsys, "fit", "--from", str(out / name))
        assert back["kv_cache_tokens"] == tokens, name
        assert back["gpu"] == direct["gpu"] and back["vllm_version"] == direct["vllm_version"], name
        assert any("the GPU the file was sized for" in n for n in back["from_command"]["notes"]), name


def test_the_line_is_the_command_it_says_to_run(monkeypatch, capsys, tmp_path, ):
    out = tmp_path / "out"
    tokens = _scaffold(monkeypatch, capsys, out, "Qwen/Qwen3-8B", "--gpu", "L4", "--max-model-len", "16384",
                       "--vllm-version", "0.11.0")
    line = next(x for x in (out / "serve.sh").read_text().splitlines() if x.startswith("# Re-check:"))
    assert line == "# Re-check: kvplan fit --from serve.sh --gpu 'NVIDIA L4' --vllm-version 0.11.0"
    # the project's README says to run it (with nothing else given)
    assert "`kvplan fit --from serve.sh`" in (out / "README.md").read_text()
    monkeypatch.chdir(out)
    assert _json(monkeypatch, capsys, "fit", "--from", "serve.sh")["kv_cache_tokens"] == tokens
    import shlex
    words = shlex.split(line.split("kvplan ", 1)[1])
    assert _json(monkeypatch, capsys, *words)["kv_cache_tokens"] == tokens


def test_a_gpu_or_release_given_is_planned_and_the_file_says_what_it_was_sized_for(monkeypatch, capsys, tmp_path):
    out = tmp_path / "out"
    _scaffold(monkeypatch, capsys, out, "Qwen/Qwen3-8B", "--gpu", "L4", "--max-model-len", "16384")
    h100 = _json(monkeypatch, capsys, "fit", "--from", str(out / "serve.sh"), "--gpu", "H100", "--vllm-version",
                 "0.11.0")
    bare = tmp_path / "bare.sh"  # the script without its line: the flags given plan it alone
    bare.write_text("".join(x for x in (out / "serve.sh").read_text().splitlines(True) if "Re-check" not in x))
    direct = _json(monkeypatch, capsys, "fit", "--from", str(bare), "--gpu", "H100", "--vllm-version", "0.11.0")
    assert h100["kv_cache_tokens"] == direct["kv_cache_tokens"] and h100["gpu"] == direct["gpu"]
    assert "H100" in h100["gpu"]
    notes = h100["from_command"]["notes"]
    assert "serve.sh line 4 (# Re-check:): sized for --gpu 'NVIDIA L4'; the GPU given is planned" in notes, notes
    assert "serve.sh line 4 (# Re-check:): sized for vLLM 0.33.0; 0.11.0 is planned" in notes, notes
    # --vary gpu names each row's card: the line's is not planned
    code, out_text, err = run_cli(monkeypatch, capsys, "sweep", "--from", str(out / "serve.sh"), "--vary",
                                  "gpu=L4,H100")
    assert code == 0 and "--vary gpu names each row's GPU" in err, err


@pytest.mark.parametrize("line, says", [
    ("# Re-check: kvplan fit --from serve.sh --gpu L4 --max-model-len 4096", "'--max-model-len' is not an option"),
    ("# Re-check: kvplan fit --from serve.sh --gpu-gib lots", "--gpu-gib 'lots' is not a GPU's memory in GiB"),
    ("# Re-check: kvplan fit --from serve.sh --gpu", "--gpu has no value"),
    ("# Re-check: kvplan fit --from serve.sh --gpu 'L4", "not read as shell words"),
])
def test_a_damaged_line_is_refused_naming_it(monkeypatch, capsys, tmp_path, line, says):
    script = tmp_path / "serve.sh"
    script.write_text(f"#!/usr/bin/env bash\n{line}\nexec vllm serve Qwen/Qwen3-8B --max-model-len 8192\n")
    text = refused(monkeypatch, capsys, "serve.sh line 2 (# Re-check:)", "fit", "--from", str(script))
    assert says in text, text
    script.write_text(f"{line}\n# Re-check: kvplan fit --from serve.sh --gpu L4\nvllm serve Qwen/Qwen3-8B\n")
    assert "holds 2 Re-check lines" in refused(monkeypatch, capsys, "serve.sh line 1 (# Re-check:)", "fit", "--from",
                                               str(script))


def test_a_command_without_the_line_still_plans_the_default_gpu_with_its_warning(monkeypatch, capsys, tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text("# Re-check the flags below\nexec vllm serve Qwen/Qwen3-8B --max-model-len 8192\n")
    plan = _json(monkeypatch, capsys, "fit", "--from", str(script))
    assert "Tesla T4" in plan["gpu"] and any("no --gpu given" in w for w in plan["warnings"]), plan["warnings"]
