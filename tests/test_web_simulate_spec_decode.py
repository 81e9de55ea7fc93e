"""/api/simulate and the traffic tab take the drafter's acceptance as `kvplan simulate` and `capacity` do
(spec_acceptance_rate, spec_mean_acceptance_length, spec_draft_acceptance_rate): the same simulation for the same
inputs, the same refusals under the request's keys, and the speculative step line the CLI prints."""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("fastapi", reason="kvplan[web] is not installed")
pytest.importorskip("httpx", reason="fastapi.testclient needs httpx")

from fastapi.testclient import TestClient  # noqa: E402

from cli_runner import run_cli  # noqa: E402
from kvplan.web.app import SimulateRequest, create_app  # noqa: E402

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
NGRAM = '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 3}'
BODY = {"model": LLAMA, "gpu": "H100", "max_model_len": 8192, "workload": "azure-conv", "max_requests": 120,
        "speculative_config": NGRAM, "curve": False}
CLI = ("simulate", LLAMA, "--gpu", "H100", "--max-model-len", "8192", "-w", "azure-conv", "-n", "120",
       "--speculative-config", NGRAM)
KEYS = {"spec_acceptance_rate": "--spec-acceptance-rate", "spec_mean_acceptance_length": "--spec-mean-acceptance-length",
        "spec_draft_acceptance_rate": "--spec-draft-acceptance-rate"}


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    return TestClient(create_app(upload_dir=str(tmp_path_factory.mktemp("uploads"))), raise_server_exceptions=False)


def _cli_json(monkeypatch, capsys, *args) -> dict:
    code, out, err = run_cli(monkeypatch, capsys, *args, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("key, value", [("spec_acceptance_rate", 0.7), ("spec_mean_acceptance_length", 2.5),
                                        ("spec_draft_acceptance_rate", 0.4)])
def test_each_form_simulates_as_the_cli_does(client, monkeypatch, capsys, key, value):
    r = client.post("/api/simulate", json={**BODY, key: value})
    assert r.status_code == 200, r.text
    d = r.json()
    cli = _cli_json(monkeypatch, capsys, *CLI, KEYS[key], str(value))
    # the same step model and the same simulated server: the page's figures are the command's
    assert d["step_model"]["speculative_decoding"] == cli["step_model"]["speculative_decoding"]
    assert d["step_model"]["example_steps"] == cli["step_model"]["example_steps"]
    for figure in ("output_tokens_per_s", "requests_per_s", "tpot_ms", "ttft_ms", "e2e_ms"):
        assert d["result"][figure] == cli[figure], figure
    spec = [e for e in d["step_model"]["example_steps"] if "speculative" in e]
    assert len(spec) == 1 and list(spec[0]["terms_ms"]) == ["target_verify_4_tokens"]  # n-gram: no drafter pass
    assert d["step_model"]["speculative_decoding"]["acceptance"].startswith(f"{KEYS[key]} {value:g}")
    assert any(n.startswith("speculative decoding (ngram, 3 tokens): ") for n in d["result"]["notes"])


def test_without_an_acceptance_nothing_changes(client, monkeypatch, capsys):
    plain = client.post("/api/simulate", json=BODY).json()
    cli = _cli_json(monkeypatch, capsys, *CLI)
    assert "speculative_decoding" not in plain["step_model"]
    assert not any("speculative" in e for e in plain["step_model"]["example_steps"])
    assert plain["result"]["tpot_ms"] == cli["tpot_ms"]
    assert any("is not in the step model" in n for n in plain["result"]["notes"])
    # null is the field left out
    nulls = client.post("/api/simulate", json={**BODY, **{k: None for k in KEYS}}).json()
    assert nulls["result"]["tpot_ms"] == plain["result"]["tpot_ms"]
    # and an acceptance does change the decode: 2.5 tokens a step at a = 0.8 cut the time per output token
    fast = client.post("/api/simulate", json={**BODY, "spec_acceptance_rate": 0.8}).json()
    assert fast["result"]["tpot_ms"]["mean"] < plain["result"]["tpot_ms"]["mean"]


@pytest.mark.parametrize("extra, field, status, words", [
    ({"speculative_config": None, "spec_acceptance_rate": 0.6}, "spec_acceptance_rate", 400, "no speculative decoding"),
    ({"spec_acceptance_rate": 1.2}, "spec_acceptance_rate", 400, "outside 0 .. 1"),
    ({"spec_acceptance_rate": 1e308}, "spec_acceptance_rate", 400, "outside 0 .. 1"),
    ({"spec_draft_acceptance_rate": 60}, "spec_draft_acceptance_rate", 400, "percent"),
    ({"spec_mean_acceptance_length": 4.5}, "spec_mean_acceptance_length", 400, "outside 1 .. 4"),
    ({"spec_mean_acceptance_length": 0.5}, "spec_mean_acceptance_length", 400, "outside 1 .. 4"),
    ({"spec_acceptance_rate": 0.5, "spec_mean_acceptance_length": 2.0}, "spec_mean_acceptance_length", 400, "give one"),
    ({"spec_acceptance_rate": "0.7"}, "spec_acceptance_rate", 422, "must be a number"),
    ({"spec_draft_acceptance_rate": True}, "spec_draft_acceptance_rate", 422, "must be a number"),
    # capacity searches are refused alike, before any probe
    ({"spec_acceptance_rate": -0.1, "capacity": True, "slo": "tpot=100ms"}, "spec_acceptance_rate", 400, "outside 0 .. 1"),
])
def test_bad_values_are_refused_under_their_key(client, extra, field, status, words):
    r = client.post("/api/simulate", json={**BODY, **extra})
    assert r.status_code == status, r.text
    d = r.json()
    assert d["field"] == field, d
    assert words in f"{d['message']} {d['fix']}"
    assert "--spec-" not in (d["fix"] or "") and "--speculative-config" not in (d["fix"] or "")  # the request's keys


def test_a_non_finite_value_is_refused_by_name(client):
    raw = json.dumps(BODY)[:-1] + ', "spec_acceptance_rate": NaN}'
    r = client.post("/api/simulate", content=raw, headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["field"] == "spec_acceptance_rate", r.text


def test_capacity_searches_with_the_acceptance_as_the_cli_does(client, monkeypatch, capsys):
    cap_body = {**BODY, "max_requests": 60, "capacity": True, "slo": "tpot=40ms"}
    cli_args = ("capacity", *CLI[1:8], "-n", "60", "--slo", "tpot=40ms", "--speculative-config", NGRAM)
    with_spec = client.post("/api/simulate", json={**cap_body, "spec_acceptance_rate": 0.7})
    assert with_spec.status_code == 200, with_spec.text
    cli = _cli_json(monkeypatch, capsys, *cli_args, "--spec-acceptance-rate", "0.7")
    assert with_spec.json()["capacity"]["max_rate_per_s"] == cli["max_rate_per_s"]
    plain = client.post("/api/simulate", json=cap_body).json()["capacity"]
    assert plain["max_rate_per_s"] == _cli_json(monkeypatch, capsys, *cli_args)["max_rate_per_s"]
    assert plain["max_rate_per_s"] != cli["max_rate_per_s"]


def test_a_capacity_comparison_passes_the_acceptance_to_each_row(client, monkeypatch, capsys):
    body = {**BODY, "max_requests": 60, "capacity": True, "slo": "tpot=100ms", "spec_mean_acceptance_length": 2.5,
            "vary": ["gpu=H100,L40S"]}
    r = client.post("/api/simulate", json=body)
    assert r.status_code == 200, r.text
    rows = r.json()["capacity_rows"]["rows"]
    cli = _cli_json(monkeypatch, capsys, "capacity", LLAMA, "--max-model-len", "8192", "-w", "azure-conv", "-n", "60",
                    "--slo", "tpot=100ms", "--speculative-config", NGRAM, "--spec-mean-acceptance-length", "2.5",
                    "--vary", "gpu=H100,L40S")
    assert [(x["gpu"], x["rate_per_replica"]) for x in rows] == [(x["gpu"], x["rate_per_replica"]) for x in cli["rows"]]
    for row in rows:
        assert any("2.500 tokens per request per decode step" in n for n in row["notes"]), row


def test_the_traffic_tab_has_the_acceptance_controls_and_shows_the_step_line(client):
    page = client.get("/").text
    js = client.get("/static/app.js").text
    for control, key in (("sim-spec-rate", "spec_acceptance_rate"), ("sim-spec-length", "spec_mean_acceptance_length"),
                         ("sim-spec-draft", "spec_draft_acceptance_rate")):
        assert re.search(rf'<input id="{control}" type="number"', page), control
        assert key in SimulateRequest.model_fields, key
        assert f'body.{key} = Number($("{control}").value)' in js, key
    assert 'rows.push(["step time", d.step_lines[i]])' in js


def test_the_pages_step_line_is_the_clis(client):
    """The page shows the server's step_lines, one per example step, worded by simulate.step_line as `kvplan
    simulate` prints them (the speculative decode step with its time per token): the page words none itself."""
    from kvplan.simulate import step_line

    js = client.get("/static/app.js").text
    assert "function stepLine" not in js and "ms per token at" not in js
    spec_lines = []
    for extra in ({"spec_acceptance_rate": 0.7}, {"spec_mean_acceptance_length": 3.25, "max_requests": 400}):
        d = client.post("/api/simulate", json={**BODY, **extra}).json()
        steps, lines = d["step_model"]["example_steps"], d["step_lines"]
        assert len(lines) == len(steps) and lines == [step_line(e) for e in steps]
        spec_lines += [line for e, line in zip(steps, lines) if "speculative" in e]
    assert len(spec_lines) == 2 and all(x.startswith("speculative decode step of ") for x in spec_lines)
    assert spec_lines[0].endswith(" ms per token at 2.533 tokens per step")
    assert spec_lines[1].endswith(" ms per token at 3.250 tokens per step")


def test_a_capacity_comparison_refuses_a_bad_acceptance_as_one_search_does(client, monkeypatch, capsys):
    """Out of range for every deployment compared: refused under its key (the page) and flag (the CLI), where each row
    of the comparison read 'no step model' and the answer was 200 (exit 1 on the command line)."""
    from cli_runner import refused

    body = {**BODY, "max_requests": 60, "capacity": True, "slo": "tpot=100ms", "spec_acceptance_rate": 1.7,
            "vary": ["gpu=H100,L40S"]}
    r = client.post("/api/simulate", json=body)
    assert r.status_code == 400 and r.json()["field"] == "spec_acceptance_rate", r.text
    assert "outside 0 .. 1" in r.json()["message"]
    refused(monkeypatch, capsys, "--spec-acceptance-rate", "capacity", LLAMA, "--max-model-len", "8192", "-w", "azure-conv",
            "-n", "60", "--slo", "tpot=100ms", "--speculative-config", NGRAM, "--spec-acceptance-rate", "1.7",
            "--vary", "gpu=H100,L40S")
