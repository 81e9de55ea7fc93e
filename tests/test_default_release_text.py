"""Where kvplan names the release a plan takes without --vllm-version: kvplan's default release
(versions.DEFAULT_RELEASE), which may be older than the newest release it reads (versions.NEWEST_READ), so no help text,
placeholder or caption calls the default 'the newest'."""
import re

import pytest

import kvplan
from kvplan.versions import DEFAULT_RELEASE, NEWEST_READ

from cli_runner import run_cli

SPLIT = DEFAULT_RELEASE != NEWEST_READ


@pytest.mark.parametrize("command", ["fit", "sweep", "preflight", "scaffold", "simulate", "capacity"])
def test_vllm_version_help_names_the_default_and_the_newest(monkeypatch, capsys, command):
    monkeypatch.setenv("COLUMNS", "250")
    code, out, _ = run_cli(monkeypatch, capsys, command, "--help")
    assert code == 0
    line = " ".join(re.search(r"--vllm-version.*?(?=│\s*\n│ --|╰)", out, re.S).group(0).replace("│", " ").split())
    assert f"default: {DEFAULT_RELEASE}" in line, line
    if SPLIT:
        assert "the newest kvplan knows" not in line, line
        assert f"--vllm-version {NEWEST_READ}" in line, line


def test_python_api_docstring_does_not_call_the_default_the_newest():
    doc = " ".join(kvplan.fit.__doc__.split())
    assert "default the newest kvplan knows" not in doc
    assert "DEFAULT_RELEASE" in doc


def test_validate_caption_names_the_default_release(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "250")
    code, out, _ = run_cli(monkeypatch, capsys, "validate", "tests/data/calibration.jsonl", "--no-rows")
    text = " ".join(out.split())
    assert "planned with the newest rules" not in text
    assert f"planned with the default release's rules ({DEFAULT_RELEASE})" in text


def test_web_page_placeholder_names_the_default_release(tmp_path):
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from kvplan.web.app import STATIC_DIR, create_app

    features = TestClient(create_app(upload_dir=str(tmp_path))).get("/api/features").json()
    assert features["default_vllm_version"] == DEFAULT_RELEASE
    assert NEWEST_READ in features["vllm_versions"]
    html = (STATIC_DIR / "index.html").read_text()
    assert 'placeholder="newest known"' not in html
    assert "features.default_vllm_version" in (STATIC_DIR / "app.js").read_text()


def test_gpu_memory_utilization_help_names_the_0_34_default(monkeypatch, capsys):
    """vLLM 0.34.0 defaults gpu_memory_utilization to 1.0 with its extensible KV cache (config/cache.py
    CacheConfig.resolved_gpu_memory_utilization); the help said only '0.90 before vLLM 0.20, 0.92 after'."""
    from kvplan.versions import rules_for

    monkeypatch.setenv("COLUMNS", "250")
    code, out, _ = run_cli(monkeypatch, capsys, "fit", "--help")
    line = " ".join(re.search(r"--gpu-memory-utilization.*?(?=│\s*\n│ --)", out, re.S).group(0).replace("│", " ").split())
    one = rules_for("0.34.0").extensible_gpu_memory_utilization
    assert f"from 0.34, {one:.1f} with its extensible KV cache" in line, line


def test_block_size_help_names_the_0_34_default(monkeypatch, capsys):
    """vLLM 0.34.0 asks every backend for 64-token blocks (CacheConfig.DEFAULT_BLOCK_SIZE; versions.py
    default_block_size); --block-size's help said only 'KV-cache block size in tokens.'"""
    from kvplan.versions import rules_for

    monkeypatch.setenv("COLUMNS", "250")
    _, out, _ = run_cli(monkeypatch, capsys, "fit", "--help")
    line = " ".join(re.search(r"--block-size.*?(?=│\s*\n│ --)", out, re.S).group(0).replace("│", " ").split())
    old, new = rules_for("0.33.0").default_block_size, rules_for("0.34.0").default_block_size
    assert f"{old} up to vLLM 0.33 and {new} from 0.34" in line, line


def test_sweep_help_shows_the_upgrade_to_the_newest_release_read(monkeypatch, capsys):
    """sweep's examples showed only --vary vllm_version=0.9.2,0.33.0: the comparison with the newest release read,
    whose pool sizing changed, was not discoverable from --help."""
    monkeypatch.setenv("COLUMNS", "250")
    _, out, _ = run_cli(monkeypatch, capsys, "sweep", "--help")
    assert re.search(rf"--vary vllm_version=[\d.]+,{re.escape(NEWEST_READ)}\b", out), out
