"""GPU totals under WSL2: CUDA's total there is nvidia-smi's memory.total (resolve.wsl2_gpu / machine_gpu), where native
Linux reports 0.25-0.75 GiB less. The public observations are listed above resolve.wsl2_gpu."""

from __future__ import annotations

import json
import sys
from types import SimpleNamespace as NS

import pytest

from cli_runner import refused, run_cli
from kvplan import preflight as pf
from kvplan import resolve as r
from kvplan.errors import UnknownGPUError
from kvplan.resolve import find_gpu, machine_gpu, resolve_gpu, wsl2_gpu

GIB = 1024 ** 3
MIB = 1024 ** 2
RECORDS = [json.loads(line) for name in ("blind_records.jsonl", "extra_records.jsonl")
           for line in open(f"{__import__('pathlib').Path(__file__).parent}/data/{name}") if line.strip()]


def _in_catalog(name: str) -> bool:
    try:
        find_gpu(name)
    except UnknownGPUError:
        return False
    return True


def _wsl_records_with_a_total():
    """The validated startups under WSL that print vLLM's total (the notes say WSL; the GPU is a catalog card). The
    fifty-fourth blind round's GTX 1660 Ti starts carry a total too (6.0 GiB, from the 5.1 GiB vLLM's refusal at 0.85
    printed: the card's 6,144 MiB), but the catalog has no GTX 1660 Ti to compare it with: test_blind_round54 checks it.
    The fifty-eighth round's RTX 5060Ti 16GB starts print 15.9 GiB, but the catalog holds no nvidia-smi total for that
    card (only its native CUDA total, 15.48 GiB): test_blind_round58 checks the 15.9 against the source's own nvidia-smi
    figure (16,311 MiB) instead. Every WSL record whose catalog card has an nvidia-smi total is checked here."""
    return [x for x in RECORDS if "wsl" in (x["id"] + x.get("notes", "")).lower() and x["gpu"]["total_gib"]
            and _in_catalog(x["gpu"]["name"]) and find_gpu(x["gpu"]["name"]).nvidia_smi_total_mib]


def test_the_wsl_records_that_print_a_total_print_nvidia_smis():
    # RTX 4090 23.99 (24564 MiB), RTX 4080 15.99 (16376 MiB), RTX 4060 8.00 (8188 MiB): each WSL startup's logged total
    # is the card's nvidia-smi total in the catalog, and none is the catalog's native total
    recs = _wsl_records_with_a_total()
    assert {x["gpu"]["name"] for x in recs} >= {"NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 4060"}
    for x in recs:
        card = find_gpu(x["gpu"]["name"])
        assert card.nvidia_smi_total_mib and card.nvidia_smi_total_source
        assert round(wsl2_gpu(card).total_gib, 2) == pytest.approx(x["gpu"]["total_gib"], abs=0.005), x["id"]


@pytest.mark.parametrize("name,mib,native_gib", [("RTX 4090", 24564, 23.65), ("RTX 4060", 8188, 7.62),
                                                  ("RTX 5090", 32607, 31.36),
                                                  # the twenty-seventh blind round's WSL2 card (its 16303 MiB from a WSL2
                                                  # host's nvidia-smi inventory, gpus.json; natively an estimate, less
                                                  # the fitted driver reserve, tools/build_catalog.py reserve_fit)
                                                  ("RTX 5080 Laptop", 16303, 15.59)])
def test_wsl2_plans_a_catalog_card_with_its_nvidia_smi_total(name, mib, native_gib):
    native, _ = resolve_gpu(name)
    wsl, notes = resolve_gpu(name, wsl2=True)
    assert native.total_gib == pytest.approx(native_gib, abs=0.01)
    assert wsl.total_bytes == mib * MIB and wsl.total_bytes - native.total_bytes > 0.25 * GIB
    assert wsl.id == native.id and wsl.compute_capability == native.compute_capability
    assert "WSL2" in wsl.total_source and "nvidia-smi" in wsl.total_source
    assert any("--wsl2" in n for n in notes)


def test_wsl2_without_an_nvidia_smi_total_asks_for_the_size():
    card = find_gpu("RTX 4070 Ti")
    assert card.nvidia_smi_total_mib is None
    with pytest.raises(UnknownGPUError) as exc:
        resolve_gpu("RTX 4070 Ti", wsl2=True)
    assert exc.value.field == "--wsl2" and "--gpu-gib" in exc.value.fix and "native" in exc.value.message
    # nvidia-smi's query prints MiB, --gpu-gib takes GiB: the fix says how to turn one into the other
    assert "prints MiB: divide by 1024" in exc.value.fix


def test_a_size_given_with_wsl2_is_planned_as_given():
    spec, notes = resolve_gpu("RTX 4090", gib=23.5, wsl2=True)
    assert spec.total_bytes == int(23.5 * GIB)
    assert any("planned as given" in n for n in notes)


def test_the_machine_path_under_wsl2_takes_nvmls_total_whole():
    # nvidia-smi -q under WSL (RTX 4070 Laptop, driver 566.36): Total 8188 MiB, Reserved 240 MiB; vLLM prints 8.0 GiB
    total, reserved = 8188 * MIB, 240 * MIB
    native = machine_gpu("NVIDIA GeForce RTX 4070 Laptop GPU", total, "8.9", reserved)
    wsl = machine_gpu("NVIDIA GeForce RTX 4070 Laptop GPU", total, "8.9", reserved, wsl2=True)
    assert native.total_bytes == total - reserved
    assert wsl.total_bytes == total and wsl.id == "rtx-4070-laptop"
    assert "WSL2" in wsl.total_source and "0.23 GiB reserved" in wsl.total_source
    # no v2 reserve read: the 0.6 GiB estimate is not taken under WSL2 either
    assert machine_gpu("NVIDIA GeForce RTX 4090", 24564 * MIB, "8.9", None, wsl2=True).total_bytes == 24564 * MIB
    assert machine_gpu("NVIDIA GeForce RTX 4090", 24564 * MIB, "8.9", None).total_bytes == find_gpu("RTX 4090").total_bytes


def _fake_nvml(name, total, reserved):
    return NS(nvmlInit=lambda: None, nvmlShutdown=lambda: None, nvmlDeviceGetCount=lambda: 1,
              nvmlDeviceGetHandleByIndex=lambda i: i, nvmlDeviceGetName=lambda h: name,
              nvmlDeviceGetCudaComputeCapability=lambda h: (8, 9), nvmlMemory_v2=0x02000028,
              nvmlDeviceGetMemoryInfo=lambda h, version=None: NS(total=total, used=reserved, free=total - reserved,
                                                                 reserved=reserved))


def test_detection_reads_wsl2_from_the_kernel(monkeypatch):
    import platform

    monkeypatch.undo()  # conftest's stand-in: the real kernel reading
    monkeypatch.setattr(platform, "system", lambda: "Linux")
    monkeypatch.setattr(platform, "release", lambda: "5.15.153.1-microsoft-standard-WSL2")
    assert r.running_under_wsl2()
    monkeypatch.setattr(platform, "system", lambda: "Windows")
    assert not r.running_under_wsl2()
    monkeypatch.setitem(sys.modules, "pynvml", _fake_nvml("NVIDIA GeForce RTX 4090", 24564 * MIB, 230 * MIB))
    monkeypatch.setattr(r, "running_under_wsl2", lambda: False)
    assert r.detect_gpu().total_bytes == (24564 - 230) * MIB  # native: NVML's total less its reserve
    spec, _ = resolve_gpu(None, wsl2=True)  # --wsl2 on a machine that is not: its card as under WSL2
    assert spec.total_bytes == 24564 * MIB
    monkeypatch.setattr(r, "running_under_wsl2", lambda: True)
    assert r.detect_gpu().total_bytes == 24564 * MIB


def test_preflight_under_wsl2_plans_nvmls_total_and_says_what_it_means():
    from test_preflight import by_check, fake_nvml, facts, req

    nvml = fake_nvml([{"name": "NVIDIA GeForce RTX 4090", "total": 24564 * MIB, "used": 240 * MIB, "reserved": 240 * MIB,
                       "cc": (8, 9)}])
    f = facts(kernel="5.15.153.1-microsoft-standard-WSL2", nvml=nvml)
    assert f.wsl == "WSL2" and f.gpus[0].wsl2
    assert f.gpus[0].cuda_total_bytes == 24564 * MIB and "as CUDA reports it" in f.gpus[0].label()
    os_f = by_check(pf.run_checks(f, req()), "os")
    assert "nvidia-smi's memory.total (23.99 GiB on GPU 0)" in os_f.message and "--wsl2" in os_f.fix
    native = facts(kernel="6.8.0-1015-aws", nvml=fake_nvml([{"name": "NVIDIA GeForce RTX 4090", "total": 24564 * MIB,
                                                             "used": 240 * MIB, "reserved": 240 * MIB, "cc": (8, 9)}]))
    assert not native.gpus[0].wsl2 and native.gpus[0].cuda_total_bytes == (24564 - 240) * MIB


def test_cli_fit_wsl2(monkeypatch, capsys):
    code, out, _ = run_cli(monkeypatch, capsys, "fit", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "RTX 4060",
                           "--max-model-len", "4096", "--wsl2", "--json")
    wsl = json.loads(out)
    code2, out2, _ = run_cli(monkeypatch, capsys, "fit", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "RTX 4060",
                             "--max-model-len", "4096", "--json")
    native = json.loads(out2)
    assert code == code2 == 0
    assert wsl["kv_cache_bytes"] > native["kv_cache_bytes"] + 0.3 * GIB  # 0.92 x (8.00 - 7.62) GiB more
    assert any("--wsl2" in a for a in wsl["assumptions"])
    refused(monkeypatch, capsys, "--wsl2", "fit", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "RTX 4070 Ti", "--wsl2")
    refused(monkeypatch, capsys, "--wsl2", "fit", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "auto", "--wsl2",
            "--max-model-len", "4096")


def test_cli_preflight_plans_a_named_gpu_under_wsl2_as_fit_does(monkeypatch, capsys):
    # a WSL2 box whose NVML does not load (no GPU found here): --gpu NAME --wsl2 plans the card with its nvidia-smi total,
    # as `kvplan fit --gpu NAME --wsl2` does, not the native total
    import kvplan
    from kvplan.cli import FitFlags
    from kvplan.cli.preflight import plan_for_machine
    from test_preflight import facts

    here = facts(smi=None, kernel="5.15.167.4-microsoft-standard-WSL2")
    assert here.wsl == "WSL2" and not here.gpus
    monkeypatch.setattr(pf, "gather_facts", lambda: here)
    card = find_gpu("RTX 4060")
    flags = ("Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "RTX 4060", "--max-model-len", "4096")
    fit = {w: kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "RTX 4060", max_model_len=4096, wsl2=w, detect_gpu=False)
           for w in (True, False)}
    assert fit[True].gpu.total_bytes == card.nvidia_smi_total_mib * MIB != fit[False].gpu.total_bytes
    for wsl in (True, False):
        plan, _ = plan_for_machine(flags[0], FitFlags(gpu="RTX 4060", max_model_len="4096", wsl2=wsl), here)
        assert plan.gpu.total_bytes == fit[wsl].gpu.total_bytes and plan.kv_cache_tokens == fit[wsl].kv_cache_tokens
        _, out, _ = run_cli(monkeypatch, capsys, "preflight", *flags, *(["--wsl2"] if wsl else []), "--json")
        assert json.loads(out)["request"]["plan_summary"].startswith(f"{fit[wsl].kv_cache_tokens:,} KV tokens")


def _a_wsl2_record(**gpu) -> dict:
    rec = json.loads(json.dumps(next(x for x in RECORDS if x["gpu"].get("wsl2"))))
    rec["gpu"].update(gpu)
    return rec


def test_a_record_marked_wsl2_that_logs_no_total_is_planned_with_the_cards_wsl2_total():
    from kvplan.validate import predict_record, validate_records

    rec = _a_wsl2_record()
    assert rec["gpu"]["total_gib"] is None
    card = find_gpu(rec["gpu"]["name"])
    plan, _ = predict_record(rec)
    assert plan.gpu.total_bytes == card.nvidia_smi_total_mib * MIB != card.total_bytes
    native, _ = predict_record(_a_wsl2_record(wsl2=False))
    assert native.gpu.total_bytes == card.total_bytes and plan.kv_cache_bytes > native.kv_cache_bytes
    # a total the log printed wins over the flag
    logged, _ = predict_record(_a_wsl2_record(total_gib=20.0))
    assert logged.gpu.total_bytes == int(20.0 * GIB)
    (r_,) = validate_records([_a_wsl2_record(wsl2="yes please")])
    assert r_.skipped and r_.skipped.startswith("gpu.wsl2")


def test_a_record_marked_wsl2_on_a_card_without_an_nvidia_smi_total_is_a_skip_naming_the_fix():
    from kvplan.validate import validate_records

    assert find_gpu("NVIDIA GeForce RTX 3060").nvidia_smi_total_mib is None  # no public nvidia-smi total in the catalog
    (res,) = validate_records([_a_wsl2_record(name="NVIDIA GeForce RTX 3060")])
    assert res.skipped.startswith("gpu.wsl2") and "add gpu.total_gib as vLLM logged it under WSL2" in res.skipped


def test_the_fallback_card_under_wsl2_says_its_total_as_a_named_card_does():
    """With no GPU named or detected, --wsl2 planned the T4 on its nvidia-smi total without the note a named card gets."""
    spec, notes = resolve_gpu(None, detect=False, wsl2=True)
    assert spec.total_bytes == find_gpu("T4").nvidia_smi_total_mib * MIB
    assert any(n.startswith("--wsl2: ") and f"{spec.total_gib:.2f} GiB" in n for n in notes), notes


def test_the_readme_counts_the_catalog_s_nvidia_smi_totals():
    """README's --wsl2 entry counts the cards --wsl2 can plan from their nvidia-smi total: it said 40 after the RTX 4050
    Laptop and RTX 5080 Laptop totals made 42."""
    import pathlib
    import re

    readme = (pathlib.Path(__file__).parents[1] / "README.md").read_text()
    said = int(re.search(r"from the catalog's nvidia-smi totals, (\d+)\s+cards", readme).group(1))
    assert said == sum(1 for g in r.gpu_catalog() if g.nvidia_smi_total_mib)
