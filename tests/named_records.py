"""One startup record by id from a record file, and kvplan's plan of it, for tests that check a term on named records."""
from __future__ import annotations

from pathlib import Path

from kvplan.validate import load_records, predict_record

DATA = Path(__file__).parent / "data"


def _located(path: Path | str) -> Path:
    """`path` as given where absolute, else a name under tests/data."""
    return Path(path) if Path(path).is_absolute() else DATA / path


BLIND = "blind_records.jsonl"


def record(path: Path | str, rid: str) -> dict:
    """The record `rid` of the file at `path` (a name is read under tests/data); an AssertionError naming the id and
    the file where the file holds no such record."""
    return records(path, (rid,))[rid]


def records(path: Path | str, ids) -> dict[str, dict]:
    """The records of the file at `path` whose id is one of `ids`, by id in the file's order; an AssertionError naming
    every id the file does not hold, so a test of named records never runs on fewer than it names."""
    ids = tuple(ids)
    found = {r["id"]: r for r in load_records(_located(path)) if r["id"] in ids}
    missing = [rid for rid in dict.fromkeys(ids) if rid not in found]
    if missing:
        raise AssertionError(f"{_located(path).name} holds no record with id {', '.join(missing)}")
    return found


def record_plan(path: Path | str, rid: str):
    """(the record, kvplan's plan of it)."""
    rec = record(path, rid)
    return rec, predict_record(rec)[0]


def planned_with(rec: dict, **args):
    """(kvplan's plan of the record, its plan with `args` added to the record's args): a flag planned, not skipped."""
    return predict_record(rec)[0], predict_record(dict(rec, args=dict(rec["args"], **args)))[0]


def first_record(path: Path | str, model_id: str) -> dict:
    """The first record of the file at `path` for `model_id` with a stated vLLM version."""
    rec = next((r for r in load_records(_located(path)) if r["model"]["id"] == model_id and r.get("vllm_version")),
               None)
    assert rec is not None, f"{_located(path).name} holds no versioned record of {model_id}"
    return rec


def planned_versions(recs: dict[str, dict]) -> dict[str, str]:
    """{record id: the vLLM release whose rules kvplan plans it with}, for records as records() gives them."""
    return {rid: predict_record(rec)[0].rules.version for rid, rec in recs.items()}


def tokens_per_gib_error(plan, observed: dict) -> float:
    """How far the plan's tokens per GiB of pool are from the log's (relative): the pool's page arithmetic, which
    should match within the rounding of the printed GiB whatever the pool's size."""
    per_gib_plan = plan.kv_cache_tokens / (plan.kv_cache_bytes / 1024 ** 3)
    per_gib_log = observed["kv_cache_tokens"] / observed["kv_cache_gib"]
    return abs(per_gib_plan - per_gib_log) / per_gib_log


def startup_log(model: str, max_model_len: int, **args):
    """A vLLM 0.19.0 startup log's first lines (its version, its non-default args with `args`, a concurrency line),
    parsed as kvplan.logs reads a log: the tests of a flag read from a log."""
    from kvplan.logs import parse_lines

    given = {"model_tag": model, "model": model, "max_model_len": max_model_len, **args}
    return parse_lines([
        "INFO 10-02 10:00:01 [api_server.py:1896] vLLM API server version 0.19.0",
        f"INFO 10-02 10:00:01 [utils.py:233] non-default args: {given!r}",
        f"INFO 10-02 10:00:30 [kv_cache_utils.py:1091] Maximum concurrency for {max_model_len:,} tokens per request: 30.00x"])


def catalog_config_with(model_id: str, path: list, value) -> dict:
    """A copy of the catalog's config.json of `model_id` with the key at `path` (a list of keys into nested objects)
    set to `value`: a damaged config for the refusal tests."""
    import copy

    from kvplan.resolve import model_catalog

    config = copy.deepcopy(model_catalog()[model_id]["config"])
    node = config
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return config
