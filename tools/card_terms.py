"""Whether two fitted terms of the memory plan depend on the card: the tables behind the answer (no term is fitted here).

    PYTHONPATH=src python tools/card_terms.py

(a) V1's non-torch constant of 0.18-0.19 (calibration.py COEFFICIENTS["V1-d"], 0.20 GiB, carried over to >= 0.20).
    Prints every startup of the three record files that logs its non-torch memory (observed.non_torch_gib), by release
    and card, the non-torch lines of log_excerpts.jsonl, and, for the 0.18-0.19 startups and the T4 startups of every
    V1 release, what the budget leaves beyond kvplan's terms (implied - modelled, as tools/fit_calibration.py computes
    it; the blind file scored only). A card term would need startups of >= 2 cards, several each, that log the figure
    in one release group, and the same card to keep its residual across releases.
(b) The integrated-memory term (GB10, Jetson: 2.15 GiB before 0.20, 4.0 GiB from 0.20). Prints what each integrated
    startup implies beyond its era's other terms, its weights and budget, and how its release measures free memory
    (vLLM's MemorySnapshot.measure: cudaMemGetInfo's free memory in the 0.10.2 and 0.11.0 wheels, utils/__init__.py;
    psutil's available memory on compute capability 8.7 / 11.0 / 12.1 (Orin, Thor, Spark) in the 0.11.1-0.19.1 wheels,
    utils/mem_utils.py; on every device whose torch properties say is_integrated from 0.20.0, platforms/cuda.py
    is_integrated_gpu). A term that grew with the checkpoint (page cache of the weights' files) would show as a positive
    slope of the excess on the weights where free memory is cudaMemGetInfo's, and none where it is the OS's available
    memory, which counts reclaimable page cache as free. Grouped by that measure instead of by era, the term would be
    the median of 9 OS-available startups (3.05 GiB): the 0.13 GB10 pair implies 1.8-1.9 GiB and the 0.25.1 starts
    2.9-4.0, so one term per measure fits calibration + extra worse (KV p90 30.9 -> 33.6 %, 11.9 -> 12.5 %) and the
    blind GB10 starts no better; calibration.py keeps the era groups.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import warnings
from pathlib import Path

warnings.simplefilter("ignore")

from _records import record_files  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
FILES = record_files()
EXCERPTS = REPO.parent / "shared" / "data" / "vllm_logs" / "log_excerpts.jsonl"
# records kept out of (b)'s fit, as out of the 4.0 GiB term's reading: architecture stand-ins of a 2-node TP2 start
# whose pool is paraphrased by the reporter (calibration.jsonl notes), 13.6-13.7 GiB above every other GB10 start
INTEGRATED_LEFT_OUT = ("minimax-m2.7-awq-gb10-u080-tp2", "minimax-m2.7-awq-gb10-u085-tp2")


def _fit_tools():
    sys.path.insert(0, str(REPO / "src"))
    sys.path.insert(0, str(REPO / "tools"))
    import fit_calibration

    return fit_calibration


def _files():
    return {tag: path for tag, path in FILES.items() if path.exists()}


def logged_non_torch() -> list[dict]:
    """Every record of the three files that logs its non-torch memory and that kvplan plans."""
    fc = _fit_tools()
    out = []
    for tag, path in _files().items():
        records = fc.load_records(path)
        for rec, p in fc.planned_logging(records, "non_torch_gib"):
            args = rec["args"]
            out.append({"file": tag, "id": rec["id"], "card": rec["gpu"].get("name"), "release": p.rules.version,
                        "era": p.era, "tp": args.get("tensor_parallel_size") or 1, "eager": args.get("enforce_eager"),
                        "logged": rec["observed"]["non_torch_gib"], "charged": p.non_torch_bytes / fc.GIB})
    return out


def excerpt_non_torch() -> list[tuple[str, str, float]]:
    """(release, card, GiB) of every non-torch figure log_excerpts.jsonl quotes."""
    pattern = re.compile(r"non_torch_memory(?: takes |=)([0-9.]+)\s*GiB|([0-9.]+) GiB for non-tor")
    out = []
    if not EXCERPTS.exists():
        return out
    for line in EXCERPTS.read_text().splitlines():
        r = json.loads(line)
        for text in r["lines"]:
            m = pattern.search(text)
            if m:
                out.append((str(r["vllm_version"]), str(r["gpu_name"]), float(m.group(1) or m.group(2))))
    return out


def budget_residuals(keep) -> list[dict]:
    """implied - modelled (GiB) of every pooled record the test `keep(row, record)` keeps, with the era's current
    coefficients, as tools/fit_calibration.py computes both."""
    fc = _fit_tools()
    from kvplan.calibration import coefficients_for

    out = []
    for tag, path in _files().items():
        records = {r["id"]: r for r in fc.load_records(path)}
        for r in fc.rows(records.values()):
            rec = records[r["id"]]
            if not keep(r, rec):
                continue
            c = coefficients_for(r["era"])
            implied = r["implied"] - (c.n_nvlink_tp if r["f"].nvlink_tp else 0.0)
            modelled = fc.model(r, c.a_sampler, c.n_const, c.n_tp, c.n_integrated, c.g_const, c.g_per_layer_size, c.n_nvls)
            out.append({"file": tag, "id": r["id"], "card": rec["gpu"].get("name"), "era": r["era"],
                        "release": rec.get("vllm_version"), "tp_gt_1": r["f"].tp_gt_1, "eager": rec["args"].get("enforce_eager"),
                        "residual": (implied - modelled) / fc.GIB, "n_integrated": c.n_integrated / fc.GIB,
                        "requested": r["requested"] / fc.GIB, "weights": rec["observed"].get("weights_gib"),
                        "kv": rec["observed"]["kv_cache_gib"]})
    return out


def free_memory_measure(release: str | None) -> str:
    """How the release measures free memory on an integrated GPU (see the module's docstring)."""
    from kvplan.versions import parse_version

    v = parse_version(release) if release else None
    if v is None or v >= (0, 20, 0):
        return "psutil available (is_integrated)"
    if v >= (0, 11, 1):
        return "psutil available (cc 8.7/11.0/12.1)"
    return "cudaMemGetInfo free"


def integrated_excess() -> list[dict]:
    """Each integrated-memory startup's excess beyond its era's other terms: its residual plus the term it is charged."""
    rows = budget_residuals(lambda r, rec: r["f"].integrated_memory)
    for row in rows:
        row["excess"] = row["residual"] + row["n_integrated"]
        row["measure"] = free_memory_measure(row["release"])
    return rows


def l1_line(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """(a, b) of the least-absolute-deviation line y = a + b x (b on a 0.001 grid)."""
    best = None
    for b in (i / 1000 for i in range(-300, 301)):
        a = statistics.median(y - b * x for x, y in zip(xs, ys))
        loss = sum(abs(y - a - b * x) for x, y in zip(xs, ys))
        if best is None or loss < best[0]:
            best = (loss, a, b)
    return best[1], best[2]


def main() -> None:
    print("## (a) logged non-torch memory, by release and card (single rank unless tp says otherwise)")
    for r in sorted(logged_non_torch(), key=lambda r: (r["era"], str(r["release"]), str(r["card"]))):
        print(f"   {r['file']:11} {r['release']:>12} {r['era']:5} {str(r['card'])[:28]:28} tp {r['tp']} eager {str(r['eager']):5}"
              f" logged {r['logged']:5.2f}  charged {r['charged']:5.2f} GiB  {r['id'][:60]}")
    print("   log_excerpts.jsonl: " + "; ".join(f"{v} {c[:24]} {g:.2f}" for v, c, g in excerpt_non_torch()))
    print("\n## (a) 0.18-0.19 (V1-d) budget residuals by card, and every V1 T4 startup (implied - modelled, GiB)")
    rows = budget_residuals(lambda r, rec: r["era"] == "V1-d" or ("T4" in str(rec["gpu"].get("name")) and r["era"].startswith("V1")))
    by_card: dict[tuple[str, str], list[float]] = {}
    for r in rows:
        by_card.setdefault((str(r["card"]), "0.18-0.19" if r["era"] == "V1-d" else "other V1"), []).append(r["residual"])
    for (card, group), vals in sorted(by_card.items()):
        print(f"   {card[:30]:30} {group:9} n {len(vals):2}  median {statistics.median(vals):+.2f}  "
              + " ".join(f"{v:+.2f}" for v in sorted(vals)))
    print("\n## (b) integrated-memory startups: excess beyond the era's other terms (GiB)")
    rows = integrated_excess()
    for r in sorted(rows, key=lambda r: (r["measure"], str(r["release"]))):
        w = f"{r['weights']:6.2f}" if r["weights"] else "     -"
        print(f"   {r['file']:11} {str(r['release'])[:14]:14} {r['measure']:34} weights {w} requested {r['requested']:6.1f}"
              f" excess {r['excess']:+6.2f} (charged {r['n_integrated']:.2f}; residual {100 * r['residual'] / r['kv']:+6.2f} % of the logged pool)"
              f"  {r['id'][:50]}")
    for measure in ("cudaMemGetInfo", "psutil available"):
        fit = [r for r in rows if r["file"] != "blind" and r["measure"].startswith(measure) and r["weights"]
               and r["id"] not in INTEGRATED_LEFT_OUT]
        if len(fit) >= 3:
            for name in ("weights", "requested"):
                if max(r[name] for r in fit) - min(r[name] for r in fit) < 20:
                    continue  # too narrow a spread for a slope (the 0.25.1 GB10 startups all request 103-108 GiB)
                a, b = l1_line([r[name] for r in fit], [r["excess"] for r in fit])
                print(f"   {measure}: excess = {a:.2f} {b:+.3f} x {name} GiB over {len(fit)} startups (calibration + extra)")


if __name__ == "__main__":
    main()
