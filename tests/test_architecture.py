"""Which module may import what. The page (kvplan.web) and the command line (kvplan.cli) are two consumers of the
library (kvplan.api, render, resolve, plan, errors): the page imports nothing of the command line. And no module of
src/ reaches into another's private (underscore) names: what two modules share is public in the module that owns it
(file readers in kvplan.inputs). Tests may still reach private names."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PKG = SRC / "kvplan"


def module_of(path: Path) -> str:
    """kvplan/web/app.py -> 'kvplan.web.app', kvplan/cli/__init__.py -> 'kvplan.cli'."""
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> list[tuple[int, str, str]]:
    """Every import in a file, at any depth (a function's lazy imports too): (line, module, name imported or '')."""
    own = module_of(path)
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name, "") for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            module = (f"{base}.{node.module}" if node.module else base) if node.level else node.module
            out += [(node.lineno, module, alias.name) for alias in node.names]
    return out


def test_the_page_imports_nothing_of_the_command_line():
    """web/app.py took FitFlags, the flag table, the inverse questions and the sweep rows from kvplan.cli (and so loaded
    typer and every command module to serve a page); they are the library's (kvplan.api, kvplan.render)."""
    offenders = [f"{path.relative_to(SRC)}:{line}: {module}" + (f" import {name}" if name else "")
                 for path in sorted((PKG / "web").rglob("*.py"))
                 for line, module, name in imported_modules(path)
                 if module == "kvplan.cli" or module.startswith("kvplan.cli.")
                 or (module == "kvplan" and name == "cli")]
    assert not offenders, "the page imports the command line: " + "; ".join(offenders)


def test_importing_the_page_loads_no_cli_module():
    pytest.importorskip("fastapi", reason="kvplan[web] is not installed")
    code = "import sys, kvplan.web.app; print(sorted(m for m in sys.modules if m.startswith('kvplan.cli')))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]", "importing kvplan.web.app loaded " + r.stdout.strip()


def _unit(module: str) -> str:
    """The unit a private name may be shared in: a top-level module, or a whole subpackage of kvplan (kvplan.plan's
    submodules are the plan stage cut into files, and share its helpers as one module's functions would)."""
    return ".".join(module.split(".")[:2])


def _same_unit(module: str, own: str) -> bool:
    return module == own or (_unit(module) == _unit(own) and (SRC / Path(*_unit(own).split("."))).is_dir())


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_names_reached(path: Path) -> list[str]:
    """Another kvplan module's underscore names that a file imports (`from kvplan.x import _y`, relative imports
    included) or reads off an imported kvplan module (`from kvplan import x` ... `x._y`), as 'file:line: ...'."""
    own = module_of(path)
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    where = f"{path.relative_to(SRC)}"
    out = []
    for line, module, name in imported_modules(path):
        if module.split(".")[0] == "kvplan" and not _same_unit(module, own) and _private(name):
            out.append(f"{where}:{line}: from {module} import {name}")
    modules = {}  # a local name -> the kvplan module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "kvplan":
                    modules[alias.asname or alias.name.split(".")[0]] = alias.asname and alias.name or "kvplan"
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "kvplan":
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if (SRC / Path(*full.split("."))).with_suffix(".py").is_file() or (SRC / Path(*full.split("."))).is_dir():
                    modules[alias.asname or alias.name] = full
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            dotted, value = [node.attr], node.value
            while isinstance(value, ast.Attribute):
                dotted.insert(0, value.attr)
                value = value.value
            if isinstance(value, ast.Name) and value.id in modules and not _same_unit(modules[value.id], own):
                out.append(f"{where}:{node.lineno}: {value.id}.{'.'.join(dotted)} (of {modules[value.id]})")
    return out


def test_no_module_imports_another_modules_private_names():
    """reconcile and resolve read config files and /proc through resolve._read_json and preflight._read_text, validate
    keyed its records by band._family, band._era_group and band._architecture, the page asked resolve._catalog_lookup:
    each is public now where it belongs (kvplan.inputs read_json_object and read_text_or_empty, band.model_family,
    band.era_group, band.model_architecture, resolve.catalog_lookup)."""
    offenders = [hit for path in sorted(PKG.rglob("*.py")) for hit in private_names_reached(path)]
    assert not offenders, "private names imported across modules:\n" + "\n".join(offenders)


def test_the_private_import_check_sees_what_it_is_for(tmp_path, monkeypatch):
    """The check above, on a module written to fail it: each way of reaching a private name is named."""
    pkg = tmp_path / "kvplan"
    (pkg / "sub").mkdir(parents=True)
    for f in ("__init__.py", "other.py", "sub/__init__.py"):
        (pkg / f).write_text("")
    (pkg / "sub" / "sibling.py").write_text("def _shared():\n    return 0\n")
    (pkg / "sub" / "mod.py").write_text(
        "from kvplan.sub.sibling import _shared\n"
        "from kvplan.other import _hidden, public\n"
        "from ..other import _relative\n"
        "from kvplan import other\n"
        "import kvplan.other as o\n"
        "def f():\n"
        "    from kvplan.other import _lazy\n"
        "    return other._attr, o._aliased, public.__name__, _own()\n"
        "def _own():\n"
        "    return 0\n")
    monkeypatch.setattr(sys.modules[__name__], "SRC", tmp_path)
    hits = private_names_reached(pkg / "sub" / "mod.py")
    assert [h.split(": ", 1)[1] for h in hits] == [
        "from kvplan.other import _hidden", "from kvplan.other import _relative", "from kvplan.other import _lazy",
        "other._attr (of kvplan.other)", "o._aliased (of kvplan.other)"], hits
