"""`--from` a Ray Serve LLM config (`serve run config.yaml`, ray.serve.llm:build_openai_app): the LLMConfig's
engine_kwargs as vllm serve's flags, model_loading_config.model_source as the model, runtime_env.env_vars as the
environment and accelerator_type's GPU (Ray's label) planned where no --gpu is given. Before: "no `vllm serve ...`
command found"."""

from __future__ import annotations

from cli_runner import planned_json as _json, refused

CONFIG = """\
applications:
- name: llm_app
  route_prefix: "/"
  import_path: ray.serve.llm:build_openai_app
  args:
    llm_configs:
      - model_loading_config:
          model_id: qwen-8b
          model_source: Qwen/Qwen3-8B
        accelerator_type: L4
        deployment_config:
          autoscaling_config: {min_replicas: 1, max_replicas: 2}
        engine_kwargs:
          max_model_len: 16384
          enable_prefix_caching: true
          compilation_config: {cudagraph_mode: FULL_AND_PIECEWISE}
        runtime_env:
          env_vars:
            VLLM_USE_V1: "1"
"""
DIRECT = ["Qwen/Qwen3-8B", "--gpu", "L4", "--max-model-len", "16384", "--enable-prefix-caching", "--vllm-version",
          "0.11.0", "--compilation-config", '{"cudagraph_mode": "FULL_AND_PIECEWISE"}', "--env", "VLLM_USE_V1=1"]


def _write(tmp_path, text: str, name: str = "serve.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_the_llm_config_plans_as_its_engine_kwargs_on_its_accelerator(monkeypatch, capsys, tmp_path):
    plan = _json(monkeypatch, capsys, "fit", "--vllm-version", "0.11.0", "--from", _write(tmp_path, CONFIG))
    direct = _json(monkeypatch, capsys, "fit", *DIRECT)
    assert plan["kv_cache_tokens"] == direct["kv_cache_tokens"] and plan["gpu"] == direct["gpu"]
    assert plan["args"] == direct["args"]
    notes = plan["from_command"]["notes"]
    assert any("accelerator_type = L4: planned on --gpu 'NVIDIA L4'" in n for n in notes), notes


def test_several_models_are_chosen_by_model_id(monkeypatch, capsys, tmp_path):
    two = CONFIG + ("      - model_loading_config: {model_id: small, model_source: Qwen/Qwen2.5-0.5B-Instruct}\n"
                    "        accelerator_type: L4\n")
    path = _write(tmp_path, two)
    out = refused(monkeypatch, capsys, "--from", "fit", "--from", path)
    assert "serves 2 models (qwen-8b, small)" in out and f"--from {path}#MODEL_ID" in out
    small = _json(monkeypatch, capsys, "fit", "--from", f"{path}#small")
    assert small["model"] == "Qwen/Qwen2.5-0.5B-Instruct" and "L4" in small["gpu"]


def test_an_llm_config_in_its_own_file_is_read_beside_the_config(monkeypatch, capsys, tmp_path):
    entry = CONFIG.split("      - ", 1)[1]
    _write(tmp_path, "".join(line[8:] if i else line for i, line in enumerate(entry.splitlines(True))), "qwen.yaml")
    config = CONFIG.split("    llm_configs:\n")[0] + "    llm_configs:\n      - qwen.yaml\n"
    plan = _json(monkeypatch, capsys, "fit", "--vllm-version", "0.11.0", "--from", _write(tmp_path, config))
    assert plan["kv_cache_tokens"] == _json(monkeypatch, capsys, "fit", *DIRECT)["kv_cache_tokens"]


def test_a_label_of_two_cards_leaves_the_gpu_to_gpu(monkeypatch, capsys, tmp_path):
    config = CONFIG.replace("accelerator_type: L4", "accelerator_type: A100")
    plan = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--vllm-version", "0.11.0", "--from", _write(tmp_path, config))
    assert "L4" in plan["gpu"]
    assert any("accelerator_type = A100: a Ray label of more than one card" in n for n in plan["from_command"]["notes"])


def test_the_pasted_config_reads_as_the_file_does(tmp_path):
    from kvplan.serve_command import parse_serve_command

    pasted, from_file = parse_serve_command(CONFIG, text_only=True), parse_serve_command(_write(tmp_path, CONFIG))
    assert pasted.model == from_file.model == "Qwen/Qwen3-8B" and pasted.planned == from_file.planned
    assert pasted.sized_for[0] == {"gpu": "NVIDIA L4"}
