"""Refresh the README's accuracy tables from `kvplan validate` itself.

    python tools/readme_accuracy.py

Runs `kvplan validate --markdown` on the calibration records and on the out-of-sample records, end to end
and given the logged pool, and replaces the text between the README's accuracy markers.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
START, END = "<!-- accuracy:start -->", "<!-- accuracy:end -->"


def table(records: str, given_kv: bool) -> str:
    with tempfile.NamedTemporaryFile("r", suffix=".md") as fh:
        cmd = ["kvplan", "validate", str(REPO / "tests" / "data" / records), "--no-rows", "--markdown", fh.name]
        subprocess.run(cmd + (["--given-kv"] if given_kv else []), check=True, capture_output=True)
        lines = Path(fh.name).read_text().strip().splitlines()
    out = []
    for line in lines:
        if given_kv and (line.startswith("| weights GiB") or line.startswith("| blocks | 0")):
            continue
        if line.startswith("| weights GiB") and line.count("|") > 7:  # the seed is given the logged weights
            cells = line.split("|")
            cells[6:9] = [" (given) "] * 3
            line = "|".join(cells)
        out.append(line)
    return "\n".join(out)


def _count(records: str) -> int:
    return sum(1 for line in (REPO / "tests" / "data" / records).read_text().splitlines() if line.strip())


def main() -> None:
    text = f"""{START}
`kvplan validate tests/data/calibration.jsonl`: the {_count("calibration.jsonl")} real startups of `calibration.jsonl` (absolute % error,
predicted vs what vLLM logged; the seed's arithmetic is given the logged weights):

{table("calibration.jsonl", False)}

Given the logged KV-cache GiB (`--given-kv`: page sizes, groups, block rounding, tokens, concurrency only):

{table("calibration.jsonl", True)}

**Out of sample.** `kvplan validate tests/data/extra_records.jsonl`: {_count("extra_records.jsonl")} startups from other public logs (each
with its source URL; none used for fitting):

{table("extra_records.jsonl", False)}

and given the logged pool:

{table("extra_records.jsonl", True)}
{END}"""
    readme = (REPO / "README.md").read_text()
    head, _, rest = readme.partition(START)
    _, _, tail = rest.partition(END)
    (REPO / "README.md").write_text(head + text + tail)
    print("README accuracy tables refreshed")


if __name__ == "__main__":
    main()
