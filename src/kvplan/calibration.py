"""The terms vLLM measures rather than computes, as formulas with fitted coefficients.

vLLM profiles three things at startup that no config states exactly: the profile
run's activation peak, non-torch memory (CUDA context growth, NCCL and allocator
buffers), and CUDA-graph memory. kvplan predicts each from the architecture and the
engine arguments with a formula whose shape comes from docs/vllm-memory-model.md
(sections 1.3, 1.5, 2.2) and whose coefficients are fitted, per accounting era, on
the real startups in `calibration.jsonl` (see `tools/fit_calibration.py`, which
prints the records each coefficient came from and the residuals on all of them).

Formulas (bytes, per rank):

    activation = max(a_forward * T * dtype * (3 H + 3 I_rank)        (dense MLP live set; an eager forward at TP > 1
                                                                      from 0.6.5: at least 5 H + I_rank [+ 2 I_rank
                                                                      Qwen2MLP] at down_proj's out-of-place all-reduce,
                                                                      read from the code: plan.allreduce_live_bytes)
                   + a_moe   * T * topk * dtype * (3 I_e / TP + H), (fused-MoE caches)
                     a_sampler * S * V_pad)                          (logits + fp32 copy + sort, bytes per logit)
               + a_const
    non_torch  = n_const + n_tp * [TP > 1]                         (n_tp only where NCCL is charged)
               + n_nvls * [TP > 2 on a Hopper+ NVSwitch]           (where NCCL is charged)
               + n_nvlink_tp * [TP > 1 over Hopper+ NVLink]        (V1)
               + n_integrated * [GB10, Jetson]
               + FlashInfer's all-reduce fusion workspace [0.17+, TP > 1 on Hopper/Blackwell]  (read from the code:
                                                                    plan.fi_allreduce_workspace_bytes, not a coefficient)
    cudagraph  = g_const + g_per_layer_size * layers * capture_sizes   (subtracted where the era subtracts its estimate;
                                                                        coefficients of their own there, see _G_CONST)

T = max_num_batched_tokens, S = the profile's sequences (min(max_num_seqs, T) in V1).
"""

from __future__ import annotations

from dataclasses import dataclass

GIB = 1024 ** 3


@dataclass(frozen=True)
class TermCoefficients:
    a_forward: float
    a_moe: float
    a_sampler: float        # bytes per logit element of the sampler run
    a_const: float          # bytes
    n_const: float          # bytes
    n_tp: float             # bytes, added at TP > 1 where NCCL buffers are charged
    g_const: float          # bytes
    g_per_layer_size: float  # bytes per (decoder layer x capture size)
    source: str
    n_integrated: float = 0.0  # bytes, on integrated-memory GPUs (GB10, Jetson)
    n_nvls: float = 0.0        # bytes, NCCL NVLink SHARP buffers (TP > 2 on an NVSwitch) where NCCL is charged
    n_nvlink_tp: float = 0.0   # bytes, TP > 1 over NVLink on Hopper or later (V1)
    # bytes per logit element where the sampler runs FlashInfer's top-k/top-p kernel (versions.py flashinfer_sampler);
    # None: the era's a_sampler whichever kernel runs
    a_sampler_flashinfer: float | None = None
    # bytes per logit where the sampler masks top-k/top-p with vLLM's in-place Triton kernel (versions.py
    # topk_topp_triton, from 0.17.0) in an era whose a_sampler was measured on the sort path; None: the era's a_sampler
    a_sampler_triton: float | None = None


MIB = 1024 ** 2

# CUDA-graph capture: g_const + g_per x decoder layers x capture sizes (+ a drafter's layers x its graphs), per rank.
# Where no release subtracts it from the budget (V0, V1 up to 0.19, the model runner v2 capture of 0.26-0.28) the only
# figure is the capture itself ("Graph capturing finished ... took X GiB", or the summary line's CUDAGraph memory):
# 0.12 GiB + 0.25 MiB per layer x size, the L1 fit (tools/fit_calibration.py --graphs) on the 24 startups of
# calibration.jsonl of those eras that log a positive figure, with vLLM's capture sizes of each release (versions.py
# cudagraph_size_grid). Scored on all 85 startups of the three record files that log the figure: |error| median 0.23
# GiB (38 %), p90 1.50 GiB (130 %), max 2.21 GiB, against 0.28 GiB (49 %), 1.43 GiB (222 %) and 2.14 GiB for the former
# 0.25 GiB + 0.287 MiB with the former size counts (51 sizes everywhere up to 512). The rest of the spread is not the
# architecture's: the figure is the free memory lost across the whole capture, and each capture begins by emptying
# torch's cache (torch/cuda/graphs.py graph.__enter__), which hands back what the profile left cached (nine startups
# log 0 or less: H100/H200 at 1,024 sequences, a GB10), while single-GPU A100 startups of Qwen3-8B/14B and Llama-3.1-8B
# log 2.2-2.9 GiB, which vLLM 0.19.1's own estimate confirms (2.35 GiB). No architecture term the records support
# lowers the error: a rate of its own for GDN/Mamba layers, a largest-size x hidden term, or a TP factor (the script
# prints each fitted and scored).
_G_CONST, _G_PER = 0.12 * GIB, 0.25 * MIB
# the capture alone, for a plan of an era whose coefficients are the estimate's (model runner v2 before 0.29, which
# subtracts no estimate and captures after the KV allocation: plan.measured_terms)
CAPTURE_G_CONST, CAPTURE_G_PER = _G_CONST, _G_PER
# Model runner v2's own estimate from 0.29 (v1/worker/gpu/cudagraph_utils.py profile_cudagraph_memory, 0.29.0 and
# 0.33.0 wheels): the free memory a capture of every PIECEWISE graph and of the two largest FULL ones costs against a
# throwaway pool, + (FULL graphs - 2) x the second FULL sample, at least 1 MiB (plan.cudagraphs.mrv2_graph_estimate_bytes,
# which charges the floor). The measured capture: MRV2_G_CONST + MRV2_G_PER x decoder layers x capture sizes, the L1 fit
# (tools/fit_calibration.py --estimates) on the 14 CUDA startups of 0.29-0.31 that log the estimate ('CUDA graph pool
# memory: A GiB (actual), B GiB (estimated)'): 0 GiB + 0.25 MiB, the capture fit's slope without its constant; the same
# fitted without the 0.29.0 Qwen3.5-4B L4 start (0.47 GiB logged, 0.43 charged) whose pool prompted it. |error| median
# 0.03, p90 0.21, max 0.29 GiB (Qwen3-8B on H100, 0.77 logged, 0.48 charged; Qwen3-Coder-30B-A3B FP8 on H100 0.84 / 0.63), signed
# median -0.00, against 0.06 / 0.56 / -0.06 for the former flat 0.25 GiB + 1 MiB per further FULL graph, and 0.12 /
# 0.17 / +0.12 for the capture fit's 0.12 GiB + 0.25 MiB (the real capture after the KV allocation, which these startups
# log at about half their estimate: 'Graph capturing finished ... took' 0.24 GiB against 0.47 for the L4 start).
MRV2_G_CONST, MRV2_G_PER = 0.0, 0.25 * MIB
# From 0.20 the budget subtracts vLLM's estimate (gpu_model_runner.py profile_cudagraph_memory: the first two graphs of
# each mode measured on a throwaway pool, the rest extrapolated), so the term moves the KV pool, and the KV-pool fit of
# that group (no coefficient of which is a graph term) was made with 0.25 GiB + 0.287 MiB per layer x size, the former
# capture fit (the size grid of 0.11.1+ is the one that fit counted). Refitted to the 0.12 GiB + 0.25 MiB above, the
# blind startups' KV error grows (median 1.02 -> 1.29 %, p90 5.87 -> 8.02 %) and so does the out-of-sample median
# (2.19 -> 2.44 %): the logged pools say that the estimate these releases subtract is the larger one. vLLM's own
# estimate, where the 0.25.1 GB10 startups log it ("Estimated CUDA graph memory"), is above both for three of four
# (Laguna-S-2.1 0.86 and 0.93 GiB, Qwen3.6-35B-A3B 0.74 GiB: 0.40, 0.40 and 0.37 GiB charged) and below for
# Qwen3.8-27B (0.22 GiB, 0.45 charged); too few to fit the estimate on its own.
# Checked against every V1-runner startup that states vLLM's estimate (tools/fit_calibration.py --estimates: 25, 10 of
# releases that subtract it; the estimate's arithmetic is the same in the 0.19.0-0.33.0 wheels, gpu_model_runner.py
# profile_cudagraph_memory: the largest mode's first capture + (graphs - 1) x the second capture, at least 1 MiB, per
# mode): |error| median 0.26 GiB, p90 1.34, signed median -0.11 (0.30 / 0.53 on the 10). The estimate is mostly not
# the term's shape: one startup's DEBUG lines (tests/data/plfail_gpt_oss_20b_tp1_h100_v0190_failed.log, 24 layers)
# give 186 MiB first + 82 x 6 MiB PIECEWISE and 82 x 8 MiB FULL, 0.25-0.33 MiB per layer and graph, while the
# 64-layer RTX 5090 Laptop start (blind, 0.21.1, 84 graphs extrapolated, 0.49 GiB in all) leaves at most 0.09, and the
# rest, the first capture, differs tenfold between like startups (Llama-3.1-8B on H100 TP2 1.69 GiB, TP4 0.57; Qwen3-8B
# 0.50 on H100, 2.35 on A100). Refitted on the 25 (L1), no form wins on both the estimates and the pools: layers x
# sizes 0.33 GiB + 0.310 MiB (estimates: median 0.32, p90 1.16 GiB; blind KV max 53.6 -> 66.8 %), 0.39 GiB + 5 MiB per
# extrapolated graph of both modes (estimates 0.31 / 1.55, on the 10 0.30 / 0.39; KV: calibration median 1.33 -> 1.10 %,
# p90 30.92 -> 30.72, blind max 53.6 -> 22.6 %, out-of-sample tokens p90 10.46 -> 10.71 %), 0.04 GiB + 0.240 MiB per
# layer and extrapolated graph (0.22 / 1.11; blind KV p90 6.10 -> 7.74 %), 0.23 GiB + 1.3 MiB per token of the largest
# size (0.31 / 1.47): the coefficients stay.
# Quantized checkpoints share them: nothing in the estimate depends on the weights' format (profile_cudagraph_memory
# measures the free memory each sampled capture costs, gpu_model_runner.py, 0.22.1 wheel; quantization kernels'
# buffers are made at load), and the records agree (tools/fit_calibration.py --estimates and --graphs, by
# quantization). On the discrete-GPU startups of releases that subtract the estimate, the term is above vLLM's own by
# a median +0.19 GiB for the 4 quantized ones (Qwen2.5-32B GPTQ +0.67, Qwen3-30B-A3B FP8 +0.37, Gemma-4-26B NVFP4
# +0.02, Qwen2.5-7B AWQ -0.06) and +0.21 GiB for the 11 unquantized; kvplan's capture against the pools CUDA startups
# of 0.20+ log: median +0.11 GiB AWQ/GPTQ (10), +0.24 FP8 (5), +0.02 NVFP4/MXFP4 (10), -0.04 compressed-tensors INT
# (3), +0.19 unquantized (34). No family stands apart, so none has a term of its own. The GPTQ start (0.21.1 nightly,
# RTX 5090 Laptop) is no exception: vLLM estimated 0.49 GiB and captured 0.95 after the KV allocation (0.21 below the
# 1.16 charged), and its logged pool (1.17 GiB, 9,584 tokens; -9.7 % planned) leaves 1.34 GiB of the budget for the
# activation peak and non-torch memory, which kvplan puts at 0.78: the graph term's excess stands in for them.
# The term's excess over vLLM's estimate, term by term (tools/fit_calibration.py --terms: the 13 discrete-GPU V1-runner
# startups of 0.20-0.26 that state the estimate): in these releases profile_cudagraph_memory runs inside the profile's
# memory_profiling span, after the torch peak is sampled (v1/worker/gpu_worker.py determine_available_memory, 0.22.1
# wheel), so the logged "peak activation" is torch_peak_increase alone and the capture's leftovers outside torch land
# in non_torch_increase. kvplan's estimate is a median +0.21 GiB above vLLM's and the KV pool -0.04 GiB below the
# logged one; charging vLLM's own estimate instead leaves a median +0.17 GiB that the activation and non-torch terms
# would have to add, +0.39 at max_num_seqs <= 64 (7 startups), +0.04 at 256 (4), -0.08 at 1,024 (2). Which of the two
# it belongs to the logs do not say: one of the 13 (gemma-4-31b-it on a B300, 0.26.0, 1,024 sequences) prints both,
# and there kvplan's activation peak is 0.10 GiB above the log and its non-torch 0.05 below, no shortfall. Eleven of
# the 13 are blind startups, which score only, and the two fitting ones disagree in sign (Gemma-4-26B H200 -0.20,
# Qwen3-30B-A3B FP8 H100 +0.37 GiB), so neither the estimate nor a compensating term is refitted. As what-ifs on V1-e,
# the estimate at those 13's L1 fit (0.11 GiB + 0.220 MiB per layer x size) alone, or with +0.17 GiB on the activation
# or non-torch constant, brings the estimate's |error| median from 0.21 to 0.09 GiB but the 13 pools' from 0.11 to
# 0.18-0.19 GiB (the shortfall follows max_num_seqs, not a constant), and the blind KV p90 from 10.79 % to 12.09
# (estimate alone), 10.83 (+ activation; tokens p90 11.78 -> 12.36) or 11.03 (+ 0.10 GiB non-torch).
ESTIMATE_G_CONST, ESTIMATE_G_PER = 0.25 * GIB, 0.00028 * GIB

# ROCm from 0.26 (versions.py cudagraph_rocm_cost; the releases whose budget subtracts vLLM's graph estimate on ROCm
# too, row cudagraph_subtracted_rocm): every captured hipGraph holds memory of its own, so the pool grows by a fixed
# amount per graph, not with the batch (vLLM issue #19579, 0.9.1 on MI300: PIECEWISE capture several times CUDA's,
# FULL graphs not; ROCm/pytorch issue #2286, comment of 2025-07-08: the hipGraph implementation with the HSA fragment
# allocator, "hipGraph requires memory each time one is captured"). vLLM measures it on ROCm as on CUDA: model runner
# v2 (0.29+) captures every PIECEWISE graph against a throwaway pool and extrapolates FULL graphs past two samples
# (v1/worker/gpu/cudagraph_utils.py profile_cudagraph_memory, 0.29.0-0.33.0 wheels); the V1 runner extrapolates each
# mode's second capture (v1/worker/gpu_model_runner.py profile_cudagraph_memory, 0.26.0-0.33.0), which on ROCm costs
# what every later capture does. kvplan: the era's pool constant + ROCM_G_PER_GRAPH per graph, a PIECEWISE capture
# size counting (decoder layers + 1) graphs (the pieces between attention splits) and a FULL one 1
# (plan.rocm_graph_units). The rate is the median of what the ROCm records of 0.26+ that log their pool imply beyond
# the pool constant (tools/fit_calibration.py rocm_graph_family, extra_records.jsonl): the Llama-3.3-70B FP8 MI300X
# 0.30.0 start 2.06 MiB (8.65 GiB, 81 x 51 + 35 graphs), the Qwen3-Coder-30B-A3B FP8 one 2.04 (5.29 GiB, 49 x 51 + 35),
# an RX 7900 XT (RDNA3) Qwen3-8B 0.27 dev start 3.03 (0.90 GiB, 37 x 7 + 5): 2.06 MiB. The two MI300X records are
# twins (another attention backend) of the blind 0.30.0 MI300X starts, which therefore no longer test the rate on
# their own; the independent MI300X figures agree: a Gemma-4-E2B-it start (0.29.1 nightly, not a record, config in no
# catalog) 2.00 MiB, the blind gemma-3-4b-it 0.23.0 start's capture 1.96 MiB (tests/data/SOURCES-logs.md, ROCm
# CUDA-graph round). RDNA3's 3.0 MiB says the rate is the card's: a Radeon start is undercounted by a third.
ROCM_G_PER_GRAPH = 2.06 * MIB


def _fitted(a_sampler: float, n_const_gib: float, n_tp_gib: float, records: str, n_integrated_gib: float = 0.0,
            n_nvls_gib: float = 0.0, n_nvlink_tp_gib: float = 0.0,
            a_sampler_flashinfer: float | None = None, a_sampler_triton: float | None = None,
            graphs_estimated: bool = False) -> TermCoefficients:
    g_const, g_per = (ESTIMATE_G_CONST, ESTIMATE_G_PER) if graphs_estimated else (_G_CONST, _G_PER)
    return TermCoefficients(a_forward=1.0, a_moe=1.0, a_sampler=a_sampler, a_const=0.0, n_const=n_const_gib * GIB,
                            n_tp=n_tp_gib * GIB, g_const=g_const, g_per_layer_size=g_per, n_integrated=n_integrated_gib * GIB,
                            n_nvls=n_nvls_gib * GIB, n_nvlink_tp=n_nvlink_tp_gib * GIB,
                            a_sampler_flashinfer=a_sampler_flashinfer, a_sampler_triton=a_sampler_triton, source=f"fitted by tools/fit_calibration.py on {records}")


# Fitted by tools/fit_calibration.py on shared/data/vllm_logs/calibration.jsonl (the script prints every record's
# residual). a_forward = a_moe = 1 (the live-set shapes of docs/vllm-memory-model.md section 2.2 are used as they are,
# with the third T x H tensor the dense one holds: plan.term_features).
COEFFICIENTS: dict[str, TermCoefficients] = {}
# NCCL's NVLink SHARP (NVLS) buffers: NCCL enables NVLS for communicators of more than 2 GPUs on Hopper-or-later
# NVSwitch systems (vLLM issue #9699, measured on H100/H200), and up to 0.10 they are allocated after the baseline
# snapshot, so they come out of the KV budget. Fitted on the two runs that have them (Qwen3-32B TP4 and TP8 on H100,
# 0.10.0), the other terms of the group fitted without them. V0 has no such record and charges NCCL the same way, so
# it takes the same value. Qwen3-235B-A22B-FP8 TP4 on H100, dated July 2025 (0.9.2) by its vLLM issue and so scored
# but not fitted, comes out at +0.09 GiB with it.
_NVLS_GIB = 1.80
# TP > 1 over NVLink on Hopper or later (cc 9.x/10.x), every V1 release: 0.55 GiB of non-torch memory, the median of the
# five V1 startups with two such ranks (H100 and H200, 0.10.2-0.15.1, five sources: +0.41, +0.54, +0.56, +0.58 and +1.36
# GiB beyond their era's other terms; tools/fit_calibration.py prints them; the median 0.56 rounds to 0.55). Two of them
# log it directly: non-torch 0.54 and 0.55 GiB at TP2 against 0.07-0.14 GiB at TP1 on the same setups. A100 (NVLink, cc
# 8.0) and PCIe cards show no such excess (the A100 TP records' residuals are -0.97 to +0.11 GiB without it). One is in
# calibration.jsonl, four in tests/data/extra_records.jsonl, which are no longer blind tests of it. The NVLS term above
# is refitted with it (2.35 -> 1.80 GiB, the same total for TP > 2 before 0.11); V0 keeps the total. Its size is NCCL's:
# on an H200 (bench/probe_gpu.py, NCCL of torch 2.11) one communicator and one all-reduce took 0.545 GiB outside torch's
# allocator (bench/data/h200_probe.json: 750.8 MB after it, 165.7 MB after CUDA's context and a cuBLAS GEMM).
_NVLINK_TP_GIB = 0.55
# From 0.17.0 a TP > 1 startup on Hopper or Blackwell also builds FlashInfer's all-reduce + RMSNorm fusion workspace
# inside the profiled window, outside torch's allocator (versions.py fi_allreduce_fusion): three buffers per rank, each
# rounded up to the multicast granularity the driver recommends where flashinfer allocates them with SymmDeviceMemory
# (0.17-0.21, 0.27+), 3 x 512 MiB = 1.5 GiB at every TP size the pass supports (plan.fi_allreduce_workspace_bytes; the
# form and each size are read from vLLM's and flashinfer's code). The 512 MiB is the granularity the five startups below
# imply (tools/fit_calibration.py fi_workspace_family: 447-471 MiB per buffer beyond the era's constant and the NVLink
# TP term above, whose nearest power of two is 512 MiB, the value the workspace addresses in sgl-project/sglang PR
# #18341 show). They are vLLM 0.19.0 H100 startups of the llm-d-planner sweep that log their non-torch memory (2.06-2.13
# GiB at TP2/TP4, 0.24-0.25 at TP1 on the same setups), in tests/data/extra_records.jsonl, so no longer blind tests of
# it; the sweep's other TP > 1 runs log 2.07-2.21 GiB, its Llama-4-Scout TP4 and Mixtral TP2 among them
# (tests/data/blind_records.jsonl, which therefore no longer test this term blind either). With it the five come within
# -0.19 to -0.30 GiB of their logged pools (they were +1.27 to +1.31 GiB); charged 2.25 GiB of non-torch memory against
# the 2.06-2.13 logged, i.e. what they log beyond the workspace at TP > 1 (0.36-0.43 GiB) is below the 0.55 above.
# (The five: Llama-3.1-8B and Qwen2.5-7B at TP2 and TP4, gpt-oss-20b at TP2; tests/test_fi_allreduce_workspace.py names
# their records. kvplan reads no record's id.)
# V0, 0.6.5-0.10 (era V0-c, which charges the non-torch increase over a baseline snapshot taken after the CUDA context
# was created, worker/worker.py init_device 0.7.1): non-torch 0.11 GiB, the median of the five single-GPU startups of calibration.jsonl that log it
# (Llama-3.2-3B T4 0.8.2 0.05, Qwen2.5-14B 0.7.2 0.09, Qwen2.5-14B 0.7.3 0.11 and 0.11, Qwen2.5-3B T4 0.6.6 0.13 GiB;
# the KV-pool fit had put one constant for all of V0 at 0.45). The sampler, 40 B per logit, is then fitted on the KV
# pools of the group (tools/fit_calibration.py prints every residual): the TP1 records come out at -0.04 .. +0.05 GiB
# but for Qwen2.5-14B at T 32768 (+0.31 GiB), whose forward-dominated peak is logged at 3.79 GiB against the 3.47
# GiB of the live-set formula (3.16 before the third T x H tensor, plan.term_features). The two single-GPU startups whose logged peak is the sampler's by the script's test say
# the same: Qwen2.5-3B T4 38.6 and Llama-3.2-3B T4 39.2 B per logit (too few to fix the term alone); so do Qwen2.5-14B
# 0.7.3's 1.49 GiB, 41 B per logit. Only calibration.jsonl feeds these, so no out-of-sample record fixes them.
# The one TP2 record logs 0.25 GiB of non-torch memory, no more than the TP1 records, and the fit gives the NCCL term 0.
# Its profile line is a non-driver rank's: V0 samples only on the driver worker (worker/model_runner.py execute_model
# returns before the sampler when not is_driver_worker, 0.7.1), and its 0.19 GiB activation peak is the forward and
# logits alone (T 2048: 0.12 GiB, 256 x 152,064 bf16 logits 0.07 GiB); the engine takes the smallest rank's blocks,
# and the 81,536 tokens its error states are 7.47 GiB at 98,304 B per token per rank, not the line's 8.69 GiB. kvplan
# plans the driver rank (7.67 GiB, +2.7 % on the tokens); the record's GiB is scored as given, so its -11.8 % is that
# rank's. Llama-3.2-3B on a T4 with 0.8.2 ran V0 (compute capability below 8.0, see versions.py): its KV pool is
# scored, not fitted (-0.09 GiB), while its logged non-torch memory and peak are V0-c's own measurements and count
# above (its 0.90 GiB peak is 39 B per logit over the 192 sequences Unsloth set, not 29 over 256). Not modelled: the
# one-GPU A10 startup of 0.7.1 at max_model_len 131,072 (tests/data/extra_records.jsonl) logs a 0.22 GiB peak, its
# forward alone. Chunked prefill, on by itself above 32K (engine/arg_utils.py create_engine_config), changes only T in
# the profile (config.py SchedulerConfig: 2048, so 256 sequences of 8 tokens); each is still a prefill sampled with
# top-k/top-p (sequence.py SequenceGroupMetadata do_sample True, model_executor/sampling_metadata.py
# _prepare_seq_groups), and the sort alone would hold 0.36 GiB of 256 x 128,256 logits. FlashInfer's V0 sampler is
# opt-in (VLLM_USE_FLASHINFER_SAMPLER unset is off, sampler.py) and generation-config defaults do not reach the
# dummy run's SamplingParams, all 0.7.1. PR #13109's DeepSeek-Coder-V2-Lite at 163,840 (T 2048, chunked prefill then
# forced off for MLA, config.py VllmConfig.__post_init__ 0.7.3) logs 0.94 GiB, 38 B per logit: its sampler ran.
COEFFICIENTS["V0-c"] = _fitted(40, 0.11, 0.0, "5 V0 records of vLLM 0.6.5-0.7 (Qwen2.5-3B/14B, R1-Distill-Qwen-14B TP2) "
                               "and 5 logged non-torch figures", n_nvls_gib=_NVLS_GIB + _NVLINK_TP_GIB)
# V0 up to 0.6.4 (V0-a: the free memory lost since init_device; V0-b: device-wide used memory less torch's allocated
# bytes after the profile, which counts the CUDA context, worker/worker.py determine_num_available_blocks 0.6.4.post1;
# docs/vllm-memory-model.md section 1.3): the same sampler (one code path, 0.6.4-0.8.2), and non-torch
# 0.35 GiB fitted on the KV pools of the two calibration records (Llama-3.1-8B on an RTX 3090, 0.6.4, residuals +0.01
# and +0.01 GiB), the 0.35 GiB both log. Their forward-dominated peaks (2.07 and 2.99 GiB at T 20,000 and 29,000) are
# the live set with three T x H tensors (2.06 and 2.99, plan.term_features); counted with two (1.91 and 2.77) the fit
# had put the constant at 0.55, taking in the missing T x H. No record of these eras runs TP > 1 in the calibration
# file; the NCCL term stays 0, as the 0.6.5+ fit gives it.
for _era in ("V0-a", "V0-b"):
    COEFFICIENTS[_era] = _fitted(40, 0.35, 0.0, "2 V0 records of vLLM 0.6.4 (Llama-3.1-8B on an RTX 3090)",
                                 n_nvls_gib=_NVLS_GIB + _NVLINK_TP_GIB)
# V1's sampler, 0.8-0.17: 38.5 bytes per logit, the median of the 11 startups that log the profile's peak where the
# sampler's logits make it (1,024 sequences; 0.10.2 and 0.14.1 on H100/H200; vocabularies of 128K, 152K and 201K;
# 38.4-39.6 B each; tools/fit_calibration.py prints them). All sampled with the PyTorch-native kernel as far as their
# sources say: the three with a raw log (0.10.2) log its fallback line, the other eight (one benchmark's summary)
# no line, and none logs FlashInfer's (tests/data/SOURCES-logs.md). One of them is in calibration.jsonl, ten in
# tests/data/extra_records.jsonl, which makes those ten no longer blind tests of this coefficient. Fitted on the KV
# pools instead, the coefficient had come out at 34 (0.8-0.10) and 40 (0.11-0.17), 0.65 GiB off the logged peaks.
_V1_SAMPLER_B = 38.5
# The same sampler run on FlashInfer's top-k/top-p kernel, 0.8-0.17: 14 bytes per logit, read from the code, not
# fitted. The profile's dummy sampler run sets top-k (vocabulary - 1) and top-p (0.9) for every sequence and no
# per-request generators (v1/worker/gpu_model_runner.py _dummy_sampler_run), so TopKTopPSampler.forward_cuda calls
# flashinfer.sampling.top_k_top_p_sampling_from_logits (v1/sample/ops/topk_topp_sampler.py flashinfer_sample), which
# with its default filter order keeps three tensors of the logits' shape alive at once beside the model's: the model's
# logits (2 B, bf16/fp16, held by the caller), the sampler's fp32 copy (4 B, v1/sample/sampler.py
# logits.to(torch.float32); temperature divides it in place), top_k_mask_logits' masked fp32 logits (4 B) and the
# softmax of those (4 B); the rejection sampling that follows returns one token per sequence. The PyTorch-native path
# sorts the fp32 logits instead (4 B values + 8 B int64 indices), then softmax, cumsum, mask and the scatter back, and
# random_sample's noise: the 38.5 above. Against the logged pools this is about what the dennislee22 A100 startups
# that log "Using FlashInfer for top-p & top-k sampling" leave for the whole peak (tests/data/SOURCES-logs.md).
_V1_SAMPLER_FLASHINFER_B = 14.0
# Integrated-memory GPUs (GB10, Jetson) before 0.20: what free memory loses to the OS and CPU-side allocations during
# startup. Each era group has one or two such startups, so one term for all of them: 2.15 GiB, the median of the four
# (Jetson Thor 0.10.2 +2.42, GB10 under NVIDIA's 0.11 container +2.76, GB10 under its 0.13 container +1.90 and +1.79;
# the first in calibration.jsonl, the others in tests/data/extra_records.jsonl, so no longer blind tests of it). The
# 0.11 GB10 startup logs "Using FlashInfer for top-p & top-k sampling" and is charged that kernel's sampler term (it
# was +2.65 charged the PyTorch-native one); the Jetson one logs it too but its record does not carry the variable.
# From 0.20 the term is fitted on its own group (4.0 GiB below). The groups are eras, not vLLM's free-memory measure
# (MemorySnapshot.measure reads the OS's available memory on cc 8.7 / 11.0 / 12.1 from the 0.11.1 wheel, utils/mem_utils.py,
# cudaMemGetInfo before): one term per measure, the median of its startups (2.60 GiB over 2, 3.05 over 9), fits the
# records worse (calibration KV p90 30.9 -> 33.6 %, extra 11.9 -> 12.5 %; the 0.13 GB10 pair implies 1.8-1.9 GiB, the
# 0.25.1 starts 2.9-4.0) and the blind GB10 starts no better (tools/card_terms.py prints the table).
_INTEGRATED_BEFORE_0_20_GIB = 2.15
# V1's non-torch constant where single-GPU startups log it (at least 5 in a group; tools/fit_calibration.py): 0.02 GiB
# for 0.8-0.10 (five startups, 0.02-0.07 GiB) and 0.13 GiB for 0.11-0.17 (six H100 startups of one benchmark, 0.13-0.14
# GiB); the KV-pool fit had put them at 0.10 and 0.0.
# V1 <= 0.10 (14 records: Qwen2-7B TP2 x3, gpt-oss-120b TP4, Qwen3-32B TP4/TP8, Qwen3-4B/8B, Qwen2.5-3B x2,
# llava x3, Qwen3-30B-A3B AWQ). The A100 TP records need no NCCL term (the L1 fit sets it to 0); the
# H100 TP4/TP8 ones are the NVLS term above.
for _era in ("V1-a", "V1-b"):
    COEFFICIENTS[_era] = _fitted(_V1_SAMPLER_B, 0.02, 0.0, "14 V1 records of vLLM 0.8-0.10", n_nvls_gib=_NVLS_GIB,
                                 n_integrated_gib=_INTEGRATED_BEFORE_0_20_GIB, n_nvlink_tp_gib=_NVLINK_TP_GIB,
                                 a_sampler_flashinfer=_V1_SAMPLER_FLASHINFER_B)
# V1-a (0.8.0-0.9.0.x) charges another non-torch quantity than V1-b. Its Worker.determine_available_memory
# (v1/worker/gpu_worker.py, read in the 0.8.5.post1 and 0.9.0.1 wheels) takes no init snapshot: after the profile and
# empty_cache() it adds (total - free) - torch allocated_bytes.all.current to the peak, the device-wide memory not
# allocated by torch, which counts this process's CUDA context (and any other tenant), as V0-b's worker/worker.py does
# (0.6.4.post1). The 0.02 GiB above is the logged increase over a snapshot taken after the context, from five 0.10.2
# startups (V1-b). No V1-a startup logs the term; the startups that log the same device-wide quantity are V0-b's: the
# two single-GPU ones (Llama-3.1-8B on an RTX 3090, 0.6.4) log 'non_torch_memory takes 0.35GiB'. That value, not a fit
# to V1-a records, is V1-a's constant (tools/fit_calibration.py takes it from the V0 <= 0.6.4 group's logged values).
_DEVICE_WIDE_NON_TORCH_GIB = 0.35
COEFFICIENTS["V1-a"] = _fitted(_V1_SAMPLER_B, _DEVICE_WIDE_NON_TORCH_GIB, 0.0,
                               "14 V1 records of vLLM 0.8-0.10; non-torch: the device-wide value V0-b's startups log",
                               n_nvls_gib=_NVLS_GIB, n_integrated_gib=_INTEGRATED_BEFORE_0_20_GIB,
                               n_nvlink_tp_gib=_NVLINK_TP_GIB, a_sampler_flashinfer=_V1_SAMPLER_FLASHINFER_B)
# The sampler on vLLM's in-place Triton top-k/top-p kernel (0.17.0 on, versions.py topk_topp_triton): 16 bytes per logit,
# the term fitted on the 0.18-0.19 startups below, whose sampler code is that of 0.17.0 (v1/sample and
# gpu_model_runner.py _dummy_sampler_run differ between the 0.17.0 and 0.18.0 wheels only in a logits-processor check and
# empty_cache's spelling). 0.11-0.16 sort the logits and keep the 38.5 above: the two 0.17.1 A100 startups of
# tests/data/extra_records.jsonl (Llama-3.1-8B, Qwen2.5-3B at 256 sequences) were 0.76 and 0.89 GiB short of their
# logged pools charged 38.5.
_V1_SAMPLER_TRITON_B = 16.0
# V1 0.11-0.17 (9 records: Llama-3/3.1-8B on H200/L4/A100, Qwen2.5-14B/32B, Llama-3-70B AWQ, Qwen3-30B-A3B, Qwen3-VL-30B,
# and Qwen3-Embedding-8B, whose pooling runner has no sampler peak).
COEFFICIENTS["V1-c"] = _fitted(_V1_SAMPLER_B, 0.13, 0.0, "9 V1 records of vLLM 0.11-0.17",
                               n_integrated_gib=_INTEGRATED_BEFORE_0_20_GIB, n_nvlink_tp_gib=_NVLINK_TP_GIB,
                               a_sampler_flashinfer=_V1_SAMPLER_FLASHINFER_B, a_sampler_triton=_V1_SAMPLER_TRITON_B)
# V1 0.18-0.19 (5 records: Qwen3-8B x2, Phi-3-mini, gpt-oss-20b, MiniMax-M2.7 NVFP4): a smaller sampler peak.
COEFFICIENTS["V1-d"] = _fitted(_V1_SAMPLER_TRITON_B, 0.2, 0.0, "5 V1 records of vLLM 0.18-0.19", n_integrated_gib=_INTEGRATED_BEFORE_0_20_GIB,
                               n_nvlink_tp_gib=_NVLINK_TP_GIB)
# V1 >= 0.20 (12 records; many serve a stand-in config, some state no version that the log or the source dates). Sampler bytes per logit and the
# non-torch constant carried over from 0.18-0.19, where the profiled sampler peak dropped; later changes keep it
# small: FlashInfer top-k/top-p (no full sort) became the default (vLLM PR #40376, 0.21.0; versions.py flashinfer_sampler),
# though from 0.21.0 the profile's dummy sampler run warms the native path too (profile_sampler_warms_native), and MRV2's profile run skips the
# fp32 logits path (noted in vLLM PR #57926). No record of 0.20-0.26 in the fitting files logs its non-torch memory
# (0.27+ log "consumed": below). The integrated-memory term (4.0 GiB, 6 DGX Spark / GB10 records, where free
# memory is the OS's available memory and CPU-side allocations during startup count as consumed) is fitted, after
# taking out what kvplan computes (the multimodal encoder pass of the Qwen3.6 GB10 record). Its records run vLLM's
# small batch defaults (2048 tokens, 256 sequences: NVML has no memory query on integrated parts, versions.py
# batch_defaults), so the sampler peak is a quarter of a 1,024-sequence one; fitted with 1,024 the term came out at
# 3.25 GiB, with the same residuals (-1.1 to +0.0 GiB on the GB10 records but the two MiniMax-M2.7 AWQ stand-ins).
# From 0.27 (V1-f) the constant is set from logged values, as the rule above asks (at least 5 single-GPU startups of the
# fitting files): vLLM 0.27+ charges total_consumed, the free memory lost from the init snapshot to the end of the
# profile (utils/mem_utils.py memory_profiling, 0.27.1 wheel; "X GiB for consumed memory (weights + non-torch)" in
# v1/worker/gpu_worker.py's summary), and each startup's consumed - weights, less what kvplan computes apart (model
# runner v2's penalty state, the fused-MoE workspace kept after the profile: plan.measured_terms), gives 0.111 (T4,
# Qwen2.5-1.5B-Instruct, 0.30.0), 0.150 (RTX 4050 Laptop under WSL2, Qwen2.5-3B-Instruct-AWQ, 0.29.0, model runner v1,
# warm), 0.151 (RTX 4090 under WSL2, Qwen2.5-0.5B, 0.27.1, vllm.LLM), 0.181 (a 40 GB card, Qwen2.5-Coder-1.5B-Instruct,
# 0.31.0) and 1.730 GiB (RTX 5090, Qwen3.8-27B NVFP4 with its MTP drafter, 0.27.1): median 0.151 -> 0.15 GiB
# (tools/fit_calibration.py CONSUMED_POOL; tests/data/SOURCES-logs.md, Non-torch >= 0.20 round). 0.20-0.26 (V1-e) do not
# share the measure: their budget charges non_torch_increase alone (memory_profiling, 0.26.0 wheel: CUDA-used less
# torch reserved over the init snapshot; persistent torch tensors fall in the torch peak), which no single-GPU startup
# of the fitting files logs, so V1-e keeps the 0.20 carried over. A search for public 0.20-0.26 single-GPU startups that
# print it (0.19-0.25 at DEBUG, 0.26.0 at INFO; tests/data/SOURCES-logs.md, Non-torch 0.20-0.26 round) found none that
# could be recorded; the blind file's five 0.26.0 starts that print it log 0.04, 0.04, 0.05, 0.06 (small cards) and 0.25
# GiB (B300), which score only. Five fitting startups would set it from their raw median: on one discrete card kvplan
# charges this constant and nothing beside it under non-torch (tools/fit_calibration.py prints the count, now 0).
# The integrated-memory term from 0.20 (6 DGX Spark / GB10 startups of calibration.jsonl) is 4.0 GiB, the L1 fit of
# tools/fit_calibration.py (grid 0.25 GiB).
# What vLLM's source does there, release by release (it charges no formula kvplan could compute instead):
# - free memory: MemorySnapshot.measure (utils/mem_utils.py) reads cudaMemGetInfo's free memory in the 0.10.2 and
#   0.11.0 wheels (utils/__init__.py), psutil.virtual_memory().available on compute capability 8.7 / 11.0 / 12.1 in
#   the 0.11.1-0.19.1 wheels, and on every device whose torch properties say is_integrated from 0.20.0
#   (platforms/cuda.py is_integrated_gpu; the 0.20.0-0.33.0 wheels); the total stays cudaMemGetInfo's, and the budget
#   is gpu_memory_utilization x that total (v1/worker/utils.py request_memory, 0.20.2: math.ceil(total x utilization),
#   refused where the free memory is below it), not a share of the free memory.
# - what is charged: 0.20-0.26 non_torch_increase, the growth of (total - available) - torch reserved from the init
#   snapshot (taken in Worker.init_device after NCCL) to after the profile (memory_profiling, 0.20.2 / 0.26.0 wheels);
#   0.27+ total_consumed, the fall in available memory over the same span, weights included (memory_profiling, 0.27.1
#   / 0.31.0 wheels). On an integrated part both count every process's host-side growth (the engine's Python heap,
#   torch.compile's in-process state and compile workers, pinned buffers) beside the CUDA allocations outside torch;
#   the weights' safetensors page cache is reclaimable and counted as available, so it is not consumed from 0.11.1
#   (the psutil startups' excess has no slope on the weights: tools/card_terms.py, +0.02 GiB per GiB). vLLM's own
#   host allocations that scale with the arguments are MiB-sized (the model runner's pinned CpuGpuBuffers of
#   max_num_batched_tokens x hidden size), and nothing scales with the utilization. 0.26.0 adds
#   release_device_memory_under_pressure (empty_cache when available < 20 % of total), which changes no reading above.
# So the term stays a fitted constant per era group; its spread (gemma-4 GB10 starts 2.05-2.16, Qwen3.8 4.01) is
# the host-side state of each machine (co-resident containers, a cold or warm compile cache), which no record states.
_INTEGRATED_FROM_0_20_GIB = 4.0
COEFFICIENTS["V1-e"] = _fitted(16, 0.20, 0.0, "12 V1 records of vLLM >= 0.20 (or of no version the log or the source dates)",
                               n_integrated_gib=_INTEGRATED_FROM_0_20_GIB, n_nvlink_tp_gib=_NVLINK_TP_GIB, graphs_estimated=True)
COEFFICIENTS["V1-f"] = _fitted(16, 0.15, 0.0, "12 V1 records of vLLM >= 0.20 (or of no version the log or the source "
                               "dates); non-torch: the median of 5 logged 0.27+ consumed figures",
                               n_integrated_gib=_INTEGRATED_FROM_0_20_GIB, n_nvlink_tp_gib=_NVLINK_TP_GIB, graphs_estimated=True)

_DEFAULT = COEFFICIENTS["V1-f"]


def coefficients_for(era: str) -> TermCoefficients:
    return COEFFICIENTS.get(era, _DEFAULT)
