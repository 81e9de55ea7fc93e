"""How often the validated band `kvplan fit` prints holds what vLLM logged.

For every record of a startup-record file that logs its KV pool and that kvplan plans, the plan's p10-p90 band
(band.uncertainty_band, built from the residuals of the plan's family and era over calibration.jsonl and
tests/data/extra_records.jsonl) is compared with the logged pool. A p10-p90 band that describes the error honestly
holds about 80 % of them; the blind records are the ones it was not built from. The band's width (as a share of the
predicted pool) says how much it tells: a band that holds 80 % by being wide says little.

    python bench/band_coverage.py            # calibration, the out-of-sample records, the blind records
    python bench/band_coverage.py FILE ...   # any record files
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from kvplan.errors import KvplanError  # noqa: E402
from kvplan.band import uncertainty_band  # noqa: E402
from kvplan.validate import GIB, load_records, predict_record  # noqa: E402

# a pool printed to 2 decimals is within half a hundredth of a GiB of the real one
PRINT_TOLERANCE_GIB = 0.005


def coverage(path: str, widths: list[float] | None = None) -> tuple[int, int, list[tuple[str, float, float, float, float]]]:
    """(inside, banded, outside rows: id, predicted, logged, low, high) for one record file, each record planned as
    `kvplan validate` plans it (from the record's fields alone); `widths`, where given,
    gathers each band's width as % of its predicted pool."""
    inside, banded, outside = 0, 0, []
    for rec in load_records(path):
        logged = (rec.get("observed") or {}).get("kv_cache_gib")
        if logged is None:
            continue
        try:
            plan, _ = predict_record(rec)
        except KvplanError:
            continue
        band = uncertainty_band(plan)
        if not band or band.get("kv_cache_gib") is None:
            continue
        low, high = band["kv_cache_gib"]
        banded += 1
        if widths is not None and plan.kv_cache_bytes > 0:
            widths.append((high - low) / (plan.kv_cache_bytes / GIB) * 100)
        if low - PRINT_TOLERANCE_GIB <= logged <= high + PRINT_TOLERANCE_GIB:
            inside += 1
        else:
            outside.append((rec["id"], plan.kv_cache_bytes / GIB, logged, low, high))
    return inside, banded, outside


def main(argv: list[str]) -> None:
    if argv:
        files = [(Path(a).name, a) for a in argv]
    else:
        from fit_calibration import PEAK_FILES, located
        from readme_accuracy import blind_records

        files = [("calibration", str(located(ROOT.parent, PEAK_FILES[0]))),
                 ("out of sample", blind_records()[0]),
                 ("blind", str(ROOT / "tests/data/blind_records.jsonl"))]
    for name, path in files:
        if not Path(path).exists():
            print(f"{name}: {path} not found")
            continue
        widths: list[float] = []
        inside, banded, outside = coverage(path, widths)
        share = f"{inside / banded:.0%}" if banded else "-"
        width = f", median width {statistics.median(widths):.1f} % of the pool" if widths else ""
        print(f"{name}: {inside} of {banded} logged pools inside their band ({share}){width}")
        for rid, predicted, logged, low, high in outside:
            print(f"    {rid}: logged {logged:.2f} GiB, predicted {predicted:.2f}, band {low:.2f}-{high:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
