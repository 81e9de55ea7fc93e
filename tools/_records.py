"""The startup-record files the tools read, named once (tools/fit_calibration.py, card_terms.py, era_bias.py).

The calibration file is the project's shared one (shared/data/vllm_logs/calibration.jsonl, beside this checkout); a
checkout alone reads its copy, tests/data/calibration.jsonl (tests/test_validate.py keeps the two the same). The extra
and blind files are this checkout's.
"""

from __future__ import annotations

from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]  # this checkout, whatever its folder is called (main, a worktree)
ROOT = CHECKOUT.parent  # the folder holding shared/ and this checkout
# tag -> the file's path under ROOT
RECORD_FILES = {
    "calibration": "shared/data/vllm_logs/calibration.jsonl",
    "extra": f"{CHECKOUT.name}/tests/data/extra_records.jsonl",
    "blind": f"{CHECKOUT.name}/tests/data/blind_records.jsonl",
}


def located(root: Path, name: str) -> Path:
    """root / name, or, for the calibration file where `root` holds no shared/ (a clean checkout of this repository
    alone), this checkout's copy of it, tests/data/calibration.jsonl."""
    path = root / name
    if name == RECORD_FILES["calibration"] and not path.exists():
        return CHECKOUT / "tests" / "data" / "calibration.jsonl"
    return path


def record_files(*tags: str, root: Path = ROOT) -> dict[str, Path]:
    """{tag: path} of the files `tags` name (all three, in RECORD_FILES' order, by default), as `located` finds them."""
    return {tag: located(root, RECORD_FILES[tag]) for tag in tags or RECORD_FILES}
