"""A sweep works out once what its rows share (resolve.answers_kept / once): the rows still read as plans made alone."""

import copy

import pytest

from kvplan.api import FitFlags, fit, sweep_rows
from kvplan.resolve import answers_kept, once


def test_once_answers_again_only_inside_the_block_and_for_the_same_owner_and_values():
    calls = []

    def make(tag):
        calls.append(tag)
        return tag

    owner = object()
    assert once(lambda: make(1), "k", owner, (1,)) == 1 and once(lambda: make(2), "k", owner, (1,)) == 2  # outside
    with answers_kept():
        assert once(lambda: make(3), "k", owner, (1,)) == 3
        assert once(lambda: make(4), "k", owner, (1,)) == 3  # kept
        assert once(lambda: make(5), "k", object(), (1,)) == 5  # another owner, even an equal one, asks afresh
        assert once(lambda: make(6), "k", owner, (True,)) == 6  # True is not 1 here: values compare with their type
        assert once(lambda: make(7), "k", owner, ([1],)) == 7 and once(lambda: make(8), "k", owner, ([1],)) == 8  # unhashable
        with pytest.raises(ZeroDivisionError):
            once(lambda: 1 / 0, "err", owner, ())
    assert calls == [1, 2, 3, 5, 6, 7, 8]
    assert once(lambda: make(9), "k", owner, (1,)) == 9  # the block's answers are gone with it


@pytest.mark.parametrize("model, gpu, varied", [
    ("meta-llama/Llama-3.1-8B-Instruct", "A100-80GB", [("max_model_len", [2048, 8192, 32768])]),
    ("Qwen/Qwen3-8B", "L4", [("gpu", ["L4", "T4", "H100"]), ("kv_cache_dtype", ["auto", "fp8"])]),
    ("Qwen/Qwen3-30B-A3B", "H100", [("tensor_parallel_size", [1, 2]), ("vllm_version", ["0.11.0", "0.34.0"])]),
])
def test_sweep_rows_match_plans_made_one_by_one(model, gpu, varied):
    plans = []
    rows = sweep_rows(model, FitFlags(gpu=gpu, max_model_len=8192), copy.deepcopy(varied), plans)
    assert len(plans) == len(rows) > 1
    for row, p in zip(rows, plans):
        setting = {k: row[k] for k, _ in varied}
        alone = fit(model, setting.pop("gpu", gpu), fixes=False, **{"max_model_len": 8192, **setting})
        assert p.to_dict() == alone.to_dict()
        assert (row["kv_cache_bytes"], row["weights_bytes"]) == (alone.kv_cache_bytes, alone.weights_bytes)
