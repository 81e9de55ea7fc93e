"""The site calibration file `kvplan reconcile --calibrate` writes (reconcile.store_site_calibration) and every
planning command reads back (api.site_offsets_for): per GPU and model, the mean observed-minus-predicted of the
measured terms.

Its own module so that a plan reads the file without importing `reconcile` (and the log parser it compares logs
with): `kvplan fit` needs the file, not the comparison.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from kvplan.errors import InputError
from kvplan.inputs import read_json_file


def calibration_path() -> Path:
    """$KVPLAN_HOME/calibration.json, else ~/.config/kvplan/calibration.json."""
    home = os.environ.get("KVPLAN_HOME")
    base = Path(home) if home else Path.home() / ".config" / "kvplan"
    return base / "calibration.json"


def load_site_calibration(gpu_name: Optional[str] = None, model_id: Optional[str] = None,
                          path: Optional[Path] = None) -> dict:
    """The stored calibration: all of it, one GPU's, or one (GPU, model) entry ({} when none).

    An entry holds, per measured term, the mean observed-minus-predicted GiB and how many
    startups it came from: {"terms": {"activation_peak_gib": -0.4, ...}, "n": 2, ...}.
    """
    path = path or calibration_path()
    if not path.is_file():
        return {}
    try:
        data = read_json_file(path)
    except (OSError, ValueError) as exc:
        raise InputError("calibration", f"cannot read {path}: {exc}", "delete the file or fix its JSON") from exc
    if not isinstance(data, dict):
        raise InputError("calibration", f"{path} is not a JSON object", "delete the file")
    if gpu_name is None:
        return data
    gpu = data.get(gpu_name, {})
    if model_id is None:
        return gpu
    return gpu.get(model_id, {})
