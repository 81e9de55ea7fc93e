"""Server-rendered SVG charts for the page: the memory-budget bar and the concurrency curve.

Pure string building, no arithmetic about vLLM: the bar draws `render.budget_segments(plan)`,
the curve draws the rows of `api.sweep_rows` (one plan per max_model_len) and marks the
chosen plan. Every shape carries a <title> (the browser's hover tooltip) and data-* attributes
with the exact numbers, so tests and scripts can read them back.
"""

from __future__ import annotations

import math
from html import escape
from typing import Sequence

from kvplan.render import budget_segments, concurrency_wants_log_scale
from kvplan.resolve import GB, GIB
from kvplan.band import band_bounds

SEGMENT_COLOURS = {  # the same order and hues as render.SEGMENTS (the terminal bar)
    "weights": "#b45cc8",
    "activation": "#e0b000",
    "non-torch": "#2aa8c4",
    "CUDA graphs": "#4a6fd8",
    "KV pool": "#3aa655",
    "headroom": "#9a9a9a",
}
FONT = "font-family='system-ui, sans-serif'"


def _attr(value) -> str:
    return escape(str(value), quote=True)


def _size(num_bytes: float, simple: bool) -> str:
    scale, unit = (GB, "GB") if simple else (GIB, "GiB")
    return f"{num_bytes / scale:,.2f} {unit}"


def budget_bar_svg(plan, width_px: int = 760, bar_height_px: int = 44) -> str:
    """The memory budget per rank as one stacked bar (weights ... KV pool, headroom) plus a legend."""
    segments = budget_segments(plan)
    simple = plan.mode == "simple"
    total_bytes = sum(b for _, b in segments) or 1.0
    pad_px, top_px = 8, 22
    inner_px = width_px - 2 * pad_px
    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' class='budget-bar' viewBox='0 0 {width_px} {top_px + bar_height_px + 58}' "
             f"width='100%' role='img' aria-label='memory budget' data-total-bytes='{plan.total_bytes}'>",
             f"<text x='{pad_px}' y='15' {FONT} font-size='12' fill='currentColor'>"
             f"{_attr(plan.gpu.name)}: {_size(plan.total_bytes, simple)} per rank; budget "
             f"{_size(plan.requested_bytes, simple)} = total x {plan.args.gpu_memory_utilization}</text>"]
    x_px = float(pad_px)
    for label, seg_bytes in segments:
        w_px = inner_px * seg_bytes / total_bytes
        share = 100.0 * seg_bytes / total_bytes
        colour = SEGMENT_COLOURS[label]
        parts.append(f"<rect class='seg' data-segment='{_attr(label)}' data-bytes='{seg_bytes:.0f}' x='{x_px:.2f}' y='{top_px}' "
                     f"width='{max(w_px, 0):.2f}' height='{bar_height_px}' fill='{colour}'>"
                     f"<title>{_attr(label)}: {_size(seg_bytes, simple)} ({share:.1f}%)</title></rect>")
        if w_px > 70:
            parts.append(f"<text x='{x_px + w_px / 2:.1f}' y='{top_px + bar_height_px / 2 + 4:.1f}' text-anchor='middle' {FONT} "
                         f"font-size='11' fill='#fff' pointer-events='none'>{_attr(label)} {_size(seg_bytes, simple)}</text>")
        x_px += w_px
    budget_x_px = pad_px + inner_px * plan.requested_bytes / total_bytes
    parts.append(f"<line x1='{budget_x_px:.2f}' x2='{budget_x_px:.2f}' y1='{top_px - 4}' y2='{top_px + bar_height_px + 4}' "
                 f"stroke='currentColor' stroke-dasharray='3 2'><title>gpu_memory_utilization limit: "
                 f"{_size(plan.requested_bytes, simple)}</title></line>")
    legend_y = top_px + bar_height_px + 22
    for i, (label, seg_bytes) in enumerate(segments):
        lx = pad_px + (i % 3) * (inner_px / 3)
        ly = legend_y + (i // 3) * 18
        parts.append(f"<rect x='{lx:.1f}' y='{ly - 10}' width='11' height='11' fill='{SEGMENT_COLOURS[label]}'/>"
                     f"<text x='{lx + 16:.1f}' y='{ly}' {FONT} font-size='12' fill='currentColor'>"
                     f"{_attr(label)} {_size(seg_bytes, simple)}</text>")
    parts.append("</svg>")
    return "".join(parts)


def _log2_ticks(lo: float, hi: float) -> list[int]:
    return [2 ** k for k in range(int(math.floor(math.log2(lo))), int(math.ceil(math.log2(hi))) + 1)]


def _short_tokens(n: int) -> str:
    return f"{n // 1024}k" if n >= 1024 and n % 1024 == 0 else f"{n:,}"


def concurrency_curve_svg(rows: Sequence[dict], chosen_max_model_len: int, chosen_concurrency: float,
                          chosen_fits: bool, band: dict | None = None, width_px: int = 760, height_px: int = 320) -> str:
    """Concurrency (full-length requests that fit) against max_model_len on a log2 axis; concurrency on a log axis
    when it spans more than 20x (as `kvplan sweep --plot` draws it), else linear from 0.

    `rows`: sweep rows with max_model_len, max_concurrency, fits. `band`: the validated relative
    uncertainty {"lo": -0.05, "hi": 0.03, "text": ...}, drawn around the curve when given."""
    if band and (band.get("lo") is None or band.get("hi") is None):
        band = None  # outside what was validated: no band to draw (the page shows band["text"])
    points = sorted((int(r["max_model_len"]), float(r["max_concurrency"]), bool(r["fits"]))
                    for r in rows if not r.get("error_input"))
    if not points:
        return "<svg xmlns='http://www.w3.org/2000/svg' class='concurrency-curve' viewBox='0 0 760 40'><text x='8' y='24'>no curve</text></svg>"
    left, right, top, bottom = 58, 18, 26, 44
    plot_w, plot_h = width_px - left - right, height_px - top - bottom
    x_lo, x_hi = min(p[0] for p in points), max(p[0] for p in points)
    x_lo, x_hi = min(x_lo, chosen_max_model_len), max(x_hi, chosen_max_model_len)
    y_top = max(max(p[1] for p in points), chosen_concurrency, 1.0)
    y_hi = (band_bounds(y_top, band)[1] if band else y_top) * 1.08
    lx_lo, lx_hi = math.log2(x_lo), math.log2(x_hi) if x_hi > x_lo else math.log2(x_lo) + 1
    positive = [y for y in [p[1] for p in points] + [chosen_concurrency] if y > 0]
    log_y = concurrency_wants_log_scale(positive)
    if log_y:  # from the decade below the smallest value (a point at 0 sits on the axis)
        y_lo = 10 ** math.floor(math.log10(min(min(positive), 1.0) * (band_bounds(1.0, band)[0] if band else 1.0) * 0.95))
        ly_lo, ly_hi = math.log10(y_lo), math.log10(y_hi) + 0.08  # the same headroom as the linear axis, in decades
        y_ticks = [10.0 ** k for k in range(int(ly_lo), int(math.floor(ly_hi)) + 1)]
    else:
        y_ticks = [y_hi * frac for frac in (0, 0.25, 0.5, 0.75, 1.0)]

    def px(x: float) -> float:
        return left + plot_w * (math.log2(x) - lx_lo) / (lx_hi - lx_lo)

    def py(y: float) -> float:
        if log_y:
            return top + plot_h * (1 - (math.log10(max(y, y_lo)) - ly_lo) / (ly_hi - ly_lo))
        return top + plot_h * (1 - y / y_hi)

    out = [f"<svg xmlns='http://www.w3.org/2000/svg' class='concurrency-curve' viewBox='0 0 {width_px} {height_px}' width='100%' "
           f"role='img' aria-label='concurrency against max_model_len' data-chosen-max-model-len='{chosen_max_model_len}' "
           f"data-chosen-concurrency='{chosen_concurrency!r}'>",
           f"<text x='{left}' y='16' {FONT} font-size='12' fill='currentColor'>concurrency (full-length requests{', log scale' if log_y else ''}) vs max_model_len"
           f"{' (shaded: validated uncertainty)' if band else ''}; red: does not start</text>"]
    for tick in _log2_ticks(x_lo, x_hi):
        if x_lo <= tick <= x_hi:
            out.append(f"<line x1='{px(tick):.1f}' x2='{px(tick):.1f}' y1='{top}' y2='{top + plot_h}' stroke='#8884'/>"
                       f"<text x='{px(tick):.1f}' y='{top + plot_h + 16}' text-anchor='middle' {FONT} font-size='11' "
                       f"fill='currentColor'>{_short_tokens(tick)}</text>")
    for y in y_ticks:
        out.append(f"<line x1='{left}' x2='{left + plot_w}' y1='{py(y):.1f}' y2='{py(y):.1f}' stroke='#8883'/>"
                   f"<text x='{left - 6}' y='{py(y) + 4:.1f}' text-anchor='end' {FONT} font-size='11' fill='currentColor'>{format(y, 'g' if log_y else ',.1f')}</text>")
    out.append(f"<line x1='{left}' x2='{left + plot_w}' y1='{py(1):.1f}' y2='{py(1):.1f}' stroke='currentColor' stroke-dasharray='4 3'>"
               f"<title>1 full-length request</title></line>")
    out.append(f"<text x='{left + plot_w / 2}' y='{height_px - 6}' text-anchor='middle' {FONT} font-size='12' fill='currentColor'>"
               f"max_model_len (tokens, log scale)</text>")
    if band:
        upper = [(px(x), py(band_bounds(y, band)[1])) for x, y, _ in points]
        lower = [(px(x), py(max(0.0, band_bounds(y, band)[0]))) for x, y, _ in reversed(points)]  # py clamps log-y
        poly = " ".join(f"{a:.1f},{b:.1f}" for a, b in upper + lower)
        out.append(f"<polygon class='band' points='{poly}' fill='#3aa65533'><title>{_attr(band.get('text', 'uncertainty'))}</title></polygon>")
    path = " ".join(f"{'M' if i == 0 else 'L'}{px(x):.1f},{py(y):.1f}" for i, (x, y, _) in enumerate(points))
    out.append(f"<path d='{path}' fill='none' stroke='#3aa655' stroke-width='2'/>")
    for x, y, fits in points:
        out.append(f"<circle class='pt' data-max-model-len='{x}' data-concurrency='{y!r}' cx='{px(x):.1f}' cy='{py(y):.1f}' r='3.5' "
                   f"fill='{'#3aa655' if fits else '#d33'}'><title>max_model_len {x:,}: {y:,.2f}x"
                   f"{'' if fits else ' (does not start)'}</title></circle>")
    cx, cy = px(chosen_max_model_len), py(chosen_concurrency)
    colour = "#111" if chosen_fits else "#d33"
    anchor = "end" if cx > left + plot_w * 0.7 else "start"
    dx = -10 if anchor == "end" else 10
    out.append(f"<circle class='chosen' cx='{cx:.1f}' cy='{cy:.1f}' r='7' fill='none' stroke='{colour}' stroke-width='2.5'>"
               f"<title>chosen: max_model_len {chosen_max_model_len:,} -> {chosen_concurrency:,.2f}x</title></circle>"
               f"<text x='{cx + dx:.1f}' y='{cy - 10:.1f}' text-anchor='{anchor}' {FONT} font-size='12' font-weight='bold' fill='{colour}'>"
               f"{_short_tokens(chosen_max_model_len)}: {chosen_concurrency:,.2f}x</text>")
    out.append("</svg>")
    return "".join(out)
