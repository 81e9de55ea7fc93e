"""Build src/kvplan/data/hf_mappers.json: which vLLM releases give each model architecture's class an
hf_to_vllm_mapper.

A quantization config is handed the model class's hf_to_vllm_mapper before it reads its skip list
(model_loader/utils.py configure_quant_config, models/interfaces.py SupportsQuant._maybe_apply_model_mapping), and
ModelOptQuantConfig.apply_vllm_mapper rewrites its exclude_modules there (weights.modelopt_exclude_split): what a
ModelOpt skip list names depends on whether the class has one.

Reads vllm/model_executor/models/registry.py and the model files out of vLLM wheels (fetch them once with
`pip download vllm==X --no-deps -d DIR`); nothing is downloaded here, and nothing at test time.

    python tools/build_hf_mappers.py DIR/vllm-*.whl
    python tools/build_hf_mappers.py --add DIR/vllm-X-*.whl   (one release newer than every one read: the table as
                                                               it stands, extended by that wheel)

A class has a mapper when its body or its __init__ assigns hf_to_vllm_mapper a value other than None, or a base class
(a class of the models package, by name) has one. Per architecture: the releases read where its class has one.
"""

from __future__ import annotations

import ast
import sys
import zipfile
from pathlib import Path

from _vllm_registry import MODELS, REGISTRY, main, registered_classes, version_key as _key, wheel_version

OUT = Path(__file__).resolve().parent.parent / "src" / "kvplan" / "data" / "hf_mappers.json"


def _assigns_mapper(node: ast.AST) -> bool:
    for n in ast.walk(node):
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, ast.AnnAssign) else []
        value = getattr(n, "value", None)
        if value is None or (isinstance(value, ast.Constant) and value.value is None):
            continue
        for t in targets:
            if (isinstance(t, ast.Name) and t.id == "hf_to_vllm_mapper") or \
                    (isinstance(t, ast.Attribute) and t.attr == "hf_to_vllm_mapper"):
                return True
    return False


def read_wheel(path: str) -> tuple[str, set[str], set[str]]:
    """(version, registered architectures, those whose class has an hf_to_vllm_mapper)."""
    version = wheel_version(path)
    wheel = zipfile.ZipFile(path)
    classes: dict[str, tuple[list[str], bool]] = {}
    for name in wheel.namelist():
        if not (name.startswith(MODELS) and name.endswith(".py")):
            continue
        tree = ast.parse(wheel.read(name).decode())
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases = [b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases]
                own = any(_assigns_mapper(s) for s in node.body if not isinstance(s, ast.ClassDef))
                classes.setdefault(node.name, (bases, own))
    registered = {arch: cls for arch, (_, cls) in registered_classes(wheel.read(REGISTRY).decode()).items()}

    def has(cls: str, seen: frozenset = frozenset()) -> bool:
        if cls in seen or cls not in classes:
            return False
        bases, own = classes[cls]
        return own or any(has(b, seen | {cls}) for b in bases)

    return version, set(registered), {a for a, cls in registered.items() if has(cls)}


def build(wheels: list[str]) -> dict:
    read = sorted((read_wheel(w) for w in wheels), key=lambda r: _key(r[0]))
    versions = [v for v, _, _ in read]
    table = {arch: [v for v, _, m in read if arch in m] for arch in sorted(set().union(*(m for _, _, m in read)))}
    return {"source": "vllm/model_executor/models/*.py of the vLLM wheels " + ", ".join(versions)
                      + " (pip download vllm==X --no-deps); built by tools/build_hf_mappers.py",
            "versions_read": versions, "architectures": table}


def extend(table: dict, wheel: str) -> dict:
    """`table` (a build() result) with one more wheel, newer than every release it read."""
    version, _, mapped = read_wheel(wheel)
    if _key(version) <= _key(table["versions_read"][-1]):
        raise SystemExit(f"--add takes a release newer than every one read ({table['versions_read'][-1]}), not {version}")
    archs = set(table["architectures"]) | mapped
    rows = {a: [*table["architectures"].get(a, []), *([version] if a in mapped else [])] for a in sorted(archs)}
    versions = [*table["versions_read"], version]
    return {"source": "vllm/model_executor/models/*.py of the vLLM wheels " + ", ".join(versions)
                      + " (pip download vllm==X --no-deps); built by tools/build_hf_mappers.py",
            "versions_read": versions, "architectures": rows}


if __name__ == "__main__":
    main(sys.argv[1:], OUT, build, extend, __doc__)
