"""Speed of `kvplan fit` and `kvplan sweep` (prints figures; not a timed test).

    python bench/bench_fit.py

Goals (issue 2): `kvplan fit` on a catalog model under 0.5 s wall (the process included: never import
torch, import transformers only when needed); a 1,000-point sweep under 2 s.

The subprocesses inherit the environment, PYTHONPATH included: `PYTHONPATH=$PWD/src python bench/bench_fit.py` times
that tree. `kvplan` is timed as found on PATH (a version manager's shim, such as pyenv's, adds its own start-up) and as
the same entry point run by this Python (`python -m kvplan.cli`), which is kvplan's own share; the import line is a
fresh process's `import kvplan.cli` (the package, its command modules, Typer and Rich).
"""

from __future__ import annotations

import compileall
import importlib.util
import os
import statistics
import subprocess
import sys
import time


FIT_ARGS = ["fit", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4", "--max-model-len", "16384", "--json"]


def write_bytecode() -> str:
    """Write the timed kvplan's .pyc files before timing it, as installing it does. Where PYTHONDONTWRITEBYTECODE is set
    Python never writes them, and each timed process compiled kvplan's source again (about 0.3 s of CPU on this machine
    for `kvplan fit`), a cost an installed kvplan never pays. Files already up to date are left as they are."""
    package = os.path.dirname(importlib.util.find_spec("kvplan").origin)
    compileall.compile_dir(package, quiet=1)
    return package


def fit_wall_s(runs: int = 7, command: tuple[str, ...] = ("kvplan",)) -> list[float]:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([*command, *FIT_ARGS], check=False, capture_output=True)
        times.append(time.perf_counter() - t)
    return times


def cli_import_s(runs: int = 7) -> list[float]:
    """`import kvplan.cli` in a fresh process, as the process itself times it."""
    code = "import time; t = time.perf_counter(); import kvplan.cli; print(time.perf_counter() - t)"
    return [float(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout)
            for _ in range(runs)]


def sweep_1000_s() -> float:
    from kvplan.api import FitFlags, sweep_rows

    lengths = list(range(1024, 1024 + 1000 * 128, 128))
    t = time.perf_counter()
    rows = sweep_rows("meta-llama/Llama-3.1-8B-Instruct", FitFlags(gpu="A100-80GB"), [("max_model_len", lengths)])
    elapsed = time.perf_counter() - t
    assert len(rows) == 1000
    return elapsed


def main() -> None:
    print(f"kvplan timed from {write_bytecode()} (its .pyc files written first)")
    walls = fit_wall_s()
    print(f"kvplan fit (catalog model, whole process): median {statistics.median(walls):.3f} s, "
          f"min {min(walls):.3f} s, max {max(walls):.3f} s over {len(walls)} runs  (goal < 0.5 s)")
    direct = fit_wall_s(command=(sys.executable, "-m", "kvplan.cli"))
    print(f"  the same, python -m kvplan.cli (no launcher shim): median {statistics.median(direct):.3f} s, "
          f"min {min(direct):.3f} s")
    imports = cli_import_s()
    print(f"  import kvplan.cli in a fresh process: median {statistics.median(imports):.3f} s, min {min(imports):.3f} s")
    t = time.perf_counter()
    import kvplan  # noqa: F401

    print(f"import kvplan: {time.perf_counter() - t:.3f} s; torch imported: {'torch' in sys.modules}; "
          f"transformers imported: {'transformers' in sys.modules}")
    s = sweep_1000_s()
    print(f"1,000-point sweep (max_model_len 1024..128896): {s:.3f} s  (goal < 2 s)")


if __name__ == "__main__":
    main()
