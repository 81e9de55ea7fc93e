"""A reviewer's reread of the morning's merges (plan package split, page/CLI split, home-lab pass): each test is a
finding of that reread, failing before its fix."""

from __future__ import annotations

import kvplan


def test_auto_length_fixes_refused_at_any_length_say_where_a_first_start_needs_a_shorter_context():
    # Qwen3-14B (bf16) on an L4, --max-model-len auto --concurrency 1: nothing starts, and the online-FP8 fix was
    # answered '24,240 is the longest context' with no word of the first start, whose cold-start flag was read off the
    # fix's plan at one block (16 tokens): a first, compiling start with fp8 weights holds one request only up to 8,912
    from kvplan.api import FitFlags, max_model_len_for_concurrency, plan_from_flags_and_inverse

    p, note = plan_from_flags_and_inverse("Qwen/Qwen3-14B", FitFlags(gpu="L4", max_model_len="auto"), 1)
    assert not p.fits and "no context length starts" in note
    fp8 = next(f for f in p.fixes if f.flags == {"quantization": "fp8"})
    q = kvplan.fit("Qwen/Qwen3-14B", "L4", quantization="fp8", fixes=False)
    best, first = max_model_len_for_concurrency(q, 1), max_model_len_for_concurrency(q, 1, first_start=True)
    assert first and best and first < best  # the premise: the first start needs a shorter context
    assert fp8.effect == (f"starts: with it, {best:,} is the longest context at which 1 request fits (a first, "
                          f"compiling start with it needs --max-model-len {first:,} or less)"), fp8.effect
    assert fp8.first_start_refused and fp8.first_start_flags == {"quantization": "fp8", "max_model_len": first}
    # a fix whose first start holds at the length answered carries no cold-start note
    tp = next(f for f in p.fixes if f.flags == {"tensor_parallel_size": 2})
    assert not tp.first_start_refused and "first" not in tp.effect


def test_auto_length_refused_at_any_length_says_one_request_in_the_singular():
    # '--max-model-len auto --concurrency 1' where nothing starts read 'the longest context at which 1 requests fit'
    from kvplan.api import FitFlags, plan_from_flags_and_inverse

    _, note = plan_from_flags_and_inverse("Qwen/Qwen3-14B", FitFlags(gpu="RTX 3090", max_model_len="auto"), 1)
    assert note.endswith("the longest context at which 1 request fits with it"), note
    _, note = plan_from_flags_and_inverse("Qwen/Qwen3-14B", FitFlags(gpu="RTX 3090", max_model_len="auto"), 4)
    assert note.endswith("the longest context at which 4 requests fit with it"), note


def test_no_comment_in_src_names_the_plan_module_that_is_now_a_package():
    # f7a63c7 renamed 'plan.py' to kvplan.plan (or its submodule) in docs and comments; reconcile.py's compile-cache note
    # and resolve.py's custom-GPU note still sent a reader to plan.py, which no longer exists
    import io
    import tokenize
    from pathlib import Path

    src = Path(kvplan.__file__).parent
    assert not (src / "plan.py").exists()
    hits = [f"{path.relative_to(src)}:{tok.start[0]}" for path in sorted(src.rglob("*.py"))
            for tok in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
            if tok.type == tokenize.COMMENT and "plan.py" in tok.string]
    assert not hits, hits


def test_the_architecture_doc_names_what_moved_where_it_now_lives():
    # arch32 moved the flags, the inverse questions and the sweep from kvplan.cli to kvplan.api, plan_json to
    # kvplan.render and the file readers to kvplan.inputs; docs/architecture.md's rows still listed the old contents
    import ast
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `kvplan\.([a-z_.*]+)` \| (.*) \|$",
                                                         (root / "docs" / "architecture.md").read_text(), flags=re.M)}
    page = ast.parse((root / "src" / "kvplan" / "web" / "app.py").read_text(encoding="utf-8"))
    from_api = [a.name for n in ast.walk(page) if isinstance(n, ast.ImportFrom) and n.module == "kvplan.api" for a in n.names]
    assert "FitFlags" in from_api and "sweep_rows" in from_api
    missing = [name for name in from_api if f"`{name}`" not in rows["api"]]
    assert not missing, missing
    assert "`plan_json`" in rows["render"]
    assert "`read_json_object`" in rows["inputs"] and "`read_text_or_empty`" in rows["inputs"]
    assert "FIT_PARAMS" in rows["cli.*"] and "`kvplan.cli`" in rows["web"]


def test_preflight_with_amdgpus_kfd_beside_an_nvidia_card_keeps_nvidias_advice(tmp_path):
    # amdgpu makes /dev/kfd when it loads, for a Ryzen CPU's integrated GPU too: a Ryzen box with an RTX card whose
    # NVIDIA driver is missing read 'an AMD GPU' (a warning, exit 0: ready) where its card needs the NVIDIA driver
    from kvplan import preflight as pf

    def gpu_finding(**kw):
        facts = pf.gather_facts({"HOME": "/root", "HF_HOME": "/mnt/models/hf"}, nvml=None,
                                run_nvidia_smi=lambda: (_ for _ in ()).throw(FileNotFoundError("not found on PATH")),
                                mounts_text="", proc_version="", python_version=(3, 12, 3),
                                installed_version=lambda d: None, disk_free=lambda p: 500 * 2 ** 30, home="/root",
                                is_file=lambda p: False, os_name="Linux", kernel_release="6.8.0", **kw)
        findings = pf.run_checks(facts, pf.Request(vllm_version="0.33.0", dtype="bfloat16", gpu_memory_utilization=0.92))
        return next(f for f in findings if f.check == "gpu"), pf.exit_code(findings)

    gpu, code = gpu_finding(rocm_device=True, nvidia_pci_device=True)
    assert gpu.status == "fail" and code == 1 and "AMD" not in gpu.message
    assert gpu.fix.startswith("run kvplan preflight on the machine with the NVIDIA GPU")
    gpu, code = gpu_finding(rocm_device=True, nvidia_pci_device=False)  # a Radeon box: as before
    assert gpu.status == "warn" and code == 0 and "AMD GPU" in gpu.message
    # the sysfs reading: an NVIDIA VGA controller counts, an NVIDIA bridge (NVSwitch) or an AMD card does not
    for name, vendor, klass in (("0000:01:00.0", "0x1002", "0x030000"), ("0000:02:00.0", "0x10de", "0x068000")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "vendor").write_text(vendor + "\n")
        (tmp_path / name / "class").write_text(klass + "\n")
    assert not pf._nvidia_display_on_pci(str(tmp_path))
    (tmp_path / "0000:03:00.0").mkdir()
    (tmp_path / "0000:03:00.0" / "vendor").write_text("0x10de\n")
    (tmp_path / "0000:03:00.0" / "class").write_text("0x030000\n")
    assert pf._nvidia_display_on_pci(str(tmp_path)) and not pf._nvidia_display_on_pci(str(tmp_path / "none"))


def test_reconcile_names_no_cuda_graph_gap_as_the_pools_cause_where_graphs_are_not_in_the_budget():
    # vLLM 0.10.2 captures the CUDA graphs after the KV allocation (the plan subtracts none): a log whose capture took
    # 0.15 GiB less than planned and whose pool came out 0.26 GiB larger read 'the KV pool's +0.26 GiB follows from'
    # the graphs' gap, which moved no pool there
    from test_home_lab_pass import RTX4090_LOG

    from kvplan.logs import parse_log
    from kvplan.reconcile import reconcile

    plan = kvplan.fit("Qwen/Qwen2.5-3B", "RTX 4090", vllm_version="0.10.2", max_model_len=4096,
                      gpu_memory_utilization=0.9, max_num_seqs=8)
    assert plan.cudagraph_bytes == 0 and plan.cudagraph_capture_bytes > 0.1 * 2 ** 30  # the premise
    log = parse_log(RTX4090_LOG.replace("took 0.14 GiB", "took 0.01 GiB")
                    .replace("Available KV cache memory: 15.31 GiB", "Available KV cache memory: 15.58 GiB"))
    r = reconcile(log, plan)
    gaps = {row.term: row.gap for row in r.rows}
    assert gaps["cudagraph_gib"] < -0.1 and gaps["kv_cache_gib"] > 0.2 and abs(gaps["activation_peak_gib"]) < 0.05
    assert r.largest_gap["term"] == "kv_cache_gib" and "follows from it" not in r.largest_gap["likely_cause"], r.largest_gap
    assert "different budget" in r.largest_gap["likely_cause"]


def test_scaffold_refuses_a_jetson_or_amd_card_before_offering_fixes_for_it(monkeypatch, capsys, tmp_path):
    # Qwen3-8B on a Jetson Orin NX 16GB does not start: scaffold printed 'does not fit' (exit 1) and offered
    # '--tensor-parallel-size 2 (... on 2 x NVIDIA Jetson Orin NX 16GB)' and a larger Jetson, each of which scaffold then
    # refuses (no launch files it writes start on a Jetson Orin); the card's refusal comes first now, as for a plan that fits
    import pytest
    from cli_runner import refused

    assert not kvplan.fit("Qwen/Qwen3-8B", "Jetson Orin NX 16GB", max_model_len=8192).fits  # the premise
    out = tmp_path / "deploy"
    text = refused(monkeypatch, capsys, "--gpu", "scaffold", str(out), "Qwen/Qwen3-8B", "--gpu", "Jetson Orin NX 16GB",
                   "--max-model-len", "8192")
    assert "Jetson Orin" in text and "try:" not in text and not out.exists()
    assert not kvplan.fit("Qwen/Qwen3-32B", "7900 XTX", max_model_len=8192).fits
    text = refused(monkeypatch, capsys, "--gpu", "scaffold", str(out), "Qwen/Qwen3-32B", "--gpu", "7900 XTX",
                   "--max-model-len", "8192")
    assert "AMD GPU" in text and "try:" not in text and not out.exists()
    # the page's /api/scaffold answers the same
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from kvplan.web.app import create_app

    r = TestClient(create_app()).post("/api/scaffold", json={"model": "Qwen/Qwen3-8B", "gpu": "Jetson Orin NX 16GB",
                                                             "max_model_len": 8192})
    assert r.status_code == 400 and r.json()["field"] == "--gpu" and "Jetson Orin" in r.json()["message"], r.json()
