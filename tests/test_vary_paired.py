"""--vary with flags paired (gpu,tensor_parallel_size=L4:4,L40S:2,H100:1): one row per tuple, not the product of the
flags, for `kvplan sweep`, `kvplan capacity` and the web API alike; a paired entry beside another --vary gives the
product of the two groups; a tuple of the wrong length, an unknown flag or a flag varied twice is refused naming it."""

from __future__ import annotations

import json

import pytest

from cli_runner import refused, run_cli
from kvplan.api import parse_vary, vary_names, vary_settings
from kvplan.errors import InputError

QWEN32 = "Qwen/Qwen3-32B"
QWEN8 = "Qwen/Qwen3-8B"
CAP = ["--max-model-len", "8192", "-w", "azure-conv", "-n", "200", "--slo", "ttft=2s,tpot=80ms"]


def test_a_paired_entry_is_one_row_per_tuple_and_groups_multiply():
    varied = parse_vary(["gpu,tensor_parallel_size=L4:4,L40S:2,H100:1"])
    assert vary_names(varied) == ["gpu", "tensor_parallel_size"]
    assert vary_settings(varied) == [{"gpu": "L4", "tensor_parallel_size": 4}, {"gpu": "L40S", "tensor_parallel_size": 2},
                                     {"gpu": "H100", "tensor_parallel_size": 1}]
    mixed = parse_vary(["gpu,tensor_parallel_size=L4:4,H100:1", "max_model_len=8k,16k"])
    assert vary_names(mixed) == ["gpu", "tensor_parallel_size", "max_model_len"]
    settings = vary_settings(mixed)
    assert len(settings) == 4
    assert {(s["gpu"], s["tensor_parallel_size"], s["max_model_len"]) for s in settings} == {
        (g, tp, n) for g, tp in (("L4", 4), ("H100", 1)) for n in (8000, 16000)}
    # the product form reads as before
    assert vary_settings(parse_vary(["gpu=L4,H100", "tensor_parallel_size=1,2"])) == [
        {"gpu": g, "tensor_parallel_size": tp} for g in ("L4", "H100") for tp in (1, 2)]


@pytest.mark.parametrize("specs, says", [
    (["gpu,tensor_parallel_size=L4:4,L40S"], "'L40S' gives 1 of the 2 values of gpu,tensor_parallel_size"),
    (["gpu,tensor_parallel_size=L4:4:2"], "gives 3 of the 2 values"),
    (["gpu,colour=L4:red"], "cannot vary 'colour'"),
    (["gpu,tensor_parallel_size=L4:4", "gpu=H100"], "gpu is varied twice"),
    (["tensor_parallel_size=1,2", "gpu,tensor_parallel_size=L4:4"], "tensor_parallel_size is varied twice"),
    (["gpu,gpu=L4:H100"], "gpu is named twice"),
    (["gpu,tensor_parallel_size=L4:x"], "tensor_parallel_size takes int values"),
    (["gpu,tensor_parallel_size=L4:1..4"], "a range (1..4) cannot be paired"),
    (["gpu,tensor_parallel_size="], "no values for gpu,tensor_parallel_size"),
])
def test_bad_paired_entries_are_refused_naming_the_flag(specs, says):
    with pytest.raises(InputError) as exc:
        parse_vary(specs)
    assert exc.value.field == "--vary" and says in str(exc.value)


def _sweep(monkeypatch, capsys, *vary: str) -> list[dict]:
    args = [a for v in vary for a in ("--vary", v)]
    code, out, err = run_cli(monkeypatch, capsys, "sweep", QWEN32, "--max-model-len", "8192", *args, "--json")
    assert code == 0, err
    return json.loads(out)["rows"]


def test_sweep_plans_the_pairs_as_the_product_plans_those_rows(monkeypatch, capsys):
    """The three pairs of `sweep --vary gpu,tensor_parallel_size=L4:4,L40S:2,H100:1` are the product form's rows of
    those three deployments, in the order given; the product's six others (1 x L4 ...) are not planned."""
    paired = _sweep(monkeypatch, capsys, "gpu,tensor_parallel_size=L4:4,L40S:2,H100:1")
    product = _sweep(monkeypatch, capsys, "gpu=L4,L40S,H100", "tensor_parallel_size=1,2,4")
    assert len(paired) == 3 and len(product) == 9
    by = {(r["gpu"], r["tensor_parallel_size"]): r for r in product}
    assert paired == [by[("L4", 4)], by[("L40S", 2)], by[("H100", 1)]]
    assert all(r["fits"] for r in paired)
    assert not by[("L4", 1)]["fits"]  # a row the product showed that does not start
    code, out, err = run_cli(monkeypatch, capsys, "sweep", QWEN32, "--max-model-len", "8192", "--vary",
                             "gpu,tensor_parallel_size=L4:4,L40S", "--json")
    assert code == 2 and "--vary" in err and "'L40S' gives 1 of the 2 values" in " ".join(err.split())


def test_sweep_mixes_a_pair_with_another_vary_as_the_product_of_the_groups(monkeypatch, capsys, tmp_path):
    rows = _sweep(monkeypatch, capsys, "gpu,tensor_parallel_size=L4:4,H100:1", "kv_cache_dtype=auto,fp8")
    assert [(r["gpu"], r["tensor_parallel_size"], r["kv_cache_dtype"]) for r in rows] == [
        ("L4", 4, "auto"), ("L4", 4, "fp8"), ("H100", 1, "auto"), ("H100", 1, "fp8")]
    fp8 = {r["gpu"]: r["kv_cache_tokens"] for r in rows if r["kv_cache_dtype"] == "fp8"}
    auto = {r["gpu"]: r["kv_cache_tokens"] for r in rows if r["kv_cache_dtype"] == "auto"}
    assert all(fp8[g] > auto[g] for g in fp8)  # an fp8 cache holds more tokens on each deployment
    plot = tmp_path / "pairs.svg"
    code, out, err = run_cli(monkeypatch, capsys, "sweep", QWEN32, "--max-model-len", "8192", "--vary",
                             "gpu,tensor_parallel_size=L4:4,H100:1", "--vary", "kv_cache_dtype=auto,fp8", "--plot", str(plot))
    assert code == 0, err
    svg = plot.read_text()
    assert "L4:4" in svg and "H100:1" in svg  # one axis point per pair, not one per flag value


def _capacity(monkeypatch, capsys, *args: str) -> dict:
    code, out, err = run_cli(monkeypatch, capsys, "capacity", QWEN8, *CAP, "--target-rate", "20",
                             "--gpu-hour-usd", "L4=0.8,H100=2.5", *args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_capacity_compares_the_pairs_only(monkeypatch, capsys):
    """capacity --vary gpu,tensor_parallel_size=L4:2,H100:1 searches the two deployments paired, each row what the
    product form answers for it (its 2 x 2 = 4 searches include 1 x L4 and 2 x H100, not wanted here)."""
    paired = _capacity(monkeypatch, capsys, "--vary", "gpu,tensor_parallel_size=L4:2,H100:1")
    product = _capacity(monkeypatch, capsys, "--vary", "gpu=L4,H100", "--vary", "tensor_parallel_size=1,2")
    assert paired["varied"] == ["gpu", "tensor_parallel_size"] and len(paired["rows"]) == 2 and len(product["rows"]) == 4
    by = {(r["gpu"], r["tensor_parallel_size"]): r for r in product["rows"]}
    for r in paired["rows"]:
        twin = by[(r["gpu"], r["tensor_parallel_size"])]
        for key in ("rate_per_replica", "replicas", "gpus", "gpus_per_replica", "usd_per_hour", "usd_per_million_requests"):
            assert r[key] == twin[key], (r["gpu"], key)
    assert {(r["gpu"], r["tensor_parallel_size"]) for r in paired["rows"]} == {("L4", 2), ("H100", 1)}
    costs = [r["usd_per_million_requests"] for r in paired["rows"]]
    assert costs == sorted(costs) and paired["rows"][0]["best"] is True
    code, out, err = run_cli(monkeypatch, capsys, "capacity", QWEN8, *CAP, "--vary", "gpu,tensor_parallel_size=L4:2,H100:1")
    assert code == 0, err
    progress = [line for line in err.splitlines() if line.startswith("[")]
    assert len(progress) == 2 and "comparing 2 deployments" in " ".join(err.split())


@pytest.mark.parametrize("vary", [["gpu,tensor_parallel_size=L4:2,H100"], ["gpu,tp=L4:2"],
                                  ["gpu,tensor_parallel_size=L4:2", "tensor_parallel_size=1"]])
def test_capacity_refuses_bad_pairs_by_flag(monkeypatch, capsys, vary):
    refused(monkeypatch, capsys, "--vary", "capacity", QWEN8, *CAP, *[a for v in vary for a in ("--vary", v)])


def test_the_web_api_takes_paired_entries(monkeypatch, capsys):
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from kvplan.web.app import create_app

    client = TestClient(create_app())
    pairs = "gpu,tensor_parallel_size=L4:4,L40S:2,H100:1"
    sweep = client.post("/api/sweep", json={"model": QWEN32, "max_model_len": 8192, "vary": [pairs]})
    assert sweep.status_code == 200, sweep.text
    assert sweep.json()["varied"] == ["gpu", "tensor_parallel_size"]
    assert sweep.json()["rows"] == _sweep(monkeypatch, capsys, pairs)
    bad = client.post("/api/sweep", json={"model": QWEN32, "vary": ["gpu,tensor_parallel_size=L4:4,H100"]})
    assert bad.status_code == 400 and bad.json()["field"] == "--vary" and "gives 1 of the 2 values" in bad.json()["message"]
    body = {"model": QWEN8, "gpu": "H100", "max_model_len": 8192, "workload": "azure-conv", "max_requests": 200,
            "slo": "ttft=2s,tpot=80ms", "capacity": True, "target_rate_per_s": 20,
            "vary": ["gpu,tensor_parallel_size=L4:2,H100:1"], "gpu_hour_usd": "L4=0.8,H100=2.5"}
    page = client.post("/api/simulate", json=body)
    assert page.status_code == 200, page.text
    d = page.json()
    assert d["capacity_rows"]["varied"] == ["gpu", "tensor_parallel_size"]
    assert [r["field"] for r in d["replaced"]] == ["gpu"]
    # the CLI's rows, each with its cells as the CLI's table shows them (for the page)
    page_rows = [{k: v for k, v in r.items() if k != "cells"} for r in d["capacity_rows"]["rows"]]
    assert page_rows == _capacity(monkeypatch, capsys, "--vary", "gpu,tensor_parallel_size=L4:2,H100:1")["rows"]
    bad = client.post("/api/simulate", json={**body, "vary": ["gpu,tensor_parallel_size=L4:2", "gpu=H100"]})
    assert bad.status_code == 400 and bad.json()["field"] == "vary" and "gpu is varied twice" in bad.json()["message"]


def test_a_paired_value_holding_a_colon_is_quoted_or_escaped(monkeypatch, capsys, tmp_path):
    """A value with ':' or ',' in it (a checkpoint folder named qwen3:8b) was split as a separator: 'model,gpu=
    /ckpt/qwen3:8b:H100' read as three values of two flags. Quoted, or with the ':' after a backslash, it is one
    value, planned as the same config under its catalog id plans."""
    from kvplan.resolve import catalog_lookup

    config = tmp_path / "qwen3:8b.json"
    config.write_text(json.dumps(catalog_lookup(QWEN8)["config"]))
    escaped = str(config).replace(":", "\\:")
    with pytest.raises(InputError) as exc:
        parse_vary([f"model,gpu={config}:H100"])
    assert "gives 3 of the 2 values" in str(exc.value) and "quotes" in exc.value.fix  # the way out is named
    for spec in (f'model,gpu="{config}":H100,{QWEN8}:H100', f"model,gpu='{config}':H100,{QWEN8}:H100",
                 f"model,gpu={escaped}:H100,{QWEN8}:H100"):
        assert vary_settings(parse_vary([spec])) == [{"model": str(config), "gpu": "H100"},
                                                     {"model": QWEN8, "gpu": "H100"}], spec
    # the unpaired form reads the same quoting: a ',' quoted or escaped stays in the value
    assert vary_settings(parse_vary(['model="/ckpt/a,b",/ckpt/c\\,d,e'])) == [{"model": "/ckpt/a,b"},
                                                                               {"model": "/ckpt/c,d"}, {"model": "e"}]
    # quoted, a '..' is part of a value, not a range
    assert vary_settings(parse_vary(['model="../ckpt"'])) == [{"model": "../ckpt"}]
    code, out, err = run_cli(monkeypatch, capsys, "sweep", "--max-model-len", "8192", "--vary",
                             f'model,gpu="{config}":H100,{QWEN8}:H100', "--json")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    assert [r["model"] for r in rows] == [str(config), QWEN8] and all(r["fits"] for r in rows)
    assert rows[0]["kv_cache_tokens"] == rows[1]["kv_cache_tokens"]  # one config, planned alike


@pytest.mark.parametrize("spec, says", [
    ('model,gpu="/ckpt/q:8b:H100', 'an unclosed "'),
    ('model,gpu="/ckpt/q"8b:H100', 'text after the quoted value "/ckpt/q"'),
])
def test_a_bad_quote_in_vary_is_refused_naming_it(monkeypatch, capsys, spec, says):
    with pytest.raises(InputError) as exc:
        parse_vary([spec])
    assert exc.value.field == "--vary" and says in str(exc.value)
    text = refused(monkeypatch, capsys, "--vary", "sweep", "--vary", spec)
    assert says in text


def test_the_scheduler_knobs_are_varied_as_fit_plans_each_value(monkeypatch, capsys):
    """--vary max_num_seqs / max_num_batched_tokens / block_size / enforce_eager / enable_prefix_caching /
    enable_chunked_prefill / long_prefill_token_threshold / async_scheduling were refused ("cannot vary"), though they
    are the flags people tune; and varying an on/off flag fit leaves off (enforce_eager) was refused as "replaced in
    every row". Each row is fit's plan with that value."""
    import kvplan

    code, out, err = run_cli(monkeypatch, capsys, "sweep", QWEN8, "--gpu", "L4", "--max-model-len", "16384",
                             "--vary", "max_num_seqs=16,256", "--vary", "enforce_eager=true,false", "--json")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    assert [(r["max_num_seqs"], r["enforce_eager"]) for r in rows] == [(16, True), (16, False), (256, True), (256, False)]
    for r in rows:
        p = kvplan.fit(QWEN8, "L4", max_model_len=16384, max_num_seqs=r["max_num_seqs"], enforce_eager=r["enforce_eager"],
                       fixes=False)
        assert r["kv_cache_bytes"] == p.kv_cache_bytes
    assert len({r["kv_cache_bytes"] for r in rows}) == 4  # each knob moves the budget here
    for spec in ("max_num_batched_tokens=2048,8k", "block_size=16,32", "enable_prefix_caching=on,off",
                 "enable_chunked_prefill=true,false", "long_prefill_token_threshold=0,512", "async_scheduling=on,off"):
        code, out, err = run_cli(monkeypatch, capsys, "sweep", QWEN8, "--gpu", "L4", "--max-model-len", "16384",
                                 "--vary", spec, "--json")
        assert code == 0, (spec, err)
        assert len(json.loads(out)["rows"]) == 2, spec
    # a flag given beside its own --vary is still refused when it is set away from its default
    refused(monkeypatch, capsys, "--vary", "sweep", QWEN8, "--gpu", "L4", "--enforce-eager", "--vary",
            "enforce_eager=true,false")
    assert "max_num_seqs takes int values" in refused(monkeypatch, capsys, "--vary", "sweep", QWEN8, "--gpu", "L4",
                                                      "--vary", "max_num_seqs=many")


def test_capacity_compares_max_num_seqs(monkeypatch, capsys):
    small = _capacity(monkeypatch, capsys, "--gpu", "H100", "--vary", "max_num_seqs=8,256")
    assert small["varied"] == ["max_num_seqs"]
    rates = {r["max_num_seqs"]: r["rate_per_replica"] for r in small["rows"]}
    assert set(rates) == {8, 256} and rates[8] < rates[256]  # eight sequences a step serve fewer requests per second


def test_the_moe_kernel_is_varied_as_fit_plans_each(monkeypatch, capsys):
    import kvplan

    code, out, err = run_cli(monkeypatch, capsys, "sweep", "openai/gpt-oss-20b", "--gpu", "H100", "--max-model-len",
                             "16384", "--vary", "moe_backend=marlin,triton", "--json")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    for r in rows:
        p = kvplan.fit("openai/gpt-oss-20b", "H100", max_model_len=16384, moe_backend=r["moe_backend"], fixes=False)
        assert r["kv_cache_bytes"] == p.kv_cache_bytes
    assert rows[0]["kv_cache_bytes"] < rows[1]["kv_cache_bytes"]  # Marlin's padding and workspace
