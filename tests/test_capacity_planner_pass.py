"""A capacity planner's pass over simulate, capacity and the page's /api/simulate: real traces, the same server for
the same flags wherever it is asked, traces in the forms people keep them, and figures a fleet can be sized from."""

from __future__ import annotations

import json

import pytest

from cli_runner import run_cli

QWEN8 = "Qwen/Qwen3-8B"


def test_page_simulates_the_server_the_cli_simulates(monkeypatch, capsys):
    """/api/simulate ran vLLM without prefix caching (engine_config_from_plan's default) where `kvplan simulate` ran
    the V1 default, on: Mooncake's conversation trace, whose prompts share prefixes, read 0 hit tokens on the page and
    1,019,392 in the CLI, and a TTFT p99 of 4,054 ms against 3,943 ms. Both now build the server in one place."""
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from kvplan.web.app import create_app

    body = {"model": QWEN8, "gpu": "H100", "max_model_len": 32768, "workload": "mooncake-conv", "rate_per_s": 1.0,
            "max_requests": 1000, "slo": "ttft=2s,tpot=50ms"}
    page = TestClient(create_app()).post("/api/simulate", json=body)
    assert page.status_code == 200, page.text
    web = page.json()["result"]
    code, out, err = run_cli(monkeypatch, capsys, "simulate", QWEN8, "--gpu", "H100", "--max-model-len", "32768",
                             "-w", "mooncake-conv", "--rate", "1", "-n", "1000", "--slo", "ttft=2s,tpot=50ms", "--json")
    assert code == 0, err
    cli = json.loads(out)
    assert web["prefix_hit_tokens"] > 0  # the trace's shared prefixes are found on the page too
    for key in ("prefix_hit_tokens", "max_running", "preemptions", "requests_completed", "slo_attainment"):
        assert web[key] == cli[key], key
    for key in ("ttft_ms", "tpot_ms", "e2e_ms"):
        assert web[key]["p99"] == pytest.approx(cli[key]["p99"], rel=1e-9), key


def _timed_trace(path, n=400, gap_s=0.25):
    """A user's own timed trace: n requests, bursts of four at once every second, lengths 300-1,500 / 20-200."""
    rows = [f"{(i // 4) * 4 * gap_s:.3f},{300 + (i * 37) % 1200},{20 + (i * 13) % 180}" for i in range(n)]
    path.write_text("arrival_s,prompt_tokens,completion_tokens\n" + "\n".join(rows) + "\n")
    return path


def test_capacity_probes_a_short_trace_as_it_was_recorded(monkeypatch, capsys, tmp_path):
    """capacity's default sample was 5,000 requests, so a 400-request timed trace was resampled with replacement and
    its arrivals replaced by Poisson ones, without a word in the text: its bursts were never probed. A trace shorter
    than the sample is now probed whole, with its own timing scaled; -n above its size still resamples, and says so."""
    trace = _timed_trace(tmp_path / "mine.csv")
    args = ["capacity", QWEN8, "--gpu", "L40S", "--max-model-len", "8192", "-w", str(trace), "--slo", "ttft=1s,tpot=50ms"]
    code, out, err = run_cli(monkeypatch, capsys, *args, "--json")
    assert code == 0, err
    at = json.loads(out)["at_max_rate"]
    assert at["requests_total"] == 400
    assert not any(n.startswith("resampled") for n in at["notes"]), at["notes"]
    assert any(n.startswith("arrivals scaled to") for n in at["notes"]), at["notes"]
    code, out, err = run_cli(monkeypatch, capsys, *args, "-n", "1000")
    assert code == 0, err
    assert "(1,000 requests per probe; resampled 1000 requests (with replacement) from 400" in " ".join(err.split())


def test_a_trace_in_milliseconds_keeps_its_timing(tmp_path):
    """A trace whose arrival column is 'arrival_ms' (or 'timestamp_ms') is read in milliseconds; it was dropped
    without a word ('has no arrival times; give --rate'), and with --rate the run took Poisson arrivals instead. A
    time column kvplan cannot read ('time') is named, in a note and in the error that asks for --rate."""
    from kvplan.errors import InputError
    from kvplan.workload import WorkloadSpec, build_workload

    seconds = _timed_trace(tmp_path / "s.csv")
    lines = seconds.read_text().splitlines()
    for name in ("arrival_ms", "timestamp_ms"):
        ms = tmp_path / f"{name}.csv"
        ms.write_text("\n".join([lines[0].replace("arrival_s", name)]
                                + [f"{float(r.split(',')[0]) * 1000:g}," + r.split(",", 1)[1] for r in lines[1:]]) + "\n")
        a, b = build_workload(WorkloadSpec(workload=str(seconds))), build_workload(WorkloadSpec(workload=str(ms)))
        assert b.arrival_s is not None and b.arrival_s == pytest.approx(a.arrival_s)
        assert b.mean_rate_per_s == pytest.approx(4.0, rel=0.02)
    unread = tmp_path / "time.csv"
    unread.write_text(seconds.read_text().replace("arrival_s", "time", 1))
    with pytest.raises(InputError) as exc:
        build_workload(WorkloadSpec(workload=str(unread)))
    assert "column 'time' not read as arrival times" in exc.value.message and "arrival_ms" in exc.value.fix
    w = build_workload(WorkloadSpec(workload=str(unread), rate_per_s=2.0))
    assert any("column 'time' not read as arrival times" in n for n in w.notes), w.notes
    # a column that only starts like a time word ('second_turn', 'sections') is not named among them: the note listed
    # 'second_turn' beside 'time' as a time column kvplan had dropped
    extra = tmp_path / "extra.csv"
    extra.write_text("\n".join([lines[0].replace("arrival_s", "time", 1) + ",second_turn,sections,latency_ms"]
                               + [r + ",0,1,20" for r in lines[1:]]) + "\n")
    w = build_workload(WorkloadSpec(workload=str(extra), rate_per_s=2.0))
    assert any("column 'time' not read as arrival times" in n for n in w.notes), w.notes
    assert not any("second_turn" in n or "sections" in n or "latency_ms" in n for n in w.notes), w.notes


def test_lengths_from_measured_percentiles(monkeypatch, capsys):
    """A planner who has only percentiles of the lengths (p50 / p90 / p99 from a dashboard) gives them as such: the
    draws meet each one, max= bounds them, and percentiles that do not rise are refused by name (no length form took
    percentiles: 'p50=1020,p90=2734' read 'cannot read length distribution')."""
    import numpy as np

    from cli_runner import refused
    from kvplan.workload import parse_length_dist

    given = {50: 1020, 90: 2734, 99: 4142}  # azure-conv's prompt lengths (shared/data/traces/README.md)
    x = parse_length_dist("p50=1020,p90=2734,p99=4142").sample(200_000, np.random.default_rng(0))
    for q, v in given.items():
        assert np.percentile(x, q) == pytest.approx(v, rel=0.01), q
    y = parse_length_dist("p50=129,p90=424,p99=601,max=900", "--completion-len").sample(200_000, np.random.default_rng(1))
    assert y.max() <= 900 and np.percentile(y, 99) == pytest.approx(601, rel=0.01)
    base = ["simulate", QWEN8, "--gpu", "L40S", "--max-model-len", "8192", "--rate", "2", "-n", "200"]
    text = refused(monkeypatch, capsys, "--prompt-len", *base, "--prompt-len", "p50=3000,p90=2000", "--completion-len", "100")
    assert "p90=2000 is below p50=3000" in text
    text = refused(monkeypatch, capsys, "--completion-len", *base, "--prompt-len", "500", "--completion-len", "p50=100")
    assert "fewer than two percentiles" in text
    code, out, err = run_cli(monkeypatch, capsys, *base, "--prompt-len", "p50=1020,p90=2734,p99=4142",
                             "--completion-len", "p50=129,p90=424,p99=601", "--json")
    assert code == 0, err
    assert json.loads(out)["requests_completed"] == 200


def test_percentiles_copied_with_spaces_or_colons_are_read(monkeypatch, capsys):
    """'p50=1020 p90=2734 p99=4142' (a dashboard's figures pasted with spaces) was refused as one unreadable percentile,
    and 'p50:1020,p90:2734' (the distributions' colon) fell through to 'cannot read length distribution' with a fix
    naming only lognormal and constant; both now read as 'p50=1020,p90=2734,p99=4142' does, and the other forms' errors
    name the percentile form."""
    from cli_runner import refused
    from kvplan.workload import parse_length_dist

    comma = parse_length_dist("p50=1020,p90=2734,p99=4142")
    for text in ("p50=1020 p90=2734 p99=4142", "p50:1020,p90:2734,p99:4142", "p50 = 1020, p90 = 2734, p99 = 4142"):
        assert parse_length_dist(text) == comma, text
    assert parse_length_dist("median=500 max=8000 p99=4000") == parse_length_dist("p50=500,p99=4000,p100=8000")
    base = ["simulate", QWEN8, "--gpu", "L40S", "--max-model-len", "8192", "--rate", "2", "-n", "200", "--completion-len", "100"]
    assert "percentiles p50=" in refused(monkeypatch, capsys, "--prompt-len", *base, "--prompt-len", "pareto:2")
    assert "percentiles p50=" in refused(monkeypatch, capsys, "--prompt-len", *base, "--prompt-len", "lognormal:x")


def test_replicas_can_be_traced_to_the_rate_printed(monkeypatch, capsys, tmp_path):
    """Llama-3.1-70B-class AWQ on four L4s served 0.1067 req/s, printed '0.10 req/s', beside '47 replicas' for 5 req/s:
    5 / 0.10 is 50. The rate now has three significant figures (0.106), the replica line shows the division it rounds
    up and what the fleet simulated at the target gave, and one replica is 'replica'. A slow trace's own rate read
    '0.00 req/s' in simulate's workload line."""
    import math
    import re

    args = ["capacity", QWEN8, "--gpu", "L4", "--max-model-len", "8192", "-w", "azure-conv", "-n", "1500",
            "--slo", "ttft=1s,tpot=80ms"]
    code, out, err = run_cli(monkeypatch, capsys, *args, "--target-rate", "3", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert 0.01 < d["max_rate_per_s"] < 1  # a rate below one request a second, where two decimals lost a digit
    code, out, err = run_cli(monkeypatch, capsys, *args, "--target-rate", "3")
    text = " ".join(out.split())
    shown = re.search(r"capacity: ([0-9.]+) req/s", text).group(1)
    assert len(shown.lstrip("0.").rstrip("0")) >= 2 and float(shown) <= d["max_rate_per_s"] < float(shown) * 1.01, shown
    m = re.search(r"3 / ([0-9.]+) req/s per replica = ([0-9.]+), rounded up to (\d+)", text)
    assert m, text
    assert int(m.group(3)) == math.ceil(3 / float(m.group(1))) <= d["replicas_needed"]
    assert f"target 3 req/s: {d['replicas_needed']} replicas" in text
    # azure-conv's arrivals are recorded, not redrawn for the fleet: the check is one replica at its share with the
    # whole trace (a fleet run split the 1,500 requests ten ways, 150 a replica, a queue a replica never builds)
    assert f"one replica simulated at 3 / {d['replicas_needed']} = " in text
    code, out, err = run_cli(monkeypatch, capsys, *args, "--target-rate", "0.05")
    assert "target 0.05 req/s: 1 replica (" in " ".join(out.split())
    slow = tmp_path / "slow.csv"  # 4 requests a second, its arrival_s written in milliseconds by mistake
    slow.write_text("arrival_s,prompt_tokens,completion_tokens\n" + "".join(f"{i * 250},{500},{50}\n" for i in range(40)))
    code, out, err = run_cli(monkeypatch, capsys, "simulate", QWEN8, "--gpu", "L4", "--max-model-len", "8192", "-w", str(slow))
    assert code == 0, err
    assert "0.004 req/s" in " ".join(out.split())


def test_a_data_parallel_replicas_check_says_it_ran_one_replica_at_its_share(monkeypatch, capsys):
    """With --data-parallel-size 2, find_capacity checks the replica count by simulating one replica (its DP group) at
    the target divided by the count; the line read 'the 4 simulated at 20 req/s', a fleet run that never happened. It
    now names the run made: one replica at 20 / 4 req/s."""
    import re

    args = ["capacity", QWEN8, "--gpu", "L40S", "--data-parallel-size", "2", "-w", "azure-conv", "-n", "1000",
            "--target-rate", "20"]
    code, out, err = run_cli(monkeypatch, capsys, *args, "--json")
    assert code == 0, err
    n = json.loads(out)["replicas_needed"]
    assert n and n > 1
    code, out, err = run_cli(monkeypatch, capsys, *args)
    text = " ".join(out.split())
    assert f"one replica simulated at 20 / {n} = {20 / n:.2f}" in text and "simulated at 20 req/s" not in text, text
    assert re.search(rf"target 20 req/s: {n} replicas of 2 GPUs each \({2 * n} GPUs\)", text), text


def test_page_sizes_the_fleet_as_capacity_does(monkeypatch, capsys):
    """/api/simulate's capacity search took no target rate and no percentile, so the page could not say how many
    replicas a rate needs (a target_rate_per_s key was refused as unknown); an untimed trace without a rate was
    refused under the CLI's flag ('--rate', 'give --rate R') rather than the request's key."""
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from kvplan.web.app import create_app

    client = TestClient(create_app())
    body = {"model": QWEN8, "gpu": "L40S", "max_model_len": 8192, "workload": "azure-conv", "max_requests": 1000,
            "slo": "ttft=1s,tpot=50ms", "capacity": True, "target_rate_per_s": 10, "percentile": 95}
    r = client.post("/api/simulate", json=body)
    assert r.status_code == 200, r.text
    page = r.json()["capacity"]
    code, out, err = run_cli(monkeypatch, capsys, "capacity", QWEN8, "--gpu", "L40S", "--max-model-len", "8192",
                             "-w", "azure-conv", "-n", "1000", "--slo", "ttft=1s,tpot=50ms", "--percentile", "95",
                             "--target-rate", "10", "--json")
    assert code == 0, err
    cli = json.loads(out)
    assert page["slo"]["percentile"] == 95
    assert page["max_rate_per_s"] == pytest.approx(cli["max_rate_per_s"], rel=1e-6)
    assert page["replicas_needed"] == cli["replicas_needed"] >= 2
    r = client.post("/api/simulate", json={k: v for k, v in body.items() if k != "capacity"})
    assert r.status_code == 400 and r.json()["field"] == "target_rate_per_s"
    r = client.post("/api/simulate", json=dict(body, workload="sharegpt"))
    assert r.status_code == 400 and r.json()["field"] == "rate_per_s" and "--rate" not in r.json()["fix"]


def test_an_unmeetable_slo_names_remedies_the_model_can_take(monkeypatch, capsys):
    """An SLO the lowest rate already misses was answered '... or plan a faster GPU, more tensor parallelism or a
    quantized model' for a checkpoint that is already AWQ (Qwen2.5-72B on two A100s, TTFT p99 2.7 s against 2 s)."""
    fixes = {}
    for model, extra in (("Qwen/Qwen2.5-72B-Instruct-AWQ", ["-tp", "2"]), (QWEN8, [])):
        code, out, err = run_cli(monkeypatch, capsys, "capacity", model, "--gpu", "A100-80GB", *extra, "--max-model-len",
                                 "8192", "-w", "sharegpt", "-n", "300", "--slo", "ttft=20ms", "--json")
        assert code == 1, err
        fixes[model] = json.loads(out)["fix"]
    assert fixes["Qwen/Qwen2.5-72B-Instruct-AWQ"].endswith("or plan a faster GPU or more tensor parallelism")
    assert fixes[QWEN8].endswith("or plan a faster GPU, more tensor parallelism or a quantized model")


def test_slo_in_vllm_bench_serves_words():
    """'--slo e2el=20s' (vllm bench serve's name for end-to-end latency) and 'ttft:500,tpot:50' (its --goodput form,
    milliseconds) were refused ('cannot read'); they now mean what vLLM's benchmark means by them."""
    from kvplan.errors import InputError
    from kvplan.simulate import parse_slo

    a = parse_slo("ttft:500,tpot:50,e2el:20000")
    assert (a.ttft_ms, a.tpot_ms, a.e2e_ms) == (500.0, 50.0, 20000.0)
    assert parse_slo("latency=20s").e2e_ms == parse_slo("e2e=20s").e2e_ms == 20000.0
    with pytest.raises(InputError, match="e2e is given twice"):
        parse_slo("e2el=10s,e2e=5s")


def test_a_plan_that_does_not_start_shows_its_fixes(monkeypatch, capsys):
    """simulate and capacity on a plan vLLM refuses (Qwen3-30B-A3B's 28.46 GiB per rank on two L4s) said only 'run
    `kvplan fit` with the same flags for the fixes'; they now print the nearest fixes that start, as scaffold does,
    from one helper (render.try_lines)."""
    import kvplan
    from kvplan.render import try_lines

    plan = kvplan.fit("Qwen/Qwen3-30B-A3B", gpu="L4", tensor_parallel_size=2, max_model_len=16384)
    lines = try_lines(plan)
    assert not plan.fits and lines and any("--tensor-parallel-size 4" in x for x in lines)
    for command in ("simulate", "capacity"):
        args = [command, "Qwen/Qwen3-30B-A3B", "--gpu", "L4", "-tp", "2", "--max-model-len", "16384", "-w", "azure-conv"]
        code, out, err = run_cli(monkeypatch, capsys, *args, *(["--rate", "2"] if command == "simulate" else []))
        assert code == 1, err
        text = " ".join(err.split())
        for line in lines:
            assert " ".join(line.split()) in text, (command, line)


def test_capacity_says_how_full_the_pool_runs_at_capacity(monkeypatch, capsys):
    """capacity's 'at that rate' line gave max running and preemptions but not the KV pool's usage, so a planner could
    not tell a pool-bound replica (a larger card helps) from a compute-bound one (a faster card helps) without a
    second run of simulate. The line now carries the mean running and the pool's peak and mean usage, the --json
    figures of the same run."""
    args = ["capacity", QWEN8, "--gpu", "L4", "--max-model-len", "8192", "-w", "azure-conv", "-n", "1500",
            "--num-gpu-blocks", "1500", "--slo", "ttft=2s,tpot=100ms"]
    code, out, err = run_cli(monkeypatch, capsys, *args, "--json")
    assert code == 0, err
    a = json.loads(out)["at_max_rate"]
    assert a["preemptions"] > 0 and a["kv_usage_peak"] > 0.99  # this small pool binds
    code, out, err = run_cli(monkeypatch, capsys, *args)
    text = " ".join(out.split())
    assert (f"mean running {a['mean_running']:.1f}, KV usage peak {a['kv_usage_peak'] * 100:.1f} % / mean "
            f"{a['kv_usage_mean'] * 100:.1f} %") in text, text


def test_a_target_ruled_out_by_rejections_says_so(monkeypatch, capsys):
    """Where the requests vLLM rejects (longer than max_model_len) make every rate miss, the replica line said 'one
    replica misses it at the lowest rate probed, and more replicas only lower each one's rate', a matter of load;
    it now names the rejections, which no fleet size lifts."""
    code, out, err = run_cli(monkeypatch, capsys, "capacity", QWEN8, "--gpu", "H100", "--max-model-len", "32768",
                             "-w", "mooncake-conv", "-n", "1000", "--slo", "ttft=5s,tpot=50ms", "--target-rate", "10")
    assert code == 1, err
    text = " ".join(out.split())
    assert "are rejected by vLLM" in text
    assert "target 10 req/s: no number of replicas meets the SLO (the requests vLLM rejects, 9.1 % of them," in text
    assert "more replicas only lower" not in text


def test_capacity_help_says_what_a_replica_is(monkeypatch, capsys):
    """capacity --help spoke of replicas without saying what one is (a whole server: TP x PP x DP GPUs) or how the
    count for --target-rate is reached."""
    monkeypatch.setenv("COLUMNS", "80")
    code, out, err = run_cli(monkeypatch, capsys, "capacity", "--help")
    assert code == 0
    text = " ".join(out.split())
    assert "A replica is one whole server as planned (TP x PP x DP GPUs)" in text
    assert "checked by simulating the fleet at the target" in text


def test_slo_in_vllm_bench_serves_goodput_form_with_spaces(monkeypatch, capsys):
    """vllm bench serve takes its objectives as `--goodput ttft:500 tpot:50` (argparse nargs="+", pairs separated by
    spaces); pasted into --slo that was refused ("cannot read the number in 'ttft:500 tpot:50'"). Spaces now separate
    objectives as commas do, and a space inside one ('ttft = 500 ms') still joins it."""
    from kvplan.simulate import parse_slo

    spaced, commas = parse_slo("ttft:500 tpot:50 e2el:20000"), parse_slo("ttft:500,tpot:50,e2el:20000")
    assert (spaced.ttft_ms, spaced.tpot_ms, spaced.e2e_ms) == (commas.ttft_ms, commas.tpot_ms, commas.e2e_ms)
    assert spaced.bare_ms == commas.bare_ms == ("ttft:500", "tpot:50", "e2el:20000")  # bare numbers are ms, as vLLM's
    assert (parse_slo("ttft = 500 ms, tpot=0.05 s").ttft_ms, parse_slo("ttft = 500 ms, tpot=0.05 s").tpot_ms) == (500.0, 50.0)
    code, out, err = run_cli(monkeypatch, capsys, "simulate", QWEN8, "--gpu", "H100", "-w", "sharegpt", "--rate", "2", "-n",
                              "200", "--slo", "ttft:500 tpot:50", "--json")
    assert code == 0, err
    assert json.loads(out)["slo"] == {"ttft_ms": 500.0, "tpot_ms": 50.0, "e2e_ms": None}
