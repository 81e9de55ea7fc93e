"""The blind set's forty-second round (SOURCES-logs.md): one start from a repository new to the record files.

BigBIueWhale/devstral_vllm_config pins a vLLM 0.15.1 server (image vllm/vllm-openai:v0.15.1) for
cyankiwi/Devstral-Small-2-24B-Instruct-2512-AWQ-4bit (compressed-tensors INT4, group 32) on an RTX 5090: the set's
first Devstral (Mistral3ForConditionalGeneration, 40 layers x 8 KV heads x 128, BF16 KV) and its first start of
0.15.1, text-only ('limit-mm-per-prompt: {"image": 0}'), 0.98, one sequence. The repository's config_override.json is
the checkpoint's config.json as vLLM read it (text model_type patched from ministral3 to mistral). Its config.yaml
quotes the measured start: 'Model loading took 14.29 GiB', 'Available KV cache memory: 15.07 GiB', 98,768 tokens.

At first scoring, before any change: weights +1.91 %, the pool +3.58 % (15.61 / 15.07 GiB), tokens +3.56 %, verdict
right; given the pool, tokens within 0.02 % (160 KiB a token, block 16).
"""

from kvplan.validate import predict_record, validate_records
from named_records import records

DEVSTRAL = "devstral-small-2-24b-awq-rtx5090-u098-tp1-l96k-seqs1-noimg-v0151"


def _record():
    return records("blind_records.jsonl", (DEVSTRAL,))[DEVSTRAL]


def test_planned_on_0_15_1_text_only_with_the_pool_arithmetic_exact():
    rec = _record()
    assert predict_record(rec)[0].rules.version == "0.15.1"
    (r,) = validate_records([rec], given_kv=True)
    assert not r.skipped
    assert abs(r.error_pct["kv_cache_tokens"]) < 0.1  # 0.02 % at first scoring: 15.07 GiB / 160 KiB, 16-token blocks


def test_weights_pool_and_verdict_end_to_end():
    (r,) = validate_records([_record()])
    assert abs(r.error_pct["weights_gib"]) < 3.0  # +1.91 % at first scoring (14.56 / 14.29 GiB, INT4 group 32)
    assert abs(r.error_pct["kv_cache_gib"]) < 5.0  # +3.58 % at first scoring (15.61 / 15.07 GiB)
    assert r.predicted["fits"] is True
