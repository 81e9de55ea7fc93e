"""Logs of vLLM's offline benchmarks (`vllm bench latency|throughput`, benchmarks/benchmark_latency.py and
benchmark_throughput.py): which engine arguments kvplan reads from them and where (tests/data/SOURCES-benchmark-logs.md)."""

from __future__ import annotations

import json
from pathlib import Path

from kvplan.cli import FitFlags
from kvplan.logs import parse_lines, read_log
from kvplan.reconcile import plan_from_log, reconcile

DATA = Path(__file__).parent / "data"


def test_vllm_bench_latency_log_is_read_as_an_offline_llm_run():
    # dariustanrd/tokenkaki: `vllm bench latency --model Qwen/Qwen3-8B` on an A100-SXM4-40GB, vLLM 0.19.1. Its only
    # argument line is vllm.LLM's 'non-default args' (no size in it); the sizes are in the engine's 'with config:' line
    log = read_log(str(DATA / "bench_latency_qwen3_8b_a100_v0191.log"))
    assert log.benchmark == "latency" and log.vllm_version == "0.19.1" and log.model == "Qwen/Qwen3-8B"
    assert log.arg("tensor_parallel_size") == 1 and log.arg_origin("tensor_parallel_size") == "the engine's 'with config:' line, line 13"
    assert log.arg("enforce_eager") is False and log.arg("kv_cache_dtype") == "auto"
    # "Chunked prefill is enabled with max_num_batched_tokens=8192": vllm.LLM's default on this card, printed
    assert log.arg_or_printed("max_num_batched_tokens") == 8192
    assert log.arg_origin("max_num_batched_tokens") == "printed by the engine"
    assert log.arg_origin("gpu_memory_utilization") is None  # the log never states it
    assert log.to_record()["args"]["entrypoint"] == "llm"
    notes = reconcile(log).notes
    assert any(n.startswith("a `vllm bench latency` / benchmarks/benchmark_latency.py run: vLLM ran in-process as vllm.LLM")
               for n in notes)
    read = next(n for n in notes if n.startswith("engine arguments read from the log: "))
    assert "tensor_parallel_size=1 (the engine's 'with config:' line, line 13)" in read
    assert "max_num_batched_tokens=8192 (printed by the engine)" in read
    assert next(n for n in notes if n.startswith("left at vLLM's defaults")).endswith(
        "gpu_memory_utilization, max_num_seqs, quantization")
    # planned as vllm.LLM: the logged pool 19.2 GiB, 139,792 tokens
    plan, _ = plan_from_log(log, "Qwen/Qwen3-8B", FitFlags(gpu="A100-40GB"))
    assert plan.args.entrypoint == "llm" and plan.args.max_num_batched_tokens == 8192
    assert abs(plan.kv_cache_bytes / 2 ** 30 - 19.2) / 19.2 < 0.01
    assert abs(plan.kv_cache_tokens - 139_792) / 139_792 < 0.01


def test_benchmark_throughput_namespace_line_gives_every_engine_argument():
    # vllm-project/vllm-ascend issue #119: benchmarks/benchmark_throughput.py of vLLM 0.7.1 prints its argparse
    # Namespace (print(args)) on a line of its own, every engine argument with its value, before the engine fails
    log = read_log(str(DATA / "bench_throughput_deepseek_v3_w8a8_ascend_v071_failed.log"))
    assert log.benchmark == "throughput" and log.model == "/root/DeepSeek-V3-w8a8"
    origin = "the benchmark's printed Namespace(...), line 8"
    for name, value in (("tensor_parallel_size", 16), ("gpu_memory_utilization", 0.9), ("enforce_eager", False),
                        ("kv_cache_dtype", "auto")):
        assert log.arg(name) == value and log.arg_origin(name) == origin, name
    assert log.arg("max_model_len") is None and log.arg_origin("max_model_len") is None  # max_model_len=None: the default
    assert log.started is False
    record = log.to_record()["args"]
    assert record["tensor_parallel_size"] == 16 and record["gpu_memory_utilization"] == 0.9 and record["entrypoint"] == "llm"
    read = next(n for n in reconcile(log).notes if n.startswith("engine arguments read from the log: "))
    assert f"tensor_parallel_size=16 ({origin})" in read and f"gpu_memory_utilization=0.9 ({origin})" in read


def test_benchmark_command_line_alone_is_read():
    # vLLM issue #17242 (0.8.4, H20, DeepSeek-R1): the excerpt holds the benchmark_latency.py command and the KV lines
    excerpt = next(json.loads(line) for line in (DATA / "vllm_log_excerpts.jsonl").read_text().splitlines()
                   if "issues/17242" in line)
    log = parse_lines(excerpt["lines"])
    assert log.benchmark == "latency"
    expected = {"max_num_batched_tokens": 138, "max_model_len": 138, "tensor_parallel_size": 16, "max_num_seqs": 1,
                "gpu_memory_utilization": 0.7}
    for name, value in expected.items():
        assert log.arg(name) == value and log.arg_origin(name) == "the benchmark command line, line 1", name
    assert log.to_record()["args"]["tensor_parallel_size"] == excerpt["tensor_parallel_size"] == 16


def test_a_server_log_is_not_a_benchmark():
    log = read_log(str(DATA / "plfail_gpt_oss_20b_tp1_h100_v0190_failed.log"))
    assert log.benchmark is None and "entrypoint" not in log.to_record()["args"]
    assert not any(n.startswith("engine arguments read from the log") for n in reconcile(log).notes)
