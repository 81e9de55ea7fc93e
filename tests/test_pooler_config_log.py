"""A startup log's --pooler-config / --override-pooler-config is read into the arguments that re-plan the log
(StartupLog.pooler_config_given, logs.pooler_types), so `kvplan reconcile` and a record built from the log plan the
pooling type the server ran with.

The log lines are shaped as vLLM prints them:
- 'non-default args: %s' of a dict of the parsed arguments (vllm/entrypoints/utils.py log_non_default_args, 0.12.0
  and 0.20.2 wheels), whose PoolerConfig value argparse built from the JSON given (engine/arg_utils.py _compute_kwargs
  parse_dataclass -> TypeAdapter(cls).validate_json, 0.10.0 and 0.12.0 wheels), so it prints the dataclass repr; the
  fields are config/pooler.py PoolerConfig's (0.12.0 wheel: pooling_type .. returned_token_ids; 0.33.0 wheel: task,
  pooling_type, seq_pooling_type, tok_pooling_type, ..., where __post_init__ copies a given pooling_type into
  seq_pooling_type);
- 'args: Namespace(...)' of releases before the non-default args line, with --override-pooler-config built by
  PoolerConfig.from_json (engine/arg_utils.py, 0.8.3 wheel; fields pooling_type, normalize, softmax, step_tag_id,
  returned_token_ids in its config.py);
- a dict value, as vllm.LLM(..., override_pooler_config={...}) leaves it on EngineArgs;
- the engine's 'with config:' line, which prints pooler_config={ModelConfig.pooler_config!r} (config/vllm.py
  VllmConfig.__str__, 0.12.0 and 0.33.0 wheels): the resolved config, not what was given.
The real 0.12.0 startup of Qwen3-Embedding-8B (the calibration record qwen3-embedding-8b-h100-udef-tp1) gives none.
"""

from __future__ import annotations

import json

import pytest

import kvplan
from kvplan.logs import parse_lines, pooler_types
from kvplan.reconcile import plan_kwargs_from_log
from kvplan.validate import predict_record

ND = "(APIServer pid=1) INFO 12-22 14:22:07 [utils.py:253] non-default args: "
REPR_012 = ("PoolerConfig(pooling_type='MEAN', normalize=None, dimensions=None, enable_chunked_processing=None, "
            "max_embed_len=None, softmax=None, activation=None, use_activation=None, logit_bias=None, step_tag_id=None, "
            "returned_token_ids=None)")
REPR_033 = ("PoolerConfig(task=None, pooling_type='MEAN', seq_pooling_type='MEAN', tok_pooling_type=None, "
            "use_activation=None, enable_flash_late_interaction=True, dimensions=None, enable_chunked_processing=False, "
            "max_embed_len=None, logit_mean=None, logit_sigma=None, step_tag_id=None, returned_token_ids=None)")
REPR_083 = "PoolerConfig(pooling_type='MEAN', normalize=None, softmax=None, step_tag_id=None, returned_token_ids=None)"
MEAN = {"pooling_type": "MEAN"}


def _given(lines):
    return {k: json.loads(v) for k, v in parse_lines(lines).pooler_config_given().items()}


@pytest.mark.parametrize("line,expect", [
    (ND + "{'model_tag': 'Qwen/Qwen3-8B', 'model': 'Qwen/Qwen3-8B', 'runner': 'pooling', 'pooler_config': "
     + REPR_012 + ", 'max_model_len': 8192}", {"pooler_config": MEAN}),
    # 0.14+: the repr shows pooling_type copied into seq_pooling_type; what was given is pooling_type alone
    (ND + "{'model': 'Qwen/Qwen3-8B', 'runner': 'pooling', 'pooler_config': " + REPR_033 + "}", {"pooler_config": MEAN}),
    (ND + "{'model': 'Qwen/Qwen3-8B', 'pooler_config': PoolerConfig(task=None, pooling_type=None, seq_pooling_type=None, "
     "tok_pooling_type='ALL', use_activation=None)}", {"pooler_config": {"tok_pooling_type": "ALL"}}),
    (ND + "{'model': 'Qwen/Qwen3-8B', 'override_pooler_config': " + REPR_012.replace("MEAN", "CLS") + "}",
     {"override_pooler_config": {"pooling_type": "CLS"}}),
    (ND + "{'model': 'Qwen/Qwen3-8B', 'override_pooler_config': {'pooling_type': 'MEAN'}}",
     {"override_pooler_config": MEAN}),
    # a line cut inside the repr keeps the type it holds
    (ND + "{'model': 'Qwen/Qwen3-8B', 'max_model_len': 8192, 'pooler_config': PoolerConfig(pooling_type='LAST', norm",
     {"pooler_config": {"pooling_type": "LAST"}}),
    ("INFO 03-01 10:00:00 api_server.py:912] args: Namespace(host=None, port=8000, model='Qwen/Qwen3-8B', task='embed', "
     "override_pooler_config=" + REPR_083 + ", max_model_len=8192, disable_log_stats=False)",
     {"override_pooler_config": MEAN}),
    ("$ vllm serve Qwen/Qwen3-8B --runner pooling --pooler-config '{\"pooling_type\": \"MEAN\"}' --max-model-len 8192",
     {"pooler_config": MEAN}),
    ("$ vllm serve Qwen/Qwen3-8B --runner pooling --pooler-config.pooling_type MEAN", {"pooler_config": MEAN}),
    # no type set: nothing kvplan plans
    (ND + "{'model': 'Qwen/Qwen3-8B', 'pooler_config': " + REPR_012.replace("'MEAN'", "None").replace(
        "normalize=None", "normalize=False") + "}", {}),
])
def test_each_logged_shape_gives_the_pooling_type(line, expect):
    assert _given([line]) == expect


def test_the_engine_config_line_is_no_setting():
    line = ("INFO 12-22 14:22:36 [core.py:93] Initializing a V1 LLM engine (v0.12.0) with config: model='Qwen/Qwen3-8B', "
            "speculative_config=None, max_seq_len=8192, pooler_config=" + REPR_012.replace("MEAN", "LAST")
            + ", compilation_config={}")
    assert parse_lines([line]).pooler_config_given() == {}


def test_the_rest_of_the_dict_is_still_read_whole():
    # before, a PoolerConfig repr made the dict no literal and the pairs were read one by one, losing dict values
    log = parse_lines([ND + "{'model': 'Qwen/Qwen3-8B', 'runner': 'pooling', 'pooler_config': " + REPR_012
                       + ", 'hf_overrides': {'is_causal': False}, 'max_model_len': 8192}"])
    assert log.arg("hf_overrides") == {"is_causal": False} and log.arg("max_model_len") == 8192


def test_pooler_types_reads_every_form():
    assert pooler_types({"pooling_type": "MEAN", "normalize": False}) == MEAN
    assert pooler_types('{"seq_pooling_type": "CLS"}') == {"seq_pooling_type": "CLS"}
    assert pooler_types(REPR_033.replace("seq_pooling_type='MEAN'", "seq_pooling_type=None")) == MEAN
    assert pooler_types("PoolerConfig") == {} and pooler_types(None) == {} and pooler_types(3) == {}


def _log_012(pooler: str):
    return parse_lines(["(APIServer pid=1) INFO 12-22 14:22:00 [api_server.py:1] vLLM API server version 0.12.0",
                        ND + "{'model_tag': 'Qwen/Qwen3-8B', 'model': 'Qwen/Qwen3-8B', 'runner': 'pooling', "
                        + pooler + "'max_model_len': 16384}"])


def _key(p):
    return (p.args.max_num_batched_tokens, p.args.enable_prefix_caching, p.activation_peak_bytes, p.kv_cache_tokens)


def test_reconcile_plans_the_logged_pooling_type():
    kw = plan_kwargs_from_log(_log_012("'pooler_config': " + REPR_012 + ", "))
    assert kw["pooler_config"] == '{"pooling_type": "MEAN"}' and kw["vllm_version"] == "0.12.0"
    kw.pop("model", None)
    planned = kvplan.fit("Qwen/Qwen3-8B", "H100", **kw)
    # as the same flag given to kvplan, and not the converted class's LAST (chunked prefill and prefix caching on)
    given = kvplan.fit("Qwen/Qwen3-8B", "H100", vllm_version="0.12.0", runner="pooling", max_model_len=16384,
                       pooler_config='{"pooling_type": "MEAN"}')
    unset = kvplan.fit("Qwen/Qwen3-8B", "H100", vllm_version="0.12.0", runner="pooling", max_model_len=16384)
    assert _key(planned) == _key(given) != _key(unset)
    assert planned.args.enable_prefix_caching is False and unset.args.enable_prefix_caching is not False


def test_a_record_built_from_the_log_plans_it_too():
    rec = _log_012("'pooler_config': " + REPR_033.replace("task=None, ", "").replace(
        ", seq_pooling_type='MEAN', tok_pooling_type=None", "") + ", ").to_record()
    assert rec["args"]["pooler_config"] == '{"pooling_type": "MEAN"}'
    rec["gpu"]["name"] = "H100"
    with_type, _ = predict_record(rec)
    del rec["args"]["pooler_config"]
    without, _ = predict_record(rec)
    assert with_type.args.enable_prefix_caching is False and _key(with_type) != _key(without)


def test_the_real_qwen3_embedding_start_gives_none():
    from pathlib import Path
    rows = [json.loads(line) for line in (Path(__file__).parent / "data" / "vllm_log_excerpts.jsonl").open()]
    row = next(r for r in rows if "Qwen3Embedding_vllm-server.out" in r.get("source_url", ""))
    lines = next(v for v in row.values() if isinstance(v, list) and any("non-default args" in str(x) for x in v))
    log = parse_lines(lines)
    assert log.arg("max_model_len") == 8192 and log.pooler_config_given() == {}
    assert "pooler_config" not in log.to_record()["args"]


def test_a_real_offline_start_at_0_11_0():
    # tests/data/blind_failure_cases.jsonl 'wlog3-zjpzhao-t4-triton-mrope-kernel-image-invalid-r450' (github.com/zjpzhao/
    # vllm-qwen3vl-cu118-t4 logs/verify_qwen3vl.log, vllm.LLM on 0.11.0+torch271): the PoolerConfig repr in its
    # non-default args made the dict no literal, so limit_mm_per_prompt was lost with it
    from pathlib import Path
    rows = [json.loads(line) for line in (Path(__file__).parent / "data" / "blind_failure_cases.jsonl").open()]
    row = next(r for r in rows if r["id"] == "wlog3-zjpzhao-t4-triton-mrope-kernel-image-invalid-r450")
    args = parse_lines(row["log_lines"]).to_record()["args"]
    assert json.loads(args["pooler_config"]) == {"pooling_type": "LAST"}
    assert args["limit_mm_per_prompt"] == {"image": 0, "video": 0} and args["max_model_len"] == 4096


@pytest.mark.parametrize("logged,version,planned", [
    ("override_pooler_config", "0.12.0", "pooler_config"),   # removed in 0.12: the same JSON under the new name
    ("override_pooler_config", "0.11.0", "override_pooler_config"),
    ("pooler_config", "0.10.2", "override_pooler_config"),   # first in 0.11
    ("pooler_config", "0.34.0", "pooler_config"),
])
def test_a_release_without_the_logged_name_takes_the_other(logged, version, planned):
    from kvplan.cli import FitFlags
    log = _log_012(f"'{logged}': " + REPR_012 + ", ")
    kw = plan_kwargs_from_log(log, FitFlags(vllm_version=version))
    assert kw["vllm_version"] == version and kw[planned] == '{"pooling_type": "MEAN"}' and (planned == logged or logged not in kw)
    kw.pop("model", None)
    plan = kvplan.fit("Qwen/Qwen3-8B", "H100", **kw)
    assert plan.args.enable_prefix_caching is False  # MEAN: off in every release from 0.9.2


def test_the_record_reconcile_writes_keeps_the_name_its_release_takes():
    from kvplan.cli import FitFlags
    from kvplan.reconcile import _given_into_record, plan_from_log
    log = _log_012("'override_pooler_config': " + REPR_012 + ", ")
    flags = FitFlags(gpu="H100", vllm_version="0.12.0")
    plan, _ = plan_from_log(log, "Qwen/Qwen3-8B", flags)
    record = log.to_record()
    assert record["args"]["override_pooler_config"] == '{"pooling_type": "MEAN"}'
    _given_into_record(record, {"gpu": "H100", "vllm_version": "0.12.0"}, plan, log)
    assert record["vllm_version"] == "0.12.0" and "override_pooler_config" not in record["args"]
    assert record["args"]["pooler_config"] == '{"pooling_type": "MEAN"}'
    record["model"]["id"] = "Qwen/Qwen3-8B"
    again, _ = predict_record(record)
    assert _key(again) == _key(plan)


# --- a pooling type in lower case: no release takes it, so the log keeps it as logged and its failure is read ---

REPR_011_LOWER = ("PoolerConfig(pooling_type='mean', normalize=None, dimensions=None, enable_chunked_processing=None, "
                  "max_embed_len=None, activation=None, logit_bias=None, softmax=None, step_tag_id=None, "
                  "returned_token_ids=None)")


def test_a_lower_case_type_is_kept_as_logged_and_planned_as_vllm_refuses_it():
    # 0.11.x prints the PoolerConfig argparse built with the string as given (pooling_type is any str there), then fails
    # when the pooler looks it up (PoolingType['mean'] KeyError): the record keeps 'mean' and the re-plan refuses it
    from kvplan.errors import RefusedByVLLMError
    log = parse_lines(["(APIServer pid=1) INFO 10-01 10:00:00 [api_server.py:1] vLLM API server version 0.11.0",
                       ND + "{'model': 'Qwen/Qwen3-8B', 'runner': 'pooling', 'pooler_config': " + REPR_011_LOWER
                       + ", 'max_model_len': 16384}"])
    assert log.pooler_config_given() == {"pooler_config": '{"pooling_type": "mean"}'}
    kw = plan_kwargs_from_log(log)
    kw.pop("model", None)
    with pytest.raises(RefusedByVLLMError) as e:
        kvplan.fit("Qwen/Qwen3-8B", "H100", **kw)
    assert "KeyError: 'mean'" in e.value.message and "give 'MEAN'" in e.value.fix


@pytest.mark.parametrize("lines,name,said", [
    # 0.12+: argparse prints pydantic's ValidationError of the PoolerConfig it builds from the JSON
    (["vllm serve: error: argument --pooler-config: 1 validation error for PoolerConfig", "pooling_type",
      "  Input should be 'LAST', 'ALL', 'CLS', 'STEP' or 'MEAN' [type=literal_error, input_value='mean', input_type=str]"],
     "pooler_type_literal", "(mean)"),
    (["vllm serve: error: argument --pooler-config: 1 validation error for PoolerConfig", "seq_pooling_type",
      "  Input should be 'CLS', 'LAST' or 'MEAN' [type=literal_error, input_value='last', input_type=str]"],
     "pooler_type_literal", "(last)"),
    # up to 0.11.x: the traceback of the pooler's lookup
    (["(EngineCore_0 pid=7) ERROR 10-01 10:00:09 [core.py:708]   File \"/usr/local/lib/python3.12/dist-packages/vllm/"
      "model_executor/layers/pooler.py\", line 54, in from_config",
      "(EngineCore_0 pid=7) ERROR 10-01 10:00:09 [core.py:708]     pooling_type=PoolingType[pooler_config.pooling_type])",
      "(EngineCore_0 pid=7) ERROR 10-01 10:00:09 [core.py:708] KeyError: 'mean'"], "pooler_type_keyerror", "KeyError"),
    # 0.10.1-0.13: the checkpoint's Pooling config sets a mode vLLM has no type for
    (["(EngineCore_0 pid=7) ERROR 10-01 10:00:09 [core.py:708] NotImplementedError: Pooling type MAX not supported"],
     "st_pooling_type_unsupported", "sets MAX pooling first"),
])
def test_a_refused_pooling_type_is_diagnosed(lines, name, said):
    from kvplan.diagnose import diagnose
    from kvplan.logs import SIGNATURES_BY_NAME
    top = diagnose(lines).top
    sig = SIGNATURES_BY_NAME[name]
    assert top is not None and (top.symptom, top.layer) == (sig.symptom, sig.layer) and said in top.cause
