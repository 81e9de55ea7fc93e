"""A second hostile new-user pass (session 43): damaged configs, logs and records, and what kvplan answered."""

from __future__ import annotations

import copy
import json

import pytest

from named_records import catalog_config_with
from cli_runner import run_cli



def _fit_config(monkeypatch, capsys, tmp_path, config: dict, *args: str) -> tuple[int, str]:
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(config))
    code, out, err = run_cli(monkeypatch, capsys, "fit", str(cfg), "--gpu", "H100", "--max-model-len", "4096", *args)
    return code, " ".join((out + err).split())


@pytest.mark.parametrize("model_id, path, value, says", [
    ("google/gemma-4-26B-A4B", ["text_config", "head_dim"], [256, 256],
     "text_config.head_dim must be a whole number (one size for every attention layer; Gemma 4's full-attention layers "
     "take theirs from global_head_dim), got [256, 256]"),
    ("google/gemma-4-26B-A4B", ["text_config", "head_dim"], [256, 512], "text_config.head_dim must be a whole number"),
    ("Qwen/Qwen3-8B", ["head_dim"], [128] * 36, "head_dim must be a whole number (one size for every attention layer"),
])
def test_a_per_layer_head_dim_is_refused_by_its_full_key(monkeypatch, capsys, tmp_path, model_id, path, value, says):
    """gemma-4's text_config.head_dim [256, 256] ended "internal error: TypeError: int() argument must be a string, a
    bytes-like object or a real number, not 'list'" (exit 3, weights._gemma4_rotary_elements). No config class reads a
    head size per layer (transformers 5.25 Gemma4TextConfig: head_dim: int; the full-attention layers' is
    global_head_dim), and no real config gives one; a uniform list was read as its one value elsewhere (Qwen3)."""
    code, text = _fit_config(monkeypatch, capsys, tmp_path, catalog_config_with(model_id, path, value))
    assert code == 2 and "internal error" not in text and says in text and "fix the config.json" in text, text


@pytest.mark.parametrize("model_id, path, value, says", [
    # ZeroDivisionError: integer modulo by zero (plan.defaults, the TP slice check against the FP8 block)
    ("Qwen/Qwen2.5-0.5B-Instruct", ["quantization_config"], {"quant_method": "fp8", "weight_block_size": [0, 128]},
     "quantization_config.weight_block_size must be from 1 to"),
    ("poolside/Laguna-S-2.1-FP8", ["quantization_config", "config_groups", "group_0", "weights", "block_structure"],
     [128, 0], "quantization_config.config_groups.group_0.weights.block_structure must be from 1 to"),
    # StopIteration (weights: the recurrent layers all taken for shared-KV ones)
    ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", ["num_kv_shared_layers"], 10_000,
     "num_kv_shared_layers 10000 leaves none of the model's 52 layers to keep the KV cache"),
    ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", ["num_kv_shared_layers"], 52,
     "num_kv_shared_layers 52 leaves none of the model's 52 layers to keep the KV cache"),
    # TypeError: int() argument must be ... not 'NoneType' (a Gated DeltaNet size null)
    ("Qwen/Qwen3.5-397B-A17B", ["text_config", "linear_key_head_dim"], None,
     "text_config.linear_key_head_dim must be a whole number, got null"),
    # TypeError: unhashable type: 'list' (a layer type that is a list)
    ("google/gemma-4-26B-A4B", ["text_config", "layer_types"], [["sliding_attention"]] * 30,
     "text_config.layer_types must be a list of names"),
])
def test_a_damaged_value_that_ended_in_an_internal_error_is_refused_by_its_key(monkeypatch, capsys, tmp_path, model_id,
                                                                                path, value, says):
    """Each ended `kvplan fit CONFIG` with "internal error: ..." (exit 3): found by mutating catalog configs."""
    code, text = _fit_config(monkeypatch, capsys, tmp_path, catalog_config_with(model_id, path, value))
    assert code == 2 and "internal error" not in text and says in text and "fix the config.json" in text, text


def test_an_mtp_layer_count_past_any_model_is_refused_not_planned_until_killed():
    """mtp_num_hidden_layers 1e30 on Qwen3.8 built one weight tally per MTP layer: the plan did not end (killed after
    60 s); it is now bounded as the model's own layer count is."""
    from kvplan.errors import ConfigError
    from kvplan.resolve import check_config_values

    with pytest.raises(ConfigError) as err:
        check_config_values(catalog_config_with("Qwen/Qwen3.8-2.4T-A95B", ["mtp_num_hidden_layers"], 10 ** 30))
    assert err.value.field == "mtp_num_hidden_layers" and "is more than the model's own 92 layers" in err.value.message
    with pytest.raises(ConfigError) as err:  # without the model's layer count beside it: the layer-count bound
        check_config_values({"text_config": {"mtp_num_hidden_layers": 10 ** 30}})
    assert err.value.field == "text_config.mtp_num_hidden_layers" and "from 0 to 100,000" in err.value.message
    with pytest.raises(ConfigError, match="must be a whole number"):
        check_config_values({"text_config": {"mtp_num_hidden_layers": [1, 1]}})


@pytest.mark.parametrize("model_id, path, value, says", [
    # planned 24 sliding-window layers (the list passed over for the sliding_window default), exit 0
    ("openai/gpt-oss-20b", ["layer_types"], ["sliding_attention"], "layer_types has 1 entry for the model's 24 layers"),
    ("ibm-granite/granite-4.0-h-small", ["layer_types"], [], "layer_types has 0 entries for the model's 40 layers"),
    # a string: planned as if no layer_types were given
    ("google/gemma-4-26B-A4B", ["text_config", "layer_types"], "sliding_attention",
     "text_config.layer_types must be a list of names, got 'sliding_attention'"),
    # a number: planned every layer full attention; a pattern of 5 letters planned a 5-layer model
    ("nvidia/Nemotron-H-56B-Base-8K", ["hybrid_override_pattern"], 0,
     "hybrid_override_pattern must be a string of one letter per layer (M Mamba, * attention, - MLP, E MoE), got 0"),
    ("nvidia/Nemotron-H-56B-Base-8K", ["hybrid_override_pattern"], "M-M-M",
     "hybrid_override_pattern has 5 entries for the model's 118 layers"),
    ("nvidia/Nemotron-H-56B-Base-8K", ["hybrid_override_pattern"], "M?" * 59, "must be a string of one letter per layer"),
    # a short attn_type_list was passed over: every layer planned full attention
    ("MiniMaxAI/MiniMax-M2.7", ["attn_type_list"], [1, 1, 1], "attn_type_list has 3 entries for the model's 62 layers"),
    ("MiniMaxAI/MiniMax-M2.7", ["attn_type_list"], ["full"] * 62, "attn_type_list must be a list of 0 (linear attention)"),
])
def test_a_per_layer_pattern_that_is_none_or_too_short_is_refused_not_guessed(monkeypatch, capsys, tmp_path, model_id,
                                                                              path, value, says):
    """The layer pattern decides what each layer caches; a damaged one was planned from a default without a word."""
    code, text = _fit_config(monkeypatch, capsys, tmp_path, catalog_config_with(model_id, path, value))
    assert code == 2 and "internal error" not in text and says in text and "fix the config.json" in text, text


def test_a_longer_layer_pattern_is_read_for_the_models_layers():
    """--hf-overrides '{"num_hidden_layers": 4}' (how vLLM's own tests shrink a checkpoint) leaves layer_types longer
    than the layers: vLLM builds each layer from its own entry, and so does kvplan."""
    import kvplan

    p = kvplan.fit("openai/gpt-oss-20b", gpu="H100", max_model_len=4096, hf_overrides='{"num_hidden_layers": 4}')
    assert p.fits and len([l for l in p.model.layers if l.kind in ("full", "sliding")]) == 4


@pytest.mark.parametrize("quant, says", [
    # planned as 4-bit weights in groups of 128 without a word (vLLM's get_from_keys raises for the missing key)
    ({"quant_method": "awq"}, "quantization_config.bits: the awq quantization_config gives no w_bit / bits"),
    ({"quant_method": "gptq", "bits": 4}, "quantization_config.group_size: the gptq quantization_config gives no group_size"),
    ({"quant_method": "auto-round", "bits": 4, "group_size": None}, "the auto_round quantization_config gives no group_size"),
    # a group of 0 weights was read as the default 128
    ({"quant_method": "awq", "bits": 4, "group_size": 0}, "quantization_config.group_size must be -1 (one group per output "
     "channel) or a group size of 1 or more, got 0"),
    # planned as NVFP4 (vLLM: "Missing 'quant_algo'", "ModelOpt currently only supports: [...]")
    ({"quant_method": "modelopt"}, "quantization_config.quant_algo: a ModelOpt quantization names its algorithm in "
     "quant_algo (FP8, "),
    ({"quant_method": "modelopt", "quant_algo": "BOGUS"}, "got 'BOGUS'"),
    # internal error: AttributeError: 'bool' object has no attribute 'values'
    ({"quant_method": "compressed-tensors", "config_groups": True},
     "quantization_config.config_groups must be an object of settings (or null), got True"),
    # a group's weights 5 and a kv_cache_scheme 5 were planned as if absent
    ({"quant_method": "compressed-tensors", "config_groups": {"g": {"weights": 5, "targets": ["Linear"]}}},
     "quantization_config.config_groups.g.weights must be an object of settings"),
    ({"quant_method": "compressed-tensors", "kv_cache_scheme": 5}, "quantization_config.kv_cache_scheme must be an object"),
])
def test_a_quantization_config_missing_what_vllm_reads_is_refused_not_guessed(monkeypatch, capsys, tmp_path, quant, says):
    code, text = _fit_config(monkeypatch, capsys, tmp_path, catalog_config_with("Qwen/Qwen3-8B", ["quantization_config"], quant))
    assert code == 2 and "internal error" not in text and says in text and "fix the config.json" in text, text


@pytest.mark.parametrize("quant", [{"quant_method": "awq", "w_bit": 4, "q_group_size": 128, "zero_point": True},
                                   {"quant_method": "gptq", "bits": 4, "group_size": -1},
                                   {"quant_method": "modelopt", "quant_algo": "fp8"}])
def test_a_complete_quantization_config_still_plans(quant):
    import kvplan
    from kvplan.resolve import normalize

    spec = normalize(catalog_config_with("Qwen/Qwen3-8B", ["quantization_config"], quant), model_id="q", source="test")
    assert spec.quant is not None and spec.quant.bits in (4, 8)
    assert kvplan  # the package imports


def _record(**changes) -> dict:
    from pathlib import Path

    path = Path(__file__).parent / "data" / "calibration.jsonl"
    rec = json.loads(path.read_text().splitlines()[0])
    for dotted, value in changes.items():
        node = rec
        *head, last = dotted.split("__")
        for key in head:
            node = node[key]
        node[last] = value
    return rec


@pytest.mark.parametrize("changes, field, says", [
    ({"gpu__total_gib": 1e30}, "gpu.total_gib", "must be a positive, finite number of GiB (at most 1,048,576), got 1e+30"),
    ({"model__weights_bytes": 10 ** 20}, "model.weights_bytes", "must be a positive number of bytes (at most"),
])
def test_a_record_size_past_any_gpu_or_checkpoint_is_skipped_naming_it(changes, field, says):
    """A record with gpu.total_gib 1e30 was planned with a KV cache of 8.5e29 GiB; weights_bytes 1e20 as given."""
    from kvplan.errors import InputError
    from kvplan.validate import clean_record

    with pytest.raises(InputError) as err:
        clean_record(_record(**changes))
    assert err.value.field == field and says in err.value.message, err.value.message


@pytest.mark.parametrize("args, field, says", [
    (("--gpu", "100000000000000000000000x L4"), "--gpu", "names 100,000,000,000,000,000,000,000 GPUs, more than any one "
     "deployment spans (at most 65,536)"),
    (("--gpu", "L4 x 70000"), "--gpu", "names 70,000 GPUs"),
    (("--gpu", "L4", "--num-gpus", "100000000000000000000000"), "--num-gpus", "GPUs is more than any one deployment spans"),
    (("--gpu", "L4", "-dp", "70000"), "--data-parallel-size", "70,000 GPUs is more than any one deployment spans"),
])
def test_a_gpu_count_past_any_deployment_is_refused(monkeypatch, capsys, args, field, says):
    """'1e23x L4' was planned on one L4 with a warning to give --tensor-parallel-size 1e23; --num-gpus 1e23 silently."""
    from cli_runner import refused

    out = refused(monkeypatch, capsys, field, "fit", "Qwen/Qwen2.5-0.5B-Instruct", *args)
    assert says in out, out


def test_a_records_gpu_count_past_any_deployment_is_skipped_not_searched_until_killed():
    """A record with gpu.count 1e23 and no tensor_parallel_size searched every TP size up to 1e23 (killed at 60 s)."""
    from kvplan.errors import InputError
    from kvplan.validate import clean_record

    with pytest.raises(InputError) as err:
        clean_record(_record(gpu__count=10 ** 23))
    assert err.value.field == "gpu.count" and "must be from 1 to 65,536" in err.value.message
    assert clean_record(_record(gpu__count=8))["gpu"]["count"] == 8


def test_an_override_that_adds_layers_keeps_a_uniform_derived_pattern_and_refuses_a_mixed_one(monkeypatch, capsys):
    """AutoConfig derives layer_types from the file's num_hidden_layers; vLLM applies --hf-overrides after that
    (config.update) and builds the added layers from the list as it stands. Qwen2.5's all-full list stays all full;
    gemma-2-9b raised to 84 layers was planned as 84 sliding-window layers (the short list passed over for the
    sliding_window default), now refused naming layer_types."""
    import kvplan
    from cli_runner import refused

    p = kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", gpu="H100", max_model_len=4096, hf_overrides='{"num_hidden_layers": 48}')
    assert [l.kind for l in p.model.layers] == ["full"] * 48
    out = refused(monkeypatch, capsys, "--hf-overrides", "fit", "google/gemma-2-9b", "--gpu", "H100", "--max-model-len",
                  "4096", "--hf-overrides", '{"num_hidden_layers": 84}')
    assert "layer_types holds 42 entries of mixed kinds for the model's 84 layers" in out, out
    # the file's own list (gpt-oss-20b's) is held to one entry per layer
    out = refused(monkeypatch, capsys, "--hf-overrides", "fit", "openai/gpt-oss-20b", "--gpu", "H100", "--max-model-len",
                  "4096", "--hf-overrides", '{"num_hidden_layers": 48}')
    assert "layer_types has 24 entries for the model's 48 layers" in out, out


def test_an_mtp_layer_count_above_the_models_layers_is_refused(monkeypatch, capsys):
    """--hf-overrides '{"mtp_num_hidden_layers": 100000}' on Nemotron-3-Nano (52 layers) sized 100,000 drafter layers
    in each of the fixes' 32 plans: killed at 60 s."""
    from cli_runner import refused

    out = refused(monkeypatch, capsys, "--hf-overrides", "fit", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "--gpu",
                  "H100", "--max-model-len", "4096", "--hf-overrides", '{"mtp_num_hidden_layers": 100000}')
    assert "mtp_num_hidden_layers 100,000 is more than the model's own 52 layers" in out, out


@pytest.mark.parametrize("name, content, says", [
    # read as 1 prompt token / 1 output token / 1 s (float(True) is 1.0), exit 0
    ("b.jsonl", '{"prompt_tokens": true, "completion_tokens": 50, "arrival_s": 0}\n'
                '{"prompt_tokens": 100, "completion_tokens": 50, "arrival_s": 1}\n',
     "b.jsonl: request 1 has true in prompt_tokens, not a number"),
    ("api.jsonl", '{"usage": {"prompt_tokens": 10, "completion_tokens": true}, "created": 1700000000}\n',
     "api.jsonl: request 1 has true in usage.completion_tokens, not a number"),
    ("t.jsonl", '{"prompt_tokens": 100, "completion_tokens": 50, "arrival_s": 0}\n'
                '{"prompt_tokens": 100, "completion_tokens": 50, "arrival_s": true}\n',
     "t.jsonl: request 2 has true in arrival_s, not a number"),
    # internal error: IndexError: index 1 is out of bounds for axis 0 with size 1
    ("l.jsonl", '{"prompt_tokens": 100, "completion_tokens": 50, "arrival_s": [1, 2]}\n',
     "l.jsonl: request 1 has a JSON list in arrival_s, not a number"),
    # '1,000' unquoted read as prompt 1, output 000 (dropped as 0 tokens), arrival 33, the 1.0 dropped
    ("c.csv", "prompt_tokens,completion_tokens,arrival_s\n100,50,0\n1,000,33,1.0\n",
     "c.csv: row 2 after the header has 4 cells for the header's 3 columns (1,000,33,1.0)"),
])
def test_a_workload_value_python_would_read_as_another_number_is_refused(tmp_path, name, content, says):
    from kvplan.errors import InputError
    from kvplan.workload import WorkloadSpec, build_workload

    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputError) as err:
        build_workload(WorkloadSpec(str(path), rate_per_s=2))
    assert err.value.field == "--workload" and says in err.value.message, err.value.message


def test_a_csv_row_ending_in_a_comma_is_still_read(tmp_path):
    from kvplan.workload import WorkloadSpec, build_workload

    path = tmp_path / "w.csv"
    path.write_text("prompt_tokens,completion_tokens,arrival_s\n100,50,0,\n200,60,1,\n")
    w = build_workload(WorkloadSpec(str(path)))
    assert list(w.prompt_tokens) == [100, 200] and list(w.arrival_s) == [0.0, 1.0]


@pytest.mark.parametrize("value, says", [("0", "constant takes 1 positive number, got '0'"),
                                         ("-3", "constant takes 1 positive number, got '-3'"),
                                         ("1.5", "constant lengths are whole tokens, got '1.5'"),
                                         ("1e-320", "constant lengths are whole tokens, got '1e-320'")])
def test_a_bare_length_is_held_to_constants_rules(value, says):
    """--prompt-len 0, -3 or 1e-320 drew 1-token prompts (1.5 two-token ones) without a word: a bare number was
    returned as constant:N unchecked, while constant:0 was refused."""
    from kvplan.errors import InputError
    from kvplan.workload import parse_length_dist

    with pytest.raises(InputError) as err:
        parse_length_dist(value)
    assert err.value.field == "--prompt-len" and says in err.value.message, err.value.message
    assert parse_length_dist("200") == parse_length_dist("constant:200")


@pytest.mark.parametrize("flag, value", [("--pooler-config", "inf"), ("--pooler-config", ","),
                                         ("--override-pooler-config", "[1]")])
def test_a_pooler_config_that_is_no_json_object_is_refused_on_any_model(monkeypatch, capsys, tmp_path, flag, value):
    """On a generator --pooler-config 'inf' was planned (only a pooling model's plan read it), and scaffold wrote
    `--pooler-config inf` into serve.sh, which vLLM's argparse refuses before anything loads."""
    from cli_runner import refused

    out = refused(monkeypatch, capsys, flag, "scaffold", str(tmp_path / "d"), "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4",
                  flag, value, *(["--vllm-version", "0.11.0"] if flag == "--override-pooler-config" else []))
    assert ("not JSON" in out or "must be a JSON object" in out) and "pooling_type" in out, out
    assert not (tmp_path / "d").exists()


@pytest.mark.parametrize("model_id, key, value, says", [
    # internal error: TypeError: int() argument must be ... not 'NoneType' / ZeroDivisionError
    ("ai21labs/Jamba-v0.1", "attn_layer_period", None, "attn_layer_period must be a whole number, got null"),
    ("ai21labs/Jamba-v0.1", "attn_layer_period", 0, "attn_layer_period must be from 1 to"),
    # refused as "the config has no moe_intermediate_size", a key the config does not need
    ("ai21labs/Jamba-v0.1", "expert_layer_period", 0, "expert_layer_period must be from 1 to"),
    # a step of 0 read as 1 (vLLM divides by it: (layer_idx + 1) % decoder_sparse_step)
    ("Qwen/Qwen3-Next-80B-A3B-Instruct", "decoder_sparse_step", 0, "decoder_sparse_step must be from 1 to"),
    # 'x' planned from the raw dict without the hybrid pattern it sets
    ("Qwen/Qwen3-Next-80B-A3B-Instruct", "full_attention_interval", "x", "full_attention_interval must be a whole number"),
])
def test_a_layer_period_of_zero_or_null_is_refused_by_its_key(monkeypatch, capsys, tmp_path, model_id, key, value, says):
    code, text = _fit_config(monkeypatch, capsys, tmp_path, catalog_config_with(model_id, [key], value))
    assert code == 2 and "internal error" not in text and says in text and "fix the config.json" in text, text


def _modelopt_folder(tmp_path, hf_quant: dict):
    """A ModelOpt NVFP4 checkpoint folder (Gemma-4-26B-A4B-NVFP4's config without its quantization_config, so that
    vLLM reads hf_quant_config.json) with `hf_quant` as its hf_quant_config.json."""
    from kvplan.resolve import model_catalog

    config = copy.deepcopy(model_catalog()["nvidia/Gemma-4-26B-A4B-NVFP4"]["config"])
    config.pop("quantization_config", None)
    folder = tmp_path / "ckpt"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "hf_quant_config.json").write_text(json.dumps(hf_quant))
    return folder


@pytest.mark.parametrize("quantization, says", [
    # internal error: TypeError: 'int' object is not iterable
    ({"quant_algo": "NVFP4", "exclude_modules": 5}, "in hf_quant_config.json, quantization.exclude_modules must be a list of names"),
    # internal error: AttributeError: 'NoneType' object has no attribute 'startswith'
    ({"quant_algo": "NVFP4", "exclude_modules": [None]}, "quantization.exclude_modules must be a list of names"),
    # internal error: AttributeError: 'str' object has no attribute 'get'
    ({"quant_algo": "MIXED_PRECISION", "quantized_layers": {"model.layers.0.mlp.down_proj": "NVFP4"}},
     "quantization.quantized_layers.model.layers.0.mlp.down_proj must be an object of settings"),
    # planned as NVFP4 (exit 0): vLLM refuses MIXED_PRECISION without quantized_layers
    ({"quant_algo": "MIXED_PRECISION"}, "a MIXED_PRECISION ModelOpt quantization gives each quantized layer's algorithm "
     "in quantized_layers, and this one gives none"),
    # a string naming no quant_algo was taken as NVFP4 (exit 0)
    ("x", "a ModelOpt quantization names its algorithm in quant_algo"),
    # exclude_modules 'lm_head' (vLLM 0.33: "exclude_modules must be a list")
    ({"quant_algo": "NVFP4", "exclude_modules": "lm_head"}, "quantization.exclude_modules must be a list of names, got 'lm_head'"),
])
def test_a_damaged_hf_quant_config_is_refused_naming_the_file_and_key(monkeypatch, capsys, tmp_path, quantization, says):
    folder = _modelopt_folder(tmp_path, {"producer": {"name": "modelopt"}, "quantization": quantization})
    code, out, err = run_cli(monkeypatch, capsys, "fit", str(folder), "--gpu", "B200", "--max-model-len", "4096")
    text = " ".join((out + err).split())
    assert code == 2 and "internal error" not in text and says in text and "hf_quant_config.json" in text, text


def test_a_sound_hf_quant_config_still_plans(tmp_path):
    import kvplan

    folder = _modelopt_folder(tmp_path, {"producer": {"name": "modelopt"}, "quantization": {
        "quant_algo": "NVFP4", "kv_cache_quant_algo": "FP8", "group_size": 16, "exclude_modules": ["lm_head"]}})
    p = kvplan.fit(str(folder), gpu="B200", max_model_len=4096)
    assert p.model.quant.method == "modelopt" and p.model.quant.hf_quant_config_only


def test_a_checkpoint_size_past_any_file_is_refused(monkeypatch, capsys, tmp_path):
    """model.safetensors.index.json's metadata.total_size 1e20 (shards not downloaded), or a safetensors header entry
    ending at byte 1e30, was planned as that many bytes of weights (exit 1, 'does not fit'), without a word."""
    import struct

    from cli_runner import refused
    from kvplan.resolve import model_catalog

    config = model_catalog()["Qwen/Qwen2.5-0.5B-Instruct"]["config"]
    folder = tmp_path / "index"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "model.safetensors.index.json").write_text(json.dumps(
        {"metadata": {"total_size": 10 ** 20}, "weight_map": {"model.embed_tokens.weight": "model-00001-of-00002.safetensors"}}))
    out = refused(monkeypatch, capsys, "checkpoint", "fit", str(folder), "--gpu", "L4")
    assert "metadata.total_size 100,000,000,000,000,000,000 B is more than any checkpoint holds" in out, out
    folder = tmp_path / "header"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config))
    header = json.dumps({"model.embed_tokens.weight": {"dtype": "BF16", "shape": [151936, 896],
                                                       "data_offsets": [0, 10 ** 30]}}).encode()
    (folder / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header)
    out = refused(monkeypatch, capsys, "checkpoint", "fit", str(folder), "--gpu", "L4")
    assert "model.safetensors is not a safetensors file: its header entry 'model.embed_tokens.weight' ends at byte" in out, out


@pytest.mark.parametrize("kwargs, field, says", [
    # internal error: TypeError: 'int' object is not iterable (EngineArgs.lora_targets)
    ({"lora_target_modules": 5}, "--lora-target-modules", "module names expected, got 5 (int)"),
    ({"lora_target_modules": [1, 2]}, "--lora-target-modules", "module names expected"),
    # TypeError: 'float' object is not iterable / cannot unpack non-iterable int object (parse_env)
    ({"env": 1.5}, "--env", "must be KEY=VALUE text, a dict or (key, value) pairs, got 1.5 (float)"),
    ({"env": [5]}, "--env", "5 is not KEY=VALUE or a (key, value) pair"),
    # TypeError: int() argument must be ... not 'NoneType' (a field resolve_args sets, taken as a keyword)
    ({"eplb_redundant": None}, "eplb_redundant", "not an argument kvplan.fit takes"),
])
def test_a_python_keyword_of_the_wrong_type_is_an_input_error(kwargs, field, says):
    import kvplan

    with pytest.raises(kvplan.InputError) as err:
        kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "L4", fixes=False, detect_gpu=False, **kwargs)
    assert err.value.field == field and says in err.value.message, (err.value.field, err.value.message)


@pytest.mark.parametrize("key", ["rope_scaling", "compilation_config", "pooler_config", "env"])
def test_a_numpy_array_given_for_one_value_is_an_input_error(key):
    """ValueError: The truth value of an array with more than one element is ambiguous (planner / parse_env)."""
    np = pytest.importorskip("numpy")
    import kvplan

    with pytest.raises(kvplan.InputError) as err:
        kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "L4", fixes=False, detect_gpu=False, **{key: np.array([1, 2])})
    assert err.value.field == key and "an array of shape (2,), not one value" in err.value.message
    with pytest.raises(kvplan.InputError) as err:
        kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "L4", fixes=False, detect_gpu=False, revision=np.array([1, 2]))
    assert err.value.field == "--revision"
    p = kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "L4", fixes=False, detect_gpu=False, env={"VLLM_USE_V1": "1"},
                   max_num_seqs=np.int64(64))
    assert p.args.max_num_seqs == 64


_DEEP = "[" * 100_000 + "]" * 100_000
_BIG_INT = "9" * 5000


@pytest.mark.parametrize("kind", ["config", "records", "hf-overrides", "workload", "records-bigint"])
def test_json_nested_too_deep_or_with_a_5000_digit_number_is_not_json_not_an_internal_error(monkeypatch, capsys, tmp_path,
                                                                                            kind):
    """json.loads raises RecursionError for an array nested 100,000 deep and ValueError ("Exceeds the limit (4300
    digits) for integer string conversion") for a 5,000-digit integer, neither a JSONDecodeError: each ended as
    "internal error" (exit 3) where a file or flag is read (inputs.json_loads now turns both into one)."""
    from cli_runner import refused

    if kind == "config":
        (tmp_path / "config.json").write_text(_DEEP)
        out = refused(monkeypatch, capsys, "model", "fit", str(tmp_path / "config.json"), "--gpu", "L4")
    elif kind.startswith("records"):
        (tmp_path / "r.jsonl").write_text((_DEEP if kind == "records" else '{"id": "x", "gpu": {"count": %s}}' % _BIG_INT)
                                          + "\n")
        out = refused(monkeypatch, capsys, "FILE", "validate", str(tmp_path / "r.jsonl"))
    elif kind == "hf-overrides":
        out = refused(monkeypatch, capsys, "--hf-overrides", "fit", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4",
                      "--hf-overrides", '{"a": %s}' % _DEEP)
    else:
        (tmp_path / "w.jsonl").write_text('{"prompt_tokens": %s, "completion_tokens": 5}\n' % _BIG_INT)
        out = refused(monkeypatch, capsys, "--workload", "simulate", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4", "-w",
                      str(tmp_path / "w.jsonl"), "--rate", "1")
    assert "nested too deeply" in out or "Exceeds the limit (4300 digits)" in out, out


@pytest.mark.parametrize("key, value, says", [
    # internal error: TypeError: int() argument must be ... not 'list' (weights: the Mllama vision tower)
    ("num_global_layers", [0], "vision_config.num_global_layers must be a whole number (the vision_config tower's sizes"),
    ("vision_output_dim", [7680], "vision_config.vision_output_dim must be a whole number"),
    # internal error: ValueError: invalid literal for int()
    ("max_num_tiles", "x", "vision_config.max_num_tiles must be a whole number, got 'x'"),
])
def test_a_mllama_vision_size_read_as_a_number_is_checked_as_one(monkeypatch, capsys, tmp_path, key, value, says):
    """Sizes weights.py reads with int() that the value check did not know (num_global_layers, max_num_tiles,
    vision_output_dim; Whisper's encoder/decoder sizes, mlp_ratio as a factor, likewise)."""
    code, text = _fit_config(monkeypatch, capsys, tmp_path,
                             catalog_config_with("meta-llama/Llama-3.2-11B-Vision", ["vision_config", key], value))
    assert code == 2 and "internal error" not in text and says in text and "fix the config.json" in text, text
