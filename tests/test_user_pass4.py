"""A fresh user's pass (session 42): slightly wrong input a vLLM user types, and what kvplan answered."""

from __future__ import annotations

import pytest

from named_records import catalog_config_with
from cli_runner import refused, run_cli


@pytest.mark.parametrize("ref", ["16GB", "16 GB", "NVIDIA 24GB", "80GB", "2x 40GB"])
def test_a_memory_size_alone_as_the_gpu_is_refused_not_read_as_a_card(monkeypatch, capsys, ref):
    """`--gpu 16GB` planned an AMD Radeon RX 9070 XT (ROCm's rules) without a word: every 16 GB card matched the size by
    its words and the largest total among them was taken; '80GB' planned an H100 SXM5, '40GB' an A100 40GB SXM4."""
    out = refused(monkeypatch, capsys, "--gpu", "fit", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", ref)
    assert "is a memory size, not a GPU" in out and "kvplan gpus" in out and "--gpu-gb" in out, out
    # with a size flag beside it, the fix is to drop the name
    out = refused(monkeypatch, capsys, "--gpu", "fit", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", ref, "--gpu-gib", "15")
    assert "leave out --gpu: --gpu-gib alone" in out, out


@pytest.mark.parametrize("ref, card", [("H100 80GB", "NVIDIA H100 80GB SXM5"), ("A100-80G", "NVIDIA A100 80GB SXM4"),
                                       ("RTX 4060 Ti 16GB", "NVIDIA GeForce RTX 4060Ti 16GB")])
def test_a_card_named_with_its_size_still_plans(ref, card):
    from kvplan.resolve import find_gpu

    assert find_gpu(ref).name == card


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    pytest.importorskip("fastapi", reason="kvplan[web] is not installed")
    pytest.importorskip("httpx", reason="fastapi.testclient needs httpx")
    from fastapi.testclient import TestClient

    from kvplan.web.app import create_app

    return TestClient(create_app(upload_dir=str(tmp_path_factory.mktemp("uploads"))), raise_server_exceptions=False)


WEB_BASE = {"model": "Qwen/Qwen2.5-0.5B-Instruct", "gpu": "L4", "max_model_len": 4096, "curve": False}


@pytest.mark.parametrize("content_type", ["application/x-www-form-urlencoded", "text/plain", None])
def test_a_json_body_sent_without_the_json_content_type_says_so(web, content_type):
    """`curl -d '{...}' /api/plan` (curl's default, application/x-www-form-urlencoded) was answered "Input should be a
    valid dictionary or object to extract fields from (send a JSON object ...)" to a body that was a JSON object."""
    import json

    headers = {"content-type": content_type} if content_type else {}
    r = web.post("/api/plan", content=json.dumps(WEB_BASE), headers=headers)
    assert r.status_code == 422 and r.json()["field"] == "body", r.text
    assert "not as application/json" in r.json()["message"] and "Content-Type: application/json" in r.json()["fix"]
    assert "valid dictionary" not in r.text
    # a JSON value that is no object names what it is
    r = web.post("/api/plan", json=[1, 2])
    assert r.status_code == 422 and r.json()["message"] == "must be a JSON object, got a list", r.text


@pytest.mark.parametrize("path, body, example", [
    ("/api/plan", {"gpu_gib": "16GB"}, "e.g. 23.58"),
    ("/api/simulate", {"workload": "azure-conv", "rate_per_s": "2rps"}, "e.g. 8 "),
    ("/api/simulate", {"workload": "azure-conv", "capacity": True, "slo": "ttft=1s", "percentile": "p90"}, "e.g. 99 "),
    ("/api/plan", {"gpu_memory_utilization": "90%"}, "e.g. 0.9 "),
])
def test_a_number_key_given_a_unit_is_offered_its_own_example(web, path, body, example):
    """Every number key's fix was utilization's "e.g. 0.9": gpu_gib '16GB' and rate_per_s '2rps' were offered 0.9."""
    key = next(k for k in body if k not in ("workload", "capacity", "slo"))
    r = web.post(path, json={**WEB_BASE, **body})
    assert r.status_code == 422 and r.json()["field"] == key, r.text
    assert r.json()["fix"].startswith(example) and "without a unit" in r.json()["fix"], r.text


@pytest.mark.parametrize("body, fix", [({"max_requests": 10 ** 9}, "give a value >= 1 and <= 20000"),
                                       ({"max_requests": 0}, "give a value >= 1 and <= 20000"),
                                       ({"capacity": True, "slo": "ttft=1s", "percentile": 0}, "give a value >= 1 and <= 100")])
def test_a_number_out_of_its_keys_bounds_is_answered_with_the_bounds(web, body, fix):
    """The fix was "send a JSON object with the CLI's options in snake_case", which a JSON object had been."""
    r = web.post("/api/simulate", json={**WEB_BASE, "workload": "azure-conv", **body})
    assert r.status_code == 422 and r.json()["fix"] == fix, r.text


@pytest.mark.parametrize("args, flag, fix", [
    (("fit", "--gpu", "L4", "--gpu-memory-utilization", "90%"), "--gpu-memory-utilization",
     "a fraction, not a percentage: --gpu-memory-utilization 0.9 for 90 %"),
    (("fit", "--gpu-gib", "16GB"), "--gpu-gib", "--gpu-gib 16)"),
    (("fit", "--gpu", "L4", "--max-num-seqs", "1.5"), "--max-num-seqs", "e.g. --max-num-seqs 1)"),
    (("simulate", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4", "-w", "azure-conv", "--rate", "8rps"), "--rate", "--rate 8)"),
    (("simulate", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4", "-w", "azure-conv", "-n", "2e3"), "--max-requests",
     "e.g. --max-requests 2000)"),
    (("capacity", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4", "--slo", "ttft=1s", "--percentile", "p90"), "--percentile",
     "--percentile 90)"),
    (("web", "--port", "abc"), "--port", "`kvplan web --help` says what --port takes"),
])
def test_a_number_flag_given_a_unit_or_a_word_names_the_value_and_the_number_to_write(monkeypatch, capsys, args, flag, fix):
    """Typer answered "Invalid value for '--gpu-gib': Input should be a valid number, unable to parse string as a number"
    (with a usage block): neither the value given nor what to write."""
    out = refused(monkeypatch, capsys, flag, *args)
    assert "is not a" in out and fix in out and "Input should be" not in out and "Usage:" not in out, out


def test_other_usage_errors_are_still_typers(monkeypatch, capsys):
    code, out, err = run_cli(monkeypatch, capsys, "fit", "--gpu", "L4", "--bogus-flag", "1")
    assert code == 2 and "No such option: --bogus-flag" in err


@pytest.mark.parametrize("key", ["vllm_version", "quantization", "runner", "speculative_config", "max_model_len", "revision"])
def test_an_empty_value_from_python_is_refused_as_the_command_line_refuses_it(key):
    """kvplan.fit(vllm_version='') (quantization='', runner='', speculative_config='') planned the defaults, as if the
    keyword were left out; `kvplan fit --vllm-version ''` refused it."""
    import kvplan

    with pytest.raises(kvplan.InputError) as err:
        kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", gpu="L4", **{key: "  "})
    assert err.value.field == key and "empty" in err.value.message


@pytest.mark.parametrize("key", ["model", "vllm_version", "quantization", "compilation_config"])
def test_an_empty_value_sent_to_the_page_api_is_a_400_naming_its_key(web, key):
    """POST /api/plan {"model": ""} planned Qwen/Qwen2.5-0.5B-Instruct, the seed's default, with a 200."""
    r = web.post("/api/plan", json={**WEB_BASE, key: ""})
    assert r.status_code == 400 and r.json()["field"] == key and "empty" in r.json()["message"], r.text


def test_a_traces_lengths_replaced_by_a_distribution_are_said_to_be():
    """`simulate -w azure-conv --prompt-len constant:200` drew every prompt from the distribution while the summary kept
    the trace's name ('workload azure-conv: ... prompt mean 200'), with no note that its lengths were replaced."""
    from kvplan.workload import WorkloadSpec, build_workload

    w = build_workload(WorkloadSpec("azure-conv", prompt_len="constant:200", rate_per_s=2, max_requests=50))
    assert set(w.prompt_tokens) == {200}
    assert any("prompt lengths drawn from --prompt-len constant:200, replacing the workload's own" in n for n in w.notes)
    w = build_workload(WorkloadSpec("azure-conv", rate_per_s=2, max_requests=50))
    assert not any("drawn from" in n for n in w.notes)


@pytest.mark.parametrize("backend, version, says", [
    ("bogus", "0.33.0", "not 'bogus'"),
    ("deepep-low-latency", "0.33.0", "did you mean deepep_low_latency?"),
    ("mori", "0.33.0", "not 'mori'"),           # in 0.15-0.22 and 0.34, not in 0.26-0.33 (split in two)
    ("deepep_v2", "0.22.0", "not 'deepep_v2'"),  # first in the 0.26.0 wheel read
    ("passthrough", "0.31.0", "not 'passthrough'"),
])
def test_an_all2all_backend_the_release_does_not_take_is_refused(monkeypatch, capsys, backend, version, says):
    """`--all2all-backend bogus` planned a start and scaffold wrote it into serve.sh, where vLLM's argparse (the
    All2AllBackend Literal's choices) refuses it before anything loads."""
    out = refused(monkeypatch, capsys, "--all2all-backend", "fit", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4",
                  "--vllm-version", version, "--all2all-backend", backend)
    assert f"vLLM {version}'s --all2all-backend takes" in out and says in out, out


@pytest.mark.parametrize("backend, version", [("naive", "0.33.0"), ("mori", "0.20.0"), ("mori", "0.34.0"),
                                              ("deepep_v2", "0.24.0"), ("passthrough", "0.32.0")])
def test_an_all2all_backend_the_release_takes_or_may_take_still_plans(backend, version):
    """0.24.0 lies between the 0.22.0 wheel (no deepep_v2) and the 0.26.0 one (deepep_v2): not refused unread."""
    import kvplan

    p = kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", gpu="L4", vllm_version=version, all2all_backend=backend)
    assert p.fits


def test_an_empty_served_model_name_from_the_page_api_is_refused_as_the_command_lines(web, monkeypatch, capsys, tmp_path):
    """POST /api/scaffold {"served_model_name": ""} wrote the model's repo name (spec_from_plan's `name or default`),
    where `kvplan scaffold --served-model-name ''` refused it; the check now lives in the one place both reach."""
    r = web.post("/api/scaffold", json={**WEB_BASE, "served_model_name": " "})
    assert r.status_code == 400 and r.json()["field"] == "--served-model-name" and "an empty name" in r.json()["message"]
    out = refused(monkeypatch, capsys, "--served-model-name", "scaffold", str(tmp_path / "d"), "Qwen/Qwen2.5-0.5B-Instruct",
                  "--gpu", "L4", "--served-model-name", "")
    assert "an empty name" in out and not (tmp_path / "d").exists()
    # a whole-number key's own example: port "80" was offered "e.g. 4"
    r = web.post("/api/scaffold", json={**WEB_BASE, "port": "80"})
    assert r.status_code == 422 and r.json()["fix"] == "e.g. 8000", r.text


@pytest.mark.parametrize("name, content", [
    ("dates.csv", "prompt_tokens,completion_tokens,timestamp\n100,50,2024-01-01T00:00:00Z\n100,50,2024-01-01T00:00:01.5Z\n"),
    ("dates.jsonl", '{"prompt_tokens": 100, "completion_tokens": 50, "arrival_s": "2024-01-01 00:00:00"}\n'
                    '{"prompt_tokens": 100, "completion_tokens": 50, "arrival_s": "2024-01-01 00:00:01.5"}\n'),
])
def test_a_workloads_arrival_column_of_dates_and_times_is_read_as_such(tmp_path, name, content):
    """A 'timestamp' column of ISO dates was refused "cannot read arrival times in column timestamp (seconds as
    numbers)": dates carry their own unit (an API log's were read), and that column's numbers are milliseconds."""
    from kvplan.workload import WorkloadSpec, build_workload

    path = tmp_path / name
    path.write_text(content)
    w = build_workload(WorkloadSpec(str(path)))
    assert list(w.arrival_s) == [0.0, 1.5]
    assert any("read as dates and times" in n for n in w.notes) and not any("milliseconds" in n for n in w.notes)


def test_an_arrival_column_neither_numbers_nor_dates_names_its_own_unit(monkeypatch, capsys, tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("prompt_tokens,completion_tokens,timestamp\n100,50,yesterday\n")
    out = refused(monkeypatch, capsys, "--workload", "simulate", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4", "-w", str(path))
    assert "milliseconds as numbers, or ISO 8601 dates and times" in out, out


@pytest.mark.parametrize("search, listed, not_listed", [
    ("A10 MIG", [], ["A100"]),                      # the A10 has no MIG: the A100s were listed as its
    ("H200 MIG", ["NVIDIA H200 141GB"], ["GH200"]),  # the GH200 is another card
    ("A100 MIG", ["NVIDIA A100 40GB SXM4", "NVIDIA A100 80GB SXM4"], ["A30"]),
])
def test_gpus_mig_lists_the_cards_the_words_name_as_gpu_reads_them(monkeypatch, capsys, search, listed, not_listed):
    """`kvplan gpus 'A10 MIG'` listed the A100s' profiles (a substring search) while `fit --gpu 'A10 MIG 1g.5gb'` says
    the A10 has no MIG."""
    import json

    code, out, err = run_cli(monkeypatch, capsys, "gpus", search, "--json")
    names = [g["name"] for g in json.loads(out)]
    assert code == 0 and all(n in names for n in listed), names
    assert not any(word in n for n in names for word in not_listed), names


def test_a_sweep_plot_named_in_capitals_is_written(monkeypatch, capsys, tmp_path):
    """--plot sweep.PNG was refused "is not a .png or .svg file name"; matplotlib writes it as a PNG."""
    pytest.importorskip("matplotlib")
    target = tmp_path / "sweep.PNG"
    code, out, err = run_cli(monkeypatch, capsys, "sweep", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4",
                             "--vary", "max_model_len=4096,8192", "--plot", str(target))
    assert code == 0 and target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", err


@pytest.mark.parametrize("in_the_way, force", [("k8s", False), ("k8s", True), ("serve.sh/", True)])
def test_scaffold_refuses_a_path_in_the_way_before_writing_anything(monkeypatch, capsys, tmp_path, in_the_way, force):
    """A file named k8s in the folder (where k8s/ goes) stopped the write half-way: serve.sh, compose, client.py and the
    README were written, then "error: .../k8s: File exists (check the path and its permissions)"."""
    out_dir = tmp_path / "deploy"
    out_dir.mkdir()
    if in_the_way.endswith("/"):
        (out_dir / in_the_way).mkdir()
    else:
        (out_dir / in_the_way).write_text("x")
    before = sorted(p.name for p in out_dir.iterdir())
    out = refused(monkeypatch, capsys, "DIR", "scaffold", str(out_dir), "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4",
                  *(["--force"] if force else []))
    assert ("is a file, where kvplan scaffold writes the folder k8s/" in out if in_the_way == "k8s" else
            "is a folder, where kvplan scaffold writes the file serve.sh" in out), out
    assert sorted(p.name for p in out_dir.iterdir()) == before  # nothing written


@pytest.mark.parametrize("command", ["simulate", "capacity"])
def test_a_pool_no_gpu_of_the_plan_holds_is_refused(monkeypatch, capsys, command):
    """--num-gpu-blocks 1000000000000 (a typo's extra zeros: 196 PB of KV cache on a 22 GiB L4) was simulated as given,
    with a worst-case concurrency of 488,281,250x."""
    out = refused(monkeypatch, capsys, "--num-gpu-blocks", command, "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4",
                  "-w", "azure-conv", "-n", "50", *(["--rate", "4"] if command == "simulate" else ["--slo", "ttft=1s"]),
                  "--num-gpu-blocks", "1000000000000")
    assert "more than the whole NVIDIA L4's 21.95 GiB" in out and "at most 119,884 blocks" in out, out


def test_a_pool_the_gpu_holds_is_simulated_as_given(monkeypatch, capsys):
    code, out, err = run_cli(monkeypatch, capsys, "simulate", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4", "-w",
                             "azure-conv", "-n", "50", "--rate", "4", "--num-gpu-blocks", "119884", "--json")
    import json

    assert code == 0 and json.loads(out)["engine"]["num_gpu_blocks"] == 119884, err


@pytest.mark.parametrize("header", [b'{"a": 1}', b'[1, 2]',
                                    b'{"w": {"dtype": "BF16", "shape": [2], "data_offsets": [4, 2]}}'])
def test_a_safetensors_file_whose_json_header_is_no_tensor_table_is_called_so(monkeypatch, capsys, tmp_path, header):
    """A model.safetensors whose header parsed as JSON but held no tensor entries ended `kvplan fit FOLDER` with
    "internal error: TypeError: 'int' object is not subscriptable" (exit 3)."""
    import json
    import struct

    from kvplan.resolve import model_catalog

    folder = tmp_path / "ckpt"
    folder.mkdir()
    entry = model_catalog()["Qwen/Qwen2.5-0.5B-Instruct"]
    (folder / "config.json").write_text(json.dumps(entry.get("config", entry)))
    (folder / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header)
    out = refused(monkeypatch, capsys, "checkpoint", "fit", str(folder), "--gpu", "L4")
    assert "model.safetensors is not a safetensors file" in out and "re-download it" in out, out



@pytest.mark.parametrize("model_id, path, value, says", [
    ("tiiuae/Falcon-H1-7B", ["mamba_d_ssm"], {"a": 1}, "mamba_d_ssm must be a whole number, got an object"),
    ("Qwen/Qwen3.5-35B-A3B", ["text_config", "mamba_ssm_dtype"], 1.5, "text_config.mamba_ssm_dtype must be a dtype name"),
    ("poolside/Laguna-S-2.1-FP8", ["quantization_config", "config_groups", "group_0", "targets"], 7,
     "quantization_config.config_groups.group_0.targets must be a list of names"),
    ("Qwen/Qwen3-235B-A22B-FP8", ["quantization_config", "weight_block_size"], [128],
     "quantization_config.weight_block_size must be two whole numbers"),
    ("nvidia/Gemma-4-26B-A4B-NVFP4", ["text_config", "global_head_dim"], [512], "text_config.global_head_dim must be a whole number"),
    ("deepseek-ai/DeepSeek-V2-Lite", ["moe_layer_freq"], [1], "moe_layer_freq must be a whole number"),
    ("Qwen/Qwen3-235B-A22B-FP8", ["mlp_only_layers"], 3, "mlp_only_layers must be a list of whole numbers"),
    ("Qwen/Qwen3.6-35B-A3B", ["vision_config", "out_hidden_size"], [2048], "vision_config.out_hidden_size must be a whole number"),
    ("deepseek-ai/DeepSeek-V4-Pro", ["o_lora_rank"], "x", "o_lora_rank must be a whole number"),
    ("Qwen/Qwen2.5-72B-Instruct-AWQ", ["quantization_config", "group_size"], [128], "quantization_config.group_size must be"),
    ("nvidia/Qwen3.6-35B-A3B-NVFP4", ["quantization_config", "quantized_layers", "model.language_model.layers.0.linear_attn.out_proj"],
     5, "must be an object of settings"),
    ("google/gemma-4-26B-A4B", ["vision_config", "position_embedding_size"], "x", "position_embedding_size must be a whole number"),
    ("google/gemma-4-26B-A4B", ["vision_config", "default_output_length"], [1], "default_output_length must be a whole number"),
    ("deepseek-ai/DeepSeek-V3", ["rope_scaling", "factor"], 1e308, "rope_scaling.factor must be a number > 0 and at most 1,000,000"),
    ("openai/gpt-oss-20b", ["rope_scaling", "original_max_position_embeddings"], [4096],
     "rope_scaling.original_max_position_embeddings must be a whole number"),
    # a tower's counts given as lists (the language model's own num_key_value_heads may be one per layer): TypeError
    ("google/gemma-4-26B-A4B", ["vision_config", "num_key_value_heads"], [16, 16],
     "vision_config.num_key_value_heads must be a whole number (the vision_config tower's sizes are one number"),
    ("meta-llama/Llama-3.2-11B-Vision", ["vision_config", "hidden_size"], [1280, 1280],
     "vision_config.hidden_size must be a whole number"),
    ("Qwen/Qwen3-VL-2B-Instruct", ["vision_config", "hidden_size"], [1024], "vision_config.hidden_size must be a whole number"),
])
def test_a_damaged_config_value_is_refused_naming_its_key_not_an_internal_error(monkeypatch, capsys, tmp_path, model_id,
                                                                                path, value, says):
    """A config.json value of the wrong shape (an object for a count, a list for a dimension read as one number, a
    number for a dtype or a name list) ended `kvplan fit CONFIG` with "internal error: TypeError / KeyError /
    IndexError / ValueError" (exit 3): found by mutating catalog configs."""
    import json

    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(catalog_config_with(model_id, path, value)))
    code, out, err = run_cli(monkeypatch, capsys, "fit", str(cfg), "--gpu", "H100", "--max-model-len", "4096")
    text = " ".join((out + err).split())
    assert code == 2 and "internal error" not in text and says in text and "fix the config.json" in text, text


def test_every_catalog_config_still_passes_the_value_check():
    from kvplan.resolve import check_config_values, model_catalog

    for entry in model_catalog().values():
        check_config_values(entry["config"])
        check_config_values(entry.get("resolved_config") or {})


@pytest.mark.parametrize("key, value", [("rope_scaling", 5), ("quantization_config", 5), ("text_config", 5),
                                        ("vision_config", [])])
def test_an_override_of_a_settings_object_with_a_number_is_refused(monkeypatch, capsys, key, value):
    """--hf-overrides '{"rope_scaling": 5}' (or quantization_config: 5) planned a start as if the key were absent."""
    import json

    out = refused(monkeypatch, capsys, "--hf-overrides", "fit", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4",
                  "--hf-overrides", json.dumps({key: value}))
    assert f"{key} must be an object of settings (or null)" in out, out


def test_a_given_total_above_the_named_cards_is_planned_with_a_warning():
    """`--gpu L4 --gpu-gib 30` planned a 30 GiB L4 shown '(given)' without a word; a total below the card's (a MIG
    slice, a vGPU profile) stays a plain note."""
    import kvplan

    p = kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "L4", gpu_gib=30, fixes=False)
    assert p.gpu.total_bytes == 30 * 2**30
    [w] = [w for w in p.warnings if "more than the NVIDIA L4" in w]
    assert "--gpu-gib 30" in w and "21.95 GiB" in w and "drop --gpu-gib" in w, w
    p = kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "L4", gpu_gb=40, fixes=False)
    assert any("--gpu-gb 40 is more than the NVIDIA L4" in w for w in p.warnings), p.warnings
    for size in (18, 21.95):  # below (or at) the card's CUDA total: silent
        p = kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "L4", gpu_gib=size, fixes=False)
        assert not any("more than" in w for w in p.warnings), p.warnings


def test_a_top_level_per_layer_kv_head_list_is_still_read():
    """The tower check does not refuse the language model's own per-layer lists (uniform ones are read as one count)."""
    from kvplan.resolve import check_config_values

    check_config_values({"num_key_value_heads": [8, 8, 8], "text_config": {"num_key_value_heads": [4, 4]},
                         "vision_config": {"deepstack_visual_indexes": [5, 11, 17], "num_key_value_heads": 16}})
