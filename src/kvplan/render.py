"""Output for people: the plan as a Rich table, the memory bar, the predicted log, --explain, plots.

No arithmetic lives here: every number shown comes from a `Plan` (or a list of them).
"""

from __future__ import annotations

import re
from typing import Iterable, Optional, Sequence

from rich.cells import cell_len
from rich.console import Console, Group
from rich.measure import Measurement
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from kvplan.json_out import budget_segments, headroom_formula, plan_json, to_json  # noqa: F401  (kvplan.render's names too)
from kvplan.plan import Plan
from kvplan.resolve import GB, GIB, MIB

SEGMENTS = (  # (label, colour, attribute or callable)
    ("weights", "magenta"),
    ("activation", "yellow"),
    ("non-torch", "cyan"),
    ("CUDA graphs", "blue"),
    ("KV pool", "green"),
    ("headroom", "grey50"),
)


def _split_after(word: str, chars: str) -> list[str]:
    """`word` cut after each of `chars`: 'a/b/c' -> ['a/', 'b/', 'c']."""
    pieces, start = [], 0
    for i, ch in enumerate(word):
        if ch in chars:
            pieces.append(word[start:i + 1])
            start = i + 1
    if start < len(word):
        pieces.append(word[start:])
    return pieces


def _break_word(word: str, width: int, groups: Sequence[str]) -> list[str]:
    """`word`, longer than `width`, as lines of at most `width` cut after the characters of groups[0] (a path's '/'),
    a piece still too long after those of groups[1], and so on; a piece with none of them stays whole (rich folds it)."""
    if cell_len(word) <= width or not groups:
        return [word]
    lines, line = [], ""
    for seg in _split_after(word, groups[0]):
        for part in _break_word(seg, width, groups[1:]):
            if line and cell_len(line) + cell_len(part) > width:
                lines.append(line)
                line = ""
            line += part
    lines.append(line)
    return lines


class Breakable:
    """Text (markup, as a table cell's string is read) whose words too long for the width they get break after the
    characters given: a path or URL after '/', a list of sizes after ','. Rich folds such a word at the last column
    it reaches: mid-name, mid-hash, a size '136' as '1' and '36'. Words that fit, and everything else about the text,
    are as rich prints them; a piece with none of the characters still folds (never an ellipsis, where the column
    says fold)."""

    def __init__(self, text: str, *groups: str):
        self.text = text
        self.groups = groups or ("/",)

    def _text(self, console: Console, options) -> Text:
        # as rich reads a string in this place (a table cell: markup, no highlighting)
        return console.render_str(self.text, highlight=options.highlight, markup=options.markup)

    def __rich_measure__(self, console: Console, options) -> Measurement:
        plain = self._text(console, options).plain
        chars = "".join(self.groups)
        least = max((cell_len(piece) for word in plain.split() for piece in _split_after(word, chars)), default=1)
        most = max((cell_len(line) for line in plain.splitlines()), default=1)
        return Measurement(least, max(least, most)).with_maximum(options.max_width)

    def __rich_console__(self, console: Console, options):
        text, width = self._text(console, options), options.max_width
        cuts = []
        for m in re.finditer(r"\S+", text.plain):
            if cell_len(m.group()) > width:
                at = m.start()
                for line in _break_word(m.group(), width, self.groups)[:-1]:
                    at += len(line)
                    cuts.append(at)
        yield Text("\n").join(text.divide(cuts)) if cuts else text


def whole_cells(table: Table) -> "WholeOrStacked":
    """`table` with every column folding a cell too long for the width rich gives it onto the next line, where rich's
    default cut it with an ellipsis: at 70 columns a sweep printed 1,993,776 tokens as '1,993,7…', at 60 a fix's flag
    as '--gpu-memory-ut… 0.96' and a catalog id as 'deepseek-ai/DeepSeek-R1-Dist…'. A table that fits is unchanged, and
    so is a column kept on one line (no_wrap), which a fold would crop without a mark. Where even its words cannot
    stand whole side by side, the table is printed stacked, one row a block (WholeOrStacked)."""
    for column in table.columns:
        if not column.no_wrap:
            column.overflow = "fold"
    return WholeOrStacked(table)


class WholeOrStacked:
    """A table printed as a table where its columns fit the width with every word whole (rich's minimum measure: the
    longest word of each column, a Breakable's longest piece), else stacked: each row a block, its first cell as the
    heading and every other cell under its column's header. At 60 columns validate's nine-column summary folded its
    numbers mid-digit ('30.9' over '2', '186' over '.04') and its headers mid-word ('kvpl' over 'an'). The table's
    own attributes (caption, title, columns) read through."""

    def __init__(self, table: Table):
        self.table = table

    def __getattr__(self, name):
        return getattr(self.table, name)

    def __rich_measure__(self, console: Console, options) -> Measurement:
        return Measurement.get(console, options, self.table)

    def _words_stand_whole(self, console: Console, options) -> bool:
        """Whether the widths rich gives the columns at this width are each at least the column's minimum (its longest
        word) and together fit it: the table's minimum fitting is not enough, as rich narrows the widest wrapping column
        first, below its longest word (at 50 columns simulate's latency table, minimum 46, folded 'queueing' to
        'queuein' over 'g'; at 70 the sweep's header 'concurrency'), and a column's min_width can hold the widths past
        the terminal. On a rich without these (private) Table methods, the table's minimum against the width."""
        t = self.table
        wide = options.update(max_width=10 ** 6)
        try:
            room = (t.width or options.max_width) - t._extra_width
            widths = t._calculate_column_widths(console, options.update_width(room))
            return sum(widths) <= room and all(w >= t._measure_column(console, wide, c).minimum
                                               for w, c in zip(widths, t.columns))
        except (AttributeError, TypeError):
            return Measurement.get(console, wide, t).minimum <= options.max_width

    def __rich_console__(self, console: Console, options):
        t = self.table
        if self._words_stand_whole(console, options):
            yield t
            return
        if t.title:
            yield Text(str(t.title), style="italic", justify="center")
        headers = [c.header for c in t.columns]
        # the first column's header, as text: a markup string rendered, a rich Text kept (it has no `.text`, and read
        # as one it was dropped), any other renderable's header left out
        head = console.render_str(headers[0]) if isinstance(headers[0], str) else headers[0]
        head = head if isinstance(head, Text) else Text()
        for row in zip(*(c._cells for c in t.columns)):
            first = console.render_str(row[0]) if isinstance(row[0], str) else row[0]
            heading = Text.assemble(("▸ ", "dim"), head)
            heading.stylize("dim", 0, len(heading.plain))
            if isinstance(first, Text):
                yield Text.assemble(heading, " " if head.plain else "", first)
            else:  # a renderable (a panel, a table) under its header's line, never in place of it
                yield heading
                yield Padding(first, (0, 0, 0, 2))
            grid = Table.grid(padding=(0, 1))
            grid.add_column(style="dim")
            grid.add_column(overflow="fold")
            for header, cell in zip(headers[1:], row[1:]):
                grid.add_row(header, cell)
            yield Padding(grid, (0, 0, 1, 2))
        if t.caption:
            yield t.caption if not isinstance(t.caption, str) else Text.from_markup(t.caption, justify="center")


def source_label(source: str) -> str:
    """The kind of a source, to show in brackets: its text before the first ':', with any brackets of its own turned
    into a comma ("CUDA total (deviceQuery / torch): ..." -> "CUDA total, deviceQuery / torch")."""
    label = source.split(":")[0].strip()
    return label.replace(" (", ", ").replace("(", "").replace(")", "")

def memory_bar(p: Plan, width: int = 60) -> Group:
    """The budget as a bar of `width` cells over its legend (_Legend)."""
    segs = budget_segments(p)
    total = sum(b for _, b in segs) or 1
    bar = Text()
    cells_used = 0
    for (label, b), (_, colour) in zip(segs, SEGMENTS):
        n = round(width * b / total)
        if b > 0 and n == 0:
            n = 1
        n = min(n, width - cells_used)
        cells_used += n
        bar.append("█" * n, style=colour)
    unit, scale = ("GB", GB) if p.mode == "simple" else ("GiB", GIB)
    items = [Text.assemble(("■ ", colour), f"{label} {b / scale:.2f} {unit}")
             for (label, b), (_, colour) in zip(segs, SEGMENTS)]
    return Group(bar, _Legend(items))


class _Legend:
    """The bar's legend, its items packed into lines of the width given, never one item across two lines: wrapped as
    one text it split "■ CUDA" from "graphs 0.30 GiB" at 80 columns, and "■" from "headroom" at 120."""

    def __init__(self, items: list[Text]):
        self.items = items

    def __rich_console__(self, console, options):
        line = Text()
        for item in self.items:
            if line.cell_len and line.cell_len + 2 + item.cell_len > options.max_width:
                yield line
                line = Text()
            if line.cell_len:
                line.append("  ")
            line.append_text(item)
        if line.cell_len:
            yield line

    def __rich_measure__(self, console, options):
        from rich.measure import Measurement

        # widest: every item on one line, two spaces between each
        return Measurement(max(i.cell_len for i in self.items), sum(i.cell_len for i in self.items) + 2 * (len(self.items) - 1))


def verdict_text(p: Plan) -> Text:
    if p.fits:
        return Text(f"✓ starts — {p.kv_cache_tokens:,} tokens of KV cache, {p.max_concurrency:.2f}x concurrency at "
                    f"max_model_len {p.args.max_model_len:,}{per_engine_text(p)}", style="bold green")
    return Text("✗ does not start: " + (p.error or "does not fit"), style="bold red")


def per_engine_text(p: Plan, total: float | None = None, fmt: str = ",", unit: str = "") -> str:
    """'  per engine (of N)' (with the sum over the engines when `total` is given) under data parallelism, else ''."""
    if p.engines == 1:
        return ""
    return f"  per engine (of {p.engines}" + (f"; {total * p.engines:{fmt}}{unit} in all)" if total is not None else ")")


def kv_per_token_text(p: Plan) -> str:
    """Bytes per token per rank as they grow: full-attention layers all the way, window layers up to their window. A
    window layer keeps a sequence's last `cap` tokens, but vLLM reserves more pages than that for it: the pages behind
    the window are freed only once the tokens of every step in flight are processed (Plan.window_in_flight)."""
    win, cap, reserved = p.window_kv_per_token
    parts = []
    if p.kv_bytes_per_token or not win:
        parts.append(f"{p.kv_bytes_per_token:,.0f} B ({p.kv_bytes_per_token / 1024:.1f} KiB) per rank")
    if win:
        parts.append(f"{win:,.0f} B ({win / 1024:.1f} KiB) per rank up to the window: a sequence attends to at most "
                     f"its last {cap:,} tokens there")
    text = " + ".join(parts)
    if p.state_bytes_per_sequence:
        mib = p.state_bytes_per_sequence / 1024 ** 2
        if not win:
            return text + f"  + {mib:,.1f} MiB fixed per sequence"
        batches, mnbt = p.window_in_flight
        # the MiB is vLLM's reservation, not the window: say what it adds, or the two numbers read as a contradiction
        why = (f"the window plus {batches} × {mnbt:,} tokens of the steps in flight, whose pages are freed only once "
               f"processed, in whole {p.block_size}-token blocks" if batches and reserved > cap + p.block_size
               else f"the window in whole {p.block_size}-token blocks")
        text += (f"  (vLLM still reserves {reserved:,} tokens' pages of them per sequence: {why}; at most {mib:,.1f} "
                 f"MiB per sequence)")
    return text


def first_start_text(p: Plan) -> str:
    """Beside the planned (warm-restart) pool: the pool a first start that compiles its graphs gets
    (plan.cold_start_pool_loss_bytes), where that is modelled and smaller; '' otherwise."""
    first = p.first_start
    if p.mode != "vllm" or not first or not first.get("modelled") or first["loss_bytes_most"] <= 0:
        return ""
    lo, hi = first["kv_cache_bytes_least"] / GIB, first["kv_cache_bytes_most"] / GIB
    return f"  [dim](a first start, compiling: {lo:.2f}–{hi:.2f} GiB)[/]"


def _rules_text(p: Plan) -> str:
    """'rules' for a release kvplan read; for one newer (or older) than those, whose rules it applies instead: the
    panel said "0.34.0 rules" while the warning below said 0.33.0's were applied. A development build or a nightly
    names a release other than the one whose rules apply: the row says which."""
    from kvplan.versions import NEWEST_READ, development_build_of, nightly_after_candidate, outside_read

    where = outside_read(p.rules.release) if p.mode == "vllm" else None
    if where == "newer":
        return f"— planned with {NEWEST_READ}'s rules, the newest kvplan holds"
    if where == "older":
        return "— planned with the oldest rules kvplan holds"
    if p.mode == "vllm" and (after := nightly_after_candidate(p.vllm_version)):
        return f"— a nightly of main past the {after[0]} candidate tag: {after[1]}'s rules"
    if p.mode == "vllm" and (before := development_build_of(p.vllm_version)):
        return f"— a development build of {before}: the rules of the releases before it"
    return "rules"


def _speculative_flag(p: Plan) -> str:
    """' · speculative ngram, 4 tokens' where --speculative-config applied (its drafter, graphs and pool are in the
    numbers below, so the flags row names it as it names the other flags), else ''."""
    spec = p.speculative
    if not spec:
        return ""
    n = spec.get("num_speculative_tokens")
    return f" · speculative {spec.get('method')}" + (f", {n} token{'s' if n != 1 else ''}" if n else "")


def _capture_flags(a) -> str:
    """The CUDA-graph capture flags given (--cudagraph-capture-sizes, --max-cudagraph-capture-size, --cuda-graph-sizes),
    for the flags row."""
    sizes = a.capture_sizes_given
    return ((f" · cudagraph_capture_sizes {','.join(map(str, sizes))}" if sizes is not None else "")
            + (f" · max_cudagraph_capture_size {a.max_cudagraph_capture_size}" if a.max_cudagraph_capture_size else "")
            + (f" · cuda_graph_sizes {','.join(map(str, a.cuda_graph_sizes_given))}"
               if a.cuda_graph_sizes_given is not None else ""))


def plan_rows(p: Plan, source: Optional[str] = None) -> list[tuple[str, str, tuple[str, ...]]]:
    """fit's box, a row each: (label, text in rich markup, the characters a word too long for its column breaks after,
    or () to fold as rich does). `kvplan fit` prints them (plan_table); the web page shows them (plan_rows_plain).
    `source`: the model's source as the model row names it, where not the plan's own (the web page's upload, not
    the file the server keeps it in)."""
    rows: list[tuple[str, str, tuple[str, ...]]] = []

    def add_row(label: str, text, *breaks: str) -> None:
        rows.append((label, text, breaks))

    scale, unit = (GB, "GB") if p.mode == "simple" else (GIB, "GiB")
    a = p.args
    add_row("model", f"{p.model.id}  [dim]({(source or p.model.source).split(':')[0]})[/]", "/")
    pcp = f" × PCP {a.prefill_context_parallel_size}" if (a.prefill_context_parallel_size or 1) > 1 else ""
    layout = (f" (TP {a.tensor_parallel_size} × PP {a.pipeline_parallel_size}{pcp} × DP {p.engines})"
              if p.gpus_used > 1 else "")
    add_row("GPU", f"{p.gpu.name} × {p.gpus_used}{layout}  "
                   f"[dim]{p.total_bytes / scale:.2f} {unit} each ({source_label(p.gpu.total_source)})[/]")
    add_row("vLLM", f"{p.vllm_version} {_rules_text(p)} (era {p.era})" + ("  [dim]simple arithmetic (--overhead-gb)[/]" if p.mode == "simple" else ""))
    add_row("flags", f"max_model_len {a.max_model_len:,} · gpu_memory_utilization {a.gpu_memory_utilization} · TP {a.tensor_parallel_size}"
                     f" · PP {a.pipeline_parallel_size} · DP {p.engines}"
                     + (f" · PCP {a.prefill_context_parallel_size}" if (a.prefill_context_parallel_size or 1) > 1 else "")
                     + (f" · DCP {a.decode_context_parallel_size}" if (a.decode_context_parallel_size or 1) > 1 else "")
                     + f" · dtype {a.dtype} · kv_cache_dtype {a.kv_cache_dtype} · block_size {p.block_size}"
                     f" · max_num_seqs {a.max_num_seqs} · max_num_batched_tokens {a.max_num_batched_tokens}"
                     + (" · enforce_eager" if a.enforce_eager else "") + (f" · quantization {a.quantization}" if a.quantization else "")
                     + {"awq": " (plain AWQ kernel)", "marlin": " (AWQ-Marlin kernel)"}.get(a.awq_kernel or "", "")
                     + _capture_flags(a) + _speculative_flag(p), ",")  # a long size list breaks after a comma
    if p.config_overrides:  # --hf-overrides (--rope-scaling, --rope-theta): what it changed in what kvplan derives
        # from the config, under the flags given
        add_row("config", " and ".join(p.args.config_override_flags) + " applied: " + (" · ".join(
            f"{what.replace('max_model_len_limit', 'max length')} {_override_value(a)} -> {_override_value(b)}"
            for what, (a, b) in p.config_overrides["changed"].items()) or "nothing kvplan derives changed"), "·")
    add_row("KV per token", kv_per_token_text(p))
    add_row("weights", f"{p.weights_bytes / scale:.2f} {unit} per rank ({p.weights_bytes:,} B, {'exact' if p.weights_exact else 'estimate'})")
    # named as --explain names it: "requested" (vLLM's word) in vLLM's arithmetic, "budget" in the seed's
    # on several GPUs the requested memory and the pool are each GPU's (rank's), beside tokens and concurrency that are
    # the engine's: unlabelled, 'KV cache 48.09 GiB' on TP 2 read as the server's pool (it holds 2 x 48.09 GiB)
    rank = " per GPU" if p.gpus_used > 1 else ""
    add_row("budget" if p.mode == "simple" else "requested",
            f"{p.requested_bytes / scale:.2f} {unit} = {p.total_bytes / scale:.2f} × {a.gpu_memory_utilization}{rank}")
    per_rank = " per rank" if a.tensor_parallel_size * a.pipeline_parallel_size > 1 else ""  # the pool and blocks: one rank's
    if p.kv_cache_bytes < 0:  # the other terms alone pass the budget: no pool (the signed figure stays in --json)
        add_row("KV cache", f"none: the weights and the other terms exceed the "
                            f"{'budget' if p.mode == 'simple' else 'requested memory'} by {-p.kv_cache_bytes / scale:.2f} {unit}")
    else:
        add_row("KV cache", f"{p.kv_cache_bytes / scale:.2f} {unit}{per_rank}{per_engine_text(p)}{first_start_text(p)}")
    if p.blocks_overridden and p.kv_cache_bytes >= 0:  # the blocks allocated, not the profiled pool
        add_row("allocated", f"{p.num_gpu_blocks * p.bytes_per_block / scale:.2f} {unit}{per_rank}: the "
                             f"{p.num_gpu_blocks:,} blocks of --num-gpu-blocks-override (the KV cache above is the "
                             "profile's, as logged)")
    if p.kv_cache_capacity_bytes is not None:  # the extensible KV cache (vLLM >= 0.34): the profile's figure is the capacity
        add_row("capacity", f"{p.kv_cache_capacity_bytes / scale:.2f} {unit} reserved (logged 'Available KV cache memory'); "
                            "the pool above is what is left after warmup and CUDA-graph capture")
    if p.mode == "vllm":
        add_row("blocks", f"{p.num_gpu_blocks:,} × {p.bytes_per_block:,} B{per_rank} ({len(p.groups)} KV group(s))"
                f"{per_engine_text(p)}")
    add_row("tokens", f"{p.kv_cache_tokens:,}{per_engine_text(p, p.kv_cache_tokens)}")
    add_row("concurrency", f"{p.max_concurrency:.2f}x at {a.max_model_len:,} tokens per request"
                           f"{per_engine_text(p, p.max_concurrency, ',.2f', 'x')}")
    return rows


def plan_rows_plain(p: Plan, source: Optional[str] = None) -> list[list[str]]:
    """plan_rows as [label, plain text] (the markup read as rich reads a table cell): the web page's summary of a plan."""
    return [[label, Text.from_markup(text).plain] for label, text, _ in plan_rows(p, source)]


def plan_table(p: Plan) -> Table:
    t = Table(show_header=False, box=None, pad_edge=False)
    t.add_column(style="bold")
    t.add_column(overflow="fold")  # a long local path or size list folds onto the next line: an ellipsis cut it short
    for label, text, breaks in plan_rows(p):
        t.add_row(label, Breakable(text, *breaks) if breaks else text)
    return t


def explain_table(p: Plan) -> Table:
    t = Table(title="How each number was produced", show_lines=False)
    # A narrow terminal squeezes the four columns: a word too long for its column breaks after '/' (a path, a URL) or
    # '_' (a term or function name), then '-', where rich folded it at the last column ("kv_bytes_per_toke" / "n", a
    # commit hash in two). The values wrap at their spaces ("14.56" / "GiB"), as before.
    t.add_column("term", style="bold", overflow="fold")
    t.add_column("value", justify="right", overflow="fold")
    t.add_column("formula", overflow="fold")
    t.add_column("source", style="dim", overflow="fold")  # a long URL folds onto the next line, never an ellipsis
    for term in p.terms:
        if term.unit == "bytes":
            scale, unit = (GB, "GB") if p.mode == "simple" else (GIB, "GiB")
            val = f"{term.value / scale:,.2f} {unit}"
        elif term.unit == "x":
            val = f"{term.value:,.2f}x"
        else:
            val = f"{term.value:,.0f} {term.unit}"
        t.add_row(Breakable(term.name, "_"), val, Breakable(term.formula, "/_", "-"),
                  Breakable(term.source, "/", "_-"))  # whole: a source cut short cites nothing
    # the bar's last segment, the card's memory no term claims: a row of its own, as --json's budget_segments has it
    # (the bar's 'headroom 1.76 GiB' was in neither)
    head = dict(budget_segments(p))["headroom"]
    scale, unit = (GB, "GB") if p.mode == "simple" else (GIB, "GiB")
    t.add_row("headroom", f"{head / scale:,.2f} {unit}", Breakable(headroom_formula(p), "/_", "-"),
              Breakable("kvplan.json_out budget_segments (the memory bar; budget_segments in --json)", "/.", "_-"))
    first = p.first_start
    if first and p.mode == "vllm":  # the pool a compiling first start gets, beside the warm restart's kv_cache above
        lo, hi = first["kv_cache_bytes_least"] / GIB, first["kv_cache_bytes_most"] / GIB
        t.add_row("kv_cache (first start)", f"{lo:,.2f}-{hi:,.2f} GiB" if round(lo, 2) != round(hi, 2) else f"{hi:,.2f} GiB",
                  (f"kv_cache - {first['loss_bytes_most'] / GIB:.2f} .. {first['loss_bytes_least'] / GIB:.2f} GiB: "
                   if first["loss_bytes_most"] > 0 else "= kv_cache, no loss: ")  # not 'kv_cache - 0.00 .. 0.00 GiB'
                  + f"{first['formula']}", Breakable("kvplan.plan.cudagraphs cold_start_pool_loss_bytes", "/.", "_-"))
    return t


def print_plan(console: Console, p: Plan, *, explain: bool = False, band: dict | None = None) -> None:
    parts = [plan_table(p), Text(""), memory_bar(p), Text(""), verdict_text(p)]
    if band:
        parts.append(Text(band["text"], style="dim"))
    console.print(Panel(Group(*parts), title="kvplan fit", expand=False))
    console.print(Text("Predicted startup log" if p.mode == "vllm" else "The seed's arithmetic", style="bold"))
    for line in p.vllm_log:
        console.print(Text("  " + line.replace("\n", "\n  "), style="red" if "Error" in line else "dim"), soft_wrap=True)
    if p.fixes:
        ft = Table(title="Nearest fixes")
        ft.add_column("change", style="bold")
        ft.add_column("flags")
        ft.add_column("effect")
        for f in p.fixes:
            ft.add_row(f.name, f.command_text,
                       Text(f.effect, style="green" if f.fits else "yellow"))
        console.print(whole_cells(ft))
    for w in p.warnings:
        console.print(warning_text(w), soft_wrap=True)
    if explain:
        console.print(explain_table(p))
        console.print(Text("Assumptions (every default applied)", style="bold"))
        for a in p.assumptions:
            console.print(Text("  • " + a), soft_wrap=True)


def _override_value(v) -> str:
    return f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else str(v)


def try_lines(plan, limit: int = 3) -> list[str]:
    """A refused plan's nearest fixes that start it, as the commands that cannot go on print them ('  try: FLAGS
    (EFFECT)'): scaffold, simulate and capacity, beside vLLM's error."""
    return [f"  try: {f.command_text}  ({f.effect})" for f in [f for f in plan.fixes if f.fits][:limit]]


def warning_text(warning: str, where: str = "") -> Text:
    """One warning as fit and sweep print it; `where` says which of several plans it concerns."""
    return Text(f"warning{f' ({where})' if where else ''}: {warning}", style="yellow")


def sweep_warnings(rows: Sequence[dict], varied: Sequence[str], key: str = "warnings") -> list[Text]:
    """The rows' warnings (or another list of theirs, `key`: capacity's "notes" print as notes), each once, with the
    rows it concerns named by their varied values (or "all rows")."""
    seen: dict[str, list[dict]] = {}
    for r in rows:
        for w in r.get(key) or ():
            seen.setdefault(w, []).append(r)
    planned = [r for r in rows if not r.get("error_input")]
    out = []
    for w, rs in seen.items():
        where = "all rows" if len(rs) == len(planned) and len(planned) > 1 else _rows_named(rs, varied)
        out.append(warning_text(w, where) if key == "warnings" else Text(f"note ({where}): {w}", style="dim"))
    return out


def sweep_release_changes(rows: Sequence[dict], varied: Sequence[str]) -> list[Text]:
    """Over --vary vllm_version: for each row, what moved its pool from the same deployment's first release
    (api.release_changes), one line per row."""
    out = []
    for r in rows:
        if r.get("release_changes") is None or r.get("error_input"):
            continue
        moved = "; ".join(r["release_changes"]) or "nothing moved"
        out.append(Text(f"{_rows_named([r], varied)} vs {r['compared_with']}: {moved}"))
    return out


def _sweep_value(v) -> str:
    """A varied value as the sweep table shows it: a length or size with thousands separators, else as given."""
    return f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else str(v)


def _rows_named(rows: Sequence[dict], varied: Sequence[str]) -> str:
    """Sweep rows named by their varied values, as the error and refusal lines under the table name them; a deployment
    listed once per price (capacity --gpu-hour-usd H100=2.5,H100=1.2) is named once."""
    from kvplan.api import vary_setting

    names = [vary_setting(r, varied, _sweep_value) for r in rows]
    return "; ".join(dict.fromkeys(names))


def sweep_errors(rows: Sequence[dict], varied: Sequence[str]) -> list[Text]:
    """The rows a sweep could not plan, each error once with the rows it concerns named by their varied values: the
    whole message and its fix, which a table column would cut to a few characters a line."""
    seen: dict[str, list[dict]] = {}
    for r in rows:
        if r.get("error_input"):
            seen.setdefault(r["error_input"], []).append(r)
    return [Text(f"error ({_rows_named(rs, varied)}): {e}", style="red") for e, rs in seen.items()]


# the refusals that come before any pool is sized: the weights do not load, or the GPU (its compute capability, a
# quantization's minimum capability, the dtype) or the architecture is refused at startup
_NO_POOL_FAILURES = ("load", "platform", "architecture")


def sweep_refusals(rows: Sequence[dict], varied: Sequence[str]) -> list[Text]:
    """Why each refused row does not start (its error's first sentence, as fit's fixes quote it; a GPU refused whole,
    since vLLM's 'Minimum capability: 80. Current capability: 75.' follows that sentence), each reason once with the
    rows it concerns, and where the nearest fixes are: `kvplan fit` with that row's flags."""
    seen: dict[str, list[dict]] = {}
    for r in rows:
        if not r.get("error_input") and r.get("fits") is False and r.get("error"):
            why = str(r["error"]).strip() if r.get("failure") == "platform" else str(r["error"]).split(". ")[0].strip()
            seen.setdefault(why.rstrip("."), []).append(r)
    out = [Text(f"does not start ({_rows_named(rs, varied)}): {e}", style="red") for e, rs in seen.items()]
    if out:
        out.append(Text("kvplan fit with a refused row's flags lists its nearest fixes", style="dim"))
    return out


def sweep_table(rows: Sequence[dict], varied: Sequence[str]) -> "WholeOrStacked":
    t = Table(title="kvplan sweep")
    for v in varied:  # a narrow terminal breaks a flag's name after its '_' and a count after its ',' (whole_cells)
        t.add_column(Breakable(v, "_"))
    # with tensor parallelism the pool is each rank's, the tokens the engine's: over --vary tensor_parallel_size=2,4
    # 'KV GiB 20.22 -> 29.91' beside 'tokens 132,528 -> 392,000' read as one server's pool growing 1.5x for 3x the tokens
    ranks = any((r.get("tensor_parallel_size") or 1) > 1 for r in rows if not r.get("error_input"))
    for c in ("fits", "KV GiB per rank" if ranks else "KV GiB", "tokens", "concurrency", "ratio"):
        t.add_column(c, justify="right")
    for r in rows:
        if r.get("error_input"):  # the error itself is printed under the table (sweep_errors), whole
            t.add_row(*[_sweep_value(r[v]) for v in varied], Text("error", style="red"), "—", "—", "—",
                      Text("see below", style="red"))
            continue
        # to the first row that planned with a pool (api.add_ratios, each row's "ratio" in --json)
        ratio = f"{r['ratio']:.2f}×" if r.get("ratio") is not None else "—"
        verdict = Text("yes" if r["fits"] else "no", style="green" if r["fits"] else "red")
        # the weights do not load (its -3.09 GiB read as a pool), or vLLM stops before loading them: the GPU or the
        # architecture is refused (gpt-oss-20b's MXFP4 on a T4 showed a -1.89 GiB pool beside 'no', as if too small)
        if r.get("failure") in _NO_POOL_FAILURES:
            t.add_row(*[_sweep_value(r[v]) for v in varied], verdict, "—", "—", "—", "—")
            continue
        t.add_row(*[_sweep_value(r[v]) for v in varied], verdict,
                  f"{r['kv_cache_bytes'] / GIB:.2f}", Breakable(tokens_cell(r["kv_cache_tokens"]), ","),
                  concurrency_cell(r["max_concurrency"]), ratio)
    return whole_cells(t)


def tokens_cell(tokens: int) -> str:
    """A pool's tokens as sweep's table and the web page's GPU table show them: '24,599'."""
    return f"{tokens:,}"


def concurrency_cell(concurrency: float) -> str:
    """A plan's concurrency as sweep's table shows it: '9.61' (the web page's GPU table adds '×')."""
    return f"{concurrency:.2f}"


def gpu_choice_label(gpu, wsl2: bool = False) -> str:
    """A catalog card as the web page's GPU list names it: its total memory as a plan uses it, to a tenth of a GiB
    ('L4 — 22.0 GiB'); with `wsl2`, the total CUDA reports under WSL2 (resolve.wsl2_gpu: nvidia-smi's memory.total),
    or that the catalog knows none."""
    if not wsl2:
        return f"{gpu.name} — {gpu.total_bytes / GIB:.1f} GiB"
    if not gpu.nvidia_smi_total_mib:
        return f"{gpu.name} — no WSL2 total known"
    return f"{gpu.name} — {gpu.nvidia_smi_total_mib * MIB / GIB:.1f} GiB under WSL2"


# the web page's GPU table: the rows it shows before "show all N" is pressed
GPU_TABLE_FIRST_ROWS = 12
# why a row is marked '†' (a row's title), and the note's word for it
COLD_RISK_TITLE = "starts warm; a first, compiling start may be refused (fit's cold-start warning)"


def gpu_table(rows: Sequence[dict], gpus: dict, *, wsl2: bool = False, notes: Sequence[str] = ()) -> dict:
    """The web page's table of the GPU x TP combinations that start a plan, from a sweep over catalog GPUs (by id,
    `gpus`: {id: GPUSpec}) and tensor-parallel sizes: the rows that start, smallest total memory first (a row's own
    total: under --wsl2 the card's WSL2 one), without tensor-parallel rows for a card that is one to a machine (a
    laptop or integrated GPU); each with its cells (name, TP, GiB total to a tenth, tokens, concurrency 'N.NN×', then
    ' †' where a first, compiling start may be refused) and that row's title; the note under the table, which names
    `notes` (the form's fields the sweep replaced); how many rows the page shows at first (`first_rows`); and the words of
    the button that shows every row or that many again."""
    def total(r: dict) -> int:
        return (r.get("gpu_total_bytes") or gpus[r["gpu"]].total_bytes) * r["tensor_parallel_size"]

    started = [r for r in rows if r.get("fits") and r.get("gpu") in gpus
               and not (gpus[r["gpu"]].one_per_machine and r["tensor_parallel_size"] > 1)]
    started.sort(key=lambda r: (total(r), r["tensor_parallel_size"]))
    out = []
    for r in started:
        mark = " †" if r.get("first_start_refused") else ""
        out.append({"gpu": r["gpu"], "tensor_parallel_size": r["tensor_parallel_size"],
                    "first_start_refused": bool(r.get("first_start_refused")),
                    "title": COLD_RISK_TITLE if r.get("first_start_refused") else None,
                    "cells": [gpus[r["gpu"]].name, str(r["tensor_parallel_size"]), f"{total(r) / GIB:.1f}",
                              tokens_cell(r["kv_cache_tokens"]), concurrency_cell(r["max_concurrency"]) + "×" + mark]})
    totals = "; GiB total: CUDA's totals under WSL2 (nvidia-smi's memory.total), as the plans use" if wsl2 else ""
    cold = "; † starts warm, but a first, compiling start may be refused" if any(r["first_start_refused"] for r in out) else ""
    replaced = f"; {'; '.join(notes)}" if notes else ""
    note = f"({len(out)} of {len(rows)} GPU × TP combinations start, sorted by total memory{totals}{cold}{replaced})"
    # the words of the button under a table cut to its first rows, to show every row and the first again
    return {"rows": out, "note": note, "first_rows": GPU_TABLE_FIRST_ROWS, "show_all": f"show all {len(out)}",
            "show_fewer": "show fewer"}


def concurrency_wants_log_scale(values: Iterable[float]) -> bool:
    """Whether a concurrency axis is drawn log-scale: its positive values span more than 20x (the sweep plot and the
    web page's curve decide alike)."""
    positive = [v for v in values if v > 0]
    return bool(positive) and max(positive) > 20 * min(positive)


def plot_sweep(rows: Sequence[dict], varied: Sequence[str], path: str, band: dict | None = None) -> None:
    """Concurrency against a varied parameter, one line per value of the other: the numeric one (max_model_len, the
    memory utilization) goes on the x axis whichever was varied first, so two flags read as concurrency vs context
    per GPU; concurrency spanning more than 20x is drawn on a log scale."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kvplan.band import band_bounds

    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=120)
    kept = [r for r in rows if not r.get("error_input")]
    varied = sorted(varied, key=lambda v: not all(isinstance(r[v], (int, float)) for r in kept))  # stable: numeric first
    x_name = varied[0]
    series: dict[str, list[dict]] = {}
    for r in kept:
        key = str(r[varied[1]]) if len(varied) > 1 else "concurrency"
        series.setdefault(key, []).append(r)
    numeric = all(isinstance(r[x_name], (int, float)) for s in series.values() for r in s)
    shade = bool(band and band.get("lo") is not None and numeric)
    # one position per category across every line: each line's own 0..n-1 put a line missing a row (a varied value
    # refused as input) under the next category's tick
    categories = list(dict.fromkeys(str(r[x_name]) for s in series.values() for r in s))
    log_y = concurrency_wants_log_scale(r["max_concurrency"] for s in series.values() for r in s)
    import math

    for label, rs in series.items():
        xs = [r[x_name] for r in rs] if numeric else [categories.index(str(r[x_name])) for r in rs]
        # a row with no pool (its weights do not load, no memory left) has no concurrency to draw on a log axis:
        # plotted at 0 its line fell off the axis as a vertical stroke at the neighbouring point; it breaks the line
        # and is marked red at the axis' foot instead
        ys = [r["max_concurrency"] if r["max_concurrency"] > 0 or not log_y else math.nan for r in rs]
        ax.plot(xs, ys, marker="o", label=label)
        if shade:
            bounds = [band_bounds(y, band) for y in ys]
            ax.fill_between(xs, [b[0] for b in bounds], [b[1] for b in bounds], alpha=0.15)
        for r, x, y in zip(rs, xs, ys):
            if not r["fits"] and not math.isnan(y):
                ax.scatter([x], [y], color="red", zorder=3)
            elif not r["fits"]:
                ax.scatter([x], [0.02], color="red", marker="x", zorder=3, transform=ax.get_xaxis_transform(),
                           clip_on=False)
    if not numeric:
        ax.set_xticks(range(len(categories)), categories, rotation=30, ha="right")
    if numeric and x_name == "max_model_len":
        ax.set_xscale("log", base=2)
        ticks = sorted({r[x_name] for s in series.values() for r in s})
        ax.set_xticks(ticks, [f"{t:,}" for t in ticks], rotation=30 if len(ticks) > 6 else 0)
        ax.minorticks_off()
    if log_y:
        ax.set_yscale("log")
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_xlabel({"max_model_len": "max_model_len (tokens)"}.get(x_name, x_name))
    ax.set_ylabel("max concurrency (full-length requests)")
    # what every row shares (the model, the GPU, the length...): the figure pasted alone named none of them, so
    # 'full-length requests' of a sweep over GPUs did not say how long, nor a sweep over lengths on which card
    fixed = []
    for name in ("model", "gpu", "max_model_len", "kv_cache_dtype", "quantization", "tensor_parallel_size"):
        values = {r.get(name) for r in kept}
        if name not in varied and len(values) == 1 and None not in values:
            v = values.pop()
            fixed.append(f"{name} {v:,}" if isinstance(v, int) else str(v) if name in ("model", "gpu") else f"{name} {v}")
    fixed_line = ("\n" + " · ".join(fixed)) if fixed else ""
    shaded = "\nshaded: p10-p90 of the validated residuals" if shade else ""
    shaded = fixed_line + shaded
    ax.set_title("Concurrency vs " + x_name + " (red: does not start" + (", x: no KV pool" if log_y and any(
        r["max_concurrency"] <= 0 for s in series.values() for r in s) else "") + ")" + shaded, fontsize=9 if shaded else None)
    if len(series) > 1:
        ax.legend(title=varied[1], fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def csv_rows(rows: Iterable[dict], columns: Sequence[str]) -> str:
    import csv
    import io

    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(columns), extrasaction="ignore")
    w.writeheader()
    for r in rows:
        w.writerow(r)
    return buf.getvalue()
