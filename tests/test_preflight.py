"""kvplan preflight: recorded NVML / nvidia-smi outputs and environments replayed through the checks."""

from __future__ import annotations

import json
from types import SimpleNamespace as NS

import pytest

from kvplan import preflight as pf
from kvplan.versions import rules_for

GIB = 1024**3
MIB = 1024**2

# Recorded `nvidia-smi --query-gpu=name,memory.total,memory.used,compute_cap,driver_version
# --format=csv,noheader,nounits` outputs (totals from gpu-facts.md section 9).
SMI_H200 = "NVIDIA H200, 143771, 616, 9.0, 580.159.04\n"
SMI_L4 = "NVIDIA L4, 23034, 0, 8.9, 550.54.15\n"
SMI_T4 = "Tesla T4, 15360, 3, 7.5, 535.104.05\n"
SMI_V100 = "Tesla V100-SXM2-16GB, 16384, 0, 7.0, 570.211.01\n"
SMI_2XA100 = ("NVIDIA A100-SXM4-80GB, 81920, 5, 8.0, 575.57.08\n"
              "NVIDIA A100-SXM4-80GB, 81920, 20480, 8.0, 575.57.08\n")
MOUNTS_CONTAINER = ("overlay / overlay rw,relatime,lowerdir=/x 0 0\n"
                    "proc /proc proc rw 0 0\n"
                    "/dev/nvme1n1 /mnt/models ext4 rw,relatime 0 0\n"
                    "tmpfs /dev/shm tmpfs rw 0 0\n"
                    "/dev/sdb /mnt/my\\040disk xfs rw 0 0\n")


class FakeNVMLError(Exception):
    pass


def fake_nvml(devices, driver="580.159.04", bytes_names=False, fail=False):
    """A stand-in for the pynvml module: the calls preflight makes, answered from a recording."""
    state = {"shutdown": 0}

    def init():
        if fail:
            raise FakeNVMLError("NVML Shared Library Not Found")

    def name(h):
        n = devices[h]["name"]
        return n.encode() if bytes_names else n

    def memory_info(h, version=None):
        d = devices[h]
        if version is None:  # v1: the driver's reserve counts as used
            return NS(total=d["total"], used=d["used"], free=d["total"] - d["used"])
        if "reserved" not in d:
            raise FakeNVMLError("Function Not Found")  # a driver without the v2 struct
        return NS(total=d["total"], reserved=d["reserved"], used=d["used"] - d["reserved"],
                  free=d["total"] - d["used"])

    return NS(
        nvmlInit=init,
        nvmlShutdown=lambda: state.__setitem__("shutdown", state["shutdown"] + 1),
        nvmlSystemGetDriverVersion=lambda: driver.encode() if bytes_names else driver,
        nvmlDeviceGetCount=lambda: len(devices),
        nvmlDeviceGetHandleByIndex=lambda i: i,
        nvmlDeviceGetName=name,
        nvmlDeviceGetMemoryInfo=memory_info,
        nvmlDeviceGetCudaComputeCapability=lambda h: devices[h]["cc"],
        nvmlMemory_v2=0x02000028,
        state=state,
    )


def no_smi():
    raise FileNotFoundError("not found on PATH")


def facts(smi=SMI_L4, env=None, mounts=MOUNTS_CONTAINER, os_name="Linux", kernel="6.8.0-1015-aws",
          python=(3, 12, 3), torch=None, vllm=None, free=500 * GIB, nvml=None):
    """Replay one machine: nvidia-smi text (NVML absent), an env dict, /proc/mounts text."""
    env = {"HOME": "/root", "HF_HOME": "/mnt/models/hf"} if env is None else env
    versions = {"torch": torch, "vllm": vllm}
    return pf.gather_facts(
        env,
        nvml=nvml or fake_nvml([], fail=True),
        run_nvidia_smi=(lambda: smi) if smi is not None else no_smi,
        mounts_text=mounts, os_name=os_name, kernel_release=kernel, proc_version="",
        python_version=python, installed_version=versions.get, disk_free=lambda p: free, home="/root",
        is_file=lambda p: False, rocm_device=False, nvidia_pci_device=False,  # (not this host's /dev/kfd or PCI bus)
    )


def req(**kw):
    base = dict(vllm_version="0.33.0", dtype="bfloat16", gpu_memory_utilization=0.92,
                weights_bytes=16_060_522_496, model_id="meta-llama/Llama-3.1-8B-Instruct", gated=True,
                revision="0e9e39f249a16976918f6564b8830bc894c89659", plan_fits=True, plan_gpu="NVIDIA L4")
    base.update(kw)
    return pf.Request(**base)


def by_check(findings, name):
    found = [f for f in findings if f.check == name]
    assert found, f"no {name!r} finding in {[f.check for f in findings]}"
    return found[0]


# ----------------------------------------------------------------------------- probing


def test_nvml_recording_is_read_and_shut_down():
    nv = fake_nvml([{"name": "NVIDIA H200", "total": 150_109_880_320, "used": 552_402_944, "cc": (9, 0)}],
                   bytes_names=True)
    gpus, source, errors, driver = pf.probe_gpus(nv, no_smi)
    assert source == "nvml" and driver == "580.159.04" and not errors
    assert gpus[0].name == "NVIDIA H200" and gpus[0].compute_capability == "9.0" and gpus[0].cc == (9, 0)
    assert gpus[0].memory_free_bytes == 150_109_880_320 - 552_402_944
    assert nv.state["shutdown"] == 1


def test_falls_back_to_nvidia_smi_when_nvml_fails():
    gpus, source, errors, driver = pf.probe_gpus(fake_nvml([], fail=True), lambda: SMI_2XA100)
    assert source == "nvidia-smi" and len(gpus) == 2
    assert "NVML Shared Library Not Found" in errors[0]
    assert gpus[1].memory_used_bytes == 20480 * MIB and gpus[1].memory_total_bytes == 81920 * MIB
    assert driver == "575.57.08"


def test_nvidia_smi_parser_skips_garbage():
    text = "NVIDIA L4, 23034, [N/A], 8.9, 550.54.15\nNo devices were found\n\n"
    gpus = pf.parse_nvidia_smi(text)
    assert len(gpus) == 1 and gpus[0].memory_used_bytes == 0


def test_no_gpu_is_a_clear_fail_not_a_crash():
    f = facts(smi=None)
    assert f.gpus == () and f.gpu_source == "none"
    findings = pf.run_checks(f, req())
    gpu = by_check(findings, "gpu")
    assert gpu.status == "fail" and "no NVIDIA GPU visible" in gpu.message and "nvidia-smi" in gpu.message
    assert gpu.fix
    assert pf.exit_code(findings) == 1
    # Checks that need a GPU are skipped rather than guessed.
    assert not [x for x in findings if x.check in ("driver", "gpu memory", "compute capability")]


def test_healthy_l4_passes_everything():
    f = facts(smi="NVIDIA L4, 23034, 0, 8.9, 580.82.07\n",
              env={"HOME": "/root", "HF_HOME": "/mnt/models/hf", "HF_TOKEN": "hf_x"})
    findings = pf.run_checks(f, req())
    assert [x for x in findings if x.status != "pass"] == []
    assert pf.exit_code(findings) == 0


# ----------------------------------------------------------------------------- gates


@pytest.mark.parametrize("smi,dtype,quant,status,check", [
    (SMI_T4, "bfloat16", None, "fail", "dtype"),
    (SMI_T4, "float16", None, "pass", "dtype"),
    (SMI_L4, "bfloat16", None, "pass", "dtype"),
    (SMI_2XA100, "bfloat16", "fp8", "warn", "quantization"),
    (SMI_L4, "bfloat16", "fp8", "pass", "quantization"),
    (SMI_H200, "bfloat16", "modelopt_fp4", "warn", "quantization"),
    ("NVIDIA B200, 183359, 0, 10.0, 580.95.05\n", "bfloat16", "modelopt_fp4", "pass", "quantization"),
    (SMI_T4, "float16", "gptq_marlin", "warn", "quantization"),  # 0.33: auto_gptq, min capability 60
    (SMI_T4, "float16", "awq", "warn", "quantization"),
    (SMI_L4, "float16", "awq_marlin", "pass", "quantization"),
])
def test_dtype_and_quantization_gates(smi, dtype, quant, status, check):
    findings = pf.run_checks(facts(smi=smi), req(dtype=dtype, quantization=quant))
    f = by_check(findings, check)
    assert f.status == status, f
    if status != "pass":
        assert f.fix


@pytest.mark.parametrize("smi,version,quant,status", [
    (SMI_T4, "0.13.0", "fp8", "fail"),           # Fp8Config.get_min_capability 80 up to 0.13
    (SMI_T4, "0.14.0", "fp8", "warn"),           # 75 from 0.14: weight-only FP8 through Marlin
    (SMI_T4, "0.13.0", "gptq_marlin", "fail"),   # 80 up to 0.13
    (SMI_T4, "0.11.0", "mxfp4", "fail"),         # Mxfp4Config 80
    (SMI_L4, "0.26.0", "modelopt", "pass"),      # ModelOptFp8Config 89 up to 0.26: L4 is 8.9
    (SMI_2XA100, "0.26.0", "modelopt", "fail"),  # 8.0 < 8.9
    (SMI_2XA100, "0.27.0", "modelopt", "warn"),  # 80 from 0.27
    (SMI_V100, "0.11.0", "awq", "fail"),         # AWQConfig 75
    (SMI_V100, "0.11.0", "compressed-tensors", "warn"),  # 70: starts (slow kernels)
])
def test_quantization_min_capability_is_vllms_per_version(smi, version, quant, status):
    """vLLM refuses a method whose get_min_capability() exceeds the GPU's (versions.QUANT_MIN_CAPABILITY); the
    fix never proposes a method this GPU fails in the same release."""
    f = by_check(pf.run_checks(facts(smi=smi), req(vllm_version=version, dtype="float16", quantization=quant)), "quantization")
    assert f.status == status, f
    if status == "fail":
        assert f"vLLM {version} needs cc >=" in f.message and "a GPU of cc >=" in f.fix
        cc = tuple(int(x) for x in smi.split(", ")[3].split("."))
        proposed = [m for m in pf.QUANT_ALTERNATIVES if f"a {m.upper()} checkpoint" in f.fix]
        assert all(pf.quant_min_capability(m, version) <= cc for m in proposed), f.fix
        if quant == "awq":  # V100 (7.0) fails AWQ (7.5): GPTQ (6.0) is proposed, not AWQ again
            assert proposed == ["gptq"]


def test_compute_capability_floor_moved_with_the_cuda13_wheel():
    v100 = facts(smi=SMI_V100)
    now = by_check(pf.run_checks(v100, req(vllm_version="0.33.0", dtype="float16")), "compute capability")
    old = by_check(pf.run_checks(v100, req(vllm_version="0.14.1", dtype="float16")), "compute capability")
    assert now.status == "fail" and ">= 7.5" in now.message
    assert old.status == "pass"
    t4 = by_check(pf.run_checks(facts(smi=SMI_T4), req(dtype="float16")), "compute capability")
    assert t4.status == "pass"  # exactly at the floor


@pytest.mark.parametrize("driver,vllm,status,hint", [
    ("580.65.06", "0.33.0", "pass", None),
    ("575.57.08", "0.33.0", "fail", "cu129"),       # CUDA 13 wheel; the cu129 wheel would run
    ("550.54.15", "0.33.0", "fail", ">= 580.65.06"),
    ("575.57.08", "0.12.0", "pass", None),          # CUDA 12.9 wheel needs 575.51.03
    ("550.54.15", "0.11.0", "warn", "570.26"),      # CUDA 12.8: only minor-version compatibility
    ("470.82.01", "0.11.0", "fail", "570.26"),
])
def test_driver_against_the_wheels_cuda(driver, vllm, status, hint):
    f = facts(smi=f"NVIDIA L4, 23034, 0, 8.9, {driver}\n")
    d = by_check(pf.run_checks(f, req(vllm_version=vllm)), "driver")
    assert d.status == status, d
    if hint:
        assert hint in d.message + d.fix


def test_wheel_cuda_table():
    assert [rules_for(v).wheel_cuda for v in ("0.6.3", "0.8.5", "0.9.0", "0.12.0", "0.19.1", "0.20.0", "0.33.0")] == \
        ["12.1", "12.4", "12.8", "12.9", "12.9", "13.0", "13.0"]


# ----------------------------------------------------------------------------- platform


def test_wsl2_is_detected_and_named():
    f = facts(kernel="5.15.153.1-microsoft-standard-WSL2")
    assert f.wsl == "WSL2"
    os_f = by_check(pf.run_checks(f, req()), "os")
    assert os_f.status == "warn" and "WSL2" in os_f.message
    assert pf.detect_wsl("4.4.0-19041-Microsoft") == "WSL1"
    assert pf.detect_wsl("6.8.0-1015-aws") is None


def test_windows_and_macos_fail():
    for name in ("Windows", "Darwin"):
        f = by_check(pf.run_checks(facts(os_name=name), req()), "os")
        assert f.status == "fail" and "WSL2" in f.fix


@pytest.mark.parametrize("py,status", [((3, 9, 18), "fail"), ((3, 10, 0), "pass"), ((3, 13, 1), "pass"),
                                        ((3, 14, 0), "fail")])
def test_python_range(py, status):
    assert by_check(pf.run_checks(facts(python=py), req()), "python").status == status


def test_torch_already_installed_advises_a_fresh_venv():
    f = by_check(pf.run_checks(facts(torch="2.5.1+cu121"), req()), "torch")
    assert f.status == "warn" and "2.5.1" in f.message and "venv" in f.fix
    clean = by_check(pf.run_checks(facts(), req()), "torch")
    # a pass says why no torch is good news, not only that there is none
    assert clean.status == "pass" and "pip install vllm brings its pinned build" in clean.message


def test_installed_vllm_of_another_version_warns():
    f = by_check(pf.run_checks(facts(vllm="0.11.0"), req()), "vllm")
    assert f.status == "warn" and "0.11.0" in f.message


# ----------------------------------------------------------------------------- cache, token, revision


def test_cache_dir_precedence():
    assert pf.hf_cache_dir({"HF_HUB_CACHE": "/a", "HF_HOME": "/b"}, "/root") == "/a"
    assert pf.hf_cache_dir({"HF_HOME": "/b"}, "/root") == "/b/hub"
    assert pf.hf_cache_dir({"XDG_CACHE_HOME": "/x"}, "/root") == "/x/huggingface/hub"
    assert pf.hf_cache_dir({}, "/home/u") == "/home/u/.cache/huggingface/hub"


def test_mount_lookup():
    assert pf.mount_for("/mnt/models/hf/hub", MOUNTS_CONTAINER) == ("/mnt/models", "ext4")
    assert pf.mount_for("/root/.cache/huggingface/hub", MOUNTS_CONTAINER) == ("/", "overlay")
    assert pf.mount_for("/mnt/my disk/hf", MOUNTS_CONTAINER) == ("/mnt/my disk", "xfs")
    assert pf.mount_for("/mnt/modelsX", MOUNTS_CONTAINER) == ("/", "overlay")


def test_hf_home_unset_on_container_root_warns():
    f = facts(env={"HOME": "/root"})
    assert f.cache_dir == "/root/.cache/huggingface/hub" and f.cache_fs_type == "overlay"
    h = by_check(pf.run_checks(f, req()), "HF_HOME")
    assert h.status == "warn" and "unset" in h.message and "overlay" in h.message and "HF_HOME" in h.fix


def test_hf_home_on_tmpfs_warns_and_on_a_volume_passes():
    tmp = by_check(pf.run_checks(facts(env={"HOME": "/root", "HF_HOME": "/dev/shm/hf"}), req()), "HF_HOME")
    assert tmp.status == "warn" and "tmpfs" in tmp.message
    ok = by_check(pf.run_checks(facts(), req()), "HF_HOME")
    assert ok.status == "pass" and "ext4" in ok.message


@pytest.mark.parametrize("free_gib,status", [(10, "fail"), (17, "warn"), (100, "pass")])
def test_disk_free_against_the_weights(free_gib, status):
    d = by_check(pf.run_checks(facts(free=free_gib * GIB), req()), "disk")
    assert d.status == status
    assert "/mnt/models/hf/hub" in d.message


def test_gated_model_needs_a_token_that_is_never_shown():
    secret = "hf_TOPSECRETvalue42"
    without = by_check(pf.run_checks(facts(), req()), "HF_TOKEN")
    assert without.status == "fail" and "gated" in without.message
    f = facts(env={"HOME": "/root", "HF_HOME": "/mnt/models/hf", "HF_TOKEN": secret})
    assert f.hf_token_present
    findings = pf.run_checks(f, req())
    assert by_check(findings, "HF_TOKEN").status == "pass"
    dumped = json.dumps({"machine": f.to_dict(), "findings": [x.to_dict() for x in findings]})
    assert secret not in dumped and secret not in repr(f)
    assert by_check(pf.run_checks(facts(), req(gated=False)), "HF_TOKEN").status == "pass"


def test_token_file_counts_as_a_token():
    f = pf.gather_facts({"HOME": "/root", "HF_HOME": "/mnt/models/hf"}, nvml=fake_nvml([], fail=True),
                        run_nvidia_smi=lambda: SMI_L4, mounts_text="", os_name="Linux", kernel_release="6.8",
                        proc_version="", installed_version=lambda d: None, disk_free=lambda p: 0,
                        is_file=lambda p: p == "/mnt/models/hf/token", rocm_device=False, nvidia_pci_device=False)
    assert f.hf_token_present


@pytest.mark.parametrize("rev,status", [(None, "warn"), ("main", "warn"), ("v1.0", "warn"),
                                         ("0e9e39f249a16976918f6564b8830bc894c89659", "pass")])
def test_revision_pinned(rev, status):
    assert by_check(pf.run_checks(facts(), req(revision=rev)), "revision").status == status


# ----------------------------------------------------------------------------- memory and plan


def test_memory_used_by_others_against_the_requested_fraction():
    f = facts(smi=SMI_2XA100)
    findings = pf.run_checks(f, req(gpus_needed=2, gpu_memory_utilization=0.9))
    mem = [x for x in findings if x.check == "gpu memory"]
    assert [x.status for x in mem] == ["pass", "fail"]
    # 20 GiB used of 80: at most 0.75 can be requested.
    assert "--gpu-memory-utilization 0.75" in mem[1].fix
    ok = pf.run_checks(f, req(gpus_needed=2, gpu_memory_utilization=0.7))
    assert all(x.status == "pass" for x in ok if x.check == "gpu memory")


# NVML on an H200 (driver 580.159.04, bench/probe_gpu.py): total 150,754,820,096 B with 644,939,776 reserved, whose
# difference is CUDA's total, 150,109,880,320 B (torch.cuda.mem_get_info).
H200_NVML = {"name": "NVIDIA H200", "total": 150_754_820_096, "reserved": 644_939_776, "cc": (9, 0)}


def test_the_requested_fraction_is_of_cudas_total_as_vllm_takes_it():
    # 129.0 GiB free: vLLM asks 0.92 x 139.80 = 128.62 GiB of it and starts; 0.92 x NVML's 140.40 would be 129.17
    used = H200_NVML["total"] - int(129.0 * GIB)
    f = facts(nvml=fake_nvml([{**H200_NVML, "used": used}]), smi=None)
    assert f.gpus[0].memory_reserved_bytes == 644_939_776 and f.gpus[0].cuda_total_bytes == 150_109_880_320
    findings = pf.run_checks(f, req(gpu_memory_utilization=0.92))
    mem = by_check(findings, "gpu memory")
    assert mem.status == "pass" and "0.92 x 139.8 GiB" in mem.message
    assert "139.8 GiB as CUDA reports it" in by_check(findings, "gpu").message
    assert by_check(pf.run_checks(f, req(gpu_memory_utilization=0.93)), "gpu memory").status == "fail"


def test_a_driver_without_nvmls_reserved_figure_checks_the_total_the_plan_takes():
    # no reserve figure: the memory check takes the CUDA total a plan on this machine takes (resolve.machine_gpu: the
    # catalog's H200, 139.80 GiB), not NVML's 140.40 GiB, which holds the driver's reserve vLLM never sees. 129.0 GiB
    # free: 0.92 x 139.80 = 128.62 GiB starts (0.92 x 140.40 = 129.17 would refuse what the plan says starts)
    from kvplan.resolve import machine_gpu

    old = {k: v for k, v in H200_NVML.items() if k != "reserved"}
    f = facts(nvml=fake_nvml([{**old, "used": H200_NVML["total"] - int(129.0 * GIB)}]), smi=None)
    g = f.gpus[0]
    assert g.memory_reserved_bytes is None
    assert g.cuda_total_bytes == machine_gpu(g.name, g.memory_total_bytes, g.compute_capability).total_bytes < H200_NVML["total"]
    assert by_check(pf.run_checks(f, req(gpu_memory_utilization=0.92)), "gpu memory").status == "pass"
    assert "140.4 GiB, cc 9.0" in by_check(pf.run_checks(f, req()), "gpu").message


def test_the_plan_on_this_machine_uses_its_cuda_total(monkeypatch):
    from kvplan.cli import FitFlags
    from kvplan.cli.preflight import plan_for_machine

    unknown = {"name": "NVIDIA H300 Engineering Sample", "total": 200 * GIB, "reserved": int(0.75 * GIB),
               "used": int(0.75 * GIB), "cc": (10, 0)}
    f = facts(nvml=fake_nvml([unknown]), smi=None)
    plan, note = plan_for_machine("Qwen/Qwen2.5-0.5B-Instruct", FitFlags(), f)
    assert plan.gpu.total_bytes == 200 * GIB - int(0.75 * GIB)
    assert "not in kvplan's catalog" in note and "199.25 GiB" in note
    known = facts(nvml=fake_nvml([{**H200_NVML, "used": H200_NVML["reserved"]}]), smi=None)
    plan, note = plan_for_machine("Qwen/Qwen2.5-0.5B-Instruct", FitFlags(), known)
    assert plan.gpu.id == "h200" and plan.gpu.total_bytes == 150_109_880_320 and note is None


def test_too_few_gpus_for_the_plan():
    f = by_check(pf.run_checks(facts(smi=SMI_L4), req(gpus_needed=4)), "gpu count")
    assert f.status == "fail" and "4" in f.message


def test_plan_verdict_is_a_finding():
    bad = by_check(pf.run_checks(facts(), req(plan_fits=False, plan_error="max seq len (131072) is larger",
                                              plan_fix="--max-model-len 32768")), "plan")
    assert bad.status == "fail" and "131072" in bad.message and bad.fix == "--max-model-len 32768"
    assert by_check(pf.run_checks(facts(), req()), "plan").status == "pass"
    offline = by_check(pf.run_checks(facts(), req(plan_fits=None, plan_error="Hub unreachable")), "plan")
    assert offline.status == "warn"


def test_request_from_a_plan_object():
    plan = NS(args=NS(tensor_parallel_size=2, pipeline_parallel_size=1, dtype="bfloat16", quantization=None,
                      gpu_memory_utilization=0.92, max_model_len=8192),
              model=NS(id="org/m", weights_bytes=30 * GIB, gated=True, revision="abc", dtype="bfloat16", quant=None),
              gpu=NS(name="NVIDIA L4"), fits=False, error="does not fit", vllm_version="0.20.0",
              weights_bytes=15 * GIB, kv_cache_tokens=0, max_concurrency=0.0,
              fixes=(NS(name="shorter", flags={"max_model_len": 4096}, effect="fits 2x"),))
    r = pf.request_from_plan(plan, flags_revision=None)
    assert r.gpus_needed == 2 and r.weights_bytes == 30 * GIB and r.gated is True
    assert r.revision is None  # the resolver's commit is not the user's pin
    assert r.plan_fits is False and "--max-model-len 4096" in r.plan_fix


def test_a_plan_that_a_cold_first_start_may_not_hold_is_a_first_start_warning():
    """fit warns where a cold first start (compiling inside the memory profile) would leave the pool unable to hold one
    max_model_len request; a machine's first start is that cold one, so preflight says so beside the plan's PASS (a
    warning: the start after it is warm), and not for a plan with room."""
    import kvplan

    # 30,720: the warm pool (7.94 GiB at 32,768, 8.48 before model runner v2's graph estimate charged 0.25 MiB x 64
    # layers x 51 sizes + 49 MiB, 0.84 GiB against 0.29) holds one 7.5 GiB request warm by about as much as 32,768 did
    # (largest warm length 32,480), and a cold start, 1.45 GiB short, would not (first-start length 26,544)
    edge = pf.request_from_plan(kvplan.fit("Qwen/Qwen3-32B", "H100", max_model_len=30720, detect_gpu=False))
    assert edge.plan_fits and edge.plan_cold_start.startswith("a first start compiles")
    found = [f for f in pf.check_plan(facts(), edge)]
    assert [(f.check, f.status) for f in found] == [("plan", "pass"), ("first start", "warn")]
    assert "would not hold one 30,720-token request" in found[1].message and "--gpu-memory-utilization" in found[1].fix
    # the room the fix names is the plan's own margin (first_start loss_bytes_most, plan.cold_start_pool_loss_bytes:
    # Qwen3-32B's 1.45 GiB embedding copy), not a copy of it; a request without one falls back to the public pairs'
    # largest (plan.COLD_START_POOL_LOSS_BYTES)
    from dataclasses import replace

    from kvplan.plan import COLD_START_POOL_LOSS_BYTES, COLD_START_WARNING
    assert abs(edge.plan_cold_start_bytes / GIB - 1.45) < 0.01
    assert f"leave about {edge.plan_cold_start_bytes / GIB:.2f} GiB more room" in found[1].fix
    assert f"{edge.plan_cold_start_bytes / GIB:.2f} GiB less KV pool" in found[1].message
    # Qwen3-32B's forward peak covers the copy (least 0): the evidence read '0.00 GiB more peak, up to 1.45 GiB'
    assert "0.00 GiB more peak" not in found[1].message and "no more peak than the forward's own" in found[1].message
    bare = pf.check_plan(facts(), replace(edge, plan_cold_start_bytes=None))[1]
    assert f"leave about {COLD_START_POOL_LOSS_BYTES / GIB:.2f} GiB more room" in bare.fix
    # --max-model-len -1: the warning's other form (a shorter length on the first start) is found by the same opening
    auto = kvplan.fit("Qwen/Qwen3-32B", "H100", max_model_len=-1, detect_gpu=False)
    cold = pf.request_from_plan(auto).plan_cold_start
    assert cold and cold.startswith(COLD_START_WARNING) and "auto-fit" in cold
    assert [(f.check, f.status) for f in pf.check_plan(facts(), pf.request_from_plan(auto))] == [
        ("plan", "pass"), ("first start", "warn")]
    roomy = pf.request_from_plan(kvplan.fit("Qwen/Qwen3-32B", "H100", max_model_len=16384, detect_gpu=False))
    assert roomy.plan_cold_start is None
    assert [(f.check, f.status) for f in pf.check_plan(facts(), roomy)] == [("plan", "pass")]


def test_the_first_start_check_reads_the_warnings_data_not_its_wording():
    """preflight's 'first start' / 'every start' finding is the head the cold-start warning carries (plan.ColdStartWarning),
    not a cut of its prose: a head with its own '. ' or '; ', or without the words 'may be refused', is said whole."""
    import copy
    import json
    import pickle
    from dataclasses import asdict, replace

    import kvplan
    from kvplan.plan import ColdStartWarning

    edge = pf.request_from_plan(kvplan.fit("Qwen/Qwen3-32B", "H100", max_model_len=30720, detect_gpu=False))
    cold = edge.plan_cold_start
    assert isinstance(cold, ColdStartWarning) and cold.changes_start and not cold.every_start
    assert str(cold).startswith(cold.head + ". The compile cache") and pf.check_plan(facts(), edge)[1].message == cold.head
    for every in (False, True):
        reworded = ColdStartWarning("Cold starts differ. Here; the head", ". A tail (with; parts). More", every, True)
        found = pf.check_plan(facts(), replace(edge, plan_cold_start=reworded))[1]
        assert (found.check, found.message) == ("every start" if every else "first start", "Cold starts differ. Here; the head")
    # preflight --json prints the request (dataclasses.asdict deep-copies it): the warning's text, as before
    assert json.loads(json.dumps(asdict(edge)))["plan_cold_start"] == str(cold)
    for again in (copy.deepcopy(cold), pickle.loads(pickle.dumps(cold))):
        assert again == cold and (again.head, again.every_start, again.changes_start) == (cold.head, False, True)


def test_a_disabled_compile_cache_makes_every_start_the_cold_one():
    """VLLM_DISABLE_COMPILE_CACHE=1 loads no compiled graph (vllm/compilation/backends.py): every start compiles inside
    the memory profile, so fit says so for every plan it compiles (not only those near the edge), preflight warns of
    'every start' where the margin would refuse it (and does not advise a restart), and the compile-cache note, which
    promises warm restarts, is left out."""
    import kvplan

    env = (("VLLM_DISABLE_COMPILE_CACHE", "1"),)
    edge = kvplan.fit("Qwen/Qwen3-32B", "H100", max_model_len=30720, detect_gpu=False, env=env)
    roomy = kvplan.fit("Qwen/Qwen3-32B", "H100", max_model_len=16384, detect_gpu=False, env=env)
    from kvplan.plan import COLD_START_WARNING, EVERY_START_COLD_WARNING
    for p, refused in ((edge, True), (roomy, False)):
        every = [w for w in p.warnings if w.startswith(EVERY_START_COLD_WARNING)]
        assert len(every) == 1 and ("may be refused" in every[0]) is refused
        # the fix names the variable (it read 'or let vLLM keep its compile cache')
        assert ("or unset VLLM_DISABLE_COMPILE_CACHE" in every[0]) is refused
        assert not any(w.startswith(COLD_START_WARNING) for w in p.warnings)
        assert not any("planned as a start that loads its compiled graphs" in a for a in p.assumptions)
    found = pf.check_plan(facts(), pf.request_from_plan(edge))
    assert [(f.check, f.status) for f in found] == [("plan", "pass"), ("every start", "warn")]
    assert "unset VLLM_DISABLE_COMPILE_CACHE" in found[1].fix and "restart" not in found[1].fix
    # the modelled evidence has a '; ' inside its parentheses: the message ended '...stays reserved' with the
    # parenthesis left open (a split at the first '; '); it keeps the evidence whole
    assert found[1].message.count("(") == found[1].message.count(")") and found[1].message.endswith(")")
    assert "public cold/warm pairs" in found[1].message
    assert [(f.check, f.status) for f in pf.check_plan(facts(), pf.request_from_plan(roomy))] == [("plan", "pass")]
    # --max-model-len -1: vLLM sizes the length from the colder pool on every start instead of refusing it (it said
    # 'any start may be refused' for Qwen3-32B H100, which auto-fits 34,512 warm)
    auto = kvplan.fit("Qwen/Qwen3-32B", "H100", max_model_len=-1, detect_gpu=False, env=env)
    every = [w for w in auto.warnings if w.startswith(EVERY_START_COLD_WARNING)]
    assert len(every) == 1 and "may be refused" not in every[0] and "auto-fit" in every[0]
    assert f"instead of the {auto.args.max_model_len:,} planned here" in every[0]
    assert "or unset VLLM_DISABLE_COMPILE_CACHE" in every[0]
    assert [(f.check, f.status) for f in pf.check_plan(facts(), pf.request_from_plan(auto))] == [
        ("plan", "pass"), ("every start", "warn")]
    # eager starts compile nothing: no warning either way
    assert not any("VLLM_DISABLE_COMPILE_CACHE" in w for w in kvplan.fit(
        "Qwen/Qwen3-32B", "H100", max_model_len=30720, detect_gpu=False, env=env, enforce_eager=True).warnings)


def test_int_read_env_values_are_read_as_vllm_reads_them():
    """vLLM reads VLLM_DISABLE_COMPILE_CACHE, VLLM_MXFP4_USE_MARLIN and VLLM_USE_DEEP_GEMM as bool(int(value))
    (vllm/envs.py): 'yes' / 'true' stop the server with a ValueError (fit warned of every start as for =1), '2' is on
    (fit planned it as off), and VLLM_USE_DEEP_GEMM=false forced DeepGEMM."""
    import kvplan
    from kvplan.errors import InputError
    from kvplan.plan import EVERY_START_COLD_WARNING

    for name, value in (("VLLM_DISABLE_COMPILE_CACHE", "yes"), ("VLLM_DISABLE_COMPILE_CACHE", "true"),
                        ("VLLM_USE_DEEP_GEMM", "false"), ("VLLM_MOE_USE_DEEP_GEMM", "on")):
        with pytest.raises(InputError, match=f"{value!r} is not a value vLLM reads") as exc:
            kvplan.fit("Qwen/Qwen3-8B", "H100", detect_gpu=False, env=((name, value),))
        assert exc.value.fix == f"{name}=1 (on) or {name}=0 (off)"
    two = kvplan.fit("Qwen/Qwen3-32B", "H100", max_model_len=30720, detect_gpu=False,
                     env=(("VLLM_DISABLE_COMPILE_CACHE", "2"),))
    assert sum(w.startswith(EVERY_START_COLD_WARNING) for w in two.warnings) == 1
    off = kvplan.fit("Qwen/Qwen3-32B", "H100", max_model_len=30720, detect_gpu=False,
                     env=(("VLLM_DISABLE_COMPILE_CACHE", " 0"),))
    assert not any(w.startswith(EVERY_START_COLD_WARNING) for w in off.warnings)
    # VLLM_MXFP4_USE_MARLIN: refused where the release reads it (0.20), not where it does not (0.25: noted 'not read')
    with pytest.raises(InputError, match="'yes' is not a value vLLM reads"):
        kvplan.fit("openai/gpt-oss-20b", "H100", detect_gpu=False, vllm_version="0.20.0",
                   env=(("VLLM_MXFP4_USE_MARLIN", "yes"),))
    unread = kvplan.fit("openai/gpt-oss-20b", "H100", detect_gpu=False, vllm_version="0.25.1",
                        env=(("VLLM_MXFP4_USE_MARLIN", "yes"),))
    assert any("VLLM_MXFP4_USE_MARLIN=yes: not read by vLLM 0.25.1" in a for a in unread.assumptions)


def test_a_plans_first_fix_is_written_as_fit_writes_it():
    """preflight's fix for a refused plan is fit's command text: a switch bare (it wrote '--enforce-eager True', which
    neither kvplan nor vllm serve takes) and a GPU's catalog name quoted ('--gpu NVIDIA B300 (Blackwell Ultra)' was a
    shell syntax error)."""
    import shlex

    import kvplan

    def first_fix(*fixes):
        plan = NS(args=NS(tensor_parallel_size=1, pipeline_parallel_size=1, dtype="bfloat16", quantization=None,
                          gpu_memory_utilization=0.9, max_model_len=8192),
                  model=NS(id="org/m", weights_bytes=30 * GIB, gated=False, dtype="bfloat16", quant=None),
                  gpu=NS(name="NVIDIA L4"), fits=False, error="does not fit", vllm_version="0.33.0",
                  weights_bytes=30 * GIB, kv_cache_tokens=0, max_concurrency=0.0, fixes=fixes)
        return pf.request_from_plan(plan).plan_fix

    assert first_fix(NS(name="no CUDA graphs", flags={"enforce_eager": True}, effect="starts", fits=True)) == \
        "--enforce-eager (starts)"
    p = kvplan.fit("Qwen/Qwen3-235B-A22B-FP8", "T4", detect_gpu=False)
    f0 = next(f for f in p.fixes if f.fits)
    assert f0.flags == {"gpu": "NVIDIA B300 (Blackwell Ultra)"}
    text = pf.request_from_plan(p).plan_fix
    assert text.startswith("--gpu 'NVIDIA B300 (Blackwell Ultra)' (")
    assert shlex.split(text.split(" (starts")[0]) == ["--gpu", "NVIDIA B300 (Blackwell Ultra)"]


# ----------------------------------------------------------------------------- CLI


def _cli_app():
    try:
        from kvplan.cli import app
    except ImportError as exc:
        pytest.skip(f"CLI not importable yet: {exc}")
    return app


def test_cli_preflight_json_on_a_replayed_gpu_less_machine(monkeypatch):
    app = _cli_app()
    from typer.testing import CliRunner

    recorded = facts(smi=None)
    monkeypatch.setattr(pf, "gather_facts", lambda: recorded)
    res = CliRunner().invoke(app, ["preflight", "--json"])
    assert res.exit_code == 1, res.output
    data = json.loads(res.output)
    assert data["ok"] is False and data["machine"]["gpu_source"] == "none"
    assert any(f["check"] == "gpu" and f["status"] == "fail" for f in data["findings"])


def test_cli_preflight_table_on_a_replayed_l4(monkeypatch):
    app = _cli_app()
    from typer.testing import CliRunner

    recorded = facts(smi="NVIDIA L4, 23034, 0, 8.9, 580.82.07\n")
    monkeypatch.setattr(pf, "gather_facts", lambda: recorded)
    res = CliRunner().invoke(app, ["preflight", "--dtype", "bfloat16"])
    assert res.exit_code == 0, res.output
    assert "PASS" in res.output and "NVIDIA L4" in res.output


# ------------------------------------------------------------------ cache writability, tokens, fallback GPU, unresolved model


def test_cache_on_a_read_only_folder_fails_with_a_fix(tmp_path):
    f = pf.gather_facts({"HOME": "/root", "HF_HOME": str(tmp_path)}, nvml=fake_nvml([], fail=True), run_nvidia_smi=no_smi,
                        mounts_text="", disk_free=lambda p: 500 * GIB, is_file=lambda p: False, can_write=lambda p: False)
    cache = by_check(pf.run_checks(f, req()), "cache")
    assert cache.status == "fail" and "cannot be written" in cache.message and "HF_HOME" in cache.fix


def test_cache_where_a_file_stands_fails(tmp_path):
    (tmp_path / "afile").write_text("x")
    f = pf.gather_facts({"HOME": "/root", "HF_HOME": str(tmp_path / "afile")}, nvml=fake_nvml([], fail=True),
                        run_nvidia_smi=no_smi, mounts_text="", disk_free=lambda p: 500 * GIB, is_file=lambda p: False)
    cache = by_check(pf.run_checks(f, req()), "cache")
    assert cache.status == "fail" and "is a file" in cache.message


def test_a_cache_that_does_not_exist_yet_is_noted(tmp_path):
    f = pf.gather_facts({"HOME": "/root", "HF_HOME": str(tmp_path / "new" / "hf")}, nvml=fake_nvml([], fail=True),
                        run_nvidia_smi=no_smi, mounts_text="", disk_free=lambda p: 500 * GIB, is_file=lambda p: False)
    cache = by_check(pf.run_checks(f, req()), "cache")
    assert cache.status == "pass" and "will be created in " + str(tmp_path) in cache.message


@pytest.mark.parametrize("model", [None, "meta-llama/Llama-3.1-8B-Instruct"])
def test_a_blank_hf_token_fails(model):
    f = facts(env={"HOME": "/root", "HF_HOME": "/mnt/models/hf", "HF_TOKEN": "  "})
    tokens = [x for x in pf.run_checks(f, req(model_id=model)) if x.check == "HF_TOKEN"]
    assert [t.status for t in tokens] == ["fail"] and "unset HF_TOKEN" in tokens[0].fix


def test_a_gated_model_with_a_token_says_it_was_not_verified():
    f = facts(env={"HOME": "/root", "HF_HOME": "/mnt/models/hf", "HF_TOKEN": "hf_fake"})
    token = by_check(pf.run_checks(f, req()), "HF_TOKEN")
    assert token.status == "pass" and "not verified" in token.message


def test_an_unresolved_model_is_named_in_disk_token_and_plan_rows(monkeypatch):
    from kvplan.cli import FitFlags
    from kvplan.cli import preflight as cli_pf
    from kvplan.errors import OfflineError

    def offline(model, flags, facts):
        raise OfflineError("cannot reach the Hugging Face Hub for foo/bar", "use a catalog id")
    monkeypatch.setattr(cli_pf, "plan_for_machine", offline)
    f = facts(env={"HOME": "/root", "HF_HOME": "/mnt/models/hf", "HF_TOKEN": "hf_fake"})
    r, _ = cli_pf.build_request("foo/bar", FitFlags(), f)
    findings = pf.run_checks(f, r)
    assert "model could not be resolved" in by_check(findings, "disk").message
    token = by_check(findings, "HF_TOKEN")
    assert token.status == "warn" and "not verified (Hub unreachable)" in token.message
    plan_row = by_check(findings, "plan")
    assert plan_row.fix not in plan_row.message


def test_no_gpu_and_no_gpu_flag_plans_the_fallback_as_a_warning():
    from kvplan.cli import FitFlags
    from kvplan.cli.preflight import build_request

    f = facts(smi=None)
    r, _ = build_request("meta-llama/Llama-3.1-8B-Instruct", FitFlags(max_model_len="131072"), f)
    plan_row = by_check(pf.run_checks(f, r), "plan")
    assert plan_row.status == "warn" and "fallback" in plan_row.message and "--gpu NAME" in plan_row.fix
    r, _ = build_request("meta-llama/Llama-3.1-8B-Instruct", FitFlags(gpu="T4", max_model_len="131072"), f)
    assert by_check(pf.run_checks(f, r), "plan").status == "fail"


def test_cli_prints_vllms_bracketed_reasons_as_text_not_markup(monkeypatch, tmp_path):
    """vLLM's "No valid attention backend found ... Reasons: FLASH_ATTN, ...: [block_size not supported]" went through
    rich's markup in preflight's table and scaffold's refusal, which dropped the bracketed reasons ("TRITON_ATTN: ;")."""
    app = _cli_app()
    from typer.testing import CliRunner

    recorded = facts(smi="NVIDIA H100 80GB HBM3, 81559, 0, 9.0, 580.82.07\n")
    monkeypatch.setattr(pf, "gather_facts", lambda: recorded)
    flags = ["meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--max-model-len", "8192", "--block-size", "8",
             "--vllm-version", "0.29.0"]
    res = CliRunner().invoke(app, ["preflight", *flags], env={"COLUMNS": "400"})
    assert "FLEX_ATTENTION: [block_size not supported]." in " ".join(res.output.split()), res.output
    res = CliRunner().invoke(app, ["scaffold", str(tmp_path / "out"), *flags], env={"COLUMNS": "400"})
    assert res.exit_code == 1 and not (tmp_path / "out").exists()
    assert "TRITON_ATTN: [block_size not supported]; FLEX_ATTENTION: [block_size not supported]." in " ".join(
        res.output.split()), res.output


def test_cli_table_folds_a_long_fix_at_80_columns_instead_of_cutting_it(monkeypatch):
    """At 80 columns rich cut an unbreakable word with an ellipsis: the HF_HOME row's fix read
    "export HF_HOME=/path/on/a/persiste…", and a path in the finding lost its tail. They fold onto the next line."""
    app = _cli_app()
    from typer.testing import CliRunner

    from kvplan.cli import console

    recorded = facts(env={"HOME": "/root"}, mounts="")  # HF_HOME unset: the row whose fix is a long export line
    monkeypatch.setattr(pf, "gather_facts", lambda: recorded)
    monkeypatch.setattr(console, "_width", 80)
    res = CliRunner().invoke(app, ["preflight", "--dtype", "bfloat16"])
    assert "…" not in res.output, res.output
    fix_column = "".join(line.split("│")[-2].strip() for line in res.output.splitlines() if line.count("│") == 5)
    assert "HF_HOME=/path/on/a/persistent/volume" in fix_column, res.output


def test_the_plan_row_gives_concurrency_as_fit_does():
    """preflight said "max concurrency 4.0x at max_model_len 65536" where fit says 3.98x at 65,536: one decimal
    rounded up to a concurrency the plan does not reach."""
    import kvplan

    plan = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=8192)
    r = pf.request_from_plan(plan, flags_revision=None)
    row = by_check(pf.run_checks(facts(), r), "plan")
    assert f"max concurrency {plan.max_concurrency:.2f}x at max_model_len 8,192" in row.message, row.message
