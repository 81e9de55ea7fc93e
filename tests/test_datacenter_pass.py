"""A new user's pass as a platform engineer planning multi-GPU datacenter deployments (8 x H100 / H200 nodes, TP8,
TP8 x PP2 over two nodes). Each test is a finding that read wrong before its fix."""

from __future__ import annotations


def test_the_fit_card_says_the_blocks_bytes_are_each_ranks(monkeypatch, capsys):
    """fit DeepSeek-R1 on TP 8 x PP 2 printed 'blocks 97,594 × 276,480 B' beside 'KV cache 25.13 GiB per rank': the
    block's bytes are one rank's share of the layers and heads (the pool is 97,594 x 276,480 B on each GPU)."""
    from cli_runner import run_cli

    monkeypatch.setenv("COLUMNS", "120")
    code, out, err = run_cli(monkeypatch, capsys, "fit", "deepseek-ai/DeepSeek-R1", "--gpu", "H100", "-tp", "8", "-pp", "2",
                             "--max-model-len", "131072", "--kv-cache-dtype", "fp8")
    assert code == 0, err
    text = " ".join(out.split())
    assert "blocks 97,594 × 276,480 B per rank (1 KV group(s))" in text, text
    code, out, err = run_cli(monkeypatch, capsys, "fit", "Qwen/Qwen3-8B", "--gpu", "H100", "--max-model-len", "32768")
    assert "B per rank (1 KV" not in " ".join(out.split())  # one GPU: unchanged
