"""vLLM 0.34.0's extensible KV cache (versions.py kv_pool_sizing "extensible"; kvplan.plan.extensible): the profile's
"Available KV cache memory" is only the capacity reserved (at gpu_memory_utilization 1.0 by default), the pool is what
the memory measured after warmup and CUDA-graph capture leaves, less a margin and the transient peak
(v1/worker/extensible_kv_cache.py measure_kv_cache_bytes, 0.34.0 wheel). Every plan pins its release."""
import json
import math
from dataclasses import replace

import pytest

import kvplan
from kvplan.calibration import GIB
from kvplan.plan.extensible import (GRANULE_BYTES, blocks_within, physical_bytes_for, segment_strides,
                                    startup_used_bytes)
from kvplan.versions import rules_for

NEW, OLD = "0.34.0", "0.33.0"


def _fit(model="Qwen/Qwen3-8B", gpu="H100", version=NEW, **flags):
    flags.setdefault("max_model_len", 8192)
    return kvplan.fit(model, gpu=gpu, vllm_version=version, **flags)


def _terms(p):
    return {t.name: t.value for t in p.terms}


def _log(p, start):
    return [line for line in p.vllm_log if line.startswith(start)]


def test_rules_rows_step_at_0_34():
    assert rules_for(OLD).kv_pool_sizing == "estimate"
    assert rules_for(OLD).extensible_gpu_memory_utilization is None
    assert rules_for(NEW).kv_pool_sizing == "extensible"
    assert rules_for(NEW).extensible_gpu_memory_utilization == 1.0
    assert rules_for(NEW).default_gpu_memory_utilization == 0.92  # the default without it stays


def test_default_start_measures_the_pool_after_warmup():
    old, new = _fit(version=OLD), _fit()
    assert old.args.gpu_memory_utilization == 0.92 and old.kv_pool is None and old.kv_cache_capacity_bytes is None
    assert new.args.gpu_memory_utilization == 1.0
    t = _terms(new)
    assert new.requested_bytes == math.ceil(new.total_bytes * 1.0)
    # the capacity is the profile's arithmetic at utilization 1.0, and is what "Available KV cache memory" logs
    # (no CUDA-graph estimate: model runner v2's profile_cudagraph_memory returns 0 with the extensible KV cache)
    assert t["cudagraph"] == 0 and t["cudagraph_capture"] > 0
    capacity = new.requested_bytes - t["weights"] - t["non_torch"] - t["activation_peak"]
    assert new.kv_cache_capacity_bytes == pytest.approx(capacity)
    assert _log(new, "Available KV cache memory") == [f"Available KV cache memory: {round(capacity / GIB, 2)} GiB"]
    # the pool: min(requested - non_kv_used, init_free - non_kv_used - margin) - P
    init_free = new.total_bytes - startup_used_bytes(new.args)
    non_kv = t["weights"] + t["non_torch"] + t["cudagraph_capture"]
    peak = t["activation_peak"] + t["cudagraph"]
    margin = max(GIB, int(0.75 * peak))
    pool = min(new.requested_bytes - non_kv, init_free - non_kv - margin) - peak
    assert new.kv_pool["available_bytes"] == pytest.approx(pool)
    # the pool is the blocks committed, as 'N KV cache blocks (S GiB)' and 'Extended KV cache to N blocks' log it
    assert new.kv_cache_bytes == new.num_gpu_blocks * new.bytes_per_block
    assert t["init_free"] == init_free and t["margin"] == margin and t["transient_peak"] == peak
    # blocks from the pool, granule-rounded, and tokens / concurrency from those blocks
    assert new.num_gpu_blocks <= pool // new.bytes_per_block
    # (each of the per-layer segments loses at most one 2 MiB granule to the rounding)
    assert new.num_gpu_blocks >= pool // new.bytes_per_block - math.ceil(new.kv_pool["segments"] * GRANULE_BYTES / new.bytes_per_block)
    assert new.num_gpu_blocks != old.num_gpu_blocks and new.kv_cache_tokens > old.kv_cache_tokens
    assert new.kv_pool["num_blocks"] == new.num_gpu_blocks
    assert (f"GPU KV cache size: {new.kv_cache_tokens:,} tokens, Maximum concurrency for 8,192 tokens per request: "
            f"{new.max_concurrency:.2f}x") in new.vllm_log
    assert _log(new, "Memory after warmup: ")
    assert _log(new, f"Extended KV cache to {new.num_gpu_blocks} blocks (")
    # the order vLLM logs them in: capacity, capture, measurement, final size
    order = [next(i for i, line in enumerate(new.vllm_log) if line.startswith(s)) for s in
             ("Available KV cache memory", "Graph capturing finished", "Memory after warmup", "GPU KV cache size",
              "Extended KV cache")]
    assert order == sorted(order)


def test_explain_and_json_carry_every_term():
    p = _fit()
    names = [t.name for t in p.terms]
    for name in ("kv_cache_capacity", "startup_used", "init_free", "cudagraph_capture", "non_kv_used", "transient_peak",
                 "margin", "kv_cache", "num_gpu_blocks"):
        assert name in names
    d = json.loads(json.dumps(p.to_dict()))
    assert d["kv_cache_capacity_bytes"] == pytest.approx(p.kv_cache_capacity_bytes)
    sizing = d["kv_pool_sizing"]
    assert sizing["sizing"] == "extensible" and sizing["granule_bytes"] == 2 << 20
    assert sizing["free_after_warmup_bytes"] == sizing["init_free_bytes"] - sizing["non_kv_used_bytes"] - sizing["committed_bytes"]
    assert _fit(version=OLD).to_dict()["kv_pool_sizing"] is None


@pytest.mark.parametrize("flags", [{"enable_extensible_kv_cache": False}, {"kv_cache_memory_bytes": "20G"}])
def test_fallbacks_plan_the_estimate_at_0_92(flags):
    p = _fit(**flags)
    assert p.kv_pool is None and p.kv_cache_capacity_bytes is None
    assert p.args.gpu_memory_utilization == 0.92
    assert not _log(p, "Memory after warmup")
    if "kv_cache_memory_bytes" not in flags:
        old = _fit(version=OLD)
        assert p.kv_cache_bytes == pytest.approx(old.kv_cache_bytes)
        # (the same bytes in 64-token blocks from 0.34, 16-token ones in 0.33: rules row default_block_size)
        assert p.num_gpu_blocks == int(old.kv_cache_bytes // p.bytes_per_block)


def test_wsl2_has_no_vmm_so_the_estimate_sizes_it():
    p = _fit(gpu="rtx4090", wsl2=True)
    assert p.kv_pool is None and p.args.gpu_memory_utilization == 0.92
    assert any("Disabling the extensible KV cache" in w for w in p.warnings)


def test_explicit_flag_refused_where_vllm_refuses_it():
    with pytest.raises(kvplan.KvplanError, match="kv_cache_memory_bytes overrides"):
        _fit(enable_extensible_kv_cache=True, kv_cache_memory_bytes="20G")
    with pytest.raises(kvplan.KvplanError, match="first in vLLM 0.34.0"):
        _fit(version=OLD, enable_extensible_kv_cache=False)


def test_rocm_margin_floor_is_3_gib():
    p = _fit(gpu="MI300X")
    assert p.kv_pool is not None
    assert _terms(p)["margin"] == max(3 * GIB, int(0.75 * _terms(p)["transient_peak"]))


def test_explicit_utilization_caps_the_pool_and_warns():
    p = _fit(gpu_memory_utilization=0.9)
    t = _terms(p)
    assert p.kv_pool["available_bytes"] == pytest.approx(p.requested_bytes - t["non_kv_used"] - t["transient_peak"])
    withheld = t["init_free"] - t["margin"] - p.requested_bytes
    assert withheld >= GIB
    text = (f"gpu_memory_utilization=0.9 caps this instance at {round(p.requested_bytes / GIB, 2)} GiB, keeping "
            f"{round(withheld / GIB, 2)} GiB of free device memory out of the KV cache.")
    assert any(w.startswith(text) for w in p.warnings)
    assert any(line.startswith("WARNING " + text) for line in p.vllm_log)
    # outside (0.7, 1.0), or under 1 GiB withheld: no warning
    assert not any("caps this instance" in w for w in _fit(gpu_memory_utilization=0.6).warnings)
    assert not any("caps this instance" in w for w in _fit(version=OLD, gpu_memory_utilization=0.9).warnings)


def test_second_fit_check_after_warmup_refuses_with_vllms_hint():
    """Llama-3.1-8B on an L4 at 40,960: 0.34's capacity holds the request (5.0 GiB of 6.2), the pool measured after
    warmup and CUDA-graph capture (less the 1 GiB margin and the transient peak) does not."""
    new = _fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=40960)
    assert new.kv_cache_capacity_bytes > 5 * GIB
    assert not new.fits and new.failure == "memory"
    assert new.kv_cache_capacity_bytes > new.kv_cache_bytes
    assert ("The extensible KV cache already takes all device memory left after the model, its activations, CUDA "
            "graphs and warmup; decrease `max_model_len` or `max_num_seqs`, or the model needs a device with more "
            "memory. CUDA graphs take less with fewer or smaller capture sizes in the compilation config. Decreasing "
            "`max_model_len` also reduces what is needed.") in new.error
    avail = (new.num_gpu_blocks - 1) * new.bytes_per_block
    assert f"the available KV cache memory ({round(avail / GIB, 2)} GiB)" in new.error
    # refused after the capacity lines: Available, capture, measurement, then the error
    assert new.vllm_log[-1] == "ValueError: " + new.error
    assert _log(new, "Memory after warmup")
    assert new.estimated_max_model_len and new.estimated_max_model_len < 40960


def test_fit_error_hint_without_the_extensible_cache():
    p = _fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=131072, enable_extensible_kv_cache=False)
    assert not p.fits
    assert ("Try increasing `gpu_memory_utilization` when initializing the engine (this flag also controls CPU memory "
            "reservation on the CPU backend, despite its name). Decreasing `max_model_len` also reduces what is needed. "
            "See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.") in p.error
    with_it = _fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=131072)
    assert "The extensible KV cache already takes all device memory left after the model and its activations;" in with_it.error
    assert not _log(with_it, "Memory after warmup")  # refused against the capacity, before any warmup


def test_auto_fit_refits_to_the_measured_pool():
    p = _fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=-1)
    assert p.fits
    first = _log(p, "Auto-fit max_model_len: reduced from 131072 to ")
    assert first and first[0].endswith("; the final length is set after CUDA graph capture and warmup")
    tentative = int(first[0].split(" to ")[1].split()[0])
    second = _log(p, f"--max-model-len auto reduced max_model_len from {tentative} to {p.args.max_model_len} (")
    assert second and p.args.max_model_len < tentative
    fixed = _fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=p.args.max_model_len)
    assert fixed.fits and fixed.num_gpu_blocks == p.num_gpu_blocks


def test_blocks_within_rounds_each_segment_to_the_granule():
    strides = [3 * 2 ** 20 // 4] * 4  # four layers of 768 KiB pages
    bpb = sum(strides)
    # two blocks map 1.5 MiB per segment -> one 2 MiB granule each: 8 MiB for 6 MiB of blocks
    assert physical_bytes_for(2, strides) == 4 * GRANULE_BYTES
    assert blocks_within(6 * 2 ** 20, bpb, strides, 100) == 0  # even one block maps a granule per segment
    assert blocks_within(8 * 2 ** 20, bpb, strides, 100) == 2
    assert blocks_within(16 * 2 ** 20, bpb, strides, 100) == 5  # 3.75 MiB per segment -> two granules each
    assert blocks_within(8 * 2 ** 20, bpb, strides, 1) == 1  # at most the capacity
    assert blocks_within(0, bpb, strides, 100) == 0


def test_segments_are_the_layer_regions():
    p = _fit()
    strides = segment_strides(p.groups, p.bytes_per_block)
    assert len(strides) == p.model.num_layers and sum(strides) == p.bytes_per_block
    assert p.kv_pool["segments"] == p.model.num_layers


def test_refused_start_is_offered_the_estimate_sizing_as_a_fix():
    # Qwen3-4B on a T4 at 32,000: on a 15 GiB card the 1 GiB margin and the context outweigh the 8 % utilization 1.0
    # adds, so the estimate at 0.92 holds the request where the measured pool does not
    p = _fit("Qwen/Qwen3-4B", "T4", max_model_len=32000)
    assert not p.fits and p.failure == "memory"
    fix = next(f for f in p.fixes if f.flags == {"enable_extensible_kv_cache": False})
    assert fix.fits and fix.command_text == "--no-enable-extensible-kv-cache"
    old = _fit("meta-llama/Llama-3.1-8B-Instruct", "L4", version=OLD, max_model_len=131072)
    assert not old.fits and not any(f.flags == {"enable_extensible_kv_cache": False} for f in old.fixes)



def _l4_machine(used_mib):
    from types import SimpleNamespace as NS

    from kvplan import preflight as pf

    def nvml_absent():
        raise RuntimeError("NVML Shared Library Not Found")

    return pf.gather_facts(
        {"HOME": "/root"}, nvml=NS(nvmlInit=nvml_absent, nvmlShutdown=lambda: None),
        run_nvidia_smi=lambda: f"NVIDIA L4, 23034, {used_mib}, 8.9, 580.95.05\n",
        mounts_text="overlay / overlay rw 0 0\n", os_name="Linux", kernel_release="6.8.0", proc_version="",
        python_version=(3, 12, 3), installed_version=lambda name: None, disk_free=lambda p: 500 * GIB, home="/root",
        is_file=lambda p: False, rocm_device=False, nvidia_pci_device=False)


def test_preflight_does_not_refuse_an_extensible_start_below_its_budget():
    """vLLM 0.34 with the extensible KV cache skips request_memory's free-memory check (the budget is only a cap): a
    0.34 plan at utilization 1.0 is not refused for free < total; what others hold is said to come out of the pool."""
    from kvplan import preflight as pf
    from kvplan.api import FitFlags
    from kvplan.cli.preflight import build_request

    new, _ = build_request(None, FitFlags(vllm_version=NEW), None)
    old, _ = build_request(None, FitFlags(vllm_version=OLD), None)
    off, _ = build_request(None, FitFlags(vllm_version=NEW, enable_extensible_kv_cache=False), None)
    assert new.extensible_kv_cache and new.gpu_memory_utilization == 1.0
    assert not old.extensible_kv_cache and old.gpu_memory_utilization == 0.92
    assert not off.extensible_kv_cache and off.gpu_memory_utilization == 0.92
    plan_req = pf.request_from_plan(_fit())
    assert plan_req.extensible_kv_cache and plan_req.gpu_memory_utilization == 1.0
    idle, busy = _l4_machine(0), _l4_machine(4096)
    assert [f.status for f in pf.check_memory_free(idle, new)] == ["pass"]
    said = pf.check_memory_free(busy, new)
    assert [f.status for f in said] == ["warn"] and "comes out of it" in said[0].message
    # the estimate's start is refused below its budget, as before
    assert [f.status for f in pf.check_memory_free(_l4_machine(2048), replace(new, extensible_kv_cache=False))] == ["fail"]
    # (not refused: 2 GiB in use is a warning that it comes out of the pool)
    assert [f.status for f in pf.check_memory_free(_l4_machine(2048), new)] == ["warn"]


def test_a_compiling_first_start_also_grows_the_margin():
    """The compile's transient (Inductor's embedding copy, ColdStartLoss.least) is part of the transient peak P, so the
    extensible KV cache keeps 0.75 x it more free on a first start: the cold-start loss grows by that much."""
    # Qwen3-14B on an L40S: the compile's 0.99 GiB above a 0.58 GiB peak puts 0.75 x P over the 1 GiB floor (Qwen3-8B
    # on an RTX 4090, 0.60 above 0.58, stays under it, and an H100's 2.3 GiB peak already covers the copy)
    p = _fit("Qwen/Qwen3-14B", gpu="L40S")
    estimate = _fit("Qwen/Qwen3-14B", gpu="L40S", enable_extensible_kv_cache=False)
    least = estimate.first_start["loss_bytes_least"]
    assert least > 0
    peak = _terms(p)["transient_peak"]
    grown = max(GIB, int((peak + least) * 0.75)) - max(GIB, int(peak * 0.75))
    assert grown > 0
    assert p.first_start["loss_bytes_least"] == least + grown
    assert p.first_start["loss_bytes_most"] == estimate.first_start["loss_bytes_most"] + grown


def test_release_changes_name_what_the_sizing_after_warmup_takes():
    # a sweep across 0.33.0 -> 0.34.0 names the post-warmup terms (capture, device headroom) instead of an unnamed
    # residual, and does not blame capture sizes for the missing CUDA-graph estimate
    from kvplan.api import release_changes
    old, new = _fit(version=OLD), _fit()
    changes = release_changes(old, new)
    text = "; ".join(changes)
    assert "capture sizes or graph mode" not in text and "other budget terms" not in text
    sized = next(c for c in changes if c.startswith("KV pool sized after warmup"))
    pool = new.kv_pool
    capture = new.kv_cache_capacity_bytes - pool["budget_cap_bytes"]
    kept = pool["budget_cap_bytes"] - pool["available_bytes"]
    assert f"the captured CUDA graphs {capture / GIB:.2f} GiB" in sized
    assert f"{kept / GIB:.2f} GiB of the budget the device cannot hold with a {pool['margin_bytes'] / GIB:.2f} GiB margin" in sized
    # the other direction names the same sizing, and leaves no unnamed residual either
    back = "; ".join(release_changes(new, old))
    assert "KV pool sized after warmup" in back and "other budget terms" not in back


def test_unified_memory_gpu_says_the_os_free_memory_sizes_the_pool():
    # on GB10 vLLM 0.34 reads free memory as the OS's available memory (utils/mem_utils.py device_memory_info): the
    # pool then depends on what the OS and other processes hold, which the plan must say it cannot see
    p = _fit(gpu="GB10")
    assert p.kv_pool is not None
    said = [w for w in p.warnings if w.startswith("unified memory")]
    assert len(said) == 1 and "device_memory_info" in said[0] and "--gpu-memory-utilization" in said[0]
    assert f"{p.kv_pool['startup_used_bytes'] / GIB:.1f} GiB in use" in said[0]
    # a discrete GPU, and the estimate's sizing on the unified-memory GPU, say nothing of it
    assert not [w for w in _fit().warnings if w.startswith("unified memory")]
    assert not [w for w in _fit(gpu="GB10", version=OLD).warnings if w.startswith("unified memory")]
    startup = next(t for t in p.terms if t.name == "startup_used")
    assert "not fitted" in startup.formula


def test_scaffold_leaves_the_extensible_default_utilization_unset():
    # vLLM 0.34 resolves an unset gpu_memory_utilization to 1.0 with the extensible KV cache and to 0.92 where the start
    # falls back to the estimate (CacheConfig.resolved_gpu_memory_utilization); a written 1.0 would survive the fallback
    # and request_memory would then refuse the start (free < 1.0 x total)
    from kvplan.deploy import spec_from_plan
    argv = spec_from_plan(_fit(gpu="L4", max_model_len=16384)).serve_argv()
    assert "--gpu-memory-utilization" not in argv
    # a utilization given is written as given, and the estimate's sizing keeps writing its own
    argv = spec_from_plan(_fit(gpu="L4", max_model_len=16384, gpu_memory_utilization=0.9)).serve_argv()
    assert argv[argv.index("--gpu-memory-utilization") + 1] == "0.9"
    argv = spec_from_plan(_fit(gpu="L4", max_model_len=16384, version=OLD)).serve_argv()
    assert argv[argv.index("--gpu-memory-utilization") + 1] == "0.92"
    argv = spec_from_plan(_fit(gpu="L4", max_model_len=16384, enable_extensible_kv_cache=False)).serve_argv()
    assert argv[argv.index("--gpu-memory-utilization") + 1] == "0.92" and "--no-enable-extensible-kv-cache" in argv
