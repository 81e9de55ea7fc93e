"""Dynamic speculative decoding's capture sizes (--speculative-config num_speculative_tokens_per_batch_size; versions.py
row dynamic_sd_capture_tiers): each query length 1 + K of the dense schedule (v1/spec_decode/dynamic/utils.py
build_dynamic_sd_schedule_lookup) runs up to the widest batch that drafts K and takes sizes of its own: in the default
grid from 0.29.0 (config/vllm.py VllmConfig._set_cudagraph_sizes decode_tiers), and from 0.34.0 in the decode request
counts and the (n, q) uniform-decode graphs too (VllmConfig.get_decode_cudagraph_query_lens,
_split_cudagraph_capture_sizes, config/compilation.py decode_cudagraph_capture_shapes, 0.34.0 wheel)."""

from __future__ import annotations

import json

import pytest

import kvplan
from kvplan.errors import RefusedByVLLMError
from kvplan.plan.args import EngineArgs
from kvplan.plan.cudagraphs import _dynamic_sd_schedule, decode_query_lens
from kvplan.versions import rules_for

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def _spec(schedule=None, k: int = 3) -> str:
    obj = {"method": "ngram", "num_speculative_tokens": k, "prompt_lookup_max": 4}
    if schedule is not None:
        obj["num_speculative_tokens_per_batch_size"] = schedule
    return json.dumps(obj)


def _graphs(schedule=None, version="0.34.0", **kw) -> dict:
    kw.setdefault("max_model_len", 8192)
    p = kvplan.fit(LLAMA, "H100", vllm_version=version, speculative_config=_spec(schedule), **kw)
    return p.cudagraphs if isinstance(p.cudagraphs, dict) else p.cudagraphs.to_dict()


def test_the_row_by_release():
    assert rules_for("0.28.0").dynamic_sd_capture_tiers == "none"
    assert rules_for("0.29.0").dynamic_sd_capture_tiers == "default_sizes"
    assert rules_for("0.33.0").dynamic_sd_capture_tiers == "default_sizes"
    assert rules_for("0.34.0").dynamic_sd_capture_tiers == "decode_graphs"


def test_the_dense_schedule_as_vllm_documents_it():
    # utils.py's own example: [(1, 16, 3), (32, 128, 2)] maps 17-31 to K=3 (a gap carries the previous K), and the tail
    # past the last range keeps its K; every K is clamped to num_speculative_tokens
    dense = _dynamic_sd_schedule([[1, 16, 3], [32, 128, 2]], 200, 3)
    assert dense[0] == 0 and set(dense[1:32]) == {3} and set(dense[32:]) == {2}
    assert set(_dynamic_sd_schedule([[1, 8, 5]], 16, 3)[1:]) == {3}


@pytest.mark.parametrize("schedule, message", [
    ([[2, 8, 3]], "The first batch-size range must start at 1"),
    ([[1, 8, 3], [4, 16, 2]], "Batch-size ranges must be non-overlapping and sorted."),
    ([[1, 8]], "must be a 3-item sequence"),
    ([[1, 8, -1]], "values must be >= 0"),
    ([[8, 1, 2]], "Batch-size range start must be <= end"),
])
def test_a_schedule_vllm_refuses(schedule, message):
    with pytest.raises(RefusedByVLLMError) as e:
        _graphs(schedule)
    assert message in e.value.message


def test_query_lengths_and_their_widest_batches():
    rules = rules_for("0.34.0")
    args = EngineArgs(max_num_seqs=256, speculative_config=_spec([[1, 16, 3], [32, 128, 2]]))
    assert decode_query_lens(args, rules) == {4: 31, 3: 256}
    # the standalone drafter's expanded prefill: one query more per request
    assert decode_query_lens(args, rules, 5) == {5: 31, 4: 256}
    # no schedule, an empty one, data parallelism (vLLM drops it), or a release without tiers: the static width
    for a, r in ((EngineArgs(max_num_seqs=256, speculative_config=_spec()), rules),
                 (EngineArgs(max_num_seqs=256, speculative_config=_spec([])), rules),
                 (EngineArgs(max_num_seqs=256, data_parallel_size=2, speculative_config=_spec([[1, 16, 3], [17, 256, 1]])),
                  rules),
                 (args, rules_for("0.28.0"))):
        assert decode_query_lens(a, r) == {4: 256}


def test_0_34_captures_each_tier_up_to_its_widest_batch():
    # max_num_seqs 32, K = 3 up to 4 requests, 1 beyond: query lengths 4 (<= 4 requests) and 2 (<= 32). The shared
    # sizes are the grid up to 2 x 32 x 4 = 256, whose sizes round up to the request counts 1, 2, 4, 6, ... 32 at either
    # query length (17 counts); query length 4 takes the counts up to 4 (1, 2, 4), query length 2 all 17: 20 graphs
    # where the static width takes 17 of 4 tokens each
    static = _graphs(None, max_num_seqs=32)
    tiers = _graphs([[1, 4, 3], [5, 32, 1]], max_num_seqs=32)
    assert static["full_decode_graphs"] == 17 and "decode_query_lens" not in static
    assert tiers["full_decode_graphs"] == 20
    assert tiers["decode_query_lens"] == [2, 4]
    counts = [1, *range(2, 33, 2)]
    assert tiers["decode_capture_tokens"] == sorted({4, 8, 16} | {2 * n for n in counts})
    assert tiers["decode_query_len"] == 4


@pytest.mark.parametrize("version", ["0.33.0", "0.34.0"])
def test_the_default_grid_takes_each_tiers_decode_sizes(version):
    # K = 3 up to 4 requests, 2 beyond: the q = 3 tier appends 3, 6 and 12 tokens (1, 2, 4 requests), which neither the
    # grid (1, 2, 4, multiples of 8) nor the static width's multiples of 4 hold
    static = set(_graphs(None, version=version, max_num_seqs=32)["capture_sizes"])
    tiers = set(_graphs([[1, 4, 3], [5, 32, 2]], version=version, max_num_seqs=32)["capture_sizes"])
    assert {3, 6, 12} <= tiers - static
    # before 0.29 the default grid has no uniform decode sizes, so no tiers either
    assert _graphs([[1, 4, 3], [5, 32, 2]], version="0.28.0", max_num_seqs=32)["capture_sizes"] == \
        _graphs(None, version="0.28.0", max_num_seqs=32)["capture_sizes"]


def test_data_parallelism_drops_the_schedule_with_vllms_warning():
    spec = _spec([[1, 4, 3], [5, 32, 1]])
    p = kvplan.fit(LLAMA, "2xH100", vllm_version="0.34.0", max_model_len=8192, max_num_seqs=32, data_parallel_size=2,
                   speculative_config=spec)
    assert any(w.startswith("Dynamic speculative decoding is not supported with data parallelism") for w in p.warnings)
    g = p.cudagraphs if isinstance(p.cudagraphs, dict) else p.cudagraphs.to_dict()
    assert g["full_decode_graphs"] == 17 and "decode_query_lens" not in g
