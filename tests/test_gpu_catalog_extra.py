"""The consumer / workstation cards added to the embedded GPU catalog by tools/build_catalog.py (EXTRA_GPUS).

Each total is the figure its cited capture shows; the names must resolve the way logs and users write them, and
must not capture a neighbouring card the catalog does not hold (an 8 GB RTX 4060 Ti is not the 16 GB one).
"""

from __future__ import annotations

import pytest

from kvplan.errors import UnknownGPUError
from kvplan.resolve import find_gpu, gpu_catalog

GIB = 1024 ** 3


def _estimated(nvidia_smi_mib: int) -> float:
    """GiB the catalog estimates from nvidia-smi's total: less the driver reserve fitted in tools/build_catalog.py
    (289 MiB + 3.22 MiB per GiB of nvidia-smi total; tests/test_gpu_reserve_fit.py)."""
    return (nvidia_smi_mib - (288.969 + 3.22104 * nvidia_smi_mib / 1024)) / 1024

# id -> (total GiB its source shows, names that must resolve to it: NVML's spelling first)
ADDED = {
    "rtx-3060": (11.63, ["NVIDIA GeForce RTX 3060", "RTX 3060", "3060", "RTX 3060 12GB"]),
    "rtx-3080": (10472390656 / GIB, ["NVIDIA GeForce RTX 3080", "RTX 3080", "3080", "RTX 3080 10GB"]),
    "rtx-3080-ti": (12630491136 / GIB, ["NVIDIA GeForce RTX 3080 Ti", "RTX 3080 Ti", "3080 Ti", "3080Ti"]),
    "rtx-4060ti-16gb": (16857038848 / GIB, ["NVIDIA GeForce RTX 4060 Ti 16GB", "RTX 4060 Ti 16GB", "4060 Ti 16GB"]),
    "rtx-4070ti-super": (15974 / 1024, ["NVIDIA GeForce RTX 4070 Ti SUPER", "RTX 4070 Ti SUPER", "4070Ti SUPER"]),
    "rtx-5060ti-16gb": (16617897984 / GIB, ["NVIDIA GeForce RTX 5060 Ti 16GB", "RTX 5060 Ti 16GB", "5060Ti 16GB"]),
    "rtx-5080": (15.48, ["NVIDIA GeForce RTX 5080", "RTX 5080", "5080", "RTX 5080 16GB"]),
    "rtx-2080ti": (10.57, ["NVIDIA GeForce RTX 2080 Ti", "RTX 2080 Ti", "2080 Ti", "2080Ti"]),
    "rtx-a5000": (24114 / 1024, ["NVIDIA RTX A5000", "RTX A5000", "A5000"]),
    "rtx-4000ada": (21125267456 / GIB, ["NVIDIA RTX 4000 Ada Generation", "RTX 4000 Ada", "RTX 4000 Ada Generation"]),
    "rtx-6000-ada": (51002867712 / GIB, ["NVIDIA RTX 6000 Ada Generation", "RTX 6000 Ada", "6000 Ada"]),
    "l20": (_estimated(46068), ["NVIDIA L20", "L20"]),
    "mi210": (67092480 / 1024 ** 2, ["AMD Instinct MI210", "MI210"]),
    # stop 12: laptop, Turing, workstation and Pascal cards, and the GH200 144GB
    "rtx-4060": (7807 / 1024, ["NVIDIA GeForce RTX 4060", "RTX 4060", "4060"]),
    "rtx-4060-laptop": (7806 / 1024, ["NVIDIA GeForce RTX 4060 Laptop GPU", "RTX 4060 Laptop"]),
    "rtx-4090-laptop": (_estimated(16376), ["NVIDIA GeForce RTX 4090 Laptop GPU", "RTX 4090 Laptop"]),
    "rtx-3070-ti": (7840 / 1024, ["NVIDIA GeForce RTX 3070 Ti", "RTX 3070 Ti", "3070 Ti"]),
    "rtx-3080-laptop-16gb": (15993 / 1024, ["RTX 3080 Laptop 16GB"]),
    "rtx-2060": (5918 / 1024, ["RTX 2060 6GB"]),
    "rtx-2080-super": (7982 / 1024, ["NVIDIA GeForce RTX 2080 SUPER", "RTX 2080 SUPER"]),
    "rtx-a2000-12gb": (12017 / 1024, ["NVIDIA RTX A2000 12GB", "RTX A2000 12GB"]),
    "rtx-4000-sff-ada": (20055 / 1024, ["NVIDIA RTX 4000 SFF Ada Generation", "RTX 4000 SFF Ada"]),
    "rtx-pro-4000-blackwell": (_estimated(24467), ["NVIDIA RTX PRO 4000 Blackwell", "RTX PRO 4000 Blackwell"]),
    "gh200-144gb": (142.50, ["NVIDIA GH200 144G HBM3e", "GH200 144GB"]),
    "tesla-p100-pcie-16gb": (16269 / 1024, ["Tesla P100-PCIE-16GB", "P100"]),
    "a800-40gb-pcie": (_estimated(40960), ["NVIDIA A800 40GB Active", "A800 40GB PCIe"]),
    "gtx-1080-ti": (11714691072 / GIB, ["NVIDIA GeForce GTX 1080 Ti", "GTX 1080 Ti"]),
    "titan-v": (12650414080 / GIB, ["NVIDIA TITAN V", "TITAN V"]),
    "rtx-3060-laptop": (6234832896 / GIB, ["NVIDIA GeForce RTX 3060 Laptop GPU", "RTX 3060 Laptop"]),
    "quadro-rtx-6000": (_estimated(24576), ["Quadro RTX 6000", "NVIDIA Quadro RTX 6000"]),
}


@pytest.mark.parametrize("gpu_id", sorted(ADDED))
def test_added_card_resolves_by_its_names_to_its_sourced_total(gpu_id: str):
    gib, names = ADDED[gpu_id]
    for name in names:
        g = find_gpu(name)
        assert g.id == gpu_id, name
        assert g.total_gib == pytest.approx(gib, abs=0.005)
        assert g.total_source and "unknown" not in g.total_source
        assert g.sources, gpu_id


@pytest.mark.parametrize("ref", [
    "NVIDIA GeForce RTX 4060 Ti",  # NVML names the 8 GB and 16 GB cards alike: both in the catalog, so asked
    "NVIDIA GeForce RTX 5060 Ti",  # also sold with 8 GB, which the catalog lacks
    "RTX 2060",  # also sold with 12 GB
    "GH200", "A800",  # GH200 96 or 144 GB; A800 40 or 80 GB
    "RTX 4000",  # Quadro RTX 4000 (8 GB) or RTX 4000 Ada (20 GB): ambiguous
    "Quadro RTX 4000",
    "RTX 6000",  # Quadro RTX 6000, RTX 6000 Ada (48 GB) or RTX PRO 6000 (96 GB)
    "V100",  # 16 or 32 GB
    "NVIDIA Jetson AGX Orin",  # 32 or 64 GB
    "NVIDIA GeForce RTX 3080 Laptop GPU",
])
def test_neighbours_the_catalog_lacks_or_cannot_tell_apart_stay_unknown(ref: str):
    with pytest.raises(UnknownGPUError):
        find_gpu(ref)


@pytest.mark.parametrize("ref,gpu_id", [
    ("NVIDIA GeForce RTX 2080", "rtx-2080"), ("RTX 2080 Ti", "rtx-2080ti"),  # Ti is part of the model number
    ("NVIDIA GeForce RTX 4070 Ti", "rtx-4070-ti"), ("RTX 4070 Ti SUPER", "rtx-4070ti-super"),
    ("RTX 4070 SUPER", "rtx-4070-super"), ("RTX 4070", "rtx-4070"), ("RTX 3060 Ti", "rtx-3060-ti"),
    ("RTX 3060", "rtx-3060"), ("NVIDIA GeForce RTX 4060 Ti", "rtx-4060ti-8gb"),
])
def test_suffixed_model_numbers_are_cards_of_their_own(ref: str, gpu_id: str):
    kw = {"total_bytes": 7806 * 1024 ** 2} if "4060" in ref else {}  # the 8 GB card's total tells it apart
    assert find_gpu(ref, **kw).id == gpu_id


def test_a_name_several_cards_answer_to_says_which_and_how_to_choose():
    with pytest.raises(UnknownGPUError) as err:
        find_gpu("NVIDIA GeForce RTX 4060 Ti")
    assert "7.62 GiB" in str(err.value) and "15.70 GiB" in str(err.value) and "--gpu-gib" in str(err.value)
    with pytest.raises(UnknownGPUError) as err:
        find_gpu("RTX 5060 Ti")
    assert "also sold with 8 GB" in str(err.value)
    assert find_gpu("RTX 5060 Ti 16GB").id == "rtx-5060ti-16gb"
    assert find_gpu("RTX 5060 Ti", total_bytes=16617897984).id == "rtx-5060ti-16gb"  # a logged total decides


@pytest.mark.parametrize("ref,gpu_id", [
    ("RTX 3090", "rtx-3090"), ("RTX 3090 24GB", "rtx-3090"), ("3090", "rtx-3090"),
    ("RTX 4090", "rtx-4090"), ("RTX 4080", "rtx-4080"), ("RTX 5090", "rtx-5090"),
    ("RTX PRO 6000", "rtx-pro-6000-blackwell"),
    ("RTX A6000", "rtx-a6000"), ("A6000", "rtx-a6000"), ("L4", "l4"), ("L40", "l40"), ("L40S", "l40s"),
    ("A800 80GB", "a800-80gb-sxm"), ("MI250X", "mi250x"),
])
def test_names_of_cards_already_in_the_catalog_resolve_as_before(ref: str, gpu_id: str):
    assert find_gpu(ref).id == gpu_id


@pytest.mark.parametrize("ref,catalog_gb", [
    ("RTX 3080 12GB", 10),  # same NVML name as the 10 GB card; no public total for it was found
    ("RTX 4090 48GB", 24), ("RTX 2080 Ti 22GB", 11),  # re-fitted cards seen in vLLM issues
    ("T4 8GB", 16), ("A100 120GB", 80),
])
def test_a_size_in_the_name_that_no_catalog_variant_has_is_asked_for_not_assumed(ref: str, catalog_gb: int):
    with pytest.raises(UnknownGPUError) as err:
        find_gpu(ref)
    text = str(err.value)
    assert f"{catalog_gb} GB" in text and "--gpu-gib" in text


@pytest.mark.parametrize("ref,gpu_id", [
    ("A100 40GB", "a100-40gb-sxm"), ("A100 80GB PCIe", "a100-80gb-pcie"), ("H100 94GB", "h100-nvl"),
    ("RTX 3090 24GB", "rtx-3090"), ("RTX 4060 Ti 16GB", "rtx-4060ti-16gb"), ("V100 16GB", "v100-16gb"),
])
def test_a_size_in_the_name_picks_the_variant_that_has_it(ref: str, gpu_id: str):
    assert find_gpu(ref).id == gpu_id


def test_a_logged_total_overrides_the_named_size_check():
    # validate passes the record's total: the catalog card supplies the other facts, the record its memory
    assert find_gpu("RTX 4090 48GB", total_bytes=int(47.37 * GIB)).id == "rtx-4090"


def _fake_nvml(name: str, total: int, cc=(8, 9), reserved: int | None = None):
    from types import SimpleNamespace as NS
    fake = NS(nvmlInit=lambda: None, nvmlShutdown=lambda: None, nvmlDeviceGetCount=lambda: 1,
              nvmlDeviceGetHandleByIndex=lambda i: i, nvmlDeviceGetName=lambda h: name,
              nvmlDeviceGetMemoryInfo=lambda h: NS(total=total, used=0, free=total),
              nvmlDeviceGetCudaComputeCapability=lambda h: cc)
    if reserved is not None:  # a driver with NVML's v2 memory info, which states the reserve
        fake.nvmlMemory_v2 = 0x02000028
        fake.nvmlDeviceGetMemoryInfo = lambda h, version=None: NS(
            total=total, used=0 if version is None else reserved, free=total - reserved,
            **({} if version is None else {"reserved": reserved}))
    return fake


def test_detection_reads_cudas_total_from_nvmls_reserve(monkeypatch):
    # An H200 (driver 580.159.04, bench/probe_gpu.py): NVML's total less its reserved = CUDA's, the catalog's
    import sys
    from kvplan.resolve import detect_gpu
    monkeypatch.setitem(sys.modules, "pynvml", _fake_nvml("NVIDIA H200", 150_754_820_096, (9, 0), 644_939_776))
    g = detect_gpu()
    assert g.id == "h200" and g.total_bytes == 150_109_880_320 == find_gpu("H200").total_bytes


def test_detection_takes_this_machines_total_where_its_driver_reserves_otherwise(monkeypatch):
    import sys
    from kvplan.resolve import detect_gpu
    card = find_gpu("L4")
    nvml_total = 23034 * 1024 ** 2
    reserved = nvml_total - card.total_bytes + 64 * 1024 ** 2  # 64 MiB more than the catalog's driver kept
    monkeypatch.setitem(sys.modules, "pynvml", _fake_nvml("NVIDIA L4", nvml_total, (8, 9), reserved))
    g = detect_gpu()
    assert g.id == "l4" and g.total_bytes == card.total_bytes - 64 * 1024 ** 2
    assert "this machine" in g.total_source and "another driver" in g.total_source


def test_an_unknown_gpu_with_nvmls_reserve_gets_an_exact_total(monkeypatch):
    import sys
    from kvplan.resolve import detect_gpu
    monkeypatch.setitem(sys.modules, "pynvml", _fake_nvml("NVIDIA H300 Engineering Sample", 200 * GIB, (10, 0),
                                                          int(0.75 * GIB)))
    g = detect_gpu()
    assert g.id == "detected" and g.total_bytes == 200 * GIB - int(0.75 * GIB) and "estimate" not in g.total_source


def test_detection_keeps_the_catalog_card_when_nvml_agrees_on_its_memory(monkeypatch):
    import sys
    from kvplan.resolve import detect_gpu
    monkeypatch.setitem(sys.modules, "pynvml", _fake_nvml("NVIDIA GeForce RTX 4090", 24564 * 1024 ** 2))
    g = detect_gpu()
    assert g.id == "rtx-4090" and g.total_gib == pytest.approx(23.65, abs=0.01)


def test_detection_takes_nvmls_memory_when_the_same_name_has_other_memory(monkeypatch):
    # A re-fitted 48 GB RTX 4090 reports the plain name: its memory is NVML's (less the driver reserve, fitted as the
    # catalog's estimates take it: 289 + 3.22 x 48 = 444 MiB, tools/build_catalog.py reserve_fit; was a flat 0.6 GiB),
    # its other facts (compute capability, bandwidth) the catalog card's
    import sys
    from kvplan.resolve import detect_gpu
    monkeypatch.setitem(sys.modules, "pynvml", _fake_nvml("NVIDIA GeForce RTX 4090", 48 * GIB))
    g = detect_gpu()
    base = find_gpu("RTX 4090")
    assert g.total_gib == pytest.approx(48 - 444 / 1024, abs=0.01)
    assert g.compute_capability == base.compute_capability and g.hbm_bandwidth_tbps == base.hbm_bandwidth_tbps
    assert "NVML" in g.total_source and "48 GiB" in g.name


def test_catalog_ids_names_and_aliases_do_not_collide():
    from kvplan.resolve import _gpu_key

    owner: dict[str, str] = {}
    shared = {"v100", "a800", "gh200"}  # memory variants answer to these on purpose: asked, or told by a logged total
    for g in gpu_catalog():
        for n in {_gpu_key(x) for x in (g.id, g.name, *g.aliases)}:
            if n in owner and n not in shared:
                assert owner[n] == g.id, f"{n!r} names both {owner[n]} and {g.id}"
            owner.setdefault(n, g.id)


def test_the_cloud_default_among_memory_variants_is_said():
    from kvplan.resolve import resolve_gpu
    gpu, notes = resolve_gpu("A100", detect=False)
    assert gpu.id == "a100-80gb-sxm"
    assert any("39 GiB" in n and "the variant clouds rent most" in n for n in notes)
    assert not resolve_gpu("A100 40GB", detect=False)[1]  # a named size is not a choice


def test_the_cloud_default_among_memory_variants_is_a_warning_of_the_plan():
    # a plan for the 80 GB card on a 40 GB one is twice too large: said where the verdict is, not only under --explain
    import kvplan
    p = kvplan.fit("Qwen/Qwen2.5-7B-Instruct", "A100", detect_gpu=False, fixes=False, max_model_len=4096)
    assert p.gpu.id == "a100-80gb-sxm" and any("39 GiB" in w for w in p.warnings)
    named = kvplan.fit("Qwen/Qwen2.5-7B-Instruct", "A100 40GB", detect_gpu=False, fixes=False, max_model_len=4096)
    assert not any("variant" in w for w in named.warnings)
    two = kvplan.fit("Qwen/Qwen2.5-7B-Instruct", "2x A100", detect_gpu=False, fixes=False, max_model_len=4096,
                     tensor_parallel_size=2)
    assert any("39 GiB" in w for w in two.warnings) and not any("names 2 GPUs" in w for w in two.warnings)


@pytest.mark.parametrize("name,bf16_tflops", [("MI325X", 1307.4), ("MI355X", 2516), ("MI350 series", 2516)])
def test_sourced_card_keeps_the_shared_rows_compute_figures(name: str, bf16_tflops: float):
    """A card re-sourced in EXTRA_GPUS is merged onto the shared row: its sourced total, the row's TFLOPS/aliases."""
    g = find_gpu(name)
    assert g.bf16_tflops == pytest.approx(bf16_tflops)
    assert g.total_source.startswith(("CUDA total", "seen in a vLLM"))


def test_infinity_fabric_is_a_gpu_fabric_not_the_pcie_slot():
    from kvplan.simulate import DEFAULT_COEFFICIENTS, link_bytes_per_s

    g = find_gpu("MI300X")
    rate, _, what = link_bytes_per_s(g.interconnect, g.has_nvlink, DEFAULT_COEFFICIENTS)
    assert "Infinity Fabric" in what and rate == DEFAULT_COEFFICIENTS.nvlink_bytes_per_s
    rate_pcie, _, _ = link_bytes_per_s("PCIe Gen5 x16; no NVLink", False, DEFAULT_COEFFICIENTS)
    assert rate_pcie < rate / 5


def test_pascal_cards_are_known_so_the_refusal_can_be_explained():
    import kvplan

    p = kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "Tesla P100", max_model_len=4096)
    assert not p.fits and "compute capability 6.0" in p.error
    # the Volta TITAN V runs releases built for 7.0 (up to 0.19), not the 7.5 wheels after
    assert kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "TITAN V", max_model_len=4096, vllm_version="0.19.0").fits
    assert kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "TITAN V", max_model_len=4096, vllm_version="0.20.0").failure == "platform"


def test_a_desktop_device_name_is_not_read_as_the_laptop_part_of_its_number():
    # the catalog holds the RTX 3050 only as a laptop part (3.68 GiB); the desktop card (8 GB) is another card, and a
    # laptop part's device name says 'Laptop GPU', so CUDA's desktop name was planned on 3.68 GiB without a word
    import pytest

    from kvplan.errors import KvplanError
    from kvplan.resolve import _find_gpu, find_gpu

    with pytest.raises(KvplanError, match="laptop part"):
        find_gpu("NVIDIA GeForce RTX 3050")
    laptop, notes = _find_gpu("RTX 3050")  # a short name: the laptop card, said
    assert "Laptop" in laptop.name and any("only the laptop part" in n for n in notes)
    assert _find_gpu("NVIDIA GeForce RTX 3050 Laptop GPU")[1] == []
    # where a desktop card of the number is in the catalog, the name without 'Laptop' is that card, as before
    assert "Laptop" not in find_gpu("NVIDIA GeForce RTX 4070").name and "Laptop" not in find_gpu("RTX 4090").name


# Dense tensor figures sourced from NVIDIA datasheets / whitepapers (tools/build_catalog.py EXTRA_TFLOPS): a datasheet
# figure printed "with sparsity" is halved; GeForce cards carry the FP32-accumulate row.
@pytest.mark.parametrize("name,field,dense", [
    ("A10", "bf16_tflops", 250 / 2),            # datasheet '125 TF | 250 TF*'
    ("H100 NVL", "bf16_tflops", 1671 / 2),      # datasheet '1,671 teraFLOPS*', * with sparsity
    ("H100 NVL", "fp8_tflops", 3341 / 2),
    ("RTX 3090", "bf16_tflops", 142.4 / 2),     # RTX Blackwell whitepaper, FP32 accumulate 71.2/142.4
    ("RTX 5090", "bf16_tflops", 419 / 2),
    ("RTX 5090", "fp4_tflops", 3352 / 2),       # the 3352 'AI TOPS' headline is FP4 with sparsity
    ("RTX A6000", "bf16_tflops", 309.6 / 2),
    ("RTX 6000 Ada", "bf16_tflops", 728 / 2),
    ("TITAN RTX", "fp16_tflops", 130.5),        # Turing: no sparsity, no BF16
])
def test_sourced_dense_tensor_figures(name: str, field: str, dense: float):
    spec = find_gpu(name)
    assert getattr(spec, field) == pytest.approx(dense, abs=0.06)
    row = next(r for r in _rows() if r["id"] == spec.id)
    cited = [s for s in row["sources"] if isinstance(s, dict) and f"{field}_dense" in (s.get("fields") or [])]
    assert cited and "nvidia" in cited[0]["url"].lower()
    # the step model times the card's prefills on compute now, not on bandwidth alone
    assert spec.peak_flops("bfloat16") and spec.peak_flops("bfloat16") > 0


def _rows() -> list[dict]:
    import json
    from importlib import resources
    return json.loads(resources.files("kvplan.data").joinpath("gpus.json").read_text())


# Derived GeForce tensor figures (tools/build_catalog.py DERIVED_TENSOR_CARDS): FLOP/clk/SM x SMs x boost clock. The
# per-SM rate must reproduce every whitepaper-printed figure it is checked against within 1 % before it stands in for
# the cards no whitepaper lists.
def _build_catalog():
    from repo_scripts import load_script
    return load_script("tools/build_catalog.py")


def test_tensor_derivation_reproduces_whitepaper_figures():
    bc = _build_catalog()
    assert {arch for _, arch, *_ in bc.DERIVATION_CHECKS} == set(bc.GEFORCE_TENSOR_FLOP_PER_SM_CLOCK)  # each arch checked
    for gid, arch, sms, mhz, printed in bc.DERIVATION_CHECKS:
        assert bc.derived_tensor_tflops(arch, sms, mhz) == pytest.approx(printed, rel=0.01), gid
        # and the catalog carries the printed (sourced) figure for the card, not a derived one
        row = next(r for r in _rows() if r["id"] == gid)
        assert row["bf16_tflops"] == pytest.approx(printed, rel=0.01)
        assert not any(isinstance(s, dict) and "derived" in s for s in row["sources"])


@pytest.mark.parametrize("name,dense", [
    ("RTX 4060 Ti 16GB", 44.1),   # 512 x 34 x 2,535 MHz
    ("RTX 3090 Ti", 80.0),        # 512 x 84 x 1,860 MHz
    ("RTX 4090 D", 147.1),        # 512 x 114 x 2,520 MHz
    ("RTX 5070", 61.7),           # 512 x 48 x 2,510 MHz
])
def test_derived_geforce_tensor_figures_are_marked(name: str, dense: float):
    bc = _build_catalog()
    spec = find_gpu(name)
    assert spec.bf16_tflops == pytest.approx(dense, abs=0.06)
    arch, sms, mhz, _ = bc.DERIVED_TENSOR_CARDS[spec.id]
    assert spec.bf16_tflops == pytest.approx(bc.derived_tensor_tflops(arch, sms, mhz), abs=0.05)
    row = next(r for r in _rows() if r["id"] == spec.id)
    marked = [s for s in row["sources"] if isinstance(s, dict) and "bf16_tflops_dense" in s["fields"]]
    assert len(marked) == 1 and marked[0]["derived"].startswith("DERIVED") and f"x {sms} SMs x {mhz} MHz" in marked[0]["derived"]
    assert marked[0]["url"]  # the SM count / boost clock source
