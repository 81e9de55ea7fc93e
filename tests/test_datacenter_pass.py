"""A new user's pass as a platform engineer planning multi-GPU datacenter deployments (8 x H100 / H200 nodes, TP8,
TP8 x PP2 over two nodes). Each test is a finding that read wrong before its fix."""

from __future__ import annotations

from pathlib import Path


def test_the_fit_card_says_the_blocks_bytes_are_each_ranks(monkeypatch, capsys):
    """fit DeepSeek-R1 on TP 8 x PP 2 printed 'blocks 97,594 × 276,480 B' beside 'KV cache 25.13 GiB per rank': the
    block's bytes are one rank's share of the layers and heads (the pool is 95,619 x 276,480 B on each GPU; 97,594 before model runner v2's graph estimate grew with layers x sizes)."""
    from cli_runner import run_cli

    monkeypatch.setenv("COLUMNS", "120")
    code, out, err = run_cli(monkeypatch, capsys, "fit", "deepseek-ai/DeepSeek-R1", "--gpu", "H100", "-tp", "8", "-pp", "2",
                             "--max-model-len", "131072", "--kv-cache-dtype", "fp8")
    assert code == 0, err
    text = " ".join(out.split())
    assert "blocks 95,619 × 276,480 B per rank (1 KV group(s))" in text, text
    code, out, err = run_cli(monkeypatch, capsys, "fit", "Qwen/Qwen3-8B", "--gpu", "H100", "--max-model-len", "32768")
    assert "B per rank (1 KV" not in " ".join(out.split())  # one GPU: unchanged


def test_capacity_replicas_say_their_gpus_and_simulate_calls_dp_engines_engines(monkeypatch, capsys):
    """capacity at TP 4 x DP 2 said 'capacity ... per replica of 2 data-parallel engines' then 'target 40 req/s: 4
    replicas' without the 8 GPUs each replica takes, while simulate of the same flags said 'note: 2 replicas, vllm-dp
    router': the one server's two DP engines called replicas, the word capacity uses for whole servers."""
    from cli_runner import run_cli

    monkeypatch.setenv("COLUMNS", "200")
    flags = ("meta-llama/Llama-3.1-70B", "--gpu", "H100", "-tp", "4", "-dp", "2", "--max-model-len", "32768",
             "--workload", "azure-conv", "-n", "400")
    code, out, err = run_cli(monkeypatch, capsys, "capacity", *flags, "--slo", "ttft=2s,tpot=50ms", "--target-rate", "40")
    assert code == 0, err
    line = next(ln for ln in out.splitlines() if ln.startswith("target 40 req/s"))
    n = int(line.split(": ")[1].split()[0])
    assert f"{n} replicas of 8 GPUs each ({8 * n} GPUs)" in line, line
    code, out, err = run_cli(monkeypatch, capsys, "simulate", *flags, "--rate", "4")
    text = " ".join((out + err).split())
    assert "2 data-parallel engines of one server, vllm-dp router; time series and concurrency are engine 0's" in text
    assert "2 replicas, vllm-dp" not in text


def test_reconcile_title_says_tokens_and_concurrency_are_the_servers(monkeypatch, capsys, tmp_path):
    """reconcile of a Qwen3-235B-A22B-FP8 TP 4 start (vLLM issue #21348) titled its table 'Startup, term by term (per
    rank)' over 'kv_cache_tokens 178,880', the server's figure (vLLM logs the tokens per engine)."""
    from cli_runner import run_cli

    monkeypatch.setenv("COLUMNS", "200")
    log = tmp_path / "tp4.log"
    log.write_text("Available KV cache memory: 8.11 GiB\nGPU KV cache size: 178,880 tokens\n")
    code, out, err = run_cli(monkeypatch, capsys, "reconcile", str(log), "Qwen/Qwen3-235B-A22B-FP8", "--gpu", "H100", "-tp", "4")
    assert code == 0, err
    text = " ".join(out.split())
    assert "(GiB and blocks per rank; tokens and concurrency the server's)" in text and "(per rank)" not in text
    code, out, err = run_cli(monkeypatch, capsys, "reconcile",
                             str(Path(__file__).parent / "data" / "dp2_engine_core_n_v0101.log"))
    assert "tokens and concurrency per engine)" in " ".join(out.split())  # data parallel: each engine logs its own


def test_gpu_auto_searches_within_the_gpus_given(monkeypatch, capsys):
    """fit Llama-3.1-70B --gpu auto --num-gpus 2 answered 'error: --num-gpus: tensor x pipeline x data parallel = 8
    ranks but only 2 GPU(s)': the search chose TP 8 the user never asked for, then refused it against their budget."""
    from cli_runner import run_cli

    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = run_cli(monkeypatch, capsys, "fit", "meta-llama/Llama-3.1-70B", "--gpu", "auto", "--num-gpus", "2",
                             "--max-model-len", "32768", "--json")
    assert code == 0, err
    import json

    d = json.loads(out)
    assert d["fits"] and d["gpus_used"] <= 2, d["gpus_used"]
    code, out, err = run_cli(monkeypatch, capsys, "fit", "deepseek-ai/DeepSeek-R1", "--gpu", "auto", "--num-gpus", "1",
                             "--max-model-len", "32768")
    assert code == 2
    assert "no catalog GPU with TP up to 1 (--num-gpus 1) fits this plan" in " ".join((out + err).split())


def test_a_model_too_large_for_one_node_is_offered_tp_within_nodes_and_pp_across():
    """DeepSeek-V3 on 8 x H100 (weights 79.55 GiB per rank) was offered '--tensor-parallel-size 16' alone, one TP group
    over two nodes, where vLLM's multi-node layout (and kvplan scaffold's LeaderWorkerSet) is TP 8 x PP 2."""
    import kvplan

    p = kvplan.fit("deepseek-ai/DeepSeek-V3", "H100", tensor_parallel_size=8, max_model_len=32768)
    assert not p.fits
    fix = next(f for f in p.fixes if "pipeline" in f.name)
    assert fix.flags == {"tensor_parallel_size": 8, "pipeline_parallel_size": 2} and fix.fits
    assert "2 nodes of 8, TP 8 within each node and PP 2 across them" in fix.effect
    q = kvplan.fit("deepseek-ai/DeepSeek-V3", "H100", max_model_len=32768, **fix.flags)
    assert q.fits and f"{q.kv_cache_tokens:,} tokens" in fix.effect
    assert not any(f.flags.get("tensor_parallel_size") == 16 for f in p.fixes)
    # within one node the TP fix is unchanged
    small = kvplan.fit("meta-llama/Llama-3.1-70B", "H100", tensor_parallel_size=1, max_model_len=32768)
    assert any(f.name == "tensor parallel 2" or f.name == "tensor parallel 4" for f in small.fixes), [f.name for f in small.fixes]


def test_scaffold_weights_comment_counts_the_experts_over_every_dp_rank():
    """scaffold Qwen3-30B-A3B -tp 2 -dp 4 --enable-expert-parallel wrote '# weights split 2 ways: 8.21 GiB per GPU' for a
    56.87 GiB checkpoint (2 ways would be 28 GiB): the experts are spread over all 8 TP x DP ranks."""
    import kvplan
    from kvplan.deploy import render_files, spec_from_plan

    p = kvplan.fit("Qwen/Qwen3-30B-A3B", "H100", tensor_parallel_size=2, data_parallel_size=4, enable_expert_parallel=True,
                   max_model_len=32768)
    sh = render_files(spec_from_plan(p))["serve.sh"]
    assert "# weights split 2 ways; the experts over all 8 TP x DP ranks: 8.21 GiB per GPU" in sh
    dense = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", data_parallel_size=2, max_model_len=32768)
    assert "of weights fit on one GPU" in render_files(spec_from_plan(dense))["serve.sh"]  # no experts: unchanged


def test_tensor_parallel_fix_on_a_one_per_machine_gpu_says_machines():
    # a Jetson module or a laptop's GPU comes one to a machine: the fix read 'on 4 x NVIDIA Jetson Orin NX 16GB', as
    # if four modules sat in one host; it is a multi-node server over the network
    import kvplan

    p = kvplan.fit("Qwen/Qwen3-8B", "Jetson Orin NX 16GB")
    tp = [f for f in p.fixes if f.flags.get("tensor_parallel_size")]
    assert tp and " x NVIDIA Jetson" not in tp[0].effect
    assert "machines with one NVIDIA Jetson Orin NX 16GB each" in tp[0].effect
    q = kvplan.fit("Qwen/Qwen3-32B", "L4")  # a card of which a host holds several: unchanged
    assert any(" x NVIDIA L4" in f.effect for f in q.fixes if f.flags.get("tensor_parallel_size"))
