"""`kvplan reconcile LOGFILE|- [MODEL] [fit flags]`: a real startup against the plan, term by term."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from kvplan.cli import FIT_OPTIONS, GPU_HELP, FitFlags, app, console, escape, from_option, option_group
from kvplan.errors import InputError


# the GPU is the log's: kvplan.reconcile.plan_from_log takes the GPU or total the log prints, else the one NVML detects
# here (with a note), and refuses rather than plan another machine's log on the default T4
_reconcile_options = option_group(FIT_OPTIONS, FitFlags, "flags", gpu=typer.Option(
    None, "--gpu", help=GPU_HELP + " Default: the GPU or total memory the log prints, else the GPU NVML detects here "
    "(a log that states neither, read on a machine without a GPU, needs --gpu or --gpu-gib).", rich_help_panel="GPU"))


@app.command()
@_reconcile_options
def reconcile(
    logfile: Annotated[str, typer.Argument(help="The vLLM startup log; - for standard input. Or a running server's "
                                           "Prometheus metrics: http://HOST:8000/metrics, or a file saved from it.")],
    model: Annotated[Optional[str], typer.Argument(help="The model served, to compare with its plan (the engine args come from the log; flags override).")] = None,
    record: Annotated[Optional[str], typer.Option("--record", help="Write the realized startup as a startup record (JSON line) to FILE, or - for standard output.")] = None,
    calibrate: Annotated[bool, typer.Option("--calibrate", help="Store the observed-minus-predicted terms as a site calibration for this GPU and model (KVPLAN_HOME or ~/.config/kvplan).")] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    force_model: Annotated[bool, typer.Option("--force-model", help="Compare with MODEL even when the log names another model it served (never with --calibrate).")] = False,
    from_command: Optional[str] = from_option("Read with a running server's metrics only (a log states its own "
                                              "command): the flags its vllm:cache_config_info labels do not state "
                                              "(the GPU, --max-model-len, TP) come from it; where both state one, "
                                              "the server's label is planned, with a note."),
    *,
    flags: FitFlags,
) -> None:
    """Read every figure of a vLLM startup log and compare it with kvplan's plan.

    Without MODEL the log's own figures are printed; with it, each is set beside the plan of the log's engine arguments (flags given here override them).

    Where the log is gone, a running server's metrics (http://HOST:8000/metrics, or the page saved) stand in: the flags its vllm:cache_config_info labels state are planned, and its KV blocks compared.

    Examples:
    $ kvplan reconcile vllm.log                  # the log's own figures
    $ kvplan reconcile vllm.log Qwen/Qwen3-8B --gpu L4
    $ kvplan reconcile vllm.log Qwen/Qwen3-8B --gpu L4 --record startup.jsonl
    $ kvplan reconcile http://localhost:8000/metrics Qwen/Qwen3-8B --gpu L4
    """
    from dataclasses import replace

    from kvplan.logs import read_log
    from kvplan.reconcile import check_model, plan_from_log, reconcile as run_reconcile, store_site_calibration
    from kvplan.versions import untagged_unplaced

    metrics = _metrics_input(logfile)
    if metrics is not None:
        return _reconcile_metrics(metrics, logfile, model, flags, record=record, calibrate=calibrate,
                                  json_output=json_output, from_command=from_command)
    if calibrate and not model:
        raise InputError("--calibrate", "a calibration needs the model to compare with", "pass MODEL after LOGFILE")
    if not model:
        _refuse_flags_without_model(flags, "the log")
    log = read_log(logfile)
    if from_command is not None:  # a log prints its own engine arguments and command line
        raise InputError("--from", f"{logfile} is a startup log, which states the command it ran",
                         "leave --from out (its flags are read from the log), or pass the server's metrics "
                         "(http://HOST:8000/metrics) as LOGFILE")
    if not log.hits:  # nothing to compare: every figure would be '-' (and a --record or --calibrate empty)
        shown = "standard input" if logfile == "-" else logfile
        raise InputError("LOGFILE", f"no vLLM startup line was recognised in {shown} ({log.text_lines:,} line(s) read)",
                         "pass the vLLM server's own output, e.g. docker logs CONTAINER > vllm.log 2>&1; "
                         "`kvplan diagnose` reads a failed start's error lines")
    if calibrate and not flags.vllm_version and (not log.vllm_version or untagged_unplaced(log.vllm_version)):
        # its gaps would be measured against a guessed release's rules (its format's era, else the newest), and applied to every plan after: vllm_logs excerpt 24 (an L4's 0.11.0 start, no version line) stored CUDA
        # graphs +0.10 GiB against 0.33.0's rules where 0.11.0's give -0.26. A log printing an untagged source build
        # (0.1.dev<commits>) is planned as one without a version (plan_from_log)
        from kvplan.reconcile import version_from_log_format
        from kvplan.versions import DEFAULT_RELEASE

        inferred = version_from_log_format(log)
        rules = (f"vLLM {inferred[0]}'s rules ({inferred[1]})" if inferred else f"vLLM {DEFAULT_RELEASE}'s rules, the default")
        unstated = (f"the log's vLLM {log.vllm_version} is a source build whose number names no release" if log.vllm_version
                    else "the log does not print its vLLM version")
        raise InputError("--calibrate", f"{unstated}, so its gaps would be measured against {rules}, whichever release "
                         "wrote it, and stored for every later plan",
                         "pass --vllm-version with the release that ran: pip show vllm, or the image's tag")
    plan, plan_notes = None, []
    if model:
        plan_notes = check_model(log, model, force=force_model, calibrate=calibrate)
        # with --calibrate compare against the uncalibrated plan, so the stored offsets are the whole gap
        plan, more_notes = plan_from_log(log, model, flags, site_calibration=not calibrate)
        plan_notes += more_notes
    result = run_reconcile(log, plan, flags)  # its record (--record, --json) is the startup as compared: flags included
    result = replace(result, notes=tuple(plan_notes) + result.notes)
    if record:
        text = json.dumps(result.record, default=str) + "\n"
        if record == "-":
            sys.stdout.write(text)
        else:
            try:
                Path(record).write_text(text)
            except OSError as exc:
                raise InputError("--record", f"cannot write {record}: {exc.strerror or exc}",
                                 "give a writable file path, or - for standard output") from None
    stored = None
    if calibrate:
        gpu_name = getattr(plan.gpu, "name", None) or "unknown GPU"
        model_id = getattr(plan.model, "id", None) or getattr(plan.model, "model_id", None) or model
        # a log file is stored once (its bytes' digest: a restart's log differs in its timestamps); standard input is not
        startup_id = None if logfile == "-" else _digest(logfile)
        stored = store_site_calibration(result, gpu_name, model_id, startup_id=startup_id)
    if record == "-":
        return
    if json_output:
        out = result.to_dict()
        if plan is not None:  # what the comparison was made with, as the table's header says it
            out["plan"] = _plan_header(plan)
        if stored is not None:
            out["calibration_stored"] = stored
        sys.stdout.write(json.dumps(out, indent=2, default=str) + "\n")
        return
    render_reconciliation(result, plan)
    if stored is not None:
        # each term as a signed GiB figure with its name: the Python dict it printed ({'weights_gib': 0.0, ...}) named
        # no unit and said nothing of where it goes
        from kvplan.site_calibration import calibration_path

        # ... and which of them a plan applies: 'KV cache +0.59 GiB ... every planning command applies it' read as a
        # larger pool to come, where fit applied the CUDA-graph term alone and its pool came out 0.10 GiB smaller
        from kvplan.reconcile import APPLIED_TERMS

        names = {"non_torch_gib": "non-torch", "kv_cache_gib": "KV cache", "cudagraph_gib": "CUDA graphs"}

        def listed(applied: bool) -> str:
            return ", ".join(f"{names.get(t, t.removesuffix('_gib').replace('_', ' '))} {v:+.2f} GiB"
                             for t, v in stored["terms"].items() if (t in APPLIED_TERMS) == applied)

        applied = listed(True) or "none of its terms (this log prints no activation, non-torch or CUDA-graph figure)"
        kept = listed(False)
        console.print(f"site calibration stored ({stored['n']} startup(s); logged minus planned, per rank): every planning "
                      f"command applies {applied}"
                      + (f"; recorded, not applied: {kept} (the weights are read from the checkpoint, and the pool "
                         "follows from the terms above)" if kept else "")
                      + f". {calibration_path()} now holds it for {gpu_name} and {model_id}", highlight=False)


def _refuse_flags_without_model(flags, what: str) -> None:
    """Plan flags given without MODEL (the log's or the metrics' own figures are read alone): refused, as they would be
    dropped unread, there being no plan for them to shape."""
    from kvplan.reconcile import given_flags

    given = ["--" + name.replace("_", "-") for name in given_flags(flags)]
    if given:
        one = len(given) == 1
        raise InputError(given[0], f"{', '.join(given)} shape{'s' if one else ''} the plan {what} "
                         f"{'is' if what == 'the log' else 'are'} compared with, and without MODEL there is none",
                         f"pass MODEL after LOGFILE, or leave {'it' if one else 'them'} out to read {what} alone")


def _metrics_input(logfile: str):
    """The metrics snapshot LOGFILE names: a URL (fetched), else a file or standard input whose text begins as Prometheus
    text does (# HELP / # TYPE) or holds a vllm:cache_config_info series near its start; else None (a startup log:
    read_log reads it, and refuses a missing file)."""
    from kvplan.metrics import is_metrics_text, is_prometheus_head, is_url, read_metrics

    if is_url(logfile):
        return read_metrics(logfile)
    if logfile == "-":
        peek = getattr(sys.stdin.buffer, "peek", None)  # (leaves standard input unread for read_log)
        head = peek(1 << 16)[: 1 << 16] if peek else b""
        if head and (is_prometheus_head(head) or is_metrics_text(head)):
            return read_metrics("standard input", sys.stdin.buffer.read())
        return None
    try:
        with open(logfile, "rb") as fh:
            head = fh.read(1 << 16)
            if not (is_prometheus_head(head) or is_metrics_text(head)):
                return None
            data = head + fh.read()
    except OSError:
        return None
    return read_metrics(logfile, data)


def _reconcile_metrics(snapshot, logfile: str, model, flags, *, record, calibrate: bool, json_output: bool,
                       from_command=None) -> None:
    """reconcile of a running server's metrics: the plan of the flags its vllm:cache_config_info labels state (those
    of a --from command beneath them, the flags given over them)."""
    from kvplan.cli import read_from, say_from
    from kvplan.metrics import plan_from_metrics, reconcile_metrics
    from kvplan.reconcile import given_flags

    for name, used in (("--record", record), ("--calibrate", calibrate)):
        if used:
            raise InputError(name, f"{logfile} is a server's metrics, which hold no memory terms of a startup",
                             f"leave {name} out, or pass the server's startup log")
    plan, notes, command = None, [], None
    if from_command is not None:
        model, merged, command = read_from(model, flags, from_command)
        given_here = set(given_flags(flags))
        command_flags = {k: v for k, v in given_flags(merged).items() if k not in given_here}
        flags = merged
    if model:
        plan, notes = plan_from_metrics(snapshot, model, flags,
                                        command_flags=command_flags if command is not None else None)
    else:
        _refuse_flags_without_model(flags, "the metrics")
    result = reconcile_metrics(snapshot, plan, notes, length_given=bool(getattr(flags, "max_model_len", None)))
    if json_output:
        out = result.to_dict()
        if plan is not None:
            out["plan"] = _plan_header(plan)
        if command is not None:
            out["from_command"] = command.to_dict()
        sys.stdout.write(json.dumps(out, indent=2, default=str) + "\n")
        return
    say_from(command)
    from rich.table import Table

    served = ", ".join(snapshot.model_names) or "model not named in the metrics"
    console.print(f"[bold]{escape(served)}[/] · metrics of a running server ({escape(snapshot.source)}) · "
                  f"{snapshot.engines} engine{'s' if snapshot.engines != 1 else ''} · started", highlight=False)
    if plan is not None:
        h = _plan_header(plan)
        console.print(f"plan: {h['model']} on {h['gpu']} ({h['gpu_total_gib']:.2f} GiB), TP {h['tensor_parallel_size']}"
                      f" · PP {h['pipeline_parallel_size']}, vLLM {h['vllm_rules']} rules", highlight=False)
    table = Table(title="Running server's KV cache (blocks and tokens per engine)")
    table.add_column("term")
    table.add_column("metrics", justify="right")
    if plan is not None:
        table.add_column("plan", justify="right")
        table.add_column("metrics - plan", justify="right")
    for row in result.rows:
        cells = [row.term, _fmt(row.observed, row.unit)]
        if plan is not None:
            cells += [_fmt(row.predicted, row.unit), _fmt(row.gap, row.unit)]
        table.add_row(*cells)
    from kvplan.render import whole_cells

    console.print(whole_cells(table))
    h = result.headline_gap
    if h and h.get("agrees"):
        console.print(f"the plan agrees with the metrics: every compared figure within 0.5% (closest to the edge: "
                      f"{h['term']} {_fmt(h['observed'], h['unit'])} vs {_fmt(h['predicted'], h['unit'])} planned)",
                      highlight=False)
    elif h:
        console.print(f"largest gap: [bold]{h['term']}[/] {_fmt(h['observed'], h['unit'])} in the metrics vs "
                      f"{_fmt(h['predicted'], h['unit'])} planned ({h['relative']:.0%} off); likely cause: {h['likely_cause']}",
                      highlight=False)
    for row in result.rows:
        if row.note and plan is not None:
            console.print(f"[dim]note:[/] {row.term}: {escape(str(row.note))}", highlight=False)
    for note in result.notes:
        console.print(f"[dim]note:[/] {escape(str(note))}", highlight=False)
    if plan is None:
        console.print("[dim]note:[/] only the metrics' figures: pass the model after LOGFILE to compare each with "
                      "kvplan's plan", highlight=False)


def render_reconciliation(result, plan=None) -> None:
    from rich.table import Table

    log = result.log
    version = f"vLLM {log.vllm_version}" if log.vllm_version else "vLLM version not in the log"
    state = {True: "started", False: "did not start", None: "start not shown"}[log.started]
    compiled = {"cold": " · torch.compile cold (compiled at this start)",
                "warm": " · torch.compile warm (graphs loaded from the cache)"}.get(log.compile_cache, "")
    console.print(f"[bold]{log.model or 'model not named in the log'}[/] · {version} · {state}{compiled}", highlight=False)
    planned = plan is not None
    if planned:
        h = _plan_header(plan)
        # as fit's vLLM row says it (render._rules_text): a release outside the ones kvplan read is named beside the
        # rules applied to it
        from kvplan.versions import OLDEST_READ, outside_read

        beyond = {"newer": f" (vLLM {plan.rules.version} is newer than the rules kvplan holds)",
                  "older": f" (older than vLLM {OLDEST_READ}, the oldest release kvplan read: planned with the oldest "
                           "rules kvplan holds)"}.get(outside_read(plan.rules.release), "")
        console.print(f"plan: {h['model']} on {h['gpu']} ({h['gpu_total_gib']:.2f} GiB), TP {h['tensor_parallel_size']}"
                      f" · PP {h['pipeline_parallel_size']}"
                      + (f" · DP {h['data_parallel_size']}" if h["data_parallel_size"] > 1 else "")
                      + f", vLLM {h['vllm_rules']} rules{beyond}", highlight=False)
    # the GiB terms and the blocks are one rank's, the tokens and the concurrency the engine's (vLLM logs them so): a
    # title of 'per rank' alone read '178,880 tokens' on TP 4 as one GPU's share
    if planned:
        dp_engines = h["data_parallel_size"] > 1
    else:
        logged_dp = (log.engine_args or {}).get("data_parallel_size") or (log.command_args or {}).get("data_parallel_size")
        try:
            dp_engines = int(logged_dp or 1) > 1
        except (TypeError, ValueError):
            dp_engines = False
    table = Table(title="Startup, term by term (GiB and blocks per rank; tokens and concurrency "
                        + ("per engine)" if dp_engines else "the server's)"))
    table.add_column("term")
    table.add_column("log", justify="right")
    if planned:
        table.add_column("plan", justify="right")
        table.add_column("log - plan", justify="right")
    for row in result.rows:
        cells = [row.term, _fmt(row.observed, row.unit)]
        if planned:
            cells += [_fmt(row.predicted, row.unit), _fmt(row.gap, row.unit)]
        table.add_row(*cells)
    from kvplan.render import whole_cells

    console.print(whole_cells(table))
    h, g = result.headline_gap, result.largest_gap
    if h and h.get("agrees"):
        from kvplan.reconcile import NOT_USABLE

        dropped = sum(NOT_USABLE in str(n) for n in result.notes)
        console.print(f"the plan agrees with the log: every compared figure within 0.5% (closest to the edge: {h['term']} "
                      f"{_fmt(h['observed'], h['unit'])} logged vs {_fmt(h['predicted'], h['unit'])} planned)"
                      + (f", though the plan leaves out {dropped} of the log's arguments it could not use (notes below)"
                         if dropped else ""), highlight=False)
    elif h:
        console.print(f"largest gap: [bold]{h['term']}[/] {_fmt(h['observed'], h['unit'])} logged vs {_fmt(h['predicted'], h['unit'])} "
                      f"planned ({h['relative']:.0%} off); likely cause: {h['likely_cause']}", highlight=False)
    if g and (not h or h["term"] != g["term"]):  # (none where the gap rounds to 0.00 GiB: reconcile.GAP_NAMED_GIB)
        console.print(f"largest memory gap: [bold]{g['term']}[/] {g['gap_gib']:+.2f} GiB; likely cause: {g['likely_cause']}", highlight=False)
    for row in result.rows:
        if row.note and planned:
            console.print(f"[dim]note:[/] {row.term}: {escape(str(row.note))}", highlight=False)
    if result.backend_fallback:
        console.print(f"[yellow]fallback:[/] {escape(str(result.backend_fallback))}", highlight=False, markup=True)
    for warning in log.warnings:
        console.print(f"[yellow]warning:[/] {escape(str(warning))}", highlight=False)
    for line in log.unrecognised:
        console.print(f"[dim]unrecognised:[/] {escape(str(line))}", highlight=False, markup=True)
    for note in tuple(result.notes) + tuple(log.parse_warnings):
        console.print(f"[dim]note:[/] {escape(str(note))}", highlight=False)
    if not planned:  # the log's figures alone: say how to set them beside the plan (the table had one column, unexplained)
        served = f"the log served {log.model}" if log.model else "the log does not name its model"
        console.print(f"[dim]note:[/] only the log's figures: pass the model after LOGFILE to compare each with kvplan's "
                      f"plan ({escape(served)}; a catalog id, a Hub id, a checkpoint folder or its config.json)",
                      highlight=False)


def _plan_header(plan) -> dict:
    """What a comparison was made with: the model, the GPU and its total, the parallel sizes, the rules' release (for
    a release newer than kvplan read, the newest it holds, whose rules were applied: it said "vLLM 0.34.0 rules")."""
    from kvplan.versions import NEWEST_READ, outside_read

    rules = NEWEST_READ if outside_read(plan.rules.release) == "newer" else plan.rules.version
    return {"model": plan.model.id, "gpu": plan.gpu.name, "gpu_total_gib": round(plan.gpu.total_gib, 2),
            "tensor_parallel_size": plan.args.tensor_parallel_size,
            "pipeline_parallel_size": plan.args.pipeline_parallel_size,
            "data_parallel_size": getattr(plan.args, "data_parallel_size", None) or 1, "vllm_rules": rules}


def _fmt(value, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "GiB":
        return f"{value:.2f}"
    if unit == "x":
        return f"{value:.2f}x"
    return f"{int(value):,}" if float(value).is_integer() else f"{value:.2f}"


def _digest(path: str) -> str:
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]
