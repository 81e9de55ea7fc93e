"""`kvplan validate`: measured accuracy against real vLLM startups."""

from __future__ import annotations

import sys
from typing import Optional

import typer

from kvplan.cli import app, console, err_console

_FIG_LABEL = {"weights_gib": "weights GiB", "kv_cache_gib": "KV-cache GiB", "num_gpu_blocks": "blocks",
              "kv_cache_tokens": "tokens", "max_concurrency": "concurrency"}


# the narrow table's headers (its title says the cells are signed % errors)
_SHORT_LABEL = {"weights_gib": "wts", "kv_cache_gib": "KV", "num_gpu_blocks": "blk", "kv_cache_tokens": "tok",
                "max_concurrency": "conc", "fits": "fits"}


def _fmt(v) -> str:
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:,.2f}"
    return f"{v:,}"


@app.command()
def validate(
    file: str = typer.Argument(..., help="Startup records (JSONL, docs/startup-record-format.md), e.g. calibration.jsonl; - reads standard input."),
    given_kv: bool = typer.Option(False, "--given-kv", help="Take each record's logged KV-cache GiB as given: score only the pool arithmetic."),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output: every record's predictions and errors."),
    rows: bool = typer.Option(True, "--rows/--no-rows", help="Print one row per record."),
    markdown: Optional[str] = typer.Option(None, "--markdown", help="Also write the summary table as Markdown to this file."),
):
    """Predict every record's logged figures and report how close kvplan (and the seed's arithmetic) comes.

    Exit code: 0 when any record was planned, 2 when none could be (each skip's reason is printed) or the file is bad.

    Examples:
    $ kvplan validate tests/data/calibration.jsonl
    $ kvplan validate tests/data/blind_records.jsonl --given-kv --no-rows
    $ kvplan validate records.jsonl --json
    """
    from rich.progress import Progress

    from kvplan.render import to_json
    from kvplan.validate import load_records, summarize, validate_records

    if markdown:  # refused before the records are predicted, not after their table is printed
        _check_markdown_target(markdown)
    records = load_records(file)
    if json_out:
        results = validate_records(records, given_kv=given_kv)
    else:
        with Progress(transient=True, console=console) as progress:
            task = progress.add_task("predicting startups", total=len(records))
            results = validate_records(records, given_kv=given_kv, progress=lambda: progress.advance(task))
    summary = summarize(results)
    seed = None if given_kv else summarize(results, seed=True)
    for line in duplicate_id_lines(results):  # on stderr: --json stays one JSON document
        err_console.print(line, style="yellow", soft_wrap=True, highlight=False, markup=False)
    if json_out:
        out = {"mode": "given_kv" if given_kv else "end_to_end", "records": [r.to_dict() for r in results], "summary": summary}
        if seed:
            out["seed_summary"] = seed
        sys.stdout.write(to_json(out) + "\n")
        if markdown:  # --json --markdown writes both (the table was dropped unwritten)
            _write_markdown(markdown, summary_markdown(summary, seed, given_kv))
        _exit_if_none_planned(results, json_out=True)
        return
    if rows:
        console.print(rows_table(results, given_kv, file, compact=console.width < FULL_ROWS_WIDTH))
    console.print(summary_table(summary, seed, given_kv, compact=console.width < SUMMARY_RULED_WIDTH))
    for line in skipped_lines(results):
        console.print(line, style="red", soft_wrap=True, highlight=False, markup=False)
    if markdown:
        _write_markdown(markdown, summary_markdown(summary, seed, given_kv))
    _exit_if_none_planned(results)


def _exit_if_none_planned(results, json_out: bool = False) -> None:
    """Exit 2 where every record was skipped: a file none of whose records kvplan can plan is input it cannot use. It
    exited 0 under a summary of n = 0 rows and dashes, which a script read as a validation that passed."""
    if results and all(r.skipped for r in results):
        where = "under records[].skipped" if json_out else "in the 'skipped' lines above"
        err_console.print(f"error: FILE: none of its {len(results)} record(s) could be planned (each one's reason is "
                          f"{where}; fix those fields)", style="red", soft_wrap=True, highlight=False, markup=False)
        raise typer.Exit(2)


# the terminal width the rows' predicted / logged figures need unfolded; a narrower one gets the signed errors alone
FULL_ROWS_WIDTH = 190


def rows_table(results, given_kv: bool, file: str, compact: bool = False):
    """One row per record: predicted / logged per figure, or (compact, for a narrow terminal) the signed % error,
    coloured as the full table is (green within 3 %, yellow within 12 %, red beyond)."""
    from rich import box
    from rich.table import Table

    from kvplan.render import Breakable, whole_cells

    title = f"kvplan validate {'--given-kv ' if given_kv else ''}{file}"
    if compact:
        title += (f"\nsigned % error against the log: weights, KV GiB, blocks, tokens, concurrency; fits: the verdict "
                  f"right or wrong (COLUMNS={FULL_ROWS_WIDTH} shows both figures, --json every one)")
    # compact: no vertical rules, and the release under the record's id, so that 80 columns hold a row
    t = Table(title=title, show_lines=False, **({"box": box.SIMPLE_HEAD, "pad_edge": False} if compact else {}))
    t.add_column("record" if not compact else "record, vLLM", overflow="fold", max_width=34 if not compact else 40,
                 min_width=None if not compact else 20)
    if not compact:
        t.add_column("GPU", overflow="fold", max_width=18)
        t.add_column("vLLM", overflow="fold", max_width=18)
    for f in _figures(given_kv) + ("fits",):
        t.add_column(_FIG_LABEL.get(f, f) + "\npred / logged" if not compact else _SHORT_LABEL.get(f, f), justify="right")
    for r in results:
        stated, applied = r.label.get("vllm_version"), r.label.get("rules_applied")
        version = stated or (f"— ({applied} rules)" if applied else "—")
        # a record id longer than its column breaks after a '-' ("...-tp1-" / "l32k"), where rich folded it at the last
        # column ("...-tp1-l32" / "k")
        cells = ([Breakable(str(r.id), "-", "_."), str(r.label.get("gpu") or "—"), version] if not compact
                 else [Breakable(f"{r.id}\n[dim]{version}[/]", "-", "_.")])
        for f in _figures(given_kv) + ("fits",):
            if r.skipped:
                cells.append("")
                continue
            obs, pred, err = r.observed.get(f), r.predicted.get(f), r.error_pct.get(f)
            if obs is None:
                cells.append(f"[dim]{_fmt(pred) if not compact else '—'}[/]")
                continue
            colour = "green" if err is None or abs(err) <= 3 else ("yellow" if abs(err) <= 12 else "red")
            if f == "fits":
                colour = "green" if pred == obs else "red"
            shown = (f"{_fmt(pred)} / {_fmt(obs)}" if not compact else ("right" if pred == obs else "wrong") if f == "fits"
                     else "—" if err is None else f"{err:+.1f}")
            cells.append(f"[{colour}]{shown}[/]")
        if r.skipped:
            cells[-1] = "[red]skipped (below)[/]" if not compact else "[red]skip[/]"
        t.add_row(*cells)
    return whole_cells(t)


def skipped_lines(results) -> list[str]:
    """Why records were skipped, each reason once with the records it concerns: the summary's caption counts them
    only, and a table cell cuts the reason (the field to fix and how) to a few words, or --no-rows drops it."""
    reasons: dict[str, list[str]] = {}
    for r in results:
        if r.skipped:
            reasons.setdefault(r.skipped, []).append(str(r.id))
    return [f"skipped {', '.join(ids)}: {why}" for why, ids in reasons.items()]


def duplicate_id_lines(results) -> list[str]:
    """A note for each id more than one record carries: rows and --json entries keyed by it cannot be told apart."""
    from collections import Counter

    counts = Counter(str(r.id) for r in results)
    return [f"note: {n} records carry the id {rid!r}: their rows (and --json entries) cannot be told apart; give each "
            "record its own id" for rid, n in counts.items() if n > 1]


def _check_markdown_target(path: str) -> None:
    """--markdown names a file that can be written: not a folder, in a folder that exists."""
    from pathlib import Path

    from kvplan.errors import InputError

    target = Path(path)
    if target.is_dir():
        raise InputError("--markdown", f"{path} is a folder", "give a file name, e.g. --markdown accuracy.md")
    if not target.parent.is_dir():
        raise InputError("--markdown", f"the folder {target.parent} does not exist", "create it first, or write elsewhere")


def _write_markdown(path: str, text: str) -> None:
    from kvplan.errors import InputError

    try:
        with open(path, "w") as fh:
            fh.write(text)
    except OSError as exc:
        raise InputError("--markdown", f"cannot write {path}: {exc.strerror}", "give a writable file path") from None


def _pct(v) -> str:
    return "—" if v is None else f"{v:.2f} %"


def _figures(given_kv: bool) -> tuple[str, ...]:
    """The figures scored: with --given-kv the logged KV-cache GiB is an input, not a prediction."""
    from kvplan.validate import FIGURES

    return tuple(f for f in FIGURES if not (given_kv and f == "kv_cache_gib"))


def summary_grid(summary: dict, seed: dict | None, given_kv: bool) -> tuple[list[str], list[list[str]]]:
    """The summary's header and rows: figure, n, then median / p90 / max absolute % error for kvplan (and the seed)."""
    head = ["figure", "n"] + [f"{who} {q}" for who in ["kvplan"] + (["seed"] if seed else []) for q in ("median", "p90", "max")]
    rows = []
    for f in _figures(given_kv):
        row = [_FIG_LABEL[f], str(summary[f]["n"])]
        for s in [summary] + ([seed] if seed else []):
            if s is seed and f == "weights_gib" and s[f]["n"]:  # the seed is handed the logged weights (seed_predict):
                row += ["(given)"] * 3                           # its 0.00 % there measures nothing
                continue
            row += [_pct(s[f][k]) for k in ("median_abs_pct", "p90_abs_pct", "max_abs_pct")]
        rows.append(row)
    return head, rows


# the terminal width the summary's ruled table needs; a narrower one drops the vertical rules, as rows_table does
SUMMARY_RULED_WIDTH = 100


def summary_table(summary: dict, seed: dict | None, given_kv: bool, compact: bool = False):
    from rich import box
    from rich.table import Table

    from kvplan.render import whole_cells

    t = Table(title="Summary: absolute % error (" + ("pool arithmetic, logged KV GiB given" if given_kv else "end to end") + ")",
              **({"box": box.SIMPLE_HEAD, "pad_edge": False} if compact else {}))
    head, rows = summary_grid(summary, seed, given_kv)
    # the figure's longest word whole: at 80 columns "KV-cache GiB" and "concurrency" were cut to "KV-cac…", "concur…"
    longest = max((len(word) for row in rows for word in row[0].split()), default=0)
    for i, name in enumerate(head):
        t.add_column(name, justify="right" if i else "left", **({} if i else {"min_width": longest, "no_wrap": compact}))
    for row in rows:  # compact: the title's "%" stands for every cell's, which left no room for "(given)" at 80
        t.add_row(*(cell.removesuffix(" %") for cell in row) if compact else row)
    fits = f"{summary['fits_accuracy'] * 100:.1f} % of {summary['fits_n']}" if summary["fits_accuracy"] is not None else "—"
    seed_fits = f"{seed['fits_accuracy'] * 100:.1f} %" if seed and seed["fits_accuracy"] is not None else ""
    t.caption = f"fit verdict right: {fits}" + (f" (seed: {seed_fits})" if seed_fits else "") + f" · skipped: {summary['skipped']} of {summary['records']}"
    unstated = {k: n for k, n in (summary.get("version_basis") or {}).items() if k != "stated"}
    if unstated:  # the records planned without a stated version, and with what
        from kvplan.versions import DEFAULT_RELEASE

        # "newest" (the JSON's key) is kvplan's default release, not the newest it reads (versions.NEWEST_READ)
        named = {"log format": "the era their log format names", "newest": f"the default release's rules ({DEFAULT_RELEASE})",
                 "commit count": "the release their source build's commit count follows"}
        t.caption += "\nno version stated: " + ", ".join(f"{n} planned with {named.get(k, k)}" for k, n in unstated.items())
    return whole_cells(t)


def summary_markdown(summary: dict, seed: dict | None, given_kv: bool) -> str:
    head, rows = summary_grid(summary, seed, given_kv)
    lines = ["| " + " | ".join(row) + " |" for row in [head, *rows]]
    lines.insert(1, "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
    fits = f"{summary['fits_accuracy'] * 100:.1f} %" if summary["fits_accuracy"] is not None else "—"
    lines.append("")
    lines.append(f"Fit verdict right: {fits} of {summary['fits_n']} records"
                 + (f" (seed's arithmetic: {seed['fits_accuracy'] * 100:.1f} %)" if seed and seed['fits_accuracy'] is not None else "")
                 + f"; skipped: {summary['skipped']} of {summary['records']}.")
    return "\n".join(lines) + "\n"
