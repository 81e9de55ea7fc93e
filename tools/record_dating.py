"""What a startup record's source says about the vLLM release it ran, for fitting only.

`kvplan validate` plans a record from its fields alone: a record without a version takes the era its log format
identifies, else the newest rules (docs/startup-record-format.md: "nothing in the tool may depend on a record's id or
source"). Fitting is another matter: tools/fit_calibration.py learns each era's terms from the startups of that era,
and a calibration record whose log prints no version still ran one release, which its source often dates. This module
is that reading, done by the fitting tools and never by kvplan:

- a record from a vLLM issue (or pull request, discussion) ran the release current when the issue was opened
  (data/vllm_release_dates.json: PyPI upload dates and dated issues, each with its public source), inside the range
  its log format allows;
- a report committed with vLLM's latest image ran the release current on the commit's day (`source_anchors`);
- runs of one document share a setup: a record that says nothing takes the version its siblings state.

The fit plans such records with the version so read ("log format and issue date" records are fitted; "issue date"
and "same source" ones are scored but kept out of the fit, tools/fit_calibration.py `_not_fitted`).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache
from pathlib import Path

from kvplan.errors import KvplanError
from kvplan.validate import log_format_era, version_basis
from kvplan.versions import parse_version

DATES_FILE = Path(__file__).resolve().parent / "data" / "vllm_release_dates.json"
_VLLM_REFERENCE = re.compile(r"github\.com/vllm-project/vllm/(?:issues|pull|discussions)/(\d+)", re.IGNORECASE)


@dataclass(frozen=True)
class SourceDate:
    """A vLLM issue (or PR, discussion) a record comes from, or another dated source (a commit of a report that ran
    vLLM's latest image), its date and the newest release then."""

    number: int
    day: date
    release: str
    what: str = ""

    def describe(self) -> str:
        if self.what:
            return f"{self.what}, dated {self.day.isoformat()}, when the newest release was {self.release}"
        return f"vLLM issue #{self.number}, opened about {self.day.isoformat()}, when the newest release was {self.release}"


@lru_cache(maxsize=1)
def _data() -> dict:
    return json.loads(DATES_FILE.read_text())


@lru_cache(maxsize=1)
def _dates() -> tuple[tuple[tuple[date, str], ...], tuple[tuple[int, date], ...]]:
    """(release dates, issue-number anchors), each with its public source in the data file."""
    data = _data()
    releases = sorted((date.fromisoformat(r["date"]), r["version"]) for r in data["releases"] if r.get("kind", "exact") == "exact")
    anchors = sorted((int(a["number"]), date.fromisoformat(a["date"])) for a in data["issue_anchors"])
    return tuple(releases), tuple(anchors)


def issue_opened(number: int) -> date | None:
    """The opening date of vllm-project/vllm issue `number`, interpolated between dated issues (GitHub numbers
    issues and pull requests in one sequence, in time order). None outside the dated range."""
    _, anchors = _dates()
    for (n0, d0), (n1, d1) in zip(anchors, anchors[1:]):
        if n0 <= number <= n1:
            return d0 + timedelta(days=(d1 - d0).days * (number - n0) / max(n1 - n0, 1))
    return None


def release_on(day: date) -> str | None:
    """The newest vLLM release published on or before `day` (None before the first dated one)."""
    current = None
    for published, version in _dates()[0]:
        if published > day:
            break
        current = version
    return current


def source_date(source: str | None) -> SourceDate | None:
    """The release current when the vLLM issue named in `source` (a URL) was opened, or when another dated source
    (`source_anchors`: a report's commit that ran vLLM's latest image) was written; None if it names neither."""
    m = _VLLM_REFERENCE.search(source or "")
    if not m:
        for anchor in _data().get("source_anchors", []):
            if (source or "").startswith(anchor["url_prefix"]):
                day = date.fromisoformat(anchor["date"])
                release = release_on(day)
                return SourceDate(0, day, release, anchor["what"]) if release else None
        return None
    number = int(m.group(1))
    day = issue_opened(number)
    release = release_on(day) if day else None
    return SourceDate(number, day, release) if release else None


def _source_of(rec: dict) -> str:
    """The document a record comes from: its source without a '#fragment'."""
    return str(rec.get("source") or "").split("#")[0].strip()


def _dated(rec: dict) -> tuple[str, str]:
    """(version, basis) from the record's fields and its source's date: kvplan's own reading (`version_basis`:
    "stated", "log format", "newest"), narrowed or replaced by the date ("log format and issue date", "issue date")."""
    version, basis = version_basis(rec)
    if basis in ("stated", "commit count"):
        return version, basis
    dated = source_date(rec.get("source"))
    if dated is None:
        return version, basis
    fmt = log_format_era(rec.get("observed") or {})
    if fmt:
        _, first, last, _ = fmt
        if parse_version(first) <= parse_version(dated.release) <= parse_version(last):
            return dated.release, "log format and issue date"
        return version, basis
    return dated.release, "issue date"


def sibling_versions(records: list[dict]) -> dict[str, tuple[str, int]]:
    """The version most startups from one source (a log file, a report, an issue) state, or their log lines (with the
    source's date) identify: {source: (version, how many)}."""
    by_source: dict[str, Counter] = {}
    for rec in records:
        source = _source_of(rec)
        if not source:
            continue
        try:
            version, basis = _dated(rec)
        except KvplanError:
            continue
        if basis in ("stated", "log format", "log format and issue date"):
            by_source.setdefault(source, Counter())[version] += 1
    return {src: c.most_common(1)[0] for src, c in by_source.items()}


def fitting_version(rec: dict, siblings: dict[str, tuple[str, int]]) -> tuple[str, str]:
    """(the release a record is fitted with, what says so): the record's own reading, its source's date, else the
    version its siblings (`sibling_versions`) ran ("same source"), else the newest rules."""
    version, basis = _dated(rec)
    if basis == "newest" and _source_of(rec) in siblings:
        return siblings[_source_of(rec)][0], "same source"
    return version, basis


def version_reader(records: list[dict]):
    """The release each of `records` is fitted with (`fitting_version`, its siblings read from `records` once), as a
    function of a record: what `validate.validate_records(version_of=...)` takes."""
    siblings = sibling_versions(records)
    return lambda rec: fitting_version(rec, siblings)
