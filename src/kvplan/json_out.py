"""Machine-readable output (`--json`), apart from kvplan.render so that printing JSON never loads rich."""

from __future__ import annotations

import json
from typing import Optional


def plan_json(p, note: Optional[str], band: Optional[dict]) -> dict:
    """`kvplan fit --json` (the web API's /api/plan adds its charts): the plan, the answer to an inverse question
    (`note`), the validated band."""
    d = p.to_dict()
    if note:
        d["inverse"] = note
    if band:
        d["uncertainty"] = band
    return d


def to_json(obj) -> str:
    return json.dumps(obj, indent=2, default=lambda o: o.__dict__ if hasattr(o, "__dict__") else str(o))
