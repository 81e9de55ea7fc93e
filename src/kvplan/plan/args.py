"""The engine arguments as a user gives them to `vllm serve`, before vLLM's config classes resolve them.

`EngineArgs` (kvplan's frozen copy of vLLM's EngineArgs fields that the startup arithmetic reads), the parsers
for flags given as text (--max-model-len, --limit-mm-per-prompt, --compilation-config, --cudagraph-capture-sizes,
--speculative-config, -e NAME=VALUE), the environment variables a plan reads (ENV_EFFECTS, _env_rules), which
engine serves the model (serve_as, v1_fallback), and the small dataclasses a plan is made of (KVGroup, Term,
Fix). The first module of kvplan.plan: it imports none of the others.
"""

from __future__ import annotations

import difflib
import functools
import json
import math
import re
from dataclasses import dataclass, fields, replace
from fractions import Fraction
from functools import cached_property
from typing import Collection, Sequence

from kvplan.calibration import GIB
from kvplan.errors import InputError
from kvplan.inputs import json_loads
from kvplan.resolve import MAX_GPU_COUNT, MAX_MEMORY_BYTES, ST_POOLING_NOTE, GPUSpec, ModelSpec, served_as_pooling
from kvplan.versions import (GDN_PREFILL_BACKENDS, MOE_BACKENDS, V0_ONLY_ARCHITECTURES, VersionRules, as_v0_engine,
                             canonical_quant, first_release_where, moe_backend_oracle)


KV_CACHE_DTYPES = ("auto", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc", "fp8_ds_mla")  # vLLM CacheDType (fp8_inc: Intel Gaudi)
MODEL_DTYPES = ("auto", "half", "float16", "bfloat16", "float", "float32")
_DTYPE_ALIASES = {"half": "float16", "float": "float32"}  # vLLM's --dtype short names
MAMBA_DTYPES = ("auto", "float32", "float16", "bfloat16")
DEFAULT_BLOCK_SIZE = 16  # CacheConfig.DEFAULT_BLOCK_SIZE (section 2.4)
AUTO_FIT = -1  # --max-model-len -1 (section 4, "Auto-fit")
# SchedulerConfig._verify_args's refusal that chunked prefill lifts (RefusedByVLLMError.rule)
BATCHED_TOKENS_BELOW_MAX_MODEL_LEN = "max_num_batched_tokens < max_model_len without chunked prefill"
# a multimodal prefix-LM's largest allowed item above max_num_batched_tokens (plan._largest_active_mm_item)
MM_ITEM_ABOVE_BATCHED_TOKENS = "max_tokens_per_mm_item > max_num_batched_tokens with chunked MM input disabled"
# Speculative methods whose drafter is the checkpoint's own MTP layers (vLLM's SpeculativeConfig method names), and
# those that draft without weights or KV.
_MTP_METHODS = ("mtp", "deepseek_mtp", "qwen3_next_mtp", "qwen3_5_mtp", "glm4_moe_mtp", "mimo_mtp", "ernie_mtp",
                "longcat_flash_mtp", "minimax_m2_mtp")
_WEIGHTLESS_METHODS = ("ngram", "suffix")


def _mm_limits_object(value) -> dict | None:
    """--limit-mm-per-prompt as given (JSON text, "image=2,video=0", or a dict) -> its dict, entries unread ({"video":
    {"count": 1, "num_frames": 8}} stays so); None when not given."""
    if value in (None, "", {}):
        return None
    raw = value
    if isinstance(value, str):
        text = value.strip()
        try:
            raw = json_loads(text) if text.startswith("{") else dict(part.split("=", 1) for part in text.split(",") if part.strip())
        except (ValueError, TypeError):
            raise InputError("--limit-mm-per-prompt", f"cannot read {value!r}", '\'{"image": 2, "video": 0}\' or image=2,video=0') from None
    if not isinstance(raw, dict):
        raise InputError("--limit-mm-per-prompt", f"expected items per modality, got {value!r}", '\'{"image": 2, "video": 0}\'')
    return raw


def parse_mm_limits(value) -> dict[str, int] | None:
    """--limit-mm-per-prompt (JSON text, "image=2,video=0", or a dict) -> {modality: items}; None when not given."""
    raw = _mm_limits_object(value)
    if raw is None:
        return None
    out = {}
    for k, v in raw.items():
        count = v.get("count") if isinstance(v, dict) else v  # newer vLLM also takes {"image": {"count": 2, ...}}
        number = human_int(count) if isinstance(count, (int, float, str)) else None  # 2.0 counts; 2.5, inf, NaN do not
        if number is None:
            raise InputError("--limit-mm-per-prompt", f"{k}: {v!r} is not a whole number of items", '\'{"image": 2, "video": 0}\'')
        out[str(k).strip().lower()] = number
        if out[str(k).strip().lower()] < 0:
            raise InputError("--limit-mm-per-prompt", f"{k}: a negative limit", "0 (off) or more items")
    return out


def _json_object(value, flag: str, example: str, not_object: str, object_example: str | None = None) -> dict:
    """A JSON-object flag (JSON text or a dict) as a dict; InputError naming `flag` when it is not JSON or no object."""
    if isinstance(value, str):
        import json

        try:
            value = json_loads(value)
        except json.JSONDecodeError as exc:
            raise InputError(flag, f"not JSON ({exc.msg})", example) from None
    if not isinstance(value, dict):
        raise InputError(flag, not_object, object_example or example)
    return value


_HF_OVERRIDES_EXAMPLE = ('e.g. \'{"rope_scaling": {"rope_type": "yarn", "factor": 4.0, '
                         '"original_max_position_embeddings": 32768}}\'')


def hf_overrides_object(value) -> dict:
    """--hf-overrides (JSON text or a dict) as a dict, {} where it is not given. vLLM parses the flag with json.loads
    into ModelConfig.hf_overrides, a dict of config keys (vllm/engine/arg_utils.py, 0.6.4-0.33)."""
    if value in (None, "", {}):
        return {}
    obj = _json_object(value, "--hf-overrides", _HF_OVERRIDES_EXAMPLE,
                       f"must be a JSON object of config keys, got {value!r}")
    for key in obj:
        if not isinstance(key, str) or not key.strip():
            raise InputError("--hf-overrides", f"{key!r} is not a config key", _HF_OVERRIDES_EXAMPLE)
    return obj


_KV_TRANSFER_EXAMPLE = 'e.g. \'{"kv_connector": "NixlConnector", "kv_role": "kv_both"}\''


def kv_transfer_object(value) -> dict | None:
    """--kv-transfer-config (JSON text or a dict) as a dict, None where it is not given. vLLM reads the flag into a
    KVTransferConfig (KVTransferConfig.from_cli / model_validate_json 0.6.5-0.8.x, pydantic's TypeAdapter of the
    dataclass from 0.9 on: engine/arg_utils.py), a JSON object of its fields."""
    if value is None or value == "":
        return None
    try:
        return _json_object(value, "--kv-transfer-config", _KV_TRANSFER_EXAMPLE,
                            f"must be a JSON object of KVTransferConfig fields, got {value!r}")
    except InputError as e:  # vLLM's argparse refuses it as it reads the flag: pydantic's ValidationError
        raise InputError("--kv-transfer-config", f"{e.message}: vllm serve refuses it as it reads the flag (pydantic "
                         "ValidationError for KVTransferConfig)", _KV_TRANSFER_EXAMPLE) from None


def rope_scaling_object(value) -> dict | None:
    """--rope-scaling (vLLM 0.4.3-0.11.0; JSON text or a dict) as a dict, None where not given."""
    if value in (None, "", {}):
        return None
    return _json_object(value, "--rope-scaling", 'e.g. \'{"rope_type": "yarn", "factor": 4.0, '
                        '"original_max_position_embeddings": 32768}\'', "must be a JSON object (the rope_scaling dict)")


def config_overrides(hf_overrides, rope_scaling=None, rope_theta=None) -> dict:
    """The keys vLLM sets on the model's config: --hf-overrides, then --rope-scaling and --rope-theta on top of it, as
    ModelConfig did while it had them (hf_overrides_kw.update({"rope_scaling": ...}); config.py 0.6.6.post1,
    config/model.py 0.11.0)."""
    out = dict(hf_overrides_object(hf_overrides))
    rope = rope_scaling_object(rope_scaling)
    if rope is not None:
        out["rope_scaling"] = rope
    if rope_theta is not None:
        if isinstance(rope_theta, bool) or not isinstance(rope_theta, (int, float)) or not rope_theta > 0:
            raise InputError("--rope-theta", f"must be a positive number, got {rope_theta!r}", "e.g. 1000000")
        out["rope_theta"] = float(rope_theta)
    return out


CUDAGRAPH_MODES = ("NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE")  # vLLM's CUDAGraphMode


def compilation_object(value) -> dict:
    """--compilation-config (JSON text or a dict) as a dict, {} where it is not given."""
    if value in (None, "", {}):
        return {}
    return _json_object(value, "--compilation-config", 'e.g. \'{"cudagraph_mode": "PIECEWISE"}\'',
                        "kvplan reads a JSON object (not an optimization level)")


def parse_compilation_config(value) -> str | None:
    """--compilation-config (JSON text or a dict) -> its cudagraph_mode (one of CUDAGRAPH_MODES), or None where it sets
    none (vLLM's default for the release)."""
    mode = compilation_object(value).get("cudagraph_mode")
    if mode is None:
        return None
    if not isinstance(mode, str) or mode.strip().upper() not in CUDAGRAPH_MODES:
        raise InputError("--compilation-config", f"unknown cudagraph_mode {mode!r}", f"one of {', '.join(CUDAGRAPH_MODES)}")
    return mode.strip().upper()


_CAPTURE_SIZES_EXAMPLE = "e.g. 1,2,4,8 (vllm serve spells it --cudagraph-capture-sizes 1 2 4 8)"
_CUDA_GRAPH_SIZES_EXAMPLE = ("e.g. 1,2,4,8 (vllm serve spells it --cuda-graph-sizes 1 2 4 8; one value N: the sizes 1, "
                             "2, 4 and the multiples of 8 up to N before vLLM 0.11.1, N alone from 0.11.1)")
# the engine argument (as a record or EngineArgs field names it) -> (its flag, the example its errors give)
CAPTURE_SIZE_ARGS = {"cudagraph_capture_sizes": ("--cudagraph-capture-sizes", _CAPTURE_SIZES_EXAMPLE),
                     "cuda_graph_sizes": ("--cuda-graph-sizes", _CUDA_GRAPH_SIZES_EXAMPLE)}


def parse_capture_sizes(value, flag: str = "--cudagraph-capture-sizes",
                        example: str = _CAPTURE_SIZES_EXAMPLE) -> tuple[int, ...] | None:
    """--cudagraph-capture-sizes (or `flag`, --cuda-graph-sizes) as given: text of whole numbers separated by commas
    and/or spaces ("1,2,4,8", "1 2 4 8", "[1, 2, 4, 8]" as a record or JSON writes it) or a sequence of ints -> a tuple
    of positive ints in the order given; None (or "") where not given. Errors name `flag` and give `example`. vLLM
    asserts the list is not empty (config/vllm.py VllmConfig._set_cudagraph_sizes, 0.11.1-0.33.0)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str):
        parts = [p for p in re.split(r"[,\s]+", value.strip().strip("[]()")) if p]
    elif isinstance(value, (list, tuple)):
        parts = list(value)
    else:
        raise InputError(flag, f"must be a list of batch sizes, got {value!r}", example)
    sizes = []
    for part in parts:
        if isinstance(part, bool) or not isinstance(part, (int, str)) or not str(part).strip().isdigit():
            raise InputError(flag, f"{part!r} is not a whole number", example)
        if int(part) < 1:
            raise InputError(flag, f"a capture size must be at least 1, got {part}", example)
        sizes.append(int(part))
    if not sizes:
        raise InputError(flag, f"no size given (vLLM: '{flag.lstrip('-').replace('-', '_')} should contain at least "
                         "one element when using cuda graph')", example)
    return tuple(sizes)


# vLLM's --performance-mode choices (config/vllm.py PerformanceMode, 0.17.0-0.34.0 wheels), the default first
PERFORMANCE_MODES = ("balanced", "interactivity", "throughput")

# Speculative methods whose drafter is a separate checkpoint named by --speculative-config's "model": an EAGLE head
# (one or more decoder layers fed the target's hidden states), an EAGLE-3 head (fed three of the target's hidden
# states, with its own reduced draft vocabulary), or an independent small model ("draft_model").
DRAFT_METHODS = ("eagle", "eagle3", "draft_model")
# vLLM's --expert-placement-strategy values (config/parallel.py ExpertPlacementStrategy, 0.11.0-0.34.0 wheels)
EXPERT_PLACEMENTS = ("linear", "round_robin")
_SPEC_EXAMPLE = 'e.g. {"method": "eagle3", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}'


def speculative_object(value) -> dict | None:
    """--speculative-config as a dict (JSON text or a dict); None when not given."""
    if value in (None, "", {}):
        return None
    return _json_object(value, "--speculative-config", 'e.g. \'{"method": "mtp", "num_speculative_tokens": 3}\'',
                        "must be a JSON object", 'e.g. {"method": "mtp", "num_speculative_tokens": 3}')


def _speculative_method(value: dict, *, eagle3_by_name: bool = True) -> str:
    """The method as vLLM settles it (vllm/config/speculative.py SpeculativeConfig.__post_init__, read in 0.19.0 and
    0.33.0): none given -> "ngram" for the model "ngram", else "draft_model"; a "draft_model" whose model name holds
    "eagle-" is "eagle", one holding "eagle3" is "eagle3". `eagle3_by_name` False: the rule up to 0.10.1 (rules row
    spec_infers_eagle3_by_name), where a name holding "eagle-" or "eagle3-" is "eagle"."""
    model = value.get("model")
    method = str(value.get("method") or "").strip().lower()
    if not method:
        if str(model or "").strip().lower() in ("ngram", "[ngram]"):
            return "ngram"
        method = "draft_model" if model else ""
    if method == "draft_model" and isinstance(model, str):
        name = model.lower()
        if "eagle-" in name or (not eagle3_by_name and "eagle3-" in name):
            return "eagle"
        if eagle3_by_name and "eagle3" in name:
            return "eagle3"
    return method


# SpeculativeConfig.suffix_decoding_max_tree_depth's default (config/speculative.py, 0.33.0 and 0.34.0 wheels)
SUFFIX_TREE_DEPTH_DEFAULT = 24


def with_suffix_token_default(args, rules) -> tuple[object, str | None]:
    """(args, note): a suffix --speculative-config without num_speculative_tokens takes the release's default (rules
    row suffix_default_spec_tokens), written into the args: suffix_decoding_max_tree_depth up to 0.33
    (SpeculativeConfig._validate_suffix_decoding, 0.33.0 wheel), min(8, that depth) from 0.34
    (SuffixSpeculatorConfig.configure, v1/worker/gpu/spec_decode/suffix/config.py, 0.34.0 wheel)."""
    from dataclasses import replace

    obj = speculative_object(args.speculative_config)
    if not obj or _speculative_method(obj) != "suffix" or obj.get("num_speculative_tokens") is not None:
        return args, None
    depth = obj.get("suffix_decoding_max_tree_depth", SUFFIX_TREE_DEPTH_DEFAULT)
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise InputError("--speculative-config", f"suffix_decoding_max_tree_depth={depth!r} must be >= 1",
                         f"drop it (default {SUFFIX_TREE_DEPTH_DEFAULT}) or give a whole number >= 1")
    n = depth if rules.suffix_default_spec_tokens == "tree_depth" else min(8, depth)
    how = ("suffix_decoding_max_tree_depth" if rules.suffix_default_spec_tokens == "tree_depth"
           else "min(8, suffix_decoding_max_tree_depth)")
    return (replace(args, speculative_config=json.dumps(dict(obj, num_speculative_tokens=n))),
            f"num_speculative_tokens {n}: vLLM {rules.version}'s default for suffix decoding, {how} ({depth}) "
            "(\"Defaulted num_speculative_tokens to ... for suffix decoding\")")


def with_mtp_token_default(args, n_predict: int | None, model_id: str) -> tuple[object, str | None]:
    """(args, note): an MTP --speculative-config without num_speculative_tokens but with "model" takes vLLM's default,
    the drafter's n_predict (config/speculative.py SpeculativeConfig.__post_init__ "Default to max value defined in
    draft model config", 0.10.2 and 0.33.0), written into the args; without "model" either, no draft config is built
    and vLLM refuses (_verify_args "num_speculative_tokens must be provided with speculative model", 0.10.2-0.33.0); where the config declares none vLLM refuses ("A speculative model
    was provided, but `num_speculative_tokens` was not provided", 0.33.0). A count above n_predict that is no multiple
    of it is refused as vLLM refuses it ("must be divisible by n_predict", same places)."""
    from dataclasses import replace

    obj = speculative_object(args.speculative_config)
    if not obj:
        return args, None
    method = _speculative_method(obj)
    if not (method in _MTP_METHODS or method.endswith("_mtp")):
        return args, None
    n = obj.get("num_speculative_tokens")
    if n is None and not obj.get("model"):
        # no drafter named and no count: __post_init__ sets model to the target's only when the count is given, so no
        # draft config (no n_predict) is built and _verify_args refuses (config/__init__.py 0.10.2; config/speculative.py
        # 0.20.0, 0.27.0, 0.33.0)
        raise InputError("--speculative-config", "num_speculative_tokens must be provided with speculative model unless "
                         "the draft model config contains an n_predict parameter (vLLM defaults the count to the MTP "
                         'layers only where "model" names the checkpoint)',
                         'give it: {"method": "' + method + '", "num_speculative_tokens": ' + str(n_predict or 1) + "}"
                         + (f' (or "model": "{model_id}", which takes the {n_predict} MTP layer(s) the config declares)'
                            if n_predict else ""))
    if n is None:
        if n_predict is None:
            raise InputError("--speculative-config", "A speculative model was provided, but `num_speculative_tokens` was "
                             f"not provided ({model_id}'s config declares no MTP layer count for vLLM to default it to)",
                             'give it: {"method": "' + method + '", "num_speculative_tokens": 1}')
        return (replace(args, speculative_config=json.dumps(dict(obj, num_speculative_tokens=n_predict))),
                f"num_speculative_tokens {n_predict}: vLLM's default for MTP, the {n_predict} MTP layer(s) the config "
                "declares (n_predict)")
    if n_predict and isinstance(n, int) and n > n_predict and n % n_predict:
        raise InputError("--speculative-config", f"num_speculative_tokens:{n} must be divisible by n_predict={n_predict}: "
                         "vLLM refuses the start (the MTP layers are reused in turn)",
                         f"give num_speculative_tokens {n_predict * (n // n_predict)} or {n_predict * (n // n_predict + 1)}")
    return args, None


def speculative_method_given(value) -> bool:
    """Whether --speculative-config names its "method" (vLLM's release checks read the key as given, not the method
    its __post_init__ infers: v1_fallback, resolve_args)."""
    obj = speculative_object(value)
    return bool(obj and str(obj.get("method") or "").strip())


def parse_speculative_config(value) -> tuple[str, int] | None:
    """--speculative-config (JSON text or a dict) -> (kind, num_speculative_tokens), or None. kind: "mtp" (the
    checkpoint's own MTP layers), "ngram" (ngram/suffix: no drafter weights or KV), or one of DRAFT_METHODS (a drafter
    checkpoint named by "model": speculative_draft gives it)."""
    value = speculative_object(value)
    if value is None:
        return None
    method = _speculative_method(value)
    kind = ("mtp" if method in _MTP_METHODS or method.endswith("_mtp") else "ngram" if method in _WEIGHTLESS_METHODS
            else method if method in DRAFT_METHODS else None)
    if kind is None:  # before the token count: a misspelt method without one was told to add the count first
        raise InputError("--speculative-config", f"method {method or '(none)'!r} is not modelled by kvplan",
                         "kvplan models mtp (the checkpoint's MTP layers), ngram/suffix drafting, and a drafter checkpoint "
                         f"named by \"model\" with method {', '.join(DRAFT_METHODS)}")
    n = value.get("num_speculative_tokens")
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise InputError("--speculative-config", f"num_speculative_tokens must be a whole number >= 1, got {n!r}"
                         + (" (vLLM takes the model's MTP layer count when it is left out: plan with the model to "
                            "read it)" if kind == "mtp" and n is None else ""),
                         'e.g. {"method": "mtp", "num_speculative_tokens": 3}')
    if kind in DRAFT_METHODS:
        model = value.get("model")
        if not isinstance(model, str) or not model.strip():
            raise InputError("--speculative-config", f'method {method!r} needs "model": the draft model\'s own checkpoint '
                             "(a Hub id, a local folder or its config.json), whose config kvplan reads", _SPEC_EXAMPLE)
    return kind, n


def speculative_draft(value) -> tuple[str, str | None] | None:
    """(the drafter's model reference, its revision) for a --speculative-config whose method loads a drafter
    checkpoint (DRAFT_METHODS); None otherwise."""
    spec = parse_speculative_config(value)
    if spec is None or spec[0] not in DRAFT_METHODS:
        return None
    obj = speculative_object(value)
    revision = obj.get("revision")
    return obj["model"].strip(), str(revision) if revision else None


_POOLING_TASKS = ("embed", "embedding", "classify", "score", "reward", "encode")
LORA_RANKS = (1, 8, 16, 32, 64, 128, 256, 320, 512)  # vllm/config/lora.py MaxLoRARanks (0.33)


def st_module_as_read(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> tuple[ModelSpec, str | None]:
    """The model as vLLM `rules.version` sees its sentence-transformers Pooling module, and what that changed. A
    release matches the module's modules.json type exactly against its own list (rules row st_pooling_module_types:
    transformers_utils/config.py get_pooling_config). Where the type is not listed, get_pooling_config finds no
    Pooling module: --runner auto takes the architecture's runner (config/model.py _get_default_runner_type, which
    asks get_pooling_config first), so a *ForCausalLM checkpoint is served as a generative model, and a pooling model
    takes its class default pooling type, the module's mode unread. A module of unknown type (a spec built without
    a modules.json read) is taken as read. Where modules.json lists several Pooling modules (ModelSpec.st_pooling_modules),
    get_pooling_config reads the first of a type the release matches, `next(...)` over the matching ones (0.6.4-0.34.0
    wheels): a newer-type module listed before an old-type one leaves releases up to 0.29 reading the later one."""
    kind, seen = model.st_pooling_type, rules.st_pooling_module_types
    if model.st_pooling and kind not in seen and model.st_pooling_modules:
        read = next(((t, modes) for t, modes in model.st_pooling_modules if t in seen), None)
        if read is not None:
            # (why that module's config gives no modes is not kept: st_pooling_unread is the first module's)
            return replace(model, st_pooling_type=read[0], st_pooling_modes=read[1], st_pooling_unread=None), None
    if not model.st_pooling or kind is None or kind in seen:
        return model, None
    pooling = served_as_pooling(model.architectures) or model.is_encoder_only
    unread = replace(model, st_pooling=False, st_pooling_modes=None, st_pooling_unread=None, is_pooling=pooling,
                     notes=tuple(n for n in model.notes if n != ST_POOLING_NOTE))
    since = first_release_where("st_pooling_module_types", lambda types: kind in types)
    why = (f"vLLM {rules.version} does not read this checkpoint's sentence-transformers Pooling module: its modules.json "
           f"type {kind!r} is not one get_pooling_config matches ({', '.join(repr(t) for t in seen)}; "
           f"transformers_utils/config.py; {kind!r} is read from vLLM {since})")
    if args.runner_type == "generate":
        return unread, None
    if args.runner_type is None and not pooling:
        arch = model.architectures[0] if model.architectures else "architecture"
        return unread, (f"{why}, so --runner auto serves the {arch} by its architecture, as a generative model (lm_head "
                        f"and sampler counted): give --runner pooling to serve it as a pooling model (its pooling type "
                        f"then the class default), --runner generate to say so, or vLLM {since} or newer")
    return unread, f"{why}, so its pooling mode is not read: the pooling type is the class default"


def serve_as(model: ModelSpec, args: EngineArgs) -> tuple[ModelSpec, str | None]:
    """The model as --runner serves it: a pooling model loads no lm_head and runs no sampler in the profile run
    (gpu_model_runner profile_run: a dummy pooler instead of a dummy sampler). Returns it and what was assumed."""
    kind = args.runner_type
    if kind is None:
        return model, ("served as a pooling model (vLLM's --runner auto): no lm_head, no sampler in the profile run"
                       if model.is_pooling else None)
    if (kind == "pooling") == model.is_pooling:
        return model, None
    if kind == "pooling":
        return replace(model, is_pooling=True), "--runner pooling: no lm_head loaded, no sampler in the profile run"
    return replace(model, is_pooling=False), "--runner generate: served as a generative model (lm_head and sampler counted)"


def _env_rules(args: EngineArgs, rules: VersionRules) -> tuple[VersionRules, list[str]]:
    """The release's rules as the server's environment changes them (ENV_EFFECTS), and a note for each variable."""
    notes = []
    for name, value in args.env:
        if name in ALLOC_CONF_ENV:
            read = rules.torch_alloc_conf_env
            shadowed = name in read and name != read[0] and args.env_value(read[0]) is not None
            notes.append(f"environment {name}={value}: " + (
                f"not read by the PyTorch vLLM {rules.version} pins (before torch 2.9, pinned from vLLM 0.11.1, "
                f"PyTorch reads {' / '.join(read)} only); kvplan plans as without it" if name not in read else
                f"not read by PyTorch, which takes {read[0]} first" if shadowed else
                "PyTorch's allocator config; kvplan reads its expandable_segments (the allocator rounding of the "
                "weights), not its other options"))
            continue
        if name not in ENV_EFFECTS:
            notes.append(f"environment {name}={value}: not modelled (kvplan assumes it does not change memory)")
            continue
        # (0.11.0 still reads it, and its server stops on 0: versions.SERVE_ENV_REFUSED; rules rows use_v1_env_read,
        # v0_engine_shipped)
        inert = name == "VLLM_USE_V1" and (not rules.use_v1_env_read or not rules.is_v1
                                           or (not rules.v0_engine_shipped and value.strip() != "0"))
        unread = name == "VLLM_MXFP4_USE_MARLIN" and not rules.mxfp4_marlin_env  # rules row mxfp4_marlin_env
        if name == MRV2_ENV:
            if rules.mrv2_env == "unread":  # rules row mrv2_env: envs.py has it from 0.12
                notes.append(f"environment {name}={value}: not read by vLLM {rules.version} (from 0.12): model runner v1")
            elif rules.mrv2_env == "removed":  # 0.34+: Platform.validate_environ (platforms/interface.py); a value
                # other than 1 was refused before planning (versions.check_serve_env, SERVE_ENV_REMOVED)
                notes.append(f"environment {name}=1: vLLM {rules.version} logs '{name}=1 is redundant and can be unset: "
                             "Model Runner V1 has been removed.'")
            continue  # otherwise _plan says which runner it selects, and why (model_runner_choice)
        # where the variable is gone but the MXFP4 oracle reads --moe-backend (0.24 on), say which flag stands for it
        instead = (" (--moe-backend marlin puts the MXFP4 experts on Marlin there)"
                   if unread and moe_backend_oracle("mxfp4", rules.release) else "")
        notes.append(f"environment {name}={value}" + (f": no effect in vLLM {rules.version}, which has one engine" if inert
                                                      else f": not read by vLLM {rules.version}{instead}" if unread else ""))
    for name in INT_READ_ENV:
        value = args.env_value(name)
        if value is None or (name == "VLLM_MXFP4_USE_MARLIN" and not rules.mxfp4_marlin_env):
            continue
        try:
            int(value)
        except ValueError:
            raise InputError(f"--env {name}", f"{value!r} is not a value vLLM reads (it takes int(value)): the server "
                             "stops with a ValueError", f"{name}=1 (on) or {name}=0 (off)") from None
    mrv2 = args.env_value(MRV2_ENV)
    if mrv2 is not None and rules.mrv2_env not in ("unread", "removed"):
        # vllm/envs.py reads it as bool(int(value)) (0.12-0.21) or maybe_convert_bool (0.22+), the same int()
        try:
            int(mrv2.strip())
        except ValueError:
            raise InputError(f"--env {MRV2_ENV}", f"{mrv2!r} is not a value vLLM {rules.version} reads (it takes "
                             "int(value)): the server stops with a ValueError",
                             f"{MRV2_ENV}=1 (model runner v2) or =0 (v1), or unset (the release's default)") from None
    use_v1 = args.env_value("VLLM_USE_V1")
    if use_v1 is not None and rules.use_v1_env_read:
        # rules row use_v1_env_read (bool(int(value))): a value int() refuses stops the server with a ValueError
        try:
            int(use_v1.strip())
        except ValueError:
            raise InputError("--env VLLM_USE_V1", f"{use_v1!r} is not a value vLLM {rules.version} reads (it takes "
                             "int(value)): the server stops with a ValueError", "VLLM_USE_V1=1 (the V1 engine) or =0 (V0)") from None
    if use_v1 == "0" and rules.is_v1 and rules.v0_engine_shipped:
        rules = replace(as_v0_engine(rules, "VLLM_USE_V1=0"), notes=rules.notes + (
            f"VLLM_USE_V1=0: vLLM {rules.version} runs its V0 engine",))
    if args.env_value("VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS") == "0" and rules.cudagraph_subtracted:
        rules = replace(rules, cudagraph_subtracted=False)
    sampler = args.env_value("VLLM_USE_FLASHINFER_SAMPLER")
    if sampler is not None:
        # vllm/envs.py reads it as bool(int(value)); set either way it decides the V1 sampler's kernel (rules row
        # flashinfer_sampler), where V0's sampler keeps the one term of its era
        on = _FLASHINFER_SAMPLER_VALUES.get(sampler.strip().lower())
        if on is None:
            raise InputError("--env VLLM_USE_FLASHINFER_SAMPLER", f"{sampler!r} is not a value vLLM reads (it takes int(value))",
                             "VLLM_USE_FLASHINFER_SAMPLER=1 (FlashInfer's top-k/top-p kernel) or =0 (PyTorch-native)")
        if rules.is_v1:
            rules = replace(rules, flashinfer_sampler="on" if on else "off")
    if args.env_on("VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE") and rules.chunked_local_spec == "manager_off":
        rules = replace(rules, chunked_local_spec="kept")
    return rules, notes


# Variables vLLM reads as bool(int(value)) (vllm/envs.py: disable_compile_cache() for VLLM_DISABLE_COMPILE_CACHE,
# maybe_convert_bool for VLLM_MXFP4_USE_MARLIN, the VLLM_USE_DEEP_GEMM / VLLM_MOE_USE_DEEP_GEMM lambdas; 0.10.1.1,
# 0.11.1, 0.24.0 and 0.27.1 wheels): '2' is on, and a value int() refuses ('yes', 'true') raises a ValueError where
# vLLM reads it (in 0.24.0 and 0.27.1 envs.compile_factors reads every variable it knows for the compile cache key)
INT_READ_ENV = ("VLLM_DISABLE_COMPILE_CACHE", "VLLM_MXFP4_USE_MARLIN", "VLLM_USE_DEEP_GEMM", "VLLM_MOE_USE_DEEP_GEMM")


# VLLM_USE_FLASHINFER_SAMPLER as vLLM reads it (bool(int(value))): on or off
_FLASHINFER_SAMPLER_VALUES = {"1": True, "0": False}


def v1_fallback(model: ModelSpec, gpu: GPUSpec, args: EngineArgs, rules: VersionRules) -> str | None:
    """Why a 0.8-0.10 release (V1 by default) runs this deployment on its V0 engine, in vLLM's words for the
    feature; None where it runs V1 (see the v0_* rules rows and V0_ONLY_ARCHITECTURES)."""
    if not rules.is_v1 or not rules.v0_engine_shipped:  # rules row v0_engine_shipped
        return None
    cc = gpu.cc
    if rules.v0_below_cc_major and gpu.vendor == "NVIDIA" and cc and cc[0] < rules.v0_below_cc_major:
        return "Compute Capability < 8.0"
    kv = (args.kv_cache_dtype or "auto").lower()
    if kv != "auto" and rules.v1_kv_dtype != "any":
        mode, fp8_on_hopper = rules.v1_kv_dtype, kv.startswith("fp8") and bool(cc) and cc[0] == 9
        kept = (mode != "auto_only" and fp8_on_hopper) or ("10.0" in mode and cc == (10, 0)) or (
            mode.endswith("_mla") and model.uses_mla)
        if not kept:
            return "--kv-cache-dtype"
    kind = args.runner_type
    if rules.v0_for_pooling and (kind == "pooling" or (kind is None and model.is_pooling)):
        return "--task embed"
    spec = args.speculative
    # 0.9.x's oracle (engine/arg_utils.py _is_v1_supported_oracle, 0.9.0 and 0.9.2 wheels) reads "method" as given:
    # none given keeps V1 only for the model "ngram"; an inferred eagle/eagle3/draft_model goes to V0
    inferred = spec and spec[0] != "ngram" and not speculative_method_given(args.speculative_config)
    if spec and (rules.v0_for_speculative == "all" or (rules.v0_for_speculative == "not_ngram_mtp" and (
            inferred or spec[0] not in ("ngram", "mtp", "eagle", "eagle3")))):
        return "Speculative Decoding"
    if rules.v0_for_lora and args.enable_lora:
        return "LORA"
    if rules.v0_for_cpu_offload and args.cpu_offload_gb:
        return "--cpu-offload-gb"
    if rules.v0_for_kv_transfer and kv_transfer_object(args.kv_transfer_config) is not None:
        return "--kv-transfer-config"
    if rules.v0_for_pipeline_parallel and (args.pipeline_parallel_size or 1) > 1:
        return "PP"
    if rules.v0_for_float32 and _DTYPE_ALIASES.get(args.dtype, args.dtype) == "float32":
        return "--dtype torch.float32"
    quant = canonical_quant(args.quantization or (model.quant.method if model.quant else ""))
    if quant in rules.v0_for_quantization:
        return f"--quantization {quant}"
    if rules.v0_for_recurrent and any(l.kind == "recurrent" for l in model.layers):
        return str(list(model.architectures) or [model.model_type])
    for arch, first, last in V0_ONLY_ARCHITECTURES:
        if arch in model.architectures and first <= rules.release <= last:
            return str(list(model.architectures))
    return None


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


# --------------------------------------------------------------------------- inputs


# vLLM environment variables that change what a startup allocates, and what kvplan does with each (the rest are
# carried into serve.sh and noted as not modelled)
# PyTorch's allocator config, PYTORCH_ALLOC_CONF first (EngineArgs.expandable_segments)
ALLOC_CONF_ENV = ("PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF")

ENV_EFFECTS = {
    "VLLM_USE_V1": "0 runs a 0.8-0.10 release on its V0 engine",
    "VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1 allows a max_model_len beyond the model's limit",
    "VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE": "1 keeps chunked local attention as windows in 0.10.1-0.13",
    "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS": "0 leaves CUDA-graph memory out of the budget where it is subtracted",
    "VLLM_MXFP4_USE_MARLIN": "1 selects Marlin (its padding and workspace) for MXFP4 experts: on any GPU in 0.10.1 and "
                             "0.19-0.23, on Hopper in 0.11.1-0.18; not read in 0.10.2-0.11.0 nor from 0.24 "
                             "(--moe-backend marlin does the same from 0.19)",
    "VLLM_USE_DEEP_GEMM": "0 / 1 removes / forces DeepGEMM for block-FP8 MoE experts (their persistent workspace, 0.17+)",
    "VLLM_MOE_USE_DEEP_GEMM": "0 / 1 removes / forces DeepGEMM for block-FP8 MoE experts (their persistent workspace, 0.17+)",
    "VLLM_PP_LAYER_PARTITION": "the decoder layers of each pipeline stage (its weights and KV layers), e.g. 16,32",
    "VLLM_USE_FLASHINFER_SAMPLER": "1 / 0 selects FlashInfer's / the PyTorch-native top-k/top-p sampler (its profile peak, V1 0.8-0.17; on by default from 0.21, whose profile runs both; =1 is refused outside compute capability 7.5/8.0-12.1)",
    "VLLM_USE_V2_MODEL_RUNNER": "1 / 0 forces model runner v2 / v1 from 0.22 (=1 opts in to v2 in 0.12-0.21): its sampler "
                                "state and profile, CUDA-graph estimate and capture, in-flight window (model_runner_choice); "
                                "from 0.34, which has no model runner v1, any value but 1 is refused",
    "VLLM_DISABLE_COMPILE_CACHE": "1 loads no compiled graph from the cache: every start compiles inside the memory profile, "
                                  "as a first start does (the cold-start warning then speaks of every start)",
    "VLLM_FLASHINFER_WORKSPACE_BUFFER_SIZE": "bytes of FlashInfer's TRTLLM-API attention workspace (394 MiB unset), which "
                                             "model runner v2's CUDA-graph estimate holds from 0.29 where the default "
                                             "backend runs TRTLLM kernels (plan.terms.mrv2_trtllm_workspace_bytes)",
}


# `vllm serve --max-model-len` reads "human-readable" integers: one letter, a lowercase suffix decimal (32k = 32,000,
# 8m = 8,000,000), an uppercase one binary (32K = 32,768); decimals only with decimal suffixes; anything else ('32Ki',
# '32 k') goes to int() and is refused (vllm/engine/arg_utils.py, human_readable_int: fullmatch
# r"(\d+(?:\.\d+)?)([kKmMgGtT])").
_HUMAN_INT = re.compile(r"(\d+(?:\.\d+)?)([kmgtKMGT])?")
_DECIMAL = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_BINARY = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def is_auto_length(value) -> bool:
    """Whether a max_model_len as given asks for 'auto' (the largest length at which N requests fit)."""
    return isinstance(value, str) and value.strip().lower() == "auto"


def parse_max_model_len(value) -> int | None:
    """--max-model-len as vllm serve reads it: None for auto, -1 for auto-fit, else tokens."""
    if value is None or isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if is_auto_length(value):
        return None
    text = str(value).strip().replace(",", "").replace("_", "")
    if text == "-1":
        return -1
    if len(text) > 24:  # no context length has more digits; refused before any arithmetic overflows
        raise InputError("--max-model-len", f"{text[:12]}... ({len(text)} characters) is not a context length",
                         "e.g. 4096, 32k (= 32,000), 32K (= 32,768), -1 (auto-fit), or auto with --concurrency")
    number = human_int(text)
    if number is None:
        raise InputError("--max-model-len", f"not a length vllm serve reads: {value!r}",
                         "e.g. 4096, 32k (= 32,000), 32K (= 32,768), -1 (auto-fit), or auto with --concurrency")
    return number


def human_int(value) -> int | None:
    """A whole number as vllm serve's integer flags read it (8k = 8,000, 8K = 8,192, not 8Ki; 4,096 and 4_096 too),
    None when it is not one. vLLM >= 0.11 parses every int engine argument (--max-num-batched-tokens,
    --max-num-seqs, ...) this way (vllm/engine/arg_utils.py: int fields take human_readable_int as argparse type)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None  # inf and NaN are not integers
    m = _HUMAN_INT.fullmatch(str(value).strip().replace(",", "").replace("_", ""))
    number, suffix = (m.group(1), m.group(2)) if m else (None, None)
    if number is not None and (suffix in _DECIMAL or (suffix is None and "." not in number)):
        return int(Fraction(number) * _DECIMAL.get(suffix, 1))  # exact: no float overflow or rounding
    if number is not None and suffix in _BINARY and "." not in number:
        return int(number) * _BINARY[suffix]
    return None


ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def check_env_name(name: str, field: str = "--env") -> str:
    """`name` if it can be an environment variable (a shell and a compose file can export it), else InputError."""
    if not ENV_NAME.fullmatch(name):
        raise InputError(field, f"{name!r} is not an environment variable name",
                         "use letters, digits and _ only, not starting with a digit (e.g. VLLM_USE_V1)")
    return name


def parse_env(value) -> tuple[tuple[str, str], ...]:
    """--env KEY=VALUE (repeatable), a dict, or pairs -> sorted (key, value) pairs; InputError naming a bad entry."""
    if isinstance(value, (list, tuple, dict, str)) and not value or value is None:
        return ()
    if not isinstance(value, (list, tuple, dict, str)):  # env=5 / env=True: "internal error: TypeError: ... iterable"
        raise InputError("--env", f"must be KEY=VALUE text, a dict or (key, value) pairs, got {value!r} "
                         f"({type(value).__name__})", 'e.g. --env VLLM_USE_V1=0 (from Python, env={"VLLM_USE_V1": "0"})')
    if isinstance(value, str):  # "A=1 B=2" or "A=1,B=2"; a comma not followed by KEY= is the value's (16,32)
        value = [v for v in re.split(r"\s+|,(?=\s*[A-Za-z_][A-Za-z0-9_]*=)", value) if v and v.strip()]
    items = value.items() if isinstance(value, dict) else value
    out = {}
    for item in items:
        if isinstance(item, str):
            key, sep, val = item.partition("=")
            if not sep or not key.strip():
                raise InputError("--env", f"{item!r} is not KEY=VALUE", "e.g. --env VLLM_USE_V1=0")
        elif isinstance(item, (list, tuple)) and len(item) == 2:
            key, val = item
        else:  # env=[5]: "cannot unpack non-iterable int object"
            raise InputError("--env", f"{item!r} is not KEY=VALUE or a (key, value) pair", "e.g. --env VLLM_USE_V1=0")
        out[check_env_name(str(key).strip())] = str(val).strip()
    return tuple(sorted(out.items()))


def env_flag_on(env: Sequence[tuple[str, str]], name: str) -> bool:
    """Whether the server's environment `env` turns switch `name` on: bool(int(value)) for the variables vLLM reads so
    (INT_READ_ENV; a value int() refuses is refused in _env_rules), else 1 / true / yes / on."""
    value = str(dict(env).get(name) or "").strip()
    if name in INT_READ_ENV:
        try:
            return bool(int(value))
        except ValueError:
            return False
    return value.lower() in ("1", "true", "yes", "on")


# the counts of GPUs (bounded by resolve.MAX_GPU_COUNT)
_GPU_COUNTS = frozenset({"tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size",
                         "prefill_context_parallel_size", "num_gpus"})
# a value each count flag takes, for its refusal's hint ("e.g. 1" for --block-size named a size no backend takes)
COUNT_EXAMPLES = {
    "tensor_parallel_size": "e.g. 1, 2, 4 or 8", "pipeline_parallel_size": "e.g. 1 or 2", "data_parallel_size": "e.g. 1 or 2",
    "decode_context_parallel_size": "e.g. 2, 4 or 8: a divisor of --tensor-parallel-size",
    "prefill_context_parallel_size": "e.g. 2 or 4 (each PCP rank a whole TP group of its own GPUs)",
    "dcp_kv_cache_interleave_size": "e.g. 1 (token by token, vLLM's default) or the block size: a divisor of it",
    "cp_kv_cache_interleave_size": "e.g. 1 (token by token, vLLM's default) or the block size: a divisor of it",
    "max_num_seqs": "e.g. 256", "max_num_batched_tokens": "e.g. 8192", "block_size": "e.g. 16 (vLLM's default up to 0.33; 64 from 0.34)",
    "num_gpus": "e.g. 1", "max_model_len": "e.g. 4096",
}


def unknown_keyword(name: str, where: str, also=()) -> InputError:
    """The InputError for a keyword `where` (kvplan.fit, kvplan.EngineArgs, ...) does not take: the nearest engine flag
    (or name in `also`, `where`'s own keywords) as "did you mean ...?", else the flags it takes."""
    near = difflib.get_close_matches(name, sorted(ENGINE_FLAGS | set(also)), n=1)
    hint = f"did you mean {near[0]}?" if near else f"the flags are vllm serve's in snake_case: {', '.join(sorted(ENGINE_FLAGS))}"
    return InputError(name, f"not an argument {where} takes", hint)


def _keywords_named(cls):
    """`cls`'s dataclass __init__, with a keyword it has no field for answered as unknown_keyword answers fit's (the
    bare TypeError "unexpected keyword argument" named no field to give instead). Checked only once the generated
    __init__ has refused, so a plan's many EngineArgs(...) pay nothing."""
    init = cls.__init__

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        try:
            init(self, *args, **kwargs)
        except TypeError:
            unknown = sorted(set(kwargs) - set(cls.__dataclass_fields__))
            if unknown:
                raise unknown_keyword(unknown[0], f"kvplan.{cls.__name__}") from None
            raise

    cls.__init__ = __init__
    return cls


def _check_choice(flag: str, value, choices: Collection[str], what: str, why: str = "", fix_tail: str = "") -> None:
    """InputError for `flag`'s `value` (None: not given) outside argparse's `choices`: "unknown {what} {value!r}"
    (and `why`), with the choices as the fix (and `fix_tail` after them)."""
    if value is not None and value not in choices:
        raise InputError(flag, f"unknown {what} {value!r}{why}", f"one of {', '.join(choices)}{fix_tail}")


@functools.lru_cache(maxsize=64)
def _eplb_config_json(text: str):
    """--eplb-config's JSON text (stripped) as json.loads reads it, {} for none: kept per text, since a plan reads it
    from the flags as given and from each EngineArgs resolved from them (EngineArgs.eplb_settings copies the object
    it returns). InputError where the text is not JSON, on every call (an error is not kept)."""
    try:
        return json_loads(text) if text else {}
    except ValueError:
        raise InputError("--eplb-config", f"cannot read {text[:60]!r} as JSON",
                         "give a JSON object, e.g. '{\"num_redundant_experts\": 32}'") from None


_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]+")


def whole_number(v) -> int | None:
    """A value vLLM reads as an int (an int, or the ASCII digits of one with an optional sign, as pydantic's int field
    and envs.py's int() take them), else None."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    text = v.strip() if isinstance(v, str) else ""
    return int(text) if _WHOLE_NUMBER.fullmatch(text) else None

@_keywords_named
@dataclass(frozen=True)
class EngineArgs:
    """The `vllm serve` flags kvplan models. None means "that vLLM version's default"."""

    max_model_len: int | None = None
    gpu_memory_utilization: float | None = None
    tensor_parallel_size: int | None = None
    pipeline_parallel_size: int | None = None
    # vLLM's --decode-context-parallel-size / -dcp (0.10.2+; None or 1: off): the TP group's ranks split into DCP groups
    # that each shard a sequence's KV along its tokens, 1/dcp per rank (plan.kv, plan.planner._capacity)
    decode_context_parallel_size: int | None = None
    # vLLM's --prefill-context-parallel-size / -pcp (0.12+; None or 1: off): PCP groups of whole TP groups, world size
    # TP x PP x PCP per engine (config/parallel.py); each PCP rank keeps the whole KV cache (plan.kv.pcp_checks)
    prefill_context_parallel_size: int | None = None
    # vLLM's --dcp-kv-cache-interleave-size (0.11.1+) and --cp-kv-cache-interleave-size (0.12+), None: vLLM's 1: how many
    # consecutive tokens each DCP rank keeps in turn. Where tokens go, not how many: the KV-cache manager's blocks per
    # request read neither, only the block-size divisibility check and the MTP check (plan.kv.interleave_checks)
    dcp_kv_cache_interleave_size: int | None = None
    cp_kv_cache_interleave_size: int | None = None
    kv_cache_dtype: str | None = None
    dtype: str | None = None
    quantization: str | None = None
    enforce_eager: bool = False
    block_size: int | None = None
    max_num_seqs: int | None = None
    max_num_batched_tokens: int | None = None
    mamba_ssm_cache_dtype: str | None = None
    mamba_cache_dtype: str | None = None
    enable_prefix_caching: bool | None = None
    enable_chunked_prefill: bool | None = None  # None: the release's default (V1 always; V0 for contexts > 32K)
    # vLLM's --long-prefill-token-threshold (0.7.3+; None or 0: no cap) and --[no-]long-prefill-token-threshold-adaptive
    # (0.31+; None: not given, off as vLLM's default): the scheduler's per-request prefill chunk cap and its fair-share
    # floor. They move no memory: the simulator applies them as each release does (simulate.SchedulerRules), the
    # launch files write them, and from 0.27 a threshold above max_model_len is vLLM's refusal (plan.defaults)
    long_prefill_token_threshold: int | None = None
    long_prefill_token_threshold_adaptive: bool | None = None
    vllm_version: str | None = None
    num_gpus: int | None = None
    data_parallel_size: int | None = None      # engines, each with its own KV pool (vllm serve -dp)
    enable_expert_parallel: bool = False       # experts split over TP x DP ranks instead of sliced by TP
    # vLLM's --expert-placement-strategy (>= 0.11): "linear" (None: the default) or "round_robin", how whole experts are
    # spread over the EP ranks
    expert_placement_strategy: str | None = None
    # vLLM's --enable-eplb (>= 0.9.2): expert-parallel load balancing, with redundant copies of experts on the EP ranks
    enable_eplb: bool = False
    # the redundant experts: vLLM's --num-redundant-experts (0.9.2-0.11.2) or --eplb-config's num_redundant_experts
    # (>= 0.10.2); None: the release's default (0, or from 0.34 the fewest that divide the experts evenly)
    num_redundant_experts: int | None = None
    # vLLM's --eplb-config JSON (>= 0.10.2): kvplan reads num_redundant_experts, window_size (the load window's steps),
    # use_async and communicator; the rest moves no memory
    eplb_config: str | dict | None = None
    # vLLM's --all2all-backend (>= 0.11.1; VLLM_ALL2ALL_BACKEND before): written to the launch files as given; kvplan
    # sizes no backend's communication buffers
    all2all_backend: str | None = None
    overhead_gb: float | None = None
    kv_cache_memory_bytes: int | None = None  # vLLM's --kv-cache-memory-bytes (>= 0.10.2): the pool, exactly
    # vLLM's --num-gpu-blocks-override (CacheConfig.num_gpu_blocks_override): the pool's block count, replacing the
    # profiled one (plan.planner._override_blocks; rules row override_fit_check)
    num_gpu_blocks_override: int | None = None
    # vLLM's --mamba-block-size (CacheConfig.mamba_block_size, >= 0.11.1): the tokens a Mamba / GDN state page stands for
    # under prefix caching's 'align' mode (plan.kv; rules rows mamba_block_size_*)
    mamba_block_size: int | None = None
    # vLLM's --calculate-kv-scales (CacheConfig.calculate_kv_scales, 0.7.0-0.27.x): fp8 KV scales from the first
    # forward; no startup figure moves (plan.planner notes it)
    calculate_kv_scales: bool = False
    # vLLM's --enable-extensible-kv-cache / --no-enable-extensible-kv-cache (>= 0.34): None, the release's default (on
    # on CUDA and ROCm where nothing rules it out: plan.extensible.extensible_kv_cache)
    enable_extensible_kv_cache: bool | None = None
    # vLLM's --gdn-prefill-backend (>= 0.18): the prefill kernel of Qwen's Gated DeltaNet layers, one of
    # versions.GDN_PREFILL_BACKENDS; None, vLLM's own choice (plan.kv.gdn_prefill decides what runs)
    gdn_prefill_backend: str | None = None
    # vLLM's --moe-backend (>= 0.17, KernelConfig.moe_backend): the kernel the MoE experts run on, as argparse reads it
    # (lower-cased, '-' as '_'); None or "auto", vLLM's own choice (plan.serve_flags.moe_backend: what it selects, refuses, sizes)
    moe_backend: str | None = None
    allow_long_max_model_len: bool = False     # VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (or a rope-scaling override)
    speculative_config: str | dict | None = None  # vLLM's --speculative-config JSON: {"method": ..., "num_speculative_tokens": N}
    compilation_config: str | dict | None = None  # vLLM's --compilation-config JSON; kvplan reads its cudagraph_mode
    # and (0.11.1+) its cudagraph_capture_sizes / max_cudagraph_capture_size (_capture_settings)
    # vLLM's --cudagraph-capture-sizes (0.11.1+): the batch sizes CUDA graphs are captured at, as given ("1,2,4,8",
    # "1 2 4 8" or a sequence of ints); None: the release derives them (cudagraph_capture_sizes)
    cudagraph_capture_sizes: str | tuple[int, ...] | list[int] | None = None
    max_cudagraph_capture_size: int | None = None  # vLLM's --max-cudagraph-capture-size (0.11.1+): the default grid's top
    # vLLM's --performance-mode (0.17+): balanced (vLLM's default; None here), interactivity (the default capture grid
    # takes every batch size 1-32 at its head: plan.cudagraphs) or throughput (the default max_num_seqs and
    # max_num_batched_tokens doubled: plan.defaults)
    performance_mode: str | None = None
    # vLLM's --cuda-graph-sizes (0.9.0-0.12.x, as --cudagraph-capture-sizes takes it): one value N, the grid up to N
    # before 0.11.1; several, the sizes (_cuda_graph_sizes)
    cuda_graph_sizes: str | tuple[int, ...] | list[int] | None = None
    runner: str | None = None  # vLLM's --runner: auto (None), generate or pooling; --task embed/classify/score/reward map to pooling
    # vLLM's --pooler-config JSON (>= 0.11) and the older --override-pooler-config (0.6.4-0.11.x, deprecated from 0.11,
    # gone from 0.12): a pooling model's PoolerConfig, whose pooling type (pooling_type; seq_pooling_type /
    # tok_pooling_type from 0.14) decides V1's chunked-prefill and prefix-caching default (plan.defaults.pooler_given)
    pooler_config: str | dict | None = None
    override_pooler_config: str | dict | None = None
    cpu_offload_gb: float | None = None  # vLLM's --cpu-offload-gb: GiB of weights per GPU kept in CPU memory (UVA)
    enable_lora: bool = False            # --enable-lora: max_loras slots of max_lora_rank on every supported layer
    max_loras: int | None = None         # vLLM default 1
    max_lora_rank: int | None = None     # vLLM default 16
    fully_sharded_loras: bool = False
    # --max-cpu-loras: adapters cached in CPU memory (vLLM default max_loras; no GPU memory, but LoRAConfig refuses
    # fewer than max_loras); --lora-target-modules (vLLM >= 0.19): the module names that take slots ("qkv_proj,o_proj"
    # or a list; vllm serve spells it --lora-target-modules qkv_proj o_proj)
    max_cpu_loras: int | None = None
    lora_target_modules: str | tuple[str, ...] | list[str] | None = None
    limit_mm_per_prompt: str | dict | None = None  # vLLM's --limit-mm-per-prompt: items per modality ('{"image": 2}')
    language_model_only: bool = False  # vLLM's --language-model-only (>= 0.17): every modality's limit is 0
    skip_mm_profiling: bool = False  # vLLM's --skip-mm-profiling (>= 0.10.1): the profile run encodes no items
    # vLLM's --enable-sleep-mode (>= 0.7.0): weights and KV cache in the CuMem allocator's pools (plan.serve_flags)
    enable_sleep_mode: bool = False
    # vLLM's --disable-custom-all-reduce (every release): TP all-reduces through NCCL, not vLLM's custom kernel (its
    # buffers: plan.terms custom_allreduce_says)
    disable_custom_all_reduce: bool = False
    # vLLM's --disable-hybrid-kv-cache-manager (>= 0.9.1): sliding-window and chunked-local layers held as full
    # attention in one group (plan.kv._windows_kept; refused where other kinds stay: rules row hybrid_manager_off_refusal)
    # (None: not given; False: --no-disable-hybrid-kv-cache-manager, which from 0.13 keeps the manager on for a KV
    # connector: rules row hybrid_flag_explicit_on)
    disable_hybrid_kv_cache_manager: bool | None = None
    # vLLM's --kv-transfer-config (>= 0.6.5; JSON text or a dict; None: not given): the KV connector, which turns the
    # hybrid KV-cache manager off where the release does (plan.kv_transfer, rules row kv_transfer_hybrid)
    kv_transfer_config: str | dict | None = None
    # vLLM's --disable-sliding-window (>= 0.4.3): max_model_len capped at the window, window layers full attention
    # (plan.planner.sliding_window_disabled)
    disable_sliding_window: bool = False
    # vLLM's --load-format: the loader that reads the weights (plan.serve_flags; None: not given, auto)
    load_format: str | None = None
    # vLLM's --[no-]async-scheduling (>= 0.10.0; None: not given, the release's default: off up to 0.13, on from 0.14
    # unless the combination does not run it). The planner resolves it (plan.serve_flags) and keeps the resolved
    # value in async_scheduling_resolved (None until planned): the window groups' in-flight tokens
    # (plan.kv.window_extra_tokens) and the simulator's one-step lag follow it; the launch files write the flag as given
    async_scheduling: bool | None = None
    async_scheduling_resolved: bool | None = None
    # vLLM's --allow-deprecated-quantization (>= 0.14): serve a method its release deprecates (fbgemm_fp8, fp_quant...)
    allow_deprecated_quantization: bool = False
    entrypoint: str | None = None  # "serve" (vllm serve, the default) or "llm" (vllm.LLM in Python: larger token budget)
    # set by resolve_args, not a vllm serve flag: "awq" where vLLM serves an AWQ checkpoint's Linear layers with its
    # plain AWQ method, "marlin" where AWQ-Marlin converts them (awq_linear_kernel); None for other checkpoints
    awq_kernel: str | None = None
    # set by resolve_args, not a vllm serve flag: the kernel of a GPTQ checkpoint's dense Linear layers ("marlin",
    # "machete", "allspark", "exllama"; kv.gptq_linear_kernel), "" where not known or not GPTQ; None: not resolved yet
    gptq_kernel: str | None = None
    # set by resolve_args, not a vllm serve flag: EPLB's redundant experts per MoE layer as vLLM builds them (0 where
    # EPLB is off or the model class does not balance; plan.eplb.resolve_eplb)
    eplb_redundant: int = 0
    env: tuple[tuple[str, str], ...] = ()  # environment variables the server runs with (ENV_EFFECTS: those that move memory)
    # vLLM's --hf-overrides JSON: keys set on the model's config before anything is derived from it (rope_scaling for
    # a longer context, num_key_value_heads, ...); --rope-scaling / --rope-theta, the older flags of 0.4.3-0.11.0
    hf_overrides: str | dict | None = None
    rope_scaling: str | dict | None = None
    rope_theta: float | None = None

    def __post_init__(self):
        if isinstance(self.moe_backend, str):  # argparse's type: lambda s: s.lower().replace("-", "_") (arg_utils.py)
            object.__setattr__(self, "moe_backend", self.moe_backend.strip().lower().replace("-", "_") or None)
        if isinstance(self.cudagraph_capture_sizes, list):  # as JSON gives it: kept hashable, as a frozen dataclass is
            object.__setattr__(self, "cudagraph_capture_sizes", tuple(self.cudagraph_capture_sizes))
        if isinstance(self.cuda_graph_sizes, list):
            object.__setattr__(self, "cuda_graph_sizes", tuple(self.cuda_graph_sizes))

    @property
    def eplb_settings(self) -> dict:
        """--eplb-config (JSON text or a dict) as a dict, with --num-redundant-experts over its num_redundant_experts as
        vLLM forwards the deprecated flag (engine/arg_utils.py EngineArgs.create_engine_config, 0.10.2-0.11.2). {} where
        neither is given. The JSON text is parsed once (_eplb_config_json), however many EngineArgs a plan reads it
        from."""
        raw = self.eplb_config
        if isinstance(raw, str):
            raw = _eplb_config_json(raw.strip())
        if raw is not None and not isinstance(raw, dict):
            raise InputError("--eplb-config", f"must be a JSON object, got {raw!r}",
                             "e.g. '{\"num_redundant_experts\": 32, \"window_size\": 1000}'")
        out = dict(raw or {})
        if self.num_redundant_experts is not None:
            out["num_redundant_experts"] = self.num_redundant_experts
        return out

    @property
    def expert_parallel_size(self) -> int:
        """The EP group's size (args resolved): the TP x DP ranks under --enable-expert-parallel, which split the experts
        between them, else 1, every rank holding each expert sliced by TP (FusedMoEParallelConfig.make: use_ep is
        TP x DP > 1 with expert parallelism asked; at 1 rank the two read the same)."""
        return self.tensor_parallel_size * self.data_parallel_size * self.pcp if self.enable_expert_parallel else 1

    @property
    def pcp(self) -> int:
        """The prefill-context-parallel size: --prefill-context-parallel-size, 1 where not given. vLLM's world size per
        engine is PP x TP x PCP (ParallelConfig.world_size, config/parallel.py 0.12.0-0.34.0) and a MoE layer's experts
        are split over TP x PCP x DP (FusedMoEParallelConfig flatten_tp_across_dp_and_pcp, fused_moe/config.py 0.26.0-0.34.0)."""
        return self.prefill_context_parallel_size or 1

    @property
    def dcp(self) -> int:
        """The decode-context-parallel group's size: --decode-context-parallel-size, 1 where not given. Each of its
        ranks keeps 1/dcp of a sequence's tokens in a full-attention / MLA layer (FullAttentionSpec.max_memory_usage_bytes
        takes cdiv(max_model_len, dcp), v1/kv_cache_interface.py 0.10.2-0.34.0)."""
        return self.decode_context_parallel_size or 1

    @property
    def redundant_experts_given(self) -> int | None:
        """The redundant experts asked for (--num-redundant-experts or --eplb-config's), None where not given."""
        n = self.eplb_settings.get("num_redundant_experts")
        return None if n is None else int(n)

    def env_value(self, name: str) -> str | None:
        return dict(self.env).get(name)

    def env_on(self, name: str) -> bool:
        return env_flag_on(self.env, name)

    def expandable_segments(self, env_names: Sequence[str] = ALLOC_CONF_ENV) -> bool:
        """expandable_segments:True in PyTorch's allocator config, as the torch that reads `env_names` (in its order,
        the first one set wins: rules row torch_alloc_conf_env) sees it. torch 2.9 reads PYTORCH_ALLOC_CONF and, only
        when that is unset, PYTORCH_CUDA_ALLOC_CONF (c10/core/AllocatorConfig.cpp AllocatorConfig::instance); earlier
        releases read PYTORCH_CUDA_ALLOC_CONF alone. Options are comma-separated key:value pairs, the last one given
        wins. vLLM keeps the option while loading weights: its 20 MiB max_split_size is appended to the live settings
        (v1/worker/gpu_worker.py _scoped_allocator_max_split, 0.34.0); only the CuMem pool of sleep mode turns it off
        (device_allocator/cumem.py CuMemAllocator.use_memory_pool, 0.34.0)."""
        conf = next((v for name in env_names if (v := self.env_value(name)) is not None), None)
        on = False
        for item in (conf or "").split(","):
            key, _, value = item.partition(":")
            if key.strip() == "expandable_segments":
                on = value.strip() == "True"
        return on

    @cached_property
    def mm_limits(self) -> dict[str, int] | None:
        """--limit-mm-per-prompt as {modality: items}: JSON ('{"image": 2, "video": 0}') or the older image=2,video=0."""
        return parse_mm_limits(self.limit_mm_per_prompt)

    @cached_property  # read per KV group and per request length by the planner: parse the JSON once
    def speculative(self) -> tuple[str, int] | None:
        """(kind, num_speculative_tokens): kind "mtp" (the checkpoint's own MTP layers draft) or "ngram" (no drafter
        weights or KV); None without speculative decoding."""
        return parse_speculative_config(self.speculative_config)

    @property
    def speculative_method(self) -> str | None:
        """The speculative method --speculative-config names as vLLM settles it, "mtp" for any of the checkpoint's own
        MTP methods (deepseek_mtp, qwen3_next_mtp, ...); None without speculative decoding."""
        spec = self.speculative
        if spec is None:
            return None
        return "mtp" if spec[0] == "mtp" else _speculative_method(speculative_object(self.speculative_config))

    @cached_property
    def config_overrides(self) -> dict:
        """The keys --hf-overrides (and --rope-scaling / --rope-theta) set on the model's config; {} for none."""
        return config_overrides(self.hf_overrides, self.rope_scaling, self.rope_theta)

    @property
    def config_override_flags(self) -> tuple[str, ...]:
        """The flags of these args that set keys on the model's config, as vllm serve names them ("--hf-overrides",
        "--rope-scaling", "--rope-theta"); () for none."""
        return tuple(flag for flag, value in (("--hf-overrides", self.hf_overrides), ("--rope-scaling", self.rope_scaling),
                                              ("--rope-theta", self.rope_theta)) if value not in (None, "", {}))

    @property
    def decode_query_len(self) -> int:
        """Tokens one request decodes per step: 1 + num_speculative_tokens (the q of the uniform-decode FULL graphs,
        _full_graph_sizes, and of the speculative rounding of the capture sizes)."""
        spec = self.speculative
        return 1 + (spec[1] if spec else 0)

    @cached_property
    def draft(self) -> ModelSpec | None:
        """The drafter checkpoint --speculative-config's "model" names (methods eagle, eagle3, draft_model), resolved
        like any model reference (resolve.resolve_draft: catalog, local config, the Hub); None for other methods."""
        ref = speculative_draft(self.speculative_config)
        if ref is None:
            return None
        from kvplan.resolve import resolve_draft

        return resolve_draft(*ref)

    @cached_property
    def cudagraph_mode(self) -> str | None:
        """--compilation-config's cudagraph_mode (NONE, PIECEWISE, FULL, FULL_DECODE_ONLY, FULL_AND_PIECEWISE), or None
        for the release's default."""
        return parse_compilation_config(self.compilation_config)

    @cached_property
    def capture_sizes_given(self) -> tuple[int, ...] | None:
        """--cudagraph-capture-sizes as a tuple of ints in the order given (None: not given)."""
        return parse_capture_sizes(self.cudagraph_capture_sizes)

    @cached_property
    def cuda_graph_sizes_given(self) -> tuple[int, ...] | None:
        """--cuda-graph-sizes (0.9.0-0.12.x) as a tuple of ints in the order given (None: not given)."""
        return parse_capture_sizes(self.cuda_graph_sizes, *CAPTURE_SIZE_ARGS["cuda_graph_sizes"])

    @property
    def performance(self) -> str:
        """--performance-mode as vLLM takes it (PerformanceMode, config/vllm.py, 0.17.0-0.34.0 wheels): "balanced" where
        not given."""
        mode = "balanced" if self.performance_mode is None else str(self.performance_mode).strip().lower()
        if mode not in PERFORMANCE_MODES:
            raise InputError("--performance-mode", f"unknown performance mode {self.performance_mode!r}",
                             f"one of {', '.join(PERFORMANCE_MODES)} (balanced is vLLM's default)")
        return mode

    @property
    def captures_cuda_graphs(self) -> bool:
        """Whether vLLM captures CUDA graphs: not with --enforce-eager, nor with --compilation-config cudagraph_mode
        NONE (config/compilation.py CUDAGraphMode.NONE: no capture, so no graph memory and no capture line)."""
        return not self.enforce_eager and self.cudagraph_mode != "NONE"

    @property
    def lora_settings_ignored(self) -> list[str]:
        """The LoRA flags given without --enable-lora, which vLLM ignores (no LoRAConfig is built without it)."""
        if self.enable_lora:
            return []
        given = (("--max-loras", self.max_loras), ("--max-lora-rank", self.max_lora_rank),
                 ("--fully-sharded-loras", self.fully_sharded_loras or None), ("--max-cpu-loras", self.max_cpu_loras),
                 ("--lora-target-modules", self.lora_target_modules or None))
        return [flag if value is True else f"{flag} {value}" for flag, value in given if value is not None]

    @property
    def lora_targets(self) -> tuple[str, ...] | None:
        """--lora-target-modules as module names, or None (every supported module)."""
        v = self.lora_target_modules
        if v is None:
            return None
        if not isinstance(v, (str, list, tuple)):  # 5 or True: "internal error: TypeError: 'int' object is not iterable"
            raise InputError("--lora-target-modules", f"module names expected, got {v!r} ({type(v).__name__})",
                             "e.g. qkv_proj,o_proj (vLLM's module names; q_proj, gate_proj... from vLLM 0.20)")
        names = [n.strip() if isinstance(n, str) else n for n in (v.replace(",", " ").split() if isinstance(v, str) else v)]
        if not names or any(not isinstance(n, str) or not re.fullmatch(r"[A-Za-z_][\w.]*", n) for n in names):
            raise InputError("--lora-target-modules", f"module names expected, got {v!r}",
                             "e.g. qkv_proj,o_proj (vLLM's module names; q_proj, gate_proj... from vLLM 0.20)")
        return tuple(dict.fromkeys(names))

    @property
    def runner_type(self) -> str | None:
        """"generate", "pooling", or None for vLLM's auto choice (from the architecture and a sentence-transformers
        Pooling module). The older --task values map as vLLM's deprecation did (PR #21470)."""
        r = str(self.runner or "auto").strip().lower()
        if r == "auto":
            return None
        if r in ("generate", "pooling"):
            return r
        if r in _POOLING_TASKS:
            return "pooling"
        raise InputError("--runner", f"unknown runner {self.runner!r}",
                         "auto, generate or pooling (older vLLM: --task embed, classify, score or reward = pooling)")

    def validate(self) -> None:
        self.speculative  # raises on a malformed or unmodelled --speculative-config
        self.performance  # raises on an unknown --performance-mode
        self.cudagraph_mode  # raises on a malformed --compilation-config or an unknown cudagraph_mode
        self.mm_limits  # raises on a malformed --limit-mm-per-prompt
        # --pooler-config / --override-pooler-config: a JSON object whatever the model (vLLM's argparse reads the JSON
        # before anything loads); only a pooling model's plan read it, so 'inf' or ',' on a generator was planned
        # and scaffold wrote it into serve.sh
        for flag, value in (("--pooler-config", self.pooler_config), ("--override-pooler-config", self.override_pooler_config)):
            if value not in (None, ""):
                _json_object(value, flag, f"e.g. {flag} '{{\"pooling_type\": \"MEAN\"}}'",
                             f"must be a JSON object, got {value!r}")
        self.capture_sizes_given  # raises on a malformed --cudagraph-capture-sizes
        self.cuda_graph_sizes_given  # raises on a malformed --cuda-graph-sizes
        self.runner_type  # raises on an unknown --runner
        self.config_overrides  # raises on a malformed --hf-overrides, --rope-scaling or --rope-theta
        u = self.gpu_memory_utilization
        if u is not None and (isinstance(u, bool) or not isinstance(u, (int, float))):  # EngineArgs(...) built by hand
            raise InputError("--gpu-memory-utilization", f"must be a number, got {u!r} ({type(u).__name__})",
                             "e.g. 0.9 (the fraction of total GPU memory vLLM may claim)")
        if u is not None and not (0 < u <= 1):
            # 95 is a percentage written where vLLM takes a fraction: the fix is that fraction, not an example of 0.9.
            # 1.5 is no percentage anyone serves at (it was answered "0.015 for 1.5 %"): from 10 % up only
            fix = (f"a fraction, not a percentage: --gpu-memory-utilization {u / 100:g} for {u:g} %" if 10 <= u <= 100
                   else "e.g. 0.9 (the fraction of total GPU memory vLLM may claim)")
            raise InputError("--gpu-memory-utilization", f"must be in (0, 1], got {u}", fix)
        for name in ("tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size", "decode_context_parallel_size",
                     "prefill_context_parallel_size", "dcp_kv_cache_interleave_size", "cp_kv_cache_interleave_size",
                     "max_num_seqs", "max_num_batched_tokens",
                     "block_size", "num_gpus", "max_model_len"):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
                raise InputError("--" + name.replace("_", "-"), f"must be a whole number, got {v!r}", COUNT_EXAMPLES[name])
            if name in ("max_model_len", "dcp_kv_cache_interleave_size", "cp_kv_cache_interleave_size"):
                continue  # an interleave size below 1: refused as vLLM refuses it, or by kvplan (plan.kv.interleave_checks)
            if v is not None and v < 1:
                raise InputError("--" + name.replace("_", "-"), f"must be a positive integer, got {v}", COUNT_EXAMPLES[name])
            if v is not None and name in _GPU_COUNTS and v > MAX_GPU_COUNT:  # --num-gpus 1e23 was planned as given
                raise InputError("--" + name.replace("_", "-"), f"{v:,} GPUs is more than any one deployment spans (at "
                                 f"most {MAX_GPU_COUNT:,})", COUNT_EXAMPLES[name])
        sizes = {n: getattr(self, n) or 1 for n in ("tensor_parallel_size", "pipeline_parallel_size",
                                                    "prefill_context_parallel_size", "data_parallel_size")}
        if math.prod(sizes.values()) > MAX_GPU_COUNT:  # each under the cap, their GPUs (-tp 16 -dp 65536) were planned
            widest = max(sizes, key=sizes.get)
            raise InputError("--" + widest.replace("_", "-"), f"TP x PP x PCP x DP = {' x '.join(map(str, sizes.values()))} "
                             f"= {math.prod(sizes.values()):,} GPUs, more than any one deployment spans (at most "
                             f"{MAX_GPU_COUNT:,})", COUNT_EXAMPLES[widest])
        if self.max_model_len is not None and self.max_model_len < 1 and self.max_model_len != AUTO_FIT:
            raise InputError("--max-model-len", f"must be a positive integer, got {self.max_model_len}",
                             "e.g. 4096 (or -1: vLLM >= 0.14 fits the longest length the KV pool holds)")
        # argparse's choices (a value outside them is refused before anything loads). --expert-placement-strategy:
        # vLLM's ExpertPlacementStrategy Literal (config/parallel.py, 0.11.0-0.34.0 wheels). --gdn-prefill-backend: its
        # choices hold no "auto" (vLLM's own choice is the flag left out); which release takes which value is checked
        # with the release (versions.SERVE_VALUE_SINCE)
        _check_choice("--kv-cache-dtype", self.kv_cache_dtype, KV_CACHE_DTYPES, "KV-cache dtype")
        _check_choice("--dtype", self.dtype, MODEL_DTYPES, "dtype")
        _check_choice("--mamba-ssm-cache-dtype", self.mamba_ssm_cache_dtype, MAMBA_DTYPES, "dtype")
        _check_choice("--mamba-cache-dtype", self.mamba_cache_dtype, MAMBA_DTYPES, "dtype")
        _check_choice("--expert-placement-strategy", self.expert_placement_strategy, EXPERT_PLACEMENTS, "placement")
        _check_choice("--gdn-prefill-backend", self.gdn_prefill_backend, GDN_PREFILL_BACKENDS,
                      "GDN prefill backend", ": vllm serve's argparse would refuse it",
                      ", or leave it out for vLLM's own choice")
        # --moe-backend: any value of the MoEBackend Literal of some release (versions.MOE_BACKENDS); which release takes
        # which is checked with the release (versions.check_serve_values)
        _check_choice("--moe-backend", self.moe_backend, MOE_BACKENDS, "MoE backend",
                      ": no vLLM release's --moe-backend takes it (argparse would refuse it)",
                      " (auto: vLLM's own choice)")
        # --eplb-config's counts are whole numbers (as vLLM's EPLBConfig types them); the bounds each release holds them
        # to (num_redundant_experts >= 0, window_size > 0) are checked with the release (plan.eplb.resolve_eplb, rules
        # eplb_config_bounds)
        eplb = self.eplb_settings
        for key, example in (("num_redundant_experts", 32), ("window_size", 1000), ("step_interval", 3000),
                             ("log_balancedness_interval", 1)):
            v = eplb.get(key)
            if v is not None and whole_number(v) is None:
                flag = ("--num-redundant-experts" if key == "num_redundant_experts" and self.num_redundant_experts
                        is not None else "--eplb-config")
                raise InputError(flag, f"{key} must be a whole number, got {v!r}", f"e.g. {{\"{key}\": {example}}}")
        # --block-size: a positive int (above); which sizes a release takes is its own (versions.BLOCK_SIZE_CHOICES,
        # checked with the release: any positive int from 0.18, e.g. 96 starts gpt-oss-20b on 0.29 with TRITON_ATTN)
        lpt = self.long_prefill_token_threshold
        if lpt is not None and (isinstance(lpt, bool) or not isinstance(lpt, int) or lpt < 0):
            # SchedulerConfig.long_prefill_token_threshold: Field(ge=0) (config/scheduler.py 0.31.0-0.34.0)
            raise InputError("--long-prefill-token-threshold", f"must be a whole number >= 0, got {lpt!r}",
                             "0 (no cap) or a token count such as 2048")
        for name, example in (("max_loras", "e.g. 4"), ("max_lora_rank", "e.g. 4"), ("max_cpu_loras", "e.g. 32"),
                              ("num_gpu_blocks_override", "e.g. 2000 (the KV pool's blocks, as a startup log's 'num_gpu_blocks')"),
                              ("mamba_block_size", "e.g. 256 (tokens per Mamba state block, a multiple of the attention block)"),
                              ("max_cudagraph_capture_size", "e.g. 64 (graphs at batch sizes 1, 2, 4, 8, ... 64)")):
            v = getattr(self, name)
            # a whole max_cudagraph_capture_size below 1 is vLLM's to refuse where it captures graphs
            # (plan.cudagraphs.given_capture_sizes; rules row cudagraph_max_size_below_one)
            low = v is not None and not isinstance(v, bool) and isinstance(v, int) and v < 1
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1) and not (
                    low and name == "max_cudagraph_capture_size"):
                raise InputError("--" + name.replace("_", "-"), f"must be a positive whole number, got {v!r}", example)
        if self.max_lora_rank is not None and self.max_lora_rank not in LORA_RANKS:
            raise InputError("--max-lora-rank", f"vLLM accepts ranks {', '.join(map(str, LORA_RANKS))}, got {self.max_lora_rank}", "e.g. 16")
        # LoRA settings without --enable-lora: vLLM builds no LoRAConfig (EngineArgs.create_engine_config: `LoRAConfig(...)
        # if self.enable_lora else None`, 0.6.4, 0.11.1, 0.33.0 wheels), so they are ignored and unchecked; the planner
        # says so (lora_settings_ignored)
        if (self.enable_lora and self.max_cpu_loras is not None
                and self.max_cpu_loras < (self.max_loras or 1)):
            # LoRAConfig's own check (config/lora.py __post_init__ / _validate_lora_config, 0.10.2-0.33.0 wheels)
            raise InputError("--max-cpu-loras", f"max_cpu_loras ({self.max_cpu_loras}) must be >= max_loras "
                             f"({self.max_loras or 1}): vLLM refuses the start", f"give --max-cpu-loras {self.max_loras or 1} "
                             f"or more (the adapters kept in CPU memory), or --max-loras {self.max_cpu_loras} or less")
        self.lora_targets  # raises on a malformed --lora-target-modules
        for flag, value, unit, fix in (("--cpu-offload-gb", self.cpu_offload_gb, " GiB", "e.g. 10 (GiB of weights per GPU kept in CPU memory)"),
                                       ("--overhead-gb", self.overhead_gb, "", "the seed uses 1")):
            if value is not None and (isinstance(value, bool) or not 0 <= value * GIB <= MAX_MEMORY_BYTES):
                raise InputError(flag, f"must be a finite number >= 0{unit} (at most {MAX_MEMORY_BYTES // GIB:,}), got {value!r}",
                                 fix)

# the flags a caller gives: EngineArgs' fields but awq_kernel and gptq_kernel, the plan's own readings of the
# checkpoint (resolve_args: plan.awq_linear_kernel, plan.kv.gptq_linear_kernel), not flags
# the fields resolve_args sets (not vllm serve flags): kvplan.fit(eplb_redundant=None) reached int(None) in the weights
# ("internal error: TypeError"); like awq_kernel and gptq_kernel they are not taken as keywords
ENGINE_FLAGS = frozenset(EngineArgs.__dataclass_fields__) - {"awq_kernel", "gptq_kernel", "eplb_redundant"}

# the integer engine arguments (EngineArgs' "int | None" fields), which human_int reads as vllm serve does
# (max_model_len apart: parse_max_model_len also takes auto and -1)
INT_ENGINE_ARGS = tuple(f.name for f in fields(EngineArgs) if f.type == "int | None" and f.name != "max_model_len")


@dataclass(frozen=True)
class KVGroup:
    """Layers that share one block table (section 3.2)."""

    kind: str               # full, sliding, chunked, mla, recurrent, cross
    num_layers: int         # layers in this group (padding slots excluded)
    block_size: int         # tokens per block of this group
    page_bytes: int         # bytes of one block of one layer (after unification)
    window: int | None = None
    recurrent_kind: str | None = None  # mamba1, mamba2, gdn, linear (recurrent groups)
    fit_unit_bytes: int = 0  # DeepSeek-V4 up to 0.28: bytes the fit check charges per block a request holds
    # members held as full attention whose own window the fit check still charges (rules row fit_check_sees_windows):
    # (kind, window, layers)
    checked_windows: tuple[tuple[str, int, int], ...] = ()
    # a recurrent group whose layers can export a prefill checkpoint (Qwen's GDN in 0.33: FlashInfer's GDN prefill
    # kernel; see _gdn_exports_checkpoints); read with rules.mamba_checkpoint_page by mamba_pages
    checkpoint_capable: bool = True
    # a "cross" group (an encoder-decoder's cross-attention): the encoder output positions one request caches
    encoder_len: int = 0


@dataclass(frozen=True)
class Term:
    """One number in the plan and how it was produced (for --explain and JSON)."""

    name: str
    value: float
    unit: str
    formula: str
    source: str = ""


@dataclass(frozen=True)
class Fix:
    name: str
    flags: dict
    effect: str
    fits: bool
    # the fix's plan starts warm, but its first (compiling) start may be refused (Plan.first_start_refused: the
    # cold-start warning), and the flags at which a first start also holds one request (the same search with that
    # as the test: api._first_start_note); None where no such value was searched or none was found
    first_start_refused: bool = False
    first_start_flags: dict | None = None

    @property
    def command_text(self) -> str:
        return fix_command_text(self.flags)


def fix_command_text(flags: dict) -> str:
    """A fix's change as the user types it: a model first (the positional argument), then --flags."""
    import shlex  # a value as a shell reads it: a GPU's catalog name has spaces ('--gpu NVIDIA A100 80GB SXM4' ran
    # as --gpu NVIDIA with three stray arguments); the page's renderFixes (web/static/app.js) quotes alike

    model = flags.get("model")
    # a switch: no value; a switch off, vllm serve's --no- form (--no-enable-extensible-kv-cache)
    rest = " ".join(f"--{k.replace('_', '-')}" if v is True else f"--no-{k.replace('_', '-')}" if v is False
                    else f"--{k.replace('_', '-')} {shlex.quote(str(v))}" for k, v in flags.items() if k != "model")
    return " ".join(x for x in (shlex.quote(str(model)) if model else "", rest) if x)


MRV2_ENV = "VLLM_USE_V2_MODEL_RUNNER"
