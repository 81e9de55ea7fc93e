"""`kvplan preflight`: inventory the machine and check every gate before installing vLLM.

Two halves, kept apart so tests can replay any machine:

* `gather_facts()` is the only function that touches the machine (NVML or nvidia-smi,
  the environment, /proc/mounts, the disk, installed packages). It returns a frozen
  `MachineFacts`; every probe it uses can be replaced by an argument.
* `run_checks(facts, ...)` is pure: facts (+ the plan, when a model was given) in,
  a tuple of `Finding(check, status, message, fix)` out.

Sources: the seed's "Step 1 — inventory what you have" and "Where it bites you"
(shared/seeds/anatomy-of-a-vllm-setup.txt); compute-capability gates, driver minimums
and wheel CUDA versions from shared/docs/gpu-facts.md sections 4-7.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass, replace as dc_replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Optional, Sequence

from kvplan.inputs import read_text_or_empty
from kvplan.resolve import GIB, MIB, is_commit_sha, nvml_reserved_bytes
from kvplan.versions import (MIN_DRIVER_BY_CUDA, MINOR_COMPAT_DRIVER_BY_CUDA_MAJOR, driver_requirement, quant_min_capability,
                             rules_for)

if TYPE_CHECKING:
    from kvplan.plan import ColdStartWarning

PASS, WARN, FAIL = "pass", "warn", "fail"

# ------------------------------------------------------------------------------ data tables

# Python versions vLLM supports: 3.10-3.13 (seed verification checklist, vLLM quickstart).
PYTHON_SUPPORTED = ((3, 10), (3, 13))

# File systems that vanish with the container / machine (seed: "Letting the HuggingFace
# cache default ... the ephemeral root filesystem").
EPHEMERAL_FS = ("overlay", "tmpfs", "ramfs", "aufs")

NVIDIA_SMI_QUERY = [
    "nvidia-smi",
    "--query-gpu=name,memory.total,memory.used,compute_cap,driver_version",
    "--format=csv,noheader,nounits",
]

# ------------------------------------------------------------------------------ facts


@dataclass(frozen=True)
class GPUInfo:
    index: int
    name: str
    memory_total_bytes: int
    memory_used_bytes: int
    compute_capability: str  # "8.9"
    driver_version: Optional[str] = None
    memory_reserved_bytes: Optional[int] = None  # the driver's reserve (NVML v2); None where it was not read
    wsl2: bool = False  # read under WSL2, where CUDA's total is NVML's whole (resolve.machine_gpu)

    @property
    def cc(self) -> tuple[int, int]:
        return _cc_tuple(self.compute_capability)

    @property
    def gpu_spec(self):
        """This GPU as a plan on this machine takes it (resolve.machine_gpu): the catalog's card, its total NVML's
        less the driver's reserve where read, else the catalog's or an estimate."""
        from kvplan.resolve import machine_gpu

        return machine_gpu(self.name, self.memory_total_bytes, self.compute_capability, self.memory_reserved_bytes,
                           wsl2=self.wsl2)

    @property
    def cuda_total_bytes(self) -> int:
        """The total vLLM multiplies by --gpu-memory-utilization."""
        return self.gpu_spec.total_bytes

    def label(self) -> str:
        size = (f"{_gib_text(self.cuda_total_bytes)} as CUDA reports it" if self.memory_reserved_bytes is not None or self.wsl2
                else _gib_text(self.memory_total_bytes))
        return f"{self.index}: {self.name} ({size}, cc {self.compute_capability})"

    @property
    def memory_free_bytes(self) -> int:
        return max(0, self.memory_total_bytes - self.memory_used_bytes)


@dataclass(frozen=True)
class MachineFacts:
    """Everything preflight knows about the machine. Never holds a secret's value."""

    gpus: tuple[GPUInfo, ...]
    gpu_source: str  # "nvml", "nvidia-smi" or "none"
    gpu_probe_errors: tuple[str, ...]
    driver_version: Optional[str]
    os_name: str  # platform.system(): "Linux", "Windows", "Darwin"
    kernel_release: str
    wsl: Optional[str]  # None, "WSL1" or "WSL2"
    python_version: tuple[int, int, int]
    torch_version: Optional[str]
    vllm_version_installed: Optional[str]
    hf_home: Optional[str]
    hf_hub_cache_env: Optional[str]
    cache_dir: str
    cache_free_bytes: Optional[int]
    cache_mountpoint: Optional[str]
    cache_fs_type: Optional[str]
    hf_token_present: bool
    cuda_visible_devices: Optional[str] = None
    cache_problem: Optional[str] = None  # why weights cannot be written to cache_dir (read-only, a file in the way)
    cache_created_under: Optional[str] = None  # cache_dir does not exist yet: the existing folder it will be made in
    hf_token_blank: bool = False  # HF_TOKEN set to blanks: huggingface_hub treats it as none
    rocm_device: bool = False  # /dev/kfd, the device node of AMD's ROCm driver: an AMD GPU, which NVML does not see
    # an NVIDIA display controller on the PCI bus (sysfs: vendor 0x10de, class 0x03xxxx), seen without its driver: the
    # card NVML would read once the driver runs. Beside /dev/kfd it is the GPU meant: amdgpu makes /dev/kfd when it
    # loads (amdgpu_init -> amdgpu_amdkfd_init -> kgd2kfd_init -> kfd_chardev_init, drivers/gpu/drm/amd), for a
    # Ryzen CPU's integrated GPU too
    nvidia_pci_device: bool = False

    def to_dict(self) -> dict:
        d = asdict(self)
        d["python_version"] = ".".join(map(str, self.python_version))
        return d


def _cc_tuple(text: str) -> tuple[int, int]:
    m = re.match(r"^\s*(\d+)(?:\.(\d+))?", str(text))
    return (int(m.group(1)), int(m.group(2) or 0)) if m else (0, 0)


def _version_tuple(text: Optional[str]) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text or ""))


def _decode(v: Any) -> str:
    return v.decode() if isinstance(v, (bytes, bytearray)) else str(v)


def gpus_from_nvml(nvml: Any) -> tuple[tuple[GPUInfo, ...], Optional[str]]:
    """Read every GPU through an NVML binding (the `pynvml` module of nvidia-ml-py, or a fake)."""
    nvml.nvmlInit()
    try:
        driver = _decode(nvml.nvmlSystemGetDriverVersion())
        gpus = []
        for i in range(nvml.nvmlDeviceGetCount()):
            h = nvml.nvmlDeviceGetHandleByIndex(i)
            mem = nvml.nvmlDeviceGetMemoryInfo(h)
            major, minor = nvml.nvmlDeviceGetCudaComputeCapability(h)
            gpus.append(GPUInfo(i, _decode(nvml.nvmlDeviceGetName(h)), int(mem.total), int(mem.used),
                                f"{major}.{minor}", driver, nvml_reserved_bytes(nvml, h)))
        return tuple(gpus), driver
    finally:
        try:
            nvml.nvmlShutdown()
        except Exception:
            pass


def parse_nvidia_smi(text: str) -> tuple[GPUInfo, ...]:
    """Parse `nvidia-smi --query-gpu=name,memory.total,memory.used,compute_cap,driver_version
    --format=csv,noheader,nounits` (memory in MiB)."""
    gpus = []
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 5 or not parts[0]:
            continue
        name, total, used, cc, driver = parts[:5]
        try:
            total_b = int(float(total) * MIB)
            used_b = int(float(used) * MIB) if used not in ("", "[N/A]") else 0
        except ValueError:
            continue
        gpus.append(GPUInfo(len(gpus), name, total_b, used_b, cc, driver or None))
    return tuple(gpus)


def probe_gpus(
    nvml: Any = None,
    run_nvidia_smi: Optional[Callable[[], str]] = None,
) -> tuple[tuple[GPUInfo, ...], str, tuple[str, ...], Optional[str]]:
    """GPUs via NVML, falling back to nvidia-smi. Returns (gpus, source, errors, driver). Never raises."""
    errors = []
    if nvml is None:
        try:
            import pynvml as nvml  # nvidia-ml-py
        except Exception as exc:  # not installed
            errors.append(f"NVML: {exc}")
    if nvml is not None:
        try:
            gpus, driver = gpus_from_nvml(nvml)
            if gpus:
                return gpus, "nvml", tuple(errors), driver
            errors.append("NVML: no devices")
        except Exception as exc:
            errors.append(f"NVML: {type(exc).__name__}: {exc}")
    run = run_nvidia_smi or _run_nvidia_smi
    try:
        gpus = parse_nvidia_smi(run())
        if gpus:
            return gpus, "nvidia-smi", tuple(errors), gpus[0].driver_version
        errors.append("nvidia-smi: no devices listed")
    except Exception as exc:
        errors.append(f"nvidia-smi: {exc}")
    return (), "none", tuple(errors), None


def _run_nvidia_smi() -> str:
    exe = shutil.which("nvidia-smi")
    if exe is None:
        raise FileNotFoundError("not found on PATH")
    out = subprocess.run([exe] + NVIDIA_SMI_QUERY[1:], capture_output=True, text=True, timeout=20)
    if out.returncode != 0:
        raise RuntimeError((out.stderr or out.stdout).strip().splitlines()[0] if (out.stderr or out.stdout).strip()
                           else f"exit {out.returncode}")
    return out.stdout


def detect_wsl(kernel_release: str, proc_version: str = "") -> Optional[str]:
    """'5.15.153.1-microsoft-standard-WSL2' -> 'WSL2'; '4.4.0-19041-Microsoft' -> 'WSL1'."""
    text = f"{kernel_release} {proc_version}".lower()
    if "microsoft" not in text and "wsl" not in text:
        return None
    return "WSL2" if ("wsl2" in text or "microsoft-standard" in text) else "WSL1"


def hf_cache_dir(env: Mapping[str, str], home: str) -> str:
    """Where huggingface_hub puts weights: HF_HUB_CACHE, else $HF_HOME/hub, else
    $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub (huggingface_hub constants)."""
    if env.get("HF_HUB_CACHE"):
        return env["HF_HUB_CACHE"]
    if env.get("HUGGINGFACE_HUB_CACHE"):
        return env["HUGGINGFACE_HUB_CACHE"]
    if env.get("HF_HOME"):
        return os.path.join(env["HF_HOME"], "hub")
    xdg = env.get("XDG_CACHE_HOME") or os.path.join(home, ".cache")
    return os.path.join(xdg, "huggingface", "hub")


def _unescape_mount(path: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), path)


def mount_for(path: str, mounts_text: str) -> tuple[Optional[str], Optional[str]]:
    """(mountpoint, fs type) of the /proc/mounts entry holding `path` (longest prefix wins)."""
    path = os.path.normpath(path)
    best: tuple[Optional[str], Optional[str]] = (None, None)
    for line in mounts_text.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        mp, fstype = _unescape_mount(parts[1]), parts[2]
        inside = path == mp or path.startswith(mp.rstrip("/") + "/") or mp == "/"
        if inside and (best[0] is None or len(mp) >= len(best[0])):
            best = (mp, fstype)
    return best


def _existing_ancestor(path: str) -> str:
    p = Path(path)
    while not p.exists() and p != p.parent:
        p = p.parent
    return str(p)


def _can_write(path: str) -> bool:
    return os.access(path, os.W_OK | os.X_OK)


def cache_state(path: str, can_write: Callable[[str], bool] = _can_write) -> tuple[Optional[str], Optional[str]]:
    """(why the HF cache at `path` cannot be written, or None; the existing folder it will be created in when it does
    not exist yet, or None). A file where a folder is expected, or a folder this user cannot write, is a problem."""
    existing = _existing_ancestor(path)
    if not os.path.isdir(existing):
        return f"{existing} is a file, where the HF cache needs a folder", None
    if not can_write(existing):
        return f"{existing} cannot be written by this user (read-only mount or permissions)", None
    return None, (existing if os.path.normpath(existing) != os.path.normpath(path) else None)


def _installed_version(dist: str) -> Optional[str]:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def gather_facts(
    env: Optional[Mapping[str, str]] = None,
    *,
    nvml: Any = None,
    run_nvidia_smi: Optional[Callable[[], str]] = None,
    mounts_text: Optional[str] = None,
    os_name: Optional[str] = None,
    kernel_release: Optional[str] = None,
    proc_version: Optional[str] = None,
    python_version: Optional[tuple[int, int, int]] = None,
    installed_version: Callable[[str], Optional[str]] = _installed_version,
    disk_free: Optional[Callable[[str], int]] = None,
    home: Optional[str] = None,
    is_file: Callable[[str], bool] = os.path.isfile,
    can_write: Callable[[str], bool] = _can_write,
    rocm_device: Optional[bool] = None,
    nvidia_pci_device: Optional[bool] = None,
) -> MachineFacts:
    """Probe the machine once. Every source can be replaced (tests replay recorded outputs)."""
    env = dict(os.environ if env is None else env)
    gpus, source, errors, driver = probe_gpus(nvml, run_nvidia_smi)
    os_name = os_name or platform.system()
    kernel_release = kernel_release if kernel_release is not None else platform.release()
    if proc_version is None:
        proc_version = read_text_or_empty("/proc/version")
    if mounts_text is None:
        mounts_text = read_text_or_empty("/proc/mounts")
    home = home or env.get("HOME") or os.path.expanduser("~")
    cache = hf_cache_dir(env, home)
    free: Optional[int]
    try:
        free = (disk_free or (lambda p: shutil.disk_usage(_existing_ancestor(p)).free))(cache)
    except OSError:
        free = None
    mountpoint, fstype = mount_for(cache, mounts_text) if mounts_text else (None, None)
    token_file = os.path.join(env.get("HF_HOME") or os.path.join(home, ".cache", "huggingface"), "token")
    token = env.get("HF_TOKEN", env.get("HUGGING_FACE_HUB_TOKEN"))
    token_blank = token is not None and not token.strip()  # huggingface_hub reads a blank token as none
    token_present = bool((token or "").strip()) or is_file(token_file)
    problem, created_under = cache_state(cache, can_write)
    wsl = detect_wsl(kernel_release, proc_version) if os_name == "Linux" else None
    if wsl == "WSL2":  # CUDA's total under WSL2 is NVML's whole (resolve.machine_gpu)
        gpus = tuple(dc_replace(g, wsl2=True) for g in gpus)
    return MachineFacts(
        gpus=gpus,
        gpu_source=source,
        gpu_probe_errors=errors,
        driver_version=driver,
        os_name=os_name,
        kernel_release=kernel_release,
        wsl=wsl,
        python_version=python_version or tuple(sys.version_info[:3]),
        torch_version=installed_version("torch"),
        vllm_version_installed=installed_version("vllm"),
        hf_home=env.get("HF_HOME") or None,
        hf_hub_cache_env=env.get("HF_HUB_CACHE") or None,
        cache_dir=cache,
        cache_free_bytes=free,
        cache_mountpoint=mountpoint,
        cache_fs_type=fstype,
        hf_token_present=token_present,
        cuda_visible_devices=env.get("CUDA_VISIBLE_DEVICES"),
        cache_problem=problem,
        cache_created_under=created_under,
        hf_token_blank=token_blank,
        # ROCm's kernel driver (amdgpu's KFD) exposes /dev/kfd; a ROCm container is given it with --device /dev/kfd
        rocm_device=os.path.exists("/dev/kfd") if rocm_device is None else rocm_device,
        nvidia_pci_device=_nvidia_display_on_pci() if nvidia_pci_device is None else nvidia_pci_device,
    )


def _nvidia_display_on_pci(root: str = "/sys/bus/pci/devices") -> bool:
    """Whether sysfs lists an NVIDIA display controller (PCI vendor 0x10de, class 0x03: VGA or 3D), with or without its
    driver; False where sysfs cannot be read (not Linux)."""
    try:
        devices = os.listdir(root)
    except OSError:
        return False
    for dev in devices:
        vendor = read_text_or_empty(os.path.join(root, dev, "vendor")).strip().lower()
        klass = read_text_or_empty(os.path.join(root, dev, "class")).strip().lower()
        if vendor == "0x10de" and klass.startswith("0x03"):
            return True
    return False


# ------------------------------------------------------------------------------ checks


@dataclass(frozen=True)
class Finding:
    check: str
    status: str  # pass / warn / fail
    message: str
    fix: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Request:
    """What the user plans to run: from the flags and, when a model was given, the plan."""

    vllm_version: str
    dtype: Optional[str] = None  # resolved torch dtype name: "bfloat16", "float16", ...
    quantization: Optional[str] = None
    gpu_memory_utilization: Optional[float] = None
    gpus_needed: int = 1
    weights_bytes: Optional[int] = None
    model_id: Optional[str] = None
    gated: Optional[bool] = None
    revision: Optional[str] = None
    plan_fits: Optional[bool] = None
    plan_error: Optional[str] = None
    plan_fix: Optional[str] = None
    plan_gpu: Optional[str] = None
    plan_summary: Optional[str] = None
    plan_gpu_fallback: bool = False  # no GPU found here and none given: planned for the fallback card
    # the plan's warning that a cold (compiling) first start, or every start, may not hold it: a str, with the head
    # check_plan says and whether every start compiles as data
    plan_cold_start: Optional[ColdStartWarning] = None
    plan_cold_start_bytes: Optional[int] = None  # the most pool such a start loses (plan first_start loss_bytes_most)
    # vLLM >= 0.34's extensible KV cache sizes this start (plan.kv_pool): its budget is only a cap, and vLLM does not
    # refuse a start whose free memory is below it (v1/worker/utils.py request_memory, 0.34.0)
    extensible_kv_cache: bool = False


def _gib_text(n_bytes: Optional[float]) -> str:
    """Bytes as GiB text with 1 decimal ('?' where unknown)."""
    return "?" if n_bytes is None else f"{n_bytes / GIB:.1f} GiB"


def check_gpus(facts: MachineFacts, req: Request) -> list[Finding]:
    if not facts.gpus:
        why = "; ".join(facts.gpu_probe_errors) or "no devices"
        # the checks that need the GPU are left out, not guessed: say which, and where they can be made
        unchecked = "compute capability, driver and free GPU memory are not checked here"
        if facts.rocm_device and not facts.nvidia_pci_device:  # an AMD GPU: NVIDIA's advice (its driver, --gpus all) does not apply
            return [Finding("gpu", WARN, f"no NVIDIA GPU visible ({why}), but ROCm's /dev/kfd is: an AMD GPU, which "
                            f"preflight does not read (NVML and nvidia-smi are NVIDIA's); {unchecked}",
                            "plan the card by name: --gpu NAME (e.g. --gpu '7900 XTX'; `kvplan gpus` lists the AMD "
                            "cards); rocm-smi --showmeminfo vram shows its memory")]
        if facts.wsl == "WSL2":  # the GPU comes from the Windows driver (NVIDIA's CUDA on WSL user guide)
            fix = ("install or update the NVIDIA driver on Windows (WSL2 takes the GPU from it; install no Linux "
                   "display driver inside WSL), then run wsl --shutdown in Windows and reopen it; nvidia-smi is /usr/lib/wsl/lib/nvidia-smi")
        else:
            fix = ("run kvplan preflight on the machine with the NVIDIA GPU (compute capability >= 7.5) and its "
                   "driver, with the same model and flags; in Docker pass --gpus all; check CUDA_VISIBLE_DEVICES")
        return [Finding("gpu", FAIL, f"no NVIDIA GPU visible ({why}); {unchecked}", fix)]
    names = ", ".join(g.label() for g in facts.gpus)
    out = [Finding("gpu", PASS, f"{len(facts.gpus)} GPU(s) via {facts.gpu_source}: {names}")]
    if len(facts.gpus) < req.gpus_needed:
        out.append(Finding("gpu count", FAIL, f"the plan needs {req.gpus_needed} GPUs; {len(facts.gpus)} visible",
                           "lower --tensor-parallel-size / --pipeline-parallel-size or use a larger node"))
    return out


def _used(facts: MachineFacts, req: Request) -> tuple[GPUInfo, ...]:
    return facts.gpus[: max(1, req.gpus_needed)]


def check_compute_capability(facts: MachineFacts, req: Request) -> list[Finding]:
    if not facts.gpus:
        return []
    floor = rules_for(req.vllm_version).min_compute_capability
    gpus = _used(facts, req)
    low = min(gpus, key=lambda g: g.cc)
    floor_s = f"{floor[0]}.{floor[1]}"
    out = []
    if low.cc < floor:
        out.append(Finding("compute capability", FAIL,
                           f"{low.name} is cc {low.compute_capability}; vLLM {req.vllm_version} needs >= {floor_s}",
                           "use a GPU of cc >= 7.5 (T4, A10, L4, A100, H100 ...), or vLLM <= 0.19 with a CUDA 12 wheel for Volta"))
    else:
        out.append(Finding("compute capability", PASS, f"cc {low.compute_capability} >= {floor_s} (vLLM {req.vllm_version})"))
    cc = low.cc
    dtype = (req.dtype or "").lower().replace("torch.", "")
    if dtype in ("bfloat16", "bf16") and cc < (8, 0):
        # vLLM _check_if_gpu_supports_dtype: "Bfloat16 is only supported on GPUs with compute capability
        # of at least 8.0" (gpu-facts.md section 4).
        out.append(Finding("dtype", FAIL, f"bfloat16 needs cc >= 8.0; {low.name} is {low.compute_capability}",
                           "pass --dtype half"))
    elif dtype:
        out.append(Finding("dtype", PASS, f"{dtype} runs on cc {low.compute_capability}"))
    out.extend(_quantization_gate(req.quantization, cc, low, req.vllm_version))
    return out


# Methods tried, in this order, as the fix when vLLM refuses one on this GPU (each still gated by its own minimum).
QUANT_ALTERNATIVES = ("awq", "gptq", "bitsandbytes")


def _quantization_gate(quant: Optional[str], cc: tuple[int, int], gpu: GPUInfo, version: str) -> list[Finding]:
    if not quant:
        return []
    q = quant.lower()
    where = f"{gpu.name} is cc {gpu.compute_capability}"
    need = quant_min_capability(q, version)
    if need is not None and cc < need:
        # vLLM refuses at startup (versions.QUANT_MIN_CAPABILITY): propose only methods this GPU passes
        ok = [m for m in QUANT_ALTERNATIVES if m != q and (quant_min_capability(m, version) or (0, 0)) <= cc]
        return [Finding("quantization", FAIL,
                        f"{quant}: vLLM {version} needs cc >= {need[0]}.{need[1]} for this method; {where}",
                        (f"a {ok[0].upper()} checkpoint, or " if ok else "") + f"a GPU of cc >= {need[0]}.{need[1]}")]
    # gpu-facts.md section 4 for the speed gates below.
    if q in ("nvfp4", "modelopt_fp4", "fp4", "mxfp4_nvfp4") or "nvfp4" in q:
        if cc >= (10, 0):
            return [Finding("quantization", PASS, f"{quant}: native FP4 (cc >= 10.0)")]
        return [Finding("quantization", WARN,
                        f"{quant}: native NVFP4 needs cc >= 10.0; {where}, so vLLM runs it weight-only through Marlin (slower)",
                        "use a Blackwell GPU (B200/GB200), or an AWQ/GPTQ/FP8 checkpoint")]
    if q in ("fp8", "fbgemm_fp8", "modelopt", "compressed-tensors-fp8", "ptpc_fp8") or q.startswith("fp8"):
        if cc >= (8, 9):
            return [Finding("quantization", PASS, f"{quant}: FP8 W8A8 (cc >= 8.9)")]
        return [Finding("quantization", WARN,
                        f"{quant}: FP8 compute needs cc >= 8.9; {where}, so vLLM falls back to weight-only FP8 (Marlin W8A16)",
                        "use an L4/L40S/H100-class GPU for FP8 compute, or an AWQ/GPTQ int4 checkpoint")]
    if "marlin" in q or q in ("awq", "gptq", "compressed-tensors"):
        if cc >= (8, 0):
            return [Finding("quantization", PASS, f"{quant}: Marlin int4 kernels (cc >= 8.0)")]
        return [Finding("quantization", WARN, f"{quant}: full Marlin int4 support needs cc >= 8.0; {where}, so vLLM uses "
                        "its limited Turing kernels or the slower non-Marlin kernel",
                        "expected on T4; use an Ampere-or-newer GPU for Marlin speed")]
    return [Finding("quantization", PASS, f"{quant}: no compute-capability gate known to kvplan")]


def check_driver(facts: MachineFacts, req: Request) -> list[Finding]:
    if not facts.gpus or not facts.driver_version:
        return []
    cuda, need = driver_requirement(req.vllm_version)
    have = _version_tuple(facts.driver_version)
    if have >= _version_tuple(need):
        return [Finding("driver", PASS, f"driver {facts.driver_version} >= {need} (CUDA {cuda}, the vLLM {req.vllm_version} wheel)")]
    floor = MINOR_COMPAT_DRIVER_BY_CUDA_MAJOR[int(cuda.split(".")[0])]
    alt = ""
    if cuda == "13.0" and have >= _version_tuple(MIN_DRIVER_BY_CUDA["12.9"]):
        alt = f"; or install the cu129 wheel (pip install vllm=={req.vllm_version} --extra-index-url https://wheels.vllm.ai/{req.vllm_version}/cu129)"
    fix = f"update the host driver to >= {need}{alt}"
    if have >= _version_tuple(floor):
        return [Finding("driver", WARN,
                        f"driver {facts.driver_version} < {need} for CUDA {cuda}; runs only via minor-version compatibility (no PTX JIT)",
                        fix)]
    return [Finding("driver", FAIL, f"driver {facts.driver_version} is too old for CUDA {cuda} (vLLM {req.vllm_version} wheel needs >= {need})", fix)]


def check_platform(facts: MachineFacts, req: Request) -> list[Finding]:
    out = []
    if facts.os_name != "Linux":
        out.append(Finding("os", FAIL, f"{facts.os_name}: vLLM is Linux-only",
                           "use WSL2, Docker or a Linux host"))
    elif facts.wsl == "WSL2":
        # CUDA's total under WSL2 is nvidia-smi's memory.total (resolve.machine_gpu, its sources), and the Windows
        # desktop's own memory on the same card is counted as used: vLLM's start-up check compares the free memory
        # with utilization x that total ('Free memory on device (22.45/23.99 GiB) ... is less than desired GPU memory
        # utilization (0.95, 22.79 GiB)' on a WSL2 RTX 4090, public file, index id 66296924232)
        total = (f"; CUDA's total here is nvidia-smi's memory.total ({facts.gpus[0].memory_total_bytes / 1024 ** 3:.2f} GiB on GPU 0), "
                 "which vLLM multiplies by --gpu-memory-utilization, and what Windows holds on the card is not free"
                 if facts.gpus else "; CUDA's total here is nvidia-smi's memory.total, not that less a driver reserve")
        out.append(Finding("os", WARN, f"Linux under WSL2 ({facts.kernel_release}): works, with WSL's pinned-memory and "
                           f"shared-GPU limits{total}", "for production use a native Linux host; plan a WSL2 box from "
                           "another machine with `kvplan fit MODEL --gpu NAME --wsl2`"))
    elif facts.wsl == "WSL1":
        out.append(Finding("os", FAIL, "WSL1 has no GPU access", "wsl --set-version <distro> 2"))
    else:
        out.append(Finding("os", PASS, f"Linux {facts.kernel_release}"))
    py = facts.python_version[:2]
    pys = ".".join(map(str, facts.python_version))
    lo, hi = PYTHON_SUPPORTED
    if lo <= py <= hi:
        out.append(Finding("python", PASS, f"Python {pys} (vLLM supports 3.10-3.13)"))
    else:
        out.append(Finding("python", FAIL, f"Python {pys}; vLLM supports 3.10-3.13",
                           "create the venv with python3.12: python3.12 -m venv .venv"))
    if facts.torch_version:
        out.append(Finding("torch", WARN,
                           f"torch {facts.torch_version} is already installed here; pip install vllm replaces it with its pinned build",
                           "install vLLM into a fresh virtualenv: python -m venv .venv && . .venv/bin/activate"))
    else:
        out.append(Finding("torch", PASS, "no torch installed yet: pip install vllm brings its pinned build"))
    if facts.vllm_version_installed and _version_tuple(facts.vllm_version_installed)[:3] != _version_tuple(req.vllm_version)[:3]:
        out.append(Finding("vllm", WARN,
                           f"vllm {facts.vllm_version_installed} is installed; the plan is for {req.vllm_version}",
                           f"pip install vllm=={req.vllm_version}, or plan with --vllm-version {facts.vllm_version_installed}"))
    return out


def _drafter_bytes(plan) -> int:
    """The drafter checkpoint's bytes in all (its per-rank weights over TP, as the plan counts them on the last
    stage), which the HF cache holds beside the model's; 0 without one (MTP layers are in the model's own files)."""
    from kvplan.deploy import hub_drafter

    return hub_drafter(plan)[2]


def check_cache(facts: MachineFacts, req: Request) -> list[Finding]:
    out = []
    free = facts.cache_free_bytes
    if req.weights_bytes:
        need = req.weights_bytes
        if free is None:
            out.append(Finding("disk", WARN, f"cannot read free space at {facts.cache_dir}", "check df -h on the cache volume"))
        elif free < need:
            out.append(Finding("disk", FAIL, f"{_gib_text(free)} free at {facts.cache_dir}; the weights need {_gib_text(need)}",
                               "point HF_HOME (or HF_HUB_CACHE) at a volume with room"))
        elif free < need * 1.2 + 2 * GIB:
            out.append(Finding("disk", WARN, f"{_gib_text(free)} free at {facts.cache_dir}; the weights need {_gib_text(need)}, little margin",
                               "free space or move HF_HOME to a larger volume"))
        else:
            out.append(Finding("disk", PASS, f"{_gib_text(free)} free at {facts.cache_dir} for {_gib_text(need)} of weights"))
    elif free is not None:
        why = "the model could not be resolved" if req.model_id else "no model given"
        out.append(Finding("disk", PASS, f"{_gib_text(free)} free at {facts.cache_dir} ({why}: weights not checked)"))
    if facts.cache_problem:
        out.append(Finding("cache", FAIL, f"the HF cache {facts.cache_dir} cannot be written: {facts.cache_problem}",
                           "point HF_HOME (or HF_HUB_CACHE) at a folder this user can write on a persistent volume"))
    elif facts.cache_created_under:
        out.append(Finding("cache", PASS, f"{facts.cache_dir} does not exist yet: it will be created in "
                           f"{facts.cache_created_under} (the free space above is that folder's)"))
    eph = facts.cache_fs_type in EPHEMERAL_FS
    if not facts.hf_home and not facts.hf_hub_cache_env:
        out.append(Finding("HF_HOME", WARN,
                           f"HF_HOME unset: weights go to {facts.cache_dir}"
                           + (f" on {facts.cache_fs_type} (ephemeral)" if eph else ""),
                           "export HF_HOME=/path/on/a/persistent/volume"))
    elif eph:
        out.append(Finding("HF_HOME", WARN,
                           f"the HF cache {facts.cache_dir} is on {facts.cache_fs_type} ({facts.cache_mountpoint}): lost on restart",
                           "mount a persistent volume and point HF_HOME at it"))
    else:
        out.append(Finding("HF_HOME", PASS, f"HF cache at {facts.cache_dir}"
                           + (f" ({facts.cache_fs_type})" if facts.cache_fs_type else "")))
    return out


def check_model_access(facts: MachineFacts, req: Request) -> list[Finding]:
    out: list[Finding] = []
    if facts.hf_token_blank:  # a blank token is sent as an empty bearer: 401 even on public models
        out.append(Finding("HF_TOKEN", FAIL, "HF_TOKEN is set but blank: downloads fail with 401, even of public models",
                           "unset HF_TOKEN, or set it to a real read token"))
    if not req.model_id:
        return out
    if facts.hf_token_blank:
        pass  # said above; the gated checks below would repeat it
    elif req.gated is None:  # the Hub could not be asked
        out.append(Finding("HF_TOKEN", WARN, f"could not check whether {req.model_id} is gated (the model could not be "
                           "resolved); " + ("a token is set, not verified (Hub unreachable)" if facts.hf_token_present
                                            else "no HF_TOKEN is set"),
                           "if the model is gated, accept its licence and export HF_TOKEN" if not facts.hf_token_present
                           else "rerun where the Hub answers to check the model"))
    elif req.gated:
        if facts.hf_token_present:
            out.append(Finding("HF_TOKEN", PASS, f"{req.model_id} is gated; a token is set (value not shown; not "
                               "verified against the Hub)"))
        else:
            out.append(Finding("HF_TOKEN", FAIL, f"{req.model_id} is gated and no HF_TOKEN is set (401 at download)",
                               "accept the licence on the model page, then export HF_TOKEN from your secret store"))
    else:
        out.append(Finding("HF_TOKEN", PASS, f"{req.model_id} is not gated"))
    rev = req.revision
    if is_commit_sha(rev):
        out.append(Finding("revision", PASS, f"pinned to commit {rev[:12]}"))
    elif rev and rev != "main":
        out.append(Finding("revision", WARN, f"revision {rev!r} is a branch or tag and can move",
                           "pin the 40-character commit sha with --revision"))
    else:
        out.append(Finding("revision", WARN, "model revision not pinned (main moves under you)",
                           "pass --revision <commit sha> (see the model's commit history)"))
    return out


def check_memory_free(facts: MachineFacts, req: Request) -> list[Finding]:
    if not facts.gpus or req.gpu_memory_utilization is None:
        return []
    util = req.gpu_memory_utilization
    out = []
    for g in _used(facts, req):
        total = g.cuda_total_bytes
        requested = util * total
        if req.extensible_kv_cache and facts.wsl != "WSL2":  # (WSL2 has no VMM: vLLM falls back to the estimate)
            # with the extensible KV cache request_memory skips its free-memory check; the pool is sized from the
            # memory free after warmup, so what other processes hold comes out of it instead. What they hold is what
            # NVML / nvidia-smi count as used (free and used are of its total, which is above CUDA's: total - free
            # was negative on an idle L4, '22.5 GiB free of 22.0 GiB ... -0.5 GiB in use')
            held = g.memory_used_bytes
            out.append(Finding("gpu memory", PASS if held < 2 * GIB else WARN,
                               f"GPU {g.index}: {_gib_text(g.memory_free_bytes)} free, {_gib_text(held)} in use; vLLM "
                               f"{req.vllm_version}'s extensible KV cache does not refuse a start with less free than "
                               f"gpu_memory_utilization {util:g} x the total ({_gib_text(requested)}): it sizes its pool "
                               f"from the memory free after warmup, so the {_gib_text(held)} in use here comes out of it",
                               "" if held < 2 * GIB else "stop the other processes (nvidia-smi) for the planned pool"))
            continue
        # vLLM refuses to start when free memory at startup < utilization x CUDA's total
        # ("Free memory on device ... is less than desired GPU memory utilization").
        if g.memory_free_bytes < requested:
            max_util = int(g.memory_free_bytes / total * 100) / 100
            out.append(Finding("gpu memory", FAIL,
                               f"GPU {g.index}: {_gib_text(g.memory_free_bytes)} free of {_gib_text(total)}; "
                               f"--gpu-memory-utilization {util:.2f} asks for {_gib_text(requested)}",
                               f"stop the other processes (nvidia-smi) or pass --gpu-memory-utilization {max_util:.2f}"))
        else:
            out.append(Finding("gpu memory", PASS,
                               f"GPU {g.index}: {_gib_text(g.memory_free_bytes)} free >= {util:.2f} x {_gib_text(total)}"))
    return out


def check_plan(facts: MachineFacts, req: Request) -> list[Finding]:
    if req.plan_fits is None:
        if req.plan_error:
            return [Finding("plan", WARN, f"could not plan: {req.plan_error}", req.plan_fix or "")]
        return []
    on = f" on {req.plan_gpu}" if req.plan_gpu else ""
    if req.plan_gpu_fallback:  # the machine's own GPU is unknown: the verdict is about another card
        verdict = f"fits{on}: {req.plan_summary or ''}" if req.plan_fits else f"does not fit{on}: {req.plan_error or ''}"
        return [Finding("plan", WARN, f"no GPU found here and no --gpu given: planned for the fallback card; {verdict}".rstrip(": "),
                        "pass --gpu NAME (the GPU you will run on) for a plan that counts")]
    if req.plan_fits:
        out = [Finding("plan", PASS, f"fits{on}: {req.plan_summary or ''}".rstrip(": "))]
        cold = req.plan_cold_start
        if cold:  # a machine's first start is the cold one: the plan holds its length only warm
            from kvplan.plan import COLD_START_POOL_LOSS_BYTES

            # the plan's own margin (plan.cold_start_pool_loss_bytes), the public pairs' largest where none came with it
            margin = req.plan_cold_start_bytes if req.plan_cold_start_bytes is not None else COLD_START_POOL_LOSS_BYTES
            room = f"leave about {margin / 2**30:.2f} GiB more room"
            every = cold.every_start  # no compile cache: every start is cold
            out.append(Finding("every start" if every else "first start", WARN, cold.head,
                               f"{room} (a higher --gpu-memory-utilization), or unset VLLM_DISABLE_COMPILE_CACHE" if every
                               else f"{room} for the first start (a higher --gpu-memory-utilization), or let it fill the "
                               "compile cache (VLLM_CACHE_ROOT) and restart"))
        return out
    return [Finding("plan", FAIL, f"does not fit{on}: {req.plan_error or ''}".rstrip(": "),
                    req.plan_fix or "run kvplan fit for the options")]


CHECKS = (check_gpus, check_compute_capability, check_driver, check_memory_free, check_platform,
          check_cache, check_model_access, check_plan)


def run_checks(facts: MachineFacts, req: Request) -> tuple[Finding, ...]:
    """Every finding, in a stable order. Pure."""
    return tuple(f for check in CHECKS for f in check(facts, req))


def exit_code(findings: Sequence[Finding]) -> int:
    return 1 if any(f.status == FAIL for f in findings) else 0


# ------------------------------------------------------------------------------ plan glue


def request_from_plan(plan: Any, flags_revision: Optional[str] = None) -> Request:
    """Build a Request from a kvplan Plan (duck-typed on the documented contract)."""
    args, model = plan.args, plan.model
    fix = None
    fixes = [f for f in (getattr(plan, "fixes", None) or ()) if getattr(f, "fits", True)]
    if fixes:
        from kvplan.plan import fix_command_text

        f0 = fixes[0]
        # as fit prints it: a switch bare (not '--enforce-eager True'), a value quoted as a shell reads it (a GPU's
        # catalog name: '--gpu NVIDIA B300 (Blackwell Ultra)' was a shell syntax error)
        flag_text = fix_command_text(dict(getattr(f0, "flags", {}) or {}))
        fix = f"{flag_text} ({getattr(f0, 'effect', '')})".strip()
    from kvplan.plan import ColdStartWarning, cold_start_margin_bytes

    tp = int(getattr(args, "tensor_parallel_size", 1) or 1)
    pp = int(getattr(args, "pipeline_parallel_size", 1) or 1)
    summary = None
    if plan.fits:
        # as fit prints them (3.98x, 65,536): one decimal rounded 3.98x up to "4.0x", a concurrency the plan lacks
        max_len = getattr(args, "max_model_len", None)
        summary = (f"{plan.kv_cache_tokens:,} KV tokens, max concurrency {plan.max_concurrency:.2f}x "
                   f"at max_model_len {f'{max_len:,}' if isinstance(max_len, int) else '?'}")
    return Request(
        vllm_version=str(plan.vllm_version),
        dtype=str(getattr(args, "dtype", None) or getattr(model, "dtype", "") or "") or None,
        quantization=getattr(args, "quantization", None),
        gpu_memory_utilization=float(args.gpu_memory_utilization),
        extensible_kv_cache=getattr(plan, "kv_pool", None) is not None,
        gpus_needed=tp * pp,
        weights_bytes=int((getattr(model, "weights_bytes", 0) or plan.weights_bytes * tp * pp) + _drafter_bytes(plan)) or None,
        model_id=getattr(model, "id", None),
        gated=getattr(model, "gated", None),
        # The user's own pin, not the commit the resolver happened to fetch.
        revision=flags_revision,
        plan_fits=bool(plan.fits),
        plan_error=getattr(plan, "error", None),
        plan_fix=fix,
        plan_gpu=getattr(plan.gpu, "name", None),
        plan_summary=summary,
        # where the colder pool refuses the start or shortens auto-fit's length (not where it only leaves less pool)
        plan_cold_start=next((w for w in (getattr(plan, "warnings", None) or ())
                              if isinstance(w, ColdStartWarning) and w.changes_start), None),
        plan_cold_start_bytes=cold_start_margin_bytes(plan),
    )
