"""The startup-log parser on every real excerpt, on synthetic lines of each era, and on bad input."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pytest

from kvplan.logs import SIGNATURES, StartupLog, clean_line, parse_lines, parse_log

DATA = Path(__file__).parent / "data"
EXCERPTS = [json.loads(line) for line in (DATA / "vllm_log_excerpts.jsonl").read_text().splitlines() if line.strip()]


def excerpt(i: int) -> StartupLog:
    return parse_lines(EXCERPTS[i]["lines"])


# ---- coverage of the real excerpts -------------------------------------------------------


def test_coverage_of_every_excerpt():
    with_figure, unrecognised = [], []
    for i, row in enumerate(EXCERPTS):
        log = parse_lines(row["lines"])
        if log.figures:
            with_figure.append(i)
        for line in log.unrecognised:
            unrecognised.append((i, line))
            # an unrecognised line is one of the excerpt's own lines, never invented
            assert any(line in raw for raw in row["lines"])
        assert log.unrecognised_count == len(log.unrecognised)
    print(f"\nexcerpts with >=1 figure: {len(with_figure)}/{len(EXCERPTS)}; unrecognised lines: {len(unrecognised)}")
    for i, line in unrecognised:
        print(f"  unrecognised [{i}] {line[:120]}")
    assert len(with_figure) / len(EXCERPTS) >= 0.90
    assert len(unrecognised) <= 20


def test_excerpts_without_a_figure_are_paraphrases_not_log_lines():
    # Every excerpt that yields no figure holds no line in vLLM's own figure formats.
    for row in EXCERPTS:
        log = parse_lines(row["lines"])
        if not log.figures:
            joined = "\n".join(row["lines"])
            assert "Available KV cache memory:" not in joined
            assert "Model loading took" not in joined


# ---- values checked by hand against the lines --------------------------------------------


def test_v0_064_profiling_line_rtx3090():
    log = excerpt(0)  # "Memory profiling results: total_gpu_memory=23.58GiB ... kv_cache_size=3.81GiB ..."
    assert log.weights_gib == 14.9888
    assert log.total_gib == 23.58
    assert log.non_torch_gib == 0.35
    assert log.kv_cache_gib == 3.81
    assert log.gpu_memory_utilization == 0.90
    assert log.num_gpu_blocks == 1952 and log.num_cpu_blocks == 2048
    assert log.max_concurrency == 1.56 and log.concurrency_len == 20000
    assert log.fits is True and log.era == "V0-b"


def test_v0_max_seq_len_error():
    log = excerpt(1)
    assert log.fits is False and log.started is False
    assert log.max_model_len == 29000
    assert log.estimated_max_model_len == 23648
    assert log.num_gpu_blocks == 1478


def test_v0_split_format_073():
    log = excerpt(42)
    assert log.weights_gib == 27.5681
    assert log.total_gib == 39.38 and log.requested_gib == 31.50
    assert (log.non_torch_gib, log.activation_peak_gib, log.kv_cache_gib) == (0.11, 1.49, 2.33)
    assert log.num_gpu_blocks == 796 and log.num_cpu_blocks == 1365  # "# cuda blocks"
    assert log.cudagraph_gib == 0.38
    assert log.era == "V0-c"


def test_v1_024_hybrid_tokens_and_concurrency():
    log = excerpt(5)
    assert log.kv_cache_gib == 5.98
    assert log.kv_cache_tokens == 567_978
    assert log.max_concurrency == 4.33 and log.concurrency_len == 131_072


def test_ray_prefixes_and_repeated_lines():
    log = excerpt(23)  # (EngineCore_0 pid=1159) (RayWorkerWrapper pid=345, ip=10.42.11.243) ...
    assert log.weights_gib == 17.2217
    assert log.kv_cache_gib == 45.32
    assert log.kv_cache_tokens == 2_640_144
    assert log.max_concurrency == 284.25
    assert log.cudagraph_gib == 1.88


def test_cudagraph_estimate_and_actual():
    log = excerpt(26)
    assert log.cudagraph_estimated_gib == 0.86
    assert log.cudagraph_actual_gib == 1.02
    assert log.gpu_memory_utilization == 0.89  # from "--gpu-memory-utilization=0.8900 is equivalent to ..."
    assert log.weights_gib == 69.34


def test_summary_line_0102_and_kv_bytes():
    log = excerpt(33)
    assert (log.free_at_start_gib, log.total_gib) == (14.66, 15.99)
    assert (log.gpu_memory_utilization, log.requested_gib) == (0.85, 13.59)
    assert (log.activation_peak_gib, log.non_torch_gib, log.cudagraph_actual_gib) == (0.34, 0.02, 1.27)
    assert math.isclose(log.kv_cache_in_use_gib, 9649816780 / 2**30)


def test_v0_066_blocks_and_mla_backend():
    assert excerpt(44).num_gpu_blocks == 10533
    log = excerpt(45)
    assert log.attention_backend == "Triton MLA"
    assert log.num_gpu_blocks == 116023 and log.kv_cache_gib == 59.75


def test_namespace_args_and_v0_fallback_082():
    log = excerpt(85)  # "vLLM STDOUT: " prefix, Namespace(...) args, V1 -> V0 fallback on a T4
    assert log.vllm_version == "0.8.2"
    assert log.attention_backend == "XFormers"
    assert log.arg("dtype") == "float16"
    assert log.arg("max_model_len") == 2048
    assert log.arg("enable_prefix_caching") is True
    assert log.has("fallback_v0")
    assert log.num_gpu_blocks == 3637 and log.kv_cache_gib == 6.22


def test_several_ranks_keep_the_smallest_pool():
    log = excerpt(89)
    assert log.vllm_version == "0.10.0"
    assert sorted(log.rank_values["kv_cache_gib"]) == [52.11, 52.11, 52.21, 52.58]
    assert log.kv_cache_gib == 52.11
    assert log.kv_cache_tokens == 853_808
    assert log.engine_args["max_model_len"] == 131072
    assert log.engine_config["tensor_parallel_size"] == 4


def test_v1_fit_error_with_available_memory():
    log = excerpt(93)
    assert log.fits is False and log.started is False
    assert log.kv_cache_gib == 0.26
    assert log.max_model_len == 2048
    (hit,) = log.hits_of("err_fit")[:1]
    assert hit.groups["need"] == "1.00"


def test_non_default_args_and_negative_graph_memory():
    log = excerpt(100)
    assert log.vllm_version == "0.12.0"
    assert log.engine_args["enforce_eager"] is True
    assert log.engine_args["gpu_memory_utilization"] == 0.85
    assert log.arg("max_model_len") == 4096
    assert excerpt(39).cudagraph_gib == -0.41


def test_block_override():
    log = excerpt(57)
    assert log.overridden_gpu_blocks == 125643
    assert log.num_gpu_blocks == 1


# ---- synthetic lines of formats the excerpts lack ------------------------------------------------

SUMMARY_NEW = ("(EngineCore pid=1) INFO 01-01 00:00:00 [gpu_worker.py:400] Free memory on device (78.1/79.11 GiB) on startup. "
               "Desired GPU memory utilization is (0.92, 72.78 GiB). Actual usage is 16.2 GiB for consumed memory "
               "(weights + non-torch), 1.5 GiB for peak activation, and 0.8 GiB for CUDAGraph memory. "
               "Replace gpu_memory_utilization config with `--kv-cache-memory=1` to fit. Current kv cache memory in use is 54.2 GiB.")


def test_summary_line_027_consumed_form():
    log = parse_lines([SUMMARY_NEW])
    assert log.consumed_gib == 16.2
    # its 1.5 GiB of "peak activation" includes a CUDA-graph estimate the line alone does not show
    assert log.activation_peak_gib is None and log.cudagraph_actual_gib == 0.8
    assert log.requested_gib == 72.78 and log.kv_cache_in_use_gib == 54.2


def test_warnings_block_size_autofit_padding():
    log = parse_lines([
        "INFO 01-01 00:00:00 [interface.py:1] Setting attention block size to 1568 tokens to ensure that attention page size is >= mamba page size.",
        "INFO 01-01 00:00:00 [interface.py:2] Padding mamba page size by 0.13% to ensure that mamba page size and attention page size are exactly equal.",
        "WARNING 01-01 00:00:00 [kv_cache_utils.py:3] Add 8 padding layers, may waste at most 12.50% KV cache memory",
        "INFO 01-01 00:00:00 [kv_cache_utils.py:4] Auto-fit max_model_len: reduced from 262144 to 65536 to fit in available KV cache memory (10.0 GiB GPU)",
        "(EngineCore_DP0 pid=5) INFO 01-01 00:00:00 [cuda.py:5] Using FLASH_ATTN attention backend out of potential backends: ['FLASH_ATTN', 'FLASHINFER']",
    ])
    assert log.block_size == 1568
    assert log.max_model_len == 65536
    assert any("0.13%" in w for w in log.warnings)
    assert any("8 padding layers" in w for w in log.warnings)
    assert any("262144 to 65536" in w for w in log.warnings)
    assert log.attention_backend == "FLASH_ATTN"
    assert log.attention_backend_candidates == ("FLASH_ATTN", "FLASHINFER")


def test_free_memory_and_sampler_errors():
    log = parse_lines([
        "ValueError: Free memory on device cuda:0 (1.53/22.05 GiB) on startup is less than desired GPU memory utilization (0.9, 19.84 GiB).",
    ])
    assert (log.free_at_start_gib, log.total_gib, log.requested_gib) == (1.53, 22.05, 19.84)
    assert log.started is False
    log = parse_lines(["RuntimeError: CUDA out of memory occurred when warming up sampler with 256 dummy requests."])
    assert log.has("err_sampler_oom") and not log.has("err_cuda_oom")


def test_unrecognised_memory_line_is_reported():
    log = parse_lines(["INFO 01-01 00:00:00 [x.py:1] KV cache pool shrunk by a new mechanism to 3.2 GiB"])
    assert log.unrecognised == ("KV cache pool shrunk by a new mechanism to 3.2 GiB",)
    assert any("not recognised" in w for w in log.parse_warnings)


def test_clean_line_strips_colours_and_prefixes():
    line = clean_line("\x1b[36m(Worker_TP1 pid=77)\x1b[0m INFO 10-03 16:22:17 [gpu_worker.py:298] Available KV cache memory: 6.51 GiB")
    assert line.message == "Available KV cache memory: 6.51 GiB"
    assert line.level == "INFO" and "TP1" in line.process
    line = clean_line("vllm-1  | ERROR 11-18 18:07:28 engine.py:366] ValueError: No available memory for the cache blocks.")
    assert line.level == "ERROR" and line.message.startswith("ValueError: No available memory")


def test_a_coloured_rocm_line_is_read_from_the_line_clean_line_uncolours():
    # the ROCm platform's file name is in the logger prefix, which only LogLine.plain keeps (colours stripped once, in
    # clean_line); a colour code inside the prefix does not hide it
    raw = "\x1b[1;36m(EngineCore_DP0 pid=7)\x1b[0;0m INFO 01-01 00:00:00 [\x1b[32mrocm.py:628\x1b[0m] Using ROCM_AITER_FA backend"
    line = clean_line(raw, 3)
    assert line.raw == raw and "\x1b" not in line.plain and "[rocm.py:628]" in line.plain
    assert line.message == "Using ROCM_AITER_FA backend"
    assert parse_lines(["INFO 01-01 00:00:00 [gpu_worker.py:1] x", raw]).rocm_line == (2, "Using ROCM_AITER_FA backend")


# ---- bad input ---------------------------------------------------------------------------------


def test_binary_garbage_and_truncation_give_a_warning(tmp_path):
    good = "\n".join(EXCERPTS[24]["lines"]).encode()
    blob = b"\x00\xff\xfe garbage \x80\x81\n" + good[: len(good) - 20]  # cut in the middle of the last line
    path = tmp_path / "bad.log"
    path.write_bytes(blob)
    log = parse_log(path)
    assert log.kv_cache_gib == 4.75 and log.weights_gib == 14.9889
    assert any("UTF-8" in w for w in log.parse_warnings)
    assert any("truncated" in w for w in log.parse_warnings)


def test_huge_line_is_cut_and_stream_is_read(tmp_path):
    path = tmp_path / "big.log"
    with open(path, "wb") as fh:
        fh.write(b"x" * (3 * 1024 * 1024) + b"\n")
        for _ in range(20000):
            fh.write(b"INFO 01-01 00:00:00 [a.py:1] unrelated line\n")
        fh.write(b"INFO 01-01 00:00:00 [gpu_worker.py:1] Available KV cache memory: 7.5 GiB\n")
    log = parse_log(path)
    assert log.kv_cache_gib == 7.5
    assert log.lines_read == 20002
    assert any("cut" in w for w in log.parse_warnings)


def test_text_stream_and_bytes_sources():
    text = "\n".join(EXCERPTS[11]["lines"])
    assert parse_log(io.StringIO(text)).kv_cache_tokens == 42_656
    assert parse_log(text.encode()).kv_cache_tokens == 42_656


# ---- the record --------------------------------------------------------------------------------


def test_to_record_has_the_record_format():
    record = excerpt(100).to_record()
    assert set(record) == {"id", "source", "vllm_version", "model", "gpu", "args", "observed", "notes"}
    assert set(record["observed"]) == {"weights_gib", "non_torch_gib", "activation_peak_gib", "cudagraph_gib",
                                       "kv_cache_gib", "num_gpu_blocks", "kv_cache_tokens", "max_concurrency", "fits"}
    assert set(record["args"]) == {"max_model_len", "gpu_memory_utilization", "tensor_parallel_size",
                                   "pipeline_parallel_size", "dtype", "kv_cache_dtype", "quantization", "enforce_eager",
                                   "block_size", "max_num_seqs", "max_num_batched_tokens", "enable_prefix_caching"}
    assert record["observed"]["kv_cache_gib"] == 18.15
    assert record["args"]["gpu_memory_utilization"] == 0.85
    assert record["model"]["id"] == "/home2/ycj/Models/Qwen3-30B-A3B-Instruct-2507"
    assert record["observed"]["non_torch_gib"] is None  # not in this log
    json.dumps(record)


def test_signature_table_is_consistent():
    names = [s.name for s in SIGNATURES]
    assert len(names) == len(set(names))
    for sig in SIGNATURES:
        assert sig.anchor == sig.anchor.lower()
        if sig.symptom:
            assert sig.layer and sig.cause and sig.fix


def test_speculative_config_from_non_default_args_reaches_the_record():
    line = ("(APIServer pid=1) INFO 05-01 10:00:00 [utils.py:233] non-default args: {'model': 'Qwen/Qwen3.6-35B-A3B', "
            "'max_model_len': 32768, 'speculative_config': {'method': 'mtp', 'num_speculative_tokens': 3}}")
    record = parse_lines([line]).to_record()
    assert record["args"]["speculative_config"] == {"method": "mtp", "num_speculative_tokens": 3}
    assert record["args"]["max_model_len"] == 32768


@pytest.mark.parametrize("line,runner", [
    ("INFO 05-01 10:00:00 [utils.py:233] non-default args: {'model': 'Qwen/Qwen3-Embedding-8B', 'task': 'embed'}", "pooling"),
    ("INFO 05-01 10:00:00 [utils.py:233] non-default args: {'model': 'Qwen/Qwen3-Embedding-8B', 'runner': 'pooling'}", "pooling"),
    ("INFO 05-01 10:00:00 [model.py:547] Resolved `--runner auto` to `--runner pooling`. Pass the value explicitly "
     "to silence this message.", "pooling"),
    ("INFO 05-01 10:00:00 [model.py:547] Resolved `--runner auto` to `--runner generate`. Pass the value explicitly "
     "to silence this message.", "generate"),
    ("INFO 05-01 10:00:00 [utils.py:233] non-default args: {'model': 'Qwen/Qwen3-8B'}", None),
])
def test_the_runner_reaches_the_record(line, runner):
    record = parse_lines([line]).to_record()
    assert record["args"].get("runner") == runner


def test_lora_and_cpu_offload_from_non_default_args_reach_the_record():
    line = ("(APIServer pid=1) INFO 05-01 10:00:00 [utils.py:233] non-default args: {'model': 'meta-llama/Llama-3.1-8B-Instruct', "
            "'enable_lora': True, 'max_loras': 4, 'max_lora_rank': 64, 'cpu_offload_gb': 2.0}")
    args = parse_lines([line]).to_record()["args"]
    assert (args["enable_lora"], args["max_loras"], args["max_lora_rank"], args["cpu_offload_gb"]) == (True, 4, 64, 2.0)


# ---- several startups in one text ----------------------------------------------------------------


def test_a_text_of_several_startups_is_read_as_its_last():
    first, last = EXCERPTS[93]["lines"], EXCERPTS[90]["lines"]
    alone = parse_lines(last)
    both = parse_lines(first + last)
    assert alone.startups == 1 and both.startups == 2
    assert both.first_line == len(first) + 1
    assert both.figures == alone.figures and both.vllm_version == alone.vllm_version and both.model == alone.model
    assert both.figures != parse_lines(first).figures  # the two runs differ, so a merge would show
    assert any("2 startups" in w and f"line {len(first) + 1}" in w for w in both.parse_warnings)
    three = parse_lines(last + first + last)
    assert three.startups == 3 and three.figures == alone.figures


def test_every_single_excerpt_is_one_startup():
    assert [i for i, row in enumerate(EXCERPTS) if parse_lines(row["lines"]).startups != 1] == []


def test_data_parallel_engine_lines_are_one_startup():
    lines = [f"(EngineCore_DP{r} pid={10 + r}) INFO 01-01 00:00:0{r} [core.py:77] Initializing a V1 LLM engine (v0.11.0) "
             "with config: model='m'" for r in range(2)]
    assert parse_lines(lines).startups == 1


def test_engine_core_n_names_of_vllm_0_8_to_0_10_are_data_parallel_engines_of_one_startup():
    # vLLM 0.8-0.10 name the DP engine processes EngineCore_0 / EngineCore_1 (vLLM issue #18567, 0.9.1)
    log = parse_log(Path(__file__).parent / "data" / "dp2_engine_core_n_v0101.log")
    assert log.startups == 1
    assert log.arg("gpu_memory_utilization") == 0.8 and log.arg("data_parallel_size") == 2
    assert log.to_record()["args"]["data_parallel_size"] == 2


# ---- what a log file may be -----------------------------------------------------------------------


def test_gzipped_and_utf16_logs_read_as_the_plain_one(tmp_path):
    import gzip

    text = "\n".join(EXCERPTS[83]["lines"]) + "\n"
    plain = parse_lines(EXCERPTS[83]["lines"])
    gz = tmp_path / "vllm.log"
    gz.write_bytes(gzip.compress(text.encode()))
    utf16 = tmp_path / "ps5.log"
    utf16.write_text(text, encoding="utf-16")
    for log in (parse_log(gz), parse_log(utf16), parse_log(io.BytesIO(gzip.compress(text.encode())))):
        assert log.figures == plain.figures and log.model == plain.model and log.parse_warnings == plain.parse_warnings


def test_an_empty_or_binary_log_is_an_input_error_naming_the_file(tmp_path):
    from tests.test_reconcile import run_cli

    empty = tmp_path / "empty.log"
    empty.write_text("\n\n")
    binary = tmp_path / "core.log"
    binary.write_bytes(bytes(range(128, 256)) * 40)
    for path, words in ((empty, "is empty"), (binary, "is binary")):
        for command in ("reconcile", "diagnose"):
            proc = run_cli(command, str(path))
            assert proc.returncode == 2, (command, proc.stdout)
            assert words in proc.stderr and str(path) in proc.stderr and "Startup" not in proc.stdout


@pytest.mark.parametrize("damage", ["cut", "trailing"])
def test_a_damaged_gzip_log_is_a_one_line_error_naming_the_file(tmp_path, damage):
    import gzip

    from kvplan.errors import InputError
    from tests.test_reconcile import run_cli

    data = gzip.compress(("\n".join(EXCERPTS[83]["lines"]) + "\n").encode())
    data = data[:len(data) // 2] if damage == "cut" else data + b"trailing bytes"
    path = tmp_path / "vllm.log.gz"
    path.write_bytes(data)
    with pytest.raises(InputError, match="damaged gzip"):
        parse_log(path)
    for args in (["diagnose", str(path)], ["reconcile", str(path), "Qwen/Qwen3-8B"]):
        done = run_cli(*args)
        assert done.returncode == 2, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and str(path) in done.stderr and "damaged gzip" in done.stderr


def test_a_log_is_named_as_given_in_every_error_about_it(tmp_path, monkeypatch):
    """One name per log in its errors: standard input is 'standard input' whether it is empty or a damaged gzip (the
    gzip error said '<stdin>'), and a path is the one typed, './x' included (the gzip error dropped the './')."""
    import gzip
    import subprocess
    import sys

    from tests.test_reconcile import run_cli

    cut = gzip.compress(("\n".join(EXCERPTS[83]["lines"]) + "\n").encode())
    cut = cut[:len(cut) // 2]
    proc = subprocess.run([sys.executable, "-c", "from kvplan.cli import main; main()", "diagnose", "-"], input=cut,
                          capture_output=True, timeout=120)
    assert proc.returncode == 2 and b"standard input is a damaged gzip file" in proc.stderr, proc.stderr
    assert "standard input is empty" in run_cli("diagnose", "-", stdin="").stderr
    (tmp_path / "x.log.gz").write_bytes(cut)
    (tmp_path / "empty.log").write_text("")
    monkeypatch.chdir(tmp_path)
    assert "./x.log.gz is a damaged gzip file" in run_cli("reconcile", "./x.log.gz").stderr
    assert "./empty.log is empty" in run_cli("reconcile", "./empty.log").stderr


def test_every_figure_read_names_a_group_of_its_rows_pattern():
    """_FIGURE_READS names, per signature row, the pattern's group holding each value; a misspelt row or group
    would read None for ever, silently."""
    from kvplan.logs import _DOES_NOT_FIT, _ERA_HINTS, _FIGURE_HANDLERS, _FIGURE_READS, SIGNATURES_BY_NAME, StartupLog

    fields = set(StartupLog.__dataclass_fields__) | {"loaded_model", "split_weights_gib", "summary_weights_gib"}
    for name, reads in _FIGURE_READS.items():
        pattern = SIGNATURES_BY_NAME[name].pattern
        for key, group in reads:
            assert group in pattern.groupindex, (name, group)
            assert key in fields, (name, key)
    assert set(_ERA_HINTS) | _DOES_NOT_FIT | set(_FIGURE_HANDLERS) <= set(SIGNATURES_BY_NAME)


def test_the_027_summary_activation_is_read_without_the_cuda_graph_estimate_it_includes():
    """From 0.27 the summary prints transient_peak_headroom + the applied CUDA-graph estimate as "peak activation"
    (gpu_worker.py, 0.27.1; 0.26.0 printed torch_peak_increase alone): the estimate logged before it comes off; with
    no estimate line the figure is not read as the activation peak, unless the run was eager (no estimate)."""
    from kvplan.logs import parse_lines

    summary = ("INFO 08-20 00:00:00 [gpu_worker.py:1] Free memory on device (78.5/79.1 GiB) on startup. Desired GPU "
               "memory utilization is (0.9, 71.2 GiB). Actual usage is 25.9 GiB for consumed memory (weights + non-torch), "
               "2.32 GiB for peak activation, and 0.9 GiB for CUDAGraph memory.")
    estimate = "INFO 08-20 00:00:00 [gpu_model_runner.py:1] Estimated CUDA graph memory: 0.96 GiB total"
    assert parse_lines([estimate, summary]).activation_peak_gib == 1.36
    unknown = parse_lines([summary])
    assert unknown.activation_peak_gib is None and any("CUDA-graph estimate" in w for w in unknown.parse_warnings)
    eager = parse_lines(["INFO 08-20 00:00:00 [utils.py:1] non-default args: {'model': 'm', 'enforce_eager': True}", summary])
    assert eager.activation_peak_gib == 2.32
    old = summary.replace("25.9 GiB for consumed memory (weights + non-torch), 2.32 GiB for peak activation, and",
                          "25.0 GiB for weight, 2.32 GiB for peak activation, 0.9 GiB for non-torch memory, and")
    assert parse_lines([estimate, old]).activation_peak_gib == 2.32  # 0.10.2-0.26: the profile's peak alone


def test_the_027_summary_activation_keeps_an_estimate_that_was_not_applied_or_not_made():
    """The estimate is in the summary's activation only where vLLM applied it: with
    VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0 the log still prints the estimate but says the profiling is disabled, and
    with cudagraph_mode NONE (given, or resolved in the engine config) there is no estimate to apply."""
    from kvplan.logs import parse_lines

    summary = ("INFO 08-20 00:00:00 [gpu_worker.py:1] Free memory on device (78.5/79.1 GiB) on startup. Desired GPU "
               "memory utilization is (0.9, 71.2 GiB). Actual usage is 25.9 GiB for consumed memory (weights + non-torch), "
               "2.32 GiB for peak activation, and 0.9 GiB for CUDAGraph memory.")
    estimate = "INFO 08-20 00:00:00 [gpu_model_runner.py:1] Estimated CUDA graph memory: 0.96 GiB total"
    disabled = ("WARNING 08-20 00:00:00 [gpu_worker.py:1] CUDA graph memory profiling is disabled "
                "(VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0). Without it, CUDA graph memory is not accounted for during "
                "KV cache allocation, which may require lowering --gpu-memory-utilization to avoid OOM.")
    assert parse_lines([estimate, disabled, summary]).activation_peak_gib == 2.32
    assert parse_lines([estimate, summary]).activation_peak_gib == 1.36
    engine = ("INFO 08-20 00:00:00 [core.py:1] Initializing a V1 LLM engine (v0.27.1) with config: model='m', "
              "enforce_eager=False, compilation_config={'level': 3, 'cudagraph_mode': <CUDAGraphMode.%s>, 'use_inductor': True}, seed=0")
    none = [engine % "NONE: 0",
            "INFO 08-20 00:00:00 [utils.py:1] non-default args: {'model': 'm', 'compilation_config': {'cudagraph_mode': 'NONE'}}"]
    for line in none:
        log = parse_lines([line, summary])
        assert log.activation_peak_gib == 2.32 and not log.parse_warnings, line
    captured = parse_lines([engine % "FULL_AND_PIECEWISE: (2, 1)", summary])
    assert captured.activation_peak_gib is None and captured.parse_warnings


def test_torchs_out_of_memory_message_gives_the_cards_total():
    """A start that failed loading its weights prints no vLLM total, but torch's message states the card's: reconcile
    of such a log (a 6 GiB card under WSL2, tests/data/wlog_qwen2_5_7b_fp16_6gib_wsl_v0160_failed.log) asked for --gpu,
    saying the log prints no total."""
    wsl = parse_log(DATA / "wlog_qwen2_5_7b_fp16_6gib_wsl_v0160_failed.log")
    assert wsl.total_gib == 6.0 and wsl.to_record()["gpu"]["total_gib"] == 6.0
    new = parse_lines(["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total "
                       "capacity of 23.65 GiB of which 3.06 MiB is free. Including non-PyTorch memory, this process has "
                       "23.62 GiB memory in use."])
    assert new.total_gib == 23.65
    old = parse_lines(["RuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB (GPU 0; 15109 MiB total capacity; "
                       "14.2 GiB already allocated; 1.81 MiB free; 14.3 GiB reserved in total by PyTorch)"])
    assert math.isclose(old.total_gib, 15109 / 1024, abs_tol=1e-4)
    assert parse_lines(["INFO Available KV cache memory: 6.06 GiB"]).total_gib is None


@pytest.mark.parametrize("line, total", [
    # cut after the total (vLLM issue excerpts), HIP's form, the form listing processes: no oom_accounting row reads
    # them, and diagnose read the total with a regex of its own
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB. GPU 6 has a total capacity of 44.53 GiB "
     "of which 448.00 KiB is free.", 44.53),
    ("torch.OutOfMemoryError: HIP out of memory. Tried to allocate 80.00 MiB. GPU 0 has a total capacity of 15.92 GiB "
     "of which 0 bytes is free. Of the allocated memory 15.63 GiB is allocated by PyTorch", 15.92),
    ("ERROR CUDA out of memory. Tried to allocate 1.95 GiB. GPU 1 has a total capacity of 22.09 GiB of which 758.44 MiB "
     "is free. Process 2751070 has 21.35 GiB memory in use.", 22.09),
    ("RuntimeError: CUDA error: out of memory", None),
    ("RuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB (GPU 0; 15109 MiB total capacity; 14.2 GiB already "
     "allocated; 1.81 MiB free; 14.3 GiB reserved in total by PyTorch)", None),  # oom_accounting_old's to read
])
def test_the_oom_line_holds_torchs_total_for_diagnose(line, total):
    from kvplan.logs import torch_gib

    (hit,) = parse_lines([line]).hits_of("err_cuda_oom")
    assert torch_gib(hit.groups, "total") == total
    assert torch_gib({"free": "448.00", "free_u": "KiB"}, "free") == 448 / 2**20 and torch_gib({}, "free") is None


def test_a_reader_that_does_not_list_the_unrecognised_lines_points_elsewhere():
    log = parse_lines(["INFO Available KV cache memory: 6.06 GiB", "INFO the KV cache memory rose by 2 GiB somehow",
                       "WARNING truncated"])
    assert log.unrecognised_count == 1 and "1 memory-related line(s) not recognised (see unrecognised)" in log.parse_warnings
    listed = log.parse_warnings_listed("`kvplan reconcile` lists them")
    assert "1 memory-related line(s) not recognised (`kvplan reconcile` lists them)" in listed
    assert len(listed) == len(log.parse_warnings) and not any("see unrecognised" in w for w in listed)


def test_a_stated_version_gives_the_era_of_versions_era_row():
    # the log's era follows versions.py's era row (one table for both): each V1 era's first release and the one before
    # it, the V0 eras 0.6.3 / 0.6.4
    from kvplan.versions import rules_for

    def era_of(version: str) -> str | None:
        return parse_lines([f"INFO 05-01 10:00:00 [api_server.py:1000] vLLM API server version {version}"]).era

    for version in ("0.8.0", "0.9.0", "0.9.1", "0.10.2", "0.11.0", "0.17.1", "0.18.0", "0.19.1", "0.20.0", "0.26.1",
                    "0.27.0", "0.33.0", "0.6.3", "0.6.4", "0.6.5", "0.7.3", "0.5.4"):
        assert era_of(version) == rules_for(version).era, version
    # a 0.6.5-0.7.x log without V0-c's split line was read as V1-a, an engine those releases do not have
    assert era_of("0.7.3") == "V0-c" and era_of("0.5.4") == "V0-a"


def test_a_hub_401_is_not_blamed_on_a_missing_token_alone():
    # "HF_TOKEN is missing, empty or invalid": a missing token draws no 401 for a public model; the Hub answers 401 for
    # an invalid token, or for a private, gated or misspelled repository asked without one
    from kvplan.logs import SIGNATURES_BY_NAME

    sig = SIGNATURES_BY_NAME["hf_401"]
    assert "missing, empty or invalid" not in sig.cause
    assert "does not exist" in sig.cause and "public model does not need a token" in sig.cause
    assert sig.fix.startswith("Check the repository id")
