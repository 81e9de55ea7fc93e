"""The web page's and API's answers to an audit's repros: every bad input is a 4xx naming the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="kvplan[web] is not installed")
pytest.importorskip("httpx", reason="fastapi.testclient needs httpx")

from fastapi.testclient import TestClient  # noqa: E402

from kvplan.errors import InputError  # noqa: E402
from kvplan.plan import parse_max_model_len  # noqa: E402
from kvplan.resolve import find_gpu, gpu_catalog  # noqa: E402
from kvplan.web.app import create_app  # noqa: E402

BASE = {"model": "Qwen/Qwen2.5-0.5B-Instruct", "gpu": "tesla-t4", "max_model_len": 4096, "curve": False}
QWEN_CONFIG = Path(__file__).resolve().parents[1] / "src" / "kvplan" / "data"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    return TestClient(create_app(upload_dir=str(tmp_path_factory.mktemp("uploads"))), raise_server_exceptions=False)


def raw_post(client, path, text):
    return client.post(path, content=text, headers={"content-type": "application/json"})


@pytest.mark.parametrize("gpu_id", [g.id for g in gpu_catalog()])
def test_every_catalog_gpu_id_resolves_to_its_card(gpu_id):
    assert find_gpu(gpu_id).id == gpu_id


def test_rtx_2060_from_the_dropdown_plans(client):
    r = client.post("/api/plan", json={**BASE, "gpu": "rtx-2060"})
    assert r.status_code == 200, r.text
    assert r.json()["gpu"] == "NVIDIA GeForce RTX 2060"


@pytest.mark.parametrize("body,field", [
    ({"model": "a" * 256}, "model"),
    ({"max_model_len": "9" * 5000}, "--max-model-len"),
    ({"vllm_version": "0." + "9" * 100000}, "--vllm-version"),
])
def test_oversized_inputs_are_400_naming_the_field(client, body, field):
    r = client.post("/api/plan", json={**BASE, **body})
    assert r.status_code == 400, r.text[:300]
    assert r.json()["field"] == field
    assert len(r.json()["message"]) < 200


def test_a_4000_digit_integer_length_is_400(client):
    r = raw_post(client, "/api/plan", json.dumps({**BASE})[:-1] + ', "max_model_len": ' + "9" * 4000 + "}")
    assert r.status_code == 400 and r.json()["field"] == "--max-model-len"


def test_cli_max_model_len_of_400_nines_is_an_input_error():
    with pytest.raises(InputError, match="not a context length"):
        parse_max_model_len("9" * 400)
    assert parse_max_model_len("32k") == 32_000 and parse_max_model_len("32K") == 32_768
    assert parse_max_model_len("1.5k") == 1500
    with pytest.raises(InputError):
        parse_max_model_len("1e400")


def test_config_with_infinity_is_400(client):
    config = json.loads((QWEN_CONFIG / "models.json").read_text())["Qwen/Qwen2.5-0.5B-Instruct"]["config"]
    text = json.dumps({**config, "hidden_size": float("inf")})
    r = raw_post(client, "/api/config", text)
    assert r.status_code == 400 and r.json()["field"] == "config.json" and "Infinity" in r.json()["message"]


def test_an_unexpected_exception_is_a_json_500_with_one_line(client, monkeypatch):
    from kvplan.web import app as web

    def boom(self, req):
        raise RuntimeError("first line\nsecond line")
    monkeypatch.setattr(web.Planner, "plan_response", boom)
    r = client.post("/api/plan", json={**BASE, "max_model_len": 1234})
    assert r.status_code == 500
    assert r.headers["content-type"].startswith("application/json")
    assert r.json()["message"] == "internal error: RuntimeError: first line"


def test_nan_is_refused_not_served_from_the_cache(client):
    assert client.post("/api/plan", json=BASE).status_code == 200
    r = raw_post(client, "/api/plan", json.dumps(BASE)[:-1] + ', "gpu_memory_utilization": NaN}')
    assert r.status_code == 422 and r.json()["field"] == "gpu_memory_utilization"


@pytest.mark.parametrize("path,key,value", [("/api/plan", "concurrency", "NaN"), ("/api/sweep", "gpu_gib", "-Infinity"),
                                            ("/api/scaffold", "gpu_memory_utilization", "NaN"),
                                            ("/api/scaffold", "cpu_offload_gb", "Infinity"),
                                            ("/api/simulate", "gpu_gib", "1e400")])
def test_every_endpoint_refuses_a_non_finite_number_by_its_key(client, path, key, value):
    # plan and sweep refused NaN and Infinity (400); scaffold and simulate let them through to the plan, which
    # named the CLI flag or, for cpu_offload_gb, failed with a 500. Now one rule for every body: 422, the key
    r = raw_post(client, path, json.dumps(BASE)[:-1] + f', "{key}": {value}}}')
    assert r.status_code == 422 and r.json()["field"] == key and "finite" in r.json()["message"]


def test_a_simulation_rate_of_infinity_is_all_at_once_as_the_clis(client):
    r = raw_post(client, "/api/simulate", json.dumps({**BASE, "max_requests": 50})[:-1] + ', "rate_per_s": Infinity}')
    assert r.status_code == 200 and r.json()["workload"]["requests"] == 50


def test_an_upload_that_is_not_utf8_says_so(client):
    for path, field in (("/api/config", "config.json"), ("/api/workload", "workload")):
        r = client.post(path, content=b"\xff\xfe\x00 not text", headers={"content-type": "application/octet-stream"})
        assert r.status_code == 400 and r.json()["field"] == field and r.json()["message"] == "not UTF-8 text"


def test_max_model_len_in_the_cli_notation(client):
    assert client.post("/api/plan", json={**BASE, "max_model_len": "32k"}).json()["args"]["max_model_len"] == 32_000
    r = client.post("/api/plan", json={**BASE, "max_model_len": "1e400"})
    assert r.status_code == 400 and r.json()["field"] == "--max-model-len"


def test_unknown_model_fix_says_what_the_page_takes(client):
    r = client.post("/api/plan", json={**BASE, "model": "no-such-model"})
    assert r.status_code == 400
    fix = r.json()["fix"]
    assert "folder" not in fix and "path" not in fix and "upload" in fix


def test_a_non_integer_names_its_field_in_plain_words(client):
    r = client.post("/api/plan", json={**BASE, "num_gpus": 1.5})
    assert r.status_code == 422 and r.json()["field"] == "num_gpus"
    assert r.json()["message"].startswith("must be a whole number")
    r = client.post("/api/plan", json={**BASE, "max_model_len": [1]})
    assert r.json()["field"] == "max_model_len"


def test_revision_main_with_a_catalog_model_plans_offline(client):
    r = client.post("/api/plan", json={**BASE, "revision": "main"})
    assert r.status_code == 200, r.text


def test_sweep_requests_with_a_name_varied_twice_are_errors(client):
    r = client.post("/api/sweep", json={**BASE, "vary": ["max_model_len=1024", "max_model_len=2048"]})
    assert r.status_code == 400 and "varied twice" in r.json()["message"]


def test_a_reversed_range_sweeps_downwards_as_the_cli_does(client):
    r = client.post("/api/sweep", json={**BASE, "vary": ["max_model_len=4096..1024"]})
    assert r.status_code == 200, r.text
    assert [row["max_model_len"] for row in r.json()["rows"]] == [4096, 2048, 1024]


@pytest.mark.parametrize("name", ["HF_TOKEN", "OPENAI_API_KEY", "MY_SECRET_THING", "DB_PASSWORD", "GITHUB_TOKEN"])
def test_scaffold_refuses_secrets_in_env(client, name):
    r = client.post("/api/scaffold", json={**BASE, "env": [f"{name}=hf_abc"]})
    assert r.status_code == 400 and r.json()["field"] == "--env"
    assert ".env" in r.json()["fix"] and "Secret" in r.json()["fix"]
    assert "hf_abc" not in r.text


def test_scaffold_fixes_are_request_keys_the_api_accepts(client):
    body = {**BASE, "model": "meta-llama/Llama-3.1-8B-Instruct", "max_model_len": 131072}
    r = client.post("/api/scaffold", json=body)
    assert r.status_code == 400
    fix = r.json()["fix"]
    first = fix.split(" (")[0]
    assert first.startswith("set ")
    key, value = first[4:].split(", ")[0].split("=", 1)
    assert client.post("/api/scaffold", json={**body, key: int(value) if value.isdigit() else value}).status_code == 200


def test_capacity_says_why_rejections_rule_out_the_slo(client):
    r = client.post("/api/simulate", json={**BASE, "workload": "azure-conv", "max_requests": 2000,
                                           "slo": "ttft=1s,tpot=50ms", "capacity": True})
    d = r.json()
    assert r.status_code == 200 and d["result"]["requests_rejected"] > 20
    cap = d["capacity"]
    assert cap["max_rate_per_s"] == 0 and cap["rejected_fraction"] > 0.01
    assert "rejected" in cap["reason"] and "p99" in cap["reason"]
    assert "max_model_len to at least" in cap["fix"]


def test_host_header_is_checked_when_hosts_are_given(tmp_path):
    c = TestClient(create_app(upload_dir=str(tmp_path), allowed_hosts=["127.0.0.1", "localhost"]))
    assert c.get("/api/gpus", headers={"host": "127.0.0.1:8765"}).status_code == 200
    assert c.get("/api/gpus", headers={"host": "localhost"}).status_code == 200
    assert c.get("/api/gpus", headers={"host": "evil.example:8765"}).status_code == 400


def _run_cli(args):
    from typer.testing import CliRunner

    from kvplan.cli import app
    return CliRunner().invoke(app, args)


def test_kvplan_web_refuses_a_port_out_of_range():
    res = _run_cli(["web", "--port", "70000"])
    assert res.exit_code != 0 and isinstance(res.exception, InputError) and res.exception.field == "--port"


def test_kvplan_web_refuses_a_busy_port_before_announcing(capsys):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        res = _run_cli(["web", "--port", str(port)])
    assert isinstance(res.exception, InputError) and "cannot listen" in res.exception.message
    assert "kvplan web on" not in res.output


def test_kvplan_web_removes_its_uploads_and_checks_the_host(monkeypatch):
    from kvplan.cli import web as cli_web
    from kvplan.web import app as web_app

    seen = {}

    class FakeUvicorn:
        @staticmethod
        def run(app, **kw):
            seen["dir"] = app.state.planner.configs.root.parent
            (seen["dir"] / "configs" / "x.json").write_text("{}")
            seen["hosts"] = TestClient(app).get("/api/gpus", headers={"host": "rebound.example"}).status_code
    monkeypatch.setattr(cli_web, "_web_stack", lambda: (FakeUvicorn, web_app.create_app))
    res = _run_cli(["web", "--port", "8799"])
    assert res.exit_code == 0, res.output
    assert seen["hosts"] == 400
    assert not seen["dir"].exists()


def test_capacity_cli_names_the_rejections():
    res = _run_cli(["capacity", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "tesla-t4", "--max-model-len", "4096",
                    "--workload", "azure-conv", "--max-requests", "2000", "--slo", "ttft=1s,tpot=50ms"])
    assert "no probed rate meets" in res.output
    assert "rejected by vLLM" in res.output and "max_model_len to at least" in res.output


def test_scaffold_cli_refuses_a_secret_in_env(tmp_path):
    res = _run_cli(["scaffold", str(tmp_path / "out"), "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "tesla-t4",
                    "--env", "HF_TOKEN=hf_abc"])
    assert isinstance(res.exception, InputError) and res.exception.field == "--env"
    assert not (tmp_path / "out" / "serve.sh").exists()


@pytest.mark.parametrize("body", [{"max_model_len": True}, {"tensor_parallel_size": 2.0}, {"gpu_memory_utilization": True}])
def test_json_values_vllm_serve_would_not_take_are_refused(client, body):
    r = client.post("/api/plan", json={**BASE, **body})
    assert r.status_code == 422 and r.json()["field"] == next(iter(body))


def test_a_sweep_at_auto_length_is_refused_with_the_way_to_ask(client):
    r = client.post("/api/sweep", json={**BASE, "max_model_len": "auto", "concurrency": 4,
                                        "vary": ["gpu_memory_utilization=0.8,0.9"]})
    assert r.status_code == 400 and r.json()["field"] == "--max-model-len" and "--concurrency" in r.json()["message"]


def test_max_num_batched_tokens_8k_is_read_as_the_cli_reads_it(client):
    r = client.post("/api/plan", json={**BASE, "max_num_batched_tokens": "8k", "max_model_len": 4096})
    assert r.status_code == 200, r.text
    assert r.json()["args"]["max_num_batched_tokens"] == 8000


@pytest.mark.parametrize("model", ["x" * 300, "no-such-model"])
def test_a_model_errors_fix_offers_an_upload_never_a_path(client, model):
    # resolve's fixes name LOCAL_MODEL_REFS; the page, which takes no local paths, offers the upload in their place
    fix = client.post("/api/plan", json={**BASE, "model": model}).json()["fix"]
    assert "or upload the checkpoint's config.json" in fix and "path" not in fix and "folder" not in fix


def test_a_workload_upload_past_the_cap_gets_a_workloads_fix(client):
    from kvplan.web.app import MAX_UPLOAD_BYTES

    body = b"prompt_tokens,completion_tokens\n" + b"100,20\n" * (MAX_UPLOAD_BYTES // 7 + 1)
    r = client.post("/api/workload", content=body, headers={"content-type": "text/csv"})
    assert r.status_code == 413 and r.json()["field"] == "workload"
    assert "config.json" not in r.json()["fix"] and "kvplan simulate" in r.json()["fix"]  # was the config's fix


@pytest.mark.parametrize("body, says", [
    (b"", "is empty"),
    (b"{bad\n", "line 1 is not JSON"),
    (b"prompt_tokens,completion_tokens\n1,x\n", "has 'x' in completion_tokens"),
])
def test_an_upload_error_names_the_file_not_the_servers_folder(tmp_path, body, says):
    # an empty workload upload answered '/tmp/kvplan-web-.../workloads/workload-e3b0c44298.csv is empty': the
    # server's private upload folder, which the other upload errors (and the page) never show
    c = TestClient(create_app(upload_dir=str(tmp_path / "up")), raise_server_exceptions=False)
    r = c.post("/api/workload", content=body)
    assert r.status_code == 400 and says in r.json()["message"], r.text
    assert str(tmp_path) not in r.text and "workloads/" not in r.text and "workload-" in r.json()["message"]


def test_a_plan_of_an_uploaded_config_names_the_upload_not_the_servers_folder(tmp_path):
    c = TestClient(create_app(upload_dir=str(tmp_path / "up")), raise_server_exceptions=False)
    config = json.loads((QWEN_CONFIG / "models.json").read_text())["Qwen/Qwen2.5-0.5B-Instruct"]["config"]
    handle = c.post("/api/config", content=json.dumps(config)).json()["model"]
    r = c.post("/api/plan", json={**BASE, "model": handle})
    assert r.status_code == 200, r.text
    assert r.json()["model_source"].startswith("upload: ") and str(tmp_path) not in r.text


@pytest.mark.parametrize("body, says", [
    ("not json", "not valid JSON (at character 0"),
    ('{"model": "x"}trailing', "not valid JSON (at character 14"),
    ("", "no request body"),
])
def test_a_body_that_is_not_json_is_an_error_of_the_body(client, body, says):
    # the field was the character offset pydantic puts in loc ('0: JSON decode error'), which names no field
    r = raw_post(client, "/api/plan", body)
    assert r.status_code == 422 and r.json()["field"] == "body" and says in r.json()["message"], r.text


def test_an_unknown_key_lists_the_keys_of_its_own_endpoint(client):
    # /api/simulate's list of known keys left out its own rate_per_s, workload, slo, capacity, max_requests and seed
    r = client.post("/api/simulate", json={**BASE, "rate": 2})
    assert r.status_code == 422 and r.json()["field"] == "rate"
    fix = r.json()["fix"]
    assert all(k in fix for k in ("rate_per_s", "workload", "slo", "capacity", "max_requests", "seed", "max_model_len"))
    r = client.post("/api/plan", json={**BASE, "rate": 2})
    assert "rate_per_s" not in r.json()["fix"] and "max_model_len" in r.json()["fix"]


def test_a_length_given_as_a_float_is_answered_with_a_length(client):
    # max_model_len 1e12 was answered "must be a whole number ... (e.g. 4)"
    r = client.post("/api/plan", json={**BASE, "max_model_len": 1e12})
    assert r.status_code == 422 and r.json()["field"] == "max_model_len"
    assert r.json()["fix"] == "e.g. 4096"


def test_a_refused_scaffold_names_the_key_its_first_fix_changes(client):
    # a 70B model on one T4: the fix is tensor parallelism, not max_model_len, which the refusal always named
    body = {**BASE, "model": "meta-llama/Llama-3.1-70B"}
    r = client.post("/api/scaffold", json=body)
    assert r.status_code == 400
    first_key = r.json()["fix"][4:].split("=", 1)[0]
    assert r.json()["field"] == first_key != "max_model_len"
    r = client.post("/api/simulate", json=body)
    assert r.status_code == 400 and r.json()["field"] == first_key and r.json()["fix"].startswith("set ")


def test_the_pages_decode_example_is_that_of_the_requests_served(client):
    # the page built its decode example from the whole workload's mean context, rejected requests included, where
    # `kvplan simulate` takes the requests it served: the two answered differently for one request
    body = {**BASE, "max_model_len": 2048, "workload": "azure-code", "max_requests": 300}
    r = client.post("/api/simulate", json=body)
    assert r.status_code == 200, r.text
    decode = r.json()["step_model"]["example_steps"][0]
    cli = _run_cli(["simulate", BASE["model"], "--gpu", "T4", "--max-model-len", "2048", "-w", "azure-code", "-n", "300",
                    "--json"])
    assert decode == json.loads(cli.stdout)["step_model"]["example_steps"][0]
    assert decode["decode_seqs"] > 0 and decode["decode_context_tokens"] / decode["decode_seqs"] <= 2048


def test_a_scaffold_of_an_uploaded_config_names_what_it_lacks(client):
    # an uploaded config was scaffolded as `vllm serve <its file name> --revision main`, a Hub id nobody published
    from kvplan.resolve import model_catalog

    config = model_catalog()["Qwen/Qwen2.5-0.5B-Instruct"]["config"]
    handle = client.post("/api/config?name=mine.json", content=json.dumps(config)).json()["model"]
    assert client.post("/api/plan", json={**BASE, "model": handle}).status_code == 200  # planned as before
    r = client.post("/api/scaffold", json={**BASE, "model": handle})
    assert r.status_code == 400 and r.json()["field"] == "model"
    assert "config file alone" in r.json()["message"] and "Hub id" in r.json()["fix"]
