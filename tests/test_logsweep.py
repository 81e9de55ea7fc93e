"""Faults found by sweeping the raw vLLM server logs committed to public repositories (the sweep and its sources:
tests/data/SOURCES-logs.md, section "Log sweep"). Each test reads a trimmed excerpt of one real log, quoted verbatim
(long lines cut where marked with ...)."""

from __future__ import annotations

from kvplan.diagnose import diagnose
from kvplan.logs import parse_lines
from kvplan.reconcile import plan_kwargs_from_log

# daxdelvira/distributed_agent_gc @6ff22ce44809097d2ae0d2ce70d4e47b72310e5f logs/vllm.log (vLLM 0.7.2, TP2, no LoRA)
_NAMESPACE_072 = [
    "INFO 04-18 14:12:51 api_server.py:840] vLLM API server version 0.7.2",
    "INFO 04-18 14:12:51 api_server.py:841] args: Namespace(host=None, port=8000, uvicorn_log_level='info', "
    "api_key=None, lora_modules=None, prompt_adapters=None, chat_template=None, model='Qwen/Qwen2.5-14B-Instruct', "
    "max_model_len=None, tensor_parallel_size=2, gpu_memory_utilization=0.9, enable_lora=False, "
    "enable_lora_bias=False, max_loras=1, max_lora_rank=16, lora_extra_vocab_size=256, lora_dtype='auto', "
    "long_lora_scaling_factors=None, max_cpu_loras=None, fully_sharded_loras=False, qlora_adapter_name_or_path=None)",
    "INFO 04-18 14:21:23 executor_base.py:110] # CUDA blocks: 11770, # CPU blocks: 2730",
    "INFO 04-18 14:21:23 executor_base.py:115] Maximum concurrency for 32768 tokens per request: 5.75x",
]


def test_lora_defaults_printed_beside_enable_lora_false_reserve_no_slots():
    # vLLM <= 0.8 prints every argument, defaults included: max_loras=1 and max_lora_rank=16 beside enable_lora=False
    # are no LoRA slots; read as such, `kvplan reconcile LOG MODEL` refused the log's own arguments (exit 2:
    # "LoRA settings given without --enable-lora")
    log = parse_lines(_NAMESPACE_072)
    args = log.to_record()["args"]
    assert not any(k in args for k in ("enable_lora", "max_loras", "max_lora_rank", "fully_sharded_loras"))
    kwargs = plan_kwargs_from_log(log)
    assert "max_loras" not in kwargs and "max_lora_rank" not in kwargs and kwargs["tensor_parallel_size"] == 2
    # with LoRA on, the slots are the plan's, as before
    on = parse_lines([line.replace("enable_lora=False", "enable_lora=True").replace("max_loras=1", "max_loras=4")
                      for line in _NAMESPACE_072])
    on_args = on.to_record()["args"]
    assert on_args["enable_lora"] is True and on_args["max_loras"] == 4 and on_args["max_lora_rank"] == 16


def test_lora_plan_from_the_072_log_runs():
    import kvplan

    kwargs = plan_kwargs_from_log(parse_lines(_NAMESPACE_072))
    kwargs.pop("vllm_version", None)
    plan = kvplan.fit("Qwen/Qwen2.5-14B-Instruct", "A100-40GB", vllm_version="0.7.2", **kwargs)
    assert plan.weights_bytes > 0


# hashbangcoder-v2/resume-parser @3497251ca983ec00daaba3473ada51b997a893de vllm_server.log (the whole file)
_NO_VLLM = ("/azureuser/localfiles/wheat-from-chaff/backend/.venv/bin/python: Error while finding module specification "
            "for 'vllm.entrypoints.openai.api_server' (ModuleNotFoundError: No module named 'vllm')")


def test_no_module_named_vllm_is_a_failed_start():
    d = diagnose([_NO_VLLM])
    assert d.verdict == "failed" and d.top.symptom == "import_undefined_symbol" and d.top.layer == "pytorch_wheel"
    assert "pip show vllm" in d.top.fix
    assert diagnose(["bash: vllm: command not found"]).top.symptom == "import_undefined_symbol"
    # a missing compiled extension is the other signature, not this one
    broken = diagnose(["ModuleNotFoundError: No module named 'vllm._C'"])
    assert "pip show vllm" not in broken.top.fix


# IsseiHasegawa/vLLM-experiment @6dedb59cf619bd457314f59664aa585bd2ceebc9
# results/raw/pilot/server_Qwen2.5-7B-Instruct_tp1_1785126308.log (a vLLM source build, V2 model runner)
_QUOTA = [
    "(APIServer pid=2271) INFO 07-27 04:28:30 [api_utils.py:339]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.1.dev18496+gd4e0675a7",
    "(EngineCore pid=3559) INFO 07-27 04:33:30 [model_runner.py:281] Loading model from scratch...",
    "(EngineCore pid=3559) ERROR 07-27 04:34:14 [core.py:1269] EngineCore failed to start.",
    "(EngineCore pid=3559) ERROR 07-27 04:34:14 [core.py:1269] Traceback (most recent call last):",
    "(EngineCore pid=3559) ERROR 07-27 04:34:14 [core.py:1269] RuntimeError: Task error: File reconstruction error: "
    "IO Error: Disk quota exceeded (os error 122)",
    "(APIServer pid=2271) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}",
]


def test_disk_quota_exceeded_is_a_full_disk_at_download():
    d = diagnose(_QUOTA)
    assert d.verdict == "failed" and d.top.symptom == "disk_full_download" and d.top.layer == "model_weights"
    assert "quota" in d.top.cause and d.top.confidence >= 0.9
    assert diagnose(["OSError: [Errno 122] Disk quota exceeded: '/home/u/.cache/huggingface/hub/tmp'"]).top.symptom == \
        "disk_full_download"


# Srichakra-D/ContextMatch1 @6d3d4e09e4931aaa2d11af33f14e5e3fbaaa2c39 vllm_log.txt (vLLM 0.23.0, Ctrl-C in torch.compile)
_INTERRUPTED = [
    "(APIServer pid=3407862) INFO 06-22 01:25:41 [api_utils.py:339]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.23.0",
    "(EngineCore pid=3408798) INFO 06-22 01:26:12 [backends.py:1148] Dynamo bytecode transform time: 7.92 s",
    "(EngineCore pid=3408798)     raise AttributeError(f\"module {__name__!r} has no attribute {attr!r}\")",
    "(EngineCore pid=3408798) KeyboardInterrupt",
    "[rank0]:[W622 01:26:22.765816358 ProcessGroupNCCL.cpp:1575] Warning: WARNING: destroy_process_group() was not "
    "called before program exit, which can leak resources.",
    "(APIServer pid=3407862) Traceback (most recent call last):",
    "(APIServer pid=3407862) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}",
]


def test_a_start_interrupted_by_sigint_is_named_not_left_unrecognised():
    d = diagnose(_INTERRUPTED)
    assert d.verdict == "failed" and d.top.symptom == "interrupted" and d.top.fatal
    assert d.log.vllm_version == "0.23.0"
    # Ctrl-C after the server started is how it was stopped: no finding, still started
    started = _INTERRUPTED[:2] + [
        "(EngineCore pid=3408798) INFO 06-22 01:27:00 [kv_cache_utils.py:1] GPU KV cache size: 43,232 tokens",
        "(APIServer pid=3407862) INFO:     Application startup complete.",
        "(APIServer pid=3407862) KeyboardInterrupt",
    ]
    after = diagnose(started)
    assert after.verdict == "started" and not [f for f in after.findings if f.symptom == "interrupted"]
    # a start that had already failed, then stopped by hand: the failure leads, the interrupt is a low note
    failed_first = diagnose(_INTERRUPTED[:2] + [_NO_VLLM] + _INTERRUPTED[2:])
    assert failed_first.top.symptom == "import_undefined_symbol"
    late = next(f for f in failed_first.findings if f.symptom == "interrupted")
    assert not late.fatal and late.confidence < 0.6
    # SIGTERM (vLLM raises KeyboardInterrupt('terminated')) stays the probe-kill signature
    assert diagnose(["KeyboardInterrupt: terminated"]).top.symptom == "k8s_probe_kill"


# sostrowsk/dgx-spark-local-llm @a30decd7f6de661dac6971b785159d92b2d3d2dd vllm-run1-oom.log (vLLM 0.25.1 on a GB10:
# the file ends after torch.compile, the run killed by the host's OOM killer, as the file's name says)
_KILLED = [
    "(APIServer pid=17472) INFO 08-01 17:36:24 [api_utils.py:339]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.25.1",
    "(EngineCore pid=17574) WARNING 08-01 17:48:43 [vllm.py:1486] Auto-initialization of reasoning token IDs failed. "
    "Please check whether your reasoning parser has implemented the `reasoning_start_str` and `reasoning_end_str`.",
    "(EngineCore pid=17574) INFO 08-01 17:49:03 [gpu_model_runner.py:5306] Model loading took 95.63 GiB memory and "
    "748.400124 seconds",
    "(EngineCore pid=17574) INFO 08-01 17:49:31 [backends.py:393] Compiling a graph for compile range (1, 2048) takes "
    "21.60 s",
    "(EngineCore pid=17574) INFO 08-01 17:49:34 [monitor.py:53] torch.compile took 30.61 s in total",
]


def test_a_start_that_stops_without_an_error_says_where_it_stopped():
    d = diagnose(_KILLED)
    assert d.verdict == "not_recognised" and not d.started
    note = next(n for n in d.notes if n.startswith("the log stops mid-start"))
    assert "after torch.compile, during the memory profile" in note and "torch.compile took 30.61 s" in note
    assert "OOM killer" in note
    # a start that stops on a traceback, or that started, gets no such note
    assert not any("stops mid-start" in n for n in diagnose(_KILLED + ["Traceback (most recent call last):"]).notes)
    loaded = diagnose(_KILLED[:3])
    assert any("after the weights were loaded" in n for n in loaded.notes)
    assert not any("stops mid-start" in n for n in diagnose(["hello", "world"]).notes)


# sostrowsk/dgx-spark-local-llm @d241edfb2e762397c82330f90e0f6378ffba5d3d laguna-int4-pinned.log (vLLM 0.25.1; the
# progress bar's carriage returns already made one line of it), DaisukeTakai/eval_dataset
# @5e60114ff6bbbd84b6868d9b97459ea59c7058d6 vllm_judge.log (0.10.0), wujxy/IRIS_search
# @fcfe78eca44316520fe3d6d45c5edf4e7f5d71e4 logs/vllm_index_output.log (0.14.0)
_SERVING_NOISE = [
    "(EngineCore pid=37032) Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):   0%|          | 0/51 "
    "[00:00<?, ?it/s]Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):   2%|▏         | 1/51 "
    "[00:00<00:10,  4.66it/s]",
    "\x1b[1;36m(VllmWorker rank=1 pid=633583)\x1b[0;0m INFO 08-15 10:51:12 [custom_all_reduce.py:196] Registering 12663 "
    "cuda graph addresses",
    "\x1b[0;36m(APIServer pid=360068)\x1b[0;0m INFO 03-16 14:52:41 [vllm.py:765] Cudagraph is disabled under eager mode",
    "(APIServer pid=36929) INFO 08-04 07:42:47 [loggers.py:273] Engine 000: Avg prompt throughput: 5.6 tokens/s, Avg "
    "generation throughput: 4.0 tokens/s, Running: 0 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.0%, Prefix cache "
    "hit rate: 0.0%",
    # daxdelvira/distributed_agent_gc @6ff22ce44809097d2ae0d2ce70d4e47b72310e5f logs/vllm.log (V0, 0.7.2)
    "INFO 04-18 14:22:40 metrics.py:455] Avg prompt throughput: 10.7 tokens/s, Avg generation throughput: 0.1 tokens/s, "
    "Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.1%, CPU KV cache usage: 0.0%.",
]


def test_serving_statistics_and_progress_bars_are_not_unrecognised_memory_lines():
    # one swept log of a day's serving reported 5,000 'memory-related lines not recognised', every one a statistics line
    log = parse_lines(_SERVING_NOISE * 50)
    assert log.unrecognised_count == 0 and not log.unrecognised
    assert not any("not recognised" in w for w in log.parse_warnings)
    # a line of the same words that is not one of them is still reported
    odd = parse_lines(["INFO 08-04 07:42:47 [x.py:1] GPU KV cache usage will be limited to 3.2 GiB"])
    assert odd.unrecognised_count == 1


def test_init_engine_line_of_recent_releases_marks_a_start():
    # 0.29.0 vllm/v1/engine/core.py prints 'took X s' (and '(compilation: Y s)'); older releases 'took X seconds'
    recent = "(EngineCore pid=37032) INFO 08-04 07:41:55 [core.py:337] init engine (profile, create kv cache, warmup model) took 56.11 s (compilation: 34.81 s)"
    old = "INFO 03-16 14:56:04 [core.py:273] init engine (profile, create kv cache, warmup model) took 0.90 seconds"
    for line in (recent, old, recent.split(" (compilation")[0]):
        log = parse_lines([line])
        assert log.started is True and log.hits_of("init_engine_took"), line


def test_the_bytes_of_a_gzip_or_utf16_log_read_as_its_file_does(tmp_path):
    # the sweep re-read every started log gzipped, in UTF-16, with CRLF/CR endings and behind docker compose, k8s
    # and journald prefixes: each gave the same figures as the plain file, save gzip handed over as bytes (nothing read)
    import gzip

    from kvplan.logs import parse_log

    text = "\n".join(_NAMESPACE_072) + "\n"
    plain = parse_log(text.encode())
    assert plain.num_gpu_blocks == 11770 and plain.vllm_version == "0.7.2"
    for data in (gzip.compress(text.encode()), b"\xff\xfe" + text.encode("utf-16-le")):
        log = parse_log(data)
        assert (log.vllm_version, log.num_gpu_blocks, log.max_concurrency) == ("0.7.2", 11770, 5.75)
        path = tmp_path / "vllm.log"
        path.write_bytes(data)
        assert parse_log(str(path)).num_gpu_blocks == 11770


# NnamdiOdozi/mlops-assignment @9f7c6a3d2fca52be8bf98445d45fd9727e545518 logs/vllm.log: a `docker run` refused its
# port, then the output of the container already serving (its start scrolled out); 38,123 lines that read as
# "not recognised, not a vLLM log"
_DOCKER_PORT = ("docker: Error response from daemon: failed to set up container networking: driver failed programming "
                "external connectivity on endpoint nervous_dubinsky (d915782d971f0471ccd2472a79eb1c96f33755abd499dfa4b1f6cc6a"
                "686840cc): Bind for 0.0.0.0:8000 failed: port is already allocated")
_CONTEXT_0290 = ("(APIServer pid=1) vllm.exceptions.VLLMValidationError: This model's maximum context length is 8192 tokens. "
                 "However, you requested 512 output tokens and your prompt contains at least 7681 input tokens, for a total "
                 "of at least 8193 tokens. Please reduce the length of the input prompt or the number of requested output "
                 "tokens. (parameter=input_tokens, value=7681)")


def test_docker_port_already_allocated_and_the_servers_own_length_check():
    d = diagnose(["nohup: ignoring input", _DOCKER_PORT, "", "Run 'docker run --help' for more information",
                  "(APIServer pid=1) INFO:     172.17.0.1:44956 - \"GET /metrics HTTP/1.1\" 200 OK", _CONTEXT_0290])
    assert d.verdict == "failed" and d.top.symptom == "port_in_use" and d.top.layer == "container_environment"
    assert "8000" in d.top.cause and "docker" in d.top.fix
    length = next(f for f in d.findings if f.symptom == "prompt_exceeds_max_model_len")
    assert not length.fatal and "8192" in length.cause and "7681 input tokens" in length.cause
    # the 0.9.1 wording (vllm/entrypoints/openai/serving_engine.py), alone: a started server rejecting a request
    old = ("ValueError: This model's maximum context length is 4096 tokens. However, you requested 4196 tokens (4096 "
           "in the messages, 100 in the completion). Please reduce the length of the messages or completion.")
    alone = diagnose([old])
    assert alone.top.symptom == "prompt_exceeds_max_model_len" and not alone.top.fatal and alone.verdict != "failed"


# Chris113113/vllm-sweep-benchmark @fa47a64db70bda97f70965d4e095f52f9fca9f34
# llama3-3-70b-vllm/2_Official_Throughput_-_70B_Model_TP-8_ISL-2048_OSL-2048_vllm_script.log (0.9.1, vllm.LLM, TP8):
# the pool sized and the graphs captured, a worker's warm-up step then hit an NVLink fault and the run ended
_DIED_IN_WARMUP = [
    "INFO 06-24 22:52:53 [core.py:70] Initializing a V1 LLM engine (v0.9.1) with config: "
    "model='meta-llama/Llama-3.3-70B-Instruct', speculative_config=None, tokenizer='meta-llama/Llama-3.3-70B-Instruct'",
    "INFO 06-24 22:55:03 [kv_cache_utils.py:715] GPU KV cache size: 3,563,712 tokens",
    "INFO 06-24 22:55:03 [kv_cache_utils.py:719] Maximum concurrency for 4,096 tokens per request: 870.05x",
    "\x1b[1;36m(VllmWorker rank=0 pid=376596)\x1b[0;0m INFO 06-24 22:55:36 [gpu_model_runner.py:2048] Graph capturing "
    "finished in 33 secs, took 1.25 GiB",
    "\x1b[1;36m(VllmWorker rank=7 pid=376603)\x1b[0;0m ERROR 06-24 22:55:37 [multiproc_executor.py:527] WorkerProc hit an "
    "exception.",
    "\x1b[1;36m(VllmWorker rank=7 pid=376603)\x1b[0;0m ERROR 06-24 22:55:37 [multiproc_executor.py:527] Traceback (most "
    "recent call last):",
    "\x1b[1;36m(VllmWorker rank=7 pid=376603)\x1b[0;0m ERROR 06-24 22:55:37 [multiproc_executor.py:527] RuntimeError: "
    "Triton Error [CUDA]: uncorrectable NVLink error detected during the execution",
    "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:594 'uncorrectable NVLink error detected during the execution'",
    "ERROR 06-24 22:55:37 [multiproc_executor.py:140] Worker proc VllmWorker-3 died unexpectedly, shutting down executor.",
]
# Chris113113/vllm-sweep-benchmark @fa47a64db70bda97f70965d4e095f52f9fca9f34
# full_run_0625_2/16_Gemma-3-27B-IT_TP-1_ISL-256_OSL-256_vllm_script.log (0.9.1 on B200): ready, then the first step died
_DIED_SERVING = [
    "INFO 06-25 21:51:55 [core.py:70] Initializing a V1 LLM engine (v0.9.1) with config: model='google/gemma-3-27b-it', "
    "speculative_config=None, tokenizer='google/gemma-3-27b-it', skip_tokenizer_init=False",
    "INFO 06-25 21:56:51 [kv_cache_utils.py:870] GPU KV cache size: 235,712 tokens",
    "INFO 06-25 21:57:06 [gpu_model_runner.py:2048] Graph capturing finished in 15 secs, took 1.26 GiB",
    "INFO 06-25 21:57:06 [core.py:171] init engine (profile, create kv cache, warmup model) took 44.95 seconds",
    "ERROR 06-25 21:57:07 [dump_input.py:69] Dumping input data",
    "ERROR 06-25 21:57:07 [core.py:517] EngineCore encountered a fatal error.",
    "ERROR 06-25 21:57:07 [core.py:517] Traceback (most recent call last):",
    "ERROR 06-25 21:57:07 [core.py:517] AssertionError: FlashInfer backend currently only supports models in which all "
    "layers share the same values for the following hyperparameters: `window_left`, `logits_soft_cap`, `sm_scale`.",
    "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.",
]
# 2215860382/VedioSifter @f0edafcff305af304f66d2207b257070db46fe7a vllm_server.log (0.12.0): up for three hours, then
# the engine process vanished without a traceback
_KILLED_SERVING = [
    "\x1b[0;36m(APIServer pid=523647)\x1b[0;0m INFO 04-27 15:04:49 [api_server.py:1772] vLLM API server version 0.12.0",
    "\x1b[0;36m(EngineCore_DP0 pid=526615)\x1b[0;0m INFO 04-27 15:09:42 [kv_cache_utils.py:1286] GPU KV cache size: "
    "198,288 tokens",
    "\x1b[0;36m(APIServer pid=523647)\x1b[0;0m INFO:     Application startup complete.",
    "\x1b[0;36m(APIServer pid=523647)\x1b[0;0m ERROR 04-27 18:09:47 [core_client.py:600] Engine core proc EngineCore_DP0 "
    "died unexpectedly, shutting down client.",
    "\x1b[0;36m(APIServer pid=523647)\x1b[0;0m ERROR 04-27 18:09:47 [async_llm.py:546] vllm.v1.engine.exceptions."
    "EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.",
]


def test_an_engine_that_dies_after_sizing_its_pool_is_told_apart_from_a_healthy_start():
    # before: all three 'started', 'healthy start: ... nothing known went wrong'
    warmup = diagnose(_DIED_IN_WARMUP)
    # not recognised until the wlog round; CUDA's uncorrectable NVLink error is now read as the interconnect's fault
    assert warmup.verdict == "failed" and not warmup.started and warmup.failed
    assert (warmup.top.symptom, warmup.top.layer) == ("tp_init_hang", "interconnect") and warmup.top.fatal
    assert any("uncorrectable NVLink error" in e for e in warmup.top.evidence)
    assert warmup.log.kv_cache_tokens == 3563712  # the figures stay: reconcile reads them as before
    serving = diagnose(_DIED_SERVING)
    assert serving.verdict == "started" and "died while serving" in serving.notes[0]
    assert "AssertionError: FlashInfer backend" in serving.notes[0] and "EngineDeadError" not in serving.notes[0]
    killed = diagnose(_KILLED_SERVING)
    assert killed.verdict == "started" and "EngineCore_DP0 exited without a traceback" in killed.notes[0]
    assert "OOM killer" in killed.notes[0] and "(line 4)" in killed.notes[0]
    assert not any(n.startswith("healthy start") for d in (warmup, serving, killed) for n in d.notes)


def test_line_numbers_are_the_files_own_when_progress_bars_use_carriage_returns(tmp_path):
    # tqdm's '\r' updates were counted as lines: 'read the last one, from line N' and the evidence's line numbers
    # drifted from what grep -n and an editor show (the swept wujxy/IRIS_search logs: 'line 5475' for line 5460)
    bar = "Loading safetensors checkpoint shards:  50% Completed | 1/2\rLoading safetensors checkpoint shards: 100% Completed | 2/2\r"
    text = "\n".join([_KILLED_SERVING[0], bar, bar, _KILLED_SERVING[1], _KILLED_SERVING[2], _KILLED_SERVING[3]]) + "\n"
    import io

    from kvplan.logs import parse_log

    for source in (text.encode(), text, io.StringIO(text, newline=""), io.BytesIO(text.encode())):
        log = parse_log(source)
        assert log.lines_read == 6, source
        assert log.hits_of("engine_proc_died")[0].line_number == 6
        assert log.kv_cache_tokens == 198288
    path = tmp_path / "v.log"
    path.write_bytes(b"\xff\xfe" + text.encode("utf-16-le"))
    assert parse_log(str(path)).hits_of("engine_proc_died")[0].line_number == 6
    assert parse_log(path.read_bytes()).lines_read == 6


def test_an_archive_is_named_as_one(tmp_path):
    # graz-dev/vllm-benchmark studies/0-explorative/results/export.gz is a gzipped tar (a study export with logs
    # inside): it was refused as 'binary, not text (1 of 1 lines are not UTF-8)'
    import gzip
    import io
    import tarfile
    import zipfile

    import pytest

    from kvplan.errors import InputError
    from kvplan.logs import read_log

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        data = b"\x00\x01" * 400
        info = tarfile.TarInfo("study.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    (tmp_path / "export.gz").write_bytes(gzip.compress(buf.getvalue()))
    with pytest.raises(InputError, match="is a tar archive, not a log"):
        read_log(str(tmp_path / "export.gz"))
    with zipfile.ZipFile(tmp_path / "logs.zip", "w") as z:
        z.writestr("vllm.log", "\x00" * 100)
    with pytest.raises(InputError, match="is a zip archive"):
        read_log(str(tmp_path / "logs.zip"))
    (tmp_path / "noise.bin").write_bytes(bytes(range(256)) * 4)
    with pytest.raises(InputError, match="is binary, not text"):
        read_log(str(tmp_path / "noise.bin"))


# vLLM 0.18+ measures CUDA-graph memory on a minimal KV cache first, logging the override it uses for it
# (llm-d-incubation/llm-d-planner @d3121e0 accuracy/results/v0.19.0/logs/meta-llama-llama-3-1-8b---h100-80gb--tp1pp1dp1--8192.log)
_GRAPH_PROFILE_0190 = """\
(EngineCore pid=242) INFO 04-22 00:04:19 [v1/core/kv_cache_utils.py:829] Overriding num_gpu_blocks=0 with num_gpu_blocks_override=512
(EngineCore pid=242) DEBUG 04-22 00:04:19 [v1/worker/gpu_model_runner.py:5818] Initialized minimal KV cache for CUDA graph profiling
(EngineCore pid=242) INFO 04-22 00:04:20 [v1/worker/gpu_worker.py:436] Available KV cache memory: 58.11 GiB
(EngineCore pid=242) INFO 04-22 00:04:20 [v1/core/kv_cache_utils.py:1319] GPU KV cache size: 476,016 tokens
(EngineCore pid=242) INFO 04-22 00:04:20 [v1/core/kv_cache_utils.py:1324] Maximum concurrency for 8,192 tokens per request: 58.11x
"""


def test_the_graph_profiles_minimal_cache_override_is_not_the_pools_block_count():
    log = parse_lines(_GRAPH_PROFILE_0190.splitlines())
    assert log.num_gpu_blocks is None and log.overridden_gpu_blocks is None
    assert log.kv_cache_tokens == 476016
    metrics = ("(APIServer pid=1) DEBUG 04-22 00:04:25 [v1/metrics/loggers.py:273] Engine 000: vllm cache_config_info "
               "with initialization after num_gpu_blocks is: 29751")
    assert parse_lines((_GRAPH_PROFILE_0190 + metrics).splitlines()).num_gpu_blocks == 29751
    # a user's --num-gpu-blocks-override, applied to the sized pool, is still read
    user = ("(EngineCore pid=242) INFO 04-22 00:04:20 [v1/core/kv_cache_utils.py:829] Overriding num_gpu_blocks=29751 "
            "with num_gpu_blocks_override=1000")
    log = parse_lines((_GRAPH_PROFILE_0190 + user).splitlines())
    assert (log.num_gpu_blocks, log.overridden_gpu_blocks) == (1000, 29751)


def test_the_anchor_index_holds_each_anchors_signatures_in_order():
    # logs._SIGNATURES_BY_ANCHOR is built in one pass over the signatures (import time); it must be what asking every
    # signature about every anchor gives, keys and order included
    from kvplan import logs

    naive = {a: tuple(s for s in logs.SIGNATURES if a in s.anchors) for a in logs._ANCHORS}
    assert list(logs._SIGNATURES_BY_ANCHOR.items()) == list(naive.items())
