"""vLLM 0.34's prefill CUDA-graph token counts from --compilation-config (prefill_cudagraph_capture_token_sizes,
max_prefill_cudagraph_capture_tokens), its refusal of them beside the deprecated shared sizes, and what earlier
releases do with the split keys (config/vllm.py VllmConfig._split_cudagraph_capture_sizes, config/compilation.py
prefill_cudagraph_capture_grid and CompilationConfig, 0.34.0 wheel; CompilationConfig's extra="forbid" from 0.13.0)."""

from __future__ import annotations

import json

import pytest

import kvplan
from kvplan.errors import RefusedByVLLMError

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def _plan(comp: dict | None = None, version: str = "0.34.0", **kw):
    kw.setdefault("max_model_len", 8192)
    return kvplan.fit(LLAMA, "H100", vllm_version=version, compilation_config=json.dumps(comp) if comp else None, **kw)


def _graphs(p) -> dict:
    return p.cudagraphs if isinstance(p.cudagraphs, dict) else p.cudagraphs.to_dict()


def _prefill_grid(max_tokens: int) -> list[int]:
    """vLLM's rule, spelled out: 1, 2, 4, every 8 up to 64, four sizes per doubling up to 1024, then every 256
    (below 7,314 tokens), and max_tokens itself."""
    grid = [1, 2, 4, *range(8, 65, 8)]
    low = 64
    while low < 1024:
        grid += list(range(low + low // 4, 2 * low + 1, low // 4))
        low *= 2
    grid += list(range(1024 + 256, 7314, 256))
    return sorted({s for s in grid if s < max_tokens} | {max_tokens})


def test_a_given_prefill_list_is_deduplicated_sorted_and_kept_within_the_token_budget():
    given = [512, 1, 2, 0, 4, 4, 64, 20000]
    p = _plan({"prefill_cudagraph_capture_token_sizes": given}, max_num_batched_tokens=8192)
    g = _graphs(p)
    assert g["prefill_capture_sizes"] == sorted({s for s in given if 1 <= s <= 8192})
    base = _plan(max_num_batched_tokens=8192)
    gb = _graphs(base)
    # the decode graphs still come off the shared default sizes; the recorded sizes are their union with the prefill
    assert g["decode_capture_requests"] == gb["decode_capture_requests"]
    assert g["capture_sizes"] == sorted(set(gb["decode_capture_requests"]) | set(g["prefill_capture_sizes"]))
    # fewer PIECEWISE graphs than the default's 51: less graph memory, more KV cache
    assert len(gb["prefill_capture_sizes"]) > len(g["prefill_capture_sizes"])
    assert p.cudagraph_capture_bytes < base.cudagraph_capture_bytes
    assert p.kv_cache_tokens > base.kv_cache_tokens


def test_an_empty_prefill_list_captures_no_piecewise_graph():
    g = _graphs(_plan({"prefill_cudagraph_capture_token_sizes": []}))
    assert g["prefill_capture_sizes"] == []
    assert g["full_decode_graphs"] > 0


@pytest.mark.parametrize("cap,mnbt", [(2048, 8192), (100000, 4096), (100, 8192)])
def test_max_prefill_tokens_alone_takes_the_token_grid_up_to_it_within_the_budget(cap, mnbt):
    g = _graphs(_plan({"max_prefill_cudagraph_capture_tokens": cap}, max_num_batched_tokens=mnbt))
    assert g["prefill_capture_sizes"] == _prefill_grid(min(cap, mnbt))


def test_a_prefill_list_above_the_given_cap_is_refused_with_vllms_message():
    comp = {"prefill_cudagraph_capture_token_sizes": [1, 2, 512], "max_prefill_cudagraph_capture_tokens": 256}
    with pytest.raises(RefusedByVLLMError) as e:
        _plan(comp)
    assert e.value.field == "--compilation-config"
    assert "prefill_cudagraph_capture_token_sizes holds 512, above max_prefill_cudagraph_capture_tokens=256." \
        in e.value.message
    # within the cap (after dropping what is past max_num_batched_tokens) it is taken
    ok = _graphs(_plan({"prefill_cudagraph_capture_token_sizes": [1, 2, 256, 9000],
                        "max_prefill_cudagraph_capture_tokens": 256}, max_num_batched_tokens=8192))
    assert ok["prefill_capture_sizes"] == [1, 2, 256]


def test_deprecated_sizes_beside_split_sizes_are_refused_unless_they_are_the_union_or_the_decode_tokens():
    # decode request counts 1, 2, 16 at q = 1 make decode tokens {1, 2, 16}; the prefill sizes default to the shared
    # [1, 2, 4, 8]: neither the union {1, 2, 4, 8, 16} nor the decode tokens is [1, 2, 4, 8]
    comp = {"cudagraph_capture_sizes": [1, 2, 4, 8], "decode_cudagraph_capture_request_sizes": [1, 2, 16]}
    with pytest.raises(RefusedByVLLMError) as e:
        _plan(comp)
    assert "The deprecated cudagraph_capture_sizes and max_cudagraph_capture_size cannot be combined with the " \
           "prefill and decode CUDA graph capture sizes; set only the latter." in e.value.message
    assert "decode_cudagraph_capture_request_sizes" in e.value.fix
    # the prefill list [1, 2, 4, 8, 16] with decode counts from the shared sizes (1, 2, 4, 8 at q = 1): the decode
    # tokens are the shared sizes, so vLLM takes it and records the shared sizes as they are
    g = _graphs(_plan({"cudagraph_capture_sizes": [1, 2, 4, 8], "prefill_cudagraph_capture_token_sizes": [16, 1, 2, 4, 8]}))
    assert g["prefill_capture_sizes"] == [1, 2, 4, 8, 16]
    assert g["capture_sizes"] == [1, 2, 4, 8]


@pytest.mark.parametrize("via", ["flag", "compilation_config"])
def test_a_deprecated_largest_size_beside_split_lists_is_held_to_its_grid(via):
    # max_cudagraph_capture_size alone builds the default grid up to it (config/vllm.py VllmConfig._set_cudagraph_sizes,
    # 0.34.0 wheel): 8 -> [1, 2, 4, 8], 16 -> [1, 2, 4, 8, 16]. Beside split lists that grid is the shared list
    # _split_cudagraph_capture_sizes holds to the union or the decode tokens: lists [1, 2, 4, 8] at q = 1 match the
    # first and not the second
    def plan(top, prefill):
        comp = {"prefill_cudagraph_capture_token_sizes": prefill, "decode_cudagraph_capture_request_sizes": [1, 2, 4, 8]}
        if via == "flag":
            return _plan(comp, max_cudagraph_capture_size=top)
        return _plan({**comp, "max_cudagraph_capture_size": top})

    g = _graphs(plan(8, [1, 2, 4, 8]))
    assert g["capture_sizes"] == [1, 2, 4, 8] and g["largest"] == 8
    with pytest.raises(RefusedByVLLMError) as e:
        plan(16, [1, 2, 4, 8])
    assert "cannot be combined" in e.value.message
    # the grid equal to the decode tokens alone is taken too; the prefill graphs keep their own list, which the
    # recorded largest size does not bound (v1/worker/gpu/cudagraph_utils.py CudaGraphManager._init_candidates)
    g = _graphs(plan(8, [1, 2, 4, 8, 16]))
    assert g["capture_sizes"] == [1, 2, 4, 8] and g["prefill_capture_sizes"] == [1, 2, 4, 8, 16]


@pytest.mark.parametrize("version", ["0.13.0", "0.20.0", "0.33.0"])
@pytest.mark.parametrize("key,value", [("prefill_cudagraph_capture_token_sizes", [1, 2, 4]),
                                       ("max_prefill_cudagraph_capture_tokens", 256),
                                       ("decode_cudagraph_capture_request_sizes", [1, 2])])
def test_releases_with_a_strict_compilation_config_refuse_the_split_keys(version, key, value):
    with pytest.raises(RefusedByVLLMError) as e:
        _plan({key: value}, version=version)
    assert e.value.message.startswith("1 validation error for CompilationConfig")
    assert f"{key}\n  Unexpected keyword argument" in e.value.message
    assert "0.34.0" in e.value.fix


@pytest.mark.parametrize("version", ["0.10.2", "0.12.0"])
def test_releases_before_the_strict_compilation_config_ignore_the_split_keys(version):
    p = _plan({"prefill_cudagraph_capture_token_sizes": [1, 2, 4], "max_prefill_cudagraph_capture_tokens": 4},
              version=version)
    base = _plan(version=version)
    assert _graphs(p)["capture_sizes"] == _graphs(base)["capture_sizes"]
    assert p.kv_cache_tokens == base.kv_cache_tokens
