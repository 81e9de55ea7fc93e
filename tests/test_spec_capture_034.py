"""CUDA-graph capture sizes under speculative decoding, vLLM 0.34.0 against 0.33.0 (versions.py rows
cudagraph_decode_keys, draft_decode_cudagraph_methods; plan.cudagraphs.split_capture_sizes).

0.33.0 rounds token sizes to multiples of q = 1 + num_speculative_tokens (model runner v1: compilation.py
adjust_cudagraph_sizes_for_spec_decode; v2: cudagraph_utils.py CudaGraphManager._init_candidates). 0.34.0 has neither:
its uniform-decode graphs are request counts n captured at n x q tokens (config/vllm.py
VllmConfig._split_cudagraph_capture_sizes), the PIECEWISE prefill graphs keep the token sizes unrounded, and an
EAGLE / EAGLE-3 / single-module MTP / draft-model drafter with k >= 2 captures its one-token draft decodes at request
counts of its own (VllmConfig.get_draft_decode_cudagraph_request_sizes), which vLLM records in cudagraph_capture_sizes."""

from __future__ import annotations

import json

import pytest

import kvplan
from kvplan.plan import _full_graph_sizes, round_sizes_for_spec_decode
from kvplan.plan.cudagraphs import (MIN_PER_GRAPH_BYTES, decode_capture_grid, decode_capture_shapes, prefill_capture_grid,
                                    split_capture_sizes, split_decode_requests)
from kvplan.simulate import engine_config_from_plan
from kvplan.versions import rules_for
from test_spec_draft import EAGLE3_HEAD, LLAMA

MIB = 1 << 20


@pytest.fixture
def head3(tmp_path) -> str:
    path = tmp_path / "head3.json"
    path.write_text(json.dumps(EAGLE3_HEAD))
    return str(path)


def _eagle3(head: str, k: int = 3) -> str:
    return json.dumps({"model": head, "method": "eagle3", "num_speculative_tokens": k})


def _fit(version, gpu="H100", **kw):
    kw.setdefault("max_model_len", 8192)
    return kvplan.fit(kw.pop("model", LLAMA), gpu, vllm_version=version, **kw)


def _graphs(p) -> dict:
    return p.cudagraphs if isinstance(p.cudagraphs, dict) else p.cudagraphs.to_dict()


def test_the_rows_by_release():
    assert rules_for("0.33.0").cudagraph_decode_keys == "rounded"
    assert rules_for("0.34.0").cudagraph_decode_keys == "requests"
    assert rules_for("0.33.0").draft_decode_cudagraph_methods == ()
    assert set(rules_for("0.34.0").draft_decode_cudagraph_methods) == {"eagle", "eagle3", "mtp", "draft_model"}


def test_request_counts_against_the_033_rounding():
    grid = [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64]
    # 0.34: ceil(s / 4) for each size whose multiple of 4 stays within 64, at most max_num_seqs 8: 1, 2, 4, 6, 8 ...
    assert split_decode_requests(grid, 4, 8) == [1, 2, 4, 6, 8]
    # ... the same graphs 0.33 reached by rounding the token sizes (4, 8, 16, 24, 32 tokens)
    assert _full_graph_sizes(grid, 8, q=4) == 5
    # but 0.33's model runner v1 rounded the whole list, PIECEWISE sizes too: 1 and 2 were gone
    assert round_sizes_for_spec_decode(grid, 4) == [4, 8, 16, 24, 32, 40, 48, 56, 64]
    split = split_capture_sizes(grid, q=4, max_num_seqs=8, max_tokens=8192, wide=False, draft=False, decode_only=False)
    assert split.prefill == tuple(grid)  # unrounded
    assert [n * q for n, q in split.decode_shapes] == [4, 8, 16, 24, 32]
    # a size whose request count passes max_num_seqs is captured at max_num_seqs (0.33 dropped it): given sizes 1 and
    # 32 at 4 sequences x 4 tokens: 0.33 kept 4 tokens only (32 > 16), 0.34 captures 1 and 4 requests (4 and 16 tokens)
    assert _full_graph_sizes([1, 32], 4, q=4) == 1
    split = split_capture_sizes([1, 32], q=4, max_num_seqs=4, max_tokens=8192, wide=False, draft=False, decode_only=False)
    assert split.decode_shapes == ((1, 4), (4, 4)) and split.recorded == (1, 4, 16, 32)


def test_drafter_decode_sizes_and_the_recorded_union():
    grid = [1, 2, 4, 8, 16]
    split = split_capture_sizes(grid, q=3, max_num_seqs=100, max_tokens=8192, wide=False, draft=True, decode_only=False)
    drafts = [n for n, _ in split.draft_decode_shapes]
    assert drafts == decode_capture_grid(100) and drafts[-1] == 100  # up to max_num_seqs, past the target's 16 tokens
    assert max(split.recorded) == 100                                # vLLM's max_cudagraph_capture_size follows them
    assert set(split.recorded) == set(grid) | {n * q for n, q in split.decode_shapes} | set(drafts)
    # the decode token budget (max_num_batched_tokens) bounds them, the first size past it captured at it
    small = split_capture_sizes(grid, q=3, max_num_seqs=100, max_tokens=50, wide=False, draft=True, decode_only=False)
    assert max(n for n, _ in small.draft_decode_shapes) == 50
    # FULL_DECODE_ONLY with no sizes given records the decode sizes alone
    only = split_capture_sizes(grid, q=3, max_num_seqs=100, max_tokens=8192, wide=False, draft=False, decode_only=True)
    assert set(only.recorded) == {n * q for n, q in only.decode_shapes} and 1 not in only.recorded


def test_llama_eagle3_k3_on_an_h100_033_against_034(head3):
    old, new = _fit("0.33.0", speculative_config=_eagle3(head3)), _fit("0.34.0", speculative_config=_eagle3(head3))
    g_old, g_new = _graphs(old), _graphs(new)
    shared = g_old["capture_sizes"]
    assert len(shared) == 51 and g_old["largest"] == 512 and "prefill_capture_sizes" not in g_old
    # 0.34: PIECEWISE at the same token sizes, unrounded (1 and 2 are no multiples of 4)
    assert g_new["prefill_capture_sizes"] == shared and {1, 2} <= set(g_new["prefill_capture_sizes"])
    # FULL uniform decode: requests up to 512 / 4 = 128, n x 4 tokens: the graphs 0.33's v2 rounding reached
    assert g_new["decode_query_len"] == 4 and g_new["decode_capture_requests"][-1] == 128
    assert g_new["full_decode_graphs"] == _full_graph_sizes(shared, 1024, q=4) == 49
    # the EAGLE-3 head's one-token draft decodes: the request grid up to max_num_seqs 1,024
    assert g_new["drafter_decode_requests"] == decode_capture_grid(1024) and g_new["drafter_decode_graphs"] == 64
    # vLLM's recorded sizes: the union, largest 1,024 (was 512)
    assert g_new["capture_sizes"] == sorted(set(shared) | {4 * n for n in g_new["decode_capture_requests"]}
                                            | set(decode_capture_grid(1024)))
    assert g_new["largest"] == 1024 and g_new["num_capture_sizes"] == len(g_new["capture_sizes"]) > 51
    note = next(a for a in new.assumptions if "keys its uniform-decode graphs on request counts" in a)
    assert "49 FULL uniform-decode graph(s) of n x 4 tokens" in note and "64 FULL graph(s)" in note
    assert "max_cudagraph_capture_size 1,024" in note
    assert not any("keys its uniform-decode graphs" in a for a in old.assumptions)
    # the target's graphs are the same 51 PIECEWISE + 49 FULL: the graph memory 0.33 subtracts as its estimate is the
    # pool 0.34 counts in non_kv_used after capture; the speculator's differ only in its one-token decode graphs
    # (0.33: the shared sizes up to max_num_seqs at q = 1; 0.34: 64 request counts), 1 MiB each
    assert new.cudagraph_bytes == 0
    drafter_new, drafter_old = new.cudagraphs["drafter_graph_bytes"], old.cudagraphs["drafter_graph_bytes"]
    assert new.cudagraph_capture_bytes - drafter_new == old.cudagraph_bytes - drafter_old
    decode_one_033 = _full_graph_sizes(shared, 1024, 1)
    assert drafter_new - drafter_old == (64 - decode_one_033) * MIB
    terms = {t.name: t for t in new.terms}
    assert "+ 47 further FULL decode graphs" in terms["cudagraph_capture"].formula  # 49 - the 2 sampled
    assert "51 capture sizes" in terms["cudagraph_capture"].formula
    # the simulator pads target steps to the target's graphs, not to the drafter's sizes
    sim_sizes = engine_config_from_plan(new).cudagraph_sizes
    assert max(sim_sizes) == 512 and 1024 not in sim_sizes and 3 not in sim_sizes


def test_one_draft_token_or_ngram_keep_no_drafter_decode_graphs(head3):
    one = _graphs(_fit("0.34.0", speculative_config=_eagle3(head3, k=1)))
    assert one["drafter_decode_graphs"] == 0 and one["largest"] == 512  # no draft decode steps after the first
    ngram = _graphs(_fit("0.34.0", speculative_config='{"method": "ngram", "num_speculative_tokens": 3}'))
    assert ngram["drafter_decode_graphs"] == 0 and ngram["drafter_decode_requests"] == []
    assert ngram["capture_sizes"] == ngram["prefill_capture_sizes"] and ngram["full_decode_graphs"] == 49


def test_suffix_033_rounded_on_model_runner_v1_034_request_counts():
    spec = '{"method": "suffix"}'
    old, new = _graphs(_fit("0.33.0", speculative_config=spec)), _graphs(_fit("0.34.0", speculative_config=spec))
    # 0.33: 24 draft tokens on model runner v1, every size a multiple of 25
    assert old["rounded_to_multiple_of"] == 25 and all(s % 25 == 0 for s in old["capture_sizes"])
    # 0.34: min(8, depth 24) = 8 draft tokens, q = 9: prefill sizes unrounded, decode graphs at n x 9 tokens
    assert new["rounded_to_multiple_of"] == 1 and new["decode_query_len"] == 9 and 1 in new["prefill_capture_sizes"]
    assert {9 * n for n in new["decode_capture_requests"]} <= set(new["capture_sizes"])
    assert new["drafter_decode_graphs"] == 0


def test_mtp_single_module_captures_draft_decodes_multi_module_does_not():
    spec = '{"method": "mtp", "num_speculative_tokens": 3}'
    single = _graphs(_fit("0.34.0", "H200", model="Qwen/Qwen3.5-27B", speculative_config=spec))
    assert single["drafter_layers"] == 1 and single["drafter_decode_graphs"] == len(decode_capture_grid(1024))
    # three MTP modules drafting three tokens: the multi-module speculator, no one-token draft decode graphs
    # (config/speculative.py use_multi_module_mtp)
    multi = _graphs(_fit("0.34.0", "H200", model="Qwen/Qwen3.5-27B", speculative_config=spec,
                         hf_overrides='{"text_config": {"mtp_num_hidden_layers": 3}}'))
    assert multi["drafter_layers"] == 3 and multi["drafter_decode_graphs"] == 0 and multi["largest"] == 512


def test_a_b200_records_the_drafter_sizes_beside_the_wide_grids(head3):
    g = _graphs(_fit("0.34.0", "B200", speculative_config=_eagle3(head3)))
    decode = decode_capture_shapes(decode_capture_grid(1024), 4, 1024, 8192)
    assert g["full_decode_graphs"] == len(decode) and g["drafter_decode_graphs"] == 64
    assert set(g["capture_sizes"]) == (set(prefill_capture_grid(8192)) | {n * q for n, q in decode}
                                       | set(decode_capture_grid(1024)))


def test_the_graph_memory_follows_the_034_graph_counts():
    # given sizes without max_num_seqs: 0.33 keeps 5 FULL graphs (sizes up to 20), 0.34 clamps 32 to 20 requests: 6
    kw = dict(max_num_seqs=20, cudagraph_capture_sizes="1 2 4 8 16 32")
    old, new = _fit("0.33.0", **kw), _fit("0.34.0", **kw)
    assert _graphs(new)["full_decode_graphs"] == 6 and 20 in _graphs(new)["capture_sizes"]
    assert 20 not in _graphs(old)["capture_sizes"]
    assert new.cudagraph_capture_bytes - old.cudagraph_capture_bytes == MIN_PER_GRAPH_BYTES
    # PIECEWISE mode captures no FULL graph at 0.34: its pool is (FULL graphs - the 2 sampled) MiB below the default's
    full = _fit("0.34.0")
    piecewise = _fit("0.34.0", compilation_config='{"cudagraph_mode": "PIECEWISE"}')
    assert _graphs(piecewise)["full_decode_graphs"] == 0
    assert full.cudagraph_capture_bytes - piecewise.cudagraph_capture_bytes == (_graphs(full)["full_decode_graphs"] - 2) * MIB
    assert piecewise.kv_cache_bytes >= full.kv_cache_bytes
