"""The site calibration (`kvplan reconcile --calibrate`) is applied alike by every command that plans: fit, sweep (each
row its own GPU and model's), --gpu auto, scaffold, simulate, capacity, preflight, and the web API's plan, sweep,
GPU table, scaffold and simulate. `kvplan validate` and the seed's arithmetic (--overhead-gb) never apply it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import kvplan
from cli_runner import run_cli

M = "Qwen/Qwen2.5-0.5B-Instruct"
GIB = 1024 ** 3


cli = run_cli  # (exit code, stdout, stderr) of `kvplan ARGS`


def store(home: Path, entries: dict[tuple[str, str], float]) -> None:
    """A calibration.json with an activation offset (GiB) per (GPU name, model id)."""
    data: dict = {}
    for (gpu, model), gib in entries.items():
        data.setdefault(gpu, {})[model] = {
            "terms": {"activation_peak_gib": gib}, "counts": {"activation_peak_gib": 1}, "n": 1,
            "activation_peak_bytes": int(gib * GIB), "source": "kvplan reconcile --calibrate (test)"}
    home.mkdir(parents=True, exist_ok=True)
    (home / "calibration.json").write_text(json.dumps(data))


@pytest.fixture()
def calibrated(monkeypatch, tmp_path):
    """1 GiB more activation for M on an L4 (none on other GPUs); returns (plain plan, calibrated plan) at 4,096."""
    monkeypatch.setenv("KVPLAN_HOME", str(tmp_path))
    plain = kvplan.fit(M, "L4", max_model_len=4096, detect_gpu=False, site_calibration=False)
    store(tmp_path, {(plain.gpu.name, M): 1.0})
    cal = kvplan.fit(M, "L4", max_model_len=4096, detect_gpu=False)
    assert cal.kv_cache_bytes == pytest.approx(plain.kv_cache_bytes - GIB, abs=2 ** 21)
    assert cal.num_gpu_blocks < plain.num_gpu_blocks
    return plain, cal


def test_fit_json_names_the_calibration_it_applied(monkeypatch, capsys, calibrated):
    plain, cal = calibrated
    code, out, _ = cli(monkeypatch, capsys, "fit", M, "--gpu", "L4", "--max-model-len", "4096", "--json")
    d = json.loads(out)
    assert code == 0 and d["num_gpu_blocks"] == cal.num_gpu_blocks
    assert d["site_calibration"]["activation_peak_bytes"] == GIB and d["site_calibration"]["startups"] == 1
    assert plain.to_dict()["site_calibration"] is None


def test_sweep_rows_are_calibrated_per_gpu_as_fit_plans_them(monkeypatch, capsys, calibrated):
    """The sweep planned every row without the calibration, so its L4 row disagreed with `kvplan fit --gpu L4`."""
    plain, cal = calibrated
    code, out, _ = cli(monkeypatch, capsys, "sweep", M, "--max-model-len", "4096", "--vary", "gpu=L4,H100", "--json")
    assert code == 0
    rows = {r["gpu"]: r for r in json.loads(out)["rows"]}
    assert rows["L4"]["num_gpu_blocks"] == cal.num_gpu_blocks and rows["L4"]["site_calibration"]["activation_peak_bytes"] == GIB
    h100 = kvplan.fit(M, "H100", max_model_len=4096, detect_gpu=False)
    assert rows["H100"]["num_gpu_blocks"] == h100.num_gpu_blocks and rows["H100"]["site_calibration"] is None
    code, out, _ = cli(monkeypatch, capsys, "sweep", M, "--gpu", "L4", "--vary", "max_model_len=2048,4096")
    assert code == 0 and "site calibration applied" in " ".join(out.split())


def test_a_fix_on_another_gpu_takes_that_gpus_calibration(monkeypatch, tmp_path):
    """replan kept no calibration on a GPU change, so 'a larger GPU' promised what `kvplan fit --gpu THAT` did not."""
    monkeypatch.setenv("KVPLAN_HOME", str(tmp_path))
    big = "meta-llama/Llama-3.1-8B-Instruct"
    p = kvplan.fit(big, "L4", max_model_len=131072, detect_gpu=False, site_calibration=False)
    gpu_fix = next(f for f in p.fixes if "gpu" in f.flags)
    other = kvplan.fit(big, gpu_fix.flags["gpu"], max_model_len=131072, detect_gpu=False, site_calibration=False)
    store(tmp_path, {(other.gpu.name, big): 2.0})
    q = kvplan.fit(big, "L4", max_model_len=131072, detect_gpu=False)
    fix = next(f for f in q.fixes if f.flags.get("gpu") == gpu_fix.flags["gpu"])
    there = kvplan.fit(big, gpu_fix.flags["gpu"], max_model_len=131072, detect_gpu=False)
    assert there.kv_cache_tokens < other.kv_cache_tokens
    assert f"{there.kv_cache_tokens:,} tokens" in fix.effect
    # a plan made without the calibration replans without it
    assert str(other.kv_cache_tokens) in gpu_fix.effect.replace(",", "")


def test_gpu_auto_chooses_with_each_gpus_calibration(monkeypatch, capsys, tmp_path):
    """--gpu auto chose among uncalibrated plans, then planned the choice calibrated: a GPU whose site calibration
    leaves no room could be chosen and printed as not starting."""
    monkeypatch.setenv("KVPLAN_HOME", str(tmp_path))
    code, out, _ = cli(monkeypatch, capsys, "fit", M, "--gpu", "auto", "--max-model-len", "4096", "--json")
    first = json.loads(out)
    assert code == 0 and first["fits"]
    store(tmp_path, {(first["gpu"], M): 200.0})  # that GPU, at this site, cannot hold the model any more
    code, out, _ = cli(monkeypatch, capsys, "fit", M, "--gpu", "auto", "--max-model-len", "4096", "--json")
    second = json.loads(out)
    assert code == 0 and second["fits"] and second["gpu"] != first["gpu"]


def test_scaffold_writes_the_calibrated_plan(monkeypatch, capsys, calibrated, tmp_path):
    plain, cal = calibrated
    code, out, err = cli(monkeypatch, capsys, "scaffold", str(tmp_path / "d"), M, "--gpu", "L4", "--max-model-len", "4096")
    assert code == 0, err
    serve = (tmp_path / "d" / "serve.sh").read_text()
    assert f"{cal.kv_cache_tokens:,}" in serve and f"{plain.kv_cache_tokens:,}" not in serve


@pytest.mark.parametrize("command", ["simulate", "capacity"])
def test_simulate_and_capacity_use_the_calibrated_pool(monkeypatch, capsys, calibrated, command):
    plain, cal = calibrated
    extra = ["--slo", "tpot=200ms"] if command == "capacity" else []
    code, out, err = cli(monkeypatch, capsys, command, M, "--gpu", "L4", "--max-model-len", "4096", "-w", "azure-conv",
                         "-n", "20", "--json", *extra)
    assert code == 0, err
    d = json.loads(out)
    engine = d["engine"] if "engine" in d else d["at_max_rate"]["engine"] if d.get("at_max_rate") else None
    blocks = engine["num_gpu_blocks"] if engine else d["plan"]["num_gpu_blocks"]
    assert blocks == cal.num_gpu_blocks != plain.num_gpu_blocks


def test_validate_and_the_seeds_arithmetic_never_apply_it(monkeypatch, capsys, tmp_path):
    data = Path(__file__).parent / "data" / "blind_records.jsonl"
    monkeypatch.setenv("KVPLAN_HOME", str(tmp_path / "none"))
    code, before, _ = cli(monkeypatch, capsys, "validate", str(data), "--json")
    records = [json.loads(line) for line in data.read_text().splitlines() if line.strip()]
    entries = {}
    for r in records:  # an offset for every record's GPU and model, under the names they are planned with
        try:
            gpu = kvplan.resolve_gpu(r["gpu"]["name"], detect=False)[0].name
        except Exception:  # noqa: BLE001 -- a record's GPU the catalog does not name: its own name then
            gpu = r["gpu"]["name"]
        entries[(gpu, r["model"]["id"])] = 1.0
    store(tmp_path, entries)
    monkeypatch.setenv("KVPLAN_HOME", str(tmp_path))
    code2, after, _ = cli(monkeypatch, capsys, "validate", str(data), "--json")
    assert (code, before) == (code2, after)
    seed = kvplan.fit(M, gpu_gb=16, overhead_gb=1, max_model_len=4096, detect_gpu=False)
    store(tmp_path, {(seed.gpu.name, M): 1.0})
    again = kvplan.fit(M, gpu_gb=16, overhead_gb=1, max_model_len=4096, detect_gpu=False)
    assert again.kv_cache_bytes == seed.kv_cache_bytes and again.to_dict()["site_calibration"] is None


# ------------------------------------------------------------------ the web API

def _client(tmp_path):
    pytest.importorskip("fastapi", reason="kvplan[web] is not installed")
    pytest.importorskip("httpx", reason="fastapi.testclient needs httpx")
    from fastapi.testclient import TestClient

    from kvplan.web.app import create_app

    return TestClient(create_app(upload_dir=str(tmp_path / "uploads")))


def test_web_plan_sweep_and_gpu_table_are_calibrated(calibrated, tmp_path):
    plain, cal = calibrated
    client = _client(tmp_path)
    body = {"model": M, "gpu": "L4", "max_model_len": 4096}
    d = client.post("/api/plan", json=body).json()
    assert d["num_gpu_blocks"] == cal.num_gpu_blocks and d["site_calibration"]["activation_peak_bytes"] == GIB
    # the GPU table: the page's sweep over the catalog, as app.js sends it
    table = client.post("/api/sweep", json={"model": M, "max_model_len": "4096", "curve": False,
                                            "vary": ["gpu=l4,h100", "tensor_parallel_size=1,2"]}).json()
    l4 = next(r for r in table["rows"] if r["gpu"] == "l4" and r["tensor_parallel_size"] == 1)
    assert l4["num_gpu_blocks"] == cal.num_gpu_blocks and l4["site_calibration"] is not None


def test_web_scaffold_and_simulate_are_calibrated(calibrated, tmp_path):
    plain, cal = calibrated
    client = _client(tmp_path)
    body = {"model": M, "gpu": "L4", "max_model_len": 4096}
    scaffold = client.post("/api/scaffold", json=body).json()
    assert f"{cal.kv_cache_tokens:,}" in scaffold["files"]["serve.sh"]
    sim = client.post("/api/simulate", json={**body, "max_requests": 20}).json()
    assert sim["plan"]["kv_cache_tokens"] == cal.kv_cache_tokens != plain.kv_cache_tokens
    # the plan's warnings (the calibration's among them), as `kvplan scaffold` prints and `kvplan simulate` notes them
    for answer in (scaffold, sim["plan"]):
        assert any(w.startswith("site calibration applied") for w in answer["warnings"])


def test_preflight_plans_with_the_calibration(monkeypatch, capsys, calibrated):
    plain, cal = calibrated
    code, out, _ = cli(monkeypatch, capsys, "preflight", M, "--gpu", "L4", "--max-model-len", "4096", "--json")
    summary = json.loads(out)["request"]["plan_summary"]
    assert f"{cal.kv_cache_tokens:,} KV tokens" in summary
