"""kvplan reconcile of a running vLLM server's Prometheus metrics (GET /metrics), for a deployment whose startup log is
gone: the flags vllm:cache_config_info's labels state are planned, and the predicted num_gpu_blocks set beside the
label's. The texts below are written as vLLM's prometheus_client writes them (HELP / TYPE lines, a gauge per series):
the cache_config_info labels are CacheConfig's fields as str (vllm/config/cache.py metrics_info, 0.11.0) plus engine
(vllm/v1/metrics/loggers.py log_metrics_info), the other gauges labelled model_name and engine (loggers.py 0.11.0)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from cli_runner import refused, run_cli

MODEL = "Qwen/Qwen3-8B"
PLAN = ["--gpu", "L4", "--max-model-len", "8192", "--vllm-version", "0.11.0"]

# vLLM 0.11.0's CacheConfig fields in their order (vllm/config/cache.py), as str(value)
LABELS_0110 = {
    "block_size": "16", "gpu_memory_utilization": "0.85", "swap_space": "4", "cache_dtype": "fp8",
    "is_attention_free": "False", "num_gpu_blocks_override": "None", "sliding_window": "None",
    "enable_prefix_caching": "True", "prefix_caching_hash_algo": "sha256", "cpu_offload_gb": "0",
    "calculate_kv_scales": "False", "cpu_kvcache_space_bytes": "None", "mamba_page_size_padded": "None",
    "mamba_cache_dtype": "auto", "mamba_ssm_cache_dtype": "auto", "num_gpu_blocks": "3100", "num_cpu_blocks": "None",
    "kv_sharing_fast_prefill": "False", "kv_cache_memory_bytes": "None",
}


def series(name: str, labels: dict, value: str) -> str:
    return name + "{" + ",".join(f'{k}="{v}"' for k, v in labels.items()) + "} " + value


def metrics_text(engines: dict[str, dict], model_name: str = MODEL, usage: str = "0.125", running: str = "3.0") -> str:
    """A /metrics page: the per-engine gauges, then cache_config_info, one series per engine (labels: each engine's)."""
    out = ["# HELP python_gc_objects_collected_total Objects collected during gc",
           "# TYPE python_gc_objects_collected_total counter",
           'python_gc_objects_collected_total{generation="0"} 1234.0',
           "# HELP vllm:num_requests_running Number of requests in model execution batches.",
           "# TYPE vllm:num_requests_running gauge"]
    out += [series("vllm:num_requests_running", {"model_name": model_name, "engine": e}, running) for e in engines]
    out += ["# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.",
            "# TYPE vllm:kv_cache_usage_perc gauge"]
    out += [series("vllm:kv_cache_usage_perc", {"model_name": model_name, "engine": e}, usage) for e in engines]
    out += ["# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig",
            "# TYPE vllm:cache_config_info gauge"]
    out += [series("vllm:cache_config_info", {**labels, "engine": e}, "1.0") for e, labels in engines.items()]
    return "\n".join(out) + "\n"


def fit_blocks(monkeypatch, capsys, model: str, *flags: str) -> int:
    code, out, err = run_cli(monkeypatch, capsys, "fit", model, *flags, "--json")
    assert code == 0, err
    return json.loads(out)["num_gpu_blocks"]


def reconcile_json(monkeypatch, capsys, source: str, *args: str) -> dict:
    code, out, err = run_cli(monkeypatch, capsys, "reconcile", source, *args, "--json")
    assert code == 0, out + err
    return json.loads(out)


def row(result: dict, term: str) -> dict:
    return next(r for r in result["comparison"] if r["term"] == term)


@pytest.fixture
def server():
    """A local HTTP server standing in for vLLM's: PAGES maps a path to (status, body)."""
    pages: dict[str, tuple[int, str]] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            status, body = pages.get(self.path, (404, "Not Found"))
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", pages
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch):
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)


def test_a_metrics_file_is_planned_with_the_flags_its_labels_state(monkeypatch, capsys, tmp_path):
    path = tmp_path / "metrics.txt"
    path.write_text(metrics_text({"0": LABELS_0110}))
    result = reconcile_json(monkeypatch, capsys, str(path), MODEL, *PLAN)
    expected = fit_blocks(monkeypatch, capsys, MODEL, *PLAN, "--gpu-memory-utilization", "0.85", "--kv-cache-dtype",
                          "fp8", "--block-size", "16", "--enable-prefix-caching")
    blocks = row(result, "num_gpu_blocks")
    assert blocks["predicted"] == expected and blocks["observed"] == 3100
    assert blocks["gap"] == 3100 - expected
    # one group of full attention: the tokens are blocks x block_size
    assert row(result, "kv_cache_tokens")["observed"] == 3100 * 16
    assert result["model"] == MODEL and result["engines"] == 1
    read = next(n for n in result["notes"] if "labels state" in n)
    for flag in ("--block-size 16", "--gpu-memory-utilization 0.85", "--kv-cache-dtype fp8", "--enable-prefix-caching"):
        assert flag in read
    assert result["kv_cache_usage"] == {"0": 0.125} and result["num_requests_running"] == {"0": 3.0}
    assert any("12.5%" in n and "not compared" in n for n in result["notes"])
    assert result["plan"]["gpu"] == "NVIDIA L4"


def test_a_running_server_is_read_over_http(monkeypatch, capsys, server):
    url, pages = server
    pages["/metrics"] = (200, metrics_text({"0": LABELS_0110}))
    result = reconcile_json(monkeypatch, capsys, url + "/metrics", MODEL, *PLAN)
    expected = fit_blocks(monkeypatch, capsys, MODEL, *PLAN, "--gpu-memory-utilization", "0.85", "--kv-cache-dtype",
                          "fp8", "--block-size", "16")
    assert row(result, "num_gpu_blocks")["predicted"] == expected
    assert result["metrics"] == url + "/metrics"
    # and the human table, as reconcile's
    code, out, err = run_cli(monkeypatch, capsys, "reconcile", url + "/metrics", MODEL, *PLAN)
    text = " ".join(out.split())
    assert code == 0 and "num_gpu_blocks" in text and f"{expected:,}" in text and "3,100" in text


def test_flags_given_override_the_labels(monkeypatch, capsys, tmp_path):
    path = tmp_path / "metrics.txt"
    path.write_text(metrics_text({"0": LABELS_0110}))
    result = reconcile_json(monkeypatch, capsys, str(path), MODEL, *PLAN, "--gpu-memory-utilization", "0.95",
                            "--kv-cache-dtype", "auto")
    expected = fit_blocks(monkeypatch, capsys, MODEL, *PLAN, "--gpu-memory-utilization", "0.95", "--block-size", "16")
    assert row(result, "num_gpu_blocks")["predicted"] == expected
    assert any("given here over the labels" in n and "--gpu-memory-utilization 0.95" in n for n in result["notes"])


def test_the_override_and_byte_budget_labels_are_planned(monkeypatch, capsys, tmp_path):
    labels = dict(LABELS_0110, kv_cache_memory_bytes=str(4 << 30), cache_dtype="auto")
    path = tmp_path / "metrics.txt"
    path.write_text(metrics_text({"0": labels}))
    result = reconcile_json(monkeypatch, capsys, str(path), MODEL, *PLAN)
    assert row(result, "num_gpu_blocks")["predicted"] == fit_blocks(
        monkeypatch, capsys, MODEL, *PLAN, "--kv-cache-memory-bytes", str(4 << 30), "--block-size", "16",
        "--gpu-memory-utilization", "0.85")
    labels = dict(LABELS_0110, num_gpu_blocks_override="1000", num_gpu_blocks="1000")
    path.write_text(metrics_text({"0": labels}))
    result = reconcile_json(monkeypatch, capsys, str(path), MODEL, *PLAN)
    assert row(result, "num_gpu_blocks")["predicted"] == 1000 == row(result, "num_gpu_blocks")["observed"]
    assert any("--num-gpu-blocks-override 1000" in n for n in result["notes"])


def test_data_parallel_engines_share_one_summed_label(monkeypatch, capsys, tmp_path):
    # vLLM sums the engines' blocks into cache_config.num_gpu_blocks, which every engine's series then carries
    labels = dict(LABELS_0110, num_gpu_blocks="6200")
    path = tmp_path / "metrics.txt"
    path.write_text(metrics_text({"0": labels, "1": labels}))
    result = reconcile_json(monkeypatch, capsys, str(path), MODEL, *PLAN)
    assert row(result, "num_gpu_blocks")["observed"] == 3100 and result["engines"] == 2
    assert any("sum over the 2 engines" in n for n in result["notes"])
    # engines stating different counts (two servers' scrapes pasted together) are named; the smallest is compared
    path.write_text(metrics_text({"0": LABELS_0110}) + series(
        "vllm:cache_config_info", {**LABELS_0110, "num_gpu_blocks": "2900", "engine": "0"}, "1.0") + "\n")
    result = reconcile_json(monkeypatch, capsys, str(path), MODEL, *PLAN)
    assert row(result, "num_gpu_blocks")["observed"] == 2900
    assert any("different num_gpu_blocks" in n and "2,900" in n and "3,100" in n for n in result["notes"])


def test_a_hybrid_models_tokens_are_not_blocks_times_block_size(monkeypatch, capsys, tmp_path):
    model = "ibm-granite/granite-4.0-h-tiny"
    labels = dict(LABELS_0110, cache_dtype="auto", block_size="400", num_gpu_blocks="900")
    path = tmp_path / "metrics.txt"
    path.write_text(metrics_text({"0": labels}, model_name=model))
    result = reconcile_json(monkeypatch, capsys, str(path), model, *PLAN)
    assert row(result, "kv_cache_tokens")["observed"] is None
    assert any("hybrid" in n and "num_gpu_blocks x block_size" in n for n in result["notes"])
    # vLLM >= 0.26 writes one engine's tokens as a label: read as they are
    labels = dict(labels, kv_cache_size_tokens="123456", kv_cache_max_concurrency="15.07",
                  user_specified_block_size="False")
    path.write_text(metrics_text({"0": labels}, model_name=model))
    result = reconcile_json(monkeypatch, capsys, str(path), model, *PLAN)
    assert row(result, "kv_cache_tokens")["observed"] == 123456
    # a block size vLLM chose is compared, not planned with
    assert "--block-size" not in next(n for n in result["notes"] if "labels state" in n)


def test_a_server_that_does_not_answer_is_refused_naming_logfile(monkeypatch, capsys, server):
    url, _ = server
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    text = refused(monkeypatch, capsys, "LOGFILE", "reconcile", f"http://127.0.0.1:{port}/metrics", MODEL, *PLAN)
    assert "did not answer" in text and "curl" in text


def test_a_404_is_refused_naming_logfile(monkeypatch, capsys, server):
    url, _ = server
    text = refused(monkeypatch, capsys, "LOGFILE", "reconcile", url + "/metricz", MODEL, *PLAN)
    assert "HTTP 404" in text and "/metrics" in text


def test_metrics_without_cache_config_info_are_refused_naming_logfile(monkeypatch, capsys, server, tmp_path):
    url, pages = server
    page = metrics_text({"0": LABELS_0110}).split("# HELP vllm:cache_config_info")[0]
    pages["/metrics"] = (200, page)
    text = refused(monkeypatch, capsys, "LOGFILE", "reconcile", url + "/metrics", MODEL, *PLAN)
    assert "no vllm:cache_config_info" in text
    path = tmp_path / "metrics.txt"
    path.write_text(page)
    assert "no vllm:cache_config_info" in refused(monkeypatch, capsys, "LOGFILE", "reconcile", str(path), MODEL, *PLAN)
    pages["/html"] = (200, "<html><body>hello</body></html>\n")
    assert "not Prometheus text" in refused(monkeypatch, capsys, "LOGFILE", "reconcile", url + "/html", MODEL, *PLAN)


def test_an_engine_not_yet_initialized_is_refused_naming_logfile(monkeypatch, capsys, tmp_path):
    path = tmp_path / "metrics.txt"
    path.write_text(metrics_text({"0": dict(LABELS_0110, num_gpu_blocks="None")}))
    text = refused(monkeypatch, capsys, "LOGFILE", "reconcile", str(path), MODEL, *PLAN)
    assert 'num_gpu_blocks="None"' in text and "had not sized its KV cache" in text


def test_metrics_without_a_gpu_given_or_detected_are_refused(monkeypatch, capsys, tmp_path):
    import kvplan.resolve

    monkeypatch.setattr(kvplan.resolve, "detect_gpu", lambda *a, **k: None)
    path = tmp_path / "metrics.txt"
    path.write_text(metrics_text({"0": LABELS_0110}))
    text = refused(monkeypatch, capsys, "--gpu", "reconcile", str(path), MODEL, "--max-model-len", "8192")
    assert "do not say which GPU" in text


def test_a_record_of_metrics_is_refused(monkeypatch, capsys, tmp_path):
    path = tmp_path / "metrics.txt"
    path.write_text(metrics_text({"0": LABELS_0110}))
    text = refused(monkeypatch, capsys, "--record", "reconcile", str(path), MODEL, *PLAN, "--record", "-")
    assert "metrics" in text


# vLLM 0.6.4's V0 CacheConfig as its __init__ sets it (vllm/config.py), one series without an engine label
# (vllm/engine/metrics.py PrometheusStatLogger.info); its gauges are labelled model_name alone, the usage
# vllm:gpu_cache_usage_perc
MODEL_064 = "Qwen/Qwen2.5-7B-Instruct"  # (Qwen3 came after 0.6.4)
LABELS_064 = {"block_size": "16", "gpu_memory_utilization": "0.9", "swap_space_bytes": "4294967296",
              "num_gpu_blocks_override": "None", "cache_dtype": "auto", "is_attention_free": "False",
              "sliding_window": "None", "enable_prefix_caching": "False", "cpu_offload_gb": "0",
              "num_gpu_blocks": "1400", "num_cpu_blocks": "2048"}


def v0_text() -> str:
    return "\n".join([
        "# HELP vllm:num_requests_running Number of requests currently running on GPU.",
        "# TYPE vllm:num_requests_running gauge",
        f'vllm:num_requests_running{{model_name="{MODEL_064}"}} 2.0',
        "# HELP vllm:gpu_cache_usage_perc GPU KV-cache usage. 1 means 100 percent usage.",
        "# TYPE vllm:gpu_cache_usage_perc gauge",
        f'vllm:gpu_cache_usage_perc{{model_name="{MODEL_064}"}} 0.5',
        "# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig",
        "# TYPE vllm:cache_config_info gauge",
        series("vllm:cache_config_info", LABELS_064, "1.0"), ""])


def test_a_v0_server_one_series_without_an_engine_label(monkeypatch, capsys, tmp_path):
    path = tmp_path / "metrics.txt"
    path.write_text(v0_text())
    flags = ["--gpu", "L4", "--max-model-len", "8192", "--vllm-version", "0.6.4"]
    result = reconcile_json(monkeypatch, capsys, str(path), MODEL_064, *flags)
    blocks = row(result, "num_gpu_blocks")
    assert blocks["observed"] == 1400 and result["engines"] == 1
    assert blocks["predicted"] == fit_blocks(monkeypatch, capsys, MODEL_064, *flags, "--gpu-memory-utilization", "0.9",
                                             "--block-size", "16")
    assert any("--no-enable-prefix-caching" in n for n in result["notes"] if "labels state" in n)
    assert result["kv_cache_usage_metric"] == "vllm:gpu_cache_usage_perc" and result["kv_cache_usage"] == {"": 0.5}
    assert any("50.0%" in n for n in result["notes"])


def test_curl_piped_into_reconcile_reads_standard_input(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    import kvplan

    env = {**os.environ, "PYTHONPATH": str(Path(kvplan.__file__).resolve().parents[1])}  # the kvplan under test
    done = subprocess.run([sys.executable, "-m", "kvplan", "reconcile", "-", MODEL, *PLAN, "--json"],
                          input=metrics_text({"0": LABELS_0110}).encode(), capture_output=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr.decode()
    result = json.loads(done.stdout)
    assert row(result, "num_gpu_blocks")["observed"] == 3100 and result["metrics"] == "standard input"


# vLLM 0.34.0's CacheConfig (vllm/config/cache.py): gpu_memory_utilization None where not given (its default resolved
# elsewhere), user_specified_block_size, and one engine's tokens and concurrency (kv_cache_utils.py
# get_kv_cache_capacity: tokens = int(concurrency x max_model_len)); 775 blocks of 64 (the block size 0.34.0 chose
# for Qwen3-8B on an L4: test_block_size_034) are 49,600 tokens, at 8,192 6.0546875x
LABELS_0340 = {
    "block_size": "64", "user_specified_block_size": "False", "kv_cache_layout": "None", "prefix_match_unit": "None",
    "gpu_memory_utilization": "None", "cache_dtype": "auto", "is_attention_free": "False",
    "num_gpu_blocks_override": "None", "sliding_window": "None", "enable_prefix_caching": "True",
    "prefix_caching_hash_algo": "sha256", "prefix_cache_retention_interval": "None", "kv_cache_dtype_skip_layers": "[]",
    "mamba_page_size_padded": "None", "skip_page_size_padded": "None", "mamba_block_size": "None",
    "mamba_cache_dtype": "auto", "mamba_ssm_cache_dtype": "auto", "mamba_cache_mode": "none",
    "enable_mamba_shared_prefix_checkpoint": "False", "replayssm_buffer_len": "None", "use_replayssm": "False",
    "use_kda_recoverssm": "False", "num_gpu_blocks": "775", "num_cpu_blocks": "None",
    "simple_cpu_offload_num_blocks": "None", "effective_attention_block_size": "64", "kv_cache_size_tokens": "49600",
    "kv_cache_max_concurrency": "6.0546875", "hash_block_size": "64", "cache_hit_alignment_tokens": "64",
    "kv_sharing_fast_prefill": "False", "swa_bounded_replay": "False", "kv_cache_memory_bytes": "None",
    "enable_extensible_kv_cache": "False", "kv_offloading_size": "None", "kv_offloading_backend": "native",
}


def test_the_length_the_tokens_and_concurrency_labels_pin_is_planned(monkeypatch, capsys, tmp_path):
    path = tmp_path / "metrics.txt"
    path.write_text(metrics_text({"0": LABELS_0340}))
    flags = ["--gpu", "L4", "--vllm-version", "0.34.0"]
    result = reconcile_json(monkeypatch, capsys, str(path), MODEL, *flags)
    assert row(result, "max_model_len") == {"term": "max_model_len", "observed": 8192, "predicted": 8192,
                                            "unit": "tokens", "gap": 0}
    assert row(result, "num_gpu_blocks")["predicted"] == fit_blocks(monkeypatch, capsys, MODEL, *flags,
                                                                    "--max-model-len", "8192", "--enable-prefix-caching")
    assert row(result, "kv_cache_tokens")["observed"] == 49600
    assert row(result, "block_size")["observed"] == row(result, "block_size")["predicted"] == 64
    concurrency = row(result, "max_concurrency")
    assert concurrency["observed"] == 6.0546875 and concurrency["gap"] is not None and "note" not in concurrency
    read = next(n for n in result["notes"] if "labels state" in n)
    assert "--max-model-len 8192" in read and "--block-size" not in read and "--gpu-memory-utilization" not in read


def test_the_release_the_labels_set_names_is_planned_where_none_is_given(monkeypatch, capsys, tmp_path):
    path = tmp_path / "metrics.txt"
    path.write_text(metrics_text({"0": LABELS_0110}))
    flags = ["--gpu", "L4", "--max-model-len", "8192"]
    result = reconcile_json(monkeypatch, capsys, str(path), MODEL, *flags)
    # 0.11.0's set (swap_space, cpu_offload_gb, no kv_offloading_size): not the default 0.33.0's
    assert result["plan"]["vllm_rules"] == "0.11.0"
    assert row(result, "num_gpu_blocks")["predicted"] == fit_blocks(
        monkeypatch, capsys, MODEL, *flags, "--vllm-version", "0.11.0", "--gpu-memory-utilization", "0.85",
        "--kv-cache-dtype", "fp8", "--block-size", "16")
    assert any("labels are those vLLM 0.11.0 writes" in n and "after 0.6.4 and before 0.11.1" in n
               for n in result["notes"])
    path.write_text(metrics_text({"0": LABELS_0340}))
    assert reconcile_json(monkeypatch, capsys, str(path), MODEL, "--gpu", "L4")["plan"]["vllm_rules"] == "0.34.0"
    path.write_text(v0_text())
    assert reconcile_json(monkeypatch, capsys, str(path), MODEL_064, *flags)["plan"]["vllm_rules"] == "0.6.4"
    # a release given that does not write them is planned, and said
    path.write_text(metrics_text({"0": LABELS_0110}))
    result = reconcile_json(monkeypatch, capsys, str(path), MODEL, *flags, "--vllm-version", "0.33.0")
    assert result["plan"]["vllm_rules"] == "0.33.0"
    assert any("not vLLM 0.33.0" in n for n in result["notes"])
    # a set no release read writes: the default, said
    path.write_text(metrics_text({"0": dict(LABELS_0110, some_future_field="1")}))
    result = reconcile_json(monkeypatch, capsys, str(path), MODEL, *flags)
    assert result["plan"]["vllm_rules"] == "0.33.0" and any("no release kvplan read" in n for n in result["notes"])


def test_a_page_prometheus_client_writes_as_vllm_registers_it(monkeypatch, capsys, tmp_path):
    """The page written by prometheus_client itself, the gauges registered as vLLM 0.34.0's loggers.py does: Gauge(name,
    documentation, labelnames=metrics_info.keys()).labels(**metrics_info).set(1) per engine, the usage gauge labelled
    model_name and engine (two data-parallel engines, each carrying the summed blocks)."""
    from prometheus_client import CollectorRegistry, Gauge, generate_latest

    registry = CollectorRegistry()
    # 0.11.0 registers the deprecated usage gauge first where hidden metrics are shown: the current one is read
    old = Gauge("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage. DEPRECATED: Use "
                "vllm:kv_cache_usage_perc instead.", labelnames=["model_name", "engine"], registry=registry)
    usage = Gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.",
                  labelnames=["model_name", "engine"], registry=registry)
    info = {**LABELS_0340, "num_gpu_blocks": "1550", "engine": ""}
    gauge = Gauge("vllm:cache_config_info", "Information of the LLMEngine CacheConfig", labelnames=info.keys(),
                  registry=registry)
    for engine in ("0", "1"):
        usage.labels(model_name=MODEL, engine=engine).set(0.25)
        old.labels(model_name=MODEL, engine=engine).set(0.5)  # (not what vLLM writes: told apart here)
        gauge.labels(**{**info, "engine": engine}).set(1)
    path = tmp_path / "metrics.txt"
    path.write_bytes(generate_latest(registry))
    result = reconcile_json(monkeypatch, capsys, str(path), MODEL, "--gpu", "L4")
    assert result["engines"] == 2 and row(result, "num_gpu_blocks")["observed"] == 775
    assert result["plan"]["vllm_rules"] == "0.34.0" and result["kv_cache_usage"] == {"0": 0.25, "1": 0.25}
    assert result["kv_cache_usage_metric"] == "vllm:kv_cache_usage_perc"


def test_from_a_command_fills_what_the_labels_do_not_state(monkeypatch, capsys, tmp_path):
    path = tmp_path / "metrics.txt"
    path.write_text(metrics_text({"0": LABELS_0110}))
    command = f"vllm serve {MODEL} --max-model-len 8192 --gpu-memory-utilization 0.9 --enable-prefix-caching"
    result = reconcile_json(monkeypatch, capsys, str(path), "--from", command, "--gpu", "L4", "--vllm-version", "0.11.0")
    # the command's length and model; the server's utilization (0.85), which it runs with, over the command's 0.9
    assert row(result, "num_gpu_blocks")["predicted"] == fit_blocks(
        monkeypatch, capsys, MODEL, *PLAN, "--gpu-memory-utilization", "0.85", "--kv-cache-dtype", "fp8",
        "--block-size", "16")
    assert result["plan"]["model"] == MODEL and result["from_command"]
    assert any("--from command states --gpu-memory-utilization 0.9" in n and "0.85" in n for n in result["notes"])
    assert not any("do not state --max-model-len" in n for n in result["notes"])


def test_from_beside_a_startup_log_is_refused(monkeypatch, capsys, tmp_path):
    log = tmp_path / "vllm.log"
    log.write_text("INFO 05-01 10:00:00 [__init__.py:239] Automatically detected platform cuda.\n"
                   "INFO 05-01 10:00:01 [api_server.py:1043] vLLM API server version 0.11.0\n")
    text = refused(monkeypatch, capsys, "--from", "reconcile", str(log), MODEL, "--from", f"vllm serve {MODEL}")
    assert "startup log" in text


def test_the_servers_bare_address_reads_its_metrics_path(monkeypatch, capsys, server):
    url, pages = server
    pages["/metrics"] = (200, metrics_text({"0": LABELS_0110}))
    for address in (url, url + "/"):
        result = reconcile_json(monkeypatch, capsys, address, MODEL, *PLAN)
        assert result["metrics"] == url + "/metrics" and row(result, "num_gpu_blocks")["observed"] == 3100
