"""One startup record by id from a record file, and kvplan's plan of it, for tests that check a term on named records."""
from __future__ import annotations

from pathlib import Path

from kvplan.validate import load_records, predict_record

DATA = Path(__file__).parent / "data"


def record(path: Path | str, rid: str) -> dict:
    """The record `rid` of the file at `path` (a name is read under tests/data)."""
    path = Path(path) if Path(path).is_absolute() else DATA / path
    return next(r for r in load_records(path) if r["id"] == rid)


def record_plan(path: Path | str, rid: str):
    """(the record, kvplan's plan of it)."""
    rec = record(path, rid)
    return rec, predict_record(rec)[0]
