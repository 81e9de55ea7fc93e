"""Build src/kvplan/data/architectures.json: which vLLM releases register each model architecture.

Reads vllm/model_executor/models/registry.py out of vLLM wheels (fetch them once with
`pip download vllm==X --no-deps -d DIR`); nothing is downloaded here, and nothing at test time.

    python tools/build_architectures.py DIR/vllm-*.whl
    python tools/build_architectures.py --add DIR/vllm-X-*.whl   (one release newer than every one read: the table
                                                                  as it stands, extended by that wheel)

Per architecture: the first and last release read that registers it, the release read just before it appears
("missing_before") and the first release read after it went ("missing_from"), and, where vLLM's own
_PREVIOUSLY_SUPPORTED_MODELS states it, the last release that supported it ("supported_until").
"""

from __future__ import annotations

import ast
import sys
import zipfile
from pathlib import Path

from _vllm_registry import NOT_REGISTRIES, REGISTRY, main, registry_dicts, version_key as _key, wheel_version

OUT = Path(__file__).resolve().parent.parent / "src" / "kvplan" / "data" / "architectures.json"


def read_wheel(path: str) -> tuple[str, set[str], dict[str, str]]:
    """(version, registered architectures, {architecture: last supporting release} as vLLM states it)."""
    version = wheel_version(path)
    source = zipfile.ZipFile(path).read(REGISTRY).decode()
    archs: set[str] = set()
    previous: dict[str, str] = {}
    for name, value in registry_dicts(source):
        if name == "_PREVIOUSLY_SUPPORTED_MODELS":
            previous.update({k.value: v.value for k, v in zip(value.keys, value.values)
                             if isinstance(k, ast.Constant) and isinstance(v, ast.Constant)})
        elif name not in NOT_REGISTRIES:
            # every key, whatever its value (0.6's _ROCM_PARTIALLY_SUPPORTED_MODELS names a note, no class)
            archs.update(k.value for k in value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str))
    return version, archs, previous


def build(wheels: list[str]) -> dict:
    read = sorted((read_wheel(w) for w in wheels), key=lambda r: _key(r[0]))
    versions = [v for v, _, _ in read]
    table: dict[str, dict] = {}
    for arch in sorted(set().union(*(a for _, a, _ in read)) | set().union(*(p for _, _, p in read))):
        have = [arch in a for _, a, _ in read]
        row: dict = {}
        if any(have):
            first, last = have.index(True), len(have) - 1 - have[::-1].index(True)
            row["first_read"], row["last_read"] = versions[first], versions[last]
            if first > 0:
                row["missing_before"] = versions[first - 1]
            if last < len(versions) - 1:
                row["missing_from"] = versions[last + 1]
        until = next((p[arch] for _, _, p in reversed(read) if arch in p), None)
        if until:
            row["supported_until"] = until
        table[arch] = row
    return {"source": f"{REGISTRY} of the vLLM wheels " + ", ".join(versions)
                      + " (pip download vllm==X --no-deps); built by tools/build_architectures.py",
            "versions_read": versions, "architectures": table}


def extend(table: dict, wheel: str) -> dict:
    """`table` (a build() result) with one more wheel, newer than every release it read: the rows build() would write
    with that wheel among the others (a row's last release read and the first read without it, an architecture first
    registered there, the newest _PREVIOUSLY_SUPPORTED_MODELS statement)."""
    version, archs, previous = read_wheel(wheel)
    before = table["versions_read"][-1]
    if _key(version) <= _key(before):
        raise SystemExit(f"--add takes a release newer than every one read ({before}), not {version}")
    rows = {arch: dict(row) for arch, row in table["architectures"].items()}
    for arch in sorted(set(rows) | archs | set(previous)):
        row = rows.setdefault(arch, {})
        if arch in archs:
            if not row.get("first_read"):
                row["first_read"], row["missing_before"] = version, before
            row["last_read"] = version
            row.pop("missing_from", None)
        elif row.get("last_read") == before:
            row["missing_from"] = version
        if arch in previous:
            row["supported_until"] = previous[arch]
        order = ("first_read", "last_read", "missing_before", "missing_from", "supported_until")
        rows[arch] = {k: row[k] for k in order if k in row}
    versions = [*table["versions_read"], version]
    return {"source": f"{REGISTRY} of the vLLM wheels " + ", ".join(versions)
                      + " (pip download vllm==X --no-deps); built by tools/build_architectures.py",
            "versions_read": versions, "architectures": dict(sorted(rows.items()))}


if __name__ == "__main__":
    main(sys.argv[1:], OUT, build, extend, __doc__)
