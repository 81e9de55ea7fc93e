"""A home-lab user's pass (RTX 3090 / 2x 3090 over PCIe, RTX 4060 Ti under WSL2, RTX 5090, RX 7900 XTX, Jetson Orin):
each test is a finding of that pass, failing before its fix."""

from __future__ import annotations

import kvplan


def test_a_larger_gpu_fix_under_tensor_parallelism_says_how_many_cards():
    # Mistral-Small-3.1-24B at TP 2 on two 3090s does not start; the 'a larger GPU' fix keeps TP 2, so it starts on two
    # RTX 5090s (44.7 GiB of bf16 weights do not fit one 31.36 GiB card), which read 'on NVIDIA GeForce RTX 5090'
    p = kvplan.fit("mistralai/Mistral-Small-3.1-24B-Instruct-2503", "RTX 3090", tensor_parallel_size=2, max_model_len=32768)
    fix = next(f for f in p.fixes if "gpu" in f.flags)
    assert not kvplan.fit(p.model, fix.flags["gpu"], max_model_len=32768).fits  # one card alone would not do
    assert f" on 2 x {fix.flags['gpu']} (" in fix.effect, fix.effect
    # at TP 1 the card is one, as before
    one = next(f for f in kvplan.fit("Qwen/Qwen3-8B", "L4").fixes if "gpu" in f.flags)
    assert f" on {one.flags['gpu']} (" in one.effect and " x " not in one.effect.split(" on ")[-1]


def _no_gpu_machine(**kw):
    from kvplan import preflight as pf

    return pf.gather_facts({"HOME": "/root", "HF_HOME": "/mnt/models/hf"}, nvml=None,
                           run_nvidia_smi=lambda: (_ for _ in ()).throw(FileNotFoundError("not found on PATH")),
                           mounts_text="", proc_version="", python_version=(3, 12, 3), installed_version=lambda d: None,
                           disk_free=lambda p: 500 * 2 ** 30, home="/root", is_file=lambda p: False, **kw)


def _gpu_finding(facts):
    from kvplan import preflight as pf

    req = pf.Request(vllm_version="0.33.0", dtype="bfloat16", gpu_memory_utilization=0.92)
    findings = pf.run_checks(facts, req)
    return next(f for f in findings if f.check == "gpu"), findings


def test_preflight_without_a_gpu_says_what_it_could_not_check_and_where_to_run_it():
    # on the planning laptop (no GPU) preflight failed the GPU and dropped the driver, compute-capability and
    # free-memory checks silently; the fix did not say to run preflight on the GPU machine
    gpu, findings = _gpu_finding(_no_gpu_machine(os_name="Linux", kernel_release="6.8.0", rocm_device=False))
    assert gpu.status == "fail"
    assert "compute capability, driver and free GPU memory are not checked here" in gpu.message
    assert gpu.fix.startswith("run kvplan preflight on the machine with the NVIDIA GPU")
    assert not [f for f in findings if f.check in ("driver", "gpu memory", "compute capability")]


def test_preflight_on_an_amd_gpu_gives_no_nvidia_advice():
    # an RX 7900 XTX box (ROCm's /dev/kfd present, no NVML): 'run on a host with an NVIDIA GPU ... --gpus all'
    # was the fix, and the machine read 'not ready'
    from kvplan import preflight as pf

    gpu, findings = _gpu_finding(_no_gpu_machine(os_name="Linux", kernel_release="6.8.0", rocm_device=True))
    assert gpu.status == "warn" and "AMD GPU" in gpu.message and "not checked here" in gpu.message
    assert "NVIDIA GPU (" not in gpu.fix and "--gpus all" not in gpu.fix and "--gpu NAME" in gpu.fix
    assert pf.exit_code(findings) == 0


def test_preflight_under_wsl2_without_a_gpu_points_at_the_windows_driver():
    # under WSL2 the GPU comes from the Windows driver; 'in Docker pass --gpus all' does not apply there
    gpu, _ = _gpu_finding(_no_gpu_machine(os_name="Linux", kernel_release="5.15.153.1-microsoft-standard-WSL2",
                                          rocm_device=False))
    assert gpu.status == "fail" and "driver on Windows" in gpu.fix and "/usr/lib/wsl/lib/nvidia-smi" in gpu.fix
    assert "--gpus all" not in gpu.fix


def test_scaffold_refuses_an_amd_gpu_instead_of_writing_nvidia_files(monkeypatch, capsys, tmp_path):
    # an RX 7900 XTX got vllm==0.33.0 from PyPI (the CUDA build), the vllm/vllm-openai image, compose's
    # 'driver: nvidia' and k8s's nvidia.com/gpu: none of them starts on a Radeon
    import pytest

    from kvplan.deploy import spec_from_plan
    from kvplan.errors import InputError

    p = kvplan.fit("Qwen/Qwen3-4B", "7900 XTX", max_model_len=8192)
    assert p.fits
    with pytest.raises(InputError) as exc:
        spec_from_plan(p)
    assert exc.value.field == "--gpu" and "AMD GPU" in exc.value.message and "kvplan fit" in exc.value.fix
    # the same through the CLI: exit 2, nothing written
    from cli_runner import refused

    out = tmp_path / "deploy"
    refused(monkeypatch, capsys, "--gpu", "scaffold", str(out), "Qwen/Qwen3-4B", "--gpu", "7900 XTX", "--max-model-len", "8192")
    assert not out.exists()


# an RTX 4090 startup of Qwen2.5-3B under vLLM 0.10.2 (log_excerpts.jsonl, the AutoDL experiment): its last line prints
# every term, the activation peak and non-torch memory included
RTX4090_LOG = """\
(EngineCore_DP0 pid=17709) INFO 09-29 00:29:15 [gpu_model_runner.py:2392] Model loading took 5.7916 GiB and 2.339718 seconds
(EngineCore_DP0 pid=17709) INFO 09-29 00:29:31 [gpu_worker.py:298] Available KV cache memory: 15.31 GiB
(EngineCore_DP0 pid=17709) INFO 09-29 00:29:31 [kv_cache_utils.py:864] GPU KV cache size: 445,968 tokens
(EngineCore_DP0 pid=17709) INFO 09-29 00:29:31 [kv_cache_utils.py:868] Maximum concurrency for 4,096 tokens per request: 108.88x
(EngineCore_DP0 pid=17709) INFO 09-29 00:29:32 [gpu_model_runner.py:3118] Graph capturing finished in 1 secs, took 0.14 GiB
(EngineCore_DP0 pid=17709) INFO 09-29 00:29:32 [gpu_worker.py:391] Free memory on device (23.21/23.65 GiB) on startup. \
Desired GPU memory utilization is (0.9, 21.28 GiB). Actual usage is 5.79 GiB for weight, 0.17 GiB for peak activation, \
0.02 GiB for non-torch memory, and 0.14 GiB for CUDAGraph memory. Replace gpu_memory_utilization config with \
`--kv-cache-memory=16130110668` to fit into requested memory, or `--kv-cache-memory=18192115712` to fully utilize gpu \
memory. Current kv cache memory in use is 16440489164 bytes.
"""


def test_reconcile_names_the_printed_term_behind_the_pool_gap_not_terms_the_log_does_not_print():
    # planned with the default 256 sequences the activation peak is 1.39 GiB where the log printed 0.17: the pool's
    # +1.23 GiB is that term's, but the headline said 'the pool absorbed terms this log does not print (activation
    # peak, non-torch)' beside a table showing both
    from kvplan.logs import parse_log
    from kvplan.reconcile import reconcile

    log = parse_log(RTX4090_LOG)
    plan = kvplan.fit("Qwen/Qwen2.5-3B", "RTX 4090", vllm_version="0.10.2", max_model_len=4096,
                      gpu_memory_utilization=0.9)
    r = reconcile(log, plan)
    gaps = {row.term: row.gap for row in r.rows}
    assert gaps["activation_peak_gib"] < -1.0 and gaps["kv_cache_gib"] > 1.0 and gaps["non_torch_gib"] is not None
    assert r.largest_gap["term"] == "activation_peak_gib", r.largest_gap
    assert "does not print" not in r.largest_gap["likely_cause"] and "profile batch" in r.largest_gap["likely_cause"]
    assert r.headline_gap["term"] == "activation_peak_gib"


def _write_safetensors_header(path, tensors):
    """A .safetensors file's header alone (kvplan reads no tensor): {name: (shape)} of bf16 tensors."""
    import json
    import struct

    header, offset = {}, 0
    for name, shape in tensors.items():
        n = 2
        for s in shape:
            n *= s
        header[name] = {"dtype": "BF16", "shape": list(shape), "data_offsets": [offset, offset + n]}
        offset += n
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw)


def _downloaded_folder(tmp_path):
    """A Qwen3-0.6B folder as downloaded: config.json, two shards and their index."""
    import json

    cfg = kvplan.resolve_model("Qwen/Qwen3-0.6B").raw_config
    folder = tmp_path / "Qwen3-0.6B"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(cfg))
    h, v, i = cfg["hidden_size"], cfg["vocab_size"], cfg["intermediate_size"]
    q, kv = cfg["num_attention_heads"] * cfg["head_dim"], cfg["num_key_value_heads"] * cfg["head_dim"]
    tensors = {"model.embed_tokens.weight": (v, h), "model.norm.weight": (h,)}
    for layer in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        tensors.update({p + "self_attn.q_proj.weight": (q, h), p + "self_attn.k_proj.weight": (kv, h),
                        p + "self_attn.v_proj.weight": (kv, h), p + "self_attn.o_proj.weight": (h, q),
                        p + "mlp.gate_proj.weight": (i, h), p + "mlp.up_proj.weight": (i, h),
                        p + "mlp.down_proj.weight": (h, i)})
    names = sorted(tensors)
    shards = {n: f"model-0000{1 + (k >= len(names) // 2)}-of-00002.safetensors" for k, n in enumerate(names)}
    for shard in sorted(set(shards.values())):
        _write_safetensors_header(folder / shard, {n: tensors[n] for n in names if shards[n] == shard})
    (folder / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": shards}))
    return folder, tensors


def test_a_folder_with_a_consolidated_file_beside_the_shards_counts_the_weights_once(tmp_path):
    # Mistral repositories ship consolidated.safetensors beside the HF shards, and a full download holds both; vLLM
    # loads only the files model.safetensors.index.json names, kvplan summed every .safetensors: twice the weights
    folder, tensors = _downloaded_folder(tmp_path)
    once = kvplan.resolve_model(str(folder)).weights_bytes
    assert once == sum(2 * __import__("math").prod(s) for s in tensors.values())
    _write_safetensors_header(folder / "consolidated.safetensors", tensors)
    assert kvplan.resolve_model(str(folder)).weights_bytes == once


def test_a_folder_whose_index_names_a_missing_shard_is_refused_not_undercounted(tmp_path):
    # an unfinished download (one of two shards there) planned 0.75 GB of weights for a 1.19 GB model, and 'starts'
    import pytest

    from kvplan.errors import InputError

    folder, _ = _downloaded_folder(tmp_path)
    (folder / "model-00002-of-00002.safetensors").unlink()
    with pytest.raises(InputError) as exc:
        kvplan.resolve_model(str(folder))
    assert "model-00002-of-00002.safetensors" in exc.value.message and "finish the download" in exc.value.fix


def test_a_folder_without_weight_files_says_its_weights_are_estimated(tmp_path):
    import json

    folder = tmp_path / "cfg-only"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(kvplan.resolve_model("Qwen/Qwen3-0.6B").raw_config))
    spec = kvplan.resolve_model(str(folder))
    assert any("holds no .safetensors file" in n and "vllm serve needs the weight files" in n for n in spec.notes)


def test_scaffold_for_a_card_under_wsl2_says_what_differs_there():
    # a 4060 Ti 16GB under WSL2 (--wsl2 --gpu-gib 16): serve.sh and the README said nothing of WSL2, where what Windows
    # holds on the card is not free and vLLM stops at startup below utilization x total
    from kvplan.deploy import render_files, spec_from_plan

    for p in (kvplan.fit("Qwen/Qwen3-4B", "RTX 4060 Ti 16GB", gpu_gib=16, wsl2=True, max_model_len=8192),
              kvplan.fit("Qwen/Qwen3-4B", "RTX 4090", wsl2=True, max_model_len=8192)):
        files = render_files(spec_from_plan(p))
        assert "Under WSL2:" in files["README.md"] and "/usr/lib/wsl/lib/nvidia-smi" in files["README.md"]
        assert "Free memory on device" in files["README.md"]
        assert "under WSL2 what Windows holds on the card is not free" in files["serve.sh"]
    native = render_files(spec_from_plan(kvplan.fit("Qwen/Qwen3-4B", "RTX 4090", max_model_len=8192)))
    assert "WSL" not in native["README.md"] + native["serve.sh"]


def test_auto_length_refused_at_any_length_answers_each_fix_as_asked():
    # Qwen3-14B (bf16) on one 3090 with --max-model-len auto --concurrency 4: no length starts, and the fixes were
    # planned at the one-block length, 'tensor parallel 2: starts: 87,152 tokens, 5447.00x concurrency at 16'
    from kvplan import api
    from kvplan.cli import FitFlags
    from kvplan.cli.fit import plan_from_flags_and_inverse

    p, note = plan_from_flags_and_inverse("Qwen/Qwen3-14B", FitFlags(gpu="RTX 3090", max_model_len="auto"), 4)
    assert not p.fits and "no context length starts" in note
    tp = next(f for f in p.fixes if f.flags.get("tensor_parallel_size") == 2)
    want = api.max_model_len_for_concurrency(kvplan.fit("Qwen/Qwen3-14B", "RTX 3090", tensor_parallel_size=2), 4)
    assert want and tp.effect == f"starts: with it, {want:,} is the longest context at which 4 requests fit"
    assert not any("x concurrency at 16" in f.effect for f in p.fixes)


def test_reconcile_of_a_wsl2_log_with_the_card_named_points_at_wsl2_not_another_gpu():
    # a WSL2 log (vLLM's pin_memory notice) whose OOM message prints the card's 6.00 GiB, reconciled with --gpu 'RTX
    # 4050 Laptop' (5.67 GiB native): 'the log may come from another GPU'; 6.00 GiB is that card's WSL2 total
    from pathlib import Path

    from kvplan.logs import parse_log
    from kvplan.reconcile import gpu_total_mismatch

    log = parse_log(Path(__file__).parent / "data" / "wlog_qwen2_5_7b_fp16_6gib_wsl_v0160_failed.log")
    assert log.wsl2_line and log.total_gib == 6.0
    plan = kvplan.fit("Qwen/Qwen2.5-7B-Instruct", "RTX 4050 Laptop", max_model_len=2048, vllm_version="0.16.0")
    note = gpu_total_mismatch(log, plan, {"gpu": "RTX 4050 Laptop"})
    assert note and "ran under WSL2" in note and "add --wsl2" in note and "another GPU" not in note
    # with --wsl2 the card's WSL2 total is the log's: nothing to note
    wsl = kvplan.fit("Qwen/Qwen2.5-7B-Instruct", "RTX 4050 Laptop", wsl2=True, max_model_len=2048, vllm_version="0.16.0")
    assert gpu_total_mismatch(log, wsl, {"gpu": "RTX 4050 Laptop", "wsl2": True}) is None


def test_scaffold_refuses_a_jetson_orin_whose_vllm_is_not_pypis():
    # a Jetson Orin Nano got vllm==0.33.0 from PyPI and the vllm/vllm-openai image; JetPack 6 needs NVIDIA's Jetson
    # builds (jetson-containers' dustynv/vllm); a Jetson Thor (cc 11.0) and desktop cards are written as before
    import pytest

    from kvplan.deploy import render_files, spec_from_plan
    from kvplan.errors import InputError

    p = kvplan.fit("Qwen/Qwen3-0.6B", "Jetson Orin Nano 8GB", max_model_len=4096)
    assert p.fits
    with pytest.raises(InputError) as exc:
        spec_from_plan(p)
    assert exc.value.field == "--gpu" and "Jetson Orin" in exc.value.message and "dustynv/vllm" in exc.value.fix
    assert "vllm==0.33.0" in render_files(spec_from_plan(kvplan.fit("Qwen/Qwen3-0.6B", "RTX 3090", max_model_len=4096)))[
        "pyproject.toml"]


def test_diagnose_memory_fix_names_the_fp8_kv_cache_an_rtx_3090_takes():
    # a 3090 startup refused for its length (vllm_failures kv-maxlen-29k-3090-llama31-8b) was told 'use --kv-cache-dtype
    # fp8': e4m3 fails on an RTX 3090 in vLLM V1's Triton kernels (vLLM issue #26431); fp8_e5m2 is what 3090s run
    from kvplan.diagnose import diagnose
    from kvplan.logs import parse_lines

    lines = ["The model's max seq len (29000) is larger than the maximum number of tokens that can be stored in KV cache "
             "(23648). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
             "ValueError: To serve at least one request with the models's max seq len (32768), (2.00 GB KV cache is "
             "needed, which is larger than the available KV cache memory (0.78 GB). Try increasing "
             "`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."]
    for line in lines:
        fixes = [f.fix for f in diagnose(parse_lines([line])).findings]
        assert any("fp8_e5m2 on a GPU below compute capability 8.9" in f for f in fixes), fixes


def test_reconcile_names_ecc_where_the_logs_total_is_15_16_of_the_card_named():
    # an RTX A6000 with ECC on has 44.55 GiB (the blind MoE-SD host; 46,068 of 49,140 MiB): reconciled with --gpu
    # 'RTX A6000' it read 'the log may come from another GPU'
    from dataclasses import replace

    from kvplan.logs import StartupLog
    from kvplan.reconcile import gpu_total_mismatch

    plan = kvplan.fit("Qwen/Qwen3-8B", "RTX A6000", max_model_len=4096)
    log = replace(StartupLog(), total_gib=round(plan.gpu.total_bytes / (1 << 30) * 15 / 16, 2))
    note = gpu_total_mismatch(log, plan, {"gpu": "RTX A6000"})
    assert note and "ECC turned on" in note and f"--gpu-gib {log.total_gib:.2f}" in note and "another GPU" not in note
    other = replace(StartupLog(), total_gib=round(plan.gpu.total_bytes / (1 << 30) * 0.8, 2))  # not ECC's share
    assert "another GPU" in gpu_total_mismatch(other, plan, {"gpu": "RTX A6000"})
