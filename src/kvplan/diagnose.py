"""Name the layer that owns a failed or degraded vLLM startup, the cause, and the fix.

`diagnose(source)` parses the log with `kvplan.logs` and turns the signature hits into
ranked findings. Evidence is combined, not matched line by line: the same message can
have two owners (CUDA error 803 from a host driver newer than the image's compat
libraries, or from an old driver), and a finding says which evidence decided it.
With a model and flags, `sharpen_with_plan` adds what a plan knows (the largest
max_model_len that fits, a utilization that starts, the GPUs that qualify).

Layers follow the table "who controls it" of the seed `anatomy-of-a-vllm-setup.txt`.
When nothing is recognised the diagnosis says so and shows the lines that look like
errors; it never makes up a cause.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping, Optional

from kvplan.logs import (
    KEPT_LINE_CHARS,
    SIGNATURES_BY_NAME,
    SignatureHit,
    Source,
    StartupLog,
    fill_template,
    parse_log,
    torch_gib,
)
from kvplan.versions import MIN_DRIVER_BY_CUDA, SERVE_FLAG_UNTIL, release_text, removed_flag, wheel_cuda

SYMPTOMS = (
    "import_undefined_symbol", "driver_too_old", "gpu_not_detected_in_container", "unsupported_gpu",
    "quant_unsupported_on_gpu", "gated_repo_auth", "disk_full_download", "tokenizer_or_revision_mismatch",
    "max_seq_len_exceeds_kv", "no_cache_blocks", "free_memory_below_utilization", "oom_graph_capture_or_profiling",
    "attention_backend_fallback", "k8s_probe_kill", "tp_init_hang", "trust_remote_code_required",
    "unsupported_architecture", "invalid_engine_flags", "weights_not_cached", "prompt_exceeds_max_model_len",
    "cuda_fork_init", "download_failed", "model_mismatch", "state_blocks_below_max_num_seqs", "jit_compile_failed",
    "port_in_use", "interrupted",
)
LAYERS = (
    "client_code", "vllm_version_flags", "pytorch_wheel", "cuda_runtime", "nvidia_driver", "gpu", "model_weights",
    "memory_budget", "container_environment", "interconnect",
)

# Confidence below this is shown as "low": a hint, not an answer.
CONFIDENT = 0.6
# How many of the log's last lines a diagnosis that recognises nothing and finds no error line shows.
LAST_LINES_SHOWN = 5

# ---- driver data (gpu-facts.md §6 and §7) ---------------------------------------------------

def _driver_major(version: str) -> int:
    return int(version.split(".")[0])


def _cuda_of_found_version(found: int) -> str:
    """torch prints the driver's CUDA as an integer: 12090 = CUDA 12.9, 11040 = 11.4."""
    return f"{found // 1000}.{(found % 1000) // 10}"


# The lowest compute capability each quantization method has asked for in every vLLM release since the one named: a
# "Minimum capability" refusal above it, on a GPU that meets it, came from a build before that release (a pre-release or
# special build), so the release, not the GPU, owns it. Read in the wheels' get_min_capability: mxfp4.py returns 80 in
# 0.10.1 (the first release with MXFP4), 0.11.0, 0.17.0-0.22.1, 0.26.0-0.29.0 and 0.33.0; the gpt-oss pre-release commit
# asked for 100 (vLLM PR #22339) and Hopper came with PR #22421.
RELEASE_MIN_CAPABILITY = {"mxfp4": (80, "0.10.1")}


# ---- results ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """One likely explanation: what happened, which layer owns it, why, what to do, and the lines."""

    symptom: str
    layer: str
    cause: str
    fix: str
    evidence: tuple[str, ...]
    confidence: float
    decided_by: Optional[str] = None
    fatal: bool = True
    details: Mapping[str, Any] = field(default_factory=dict)
    from_log: bool = True  # False for a finding about what kvplan was asked (the MODEL given), not about the start

    @property
    def confidence_label(self) -> str:
        return "high" if self.confidence >= 0.8 else "medium" if self.confidence >= CONFIDENT else "low"

    def to_dict(self) -> dict:
        out = {
            "symptom": self.symptom,
            "layer": self.layer,
            "cause": self.cause,
            "fix": self.fix,
            "evidence": list(self.evidence),
            "confidence": round(self.confidence, 2),
        }
        if self.decided_by:
            out["decided_by"] = self.decided_by
        if self.details:
            out["details"] = dict(self.details)
        return out


@dataclass(frozen=True)
class Diagnosis:
    started: bool
    findings: tuple[Finding, ...]
    error_lines: tuple[str, ...]
    notes: tuple[str, ...]
    log: StartupLog

    @property
    def recognised(self) -> bool:
        """Whether something known about the start was found in the log."""
        return any(f.from_log for f in self.findings)

    @property
    def failed(self) -> bool:
        """A failure shown (a fatal finding) or nothing recognised in a log that did not start."""
        return any(f.fatal for f in self.findings) or (not self.recognised and not self.started)

    @property
    def last_lines(self) -> Optional[tuple[str, ...]]:
        """The log's last lines, shown in place of findings and error lines when there are none and the log shows no
        start; None when they are not shown."""
        if self.recognised or self.error_lines or self.started:
            return None
        return self.log.last_lines[-LAST_LINES_SHOWN:]

    @property
    def top(self) -> Optional[Finding]:
        return self.findings[0] if self.findings else None

    @property
    def vllm_log(self) -> bool:
        """Whether any line of the text is one kvplan knows from vLLM (or the layers around it: pip, CUDA, the
        container): False for text that is no startup log at all."""
        return bool(self.log.hits)

    @property
    def verdict(self) -> str:
        """What the text shows, in one word, as `kvplan diagnose` heads its output: "started" (and nothing fatal),
        "failed" (a fatal finding), "degraded" (findings, none fatal, the start itself not in the text) or
        "not_recognised" (no known signature: `started` false then means "not shown", not "failed")."""
        if self.started:
            return "started"
        if any(f.fatal for f in self.findings):
            return "failed"
        return "degraded" if self.recognised else "not_recognised"

    def to_dict(self) -> dict:
        out: dict[str, Any] = {
            "verdict": self.verdict,
            "started": self.started,  # started, and nothing fatal found
            "recognised": self.recognised,  # a known finding was read (a healthy start has none)
            "vllm_log": self.vllm_log,
            "findings": [f.to_dict() for f in self.findings],
            "notes": list(self.notes),
            "vllm_version": self.log.vllm_version,
            "lines_read": self.log.lines_read,  # the header's 'N lines read'
        }
        if not self.recognised:
            out["error_lines"] = list(self.error_lines)
        if self.last_lines is not None:
            out["last_lines"] = list(self.last_lines)
        return out


# ---- evidence in the text around the vLLM lines ----------------------------------------------------

_HOST_DRIVER = re.compile(r"(?:Driver Version|driver(?: version)?|NVIDIA-SMI)[:\s]+(?P<v>\d{3}\.\d+(?:\.\d+)?)", re.I)
_IMAGE_CUDA = re.compile(r"(?:\bcu(?P<tag>1[1-3]\d)\b|CUDA_VERSION[=: ]+(?P<env>1[1-3]\.\d)|CUDA (?:runtime|toolkit) (?P<rt>1[1-3]\.\d))", re.I)


def _scan_context(log: StartupLog) -> dict[str, Any]:
    """Host driver and image CUDA versions when the text around the log states them."""
    texts = list(log.error_lines) + list(log.last_lines) + [h.text for h in log.hits]
    context: dict[str, Any] = {}
    for text in texts:
        m = _HOST_DRIVER.search(text)
        if m and "host_driver" not in context:
            context["host_driver"] = m.group("v")
            context["host_driver_line"] = text
        m = _IMAGE_CUDA.search(text)
        if m and "image_cuda" not in context:
            tag = m.group("tag")
            context["image_cuda"] = f"{tag[:2]}.{tag[2:]}" if tag else (m.group("env") or m.group("rt"))
    return context


# ---- combining hits into findings --------------------------------------------------------------------


@dataclass
class _Draft:
    symptom: str
    layer: str
    cause: str
    fix: str
    confidence: float
    fatal: bool
    hits: list[SignatureHit]
    decided_by: Optional[str] = None
    details: dict = field(default_factory=dict)

    def freeze(self) -> Finding:
        evidence = []
        for h in sorted(self.hits, key=lambda h: h.line_number):
            if h.text not in evidence:
                evidence.append(h.text)
        return Finding(self.symptom, self.layer, self.cause, self.fix, tuple(evidence[:8]),
                       round(min(self.confidence, 0.99), 2), self.decided_by, self.fatal, dict(self.details))


# Lines that are a trial, not a refusal, at DEBUG level: the fused-MoE oracles (vllm/model_executor/layers/fused_moe/oracle/
# fp8.py, mxfp4.py, nvfp4.py select_*_moe_backend, 0.19.0) log each backend they pass over with logger.debug_once while
# choosing one automatically, and raise the same wording as a ValueError only for a backend that was asked for
_DEBUG_TRIALS = frozenset({"moe_backend_unsupported"})


def _drafts_from_hits(log: StartupLog) -> dict[str, _Draft]:
    """One draft per symptom: the strongest line sets the layer and texts; each extra
    distinct line that supports the same symptom adds a little confidence."""
    drafts: dict[str, _Draft] = {}
    for hit in log.hits:
        sig = SIGNATURES_BY_NAME[hit.signature]
        if not sig.symptom:
            continue
        if hit.signature in _DEBUG_TRIALS and hit.level == "DEBUG":
            continue
        groups = _enrich_groups(hit.groups)
        draft = drafts.get(sig.symptom)
        if draft is None or sig.weight > draft.confidence:
            previous_hits = draft.hits if draft else []
            extra = len({h.signature for h in previous_hits})
            drafts[sig.symptom] = _Draft(
                symptom=sig.symptom, layer=sig.layer or "vllm_version_flags",
                cause=fill_template(sig.cause, groups), fix=fill_template(sig.fix, groups),
                confidence=sig.weight + 0.05 * extra, fatal=sig.fatal or bool(draft and draft.fatal),
                hits=previous_hits + [hit],
            )
        else:
            if hit.signature not in {h.signature for h in draft.hits}:
                draft.confidence += 0.05
            draft.fatal = draft.fatal or sig.fatal
            draft.hits.append(hit)
    return drafts


def _enrich_groups(groups: Mapping[str, Optional[str]]) -> dict:
    g = dict(groups)
    if g.get("len") and g.get("need") and g.get("avail") and not g.get("est"):
        # vLLM's one-request check without its estimate (0.7.3 prints none; later releases omit it when it is 0): the
        # fix read "Lower --max-model-len (to about ? tokens here)". vLLM's estimate is the largest length whose KV
        # needs fit the available memory, for a dense model block_size x floor(available / (layers x page))
        # (../shared/docs/vllm-memory-model.md section 4, _check_enough_kv_cache_memory): about len x available / needed,
        # at 16-token blocks, from the two figures the line prints to the hundredth
        try:
            length, need, avail = int(g["len"]), float(g["need"]), float(g["avail"])
        except ValueError:
            length = need = avail = 0
        if need > 0 and avail > 0 and (est := int(length * avail / need) // 16 * 16) > 0:
            g["est"] = str(est)
    if g.get("found"):
        g["found_cuda"] = _cuda_of_found_version(int(g["found"]))
    for key in ("min", "cur"):
        if g.get(key) and g[key].isdigit():
            g[f"{key}_cc"] = f"{int(g[key]) // 10}.{int(g[key]) % 10}"
    return g


def _reread_as(drafts: dict[str, _Draft], old_key: str, draft: _Draft) -> None:
    """A draft a decider re-read as another symptom: out from under its old key, in under its new one unless a draft
    at least as confident already holds it."""
    del drafts[old_key]
    other = drafts.get(draft.symptom)
    if other is None or other.confidence < draft.confidence:
        drafts[draft.symptom] = draft


def _decide_driver(draft: _Draft, log: StartupLog, context: dict) -> None:
    """Who owns a driver/runtime mismatch: the host driver, or the runtime the image/wheel brings."""
    names = {h.signature for h in draft.hits}
    found = next((h.groups.get("found") for h in draft.hits if h.signature == "driver_too_old" and h.groups.get("found")), None)
    required = next((h.groups.get("cuda") for h in draft.hits if h.signature == "container_cuda_requirement"), None)
    runtime = context.get("image_cuda") or required or wheel_cuda(log.vllm_version)
    minimum = MIN_DRIVER_BY_CUDA.get(runtime) if runtime else None
    if minimum:
        draft.details["runtime_cuda"] = runtime
        draft.details["min_driver"] = minimum
        draft.details["min_driver_source"] = "gpu-facts.md §6-7 (NVIDIA CUDA Toolkit release notes, Table 3)"
    host = context.get("host_driver")
    if "cuda_error_803" in names:
        if host and minimum and _driver_major(host) < _driver_major(minimum):
            draft.layer = "nvidia_driver"
            draft.cause = f"CUDA error 803 with host driver {host}, older than the {minimum} that CUDA {runtime} needs: the driver is too old for the image."
            draft.fix = f"Update the host NVIDIA driver to >= {minimum}, or use a vLLM image built for an older CUDA."
            draft.decided_by = f"host driver {host} < {minimum} (minimum for CUDA {runtime})"
            draft.confidence = max(draft.confidence, 0.85)
        elif host:
            draft.layer = "cuda_runtime"
            draft.cause = (f"CUDA error 803 although the host driver ({host}) is new enough: the image's bundled cuda-compat libcuda "
                           "(/usr/local/cuda/compat) shadows the newer host driver injected by the container toolkit.")
            draft.fix = ("Remove the compat libraries from the loader path in the image (or set VLLM_ENABLE_CUDA_COMPATIBILITY=0 "
                         "where supported), or use an image built for the host's CUDA.")
            draft.decided_by = f"host driver {host} is recent" + (f" (>= {minimum} for CUDA {runtime})" if minimum else "")
            draft.confidence = max(draft.confidence, 0.85)
        else:
            draft.layer = "cuda_runtime"
            draft.cause = ("CUDA error 803: the CUDA user-space library loaded in the process does not match the kernel driver. "
                           "In containers this is usually the image's cuda-compat libcuda shadowing a newer host driver.")
            draft.fix = ("Run nvidia-smi on the host: if its driver is older than " + (minimum or "the image's CUDA needs") +
                         ", update it; if it is newer, remove /usr/local/cuda/compat from the image's library path.")
            draft.decided_by = "no host driver version in the log: the compat-library explanation is the more common one"
            draft.confidence = 0.6
        return
    if "cuda_error_804" in names:
        draft.layer = "nvidia_driver"
        draft.decided_by = "error 804: forward compatibility refused, so the host driver is older than the image's CUDA"
        if minimum:
            draft.fix = f"Update the host driver to >= {minimum} (CUDA {runtime}), or use an older vLLM image built for the driver's CUDA."
        return
    if found:
        driver_cuda = _cuda_of_found_version(int(found))
        draft.details["driver_cuda"] = driver_cuda
        if int(found) >= 12000 and "undefined_symbol_driver" not in names:
            draft.layer = "cuda_runtime"
            draft.cause = (f"The driver supports CUDA {driver_cuda}, but the installed torch/vLLM (or the image) was built for a newer CUDA "
                           "runtime: the runtime choice, not an ancient driver, is the mismatch.")
            draft.fix = (f"Install the torch/vLLM build for CUDA <= {driver_cuda} (e.g. the +cu129/+cu128 wheel variant, or an image "
                         "for that CUDA), or update the driver" + (f" to >= {minimum}" if minimum else "") + ".")
            draft.decided_by = f"found version {found}: the driver already supports CUDA {driver_cuda}"
        else:
            draft.layer = "nvidia_driver"
            draft.cause = f"The host NVIDIA driver only supports CUDA {driver_cuda}, older than any CUDA 12 build of torch/vLLM."
            draft.fix = ("Update the host driver (CUDA 12.x needs >= 525.60.13" + (f"; this vLLM's CUDA {runtime} needs >= {minimum}" if minimum else "") +
                         "), or install an old cu118 build of torch/vLLM.")
            draft.decided_by = f"found version {found}: the driver's CUDA {driver_cuda} is below 12.0" + (
                "; an undefined CUDA driver symbol confirms it" if "undefined_symbol_driver" in names else "")
        return
    if minimum and draft.layer == "nvidia_driver":
        draft.fix = f"Update the host NVIDIA driver to >= {minimum} (minimum for CUDA {runtime}, the runtime of this vLLM), or install a build for an older CUDA."


def _decide_architecture(drafts: dict[str, _Draft]) -> None:
    """A registry error right after a failed vllm._C import is a broken install, not a missing model."""
    arch = drafts.get("unsupported_architecture")
    imp = drafts.get("import_undefined_symbol")
    listed = _architectures_listed_as_supported(arch)
    if arch and listed and not imp:
        arch.layer = "pytorch_wheel"
        arch.cause = (f"The same error lists {', '.join(listed)} among the supported architectures: the model class failed to "
                      "import (a broken or half-upgraded install), the architecture itself is supported.")
        arch.fix = ("Reinstall vLLM in a fresh virtualenv (so its compiled extensions match torch), then retry; the lines above the "
                    "error (or VLLM_LOGGING_LEVEL=DEBUG) name the import that failed.")
        arch.decided_by = "the architecture named is in the error's own list of supported architectures"
    if arch and imp:
        arch.layer = "pytorch_wheel"
        arch.cause = ("vLLM's compiled extension failed to import, so the model registry crashed and reports the architecture as "
                      "unsupported: the install is broken, the model is fine.")
        arch.fix = "Reinstall vLLM from its wheel in a fresh virtualenv (so vllm._C matches torch), then retry."
        arch.decided_by = "a vllm._C import failure precedes the architecture error"
        arch.confidence = max(arch.confidence, imp.confidence) + 0.05
        arch.hits = imp.hits + arch.hits
        del drafts["import_undefined_symbol"]


def _decide_inspection_crash(drafts: dict[str, _Draft]) -> None:
    """'Model architectures [X] are not supported' right after 'Error in inspecting model architecture X' (vLLM 0.6.x:
    vllm/model_executor/models/registry.py _try_inspect_model_cls logs the subprocess's crash and returns None, and the
    architecture then reads as unsupported): the registry could not import the class, the install is broken."""
    arch = drafts.get("unsupported_architecture")
    if arch is None or arch.layer != "vllm_version_flags":
        return
    crashed = {h.groups.get("arch") for h in arch.hits if h.signature == "arch_inspect_failed"}
    named = {n for h in arch.hits if h.signature == "arch_unsupported" for n in re.findall(r"\w+", h.groups.get("arch") or "")}
    both = sorted(crashed & named)
    if not both:
        return
    arch.layer = "pytorch_wheel"
    arch.cause = (f"vLLM's model registry crashed while importing {', '.join(both)} and then reported it as unsupported: "
                  "the install (torch, vLLM's compiled extensions, or the platform) is broken, the architecture is supported.")
    arch.fix = ("Read the traceback of the inspection (above); install vLLM on Linux with the CUDA torch its wheel pins, in a "
                "fresh virtualenv.")
    arch.decided_by = f"'Error in inspecting model architecture' names {', '.join(both)} before the 'not supported' error"


def _decide_weights_format(drafts: dict[str, _Draft], log: StartupLog) -> None:
    """'Cannot find any model weights' with a --load-format other than auto: the flag asked for files of one format,
    the checkpoint has another (vllm-project/vllm#3329)."""
    draft = drafts.get("weights_not_cached")
    if draft is None or not any(h.signature == "no_model_weights" for h in draft.hits):
        return
    fmt = log.arg("load_format")
    fmt = str(fmt).rsplit(".", 1)[-1].lower() if fmt is not None else None
    if not fmt or fmt == "auto":
        return
    draft.symptom, draft.layer = "invalid_engine_flags", "vllm_version_flags"
    draft.cause = (f"--load-format {fmt} makes vLLM look only for that format's files, and the checkpoint at the path has none "
                   "(e.g. .bin shards where safetensors were asked for).")
    draft.fix = "Drop --load-format (auto takes safetensors, else .bin), or convert the checkpoint to the format named."
    draft.decided_by = f"load_format {fmt} is set"
    draft.confidence = max(draft.confidence, 0.8)
    _reread_as(drafts, "weights_not_cached", draft)


def _architectures_listed_as_supported(arch: Optional[_Draft]) -> list[str]:
    """The architectures an 'are not supported' error names that its own 'Supported architectures' list holds (vLLM's
    troubleshooting guide: then the model's resolution failed, not its support); [] when none or no list."""
    if arch is None:
        return []
    for hit in arch.hits:
        supported = hit.groups.get("supported")
        if hit.signature != "arch_unsupported" or not supported:
            continue
        named = re.findall(r"\w+", hit.groups.get("arch") or "")
        listed = set(re.findall(r"'(\w+)'", supported))
        if named and all(n in listed for n in named):
            return named
    return []


def _decide_no_gpu(draft: _Draft, log: StartupLog) -> None:
    """No GPU found by a CPU-only PyTorch build is the wheel's doing, whatever the driver or container; no platform after
    vLLM could not read its own package metadata is the install's."""
    cpu = log.hits_of("torch_cpu_build")
    renamed = log.hits_of("vllm_dist_missing")
    if renamed and not cpu and not any(h.signature == "visible_devices_uuid" for h in draft.hits):
        draft.layer = "vllm_version_flags"
        draft.cause = ("vLLM could not read its own package metadata (importlib.metadata finds no distribution named 'vllm': "
                       "a build installed under another name, such as vllm-pascal, or a source tree that was not installed), "
                       "and its platform detection depends on it, so no platform was found although the GPU may be fine.")
        draft.fix = ("Install vLLM as the 'vllm' distribution (pip install -e . for a source tree), or give a renamed build a "
                     "'vllm' dist-info alias (e.g. a transient 'vllm' package that depends on it).")
        draft.decided_by = "'The vLLM package was not found' precedes the missing platform"
        draft.confidence = max(draft.confidence, 0.8)
        draft.hits = list(renamed) + draft.hits
    if cpu:
        torch = cpu[0].groups.get("torch")
        draft.layer = "pytorch_wheel"
        draft.cause = f"The installed PyTorch is a CPU-only build ({torch}), so no GPU platform exists for vLLM, whatever the driver."
        draft.fix = ("Install vLLM with the CUDA (or ROCm) torch build it pins, in a fresh virtualenv on Linux; for a CPU-only host use "
                     "vLLM's CPU backend build instead.")
        draft.decided_by = f"torch {torch} is a CPU-only build"
        draft.hits = draft.hits + list(cpu)


# Lines that say only that no platform was found. Alone they have several owners in public threads: the driver libraries
# not visible in the container (vllm-project/vllm#18859), a dependency of the release's platform detection (pynvml < 12
# with 0.7.2, #12947; a build installed under another name, sasha0552/pascal-pkgs-ci#26), a host without a GPU that
# needed --device cpu (#10717), a pod without the nvidia runtime class (llm-d/llm-d-deployer#273).
_PLATFORM_ONLY = frozenset({"no_device_type", "no_platform"})
LONE_PLATFORM_LINE_CONFIDENCE = 0.55


def _decide_quant_minimum(draft: _Draft) -> None:
    """A quantization refusal whose minimum is above what every release since one asks for, on a GPU that meets that, is the
    build's: a later release runs the method on this GPU."""
    hit = next((h for h in draft.hits if h.signature == "quant_unsupported"), None)
    if hit is None or draft.hits[0] is not hit:
        return
    method, need, have = (hit.groups.get(k) for k in ("method", "min", "cur"))
    if method not in RELEASE_MIN_CAPABILITY or not (need or "").isdigit() or not (have or "").isdigit():
        return
    release_min, since = RELEASE_MIN_CAPABILITY[method]
    if int(need) <= release_min or int(have) < release_min:
        return
    draft.layer = "vllm_version_flags"
    draft.cause = (f"This vLLM build's {method} method asks for compute capability {int(need) // 10}.{int(need) % 10}, "
                   f"more than every vLLM release since {since} asks for ({release_min // 10}.{release_min % 10}); "
                   f"this GPU has {int(have) // 10}.{int(have) % 10}: the build predates the release that runs {method} on it.")
    draft.fix = f"Install a vLLM release ({since} or later) instead of this pre-release or special build."
    draft.confidence = min(draft.confidence, 0.85)
    draft.decided_by = f"{method}'s minimum capability in every release since {since} is {release_min}"


WRAPPED_REASONS_LINES = 8  # how far below a reason-less backend refusal its wrapped "Reasons: {" line is looked for


_CUTLASS_OLDER = ("cutlass_moe_no_kernel_older", "cutlass_scaled_mm_no_kernel_older")


def _decide_cutlass_listed_capability(draft: _Draft) -> None:
    """A CUTLASS refusal whose own "Required capability" list names this GPU's capability: the kernel exists for the GPU
    but this build did not compile it -- the build's, not the GPU's."""
    hit = draft.hits[0] if draft.hits else None
    if hit is None or hit.signature not in _CUTLASS_OLDER:
        return
    cap, req = hit.groups.get("cap"), hit.groups.get("req") or ""
    if not cap or cap not in re.findall(r"\d+", req):
        return
    draft.layer = "vllm_version_flags"
    draft.confidence = max(draft.confidence, 0.7)
    draft.cause = (f"The CUTLASS kernel was refused for compute capability {cap} though the message lists {cap} among the "
                   f"capabilities it supports ({req}): this vLLM build did not compile that kernel for this GPU (a build "
                   "with a CUDA toolkit or architecture list that left it out).")
    draft.fix = "Use the project's wheel or image built with these kernels, or another MoE/GEMM backend for this quantization."
    draft.decided_by = "the refused capability is in the message's own list of supported ones"


def _decide_backend_reasons(drafts: dict[str, _Draft], log: StartupLog) -> None:
    """"No valid attention backend found" without its reasons on the line (the message cut or wrapped) does not say whether
    the GPU's compute capability or the configuration refused the backends: a hint naming both, not an answer -- unless
    the wrapped reasons follow within a few lines and name the compute capability, which reads as the GPU's refusal."""
    draft = drafts["attention_backend_fallback"]
    hit = draft.hits[0] if draft.hits else None
    if hit is None or hit.signature != "no_backend_for_config" or hit.groups.get("reasons"):
        return
    wrapped = next((h for h in log.hits_of("backend_reasons_capability")
                    if 0 < h.line_number - hit.line_number <= WRAPPED_REASONS_LINES), None)
    if wrapped is not None:
        gpu = SIGNATURES_BY_NAME["no_backend_for_gpu"]
        reasons = wrapped.text[wrapped.text.find("Reasons:"):]
        draft.symptom, draft.layer = gpu.symptom, gpu.layer
        draft.confidence = gpu.weight
        draft.cause = fill_template(gpu.cause, {"reasons": reasons})
        draft.fix = gpu.fix
        draft.hits = draft.hits + [wrapped]
        draft.decided_by = "the reasons wrapped onto a following line name the compute capability"
        _reread_as(drafts, "attention_backend_fallback", draft)
        return
    draft.confidence = min(draft.confidence, 0.5)
    draft.cause = ("No attention backend of this vLLM accepted this model's attention, and the reasons are not on the line "
                   "(the message is cut or wrapped): the GPU's compute capability (e.g. sparse MLA on a GPU its kernels do "
                   "not cover) or what the model and flags ask for (head size, KV-cache dtype, sinks) refused them.")
    draft.fix = ("Read the 'Reasons: {...}' that follows in the full message: 'compute capability not supported' needs a GPU "
                 "the backend supports; other reasons name a flag to change (--kv-cache-dtype, a forced --attention-backend).")
    draft.decided_by = "the backend refusal without its reasons: two owners"


# Platform.import_kernels imports vllm._C for whichever platform was chosen, the unspecified one included, and logs
# "Failed to import from vllm._C: <error>" when it fails (vllm/platforms/interface.py import_kernels, 0.22.0 and
# 0.33.0): a CUDA build on a host without NVIDIA's driver at all (a TPU VM, a CPU-only machine) prints the missing
# libcuda.so.1 there exactly as a container without the driver mounted does, so beside a no-platform line it says no
# more than that line.
_KERNEL_IMPORT = re.compile(r"Failed to import from vllm\._C")


def _platform_only(hit) -> bool:
    return hit.signature in _PLATFORM_ONLY or (hit.signature == "libcuda_missing" and bool(_KERNEL_IMPORT.search(hit.text)))


def _decide_lone_platform_line(draft: _Draft) -> None:
    """A no-platform line with nothing else about the GPU is a hint, not an answer: the layer stays the common owner
    (the driver libraries), the confidence stays below CONFIDENT and the cause names the other owners."""
    if not draft.hits or not any(h.signature in _PLATFORM_ONLY for h in draft.hits) or not all(
            _platform_only(h) for h in draft.hits):
        return
    draft.confidence = min(draft.confidence, LONE_PLATFORM_LINE_CONFIDENCE)
    draft.cause = ("vLLM found no CUDA platform, and the line alone does not say why: most often the driver libraries "
                   "(libcuda, libnvidia-ml) are not visible in the container or environment; also a dependency of this "
                   "vLLM's platform detection (pynvml older than 12 with vLLM 0.7.2, the 'vllm' package metadata of a build "
                   "installed under another name), a host without a GPU that needs --device cpu, a host without an NVIDIA "
                   "GPU at all running vLLM's CUDA build (a TPU VM needs the TPU build, vllm-tpu), or a Kubernetes pod "
                   "without the nvidia runtime class.")
    # GKE mounts the driver under /usr/local/nvidia, which the vllm/vllm-openai images built on CUDA 12.8-12.9 (0.9.0
    # on; CUDA 13.0 reverted the change) leave off LD_LIBRARY_PATH: both lone-line GKE threads (vllm#18859, 0.9.0 on an
    # L4; #23935), whose fix the on-call engineer can run, where the DEBUG restart only says more (the releases on CUDA
    # 12.8-12.9: versions.wheel_cuda, 0.9.0-0.19.x)
    draft.fix = ("Start again with VLLM_LOGGING_LEVEL=DEBUG: vLLM then logs why each platform was rejected (for CUDA, e.g. "
                 "'NVML Shared Library Not Found'); check nvidia-smi and torch.cuda.is_available() in the same environment. "
                 "On GKE with a vllm/vllm-openai image on CUDA 12.8-12.9 (0.9.0 to 0.19.x), whose LD_LIBRARY_PATH leaves out "
                 "the driver GKE mounts at /usr/local/nvidia: set LD_LIBRARY_PATH=/usr/local/nvidia/lib64:/usr/local/cuda/lib64 "
                 "in the container's env (vLLM issues 18859, 23935).")
    draft.decided_by = "one no-platform line and nothing else about the GPU: several owners in public threads"


def _decide_auth(draft: _Draft, log: StartupLog) -> None:
    if log.has("modelscope_env"):
        draft.layer = "vllm_version_flags"
        draft.cause = "VLLM_USE_MODELSCOPE is set, yet this vLLM fetched a file from huggingface.co for a ModelScope model id, which 401s."
        draft.fix = "Upgrade vLLM (a release that honours VLLM_USE_MODELSCOPE for every file), or use the Hugging Face model id with HF_TOKEN."
        draft.decided_by = "VLLM_USE_MODELSCOPE appears in the log"
        draft.hits = draft.hits + list(log.hits_of("modelscope_env"))


def _decide_hub_lookup_after_refusal(drafts: dict[str, _Draft]) -> None:
    """huggingface_hub raises its 'An error happened while trying to locate the file on the Hub' from the failed request
    (file_download.py _raise_on_head_call_error, 2.4.0): beside the Hub's refusal of a gated repository that line is the
    same failure told again, not a second one."""
    lookup = drafts.get("download_failed")
    if lookup is not None and all(h.signature == "hub_lookup_failed" for h in lookup.hits):
        del drafts["download_failed"]


def _decide_hub_name_resolution(drafts: dict[str, _Draft]) -> None:
    """A Hub request that failed because the host could not resolve huggingface.co (urllib3's NameResolutionError, or
    NewConnectionError with the resolver's gaierror) is not a timeout: the generic Hub connection-error reading of the
    same line (hub_timeout: 'timed out ... raise HF_HUB_DOWNLOAD_TIMEOUT') tells it again with the wrong cause."""
    unresolved = drafts.get("weights_not_cached")
    timeout = drafts.get("download_failed")
    if unresolved is None or timeout is None:
        return
    lines = {h.line_number for h in unresolved.hits if h.signature == "hub_name_resolution"}
    if lines and all(h.signature == "hub_timeout" and h.line_number in lines for h in timeout.hits):
        del drafts["download_failed"]


def _decide_parallel_divisibility(draft: _Draft, log: StartupLog) -> None:
    """vLLM's ensure_divisibility assertion names two numbers and not what they are; the frame above it does: the
    embedding's vocabulary split across tensor-parallel ranks (vocab_parallel_embedding.py
    vocab_range_from_global_vocab_size -> distributed/utils.py divide, 0.19.0)."""
    hit = next((h for h in draft.hits if h.signature == "parallel_not_divisible"), None)
    if hit is None or max(draft.hits, key=lambda h: SIGNATURES_BY_NAME[h.signature].weight) is not hit:
        return
    if not log.has("vocab_shard_frame"):
        return
    rows, ranks = int(hit.groups["num"]), int(hit.groups["den"])
    sizes = [n for n in range(1, 17) if rows % n == 0 and n != ranks]
    draft.cause = (f"Tensor parallelism {ranks} must split the embedding's (padded) vocabulary of {rows:,} rows evenly across "
                   f"its ranks, and {rows:,} is not a multiple of {ranks}; the model's heads can divide by it and still "
                   "leave the vocabulary that does not.")
    draft.fix = (f"Use a --tensor-parallel-size that divides the vocabulary (up to 16: {', '.join(map(str, sizes))}) and "
                 "the attention and KV heads.")
    draft.decided_by = "the assertion is raised from vocab_range_from_global_vocab_size (the vocabulary split across TP ranks)"
    draft.hits = draft.hits + list(log.hits_of("vocab_shard_frame"))[:1]
    # the frame rules out the release's own splits of an encoder (the bare line's third owner): what is left is the
    # deployment's TP size, as the line read before the bare line became a hint
    draft.confidence = max(draft.confidence, 0.7)


def _decide_removed_flags(draft: _Draft, log: StartupLog) -> None:
    """argparse's 'unrecognized arguments' naming flags a release removed (versions.SERVE_FLAG_UNTIL: --task,
    --swap-space, --rope-scaling...), the usual failure of a launch command carried over an upgrade: each is named with
    the release that removed it and its replacement. Where every flag refused is such a one and the log prints a
    release past each removal, the line has one owner, the command's flags for this release."""
    hit = next((h for h in draft.hits if h.signature == "argparse_unrecognized"), None)
    if hit is None or max(draft.hits, key=lambda h: SIGNATURES_BY_NAME[h.signature].weight) is not hit:
        return
    flags = list(dict.fromkeys(re.findall(r"(?<![\w-])--[a-z][\w-]*", hit.groups.get("args") or "")))
    from kvplan.errors import InputError

    version = log.vllm_version
    try:
        # the table says the log's release still has these: the refusal is another one's (a plugin, a typo)
        kept = {f for f in flags if version and f in SERVE_FLAG_UNTIL and removed_flag(f, version) is None}
    except InputError:  # a number that names no release (an untagged source build's 0.1.devN): as if none were printed
        version, kept = None, set()
    removed = {}
    for flag in flags:
        if flag not in SERVE_FLAG_UNTIL or flag in kept:
            continue
        last = release_text(SERVE_FLAG_UNTIL[flag][0])
        removed[flag] = (last, SERVE_FLAG_UNTIL[flag][1])
    if not removed:
        return
    said = "; ".join(f"{flag} was removed in vLLM {last} ({fix})" for flag, (last, fix) in removed.items())
    others = [f for f in flags if f not in removed]
    draft.cause = (f"The launch command carries flags this vLLM no longer has: {said}."
                   + (f" Not in kvplan's table of removed flags: {', '.join(others)} (removed too, added after this release, "
                      "a plugin's, or misspelt)." if others else ""))
    draft.fix = (f"Drop or replace {', '.join(removed)} as said" + (f", and check {', '.join(others)} against `vllm serve "
                                                                     "--help` of this release" if others else "")
                 + "; or pin the release the command was written for.")
    draft.decided_by = f"{', '.join(removed)}: removed from vllm serve (kvplan's table of removed flags, versions.py)"
    if not others and version:
        # the log's own release is past each removal; without it the line keeps its other owner (a flag and its value
        # passed as one list item reads 'unrecognized arguments: --task embed' alike), and stays a hint
        draft.confidence = max(draft.confidence, 0.8)


def _decide_zmq_bind(draft: _Draft, log: StartupLog) -> None:
    """A bare "ZMQError: Address already in use" is one of vLLM's internal sockets, not the HTTP port, whatever the
    generic bind-error reading (another process on the host, the environment's) says of the same line; the line has
    several owners in public threads, so it stays a hint. With the shared-memory broadcast queue's bind in the
    traceback the socket and the way its port was chosen are known: MessageQueue.__init__ binds the port get_open_port()
    probed and released, scanning up from VLLM_PORT when that is set (shm_broadcast.py and network_utils.py, 0.10.2-0.26.0),
    so another process can take it in between, most often a second vLLM seeded with the same VLLM_PORT; 0.28.0 binds
    port 0 instead."""
    bare = next((h for h in draft.hits if h.signature == "zmq_port_in_use_bare"), None)
    if bare is None or any(h.signature == "zmq_port_in_use" for h in draft.hits):
        return
    sig = SIGNATURES_BY_NAME["zmq_port_in_use_bare"]
    draft.layer, draft.confidence = sig.layer, sig.weight
    draft.cause, draft.fix = sig.cause, sig.fix
    draft.decided_by = "the bind error is ZeroMQ's: one of vLLM's internal sockets, not the HTTP --port"
    if not log.has("shm_broadcast_remote_bind_frame"):
        return
    draft.cause = ("The shared-memory broadcast queue could not bind the port for its readers on other nodes: this release "
                   "picks that port by probing one and releasing it (get_open_port, scanning up from VLLM_PORT when it is "
                   "set), then binds it, and another process took it in between -- most often another vLLM process on "
                   "the node started with the same VLLM_PORT, as a launcher that sets it for every instance does.")
    draft.fix = ("Upgrade to vLLM 0.28 or later (the queue binds a port the OS assigns), or do not give several vLLM "
                 "processes on a node the same VLLM_PORT (unset it in the launcher, or space the values apart); the HTTP "
                 "--port is not this port.")
    draft.decided_by = "the ZeroMQ bind is the broadcast queue's remote socket (MessageQueue.__init__), at a port get_open_port probed"
    draft.hits = draft.hits + list(log.hits_of("shm_broadcast_remote_bind_frame"))[:1]


def _decide_sampler_after_uncounted_graphs(draft: _Draft, log: StartupLog) -> None:
    """The sampler warm-up comes after the CUDA-graph capture (vllm/v1/worker/gpu_worker.py compile_or_warm_up_model,
    0.19.0), and the memory profile already ran the sampler (gpu_model_runner.py profile_run). In 0.18-0.19 the
    pool is sized without the CUDA-graph estimate unless VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1
    (determine_available_memory), which such a start says ('CUDA graph memory profiling will be enabled by default'):
    the graphs captured after the pool was allocated then come on top of the budget, and what they took is the part
    of the headroom the warm-up did not find."""
    sampler = next((h for h in draft.hits if h.signature == "err_sampler_oom"), None)
    taken = log.cudagraph_taken_gib
    if sampler is None or taken is None or not log.has("graph_future_default"):
        return
    graphs = [h for h in log.hits_of("graph_capture", "graph_actual") if h.line_number < sampler.line_number]
    if not graphs:
        return
    n = sampler.groups.get("n") or "?"
    draft.cause = (f"The sampler warm-up with {n} dummy requests ran out of memory after the CUDA graphs were captured: "
                   "this release sized the KV cache without its CUDA-graph estimate (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS "
                   f"off, the 0.18-0.19 default), so the {taken:.2f} GiB the graphs took came on top of the budget and left "
                   "the warm-up too little.")
    util, total = log.gpu_memory_utilization, log.total_gib
    lower = ""
    if util and total:
        lower = f" to {math.floor((util - taken / total) * 100) / 100:.2f} or less"
    draft.fix = (f"Lower --gpu-memory-utilization by the graphs' share{lower}, or set "
                 "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1 so the pool leaves room for them; a lower --max-num-seqs "
                 "shrinks the warm-up.")
    draft.decided_by = f"the CUDA graphs ({taken:.2f} GiB) were captured before the warm-up, outside the budget"
    draft.hits = draft.hits + graphs[:1] + list(log.hits_of("graph_future_default"))[:1]


def _default_utilization(version: str | None) -> float:
    """vLLM's gpu_memory_utilization default for the log's release (versions.py default_gpu_memory_utilization); a log
    that names no release gets the largest default any release has, so the weights must pass the larger budget."""
    from kvplan.errors import InputError
    from kvplan.versions import rule_values, rules_for

    if version:
        try:
            return rules_for(version).default_gpu_memory_utilization
        except InputError:  # a version string kvplan cannot place: the conservative default below
            pass
    return max(rule_values("default_gpu_memory_utilization"))


def _decide_weights_over_budget(draft: _Draft, log: StartupLog) -> None:
    """An out-of-memory after the weights loaded, where the weights alone are more than the start's whole budget. vLLM
    gives the start gpu_memory_utilization x the GPU's total (vllm/v1/worker/gpu_worker.py Worker.init_device:
    requested_memory = total_memory x gpu_memory_utilization) and sizes the KV cache as that minus everything the profile
    measured, the weights first (determine_available_memory: requested_memory - non_kv_cache_memory; 0.13.0): with the
    weights already past it no later step can leave a KV cache, and the OOM the profile (or its torch.compile autotuning)
    hits is only the first allocation past them. Lower utilization and eager mode then do not help."""
    ooms = [h for h in draft.hits if h.signature == "err_cuda_oom"]
    weights = log.weights_gib
    if not ooms or weights is None or any(h.signature != "err_cuda_oom" for h in draft.hits):
        return
    loaded = [h.line_number for h in log.hits_of("weights", "weights_old")]
    if not loaded or min(loaded) > ooms[0].line_number:
        return
    total = torch_gib(ooms[0].groups, "total")  # the OOM message's own total, else the log's
    if total is None:
        total = log.total_gib
    if not total:
        return
    util = log.gpu_memory_utilization or log.engine_args.get("gpu_memory_utilization")
    try:
        util = float(util) if util is not None else _default_utilization(log.vllm_version)
    except (TypeError, ValueError):
        return
    budget = util * total
    if weights < budget:
        return
    draft.cause = (f"The weights alone took {weights:.2f} GiB of this {total:.2f} GiB GPU, more than the whole start's budget "
                   f"(--gpu-memory-utilization {util:g} x {total:.2f} = {budget:.2f} GiB for weights, activations and KV cache): "
                   "the out-of-memory in the memory profile after them is the first allocation past the weights, and no KV "
                   "cache could have been sized.")
    draft.fix = ("Serve a quantized (AWQ/GPTQ/FP8) or smaller checkpoint, or shard it over more GPUs (--tensor-parallel-size); "
                 "--enforce-eager and a lower --gpu-memory-utilization do not make room for the weights.")
    draft.confidence = max(draft.confidence, 0.85)
    draft.decided_by = f"the weights ({weights:.2f} GiB) exceed utilization x total ({budget:.2f} GiB)"
    draft.details.update({"weights_gib": round(weights, 2), "total_gib": round(total, 2), "budget_gib": round(budget, 2)})
    draft.hits = draft.hits + list(log.hits_of("weights", "weights_old"))[:1]


_LOADING_FRAME = re.compile(r"\bload_model\(|\bload_weights\(|weight_loader\(|initialize_model\(|Loading safetensors checkpoint shards")


def _decide_oom_while_loading(draft: _Draft, log: StartupLog) -> None:
    """A torch out-of-memory that a release before 0.16 (no "Failed to load model" line, vllm/v1/worker/
    gpu_model_runner.py GPUModelRunner.load_model in 0.16.0) raises while the weights load: the start's step is read
    from the log (vLLM logs "Starting to load model" before the loader, the weights' "Model loading took" after it,
    and profiles, sizes the pool and captures graphs only then: vllm/v1/engine/core.py EngineCore.__init__), or from
    the traceback's frames. The weights (in the dtype they are loaded in: online FP8 up to 0.15 builds the model in
    16 bits first) do not fit on the card, so eager mode and a lower utilization cannot help."""
    ooms = [h for h in draft.hits if h.signature == "err_cuda_oom"]
    if not ooms or any(h.signature != "err_cuda_oom" for h in draft.hits):
        return
    first = ooms[0].line_number
    started = [h.line_number for h in log.hits_of("load_model_start") if h.line_number < first]
    loaded = [h.line_number for h in log.hits_of("weights", "weights_old", *_SIZED) if h.line_number < first]
    frames = [line for line in log.error_lines if _LOADING_FRAME.search(line)]
    if loaded or not (started or frames):
        return
    draft.cause = ("The GPU ran out of memory while the weights were loading (the out-of-memory comes after "
                   + ("\"Starting to load model\"" if started else "a loading frame of the traceback")
                   + " and before any \"Model loading took\" line): the checkpoint, in the dtype it is loaded in, does "
                   "not fit in the memory this GPU has free, before any KV cache, profiling or CUDA graph. Online "
                   "--quantization fp8 up to vLLM 0.15 first builds the whole model in 16 bits.")
    draft.fix = ("Serve a smaller model or a quantized checkpoint (AWQ/GPTQ/FP8) that fits, shard it over more GPUs "
                 "(--tensor-parallel-size), or free the GPU of other processes; --enforce-eager and a lower "
                 "--gpu-memory-utilization do not help here.")
    draft.confidence = max(draft.confidence, 0.85)
    draft.decided_by = "an out-of-memory after the model's load began and before its weights were loaded"
    draft.hits = draft.hits + list(log.hits_of("load_model_start"))[:1]


def _decide_triton_image_on_old_gpu(drafts: dict[str, _Draft], log: StartupLog) -> None:
    """'device kernel image is invalid' from a Triton kernel is the driver refusing the cubin (Triton loads it with
    cuModuleLoadData, third_party/nvidia/backend/driver.c loadBinary): either the GPU is newer than the Triton that built it
    (Blackwell with a pre-CUDA-12.8 stack, the signature's reading) or the cubin came from a ptxas newer than the driver
    (Triton compiles with the ptxas it bundles unless TRITON_PTXAS_PATH names another: triton/backends/nvidia/compiler.py
    _path_to_binary, Triton 3.x). On a GPU older than Ampere (vLLM's 'FA2 is only supported on devices with compute
    capability >= 8') the first reading is out, so the driver is left, as a hint: the log does not name the driver."""
    draft = drafts["unsupported_gpu"]
    if not any(h.signature == "triton_kernel_invalid" for h in draft.hits) or not log.has("fa2_below_cc8"):
        return
    if any(h.signature != "triton_kernel_invalid" for h in draft.hits):
        return
    draft.symptom, draft.layer = "driver_too_old", "nvidia_driver"
    draft.confidence = min(draft.confidence, 0.5)
    draft.cause = ("The driver refused a kernel Triton compiled for this GPU, which is older than Ampere (vLLM's FlashAttention-2 "
                   "check says so), so the GPU is not too new for Triton: the likely owner is a driver older than the ptxas "
                   "Triton compiled with (it bundles one from a recent CUDA unless TRITON_PTXAS_PATH names another).")
    draft.fix = ("Check the driver (nvidia-smi) against the CUDA of Triton's bundled ptxas; upgrade the driver, or point "
                 "TRITON_PTXAS_PATH at the ptxas of a CUDA the driver supports; clear ~/.triton/cache.")
    draft.decided_by = "a Triton cubin refused on a pre-Ampere GPU: the driver, as a hint"
    draft.hits = draft.hits + list(log.hits_of("fa2_below_cc8"))[:1]
    _reread_as(drafts, "unsupported_gpu", draft)


_SITE_PYTHON = re.compile(r"/python(?P<ver>3\.\d+)/(?:site|dist)-packages/")


def _decide_python_of_generic(draft: _Draft, log: StartupLog) -> None:
    """A builtin type subscripted at import: name the Python the traceback's paths show."""
    if not any(h.signature == "builtin_generic_old_python" for h in draft.hits):
        return
    for line in log.error_lines:
        m = _SITE_PYTHON.search(line)
        if m:
            draft.cause += f" The traceback's paths show Python {m.group('ver')}."
            draft.details["python"] = m.group("ver")
            return


def _decide_deepgemm_unavailable(draft: _Draft, log: StartupLog) -> None:
    """vllm/utils/deep_gemm.py's `_missing` placeholder has several owners (the package not installed, an external one
    without the release's API, the release's own warm-up), so the line alone is a hint. Its 0.11 wording ("Please
    install the `deep_gemm` package") comes from releases whose wheel carried no DeepGEMM: the package was simply not
    installed. Under the warm-up's frame, 0.20.0's deep_gemm_warmup asked DeepGEMM for its block alignment for every
    module before checking that it is an FP8 block layer (_count_warmup_iterations -> _fp8_linear_may_use_deep_gemm ->
    get_mk_alignment_for_contiguous_layout), so an unquantized model fails there too; kernel_warmup skips the warm-up
    with VLLM_DEEP_GEMM_WARMUP=skip or VLLM_USE_DEEP_GEMM=0 (kernel_warmup.py 0.20.0), and 0.33.0 asks only layers
    whose kernel is DeepGEMM's."""
    hit = next((h for h in draft.hits if h.signature == "deepgemm_unavailable"), None)
    if hit is None or max(draft.hits, key=lambda h: SIGNATURES_BY_NAME[h.signature].weight) is not hit:
        return
    if (hit.groups.get("tail") or "").startswith(". Please install"):
        draft.cause = ("vLLM asked for a DeepGEMM kernel and no deep_gemm package is installed: this release's wheel does "
                       "not carry DeepGEMM, which the models and GPUs that use it (FP8 block GEMMs on Hopper and "
                       "Blackwell, DeepSeek-V3.2's sparse-attention indexer) need installed apart.")
        draft.fix = ("Install DeepGEMM into the same environment (vLLM's tools/install_deepgemm.sh of this release), or, "
                     "for a model that does not need it, start with VLLM_USE_DEEP_GEMM=0.")
        draft.decided_by = "the 0.11 wording of the placeholder: a release whose wheel carries no DeepGEMM"
        draft.confidence = max(draft.confidence, 0.75)
        return
    if not log.has("deep_gemm_warmup_frame"):
        return
    draft.layer = "vllm_version_flags"
    draft.cause = ("DeepGEMM's start-up warm-up failed because DeepGEMM could not be loaded: a release that finds a "
                   "deep_gemm module (an external one, or the copy its wheel bundles) runs the warm-up for every model, and "
                   "0.20's warm-up asks DeepGEMM for its block alignment for each layer before checking that the layer is "
                   "an FP8 block one, so an unquantized model fails there too.")
    draft.fix = ("Start with VLLM_DEEP_GEMM_WARMUP=skip, or VLLM_USE_DEEP_GEMM=0 where the model has no FP8 block weights; "
                 "check that deep_gemm imports in this environment (an external deep_gemm older than the release shadows "
                 "the bundled one); releases that warm up only DeepGEMM's own layers do not fail here.")
    draft.decided_by = "the placeholder was raised under deep_gemm_warmup (kernel_warmup), not under a kernel the model uses"
    draft.hits = draft.hits + list(log.hits_of("deep_gemm_warmup_frame"))[:1]


def _teardown_sigterm(drafts: dict[str, _Draft]) -> bool:
    """A worker's 'handling signal 15' after another failure is vLLM's own teardown: the executor sends SIGTERM to its
    workers when one of them fails (vllm/v1/executor/multiproc_executor.py _ensure_worker_termination, and worker_main's
    'The parent sends a SIGTERM to all worker processes if any worker dies', 0.19.0), not a probe."""
    kill = drafts["k8s_probe_kill"]
    if not all(h.signature == "sigterm" for h in kill.hits):
        return False
    first = min(h.line_number for h in kill.hits)
    return any(d.fatal and min(h.line_number for h in d.hits) < first
               for name, d in drafts.items() if name != "k8s_probe_kill" and d.hits)


# Lines that are evidence of a failed multi-GPU/shared-memory set-up on their own, wherever they are in the log.
_HANG_EVIDENCE = frozenset({"nccl_timeout", "nccl_shm", "ray_shm_request", "bus_error", "gloo_full_mesh", "ray_node_no_gpu",
                            "ray_driver_without_gpu", "ray_node_unknown", "oneccl_exception", "ray_version_mismatch",
                            "hipblaslt_load_open_files", "nvlink_uncorrectable", "ray_pg_timeout",
                            "tma_descriptor_nvlink", "src_shm_insufficient"})


def _decide_hang(drafts: dict[str, _Draft], log: StartupLog) -> None:
    """P2P / custom all-reduce lines only mean a hang when the log stops right there;
    an NCCL error or timeout line (or NCCL's shared-memory failure) is evidence on its own."""
    draft = drafts.get("tp_init_hang")
    if draft is None or any(h.signature in _HANG_EVIDENCE for h in draft.hits):
        return
    if not log.started and any(h.signature == "ray_shm_fallback" for h in draft.hits):
        draft.decided_by = "Ray reports a /dev/shm too small for its object store and the log shows no start"
        return
    if not log.started and any(h.signature == "ray_pg_waiting" for h in draft.hits):
        draft.decided_by = "Ray is still waiting for its placement group and the log shows no start"
        return
    tail = [line for line in log.last_lines[-3:]]
    stops_there = any(h.text[:KEPT_LINE_CHARS] in tail for h in draft.hits)  # a hit's line as last_lines keeps it
    if log.started or not stops_there:
        del drafts["tp_init_hang"]
    else:
        draft.confidence = 0.55
        draft.decided_by = "the log ends at the GPU peer-to-peer / all-reduce set-up"


# Evidence that reads as a warning in a start that went on, but is the failure when the log shows no start after it:
# no CUDA platform (vLLM probes platforms at DEBUG level, so the line alone is not an error), a disk almost full
# while the weights download, a start that stops at the GPU peer-to-peer / NCCL set-up (a hang never serves).
FATAL_WITHOUT_START = {
    "gpu_not_detected_in_container": "vLLM found no CUDA platform and the log shows no start after it",
    "disk_full_download": "the disk is almost full and the log shows no start after it",
    "tp_init_hang": "the log ends at the GPU peer-to-peer / all-reduce set-up: the start hangs there",
    "interrupted": "the start was interrupted (SIGINT) and the log shows no start before it",
}


def _decide_fatal_without_start(drafts: dict[str, _Draft], log: StartupLog) -> None:
    if log.started:
        return
    for symptom, why in FATAL_WITHOUT_START.items():
        draft = drafts.get(symptom)
        if draft is not None and not draft.fatal:
            draft.fatal = True
            draft.decided_by = draft.decided_by or why


def _decide_free_memory(draft: _Draft, log: StartupLog) -> None:
    free, total = log.free_at_start_gib, log.total_gib
    if free is None or total is None or total <= 0:
        return
    held = total - free
    start_util = math.floor((free / total - 0.01) * 100) / 100
    draft.details.update({"free_gib": free, "total_gib": total, "held_by_others_gib": round(held, 2),
                          "utilization_that_starts": start_util})
    if free / total < 0.15:
        draft.cause = (f"Only {free} of {total} GiB was free at startup: another process (often an earlier vLLM that did not exit) "
                       f"holds {held:.2f} GiB, nearly the whole GPU.")
        draft.fix = "Find and stop the process holding the GPU (nvidia-smi), or run on a free GPU; lowering the utilization will not leave room for the model."
        draft.decided_by = f"free memory {free} GiB is under 15% of the GPU"
    else:
        draft.fix = (f"Lower --gpu-memory-utilization to {start_util} (the free fraction minus a margin), or stop the process holding "
                     f"{held:.2f} GiB.")
        draft.decided_by = f"{held:.2f} GiB held by other processes at startup"


# Memory outside this process's PyTorch reserve that one vLLM process can hold itself (CUDA context, NCCL and cuBLAS
# buffers: well under this); beyond it, in an OOM message that counts only PyTorch's reserve, another process holds it.
OWN_NON_TORCH_GIB = 4.0


def _held_elsewhere_gib(log: StartupLog) -> Optional[tuple[float, float, SignatureHit]]:
    """(GiB held outside this process, the GPU's total, the line) from PyTorch's own OOM accounting, when it shows
    more than this process can hold outside its PyTorch reserve; None otherwise. The torch >= 2.1 message counts the
    process's non-PyTorch memory too, so what is left is other processes' exactly; the older one counts PyTorch's
    reserve only, so this process's own non-PyTorch memory (OWN_NON_TORCH_GIB at most) is allowed for."""
    for hit in log.hits_of("oom_accounting_new", "oom_accounting_old"):
        g = hit.groups
        total = torch_gib(g, "total")
        held = total - torch_gib(g, "free") - torch_gib(g, "own")
        margin = 0.5 if hit.signature == "oom_accounting_new" else OWN_NON_TORCH_GIB  # 0.5: the message's rounding
        if held > max(margin, 0.1 * total):
            return round(held, 2), round(total, 2), hit
    return None


def _decide_cudagraph_estimate(draft: _Draft, log: StartupLog) -> None:
    """No room for KV blocks in a start that reserved its CUDA-graph estimate first (the profiling is on by default from
    0.21, gpu_worker.py determine_available_memory): the estimate is part of what left no room, and it can be the part
    that is wrong (vLLM issue #53013: 118.65 GiB estimated, the start ran with the estimate off). The line alone does not
    tell the two apart, so the finding names both; its layer and confidence stay the budget's."""
    gib = log.cudagraph_estimated_gib
    if gib is None:
        return
    draft.cause += (f" The start first reserved {gib:.2f} GiB for its CUDA-graph estimate (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS, "
                    "on by default since 0.21); if that estimate is far above what the graphs take, the estimate, not the "
                    "budget, left no room.")
    draft.fix += (" To check the estimate, start once with VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0 and a lower "
                  "--gpu-memory-utilization, or capture fewer sizes (--cudagraph-capture-sizes / --max-cudagraph-capture-size).")
    draft.hits = draft.hits + list(log.hits_of("graph_estimate"))


def _decide_oom_at_kv_allocation(drafts: dict[str, _Draft], log: StartupLog) -> None:
    """An out-of-memory raised while the KV cache itself is allocated is not a graph-capture or profiling overrun: the
    profile sized the pool from memory it counted as this engine's, and that memory was held by someone else when
    the tensors were created (a budget taken as a share of the whole GPU, as vLLM's is, counts another process's
    memory as its own). PyTorch's own OOM accounting that shows most of the GPU held outside the process says the
    same wherever the OOM came from."""
    oom = drafts.get("oom_graph_capture_or_profiling")
    if oom is None or "free_memory_below_utilization" in drafts:
        return
    if not any(h.signature == "err_cuda_oom" for h in oom.hits):  # the sampler warm-up comes after the allocation
        return
    frames = list(log.hits_of("kv_alloc_frame"))
    elsewhere = _held_elsewhere_gib(log)
    if frames:
        decided_by = "the out-of-memory error is raised inside the KV-cache allocation"
    elif elsewhere:
        frames = [elsewhere[2]]
        decided_by = (f"PyTorch's out-of-memory accounting leaves {elsewhere[0]} of {elsewhere[1]} GiB held outside this "
                      "process")
    else:
        return
    del drafts["oom_graph_capture_or_profiling"]
    drafts["free_memory_below_utilization"] = _Draft(
        symptom="free_memory_below_utilization", layer="memory_budget",
        cause=("CUDA ran out of memory because memory the startup counted on was not free: another process (often a "
               "second vLLM or a notebook kernel) holds part of the GPU, and gpu_memory_utilization is a share of the "
               "whole GPU, not of its free memory."),
        fix=("Stop the other process on the GPU (nvidia-smi lists it) or give each engine its own GPU; sharing one, set "
             "each --gpu-memory-utilization so that together they stay below 1 minus what the rest holds."),
        confidence=max(oom.confidence, 0.75), fatal=True, hits=oom.hits + frames, decided_by=decided_by)


def _decide_cpu_kv_space(draft: _Draft, log: StartupLog) -> None:
    """On the CPU backend a KV cache size given explicitly (--kv-cache-memory-bytes, or VLLM_CPU_KVCACHE_SPACE in GiB:
    vllm/platforms/cpu.py check_and_update_config, 0.25.1) is used as it is (cpu_worker.py determine_available_memory);
    0 GiB leaves no block, whatever --gpu-memory-utilization the error's advice names."""
    hits = [h for h in log.hits_of("cpu_kv_explicit") if float(h.groups.get("kv") or 1) <= 0.0]
    if not hits:
        return
    draft.cause = (f"The CPU backend was given an explicit KV cache of {hits[0].groups['kv']} of {hits[0].groups['total']} "
                   "GiB (VLLM_CPU_KVCACHE_SPACE=0, or --kv-cache-memory-bytes 0), so no block could be allocated; the "
                   "error's advice to raise gpu_memory_utilization does not apply to an explicit size.")
    draft.fix = ("Set VLLM_CPU_KVCACHE_SPACE to the GiB the KV cache may take (or --kv-cache-memory-bytes), or unset it so "
                 "vLLM sizes the cache from the memory requested.")
    draft.hits = draft.hits + hits[:1]
    draft.decided_by = "the CPU backend logged an explicit KV cache size of 0 GiB"


_NCCL_USAGE = ("nccl_duplicate_gpu", "nccl_invalid_usage")


def _decide_nccl_usage(drafts: dict[str, _Draft]) -> None:
    """NCCL's 'invalid usage' (and the 'Duplicate GPU detected' warning behind it) is a caller's error: two ranks placed
    on one GPU, whose owner differs between public threads (a trainer sharing the server's GPU, a data-parallel launcher,
    Ray's placement). When nothing stronger than NCCL's generic error lines names another cause, the finding is that
    hint, with the placement as its layer, not a confident reading of the interconnect's driver."""
    draft = drafts.get("tp_init_hang")
    if draft is None:
        return
    usage = [h for h in draft.hits if h.signature in _NCCL_USAGE]
    if not usage:
        return
    strongest = max(draft.hits, key=lambda h: SIGNATURES_BY_NAME[h.signature].weight)
    if strongest.signature not in _NCCL_USAGE + ("nccl_timeout",):
        return
    hit = next((h for h in usage if h.signature == "nccl_duplicate_gpu"), usage[0])
    sig = SIGNATURES_BY_NAME[hit.signature]
    groups = _enrich_groups(hit.groups)
    draft.layer = sig.layer
    draft.cause = fill_template(sig.cause, groups)
    draft.fix = fill_template(sig.fix, groups)
    draft.confidence = min(draft.confidence, 0.5)
    draft.decided_by = "NCCL reports invalid usage (two ranks on one GPU): a placement with several owners, not the interconnect"


def _decide_fallback(drafts: dict[str, _Draft], log: StartupLog) -> None:
    """A slow backend chosen without an explanation line is a weak hint, never a confident answer."""
    from kvplan.reconcile import SLOW_BACKENDS, backend_fallback

    if "attention_backend_fallback" in drafts:
        draft = drafts["attention_backend_fallback"]
        draft.hits += [h for h in log.hits_of("backend_old", "backend_new") if h.groups.get("backend") in SLOW_BACKENDS]
        # vLLM picks the slower backend and goes on (vllm/platforms/cuda.py get_attn_backend_cls, 0.7.2-0.9.1: the
        # Volta/Turing refusal is logged at INFO and XFormers is chosen): beside another failure that ended the start
        # it is context, not a second answer
        if not draft.fatal and any(d.fatal for name, d in drafts.items() if name != "attention_backend_fallback"):
            draft.confidence = min(draft.confidence, 0.4)
            draft.decided_by = "a fallback the start went on past; another failure ended it"
        return

    sentence = backend_fallback(log)
    if sentence:
        hits = list(log.hits_of("backend_old", "backend_new"))
        drafts["attention_backend_fallback"] = _Draft(
            symptom="attention_backend_fallback", layer="gpu",
            cause=sentence + "; the log does not say why (GPU older than compute capability 8.0, a dtype, or a missing kernel package).",
            fix="Check the GPU's compute capability (FlashAttention needs >= 8.0) and the WARNING/INFO lines above the backend line; "
                "pin --attention-backend only once the cause is known.",
            confidence=0.35, fatal=False, hits=hits,
        )


def _rank(drafts: Iterable[_Draft]) -> list[Finding]:
    findings = [d.freeze() for d in drafts]
    return sorted(findings, key=lambda f: (f.fatal, f.confidence), reverse=True)


def diagnose(source: Source | StartupLog) -> Diagnosis:
    """Read a startup log (or the text around it) and rank what went wrong."""
    log = source if isinstance(source, StartupLog) else parse_log(source)
    context = _scan_context(log)
    drafts = _drafts_from_hits(log)
    if "driver_too_old" in drafts:
        _decide_driver(drafts["driver_too_old"], log, context)
    _decide_architecture(drafts)
    _decide_inspection_crash(drafts)
    _decide_weights_format(drafts, log)
    if "gated_repo_auth" in drafts:
        _decide_auth(drafts["gated_repo_auth"], log)
        _decide_hub_lookup_after_refusal(drafts)
    _decide_hub_name_resolution(drafts)
    if "invalid_engine_flags" in drafts:
        _decide_parallel_divisibility(drafts["invalid_engine_flags"], log)
        _decide_removed_flags(drafts["invalid_engine_flags"], log)
    if "gpu_not_detected_in_container" in drafts:
        _decide_no_gpu(drafts["gpu_not_detected_in_container"], log)
        _decide_lone_platform_line(drafts["gpu_not_detected_in_container"])
    if "quant_unsupported_on_gpu" in drafts:
        _decide_quant_minimum(drafts["quant_unsupported_on_gpu"])
        _decide_cutlass_listed_capability(drafts["quant_unsupported_on_gpu"])
    if "port_in_use" in drafts:
        _decide_zmq_bind(drafts["port_in_use"], log)
    _decide_nccl_usage(drafts)
    _decide_hang(drafts, log)
    _decide_fatal_without_start(drafts, log)
    _decide_oom_at_kv_allocation(drafts, log)
    if "no_cache_blocks" in drafts:
        _decide_cudagraph_estimate(drafts["no_cache_blocks"], log)
        _decide_cpu_kv_space(drafts["no_cache_blocks"], log)
    if "oom_graph_capture_or_profiling" in drafts:
        _decide_sampler_after_uncounted_graphs(drafts["oom_graph_capture_or_profiling"], log)
        _decide_weights_over_budget(drafts["oom_graph_capture_or_profiling"], log)
        _decide_oom_while_loading(drafts["oom_graph_capture_or_profiling"], log)
    if "unsupported_gpu" in drafts:
        _decide_triton_image_on_old_gpu(drafts, log)
    if "import_undefined_symbol" in drafts:
        _decide_python_of_generic(drafts["import_undefined_symbol"], log)
        _decide_deepgemm_unavailable(drafts["import_undefined_symbol"], log)
    if "free_memory_below_utilization" in drafts:
        _decide_free_memory(drafts["free_memory_below_utilization"], log)
    if "attention_backend_fallback" in drafts:
        _decide_backend_reasons(drafts, log)
    _decide_fallback(drafts, log)
    if "interrupted" in drafts:
        if log.started:  # Ctrl-C after the start: how the server was stopped
            del drafts["interrupted"]
        elif any(d.fatal for name, d in drafts.items() if name != "interrupted"):
            # a start that had already failed or hung, stopped by hand: the other finding is the cause
            interrupted = drafts["interrupted"]
            interrupted.fatal = False
            interrupted.confidence = min(interrupted.confidence, 0.4)
            interrupted.decided_by = "another failure came first: the interrupt stopped a start that had failed or hung"
    if "k8s_probe_kill" in drafts and _teardown_sigterm(drafts):
        del drafts["k8s_probe_kill"]
    if "k8s_probe_kill" in drafts:
        if log.started and not drafts["k8s_probe_kill"].fatal:
            del drafts["k8s_probe_kill"]
        else:
            drafts["k8s_probe_kill"].details.update(probe_advice(log))
    findings = _rank(drafts.values())
    fatal = any(f.fatal for f in findings)
    started = bool(log.started) and not fatal
    crashed = _crash_after_sizing(log) if log.started else None
    if crashed and crashed[0]:  # sized its pool, then died before it was ready: the server never came up
        started = False
    # the lines not recognised are reconcile's to list: diagnose neither prints them nor puts them in --json
    notes = list(log.parse_warnings_listed("`kvplan reconcile` lists them"))
    if started:
        # what reconcile will need that this log does not say (it refuses to plan on a guess)
        from kvplan.reconcile import UNSTATED_PLAN_FLAGS, plan_kwargs_from_log, unstated_plan_flags

        command = "kvplan reconcile LOG MODEL" + "".join(
            f" {flag} {UNSTATED_PLAN_FLAGS[flag]}" for flag in unstated_plan_flags(log, plan_kwargs_from_log(log)))
    if started and crashed:
        notes.insert(0, crashed[1] + f"; `{command}` compares the start's figures with the plan")
    elif started and not findings:
        notes.insert(0, "healthy start: the engine sized its KV cache and nothing known went wrong; "
                        f"run `{command}` to compare the figures with the plan")
    elif started:
        notes.insert(0, f"the engine started, degraded; `{command}` compares its figures with the plan")
    if not findings and not started:
        notes.insert(0, "not recognised: no known failure signature in this text; " + (
            "the lines that look like errors are listed" if log.error_lines else "its last lines are listed"))
        stopped = crashed[1] if crashed else _stopped_mid_start(log)
        if stopped:
            notes.insert(1, stopped)
    elif crashed and not started and not fatal:
        notes.insert(0, crashed[1])
    # only lines that look like errors; a text without any shows its last lines apart, under their own name
    error_lines = tuple(log.error_lines[-20:])
    return Diagnosis(started=started, findings=tuple(findings), error_lines=error_lines, notes=tuple(notes), log=log)


# The steps of a start, in order, by the lines that close them: where a log that shows neither a start nor an error
# stops (vllm/v1/engine/core.py EngineCore.__init__: the executor loads the weights, then _initialize_kv_caches
# profiles the memory, sizes the pool and captures the CUDA graphs)
_START_STEPS = (
    (("version_api_server", "version_banner", "non_default_args", "namespace_args", "version_engine", "engine_config"),
     "after the engine was configured, before the weights were loaded"),
    (("load_model_start",), "while the weights were loading"),
    (("weights", "weights_old"), "after the weights were loaded (torch.compile and the memory profile come next)"),
    (("compile_cold", "compile_warm", "compile_aot_warm"), "after torch.compile, during the memory profile"),
    (("available_kv", "v0_split", "summary_old", "summary_new", "graph_estimate", "graph_profile"),
     "after the KV cache was sized (allocating it and capturing CUDA graphs come next)"),
    # vLLM >= 0.34's extensible KV cache: sized again from the memory free after warmup and capture
    # (v1/worker/extensible_kv_cache.py measure_kv_cache_blocks; its 'Extended KV cache to ...' line is a start:
    # logs.StartupLog.started)
    (("memory_after_warmup",), "after warmup and CUDA-graph capture, once the KV cache was measured (committing it "
                               "comes next)"),
)
_TRACEBACK = re.compile(r"Traceback \(most recent call last\)|^\w+(?:Error|Exception)\b")


_EXCEPTION_LINE = re.compile(r"^(?:[\w.]+\.)?\w*(?:Error|Exception)\b(?::|$)")


# how to see whether the kernel's OOM killer ended a process that left no traceback
OOM_KILLER_CHECK = "`dmesg -T | grep -iE 'killed process|out of memory'`"


# lines that say the engine finished its start: after them a crash is one of the running server
_READY = ("init_engine_took", "startup_complete", "server_starting")
# lines that say the engine sized its KV cache
_SIZED = ("available_kv", "kv_tokens", "v0_split", "summary_old", "summary_new", "v0_blocks", "v1_blocks_07",
          "memory_after_warmup")


def _crash_after_sizing(log: StartupLog) -> Optional[tuple[bool, str]]:
    """An engine that sized its KV cache and then died ('EngineCore encountered a fatal error', or a process of it
    exiting unasked): (whether it died before it was ready, a note naming the exception its traceback ends with, or
    the outside kill when there is none)."""
    hits = list(log.hits_of("engine_fatal_after_start", "engine_proc_died", "worker_proc_exception"))
    # 'EngineCore failed to start.' is logged only when building the engine raised (vllm/v1/engine/core.py
    # run_engine_core, 0.27.1: engine_core is None), so after the pool was sized it is a start that never came up
    sized = [h.line_number for h in log.hits_of(*_SIZED)]
    if sized:
        hits = hits + [h for h in log.hits_of("engine_failed") if h.line_number > min(sized)]
    hits = sorted(hits, key=lambda h: h.line_number)
    if not hits:
        return None
    crash = hits[0]
    ready = [h.line_number for h in log.hits_of(*_READY)]
    before_ready = not ready or crash.line_number < min(ready)
    exceptions = [line for line in log.error_lines if _EXCEPTION_LINE.search(line) and "EngineDeadError" not in line]
    if crash.signature == "engine_proc_died" and not exceptions:
        how = (f"its process {crash.groups.get('proc')} exited without a traceback of its own (line {crash.line_number}): "
               f"killed from outside, the kernel's OOM killer when host RAM ran out ({OOM_KILLER_CHECK}) or a signal")
    else:
        raised = f": {exceptions[0][:200].rstrip('.')}" if exceptions else ""
        how = f"it crashed (line {crash.line_number}){raised}"
    if before_ready:
        return True, (f"the engine sized its KV cache, then died before it was ready (the warm-up after the CUDA graph "
                      f"capture, or its first step): {how}. The start failed after the figures were printed: they "
                      "are valid, the server never served")
    return False, (f"the engine started (it sized its KV cache), then died while serving: {how}. That is a failure of "
                   "the running engine, not of the start's memory sizing")


def _stopped_mid_start(log: StartupLog) -> Optional[str]:
    """A note for a vLLM start that ends without a start, an error or a known signature: the text was saved while
    the server was still starting, or the process was killed from outside, which leaves no line in vLLM's output."""
    if log.started or not log.hits or any(_TRACEBACK.search(line) for line in log.error_lines):
        return None
    names = [h.signature for h in log.hits]
    step = None
    for signatures, label in _START_STEPS:
        if any(n in signatures for n in names):
            step = label
    if step is None:
        return None
    died = log.hits_of("engine_proc_died")
    if died:
        return (f"the engine process {died[0].groups.get('proc')} died mid-start, {step}, without a traceback of its "
                f"own (line {died[0].line_number}): killed from outside, the kernel's OOM killer when host RAM ran out "
                f"(loading weights takes host memory too: {OOM_KILLER_CHECK}) or a signal")
    last = log.last_lines[-1] if log.last_lines else ""
    return (f"the log stops mid-start without an error, {step}; its last line: {last[:160]!r}. The server was still "
            "starting when the text was saved, or the process was killed from outside, which writes nothing to vLLM's "
            f"output (the kernel's OOM killer: {OOM_KILLER_CHECK}; a job's time limit)")


# ---- sharpening with a plan --------------------------------------------------------------------


def sharpen_with_plan(diagnosis: Diagnosis, model: Optional[str], flags=None, *, plan_factory=None) -> Diagnosis:
    """Add what a plan knows to each finding. `plan_factory(model, **overrides)` builds a
    plan (default: the plan `kvplan reconcile` compares with, `reconcile.plan_from_log` with the flags); a kvplan
    error is noted, not raised."""
    from kvplan.errors import KvplanError

    plan_notes: list[str] = []
    if plan_factory is None:
        def plan_factory(model_ref, **overrides):
            from kvplan.api import fit  # the lead's entry point; imported lazily
            from kvplan.reconcile import plan_from_log

            plan, notes = plan_from_log(diagnosis.log, model_ref, flags, fit=lambda m, **kw: fit(m, **{**kw, **overrides}))
            if not overrides:
                plan_notes.extend(notes)
            return plan

    notes = list(diagnosis.notes)
    mismatch = model_finding(diagnosis.log, model) if model else None
    if mismatch is not None:  # a plan of another model would sharpen the fixes with the wrong figures
        notes.append("no plan: the log served another model (diagnosis made without one)")
        return replace(diagnosis, findings=diagnosis.findings + (mismatch,), notes=tuple(notes))
    try:
        plan = plan_factory(model)
    except KvplanError as exc:
        notes.append(f"no plan: {exc} (diagnosis made without one)")
        return replace(diagnosis, notes=tuple(notes))
    except ImportError as exc:
        notes.append(f"no plan: kvplan.api is not available ({exc})")
        return replace(diagnosis, notes=tuple(notes))
    findings = [_sharpen_one(f, plan, diagnosis.log, plan_factory, model) for f in diagnosis.findings]
    # in words ("fits=True" read as Python, and beside a failed log as if kvplan disagreed without saying so)
    verdict = {True: "starts", False: "does not start"}.get(getattr(plan, "fits", None), "has no verdict")
    notes.append(f"plan: {getattr(plan.gpu, 'name', '?')}, vLLM {getattr(plan, 'vllm_version', '?')}: kvplan's plan for "
                 f"these flags {verdict}")
    notes += plan_notes  # plan_from_log's: the version it planned with where the log does not print one, ...
    return replace(diagnosis, findings=tuple(findings), notes=tuple(notes))


def model_finding(log: StartupLog, model: str) -> Optional[Finding]:
    """A finding when the log served another model than `model` (the check `kvplan reconcile` refuses on), else None."""
    from kvplan.reconcile import model_mismatch

    served = model_mismatch(log, model)
    if served is None:
        return None
    return Finding("model_mismatch", "client_code", f"the log served {served}, not {model}: a plan of {model} would "
                   "explain another model's start", f"pass the log's model ({served}) to sharpen the fixes with its plan",
                   tuple(f"model: {n}" for n in log.model_names), 0.9, fatal=False, details={"served": served},
                   from_log=False)


def _sharpen_one(finding: Finding, plan, log: StartupLog, plan_factory, model) -> Finding:
    details = dict(finding.details)
    fix = finding.fix
    if finding.symptom in ("max_seq_len_exceeds_kv", "no_cache_blocks", "state_blocks_below_max_num_seqs"):
        from kvplan.plan import fix_command_text

        cap = _logged_length_cap(finding)
        fixes = []
        for fx in getattr(plan, "fixes", ()):
            length = fx.flags.get("max_model_len") if isinstance(getattr(fx, "flags", None), Mapping) else None
            if cap and isinstance(length, int) and length > cap:
                # the plan's pool is larger than the one this start measured: its length would be refused again (case
                # kv-maxlen-29k-3090-llama31-8b read 'Lower --max-model-len to at most 23648 ... Plan: --max-model-len
                # 27200 (starts ...)'); the log's own figure is the one to lower to
                fixes.append(f"{fx.name}: {fix_command_text({**fx.flags, 'max_model_len': cap})} (the length this log "
                             f"measured room for; the plan's {length:,} is above it: its pool is larger than the log's, and its other "
                             "figures here are as optimistic)")
                continue
            fixes.append(f"{fx.name}: {fix_command_text(fx.flags)} ({fx.effect})")
        if fixes:
            details["plan_fixes"] = fixes
            fix = fix + " Plan: " + "; ".join(fixes[:4])
        largest = _largest_max_model_len(plan)
        if largest:
            details["largest_max_model_len_that_fits"] = min(largest, cap) if cap else largest
    elif finding.symptom == "free_memory_below_utilization":
        util = details.get("utilization_that_starts")
        if util:
            try:
                lower = plan_factory(model, gpu_memory_utilization=util)
                details["plan_at_utilization_that_starts"] = {"fits": lower.fits, "kv_cache_tokens": lower.kv_cache_tokens,
                                                              "max_concurrency": lower.max_concurrency}
                fix += f" With --gpu-memory-utilization {util} the plan {'fits' if lower.fits else 'does NOT fit'}" + (
                    f" ({lower.kv_cache_tokens:,} KV tokens)." if lower.fits else "; free the GPU instead.")
            except Exception as exc:  # a plan detail must not break the diagnosis
                details["plan_error"] = str(exc)
    elif finding.symptom == "driver_too_old" and "min_driver" not in details:
        runtime = wheel_cuda(getattr(plan, "vllm_version", None))
        if runtime and runtime in MIN_DRIVER_BY_CUDA:
            details.update(runtime_cuda=runtime, min_driver=MIN_DRIVER_BY_CUDA[runtime])
            fix += f" vLLM {plan.vllm_version} wheels use CUDA {runtime}: driver >= {MIN_DRIVER_BY_CUDA[runtime]}."
    elif finding.symptom in ("unsupported_gpu", "quant_unsupported_on_gpu"):
        need = _needed_cc(finding)
        if need:
            gpus = qualifying_gpus(need)
            details["gpus_that_qualify"] = gpus
            fix += f" GPUs with compute capability >= {need[0]}.{need[1]}: {', '.join(gpus[:10])}."
    elif finding.symptom == "k8s_probe_kill":
        details.update(probe_advice(log, plan))
        fix = details["advice"]
    return replace(finding, fix=fix, details=details)


def _logged_length_cap(finding: Finding) -> Optional[int]:
    """The longest max_model_len the failed start's own figures leave room for: V0's token capacity, V1's estimate (or,
    where vLLM prints none, the fix's 'to about N tokens', _enrich_groups); None where the log states none."""
    for line in finding.evidence:
        m = re.search(r"stored in KV cache \((\d+)\)|estimated maximum model length is (\d+)", line)
        if m:
            return int(m.group(1) or m.group(2))
    m = re.search(r"--max-model-len \(to about (\d+) tokens here\)", finding.fix)
    return int(m.group(1)) if m else None


def _largest_max_model_len(plan) -> Optional[int]:
    for fx in getattr(plan, "fixes", ()):
        value = fx.flags.get("max_model_len") if isinstance(getattr(fx, "flags", None), Mapping) else None
        if isinstance(value, int):
            return value
    return None


def _needed_cc(finding: Finding) -> Optional[tuple[int, int]]:
    for line in finding.evidence:
        m = re.search(r"(?:Minimum capability|Min capability): (\d)(\d)", line)
        if m:
            return int(m.group(1)), int(m.group(2))
        if "Bfloat16" in line or "FlashAttention" in line:
            return (8, 0)
    return None


def qualifying_gpus(min_cc: tuple[int, int]) -> list[str]:
    """Catalog GPUs whose compute capability meets `min_cc` (kvplan's GPU catalog)."""
    from kvplan.resolve import gpu_catalog

    return [g.name for g in gpu_catalog() if g.cc is not None and g.cc >= min_cc and g.vendor == "NVIDIA"]


# Conservative generic probe when no prediction is possible: 10 s period x 90 = 15 minutes,
# the order of a cold start of a large model with compilation (startup-times.md).
GENERIC_PROBE_PERIOD_S = 10
GENERIC_PROBE_FAILURES = 90


def probe_advice(log: StartupLog, plan=None) -> dict:
    """A startupProbe that covers the predicted startup (kvplan.startup), or a generic one."""
    weights_gib_total = None
    tp = (log.arg("tensor_parallel_size") or 1)
    if plan is not None and getattr(plan, "model", None) is not None:
        weights_gib_total = getattr(plan.model, "weights_bytes", 0) / 2**30 or None
        tp = getattr(getattr(plan, "args", None), "tensor_parallel_size", tp) or tp
    elif log.weights_gib:
        weights_gib_total = log.weights_gib * (tp if isinstance(tp, int) else 1)
    if weights_gib_total:
        try:
            from kvplan.plan.extensible import plan_kv_sizing_warmup_steps
            from kvplan.startup import predict_startup, probe_budget_s, probe_failure_threshold

            # vLLM >= 0.34's KV-cache sizing warmup, where the plan's start runs it
            steps = plan_kv_sizing_warmup_steps(plan) if plan is not None else 0
            prediction = predict_startup(weights_gib_total, tp if isinstance(tp, int) else 1, download=True,
                                         kv_sizing_warmup_steps=steps)
            budget = probe_budget_s(prediction)
            failures = probe_failure_threshold(prediction, GENERIC_PROBE_PERIOD_S)
            return {
                "predicted_startup_s": round(prediction.total_s),
                "advice": (f"Predicted startup ~{prediction.total_s:.0f} s (cold, with download); use a startupProbe on /health with "
                           f"periodSeconds: {GENERIC_PROBE_PERIOD_S} and failureThreshold: {failures} (covers {budget:.0f} s), and keep "
                           "the weights on a persistent volume."),
            }
        except Exception:  # fall through to the generic advice
            pass
    total = GENERIC_PROBE_PERIOD_S * GENERIC_PROBE_FAILURES
    return {"advice": (f"No startup-time prediction without the model size; a conservative startupProbe on /health: "
                       f"periodSeconds: {GENERIC_PROBE_PERIOD_S}, failureThreshold: {GENERIC_PROBE_FAILURES} ({total // 60} minutes). "
                       "Pass the model to size it.")}
