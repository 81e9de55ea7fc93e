"""What `kvplan COMMAND` loads and builds to start: only the command asked for, and rich only when it prints."""

import subprocess
import sys

import typer.main

from kvplan.cli import _app_for, app

FIT_JSON = ["fit", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4", "--max-model-len", "16384", "--json"]


def _names(typer_app) -> list[str]:
    return sorted(typer.main.get_command(typer_app).commands)


def test_a_command_runs_alone_in_a_group_and_the_bare_app_lists_every_command():
    every = _names(app)
    assert len(every) >= 12 and {"fit", "sweep", "simulate", "capacity", "validate"} <= set(every)
    for name in every:
        alone = _app_for([name, "--help"])
        assert alone is not app and _names(alone) == [name]  # a group still: the command's name is parsed as such
    assert _names(app) == every  # the app itself keeps every command
    for args in ([], ["--help"], ["nosuch"], ["--help", "fit"]):
        assert _app_for(args) is app


def test_completion_runs_the_whole_app(monkeypatch):
    monkeypatch.setenv("_KVPLAN_COMPLETE", "bash_complete")
    assert _app_for(["fit"]) is app


def test_fit_json_leaves_rich_unloaded_and_a_printed_plan_loads_it():
    code = ("import sys; sys.argv = ['kvplan', *sys.argv[1:]]; from kvplan.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('RICH', any(m == 'rich' or m.startswith('rich.') for m in sys.modules), file=sys.stderr)")
    json_run = subprocess.run([sys.executable, "-c", code, *FIT_JSON], capture_output=True, text=True, timeout=120)
    assert '"kv_cache_bytes"' in json_run.stdout and "RICH False" in json_run.stderr, json_run.stderr
    text_run = subprocess.run([sys.executable, "-c", code, *FIT_JSON[:-1]], capture_output=True, text=True, timeout=120)
    assert "KV" in text_run.stdout and "RICH True" in text_run.stderr, text_run.stderr
