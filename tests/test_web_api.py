"""The JSON API in-process: the same numbers as `kvplan.fit`, errors as {field, message, fix}, bounded uploads."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Optional

import pytest

pytest.importorskip("fastapi", reason="kvplan[web] is not installed")
pytest.importorskip("httpx", reason="fastapi.testclient needs httpx")

from fastapi.testclient import TestClient  # noqa: E402

import kvplan  # noqa: E402
from kvplan.api import FIT_PARAMS, FitFlags, sweep_rows  # noqa: E402
from kvplan.render import budget_segments, verdict_text  # noqa: E402
from kvplan.resolve import model_catalog  # noqa: E402
from kvplan.web.app import MAX_UPLOAD_BYTES, create_app  # noqa: E402

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
PLAN_KEYS = ("kv_cache_tokens", "max_concurrency", "num_gpu_blocks", "kv_cache_bytes", "weights_bytes", "fits", "error",
             "activation_peak_bytes", "non_torch_bytes", "cudagraph_bytes", "requested_bytes", "vllm_log", "fixes", "args",
             "first_start")


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    return TestClient(create_app(upload_dir=str(tmp_path_factory.mktemp("uploads"))))


@pytest.mark.parametrize("body, fit_kwargs", [
    ({"model": LLAMA, "gpu": "L4", "max_model_len": 8192}, {"gpu": "L4", "max_model_len": 8192}),
    ({"model": LLAMA, "gpu": "L4", "max_model_len": "32k"}, {"gpu": "L4", "max_model_len": "32k"}),
    ({"model": LLAMA, "gpu": "L4", "max_model_len": 16384, "kv_cache_dtype": "fp8", "gpu_memory_utilization": 0.95,
      "enforce_eager": True, "vllm_version": "0.10.2"},
     {"gpu": "L4", "max_model_len": 16384, "kv_cache_dtype": "fp8", "gpu_memory_utilization": 0.95, "enforce_eager": True,
      "vllm_version": "0.10.2"}),
    ({"model": "Qwen/Qwen3.8-27B", "gpu": "H100", "max_model_len": 131072, "tensor_parallel_size": 2},
     {"gpu": "H100", "max_model_len": 131072, "tensor_parallel_size": 2}),
    ({"model": LLAMA, "gpu_gib": 23.5, "max_model_len": 4096}, {"gpu_gib": 23.5, "max_model_len": 4096}),
    ({"model": LLAMA, "gpu": "L4", "max_model_len": -1}, {"gpu": "L4", "max_model_len": -1}),       # vLLM's auto-fit
    ({"model": LLAMA, "gpu": "L4", "runner": "pooling"}, {"gpu": "L4", "runner": "pooling"}),
    ({"model": "Qwen/Qwen3-VL-30B-A3B-Instruct", "gpu": "H100", "max_model_len": 32768, "limit_mm_per_prompt": '{"image": 0, "video": 0}'},
     {"gpu": "H100", "max_model_len": 32768, "limit_mm_per_prompt": '{"image": 0, "video": 0}'}),
    ({"model": "Qwen/Qwen3-VL-30B-A3B-Instruct", "gpu": "H100", "max_model_len": 32768, "skip_mm_profiling": True},
     {"gpu": "H100", "max_model_len": 32768, "skip_mm_profiling": True}),
    ({"model": LLAMA, "gpu": "L4", "max_model_len": 8192, "cudagraph_capture_sizes": "1,2,4,8"},
     {"gpu": "L4", "max_model_len": 8192, "cudagraph_capture_sizes": "1,2,4,8"}),
    ({"model": LLAMA, "gpu": "L4", "max_model_len": 8192, "max_cudagraph_capture_size": 64},
     {"gpu": "L4", "max_model_len": 8192, "max_cudagraph_capture_size": 64}),
    ({"model": "openai/gpt-oss-20b", "gpu": "H100", "max_model_len": 131072, "vllm_version": "0.33.0", "async_scheduling": False},
     {"gpu": "H100", "max_model_len": 131072, "vllm_version": "0.33.0", "async_scheduling": False}),
    ({"model": LLAMA, "gpu": "H100", "max_model_len": 8192, "tensor_parallel_size": 2, "disable_custom_all_reduce": True,
      "enable_sleep_mode": True, "load_format": "safetensors"},
     {"gpu": "H100", "max_model_len": 8192, "tensor_parallel_size": 2, "disable_custom_all_reduce": True,
      "enable_sleep_mode": True, "load_format": "safetensors"}),
])
def test_plan_equals_fit(client, body, fit_kwargs):
    r = client.post("/api/plan", json=body)
    assert r.status_code == 200, r.text
    got = r.json()
    p = kvplan.fit(body["model"], **fit_kwargs)
    want = json.loads(json.dumps(p.to_dict()))
    for key in PLAN_KEYS:
        assert got[key] == want[key], key
    assert got["verdict"] == verdict_text(p).plain
    assert [s["bytes"] for s in got["budget_segments"]] == [b for _, b in budget_segments(p)]
    assert "<svg" in got["svg"]["budget"] and "<title>" in got["svg"]["budget"]
    assert f"data-chosen-max-model-len='{p.args.max_model_len}'" in got["svg"]["concurrency"]


def test_features_suggest_every_load_format_a_release_takes(client):
    # the page's load_format box suggests these; /api/plan says which the asked release takes
    from kvplan.versions import LOAD_FORMATS, load_formats_at

    names = client.get("/api/features").json()["load_formats"]
    assert names == list(LOAD_FORMATS) and {"gguf", "bitsandbytes", "ipc_cache"} <= set(names)
    assert set(load_formats_at((0, 33, 0))) < set(names)


def test_features_offer_every_moe_backend_and_mamba_cache_dtype(client):
    # the page's moe_backend suggestions and mamba_cache_dtype choices, from the server (none written in the page)
    from kvplan.plan import MAMBA_DTYPES
    from kvplan.versions import MOE_BACKENDS, moe_backends_of

    features = client.get("/api/features").json()
    assert features["moe_backends"] == list(MOE_BACKENDS) and set(moe_backends_of((0, 33, 0))) < set(MOE_BACKENDS)
    assert features["mamba_cache_dtypes"] == list(MAMBA_DTYPES)
    page = client.get("/").text
    assert '<datalist id="moe-backend-list"></datalist>' in page
    assert re.search(r'<select id="mamba_cache_dtype" name="mamba_cache_dtype">\s*<option value="">[^<]*</option>\s*</select>', page)


# vllm serve flags /api/plan took that the page had no control for (or, disable_hybrid_kv_cache_manager, a checkbox that
# could not send its --no- form); --enable-prefix-caching, without which --mamba-block-size is refused
PAGE_FLAGS = ("disable_hybrid_kv_cache_manager", "decode_context_parallel_size", "prefill_context_parallel_size",
              "mamba_cache_dtype", "num_gpu_blocks_override", "mamba_block_size", "calculate_kv_scales",
              "enable_prefix_caching", "dcp_kv_cache_interleave_size", "cp_kv_cache_interleave_size")


@pytest.mark.parametrize("name", PAGE_FLAGS)
def test_the_page_has_a_control_for_the_flag_sent_as_its_json_type(client, name):
    """Each flag has a control, an error slot, a place in FIELDS (read, sent, kept in the URL); an int is sent as a
    JSON number, a flag with a --no- form (Optional[bool]) is a select of the release's default, true and false sent as
    JSON booleans, a plain switch a checkbox."""
    page, js = client.get("/").text, client.get("/static/app.js").text
    param = next(p for p in FIT_PARAMS if p.name == name)
    listed = lambda const: re.findall(r'"(\w+)"', re.search(rf"const {const} = (?:new Set\()?\[(.*?)\]", js, re.S).group(1))  # noqa: E731
    assert name in listed("FIELDS") and f'<div class="err" data-for="{name}"></div>' in page
    tag = re.search(rf'<(input|select) id="{name}" name="{name}"[^>]*>', page)
    assert tag, name
    if param.annotation == Optional[bool]:
        options = re.search(rf'<select id="{name}" name="{name}">(.*?)</select>', page, re.S).group(1)
        assert re.findall(r'<option value="([^"]*)">', options) == ["", "true", "false"] and name in listed("SWITCHES")
    elif param.annotation is bool:
        assert 'type="checkbox"' in tag.group(0)
    elif param.annotation == Optional[int]:
        assert 'type="number"' in tag.group(0) and name in listed("NUMBERS")


def test_plan_inverse_questions_match_the_cli(client):
    r = client.post("/api/plan", json={"model": LLAMA, "gpu": "auto", "max_model_len": 32768, "curve": False})
    assert r.status_code == 200
    assert r.json()["inverse"].startswith("--gpu auto")
    r = client.post("/api/plan", json={"model": LLAMA, "gpu": "L4", "max_model_len": "auto", "concurrency": 4, "curve": False})
    assert r.status_code == 200
    assert r.json()["max_concurrency"] >= 4


def test_concurrency_curve_goes_log_scale_when_it_spans_more_than_20x():
    from kvplan.web.svg import concurrency_curve_svg

    wide = [{"max_model_len": 1024 * 2 ** k, "max_concurrency": 64.0 / 2 ** k, "fits": True} for k in range(8)]  # 64x..0.5x
    narrow = [{"max_model_len": n, "max_concurrency": c, "fits": True} for n, c in ((4096, 10.0), (8192, 5.0))]
    log_svg = concurrency_curve_svg(wide, 8192, 8.0, True)
    assert "log scale) vs max_model_len" in log_svg and ">0.1</text>" in log_svg and ">10</text>" in log_svg
    assert "log scale) vs" not in concurrency_curve_svg(narrow, 8192, 5.0, True)


def test_concurrency_curve_is_the_sweep(client):
    got = client.post("/api/plan", json={"model": LLAMA, "gpu": "L4", "max_model_len": 8192}).json()["svg"]["concurrency"]
    rows = sweep_rows(LLAMA, FitFlags(gpu="L4", max_model_len="8192"), [("max_model_len", [1024, 2048, 131072])])
    for row in rows:
        assert f"data-max-model-len='{row['max_model_len']}' data-concurrency='{row['max_concurrency']!r}'" in got


def test_sweep_equals_cli_rows(client):
    body = {"model": LLAMA, "gpu": "L4", "vary": ["max_model_len=2048,4096,16384", "kv_cache_dtype=auto,fp8"]}
    r = client.post("/api/sweep", json=body)
    assert r.status_code == 200
    want = sweep_rows(LLAMA, FitFlags(gpu="L4"), [("max_model_len", [2048, 4096, 16384]), ("kv_cache_dtype", ["auto", "fp8"])])
    assert r.json() == {"varied": ["max_model_len", "kv_cache_dtype"], "rows": json.loads(json.dumps(want)),
                        "replaced": [], "notes": []}


def test_a_sweep_says_which_form_field_its_vary_replaced(client):
    """The page's sweep let vary override the form's own fields silently (`kvplan sweep` refuses it): the answer
    now names each field replaced, and the page shows it beside the GPU table."""
    body = {"model": LLAMA, "gpu": "L4", "max_model_len": 8192, "tensor_parallel_size": 1,
            "vary": ["gpu=l4,h100", "tensor_parallel_size=1,2"]}
    d = client.post("/api/sweep", json=body).json()
    assert [(r["field"], r["value"], r["by"]) for r in d["replaced"]] == [("gpu", "L4", "gpu"),
                                                                          ("tensor_parallel_size", "1", "tensor_parallel_size")]
    assert d["notes"][0] == "vary gpu replaced the form's gpu (L4) in every row"
    # the rows are those of the sweep without the replaced fields (what `kvplan sweep` runs)
    want = sweep_rows(LLAMA, FitFlags(max_model_len="8192"), [("gpu", ["l4", "h100"]), ("tensor_parallel_size", [1, 2])])
    assert d["rows"] == json.loads(json.dumps(want))
    custom = client.post("/api/sweep", json={"model": LLAMA, "gpu_gib": 23.5, "vary": ["gpu=l4"]}).json()
    assert custom["notes"] == ["vary gpu replaced the form's gpu_gib (23.5) in every row"]
    own = client.post("/api/sweep", json={"model": LLAMA, "max_model_len": 4096, "vary": ["max_model_len=2048,8192"]}).json()
    assert own["replaced"] == [{"field": "max_model_len", "value": "4096", "by": "max_model_len"}]
    assert [r["max_model_len"] for r in own["rows"]] == [2048, 8192]
    # the GPU table's note names them (render.gpu_table), the page shows the note as it stands
    assert d["gpu_table"]["note"].endswith("; vary gpu replaced the form's gpu (L4) in every row; vary tensor_parallel_size "
                                           "replaced the form's tensor_parallel_size (1) in every row)")
    js = (Path(kvplan.__file__).parent / "web" / "static" / "app.js").read_text()
    assert "data.gpu_table.note" in js
    assert "gpu_table" not in custom and "gpu_table" not in own  # a sweep of other flags is no GPU table


def test_the_page_shows_a_first_starts_pool(client):
    got = client.post("/api/plan", json={"model": LLAMA, "gpu": "L4", "max_model_len": 8192}).json()
    first = got["first_start"]
    assert first["modelled"] and 0 < first["loss_bytes_most"] and first["kv_cache_bytes_most"] < got["kv_cache_bytes"]
    # shown in the KV cache row of the summary, as fit's box words it (render.first_start_text)
    kv_row = dict(got["summary_rows"])["KV cache"]
    assert kv_row.endswith(f"  (a first start, compiling: {first['kv_cache_bytes_least'] / 2**30:.2f}–"
                           f"{first['kv_cache_bytes_most'] / 2**30:.2f} GiB)")
    js = (Path(kvplan.__file__).parent / "web" / "static" / "app.js").read_text()
    assert "p.summary_rows" in js


def test_the_pages_wsl2_switch_plans_as_fit_wsl2(client):
    # the GPU box's switch sends the request field `wsl2`, fit's --wsl2: the card planned with its nvidia-smi total
    page = client.get("/").text
    assert re.search(r'<input id="wsl2" name="wsl2" type="checkbox">', page) and 'data-for="wsl2"' in page
    js = client.get("/static/app.js").text
    assert '"wsl2"' in re.search(r"const FIELDS = \[(.*?)\];", js, re.S).group(1)  # read, sent and kept in the URL
    body = {"model": "Qwen/Qwen2.5-0.5B-Instruct", "gpu": "rtx-4060", "max_model_len": 4096}
    got = {w: client.post("/api/plan", json={**body, "wsl2": w}).json() for w in (True, False)}
    for w in (True, False):
        want = json.loads(json.dumps(kvplan.fit(body["model"], gpu="rtx-4060", max_model_len=4096, wsl2=w).to_dict()))
        assert {k: got[w][k] for k in PLAN_KEYS} == {k: want[k] for k in PLAN_KEYS}
    assert got[True]["kv_cache_bytes"] > got[False]["kv_cache_bytes"] + 0.3 * 2**30  # 8.00 GiB, not 7.62
    # a card the catalog has no nvidia-smi total for: the error names the switch's field (shown beside it)
    r = client.post("/api/plan", json={**body, "gpu": "rtx-4070-ti", "wsl2": True})
    assert r.status_code == 400 and r.json()["field"] == "--wsl2" and "--gpu-gib" in r.json()["fix"]


def test_the_gpu_table_and_list_show_the_totals_the_plans_use_under_wsl2(client):
    """The table of catalog GPUs that start the plan showed each card's native total (the catalog's) while its rows
    were planned, with the wsl2 box checked, on the card's WSL2 total; and it did not mark the rows whose first,
    compiling start may be refused. Each sweep row now carries the total planned and that flag, the table reads them,
    and /api/gpus labels each card with the total its plan uses, under WSL2 the card's WSL2 total."""
    from kvplan.resolve import find_gpu, wsl2_gpu

    body = {"model": "Qwen/Qwen2.5-0.5B-Instruct", "max_model_len": 4096, "vary": ["gpu=rtx-4060,l4"]}
    native = {r["gpu"]: r for r in client.post("/api/sweep", json=body).json()["rows"]}
    wsl = {r["gpu"]: r for r in client.post("/api/sweep", json={**body, "wsl2": True}).json()["rows"]}
    assert native["rtx-4060"]["gpu_total_bytes"] == find_gpu("rtx-4060").total_bytes
    assert wsl["rtx-4060"]["gpu_total_bytes"] == wsl2_gpu(find_gpu("rtx-4060")).total_bytes > find_gpu("rtx-4060").total_bytes
    assert wsl["rtx-4060"]["first_start_refused"] is False
    js = client.get("/static/app.js").text
    assert "smallest GPU × TP that starts, first start included" in js  # the list's auto entry says what it answers
    gpus = {g["id"]: g for g in client.get("/api/gpus").json()}
    # the list's labels, worded by the server (render.gpu_choice_label): the total each plan uses, to a tenth of a GiB
    plans = {w: kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", gpu="rtx-4060", max_model_len=4096, wsl2=w) for w in (False, True)}
    assert gpus["rtx-4060"]["label"] == f"{find_gpu('rtx-4060').name} — {plans[False].total_bytes / 2**30:.1f} GiB"
    assert gpus["rtx-4060"]["wsl2_label"] == f"{find_gpu('rtx-4060').name} — {plans[True].total_bytes / 2**30:.1f} GiB under WSL2"
    assert gpus["rtx-4070-ti"]["wsl2_label"] == f"{find_gpu('rtx-4070-ti').name} — no WSL2 total known"
    assert all(g["label"].startswith(g["name"] + " — ") for g in gpus.values())
    # a row whose first start may be refused says so (Llama-3.1-8B at 33,000 tokens on an A10, as fit --gpu A10 warns)
    cold = client.post("/api/sweep", json={"model": LLAMA, "max_model_len": 33000, "vary": ["gpu=a10"]}).json()["rows"][0]
    assert cold["fits"] and cold["first_start_refused"] is True


def test_the_gpu_table_is_worded_by_the_server(client):
    """The page's table of GPU x TP combinations that start a plan (a sweep over the catalog and TP 1, 2, 4, 8) was
    filtered, sorted and worded in JavaScript (toFixed(1) for the GiB total, toFixed(2) + '×' for the concurrency, its
    own note). /api/sweep now answers it (render.gpu_table): the rows that start, smallest total memory first, without
    tensor-parallel rows for a card one to a machine, each row's cells as sweep's table shows the tokens and
    concurrency, and the note under the table."""
    from kvplan.resolve import find_gpu

    laptop = find_gpu("rtx-4090-laptop")
    assert laptop.one_per_machine
    # (the catalog's ids, as the page sends them: the table lists the catalog's cards)
    body = {"model": "Qwen/Qwen2.5-0.5B-Instruct", "gpu": "l4", "max_model_len": 4096,
            "vary": ["gpu=tesla-t4,l4,h100-sxm,rtx-4090-laptop", "tensor_parallel_size=1,2"]}
    d = client.post("/api/sweep", json=body).json()
    table = d["gpu_table"]
    started = [r for r in d["rows"] if r["fits"] and not (r["gpu"] == laptop.id and r["tensor_parallel_size"] > 1)]
    assert len(started) == 7 and len(table["rows"]) == 7  # every row starts but the laptop card's TP 2
    totals = [find_gpu(r["gpu"]).total_bytes * r["tensor_parallel_size"] for r in table["rows"]]
    assert totals == sorted(totals)
    by_key = {(r["gpu"], r["tensor_parallel_size"]): r for r in d["rows"]}
    for row in table["rows"]:
        r = by_key[(row["gpu"], row["tensor_parallel_size"])]
        p = kvplan.fit(body["model"], gpu=row["gpu"], max_model_len=4096, tensor_parallel_size=row["tensor_parallel_size"])
        assert row["cells"] == [p.gpu.name, str(row["tensor_parallel_size"]),
                                f"{p.total_bytes * row['tensor_parallel_size'] / 2**30:.1f}", f"{p.kv_cache_tokens:,}",
                                f"{p.max_concurrency:.2f}×"]
        assert r["max_concurrency"] == p.max_concurrency and row["title"] is None
    assert table["note"] == ("(7 of 8 GPU × TP combinations start, sorted by total memory; vary gpu replaced the form's "
                             "gpu (l4) in every row)")
    assert (table["show_all"], table["show_fewer"]) == ("show all 7", "show fewer")  # the button under a cut table
    assert table["first_rows"] == 12  # the rows the page shows before the button is pressed
    wsl = client.post("/api/sweep", json={**body, "wsl2": True, "vary": ["gpu=l4,rtx-4060", "tensor_parallel_size=1"]}).json()
    assert "; GiB total: CUDA's totals under WSL2 (nvidia-smi's memory.total), as the plans use" in wsl["gpu_table"]["note"]
    p = kvplan.fit(body["model"], gpu="rtx-4060", max_model_len=4096, wsl2=True)
    assert [r["cells"][2] for r in wsl["gpu_table"]["rows"] if r["gpu"] == "rtx-4060"] == [f"{p.total_bytes / 2**30:.1f}"]
    # a row whose first, compiling start may be refused (Llama-3.1-8B at 33,000 tokens on an A10, as fit warns): marked
    cold = client.post("/api/sweep", json={"model": LLAMA, "max_model_len": 33000,
                                           "vary": ["gpu=a10", "tensor_parallel_size=1"]}).json()["gpu_table"]
    assert cold["rows"][0]["cells"][-1].endswith("× †") and cold["rows"][0]["first_start_refused"]
    assert "fit's cold-start warning" in cold["rows"][0]["title"]
    assert cold["note"] == ("(1 of 1 GPU × TP combinations start, sorted by total memory; † starts warm, but a first, "
                            "compiling start may be refused)")
    js = client.get("/static/app.js").text
    assert "toFixed" not in js  # the page formats none of these numbers itself


def test_catalogs(client):
    models = client.get("/api/models").json()
    assert {m["id"] for m in models} == set(model_catalog())
    assert all(LLAMA.split("/")[1].lower()[:5] in m["id"].lower() for m in client.get("/api/models?search=llama-3.1").json())
    gpus = client.get("/api/gpus").json()
    assert [g["total_bytes"] for g in gpus] == sorted(g["total_bytes"] for g in gpus)
    assert any(g["id"] == "l4" for g in gpus)
    forms = {g["id"]: g["form"] for g in gpus}  # the page leaves tensor-parallel rows of laptop / integrated parts out
    assert forms["l4"] == "datacenter" and forms["rtx-4090-laptop"] == "laptop" and forms["gb10"] == "integrated"
    single = {g["id"]: g["one_per_machine"] for g in gpus}
    assert single["rtx-4090-laptop"] and single["gb10"] and single["jetson-thor"] and not single["l4"]


@pytest.mark.parametrize("body, field, status", [
    ({"model": LLAMA, "gpu": "L44"}, "--gpu", 400),
    ({"model": LLAMA, "gpu": "L4", "gpu_memory_utilization": 1.5}, "--gpu-memory-utilization", 400),
    ({"model": LLAMA, "gpu": "L4", "max_model_len": "lots"}, "--max-model-len", 400),
    ({"model": LLAMA, "gpu": "L4", "max_model_len": 10 ** 7}, "--max-model-len", 400),
    ({"model": LLAMA, "gpu": "L4", "tensor_parallel_size": 3}, "--tensor-parallel-size", 400),
    ({"model": "not-a-model-anywhere", "gpu": "L4"}, "model", 400),
    ({"model": "/etc/hostname", "gpu": "L4"}, "model", 400),
    ({"model": "upload:nothing-here", "gpu": "L4"}, "model", 400),
    ({"model": LLAMA, "gpu": "L4", "max_model_lenn": 4096}, "max_model_lenn", 422),
    ({"model": LLAMA, "gpu": "L4", "num_gpus": "two"}, "num_gpus", 422),
    ({"model": LLAMA, "gpu": "L4", "limit_mm_per_prompt": "image=many"}, "--limit-mm-per-prompt", 400),
])
def test_errors_carry_field_message_fix(client, body, field, status):
    r = client.post("/api/plan", json=body)
    assert r.status_code == status, r.text
    err = r.json()
    assert err["field"] == field
    assert err["message"] and err["fix"]


def test_sweep_error_and_bound(client):
    r = client.post("/api/sweep", json={"model": LLAMA, "vary": ["colour=red"]})
    assert r.status_code == 400 and r.json()["field"] == "--vary"
    many = ",".join(str(1024 + i) for i in range(700))
    r = client.post("/api/sweep", json={"model": LLAMA, "vary": [f"max_model_len={many}"]})
    assert r.status_code == 400 and "at most" in r.json()["message"]


def test_upload_config_gives_a_model_handle(client):
    config = dict(model_catalog()["Qwen/Qwen2.5-0.5B-Instruct"]["config"], _name_or_path="org/my-upload")
    r = client.post("/api/config?name=config.json", content=json.dumps(config), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    handle = r.json()["model"]
    assert handle.startswith("upload:") and "my-upload" in handle
    plan = client.post("/api/plan", json={"model": handle, "gpu": "T4", "max_model_len": 4096})
    assert plan.status_code == 200
    reference = kvplan.fit(kvplan.resolve.normalize(config, model_id="x", source="test"), gpu="T4", max_model_len=4096)
    assert plan.json()["kv_cache_tokens"] == reference.kv_cache_tokens
    # the summary names the upload, not the file the server keeps it in
    model_row = dict(plan.json()["summary_rows"])["model"]
    assert model_row.endswith("  (upload)") and "/" not in model_row.split("  ")[-1]


def test_uploads_with_a_byte_order_mark_are_read(client):
    config = model_catalog()["Qwen/Qwen2.5-0.5B-Instruct"]["config"]
    r = client.post("/api/config?name=config.json", content=b"\xef\xbb\xbf" + json.dumps(config).encode())
    assert r.status_code == 200, r.text
    assert r.json()["num_layers"] == config["num_hidden_layers"]
    jsonl = "".join(json.dumps({"prompt_tokens": 100 + i, "completion_tokens": 20, "arrival_s": i * 0.1}) + "\n" for i in range(10))
    r = client.post("/api/workload?name=mine.jsonl", content=b"\xef\xbb\xbf" + jsonl.encode())
    assert r.status_code == 200, r.text
    assert r.json()["summary"]["requests"] == 10


def test_upload_is_capped_and_json_only(client):
    big = b"{" + b" " * MAX_UPLOAD_BYTES + b"}"
    r = client.post("/api/config", content=big, headers={"Content-Type": "application/json"})
    assert r.status_code == 413
    assert r.json()["field"] == "config.json" and "5 MB" in r.json()["message"]
    r = client.post("/api/config", content=b"import os; os.system('true')")
    assert r.status_code == 400 and "not valid JSON" in r.json()["message"]
    r = client.post("/api/config", content=b"[1, 2]")
    assert r.status_code == 400
    r = client.post("/api/config", content=json.dumps({"model_type": "made_up_arch", "vocab_size": 10}))
    assert r.status_code == 400 and r.json()["fix"]


def test_scaffold_returns_the_files(client):
    r = client.post("/api/scaffold", json={"model": LLAMA, "gpu": "L4", "max_model_len": 8192})
    assert r.status_code == 200, r.text
    files = r.json()["files"]
    assert "--max-model-len 8192" in files["serve.sh"] and "docker-compose.yml" in files
    r = client.post("/api/scaffold", json={"model": LLAMA, "gpu": "L4", "max_model_len": 131072})
    assert r.status_code == 400 and r.json()["fix"]


def test_simulate_is_bounded(client):
    body = {"model": LLAMA, "gpu": "L4", "max_model_len": 8192, "max_requests": 300, "workload": "azure-conv"}
    r = client.post("/api/simulate", json=body)
    assert r.status_code == 200, r.text
    d = r.json()
    assert d["result"]["requests_total"] == 300
    assert d["result"]["worst_case_concurrency"] == pytest.approx(kvplan.fit(LLAMA, gpu="L4", max_model_len=8192).max_concurrency)
    decode, prefill = d["step_model"]["example_steps"]  # the page gets the step terms the CLI prints
    assert decode["total_ms"] > 0 and "prefill_attention" in prefill["terms_ms"]
    r = client.post("/api/simulate", json=dict(body, max_requests=10 ** 6))
    assert r.status_code == 422 and r.json()["field"] == "max_requests"
    r = client.post("/api/simulate", json=dict(body, workload="no-such-trace"))
    assert r.status_code == 400 and r.json()["field"] == "workload"


def test_simulate_refuses_a_workload_vllm_serves_none_of(client):
    # `kvplan simulate` and `capacity` refuse it (simulate.check_servable); the page answered 200 with 19,365 of
    # 19,366 requests rejected and every figure near 0, and its capacity search bisected over nothing
    csv = "prompt_tokens,completion_tokens,arrival_s\n" + "".join(f"{9000 + i},{20},{i * 0.1}\n" for i in range(20))
    handle = client.post("/api/workload?name=long.csv", content=csv, headers={"Content-Type": "text/csv"}).json()["workload"]
    for extra in ({}, {"capacity": True, "slo": "ttft=1s"}):
        r = client.post("/api/simulate", json={"model": LLAMA, "gpu": "L4", "max_model_len": 8192, "workload": handle, **extra})
        assert r.status_code == 400, r.text
        assert r.json()["field"] == "max_model_len" and "--max-model-len 9039" in r.json()["fix"]


def test_simulate_stops_at_the_time_limit(tmp_path):
    slow = TestClient(create_app(upload_dir=str(tmp_path), simulate_seconds=0.0))
    r = slow.post("/api/simulate", json={"model": LLAMA, "gpu": "L4", "max_model_len": 8192, "max_requests": 500})
    assert r.status_code == 400 and "ran past" in r.json()["message"]


def test_workload_upload(client):
    csv = "prompt_tokens,completion_tokens,arrival_s\n" + "".join(f"{100 + i},{20 + i},{i * 0.1}\n" for i in range(50))
    r = client.post("/api/workload?name=mine.csv", content=csv, headers={"Content-Type": "text/csv"})
    assert r.status_code == 200, r.text
    handle = r.json()["workload"]
    r = client.post("/api/simulate", json={"model": LLAMA, "gpu": "L4", "max_model_len": 8192, "workload": handle})
    assert r.status_code == 200 and r.json()["result"]["requests_total"] == 50


def test_openapi_and_page(client):
    schema = client.get("/openapi.json").json()
    for path in ("/api/plan", "/api/sweep", "/api/models", "/api/gpus", "/api/scaffold", "/api/simulate", "/api/config"):
        assert path in schema["paths"], path
    props = schema["components"]["schemas"]["PlanRequest"]["properties"]
    assert {"model", "gpu", "max_model_len", "gpu_memory_utilization", "tensor_parallel_size", "kv_cache_dtype"} <= set(props)
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    assert "http://" not in page.text.replace("http://www.w3.org", "") and "https://" not in page.text  # nothing from a CDN
    for asset in ("app.js", "style.css"):
        body = client.get(f"/static/{asset}").text
        assert "https://" not in body and "http://" not in body


def test_cli_web_is_registered_and_loopback_by_default():
    from typer.testing import CliRunner

    from kvplan.cli import app

    result = CliRunner().invoke(app, ["web", "--help"])
    assert result.exit_code == 0 and "127.0.0.1" in result.output


def test_speculative_config_through_the_api_matches_the_library(client):
    mtp = '{"method": "mtp", "num_speculative_tokens": 3}'
    r = client.post("/api/plan", json={"model": "Qwen/Qwen3.6-35B-A3B", "gpu": "h200", "max_model_len": 32768,
                                       "speculative_config": mtp, "curve": False})
    assert r.status_code == 200
    lib = kvplan.fit("Qwen/Qwen3.6-35B-A3B", "h200", max_model_len=32768, speculative_config=mtp)
    assert r.json()["weights_bytes"] == lib.weights_bytes and r.json()["num_gpu_blocks"] == lib.num_gpu_blocks
    bad = client.post("/api/plan", json={"model": "Qwen/Qwen3.6-35B-A3B", "gpu": "h200",
                                         "speculative_config": '{"method": "eagle3", "num_speculative_tokens": 2}'})
    assert bad.status_code == 400 and bad.json()["field"] == "--speculative-config"


def test_the_model_limit_shown_is_the_length_vllm_derives(client):
    # deepseek-coder-6.7b states 16,384 positions with linear rope scaling x4: vLLM accepts (and defaults to) 65,536
    config = dict(model_catalog()["Qwen/Qwen2.5-0.5B-Instruct"]["config"], max_position_embeddings=16384,
                  rope_scaling={"type": "linear", "factor": 4.0}, _name_or_path="org/scaled")
    r = client.post("/api/config?name=config.json", content=json.dumps(config), headers={"Content-Type": "application/json"})
    plan = client.post("/api/plan", json={"model": r.json()["model"], "gpu": "H100", "max_model_len": 32768})
    assert plan.status_code == 200, plan.text
    assert plan.json()["model_max_model_len"] == 65536


def test_the_page_refuses_an_unpublished_release_as_the_cli_does(client):
    """`--vllm-version 0.10.3` is refused on the command line (vLLM went 0.10.2 -> 0.11.0); the page's field planned it
    as '0.10.3 rules' without a word. kvplan.api.fit still plans it (a record may carry such a number)."""
    body = {"model": LLAMA, "gpu": "L4", "max_model_len": 8192, "curve": False}
    r = client.post("/api/plan", json={**body, "vllm_version": "0.10.3"})
    assert r.status_code == 400 and r.json()["field"] == "--vllm-version", r.text
    assert "0.10.3 is no published release (the 0.10 series" in r.json()["message"]
    assert client.post("/api/plan", json={**body, "vllm_version": "0.10.2"}).status_code == 200


@pytest.mark.parametrize("body, args", [
    ({"model": "Qwen/Qwen3-8B", "gpu": "H100", "max_model_len": 8192, "tensor_parallel_size": 2},
     ["Qwen/Qwen3-8B", "--gpu", "H100", "--max-model-len", "8192", "--tensor-parallel-size", "2"]),
    ({"model": "Qwen/Qwen3-8B", "gpu": "H100", "max_model_len": 8192, "vllm_version": "0.34.0"},
     ["Qwen/Qwen3-8B", "--gpu", "H100", "--max-model-len", "8192", "--vllm-version", "0.34.0"]),
    ({"model": LLAMA, "gpu": "L4", "max_model_len": 131072}, [LLAMA, "--gpu", "L4", "--max-model-len", "131072"]),
])
def test_the_plan_summary_is_fits_box(client, monkeypatch, capsys, body, args):
    """The page's summary wrote its own rows of a plan in JavaScript ('KV cache 54.05 GiB · 24,599 blocks × 16 tokens',
    'concurrency 9.61× at max_model_len 40,960', a first start's 'GiB – GiB' range), other words than `kvplan fit`'s box.
    /api/plan now answers the box's rows (render.plan_rows, as plain text) for the page to show as they stand: each is
    a line of the box the command prints for the same flags, in its order."""
    from cli_runner import run_cli

    r = client.post("/api/plan", json={**body, "curve": False})
    assert r.status_code == 200, r.text
    d = r.json()
    monkeypatch.setenv("COLUMNS", "300")
    code, out, err = run_cli(monkeypatch, capsys, "fit", *args)
    assert code == (0 if d["fits"] else 1), err
    box = [" ".join(line.strip("│ ").split()) for line in out.splitlines() if line.startswith("│ ")]
    rows = [" ".join(f"{label} {text}".split()) for label, text in d["summary_rows"]]
    assert rows == box[:len(rows)] and len(rows) >= 11
    assert not box[len(rows)]  # the blank line before the memory bar: every row of the box is among them
    labels = dict(d["summary_rows"])
    assert labels["tokens"].startswith(f"{d['kv_cache_tokens']:,}")
    assert labels["concurrency"].startswith(f"{d['max_concurrency']:.2f}x at {d['args']['max_model_len']:,} tokens")
    assert ("capacity" in labels) == (d["kv_cache_capacity_bytes"] is not None)
    assert not any("[" in text for _, text in d["summary_rows"])  # plain: the box's dim markup read, not shown


@pytest.mark.parametrize("body, args", [
    ({"model": "Qwen/Qwen2.5-0.5B-Instruct", "gpu": "tesla-t4", "max_model_len": "4096", "workload": "azure-conv",
      "max_requests": 500, "slo": "ttft=1s,tpot=50ms"},
     ["Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "tesla-t4", "--max-model-len", "4096", "-w", "azure-conv", "-n", "500",
      "--slo", "ttft=1s,tpot=50ms"]),
    ({"model": LLAMA, "gpu": "H100", "max_model_len": "8192", "workload": "azure-conv", "max_requests": 200,
      "rate_per_s": 30},
     [LLAMA, "--gpu", "H100", "--max-model-len", "8192", "-w", "azure-conv", "-n", "200", "--rate", "30"]),
])
def test_the_traffic_tab_words_a_simulation_as_kvplan_simulate(client, monkeypatch, capsys, body, args):
    """The traffic tab wrote its own rows of a simulation in JavaScript (TTFT 'p50 / p90 / p99' with toFixed(0), 'KV usage
    peak 2%', its own rejection sentence), other words and roundings than `kvplan simulate` prints for the same run.
    /api/simulate now answers the command's words (simulate.pool_line, workload_line, result_rows, latency_rows,
    throughput_line, goodput_line): the same lines and table cells the command prints, for the page to show as they stand."""
    from cli_runner import run_cli

    r = client.post("/api/simulate", json={**body, "curve": False})
    assert r.status_code == 200, r.text
    d = r.json()
    monkeypatch.setenv("COLUMNS", "250")
    code, out, err = run_cli(monkeypatch, capsys, "simulate", *args)
    assert code == 0, err
    lines = out.splitlines()
    for line in d["setup_lines"] + d["rate_lines"]:
        assert line in lines, line
    cells = [[c.strip() for c in line.split("│")[1:-1]] for line in lines if line.startswith("│")]
    assert d["result_rows"] == [c for c in cells if len(c) == 2]
    assert d["latency_columns"] == ["mean", "p50", "p90", "p99"]
    assert d["latency_rows"] == [c for c in cells if len(c) == 5]
    assert [row[0] for row in d["latency_rows"]] == ["queueing", "TTFT", "TPOT", "ITL", "end-to-end"]
    # the rows carry the figures of the result the API answers beside them
    res = d["result"]
    rows = dict(d["result_rows"])
    assert rows["requests completed / rejected"] == f"{res['requests_completed']:,} / {res['requests_rejected']:,}"
    assert rows["realized max running"] == str(res["max_running"])
    assert d["rate_lines"][0].startswith("throughput ")
    if "slo" in body:
        assert res["requests_rejected"] > 0  # the T4 at 4,096 tokens rejects the trace's longest requests
        assert d["rate_lines"][1].startswith("goodput ") and d["rate_lines"][1].endswith(
            f" (the {res['requests_rejected']:,} rejected count as misses)")
    else:
        assert len(d["rate_lines"]) == 1  # no SLO: no goodput line, as the command prints none
    js = client.get("/static/app.js").text
    for words in ("toFixed", "p50 / p90 / p99", "requests_rejected", "usd("):
        assert words not in js.split("function renderSimulation")[1].split("// ----")[0], words


def test_the_traffic_tab_prints_the_capacity_as_the_cli_and_asks_for_replicas(client):
    """The page printed a capacity with toFixed(2), rounding 0.1066 req/s up to 0.11 (a rate the search did not find
    within the SLO) beside the CLI's 0.106, then with a JavaScript copy of the CLI's rounding and capacity sentences; it
    now shows /api/simulate's capacity_lines (simulate.capacity_lines, the lines `kvplan capacity` prints, the rate
    rounded down by simulate.rate_down) and keeps no rounding or wording of its own. The tab has a field for the target
    rate and sends the target the form holds."""
    from kvplan.simulate import rate_down

    page, js = client.get("/").text, client.get("/static/app.js").text
    assert re.search(r'<input id="sim-target" type="number"', page)
    assert 'body.target_rate_per_s = Number($("sim-target").value)' in js
    assert "d.capacity_lines" in js and "rateDown" not in js and "max_rate_per_s" not in js
    body = {"model": LLAMA, "gpu": "H100", "max_model_len": 8192, "workload": "azure-conv", "max_requests": 60,
            "capacity": True, "slo": "ttft=2s,tpot=80ms", "target_rate_per_s": 20, "gpu_hour_usd": "2.5"}
    r = client.post("/api/simulate", json=body)
    assert r.status_code == 200, r.text
    d = r.json()
    cap, lines = d["capacity"], d["capacity_lines"]
    n = cap["replicas_needed"]
    assert lines[0].startswith(f"capacity: {rate_down(cap['max_rate_per_s'])} req/s per replica within ")
    assert any(line.startswith(f"target 20 req/s: {n} replica{'s' if n != 1 else ''} (round-robin router)") for line in lines)
    assert any(f" / {rate_down(cap['max_rate_per_s'], 4)} req/s per replica = " in line for line in lines)
    assert lines[-1] == (f"cost at 2.5 USD per GPU-hour: {cap['cost']['usd_per_hour']:,.2f} USD/hour for {n} GPU"
                         f"{'s' if n != 1 else ''}, {cap['cost']['usd_per_million_requests']:,.2f} USD per million "
                         "requests at 20 req/s")
    assert not any("[" in line for line in lines)  # plain text: the CLI's bold is its own markup


def test_the_traffic_tab_has_the_capacity_searchs_controls(client):
    """The page's traffic tab holds a control for each capacity key /api/simulate takes beyond the SLO (percentile,
    target rate, price, deployments to compare) and a table for the compared rows; app.js sends each under the key
    the API reads."""
    from kvplan.web.app import SimulateRequest

    page = client.get("/").text
    js = client.get("/static/app.js").text
    for control, key in (("sim-percentile", "percentile"), ("sim-target", "target_rate_per_s"),
                         ("sim-price", "gpu_hour_usd"), ("sim-vary", "vary")):
        assert f'id="{control}"' in page, control
        assert key in SimulateRequest.model_fields, key
        assert re.search(rf'\$\("{control}"\)', js) and f"body.{key} =" in js, key
    assert 'id="cap-table"' in page and "renderComparison" in js
    # the page's own words for the API's fix of a capacity key sent without the search
    r = client.post("/api/simulate", json={"model": LLAMA, "gpu": "L4", "max_model_len": 8192, "workload": "azure-conv",
                                           "max_requests": 50, "vary": ["gpu=L4,H100"]})
    assert r.status_code == 400 and r.json()["fix"] == "add capacity: true" and '"add capacity: true"' in js


def test_a_varied_upload_is_named_by_its_handle_quoted_or_escaped_as_the_cli_takes_it(client, tmp_path):
    """An uploaded config varied on the page, paired with a GPU: its handle ('upload:NAME-HASH') holds a ':', so it goes
    in quotes or with the ':' escaped, as `kvplan sweep --vary` takes a value holding one; both were read, but every
    row named the file this server keeps the upload in ('/tmp/kvplan-web-.../configs/...json'), a path the user never
    gave and cannot give back. The rows now name the handle, as the plan names 'upload: NAME'."""
    from kvplan.api import parse_vary

    config = dict(model_catalog()["Qwen/Qwen2.5-0.5B-Instruct"]["config"], _name_or_path="example-org/varied")
    handle = client.post("/api/config?name=varied.json", content=json.dumps(config),
                         headers={"Content-Type": "application/json"}).json()["model"]
    assert handle.startswith("upload:") and ";" not in handle  # the page splits its vary box on ';'
    quoted = f'model,gpu="{handle}":H100,Qwen/Qwen3-8B:L4'
    escaped = f"model,gpu={handle.replace(':', chr(92) + ':')}:H100,Qwen/Qwen3-8B:L4"
    assert parse_vary([quoted]) == parse_vary([escaped]) == [(("model", "gpu"), [(handle, "H100"), ("Qwen/Qwen3-8B", "L4")])]
    answers = []
    for vary in (quoted, escaped):
        r = client.post("/api/sweep", json={"model": "Qwen/Qwen3-8B", "gpu": "L4", "max_model_len": 4096, "vary": [vary]})
        assert r.status_code == 200, r.text
        rows = r.json()["rows"]
        assert [(x["model"], x["gpu"]) for x in rows] == [(handle, "H100"), ("Qwen/Qwen3-8B", "L4")]
        assert "configs/" not in r.text and not any(str(x["model"]).startswith("/") for x in rows), r.text
        answers.append([(x["kv_cache_tokens"], x["fits"]) for x in rows])
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    uploaded = kvplan.fit(str(path), gpu="H100", max_model_len=4096)
    assert answers[0] == answers[1] and answers[0][0] == (uploaded.kv_cache_tokens, uploaded.fits)


# a pasted deployment (the page's 'vllm serve command' box): a command, one with an environment prefix, a compose
# `command:` block of the vllm/vllm-openai image's flags
FROM_COMMANDS = [
    "vllm serve Qwen/Qwen3-8B --max-model-len 32768 -tp 2 --port 8001 --enable-prefix-caching",
    "VLLM_USE_V1=1 vllm serve Qwen/Qwen3-8B --max-model-len 16384 --max-num-batched-tokens 8192",
    "command: >\n  --model Qwen/Qwen3-8B\n  --max-model-len 16384\n  --gpu-memory-utilization 0.85\n  --host 0.0.0.0\n",
]


@pytest.mark.parametrize("command", FROM_COMMANDS)
def test_plan_from_command_equals_fit_from(client, monkeypatch, capsys, command):
    """/api/plan's from_command is `kvplan fit --from`: the same numbers, and the same from_command provenance."""
    from cli_runner import run_cli

    r = client.post("/api/plan", json={"from_command": command, "gpu": "L4", "curve": False})
    assert r.status_code == 200, r.text
    d = r.json()
    code, out, err = run_cli(monkeypatch, capsys, "fit", "--from", command, "--gpu", "L4", "--json")
    assert code == (0 if d["fits"] else 1), err
    cli = json.loads(out)
    for key in PLAN_KEYS:
        assert d[key] == cli[key], key
    assert d["from_command"] == cli["from_command"]
    assert d["from_command"]["model"] == "Qwen/Qwen3-8B" and d["args"]["max_model_len"] in (16384, 32768)
    # the parse alone (the page fills its form from it) says what the plan's from_command says
    parsed = client.post("/api/from_command", json={"from_command": command})
    assert parsed.status_code == 200, parsed.text
    assert parsed.json()["from_command"] == cli["from_command"]


def test_from_command_is_merged_with_the_request_as_the_cli_merges_from(client):
    agree = client.post("/api/plan", json={"from_command": FROM_COMMANDS[0], "model": "Qwen/Qwen3-8B", "gpu": "L4",
                                           "max_model_len": 32768, "tensor_parallel_size": 2, "curve": False})
    assert agree.status_code == 200, agree.text
    plain = kvplan.fit("Qwen/Qwen3-8B", gpu="L4", max_model_len=32768, tensor_parallel_size=2, enable_prefix_caching=True)
    assert agree.json()["kv_cache_tokens"] == plain.kv_cache_tokens
    for body, field in (({"max_model_len": 4096}, "max_model_len"), ({"model": LLAMA}, "model"),
                        ({"tensor_parallel_size": 4}, "tensor_parallel_size")):
        r = client.post("/api/plan", json={"from_command": FROM_COMMANDS[0], "gpu": "L4", **body})
        assert r.status_code == 400, r.text
        e = r.json()
        assert e["field"] == field and "the command s" in e["message"], e
        assert e["fix"].startswith(f"drop {field} ("), e  # the request's key, not the CLI's flag


@pytest.mark.parametrize("text, words", [
    ("serve.sh", "a file's name or path"), ("/etc/hostname", "a file's name or path"),
    ("./deploy/docker-compose.yml", "a file's name or path"), ("", "an empty value"),
    ("vllm serve Qwen/Qwen3-8B --no-such-flag 3", "not a vllm serve flag kvplan knows: --no-such-flag"),
    ("vllm serve --max-model-len 4096", "names no model"), ("vllm serve /models/qwen3", "local paths are not accepted"),
])
def test_from_command_is_text_only_and_its_errors_name_from_command(client, text, words):
    """from_command is never read as a server path (as model refuses local paths); a command's own error is answered
    under from_command, as the page shows it under its box."""
    r = client.post("/api/plan", json={"from_command": text, "curve": False} | ({"model": None} if "names no" in words else {}))
    assert r.status_code == 400, r.text
    e = r.json()
    assert e["field"] == "from_command" and words in e["message"], e
    assert "--from" not in e["error"], e


def test_a_scripts_text_is_read_without_reading_a_file(client, tmp_path, monkeypatch):
    # a .env beside the server's working folder is not read: the script's sourced file is left unread, named
    (tmp_path / ".env").write_text("MODEL=meta-llama/Llama-3.1-8B-Instruct\n")
    monkeypatch.chdir(tmp_path)
    script = "#!/bin/bash\nset -a\n. .env\nvllm serve \"$MODEL\" --max-model-len 8192\n"
    r = client.post("/api/plan", json={"from_command": script, "gpu": "L4", "curve": False})
    assert r.status_code == 400 and r.json()["field"] == "from_command", r.text
    assert "MODEL has no value" in r.json()["message"] and ".env" in r.json()["message"]
    ok = client.post("/api/plan", json={"from_command": "MODEL=Qwen/Qwen3-8B\n" + script.replace(". .env\n", ""),
                                        "gpu": "L4", "curve": False})
    assert ok.status_code == 200, ok.text
    assert ok.json()["kv_cache_tokens"] == kvplan.fit("Qwen/Qwen3-8B", gpu="L4", max_model_len=8192).kv_cache_tokens


def test_sweep_scaffold_and_simulate_take_from_command(client):
    cmd = "vllm serve Qwen/Qwen2.5-0.5B-Instruct --max-model-len 4096 --port 8123 --served-model-name qwen"
    sweep = client.post("/api/sweep", json={"from_command": cmd, "gpu": "tesla-t4", "vary": ["max_model_len=2048,4096"]})
    assert sweep.status_code == 200, sweep.text
    s = sweep.json()
    assert [r["max_model_len"] for r in s["rows"]] == [2048, 4096]
    assert any("replaced by --vary max_model_len" in n for n in s["from_command"]["notes"])
    scaffold = client.post("/api/scaffold", json={"from_command": cmd, "gpu": "tesla-t4"})
    assert scaffold.status_code == 200, scaffold.text
    serve = scaffold.json()["files"]["serve.sh"]
    assert "8123" in serve and "qwen" in serve and scaffold.json()["from_command"]["model"] == "Qwen/Qwen2.5-0.5B-Instruct"
    clash = client.post("/api/scaffold", json={"from_command": cmd, "gpu": "tesla-t4", "port": 9000})
    assert clash.status_code == 400 and clash.json()["field"] == "port", clash.text
    sim = client.post("/api/simulate", json={"from_command": cmd, "gpu": "tesla-t4", "max_requests": 50, "curve": False})
    assert sim.status_code == 200, sim.text
    assert sim.json()["from_command"]["planned"] == {"--max-model-len": "4096"}
    p = kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", gpu="tesla-t4", max_model_len=4096)
    assert sim.json()["plan"]["kv_cache_tokens"] == p.kv_cache_tokens
