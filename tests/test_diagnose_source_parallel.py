"""A second pass over vLLM's raise statements (the 0.27.1 and 0.33.0 wheels): the refusals of the parallel and
data-parallel launch code (vllm/config/parallel.py, engine/arg_utils.py's data-parallel checks, entrypoints/cli/serve.py,
v1/engine/utils.py, distributed/), and of the hybrid/Mamba code (model_executor/layers/mamba/, the Mamba and GDN
attention builders, config/vllm.py's Mamba checks), each written as the line a user meets. None was read before this
pass (docs/startup-errors-from-source.md, "Second pass"). Each line's reading, alone and behind vLLM's error prefix, is
asserted with the first pass's lines (tests/test_diagnose_source.py PARALLEL_AND_HYBRID_REFUSALS); here, what only
these lines need."""

from __future__ import annotations

from kvplan.diagnose import CONFIDENT, diagnose
from kvplan.logs import SIGNATURES_BY_NAME


def test_the_mamba_refusal_whole_reads_by_its_own_signature_and_cut_by_the_second_pass():
    # vllm/config/compilation.py CompilationConfig.resolve_cudagraph_mode_and_sizes (0.27.1, 0.33.0)
    whole = ("ValueError: max_num_seqs (256) exceeds available Mamba cache blocks (180). Each decode sequence requires one "
             "Mamba cache block, so CUDA graph capture cannot proceed. Please lower max_num_seqs to at most 180 or increase "
             "gpu_memory_utilization.")
    findings = diagnose([whole]).findings
    assert [f.symptom for f in findings].count("state_blocks_below_max_num_seqs") == 1
    assert findings[0].confidence >= 0.95 and "256" in findings[0].cause and "180" in findings[0].cause
    # rwlove/home-ops PR 13226 quotes it without the head (before this pass: no finding)
    cut = diagnose(["exceeds available Mamba cache blocks (95)... CUDA graph capture cannot proceed"]).top
    assert (cut.symptom, cut.layer) == ("state_blocks_below_max_num_seqs", "memory_budget")
    assert cut.confidence >= CONFIDENT and "95" in cut.fix


def test_an_external_lb_rank_at_dp_1_is_a_hint_naming_the_launcher_and_both_fixes():
    # vllm/config/parallel.py ParallelConfig._validate_parallel_config (0.9.2-0.33.0); NovaSky-AI/SkyRL#1575
    top = diagnose(["  Value error, data_parallel_external_lb can only be set when data_parallel_size > 1"]).top
    assert (top.symptom, top.layer) == ("invalid_engine_flags", "client_code") and top.confidence < CONFIDENT
    assert "--data-parallel-size" in top.fix and "--data-parallel-rank" in top.fix


def test_the_second_pass_signatures_cite_their_file_and_releases():
    names = [n for n in SIGNATURES_BY_NAME if n.startswith("src_")]
    assert len(names) >= 80
    for name in ("src_dp_external_lb_without_dp", "src_dp_launch_options", "src_mamba_blocks_unheaded",
                 "src_quant_group_tp_split", "src_shm_insufficient", "src_mamba_tp_split"):
        sig = SIGNATURES_BY_NAME[name]
        assert "vllm/" in sig.source and ("0.27.1" in sig.source or "0.33.0" in sig.source)
