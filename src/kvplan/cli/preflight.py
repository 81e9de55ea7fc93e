"""`kvplan preflight [MODEL] [fit flags] [--json]`: check this machine before installing vLLM."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Optional

import typer

from kvplan.cli import FitFlags, app, console, fit_options, from_option, plan_from_flags, read_from, say_from

_ICON = {"pass": "[green]PASS[/]", "warn": "[yellow]WARN[/]", "fail": "[bold red]FAIL[/]"}


def plan_for_machine(model: str, flags: FitFlags, facts):
    """Plan `model` on the GPU found here (unless the flags name one); returns (plan, note)."""
    if flags.gpu or flags.gpu_gib or flags.gpu_gb or not facts.gpus:
        return plan_from_flags(model, flags, "preflight"), None
    g = facts.gpus[0]
    if flags.wsl2 and not g.wsl2:  # --wsl2 on this machine's card: planned as under WSL2 (NVML's total whole)
        from dataclasses import replace

        g = replace(g, wsl2=True)
    spec = g.gpu_spec
    note = None
    if spec.id == "detected":
        note = f"{g.name} is not in kvplan's catalog; planned as a {spec.total_gib:.2f} GiB GPU ({spec.total_source})"
    return plan_from_flags(model, flags, "preflight", gpu=spec), note


def build_request(model: Optional[str], flags: FitFlags, facts):
    from kvplan import preflight as pf
    from kvplan.errors import HubError
    from kvplan.versions import DEFAULT_RELEASE, rules_for

    version = flags.vllm_version or DEFAULT_RELEASE
    rules = rules_for(version)
    # vLLM >= 0.34 on this machine's CUDA / ROCm GPU sizes its pool with the extensible KV cache unless told not to,
    # at utilization 1.0 unless given (plan.extensible.default_utilization)
    extensible = (rules.kv_pool_sizing == "extensible" and flags.enable_extensible_kv_cache is not False
                  and flags.kv_cache_memory_bytes is None)
    base = pf.Request(
        vllm_version=version,
        dtype=flags.dtype if flags.dtype not in (None, "auto") else None,
        quantization=flags.quantization,
        gpu_memory_utilization=flags.gpu_memory_utilization or (rules.extensible_gpu_memory_utilization if extensible
                                                                else rules.default_gpu_memory_utilization),
        extensible_kv_cache=extensible,
        gpus_needed=(flags.tensor_parallel_size or 1) * (flags.pipeline_parallel_size or 1),
        model_id=model,
        revision=flags.revision,
    )
    if model is None:
        return base, None
    try:
        plan, note = plan_for_machine(model, flags, facts)
    except HubError as exc:  # offline, gated without a token: a finding, not a crash
        from dataclasses import replace

        return replace(base, plan_error=getattr(exc, "message", None) or str(exc), plan_fix=getattr(exc, "fix", None)), None
    req = pf.request_from_plan(plan, flags.revision)
    if not facts.gpus and not (flags.gpu or flags.gpu_gib or flags.gpu_gb):
        from dataclasses import replace

        req = replace(req, plan_gpu_fallback=True)
    return req, note


@app.command()
@fit_options
def preflight(
    model: Optional[str] = typer.Argument(None, help="Model to check for (Hub id, catalog name or local folder). Optional."),
    json_output: bool = typer.Option(False, "--json", help="Print the findings as JSON."),
    from_command: Optional[str] = from_option("Checked on this machine's GPU unless --gpu names one."),
    *,
    flags: FitFlags,
) -> None:
    """Inventory this machine and check every gate (GPU, driver, OS, Python, disk, token, plan).

    Examples:
    $ kvplan preflight
    $ kvplan preflight Qwen/Qwen3-8B --max-model-len 16384 --json
    $ kvplan preflight --from deploy/serve.sh
    """
    from kvplan import preflight as pf

    # this machine's GPU is checked: a manifest's GPU product label is noted, not planned (read_from, pinned_gpu)
    model, flags, command = read_from(model, flags, from_command, pinned_gpu=False)

    facts = pf.gather_facts()
    req, note = build_request(model, flags, facts)
    findings = pf.run_checks(facts, req)
    if note:
        findings = findings + (pf.Finding("plan gpu", "warn", note, "pass --gpu with the closest catalog GPU"),)
    code = pf.exit_code(findings)
    if json_output:
        # "request": what the checks compared the machine with (the weights the disk must hold, the GPUs, the plan)
        out = {"ok": code == 0, "vllm_version": req.vllm_version, "machine": facts.to_dict(), "request": asdict(req),
               "findings": [f.to_dict() for f in findings]}
        if command is not None:
            out["from_command"] = command.to_dict()
        print(json.dumps(out, indent=2))
        _exit(code)
    say_from(command)
    from rich.table import Table

    table = Table(title=f"kvplan preflight (vLLM {req.vllm_version}{', ' + model if model else ''})",
                  show_lines=False, expand=False)
    table.add_column("", no_wrap=True)
    table.add_column("check", no_wrap=True)
    # a path, URL or flag longer than its column folds onto the next line: an ellipsis hid the fix to copy
    # ("export HF_HOME=/path/on/a/persiste…" at 80 columns)
    table.add_column("finding", overflow="fold")
    table.add_column("fix", overflow="fold")
    from rich.markup import escape

    from kvplan.render import Breakable, whole_cells

    for f in findings:  # a message is text, not markup: vLLM's "Reasons: ...: [block_size not supported]" was dropped
        # ... and a path or flag too long for its column breaks after a '/' ("/root/.cache/huggingface/" / "hub"),
        # then '=', '_' or '-', where rich folded it at the last column ("/root/.cache/huggingface/hu" / "b")
        table.add_row(_ICON[f.status], escape(f.check), Breakable(escape(f.message), "/", "=_-"),
                      Breakable(escape(f.fix), "/", "=_-"))
    console.print(whole_cells(table))
    counts = {s: sum(f.status == s for f in findings) for s in ("pass", "warn", "fail")}
    verdict = "[bold red]not ready[/]" if code else "[green]ready[/]"
    console.print(f"{counts['pass']} pass, {counts['warn']} warn, {counts['fail']} fail: {verdict}")
    _exit(code)


def _exit(code: int) -> None:
    # SystemExit, not typer.Exit: click's non-standalone mode returns a typer.Exit's code
    # instead of exiting, and preflight's exit status is its verdict.
    if code:
        raise SystemExit(code)
