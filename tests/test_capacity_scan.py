"""The capacity search where the SLO is not monotone in the rate: Qwen3-8B on one H100, the first 200 requests of the
Azure conversation trace, TTFT p90 <= 41 ms. The trace's TTFT p90 sits at 38-41 ms from 0.45 to 1 req/s and crosses
41 ms back and forth (0.606 req/s misses, 0.972 meets). The bisection alone answered 0.972 req/s; a target of
1.3 req/s was then 2 replicas by division, and the check of one replica at 0.65 req/s missed, so 3. The scan below
the answer finds 0.606 missing and answers under it, the highest rate with no probed miss below."""

from __future__ import annotations

import json
import math

import pytest

from cli_runner import run_cli
from kvplan.api import FitFlags
from kvplan.simulate import (SCAN_RATIO, SCAN_SPAN, _scan_points, _simulate_server, parse_slo, plan_capacity,
                             serving_setup)
from kvplan.workload import WorkloadSpec, build_workload, with_rate

MODEL, GPU = "Qwen/Qwen3-8B", "H100"
FLAGS = ["--gpu", GPU, "-w", "azure-conv", "-n", "200", "--slo", "ttft=41ms", "--percentile", "90"]


@pytest.fixture(scope="module")
def setup():
    from kvplan.cli import plan_from_flags

    p = plan_from_flags(MODEL, FitFlags(gpu=GPU))
    config, step_model, rules = serving_setup(p)
    base = build_workload(WorkloadSpec(workload="azure-conv", rate_per_s=1.0, max_requests=200))
    return p, config, step_model, rules, base, parse_slo("ttft=41ms", 90)


def _capacity(setup, **kw):
    p, config, step_model, rules, base, slo = setup
    # a recorded trace is checked at the target as capacity checks it: one replica at its share (fleet_at -> None)
    return plan_capacity(p, lambda r: with_rate(base, r), config, step_model, slo, rules, target_rate_per_s=1.3,
                         fleet_at=lambda r, k: None, **kw)


def _meets(setup, rate: float) -> bool:
    p, config, step_model, rules, base, slo = setup
    return _simulate_server(with_rate(base, rate), config, step_model, rules, 1, False, slo=slo).meets(slo)


def test_the_bisection_alone_answers_above_a_rate_that_misses(setup):
    old = _capacity(setup, scan_probes=0)  # the search as it was: grown 4x a probe, then bisected
    new = _capacity(setup)
    assert old.probes == new.probes[:len(old.probes)] and new.searched_probes == len(old.probes)
    missed_below = [r for r, m in new.probes if not m and r < old.max_rate_per_s]
    assert missed_below, "the premise: a rate under the bisection's answer misses the SLO"
    assert all(not _meets(setup, r) for r in missed_below)  # each one simulated again, alone
    assert _meets(setup, old.max_rate_per_s)  # ... while the bisection's answer above them met it
    # the fleet sized on the bisection's answer failed its check: the division's count missed, one more was needed
    first = math.ceil(1.3 / old.max_rate_per_s)
    assert not _meets(setup, 1.3 / first) and old.replicas_needed > first


def test_the_answer_is_the_highest_rate_under_every_probed_miss(setup):
    cap = _capacity(setup)
    answer = cap.max_rate_per_s
    assert all(m for r, m in cap.probes if r <= answer)
    assert answer < min(cap.missed_rates) and (answer, True) in cap.probes
    # bisected under the lowest miss to the search's tolerance, from the highest rate that met below it
    below = max(r for r, m in cap.probes if m and r < min(cap.missed_rates) and r != answer)
    assert below < answer and (min(cap.missed_rates) - answer) <= 0.03 * answer
    # a rate above the answer met again: the bisection's answer, said as such
    assert cap.met_above == max(r for r, m in cap.probes if m) > min(cap.missed_rates)
    # sized on that answer, the division's count meets the check at the target at once
    assert cap.replicas_needed == math.ceil(1.3 / answer) and cap.at_target is not None
    d = cap.to_dict()
    assert d["met_above_rate_per_s"] == cap.met_above and d["missed_rates_per_s"] == cap.missed_rates
    assert [p["stage"] for p in d["probes"]] == ["search"] * cap.searched_probes + ["scan"] * (
        len(cap.probes) - cap.searched_probes)


def test_the_scan_leaves_no_met_rates_further_apart_than_its_ratio(setup):
    cap = _capacity(setup)
    answer = cap.max_rate_per_s
    assert _scan_points(answer, list(cap.probes)) == []  # nothing left to scan
    floor = answer / SCAN_SPAN
    met = sorted(r for r, m in cap.probes if m and floor <= r <= answer)
    assert met[0] <= floor * SCAN_RATIO * (1 + 1e-9)  # the span from a quarter of the answer up is covered
    assert max(b / a for a, b in zip(met, met[1:])) <= SCAN_RATIO * (1 + 1e-9)


def test_capacity_cli_says_which_rates_missed_and_that_one_above_met_again(monkeypatch, capsys):
    code, out, err = run_cli(monkeypatch, capsys, "capacity", MODEL, *FLAGS, "--target-rate", "1.3")
    assert code == 0, err
    text, progress = " ".join(out.split()), " ".join(err.split())
    assert "scanning 4 rates under 0.972 req/s" in progress and "0.606 req/s: misses the SLO" in progress
    assert "capacity: 0.518 req/s per replica" in text
    assert "not monotone in the rate: 0.528 req/s missed the SLO and 0.972 req/s above it met it again" in text
    assert "target 1.3 req/s: 3 replicas" in text and "missed the SLO, so" not in text
    code, out, err = run_cli(monkeypatch, capsys, "capacity", MODEL, *FLAGS, "--json")
    d = json.loads(out)
    assert code == 0 and d["met_above_rate_per_s"] == pytest.approx(0.9722, abs=1e-4)
    assert sorted(p["rate_per_s"] for p in d["probes"] if not p["meets_slo"]) == d["missed_rates_per_s"]
    assert any(p["stage"] == "scan" and not p["meets_slo"] for p in d["probes"])


def test_where_attainment_is_monotone_the_scan_keeps_the_answer(setup):
    # the same trace and server at TTFT p99 <= 200 ms, 5,000 requests: every scanned rate meets, the answer is the
    # bisection's to the bit
    p, config, step_model, rules, _, _ = setup
    base = build_workload(WorkloadSpec(workload="azure-conv", rate_per_s=1.0), default_requests=5000)
    slo = parse_slo("ttft=200ms", 99)
    kw = dict(target_rate_per_s=None)
    old = plan_capacity(p, lambda r: with_rate(base, r), config, step_model, slo, rules, scan_probes=0, **kw)
    new = plan_capacity(p, lambda r: with_rate(base, r), config, step_model, slo, rules, **kw)
    assert new.max_rate_per_s == old.max_rate_per_s and new.met_above is None
    assert len(new.probes) > len(old.probes) and all(m for r, m in new.probes[len(old.probes):])


def test_the_page_answers_the_scanned_capacity_as_the_cli(monkeypatch, capsys):
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from kvplan.web.app import create_app

    client = TestClient(create_app())
    r = client.post("/api/simulate", json={"model": MODEL, "gpu": GPU, "workload": "azure-conv", "max_requests": 200,
                                           "capacity": True, "slo": "ttft=41ms", "percentile": 90})
    assert r.status_code == 200, r.text
    page = r.json()["capacity"]
    code, out, err = run_cli(monkeypatch, capsys, "capacity", MODEL, *FLAGS, "--json")
    cli = json.loads(out)
    for key in ("max_rate_per_s", "met_above_rate_per_s", "missed_rates_per_s", "probes"):
        assert page[key] == cli[key], key
    assert page["met_above_rate_per_s"] > page["max_rate_per_s"]
    # the page shows the lines `kvplan capacity` prints (simulate.capacity_lines), its 'not monotone' line among them
    code, out, err = run_cli(monkeypatch, capsys, "capacity", MODEL, *FLAGS)
    lines = r.json()["capacity_lines"]
    assert " ".join(" ".join(lines).split()) in " ".join(out.split())
    assert any(line.startswith("  not monotone in the rate: ") for line in lines)
    assert "d.capacity_lines" in client.get("/static/app.js").text


def test_a_compared_deployment_says_a_rate_above_it_met_again(monkeypatch, capsys):
    code, out, err = run_cli(monkeypatch, capsys, "capacity", MODEL, *FLAGS[2:], "--vary", "gpu=H100,L40S", "--json")
    assert code == 0, err
    rows = {r["gpu"]: r for r in json.loads(out)["rows"]}
    single = json.loads(run_cli(monkeypatch, capsys, "capacity", MODEL, *FLAGS, "--json")[1])
    assert rows["H100"]["rate_per_replica"] == single["max_rate_per_s"]
    assert rows["H100"]["met_above_rate_per_s"] == single["met_above_rate_per_s"]
    code, out, err = run_cli(monkeypatch, capsys, "capacity", MODEL, *FLAGS[2:], "--vary", "gpu=H100,L40S")
    text = " ".join(out.split())
    assert "gpu=H100: not monotone in the rate: 0.972 req/s, above its 0.518, met the SLO again" in text
    # every row names the field, None where its probes were monotone (a row without it read as a missing field)
    assert all("met_above_rate_per_s" in r for r in rows.values())
    assert ("gpu=L40S: not monotone" in text) == (rows["L40S"]["met_above_rate_per_s"] is not None)


def test_the_page_says_a_compared_deployment_met_again_above_its_answer(monkeypatch, capsys):
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from kvplan.web.app import create_app

    client = TestClient(create_app())
    r = client.post("/api/simulate", json={"model": MODEL, "workload": "azure-conv", "max_requests": 200,
                                           "capacity": True, "slo": "ttft=41ms", "percentile": 90,
                                           "vary": ["gpu=H100,L40S"]})
    assert r.status_code == 200, r.text
    rows = {row["gpu"]: row for row in r.json()["capacity_rows"]["rows"]}
    assert rows["H100"]["met_above_rate_per_s"] > rows["H100"]["rate_per_replica"]
    assert rows["L40S"]["met_above_rate_per_s"] is None
    # the deployments' table lists the line under the rows, as the CLI prints it (simulate.met_again_line)
    code, out, err = run_cli(monkeypatch, capsys, "capacity", MODEL, *FLAGS[2:], "--vary", "gpu=H100,L40S")
    again = [line["text"] for line in r.json()["capacity_rows"]["lines"] if line["kind"] == "again"]
    assert len(again) == 1 and again[0].startswith("gpu=H100: not monotone in the rate: ")
    assert " ".join(again[0].split()) in " ".join(out.split())
    assert "c.lines" in client.get("/static/app.js").text
