"""vLLM's model registry as the build tools read it out of a wheel (tools/build_architectures.py, build_pp_support.py,
build_hf_mappers.py), written once: where the model files and the registry stand in a wheel, the release a wheel
holds, the registry's dicts of architectures, and the command line of the tools that can extend their table.

vllm/model_executor/models/registry.py registers each architecture in top-level dicts named *_MODELS
(_TEXT_GENERATION_MODELS, _MULTIMODAL_MODELS, ...), an entry "ArchForCausalLM": ("module", "ClassName"), the module
relative to the models package or a full vllm.* path; the dicts in NOT_REGISTRIES register nothing of the release
(read in the 0.6.3-0.34.0 wheels).
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path
from typing import Callable, Iterator

MODELS = "vllm/model_executor/models/"
REGISTRY = MODELS + "registry.py"
# the architectures vLLM dropped (architecture -> the last release that supported it), out-of-tree ones (a note, no
# class), and the union of the others
NOT_REGISTRIES = {"_PREVIOUSLY_SUPPORTED_MODELS", "_OOT_SUPPORTED_MODELS", "_VLLM_MODELS"}


def version_key(v: str) -> tuple:
    """A release's sort key: its first four numbers (0.10.1.1 after 0.10.1)."""
    return tuple(int(x) for x in re.findall(r"\d+", v)[:4])


def wheel_version(path: str) -> str:
    """The release a wheel holds, from its file name (vllm-0.34.0-cp38-abi3-....whl: 0.34.0)."""
    return Path(path).name.split("-")[1]


def registry_dicts(source: str) -> Iterator[tuple[str, ast.Dict]]:
    """The registry's top-level dicts named *_MODELS (NAME = {...} or NAME: type = {...}), with their names, in the
    order of the file; NOT_REGISTRIES among them."""
    for node in ast.parse(source).body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else getattr(node, "target", None)
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and isinstance(value, ast.Dict) and target.id.endswith("_MODELS"):
            yield target.id, value


def registered_classes(source: str) -> dict[str, tuple[str, str]]:
    """{architecture: (module, class)} of the registry's entries ("Arch": ("module", "Class", ...)) outside
    NOT_REGISTRIES, the module as a full vllm.* path."""
    out: dict[str, tuple[str, str]] = {}
    for name, value in registry_dicts(source):
        if name in NOT_REGISTRIES:
            continue
        for k, v in zip(value.keys, value.values):
            if (isinstance(k, ast.Constant) and isinstance(v, ast.Tuple) and len(v.elts) >= 2
                    and all(isinstance(e, ast.Constant) for e in v.elts[:2])):
                mod = v.elts[0].value
                out[k.value] = (mod if mod.startswith("vllm.") else "vllm.model_executor.models." + mod, v.elts[1].value)
    return out


def main(argv: list[str], out: Path, build: Callable[[list[str]], dict], extend: Callable[[dict, str], dict],
         usage: str) -> None:
    """The command line of a tool that builds a table from wheels: WHEEL... builds it from those (build), --add WHEEL
    extends the table as it stands in `out` by one release newer than every one it read (extend); writes `out`."""
    if not argv:
        sys.exit(usage)
    if argv[0] == "--add" and len(argv) == 2:
        result = extend(json.loads(out.read_text()), argv[1])
    else:
        result = build(argv)
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")
