"""tools/era_bias.py: every start it labels is a >= 0.22 startup of the three record files, and the warm starts it
labels come out near the plan (the finding of the 0.22+ bias audit: the bias is the cold compiles')."""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools"))

import era_bias  # noqa: E402


def test_labels_name_existing_startups_of_known_kinds():
    from kvplan.validate import load_records

    ids = set()
    for path in era_bias.FILES.values():
        if path.exists():
            ids |= {r["id"] for r in load_records(path)}
    if not era_bias.FILES["calibration"].exists():
        pytest.skip("shared calibration records not present")
    assert set(era_bias.KINDS) <= ids
    assert {k for k, _ in era_bias.KINDS.values()} <= {"cold", "warm", "eager"}
    assert all(evidence for _, evidence in era_bias.KINDS.values())


def test_warm_starts_unbiased_cold_starts_high():
    if not era_bias.FILES["calibration"].exists():
        pytest.skip("shared calibration records not present")
    rows = era_bias._rows()
    # the labelled rows all score (rules >= 0.22, a logged pool)
    assert {r.id for _, r, _, _ in rows} >= set(era_bias.KINDS)
    warm = [g for _, r, k, g in rows if k in ("warm", "eager") and "GB10" not in str(r.label.get("gpu", ""))]
    cold = [g for _, r, k, g in rows if k == "cold" and "GB10" not in str(r.label.get("gpu", ""))]
    assert abs(statistics.median(warm)) < 0.1  # GiB
    assert statistics.median(cold) > 0.3


def test_the_tools_read_one_table_of_record_files():
    """card_terms, era_bias and fit_calibration each named the three record files in a table of their own
    (tools/_records.py holds the one they read)."""
    from repo_scripts import load_script

    card_terms = load_script("tools/card_terms.py", "card_terms_table_under_test")
    fit = load_script("tools/fit_calibration.py", "fit_calibration_table_under_test")
    assert era_bias.FILES == card_terms.FILES == dict(fit.GRAPH_FILES) and list(era_bias.FILES) == ["calibration", "extra", "blind"]
    assert [fit.located(fit.ROOT, name) for name in fit.PEAK_FILES] == [era_bias.FILES["calibration"], era_bias.FILES["extra"]]
    assert all(path.exists() for path in era_bias.FILES.values())
