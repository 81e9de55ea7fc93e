"""tools/card_terms.py: the records do not support a card-dependent non-torch constant (0.18-0.19) nor a checkpoint-size
dependent integrated-memory term; these tests hold the findings that made calibration.py keep both constants."""

from __future__ import annotations

import statistics

import pytest

from repo_scripts import load_script

card_terms = load_script("tools/card_terms.py")


def test_t4_gap_of_0_18_is_the_release_not_the_card():
    # the five Kaggle T4 starts of 0.18.x leave 0.13-0.18 GiB less than kvplan's terms; the eager T4 starts of the later
    # V1 releases, charged the same 0.20 GiB constant, do not: a term of the card would move both. Eager starts on both
    # sides (the 0.18 group is all eager): a start that captures graphs carries kvplan's graph term in its residual too
    # (SOURCES-logs.md, fifty-third round: the 0.24.0 Colab T4 start leaves -0.41 GiB, 0.23 GiB of it kvplan's graph
    # term above the estimate vLLM printed)
    rows = card_terms.budget_residuals(lambda r, rec: "T4" in str(rec["gpu"].get("name")) and r["era"].startswith("V1"))
    rows = [r for r in rows if r["eager"]]
    early = [r["residual"] for r in rows if r["era"] == "V1-d"]
    later = [r["residual"] for r in rows if r["era"] != "V1-d"]
    assert len(early) >= 5 and len(later) >= 4
    assert all(-0.25 < v < -0.08 for v in early)
    assert statistics.median(later) > -0.05
    assert statistics.median(later) - statistics.median(early) > 0.1


def test_no_0_18_0_19_single_rank_start_of_the_fitting_files_logs_non_torch_memory():
    # a card term needs logged figures of >= 2 cards in the release group: in calibration + extra there is none at one
    # rank (the TP > 1 H100 figures carry FlashInfer's workspace), and the blind file's two are one card's
    logged = [r for r in card_terms.logged_non_torch() if r["era"] == "V1-d" and r["tp"] == 1]
    assert not [r for r in logged if r["file"] != "blind"]
    assert {r["card"] for r in logged} <= {"NVIDIA H100 80GB HBM3"}


def test_integrated_excess_does_not_grow_with_the_checkpoint():
    if not card_terms.FILES["calibration"].exists():
        pytest.skip("shared calibration records not present")
    rows = card_terms.integrated_excess()
    # the OS's available memory (0.11.1 on): the 0.13, 0.19.1 and 0.25.1 GB10 starts that log their weights
    fit = [r for r in rows if r["file"] != "blind" and r["measure"].startswith("psutil available") and r["weights"]
           and r["id"] not in card_terms.INTEGRATED_LEFT_OUT]
    assert len(fit) >= 6
    _, slope = card_terms.l1_line([r["weights"] for r in fit], [r["excess"] for r in fit])
    assert abs(slope) < 0.1, slope  # page cache of the weights' files would give about +1 GiB per GiB
    # cudaMemGetInfo (before 0.11.1): only the Jetson Thor 0.10.2 and GB10 0.11.0 starts, too few for a slope
    early = [r for r in rows if r["file"] != "blind" and r["measure"] == "cudaMemGetInfo free"]
    assert len(early) == 2 and all(2.0 < r["excess"] < 3.0 for r in early)


def test_free_memory_measure_follows_the_source():
    # MemorySnapshot.measure: psutil on cc 8.7/11.0/12.1 from the 0.11.1 wheel (utils/mem_utils.py; absent in 0.11.0)
    assert card_terms.free_memory_measure("0.11.0+582e4e37.nv25.11") == "cudaMemGetInfo free"
    assert card_terms.free_memory_measure("0.13.0+faa43dbf.nv26.01").startswith("psutil available (cc")
    # a nightly of main past the 0.19.1 candidate tag reads as the next release, 0.20.0 (versions.nightly_after_candidate)
    assert card_terms.free_memory_measure("0.19.1rc1.dev301+g60995c05b") == "psutil available (is_integrated)"
    assert card_terms.free_memory_measure("0.19.1").startswith("psutil available (cc")
    assert card_terms.free_memory_measure("0.20.2") == "psutil available (is_integrated)"


def test_integrated_excess_does_not_scale_with_the_budget():
    # vLLM's budget on an integrated part is utilization x CUDA's total (v1/worker/utils.py request_memory, 0.20.2) and
    # the charge a fall of the OS's available memory (utils/mem_utils.py memory_profiling): nothing in the source
    # scales it with the utilization, and the startups that log their weights (budgets 30-108 GiB) show no such slope
    if not card_terms.FILES["calibration"].exists():
        pytest.skip("shared calibration records not present")
    fit = [r for r in card_terms.integrated_excess() if r["file"] != "blind" and r["weights"]
           and r["measure"].startswith("psutil available") and r["id"] not in card_terms.INTEGRATED_LEFT_OUT]
    assert max(r["requested"] for r in fit) - min(r["requested"] for r in fit) > 60
    _, slope = card_terms.l1_line([r["requested"] for r in fit], [r["excess"] for r in fit])
    assert abs(slope) < 0.05, slope  # a share of the budget (a term x utilization) would give the share itself


def test_integrated_term_is_one_constant_from_0_20():
    from kvplan.calibration import _INTEGRATED_FROM_0_20_GIB, GIB, coefficients_for

    assert coefficients_for("V1-e").n_integrated == coefficients_for("V1-f").n_integrated == _INTEGRATED_FROM_0_20_GIB * GIB
    assert coefficients_for("V1-c").n_integrated < coefficients_for("V1-e").n_integrated
