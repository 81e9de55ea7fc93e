"""`kvplan fit`, `kvplan sweep`, `kvplan models`, `kvplan gpus`."""

from __future__ import annotations

import sys
from typing import List, Optional

import typer

from kvplan.api import FIT_PARAMS, SWEEPABLE, parse_vary, plan_from_flags_and_inverse, sweep_rows, uncertainty_band_of, vary_names
from kvplan.cli import (FitFlags, app, console, err_console, fit_options, fit_options_gpu_auto, from_option, read_from,
                        say_from)


@app.command()
@fit_options_gpu_auto  # as scaffold, simulate and capacity: --gpu auto answered (plan_from_flags_and_inverse); sweep takes a named GPU
def fit(
    model: Optional[str] = typer.Argument(None, help="Catalog id, Hub id (org/name), checkpoint folder, config.json or .gguf file. Default: the seed's Qwen/Qwen2.5-0.5B-Instruct."),
    concurrency: Optional[float] = typer.Option(None, "--concurrency", help="With --max-model-len auto: full-length requests that must fit at once."),
    explain: bool = typer.Option(False, "--explain", help="Show every term's formula with its numbers, and every default applied."),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
    from_command: Optional[str] = from_option(),
    *,
    flags: FitFlags,
):
    """Predict vLLM's startup: memory budget, KV-cache blocks, tokens, concurrency, or its error and the fixes.

    Examples:
    $ kvplan fit                       # the seed's example (Qwen2.5-0.5B, 4,096)
    $ kvplan fit meta-llama/Llama-3.1-8B-Instruct --gpu L4 --max-model-len 32768
    $ kvplan fit Qwen/Qwen3-32B --gpu H100 -tp 2 --kv-cache-dtype fp8 --explain
    $ kvplan fit Qwen/Qwen3-8B --gpu L4 --max-model-len auto --concurrency 8
    $ kvplan fit Qwen/Qwen3-8B --gpu auto --max-model-len 32768 --json
    $ kvplan fit --gpu-gb 16 --overhead-gb 1     # the seed's own arithmetic
    $ kvplan fit --gpu L4 --from 'vllm serve Qwen/Qwen3-8B -tp 2 --port 8000'
    """
    model, flags, command = read_from(model, flags, from_command)
    p, note = plan_from_flags_and_inverse(model, flags, concurrency)
    band = uncertainty_band_of(p)
    if json_out:
        from kvplan.json_out import plan_json, to_json

        d = plan_json(p, note, band)
        if command is not None:
            d["from_command"] = command.to_dict()
        sys.stdout.write(to_json(d) + "\n")
    else:
        from rich.text import Text

        from kvplan.render import print_plan

        if command is not None:  # where the plan's flags came from, before it
            for line in command.lines(explain):
                console.print(Text(line), soft_wrap=True)
        if note:
            console.print(f"[bold]{note}[/]")
        print_plan(console, p, explain=explain, band=band)
    raise typer.Exit(0 if p.fits else 1)


@app.command()
@fit_options
def sweep(
    model: Optional[str] = typer.Argument(None, help="Model reference (as for fit)."),
    vary: List[str] = typer.Option([], "--vary", help="NAME=v1,v2,... (or max_model_len=1024..131072, doubling). One or two of: " + ", ".join(SWEEPABLE) + " (quantization=none,fp8: none is the checkpoint's own). Flags paired, one row per tuple: gpu,tensor_parallel_size=L4:4,H100:1. A value holding ',' or ':' goes in quotes or escapes them with a backslash: model,gpu=\"/ckpt/qwen:8b\":H100 or /ckpt/qwen\\:8b:H100."),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output: one plan per row."),
    csv_out: bool = typer.Option(False, "--csv", help="The table as CSV."),
    plot: Optional[str] = typer.Option(None, "--plot", help="Write concurrency vs the first varied parameter to FILE (.png or .svg)."),
    from_command: Optional[str] = from_option("A flag (or the model) --vary varies replaces the command's in each row."),
    *,
    flags: FitFlags,
):
    """Vary one or two flags and compare: concurrency and the ratio to the first row, like the seed's max_model_len table.

    Exit code: 0 when a row starts, 1 when none does, 2 when every row's values are refused as input.

    Examples:
    $ kvplan sweep Qwen/Qwen3-8B --gpu L4 --vary max_model_len=4096..131072
    $ kvplan sweep --vary max_model_len=4096..131072 --vary gpu=T4,L4,H100
    $ kvplan sweep Qwen/Qwen3-8B --vary gpu=L4,A100-80GB,H100 --plot out.png
    $ kvplan sweep Qwen/Qwen3-8B --gpu L4 --vary kv_cache_dtype=auto,fp8 --csv
    $ kvplan sweep Qwen/Qwen3-32B --vary gpu,tensor_parallel_size=L4:4,H100:1
    $ kvplan sweep Qwen/Qwen3-8B --gpu L4 --vary vllm_version=0.9.2,0.33.0  # an upgrade
    $ kvplan sweep Qwen/Qwen3-8B --gpu H100 --vary vllm_version=0.33.0,0.34.0  # 0.34: pool sized after warmup
    $ kvplan sweep --gpu L4 --from serve.sh --vary max_model_len=8192,32768
    """
    from kvplan.errors import InputError
    from kvplan.render import (csv_rows, plot_sweep, sweep_errors, sweep_refusals, sweep_release_changes, sweep_table,
                               sweep_warnings, to_json)

    if not vary:
        vary = ["max_model_len=2048,4096,16384,32768"]
    varied = parse_vary(vary)
    if json_out and csv_out:
        raise InputError("--csv", "--json and --csv each print the table", "choose one")
    refuse_replaced_flags(model, flags, varied)  # the flags given here; the command's are replaced (read_from)
    model, flags, command = read_from(model, flags, from_command, varied)
    if plot:  # refused before the plans are made and the table printed
        _check_plot_target(plot)
    if not json_out:
        say_from(command)
    plans: list = []
    rows = sweep_rows(model, flags, varied, plans)
    names = vary_names(varied)
    if json_out:
        out = {"varied": names, "rows": rows}
        if command is not None:
            out["from_command"] = command.to_dict()
        sys.stdout.write(to_json(out) + "\n")
    elif csv_out:
        # a refused row's reason too, as --json and the table's notes carry it (sweep_rows "failure", "error")
        sys.stdout.write(csv_rows(rows, names + ["fits", "kv_cache_bytes", "kv_cache_tokens", "max_concurrency", "num_gpu_blocks",
                                                 "error_input", "failure", "error"]))
    else:
        console.print(sweep_table(rows, names))
        for line in (sweep_errors(rows, names) + sweep_refusals(rows, names) + sweep_release_changes(rows, names)
                     + sweep_warnings(rows, names)):
            console.print(line, soft_wrap=True)
    if plot:
        # the validated band of the first plan's model family and era, unless the sweep changes the model or the release
        band = uncertainty_band_of(plans[0]) if plans and not {"model", "vllm_version"} & set(names) else None
        try:
            plot_sweep(*_plot_columns(varied, rows), plot, band=band)
        except OSError as exc:
            raise InputError("--plot", f"cannot write {plot}: {exc.strerror or exc}", "give a writable file path") from None
        err_console.print(f"wrote {plot}")
    # as fit's: a sweep of which no row starts was exit 0, and so was one whose every row was bad input
    # (--vary gpu_memory_utilization=90,95: two different refusals, so sweep_rows printed them instead of raising one)
    if all(r.get("error_input") for r in rows):
        raise typer.Exit(2)
    if not any(r.get("fits") for r in rows):
        raise typer.Exit(1)


def _plot_columns(varied: list, rows: list[dict]) -> tuple[list[dict], list[str]]:
    """The rows and the varied columns the plot draws: a paired group (gpu,tensor_parallel_size=L4:4,H100:1) is one
    axis or one line per tuple, its value written as the tuple was given ('L4:4'), so the pairs are not drawn as the
    product of their flags."""
    names = []
    for name, _ in varied:
        if isinstance(name, tuple):
            label = ",".join(name)
            rows = [{**r, label: ":".join(str(r[n]) for n in name)} for r in rows]
            names.append(label)
        else:
            names.append(name)
    return rows, names


def refuse_replaced_flags(model: Optional[str], flags: FitFlags, varied: list[tuple[str, list]]) -> None:
    """InputError for a flag (or MODEL) that --vary replaces in every row: it would be dropped unread. --gpu stays
    allowed beside --vary gpu: its --gpu-gib / --gpu-gb size the row of that GPU."""
    from kvplan.errors import InputError

    defaults = {p.name: p.default for p in FIT_PARAMS}
    for name in vary_names(varied):
        given = model if name == "model" else getattr(flags, name, None) if name != "gpu" else None
        if given is not None and given != defaults.get(name):  # an on/off flag left off is not given
            shown = f"MODEL {given}" if name == "model" else f"--{name.replace('_', '-')} {given}"
            raise InputError("--vary", f"{name} is varied, so {shown} would be replaced in every row",
                             f"drop {shown.split(' ')[0]}, or add its value to --vary {name}=...")


def _check_plot_target(plot: str) -> None:
    """--plot names a .png or .svg file in a folder that exists."""
    from pathlib import Path

    from kvplan.errors import InputError

    if not plot.lower().endswith((".png", ".svg")):  # matplotlib reads 'sweep.PNG' as a PNG, as Windows names it
        raise InputError("--plot", f"{plot} is not a .png or .svg file name", "e.g. --plot sweep.png")
    if not Path(plot).parent.is_dir():
        raise InputError("--plot", f"the folder {Path(plot).parent} does not exist", "create it first, or write elsewhere")


def _squash(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def _model_matches(search: str, model_id: str, entry: dict) -> bool:
    """SEARCH in the id or the model type (the table's two columns): "llama4", the type column's spelling, found
    nothing among the Llama-4 ids."""
    cfg = entry.get("resolved_config") or entry["config"]
    needle = search.lower()
    return needle in model_id.lower() or needle in str(cfg.get("model_type") or "").lower()


@app.command()
def models(search: Optional[str] = typer.Argument(None, help="Filter: a substring of the id or of the model type (llama4); where none matches, of the id with '-', '_' and '.' ignored (gptoss)."), json_out: bool = typer.Option(False, "--json", help="Machine-readable output.")):
    """List the embedded model catalog (works offline).

    Examples:
    $ kvplan models
    $ kvplan models qwen3 --json
    """
    from rich.table import Table

    from kvplan.render import Breakable, to_json, whole_cells
    from kvplan.resolve import model_catalog

    # alphabetical as people read it: a plain sort put every lower-case org (ai21labs, deepseek-ai, google, ...) after
    # the capitalised ones (MiniMaxAI, Qwen)
    catalog = sorted(model_catalog().items(), key=lambda kv: (kv[0].lower(), kv[0]))
    rows = [(k, v) for k, v in catalog if not search or _model_matches(search, k, v)]
    if search and not rows:  # "gptoss", "llama-4-scout": the id with '-', '_' and '.' ignored, only when nothing matched
        rows = [(k, v) for k, v in catalog if _squash(search) and _squash(search) in _squash(k)]
    if json_out:
        sys.stdout.write(to_json([{"id": k, "source": v["source"], "gated": v.get("gated")} for k, v in rows]) + "\n")
        return
    if search and not rows:  # an empty table said nothing about why
        _no_match("catalog id", search, list(model_catalog()), "any Hub id (org/name) or a local checkpoint is planned too")
        return
    t = Table(title=f"{len(rows)} catalog models")
    t.add_column("id")
    t.add_column("type")
    t.add_column("gated")
    for k, v in rows:
        cfg = v.get("resolved_config") or v["config"]
        t.add_row(Breakable(k, "/", "-"), str(cfg.get("model_type")), "yes" if v.get("gated") else "")
    console.print(whole_cells(t))


@app.command()
def gpus(search: Optional[str] = typer.Argument(None, help="Filter by substring of the name or an alias."),
         json_out: bool = typer.Option(False, "--json", help="Machine-readable output.")):
    """List the GPU catalog: memory as vLLM sees it, compute capability, bandwidth.

    Examples:
    $ kvplan gpus
    $ kvplan gpus h100 --json
    """
    from rich.table import Table

    from kvplan.render import to_json
    from kvplan.resolve import gpu_catalog

    cat = sorted(gpu_catalog(), key=lambda g: g.total_bytes)
    known = []  # cards kvplan knows without a total (Strix Halo, Jetson Orin NX 8GB) whose name holds the search
    mig = _mig_cards(search) if search else None
    if mig is not None and not json_out:
        _print_mig(*mig)
        return
    if mig is not None:  # --json: the same cards the table names, each with its profiles
        cat = mig[1]
    elif search:  # as `kvplan models SEARCH` filters its catalog
        needle = search.lower()
        names = [n for g in cat for n in (g.name, *g.aliases)]
        cat = [g for g in cat if any(needle in n.lower() for n in (g.name, g.id, *g.aliases))]
        read_as = _gpu_as_flag_reads_it(search) if not cat else None
        if read_as is not None:  # 'h100-80gb', 'A100 80G': no name holds it as written, but --gpu plans it as this card
            cat = [read_as]
            err_console.print(f"no GPU name contains {search!r} as written; --gpu {search!r} is read as {read_as.name}",
                              highlight=False, soft_wrap=True)
        from kvplan.resolve import sizeless_gpus

        # named beside the cards found, or alone: "no GPU contains 'Strix Halo'", and 'Orin NX' listed the 16 GB module only
        known = [g for g in sizeless_gpus() if any(needle in n.lower() for n in (g.name, g.id, *g.aliases))]
        if not cat and not json_out:
            _print_sizeless(known)
            if not known:
                _no_match("GPU", search, names, "or give --gpu-gib N for a custom card")
            return
    if json_out:
        sys.stdout.write(to_json([{"id": g.id, "name": g.name, "total_gib": round(g.total_gib, 3), "compute_capability": g.compute_capability,
                                    "hbm_bandwidth_tbps": g.hbm_bandwidth_tbps, "aliases": list(g.aliases), "total_source": g.total_source,
                                    "form": g.form, "kind": g.kind, "mig_profiles": _mig_profiles(g)} for g in cat]
                                 # the cards the table names under it, known without a total: total_gib null, the reason
                                 # in total_source ('gpus "Strix Halo" --json' printed [])
                                 + [{"id": g.id, "name": g.name, "total_gib": None, "compute_capability": g.compute_capability,
                                     "hbm_bandwidth_tbps": g.hbm_bandwidth_tbps, "aliases": list(g.aliases),
                                     "total_source": g.total_source, "form": g.form, "kind": g.kind, "mig_profiles": None} for g in known])
                         + "\n")
        return
    t = Table(title="GPU catalog")
    for c in ("name", "GiB (CUDA)", "cc", "TB/s", "aliases"):
        t.add_column(c)
    for g in cat:
        t.add_row(g.name, f"{g.total_gib:.2f}", g.compute_capability or "—", f"{g.hbm_bandwidth_tbps or '—'}", ", ".join(g.aliases[:3]))
    from kvplan.render import whole_cells

    console.print(whole_cells(t))
    _print_sizeless(known)


def _print_sizeless(cards) -> None:
    for g in cards:
        console.print(f"{g.name}: known, but with no fixed total memory ({g.total_source}); plan it with "
                      f"--gpu {g.id!r} --gpu-gib N", highlight=False, soft_wrap=True)


def _gpu_as_flag_reads_it(search: str):
    """The catalog card `--gpu SEARCH` plans (resolve.find_gpu: spacing, dashes, a size as '80gb' or '80G', a count
    or nvidia-smi's 'GPU 0:' prefix forgiven), None where --gpu refuses it too. The listing's substring filter alone
    answered 'no GPU contains' for names the planning commands take ('h100-80gb', 'NVIDIA H100 80GB')."""
    from kvplan.errors import KvplanError
    from kvplan.resolve import find_gpu

    try:
        return find_gpu(search)
    except KvplanError:
        return None


def _mig_profiles(g) -> list[str] | None:
    """The MIG profiles of a catalog card (resolve.MIG_PROFILES), None where kvplan has read none (no MIG, or a
    card whose profiles it has not read)."""
    from kvplan.resolve import MIG_PROFILES

    return list(MIG_PROFILES[g.id]) if g.id in MIG_PROFILES else None


def _mig_cards(search: str) -> tuple[str, list] | None:
    """`kvplan gpus mig`, `kvplan gpus 'H100 MIG'`: MIG slices are no catalog entries (each is planned on its own total),
    so the listing is of the MIG-capable cards the words before 'MIG' name, with their profiles (resolve.MIG_PROFILES),
    instead of 'no GPU contains': (the card words, those cards). None where the search names no MIG."""
    import re

    from kvplan.resolve import mig_cards_named

    m = re.search(r"\bmig\b", search, re.I)
    if not m:
        return None
    card = search[:m.start()].strip().lower()
    # the card's words as --gpu 'CARD MIG PROFILE' reads them: a substring listed the A100s' profiles for 'A10 MIG'
    return card, sorted(mig_cards_named(card), key=lambda g: g.total_bytes)


def _print_mig(card: str, cards: list) -> None:
    """How a MIG slice is given, then each card's profiles (_mig_cards)."""
    console.print("A MIG slice is planned on its own total: --gpu 'CARD MIG PROFILE' --gpu-gib N (N: the slice's total "
                  "as vLLM logs it, 'Free memory on device (x/N GiB)'), e.g. --gpu 'H100 MIG 3g.40gb' --gpu-gib 39.5",
                  highlight=False)
    if not cards:
        console.print(f"no MIG-capable catalog GPU matches {card!r}", highlight=False)
    for g in cards:
        console.print(f"  {g.name}: {', '.join(_mig_profiles(g))}", highlight=False)


def _no_match(what: str, search: str, names: list[str], hint: str) -> None:
    """A listing filtered to nothing: say so, with the nearest names, instead of an empty table."""
    import difflib

    near = difflib.get_close_matches(search, names, n=3, cutoff=0.4) or difflib.get_close_matches(
        search.lower(), [n.lower() for n in names], n=3, cutoff=0.4)
    err_console.print(f"no {what} contains {search!r}" + (f" (nearest: {', '.join(near)})" if near else "")
                      + f"; {hint}", highlight=False)
