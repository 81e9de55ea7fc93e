"""End to end in real headless Chromium: the page shows the CLI's numbers for the same inputs.

Needs Debian's `chromium` (/usr/bin/chromium) and the Python `playwright` package (no
`playwright install`: the system browser is driven directly). Saves docs/web-screenshot.png.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

import pytest

CHROMIUM = "/usr/bin/chromium"
pytestmark = pytest.mark.browser

if not Path(CHROMIUM).exists():
    pytest.skip(f"{CHROMIUM} not found (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed (pip install playwright)")
pytest.importorskip("fastapi", reason="kvplan[web] is not installed")
uvicorn = pytest.importorskip("uvicorn", reason="kvplan[web] is not installed")

import kvplan  # noqa: E402
from kvplan.errors import InputError  # noqa: E402
from kvplan.render import budget_segments, verdict_text  # noqa: E402
from kvplan.resolve import gpu_catalog, model_catalog  # noqa: E402
from kvplan.web.app import create_app  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SCREENSHOT = REPO / "docs" / "web-screenshot.png"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TIMEOUT_MS = 20_000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(upload_dir=str(tmp_path_factory.mktemp("uploads"))),
                                           host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def page(server_url, tmp_path_factory):
    with sync_api.sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=CHROMIUM, headless=True,
            args=CHROMIUM_ARGS, viewport={"width": 1400, "height": 1000})
        pg = context.new_page()
        pg.set_default_timeout(TIMEOUT_MS)
        pg.goto(server_url + "/")
        pg.wait_for_function("document.querySelector('#verdict').dataset.kvCacheTokens !== undefined")
        yield pg
        context.close()


def _wait_for_plan(pg, p) -> None:
    """Wait until the page shows plan `p` (the verdict text and its tokens)."""
    pg.wait_for_function("([text, tokens]) => { const v = document.querySelector('#verdict');"
                         " return v.textContent === text && v.dataset.kvCacheTokens === String(tokens); }",
                         arg=[verdict_text(p).plain, p.kv_cache_tokens])


def _shown_numbers(pg) -> dict:
    return pg.evaluate("""() => ({
        kv_pool_bytes: Number(document.querySelector("#budget rect[data-segment='KV pool']").dataset.bytes),
        weights_bytes: Number(document.querySelector("#budget rect[data-segment='weights']").dataset.bytes),
        chosen_len: Number(document.querySelector('#curve svg').dataset.chosenMaxModelLen),
        chosen_concurrency: Number(document.querySelector('#curve svg').dataset.chosenConcurrency),
        fits: document.querySelector('#verdict').dataset.fits,
    })""")


def _assert_matches_cli(pg, p) -> None:
    shown = _shown_numbers(pg)
    segments = dict(budget_segments(p))
    assert shown["kv_pool_bytes"] == pytest.approx(segments["KV pool"], abs=1)
    assert shown["weights_bytes"] == pytest.approx(segments["weights"], abs=1)
    assert shown["chosen_len"] == p.args.max_model_len
    assert shown["chosen_concurrency"] == pytest.approx(p.max_concurrency, rel=1e-12)
    assert shown["fits"] == ("true" if p.fits else "false")


def test_llama_on_l4_follows_max_model_len(page):
    page.fill("#model", LLAMA)
    page.select_option("#gpu", "l4")
    page.fill("#max_model_len", "8192")
    at_8k = kvplan.fit(LLAMA, gpu="L4", max_model_len=8192)
    _wait_for_plan(page, at_8k)
    _assert_matches_cli(page, at_8k)
    page.wait_for_function("(key) => { const t = document.querySelector('#gpu-table');"
                           " return t.dataset.state === 'ready' && t.dataset.key === key; }",
                           arg=json.dumps([LLAMA, "l4", "8192"], separators=(",", ":")))
    assert page.locator("#gpu-table tr.chosen td").first.text_content() == at_8k.gpu.name
    page.click("#gpu-more")  # every row, not the first 12
    page.wait_for_function("document.querySelectorAll('#gpu-table tbody tr').length > 12")
    rows = page.eval_on_selector_all("#gpu-table tbody tr", "trs => trs.map(tr => [...tr.cells].map(td => td.textContent))")
    page.click("#gpu-more")
    page.wait_for_function("document.querySelectorAll('#gpu-table tbody tr').length <= 12")
    laptop_or_integrated = {g.name for g in gpu_catalog() if g.one_per_machine}
    assert any(name in laptop_or_integrated for name, *_ in rows)  # they are listed, on their own only
    assert not any(name in laptop_or_integrated and tp != "1" for name, tp, *_ in rows)
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOT), full_page=True)

    page.fill("#max_model_len", "32768")
    at_32k = kvplan.fit(LLAMA, gpu="L4", max_model_len=32768)
    _wait_for_plan(page, at_32k)
    _assert_matches_cli(page, at_32k)
    assert at_32k.max_concurrency != at_8k.max_concurrency
    assert "max_model_len=32768" in page.url and "gpu=l4" in page.url  # the state is shareable by URL
    if not at_32k.fits:
        assert page.locator("#fixes li").count() == len(at_32k.fixes)


def test_upload_config_json(page, tmp_path):
    config = dict(model_catalog()["Qwen/Qwen2.5-0.5B-Instruct"]["config"], _name_or_path="example-org/uploaded-qwen")
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    page.set_input_files("#config-file", str(path))
    page.wait_for_function("document.querySelector('#model').value.startsWith('upload:')")
    expected = kvplan.fit(str(path), gpu="L4", max_model_len=int(page.input_value("#max_model_len")))
    _wait_for_plan(page, expected)
    _assert_matches_cli(page, expected)


def test_error_is_shown_next_to_the_field_and_the_form_is_kept(page):
    model_before = page.input_value("#model")
    page.fill("#gpu_memory_utilization", "1.5")
    slot = page.locator(".err[data-for='gpu_memory_utilization']")
    slot.wait_for(state="visible")
    assert "must be in (0, 1]" in slot.text_content()
    assert page.input_value("#model") == model_before
    assert page.input_value("#gpu_memory_utilization") == "1.5"
    page.fill("#gpu_memory_utilization", "")
    page.fill("#model", "no-such-model-xyz")
    model_slot = page.locator(".err[data-for='model']")
    model_slot.wait_for(state="visible")
    assert "unknown model" in model_slot.text_content()
    assert page.input_value("#model") == "no-such-model-xyz"


def test_page_reads_lengths_as_the_cli_marks_stale_results_and_asks_for_a_custom_size(page, server_url):
    page.goto(server_url + "/?model=Qwen/Qwen2.5-0.5B-Instruct&gpu=tesla-t4&max_model_len=32k")
    at_32k = kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", gpu="tesla-t4", max_model_len="32k")
    _wait_for_plan(page, at_32k)  # the shared URL's 32k is read as 32,000, not dropped
    assert page.input_value("#max_model_len") == "32k"
    assert page.locator("#plan").get_attribute("class") in (None, "tab", "tab ")
    page.fill("#gpu_memory_utilization", "1.5")  # an error: the previous plan's results are marked stale
    page.locator(".err[data-for='gpu_memory_utilization']").wait_for(state="visible")
    page.wait_for_function("document.querySelector('#plan').classList.contains('stale')")
    assert page.locator("#stale-note").is_visible()
    page.fill("#gpu_memory_utilization", "")
    page.select_option("#gpu", "custom")  # no size yet: asked for beside the box, nothing planned
    slot = page.locator(".err[data-for='gpu_gib']")
    slot.wait_for(state="visible")
    assert "GiB" in slot.text_content()
    page.fill("#max_model_len", "auto")  # auto asks for a concurrency
    page.locator("#concurrency").wait_for(state="visible")
    page.select_option("#gpu", "tesla-t4")
    page.fill("#max_model_len", "4096")
    page.wait_for_function("!document.querySelector('#plan').classList.contains('stale')")


def test_traffic_tab_shows_rejections_and_why_capacity_is_zero(page, server_url):
    page.goto(server_url + "/?model=Qwen/Qwen2.5-0.5B-Instruct&gpu=tesla-t4&max_model_len=4096")
    page.wait_for_function("document.querySelector('#verdict').dataset.fits === 'true'")
    page.click("#tab-traffic")
    page.fill("#sim-slo", "ttft=1s,tpot=50ms")
    page.check("#sim-capacity")
    page.click("#sim-run")
    page.wait_for_function("document.querySelector('#sim-table').textContent.includes('capacity at the SLO')")
    text = page.locator("#sim-table").text_content()
    assert "rejected by vLLM" in text and " of 2,000 requests" in text
    assert "max_model_len to at least" in text
    page.click("nav.tabs button[data-tab='plan']")


def test_the_gpu_table_lists_the_gpus_that_start_the_length_auto_chose(page, server_url):
    # the table is a sweep at one length: with max_model_len auto it is the length the plan chose for N requests
    page.goto(server_url + f"/?model={LLAMA}&gpu=l4&max_model_len=auto&concurrency=4")
    page.wait_for_function("() => { const t = document.querySelector('#gpu-table');"
                           " return t.dataset.state === 'ready' && t.querySelectorAll('tbody tr').length > 0; }")
    assert page.locator("#gpu-table tr.chosen td").first.text_content() == kvplan.fit(LLAMA, gpu="L4").gpu.name


def test_every_fix_the_form_can_hold_is_applied_with_one_click(page, server_url):
    # a hybrid whose state blocks are fewer than max_num_seqs: vLLM >= 0.20 refuses it; both fixes (a lower
    # --max-num-seqs, --enforce-eager) are form fields, so each gets an apply button that plans what the CLI plans.
    # At 128K tokens: at its own 262,144 the pool falls short of one whole sequence first
    model, version, length = "Qwen/Qwen3.5-27B", "0.20.0", 131072
    page.goto(server_url + f"/?model={model}&gpu=h100-sxm&vllm_version={version}&max_model_len={length}")
    refused = kvplan.fit(model, gpu="h100-sxm", vllm_version=version, max_model_len=length)
    assert not refused.fits
    _wait_for_plan(page, refused)
    fixes = {f.name: f for f in refused.fixes}
    assert {"lower max_num_seqs", "no CUDA graphs"} <= set(fixes)
    assert page.locator("#fixes li button").count() == len(refused.fixes)  # every one of them can be applied here
    page.locator("#fixes li", has_text="lower max_num_seqs").locator("button").click()
    seqs = fixes["lower max_num_seqs"].flags["max_num_seqs"]
    lowered = kvplan.fit(model, gpu="h100-sxm", vllm_version=version, max_model_len=length, max_num_seqs=seqs)
    assert lowered.fits
    _wait_for_plan(page, lowered)
    _assert_matches_cli(page, lowered)
    assert page.input_value("#max_num_seqs") == str(seqs) and f"max_num_seqs={seqs}" in page.url

    page.goto(server_url + f"/?model={model}&gpu=h100-sxm&vllm_version={version}&max_model_len={length}")
    _wait_for_plan(page, refused)
    page.locator("#fixes li", has_text="no CUDA graphs").locator("button").click()
    eager = kvplan.fit(model, gpu="h100-sxm", vllm_version=version, max_model_len=length, enforce_eager=True)
    _wait_for_plan(page, eager)
    _assert_matches_cli(page, eager)
    assert page.is_checked("#enforce_eager") and "enforce_eager=1" in page.url


def test_the_skip_mm_profiling_box_plans_as_the_cli_flag(page, server_url):
    model, version, length = "Qwen/Qwen3-VL-30B-A3B-Instruct", "0.19.0", 32768
    skip = kvplan.fit(model, gpu="h100-sxm", vllm_version=version, max_model_len=length, skip_mm_profiling=True)
    page.goto(server_url + f"/?model={model}&gpu=h100-sxm&vllm_version={version}&max_model_len={length}&skip_mm_profiling=1")
    _wait_for_plan(page, skip)
    _assert_matches_cli(page, skip)
    assert page.is_checked("#skip_mm_profiling")
    page.uncheck("#skip_mm_profiling")
    plain = kvplan.fit(model, gpu="h100-sxm", vllm_version=version, max_model_len=length)
    assert plain.kv_cache_bytes < skip.kv_cache_bytes
    _wait_for_plan(page, plain)
    _assert_matches_cli(page, plain)
    assert "skip_mm_profiling" not in page.url


def _open_planned(pg, server_url, model, **flags):
    """kvplan.fit(model, **flags), the page opened with the same values in its query string, shown as fit plans them:
    the plan."""
    p = kvplan.fit(model, **flags)
    pg.goto(server_url + "/?" + urlencode({"model": model, **flags}))
    _wait_for_plan(pg, p)
    _assert_matches_cli(pg, p)
    return p


def _wait_for_assumptions(pg, p) -> None:
    """Wait until the page's assumptions list is plan `p`'s, line for line (the server's words)."""
    pg.wait_for_function("(want) => JSON.stringify([...document.querySelectorAll('#assumptions li')].map(li => li.textContent))"
                         " === JSON.stringify(want)", arg=list(p.assumptions) + [f"warning: {w}" for w in p.warnings])


def test_the_async_scheduling_switch_plans_as_the_cli_flag(page, server_url):
    # gpt-oss-20b's sliding-window layers reserve a step's tokens per step in flight from 0.26: off frees some
    model, version, length = "openai/gpt-oss-20b", "0.33.0", 131072
    base = f"/?model={model}&gpu=h100-sxm&vllm_version={version}&max_model_len={length}"
    default = kvplan.fit(model, gpu="h100-sxm", vllm_version=version, max_model_len=length)
    off = kvplan.fit(model, gpu="h100-sxm", vllm_version=version, max_model_len=length, async_scheduling=False)
    assert off.kv_cache_tokens > default.kv_cache_tokens
    page.goto(server_url + base)
    _wait_for_plan(page, default)
    page.select_option("#async_scheduling", "false")
    _wait_for_plan(page, off)
    _assert_matches_cli(page, off)
    assert "async_scheduling=false" in page.url
    page.goto(server_url + base + "&async_scheduling=false")  # the query string round-trips
    _wait_for_plan(page, off)
    assert page.input_value("#async_scheduling") == "false"
    page.select_option("#async_scheduling", "true")
    on = kvplan.fit(model, gpu="h100-sxm", vllm_version=version, max_model_len=length, async_scheduling=True)
    _wait_for_plan(page, on)
    _assert_matches_cli(page, on)
    page.select_option("#async_scheduling", "")
    page.wait_for_function("!location.search.includes('async_scheduling')")  # the release's default: left out
    _wait_for_plan(page, default)
    _assert_matches_cli(page, default)


def test_the_load_format_box_plans_as_the_cli_flag_and_shows_vllms_refusal(page, server_url):
    model = "Qwen/Qwen2.5-0.5B-Instruct"
    fmt = _open_planned(page, server_url, model, gpu="tesla-t4", max_model_len=4096, load_format="safetensors")
    _wait_for_assumptions(page, fmt)  # the same budget as auto; its assumption says which loader reads what
    assert page.input_value("#load_format") == "safetensors"
    assert page.locator("#load-format-list option[value='safetensors']").count() == 1  # suggested, from /api/features
    page.fill("#load_format", "bogus")  # refused as the CLI refuses it, beside the box
    slot = page.locator(".err[data-for='load_format']")
    slot.wait_for(state="visible")
    with pytest.raises(InputError) as refused:
        kvplan.fit(model, gpu="tesla-t4", max_model_len=4096, load_format="bogus")
    assert "bogus" in slot.text_content() and str(refused.value.message) in slot.text_content()
    assert "load_format=bogus" in page.url


def test_the_sleep_mode_and_all_reduce_boxes_plan_as_the_cli_flags(page, server_url):
    # the same budget with either (the plan's assumptions say why): the page plans what fit plans, words included
    model = LLAMA
    both = kvplan.fit(model, gpu="h100-sxm", max_model_len=8192, tensor_parallel_size=2, enable_sleep_mode=True,
                      disable_custom_all_reduce=True)
    sleep = kvplan.fit(model, gpu="h100-sxm", max_model_len=8192, tensor_parallel_size=2, enable_sleep_mode=True)
    assert list(both.assumptions) != list(sleep.assumptions)
    page.goto(server_url + f"/?model={model}&gpu=h100-sxm&max_model_len=8192&tensor_parallel_size=2"
              "&enable_sleep_mode=1&disable_custom_all_reduce=1")
    _wait_for_plan(page, both)
    _assert_matches_cli(page, both)
    _wait_for_assumptions(page, both)
    assert page.is_checked("#enable_sleep_mode") and page.is_checked("#disable_custom_all_reduce")
    page.uncheck("#disable_custom_all_reduce")
    _wait_for_assumptions(page, sleep)
    _wait_for_plan(page, sleep)
    _assert_matches_cli(page, sleep)
    assert "enable_sleep_mode=1" in page.url and "disable_custom_all_reduce" not in page.url
    page.uncheck("#enable_sleep_mode")
    _wait_for_assumptions(page, kvplan.fit(model, gpu="h100-sxm", max_model_len=8192, tensor_parallel_size=2))
    # vLLM 0.10.2's ROCm build refuses sleep mode: its words beside the box
    page.goto(server_url + "/?model=Qwen/Qwen2.5-0.5B-Instruct&gpu=mi300x&vllm_version=0.10.2&max_model_len=4096"
              "&enable_sleep_mode=1")
    slot = page.locator(".err[data-for='enable_sleep_mode']")
    slot.wait_for(state="visible")
    assert "Sleep mode is not supported on current platform" in slot.text_content()
    with pytest.raises(InputError):
        kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", gpu="mi300x", vllm_version="0.10.2", max_model_len=4096,
                   enable_sleep_mode=True)


NIXL = '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'


def _assert_refused_under(pg, field: str, model: str, **fit_kw) -> None:
    """The page shows, under `field`'s control, the refusal kvplan.fit(model, **fit_kw) raises (the CLI's InputError)."""
    slot = pg.locator(f".err[data-for='{field}']")
    slot.wait_for(state="visible")
    with pytest.raises(InputError) as refused:
        kvplan.fit(model, **fit_kw)
    assert str(refused.value.message) in slot.text_content()


def _cli_fit(*args: str) -> dict:
    """`kvplan fit ARGS --json`, run as the command line runs it: its JSON."""
    from typer.testing import CliRunner

    from kvplan.cli import app

    res = CliRunner().invoke(app, ["fit", *args, "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def _assert_is_the_cli(pg, p, cli: dict) -> None:
    """The page shows plan `p`, and `p` is the plan `kvplan fit` printed as `cli`: tokens, concurrency, verdict."""
    _wait_for_plan(pg, p)
    _assert_matches_cli(pg, p)
    assert (cli["kv_cache_tokens"], cli["max_concurrency"], cli["fits"]) == (p.kv_cache_tokens, p.max_concurrency, p.fits)
    assert pg.evaluate("document.querySelector('#verdict').dataset.maxConcurrency") == str(cli["max_concurrency"])


def test_the_hybrid_manager_switch_sends_its_no_form_as_the_cli_does(page, server_url):
    # gpt-oss-20b at vLLM 0.20.0 with a NixlConnector: the release turns the hybrid manager off for the connector;
    # --no-disable-hybrid-kv-cache-manager (0.13+) keeps it on, and the window layers hold only their window
    model, version, length = "openai/gpt-oss-20b", "0.20.0", 131072
    kw = dict(gpu="h100-sxm", vllm_version=version, max_model_len=length, kv_transfer_config=NIXL)
    default = _open_planned(page, server_url, model, **kw)
    assert page.input_value("#disable_hybrid_kv_cache_manager") == ""
    kept = kvplan.fit(model, disable_hybrid_kv_cache_manager=False, **kw)
    assert kept.max_concurrency > default.max_concurrency
    page.select_option("#disable_hybrid_kv_cache_manager", "false")
    _assert_is_the_cli(page, kept, _cli_fit(model, "--gpu", "H100", "--max-model-len", str(length), "--vllm-version", version,
                                            "--no-disable-hybrid-kv-cache-manager", "--kv-transfer-config", NIXL))
    assert "disable_hybrid_kv_cache_manager=false" in page.url
    page.goto(page.url)  # the query string round-trips the --no- form
    _wait_for_plan(page, kept)
    assert page.input_value("#disable_hybrid_kv_cache_manager") == "false"
    page.select_option("#disable_hybrid_kv_cache_manager", "true")
    _assert_is_the_cli(page, kvplan.fit(model, disable_hybrid_kv_cache_manager=True, **kw),
                       _cli_fit(model, "--gpu", "H100", "--max-model-len", str(length), "--vllm-version", version,
                                "--disable-hybrid-kv-cache-manager", "--kv-transfer-config", NIXL))
    page.select_option("#disable_hybrid_kv_cache_manager", "")
    page.wait_for_function("!location.search.includes('disable_hybrid_kv_cache_manager')")  # the release's default
    _wait_for_plan(page, default)
    # a connector without SupportsHMA with the manager kept on: vLLM's refusal (named --no-...) under the switch
    page.select_option("#disable_hybrid_kv_cache_manager", "false")
    page.fill("#kv_transfer_config", '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}')
    _assert_refused_under(page, "disable_hybrid_kv_cache_manager", model, disable_hybrid_kv_cache_manager=False,
                          **{**kw, "kv_transfer_config": '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'})
    assert page.locator("#form-error").text_content() == ""
    # a link from when the switch was a checkbox (=1) is the flag given
    page.goto(server_url + "/?" + urlencode({"model": model, **kw, "disable_hybrid_kv_cache_manager": "1"}))
    _wait_for_plan(page, kvplan.fit(model, disable_hybrid_kv_cache_manager=True, **kw))
    assert page.input_value("#disable_hybrid_kv_cache_manager") == "true"
    # a pasted command's --no- form sets the switch to false, as fit --from reads it
    page.select_option("#disable_hybrid_kv_cache_manager", "")
    _wait_for_plan(page, default)
    page.click("#from-box summary")
    page.fill("#from_command", f"vllm serve {model} --no-disable-hybrid-kv-cache-manager")
    _wait_for_plan(page, kept)
    assert page.input_value("#disable_hybrid_kv_cache_manager") == "false"


def test_the_context_parallel_boxes_plan_as_the_cli_flags(page, server_url):
    # -dcp 2 on TP 2: each rank keeps half of every sequence's MLA cache, so twice the tokens on the same pool
    model = "deepseek-ai/DeepSeek-V2-Lite"
    kw = dict(gpu="h100-sxm", vllm_version="0.20.0", max_model_len=32768, tensor_parallel_size=2)
    plain = _open_planned(page, server_url, model, **kw)
    dcp = kvplan.fit(model, decode_context_parallel_size=2, **kw)
    assert dcp.kv_cache_tokens > plain.kv_cache_tokens
    page.fill("#decode_context_parallel_size", "2")
    _assert_is_the_cli(page, dcp, _cli_fit(model, "--gpu", "H100", "--vllm-version", "0.20.0", "--max-model-len", "32768",
                                           "-tp", "2", "-dcp", "2"))
    assert "decode_context_parallel_size=2" in page.url
    page.goto(page.url)
    _wait_for_plan(page, dcp)
    assert page.input_value("#decode_context_parallel_size") == "2"
    page.fill("#decode_context_parallel_size", "3")  # vLLM's assert, under the box
    _assert_refused_under(page, "decode_context_parallel_size", model, **{**kw, "decode_context_parallel_size": 3})
    # -pcp 2 at 0.33.0 (model runner v2): two TP groups
    pcp = _open_planned(page, server_url, model, gpu="h100-sxm", vllm_version="0.33.0", max_model_len=32768,
                        prefill_context_parallel_size=2)
    assert page.input_value("#prefill_context_parallel_size") == "2"
    cli = _cli_fit(model, "--gpu", "H100", "--vllm-version", "0.33.0", "--max-model-len", "32768", "-pcp", "2")
    _assert_is_the_cli(page, pcp, cli)


def test_the_interleave_boxes_plan_as_the_cli_flags(page, server_url):
    # DeepSeek-V3 on 8 x H200, -dcp 8 at 0.33.0: an interleave size of 16 divides the 16-token block and moves no figure
    # (the plan's note says so); 32 does not, and vLLM's refusal shows under its box
    model = "deepseek-ai/DeepSeek-V3"
    kw = dict(gpu="h200", vllm_version="0.33.0", max_model_len=131072, tensor_parallel_size=8,
              decode_context_parallel_size=8)
    flags = ("--gpu", "H200", "--vllm-version", "0.33.0", "--max-model-len", "131072", "-tp", "8", "-dcp", "8")
    plain = _open_planned(page, server_url, model, **kw)
    page.fill("#cp_kv_cache_interleave_size", "16")
    sixteen = kvplan.fit(model, cp_kv_cache_interleave_size=16, **kw)
    assert sixteen.kv_cache_tokens == plain.kv_cache_tokens
    # the same figures as without it: wait for the page's own plan of it (its URL), not the one already shown
    page.wait_for_url(re.compile(r"cp_kv_cache_interleave_size=16"))
    _assert_is_the_cli(page, sixteen, _cli_fit(model, *flags, "--cp-kv-cache-interleave-size", "16"))
    page.goto(page.url)
    _wait_for_plan(page, sixteen)
    assert page.input_value("#cp_kv_cache_interleave_size") == "16"
    page.fill("#cp_kv_cache_interleave_size", "32")
    _assert_refused_under(page, "cp_kv_cache_interleave_size", model, cp_kv_cache_interleave_size=32, **kw)
    # the older flag at 0.11.1 (64-token FlashMLA blocks): 64 is planned as the CLI plans it
    old = _open_planned(page, server_url, model, **{**kw, "vllm_version": "0.11.1"}, dcp_kv_cache_interleave_size=64)
    assert page.input_value("#dcp_kv_cache_interleave_size") == "64"
    _assert_is_the_cli(page, old, _cli_fit(model, *flags[:3], "0.11.1", *flags[4:], "--dcp-kv-cache-interleave-size", "64"))


def test_the_pool_and_state_boxes_plan_as_the_cli_flags(page, server_url):
    features = page.evaluate("fetch('/api/features').then(r => r.json())")
    # the choices come from the server
    assert page.eval_on_selector_all("#mamba_cache_dtype option", "os => os.map(o => o.value)") == ["", *features["mamba_cache_dtypes"]]
    assert page.eval_on_selector_all("#moe-backend-list option", "os => os.map(o => o.value)") == features["moe_backends"]
    # --num-gpu-blocks-override: the pool is the blocks given
    base = dict(gpu="l4", max_model_len=8192)
    _open_planned(page, server_url, LLAMA, **base)
    page.fill("#num_gpu_blocks_override", "1000")
    _assert_is_the_cli(page, kvplan.fit(LLAMA, num_gpu_blocks_override=1000, **base),
                       _cli_fit(LLAMA, "--gpu", "L4", "--max-model-len", "8192", "--num-gpu-blocks-override", "1000"))
    assert "num_gpu_blocks_override=1000" in page.url
    # --mamba-cache-dtype float32 on a Mamba hybrid: a larger conv state
    granite = "ibm-granite/granite-4.0-h-tiny"
    gkw = dict(gpu="l4", vllm_version="0.20.0", max_model_len=32768)
    plain = _open_planned(page, server_url, granite, **gkw)
    page.select_option("#mamba_cache_dtype", "float32")
    wide = kvplan.fit(granite, mamba_cache_dtype="float32", **gkw)
    assert wide.kv_cache_tokens != plain.kv_cache_tokens
    _assert_is_the_cli(page, wide, _cli_fit(granite, "--gpu", "L4", "--vllm-version", "0.20.0", "--max-model-len", "32768",
                                            "--mamba-cache-dtype", "float32"))
    page.goto(page.url)
    _wait_for_plan(page, wide)
    assert page.input_value("#mamba_cache_dtype") == "float32"
    # --mamba-block-size without prefix caching: vLLM's refusal under its box; with it, planned as the CLI plans it
    page.select_option("#mamba_cache_dtype", "")
    page.fill("#mamba_block_size", "256")
    _assert_refused_under(page, "mamba_block_size", granite, mamba_block_size=256, **gkw)
    page.select_option("#enable_prefix_caching", "true")
    _assert_is_the_cli(page, kvplan.fit(granite, mamba_block_size=256, enable_prefix_caching=True, **gkw),
                       _cli_fit(granite, "--gpu", "L4", "--vllm-version", "0.20.0", "--max-model-len", "32768",
                                "--mamba-block-size", "256", "--enable-prefix-caching"))
    assert "enable_prefix_caching=true" in page.url and "mamba_block_size=256" in page.url


def test_the_calculate_kv_scales_box_plans_as_the_cli_flag(page, server_url):
    kw = dict(gpu="l4", max_model_len=8192, kv_cache_dtype="fp8", vllm_version="0.20.0")
    _open_planned(page, server_url, LLAMA, **kw)
    page.check("#calculate_kv_scales")
    scales = kvplan.fit(LLAMA, calculate_kv_scales=True, **kw)
    _assert_is_the_cli(page, scales, _cli_fit(LLAMA, "--gpu", "L4", "--max-model-len", "8192", "--kv-cache-dtype", "fp8",
                                              "--vllm-version", "0.20.0", "--calculate-kv-scales"))
    _wait_for_assumptions(page, scales)  # planned as without it, and said
    assert "calculate_kv_scales=1" in page.url
    page.fill("#vllm_version", "0.28.0")  # removed in 0.28: refused under the box
    slot = page.locator(".err[data-for='calculate_kv_scales']")
    slot.wait_for(state="visible")
    with pytest.raises(InputError) as refused:
        kvplan.fit(LLAMA, calculate_kv_scales=True, **{**kw, "vllm_version": "0.28.0"})
    assert str(refused.value.message) in slot.text_content()


def test_the_wsl2_switch_plans_as_fit_wsl2(page, server_url):
    model = "Qwen/Qwen2.5-0.5B-Instruct"
    wsl = kvplan.fit(model, gpu="rtx-4060", max_model_len=4096, wsl2=True)
    page.goto(server_url + f"/?model={model}&gpu=rtx-4060&max_model_len=4096&wsl2=1")
    _wait_for_plan(page, wsl)
    _assert_matches_cli(page, wsl)
    assert page.is_checked("#wsl2")
    # the table of GPUs that start the plan, and the GPU list, show the WSL2 totals the plans use, not the native ones
    page.wait_for_function("(key) => { const t = document.querySelector('#gpu-table');"
                           " return t.dataset.state === 'ready' && t.dataset.key === key; }",
                           arg=json.dumps([model, "rtx-4060", "4096"], separators=(",", ":")))
    row = page.locator("#gpu-table tr.chosen td")
    assert row.nth(0).text_content() == wsl.gpu.name and row.nth(2).text_content() == f"{wsl.total_bytes / 2**30:.1f}"
    assert "WSL2" in page.text_content("#gpu-table-note")
    assert page.locator("#gpu option[value='rtx-4060']").text_content().endswith(f"{wsl.total_bytes / 2**30:.1f} GiB under WSL2")
    page.uncheck("#wsl2")
    native = kvplan.fit(model, gpu="rtx-4060", max_model_len=4096)
    assert native.kv_cache_bytes < wsl.kv_cache_bytes
    _wait_for_plan(page, native)
    _assert_matches_cli(page, native)
    assert "wsl2" not in page.url
    page.check("#wsl2")  # a card without a WSL2 total in the catalog: the reason is shown beside the switch
    page.select_option("#gpu", "rtx-4070-ti")
    slot = page.locator(".err[data-for='wsl2']")
    slot.wait_for(state="visible")
    assert "nvidia-smi" in slot.text_content() and "the GiB box" in slot.text_content()


def test_the_page_shows_a_first_starts_pool_beside_the_plan(page, server_url):
    plan = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", gpu="l4", max_model_len=8192)
    page.goto(server_url + "/?model=meta-llama/Llama-3.1-8B-Instruct&gpu=l4&max_model_len=8192")
    _wait_for_plan(page, plan)
    first = plan.first_start
    summary = page.inner_text("#summary")
    # in the KV cache row, as fit's box says it: '16.40 GiB  (a first start, compiling: 15.91–16.40 GiB)'
    assert (f"(a first start, compiling: {first['kv_cache_bytes_least'] / 2**30:.2f}–"
            f"{first['kv_cache_bytes_most'] / 2**30:.2f} GiB)") in summary


def test_the_summary_shows_the_servers_rows_as_they_stand(page, server_url):
    """The page words no plan summary of its own: with /api/plan's summary_rows (fit's box, render.plan_rows)
    replaced by marked text no page could derive from the plan's figures, the summary shows exactly those rows, in
    their order, where the page that wrote its own 'KV cache', 'tokens' and 'concurrency' rows showed its own."""
    def edit(route):
        d = route.fetch().json()
        d["summary_rows"] = [[f"label {i}", f"the server's row {i}: {text}"] for i, (_, text) in enumerate(d["summary_rows"])]
        route.fulfill(status=200, content_type="application/json", body=json.dumps(d))

    page.route("**/api/plan", edit)
    try:
        page.goto(server_url + "/?model=Qwen/Qwen3-8B&gpu=h100&max_model_len=8192&vllm_version=0.34.0")
        page.wait_for_function("document.querySelector('#summary').textContent.includes(\"the server's row 0\")")
        shown = page.eval_on_selector_all("#summary > div", "ds => ds.map(d => [d.firstChild.textContent,"
                                          " d.lastChild.textContent])")
    finally:
        page.unroute_all(behavior="wait")
    plan = kvplan.fit("Qwen/Qwen3-8B", gpu="H100", max_model_len=8192, vllm_version="0.34.0")
    assert len(shown) >= 12  # fit's box has a capacity row for a 0.34 pool
    assert [k for k, _ in shown] == [f"label {i}" for i in range(len(shown))]
    assert all(v.startswith(f"the server's row {i}: ") for i, (_, v) in enumerate(shown))
    assert any(v.endswith(f": {plan.kv_cache_tokens:,}") for _, v in shown)  # the tokens row, as fit prints it


def test_the_capture_size_boxes_plan_as_the_cli_flags(page, server_url):
    # the page had no input for --cudagraph-capture-sizes / --max-cudagraph-capture-size (the API took them)
    model = "Qwen/Qwen2.5-0.5B-Instruct"
    few = _open_planned(page, server_url, model, gpu="tesla-t4", max_model_len=4096, cudagraph_capture_sizes="1,2,4,8")
    assert page.input_value("#cudagraph_capture_sizes") == "1,2,4,8"
    page.fill("#cudagraph_capture_sizes", "")
    page.fill("#max_cudagraph_capture_size", "16")
    upto16 = kvplan.fit(model, gpu="tesla-t4", max_model_len=4096, max_cudagraph_capture_size=16)
    default = kvplan.fit(model, gpu="tesla-t4", max_model_len=4096)
    assert default.kv_cache_bytes < upto16.kv_cache_bytes and few.kv_cache_bytes != default.kv_cache_bytes
    _wait_for_plan(page, upto16)
    _assert_matches_cli(page, upto16)
    assert "max_cudagraph_capture_size=16" in page.url and "cudagraph_capture_sizes" not in page.url
    page.fill("#max_cudagraph_capture_size", "")
    page.fill("#cudagraph_capture_sizes", "1,x")  # refused as the CLI refuses it, beside the box
    slot = page.locator(".err[data-for='cudagraph_capture_sizes']")
    slot.wait_for(state="visible")
    assert "whole number" in slot.text_content()


def _open_traffic_tab(page, url, requests):
    """The traffic tab of the plan the page at `url` shows, set to simulate the first `requests` of azure-conv."""
    page.goto(url)
    page.wait_for_function("document.querySelector('#verdict').dataset.fits === 'true'")
    page.click("#tab-traffic")
    page.select_option("#sim-workload", "azure-conv")
    page.fill("#sim-n", str(requests))


def _open_capacity_search(page, server_url):
    """The traffic tab of Qwen3-8B on an H100 at 8,192, set for a capacity search over 200 azure-conv requests within
    ttft=2s,tpot=80ms (the request the capacity tests send /api/simulate)."""
    _open_traffic_tab(page, server_url + "/?model=Qwen/Qwen3-8B&gpu=h100&max_model_len=8192", 200)
    page.fill("#sim-slo", "ttft=2s,tpot=80ms")
    page.check("#sim-capacity")


def test_the_traffic_tab_compares_deployments_with_the_cheapest_marked(page, server_url):
    """The traffic tab's percentile, target rate, price and compare boxes send kvplan capacity --vary's request: the
    table shows the API's rows in its order (cheapest first), that row marked 'cheapest', the percentile in the note."""
    from fastapi.testclient import TestClient

    body = {"model": "Qwen/Qwen3-8B", "gpu": "h100", "max_model_len": "8192", "workload": "azure-conv", "max_requests": 200,
            "slo": "ttft=2s,tpot=80ms", "capacity": True, "percentile": 95, "target_rate_per_s": 20,
            "gpu_hour_usd": "L4=0.8,H100=2.5", "vary": ["gpu,tensor_parallel_size=L4:2,H100:1"], "curve": False}
    want = TestClient(create_app()).post("/api/simulate", json=body).json()["capacity_rows"]["rows"]
    _open_capacity_search(page, server_url)
    page.fill("#sim-percentile", "95")
    page.fill("#sim-target", "20")
    page.fill("#sim-price", "L4=0.8,H100=2.5")
    page.fill("#sim-vary", "gpu,tensor_parallel_size=L4:2,H100:1")
    page.click("#sim-run")
    page.wait_for_selector("#cap-table tbody tr")
    heads = page.eval_on_selector_all("#cap-table thead th", "ths => ths.map(t => t.textContent)")
    cells = page.eval_on_selector_all("#cap-table tbody tr", "trs => trs.map(tr => ({best: tr.className,"
                                      " cells: [...tr.children].map(td => td.textContent)}))")
    assert heads[:2] == ["gpu", "TP"] and "$/M req" in heads and "replicas" in heads
    assert [(c["cells"][0], int(c["cells"][1])) for c in cells] == [(r["gpu"], r["tensor_parallel_size"]) for r in want]
    col = heads.index("$/M req")
    for c, r in zip(cells, want):
        assert c["cells"][col] == f"{r['usd_per_million_requests']:,.2f}"
        assert c["cells"][heads.index("replicas")] == str(r["replicas"])
    assert want[0]["best"] is True and cells[0]["best"] == "best" and cells[0]["cells"][-1] == "cheapest"
    assert all(c["best"] != "best" and c["cells"][-1] == "" for c in cells[1:])
    assert "at p95" in page.locator("#cap-note").text_content()
    assert page.locator("#sim-table tbody tr").count() == 0  # one simulation's table gives way to the comparison
    for box in ("#sim-percentile", "#sim-target", "#sim-price", "#sim-vary"):
        page.fill(box, "")
    page.uncheck("#sim-capacity")
    page.click("nav.tabs button[data-tab='plan']")


def _sim_rows(page):
    return page.eval_on_selector_all("#sim-table tbody tr", "trs => trs.map(tr => [tr.children[0].textContent,"
                                     " tr.children[1].textContent])")


def test_one_capacity_search_shows_replicas_and_cost_as_the_api_answers(page, server_url):
    """One capacity search's rows are the lines /api/simulate answers (capacity_lines: `kvplan capacity`'s words, the
    replicas for the target and the cost among them), one row each, in their order."""
    from fastapi.testclient import TestClient

    body = {"model": "Qwen/Qwen3-8B", "gpu": "h100", "max_model_len": "8192", "workload": "azure-conv", "max_requests": 200,
            "slo": "ttft=2s,tpot=80ms", "capacity": True, "target_rate_per_s": 20, "gpu_hour_usd": "2.5", "curve": False}
    d = TestClient(create_app()).post("/api/simulate", json=body).json()
    cap, lines = d["capacity"], d["capacity_lines"]
    _open_capacity_search(page, server_url)
    page.fill("#sim-target", "20")
    page.fill("#sim-price", "2.5")
    page.click("#sim-run")
    page.wait_for_function("document.querySelector('#sim-table').textContent.includes('target 20 req/s')")
    rows = _sim_rows(page)
    at = [k for k, _ in rows].index("capacity at the SLO")
    assert rows[at:] == [["capacity at the SLO" if i == 0 else "", line] for i, line in enumerate(lines)]
    n = cap["replicas_needed"]
    assert any(line.startswith(f"target 20 req/s: {n} replica{'s' if n != 1 else ''} ") for _, line in rows)
    assert rows[-1][1].startswith(f"cost at 2.5 USD per GPU-hour: {cap['cost']['usd_per_hour']:,.2f} USD/hour")
    assert page.locator("#cap-compare").is_hidden()
    for box in ("#sim-target", "#sim-price"):
        page.fill(box, "")
    page.uncheck("#sim-capacity")
    page.click("nav.tabs button[data-tab='plan']")


def test_the_page_shows_the_servers_capacity_words_as_they_stand(page, server_url):
    """The page words no capacity of its own: with /api/simulate's capacity_lines, a compared row's rate cell and the
    lines under the compared deployments (capacity_rows.lines) replaced by the server's answer (here, text no rounding
    or sentence of the page's could give: the rate in full, a marked line), the page shows those, where a page that
    rounded the rate or wrote the sentences itself from the figures shows its own."""
    def single(d):
        rate = d["capacity"]["max_rate_per_s"]
        d["capacity_lines"] = [f"capacity: {rate!r} req/s (the server's line)", "  the server's second line"]

    _open_capacity_search(page, server_url)
    page.route("**/api/simulate", _answer_edited(single))
    try:
        page.click("#sim-run")
        page.wait_for_function("document.querySelector('#sim-table').textContent.includes(\"the server's line\")")
        rows = _sim_rows(page)
        at = [k for k, _ in rows].index("capacity at the SLO")
        assert rows[at][1].startswith("capacity: ") and rows[at][1].endswith(" req/s (the server's line)")
        assert len(rows[at][1].split()[1]) > 6  # the rate as sent, not rounded to three figures
        assert rows[at + 1:] == [["", "  the server's second line"]]

        def compared(d):
            col = [c["title"] for c in d["capacity_rows"]["columns"]].index("req/s/rep")
            for i, r in enumerate(d["capacity_rows"]["rows"]):
                r["cells"][col] = f"{r['rate_per_replica']!r}" if r["rate_per_replica"] else "none"
            d["capacity_rows"]["lines"] = [{"kind": "again", "text": f"the server's line for row {i}"}
                                           for i in range(len(d["capacity_rows"]["rows"]))]

        page.unroute_all(behavior="wait")
        page.route("**/api/simulate", _answer_edited(compared))
        page.fill("#sim-vary", "gpu=H100,L4")
        page.click("#sim-run")
        page.wait_for_selector("#cap-table tbody tr")
        heads, cells = _capacity_table(page)
        col = heads.index("req/s/rep")
        assert all(c[col] == "none" or len(c[col]) > 6 for c in cells) and any(c[col] != "none" for c in cells)
        reasons = page.eval_on_selector_all("#cap-reasons li", "lis => lis.map(li => li.textContent)")
        assert [t for t in reasons if t.startswith("the server's line")] == [f"the server's line for row {i}"
                                                                            for i in range(len(cells))]
    finally:
        page.unroute_all(behavior="wait")
        page.fill("#sim-vary", "")
        page.uncheck("#sim-capacity")
        page.click("nav.tabs button[data-tab='plan']")


def _capacity_table(page):
    """The compared-deployments table as the page shows it: its column headings, and each row's cell texts."""
    heads = page.eval_on_selector_all("#cap-table thead th", "ths => ths.map(t => t.textContent)")
    cells = page.eval_on_selector_all("#cap-table tbody tr", "trs => trs.map(tr => [...tr.children].map(td => td.textContent))")
    return heads, cells


def _answer_edited(edit):
    """A route handler that answers the page with the server's own answer to its request, edited by `edit`."""
    def handle(route):
        d = route.fetch().json()
        edit(d)
        route.fulfill(status=200, content_type="application/json", body=json.dumps(d))
    return handle


def test_the_page_shows_the_servers_simulation_words_as_they_stand(page, server_url):
    """The page words no simulation result of its own: it wrote its rows in JavaScript (TTFT 'p50 / p90 / p99' with
    toFixed(0), 'KV usage peak 2%', its own rejection sentence), other words than `kvplan simulate` prints. With
    /api/simulate's setup_lines, result_rows, latency_rows and rate_lines replaced by marked text no page could
    derive from the figures, the table shows exactly the server's words, in the command's order; and with the compared
    deployments' columns, cells, lines and note replaced, the table, the lines under it and the note show them (the
    page formatted the costs with toLocaleString and the price with String(), where the command prints 1.23457e+06,
    and wrote its own headings, 'cheapest' mark and warning lines)."""
    def single(d):
        d["setup_lines"] = ["the server's pool line", "the server's workload line"]
        d["result_rows"] = [[f"the server's row {i}", f"{v} (sent)"] for i, (_, v) in enumerate(d["result_rows"])]
        d["latency_columns"] = ["c1", "c2", "c3", "c4"]
        d["latency_rows"] = [[f"lat {i}", *(f"{i}.{j} (sent)" for j in range(4))] for i in range(len(d["latency_rows"]))]
        d["rate_lines"] = ["the server's throughput line", "the server's goodput line"]

    _open_traffic_tab(page, server_url + "/?model=Qwen/Qwen3-8B&gpu=h100&max_model_len=8192", 200)
    page.route("**/api/simulate", _answer_edited(single))
    try:
        page.click("#sim-run")
        page.wait_for_function("document.querySelector('#sim-table').textContent.includes(\"the server's goodput line\")")
        rows = page.eval_on_selector_all("#sim-table tbody tr", "trs => trs.map(tr => [...tr.children].map(c =>"
                                         " [c.tagName, c.textContent, c.colSpan]))")
        texts = [[t for _, t, _ in r] for r in rows]
        n = len([t for t in texts if t[0].startswith("the server's row ")])
        assert n >= 7  # worst case, realized max / mean..., KV usage, preemptions, requests (and more where they apply)
        assert texts == ([["", "the server's pool line"], ["", "the server's workload line"]]
                         + [t for t in texts if t[0].startswith("the server's row ")]
                         + [["", "c1", "c2", "c3", "c4"]] + [[f"lat {i}", *(f"{i}.{j} (sent)" for j in range(4))]
                                                              for i in range(5)]
                         + [["", "the server's throughput line"], ["", "the server's goodput line"]])
        assert [t[0] for t in texts[2:2 + n]] == [f"the server's row {i}" for i in range(n)]
        assert all(t[1].endswith(" (sent)") for t in texts[2:2 + n])
        head = rows[2 + n]
        assert [tag for tag, _, _ in head] == ["TH"] * 5  # the latency columns head their cells
        assert rows[0][1][2] == 4 and rows[2][1][2] == 4  # a line and a row span the latency row's four value columns

        def compared(d):
            c = d["capacity_rows"]
            for j, col in enumerate(c["columns"]):
                col["title"] = f"the server's column {j}"
            for i, r in enumerate(c["rows"]):
                r["cells"] = [f"cell {i}.{j}" for j in range(len(c["columns"]))]
            c["lines"] = [{"kind": "warning", "text": "the server's warning"}, {"kind": "note", "text": "the server's note"}]
            c["note"] = "(the server's note under the table)"

        page.unroute_all(behavior="wait")
        page.route("**/api/simulate", _answer_edited(compared))
        page.fill("#sim-slo", "ttft=2s,tpot=80ms")
        page.check("#sim-capacity")
        page.fill("#sim-price", "1234567")
        page.fill("#sim-vary", "gpu=H100,L40S")
        page.click("#sim-run")
        page.wait_for_selector("#cap-table tbody tr")
        heads, cells = _capacity_table(page)
        # the columns, cells and lines under the table as the server words them (simulate.compare_columns,
        # compare_cells, compare_lines), where the page wrote its own headings, 'cheapest' and warning lines
        assert heads == [f"the server's column {j}" for j in range(7)]  # gpu, GPUs/rep, req/s/rep, 3 costs, note
        assert cells == [[f"cell {i}.{j}" for j in range(7)] for i in range(2)]
        lines = page.eval_on_selector_all("#cap-reasons li", "lis => lis.map(li => [li.className, li.textContent])")
        assert lines == [["warn", "the server's warning"], ["note", "the server's note"]]
        # the note as the server words it (simulate.compare_note), where the page wrote its own around the cost note
        assert page.locator("#cap-note").text_content() == "(the server's note under the table)"
    finally:
        page.unroute_all(behavior="wait")
        for box in ("#sim-slo", "#sim-price", "#sim-vary"):
            page.fill(box, "")
        page.uncheck("#sim-capacity")
        page.click("nav.tabs button[data-tab='plan']")


def test_the_page_shows_the_servers_gpu_table_and_labels_as_they_stand(page, server_url):
    """The page words no GPU table or GPU list of its own: it filtered and sorted the sweep's rows and wrote their
    cells (toFixed(1) GiB, toFixed(2) + '×'), the note under the table and the list's labels in JavaScript. With
    /api/sweep's gpu_table (render.gpu_table) and /api/gpus' label and wsl2_label (render.gpu_choice_label) replaced by
    marked text no page could derive from the figures, the table, its note and the list show exactly the server's
    words, the row of the form's GPU and TP marked."""
    sent = {}

    def sweep(d):
        if "gpu_table" in d:
            sent["rows"] = [(r["gpu"], r["tensor_parallel_size"]) for r in d["gpu_table"]["rows"]]
            for i, r in enumerate(d["gpu_table"]["rows"]):
                r["cells"] = [f"cell {i}.{j}" for j in range(5)]
            d["gpu_table"]["note"] = "(the server's note under the GPU table)"
            d["gpu_table"]["show_all"], d["gpu_table"]["show_fewer"] = "the server's show all", "the server's show fewer"
            d["gpu_table"]["first_rows"] = 5  # the page cuts the table where the server says, not at a number of its own

    def gpus(d):
        for g in d:
            g["label"], g["wsl2_label"] = f"the server's label for {g['id']}", f"the server's WSL2 label for {g['id']}"

    page.route("**/api/sweep", _answer_edited(sweep))
    page.route("**/api/gpus", _answer_edited(gpus))
    try:
        page.goto(server_url + "/?model=Qwen/Qwen2.5-0.5B-Instruct&gpu=l4&max_model_len=4096")
        page.wait_for_function("document.querySelector('#gpu-table-note').textContent"
                               " === \"(the server's note under the GPU table)\"")
        rows = page.eval_on_selector_all("#gpu-table tbody tr", "trs => trs.map(tr => [tr.className,"
                                         " [...tr.cells].map(td => td.textContent)])")
        assert len(sent["rows"]) > 12 and len(rows) == 5  # the server's first 5 rows, in its order
        assert [cells for _, cells in rows] == [[f"cell {i}.{j}" for j in range(5)] for i in range(5)]
        assert page.locator("#gpu-more").text_content() == "the server's show all"
        page.click("#gpu-more")  # every row, the form's among them
        page.wait_for_function("document.querySelectorAll('#gpu-table tbody tr').length > 5")
        rows = page.eval_on_selector_all("#gpu-table tbody tr", "trs => trs.map(tr => [tr.className,"
                                         " [...tr.cells].map(td => td.textContent)])")
        assert [cells for _, cells in rows] == [[f"cell {i}.{j}" for j in range(5)] for i in range(len(sent["rows"]))]
        assert [i for i, (cls, _) in enumerate(rows) if "chosen" in cls] == [sent["rows"].index(("l4", 1))]
        assert page.locator("#gpu-more").text_content() == "the server's show fewer"
        page.click("#gpu-more")
        assert page.locator("#gpu option[value='l4']").text_content() == "the server's label for l4"
        page.check("#wsl2")
        assert page.locator("#gpu option[value='l4']").text_content() == "the server's WSL2 label for l4"
        page.uncheck("#wsl2")
        assert page.locator("#gpu option[value='h100-sxm']").text_content() == "the server's label for h100-sxm"
    finally:
        page.unroute_all(behavior="wait")  # a request the last click sent is answered before the next test runs


def test_the_kinds_box_chooses_the_cards_gpu_auto_searches(page, server_url):
    """The page's GPU 'auto' searched the whole catalog (a laptop card for a small model); a box under it, shown only
    with auto, takes --gpu-kinds, and the page plans what `kvplan fit --gpu auto --gpu-kinds` plans."""
    from kvplan.api import FitFlags, plan_from_flags_and_inverse

    model = "Qwen/Qwen3-0.6B"
    default, _ = plan_from_flags_and_inverse(model, FitFlags(gpu="auto", max_model_len="8192"), None)
    consumer, _ = plan_from_flags_and_inverse(model, FitFlags(gpu="auto", max_model_len="8192", gpu_kinds="consumer"), None)
    assert default.gpu.kind in ("datacenter", "workstation") and consumer.gpu.kind == "consumer"  # the premise
    page.goto(server_url + f"/?model={model}&gpu=auto&max_model_len=8192&gpu_kinds=consumer")
    _wait_for_plan(page, consumer)
    assert page.is_visible("#gpu_kinds") and page.input_value("#gpu_kinds") == "consumer"
    page.fill("#gpu_kinds", "")
    _wait_for_plan(page, default)
    page.select_option("#gpu", "l4")
    _wait_for_plan(page, kvplan.fit(model, gpu="L4", max_model_len=8192))
    assert not page.is_visible("#gpu_kinds") and "gpu_kinds" not in page.url


def test_the_traffic_tab_shows_the_speculative_step_line_the_server_words(page, server_url):
    """The 'step time' row of a speculative simulation is the server's step line (simulate.step_line, the line
    `kvplan simulate` prints) for the speculative example step, as /api/simulate answers it."""
    from urllib.parse import quote

    from fastapi.testclient import TestClient

    ngram = '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 3}'
    body = {"model": LLAMA, "gpu": "h100", "max_model_len": "8192", "speculative_config": ngram, "workload": "azure-conv",
            "max_requests": 120, "spec_acceptance_rate": 0.7, "curve": False}
    d = TestClient(create_app()).post("/api/simulate", json=body).json()
    spec_line = [line for e, line in zip(d["step_model"]["example_steps"], d["step_lines"]) if "speculative" in e]
    assert len(spec_line) == 1 and spec_line[0].startswith("speculative decode step of ")
    _open_traffic_tab(page, server_url + f"/?model={LLAMA}&gpu=h100&max_model_len=8192&speculative_config={quote(ngram)}",
                      120)
    page.fill("#sim-spec-rate", "0.7")
    page.click("#sim-run")
    page.wait_for_function("document.querySelector('#sim-table').textContent.includes('step time')")
    rows = dict(page.eval_on_selector_all("#sim-table tbody tr", "trs => trs.map(tr => [tr.children[0].textContent,"
                                          " tr.children[1].textContent])"))
    assert rows["step time"] == spec_line[0]
    page.fill("#sim-spec-rate", "")
    page.click("nav.tabs button[data-tab='plan']")


def _planned_from(command: str, **flags):
    """The plan `kvplan fit --from COMMAND --gpu ...` makes (cli.read_from, then fit's plan_from_flags_and_inverse)."""
    from kvplan.api import FitFlags, plan_from_flags_and_inverse
    from kvplan.cli import read_from

    model, merged, _ = read_from(None, FitFlags(**flags), command)
    return plan_from_flags_and_inverse(model, merged, None)[0]


PASTED = ("VLLM_USE_V1=1 vllm serve Qwen/Qwen3-8B --max-model-len 16384 --max-num-batched-tokens 8192 "
          "--enable-prefix-caching --port 8001")
COMPOSE_BLOCK = "command: >\n  --model Qwen/Qwen3-8B\n  --max-model-len 8192\n  -tp 2\n  --host 0.0.0.0\n"


def test_a_pasted_vllm_serve_command_plans_as_fit_from(page, server_url):
    from urllib.parse import parse_qs, urlparse

    before = _open_planned(page, server_url, "Qwen/Qwen2.5-0.5B-Instruct", gpu="l4", max_model_len=4096)
    assert not page.locator("#from-box").evaluate("d => d.open")  # the import box is folded away until used
    page.click("#from-box summary")
    page.fill("#from_command", PASTED)
    pasted = _planned_from(PASTED, gpu="l4")
    _wait_for_plan(page, pasted)
    _assert_matches_cli(page, pasted)
    # the form's fields the command sets hold its values; the rest (the GPU) stay
    assert page.input_value("#model") == "Qwen/Qwen3-8B" and page.input_value("#max_model_len") == "16384"
    assert page.input_value("#gpu") == "l4" and page.input_value("#enable_prefix_caching") == "true"
    extra = page.locator("#from-extra").text_content()
    assert "from the command: --max-num-batched-tokens 8192" in extra and "--enable-prefix-caching" not in extra
    assert "VLLM_USE_V1=1" in extra and "not planned with, as they move no GPU memory: --port" in extra
    assert parse_qs(urlparse(page.url).query)["from_command"] == [PASTED]

    # an error in the command: shown under the box, the previous results marked stale
    page.fill("#from_command", PASTED + " --no-such-flag 3")
    slot = page.locator(".err[data-for='from_command']")
    slot.wait_for(state="visible")
    assert "not a vllm serve flag kvplan knows: --no-such-flag" in slot.text_content()
    page.wait_for_function("document.querySelector('#plan').classList.contains('stale')")
    # a field the command sets, changed in the form, must agree with it (as --from with a flag given both ways)
    page.fill("#from_command", PASTED)
    _wait_for_plan(page, pasted)
    page.fill("#max_model_len", "4096")
    clash = page.locator(".err[data-for='max_model_len']")
    clash.wait_for(state="visible")
    assert "4096 is given, and the command sets 16384" in clash.text_content()
    page.fill("#max_model_len", "16384")
    _wait_for_plan(page, pasted)

    # cleared: the form alone again, the fields the command filled back to what they held
    page.fill("#from_command", "")
    _wait_for_plan(page, before)
    _assert_matches_cli(page, before)
    assert page.input_value("#model") == "Qwen/Qwen2.5-0.5B-Instruct" and page.input_value("#max_model_len") == "4096"
    assert page.input_value("#enable_prefix_caching") == ""
    assert page.locator("#from-extra li").count() == 0 and "from_command" not in page.url

    # a compose `command:` block, its lines kept, round-trips through the query string
    page.fill("#from_command", COMPOSE_BLOCK)
    compose = _planned_from(COMPOSE_BLOCK, gpu="l4")
    _wait_for_plan(page, compose)
    _assert_matches_cli(page, compose)
    assert page.input_value("#tensor_parallel_size") == "2"
    shared = page.url
    assert parse_qs(urlparse(shared).query)["from_command"] == [COMPOSE_BLOCK]
    page.goto(shared)
    _wait_for_plan(page, compose)
    _assert_matches_cli(page, compose)
    assert page.input_value("#from_command") == COMPOSE_BLOCK and page.locator("#from-box").evaluate("d => d.open")
    assert "read as the vllm/vllm-openai image's `vllm serve` entrypoint" in page.locator("#from-extra").text_content()
