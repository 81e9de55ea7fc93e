"""README.md and docs/architecture.md say what the tool does now: the example output, the modules, the commands,
the flags, and every option's help."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
ARCHITECTURE = (ROOT / "docs" / "architecture.md").read_text()


def _cli_command():
    from kvplan.cli import app, main  # noqa: F401  (importing main registers every command module)

    return typer.main.get_command(app)


def test_readme_fit_example_is_what_kvplan_fit_prints_without_a_gpu():
    # the README promises "real output on a machine without a GPU": NVML finds none, so the T4 fallback
    block = README.split("Real output on a machine without a GPU:\n\n```\n", 1)[1].split("```\n", 1)[0]
    width = max(len(line) for line in block.splitlines())
    code = ("import kvplan.resolve as r; r.detect_gpu = lambda: None\n"
            "from kvplan.cli import main; main()")
    env = {**os.environ, "COLUMNS": str(width), "TERM": "dumb", "NO_COLOR": "1"}
    env.pop("FORCE_COLOR", None)
    out = subprocess.run([sys.executable, "-c", code, "fit"], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout == block


def test_architecture_lists_every_module_and_each_one_imports():
    import importlib

    src = ROOT / "src" / "kvplan"
    modules = {p.stem for p in src.glob("*.py") if p.stem not in ("__init__", "__main__")} | {"web", "cli"}  # __main__: python -m kvplan
    named = set(re.findall(r"`kvplan\.([a-z_]+)", ARCHITECTURE))
    assert modules - named == set(), "modules docs/architecture.md does not name"
    for name in named:
        importlib.import_module(f"kvplan.{name}")


def test_architecture_contract_attributes_exist_on_a_plan():
    import kvplan

    p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", gpu="L4", max_model_len=32768, gpu_memory_utilization=0.92,
                   detect_gpu=False)
    contract = ARCHITECTURE.split("```python", 1)[1].split("```", 1)[0]
    code = "\n".join(line.split("#", 1)[0] for line in contract.splitlines())
    attrs = set(re.findall(r"\bp\.([a-z_]+)", code))
    assert {"fits", "error", "max_concurrency", "cudagraph_bytes", "era"} <= attrs  # the parse sees the whole block
    for attr in attrs:
        assert hasattr(p, attr), attr
    # the fields listed after "ModelSpec:" and "GPUSpec:" in the comments
    for owner, spec in (("ModelSpec", p.model), ("GPUSpec", p.gpu)):
        listed = contract.split(owner + ":", 1)[1].split("\np.", 1)[0]
        names = re.findall(r"([a-z_]+)(?:\([a-z]+\))?(?: \([^)]*\))?\s*(?:,|$)", listed.replace("#", " "), flags=re.M)
        assert len(names) >= 6, names
        for attr in names:
            assert hasattr(spec, attr), f"{owner}.{attr}"
    assert set(p.to_dict()) >= {"fits", "kv_cache_bytes", "num_gpu_blocks", "max_concurrency", "args"}


def test_every_command_in_the_readme_exists():
    commands = set(_cli_command().commands)
    used = set(re.findall(r"`kvplan ([a-z]+)", README))
    assert used and used <= commands, used - commands


def test_every_kvplan_flag_the_readme_spells_is_an_option_of_some_command():
    options = {opt for cmd in _cli_command().commands.values() for p in cmd.params
               for opt in (*p.opts, *getattr(p, "secondary_opts", ()))}
    bench = {"--moe", "--gpu-profiles", "--no-prefix-caching"}  # bench/ scripts' own switches
    spelled = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]+)", README)) - bench - {"--gpus"}  # docker's --gpus all
    assert spelled - options == set()


@pytest.mark.parametrize("name", ["fit", "sweep", "models", "gpus", "preflight", "scaffold", "diagnose", "reconcile",
                                  "web", "validate", "simulate", "capacity"])
def test_every_option_says_what_it_does(name):
    cmd = _cli_command().commands[name]
    assert cmd.help
    silent = [p.opts[0] for p in cmd.params if p.param_type_name == "option" and not (p.help or "").strip()]
    assert silent == []
