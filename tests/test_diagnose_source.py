"""Startup refusals enumerated from vLLM's source (the raise statements of the 0.27.1 and 0.33.0 wheels on the `vllm
serve` path: config/*.py, engine/arg_utils.py, v1/worker, model loader, model registry, transformers_utils), each written
as the line a user meets (the traceback's last line), that kvplan diagnose did not read before the `src_*` signatures
(docs/diagnose-validation.md "From the source: startup errors of 0.27-0.33"). The source comment on each row names the
file and function the message was read in."""

from __future__ import annotations

import re

import pytest

from kvplan.diagnose import CONFIDENT, diagnose
from kvplan.logs import SIGNATURES

# Lines whose wording has more than one owner (a Transformers older than the model or a custom model; a checkpoint of
# another layout or a release that does not map it; a misspelt id or a private repository): read as hints.
HINTS = ['is not a registered model in the Transformers library', 'were not initialized from checkpoint', 'Repository Not Found for url']

SOURCE_REFUSALS = [
    ('ValueError: max_model_len must be a positive integer, got int: 0. Example: max_model_len=2048',
     'invalid_engine_flags', 'vllm_version_flags', '--max-model-len'),  # config/model.py:ModelConfig.validate_model_config_after
    ("ValueError: ('The quantization method %s is deprecated and will be removed in future versions of vLLM. To bypass, set `--allow-deprecated-quantization`.', 'deepspeedfp')",
     'invalid_engine_flags', 'vllm_version_flags', '--allow-deprecated-quantization'),  # config/model.py:ModelConfig._verify_quantization
    ('ValueError: The model type gemma3 does not support float16. Reason: Numerical instability. Please use bfloat16 or float32 instead.',
     'invalid_engine_flags', 'vllm_version_flags', '--dtype bfloat16'),  # config/model.py:_check_valid_dtype
    ("ValueError: Unknown dtype: 'fp16'",
     'invalid_engine_flags', 'vllm_version_flags', '--dtype auto'),  # config/model.py:_get_and_verify_dtype
    ("ValueError: Invalid kv_cache_dtype: fp16. Valid values are: ['auto', 'bfloat16', 'fp8', 'fp8_e4m3', 'fp8_e5m2']",
     'invalid_engine_flags', 'vllm_version_flags', '--kv-cache-dtype auto'),  # config/cache.py:CacheConfig._validate_cache_dtype
    ('ValueError: kv_cache_dtype="bfloat16" is incompatible with dtype="float16". Please set `--kv-cache-dtype` to auto.',
     'invalid_engine_flags', 'vllm_version_flags', '--kv-cache-dtype'),  # config/vllm.py:VllmConfig._reject_mismatched_float_kv_cache
    ("ValueError: nvfp4 KV cache is not supported with MLA (Multi-head Latent Attention) backends. Please use a different --kv-cache-dtype (e.g., 'fp8', 'auto', or 'nvfp4_ds_mla').",
     'invalid_engine_flags', 'vllm_version_flags', '--kv-cache-dtype fp8'),  # config/vllm.py:validate_nvfp4_kv_cache_with_mla
    ('ValueError: long_prefill_token_threshold (65536) cannot be greater than the max_model_len (32768).',
     'invalid_engine_flags', 'vllm_version_flags', '--long-prefill-token-threshold'),  # config/scheduler.py:SchedulerConfig.verify_max_model_len
    ("ValueError: Unrecognized distributed executor backend rays. Supported values are 'ray', 'mp' 'uni', 'external_launcher',  custom Executor subclass or its import path.",
     'invalid_engine_flags', 'vllm_version_flags', '--distributed-executor-backend mp'),  # config/parallel.py:ParallelConfig._verify_args
    ('ValueError: data_parallel_size_local (4) must be <= data_parallel_size (2)',
     'invalid_engine_flags', 'vllm_version_flags', '--data-parallel-size-local'),  # config/parallel.py:ParallelConfig._validate_parallel_config
    ('ValueError: tp_size=4 must be divisible by dcp_size=3.',
     'invalid_engine_flags', 'vllm_version_flags', '--decode-context-parallel-size'),  # config/parallel.py:ParallelConfig._validate_parallel_config
    ("ValueError: Decode context parallelism for GQA/MQA requires `--tensor-parallel-size` (8) to be greater than the model's total number of KV heads (8). Increase `--tensor-parallel-size` or set `--decode-context-parallel-size 1`.",
     'invalid_engine_flags', 'vllm_version_flags', '--decode-context-parallel-size 1'),  # config/model.py:ModelConfig.verify_with_parallel_config
    ('ValueError: enable_expert_parallel must be True to use EPLB.',
     'invalid_engine_flags', 'vllm_version_flags', '--enable-expert-parallel'),  # config/parallel.py:ParallelConfig._validate_parallel_config
    ('ValueError: This model does not support `--runner generate`.',
     'invalid_engine_flags', 'vllm_version_flags', '--runner auto'),  # config/model.py:ModelConfig.__post_init__
    ('ValueError: This model does not support `--runner pooling`. You can pass `--convert embed to adapt it into a pooling model.',
     'invalid_engine_flags', 'vllm_version_flags', '--convert'),  # config/model.py:ModelConfig.__post_init__
    ('ValueError: LoRA is not supported for Qwen3NextForCausalLM (qwen3_next). Supported models implement the `SupportsLoRA` interface. Run this model without `enable_lora`.',
     'invalid_engine_flags', 'vllm_version_flags', '--enable-lora'),  # config/lora.py:LoRAConfig.verify_with_model_config
    ('ValueError: max_cpu_loras (2) must be >= max_loras (4).',
     'invalid_engine_flags', 'vllm_version_flags', '--max-cpu-loras'),  # config/lora.py:LoRAConfig._validate_lora_config
    ('ValueError: Adapter bias is not supported.',
     'invalid_engine_flags', 'model_weights', 'bias="none"'),  # lora/peft_helper.py:PEFTHelper.validate_legal
    ('ValueError: Expected num_speculative_tokens to be greater than zero (0).',
     'invalid_engine_flags', 'vllm_version_flags', 'num_speculative_tokens'),  # config/speculative.py:SpeculativeConfig._verify_args
    ("ValueError: 'tensor_parallel_size' is not a valid argument in the speculative_config. Please pass 'draft_tensor_parallel_size' instead.",
     'invalid_engine_flags', 'vllm_version_flags', 'draft_tensor_parallel_size'),  # config/speculative.py:SpeculativeConfig._verify_args
    ('ValueError: speculative_draft_tensor_parallel_size=2 cannot be other value than 1 or target model tensor_parallel_size',
     'invalid_engine_flags', 'vllm_version_flags', 'draft_tensor_parallel_size'),  # config/speculative.py:SpeculativeConfig._verify_and_get_draft_tp
    ('ValueError: Target and draft model should have the same vocabulary size. Target model vocab_size=151936. Draft model vocab_size=32000. Using models with different tokenizers can cause out-of-bounds errors during speculative decoding.',
     'invalid_engine_flags', 'vllm_version_flags', 'same tokenizer'),  # config/speculative.py:SpeculativeConfig.verify_equal_vocab_size_if_draft_model
    ('ValueError: speculative_max_model_len=65536 cannot be larger than target_max_model_len=32768',
     'invalid_engine_flags', 'vllm_version_flags', 'max_model_len'),  # config/speculative.py:SpeculativeConfig._maybe_override_draft_max_model_len
    ('ValueError: Either prompt_lookup_max or prompt_lookup_min must be provided when using the ngram method.',
     'invalid_engine_flags', 'vllm_version_flags', 'prompt_lookup_max'),  # config/speculative.py:SpeculativeConfig.__post_init__
    ("NotImplementedError: Unsupported speculative method: 'medusa2'",
     'invalid_engine_flags', 'vllm_version_flags', 'ngram'),  # config/speculative.py:SpeculativeConfig.__post_init__
    ('ValueError: max_num_scheduled_tokens is set to 0 based on the speculative decoding settings, which does not allow any tokens to be scheduled. Increase max_num_batched_tokens to accommodate the additional draft token slots, or decrease num_speculative_tokens or max_num_seqs.',
     'invalid_engine_flags', 'vllm_version_flags', '--max-num-batched-tokens'),  # config/vllm.py:VllmConfig._set_max_num_scheduled_tokens
    ('ValueError: No valid cudagraph sizes after rounding to multiple of 4 (num_speculative_tokens + 1) please adjust num_speculative_tokens (3) or max_cudagraph_capture_size (2) or cudagraph_capture_sizes ([1, 2])',
     'invalid_engine_flags', 'vllm_version_flags', 'max_cudagraph_capture_size'),  # config/compilation.py:CompilationConfig.adjust_cudagraph_sizes_for_spec_decode
    ('ValueError: CUDAGraphMode.FULL is not supported with FlashInferBackend backend (support:AttentionCGSupport.UNIFORM_BATCH) ; please try cudagraph_mode=PIECEWISE, and make sure compilation mode is VLLM_COMPILE',
     'invalid_engine_flags', 'vllm_version_flags', 'PIECEWISE'),  # config/compilation.py:CompilationConfig.resolve_cudagraph_mode_and_sizes
    ('ValueError: customized max_cudagraph_capture_size(=512) should be consistent with the max value of cudagraph_capture_sizes(=256)',
     'invalid_engine_flags', 'vllm_version_flags', 'max_cudagraph_capture_size'),  # config/vllm.py:VllmConfig._set_cudagraph_sizes
    ('ValueError: Invalid compilation mode: 4. Valid modes are: NONE, STOCK_TORCH_COMPILE, DYNAMO_TRACE_ONCE, VLLM_COMPILE',
     'invalid_engine_flags', 'vllm_version_flags', 'VLLM_COMPILE'),  # config/compilation.py:CompilationConfig.validate_mode_before
    ('ValueError: --mamba-block-size can only be set with --enable-prefix-caching',
     'invalid_engine_flags', 'vllm_version_flags', '--enable-prefix-caching'),  # config/vllm.py:VllmConfig.validate_mamba_block_size
    ('ValueError: Hybrid KV cache manager was explicitly enabled but is not supported in this configuration. Consider omitting the --enable-hybrid-kv-cache-manager flag to let vLLM decide automatically.',
     'invalid_engine_flags', 'vllm_version_flags', '--enable-hybrid-kv-cache-manager'),  # config/vllm.py:VllmConfig.__post_init__
    ('ValueError: Model architecture MPTForCausalLM was supported in vLLM until v0.10.2, and is not supported anymore. Please use an older version of vLLM if you want to use this model architecture.',
     'unsupported_architecture', 'vllm_version_flags', '0.10.2'),  # model_executor/models/registry.py:_ModelRegistry._raise_for_unsupported
    ("ValueError: Cannot find model module. 'FooModel' is not a registered model in the Transformers library (only relevant if the model is meant to be in Transformers) and 'AutoModel' is not present in the model config's 'auto_map' (relevant if the model is custom).",
     'unsupported_architecture', 'vllm_version_flags', 'transformers'),  # model_executor/models/registry.py:_ModelRegistry._try_resolve_transformers
    ('ValueError: The Transformers implementation of FooForCausalLM is not compatible with vLLM.',
     'unsupported_architecture', 'vllm_version_flags', 'natively'),  # model_executor/models/registry.py:_ModelRegistry._try_resolve_transformers
    ("ValueError: Could not detect config format for no config file found. With config_format 'auto', ensure your model has either config.json (HF format) or params.json (Mistral format). Otherwise please specify your_custom_config_format in engine args for customized config parsing.",
     'weights_not_cached', 'model_weights', 'config.json'),  # transformers_utils/config.py:get_config
    ('ValueError: Unknown load_format: safetensor',
     'invalid_engine_flags', 'vllm_version_flags', '--load-format auto'),  # model_executor/model_loader/default_loader.py:DefaultModelLoader._prepare_weights
    ("ValueError: Following weights were not initialized from checkpoint: {'model.layers.0.mlp.gate_proj.weight'}",
     'tokenizer_or_revision_mismatch', 'model_weights', 'checkpoint'),  # model_executor/model_loader/default_loader.py:DefaultModelLoader.track_weights_loading
    ('RuntimeError: CUDA out of memory occurred when warming up pooler (task=embed) with 1024 dummy requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine.',
     'oom_graph_capture_or_profiling', 'memory_budget', '--max-num-seqs'),  # v1/worker/gpu_model_runner.py:GPUModelRunner._dummy_pooler_run_task
    ('RuntimeError: Model Qwen3ForCausalLM does not support any pooling tasks. See https://docs.vllm.ai/en/latest/models/pooling_models.html to learn more.',
     'invalid_engine_flags', 'vllm_version_flags', '--runner generate'),  # v1/worker/gpu_model_runner.py:GPUModelRunner._dummy_pooler_run
    ('ValueError: Model Runner V2 requires Triton.',
     'invalid_engine_flags', 'vllm_version_flags', 'VLLM_USE_V2_MODEL_RUNNER'),  # v1/worker/gpu_worker.py:Worker.__init__
    ("ValueError: To load a model from object storage (S3/GCS/Azure), 'load_format' must be 'modelexpress', 'runai_streamer' or 'runai_streamer_sharded', but got 'auto'. Model: s3://bucket/llama",
     'invalid_engine_flags', 'vllm_version_flags', 'runai_streamer'),  # config/vllm.py:VllmConfig.try_verify_and_update_config
    ('ValueError: Sleep mode is not supported on current platform.',
     'invalid_engine_flags', 'vllm_version_flags', '--enable-sleep-mode'),  # config/model.py:ModelConfig.__post_init__
    ('huggingface_hub.errors.RepositoryNotFoundError: 404 Client Error. (Request ID: Root=1-6) Repository Not Found for url: https://huggingface.co/api/models/org/typo-model/revision/main.',
     'download_failed', 'model_weights', 'HF_TOKEN'),  # huggingface_hub (transformers_utils/repo_utils.py)
]


# The second pass (the 0.27.1 and 0.33.0 wheels' parallel and data-parallel launch code: vllm/config/parallel.py,
# engine/arg_utils.py's data-parallel checks, entrypoints/cli/serve.py, v1/engine/utils.py, distributed/; and the
# hybrid/Mamba code: model_executor/layers/mamba/, the Mamba and GDN attention builders, config/vllm.py's Mamba checks):
# none was read before it (docs/startup-errors-from-source.md, "Second pass"); tests/test_diagnose_source_parallel.py
# holds its other checks.
# Lines with several owners, read as hints: an external-LB rank at DP 1 (a framework's launcher or a user's script),
# a Mamba/GDN capture-size assert (user-set capture sizes or a release's path).
PARALLEL_HINTS = ["data_parallel_external_lb can only be set", "only supports decode-only full CUDAGraph capture"]

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
    ('ValueError: Adaptive verification requires full CUDA graphs. Use cudagraph mode FULL, FULL_DECODE_ONLY, or FULL_AND_PIECEWISE, or disable adaptive verification.',
     'invalid_engine_flags', 'vllm_version_flags', 'enable_adaptive_verification'),  # config/vllm.py:VllmConfig._validate_adaptive_verification (0.30.0-0.34.0)
    ('ValueError: Adaptive verification is not currently compatible with LoRA',
     'invalid_engine_flags', 'vllm_version_flags', '--enable-lora'),  # config/vllm.py:VllmConfig._validate_adaptive_verification (0.29.0-0.34.0)
    ('ValueError: Model Runner V1 does not support: adaptive draft verification',
     'invalid_engine_flags', 'vllm_version_flags', 'VLLM_USE_V2_MODEL_RUNNER'),  # config/vllm.py:VllmConfig._validate_v1_model_runner (0.29.0-0.33.0)
    ('ValueError: torch_shm is known to fail without VLLM_WORKER_MULTIPROC_METHOD set to spawn',
     'invalid_engine_flags', 'vllm_version_flags', 'VLLM_WORKER_MULTIPROC_METHOD=spawn'),  # config/vllm.py:VllmConfig.__post_init__ (0.27.1, 0.33.0)
]


@pytest.mark.parametrize("line, symptom, layer, fix_part", SOURCE_REFUSALS + PARALLEL_AND_HYBRID_REFUSALS)
def test_a_startup_refusal_read_from_vllm_s_source_names_its_owner_and_fix(line, symptom, layer, fix_part):
    top = diagnose(line.split("\n")).top  # a pydantic ValidationError's reason is on its second line
    assert top is not None, line
    assert (top.symptom, top.layer) == (symptom, layer)
    assert top.fatal
    assert fix_part in top.fix
    assert "?" not in top.cause  # every template field the cause names was on the line
    hint = any(h in line for h in HINTS + PARALLEL_HINTS)
    assert (top.confidence < CONFIDENT) == hint


@pytest.mark.parametrize("line, symptom, layer, fix_part", SOURCE_REFUSALS + PARALLEL_AND_HYBRID_REFUSALS)
def test_the_same_refusal_in_vllm_s_error_log_format_reads_the_same(line, symptom, layer, fix_part):
    last = line.split("\n")[-1].strip()  # the line that carries the reason
    logged = f"(EngineCore_DP0 pid=4242) ERROR 12-02 01:00:00 [core.py:866] {last}"
    top = diagnose([logged]).top
    assert top is not None and (top.symptom, top.layer) == (symptom, layer)


def test_every_source_signature_cites_the_file_and_the_release_it_was_read_in():
    new = [s for s in SIGNATURES if s.name.startswith("src_")]
    assert len(new) >= 40
    for sig in new:
        assert re.search(r"vllm/[\w/]+\.py \w", sig.source), sig.name
        assert re.search(r"\(0\.2\d\.\d|\(0\.3\d\.\d", sig.source), sig.name
        assert sig.fix and sig.symptom and sig.layer and sig.fatal
