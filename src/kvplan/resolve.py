"""Stage 1: references to specs.

A model reference (catalog id, local checkpoint folder, Hub id, or a bare config.json)
becomes one normalized `ModelSpec`; a GPU reference (catalog name or alias, a custom
size, or the GPU NVML detects) becomes a `GPUSpec`. Everything downstream works on
these frozen specs; the I/O (files, Hub, NVML) happens here and nowhere else.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
import struct
import warnings
from collections import Counter
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Iterable

from kvplan.errors import (
    ConfigError,
    GatedModelError,
    HubError,
    InputError,
    KvplanError,
    OfflineError,
    UnknownGPUError,
    UnknownModelError,
)
from kvplan.inputs import json_loads, read_json_file, read_json_object
from kvplan.versions import INTEGRATED_MEMORY_CC, rule_values

GIB = 1024 ** 3
MIB = 1024 ** 2
GB = 1000 ** 3
# a memory size past any machine's (a pebibyte) is a typo, and its bytes would overflow the plan's floats
MAX_MEMORY_BYTES = 1024 ** 5
# a GPU count (tensor x pipeline x data parallel ranks, --num-gpus, '4x H100', a record's gpu.count) past any one
# deployment's: the per-rank searches (the TP sizes a record's GPUs allow) run once per GPU, so a count of 1e23 ran
# until killed
MAX_GPU_COUNT = 65_536
DEFAULT_MODEL = "Qwen/Qwen2.5-0.5B-Instruct"
# The model references that name files on this machine, as the fixes of model errors offer them (always after ", ";
# the web page, which takes no local paths, offers an upload in their place)
LOCAL_MODEL_REFS = "a checkpoint folder or a config.json path"
FALLBACK_GPU = "tesla-t4"
# GPUs of one HGX / DGX node; above this a plan spans nodes (vLLM: TP within, PP across)
GPUS_PER_NODE = 8
# how resolve_gpu's note on that fallback begins (api.fit turns the note into a warning when a model is named)
NO_GPU_NOTE = "no --gpu given and no GPU detected"

DTYPE_BYTES = {
    "float32": 4, "float": 4, "fp32": 4, "F32": 4,
    "bfloat16": 2, "bf16": 2, "BF16": 2,
    "float16": 2, "half": 2, "fp16": 2, "F16": 2,
    "fp8": 1, "fp8_e4m3": 1, "fp8_e5m2": 1, "fp8_inc": 1, "fp8_ds_mla": 1, "F8_E4M3": 1, "F8_E5M2": 1, "F8_E8M0": 1,
    "I8": 1, "U8": 1, "I16": 2, "I32": 4, "U32": 4, "I64": 8, "F64": 8, "BOOL": 1,
}


# --------------------------------------------------------------------------- GPUs


@dataclass(frozen=True)
class GPUSpec:
    """One GPU model: memory as CUDA (and so vLLM) reports it, and its speed."""

    id: str
    name: str
    total_bytes: int
    total_source: str
    compute_capability: str | None = None
    vendor: str = "NVIDIA"
    hbm_bandwidth_tbps: float | None = None
    bf16_tflops: float | None = None
    fp16_tflops: float | None = None
    fp8_tflops: float | None = None
    fp4_tflops: float | None = None
    memory_gb_marketing: float | None = None
    interconnect: str | None = None
    aliases: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    other_memory_gb: tuple[int, ...] = ()  # the same name is also sold with this memory, which the catalog lacks
    # nvidia-smi's memory.total (MiB), with its source: CUDA's total under WSL2 (wsl2_gpu); None where no source gives it
    nvidia_smi_total_mib: int | None = None
    nvidia_smi_total_source: str | None = None
    # memory shared with the CPU where no compute capability says so (an AMD APU: the catalog's integrated_memory)
    integrated_memory: bool = False

    @property
    def total_gib(self) -> float:
        return self.total_bytes / GIB

    @property
    def form(self) -> str:
        """What kind of machine holds it: 'laptop' (from its name), 'integrated' (memory shared with the CPU: GB10,
        Jetson, by compute capability, as the plan tells them), else from its name 'desktop' (GeForce, TITAN, Radeon,
        and the workstation Quadro / RTX A / RTX Ada / RTX PRO cards) or 'datacenter' (the rest: Tesla, A/H/B/L
        series, Instinct)."""
        name = self.name.lower()
        if "laptop" in name:
            return "laptop"
        if self.integrated_memory or self.compute_capability in INTEGRATED_MEMORY_CC:
            return "integrated"
        if re.search(r"geforce|titan|radeon|quadro|rtx a\d|rtx \d+ ?(sff )?ada|rtx \d+ada|rtx pro", name):
            return "desktop"
        return "datacenter"

    @property
    def kind(self) -> str:
        """Which machines hold it, as `--gpu auto --gpu-kinds` names them (GPU_KINDS): the form's 'datacenter',
        'laptop' and 'integrated', and a desktop card split by its name into 'consumer' (GeForce, TITAN, Radeon RX)
        and 'workstation' (Quadro, RTX A / Ada / PRO, Radeon PRO)."""
        form = self.form
        if form != "desktop":
            return form
        return "consumer" if re.search(r"geforce|titan|radeon rx", self.name.lower()) else "workstation"

    @property
    def one_per_machine(self) -> bool:
        """A laptop or integrated-memory GPU: one to a machine (no tensor parallelism over several)."""
        return self.form in ("laptop", "integrated")

    @property
    def cc(self) -> tuple[int, int] | None:
        if not self.compute_capability:
            return None
        major, _, minor = str(self.compute_capability).partition(".")
        return int(major), int(minor or 0)

    @property
    def hbm_bandwidth_bytes_per_s(self) -> float | None:
        return self.hbm_bandwidth_tbps * 1e12 if self.hbm_bandwidth_tbps else None

    def peak_flops(self, dtype: str = "bfloat16") -> float | None:
        """Dense peak FLOP/s for a compute dtype, or None when the catalog does not know it."""
        tf = {"fp8": self.fp8_tflops, "fp4": self.fp4_tflops, "float16": self.fp16_tflops}.get(dtype)
        tf = tf or self.bf16_tflops or self.fp16_tflops
        return tf * 1e12 if tf else None

    @property
    def has_nvlink(self) -> bool:
        return bool(self.interconnect and "nvlink" in self.interconnect.lower() and "no nvlink" not in self.interconnect.lower())


def _catalog_rows() -> list[dict]:
    return json.loads(resources.files("kvplan.data").joinpath("gpus.json").read_text())


def _spec_of_row(r: dict, total_bytes: int, total_source: str) -> GPUSpec:
    return GPUSpec(
        id=r["id"], name=r["name"], total_bytes=total_bytes, total_source=total_source,
        compute_capability=r.get("compute_capability"), vendor=r.get("vendor") or "NVIDIA",
        hbm_bandwidth_tbps=r.get("hbm_bandwidth_tbps"), bf16_tflops=r.get("bf16_tflops"),
        fp16_tflops=r.get("fp16_tflops"), fp8_tflops=r.get("fp8_tflops"), fp4_tflops=r.get("fp4_tflops"),
        memory_gb_marketing=r.get("memory_gb_marketing"), interconnect=r.get("interconnect"),
        aliases=tuple(r.get("aliases") or ()), sources=tuple(r.get("sources") or ()),
        other_memory_gb=tuple(r.get("other_memory_gb") or ()),
        nvidia_smi_total_mib=r.get("nvidia_smi_total_mib"), nvidia_smi_total_source=r.get("nvidia_smi_total_source"),
        integrated_memory=bool(r.get("integrated_memory")),
    )


@lru_cache(maxsize=1)
def gpu_catalog() -> tuple[GPUSpec, ...]:
    # a GPU whose total memory no source gives cannot be planned for on its own (sizeless_gpus: asked for one)
    return tuple(_spec_of_row(r, int(r["total_bytes"]), r["total_source"]) for r in _catalog_rows() if r.get("total_bytes"))


@lru_cache(maxsize=1)
def sizeless_gpus() -> tuple[GPUSpec, ...]:
    """Cards kvplan knows whose total no source fixes (tools/build_catalog.py NO_TOTAL_REASONS: a Jetson module no public
    capture gives a total for, an APU whose GPU share is set per machine): named, they are planned with --gpu-gib
    (their compute capability, vendor, bandwidth and memory kind the catalog's), named alone they are asked for it.
    total_bytes is 0 and total_source says why the catalog has no total."""
    return tuple(_spec_of_row(r, 0, r["no_total_reason"]) for r in _catalog_rows()
                 if not r.get("total_bytes") and r.get("no_total_reason"))


def _sizeless_match(ref: str) -> GPUSpec | None:
    """The sizeless card a name (its count and remarks in parentheses aside) names exactly, by id, name or alias; None
    where it names none, or where a catalog card with a total answers to it too (that card is planned, as before)."""
    name = _gpu_count_and_name(ref)[1]
    keys = {_gpu_key(v) for v in (name, re.sub(r"\([^)]*\)", " ", name).strip())} - {""}
    if not keys or any(keys & {_gpu_key(n) for n in (g.id, g.name, *g.aliases)} for g in gpu_catalog()):
        return None
    for g in sizeless_gpus():
        if keys & {_gpu_key(n) for n in (g.id, g.name, *g.aliases)}:
            return g
    return None


def _sizeless_refusal(given: str, card: GPUSpec, size_flag: str | None = None) -> UnknownGPUError:
    """What naming a sizeless card without its total says: why there is none, and the flag that gives it."""
    return UnknownGPUError(
        size_flag or "--gpu-gib", f"{given.strip()!r} is the {card.name}, which kvplan knows but holds no total memory "
        f"for: {card.total_source}",
        f"give the total vLLM sees on this machine: --gpu {card.id!r} --gpu-gib N (N = torch.cuda.mem_get_info()[1] / "
        "2**30 there, or y of vLLM's 'Free memory on device (x/y GiB)' line)")


_GPU_NOISE = re.compile(r"\b(nvidia|geforce|tesla|amd|instinct|intel)\b")


_GPU_SUFFIXES = ("ti", "super")  # part of the model number: "4060 Ti" is "4060Ti", a card of its own


@lru_cache(maxsize=4096)  # every plan matches its GPU against the whole catalog's names: read each name once
def _gpu_tokens(text: str) -> tuple[str, ...]:
    t = _GPU_NOISE.sub(" ", text.lower())
    t = re.sub(r"(\d+)\s*gb\b", r"\1gb", t)
    out: list[str] = []
    for tok in re.split(r"[\s\-_/(),]+", t):
        if tok in _GPU_SUFFIXES and out and re.search(r"\d", out[-1]) and not out[-1].endswith("gb"):
            out[-1] += tok
        elif tok:
            out.append(tok)
    return tuple(out)


@lru_cache(maxsize=4096)
def _gpu_key(text: str) -> str:
    return "".join(_gpu_tokens(text))


# When a name is ambiguous (e.g. "A100" could be 40 or 80 GB, PCIe or SXM), prefer the
# variant clouds rent most: SXM over PCIe, the larger memory.
_GPU_PREFERENCE = ["h100-sxm", "a100-80gb-sxm", "a100-40gb-sxm", "h200", "b200", "l40s", "l4", "tesla-t4"]


# what a plan of a size without a card (--gpu-gib alone, a log that prints only its total) assumes: no compute
# capability, so vLLM's capability gates are not applied and its capability-keyed choices take kvplan's defaults
# (the capability-keyed choices of kvplan.plan's submodules, defaults, kv, terms and cudagraphs, read gpu.cc and skip
# or default without it: the dtype, the V1 fallback, the block size, MLA's latent, the MoE and AWQ kernels,
# FlashInfer's all-reduce workspace, the CUDA-graph capture sizes)
CUSTOM_GPU_NO_CC = ("a {size} GPU with no card named: its compute capability is unknown, so vLLM's capability checks "
                    "are not applied (bfloat16, FP8 and the quantization kernels taken as supported, V1 kept) and the "
                    "choices keyed on it (MLA's block size and FP8 latent as on Hopper; no Marlin, FP8-copy, MoE-expert "
                    "or FlashInfer all-reduce workspace; the 512-token CUDA-graph ceiling) take kvplan's defaults; "
                    "name the card as well (--gpu NAME {flag} {value}) to plan its own")


def resolve_gpu(ref: str | None = None, *, gib: float | None = None, gb: float | None = None,
                detect: bool = True, wsl2: bool = False) -> tuple[GPUSpec, list[str]]:
    """A GPU reference -> (GPUSpec, assumptions). Custom sizes win; no reference -> NVML, else a T4. `wsl2`: the card
    runs under WSL2, whose CUDA total is nvidia-smi's memory.total (wsl2_gpu)."""
    notes: list[str] = []
    # from Python (kvplan.fit(gpu=16), gpu_gib="15"), a value of the wrong type reached string and arithmetic code:
    # a TypeError from inside the resolver, gpu_gib=True planned a 1 GiB card, and gpu_gb=[16] repeated a list 10**9 times
    if ref is not None and not isinstance(ref, str):
        hint = f"gpu_gib={ref}" if isinstance(ref, (int, float)) and not isinstance(ref, bool) else "gpu='L4'"
        raise InputError("--gpu", f"must be a GPU's name, got {ref!r} ({type(ref).__name__})",
                         f"e.g. gpu='L4', gpu='2x T4' (`kvplan gpus` lists them), or a size: {hint}")
    gib, gb = _size_given(gib, "--gpu-gib"), _size_given(gb, "--gpu-gb")
    if wsl2 and (gib is not None or gb is not None):
        notes.append(f"--wsl2: the total given ({'--gpu-gib' if gib is not None else '--gpu-gb'}) is planned as given, "
                     "as vLLM's total under WSL2")
    if gib is not None or gb is not None:
        if gib is not None and gb is not None:
            raise InputError("--gpu-gib/--gpu-gb", "both given", "give one size: --gpu-gib (as CUDA reports it) or --gpu-gb (decimal GB)")
        size = gib if gib is not None else gb
        unit = GIB if gib is not None else GB
        if not (size and 0 < size * unit <= MAX_MEMORY_BYTES):  # inf and nan are no size either
            flag = "--gpu-gib" if gib is not None else "--gpu-gb"
            raise InputError(flag, f"GPU memory must be a positive finite number (at most {MAX_MEMORY_BYTES // unit:,}), "
                             f"got {size}",
                             f"e.g. {flag} {'23.58' if gib is not None else '24'}")
        total = int(round(gib * GIB)) if gib is not None else int(round(gb * GB))
        # the card named supplies what the size does not; its count ('2x L40S') still stands, its variant choice not
        mig = ref and _MIG_SLICE.search(_gpu_count_and_name(ref)[1])  # a MIG slice is found with its total, not without
        sizeless = ref and _sizeless_match(ref)  # ... and so is a card the catalog holds no total for
        base, base_notes = (_find_gpu(ref, total if (mig or sizeless) else None,
                                      size_flag="--gpu-gib" if gib is not None else "--gpu-gb")
                            if ref else (None, []))
        notes += [n for n in base_notes if not isinstance(n, ChoiceNote)]
        label = f"{gib:g} GiB" if gib is not None else f"{gb:g} GB"
        if base is not None and base.total_bytes and total > base.total_bytes * 1.01:
            # more than the card named holds: planned as given (a variant the catalog lacks), but said, not silent.
            # A smaller total (a MIG slice, a vGPU profile, a share) is a documented use and stays a plain note.
            flag = "--gpu-gib" if gib is not None else "--gpu-gb"
            notes.append(WarningNote(
                f"{flag} {size:g} is more than the {base.name}'s {base.total_bytes / GIB:.2f} GiB "
                f"({base.total_bytes / GB:.2f} GB, as CUDA reports it) in kvplan's catalog: planned with the {label} "
                f"given; for the catalog's card drop {flag}, or give the total torch.cuda.mem_get_info() reports"))
        if base is None:  # a size alone: the choices vLLM keys on the card's compute capability are not known
            notes.append(CUSTOM_GPU_NO_CC.format(size=label, flag="--gpu-gib" if gib is not None else "--gpu-gb", value=f"{size:g}"))
        spec = GPUSpec(
            id="custom", name=(f"{base.name} ({label})" if base else f"custom {label} GPU"), total_bytes=total,
            total_source=f"given: {label}", compute_capability=base.compute_capability if base else None,
            # the vendor too: an AMD card given a size still runs vLLM's ROCm build (its rules: cudagraph_subtracted_rocm,
            # the per-hipGraph cost); it was planned as an NVIDIA one
            vendor=base.vendor if base else GPUSpec.vendor,
            hbm_bandwidth_tbps=base.hbm_bandwidth_tbps if base else None, bf16_tflops=base.bf16_tflops if base else None,
            fp16_tflops=base.fp16_tflops if base else None, fp8_tflops=base.fp8_tflops if base else None,
            fp4_tflops=base.fp4_tflops if base else None,
            integrated_memory=base.integrated_memory if base else False,  # an APU given its share stays one
        )
        return spec, notes
    if ref is None:
        if detect:
            found = detect_gpu(wsl2=True) if wsl2 else detect_gpu()  # (tests replace detect_gpu by a bare lambda)
            if found is not None:
                notes.append(f"GPU detected through NVML: {found.name}")
                return found, notes
        notes.append(f"{NO_GPU_NOTE}: planning for a 16 GB Tesla T4 (the seed's example card)")
        spec = find_gpu(FALLBACK_GPU)
        if wsl2:  # said as for a card named: the total planned is not the catalog's
            spec = wsl2_gpu(spec)
            notes.append(_wsl2_note(spec))
        return spec, notes
    spec, found_notes = _find_gpu(ref)
    if wsl2:
        spec = wsl2_gpu(spec, ref)
        notes.append(_wsl2_note(spec))
    return spec, notes + found_notes


def python_scalar(value):
    """A NumPy scalar (np.int64(4096), np.float32(0.9), np.bool_(True): what a DataFrame's cells and np.arange hold)
    as the Python int, float or bool it holds (its .item()); any other value as it is. No NumPy import: a NumPy scalar
    is known by its dtype and item()."""
    if hasattr(value, "dtype") and hasattr(value, "item") and getattr(value, "shape", None) == ():
        return value.item()
    return value


def _size_given(size, flag: str) -> float | None:
    """--gpu-gib / --gpu-gb as a number: an int or float, or a string that reads as one ("15.5"); None stays None."""
    size = python_scalar(size)
    if size is None or (isinstance(size, (int, float)) and not isinstance(size, bool)):
        return size
    if isinstance(size, str):
        try:
            return float(size)
        except ValueError:
            pass
    raise InputError(flag, f"must be a number, got {size!r} ({type(size).__name__})",
                     f"e.g. {flag.lstrip('-').replace('-', '_')}={'14.56' if flag == '--gpu-gib' else '16'}")


def _wsl2_note(spec: GPUSpec) -> str:
    """The assumption a catalog card planned under --wsl2 carries (wsl2_gpu gave it its total)."""
    return (f"--wsl2: {spec.name} planned with the total CUDA reports under WSL2, nvidia-smi's memory.total "
            f"{spec.total_gib:.2f} GiB (native Linux reports 0.25-0.75 GiB less)")


# Under WSL2 CUDA's total (cudaMemGetInfo, torch's total_memory, the total vLLM multiplies by --gpu-memory-utilization)
# is nvidia-smi's memory.total, not that less the driver's reserve as on native Linux. Public observations:
#   vLLM 'Free memory on device (22.45/23.99 GiB)' on a WSL2 RTX 4090 whose nvidia-smi shows 24564 MiB (23.99 GiB)
#     (https://github.com/enginrect/llmso/blob/06bc0e5821294198e2b574a35a113bcfaa1316b3/labs/environment-setup.md);
#   vLLM '(30.12/31.84 GiB)' on a WSL2 RTX 5090, 32607 MiB (https://github.com/Alex8791-cyber/cognithor/pull/318), and
#     '(30.2/31.84 GiB)' in another WSL2 RTX 5090 vLLM 0.20.0 report (public file, index id 60827304595);
#   vLLM '(6.93/8.0 GiB)' on a WSL2 RTX 4060 Laptop 'not the 8188 MB nvidia-smi advertises' (index id 69578286789);
#   vLLM '(13.88/15.99 GiB)' and '15.99 总量' on a WSL2 RTX 4080, nvidia-smi 16376 MiB
#     (https://github.com/akiyax/kvcache-lab/blob/f3d3cd01c47600601771662b35c85f5f791952a6/docs/phase1-baseline.md);
#   a WSL vLLM 0.10.2 log of an RTX 4080 at 15.99 GiB ('Using pin_memory=False as WSL is detected',
#     https://github.com/mrpid12org/imageworks/blob/4fdc8eb92f03/vllm_llava_debug.log);
#   torch 'total_memory=24563MB' on two WSL2 RTX A5000 whose nvidia-smi shows 24564MiB (index id 60733841830);
#   WSL deviceQuery '16376 MBytes' on an RTX 4090 Laptop, nvidia-smi 16376 MiB (index ids 53124659440, 63636683260).
# Native Linux totals of the same cards are 0.25-0.75 GiB lower (RTX 4090 23.52-23.65 GiB; gpu-facts.md section 1).


def wsl2_gpu(spec: GPUSpec, ref: str | None = None) -> GPUSpec:
    """A catalog card as vLLM sees it under WSL2: CUDA's total is the card's nvidia-smi memory.total there (the sources
    above). A card whose nvidia-smi total the catalog lacks is refused, not guessed."""
    if not spec.nvidia_smi_total_mib:
        raise UnknownGPUError(
            "--wsl2", f"kvplan's catalog has no nvidia-smi memory.total for {spec.name}, which is the total CUDA reports "
            f"under WSL2 (its {spec.total_gib:.2f} GiB is native Linux's)",
            f"give the total vLLM prints under WSL2 in GiB (nvidia-smi --query-gpu=memory.total prints MiB: divide by "
            f"1024, e.g. 24564 MiB = 23.99 GiB): --gpu "
            f"{(ref or spec.id)!r} --gpu-gib N")
    total = spec.nvidia_smi_total_mib * MIB
    return replace(spec, total_bytes=total, total_source=(
        f"under WSL2: nvidia-smi's memory.total {spec.nvidia_smi_total_mib:,} MiB, CUDA's total there "
        f"({spec.nvidia_smi_total_source})"))


def find_gpu(ref: str, *, total_bytes: int | None = None) -> GPUSpec:
    """Match a GPU name or alias forgivingly ('h100', 'A100-80GB', 'NVIDIA A100-SXM4-80GB', 'RTX 4090 24GB',
    'NVIDIA A10G (AWS g5)'). Among variants of one name, the one nearest `total_bytes` (a logged total), else the
    one nearest a size in the name ('... 80GB'), else the variant clouds rent most."""
    return _find_gpu(ref, total_bytes)[0]


# the count before the name: '4x H100', '4xH100', '8 x A100', '8 xA100', '2 × L4', '2*L4', '4xT4'; an 'x' that begins
# the Radeon suffix XT / XTX is the card's own ('7900 XTX' and the catalog's alias '7900XTX' were read as 7900 GPUs
# named 'TX')
_GPU_COUNT_PREFIX = re.compile(r"^\s*(\d+)\s*(?:[×*]|x(?!tx?\b))\s*(?=\S)", re.I)
# the count written after the name ('H100 x 8', 'A100-SXM4-80GB *4'; 'H100x2' and 'L4*4' where the name ends in a
# digit, which no catalog name followed by x and digits does), and nvidia-smi -L's index ('GPU 0: ...')
_GPU_COUNT_SUFFIX = re.compile(r"(?:\s+|(?<=\d))[x×*]\s*(\d+)\s*$", re.I)
_GPU_INDEX_PREFIX = re.compile(r"^\s*GPU\s*\d+\s*:\s*", re.I)


def _gpu_count_and_name(ref: str) -> tuple[int | None, str]:
    """(the count written with a GPU name, the name without it): '4x H100' and 'H100 x 4' -> (4, 'H100'); nvidia-smi
    -L's 'GPU 0: NVIDIA L4' -> (None, 'NVIDIA L4')."""
    ref = _GPU_INDEX_PREFIX.sub("", ref)
    m = _GPU_COUNT_PREFIX.match(ref)
    count, name = ((int(m.group(1)), ref[m.end():]) if m else (None, ref))
    m = _GPU_COUNT_SUFFIX.search(ref) if count is None else None
    if m and m.start() > 0:
        count, name = int(m.group(1)), ref[:m.start()]
    if count is not None and count > MAX_GPU_COUNT:
        raise InputError("--gpu", f"{ref.strip()!r} names {count:,} GPUs, more than any one deployment spans (at most "
                         f"{MAX_GPU_COUNT:,})", f"e.g. '8x {name.strip()}', or the GPUs one vLLM server runs on")
    return count, name


def other_speed_note(ref: str | None, gpu: GPUSpec) -> str | None:
    """Where the name given (`ref`) also describes, by its words, another catalog card of the same memory but another
    HBM bandwidth (over 10 % apart) than the one planned, a note saying which one the speeds are taken from: 'H100'
    plans the H100 SXM (3.35 TB/s), and the H100 PCIe (2.0 TB/s) answers to it too. The plan is the same for both;
    simulate's and capacity's step-time model is not (Qwen3-14B at 16,384 tokens on azure-conv: 8.82 against 5.06
    req/s per replica). None where the name is the card's alone."""
    if not ref or not gpu.hbm_bandwidth_tbps or gpu.id == "custom":
        return None
    want = set(_gpu_tokens(_gpu_count_and_name(ref)[1]))
    if not want:
        return None
    others = [g for g in gpu_catalog()
              if g.id != gpu.id and g.vendor == gpu.vendor and g.hbm_bandwidth_tbps
              and round(g.total_gib) == round(gpu.total_gib)
              and abs(g.hbm_bandwidth_tbps - gpu.hbm_bandwidth_tbps) > 0.10 * gpu.hbm_bandwidth_tbps
              and any(want <= set(_gpu_tokens(n)) for n in (g.id, g.name, *g.aliases))]
    if not others:
        return None
    named = ", ".join(f"the {g.name} ({g.hbm_bandwidth_tbps:g} TB/s; --gpu {(g.aliases or (g.id,))[0]!r})" for g in others)
    return (f"GPU {ref.strip()!r} is timed as the {gpu.name} ({gpu.hbm_bandwidth_tbps:g} TB/s); {named} answers to that "
            "name too, with the same memory but other speeds: name the card you rent to time it")


def gpu_count_in_name(name: str | None) -> int | None:
    """The count written with a GPU name ('4x H100', 'H100 x 4' -> 4), else None."""
    return _gpu_count_and_name(name or "")[0]


class WarningNote(str):
    """A note the plan shows as a warning as well (fit appends it to the plan's warnings)."""


class ChoiceNote(WarningNote):
    """An assumption that picked one card among others sold under the same name ('A100': 40 or 80 GB). The plan
    shows it as a warning as well: a plan for the wrong variant is off by the difference in memory."""


# A MIG slice as CUDA names it: the card, then "MIG" and the profile ("NVIDIA A100-SXM4-40GB MIG 3g.20gb", "NVIDIA H100
# 80GB HBM3 MIG 1g.10gb+me", a compute instance "MIG 1c.3g.20gb"). CUDA, and so vLLM, sees the slice's memory alone.
# (RTX PRO Blackwell's profiles add '+gfx', '-me' and '+me.all': mig-parted's config-default.yaml)
_MIG_SLICE = re.compile(r"\s+MIG\s+((?:\d+c\.)?\d+g\.\d+gb(?:[+-]\w+(?:\.\w+)?)?)\s*$", re.I)

# The GPU instance profiles each MIG-capable catalog card offers (without their media/graphics variants, '+me',
# '+gfx', '-me', '+me.all', which name the same slice of memory): NVIDIA's Multi-Instance GPU User Guide, 'Supported
# GPUs' and 'Supported MIG Profiles' (docs.nvidia.com/datacenter/tesla/mig-user-guide, R590), and NVIDIA/mig-parted's
# deployments/systemd/config-default.yaml @5ffc59f (per-card profile lists; GB200 HGX's two sets as that file and
# deployments/container/nvidia-mig-manager-example-hopper-blackwell.yaml @0d9252a list them). A card the guide lists
# whose profiles are not read here (B300, RTX PRO 5000/4500 Blackwell, H20-3e) is in _MIG_UNREAD: its profile is taken
# as given. A profile outside its card's list is refused (nvidia-smi mig -cgi cannot create it).
_MIG_A100_40 = ("1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb")
_MIG_80 = ("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb")
_MIG_96 = ("1g.12gb", "1g.24gb", "2g.24gb", "3g.48gb", "4g.48gb", "7g.96gb")
MIG_PROFILES: dict[str, tuple[str, ...]] = {
    "a30": ("1g.6gb", "2g.12gb", "4g.24gb"),
    **dict.fromkeys(("a100-40gb-pcie", "a100-40gb-sxm", "a800-40gb-pcie"), _MIG_A100_40),
    **dict.fromkeys(("a100-80gb-pcie", "a100-80gb-sxm", "a800-80gb-sxm", "h100-pcie", "h100-sxm", "h800-sxm",
                     "h800-pcie"), _MIG_80),
    "h100-nvl": ("1g.12gb", "1g.24gb", "2g.24gb", "3g.47gb", "4g.47gb", "7g.94gb"),
    **dict.fromkeys(("gh200-96gb", "h20"), _MIG_96),
    "h200": ("1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"),  # H200 SXM and H200 NVL alike
    **dict.fromkeys(("gh200-144gb", "gh200-141gb"), ("1g.18gb", "1g.36gb", "2g.36gb", "3g.72gb", "4g.72gb", "7g.144gb")),
    "b200": ("1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb"),
    "gb200": ("1g.23gb", "1g.24gb", "1g.47gb", "2g.47gb", "3g.93gb", "3g.95gb", "4g.93gb", "4g.95gb", "7g.186gb",
              "7g.189gb"),
    "rtx-pro-6000-blackwell": ("1g.24gb", "2g.48gb", "4g.96gb"),
}
_MIG_UNREAD = frozenset({"b300", "gb300", "rtx-pro-5000-blackwell", "rtx-pro-4500-blackwell", "h20-3e"})
_MIG_PROFILE_PARTS = re.compile(r"^(?:(\d+)c\.)?(\d+g\.\d+gb)((?:[+-]\w+(?:\.\w+)?)?)$", re.I)


def _mig_profile_refusal(parent: GPUSpec, profile: str, given: str, named: list[GPUSpec] = ()) -> UnknownGPUError | None:
    """Why `profile` ('3g.40gb', '1c.3g.40gb', '1g.10gb+me') is no MIG slice of `parent` (MIG_PROFILES), as the
    --gpu error to raise; None where it is one, or where the card's profiles are not read (_MIG_UNREAD). `named`: every
    catalog card the reference names ('A100': 40 and 80 GB), whose other profile lists the refusal gives as well."""
    if parent.id in _MIG_UNREAD or parent.vendor != "NVIDIA":
        return None
    known = MIG_PROFILES.get(parent.id)
    if known is None:
        return UnknownGPUError("--gpu", f"{given!r}: the {parent.name} has no MIG (NVIDIA's MIG user guide lists A30, "
                               "A100/A800, H100/H800, H20, H200, GH200, B200/B300, GB200 and RTX PRO Blackwell cards)",
                               f"name the card without 'MIG {profile}', or a MIG-capable card's slice (e.g. 'H100 MIG "
                               "3g.40gb' with --gpu-gib N)")
    parts = _MIG_PROFILE_PARTS.match(profile)
    instance = parts.group(2).lower() if parts else profile.lower()
    compute = int(parts.group(1)) if parts and parts.group(1) else None
    slices = int(instance.split("g.")[0]) if parts else 0
    if instance in known and (compute is None or 1 <= compute <= slices):
        return None
    why = (f"a {compute}c compute instance takes {compute} compute slices, and the {instance} GPU instance has {slices}"
           if instance in known else f"{instance} is not a MIG profile of the {parent.name}")
    # the other lists of the cards the reference names, each once: 'A100' names 40 GB cards too, whose profiles differ
    others = {} if instance in known else {MIG_PROFILES[g.id]: g.name for g in named
                                           if g.id in MIG_PROFILES and MIG_PROFILES[g.id] != known}
    if others:
        why += " nor of " + ", ".join(f"the {name}" for name in others.values())
    lists = f"its MIG profiles: {', '.join(known)}" + "".join(f"; the {name}'s: {', '.join(profiles)}"
                                                              for profiles, name in others.items())
    return UnknownGPUError("--gpu", f"{given!r}: {why}", f"{lists}; nvidia-smi mig -lgip lists a card's")


def mig_cards_named(base: str) -> list[GPUSpec]:
    """The MIG-capable catalog cards `base` names ('A100': the 40 and 80 GB cards, PCIe and SXM), in catalog order, matched
    by the name's words as --gpu matches them ('A10' is not the A100): fit's slices and `kvplan gpus 'A100 MIG'`."""
    want = set(_gpu_tokens(base))
    return [g for g in gpu_catalog() if g.id in MIG_PROFILES
            and any(want <= set(_gpu_tokens(n)) for n in (g.id, g.name, *g.aliases))]


def _mig_holders(base: str, profile: str) -> list[GPUSpec]:
    """The catalog cards `base` names ('A100': 40 and 80 GB, PCIe and SXM) whose MIG profiles hold `profile`: the
    profile's memory names the variant ('A100 MIG 3g.20gb' is a 40 GB card's slice)."""
    parts = _MIG_PROFILE_PARTS.match(profile)
    return [g for g in mig_cards_named(base) if parts.group(2).lower() in MIG_PROFILES[g.id]] if parts else []



# NVIDIA GPU Feature Discovery's node label nvidia.com/gpu.product (and nvidia.com/mig-<profile>.product under the
# mixed MIG strategy): the NVML device name with each space written '-' ('NVIDIA-L4', 'Tesla-T4',
# 'NVIDIA-A100-SXM4-80GB'); a MIG device's is its card's, then 'MIG' and the profile ('NVIDIA-A100-SXM4-40GB-MIG-1g.5gb');
# '-SHARED' ends it where time-slicing shares the GPU (NVIDIA/k8s-device-plugin internal/lm/resource.go, productLabel and
# NewMIGResourceLabeler; internal/lm/mig-strategy.go, the single and mixed strategies' resource names)
_GFD_MIG = re.compile(r"^(.+)-MIG-((?:\d+c\.)?\d+g\.\d+gb(?:[+-]\w+(?:\.\w+)?)?)$", re.I)
_GFD_SHARED = "-SHARED"


@dataclass(frozen=True)
class ProductLabel:
    """What a GPU Feature Discovery product label names in kvplan's catalog: `cards`, those whose name or an alias,
    each space written '-', is the label's device name exactly (no partial match: a label names one device as NVML
    does); `ref`, the --gpu that plans it where there is one card (its id; 'ID MIG PROFILE' for a MIG slice);
    `profile`, the MIG profile; `shared`, time-slicing's '-SHARED'."""

    value: str
    cards: tuple
    profile: str | None = None
    shared: bool = False

    @property
    def ref(self) -> str | None:
        if len(self.cards) != 1:
            return None
        return f"{self.cards[0].id} MIG {self.profile}" if self.profile else self.cards[0].id

    @property
    def name(self) -> str | None:
        if len(self.cards) != 1:
            return None
        return f"{self.cards[0].name} MIG {self.profile}" if self.profile else self.cards[0].name


def gpu_product_label(value: str) -> ProductLabel:
    """The catalog cards a nvidia.com/gpu.product label value names exactly (ProductLabel); a MIG profile the card
    does not have (MIG_PROFILES) names none."""
    device = value.strip()
    shared = device.upper().endswith(_GFD_SHARED)
    if shared:
        device = device[:-len(_GFD_SHARED)]
    mig = _GFD_MIG.match(device)
    base, profile = (mig.group(1), mig.group(2)) if mig else (device, None)
    key = base.lower()
    cards = [g for g in gpu_catalog() if any(n.replace(" ", "-").lower() == key for n in (g.name, *g.aliases))]
    if profile is not None:
        parts = _MIG_PROFILE_PARTS.match(profile)
        instance = parts.group(2).lower() if parts else profile.lower()
        cards = [g for g in cards if g.vendor == "NVIDIA" and (g.id in _MIG_UNREAD or instance in MIG_PROFILES.get(g.id, ()))]
    return ProductLabel(value, tuple(cards), profile, shared)


# AMD's node labeller (ROCm/k8s-device-plugin cmd/k8s-node-labeller/main.go, labelGenerators["product-name"], read at
# commit ed7646843003e8f0b6a0630346f01bb4d1ecff2e) labels a node amd.com/gpu.product-name (and beta.amd.com/...) with
# the card's product name (sysfs device/product_name, else libdrm's marketing name) with each space written '_' and
# '(' and ')' dropped: an MI300X node's is AMD_Instinct_MI300X_OAM (docs/user-guide/installation.md there)
_AMD_LABEL_DROPPED = str.maketrans({" ": "_", "(": None, ")": None})
# a Kubernetes label value (k8s.io/apimachinery pkg/util/validation: qualifiedNameFmt, LabelValueMaxLength 63)
_LABEL_VALUE = re.compile(r"(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?")


def amd_product_label(value: str) -> ProductLabel:
    """The catalog's AMD cards an amd.com/gpu.product-name label value names exactly (ProductLabel: a name or alias
    written as the node labeller writes it; no partial match). A value that is no Kubernetes label value (63
    characters at most, alphanumerics with '-', '_' or '.' between: the API server refuses a nodeSelector or
    affinity holding another, so no node is selected by it) names none: 'AMD_Instinct_MI250X/MI250', the catalog's
    alias written as the labeller would, was planned as the MI250X."""
    if not _LABEL_VALUE.fullmatch(value.strip()):
        return ProductLabel(value, ())
    key = value.strip().lower()
    cards = [g for g in gpu_catalog() if g.vendor == "AMD"
             and any(n.translate(_AMD_LABEL_DROPPED).lower() == key for n in (g.name, *g.aliases))]
    return ProductLabel(value, tuple(cards))

# answers kept for the length of a block (answers_kept): api.sweep_rows plans one deployment per varied value, and what
# does not depend on the values varied (the card a --gpu names, the weights on a rank) is the same in every row
_KEPT: ContextVar[dict | None] = ContextVar("kvplan_answers_kept", default=None)


@contextmanager
def answers_kept():
    """Within the block, `once` answers a question it was asked before with the answer it gave then."""
    token = _KEPT.set({})
    try:
        yield
    finally:
        _KEPT.reset(token)


def once(make, kind: str, owner: object, values: tuple):
    """make(), whose answer depends on `owner` (an object compared by identity: a ModelSpec whose configs do not take
    part in its equality) and `values` (compared by value and type) alone. Inside answers_kept() the answer given for
    the same kind, owner and values is given again; an error is raised again by make() each time."""
    kept = _KEPT.get()
    if kept is None:
        return make()
    key = (kind, id(owner), tuple((type(v), v) for v in values))
    try:
        hit = kept.get(key)
    except TypeError:  # a value that cannot be compared as a key: asked afresh
        return make()
    if hit is not None and hit[0] is owner:
        return hit[1]
    answer = make()
    kept[key] = (owner, answer)  # the owner kept alive with it: its id is not another object's while the block lasts
    return answer


def _find_gpu(ref: str, total_bytes: int | None = None, size_flag: str | None = None) -> tuple[GPUSpec, list[str]]:
    spec, notes = once(lambda: _find_gpu_in_catalog(ref, total_bytes, size_flag), "find_gpu", None,
                       (ref, total_bytes, size_flag))
    return spec, list(notes)


def _find_gpu_in_catalog(ref: str, total_bytes: int | None = None, size_flag: str | None = None) -> tuple[GPUSpec, list[str]]:
    """find_gpu, and notes: a ChoiceNote when the card was picked among variants of other memory by the cloud
    default, and what a count in the name ('2x L40S') was taken to mean. `size_flag`: the size flag given beside the
    name (resolve_gpu), which an unknown name's fix then says to use alone instead of asking for a size."""
    catalog = gpu_catalog()
    given = ref
    count, ref = _gpu_count_and_name(ref)  # "4x H100", "8 x A100", "H100 x 8": the card, not the count
    if count is not None and count < 1:
        raise UnknownGPUError("--gpu", f"{given!r} names no GPUs", "a count of 1 or more, e.g. --gpu '2x H100'")
    mig = _MIG_SLICE.search(ref)
    if mig:
        # the card and its profile first: a profile the card has not (MIG_PROFILES) is refused whatever the total
        base = ref[:mig.start()]
        parent, notes = _find_gpu(base)
        holders = _mig_holders(base, mig.group(1))
        if holders and parent not in holders:
            parent = _prefer(holders)
        if holders and len({round(g.total_gib) for g in holders}) == 1:  # the profile named the card's memory
            notes = [n for n in notes if not isinstance(n, ChoiceNote)]
        refusal = _mig_profile_refusal(parent, mig.group(1), given, mig_cards_named(base))
        if refusal is not None:
            raise refusal
        # the profile's name states a nominal size only: the memory CUDA reports for a slice differs from it (an
        # H100 NVL 1g.12gb lists 10.75 GiB in nvidia-smi mig -lgip) and is not the card's share of CUDA's total
        if total_bytes is None:
            raise UnknownGPUError("--gpu", f"{given!r} is a MIG slice ({mig.group(1)}) of the {base.strip()}: "
                                  "vLLM sees the slice's memory, which its profile name does not state exactly",
                                  "give the slice's total as vLLM logged it: --gpu-gib, or gpu.total_gib in a record")
        if total_bytes > parent.total_bytes:  # a slice is a part of its card's memory, never more than the whole
            raise UnknownGPUError(size_flag or "--gpu-gib", f"the MIG {mig.group(1)} slice's total given, "
                                  f"{total_bytes / GIB:.2f} GiB, is more than the whole {parent.name}'s "
                                  f"{parent.total_gib:.2f} GiB",
                                  "give the slice's total as vLLM logged it (y in its 'Free memory on device (x/y "
                                  "GiB)' line), or name the card the slice is cut from")
        return replace(parent, name=f"{parent.name} MIG {mig.group(1)}", total_bytes=total_bytes,
                       total_source=f"the MIG {mig.group(1)} slice's total as given"), notes
    sizeless = _sizeless_match(ref)
    if sizeless is not None:  # a card kvplan knows but holds no total for: planned on a total given, else asked
        if total_bytes is None:
            raise _sizeless_refusal(given, sizeless, size_flag)
        notes = ([f"{given.strip()!r}: {count} x {sizeless.name} available (--num-gpus {count})"] if count else [])
        return replace(sizeless, total_bytes=total_bytes, total_source=f"given: {total_bytes / GIB:.2f} GiB "
                       f"(kvplan's catalog holds none: {sizeless.total_source})"), notes
    # "H100-80G", "A100 80G": a memory size written without the B (a separate number, unlike the A10G's)
    ref = re.sub(r"(?<=[\s\-_])(\d+)\s*G\b", r"\1GB", ref, flags=re.I)
    if not _gpu_key(ref):
        raise UnknownGPUError("--gpu", f"empty GPU name {given!r}", "e.g. --gpu L4")
    size = re.search(r"(\d+)\s*GB\b", ref, re.I)
    size_bytes = int(size.group(1)) * 10 ** 9 if size else None
    # the name as given; without remarks in parentheses; then without its memory size as well
    bare = re.sub(r"\([^)]*\)", " ", ref).strip() or ref
    if size and not _gpu_key(re.sub(r"\d+\s*GB\b", " ", bare, flags=re.I)):
        # a memory size alone ('16GB', 'NVIDIA 24 GB') names no card: every card of that size matched it by its words,
        # and the largest total among them was planned (an AMD Radeon RX 9070 XT, with ROCm's rules, for '16GB')
        raise _size_alone_refusal(given, int(size.group(1)), size_flag)
    for variant in dict.fromkeys((ref, bare, re.sub(r"[-\s]*\d+\s*GB\b", " ", bare, flags=re.I).strip())):
        key = _gpu_key(variant)
        if not key:
            continue
        exact = [g for g in catalog if key in {_gpu_key(n) for n in (g.id, g.name, *g.aliases)}]
        want = set(_gpu_tokens(variant))
        cands = exact or [g for g in catalog if any(want <= set(_gpu_tokens(n)) for n in (g.id, g.name, *g.aliases))]
        laptop_note = None
        if not exact and not want & _LAPTOP_WORDS:
            cands, laptop_note = _desktop_first(variant, cands)
        by_id = [g for g in exact if g.id == variant.strip().lower()]  # a catalog id, as written, names one card
        if by_id:
            cands = exact = by_id
        if cands:
            if not (size_bytes or total_bytes or by_id):
                _check_one_size(ref, cands)
            chosen = _prefer(cands, total_bytes or size_bytes)
            own_name = exact and re.search(r"\d+\s*GB\b", variant, re.I)  # the size is part of a catalog name or alias
            if size_bytes and total_bytes is None and not own_name:
                _check_named_size(ref, chosen, size_bytes)
            others = sorted({f"{g.total_gib:.0f} GiB" for g in cands if round(g.total_gib) != round(chosen.total_gib)})
            notes: list[str] = []
            if others and not (size_bytes or total_bytes):
                notes.append(ChoiceNote(
                    f"GPU {ref!r} names cards with {', '.join(others)} as well: planning for {chosen.name} "
                    f"({chosen.total_gib:.2f} GiB), the variant clouds rent most; name the variant (e.g. its size) "
                    "to plan another"))
            if laptop_note:
                notes.append(laptop_note)
            if count:
                notes.append(f"{given.strip()!r}: {count} x {chosen.name} available (--num-gpus "
                             f"{count}); the ranks vLLM uses are still --tensor-parallel-size x "
                             "--pipeline-parallel-size x --data-parallel-size")
            return chosen, notes
    if bare.strip().lower() == "auto":  # the inverse question fit, scaffold, simulate, capacity (and the page) answer
        raise UnknownGPUError("--gpu", "auto (the smallest catalog GPU and TP that start the plan) is answered by "
                              "`kvplan fit` (and scaffold, simulate, capacity); this command plans a GPU it is given",
                              "run `kvplan fit MODEL ... --gpu auto` and give the GPU and TP it prints; from Python "
                              "(kvplan.fit(gpu='auto') arrives here), kvplan.api.smallest_gpu_and_tp(kvplan.resolve_model"
                              "(MODEL), kvplan.api.engine_args(**flags)) returns (GPU, TP, plan)")
    near = _nearest_gpu_names(bare, catalog)
    hint = f"nearest: {', '.join(near)}" if near else "see `kvplan gpus`"
    # with a size given the fix is to drop the name ('GRID A100D-20C', a vGPU profile, is no catalog card), not to give
    # the size again
    raise UnknownGPUError("--gpu", f"unknown GPU {ref!r}", f"{hint}; or leave out --gpu: {size_flag} alone plans a custom "
                          "card of that size" if size_flag else f"{hint}; or give --gpu-gib N for a custom card")


def _size_alone_refusal(given: str, gb: int, size_flag: str | None) -> UnknownGPUError:
    """--gpu given a memory size and no card: the cards of that size are named (they differ in compute capability,
    vendor and bandwidth, which the plan reads), and the size flags that plan a card by its total alone."""
    cards = sorted((g for g in gpu_catalog() if g.memory_gb_marketing == gb or f"{gb}gb" in _gpu_tokens(g.name)),
                   key=lambda g: g.name)
    named = (f"cards with {gb} GB include {', '.join(g.name for g in cards[:4])}" + (" ..." if len(cards) > 4 else "")
             if cards else f"kvplan's catalog has no card of {gb} GB")
    fix = (f"leave out --gpu: {size_flag} alone plans a custom card of that size" if size_flag else
           f"name the card (`kvplan gpus {gb}GB` lists them), or give --gpu-gb {gb} (or --gpu-gib N, the total CUDA "
           "reports) for a custom card of that size")
    return UnknownGPUError("--gpu", f"{given.strip()!r} is a memory size, not a GPU ({named})", fix)


# A notebook part's device name says so ("NVIDIA GeForce RTX 3050 Laptop GPU", as CUDA and nvidia-smi print it); the
# desktop card of the same number is another card (the desktop RTX 3050 has 8 GB, the laptop one 4)
_LAPTOP_WORDS = frozenset({"laptop", "mobile"})
_FULL_DEVICE_NAME = re.compile(r"^\s*nvidia\s+(?:geforce\s+)?rtx\b", re.I)


def _is_laptop(gpu: GPUSpec) -> bool:
    return bool(_LAPTOP_WORDS & set(_gpu_tokens(gpu.name)))


def _desktop_first(ref: str, cands: list[GPUSpec]) -> tuple[list[GPUSpec], str | None]:
    """The cards a name without 'Laptop' matches by its words: the desktop ones where there are any. Where only a
    laptop card matches, a device name as CUDA prints it ('NVIDIA GeForce RTX 3050') is refused, since the laptop
    part's own name would say 'Laptop GPU', and a short name ('RTX 4050') takes the laptop card with a note."""
    laptops = [g for g in cands if _is_laptop(g)]
    if not laptops:
        return cands, None
    desktops = [g for g in cands if not _is_laptop(g)]
    if desktops:
        return desktops, None
    names = ", ".join(sorted({g.name for g in laptops}))
    if _FULL_DEVICE_NAME.match(ref):
        raise UnknownGPUError("--gpu", f"{ref.strip()!r} is a desktop card's name that kvplan's catalog does not hold; the "
                              f"catalog has only the laptop part ({names}), whose device name says 'Laptop GPU'",
                              "give the card's total as vLLM logged it (--gpu-gib, or gpu.total_gib in a record), or "
                              "the laptop part's name if it is one")
    return laptops, (f"GPU {ref.strip()!r}: only the laptop part is in the catalog ({names}); planning for it. A desktop "
                     "card of that number is another card: give --gpu-gib N for it")


def _nearest_gpu_names(ref: str, catalog: tuple[GPUSpec, ...]) -> list[str]:
    """Up to three catalog names for an unknown GPU name: first the cards whose name holds it whole ('mi300' is in
    'MI300X', which spelling alone ranks below 'B300'), shortest first, then the closest spellings."""
    names = list(dict.fromkeys([g.name for g in catalog] + [a for g in catalog for a in g.aliases]))  # 'V100' is two cards' alias
    key = _gpu_key(ref)
    holding = [] if len(key) < 3 else sorted(  # 'a' is in half the names: a hint only from a model number
        (g for g in catalog if any(key in _gpu_key(n) for n in (g.name, *g.aliases))),
        key=lambda g: min(len(_gpu_key(n)) for n in (g.name, *g.aliases) if key in _gpu_key(n)))
    near = [g.name for g in holding]
    for name in difflib.get_close_matches(ref, names, n=3, cutoff=0.4):
        if not all(g in holding for g in catalog if name in (g.name, *g.aliases)):  # a card listed is not offered twice
            near.append(name)
    return list(dict.fromkeys(near))[:3]


def _check_one_size(ref: str, cands: list[GPUSpec]) -> None:
    """A name that several cards of different memory answer to ('RTX 4060 Ti': 8 or 16 GB, 'V100': 16 or 32 GB) is
    not resolved by guessing, unless one of them is the documented default of its family (_GPU_PREFERENCE: 'A100' is
    the 80 GB SXM card clouds rent most)."""
    sizes = {round(g.total_gib) for g in cands}
    if len(sizes) > 1 and not any(g.id in _GPU_PREFERENCE for g in cands):
        names = ", ".join(f"{g.name} ({g.total_gib:.2f} GiB)" for g in sorted(cands, key=lambda g: g.total_bytes))
        raise UnknownGPUError("--gpu", f"{ref!r} names cards with different memory: {names}",
                              "name one of them (its size, e.g. '... 16GB'), or give --gpu-gib N")
    others = sorted({gb for g in cands for gb in g.other_memory_gb})
    if others:
        g = cands[0]
        raise UnknownGPUError("--gpu", f"{ref!r} is also sold with {', '.join(map(str, others))} GB, which kvplan's catalog "
                              f"has no total for; it has {g.name} ({g.total_gib:.2f} GiB)",
                              f"name the size (e.g. '{g.name}'), or give --gpu-gib N for the other card")


def _check_named_size(ref: str, gpu: GPUSpec, size_bytes: int) -> None:
    """A size written in the name ('RTX 4090 48GB', a re-fitted card) that no catalog variant has is not the
    catalog card's: its total cannot be read from a marketing figure, so it is asked for, never assumed."""
    card_bytes = gpu.memory_gb_marketing * 10 ** 9 if gpu.memory_gb_marketing else gpu.total_bytes
    if abs(card_bytes - size_bytes) / size_bytes > 0.15:
        raise UnknownGPUError(
            "--gpu", f"{ref!r} names {size_bytes / 10 ** 9:g} GB, but kvplan's catalog has {gpu.name} with "
            f"{card_bytes / 10 ** 9:g} GB ({gpu.total_gib:.2f} GiB as CUDA reports it)",
            f"give that card's total as CUDA reports it: --gpu {gpu.id!r} --gpu-gib N (nvidia-smi's total less "
            "about 0.5 GiB)")


def _prefer(cands: list[GPUSpec], near_bytes: int | None = None) -> GPUSpec:
    def rank(g: GPUSpec) -> tuple:
        off = abs((g.total_bytes or 0) - near_bytes) / near_bytes if near_bytes and g.total_bytes else 0.0
        # sizes in names are marketing GB, totals are what CUDA reports: within 15 % counts as the same size
        return (0.0 if off <= 0.15 else off, _GPU_PREFERENCE.index(g.id) if g.id in _GPU_PREFERENCE else 99, -(g.total_bytes or 0))
    return sorted(cands, key=rank)[0]


def nvml_reserved_bytes(nvml: Any, handle: Any) -> int | None:
    """The memory the driver reserves on a GPU (NVML's v2 memory info, drivers >= 510), or None where it cannot say."""
    version = getattr(nvml, "nvmlMemory_v2", None)
    if version is None:
        return None
    try:
        return int(nvml.nvmlDeviceGetMemoryInfo(handle, version=version).reserved)
    except Exception:
        return None


# What the driver reserves when NVML cannot say (nvidia-smi's memory.total less CUDA's): the reserve the catalog's
# estimated totals take, fitted as a + b x nvidia-smi GiB over 42 cards with both totals (tools/build_catalog.py
# reserve_fit, RESERVE_OBSERVATIONS: 289 MiB + 3.22 MiB per GiB; leave-one-out error median / max 85 / 251 MiB, a flat
# 0.6 GiB's 232 / 541). tests/test_gpu_reserve_fit.py holds these to the fit.
_DRIVER_RESERVE_FIT_MIB = (288.969, 3.22104)


def estimated_driver_reserve_bytes(nvml_total_bytes: int) -> int:
    """The driver reserve (bytes) of a card whose NVML / nvidia-smi total is nvml_total_bytes, where nothing states it."""
    a, b = _DRIVER_RESERVE_FIT_MIB
    return int((a + b * nvml_total_bytes / GIB) * 1024 ** 2)


def machine_gpu(name: str, nvml_total_bytes: int, compute_capability: str,
                reserved_bytes: int | None = None, *, wsl2: bool = False) -> GPUSpec:
    """A GPU as NVML reports it on this machine, matched to the catalog, with the total vLLM will see.

    vLLM multiplies CUDA's total (torch.cuda.mem_get_info) by --gpu-memory-utilization. NVML's total includes what
    the driver reserves; less NVML's own reserved figure it is CUDA's total to the byte (an H200, driver 580.159.04,
    bench/probe_gpu.py: 150,754,820,096 - 644,939,776 = 150,109,880,320 B, torch's total). That figure is this
    machine's truth and wins over the catalog's (the reserve varies with the driver: an A10 shows 22,731 MiB under
    R470 and 23,028 MiB under R555, gpu-facts.md). Without it the total is an estimate, NVML's less the fitted reserve
    the catalog's estimated totals take (estimated_driver_reserve_bytes: 0.31 GiB on an 8 GiB card, 0.72 on a 140 GiB H200).

    Under WSL2 (`wsl2`) CUDA's total is NVML's total whole: NVML still states a reserve there (nvidia-smi -q under
    WSL: 'Total : 8188 MiB / Reserved : 240 MiB' on an RTX 4070 Laptop, https://github.com/Jesse3692/MultiLanguageLearning
    /blob/46c9289fab118c5fabceaa15f11a0d44101cef43/cuda-c/docs/nvidia-smi.md; '~232 MB' on a WSL2 RTX 4060 Laptop whose
    vLLM total is 8.0 GiB, index id 69578286789), but vLLM prints nvidia-smi's total (the sources above wsl2_gpu).
    """
    if wsl2:
        cuda_total = nvml_total_bytes
        source = (f"this machine, under WSL2: NVML's total {nvml_total_bytes / GIB:.2f} GiB, which CUDA reports whole "
                  "there (no driver reserve subtracted" + (f"; NVML states {reserved_bytes / GIB:.2f} GiB reserved"
                                                          if reserved_bytes else "") + ")")
    elif reserved_bytes is not None:
        cuda_total = nvml_total_bytes - reserved_bytes
        source = (f"this machine: NVML's total {nvml_total_bytes / GIB:.2f} GiB less the driver's reserved "
                  f"{reserved_bytes / GIB:.2f} GiB (CUDA's total)")
    else:
        reserve = estimated_driver_reserve_bytes(nvml_total_bytes)
        cuda_total = nvml_total_bytes - reserve
        source = (f"NVML total minus an estimated {reserve / 1024 ** 2:.0f} MiB driver reserve (fitted over cards with both "
                  "totals, as the catalog's estimates)")
    measured = dict(total_bytes=int(cuda_total), total_source=source)
    try:
        spec = find_gpu(name, total_bytes=nvml_total_bytes)
    except UnknownGPUError:
        return GPUSpec(id="detected", name=name, compute_capability=compute_capability, **measured)
    if abs(spec.total_bytes - nvml_total_bytes) / nvml_total_bytes > 0.15:
        # same name, other memory (an 8 GB 4060 Ti, a re-fitted 4090)
        return replace(spec, id="detected", name=f"{name} ({nvml_total_bytes / GIB:.0f} GiB)", **measured)
    if (reserved_bytes is not None or wsl2) and cuda_total != spec.total_bytes:
        other = "native Linux's" if wsl2 else "another driver's"
        return replace(spec, total_bytes=int(cuda_total),
                       total_source=f"{source}; the catalog's {spec.total_bytes / GIB:.2f} GiB is {other}")
    return spec


def running_under_wsl2() -> bool:
    """Whether this process runs in WSL2 (preflight.detect_wsl on the kernel release and /proc/version)."""
    import platform

    from kvplan.inputs import read_text_or_empty
    from kvplan.preflight import detect_wsl

    if platform.system() != "Linux":
        return False
    return detect_wsl(platform.release(), read_text_or_empty("/proc/version")) == "WSL2"


def detect_gpu(wsl2: bool | None = None) -> GPUSpec | None:
    """The first GPU NVML sees, matched to the catalog, with this machine's CUDA total where NVML states it (under
    WSL2, NVML's total: machine_gpu). `wsl2`: None reads whether this machine runs WSL2, True plans it as if so."""
    try:
        import pynvml  # nvidia-ml-py
        pynvml.nvmlInit()
    except Exception:
        return None
    try:
        if pynvml.nvmlDeviceGetCount() < 1:
            return None
        h = pynvml.nvmlDeviceGetHandleByIndex(0)
        name = pynvml.nvmlDeviceGetName(h)
        name = name.decode() if isinstance(name, bytes) else name
        total = int(pynvml.nvmlDeviceGetMemoryInfo(h).total)
        reserved = nvml_reserved_bytes(pynvml, h)
        major, minor = pynvml.nvmlDeviceGetCudaComputeCapability(h)
    except Exception:
        return None
    finally:
        try:
            pynvml.nvmlShutdown()
        except Exception:
            pass
    return machine_gpu(name, total, f"{major}.{minor}", reserved,
                       wsl2=running_under_wsl2() if wsl2 is None else wsl2)


# --------------------------------------------------------------------------- models


@dataclass(frozen=True)
class RecurrentSpec:
    """The per-sequence state of one Mamba / Gated DeltaNet / linear-attention layer (whole model, TP=1).

    kinds: "mamba1" (conv (k-1, I), ssm (I, N)); "mamba2" (conv (k-1, I + 2 G N), ssm (H, P, N));
    "gdn" (conv (k-1, 2 Hk Dk + Hv Dv), ssm (Hv, Dv, Dk)); "linear" (state (H, D, D)).
    Shapes per docs/vllm-memory-model.md section 3.1 (MambaStateShapeCalculator).
    """

    kind: str
    conv_kernel: int = 4
    intermediate: int = 0       # mamba1/mamba2 inner width I
    state_size: int = 0         # N
    n_groups: int = 1           # mamba2 G
    n_heads: int = 0            # mamba2 H, gdn Hv, linear H
    head_dim: int = 0           # mamba2 P, gdn Dv, linear D
    key_heads: int = 0          # gdn Hk
    key_head_dim: int = 0       # gdn Dk
    # the Mamba SSD kernel's chunk size (ModelConfig.get_mamba_chunk_size: mamba_chunk_size, else chunk_size, else
    # 2048; config/model.py, 0.11.1-0.27.0 wheels): the block alignment of "all" mode (plan.kv)
    chunk_size: int = 2048

    def shapes(self, tp: int, spec_tokens: int = 0) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(conv state shape, ssm state shape) on one of `tp` ranks; speculative tokens lengthen the conv state
        to (k - 1 + num_spec) rows (section 3.1)."""
        k1 = self.conv_kernel - 1 + spec_tokens
        if self.kind == "mamba1":
            return (k1, self.intermediate // tp), (self.intermediate // tp, self.state_size)
        if self.kind == "mamba2":
            groups = self.n_groups + ((tp - self.n_groups) if self.n_groups % tp else 0)
            conv = (k1, (self.intermediate + 2 * groups * self.state_size) // tp)
            return conv, (self.n_heads // tp, self.head_dim, self.state_size)
        if self.kind == "gdn":
            conv_dim = 2 * self.key_heads * self.key_head_dim + self.n_heads * self.head_dim
            return (k1, conv_dim // tp), (self.n_heads // tp, self.head_dim, self.key_head_dim)
        if self.kind == "linear":
            return (0,), (self.n_heads // tp, self.head_dim, self.head_dim)
        raise ConfigError("config", f"unknown recurrent layer kind {self.kind!r}")


def heads_per_rank(heads: int, tp: int) -> int:
    """Attention heads one of `tp` tensor-parallel ranks holds: an even share, at least one (KV heads fewer than
    the ranks are replicated, QKVParallelLinear)."""
    return max(1, heads // tp)


@dataclass(frozen=True)
class LayerSpec:
    """What one decoder layer keeps in the KV cache.

    kind: "full" (MHA/GQA/MQA), "sliding" (window), "chunked" (chunked local attention),
    "mla" (one latent head of kv_lora_rank + qk_rope_head_dim), "recurrent" (Mamba/GDN/linear
    state per sequence), "cross" (an encoder-decoder's cross-attention: the encoder output's keys and values,
    encoder_len of them per request), "none" (no cache: MLP-only layers).
    """

    kind: str
    num_kv_heads: int = 0
    head_dim: int = 0
    head_dim_v: int = 0
    window: int | None = None
    recurrent: RecurrentSpec | None = None
    compress_ratio: int = 0   # DeepSeek-V4: tokens per compressed KV state ("csa": 4, with an indexer; "hca": 128; "swa": none)
    index_head_dim: int = 0   # DeepSeek-V4 "csa" layers, DeepSeek-V3.2 "mla" layers: the lightning indexer's key size
    encoder_len: int = 0      # "cross" layers: the encoder output positions cached per request (Whisper: max_source_positions)

    @property
    def is_attention(self) -> bool:
        return self.kind in ("full", "sliding", "chunked", "mla", "csa", "hca", "swa", "cross")


@dataclass(frozen=True)
class QuantSpec:
    """Weight quantization as the checkpoint declares it."""

    method: str                 # awq, gptq, fp8, compressed-tensors, modelopt, mxfp4, bitsandbytes, ...
    bits: float                 # bits per quantized weight
    group_size: int | None = None
    scheme: str = ""            # e.g. "int4 w4a16", "nvfp4", "fp8 block 128x128"
    skip: tuple[str, ...] = ()  # module patterns left unquantized
    # "linear" (the language model's Linear layers), "experts" (MXFP4 in gpt-oss) or "all_linear" (every Linear layer
    # vLLM builds with the quantization config, the vision tower's included: online FP8, whose Fp8Config has no ignored
    # layers, quantization/fp8.py get_quant_method)
    applies_to: str = "linear"
    kv_cache_fp8: bool = False  # the checkpoint ships an FP8 KV-cache scheme
    # mixed precision (ModelOpt MIXED_PRECISION): bytes per weight by module kind; kinds not listed stay unquantized
    module_bytes: tuple[tuple[str, float], ...] = ()
    # declared only in ModelOpt's hf_quant_config.json (config.json has no quantization_config): releases before
    # versions.HF_QUANT_CONFIG_READ_SINCE serve such a checkpoint only with --quantization given
    hf_quant_config_only: bool = False
    # block-wise FP8 (quantization_config weight_block_size): one float32 weight_scale_inv per block of the weight
    weight_block: tuple[int, int] | None = None
    # compressed-tensors: the targets of the config group that holds the weights (Linear class names, layer names,
    # "re:" patterns), which vLLM's find_matched_target matches a layer against (plan.defaults._ct_quantized)
    targets: tuple[str, ...] = ()
    # bitsandbytes 4-bit with double quantization: each 64-value block's absmax is itself quantized to 8 bits, with a
    # float32 absmax per 256 blocks (bnb_4bit_use_double_quant in a checkpoint's quantization_config; vLLM's own
    # in-flight quantization always asks for it). What the loader keeps of it depends on the release
    # (versions.py "bnb_nested_absmax"; weights.bytes_per_quantized_param).
    double_quant: bool = False
    # a packed zero point per group beside each scale (AWQ and GPTQ checkpoints carry qzeros). compressed-tensors
    # symmetric integer weights have none: CompressedTensorsWNA16.create_weights registers weight_zero_point only
    # `if not self.symmetric` (quantization/compressed_tensors/schemes/compressed_tensors_wNa16.py, vLLM 0.8.5, 0.20.2
    # and 0.31.0 wheels), and the WNA16 MoE methods accept symmetric weights only ("Only symmetric quantization is
    # supported for MoE", compressed_tensors_moe_wna16.py / _wna16_marlin.py, 0.20.2) and hold no zero points
    zero_points: bool = True
    # compressed-tensors integer weights, in groups or per channel, static, with no input activations: the WNA16
    # schemes (compressed_tensors.py CompressedTensorsConfig._is_wNa16_group_channel, 0.10.2-0.33.0), whose MoE layers
    # CompressedTensorsMoEMethod.get_moe_method gives the WNA16 methods (Marlin where it runs). Read with is_ct_wna16
    weight_only: bool = False
    # compressed-tensors integer weights in groups with activation ordering ("actorder": "group" or "dynamic"): the
    # Marlin weight prep keeps a g_idx and does not pad them (plan.kv.marlin_moe_experts / marlin_dense_group)
    act_order: bool = False
    # compressed-tensors with config groups of different schemes: (target, that target's group's QuantSpec) in the
    # order vLLM's target_scheme_map holds them; () where one scheme sizes every quantized module
    group_schemes: tuple = ()
    # the quant_method the checkpoint's config names, as vLLM reads it before kvplan's aliases ("fbgemm_fp8" for a
    # checkpoint sized as fp8): the name vLLM's deprecation check asks (versions.py "deprecated_quant_methods")
    declared_method: str = ""


def is_ct_wna16(quant: "QuantSpec | None") -> bool:
    """Whether a compressed-tensors checkpoint's weights are a WNA16 scheme (integer weights only, activations left in
    the model dtype: W4A16 / W8A16), the one reading the planner's Marlin MoE terms take (plan.terms.quantized_moe_experts,
    plan.kv.marlin_moe_experts), whatever the scheme's display string says."""
    return quant is not None and quant.method == "compressed-tensors" and quant.weight_only


# --quantization bitsandbytes on an unquantized checkpoint: vLLM quantizes each Linear weight at load with bitsandbytes
# quantize_4bit(weight, compress_statistics=True, quant_type="nf4") at its default blocksize of 64
# (BitsAndBytesModelLoader._unquantized_generator: model_loader/loader.py 0.6.3-0.8.5, bitsandbytes_loader.py
# 0.9.2-0.27.0): NF4 with double-quantized statistics, whatever the release
# BitsAndBytesConfig quantizes every Linear layer built with the config, a Qwen vision tower's included
# (qwen2_5_vl.py passes it on: _maybe_ignore_quant_config drops only GPTQ configs in 0.7.3; self.quant_config in 0.20.0)
BNB_IN_FLIGHT = QuantSpec("bitsandbytes", 4, 64, "bitsandbytes 4-bit nf4, double quant (quantized at load)",
                          applies_to="all_linear", double_quant=True)


@dataclass(frozen=True)
class CheckpointWeights:
    """Tensor bytes read from checkpoint metadata (never the tensors themselves)."""

    bytes_by_dtype: tuple[tuple[str, int], ...]
    source: str
    # multi-token-prediction (MTP) modules the checkpoint also ships ("mtp.*", or DeepSeek-style layers numbered
    # past num_hidden_layers): vLLM skips them when it loads the target model and loads them as the drafter with
    # --speculative-config method mtp. Not part of bytes_by_dtype.
    mtp_bytes: int = 0
    # the output projection (lm_head.*), part of bytes_by_dtype: a pooling model converted from a *ForCausalLM
    # checkpoint deletes it and skips its tensors (vLLM model_executor/models/adapters.py)
    lm_head_bytes: int = 0
    # bytes_by_dtype is the whole checkpoint's size as given (a record's weights_bytes: the sum of the files, as vLLM's
    # "Checkpoint size" line prints it), the MTP layers the checkpoint ships still in it; mtp_bytes is then unknown (0)
    mtp_included: bool = False

    @property
    def total_bytes(self) -> int:
        return sum(b for _, b in self.bytes_by_dtype)


@dataclass(frozen=True)
class ModelSpec:
    """A model normalized for planning: the language model's shape, its layers' cache kinds,
    its quantization and (where known) its exact weight bytes."""

    id: str
    source: str
    model_type: str
    architectures: tuple[str, ...]
    dtype: str
    hidden_size: int
    num_layers: int
    num_attention_heads: int
    num_kv_heads: int
    head_dim: int
    intermediate_size: int
    vocab_size: int
    max_position_embeddings: int | None
    tie_word_embeddings: bool
    layers: tuple[LayerSpec, ...]
    revision: str | None = None
    commit: str | None = None  # the Hub commit the config was read at (whatever `revision` named), when read from the Hub
    num_experts: int = 0
    num_experts_per_tok: int = 0
    moe_intermediate_size: int = 0
    shared_expert_intermediate_size: int = 0
    quant: QuantSpec | None = None
    checkpoint: CheckpointWeights | None = None
    gated: bool | None = None
    mamba_ssm_dtype: str | None = None
    mtp_layers: int = 0           # multi-token-prediction decoder layers the checkpoint ships (drafter for method mtp)
    is_multimodal: bool = False
    is_pooling: bool = False
    is_encoder_only: bool = False  # bidirectional encoder (BERT family): vLLM keeps no KV cache for it
    # the checkpoint ships a sentence-transformers Pooling module, whose pooling mode overrides the class default
    st_pooling: bool = False
    # that module's modules.json type, exactly as written (one of ST_POOLING_MODULE_TYPES; which releases read it is
    # the rules row st_pooling_module_types); None where not known (a spec built without a modules.json read)
    st_pooling_type: str | None = None
    # that module's config.json entries vLLM may read as the mode (resolve.st_pooling_modes), in the file's order;
    # None where it was not read (a Hub checkpoint's not fetched, an unreadable file): the mode is then an assumption
    st_pooling_modes: tuple[tuple[str, Any], ...] | None = None
    # every Pooling module modules.json lists, in its order, as (type, modes) alike st_pooling_type / st_pooling_modes:
    # a release reads the first of a type it matches (plan.args.st_module_as_read); None where modules.json was not read
    st_pooling_modules: tuple[tuple[str, tuple[tuple[str, Any], ...] | None], ...] | None = None
    # why st_pooling_modes is None where that is known (resolve.st_pooling_unread): ("missing", "1_Pooling/config.json")
    # where the checkpoint has no such file, ("not_object", ...) where it is no JSON object; None where the modes were
    # read, or the file could not be asked for (no Hub)
    st_pooling_unread: tuple[str, str] | None = None
    local_dir: str | None = None  # the absolute path of a local checkpoint folder it was read from
    tokenizer: str | None = None  # a Hub id whose tokenizer serves it (a GGUF file's base model, as its metadata names it)
    notes: tuple[str, ...] = ()
    text_config: dict = field(default_factory=dict, compare=False, hash=False, repr=False)
    vision_config: dict | None = field(default=None, compare=False, hash=False, repr=False)
    raw_config: dict = field(default_factory=dict, compare=False, hash=False, repr=False)
    # what normalize() was given (the config, the raw file, its keywords), so that --hf-overrides can be applied to
    # the config and the spec derived again (apply_config_overrides)
    normalize_inputs: dict = field(default_factory=dict, compare=False, hash=False, repr=False)
    # the spec before --hf-overrides were applied to its config (None: none were)
    before_overrides: "ModelSpec | None" = field(default=None, compare=False, hash=False, repr=False)
    # --disable-sliding-window: the config's window, at which vLLM caps the derived max length (context_limit); None:
    # not given, or the config sets none (plan.planner.sliding_window_disabled)
    sliding_window_cap: int | None = None

    @property
    def is_moe(self) -> bool:
        return self.num_experts > 1

    @property
    def compressed_attention(self) -> bool:
        """DeepSeek-V4's compressed sparse attention: layers keeping compressed KV states ("csa", "hca")."""
        return any(l.kind in ("csa", "hca") for l in self.layers)

    @property
    def uses_mla(self) -> bool:
        """Some layer keeps multi-head latent attention's compressed KV (DeepSeek-V2/V3, Kimi K2, ...)."""
        return any(l.kind == "mla" for l in self.layers)

    @property
    def sparse_mla(self) -> bool:
        """DeepSeek-V3.2's sparse MLA: latent layers beside a lightning indexer's keys."""
        return any(l.kind == "mla" and l.index_head_dim for l in self.layers)

    @property
    def cache_kinds(self) -> set[str]:
        """The kinds of cache the layers keep ("none" apart)."""
        return {layer.kind for layer in self.layers if layer.kind != "none"}

    @property
    def is_encoder_decoder(self) -> bool:
        """An encoder-decoder model (Whisper) as vLLM tells one: its config's is_encoder_decoder, or its text config's
        (vllm/transformers_utils/config.py is_encoder_decoder, read by ModelConfig.is_encoder_decoder; 0.34.0 wheel)."""
        return bool(self.raw_config.get("is_encoder_decoder") or (self.text_config or {}).get("is_encoder_decoder"))

    @property
    def is_attention_free(self) -> bool:
        """No layer attends (pure Mamba2): vLLM's IsAttentionFree models, whose attn_type is "attention_free"."""
        return self.cache_kinds == {"recurrent"}

    @property
    def is_hybrid(self) -> bool:
        kinds = self.cache_kinds
        return len(kinds) > 1 or "recurrent" in kinds

    @property
    def dtype_bytes(self) -> int:
        return DTYPE_BYTES[self.dtype]

    @property
    def weights_bytes(self) -> int:
        """Whole-model weight bytes: the checkpoint's own where known, else counted at the stored precision (a
        quantized checkpoint's quantized bytes, not its bf16 count)."""
        from kvplan.weights import stored_bytes

        if self.checkpoint:
            return self.checkpoint.total_bytes
        return stored_bytes(self)

    @property
    def active_params(self) -> int:
        from kvplan.weights import count_weights

        return count_weights(self).active_params


# ---- catalog


@lru_cache(maxsize=1)
def model_catalog() -> dict[str, dict]:
    return json.loads(resources.files("kvplan.data").joinpath("models.json").read_text())


def catalog_ids() -> list[str]:
    return sorted(model_catalog())


def nearest_catalog_ids(ref: str, n: int = 3, cutoff: float = 0.4) -> list[str]:
    """Catalog ids a mistyped or shortened name most likely means: a one-letter slip of an id, then the ids that
    extend it (meta-llama/Llama-4-Scout -> ...-Scout-17B-16E-Instruct, google/gemma-3-27b -> google/gemma-3-27b-it) or
    that it extends by a suffix (Qwen/Qwen3.5-27B-Instruct -> Qwen/Qwen3.5-27B), then difflib's closest. difflib alone
    offered Qwen2.5-7B-Instruct for Qwen3.5-27B-Instruct, gemma-2-27b for gemma-3-27b and nothing for Llama-4-Scout."""
    ids = catalog_ids()
    low = ref.strip().lower()

    def name(i: str) -> str:  # the id as the ref spells it: with its org, or the name alone for a bare name
        return i.lower() if "/" in low else i.lower().split("/", 1)[-1]

    extending = sorted((i for i in ids if name(i).startswith(low) and name(i) != low), key=len) if len(low) >= 4 else []
    extended = sorted((i for i in ids if low.startswith(name(i) + "-")), key=len, reverse=True)
    # a one-letter slip of a whole id (Llama-3.1-8B-Instrcut: 0.97; gpt-oss-200b: 0.97) still comes first: a shortened
    # or suffixed name scores lower against the id difflib would pick (Qwen3.5-27B-Instruct vs Qwen2.5-7B-Instruct: 0.94)
    typos = difflib.get_close_matches(ref, ids, n=n, cutoff=max(cutoff, 0.95))
    near = typos + extending + extended + difflib.get_close_matches(ref, ids, n=n, cutoff=cutoff)
    return list(dict.fromkeys(near))[:n]


def catalog_lookup(ref: str) -> dict | None:
    cat = model_catalog()
    if ref in cat:
        return cat[ref]
    low = ref.lower()
    for k, v in cat.items():
        if k.lower() == low or k.split("/", 1)[-1].lower() == low:
            return v
    return None


def _hf_quant_config_beside(path: Path) -> Path | None:
    """The ModelOpt hf_quant_config.json that goes with a config file: in a checkpoint's layout the folder's
    hf_quant_config.json beside its config.json (as a folder reference reads it), and for a config saved under its
    model's name ('nvidia--Llama-3.1-70B-Instruct-FP8.json', as kvplan's catalog sources keep them) the file of that
    name with .hf_quant_config.json. Older ModelOpt exports declare their quantization only there: without it an FP8
    checkpoint would be planned at its 16-bit size."""
    if path.name.endswith(".hf_quant_config.json") or path.name == "hf_quant_config.json":
        return None
    candidate = path.with_name("hf_quant_config.json" if path.name == "config.json" else f"{path.stem}.hf_quant_config.json")
    return candidate if candidate.is_file() else None


def resolve_model(ref: str | None = None, *, revision: str | None = None) -> ModelSpec:
    """A model reference -> ModelSpec.

    - a local folder: config.json plus safetensors headers (exact bytes per dtype);
    - a .json file: a bare config.json;
    - a catalog id (no --revision): the embedded catalog, offline;
    - anything else shaped like org/name: the Hugging Face Hub at `revision`.
    """
    if isinstance(ref, os.PathLike):  # pathlib.Path('/content/model'), snapshot_download's folder as a Path
        ref = os.fspath(ref)
    if ref is None:
        ref = DEFAULT_MODEL
    elif not isinstance(ref, str) or not ref.strip():  # "" is a name left out by mistake, not "the default model"
        raise InputError("model", f"{ref!r} names no model", f"give a catalog id, a Hub id (org/name), {LOCAL_MODEL_REFS}; "
                         "or leave the model out for the default")
    if revision is not None and not isinstance(revision, str):  # a NumPy array's truth value was an internal error
        raise InputError("--revision", f"must be a branch, tag or commit name, got {revision!r} ({type(revision).__name__})",
                         "e.g. revision='main'")
    if ref != ref.strip() and not Path(ref).expanduser().exists():
        ref = ref.strip()  # 'Qwen/Qwen3-8B ' pasted with a space was an unknown model (nearest: Qwen/Qwen3-8B)
    path = Path(ref).expanduser()
    try:
        path.is_file()
    except OSError as exc:  # a name the file system refuses outright (too long, ...) is no model reference
        raise InputError("model", f"{ref[:40]}... is not a model reference ({exc.strerror})",
                         f"give a catalog id, a Hub id (org/name), {LOCAL_MODEL_REFS}") from None
    if path.is_dir():
        return _from_folder(path)
    if path.suffix == ".json" and path.is_file():
        config = read_json_object(path, "model")
        quant_path = _hf_quant_config_beside(path)
        hfq = read_json_object(quant_path, "hf_quant_config.json") if quant_path else None
        spec = normalize(config, model_id=local_model_id(path), source=str(path), hf_quant_config=hfq)
        if spec.quant is not None and spec.quant.hf_quant_config_only:  # (config.json's own quantization_config wins)
            spec = replace(spec, notes=spec.notes + (f"quantization read from {quant_path.name} beside the config",))
        return spec
    if path.is_file() and path.suffix.lower() == ".gguf":
        return _from_gguf(path)
    if path.is_file():  # a file kvplan does not read: say what it is, not that it is missing
        raise InputError("model", f"{ref} is a {path.suffix or 'plain'} file, not a config.json",
                         "give the checkpoint's folder (config.json and safetensors), its config.json, a .gguf file, a "
                         "catalog id or a Hub id")
    # a Hub id has one '/': 'models/qwen/config.jsn' or 'ckpts/llama/8b' is a local path that is not there (it was
    # called an unknown model, with the nearest catalog ids)
    if path.suffix == ".json" or ref.startswith((".", "/", "~")) or ref.rstrip("/").count("/") > 1:
        raise InputError("model", f"no such file or folder: {ref}", f"give a catalog id, a Hub id, {LOCAL_MODEL_REFS}")
    entry = None if revision else catalog_lookup(ref)
    if entry is not None:
        return _from_catalog(entry)
    if is_hub_id(ref):
        return _from_hub(ref, revision)
    at = re.fullmatch(r"([\w.\-]+/[\w.\-]+)@([\w.\-/]+)", ref)
    if at and is_hub_id(at.group(1)):  # 'Qwen/Qwen3-8B@main' was an unknown model with the nearest ids, itself first
        raise InputError("model", f"{ref} gives a revision after '@', which vLLM and kvplan do not read in the model id",
                         f"give the id and the revision apart: {at.group(1)} --revision {at.group(2)}")
    if re.fullmatch(r"[\w.\-]+/[\w.\-]+:(?i:(?:UD-)?(?:I?Q\d\w*|B?F16|F32))", ref):  # vLLM's repo_id:quant_type (GGUF)
        raise InputError("model", f"{ref} names a GGUF file in a Hub repository (vLLM's repo_id:quant_type form), which "
                         "kvplan does not fetch", "download that .gguf file (huggingface-cli download REPO FILE) and give "
                         "its path, or give the original model's Hub id")
    raise unknown_model(ref)


@lru_cache(maxsize=32)
def resolve_draft(ref: str, revision: str | None = None) -> ModelSpec:
    """--speculative-config's "model" (the drafter: an EAGLE/EAGLE-3 head or a small draft model) -> its ModelSpec,
    resolved like any model reference (catalog, local folder or config.json, the Hub). A reference kvplan cannot read
    is an InputError naming --speculative-config's "model"."""
    try:
        return resolve_model(ref, revision=revision)
    except KvplanError as exc:
        why = getattr(exc, "message", None) or str(exc)
        raise InputError("--speculative-config", f'"model" {ref!r}: the drafter\'s config cannot be read ({why}); '
                         "kvplan needs the draft model's own config",
                         "give the drafter as a Hub id kvplan can reach, a local folder holding its config.json, or the "
                         "path of that config.json") from None


# a Hub repository id as the Hub accepts it (huggingface_hub's validate_repo_id): ASCII letters, digits, '-', '_' and
# '.', neither starting nor ending with '-' or '.', no '--' or '..', the name at most 96 characters
_HUB_PART = r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?"
_HUB_ID = re.compile(rf"{_HUB_PART}/{_HUB_PART}")


def is_hub_id(ref: str) -> bool:
    """Whether `ref` is shaped like a Hub id (org/name) the Hub would accept: anything else is never sent to it."""
    return bool(_HUB_ID.fullmatch(ref)) and "--" not in ref and ".." not in ref


def unknown_model(ref: str) -> UnknownModelError:
    """The error for a name that is no model kvplan can find, with the nearest catalog ids."""
    near = nearest_catalog_ids(ref, n=3, cutoff=0.3)
    shown = ref if len(ref) <= 80 else ref[:77] + "..."
    return UnknownModelError("model", f"unknown model {shown!r}",
                             (f"nearest catalog ids: {', '.join(near)}; or give" if near else "give")
                             + f" a Hub id (org/name), {LOCAL_MODEL_REFS}")


def _from_catalog(entry: dict) -> ModelSpec:
    config = entry.get("resolved_config") or entry["config"]
    notes = []
    if not entry.get("resolved_config"):
        notes.append(f"transformers' AutoConfig does not know this config ({entry.get('resolve_note')}); read as the raw dict")
    if entry.get("completed"):
        done = entry["completed"]
        if done.get("wrapped_as"):  # the copy is one sub-config of the checkpoint's (tools/build_catalog.py CONFIG_WRAPS)
            notes.append(f"the catalog's config copy is the checkpoint's {done['wrapped_as']} alone: wrapped under the "
                         "checkpoint's top level (" + ", ".join(f for f in done["fields"] if f != done["wrapped_as"])
                         + ") from " + "; ".join(done["sources"]))
        else:
            notes.append(f"the catalog's config copy is an excerpt: {', '.join(done['fields'])} added from "
                         + "; ".join(done["sources"]))
    ckpt = None
    w = entry.get("weights")
    if w and w.get("params_by_dtype"):
        ckpt = CheckpointWeights(
            bytes_by_dtype=tuple((d, n * DTYPE_BYTES[d]) for d, n in w["params_by_dtype"].items()),
            source=w["source"])
    raw = entry["config"]
    spec = normalize(config, model_id=entry["id"], source=f"catalog: {entry['source']}",
                     raw=raw, hf_quant_config=entry.get("hf_quant_config"),
                     checkpoint=ckpt, gated=entry.get("gated"), autoconfig=False, extra_notes=notes)
    if ckpt is not None and not spec.tie_word_embeddings and not spec.is_pooling and spec.vocab_size:
        # the catalog keeps parameter counts by dtype, not tensor names: a generative checkpoint's own lm_head is
        # vocab x hidden in the model dtype (quantizers leave it unquantized), which --runner pooling does not load
        spec = replace(spec, checkpoint=replace(ckpt, lm_head_bytes=spec.vocab_size * spec.hidden_size * spec.dtype_bytes))
    return spec


def local_model_id(path: Path) -> str:
    """The model id a local checkpoint folder or config file stands for: the folder's name (a config.json's folder),
    else the file's stem. A snapshot in the HF cache, .../models--ORG--NAME/snapshots/COMMIT (the folder
    huggingface_hub's snapshot_download returns, which a notebook passes to vllm.LLM), is ORG/NAME, not its commit."""
    if path.is_dir() or path.name == "config.json":
        folder = path if path.is_dir() else path.parent
        repo = _hf_cache_repo(folder)
        return repo or folder.name
    return path.stem


def _hf_cache_repo(folder: Path) -> str | None:
    """ORG/NAME for a folder laid out as huggingface_hub's cache keeps a snapshot (models--ORG--NAME/snapshots/COMMIT,
    constants.REPO_ID_SEPARATOR '--'), else None."""
    parts = Path(os.path.abspath(folder)).parts
    if len(parts) >= 3 and parts[-2] == "snapshots" and parts[-3].startswith("models--") and is_commit_sha(parts[-1]):
        org_name = parts[-3][len("models--"):].split("--", 1)
        return "/".join(org_name) if all(org_name) else None
    return None


def read_safetensors_header(path: Path) -> dict:
    """The JSON header of one .safetensors file: 8-byte little-endian length, then JSON. No tensors read."""
    with open(path, "rb") as fh:
        raw = fh.read(8)
        if len(raw) < 8:
            raise ConfigError("checkpoint", f"{path.name} is too short to be a safetensors file", "re-download it")
        (n,) = struct.unpack("<Q", raw)
        if n > 100 * 1024 ** 2:
            raise ConfigError("checkpoint", f"{path.name} has an implausible header size ({n} bytes)", "re-download it")
        try:
            header = json_loads(fh.read(n))
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ConfigError("checkpoint", f"{path.name} has a corrupt header", "re-download it") from None
    # JSON, but not safetensors' {name: {"dtype", "shape", "data_offsets": [start, end]}}: the entries were read as
    # such further on, and an entry of another shape ended the command with "internal error: TypeError"
    entries = header.items() if isinstance(header, dict) else None
    bad = "its header is not a JSON object" if entries is None else next(
        (f"its header entry {name!r} is not a tensor (dtype and data_offsets [start, end])" for name, info in entries
         if name != "__metadata__" and not (
             isinstance(info, dict) and isinstance(info.get("dtype"), str)
             and isinstance(info.get("data_offsets"), list) and len(info["data_offsets"]) == 2
             and all(isinstance(x, int) and not isinstance(x, bool) for x in info["data_offsets"])
             and 0 <= info["data_offsets"][0] <= info["data_offsets"][1])), None)
    # the offsets of a real file end within it; past a pebibyte they are no file's (data_offsets [0, 1e30] planned
    # 1e30 bytes of weights, without a word)
    bad = bad or next((f"its header entry {name!r} ends at byte {info['data_offsets'][1]:,}, past any checkpoint"
                       for name, info in entries if name != "__metadata__" and info["data_offsets"][1] > MAX_MEMORY_BYTES),
                      None)
    if bad:
        raise ConfigError("checkpoint", f"{path.name} is not a safetensors file: {bad[:200]}", "re-download it")
    return header


_LAYER_INDEX = re.compile(r"(?:^|\.)layers\.(\d+)\.")


def is_mtp_tensor(name: str, num_layers: int) -> bool:
    """A multi-token-prediction tensor: Qwen3-Next/3.5 "mtp.*", or a DeepSeek/GLM layer numbered past the decoder's."""
    if name.startswith("mtp.") or ".mtp." in name or name.startswith("model.mtp"):
        return True
    m = _LAYER_INDEX.search(name)
    return bool(m and num_layers and int(m.group(1)) >= num_layers and "vision" not in name and "visual" not in name)


def checkpoint_from_tensors(tensors: Iterable[tuple[str, str, int]], config: dict, source: str) -> CheckpointWeights:
    """(name, dtype, bytes) of every tensor -> the target model's bytes by dtype, with the MTP modules apart."""
    text = config.get("text_config") if isinstance(config.get("text_config"), dict) else config
    n_layers = int(text.get("num_hidden_layers") or config.get("num_hidden_layers") or 0)
    by_dtype: dict[str, int] = {}
    mtp = lm_head = 0
    for name, dtype, nbytes in tensors:
        if is_mtp_tensor(name, n_layers):
            mtp += nbytes
        else:
            by_dtype[dtype] = by_dtype.get(dtype, 0) + nbytes
            if name.startswith(("lm_head.", "language_model.lm_head.", "model.lm_head.")):
                lm_head += nbytes
    return CheckpointWeights(tuple(sorted(by_dtype.items())), source=source, mtp_bytes=mtp, lm_head_bytes=lm_head)


def _read_modules(path: Path) -> object:
    """A sentence-transformers modules.json (a JSON list); None when it cannot be read."""
    try:
        return read_json_file(path)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None


# the modules.json types some vLLM release takes as a sentence-transformers Pooling module, matched exactly (rules row
# st_pooling_module_types: which release reads which); any other type is no Pooling module to vLLM
ST_POOLING_MODULE_TYPES = frozenset(t for types in rule_values("st_pooling_module_types") for t in types)
# the note normalize() adds for a Pooling module (plan.args.st_module_as_read drops it where the release does not read it)
ST_POOLING_NOTE = ("sentence-transformers modules.json with a Pooling module: vLLM's --runner auto serves it as a "
                   "pooling model (no lm_head, no sampler)")


def has_pooling_module(modules: object) -> bool:
    """A sentence-transformers modules.json that lists a Pooling module: vLLM's `--runner auto` then serves the
    checkpoint as a pooling model even when its architecture is a *ForCausalLM (vllm/config/model.py,
    `_get_default_runner_type`, which asks `get_pooling_config` first), where the release reads its type."""
    return _pooling_module(modules) is not None


def pooling_module_type(modules: object) -> str | None:
    """The type of the Pooling module a modules.json lists (pooling_module), exactly as written; None without one."""
    module = _pooling_module(modules)
    return str(module["type"]) if module is not None else None


def _pooling_module(modules: object) -> dict | None:
    """The first Pooling module a modules.json lists (vLLM's get_pooling_config takes the first, `next(...)`): a type
    in ST_POOLING_MODULE_TYPES, matched exactly as vLLM matches it."""
    if not isinstance(modules, list):
        return None
    return next((m for m in modules if isinstance(m, dict) and isinstance(m.get("type"), str)
                 and m["type"] in ST_POOLING_MODULE_TYPES), None)


def st_pooling_modes(modules: object, read) -> tuple[tuple[str, Any], ...] | None:
    """The entries of a sentence-transformers Pooling module's config.json that vLLM may read as its pooling mode, in
    the file's order: each key whose value is JSON true (pooling_mode_cls_token, pooling_mode_mean_tokens,
    pooling_mode_lasttoken, ... and include_prompt alike), and a string "pooling_mode" (the newer format's
    `"pooling_mode": "lasttoken"`). vLLM's transformers_utils/config.py get_pooling_config reads
    "{path}/config.json" of the first Pooling module that modules.json lists (0.9.2-0.34.0 wheels); which entry wins
    is the release's (plan.defaults.st_pooling_types). `read(relative_path)` gives the file's JSON or None. None: the
    checkpoint lists no Pooling module, or its config cannot be read (its mode then stays an assumption)."""
    module = _pooling_module(modules)
    return _module_modes(module, read) if module is not None else None


def pooling_modules(modules: object, read) -> tuple[tuple[str, tuple[tuple[str, Any], ...] | None], ...]:
    """Every Pooling module a modules.json lists (a type in ST_POOLING_MODULE_TYPES), in its order, as (type, the
    modes its config.json gives: st_pooling_modes' reading). vLLM's get_pooling_config takes the first module of a
    type the release matches (transformers_utils/config.py, 0.6.4-0.34.0 wheels), which need not be the first listed."""
    if not isinstance(modules, list):
        return ()
    return tuple((str(m["type"]), _module_modes(m, read)) for m in modules
                 if isinstance(m, dict) and isinstance(m.get("type"), str) and m["type"] in ST_POOLING_MODULE_TYPES)


def st_pooling_unread(modules: object, probe) -> tuple[str, str] | None:
    """Why the config.json of the first Pooling module modules.json lists (the one st_pooling_modes reads) gives no modes,
    where that is known: ("missing", its path) where the checkpoint has no such file, ("not_object", its path) where it
    is not a JSON object. vLLM reads it with json.load (transformers_utils/config.py get_hf_file_to_dict) and calls
    .items() on it: plan.defaults.st_pooling_types says what each release does then. `probe(relative_path)` gives
    "missing", "not_object" or None (read, or not known)."""
    module = _pooling_module(modules)
    folder = module.get("path") if module is not None else None
    if not isinstance(folder, str) or not folder.strip("/"):
        return None
    rel = f"{folder.strip('/')}/config.json"
    why = probe(rel)
    return (why, rel) if why else None


def _folder_probe(folder: Path):
    """st_pooling_unread's probe for a local checkpoint folder."""
    def probe(rel: str) -> str | None:
        if not (folder / rel).is_file():
            return "missing"
        return None if isinstance(_read_json_or_none(folder / rel), dict) else "not_object"
    return probe


def _module_modes(module: dict, read) -> tuple[tuple[str, Any], ...] | None:
    """The entries of one Pooling module's config.json vLLM may read as its mode (st_pooling_modes)."""
    folder = module.get("path")
    if not isinstance(folder, str) or not folder.strip("/"):
        return None
    data = read(f"{folder.strip('/')}/config.json")
    if not isinstance(data, dict):
        return None
    return tuple((str(k), v) for k, v in data.items() if v is True or (k == "pooling_mode" and isinstance(v, str)))


def _read_json_or_none(path: Path) -> object:
    try:
        return read_json_file(path) if path.is_file() else None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None


def _header_tensors(headers: Iterable[dict]):
    for header in headers:
        for name, info in header.items():
            if name != "__metadata__":
                start, end = info["data_offsets"]
                yield name, info["dtype"], end - start


# MTP drafters that build a layer count the config may omit: the key vLLM's drafter class reads and the count it
# takes without it. Qwen3NextMTP reads num_nextn_predict_layers, default 1, and never mtp_num_hidden_layers
# (models/qwen3_next_mtp.py, 0.10.2, 0.11.0, 0.12.0, 0.20.0, 0.33.0 wheels), so Qwen3-Next-80B-A3B's config, which
# declares neither, serves one MTP layer; Qwen3.5's drafter reads mtp_num_hidden_layers, default 1 (qwen3_5_mtp.py,
# 0.20.0, 0.33.0). Other drafters read num_nextn_predict_layers with no default (deepseek_mtp.py, glm4_moe_mtp.py).
_MTP_DEFAULT_LAYERS = {"qwen3_next": ("num_nextn_predict_layers", 1), "qwen3_5": ("mtp_num_hidden_layers", 1),
                       "qwen3_5_moe": ("mtp_num_hidden_layers", 1), "qwen3_5_text": ("mtp_num_hidden_layers", 1),
                       "qwen3_5_moe_text": ("mtp_num_hidden_layers", 1)}


# vLLM's n_predict for an MTP drafter: the count its config declares, under the key SpeculativeConfig reads for the
# model type (config/speculative.py hf_config_override, 0.33.0: num_nextn_predict_layers for DeepSeek-V3, GLM-4.5,
# MiMo, ERNIE and Qwen3-Next, mtp_num_hidden_layers for Qwen3.5, num_mtp_modules for MiniMax, each without a default
# but MiniMax's and LongCat's 1; config/__init__.py reads n_predict the same way in 0.10.2)
_MTP_N_PREDICT_DEFAULT = {"minimax_m2": ("num_mtp_modules", 1), "longcat_flash": ("num_nextn_predict_layers", 1)}


def mtp_n_predict(spec) -> int | None:
    """The MTP layer count vLLM takes as n_predict from the model's config (its num_speculative_tokens default, and the
    divisor a larger one must be a multiple of); None where the config declares none and vLLM has no default."""
    text = spec.text_config or {}
    key, default = _MTP_N_PREDICT_DEFAULT.get(spec.model_type, (
        "mtp_num_hidden_layers" if spec.model_type in _MTP_DEFAULT_LAYERS and _MTP_DEFAULT_LAYERS[spec.model_type][0]
        == "mtp_num_hidden_layers" else "num_nextn_predict_layers", None))
    n = text.get(key)
    return n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else default


def _mtp_layers(text: dict, model_type: str = "") -> int:
    """MTP decoder layers: mtp_num_hidden_layers (Qwen3.5), num_nextn_predict_layers (Qwen3-Next, DeepSeek-V3, GLM-4.5,
    MiMo), num_mtp_modules x mtp_transformer_layers (MiniMax-M2); a drafter vLLM builds with a default count
    (_MTP_DEFAULT_LAYERS) takes that count where its key is absent."""
    if model_type in _MTP_DEFAULT_LAYERS:
        key, default = _MTP_DEFAULT_LAYERS[model_type]
        n = text.get(key)
        return n if isinstance(n, int) and n > 0 else default
    for key in ("mtp_num_hidden_layers", "num_nextn_predict_layers"):
        if isinstance(text.get(key), int) and text[key] > 0:
            return text[key]
    if isinstance(text.get("num_mtp_modules"), int) and text["num_mtp_modules"] > 0:
        return text["num_mtp_modules"] * int(text.get("mtp_transformer_layers") or 1)
    return 0


def _from_folder(folder: Path) -> ModelSpec:
    cfg_path = folder / "config.json"
    if not cfg_path.is_file():
        raise InputError("model", f"{folder} has no config.json", "point at a Hugging Face checkpoint folder")
    config = read_json_object(cfg_path, "config.json")
    modules_path = folder / "modules.json"
    modules = _read_modules(modules_path) if modules_path.is_file() else None
    pooling = has_pooling_module(modules)
    ckpt, notes = folder_checkpoint(folder, config, pooling)
    quant_path = folder / "hf_quant_config.json"
    hfq = read_json_object(quant_path, "hf_quant_config.json") if quant_path.is_file() else None
    spec = normalize(config, model_id=local_model_id(folder), source=str(folder), hf_quant_config=hfq, checkpoint=ckpt,
                     sentence_transformers_pooling=pooling, extra_notes=notes)
    read = lambda rel: _read_json_or_none(folder / rel)  # noqa: E731
    modes = st_pooling_modes(modules, read) if pooling else None
    return replace(spec, local_dir=str(folder.resolve()), st_pooling_modes=modes,
                   st_pooling_type=pooling_module_type(modules),
                   st_pooling_modules=pooling_modules(modules, read) if pooling else None,
                   st_pooling_unread=st_pooling_unread(modules, _folder_probe(folder)) if pooling else None)


SAFETENSORS_INDEX = "model.safetensors.index.json"


def folder_checkpoint(folder: Path, config: dict, pooling: bool = False) -> tuple[CheckpointWeights | None, list[str]]:
    """The weights a checkpoint folder (a download, or a snapshot in the HF cache) holds, from what is on disk and
    nothing else: the safetensors headers of the files vLLM loads (_indexed_safetensors); where the shards are not
    there but model.safetensors.index.json is (a download of the *.json files alone, to plan before fetching the
    weights), the index's metadata.total_size, the tensors' bytes as the saver summed them; else None, the weights
    then counted from the architecture. The notes say which."""
    index = folder / SAFETENSORS_INDEX
    files = sorted(folder.glob("*.safetensors"))
    if index.is_file() and not _index_shards_present(folder, index):
        total, why_not = _index_total_size(index, config, pooling)
        if total:
            return (CheckpointWeights((("total_size", total),), source=f"{SAFETENSORS_INDEX} metadata.total_size in "
                                      f"{folder} (the shards are not there)"),
                    [f"weights from {SAFETENSORS_INDEX}'s metadata.total_size ({total:,} B): the weight files are not in "
                     f"{folder}, which vllm serve needs"])
        return None, [f"{folder} holds no .safetensors file and {SAFETENSORS_INDEX} {why_not}: weights counted from "
                      "the architecture; vllm serve needs the weight files there"]
    files = _indexed_safetensors(folder, files)
    if files:
        return checkpoint_from_tensors(_header_tensors(read_safetensors_header(f) for f in files), config,
                                       source=f"safetensors headers of {len(files)} file(s) in {folder}"), []
    # a config alone, as a bare config.json is: planned from the architecture, and said so
    others = sorted(p.name for p in folder.glob("*") if p.suffix in (".bin", ".pt", ".pth", ".gguf"))
    return None, [f"{folder} holds no .safetensors file: weights counted from the architecture"
                  + (f" ({', '.join(others[:3])}{', ...' if len(others) > 3 else ''} not read)" if others else
                     "; vllm serve needs the weight files there")]


def _index_shards_present(folder: Path, index: Path) -> bool:
    """Whether any file the index's weight_map names is in the folder (none: the shards were never fetched)."""
    weight_map = read_json_object(index, SAFETENSORS_INDEX).get("weight_map")
    return not isinstance(weight_map, dict) or any((folder / str(n)).is_file() for n in set(weight_map.values()))


def _index_total_size(index: Path, config: dict, pooling: bool) -> tuple[int | None, str]:
    """The index's metadata.total_size where it can stand for the target model's bytes; else (None, why not). It
    cannot where the checkpoint also ships MTP tensors (vLLM loads them apart, as the drafter: their bytes are not
    known without the headers) or where a pooling model skips its lm_head (likewise)."""
    data = read_json_object(index, SAFETENSORS_INDEX)
    total = (data.get("metadata") or {}).get("total_size") if isinstance(data.get("metadata"), dict) else None
    if isinstance(total, float) and total.is_integer():
        total = int(total)
    if isinstance(total, bool) or not isinstance(total, int) or total <= 0:
        return None, "states no metadata.total_size"
    if total > MAX_MEMORY_BYTES:  # 1e20 B was planned as the weights (a model that fits no GPU), without a word
        raise InputError("checkpoint", f"{index}: metadata.total_size {total:,} B is more than any checkpoint holds "
                         f"(at most {MAX_MEMORY_BYTES:,} B)", f"re-download {SAFETENSORS_INDEX} (the saver writes the "
                         "tensors' summed bytes there)")
    names = data.get("weight_map") if isinstance(data.get("weight_map"), dict) else {}
    text = config.get("text_config") if isinstance(config.get("text_config"), dict) else config
    layers = int(text.get("num_hidden_layers") or config.get("num_hidden_layers") or 0)
    if any(is_mtp_tensor(str(n), layers) for n in names):
        return None, "lists MTP tensors, whose bytes only the headers give"
    if pooling and any(str(n).startswith(("lm_head.", "model.lm_head.")) for n in names):
        return None, "lists an lm_head the pooling model skips, whose bytes only the headers give"
    return total, ""


def _indexed_safetensors(folder: Path, files: list[Path]) -> list[Path]:
    """The .safetensors files of a folder that vLLM loads: where model.safetensors.index.json is there, only the files
    its weight_map names (vLLM's filter_duplicate_safetensors_files, model_executor/model_loader/weight_utils.py, every
    release since 0.3: a Mistral download holds consolidated.safetensors beside the shards, which summed twice counted
    the weights twice). A file the index names that the folder lacks is an unfinished download, refused: its
    weights would be missing from the count, and vLLM's load stops."""
    index = folder / SAFETENSORS_INDEX
    if not index.is_file():
        return files
    weight_map = read_json_object(index, SAFETENSORS_INDEX).get("weight_map")
    if not isinstance(weight_map, dict) or not weight_map:
        raise ConfigError("checkpoint", f"{SAFETENSORS_INDEX} in {folder} has no weight_map", "re-download it")
    named = sorted({str(v) for v in weight_map.values()})
    missing = [n for n in named if not (folder / n).is_file()]
    if missing:
        raise ConfigError("checkpoint", f"{folder}: {SAFETENSORS_INDEX} names {len(named)} weight file(s), "
                          f"{len(missing)} of them not in the folder ({', '.join(missing[:3])}"
                          f"{', ...' if len(missing) > 3 else ''})",
                          "finish the download (e.g. huggingface-cli download ORG/NAME --local-dir FOLDER fetches "
                          "what is missing), or give the Hub id")
    return [folder / n for n in named]


# GGUF's architecture names where transformers' model_type differs (transformers' GGUF loader renames these too)
_GGUF_MODEL_TYPE = {"qwen2moe": "qwen2_moe", "qwen3moe": "qwen3_moe", "gpt-oss": "gpt_oss"}


def _gguf_fields(reader) -> dict:
    out = {}
    for name, entry in reader.fields.items():
        try:
            out[name] = entry.contents()
        except (ValueError, IndexError, TypeError):  # a field gguf cannot decode is not one kvplan reads
            continue
    return out


def _from_gguf(path: Path) -> ModelSpec:
    """A single-file GGUF checkpoint, as `vllm serve ./model.gguf` takes it. The shape comes from its metadata, named
    as config.json names it by transformers' own GGUF table (integrations/ggml.py GGUF_CONFIG_MAPPING: vLLM reads a
    GGUF's config through transformers' gguf_file loading); the weights from its tensor infos, each tensor's stored
    bytes, since vLLM keeps GGUF weights quantized on the GPU and dequantizes in its kernels
    (model_executor/layers/quantization/gguf.py). 1-D F32 tensors (norms) are held at the model's dtype, 2 bytes."""
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")  # as _autoconfig_dict: no import-time notices
    try:
        from gguf import GGUFReader
        from transformers.integrations.ggml import GGUF_CONFIG_MAPPING
        from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
    except ImportError:
        raise InputError("model", f"{path} is a GGUF file, and reading one needs the gguf package",
                         "pip install '.[gguf]' in kvplan's checkout (or pip install gguf)") from None
    try:
        reader = GGUFReader(path)
    except Exception as exc:  # the reader raises whatever its parsing meets (ValueError, struct.error, IndexError, ...)
        raise InputError("model", f"{path} is not a readable GGUF file ({type(exc).__name__}: {str(exc)[:120]})",
                         "give a complete .gguf file (a split file's parts are merged with llama.cpp's gguf-split "
                         "before vLLM serves them)") from None
    fields = _gguf_fields(reader)
    arch = str(fields.get("general.architecture") or "")
    model_type = _GGUF_MODEL_TYPE.get(arch, arch)
    mapping = GGUF_CONFIG_MAPPING.get(model_type)
    if not arch or mapping is None or model_type not in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
        known = ", ".join(sorted(k for k in GGUF_CONFIG_MAPPING if k in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES))
        raise ConfigError("general.architecture", f"{path.name}'s GGUF architecture {arch or '(none)'!r} has no "
                          "config mapping in transformers, which vLLM reads GGUF files through",
                          f"give the original safetensors checkpoint; GGUF architectures read: {known}")
    config: dict = {"model_type": model_type, "architectures": [MODEL_FOR_CAUSAL_LM_MAPPING_NAMES[model_type]]}
    for key, name in mapping.items():
        value = fields.get(f"{arch}.{key}")
        if name and value is not None:
            if isinstance(value, list):  # a per-layer list (heads per layer): one value when all agree
                if len(set(value)) != 1:
                    raise ConfigError(f"{arch}.{key}", f"{path.name} gives a different {name} per layer", "give the "
                                      "original safetensors checkpoint")
                value = value[0]
            config[name] = value
    tokens = fields.get("tokenizer.ggml.tokens")
    if "vocab_size" not in config and isinstance(tokens, list):
        config["vocab_size"] = len(tokens)
    names = {t.name for t in reader.tensors}
    config["tie_word_embeddings"] = "output.weight" not in names  # no output projection: the embedding is reused
    types = Counter(t.tensor_type.name for t in reader.tensors if len(t.shape) > 1)
    tensors = [(t.name, t.tensor_type.name, int(t.n_bytes) // 2 if t.tensor_type.name == "F32" and len(t.shape) == 1
                else int(t.n_bytes)) for t in reader.tensors]
    params = sum(math.prod(int(d) for d in t.shape) for t in reader.tensors if len(t.shape) > 1)
    stored = sum(nbytes for _, kind, nbytes in tensors if kind in types)
    bits = round(8 * stored / params, 2) if params else 0
    scheme = "gguf " + ", ".join(f"{k} x{n}" for k, n in types.most_common(3))
    config["quantization_config"] = {"quant_method": "gguf", "bits_per_weight": bits, "scheme": scheme}
    # bytes by tensor type as a safetensors folder's are summed; GGUF names the output projection output.weight
    ckpt = replace(checkpoint_from_tensors(tensors, config, source=f"GGUF tensor infos of {path.name}"),
                   lm_head_bytes=next((n for name, _, n in tensors if name == "output.weight"), 0))
    spec = normalize(config, model_id=path.stem, source=str(path), checkpoint=ckpt,
                     extra_notes=[f"GGUF: shape from {path.name}'s metadata ({arch}), weights its stored tensor bytes "
                                  f"({scheme}); no GGUF startup is among the validated records"])
    return replace(spec, local_dir=str(path.resolve()), tokenizer=_gguf_base_model(fields))  # vllm serve takes its path


def _gguf_base_model(fields: dict) -> str | None:
    """The Hub id of a GGUF file's base model, where its metadata names one (general.base_model.0.repo_url, as
    llama.cpp's converter writes it from the model card): vLLM's GGUF guide advises serving with that tokenizer
    (--tokenizer), since converting the GGUF's own is slow and unstable for large vocabularies."""
    url = str(fields.get("general.base_model.0.repo_url") or "")
    m = re.fullmatch(r"https?://huggingface\.co/([\w.\-]+/[\w.\-]+)/?", url)
    return m.group(1) if m else None


def _hub_error(exc: Exception, repo: str, revision: str | None) -> Exception:
    from huggingface_hub import errors as hf_errors

    status = getattr(getattr(exc, "response", None), "status_code", None)
    if isinstance(exc, hf_errors.GatedRepoError) or status in (401, 403):
        return GatedModelError(f"{repo} is gated or private: set HF_TOKEN", "accept the licence on the model page, then export HF_TOKEN=<a read token>")
    if isinstance(exc, hf_errors.HFValidationError):  # a name the Hub's own client refuses before asking
        return unknown_model(repo)
    if isinstance(exc, hf_errors.RevisionNotFoundError):
        return InputError("--revision", f"{repo} has no revision {revision!r}", "give a commit hash, tag or branch that exists")
    if isinstance(exc, hf_errors.RepositoryNotFoundError) or status == 404:
        near = nearest_catalog_ids(repo, n=3, cutoff=0.4)
        return UnknownModelError("model", f"{repo} was not found on the Hub",
                                 (f"nearest catalog ids: {', '.join(near)}" if near else "check the spelling (org/name)"))
    if isinstance(exc, (hf_errors.OfflineModeIsEnabled, hf_errors.LocalEntryNotFoundError)) or "offline" in str(exc).lower():
        if revision and catalog_lookup(repo) is not None:
            # the catalog's copy of the config is of no commit, so a --revision sends even a catalog id to the Hub
            # (resolve_model); "did you mean the catalog id" named the id given
            return OfflineError(f"cannot reach the Hugging Face Hub for {repo} at revision {revision}, and the HF cache "
                                "(HF_HOME) does not hold it; the catalog's copy of its config is not pinned to a commit, so "
                                "it is not read for a --revision",
                                "drop --revision to plan from the catalog's copy (then pin serve.sh's REVISION by hand), "
                                "or fetch the revision once where the Hub answers: kvplan then reads the HF cache by itself")
        # a near miss of a catalog id (a typo of its name) is named first: offline, the catalog is what resolves
        near = nearest_catalog_ids(repo, n=1, cutoff=0.85)
        return OfflineError(f"cannot reach the Hugging Face Hub for {repo}, and the HF cache (HF_HOME) does not hold it",
                            (f"did you mean the catalog id {near[0]}? " if near else "")
                            + f"use a catalog id (`kvplan models`), {LOCAL_MODEL_REFS}; "
                            "or fetch it once where the Hub answers: kvplan then reads the HF cache by itself, as "
                            "HF_HUB_OFFLINE=1 does")
    return HubError(f"the Hub failed for {repo}: {type(exc).__name__}: {str(exc)[:160]}",
                    f"retry, or use a catalog id, {LOCAL_MODEL_REFS}")


def _hub_reachable(timeout_s: float = 3.0) -> bool:
    """Whether the Hub endpoint (HF_ENDPOINT) answers a TCP connection within `timeout_s`: without one,
    huggingface_hub retries each request with backoff for half a minute before giving up."""
    import socket
    from urllib.parse import urlparse

    from huggingface_hub import constants

    url = urlparse(constants.ENDPOINT)
    try:
        with socket.create_connection((url.hostname, url.port or (443 if url.scheme == "https" else 80)), timeout=timeout_s):
            return True
    except OSError:
        return False


def _from_hub(repo: str, revision: str | None) -> ModelSpec:
    """Config and safetensors metadata through huggingface_hub (HF_TOKEN, HF_HOME, HF_HUB_OFFLINE honoured). When
    the Hub does not answer, the HF cache alone is read (as HF_HUB_OFFLINE=1 would), at once."""
    from huggingface_hub import constants, get_safetensors_metadata, hf_hub_download
    from huggingface_hub import errors as hf_errors

    notes = []
    cache_only = bool(constants.HF_HUB_OFFLINE) or not _hub_reachable()
    if cache_only and not constants.HF_HUB_OFFLINE:
        notes.append("the Hugging Face Hub did not answer: read from the local HF cache")
    try:
        cfg_file = hf_hub_download(repo, "config.json", revision=revision, local_files_only=cache_only)
    except Exception as exc:  # network, auth, not found: mapped to one clear error
        raise _hub_error(exc, repo, revision) from None
    config = read_json_object(Path(cfg_file), "config.json")
    # the HF cache keeps files under snapshots/<commit>/: the commit `revision` (None: main) pointed at; the other
    # files and the safetensors headers are read at that commit too, so the plan is of one state of the repository
    commit = Path(cfg_file).parent.name if is_commit_sha(Path(cfg_file).parent.name) else None
    revision_read = commit or revision
    hfq = None
    try:
        hfq = read_json_object(Path(hf_hub_download(repo, "hf_quant_config.json", revision=revision_read, local_files_only=cache_only)),
                               "hf_quant_config.json")
    except Exception:
        pass  # most checkpoints have none
    pooling, modes, every, unread = False, None, None, {}
    try:
        modules = _read_modules(Path(hf_hub_download(repo, "modules.json", revision=revision_read,
                                                     local_files_only=cache_only)))
        pooling = has_pooling_module(modules)
    except Exception:
        pass  # only sentence-transformers checkpoints have one
    if pooling:
        remote_missing = getattr(hf_errors, "RemoteEntryNotFoundError", hf_errors.EntryNotFoundError)

        def _hub_json(rel: str) -> object:
            try:
                path = Path(hf_hub_download(repo, rel, revision=revision_read, local_files_only=cache_only))
            except Exception as exc:  # not there (said: st_pooling_unread), or no Hub: the mode stays an assumption
                if isinstance(exc, remote_missing) and not isinstance(exc, hf_errors.LocalEntryNotFoundError):
                    unread[rel] = "missing"
                return None
            data = _read_json_or_none(path)
            if not isinstance(data, dict):
                unread[rel] = "not_object"
            return data
        modes = st_pooling_modes(modules, _hub_json)
        every = pooling_modules(modules, _hub_json)
    ckpt = None
    if cache_only:
        # the snapshot in the HF cache is a checkpoint folder: the headers of the shards it holds (a notebook's
        # snapshot_download) or its index's total_size are read there, not counted from the architecture
        try:
            ckpt, cached_notes = folder_checkpoint(Path(cfg_file).parent, config, pooling)
        except InputError as exc:  # a snapshot the cache holds only part of (an unfinished download): said, not fatal
            ckpt, cached_notes = None, [f"the HF cache's snapshot was not read ({exc.message})"]
        if ckpt is not None:
            notes += cached_notes
        else:
            notes += [n for n in cached_notes if "snapshot" in n]
            notes.append("no Hub and no weight files in the HF cache: weights counted from the architecture")
    else:
        try:
            meta = get_safetensors_metadata(repo, revision=revision_read)
            tensors = ((name, t.dtype, t.data_offsets[1] - t.data_offsets[0])
                       for fmeta in meta.files_metadata.values() for name, t in fmeta.tensors.items())
            ckpt = checkpoint_from_tensors(tensors, config, source=f"safetensors headers on the Hub ({repo}@{revision or 'main'})")
        except hf_errors.NotASafetensorsRepoError:
            notes.append("the repository has no safetensors files: weights counted from the architecture")
        except Exception as exc:
            err = _hub_error(exc, repo, revision)
            if isinstance(err, GatedModelError):
                raise err from None
            notes.append(f"safetensors metadata unavailable ({type(exc).__name__}): weights counted from the architecture")
    gated = None
    entry = catalog_lookup(repo)
    if entry is not None:
        gated = entry.get("gated")
    spec = normalize(config, model_id=repo, source=f"hub: {repo}@{revision or 'main'}" + (f" (commit {commit[:12]})" if commit and commit != revision else ""),
                     revision=revision, hf_quant_config=hfq, checkpoint=ckpt, gated=gated, extra_notes=notes,
                     sentence_transformers_pooling=pooling)
    return replace(spec, commit=commit, st_pooling_modes=modes, st_pooling_modules=every,
                   st_pooling_type=pooling_module_type(modules) if pooling else None,
                   st_pooling_unread=st_pooling_unread(modules, unread.get) if pooling else None)


def is_commit_sha(revision: str | None) -> bool:
    """A full 40-character commit hash: the only revision that cannot move (a branch or a tag can)."""
    return bool(revision) and re.fullmatch(r"[0-9a-f]{40}", revision) is not None


# ---- normalization


def _autoconfig_dict(config: dict) -> tuple[dict, str | None]:
    """transformers' AutoConfig view of `config` (defaults, layer_types), else the raw dict and why."""
    model_type = config.get("model_type")
    if not model_type:
        return config, "config has no model_type, so transformers cannot fill in defaults; read as the raw dict"
    try:
        import logging

        # transformers speaks at import time (e.g. "PyTorch was not found"), which kvplan never needs
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        from transformers import AutoConfig, logging as hf_logging

        hf_logging.set_verbosity_error()
        logging.getLogger("transformers").setLevel(logging.ERROR)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cfg = AutoConfig.for_model(model_type, **{k: v for k, v in config.items() if k != "model_type"})
        return json.loads(cfg.to_json_string(use_diff=False)), None
    except ImportError:
        return config, "transformers is not installed; read as the raw dict"
    except Exception as exc:
        try:
            from transformers.models.auto.configuration_auto import CONFIG_MAPPING

            known = model_type in CONFIG_MAPPING
        except Exception:  # a transformers without that table
            known = False
        if known:
            return config, (f"transformers' AutoConfig rejected this {model_type!r} config ({type(exc).__name__}: "
                            f"{str(exc).splitlines()[0][:120] if str(exc) else ''}); read as the raw dict")
        return config, f"transformers' AutoConfig does not know model_type {model_type!r} ({type(exc).__name__}); read as the raw dict"


def _get(cfg: dict, *names: str, default: Any = None) -> Any:
    for n in names:
        v = cfg.get(n)
        if v is not None:
            return v
    return default


def _size(cfg: dict, *names: str, default: int = 0) -> int:
    """An integer size; a per-layer list of one repeated value counts as that value, differing values are refused."""
    v = _get(cfg, *names, default=default)
    if isinstance(v, (list, tuple)):
        values = {int(x) for x in v if isinstance(x, (int, float))}
        if len(values) != 1:
            raise ConfigError(names[0], f"per-layer (or per-modality) values {list(v)[:6]} are not supported by kvplan yet",
                              "give a config with one value, or a checkpoint folder / Hub id for exact weight bytes")
        return values.pop()
    return _whole(names[0], v or 0, allow_zero=True)


def _whole(name: str, v, *, allow_zero: bool) -> int:
    """A config size as an int: a whole number (32.0 counts, 32.5 does not), positive (or 0 where absent counts)."""
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        raise ConfigError(name, f"{name} must be an integer, got {v!r}", "fix the config.json")
    try:
        f = float(v)
    except (ValueError, OverflowError):
        raise ConfigError(name, f"{name} must be an integer, got {v!r}", "fix the config.json") from None
    if not math.isfinite(f) or f != int(f):
        raise ConfigError(name, f"{name} must be a whole number, got {v!r}", "fix the config.json")
    if f < 0 or (f == 0 and not allow_zero):
        raise ConfigError(name, f"{name} must be positive, got {v!r}", "fix the config.json")
    return int(f)


# The config keys kvplan reads as numbers or names, wherever they sit (top level, text_config, vision_config,
# quantization_config, rope_scaling, ...): each must hold what the key means before anything is computed with it, so
# a hand-edited or damaged config.json is refused naming the key, never taken as far as an int() of "four" or inf.
_CONFIG_COUNTS = frozenset("""
    hidden_size d_model n_embd num_hidden_layers num_layers n_layer depth num_attention_heads n_head num_heads
    num_key_value_heads num_kv_heads multi_query_group_num kv_n_heads head_dim attention_head_dim vocab_size
    padded_vocab_size intermediate_size ffn_hidden_size n_inner ffn_dim moe_intermediate_size
    shared_expert_intermediate_size shared_intermediate_size num_experts num_local_experts n_routed_experts
    num_experts_per_tok n_shared_experts first_k_dense_replace moe_layer_freq decoder_sparse_step interleave_moe_layer_step
    max_position_embeddings original_max_position_embeddings attn_layer_period attn_layer_offset expert_layer_period
    expert_layer_offset linear_conv_kernel_dim linear_num_value_heads linear_value_head_dim linear_num_key_heads
    linear_key_head_dim mamba_head_dim mamba_d_head mamba_d_ssm mamba_d_conv conv_kernel mamba_d_state ssm_state_size
    state_size mamba_n_groups n_groups mamba_n_heads mamba_num_heads mamba2_num_heads mamba_dt_rank sliding_window
    attention_chunk_size index_head_dim index_n_heads index_topk kv_lora_rank q_lora_rank qk_rope_head_dim
    qk_nope_head_dim v_head_dim num_global_key_value_heads global_head_dim num_kv_shared_layers num_mtp_modules
    mtp_transformer_layers num_nextn_predict_layers rotary_dim hc_mult num_hash_layers bits w_bit num_bits group_size
    q_group_size in_channels num_channels out_hidden_size patch_size spatial_merge_size temporal_patch_size
    num_position_embeddings image_size deepstack_visual_indexes weight_block_size o_lora_rank o_groups mlp_only_layers
    position_embedding_size default_output_length mtp_num_hidden_layers block_structure full_attention_interval
    num_global_layers max_num_tiles vision_output_dim intermediate_size_mlp embed_dim width encoder_layers decoder_layers
    encoder_ffn_dim decoder_ffn_dim max_source_positions max_target_positions num_mel_bins
""".split())
# counts kvplan divides by or builds one entry per unit of: 0 is no such model, and past the bound a list of that
# many layers (or heads) would not fit in memory
_CONFIG_POSITIVE = frozenset("""
    num_hidden_layers num_layers n_layer depth mamba_head_dim mamba_d_head mamba_n_heads mamba_num_heads mamba2_num_heads
    mamba_n_groups n_groups patch_size spatial_merge_size temporal_patch_size linear_num_key_heads linear_num_value_heads
    weight_block_size block_structure attn_layer_period expert_layer_period decoder_sparse_step interleave_moe_layer_step
    moe_layer_freq full_attention_interval
""".split())
# read with a default when absent (MLA's head dims, a period's offset): a null there is no default, but a broken key
_CONFIG_NOT_NULL = frozenset({"qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim", "attn_layer_offset", "expert_layer_offset",
                              "linear_conv_kernel_dim", "attn_layer_period", "expert_layer_period",
                              "linear_num_value_heads", "linear_value_head_dim",
                              "linear_num_key_heads", "linear_key_head_dim"})
_CONFIG_COUNT_LISTS = frozenset({"deepstack_visual_indexes", "weight_block_size", "mlp_only_layers",
                                 "block_structure"})  # always lists (of layers, of axes)
# layer counts: kvplan builds one entry (a KV spec, a weight tally) per layer, MTP drafter layers too, so past the
# bound the plan would not end (mtp_num_hidden_layers 1e30 ran until killed)
_CONFIG_LAYER_COUNTS = frozenset({"num_hidden_layers", "num_layers", "n_layer", "depth", "mtp_num_hidden_layers",
                                  "num_nextn_predict_layers", "num_mtp_modules", "mtp_transformer_layers",
                                  "num_kv_shared_layers", "num_global_layers", "encoder_layers", "decoder_layers"})
_MAX_CONFIG_LAYERS = 100_000
_MAX_CONFIG_COUNT = 2 ** 40  # as the token counts of a workload: past any size a checkpoint has
_MAX_CONFIG_FACTOR = 1_000_000  # rope scaling factors are 2-64, expansions 2, partial rotary fractions <= 1
_CONFIG_SIGNED = frozenset({"group_size", "q_group_size"})  # -1: one group per output channel (GPTQ, AWQ)
_CONFIG_FACTORS = frozenset({"factor", "partial_rotary_factor", "mamba_expand", "expand", "mlp_ratio"})
# counts read as one number, never one per layer (_size takes a uniform per-layer list for the others): a list there
# was int()'d further on, "internal error: TypeError"
_CONFIG_SCALARS = frozenset("""
    mamba_head_dim mamba_d_head mamba_d_ssm mamba_d_conv conv_kernel mamba_d_state ssm_state_size state_size
    mamba_n_groups n_groups mamba_n_heads mamba_num_heads mamba2_num_heads mamba_dt_rank linear_conv_kernel_dim
    linear_num_value_heads linear_value_head_dim linear_num_key_heads linear_key_head_dim attn_layer_offset
    attn_layer_period global_head_dim index_head_dim index_topk kv_lora_rank mtp_transformer_layers
    num_global_key_value_heads num_mtp_modules qk_rope_head_dim sliding_window v_head_dim decoder_sparse_step
    expert_layer_offset first_k_dense_replace index_n_heads interleave_moe_layer_step moe_layer_freq n_shared_experts
    num_hash_layers num_hidden_layers q_lora_rank qk_nope_head_dim rotary_dim o_lora_rank o_groups group_size
    q_group_size out_hidden_size spatial_merge_size temporal_patch_size patch_size in_channels num_channels
    num_position_embeddings position_embedding_size default_output_length max_position_embeddings
    original_max_position_embeddings head_dim attention_head_dim mtp_num_hidden_layers full_attention_interval
    expert_layer_period
""".split())
# why a key is one number, where that is not plain from its name: said beside the refusal of a list there
_CONFIG_SCALAR_WHY = {
    # the attention head size is one number in every config class kvplan reads; a model whose full-attention layers
    # are wider says so apart: Gemma 4's global_head_dim (transformers 5.25 Gemma4TextConfig: `head_dim: int`, strict,
    # the full_attention layers' head_dim set from global_head_dim through per_layer_config); no config under
    # shared/data/models gives head_dim or global_head_dim as a list
    "head_dim": "one size for every attention layer; Gemma 4's full-attention layers take theirs from global_head_dim",
    "attention_head_dim": "one size for every attention layer",
}
_CONFIG_PAIRS = frozenset({"weight_block_size", "block_structure"})  # [rows, columns] of an FP8 weight block
# maps whose every value is an object of settings (a quantization group, a layer's ModelOpt algorithm): an entry of
# another type was read with .get() / iterated further on
_CONFIG_OBJECT_MAPS = frozenset({"config_groups", "quantized_layers"})
# keys that hold an object of settings (or null): a number there (--hf-overrides '{"rope_scaling": 5}', a damaged
# config.json) was planned as if the key were absent, and the plan said the server starts
_CONFIG_OBJECTS = frozenset({"rope_scaling", "rope_parameters", "quantization_config", "text_config", "vision_config",
                             "audio_config", "llm_config", "language_config", "thinker_config",
                             # a quantization's settings: config_groups True was "internal error: AttributeError: 'bool'
                             # object has no attribute 'values'"; a compressed-tensors group's weights 5, or
                             # kv_cache_scheme 5, was planned as if absent
                             "config_groups", "quantized_layers", "weights", "input_activations", "output_activations",
                             "kv_cache_scheme", "per_layer_config"})
_CONFIG_DTYPES = frozenset({"mamba_ssm_dtype"})  # read by name into bytes per element (plan.kv: the SSM state)
_CONFIG_NAME_LISTS = frozenset({"architectures", "modules_to_not_convert", "ignore", "ignored_layers", "exclude_modules",
                                "exclude", "targets", "layer_types", "layers_block_type"})
# one entry per decoder layer, each layer's kind (attention, sliding, Mamba, ...): the KV cache is built from them, so
# one of another length was a silent guess (a shorter list was passed over for the sliding_window / all-full default:
# gpt-oss-20b with layer_types ['sliding_attention'] planned 24 sliding layers; a short hybrid_override_pattern planned
# that many layers). transformers 5.25 refuses a layer_types of another length (PreTrainedConfig.validate_layer_type,
# under @strict: "`num_hidden_layers` must be equal to the number of `layer_types`"); NemotronHConfig._pattern_to_list
# maps each hybrid_override_pattern character (M, E, *, -; any other a KeyError)
_CONFIG_LAYER_PATTERNS = ("layer_types", "layers_block_type", "attn_type_list", "hybrid_override_pattern")
_HYBRID_PATTERN_CHARS = frozenset("ME*-")
_MTP_LAYER_KEYS = ("mtp_num_hidden_layers", "num_nextn_predict_layers", "num_mtp_modules")


# a multimodal checkpoint's encoder towers: their sizes are read as one number each (no per-layer lists, which only the
# language model's own num_key_value_heads / intermediate_size / ... may be): a list there was int()'d or multiplied
# further on, "internal error: TypeError" (exit 3) for vision_config.num_key_value_heads: [16, 16]
_TOWER_CONFIGS = frozenset({"vision_config", "audio_config", "speech_config"})


def _config_value_problem(key: str, v, tower: str | None = None) -> str | None:
    """What is wrong with config value `v` of `key` (None: nothing, or a key kvplan does not read as a number/names);
    `tower`: the encoder tower config (vision_config) the key sits in, whose counts are never per-layer lists."""
    if (tower and key in _CONFIG_COUNTS and key not in _CONFIG_COUNT_LISTS and isinstance(v, (list, tuple))):
        return f"must be a whole number (the {tower} tower's sizes are one number, not one per layer), got {v!r}"
    if key in _CONFIG_OBJECTS:
        return None if v is None or isinstance(v, dict) else f"must be an object of settings (or null), got {v!r}"
    if key in _CONFIG_DTYPES:  # a dtype's bytes are looked up by its name (DTYPE_BYTES): a number was a KeyError
        ok = v is None or (isinstance(v, str) and v.replace("torch.", "") in DTYPE_BYTES)
        return None if ok else f"must be a dtype name ({', '.join(('float32', 'bfloat16', 'float16'))}), got {v!r}"
    if key in _CONFIG_FACTORS:  # null too: a scaling dict that names its factor must give one
        # bounded: a factor multiplies a length or a width (rope's 1e308 x 4,096 overflowed int(): OverflowError)
        ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and 0 < v <= _MAX_CONFIG_FACTOR
        return None if ok else f"must be a number > 0 and at most {_MAX_CONFIG_FACTOR:,}, got {v!r}"
    if v is None:
        return "must be a whole number, got null" if key in _CONFIG_NOT_NULL else None
    if key in _CONFIG_NAME_LISTS:
        ok = isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v)
        return None if ok else f"must be a list of names, got {v!r}"
    if key not in _CONFIG_COUNTS:
        return None
    if key in _CONFIG_COUNT_LISTS and not isinstance(v, (list, tuple)):
        return f"must be a list of whole numbers, got {v!r}"
    if key in _CONFIG_SCALARS and isinstance(v, (list, tuple)):
        why = _CONFIG_SCALAR_WHY.get(key)
        return f"must be a whole number{f' ({why})' if why else ''}, got {v!r}"
    if key in _CONFIG_PAIRS and len(v) != 2:
        return f"must be two whole numbers, [rows, columns], got {v!r}"
    if isinstance(v, (list, tuple)) and not v and key not in _CONFIG_COUNT_LISTS:
        return "must be a whole number (or one per layer), got an empty list"
    if isinstance(v, (list, tuple)):  # per-layer (or per-axis) values: each one a count
        return next((f"{_count_problem(key, x)} (in {list(v)[:6]})" for x in v
                     if x is not None and _count_problem(key, x)), None)
    return _count_problem(key, v)


def _count_problem(key: str, v) -> str | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v != int(v):
        return f"must be a whole number, got {v!r}"
    least = 1 if key in _CONFIG_POSITIVE else -1 if key in _CONFIG_SIGNED else 0
    if key in _CONFIG_SIGNED and v == 0:  # no group of 0 weights: vLLM divides by it (awq.py, gptq.py: size % group_size)
        return "must be -1 (one group per output channel) or a group size of 1 or more, got 0"
    most = _MAX_CONFIG_LAYERS if key in _CONFIG_LAYER_COUNTS else _MAX_CONFIG_COUNT
    if not least <= v <= most:
        return f"must be from {least} to {most:,}, got {v!r}"
    return None


def _layer_pattern_problem(config: dict, where: str, lengths: bool) -> ConfigError | None:
    """The first per-layer pattern (layer_types, hybrid_override_pattern, ...) of `config` that is no pattern or (with
    `lengths`) has fewer entries than num_hidden_layers."""
    fix = "fix the config.json (the checkpoint's own has it right)"
    pattern = config.get("hybrid_override_pattern")
    if pattern is not None and not (isinstance(pattern, str) and pattern and set(pattern) <= _HYBRID_PATTERN_CHARS):
        key = f"{where}hybrid_override_pattern"
        return ConfigError(key, f"{key} must be a string of one letter per layer (M Mamba, * attention, - MLP, E MoE), "
                           f"got {pattern!r}", fix)
    types = config.get("attn_type_list")
    if isinstance(types, list) and not all(t in (0, 1) and not isinstance(t, bool) for t in types):
        key = f"{where}attn_type_list"
        return ConfigError(key, f"{key} must be a list of 0 (linear attention) and 1 (full attention), one per layer, "
                           f"got {types[:6]!r}", fix)
    n = config.get("num_hidden_layers")
    if not isinstance(n, int) or isinstance(n, bool):
        return None
    for name in _MTP_LAYER_KEYS:
        v = config.get(name)
        if isinstance(v, int) and not isinstance(v, bool) and v > n:
            # kvplan sizes each MTP layer's weights and KV: --hf-overrides '{"mtp_num_hidden_layers": 100000}' on a
            # 52-layer model ran for minutes (the checkpoints read declare 1 to 3)
            key = f"{where}{name}"
            return ConfigError(key, f"{key} {v:,} is more than the model's own {n} layers (num_hidden_layers): a "
                               "multi-token-prediction drafter adds a few layers (1 in the checkpoints kvplan has read)",
                               fix)
    if not lengths:
        return None
    for name in _CONFIG_LAYER_PATTERNS:
        v = config.get(name)
        # a longer one is read for its first num_hidden_layers entries, as vLLM builds each layer from its own entry
        # (--hf-overrides '{"num_hidden_layers": 4}' on a checkpoint, the way vLLM's own tests shrink a model)
        if isinstance(v, str if name == "hybrid_override_pattern" else list) and len(v) < n:
            key = f"{where}{name}"
            return ConfigError(key, f"{key} has {len(v)} {'entry' if len(v) == 1 else 'entries'} for the model's {n} "
                               "layers (num_hidden_layers): one per layer", f"{fix}; the two must agree")
    return None


def check_config_values(config: dict, where: str = "", *, pattern_lengths: bool = True) -> None:
    """ConfigError naming the first key (as a dotted path: vision_config.patch_size) whose value is not what the key
    means: a count that is not a whole number in range, a factor that is not a finite positive number, a list of
    names that is not one, a per-layer pattern short of one entry per layer. Nested objects are checked the same way.
    `pattern_lengths` False: the patterns' lengths are not checked (a config AutoConfig resolved, whose layer_types it
    derived from the file's num_hidden_layers: vLLM applies --hf-overrides '{"num_hidden_layers": N}' after that
    derivation, config.update in transformers_utils/config.py get_config, 0.33.0, and Qwen2 only asks whether the
    derived list holds more than one kind)."""
    pattern_error = _layer_pattern_problem(config, where, pattern_lengths)
    if pattern_error is not None:
        raise pattern_error
    for key, v in config.items():
        path = f"{where}{key}"
        if isinstance(v, dict) and str(key) in _CONFIG_COUNTS | _CONFIG_FACTORS | _CONFIG_NAME_LISTS | _CONFIG_DTYPES:
            # a count, factor, name list or dtype given as an object ("mamba_d_ssm": {...}) was checked as a nested
            # config and read as a number further on: "internal error: TypeError: int() argument must be ..."
            meant = ("a dtype name" if str(key) in _CONFIG_DTYPES else "a list of names" if str(key) in _CONFIG_NAME_LISTS
                     else "a number" if str(key) in _CONFIG_FACTORS else "a whole number")
            raise ConfigError(path, f"{path} must be {meant}, got an object", "fix the config.json (the checkpoint's own "
                              "has it right)")
        if isinstance(v, dict) and str(key) in _CONFIG_OBJECT_MAPS:
            bad = next((name for name, entry in v.items() if entry is not None and not isinstance(entry, dict)), None)
            if bad is not None:
                raise ConfigError(f"{path}.{bad}", f"{path}.{bad} must be an object of settings, got {v[bad]!r}",
                                  "fix the config.json (the checkpoint's own has it right)")
        if isinstance(v, dict):
            check_config_values(v, path + ".", pattern_lengths=pattern_lengths)
            continue
        top = where.split(".", 1)[0]
        problem = _config_value_problem(str(key), v, tower=top if top in _TOWER_CONFIGS else None)
        if problem:
            raise ConfigError(path, f"{path} {problem}", "fix the config.json (the checkpoint's own has it right)")


def _need_int(cfg: dict, field_name: str, *names: str) -> int:
    v = _get(cfg, *names)
    if v is None:
        raise ConfigError(field_name, f"the config has no {' / '.join(names)}", "give a complete config.json (the checkpoint's own)")
    try:
        return _whole(names[0], v, allow_zero=False)
    except ConfigError as exc:
        raise ConfigError(field_name, exc.message, exc.fix) from None


_TEXT_KEYS = ("text_config", "llm_config", "language_config", "thinker_config")
# bidirectional encoders: their attention layers are encoder-only, for which vLLM builds no KV-cache spec
# (vllm-memory-model.md section 3.1, "Encoder-only attention: no KV")
# attention-free Mamba v1 models (MambaForCausalLM, FalconMambaForCausalLM): every layer a Mamba v1 mixer, no heads
_ATTENTION_FREE_MAMBA1 = frozenset({"mamba", "falcon_mamba"})
_ENCODER_ONLY_TYPES = frozenset({"bert", "roberta", "xlm_roberta", "camembert", "distilbert", "electra", "mpnet",
                                 "modernbert", "nomic_bert", "deberta", "deberta_v2", "new", "jina_bert"})
# config keys from which a hybrid's per-layer kinds (attention, Mamba, ...) are read or derived
_LAYER_KIND_SOURCES = ("layer_types", "layers_block_type", "hybrid_override_pattern", "attn_type_list", "attn_layer_period",
                       "full_attention_interval", "layers_num_attention_heads")
_POOLING_ARCH = re.compile(r"(ForSequenceClassification|ForEmbedding|Model$|ForRewardModel|ForTokenClassification)")
# names vLLM serves as generators although they end in 'Model': its suffix table puts 'ChatModel' and 'LMHeadModel'
# (generate) before the bare 'Model' (pooling) (_SUFFIX_TO_DEFAULTS: vllm/config/__init__.py in 0.10.2,
# vllm/config/model.py in 0.11.0 and 0.33.0), and its registry lists these '*Model' classes among the text-generation and
# multimodal generators (model_executor/models/registry.py, _TEXT_GENERATION_MODELS / _MULTIMODAL_MODELS, in the 0.10.2,
# 0.11.0 and 0.33.0 wheels; AquilaModel until 0.11.0, MossAudioModel in 0.33.0)
_GENERATIVE_ARCH = re.compile(r"(CausalLM|Conditional|ChatModel$|LMHeadModel$)")
_GENERATIVE_MODEL_CLASSES = frozenset({"AquilaModel", "ChatGLMModel", "MiDashengLMModel", "MossAudioModel", "Qwen2_5OmniModel",
                                       "UltravoxModel"})
# registered pooling architectures whose names carry no pooling suffix: vLLM's registry resolves them to pooling classes
# (registry.py: JinaVLForRanking -> JinaVLForSequenceClassification, a cross-encoder from 0.10.2; GritLM, Terratorch and
# PrithviGeoSpatialMAE embedding models in 0.10.2-0.27.x, Terratorch still in 0.33.0; the late-interaction HF_ColBERT,
# ColQwen3, ColModernVBertForRetrieval from 0.17.1, ColPaliForRetrieval, ColQwen3_5, JinaForRanking from 0.20.0,
# ColUltraVBertForRetrieval in 0.33.0), so `--runner auto` pools them, checked in the 0.10.2, 0.12.0, 0.17.1, 0.20.0,
# 0.24.0, 0.29.0 and 0.33.0 wheels
_POOLING_MODEL_CLASSES = frozenset({"JinaVLForRanking", "JinaForRanking", "GritLM", "Terratorch", "PrithviGeoSpatialMAE",
                                    "HF_ColBERT", "ColQwen3", "ColQwen3_5", "ColPaliForRetrieval",
                                    "ColModernVBertForRetrieval", "ColUltraVBertForRetrieval"})


# vLLM's TerraTorch geospatial models (model_executor/models/prithvi_geospatial_mae.py PrithviGeoSpatialMAE in 0.10.1;
# terratorch.py Terratorch, PrithviGeoSpatialMAE its alias, in 0.11.0-0.14.0 and 0.33.0): IsAttentionFree pooling models
# (default_pooling_type "All" in 0.11.0 / 0.12.0; @attn_type("attention_free") from 0.13.0, which ModelConfig.
# is_chunked_prefill_supported takes as on and is_prefix_caching_supported as off, config/model.py 0.13.0) whose config
# carries a TerraTorch model description, not a transformer's shape: no KV cache for kvplan to plan (resolve.normalize)
_GEOSPATIAL_POOLING_CLASSES = frozenset({"Terratorch", "PrithviGeoSpatialMAE"})


def served_as_pooling(archs) -> bool:
    """Whether vLLM's `--runner auto` (task 'auto' before 0.10.1) serves a checkpoint of these architectures as a pooling
    model: every name a pooling one (a classifier, a reward model, a bare '*Model' backbone such as BertModel or
    Qwen2Model, a registered ranker or retriever such as JinaVLForRanking or ColPaliForRetrieval) and none a generator's
    (GPT2LMHeadModel, InternVLChatModel, ChatGLMModel, any *ForCausalLM)."""
    archs = list(archs or ())
    return (bool(archs) and all(_POOLING_ARCH.search(a) or a in _POOLING_MODEL_CLASSES for a in archs)
            and not any(_GENERATIVE_ARCH.search(a) or a in _GENERATIVE_MODEL_CLASSES for a in archs))


@lru_cache(maxsize=None)
def _attribute_map(model_type: str) -> tuple[tuple[str, str], ...]:
    """(standard name, the config's own name) pairs of transformers' config class for `model_type` (its attribute_map:
    GPT-2's hidden_size is its n_embd, MPT's num_hidden_layers its n_layers); () where transformers has no such class."""
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")  # as _autoconfig_dict: no import-time notices
    try:
        from transformers.models.auto.configuration_auto import CONFIG_MAPPING

        cls = CONFIG_MAPPING[model_type]
    except Exception:  # transformers not installed, or a model_type it does not know (remote code)
        return ()
    amap = getattr(cls, "attribute_map", None)
    return tuple((k, v) for k, v in amap.items() if isinstance(k, str) and isinstance(v, str)) if isinstance(amap, dict) else ()


# sub-dicts of MPT's and DBRX's configs that hold their attention and MLP sizes (vLLM reads attn_config["kv_n_heads"]
# for both, and DBRX's experts from ffn_config: vllm/config.py ModelConfig.get_total_num_kv_heads, models/dbrx.py)
_NESTED_SIZE_KEYS = ("attn_config", "ffn_config")


# the names the model's shape is read under; other attribute_map entries are left to the readers of their own names
# (Nemotron-H's layers_block_type, a context limit's several keys)
_SHAPE_NAMES = ("hidden_size", "num_hidden_layers", "num_attention_heads")


def _standard_names(cfg: dict) -> dict:
    """`cfg` with the shape's standard names filled in where the config spells them its own way, as vLLM reads them
    through transformers' config class (attribute access follows the class's attribute_map), plus MPT's and DBRX's attention
    and MLP sizes from their attn_config / ffn_config. An encoder-decoder config is left as it is: its attribute_map
    points the standard names at the encoder (Whisper), which holds no KV cache."""
    if cfg.get("is_encoder_decoder"):
        return cfg
    out = dict(cfg)
    # transformers' config classes are imported only for a config that lacks a standard name (about 1 s, once)
    missing = any(out.get(std) is None for std in _SHAPE_NAMES)
    for std, own in _attribute_map(str(cfg.get("model_type") or "")) if missing else ():
        if std in _SHAPE_NAMES and out.get(std) is None and out.get(own) is not None:
            out[std] = out[own]
    for key in _NESTED_SIZE_KEYS:
        if isinstance(cfg.get(key), dict):
            for k, v in cfg[key].items():
                if k not in out and isinstance(v, (int, float)) and not isinstance(v, bool):
                    out[k] = v
    return out


def _text_part(config: dict) -> tuple[dict, dict | None, bool]:
    for k in _TEXT_KEYS:
        sub = config.get(k)
        if isinstance(sub, dict) and ("hidden_size" in sub or "num_hidden_layers" in sub):
            vision = config.get("vision_config") if isinstance(config.get("vision_config"), dict) else None
            merged = dict(sub)
            for inherit in ("tie_word_embeddings", "quantization_config", "torch_dtype", "dtype"):
                if inherit not in merged and inherit in config:
                    merged[inherit] = config[inherit]
            return _standard_names(merged), vision, True
    vision = config.get("vision_config") if isinstance(config.get("vision_config"), dict) else None
    return _standard_names(config), vision, vision is not None


def normalize(config: dict, *, model_id: str, source: str, raw: dict | None = None, revision: str | None = None,
              hf_quant_config: dict | None = None, checkpoint: CheckpointWeights | None = None,
              gated: bool | None = None, autoconfig: bool = True, extra_notes: Iterable[str] = (),
              sentence_transformers_pooling: bool = False) -> ModelSpec:
    """A config dict (raw or AutoConfig-resolved) -> ModelSpec. Raises ConfigError naming what is missing.

    `sentence_transformers_pooling`: the checkpoint ships a modules.json with a Pooling module, which makes vLLM's
    `--runner auto` serve it as a pooling (embedding) model whatever its architecture says."""
    inputs = dict(config=config, model_id=model_id, source=source, raw=raw, revision=revision,
                  hf_quant_config=hf_quant_config, checkpoint=checkpoint, gated=gated, autoconfig=autoconfig,
                  extra_notes=tuple(extra_notes), sentence_transformers_pooling=sentence_transformers_pooling)
    notes = list(extra_notes)
    raw = raw or config
    for c in (raw, config):
        if not isinstance(c, dict):
            raise ConfigError("config.json", f"holds a JSON {type(c).__name__}, not an object", "give the checkpoint's config.json")
        check_config_values(c, pattern_lengths=c is raw)
    if isinstance(hf_quant_config, dict):
        # a ModelOpt export's hf_quant_config.json is read as config.json's quantization_config is (exclude_modules a
        # list of names, quantized_layers an object of settings per layer, group_size a count): it was not checked,
        # and exclude_modules 5 ended "internal error: TypeError: 'int' object is not iterable", a quantized_layers
        # entry "x" "internal error: AttributeError: 'str' object has no attribute 'get'"
        try:
            check_config_values(hf_quant_config)
        except ConfigError as exc:
            raise ConfigError(exc.field, f"in hf_quant_config.json, {exc.message}", "fix the hf_quant_config.json (the "
                              "checkpoint's own has it right)") from None
    # the shape must come from the checkpoint's own config: AutoConfig's class defaults would be a silent guess
    raw_text, _, nested = _text_part(raw)
    if nested:
        raw_text = {}  # a nested text_config may rely on its model class's defaults, as transformers and vLLM read it
        notes.append("language-model settings missing from text_config taken from transformers' defaults for its model_type")
    raw_type = str(_get(raw_text, "model_type", default=None) or _get(raw, "model_type", default=""))
    if raw_type == "whisper":
        return _whisper_spec(raw, model_id=model_id, source=source, revision=revision, checkpoint=checkpoint,
                             gated=gated, notes=notes, inputs=inputs)
    geo = next((a for a in (raw.get("architectures") or ()) if a in _GEOSPATIAL_POOLING_CLASSES), None)
    if geo:
        raise InputError("model", f"{model_id} is a TerraTorch geospatial model ({geo}), which vLLM serves (in the "
                         "releases that register it) as an attention-free pooling model: it keeps no KV cache (IsAttentionFree; from vLLM 0.13 attn_type "
                         "'attention_free', chunked prefill on and prefix caching off by default), so there is no pool, "
                         "block count or concurrency to predict, and its config states no transformer shape (hidden_size, "
                         "layers) kvplan sizes weights from", "kvplan plans decoder models; size a TerraTorch model by its "
                         "checkpoint and its input tiles")
    for field_name, names in (("hidden_size", ("hidden_size", "d_model", "n_embd")),
                              ("num_hidden_layers", ("num_hidden_layers", "num_layers", "n_layer")),
                              ("num_attention_heads", ("num_attention_heads", "n_head", "num_heads"))):
        # a pure Mamba v1 model has no attention heads to state (every layer a Mamba mixer)
        if not nested and _get(raw_text, *names) is None and not (raw_type in _ATTENTION_FREE_MAMBA1 and
                                                                   field_name == "num_attention_heads"):
            raise ConfigError(field_name, f"the config has no {' / '.join(names)}", "give a complete config.json (the checkpoint's own)")
    if autoconfig:
        config, why = _autoconfig_dict(config)
        if why:
            notes.append(why)
            warnings.warn(why, stacklevel=2)
    text, vision, multimodal = _text_part(config)
    if raw is not config:
        # the checkpoint's own values win; AutoConfig only fills what the file leaves out (and derived keys)
        raw_part = _text_part(raw)[0]
        text = {**text, **{k: v for k, v in raw_part.items() if v is not None and k not in _TEXT_KEYS}}
    model_type = str(_get(text, "model_type", default=None) or _get(config, "model_type", default="unknown"))
    archs = tuple(_get(config, "architectures", default=None) or _get(text, "architectures", default=None) or ())

    hidden = _need_int(text, "hidden_size", "hidden_size", "d_model", "n_embd")
    n_layers = _need_int(text, "num_hidden_layers", "num_hidden_layers", "num_layers", "n_layer")
    n_heads = (1 if raw_type in _ATTENTION_FREE_MAMBA1 and _get(text, "num_attention_heads", "n_head", "num_heads") is None
               else _need_int(text, "num_attention_heads", "num_attention_heads", "n_head", "num_heads"))
    n_kv = _size(text, "num_key_value_heads", "num_kv_heads", "multi_query_group_num", "kv_n_heads", default=n_heads)
    if _get(text, "multi_query", default=False) and "num_key_value_heads" not in text:
        n_kv = 1
    if n_kv < 1 or n_kv > n_heads or n_heads % n_kv:
        raise ConfigError("num_key_value_heads", f"{n_kv} key/value heads for {n_heads} attention heads: each KV head "
                          "serves a whole group of query heads", "fix the config.json (num_key_value_heads divides "
                          "num_attention_heads)")
    head_dim = _size(text, "head_dim", "attention_head_dim")
    if not head_dim:
        if hidden % n_heads:
            raise ConfigError("head_dim", f"no head_dim, and hidden_size {hidden} is not a multiple of "
                              f"num_attention_heads {n_heads}", "fix the config.json (give head_dim)")
        head_dim = hidden // n_heads
    vocab = _size(text, "vocab_size", "padded_vocab_size") or _size(config, "vocab_size")
    inter = _size(text, "intermediate_size", "ffn_hidden_size", "n_inner", "ffn_dim") or _mlp_width(text, model_type, hidden)
    dtype = str(_get(text, "torch_dtype", "dtype", default=None) or _get(config, "torch_dtype", "dtype", default="bfloat16"))
    dtype = dtype.replace("torch.", "")
    if dtype not in DTYPE_BYTES:
        notes.append(f"checkpoint dtype {dtype!r} not recognised: bfloat16 assumed")
        dtype = "bfloat16"
    tie = bool(_get(text, "tie_word_embeddings", default=_get(config, "tie_word_embeddings", default=False)))
    max_pos = _max_position(text)

    n_experts = _size(text, "num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts")
    # Gemma 4 names its routed experts per token top_k_experts: vLLM builds its MoE block with
    # FusedMoE(num_experts=config.num_experts, top_k=config.top_k_experts, ...) (model_executor/models/gemma4.py,
    # Gemma4MoE.__init__, read in the 0.20.2 and 0.25.1 wheels)
    top_k = _size(text, "num_experts_per_tok", "experts_per_token", "moe_top_k", "num_experts_per_token", "top_k_experts")
    moe_inter = _size(text, "moe_intermediate_size", "expert_intermediate_size")
    if n_experts and not moe_inter:
        moe_inter = inter
    shared_inter = _size(text, "shared_expert_intermediate_size", "shared_intermediate_size")
    if not shared_inter and _get(text, "n_shared_experts", default=0):
        shared_inter = int(text["n_shared_experts"]) * moe_inter
    if not shared_inter and n_experts and model_type.startswith("llama4"):
        # Llama 4's MoE layers hold one shared expert beside the routed ones, as wide as a routed expert: vLLM's
        # Llama4MoE builds shared_expert = LlamaMLP(intermediate_size=config.intermediate_size) (n_shared_experts = 1;
        # vllm/model_executor/models/llama4.py, the same in the 0.10.0, 0.19.0, 0.29.0 and 0.33.0 wheels); the config
        # names no shared-expert size
        shared_inter = moe_inter

    layers = _layer_specs(text, model_type, n_layers, n_kv, head_dim, notes)
    kinds = sorted({l.kind for l in layers})
    if (not nested and "recurrent" in kinds and model_type not in ("falcon_h1", "mamba", "mamba2", "falcon_mamba")
            and not any(raw_text.get(k) is not None for k in _LAYER_KIND_SOURCES)):
        # a hybrid's layer pattern is the whole KV question: say when it came from a class default
        notes.append(f"the config does not say which layers are attention and which recurrent: transformers' default "
                     f"for {model_type} was used ({', '.join(kinds)}); give the checkpoint's own config.json to be sure")
    quant = _quant_spec(text, hf_quant_config, notes)
    declared_qc = text.get("quantization_config")
    declared = str(declared_qc.get("quant_method") or "").lower() if isinstance(declared_qc, dict) else ""
    if quant is not None and declared and declared != quant.method:
        quant = replace(quant, declared_method=declared)
    pooling = served_as_pooling(archs)
    encoder_only = (model_type.replace("-", "_") in _ENCODER_ONLY_TYPES or _get(text, "is_causal", default=True) is False
                    or any(a.endswith("ForMaskedLM") for a in archs))
    if sentence_transformers_pooling and not pooling:
        pooling = True
        notes.append(ST_POOLING_NOTE)
    return ModelSpec(
        id=model_id, source=source, revision=revision, model_type=model_type, architectures=archs, dtype=dtype,
        hidden_size=hidden, num_layers=n_layers, num_attention_heads=n_heads, num_kv_heads=n_kv, head_dim=head_dim,
        intermediate_size=inter, vocab_size=vocab, max_position_embeddings=max_pos, tie_word_embeddings=tie,
        layers=layers, num_experts=n_experts, num_experts_per_tok=top_k, moe_intermediate_size=moe_inter,
        shared_expert_intermediate_size=shared_inter, quant=quant, checkpoint=checkpoint, gated=gated,
        mamba_ssm_dtype=_get(text, "mamba_ssm_dtype", default=None), is_multimodal=multimodal, is_pooling=pooling or encoder_only,
        is_encoder_only=encoder_only,
        st_pooling=sentence_transformers_pooling,
        mtp_layers=_mtp_layers(text, model_type),
        notes=tuple(notes), text_config=text, vision_config=vision, raw_config=raw, normalize_inputs=inputs,
    )


def _whisper_spec(raw: dict, *, model_id: str, source: str, revision: str | None, checkpoint: CheckpointWeights | None,
                  gated: bool | None, notes: list[str], inputs: dict) -> ModelSpec:
    """A Whisper checkpoint (WhisperForConditionalGeneration) as vLLM builds it (model_executor/models/whisper.py,
    0.11.0 and 0.34.0 wheels). Its KV cache is the decoder's: each of decoder_layers WhisperDecoderLayer holds a causal
    self-attention (AttentionType.DECODER: a FullAttentionSpec) and a cross-attention over the encoder output
    (WhisperCrossAttention, a CrossAttentionSpec), both with decoder_attention_heads heads of d_model / heads (no GQA:
    num_kv_heads = num_heads; WhisperAttention raises "embed_dim must be divisible by num_heads"). The encoder
    (encoder_layers, encoder_attention_heads) keeps no KV cache; its output is max_source_positions positions (1500
    for 30 s of audio: WhisperProcessingInfo.get_num_audio_tokens). The context limit is max_target_positions (one of
    the keys ModelConfig's _get_and_verify_max_len reads, "# Whisper")."""
    def need(name: str) -> int:
        value = raw.get(name)
        if value is None:
            raise ConfigError(name, f"the Whisper config has no {name}", "give the checkpoint's own config.json")
        return _whole(name, value, allow_zero=False)

    hidden = need("d_model")
    n_layers, heads = need("decoder_layers"), need("decoder_attention_heads")
    for name in ("encoder_layers", "encoder_attention_heads", "decoder_ffn_dim", "encoder_ffn_dim", "vocab_size",
                 "max_source_positions", "max_target_positions", "num_mel_bins"):
        need(name)
    for name, h in (("decoder_attention_heads", heads), ("encoder_attention_heads", need("encoder_attention_heads"))):
        if hidden % h:
            raise ConfigError(name, f"d_model {hidden} is not a multiple of {name} {h}: vLLM refuses it (whisper.py "
                              f"WhisperAttention: \"embed_dim must be divisible by num_heads\")", "fix the config.json")
    head_dim = hidden // heads
    dtype = str(raw.get("torch_dtype") or raw.get("dtype") or "float32").replace("torch.", "")
    if dtype not in DTYPE_BYTES:
        raise ConfigError("torch_dtype", f"checkpoint dtype {dtype!r} not recognised", "fix the config.json")
    enc_len = need("max_source_positions")
    layers = tuple([LayerSpec("full", heads, head_dim)] * n_layers
                   + [LayerSpec("cross", heads, head_dim, encoder_len=enc_len)] * n_layers)
    notes.append(f"Whisper: {n_layers} decoder layers each cache self-attention keys/values per token and "
                 f"cross-attention keys/values of the encoder's {enc_len} output positions per request; the "
                 f"{raw['encoder_layers']}-layer encoder caches none")
    return ModelSpec(
        id=model_id, source=source, revision=revision, model_type="whisper",
        architectures=tuple(raw.get("architectures") or ("WhisperForConditionalGeneration",)), dtype=dtype,
        hidden_size=hidden, num_layers=n_layers, num_attention_heads=heads, num_kv_heads=heads, head_dim=head_dim,
        intermediate_size=need("decoder_ffn_dim"), vocab_size=need("vocab_size"),
        max_position_embeddings=need("max_target_positions"), tie_word_embeddings=True, layers=layers,
        checkpoint=checkpoint, gated=gated, is_multimodal=False, notes=tuple(notes), text_config=raw, raw_config=raw,
        normalize_inputs=inputs,
    )


# MLP widths vLLM's model classes derive from the hidden size when the config gives none: GPT-2, GPT-J and GPTBigCode
# take n_inner or else 4 x hidden, BLOOM always 4 x hidden, MPT expansion_ratio x hidden (vLLM 0.6.3-0.33
# model_executor/models: gpt2.py GPT2Block, gpt_j.py GPTJBlock, gpt_bigcode.py GPTBigCodeBlock, bloom.py BloomMLP, mpt.py
# MPTMLP)
_MLP_WIDTH_X_HIDDEN = {"gpt2": 4, "gptj": 4, "gpt_bigcode": 4, "bloom": 4}


def _mlp_width(text: dict, model_type: str, hidden: int) -> int:
    """The MLP width a config leaves to its model class (_MLP_WIDTH_X_HIDDEN, MPT's expansion_ratio); 0 if none."""
    if model_type == "mpt" and text.get("expansion_ratio"):
        return _whole("expansion_ratio", text["expansion_ratio"] * hidden, allow_zero=False)
    return _MLP_WIDTH_X_HIDDEN.get(model_type, 0) * hidden


# the keys vLLM reads a config's context length from, in its order (vllm/config.py _get_and_verify_max_len, 0.4-0.10;
# vllm/config/model.py from 0.11): the smallest one stated is the length
_LENGTH_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
                "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len")


def _max_position(text: dict) -> int | None:
    """The context length a config states, as vLLM reads it: the smallest of _LENGTH_KEYS; None when it states none."""
    stated = [v for k in _LENGTH_KEYS if isinstance(v := text.get(k), int) and not isinstance(v, bool) and v > 0]
    return min(stated) if stated else None


# what vLLM assumes when a config states no length ("Assuming the model's maximum length is 2048"); the rope types
# whose factor it does not apply to the stated length are the release's (rules row rope_unscaled_types)
DEFAULT_MAX_MODEL_LEN = 2048


@dataclass(frozen=True)
class ContextLimit:
    """The longest max_model_len vLLM accepts without VLLM_ALLOW_LONG_MAX_MODEL_LEN, how it came about, and a LongRoPE
    model's original length (which newer releases serve by default). `stated` False: the config gives no length at
    all, and vLLM takes a --max-model-len given as it is (_get_and_verify_max_len returns it before assuming
    DEFAULT_MAX_MODEL_LEN, vllm/config.py 0.4-0.10, vllm/config/model.py from 0.11): `tokens` is only its default."""
    tokens: int
    how: str
    longrope_original: int | None = None
    stated: bool = True


def rope_params(text_config: dict) -> dict:
    """The text config's rope dict: `rope_scaling` as a transformers 4 checkpoint writes it, or `rope_parameters`,
    where transformers 5 moves it (Qwen3-VL's {"mrope_interleaved": true, "mrope_section": [24, 20, 20], ...} comes
    back from AutoConfig as rope_parameters with rope_theta added). The one naming an mrope_section wins: vLLM builds
    its multimodal rotary embedding from that key (0.11.0 transformers_utils/config.py uses_mrope and
    layers/rotary_embedding/__init__.py get_rope read rope_scaling["mrope_section"]; later releases read the same
    dict under rope_parameters). Transformers 5's per-layer-type form ({"full_attention": {...}, ...}) is searched
    for one and otherwise returned as it is. {} when the config has neither key."""
    found = [r for r in (text_config.get("rope_scaling"), text_config.get("rope_parameters")) if isinstance(r, dict) and r]
    for rope in found:
        nested = all(isinstance(v, dict) for v in rope.values())
        for r in (rope.values() if nested else [rope]):
            if r.get("mrope_section"):
                return r
    return found[0] if found else {}


def sliding_window_of(text_config: dict) -> int | None:
    """The window vLLM caps the derived max length at under --disable-sliding-window: the config's sliding_window (the
    smallest of a list), None where it sets none or, as ModelConfig.get_hf_config_sliding_window says up to 0.10.0
    and transformers' Qwen2 config from then on, where use_sliding_window is false."""
    window = text_config.get("sliding_window")
    if isinstance(window, list):
        window = min((w for w in window if isinstance(w, int) and w > 0), default=None)
    if not isinstance(window, int) or isinstance(window, bool) or window <= 0:
        return None
    return None if text_config.get("use_sliding_window") is False else window


def context_limit(spec: "ModelSpec", rules=None) -> ContextLimit:
    """vLLM's derived max_model_len (_get_and_verify_max_len) in the release of `rules` (default: the newest kvplan
    knows): the stated length (DEFAULT_MAX_MODEL_LEN when none), times the rope-scaling factor; up to 0.29 a yarn
    factor applied to its original_max_position_embeddings (rules row rope_yarn_from_original). The rope types of
    rules row rope_unscaled_types (su / longrope / llama3; from 0.30 the YaRN variants too) and Gemma 3 (whose stated
    length is already the scaled one) keep the stated length."""
    if rules is None:
        from kvplan.versions import rules_for

        rules = rules_for()
    t = spec.text_config
    stated = spec.max_position_embeddings
    tokens = stated or DEFAULT_MAX_MODEL_LEN
    how = f"max_position_embeddings={stated}" if stated else f"no length in the config: vLLM assumes {DEFAULT_MAX_MODEL_LEN}"
    cap = spec.sliding_window_cap
    if cap and (not stated or cap < stated):  # --disable-sliding-window: the window, before the rope factor
        tokens, how = cap, f"sliding_window={cap}"
    start = tokens
    rope = t.get("rope_scaling") or t.get("rope_parameters")
    # transformers 5 writes one rope dict per layer type ({"full_attention": {...}, "sliding_attention": {...}})
    ropes = [r for r in (rope.values() if isinstance(rope, dict) and all(isinstance(v, dict) for v in rope.values())
                         else [rope]) if isinstance(r, dict)]
    kinds = [str(r.get("rope_type") or r.get("type") or "default") for r in ropes]
    longrope = None
    if "longrope" in kinds or "su" in kinds:
        orig = t.get("original_max_position_embeddings") or next(
            (r.get("original_max_position_embeddings") for r in ropes if r.get("original_max_position_embeddings")), None)
        longrope = int(orig) if isinstance(orig, (int, float)) and orig > 0 else None
    if ropes and "gemma3" not in spec.model_type:
        factor = 1.0
        for r, kind in zip(ropes, kinds):
            if kind in rules.rope_unscaled_types:
                continue
            factor = float(r.get("factor") or factor)
            if (kind == "yarn" and rules.rope_yarn_from_original
                    and isinstance(r.get("original_max_position_embeddings"), (int, float))):
                tokens = int(r["original_max_position_embeddings"])
        if factor != 1.0 or tokens != start:
            how += f", rope scaling x{factor:g}" + (f" of original_max_position_embeddings {tokens}" if tokens != start else "")
            tokens = int(tokens * factor)
    return ContextLimit(tokens, how, longrope, stated=bool(stated or cap))


# ---- --hf-overrides: the config as vLLM serves it


def _is_sub_config(key: str, value) -> bool:
    """Whether a config's `key` holds a config object of its own in transformers (text_config, vision_config,
    audio_config, ...: a dict with a model_type, or a *_config key other than quantization_config, which stays a
    dict), into which vLLM from 0.11.1 merges a dict override instead of replacing it."""
    return isinstance(value, dict) and (("model_type" in value) or (key.endswith("_config") and key != "quantization_config"))


def _merge_nested(target: dict, updates: dict) -> dict:
    """`updates` merged into a copy of `target` key by key, recursing where both hold a dict (vLLM's
    ModelConfig._update_nested, 0.11.1-0.33)."""
    out = dict(target)
    for key, value in updates.items():
        out[key] = _merge_nested(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def overridden_config(config: dict, overrides: dict, *, nested_merge: bool, version: str = "", flag: str = "--hf-overrides") -> dict:
    """`config` with `overrides` applied as vLLM applies --hf-overrides: each key set as given (a dict-valued parameter
    such as rope_scaling replaced whole); from 0.11.1 (`nested_merge`, rules row hf_overrides_nested_merge) a dict given
    for a sub-config merged into it. Before 0.11.1 a dict given for a sub-config would replace the whole sub-config
    with a plain dict, which vLLM then fails to read: refused, naming the flag."""
    out = dict(config)
    for key, value in overrides.items():
        if _is_sub_config(key, out.get(key)) and isinstance(value, dict):
            if not nested_merge:
                raise InputError(flag, f"vLLM {version} sets each key as given (transformers_utils/config.py get_config: "
                                 f"config.update), so {{\"{key}\": {{...}}}} would replace the model's whole {key} with "
                                 f"the {len(value)} key(s) given, which vLLM then cannot read as a config",
                                 f"use --vllm-version 0.11.1 or later (which merges a sub-config's keys), or give "
                                 f"every key of {key}")
            out[key] = _merge_nested(out[key], value)
        else:
            out[key] = value
    return out


# ModelSpec fields that do not come from the config: kept from the spec an override is applied to
_NOT_FROM_CONFIG = frozenset({"id", "source", "revision", "commit", "checkpoint", "gated", "local_dir", "tokenizer", "notes",
                              "text_config", "vision_config", "raw_config", "normalize_inputs", "before_overrides"})
_OVERRIDE_CACHE: dict[tuple, tuple["ModelSpec", "ModelSpec"]] = {}


def apply_config_overrides(spec: ModelSpec, overrides: dict, *, nested_merge: bool, version: str = "",
                           flag: str = "--hf-overrides") -> ModelSpec:
    """`spec` derived again from its config with --hf-overrides applied (overridden_config), as vLLM applies them
    before deriving anything from the config (ModelConfig.__post_init__, then _get_and_verify_max_len and the model's
    layers). The fields the override changes are taken from the new derivation; what the caller set beside the config
    (the checkpoint's weights, a quantization a record names, the local folder) is kept. `before_overrides` holds the
    spec it was applied to, so that applying again (a replan) starts from there."""
    base = spec.before_overrides or spec
    if not overrides:
        return base
    key = (id(base), json.dumps(overrides, sort_keys=True, default=str), nested_merge)
    hit = _OVERRIDE_CACHE.get(key)
    if hit is not None and hit[0] is base:
        return hit[1]
    inputs = base.normalize_inputs
    if not inputs:
        raise InputError(flag, f"{base.id} was not read from a config.json ({base.source}), so there is no config to "
                         "apply the override to", "give the checkpoint's folder, config.json or Hub id")
    config = overridden_config(inputs["config"], overrides, nested_merge=nested_merge, version=version, flag=flag)
    raw = (overridden_config(inputs["raw"], overrides, nested_merge=nested_merge, version=version, flag=flag)
           if inputs.get("raw") is not None else None)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # AutoConfig's notes were said when the model was read
            unchanged = normalize(**{**inputs, "extra_notes": ()})
            fresh = normalize(**{**inputs, "config": config, "raw": raw, "extra_notes": ()})
    except InputError as exc:
        raise InputError(flag, f"the model's config with the override is not one vLLM can read: {exc.field}: "
                         f"{exc.message}", f"fix {exc.field} in {flag} (or leave it out)") from None
    changed = {f: getattr(fresh, f) for f in ModelSpec.__dataclass_fields__
               if f not in _NOT_FROM_CONFIG and getattr(fresh, f) != getattr(unchanged, f)}
    new_notes = tuple(n for n in fresh.notes if n not in unchanged.notes)
    result = replace(base, **changed, text_config=fresh.text_config, vision_config=fresh.vision_config,
                     raw_config=fresh.raw_config, notes=base.notes + new_notes, before_overrides=base)
    if len(_OVERRIDE_CACHE) > 64:
        _OVERRIDE_CACHE.clear()
    _OVERRIDE_CACHE[key] = (base, result)
    return result


def _layer_kind_list(text: dict, model_type: str, n_layers: int) -> list[str]:
    """Per-layer kinds: 'full', 'sliding', 'chunked', 'recurrent', 'both' (attention + Mamba), 'none'."""
    lt = text.get("layer_types")
    if isinstance(lt, str):
        try:
            import ast
            lt = ast.literal_eval(lt)
        except (ValueError, SyntaxError):
            lt = None
    if isinstance(lt, list) and lt and len(lt) < n_layers:
        # a layer_types AutoConfig derived for the file's num_hidden_layers, which --hf-overrides raised (the file's own
        # list is held to one entry per layer by check_config_values): vLLM updates the config after that derivation
        # and builds the added layers from the list as it stands. One kind throughout (Qwen2's all full_attention,
        # which vLLM's qwen2.py only asks about with len(set(layer_types)) > 1) is that kind for every layer; a mix
        # says nothing of the added layers (was: planned from the sliding_window default, gemma-2-9b at 84 layers
        # as 84 sliding ones)
        if len(set(map(str, lt))) > 1:
            raise ConfigError("layer_types", f"layer_types holds {len(lt)} entries of mixed kinds for the model's "
                              f"{n_layers} layers (num_hidden_layers): the kind of the other {n_layers - len(lt)} is "
                              "not known", f"give layer_types for all {n_layers} layers with num_hidden_layers")
        lt = lt * -(-n_layers // len(lt))
    if isinstance(lt, list) and len(lt) >= n_layers:
        mapping = {"full_attention": "full", "attention": "full", "global": "full", "sliding_attention": "sliding",
                   "local": "sliding", "chunked_attention": "chunked", "linear_attention": "recurrent",
                   "mamba": "recurrent", "mamba2": "recurrent", "conv": "recurrent", "mlp": "none"}
        out = []
        for t in lt[:n_layers]:
            if t not in mapping:
                raise ConfigError("layer_types", f"layer type {t!r} is not supported by kvplan",
                                  "supported: full/sliding/chunked attention, MLA, Mamba, Gated DeltaNet, linear attention")
            out.append(mapping[t])
        return out
    pattern = text.get("hybrid_override_pattern")
    if isinstance(pattern, str) and pattern:
        # NemotronH: M = Mamba2, * = attention, - = MLP, E = MoE (no cache)
        return [{"M": "recurrent", "*": "full"}.get(c, "none") for c in pattern[:n_layers]]
    if "attn_layer_period" in text:  # Jamba
        period, offset = int(text["attn_layer_period"]), int(text.get("attn_layer_offset", 0))
        return ["full" if i % period == offset else "recurrent" for i in range(n_layers)]
    if model_type == "falcon_h1":
        return ["both"] * n_layers  # attention and Mamba2 side by side in every layer
    if model_type in ("mamba", "mamba2", "falcon_mamba"):
        return ["recurrent"] * n_layers
    attn_types = text.get("attn_type_list")
    if isinstance(attn_types, str):
        try:
            import ast
            attn_types = ast.literal_eval(attn_types.rstrip(".")) if not attn_types.endswith("...") else None
        except (ValueError, SyntaxError):
            attn_types = None
    if isinstance(attn_types, list) and len(attn_types) >= n_layers:
        return ["full" if int(a) == 1 else "recurrent" for a in attn_types[:n_layers]]  # MiniMax: 0 = linear
    window = text.get("sliding_window")
    use_sw = text.get("use_sliding_window", True)
    if isinstance(window, int) and window > 0 and use_sw:
        return ["sliding"] * n_layers
    return ["full"] * n_layers


def _recurrent_spec(text: dict, model_type: str) -> RecurrentSpec:
    spec = _recurrent_spec_of(text, model_type)
    chunk = _get(text, "mamba_chunk_size", "chunk_size")
    return replace(spec, chunk_size=int(chunk)) if isinstance(chunk, int) and chunk > 0 else spec


def _recurrent_spec_of(text: dict, model_type: str) -> RecurrentSpec:
    hidden = int(text["hidden_size"])
    if "linear_num_value_heads" in text:  # Gated DeltaNet (Qwen3-Next, Qwen3.5/3.6/3.8)
        # each of the four sizes is needed (a null or missing one was int()'d: "internal error: TypeError")
        need = {k: _need_int(text, k, k) for k in ("linear_num_value_heads", "linear_value_head_dim",
                                                    "linear_num_key_heads", "linear_key_head_dim")}
        return RecurrentSpec(kind="gdn", conv_kernel=int(text.get("linear_conv_kernel_dim", 4)),
                             n_heads=need["linear_num_value_heads"], head_dim=need["linear_value_head_dim"],
                             key_heads=need["linear_num_key_heads"], key_head_dim=need["linear_key_head_dim"])
    n_heads = _get(text, "mamba_num_heads", "mamba_n_heads", "mamba2_num_heads")
    if n_heads is not None or model_type in ("nemotron_h", "granitemoehybrid", "falcon_h1", "mamba2", "bamba", "zamba2"):
        head = int(_get(text, "mamba_head_dim", "mamba_d_head", default=64))
        expand = _get(text, "mamba_expand", "expand", default=2)
        n_heads = int(n_heads) if n_heads is not None else int(expand * hidden) // head
        inner = int(_get(text, "mamba_d_ssm", default=0) or n_heads * head)
        return RecurrentSpec(kind="mamba2", conv_kernel=int(_get(text, "mamba_d_conv", "conv_kernel", default=4)),
                             intermediate=inner, state_size=int(_get(text, "mamba_d_state", "ssm_state_size", "state_size", default=128)),
                             n_groups=int(_get(text, "mamba_n_groups", "n_groups", default=1)), n_heads=n_heads, head_dim=head)
    if model_type in ("minimax", "minimax_text_01", "minimax_m1"):
        heads = int(text["num_attention_heads"])
        return RecurrentSpec(kind="linear", n_heads=heads, head_dim=int(_get(text, "head_dim", default=hidden // heads)))
    if _get(text, "mamba_d_state", "state_size") is not None:  # Mamba1 (Jamba, Mamba)
        expand = _get(text, "mamba_expand", "expand", default=2)
        return RecurrentSpec(kind="mamba1", conv_kernel=int(_get(text, "mamba_d_conv", "conv_kernel", default=4)),
                             # MambaForCausalLM (FalconMamba's class too) sizes its mixer by intermediate_size
                             intermediate=int(_get(text, "intermediate_size", default=0) if model_type in _ATTENTION_FREE_MAMBA1
                                              else expand * hidden),
                             state_size=int(_get(text, "mamba_d_state", "state_size")))
    raise ConfigError("config", f"{model_type}: recurrent layers without Mamba / DeltaNet state settings",
                      "the config needs mamba_d_state/mamba_expand or linear_* head settings")


# DeepSeek-V4's layer types as transformers names them, and their compression ratios (tokens per KV state)
_DSV4_TYPES = {"compressed_sparse_attention": 4, "heavily_compressed_attention": 128}


def _deepseek_v4_layers(text: dict, n_layers: int, head_dim: int, notes: list[str]) -> tuple[LayerSpec, ...]:
    """DeepSeek-V4: every decoder layer keeps a sliding window of its latent plus compressed states, one per
    `compress_ratio` tokens; ratio-4 layers also keep an indexer cache (vLLM models/deepseek_v4)."""
    ratios = text.get("compress_ratios")
    if isinstance(ratios, list) and len(ratios) >= n_layers:
        ratios = [int(r) for r in ratios[:n_layers]]
    else:
        types = text.get("layer_types") or []
        if len(types) < n_layers or any(t not in _DSV4_TYPES for t in types[:n_layers]):
            raise ConfigError("compress_ratios", "DeepSeek-V4 config without compress_ratios or known layer_types",
                              "give the checkpoint's own config.json")
        ratios = [_DSV4_TYPES[t] for t in types[:n_layers]]
    if any(r not in (0, 1, 4, 128) for r in ratios):
        raise ConfigError("compress_ratios", f"compression ratios {sorted(set(ratios))}: kvplan has read vLLM's layout for 0, 4 and 128 only",
                          "plan with a checkpoint whose layers use ratios 0, 4 and 128 (DeepSeek-V4-Pro, -Flash)")
    window = int(text.get("sliding_window") or 0)
    if window <= 0:
        raise ConfigError("sliding_window", "DeepSeek-V4 config without its sliding window", "give the checkpoint's own config.json")
    index_dim = int(text.get("index_head_dim") or 0)
    # ratio 0 (or 1): a layer that keeps its sliding window only, no compressor (attention.py: compress_ratio <= 1)
    kind = {4: "csa", 128: "hca"}
    return tuple(LayerSpec(kind.get(r, "swa"), 1, head_dim, 0, window=window, compress_ratio=r if r > 1 else 0,
                           index_head_dim=index_dim if r == 4 else 0) for r in ratios)


def _layer_specs(text: dict, model_type: str, n_layers: int, n_kv: int, head_dim: int, notes: list[str]) -> tuple[LayerSpec, ...]:
    if model_type.startswith("deepseek_v4") or text.get("compress_ratios"):
        return _deepseek_v4_layers(text, n_layers, head_dim, notes)
    if text.get("kv_lora_rank"):
        latent = int(text["kv_lora_rank"]) + int(text.get("qk_rope_head_dim", 64))
        # DeepSeek-V3.2's sparse attention: a lightning indexer keeps index_head_dim keys per token and layer
        index_dim = int(text.get("index_head_dim") or 0) if text.get("index_topk") else 0
        return tuple(LayerSpec(kind="mla", num_kv_heads=1, head_dim=latent, head_dim_v=0, index_head_dim=index_dim)
                     for _ in range(n_layers))
    kinds = _layer_kind_list(text, model_type, n_layers)
    window = text.get("sliding_window")
    chunk = text.get("attention_chunk_size")
    head_dim_v = int(text.get("v_head_dim") or head_dim)
    # global (full-attention) layers with their own KV heads and head size (Gemma 4: num_global_key_value_heads,
    # global_head_dim); vLLM then unifies the two page sizes by scaling the smaller page's block size (section 3.2)
    full_kv = int(text.get("num_global_key_value_heads") or n_kv)
    full_dim = int(text.get("global_head_dim") or head_dim)
    out: list[LayerSpec] = []
    recurrent = None
    for kind in kinds:
        if kind in ("recurrent", "both") and recurrent is None:
            recurrent = _recurrent_spec(text, model_type)
        if kind == "full":
            out.append(LayerSpec("full", full_kv, full_dim, full_dim if full_dim != head_dim else head_dim_v))
        elif kind == "sliding":
            if not (isinstance(window, int) and window > 0):
                raise ConfigError("sliding_window", "sliding-attention layers but no sliding_window size", "add sliding_window to the config")
            out.append(LayerSpec("sliding", n_kv, head_dim, head_dim_v, window=int(window)))
        elif kind == "chunked":
            if not chunk:
                raise ConfigError("attention_chunk_size", "chunked-attention layers but no attention_chunk_size", "add it to the config")
            out.append(LayerSpec("chunked", n_kv, head_dim, head_dim_v, window=int(chunk)))
        elif kind == "recurrent":
            out.append(LayerSpec("recurrent", recurrent=recurrent))
        elif kind == "both":
            out.append(LayerSpec("full", n_kv, head_dim, head_dim_v))
            out.append(LayerSpec("recurrent", recurrent=recurrent))
        else:
            out.append(LayerSpec("none"))
    if text.get("num_kv_shared_layers"):
        shared = int(text["num_kv_shared_layers"])
        if shared >= n_layers:
            # every layer reusing an earlier layer's KV cache leaves none to keep it (10,000 on a 52-layer model ended
            # "internal error: StopIteration")
            raise ConfigError("num_kv_shared_layers", f"num_kv_shared_layers {shared} leaves none of the model's "
                              f"{n_layers} layers to keep the KV cache the shared layers reuse", "fix the config.json "
                              "(num_kv_shared_layers is less than num_hidden_layers; the checkpoint's own has it right)")
        notes.append(f"the last {shared} layers reuse earlier layers' KV cache (config num_kv_shared_layers)")
        keep = len(out) - shared
        out = out[:keep] + [LayerSpec("none") for _ in range(shared)]
    return tuple(out)


# ---- quantization


_QUANT_ALIASES = {"awq_marlin": "awq", "gptq_marlin": "gptq", "gptq_marlin_24": "gptq", "fbgemm_fp8": "fp8",
                  "modelopt_fp4": "modelopt", "auto-round": "auto_round", "autoround": "auto_round",
                  "bitsandbytes": "bitsandbytes", "bnb": "bitsandbytes", "intel/auto-round": "auto_round"}


# ModelOpt per-layer algorithms -> bytes per weight (scales included): FP8 1 B; NVFP4 0.5 B + an fp8 scale per 16.
_MODELOPT_ALGO_BYTES = {"FP8": 1.0, "FP8_PER_CHANNEL_PER_TOKEN": 1.0, "FP8_PB_WO": 1.0, "NVFP4": 0.5625,
                        "W4A16_NVFP4": 0.5625, "W4A8_NVFP4_FP8": 0.5625, "W4A16_AWQ": 0.5 + 2.5 / 128, "W4A8_AWQ": 0.5 + 2.5 / 128}


# ModelOpt quant_algo names vLLM takes (0.10.2: FP8, NVFP4 and the mixed-precision ones; 0.33.0 QUANT_ALGOS adds
# FP8_PB_WO, W4A16_NVFP4, MXFP8, and FP8_BLOCK_SCALES as FP8_PB_WO's alias), kvplan's per-layer bytes among them
_MODELOPT_ALGOS = frozenset(_MODELOPT_ALGO_BYTES) | {"MIXED_PRECISION", "MXFP8", "FP8_BLOCK_SCALES"}


def _quant_key(qc: dict, method: str, keys: tuple[str, ...]) -> int:
    """The whole number an AWQ / GPTQ / AutoRound quantization_config gives under the first of `keys` it holds
    (check_config_values has checked its type); ConfigError where it gives none."""
    v = next((qc[k] for k in keys if qc.get(k) is not None), None)
    if v is None:
        key = f"quantization_config.{keys[-1]}"
        raise ConfigError(key, f"the {method} quantization_config gives no {' / '.join(keys)} (vLLM reads it to load "
                          "the weights)", "fix the config.json (the checkpoint's own quantization_config names it)")
    return int(v)


def _module_kind(layer_name: str) -> str | None:
    """The kvplan weight component a checkpoint module name belongs to (see kvplan.weights)."""
    name = layer_name.lower()
    if "lm_head" in name:
        return "lm_head"
    if ".experts" in name:
        return "experts"
    if "shared_expert" in name:
        return "shared_expert"
    if "linear_attn" in name or ".mixer" in name:
        return "linear_attn"
    if "self_attn" in name or ".attn." in name:
        return "self_attn"
    if ".mlp." in name or name.endswith(".mlp") or "feed_forward" in name:
        return "mlp"
    return None


def _mixed_precision_modules(quantized_layers: dict) -> tuple[tuple[str, float], ...]:
    kinds: dict[str, float] = {}
    for layer_name, info in quantized_layers.items():
        kind = _module_kind(layer_name)
        algo = str((info or {}).get("quant_algo") or "").upper()
        if kind and algo in _MODELOPT_ALGO_BYTES:
            kinds.setdefault(kind, _MODELOPT_ALGO_BYTES[algo])
    if "self_attn" in kinds:
        kinds.setdefault("kv_proj", kinds["self_attn"])
    if "linear_attn" in kinds:
        kinds.setdefault("mixer", kinds["linear_attn"])
    return tuple(sorted(kinds.items()))


def _modelopt_kv_fp8(qc: dict) -> bool:
    """Whether a ModelOpt quantization config declares an FP8 KV cache, as vLLM's get_kv_cache_quant_algo_string
    reads it (utils/torch_utils.py, behind --kv-cache-dtype auto): a config.json export's kv_cache_scheme (a dict: fp8
    when {"type": "float", "num_bits": 8, "dynamic": false}), else hf_quant_config.json's kv_cache_quant_algo (a
    string: "FP8"); none, null or anything else keeps the model dtype."""
    kv = qc.get("kv_cache_scheme") or qc.get("kv_cache_quant_algo")
    if isinstance(kv, dict):
        return kv.get("dynamic") is False and kv.get("num_bits") == 8 and kv.get("type") == "float"
    return isinstance(kv, str) and kv.lower() == "fp8"


def _ct_group_spec(w: dict, activations, skip: tuple, kv: bool, targets: tuple[str, ...]) -> QuantSpec:
    """The QuantSpec of one compressed-tensors config group's weights (`w`) and input activations."""
    bits = int(w.get("num_bits") or 8)
    kind = str(w.get("type") or "int")
    g = w.get("group_size")
    if kind == "float" and bits == 4 and g and int(g) == 32:
        # FP4 in groups of 32 is MXFP4 W4A4, not NVFP4 (whose groups are 16): compressed_tensors.py
        # CompressedTensorsConfig._is_mxfp4 (4-bit float, group strategy, group_size 32, symmetric) selects
        # schemes/compressed_tensors_w4a4_mxfp4.py CompressedTensorsW4A4Mxfp4, whose create_weights holds the
        # weight packed two to a uint8 and one uint8 E8M0 scale per 32 (vLLM 0.27.1, 0.29.0, 0.31.0 wheels; the
        # FlashInfer kernel's process_weights_after_loading only swizzles the scales, the rows padded to 128,
        # kernels/linear/mxfp4/flashinfer.py 0.31.0)
        return QuantSpec("compressed-tensors", 4, 32, "mxfp4 w4a4 (compressed-tensors)", skip, kv_cache_fp8=kv,
                         targets=targets)
    if kind == "float" and bits == 4:
        return QuantSpec("compressed-tensors", 4, int(g or 16), "nvfp4 (compressed-tensors)", skip, kv_cache_fp8=kv,
                         targets=targets)
    block = w.get("block_structure")
    if kind == "float" and str(w.get("strategy") or "").lower() == "block" and isinstance(block, list) and len(block) == 2:
        # block FP8 (llm-compressor's FP8_BLOCK: poolside's Laguna FP8, RedHatAI's -FP8-block checkpoints):
        # CompressedTensorsW8A8Fp8 keeps a float32 weight_scale per [n, k] block (create_fp8_scale_parameter with
        # BlockQuantScaleParameter, 0.11.0-0.33.0) and checks TP slices against the block (versions.py ct_fp8_block)
        return QuantSpec("compressed-tensors", 8, None, f"fp8 block {int(block[0])}x{int(block[1])} (compressed-tensors)",
                         skip, kv_cache_fp8=kv, weight_block=(int(block[0]), int(block[1])), targets=targets)
    if kind == "float":
        return QuantSpec("compressed-tensors", 8, None, "fp8 (compressed-tensors)", skip, kv_cache_fp8=kv,
                         targets=targets)
    # QuantizationArgs.symmetric defaults to True in compressed-tensors; only asymmetric weights store zero points.
    # Weight-only (WNA16): no input_activations, strategy group or channel (QuantizationArgs reads a group_size
    # without a strategy as "group"), not dynamic (_is_wNa16_group_channel)
    strategy = str(w.get("strategy") or ("group" if g else "tensor")).lower()
    weight_only = (not activations and strategy in ("group", "channel") and not w.get("dynamic"))
    act_order = strategy == "group" and str(w.get("actorder") or "").lower() in ("group", "dynamic")
    return QuantSpec("compressed-tensors", bits, int(g) if g else None, f"int{bits} (compressed-tensors)", skip, kv_cache_fp8=kv,
                     zero_points=not bool(w.get("symmetric", True)), weight_only=weight_only, targets=targets,
                     act_order=act_order)


def _quant_spec(text: dict, hfq: dict | None, notes: list[str]) -> QuantSpec | None:
    qc = text.get("quantization_config")
    if isinstance(qc, str):
        try:
            import ast
            qc = ast.literal_eval(qc) if not qc.endswith("...") else None
        except (ValueError, SyntaxError):
            qc = None
    if hfq and isinstance(qc, dict):
        # vLLM reads hf_quant_config.json only for a config.json without a quantization_config (ModelOpt 0.29 and
        # before: transformers_utils/config.py get_config from 0.10.1, weight_utils.get_quant_config before): the
        # config.json of a newer export wins
        notes.append("quantization read from config.json's quantization_config; the checkpoint's hf_quant_config.json "
                     "is not read, as vLLM reads it only when config.json has none")
    elif hfq:  # ModelOpt's older exports declare their quantization only in hf_quant_config.json
        q = hfq.get("quantization") if isinstance(hfq.get("quantization"), dict) else None
        if q is None and isinstance(hfq.get("quantization"), str):
            try:
                import ast
                q = ast.literal_eval(hfq["quantization"]) if not hfq["quantization"].endswith("...") else None
            except (ValueError, SyntaxError):
                q = None
        if q is None and isinstance(hfq.get("quantization"), str):
            algo = re.search(r"'quant_algo':\s*'(\w+)'", hfq["quantization"])
            kv = "'kv_cache_quant_algo': 'FP8'" in hfq["quantization"]
            # a text that names no quant_algo says nothing of the weights (it was taken as NVFP4 without a word)
            q = {"quant_algo": algo.group(1) if algo else None, "kv_cache_quant_algo": "FP8" if kv else None}
        if q:
            spec = _quant_spec({"quantization_config": {"quant_method": "modelopt", **q}}, None, notes)
            return replace(spec, hf_quant_config_only=True) if spec else None
    if not isinstance(qc, dict):
        return None
    method = str(qc.get("quant_method") or qc.get("quant_algo") or "").lower()
    method = _QUANT_ALIASES.get(method, method)
    skip = tuple(qc.get("modules_to_not_convert") or qc.get("ignore") or qc.get("ignored_layers") or qc.get("exclude_modules")
                 or qc.get("exclude") or ())
    if method == "quark":  # AMD Quark: the weights' dtype in global_quant_config (vLLM quantization/quark/quark.py)
        w = (qc.get("global_quant_config") or {}).get("weight") or {}
        w = w[0] if isinstance(w, list) and w else w
        wdt = str((w or {}).get("dtype") or "").lower() if isinstance(w, dict) else ""
        g = w.get("group_size") if isinstance(w, dict) else None
        if wdt.startswith("fp8"):
            return QuantSpec("quark", 8, None, "fp8 (quark)", skip)
        if wdt in ("fp4", "mxfp4"):
            return QuantSpec("quark", 4, 32, "mxfp4 (quark)", skip)
        if wdt in ("int8", "uint8", "int4", "uint4"):
            bits = int(wdt[-1])
            return QuantSpec("quark", bits, int(g) if g else None, f"int{bits} (quark)", skip)
    if method in ("awq", "gptq", "auto_round"):
        # vLLM reads both with get_from_keys, which raises "Cannot find any of [...] in the model's quantization config"
        # for a missing key (AWQConfig: w_bit / bits, q_group_size / group_size; GPTQConfig and AutoRoundConfig: bits,
        # group_size; awq.py, gptq.py, auto_round.py from_config in the 0.10.2 wheel, auto_awq.py / auto_gptq.py in
        # 0.33.0); kvplan took 4 bits in groups of 128 without a word
        bits = _quant_key(qc, method, ("w_bit", "bits") if method == "awq" else ("bits",))
        g = _quant_key(qc, method, ("q_group_size", "group_size") if method == "awq" else ("group_size",))
        return QuantSpec(method, bits, g if g > 0 else None, f"int{bits} w{bits}a16 group {g}", skip)
    if method == "fp8":
        block = qc.get("weight_block_size")
        return QuantSpec("fp8", 8, None, f"fp8 block {block[0]}x{block[1]}" if block else "fp8 per-tensor", skip,
                         weight_block=(int(block[0]), int(block[1])) if block else None)
    if method == "mxfp4":
        return QuantSpec("mxfp4", 4, 32, "mxfp4 (experts)", skip, applies_to="experts")
    if method == "modelopt":
        algo = str(qc.get("quant_algo") or "").upper()
        if algo not in _MODELOPT_ALGOS:
            # vLLM refuses both: "Missing 'quant_algo' in quantization config", and "ModelOpt currently only supports:
            # [...]" for an algorithm it does not know (ModelOptFp8Config / ModelOptNvFp4Config.from_config, 0.10.2;
            # ModelOptQuantConfigBase.from_config over QUANT_ALGOS, 0.33.0); kvplan sized any other as NVFP4
            got = repr(qc.get("quant_algo")) if qc.get("quant_algo") not in (None, "") else "none"
            raise ConfigError("quantization_config.quant_algo", f"a ModelOpt quantization names its algorithm in "
                              f"quant_algo ({', '.join(sorted(_MODELOPT_ALGOS))}), got {got}", "fix the config.json or "
                              "hf_quant_config.json (the checkpoint's own names it)")
        kv = _modelopt_kv_fp8(qc)
        if algo == "MIXED_PRECISION" and not qc.get("quantized_layers"):
            # "MIXED_PRECISION quant_algo requires a non-empty 'quantized_layers' mapping in the quantization config."
            # (ModelOptMixedPrecisionConfig.from_config, modelopt.py in the 0.33.0 wheel); kvplan sized it as NVFP4
            raise ConfigError("quantization_config.quantized_layers", "a MIXED_PRECISION ModelOpt quantization gives "
                              "each quantized layer's algorithm in quantized_layers, and this one gives none",
                              "fix the config.json or hf_quant_config.json (the checkpoint's own lists them)")
        if algo == "MIXED_PRECISION" and isinstance(qc.get("quantized_layers"), dict):
            module_bytes = _mixed_precision_modules(qc["quantized_layers"])
            return QuantSpec("modelopt", 4, 16, "mixed precision (modelopt: " + ", ".join(f"{k} {v:g} B" for k, v in module_bytes) + ")",
                             skip, kv_cache_fp8=kv, module_bytes=module_bytes)
        if "FP8" in algo and "FP4" not in algo:
            return QuantSpec("modelopt", 8, None, "fp8 (modelopt)", skip, kv_cache_fp8=kv)
        return QuantSpec("modelopt", 4, 16, "nvfp4 (modelopt)", skip, kv_cache_fp8=kv)
    if method == "compressed-tensors":
        groups = qc.get("config_groups") or {}
        # the QuantSpec is the first group's, with every group's targets (a module any group names is
        # quantized: CompressedTensorsConfig.get_scheme_dict asks find_matched_target over all the groups' targets,
        # compressed_tensors.py 0.10.2-0.33.0), and each target keeps its group's scheme: _from_config builds
        # target_scheme_map group by group, target by target (a target two groups list keeps its first place and the
        # later group's scheme), and the weight count and the kernels' terms read each module's own matched target's
        # (group_schemes: weights.ct_module_scheme, plan.kv.experts_quant / marlin_dense_group)
        kv = bool(qc.get("kv_cache_scheme"))
        first, targets, by_target = None, (), {}
        for grp in groups.values():
            if isinstance(grp, dict) and isinstance(grp.get("weights"), dict):
                spec = _ct_group_spec(grp["weights"], grp.get("input_activations"), skip, kv, ())
                first = first or spec
                named = tuple(str(t) for t in (grp.get("targets") or ()) if isinstance(t, str))
                targets += tuple(t for t in named if t not in targets)
                by_target.update({t: spec for t in named})
        if first is None:
            return _ct_group_spec({}, None, skip, kv, targets)
        schemes = tuple((t, by_target[t]) for t in targets)
        several = len({(sp.bits, sp.group_size, sp.scheme, sp.zero_points, sp.weight_only, sp.weight_block, sp.act_order)
                       for _, sp in schemes}) > 1
        return replace(first, targets=targets, group_schemes=schemes if several else ())
    if method == "bitsandbytes":
        # 8-bit only where load_in_8bit says so: vLLM's loader reads quant_config.get("load_in_8bit", False) and loads
        # every other bitsandbytes checkpoint as 4-bit (model_loader/loader.py BitsAndBytesModelLoader._load_weights,
        # 0.6.3-0.8.5; bitsandbytes_loader.py from 0.9). transformers writes bnb_4bit_quant_type into 8-bit configs
        # too, so that key says nothing about the width.
        bits = 8 if qc.get("load_in_8bit") else 4
        double = bits == 4 and bool(qc.get("bnb_4bit_use_double_quant"))
        # modules left in the model dtype: llm_int8_skip_modules, matched per dotted part or leading run of parts
        # (quantization/bitsandbytes.py is_layer_skipped_bnb, 0.7.3-0.27.0; weights.PART_SKIP_METHODS), an entry for
        # one layer ('model.layers.3.mlp') for that layer alone
        skip = skip + tuple(str(m) for m in (qc.get("llm_int8_skip_modules") or ()) if m)
        scheme = (f"bitsandbytes 4-bit {qc.get('bnb_4bit_quant_type') or 'fp4'}{', double quant' if double else ''}"
                  if bits == 4 else "bitsandbytes 8-bit")
        return QuantSpec("bitsandbytes", bits, 64 if bits == 4 else None, scheme, skip, applies_to="all_linear",
                         double_quant=double)
    if method == "gguf":  # read from a .gguf file (_from_gguf): the stored bytes per weight over its matrices
        return QuantSpec("gguf", float(qc.get("bits_per_weight") or 0), None, str(qc.get("scheme") or "gguf"), skip)
    notes.append(f"quantization method {method!r} is not modelled: weights need checkpoint metadata")
    return QuantSpec(method or "unknown", 0, None, "unknown", skip)
