"""Speed of `kvplan fit` and `kvplan sweep` (prints figures; not a timed test).

    python bench/bench_fit.py

Goals (issue 2): `kvplan fit` on a catalog model under 0.5 s wall (the process included: never import
torch, import transformers only when needed); a 1,000-point sweep under 2 s.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time


def fit_wall_s(runs: int = 7) -> list[float]:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(["kvplan", "fit", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4", "--max-model-len", "16384", "--json"],
                       check=False, capture_output=True)
        times.append(time.perf_counter() - t)
    return times


def sweep_1000_s() -> float:
    from kvplan.cli import FitFlags
    from kvplan.cli.fit import sweep_rows

    lengths = list(range(1024, 1024 + 1000 * 128, 128))
    t = time.perf_counter()
    rows = sweep_rows("meta-llama/Llama-3.1-8B-Instruct", FitFlags(gpu="A100-80GB"), [("max_model_len", lengths)])
    elapsed = time.perf_counter() - t
    assert len(rows) == 1000
    return elapsed


def main() -> None:
    walls = fit_wall_s()
    print(f"kvplan fit (catalog model, whole process): median {statistics.median(walls):.3f} s, "
          f"min {min(walls):.3f} s, max {max(walls):.3f} s over {len(walls)} runs  (goal < 0.5 s)")
    t = time.perf_counter()
    import kvplan  # noqa: F401

    print(f"import kvplan: {time.perf_counter() - t:.3f} s; torch imported: {'torch' in sys.modules}; "
          f"transformers imported: {'transformers' in sys.modules}")
    s = sweep_1000_s()
    print(f"1,000-point sweep (max_model_len 1024..128896): {s:.3f} s  (goal < 2 s)")


if __name__ == "__main__":
    main()
