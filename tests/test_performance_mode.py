"""vLLM's --performance-mode (VllmConfig.performance_mode, 0.17.0 on): interactivity replaces the default capture grid's
1, 2, 4 with every size 1-32 (config/vllm.py VllmConfig._set_cudagraph_sizes; from 0.34 also the dense head of
config/compilation.py prefill_cudagraph_capture_grid on compute capability 10.x), throughput doubles the default
max_num_seqs and max_num_batched_tokens (engine/arg_utils.py _set_default_max_num_seqs_and_batched_tokens_args).
versions.py rows cudagraph_interactivity_head, performance_mode_throughput_factor; SERVE_FLAG_SINCE --performance-mode."""
from __future__ import annotations

import pytest

import kvplan
from kvplan.errors import InputError
from kvplan.plan.cudagraphs import _size_grid, prefill_capture_grid
from kvplan.versions import rules_for

QWEN3 = "Qwen/Qwen3-8B"


def _fit(gpu="H100", version="0.34.0", **kw):
    return kvplan.fit(QWEN3, gpu, vllm_version=version, max_model_len=8192, **kw)


def _graphs(p):
    return p.cudagraphs if isinstance(p.cudagraphs, dict) else p.cudagraphs.to_dict()


def test_rows():
    assert rules_for("0.16.0").cudagraph_interactivity_head == 0
    assert rules_for("0.17.0").cudagraph_interactivity_head == 32 == rules_for("0.34.0").cudagraph_interactivity_head
    assert rules_for("0.16.0").performance_mode_throughput_factor == 1
    assert rules_for("0.33.0").performance_mode_throughput_factor == 2


def test_dense_head_of_the_grid():
    assert _size_grid(512, 32)[:33] == list(range(1, 33)) + [40]
    # the head stops at the largest size, and the rest of the grid is the balanced one's
    assert _size_grid(20, 32) == list(range(1, 21))
    assert set(_size_grid(512)) - set(_size_grid(512, 32)) == set()
    assert set(_size_grid(512, 32)) - set(_size_grid(512)) == set(range(1, 33)) - {1, 2, 4, 8, 16, 24, 32}
    # 0.34's prefill grid: every count 1-32 below its largest
    assert set(prefill_capture_grid(8192, 32)) == set(prefill_capture_grid(8192)) | set(range(1, 33))
    assert prefill_capture_grid(20, 32) == list(range(1, 21))


@pytest.mark.parametrize("version", ["0.17.0", "0.33.0", "0.34.0"])
def test_interactivity_adds_graphs_and_takes_pool(version):
    base, inter = _fit(version=version), _fit(version=version, performance_mode="interactivity")
    gb, gi = _graphs(base), _graphs(inter)
    added = set(gi["capture_sizes"]) - set(gb["capture_sizes"])
    assert added == set(range(1, 33)) - set(gb["capture_sizes"]) and len(added) == 25
    assert gi["num_capture_sizes"] == gb["num_capture_sizes"] + 25 and gi["largest"] == gb["largest"]
    assert inter.cudagraph_capture_bytes > base.cudagraph_capture_bytes
    if rules_for(version).cudagraph_subtracted or rules_for(version).kv_pool_sizing == "extensible":
        assert inter.kv_cache_bytes < base.kv_cache_bytes and inter.kv_cache_tokens < base.kv_cache_tokens
    else:  # before 0.21 the profile does not count graphs against the pool: captured after it, in the headroom
        assert inter.kv_cache_bytes == base.kv_cache_bytes
    assert any("--performance-mode interactivity" in a and f"{gi['num_capture_sizes']} capture sizes" in a
               for a in inter.assumptions)


def test_balanced_given_changes_nothing():
    base, given = _fit(version="0.33.0"), _fit(version="0.33.0", performance_mode="balanced")
    assert _graphs(given) == _graphs(base) and given.kv_cache_tokens == base.kv_cache_tokens


def test_b200_0_34_prefill_grid_takes_the_dense_head():
    base, inter = _fit("B200"), _fit("B200", performance_mode="interactivity")
    assert set(_graphs(inter)["capture_sizes"]) == set(_graphs(base)["capture_sizes"]) | set(range(1, 33))
    assert inter.cudagraph_capture_bytes > base.cudagraph_capture_bytes


def test_largest_size_alone_still_takes_the_dense_head():
    p = _fit(version="0.33.0", max_cudagraph_capture_size=64, performance_mode="interactivity")
    assert _graphs(p)["capture_sizes"] == list(range(1, 33)) + [40, 48, 56, 64]
    # a list given is taken as it is
    q = _fit(version="0.33.0", cudagraph_capture_sizes="1,2,4,8", performance_mode="interactivity")
    assert _graphs(q)["capture_sizes"] == [1, 2, 4, 8]


def test_interactivity_with_enforce_eager_captures_nothing():
    p = _fit(version="0.33.0", enforce_eager=True, performance_mode="interactivity")
    assert p.cudagraph_capture_bytes == 0


def test_throughput_doubles_the_defaults_not_the_given():
    base, thr = _fit(version="0.33.0"), _fit(version="0.33.0", performance_mode="throughput")
    assert thr.args.max_num_seqs == 2 * base.args.max_num_seqs
    assert thr.args.max_num_batched_tokens == 2 * base.args.max_num_batched_tokens
    assert thr.kv_cache_bytes < base.kv_cache_bytes  # a larger activation peak
    given = _fit(version="0.33.0", performance_mode="throughput", max_num_seqs=64)
    assert given.args.max_num_seqs == 64
    assert given.args.max_num_batched_tokens == 2 * base.args.max_num_batched_tokens


def test_refused_before_0_17_and_unknown_values():
    with pytest.raises(InputError) as e:
        _fit(version="0.16.0", performance_mode="interactivity")
    assert "--performance-mode" in str(e.value) and "0.17.0" in str(e.value)
    with pytest.raises(InputError) as e:
        _fit(version="0.33.0", performance_mode="latency")
    assert "balanced, interactivity, throughput" in str(e.value)


@pytest.mark.parametrize("value, kept", [("interactivity", "interactivity"), ("throughput", "throughput"),
                                         ("balanced", None)])
def test_a_logs_performance_mode_reaches_the_record(value, kept):
    from kvplan.logs import parse_lines

    line = ("(APIServer pid=1) INFO 05-01 10:00:00 [utils.py:233] non-default args: {'model': 'Qwen/Qwen3-8B', "
            f"'max_model_len': 8192, 'performance_mode': '{value}'}}")
    assert parse_lines([line]).to_record()["args"].get("performance_mode") == kept
    cmd = f"vllm serve Qwen/Qwen3-8B --max-model-len 8192 --performance-mode {value}"
    from kvplan.logs import parse_command_args

    assert parse_command_args(cmd).get("performance_mode") == value
