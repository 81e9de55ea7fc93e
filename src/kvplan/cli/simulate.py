"""`kvplan simulate` and `kvplan capacity`: what the server does with real traffic.

Heavy imports (numpy, the simulator, matplotlib) happen inside the commands.
"""

from __future__ import annotations

import math
import sys
from dataclasses import replace
from pathlib import Path
from typing import List, Optional

import typer

from kvplan.api import CAPACITY_REQUESTS  # requests per capacity probe (the page's too)
from kvplan.cli import (FitFlags, app, console, err_console, escape, fit_options_gpu_auto, from_option, option_group,
                        plan_from_flags, read_from, say_from)

_WL = "Workload"
_SIM = "Simulation"
# The simulator's own switch from before the plan commands took vllm serve's --enable-prefix-caching (a11583c); since
# 3756991 it set the plan's flag too, so the two spelled one thing. vLLM's spelling is the one shown; the old one is a
# hidden alias kept for scripts that pass it.
_PREFIX_CACHING_ALIAS = "Old spelling of --enable-prefix-caching/--no-enable-prefix-caching (kept for scripts)."


_WORKLOAD_PARAMS: list[tuple[str, object, object]] = [
    ("workload", Optional[str], typer.Option(None, "--workload", "-w", help="Bundled trace (azure-conv, azure-code, mooncake-conv, mooncake-synthetic, sharegpt, arxiv-sum, bwb) or a CSV/JSONL file (prompt_tokens, completion_tokens[, arrival_s or arrival_ms, block_hashes]), or an OpenAI-style API log (usage and created or timestamp).", rich_help_panel=_WL)),
    ("prompt_len", Optional[str], typer.Option(None, "--prompt-len", help="Synthetic prompt lengths: lognormal:MEDIAN,SIGMA | constant:N | uniform:A,B | normal:MEAN,STD | exponential:MEAN | zipf:A[,SCALE] | measured percentiles p50=N,p90=N,p99=N[,max=N] (two or more, commas or spaces; log-length interpolated between them).", rich_help_panel=_WL)),
    ("completion_len", Optional[str], typer.Option(None, "--completion-len", help="Synthetic output lengths (same forms).", rich_help_panel=_WL)),
    ("rate", Optional[float], typer.Option(None, "--rate", help="Mean request rate (req/s). Timed traces are rescaled (burst shape kept); others get Poisson/Gamma arrivals. 'inf' = all at once.", rich_help_panel=_WL)),
    ("burstiness", float, typer.Option(1.0, "--burstiness", help="Gamma shape of inter-arrival gaps, as `vllm bench serve`: 1 = Poisson, < 1 burstier.", rich_help_panel=_WL)),
    ("arrivals", Optional[str], typer.Option(None, "--arrivals", help="poisson | gamma (uses --burstiness) | trace. Default: a trace's own timing (scaled to --rate), else gamma (Poisson at --burstiness 1).", rich_help_panel=_WL)),
    ("max_requests", Optional[int], typer.Option(None, "--max-requests", "-n", help="Cap the workload at N requests, or resample it up to N.", rich_help_panel=_WL)),
    ("seed", int, typer.Option(0, "--seed", help="Random seed (sampling, arrivals).", rich_help_panel=_WL)),
]


_SPEC = "Speculative decoding (with --speculative-config)"
_SPEC_RATE_HELP = ("Per-token acceptance probability a (0..1) of the draft tokens, taken as the same at every position "
                   "(Leviathan et al. 2023's alpha; the first value of vLLM's 'Per-position acceptance rate'): each "
                   "decode step emits (1 - a^(k+1)) / (1 - a) tokens per request. Not vLLM's 'Avg Draft acceptance rate'. "
                   "Without one of these three, speculative decoding stays outside the step model (one token per step).")
_SPEC_LENGTH_HELP = ("vLLM's logged 'Mean acceptance length' (1 + accepted draft tokens per draft, 1 .. 1 + k): the tokens "
                     "each decode step emits per request.")
_SPEC_DRAFT_HELP = ("vLLM's logged 'Avg Draft acceptance rate' (accepted / drafted tokens) as a fraction 0..1 (the log "
                    "prints percent): 1 + k x it tokens per step.")


def _spec_acceptance(rate, length, draft_rate):
    from kvplan.simulate import SpecAcceptance

    return SpecAcceptance(acceptance_rate=rate, mean_acceptance_length=length, draft_acceptance_rate=draft_rate)


def _workload_spec(workload=None, prompt_len=None, completion_len=None, rate=None, burstiness=1.0, arrivals=None,
                   max_requests=None, seed=0):
    from kvplan.workload import WorkloadSpec

    return WorkloadSpec(workload=workload, prompt_len=prompt_len, completion_len=completion_len, rate_per_s=rate,
                        burstiness=burstiness, arrivals=arrivals, max_requests=max_requests, seed=seed)


def _setup(model, flags: FitFlags, num_gpu_blocks, prefix_caching, json_out: bool = False,
           spec_acceptance=None, partial_prefills=(None, None)):
    """(plan, EngineConfig, StepModel, SchedulerRules). A plan that does not start ends the command (exit 1); with
    --json its JSON, as `kvplan fit --json` prints it (fits false, vLLM's error, the fixes), is the output."""
    from kvplan.errors import InputError
    from kvplan.simulate import serving_setup

    if prefix_caching is not None:  # the hidden old spelling of vllm serve's --enable-prefix-caching
        old = "--" + ("" if prefix_caching else "no-") + "prefix-caching"
        if flags.enable_prefix_caching is not None and flags.enable_prefix_caching != prefix_caching:
            raise InputError(old, "contradicts --" + ("no-" if not flags.enable_prefix_caching else "")
                             + "enable-prefix-caching", "give one of them (--[no-]enable-prefix-caching, as vllm serve)")
        flags = replace(flags, enable_prefix_caching=prefix_caching)
        err_console.print(f"note: {old} is the old spelling of --{'' if prefix_caching else 'no-'}enable-prefix-caching "
                          "(vllm serve's flag, which sets the plan and the simulated cache alike)", highlight=False)
    override = flags.num_gpu_blocks_override
    if num_gpu_blocks is not None and override is not None and num_gpu_blocks != override:
        # one pool, two spellings: vllm serve's --num-gpu-blocks-override plans it (the plan's blocks, which the
        # simulation serves), --num-gpu-blocks takes a logged pool as given
        raise InputError("--num-gpu-blocks", f"{num_gpu_blocks:,} contradicts --num-gpu-blocks-override {override:,}: both "
                         "name the KV pool's blocks", "give one of them (--num-gpu-blocks-override N plans the pool as "
                         "vllm serve sizes it and simulates it; --num-gpu-blocks N simulates a logged pool as given)")
    if override is not None and override < 2:
        raise InputError("--num-gpu-blocks-override", f"{override} leaves no usable block to simulate",
                         "vLLM needs >= 2 (one is the null block)")
    p = plan_from_flags(model, flags, gpu_auto=True, simulable=True)
    if num_gpu_blocks is None and not p.fits:
        if json_out:  # the same JSON as `kvplan fit --json` for these flags (plan_json: the band included)
            from kvplan.api import uncertainty_band_of
            from kvplan.render import plan_json, to_json

            sys.stdout.write(to_json(plan_json(p, None, uncertainty_band_of(p))) + "\n")
        from kvplan.render import try_lines

        err_console.print(f"[bold red]the plan does not start:[/] {escape(str(p.error))}", highlight=False, soft_wrap=True)
        # the nearest fixes that start it, as scaffold prints them: the command only pointed at `kvplan fit`
        for line in try_lines(p):
            err_console.print(escape(line), highlight=False, soft_wrap=True)
        err_console.print("`kvplan fit` with the same flags lists every fix; or give --num-gpu-blocks N (a pool from "
                          "vLLM's log)", highlight=False)
        raise typer.Exit(1)
    if num_gpu_blocks is not None and num_gpu_blocks < 2:
        raise InputError("--num-gpu-blocks", f"{num_gpu_blocks} leaves no usable block", "vLLM needs >= 2 (one is the null block)")
    # --long-prefill-token-threshold and its adaptive floor are vllm serve flags (FitFlags): serving_setup reads the plan's
    cfg, sm, rules = serving_setup(p, num_gpu_blocks=num_gpu_blocks, spec_acceptance=spec_acceptance,
                                   max_num_partial_prefills=partial_prefills[0], max_long_partial_prefills=partial_prefills[1])
    from kvplan.resolve import other_speed_note

    speeds = other_speed_note(flags.gpu, p.gpu)  # 'H100': timed as the SXM card, where the PCIe one is as named
    if speeds:
        sm = replace(sm, notes=sm.notes + (speeds,))
    return p, cfg, sm, rules


def _worst_case(p, cfg) -> float:
    """The division vLLM prints at startup ("Maximum concurrency for N tokens per request")."""
    if cfg.num_gpu_blocks == p.num_gpu_blocks and getattr(p, "max_concurrency", None):
        return float(p.max_concurrency)
    return cfg.usable_blocks / max(1, p.blocks_for_tokens(cfg.max_model_len))


def _gpus_text(p) -> str:
    """The GPUs the plan occupies, as fit's panel counts them: '2 x H100 (TP 1 x PP 1 x DP 2)' with more than the
    tensor-parallel ranks of one engine, else 'TP x GPU'."""
    a = p.args
    if p.gpus_used > a.tensor_parallel_size:
        return (f"{p.gpus_used} x {p.gpu.name} (TP {a.tensor_parallel_size} x PP {a.pipeline_parallel_size} x "
                f"DP {p.engines})")
    return f"{a.tensor_parallel_size} x {p.gpu.name}"


def _print_result(p, cfg, d: dict, wl_summary: dict) -> None:
    from rich.table import Table

    from kvplan.render import whole_cells
    from kvplan.simulate import (LATENCY_COLUMNS, goodput_line, latency_rows, pool_line, result_rows, step_line,
                                 throughput_line, workload_line)

    # "vLLM 0.33.0 (vllm/v1/core/sched/scheduler.py@0.19 (scheduler_reserve_full_isl; async scheduling on))": the
    # rules' source, parenthesised inside parentheses, read as part of the version
    sr = d["scheduler_rules"]
    # V1 with chunked prefill off (the plan's: --no-enable-chunked-prefill from 0.11.1, a pooling model's default)
    off = ("; chunked prefill off: a prompt is admitted only whole, within the step's token budget left"
           if sr["engine"] == "v1" and not sr["chunked_prefill"] else "")
    console.print(f"[bold]{p.model.id}[/] on {_gpus_text(p)}, vLLM {p.vllm_version}; scheduler rules from "
                  f"{sr['source']}{off}", highlight=False)
    # the lines, rows and cells as simulate words them (the web page shows the same words)
    dp = int(getattr(p.args, "data_parallel_size", 1) or 1)
    console.print(pool_line(cfg, dp), highlight=False)
    console.print(workload_line(wl_summary), highlight=False)
    t = Table(title="Concurrency and KV pool", show_header=True, header_style="bold")
    t.add_column("")
    t.add_column("value", justify="right")
    for row in result_rows(d, dp):
        t.add_row(*row)
    console.print(whole_cells(t))
    lt = Table(title="Latency", header_style="bold")
    for col in ("", *LATENCY_COLUMNS):
        lt.add_column(col, justify="right" if col else "left")
    for row in latency_rows(d):
        lt.add_row(*row)
    console.print(whole_cells(lt))
    console.print(throughput_line(d), highlight=False)
    goodput = goodput_line(d)
    if goodput is not None:
        console.print(goodput, highlight=False)
    for e in d.get("step_model", {}).get("example_steps", ()):
        console.print(f"[dim]step time: {step_line(e)}[/]", highlight=False)
    for n in d["notes"]:  # a workload reader's warning (an arrival unit in doubt) is not dimmed as a note
        console.print(f"[yellow]{escape(str(n))}[/]" if str(n).startswith("warning: ") else
                      f"[dim]note: {escape(str(n))}[/]", highlight=False)
    console.print(f"[dim]simulated in {d['simulator_wall_s']:.2f} s[/]")


PLOT_FILES = ("concurrency.png", "kv_usage.png", "latency_cdf.png")  # what --plot writes, in write_plots' order


def _check_plot_files(out_dir: Path) -> None:
    """Each figure's path checked before the simulation: a folder (or other non-file) there, or a file that cannot be
    overwritten, failed only after the whole run, with a generic path error."""
    import os

    from kvplan.errors import InputError

    for name in PLOT_FILES:
        path = out_dir / name
        if path.exists() and not path.is_file():
            raise InputError("--plot", f"{path} is {'a folder' if path.is_dir() else 'not a file'}, and simulate "
                             f"writes its figure {name} there", f"move or rename {path}, or give another folder to --plot")
        if path.is_file() and not os.access(path, os.W_OK):
            raise InputError("--plot", f"{path} exists and cannot be overwritten",
                             f"make it writable (chmod u+w {path}), or give another folder to --plot")


def write_plots(res, out_dir: Path) -> list[Path]:
    """PNG figures: concurrency over time, KV usage, latency CDFs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    fig, ax = plt.subplots(figsize=(9, 4))
    ax.plot(res.ts_t_s, res.ts_running, label="running (sampled)", lw=1)
    ax.plot(res.ts_t_s, res.ts_waiting, label="waiting", lw=1, alpha=0.7)
    ax.axhline(res.worst_case_concurrency, color="red", ls="--", lw=1, label=f"worst case {res.worst_case_concurrency:.2f}x")
    # the series are sampled at intervals: a peak between two samples is drawn as the line the text's figure gives
    ax.axhline(res.max_running, color="tab:blue", ls=":", lw=1, label=f"realized max running {res.max_running}")
    top = max(int(res.ts_running.max(initial=0)), int(res.ts_waiting.max(initial=0)), 1)
    if res.config.max_num_seqs <= 2 * top:  # only when it is in view; otherwise it flattens the series
        ax.axhline(res.config.max_num_seqs, color="gray", ls=":", lw=1, label=f"max_num_seqs {res.config.max_num_seqs}")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("requests")
    ax.set_title("Concurrency over time")
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    paths.append(out_dir / PLOT_FILES[0])
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(9, 4))
    ax.plot(res.ts_t_s, res.ts_kv_usage * 100, lw=1, label="KV usage (sampled)")
    ax.axhline(res.kv_usage_peak * 100, color="tab:blue", ls=":", lw=1, label=f"peak {res.kv_usage_peak * 100:.1f} %")
    ax.legend(loc="upper right", fontsize=8)
    ax.set_ylim(0, 105)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("KV-cache usage (%)")
    ax.set_title(f"KV pool usage ({res.config.usable_blocks:,} usable blocks)")
    fig.tight_layout()
    paths.append(out_dir / PLOT_FILES[1])
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)

    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    fig, axes = plt.subplots(1, 3, figsize=(12, 4))
    slo = getattr(res, "slo", None)
    for ax, (vals, label, limit) in zip(axes, ((res.ttft_s, "TTFT", slo and slo.ttft_ms), (res.tpot_s, "TPOT", slo and slo.tpot_ms),
                                               (res.e2e_s, "end-to-end", slo and slo.e2e_ms))):
        v = np.sort(vals * 1e3)
        if v.size:
            ax.plot(v, np.arange(1, v.size + 1) / v.size)
        ax.set_xscale("log")
        # plain numbers on the major ticks and none on the minor ones: matplotlib's '2x10^1 3x10^1 4x10^1' minor labels
        # overlapped into one unreadable string under a TTFT axis spanning 15-500 ms
        plain = FuncFormatter(lambda x, _: f"{x:,.0f}" if x >= 1 else f"{x:g}")
        ax.xaxis.set_major_formatter(plain)
        if limit:  # the --slo objective the goodput line checks, where the reader looks for it
            ax.axvline(limit, color="red", ls="--", lw=1, label=f"SLO {label} <= {limit:,.0f} ms")
            ax.legend(loc="lower right", fontsize=8)
        lo, hi = ax.get_xlim()
        # within less than a decade no power of ten is in view: label the 2s and 5s between instead
        ax.xaxis.set_minor_locator(LogLocator(base=10, subs=(2.0, 5.0)))
        decades = [10.0 ** k for k in range(-3, 8) if lo <= 10.0 ** k <= hi]
        ax.xaxis.set_minor_formatter(plain if len(decades) < 2 else NullFormatter())
        ax.set_xlabel(f"{label} (ms)")
        ax.set_ylabel("fraction of requests")
        ax.grid(alpha=0.3)
        ax.set_title(f"{label} CDF")
    fig.tight_layout()
    paths.append(out_dir / PLOT_FILES[2])
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    return paths


def write_request_table(res, path: Path) -> None:
    """The per-request CSV (SimResult.request_table): empty cells where a request has no such figure."""
    import csv

    from kvplan.errors import InputError

    columns = {name: (col.astype(int) if col.dtype == bool else col).tolist() for name, col in res.request_table().items()}
    try:
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["request", *columns])
            for i, row in enumerate(zip(*columns.values())):
                w.writerow([i, *("" if isinstance(v, float) and math.isnan(v) else v for v in row)])
    except OSError as exc:
        raise InputError("--requests", f"cannot write {path}: {exc.strerror}", "give a writable file path") from None


class _Progress:
    """A Rich progress bar over finished requests (stderr), for long runs only."""

    def __init__(self, total: int, enabled: bool):
        self.enabled = enabled
        self.total = total
        self._bar = None
        self._n = 0

    def __enter__(self):
        if self.enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

            self._bar = Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), console=err_console, transient=True)
            self._bar.__enter__()
            self._task = self._bar.add_task("simulating", total=self.total)
        return self

    def __call__(self, n: int) -> None:
        self._n += n
        if self._bar is not None and self._n % 2000 == 0:
            self._bar.update(self._task, completed=self._n)

    def __exit__(self, *exc):
        if self._bar is not None:
            self._bar.__exit__(*exc)


def _say_how_read(w) -> None:
    """On stderr, before a capacity search: how a file was read (an API log's fields) and the reader's warnings (an
    arrival column whose unit gives an implausible rate); simulate prints them among its notes."""
    for n in w.notes:
        if n.startswith(("warning: ", "read as an API log")):
            err_console.print(n if n.startswith("warning: ") else f"note: {n}", highlight=False, soft_wrap=True)


def _note_bare_slo(slo_spec) -> None:
    """Say, on stderr, how an SLO given as a bare number was read: as milliseconds, so 'ttft=1' is 1 ms, where a user
    may have meant a second; printed beside the run, not refused. The parts are those simulate.parse_slo read without a
    unit (SLO.bare_ms), not a second reading of the text."""
    if slo_spec.bare_ms:
        err_console.print(f"note: --slo {', '.join(slo_spec.bare_ms)}: a bare number is read as milliseconds (write e.g. "
                          "1s or 500ms to say the unit)", highlight=False, soft_wrap=True)


@app.command()
@fit_options_gpu_auto
@option_group(_WORKLOAD_PARAMS, _workload_spec, "workload_spec")
def simulate(
    model: Optional[str] = typer.Argument(None, help="Catalog id, Hub id, checkpoint folder or config.json."),
    num_gpu_blocks: Optional[int] = typer.Option(None, "--num-gpu-blocks", help="Use this KV pool (e.g. from vLLM's startup log) instead of the plan's, as given (--num-gpu-blocks-override N plans that pool as vllm serve sizes it, then simulates it).", rich_help_panel=_SIM),
    prefix_caching: Optional[bool] = typer.Option(None, "--prefix-caching/--no-prefix-caching", help=_PREFIX_CACHING_ALIAS, hidden=True),
    max_num_partial_prefills: Optional[int] = typer.Option(None, "--max-num-partial-prefills", help="vLLM 0.7.3-0.26 (default 1): concurrent partial prefills. 1 is what is simulated; other values are refused, as vLLM 0.11-0.26 refuse them (V0, which ran them up to 0.10, is not simulated).", rich_help_panel=_SIM),
    max_long_partial_prefills: Optional[int] = typer.Option(None, "--max-long-partial-prefills", help="vLLM 0.7.3-0.26 (default 1): of those, how many may be long. As --max-num-partial-prefills: only 1 is simulated.", rich_help_panel=_SIM),
    slo: Optional[str] = typer.Option(None, "--slo", help="Service-level objectives for goodput, e.g. ttft=500ms,tpot=50ms (ms or s; a bare number is ms), or vllm bench serve --goodput's 'ttft:500 tpot:50'.", rich_help_panel=_SIM),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
    plot: Optional[str] = typer.Option(None, "--plot", help="Write PNGs (concurrency, KV usage, latency CDFs) to this folder."),
    requests_csv: Optional[str] = typer.Option(None, "--requests", help="Write one CSV row per request (arrival, first token, finish, queue/TTFT/TPOT/end-to-end ms, preemptions): the data the percentiles are taken over."),
    spec_acceptance_rate: Optional[float] = typer.Option(None, "--spec-acceptance-rate", help=_SPEC_RATE_HELP, rich_help_panel=_SPEC),
    spec_mean_acceptance_length: Optional[float] = typer.Option(None, "--spec-mean-acceptance-length", help=_SPEC_LENGTH_HELP, rich_help_panel=_SPEC),
    spec_draft_acceptance_rate: Optional[float] = typer.Option(None, "--spec-draft-acceptance-rate", help=_SPEC_DRAFT_HELP, rich_help_panel=_SPEC),
    from_command: Optional[str] = from_option("The workload and simulation flags stay simulate's own."),
    *,
    flags: FitFlags,
    workload_spec: object,  # kvplan.workload.WorkloadSpec (imported lazily: it loads numpy)
):
    """Simulate vLLM's paged admission and continuous batching over a workload: realized concurrency, KV usage, preemptions, latency.

    Examples:
    $ kvplan simulate Qwen/Qwen3-8B --gpu H100 --workload azure-conv --rate 8
    $ kvplan simulate Qwen/Qwen3-8B --gpu H100 -w sharegpt --rate 20 \\
        --slo ttft=500ms,tpot=50ms --requests requests.csv
    $ kvplan simulate Qwen/Qwen3-8B --gpu L4 --max-model-len 8192 --rate 2 \\
        --prompt-len lognormal:1000,1 --completion-len constant:200
    $ kvplan simulate --gpu L4 --from deploy/serve.sh -w azure-conv --rate 2
    """
    from kvplan.errors import InputError
    from kvplan.render import to_json
    from kvplan.simulate import check_servable, parse_slo, simulate_plan, step_model_report
    from kvplan.workload import build_workload

    for flag, given in (("--plot", plot), ("--requests", requests_csv)):
        if given is not None and not given.strip():  # Path('') is the current folder: no silent default
            raise InputError(flag, "an empty path", f"give a {'folder' if flag == '--plot' else 'file'}, or leave {flag} out")
    plot = Path(plot) if plot is not None else None
    requests_csv = Path(requests_csv) if requests_csv is not None else None
    if plot is not None and plot.suffix.lower() in (".png", ".svg", ".pdf", ".jpg"):
        raise InputError("--plot", f"{plot} names a file; simulate writes three figures", "give a folder, e.g. --plot figs/")
    if plot is not None:  # made now, not after the simulation: a file in the way or a folder that cannot be made
        try:
            plot.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError("--plot", f"cannot make the folder {plot}: {exc.strerror or exc}",
                             "give a folder that can be written, e.g. --plot figs/") from None
        _check_plot_files(plot)
    slo_spec = parse_slo(slo)
    model, flags, command = read_from(model, flags, from_command)
    if not json_out:
        say_from(command)
        _note_bare_slo(slo_spec)
    wl = build_workload(workload_spec)
    p, cfg, sm, rules = _setup(model, flags, num_gpu_blocks, prefix_caching, json_out,
                               _spec_acceptance(spec_acceptance_rate, spec_mean_acceptance_length, spec_draft_acceptance_rate),
                               (max_num_partial_prefills, max_long_partial_prefills))
    check_servable(p, wl, cfg)  # a workload vLLM refuses whole is an error, not a table of '-'
    with _Progress(len(wl), enabled=(not json_out) and len(wl) >= 100_000 and sys.stderr.isatty()) as prog:
        res = simulate_plan(p, wl, cfg, sm, rules, slo=slo_spec, progress=prog if prog.enabled else None,
                            worst_case_concurrency=_worst_case(p, cfg))
    d = res.to_dict()
    d["model"] = p.model.id
    d["gpu"] = p.gpu.name
    d["tensor_parallel_size"] = p.args.tensor_parallel_size
    d["workload_summary"] = wl.summary()
    d["step_model"] = step_model_report(sm, cfg, d["mean_running"], d["workload_summary"], res)
    if command is not None:
        d["from_command"] = command.to_dict()
    if plot is not None:
        d["plots"] = [str(x) for x in write_plots(res, plot)]
    if requests_csv is not None:
        write_request_table(res, requests_csv)
        d["requests_file"] = str(requests_csv)
    if json_out:
        sys.stdout.write(to_json(d) + "\n")
    else:
        _print_result(p, cfg, d, d["workload_summary"])
        if plot is not None:
            console.print("plots: " + ", ".join(d["plots"]), highlight=False)
    raise typer.Exit(0)


@app.command()
@fit_options_gpu_auto
@option_group(_WORKLOAD_PARAMS, _workload_spec, "workload_spec", rate=None,
              max_requests=typer.Option(None, "--max-requests", "-n", help=f"Requests per probe simulation (default: a "
                                        f"trace's first {CAPACITY_REQUESTS:,}, or all of a shorter one; {CAPACITY_REQUESTS:,} "
                                        "drawn for a synthetic workload). More than a trace holds are resampled from it, "
                                        "with new arrivals.", rich_help_panel=_WL),
              # capacity has no --rate (it probes rates): its help said a trace's timing was "scaled to --rate"
              arrivals=typer.Option(None, "--arrivals", help="poisson | gamma (uses --burstiness) | trace. Default: a "
                                    "trace's own timing (scaled to each probed rate), else gamma (Poisson at --burstiness 1).",
                                    rich_help_panel=_WL))
def capacity(
    model: Optional[str] = typer.Argument(None, help="Catalog id, Hub id, checkpoint folder or config.json."),
    slo: str = typer.Option("ttft=1s,tpot=50ms", "--slo", help="The objectives every probe must meet at --percentile: ttft, tpot, e2e (or e2el, as vllm bench serve) = ms or s; a bare number is ms, as vllm bench serve --goodput reads it ('ttft:500 tpot:50' too).", rich_help_panel=_SIM),
    percentile: float = typer.Option(99.0, "--percentile", help="Which percentile must meet the SLO.", rich_help_panel=_SIM),
    target_rate: Optional[float] = typer.Option(None, "--target-rate", help="Also size the fleet for this many req/s.", rich_help_panel=_SIM),
    router: str = typer.Option("round-robin", "--router", help="round-robin | least-loaded (across replicas).", rich_help_panel=_SIM),
    num_gpu_blocks: Optional[int] = typer.Option(None, "--num-gpu-blocks", help="Use this KV pool instead of the plan's, as given (--num-gpu-blocks-override N plans it as vllm serve does).", rich_help_panel=_SIM),
    prefix_caching: Optional[bool] = typer.Option(None, "--prefix-caching/--no-prefix-caching", help=_PREFIX_CACHING_ALIAS, hidden=True),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
    vary: List[str] = typer.Option([], "--vary", help="Compare deployments: NAME=v1,v2,... as kvplan sweep --vary takes it (e.g. gpu=L4,L40S,H100 and tensor_parallel_size=1,2,4; one or two names), one capacity search and one row per combination; or flags paired, one row per tuple: gpu,tensor_parallel_size=L4:4,L40S:2,H100:1 (4 x L4 vs 2 x L40S vs 1 x H100). A value holding ',' or ':' goes in quotes or escapes them with a backslash: model,gpu=\"/ckpt/qwen:8b\":H100 or /ckpt/qwen\\:8b:H100.", rich_help_panel=_SIM),
    gpu_hour_usd: Optional[str] = typer.Option(None, "--gpu-hour-usd", help="USD per GPU-hour: one price for every GPU (2.5) or one per GPU (L4=0.8,H100=2.5); a GPU named twice (H100=2.5,H100=1.2: on-demand and spot, two clouds) is costed at each, a row per price under $/GPU-h. Adds the cost per hour and per million requests.", rich_help_panel=_SIM),
    spec_acceptance_rate: Optional[float] = typer.Option(None, "--spec-acceptance-rate", help=_SPEC_RATE_HELP, rich_help_panel=_SPEC),
    spec_mean_acceptance_length: Optional[float] = typer.Option(None, "--spec-mean-acceptance-length", help=_SPEC_LENGTH_HELP, rich_help_panel=_SPEC),
    spec_draft_acceptance_rate: Optional[float] = typer.Option(None, "--spec-draft-acceptance-rate", help=_SPEC_DRAFT_HELP, rich_help_panel=_SPEC),
    from_command: Optional[str] = from_option("The workload and capacity flags stay capacity's own; a flag (or the model) --vary varies replaces the command's in each row."),
    *,
    flags: FitFlags,
    workload_spec: object,  # kvplan.workload.WorkloadSpec (imported lazily: it loads numpy)
):
    """The highest request rate one replica serves within the SLOs (bisection over simulations, then a scan of the rates under its answer), and replicas for a target rate.

    The answer is the highest probed rate with no probed rate under it missing the SLO (which need not be monotone in the rate); where a rate above it met the SLO again, the output says so.

    A replica is one whole server as planned (TP x PP x DP GPUs); the replicas are the target over its rate, rounded up, then checked by simulating the fleet at the target.

    Examples:
    $ kvplan capacity Qwen/Qwen3-8B --gpu H100 -w azure-conv --slo tpot=40ms
    $ kvplan capacity Qwen/Qwen3-8B --gpu H100 -w sharegpt --target-rate 40
    $ kvplan capacity Qwen/Qwen3-8B -w sharegpt --vary gpu=L4,L40S,H100 \\
        --target-rate 20 --gpu-hour-usd L4=0.8,L40S=1.9,H100=2.5
    $ kvplan capacity Qwen/Qwen3-32B -w sharegpt --target-rate 20 \\
        --vary gpu,tensor_parallel_size=L4:4,L40S:2,H100:1
    $ kvplan capacity --gpu H100 --from docker-compose.yml -w sharegpt
    """
    from kvplan.errors import InputError
    from kvplan.render import to_json
    from kvplan.simulate import (async_scheduling_note, capacity_lines, check_servable, parse_slo, plan_capacity,
                                 served_caveats, target_checked_alone)
    from kvplan.workload import build_workload, fleet_workload, with_rate

    if not 1 <= percentile <= 100:
        raise InputError("--percentile", f"must be a percentile from 1 to 100, got {percentile:g}",
                         "e.g. 99" + (f" (for p{percentile * 100:g}, not the fraction {percentile:g})" if 0 < percentile < 1 else ""))
    if router not in ("round-robin", "least-loaded"):
        raise InputError("--router", f"unknown router {router!r}", "round-robin or least-loaded")
    if target_rate is not None and not (math.isfinite(target_rate) and target_rate > 0):
        raise InputError("--target-rate", f"must be a positive number of requests per second, got {target_rate:g}", "e.g. --target-rate 40")
    slo_spec = parse_slo(slo, percentile)
    if slo_spec.ttft_ms is None and slo_spec.tpot_ms is None and slo_spec.e2e_ms is None:  # before the search is announced
        raise InputError("--slo", "capacity needs at least one SLO", "e.g. --slo ttft=1s,tpot=50ms")
    prices = None
    if gpu_hour_usd is not None:
        from kvplan.simulate import GpuPrices

        prices = GpuPrices(gpu_hour_usd)
    acceptance = _spec_acceptance(spec_acceptance_rate, spec_mean_acceptance_length, spec_draft_acceptance_rate)
    from kvplan.api import parse_vary

    model, flags, command = read_from(model, flags, from_command, parse_vary(vary) if vary else ())
    if not json_out:
        say_from(command)
    if vary:
        _capacity_compare(model, flags, vary, workload_spec, slo_spec, target_rate, router, num_gpu_blocks,
                          prefix_caching, prices, json_out, acceptance, command)
    spec = replace(workload_spec, rate_per_s=1.0)
    # a trace shorter than the default sample is taken whole, its own timing kept: it was resampled to 5,000 requests
    # with fresh Poisson arrivals, without a word, so a 400-request trace's bursts were never probed
    base = build_workload(spec, default_requests=CAPACITY_REQUESTS)
    p, cfg, sm, rules = _setup(model, flags, num_gpu_blocks, prefix_caching, json_out, acceptance)
    # as simulate refuses it: the bisection's answer was 'no rate meets the SLO; fix: ... or judge a percentile of 0.0'
    check_servable(p, base, cfg)

    def at(rate_per_s: float):
        return with_rate(base, rate_per_s, spec.burstiness, spec.seed)

    price_list = prices.require(p.gpu) if prices is not None else []  # before the search, not after it

    if target_rate is not None:  # refused now, not after the search, when its arrivals span too long to simulate
        with_rate(base, target_rate, spec.burstiness, spec.seed, field="--target-rate")

    def on_probe(r, ok):
        if not json_out:
            err_console.print(f"  {r:8.3f} req/s: {'meets' if ok else 'misses'} the SLO", highlight=False)

    def on_scan(best, n):
        if not json_out:
            err_console.print(f"  scanning {n} rate{'s' if n != 1 else ''} under {best:.3f} req/s that the search "
                              "stepped over (the SLO need not be monotone in the rate):", highlight=False)

    # the target is checked on one replica at its share of the rate (find_capacity's run_replica) for a data-parallel
    # server or a recorded trace, else on the fleet behind the router
    one_checked = target_checked_alone(p, base)

    def on_fleet(k, n, ok):
        if not json_out:
            who = (f"1 replica at {target_rate:g} / {k} req/s" if one_checked
                   else f"{k} replica{'s' if k != 1 else ''} at {target_rate:g} req/s")
            err_console.print(f"  {who} ({n:,} requests): {'meets' if ok else 'misses'} the SLO", highlight=False)

    if not json_out:
        _note_bare_slo(slo_spec)
        _say_how_read(base)
        sample = [n for n in base.notes if n.startswith(("capped to the first", "resampled "))]  # which requests
        err_console.print(f"bisecting the request rate for {slo_spec.describe()} ({len(base):,} requests per probe"
                          + "".join(f"; {n}" for n in sample) + "), then scanning the rates under the answer",
                          highlight=False)
    cap = plan_capacity(p, at, cfg, sm, slo_spec, rules, target_rate_per_s=target_rate, router=router, on_probe=on_probe,
                        on_scan=on_scan,
                        fleet_at=lambda rate, k: fleet_workload(base, rate, k, spec.burstiness, spec.seed), on_fleet=on_fleet,
                        worst_case_concurrency=_worst_case(p, cfg))
    d = cap.to_dict()
    d.update(model=p.model.id, gpu=p.gpu.name, tensor_parallel_size=p.args.tensor_parallel_size, workload=base.name,
             worst_case_concurrency=_worst_case(p, cfg), warnings=list(p.warnings),
             notes=[n for n in sm.notes if not n.startswith("plan: ")] + list(served_caveats(p, sm.spec))
             # async scheduling's host-time saving is not modelled: the probes' latencies err long from that side
             + [n for n in (async_scheduling_note(rules),) if n])
    if command is not None:
        d["from_command"] = command.to_dict()
    costs = []
    if price_list and cap.max_rate_per_s > 0:
        from kvplan.simulate import capacity_cost

        # the fleet for the target, else one replica at its capacity (as a --vary row prices it), at each price given
        # for the GPU ("cost": the first; "costs": every one, on-demand and spot)
        costs = [c for c in (capacity_cost(price, p.gpus_used, cap, target_rate) for price in price_list) if c is not None]
        if costs:
            d["cost"], d["costs"] = costs[0], costs
    if json_out:
        sys.stdout.write(to_json(d) + "\n")
    else:
        console.print(f"[bold]{p.model.id}[/] on {_gpus_text(p)}, vLLM {p.vllm_version}, workload {base.name}", highlight=False)
        # the answer in words (simulate.capacity_lines, which /api/simulate answers for the web page), its figures bold
        for line in capacity_lines(cap, worst_case_concurrency=d["worst_case_concurrency"], gpus_per_replica=p.gpus_used,
                                   data_parallel_size=p.args.data_parallel_size or 1, one_checked=one_checked,
                                   costs=costs, mark=lambda text, style: f"[{style}]{text}[/]"):
            console.print(line, highlight=False)
        from kvplan.render import warning_text

        # the plan's warnings, after the answer as fit prints them: capacity said nothing of a release kvplan has no
        # rules for (--vllm-version 0.34.0) or of the GPU variant it picked ('A100')
        for w in p.warnings:
            err_console.print(warning_text(str(w)), highlight=False, soft_wrap=True)
        # the step-time model's caveats on the rate, as `kvplan simulate` notes them: an A10G (no peak FLOPS in the
        # catalog) was timed on bandwidth alone, its prefills and TTFT optimistic, without a word
        for n in d["notes"]:
            err_console.print(f"note: {n}", highlight=False, soft_wrap=True)
    raise typer.Exit(0 if cap.max_rate_per_s > 0 else 1)


def _capacity_compare(model, flags: FitFlags, vary: list, workload_spec, slo_spec, target_rate, router, num_gpu_blocks,
                      prefix_caching, prices, json_out: bool, spec_acceptance=None, command=None) -> None:
    """`kvplan capacity --vary`: one capacity search per deployment (simulate.capacity_rows), a table of them best
    first (or --json's rows); a progress line per row on stderr. Ends the command: 0 when a row meets the SLO."""
    from rich.table import Table

    from kvplan.api import parse_vary, vary_names, vary_setting
    from kvplan.cli.fit import refuse_replaced_flags
    from kvplan.errors import InputError
    from kvplan.render import to_json
    from kvplan.simulate import (capacity_rows, compare_cells, compare_columns, compare_heading, compare_lines,
                                 cost_columns_line, rate_down)
    from kvplan.workload import build_workload, with_rate

    if num_gpu_blocks is not None:
        raise InputError("--num-gpu-blocks", "one logged pool cannot stand for every deployment --vary compares",
                         "drop --num-gpu-blocks (each row plans its own pool), or drop --vary")
    if prefix_caching is not None:
        raise InputError("--prefix-caching", "is the old spelling, not read with --vary", "give --enable-prefix-caching")
    if (flags.gpu or "").strip().lower() == "auto":
        raise InputError("--gpu", "auto picks one deployment; --vary compares the ones it lists",
                         "drop --gpu auto and list the GPUs: --vary gpu=L4,L40S,H100")
    if flags.gpu_kinds is not None:
        raise InputError("--gpu-kinds", "chooses the cards --gpu auto searches; --vary compares the ones it lists",
                         "drop --gpu-kinds and list the GPUs: --vary gpu=L4,L40S,H100")
    varied = parse_vary(vary)
    refuse_replaced_flags(model, flags, varied)
    spec = replace(workload_spec, rate_per_s=1.0)
    base = build_workload(spec, default_requests=CAPACITY_REQUESTS)
    if target_rate is not None:  # refused now, as a single run refuses it, not after every row's search
        with_rate(base, target_rate, spec.burstiness, spec.seed, field="--target-rate")
    names = vary_names(varied)

    def on_row(i, n, row):
        if not json_out:
            shown = vary_setting(row, names)
            if row["rate_per_replica"]:
                said = f"{rate_down(row['rate_per_replica'])} req/s per replica"
                if row["replicas"]:
                    said += f", {row['replicas']} replica{'s' if row['replicas'] != 1 else ''} for {target_rate:g} req/s"
            else:
                said = row["cell"]
            err_console.print(f"[{i + 1}/{n}] {shown}: {said}", highlight=False)

    if not json_out:
        _note_bare_slo(slo_spec)
        _say_how_read(base)
        combos = math.prod(len(v) for _, v in varied)
        err_console.print(f"comparing {combos} deployment{'s' if combos != 1 else ''}: a search of the rate within "
                          f"{slo_spec.describe()} for each ({len(base):,} requests per probe)", highlight=False)
    rows = capacity_rows(model, flags, varied, base, slo_spec, burstiness=spec.burstiness, seed=spec.seed,
                         spec_acceptance=spec_acceptance,
                         target_rate_per_s=target_rate, router=router, prices=prices, on_row=on_row)
    if json_out:
        out = {"varied": names, "workload": base.name, "slo": slo_spec.describe(), "target_rate_per_s": target_rate,
               "rows": rows}
        if command is not None:
            out["from_command"] = command.to_dict()
        sys.stdout.write(to_json(out) + "\n")
    else:
        priced = prices is not None
        # the model the rows share; with --vary model, no one model's (the first row's id headed rows of several)
        shown_model = "the models listed" if "model" in names else (rows[0]["model"] if rows else model)
        console.print(f"[bold]{shown_model}[/], {compare_heading(base.name, slo_spec.describe(), target_rate)}",
                      highlight=False)
        from rich.text import Text

        from kvplan.render import whole_cells

        t = Table(show_edge=False, pad_edge=False, box=None)
        for title, numeric in compare_columns(names, target_rate, priced):
            t.add_column(title, justify="right", no_wrap=True) if numeric else t.add_column(title)
        for r in rows:
            t.add_row(*compare_cells(r, names, target_rate, priced))
        # at 80 columns a --vary model row cut its id to 'meta-ll…' and folded 'RTX PRO 6000' a word a line: every cell
        # whole, or each row a block where the columns cannot hold their words side by side (render.WholeOrStacked)
        console.print(whole_cells(t))
        if priced:
            console.print(cost_columns_line(target_rate), highlight=False)
        # why a row has no answer, a rate above one that met the SLO again, each plan's warnings and the step-time
        # model's caveats (as sweep prints them: --vary gpu=A100 planned an A100 80GB SXM4 and said nothing of the 40 GB card)
        for kind, text in compare_lines(rows, names):
            console.print(Text(text, style={"warning": "yellow", "note": "dim"}.get(kind, "")), highlight=False,
                          soft_wrap=True)
    raise typer.Exit(0 if any(r["rate_per_replica"] for r in rows) else 1)
