"""--load-format (vLLM's LoadConfig.load_format): the loader that reads the weights. Every loader fills the same
tensors, so the figures are those without it; vLLM refuses a value its release does not take (argparse's choices to
0.10.0, get_model_loader from 0.10.1), bitsandbytes without its quantization (and that quantization with another
format before 0.8.2), and gguf on a model that is no GGUF file."""
from __future__ import annotations

import json

import pytest

import kvplan
from named_records import first_record, planned_with
from kvplan.cli import FitFlags
from kvplan.deploy import render_files, spec_from_plan
from kvplan.errors import RefusedByVLLMError
from kvplan.logs import parse_lines
from kvplan.reconcile import plan_from_log
from kvplan.validate import ARG_FIELDS, ARGS_NOT_MODELLED, predict_record
from kvplan.versions import load_formats_at

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
QWEN = "Qwen/Qwen2.5-1.5B-Instruct"
KW = dict(max_model_len=8192, fixes=False)
FIGURES = ("weights_bytes", "activation_peak_bytes", "non_torch_bytes", "cudagraph_bytes", "kv_cache_bytes",
           "num_gpu_blocks", "kv_cache_tokens", "max_concurrency")


@pytest.mark.parametrize("version, fmt, loader", [
    ("0.33.0", "safetensors", "DefaultModelLoader"), ("0.33.0", "dummy", "DummyModelLoader"),
    ("0.33.0", "fastsafetensors", "DefaultModelLoader"), ("0.33.0", "runai_streamer", "RunaiModelStreamerLoader"),
    ("0.7.3", "pt", "DefaultModelLoader"), ("0.11.0", "tensorizer", "TensorizerLoader"),
    ("0.18.0", "instanttensor", "DefaultModelLoader"), ("0.30.0", "ipc_cache", "IpcModelLoader")])
def test_every_figure_is_the_one_without_it_and_the_note_names_the_loader(version, fmt, loader):
    base = kvplan.fit(LLAMA, "H100", vllm_version=version, **KW)
    given = kvplan.fit(LLAMA, "H100", vllm_version=version, load_format=fmt, **KW)
    assert given.args.load_format == fmt and base.args.load_format is None
    for figure in FIGURES:
        assert getattr(given, figure) == getattr(base, figure), figure
    note = next(a for a in given.assumptions if a.startswith(f"--load-format {fmt}:"))
    assert loader in note and "planned as without it" in note
    assert not any(a.startswith("--load-format") for a in base.assumptions)


@pytest.mark.parametrize("version, taken, not_taken", [
    ("0.6.4", {"auto", "gguf", "bitsandbytes", "mistral"}, {"runai_streamer", "fastsafetensors", "hf"}),
    ("0.6.6.post1", {"runai_streamer"}, {"fastsafetensors"}),
    ("0.8.1", {"runai_streamer"}, {"fastsafetensors", "runai_streamer_sharded"}),
    ("0.8.2", {"fastsafetensors"}, {"runai_streamer_sharded"}),
    ("0.8.5", {"runai_streamer_sharded"}, {"hf"}),
    ("0.12.0", {"hf", "gguf"}, {"instanttensor"}),
    ("0.18.0", {"instanttensor"}, {"modelexpress"}),
    ("0.22.0", {"modelexpress", "gguf"}, {"ipc_cache"}),
    ("0.24.0", {"bitsandbytes"}, {"gguf"}),
    ("0.30.0", {"ipc_cache", "dummy"}, {"bitsandbytes", "gguf"}),
])
def test_the_values_each_release_takes(version, taken, not_taken):
    values = set(load_formats_at(kvplan.versions.parse_version(version)))
    assert taken <= values and not (not_taken & values)


@pytest.mark.parametrize("version, fmt, said", [
    ("0.33.0", "foo", "Load format `foo` is not supported"),
    ("0.30.0", "bitsandbytes", "Load format `bitsandbytes` is not supported"),
    ("0.24.0", "gguf", "Load format `gguf` is not supported"),
    ("0.8.1", "fastsafetensors", "argument --load-format: invalid choice: 'fastsafetensors' (choose from 'auto', 'pt'"),
    ("0.9.2", "Safetensors", "invalid choice: 'Safetensors'"),  # argparse's choices are case-sensitive
    ("0.17.0", "instanttensor", "Load format `instanttensor` is not supported"),
])
def test_a_value_the_release_does_not_take_is_refused_with_its_text(version, fmt, said):
    with pytest.raises(RefusedByVLLMError) as e:
        kvplan.fit(QWEN, "H100", vllm_version=version, load_format=fmt, **KW)
    assert e.value.field == "--load-format" and said in str(e.value) and e.value.rule == "load_format_value"


def test_from_0_10_1_the_value_is_lowercased():
    p = kvplan.fit(QWEN, "H100", vllm_version="0.11.0", load_format="SafeTensors", **KW)
    assert any(a.startswith("--load-format safetensors: DefaultModelLoader") for a in p.assumptions)


@pytest.mark.parametrize("version", ["0.6.4", "0.7.3", "0.8.1"])
def test_bitsandbytes_format_and_quantization_go_together_before_0_8_2(version):
    with pytest.raises(RefusedByVLLMError) as e:
        kvplan.fit(QWEN, "H100", vllm_version=version, load_format="bitsandbytes", **KW)
    assert ("BitsAndBytes load format and QLoRA adapter only support 'bitsandbytes' quantization, but got None"
            in str(e.value))
    with pytest.raises(RefusedByVLLMError) as e:
        kvplan.fit(QWEN, "H100", vllm_version=version, quantization="bitsandbytes", load_format="safetensors", **KW)
    assert ("BitsAndBytes quantization and QLoRA adapter only support 'bitsandbytes' load format, but got safetensors"
            in str(e.value))
    both = kvplan.fit(QWEN, "H100", vllm_version=version, quantization="bitsandbytes", load_format="bitsandbytes", **KW)
    alone = kvplan.fit(QWEN, "H100", vllm_version=version, quantization="bitsandbytes", **KW)
    for figure in FIGURES:
        assert getattr(both, figure) == getattr(alone, figure), figure
    # not given: the launch files write it, and the plan says so
    assert any("refuses it without --load-format bitsandbytes" in a for a in alone.assumptions)
    serve = render_files(spec_from_plan(alone))["serve.sh"]
    assert "--quantization bitsandbytes" in serve and "--load-format bitsandbytes" in serve


@pytest.mark.parametrize("version, said", [("0.8.2", "vllm currently does not support BNB quantization for"),
                                           ("0.20.0", "vLLM currently does not support BNB quantization for")])
def test_bitsandbytes_format_alone_from_0_8_2_finds_no_layer(version, said):
    with pytest.raises(RefusedByVLLMError) as e:
        kvplan.fit(QWEN, "H100", vllm_version=version, load_format="bitsandbytes", **KW)
    assert said in str(e.value) and e.value.rule == "bnb_load_format"
    # with the quantization vLLM sets the format itself: any format given is the same start
    bnb = kvplan.fit(QWEN, "H100", vllm_version=version, quantization="bitsandbytes", **KW)
    other = kvplan.fit(QWEN, "H100", vllm_version=version, quantization="bitsandbytes", load_format="safetensors", **KW)
    assert other.kv_cache_bytes == bnb.kv_cache_bytes and other.weights_bytes == bnb.weights_bytes
    assert any("sets the load format to bitsandbytes itself" in a for a in other.assumptions)
    assert "--load-format" not in render_files(spec_from_plan(bnb))["serve.sh"]


@pytest.mark.parametrize("version", ["0.8.2", "0.9.0", "0.20.0", "0.27.0"])
@pytest.mark.parametrize("model, method", [("Qwen/Qwen2.5-72B-Instruct-AWQ", "awq"), ("Qwen/Qwen3-32B-FP8", "fp8")])
def test_bitsandbytes_format_on_a_checkpoint_quantized_otherwise_is_refused_by_the_loader(version, model, method):
    # it was planned as a start: BitsAndBytesModelLoader refuses the checkpoint's own quant_method before any weight
    with pytest.raises(RefusedByVLLMError) as e:
        kvplan.fit(model, "H100", vllm_version=version, load_format="bitsandbytes", **KW)
    assert f'"BitsAndBytes loader does not support {method} quantization"' in e.value.message
    assert e.value.field == "--load-format" and e.value.rule == "bnb_load_format"
    kvplan.fit(model, "H100", vllm_version=version, **KW)  # without the flag it starts


@pytest.mark.parametrize("version, said", [
    ("0.9.2", "Qwen/Qwen2.5-1.5B-Instruct is not a file."),
    ("0.11.0", "Unrecognised GGUF reference: Qwen/Qwen2.5-1.5B-Instruct (expected local file, raw URL, or "),
    ("0.14.0", "(expected local file, raw URL, <repo_id>/<filename>.gguf, or <repo_id>:<quant_type>)"),
    ("0.23.0", "(expected local file, <repo_id>/<filename>.gguf, or <repo_id>:<quant_type>)")])
def test_gguf_format_on_a_model_that_is_no_gguf_file_is_refused(version, said):
    with pytest.raises(RefusedByVLLMError) as e:
        kvplan.fit(QWEN, "H100", vllm_version=version, load_format="gguf", **KW)
    assert said in str(e.value) and e.value.rule == "gguf_load_format"


def test_serve_sh_carries_the_flag():
    p = kvplan.fit(LLAMA, "H100", vllm_version="0.33.0", load_format="safetensors", **KW)
    assert "--load-format safetensors" in render_files(spec_from_plan(p))["serve.sh"]
    plain = kvplan.fit(LLAMA, "H100", vllm_version="0.33.0", **KW)
    assert "--load-format" not in render_files(spec_from_plan(plain))["serve.sh"]


def test_the_command_line_takes_it():
    from typer.testing import CliRunner

    from kvplan.cli import app
    res = CliRunner().invoke(app, ["fit", LLAMA, "--gpu", "H100", "--max-model-len", "8192", "--load-format",
                                   "safetensors", "--vllm-version", "0.33.0", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["args"]["load_format"] == "safetensors"
    bad = CliRunner().invoke(app, ["fit", LLAMA, "--gpu", "H100", "--max-model-len", "8192", "--load-format", "foo",
                                   "--vllm-version", "0.33.0"])
    assert bad.exit_code != 0 and "Load format `foo` is not supported" in f"{bad.output} {bad.exception}"


LOG = """\
INFO 10-02 10:00:01 [api_server.py:1896] vLLM API server version 0.19.0
INFO 10-02 10:00:01 [utils.py:233] non-default args: {'model_tag': 'meta-llama/Llama-3.1-8B-Instruct', 'model': 'meta-llama/Llama-3.1-8B-Instruct', 'max_model_len': 8192, 'load_format': 'dummy'}
INFO 10-02 10:00:30 [kv_cache_utils.py:1091] Maximum concurrency for 8,192 tokens per request: 50.00x
"""


def test_a_log_with_the_flag_is_planned_with_it():
    log = parse_lines(LOG.splitlines())
    assert log.to_record()["args"]["load_format"] == "dummy"
    p, _notes = plan_from_log(log, LLAMA, FitFlags(gpu="H100"), site_calibration=False)
    assert p.args.load_format == "dummy"
    # the engine config's resolved value (vLLM sets bitsandbytes / gguf itself) is not a --load-format given
    resolved = parse_lines(["INFO 01-01 00:00:00 llm_engine.py:234 Initializing a V0 LLM engine (v0.7.3) with config: "
                            "model='Qwen/x', load_format=LoadFormat.BITSANDBYTES, quantization=bitsandbytes"])
    assert "load_format" not in resolved.to_record().get("args", {})
    namespace = parse_lines(["INFO 01-01 00:00:00 api_server.py:2 args: Namespace(model='Qwen/x', "
                             "load_format='bitsandbytes', quantization='bitsandbytes')"])
    assert namespace.to_record()["args"]["load_format"] == "bitsandbytes"


def test_a_record_with_the_flag_is_planned_not_skipped():
    assert "load_format" not in ARGS_NOT_MODELLED and "load_format" in ARG_FIELDS
    rec = first_record("calibration.jsonl", LLAMA)
    base, given = planned_with(rec, load_format="safetensors")
    assert given.args.load_format == "safetensors"
    for figure in FIGURES:
        assert getattr(given, figure) == getattr(base, figure), figure
    with pytest.raises(RefusedByVLLMError):
        predict_record(dict(rec, args=dict(rec["args"], load_format="no_such_format")))


def _bnb_checkpoint():
    from test_bnb_weights import BNB4_QC, _qwen25_7b
    return _qwen25_7b(BNB4_QC)[1]


@pytest.mark.parametrize("version, written", [("0.7.3", ("--quantization bitsandbytes", "--load-format bitsandbytes")),
                                              ("0.8.3", ("--quantization bitsandbytes",))])
def test_a_pre_quantized_bitsandbytes_checkpoint_before_0_8_4_gets_the_flags_its_release_needs(version, written):
    spec = _bnb_checkpoint()
    p = kvplan.fit(spec, "RTX 4090", vllm_version=version, max_model_len=4096, fixes=False)
    serve = render_files(spec_from_plan(p))["serve.sh"]
    for flag in written:
        assert flag in serve
    assert "fails on its quant-state tensors" in serve
    if len(written) == 1:
        assert "--load-format" not in serve
    # from 0.8.4 vLLM picks bitsandbytes' loader itself: neither flag
    auto = kvplan.fit(spec, "RTX 4090", vllm_version="0.8.4", max_model_len=4096, fixes=False)
    serve = render_files(spec_from_plan(auto))["serve.sh"]
    assert "--quantization bitsandbytes" not in serve and "--load-format" not in serve
    # the weights are bitsandbytes' either way
    assert p.weights_bytes == kvplan.fit(spec, "RTX 4090", vllm_version=version, max_model_len=4096, fixes=False,
                                         quantization="bitsandbytes", load_format="bitsandbytes").weights_bytes


def test_a_0_7_3_record_with_both_bitsandbytes_flags_is_planned_as_with_the_quantization_alone():
    from test_bnb_weights import RECORDS, BNB_RECORD
    rec = next(json.loads(line) for line in RECORDS.open() if BNB_RECORD in line)
    assert rec["vllm_version"].startswith("0.7.3") and rec["args"]["quantization"] == "bitsandbytes"
    base, _ = predict_record(rec)
    both, _ = predict_record(dict(rec, args=dict(rec["args"], load_format="bitsandbytes")))
    for figure in FIGURES:
        assert getattr(both, figure) == getattr(base, figure), figure
