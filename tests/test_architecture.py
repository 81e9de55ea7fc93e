"""Which module may import what. The page (kvplan.web) and the command line (kvplan.cli) are two consumers of the
library (kvplan.api, render, resolve, plan, errors): the page imports nothing of the command line."""
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
