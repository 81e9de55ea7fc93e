"""--enable-lora captures every CUDA graph once without and once with active LoRA (CompilationConfig.
cudagraph_specialize_lora, default True from vLLM 0.11.1; v1/cudagraph_dispatcher.py): versions.py rows
cudagraph_lora_cases (model runner v1) and mrv2_lora_cases (v2), plan.cudagraphs.lora_graph_cases.

Round 47's L40S start (vLLM 0.14.0, tests/data/blind_records.jsonl) logs 102 = 2 x 51 PIECEWISE and 70 = 2 x 35 FULL
graphs and 1.26 GiB of them; kvplan charged 0.52 GiB for one case, 0.92 for two."""

from kvplan.api import engine_args
from kvplan.plan.cudagraphs import lora_graph_cases
from kvplan.versions import rules_for
from named_records import record_plan

L40S = "mistral-7b-instruct-v0.2-lora-l40s-u095-tp1-l4k-cold"
GIB = 1024 ** 3


def test_lora_cases_by_release_and_runner():
    lora = engine_args(enable_lora=True, max_model_len=4096)
    plain = engine_args(max_model_len=4096)
    assert lora_graph_cases(plain, rules_for("0.14.0"), "v1") == 1
    assert lora_graph_cases(lora, rules_for("0.11.0"), "v1") == 1   # no lora_cases in 0.11.0's capture_model
    for v in ("0.11.1", "0.14.0", "0.16.0", "0.21.0", "0.33.0"):
        assert lora_graph_cases(lora, rules_for(v), "v1") == 2, v
    # model runner v2: one has_lora graph per size in 0.22-0.23, get_lora_capture_cases from 0.24
    assert lora_graph_cases(lora, rules_for("0.23.0"), "v2") == 1
    assert lora_graph_cases(lora, rules_for("0.24.0"), "v2") == 2
    # cudagraph_specialize_lora false: v1 captures the LoRA graph only, v2 still [0, max_loras + 1]
    off = engine_args(enable_lora=True, max_model_len=4096, compilation_config='{"cudagraph_specialize_lora": false}')
    assert lora_graph_cases(off, rules_for("0.14.0"), "v1") == 1
    assert lora_graph_cases(off, rules_for("0.33.0"), "v2") == 2


def test_l40s_lora_start_charges_both_cases():
    rec, plan = record_plan("blind_records.jsonl", L40S)
    assert plan.cudagraphs["lora_cases"] == 2
    # 0.14.0 captures after the KV allocation: the capture, not the budget, carries the graphs (logged 1.26 GiB)
    assert 0.85 * GIB < plan.cudagraph_capture_bytes < rec["observed"]["cudagraph_gib"] * GIB
    assert any("--enable-lora captures each size 2 times" in n for n in plan.assumptions)
