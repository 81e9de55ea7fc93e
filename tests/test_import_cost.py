"""What a `kvplan fit` process imports (bench/bench_fit.py times the process; this pins what it loads): the plan, its
band (kvplan.band) and the site calibration file (kvplan.site_calibration), never the log parser, the record scorer
or another command's library."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

# runs the command line as the `kvplan` script does, then writes the names of the modules the process holds
PROBE = """import json, sys
from kvplan.cli import main
out, sys.argv = sys.argv[1], ["kvplan", *sys.argv[2:]]
try:
    main()
except SystemExit:
    pass
with open(out, "w") as fh:
    json.dump(sorted(sys.modules), fh)
"""

# what only another command needs: logs (reconcile, diagnose, validate), the scorer, the simulator, the scaffold,
# the web page, and the heavy libraries some commands import inside their functions
NOT_FOR_FIT = ("kvplan.logs", "kvplan.validate", "kvplan.reconcile", "kvplan.diagnose", "kvplan.simulate",
               "kvplan.workload", "kvplan.deploy", "kvplan.preflight", "kvplan.web", "matplotlib", "fastapi", "uvicorn",
               "transformers", "torch", "numpy", "huggingface_hub")


def modules_of(tmp_path: Path, *args: str) -> set[str]:
    out = tmp_path / "modules.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
           "KVPLAN_HOME": str(tmp_path)}
    subprocess.run([sys.executable, "-c", PROBE, str(out), *args], env=env, capture_output=True, timeout=120, check=False)
    return set(json.loads(out.read_text()))


def test_kvplan_fit_loads_the_plan_and_its_band_and_nothing_of_the_other_commands(tmp_path):
    for args in (("--json",), ()):
        mods = modules_of(tmp_path, "fit", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4", "--max-model-len", "16384",
                          *args)
        assert {"kvplan.plan", "kvplan.band", "kvplan.site_calibration"} <= mods, args  # it planned and banded
        assert not {m for m in mods if m.split(".")[0] in NOT_FOR_FIT or m in NOT_FOR_FIT}, args


def test_validate_still_offers_the_band_and_reconcile_the_site_calibration():
    """Moved out so that fit reads them alone; the names stay where callers and tests import them from."""
    from kvplan import band, reconcile, site_calibration, validate

    assert validate.uncertainty_band is band.uncertainty_band and validate.band_bounds is band.band_bounds
    assert reconcile.load_site_calibration is site_calibration.load_site_calibration
    assert reconcile.calibration_path is site_calibration.calibration_path
