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


@pytest.mark.parametrize("line, symptom, layer, fix_part", SOURCE_REFUSALS)
def test_a_startup_refusal_read_from_vllm_s_source_names_its_owner_and_fix(line, symptom, layer, fix_part):
    top = diagnose([line]).top
    assert top is not None, line
    assert (top.symptom, top.layer) == (symptom, layer)
    assert top.fatal
    assert fix_part in top.fix
    assert "?" not in top.cause  # every template field the cause names was on the line
    hint = any(h in line for h in HINTS)
    assert (top.confidence < CONFIDENT) == hint


@pytest.mark.parametrize("line, symptom, layer, fix_part", SOURCE_REFUSALS)
def test_the_same_refusal_in_vllm_s_error_log_format_reads_the_same(line, symptom, layer, fix_part):
    first = line.split("\n")[0]
    logged = f"(EngineCore_DP0 pid=4242) ERROR 12-02 01:00:00 [core.py:866] {first}"
    top = diagnose([logged]).top
    assert top is not None and (top.symptom, top.layer) == (symptom, layer)


def test_every_source_signature_cites_the_file_and_the_release_it_was_read_in():
    new = [s for s in SIGNATURES if s.name.startswith("src_")]
    assert len(new) >= 40
    for sig in new:
        assert re.search(r"vllm/[\w/]+\.py \w", sig.source), sig.name
        assert re.search(r"\(0\.2\d\.\d|\(0\.3\d\.\d", sig.source), sig.name
        assert sig.fix and sig.symptom and sig.layer and sig.fatal
