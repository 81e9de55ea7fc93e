"""A third new user's pass: an ML engineer choosing a model, a quantization and a GPU, pasting kvplan's numbers into
a design doc. Each test is a finding that read wrong before its fix."""

from __future__ import annotations

import kvplan


def test_a_fix_that_still_does_not_fit_says_what_one_request_needs():
    """'online FP8 weights --quantization fp8 still does not fit (7.57 GiB for KV)' did not say what one request at
    max_model_len needs, so the reader could not tell how far short it is: vLLM's check needs 8.00 GiB for one
    32,768-token request of Qwen3-32B (64 layers x 8 KV heads x 128 x 2 x 2 B = 256 KiB a token)."""
    p = kvplan.fit("Qwen/Qwen3-32B", "L40S", max_model_len=32768)
    fp8 = next(f for f in p.fixes if f.flags == {"quantization": "fp8"})
    assert not fp8.fits
    # 7.02 GiB for KV since model runner v2's estimate charges 0.25 MiB x 64 layers x 51 capture sizes (7.57 before)
    assert fp8.effect.startswith("still does not fit (7.0") and "GiB for KV; one 32,768-token request needs 8.00 GiB)" in fp8.effect
    # V0's message counts tokens, not GiB: the effect says how many the pool holds (Llama-3.1-8B at 131,072 on an L4:
    # the 32B's online FP8 cannot load on an L40S in 0.8, which builds the model in bfloat16 before quantizing it)
    v0 = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=131072, vllm_version="0.8.0",
                    env={"VLLM_USE_V1": "0"})
    fp8 = next(f for f in v0.fixes if f.flags == {"quantization": "fp8"})
    assert not fp8.fits and "tokens, one request needs 131,072)" in fp8.effect and "; it holds " in fp8.effect


def test_the_sweep_plot_does_not_draw_a_row_without_a_pool_as_a_line_falling_off_its_log_axis(tmp_path, monkeypatch):
    """--vary gpu=L4,...,B200,'RTX 4090' --vary model=Qwen3-32B,...: the rows whose weights do not load (concurrency
    0) were plotted at 0 on the log axis, so each line fell as a vertical stroke from B200 to nothing and the L4 and
    RTX 4090 rows showed no mark. They now break the line and are marked at the axis' foot; and a line missing a row
    (a value refused as input) keeps its points under their own GPU's tick, where each line counted 0..n-1."""
    import math

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kvplan.render import plot_sweep

    rows = [{"gpu": "L4", "model": "a", "max_concurrency": 0.0, "fits": False},
            {"gpu": "H100", "model": "a", "max_concurrency": 1.1, "fits": True},
            {"gpu": "B200", "model": "a", "max_concurrency": 30.0, "fits": True},
            {"gpu": "L4", "model": "b", "error_input": "bad"},
            {"gpu": "H100", "model": "b", "max_concurrency": 5.0, "fits": True},
            {"gpu": "B200", "model": "b", "max_concurrency": 40.0, "fits": True}]
    seen = {}
    monkeypatch.setattr(plt, "close", lambda fig: seen.setdefault("ax", fig.axes[0]))
    plot_sweep(rows, ["gpu", "model"], str(tmp_path / "s.png"))
    ax = seen["ax"]
    assert ax.get_yscale() == "log"
    a, b = ax.get_lines()[:2]
    assert list(a.get_xdata()) == [0, 1, 2] and math.isnan(a.get_ydata()[0]) and list(a.get_ydata()[1:]) == [1.1, 30.0]
    assert list(b.get_xdata()) == [1, 2]  # under H100 and B200, not under L4 and H100
    assert [t.get_text() for t in ax.get_xticklabels()] == ["L4", "H100", "B200"]
    assert "x: no KV pool" in ax.get_title()


def test_a_quantization_sweep_takes_none_for_the_checkpoints_own(monkeypatch, capsys):
    """--vary quantization=none,fp8 (bf16 against online FP8) refused the 'none' row as an unknown method whose fix,
    'drop --quantization', a sweep row cannot take: the comparison could not be made in one sweep."""
    import json

    from cli_runner import run_cli

    code, out, err = run_cli(monkeypatch, capsys, "sweep", "Qwen/Qwen3-32B", "--gpu", "H100", "--max-model-len", "32768",
                             "--vary", "quantization=none,fp8", "--json")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    assert [r["quantization"] for r in rows] == ["none", "fp8"] and not any(r.get("error_input") for r in rows)
    plain = kvplan.fit("Qwen/Qwen3-32B", "H100", max_model_len=32768, fixes=False)
    assert rows[0]["kv_cache_tokens"] == plain.kv_cache_tokens and rows[1]["kv_cache_tokens"] > plain.kv_cache_tokens


def test_the_latency_cdfs_read_as_plain_milliseconds_and_show_the_slo(tmp_path, monkeypatch, capsys):
    """simulate --plot --slo ttft=1s,tpot=50ms: the TTFT axis (15-500 ms) printed matplotlib's minor labels
    '2x10^1 3x10^1 4x10^1 6x10^1' on top of each other, the TPOT axis (15-50 ms) had no power of ten in view, and
    neither CDF showed the objective the goodput line checks."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from cli_runner import run_cli

    figs = []
    monkeypatch.setattr(plt, "close", lambda fig: figs.append(fig))
    code, out, err = run_cli(monkeypatch, capsys, "simulate", "Qwen/Qwen3-32B-FP8", "--gpu", "H100", "--max-model-len", "32768",
                             "-w", "azure-conv", "--rate", "4", "-n", "600", "--slo", "ttft=1s,tpot=50ms", "--plot", str(tmp_path))
    assert code == 0, err
    axes = figs[-1].axes
    figs[-1].canvas.draw()
    for ax, slo in zip(axes, ("SLO TTFT <= 1,000 ms", "SLO TPOT <= 50 ms", None)):
        labels = [t.get_text() for t in ax.get_xticklabels(minor=True) + ax.get_xticklabels() if t.get_text()]
        lo, hi = ax.get_xlim()
        assert labels and not any("times" in t or "^" in t for t in labels), labels
        assert all(float(t.replace(",", "")) > 0 for t in labels)
        legend = ax.get_legend()
        assert (slo is None and legend is None) or slo in [t.get_text() for t in legend.get_texts()]


def test_simulate_and_capacity_print_the_worst_case_concurrency_as_fit_does(monkeypatch, capsys):
    """fit said 'concurrency 4.68x at 32,768 tokens per request' (Qwen3-32B-FP8 on an H100), simulate 'worst case
    (pool / max_model_len) 4.7' and capacity '... every request max_model_len long: 4.7)': one figure, pasted twice
    into a design doc, read as two."""
    from cli_runner import run_cli

    p = kvplan.fit("Qwen/Qwen3-32B-FP8", "H100", max_model_len=32768, fixes=False)
    fit_text = f"{p.max_concurrency:.2f}x"
    # 4.62x: 36.93 GiB of pool (0.84 GiB of CUDA graphs, model runner v2's 0.25 MiB x 64 layers x 51 sizes + 49 x 1 MiB;
    # 4.68x at 0.28 GiB before)
    assert fit_text == "4.62x"
    common = ("Qwen/Qwen3-32B-FP8", "--gpu", "H100", "--max-model-len", "32768", "-w", "azure-conv", "-n", "300")
    code, out, err = run_cli(monkeypatch, capsys, "simulate", *common, "--rate", "4")
    assert code == 0, err
    import re

    assert re.search(r"worst case \(pool / max_model_len\)\s*│\s*4\.62x\s*│", out), out
    code, out, err = run_cli(monkeypatch, capsys, "capacity", *common, "--slo", "ttft=1s,tpot=50ms")
    assert code == 0, err
    assert f"every request max_model_len long: {fit_text})" in " ".join(out.split()), out


def test_capacity_does_not_offer_a_length_this_pool_cannot_start_at_as_the_fix(monkeypatch, capsys):
    """capacity Qwen3-32B-FP8 on an L40S at 16,384 with lognormal:2000,0.95 prompts: 'fix: raise max_model_len to at
    least 37,114' on a card whose pool holds one request of ~28k tokens, where vLLM's startup check refuses that
    length. (With lognormal:2000,1 the longest, 43,213 tokens, is over the model's 40,960: that fix names the limit,
    tests/test_buyer_pass.py.)"""
    from cli_runner import run_cli

    code, out, err = run_cli(monkeypatch, capsys, "capacity", "Qwen/Qwen3-32B-FP8", "--gpu", "L40S", "--max-model-len", "16384",
                             "--prompt-len", "lognormal:2000,0.95", "--completion-len", "constant:300", "-n", "1000",
                             "--slo", "ttft=2s,tpot=60ms")
    text = " ".join(out.split())
    assert "raise max_model_len to at least 37,114 (the workload's longest prompt + output) on a larger GPU or tensor-parallel size: " \
           "one request that long needs 2,320 KV blocks and this pool has 1,794" in text, text
    # where the pool holds it, the fix stays the flag alone
    code, out, err = run_cli(monkeypatch, capsys, "capacity", "Qwen/Qwen3-32B-FP8", "--gpu", "H100", "--max-model-len", "16384",
                             "--prompt-len", "lognormal:2000,0.95", "--completion-len", "constant:300", "-n", "1000",
                             "--slo", "ttft=2s,tpot=60ms")
    text = " ".join(out.split())
    assert "(the workload's longest prompt + output), or judge" in text and "larger GPU" not in text, text


def test_gpu_auto_with_a_length_over_the_models_limit_names_the_length(monkeypatch, capsys):
    """fit Qwen3-32B-FP8 --gpu auto --max-model-len 43213 (a workload's longest request, as capacity's fix named it)
    said 'no catalog GPU with TP up to 8 fits this plan': every card's plan was refused as input for the model's
    40,960-token limit, and the search dropped that refusal. A model no card holds still gets the GPU answer."""
    from cli_runner import refused

    text = refused(monkeypatch, capsys, "--max-model-len", "fit", "Qwen/Qwen3-32B-FP8", "--gpu", "auto", "--max-model-len", "43213")
    assert "max_position_embeddings=40960" in text and "no catalog GPU" not in text
    text = refused(monkeypatch, capsys, "--gpu", "fit", "Qwen/Qwen3.8-2.4T-A95B", "--gpu", "auto", "--max-model-len", "8192")
    assert "no catalog GPU with TP up to 8 fits this plan" in text


def test_the_sweep_plot_names_what_every_row_shares(tmp_path, monkeypatch):
    """A sweep figure pasted alone named neither the model, the GPU nor the length: over GPUs, 'full-length requests'
    did not say how long; over lengths, not on which card. The title now carries what every row shares, and the
    length axis its unit."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kvplan.render import plot_sweep

    rows = [{"gpu": g, "model": "Qwen/Qwen3-32B-FP8", "max_model_len": 32768, "kv_cache_dtype": "auto",
             "max_concurrency": c, "fits": True} for g, c in (("H100", 4.7), ("H200", 11.6))]
    seen = {}
    monkeypatch.setattr(plt, "close", lambda fig: seen.setdefault("ax", fig.axes[0]))
    plot_sweep(rows, ["gpu"], str(tmp_path / "s.png"))
    assert "Qwen/Qwen3-32B-FP8 · max_model_len 32,768 · kv_cache_dtype auto" in seen["ax"].get_title()
    seen.clear()
    rows = [{"gpu": "NVIDIA H100 80GB SXM5", "model": "m", "max_model_len": n, "max_concurrency": 8.0 * 4096 / n, "fits": True}
            for n in (4096, 8192)]
    plot_sweep(rows, ["max_model_len"], str(tmp_path / "s.png"))
    assert "m · NVIDIA H100 80GB SXM5" in seen["ax"].get_title() and "max_model_len 4" not in seen["ax"].get_title()
    assert seen["ax"].get_xlabel() == "max_model_len (tokens)"


def test_on_several_gpus_the_fit_card_says_the_pool_is_each_ranks(monkeypatch, capsys):
    """fit Qwen2.5-72B-Instruct-AWQ on 2 x H100 printed 'KV cache 48.09 GiB' beside 'tokens 315,136' (the engine's):
    the pool read as the server's, which holds 2 x 48.09 GiB; 'requested 72.88 GiB' likewise. One GPU is unchanged."""
    from cli_runner import run_cli

    code, out, err = run_cli(monkeypatch, capsys, "fit", "Qwen/Qwen2.5-72B-Instruct-AWQ", "--gpu", "H100", "-tp", "2",
                             "--max-model-len", "32768")
    assert code == 0, err
    text = " ".join(out.split())
    assert "requested 72.88 GiB = 79.22 × 0.92 per GPU" in text and "KV cache 47.34 GiB per rank" in text, text
    code, out, err = run_cli(monkeypatch, capsys, "fit", "Qwen/Qwen3-32B-FP8", "--gpu", "H100", "--max-model-len", "32768")
    text = " ".join(out.split())
    assert "requested 72.88 GiB = 79.22 × 0.92 │" in text and "KV cache 36.93 GiB (a first" in text, text


def test_a_sweep_over_tensor_parallel_sizes_says_its_pool_column_is_per_rank(monkeypatch, capsys):
    """--vary tensor_parallel_size=1,2,4 (Qwen2.5-72B-Instruct-AWQ on L40S): 'KV GiB 20.22 -> 29.91' beside
    'tokens 132,528 -> 392,000' read as one server's pool growing 1.5x for 3x the tokens; each rank holds that pool."""
    import json

    from cli_runner import run_cli

    monkeypatch.setenv("COLUMNS", "120")
    args = ("sweep", "Qwen/Qwen2.5-72B-Instruct-AWQ", "--gpu", "L40S", "--max-model-len", "32768")
    code, out, err = run_cli(monkeypatch, capsys, *args, "--vary", "tensor_parallel_size=1,2,4")
    assert "KV GiB per rank" in out, out
    code, out, err = run_cli(monkeypatch, capsys, *args, "--vary", "tensor_parallel_size=1,2,4", "--json")
    rows = json.loads(out)["rows"]
    assert rows[2]["kv_cache_tokens"] > 2.9 * rows[1]["kv_cache_tokens"] and rows[2]["kv_cache_bytes"] < 1.6 * rows[1]["kv_cache_bytes"]
    code, out, err = run_cli(monkeypatch, capsys, "sweep", "Qwen/Qwen3-8B", "--gpu", "L4", "--vary", "max_model_len=4096,8192")
    assert "KV GiB" in out and "per rank" not in out  # one GPU: unchanged


def test_capacity_prints_its_rate_rounded_down():
    # 5.6292 req/s was printed 5.63, a rate above the one the search found within the SLO
    from kvplan.simulate import rate_down

    assert rate_down(5.6292) == "5.62" and rate_down(5.6299) == "5.62" and rate_down(5.62) == "5.62"
    # three significant figures (0.0071, not 0.007): a target's replicas are divided by it
    assert rate_down(0.0071) == "0.0071" and rate_down(12.0) == "12.00" and rate_down(0.29) == "0.29"
    # the web page's capacity printed 0.1066 req/s as toFixed(2)'s 0.11, a rate the search did not find within the SLO
    assert rate_down(0.1066) == "0.106" and rate_down(0.1066, 4) == "0.1066" and rate_down(0.0499999) == "0.0499"


def test_a_workload_refused_on_both_limits_says_how_many_fail_which(monkeypatch, capsys):
    # it said every request needs more KV cache than the pool "or exceeds max_model_len" where none was over the length,
    # and named no --max-model-len where some were
    from cli_runner import run_cli

    common = ["simulate", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "T4", "--max-model-len", "4096", "--completion-len",
              "constant:100", "--num-gpu-blocks", "10", "--rate", "1"]
    code, out, err = run_cli(monkeypatch, capsys, *common, "--prompt-len", "constant:3000", "-n", "5")
    assert code == 2 and "5 need more KV cache than the whole pool" in err and "longer than max_model_len" not in err
    code, out, err = run_cli(monkeypatch, capsys, *common, "--prompt-len", "uniform:3000,6000", "-n", "20")
    assert code == 2 and "are longer than max_model_len 4,096" in err and "--max-model-len of at least" in err
