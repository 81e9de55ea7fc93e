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
    # the panel's width (the predicted log's lines are printed unwrapped, soft_wrap, indented by two spaces)
    width = max(len(line) for line in block.splitlines() if not line.startswith("  "))
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


def test_architecture_names_every_field_of_a_fix():
    # the contract listed Fix(name, flags, effect) after Fix had gained fits and the first-start fields
    import dataclasses

    from kvplan.plan import Fix

    contract = ARCHITECTURE.split("```python", 1)[1].split("```", 1)[0]
    listed = contract.split("Fix(", 1)[1].split(")", 1)[0]
    names = re.findall(r"([a-z_]+)(?::[^,]*)?(?:,|$)", " ".join(line.split("#", 1)[-1] for line in listed.splitlines()))
    assert names == [f.name for f in dataclasses.fields(Fix)]


def test_every_command_in_the_readme_exists():
    commands = set(_cli_command().commands)
    used = set(re.findall(r"`kvplan ([a-z]+)", README))
    assert used and used <= commands, used - commands


def test_every_kvplan_flag_the_readme_spells_is_an_option_of_some_command():
    options = {opt for cmd in _cli_command().commands.values() for p in cmd.params
               for opt in (*p.opts, *getattr(p, "secondary_opts", ()))}
    bench = {"--moe", "--gpu-profiles", "--no-prefix-caching", "--out-of-sample", "--estimates"}  # bench/ and tools/ scripts' own switches
    options.add("--help")  # click's own, on every command
    # docker run's own options (--from reads a docker run command); vLLM's own summary line in the predicted log
    # suggests `--kv-cache-memory=N`
    docker = {"--gpus", "--runtime", "--ipc", "--env-file", "--entrypoint"}
    spelled = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]+)", README)) - bench - docker - {"--kv-cache-memory"}
    assert spelled - options == set()


@pytest.mark.parametrize("name", ["fit", "sweep", "models", "gpus", "preflight", "scaffold", "diagnose", "reconcile",
                                  "web", "validate", "simulate", "capacity"])
def test_every_option_says_what_it_does(name):
    cmd = _cli_command().commands[name]
    assert cmd.help
    silent = [p.opts[0] for p in cmd.params if p.param_type_name == "option" and not (p.help or "").strip()]
    assert silent == []


# --- the README as a new user reads it: every path it names, every command it shows, the set-up it promises ---

def _readme_code() -> list[str]:
    """The README's code: each inline code span (line breaks inside one read as spaces) and each line of a fenced
    block, with shell comments cut off."""
    fenced = re.findall(r"^```[a-z]*\n(.*?)^```", README, flags=re.S | re.M)
    prose = re.sub(r"^```[a-z]*\n.*?^```", "", README, flags=re.S | re.M)
    spans = [" ".join(s.split()) for s in re.findall(r"`([^`]+)`", prose)]
    lines = [line.split("  #", 1)[0].strip() for block in fenced for line in block.splitlines()]
    return spans + [line for line in lines if line]


def _kvplan_invocations(code: list[str]) -> list[list[str]]:
    """Every `kvplan SUBCOMMAND ...` the code shows (also after `&&` or a pipe), as argv without `kvplan`; the
    README's placeholders read as words ([MODEL] as MODEL) and its `...` dropped."""
    import shlex

    out = []
    for text in code:
        for part in re.split(r"&&|\|", text):
            words = shlex.split(part.strip().replace("[", "").replace("]", ""))
            if len(words) >= 2 and words[0] == "kvplan" and re.fullmatch(r"[a-z]+", words[1]):
                out.append([w for w in words[1:] if w != "..."])
    return out


def test_every_path_the_readme_names_exists():
    tops = ("src/", "tests/", "tools/", "bench/", "docs/", ".ci/", "../shared/")
    named = {w.rstrip(".,;:)") for text in _readme_code() for w in text.split() if w.startswith(tops)}
    named |= {link for link in re.findall(r"\]\(([^)\s]+)\)", README) if "://" not in link}
    assert {"docs/web-screenshot.png", "tests/data/blind_failure_cases.jsonl", "bench/data/h200_step.json"} <= named
    shared_here = (ROOT.parent / "shared").is_dir()  # the project's shared data sits beside the checkout, not in it
    missing = [p for p in sorted(named) if not (ROOT / p).exists() and (shared_here or not p.startswith("../shared/"))]
    assert missing == []


def test_every_kvplan_command_line_in_the_readme_parses():
    # each `kvplan SUBCOMMAND ...` shown (the set-up line, the table, the prose) names a real subcommand and
    # options that command takes, with values of their types
    commands = _cli_command().commands
    shown = _kvplan_invocations(_readme_code())
    assert len(shown) >= 20 and {"fit", "sweep", "capacity", "models", "gpus", "web"} <= {argv[0] for argv in shown}
    for argv in shown:
        assert argv[0] in commands, argv
        if len(argv) > 1:  # a bare `kvplan scaffold` in prose names the command; a line with arguments is one to run
            _assert_parses(commands[argv[0]], argv)


def _assert_parses(command, argv: list[str]) -> None:
    """`kvplan ARGV` parses: options the command takes, values of their types, its required arguments given."""
    try:
        command.make_context(argv[0], argv[1:])
    except Exception as exc:  # typer >= 0.20 raises its vendored click's exceptions, so matched by class name
        if "ClickException" not in {c.__name__ for c in type(exc).__mro__}:
            raise
        raise AssertionError(f"kvplan {' '.join(argv)}: {exc.format_message()}") from None


def _help_examples(command) -> list[str]:
    """The `$ kvplan ...` lines under a command's "Examples:", continuation lines (a trailing backslash) joined."""
    text = (command.help or "").split("Examples:", 1)[-1] if "Examples:" in (command.help or "") else ""
    text = re.sub(r"\\\n\s*", " ", text)
    return [line[2:].split("  #", 1)[0].strip() for line in text.splitlines() if line.startswith("$ ")]


def test_every_command_help_shows_examples_that_parse():
    root = _cli_command()
    assert any("kvplan fit" == ex for ex in _help_examples(root))  # `kvplan --help` starts a new user with fit
    for name, cmd in root.commands.items():
        examples = _help_examples(cmd)
        assert len(examples) >= 2, f"kvplan {name} --help shows no examples"
        for ex in examples:
            argv = _kvplan_invocations([ex])
            assert argv and argv[0][0] == name, ex  # an example of this command, not another's
            _assert_parses(cmd, argv[0])
            # each fits the 80-column help (3 columns of indent and margin), so it reads as one line
            assert len(ex) <= 76 or "\\" in (cmd.help or ""), ex


def test_help_says_what_each_command_does_with_gpu():
    # reconcile plans the log's GPU (never the T4 fallback); fit alone answers --gpu auto
    commands = _cli_command().commands

    def gpu_help(name):
        return next(p.help for p in commands[name].params if "--gpu" in p.opts)

    assert "T4" not in gpu_help("reconcile") and "the log prints" in gpu_help("reconcile")
    assert "'auto'" in gpu_help("fit") and "auto" not in gpu_help("sweep")
    spec = next(p.help for p in commands["fit"].params if "--speculative-config" in p.opts)
    assert all(m in spec for m in ("mtp", "ngram", "eagle3", "draft_model"))  # as the README lists them


def test_env_help_names_every_variable_kvplan_models():
    # --env's help listed 7 of the 10 variables plan.ENV_EFFECTS models (not VLLM_USE_DEEP_GEMM,
    # VLLM_MOE_USE_DEEP_GEMM, VLLM_DISABLE_COMPILE_CACHE), saying the rest were only carried into serve.sh
    from kvplan.plan import ENV_EFFECTS

    commands = _cli_command().commands
    for name in ("fit", "sweep", "scaffold", "preflight"):
        text = next(p.help for p in commands[name].params if "--env" in p.opts)
        modelled = re.findall(r"VLLM_\w+", text.split("Modelled:", 1)[1].split(";", 1)[0])
        assert sorted(modelled) == sorted(ENV_EFFECTS), name


def test_readme_lists_the_sweep_axes_sweep_takes():
    from kvplan.api import SWEEPABLE

    row = next(line for line in README.splitlines() if line.startswith("| `kvplan sweep"))
    listed = row.split("one or two flags varied (", 1)[1].split(")", 1)[0]
    assert [x.strip() for x in listed.split(",")] == list(SWEEPABLE)


def test_ci_runs_the_readme_test_command():
    # the README's second set-up line is what CI runs (.ci/run may only add pip's -q)
    setup = README.split("```bash\n", 1)[1].split("```", 1)[0].splitlines()
    readme_test = setup[1].split("#", 1)[0].strip()
    assert readme_test == "pip install '.[web,test]' && python -m pytest"
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
          if line.strip() and not line.strip().startswith("#")]
    assert readme_test in [line.replace("pip install -q ", "pip install ") for line in ci]
    assert setup[0].split("#", 1)[0].strip() == "pip install . && kvplan fit"


def test_readme_catalog_counts_are_the_catalogs():
    from kvplan.resolve import gpu_catalog, model_catalog

    m = re.search(r"(\d+) models and (\d+) GPUs", README)
    assert m, "the README's `kvplan models` / `kvplan gpus` row"
    assert (int(m.group(1)), int(m.group(2))) == (len(model_catalog()), len(gpu_catalog()))


def test_python_m_kvplan_cli_runs_the_same_commands():
    # the README's fallback where the console script is not on PATH
    out = subprocess.run([sys.executable, "-m", "kvplan.cli", "gpus", "--json"], capture_output=True, text=True,
                         timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert out.returncode == 0, out.stderr
    assert out.stdout.lstrip().startswith("[")


def test_install_hints_name_extras_the_package_defines():
    # kvplan is installed from its checkout (`pip install .`), so a hint reads pip install '.[EXTRA]'; each names an
    # extra of pyproject.toml, and the web hint's fallback packages are that extra's
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    texts = [README] + [p.read_text() for p in (ROOT / "src" / "kvplan").rglob("*.py")]
    named = {x for t in texts for group in re.findall(r"pip install (?:-q )?'\.\[([a-z,]+)\]'", t) for x in group.split(",")}
    assert {"web", "test", "gguf"} <= named <= set(extras)
    assert not any("kvplan[" in t.replace("kvplan[web] is not installed", "") for t in texts)  # not on PyPI
    web = (ROOT / "src" / "kvplan" / "cli" / "web.py").read_text()
    fallback = web.split("(or pip install ", 1)[1].split(")", 1)[0].replace('"', " ").split()
    assert set(fallback) == {re.split(r"[<>=]", d)[0] for d in extras["web"]}
