"""The signed KV-pool error of the vLLM >= 0.22 startups, split by how the start compiled its graphs.

    PYTHONPATH=src python tools/era_bias.py

Scores the three record files with `kvplan validate` (the same plan as `kvplan validate FILE --json`), keeps the
startups whose rules are 0.22 or later and that log a pool, and prints each one's signed KV error (GiB and %), the
start's kind and the terms the log prints against the plan's, then the split by kind.

A start's kind is what its log (or the record's notes, which quote it) shows: "cold" where Inductor compiled the graphs
inside the memory profile ('Compiling a graph for compile range ... takes'), "warm" where it loaded them ('Directly load
the compiled graph' / 'Directly load AOT compilation'), "eager" where nothing is compiled (--enforce-eager), and
"unknown" where the published excerpt shows neither. KINDS names the evidence for each; a record not in it is unknown.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

from _records import record_files

REPO = Path(__file__).resolve().parents[1]
FILES = record_files()

# record id -> (kind, the line of its source that shows it)
KINDS: dict[str, tuple[str, str]] = {
    "qwen3.6-35b-a3b-nvfp4-rtx5090-udef-tp1": ("cold", "club-3090 #612: 'Compiling a graph for compile range (1, 8192) takes 16.14 s'"),
    "qwen3.6-35b-a3b-nvfp4-gb10-u085-tp1": ("cold", "qwen36.log: 'Compiling a graph for compile range (1, 2048) takes 28.27 s'"),
    "qwen3.8-27b-nvfp4-gb10-u085-tp1": ("cold", "qwen38-nvfp4.log: 'Compiling a graph for compile range (1, 2048) takes 34.68 s'"),
    "qwen2.5-1.5b-instruct-t4-u085-tp1-l4k": ("warm", "vllm_server.log: 'Directly load AOT compilation', torch.compile 0.24 s"),
    "qwen3-coder-30b-a3b-instruct-a100-80-u090-tp1-l128k": ("warm", "vllm.log: 'Directly load the compiled graph(s) for compile range (1, 2048)'"),
    "qwen2.5-coder-1.5b-instruct-gpu39g-udef-tp1-l16k": ("cold", "vllm.log: 'Compiling a graph for compile range (1, 2048) takes 7.83 s'"),
    "qwen3.6-27b-a100-80-udef-tp2-l64k": ("cold", "vllm.log: 'Compiling a graph for compile range (1, 2048) takes 88.38 s'"),
    "qwen3.6-27b-fp8-h100-u088-tp1-eager-l4k": ("eager", "enforce_eager (record notes)"),
    "qwen3.8-27b-nvfp4-rtx5090-u090-tp1-mtp3-fp8kv-l32k": ("warm", "old-recipe.log: 'Directly load AOT compilation', torch.compile 3.82 s"),
    "qwen2.5-3b-instruct-awq-8gb-u045-tp1-eager-l1k": ("eager", "enforce_eager (record args)"),
    "qwen3-8b-t4-u085-tp2-eager-lora-l4k-seqs1": ("eager", "enforce_eager (record args)"),
    "qwen2.5-coder-7b-instruct-rtx4090-udef-tp1-l32k-seqs32": ("cold", "server_dynchunk0.log: 'Compiling a graph for compile range (1, 2048) takes 8.74 s'"),
    "qwen2.5-7b-instruct-rtx5090-u090-tp1-l8k": ("warm", "record notes: 'Directly load AOT compilation', torch.compile 0.48 s"),
    "qwen2.5-7b-instruct-rtx5090-u090-tp1-l8k-seqs256-mbt8k": ("warm", "record notes: 'Directly load AOT compilation'"),
    "qwen2.5-7b-instruct-fp8online-rtx5090-u090-tp1-l8k": ("cold", "record notes: 'torch.compile took 14.95 s', compiling range (1, 2048)"),
    "qwen2.5-0.5b-instruct-rtx5090-u090-tp1-l8k": ("cold", "record notes: 'torch.compile took 7.45 s', compiling range (1, 2048)"),
    "qwen3-8b-rtx4090-48g-u075-tp1-eager-l4k-seqs8-noprefix": ("eager", "record notes: no torch.compile, no CUDA graphs"),
    "qwen3-8b-rtx4090-48g-u075-tp1-l4k-seqs8-noprefix": ("cold", "record notes: 'Compiling a graph for compile range (1, 4096) takes 42.70 s'"),
    "qwen3-8b-rtx4090-udef-tp1-l8k-cold": ("cold", "startup_0.log: 'Compiling a graph for compile range (1, 2048) takes 26.37 s'"),
    "qwen3-8b-rtx4090-udef-tp1-l8k-warm": ("warm", "startup_1.log: 'Directly load AOT compilation'"),
    "qwen3-1.7b-rtx4090-u092-tp1-l2k-seqs256-cold": ("cold", "swaps-compile.json a: 'Compiling a graph for compile range (1, 2048) takes 17.59 s'"),
    "qwen3-1.7b-rtx4090-u092-tp1-l2k-seqs256-warm": ("warm", "swaps-compile.json b: 'Directly load AOT compilation'"),
    "qwen2.5-0.5b-instruct-rtx4090wsl-u085-tp1-l2k": ("warm", "record notes: compilation 0.11 s, the cache filled by attempts 4-6 (most likely warm)"),
    "llama-3.2-3b-instruct-l4-udef-tp1-l20k": ("cold", "vllm.log: 'Compiling a graph for compile range (1, 2048) takes 10.51 s'"),
    "llama-3.2-3b-instruct-l4-udef-tp1-eager-nopc-l20k": ("eager", "record args: enforce_eager"),
    "qwen2.5-coder-1.5b-instruct-awq-rtx3060-u085-tp1-eager-l8k-seqs16": ("eager", "record args: enforce_eager"),
    "qwen2.5-coder-1.5b-instruct-awq-gtx1660super-u085-tp1-eager-l8k-seqs16": ("eager", "record args: enforce_eager"),
    "qwen2.5-coder-3b-instruct-awq-gtx1660super-udef-tp1-eager-l2k-seqs8": ("eager", "record args: enforce_eager"),
    "qwen2.5-coder-1.5b-instruct-awq-rtx3060-u085-tp1-l1k-seqs128-cold": ("cold", "srv2-1.5B-stage2.jsonl: 'saved AOT compiled function', 'torch.compile took 25.78 s in total'"),
}


def _rows():
    sys.path.insert(0, str(REPO / "src"))
    from kvplan.validate import load_records, validate_records
    from kvplan.versions import parse_version

    from record_dating import version_reader

    out = []
    for name, path in FILES.items():
        records = load_records(path)
        # the release each startup ran as the fit reads it (its source's date where its log states none): kvplan
        # validate plans a version-less record with the newest rules, which says nothing of the release it ran
        fitted = version_reader(records)
        ran = {rec["id"]: fitted(rec)[0] for rec in records}
        for r in validate_records(records):
            if r.skipped or r.observed.get("kv_cache_gib") is None or r.error_pct.get("kv_cache_gib") is None:
                continue
            if parse_version(ran.get(r.id) or r.label.get("rules_applied") or "0") < (0, 22, 0):
                continue
            kind = KINDS.get(r.id, ("unknown", ""))[0]
            gib = r.predicted["kv_cache_gib"] - r.observed["kv_cache_gib"]
            out.append((name, r, kind, gib))
    return out


def _summary(values: list[float]) -> str:
    if not values:
        return "n=0"
    return (f"n={len(values)} median {statistics.median(values):+.2f} mean {statistics.mean(values):+.2f} "
            f"above {100 * sum(v > 0 for v in values) / len(values):.0f}%")


def main() -> None:
    rows = _rows()
    for name, r, kind, gib in rows:
        p = r.predicted
        print(f"{name:11} {r.id[:58]:58} {r.label.get('rules_applied', '')[:8]:8} {r.error_pct['kv_cache_gib']:+7.2f}% "
              f"{gib:+6.2f} GiB {kind:7} plan nt {p.get('non_torch_gib') or 0:.2f} act {p.get('activation_peak_gib') or 0:.2f} "
              f"cg {p.get('cudagraph_gib') or 0:.2f}")
    def gb10(r) -> bool:  # integrated memory: its own non-torch term, apart from the compile question
        return "GB10" in str(r.label.get("gpu", ""))

    groups = {"warm+eager": lambda r, k: k in ("warm", "eager"), "cold": lambda r, k: k == "cold" and not gb10(r),
              "unknown": lambda r, k: k == "unknown" and not gb10(r), "GB10 (any)": lambda r, k: gb10(r)}
    for label, keep in groups.items():
        sel = [(r, g) for _, r, k, g in rows if keep(r, k)]
        print(f"{label:11} % {_summary([r.error_pct['kv_cache_gib'] for r, _ in sel])}"
              f" | GiB {_summary([g for _, g in sel])}")
    print(f"{'all':11} % {_summary([r.error_pct['kv_cache_gib'] for _, r, _, _ in rows])}")


if __name__ == "__main__":
    main()
