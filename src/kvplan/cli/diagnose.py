"""`kvplan diagnose LOGFILE|- [MODEL] [fit flags]`: which layer owns a failed or degraded start."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Optional

import typer

from kvplan.cli import FitFlags, app, console, escape, fit_options


@app.command()
@fit_options
def diagnose(
    logfile: Annotated[str, typer.Argument(help="The vLLM startup log (or pip / container / kubectl text around it); - for standard input.")],
    model: Annotated[Optional[str], typer.Argument(help="Optional model, to sharpen the fixes with a plan.")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Machine-readable output: \"verdict\" is started, failed, degraded or not_recognised; \"vllm_log\" false for text with no known line.")] = False,
    *,
    flags: FitFlags,
) -> None:
    """Name the layer that owns a failed or degraded vLLM startup, the cause, and the fix.

    Exit 0 when the log shows a start or only a degraded one, 1 when it shows a failure or nothing is recognised, 2 on bad input.

    Examples:
    $ kvplan diagnose vllm.log
    $ docker logs vllm 2>&1 | kvplan diagnose -
    $ kvplan diagnose vllm.log Qwen/Qwen3-8B --gpu L4 --json
    """
    from kvplan.diagnose import diagnose as run_diagnosis, sharpen_with_plan
    from kvplan.logs import read_log

    result = run_diagnosis(read_log(logfile))
    if model:
        result = sharpen_with_plan(result, model, flags)
    if json_output:
        sys.stdout.write(json.dumps(result.to_dict(), indent=2, default=str) + "\n")
    else:
        render_diagnosis(result)
    raise typer.Exit(1 if result.failed else 0)


# narrower than this, the findings table's six columns fold the symptom and layer ids and leave the cause and fix a
# few words a line (the ids take up to 30 and 23 characters)
_TABLE_MIN_WIDTH = 160


def _print_evidence(i: int, finding) -> None:
    """The log lines a finding rests on, whole (soft-wrapped: a terminal wraps them, nothing is cut)."""
    console.print(f"[bold]evidence #{i}[/]")
    for line in finding.evidence:
        console.print(f"  {line}", highlight=False, markup=False, soft_wrap=True)


def render_diagnosis(result) -> None:
    from rich.table import Table
    from rich.text import Text

    log = result.log
    head = {"degraded": "degraded (the start itself is not in the log)", "not_recognised": "not recognised"}.get(
        result.verdict, result.verdict)  # the word --json gives as "verdict"
    version = f"vLLM {log.vllm_version}" if log.vllm_version else "vLLM version not in the log"
    console.print(f"[bold]{head}[/] · {version} · {log.lines_read} line{'' if log.lines_read == 1 else 's'} read")
    if result.findings and console.width < _TABLE_MIN_WIDTH:
        # six columns at 80: the symptom and layer ids folded mid-word ("import_undefi / ned_symbol") and the cause
        # ran one word a line; each finding is a block of labelled rows instead
        console.print("[bold]Findings, most likely first[/]")
        for i, f in enumerate(result.findings, 1):
            block = Table(show_header=False, box=None, pad_edge=False, padding=(0, 2, 0, 0))
            block.add_column(style="bold", no_wrap=True)
            block.add_column(overflow="fold")
            block.add_row("symptom", Text(f.symptom))
            block.add_row("layer", Text(f.layer))
            block.add_row("cause", Text(f.cause))
            if f.decided_by:
                block.add_row("decided by", Text(f.decided_by, style="dim"))
            block.add_row("fix", Text(f.fix))
            console.print(f"[bold]#{i}[/] · confidence {f.confidence:.2f} ({f.confidence_label})")
            console.print(block)
            _print_evidence(i, f)
    elif result.findings:
        table = Table(show_lines=True, title="Findings, most likely first")
        for name in ("#", "symptom", "layer", "cause", "fix", "confidence"):
            table.add_column(name, overflow="fold", no_wrap=name in ("symptom", "layer"))
        for i, f in enumerate(result.findings, 1):
            cause = Text(f.cause)
            if f.decided_by:
                cause.append(f"\ndecided by: {f.decided_by}", style="dim")
            table.add_row(str(i), f.symptom, f.layer, cause, Text(f.fix), f"{f.confidence:.2f} ({f.confidence_label})")
        from kvplan.render import whole_cells

        console.print(whole_cells(table))
        for i, f in enumerate(result.findings, 1):
            _print_evidence(i, f)
    if not result.recognised and result.error_lines:
        console.print("[bold]lines that look like errors:[/]")
        for line in result.error_lines:
            console.print(f"  {line}", highlight=False, markup=False, soft_wrap=True)
    elif result.last_lines:
        console.print("[bold]no line looks like an error; the log's last lines:[/]")
        for line in result.last_lines:
            console.print(f"  {line}", highlight=False, markup=False, soft_wrap=True)
    for note in result.notes:
        console.print(f"[dim]note:[/] {escape(str(note))}", highlight=False, soft_wrap=True)
