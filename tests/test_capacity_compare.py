"""`kvplan capacity --vary`: several deployments compared in one run (one capacity search each, planned as
`kvplan sweep --vary` plans them), with replicas and GPUs for a target rate and, given --gpu-hour-usd, the cost; and
the same on /api/simulate."""

from __future__ import annotations

import json

import pytest

from cli_runner import refused, run_cli

QWEN8 = "Qwen/Qwen3-8B"
# a small sample: each row runs a bisection of simulations
BASE = ["--max-model-len", "8192", "-w", "azure-conv", "-n", "200", "--slo", "ttft=2s,tpot=80ms"]
PRICES = {"L4": 0.8, "H100": 2.5}


def _single(monkeypatch, capsys, gpu: str, *extra: str) -> dict:
    code, out, err = run_cli(monkeypatch, capsys, "capacity", QWEN8, "--gpu", gpu, *BASE, *extra, "--json")
    assert code == 0, err
    return json.loads(out)


def test_vary_rows_are_the_single_runs_priced_and_sorted(monkeypatch, capsys):
    """Each row holds what `kvplan capacity --gpu X` answers alone (rate per replica, replicas for the target), its
    GPUs the replicas times the GPUs of one, its cost the GPUs times the price, per million requests at the target;
    the rows come cheapest first, the first marked best."""
    code, out, err = run_cli(monkeypatch, capsys, "capacity", QWEN8, *BASE, "--target-rate", "20",
                             "--vary", "gpu=L4,H100", "--gpu-hour-usd", "L4=0.8,H100=2.5", "--json")
    assert code == 0, err
    assert "[1/2]" not in err  # --json is quiet
    d = json.loads(out)
    assert d["varied"] == ["gpu"] and d["target_rate_per_s"] == 20
    rows = {r["gpu"]: r for r in d["rows"]}
    assert set(rows) == {"L4", "H100"}
    for gpu, r in rows.items():
        alone = _single(monkeypatch, capsys, gpu, "--target-rate", "20")
        assert r["rate_per_replica"] == pytest.approx(alone["max_rate_per_s"], rel=1e-12), gpu
        assert r["replicas"] == alone["replicas_needed"], gpu
        assert r["gpus_per_replica"] == 1 and r["gpus"] == r["replicas"]
        assert r["usd_per_hour"] == pytest.approx(PRICES[gpu] * r["gpus"])
        assert r["usd_per_million_requests"] == pytest.approx(r["usd_per_hour"] / (20 * 3600) * 1e6)
    costs = [r["usd_per_million_requests"] for r in d["rows"]]
    assert costs == sorted(costs)
    assert d["rows"][0].get("best") is True and not d["rows"][1].get("best")
    # the L4 serves fewer requests per second than the H100, so it takes more replicas for the same target
    assert rows["L4"]["rate_per_replica"] < rows["H100"]["rate_per_replica"]
    assert rows["L4"]["replicas"] > rows["H100"]["replicas"]


def test_rows_that_do_not_start_say_why_and_progress_is_shown(monkeypatch, capsys):
    """Qwen3-32B's 61 GiB of weights fit no single L4: those rows answer 'weights too big' (vLLM's error in full
    below the table), sort last, and each row's progress line is on stderr."""
    code, out, err = run_cli(monkeypatch, capsys, "capacity", "Qwen/Qwen3-32B", *BASE, "--vary", "gpu=L4,H100",
                             "--vary", "tensor_parallel_size=1,2", "--json")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    assert len(rows) == 4
    by = {(r["gpu"], r["tensor_parallel_size"]): r for r in rows}
    for tp in (1, 2):
        r = by[("L4", tp)]
        assert r["cell"] == "weights too big" and "CUDA out of memory" in r["reason"]
        assert r["rate_per_replica"] is None
    h100 = [r for r in rows if r["gpu"] == "H100" and r["rate_per_replica"]]
    assert h100 and rows[: len(h100)] == h100  # answered rows first: most req/s per GPU without prices or a target
    per_gpu = [r["rate_per_replica"] / r["gpus_per_replica"] for r in h100]
    assert per_gpu == sorted(per_gpu, reverse=True)
    code, out, err = run_cli(monkeypatch, capsys, "capacity", "Qwen/Qwen3-32B", *BASE, "--vary", "gpu=L4,H100",
                             "--vary", "tensor_parallel_size=1,2")
    assert code == 0, err
    text = " ".join(out.split())
    assert "weights too big" in text and "most req/s per GPU" in text
    assert "gpu=L4, tensor_parallel_size=1: weights too big: CUDA out of memory" in text
    progress = [line for line in err.splitlines() if line.startswith("[")]
    assert [line.split("]")[0] for line in progress] == ["[1/4", "[2/4", "[3/4", "[4/4"]


def test_one_deployment_is_priced_too(monkeypatch, capsys):
    """Without --vary, --gpu-hour-usd prices the one deployment as a row would be priced."""
    alone = _single(monkeypatch, capsys, "H100", "--target-rate", "20", "--gpu-hour-usd", "2.5")
    n = alone["replicas_needed"]
    assert alone["cost"]["usd_per_hour"] == pytest.approx(2.5 * n)
    code, out, err = run_cli(monkeypatch, capsys, "capacity", QWEN8, "--gpu", "H100", *BASE, "--gpu-hour-usd", "2.5")
    assert code == 0, err
    assert "USD per million requests at" in " ".join(out.split())


@pytest.mark.parametrize("args,field", [
    (["--vary", "gpu=L4,H100", "--gpu-hour-usd", "L4=0.8"], "--gpu-hour-usd"),  # no price for the H100
    (["--vary", "gpu=L4", "--gpu-hour-usd", "cheap"], "--gpu-hour-usd"),
    (["--vary", "gpu=L4", "--gpu-hour-usd", "L4=-1"], "--gpu-hour-usd"),
    (["--vary", "gpu=L4", "--gpu-hour-usd", "NoSuchCard=1"], "--gpu-hour-usd"),
    (["--vary", "gpu=L4", "--gpu-hour-usd", "L4=1,NVIDIA L4=1"], "--gpu-hour-usd"),  # one price given twice
    (["--gpu", "H100", "--gpu-hour-usd", "L4=1"], "--gpu-hour-usd"),
    (["--vary", "gpu=L4,H100", "--gpu", "auto"], "--gpu"),
    (["--vary", "gpu=L4,H100", "--num-gpu-blocks", "500"], "--num-gpu-blocks"),
    (["--vary", "tensor_parallel_size=1,2", "--tensor-parallel-size", "2"], "--vary"),
    (["--vary", "gpu=L4,H100", "--target-rate", "1e-6"], "--target-rate"),  # its arrivals span past what is simulated
])
def test_bad_comparisons_are_refused_by_flag(monkeypatch, capsys, args, field):
    refused(monkeypatch, capsys, field, "capacity", QWEN8, *BASE, *args)


def test_page_compares_as_the_cli(monkeypatch, capsys):
    """/api/simulate with capacity and vary answers the CLI's rows, and says the form's GPU was replaced."""
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from kvplan.web.app import create_app

    body = {"model": QWEN8, "gpu": "H100", "max_model_len": 8192, "workload": "azure-conv", "max_requests": 200,
            "slo": "ttft=2s,tpot=80ms", "capacity": True, "target_rate_per_s": 20, "vary": ["gpu=L4,H100"],
            "gpu_hour_usd": "L4=0.8,H100=2.5"}
    client = TestClient(create_app())
    page = client.post("/api/simulate", json=body)
    assert page.status_code == 200, page.text
    web = page.json()
    assert web["replaced"][0]["field"] == "gpu"
    code, out, err = run_cli(monkeypatch, capsys, "capacity", QWEN8, *BASE, "--target-rate", "20",
                             "--vary", "gpu=L4,H100", "--gpu-hour-usd", "L4=0.8,H100=2.5", "--json")
    assert code == 0, err
    # the CLI's rows, plus each row's cells as the CLI's table shows them, for the page
    rows = web["capacity_rows"]["rows"]
    assert [{k: v for k, v in r.items() if k != "cells"} for r in rows] == json.loads(out)["rows"]
    code, out, err = run_cli(monkeypatch, capsys, "capacity", QWEN8, *BASE, "--target-rate", "20",
                             "--vary", "gpu=L4,H100", "--gpu-hour-usd", "L4=0.8,H100=2.5")
    table = [line.split() for line in out.splitlines()]
    # the table's columns and each row's cells (the rate rounded down, the replicas, $/GPU-h, $/hour, $/M req, the
    # best row's mark): the page shows these as they stand, the command's own
    columns = web["capacity_rows"]["columns"]
    assert " ".join(c["title"] for c in columns).split() in table
    assert [c["numeric"] for c in columns] == [False] + [True] * 7 + [False]
    for r in rows:
        assert " ".join(r["cells"]).split() in table, r["gpu"]
        assert r["cells"][-1] == ("cheapest" if r.get("best") else r["cell"] or "")
        if r["rate_per_replica"]:  # rounded down, as the command shows it
            assert float(r["cells"][2]) <= r["rate_per_replica"] < float(r["cells"][2]) * 1.01
        else:
            assert r["cells"][2] == "-"
    assert sum(r["cells"][-1] == "cheapest" for r in rows) == 1
    assert any(c != "-" for r in rows for c in r["cells"][5:8])
    # the lines under the table, each as the command prints it
    for line in web["capacity_rows"]["lines"]:
        assert " ".join(line["text"].split()) in " ".join(out.split()), line
    # what the cost columns price, the command's line under its table (the page says it in the note, below)
    cost_line = "$/hour: the fleet for the target; $/M req: per million requests at the target rate"
    assert cost_line in " ".join(out.split())
    # the note under the page's table: the command's heading line after the model, the requests per probe, the cost
    # columns' line and the form's field the vary replaced, in the server's words (simulate.compare_note)
    heading = " ".join(out.split("\ngpu ")[0].split())  # the lines above the table's head, as one (a narrow terminal folds it)
    assert heading.startswith(f"{QWEN8}, workload azure-conv, ")
    note = web["capacity_rows"]["note"]
    assert note == (f"({heading[len(QWEN8) + 2:]}, 200 requests per probe; {cost_line}; "
                    f"{web['notes'][0]})")
    assert web["notes"][0] == "vary gpu replaced the form's gpu (H100) in every row"
    bad = client.post("/api/simulate", json={**body, "gpu_hour_usd": "L4=0.8"})
    assert bad.status_code == 400 and bad.json()["field"] == "gpu_hour_usd"
    bad = client.post("/api/simulate", json={**body, "capacity": False})
    assert bad.status_code == 400 and bad.json()["field"] in ("target_rate_per_s", "vary")


def test_one_gpu_priced_twice_is_costed_at_each_price(monkeypatch, capsys):
    """On-demand against spot, or two clouds: --gpu-hour-usd took one price per GPU and refused a second
    ('H100 is priced twice'). Each price of a GPU now costs its deployment in a row of its own, the price it used under
    $/GPU-h: the same search (rate, replicas) at each, cost in proportion to the price, rows still cheapest first; one
    deployment alone prints a cost line per price, and --json gives every cost under "costs"."""
    prices = "L4=0.8,H100=2.5,H100=1.2"
    args = ("capacity", QWEN8, *BASE, "--target-rate", "20", "--vary", "gpu=L4,H100", "--gpu-hour-usd", prices)
    code, out, err = run_cli(monkeypatch, capsys, *args, "--json")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    h100 = [r for r in rows if r["gpu"] == "H100"]
    assert [r["usd_per_gpu_hour"] for r in h100] == [1.2, 2.5]  # cheapest first
    assert len({(r["rate_per_replica"], r["replicas"], r["gpus"]) for r in h100}) == 1
    for r in h100:
        assert r["usd_per_hour"] == pytest.approx(r["usd_per_gpu_hour"] * r["gpus"])
    assert h100[1]["usd_per_million_requests"] / h100[0]["usd_per_million_requests"] == pytest.approx(2.5 / 1.2)
    assert [r["usd_per_gpu_hour"] for r in rows if r["gpu"] == "L4" and r.get("usd_per_gpu_hour")] in ([], [0.8])
    costs = [r["usd_per_million_requests"] for r in rows if r.get("usd_per_million_requests")]
    assert costs == sorted(costs) and rows[0].get("best") and sum(bool(r.get("best")) for r in rows) == 1
    code, out, err = run_cli(monkeypatch, capsys, *args)
    assert code == 0, err
    lines = out.splitlines()
    head = next(line.split() for line in lines if "$/GPU-h" in line)
    shown = [line.split() for line in lines if line.startswith("H100")]
    col = head.index("$/GPU-h")
    assert [float(c[col]) for c in shown] == [1.2, 2.5], out
    alone = _single(monkeypatch, capsys, "H100", "--target-rate", "20", "--gpu-hour-usd", "H100=2.5,H100=1.2")
    assert [c["usd_per_gpu_hour"] for c in alone["costs"]] == [2.5, 1.2] and alone["cost"] == alone["costs"][0]
    assert alone["costs"][0]["usd_per_hour"] == pytest.approx(2.5 * alone["replicas_needed"])
    code, out, err = run_cli(monkeypatch, capsys, "capacity", QWEN8, "--gpu", "H100", *BASE, "--target-rate", "20",
                             "--gpu-hour-usd", "H100=2.5,H100=1.2")
    assert code == 0, err
    text = " ".join(out.split())
    assert "cost at 2.5 USD per GPU-hour" in text and "cost at 1.2 USD per GPU-hour" in text
