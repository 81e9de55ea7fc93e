"""A pass over fitting 70B-class models onto the GPUs at hand: quantization names, speculative and LoRA settings,
long contexts and the errors of a failed start."""

from __future__ import annotations

import pytest

import kvplan
from kvplan.errors import InputError


@pytest.mark.parametrize("name, scales", [("fp8_per_tensor", "per tensor"), ("fp8_per_channel", "per output channel"),
                                          ("fp8_per_block", "per 128x128 block")])
def test_vllms_online_fp8_shorthands_quantize_an_unquantized_checkpoint(name, scales):
    """vLLM 0.31-0.33 reads `--quantization fp8` on a bf16 checkpoint as fp8_per_tensor and warns to spell it so
    (model_loader/weight_utils.py get_quant_config); the shorthand must plan as the online FP8 it is, not be refused."""
    fp8 = kvplan.fit("Qwen/Qwen3-32B", "L40S", quantization="fp8", max_model_len=8192, fixes=False)
    p = kvplan.fit("Qwen/Qwen3-32B", "L40S", quantization=name, max_model_len=8192, fixes=False)
    bf16 = kvplan.fit("Qwen/Qwen3-32B", "L40S", max_model_len=8192, fixes=False)
    assert p.weights_bytes == fp8.weights_bytes < 0.55 * bf16.weights_bytes
    assert any(f"--quantization {name} on an unquantized checkpoint" in n and scales in n for n in p.assumptions)


def test_an_online_fp8_shorthand_on_a_quantized_checkpoint_is_still_refused():
    with pytest.raises(InputError) as e:
        kvplan.fit("Qwen/Qwen2.5-72B-Instruct-AWQ", "H100", quantization="fp8_per_tensor", max_model_len=8192,
                   fixes=False)
    assert "awq" in str(e.value)


def test_online_fp8_up_to_0_15_needs_the_16bit_model_to_fit_on_the_card_while_loading():
    """vLLM <= 0.15 allocates every Linear weight of an online-FP8 model in bf16 before quantizing (fp8.py
    create_weights: torch.empty(dtype=params_dtype)); 0.16 materializes layer by layer (meta device)."""
    old = kvplan.fit("Qwen/Qwen3-32B", "L40S", quantization="fp8", max_model_len=8192, vllm_version="0.15.1")
    new = kvplan.fit("Qwen/Qwen3-32B", "L40S", quantization="fp8", max_model_len=8192, vllm_version="0.16.0",
                     fixes=False)
    bf16 = kvplan.fit("Qwen/Qwen3-32B", "L40S", max_model_len=8192, vllm_version="0.15.1", fixes=False)
    assert new.fits and new.weights_bytes < 0.55 * bf16.weights_bytes
    assert bf16.weights_bytes > old.gpu.total_bytes  # 61 GiB of bf16 on a 44 GiB card
    assert not old.fits and old.failure == "load" and "online FP8" in old.error
    assert f"{bf16.weights_bytes / 2 ** 30:.2f} GiB per rank" in old.error
    # a fix offered for it must load: two cards hold 30.5 GiB of bf16 each
    tp2 = [f for f in old.fixes if f.flags == {"tensor_parallel_size": 2}]
    assert tp2 and tp2[0].fits
    # an online 16-bit model that fits on the card loads in either release
    small = kvplan.fit("Qwen/Qwen3-8B", "L40S", quantization="fp8", max_model_len=8192, vllm_version="0.15.1",
                       fixes=False)
    assert small.fits


def test_diagnose_reads_an_oom_between_the_start_of_loading_and_the_loaded_weights_as_a_load_failure():
    """Before 0.16 vLLM prints no "Failed to load model" line: a bare torch OOM after "Starting to load model" and
    before "Model loading took" is the weights not fitting, which --enforce-eager cannot fix."""
    from kvplan.diagnose import diagnose

    oom = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 896.00 MiB. GPU 0 has a total capacity of "
           "79.19 GiB of which 512.00 MiB is free.")
    start = "INFO 05-02 10:00:01 [gpu_model_runner.py:1800] Starting to load model meta-llama/Llama-3.3-70B-Instruct..."
    loaded = "INFO 05-02 10:03:01 [gpu_model_runner.py:1900] Model loading took 65.74 GiB and 170.2 seconds"
    during = diagnose([start, oom]).top
    assert "while the weights were loading" in during.cause and "--enforce-eager" in during.fix
    assert "do not help" in during.fix and during.confidence >= 0.85
    after = diagnose([start, loaded, oom]).top
    assert "while the weights were loading" not in after.cause
    assert "Try --enforce-eager" in after.fix


def test_the_16bit_load_of_online_fp8_counts_the_cpu_offload():
    """--cpu-offload-gb moves decoder layers to the CPU as they are built: the 16-bit load peak of online FP8 (vLLM
    <= 0.15) is the 16-bit weights less the budget, as the planned weights are the FP8 ones less it."""
    base = dict(quantization="fp8", max_model_len=8192, vllm_version="0.15.1", fixes=False)
    bf16 = kvplan.fit("meta-llama/Llama-3.1-70B", "H100", max_model_len=8192, vllm_version="0.15.1", fixes=False)
    ten = kvplan.fit("meta-llama/Llama-3.1-70B", "H100", cpu_offload_gb=10, **base)
    assert ten.failure == "load" and f"{(bf16.weights_bytes - 10 * 2 ** 30) / 2 ** 30:.2f} GiB per rank" in ten.error
    sixty = kvplan.fit("meta-llama/Llama-3.1-70B", "H100", cpu_offload_gb=60, **base)
    assert bf16.weights_bytes - 60 * 2 ** 30 < sixty.gpu.total_bytes and sixty.failure != "load"


def test_the_online_fp8_shorthands_are_refused_before_the_release_that_added_them():
    """The QuantizationMethods Literal of the 0.19.0 wheel has no fp8_per_tensor; the 0.20.0 wheel's has it. A
    release kvplan read takes its own list, not the next read's too."""
    from kvplan.versions import quantization_methods

    assert "fp8_per_tensor" not in quantization_methods("0.19.0")
    assert {"fp8_per_tensor", "fp8_per_block", "online"} <= quantization_methods("0.20.0")
    assert "fp8_per_channel" not in quantization_methods("0.20.0") and "fp8_per_channel" in quantization_methods("0.27.0")
    with pytest.raises(InputError) as e:
        kvplan.fit("Qwen/Qwen3-32B", "H100", quantization="fp8_per_tensor", max_model_len=8192, vllm_version="0.19.0")
    assert "fp8_per_tensor" in str(e.value) and "0.19.0" in str(e.value)
    assert kvplan.fit("Qwen/Qwen3-32B", "H100", quantization="fp8_per_tensor", max_model_len=8192,
                      vllm_version="0.20.0", fixes=False).fits


def test_online_fp8_is_offered_as_a_fix_wherever_the_release_runs_it_on_the_gpu():
    """A 70B in bf16 does not start on one A100-80; vLLM runs --quantization fp8 there as weight-only FP8 Marlin
    (Fp8Config minimum capability 80 from 0.5.1, 75 from 0.14): the fix is offered, and planned, as on an L40S."""
    p = kvplan.fit("meta-llama/Llama-3.1-70B", "A100 80GB SXM4", max_model_len=8192)
    assert not p.fits
    fp8 = [f for f in p.fixes if f.flags == {"quantization": "fp8"}]
    assert fp8 and fp8[0].fits
    assert kvplan.fit("meta-llama/Llama-3.1-70B", "A100 80GB SXM4", max_model_len=8192, quantization="fp8",
                      fixes=False).fits
    # a release whose Fp8Config refuses the GPU offers none (T4, 7.5, before 0.14)
    t4 = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "T4", max_model_len=32768, dtype="float16",
                    vllm_version="0.11.0")
    assert all((f.flags or {}).get("quantization") != "fp8" for f in t4.fixes)


def test_scaffold_gpu_auto_picks_a_card_it_writes_files_for(tmp_path):
    """`fit --gpu auto` may answer a Jetson Orin (the smallest catalog card that starts); scaffold, which refuses a
    Jetson's and an AMD card's files, picked the same card and then refused it. It now picks among its own cards."""
    from typer.testing import CliRunner

    from kvplan.api import FitFlags, plan_from_flags_and_inverse
    from kvplan.cli import app
    from kvplan.deploy import refuse_platform

    flags = FitFlags(gpu="auto", num_gpus=2, max_model_len="16384", gpu_kinds="all")  # every kind, a Jetson's included
    fit_pick, _ = plan_from_flags_and_inverse("Qwen/Qwen2.5-72B-Instruct-AWQ", flags, None)
    assert fit_pick.gpu.cc == (8, 7)  # a Jetson Orin: the premise
    with pytest.raises(InputError):
        refuse_platform(fit_pick.gpu, "0.33.0")
    pick, note = plan_from_flags_and_inverse("Qwen/Qwen2.5-72B-Instruct-AWQ", flags, None, deployable=True)
    assert pick.fits and pick.gpu.cc != (8, 7) and pick.gpu.vendor == "NVIDIA" and pick.gpu.name in note
    refuse_platform(pick.gpu, "0.33.0")
    assert pick.gpu.total_bytes * pick.args.tensor_parallel_size >= fit_pick.gpu.total_bytes
    r = CliRunner().invoke(app, ["scaffold", str(tmp_path / "out"), "Qwen/Qwen2.5-72B-Instruct-AWQ", "--gpu", "auto",
                                 "--num-gpus", "2", "--max-model-len", "16384", "--gpu-kinds", "all"])
    assert r.exit_code == 0, r.output
    serve = (tmp_path / "out" / "serve.sh").read_text()
    assert pick.gpu.name in serve and f"--tensor-parallel-size {pick.args.tensor_parallel_size}" in serve


def test_scaffold_gpu_auto_says_which_cards_it_searched(tmp_path):
    """scaffold's --gpu auto passes over the Jetson Orin fit names; its note and --help said 'the smallest catalog GPU
    x TP that starts' all the same, so fit and scaffold named two different cards as the smallest. Both now say the
    search ran among the cards scaffold writes files for; fit's note and help keep the whole catalog."""
    from typer.testing import CliRunner

    from kvplan.api import DEPLOYABLE_CARDS, FitFlags, plan_from_flags_and_inverse
    from kvplan.cli import app

    flags = FitFlags(gpu="auto", num_gpus=2, max_model_len="16384", gpu_kinds="all")  # every kind, a Jetson's included
    fit_pick, fit_note = plan_from_flags_and_inverse("Qwen/Qwen2.5-72B-Instruct-AWQ", flags, None)
    pick, note = plan_from_flags_and_inverse("Qwen/Qwen2.5-72B-Instruct-AWQ", flags, None, deployable=True)
    assert fit_pick.gpu.name != pick.gpu.name  # the premise: the two searches answer different cards
    assert DEPLOYABLE_CARDS in note and "Jetson Orin" in DEPLOYABLE_CARDS and DEPLOYABLE_CARDS not in fit_note
    r = CliRunner().invoke(app, ["scaffold", str(tmp_path / "out"), "Qwen/Qwen2.5-72B-Instruct-AWQ", "--gpu", "auto",
                                 "--num-gpus", "2", "--max-model-len", "16384", "--gpu-kinds", "all"])
    assert r.exit_code == 0 and DEPLOYABLE_CARDS in " ".join(r.output.split()), r.output
    wide = {"COLUMNS": "400"}
    scaffold_help = " ".join(CliRunner().invoke(app, ["scaffold", "--help"], env=wide).output.split())
    fit_help = " ".join(CliRunner().invoke(app, ["fit", "--help"], env=wide).output.split())
    assert DEPLOYABLE_CARDS in scaffold_help and DEPLOYABLE_CARDS not in fit_help and "'auto'" in fit_help
