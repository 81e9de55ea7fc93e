"""The web page's control for vLLM 0.34's extensible KV cache: the API took enable_extensible_kv_cache but the page had
no field for it, and a refused 0.34 plan's fix --no-enable-extensible-kv-cache ({"enable_extensible_kv_cache": false})
had no field for applyFix to set ($(k) was null: the click threw)."""
import json
import re
import shutil
import subprocess

import pytest

pytest.importorskip("fastapi", reason="kvplan[web] is not installed")
pytest.importorskip("httpx", reason="fastapi.testclient needs httpx")

from fastapi.testclient import TestClient  # noqa: E402

import kvplan  # noqa: E402
from kvplan.web.app import create_app  # noqa: E402


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    return TestClient(create_app(upload_dir=str(tmp_path_factory.mktemp("uploads"))))


def test_the_page_has_a_field_for_the_fix_a_refused_0_34_plan_offers(client):
    body = {"model": "Qwen/Qwen3-4B", "gpu": "T4", "max_model_len": 32000, "vllm_version": "0.34.0"}
    plan = client.post("/api/plan", json=body).json()
    flags = [f["flags"] for f in plan["fixes"]]
    assert {"enable_extensible_kv_cache": False} in flags
    page, js = client.get("/").text, client.get("/static/app.js").text
    field = re.search(r'<select id="enable_extensible_kv_cache" name="enable_extensible_kv_cache">(.*?)</select>', page, re.S)
    assert field, "no enable_extensible_kv_cache field"
    values = re.findall(r'<option value="([^"]*)"', field.group(1))
    assert values == ["", "true", "false"]  # applyFix sets String(false): an option's value
    assert '"enable_extensible_kv_cache"' in re.search(r"const FIELDS = \[(.*?)\];", js, re.S).group(1)
    # the page's request with the fix applied plans the estimate's pool, as fit does
    fixed = client.post("/api/plan", json={**body, "enable_extensible_kv_cache": False}).json()
    want = kvplan.fit("Qwen/Qwen3-4B", "T4", max_model_len=32000, vllm_version="0.34.0", enable_extensible_kv_cache=False)
    assert fixed["fits"] == want.fits and fixed["kv_cache_bytes"] == want.kv_cache_bytes


def test_the_select_is_sent_as_a_json_boolean(client):
    """The API refuses the text 'false' ('must be true or false, got ...'): planBody sends the select as a boolean."""
    js = client.get("/static/app.js").text
    refused = client.post("/api/plan", json={"model": "Qwen/Qwen3-8B", "gpu": "H100", "vllm_version": "0.34.0",
                                             "enable_extensible_kv_cache": "false"})
    assert refused.status_code == 422
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the page's planBody is checked with it")
    consts = "\n".join(re.search(rf"^const {name} = .*?;$", js, re.S | re.M).group(0) for name in ("NUMBERS", "SWITCHES"))
    source = re.search(r"^function planBody\(.*?^\}", js, re.S | re.M).group(0)
    cases = [{"enable_extensible_kv_cache": "false", "max_num_seqs": "64"}, {"enable_extensible_kv_cache": "true"}, {}]
    script = consts + "\n" + source + f"\nconsole.log(JSON.stringify({json.dumps(cases)}.map(planBody)));"
    got = json.loads(subprocess.run([node, "-e", script], capture_output=True, text=True, check=True).stdout)
    assert got == [{"enable_extensible_kv_cache": False, "max_num_seqs": 64}, {"enable_extensible_kv_cache": True}, {}]


def test_the_summary_names_the_capacity_beside_the_pool(client):
    """The page showed 'KV cache 58.15 GiB' and, in the predicted log under it, 'Available KV cache memory: 60.89 GiB',
    with nothing saying the second is only the capacity a 0.34 start reserves (fit's box has a capacity row)."""
    body = {"model": "Qwen/Qwen3-8B", "gpu": "H100", "max_model_len": 8192, "vllm_version": "0.34.0"}
    plan = client.post("/api/plan", json=body).json()
    assert plan["kv_cache_capacity_bytes"] > plan["kv_cache_bytes"]
    assert "Available KV cache memory: 60.89 GiB" in plan["vllm_log"]
    # the page's summary is fit's box (render.plan_rows, answered as summary_rows), its capacity row among them
    rows = dict(plan["summary_rows"])
    assert rows["capacity"] == (f"{plan['kv_cache_capacity_bytes'] / 2**30:.2f} GiB reserved (logged 'Available KV cache "
                                "memory'); the pool above is what is left after warmup and CUDA-graph capture")
    assert list(rows).index("capacity") == list(rows).index("KV cache") + 1
    js = client.get("/static/app.js").text
    render = re.search(r"^function renderPlan\(.*?^\}", js, re.S | re.M).group(0)
    assert "p.summary_rows" in render and "kv_cache_capacity_bytes" not in render, render
    old = client.post("/api/plan", json={**body, "vllm_version": "0.33.0"}).json()
    assert old["kv_cache_capacity_bytes"] is None  # no capacity row for a pool sized from the estimate
    assert "capacity" not in dict(old["summary_rows"])
