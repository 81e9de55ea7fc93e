"""A new user's pass over `--from` a Kubernetes manifest and the newly modelled flags: odd types in the manifest's fields,
`$(VAR)` references that grow without bound, a manifest as one line of JSON or as broken YAML, and GPU counts past any
deployment. Each case was an internal error (exit 3), a plan from a field read as absent, or a misleading refusal."""

from __future__ import annotations

import json
import time

import pytest
import yaml

from cli_runner import refused, refused_at_once, run_cli

C = "spec.containers[0]"


def _pod(**container) -> dict:
    c = {"name": "vllm", "image": "vllm/vllm-openai:v0.11.0", "command": ["vllm", "serve"],
         "args": ["Qwen/Qwen3-8B", "--max-model-len", "8192"], "resources": {"limits": {"nvidia.com/gpu": 1}}}
    c.update(container)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [c]}}


def _write(tmp_path, obj, name="pod.yaml") -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(obj) if name.endswith(".yaml") else json.dumps(obj))
    return str(path)


@pytest.mark.parametrize("key, value", [
    ("env", 5), ("env", True), ("env", 1.5), ("env", ""), ("env", 0), ("env", "VLLM_USE_V1=1"),
    ("envFrom", 5), ("envFrom", ""), ("envFrom", {"secretRef": {"name": "s"}}),
])
def test_env_that_is_no_list_is_refused_by_its_field(monkeypatch, capsys, tmp_path, key, value):
    # before: env 5 / envFrom 5 "internal error: TypeError: 'int' object is not iterable"; env "" or 0 read as no env
    src = _write(tmp_path, _pod(**{key: value}))
    text = refused(monkeypatch, capsys, f"{C}.{key}", "fit", "--gpu", "L4", "--from", src)
    assert "not a list" in text and f"write it as a list: {key}:" in text


@pytest.mark.parametrize("entry", ["my-config", 5, 1.5, True, None, [{"configMapRef": {"name": "c"}}]])
def test_env_from_entry_that_is_no_map_is_refused_by_its_field(monkeypatch, capsys, tmp_path, entry):
    # before: read as a source of variables kvplan cannot know, planned with a note (the API takes an EnvFromSource map)
    src = _write(tmp_path, _pod(envFrom=[{"configMapRef": {"name": "c"}}, entry]))
    text = refused(monkeypatch, capsys, f"{C}.envFrom[1]", "fit", "--gpu", "L4", "--from", src)
    assert "not a map" in text and "configMapRef or secretRef" in text, text


def test_env_entry_with_an_empty_name_is_refused(monkeypatch, capsys, tmp_path):
    # before: planned, the value set under the name '' (the Kubernetes API refuses an env entry without a name)
    src = _write(tmp_path, _pod(env=[{"name": "", "value": "1"}]))
    refused(monkeypatch, capsys, f"{C}.env[0]", "fit", "--gpu", "L4", "--from", src)


@pytest.mark.parametrize("resources, field", [
    (5, f"{C}.resources"), ("nvidia.com/gpu: 1", f"{C}.resources"), ([{"limits": {"nvidia.com/gpu": 1}}], f"{C}.resources"),
    ({"limits": "nvidia.com/gpu=1"}, f"{C}.resources.limits"), ({"limits": [1]}, f"{C}.resources.limits"),
])
def test_resources_that_are_no_map_are_refused(monkeypatch, capsys, tmp_path, resources, field):
    # before: read as no limits, planned with the note 'sets no resources.limits["nvidia.com/gpu"]'
    src = _write(tmp_path, _pod(resources=resources))
    assert "not a map" in refused(monkeypatch, capsys, field, "fit", "--gpu", "L4", "--from", src)


@pytest.mark.parametrize("count", [2 ** 70, 65_537, "99999999999999999999999"])
def test_gpu_limit_past_any_pod_is_refused(monkeypatch, capsys, tmp_path, count):
    from kvplan.resolve import MAX_GPU_COUNT

    # before: 'the pod holds 1180591620717411303424 GPUs and vLLM uses 1 (...); 1180591620717411303423 of them idle'
    src = _write(tmp_path, _pod(resources={"limits": {"nvidia.com/gpu": count}}))
    text = refused(monkeypatch, capsys, f'{C}.resources.limits["nvidia.com/gpu"]', "fit", "--gpu", "L4", "--from", src)
    assert f"at most {MAX_GPU_COUNT:,}" in text
    # the cap itself is planned, its idle GPUs named
    src = _write(tmp_path, _pod(resources={"limits": {"nvidia.com/gpu": MAX_GPU_COUNT}}))
    code, out, err = run_cli(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", src, "--json")
    assert code == 0, err
    assert any(f"{MAX_GPU_COUNT - 1} of them idle" in n for n in json.loads(out)["from_command"]["notes"])


@pytest.mark.parametrize("image", [5, 0.11, ["vllm/vllm-openai:v0.11.0"], {"name": "vllm/vllm-openai:v0.11.0"}, True])
def test_image_that_is_no_string_is_refused(monkeypatch, capsys, tmp_path, image):
    # before: str() of it read as an image that pins no release, planned at kvplan's default release
    src = _write(tmp_path, _pod(image=image))
    assert "not a string" in refused(monkeypatch, capsys, f"{C}.image", "fit", "--gpu", "L4", "--from", src)


@pytest.mark.parametrize("command", [5, {"vllm": "serve"}, True])
def test_command_that_is_no_list_is_named_on_the_vllm_image(monkeypatch, capsys, tmp_path, command):
    # before: command 5 (or a map) passed the container over: 'has no container that runs vLLM ... in its Pod'
    src = _write(tmp_path, _pod(command=command))
    refused(monkeypatch, capsys, f"{C}.command", "fit", "--gpu", "L4", "--from", src)


def test_references_that_double_at_each_step_are_refused_quickly(monkeypatch, capsys, tmp_path):
    # A0 = $(A)$(A), A1 = $(A0)$(A0), ...: 2**40 characters at A39. Before: the process grew until the kernel killed it;
    # env[18] (A17, 2**18 characters) is the first past 131,072
    env = [{"name": "A", "value": "x"}] + [{"name": f"A{i}", "value": f"$(A{i - 1})$(A{i - 1})" if i else "$(A)$(A)"}
                                           for i in range(40)]
    src = _write(tmp_path, _pod(env=env, args=["Qwen/Qwen3-8B", "--max-model-len", "8192", "--port", "$(A39)"]))
    start = time.monotonic()
    text = refused(monkeypatch, capsys, f"{C}.env[18].value", "fit", "--gpu", "L4", "--from", src)
    assert time.monotonic() - start < 20
    assert "131,072 characters" in text and "MAX_ARG_STRLEN" in text


def test_one_long_argument_from_many_references_is_refused(monkeypatch, capsys, tmp_path):
    src = _write(tmp_path, _pod(env=[{"name": "V", "value": "x" * 1000}],
                                args=["Qwen/Qwen3-8B", "--max-model-len", "8192", "--port", "$(V)" * 200]))
    refused(monkeypatch, capsys, f"{C}.args[4]", "fit", "--gpu", "L4", "--from", src)


def test_expansion_below_the_limit_is_unchanged():
    from kvplan.launch_vars import ExpansionTooLong, expand_kubernetes

    assert expand_kubernetes("$(A)" * 3, {"A": "xy"}.get, limit=6) == "xyxyxy"
    with pytest.raises(ExpansionTooLong):
        expand_kubernetes("$(A)" * 4, {"A": "xy"}.get, limit=6)


def test_manifest_as_one_line_of_json_reads_as_its_file(monkeypatch, capsys, tmp_path):
    # `--from "$(kubectl get pod p -o json | jq -c .)"`; the page read it, the command line said 'no `vllm serve ...`
    # command found'
    pod = _pod()
    code, out, err = run_cli(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", _write(tmp_path, pod, "pod.json"),
                             "--json")
    assert code == 0, err
    from_file = json.loads(out)
    code, out, err = run_cli(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", json.dumps(pod), "--json")
    assert code == 0, err
    one_line = json.loads(out)
    assert one_line["kv_cache_tokens"] == from_file["kv_cache_tokens"] and one_line["args"] == from_file["args"]
    assert one_line["from_command"]["command"].startswith("the manifest (Pod p): vllm serve Qwen/Qwen3-8B")


def test_broken_yaml_manifest_names_the_yaml_error(monkeypatch, capsys, tmp_path):
    text = yaml.safe_dump(_pod()) + "  :\n bad: [\n"
    path = tmp_path / "pod.yaml"
    path.write_text(text)
    for source in (str(path), text):
        out = refused(monkeypatch, capsys, "--from", "fit", "--gpu", "L4", "--from", source)
        assert "not valid YAML" in out and "at line" in out, out


@pytest.mark.parametrize("tail, reason", [
    ("    resources: {limits: {nvidia.com/gpu: " + "1" * 5000 + "}}\n", "Exceeds the limit (4300 digits)"),
    ("    x: " + "[" * 50000 + "]" * 50000 + "\n", "nested too deeply"),
], ids=["5000-digit-int", "50000-deep"])
def test_a_manifest_yaml_cannot_hold_is_named(monkeypatch, capsys, tmp_path, tail, reason):
    # an integer past int()'s digits, lists nested past the recursion limit: PyYAML raises no marked error
    path = tmp_path / "pod.yaml"
    path.write_text(_CONTAINER_HEAD + tail)
    text = refused(monkeypatch, capsys, "--from", "fit", "--gpu", "L4", "--from", str(path))
    assert "not valid YAML" in text and reason in text


_CONTAINER_HEAD = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: v\n"
                   "    image: vllm/vllm-openai:v0.11.0\n    command: [vllm, serve, Qwen/Qwen3-8B]\n")


def test_a_manifest_json_with_tabs_reads(monkeypatch, capsys, tmp_path):
    path = tmp_path / "pod.json"
    path.write_text(json.dumps(_pod(), indent="\t"))
    code, out, err = run_cli(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", str(path), "--json")
    assert code == 0, err
    assert json.loads(out)["args"]["max_model_len"] == 8192


def test_a_length_of_5000_digits_is_quoted_not_read_as_inf(monkeypatch, capsys):
    # '1' x 5,000 is past int()'s digits: logs' flag reader took float() of it, inf, and the refusal quoted 'inf'
    text = refused(monkeypatch, capsys, "--max-model-len", "fit", "--gpu", "L4", "--from",
                   "vllm serve Qwen/Qwen3-8B --max-model-len " + "1" * 5000)
    assert "'inf'" not in text and "5000 characters" in text


def test_log_flag_values_keep_non_finite_text():
    from kvplan.logs import parse_command_args

    args = parse_command_args("vllm serve m --max-model-len " + "1" * 5000 + " --num-gpu-blocks-override 1e999 "
                              "--gpu-memory-utilization 0.9")
    assert args["max_model_len"] == "1" * 5000 and args["num_gpu_blocks_override"] == "1e999"
    assert args["gpu_memory_utilization"] == 0.9


@pytest.mark.parametrize("flags, field", [
    (("-tp", "2", "-pcp", str(2 ** 62)), "--prefill-context-parallel-size"),
    (("-tp", "2", "-pcp", "70000"), "--prefill-context-parallel-size"),
    (("-tp", "16", "--data-parallel-size", "65536"), "--data-parallel-size"),
])
def test_gpu_counts_past_any_deployment_are_refused(monkeypatch, capsys, flags, field):
    # before: 'NVIDIA H100 80GB SXM5 x 9223372036854775808 (TP 2 x PP 1 x PCP 4611686018427387904 x DP 1)' planned
    refused(monkeypatch, capsys, field, "fit", "deepseek-ai/DeepSeek-V2-Lite", "--gpu", "H100", "--max-model-len", "8192",
            *flags)


def test_python_api_refuses_a_huge_pcp():
    import kvplan
    from kvplan.errors import InputError

    with pytest.raises(InputError) as e:
        kvplan.fit("deepseek-ai/DeepSeek-V2-Lite", "H100", detect_gpu=False, fixes=False, max_model_len=8192,
                   tensor_parallel_size=2, prefill_context_parallel_size=2 ** 70)
    assert e.value.field == "--prefill-context-parallel-size"


def test_web_from_command_env_that_is_no_list_is_a_400():
    from fastapi.testclient import TestClient

    from kvplan.web.app import create_app

    client = TestClient(create_app(), raise_server_exceptions=False)
    text = yaml.safe_dump(_pod(env=5))
    for url, body in (("/api/from_command", {"from_command": text}),
                      ("/api/plan", {"from_command": text, "gpu": "L4", "curve": False})):
        r = client.post(url, json=body)
        assert r.status_code == 400, r.text  # before: 500 'internal error: TypeError'
        assert r.json()["field"] == "from_command" and f"{C}.env: is 5, not a list" in r.json()["message"]


@pytest.mark.parametrize("command, args", [
    (["sh", "-c", 'exec vllm serve "$@"', "--"], ["Qwen/Qwen3-8B", "--max-model-len", "8192"]),
    (["/bin/bash", "-c"], ['vllm serve Qwen/Qwen3-8B "$@"', "vllm", "--max-model-len", "8192"]),
    (["sh", "-c"], ["vllm serve Qwen/Qwen3-8B $*", "x", "--max-model-len 8192"]),
])
def test_shell_wrapper_arguments_are_planned(monkeypatch, capsys, tmp_path, command, args):
    # `sh -c SCRIPT NAME ARGS...`: "$@" is ARGS. Before: read as none, Qwen3-8B planned at its 40,960 tokens
    src = _write(tmp_path, _pod(command=command, args=args))
    code, out, err = run_cli(monkeypatch, capsys, "fit", "--gpu", "H100", "--from", src, "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["args"]["max_model_len"] == 8192 and d["model"] == "Qwen/Qwen3-8B"
    assert d["from_command"]["command"].endswith("vllm serve Qwen/Qwen3-8B --max-model-len 8192")


def test_shell_wrapper_arguments_read_elsewhere_are_refused(monkeypatch, capsys, tmp_path):
    src = _write(tmp_path, _pod(command=["sh", "-c", 'set -- "$@" --max-model-len 4096\nvllm serve Qwen/Qwen3-8B "$@"', "x",
                                         "--max-model-len", "8192"], args=None))
    assert "outside its vllm serve line" in refused(monkeypatch, capsys, f"{C}.command", "fit", "--gpu", "H100", "--from", src)


def _alias_bomb(container_yaml: str) -> str:
    """A Pod whose container field is *a9: nine lists of nine references, nested nine deep (9**9 words once written)."""
    lines = ["apiVersion: v1", "kind: Pod", "metadata: {name: p}", "x:", '  a0: &a0 ["lol", "lol", "lol", "lol", "lol", '
             '"lol", "lol", "lol", "lol"]']
    lines += [f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    return "\n".join(lines) + ("\nspec:\n  containers:\n  - name: v\n    image: vllm/vllm-openai:v0.11.0\n"
                               + container_yaml)


@pytest.mark.parametrize("container, field", [
    ("    command: [vllm, serve]\n    args: [Qwen/Qwen3-8B, *a9]\n", f"{C}.args[1]"),
    ("    command: [vllm, serve, Qwen/Qwen3-8B]\n    env: [{name: A, value: *a9}]\n", f"{C}.env[0].value"),
    ("    command: [vllm, serve, Qwen/Qwen3-8B]\n    resources: *a9\n", f"{C}.resources"),
    ("    command: [vllm, serve, Qwen/Qwen3-8B]\n    resources: {limits: {nvidia.com/gpu: *a9}}\n",
     f'{C}.resources.limits["nvidia.com/gpu"]'),
], ids=["args", "env-value", "resources", "gpu-limit"])
def test_a_yaml_alias_bomb_is_refused_without_writing_it_out(monkeypatch, capsys, tmp_path, container, field):
    # before: repr() / str() of the value in the error (or the check) wrote 9**9 words: past 30 s and 1.8 GB
    path = tmp_path / "pod.yaml"
    path.write_text(_alias_bomb(container))
    refused_at_once(monkeypatch, capsys, field, "fit", "--gpu", "H100", "--from", str(path))


@pytest.mark.parametrize("ref", ["$()", "$(A=B)"])
def test_a_reference_that_names_no_variable_says_so(monkeypatch, capsys, tmp_path, ref):
    # before: "... and  is not in the container's env ... (define  in the container's env (name: , value: ...)"
    src = _write(tmp_path, _pod(args=["Qwen/Qwen3-8B", "--max-model-len", ref]))
    text = refused(monkeypatch, capsys, f"{C}.args[2]", "fit", "--gpu", "L4", "--from", src)
    assert "names no variable a container's env can define" in text and "(name: ," not in text


@pytest.mark.parametrize("selector, field", [
    ("  nodeSelector: {nvidia.com/gpu.product: *a9}\n", 'spec.nodeSelector["nvidia.com/gpu.product"]'),
    ("  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: "
     "[{key: nvidia.com/gpu.product, operator: In, values: *a9}]}]}}}\n",
     "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]"
     ".values"),
], ids=["node-selector", "node-affinity"])
def test_a_yaml_alias_bomb_as_the_gpu_product_is_refused_without_writing_it_out(monkeypatch, capsys, tmp_path,
                                                                                selector, field):
    # before: the GPU-product reader's error wrote the value with repr() (9**9 words): past 30 s and 1.5 GB
    path = tmp_path / "pod.yaml"
    path.write_text(_alias_bomb("    command: [vllm, serve, Qwen/Qwen3-8B]\n").replace("\nspec:\n", "\nspec:\n" + selector))
    refused_at_once(monkeypatch, capsys, field, "fit", "--from", str(path))
