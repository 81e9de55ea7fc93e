"""Every number kvplan prints can be traced: the figures each command prints are in its --json (or --explain rows),
to the rounding shown, and --explain's terms recompute the printed KV tokens and concurrency."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parent.parent / "src")


def kvplan(*args: str) -> str:
    """`kvplan ARGS`' stdout, on a terminal wide enough that no row wraps (a wrapped row splits a figure from its
    label)."""
    env = dict(os.environ, PYTHONPATH=SRC, COLUMNS="400", NO_COLOR="1")
    r = subprocess.run([sys.executable, "-m", "kvplan", *args], capture_output=True, text=True, env=env, timeout=300)
    assert "Traceback" not in r.stderr, r.stderr
    return r.stdout


def number(text: str) -> float:
    return float(text.replace(",", ""))


def explain_rows(text: str) -> dict[str, list[str]]:
    """--explain's table, term -> [value, formula, source], read from the printed lines."""
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("│")]
        if len(cells) == 6 and cells[1] and cells[1] != "term":
            rows[cells[1]] = cells[2:5]
    return rows


def panel_row(text: str, label: str) -> str:
    m = re.search(rf"│ {re.escape(label)}\s{{2,}}(.+?)\s*│", text)
    assert m, (label, text)
    return m.group(1)


FIVE = [("Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4"), ("meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "-tp", "2"),
        ("openai/gpt-oss-20b", "--gpu", "H100"), ("Qwen/Qwen3-Next-80B-A3B-Instruct", "--gpu", "H100", "-tp", "4"),
        ("deepseek-ai/DeepSeek-V3", "--gpu", "H200", "-tp", "8")]


@pytest.mark.parametrize("argv", [FIVE[0], FIVE[2], FIVE[4]], ids=lambda a: a[0])
def test_the_memory_bars_headroom_is_in_json_and_explain(argv):
    # before: the bar's 'headroom 1.76 GiB' (L4) was in neither --json nor --explain
    human = kvplan("fit", *argv, "--explain")
    shown = re.search(r"headroom (\d+\.\d\d) GiB", human).group(1)
    segs = {s["label"]: s["bytes"] for s in json.loads(kvplan("fit", *argv, "--json"))["budget_segments"]}
    assert f"{segs['headroom'] / 2 ** 30:.2f}" == shown
    assert explain_rows(human)["headroom"][0] == f"{shown} GiB"
    d = json.loads(kvplan("fit", *argv, "--json"))
    for label, key in (("weights", "weights_bytes"), ("activation", "activation_peak_bytes"), ("non-torch", "non_torch_bytes"),
                       ("CUDA graphs", "cudagraph_bytes"), ("KV pool", "kv_cache_bytes")):
        assert segs[label] == d[key]
    # the segments add up to the card's total (the bar's whole width)
    assert sum(segs.values()) == pytest.approx(d["gpu_total_bytes"])


@pytest.mark.parametrize("argv", [FIVE[0], FIVE[2], FIVE[3]], ids=lambda a: a[0])
def test_explain_terms_recompute_the_printed_tokens_and_concurrency(argv):
    """A reader with --explain alone: blocks = floor(kv_cache / bytes_per_block), a request's blocks summed over its
    groups, concurrency = blocks / a request's blocks, tokens = int(concurrency x max_model_len)."""
    human = kvplan("fit", *argv, "--explain")
    rows = explain_rows(human)
    per_block = number(rows["bytes_per_block"][0].removesuffix(" B"))
    lead = rows["bytes_per_block"][1].split(": ")[0].replace(",", "").replace(" B", "")
    a, b = lead.split(" x ")
    assert int(a) * int(b) == per_block
    gib = float(re.search(r"floor\(([\d.]+) GiB /", rows["num_gpu_blocks"][1]).group(1))
    blocks = number(rows["num_gpu_blocks"][0].removesuffix(" blocks"))
    # the pool to four decimals of a GiB: the blocks are floor() of a figure within half a unit of it
    lo, hi = (gib - 0.00005) * 2 ** 30 / per_block, (gib + 0.00005) * 2 ** 30 / per_block
    assert math.floor(lo) <= blocks <= math.floor(hi)
    assert abs(number(rows["kv_cache"][0].removesuffix(" GiB")) - gib) <= 0.005
    # a request's blocks: '2,048 full' / '1,033 sliding + 8,192 full' / '3 x 3 recurrent + 820 full'
    parts = rows["blocks_per_request"][1].split(": ")[0].split(" + ")
    per_request = sum(math.prod(number(x) for x in re.findall(r"[\d,]+", p)) for p in parts)
    assert per_request == number(rows["blocks_per_request"][0].removesuffix(" blocks"))
    max_model_len = int(re.search(r"max_model_len ([\d,]+)", panel_row(human, "flags")).group(1).replace(",", ""))
    concurrency = blocks / per_request
    tokens = int(blocks / per_request * max_model_len)
    assert panel_row(human, "tokens") == f"{tokens:,}"
    assert panel_row(human, "concurrency").startswith(f"{concurrency:.2f}x at {max_model_len:,} tokens")
    assert rows["max_concurrency"][0] == f"{concurrency:.2f}x"
    assert rows["kv_cache_tokens"][0] == f"{tokens:,} tokens"


def table_rows(text: str) -> list[list[str]]:
    return [[c.strip() for c in line.split("│")[1:-1]] for line in text.splitlines() if line.startswith("│")]


@pytest.mark.parametrize("argv", [("Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4", "--vary", "max_model_len=4096,16384,32768"),
                                  ("meta-llama/Llama-3.1-8B-Instruct", "-tp", "2", "--vary", "gpu=H100,H200")],
                         ids=["max_model_len", "gpu"])
def test_sweep_json_has_the_ratio_its_table_prints(argv):
    # before: the ratio column (H200 '1.92×' beside H100's) was in no row of sweep --json
    human = table_rows(kvplan("sweep", *argv))
    rows = json.loads(kvplan("sweep", *argv, "--json"))["rows"]
    assert len(human) == len(rows)
    for shown, row in zip(human, rows):
        assert shown[-1] == f"{row['ratio']:.2f}×"
        assert shown[-2] == f"{row['max_concurrency']:.2f}"
        assert shown[-3] == f"{row['kv_cache_tokens']:,}"
        assert shown[-4] == f"{row['kv_cache_bytes'] / 2 ** 30:.2f}"
        assert row["ratio"] == row["max_concurrency"] / rows[0]["max_concurrency"]


@pytest.mark.parametrize("argv", [("openai/gpt-oss-20b", "--gpu", "H100"),
                                  ("google/gemma-3-27b-it", "--gpu", "H100", "--max-model-len", "32768")],
                         ids=lambda a: a[0])
def test_fits_window_figures_are_in_json(argv):
    # before: gpt-oss-20b's 'vLLM still reserves 16,528 tokens' pages of them per sequence: the window plus 2 x 8,192
    # tokens of the steps in flight' was in no --json field (nor was the window's bytes per token, apart)
    row = panel_row(kvplan("fit", *argv), "KV per token")
    w = json.loads(kvplan("fit", *argv, "--json"))["window_kv"]
    m = re.search(r"\+ ([\d,]+) B \([\d.]+ KiB\) per rank up to the window: a sequence attends to at most its last "
                  r"([\d,]+) tokens there\s+\(vLLM still reserves ([\d,]+) tokens' pages of them per sequence: the window "
                  r"plus (\d+) × ([\d,]+) tokens", row)
    assert m, row
    assert (number(m.group(1)), number(m.group(2)), number(m.group(3)), number(m.group(4)), number(m.group(5))) == (
        w["bytes_per_token"], w["window_tokens"], w["reserved_tokens_per_sequence"], w["steps_in_flight"], w["tokens_per_step"])


def test_a_model_without_window_layers_has_no_window_kv():
    assert json.loads(kvplan("fit", *FIVE[0], "--json"))["window_kv"] is None


def test_simulates_decode_step_line_is_in_json():
    # before: 'decode step of 12 requests at 2,559 tokens of context' (gpt-oss-20b, 4 req/s) had only the step's total,
    # decode_context_tokens 30,708, in --json: the per-request figure a floor division of it
    argv = ("openai/gpt-oss-20b", "--gpu", "H100", "-w", "sharegpt", "--rate", "4", "--max-model-len", "8192")
    m = re.search(r"step time: decode step of (\d+) requests? at ([\d,]+) tokens of context: ([\d.]+) ms",
                  kvplan("simulate", *argv))
    step = json.loads(kvplan("simulate", *argv, "--json"))["step_model"]["example_steps"][0]
    assert (int(m.group(1)), number(m.group(2))) == (step["decode_seqs"], step["decode_context_tokens_per_request"])
    assert step["decode_context_tokens"] == step["decode_seqs"] * step["decode_context_tokens_per_request"]
    assert m.group(3) == f"{step['total_ms']:.2f}"


def test_diagnose_json_has_the_lines_read_it_prints(tmp_path):
    # before: 'failed · vLLM version not in the log · 3 lines read' and no count in --json
    log = tmp_path / "vllm.log"
    log.write_text("INFO 06-15 14:54:16 [gpu_model_runner.py:1549] Model loading took 14.9889 GiB and 3.058582 seconds\n"
                   "raise ValueError(\"No available memory for the cache blocks. \"\n"
                   "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
                   "initializing the engine.\n")
    shown = re.search(r"(\d+) lines? read", kvplan("diagnose", str(log))).group(1)
    assert json.loads(kvplan("diagnose", str(log), "--json"))["lines_read"] == int(shown) == 3


@pytest.mark.parametrize("flags", [(), ("--vllm-version", "0.34.0"), ("--num-gpu-blocks-override", "1000"),
                                   ("--kv-cache-memory-bytes", "8000000000"), ("--gpu-memory-utilization", "0.05")],
                         ids=["0.33", "0.34", "override", "kv_bytes", "terms_past_requested"])
def test_the_headroom_rows_formula_recomputes_it_from_the_terms(flags):
    # the explain row names the terms its headroom is taken from: evaluated with the terms' values (--json), they give it
    argv = ("Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4", *flags)
    value, formula, _ = explain_rows(kvplan("fit", *argv, "--explain"))["headroom"]
    d = json.loads(kvplan("fit", *argv, "--json"))
    names = {t["name"]: t["value"] for t in d["terms"]}
    names.update(kv_cache=max(0, d["kv_cache_bytes"]), num_gpu_blocks=d["num_gpu_blocks"], bytes_per_block=d["bytes_per_block"])
    expr = formula.replace(" x ", " * ")
    assert re.fullmatch(r"[a-z_]+( [-*] [a-z_]+)*", expr), formula
    got = eval(expr, {}, names)
    assert f"{got / 2 ** 30:.2f} GiB" == value
