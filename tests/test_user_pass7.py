"""A new user's pass over the launch-file readers added last: a values file of vLLM's Helm chart (`--from
values.yaml#NAME`), a compose service's command, environment and GPU reservation, and a shell line's `vllm serve`
command (prefixes that run it as their argument, redirections). Each case was an internal error, a run past 30 s, or
a plan from input that should be refused or a refusal of a command bash runs as planned."""

from __future__ import annotations

import time

import pytest

from cli_runner import refused

M = "servingEngineSpec.modelSpec[0]"


def _anchors() -> str:
    """Nine lists of nine references, nested nine deep, as a YAML document's first key: *a9 is 9**9 words once
    written out."""
    lines = ["x-bomb:", '  a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    return "\n".join(lines) + "\n"


def _values(**entry) -> str:
    spec = {"name": "qwen", "repository": "vllm/vllm-openai", "tag": "v0.11.0", "modelURL": "Qwen/Qwen3-8B",
            "requestGPU": "1", "vllmConfig": "{maxModelLen: 8192}"}
    spec.update(entry)
    return _anchors() + "servingEngineSpec:\n  modelSpec:\n  - " + "\n    ".join(f"{k}: {v}" for k, v in spec.items()) + "\n"


@pytest.mark.parametrize("key", ["name", "requestGPU", "requestGPUType", "chatTemplate"])
def test_a_yaml_alias_bomb_in_a_helm_values_key_is_refused_by_that_key(monkeypatch, capsys, tmp_path, key):
    # before: str() of the value (the entry's name for #NAME, sprig's int of requestGPU, the limit's resource name,
    # the chat template's path) wrote 9**9 words: past 30 s and gigabytes
    path = tmp_path / "values.yaml"
    path.write_text(_values(**{key: "*a9"}))
    start = time.monotonic()
    text = refused(monkeypatch, capsys, f"{M}.{key}", "fit", "--gpu", "L4", "--from", str(path))
    assert time.monotonic() - start < 20 and len(text) < 2000


def _compose(service: str) -> str:
    return _anchors() + "services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n" + service


@pytest.mark.parametrize("service, field", [
    ("    command: [--model, Qwen/Qwen3-8B, *a9]\n", "services.vllm.command[2]"),
    ("    entrypoint: *a9\n    command: [--model, Qwen/Qwen3-8B]\n", "services.vllm.entrypoint[0]"),
    ("    command: [--model, Qwen/Qwen3-8B]\n    environment: {VLLM_USE_V1: *a9}\n",
     "services.vllm.environment.VLLM_USE_V1"),
    ("    command: [--model, Qwen/Qwen3-8B]\n    environment: [*a9]\n", "services.vllm.environment[0]"),
    ("    command: [--model, Qwen/Qwen3-8B]\n    deploy: {resources: {reservations: {devices: [{capabilities: [gpu], "
     "count: *a9}]}}}\n", "services.vllm.deploy.resources.reservations.devices[0].count"),
], ids=["command", "entrypoint", "environment-map", "environment-list", "reservation-count"])
def test_a_yaml_alias_bomb_in_a_compose_service_is_refused_by_its_field(monkeypatch, capsys, tmp_path, service, field):
    # before: the compose reader's str() of each value (for interpolation) wrote 9**9 words: past 30 s and gigabytes
    path = tmp_path / "compose.yaml"
    path.write_text(_compose(service))
    start = time.monotonic()
    text = refused(monkeypatch, capsys, field, "fit", "--gpu", "L4", "--from", str(path))
    assert time.monotonic() - start < 20 and len(text) < 2000
