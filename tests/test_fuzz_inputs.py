"""Hostile inputs meet a one-line error naming the field and the fix (exit 2), never a traceback or a run that does
not end: workload files that are not tables, config numbers that are not numbers, engine numbers past any float,
names the Hub would refuse, rates whose arrivals span centuries, and arguments that name nothing."""

from __future__ import annotations

import copy
import gzip
import json
import time

import pytest

from cli_runner import hub_offline, refused, run_cli
from nested import set_nested
from kvplan.errors import OfflineError
from kvplan.resolve import model_catalog

M = "Qwen/Qwen2.5-0.5B-Instruct"
SIM = ["simulate", M, "--gpu", "L4", "--max-model-len", "4096"]


def cli(monkeypatch, capsys, *args: str) -> tuple[int, str]:
    """(exit code, stdout + stderr) of the console script, run in this process as `kvplan ARGS` runs it."""
    code, out, err = run_cli(monkeypatch, capsys, *args)
    return code, out + err




@pytest.fixture()
def offline(monkeypatch, tmp_path):
    hub_offline(monkeypatch, tmp_path)


# ------------------------------------------------------------------ workload files


@pytest.mark.parametrize("name,content,says", [
    ("array.jsonl", b"[1, 2, 3]\n", "is a JSON list, not an object"),
    ("scalars.jsonl", b'"hello"\n42\n', "is a JSON str, not an object"),
    ("binary.csv", bytes(range(256)) * 8, "is not text"),
    ("bad.csv.gz", b"\x1f\x8b\x08\x00not a deflate stream" * 4, "damaged gzip"),
    ("cut.jsonl.gz", gzip.compress(b'{"prompt_tokens": 10, "completion_tokens": 5}\n' * 200)[:60], "damaged gzip"),
    ("nul.csv", b"prompt_tokens,completion_tokens\n1\x00,2\n", "request 1 has '1\\x00' in prompt_tokens, not a token count"),
    ("hashes.csv", b"prompt_tokens,completion_tokens,block_hashes\n10,5,1 two 3\n", "block_hashes"),
])
def test_a_workload_that_is_not_a_table_of_requests_names_workload(monkeypatch, capsys, tmp_path, name, content, says):
    path = tmp_path / name
    path.write_bytes(content)
    out = refused(monkeypatch, capsys, "--workload", *SIM, "--workload", str(path), "--rate", "2", "-n", "20")
    assert says in " ".join(out.split())


def test_a_workload_in_utf16_or_gzip_by_its_magic_bytes_is_read(monkeypatch, capsys, tmp_path):
    rows = "prompt_tokens,completion_tokens\n" + "120,30\n" * 40
    (tmp_path / "w16.csv").write_bytes(rows.encode("utf-16"))
    (tmp_path / "wgz.csv").write_bytes(gzip.compress(rows.encode()))  # gzip whatever the name says
    for name in ("w16.csv", "wgz.csv"):
        code, out = cli(monkeypatch, capsys, *SIM, "--workload", str(tmp_path / name), "--rate", "2", "--json")
        assert code == 0, out
        d = json.loads(out[out.index("{"):])
        assert d["requests_total"] == 40 and d["workload_summary"]["prompt_tokens"]["mean"] == 120


# ------------------------------------------------------------------ engine and config numbers


@pytest.mark.parametrize("value", ['{"image": 1e309}', '{"image": NaN}', '{"image": 2.5}', "image=1e309",
                                   '{"image": {"count": Infinity}}'])
def test_limit_mm_per_prompt_counts_must_be_whole_numbers(monkeypatch, capsys, value):
    out = refused(monkeypatch, capsys, "--limit-mm-per-prompt", "fit", "Qwen/Qwen3-VL-2B-Instruct", "--gpu", "L4",
                  "--limit-mm-per-prompt", value)
    assert "whole number" in out


@pytest.mark.parametrize("flag", ["-pp", "-tp", "--max-num-seqs"])
def test_an_integer_flag_past_any_integer_is_refused_by_name(monkeypatch, capsys, flag):
    code, out = cli(monkeypatch, capsys, "fit", M, "--gpu", "L4", flag, "1e23")
    assert code == 2 and "Traceback" not in out and "internal error" not in out


# ------------------------------------------------------------------ model names and the Hub


def test_hub_errors_start_with_the_field_they_are_about():
    assert str(OfflineError("cannot reach the Hub for a/b", "use a catalog id")).startswith("model: cannot reach")


def test_an_uncached_hub_id_offline_says_model(monkeypatch, capsys, offline):
    code, out = cli(monkeypatch, capsys, "fit", "acme/not-cached", "--gpu", "L4")
    # exit 2 (input this command cannot use), never 1, which says "does not fit"
    assert code == 2 and "error: model: cannot reach the Hugging Face Hub" in " ".join(out.split())


@pytest.mark.parametrize("ref", ["Qwen/Qwen2.5 0.5B-Instruct", "Qwen/Qwen2.5-0.5B-Instruct!", "Ω/模型", "qwen/--x",
                                 "a/" + "b" * 97])
def test_a_name_the_hub_would_refuse_is_an_unknown_model_never_sent_to_it(monkeypatch, capsys, offline, ref):
    out = " ".join(refused(monkeypatch, capsys, "model", "fit", ref, "--gpu", "L4").split())
    assert "unknown model" in out
    if ref.startswith("Qwen/"):
        assert "nearest catalog ids: Qwen/Qwen2.5-0.5B-Instruct" in out


@pytest.mark.parametrize("command", [["fit"], ["preflight"], ["scaffold", "DIR"], ["sweep"]])
def test_an_empty_model_is_refused_not_read_as_the_default(monkeypatch, capsys, tmp_path, command):
    args = [tmp_path / "deploy" if a == "DIR" else a for a in command]
    extra = ["--vary", "max_model_len=1024,2048"] if command == ["sweep"] else []
    out = refused(monkeypatch, capsys, "model", *map(str, args), "", "--gpu", "L4", *extra)
    assert "names no model" in out
    assert not (tmp_path / "deploy").exists()


# ------------------------------------------------------------------ rates


@pytest.mark.parametrize("args", [["--workload", "azure-conv", "-n", "100"],
                                  ["--prompt-len", "constant:100", "--completion-len", "constant:10", "-n", "100"]])
def test_a_rate_whose_arrivals_span_centuries_is_refused_at_once(monkeypatch, capsys, args):
    start = time.perf_counter()
    out = refused(monkeypatch, capsys, "--rate", *SIM, *args, "--rate", "1e-300")
    assert time.perf_counter() - start < 20
    assert "span" in out and "a rate of at least 9.9e-06 req/s" in " ".join(out.split())


def test_the_slowest_rate_allowed_still_simulates(monkeypatch, capsys):
    code, out = cli(monkeypatch, capsys, *SIM, "--workload", "azure-conv", "-n", "100", "--rate", "1e-5", "--json")
    assert code == 0, out


def test_a_target_rate_that_low_is_refused_before_the_search(monkeypatch, capsys):
    start = time.perf_counter()
    refused(monkeypatch, capsys, "--target-rate", "capacity", M, "--gpu", "L4", "--max-model-len", "4096",
            "--workload", "azure-conv", "-n", "100", "--target-rate", "1e-300")
    assert time.perf_counter() - start < 20


# ------------------------------------------------------------------ arguments that name nothing


def test_reconcile_refuses_plan_flags_without_a_model(monkeypatch, capsys):
    log = "tests/data/dp2_engine_core_n_v0101.log"
    out = refused(monkeypatch, capsys, "--gpu", "reconcile", log, "--gpu", "L4")
    assert "pass MODEL after LOGFILE" in " ".join(out.split())
    code, _ = cli(monkeypatch, capsys, "reconcile", log, "--json")  # the log alone is still read
    assert code == 0


@pytest.mark.parametrize("host", ["", "  ", " 127.0.0.1"])
def test_web_refuses_an_empty_host(monkeypatch, capsys, host):
    pytest.importorskip("uvicorn")
    refused(monkeypatch, capsys, "--host", "web", "--host", host, "--port", "18731")


def _config_with(model_id: str, path: str, value) -> dict:
    config = copy.deepcopy(model_catalog()[model_id]["config"])
    set_nested(config, path.split("."), value)
    return config


@pytest.mark.parametrize("model_id,path,value", [
    ("Qwen/Qwen2.5-72B-Instruct-AWQ", "quantization_config.bits", "four"),
    ("Qwen/Qwen2.5-72B-Instruct-AWQ", "quantization_config.group_size", float("inf")),
    ("Qwen/Qwen2.5-72B-Instruct-AWQ", "quantization_config.modules_to_not_convert", 3),
    ("meta-llama/Llama-3.1-8B-Instruct", "rope_scaling.factor", None),
    ("meta-llama/Llama-3.1-8B-Instruct", "rope_scaling.original_max_position_embeddings", float("nan")),
    ("meta-llama/Llama-3.1-8B-Instruct", "num_hidden_layers", 10 ** 30),
    ("meta-llama/Llama-3.1-8B-Instruct", "architectures", 7),
    ("deepseek-ai/DeepSeek-V2-Lite", "kv_lora_rank", "four"),
    ("deepseek-ai/DeepSeek-V2-Lite", "qk_rope_head_dim", 1.5),
    ("ibm-granite/granite-4.0-h-tiny", "mamba_n_heads", 0),
    ("Qwen/Qwen3-VL-2B-Instruct", "vision_config.patch_size", -1),
    ("Qwen/Qwen3-VL-2B-Instruct", "vision_config.deepstack_visual_indexes", 5),
])
def test_a_config_number_that_is_not_one_is_refused_naming_its_key(monkeypatch, capsys, tmp_path, model_id, path, value):
    folder = tmp_path / "ckpt"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(_config_with(model_id, path, value)))  # inf and NaN as Python writes them
    out = refused(monkeypatch, capsys, path, "fit", str(folder / "config.json"), "--gpu", "H100", "--max-model-len", "2048")
    assert "fix the config.json" in out


def test_every_catalog_config_passes_the_value_check():
    from kvplan.resolve import check_config_values

    for entry in model_catalog().values():
        check_config_values(entry["config"])
        check_config_values(entry.get("resolved_config") or {})


@pytest.mark.parametrize("flag", ["--gpu-gib", "--gpu-gb", "--cpu-offload-gb", "--overhead-gb"])
def test_a_memory_size_past_any_machine_is_refused_before_its_bytes_overflow(monkeypatch, capsys, flag):
    gpu = [] if flag.startswith("--gpu-g") else ["--gpu", "L4"]
    out = refused(monkeypatch, capsys, flag, "fit", M, *gpu, flag, "1e308")
    assert "(at most 1," in out  # the largest size taken, in the flag's unit


def test_more_pipeline_stages_than_layers_are_refused(monkeypatch, capsys):
    out = refused(monkeypatch, capsys, "--pipeline-parallel-size", "fit", M, "--gpu", "L4", "-pp", "99999999999999999999999999")
    assert "at most 65,536" in out  # past any deployment's GPU count: refused before the layers are counted
    out = refused(monkeypatch, capsys, "--pipeline-parallel-size", "fit", M, "--gpu", "L4", "-pp", "25")
    assert "at most 24" in out
    code, _ = cli(monkeypatch, capsys, "fit", M, "--gpu", "L4", "-pp", "24")
    assert code in (0, 1)


def test_a_record_whose_source_is_not_text_is_skipped_with_its_reason():
    from kvplan.validate import validate_records

    rec = json.loads(open("tests/data/calibration.jsonl").readline())
    (result,) = validate_records([{**rec, "source": 5}])
    assert result.skipped and "source: must be text" in result.skipped


# ------------------------------------------------------------------ the web API: 400 naming the key, never a 500


@pytest.fixture()
def web(tmp_path):
    pytest.importorskip("fastapi", reason="kvplan[web] is not installed")
    pytest.importorskip("httpx", reason="fastapi.testclient needs httpx")
    from fastapi.testclient import TestClient

    from kvplan.web.app import create_app

    return TestClient(create_app(upload_dir=str(tmp_path / "uploads")), raise_server_exceptions=False)


@pytest.mark.parametrize("body,field", [
    ({"gpu_gib": 1e308}, "--gpu-gib"),
    ({"cpu_offload_gb": 1e308, "gpu": "L4"}, "--cpu-offload-gb"),
    ({"pipeline_parallel_size": 10 ** 30, "gpu": "L4"}, "--pipeline-parallel-size"),
    ({"limit_mm_per_prompt": '{"image": 1e309}', "gpu": "L4"}, "--limit-mm-per-prompt"),
])
def test_web_plan_refuses_numbers_past_any_machine_with_a_400(web, body, field):
    r = web.post("/api/plan", json={"model": M, "curve": False, **body})
    assert r.status_code == 400, r.text
    assert r.json()["field"] == field


def test_web_config_upload_with_a_word_for_bits_is_a_400(web):
    config = _config_with("Qwen/Qwen2.5-72B-Instruct-AWQ", "quantization_config.bits", "four")
    r = web.post("/api/config", content=json.dumps(config), headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["field"] == "quantization_config.bits", r.text


def test_web_simulate_refuses_a_rate_that_low_at_once(web):
    start = time.perf_counter()
    r = web.post("/api/simulate", json={"model": M, "gpu": "L4", "max_model_len": 4096, "max_requests": 50,
                                        "rate_per_s": 1e-300})
    # under the request's key (rate_per_s), as every /api/simulate error names the key it concerns
    assert r.status_code == 400 and r.json()["field"] == "rate_per_s", r.text
    assert time.perf_counter() - start < 20


def test_simulating_more_engines_than_any_group_is_refused(monkeypatch, capsys):
    start = time.perf_counter()
    refused(monkeypatch, capsys, "--data-parallel-size", *SIM, "-dp", "99999999999999999999", "-w", "azure-conv", "-n", "50",
            "--rate", "2")
    assert time.perf_counter() - start < 20
    code, out = cli(monkeypatch, capsys, *SIM, "-dp", "2", "-w", "azure-conv", "-n", "50", "--rate", "2")
    assert code == 0, out


def test_an_error_with_square_brackets_is_printed_as_written():
    """Rich would read '[gguf]' in an error's fix as markup and drop it: the fix must reach the user whole."""
    import subprocess

    r = subprocess.run(["kvplan", "fit", "[model]/x"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "[model]/x" in r.stderr
