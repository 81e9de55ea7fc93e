"""Build src/kvplan/data/pp_support.json: which registered vLLM architectures lack pipeline-parallel support.

vLLM refuses --pipeline-parallel-size > 1 unless the model class of the config's architectures supports PP
(ModelConfig.verify_with_parallel_config -> ModelRegistry.is_pp_supported_model -> _ModelInfo.supports_pp, from
interfaces.py supports_pp: SupportsPP in the class's MRO, or a class attribute supports_pp = True with
make_empty_intermediate_tensors, and a forward that accepts intermediate_tensors, or **kwargs). This reads
vllm/model_executor/models/registry.py and the model files out of vLLM wheels (fetch them once with
`pip download vllm==X --no-deps -d DIR`); nothing is downloaded here, and nothing at test time.

    python tools/build_pp_support.py DIR/vllm-*.whl

The classes are read statically (ast): each registered class's bases are followed through the model files' own
definitions and `from .module import Name` imports. An architecture whose class cannot be followed that way (built by
a function, an unresolved base) is left out of the table and named on stderr: kvplan then does not refuse it.
Per architecture lacking support in some release read: the runs of releases read ([first, last]) without it.
"""

from __future__ import annotations

import ast
import json
import sys
import zipfile
from pathlib import Path

from _vllm_registry import MODELS, REGISTRY, registered_classes, version_key as _key, wheel_version

OUT = Path(__file__).resolve().parent.parent / "src" / "kvplan" / "data" / "pp_support.json"
# vLLM's other interfaces (SupportsLoRA, SupportsMultiModal, ...): no part of PP support
INTERFACES = {"vllm.model_executor.models.interfaces", "vllm.model_executor.models.interfaces_base"}
BUILTINS = {"object"}
MARK = ("SupportsPP", {"bases": [], "forward": None, "attrs": set()})


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _name(node.value)
        return f"{inner}.{node.attr}" if inner else None
    if isinstance(node, ast.Subscript):  # Generic[T], SomeBase[Config]
        return _name(node.value)
    return None


class Module:
    """One Python file of the wheel: its classes (bases, whether forward takes intermediate_tensors, class
    attributes and methods) and the names it imports, as {local name: (absolute module, name or None)}."""

    def __init__(self, name: str, source: str, package: bool):
        self.classes: dict[str, dict] = {}
        self.imports: dict[str, tuple[str, str | None]] = {}
        here = name if package else name.rpartition(".")[0]
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here
                    for _ in range(node.level - 1):
                        base = base.rpartition(".")[0]
                    mod = f"{base}.{node.module}" if node.module else base
                else:
                    mod = node.module or ""
                for alias in node.names:
                    self.imports[alias.asname or alias.name] = (mod, alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    self.imports[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0], None)
            elif isinstance(node, ast.ClassDef):
                forward = None
                attrs: set[str] = set()
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        attrs.add(item.name)
                        if item.name == "forward":
                            a = item.args
                            names = {x.arg for x in a.args + a.kwonlyargs + a.posonlyargs}
                            forward = "intermediate_tensors" in names or a.kwarg is not None
                    elif isinstance(item, (ast.Assign, ast.AnnAssign)):
                        for t in (item.targets if isinstance(item, ast.Assign) else [item.target]):
                            if isinstance(t, ast.Name):
                                value = getattr(item, "value", None)
                                if t.id == "supports_pp" and isinstance(value, ast.Constant):
                                    attrs.add(f"supports_pp={value.value}")
                                elif t.id == "forward":
                                    forward = None  # assigned, not defined: not followed
                                    attrs.add("forward=?")
                                else:
                                    attrs.add(t.id)
                self.classes[node.name] = {"bases": [_name(b) for b in node.bases], "forward": forward,
                                           "attrs": attrs}
        for node in tree.body:  # module-level aliases: Foo = Bar
            if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and isinstance(node.value, ast.Name) and node.targets[0].id not in self.classes):
                self.imports[node.targets[0].id] = (name, node.value.id)


class Wheel:
    def __init__(self, path: str):
        self.version = wheel_version(path)
        self.zip = zipfile.ZipFile(path)
        self.files = set(self.zip.namelist())
        self.modules: dict[str, Module | None] = {}

    def module(self, name: str) -> Module | None:
        if name not in self.modules:
            path = name.replace(".", "/")
            self.modules[name] = None
            for file, package in ((f"{path}.py", False), (f"{path}/__init__.py", True)):
                if file in self.files:
                    self.modules[name] = Module(name, self.zip.read(file).decode(), package)
                    break
        return self.modules[name]

    def registry(self) -> dict[str, tuple[str, str]]:
        return registered_classes(self.zip.read(REGISTRY).decode())

    def _base(self, mod: Module, module: str, base: str, seen: set):
        """The chain of a base named `base` in `module`: a list, [] for one that carries nothing toward PP support
        (torch's Module, typing, transformers, vLLM's other interfaces), None when not followed."""
        if base.rsplit(".", 1)[-1] == "SupportsPP":
            return [MARK]
        head, _, rest = base.partition(".")
        if head in mod.classes and not rest:
            return self.chain(module, head, seen)
        if head in mod.imports:
            src, name = mod.imports[head]
            if not src.startswith("vllm"):
                return []
            if name is None or (rest and self.module(f"{src}.{name}") is not None):  # a module: mod.Class
                target = src if name is None else f"{src}.{name}"
                if rest:
                    target_mod, _, cls = f"{target}.{rest}".rpartition(".")
                else:
                    return None
            else:
                if rest:
                    return None
                target_mod, cls = src, name
            if not target_mod.startswith("vllm"):
                return []
            if target_mod in INTERFACES:
                return []
            return self.chain(target_mod, cls, seen)
        if base in BUILTINS:
            return []
        return None

    def chain(self, module: str, cls: str, seen=None) -> list[tuple[str, dict]] | None:
        """The class and its ancestors, depth first (a stand-in for the MRO that is exact for the single-chain
        inheritance these files use for forward); None when a base cannot be followed."""
        seen = seen if seen is not None else set()
        mod = self.module(module)
        if mod is None:
            return None
        if cls not in mod.classes:
            if cls in mod.imports and mod.imports[cls][1] is not None:
                src, name = mod.imports[cls]
                if not src.startswith("vllm") or src in INTERFACES:
                    return []
                return self.chain(src, name, seen)
            return None
        if (module, cls) in seen:
            return []
        seen.add((module, cls))
        row = mod.classes[cls]
        out = [(f"{module}.{cls}", row)]
        for base in row["bases"]:
            if base is None:
                return None
            sub = self._base(mod, module, base, seen)
            if sub is None:
                return None
            out += sub
        return out

    def supports_pp(self, module: str, cls: str) -> bool | None:
        chain = self.chain(module, cls)
        if chain is None:
            return None
        marked = any(name == "SupportsPP" for name, _ in chain)
        if not marked:  # _SupportsPPType: supports_pp = True and make_empty_intermediate_tensors on the class
            attrs = set().union(*(row["attrs"] for _, row in chain))
            marked = "supports_pp=True" in attrs and "make_empty_intermediate_tensors" in attrs
        if not marked:
            return False
        owner = next((row for _, row in chain if "forward" in row["attrs"] or "forward=?" in row["attrs"]), None)
        if owner is None or owner["forward"] is None:
            return None  # forward inherited from something not followed
        return owner["forward"]


def build(wheels: list[str]) -> dict:
    read = sorted((Wheel(w) for w in wheels), key=lambda w: _key(w.version))
    versions = [w.version for w in read]
    status: dict[str, list] = {}
    unknown: dict[str, list[str]] = {}
    for i, wheel in enumerate(read):
        for arch, (module, cls) in wheel.registry().items():
            got = wheel.supports_pp(module, cls)
            status.setdefault(arch, [None] * len(read))[i] = got if got is not None else "?"
            if got is None:
                unknown.setdefault(arch, []).append(wheel.version)
    table: dict[str, dict] = {}
    for arch, row in sorted(status.items()):
        if False not in row:
            continue
        runs, start = [], None
        for i, s in enumerate(row + [None]):
            if s is False and start is None:
                start = i
            elif s is not False and start is not None:
                runs.append([versions[start], versions[i - 1]])
                start = None
        table[arch] = {"without_pp": runs}
        if arch in unknown:
            table[arch]["not_followed"] = unknown[arch]
    for arch, where in sorted(unknown.items()):
        print(f"not followed: {arch} in {', '.join(where)}", file=sys.stderr)
    return {"source": f"{MODELS}*.py and {REGISTRY} of the vLLM wheels " + ", ".join(versions)
                      + " (pip download vllm==X --no-deps); built by tools/build_pp_support.py",
            "versions_read": versions, "architectures": table}


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    result = build(sys.argv[1:])
    OUT.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {OUT}: {len(result['architectures'])} architectures without PP in some release read")
