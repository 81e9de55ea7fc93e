"""CUDA-graph capture sizes and graph memory under speculative decoding (plan.cudagraph_capture_sizes,
round_sizes_for_spec_decode, cudagraph_plan; versions rows cudagraph_* and drafter_cuda_graphs).

vLLM widens the largest capture size to 2 x max_num_seqs x (1 + k) from 0.13.0 (config/vllm.py _set_cudagraph_sizes),
rounds the sizes to multiples of 1 + k while FULL decode graphs are kept (compilation.py
adjust_cudagraph_sizes_for_spec_decode, from 0.11.1), and an EAGLE-family drafter captures PIECEWISE graphs of its own
layers in the target's graph pool (llm_base_proposer.py initialize_cudagraph_keys)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import kvplan
from kvplan.calibration import MRV2_G_PER, coefficients_for
from kvplan.plan import _full_graph_sizes, cudagraph_capture_sizes, round_sizes_for_spec_decode
from kvplan.resolve import resolve_gpu
from kvplan.versions import rules_for
from spec_heads import EAGLE3_HEAD

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
NGRAM3 = '{"method": "ngram", "num_speculative_tokens": 3}'
MTP3 = '{"method": "mtp", "num_speculative_tokens": 3}'
GRID_64 = [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64]


def _sizes(version, seqs, tokens, k=0, gpu=None):
    return cudagraph_capture_sizes(seqs, tokens, num_speculative_tokens=k, rules=rules_for(version),
                                   gpu=resolve_gpu(gpu)[0] if gpu else None)


def test_the_largest_size_counts_the_decode_query_from_0_13():
    """max_num_seqs 8, 3 draft tokens: 2 x 8 = 16 up to 0.12.0, 2 x 8 x 4 = 64 from 0.13.0 (the 0.27.1 RTX 5090 MTP
    log in tests/data/extra_records.jsonl: 'Profiling CUDA graph memory: PIECEWISE=11 (largest=64)')."""
    assert _sizes("0.12.0", 8, 8192, k=3) == [1, 2, 4, 8, 16]
    assert _sizes("0.13.0", 8, 8192, k=3) == GRID_64
    assert _sizes("0.27.1", 8, 8192, k=3) == GRID_64
    # without speculative decoding every release keeps 2 x max_num_seqs, and the no-rules call is that grid
    assert _sizes("0.13.0", 8, 8192) == _sizes("0.12.0", 8, 8192) == cudagraph_capture_sizes(8, 8192) == [1, 2, 4, 8, 16]
    # the token budget still caps it
    assert _sizes("0.27.1", 8, 48, k=3)[-1] == 48


def test_uniform_decode_sizes_from_0_29_and_max_num_seqs_from_0_31():
    # 10 sequences x 3 tokens: the grid up to 60, then 0.29.0 appends n x 3 for n in 1, 2, 4, 8, 10
    grid = [1, 2, 4, 8, 16, 24, 32, 40, 48, 56]
    assert _sizes("0.28.0", 10, 8192, k=2) == grid
    assert _sizes("0.29.0", 10, 8192, k=2) == sorted(set(grid + [3, 6, 12, 24, 30]))
    # without speculative decoding 0.31.0 appends max_num_seqs itself (10 is off the grid up to 20)
    assert _sizes("0.30.0", 10, 8192) == [1, 2, 4, 8, 16]
    assert _sizes("0.31.0", 10, 8192) == [1, 2, 4, 8, 10, 16]


def test_max_num_batched_tokens_captured_from_0_21_and_the_b200_ceiling_from_0_28():
    assert 300 not in _sizes("0.20.0", 256, 300) and _sizes("0.20.0", 256, 300)[-1] == 288
    assert _sizes("0.21.0", 256, 300)[-1] == 300
    assert _sizes("0.27.1", 1024, 8192, gpu="B200")[-1] == 512
    assert _sizes("0.28.0", 1024, 8192, gpu="B200")[-1] == 1024
    assert _sizes("0.28.0", 1024, 8192, gpu="H100")[-1] == 512


def test_rounding_to_multiples_of_the_decode_query():
    assert round_sizes_for_spec_decode(GRID_64, 4) == [4, 8, 16, 24, 32, 40, 48, 56, 64]
    assert round_sizes_for_spec_decode([1, 2, 4, 8, 16], 3) == [3, 6, 9]  # 18 is above the largest, dropped
    assert round_sizes_for_spec_decode([1, 2], 2) == [2]
    assert round_sizes_for_spec_decode([1, 2, 4], 5) == []  # vLLM raises "No valid cudagraph sizes after rounding"
    assert round_sizes_for_spec_decode(GRID_64, 1) == GRID_64


def test_model_runner_v2_full_decode_graphs_round_to_the_query():
    assert _full_graph_sizes([1, 2, 4, 8, 16], 4) == 3           # the sizes up to max_num_seqs
    assert _full_graph_sizes([1, 2, 4, 8, 16], 4, q=3) == 3      # 3, 6, 9 within 4 x 3 = 12 tokens
    assert _full_graph_sizes(GRID_64, 8, q=4) == 5               # 4, 8, 16, 24, 32 within 8 x 4 = 32 tokens
    assert _full_graph_sizes([], 8) == 0


@pytest.mark.parametrize("version, rounded", [("0.11.0", 1), ("0.11.1", 4), ("0.19.0", 4), ("0.20.0", 4)])
def test_the_rounding_starts_in_0_11_1(version, rounded):
    p = kvplan.fit(LLAMA, "H100", max_model_len=8192, speculative_config=NGRAM3, vllm_version=version, fixes=False)
    g = p.cudagraphs
    assert g["mode"] == "FULL_AND_PIECEWISE" and g["model_runner"] == "v1"
    assert g["rounded_to_multiple_of"] == rounded
    # 0.11.0 still captures every multiple of 8 up to 512 (versions.py cudagraph_size_grid): 67 sizes
    assert (g["capture_sizes"][0], g["num_capture_sizes"]) == ((1, 67) if rounded == 1 else (4, 49))
    assert g["drafter_graphs"] == 0  # n-gram drafting has no model
    plain = kvplan.fit(LLAMA, "H100", max_model_len=8192, vllm_version=version, fixes=False)
    per = coefficients_for(p.rules.era).g_per_layer_size
    assert p.cudagraph_capture_bytes - plain.cudagraph_capture_bytes == pytest.approx(
        per * 32 * (g["num_capture_sizes"] - plain.cudagraphs["num_capture_sizes"]), abs=2)


def test_the_rounding_follows_the_mode_by_release():
    """0.11.1-0.19 round only with a separate decode routine (FULL_AND_PIECEWISE, FULL_DECODE_ONLY); from 0.20.0 FULL
    too; PIECEWISE never."""
    def rounded(version, mode):
        p = kvplan.fit(LLAMA, "H100", max_model_len=8192, speculative_config=NGRAM3, vllm_version=version, fixes=False,
                       compilation_config={"cudagraph_mode": mode})
        return p.cudagraphs["rounded_to_multiple_of"]
    assert rounded("0.19.0", "FULL") == 1 and rounded("0.20.0", "FULL") == 4
    assert rounded("0.19.0", "FULL_DECODE_ONLY") == 4
    assert rounded("0.20.0", "PIECEWISE") == 1


def test_an_fp8_kv_cache_without_uniform_batch_graphs_keeps_piecewise_and_the_sizes():
    """FlashInfer serves an fp8 KV cache on an L40S (8.9) and an RTX 5090 (12.0) in 0.20-0.27 with single-token decode
    graphs only: vLLM downgrades to PIECEWISE and nothing is rounded; 0.28.0 gives SM12x the XQA decode graphs."""
    l40s = kvplan.fit(LLAMA, "L40S", max_model_len=8192, speculative_config=NGRAM3, vllm_version="0.20.0",
                      kv_cache_dtype="fp8", fixes=False)
    assert l40s.cudagraphs["mode"] == "PIECEWISE" and l40s.cudagraphs["rounded_to_multiple_of"] == 1
    assert any("downgrades the graphs to PIECEWISE" in a for a in l40s.assumptions)
    for version, mode in (("0.27.1", "PIECEWISE"), ("0.28.0", "FULL_AND_PIECEWISE")):
        p = kvplan.fit("Qwen/Qwen3.5-27B", "RTX 5090", max_model_len=32768, kv_cache_dtype="fp8", max_num_seqs=8,
                       speculative_config=MTP3, vllm_version=version, fixes=False)
        g = p.cudagraphs
        assert g["mode"] == mode and g["model_runner"] == "v1"
        if mode == "PIECEWISE":  # the record's log: PIECEWISE=11 (largest=64)
            assert g["capture_sizes"] == GRID_64 and g["rounded_to_multiple_of"] == 1
        else:
            assert g["capture_sizes"] == [4, 8, 16, 24, 32, 40, 48, 56, 64] and g["rounded_to_multiple_of"] == 4
        # the MTP layer captures one PIECEWISE graph per size, in the same pool
        assert g["drafter_layers"] == 1 and g["drafter_graphs"] == g["num_capture_sizes"] and g["drafter_shares_graph_pool"]
        per = coefficients_for(p.rules.era).g_per_layer_size
        assert g["drafter_graph_bytes"] == int(per * g["drafter_graphs"])
        assert p.speculative["drafter_cudagraphs"] == g["drafter_graphs"]
    # 0.33.0 serves it on model runner v2, whose speculator captures the MTP layer's PIECEWISE graphs at the same sizes
    # and measures them in its estimate (rules row mrv2_drafter_graph_methods), with its FULL ones: the draft prefill's
    # at the target's decode shapes (q = 4) and the one-token draft decodes' (q = 1), up to max_num_seqs 8;
    # and v2 rounds no capture sizes (cudagraph_spec_round_runners)
    v2 = kvplan.fit("Qwen/Qwen3.5-27B", "RTX 5090", max_model_len=32768, kv_cache_dtype="fp8", max_num_seqs=8,
                    speculative_config=MTP3, vllm_version="0.33.0", fixes=False).cudagraphs
    assert v2["model_runner"] == "v2" and v2["drafter_graphs"] == v2["num_capture_sizes"] == len(GRID_64)
    assert v2["mode"] == "FULL_AND_PIECEWISE"
    assert v2["drafter_full_graphs"] == _full_graph_sizes(GRID_64, 8, 4) + _full_graph_sizes(GRID_64, 8, 1) == 5 + 4
    assert v2["drafter_graph_bytes"] == int(MRV2_G_PER * v2["drafter_layers"] * v2["drafter_graphs"]
                                            + (1 << 20) * v2["drafter_full_graphs"])
    assert v2["capture_sizes"] == GRID_64 and v2["rounded_to_multiple_of"] == 1
    notes = kvplan.fit("Qwen/Qwen3.5-27B", "RTX 5090", max_model_len=32768, kv_cache_dtype="fp8", max_num_seqs=8,
                       speculative_config=MTP3, vllm_version="0.33.0", fixes=False).assumptions
    assert any("speculator captures 11 PIECEWISE graph(s)" in a for a in notes)


def test_an_eagle3_head_adds_its_piecewise_graphs(tmp_path: Path):
    path = tmp_path / "head.json"
    path.write_text(json.dumps(EAGLE3_HEAD))
    spec = json.dumps({"model": str(path), "method": "eagle3", "num_speculative_tokens": 3})
    p = kvplan.fit(LLAMA, "H100", max_model_len=8192, speculative_config=spec, vllm_version="0.20.0", fixes=False)
    g = p.cudagraphs
    assert g["mode"] == "FULL_AND_PIECEWISE" and g["rounded_to_multiple_of"] == 4
    assert g["drafter_layers"] == 1 and g["drafter_graphs"] == g["num_capture_sizes"] == 49
    ngram = kvplan.fit(LLAMA, "H100", max_model_len=8192, speculative_config=NGRAM3, vllm_version="0.20.0", fixes=False)
    per = coefficients_for(p.rules.era).g_per_layer_size
    # same sizes as n-gram drafting with the same k; the head's graphs are the difference
    assert p.cudagraph_capture_bytes - ngram.cudagraph_capture_bytes == pytest.approx(per * 49, abs=2)
    (term,) = [t for t in p.terms if t.name == "cudagraph"]
    assert "1 drafter layer(s) x 49 PIECEWISE graphs" in term.formula and "rounded to multiples of 4" in term.formula
    # the drafter's graphs follow the mixed mode: FULL_DECODE_ONLY captures none of them
    fdo = kvplan.fit(LLAMA, "H100", max_model_len=8192, speculative_config=spec, vllm_version="0.20.0", fixes=False,
                     compilation_config={"cudagraph_mode": "FULL_DECODE_ONLY"})
    assert fdo.cudagraphs["drafter_graphs"] == 0 and fdo.cudagraphs["drafter_layers"] == 1


def test_a_draft_model_drafter_captures_graphs_from_0_26_only():
    """A draft_model drafter's dispatcher keys are initialized only from 0.26.0 (gpu_model_runner.py
    _check_and_update_cudagraph_mode adds uses_draft_model() there); before, dispatch returns NONE and the drafter runs
    eagerly: no drafter graphs in the estimate. men16922/llmso-study's 0.23.0 pair shows it: with a Qwen2.5-0.5B draft
    model the graph estimate is (0.85 - 0.8165) x total, no more than n-gram drafting's (0.85 - 0.8153) x total."""
    spec = json.dumps({"method": "draft_model", "model": "Qwen/Qwen2.5-0.5B-Instruct", "num_speculative_tokens": 5})
    ngram = json.dumps({"method": "ngram", "num_speculative_tokens": 5})
    kw = dict(max_model_len=4096, gpu_memory_utilization=0.85, max_num_seqs=64, fixes=False)
    for version, captures in (("0.23.0", False), ("0.25.1", False), ("0.26.0", True), ("0.29.0", True)):
        p = kvplan.fit("Qwen/Qwen2.5-1.5B-Instruct", "RTX 4080 Laptop", speculative_config=spec, vllm_version=version, **kw)
        n = kvplan.fit("Qwen/Qwen2.5-1.5B-Instruct", "RTX 4080 Laptop", speculative_config=ngram, vllm_version=version, **kw)
        g = p.cudagraphs
        assert g["drafter_layers"] == 24
        assert g["model_runner"] == "v1" and g["num_capture_sizes"] == n.cudagraphs["num_capture_sizes"]
        if captures:
            assert g["drafter_graphs"] == g["num_capture_sizes"] > 0
            assert p.cudagraph_bytes > n.cudagraph_bytes
        else:
            assert g["drafter_graphs"] == 0 and p.cudagraph_bytes == n.cudagraph_bytes
            assert not any("PIECEWISE graphs of their own" in a for a in p.assumptions)
    assert not rules_for("0.25.1").draft_model_cuda_graphs and rules_for("0.26.0").draft_model_cuda_graphs


def test_no_graphs_no_graph_plan():
    p = kvplan.fit(LLAMA, "H100", max_model_len=8192, speculative_config=NGRAM3, enforce_eager=True, fixes=False)
    assert p.cudagraphs is None and p.to_dict()["cudagraphs"] is None and p.cudagraph_capture_bytes == 0
    d = kvplan.fit(LLAMA, "H100", max_model_len=8192, fixes=False).to_dict()["cudagraphs"]
    assert d["num_capture_sizes"] == len(d["capture_sizes"]) and d["drafter_graphs"] == 0


def test_the_rows_step_where_the_wheels_were_read():
    assert [rules_for(v).cudagraph_spec_round_modes for v in ("0.11.0", "0.11.1", "0.20.0")] == [
        (), ("FULL_AND_PIECEWISE", "FULL_DECODE_ONLY"), ("FULL", "FULL_AND_PIECEWISE", "FULL_DECODE_ONLY")]
    assert rules_for("0.24.0").cudagraph_spec_round_runners == ("v1", "v2")
    assert rules_for("0.25.0").cudagraph_spec_round_runners == ("v1",)
    assert [rules_for(v).spec_decode_piecewise_fp8_kv_cc_majors for v in ("0.19.0", "0.20.0", "0.28.0", "0.33.0")] == [
        (), (8, 12), (8,), ()]
    assert rules_for("0.10.2").cudagraph_mode_default == "PIECEWISE"
    assert rules_for("0.11.0").cudagraph_mode_default == "FULL_AND_PIECEWISE"
    assert not rules_for("0.8.5").drafter_cuda_graphs and rules_for("0.9.0").drafter_cuda_graphs


def test_model_runner_v2_before_0_29_subtracts_nothing_but_still_captures():
    """0.26-0.28's model runner v2 estimates no graph memory (profile_cudagraph_memory returns 0), so the budget
    subtracts none, but capture_model still captures PIECEWISE and FULL graphs after the KV allocation: the capture
    the plan predicts (its "Graph capturing finished ... took" line, --kv-cache-memory-bytes' fit check) is the V1
    formula, not 0 (the 0.26.0 RTX 4080 startup of tests/data/blind_records.jsonl logs 0.48 GiB), with the capture fit's
    coefficients (calibration.py CAPTURE_G_CONST/CAPTURE_G_PER), not V1-e/f's estimate's, which are larger."""
    from kvplan.calibration import CAPTURE_G_CONST, CAPTURE_G_PER
    kw = dict(gpu_memory_utilization=0.9, max_model_len=8192, max_num_seqs=256, fixes=False)
    p = kvplan.fit("Qwen/Qwen3-8B", "L40S", vllm_version="0.28.0", **kw)
    assert p.cudagraphs["model_runner"] == "v2"
    c = coefficients_for(p.rules.era)
    n = p.cudagraphs["num_capture_sizes"]
    assert p.cudagraph_bytes == 0
    assert p.cudagraph_capture_bytes == pytest.approx(CAPTURE_G_CONST + CAPTURE_G_PER * p.model.num_layers * n, abs=2)
    assert p.cudagraph_capture_bytes < c.g_const + c.g_per_layer_size * p.model.num_layers * n
    assert any(f"took {p.cudagraph_capture_bytes / 1024 ** 3:.2f} GiB" in line for line in p.vllm_log)
    (term,) = [t for t in p.terms if t.name == "cudagraph"]
    assert term.value == 0 and "estimates no CUDA-graph memory" in term.formula
    # the budget is the same as without the capture: the KV pool does not move
    eager = kvplan.fit("Qwen/Qwen3-8B", "L40S", vllm_version="0.28.0", enforce_eager=True, **kw)
    # (eager, Qwen3's MLP also holds gate_up beside down_proj's output: one T x H row more in the peak,
    # plan.dense_hidden_rows, which the pool gives up)
    assert eager.activation_peak_bytes - p.activation_peak_bytes == p.args.max_num_batched_tokens * 2 * p.model.hidden_size
    assert eager.cudagraph_capture_bytes == 0
    assert eager.kv_cache_bytes + eager.activation_peak_bytes == p.kv_cache_bytes + p.activation_peak_bytes
    # 0.29+ estimates its own (the profile's capture + 1 MiB per FULL graph past the two sampled): estimate and
    # capture are the same figure
    p29 = kvplan.fit("Qwen/Qwen3-8B", "L40S", vllm_version="0.29.0", **kw)
    assert p29.cudagraph_bytes == p29.cudagraph_capture_bytes > 0


def test_model_runner_v2_estimate_measures_every_piecewise_graph():
    """0.29+'s model runner v2 estimate (v1/worker/gpu/cudagraph_utils.py profile_cudagraph_memory, 0.29.0 and 0.33.0
    wheels) is the real capture against a throwaway pool, every PIECEWISE graph measured and FULL capture capped at the
    two largest graphs, the rest extrapolated from the second sample at >= 1 MiB each: kvplan charges the measured part
    per layer x capture size (calibration.py MRV2_G_*), so the estimate grows with layers x PIECEWISE sizes (it was a
    flat 0.25 GiB + 1 MiB per further FULL graph, whatever the model: the 0.29.0 Qwen3.5-4B L4 start logs 0.47 GiB
    estimated, kvplan 0.28, now 0.43)."""
    from kvplan.calibration import MRV2_G_CONST
    from kvplan.plan import _full_graph_sizes
    from kvplan.plan.cudagraphs import mrv2_graph_estimate_bytes
    mib = 1024 ** 2
    # measured + (full - 2) x 1 MiB; nothing extrapolated below three FULL graphs
    assert mrv2_graph_estimate_bytes(100 * mib, 35) == 133 * mib
    assert mrv2_graph_estimate_bytes(100 * mib, 2) == mrv2_graph_estimate_bytes(100 * mib, 1) == \
        mrv2_graph_estimate_bytes(100 * mib, 0) == 100 * mib
    kw = dict(gpu_memory_utilization=0.9, max_model_len=8192, fixes=False)
    small, large = (kvplan.fit(m, "H200", vllm_version="0.29.0", max_num_seqs=256, **kw)
                    for m in ("Qwen/Qwen3-Next-80B-A3B-Instruct", "Qwen/Qwen3.5-27B"))
    for p in (small, large):  # hybrid Gated DeltaNet models: model runner v2 from 0.29 (every model)
        assert p.cudagraphs["model_runner"] == "v2" and p.cudagraphs["mode"] == "FULL_AND_PIECEWISE"
        n = p.cudagraphs["num_capture_sizes"]
        full = _full_graph_sizes(p.cudagraphs["capture_sizes"], 256)
        assert (n, full) == (51, 35)
        assert p.cudagraph_bytes == pytest.approx(MRV2_G_CONST + MRV2_G_PER * p.model.num_layers * n
                                                  + (full - 2) * mib, abs=2)
        (term,) = [t for t in p.terms if t.name == "cudagraph"]
        assert "33 further FULL decode graphs x 1 MiB" in term.formula
    # 64 layers against 48: 16 x 51 more layer x size captures, 0.25 MiB each
    assert large.cudagraph_bytes - small.cudagraph_bytes == pytest.approx(16 * 51 * MRV2_G_PER, abs=2)
    # fewer sequences, fewer PIECEWISE sizes (up to 2 x 16) and FULL graphs (up to 16): a smaller estimate
    few = kvplan.fit("Qwen/Qwen3.5-27B", "H200", vllm_version="0.29.0", max_num_seqs=16, **kw)
    assert few.cudagraphs["num_capture_sizes"] == 7  # 1, 2, 4, 8, 16, 24, 32
    assert few.cudagraph_bytes == pytest.approx(MRV2_G_CONST + MRV2_G_PER * 64 * 7 + 3 * mib, abs=2)
    # 0.23.0 runs model runner v1 for a hybrid: its estimate keeps V1-e's formula
    v1 = kvplan.fit("Qwen/Qwen3.5-27B", "H200", vllm_version="0.23.0", max_num_seqs=256, **kw)
    c = coefficients_for(v1.rules.era)
    assert v1.cudagraphs["model_runner"] == "v1"
    assert v1.cudagraph_bytes == pytest.approx(c.g_const + c.g_per_layer_size * 64 * 51, abs=2)


def test_capture_sizes_of_the_v0_engine_and_of_v1_before_0_11_1():
    """The grids read in the wheels (versions.py cudagraph_size_grid): the V0 engine captures [1, 2, 4] + multiples of 8 up
    to max_num_seqs rounded up to one of them, whatever max_num_batched_tokens is; V1 0.8-0.9 every multiple of 8 up to
    512, 0.10.0-0.11.0 up to min(2 x max_num_seqs, 512), both within max_num_batched_tokens; 0.11.1 on the 8/16 grid."""
    assert _sizes("0.6.4.post1", 256, 2048) == [1, 2, 4] + list(range(8, 257, 8))  # 35 sizes
    assert _sizes("0.7.3", 192, 2048)[-1] == 192 and len(_sizes("0.7.3", 192, 2048)) == 27
    assert _sizes("0.7.3", 6, 8192) == [1, 2, 4, 8] and _sizes("0.7.3", 1, 8192) == [1]
    assert len(_sizes("0.8.5", 1024, 8192)) == len(_sizes("0.9.2", 8, 8192)) == 67
    assert _sizes("0.9.2", 256, 100) == [1, 2, 4] + list(range(8, 97, 8))
    assert len(_sizes("0.10.2", 256, 8192)) == 67 and _sizes("0.10.2", 1, 2048) == [1, 2, 4]
    assert _sizes("0.11.0", 32, 8192) == [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64]
    assert len(_sizes("0.11.1", 256, 8192)) == 51 and _sizes("0.11.1", 1, 2048) == [1, 2]
    # a 0.8-0.10 release running its V0 engine captures V0's list (a T4, compute capability 7.5, on 0.8.2)
    p = kvplan.fit("meta-llama/Llama-3.2-3B-Instruct", "T4", vllm_version="0.8.2", max_model_len=4096, max_num_seqs=192,
                   fixes=False)
    assert p.rules.engine == "v0" and p.cudagraphs["num_capture_sizes"] == 27


def test_capture_coefficients_where_not_subtracted_and_the_estimate_where_it_is():
    """V0 and V1 up to 0.19 (the capture alone) take the capture fit, 0.12 GiB + 0.25 MiB per layer x size; from 0.20,
    where the budget subtracts the estimate, the coefficients the KV-pool fit of that group was made with."""
    for era in ("V0-a", "V0-b", "V0-c", "V1-a", "V1-b", "V1-c", "V1-d"):
        c = coefficients_for(era)
        assert (c.g_const, c.g_per_layer_size) == (0.12 * 1024 ** 3, 0.25 * 1024 ** 2), era
    for era in ("V1-e", "V1-f"):
        c = coefficients_for(era)
        assert (c.g_const, c.g_per_layer_size) == (0.25 * 1024 ** 3, 0.00028 * 1024 ** 3), era
    # the printed capture of a 0.19 startup and of a 0.20 one (same model, GPU and sizes) differ by the two fits
    kw = dict(max_model_len=8192, max_num_seqs=256, fixes=False)
    p19 = kvplan.fit(LLAMA, "L40S", vllm_version="0.19.0", **kw)
    p20 = kvplan.fit(LLAMA, "L40S", vllm_version="0.20.0", **kw)
    ls = 32 * 51
    assert p19.cudagraph_bytes == 0 and p19.cudagraph_capture_bytes == pytest.approx(0.12 * 1024 ** 3 + ls * 0.25 * 1024 ** 2, abs=2)
    assert p20.cudagraph_bytes == p20.cudagraph_capture_bytes == pytest.approx(0.25 * 1024 ** 3 + ls * 0.00028 * 1024 ** 3, abs=2)


def _head_spec(tmp_path: Path, k: int) -> str:
    path = tmp_path / "head.json"
    path.write_text(json.dumps(EAGLE3_HEAD))
    return json.dumps({"method": "eagle3", "model": str(path), "num_speculative_tokens": k})


def test_no_size_left_after_the_rounding_is_vllms_error_from_0_12(tmp_path: Path):
    """max_num_seqs 1 and 3 draft tokens in 0.12.0: sizes [1, 2] (the largest does not count q before 0.13), none a
    multiple of 4 within 2: adjust_cudagraph_sizes_for_spec_decode raises; 0.11.2 logs a warning and keeps [1, 2];
    0.13.0 widens the largest to 8, so [4, 8]."""
    from kvplan.errors import RefusedByVLLMError

    spec = _head_spec(tmp_path, 3)
    kw = dict(max_model_len=8192, max_num_seqs=1, speculative_config=spec, fixes=False)
    with pytest.raises(RefusedByVLLMError, match=r"No valid cudagraph sizes after rounding to multiple of 4 "
                       r"\(num_speculative_tokens \+ 1 or tp if sequence parallelism is enabled\).*\(\[1, 2\]\)"):
        kvplan.fit(LLAMA, "H100", vllm_version="0.12.0", **kw)
    kept = kvplan.fit(LLAMA, "H100", vllm_version="0.11.2", **kw).cudagraphs
    assert kept["capture_sizes"] == [1, 2] and kept["rounded_to_multiple_of"] == 1
    assert kvplan.fit(LLAMA, "H100", vllm_version="0.13.0", **kw).cudagraphs["capture_sizes"] == [4, 8]


def test_tensor_parallelism_joins_the_rounding_in_0_11_1_and_0_11_2(tmp_path: Path):
    """0.11.1-0.11.2 round to max(q, TP) at any TP > 1 and raise unless that is a multiple of both; 0.12.0 on, only
    with sequence parallelism (off by default)."""
    from kvplan.errors import RefusedByVLLMError

    assert rules_for("0.11.2").cudagraph_spec_round_with_tp and not rules_for("0.12.0").cudagraph_spec_round_with_tp
    kw = dict(max_model_len=8192, fixes=False)
    with pytest.raises(RefusedByVLLMError, match="both a multiple of 3 .* and 2 \\(tensor_parallel_size\\)"):
        kvplan.fit(LLAMA, "H100", vllm_version="0.11.2", tensor_parallel_size=2, speculative_config=_head_spec(tmp_path, 2), **kw)
    ok = kvplan.fit(LLAMA, "H100", vllm_version="0.12.0", tensor_parallel_size=2, speculative_config=_head_spec(tmp_path, 2), **kw)
    assert ok.cudagraphs["rounded_to_multiple_of"] == 3
    tp4 = kvplan.fit(LLAMA, "H100", vllm_version="0.11.2", tensor_parallel_size=4, speculative_config=_head_spec(tmp_path, 1), **kw)
    assert tp4.cudagraphs["rounded_to_multiple_of"] == 4 and all(s % 4 == 0 for s in tp4.cudagraphs["capture_sizes"])
    assert any("max(1 + 1, TP 4) = 4" in a for a in tp4.assumptions)


def test_model_runner_v2_full_graphs_follow_the_mode_0_29_to_0_33(tmp_path: Path):
    """Model runner v2 (0.29-0.33) makes FULL descriptors by the mode (v1/worker/gpu/cudagraph_utils.py
    CudaGraphManager._init_candidates, 0.29.0 and 0.33.0 wheels): uniform-decode ones where the mode has a separate
    FULL decode routine, one per capture size where the mixed mode is FULL, none under PIECEWISE; the estimate
    extrapolates over that count (profile_cudagraph_memory), so PIECEWISE adds no FULL decode graph."""
    from kvplan.calibration import MRV2_G_CONST
    from kvplan.plan.cudagraphs import CudaGraphPlan
    sizes = tuple(GRID_64)
    assert CudaGraphPlan(mode="PIECEWISE", sizes=sizes, rounded_to=1).full_count(8, 4) == 0
    assert CudaGraphPlan(mode="NONE", sizes=sizes, rounded_to=1).full_count(8) == 0
    assert CudaGraphPlan(mode="FULL", sizes=sizes, rounded_to=1).full_count(8, 4) == len(sizes)
    for mode in ("FULL_AND_PIECEWISE", "FULL_DECODE_ONLY"):
        assert CudaGraphPlan(mode=mode, sizes=sizes, rounded_to=1).full_count(8, 4) == _full_graph_sizes(sizes, 8, 4)
    mib = 1024 ** 2
    kw = dict(gpu_memory_utilization=0.9, max_model_len=8192, max_num_seqs=256, fixes=False)
    for version in ("0.29.0", "0.33.0"):
        pw, fap = (kvplan.fit("Qwen/Qwen3-8B", "H100", vllm_version=version, compilation_config={"cudagraph_mode": m}, **kw)
                   for m in ("PIECEWISE", "FULL_AND_PIECEWISE"))
        assert pw.cudagraphs["model_runner"] == fap.cudagraphs["model_runner"] == "v2"
        n = pw.cudagraphs["num_capture_sizes"]
        assert n == fap.cudagraphs["num_capture_sizes"]
        assert pw.cudagraph_bytes == pytest.approx(MRV2_G_CONST + MRV2_G_PER * 36 * n, abs=2)
        full = _full_graph_sizes(fap.cudagraphs["capture_sizes"], 256)
        assert full > 2 and fap.cudagraph_bytes - pw.cudagraph_bytes == pytest.approx((full - 2) * mib, abs=2)
        assert pw.kv_cache_tokens >= fap.kv_cache_tokens
        (term,) = [t for t in pw.terms if t.name == "cudagraph"]
        assert "captures no FULL graph" in term.formula and "further FULL" not in term.formula
    # an EAGLE-3 head (decode query 4): the rounded uniform-decode graphs are gone under PIECEWISE as well
    path = tmp_path / "head.json"
    path.write_text(json.dumps(EAGLE3_HEAD))
    spec = json.dumps({"model": str(path), "method": "eagle3", "num_speculative_tokens": 3})
    p = kvplan.fit(LLAMA, "H100", max_model_len=8192, speculative_config=spec, vllm_version="0.33.0", fixes=False,
                   compilation_config={"cudagraph_mode": "PIECEWISE"})
    assert p.cudagraphs["mode"] == "PIECEWISE" and p.cudagraphs["model_runner"] == "v2"
    # (32 target layers + the head's 1, whose PIECEWISE graphs the speculator captures at the same sizes)
    assert p.cudagraph_bytes == pytest.approx(MRV2_G_CONST + MRV2_G_PER * 33 * p.cudagraphs["num_capture_sizes"], abs=2)
