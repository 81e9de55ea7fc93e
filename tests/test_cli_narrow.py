"""kvplan's tables at a narrow terminal (COLUMNS=60, 70): a cell rich has to narrow folds onto the next line instead of
being cut with an ellipsis, so no number, flag or id a user reads or copies loses its end (render.whole_cells)."""

from __future__ import annotations

import json

import pytest

from cli_runner import run_cli

M = "Qwen/Qwen3-8B"


def _narrow(monkeypatch, width: int) -> None:
    from kvplan.cli import console

    monkeypatch.setattr(console, "_width", width)


def _rows(out: str) -> list[list[str]]:
    """A boxed table's rows, each cell's folded lines joined: a line whose first cell is empty continues the row."""
    rows: list[list[str]] = []
    for line in out.splitlines():
        if not line.startswith("│"):
            continue
        cells = [c.strip() for c in line.strip("│").split("│")]
        if cells[0] or not rows:
            rows.append(cells)
        else:
            rows[-1] = [a + b for a, b in zip(rows[-1], cells)]
    return rows


def _stacked(out: str, header: str) -> list[str]:
    """The values printed under `header` in a stacked table (render.WholeOrStacked: a row a block, '  header value')."""
    return [line.strip()[len(header):].strip() for line in out.splitlines() if line.startswith(f"  {header} ")]


@pytest.mark.parametrize("width", [60, 70])
def test_a_sweep_prints_every_digit_of_its_numbers(monkeypatch, capsys, width):
    """At 70 columns the tokens column printed 1,993,760 as '1,993,7…', at 60 '1,99…' and the ratio 72.74x as '72.7…'.
    A table prints only where rich gives every column its longest word: at 70 the table folded its header
    'concurrency' mid-word ('concurre' over 'ncy', rich narrows the widest column first, below its longest word while
    the table's minimum fitted), so at 60 and 70 each row is printed as a block."""
    args = ("sweep", M, "--gpu", "L4", "--vary", "tensor_parallel_size=1,8", "--vary", "kv_cache_dtype=auto,fp8")
    code, out, _ = run_cli(monkeypatch, capsys, *args, "--json")
    assert code == 0
    want = [(f"{r['kv_cache_tokens']:,}", f"{r['max_concurrency']:.2f}") for r in json.loads(out)["rows"]]
    _narrow(monkeypatch, width)
    code, out, _ = run_cli(monkeypatch, capsys, *args)
    assert code == 0
    if "└" in out:
        table = out[:out.index("└")]
        assert "…" not in table and "concurrency" in table, table
        rows = _rows(table)
        assert [(r[4], r[5]) for r in rows] == want, table
        assert [r[6] for r in rows][-1] == "75.89×", table
    else:
        assert "…" not in out, out
        assert list(zip(_stacked(out, "tokens"), _stacked(out, "concurrency"))) == want, out
        assert _stacked(out, "ratio")[-1] == "75.89×", out


def test_a_fix_s_flag_is_printed_whole_at_60_columns(monkeypatch, capsys):
    """The nearest fixes' flags column printed '--gpu-memory-ut… 0.96' and '--tensor-parall… 2': nothing to copy. At 60
    columns each fix is now a block with its flags on one line."""
    _narrow(monkeypatch, 60)
    code, out, _ = run_cli(monkeypatch, capsys, "fit", M, "--gpu", "L4", "--max-model-len", "32K")
    assert code == 1
    fixes = out[out.index("Nearest fixes"):]
    assert "…" not in fixes, fixes
    flags = _stacked(fixes, "flags")
    assert "--tensor-parallel-size 2" in flags and "--gpu-memory-utilization 0.97" in flags, fixes


@pytest.mark.parametrize("command", [("models", "deepseek"), ("gpus", "V100")])
def test_catalog_names_are_printed_whole_at_60_columns(monkeypatch, capsys, command):
    """'deepseek-ai/DeepSeek-R1-Dist…' (models) and 'V100S-PCIE-…' (gpus) were cut: the id to pass was not on screen."""
    _narrow(monkeypatch, 60)
    code, out, _ = run_cli(monkeypatch, capsys, *command)
    assert code == 0 and "…" not in out, out
    if command[0] == "models":  # an id too long for its column breaks after a '/' or '-', as the page's ids read
        ids = "".join(line.split("│")[1].strip() for line in out.splitlines() if line.startswith("│"))
        assert "deepseek-ai/DeepSeek-R1-Distill-Qwen-14Bdeepseek-ai/DeepSeek-R1-Distill-Qwen-7B" in ids, out
        assert "Distill-Qw" not in out.replace("Distill-Qwen", ""), out


def test_validate_and_simulate_tables_keep_their_figures_whole_at_60_columns(monkeypatch, capsys, tmp_path):
    """validate's summary printed '11.…' and '39.…' for errors of 11.79 and 39.16 %; simulate's latency rows
    'end-to-e…'."""
    from pathlib import Path

    records = Path(__file__).parent / "data" / "calibration.jsonl"
    (tmp_path / "three.jsonl").write_text("".join(records.read_text().splitlines(True)[:3]))
    _narrow(monkeypatch, 60)
    code, out, _ = run_cli(monkeypatch, capsys, "validate", str(tmp_path / "three.jsonl"), "--no-rows")
    assert code == 0 and "…" not in out, out
    code, out, _ = run_cli(monkeypatch, capsys, "simulate", M, "--gpu", "H100", "-w", "azure-conv", "--rate", "4",
                           "-n", "200", "--max-model-len", "16k")
    assert code == 0 and "…" not in out.replace("and … seconds", "").replace("finished in …", ""), out


@pytest.mark.parametrize("command", ["fit", "simulate", "reconcile"])
def test_command_help_at_80_columns_names_every_option_whole(monkeypatch, capsys, command):
    """`kvplan fit --help` at 80 columns printed '--gpu-memory-util…', '--tensor-parallel…', '--max-num-batched…' and
    --env's variables as 'VLLM_ALLOW_LONG_…': typer's help table cut what did not fit its column. Every option name
    (and each variable --env models) must be readable, folded if need be."""
    import re

    from kvplan.cli import app
    from kvplan.plan import ENV_EFFECTS

    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run_cli(monkeypatch, capsys, command, "--help")
    assert code == 0 and "…" not in out, out
    # the options column's text, its folded pieces joined: each row's first cell, then the next rows' while they continue
    cells = "".join(line.split("│")[1].strip().split("  ")[0] for line in out.splitlines() if line.count("│") >= 2)
    import typer.main

    cmd = typer.main.get_command(app).commands[command]
    for param in cmd.params:
        if getattr(param, "hidden", False):  # an old spelling kept for scripts, not shown
            continue
        for opt in param.opts:
            if opt.startswith("--"):
                assert opt in cells, (opt, cells[:2000])
    if command == "fit":
        flat = re.sub(r"\s*│\s*", "", out)
        for name in ENV_EFFECTS:
            assert name in flat.replace(" ", ""), name


COMMANDS = ("fit", "sweep", "models", "gpus", "preflight", "scaffold", "diagnose", "reconcile", "web", "validate",
            "simulate", "capacity")


@pytest.mark.parametrize("command", COMMANDS)
def test_every_help_at_80_columns_prints_option_names_and_examples_on_one_line(monkeypatch, capsys, command):
    """At 80 columns the 'vllm serve flags' panel (six columns, the '--no-enable-chunked-prefill' names among them) left
    each option name a column of 18: '--gpu-memory-utili' over 'zation', '--tensor-parallel-' over 'size', 20 of the
    panel's names split in every command that plans, and --env's variables folded in an 18-column help
    ('VLLM_ALLOW_CHUNKE' over 'D_LOCAL_ATTN_WITH'). Such a panel now prints each option as a block, names and type on
    one line, help under them: every name, secondary '--no-' names included, stands whole on a line, no line passes 80
    columns, and each of the command's examples is on one line."""
    import re

    import typer.main

    from kvplan.cli import app

    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run_cli(monkeypatch, capsys, command, "--help")
    assert code == 0 and "…" not in out, out
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 80, out
    words = {w for line in lines for w in re.findall(r"(?<![\w-])--[\w-]+", line)}
    cmd = typer.main.get_command(app).commands[command]
    for param in cmd.params:
        if not getattr(param, "hidden", False):
            for opt in (*param.opts, *param.secondary_opts):
                assert not opt.startswith("--") or opt in words, (opt, out)
    shown = [line.strip(" │") for line in lines]
    for example in (line.strip() for line in (cmd.help or "").splitlines() if line.strip().startswith("$ ")):
        assert any(example.split("  #")[0].strip() in line for line in shown), (example, out)


def test_a_help_panel_that_fits_keeps_typer_s_columns(monkeypatch, capsys):
    """Stacking is for a panel whose words cannot stand whole: at 200 columns each vllm serve flag keeps its help on its
    own line, and at 80 fit's small GPU panel is still a table."""
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run_cli(monkeypatch, capsys, "fit", "--help")
    assert code == 0
    assert any("--gpu-memory-utilization" in line and "Fraction of total GPU memory" in line for line in out.splitlines())
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run_cli(monkeypatch, capsys, "fit", "--help")
    lines = out.splitlines()
    assert any("--gpu-gib" in line and "A custom GPU" in line for line in lines), out
    at = next(i for i, line in enumerate(lines) if "--gpu-memory-utilization" in line)
    assert "Fraction of total" not in lines[at] and "Fraction of total" in lines[at + 1], out


def test_help_folding_never_stops_help_where_typer_differs(monkeypatch):
    """pyproject.toml asks typer>=0.12 only: a typer whose rich_utils is missing, or whose help builder returns
    something other than Columns of Text, must get its own help unchanged, not an exception under --help (the patch
    raised ImportError, and TypeError on a `renderables` that is not a list)."""
    import sys

    import typer
    from typer import rich_utils

    from kvplan.cli import _help_cells_fold

    for name in ("highlighter", "negative_highlighter", "_get_parameter_help", "_kvplan_folds", "Table"):
        monkeypatch.setattr(rich_utils, name, getattr(rich_utils, name, None), raising=False)

    class Other:  # a help builder's result of another shape
        renderables = None

    monkeypatch.setattr(rich_utils, "_get_parameter_help", lambda *a, **k: Other())
    _help_cells_fold()
    assert isinstance(rich_utils._get_parameter_help(), Other)
    assert rich_utils.highlighter("--gpu-memory-utilization").overflow == "fold"

    monkeypatch.delattr(typer, "rich_utils")
    monkeypatch.setitem(sys.modules, "typer.rich_utils", None)  # `from typer import rich_utils` raises ImportError
    _help_cells_fold()


def test_validate_s_summary_keeps_its_numbers_whole_at_60_columns(monkeypatch, capsys):
    """At 60 columns the nine-column summary folded '30.92' as '30.9' over '2' and '186.04' as '186' over '.04', and its
    headers mid-word ('kvpl' over 'an'): a figure read off it was wrong. Now each figure is a block of whole numbers."""
    import pathlib

    path = str(pathlib.Path(__file__).parent / "data" / "calibration.jsonl")
    code, out, _ = run_cli(monkeypatch, capsys, "validate", path, "--json")
    summary = json.loads(out)["summary"]
    _narrow(monkeypatch, 60)
    code, out, _ = run_cli(monkeypatch, capsys, "validate", path)
    assert "kvpl\n" not in out and "…" not in out
    assert _stacked(out, "kvplan p90")[1] == f"{summary['kv_cache_gib']['p90_abs_pct']:.2f}", out
    assert _stacked(out, "kvplan max")[1] == f"{summary['kv_cache_gib']['max_abs_pct']:.2f}", out


def test_simulate_s_latency_labels_are_whole_at_50_columns(monkeypatch, capsys):
    """At 50 columns the latency table's minimum (its longest words, 46 columns) fitted, yet rich narrowed its label
    column below 'end-to-end' and printed 'queuein' over 'g', 'end-to-' over 'end': WholeOrStacked compared the table's
    minimum, not the widths rich gives each column. Now each label is whole (the rows stacked where they must)."""
    _narrow(monkeypatch, 50)
    code, out, _ = run_cli(monkeypatch, capsys, "simulate", M, "--gpu", "H100", "--prompt-len", "1000",
                           "--completion-len", "200")
    assert code == 0
    latency = out[out.index("Latency"):]
    words = latency.replace("│", " ").replace("▸", " ").split()
    for label in ("queueing", "TTFT", "TPOT", "ITL", "end-to-end"):
        assert label in words, latency
    assert "queuein" not in words and "end-to-" not in words, latency


def test_validate_s_rows_stay_within_70_columns(monkeypatch, capsys):
    """The compact rows table's first column has a min_width (20): at 70 columns rich's widths for it pass the terminal
    (its 'fits' column cut to 'ri'), so the widths rich gives must also fit together for the table to print as one."""
    import pathlib

    from rich.cells import cell_len

    _narrow(monkeypatch, 70)
    code, out, _ = run_cli(monkeypatch, capsys, "validate", str(pathlib.Path(__file__).parent / "data" / "calibration.jsonl"))
    shown = out[:out.index("\nskipped ")] if "\nskipped " in out else out
    assert max(cell_len(line) for line in shown.splitlines()) <= 70, out


def test_stacking_wraps_typer_s_table_once_and_skips_a_typer_without_one(monkeypatch):
    """_help_cells_fold wraps rich_utils.Table in a stacking subclass once (a second call keeps it), and a typer whose
    rich_utils has no Table class gets its help unchanged."""
    from typer import rich_utils

    from kvplan.cli import _help_cells_fold

    for name in ("highlighter", "negative_highlighter", "_get_parameter_help", "_kvplan_folds", "Table"):
        monkeypatch.setattr(rich_utils, name, getattr(rich_utils, name, None), raising=False)
    _help_cells_fold()
    wrapped = rich_utils.Table
    assert wrapped._kvplan_stacks and wrapped.__name__ == "StackingTable"
    _help_cells_fold()
    assert rich_utils.Table is wrapped
    monkeypatch.setattr(rich_utils, "Table", None)
    _help_cells_fold()
    assert rich_utils.Table is None


def test_a_capacity_comparison_keeps_every_id_whole_at_80_columns(monkeypatch, capsys):
    """At 80 columns `capacity --vary model=... --vary gpu=...` cut its model ids to 'meta-ll…' and 'Qwen/Qw…' and
    folded 'RTX PRO 6000' one word a line, so no row said which deployment it was. Its table is now printed whole,
    or each row as a block where its nine columns cannot hold their words side by side (render.whole_cells)."""
    models = ("Qwen/Qwen3-8B", "meta-llama/Llama-3.1-8B-Instruct")
    args = ("capacity", "-w", "sharegpt", "-n", "300", "--max-model-len", "16384", "--target-rate", "20",
            "--gpu-hour-usd", "1", "--vary", "model=" + ",".join(models), "--vary", "gpu=L4,RTX PRO 6000")
    code, out, err = run_cli(monkeypatch, capsys, *args, "--json")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    _narrow(monkeypatch, 80)
    code, out, err = run_cli(monkeypatch, capsys, *args)
    assert code == 0, err
    table = out[:out.index("$/hour: the fleet")]
    assert "…" not in table, table
    for m in models:
        assert m in table, table
    assert "RTX PRO 6000" in table, table
    assert all(len(line) <= 80 for line in table.splitlines()), table
    # each row's answer under its deployment, as --json gives it: the rate and the replicas of every answered row
    rates = [v for v in _stacked(table, "req/s/rep")]
    assert len(rates) == len(rows) and [v != "-" for v in rates] == [bool(r["rate_per_replica"]) for r in rows], table
    assert [v for v in _stacked(table, "replicas")] == [str(r["replicas"] or "-") for r in rows], table
