"""Every number kvplan prints can be traced: --explain / --json give its terms, and the terms add up to it."""

from __future__ import annotations

import json
import math
import re
import subprocess

import pytest
from rich.console import Console

import kvplan


def run(*args):
    return subprocess.run(["kvplan", *args], capture_output=True, text=True, timeout=120)


def leading_arithmetic(formula: str) -> float:
    """The value of the expression a bytes_per_block formula opens with ("10 x 131,072 B: ..."), read independently:
    thousands separators and the unit dropped, 'x' as multiplication, max(...) as the largest."""
    expr = re.sub(r"(?<=\d),(?=\d{3})", "", formula.split(": ")[0]).replace(" B", "").replace(" x ", " * ")
    assert re.fullmatch(r"[\d\s*+(),max]+", expr), formula
    return eval(expr, {"max": max})


# (model, GPU, flags): one of each way a block is sized -- one group; a hybrid of window and full groups that share a
# block; recurrent + full groups; DeepSeek-V4 under each accounting; V0's one cache of mixed shapes
BLOCK_CASES = [
    ("Qwen/Qwen3-8B", "H100", {}),
    ("google/gemma-3-27b-it", "H100", {"max_model_len": 32768}),
    ("Qwen/Qwen3-Next-80B-A3B-Instruct", "H200", {"tensor_parallel_size": 2}),
    ("deepseek-ai/DeepSeek-V4-Pro", "H200", {"tensor_parallel_size": 8}),
    ("deepseek-ai/DeepSeek-V4-Pro", "H200", {"tensor_parallel_size": 8, "vllm_version": "0.22.0"}),
    ("deepseek-ai/DeepSeek-V4-Pro", "H200", {"tensor_parallel_size": 8, "vllm_version": "0.25.0"}),
    ("google/gemma-4-26B-A4B", "H100", {"vllm_version": "0.6.3"}),
    ("google/gemma-4-26B-A4B", "H100", {}),
]


@pytest.mark.parametrize("model,gpu,flags", BLOCK_CASES)
def test_bytes_per_block_formula_multiplies_out_to_its_value(model, gpu, flags):
    # gemma-3: 52 sliding layers in 6 groups of up to 10 plus 10 full layers: a block is 10 page slots, not the
    # 4 x 9 layers the old formula listed; Qwen3-Next: 4 groups of 12 share a block of 12 pages, not 48
    p = kvplan.fit(model, gpu, fixes=False, **flags)
    term = {t.name: t for t in p.terms}["bytes_per_block"]
    assert term.value == p.bytes_per_block
    assert leading_arithmetic(term.formula) == p.bytes_per_block


def test_a_hybrid_block_is_its_largest_group_times_one_page():
    p = kvplan.fit("google/gemma-3-27b-it", "H100", max_model_len=32768, fixes=False)
    slots = max(g.num_layers for g in p.groups)
    assert {g.page_bytes for g in p.groups} == {131_072}  # 2 x 16 KV heads x 128 head_dim x 2 B x 16 tokens
    assert p.bytes_per_block == slots * 131_072
    assert {t.name: t for t in p.terms}["bytes_per_block"].formula.startswith(f"{slots} x 131,072 B: 7 groups")


@pytest.mark.parametrize("model,gpu,flags", [BLOCK_CASES[0], BLOCK_CASES[1], BLOCK_CASES[2]])
def test_fit_json_terms_add_up_to_every_figure(model, gpu, flags):
    cli = [model, "--gpu", gpu] + [x for k, v in flags.items() for x in (f"--{k.replace('_', '-')}", str(v))]
    r = run("fit", "--json", *cli)
    d = json.loads(r.stdout)
    t = {x["name"]: x["value"] for x in d["terms"]}
    # the budget, then the pool left after every term vLLM subtracts (section 1.3)
    assert t["requested"] == math.ceil(t["total"] * d["args"]["gpu_memory_utilization"]) == d["requested_bytes"]
    assert t["kv_cache"] == pytest.approx(t["requested"] - t["weights"] - t["non_torch"] - t["activation_peak"] - t["cudagraph"], abs=1)
    assert d["kv_cache_bytes"] == t["kv_cache"]
    assert d["num_gpu_blocks"] == t["num_gpu_blocks"] == math.floor(t["kv_cache"] / t["bytes_per_block"])
    assert d["max_concurrency"] == pytest.approx(t["num_gpu_blocks"] / t["blocks_per_request"])
    assert d["kv_cache_tokens"] == int(d["max_concurrency"] * d["args"]["max_model_len"])


def test_explain_prints_every_source_whole_on_a_narrow_terminal():
    from kvplan.render import explain_table

    p = kvplan.fit("Qwen/Qwen3-8B", "H100", fixes=False)
    console = Console(width=80, record=True, color_system=None)
    console.print(explain_table(p))
    out = console.export_text()
    assert "…" not in out  # nothing cut short: not the GPU's source URL, not a term's name
    # the source column, read back row by row (its last cell), folded lines joined
    joined = "".join(line.split("│")[-2] for line in out.splitlines() if line.count("│") == 5)
    joined = re.sub(r"\s", "", joined)
    for term in p.terms:
        assert re.sub(r"\s", "", term.source) in joined, term.name


def test_explain_and_json_give_the_first_starts_pool_beside_the_warm_one():
    # a compiling first start loses loss_bytes_least .. loss_bytes_most of the warm pool (plan.cold_start_pool_loss_bytes):
    # --json first_start carries both ends, --explain prints them under the kv_cache term; an eager start has none
    from kvplan.render import explain_table

    p = kvplan.fit("Qwen/Qwen3-8B", "RTX 4090", max_model_len=8192, vllm_version="0.27.1", fixes=False)
    first = p.to_dict()["first_start"]
    assert first["kv_cache_bytes_least"] == p.kv_cache_bytes - first["loss_bytes_most"]
    assert first["kv_cache_bytes_most"] == p.kv_cache_bytes - first["loss_bytes_least"]
    assert 0 < first["loss_bytes_least"] < first["loss_bytes_most"]
    console = Console(width=300, record=True, color_system=None)
    console.print(explain_table(p))
    row = next(line for line in console.export_text().splitlines() if "kv_cache (first start)" in line)
    assert (f"{first['kv_cache_bytes_least'] / 2**30:,.2f}-{first['kv_cache_bytes_most'] / 2**30:,.2f} GiB" in row
            and "kvplan.plan.cudagraphs cold_start_pool_loss_bytes" in row)
    eager = kvplan.fit("Qwen/Qwen3-8B", "RTX 4090", max_model_len=8192, enforce_eager=True, fixes=False)
    assert eager.to_dict()["first_start"] is None
    console = Console(width=300, record=True, color_system=None)
    console.print(explain_table(eager))
    assert "first start" not in console.export_text()
    # a compiling start that costs nothing (a multimodal profile, the combo-kernel benchmark off) says so, not
    # 'kv_cache - 0.00 .. 0.00 GiB'
    off = kvplan.fit("Qwen/Qwen3-8B", "RTX 4090", max_model_len=8192, fixes=False,
                     compilation_config='{"inductor_compile_config": {"combo_kernels": false}}')
    assert off.to_dict()["first_start"]["loss_bytes_most"] == 0
    console = Console(width=300, record=True, color_system=None)
    console.print(explain_table(off))
    row = next(line for line in console.export_text().splitlines() if "kv_cache (first start)" in line)
    assert "0.00 .. 0.00" not in row and "no loss" in row and "combo-kernel benchmark off" in row


def test_a_given_kv_pool_says_so_in_its_term():
    p = kvplan.fit("Qwen/Qwen3-8B", "H100", kv_cache_memory_bytes=20 * 1024 ** 3, fixes=False)
    term = {t.name: t for t in p.terms}["kv_cache"]
    assert term.value == 20 * 1024 ** 3
    assert "requested - weights" not in term.formula and "--kv-cache-memory-bytes 21,474,836,480" in term.formula
    # vLLM skips the memory profile for a given pool (gpu_worker.py determine_available_memory): the compile-cache
    # note said a first start 'has logged 0.8-1.7 GiB less KV pool', which a given pool does not lose
    from kvplan.plan import COMPILE_CACHE_NOTE
    note = next(a for a in p.assumptions if a.startswith(COMPILE_CACHE_NOTE))
    assert "less KV pool" not in note and "--kv-cache-memory-bytes" in note and "same pool" in note
    assert p.first_start is None


# ---- capacity: the percentile it prints is in its JSON, as the bisection compared it


def _cli(*args: str):
    from typer.testing import CliRunner

    from kvplan.cli import app

    res = CliRunner().invoke(app, list(args))
    return res.exit_code, res.output


SMALL = ["Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4", "--max-model-len", "8192", "-w", "azure-conv", "-n", "300",
         "--slo", "ttft=300ms", "--percentile", "95"]


def test_capacity_prints_the_percentile_its_json_holds():
    code, text = _cli("capacity", *SMALL)
    assert code == 0, text
    code, out = _cli("capacity", *SMALL, "--json")
    d = json.loads(out[out.index("{"):])
    check = d["at_max_rate"]["slo_check"]  # p95 is none of the p50/p90/p99 the latency summaries carry
    assert check["percentile"] == 95 and check["meets"] is True and check["ttft_ms"] <= 300
    printed = re.search(r"TTFT p95 ([\d.,]+) ms, TPOT p95 ([\d.,]+) ms", " ".join(text.split()))
    assert printed, text
    assert printed.group(1) == f"{check['ttft_ms']:,.1f}" and printed.group(2) == f"{check['tpot_ms']:,.1f}"


def test_slo_check_ranks_rejected_requests_last():
    import numpy as np

    from kvplan.simulate import EngineConfig, StepModel, parse_slo, scheduler_rules, simulate
    from kvplan.workload import Workload

    sm = StepModel.from_numbers(weights_bytes=2e8, active_params=1e8, num_layers=4, hidden_size=512, num_attention_heads=8,
                                num_kv_heads=2, head_dim=64, vocab_size=1000, kv_bytes_per_token=1024,
                                hbm_bytes_per_s=1e11, peak_flops_per_s=1e13)
    # 3 of 10 requests are longer than max_model_len: rejected, so they are the slowest 30 % of all 10
    w = Workload(name="t", prompt_tokens=np.asarray([100] * 7 + [5000] * 3), completion_tokens=np.asarray([20] * 10),
                 arrival_s=np.arange(10, dtype=float))
    r = simulate(w, EngineConfig(num_gpu_blocks=2000, block_size=16, max_num_seqs=8, max_num_batched_tokens=256,
                                 max_model_len=4096), sm, scheduler_rules("0.19.0"), slo=parse_slo("ttft=10s", 50))
    check = r.to_dict()["slo_check"]
    # the median of all 10 is the 50 x 10 / 7 = 71.4th percentile of the 7 served
    assert check["percentile_of_completed"] == pytest.approx(50 * 10 / 7)
    assert check["ttft_ms"] == pytest.approx(np.percentile(r.ttft_s, 50 * 10 / 7) * 1e3)
    assert check["meets"] is r.meets() is True
    p99 = r.slo_check(parse_slo("ttft=10s", 99))  # beyond the served 70 %: no value, missed
    assert p99["ttft_ms"] is None and p99["meets"] is False


# ---- reconcile: the length the concurrency line states is the log's max_model_len, in the table and the record


def test_reconcile_reads_max_model_len_from_the_concurrency_line_and_writes_it_into_the_record():
    from pathlib import Path

    from kvplan.logs import parse_lines
    from kvplan.reconcile import reconcile
    from kvplan.validate import predict_record

    lines = [json.loads(x) for x in (Path(__file__).parent / "data" / "vllm_log_excerpts.jsonl").read_text().splitlines()
             if x.strip()][42]["lines"]
    assert any("Maximum concurrency for 8192 tokens per request" in x for x in lines)  # the only length it prints
    plan = kvplan.fit("Qwen/Qwen2.5-14B-Instruct", "A100-40GB", max_model_len=8192, gpu_memory_utilization=0.8,
                      vllm_version="0.7.3", fixes=False)
    result = reconcile(parse_lines(lines), plan)
    row = {r.term: r for r in result.rows}["max_model_len"]
    assert row.observed == 8192 and row.gap == 0
    assert result.record["args"]["max_model_len"] == 8192
    # the record validates to the plan reconcile compared with (at the model's 32,768 the pool was 84 % off)
    again, _ = predict_record({**result.record, "vllm_version": "0.7.3"})
    assert again.args.max_model_len == 8192 and again.kv_cache_bytes == pytest.approx(plan.kv_cache_bytes)


# ---- scaffold: the arithmetic in serve.sh / README adds up, for hybrid models too


def _evaluate(expr: str) -> float:
    expr = re.sub(r"(?<=\d),(?=\d{3})", "", expr).replace(" x ", " * ")
    assert re.fullmatch(r"[\d\s*/+().int]+", expr), expr
    return eval(expr, {"int": int})


@pytest.mark.parametrize("model,gpu,flags", [BLOCK_CASES[0], BLOCK_CASES[1], BLOCK_CASES[2]])
def test_scaffold_arithmetic_adds_up(model, gpu, flags):
    from kvplan.deploy import render_files, spec_from_plan

    p = kvplan.fit(model, gpu, fixes=False, **flags)
    serve = render_files(spec_from_plan(p))["serve.sh"]
    lines = {m.group(1): m.group(2) for m in re.finditer(r"^#   (max concurrency|KV cache tokens)\s+(.*)$", serve, re.M)}
    conc_expr, conc_shown = lines["max concurrency"].removesuffix(" full-length sequences").rsplit(" = ", 1)
    assert f"{_evaluate(conc_expr):.2f}" == conc_shown == f"{p.max_concurrency:.2f}"
    tokens_expr, tokens_shown = lines["KV cache tokens"].rsplit(" = ", 1)
    assert _evaluate(tokens_expr.split(" = ")[-1]) == int(tokens_shown.replace(",", "")) == p.kv_cache_tokens
    # Qwen3-Next: 8,201 blocks of 544 tokens are 4,461,344 token slots, yet the pool holds 4,378,498 full-length tokens
    # (each request also takes 9 recurrent-state pages): the old "blocks x block size = tokens" line did not hold
    assert not re.search(r"blocks\s+[\d,]+ x \d+ tokens = ", serve)


# ---- fit: the KV-per-token line's per-sequence MiB follows from the figures beside it


@pytest.mark.parametrize("model", ["google/gemma-3-27b-it", "microsoft/Phi-3.5-mini-instruct"])
def test_window_kv_line_states_the_tokens_its_mib_counts(model):
    from kvplan.render import kv_per_token_text

    p = kvplan.fit(model, "H100", fixes=False)
    text = kv_per_token_text(p)
    per_token = int(re.search(r"([\d,]+) B \([\d.]+ KiB\) per rank up to the window", text).group(1).replace(",", ""))
    reserved = int(re.search(r"reserves ([\d,]+) tokens' pages", text).group(1).replace(",", ""))
    mib = float(re.search(r"at most ([\d,.]+) MiB per sequence", text).group(1).replace(",", ""))
    # gemma-3: 1,024-token window, but 1,023 + 2 x 8,192 in-flight tokens in whole 16-token blocks, + 1 = 17,424 tokens
    assert reserved >= p.window_kv_per_token[1]
    assert f"{reserved * per_token / 1024 ** 2:,.1f}" == f"{mib:,.1f}"


@pytest.mark.parametrize("model, gpu", [("google/gemma-3-27b-it", "H100"), ("poolside/Laguna-S-2.1-FP8", "H200")])
def test_window_kv_line_says_why_the_reservation_exceeds_the_window(model, gpu):
    """The line names the window a sequence attends to and the pages vLLM reserves for it, and the reason the second is
    larger: vLLM sizes a window layer per sequence for sliding_window - 1 tokens plus every batch in flight
    (max_concurrent_batches x max_num_batched_tokens), in blocks, + 1 for a window that starts mid-block
    (v1/kv_cache_interface.py SlidingWindowSpec.max_admission_blocks_per_request, 0.29.0). Both numbers must follow
    from the figures the line states, the window from the model's config."""
    from kvplan.render import kv_per_token_text

    p = kvplan.fit(model, gpu, fixes=False)
    text = kv_per_token_text(p)
    assert "capped at" not in text
    window = int(re.search(r"attends to at most its last ([\d,]+) tokens", text).group(1).replace(",", ""))
    reserved = int(re.search(r"reserves ([\d,]+) tokens' pages", text).group(1).replace(",", ""))
    batches, mnbt = (int(x.replace(",", "")) for x in re.search(r"the window plus (\d+) × ([\d,]+) tokens of the steps "
                                                                 r"in flight", text).groups())
    block = int(re.search(r"in whole (\d+)-token blocks", text).group(1))
    cfg = p.model.text_config
    assert window == min(int(cfg["sliding_window"]), p.args.max_model_len)
    assert mnbt == p.args.max_num_batched_tokens and block == p.block_size and batches >= 1
    assert reserved == (-(-(window - 1 + batches * mnbt) // block) + 1) * block > window


# ---- simulate --plot: the peaks the text prints are drawn, though the series are sampled


def test_simulate_plots_draw_the_printed_peaks(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.axes import Axes
    from PIL import Image

    from kvplan.cli.simulate import write_plots
    from kvplan.simulate import EngineConfig, StepModel, scheduler_rules, simulate
    from kvplan.workload import WorkloadSpec, build_workload

    sm = StepModel.from_numbers(weights_bytes=2e8, active_params=1e8, num_layers=4, hidden_size=512, num_attention_heads=8,
                                num_kv_heads=2, head_dim=64, vocab_size=1000, kv_bytes_per_token=1024,
                                hbm_bytes_per_s=1e11, peak_flops_per_s=1e13)
    w = build_workload(WorkloadSpec(workload="azure-conv", max_requests=300, rate_per_s=8.0))
    res = simulate(w, EngineConfig(num_gpu_blocks=4000, block_size=16, max_num_seqs=64, max_num_batched_tokens=2048,
                                   max_model_len=16384), sm, scheduler_rules("0.19.0"))
    lines = []
    original = Axes.axhline
    monkeypatch.setattr(Axes, "axhline", lambda ax, y=0, *a, **kw: lines.append((y, kw.get("label"))) or original(ax, y, *a, **kw))
    paths = write_plots(res, tmp_path)
    # a gauge sampled every interval misses a peak between samples: the realized max and KV peak are drawn as lines
    assert res.ts_running.max() <= res.max_running
    assert (res.max_running, f"realized max running {res.max_running}") in lines
    assert (pytest.approx(res.kv_usage_peak * 100), f"peak {res.kv_usage_peak * 100:.1f} %") in lines
    for path in paths:
        width, height = Image.open(path).size
        assert width >= 900 and height >= 400


# ---- progress: a data-parallel simulation reports its finished requests too


@pytest.mark.parametrize("lockstep", [False, True])
def test_data_parallel_simulation_reports_progress(lockstep):
    import numpy as np

    from kvplan.simulate import EngineConfig, StepModel, _simulate_server, scheduler_rules
    from kvplan.workload import Workload

    sm = StepModel.from_numbers(weights_bytes=2e8, active_params=1e8, num_layers=4, hidden_size=512, num_attention_heads=8,
                                num_kv_heads=2, head_dim=64, vocab_size=1000, kv_bytes_per_token=1024,
                                hbm_bytes_per_s=1e11, peak_flops_per_s=1e13)
    rng = np.random.default_rng(0)
    w = Workload(name="t", prompt_tokens=rng.integers(50, 400, 400), completion_tokens=rng.integers(10, 100, 400),
                 arrival_s=np.arange(400) * 0.01)
    seen = []
    # the CLI's bar for 100k+ requests stood at 0 until a -dp 2 run ended (progress was dropped for DP)
    res = _simulate_server(w, EngineConfig(num_gpu_blocks=2000, block_size=16, max_num_seqs=32, max_num_batched_tokens=512,
                                           max_model_len=4096), sm, scheduler_rules("0.19.0"), 2, lockstep,
                           progress=seen.append)
    assert sum(seen) == int(res.completed.sum()) == 400


# ---- fit --explain: the weights term's parts add up to it


@pytest.mark.parametrize("model,gpu,flags", [
    ("Qwen/Qwen2.5-0.5B-Instruct", "T4", {}),
    ("Qwen/Qwen3-8B", "L4", {"enable_lora": True, "cpu_offload_gb": 4}),
])
def test_weights_formula_adds_up_to_the_term(model, gpu, flags):
    p = kvplan.fit(model, gpu, fixes=False, **flags)
    term = {t.name: t for t in p.terms}["weights"]
    # the allocator's rounding (0.3 MiB on the seed's model) was only an assumption line, not in the term's formula
    head = re.match(r"([\d,]+) B per rank", term.formula)
    parts = re.findall(r" ([+-]) ([\d,]+) B ", term.formula + " ")
    assert head and parts, term.formula
    total = int(head.group(1).replace(",", "")) + sum(int(n.replace(",", "")) * (1 if sign == "+" else -1) for sign, n in parts)
    assert total == term.value == p.weights_bytes


@pytest.mark.parametrize("model,gpu,flags", BLOCK_CASES)
def test_blocks_per_request_formula_adds_up_group_by_group(model, gpu, flags):
    # Qwen3-Next at 262,144 tokens: 482 full-attention blocks + 3 state pages in each of 3 recurrent groups = 491;
    # the old formula said only "over 4 group(s)"
    p = kvplan.fit(model, gpu, fixes=False, **flags)
    term = {t.name: t for t in p.terms}["blocks_per_request"]
    expr = re.sub(r"(?<=\d),(?=\d{3})", "", term.formula.split(": ")[0])
    expr = re.sub(r" (full|sliding|chunked|recurrent|mla)\b", "", expr).replace(" B", "").replace(" x ", " * ")
    assert re.fullmatch(r"[\d\s*+(),cdiv]+", expr), term.formula
    assert eval(expr, {"cdiv": lambda a, b: -(-a // b)}) == term.value
    blocks = {t.name: t.value for t in p.terms}
    assert blocks["max_concurrency"] == pytest.approx(blocks["num_gpu_blocks"] / term.value)


# ---- fit: the "KV per token" figure has its term


@pytest.mark.parametrize("model,gpu,flags", BLOCK_CASES + [("deepseek-ai/DeepSeek-V3", "H200", {"tensor_parallel_size": 8})])
def test_kv_bytes_per_token_term_adds_up(model, gpu, flags):
    p = kvplan.fit(model, gpu, fixes=False, **flags)
    term = {t.name: t for t in p.terms}["kv_bytes_per_token"]
    assert term.value == p.kv_bytes_per_token
    expr = re.sub(r"(?<=\d),(?=\d{3})", "", term.formula.split(": ")[0]).replace(" B", "").replace(" x ", " * ")
    assert eval(expr) == pytest.approx(p.kv_bytes_per_token)


def test_kv_bytes_per_token_spells_out_one_layer():
    p = kvplan.fit("Qwen/Qwen3-8B", "H100", fixes=False)
    # Qwen3-8B's config.json: 36 layers, 8 KV heads, head_dim 128; bf16 K and V
    assert p.kv_bytes_per_token == 36 * 8 * (128 + 128) * 2
    formula = {t.name: t for t in p.terms}["kv_bytes_per_token"].formula
    assert formula.startswith("36 x 4,096 B: ") and "8 KV head(s) per rank x (K 128 + V 128) x 2 B" in formula


# ---- scaffold: the startup line says what the probe's budget covers


def test_scaffold_line_explains_a_probe_budget_below_the_first_start(tmp_path):
    code, out = _cli("scaffold", str(tmp_path / "p"), "Qwen/Qwen3-8B", "--gpu", "H100")
    assert code == 0, out
    line = " ".join(out[out.index("Predicted startup"):].split())
    m = re.search(r"~(\d+) s first start \(~(\d+) s of it downloading\), ~\d+ s restart\. The k8s startupProbe "
                  r"allows (\d+) s \(2x the ~(\d+) s start from the volume\)", line)
    assert m, line
    first, download, budget, own = map(int, m.groups())
    # the budget is below the first start only because the download (in the init container) is not in it
    assert budget < first and budget % 10 == 0 and budget >= 2 * own - 10 and own <= first - download + 1


# ---- simulate --requests: the per-request data its percentiles are taken over


def test_simulate_percentiles_recompute_from_the_request_table(tmp_path):
    import csv

    import numpy as np

    path = tmp_path / "requests.csv"
    # max_model_len 2,048 rejects azure-conv's longest prompts: rejected rows carry no latency
    code, out = _cli("simulate", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4", "--max-model-len", "2048", "-w", "azure-conv",
                     "-n", "400", "--rate", "5", "--requests", str(path), "--json")
    assert code == 0, out
    d = json.loads(out[out.index("{"):])
    rows = list(csv.DictReader(path.open()))
    assert len(rows) == d["requests_total"] == 400
    done = [r for r in rows if r["completed"] == "1"]
    assert len(done) == d["requests_completed"] and sum(r["rejected"] == "1" for r in rows) == d["requests_rejected"] > 0
    assert all(r["ttft_ms"] == "" for r in rows if r["rejected"] == "1")
    for key in ("queue_ms", "ttft_ms", "tpot_ms", "e2e_ms"):
        values = np.array([float(r[key]) for r in done if r[key] != ""])
        assert values.mean() == pytest.approx(d[key]["mean"])
        for q in (50, 90, 99):
            assert np.percentile(values, q) == pytest.approx(d[key][f"p{q}"]), (key, q)
    # and each row's latencies from its own times
    r = done[0]
    assert float(r["ttft_ms"]) == pytest.approx((float(r["first_token_s"]) - float(r["arrival_s"])) * 1e3)


# ---- preflight --json: the figures the findings compare with


def test_preflight_json_carries_what_its_findings_measure():
    code, out = _cli("preflight", "Qwen/Qwen3-8B", "--gpu", "H100", "--json")
    d = json.loads(out[out.index("{"):])
    req = d["request"]
    disk = next(f for f in d["findings"] if f["check"] == "disk")
    needed = re.search(r"for ([\d.]+) GiB of weights|need ([\d.]+) GiB", disk["message"])
    assert needed, disk
    assert float(needed.group(1) or needed.group(2)) == round(req["weights_bytes"] / 1024 ** 3, 1)
    plan = kvplan.fit("Qwen/Qwen3-8B", "H100", fixes=False)
    assert req["plan_fits"] is True and f"{plan.kv_cache_tokens:,} KV tokens" in req["plan_summary"]


def test_reconcile_and_validate_read_a_version_less_log_alike():
    from pathlib import Path

    from kvplan.logs import parse_lines
    from kvplan.reconcile import plan_from_log, reconcile
    from kvplan.validate import predict_record

    lines = [json.loads(x) for x in (Path(__file__).parent / "data" / "vllm_log_excerpts.jsonl").read_text().splitlines()
             if x.strip()][43]["lines"]
    # V1's post-capture summary line with separate weight / activation / non-torch / CUDAGraph figures: 0.10.2-0.26
    assert any("GiB for non-torch memory, and" in x for x in lines) and not any("vLLM version" in x for x in lines)
    log = parse_lines(lines)
    plan, notes = plan_from_log(log, "Qwen/Qwen3-4B", site_calibration=False)
    assert plan.vllm_version == "0.10.2" and any("0.10.2-0.26" in n for n in notes)
    again, _ = predict_record(reconcile(log, plan).record)  # the record --record writes, as validate plans it
    assert again.vllm_version == plan.vllm_version and again.kv_cache_bytes == pytest.approx(plan.kv_cache_bytes)


@pytest.mark.parametrize("model,gpu,flags", BLOCK_CASES[:3])
def test_every_term_source_names_its_document(model, gpu, flags):
    p = kvplan.fit(model, gpu, fixes=False, **flags)
    for term in p.terms:
        # "section 3.3" alone cites nothing a user can open
        assert not re.match(r"sections? \d", term.source), (term.name, term.source)
        if "§" in term.source:
            assert term.source.startswith("vllm-memory-model.md §")


@pytest.mark.parametrize("flags", [["--gpu", "H100"], ["--gpu-gb", "16", "--overhead-gb", "1"]])
def test_fit_text_names_the_budget_as_explain_does(flags):
    r = run("fit", "Qwen/Qwen2.5-0.5B-Instruct", "--explain", *flags)
    d = json.loads(run("fit", "Qwen/Qwen2.5-0.5B-Instruct", "--json", *flags).stdout)
    names = {t["name"] for t in d["terms"]}
    label = next(n for n in ("requested", "budget") if n in names)  # the seed's arithmetic calls it budget
    scale = 1e9 if d["mode"] == "simple" else 1024 ** 3
    assert re.search(rf"│ {label}\s+{d['requested_bytes'] / scale:.2f} ", r.stdout), r.stdout
