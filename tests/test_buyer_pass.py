"""Choosing the GPUs to buy or rent for a model and a traffic level: `kvplan fit --gpu auto`, `sweep --vary gpu`,
`capacity --vary gpu --gpu-hour-usd` and the page's capacity search, read as one decision."""

from __future__ import annotations

import json

import pytest

from cli_runner import run_cli

QWEN32 = "Qwen/Qwen3-32B"
QWEN8 = "Qwen/Qwen3-8B"


def test_gpu_auto_keeps_the_tensor_parallel_size_given(monkeypatch, capsys):
    """`fit --gpu auto --tensor-parallel-size 2` answered 4 x L4 (TP 4) for Qwen3-32B at 32,768 tokens: the size the
    user had settled on was replaced by the search's own. It now searches the cards at TP 2 alone, and names it."""
    from kvplan.api import engine_args, first_start_holds, gpu_and_tp_choices, plan
    from kvplan.resolve import gpu_catalog, resolve_model

    code, out, err = run_cli(monkeypatch, capsys, "fit", QWEN32, "--gpu", "auto", "--max-model-len", "32768",
                             "--tensor-parallel-size", "2", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["args"]["tensor_parallel_size"] == 2 and d["fits"]
    assert "the smallest catalog GPU at TP 2 (--tensor-parallel-size)" in d["inverse"]
    # the answer is the smallest NVIDIA card whose TP-2 plan starts, its first (compiling) start included
    spec, args = resolve_model(QWEN32), engine_args(max_model_len=32768)
    want = None
    for g in sorted((g for g in gpu_catalog() if g.vendor == "NVIDIA" and not g.one_per_machine),
                    key=lambda g: g.total_bytes):
        q = plan(spec, g, engine_args(max_model_len=32768, tensor_parallel_size=2))
        if q.fits and first_start_holds(q):
            want = g
            break
    assert want is not None and d["gpu"] == want.name
    # without the flag the search still ranges over TP 1-8 (here a TP other than 2 is the smallest)
    cold, _ = gpu_and_tp_choices(spec, args)
    assert cold[1] != 2
    code, out, err = run_cli(monkeypatch, capsys, "fit", QWEN32, "--gpu", "auto", "--max-model-len", "32768", "--json")
    assert code == 0 and json.loads(out)["args"]["tensor_parallel_size"] == cold[1]
    # a size no card holds the model at is refused naming the flag to drop
    code, out, err = run_cli(monkeypatch, capsys, "fit", "Qwen/Qwen3-235B-A22B", "--gpu", "auto", "--max-model-len",
                             "32768", "-tp", "1")
    text = " ".join((out + err).split())
    assert code == 2 and "no catalog GPU at TP 1 (--tensor-parallel-size) fits this plan" in text
    assert "drop --tensor-parallel-size" in text


def test_page_capacity_probes_as_the_cli(monkeypatch, capsys):
    """The page's capacity search simulated the whole trace (azure-conv's 19,366 requests) where `kvplan capacity`
    probes its first 5,000: for Qwen3-8B on an L40S at 16,384 tokens the page said 2.69 req/s per replica and the
    command 3.13, and for 10 req/s 8 A10Gs where the command said 9. Both now probe the same requests."""
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from kvplan.api import CAPACITY_REQUESTS
    from kvplan.web.app import create_app

    client = TestClient(create_app(simulate_seconds=300))
    body = {"model": QWEN8, "gpu": "L40S", "max_model_len": 16384, "workload": "azure-conv",
            "slo": "ttft=1s,tpot=50ms", "capacity": True, "target_rate_per_s": 10}
    r = client.post("/api/simulate", json=body)
    assert r.status_code == 200, r.text
    web = r.json()
    code, out, err = run_cli(monkeypatch, capsys, "capacity", QWEN8, "--gpu", "L40S", "--max-model-len", "16384",
                             "-w", "azure-conv", "--slo", "ttft=1s,tpot=50ms", "--target-rate", "10", "--json")
    assert code == 0, err
    cli = json.loads(out)
    assert web["capacity"]["max_rate_per_s"] == cli["max_rate_per_s"] > 0
    assert web["capacity"]["replicas_needed"] == cli["replicas_needed"]
    assert web["capacity"]["probes"] == cli["probes"]
    # the simulation beside it still runs the whole trace, as `kvplan simulate` does
    assert web["workload"]["requests"] > CAPACITY_REQUESTS
    # a comparison probes the same first 5,000, and says so (the page's note: 'N requests per probe')
    r = client.post("/api/simulate", json={**body, "vary": ["gpu=L40S"]})
    assert r.status_code == 200, r.text
    assert r.json()["workload"]["requests"] == CAPACITY_REQUESTS
    assert r.json()["capacity_rows"]["rows"][0]["rate_per_replica"] == cli["max_rate_per_s"]


def test_sweep_shows_no_pool_for_a_gpu_vllm_refuses(monkeypatch, capsys):
    """`sweep openai/gpt-oss-20b --vary gpu=T4,L4`: the T4 row (MXFP4 needs compute capability 8.0, the T4 has 7.5)
    showed a -1.89 GiB pool, 0 tokens and a 0.00x ratio beside 'no', read as a pool too small, and its reason was cut
    at its first sentence, before vLLM's 'Minimum capability: 80. Current capability: 75.'. The row now shows no pool,
    as a row whose weights do not load, and the reason whole."""
    import kvplan

    monkeypatch.setenv("COLUMNS", "200")
    t4 = kvplan.fit("openai/gpt-oss-20b", "T4", max_model_len=32768, fixes=False)
    assert not t4.fits and t4.failure == "platform" and t4.kv_cache_bytes < 0  # what the table had shown
    code, out, err = run_cli(monkeypatch, capsys, "sweep", "openai/gpt-oss-20b", "--max-model-len", "32768",
                             "--vary", "gpu=T4,L4")
    assert code == 0, err
    lines = {ln.split("│")[1].strip(): ln for ln in out.splitlines() if ln.startswith("│")}
    cells = [c.strip() for c in lines["T4"].split("│")[2:-1]]
    assert cells == ["no", "—", "—", "—", "—"], cells
    assert f"{t4.kv_cache_bytes / 2 ** 30:.2f}" not in lines["T4"]
    text = " ".join(out.split())
    assert "does not start (gpu=T4): The quantization method mxfp4 is not supported for the current GPU. Minimum " \
           "capability: 80. Current capability: 75." in text
    # the row that starts keeps its numbers
    assert [c.strip() for c in lines["L4"].split("│")[2:-1]][0] == "yes"


def test_capacity_compare_says_which_card_a_bare_name_was_planned_as(monkeypatch, capsys):
    """`capacity --vary gpu=A100,L40S` planned the A100 as the 80 GB SXM4 card and said nothing (fit, sweep and a
    single capacity run warn that 'A100' also names a 40 GB card): the buyer of 40 GB cards read the 80 GB card's rate.
    Each row now carries its plan's warnings, printed under the table as sweep prints them, and listed on the page."""
    from pathlib import Path

    import kvplan

    monkeypatch.setenv("COLUMNS", "200")
    args = ("capacity", QWEN8, "--max-model-len", "8192", "-w", "azure-conv", "-n", "200", "--slo", "ttft=2s,tpot=80ms",
            "--vary", "gpu=A100,L40S")
    code, out, err = run_cli(monkeypatch, capsys, *args)
    assert code == 0, err
    a100 = kvplan.fit(QWEN8, "A100", max_model_len=8192, fixes=False)
    guess = next(w for w in a100.warnings if "names cards with 39 GiB as well" in str(w))
    assert f"warning (gpu=A100): {guess}" in " ".join(out.split())
    code, out, err = run_cli(monkeypatch, capsys, *args, "--json")
    rows = {r["gpu"]: r for r in json.loads(out)["rows"]}
    assert rows["A100"]["warnings"] == [str(w) for w in a100.warnings]
    assert rows["L40S"]["warnings"] == [str(w) for w in kvplan.fit(QWEN8, "L40S", max_model_len=8192, fixes=False).warnings]
    # the page lists them under its comparison table, as the command prints them (simulate.compare_lines)
    from kvplan.simulate import compare_lines

    assert ("warning", f"warning (gpu=A100): {guess}") in compare_lines(json.loads(out)["rows"], ["gpu"])
    js = (Path(kvplan.__file__).parent / "web" / "static" / "app.js").read_text()
    body = js[js.index("function renderComparison"):]
    body = body[:body.index("\n}\n")]
    assert "c.lines" in body and "cap-reasons" in body


def test_capacity_tie_goes_to_the_fleet_with_more_headroom(monkeypatch, capsys):
    """Qwen3-8B on L40S at 6.5 req/s: TP 2 (one replica, 7.28 req/s) and TP 1 (two replicas, 5.70 req/s each) both
    take 2 GPUs at the same dollars, and the one listed first was marked 'cheapest' whatever its headroom. A tie now
    goes to the more req/s per GPU, whichever order the deployments were listed in."""
    base = ("capacity", QWEN8, "--gpu", "L40S", "--max-model-len", "8192", "-w", "azure-conv", "-n", "200",
            "--slo", "ttft=2s,tpot=80ms", "--target-rate", "6.5", "--gpu-hour-usd", "1.9", "--json")
    orders = []
    for listed in ("tensor_parallel_size=2,1", "tensor_parallel_size=1,2"):
        code, out, err = run_cli(monkeypatch, capsys, *base, "--vary", listed)
        assert code == 0, err
        rows = json.loads(out)["rows"]
        a, b = rows
        assert a["gpus"] == b["gpus"] and a["usd_per_million_requests"] == b["usd_per_million_requests"]  # a tie
        assert a["rate_per_replica"] / a["gpus_per_replica"] > b["rate_per_replica"] / b["gpus_per_replica"]
        assert a["best"] and not b.get("best")
        orders.append([r["tensor_parallel_size"] for r in rows])
    assert orders[0] == orders[1]


def test_simulate_and_capacity_gpu_auto_pick_a_card_they_can_time(monkeypatch, capsys):
    """`simulate/capacity openai/gpt-oss-20b --gpu auto` picked the RTX 4000 SFF Ada (as fit does) and then refused it:
    'kvplan's catalog has no HBM bandwidth for NVIDIA RTX 4000 SFF Ada Generation'. Their search now keeps to the
    cards whose bandwidth the catalog holds, and says so; fit's and scaffold's are unchanged."""
    from kvplan.api import engine_args, gpu_and_tp_choices
    from kvplan.resolve import resolve_model

    spec, args = resolve_model("openai/gpt-oss-20b"), engine_args(max_model_len=32768)
    fit_pick = gpu_and_tp_choices(spec, args)[0]
    assert not fit_pick[0].hbm_bandwidth_tbps  # what simulate had been handed
    sim_pick = gpu_and_tp_choices(spec, args, simulable=True)[0]
    assert sim_pick[0].hbm_bandwidth_tbps and sim_pick[2].fits
    code, out, err = run_cli(monkeypatch, capsys, "simulate", "openai/gpt-oss-20b", "--gpu", "auto", "--max-model-len",
                             "32768", "-w", "azure-conv", "-n", "100", "--rate", "1", "--json")
    assert code == 0, err
    assert json.loads(out)["gpu"] == sim_pick[0].name
    assert "among those whose bandwidth kvplan's catalog holds" in " ".join(err.split())
    code, out, err = run_cli(monkeypatch, capsys, "fit", "openai/gpt-oss-20b", "--gpu", "auto", "--max-model-len",
                             "32768", "--json")
    assert code == 0 and json.loads(out)["gpu"] == fit_pick[0].name


def _untimed_card() -> str:
    """A catalog card big enough for Qwen3-8B at 8,192 whose catalog entry has no bandwidth (no step model): the first,
    by memory, of the NVIDIA cards with at least 24 GB and a total; the L20 was one until its bandwidth was sourced."""
    from kvplan.resolve import gpu_catalog

    cards = [g for g in gpu_catalog() if g.hbm_bandwidth_tbps is None and g.vendor == "NVIDIA"
             and (g.total_bytes or 0) >= 24 * 1024 ** 3]
    assert cards, "every catalog card >= 24 GB now has a bandwidth: pick another way to reach 'no step model'"
    return min(cards, key=lambda g: (g.total_bytes, g.id)).name


def test_capacity_compare_keeps_going_past_a_card_it_cannot_time(monkeypatch, capsys):
    """`capacity --vary gpu=L4,L20,A10G`: the L20 (no bandwidth in the catalog then) ended the whole comparison with an
    error after the L4's search, and the A10G (no peak FLOPS) was timed on bandwidth alone, its prefills optimistic,
    without a word, ranked against cards timed on both. A card without bandwidth is now its row's answer ('no step
    model', the reason under the table), and each row carries the step-time model's caveats ("notes"), printed as notes,
    as simulate prints them; a single `kvplan capacity` prints them too."""
    monkeypatch.setenv("COLUMNS", "200")
    untimed = _untimed_card()
    args = ("capacity", QWEN8, "--max-model-len", "8192", "-w", "azure-conv", "-n", "200", "--slo", "ttft=2s,tpot=80ms")
    code, out, err = run_cli(monkeypatch, capsys, *args, "--vary", f"gpu=L4,{untimed},A10G", "--json")
    assert code == 0, err
    rows = {r["gpu"]: r for r in json.loads(out)["rows"]}
    assert rows[untimed]["cell"] == "no step model" and f"no HBM bandwidth for {untimed}" in rows[untimed]["reason"]
    assert rows["L4"]["rate_per_replica"] and rows["A10G"]["rate_per_replica"]
    optimistic = "no peak FLOPS for this GPU in kvplan's catalog"
    assert any(optimistic in n for n in rows["A10G"]["notes"])
    assert not any(optimistic in n for n in rows["L4"]["notes"])
    code, out, err = run_cli(monkeypatch, capsys, *args, "--vary", f"gpu=L4,{untimed},A10G")
    text = " ".join(out.split())
    assert code == 0 and "note (gpu=A10G): no peak FLOPS" in text and f"gpu={untimed}: no step model:" in text
    code, out, err = run_cli(monkeypatch, capsys, *args, "--gpu", "A10G")
    assert code == 0 and "note: no peak FLOPS for this GPU" in " ".join(err.split())
    code, out, err = run_cli(monkeypatch, capsys, *args, "--gpu", "A10G", "--json")
    assert any(optimistic in n for n in json.loads(out)["notes"])


def test_simulate_and_capacity_say_which_h100_they_time(monkeypatch, capsys):
    """'H100' plans the H100 SXM; the H100 PCIe has the same memory, so fit's plan is the same, but 2.0 TB/s against
    3.35, and capacity timed the SXM card without a word (Qwen3-14B at 16,384 tokens, azure-conv: 8.82 req/s per
    replica against the PCIe card's 5.06). simulate and capacity now note which card the speeds are the name's, single
    or compared; a name that is one card's alone ('H100 SXM', 'H100 PCIe', 'L40S') gets no note."""
    from kvplan.resolve import other_speed_note, resolve_gpu

    for name in ("H100 SXM", "H100 PCIe", "NVIDIA H100 80GB HBM3", "L40S", "A100", "RTX PRO 6000"):
        assert other_speed_note(name, resolve_gpu(name)[0]) is None, name
    note = other_speed_note("H100", resolve_gpu("H100")[0])
    assert "NVIDIA H100 80GB SXM5 (3.35 TB/s)" in note and "NVIDIA H100 PCIe (2 TB/s" in note
    monkeypatch.setenv("COLUMNS", "200")
    args = ("capacity", QWEN8, "--max-model-len", "8192", "-w", "azure-conv", "-n", "200", "--slo", "ttft=2s,tpot=80ms")
    code, out, err = run_cli(monkeypatch, capsys, *args, "--vary", "gpu=H100,H100 PCIe", "--json")
    assert code == 0, err
    rows = {r["gpu"]: r for r in json.loads(out)["rows"]}
    assert note in rows["H100"]["notes"] and note not in rows["H100 PCIe"]["notes"]
    assert rows["H100"]["rate_per_replica"] > rows["H100 PCIe"]["rate_per_replica"]  # the speeds differ
    code, out, err = run_cli(monkeypatch, capsys, *args, "--gpu", "H100", "--json")
    assert code == 0 and note in json.loads(out)["notes"]
    code, out, err = run_cli(monkeypatch, capsys, "simulate", QWEN8, "--gpu", "H100", "--max-model-len", "8192",
                             "-w", "azure-conv", "-n", "100", "--rate", "1")
    assert code == 0 and note in " ".join((out + err).split())


def test_gpu_auto_note_names_the_sizes_it_searched(monkeypatch):
    """Where no card's first start holds, --gpu auto's note said 'as on every catalog GPU x TP up to 8 that starts',
    also when it had searched TP 2 alone (--tensor-parallel-size 2) or TP up to 2 (--num-gpus 2)."""
    import kvplan.api as api

    monkeypatch.setattr(api, "first_start_holds", lambda q: False)  # every card's first start taken as refused
    for flags, said in ((api.FitFlags(gpu="auto", max_model_len="32768", tensor_parallel_size=2),
                         "as on every catalog GPU at TP 2 (--tensor-parallel-size) that starts"),
                        (api.FitFlags(gpu="auto", max_model_len="32768", num_gpus=2),
                         "as on every catalog GPU x TP up to 2 (--num-gpus 2) that starts"),
                        (api.FitFlags(gpu="auto", max_model_len="32768"),
                         "as on every catalog GPU x TP up to 8 that starts")):
        p, note = api.plan_from_flags_and_inverse(QWEN32, flags, None)
        # (then the kinds of card searched: data-center and workstation cards unless --gpu-kinds names others)
        kinds = f"; searched: {api.gpu_kinds_words(api.AUTO_GPU_KINDS)} (--gpu-kinds all searches every kind)"
        assert p.fits and note.endswith(said + kinds), note


def test_capacity_compare_of_models_heads_no_one_model(monkeypatch, capsys):
    """`capacity --vary model=Qwen/Qwen3-8B,Qwen/Qwen3-14B` headed the table 'Qwen/Qwen3-8B, workload ...', the first
    row's model, over rows of two models."""
    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = run_cli(monkeypatch, capsys, "capacity", "--gpu", "L40S", "--max-model-len", "8192", "-w",
                             "azure-conv", "-n", "100", "--slo", "ttft=2s,tpot=80ms",
                             "--vary", f"model={QWEN8},Qwen/Qwen3-14B")
    assert code == 0, err
    head = out.splitlines()[0]
    assert head.startswith("the models listed, workload azure-conv") and QWEN8 not in head
    # a comparison of one model's deployments still names it
    code, out, err = run_cli(monkeypatch, capsys, "capacity", QWEN8, "--max-model-len", "8192", "-w", "azure-conv",
                             "-n", "100", "--slo", "ttft=2s,tpot=80ms", "--vary", "gpu=L40S,H100")
    assert code == 0 and out.splitlines()[0].startswith(f"{QWEN8}, workload azure-conv")


def test_a_length_fix_never_names_more_than_the_models_config_allows(monkeypatch, capsys):
    """capacity told Qwen3-14B on mooncake-conv at 32,768 to 'raise max_model_len to at least 121,213', past the
    40,960 its config lets vLLM serve (vLLM refuses that length without VLLM_ALLOW_LONG_MAX_MODEL_LEN); simulate's
    refusal of a workload whose every request is too long named the same impossible flag."""
    import kvplan
    from kvplan.errors import InputError
    from kvplan.resolve import context_limit
    import numpy as np

    from kvplan.simulate import check_servable, engine_config_from_plan
    from kvplan.workload import Workload

    p = kvplan.fit("Qwen/Qwen3-14B", "H100", max_model_len=4096, fixes=False)
    cfg = engine_config_from_plan(p)
    limit = context_limit(p.model, p.rules).tokens
    assert cfg.model_len_limit == limit == 40960
    too_long = Workload(name="long", prompt_tokens=np.full(20, 60000), completion_tokens=np.full(20, 100))
    with pytest.raises(InputError) as exc:
        check_servable(p, too_long, cfg)
    assert "--max-model-len 60100" not in str(exc.value) and "40,960" in str(exc.value)
    # lifted by the environment variable, the length is the user's to raise again
    lifted = kvplan.fit("Qwen/Qwen3-14B", "H100", max_model_len=4096, fixes=False,
                        env="VLLM_ALLOW_LONG_MAX_MODEL_LEN=1")
    assert engine_config_from_plan(lifted).model_len_limit == 0
    # capacity's answer where the rejected requests rule out every rate
    code, out, _ = run_cli(monkeypatch, capsys, "capacity", "Qwen/Qwen3-14B", "--gpu", "H100", "-w", "mooncake-conv",
                           "--max-model-len", "32768", "-n", "300", "--slo", "ttft=2s", "--json")
    fix = json.loads(out)["fix"]
    assert "raise max_model_len" not in fix and "40,960 the model's config lets vLLM serve" in fix


def test_a_count_written_against_the_name_is_read():
    """'H100x2' and 'L4*4' were refused ('unknown GPU') where '2xH100' and 'H100 x 2' read as two H100s; a name that
    ends in a digit takes the count with no space, and no catalog name is misread by it."""
    from kvplan.resolve import _gpu_count_and_name, gpu_catalog, gpu_count_in_name

    assert gpu_count_in_name("H100x2") == gpu_count_in_name("H100 x 2") == 2
    assert gpu_count_in_name("L4*4") == 4 and gpu_count_in_name("RTX 4090x2") == 2
    for g in gpu_catalog():
        assert _gpu_count_and_name(g.name) == (None, g.name), g.name
    assert gpu_count_in_name("MI300X") is None
    import kvplan

    two = kvplan.fit("Qwen/Qwen3-8B", "H100x2", tensor_parallel_size=2, fixes=False)
    assert two.gpus_used == 2 and "H100" in two.gpu.name
