"""Load one of the repository's scripts (tools/, bench/) as a module, for tests of what it computes."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]


def load_script(relative_path: str, name: str | None = None) -> ModuleType:
    """The script at `relative_path` (from the repository root), executed as a module named `name`."""
    path = REPO / relative_path
    if str(path.parent) not in sys.path:  # its folder's modules importable, as `python tools/x.py` makes them
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(name or path.stem + "_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def source_dated_version(rec: dict) -> tuple[str, str]:
    """(release, basis) the fitting tools plan a record with (tools/record_dating.py: a version-less record's source
    dates it), for tests of a rule on the release a startup ran; `kvplan validate` plans such a record from its fields
    alone."""
    tools = str(REPO / "tools")
    if tools not in sys.path:
        sys.path.insert(0, tools)
    import record_dating

    return record_dating.fitting_version(rec, {})
