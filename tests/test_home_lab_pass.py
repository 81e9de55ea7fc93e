"""A home-lab user's pass (RTX 3090 / 2x 3090 over PCIe, RTX 4060 Ti under WSL2, RTX 5090, RX 7900 XTX, Jetson Orin):
each test is a finding of that pass, failing before its fix."""

from __future__ import annotations

import kvplan


def test_a_larger_gpu_fix_under_tensor_parallelism_says_how_many_cards():
    # Mistral-Small-3.1-24B at TP 2 on two 3090s does not start; the 'a larger GPU' fix keeps TP 2, so it starts on two
    # RTX 5090s (44.7 GiB of bf16 weights do not fit one 31.36 GiB card), which read 'on NVIDIA GeForce RTX 5090'
    p = kvplan.fit("mistralai/Mistral-Small-3.1-24B-Instruct-2503", "RTX 3090", tensor_parallel_size=2, max_model_len=32768)
    fix = next(f for f in p.fixes if "gpu" in f.flags)
    assert not kvplan.fit(p.model, fix.flags["gpu"], max_model_len=32768).fits  # one card alone would not do
    assert f" on 2 x {fix.flags['gpu']} (" in fix.effect, fix.effect
    # at TP 1 the card is one, as before
    one = next(f for f in kvplan.fit("Qwen/Qwen3-8B", "L4").fixes if "gpu" in f.flags)
    assert f" on {one.flags['gpu']} (" in one.effect and " x " not in one.effect.split(" on ")[-1]


def _no_gpu_machine(**kw):
    from kvplan import preflight as pf

    return pf.gather_facts({"HOME": "/root", "HF_HOME": "/mnt/models/hf"}, nvml=None,
                           run_nvidia_smi=lambda: (_ for _ in ()).throw(FileNotFoundError("not found on PATH")),
                           mounts_text="", proc_version="", python_version=(3, 12, 3), installed_version=lambda d: None,
                           disk_free=lambda p: 500 * 2 ** 30, home="/root", is_file=lambda p: False, **kw)


def _gpu_finding(facts):
    from kvplan import preflight as pf

    req = pf.Request(vllm_version="0.33.0", dtype="bfloat16", gpu_memory_utilization=0.92)
    findings = pf.run_checks(facts, req)
    return next(f for f in findings if f.check == "gpu"), findings


def test_preflight_without_a_gpu_says_what_it_could_not_check_and_where_to_run_it():
    # on the planning laptop (no GPU) preflight failed the GPU and dropped the driver, compute-capability and
    # free-memory checks silently; the fix did not say to run preflight on the GPU machine
    gpu, findings = _gpu_finding(_no_gpu_machine(os_name="Linux", kernel_release="6.8.0", rocm_device=False))
    assert gpu.status == "fail"
    assert "compute capability, driver and free GPU memory are not checked here" in gpu.message
    assert gpu.fix.startswith("run kvplan preflight on the machine with the NVIDIA GPU")
    assert not [f for f in findings if f.check in ("driver", "gpu memory", "compute capability")]


def test_preflight_on_an_amd_gpu_gives_no_nvidia_advice():
    # an RX 7900 XTX box (ROCm's /dev/kfd present, no NVML): 'run on a host with an NVIDIA GPU ... --gpus all'
    # was the fix, and the machine read 'not ready'
    from kvplan import preflight as pf

    gpu, findings = _gpu_finding(_no_gpu_machine(os_name="Linux", kernel_release="6.8.0", rocm_device=True))
    assert gpu.status == "warn" and "AMD GPU" in gpu.message and "not checked here" in gpu.message
    assert "NVIDIA GPU (" not in gpu.fix and "--gpus all" not in gpu.fix and "--gpu NAME" in gpu.fix
    assert pf.exit_code(findings) == 0


def test_preflight_under_wsl2_without_a_gpu_points_at_the_windows_driver():
    # under WSL2 the GPU comes from the Windows driver; 'in Docker pass --gpus all' does not apply there
    gpu, _ = _gpu_finding(_no_gpu_machine(os_name="Linux", kernel_release="5.15.153.1-microsoft-standard-WSL2",
                                          rocm_device=False))
    assert gpu.status == "fail" and "driver on Windows" in gpu.fix and "/usr/lib/wsl/lib/nvidia-smi" in gpu.fix
    assert "--gpus all" not in gpu.fix


def test_scaffold_refuses_an_amd_gpu_instead_of_writing_nvidia_files(monkeypatch, capsys, tmp_path):
    # an RX 7900 XTX got vllm==0.33.0 from PyPI (the CUDA build), the vllm/vllm-openai image, compose's
    # 'driver: nvidia' and k8s's nvidia.com/gpu: none of them starts on a Radeon
    import pytest

    from kvplan.deploy import spec_from_plan
    from kvplan.errors import InputError

    p = kvplan.fit("Qwen/Qwen3-4B", "7900 XTX", max_model_len=8192)
    assert p.fits
    with pytest.raises(InputError) as exc:
        spec_from_plan(p)
    assert exc.value.field == "--gpu" and "AMD GPU" in exc.value.message and "kvplan fit" in exc.value.fix
    # the same through the CLI: exit 2, nothing written
    from cli_runner import refused

    out = tmp_path / "deploy"
    refused(monkeypatch, capsys, "--gpu", "scaffold", str(out), "Qwen/Qwen3-4B", "--gpu", "7900 XTX", "--max-model-len", "8192")
    assert not out.exists()
