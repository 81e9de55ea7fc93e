"""tools/record_dating.py: the fitting tools' reading of the release a version-less calibration record ran, from its
source (kvplan validate reads only the record's fields: tests/test_validate.py)."""
from __future__ import annotations

import json
import sys
from datetime import date
from pathlib import Path

import pytest

from kvplan.validate import load_records, predict_record
from kvplan.versions import DEFAULT_RELEASE, parse_version
from repo_scripts import REPO, load_script

sys.path.insert(0, str(REPO / "tools"))  # as `python tools/fit_calibration.py` imports it
import record_dating as dating  # noqa: E402

DATA = Path(__file__).parent / "data" / "calibration.jsonl"


@pytest.fixture(scope="module")
def base():
    return next(r for r in load_records(DATA) if r["id"] == "meta-llama-3.1-8b-instruct-l4-u092-tp1")


def _versionless(rec: dict, **observed) -> dict:
    r = json.loads(json.dumps(rec))
    r["vllm_version"] = None
    r["observed"] = {k: None for k in r["observed"]} | {"kv_cache_gib": 10.0, "fits": True} | observed
    return r


SUMMARY_LINE = {"weights_gib": 15.0, "non_torch_gib": 0.13, "activation_peak_gib": 4.8, "cudagraph_gib": 0.1}


def test_issue_dates_and_releases_are_monotone():
    days = [dating.issue_opened(n) for n in range(1000, 57000, 500)]
    assert all(d is not None for d in days) and days == sorted(days)
    assert dating.issue_opened(10**7) is None  # beyond the dated issues nothing is guessed
    releases = [dating.release_on(date(2024, 4, 1) + (date(2026, 11, 1) - date(2024, 4, 1)) * k / 40) for k in range(41)]
    assert dating.release_on(date(2024, 1, 1)) is None  # before the first dated release nothing is guessed
    assert [parse_version(r) for r in releases] == sorted(parse_version(r) for r in releases)
    assert dating.release_on(date(2025, 6, 10)).startswith("0.9.1") and dating.release_on(date(2026, 11, 15)) == "0.33.0"
    assert dating.release_on(date(2026, 11, 16)) == dating.release_on(date(2026, 11, 30)) == "0.34.0"  # PyPI, 2026-11-16


@pytest.mark.parametrize("version, source, observed, want, basis", [
    # no version, no telling figures: the release current when the vLLM issue was opened (#21348: July 2025)
    (None, "https://github.com/vllm-project/vllm/issues/21348", {}, "0.9.2", "issue date"),
    # a source build from main is no release either: #39133 was opened in April 2026
    ("0.1.dev1+gd56e95223", "https://github.com/vllm-project/vllm/issues/39133", {}, "0.19.0", "issue date"),
    # the log format bounds the era (0.10.2-0.26); the issue's date picks the release inside it
    (None, "https://github.com/vllm-project/vllm/issues/39133", SUMMARY_LINE, "0.19.0", "log format and issue date"),
    # ... and a date outside the format's range leaves the format's first release
    (None, "https://github.com/vllm-project/vllm/issues/9802", SUMMARY_LINE, "0.10.2", "log format"),
    # a '# GPU blocks' line alone bounds V0 only from above: an issue of June 2024 names 0.4.3
    (None, "https://github.com/vllm-project/vllm/issues/5248", {"num_gpu_blocks": 1000}, "0.4.3", "log format and issue date"),
    # V0's split line (0.6.5-0.7.3): a source of January 2025 names 0.6.6.post1, one dated in the V1 releases does not
    (None, "https://github.com/vllm-project/vllm/pull/12126",
     {"weights_gib": 15.0, "non_torch_gib": 0.16, "activation_peak_gib": 2.0, "num_gpu_blocks": 5000}, "0.6.6.post1",
     "log format and issue date"),
    (None, "https://github.com/vllm-project/vllm/issues/17000",
     {"weights_gib": 15.0, "non_torch_gib": 0.16, "activation_peak_gib": 2.0, "num_gpu_blocks": 5000}, "0.7.3", "log format"),
    # a source that is not a vLLM issue dates nothing
    (None, "https://example.com/blog/vllm-a100", {}, DEFAULT_RELEASE, "newest"),
    # a stated version stands
    ("0.12.0", "https://github.com/vllm-project/vllm/issues/21348", {}, "0.12.0", "stated"),
])
def test_a_versionless_record_is_fitted_with_the_release_its_source_dates(base, version, source, observed, want, basis):
    rec = _versionless(base, **observed) | {"source": source, "vllm_version": version}
    got = dating.fitting_version(rec, {})
    assert got == (want, basis)
    p, _ = predict_record(rec, version=got)
    assert p.rules.version == want


def test_a_dated_report_names_the_release_its_latest_image_was(base):
    # llm-d's H100 analysis was committed on 2026-01-26 (git log of llm-d/llm-d-benchmark) and ran
    # vllm/vllm-openai:latest: within its summary line's range (0.10.2-0.26) that is 0.14.1, the release of 2026-01-24
    url = "https://github.com/llm-d/llm-d-benchmark/blob/259334868c50/config_explorer/empirical-vllm-memory-results.md"
    d = dating.source_date(url)
    assert d.release == "0.14.1" and "llm-d-benchmark commit" in d.describe()
    assert dating.source_date("https://github.com/llm-d/llm-d-benchmark/blob/0000000/other.md") is None  # another commit
    rec = _versionless(base, **SUMMARY_LINE) | {"source": url}
    assert dating.fitting_version(rec, {}) == ("0.14.1", "log format and issue date")


def test_a_versionless_record_is_fitted_with_the_version_its_sources_other_startups_ran(base):
    source = "https://example.org/one-report-of-several-runs.md"
    dated = dict(json.loads(json.dumps(base)), id="a", source=source, vllm_version="0.12.0")
    bare = _versionless(base) | {"id": "b", "source": source}
    alone = _versionless(base) | {"id": "c", "source": "https://example.org/another-report.md"}
    siblings = dating.sibling_versions([dated, bare, alone])
    assert siblings == {source: ("0.12.0", 1)}
    assert dating.fitting_version(bare, siblings) == ("0.12.0", "same source")
    assert dating.fitting_version(alone, siblings) == (DEFAULT_RELEASE, "newest")  # nothing to borrow from
    reader = dating.version_reader([dated, bare, alone])  # the same, as validate_records(version_of=...) takes it
    assert reader(bare) == ("0.12.0", "same source") and reader(alone) == (DEFAULT_RELEASE, "newest")


def test_the_fit_keeps_guessed_versions_out_and_plans_dated_ones_with_their_release():
    # tools/fit_calibration.py plans each record with the release its source dates and keeps an "issue date" or
    # "same source" version out of the fit; the calibration file holds both kinds
    fc = load_script("tools/fit_calibration.py", "fit_calibration_dating")
    rows = {r["id"]: r for r in fc.rows(load_records(DATA))}
    assert rows["qwen3-235b-a22b-fp8-h100-udef-tp4"]["why_not_fitted"] == "version inferred from the date of its vLLM issue"
    assert rows["qwen3-235b-a22b-fp8-h100-udef-tp4"]["era"] != rows["qwen3.6-27b-autoround-int4-rtx3090-u088-tp2"]["era"]
    assert rows["llama-3.1-8b-instruct-rtx3090-u090-tpx"]["why_not_fitted"] is None  # log format and issue date: fitted
