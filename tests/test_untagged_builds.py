"""setuptools-scm's 0.1.dev<N> (a vLLM checkout with no release tag reachable) read by its commit count against each
release's branch point on upstream main (src/kvplan/data/vllm_branch_points.json)."""
import json
from datetime import datetime
from importlib import resources

import pytest
from packaging.version import Version

from kvplan.errors import InputError
from kvplan.versions import (PUBLISHED_RELEASES, parse_version, rules_for, untagged_build_release, untagged_source_build,
                             untagged_unplaced)

TABLE = json.loads(resources.files("kvplan.data").joinpath("vllm_branch_points.json").read_text())
ROWS, END = TABLE["releases"], TABLE["main_known_through"]


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_the_branch_points_climb_with_the_releases_and_precede_their_uploads():
    """Each release leaves main later than the one before it, and before PyPI has its files; a later release on the
    same branch point (a patch or post release) is no row, so no two rows share a commit."""
    assert [Version(r["release"]) for r in ROWS] == sorted(Version(r["release"]) for r in ROWS)
    counts = [r["branch_point_count"] for r in ROWS]
    assert counts == sorted(counts) and len(set(counts)) == len(counts)
    assert len({r["branch_point_commit"] for r in ROWS}) == len(ROWS)
    for r in ROWS:
        assert _when(r["branch_point_committed"]) < _when(r["pypi_upload"]), r["release"]
        assert len(r["branch_point_commit"]) == 40 and r["files_differing"] < 100, r["release"]
    assert counts[-1] <= END["count"] and Version(END["next_release"]) > Version(ROWS[-1]["release"])
    assert _when(END["committed"]) > _when(ROWS[-1]["branch_point_committed"])


def test_every_release_in_the_table_was_published_and_every_release_between_has_its_branch_point():
    """A release missing from the table would read a build past its branch point as the release before it: from the
    first row to the last, every published release is a row, or a patch release whose wheel matches main at (or a
    few commits off) its branch's point."""
    published = {Version(v) for v in PUBLISHED_RELEASES}
    names = [Version(r["release"]) for r in ROWS]
    assert all(v in published for v in names if v >= min(published))
    at = {r["release"]: r["branch_point_count"] for r in ROWS}
    patches = TABLE["patch_releases"]
    for name, p in patches.items():
        assert Version(name) > Version(p["branch_of"]) and abs(p["branch_point_count"] - at[p["branch_of"]]) <= 10, name
    between = [v for v in published if names[0] <= v <= names[-1] and len(v.release) == 3 and not v.is_prerelease]
    missing = [str(v) for v in between if v not in names and str(v) not in patches]
    # patch releases whose wheels were not read: each is a later release of a listed branch (X.Y.Z, Z > 0, from 0.12)
    assert all(Version(m).micro > 0 and Version(m) >= Version("0.12.0") and f"{Version(m).major}.{Version(m).minor}.0" in at
               for m in missing), missing


@pytest.mark.parametrize("i", range(1, len(ROWS)))
def test_a_count_one_below_a_branch_point_is_the_release_before_and_at_it_the_release(i):
    below, at = ROWS[i - 1], ROWS[i]
    n = at["branch_point_count"]
    assert untagged_build_release(f"0.1.dev{n - 1}+gabcdef123")[0] == below["release"]
    assert untagged_build_release(f"0.1.dev{n}+gabcdef123")[0] == at["release"]
    assert parse_version(f"0.1.dev{n}") == tuple(int(x) for x in at["release"].split("."))
    assert not untagged_unplaced(f"0.1.dev{n}")


def test_a_count_outside_the_main_history_read_names_no_release():
    """Below the first branch point: an older checkout or a clone of part of the history (a depth-1 clone prints
    0.1.dev1); past the end of the history read: the next release's branch point may lie below it."""
    first = ROWS[0]["branch_point_count"]
    for n in (1, first - 1, END["count"] + 1):
        text = f"0.1.dev{n}+gd56e95223"
        release, why = untagged_build_release(text)
        assert release is None and untagged_unplaced(text), n
        with pytest.raises(InputError, match="names no release"):
            parse_version(text)
    assert untagged_build_release(f"0.1.dev{END['count']}")[0] == ROWS[-1]["release"]
    assert untagged_build_release(f"0.1.dev{first}")[0] == ROWS[0]["release"]


def test_setuptools_scm_distances_printed_with_a_tag_agree_with_the_branch_points():
    """Builds that reached a release tag print its distance: 0.9.2.dev364+gb432b7a28, 0.10.1.dev101+gbda9d0535 and
    0.11.2.dev690+g67475a6e8 (records in tests/data) count 7,413, 8,027 and 12,077 commits in upstream main's history,
    so tags v0.9.1, v0.10.0 and v0.11.1 sit at 7,049, 7,926 and 11,387 commits: each release's branch point."""
    at = {r["release"]: r["branch_point_count"] for r in ROWS}
    assert at["0.9.1"] == 7413 - 364 and at["0.10.0"] == 8027 - 101 and at["0.11.1"] == 12077 - 690
    # and the untagged build of the commit the first of those describes reads as the release it names a dev build of
    assert untagged_build_release("0.1.dev7413+gb432b7a28")[0] == "0.9.1"
    assert parse_version("0.9.2.dev364+gb432b7a28") == (0, 9, 1)


def test_an_untagged_build_is_planned_with_the_release_it_follows_and_says_why():
    """0.1.dev7548+gbaba038: a checkout of main on 2025-07-08, the day 0.9.2 was published (PyPI), had been refused
    as a version; it now takes 0.9.2's rules, and the plan says how the number placed it."""
    text = "0.1.dev7548+gbaba038"
    assert untagged_source_build(text) and rules_for(text).release == (0, 9, 2)
    notes = [n for n in rules_for(text).notes if "without a release tag" in n]
    assert len(notes) == 1 and "0.9.2's branch point" in notes[0] and "0.10.0's" in notes[0]
    assert not any("development build of" in n for n in rules_for(text).notes)  # PEP 440's 0.1.0 is no release of it
