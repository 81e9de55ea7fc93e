"""V0's measured terms: the non-torch constant of 0.6.5+ from the logged single-GPU figures of the calibration file, the
sampler's bytes per logit shared by every V0 era, and no record of tests/data/extra_records.jsonl fixing either."""
from __future__ import annotations

import json
import re
import shutil
import statistics
from pathlib import Path

import pytest

from kvplan.calibration import GIB, coefficients_for
from kvplan.validate import predict_record
from repo_scripts import load_script

DATA = Path(__file__).resolve().parent / "data"


def _tool():
    return load_script("tools/fit_calibration.py", "fit_calibration_v0_under_test")


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """The layout the fit script reads (PEAK_FILES), built from this checkout's copies of both record files."""
    tool = _tool()
    base = tmp_path_factory.mktemp("fitroot")
    for rel, src in zip(tool.PEAK_FILES, ("calibration.jsonl", "extra_records.jsonl")):
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DATA / src, base / rel)
    return base


def _records(name):
    return {r["id"]: r for r in map(json.loads, filter(str.strip, (DATA / name).read_text().splitlines()))}


def test_v0_non_torch_of_0_6_5_on_is_the_median_of_the_calibration_files_logged_figures(root):
    tool = _tool()
    pools = tool.logged_non_torch(root)
    calibration, extra = _records("calibration.jsonl"), _records("extra_records.jsonl")
    v0c = pools["V0 >= 0.6.5"]
    assert len(v0c) >= 5 and all(i in calibration for i, _ in v0c)
    # the extra records that log V0 non-torch memory (A10 0.7.1, the bitsandbytes RTX 4060 run) stay out of every pool
    for rid in ("llama-3.1-8b-a10-u090-tp1-l128k-fail", "qwen2.5-7b-instruct-bnb4-rtx4060-u070-l4k"):
        assert rid in extra and extra[rid]["observed"]["non_torch_gib"] is not None
        assert all(rid not in {i for i, _ in v} for v in pools.values())
    median = round(statistics.median(v for _, v in v0c) / GIB, 2)
    assert coefficients_for("V0-c").n_const == pytest.approx(median * GIB)
    # before 0.6.5 the charge is device-wide (V0-b counts the CUDA context): a larger constant, fitted on the pools
    assert coefficients_for("V0-b").n_const > 3 * coefficients_for("V0-c").n_const
    assert coefficients_for("V0-a") == coefficients_for("V0-b")


def test_no_extra_record_fixes_a_v0_term(root):
    tool = _tool()
    fixing = tool.records_fixing_coefficients(root)
    for rid, rec in _records("extra_records.jsonl").items():
        if rid in fixing:
            p, _ = predict_record(rec)
            assert p.rules.engine == "v1", rid


def test_v0_sampler_peaks_are_single_rank_calibration_startups_near_the_shared_term(root):
    tool = _tool()
    peaks = dict(tool.sampler_peaks(root)["V0"])
    assert "qwen2.5-3b-instruct-t4-u090-tp1" in peaks and "llama-3.2-3b-instruct-t4-u089-tp1" in peaks
    # the TP2 startup's line is a non-driver rank's, which does not sample
    assert "deepseek-r1-distill-qwen-14b-rtx4090-u098-tp2" not in peaks
    assert set(peaks) <= set(_records("calibration.jsonl"))
    a_s = coefficients_for("V0-c").a_sampler
    assert all(abs(v - a_s) < 2.5 for v in peaks.values()), peaks
    assert coefficients_for("V0-a").a_sampler == coefficients_for("V0-b").a_sampler == a_s


def test_a_v0_startup_is_charged_its_logged_terms():
    # Qwen2.5-3B on a T4, vLLM 0.6.6.post1: logged non-torch 0.13 GiB and activation peak 1.40 GiB (256 x 151,936
    # logits); the single V0 constant had charged 0.45 and 32 B per logit (1.16 GiB)
    rec = _records("calibration.jsonl")["qwen2.5-3b-instruct-t4-u090-tp1"]
    p, _ = predict_record(rec)
    assert p.era == "V0-c"
    assert p.non_torch_bytes / GIB == pytest.approx(rec["observed"]["non_torch_gib"], abs=0.03)
    assert p.activation_peak_bytes / GIB == pytest.approx(rec["observed"]["activation_peak_gib"], rel=0.05)
    assert p.kv_cache_bytes / GIB == pytest.approx(rec["observed"]["kv_cache_gib"], rel=0.01)


def _rank_peaks(notes: str) -> tuple[float, float, float]:
    """(weights GiB, rank 0's peak_torch_memory GiB, the other ranks' GiB) of a 0.6.4 startup whose notes quote rank 0's
    'Memory profiling results' line and then the other ranks' peak (peak_torch_memory is torch's allocated peak, weights
    included: worker/worker.py Worker.determine_num_available_blocks, 0.6.4.post1)."""
    weights = float(re.search(r"Loading model weights took ([\d.]+) GB", notes).group(1))
    peaks = [float(v) for v in re.findall(r"peak_torch(?:_memory=| )([\d.]+) ?GiB", notes)]
    assert len(peaks) == 2, notes
    return weights, peaks[0], peaks[1]


def test_v0_chunked_prefill_profile_still_samples_every_dummy_sequence():
    # V0's profile run under chunked prefill splits max_num_batched_tokens over max_num_seqs dummy prompts (512 / 256 = 2
    # tokens each in 0.6.4, 2048 / 256 = 8 in 0.6.5+), each a whole prompt that is sampled with top-k/top-p
    # (worker/model_runner.py GPUModelRunnerBase._dummy_run; sequence.py SequenceGroupMetadata: do_sample True,
    # token_chunk_size the prompt's length; model_executor/sampling_metadata.py _prepare_seq_groups: one sample index per
    # prompt; 0.6.4.post1-0.8.2 wheels), so the sampler's S x V logits make the peak as without chunking. The two
    # 0.6.4.post1 MapCoder startups at TP2 / TP4 log it on rank 0, the driver that samples (1.19 / 1.18 GiB, about 38.7 B
    # per logit), while their other ranks, which stop before the sampler, log 0.06 / 0.03 GiB.
    extra = _records("extra_records.jsonl")
    a_s = coefficients_for("V0-b").a_sampler
    for rid in ("llama-3.1-8b-instruct-gpu44g-u090-tp2-l128k", "llama-3.1-8b-instruct-gpu44g-u090-tp4-l128k"):
        rec = extra[rid]
        weights, rank0, other = _rank_peaks(rec["notes"])
        p, _ = predict_record(rec)
        assert p.rules.engine == "v0" and p.args.max_num_batched_tokens == 512 and p.args.max_num_seqs == 256, rid
        logits = p.args.max_num_seqs * p.model.vocab_size  # 128,256: already a multiple of the padding
        assert 36 < (rank0 - weights) * GIB / logits < 41, rid  # the driver's peak is the sampler's
        assert other - weights < 0.1, rid                       # the non-driver's is the forward and logits alone
        # kvplan charges the sampler term, and the driver's pool (the engine's) lands within 1.5 %; without it the pool
        # would come out 1.2 GiB (about 4 %) larger
        assert p.activation_peak_bytes == pytest.approx(a_s * logits, rel=0.01), rid
        assert p.kv_cache_bytes / GIB == pytest.approx(rec["observed"]["kv_cache_gib"], rel=0.015), rid
