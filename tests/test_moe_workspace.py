"""The fused-MoE workspace an unquantized MoE model keeps from the profile's forward through its sampler run.

From vLLM 0.14.0 the unquantized CUDA path runs the experts through a FusedMoEModularKernel of TritonExperts, whose
workspace13 (M, top-k, max(N/2, K)) and workspace2 (M, top-k, max(N, K)) come from the worker's WorkspaceManager, a
buffer that grows to the largest request and stays allocated (modular_kernel.py _allocate_buffers, fused_moe.py
TritonExperts.workspace_shapes, v1/worker/workspace.py; 0.14.0-0.33.0 wheels). 0.12.0 and 0.13.0 call fused_experts(),
whose caches are freed after each layer. The profile's sampler run therefore sits on top of it.

Quantized checkpoints whose experts run the same way (rules row moe_quant_workspace, plan.quantized_moe_experts):
gpt-oss's MXFP4 on MarlinExperts (0.17+), block FP8 on TritonExperts (0.17+: Hopper without EP, cc 8.9, cc 12.x where
DeepGEMM does not run; cc 8.9 and 12.x from 0.14) and compressed-tensors int4 w4a16 on MarlinExperts (0.23+).
"""

from __future__ import annotations

import copy

import kvplan
from kvplan.plan import measured_terms, term_features
from kvplan.resolve import GIB, model_catalog
from kvplan.validate import predict_record

# llm-d-incubation/llm-d-planner's vLLM 0.19.0 sweep on an H100 80GB HBM3 (DEBUG logs, commit d3121e0; its summary line
# prints weights, peak activation, non-torch and CUDA-graph memory apart): 'vllm serve Qwen/Qwen3-30B-A3B
# --gpu-memory-utilization=0.95 --max-model-len=8192 --no-enable-prefix-caching' ('Using TRITON backend for Unquantized
# MoE'; 'Actual usage is 56.88 GiB for weight, 2.68 GiB for peak activation, 0.27 GiB for non-torch memory ...')
SOURCE = ("https://github.com/llm-d-incubation/llm-d-planner/blob/d3121e059da88662db39a926a3ead964be97359b/accuracy/"
          "results/v0.19.0/logs/qwen-qwen3-30b-a3b--h100-80gb--tp1pp1dp1--8192.log")
QWEN3_30B_A3B = {
    "id": "qwen3-30b-a3b-h100-u095-tp1-l8k-noprefix", "source": SOURCE, "vllm_version": "0.19.0",
    "model": {"id": "Qwen/Qwen3-30B-A3B", "config": copy.deepcopy(model_catalog()["Qwen/Qwen3-30B-A3B"]["config"]),
              "quant_config": None, "weights_bytes": None},
    "gpu": {"name": "NVIDIA H100 80GB HBM3", "total_gib": 79.19, "count": 1},
    "args": {"max_model_len": 8192, "gpu_memory_utilization": 0.95, "tensor_parallel_size": 1, "pipeline_parallel_size": 1,
             "dtype": "auto", "kv_cache_dtype": "auto", "quantization": None, "enforce_eager": False, "block_size": None,
             "max_num_seqs": None, "max_num_batched_tokens": None, "enable_prefix_caching": False},
    "observed": {"weights_gib": 56.88, "non_torch_gib": 0.27, "activation_peak_gib": 2.68, "cudagraph_gib": 1.41,
                 "kv_cache_gib": 15.41, "num_gpu_blocks": None, "kv_cache_tokens": 168288, "max_concurrency": 20.54,
                 "fits": True},
    "notes": "test fixture",
}


def _parts(version: str, model: str = "Qwen/Qwen3-30B-A3B", **kw):
    p = kvplan.fit(model, "H100", vllm_version=version, max_model_len=8192, gpu_memory_utilization=0.95, fixes=False, **kw)
    f = term_features(p.model, p.gpu, p.args, p.rules)
    return p, f


def test_workspace_is_triton_experts_two_buffers_at_the_profile_tokens():
    p, f = _parts("0.19.0")
    t = p.args.max_num_batched_tokens
    # Qwen3-30B-A3B: top-k 8, expert width 768 (N = 1,536), hidden 2,048: both buffers (T, 8, 2048) in bf16
    assert f.moe_workspace_bytes == 2 * t * 8 * 2048 * 2
    assert f.moe_bytes == 0


def test_the_sampler_run_sits_on_the_workspace_from_0_14_only():
    p19, f19 = _parts("0.19.0")
    act19 = measured_terms(p19.model, p19.gpu, p19.args, p19.rules)["activation_peak"][0]
    p13, f13 = _parts("0.13.0")
    assert f13.moe_workspace_bytes == 0 and f13.moe_bytes > 0  # fused_experts(): caches freed after each layer
    assert f19.moe_workspace_bytes > 0
    assert "fused-MoE workspace" in measured_terms(p19.model, p19.gpu, p19.args, p19.rules)["activation_peak"][1]
    sampler = 16.0 * f19.sampler_elements  # 0.18-0.19's Triton top-k/top-p sampler, bytes per logit
    assert act19 == int(sampler + f19.moe_workspace_bytes)


def test_a_quantized_moe_checkpoint_on_a_path_not_read_keeps_its_own_kernel():
    # block FP8 below cc 8.9 (here an A100): TritonExperts needs FP8 support, the oracle falls to Marlin, whose FP8
    # layout is not pinned (plan._fp8_block_moe_experts)
    p = kvplan.fit("Qwen/Qwen3-30B-A3B-FP8", "A100", vllm_version="0.19.0", max_model_len=8192, fixes=False)
    f = term_features(p.model, p.gpu, p.args, p.rules)
    assert f.moe_workspace_bytes == 0 and f.moe_bytes > 0


def test_online_fp8_of_a_bf16_moe_checkpoint_keeps_its_own_kernel_too():
    # --quantization fp8 on the bf16 checkpoint: Fp8Config gives the MoE layers Fp8OnlineMoEMethod (quantization/fp8.py
    # 0.19.1), not the unquantized TritonExperts path; the workspace was charged (0.50 GiB) as if unquantized
    _, f = _parts("0.19.0", quantization="fp8")
    assert f.moe_workspace_bytes == 0 and f.moe_bytes > 0


def test_qwen3_30b_a3b_on_the_0_19_sweep():
    # logged peak 2.68 GiB: kvplan said 2.32 (the sampler alone, -0.36 GiB) and a pool 2.73 % too large; with the
    # workspace 2.82 GiB (+0.14, the sampler term's own excess on a 152K vocabulary: dense Qwen2.5-7B/Qwen3-8B of the
    # same sweep log 2.21 against 2.32) and the pool -0.51 %
    plan, _ = predict_record(QWEN3_30B_A3B)
    assert abs(plan.activation_peak_bytes / GIB - 2.68) < 0.2
    assert abs(plan.kv_cache_bytes / GIB - 15.41) / 15.41 < 0.01


# gpt-oss's MXFP4 experts on Marlin (below SM90): a FusedMoEKernel of MarlinExperts from 0.17.0 (quantization/mxfp4.py
# 0.17.0/0.18.0, fused_moe/oracle/mxfp4.py 0.19.1-0.33.0), whose workspace_shapes ask for workspace1 (M x top-k,
# max(N, K)) and workspace2 (M x top-k x max(2N, K)), N = the expert's width padded to 128, K = hidden padded to 256
# (mxfp4_round_up_hidden_size_and_intermediate_size), both from the WorkspaceManager; 0.16.0 calls fused_marlin_moe()
# directly (torch.empty caches freed after each layer).
def _gpt_oss(version: str, gpu: str = "A100", **kw):
    p = kvplan.fit("openai/gpt-oss-20b", gpu, vllm_version=version, max_model_len=8192, fixes=False, **kw)
    return p, term_features(p.model, p.gpu, p.args, p.rules)


def test_gpt_oss_marlin_workspace_is_a_hand_count_of_marlin_experts_shapes():
    p, f = _gpt_oss("0.19.0")
    t = p.args.max_num_batched_tokens
    # gpt-oss-20b: top-k 4, expert width 2,880 -> 2,944 (128), hidden 2,880 -> 3,072 (256), bf16
    ws13 = t * 4 * max(2944, 3072) * 2   # shared with the (T, 3072) output
    ws2 = t * 4 * max(2 * 2944, 3072) * 2
    assert f.moe_workspace_bytes == ws13 + ws2
    assert f.moe_bytes == 0


def test_gpt_oss_marlin_workspace_only_from_0_17():
    _, f16 = _gpt_oss("0.16.0")
    _, f17 = _gpt_oss("0.17.0")
    assert f16.moe_workspace_bytes == 0 and f16.moe_bytes > 0  # fused_marlin_moe(): per-call caches
    assert f17.moe_workspace_bytes > 0


def test_gpt_oss_on_hopper_triton_keeps_no_workspace():
    # the Triton kernels path (triton_kernel_moe_forward, OAITritonMxfp4ExpertsMonolithic from 0.19.1) allocates per
    # call; the 0.14.1 H100 startups log the sampler's peak alone
    _, f = _gpt_oss("0.19.0", gpu="H100")
    assert f.moe_workspace_bytes == 0
    _, fm = _gpt_oss("0.19.0", gpu="H100", env=("VLLM_MXFP4_USE_MARLIN=1",))
    assert fm.moe_workspace_bytes > 0  # Marlin forced on Hopper


def test_block_fp8_on_hopper_tp_takes_triton_experts_buffers_from_0_17():
    # Qwen3-30B-A3B-FP8 ([128, 128] blocks) on an H100 at TP1: TritonExperts (oracle/fp8.py prefers Triton on Hopper
    # for block FP8 without EP), both buffers (T, 8, 2048) in bf16, as for the bf16 checkpoint
    p, f = _parts("0.19.0", model="Qwen/Qwen3-30B-A3B-FP8")
    t = p.args.max_num_batched_tokens
    assert f.moe_workspace_bytes == 2 * t * 8 * 2048 * 2 and f.moe_bytes == 0
    _, f16 = _parts("0.16.0", model="Qwen/Qwen3-30B-A3B-FP8")
    assert f16.moe_workspace_bytes == 0  # before the oracle's Hopper preference was read: not charged
    _, fep = _parts("0.19.0", model="Qwen/Qwen3-30B-A3B-FP8", enable_expert_parallel=True, tensor_parallel_size=2)
    assert fep.moe_workspace_bytes == 0  # EP: FlashInfer CUTLASS, its workspace inside flashinfer (not modelled)
    _, fdp = _parts("0.19.0", model="Qwen/Qwen3-30B-A3B-FP8", enable_expert_parallel=True, data_parallel_size=2)
    assert fdp.moe_workspace_bytes == 0
    # the flag on one GPU: vLLM's use_ep needs dp x tp > 1 (FusedMoEParallelConfig.make), so ep_size stays 1 and the
    # oracle keeps Triton first: the same buffers as without the flag
    p1, f1 = _parts("0.19.0", model="Qwen/Qwen3-30B-A3B-FP8", enable_expert_parallel=True)
    assert p1.args.tensor_parallel_size == 1 and f1.moe_workspace_bytes == f.moe_workspace_bytes > 0


def _fp8(version: str, gpu: str, **kw):
    p = kvplan.fit("Qwen/Qwen3-30B-A3B-FP8", gpu, vllm_version=version, max_model_len=8192, fixes=False, **kw)
    return p, term_features(p.model, p.gpu, p.args, p.rules)


def test_block_fp8_off_hopper_by_gpu_class_and_deep_gemm():
    # cc 8.9 (L40S): no DeepGEMM, no FlashInfer block kernels -> TritonExperts, (T, 8, 2048) x 2 in bf16
    p, f = _fp8("0.19.0", "L40S")
    assert f.moe_workspace_bytes == 2 * p.args.max_num_batched_tokens * 8 * 2048 * 2
    # cc 12.0 (RTX PRO 6000): DeepGEMM runs there from 0.24 (support_deep_gemm lists family 120), not counted ...
    _, f23 = _fp8("0.23.0", "RTX PRO 6000")
    _, f24 = _fp8("0.24.0", "RTX PRO 6000")
    assert f23.moe_workspace_bytes > 0 and f24.moe_workspace_bytes == 0
    # ... unless VLLM_USE_DEEP_GEMM=0 removes it (TritonExperts again)
    _, f24off = _fp8("0.24.0", "RTX PRO 6000", env=("VLLM_USE_DEEP_GEMM=0",))
    assert f24off.moe_workspace_bytes == f23.moe_workspace_bytes
    # Blackwell 10.x: FlashInfer TRTLLM first, its workspace inside flashinfer (not counted); Hopper with DeepGEMM forced
    _, fb = _fp8("0.19.0", "B200")
    _, fh = _fp8("0.19.0", "H100", env=("VLLM_USE_DEEP_GEMM=1",))
    assert fb.moe_workspace_bytes == 0 and fh.moe_workspace_bytes == 0 and fb.moe_bytes > 0


def test_block_fp8_takes_triton_experts_on_12x_and_8_9_from_0_14_not_on_hopper():
    # 0.15.0-0.16.0's select_fp8_moe_backend (oracle/fp8.py: AITER, FLASHINFER_TRTLLM, FLASHINFER_CUTLASS, DEEPGEMM,
    # VLLM_CUTLASS off, TRITON) and 0.14.0's if-chain find nothing before TRITON for block FP8 on cc 12.x / 8.9, and
    # Fp8MoEMethod builds a FusedMoEModularKernel of it (oracle/fp8.py make_fp8_moe_kernel), buffers from the
    # WorkspaceManager
    for gpu in ("RTX PRO 6000", "L40S"):
        for version in ("0.14.0", "0.15.1", "0.16.0"):
            p, f = _fp8(version, gpu)
            _, f17 = _fp8("0.17.0", gpu)
            assert f.moe_workspace_bytes == f17.moe_workspace_bytes == 2 * p.args.max_num_batched_tokens * 8 * 2048 * 2
            assert f.moe_bytes == 0
    # on Hopper before 0.17 FlashInfer CUTLASS (block scales on 9.0) and DeepGEMM come first: not charged; 0.13.0
    # calls fused_experts() (per-call caches)
    _, fh16 = _fp8("0.16.0", "H100")
    _, f13 = _fp8("0.13.0", "RTX PRO 6000")
    assert fh16.moe_workspace_bytes == 0 and f13.moe_workspace_bytes == 0 and f13.moe_bytes > 0


def test_minimax_m2_5_fp8_tp4_rtx_pro_6000_under_0_16_rules():
    # blind record minimax-m2.5-rtxpro6000bw-udef-tp4 (no version stated; the page's first commit is 2026-03-09, two days
    # after 0.17.0's upload): under 0.16.0 rules the 0.75 GiB TritonExperts workspace (8192 x 8 x 3072 x 2 B x 2) joins
    # the sampler's 7.35 GiB and the pool lands on the logged 23.62 GiB (+3.08 % without it)
    import json
    from pathlib import Path
    rec = next(json.loads(l) for l in (Path(__file__).parent / "data/blind_records.jsonl").read_text().splitlines()
               if l.startswith('{"id": "minimax-m2.5-rtxpro6000bw-udef-tp4"'))
    plan, _ = predict_record(rec, version=("0.16.0", "test"))
    f = term_features(plan.model, plan.gpu, plan.args, plan.rules)
    assert f.moe_workspace_bytes == 2 * 8192 * 8 * 3072 * 2
    assert abs(plan.kv_cache_bytes / GIB / 23.62 - 1) < 0.01


def test_qwen3_235b_fp8_tp4_on_rtx_pro_6000_0_27_1_pool():
    # the kubesimplify startup (tests/data/extra_records.jsonl, VLLM_USE_DEEP_GEMM=0): TritonExperts' buffers at TP4,
    # (8192, 8, 4096) x 2 in bf16 = 1.0 GiB; the pool was +4.11 % charged the per-call caches, +2.56 % with them.
    # Its logged 0.76 GiB "peak activation" is 0.27's transient_peak_headroom (utils/mem_utils.py memory_profiling),
    # which leaves persistent tensors to "consumed": 56.89 - 55.19 = 1.70 GiB there, the workspace included
    import json
    from pathlib import Path
    rec = next(json.loads(l) for l in (Path(__file__).parent / "data/extra_records.jsonl").read_text().splitlines()
               if l.startswith('{"id": "qwen3-235b-a22b-instruct-2507-fp8-rtxpro6000-u090-tp4-l32k"'))
    plan, _ = predict_record(rec)
    f = term_features(plan.model, plan.gpu, plan.args, plan.rules)
    assert f.moe_workspace_bytes == 2 * 8192 * 8 * 4096 * 2
    assert abs(plan.kv_cache_bytes / GIB / 27.85 - 1) < 0.03


def test_compressed_tensors_int4_experts_take_marlin_buffers_from_0_23():
    # CompressedTensorsWNA16MarlinMoEMethod: fused_marlin_moe() from apply in 0.22.1, a FusedMoEKernel of MarlinExperts
    # from 0.23.0 (make_wna16_moe_kernel); MarlinExperts' two buffers at N = the expert's width: Qwen3-30B-A3B's
    # shapes as an int4 w4a16 checkpoint on a GB10 (cc 12.1): (T x 8, max(768, 2048)) and (T x 8 x max(1536, 2048))
    from dataclasses import replace

    from kvplan.plan import quantized_moe_experts
    from kvplan.resolve import QuantSpec

    ct = QuantSpec(method="compressed-tensors", bits=4, group_size=128, scheme="int4 (compressed-tensors)", weight_only=True)
    for version, charged in (("0.22.1", False), ("0.23.0", True)):
        p = kvplan.fit("Qwen/Qwen3-30B-A3B", "GB10", vllm_version=version, max_model_len=8192, fixes=False)
        model = replace(p.model, quant=ct)
        assert quantized_moe_experts(model, p.gpu, p.args, p.rules, 768) == ("ct_wna16_marlin", 768, 2048)
        f = term_features(model, p.gpu, p.args, p.rules)
        t = p.args.max_num_batched_tokens
        assert f.moe_workspace_bytes == (2 * t * 8 * 2048 * 2 if charged else 0)


def test_compressed_tensors_int4_checkpoint_config_is_read_as_wna16_for_marlin_buffers():
    # a real compressed-tensors W4A16 config (the blind record of Gemma 4 26B-A4B QAT, config_groups targets
    # ["Linear"], int4 group 32, no input_activations) resolves to the scheme "int4 (compressed-tensors)"; the Marlin
    # MoE workspace reads the WNA16 predicate (compressed_tensors.py _is_wNa16_group_channel), not that string:
    # MarlinExperts' two buffers at K = 2816 on an L4 at 0.30.0, T = 2048 tokens, top-8
    import json
    from dataclasses import replace
    from pathlib import Path

    from kvplan.plan import quantized_moe_experts
    from kvplan.plan.terms import modular_workspace_bytes
    from kvplan.resolve import _quant_spec, is_ct_wna16

    rec = next(json.loads(l) for l in (Path(__file__).parent / "data/blind_records.jsonl").read_text().splitlines()
               if l.startswith('{"id": "gemma-4-26b-a4b-it-qat-w4a16-l4-udef-tp1-l2k-seqs16"'))
    plan, _ = predict_record(rec)
    q = plan.model.quant
    assert q.scheme == "int4 (compressed-tensors)" and is_ct_wna16(q)
    kind, n, k = quantized_moe_experts(plan.model, plan.gpu, plan.args, plan.rules, 704)
    assert (kind, k) == ("ct_wna16_marlin", 2816) and n >= 704
    f = term_features(plan.model, plan.gpu, plan.args, plan.rules)
    t, topk = plan.args.max_num_batched_tokens, plan.model.num_experts_per_tok
    assert f.moe_workspace_bytes == modular_workspace_bytes(t, plan.rules.fused_moe_chunk_tokens, topk, n, k, 2) > 0
    # the same config group with int8 input activations (W4A8) is no WNA16 scheme: no Marlin buffers
    qc = copy.deepcopy(rec["model"]["config"]["quantization_config"])
    next(iter(qc["config_groups"].values()))["input_activations"] = {"num_bits": 8, "type": "int", "strategy": "token",
                                                                     "dynamic": True, "symmetric": True}
    w4a8 = replace(plan.model, quant=_quant_spec({"quantization_config": qc}, None, []))
    assert w4a8.quant.scheme == q.scheme and not is_ct_wna16(w4a8.quant)
    assert quantized_moe_experts(w4a8, plan.gpu, plan.args, plan.rules, 704) is None
    assert term_features(w4a8, plan.gpu, plan.args, plan.rules).moe_workspace_bytes == 0


def test_vllm_mxfp4_use_marlin_moves_the_experts_only_where_the_release_reads_it():
    """VLLM_MXFP4_USE_MARLIN=1 (rules row mxfp4_marlin_env): quantization/mxfp4.py get_mxfp4_backend reads it on Hopper
    only (0.10.1-0.18: family 100 takes FlashInfer first); fused_moe/oracle/mxfp4.py select_mxfp4_moe_backend returns
    Marlin for it on any GPU (0.19.0-0.23.0), a B200 included; vllm/envs.py has no such variable from 0.24.0, so it
    moves nothing there. The weights' padding (Marlin 128 / 256) and MarlinExperts' workspace follow together."""
    marlin = ("VLLM_MXFP4_USE_MARLIN=1",)
    for version, gpu, moved in (("0.18.0", "H100", True), ("0.18.0", "B200", False), ("0.19.0", "B200", True),
                                ("0.23.0", "B200", True), ("0.24.0", "H100", False), ("0.24.0", "B200", False)):
        p, f = _gpt_oss(version, gpu=gpu)
        pm, fm = _gpt_oss(version, gpu=gpu, env=marlin)
        assert (fm.moe_workspace_bytes > 0) is moved and f.moe_workspace_bytes == 0, (version, gpu)
        assert (pm.weights_bytes != p.weights_bytes) is moved, (version, gpu)
        assert any(a.startswith("MXFP4 Marlin: experts held as") for a in pm.assumptions) is moved
    unread = _gpt_oss("0.24.0", gpu="H100", env=marlin)[0]
    # (the flag that stands for it there: --moe-backend marlin, tests/test_moe_backend.py)
    assert ("environment VLLM_MXFP4_USE_MARLIN=1: not read by vLLM 0.24.0 (--moe-backend marlin puts the MXFP4 experts "
            "on Marlin there)") in unread.assumptions
    # before the workspace is charged (0.17), the weights alone: 0.10.1's Mxfp4MoEMethod._should_use_marlin returns the
    # variable before any device check (a B200 moved; it was left on FlashInfer), 0.10.2 and 0.11.0 never read it
    # (noted 'not read'), 0.11.1's get_mxfp4_backend reads it after the SM100 FlashInfer branches (a B200 stays)
    for version, gpu, moved in (("0.10.1.1", "B200", True), ("0.10.2", "B200", False), ("0.11.0", "B200", False),
                                ("0.11.1", "B200", False)):
        p, pm = _gpt_oss(version, gpu=gpu)[0], _gpt_oss(version, gpu=gpu, env=marlin)[0]
        assert (pm.weights_bytes != p.weights_bytes) is moved, (version, gpu)
        assert any(a.startswith("MXFP4 Marlin: experts held as") for a in pm.assumptions) is moved, (version, gpu)
    for version in ("0.10.2", "0.11.0"):
        pm = _gpt_oss(version, gpu="H100", env=marlin)[0]
        assert f"environment VLLM_MXFP4_USE_MARLIN=1: not read by vLLM {version}" in pm.assumptions


def test_from_0_27_the_workspace_is_filed_under_non_torch_with_the_same_budget():
    # 0.27+ charges total_consumed (free memory before creation minus after the profile) plus only the transient headroom
    # (torch peak minus torch allocated after the profile) (utils/mem_utils.py memory_profiling, v1/worker/gpu_worker.py
    # determine_available_memory, 0.27.1 and 0.30.0 wheels): the workspace, still allocated after the profile, is in the
    # summary's 'consumed memory (weights + non-torch)', not its 'peak activation'. 0.26 and earlier: in the peak.
    p26, f26 = _parts("0.26.0")
    t26 = measured_terms(p26.model, p26.gpu, p26.args, p26.rules)
    p30, f30 = _parts("0.30.0")
    t30 = measured_terms(p30.model, p30.gpu, p30.args, p30.rules)
    ws = f30.moe_workspace_bytes
    assert ws > 0 and f26.moe_workspace_bytes > 0
    assert "fused-MoE workspace" in t26["activation_peak"][1] and "fused-MoE workspace" not in t26["non_torch"][1]
    assert t26["moe_workspace_in_non_torch"][0] == 0
    assert "fused-MoE workspace kept after the profile" in t30["non_torch"][1]
    assert "fused-MoE workspace" not in t30["activation_peak"][1]
    assert t30["moe_workspace_in_non_torch"][0] == ws
    assert t30["non_torch_no_sampler"][0] >= ws  # a rank without the sampler still runs the experts
    assert t30["activation_no_sampler"][0] < ws
    assert p30.non_torch_bytes >= ws and p30.activation_peak_bytes < ws


def test_the_blind_0_30_h100_moe_start_moves_the_workspace_toward_the_logged_split():
    # BigBirdReturns/cantos run3-scored-n-t0 (tests/data/blind_records.jsonl, SOURCES-logs.md twenty-third round):
    # 'Actual usage is 30.66 GiB for consumed memory (weights + non-torch), 1.18 GiB for peak activation' with 29.1 GiB
    # of weights and a 0.84 GiB graph estimate: non-torch 1.56 GiB, transient peak 0.34 GiB
    import json
    from pathlib import Path
    rec = next(json.loads(line) for line in (Path(__file__).parent / "data" / "blind_records.jsonl").open()
               if line.startswith('{"id": "qwen3-coder-30b-a3b-instruct-fp8-h100-'))
    p, _ = predict_record(rec)
    ws = measured_terms(p.model, p.gpu, p.args, p.rules)["moe_workspace_in_non_torch"][0]
    assert abs(ws / GIB - 0.5) < 1e-9  # T(8192) x top-k 8 x 2 B x (2048 + 2048)
    assert abs(p.non_torch_bytes / GIB - 1.56) < abs((p.non_torch_bytes - ws) / GIB - 1.56)
    assert abs(p.activation_peak_bytes / GIB - 0.34) <= abs((p.activation_peak_bytes + ws) / GIB - 0.34) + 0.05


def test_gemma4_moe_reads_its_experts_per_token_from_top_k_experts():
    # Gemma 4's config names the routed experts per token top_k_experts; vLLM's Gemma4MoE passes it to FusedMoE as
    # top_k (model_executor/models/gemma4.py, 0.20.2 and 0.25.1 wheels). Read as 0, the fused-MoE forward term and the
    # workspace were missing from the profile's peak.
    from kvplan.resolve import resolve_model
    m = resolve_model("google/gemma-4-26B-A4B")
    assert m.num_experts == 128 and m.num_experts_per_tok == 8 and m.moe_intermediate_size == 704
    # tests/data/extra_records.jsonl: the -it checkpoint on an H200 with vLLM 0.20.2, 0.9, 32,768 ('Available KV cache
    # memory: 71.67 GiB'); with top-k 0 kvplan planned 72.47 GiB (+1.11 %), with top-k 8 its peak carries the workspace
    import json
    from pathlib import Path
    rec = next(json.loads(line) for line in (Path(__file__).parent / "data" / "extra_records.jsonl").open()
               if json.loads(line)["id"] == "gemma-4-26b-a4b-it-h200-u090-tp1")
    p, _ = predict_record(rec)
    assert abs(p.kv_cache_bytes / GIB - 71.67) / 71.67 < 0.005


def test_cutlass_nvfp4_experts_buffers_for_gemma4_on_blackwell_in_0_20():
    """vLLM 0.20.2 serves Gemma 4's NVFP4 experts (gated GELU) with VLLM_CUTLASS on Blackwell: FlashInfer's NVFP4
    backends take no GELU (oracle/nvfp4.py, flashinfer_cutlass_moe.py); CutlassExpertsFp4's workspace and
    run_cutlass_moe_fp4's expanded copies (cutlass_moe.py) are charged; 0.25.1 (FlashInfer takes GELU_TANH from 0.24)
    and Hopper keep the generic term."""
    import json
    from pathlib import Path

    from kvplan.plan import cutlass_fp4_moe_bytes, term_features
    from kvplan.validate import predict_record

    ws, tr = cutlass_fp4_moe_bytes(16384, 8, 704, 2816, 2)
    assert ws == 16384 * 8 * (2816 + 704) * 2
    assert tr == 16384 * 2 * (3 * 8 * 2816 + 2 * 2816)
    rec = next(json.loads(l) for l in open(Path(__file__).parent / "data" / "blind_records.jsonl")
               if "gemma-4-26b-a4b-nvfp4-rtx5090-wsl2" in l)
    plan, _ = predict_record(rec)
    f = term_features(plan.model, plan.gpu, plan.args, plan.rules)
    assert f.moe_path == "nvfp4_vllm_cutlass" and (f.moe_workspace_bytes, f.moe_bytes) == (ws, tr)
    from dataclasses import replace

    from kvplan.versions import rules_for
    later = term_features(plan.model, plan.gpu, plan.args, rules_for("0.25.1"))
    assert later.moe_path == "" and later.moe_bytes == 16384 * 8 * 2 * (3 * 704 + 2816)
    hopper = replace(plan.gpu, compute_capability="9.0")
    assert term_features(plan.model, hopper, plan.args, plan.rules).moe_path == ""


def _ct_fp8(version: str, gpu: str, **kw):
    p = kvplan.fit("poolside/Laguna-S-2.1-FP8", gpu, vllm_version=version, max_model_len=8192, fixes=False, **kw)
    return p, term_features(p.model, p.gpu, p.args, p.rules)


def test_compressed_tensors_block_fp8_experts_take_the_same_triton_experts_buffers():
    # poolside/Laguna-S-2.1-FP8: a compressed-tensors group of [128, 128] block FP8 weights over every Linear, experts
    # included. CompressedTensorsW8A8Fp8MoEMethod maps strategy "block" to the same weight and activation keys as
    # Fp8MoEMethod and asks the same select_fp8_moe_backend, then builds make_fp8_moe_kernel (0.14.0-0.29.0 wheels):
    # TritonExperts on Hopper without EP from 0.17, top-k 10, N = 2 x 1,024, K = 3,072: both buffers (T, 10, 3072) in bf16
    p, f = _ct_fp8("0.19.0", "H100")
    assert p.model.quant.method == "compressed-tensors" and p.model.quant.weight_block == (128, 128)
    assert f.moe_workspace_bytes == 2 * p.args.max_num_batched_tokens * 10 * 3072 * 2 and f.moe_bytes == 0
    # the same release rules as the fp8 method's: cc 8.9 from 0.14, Hopper from 0.17, none on 0.13 (fused_experts()
    # per call) nor on Blackwell 10.x (FlashInfer TRTLLM) nor with EP on Hopper (FlashInfer CUTLASS)
    pl14, fl14 = _ct_fp8("0.14.1", "L40S")
    assert fl14.moe_workspace_bytes == 2 * pl14.args.max_num_batched_tokens * 10 * 3072 * 2
    _, fh16 = _ct_fp8("0.16.0", "H100")
    _, fl13 = _ct_fp8("0.13.0", "L40S")
    _, fb = _ct_fp8("0.19.0", "B200")
    _, fep = _ct_fp8("0.19.0", "H100", enable_expert_parallel=True, tensor_parallel_size=2)
    assert fh16.moe_workspace_bytes == fl13.moe_workspace_bytes == fb.moe_workspace_bytes == fep.moe_workspace_bytes == 0
    assert fl13.moe_bytes > 0
