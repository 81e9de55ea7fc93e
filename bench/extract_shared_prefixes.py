"""Extract the shared prompt prefixes of the ShareGPT workloads behind the four vLLM 0.19 validation runs.

The runs (shared/data/validation/llmservingsim_vllm_runs/) log only token counts. Their workloads, identified in
each meta.json by `dataset_path` and `dataset_hash` (sha256 of the file), are public with token ids:
skyp0714/event_driven_llmsim (a fork of casys-kaist/LLMServingSim) `workloads/sharegpt-llama-3.1-8b-300-sps10.jsonl`
(sha256 05e48b32...) and `workloads/sharegpt-qwen3-32b-300-sps10.jsonl` = `sharegpt-qwen3-30b-a3b-300-sps10.jsonl`
(sha256 4af54eb2...). LLMServingSim's generator (workloads/generators/sharegpt.py) makes one request per
ShareGPT turn whose input is the whole prior conversation plus the new prompt, and picks sessions at random, so a
later turn of a session starts with an earlier turn's input: 32 of the 300 requests share 262-1352 prompt tokens
with an earlier request (one repeats a whole prompt). vLLM's prefix cache hits those blocks when they are still
cached.

For each request (row i of the dataset = `request_id` bench-i of the runs) the output records the earlier request
it shares the longest token prefix with and the length of that prefix: [parent row or -1, shared tokens]. The
prefix relation is a tree, so chained block hashes rebuilt from it (`bench_simulate.prefix_block_hashes`) match
exactly where the token blocks do (checked below for every pair of requests, 16-token blocks).

Run:  python bench/extract_shared_prefixes.py WORKLOAD.jsonl [...]   (writes bench/data/sharegpt_shared_prefixes.json)
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

OUT = Path(__file__).parent / "data" / "sharegpt_shared_prefixes.json"


def lcp(a: list, b: list) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def main(paths: list[str]) -> None:
    out = json.loads(OUT.read_text()) if OUT.exists() else {}
    for p in paths:
        raw = Path(p).read_bytes()
        sha = hashlib.sha256(raw).hexdigest()
        rows = [json.loads(line) for line in raw.decode().splitlines() if line.strip()]
        ids = [r["input_tok_ids"] for r in rows]
        parents = []
        for i, a in enumerate(ids):
            best, bj = 0, -1
            for j in range(i):
                n = lcp(a, ids[j])
                if n > best:
                    best, bj = n, j
            parents.append([bj, best] if best > 0 else [-1, 0])
        # check: block-level matches from the tree equal the token-level ones (16-token blocks)
        from kvplan.workload import prefix_block_hashes
        hashes = prefix_block_hashes([len(a) for a in ids], parents, 16)
        for i in range(len(ids)):
            for j in range(i):
                true = min(lcp(ids[i], ids[j]), len(ids[i]), len(ids[j])) // 16
                got = lcp(list(hashes[i]), list(hashes[j]))
                assert got == true, (i, j, got, true)
        out[sha] = {"source": f"skyp0714/event_driven_llmsim {Path(p).name}", "requests": len(rows),
                    "input_toks": [len(a) for a in ids], "parent_shared_tokens": parents}
        print(f"{Path(p).name}: sha256 {sha[:8]}, {sum(1 for b, n in parents if n >= 16)} requests share >= 1 block")
    OUT.write_text(json.dumps(out, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
