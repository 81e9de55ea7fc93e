"""Cards a user in late 2026 types that kvplan refused as unknown (tools/build_catalog.py, stop 13): the RDNA4 Radeons
(AI PRO R9700, RX 9070 XT, RX 9070; gfx1201), the 8/16 GB Jetson Orin modules (compute capability 8.7, memory shared
with the CPU) and AMD Strix Halo (Radeon 8060S, gfx1151, memory shared with the CPU).

Each total is the figure its cited capture shows (rocminfo's GPU pool, torch's total_memory, deviceQuery under
JetPack 6); a card no public capture gives a total for (the Orin NX 8GB), or whose total is set per machine (Strix
Halo), is known by name and asked for --gpu-gib instead of being given an invented total.
"""

from __future__ import annotations

import json

import pytest

from kvplan.errors import UnknownGPUError
from kvplan.resolve import find_gpu, gpu_catalog, resolve_gpu, sizeless_gpus
from repo_scripts import load_script

GIB = 1024 ** 3
MIB = 1024 ** 2
build_catalog = load_script("tools/build_catalog.py")

# id -> (total bytes its source shows, text the total's source must quote, names that must resolve to it)
ADDED = {
    # rocminfo 'Size: 33406976(0x1fdc000) KB' (ROCm issue #5706) = 32624 MiB = vLLM's '(10/31.86 GiB)' on Navi48
    "radeon-ai-pro-r9700": (33406976 * 1024, "33406976(0x1fdc000) KB",
                            ["AMD Radeon AI PRO R9700", "Radeon AI PRO R9700", "AI PRO R9700", "R9700", "AMD Radeon R9700"]),
    # rocminfo 16695296 KB (ROCm issue #5388) = torch total_memory=16304MB (ROCm issue #5040)
    "rx-9070-xt": (16695296 * 1024, "16695296(0xfec000) KB",
                   ["AMD Radeon RX 9070 XT", "Radeon RX 9070 XT", "RX 9070 XT", "9070 XT", "9070XT"]),
    "rx-9070": (16304 * MIB, "RX 9070, 16304 MiB", ["AMD Radeon RX 9070", "Radeon RX 9070", "RX 9070", "9070"]),
    # deviceQuery under JetPack 6.2.1 (CUDA 12.6)
    "jetson-orin-nx-16gb": (16416792576, "15656 MBytes (16416792576 bytes)",
                            ["NVIDIA Jetson Orin NX 16GB", "Jetson Orin NX 16GB", "Orin NX 16GB"]),
    # deviceQuery '7620 MBytes' under JetPack 6.2.2 on the Orin Nano Developer Kit (8GB); torch 'Orin, 7620MiB'
    "jetson-orin-nano-8gb": (7620 * MIB, "7620 MBytes",
                             ["NVIDIA Jetson Orin Nano 8GB", "Jetson Orin Nano 8GB", "Orin Nano 8GB"]),
}


@pytest.mark.parametrize("gpu_id", sorted(ADDED))
def test_added_card_resolves_by_its_names_to_its_sourced_total(gpu_id: str):
    total, quote, names = ADDED[gpu_id]
    for name in names:
        g = find_gpu(name)
        assert g.id == gpu_id, name
        assert g.total_bytes == total
        assert g.total_source.startswith("CUDA total") and quote in g.total_source, g.total_source
        assert "estimate" not in g.total_source and g.sources


def test_rocm_cards_are_amd_and_name_their_gfx_target_and_vllms_word_on_it():
    for gpu_id, want in (("radeon-ai-pro-r9700", 0.64), ("rx-9070-xt", 0.64), ("rx-9070", 0.64)):
        g = next(c for c in gpu_catalog() if c.id == gpu_id)
        assert g.vendor == "AMD" and g.compute_capability is None and g.form == "desktop"
        assert g.hbm_bandwidth_tbps == pytest.approx(want)
        assert any("gfx1201" in s for s in g.sources), gpu_id
        assert any("gfx1200/1201" in s and "docs.vllm.ai" in s for s in g.sources), gpu_id  # no gate, the docs' word


def test_the_r9700_total_is_the_one_vllm_printed_on_navi48():
    # vLLM '(10/31.86 GiB)' on 8 x Navi48 (gfx12): rocminfo's pool rounds to it; a 16 GB Navi48 card reports 15.92
    assert round(find_gpu("R9700").total_gib, 2) == 31.86
    assert round(find_gpu("RX 9070 XT").total_gib, 2) == round(find_gpu("RX 9070").total_gib, 2) == 15.92


def test_orin_modules_are_integrated_memory_parts_of_compute_capability_8_7():
    for name in ("Jetson Orin NX 16GB", "Jetson Orin Nano 8GB"):
        g = find_gpu(name)
        assert g.compute_capability == "8.7" and g.vendor == "NVIDIA"
        assert g.form == "integrated" and g.one_per_machine and g.integrated_memory
        assert any("UNIFIED MEMORY" in s for s in g.sources) and any("jetson-containers" in s for s in g.sources)
    assert find_gpu("Jetson Orin NX 16GB").hbm_bandwidth_tbps == pytest.approx(0.1024)
    assert find_gpu("Jetson Orin Nano 8GB").hbm_bandwidth_tbps == pytest.approx(0.068)


@pytest.mark.parametrize("ref,other_gb", [("Orin NX", 8), ("Jetson Orin NX", 8), ("Jetson Orin Nano", 4),
                                          ("NVIDIA Jetson Orin Nano", 4)])
def test_a_bare_orin_name_sold_with_other_memory_is_asked_about(ref: str, other_gb: int):
    with pytest.raises(UnknownGPUError) as err:
        find_gpu(ref)
    assert f"also sold with {other_gb} GB" in str(err.value) and "--gpu-gib" in str(err.value)


@pytest.mark.parametrize("ref,gpu_id", [
    ("Orin NX 8GB", "jetson-orin-nx-8gb"), ("NVIDIA Jetson Orin NX 8GB", "jetson-orin-nx-8gb"),
    ("Strix Halo", "strix-halo"), ("Radeon 8060S", "strix-halo"), ("AMD Radeon(TM) 8060S Graphics", "strix-halo"),
    ("Radeon 8060S Graphics", "strix-halo"), ("Ryzen AI Max+ 395", "strix-halo"), ("AMD Ryzen AI Max+ 395", "strix-halo"),
])
def test_a_card_with_no_sourced_total_asks_for_it_and_says_why(ref: str, gpu_id: str):
    card = next(g for g in sizeless_gpus() if g.id == gpu_id)
    with pytest.raises(UnknownGPUError) as err:
        find_gpu(ref)
    text = str(err.value)
    assert err.value.field == "--gpu-gib" and card.name in text and f"--gpu {gpu_id!r} --gpu-gib N" in text
    assert card.total_source in text  # why the catalog holds none
    assert gpu_id not in {g.id for g in gpu_catalog()}  # never planned on an invented total


def test_a_card_with_no_sourced_total_is_planned_on_the_total_given_with_its_own_facts():
    strix, notes = resolve_gpu("Strix Halo", gib=96, detect=False)
    assert strix.total_bytes == 96 * GIB and strix.vendor == "AMD" and strix.form == "integrated"
    assert strix.hbm_bandwidth_tbps == pytest.approx(0.256) and "8060S" in strix.name and not notes
    nx8, _ = resolve_gpu("2x Orin NX 8GB", gib=7.4, detect=False)
    assert nx8.compute_capability == "8.7" and nx8.form == "integrated" and nx8.total_gib == pytest.approx(7.4)
    # a logged total (validate's path) plans the card, not an unnamed one
    logged = find_gpu("NVIDIA Jetson Orin NX 8GB", total_bytes=int(7.4 * GIB))
    assert logged.id == "jetson-orin-nx-8gb" and logged.compute_capability == "8.7" and "given" in logged.total_source


def test_strix_halos_reason_quotes_the_spread_of_public_totals():
    reason = build_catalog.NO_TOTAL_REASONS["strix-halo"]
    assert "11828" in reason and "104906" in reason  # torch total_memory on gfx1151 across machines (MiB)
    card = next(g for g in sizeless_gpus() if g.id == "strix-halo")
    assert any("total_memory=104906MB" in s for s in card.sources) and any("total_memory=64038MB" in s for s in card.sources)
    assert any("gfx1151/1150" in s for s in card.sources)  # vLLM's docs: Ryzen AI MAX needs ROCm 7.0.2


def test_sizeless_names_do_not_capture_or_shadow_catalog_cards():
    from kvplan.resolve import _gpu_key

    catalog_keys = {_gpu_key(n) for g in gpu_catalog() for n in (g.id, g.name, *g.aliases)}
    for g in sizeless_gpus():
        assert not catalog_keys & {_gpu_key(n) for n in (g.id, g.name, *g.aliases)}, g.id
    # the cards already in the catalog answer as before
    assert find_gpu("RX 7900 XTX").id == "rx-7900-xtx" and find_gpu("Jetson AGX Orin 64GB").id == "jetson-agx-orin-64gb"
    with pytest.raises(UnknownGPUError, match="unknown GPU"):
        find_gpu("Gaudi 3")  # a card without a total and without a reason stays unknown, as before


def test_the_catalog_rows_say_which_parts_share_memory_with_the_cpu():
    rows = {r["id"]: r for r in json.loads(
        (build_catalog.OUT / "gpus.json").read_text())}
    assert {k for k, r in rows.items() if r["integrated_memory"]} == {
        "gb10", "jetson-thor", "jetson-agx-orin-64gb", "jetson-orin-nx-16gb", "jetson-orin-nx-8gb",
        "jetson-orin-nano-8gb", "strix-halo"}
    assert {k for k, r in rows.items() if r["no_total_reason"]} == {"jetson-orin-nx-8gb", "strix-halo"}
    assert all(set(r) == set(rows["l4"]) for r in rows.values())  # identical keys in every row


@pytest.mark.parametrize("search", ["Strix Halo", "8060S", "Orin NX 8GB"])
def test_the_listing_names_a_card_known_without_a_total(monkeypatch, capsys, search):
    # `kvplan gpus "Strix Halo"` answered "no GPU contains 'Strix Halo'" for a card --gpu knows by that name
    from cli_runner import run_cli

    code, out, err = run_cli(monkeypatch, capsys, "gpus", search)
    assert code == 0 and "no GPU contains" not in out + err
    assert "known, but with no fixed total memory" in out and "--gpu-gib N" in out


@pytest.mark.parametrize("search", ["Orin NX", "Jetson", "Radeon"])
def test_the_listing_names_a_card_known_without_a_total_beside_the_cards_found(monkeypatch, capsys, search):
    # `kvplan gpus "Orin NX"` listed the 16 GB module alone: the 8 GB one, which --gpu knows, was named only where no
    # catalog card matched the search
    from cli_runner import run_cli

    code, out, err = run_cli(monkeypatch, capsys, "gpus", search)
    assert code == 0 and "GPU catalog" in out
    assert "known, but with no fixed total memory" in out and "--gpu-gib N" in out


def test_the_json_listing_holds_the_cards_the_table_names_without_a_total(monkeypatch, capsys):
    # 'gpus "Strix Halo" --json' printed [] while the table named the card; 'Orin NX' --json held the 16 GB module only
    from cli_runner import run_cli

    code, out, err = run_cli(monkeypatch, capsys, "gpus", "Orin NX", "--json")
    rows = {r["id"]: r for r in json.loads(out)}
    assert code == 0 and rows["jetson-orin-nx-16gb"]["total_gib"] > 15 and rows["jetson-orin-nx-8gb"]["total_gib"] is None
    assert rows["jetson-orin-nx-8gb"]["total_source"]
    code, out, err = run_cli(monkeypatch, capsys, "gpus", "Strix Halo", "--json")
    assert [r["id"] for r in json.loads(out)] == ["strix-halo"]
