"""A second pass over vLLM's raise statements (the 0.27.1 and 0.33.0 wheels): the refusals of the parallel and
data-parallel launch code (vllm/config/parallel.py, engine/arg_utils.py's data-parallel checks, entrypoints/cli/serve.py,
v1/engine/utils.py, distributed/), and of the hybrid/Mamba code (model_executor/layers/mamba/, the Mamba and GDN
attention builders, config/vllm.py's Mamba checks), each written as the line a user meets. None was read before this
pass (docs/startup-errors-from-source.md, "Second pass"). The comment on each row names the file and function."""

from __future__ import annotations

import pytest

from kvplan.diagnose import CONFIDENT, diagnose
from kvplan.logs import SIGNATURES_BY_NAME

# Lines with several owners, read as hints: an external-LB rank at DP 1 (a framework's launcher or a user's script),
# a Mamba/GDN capture-size assert (user-set capture sizes or a release's path).
HINTS = ["data_parallel_external_lb can only be set", "only supports decode-only full CUDAGraph capture"]

PARALLEL_AND_HYBRID_REFUSALS = [
    ('pydantic_core._pydantic_core.ValidationError: 1 validation error for ParallelConfig\n  Value error, data_parallel_external_lb can only be set when data_parallel_size > 1',
     'invalid_engine_flags', 'client_code', '--data-parallel-rank'),  # config/parallel.py:ParallelConfig._validate_parallel_config (0.27.1, 0.33.0)
    ('ValueError: data_parallel_rank (4) must be in the range [0, 4)',
     'invalid_engine_flags', 'vllm_version_flags', '--data-parallel-rank'),  # config/parallel.py:ParallelConfig.__post_init__ (0.27.1, 0.33.0)
    ('ValueError: EPLB requires tensor, prefill-context, or data parallelism, but got TP=1, PCP=1, DP=1.',
     'invalid_engine_flags', 'vllm_version_flags', '--enable-eplb'),  # config/parallel.py:ParallelConfig._validate_parallel_config (0.27.1, 0.33.0)
    ('ValueError: num_redundant_experts is set to 32 but EPLB is not enabled. Either enable EPLB or unset num_redundant_experts.',
     'invalid_engine_flags', 'vllm_version_flags', '--enable-eplb'),  # config/parallel.py:ParallelConfig._validate_parallel_config (0.27.1, 0.33.0)
    ('ValueError: nnodes > 1 can only be set when distributed executor backend is mp, uni or external_launcher.',
     'invalid_engine_flags', 'vllm_version_flags', '--nnodes'),  # config/parallel.py:ParallelConfig.__post_init__ (0.27.1, 0.33.0)
    ('ValueError: Offline data parallel mode is not supported/useful for dense models.',
     'invalid_engine_flags', 'client_code', 'LLM('),  # config/parallel.py:ParallelConfig.__post_init__ (0.27.1, 0.33.0)
    ('ValueError: Expert parallelism load balancing is only supported on CUDA devices or ROCm devices or XPU devices now.',
     'invalid_engine_flags', 'vllm_version_flags', '--enable-eplb'),  # config/parallel.py:ParallelConfig._validate_parallel_config (0.27.1, 0.33.0)
    ('ValueError: Elastic EP is only supported with enable_eplb=True.',
     'invalid_engine_flags', 'vllm_version_flags', '--enable-eplb'),  # config/parallel.py:ParallelConfig.__post_init__ (0.27.1, 0.33.0)
    ('ValueError: When PCP is enabled, DCP must be disabled, span the PCP axis, or span the full TP x PCP axis. Got TP=4, PCP=2, DCP=4; valid DCP sizes are [1, 2, 8].',
     'invalid_engine_flags', 'vllm_version_flags', '--decode-context-parallel-size'),  # config/parallel.py:ParallelConfig._validate_parallel_config (0.27.1, 0.33.0)
    ('ValueError: Invalid data-parallel launch options: an external data-parallel rank requires `--data-parallel-size-local 1`; got 2. Set it to 1 or omit it.',
     'invalid_engine_flags', 'vllm_version_flags', '--data-parallel-size-local 1'),  # engine/arg_utils.py:EngineArgs.create_engine_config (0.27.1, 0.33.0)
    ('ValueError: Invalid data-parallel launch options: `--data-parallel-external-lb` requires a data-parallel rank. Set `--data-parallel-rank`, or set `--data-parallel-size` greater than 1 and use `--nnodes` with `--node-rank` so the rank can be inferred.',
     'invalid_engine_flags', 'vllm_version_flags', '--data-parallel-rank'),  # engine/arg_utils.py:EngineArgs.create_engine_config (0.27.1, 0.33.0)
    ('ValueError: Invalid data-parallel launch options: `--nnodes 3` must evenly divide the total world size (8). Adjust `--nnodes`, `--data-parallel-size`, `--pipeline-parallel-size`, or `--tensor-parallel-size`.',
     'invalid_engine_flags', 'vllm_version_flags', '--nnodes'),  # engine/arg_utils.py:EngineArgs.create_engine_config (0.27.1, 0.33.0)
    ('ValueError: Invalid data parallel configuration: nnodes (3) must be divisible by the number of data parallel node groups (2 = data_parallel_size 4 / data_parallel_size_local 2)',
     'invalid_engine_flags', 'vllm_version_flags', '--nnodes'),  # config/parallel.py:ParallelConfig.nnodes_within_dp (0.33.0)
    ('ValueError: Non-MoE models do not support external data parallel mode. For external load balancing, launch independent vLLM instances without --data-parallel-* arguments.',
     'invalid_engine_flags', 'vllm_version_flags', 'independent vLLM servers'),  # engine/arg_utils.py:EngineArgs.create_engine_config (0.27.1, 0.33.0)
    ('ValueError: Fault tolerance requires external load balancer mode (--data-parallel-external-lb or --data-parallel-rank). Internal LB mode is not supported.',
     'invalid_engine_flags', 'vllm_version_flags', '--enable-fault-tolerance'),  # engine/arg_utils.py:EngineArgs.create_engine_config (0.27.1, 0.33.0)
    ('ValueError: Cannot use more than one data parallel load balancing mode. Choose one of: --data-parallel-multi-port-external-lb, --data-parallel-external-lb (or --data-parallel-rank), --data-parallel-hybrid-lb (or --data-parallel-start-rank).',
     'invalid_engine_flags', 'vllm_version_flags', '--data-parallel-start-rank'),  # entrypoints/cli/serve.py:ServeSubcommand.cmd (0.27.1, 0.33.0)
    ('ValueError: --api-server-count=4 cannot be used with --headless (no API servers are started in headless mode).',
     'invalid_engine_flags', 'vllm_version_flags', '--headless'),  # entrypoints/cli/serve.py:ServeSubcommand.cmd, run_headless (0.27.1, 0.33.0)
    ('ValueError: --device-ids provides 4 devices, but DP rank 1 needs devices [4, 8)',
     'invalid_engine_flags', 'vllm_version_flags', '--device-ids'),  # v1/engine/utils.py:get_physical_gpu_ids_for_local_dp_rank; engine/arg_utils.py:EngineArgs._resolve_device_ids (0.27.1, 0.33.0)
    ('RuntimeError: Configuration mismatch detected for engine 2. All DP workers must have identical configurations for parameters that affect collective communication (e.g., enable_eplb, eplb_config.log_balancedness). Worker hash: abc, Expected hash: def. Please ensure all workers are started with the same command-line arguments.',
     'invalid_engine_flags', 'vllm_version_flags', 'same command-line arguments'),  # v1/engine/utils.py:wait_for_engine_startup (0.27.1, 0.33.0)
    ('RuntimeError: Remote engine 1 must use --headless unless in external or hybrid dp lb mode',
     'invalid_engine_flags', 'vllm_version_flags', '--headless'),  # v1/engine/utils.py:wait_for_engine_startup (0.27.1, 0.33.0)
    ('ValueError: VLLM_ALLOW_RUNTIME_LORA_UPDATING cannot be used with api_server_count > 1',
     'invalid_engine_flags', 'vllm_version_flags', '--api-server-count 1'),  # entrypoints/cli/serve.py:run_multi_api_server (0.27.1, 0.33.0)
    ('ValueError: Weight input_size_per_partition=1792 (layer model.layers.0.mlp.down_proj) is not divisible by group_size=128. This happens when tensor_parallel_size splits the layer input into shards that are not a whole number of quant groups.',
     'invalid_engine_flags', 'vllm_version_flags', '--tensor-parallel-size'),  # distributed/utils.py:verify_group_size_divides_partition (0.27.1, 0.33.0)
    ('ValueError: sum(partitions)=60 does not match num_hidden_layers=61.',
     'invalid_engine_flags', 'vllm_version_flags', 'VLLM_PP_LAYER_PARTITION'),  # distributed/utils.py:get_pp_indices (0.27.1, 0.33.0)
    ('RuntimeError: Insufficient space in /dev/shm for ShmTensorArena: 1024 MiB required, 64 MiB free. Increase /dev/shm (e.g. --shm-size or --ipc=host).',
     'tp_init_hang', 'container_environment', '--ipc=host'),  # distributed/device_communicators/shm_broadcast.py:check_shm_free_space (0.27.1, 0.33.0)
    ("ValueError: Failed to import Ray: No module named 'ray'.Please install Ray with `pip install ray`.",
     'import_undefined_symbol', 'container_environment', 'pip install ray'),  # v1/executor/ray_utils.py:assert_ray_available (0.27.1, 0.33.0)
    ("RuntimeError: External launcher initialized the default process group without a CPU (gloo) backend. vLLM requires both CPU and device backends. Pass backend='cpu:gloo,cuda:nccl' to torch.distributed.init_process_group().",
     'invalid_engine_flags', 'client_code', 'init_process_group'),  # distributed/parallel_state.py:_validate_default_pg_for_split_group (0.27.1, 0.33.0)
    ('exceeds available Mamba cache blocks (95)... CUDA graph capture cannot proceed',
     'state_blocks_below_max_num_seqs', 'memory_budget', '--max-num-seqs'),  # config/compilation.py:CompilationConfig.resolve_cudagraph_mode_and_sizes (0.27.1, 0.33.0)
    ('ValueError: Stochastic rounding for Mamba cache requires the SSM cache to be float16. Please set it explicitly, by specifying `--mamba-ssm-cache-dtype float16`, or disable stochastic rounding by not specifying `--enable-mamba-cache-stochastic-rounding`.',
     'invalid_engine_flags', 'vllm_version_flags', '--mamba-ssm-cache-dtype float16'),  # config/vllm.py:VllmConfig.__post_init__ (0.27.1, 0.33.0)
    ('ValueError: --use-replayssm requires --mamba-backend triton or flashinfer',
     'invalid_engine_flags', 'vllm_version_flags', '--use-replayssm'),  # config/vllm.py:VllmConfig.validate_mamba_cached_kernel (0.27.1, 0.33.0)
    ('AssertionError: Tensor parallel world size must divide num heads.',
     'invalid_engine_flags', 'vllm_version_flags', '--tensor-parallel-size'),  # model_executor/layers/mamba/mamba_mixer2.py:MambaMixer2.__init__ (0.27.1, 0.33.0)
    ('AssertionError: Chunked prefill is required for Mamba prefix caching.',
     'invalid_engine_flags', 'vllm_version_flags', '--mamba-cache-mode align'),  # model_executor/models/config.py:MambaModelConfig.verify_and_update_config (0.27.1, 0.33.0)
    ('AssertionError: Mamba only supports decode-only full CUDAGraph capture. Make sure all cudagraph capture sizes <= max_num_seq.',
     'invalid_engine_flags', 'vllm_version_flags', '--max-num-seqs'),  # v1/attention/backends/mamba_attn.py:BaseMambaAttentionMetadataBuilder.build_for_cudagraph_capture (0.27.1, 0.33.0)
    ("ValueError: Unknown Mamba SSU backend: cutlass. Valid options: ['triton', 'flashinfer']",
     'invalid_engine_flags', 'vllm_version_flags', '--mamba-backend'),  # model_executor/layers/mamba/ops/ssu_dispatch.py:initialize_mamba_ssu_backend (0.27.1, 0.33.0)
    ('AssertionError: DCP not support mamba now.',
     'invalid_engine_flags', 'vllm_version_flags', '--decode-context-parallel-size 1'),  # v1/core/single_type_kv_cache_manager.py:MambaManager.find_longest_cache_hit; v1/worker/cp_utils.py (0.27.1, 0.33.0)
    ('ValueError: KDA recurrent state supports only auto, float32, and bfloat16; got float16',
     'invalid_engine_flags', 'vllm_version_flags', '--mamba-ssm-cache-dtype'),  # model_executor/layers/mamba/mamba_utils.py:MambaStateDtypeCalculator.kda_state_dtype (0.33.0)
    ('ValueError: --enable-return-routed-experts is incompatible with pipeline parallelism (PP > 1).',
     'invalid_engine_flags', 'vllm_version_flags', '--enable-return-routed-experts'),  # config/vllm.py:VllmConfig.__post_init__ (0.27.1, 0.33.0)
    ('ValueError: `ray` does not support async scheduling yet.',
     'invalid_engine_flags', 'vllm_version_flags', '--async-scheduling'),  # config/vllm.py:VllmConfig.__post_init__ (0.27.1, 0.33.0)
    ('ValueError: Prefill context parallelism requires Model Runner V2. Remove VLLM_USE_V2_MODEL_RUNNER=0.',
     'invalid_engine_flags', 'vllm_version_flags', 'VLLM_USE_V2_MODEL_RUNNER'),  # config/vllm.py:VllmConfig.__post_init__ (0.27.1)
    ('AssertionError: Microbatching currently only supports the deepep_low_latency, deepep_high_throughput, nixl_ep all2all backends on this platform. allgather_reducescatter is not supported.',
     'invalid_engine_flags', 'vllm_version_flags', '--all2all-backend'),  # config/vllm.py:VllmConfig.__post_init__ (0.27.1, 0.33.0)
    ('ValueError: torch_shm is known to fail without VLLM_WORKER_MULTIPROC_METHOD set to spawn',
     'invalid_engine_flags', 'vllm_version_flags', 'VLLM_WORKER_MULTIPROC_METHOD=spawn'),  # config/vllm.py:VllmConfig.__post_init__ (0.27.1, 0.33.0)
]


@pytest.mark.parametrize("line, symptom, layer, fix_part", PARALLEL_AND_HYBRID_REFUSALS)
def test_a_parallel_or_hybrid_refusal_read_from_vllm_s_source_names_its_owner_and_fix(line, symptom, layer, fix_part):
    top = diagnose(line.split("\n")).top
    assert top is not None, line
    assert (top.symptom, top.layer) == (symptom, layer)
    assert top.fatal and fix_part in top.fix
    assert "?" not in top.cause  # every template field the cause names was on the line
    assert (top.confidence < CONFIDENT) == any(h in line for h in HINTS)


@pytest.mark.parametrize("line, symptom, layer, fix_part", PARALLEL_AND_HYBRID_REFUSALS)
def test_the_same_refusal_behind_vllm_s_error_prefix_reads_the_same(line, symptom, layer, fix_part):
    last = line.split("\n")[-1].strip()
    logged = f"(EngineCore_DP0 pid=4242) ERROR 12-02 01:00:00 [core.py:866] {last}"
    top = diagnose([logged]).top
    assert top is not None and (top.symptom, top.layer) == (symptom, layer)


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
