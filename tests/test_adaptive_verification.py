"""--speculative-config's enable_adaptive_verification (SpeculativeConfig, 0.29.0 on; versions.py rows
adaptive_verification, adaptive_verification_own_confidence_methods): the starts vLLM refuses with it, with vLLM's own
message (config/speculative.py SpeculativeConfig.__post_init__, config/vllm.py VllmConfig._validate_v1_model_runner and
_validate_adaptive_verification), and at 0.34 the token-keyed FULL decode graphs it captures instead of the
request-count ones (config/compilation.py varlen_decode_cudagraph_capture_grid)."""
from __future__ import annotations

import json

import pytest

import kvplan
from kvplan.errors import RefusedByVLLMError
from kvplan.plan.cudagraphs import ADAPTIVE_VERIFICATION, varlen_decode_capture_grid
from kvplan.versions import PUBLISHED_RELEASES, rules_for

QWEN3 = "Qwen/Qwen3-8B"


def _spec(method="ngram", **extra):
    obj = {"method": method, "num_speculative_tokens": 3, "enable_adaptive_verification": True, **extra}
    if method == "ngram":
        obj["prompt_lookup_max"] = 4
    return json.dumps(obj)


def _fit(version="0.34.0", gpu="H100", **kw):
    return kvplan.fit(QWEN3, gpu, vllm_version=version, max_model_len=8192, **kw)


def _refusal(**kw) -> str:
    with pytest.raises(RefusedByVLLMError) as e:
        _fit(**kw)
    assert e.value.rule == ADAPTIVE_VERIFICATION
    assert "enable_adaptive_verification" in (e.value.fix or "")
    return e.value.message


def test_rows():
    assert rules_for("0.28.0").adaptive_verification == "unread"
    assert rules_for("0.29.0").adaptive_verification == "dspark_only"
    assert rules_for("0.33.0").adaptive_verification == "full_graphs"
    assert rules_for("0.34.0").adaptive_verification == "decode_graphs"
    assert "suffix" not in rules_for("0.33.0").adaptive_verification_own_confidence_methods
    assert "suffix" in rules_for("0.34.0").adaptive_verification_own_confidence_methods


def test_varlen_decode_graphs_only_where_decode_graphs_are_split():
    # cudagraph_plan builds adaptive verification's varlen graphs in the split-size plan (_split_graph_plan), which it
    # takes only where the release keys its decode graphs on requests: the rows must start together
    for version in PUBLISHED_RELEASES:
        rules = rules_for(version)
        if rules.adaptive_verification == "decode_graphs":
            assert rules.cudagraph_decode_keys == "requests", version


@pytest.mark.parametrize("kw, message", [
    ({"enforce_eager": True}, "Adaptive verification requires full CUDA graphs."),
    ({"compilation_config": '{"cudagraph_mode": "PIECEWISE"}'}, "Adaptive verification requires full CUDA graphs."),
    ({"compilation_config": '{"cudagraph_mode": "NONE"}'}, "Adaptive verification requires full CUDA graphs."),
    ({"cudagraph_capture_sizes": "9000"}, "Adaptive verification requires full CUDA graphs."),  # none left
    ({"enable_lora": True}, "Adaptive verification is not currently compatible with LoRA"),
    ({"pipeline_parallel_size": 2, "gpu": "2xH100"}, "not currently compatible with pipeline parallelism"),
])
def test_0_34_refusals(kw, message):
    assert message in _refusal(speculative_config=_spec(), **kw)


def test_0_34_refuses_decode_routine_without_decode_sizes():
    # sizes 1, 2 with q = 4: no request count whose 4 tokens fit the largest size, 2
    msg = _refusal(speculative_config=_spec(), cudagraph_capture_sizes="1,2")
    assert "decode_cudagraph_capture_request_sizes is empty" in msg
    # the same sizes without speculative tokens beyond one fit: q = 2 -> 1 request of 2 tokens
    _fit(speculative_config=json.dumps({"method": "ngram", "num_speculative_tokens": 1, "prompt_lookup_max": 4,
                                        "enable_adaptive_verification": True}), cudagraph_capture_sizes="1,2")
    # with FULL graphs of one routine there are no decode sizes to need
    _fit(speculative_config=_spec(), cudagraph_capture_sizes="1,2",
         compilation_config='{"cudagraph_mode": "FULL", "mode": "NONE"}')


def test_no_size_left_fails_at_the_first_verify_step_before_0_34():
    # 0.30-0.33 keep the mode with no size left, so _validate_adaptive_verification passes; model runner v2 then skips
    # the capture and the step-cost profile, and get_num_tokens asserts the cost tables (0.30.0 and 0.33.0 wheels)
    assert rules_for("0.29.0").adaptive_verification_no_sizes == "unread"
    assert rules_for("0.33.0").adaptive_verification_no_sizes == "first_verify_fails"
    assert rules_for("0.34.0").adaptive_verification_no_sizes == "refused"
    for version in ("0.32.0", "0.33.0"):
        p = _fit(version=version, speculative_config=_spec(), cudagraph_capture_sizes="9000")
        assert p.fits
        [w] = [w for w in p.warnings if "cost_tables" in w]
        assert "AssertionError" in w and "first step that verifies drafts fails" in w and version in w
        assert "enable_adaptive_verification" in w
    # MTP runs on model runner v2 at 0.30 too
    p = kvplan.fit("Qwen/Qwen3.5-27B", "H200", vllm_version="0.30.0", max_model_len=8192, cudagraph_capture_sizes="9000",
                   speculative_config=_spec("mtp"))
    assert any("cost_tables" in w for w in p.warnings)
    # sizes left: no warning; 0.34 refuses at startup (cudagraph_mode NONE first)
    assert not any("cost_tables" in w for w in _fit(version="0.33.0", speculative_config=_spec()).warnings)
    assert "requires full CUDA graphs" in _refusal(speculative_config=_spec(), cudagraph_capture_sizes="9000")


def test_local_argmax_reduction():
    msg = _refusal(speculative_config=_spec(use_local_argmax_reduction=True))
    assert "use_local_argmax_reduction never materializes" in msg
    # suffix decoding estimates acceptance without the draft logits from 0.34, not in 0.33
    _fit(speculative_config=_spec("suffix", use_local_argmax_reduction=True))
    assert "never materializes" in _refusal(version="0.33.0", speculative_config=_spec("suffix", use_local_argmax_reduction=True))


def test_model_runner_v1_refuses_before_0_34():
    # 0.33 keeps model runner v1 for suffix decoding (rules row mrv2_v1_spec_methods)
    msg = _refusal(version="0.33.0", speculative_config=_spec("suffix"))
    assert msg == "Model Runner V1 does not support: adaptive draft verification"
    _fit(version="0.33.0", speculative_config=_spec())  # ngram runs on model runner v2 there


def test_0_29_only_dspark_and_older_releases_unread():
    assert _refusal(version="0.29.0", speculative_config=_spec()) == "Adaptive verification only supported with DSpark"
    _fit(version="0.28.0", speculative_config=_spec())


def test_off_changes_nothing():
    off = json.dumps({"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4,
                      "enable_adaptive_verification": False})
    plain = json.dumps({"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4})
    a, b = _fit(speculative_config=off, enforce_eager=True), _fit(speculative_config=plain, enforce_eager=True)
    assert a.kv_cache_tokens == b.kv_cache_tokens


def test_0_34_captures_varlen_decode_graphs():
    plain = _fit(speculative_config=json.dumps({"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}))
    adaptive = _fit(speculative_config=_spec())
    g0, g = plain.cudagraphs, adaptive.cudagraphs
    # H100, max_num_seqs 1,024, q = 4: the shared sizes reach 512 tokens = 128 requests of 4
    assert g["adaptive_verification_sizes"] == varlen_decode_capture_grid(512)
    assert "adaptive_verification_sizes" not in g0
    assert set(g0["capture_sizes"]) <= set(g["capture_sizes"])
    assert any("replay 28 token-keyed FULL graphs up to 512 tokens" in a for a in adaptive.assumptions)
    # FULL becomes the separate routine FULL_AND_PIECEWISE
    full = _fit(speculative_config=_spec(), compilation_config='{"cudagraph_mode": "FULL"}')
    assert full.cudagraphs["mode"] == "FULL_AND_PIECEWISE"
    # on a B200 the wider grids: decode up to 1,024 requests x 4 tokens within 8,192 decode tokens
    b200 = _fit(gpu="B200", speculative_config=_spec())
    assert b200.cudagraphs["adaptive_verification_sizes"] == varlen_decode_capture_grid(4096)
    inter = _fit(speculative_config=_spec(), performance_mode="interactivity")
    assert inter.cudagraphs["adaptive_verification_sizes"] == varlen_decode_capture_grid(512, True)
    assert set(range(1, 33)) <= set(inter.cudagraphs["adaptive_verification_sizes"])


def test_varlen_grid():
    grid = varlen_decode_capture_grid(1024)
    assert grid[:8] == [1, 2, 4, 8, 10, 12, 14, 16] and grid[-1] == 1024
    # four sizes per doubling from 8 to 1,024
    assert [s for s in grid if 256 < s <= 512] == [320, 384, 448, 512]
    big = varlen_decode_capture_grid(8192)
    assert [s for s in big if 1024 <= s < 1400] == [1024, 1152, 1280]
    assert [s for s in big if 4096 <= s] == list(range(4096, 8192, 256)) + [8192]
    assert varlen_decode_capture_grid(0) == [] and varlen_decode_capture_grid(5) == [1, 2, 4, 5]
