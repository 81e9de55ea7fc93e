"""`--gpu auto` searches data-center and workstation cards unless `--gpu-kinds` says otherwise: at 8,192 tokens it
picked an RTX 4050 Laptop GPU for Qwen3-0.6B (naming an RTX 3050 Laptop as the smaller warm start) and 2 x GeForce RTX
2080 Ti for Llama-3.1-8B, cards nobody sizing a server rents. Each catalog card's kind (GPUSpec.kind) comes from its
name, as its form does."""

from __future__ import annotations

import json
import re

import pytest

from cli_runner import refused, run_cli
from kvplan.api import AUTO_GPU_KINDS, GPU_KINDS, gpu_kinds_words, parse_gpu_kinds
from kvplan.errors import InputError
from kvplan.resolve import gpu_catalog, sizeless_gpus

SMALL = "Qwen/Qwen3-0.6B"


def test_every_card_has_a_kind_its_name_supports():
    """Every catalog card (and every card known without a total) is of one kind; a laptop card's name says 'Laptop', a
    consumer card's GeForce, TITAN or Radeon RX, and a data-center or workstation card's neither."""
    cards = gpu_catalog() + sizeless_gpus()
    kinds = {g.kind for g in cards}
    assert kinds == set(GPU_KINDS)
    for g in cards:
        name = g.name.lower()
        assert ("laptop" in name) == (g.kind == "laptop"), g.name
        if g.kind in AUTO_GPU_KINDS:
            assert not re.search(r"geforce|titan|radeon rx|laptop|jetson", name), g.name
        if g.kind == "consumer":
            assert re.search(r"geforce|titan|radeon rx", name), g.name
        assert (g.kind == "integrated") == (g.form == "integrated"), g.name
    by_id = {g.id: g.kind for g in cards}
    assert (by_id["h100-sxm"], by_id["rtx-a6000"], by_id["rtx-4090"], by_id["rtx-4060-laptop"], by_id["gb10"]) == \
        ("datacenter", "workstation", "consumer", "laptop", "integrated")


def test_gpu_kinds_are_read_and_bad_ones_refused():
    assert parse_gpu_kinds(None) == AUTO_GPU_KINDS == ("datacenter", "workstation")
    assert parse_gpu_kinds("consumer, data-center") == ("datacenter", "consumer")  # (GPU_KINDS' order)
    assert parse_gpu_kinds("all") == GPU_KINDS
    with pytest.raises(InputError) as e:
        parse_gpu_kinds("datacenter,lapto")
    assert e.value.field == "--gpu-kinds" and "lapto" in e.value.message and "laptop" in e.value.fix
    assert gpu_kinds_words(AUTO_GPU_KINDS) == "data-center and workstation cards" and gpu_kinds_words(GPU_KINDS) == ""


def _pick(monkeypatch, capsys, *extra):
    code, out, err = run_cli(monkeypatch, capsys, "fit", SMALL, "--gpu", "auto", "--max-model-len", "8192", *extra, "--json")
    assert code == 0, err
    d = json.loads(out)
    name = d["gpu"]
    card = next(g for g in gpu_catalog() if g.name == name)
    return card, d["args"]["tensor_parallel_size"], d["inverse"]


def test_gpu_auto_picks_no_laptop_or_consumer_card_unless_asked(monkeypatch, capsys):
    """Qwen3-0.6B at 8,192 tokens: the whole catalog's smallest card is a laptop's (the premise), the default search's a
    data-center or workstation card, named with the kinds searched; asked for, the laptop card is picked again, and a
    search over every kind finds a card no larger than the default's (it searches a superset)."""
    every, every_tp, every_note = _pick(monkeypatch, capsys, "--gpu-kinds", "all")
    assert every.kind == "laptop"  # the premise: what --gpu auto answered before
    card, tp, note = _pick(monkeypatch, capsys)
    assert card.kind in AUTO_GPU_KINDS
    assert f"searched: {gpu_kinds_words(AUTO_GPU_KINDS)} (--gpu-kinds all searches every kind)" in note
    assert "searched:" not in every_note
    assert every.total_bytes * every_tp <= card.total_bytes * tp
    laptop, _, laptop_note = _pick(monkeypatch, capsys, "--gpu-kinds", "laptop")
    assert laptop.kind == "laptop" and "searched: laptop cards" in laptop_note
    consumer, _, _ = _pick(monkeypatch, capsys, "--gpu-kinds", "consumer")
    assert consumer.kind == "consumer"


def test_gpu_kinds_without_gpu_auto_is_refused(monkeypatch, capsys):
    text = refused(monkeypatch, capsys, "--gpu-kinds", "fit", SMALL, "--gpu", "L4", "--gpu-kinds", "consumer")
    assert "give --gpu auto, or drop --gpu-kinds" in text
    refused(monkeypatch, capsys, "--gpu-kinds", "fit", SMALL, "--gpu", "auto", "--max-model-len", "8192",
            "--gpu-kinds", "phone")
    refused(monkeypatch, capsys, "--gpu-kinds", "capacity", SMALL, "-w", "sharegpt", "--vary", "gpu=L4,L40S",
            "--gpu-kinds", "consumer")


def test_a_search_no_kind_answers_names_the_kinds_searched(monkeypatch, capsys):
    """A plan no laptop card holds (laptops are one to a machine, so TP 1): the refusal says which kinds were searched
    and how to search the others."""
    text = refused(monkeypatch, capsys, "--gpu", "fit", "Qwen/Qwen3-32B", "--gpu", "auto", "--max-model-len", "32768",
                   "--gpu-kinds", "laptop")
    assert "fits this plan (searched: laptop cards)" in text and "--gpu-kinds all" in text


def test_the_page_and_scaffold_search_the_same_kinds(monkeypatch, capsys, tmp_path):
    """The page's plan takes gpu_kinds as the command line does; scaffold's --gpu auto takes --gpu-kinds too."""
    pytest.importorskip("fastapi", reason="kvplan[web] is not installed")
    pytest.importorskip("httpx", reason="fastapi.testclient needs httpx")
    from fastapi.testclient import TestClient

    from kvplan.web.app import create_app

    card, tp, note = _pick(monkeypatch, capsys, "--gpu-kinds", "consumer")
    client = TestClient(create_app(upload_dir=str(tmp_path / "up")))
    r = client.post("/api/plan", json={"model": SMALL, "gpu": "auto", "max_model_len": 8192, "gpu_kinds": "consumer",
                                       "curve": False})
    assert r.status_code == 200, r.text
    assert r.json()["gpu"] == card.name and r.json()["inverse"] == note
    r = client.post("/api/plan", json={"model": SMALL, "gpu": "L4", "max_model_len": 8192, "gpu_kinds": "consumer"})
    assert r.status_code == 400 and r.json()["field"] == "--gpu-kinds", r.text
    code, out, err = run_cli(monkeypatch, capsys, "scaffold", str(tmp_path / "out"), SMALL, "--gpu", "auto",
                             "--max-model-len", "8192", "--gpu-kinds", "consumer")
    assert code == 0, err
    assert card.name in (tmp_path / "out" / "serve.sh").read_text()
