"""vLLM 0.34.0's startup log: the extensible KV cache's post-warmup sizing, its era, its refusals, and reconcile's
reading of its measured terms. Lines are written from the 0.34.0 wheel's format strings (the log file in tests/data
says so in its first line; it is not a real startup)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from kvplan.diagnose import diagnose
from kvplan.logs import SIGNATURES_BY_NAME, parse_lines, parse_log
from kvplan.reconcile import reconcile, version_from_log_format
from kvplan.validate import log_format_era, version_basis
from kvplan.versions import rule_at

GIB = 2**30
LOG = Path(__file__).parent / "data" / "constructed_extensible_qwen3_8b_h100_v0340.log"
P = "(EngineCore pid=2211) INFO 11-20 09:13:02 [extensible_kv_cache.py:693] "
WARMUP = ("Memory after warmup: 61.3 GiB free, 0.02 GiB committed to the KV cache, 2.41 GiB kept for transient "
          "activations (2.41 GiB allocated at peak, 1.12 GiB of torch reservation growth); 6496 KV cache blocks "
          "(57.09 GiB) fit within the requested 79.19 GiB. Torch may reserve up to 19.77 GiB.")


def _versionless():
    return [line for line in LOG.read_text().splitlines() if "version 0.34" not in line and "(v0.34" not in line]


def test_memory_after_warmup_line_is_read_term_by_term():
    log = parse_log(LOG)
    assert (log.warmup_free_gib, log.warmup_committed_gib, log.transient_kept_gib, log.transient_peak_gib,
            log.torch_growth_gib, log.warmup_kv_blocks, log.warmup_kv_gib, log.warmup_requested_gib,
            log.torch_limit_gib) == (61.3, 0.02, 2.41, 2.41, 1.12, 6496, 57.09, 79.19, 19.77)
    assert (log.extended_kv_blocks, log.extended_kv_gib) == (6496, 57.09)
    assert log.extensible_kv_cache is True
    assert not log.unrecognised and not log.parse_warnings


def test_the_pool_is_the_measured_one_not_the_profiles_estimate():
    log = parse_log(LOG)
    # "Available KV cache memory: 60.3 GiB" is the capacity the address range was reserved for; the pool is the
    # post-warmup "6496 KV cache blocks (57.09 GiB)"
    assert log.kv_cache_gib == 57.09 and log.profiled_kv_cache_gib == 60.3
    assert log.num_gpu_blocks == 6496 and log.kv_cache_tokens == 415744 and log.max_concurrency == 10.15
    assert log.started is True and log.fits is True
    observed = log.to_record()["observed"]
    assert observed["kv_cache_gib"] == 57.09 and observed["transient_kept_gib"] == 2.41


def test_a_log_without_the_line_keeps_its_record_unchanged():
    lines = [line for line in LOG.read_text().splitlines() if "Memory after warmup" not in line
             and "Extended KV cache" not in line]
    log = parse_lines(lines)
    assert log.kv_cache_gib == 60.3 and log.profiled_kv_cache_gib is None and log.extensible_kv_cache is None
    assert "transient_kept_gib" not in log.to_record()["observed"]


def test_smallest_rank_sizes_the_pool():
    lines = [f"(Worker_TP0 pid=11) INFO 11-20 09:13:02 [extensible_kv_cache.py:693] {WARMUP}",
             "(Worker_TP1 pid=12) INFO 11-20 09:13:02 [extensible_kv_cache.py:693] "
             + WARMUP.replace("6496 KV cache blocks (57.09 GiB)", "6375 KV cache blocks (56.03 GiB)")]
    log = parse_lines(lines)
    assert (log.warmup_kv_blocks, log.kv_cache_gib, log.num_gpu_blocks) == (6375, 56.03, 6375)


def test_a_versionless_log_with_the_line_is_read_as_0_34():
    log = parse_lines(_versionless())
    assert log.vllm_version is None
    assert log.era == rule_at("era", (0, 34, 0))
    rules, first, _, what = log_format_era(log.to_record()["observed"])
    assert (rules, first) == ("0.34.0", "0.34.0") and "Memory after warmup" in what
    assert version_from_log_format(log)[0] == "0.34.0"
    record = dict(log.to_record(), model={"id": "Qwen/Qwen3-8B"})
    assert version_basis(record) == ("0.34.0", "log format")


def test_the_line_precedes_the_v0_reading_of_a_block_count_without_tokens():
    # a start refused after warmup prints the blocks but no token line: without the 0.34 rule that read as V0
    log = parse_lines([P + WARMUP])
    assert log_format_era(log.to_record()["observed"])[0] == "0.34.0"


def test_validate_accepts_the_records_transient_figure():
    from kvplan.validate import _check_fields

    record = {"model": {"id": "Qwen/Qwen3-8B"}, "observed": {"kv_cache_gib": 57.1, "transient_kept_gib": 2.41}}
    _check_fields(record)  # an unknown observed key is refused


def test_auto_fit_length_after_warmup_replaces_the_tentative_one():
    lines = [
        "INFO [kv_cache_planning.py:1478] Auto-fit max_model_len: reduced from 131072 to 60000 to fit in available KV "
        "cache memory (9.5 GiB GPU); the final length is set after CUDA graph capture and warmup",
        P + WARMUP,
        "INFO [kv_cache_planning.py:1494] --max-model-len auto reduced max_model_len from 131072 to 52000 (8.1 GiB GPU left "
        "for the KV cache after CUDA graph capture and warmup).",
    ]
    assert parse_lines(lines).max_model_len == 52000
    kept = lines[:2] + ["INFO [kv_cache_planning.py:1458] Auto-fit max_model_len: using max_model_len=60000, which fits "
                        "in the KV cache memory left after CUDA graph capture and warmup (9.4 GiB GPU)."]
    assert parse_lines(kept).max_model_len == 60000


def test_budget_after_disk_fallback_is_the_requested_budget():
    log = parse_lines(["INFO [gpu_worker.py:607] Updated engine memory budget after disk fallback: 70.5 GiB"])
    assert log.requested_gib == 70.5


def test_extensible_cache_turned_off_is_read_and_noted():
    line = ("WARNING [abstract.py:175] Disabling the extensible KV cache: the HIP runtime (6.4) rejects hipMemSetAccess "
            "for an allocation that is not the first in its virtual-address reservation (ROCm/rocm-systems#2516, fixed "
            "by ROCm/rocm-systems#2451 in TheRock 7.12 and later). The KV cache will be sized from profiling estimates "
            "instead of measured memory.")
    log = parse_lines([line])
    assert log.extensible_kv_cache is False
    assert any("extensible KV cache was disabled" in w for w in log.warnings)
    notes = reconcile(log).notes
    assert any("extensible KV cache was off (the HIP runtime (6.4)" in n for n in notes)


def test_utilization_below_one_warning_is_read():
    line = ("WARNING [extensible_kv_cache.py:662] gpu_memory_utilization=0.9 caps this instance at 71.27 GiB, keeping "
            "7.35 GiB of free device memory out of the KV cache. The extensible KV cache is sized from the memory "
            "measured after warmup and CUDA graph capture, so vLLM's own use needs no headroom below 1.0.")
    log = parse_lines([line, P + WARMUP])
    assert log.gpu_memory_utilization == 0.9
    assert any("kept 7.35 GiB of free GPU memory" in n for n in reconcile(log).notes)


# ---- reconcile ------------------------------------------------------------------------------------------------------

def _plan(**terms):
    base = dict(weights_bytes=15.27 * GIB, activation_peak_bytes=2.87 * GIB, non_torch_bytes=0.75 * GIB,
                cudagraph_capture_bytes=0.61 * GIB, cudagraph_bytes=0.61 * GIB, kv_cache_bytes=60.4 * GIB,
                requested_bytes=79.19 * GIB, num_gpu_blocks=None, kv_cache_tokens=None, max_concurrency=None,
                block_size=16, args=SimpleNamespace(max_model_len=40960), vllm_version="0.34.0", fits=True)
    base.update(terms)
    return SimpleNamespace(**base)


def test_reconcile_lines_up_the_measured_terms_with_the_plans():
    r = reconcile(parse_log(LOG), _plan(transient_kept_bytes=2.0 * GIB))
    rows = {row.term: row for row in r.rows}
    assert rows["transient_kept_gib"].observed == 2.41 and rows["transient_kept_gib"].predicted == pytest.approx(2.0)
    assert rows["requested_gib"].observed == 79.19 and rows["requested_gib"].predicted == pytest.approx(79.19)
    note = next(n for n in r.notes if n.startswith("vLLM sized the KV cache after warmup"))
    assert "kept 2.41 GiB for transients (plan: 2.00)" in note and "'requested' of 79.19 GiB (plan: 79.19)" in note
    assert "60.3 GiB ('Available KV cache memory')" in note


def test_a_plan_without_the_term_compares_nothing_for_it():
    # a plan made by rules without the extensible KV cache carries no transient term
    r = reconcile(parse_log(LOG), _plan())
    rows = {row.term: row for row in r.rows}
    assert rows["transient_kept_gib"].predicted is None
    assert r.largest_gap["term"] == "kv_cache_gib" and "sized after warmup" in r.largest_gap["likely_cause"]


def test_the_transients_kept_are_named_when_they_moved_the_pool():
    # the plan kept 0.5 GiB for transients where vLLM kept 2.41: its pool is larger by about as much
    r = reconcile(parse_log(LOG), _plan(transient_kept_bytes=0.5 * GIB, kv_cache_bytes=59.0 * GIB,
                                        weights_bytes=15.27 * GIB))
    assert r.largest_gap["term"] == "transient_kept_gib"
    assert "vLLM kept 2.41 GiB for transient activations after warmup (plan: 0.50)" in r.largest_gap["likely_cause"]


def test_reconcile_of_an_older_log_has_no_extensible_rows():
    lines = [line for line in LOG.read_text().splitlines() if "Memory after warmup" not in line]
    r = reconcile(parse_lines(lines), _plan())
    assert not {"transient_kept_gib", "requested_gib"} & {row.term for row in r.rows}


# ---- 0.34.0's refusals ----------------------------------------------------------------------------------------------

FIT_ALL = ("ValueError: To serve at least one request with the model's max seq len (40960), (5.62 GiB KV cache is needed, "
           "which is larger than the available KV cache memory (4.38 GiB). Based on the available memory, the estimated "
           "maximum model length is 31888. The extensible KV cache already takes all device memory left after the model, "
           "its activations, CUDA graphs and warmup; decrease `max_model_len` or `max_num_seqs`, or the model needs a "
           "device with more memory. CUDA graphs take less with fewer or smaller capture sizes in the compilation config. "
           "Decreasing `max_model_len` also reduces what is needed. See "
           "https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.")


def test_fit_refusal_at_full_utilization_does_not_advise_raising_it():
    log = parse_lines([P + WARMUP, FIT_ALL])
    assert log.has("err_fit_extensible_all_memory") and not log.has("err_fit")
    assert (log.fits, log.started, log.estimated_max_model_len, log.max_model_len) == (False, False, 31888, 40960)
    top = diagnose(log).top
    assert (top.symptom, top.layer) == ("max_seq_len_exceeds_kv", "memory_budget")
    assert "31888" in top.fix and "raising --gpu-memory-utilization does not help" in top.fix
    assert "the model, its activations, CUDA graphs and warmup" in top.cause


def test_fit_refusal_below_full_utilization_keeps_the_raise_advice():
    line = FIT_ALL.replace(
        "The extensible KV cache already takes all device memory left after the model, its activations, CUDA graphs and "
        "warmup; decrease `max_model_len` or `max_num_seqs`, or the model needs a device with more memory.",
        "The KV cache gets what is left after the model, its activations, CUDA graphs and warmup within "
        "`gpu_memory_utilization`=0.9; increase it (with the extensible KV cache it defaults to 1.0) or decrease "
        "`max_model_len` or `max_num_seqs`.")
    log = parse_lines([line])
    assert log.has("err_fit") and not log.has("err_fit_extensible_all_memory")
    assert "--gpu-memory-utilization" in diagnose(log).top.fix


@pytest.mark.parametrize("line, name, symptom, layer", [
    ("ValueError: No available memory for the cache blocks. The extensible KV cache already takes all device memory "
     "left after the model and its activations; decrease `max_model_len` or `max_num_seqs`, or the model needs a "
     "device with more memory. See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.",
     "err_no_blocks_extensible", "no_cache_blocks", "memory_budget"),
    ("ValueError: Cannot auto-fit max_model_len: not enough GPU memory available to serve even a single token. CUDA "
     "graph capture and warmup left no memory for the KV cache. Increase `gpu_memory_utilization`, reduce the memory "
     "CUDA graphs take (fewer or smaller capture sizes in the compilation config), or use more GPUs.",
     "err_autofit_after_warmup", "no_cache_blocks", "memory_budget"),
    ("ValueError: enable_extensible_kv_cache: it sizes the KV cache from measured memory, which kv_cache_memory_bytes "
     "overrides.", "err_extensible_unsupported", "invalid_engine_flags", "vllm_version_flags"),
    ("pydantic_core._pydantic_core.ValidationError: 1 validation error for VllmConfig\n  Value error, "
     "enable_extensible_kv_cache: it is only supported on CUDA and ROCm. [type=value_error, input_value=ArgsKwargs(())]",
     "err_extensible_unsupported", "invalid_engine_flags", "vllm_version_flags"),
    ("RuntimeError: A KV connector (e.g. LMCacheMPConnector with lmcache.mp.use_vmm_api) imports the KV cache through "
     "POSIX file descriptors, which needs the extensible KV cache, but GPU driver error 801: operation not supported.",
     "err_extensible_fd_connector", "invalid_engine_flags", "nvidia_driver"),
    ("ValueError: The KV connector allocates the KV cache from its own memory pool, which the extensible KV cache cannot "
     "use. Disable it with --no-enable-extensible-kv-cache.", "err_connector_pool_extensible", "invalid_engine_flags",
     "vllm_version_flags"),
    ("ValueError: vLLM's model runner requires Triton.", "src_model_runner_needs_triton", "invalid_engine_flags",
     "pytorch_wheel"),
    ("ValueError: The GPU model runner does not support: LoRA with speculative decoding",
     "src_gpu_model_runner_unsupported", "invalid_engine_flags", "vllm_version_flags"),
])
def test_0_34_refusals_are_diagnosed(line, name, symptom, layer):
    log = parse_lines(line.split("\n"))
    assert log.has(name) and log.started is False
    top = diagnose(log).top
    assert (top.symptom, top.layer) == (symptom, layer)
    assert SIGNATURES_BY_NAME[name].versions == ">=0.34"


def test_messages_gone_from_0_34_say_so():
    # V1's GPU model runner (v1/worker/gpu_model_runner.py) is not in the 0.34.0 wheel
    for name in ("graph_estimate", "graph_profile", "err_load_model_oom", "src_mrv2_needs_triton",
                 "model_runner_v2_unsupported", "load_model_start"):
        assert SIGNATURES_BY_NAME[name].versions.endswith("0.33") or SIGNATURES_BY_NAME[name].versions.endswith("0.33.0")


def test_no_imex_channel_warning_is_read():
    log = parse_lines(["WARNING [vllm.py:3265] No IMEX channel: with the extensible KV cache, KV transfers within a host "
                       "(e.g. NIXL) fall back to TCP. Transfers across hosts use RDMA."])
    assert any("no IMEX channel" in w for w in log.warnings) and log.started is not False


def test_summary_activation_without_an_estimate_under_the_extensible_cache():
    # VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0 under the extensible KV cache: 0.34.0 prints no 'disabled' warning and no
    # estimate; the summary's peak activation is then the profile's own
    summary = ("INFO [gpu_worker.py:1175] Free memory on device (78.62/79.19 GiB) on startup. Desired GPU memory utilization "
               "is (1.0, 79.19 GiB). Actual usage is 16.48 GiB for consumed memory (weights + non-torch), 2.87 GiB for peak "
               "activation, and 0.61 GiB for CUDAGraph memory. Replace gpu_memory_utilization config with "
               "`--kv-cache-memory=1` (0.0 GiB) to fit into requested memory, or `--kv-cache-memory=1` (0.0 GiB) to fully "
               "utilize gpu memory. Current kv cache memory in use is 59.84 GiB.")
    log = parse_lines([summary, P + WARMUP])
    assert log.activation_peak_gib == 2.87 and not log.parse_warnings
    # where the log shows an estimate was applied, it is still taken off (0.85 GiB in the pool line)
    pool = "INFO [gpu_worker.py:1112] CUDA graph pool memory: 0.61 GiB (actual), 0.85 GiB (estimated), difference: 0.24 GiB (39.3%)."
    assert parse_lines([pool, summary, P + WARMUP]).activation_peak_gib == 2.02


def test_a_log_that_stops_after_the_measurement_says_where():
    lines = LOG.read_text().splitlines()
    cut = lines[:next(i for i, line in enumerate(lines) if "Memory after warmup" in line) + 1]
    # capture and the summary line come before the final sizing, which can still refuse the start: not yet a start
    assert parse_lines(cut).started is None
    notes = diagnose(parse_lines(cut)).notes
    assert any("once the KV cache was measured" in n for n in notes)
    cut = lines[:next(i for i, line in enumerate(lines) if "Extended KV cache" in line) + 1]
    assert parse_lines(cut).started is True


def test_the_after_warmup_note_sets_the_plans_free_memory_beside_the_logs():
    """The note printed '... kept 2.41 GiB for transients (plan: 2.32) (2.41 GiB allocated at peak, ...)' and gave no
    plan figure for the memory free after warmup, the one the pool is sized from; a 0.34 plan carries it
    (kv_pool free_after_warmup_bytes)."""
    import kvplan

    plan = kvplan.fit("Qwen/Qwen3-8B", "H100", max_model_len=40960, vllm_version="0.34.0")
    note = next(n for n in reconcile(parse_log(LOG), plan).notes if n.startswith("vLLM sized the KV cache after warmup"))
    free = plan.kv_pool["free_after_warmup_bytes"] / GIB
    assert f"61.3 GiB was free (plan: {free:.2f})" in note
    assert ") (" not in note
    assert "the larger of 2.41 GiB allocated at peak and 1.12 GiB of torch reservation growth" in note


def test_the_constructed_log_agrees_with_the_034_source():
    # with the extensible KV cache 0.34.0 makes no CUDA-graph estimate (GPUModelRunner.profile_cudagraph_memory returns
    # 0), so no estimate line prints, "Available KV cache memory" is requested - consumed - peak activation, and the
    # transient peak kept after warmup starts from that peak activation (reserved_headroom_bytes)
    text = LOG.read_text()
    assert "CUDA graph memory profiling is enabled" not in text and "(estimated)" not in text
    log = parse_log(LOG)
    assert log.profiled_kv_cache_gib == pytest.approx(79.19 - 16.48 - log.activation_peak_gib, abs=0.011)
    assert log.transient_peak_gib >= log.activation_peak_gib
    # the pool: min(requested - non_kv_used, free + committed - margin) - transient, in whole blocks
    non_kv = 78.62 - log.warmup_free_gib - log.warmup_committed_gib
    margin = max(1.0, 0.75 * log.transient_peak_gib)
    kv = min(log.warmup_requested_gib - non_kv, log.warmup_free_gib + log.warmup_committed_gib - margin)
    kv -= max(log.transient_peak_gib, log.torch_growth_gib)
    assert log.warmup_kv_gib <= kv < log.warmup_kv_gib + 36 * 2 / 1024 + 0.01


def test_reconcile_sets_the_capacity_and_the_free_memory_after_warmup_beside_the_plans():
    # the profile's capacity and the memory free after warmup each isolate part of the sizing: the first the profile's
    # terms, the second the memory in use before vLLM's snapshot and the captured graphs
    import kvplan
    plan = kvplan.fit("Qwen/Qwen3-8B", gpu="H100", vllm_version="0.34.0", max_model_len=40960)
    rows = {row.term: row for row in reconcile(parse_log(LOG), plan).rows}
    assert rows["kv_cache_capacity_gib"].observed == 60.3
    assert rows["kv_cache_capacity_gib"].predicted == pytest.approx(plan.kv_cache_capacity_bytes / GIB)
    assert rows["warmup_free_gib"].observed == 61.3
    assert rows["warmup_free_gib"].predicted == pytest.approx(plan.kv_pool["free_after_warmup_bytes"] / GIB)
    # a plan of the estimate's sizing has neither term
    old = kvplan.fit("Qwen/Qwen3-8B", gpu="H100", vllm_version="0.33.0", max_model_len=40960)
    rows = {row.term: row for row in reconcile(parse_log(LOG), old).rows}
    assert rows["kv_cache_capacity_gib"].predicted is None and rows["warmup_free_gib"].predicted is None
