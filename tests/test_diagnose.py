"""kvplan diagnose on the real failed startups, on healthy logs, on text with no evidence, and on garbage."""

from __future__ import annotations

import collections
import json
import random
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kvplan.diagnose import CONFIDENT, LAYERS, SYMPTOMS, diagnose, sharpen_with_plan
from kvplan.errors import InputError
from kvplan.logs import parse_lines
from kvplan.versions import wheel_cuda

DATA = Path(__file__).parent / "data"
CASES = [json.loads(line) for line in (DATA / "vllm_failure_cases.jsonl").read_text().splitlines() if line.strip()]
EXCERPTS = [json.loads(line) for line in (DATA / "vllm_log_excerpts.jsonl").read_text().splitlines() if line.strip()]
# Real cases from other public threads, gathered after the signatures were written (sources in each row).
EXTRA = [json.loads(line) for line in (DATA / "extra_failure_cases.jsonl").read_text().splitlines() if line.strip()]
# Real failed startups from further public threads, collected and labelled before any rule was changed for them
# (sources in each row): scored blind first, then the general gaps they showed were fixed.
BLIND = [json.loads(line) for line in (DATA / "blind_failure_cases.jsonl").read_text().splitlines() if line.strip()]


def test_accuracy_on_cases_by_class():
    per_class = collections.defaultdict(lambda: {"n": 0, "symptom": 0, "layer": 0})
    established = {"n": 0, "symptom": 0, "layer": 0}
    for case in CASES:
        top = diagnose(case["log_lines"]).top
        symptom_ok = top is not None and top.symptom == case["symptom_class"]
        layer_ok = top is not None and top.layer == case["owning_layer"]
        row = per_class[case["symptom_class"]]
        row["n"] += 1
        row["symptom"] += symptom_ok
        row["layer"] += layer_ok
        if case["cause_established"] == "yes":
            established["n"] += 1
            established["symptom"] += symptom_ok
            established["layer"] += layer_ok
    print()
    for name, row in sorted(per_class.items()):
        print(f"  {name:32} n={row['n']:2}  symptom {row['symptom']}/{row['n']}  layer {row['layer']}/{row['n']}")
    s, l, n = established["symptom"], established["layer"], established["n"]
    print(f"  cause_established == yes: symptom {s}/{n} = {s / n:.0%}, layer {l}/{n} = {l / n:.0%}")
    assert l / n >= 0.85
    assert s / n >= 0.80


def _score(cases) -> tuple[dict, dict]:
    """How often the top finding names each case's symptom and layer: (established-cause rows, all rows), the latter
    with the count of confident answers that name the wrong layer of an established cause."""
    established = {"n": 0, "symptom": 0, "layer": 0}
    every = {"n": 0, "symptom": 0, "layer": 0, "confident_wrong": 0}
    for case in cases:
        top = diagnose(case["log_lines"]).top
        symptom_ok = top is not None and top.symptom == case["symptom_class"]
        layer_ok = top is not None and top.layer == case["owning_layer"]
        rows = (established, every) if case["cause_established"] == "yes" else (every,)
        for row in rows:
            row["n"] += 1
            row["symptom"] += symptom_ok
            row["layer"] += layer_ok
        if case["cause_established"] == "yes" and top is not None and top.confidence >= CONFIDENT and not layer_ok:
            every["confident_wrong"] += 1
    return established, every


def _assert_in_the_cases_format(rows, earlier) -> None:
    """Rows with the keys of the cases file, from threads none of `earlier` cites, in the issue's vocabulary."""
    keys = set(CASES[0])
    urls = {c["source_url"] for c in earlier}
    for case in rows:
        assert set(case) == keys, case["id"]
        assert case["source_url"] not in urls, case["id"]
        assert case["symptom_class"] in SYMPTOMS and case["owning_layer"] in LAYERS
        assert case["cause_established"] in ("yes", "partial", "no")
    assert len({c["id"] for c in rows}) == len(rows)


def test_accuracy_on_extra_cases_from_other_threads():
    # Measured when added: on cause_established == yes, symptom and layer 11/11 (10/11 before the
    # general anchor/signature fixes); on all 29 rows symptom 29/29, layer 27/29. Thresholds sit a little
    # below, so a regression of one established case fails the test.
    established, every = _score(EXTRA)
    print(f"\n  extra, established: {established}; all rows: {every}")
    assert established["n"] >= 10
    assert established["layer"] / established["n"] >= 0.95
    assert established["symptom"] / established["n"] >= 0.95
    assert every["layer"] / every["n"] >= 0.85
    assert every["symptom"] / every["n"] >= 0.90
    assert every["confident_wrong"] == 0


def test_extra_cases_are_in_the_cases_format():
    _assert_in_the_cases_format(EXTRA, CASES)


def test_accuracy_on_blind_cases_from_new_threads():
    # Measured on the first 33 rows ('blind-'): before the fixes, symptom 24/33 and layer 26/33 (the hybrid
    # state-block refusal, a negative V1 KV budget, "compute capability less than 7.0", and an OOM caused by another
    # process on the GPU -- raised inside the KV-cache allocation, or with PyTorch's accounting showing the memory
    # held outside the process -- were not read); after, 33/33 and 33/33. The 9 'heldout-' rows were collected after
    # those fixes and scored once: symptom 7/9, layer 7/9 (the container toolkit's CUDA requirement and V1's
    # FlashAttention assertion on a V100 were not read); 9/9 after those two signatures were added.
    # The 27 'fail2-' rows came from a second round of threads and were scored once before any change: symptom 9/27,
    # layer 7/27 (cause established: 4/9, 4/9). After the general signatures they showed (HIP's no-GPU and
    # no-binary errors, NCCL's InfiniBand and system errors, container shared memory as Ray and a bus error report it,
    # a port in use, Triton's runtime C build and vLLM's compile failure, a multimodal item above the step budget,
    # CUDA's own out-of-memory, a bare 401, an architecture the error lists as supported, a '+cpu' torch): 27/27 and
    # 25/27. The two left are ports held by vLLM's own processes, which the log cannot tell from another holder.
    # The 5 'fail2-heldout-' rows were collected after those fixes and scored once: symptom 3/5, layer 3/5 (vLLM
    # 0.4.0's wording of the flash_attn fallback and a --chat-template file that does not exist were not read); after,
    # 5/5 and 4/5 (that fallback's flash_attn was installed but built for another torch, which the line cannot show).
    # The 20 'fail3-' rows came from a third round of threads (refusals of a feature or a shape: Marlin tiles and FP8
    # blocks split by tensor parallelism, LoRA ranks, speculative decoding, attention backends on Blackwell, ROCm and
    # Turing, a config too new for the release, V0 data parallelism, Ray placement) and were scored once before any
    # change: symptom 2/20, layer 2/20 (cause established: 1/10, 1/10); after the general signatures they showed, 20/20
    # and 20/20. The 4 'fail3-heldout-' rows were collected after those fixes and scored once: symptom 0/4, layer 0/4
    # (head-size refusals, an attention backend name the release does not register, the spec-decode/sequence-parallel
    # CUDA-graph shape check); 4/4 and 4/4 after those signatures. All 98 rows: 76/98 and 73/98 before the fail3 fixes,
    # 98/98 and 95/98 after.
    # The 20 'fail4-' rows came from a fourth round (a --quantization that contradicts the checkpoint, pipeline
    # parallelism for a model without SupportsPP, CUDA error 802, Ray with no free GPU on the node, FlashInfer's JIT
    # without nvcc, Gloo's full mesh, Llama 3.1's rope_scaling on old releases, a wheel that needs a newer glibc, and a
    # SIGTERM note of vLLM's own Ray shutdown read as a probe kill) and were scored once before any change: symptom 2/20,
    # layer 2/20 (cause established 1/10, 1/10). 4 'fail4-heldout-' rows were kept out of the fixes and scored after them:
    # symptom 3/4, layer 3/4 (the pre-SupportsPP wording of the pipeline-parallel refusal was not read; added after).
    # After: 20/20 and 18/20; the two left are lines with two owners (nvcc on PATH but an old flashinfer; Ray without a
    # GPU because the caller's own code held it), answered at low confidence or with the common owner.
    # 4 more 'fail4-heldout-' rows (their notes say so) were collected after the fixes and scored once with them, nothing
    # changed for them: symptom 4/4, layer 2/4 (a Blackwell GPU's missing kernels read as the GPU's, not the wheel's; a
    # nightly's dependency that needs nvcc read as the environment's: one line, two owners).
    # All 122 rows: 100/118 and 97/118 before the fail4 fixes, 122/122 and 115/122 after.
    # The 23 'fail5-' rows came from a fifth round (MIG UUIDs in CUDA_VISIBLE_DEVICES, a build installed under another
    # name whose platform detection fails, pynvml and --device cpu behind 'Failed to infer device type', bitsandbytes
    # checkpoints loaded without the bitsandbytes loader, --load-format safetensors on .bin weights, offline mode refusing
    # a Hub API call, a registry crash read as an unsupported architecture, a pod without the nvidia runtime class) and
    # were scored once before any change: symptom 14/23, layer 4/23 (cause established 9/16, 4/16; 5 of them confidently
    # wrong). 4 'fail5-heldout-' rows were kept out of the fixes: symptom 2/4, layer 0/4 before, 3/4 and 2/4 after (the
    # MIG UUID and package-metadata signatures read them; a bare KeyError on a weight name and a bare 'Failed to infer
    # device type' are not read). After: 21/23 and 15/23; a lone no-platform line (several owners) is now a low-confidence
    # hint. All 145 rows: 136/145 and 119/145 before the fail5 fixes, 143/145 and 130/145 after.
    # The 21 'fail6-' rows came from a sixth round (LoRA refused for a model class in both wordings, the TPU's torch_xla
    # nightly and Gaudi's missing plugin behind 'Failed to infer device type', an AITER kernel for gfx950 on gfx942, FP8
    # kernels missing from an image, a fixed internal ZMQ port, FlashInfer's ninja build, oneCCL on XPU, a Ray placement
    # group that never forms, NVFP4 MoE backends refused on SM120, a 64 MB /dev/shm in a pod, the Hub's 403 in httpx's
    # wording) and were scored once before any change: symptom 6/21, layer 2/21, one confidently wrong (a lone 'no kernel
    # image' line, now a hint: it has two owners). 4 'fail6-heldout-' rows were kept out of the fixes: 0/4 and 0/4
    # before, 1/4 and 1/4 after (the LoRA wording class reads the Gemma 3n row; nvcc's 'Unknown option', 'No NvFp4 MoE
    # backend supports' and Ray's GPU shortage read as a flag are not). After: 18/21 and 15/21; the layers left are
    # the lone 'Failed to infer device type' (TPU, Gaudi) and the lone 'no kernel image' line.
    # All 166 rows: 149/166 and 132/166 before the fail6 fixes, 161/166 and 145/166 after; no earlier row changed.
    # The 18 'fail7-' rows came from a seventh round (Model Runner V2 refusing hybrid models in the 0.20-0.22 wording,
    # multi-node data parallelism with the mp backend under Ray, LMCache's renamed module, Triton's bundled ptxas without
    # sm_121a on GB10, an sm120-only FP8 kernel guard on GB10, MXFP4's capability refusal in a pre-release build and its
    # dtype refusal on gfx906, FlashInfer refusing attention sinks, a forced backend's refusal without its reason on the
    # line, the 0.21+ CUDA-graph estimate leaving no KV blocks, an OpenShift pod without a writable home, a sparse-MLA
    # model on SM121) and were scored once before any change: symptom 5/18, layer 2/18, one confidently wrong (MXFP4's
    # 'Minimum capability: 100' of a pre-release build read as the H200's). 4 'fail7-heldout-' rows were kept out of the
    # fixes: 1/4 and 1/4 before, 2/4 and 2/4 after (the ptxas signature reads the Qwen3-VL docker row; AWQ asked of an
    # unquantized checkpoint and LMCache importing a vLLM module the release lacks are not read); the AWQ refusal, "Cannot
    # find the config file for", was added after that reading (3/4 and 3/4). After: 15/18 and 14/18 (16/18 and 15/18 with
    # it), none confidently wrong; left: the SM121 sparse-MLA refusal wrapped over four lines (its first line, without the
    # reasons, is now a hint naming the GPU and the configuration) and the CUDA-graph estimate, now named in the
    # no-cache-blocks finding whose layer stays the budget's (the line cannot tell an over-estimate from a short budget).
    # All 184 rows: 166/184 and 147/184 before the fail7 fixes, 177/184 and 160/184 after; no earlier row changed.
    # The 18 'fail8-' rows came from an eighth round (tool-call parser names unknown to the release in argparse's and vLLM's
    # wording, flags the CLI no longer has (--task, --enable-reasoning), Transformers' unknown model type pasted without its
    # backticks, a multimodal option refused by a release that predates the model, Triton's fp8e4nv refusal on Volta, a
    # checkpoint without a chat template, MTP under pipeline parallelism, hipBLASLt's libraries and the open-files limit at
    # -tp 8 on MI300X, a Ray version mismatch, the PTX JIT refusing a newer toolkit, PCIe ACS/IOMMU stalling TP=2, every
    # backend refusing the KV-cache dtype of a draft) and were scored once before any change: symptom 3/18, layer 4/18
    # (cause established 1/6, 1/6), none confidently wrong; 4/18 symptoms once the draft's backend refusal was given the
    # class the earlier rounds give it (attention_backend_fallback, not invalid_engine_flags). 4 'fail8-heldout-' rows were
    # kept out of the fixes: 1/4 and 1/4 before, 2/4 and 2/4 after (the unrecognized-arguments hint reads the
    # --enable-reasoning row); Triton's older 'fp8e4nv data type is not supported on CUDA arch < 89' and vLLM's 'is
    # unsupported LoRA weight' were added after that reading, as hints (4/4 and 3/4: the Ampere prefix-prefill row's line
    # names the GPU, the thread the release's kernel). After: 17/18 and 16/18, none confidently wrong; left: the TP=2 stall
    # behind ACS/IOMMU, whose log has no error line. Lines with several owners in public threads are hints: argparse's
    # unrecognized arguments, the multimodal-option refusal, Triton's fp8 refusals, hipBLASLt's 'Could not load'.
    # All 202 rows: 181/202 and 164/202 before the fail8 fixes, 194/202 and 176/202 after; no earlier row changed.
    # The 13 'fail9-' rows came from a ninth round (Transformers 4.54 registering 'aimv2', a name vLLM 0.9.x and a Gaudi fork
    # also register at import; the bare CONFIG_MAPPING KeyError of an older Transformers; GraniteMoeHybrid's layer types
    # renamed by Transformers 5.16; vLLM's config-type TypeError when a framework builds the config itself; GGUF
    # architectures Transformers' GGUF loader lacks; NIXL missing on XPU; Qwen2's partial sliding window refused by 0.7.3 and
    # 0.8.4; no compressed-tensors scheme for an NVFP4 checkpoint; FlashAttention refusing an FP8 KV cache in 0.7.0) and were
    # scored once before any change: symptom 1/13, layer 1/13 (cause established 0/5, 0/5), none confidently wrong. 4
    # 'fail9-heldout-' rows were kept out of the fixes: 0/4 and 0/4 before, 2/4 and 2/4 after (the 'aimv2' and config-type
    # signatures read the Qianfan-VL and Qwen3.5-MoE rows); vLLM's 'Too large swap space' refusal was added after that
    # reading (3/4 and 3/4); a container without FFmpeg's libavutil is not read. After: 13/13 and 13/13, none confidently
    # wrong. Lines with several owners in public threads are hints: the config-type TypeError (a framework or the release;
    # the same class name on both sides points to the framework), a bare KeyError on a layer-type name, no
    # compressed-tensors scheme (the GPU, the release or the package).
    # All 219 rows: 195/219 and 177/219 before the fail9 fixes, 210/219 and 192/219 after; no earlier row changed.
    # The 13 'fail10-' rows came from a tenth round (Model Runner V2's UVA buffers on WSL2 without pinned memory, an
    # fp8_e5m2 KV cache asked of an FP8 checkpoint, chunked prefill with prefix caching on the OpenVINO backend, MRV2
    # refusing a draft model on XPU, expandable_segments with vLLM's memory pool, LoRA max rank and modules_to_save, the
    # UVA weight offloader's pinned-tensor assertion on XPU, Transformers 5's TokenizersBackend under Transformers 4,
    # CUTLASS MoE kernels missing for SM120 in 0.10.2, num_speculative_tokens without a draft, an undefined *_sm100 kernel
    # in a CUDA 13 source build, oneCCL's warm-up all_reduce on WSL2 at TP=1) and were scored once before any change:
    # symptom 4/13, layer 3/13 (cause established 2/5, 2/5), none confidently wrong. 4 'fail10-heldout-' rows were kept out
    # of the fixes: 3/4 and 3/4 before, 4/4 and 4/4 after (the UVA signature reads the source-build WSL2 row). After:
    # 12/13 and 12/13, none confidently wrong; left: oneCCL's segfault on WSL2, whose lines are oneCCL's own (no source
    # wording to cite). Lines with several owners in public threads are hints: expandable_segments with the memory pool
    # (the environment, or a framework that sets the allocator variable), the offloader's 'CPU tensor must be pinned' (a
    # host without pinned memory, or the release's XPU path), a CUTLASS MoE kernel missing below capability 100.
    # All 236 rows: 217/236 and 198/236 before the fail10 fixes, 226/236 and 208/236 after; no earlier row changed.
    # The 9 'fail11-' rows came from an eleventh round (prefix caching refused with a sliding window in 0.3.x and 0.4.x,
    # llguidance's LLMatcher.validate_grammar signature under the vLLM that calls it, a GGUF served with the FP8 repo's
    # config.json, num_speculative_tokens required with an EAGLE draft, a TPU host reaching a CUDA path, "auto" tool
    # choice without its server flags, a video passed as a list of frames against --limit-mm-per-prompt, NCCL's
    # ibv_modify_qp failing between two pods) and were scored once before any change: symptom 3/9, layer 2/9 (cause
    # established 0/4, 0/4), none confidently wrong. 4 'fail11-heldout-' rows were kept out of the fixes: 1/4 and 1/4
    # before, 2/4 and 1/4 after (the auto tool choice hint names the server's flags where that thread's client stopped
    # sending tools); left: CPU weight offloading refusing to rebuild the input batch, and a quantization mismatch whose
    # config names two methods ('gptq|awq'). After: 9/9 and 9/9, none confidently wrong. Lines with several owners in
    # public threads are hints: --limit-mm-per-prompt exceeded (the request or the server's limit), "auto" tool choice
    # refused (the server's flags or a client that sends tools).
    # All 249 rows: 230/249 and 211/249 before the fail11 fixes, 237/249 and 218/249 after; no earlier row changed.
    # The 8 'fail12-' rows came from a twelfth round (NCCL's 'Duplicate GPU detected' / 'invalid usage' behind a trainer
    # sharing the vLLM server's GPU, vLLM's V0 data parallel, Ray's placement and TRL's data-parallel vllm-serve; a CUDA
    # driver/runtime refusal under kvcached; a max_model_len refusal quoted without its derived length; LoRA refused for
    # Qwen2 in 0.3.3; 0.6.3's assert on a rope_scaling without 'factor') and were scored once before any change: symptom
    # 5/8, layer 1/8 (cause established 0/2, 0/2), none confidently wrong (but NCCL's 'invalid usage' read as the driver's
    # at confidence 0.6 in three rows whose cause is partial or unknown). 4 'fail12-heldout-' rows were kept out of the
    # fixes: 2/4 and 1/4 before, 3/4 and 2/4 after; left: 0.5.x's 'Pipeline parallelism is not supported yet with
    # multiprocessing' (no wheel of that release at hand to cite). After: 8/8 and 5/8 (established 2/2 and 2/2), none
    # confidently wrong; the three layers missed are the device clash's other owners (V0 data parallel, Ray), which the
    # hint names, and a driver refusal under kvcached whose cause the thread does not establish. Lines with several owners
    # in public threads are hints: 'Duplicate GPU detected' and NCCL's 'invalid usage' (the trainer or client, the data-
    # parallel launcher, Ray's placement).
    # All 261 rows: 244/261 and 220/261 before the fail12 fixes, 248/261 and 225/261 after; no earlier row changed.
    # The 8 'fail13-' rows came from a thirteenth round (VLLM_PORT set to a URI by a Kubernetes Service named 'vllm', a
    # ModelOpt NVFP4 checkpoint's quantized lm_head in 0.22.0 and MiniCPM-V 4.6's ViT weight remap in 0.25.0 behind
    # "There is no module or parameter named", PyNcclConnector under the V1 engine, openai_harmony's vocab download in an
    # air-gapped pod, an image's torch without sm_120, the mistral config format asked of a checkpoint without params.json,
    # Transformers 5 under vLLM 0.11.0) and were scored once before any change: symptom 1/8, layer 1/8 (cause established
    # 0/4, 0/4), none confidently wrong. 4 'fail13-heldout-' rows were kept out of the fixes: 0/4 and 0/4 before, 2/4 and
    # 2/4 after (the harmony and weight-name signatures read the offline harmony and 0.27.0 k_proj rows); the factory's
    # 'Unsupported connector type' and a hint for a vLLM submodule that does not import ('No module named
    # 'vllm.<module>'', which also reads fail7's held-out LMCache import) were added after that reading: 4/4 and 4/4.
    # After: 8/8 and 8/8, none confidently wrong. Lines with several owners in public threads are hints: 'There is no
    # module or parameter named' (the release's layout or a remap bug, or the checkpoint's extra modules) and a vLLM
    # submodule that does not import (a package built for another release, or a partial install). 0.5.1's 'Pipeline
    # parallelism is not supported yet with multiprocessing' (fail12's held-out row) is now read from that wheel's wording.
    # All 273 rows: 249/273 and 226/273 before the fail13 fixes, 259/273 and 236/273 after them, 262/273 and 239/273 with
    # the two signatures added after the held-out reading; no earlier row changed for the worse.
    # The 8 'fail14-' rows came from a fourteenth round (NIXL's DS conv-state assert in a V100 fork's P/D disaggregation,
    # the dense CUTLASS scaled_mm refused on SM120 by a nightly's FP8 MoE path, vllm-omni passing a rank-48 LoRA to
    # LoRAConfig's max_lora_rank literal, FlashInfer's mm_fp4 refusing the cute-dsl backend on SM120 in a fork, V1's
    # structured-output manager with a Mistral tokenizer in 0.7.4.dev, an NVFP4 MTP drafter's weight-shape assert, a
    # merged checkpoint's weight of another shape, AITER's FP4 BMM on by default on MI300X) and were scored once before any
    # change: symptom 0/8, layer 0/8 (cause established 0/2, 0/2), none confidently wrong. 4 'fail14-heldout-' rows were
    # kept out of the fixes: 1/4 and 0/4 before, 1/4 and 0/4 after; a CUTLASS refusal whose own list names the capability
    # (the build's), FlashAttention's sinks assert, PyTorch's dispatcher refusing a vLLM '_C::' operator for the backend,
    # and the world size above the node's GPUs (0.11.1+, a hint) were added after that reading: 4/4 and 4/4. After: 6/8
    # and 5/8 (established 2/2 and 2/2), none confidently wrong; left: the structured-output manager's frame without its
    # error line, AITER's 'MXFP4 quantization is not supported on gfx942' (no source wording at hand), and the merged
    # checkpoint's layer (the weight-shape hint names the release, the checkpoint and a trainer's sync; its cause is not
    # established). Two rows left by earlier rounds are now read from their sources: the SM121 sparse-MLA refusal whose
    # reasons wrap onto the next lines (fail7) and CPU weight offloading refusing to rebuild the input batch (fail11).
    # All 285 rows: 263/285 and 239/285 before the fail14 fixes, 271/285 and 246/285 after them, 274/285 and 250/285 with
    # the signatures added after the held-out reading; no earlier row changed for the worse.
    # The 15 'plfail-' rows are whole DEBUG-level logs (77-2,104 lines) of the failed starts of one vLLM 0.19.0 H100 sweep
    # (llm-d-incubation/llm-d-planner @d3121e0, accuracy/results/v0.19.0/logs/*.FAILED.log), trimmed here to the lines
    # that matter: a fine-grained Hub token without access to public gated repositories (six Gemma 2/3 runs), Gemma 4
    # under 0.19.0's Transformers (<5), another process holding ~18 GiB of the pod's second GPU (three TP2/TP4 runs),
    # data parallelism 2 in a pod given one GPU, --max-model-len 8192 for phi-2, the sampler warm-up's OOM after the
    # CUDA graphs 0.19.0 does not count (two gpt-oss-20b runs), TP=5 against a 151,936-row vocabulary. Read whole, once,
    # before any change: symptom 13/15, layer 13/15 (cause established 10/12, 10/12), none confidently wrong; not read:
    # 'DP adjusted local rank 1 is out of bounds' and '151936 is not divisible by 5'. The long DEBUG logs did not hide
    # the fatal line (every top finding quoted it), but harmless lines made findings beside it: the Hub look-up's
    # LocalEntryNotFoundError read as offline mode at 0.85 (six rows), the MXFP4 oracle's DEBUG trial of backends read as
    # a refusal at 0.8 (two rows), the executor's own SIGTERM to its workers read as a probe kill at 0.4 (three rows).
    # After, read from the sources (gpu_worker.py init_device, distributed/utils.py ensure_divisibility and the vocabulary
    # frame above it, huggingface_hub's _raise_on_head_call_error, the fused-MoE oracles' debug_once trials, the
    # executor's teardown SIGTERM, the Hub's fine-grained-token 403; the sampler OOM names the uncounted graphs): 15/15
    # and 15/15, one finding per log. All 300 rows: 287/300 and 263/300 before, 289/300 and 265/300 after; no earlier
    # row changed.
    # The 14 'wlog-' rows are whole failed-start logs from 9 other repositories (Chris113113/vllm-sweep-benchmark,
    # Murai-Labs/qwen3.8-27b-rtx5090, ShensiCeciliaLi/TradingAgents, ShrijithSM/explainablity, daxdelvira/
    # distributed_agent_gc, er0080/vllm-benchmarking, sostrowsk/dgx-spark-local-llm, wujxy/IRIS_search,
    # IsseiHasegawa/vLLM-experiment), 0.7.2-0.26.1rc1, 3 held out ('wlog-heldout-') before any change. Read once before
    # any change: rows symptom 10/11 and layer 9/11 (one confidently wrong: an uncorrectable NVLink fault read through
    # NCCL's 'unhandled cuda error' as the driver's set-up at 0.6), held out 2/3 and 2/3; whole files 11/14 and 10/14
    # (two TP8 NVLink logs called healthy starts, a Ray placement-group timeout beside another server's output called a
    # degraded start with a FlashAttention fallback at 0.8). After (CUDA's cudaErrorNvlinkUncorrectable wording, Ray's
    # _wait_until_pg_ready timeout, 0.16's 'Failed to load model - not enough GPU memory', 0.9.1's 'WorkerProc hit an
    # exception' as a crash before ready): rows 11/11 and 11/11, held out 2/3 and 2/3 (the TMA-descriptor-220 flood was
    # not read); with CUTLASS's TMA-descriptor error whose CUresult is 220 (CUDA_ERROR_NVLINK_UNCORRECTABLE) added after
    # that reading as a hint (0.55): 3/3 and 3/3. Whole files 14/14 and 14/14; the FlashAttention-2 fallback beside
    # Ray's fatal timeout is now a 0.4 hint (0.8 before). All 314 rows: 301/314 and 276/314 before, 303/314 and 279/314
    # after; no earlier row's reading changed.
    # The 7 'wlog2-' rows are a second batch of whole failed-start logs, from 6 repositories no earlier row used
    # (parallelworks/activate-rag-vllm 2, JerryMouseZ/vlm_qwen3, Srichakra-D/ContextMatch1, mrpid12org/imageworks,
    # JackYansongLi/local_llm_server, tsho/vllm-benchmark-scripts), 0.9.1-0.23.0 and two without a version, 3 held out
    # ('wlog2-heldout-') before any change; the scan of every committed .log/.txt/.out in the mirrors' history found no
    # more failed starts outside the repositories already used. Read once before any change: rows symptom 3/4 and
    # layer 3/4, held out 2/3 and 1/3 (one confidently wrong: a TPU VM running PyPI's CUDA build, its missing
    # libcuda.so.1 from the vllm._C import read as the container's driver at 0.9); whole files 4/7 and 3/7 (two gpt-oss
    # logs whose API server died on openai_harmony's 'invalid tiktoken vocab file' after the pool was sized called
    # healthy starts; a file whose first launch failed and second served read as its last launch only). After
    # (openai_harmony 0.0.8's InvalidTiktokenVocabFile wording as fatal; vllm._C's import warning beside a no-platform
    # line read as that line, a 0.55 hint naming a host without NVIDIA's driver; a note for each earlier startup of a
    # file that failed): rows 4/4 and 4/4, held out 3/3 and 2/3 (the TPU log's layer is still the driver's, as a hint;
    # the log names no TPU), none confidently wrong. All 321 rows: 308/321 and 283/321 with the first reading, 310/321
    # and 285/321 after; no earlier row's reading changed.
    established, every = _score(BLIND)
    print(f"\n  blind, established: {established}; all rows: {every}")
    assert every["n"] >= 363
    assert every["symptom"] >= 355  # 355/370 after the r19 fixes (349/370 with their first reading); 349/363 after the r18 fixes (347/363 with their first reading); 344/357 after the r17 fixes (343/357 with their first reading); 338/350 (338/350 with the r16 rows' first reading; 330/342 after the second source
    # pass, which read the two unread r15 held-out rows); 328/342 (325/342 with the r15 rows' first reading); 320/331 (315/331 with the wlog3 rows' first reading); 310/321 (308/321 with the wlog2 rows' first reading); 303/314 (301/314 with the wlog rows' first reading); 289/300; 287/300 with the plfail rows' first reading, 274/285 before them, 263/285 before
    # the fail14 fixes (262/273 after fail13's)
    assert every["layer"] >= 327  # 327/370 after the r19 fixes (321/370 with their first reading); 321/363 after the r18 fixes (320/363 with their first reading); 316/357 after the r17 fixes (315/357 with their first reading); 311/350 (311/350 with the r16 rows' first reading: the two GPUStack launchers' TP
    # sizes read as the flags'; 305/342 after the second source pass); 303/342 (300/342 with the r15 rows' first reading); 295/331 (290/331 with the wlog3 rows' first reading); 285/321 (283/321 with the wlog2 rows' first reading); 279/314 (276/314 with the wlog rows' first reading); 265/300; 263/300 with the plfail rows' first reading, 250/285 before them, 239/285 before the
    # fail14 fixes (239/273 after fail13's: the hints name one of several owners)
    assert established["symptom"] >= established["n"] - 4  # 174/178 after the r19 fixes (172/178 with their first reading); 172/175 after the r18 fixes (170/175 with their first reading); 169/172 after the r17 fixes (168/172 first reading); 164/166 (159/161 after the second source pass); 158/161 (157/161 with the r15 rows' first reading; the held-out
    # Mamba refusal quoted without 'max_num_seqs (N)' is one); 153/155 (150/155 with the wlog3 rows' first reading); 146/148 (145/148 with the wlog2 rows' first reading); 143/145 (142/145 with the wlog rows' first reading); 134/136 (132/136 with the plfail rows' first reading); 122/124 (a bare KeyError on a weight name, held out; the
    # TP=2 stall behind ACS/IOMMU without an error line); 120/124 before the fail14 fixes
    assert established["layer"] >= established["n"] - 14  # 164/178 after the r19 fixes (162/178 with their first reading); 162/175 after the r18 fixes (161/175 with their first reading); 159/172 after the r17 fixes (158/172 first reading); 155/166 (the two GPUStack rows' launcher-chosen TP sizes;
    # 152/161 after the second source pass); 151/161 (150/161 with the r15 rows' first reading); 146/155 (143/155 with the wlog3 rows' first reading); 139/148 (138/148 with the wlog2 rows' first reading; the
    # TPU VM behind the CUDA build's missing libcuda, held out, names no TPU); 137/145 (135/145 with the wlog rows' first reading); 128/136 (126/136 with the plfail rows' first reading); 116/124: Ray with no GPU; pynvml, --device cpu and a renamed
    # build behind a bare no-platform line; the held-out KeyError; the TPU's torch_xla behind the same line; an H100
    # image without its FP8 kernels behind a lone 'no kernel image' line; the ACS/IOMMU stall; 114/124 before
    assert every["confident_wrong"] <= 1  # 2 with the r17 rows' first reading (a ZMQ bind of GPUStack's VLLM_PORT
    # read as the environment's port at 0.85; a 0.55 hint after the r17 fixes); 5 before the fail5 fixes, 1 before the fail6 and fail7 fixes, 0 before fail8's;
    # 1 from the r16 held-out GPUStack row (its scheduler chose TP 3 for 64 heads): the heads/TP refusal names the flag,
    # which the users of the earlier rows' threads set themselves, so it stays a confident reading of the flags
    _, second = _score([c for c in BLIND if c["id"].startswith("fail2-")])
    assert second["n"] == 32 and second["symptom"] == 32 and second["layer"] >= 29  # 12 and 10 on first reading
    _, third = _score([c for c in BLIND if c["id"].startswith("fail3-")])
    assert third["n"] == 24 and third["symptom"] == 24 and third["layer"] == 24  # 2 and 2 on first reading (0/4 held out)
    _, fourth = _score([c for c in BLIND if c["id"].startswith("fail4-")])
    assert fourth["n"] == 24 and fourth["symptom"] == 24 and fourth["layer"] >= 20  # 2/20 and 2/20 on first reading
    # (held out: 3/4 and 3/4 of the first 4, 4/4 and 2/4 of the 4 collected after the fixes)
    _, fifth = _score([c for c in BLIND if c["id"].startswith("fail5-")])
    assert fifth["n"] == 23 and fifth["symptom"] >= 21 and fifth["layer"] >= 15  # 14/23 and 4/23 on first reading
    _, held = _score([c for c in BLIND if c["id"].startswith("fail5-heldout-")])
    assert held["n"] == 4 and held["symptom"] >= 3 and held["layer"] >= 2  # 2/4 and 0/4 before the fail5 fixes
    _, sixth = _score([c for c in BLIND if c["id"].startswith("fail6-")])
    assert sixth["n"] == 21 and sixth["symptom"] >= 18 and sixth["layer"] >= 15  # 6/21 and 2/21 on first reading
    _, held6 = _score([c for c in BLIND if c["id"].startswith("fail6-heldout-")])
    assert held6["n"] == 4 and held6["symptom"] >= 1 and held6["layer"] >= 1  # 0/4 and 0/4 before the fail6 fixes
    _, seventh = _score([c for c in BLIND if c["id"].startswith("fail7-")])
    assert seventh["n"] == 18 and seventh["symptom"] >= 16 and seventh["layer"] >= 15  # 5/18 and 2/18 on first reading
    assert seventh["confident_wrong"] == 0  # 1 on first reading
    _, held7 = _score([c for c in BLIND if c["id"].startswith("fail7-heldout-")])
    assert held7["n"] == 4 and held7["symptom"] == 4 and held7["layer"] == 4  # 1/4 and 1/4 before the fail7 fixes, 2/4
    # and 2/4 after them; the third with the AWQ config-file signature added after that reading; the fourth (LMCache
    # importing a vLLM module the release lacks) with the fail13 submodule hint
    _, eighth = _score([c for c in BLIND if c["id"].startswith("fail8-")])
    assert eighth["n"] == 18 and eighth["symptom"] >= 17 and eighth["layer"] >= 16  # 3/18 (4/18 with the aligned label)
    # and 4/18 on first reading
    assert eighth["confident_wrong"] == 0
    _, held8 = _score([c for c in BLIND if c["id"].startswith("fail8-heldout-")])
    assert held8["n"] == 4 and held8["symptom"] >= 4 and held8["layer"] >= 3  # 1/4 and 1/4 before the fail8 fixes, 2/4
    # and 2/4 after them; 4/4 and 3/4 with the two hints added after that reading
    _, ninth = _score([c for c in BLIND if c["id"].startswith("fail9-")])
    assert ninth["n"] == 17 and ninth["symptom"] >= 16 and ninth["layer"] >= 16  # 1/17 and 1/17 on first reading
    _, ninth_new = _score([c for c in BLIND if c["id"].startswith("fail9-") and "-heldout-" not in c["id"]])
    assert ninth_new["n"] == 13 and ninth_new["symptom"] == 13 and ninth_new["layer"] == 13  # 1/13 and 1/13 before
    assert ninth_new["confident_wrong"] == 0
    _, held9 = _score([c for c in BLIND if c["id"].startswith("fail9-heldout-")])
    assert held9["n"] == 4 and held9["symptom"] >= 3 and held9["layer"] >= 3  # 0/4 and 0/4 before the fail9 fixes, 2/4
    # and 2/4 after them; 3/4 and 3/4 with the swap-space refusal added after that reading
    _, tenth = _score([c for c in BLIND if c["id"].startswith("fail10-")])
    assert tenth["n"] == 17 and tenth["symptom"] >= 16 and tenth["layer"] >= 16  # 7/17 and 6/17 on first reading
    _, tenth_new = _score([c for c in BLIND if c["id"].startswith("fail10-") and "-heldout-" not in c["id"]])
    assert tenth_new["n"] == 13 and tenth_new["symptom"] >= 12 and tenth_new["layer"] >= 12  # 4/13 and 3/13 before
    assert tenth_new["confident_wrong"] == 0
    _, held10 = _score([c for c in BLIND if c["id"].startswith("fail10-heldout-")])
    assert held10["n"] == 4 and held10["symptom"] == 4 and held10["layer"] == 4  # 3/4 and 3/4 before the fail10 fixes
    _, eleventh_new = _score([c for c in BLIND if c["id"].startswith("fail11-") and "-heldout-" not in c["id"]])
    assert eleventh_new["n"] == 9 and eleventh_new["symptom"] == 9 and eleventh_new["layer"] == 9  # 3/9 and 2/9 before
    assert eleventh_new["confident_wrong"] == 0
    _, held11 = _score([c for c in BLIND if c["id"].startswith("fail11-heldout-")])
    assert held11["n"] == 4 and held11["symptom"] >= 2 and held11["layer"] >= 1  # 1/4 and 1/4 before the fail11 fixes
    _, twelfth_new = _score([c for c in BLIND if c["id"].startswith("fail12-") and "-heldout-" not in c["id"]])
    assert twelfth_new["n"] == 8 and twelfth_new["symptom"] == 8 and twelfth_new["layer"] >= 5  # 5/8 and 1/8 before
    assert twelfth_new["confident_wrong"] == 0
    _, held12 = _score([c for c in BLIND if c["id"].startswith("fail12-heldout-")])
    assert held12["n"] == 4 and held12["symptom"] == 4 and held12["layer"] >= 3  # 2/4 and 1/4 before the fail12 fixes,
    # 3/4 and 2/4 after them; 0.5.1's pipeline-parallel refusal with multiprocessing read in the fail13 round
    _, thirteenth_new = _score([c for c in BLIND if c["id"].startswith("fail13-") and "-heldout-" not in c["id"]])
    assert thirteenth_new["n"] == 8 and thirteenth_new["symptom"] == 8 and thirteenth_new["layer"] == 8  # 1/8 and 1/8
    # before the fail13 fixes
    assert thirteenth_new["confident_wrong"] == 0
    _, held13 = _score([c for c in BLIND if c["id"].startswith("fail13-heldout-")])
    assert held13["n"] == 4 and held13["symptom"] >= 2 and held13["layer"] >= 2  # 0/4 and 0/4 before the fail13 fixes,
    # 2/4 and 2/4 after them; 4/4 and 4/4 with the two signatures added after that reading
    _, fourteenth_new = _score([c for c in BLIND if c["id"].startswith("fail14-") and "-heldout-" not in c["id"]])
    assert fourteenth_new["n"] == 8 and fourteenth_new["symptom"] >= 6 and fourteenth_new["layer"] >= 5  # 0/8 and 0/8
    # before the fail14 fixes
    assert fourteenth_new["confident_wrong"] == 0
    _, held14 = _score([c for c in BLIND if c["id"].startswith("fail14-heldout-")])
    assert held14["n"] == 4 and held14["symptom"] == 4 and held14["layer"] == 4  # 1/4 and 0/4 before the fail14
    # fixes, 1/4 and 0/4 after them; 4/4 and 4/4 with the four signatures added after that reading
    _, plfail = _score([c for c in BLIND if c["id"].startswith("plfail-")])
    assert plfail["n"] == 15 and plfail["symptom"] == 15 and plfail["layer"] == 15  # 13/15 and 13/15 on first reading
    assert plfail["confident_wrong"] == 0
    _, wlog_new = _score([c for c in BLIND if c["id"].startswith("wlog-") and "-heldout-" not in c["id"]])
    assert wlog_new["n"] == 11 and wlog_new["symptom"] == 11 and wlog_new["layer"] == 11  # 10/11 and 9/11 on first reading
    assert wlog_new["confident_wrong"] == 0  # 1 on first reading
    _, wlog_held = _score([c for c in BLIND if c["id"].startswith("wlog-heldout-")])
    assert wlog_held["n"] == 3 and wlog_held["symptom"] == 3 and wlog_held["layer"] == 3  # 2/3 and 2/3 before and after
    # the wlog fixes; 3/3 with the TMA-descriptor-220 hint added after that reading
    assert wlog_held["confident_wrong"] == 0
    _, wlog2_new = _score([c for c in BLIND if c["id"].startswith("wlog2-") and "-heldout-" not in c["id"]])
    assert wlog2_new["n"] == 4 and wlog2_new["symptom"] == 4 and wlog2_new["layer"] == 4  # 3/4 and 3/4 on first reading
    assert wlog2_new["confident_wrong"] == 0
    _, wlog2_held = _score([c for c in BLIND if c["id"].startswith("wlog2-heldout-")])
    assert wlog2_held["n"] == 3 and wlog2_held["symptom"] == 3 and wlog2_held["layer"] >= 2  # 2/3 and 1/3 before the
    # wlog2 fixes (the harmony fix from the rows read the held-out gpt-oss log too); the vllm._C hint was added after
    # that reading
    assert wlog2_held["confident_wrong"] == 0  # 1 before
    # The 10 'wlog3-' rows are whole failed-start logs from 5 repositories no earlier row used (Kelsidavis/rusteze 3,
    # apollo-mg/Project-Apollo 2, giyushino/ModelMerging, phivan3008/meeting-translator, zjpzhao/vllm-qwen3vl-cu118-t4
    # 3), found through find_files on common log paths (vllm.log, vllm_server.log, logs/vllm.log, ...), 0.9.2 to 0.27.1
    # and a ROCm 0.14 dev build; 3 held out ('wlog3-heldout-') before any change. Read once before any change: rows
    # symptom 3/7 and layer 3/7, held out 2/3 and 2/3, none confidently wrong on an established cause (the T4's
    # refused Triton cubin read as a GPU newer than Triton at 0.75, a partial cause); whole files 5/10 and 5/10 (a
    # FlashInfer import failing on Python 3.11 after the pool was sized, and the FlexAttention compile failure on the
    # T4, called healthy starts; a ROCm vLLM over a torch without libtorch_hip.so not recognised). After (vllm/_core_ext.py
    # 0.6.1.post2's _core_C import, a builtin subscripted at import on an older Python, Triton's FpToFpOpConversion
    # before Ampere, a Triton cubin on a pre-Ampere GPU as the driver, weights above utilization x total, 'EngineCore
    # failed to start.' after the pool was sized): rows 7/7 and 7/7, held out 3/3 and 3/3, whole files 10/10 and 10/10.
    # All 331 rows: 315/331 and 290/331 with the first reading, 320/331 and 295/331 after; no earlier row's reading changed.
    _, wlog3_new = _score([c for c in BLIND if c["id"].startswith("wlog3-") and "-heldout-" not in c["id"]])
    assert wlog3_new["n"] == 7 and wlog3_new["symptom"] == 7 and wlog3_new["layer"] == 7  # 3/7 and 3/7 on first reading
    assert wlog3_new["confident_wrong"] == 0
    _, wlog3_held = _score([c for c in BLIND if c["id"].startswith("wlog3-heldout-")])
    assert wlog3_held["n"] == 3 and wlog3_held["symptom"] == 3 and wlog3_held["layer"] == 3  # 2/3 and 2/3 before the
    # wlog3 fixes (the FlexAttention log by the Triton conversion signature read from the unified-attention row)
    assert wlog3_held["confident_wrong"] == 0
    # The 11 'r15-' rows are the first round read after the source enumeration (docs/startup-errors-from-source.md):
    # refusals from GitHub threads and merged fixes no earlier row cites (vllm 50708, 52435, 52181, 14154 and PR 23200,
    # vllm-ascend 8344, SergiioB/intel-arc-pro-b70-inference-cookbook 4, NVIDIA-AI-Blueprints/retail-shopping-assistant
    # PR 95, rwlove/home-ops PR 13226, vast-ai/base-image 128, NovaSky-AI/SkyRL 1575), 0.7 to 0.26 and Ascend/XPU
    # builds; 3 held out ('r15-heldout-') before any change. Read once before any change: rows symptom 4/8 and layer
    # 4/8 (cause established 3/4, 3/4), held out 1/3 and 1/3 (1/2, 1/2), none confidently wrong. One first reading came
    # from this stop's src_* signatures (src_cudagraph_mode_backend: CUTLASS MLA refusing FULL graphs); three from older
    # ones (the heads/TP split, a KV pool 10 MiB short of one sequence, Mamba blocks below max_num_seqs). Missed: the
    # DFlash refusal quoted without 'based on the speculative decoding settings'; a 401 RepositoryNotFoundError read as
    # a bad token (hf_401) ahead of the repository-not-found hint; an Ascend connector's DP-size conflict; the FA2
    # refusal on a Turing GPU (cause unknown). Held out: the Mamba refusal quoted without 'max_num_seqs (N)', SkyRL's
    # data_parallel_external_lb refusal, bitsandbytes on a Maxwell GPU (read). After (from the source's wording:
    # _set_max_num_scheduled_tokens' second clause as an anchor, 0.25.1-0.33.0; huggingface_hub's hf_raise_for_status
    # turning a 401 into RepositoryNotFoundError only when the token was not rejected, so that line shadows hf_401;
    # vllm-ascend 0.18.0rc1's check_kv_extra_config as a 0.55 hint): rows 7/8 and 7/8 (4/4, 4/4; the FA2 line on
    # the Turing GPU, cause unknown, still gives no finding), held out 1/3 and 1/3 (unchanged: neither held-out miss
    # shares a line with the rows' fixes), none confidently wrong. All 342 rows: 325/342 and 300/342 with the first
    # reading, 328/342 and 303/342 after; no earlier row's reading changed.
    _, r15_new = _score([c for c in BLIND if c["id"].startswith("r15-") and "-heldout-" not in c["id"]])
    assert r15_new["n"] == 8 and r15_new["symptom"] == 7 and r15_new["layer"] == 7  # 4/8 and 4/8 on first reading
    assert r15_new["confident_wrong"] == 0
    _, r15_held = _score([c for c in BLIND if c["id"].startswith("r15-heldout-")])
    assert r15_held["n"] == 3 and r15_held["symptom"] == 3 and r15_held["layer"] == 3  # 1/3 and 1/3 before and after
    # the round-15 fixes; 3/3 and 3/3 after the second source pass (docs/startup-errors-from-source.md): the Mamba
    # refusal without its 'max_num_seqs (N)' head (src_mamba_blocks_unheaded) and the external-LB rank at DP 1
    # (src_dp_external_lb_without_dp, a 0.55 hint naming the launcher)
    assert r15_held["confident_wrong"] == 0
    # The 8 'r16-' rows are the round after the second source pass (parallel, data-parallel launch and hybrid/Mamba
    # refusals, docs/startup-errors-from-source.md): threads and merged fixes no earlier row cites (gpustack 3777 and
    # 814; vllm 8097, 52761 with PR 53408, 13640, 4615; ppc64le/build-scripts PR 8660;
    # intel/intel-xpu-backend-for-triton 7763), 0.4 to 0.27 and Ascend/XPU/ppc64le builds; 3 held out ('r16-heldout-')
    # before any change. Read once before any change: rows symptom 5/5 and layer 4/5 (cause established 3/3, 2/3), held
    # out 3/3 and 2/3 (2/2, 1/2); confidently wrong on an established cause: 1 row and 1 held out, both GPUStack's
    # scheduler choosing the TP size (151552 vocabulary rows over TP 6 read as the flags at 0.70; 64 heads over TP 3
    # read as the flags at 0.90). Two first readings came from the second pass (src_shm_insufficient: /dev/shm of
    # 64 MiB against 160 MiB, one row and one held out); the rest from older signatures (a draft without SupportsPP, a
    # Marlin tile, LoRA refused for QWenLMHeadModel, ensure_divisibility). After (from the
    # source's wording: ensure_divisibility's "{} is not divisible by {}" names neither the dimension nor who chose
    # the parallel size, so the bare line is a 0.55 hint; with the vocab-embedding frame it stays 0.70): rows 5/5 and
    # 4/5, none confidently wrong; held out 3/3 and 2/3, one confidently wrong (the heads/TP line names the flag, which
    # the earlier rows' users set themselves: not made a hint). All 350 rows: 338/350 and 311/350 with the first
    # reading and after.
    _, r16_new = _score([c for c in BLIND if c["id"].startswith("r16-") and "-heldout-" not in c["id"]])
    assert r16_new["n"] == 5 and r16_new["symptom"] == 5 and r16_new["layer"] == 4  # 5/5 and 4/5 on first reading
    assert r16_new["confident_wrong"] == 0  # 1 on first reading (the GLM-4.5-Air vocabulary over GPUStack's TP 6)
    _, r16_held = _score([c for c in BLIND if c["id"].startswith("r16-heldout-")])
    assert r16_held["n"] == 3 and r16_held["symptom"] == 3 and r16_held["layer"] >= 2  # 3/3 and 2/3 before and after
    assert r16_held["confident_wrong"] <= 1  # the heads/TP refusal of GPUStack's TP 3
    # The 7 'r17-' rows are the seventeenth round: threads and merged fixes no earlier row cites (vllm-omni 2859, 1364
    # with vllm 34545, 5412, 1294; odysseus-dev/odysseus 191; gpustack 6019; NVIDIA-NeMo/RL PR 4080), vLLM 0.15 to 0.29
    # and vLLM-Omni builds; 2 held out ('r17-heldout-') before any change. Read once before any change: rows symptom 4/5
    # and layer 3/5 (all five causes established), one confidently wrong (a ZMQ bind in the shared-memory broadcast
    # queue, GPUStack's fixed VLLM_PORT on 0.25.1, read as another process in the environment at 0.85); held out 1/2
    # and 1/2 (established 0/1: the diffusion stage's offline lookup, whose excerpt ends inside hf_hub_download, gives
    # no finding). Read already: a vLLM-Omni or framework import of a vLLM module the release moved (the fail13
    # submodule hint, three rows) and '--omni' refused by argparse (the fail8 hint). Not read: kernels 0.15's
    # LayerRepository refusal inside Transformers' hub_kernels.py (read after the kernels_repository_unpinned signature,
    # kernels 0.15.1's LayerRepository.__init__: 5/5 symptoms and 4/5 layers). After the bare ZeroMQ bind error became a
    # 0.55 hint of vLLM's internal socket (zmq_port_in_use_bare), with the broadcast queue's probe-then-bind named by its
    # frame (shm_broadcast.py MessageQueue.__init__, 0.10.2-0.26.0), none is confidently wrong; the GPUStack row's
    # layer (the launcher's VLLM_PORT) stays unread: the log does not name the launcher.
    _, r17_new = _score([c for c in BLIND if c["id"].startswith("r17-") and "-heldout-" not in c["id"]])
    assert r17_new["n"] == 5 and r17_new["symptom"] == 5 and r17_new["layer"] >= 4  # 4/5 and 3/5 on first reading
    assert r17_new["confident_wrong"] == 0  # 1 on first reading
    _, r17_held = _score([c for c in BLIND if c["id"].startswith("r17-heldout-")])
    assert r17_held["n"] == 2 and r17_held["symptom"] >= 1 and r17_held["layer"] >= 1  # 1/2 and 1/2 on first reading
    # The 6 'r18-' rows are the eighteenth round: threads no earlier row cites (vllm 1986, 28517, 31529, 54062;
    # vllm-project/production-stack 454; instructlab/instructlab 3122), chosen for kinds earlier rounds have few of (a
    # container image without the vllm executable, a host without network whose model is not cached, a deprecated
    # package that aborts the process, a release that falls back to the Transformers backend for a model it does not
    # implement yet). Read once before any change: symptom 3/6 and layer 4/6 (cause established 1/3 and 2/3), none
    # confidently wrong. Read already: the KV-cache refusal of a 128k context (0.95) and the two unknown weight names of
    # the Transformers fallback (the weight_name_unknown hint, 0.5). Not read: the container runtime's 'executable file
    # not found in $PATH' and pynvml's abort (no finding), the Hub's name-resolution failure read as a download timeout.
    # After (Go os/exec's ErrNotFound as runc and crun print it; urllib3's NameResolutionError for the Hub; the
    # registry's Transformers fallback named by the class, 0.75): 5/6 and 5/6 (established 3/3 and 3/3). Left: the
    # abort after pynvml's deprecation warning -- pynvml 13.0.1 is a shim whose meta-path finder only warns and lets
    # nvidia-ml-py's module load (_pynvml_redirector.py), so the source does not tie the abort to it.
    _, r18_new = _score([c for c in BLIND if c["id"].startswith("r18-")])
    assert r18_new["n"] == 6 and r18_new["symptom"] >= 5 and r18_new["layer"] >= 5  # 3/6 and 4/6 on first reading
    assert r18_new["confident_wrong"] == 0
    # The 7 'r19-' rows are the nineteenth round: threads and pull requests no earlier row cites (vllm 41849, 47436,
    # 45626, 57475; vllm-project/recipes PR 183; deepseek-ai/DeepGEMM PR 324; llm-d-incubation/llm-d-modelservice 243),
    # vLLM 0.20.1 to a 0.29.1 development build plus main and two without a version, chosen for kinds earlier rounds
    # have none of: DeepGEMM missing or refusing the GPU, a read-only model cache, an engine core killed without a
    # traceback. Read once before any change: symptom 0/7 and layer 0/7 (cause established 0/3 and 0/3), no finding for
    # any of them, none confidently wrong. After (vllm/utils/deep_gemm.py's _missing placeholder, a hint with its 0.11
    # wording the install's and under 0.20's deep_gemm_warmup frame the release's; DeepGEMM's layout asserts of a bundled
    # pin that lacks the GPU, the release's; a read-only Hugging Face cache, the mount's; torch's allocator message
    # quoted without its head): 6/7 and 6/7 (established 2/3 and 2/3). Left: the bare 'Failed core proc(s): {}' of an
    # engine core the host's OOM killer ended -- wait_for_engine_startup lists only the processes that had exited when
    # it looked (vllm/v1/engine/utils.py, 0.20.0), so an empty map names no cause.
    _, r19_new = _score([c for c in BLIND if c["id"].startswith("r19-")])
    assert r19_new["n"] == 7 and r19_new["symptom"] >= 6 and r19_new["layer"] >= 6  # 0/7 and 0/7 on first reading
    assert r19_new["confident_wrong"] == 0


def test_a_bare_divisibility_assert_is_a_hint_and_the_vocab_frame_keeps_it_confident():
    # vllm/distributed/utils.py ensure_divisibility (0.19.0, 0.27.1, 0.33.0): "{} is not divisible by {}"; owners in
    # threads: the user's TP, a launcher's (gpustack#3777), the release's own encoder split (vllm#8097). Before round 16
    # the bare line read at 0.70.
    bare = diagnose(["AssertionError: 151552 is not divisible by 6"]).top
    assert (bare.symptom, bare.layer) == ("invalid_engine_flags", "vllm_version_flags")
    assert bare.confidence < CONFIDENT and "launcher" in bare.fix
    frame = ('  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/vocab_parallel_embedding.py", '
             "line 91, in vocab_range_from_global_vocab_size")
    framed = diagnose([frame, "AssertionError: 151552 is not divisible by 6"]).top
    assert framed.confidence >= CONFIDENT and "vocabulary of 151,552 rows" in framed.cause


def test_kernels_refusing_an_unpinned_hub_repository_is_the_dependency_pair_not_the_model():
    # kernels/layer/layer.py LayerRepository.__init__ (kernels 0.15.1): neither a revision nor a version; Transformers'
    # hub_kernels.py builds one that way at import (odysseus-dev/odysseus#191, huggingface/transformers#46291). Before
    # round 17: no finding.
    frame = ['transformers/integrations/hub_kernels.py", line 89, in <module>', '    "cuda": LayerRepository(']
    top = diagnose(frame + ["ValueError: Either a revision or a version must be specified."]).top
    assert top is not None and (top.symptom, top.layer) == ("import_undefined_symbol", "vllm_version_flags")
    assert top.confidence >= CONFIDENT and "kernels<0.15" in top.fix
    # a caller passing both is another mistake (the same constructor's first check), not this pair
    assert diagnose(["ValueError: Either a revision or a version must be specified, not both."]).top is None


def test_a_bare_zmq_bind_error_is_an_internal_port_hint_and_the_broadcast_frame_names_the_race():
    # pyzmq's bind error without its "(addr=...)" suffix; several owners in threads (vllm#7196, gpustack#4312 and #6019,
    # vllm#20965). Before round 17 it read as the generic bind error: another process in the environment, at 0.85.
    bare = diagnose(["zmq.error.ZMQError: Address already in use"]).top
    assert (bare.symptom, bare.layer) == ("port_in_use", "vllm_version_flags")
    assert bare.confidence < CONFIDENT and "VLLM_PORT" in bare.fix and "--port is not" in bare.fix
    # shm_broadcast.py MessageQueue.__init__ binds the port get_open_port() probed (0.10.2-0.26.0); 0.28.0 binds port 0
    frame = "(Worker_TP12 pid=114) ERROR 08-10 23:02:36 [multiproc_executor.py:898]     self.remote_socket.bind(socket_addr)"
    framed = diagnose([frame, "zmq.error.ZMQError: Address already in use"]).top
    assert (framed.symptom, framed.layer) == ("port_in_use", "vllm_version_flags") and framed.confidence < CONFIDENT
    assert "get_open_port" in framed.cause and "0.28" in framed.fix
    # the line with its address keeps its reading (0.88 and the generic bind line's 0.05), and a plain socket's bind
    # error is still the environment's
    addressed = diagnose(["zmq.error.ZMQError: Address already in use (addr='tcp://127.0.0.1:5570')"]).top
    assert addressed.layer == "vllm_version_flags" and addressed.confidence >= CONFIDENT
    assert diagnose(["OSError: [Errno 98] Address already in use"]).top.layer == "container_environment"


def test_blind_cases_are_in_the_cases_format_and_new():
    _assert_in_the_cases_format(BLIND, CASES + EXTRA)
    assert len({c["source_url"] for c in BLIND}) == len(BLIND)


def test_the_speculative_slot_refusal_quoted_without_its_middle_clause_reads_as_the_flags():
    # vllm/config/vllm.py VllmConfig._set_max_num_scheduled_tokens (0.25.1-0.33.0); vllm#50708 quotes it without
    # "based on the speculative decoding settings". Before round 15: no finding.
    top = diagnose(["max_num_scheduled_tokens is set to -1792, which does not allow any tokens to be scheduled"]).top
    assert top is not None and (top.symptom, top.layer) == ("invalid_engine_flags", "vllm_version_flags")
    assert top.confidence >= CONFIDENT and "--max-num-batched-tokens" in top.fix


def test_a_401_the_hub_reports_as_repository_not_found_is_not_read_as_a_bad_token():
    # huggingface_hub hf_raise_for_status raises RepositoryNotFoundError for a 401 only when the Hub did not say
    # "Invalid credentials in Authorization header"; before round 15 hf_401 (a rejected HF_TOKEN) came first.
    lines = ["huggingface_hub.errors.RepositoryNotFoundError: 401 Client Error. (Request ID: Root=1-x)",
             "Repository Not Found for url: https://huggingface.co/Qwen/Qwen3.5-27B-AWQ/resolve/main/config.json.",
             "Invalid username or password."]
    top = diagnose(lines).top
    assert top is not None and (top.symptom, top.layer) == ("download_failed", "model_weights")
    assert top.confidence < CONFIDENT  # several owners: a missing id, a private or a gated repository
    assert all(f.symptom != "gated_repo_auth" for f in diagnose(lines).findings)
    # a plain 401 (a rejected credential) still reads as the token
    plain = diagnose(["requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://huggingface.co/api/models/x/y"]).top
    assert plain is not None and plain.symptom == "gated_repo_auth"


def test_vllm_ascend_s_kv_extra_config_conflict_is_a_hint_naming_both_sizes():
    # vllm_ascend/utils.py check_kv_extra_config (vllm-ascend 0.18.0rc1); before round 15: no finding
    top = diagnose(["KV transfer 'prefill' config has a conflicting data parallel size. Expected 1, but got 2."]).top
    assert top is not None and (top.symptom, top.layer) == ("invalid_engine_flags", "vllm_version_flags")
    assert top.confidence < CONFIDENT and "'prefill'" in top.cause and "2" in top.cause and "1" in top.cause


def test_a_negative_v1_kv_budget_is_fatal_even_when_another_rank_had_room():
    lines = ["(Worker_TP0 pid=11) INFO 12-10 03:24:48 [gpu_worker.py:298] Available KV cache memory: 9.90 GiB",
             "(Worker_TP1 pid=12) INFO 12-10 03:24:48 [gpu_worker.py:298] Available KV cache memory: -3.86 GiB"]
    result = diagnose(lines)
    assert result.failed and not result.started
    assert (result.top.symptom, result.top.layer) == ("no_cache_blocks", "memory_budget")
    assert "3.86 GiB short" in result.top.cause
    # the same lines with room on every rank are not a failure
    healthy = diagnose([line.replace("-3.86", "3.86") for line in lines])
    assert not any(f.symptom == "no_cache_blocks" for f in healthy.findings)


def test_an_oom_inside_the_kv_allocation_is_memory_held_elsewhere_and_one_elsewhere_is_not():
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 642.00 MiB. GPU 0 has a total capacity of 79.15 GiB"
    frame = '  File "/x/vllm/v1/worker/gpu_model_runner.py", line 2710, in initialize_kv_cache_tensors'
    top = diagnose([frame, oom]).top
    assert (top.symptom, top.layer, top.fatal) == ("free_memory_below_utilization", "memory_budget", True)
    assert "another process" in top.cause and top.decided_by
    capture = '  File "/x/vllm/v1/worker/gpu_model_runner.py", line 2210, in capture_model'
    assert diagnose([capture, oom]).top.symptom == "oom_graph_capture_or_profiling"


@pytest.mark.parametrize("line, elsewhere", [
    # torch < 2.1: total - free - PyTorch's reserve; this process's own non-PyTorch memory is allowed for
    ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB (GPU 0; 79.15 GiB total capacity; "
     "50.00 GiB already allocated; 300.00 MiB free; 51.00 GiB reserved in total by PyTorch)", True),
    ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB (GPU 0; 23.65 GiB total capacity; "
     "21.80 GiB already allocated; 120.00 MiB free; 22.40 GiB reserved in total by PyTorch)", False),
    # torch >= 2.1 counts the whole process: the rest is other processes'
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of "
     "which 1.06 GiB is free. Process 4242 has 30.00 GiB memory in use. Including non-PyTorch memory, this process has "
     "48.10 GiB memory in use. Of the allocated memory 45.20 GiB is allocated by PyTorch", True),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of "
     "which 1.06 GiB is free. Including non-PyTorch memory, this process has 78.10 GiB memory in use. Of the allocated "
     "memory 75.20 GiB is allocated by PyTorch", False),
])
def test_an_oom_whose_own_accounting_shows_the_gpu_held_elsewhere(line, elsewhere):
    top = diagnose([line]).top
    assert top.layer == "memory_budget" and top.fatal
    assert top.symptom == ("free_memory_below_utilization" if elsewhere else "oom_graph_capture_or_profiling")
    if elsewhere:
        assert "held outside this process" in top.decided_by


ARCH_ERROR = ("ValueError: Model architectures ['LlamaForCausalLM'] are not supported for now. Supported architectures: "
              "['AquilaModel', 'GPT2LMHeadModel', {}'MistralForCausalLM']")


def test_an_architecture_the_error_lists_as_supported_is_a_broken_install():
    missing = diagnose([ARCH_ERROR.format("")]).top
    assert (missing.symptom, missing.layer) == ("unsupported_architecture", "vllm_version_flags")
    listed = diagnose([ARCH_ERROR.format("'LlamaForCausalLM', ")]).top
    assert (listed.symptom, listed.layer) == ("unsupported_architecture", "pytorch_wheel")
    assert "supported architectures" in listed.decided_by and "LlamaForCausalLM" in listed.cause
    # without a list there is nothing to compare with
    bare = diagnose(["ValueError: Model architectures ['LlamaForCausalLM'] are not supported for now"]).top
    assert bare.layer == "vllm_version_flags"


def test_no_gpu_with_a_cpu_only_torch_is_the_wheel_s():
    error = "RuntimeError: Failed to infer device type"
    assert diagnose([error]).top.layer == "nvidia_driver"
    cpu = diagnose(["PyTorch version: 2.4.0+cpu", error]).top
    assert (cpu.symptom, cpu.layer) == ("gpu_not_detected_in_container", "pytorch_wheel")
    assert "2.4.0+cpu" in cpu.cause
    assert diagnose(["torch==2.5.1+cu121", error]).top.layer == "nvidia_driver"
    # a CPU build alone (vLLM's CPU backend uses one) is no finding
    assert not diagnose(["PyTorch version: 2.4.0+cpu"]).findings


def test_infiniband_failure_owns_an_nccl_system_error():
    nccl = "ERROR 06-13 07:35:59 [core.py:517] NcclError: NCCL_ERROR_SYSTEM_ERROR: unhandled system error"
    assert diagnose([nccl]).top.layer == "nvidia_driver"
    ib = "kilo:318:3584 [5] misc/ibvwrap.cc:183 NCCL WARN Call to ibv_reg_dmabuf_mr failed with error Cannot allocate memory"
    top = diagnose([nccl, ib]).top
    assert (top.symptom, top.layer, top.fatal) == ("tp_init_hang", "interconnect", True)


def test_ray_small_shm_warning_counts_only_when_the_start_stops():
    warning = ("2023-11-18 03:39:16,283 WARNING services.py:1996 -- WARNING: The object store is using /tmp instead of "
               "/dev/shm because /dev/shm has only 67108864 bytes available. This will harm performance!")
    stopped = diagnose([warning, "INFO 11-18 03:39:17 llm_engine.py:72] Initializing an LLM engine with config: "
                                 "model='/mnt/model/', tensor_parallel_size=2", "Traceback (most recent call last):"])
    assert stopped.failed and (stopped.top.symptom, stopped.top.layer) == ("tp_init_hang", "container_environment")
    assert "no start" in stopped.top.decided_by
    started = diagnose([warning, "INFO 11-18 03:40:10 llm_engine.py:207] # GPU blocks: 7446, # CPU blocks: 1024",
                        "INFO:     Application startup complete."])
    assert started.started and not any(f.symptom == "tp_init_hang" for f in started.findings)


def test_vocabulary_is_the_issue_s():
    for case in CASES:
        for finding in diagnose(case["log_lines"]).findings:
            assert finding.symptom in SYMPTOMS
            assert finding.layer in LAYERS
            assert finding.evidence, "every finding shows its lines"


def test_no_confident_answer_when_the_evidence_is_removed():
    # Drop every line that carries a known signature: what is left must not produce a
    # confident finding (the tool says "not recognised" rather than guess).
    for case in CASES + EXTRA:
        remaining = [line for line in case["log_lines"]
                     if not any(h.sig.symptom for h in parse_lines([line]).hits)]
        diagnosis = diagnose(remaining)
        confident = [f for f in diagnosis.findings if f.confidence >= CONFIDENT]
        assert not confident, (case["id"], confident)


def test_the_json_says_what_was_recognised(tmp_path):
    """--json said "started": false for text that is no vLLM log at all, as for a failed start; "verdict" (the word
    the text output heads with) and "vllm_log" now say which, and "started" keeps its meaning for real logs."""
    import subprocess
    import sys

    src = str(Path(__file__).resolve().parents[1] / "src")

    def run(path):
        r = subprocess.run([sys.executable, "-m", "kvplan.cli", "diagnose", str(path), "--json"], capture_output=True,
                           text=True, env={"PYTHONPATH": src, "PATH": "/usr/bin:/bin"}, timeout=120)
        return r.returncode, json.loads(r.stdout)

    notes = tmp_path / "notes.txt"
    notes.write_text("hello\nthis is not a server log\n")
    code, d = run(notes)
    assert code == 1 and d["verdict"] == "not_recognised" and d["vllm_log"] is False and d["started"] is False
    code, d = run(Path(__file__).parent / "data" / "dp2_engine_core_n_v0101.log")
    assert code == 0 and d["verdict"] == "started" and d["vllm_log"] is True and d["started"] is True
    failed = diagnose(["INFO 01-01 00:00:00 [gpu_model_runner.py:1] Starting to load model Qwen/Qwen3-8B...",
                       "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
                       "capacity of 22.05 GiB of which 1.00 GiB is free."]).to_dict()
    assert failed["verdict"] == "failed" and failed["vllm_log"] is True and failed["started"] is False


def test_not_recognised_shows_error_lines():
    diagnosis = diagnose(["INFO 01-01 00:00:00 [x.py:1] starting", "RuntimeError: something nobody has seen before"])
    assert not diagnosis.recognised and diagnosis.started is False
    assert "RuntimeError: something nobody has seen before" in diagnosis.error_lines
    assert diagnosis.notes[0].startswith("not recognised")
    out = diagnosis.to_dict()
    assert out["findings"] == [] and out["error_lines"] and out["verdict"] == "not_recognised"


def test_healthy_excerpts_start_and_point_to_reconcile():
    healthy = 0
    for row in EXCERPTS:
        log = parse_lines(row["lines"])
        if log.started and not log.errors:
            diagnosis = diagnose(log)
            assert diagnosis.started
            assert not any(f.fatal for f in diagnosis.findings)
            healthy += 1
            if not diagnosis.findings:
                assert "kvplan reconcile" in diagnosis.notes[0]
                # it names the flags reconcile will need because this log does not say them (neither the GPU's total
                # nor, in its fused-MoE config file's name, the GPU)
                from kvplan.reconcile import gpu_named_by_log

                assert ("--gpu NAME" in diagnosis.notes[0]) == (log.total_gib is None and gpu_named_by_log(log) is None)
    assert healthy >= 60
    ranked = diagnose(["(VllmWorker rank=0 pid=1) INFO 07-21 19:37:30 [gpu_worker.py:232] Available KV cache memory: 12.79 GiB",
                       "(VllmWorker rank=1 pid=2) INFO 07-21 19:37:30 [gpu_worker.py:232] Available KV cache memory: 12.79 GiB",
                       "INFO 07-21 19:37:30 [kv_cache_utils.py:716] GPU KV cache size: 279,408 tokens",
                       "INFO 07-21 19:37:30 [kv_cache_utils.py:720] Maximum concurrency for 16,384 tokens per request: 17.05x"])
    assert ranked.started and "--gpu NAME --tensor-parallel-size N" in ranked.notes[0]


def test_803_is_decided_by_the_host_driver():
    error = "RuntimeError: Unexpected error from cudaGetDeviceCount(). Error 803: system has unsupported display driver / cuda driver combination"
    newer = diagnose(["| NVIDIA-SMI 590.48.01   Driver Version: 590.48.01   CUDA Version: 13.1 |", error]).top
    assert newer.layer == "cuda_runtime" and "590.48.01" in newer.decided_by
    older = diagnose(["Driver Version: 535.171.04", "vllm/vllm-openai:v0.20.0", "INFO vLLM API server version 0.20.0", error]).top
    assert older.layer == "nvidia_driver"
    assert older.details["min_driver"] == "580.65.06" and "535.171.04" in older.decided_by
    unknown = diagnose([error]).top
    assert unknown.layer == "cuda_runtime" and unknown.confidence < 0.8 and "no host driver" in unknown.decided_by


def test_driver_found_version_splits_runtime_from_driver():
    new_driver = diagnose(["RuntimeError: The NVIDIA driver on your system is too old (found version 12080)."]).top
    assert new_driver.layer == "cuda_runtime" and new_driver.details["driver_cuda"] == "12.8"
    old_driver = diagnose(["UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 11040)."]).top
    assert old_driver.layer == "nvidia_driver" and "11.4" in old_driver.cause


def test_wheel_cuda_table():
    assert wheel_cuda("0.6.3.post1") == "12.1"
    assert wheel_cuda("0.9.2") == "12.8"
    assert wheel_cuda("0.19.1") == "12.9"
    assert wheel_cuda("0.24.0") == "13.0"
    assert wheel_cuda(None) is None
    assert wheel_cuda("main") is None  # a log that names no release


def test_free_memory_gives_a_utilization_that_starts():
    top = diagnose(["ValueError: Free memory on device (31.44/47.38 GiB) on startup is less than desired GPU memory "
                    "utilization (0.95, 45.01 GiB). Decrease GPU memory utilization."]).top
    assert top.symptom == "free_memory_below_utilization"
    util = top.details["utilization_that_starts"]
    assert util * 47.38 <= 31.44  # it really fits in what was free
    assert abs(top.details["held_by_others_gib"] - (47.38 - 31.44)) < 0.01
    nearly_full = diagnose(["ValueError: Free memory on device (0.49/79.32 GiB) on startup is less than desired GPU memory "
                            "utilization (0.6, 47.59 GiB)."]).top
    assert "another process" in nearly_full.cause


def test_backend_fallback_is_a_degraded_start():
    lines = EXCERPTS[85]["lines"]  # T4, V1 -> V0 fallback, XFormers, then a normal start
    diagnosis = diagnose(lines)
    assert diagnosis.started
    assert diagnosis.top.symptom == "attention_backend_fallback" and not diagnosis.top.fatal


def test_probe_kill_gets_a_probe():
    top = diagnose(["Loading safetensors checkpoint shards: 40% Completed", "KeyboardInterrupt: terminated"]).top
    assert top.symptom == "k8s_probe_kill"
    assert "failureThreshold" in top.details["advice"]


# ---- with a plan ---------------------------------------------------------------------------


def _fake_plan(**kw):
    fix = SimpleNamespace(name="shorter context", flags={"max_model_len": 35600}, effect="fits with 1.0x concurrency")
    base = dict(fits=False, fixes=(fix,), gpu=SimpleNamespace(name="NVIDIA GeForce RTX 5080"), vllm_version="0.10.2",
                kv_cache_tokens=0, max_concurrency=0.0)
    base.update(kw)
    return SimpleNamespace(**base)


def test_plan_adds_the_largest_context_that_fits():
    case = next(c for c in CASES if c["id"] == "kv-serve-one-request-qwen3-4b-5080")
    sharpened = sharpen_with_plan(diagnose(case["log_lines"]), "Qwen/Qwen3-4B", plan_factory=lambda m, **o: _fake_plan())
    top = sharpened.top
    assert top.details["largest_max_model_len_that_fits"] == 35600
    assert "--max-model-len 35600" in top.fix


def test_a_plan_length_above_the_logs_own_cap_is_not_offered():
    # the plan's pool was larger than the one this start measured: 'Lower --max-model-len to at most 23648 ... Plan:
    # lower max_model_len: --max-model-len 27200 (starts ...)', a length vLLM would refuse again
    case = next(c for c in CASES if c["id"] == "kv-maxlen-29k-3090-llama31-8b")
    fix = SimpleNamespace(name="lower max_model_len", flags={"max_model_len": 27200}, effect="starts: 27,200 tokens")
    top = sharpen_with_plan(diagnose(case["log_lines"]), "meta-llama/Llama-3.1-8B-Instruct",
                            plan_factory=lambda m, **o: _fake_plan(fixes=(fix,))).top
    assert "--max-model-len 27200" not in top.fix and "Plan: lower max_model_len: --max-model-len 23648" in top.fix
    assert "the plan's 27,200 is above it" in top.fix
    assert top.details["largest_max_model_len_that_fits"] == 23648


def test_a_state_block_refusal_is_sharpened_with_the_plans_fixes():
    import kvplan

    line = "ValueError: max_num_seqs (1024) exceeds available Mamba cache blocks (614)."
    # at the model's full 262,144 tokens the newest rules stop first at the max-seq-len check (model runner v2's
    # penalty state for 1,024 slots x 248,320 logits, ~0.98 GiB, leaves the pool 0.04 GiB short), so half that length
    sharpened = sharpen_with_plan(diagnose([line]), "Qwen/Qwen3.5-27B",
                                  plan_factory=lambda m, **o: kvplan.fit(m, "H100", **{"max_model_len": 131072, **o}))
    top = sharpened.top
    assert top.symptom == "state_blocks_below_max_num_seqs"
    assert any("--max-num-seqs" in f for f in top.details["plan_fixes"]) and "--enforce-eager" in top.fix


def test_plan_error_is_noted_not_raised():
    def failing(model, **overrides):
        raise InputError("model", "unknown model 'nope'", "check the name")

    sharpened = sharpen_with_plan(diagnose(["No available memory for the cache blocks."]), "nope", plan_factory=failing)
    assert sharpened.top.symptom == "no_cache_blocks"
    assert any("no plan" in n for n in sharpened.notes)


def test_plan_lists_gpus_that_qualify():
    lines = ["ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. "
             "Your Tesla T4 GPU has compute capability 7.5."]
    top = sharpen_with_plan(diagnose(lines), "m", plan_factory=lambda m, **o: _fake_plan()).top
    gpus = top.details["gpus_that_qualify"]
    assert gpus and not any("T4" in g or "V100" in g for g in gpus)


def _no_plan(model, **overrides):
    raise AssertionError("a plan of another model than the log's was built")


def test_a_log_of_another_model_is_a_finding_and_no_plan_is_made():
    log = parse_lines(EXCERPTS[83]["lines"])  # a healthy start of Qwen/Qwen3-8B
    other = sharpen_with_plan(diagnose(log), "Qwen/Qwen2.5-0.5B-Instruct", plan_factory=_no_plan)
    (finding,) = [f for f in other.findings if f.symptom == "model_mismatch"]
    assert "Qwen/Qwen3-8B" in finding.cause and "Qwen/Qwen2.5-0.5B-Instruct" in finding.cause
    assert "Qwen/Qwen3-8B" in finding.fix and not finding.fatal and finding.layer in LAYERS
    assert other.started and not other.failed
    same = sharpen_with_plan(diagnose(log), "/data/qwen3-8b", plan_factory=lambda m, **o: _fake_plan(fits=True))
    assert not any(f.symptom == "model_mismatch" for f in same.findings)


def test_a_model_mismatch_does_not_hide_an_unrecognised_failure():
    lines = ["INFO 01-01 00:00:00 llm_engine.py:1] Initializing an LLM engine with config: model='Qwen/Qwen3-8B', "
             "tensor_parallel_size=1", "ERROR something nobody has seen before"]
    plain = diagnose(lines)
    assert plain.failed and not plain.recognised
    other = sharpen_with_plan(plain, "meta-llama/Llama-3.1-8B-Instruct", plan_factory=_no_plan)
    assert [f.symptom for f in other.findings] == ["model_mismatch"]
    assert other.failed and not other.recognised and "error_lines" in other.to_dict()


def test_cli_diagnose_names_another_model_as_a_finding(tmp_path):
    import subprocess
    import sys

    log = tmp_path / "vllm.log"
    log.write_text("\n".join(EXCERPTS[83]["lines"]) + "\n")
    run = subprocess.run([sys.executable, "-c", "from kvplan.cli import main; main()", "diagnose", str(log),
                          "Qwen/Qwen2.5-0.5B-Instruct", "--json"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert any(f["symptom"] == "model_mismatch" and "Qwen/Qwen3-8B" in f["fix"] for f in out["findings"])


# ---- robustness ----------------------------------------------------------------------------------

_CORPUS = [c["log_lines"] for c in CASES + EXTRA] + [r["lines"] for r in EXCERPTS]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, len(_CORPUS) - 1), seed=st.integers(0, 2**32 - 1),
       garbage=st.binary(max_size=300), cut=st.floats(0, 1))
def test_mutated_logs_never_crash(index, seed, garbage, cut):
    rng = random.Random(seed)
    lines = list(_CORPUS[index])
    rng.shuffle(lines)
    blob = "\n".join(lines).encode()
    position = rng.randrange(len(blob) + 1)
    blob = blob[:position] + garbage + blob[position:]
    blob = blob[: int(len(blob) * cut)]
    diagnosis = diagnose(blob)
    json.dumps(diagnosis.to_dict())
    json.dumps(diagnosis.log.to_record())


@pytest.mark.parametrize("line, fix_part", [
    ("ValueError: max_num_batched_tokens (512) must be greater than or equal to max_num_seqs (1024).",
     "--max-num-batched-tokens to 1024"),
    ("ValueError: max_num_batched_tokens (2048) is smaller than max_model_len (32768). This effectively limits the "
     "maximum sequence length to max_num_batched_tokens and makes vLLM reject longer sequences.", "--max-model-len to 2048"),
])
def test_scheduler_flag_refusals_are_named_with_the_numbers_of_the_fix(line, fix_part):
    d = diagnose([line])
    top = d.findings[0]
    assert top.symptom == "invalid_engine_flags" and top.layer == "vllm_version_flags" and top.fatal
    assert fix_part in top.fix


@pytest.mark.parametrize("line, symptom, layer, text", [
    ("ValueError: Total number of attention heads (32) must be divisible by tensor parallel size (3).",
     "invalid_engine_flags", "vllm_version_flags", "divides 32"),
    ("ValueError: User-specified max_model_len (200000) is greater than the derived max_model_len "
     "(max_position_embeddings=131072 or model_max_length=None in model's config.json).",
     "invalid_engine_flags", "vllm_version_flags", "VLLM_ALLOW_LONG_MAX_MODEL_LEN"),
    ("ValueError: Unknown quantization method: xyz. Must be one of ['awq', 'fp8'].", "invalid_engine_flags",
     "vllm_version_flags", "xyz"),
    ("huggingface_hub.errors.LocalEntryNotFoundError: Cannot find the requested files in the disk cache and outgoing "
     "traffic has been disabled.", "weights_not_cached", "model_weights", "HF_HOME"),
    ("AssertionError: Torch not compiled with CUDA enabled", "gpu_not_detected_in_container", "pytorch_wheel", "torch"),
    ("ValueError: The decoder prompt (length 40000) is longer than the maximum model length of 32768.",
     "prompt_exceeds_max_model_len", "client_code", "32768"),
    ("NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.",
     "unsupported_gpu", "pytorch_wheel", "sm_120"),
    ("Tesla K80 with CUDA capability sm_37 is not compatible with the current PyTorch installation.",
     "unsupported_gpu", "gpu", "sm_37"),
    ("Normal   Killing    1m    kubelet  Container vllm failed liveness probe, will be restarted",
     "k8s_probe_kill", "model_weights", "startupProbe"),
    ("OSError: Can't load tokenizer for 'org/model'. If you were trying to load it from 'https://huggingface.co/models', "
     "make sure you don't have a local directory with the same name.", "tokenizer_or_revision_mismatch", "model_weights", "org/model"),
    ("RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable", "gpu_not_detected_in_container",
     "nvidia_driver", "nvidia-smi -c DEFAULT"),
    ("INFO 05-01 worker.py:237] Memory profiling takes 5.1 seconds. the current vLLM instance can use total_gpu_memory "
     "(23.65GiB) x gpu_memory_utilization (0.90) = 21.28GiB; model weights take 15.0GiB; non_torch_memory takes 0.1GiB; "
     "PyTorch activation peak memory takes 7.5GiB; the rest of the memory reserved for KV Cache is -1.32GiB.",
     "no_cache_blocks", "memory_budget", "1.32 GiB"),
    ("RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the "
     "'spawn' start method", "cuda_fork_init", "client_code", "VLLM_WORKER_MULTIPROC_METHOD=spawn"),
    ("ImportError: libnccl.so.2: cannot open shared object file: No such file or directory", "import_undefined_symbol",
     "pytorch_wheel", "nvidia-nccl"),
    ("huggingface_hub.errors.HfHubHTTPError: 429 Client Error: Too Many Requests for url: https://huggingface.co/api/models/x/y",
     "download_failed", "model_weights", "HF_TOKEN"),
    ("RuntimeError: Triton Error [CUDA]: device kernel image is invalid", "unsupported_gpu", "pytorch_wheel", "Triton"),
    ("ERROR: Could not find a version that satisfies the requirement vllm==0.11.0 (from versions: none)",
     "import_undefined_symbol", "vllm_version_flags", "Linux"),
    ("ValueError: The number of required GPUs exceeds the total number of available GPUs in the placement group.",
     "invalid_engine_flags", "vllm_version_flags", "--tensor-parallel-size"),
    ("ValueError: max_num_seqs (512) exceeds available Mamba cache blocks (300). Each decode sequence requires one Mamba "
     "cache block, so CUDA graph capture cannot proceed.", "state_blocks_below_max_num_seqs", "memory_budget",
     "--max-num-seqs to 300"),
    ("RuntimeError: GPUs with compute capability less than 7.0 are not supported.", "unsupported_gpu", "gpu", "compute"),
    ("nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your driver to a newer "
     "version, or use an earlier cuda container: unknown.", "driver_too_old", "nvidia_driver", "CUDA 12.8"),
    ("ERROR 02-17 20:51:49 core.py:210]     assert is_fa_version_supported(self.fa_version)", "unsupported_gpu", "gpu",
     "VLLM_USE_V1=0"),
    ("RuntimeError: No HIP GPUs are available", "gpu_not_detected_in_container", "container_environment", "/dev/kfd"),
    ("RuntimeError: HIP error: invalid device function", "unsupported_gpu", "gpu", "gfx"),
    ("[2026-03-25 05:44:29,435 W 39 39] (raylet) store_runner.cc:83: System memory request exceeds memory available in "
     "/dev/shm. The request is for 10200547328 bytes, and the amount available is 9663676416 bytes.", "tp_init_hang",
     "container_environment", "9663676416"),
    ("Fatal Python error: Bus error", "tp_init_hang", "container_environment", "--ipc=host"),
    ("cupy_backends.cuda.libs.nccl.NcclError: NCCL_ERROR_SYSTEM_ERROR: unhandled system error (run with NCCL_DEBUG=INFO "
     "for details)", "tp_init_hang", "nvidia_driver", "NCCL_DEBUG=INFO"),
    ("ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): address already in use",
     "port_in_use", "container_environment", "--port"),
    ("OSError: [Errno 98] Address already in use", "port_in_use", "container_environment", "lsof"),
    ("/tmp/tmp_bcihhdm/main.c:5:10: fatal error: Python.h: No such file or directory", "jit_compile_failed",
     "container_environment", "python3.X-dev"),
    ("RuntimeError: Failed to find C compiler. Please specify via CC environment variable.", "jit_compile_failed",
     "container_environment", "gcc"),
    ("subprocess.CalledProcessError: Command '['/usr/bin/gcc', '/tmp/tmp91qfilw7/main.c', '-O3', '-shared', '-fPIC', "
     "'-lcuda']' returned non-zero exit status 1.", "jit_compile_failed", "container_environment", "main.c"),
    ("RuntimeError: vLLM failed to compile the model. The most likely reason for this is that a previous compilation "
     "failed, leading to a corrupted compilation artifact.", "jit_compile_failed", "pytorch_wheel", "torch_compile_cache"),
    ("ValueError: Chunked MM input disabled but max_tokens_per_mm_item (2496) is larger than max_num_batched_tokens "
     "(2048). Please increase max_num_batched_tokens.", "invalid_engine_flags", "vllm_version_flags",
     "--max-num-batched-tokens to 2496"),
    ("RuntimeError: CUDA error: out of memory", "oom_graph_capture_or_profiling", "memory_budget", "--enforce-eager"),
    ("requests.exceptions.HTTPError: 401 Client Error:", "gated_repo_auth", "client_code", "HF_TOKEN"),
    ("ValueError: The supplied chat template string (examples/tool_chat_template_gemma4.jinja) appears path-like, but "
     "doesn't exist! Tried: examples/tool_chat_template_gemma4.jinja", "invalid_engine_flags", "vllm_version_flags",
     "examples/tool_chat_template_gemma4.jinja"),
    ("ValueError: The supplied chat template (./tmpl.jinja) looks like a file path, but it failed to be opened. Reason: "
     "[Errno 2] No such file or directory", "invalid_engine_flags", "vllm_version_flags", "./tmpl.jinja"),
    # the third blind round's refusals (lines of other models and numbers than the blind rows')
    ("ValueError: Weight output_size_per_partition = 2736 is not divisible by min_thread_n = 64. Consider reducing "
     "tensor_parallel_size or running with --quantization gptq.", "invalid_engine_flags", "vllm_version_flags", "64"),
    ("ValueError: The output_size of gate's and up's weight = 96 is not divisible by weight quantization block_n = 128.",
     "invalid_engine_flags", "vllm_version_flags", "96"),
    ("NotImplementedError: Apply router weight on input is not supported for fused Marlin MoE method.",
     "invalid_engine_flags", "vllm_version_flags", "Apply router weight on input"),
    ("ValueError: LoRA rank 128 is greater than max_lora_rank 64.", "invalid_engine_flags", "vllm_version_flags",
     "--max-lora-rank 128"),
    ("ValueError: Loading lora sql failed: No adapter found for /adapters/sql-lora", "invalid_engine_flags", "client_code",
     "/adapters/sql-lora"),
    ("NotImplementedError: Draft model speculative decoding is not supported yet. Please consider using other speculative "
     "decoding methods such as ngram, medusa, eagle, or mtp.", "invalid_engine_flags", "vllm_version_flags", "ngram"),
    ("AssertionError: Speculative decoding is not supported with Ray.", "invalid_engine_flags", "vllm_version_flags",
     "with Ray"),
    ("Value error, Model Runner V2 does not yet support: speculative method 'draft_model' [type=value_error]",
     "invalid_engine_flags", "vllm_version_flags", "speculative method 'draft_model'"),
    ("ValueError: No valid attention backend found for cuda with AttentionSelectorConfig(head_size=256, dtype=torch.bfloat16, "
     "kv_cache_dtype=fp8, block_size=None, use_mla=False, has_sink=False). Reasons: {FLASH_ATTN: [kv_cache_dtype not "
     "supported], TRITON_ATTN: [kv_cache_dtype not supported]}.", "attention_backend_fallback", "vllm_version_flags",
     "kv_cache_dtype not supported"),
    ("ValueError: No valid attention backend found for cuda with AttentionSelectorConfig(head_size=576, use_mla=True, "
     "use_sparse=True). Reasons: {FLASHMLA_SPARSE: [compute capability not supported], TRITON_MLA: [sparse not "
     "supported]}.", "unsupported_gpu", "gpu", "FLASHMLA_SPARSE"),
    ("ValueError: Selected backend AttentionBackendEnum.FLASHINFER is not valid for this configuration. Reason: ['head_size "
     "not supported']", "attention_backend_fallback", "vllm_version_flags", "head_size not supported"),
    ("ValueError: FP8 KV cache is not supported by the Triton attention backend on Tesla T4 (compute capability 7.5); "
     "native FP8 (fp8e4nv) requires SM89+.", "quant_unsupported_on_gpu", "vllm_version_flags", "--kv-cache-dtype"),
    ("AttributeError: 'Qwen3VLConfig' object has no attribute 'num_attention_heads'", "unsupported_architecture",
     "vllm_version_flags", "Qwen3VLConfig"),
    ("ERROR 05-01 10:00:00 [engine.py:458] Timed out after 301 seconds waiting for clients. 2/4 clients joined.",
     "invalid_engine_flags", "vllm_version_flags", "2 joined"),
    ("ValueError: Ray does not allocate any GPUs on the driver node. Consider adjusting the Ray placement group or running "
     "the driver on a GPU node.", "tp_init_hang", "container_environment", "GPU node"),
    ("ValueError: Head size 72 is not supported by FlashAttentionBackend. Supported head sizes are: [64, 128, 256].",
     "attention_backend_fallback", "vllm_version_flags", "head size 72"),
    ("ValueError: head_size (120) is not supported. Supported head sizes: [64, 80, 96, 112, 128, 256]",
     "unsupported_architecture", "vllm_version_flags", "120"),
    ("ValueError: Unknown attention backend: 'FLASH_ATTN_VLLM_V1'. Valid options are: FLASH_ATTN, TRITON_ATTN",
     "invalid_engine_flags", "vllm_version_flags", "FLASH_ATTN_VLLM_V1"),
    ("RuntimeError: Can't determine cudagraph shapes that are both a multiple of 4 (num_speculative_tokens + 1) required by "
     "spec-decode and 8 (tensor_parallel_size) required by sequence parallelism", "invalid_engine_flags",
     "vllm_version_flags", "num_speculative_tokens + 1"),
    ("(autoscaler +10m11s) Error: No available node types can fulfill resource request {'node:172.31.42.4': 0.001, "
     "'GPU': 1.0}. Add suitable node types to this cluster to resolve this issue.", "tp_init_hang", "interconnect",
     "172.31.42.4"),
    # the fourth blind round's (lines of other models, versions and numbers than the blind rows')
    ("ValueError: Quantization method specified in the model config (awq) does not match the quantization method "
     "specified in the `quantization` argument (awq_marlin).", "invalid_engine_flags", "vllm_version_flags", "awq_marlin"),
    ("NotImplementedError: Pipeline parallelism is not supported for this model. Supported models implement the "
     "`SupportsPP` interface.", "invalid_engine_flags", "vllm_version_flags", "SupportsPP"),
    ("NotImplementedError: Pipeline parallelism is only supported for the following architectures: ['LlamaForCausalLM']",
     "invalid_engine_flags", "vllm_version_flags", "SupportsPP"),
    ("RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
     "NumCudaDevices() that might have already set an error? Error 802: system not yet initialized",
     "gpu_not_detected_in_container", "nvidia_driver", "nvidia-fabricmanager"),
    ("ValueError: Current node has no GPU available. current_node_resource={'CPU': 8.0}. vLLM engine cannot start without "
     "GPU.", "tp_init_hang", "container_environment", "placement groups"),
    ("RuntimeError: Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error",
     "tp_init_hang", "interconnect", "GLOO_SOCKET_IFNAME"),
    ("FileNotFoundError: [Errno 2] No such file or directory: 'nvcc'", "jit_compile_failed", "container_environment",
     "VLLM_USE_FLASHINFER_SAMPLER=0"),
    ("ValueError: `rope_scaling` must be a dictionary with two fields, `type` and `factor`, got {'factor': 32.0, "
     "'rope_type': 'llama3'}", "unsupported_architecture", "vllm_version_flags", "rope_scaling"),
    ("ImportError: /lib64/libc.so.6: version `GLIBC_2.28' not found (required by /opt/venv/lib/python3.11/site-packages/"
     "vllm/_moe_C.abi3.so)", "import_undefined_symbol", "vllm_version_flags", "glibc 2.28"),
    # the sixth blind round's (lines of other models, versions and numbers than the blind rows')
    ("ValueError: Model ChatGLMForCausalLM does not support LoRA, but LoRA is enabled. Support for this model may be added "
     "in the future. If this is important to you, please open an issue on github.", "invalid_engine_flags",
     "vllm_version_flags", "ChatGLMForCausalLM"),
    ("(EngineCore_DP0 pid=812) ValueError: Phi4MMForCausalLM does not support LoRA yet.", "invalid_engine_flags",
     "vllm_version_flags", "--enable-lora"),
    ("ValueError: Fp8 MoE backend 'FLASHINFER_CUTLASS' does not support the deployment configuration since kernel does not "
     "support current device.", "quant_unsupported_on_gpu", "vllm_version_flags", "FLASHINFER_CUTLASS"),
    ("AssertionError: fp8_blockscale_gemm requires gfx950 (CDNA4), got gfx90a", "unsupported_gpu", "gpu", "gfx90a"),
    ("zmq.error.ZMQError: Address already in use (addr='tcp://10.0.0.7:29551')", "port_in_use", "vllm_version_flags",
     "VLLM_PORT"),
    ("RuntimeError: Error building extension 'batch_prefill_with_kv_cache': [1/3] /usr/local/cuda/bin/nvcc ...",
     "jit_compile_failed", "container_environment", "flashinfer-jit-cache"),
    ("RuntimeError: oneCCL: ze_fd_manager.cpp:214 fill_device_fds: EXCEPTION: open failed: fd: -1, errno: No such file or "
     "directory", "tp_init_hang", "interconnect", "/dev/dri"),
    ("httpx.HTTPStatusError: Client error '403 Forbidden' for url 'https://huggingface.co/google/gemma-3-27b-it/resolve/"
     "main/config.json'", "gated_repo_auth", "model_weights", "licence"),
    ("httpx.HTTPStatusError: Client error '401 Unauthorized' for url 'https://huggingface.co/api/models/meta-llama/"
     "Llama-3.2-1B'", "gated_repo_auth", "client_code", "HF_TOKEN"),
    # the seventh blind round's (lines of other models, versions and numbers than the blind rows')
    ("Value error, VLLM_USE_V2_MODEL_RUNNER does not yet support: pipeline parallelism [type=value_error]",
     "invalid_engine_flags", "vllm_version_flags", "pipeline parallelism"),
    ("ValueError: Chunked MM input disabled but max_tokens_per_mm_item (1280) is larger", "invalid_engine_flags",
     "vllm_version_flags", "1280"),
    ("ValueError: Selected backend AttentionBackendEnum.FLASHMLA is not valid for this configuration.",
     "attention_backend_fallback", "vllm_version_flags", "FLASHMLA"),
    ("NotImplementedError: FlashInfer backend currently does not support attention sinks, please use trtllm on blackwell "
     "or flash attention on earlier GPUs.", "attention_backend_fallback", "vllm_version_flags", "TRITON_ATTN"),
    ("ModuleNotFoundError: No module named 'lmcache.experimental.cache_engine'", "import_undefined_symbol",
     "vllm_version_flags", "lmcache.experimental.cache_engine"),
    ("PermissionError: [Errno 13] Permission denied: '/.cache/huggingface/hub'", "download_failed",
     "container_environment", "HF_HOME"),
    ("ptxas fatal   : Value 'sm_110a' is not defined for option 'gpu-name'", "jit_compile_failed", "pytorch_wheel",
     "TRITON_PTXAS_PATH"),
    ("This kernel only supports sm[80, 89).", "unsupported_gpu", "vllm_version_flags", "sm[80, 89)"),
    ("ValueError: Cannot find the config file for gptq", "invalid_engine_flags", "vllm_version_flags", "--quantization gptq"),
])
def test_common_refusals_name_their_owner(line, symptom, layer, text):
    top = diagnose([line]).findings[0]
    assert (top.symptom, top.layer) == (symptom, layer)
    assert text in top.fix + top.cause


# ---- exit status against each case's recorded outcome ----------------------------------------------


def test_failed_starts_fail_and_agreement_with_recorded_outcomes():
    # 'failed', 'hang' and 'killed' cases must diagnose as failures (exit 1), 'degraded' ones as not.
    # Measured: 39/45 (+ 28/29 extra) before the no-start rule, 43/45 (+ 29/29) after; the two left are
    # 'degraded' cases whose notes say the start fails at the first request (an ImportError warning, an ERROR line).
    by_id = {c["id"]: c for c in CASES + EXTRA}
    for case_id in ("noplatform-gke-l4-nvml", "disk-full-gcp-100gb-mixtral", "hang-tp2-custom-allreduce-051-cu118",
                    "hang-pcie-p2p-l40s-k8s", "noplatform-v100-docker-no-cuda"):
        result = diagnose(by_id[case_id]["log_lines"])
        assert result.failed, case_id
        assert result.top.symptom == by_id[case_id]["symptom_class"] and result.top.fatal and result.top.decided_by
    agree = sum(diagnose(c["log_lines"]).failed == (c["outcome"] != "degraded") for c in CASES + EXTRA)
    assert agree >= len(CASES + EXTRA) - 2


def test_the_no_start_rule_leaves_a_start_that_went_on_alone():
    lines = ["DEBUG 08-29 04:29:54 [__init__.py:99] CUDA platform is not available because: NVML Shared Library Not Found",
             *EXCERPTS[98]["lines"]]
    result = diagnose(lines)
    assert result.started and not result.failed


def test_a_healthy_start_lists_no_error_like_lines(tmp_path):
    lines = EXCERPTS[83]["lines"]
    result = diagnose(lines)
    assert result.started and result.error_lines == ()
    from tests.test_reconcile import run_cli

    proc = run_cli("diagnose", "-", stdin="\n".join(lines))
    assert proc.returncode == 0 and "look like errors" not in proc.stdout and "GPU KV cache size" not in proc.stdout


def test_diagnose_judges_the_last_startup_of_a_restarted_server():
    failed = next(c for c in CASES if c["id"] == "gpu-bf16-t4")["log_lines"]
    assert diagnose(failed).failed
    opener = "(APIServer pid=1) INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.10.2"
    later = diagnose([opener, *failed, *EXCERPTS[90]["lines"]])  # the crash, then a restart that started
    assert later.log.startups == 2 and later.started and not later.failed
    assert any("2 startups" in n for n in later.notes)


def test_the_plan_that_sharpens_a_diagnosis_is_reconciles_plan(monkeypatch):
    """diagnose MODEL plans as reconcile does (reconcile.plan_from_log): a log that names neither its GPU nor a total,
    with no GPU detected here, gets no plan on a default card (it had been sharpened with a 16 GB T4's figures), and
    the pointer to reconcile names the same flag reconcile refuses without."""
    import kvplan.resolve

    monkeypatch.setattr(kvplan.resolve, "detect_gpu", lambda: None)
    lines = ["INFO 01-01 00:00:00 [utils.py:1] non-default args: {'model': 'Qwen/Qwen2.5-0.5B-Instruct'}",
             "INFO 01-01 00:00:01 [kv_cache_utils.py:1] GPU KV cache size: 40,960 tokens",
             "INFO 01-01 00:00:01 [kv_cache_utils.py:1] Maximum concurrency for 4,096 tokens per request: 10.00x"]
    plain = diagnose(lines)
    assert plain.started and "kvplan reconcile LOG MODEL --gpu NAME`" in plain.notes[0]
    sharpened = sharpen_with_plan(plain, "Qwen/Qwen2.5-0.5B-Instruct")
    assert not any(n.startswith("plan:") for n in sharpened.notes)
    assert any(n.startswith("no plan: --gpu") for n in sharpened.notes)
    from kvplan.cli import FitFlags

    given = sharpen_with_plan(plain, "Qwen/Qwen2.5-0.5B-Instruct", FitFlags(gpu="L4"))
    assert any(n.startswith("plan: NVIDIA L4") for n in given.notes)


def test_a_speculative_fallback_warning_is_not_a_refusal_and_each_shape_refusal_has_one_reader():
    # vLLM 0.8 falls back to V0 for speculative decoding and starts: a degraded start, not a refused flag
    warning = "WARNING 03-01 10:00:00 arg_utils.py:1] Speculative decoding is not supported by the V1 Engine. Falling back to V0."
    top = diagnose([warning]).top
    assert (top.symptom, top.fatal) == ("attention_backend_fallback", False)
    # a Marlin tile and an FP8 block are told apart (their fixes differ: --quantization awq/gptq vs expert parallelism)
    marlin = parse_lines(["ValueError: Weight input_size_per_partition = 7392 is not divisible by min_thread_k = 128."])
    block = parse_lines(["ValueError: Weight input_size_per_partition = 64 is not divisible by weight quantization block_k = 128."])
    assert [h.signature for h in marlin.hits] == ["marlin_shape"]
    assert [h.signature for h in block.hits] == ["quant_block_shape"]
    # a backend refused for compute capability makes the GPU the owner; refused for the configuration, it is not
    assert diagnose(["No valid attention backend found for cuda with AttentionSelectorConfig(use_mla=True). Reasons: "
                     "{FLASHMLA: [compute capability not supported]}"]).top.layer == "gpu"
    assert diagnose(["No valid attention backend found for cuda with AttentionSelectorConfig(has_sink=True). Reasons: "
                     "{FLASH_ATTN: [sink setting not supported]}"]).top.layer == "vllm_version_flags"


def test_vllms_own_ray_shutdown_note_is_not_a_probe_kill():
    # vLLM's Ray executor asks the reader to ignore logging.cc's SIGTERM lines while it shuts down after another error
    # (tests/data/blind_failure_cases.jsonl 'fail4-ray-current-node-no-gpu-t4-cluster' read it as a probe kill)
    note = ("(EngineCore_DP0 pid=9) INFO 01-02 03:04:05 [ray_executor.py:120] Shutting down Ray distributed executor. If you "
            "see error log from logging.cc regarding SIGTERM received, please ignore because this is the expected "
            "termination process in Ray.")
    assert not [f for f in diagnose([note]).findings if f.symptom == "k8s_probe_kill"]
    assert diagnose(["INFO 01-02 03:04:05 launcher.py:80] SIGTERM received, shutting down"]).top.symptom == "k8s_probe_kill"


def test_a_device_uuid_in_cuda_visible_devices_is_the_release_s():
    # tests/data/blind_failure_cases.jsonl 'fail5-mig-uuid-*': vLLM reads each entry as an int
    for uuid in ("MIG-377e0049-554c-540b-93c6-d0976f8426cb", "GPU-7f57f032-34ab-a064-c37c-7a4f75601cc5"):
        top = diagnose([f"ValueError: invalid literal for int() with base 10: '{uuid}'"]).top
        assert (top.symptom, top.layer, top.fatal) == ("gpu_not_detected_in_container", "vllm_version_flags", True)
        assert uuid in top.cause and top.confidence >= CONFIDENT
    # the serve path reports the crash as a failed inspection too; the UUID line owns it
    top = diagnose(["ValueError: invalid literal for int() with base 10: 'MIG-4c60d78c-506f-5593-938d-a136eaa1fa52'",
                    "Model architectures ['LlamaForCausalLM'] failed to be inspected. Please check the logs for more details."]).top
    assert (top.symptom, top.layer) == ("gpu_not_detected_in_container", "vllm_version_flags")
    assert not diagnose(["ValueError: invalid literal for int() with base 10: 'auto'"]).findings


def test_a_lone_no_platform_line_is_a_hint_and_a_renamed_build_is_the_install_s():
    for line in ("RuntimeError: Failed to infer device type",
                 "INFO 05-14 04:44:35 [__init__.py:243] No platform detected, vLLM is running on UnspecifiedPlatform"):
        top = diagnose([line]).top
        assert (top.symptom, top.layer, top.fatal) == ("gpu_not_detected_in_container", "nvidia_driver", True)
        assert top.confidence < CONFIDENT and "pynvml" in top.cause and "VLLM_LOGGING_LEVEL=DEBUG" in top.fix
    # a second line about the GPU makes it an answer again
    nvml = "DEBUG 08-29 04:29:54 [__init__.py:99] CUDA platform is not available because: NVML Shared Library Not Found"
    assert diagnose([nvml, "RuntimeError: Failed to infer device type"]).top.confidence >= CONFIDENT
    renamed = ("WARNING 05-10 03:15:22 [__init__.py:25] The vLLM package was not found, so its version could not be "
               "inspected. This may cause platform detection to fail.")
    top = diagnose([renamed, "INFO 05-10 03:15:22 [__init__.py:243] No platform detected, vLLM is running on UnspecifiedPlatform"]).top
    assert (top.symptom, top.layer, top.fatal) == ("gpu_not_detected_in_container", "vllm_version_flags", True)
    assert top.confidence >= CONFIDENT and "package metadata" in top.decided_by + top.cause
    # the warning in a start that found its platform (vLLM's Neuron guide says it can be ignored there) is no finding
    assert not diagnose([renamed, "INFO [__init__.py:243] Automatically detected platform neuron."]).findings


def test_bitsandbytes_checkpoints_without_the_bnb_loader_are_the_flags_():
    # 'fail5-bnb-absmax-keyerror-qwq' and unslothai/unsloth#688: the quant state / config keys name the format
    for line in ("ERROR 12-04 11:26:27 engine.py:366] KeyError: 'layers.10.mlp.down_proj.weight.absmax'",
                 "ERROR 01-21 02:26:24 engine.py:366] 'layers.17.mlp.down_proj.weight.absmax'",
                 "KeyError: 'model.layers.0.self_attn.q_proj.weight.quant_state.bitsandbytes__nf4'",
                 "ValueError: Cannot find any of ['adapter_name_or_path'] in the model's quantization config."):
        top = diagnose([line]).top
        assert (top.symptom, top.layer, top.fatal) == ("invalid_engine_flags", "vllm_version_flags", True), line
    # a KeyError on a plain weight name says nothing about the format (the held-out 'fail5-heldout-bnb-keyerror-...')
    assert not diagnose(["KeyError: 'layers.0.mlp.down_proj.weight'"]).findings


def test_no_model_weights_is_the_checkpoint_s_unless_a_load_format_was_asked():
    missing = "RuntimeError: Cannot find any model weights with `/models/vicuna-13b`"
    top = diagnose([missing]).top
    assert (top.symptom, top.layer) == ("weights_not_cached", "model_weights")
    asked = diagnose(["python3 -m vllm.entrypoints.openai.api_server --model /models/vicuna-13b --load-format safetensors",
                      missing]).top
    assert (asked.symptom, asked.layer) == ("invalid_engine_flags", "vllm_version_flags")
    assert "safetensors" in asked.decided_by
    auto = diagnose(["INFO 08-08 10:11:29 llm_engine.py:174] Initializing an LLM engine (v0.5.4) with config: "
                     "model='/models/x', load_format=LoadFormat.AUTO, tensor_parallel_size=1", missing]).top
    assert auto.layer == "model_weights"


def test_offline_mode_refusing_a_hub_api_call_is_the_release_s():
    api = ("huggingface_hub.utils._http.OfflineModeIsEnabled: Cannot reach https://huggingface.co/api/models/bigcode/"
           "starcoder: offline mode is enabled. To disable it, please unset the `HF_HUB_OFFLINE` environment variable.")
    top = diagnose([api]).top
    assert (top.symptom, top.layer) == ("weights_not_cached", "vllm_version_flags") and "huggingface.co/api/" in top.cause
    cache = ("huggingface_hub.errors.LocalEntryNotFoundError: Cannot find the requested files in the disk cache and "
             "outgoing traffic has been disabled. To enable hf.co look-ups and downloads online, set 'local_files_only' to False.")
    assert (diagnose([cache]).top.symptom, diagnose([cache]).top.layer) == ("weights_not_cached", "model_weights")


def test_a_registry_crash_before_not_supported_is_a_broken_install():
    inspect = "ERROR 10-26 11:35:32 registry.py:267] Error in inspecting model architecture 'LlamaForCausalLM'"
    unsupported = "ValueError: Model architectures ['LlamaForCausalLM'] are not supported for now."
    top = diagnose([inspect, unsupported]).top
    assert (top.symptom, top.layer) == ("unsupported_architecture", "pytorch_wheel") and "LlamaForCausalLM" in top.decided_by
    # another architecture's crash does not explain this one
    other = diagnose(["ERROR registry.py:267] Error in inspecting model architecture 'Qwen2ForCausalLM'", unsupported]).top
    assert other.layer == "vllm_version_flags"


def test_a_403_from_another_host_is_not_the_hub_s():
    # the httpx wording is read as the Hub's only when the url is the Hub's or cut off at the line end
    d = diagnose(["httpx.HTTPStatusError: Client error '403 Forbidden' for url 'https://s3.example.com/bucket/model.bin'"])
    assert not any(f.symptom == "gated_repo_auth" for f in d.findings)


def test_a_ray_placement_group_wait_is_a_hang_only_when_nothing_starts_after_it():
    # tests/data/blind_failure_cases.jsonl 'fail6-ray-pg-gpu-counted-as-tpu': the wait, then ray status, no start
    wait = ("INFO 03-02 11:00:05 [ray_utils.py:464] Waiting for creating a placement group of specs for 30 seconds. "
            "specs=[{'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}]. Check `ray status` to see if you have enough resources.")
    hung = diagnose([wait, "Pending Demands:", " {'GPU': 1.0} * 4 (PACK): 1+ pending placement groups"])
    assert hung.failed and (hung.top.symptom, hung.top.layer) == ("tp_init_hang", "container_environment")
    assert "ray status" in hung.top.fix
    went_on = diagnose([wait, "INFO 03-02 11:02:10 [api_server.py:1024] Starting vLLM API server on http://0.0.0.0:8000",
                        "INFO:     Application startup complete."])
    assert not any(f.symptom == "tp_init_hang" for f in went_on.findings)


def test_a_lone_no_kernel_image_line_is_a_hint_with_both_owners():
    # blind rows: a GTX 1080 Ti older than the build (the GPU's), Blackwell cards and an H100 FP8 image built without
    # the architecture (the wheel's): the line alone cannot tell them apart
    top = diagnose(["RuntimeError: CUDA error: no kernel image is available for execution on the device"]).top
    assert top.symptom == "unsupported_gpu" and top.confidence < CONFIDENT
    assert "older" in top.cause and "built without" in top.cause


def test_an_internal_zmq_port_is_vllm_s_and_the_http_port_is_the_host_s():
    zmq = diagnose(["zmq.error.ZMQError: Address already in use (addr='tcp://127.0.0.1:5570')"]).top
    http = diagnose(["ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): address already in use"]).top
    assert (zmq.symptom, zmq.layer) == ("port_in_use", "vllm_version_flags")
    assert (http.symptom, http.layer) == ("port_in_use", "container_environment")


@pytest.mark.parametrize("line, layer, confident", [
    # a pre-release build's MXFP4 minimum (every release since 0.10.1 asks for 80) on a GPU that meets 80: the build's
    ("Value error, The quantization method mxfp4 is not supported for the current GPU. Minimum capability: 90. Current "
     "capability: 89.", "vllm_version_flags", True),
    # below what every release asks for: the GPU's
    ("Value error, The quantization method mxfp4 is not supported for the current GPU. Minimum capability: 100. Current "
     "capability: 75.", "gpu", True),
    # the minimum every release asks for, or a method without a recorded release minimum: the GPU's, as before
    ("The quantization method mxfp4 is not supported for the current GPU. Minimum capability: 80. Current capability: 75.",
     "gpu", True),
    ("The quantization method fp8 is not supported for the current GPU. Minimum capability: 90. Current capability: 86.",
     "gpu", True),
    # a dtype the method refuses: the GPU lacks it or --dtype asked for it, so a hint naming both
    ("torch.float16 is not supported for quantization method mxfp4. Supported dtypes: [torch.bfloat16]", "gpu", False),
])
def test_a_quantization_refusal_is_the_build_s_only_where_every_release_runs_it(line, layer, confident):
    top = diagnose([line]).top
    assert (top.symptom, top.layer) == ("quant_unsupported_on_gpu", layer)
    assert (top.confidence >= CONFIDENT) is confident
    if not confident:
        assert "--dtype" in top.cause and "GPU" in top.cause


def test_no_cache_blocks_after_a_cuda_graph_estimate_names_the_estimate():
    refusal = "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`."
    plain = diagnose([refusal]).top
    with_estimate = diagnose(["INFO [gpu_model_runner.py:6936] Estimated CUDA graph memory: 42.50 GiB total", refusal]).top
    assert (with_estimate.symptom, with_estimate.layer, with_estimate.confidence) == (
        plain.symptom, plain.layer, plain.confidence)
    assert "42.50 GiB" in with_estimate.cause and "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0" in with_estimate.fix
    assert "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS" not in plain.fix


def test_a_backend_refusal_without_its_reasons_is_a_hint():
    cut = "ValueError: No valid attention backend found for cuda with AttentionSelectorConfig(head_size=576,"
    whole = cut + " use_sparse=True). Reasons: {FLASHMLA_SPARSE: [compute capability not supported]}."
    hint, answer = diagnose([cut]).top, diagnose([whole]).top
    assert hint.symptom == "attention_backend_fallback" and hint.confidence < CONFIDENT
    assert "compute capability" in hint.cause and "flags" in hint.cause
    assert (answer.symptom, answer.layer) == ("unsupported_gpu", "gpu") and answer.confidence >= CONFIDENT


def test_a_ray_version_mismatch_is_the_environment_s_and_the_patch_warning_is_not_a_failure():
    # tests/data/blind_failure_cases.jsonl 'fail8-ray-version-mismatch-custom-vllm': Ray's RuntimeError, then the versions
    lines = ["RuntimeError: Version mismatch: The cluster was started with:", "    Ray: 2.43.0", "    Python: 3.11.10",
             "This process on node 10.18.215.196 was started with:", "    Ray: 2.44.1", "    Python: 3.11.10"]
    top = diagnose(lines).top
    assert (top.symptom, top.layer) == ("tp_init_hang", "container_environment") and top.confidence >= CONFIDENT
    # newer Ray only warns when the Python patch version differs
    warn = diagnose(["2025-05-26 18:00:25,881 WARNING utils.py:1591 -- Python patch version mismatch: The cluster was "
                     "started with:"])
    assert not any(f.symptom == "tp_init_hang" for f in warn.findings)


EIGHTH_ROUND_LINES = [
    # argparse refusing a value of a fixed list (vLLM 0.6.2's --tool-call-parser) and vLLM's own parser-name KeyError
    ("api_server.py: error: argument --tool-call-parser: invalid choice: 'llama3_json' (choose from 'mistral', 'hermes')",
     "invalid_engine_flags", "vllm_version_flags", True),
    ("KeyError: 'invalid reasoning parser: qwen4 (chose from { deepseek_r1, qwen3 })'",
     "invalid_engine_flags", "vllm_version_flags", True),
    # a flag this CLI does not have: removed, newer, a plugin's, or flag and value passed as one argument: a hint
    ("vllm: error: unrecognized arguments: --task embed", "invalid_engine_flags", "vllm_version_flags", False),
    # Transformers' unknown model type, also when a pasted log lost the backticks
    ("ValueError: The checkpoint you are trying to load has model type qwen3_moe but Transformers does not recognize this "
     "architecture.", "unsupported_architecture", "vllm_version_flags", True),
    # a multimodal option refused because the release does not see the model as multimodal: a hint
    ("Value error, `limit_mm_per_prompt` is only supported for multimodal models. [type=value_error]",
     "unsupported_architecture", "vllm_version_flags", False),
    # Triton's fp8 type refusal: an FP8 KV cache or an FP8 checkpoint's kernels on a GPU below SM89: a hint naming the GPU
    ("ValueError(\"type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')\")",
     "quant_unsupported_on_gpu", "gpu", False),
    # no chat template in the tokenizer: the checkpoint's
    ("400 As of transformers v4.44, default chat template is no longer allowed, so you must provide a chat template if "
     "the tokenizer does not define one. None", "tokenizer_or_revision_mismatch", "model_weights", True),
    # the PTX JIT refusing a newer toolkit's PTX: the driver's
    ("torch.AcceleratorError: CUDA error: the provided PTX was compiled with an unsupported toolchain.",
     "driver_too_old", "nvidia_driver", True),
    # hipBLASLt's library load: a shipped arch's file that cannot be opened (open-files limit) vs an arch the build lacks
    ("rocblaslt error: Could not load /opt/venv/lib/python3.11/site-packages/torch/lib/hipblaslt/library/"
     "TensileLibrary_lazy_gfx942.dat", "tp_init_hang", "container_environment", False),
    ("rocblaslt error: Could not load /opt/rocm/lib/rocblas/library/TensileLibrary_lazy_gfx1100.dat",
     "unsupported_gpu", "pytorch_wheel", False),
    # added after the held-out reading: Triton's older fp8e4nv assertion and a LoRA weight the loader cannot apply, hints
    ("AssertionError: fp8e4nv data type is not supported on CUDA arch < 89", "quant_unsupported_on_gpu", "gpu", False),
    ("ValueError: base_model.model.lm_head.weight is unsupported LoRA weight", "invalid_engine_flags", "model_weights",
     False),
]



NINTH_ROUND_LINES = [
    # Transformers refusing a config name vLLM registers at import: the Transformers version is newer than the release's
    ("ValueError: 'aimv2' is already used by a Transformers config, pick another name.",
     "import_undefined_symbol", "vllm_version_flags", True),
    # the older Transformers lookup of an unknown model type (the frame before the bare KeyError)
    ('    config_class = CONFIG_MAPPING[config_dict["model_type"]]', "unsupported_architecture", "vllm_version_flags", True),
    # a GGUF architecture the release's Transformers GGUF loader does not map
    ("ValueError: GGUF model with architecture qwen3next is not supported yet.", "unsupported_architecture",
     "vllm_version_flags", True),
    # a layer-type name renamed by a newer Transformers, as a bare KeyError: a hint
    ("(EngineCore pid=9824) KeyError: 'full_attention'", "unsupported_architecture", "vllm_version_flags", False),
    # vLLM's config-type check: Transformers' class of the same name (built outside vLLM's loader) vs another class
    ("TypeError: Invalid type of HuggingFace config. Expected type: <class 'vllm.transformers_utils.configs.qwen3_5."
     "Qwen3_5Config'>, but found type: <class 'transformers.models.qwen3_5.configuration_qwen3_5.Qwen3_5Config'>",
     "unsupported_architecture", "client_code", False),
    ("TypeError: Invalid type of HuggingFace config. Expected type: <class 'vllm.transformers_utils.configs.qwen3_5_moe."
     "Qwen3_5MoeConfig'>, but found type: <class 'transformers.models.qwen3_5_moe.configuration_qwen3_5_moe."
     "Qwen3_5MoeTextConfig'>", "unsupported_architecture", "vllm_version_flags", False),
    # Qwen2's partial sliding window refused by the release's model code
    ("ValueError: Sliding window for some but all layers is not supported. This model uses sliding window but "
     "`max_window_layers` = 28 is less than `num_hidden_layers` = 28.", "unsupported_architecture", "vllm_version_flags",
     True),
    # the NixlConnector without the nixl package
    ("RuntimeError: NIXL is not available", "import_undefined_symbol", "container_environment", True),
    # no compressed-tensors scheme: the GPU, the release or the package: a hint
    ("NotImplementedError: No compressed-tensors compatible scheme was found.", "quant_unsupported_on_gpu",
     "vllm_version_flags", False),
    # FlashAttention refusing an FP8 KV cache in 0.6-0.10: a fallback, the release's
    ("INFO 01-29 01:53:21 cuda.py:185] Cannot use FlashAttention-2 backend for FP8 KV cache.",
     "attention_backend_fallback", "vllm_version_flags", True),
    # added after the held-out reading: the swap space refused on a small host
    ("ValueError: Too large swap space. 4.00 GiB out of the 4.30 GiB total CPU memory is allocated for the swap space.",
     "invalid_engine_flags", "vllm_version_flags", True),
]


TENTH_ROUND_LINES = [
    # tenth round: refusals with one owner in public threads
    ("(EngineCore pid=88) RuntimeError: UVA is not available", "invalid_engine_flags", "vllm_version_flags", True),
    ("ValueError: fp8_e5m2 kv-cache is not supported with fp8 checkpoints.", "invalid_engine_flags", "vllm_version_flags",
     True),
    ("RuntimeError('chunked prefill cannot be used with prefix caching now.')", "invalid_engine_flags",
     "vllm_version_flags", True),
    ("ValueError: Call to add_lora method failed: vLLM only supports modules_to_save being None.",
     "invalid_engine_flags", "model_weights", True),
    ("ValueError: num_speculative_tokens was provided without speculative_model", "invalid_engine_flags",
     "vllm_version_flags", True),
    ("ValueError: num_speculative_tokens was provided but without speculative model.", "invalid_engine_flags",
     "vllm_version_flags", True),
    ("NotImplementedError: No compiled get_cutlass_moe_mm_data: no cutlass_scaled_mm kernel for CUDA device capability: "
     "120. Required capability: 90 or 100", "quant_unsupported_on_gpu", "vllm_version_flags", True),
    ("ImportError: /x/vllm/_C.abi3.so: undefined symbol: _Z20cutlass_moe_mm_sm100RN2at6TensorERKS0_S3_S3_S3_S3_S3_S3_S3_S3_bb",
     "import_undefined_symbol", "vllm_version_flags", True),
    # several owners in public threads: hints
    ("RuntimeError: torch.cuda.MemPool doesn't currently support expandable_segments.", "invalid_engine_flags",
     "container_environment", False),
    ("AssertionError: Expandable segments are not compatible with memory pool. Please track "
     "https://github.com/pytorch/pytorch/issues/147851 for the latest updates.", "invalid_engine_flags",
     "container_environment", False),
    ('    assert cpu_tensor.is_pinned(), "CPU tensor must be pinned"', "invalid_engine_flags", "vllm_version_flags", False),
    ("NotImplementedError: No compiled get_cutlass_moe_mm_data: no cutlass_scaled_mm kernel for CUDA device capability: "
     "86. Required capability: 90 or 100", "quant_unsupported_on_gpu", "gpu", False),
]


ELEVENTH_ROUND_LINES = [
    # eleventh round: refusals with one owner in public threads, in the wording of the releases that print them
    ("NotImplementedError: Sliding window is not allowed with prefix caching enabled!", "invalid_engine_flags",
     "vllm_version_flags", True),
    ("AssertionError: Prefix caching is currently not supported with sliding window attention", "invalid_engine_flags",
     "vllm_version_flags", True),
    ("ValueError: num_speculative_tokens must be provided with speculative model unless the draft model config contains "
     "an n_predict parameter.", "invalid_engine_flags", "vllm_version_flags", True),
    ("TypeError: LLMatcher.validate_grammar() got an unexpected keyword argument 'tokenizer'", "import_undefined_symbol",
     "vllm_version_flags", True),
    ("ValueError: Quantization method specified in the model config (fp8) does not match the quantization method "
     "specified in the `quantization` argument (gguf).", "invalid_engine_flags", "model_weights", True),
    # the same refusal for a method the user passed stays the flag's
    ("ValueError: Quantization method specified in the model config (gptq) does not match the quantization method "
     "specified in the `quantization` argument (gptq_marlin).", "invalid_engine_flags", "vllm_version_flags", True),
    # several owners in public threads (the request or the server's flags): hints
    ("ValueError: You set or defaulted to '{\"image\": 1}' in `--limit-mm-per-prompt`, but passed 3 image items in the "
     "same prompt.", "invalid_engine_flags", "client_code", False),
    ("ValueError: You set video=1 (or defaulted to 1) in `--limit-mm-per-prompt`, but found 8 items in the same prompt.",
     "invalid_engine_flags", "client_code", False),
    ('\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', "invalid_engine_flags",
     "vllm_version_flags", False),
]


TWELFTH_ROUND_LINES = [
    # twelfth round: NCCL's invalid usage is a placement with several owners in public threads: hints, not the driver's
    ("hostA:2292596:2292596 [0] init.cc:943 NCCL WARN Duplicate GPU detected : rank 0 and rank 1 both on CUDA device "
     "53000", "tp_init_hang", "client_code", False),
    ("RuntimeError: NCCL error: invalid usage (run with NCCL_DEBUG=WARN for details)", "tp_init_hang", "client_code",
     False),
    # a refusal of the release, in the wording of 0.5.5-0.6.3's _get_and_verify_max_len
    ('    assert "factor" in rope_scaling', "unsupported_architecture", "vllm_version_flags", True),
    # the max_model_len refusal quoted without its derived length (an issue title, a wrapper's one-line error)
    ("Failed to deploy a models using vllm: User-specified max_model_len (8192) is greater than the derived "
     "max_model_len", "invalid_engine_flags", "vllm_version_flags", True),
]


def test_the_device_clash_outranks_the_generic_nccl_lines_but_not_a_named_cause():
    clash = ["torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, "
             "invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.20.5",
             "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.",
             "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 10"]
    top = diagnose(clash).top
    assert (top.symptom, top.layer) == ("tp_init_hang", "client_code") and top.confidence < CONFIDENT
    assert "rank 1 and rank 0" in top.cause
    # a stronger named cause (NCCL's shared memory in the container) keeps its reading
    shm = diagnose(clash + ["NCCL WARN Error while creating shared memory segment /dev/shm/nccl-abc (size 9637888)"]).top
    assert shm.layer == "container_environment"
    # an NCCL timeout without invalid usage still reads as before
    assert diagnose(["NCCL error: unhandled system error, NCCL version 2.18.1"]).top.layer == "nvidia_driver"


def test_an_undefined_torch_symbol_stays_the_torch_wheels_and_not_a_vllm_kernel():
    for sym in ("_ZN3c1017RegisterOperatorsD1Ev", "_Z16THPVariable_WrapN2at10TensorBaseE"):
        top = diagnose([f"ImportError: /x/vllm/_C.abi3.so: undefined symbol: {sym}"]).top
        assert (top.symptom, top.layer) == ("import_undefined_symbol", "pytorch_wheel")


def test_the_swap_space_warning_is_not_a_failure_and_the_nixl_import_warning_is_not_fatal():
    warn = diagnose(["WARNING 02-20 18:36:00 config.py:1148] Possibly too large swap space. 4.00 GiB out of the 7.75 GiB "
                     "total CPU memory is allocated for the swap space."])
    assert not any(f.symptom == "invalid_engine_flags" for f in warn.findings)
    note = diagnose(["WARNING 05-18 12:25:40 [nixl_connector.py:43] NIXL is not available"])
    assert not any(f.symptom == "import_undefined_symbol" for f in note.findings)


THIRTEENTH_ROUND_LINES = [
    # thirteenth round: lines with one owner, in the wording of the source that prints them
    ("ValueError: VLLM_PORT 'tcp://10.0.0.7:8000' appears to be a URI. This may be caused by a Kubernetes service "
     "discovery issue,check the warning in: https://docs.vllm.ai/en/latest/configuration/env_vars.html",
     "invalid_engine_flags", "container_environment", True),
    ("    assert issubclass(connector_cls, KVConnectorBase_V1)", "invalid_engine_flags", "vllm_version_flags", True),
    ("    assert issubclass(connector_cls, KVConnectorBase)", "invalid_engine_flags", "vllm_version_flags", True),
    ("ValueError: Unsupported connector type: PyNcclConnector", "invalid_engine_flags", "vllm_version_flags", True),
    ("openai_harmony.HarmonyError: error downloading or loading vocab file: failed to download or load vocab file",
     "download_failed", "container_environment", True),
    ("ValueError: Failed to load mistral 'params.json' config for model org/model. Please check if the model is a "
     "mistral-format model and if the config file exists.", "invalid_engine_flags", "vllm_version_flags", True),
    ("AttributeError: Qwen2Tokenizer has no attribute all_special_tokens_extended", "tokenizer_or_revision_mismatch",
     "vllm_version_flags", True),
    ("NotImplementedError: Pipeline parallelism is not supported yet with multiprocessing.", "invalid_engine_flags",
     "vllm_version_flags", True),
    # several owners in public threads (the release's layout or module set, or the checkpoint / the importing package):
    # hints
    ("ValueError: There is no module or parameter named 'lm_head.input_scale' in Qwen3_5MoeForCausalLM",
     "unsupported_architecture", "vllm_version_flags", False),
    ("ModuleNotFoundError: No module named 'vllm.entrypoints.serve.render'", "import_undefined_symbol",
     "vllm_version_flags", False),
]


FOURTEENTH_ROUND_LINES = [
    # fourteenth round: lines with one owner, in the wording of the source that prints them
    ("AssertionError: 3-read Mamba conv transfer requires DS conv state layout. Set VLLM_SSM_CONV_STATE_LAYOUT=DS",
     "invalid_engine_flags", "vllm_version_flags", True),
    ("RuntimeError: Worker failed with error 'No compiled cutlass_scaled_mm for CUDA device capability: 120. Required "
     "capability: 90 or 100', please check the stack trace above for the root cause", "quant_unsupported_on_gpu",
     "vllm_version_flags", True),
    ("flashinfer.utils.BackendSupportedError: mm_fp4 does not support backend 'cute-dsl' with capability 120",
     "quant_unsupported_on_gpu", "vllm_version_flags", True),
    ("  Input should be 1, 8, 16, 32, 64, 128, 256, 320 or 512 [type=literal_error, input_value=48, input_type=int]",
     "invalid_engine_flags", "client_code", True),
    # a capability below the dense CUTLASS kernels: the GPU, or a build without them (a hint)
    ("NotImplementedError: No compiled cutlass_scaled_mm for CUDA device capability: 86. Required capability: 90 or "
     "100", "quant_unsupported_on_gpu", "gpu", False),
    # several owners in public threads (the release's model class, the checkpoint, a trainer's weight sync): hints
    ("AssertionError: Attempted to load weight (torch.Size([3600])) into parameter (torch.Size([3584]))",
     "unsupported_architecture", "vllm_version_flags", False),
    ("AssertionError: Tried to load weights of size torch.Size([3096576, 1])to a parameter of size "
     "torch.Size([5376, 1152])", "unsupported_architecture", "vllm_version_flags", False),
    ("    assert self.data.shape == loaded_weight.shape", "unsupported_architecture", "vllm_version_flags", False),
]


def test_the_weight_shape_hint_names_its_owners_and_other_literals_are_not_lora_ranks():
    hint = diagnose(["AssertionError: Attempted to load weight (torch.Size([0])) into parameter "
                     "(torch.Size([1280, 3, 2, 14, 14]))"]).top
    assert "checkpoint" in hint.cause and "release" in hint.cause and "ZeRO-3" in hint.cause
    # the DS-layout assert names the variable to set; the dense CUTLASS refusal names the capabilities it covers
    assert "VLLM_SSM_CONV_STATE_LAYOUT=DS" in diagnose(["AssertionError: 3-read Mamba conv transfer requires DS conv "
                                                        "state layout. Set VLLM_SSM_CONV_STATE_LAYOUT=DS"]).top.fix
    assert "90 or 100" in diagnose(["No compiled cutlass_scaled_mm for CUDA device capability: 120. Required "
                                    "capability: 90 or 100"]).top.cause
    # pydantic's literal_error for another field, and a sharded-state dtype note, are not these findings
    assert diagnose(["  Input should be 'auto', 'fp8' or 'bfloat16' [type=literal_error, input_value='fp4', "
                     "input_type=str]"]).top is None
    assert diagnose(["Attempted to load weight model.embed_tokens with dtype torch.float16 into parameter of dtype "
                     "torch.bfloat16"]).top is None


def test_wrapped_backend_reasons_naming_the_capability_read_as_the_gpu_s_and_cpu_offload_batch_rebuild_is_the_release_s():
    wrapped = ["ValueError: No valid attention backend found for cuda with AttentionSelectorConfig(head_size=576,",
               "dtype=torch.bfloat16, kv_cache_dtype=bfloat16, block_size=None, use_mla=True, has_sink=False,",
               "use_sparse=True, ...). Reasons: {FLASH_ATTN_MLA: [sparse not supported, compute capability not",
               "supported, FlashAttention MLA not supported on this device], FLASHMLA: [sparse not supported,"]
    top = diagnose(wrapped).top
    assert (top.symptom, top.layer) == ("unsupported_gpu", "gpu") and top.confidence >= CONFIDENT
    # without the wrapped reasons it stays the hint with both owners; a reasons line far below, or the debug line that
    # comes before the error, does not decide it
    assert diagnose(wrapped[:2]).top.confidence < CONFIDENT
    far = wrapped[:1] + ["INFO unrelated line"] * 9 + wrapped[2:3]
    assert diagnose(far).top.symptom == "attention_backend_fallback"
    before = ["DEBUG Some attention backends are not valid for cuda with AttentionSelectorConfig(...). Reasons: "
              "{FLASHMLA: [compute capability not supported]}."] + wrapped[:2]
    assert diagnose(before).top.symptom == "attention_backend_fallback"
    offload = diagnose(["RuntimeError: Worker failed with error 'Cannot re-initialize the input batch when CPU weight "
                        "offloading is enabled. See https://github.com/vllm-project/vllm/pull/18298 for more details.', "
                        "please check the stack trace above for the root cause"]).top
    assert (offload.symptom, offload.layer) == ("invalid_engine_flags", "vllm_version_flags")
    assert "--cpu-offload-gb" in offload.fix and offload.confidence >= CONFIDENT


FOURTEENTH_ROUND_HELD_OUT_LINES = [
    # added after the fourteenth round's held-out reading, each in its source's wording
    ("RuntimeError: Worker failed with error 'No compiled get_cutlass_moe_mm_data: no cutlass_scaled_mm kernel for CUDA "
     "device capability: 90. Required capability: 90 or 100'", "quant_unsupported_on_gpu", "vllm_version_flags", True),
    ("AssertionError: Sinks are only supported in FlashAttention 3", "attention_backend_fallback", "vllm_version_flags",
     True),
    ("NotImplementedError: Could not run '_C::selective_scan_fwd' with arguments from the 'CUDA' backend. This could be "
     "because the operator doesn't exist for this backend", "import_undefined_symbol", "vllm_version_flags", True),
    # the world size above the node's GPUs: a multi-node start without the Ray backend, or fewer GPUs visible (a hint)
    ("Value error, Tensor parallel size (16) cannot be larger than the number of available GPUs (8)",
     "invalid_engine_flags", "vllm_version_flags", False),
    ("ValueError: World size (16) is larger than the number of available GPUs (8) in this node. If this is intentional "
     "and you are using:", "invalid_engine_flags", "vllm_version_flags", False),
    # a capability outside the MoE kernel's list stays the GPU's hint
    ("No compiled get_cutlass_moe_mm_data: no cutlass_scaled_mm kernel for CUDA device capability: 89. Required "
     "capability: 90 or 100", "quant_unsupported_on_gpu", "gpu", False),
]


# each round's lines (the lists above): one test reads them all, in the wording of the source that prints them
@pytest.mark.parametrize("line, symptom, layer, confident", (
    EIGHTH_ROUND_LINES + NINTH_ROUND_LINES + TENTH_ROUND_LINES + ELEVENTH_ROUND_LINES + TWELFTH_ROUND_LINES
    + THIRTEENTH_ROUND_LINES + FOURTEENTH_ROUND_LINES + FOURTEENTH_ROUND_HELD_OUT_LINES))
def test_round_lines_name_their_owner(line, symptom, layer, confident):
    top = diagnose([line]).top
    assert (top.symptom, top.layer) == (symptom, layer)
    assert (top.confidence >= CONFIDENT) == confident


def test_an_operator_of_another_library_missing_on_a_backend_is_not_vllm_s_build():
    assert diagnose(["NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend."]
                    ).top is None


def test_private_vllm_extensions_are_not_a_missing_submodule_and_the_weight_hint_names_both_owners():
    # vllm._C / vllm._rocm_C import warnings and the bundled flash-attn are other rows (or none), not a package built for
    # another release
    for line in ("WARNING 11-22 22:54:19 [rocm.py:39] Failed to import from vllm._rocm_C with "
                 "ModuleNotFoundError(\"No module named 'vllm._rocm_C'\")",
                 "ModuleNotFoundError: No module named 'vllm.vllm_flash_attn'"):
        assert not any("which this vLLM release does not have" in f.cause for f in diagnose([line]).findings)
    moved = diagnose(["ModuleNotFoundError: No module named 'vllm.utils.torch_utils'"]).top
    assert "vllm.utils.torch_utils" in moved.cause and moved.confidence < CONFIDENT
    ranked = diagnose(["(EngineCore_DP0 pid=1) ERROR 05-01 10:00:00 [core.py:700] ModuleNotFoundError: No module named "
                       "'vllm.entrypoints.serve.render'"]).top
    assert ranked is not None and "vllm.entrypoints.serve.render" in ranked.cause


def test_a_warning_that_an_optional_vllm_module_did_not_import_leaves_a_healthy_start_started():
    # only the exception's own line is the hint: a WARNING naming the missing module in its text, in a log that went on
    # to size its pool and serve, was a fatal finding (0.5) that turned the start into 'failed'
    healthy = ["INFO 05-01 09:59:00 [api_server.py:1000] vLLM API server version 0.19.0",
               "WARNING 05-01 10:00:00 [registry.py:30] Failed to import an optional model module: No module named "
               "'vllm.model_executor.models.foo'",
               "INFO 05-01 10:00:10 [kv_cache_utils.py:1000] GPU KV cache size: 168,288 tokens",
               "INFO 05-01 10:00:20 [api_server.py:1100] Starting vLLM API server 0 on http://0.0.0.0:8000",
               "INFO:     Application startup complete."]
    result = diagnose(healthy)
    assert result.started and not result.failed
    assert not any(f.symptom == "import_undefined_symbol" for f in result.findings)
    hint = diagnose(["ValueError: There is no module or parameter named 'qkqkv_proj' in "
                     "MiniCPMV4_6ViTWindowAttentionSelfAttn."]).top
    assert "'qkqkv_proj'" in hint.cause and "fine-tuning tool" in hint.cause and "release" in hint.cause


# ---- the plfail round: whole DEBUG logs of a vLLM 0.19.0 H100 sweep's failed starts ---------------------------------

PLFAIL_LOG = DATA / "plfail_gpt_oss_20b_tp1_h100_v0190_failed.log"  # whole, byte for byte (SOURCES-logs.md)


def test_a_whole_debug_log_reads_the_fatal_error_not_its_harmless_debug_lines():
    import time

    start = time.perf_counter()
    result = diagnose(PLFAIL_LOG)
    assert time.perf_counter() - start < 10  # 1,112 lines, 165 KB
    assert result.failed and not result.started
    # one finding: the sampler warm-up's OOM, read as the CUDA graphs 0.19.0 leaves out of the budget
    assert [(f.symptom, f.layer) for f in result.findings] == [("oom_graph_capture_or_profiling", "memory_budget")]
    top = result.top
    assert "1.84 GiB the graphs took" in top.cause and "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS" in top.cause
    assert "0.92 or less" in top.fix
    assert any("warming up sampler with 1024 dummy requests" in e for e in top.evidence)
    # the MXFP4 oracle's DEBUG trial of backends before 'Using TRITON' is not a refusal
    assert not any(f.symptom == "quant_unsupported_on_gpu" for f in result.findings)
    assert result.log.vllm_version == "0.19.0"


def test_moe_backend_lines_at_debug_level_are_the_oracles_trials():
    trial = ("(EngineCore pid=248) DEBUG 04-22 00:58:39 [model_executor/.../oracle/mxfp4.py:355] Mxfp4 MoE backend "
             "'FLASHINFER_TRTLLM_MXFP4_BF16' does not support the deployment configuration since kernel does not support "
             "current device cuda.")
    chosen = "(EngineCore pid=248) INFO 04-22 00:58:39 [model_executor/.../oracle/mxfp4.py:352] Using 'TRITON' Mxfp4 MoE backend."
    assert diagnose([trial, chosen]).top is None
    # the same wording raised for a backend that was asked for is the refusal
    raised = ("ValueError: Mxfp4 MoE backend 'FLASHINFER_TRTLLM_MXFP4_BF16' does not support the deployment configuration "
              "since kernel does not support current device cuda.")
    assert diagnose([raised]).top.symptom == "quant_unsupported_on_gpu"


def test_the_executors_own_sigterm_after_a_failure_is_not_a_probe_kill():
    free = ("(Worker pid=670) ERROR 04-22 01:30:33 [v1/executor/multiproc_executor.py:857] ValueError: Free memory on device "
            "cuda:1 (60.33/79.19 GiB) on startup is less than desired GPU memory utilization (0.95, 75.23 GiB). Decrease GPU "
            "memory utilization or reduce GPU memory used by other processes.")
    term = ("(Worker pid=672) DEBUG 04-22 01:30:37 [v1/executor/multiproc_executor.py:794] WorkerProc handling signal 15, "
            "raising SystemExit")
    result = diagnose([free, term])
    assert [f.symptom for f in result.findings] == ["free_memory_below_utilization"]
    # a SIGTERM with nothing before it is still read
    assert diagnose([term]).top.symptom == "k8s_probe_kill"


def test_a_fine_grained_token_refused_by_the_hub_is_one_finding_not_offline_mode():
    lines = [
        "requests.exceptions.HTTPError: 403 Client Error: Forbidden for url: https://huggingface.co/google/gemma-2-2b-it/resolve/main/config.json",
        "403 Forbidden: Please enable access to public gated repositories in your fine-grained token settings to view this repository..",
        "huggingface_hub.errors.LocalEntryNotFoundError: An error happened while trying to locate the file on the Hub and we "
        "cannot find the requested files in the local cache. Please check your connection and try again or make sure your "
        "Internet connection is on.",
    ]
    result = diagnose(lines)
    assert [(f.symptom, f.layer) for f in result.findings] == [("gated_repo_auth", "model_weights")]
    assert "fine-grained token" in result.top.cause
    # the look-up failure alone: the Hub was asked and the request failed; not HF_HUB_OFFLINE
    alone = diagnose(lines[2:]).top
    assert (alone.symptom, alone.layer) == ("download_failed", "container_environment")
    assert "HF_HUB_OFFLINE" not in alone.cause


def test_data_parallel_ranks_beyond_the_visible_gpus():
    line = ("(Worker pid=1224) ERROR 04-22 01:41:58 [v1/executor/multiproc_executor.py:857] AssertionError: DP adjusted local "
            "rank 1 is out of bounds. ")
    top = diagnose([line]).top
    assert (top.symptom, top.layer) == ("invalid_engine_flags", "container_environment") and top.fatal
    assert "GPU index 1" in top.cause and "nvidia.com/gpu" in top.fix


def test_a_tensor_parallel_size_that_does_not_divide_the_vocabulary():
    frame = ('  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/vocab_parallel_embedding.py", '
             "line 91, in vocab_range_from_global_vocab_size")
    line = "(Worker_TP4 pid=446) ERROR 04-22 00:27:44 [v1/executor/multiproc_executor.py:857] AssertionError: 151936 is not divisible by 5"
    top = diagnose([frame, line]).top
    assert (top.symptom, top.layer) == ("invalid_engine_flags", "vllm_version_flags")
    assert "vocabulary of 151,936 rows" in top.cause and "1, 2, 4, 8, 16" in top.fix
    # without the frame the numbers are named, not what they are
    bare = diagnose([line]).top
    assert bare.symptom == "invalid_engine_flags" and "vocabulary" not in bare.cause and "151936" in bare.cause


# ---- the wlog round: whole failed-start logs from other repositories ----------------------------------------------


def test_an_uncorrectable_nvlink_fault_is_the_interconnect_not_nccls_setup():
    # Chris113113/vllm-sweep-benchmark full_run_0624/3_Llama-3.3-70B-Instruct_TP-8_ISL-256_OSL-256_vllm_script.log (0.9.1)
    lines = [
        "INFO 06-25 03:38:35 [kv_cache_utils.py:715] GPU KV cache size: 3,772,608 tokens",
        "(VllmWorker rank=7 pid=49100) ERROR 06-25 03:39:12 [multiproc_executor.py:527] RuntimeError: Error Internal",
        "(VllmWorker rank=4 pid=49097) ERROR 06-25 03:39:12 [multiproc_executor.py:527] RuntimeError: Triton Error [CUDA]: "
        "uncorrectable NVLink error detected during the execution",
        "(VllmWorker rank=2 pid=49095) ERROR 06-25 03:39:12 [multiproc_executor.py:527] RuntimeError: NCCL error: unhandled "
        "cuda error (run with NCCL_DEBUG=INFO for details)",
    ]
    result = diagnose(lines)
    assert (result.top.symptom, result.top.layer) == ("tp_init_hang", "interconnect") and result.top.fatal
    assert "NVLink" in result.top.cause and not result.started
    # NCCL's error alone stays the driver/set-up reading
    assert diagnose([lines[3]]).top.layer == "nvidia_driver"


def test_a_worker_exception_after_sizing_is_not_a_healthy_start():
    lines = [
        "INFO 06-25 04:12:25 [kv_cache_utils.py:715] GPU KV cache size: 3,772,608 tokens",
        "(VllmWorker rank=6 pid=59953) INFO 06-25 04:13:02 [gpu_model_runner.py:2048] Graph capturing finished in 37 secs, took 1.44 GiB",
        "(VllmWorker rank=6 pid=59953) ERROR 06-25 04:13:03 [multiproc_executor.py:527] WorkerProc hit an exception.",
        "(VllmWorker rank=6 pid=59953) ERROR 06-25 04:13:03 [multiproc_executor.py:527] RuntimeError: Error Internal",
    ]
    result = diagnose(lines)
    assert not result.started
    assert any("died before it was ready" in n for n in result.notes)
    assert not any(n.startswith("healthy start") for n in result.notes)


def test_ray_giving_up_on_its_placement_group_is_fatal():
    line = ("ERROR 04-18 14:47:42 engine.py:389] Cannot provide a placement group of placement_group_specs=[{'GPU': 1.0, "
            "'node:172.27.149.182': 0.001}, {'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}] within 1800 seconds. See `ray status` "
            "to make sure the cluster has enough resources.")
    top = diagnose([line]).top
    assert (top.symptom, top.layer) == ("tp_init_hang", "container_environment") and top.fatal and "1800 s" in top.cause


def test_an_oom_while_the_weights_load_says_the_weights_do_not_fit():
    line = ("(EngineCore_DP0 pid=1462) ERROR 03-10 07:38:43 [gpu_model_runner.py:4219] Failed to load model - not enough GPU "
            "memory. Try lowering --gpu-memory-utilization to free memory for weights, increasing --tensor-parallel-size, or "
            "using --quantization.")
    top = diagnose([line]).top
    assert top.symptom == "oom_graph_capture_or_profiling" and top.layer == "memory_budget"
    assert "weights were loading" in top.cause and "--enforce-eager" in top.fix and top.confidence >= 0.9


def test_a_tma_descriptor_failure_with_the_nvlink_code_is_a_hint():
    line = "Error: Failed to initialize the TMA descriptor 220"
    top = diagnose([line]).top
    assert (top.symptom, top.layer) == ("tp_init_hang", "interconnect") and top.confidence < CONFIDENT
    assert "CUDA_ERROR_NVLINK_UNCORRECTABLE" in top.cause
    # other codes have other owners (1: bad arguments, 700: a sticky illegal address): not read as NVLink
    assert diagnose(["Error: Failed to initialize the TMA descriptor 700"]).top is None
    assert diagnose(["Error: Failed to initialize the TMA descriptor, error code: 220"]).top.layer == "interconnect"


def test_a_volta_fallback_beside_a_fatal_failure_is_only_context():
    lines = ["INFO 04-18 14:09:17 cuda.py:179] Cannot use FlashAttention-2 backend for Volta and Turing GPUs.",
             "INFO 04-18 14:09:17 cuda.py:179] Using XFormers backend.",
             "ERROR 04-18 14:47:42 engine.py:389] ValueError: Cannot provide a placement group of placement_group_specs=[{'GPU': "
             "1.0}, {'GPU': 1.0}] within 1800 seconds. See `ray status` to make sure the cluster has enough resources."]
    result = diagnose(lines)
    assert result.top.symptom == "tp_init_hang"
    fallback = next(f for f in result.findings if f.symptom == "attention_backend_fallback")
    assert fallback.confidence < CONFIDENT
    # alone, the fallback keeps its reading
    assert diagnose(lines[:2]).top.confidence >= CONFIDENT


WLOG_LOG = DATA / "wlog_qwen2_5_7b_fp16_6gib_wsl_v0160_failed.log"  # whole, byte for byte (SOURCES-logs.md)


def test_a_whole_wsl_log_whose_weights_do_not_fit_reads_as_one_finding():
    result = diagnose(WLOG_LOG)
    assert result.failed and not result.started and result.log.vllm_version == "0.16.0"
    # WSL's pin_memory warnings, tvm_ffi's UserWarning and the OOM's nonsensical 'this process has 17179869184.00 GiB'
    # make no findings of their own
    assert [(f.symptom, f.layer) for f in result.findings] == [("oom_graph_capture_or_profiling", "memory_budget")]
    top = result.top
    assert top.fatal and top.confidence >= 0.9 and "weights were loading" in top.cause
    assert any("Failed to load model - not enough GPU memory" in e for e in top.evidence)


def test_the_cpu_backends_explicit_zero_kv_cache_names_the_setting():
    # er0080/vllm-benchmarking packages/protocol/tests/fixtures/vllm_serve_no_kv_cache_memory_v0.25.1.log
    lines = ["(Worker pid=36) INFO 08-18 02:57:12 [cpu_worker.py:235] Explicitly set (0.0/11.65) GiB for KV cache on node 0.",
             "(EngineCore pid=25) ERROR 08-18 02:57:12 [core.py:1231] ValueError: No available memory for the cache blocks. "
             "Try increasing `gpu_memory_utilization` when initializing the engine (this flag also controls CPU memory "
             "reservation on the CPU backend, despite its name)."]
    top = diagnose(lines).top
    assert (top.symptom, top.layer) == ("no_cache_blocks", "memory_budget")
    assert "VLLM_CPU_KVCACHE_SPACE" in top.cause and "VLLM_CPU_KVCACHE_SPACE" in top.fix
    # an explicit size above zero is not the cause
    other = diagnose([lines[0].replace("(0.0/", "(4.0/"), lines[1]]).top
    assert other.symptom == "no_cache_blocks" and "VLLM_CPU_KVCACHE_SPACE" not in other.cause


# ---- the wlog2 round: a second batch of whole failed-start logs ----------------------------------------------------

def test_an_invalid_harmony_vocab_after_the_pool_was_sized_is_a_failed_start():
    # parallelworks/activate-rag-vllm vllm.out (0.15.1): the engine sized its pool, then the API server's gpt-oss
    # endpoints could not load o200k_base (openai_harmony LoadError::InvalidTiktokenVocabFile)
    lines = ["(Worker_TP0 pid=41) INFO 02-09 09:55:46 [gpu_worker.py:356] Available KV cache memory: 77.93 GiB",
             "(EngineCore_DP0 pid=32) INFO 02-09 09:55:46 [kv_cache_utils.py:1307] GPU KV cache size: 2,269,888 tokens",
             "(EngineCore_DP0 pid=32) INFO 02-09 09:58:02 [core.py:272] init engine (profile, create kv cache, warmup model) took 177.74 seconds",
             "(APIServer pid=21) Traceback (most recent call last):",
             "(APIServer pid=21) openai_harmony.HarmonyError: invalid tiktoken vocab file: hash mismatch: computed=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855, expected=446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"]
    d = diagnose(lines)
    assert d.verdict == "failed" and not d.started
    top = d.top
    assert (top.symptom, top.layer) == ("download_failed", "container_environment") and top.confidence >= CONFIDENT
    assert "empty file" in top.cause and "TIKTOKEN_ENCODINGS_BASE" in top.fix
    # the same lines without the harmony error are a healthy start
    assert diagnose(lines[:3]).verdict == "started"


def test_a_missing_libcuda_from_the_kernel_import_beside_no_platform_is_a_hint():
    # tsho/vllm-benchmark-scripts: a TPU VM running PyPI's CUDA build; vllm._C's import fails on the missing
    # libcuda.so.1 whichever platform was picked (platforms/interface.py import_kernels), so it says no more than the
    # no-platform line
    lines = ["INFO 04-26 19:16:21 [importing.py:44] Triton is installed but 0 active driver(s) found (expected 1). Disabling Triton to prevent runtime errors.",
             "WARNING 04-26 19:16:21 [interface.py:229] Failed to import from vllm._C: ImportError('libcuda.so.1: cannot open shared object file: No such file or directory')",
             "Traceback (most recent call last):",
             "RuntimeError: Failed to infer device type, please set the environment variable `VLLM_LOGGING_LEVEL=DEBUG` to turn on verbose logging to help debug the issue."]
    top = diagnose(lines).top
    assert top.symptom == "gpu_not_detected_in_container" and top.confidence < CONFIDENT
    assert "TPU" in top.cause
    # libcuda missing from another line (the driver library itself) still reads as the driver's, confidently
    other = [lines[0], "ImportError: libcuda.so.1: cannot open shared object file: No such file or directory", lines[3]]
    assert diagnose(other).top.confidence >= CONFIDENT


def test_an_earlier_failed_startup_in_the_same_file_is_noted():
    # mrpid12org/imageworks nohup.out (0.10.2): the first launch failed 0.01 GiB short, the second started and served
    lines = ["(APIServer pid=941339) INFO 09-30 18:28:54 [api_server.py:1896] vLLM API server version 0.10.2",
             "(EngineCore_DP0 pid=941609) ERROR 09-30 18:29:03 [core.py:718] ValueError: Free memory on device (13.58/15.99 GiB) on startup is less than desired GPU memory utilization (0.85, 13.59 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.",
             "(APIServer pid=943457) INFO 09-30 18:36:42 [api_server.py:1896] vLLM API server version 0.10.2",
             "(EngineCore_DP0 pid=943603) INFO 09-30 18:37:01 [gpu_worker.py:298] Available KV cache memory: 8.99 GiB",
             "(EngineCore_DP0 pid=943603) INFO 09-30 18:37:01 [kv_cache_utils.py:864] GPU KV cache size: 18,400 tokens",
             "(APIServer pid=943457) INFO:     Application startup complete."]
    d = diagnose(lines)
    assert d.verdict == "started"
    assert any("startup from line 1 failed (free_memory_below_utilization, line 2" in n for n in d.notes)
    assert not any("startup from line" in n for n in diagnose(lines[2:]).notes)


# ---- the wlog3 round: whole failed-start logs from five more repositories ------------------------------------------

WLOG3_LOG = DATA / "wlog3_qwen3_6_27b_fp8_python311_v0271_failed.log"  # whole, byte for byte (SOURCES-logs.md)


def _blind_row(case_id: str) -> dict:
    return next(c for c in BLIND if c["id"] == case_id)


def test_the_whole_wlog3_log_is_a_failed_start_with_one_hint():
    # phivan3008/meeting-translator vllm_serve.log (0.27.1, 270 lines): the engine sized a 41.03 GiB pool, then the
    # FlashInfer import raised on Python 3.11; it was read as a healthy start before
    d = diagnose(WLOG3_LOG.read_text())
    assert d.verdict == "failed" and not d.started
    assert len(d.findings) == 1
    top = d.top
    assert (top.symptom, top.layer) == ("import_undefined_symbol", "container_environment")
    assert top.confidence < CONFIDENT  # two owners: the package's code and the interpreter
    assert "array.array" in top.cause and "Python 3.11" in top.cause and "3.12" in top.fix


def test_engine_failed_to_start_after_the_pool_was_sized_is_not_a_start():
    # 'EngineCore failed to start.' is logged only when building the engine raised (core.py run_engine_core, 0.27.1):
    # after the pool was sized, with an exception no signature knows, the start still failed
    lines = ["(EngineCore pid=7) INFO 08-12 04:47:25 [gpu_worker.py:563] Available KV cache memory: 41.03 GiB",
             "(EngineCore pid=7) INFO 08-12 04:47:25 [kv_cache_utils.py:2235] GPU KV cache size: 292,522 tokens",
             "(EngineCore pid=7) ERROR 08-12 04:47:25 [core.py:1349] EngineCore failed to start.",
             "(EngineCore pid=7) ERROR 08-12 04:47:25 [core.py:1349] ZeroDivisionError: float division by zero"]
    d = diagnose(lines)
    assert not d.started and d.verdict != "started"
    assert any("died before it was ready" in n and "ZeroDivisionError" in n for n in d.notes)
    assert diagnose(lines[:2]).verdict == "started"


def test_weights_larger_than_the_budget_name_the_weights_not_the_graphs():
    # Kelsidavis/rusteze vllm.log (0.13.0, RTX 5080): 14.19 GiB of bf16 weights against 0.7 x 15.47 GiB
    d = diagnose(_blind_row("wlog3-kelsidavis-qwen2.5-coder-7b-bf16-rtx5080-weights-over-budget-autotune-oom")["log_lines"])
    top = d.top
    assert top.symptom == "oom_graph_capture_or_profiling" and top.confidence >= 0.85
    assert "14.19 GiB" in top.cause and "10.83 GiB" in top.cause and "do not make room" in top.fix
    # the ROCm log gives no non-PyTorch figure; the total comes from the OOM line (15.47 of 15.92 GiB, 0.75)
    rocm = diagnose(_blind_row("wlog3-apollo-deepseek-r1-14b-fp8-rx9070xt-weights-over-budget-hip-oom")["log_lines"]).top
    assert "15.47 GiB" in rocm.cause and "11.94 GiB" in rocm.cause
    # weights inside the budget keep the reading of an OOM outside it (graphs, warm-up)
    fits = ["INFO 01-19 23:40:18 [utils.py:253] non-default args: {'model': 'm', 'gpu_memory_utilization': 0.9}",
            "INFO 01-19 23:55:08 [gpu_model_runner.py:3659] Model loading took 8.19 GiB memory and 8.6 seconds",
            "ERROR 01-19 23:55:19 [core.py:866] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.02 GiB. "
            "GPU 0 has a total capacity of 15.47 GiB of which 857.31 MiB is free. Including non-PyTorch memory, this "
            "process has 14.61 GiB memory in use."]
    other = diagnose(fits).top
    assert other.confidence == 0.7 and "weights alone" not in other.cause


def test_a_vllm_extension_without_its_torch_library_is_the_torch_pair():
    # apollo-mg/Project-Apollo vllm_server.log: a ROCm build of vLLM (~0.6) over a torch without libtorch_hip.so
    lines = _blind_row("wlog3-apollo-rocm-vllm-build-torch-without-libtorch-hip")["log_lines"]
    top = diagnose(lines).top
    assert (top.symptom, top.layer) == ("import_undefined_symbol", "pytorch_wheel") and top.confidence >= CONFIDENT
    assert "libtorch_hip.so" in top.cause and "ROCm" in top.cause
    # the class look-up alone says the extension is missing, not why: a hint
    alone = diagnose([lines[-1]]).top
    assert alone.layer == "pytorch_wheel" and alone.confidence < CONFIDENT


def test_triton_on_gpus_older_than_ampere():
    # zjpzhao/vllm-qwen3vl-cu118-t4 (T4, 0.11.0+torch271): a cubin the driver refuses on a pre-Ampere GPU is not
    # "GPU newer than Triton"; an FP16 conversion Triton cannot lower there is a compile failure; both hints
    image = diagnose(_blind_row("wlog3-zjpzhao-t4-triton-mrope-kernel-image-invalid-r450")["log_lines"]).top
    assert (image.symptom, image.layer) == ("driver_too_old", "nvidia_driver") and image.confidence < CONFIDENT
    assert "TRITON_PTXAS_PATH" in image.fix
    # without the pre-Ampere line the Blackwell reading stands
    bare = ["RuntimeError: Triton Error [CUDA]: device kernel image is invalid"]
    assert diagnose(bare).top.symptom == "unsupported_gpu"
    lowering = diagnose(_blind_row("wlog3-zjpzhao-t4-triton-unified-attention-sm75-lowering")["log_lines"])
    assert not lowering.started
    assert (lowering.top.symptom, lowering.top.layer) == ("jit_compile_failed", "pytorch_wheel")
    assert lowering.top.confidence < CONFIDENT


def test_the_weights_over_budget_reading_takes_the_releases_own_default_utilization():
    """A log without --gpu-memory-utilization ran at its release's default (0.9 up to 0.19, 0.92 from 0.20:
    versions.py default_gpu_memory_utilization, one table with the planner's); a log naming no release is held to the
    largest default, so the weights must pass the larger budget before they are called the cause."""
    from kvplan.diagnose import _default_utilization

    assert _default_utilization("0.13.0") == 0.9 and _default_utilization("0.27.1") == 0.92
    assert _default_utilization(None) == 0.92 and _default_utilization("not a version") == 0.92


@pytest.mark.parametrize("width", [80, 120, 200])
def test_cli_findings_keep_their_ids_whole_at_every_width(monkeypatch, capsys, width):
    """At 80 columns the six-column findings table folded the ids mid-word ("import_undefi" / "ned_symbol") and ran
    the cause a few words a line; under 160 columns each finding is now a block of labelled rows, and the wide table
    keeps the symptom and layer on one line."""
    from cli_runner import run_cli

    from kvplan.cli import console

    monkeypatch.setattr(console, "_width", width)
    code, out, _ = run_cli(monkeypatch, capsys, "diagnose", str(DATA / "plfail_gpt_oss_20b_tp1_h100_v0190_failed.log"))
    assert code == 1
    assert "oom_graph_capture_or_profiling" in out and "memory_budget" in out, out
    assert "evidence #1" in out and "Graph capturing finished in 40 secs, took 1.84 GiB" in out
    assert all(len(line.rstrip()) <= width for line in out.splitlines() if not line.startswith("  ")), out
    if width < 160:  # the cause and fix read as sentences, not one column among six
        assert ("The sampler warm-up with 1024 dummy requests ran out of memory after the CUDA graphs were captured"
                in " ".join(out.split())), out


@pytest.mark.parametrize("fits, says", [(True, "kvplan's plan for these flags starts"),
                                        (False, "kvplan's plan for these flags does not start")])
def test_the_plans_note_says_its_verdict_in_words(fits, says):
    """The note read "plan: NVIDIA H100 80GB SXM5, vLLM 0.19.0, fits=True"."""
    log = parse_lines(EXCERPTS[83]["lines"])
    result = sharpen_with_plan(diagnose(log), "/data/qwen3-8b", plan_factory=lambda m, **o: _fake_plan(fits=fits))
    note = next(n for n in result.notes if str(n).startswith("plan: "))
    assert note.endswith(says) and "fits=" not in note, note


def test_the_unrecognised_lines_note_points_where_they_are_listed():
    """diagnose's note said '21 memory-related line(s) not recognised (see unrecognised)', but neither its text nor its
    --json lists them: reconcile does."""
    from kvplan.logs import parse_log

    d = diagnose(parse_log(DATA / "plfail_gpt_oss_20b_tp1_h100_v0190_failed.log"))
    (note,) = [n for n in d.notes if "not recognised" in n and "memory-related" in n]
    assert "see unrecognised" not in note and "`kvplan reconcile` lists them" in note
    assert "unrecognised" not in d.to_dict()  # nothing in --json to see


@pytest.mark.parametrize("lines, says", [(["ValueError: Total number of attention heads (40) must be divisible by "
                                           "tensor parallel size (3)."], "· 1 line read"),
                                         (["INFO vLLM API server version 0.33.0", "ValueError: Total number of attention "
                                           "heads (40) must be divisible by tensor parallel size (3)."], "· 2 lines read")])
def test_cli_header_counts_lines_in_words(monkeypatch, capsys, tmp_path, lines, says):
    """A one-line log was '1 lines read'."""
    from cli_runner import run_cli

    log = tmp_path / "vllm.log"
    log.write_text("\n".join(lines) + "\n")
    _, out, _ = run_cli(monkeypatch, capsys, "diagnose", str(log))
    assert says in out.splitlines()[0], out


@pytest.mark.parametrize("line, about", [
    # 0.7.3 prints no estimate (vllm_failures: kv-serve-one-request-regression-083-4x4090): the fix read
    # "Lower --max-model-len (to about ? tokens here)"; now len x available / needed, at 16-token blocks
    ("ValueError: To serve at least one request with the models's max seq len (32768), (2.00 GB KV cache is needed, "
     "which is larger than the available KV cache memory (0.78 GB). Try increasing `gpu_memory_utilization` or "
     "decreasing `max_model_len` when initializing the engine.", "12768"),
    # where vLLM prints its own estimate, that one (122080; the ratio alone would give 122064)
    ("ValueError: To serve at least one request with the models's max seq len (221000), (10.12 GiB KV cache is needed, "
     "which is larger than the available KV cache memory (5.59 GiB). Based on the available memory, the estimated "
     "maximum model length is 122080. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
     "initializing the engine.", "122080"),
])
def test_the_one_request_refusal_names_a_length_to_lower_to(line, about):
    top = diagnose([line]).top
    assert top.symptom == "max_seq_len_exceeds_kv" and "?" not in top.fix
    assert f"Lower --max-model-len (to about {about} tokens here)" in top.fix


def test_a_lone_no_platform_line_names_gke_s_library_path_fix():
    # both GKE threads of the shared cases (vllm#18859 on an L4, #23935) were this: the fix named only a DEBUG restart
    from kvplan.versions import wheel_cuda

    case = next(c for c in CASES if c["id"] == "noplatform-gke-l4-090")
    top = diagnose(case["log_lines"]).top
    assert (top.symptom, top.layer, top.confidence) == ("gpu_not_detected_in_container", "nvidia_driver", 0.55)
    assert "VLLM_LOGGING_LEVEL=DEBUG" in top.fix
    assert "On GKE" in top.fix and "LD_LIBRARY_PATH=/usr/local/nvidia/lib64:/usr/local/cuda/lib64" in top.fix
    assert wheel_cuda("0.9.0") == "12.8" and wheel_cuda("0.19.1").startswith("12.") and wheel_cuda("0.20.0") == "13.0"


def test_a_container_command_missing_from_the_image_is_the_containers_not_vllms():
    # Go os/exec's ErrNotFound as runc prints it (vllm-project/production-stack#454) and crun's wording under CRI-O
    # (production-stack#869): the runtime could not start the command, nothing of vLLM ran. Before round 18: no finding.
    runc = ('Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create '
            'failed: unable to start container process: exec: "vllm": executable file not found in $PATH: unknown')
    crun = "container create failed: executable file `vllm` not found in $PATH: No such file or directory"
    for line in (runc, crun):
        top = diagnose([line]).top
        assert top is not None and (top.symptom, top.layer) == ("import_undefined_symbol", "container_environment")
        assert top.confidence >= CONFIDENT and "command -v vllm" in top.fix and "'vllm'" in top.cause


def test_a_hub_name_that_does_not_resolve_is_weights_not_on_disk_not_a_timeout():
    # urllib3 2.x NameResolutionError ("Failed to resolve '{host}' ({reason})") and urllib3 1.x's NewConnectionError with
    # the resolver's gaierror (vllm#1986). Before round 18 the generic Hub connection-error line read it as a download
    # that timed out (download_failed, 0.7), which is still how a real timeout reads.
    v2 = ("requests.exceptions.ConnectionError: (MaxRetryError('HTTPSConnectionPool(host=\\'huggingface.co\\', port=443): "
          "Max retries exceeded with url: /api/models/meta-llama/Llama-2-13b-chat-hf/revision/main (Caused by "
          "NameResolutionError(\"<urllib3.connection.HTTPSConnection object at 0x7fb471e53400>: Failed to resolve "
          "\\'huggingface.co\\' ([Errno -3] Temporary failure in name resolution)\"))'), '(Request ID: 180aa8f1)')")
    v1 = ("requests.exceptions.ConnectionError: HTTPSConnectionPool(host='huggingface.co', port=443): Max retries exceeded "
          "with url: /api/models/x (Caused by NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f>: "
          "Failed to establish a new connection: [Errno -2] Name or service not known'))")
    for line in (v2, v1):
        d = diagnose([line])
        assert [(f.symptom, f.layer) for f in d.findings] == [("weights_not_cached", "model_weights")]
        assert d.top.confidence >= CONFIDENT and "HF_HUB_OFFLINE=1" in d.top.fix and "huggingface.co" in d.top.cause
    timeout = diagnose(["requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='huggingface.co', port=443): Read timed out."]).top
    assert timeout.symptom == "download_failed" and "timed out" in timeout.cause
    # another host's name failing is not the Hub's
    assert diagnose(["Failed to resolve 'example.com' ([Errno -3] Temporary failure in name resolution)"]).top is None


def test_an_unknown_weight_in_the_transformers_backend_is_a_model_the_release_does_not_implement():
    # registry.py resolve_model_cls falls back to the Transformers modeling backend only when no architecture of the
    # config is registered natively (model_impl auto) or --model-impl transformers is given (0.10.2, 0.14.0, 0.29.0):
    # vllm#28517 (PaddleOCR-VL before 0.11.1), vllm#54062 (GLM-5.3-Flash before its native class). Before round 18 the
    # line read as the generic unknown-weight hint (0.5).
    top = diagnose(["ValueError: There is no module or parameter named 'mlp_AR' in TransformersForCausalLM"]).top
    assert (top.symptom, top.layer) == ("unsupported_architecture", "vllm_version_flags")
    assert top.confidence >= CONFIDENT and "Transformers modeling backend (TransformersForCausalLM)" in top.cause
    # a native class keeps the hint: the checkpoint's extra modules are the other owner there
    native = diagnose(["ValueError: There is no module or parameter named 'lm_head.weight_scale' in Qwen3ForCausalLM"]).top
    assert native.layer == "vllm_version_flags" and native.confidence < CONFIDENT


def test_deepgemm_placeholder_is_a_hint_its_011_wording_the_install_and_its_warmup_frame_the_release():
    # vllm/utils/deep_gemm.py _missing: 0.11.0 "... not available. Please install the `deep_gemm` package ...", 0.12.0 and
    # 0.20.0 "... not available or outdated ...", 0.33.0 "... unavailable in the current vLLM environment ..."; owners
    # in threads: the package not installed (vllm-project/recipes PR 183), an external one without the release's API,
    # 0.20's warm-up asking every layer (vllm 41849). Before round 19: no finding for any of them.
    for line in ("RuntimeError: DeepGEMM backend is not available or outdated. Please install or update the `deep_gemm` "
                 "to a newer version to enable FP8 kernels.",
                 "RuntimeError: DeepGEMM backend is unavailable in the current vLLM environment, or the available "
                 "DeepGEMM package does not provide the required APIs for these kernels."):
        top = diagnose([line]).top
        assert (top.symptom, top.layer) == ("import_undefined_symbol", "pytorch_wheel") and top.confidence < CONFIDENT
        assert "VLLM_USE_DEEP_GEMM=0" in top.fix
    old = diagnose(["RuntimeError: DeepGEMM backend is not available. Please install the `deep_gemm` package to enable "
                    "FP8 kernels."]).top
    assert (old.symptom, old.layer) == ("import_undefined_symbol", "pytorch_wheel") and old.confidence >= CONFIDENT
    assert "install_deepgemm.sh" in old.fix
    # under kernel_warmup -> deep_gemm_warmup (0.20.0 asks get_mk_alignment_for_contiguous_layout before its FP8 guard)
    frame = ['  File ".../vllm/model_executor/warmup/kernel_warmup.py", line 37, in kernel_warmup',
             "      deep_gemm_warmup(model, max_tokens)"]
    warm = diagnose(frame + ["RuntimeError: DeepGEMM backend is not available or outdated. Please install or update the "
                             "`deep_gemm` to a newer version to enable FP8 kernels."]).top
    assert (warm.symptom, warm.layer) == ("import_undefined_symbol", "vllm_version_flags")
    assert warm.confidence < CONFIDENT and "VLLM_DEEP_GEMM_WARMUP=skip" in warm.fix
    # the frame does not move the 0.11 wording (no DeepGEMM in that wheel: the install's)
    assert diagnose(frame + ["RuntimeError: DeepGEMM backend is not available. Please install the `deep_gemm` package to "
                             "enable FP8 kernels."]).top.layer == "pytorch_wheel"


def test_deepgemm_layout_asserts_name_the_release_pin_and_its_switch():
    # DeepGEMM's DG_HOST_UNREACHABLE in its layout dispatch, as vLLM's bundled build prints it (.deps/deepgemm-src):
    # vllm 47436 (0.24.0, weight post-processing), 51884 (0.27.1), DeepGEMM PR 324 (warm-up on main)
    for line in ("RuntimeError: Assertion error (/workspace/.deps/deepgemm-src/csrc/apis/layout.hpp:59): Unknown SF "
                 "transformation",
                 "RuntimeError: Assertion error (/workspace/.deps/deepgemm-src/csrc/apis/../jit_kernels/impls/../heuristics/"
                 "../../utils/layout.hpp:76): Unknown recipe"):
        top = diagnose([line]).top
        assert (top.symptom, top.layer) == ("quant_unsupported_on_gpu", "vllm_version_flags")
        assert top.confidence >= CONFIDENT and "VLLM_USE_DEEP_GEMM=0" in top.fix
    # an assertion of another library with the same words is not DeepGEMM's
    assert diagnose(["RuntimeError: Assertion error (csrc/other/layout.hpp:59): Unknown recipe"]).top is None


def test_a_read_only_model_cache_is_the_mount_not_the_download():
    # huggingface_hub writes refs and .locks into the cache even for cached weights (file_download.py, 2.4.0);
    # llm-d-incubation/llm-d-modelservice 243. Before round 19: no finding.
    top = diagnose(["OSError: [Errno 30] Read-only file system: '/model-cache/models--meta-llama--Llama-3.1-8B-Instruct'"]).top
    assert (top.symptom, top.layer) == ("download_failed", "container_environment") and top.confidence >= CONFIDENT
    assert "readOnly: false" in top.fix and "/model-cache/models--meta-llama--Llama-3.1-8B-Instruct" in top.cause
    # a read-only path that is no cache is not read as one
    assert diagnose(["OSError: [Errno 30] Read-only file system: '/etc/hosts'"]).top is None


def test_torch_allocator_message_quoted_without_its_head_is_the_oom():
    # torch's CUDACachingAllocator message from 'Tried to allocate', as vllm PR 57595 quotes it (vllm 57475)
    line = "Tried to allocate 136.00 MiB. GPU 0 has a total capacity of 22.36 GiB of which 120.88 MiB is free."
    top = diagnose([line]).top
    assert (top.symptom, top.layer) == ("oom_graph_capture_or_profiling", "memory_budget")
    # 'tried to allocate' in other words is not the allocator's message
    assert diagnose(["INFO tried to allocate a port, retrying"]).top is None
