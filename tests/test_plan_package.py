"""The plan stage's package layout (kvplan/plan/): its modules, in the order its docstring maps them, import only the
modules before them (no cycle; the planner, last, is imported by none), and the package re-exports each name other
modules import from `kvplan.plan` as the very object its submodule defines."""
from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

plan_package = importlib.import_module("kvplan.plan")  # kvplan.plan the attribute is the plan() function
PACKAGE = Path(plan_package.__file__).parent
ORDER = ["args", "multimodal", "kv_transfer", "kv", "serve_flags", "eplb", "cudagraphs", "terms", "extensible", "defaults", "planner"]


def test_the_docstring_maps_every_module_in_import_order():
    mapped = re.findall(r"^\s+kvplan\.plan\.([a-z_]+)\s", plan_package.__doc__, flags=re.M)
    assert mapped == ORDER
    assert {p.stem for p in PACKAGE.glob("*.py")} - {"__init__"} == set(ORDER)


def test_each_module_imports_only_the_modules_before_it():
    for i, name in enumerate(ORDER):
        tree = ast.parse((PACKAGE / f"{name}.py").read_text())
        assert ast.get_docstring(tree), name  # each says what it holds
        siblings = {node.module.rsplit(".", 1)[1] for node in ast.walk(tree)
                    if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("kvplan.plan.")}
        assert siblings <= set(ORDER[:i]), (name, siblings - set(ORDER[:i]))


def test_the_package_re_exports_the_submodules_objects():
    assert len(plan_package.__all__) == len(set(plan_package.__all__))
    for name in plan_package.__all__:
        owner = next(m for m in ORDER if name in vars(importlib.import_module(f"kvplan.plan.{m}")))
        assert getattr(plan_package, name) is getattr(importlib.import_module(f"kvplan.plan.{owner}"), name), name
    assert plan_package.plan is importlib.import_module("kvplan.plan.planner").plan  # the function, not a module
