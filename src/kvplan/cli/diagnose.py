"""`kvplan diagnose LOGFILE|- [MODEL] [fit flags]`: which layer owns a failed or degraded start."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Optional

import typer
from rich.markup import escape

from kvplan.cli import FitFlags, app, console, fit_options


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


def render_diagnosis(result) -> None:
    from rich.table import Table
    from rich.text import Text

    log = result.log
    head = {"degraded": "degraded (the start itself is not in the log)", "not_recognised": "not recognised"}.get(
        result.verdict, result.verdict)  # the word --json gives as "verdict"
    version = f"vLLM {log.vllm_version}" if log.vllm_version else "vLLM version not in the log"
    console.print(f"[bold]{head}[/] · {version} · {log.lines_read} lines read")
    if result.findings:
        table = Table(show_lines=True, title="Findings, most likely first")
        for name in ("#", "symptom", "layer", "cause", "fix", "confidence"):
            table.add_column(name, overflow="fold")
        for i, f in enumerate(result.findings, 1):
            cause = Text(f.cause)
            if f.decided_by:
                cause.append(f"\ndecided by: {f.decided_by}", style="dim")
            table.add_row(str(i), f.symptom, f.layer, cause, Text(f.fix), f"{f.confidence:.2f} ({f.confidence_label})")
        console.print(table)
        for i, f in enumerate(result.findings, 1):
            console.print(f"[bold]evidence #{i}[/]")
            for line in f.evidence:
                console.print(f"  {line}", highlight=False, markup=False, soft_wrap=True)
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
