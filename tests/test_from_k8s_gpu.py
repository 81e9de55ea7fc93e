"""`--from` a Kubernetes manifest whose pod is pinned to one GPU product by NVIDIA GPU Feature Discovery's node label
nvidia.com/gpu.product (a nodeSelector, or a required node affinity with one value): that GPU planned where no --gpu
is given (serve_command.gpu_pinned), the catalog card named exactly by the label (resolve.gpu_product_label: the NVML
device name, spaces written '-'; a MIG slice's '-MIG-<profile>'); a --gpu of another card warned of; a label naming no
catalog card, several cards or several products refused naming the field and the fix (--gpu)."""

from __future__ import annotations

import json
import re

import pytest

from cli_runner import refused, run_cli


def _run(monkeypatch, capsys, *args) -> tuple[dict, str]:
    code, out, err = run_cli(monkeypatch, capsys, *args, "--json")
    assert code in (0, 1), out + err
    return json.loads(out), err


def _json(monkeypatch, capsys, *args) -> dict:
    return _run(monkeypatch, capsys, *args)[0]


DEPLOY = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: llm}
spec:
  template:
    spec:
SELECT      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          command: ["vllm", "serve"]
          args: ["Qwen/Qwen3-8B", "--max-model-len", "8192"]
          resources:
            limits: {nvidia.com/gpu: 1}
"""
SPEC = "spec.template.spec"
SELECTOR_FIELD = f'{SPEC}.nodeSelector["nvidia.com/gpu.product"]'
REQUIRED = f"{SPEC}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"


def selector(product: str) -> str:
    return f"      nodeSelector: {{nvidia.com/gpu.product: {product}}}\n"


def affinity(*terms: list) -> str:
    return ("      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n"
            "            nodeSelectorTerms:\n" + "".join(
                "              - matchExpressions: [{key: nvidia.com/gpu.product, operator: In, values: [%s]}]\n"
                % ", ".join(values) for values in terms))


def manifest(tmp_path, select: str) -> str:
    path = tmp_path / "llm.yaml"
    path.write_text(DEPLOY.replace("SELECT", select))
    return str(path)


def test_scaffolds_manifest_with_a_product_selector_plans_that_gpu(monkeypatch, capsys, tmp_path):
    args = ("Qwen/Qwen3-8B", "--gpu", "L4", "--max-model-len", "16384")
    code, _, err = run_cli(monkeypatch, capsys, "scaffold", str(tmp_path / "a"), *args)
    assert code == 0, err
    tokens = int(re.search(r"GPU KV cache size: ([\d,]+) tokens", (tmp_path / "a" / "serve.sh").read_text()).group(1)
                 .replace(",", ""))
    written = (tmp_path / "a" / "k8s" / "deployment.yaml").read_text()
    pinned = written.replace("    spec:\n      initContainers:", "    spec:\n" + selector("NVIDIA-L4")
                             + "      initContainers:", 1)
    assert pinned != written
    path = tmp_path / "pinned.yaml"
    path.write_text(pinned)
    planned = _json(monkeypatch, capsys, "fit", "--from", str(path))  # no --gpu
    given = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", str(tmp_path / "a" / "k8s" / "deployment.yaml"))
    assert planned["kv_cache_tokens"] == given["kv_cache_tokens"] == tokens
    assert planned["gpu"] == given["gpu"] == "NVIDIA L4" and planned["args"] == given["args"]
    assert f"{SELECTOR_FIELD} = NVIDIA-L4: planned on NVIDIA L4" in planned["from_command"]["notes"]
    # scaffold --from the pinned manifest, no --gpu: the files of scaffold --gpu L4 --from the manifest
    code, _, err = run_cli(monkeypatch, capsys, "scaffold", str(tmp_path / "b"), "--from", str(path))
    assert code == 0, err
    code, _, err = run_cli(monkeypatch, capsys, "scaffold", str(tmp_path / "c"), "--gpu", "L4", "--from",
                           str(tmp_path / "a" / "k8s" / "deployment.yaml"))
    assert code == 0, err
    for name in ("serve.sh", "docker-compose.yml", ".env.example", "k8s/deployment.yaml", "README.md"):
        assert (tmp_path / "b" / name).read_text() == (tmp_path / "c" / name).read_text().replace(
            str(tmp_path / "c"), str(tmp_path / "b")), name


@pytest.mark.parametrize("label, gpu", [
    ("NVIDIA-L4", "L4"),
    ("Tesla-T4", "T4"),
    ("NVIDIA-A100-SXM4-80GB", "A100-SXM4-80GB"),
    ("NVIDIA-A100-80GB-PCIe", "A100 80GB PCIe"),
    ("NVIDIA-H100-80GB-HBM3", "H100 SXM"),
    ("NVIDIA-L40S", "L40S"),
])
def test_a_product_label_plans_the_card_it_names(monkeypatch, capsys, tmp_path, label, gpu):
    given = _json(monkeypatch, capsys, "fit", "--gpu", gpu, "--from", manifest(tmp_path, ""))
    for select, field in ((selector(label), SELECTOR_FIELD),
                          (affinity([label]), f"{REQUIRED}.nodeSelectorTerms[0].matchExpressions[0].values")):
        planned = _json(monkeypatch, capsys, "fit", "--from", manifest(tmp_path, select))
        assert (planned["gpu"], planned["kv_cache_tokens"]) == (given["gpu"], given["kv_cache_tokens"])
        assert f"{field} = {label}: planned on {given['gpu']}" in planned["from_command"]["notes"]


@pytest.mark.parametrize("select, field, words", [
    (selector("NVIDIA-L"), SELECTOR_FIELD, "'NVIDIA-L' names no GPU in kvplan's catalog exactly"),  # no partial match
    (selector("NVIDIA-L4-PCIe"), SELECTOR_FIELD, "names no GPU"),
    (selector("V100"), SELECTOR_FIELD, "'V100' names 2 catalog GPUs"),
    (affinity(["NVIDIA-L4", "NVIDIA-L40S"]), f"{REQUIRED}.nodeSelectorTerms[0].matchExpressions[0].values",
     "allows 2 GPU products (NVIDIA-L4, NVIDIA-L40S)"),
    (affinity(["NVIDIA-L4"], ["NVIDIA-H100-80GB-HBM3"]), f"{REQUIRED}.nodeSelectorTerms", "allows 2 GPU products"),
    (selector("NVIDIA-A100-SXM4-40GB-MIG-3g.40gb"), SELECTOR_FIELD, "nor a MIG 3g.40gb slice"),  # an 80 GB card's
    (selector("NVIDIA-A100-SXM4-40GB-MIG-INVALID"), SELECTOR_FIELD, "names no GPU"),  # GFD's invalid MIG strategy
    (selector("NVIDIA-A100-SXM4-40GB-MIG-3g.20gb"), SELECTOR_FIELD, "is a MIG 3g.20gb slice of the NVIDIA A100 40GB "
     "SXM4: vLLM sees the slice's memory"),
    (selector("NVIDIA-L4") + affinity(["NVIDIA-L40S"]),
     f"{SELECTOR_FIELD} and {REQUIRED}.nodeSelectorTerms[0].matchExpressions[0].values", "no node takes the pod"),
])
def test_a_product_label_kvplan_cannot_plan_is_refused_naming_it(monkeypatch, capsys, tmp_path, select, field, words):
    text = refused(monkeypatch, capsys, field, "fit", "--from", manifest(tmp_path, select))
    assert words in text, text
    assert "give --gpu" in text or "--gpu-gib N" in text or "require the one product" in text, text  # the fix


def test_a_mig_label_plans_the_slice_of_the_total_given(monkeypatch, capsys, tmp_path):
    label = "NVIDIA-A100-SXM4-40GB-MIG-3g.20gb"
    planned = _json(monkeypatch, capsys, "fit", "--gpu-gib", "19.5", "--from", manifest(tmp_path, selector(label)))
    given = _json(monkeypatch, capsys, "fit", "--gpu", "A100-SXM4-40GB MIG 3g.20gb", "--gpu-gib", "19.5", "--from",
                  manifest(tmp_path, ""))
    assert planned["gpu"] == given["gpu"] and planned["gpu"].startswith("NVIDIA A100 40GB SXM4 MIG 3g.20gb")
    assert planned["kv_cache_tokens"] == given["kv_cache_tokens"]
    # the mixed MIG strategy's label of the slice's own resource, nvidia.com/mig-3g.20gb.product
    mixed = _json(monkeypatch, capsys, "fit", "--gpu-gib", "19.5", "--from", manifest(
        tmp_path, f"      nodeSelector: {{nvidia.com/mig-3g.20gb.product: {label}}}\n"))
    assert (mixed["gpu"], mixed["kv_cache_tokens"]) == (given["gpu"], given["kv_cache_tokens"])
    # the node's card by nvidia.com/gpu.product, the slice by the container's nvidia.com/mig-3g.20gb limit (mixed
    # strategy): the slice planned; refused without its total, and where the card has no such profile
    whole = manifest(tmp_path, selector("NVIDIA-A100-SXM4-40GB"))
    path = tmp_path / "mixed.yaml"
    path.write_text(open(whole).read().replace("nvidia.com/gpu: 1", "nvidia.com/mig-3g.20gb: 1"))
    d = _json(monkeypatch, capsys, "fit", "--gpu-gib", "19.5", "--from", str(path))
    assert (d["gpu"], d["kv_cache_tokens"]) == (given["gpu"], given["kv_cache_tokens"])
    assert (f'{SELECTOR_FIELD} = NVIDIA-A100-SXM4-40GB and {SPEC}.containers[0].resources.limits["nvidia.com/mig-3g.20gb"]'
            ": planned on NVIDIA A100 40GB SXM4 MIG 3g.20gb") in d["from_command"]["notes"]
    assert "is a MIG 3g.20gb slice" in refused(monkeypatch, capsys, SELECTOR_FIELD, "fit", "--from", str(path))
    path.write_text(path.read_text().replace("mig-3g.20gb", "mig-3g.40gb"))
    assert "nor a MIG 3g.40gb slice" in refused(monkeypatch, capsys, SELECTOR_FIELD, "fit", "--from", str(path))
    # the whole card given for the slice's pod: planned, and warned of
    d, err = _run(monkeypatch, capsys, "fit", "--gpu", "A100-SXM4-40GB", "--from", manifest(tmp_path, selector(label)))
    assert d["gpu"] == "NVIDIA A100 40GB SXM4" and f"pins the pod to {label}" in " ".join(err.split())


def test_a_gpu_given_is_planned_and_another_pinned_one_warned_of(monkeypatch, capsys, tmp_path):
    path = manifest(tmp_path, selector("NVIDIA-H100-80GB-HBM3"))
    plain = _json(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", manifest(tmp_path, ""))
    path = manifest(tmp_path, selector("NVIDIA-H100-80GB-HBM3"))
    d, err = _run(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", path)
    assert (d["gpu"], d["kv_cache_tokens"]) == (plain["gpu"], plain["kv_cache_tokens"])
    warning = (f"--gpu L4 plans the NVIDIA L4, and {SELECTOR_FIELD} pins the pod to NVIDIA-H100-80GB-HBM3 (NVIDIA H100 "
               "80GB SXM5)")
    assert "warning: " + warning in " ".join(err.split())
    assert any(n.startswith(warning) for n in d["from_command"]["notes"])
    # the same card by another name: no warning
    d, err = _run(monkeypatch, capsys, "fit", "--gpu", "H100", "--from", path)
    assert "pins the pod" not in err and f"{SELECTOR_FIELD} = NVIDIA-H100-80GB-HBM3: the pod's GPU, as --gpu H100 " \
        "names it" in d["from_command"]["notes"]
    # a label no catalog card answers to beside --gpu: planned on --gpu, said
    d, err = _run(monkeypatch, capsys, "fit", "--gpu", "L4", "--from", manifest(tmp_path, selector("NVIDIA-X9")))
    assert d["gpu"] == "NVIDIA L4" and any("names no catalog GPU exactly" in n for n in d["from_command"]["notes"])


def test_the_other_commands_with_from_plan_the_pinned_gpu(monkeypatch, capsys, tmp_path):
    path = manifest(tmp_path, selector("NVIDIA-L4"))
    rows = _json(monkeypatch, capsys, "sweep", "--from", path, "--vary", "max_model_len=4096,8192")
    assert [r["gpu"] for r in rows["rows"]] == ["NVIDIA L4", "NVIDIA L4"], rows
    rows = _json(monkeypatch, capsys, "sweep", "--from", path, "--vary", "gpu=L40S,H100")
    assert [r["gpu"] for r in rows["rows"]] == ["L40S", "H100"]
    assert f"{SELECTOR_FIELD} = NVIDIA-L4: not planned, --vary gpu names each row's GPU" in rows["from_command"]["notes"]
    assert _json(monkeypatch, capsys, "simulate", "--from", path, "-w", "azure-conv", "--rate", "1")["gpu"] == "NVIDIA L4"
    assert _json(monkeypatch, capsys, "capacity", "--from", path, "-w", "azure-conv",
                 "--slo", "tpot=100ms")["gpu"] == "NVIDIA L4"
    # preflight checks this machine's GPU: the pod's is said, not planned
    d = _json(monkeypatch, capsys, "preflight", "--from", path)
    assert f"{SELECTOR_FIELD} = NVIDIA-L4: the pod runs on NVIDIA L4; this machine's GPU is checked here (give --gpu " \
        "to plan the pod's)" in d["from_command"]["notes"]


def test_the_page_plans_a_pasted_manifests_pinned_gpu(tmp_path):
    pytest.importorskip("fastapi", reason="kvplan[web] is not installed")
    from fastapi.testclient import TestClient

    from kvplan.web.app import create_app

    client = TestClient(create_app(upload_dir=str(tmp_path / "uploads")))
    pinned = DEPLOY.replace("SELECT", selector("NVIDIA-L4"))
    r = client.post("/api/plan", json={"from_command": pinned, "curve": False})
    given = client.post("/api/plan", json={"from_command": DEPLOY.replace("SELECT", ""), "gpu": "L4", "curve": False})
    assert r.status_code == given.status_code == 200, r.text
    assert (r.json()["gpu"], r.json()["kv_cache_tokens"]) == (given.json()["gpu"], given.json()["kv_cache_tokens"])
    r = client.post("/api/plan", json={"from_command": DEPLOY.replace("SELECT", selector("NVIDIA-L")), "curve": False})
    assert r.status_code == 400 and r.json()["field"] == "from_command", r.text
    assert SELECTOR_FIELD in r.json()["message"]


@pytest.mark.parametrize("value, card, profile, shared", [
    ("NVIDIA-L4", "l4", None, False),
    ("nvidia-l4", "l4", None, False),
    ("NVIDIA-L40", "l40", None, False),  # not the L4 nor the L40S
    ("Tesla-T4", "tesla-t4", None, False),
    ("NVIDIA-A10G", "a10g", None, False),
    ("NVIDIA-GeForce-RTX-4090", "rtx-4090", None, False),
    ("NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", "a100-40gb-sxm", "1g.5gb", False),
    ("NVIDIA-H100-80GB-HBM3-MIG-3g.40gb", "h100-sxm", "3g.40gb", False),
    ("NVIDIA-L4-SHARED", "l4", None, True),  # time-slicing's suffix (not renamed)
    ("NVIDIA", None, None, False),
    ("NVIDIA-L4-24GB", None, None, False),
])
def test_gpu_product_label(value, card, profile, shared):
    from kvplan.resolve import gpu_product_label

    label = gpu_product_label(value)
    assert ([g.id for g in label.cards] or [None]) == [card]
    assert (label.profile, label.shared) == (profile, shared)


# AMD's node labeller (ROCm/k8s-device-plugin cmd/k8s-node-labeller/main.go at ed764684): amd.com/gpu.product-name,
# the card's product name with spaces written '_' and parentheses dropped (an MI300X node: AMD_Instinct_MI300X_OAM)
AMD_DEPLOY = DEPLOY.replace("vllm/vllm-openai:v0.11.0", "rocm/vllm:latest").replace("nvidia.com/gpu: 1", "amd.com/gpu: 1")


def amd_manifest(tmp_path, select: str) -> str:
    path = tmp_path / "amd.yaml"
    path.write_text(AMD_DEPLOY.replace("SELECT", select))
    return str(path)


@pytest.mark.parametrize("key, label, gpu", [
    ("amd.com/gpu.product-name", "AMD_Instinct_MI300X_OAM", "MI300X"),
    ("beta.amd.com/gpu.product-name", "AMD_Instinct_MI300X_OAM", "MI300X"),
    ("amd.com/gpu.product-name", "AMD_Instinct_MI300X_VF", "MI300X"),
    ("amd.com/gpu.product-name", "AMD_Instinct_MI210", "MI210"),
])
def test_amds_product_label_plans_the_card_it_names(monkeypatch, capsys, tmp_path, key, label, gpu):
    given = _json(monkeypatch, capsys, "fit", "--gpu", gpu, "--from", amd_manifest(tmp_path, ""))
    affinity_amd = affinity([label]).replace("nvidia.com/gpu.product", key)
    for select, field in ((f"      nodeSelector: {{{key}: {label}}}\n", f'{SPEC}.nodeSelector["{key}"]'),
                          (affinity_amd, f"{REQUIRED}.nodeSelectorTerms[0].matchExpressions[0].values")):
        planned = _json(monkeypatch, capsys, "fit", "--from", amd_manifest(tmp_path, select))  # no --gpu
        assert (planned["gpu"], planned["kv_cache_tokens"]) == (given["gpu"], given["kv_cache_tokens"])
        assert f"{field} = {label}: planned on {given['gpu']}" in planned["from_command"]["notes"]


@pytest.mark.parametrize("label", ["AMD_Instinct_MI300", "AMD-Instinct-MI300X", "AMD_Instinct_MI325_OAM"])
def test_an_amd_product_label_naming_no_catalog_card_is_refused(monkeypatch, capsys, tmp_path, label):
    field = f'{SPEC}.nodeSelector["amd.com/gpu.product-name"]'  # no partial match, no NVIDIA spelling ('-')
    text = refused(monkeypatch, capsys, field, "fit", "--from",
                   amd_manifest(tmp_path, f"      nodeSelector: {{amd.com/gpu.product-name: {label}}}\n"))
    assert f"{label!r} names no GPU in kvplan's catalog exactly (AMD's node labeller" in text and "give --gpu" in text
    got = _json(monkeypatch, capsys, "fit", "--gpu", "MI300X", "--from",
                amd_manifest(tmp_path, f"      nodeSelector: {{amd.com/gpu.product-name: {label}}}\n"))
    assert got["gpu"] == "AMD Instinct MI300X"


@pytest.mark.parametrize("value, card", [
    ("AMD_Instinct_MI300X_OAM", "mi300x"),
    ("amd_instinct_mi300x_oam", "mi300x"),
    ("AMD_Instinct_MI325X", "mi325x"),
    ("AMD_Instinct_MI300X_OA", None),
    ("NVIDIA-L4", None),  # an NVIDIA card is no AMD label's
    ("AMD Instinct MI300X", None),  # the labeller writes no space
])
def test_amd_product_label(value, card):
    from kvplan.resolve import amd_product_label

    assert ([g.id for g in amd_product_label(value).cards] or [None]) == [card]
