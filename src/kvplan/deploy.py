"""`kvplan scaffold`: write the seed's minimal project, sized by a plan.

    my-inference-service/
    ├── pyproject.toml        vllm pinned to the exact version planned for
    ├── .env.example          HF_TOKEN, HF_HOME, model id and revision (never a secret's value)
    ├── serve.sh              every `vllm serve` flag, the arithmetic behind each number
    ├── docker-compose.yml    HF cache on a named volume, ipc: host, GPU reservation, healthcheck
    ├── client.py             OpenAI-client smoke test: asserts a real answer, prints latency
    ├── README.md             which GPU it is sized for, and the arithmetic
    └── k8s/                  PVC for the HF cache, Deployment (or LeaderWorkerSet), Service

(shared/seeds/anatomy-of-a-vllm-setup.txt, "What a minimal project actually looks like",
"Dial it in" and "In Production".)

Three stages and one I/O edge: `spec_from_plan(plan) -> ScaffoldSpec` reads the plan
(duck-typed on the documented `Plan` contract), `render_files(spec) -> {path: text}` fills
plain string templates, and `write_files(dir, files, force)` is the only function that
writes to the disk. `spec_from_plan` is pure but for two existence checks: a model given as
a config.json path that is a file is served from its folder, and a drafter reference that
exists as a local path is not downloaded (hub_drafter). Templates use `string.Template`
(`$name`), so shell `${VAR}` is written `$${VAR}`.
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
from dataclasses import dataclass, replace
from pathlib import Path
from string import Template
from types import SimpleNamespace
from typing import Any, Mapping, Optional, Sequence

from kvplan.errors import InputError
from kvplan.plan.serve_flags import serve_load_format
from kvplan.plan.args import kv_transfer_object
from kvplan.plan import (COLD_START_POOL_LOSS_BYTES, check_env_name, cold_start_margin_bytes, device_shortfall_bytes, env_flag_on,
                          plan_kv_sizing_warmup_steps,
                          inductor_compiles, override_changes_text, parse_mm_limits, parse_speculative_config,
                          speculative_draft, speculative_object, vllm_quant_method)
from kvplan.resolve import GIB, GPUS_PER_NODE, is_commit_sha
from kvplan.startup import StartupPrediction, predict_startup, probe_failure_threshold
from kvplan.versions import (MULTI_VALUE_FLAGS, check_serve_env, check_serve_flags, serve_entrypoint, serve_mm_limits,
                             serve_quantization, serve_switch)

PROBE_PERIOD_S = 10  # startup-times.md, "Suggested startup-probe sizing"
PROBE_MARGIN = 2.0  # budget = 2 x predicted (covers 93 % of calibrated starts, startup-times.md)
# Seconds a probe waits for /health, in k8s as in compose's healthcheck (timeout: 5s). Kubernetes' default is 1 s, which
# vLLM under load misses: its /health is served by the API server process that also tokenizes and streams (scaleapi/
# llm-engine PR #255: "vLLM docker sometimes can't respond within 1s during high load"; llm-d/llm-d-benchmark PR #1734:
# a saturated vLLM missed three 1 s checks and was marked NotReady)
PROBE_TIMEOUT_S = 5
CONTAINER_HF_HOME = "/data/huggingface"
CONTAINER_VLLM_CACHE = "/data/vllm-cache"
COMPOSE_MODELS = "/models"  # a local checkpoint folder is bind-mounted read-only under this in the container
K8S_MODELS = "/data/models"  # ... and copied onto the PVC (mounted at /data) under this in Kubernetes
# Files the init container fetches: what vLLM loads (config, tokenizer, safetensors), not a repo's other copies
# of the weights (original/ consolidated checkpoints, .bin duplicates).
DOWNLOAD_PATTERNS = ("*.json", "*.safetensors", "*.model", "*.tiktoken", "*.txt", "*.jinja", "*.py")
DOWNLOAD_IGNORE = ("original/*",)


@dataclass(frozen=True)
class Flag:
    """One `vllm serve` flag, its value (None for a switch) and the reason for the number."""

    name: str
    value: Optional[str]
    why: str = ""

    def argv(self) -> list[str]:
        if self.value is None:
            return [self.name]
        # a flag argparse reads with nargs="+" (versions.MULTI_VALUE_FLAGS: --cudagraph-capture-sizes 1 2 4 8): one
        # argument per value
        return [self.name, *self.value.split()] if self.name in MULTI_VALUE_FLAGS else [self.name, self.value]


@dataclass(frozen=True)
class ScaffoldSpec:
    model_id: str
    revision: Optional[str]
    served_model_name: str
    port: int
    vllm_version: str
    gpu_name: str
    gpu_total_bytes: int
    tensor_parallel_size: int
    pipeline_parallel_size: int
    gated: bool
    weights_bytes_total: int
    flags: tuple[Flag, ...]
    arithmetic: tuple[str, ...]
    vllm_log: tuple[str, ...]
    startup_first: StartupPrediction  # empty cache: download + cold compile
    startup_restart: StartupPrediction  # weights on the PVC, warm compile cache
    gpus_per_node: int = GPUS_PER_NODE
    env: tuple[tuple[str, str], ...] = ()  # environment variables the plan assumed the server runs with
    fits: bool = True
    plan_error: Optional[str] = None
    data_parallel_size: int = 1
    pooling: bool = False  # an embedding/classification model: the smoke test asks /v1/embeddings
    local_dir: Optional[str] = None  # absolute path of a local checkpoint folder (no Hub id, no revision)
    # vLLM's own start with the weights already on the volume but a cold compile cache: the first start after the init
    # container's download (Kubernetes), which the startupProbe has to cover
    startup_first_from_volume: Optional[StartupPrediction] = None
    # a drafter checkpoint --speculative-config names by Hub id (draft_model, eagle, eagle3): fetched beside the model
    draft_model_id: Optional[str] = None
    draft_revision: Optional[str] = None
    draft_weights_bytes: int = 0
    # the most KV pool a compiling start loses against the warm one planned (the plan's first_start), per rank
    cold_start_loss_bytes: int = COLD_START_POOL_LOSS_BYTES
    # whether a start compiles torch.compile graphs (not with --enforce-eager or a compilation mode of none:
    # plan.inductor_compiles), and whether the pool is given (--kv-cache-memory-bytes: vLLM measures no memory then,
    # so a compiling start gets the same pool): what serve.sh says beside VLLM_DISABLE_COMPILE_CACHE=1
    compiles: bool = True
    kv_cache_given: bool = False
    # the pool a compiling start logs (least, most bytes per rank; plan.first_start), where the plan models one smaller
    # than the planned (warm-restart) pool, as fit's panel shows it: None otherwise
    first_start_kv_bytes: Optional[tuple[int, int]] = None
    # planned for a card under WSL2 (--wsl2, or this machine's card read under WSL2): the README's WSL2 notes
    wsl2: bool = False
    # the pool is vLLM >= 0.34's extensible KV cache, sized after warmup (plan.kv_pool): a compiling start logs its
    # smaller pool as 'Extended KV cache to N blocks (S GiB)', not as 'Available KV cache memory' (the capacity)
    kv_sized_after_warmup: bool = False
    # the kvplan options that name the GPU and release the files were sized for (gpu_recheck_args): each file's
    # `# Re-check: kvplan fit --from FILE ...` line, which --from reads back (launch_files.RECHECK_LINE)
    recheck_args: tuple[str, ...] = ()

    def recheck_line(self, path: str) -> str:
        """The comment line that says how to plan `path` again on the GPU and release it was sized for."""
        return f"# Re-check: kvplan fit --from {path} " + " ".join(shlex.quote(a) for a in self.recheck_args)

    @property
    def compile_cache_disabled(self) -> bool:
        return compile_cache_disabled(self.env)

    @property
    def download_bytes(self) -> int:
        """What a first start fetches (and the volume keeps): the checkpoint and its drafter's."""
        return self.weights_bytes_total + self.draft_weights_bytes

    @property
    def gpus(self) -> int:
        return self.tensor_parallel_size * self.pipeline_parallel_size * self.data_parallel_size

    @property
    def multi_node(self) -> bool:
        return self.gpus > self.gpus_per_node

    @property
    def nodes(self) -> int:
        return math.ceil(self.gpus / self.gpus_per_node)

    @property
    def nodes_text(self) -> str:
        """'2 nodes of 8 GPUs', '2 nodes of 1 GPU' (DGX Sparks)."""
        return f"{self.nodes} nodes of {self.gpus_per_node} GPU{'' if self.gpus_per_node == 1 else 's'}"

    @property
    def probe_start(self) -> StartupPrediction:
        """The start the Kubernetes startupProbe covers: the weights are on the PVC before vLLM starts (the init
        container downloaded them, or the operator copied a local folder there), so never a download."""
        return self.startup_first_from_volume or self.startup_first

    @property
    def probe_failure_threshold(self) -> int:
        return probe_failure_threshold(self.probe_start, PROBE_PERIOD_S, PROBE_MARGIN)

    @property
    def probe_budget_s(self) -> int:
        return self.probe_failure_threshold * PROBE_PERIOD_S

    @property
    def compose_start_period_s(self) -> int:
        """docker compose has no init step: its first start downloads, so its healthcheck grace covers that."""
        return probe_failure_threshold(self.startup_first, PROBE_PERIOD_S, PROBE_MARGIN) * PROBE_PERIOD_S

    @property
    def entrypoint(self) -> tuple[str, ...]:
        """The command that starts vllm_version's OpenAI server (versions.serve_entrypoint)."""
        return serve_entrypoint(self.vllm_version)[0]

    @property
    def model_flag(self) -> list[str]:
        """["--model"] where that server takes the model as a flag rather than as its first argument, else []."""
        return ["--model"] if serve_entrypoint(self.vllm_version)[1] else []

    @property
    def model_dir_name(self) -> str:
        return Path(self.local_dir).name if self.local_dir else ""

    @property
    def local_what(self) -> str:
        """What the local checkpoint is: a folder, or one GGUF file (vllm serve ./model.gguf)."""
        return "GGUF file" if str(self.local_dir or "").lower().endswith(".gguf") else "checkpoint folder"

    def model_ref(self, where: str = "host") -> str:
        """How the server is told the model: the Hub id, or a local folder's path on the host, in the compose
        container (bind mount) or on the Kubernetes PVC."""
        if not self.local_dir:
            return self.model_id
        return {"host": self.local_dir, "compose": f"{COMPOSE_MODELS}/{self.model_dir_name}",
                "k8s": f"{K8S_MODELS}/{self.model_dir_name}"}[where]

    def serve_argv(self, where: str = "compose") -> list[str]:
        model = self.model_ref(where)
        out = [*self.model_flag, model]
        for f in self.flags:
            out += f.argv()
        return out


# ------------------------------------------------------------------------------ plan -> spec


def _json_text(value) -> str:
    """A JSON flag's value as serve.sh passes it: the text as given, or a dict written compactly."""
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def _get(obj: Any, *names: str, default: Any = None) -> Any:
    for n in names:
        v = getattr(obj, n, None)
        if v is not None:
            return v
    return default


def _gib_text(n_bytes: Optional[float]) -> str:
    """Bytes as GiB text with 2 decimals ('?' where unknown)."""
    return "?" if n_bytes is None else f"{n_bytes / GIB:.2f} GiB"


def default_served_name(model_id: str) -> str:
    tail = model_id.rstrip("/").split("/")[-1]
    return re.sub(r"[^a-z0-9._-]+", "-", tail.lower()).strip("-") or "model"


def check_port(port: int) -> int:
    if not isinstance(port, int) or not 1 <= port <= 65535:
        raise InputError("--port", f"{port!r} is not a TCP port", "give a port from 1 to 65535, e.g. --port 8000")
    return port


SECRET_NAME = re.compile(r"HF_TOKEN|.*_TOKEN|.*_KEY|.*SECRET.*|.*PASSWORD.*", re.IGNORECASE)


def check_not_secret(name: str) -> str:
    """An --env name that holds a secret is refused: serve.sh, the compose file and k8s/ would carry its value in
    plain text. The generated files read such values from .env (compose, serve.sh) or a k8s Secret instead."""
    if SECRET_NAME.fullmatch(name):
        raise InputError("--env", f"{name} looks like a secret, and --env values are written in plain text into "
                         "serve.sh, docker-compose.yml and k8s/", "put it in .env / a k8s Secret; the generated files "
                         "read it from there")
    return name


def check_served_name(name: str) -> str:
    if not name.strip():  # the command line's '' and the page API's "" alike (the API wrote the default name)
        raise InputError("--served-model-name", "an empty name (clients could not name the model)",
                         "give a name, or leave it out for the model's repo name")
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise InputError("--served-model-name", f"{name!r} holds control characters",
                         "give a printable name such as chat-small")
    # the name is written into TOML and Python string literals and a shell default: 'my "chat"\x' made client.py and
    # pyproject.toml fail to parse (vLLM itself takes any string; clients send it as JSON)
    if bad := sorted({c for c in name if c in "\"\\"}):
        raise InputError("--served-model-name", f"{name!r} holds {' and '.join(bad)}, which client.py and pyproject.toml "
                         "would have to escape", "give a name without double quotes or backslashes, such as chat-small "
                         "or org/model")
    return name


def _speculative_comment(spec_config) -> str:
    """serve.sh's note on --speculative-config: what it takes from the budget (the arithmetic is in the header above)."""
    try:
        kind = (parse_speculative_config(spec_config) or ("",))[0]
    except InputError:
        kind = ""
    if kind == "ngram":  # plan._WEIGHTLESS_METHODS: ngram / suffix drafting proposes from the prompt
        return "n-gram drafting: no drafter weights or KV layers; its CUDA graphs are in the arithmetic above"
    if kind == "mtp":
        return "the checkpoint's MTP layers: their weights and KV layers are in the arithmetic above"
    return "the drafter's weights and KV layers are in the arithmetic above"


def _pin_drafter(plan: Any, spec_config, text: str) -> tuple[str, str]:
    """--speculative-config's text with the drafter pinned, and what serve.sh says about it. vLLM's SpeculativeConfig
    takes the drafter's "revision" (config/speculative.py, read in 0.17.0); a drafter the plan read from the Hub is
    served at the commit it was read at, as the model is (--revision); a branch, a tag or none is said to move."""
    if hub_drafter(plan)[0] is None:
        return text, ""
    try:
        revision = (speculative_draft(spec_config) or (None, None))[1]
    except InputError:
        return text, ""
    if is_commit_sha(revision):
        return text, "; the drafter pinned by its revision"
    info = _get(plan, "speculative")
    commit = info.get("draft_commit") if isinstance(info, dict) else None
    if is_commit_sha(commit):
        obj = dict(speculative_object(spec_config) or {})
        obj["revision"] = commit
        return (json.dumps(obj, separators=(",", ":")),
                f"; the drafter pinned: the commit {revision or 'main'} pointed at when kvplan read its config")
    what = f"{revision!r} is a branch or tag and can move" if revision else "no revision: main moves under you"
    return text, f'; the drafter NOT pinned ({what}): add "revision": "<commit sha>"'


def pinned_release(version: str) -> str:
    """The release scaffold pins, as pyproject's `vllm==X` and the image `vllm/vllm-openai:vX`: a release vLLM published
    (versions.PUBLISHED_RELEASES; an image reference or 'v' prefix dropped), or a plain release outside the span kvplan
    read (newer than its newest, older than its oldest). A nightly, development, candidate or local build (PyPI and Docker Hub serve none: scaffold wrote
    `vllm==0.26.1rc1.dev156`, and `vllm==vllm/vllm-openai:v0.10.1.1` with the image `vllm/vllm-openai:vvllm/...`) or a
    series alone ('0.11') raises InputError naming the release to pin."""
    from packaging.version import Version

    from kvplan.versions import (DEFAULT_RELEASE, PUBLISHED_RELEASES, development_build_of, names_patch_release,
                                 nightly_after_candidate, outside_read, parse_version, release_text, release_token)

    token = release_token(version)
    if token in PUBLISHED_RELEASES:
        return token
    planned = parse_version(version)
    if re.fullmatch(r"\d+\.\d+\.\d+(?:\.post\d+|\.\d+)?", token) and outside_read(planned) is not None:
        return token  # a release outside the ones kvplan read (PUBLISHED_RELEASES spans those): pinned as named
    after, before = nightly_after_candidate(version), development_build_of(version)
    named = release_text(planned)
    if after:
        kind, suggest = "a nightly of main", after[1]
    elif before:
        kind = "a development build"
        suggest = max((r for r in PUBLISHED_RELEASES if Version(r) < Version(before)), key=Version, default=DEFAULT_RELEASE)
    else:
        # (a nightly past the newest release published, '0.34.1rc1.dev5': nightly_after_candidate has no release after
        # it; the newest one published is the release to pin, whatever the default release of the plan)
        kind = ("a series, not a release" if not names_patch_release(version) else
                "a nightly of main" if re.search(r"rc\d+\.dev\d", token) else "a local build" if "+" in token
                else "a release candidate" if re.search(r"rc\d", token) else "no published release")
        suggest = named if named in PUBLISHED_RELEASES else max(PUBLISHED_RELEASES, key=Version)
    raise InputError("--vllm-version", f"scaffold pins vllm=={token} and the image vllm/vllm-openai:v{token}, which "
                     f"PyPI and Docker Hub do not serve: {version.strip()} is {kind}",
                     f"give the published release to pin, e.g. --vllm-version {suggest}")


def refuse_platform(gpu: Any, version: str) -> None:
    """A card whose vLLM is not the build scaffold writes (PyPI's CUDA wheel, the vllm/vllm-openai image) is refused,
    field --gpu: an AMD GPU, a Jetson Orin. Checked before the plan's verdict too (kvplan scaffold, the page's
    /api/scaffold): a plan that does not start on such a card offered fixes (TP 2 over two Jetsons, a larger Jetson)
    whose files would be refused all the same."""
    release = pinned_release(version)
    if str(_get(gpu, "vendor", default="NVIDIA")).upper() == "AMD":
        # every file scaffold writes is NVIDIA's: PyPI's vllm wheel is the CUDA build, vllm/vllm-openai the CUDA image, and compose
        # and k8s ask for an NVIDIA device; vLLM on ROCm is a ROCm build (AMD's rocm/vllm images, tagged per ROCm
        # release and GPU target), whose launch files kvplan does not write
        raise InputError("--gpu", f"{gpu.name} is an AMD GPU; kvplan scaffold writes NVIDIA launch files (PyPI's CUDA build "
                         f"of vllm=={release}, the vllm/vllm-openai image, docker compose's nvidia device and k8s's "
                         "nvidia.com/gpu), which would not start on it",
                         "take the flags from kvplan fit MODEL --gpu NAME (planned with ROCm's rules) into vLLM's ROCm "
                         "build (AMD's rocm/vllm images, tagged per ROCm release and GPU target)")
    if tuple(_get(gpu, "cc", default=()) or ()) == (8, 7):
        # compute capability 8.7 is Jetson Orin's alone: JetPack 6 needs NVIDIA's Jetson builds of PyTorch and vLLM; PyPI's
        # aarch64 wheels are not built for it ('can not pip install vllm' on an Orin Nano, vLLM issue #23376; PyPI's
        # torch fails torch.cuda.is_available there, dusty-nv/jetson-containers #1514), nor is the vllm/vllm-openai image
        raise InputError("--gpu", f"{gpu.name} is a Jetson Orin (JetPack 6); kvplan scaffold writes PyPI's vllm=={release} "
                         "and the vllm/vllm-openai image, neither built for it, so the files would not start there",
                         "take the flags from kvplan fit MODEL --gpu NAME into a Jetson build of vLLM (jetson-containers' "
                         "dustynv/vllm images, or the Jetson AI Lab pip index)")


def _eplb_flags(a: Any, version: str) -> list[Flag]:
    """--enable-eplb and the redundant experts in the form `version` takes them (rules row eplb_form: the
    --num-redundant-experts flag in 0.9.2-0.10.1, --eplb-config JSON from 0.10.2), and --all2all-backend as given."""
    from kvplan.versions import rules_for
    flags: list[Flag] = []
    if _get(a, "enable_eplb", default=False):
        redundant = _get(a, "eplb_redundant", default=0)
        flags.append(Flag("--enable-eplb", None, f"expert-parallel load balancing: {redundant} redundant experts per MoE "
                          "layer" if redundant else "expert-parallel load balancing"))
    settings = a.eplb_settings if hasattr(a, "eplb_settings") else {}  # a fresh dict per read
    if settings:
        if rules_for(version).eplb_form == "flag":
            if settings.get("num_redundant_experts") is not None:
                flags.append(Flag("--num-redundant-experts", str(int(settings["num_redundant_experts"])),
                                  "redundant experts per MoE layer"))
        else:
            flags.append(Flag("--eplb-config", json.dumps(settings, separators=(",", ":")),
                              "EPLB settings (num_redundant_experts: redundant experts per MoE layer)"))
    backend = _get(a, "all2all_backend")
    if backend:
        flags.append(Flag("--all2all-backend", str(backend), "as given"))
    return flags


def spec_from_plan(
    plan: Any,
    *,
    served_model_name: Optional[str] = None,
    port: int = 8000,
    gpus_per_node: int = GPUS_PER_NODE,
) -> ScaffoldSpec:
    """Everything the templates need, read from a plan (pure but for the existence checks of a config.json model
    path and of a local drafter, hub_drafter)."""
    a, m, g = plan.args, plan.model, plan.gpu
    # the flags as given, before the planner filled in vLLM's defaults: what vLLM would choose itself (a checkpoint's
    # quantization, its block size) is left to it (a plan without them: its args stand for both)
    given = _get(plan, "given_args") or a
    version = str(plan.vllm_version)
    # the release pinned and named in the files ('vllm/vllm-openai:v0.10.1.1' -> 0.10.1.1); `version` as given stays
    # the key of the version tables below, which read either
    release = pinned_release(version)
    check_port(port)
    refuse_platform(g, version)
    local_dir = _get(m, "local_dir")
    source = _get(m, "source")
    config_file = (Path(source) if not local_dir and isinstance(source, str) and source.lower().endswith(".json")
                   and Path(source).is_file() else None)
    if config_file is not None and config_file.name == "config.json":
        # a checkpoint's config.json given by its path is that checkpoint, as its folder is: serve.sh said
        # `vllm serve cfgdir` (the folder's name, as a Hub id, at --revision main) and the k8s init container
        # downloaded that name from the Hub
        local_dir = str(config_file.absolute().parent)
    elif config_file is not None:
        # any other JSON file (mymodel.json, a page upload) is a config alone: serve.sh said `vllm serve mymodel
        # --revision main`, the file's name as a Hub id, and the k8s init container downloaded it
        raise InputError("model", f"{config_file.name} is a config file alone: it names no weights for vllm serve to "
                         "load, so there is no model to write into serve.sh",
                         "give the Hub id the config belongs to (kvplan scaffold DIR org/name) or the checkpoint "
                         "folder holding config.json and its safetensors")
    model_id = _get(m, "id", default=None) or _get(a, "model", default="model")
    revision = _get(a, "revision") or _get(m, "revision")
    tp = int(_get(a, "tensor_parallel_size", default=1))
    pp = int(_get(a, "pipeline_parallel_size", default=1))
    dp = int(_get(a, "data_parallel_size", default=1) or 1)
    util = float(_get(a, "gpu_memory_utilization", default=0.9))
    total = int(_get(g, "total_bytes", default=0))
    w_rank = _get(plan, "weights_bytes", default=0) or 0
    w_total = int(_get(m, "weights_bytes", default=0) or w_rank * tp * pp)
    mml = _get(a, "max_model_len")
    kv_tok = _get(plan, "kv_cache_tokens")
    conc = _get(plan, "max_concurrency")
    per_tok = _get(plan, "kv_bytes_per_token")
    blocks = _get(plan, "num_gpu_blocks")
    bsz = _get(plan, "block_size") or _get(a, "block_size")
    requested = _get(plan, "requested_bytes") or util * total
    name = check_served_name(default_served_name(model_id) if served_model_name is None else served_model_name)

    def num(x):
        return f"{x:,.0f}" if isinstance(x, (int, float)) else "?"

    flags: list[Flag] = []
    commit = _get(m, "commit")
    if local_dir:  # a folder on disk: vLLM reads it as is, --revision names nothing there
        revision = None
    elif is_commit_sha(revision):
        flags.append(Flag("--revision", str(revision), "pinned: the repository can change under you"))
    elif commit:  # read from the Hub: serve the commit the plan's config came from
        revision = commit
        flags.append(Flag("--revision", commit, f"pinned: the commit {_get(a, 'revision') or _get(m, 'revision') or 'main'} "
                                                "pointed at when kvplan read the config"))
    elif revision:
        flags.append(Flag("--revision", str(revision), f"NOT pinned: {revision!r} is a branch or tag and can move; "
                                                       "replace it with a commit sha"))
    else:
        flags.append(Flag("--revision", "main", "NOT pinned: replace with a commit sha (main moves under you)"))
    tokenizer = _get(m, "tokenizer")
    if tokenizer:
        flags.append(Flag("--tokenizer", str(tokenizer), "the base model's tokenizer: vLLM's GGUF guide advises it over "
                                                          "converting the file's own (slow, unstable for large vocabularies)"))
    flags.append(Flag("--served-model-name", name, "the stable name clients send; swap checkpoints without touching them"))
    flags.append(Flag("--host", "0.0.0.0"))
    flags.append(Flag("--port", str(port)))
    dtype = _get(a, "dtype")
    if dtype:
        flags.append(Flag("--dtype", str(dtype).replace("torch.", ""),
                          ("as given" if _get(given, "dtype") else "what vLLM's auto picks for this checkpoint")
                          + f"; GPU cc {_get(g, 'compute_capability', default='?')}"))
    quant = serve_quantization(_get(given, "quantization"), vllm_quant_method(_get(m, "quant")),
                               bool(_get(_get(m, "quant"), "hf_quant_config_only", default=False)), version)
    if quant:
        pre_bnb = quant == "bitsandbytes" and not _get(given, "quantization")
        flags.append(Flag("--quantization", quant, (
            f"a pre-quantized bitsandbytes checkpoint: vLLM {version} loads it with the default loader without this "
            "flag, which fails on its quant-state tensors (vLLM picks bitsandbytes' loader itself from 0.8.4)")
            if pre_bnb else ""))
    load_format, load_why = serve_load_format(_get(given, "load_format"), quant, version)  # (plan.serve_flags)
    if load_format:
        flags.append(Flag("--load-format", load_format, load_why))
    if mml:
        conc_s = f"{conc:.2f}" if isinstance(conc, (int, float)) else "?"
        flags.append(Flag("--max-model-len", str(mml),
                          # not "tokens = sequences x length": with window or state groups, or in the releases whose
                          # token count is blocks per group, the two are counted apart (the arithmetic below)
                          f"KV pool: {conc_s} concurrent sequences of {num(mml)} tokens ({num(kv_tok)} KV-cache tokens "
                          "as vLLM logs them)"))
    wsl2 = planned_under_wsl2(plan)
    # vLLM >= 0.34 with its extensible KV cache: gpu_memory_utilization unset is 1.0, and vLLM advises leaving it unset
    # (config/cache.py CacheConfig.gpu_memory_utilization, 0.34.0). Written out, 1.0 would also stay 1.0 where a start
    # falls back to the profile's estimate (no virtual memory management on the host: v1/executor/abstract.py, 0.34.0),
    # which unset takes at 0.92 (CacheConfig.resolved_gpu_memory_utilization)
    util_left_default = (isinstance(_get(plan, "kv_pool"), dict) and _get(given, "gpu_memory_utilization") is None
                         and util == _get(_get(plan, "rules"), "extensible_gpu_memory_utilization"))
    if not util_left_default:
        flags.append(Flag("--gpu-memory-utilization", f"{util:g}",
                          f"{util:g} x {_gib_text(total)} = {_gib_text(requested)} for weights + activations + KV cache"
                          + ("; under WSL2 what Windows holds on the card is not free, and vLLM stops when the free "
                             "memory is below this (README.md, WSL2)" if wsl2 else "")))
    # a MoE model's experts are split over every TP x DP rank (whole experts with expert parallelism, else sliced:
    # weights.rank_weights), not over TP alone
    experts = (f"; the experts over all {tp * dp} TP x DP ranks" if dp > 1 and _get(plan.model, "is_moe", default=False)
               else "")
    if tp > 1 or pp > 1:
        split = f"{tp} ways" if pp == 1 else f"{tp * pp} ways (TP {tp} x PP {pp} stages)"
        flags.append(Flag("--tensor-parallel-size", str(tp), f"weights split {split}{experts}: {_gib_text(w_rank)} per GPU"))
        flags.append(Flag("--pipeline-parallel-size", str(pp)))
    else:
        flags.append(Flag("--tensor-parallel-size", "1", f"{_gib_text(w_rank)} of weights "
                          + (f"per GPU{experts}" if experts else "fit on one GPU")))
    if dp > 1:
        flags.append(Flag("--data-parallel-size", str(dp), f"{dp} engines, each with its own KV pool"))
    pcp = _get(a, "prefill_context_parallel_size")
    if pcp and int(pcp) > 1:
        flags.append(Flag("--prefill-context-parallel-size", str(pcp), f"{pcp} TP groups splitting each prefill, each "
                          "keeping the whole KV cache, as planned"))
    dcp = _get(a, "decode_context_parallel_size")
    if dcp and int(dcp) > 1:
        flags.append(Flag("--decode-context-parallel-size", str(dcp), f"each TP group's ranks in groups of {dcp}, each "
                          f"keeping 1/{dcp} of every sequence's KV tokens, as planned"))
    for interleave_field, interleave_flag in (("dcp_kv_cache_interleave_size", "--dcp-kv-cache-interleave-size"),
                                              ("cp_kv_cache_interleave_size", "--cp-kv-cache-interleave-size")):
        interleave = _get(a, interleave_field)
        if interleave is not None:  # where DCP places tokens: as given (no figure moves; plan.kv.interleave_checks)
            flags.append(Flag(interleave_flag, str(interleave), f"{interleave} consecutive token(s) per DCP rank in "
                              "turn, as given"))
    if _get(a, "enable_expert_parallel", default=False):
        flags.append(Flag("--enable-expert-parallel", None, "whole experts split over the TP x DP ranks"))
    placement = _get(a, "expert_placement_strategy")
    if placement:
        flags.append(Flag("--expert-placement-strategy", str(placement), "as given"))
    flags.extend(_eplb_flags(a, version))
    kvd = _get(a, "kv_cache_dtype")
    if kvd:
        flags.append(Flag("--kv-cache-dtype", str(kvd),
                          f"{num(per_tok)} bytes of KV per token" + (" per GPU" if tp * pp > 1 else "") if per_tok else ""))
    if bsz and _get(given, "block_size"):  # else vLLM's own choice, as planned (its attention backend's, a hybrid's
        # alignment): a written --block-size 272 is refused by argparse up to 0.17 (choices 1-256, config/cache.py
        # BlockSize), and from 0.18 it is "user specified" and skips the backend's preferred size
        # the size given, which argparse checks; a hybrid's aligned size (vLLM raises the given one to it) is vLLM's
        given_bsz = int(_get(given, "block_size"))
        flags.append(Flag("--block-size", str(given_bsz), f"{num(blocks)} blocks x {bsz} tokens" + (
            f" (vLLM raises {given_bsz} to {bsz}, aligning attention pages with the state pages)" if given_bsz != bsz else "")))
    mns = _get(a, "max_num_seqs")
    if mns:
        flags.append(Flag("--max-num-seqs", str(mns), "sequences per scheduler step" + (
            " (as given)" if _get(given, "max_num_seqs") else f" (vLLM {release}'s default for this GPU)")))
    mnbt = _get(a, "max_num_batched_tokens")
    if mnbt:
        flags.append(Flag("--max-num-batched-tokens", str(mnbt), "tokens per step; sizes the activation peak"))
    lpt = _get(a, "long_prefill_token_threshold")
    if lpt:  # as given (no memory): the scheduler's prefill chunk cap, as `kvplan simulate` applied it
        encdec_lpt = bool(_get(m, "is_encoder_decoder", default=False))
        flags.append(Flag("--long-prefill-token-threshold", str(lpt), "vLLM sets it to 0 for an encoder-decoder model: "
                          "no prefill is capped" if encdec_lpt else "prefill chunk cap per request and step (no memory)"))
    adaptive = _get(a, "long_prefill_token_threshold_adaptive")
    if adaptive is not None:  # given (vLLM 0.31+; the plan refused it before): written as given, both spellings
        flags.append(Flag("--" + ("" if adaptive else "no-") + "long-prefill-token-threshold-adaptive", None,
                          "the threshold floored at max_num_batched_tokens // requests running or waiting" if adaptive
                          else "off, vLLM's default, as given"))
    mssm = _get(a, "mamba_ssm_cache_dtype")
    if mssm and mssm != "auto":
        flags.append(Flag("--mamba-ssm-cache-dtype", str(mssm)))
    mconv = _get(a, "mamba_cache_dtype")
    if mconv and mconv != "auto":
        flags.append(Flag("--mamba-cache-dtype", str(mconv), "the recurrent layers' conv state (and their SSM state "
                          "where nothing else sets it), as planned"))
    moe_backend = _get(a, "moe_backend")
    if moe_backend and moe_backend != "auto":
        flags.append(Flag("--moe-backend", str(moe_backend), "the MoE experts' kernel, as planned (its padding and "
                          "workspace where it moves them)"))
    gdn_backend = _get(a, "gdn_prefill_backend")
    if gdn_backend:
        flags.append(Flag("--gdn-prefill-backend", str(gdn_backend), "the GDN prefill kernel, as planned (FlashInfer's "
                          "prefill checkpoints set the block size of a hybrid with prefix caching from vLLM 0.33)"))
    if _get(a, "enforce_eager", default=False):
        flags.append(Flag("--enforce-eager", None, "no CUDA graphs: faster start, slower decode"))
    spec_config = _get(a, "speculative_config")  # given as JSON text or as a dict
    if spec_config:
        text = _json_text(spec_config)
        text, pin = _pin_drafter(plan, spec_config, text)
        flags.append(Flag("--speculative-config", text, _speculative_comment(spec_config) + pin))
    for key, flag in (("hf_overrides", "--hf-overrides"), ("rope_scaling", "--rope-scaling")):
        value = _get(given, key) or _get(a, key)  # given as JSON text or as a dict
        if value:
            flags.append(Flag(flag, _json_text(value), _overrides_why(plan)))
    theta = _get(given, "rope_theta") or _get(a, "rope_theta")
    if theta:
        # the value as given, every digit: vLLM reads the flag with float(); "{:g}" kept six significant digits
        # (1234567 was served as 1.23457e+06, another rope base)
        number = float(theta)
        flags.append(Flag("--rope-theta", str(int(number)) if number.is_integer() else repr(number), _overrides_why(plan)))
    comp_config = _get(a, "compilation_config")  # given as JSON text or as a dict
    if comp_config:
        flags.append(Flag("--compilation-config", _json_text(comp_config), "as given (kvplan reads its cudagraph_mode and, from vLLM 0.11.1, its capture sizes)"))
    capture_sizes = _get(a, "cudagraph_capture_sizes")
    if capture_sizes:
        from kvplan.plan import parse_capture_sizes

        sizes = parse_capture_sizes(capture_sizes)
        flags.append(Flag("--cudagraph-capture-sizes", " ".join(map(str, sizes)),
                          "the batch sizes CUDA graphs are captured at, as planned (sizes above "
                          "max_num_batched_tokens are dropped)"))
    old_sizes = _get(a, "cuda_graph_sizes")
    if old_sizes:
        from kvplan.plan import parse_capture_sizes

        flags.append(Flag("--cuda-graph-sizes", " ".join(map(str, parse_capture_sizes(old_sizes))),
                          "vLLM 0.9.0-0.12.x's CUDA-graph batch sizes (before 0.11.1 one value N: 1, 2, 4 and the "
                          "multiples of 8 up to N), as planned"))
    top = _get(a, "max_cudagraph_capture_size")
    if top:
        flags.append(Flag("--max-cudagraph-capture-size", str(top), "vLLM's capture-size grid up to this batch size, "
                          "as planned"))
    perf = _get(a, "performance_mode")
    if perf:
        flags.append(Flag("--performance-mode", str(perf), {
            "interactivity": "every CUDA-graph batch size 1-32 captured (more graph memory): as planned",
            "throughput": "vLLM's default max_num_seqs and max_num_batched_tokens doubled: as planned"}.get(
                str(perf).strip().lower(), "as planned")))
    mm_limits = _get(a, "limit_mm_per_prompt")
    if mm_limits:
        flags.append(Flag("--limit-mm-per-prompt", serve_mm_limits(mm_limits, parse_mm_limits(mm_limits), version),
                          "the profile run encodes the largest allowed items: as planned"))
    if _get(a, "enable_lora", default=False):
        flags.append(Flag("--enable-lora", None, "LoRA slots on every supported layer are taken from the budget at startup"))
        for lora_flag in ("max_loras", "max_lora_rank"):
            if _get(a, lora_flag):
                flags.append(Flag("--" + lora_flag.replace("_", "-"), str(_get(a, lora_flag))))
        if _get(a, "fully_sharded_loras", default=False):
            flags.append(Flag("--fully-sharded-loras", None))
        if _get(a, "max_cpu_loras"):
            flags.append(Flag("--max-cpu-loras", str(_get(a, "max_cpu_loras")), "adapters cached in CPU memory (no GPU memory)"))
        targets = getattr(a, "lora_targets", None)
        if targets:  # vllm serve takes the names as separate arguments (nargs="+")
            flags.append(Flag("--lora-target-modules", " ".join(targets), "only these modules take LoRA slots"))
    if _get(a, "language_model_only", default=False):
        flags.append(Flag("--language-model-only", None, "text only: no vision tower loaded, as planned"))
    if _get(a, "skip_mm_profiling", default=False):
        flags.append(Flag("--skip-mm-profiling", None, "no encoder pass in the profile run: the pool takes its memory, as "
                          "planned; image or video requests may run out of memory"))
    if _get(a, "enable_sleep_mode", default=False):
        # the HTTP /sleep and /wake_up routes exist only under VLLM_SERVER_DEV_MODE=1 (entrypoints/openai/api_server.py
        # in 0.7.0-0.8.0, entrypoints/serve/sleep/api_router.py in 0.20.0, serve/dev/sleep in 0.34.0): said, not set,
        # since dev mode serves other unauthenticated routes too
        flags.append(Flag("--enable-sleep-mode", None, "weights and KV cache in vLLM's CuMem pools, so sleep() can free "
                          "them; the same KV budget, as planned. POST /sleep and /wake_up are served only with "
                          "VLLM_SERVER_DEV_MODE=1 (--env), whose dev routes need a private port"))
    if _get(a, "disable_hybrid_kv_cache_manager", default=False):
        flags.append(Flag("--disable-hybrid-kv-cache-manager", None, "window layers held as full attention in one KV-cache "
                          "group (every token kept), as planned"))
    elif _get(a, "disable_hybrid_kv_cache_manager") is False:
        flags.append(Flag("--no-disable-hybrid-kv-cache-manager", None, "the hybrid KV-cache manager kept on (from vLLM "
                          "0.13 also for a KV connector), as planned"))
    kv_transfer = kv_transfer_object(_get(a, "kv_transfer_config"))
    if kv_transfer is not None:  # as given: the connector (plan.kv_transfer), JSON on one line
        flags.append(Flag("--kv-transfer-config", json.dumps(kv_transfer, separators=(",", ":")),
                          f"KV connector {kv_transfer.get('kv_connector') or '(none named)'}: where the release turns the "
                          "hybrid KV-cache manager off for it, window layers are held as full attention, as planned; its "
                          "own buffers are not in the plan"))
    if _get(a, "disable_sliding_window", default=False):
        flags.append(Flag("--disable-sliding-window", None, "sliding-window layers run as full attention; max_model_len "
                          "is capped at the window, as planned"))
    if _get(a, "disable_custom_all_reduce", default=False):
        flags.append(Flag("--disable-custom-all-reduce", None, "tensor-parallel all-reduces through NCCL, not vLLM's "
                          "custom all-reduce kernel; the same KV budget, as planned"))
    async_sched = _get(a, "async_scheduling")
    if async_sched is not None:  # given (vLLM 0.10+; the plan refused it before): written as given, both spellings
        flags.append(Flag("--" + ("" if async_sched else "no-") + "async-scheduling", None,
                          "the next step scheduled while one runs; a sliding-window request holds the tokens of the steps "
                          "in flight, as planned" if async_sched else "steps scheduled one at a time, as planned"))
    if _get(a, "allow_deprecated_quantization", default=False):
        flags.append(Flag("--allow-deprecated-quantization", None, "the checkpoint's quantization method is one this release "
                          "deprecates; it refuses to start without this flag"))
    pool = _get(a, "kv_cache_memory_bytes")
    if pool is not None:
        flags.append(Flag("--kv-cache-memory-bytes", str(pool), f"the KV pool, {pool / 2**30:.2f} GiB per GPU, as planned: "
                          "gpu_memory_utilization no longer sizes it"))
    override = _get(a, "num_gpu_blocks_override")  # (not `blocks`: the plan's count, which the arithmetic below reads)
    if override is not None:
        flags.append(Flag("--num-gpu-blocks-override", str(override), "the KV pool's blocks, as planned: they replace the "
                          "profiled count and are allocated at this size"))
    mbs = _get(a, "mamba_block_size")
    if mbs is not None:
        flags.append(Flag("--mamba-block-size", str(mbs), "tokens per Mamba state block under prefix caching, as planned"))
    if _get(a, "calculate_kv_scales", default=False):
        flags.append(Flag("--calculate-kv-scales", None, "fp8 KV scales from the first forward (no memory moves)"))
    offload = _get(a, "cpu_offload_gb")
    if offload:
        flags.append(Flag("--cpu-offload-gb", f"{offload:g}", "weights kept in CPU memory and streamed every forward: slower decode"))
    encdec, dropped = bool(_get(m, "is_encoder_decoder", default=False)), []
    for switch, why in (("enable_prefix_caching", "as planned: with hybrid models it sets how many state pages each "
                                                  "sequence holds"),
                        ("enable_chunked_prefill", "as planned: it sets the step's token budget and the profile run's batch"),
                        ("enable_extensible_kv_cache", "as planned: it sizes the KV pool from the memory measured after "
                                                       "warmup (on) or from the profile's estimate (off)")):
        on = _get(a, switch)
        if encdec and switch in ("enable_chunked_prefill", "enable_prefix_caching") and (
                switch == "enable_chunked_prefill" or on is False):
            # vLLM turns the switch off itself for an encoder-decoder model (the plan's "disabling both." note;
            # rules rows encoder_decoder_*): a flag given is not written, and said so in the arithmetic below
            if _get(given, switch):
                dropped.append("--" + switch.replace("_", "-"))
            continue
        written = None if on is None else serve_switch("--" + switch.replace("_", "-"), bool(on), version)
        if written:  # given explicitly (None: not given, or off, the release's default, with no way to say so)
            flags.append(Flag(*written, why))
    pooling = bool(_get(m, "is_pooling", default=False))
    if pooling:
        flag = str(_get(_get(plan, "rules"), "pooling_flag", default="--runner pooling")).split()
        flags.append(Flag(flag[0], flag[1], "a pooling model: /v1/embeddings, no lm_head, no sampler"))
    for pooler_flag, pooler_field in (("--pooler-config", "pooler_config"),
                                      ("--override-pooler-config", "override_pooler_config")):
        given_pooler = _get(a, pooler_field)
        if given_pooler:  # as given (its release range is checked with the plan: versions.SERVE_FLAG_SINCE / _UNTIL)
            flags.append(Flag(pooler_flag, given_pooler if isinstance(given_pooler, str) else
                              json.dumps(given_pooler, separators=(",", ":")),
                              "as given: the pooling type decides the chunked-prefill and prefix-caching defaults"))
    if tp * pp * dp > gpus_per_node:
        flags.append(Flag("--distributed-executor-backend", "ray", "spans nodes: vLLM's multi-node path is Ray"))
        if dp > 1:  # the default "mp" backend starts every engine on the head node (config/parallel.py, 0.33.0)
            flags.append(Flag("--data-parallel-backend", "ray", "the DP engines are placed on the Ray cluster's nodes"))

    arithmetic = [
        f"GPU              {_get(g, 'name', default='?')} x {tp * pp * dp}"
        + (f" ({dp} engines of TP {tp} x PP {pp})" if dp > 1 else "") + f": {_gib_text(total)} each as CUDA reports it",
        f"requested        {util:g} x {_gib_text(total)} = {_gib_text(requested)} per GPU"
        + (f" (gpu_memory_utilization left unset: vLLM {release}'s default with its extensible KV cache; a start that "
           f"falls back to the profile's estimate takes {_get(_get(plan, 'rules'), 'default_gpu_memory_utilization', default='its own')})"
           if util_left_default else ""),
        f"weights          {_gib_text(w_rank)} per GPU as loaded (checkpoint files: {_gib_text(w_total)} in all)",
    ]
    if dropped:
        arithmetic.append(f"not written      {', '.join(dropped)}: vLLM {release} turns {'it' if len(dropped) == 1 else 'them'} "
                          "off for an encoder-decoder model (\"Encoder-decoder models do not support chunked prefill nor "
                          "prefix caching; disabling both.\")")
    # vLLM >= 0.34's extensible KV cache (plan.kv_pool): 'requested - the above' is only the capacity the profile
    # reserves; the pool is what the memory measured after warmup and CUDA-graph capture leaves
    # (plan.extensible.measured_pool, v1/worker/extensible_kv_cache.py measure_kv_cache_bytes, 0.34.0)
    pool = _get(plan, "kv_pool")
    capacity = _get(plan, "kv_cache_capacity_bytes")
    sized_after_warmup = isinstance(pool, dict) and capacity is not None
    per_gpu = " per GPU" if tp * pp * dp > 1 else ""
    for label, attr in (("activation peak", "activation_peak_bytes"), ("non-torch", "non_torch_bytes"),
                        ("CUDA graphs", "cudagraph_bytes")):
        v = _get(plan, attr)
        if v is not None:
            arithmetic.append(f"{label:<16} {_gib_text(v)}" + per_gpu
                              + (" estimated before the KV allocation (the capture is measured after warmup)"
                                 if sized_after_warmup and attr == "cudagraph_bytes" else ""))
    kvb = _get(plan, "kv_cache_bytes")
    if kvb is not None and sized_after_warmup:
        capture = _get(plan, "cudagraph_capture_bytes", default=0) or 0
        short = device_shortfall_bytes(pool)
        arithmetic.append(f"capacity         requested - the above = {_gib_text(capacity)} per GPU (logged 'Available "
                          "KV cache memory': reserved, not yet committed)")
        kept = (f" - {_gib_text(short)} the device cannot hold beside a {_gib_text(pool['margin_bytes'])} margin"
                if short >= 0.005 * GIB else "")
        arithmetic.append(f"KV cache         capacity - {_gib_text(capture)} captured CUDA graphs{kept} = "
                          f"{_gib_text(kvb)} per GPU in whole blocks, sized after warmup (the extensible KV cache)")
    elif kvb is not None:
        arithmetic.append(f"KV cache         requested - the above = {_gib_text(kvb)} per GPU")
    if per_tok:
        arithmetic.append(f"KV per token     {num(per_tok)} bytes"
                          + (" per GPU (its share of the KV heads and layers)" if tp * pp > 1 else ""))
    # blocks, concurrency and tokens as the plan computed them: with window or recurrent groups a request holds more
    # blocks than its length / block size, so "blocks x block size" is not the tokens there
    terms = {t.name: t for t in (_get(plan, "terms", default=()) or ())}
    per_engine = f" per engine (x {dp} engines)" if dp > 1 else ""
    per_req = terms.get("blocks_per_request")
    if blocks is not None:
        arithmetic.append(f"blocks           {num(blocks)} of {bsz} tokens" + (" on every GPU" if tp * pp > 1 else "")
                          + (f"; one {num(mml)}-token request holds {num(per_req.value)}" if per_req and mml else ""))
    if conc is not None and mml:
        how = terms["max_concurrency"].formula if "max_concurrency" in terms else f"{num(kv_tok)} / {num(mml)}"
        arithmetic.append(f"max concurrency  {how} = {conc:.2f} full-length sequences" + per_engine)
    if "kv_cache_tokens" in terms and kv_tok is not None:
        arithmetic.append(f"KV cache tokens  {terms['kv_cache_tokens'].formula} = {num(kv_tok)}" + per_engine)

    env = tuple(_get(a, "env", default=()) or ())
    for key, _ in env:
        check_env_name(key)
        check_not_secret(key)
    check_serve_flags([f.name for f in flags], version, {f.name: f.value for f in flags if f.value is not None})
    check_serve_env(env, version)
    eager = bool(_get(a, "enforce_eager", default=False))
    draft_id, draft_revision, draft_bytes = hub_drafter(plan)
    w_gib = w_total / GIB

    # vLLM >= 0.34's KV-cache sizing warmup, a phase only where the start runs it (rules row kv_cache_sizing_warmup,
    # the extensible KV cache sizing the pool, not a pooling or encoder-decoder model)
    sizing_steps = plan_kv_sizing_warmup_steps(plan)

    def predict(compile_cache: str, download: bool) -> StartupPrediction:
        def of(weights_gib: float) -> StartupPrediction:
            return predict_startup(weights_gib, tp, pipeline_parallel_size=pp, enforce_eager=eager,
                                   compile_cache=compile_cache, storage="cloud_block_ssd", download=download,
                                   kv_sizing_warmup_steps=sizing_steps)

        pred = of(w_gib)
        if not draft_bytes:
            return pred
        # the drafter's checkpoint is downloaded and loaded too: those two phases at the weights of both
        both = of((w_total + draft_bytes) / GIB)
        return replace(pred, download_s=both.download_s, load_s=both.load_s)

    first = predict("cold", download=not local_dir)
    from_volume = predict("cold", download=False)
    # VLLM_DISABLE_COMPILE_CACHE=1 (ScaffoldSpec.compile_cache_disabled): restarts compile as the first start does
    restart = predict("cold" if compile_cache_disabled(env) else "warm", download=False)
    return ScaffoldSpec(
        model_id=model_id, revision=str(revision) if revision else None, served_model_name=name, port=port,
        vllm_version=release, gpu_name=str(_get(g, "name", default="?")), gpu_total_bytes=total,
        tensor_parallel_size=tp, pipeline_parallel_size=pp, gated=bool(_get(m, "gated", default=False)),
        weights_bytes_total=w_total, flags=tuple(flags), arithmetic=tuple(arithmetic), env=env,
        vllm_log=tuple(_get(plan, "vllm_log", default=()) or ()), startup_first=first, startup_restart=restart,
        # a GPU that comes one to a machine (a DGX Spark, a laptop's) spans a node per rank: two Sparks at TP 2 are a
        # two-node server on a Ray cluster, not two GPUs of one host
        gpus_per_node=1 if _get(g, "one_per_machine", default=False) else gpus_per_node, fits=bool(plan.fits), plan_error=_get(plan, "error"), data_parallel_size=dp,
        pooling=pooling, local_dir=str(local_dir) if local_dir else None, startup_first_from_volume=from_volume,
        draft_model_id=draft_id, draft_revision=draft_revision, draft_weights_bytes=draft_bytes,
        cold_start_loss_bytes=cold_start_margin_bytes(plan),
        compiles=inductor_compiles(SimpleNamespace(enforce_eager=eager, compilation_config=_get(a, "compilation_config"))),
        kv_cache_given=_get(a, "kv_cache_memory_bytes") is not None,
        first_start_kv_bytes=_first_start_pool(plan),
        wsl2=wsl2, kv_sized_after_warmup=sized_after_warmup,
        recheck_args=gpu_recheck_args(g, wsl2) + ("--vllm-version", version),
    )


def gpu_recheck_args(gpu: Any, wsl2: bool = False) -> tuple[str, ...]:
    """The kvplan options that plan `gpu` again: the catalog card's name (--gpu), with its total (--gpu-gib, exact to
    the byte) where the catalog's differs (a size given, this machine's card as NVML reads it, a MIG slice), and
    --wsl2; a total alone for a GPU the catalog does not name."""
    from kvplan.errors import KvplanError
    from kvplan.resolve import find_gpu

    total, name = int(_get(gpu, "total_bytes", default=0) or 0), str(_get(gpu, "name", default="") or "")
    exact = ("--gpu-gib", repr(total / GIB))
    # a card given a size is named '<card> (<size>)' (resolve.resolve_gpu): the card is the name before it
    sized = re.sub(r"\s*\([\d.]+ Gi?B\)$", "", name)
    for ref in dict.fromkeys(r for r in (_get(gpu, "id"), sized, name) if r and r not in ("custom", "detected")):
        try:
            card = find_gpu(ref)
        except KvplanError:  # a MIG slice: its card found with its total only
            try:
                card = find_gpu(ref, total_bytes=total)
            except KvplanError:
                continue
            card = replace(card, total_bytes=-1)
        if card.compute_capability == _get(gpu, "compute_capability") and card.vendor == _get(gpu, "vendor"):
            if wsl2 and card.total_bytes > 0:  # under WSL2 the card's total is the catalog's nvidia-smi total
                from kvplan.resolve import resolve_gpu

                try:
                    card = replace(card, total_bytes=resolve_gpu(card.name, detect=False, wsl2=True)[0].total_bytes)
                except KvplanError:  # the catalog holds none (the plan was given --gpu-gib): the total is written
                    card = replace(card, total_bytes=-1)
            same = card.total_bytes == total
            return ("--gpu", card.name) + (() if same else exact) + (("--wsl2",) if wsl2 else ())
    return exact + (("--wsl2",) if wsl2 else ())


def planned_under_wsl2(plan: Any) -> bool:
    """Whether the plan's card runs under WSL2: --wsl2 (its assumption, resolve_gpu) or this machine's card read under
    WSL2 (resolve.machine_gpu's total source)."""
    return (any(str(n).startswith("--wsl2:") for n in (_get(plan, "assumptions", default=()) or ()))
            or "under WSL2" in str(_get(_get(plan, "gpu"), "total_source", default="") or ""))


# Under WSL2 (sources: resolve.py above wsl2_gpu, preflight.check_platform): CUDA's total is nvidia-smi's memory.total and
# what Windows holds on the card counts as used, so vLLM's start-up check ('Free memory on device (x/y GiB) on startup
# ... is less than desired GPU memory utilization', worker/gpu_worker.py) stops a start that Linux would allow; vLLM turns
# pinned memory off there ("Using 'pin_memory=False' as WSL is detected", platforms/interface.py); the GPU comes from the
# Windows driver (NVIDIA's CUDA on WSL user guide: no Linux display driver inside WSL).
WSL2_README = """
Under WSL2:

- the GPU comes from the NVIDIA driver on Windows: install no Linux display driver inside WSL; `nvidia-smi` there is
  `/usr/lib/wsl/lib/nvidia-smi`.
- what Windows holds on the card (the desktop, a browser) counts as used, and vLLM stops at startup when the free memory
  is below `--gpu-memory-utilization` x the total (`Free memory on device (x/y GiB) on startup ... is less than desired
  GPU memory utilization`): check `nvidia-smi` first, close what holds the card, or lower the utilization in serve.sh
  to below free / total (a smaller KV pool: re-plan with `kvplan fit ... --wsl2 --gpu-memory-utilization U`).
- vLLM turns pinned memory off under WSL (`Using 'pin_memory=False' as WSL is detected`): slower host transfers.
- `docker compose up -d` needs Docker with GPU support under WSL2 (Docker Desktop's WSL2 backend, or Docker Engine and
  the NVIDIA Container Toolkit inside WSL); `k8s/` is for a Linux cluster.
"""


def _first_start_pool(plan: Any) -> Optional[tuple[int, int]]:
    """(least, most) bytes of the KV pool a start that compiles its torch.compile graphs logs, where the plan models it
    below the planned pool (the range fit's panel prints beside the pool, render.first_start_text); else None."""
    first = _get(plan, "first_start")
    if _get(plan, "mode", default="vllm") != "vllm" or not isinstance(first, dict) or not first.get("modelled") \
            or not first.get("loss_bytes_most", 0) > 0:
        return None
    return int(first["kv_cache_bytes_least"]), int(first["kv_cache_bytes_most"])


def _first_start_log_note(spec: ScaffoldSpec, readme: bool = False) -> str:
    """What a compiling start logs instead of the expected pool: the lines above are a restart's (warm compile cache),
    while the first start of a new volume (or every start, with VLLM_DISABLE_COMPILE_CACHE=1) compiles inside vLLM's
    memory profile and logs a smaller pool; '' where the plan models none."""
    if not spec.first_start_kv_bytes or not spec.compiles or spec.kv_cache_given:
        return ""
    lo, hi = (b / GIB for b in spec.first_start_kv_bytes)
    which = ("every start (VLLM_DISABLE_COMPILE_CACHE=1 loads no compiled graph)" if spec.compile_cache_disabled
             else "a first start (empty compile cache)")
    logged = ("the pool it commits after warmup (`Extended KV cache to N blocks (S GiB)`)" if spec.kv_sized_after_warmup
              else "`Available KV cache memory`")
    if readme:
        planned = ("The pool above is a start's that loads its compiled graphs from the cache, which "
                   "VLLM_DISABLE_COMPILE_CACHE=1 prevents: every start" if spec.compile_cache_disabled else
                   "The pool above is a restart's, which loads its compiled graphs from the cache; a first start (empty "
                   "compile cache)")
        return (f"\n{planned} compiles them inside vLLM's memory profile and logs a smaller one: {logged} "
                f"between {lo:.2f} and {hi:.2f} GiB (`kvplan fit` shows the same range beside the pool).\n")
    figure = (f"Extended KV cache to N blocks ({lo:.2f}-{hi:.2f} GiB)" if spec.kv_sized_after_warmup
              else f"Available KV cache memory {lo:.2f}-{hi:.2f} GiB")
    return f"\n#   {which}: {figure} (compiling inside the memory profile)"


def hub_drafter(plan: Any) -> tuple[Optional[str], Optional[str], int]:
    """(Hub id, revision, checkpoint bytes in all) of the drafter --speculative-config names by "model" (draft_model, eagle,
    eagle3), as the plan resolved it; (None, None, 0) for MTP and n-gram drafting, which fetch nothing, and for a
    drafter in a local folder, which the operator puts on the volume as the model's own folder."""
    info = _get(plan, "speculative")
    ref = info.get("draft_model") if isinstance(info, dict) else None
    if not isinstance(ref, str) or not ref.strip() or ref.startswith((".", "/", "~", "\\")) or ref.endswith(".json") \
            or Path(ref).expanduser().exists():
        return None, None, 0
    try:  # the revision as the plan read the drafter at (plan.speculative_draft)
        revision = (speculative_draft(_get(_get(plan, "args"), "speculative_config")) or (None, None))[1]
    except InputError:
        revision = None
    if not is_commit_sha(revision) and is_commit_sha(info.get("draft_commit")):
        revision = info["draft_commit"]  # the commit the plan read the drafter's config at: what serve.sh pins
    # the plan counts the drafter per rank of the stage it runs on (the last; split over TP as the model is)
    tp = int(_get(_get(plan, "args"), "tensor_parallel_size", default=1) or 1)
    return ref.strip(), revision, int(info.get("draft_weights_bytes") or 0) * tp


# ------------------------------------------------------------------------------ templates

# kvplan does not read a model's tokenizer_config.json, so it cannot know whether the model has a chat template. vLLM
# answers a chat request to a model without one with 400 ("... default chat template is no longer allowed, so you must
# provide a chat template ...": vLLM issues #5924, #10299), so the smoke test then asks /v1/completions instead.
CHAT_REQUEST = '''    start = time.perf_counter()
    try:
        reply = client.chat.completions.create(
            model=args.model,
            messages=[{"role": "user", "content": args.prompt}],
            max_tokens=32,
            temperature=0.0,
        )
        text = (reply.choices[0].message.content or "").strip() if reply.choices else ""
    except BadRequestError as exc:
        if "chat template" not in str(exc).lower():
            raise
        # a base model without a chat template (vLLM answers 400): ask /v1/completions with the raw prompt
        print(f"note: {args.model} has no chat template; smoke-testing /v1/completions instead", file=sys.stderr)
        start = time.perf_counter()
        reply = client.completions.create(model=args.model, prompt=args.prompt, max_tokens=32, temperature=0.0)
        text = (reply.choices[0].text or "").strip() if reply.choices else ""
    latency_s = time.perf_counter() - start
    if not text:
        print(f"FAIL: empty answer from {args.model} after {latency_s * 1000:.0f} ms", file=sys.stderr)
        return 1
    tokens = getattr(reply.usage, "completion_tokens", None) if reply.usage else None
    print(f"OK {args.model}: {latency_s * 1000:.0f} ms, {tokens if tokens is not None else '?'} tokens: {text!r}")
'''

EMBED_REQUEST = '''    start = time.perf_counter()
    reply = client.embeddings.create(model=args.model, input=[args.prompt])
    latency_s = time.perf_counter() - start
    vector = reply.data[0].embedding if reply.data else []
    if not vector or not any(vector):
        print(f"FAIL: empty embedding from {args.model} after {latency_s * 1000:.0f} ms", file=sys.stderr)
        return 1
    print(f"OK {args.model}: {latency_s * 1000:.0f} ms, a {len(vector)}-dimensional embedding")
'''

PYPROJECT = Template('''\
# Generated by kvplan: vLLM is pinned to the exact release this deployment was sized for.
# Install into a fresh virtualenv: the wheel bundles its own torch and CUDA kernels.
[project]
name = "$package"
version = "0.1.0"
description = "vLLM serving $model_id on $gpu_desc"
requires-python = ">=3.10,<3.14"
dependencies = [
  "vllm==$vllm_version",
  "openai>=1.30",
]

[tool.kvplan]
model = "$model_id"
revision = "$revision"
served_model_name = "$served_model_name"
gpu = "$gpu_name"
gpus = $gpus
vllm_version = "$vllm_version"
''')

ENV_EXAMPLE = Template('''\
# Copy to .env and fill in. Never commit .env; in production the token comes from a secret store.
$token_lines
# Where serve.sh caches the weights: a large, persistent volume, not the root filesystem (docker compose keeps them
# on its named volume hf-cache; it reads $compose_reads below).
HF_HOME=/mnt/models/huggingface
MODEL=$model_sh
${revision_env}SERVED_MODEL_NAME=$served_sh
PORT=$port
VLLM_LOGGING_LEVEL=INFO
''')

# An HF_TOKEN that is set but empty is sent as a token: the Hub answers 401 even for a public model (failure case
# gated-401-empty-hf-token, vLLM issue #20350: vLLM read the variable itself, where huggingface_hub treats an empty
# token as none). So it is never exported empty: required for a gated model, unset otherwise.
TOKEN_ENV_GATED = """# Access token: $model_id is gated, so serve.sh and docker compose refuse to start without it.
HF_TOKEN="""
TOKEN_ENV_PUBLIC = """# Access token, only for gated or private models. Leave it commented out: an empty HF_TOKEN is sent as a token
# and the Hub answers 401 even for public models.
# HF_TOKEN=hf_..."""
TOKEN_SH_GATED = ''': "$${HF_TOKEN:?set HF_TOKEN in .env: $model_id is gated (accept its licence on the Hub first)}"
export HF_TOKEN
'''
TOKEN_SH_PUBLIC = '''# An empty HF_TOKEN is sent as a token and refused (401) even for public models: drop it unless it has a value.
if [[ -z "$${HF_TOKEN:-}" ]]; then unset HF_TOKEN; fi
'''


SERVE_SH = Template('''\
#!/usr/bin/env bash
# serve.sh -- the vllm serve command for $model_id, every flag in version control.
# Generated by kvplan for vLLM $vllm_version on $gpu_desc.
$recheck_sh
#
# The arithmetic behind the numbers (vLLM $vllm_version's startup rules):
$arithmetic
#
# Predicted startup (process start -> ready; +-45 % on public records, see README):
#   first start, empty cache: ~$first_s s   restart, weights cached: ~$restart_s s
#
# Startup lines to expect in the log (compare them with the numbers above):
$vllm_log$first_start_sh$multi_node_sh
set -euo pipefail
cd "$$(dirname "$$0")"

if [[ -f .env ]]; then
  set -a
  # shellcheck source=/dev/null
  . ./.env
  set +a
fi

: "$${HF_HOME:?set HF_HOME to a persistent volume (see .env.example)}"
export HF_HOME
${token_sh}${env_lines}MODEL=$${MODEL:-$model_sh}
${revision_sh}SERVED_MODEL_NAME=$${SERVED_MODEL_NAME:-$served_sh}
PORT=$${PORT:-$port}

args=(
$flag_lines
)

exec $entry_sh "$$MODEL" "$${args[@]}" "$$@"
''')

COMPOSE = Template('''\
# docker compose up -d ; then: python client.py
# Sized for $gpu_desc with vLLM $vllm_version (see README.md for the arithmetic).
$recheck_compose
# Reads ${env_read} from .env (docker compose interpolates $${VAR:-default}), as serve.sh does.
${multi_node_compose}services:
  vllm:
    image: vllm/vllm-openai:v$vllm_version
    entrypoint: $entrypoint
    command: $command
    environment:
$compose_token
      HF_HOME: $container_hf_home
      VLLM_CACHE_ROOT: $container_vllm_cache
      VLLM_LOGGING_LEVEL: "$${VLLM_LOGGING_LEVEL:-INFO}"
${compose_env}    volumes:
      - hf-cache:/data
$compose_model_mount    ports:
      - "$compose_port:$compose_port"
    # PyTorch shares tensors between vLLM's processes through /dev/shm.
    ipc: host
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: $gpus
              capabilities: [gpu]
    healthcheck:
      test: ["CMD", "python3", "-c", "import urllib.request; urllib.request.urlopen('http://localhost:$compose_port/health', timeout=$probe_timeout)"]
      interval: 15s
      timeout: ${probe_timeout}s
      retries: 3
      # predicted first start ~$first_s s ($first_what), x2 margin
      start_period: $start_period
    restart: unless-stopped

volumes:
  hf-cache: {}
''')

CLIENT_PY = Template('''\
"""Smoke test: $smoke_what through the OpenAI client.

Exits 0 only when the server lists the model and returns $smoke_ok; prints latency.
    python client.py [--base-url http://localhost:$port/v1] [--model $served_sh]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from openai import APIConnectionError, APIStatusError, BadRequestError, OpenAI  # noqa: F401 (BadRequestError: the chat smoke test)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base-url", default=os.environ.get("VLLM_BASE_URL", "http://localhost:$port/v1"))
    ap.add_argument("--model", default=os.environ.get("SERVED_MODEL_NAME", "$served_model_name"))
    ap.add_argument("--prompt", default="What is the capital of France? Answer in one word.")
    ap.add_argument("--timeout", type=float, default=120.0)
    args = ap.parse_args(argv)

    client = OpenAI(base_url=args.base_url, api_key=os.environ.get("VLLM_API_KEY", "EMPTY"),
                    timeout=args.timeout, max_retries=0)
    try:
        served = [m.id for m in client.models.list().data]
    except APIConnectionError as exc:  # vLLM listens only once it is ready: refused while it loads, profiles, captures
        print(f"FAIL: no server answers at {args.base_url} ({exc.__cause__ or exc}): start it (./serve.sh or docker "
              "compose up -d; Kubernetes: kubectl port-forward svc/$k8s_name $port) and wait until /health answers",
              file=sys.stderr)
        return 1
    except APIStatusError as exc:
        print(f"FAIL: {args.base_url}/models answered HTTP {exc.status_code}: {exc.message}", file=sys.stderr)
        return 1
    if args.model not in served:
        print(f"FAIL: model {args.model!r} not served; the server lists {served}", file=sys.stderr)
        return 1

$request    return 0


if __name__ == "__main__":
    sys.exit(main())
''')

README = Template('''\
# $served_model_name: $model_id on vLLM $vllm_version

Sized by kvplan for **$gpu_desc** ($gpu_total per GPU as CUDA reports it).
$model_line, served as `$served_model_name` on port $port.
$verdict$local_notes$driver_note

## The arithmetic

```
$arithmetic_plain
```

To plan it again after a change (a flag in serve.sh, another GPU with `--gpu`): `kvplan fit --from serve.sh` (or
`--from docker-compose.yml`, `--from k8s/...`); each file's `# Re-check:` line names the GPU and release it was sized
for, which `--from` plans unless others are given.

The authoritative numbers are the startup log's; these are the lines to expect:

```
$vllm_log_plain
```
$first_start_md
## Startup time

Predicted by kvplan's startup model (fitted on 126 public vLLM startups; about +-45 % median error):

| phase | first start (download, cold compile) | restart (weights cached, $restart_compile) |
|---|---|---|
$startup_rows

$probe_text
Re-size it from the first real startup log.

## Files

| file | what |
|---|---|
| `pyproject.toml` | vllm pinned to $vllm_version; install into a fresh virtualenv |
| `.env.example` | $token_row, HF_HOME, model$revision_row; copy to `.env`, never commit it |
| `serve.sh` | the `vllm serve` command with every flag and why |
| `docker-compose.yml` | the same command in the `vllm/vllm-openai:v$vllm_version` image |
| `client.py` | smoke test: `python client.py` exits 0 on a real answer and prints latency |
| `k8s/` | $k8s_desc |

## Run
$multi_node_md
```bash
python -m venv .venv && . .venv/bin/activate && pip install -e .
cp .env.example .env          # set HF_HOME$token_run
$run_serve
python client.py
```

Kubernetes:

```bash
kubectl create secret generic hf-token --from-literal=HF_TOKEN="$$HF_TOKEN"   # from your secret store
kubectl apply -f k8s/
```
$wsl2_notes''')


def _yaml_list(items: Sequence[str], indent: int, quote=None) -> str:
    pad = " " * indent
    return "\n".join(f"{pad}- {(quote or _k8s_str)(x)}" for x in items)


def _flow_list(items: Sequence[str], quote) -> str:
    return "[" + ", ".join(quote(x) for x in items) + "]"


def _compose_str(s: str, escape: bool = True) -> str:
    """A compose-file string: docker compose interpolates $VAR and ${VAR} in every value, so a literal $ is $$."""
    return _yq(s.replace("$", "$$") if escape else s)


# serve.sh's variables that .env.example sets, by the flag whose value each one is (the model: its first argument)
_ENV_OF_FLAG = {"--revision": "REVISION", "--served-model-name": "SERVED_MODEL_NAME", "--port": "PORT"}


def _compose_var(name: str, default: str) -> str:
    """$${NAME:-default}: .env's NAME where it sets one, else the value planned; a default holding '$' or '}' cannot be
    written inside the braces, and is written as itself (a literal $ as $$)."""
    if "$" in default or "}" in default:
        return _compose_str(default)
    return _yq(f"${{{name}:-{default}}}")


def _compose_command(spec: ScaffoldSpec) -> str:
    """compose's command: serve.sh's arguments, with the values .env sets (MODEL for a Hub id, REVISION,
    SERVED_MODEL_NAME, PORT) read from it as serve.sh reads them; a pin or a name set in .env was served by serve.sh and
    not by compose, which wrote the planned values."""
    out = [_compose_str(x) for x in spec.model_flag]
    model = spec.model_ref("compose")  # a local folder is mounted at a fixed path: .env's MODEL is the host's
    out.append(_compose_str(model) if spec.local_dir else _compose_var("MODEL", model))
    for f in spec.flags:
        if f.name in _ENV_OF_FLAG and f.value is not None:
            out += [_compose_str(f.name), _compose_var(_ENV_OF_FLAG[f.name], f.value)]
        else:
            out += [_compose_str(x) for x in f.argv()]
    return "[" + ", ".join(out) + "]"


def _k8s_str(s: str) -> str:
    """A Kubernetes command/args string: Kubernetes expands $(VAR) there, so a literal $( is $$(."""
    return _yq(s.replace("$(", "$$("))


def _overrides_why(plan) -> str:
    """What --hf-overrides (--rope-scaling, --rope-theta) changed in the plan, for serve.sh's comment and the README."""
    changed = (getattr(plan, "config_overrides", None) or {}).get("changed") or {}
    said = override_changes_text(changed, "max length")
    return "set on the model's config before vLLM derives anything from it" + (f": {said}" if said else "")


def _overrides_notes(spec: ScaffoldSpec) -> str:
    """The README's paragraph on a config override serve.sh passes (--hf-overrides, or 0.4.3-0.11.0's rope flags)."""
    given = [f for f in spec.flags if f.name in ("--hf-overrides", "--rope-scaling", "--rope-theta")]
    if not given:
        return ""
    return ("\n**The model's config is overridden.** `serve.sh` passes " + ", ".join(
        f"`{f.name} {shlex.quote(f.value or '')}`" for f in given) + f": vLLM {spec.vllm_version} sets these keys on "
        f"the checkpoint's config.json before deriving the context length and the KV cache, and kvplan planned with them "
        f"({given[0].why.partition(': ')[2] or 'nothing it derives changed'}). Serve it without them and vLLM derives another model: keep the flag wherever the command "
        "is copied (docker-compose.yml and k8s/ carry it too).\n")


def _driver_note(spec: ScaffoldSpec) -> str:
    """The host driver the pinned release needs (versions.driver_requirement): an upgrade across a CUDA major (0.20.0's
    CUDA 13 wheels) stops on a host whose driver is older, before any plan figure matters."""
    from kvplan.versions import MIN_DRIVER_BY_CUDA, driver_requirement

    cuda, need = driver_requirement(spec.vllm_version)
    alt = (f"; a host on the {MIN_DRIVER_BY_CUDA['12.9'].split('.')[0]} branch can install the release's CUDA 12.9 wheel "
           f"instead (`pip install vllm=={spec.vllm_version} --extra-index-url https://wheels.vllm.ai/{spec.vllm_version}/cu129`)"
           if cuda == "13.0" else "")
    image = ", as is its `vllm/vllm-openai` image" if cuda == "13.0" else ""
    return (f"\n**Host driver.** vLLM {spec.vllm_version}'s default wheel is built with CUDA {cuda}{image}: the host needs "
            f"NVIDIA driver {need} or newer (NVIDIA's CUDA Toolkit release notes, Table 3){alt}. `kvplan preflight` "
            "checks the machine's.\n")


def _local_notes(spec: ScaffoldSpec) -> str:
    if not spec.local_dir:
        return ""
    what = spec.local_what.split()[-1]
    return (f"\n**A local {spec.local_what}, not a Hub id.** `serve.sh` serves `{spec.local_dir}` as is (no `--revision`: "
            f"pin it by keeping the {what} unchanged). docker compose mounts it read-only at `{spec.model_ref('compose')}`. "
            f"Kubernetes cannot see this machine's disk: copy the {what} onto the PVC `k8s/pvc.yaml` claims, at "
            f"`models/{spec.model_dir_name}` (the pod reads `{spec.model_ref('k8s')}`), before `kubectl apply`, e.g. "
            "with `kubectl cp` into a pod that mounts the claim.\n")


def compile_cache_disabled(env: Sequence[tuple[str, str]]) -> bool:
    """VLLM_DISABLE_COMPILE_CACHE on, read as the plan reads it (plan.env_flag_on): no start loads compiled graphs from
    the cache (vllm/compilation/backends.py), so a restart compiles as the first start does."""
    return env_flag_on(env, "VLLM_DISABLE_COMPILE_CACHE")


def _env_cost(spec: ScaffoldSpec, name: str) -> str:
    """What an --env variable costs, said beside its export in serve.sh (the plan's warning says it in full)."""
    if name == "VLLM_DISABLE_COMPILE_CACHE" and spec.compile_cache_disabled:
        if not spec.compiles:  # it said 'every start compiles its graphs ... up to 1.74 GiB smaller' of eager starts
            return (": no effect here: --enforce-eager (or a compilation mode of none) builds no torch.compile graphs, "
                    "so there is no compile cache to skip")
        pool = ("; the KV pool stays the one --kv-cache-memory-bytes gives" if spec.kv_cache_given
                else "; kvplan reads no KV pool loss from compiling for this plan" if spec.cold_start_loss_bytes <= 0
                else f", and a KV pool up to {spec.cold_start_loss_bytes / GIB:.2f} GiB smaller than a warm start's")
        return f": every start compiles its graphs (restart ~{spec.startup_restart.total_s:.0f} s{pool}); unset it to keep the cache"
    return ""


def _probe_text(spec: ScaffoldSpec) -> str:
    return _probe_text_of(spec) + (_AFTER_WARMUP_STARTUP_NOTE.format(version=spec.vllm_version)
                                   if spec.kv_sized_after_warmup else "")


# the startup model's records (kvplan.startup) predate vLLM 0.34, whose extensible KV cache adds steps before the server
# is ready (v1/worker/gpu_worker.py _compile_or_warm_up_model -> gpu/warmup.py run_kv_cache_sizing_warmup before the
# CUDA-graph capture, then measure_kv_cache_blocks and extend_kv_cache, 0.34.0 wheel): the sizing warmup's full-budget
# steps are timed at the profile run's term (the same forward; kvplan.startup), the pool's commit is not; say so
_AFTER_WARMUP_STARTUP_NOTE = (" No vLLM {version} start is among the startups the prediction is fitted on: with the "
                              "extensible KV cache a start also runs a KV-cache sizing warmup before CUDA-graph capture "
                              "(the `kv sizing warmup` row: its full-budget steps, each timed as the profile run, the same "
                              "forward over max_num_batched_tokens tokens; unmeasured on a 0.34 start) and commits the pool "
                              "after capture, which the prediction does not count.")


def _probe_text_of(spec: ScaffoldSpec) -> str:
    restart = (f"Restarts find the weights on the volume but compile again, as VLLM_DISABLE_COMPILE_CACHE=1 loads no "
               f"compiled graph from the cache (~{spec.startup_restart.total_s:.0f} s; unset it for warm restarts)."
               if spec.compile_cache_disabled else
               f"Restarts find the weights and the compile cache on the volume (~{spec.startup_restart.total_s:.0f} s).")
    start = spec.probe_start.total_s
    if spec.local_dir:
        return (f"Kubernetes: the weights are copied onto the PVC beforehand, so no start downloads. The startupProbe allows "
                f"{spec.probe_budget_s} s ({spec.probe_failure_threshold} x {PROBE_PERIOD_S} s), twice the first start "
                f"with a cold compile cache (~{start:.0f} s). {restart}")
    return (f"Kubernetes: the init container `download-weights` fetches the checkpoint onto the PVC before vLLM starts "
            f"(~{spec.startup_first.download_s:.0f} s predicted; no probe runs during init, and later pods find the files "
            f"there and skip it in seconds). So the startupProbe covers vLLM's own start, never a download: it allows "
            f"{spec.probe_budget_s} s ({spec.probe_failure_threshold} x {PROBE_PERIOD_S} s), twice the first start with a "
            f"cold compile cache (~{start:.0f} s), rather than the {2 * spec.startup_first.total_s:.0f} s a download "
            f"inside the probe would need on every restart. {restart} docker compose has no init step: its healthcheck "
            f"start_period ({spec.compose_start_period_s} s) includes the download.")


def _yq(s: str) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML)."""
    import json

    return json.dumps(str(s))


def _pvc_gib(spec: ScaffoldSpec) -> int:
    # weights + 50 % (a second revision during an upgrade) + 20 GiB for vLLM's compile cache.
    return int(math.ceil(spec.download_bytes / GIB * 1.5 + 20))


def _k8s_name(spec: ScaffoldSpec) -> str:
    """The Kubernetes objects' name (Deployment, Service, the PVC's prefix): the served name as a DNS label."""
    return re.sub(r"[^a-z0-9-]+", "-", spec.served_model_name.lower()).strip("-")[:50] or "vllm"


def _k8s_files(spec: ScaffoldSpec) -> dict[str, str]:
    name = _k8s_name(spec)
    labels = f"app.kubernetes.io/name: {name}"
    token_optional = "false" if spec.gated else "true"
    files = {}
    access = "ReadWriteMany" if spec.multi_node else "ReadWriteOnce"
    access_note = ("   # leader and workers on different nodes share it: needs an RWX storage class (NFS, Filestore, EFS ...)"
                   if spec.multi_node else "")
    files["k8s/pvc.yaml"] = f"""\
# The HF cache on a persistent volume: restarts and new replicas skip the download.
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: {name}-hf-cache
spec:
  accessModes: ["{access}"]{access_note}
  resources:
    requests:
      storage: {_pvc_gib(spec)}Gi   # weights {spec.download_bytes / GIB:.1f} GiB{" (with the drafter's)" if spec.draft_weights_bytes else ""} x 1.5 + 20 GiB compile cache
"""
    files["k8s/service.yaml"] = f"""\
apiVersion: v1
kind: Service
metadata:
  name: {name}
spec:
  selector:
    {labels}
  ports:
    - name: http
      port: {spec.port}
      targetPort: {spec.port}
"""
    env = "".join(f"            - name: {k}\n              value: {_k8s_str(v)}\n" for k, v in spec.env) + f"""\
            - name: HF_HOME
              value: {CONTAINER_HF_HOME}
            - name: VLLM_CACHE_ROOT
              value: {CONTAINER_VLLM_CACHE}
            - name: HF_TOKEN
              valueFrom:
                secretKeyRef:
                  name: hf-token
                  key: HF_TOKEN
                  optional: {token_optional}"""
    where = ("the weights were copied onto the PVC beforehand" if spec.local_dir else
             "the init container put the weights on the PVC")
    probes = f"""\
          # vLLM loads weights, profiles memory and captures CUDA graphs before /health answers. {where[0].upper() + where[1:]},
          # so no start downloads: predicted first start ~{spec.probe_start.total_s:.0f} s (cold compile cache), restarts
          # ~{spec.startup_restart.total_s:.0f} s; the probe allows {spec.probe_failure_threshold} x {PROBE_PERIOD_S} s = {spec.probe_budget_s} s (2x the first) before restarting the pod.
          # timeoutSeconds as compose's healthcheck: the kubelet's default, 1 s, is missed by a busy server's /health
          # (its API process also tokenizes and streams), and three misses restart a pod that was serving
          startupProbe:
            httpGet:
              path: /health
              port: {spec.port}
            periodSeconds: {PROBE_PERIOD_S}
            timeoutSeconds: {PROBE_TIMEOUT_S}
            failureThreshold: {spec.probe_failure_threshold}
          readinessProbe:
            httpGet:
              path: /health
              port: {spec.port}
            periodSeconds: 10
            timeoutSeconds: {PROBE_TIMEOUT_S}
            failureThreshold: 3
          livenessProbe:
            httpGet:
              path: /health
              port: {spec.port}
            periodSeconds: 30
            timeoutSeconds: {PROBE_TIMEOUT_S}
            failureThreshold: 3"""
    volumes = f"""\
      volumes:
        - name: hf-cache
          persistentVolumeClaim:
            claimName: {name}-hf-cache
        - name: dshm
          emptyDir:
            medium: Memory
            sizeLimit: 16Gi"""
    mounts = """\
          volumeMounts:
            - name: hf-cache
              mountPath: /data
            - name: dshm
              mountPath: /dev/shm"""
    image = f"vllm/vllm-openai:v{spec.vllm_version}"
    init = _init_container(spec, image, env, mounts)
    command = _flow_list(spec.entrypoint, _yq)
    if spec.local_dir:
        model_note = (f"# {spec.local_dir} is a local {spec.local_what}, not a Hub id: copy it onto the PVC at "
                      f"models/{spec.model_dir_name} first\n# (the pod reads {spec.model_ref('k8s')}; see README.md).\n")
    else:
        model_note = ""
    if not spec.multi_node:
        files["k8s/deployment.yaml"] = f"""\
# {spec.model_id} on {spec.gpus} x {spec.gpu_name}, vLLM {spec.vllm_version} (sized by kvplan; see README.md).
{spec.recheck_line('k8s/deployment.yaml')}
{model_note}apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  labels:
    {labels}
spec:
  replicas: 1
  strategy:
    type: Recreate   # the RWO cache volume cannot be mounted by two pods on different nodes
  selector:
    matchLabels:
      {labels}
  template:
    metadata:
      labels:
        {labels}
    spec:
{init}      containers:
        - name: vllm
          image: {image}
          command: {command}
          args:
{_yaml_list(spec.serve_argv("k8s"), 12)}
          env:
{env}
          ports:
            - name: http
              containerPort: {spec.port}
          resources:
            limits:
              nvidia.com/gpu: {spec.gpus}
            requests:
              nvidia.com/gpu: {spec.gpus}
{mounts}
{probes}
{volumes}
"""
    else:
        per_node = spec.gpus_per_node
        serve = " ".join(shlex.quote(x).replace("$(", "$$(") for x in [*spec.entrypoint, *spec.serve_argv("k8s")])
        leader_cmd = ("bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader "
                      f"--ray_cluster_size=$(LWS_GROUP_SIZE); {serve}")
        worker_cmd = ("bash /vllm-workspace/examples/online_serving/multi-node-serving.sh worker "
                      "--ray_address=$(LWS_LEADER_ADDRESS)")
        files["k8s/leaderworkerset.yaml"] = f"""\
# {spec.model_id} on {spec.gpus} x {spec.gpu_name} = {spec.nodes_text}: more GPUs than one node has,
# so one vLLM instance spans nodes with Ray, as vLLM documents it (docs/deployment/frameworks/lws.md:
# LeaderWorkerSet + examples/online_serving/multi-node-serving.sh; TP within a node, PP across nodes).
# Needs the LeaderWorkerSet controller: https://github.com/kubernetes-sigs/lws
{spec.recheck_line('k8s/leaderworkerset.yaml')}
{model_note}apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: {name}
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: {spec.nodes}
    restartPolicy: RecreateGroupOnPodRestart
    leaderTemplate:
      metadata:
        labels:
          role: leader
          {labels}
      spec:
{_reindent(init, 2)}{chr(10) if init else ""}        containers:
          - name: vllm-leader
            image: {image}
            command: ["sh", "-c"]
            args:
              - {_yq(leader_cmd)}
            env:
{_reindent(env, 2)}
            ports:
              - name: http
                containerPort: {spec.port}
            resources:
              limits:
                nvidia.com/gpu: {per_node}
{_reindent(mounts, 2)}
{_reindent(probes, 2)}
{_reindent(volumes, 2)}
    workerTemplate:
      spec:
        containers:
          - name: vllm-worker
            image: {image}
            command: ["sh", "-c"]
            args:
              - {_yq(worker_cmd)}
            env:
{_reindent(env, 2)}
            resources:
              limits:
                nvidia.com/gpu: {per_node}
{_reindent(mounts, 2)}
{_reindent(volumes, 2)}
"""
        files["k8s/service.yaml"] = files["k8s/service.yaml"].replace(
            f"    {labels}\n", f"    {labels}\n    leaderworkerset.sigs.k8s.io/name: {name}\n    role: leader\n")
    return files


def _init_container(spec: ScaffoldSpec, image: str, env: str, mounts: str) -> str:
    """An init container that downloads the checkpoint onto the PVC (none for a local folder): the first start's
    download runs before vLLM, outside the startupProbe, and a pod that finds the files there skips it."""
    if spec.local_dir:
        return ""
    code = ("from huggingface_hub import snapshot_download; "
            f"snapshot_download({spec.model_id!r}, revision={(spec.revision or 'main')!r}, "
            f"allow_patterns={list(DOWNLOAD_PATTERNS)!r}, ignore_patterns={list(DOWNLOAD_IGNORE)!r})")
    if spec.draft_model_id:  # the drafter --speculative-config names: vLLM would fetch it inside the probe's window
        code += (f"; snapshot_download({spec.draft_model_id!r}, revision={(spec.draft_revision or 'main')!r}, "
                 f"allow_patterns={list(DOWNLOAD_PATTERNS)!r}, ignore_patterns={list(DOWNLOAD_IGNORE)!r})")
    return f"""\
      initContainers:
        # the first start's download ({spec.download_bytes / GIB:.1f} GiB, ~{spec.startup_first.download_s:.0f} s predicted) runs here, with
        # no probe; later pods find the files on the PVC and finish in seconds
        - name: download-weights
          image: {image}
          command: ["python3", "-c"]
          args:
            - {_yq(code)}
          env:
{env}
{mounts}
"""


def _reindent(text: str, extra: int) -> str:
    pad = " " * extra
    return "\n".join(pad + line if line.strip() else line for line in text.splitlines())


def _comment_block(lines: Sequence[str], prefix: str = "#   ") -> str:
    """Shell comment lines; a line with line breaks of its own (vLLM's multi-line errors) is commented line by line,
    else its second line would run as a command."""
    lines = [part for line in lines for part in str(line).splitlines()]
    return "\n".join(f"{prefix}{line}".rstrip() for line in lines) if lines else f"{prefix}(none predicted)"


def _multi_node_steps(spec: ScaffoldSpec) -> list[str]:
    """How the other nodes join a plan that spans nodes (vLLM's multi-node path: a Ray cluster the head node's
    `vllm serve` finds; vLLM docs, serving/parallelism_scaling.md 'Multi-node deployment', and
    examples/online_serving/run_cluster.sh), or [] for a plan one node holds."""
    if not spec.multi_node:
        return []
    others = "the other node" if spec.nodes == 2 else f"each of the other {spec.nodes - 1} nodes"
    return [f"This plan spans {spec.nodes_text} ({spec.gpus} in all): one vLLM server over a "
            "Ray cluster, started before serve.sh.",
            "On the head node: ray start --head --port=6379",
            f"On {others}: ray start --address=HEAD_NODE_IP:6379",
            f"Check `ray status` lists {spec.gpus} GPUs; every node needs the same vLLM {spec.vllm_version}, the same",
            "HF_HOME holding the weights and a network NCCL reaches (set VLLM_HOST_IP / NCCL_SOCKET_IFNAME",
            "where a node has several interfaces). Then run ./serve.sh on the head node only."]


def render_files(spec: ScaffoldSpec) -> dict[str, str]:
    """Every file of the project, by relative path (pure)."""
    gpu_desc = f"{spec.gpus} x {spec.gpu_name}" if spec.gpus > 1 else f"1 x {spec.gpu_name}"
    revision = spec.revision or "main"
    flag_lines = []
    for f in spec.flags:
        if f.why:
            flag_lines.append(f"  # {f.why}")
        value = {"--revision": '"$REVISION"', "--served-model-name": '"$SERVED_MODEL_NAME"',
                 "--port": '"$PORT"'}.get(f.name, " ".join(map(shlex.quote, f.argv()[1:])) if f.value is not None else None)
        flag_lines.append(f"  {f.name}" + (f" {value}" if value is not None else ""))
    first_s = f"{spec.startup_first.total_s:.0f}"
    restart_s = f"{spec.startup_restart.total_s:.0f}"
    common = dict(
        model_id=spec.model_id, revision=revision, served_model_name=spec.served_model_name, port=spec.port,
        vllm_version=spec.vllm_version, gpu_name=spec.gpu_name, gpu_desc=gpu_desc, gpus=spec.gpus,
        first_s=first_s, restart_s=restart_s,
    )
    model_sh, served_sh = shlex.quote(spec.model_ref("host")), shlex.quote(spec.served_model_name)
    token = dict(common, model_id=spec.model_ref("host"))
    local = bool(spec.local_dir)
    package = re.sub(r"[^a-z0-9]+", "-", spec.served_model_name.lower()).strip("-") + "-service"
    rows = []
    for (phase, a), b in zip(spec.startup_first.phases().items(), spec.startup_restart.phases().values()):
        if phase == "download" and a > 0:  # a rate the user's network decides: the one assumed is said (was "96 s" alone)
            from kvplan.startup import COEFFICIENTS

            rate = COEFFICIENTS.download_gib_per_s
            phase = (f"download ({a * rate:.1f} GiB at {rate:g} GiB/s, the median of the public startups' downloads; "
                     "your network's rate decides it)")
        rows.append(f"| {phase} | {a:.0f} s | {b:.0f} s |")
    rows.append(f"| **total** | **{spec.startup_first.total_s:.0f} s** | **{spec.startup_restart.total_s:.0f} s** |")
    verdict = ("" if spec.fits else
               f"\n**Warning: the plan does not fit** -- vLLM will refuse to start: {spec.plan_error or ''}\n")
    steps = _multi_node_steps(spec)
    k8s_desc = ("PVC for the HF cache, LeaderWorkerSet (Ray, multi-node), Service" if spec.multi_node
                else "PVC for the HF cache, Deployment (token from a Secret, startup/readiness probes), Service")
    files = {
        "pyproject.toml": PYPROJECT.substitute(common, package=package),
        ".env.example": ENV_EXAMPLE.substitute(
            common, model_sh=model_sh, served_sh=served_sh,
            token_lines=Template(TOKEN_ENV_GATED if spec.gated else TOKEN_ENV_PUBLIC).substitute(token),
            revision_env="" if local else f"REVISION={shlex.quote(revision)}\n",
            compose_reads="the name, port and log level" if local else "the model, revision, name, port and log level"),
        "serve.sh": SERVE_SH.substitute(common, arithmetic=_comment_block(spec.arithmetic),
                                        recheck_sh=spec.recheck_line("serve.sh"),
                                        multi_node_sh=("\n#\n# Multi-node:\n" + _comment_block(steps)) if steps else "",
                                        first_start_sh=_first_start_log_note(spec),
                                        vllm_log=_comment_block(spec.vllm_log), flag_lines="\n".join(flag_lines),
                                        env_lines="".join(f"export {k}={shlex.quote(v)}  # as planned{_env_cost(spec, k)}\n" for k, v in spec.env),
                                        token_sh=Template(TOKEN_SH_GATED if spec.gated else TOKEN_SH_PUBLIC).substitute(token),
                                        model_sh=model_sh, served_sh=served_sh,
                                        revision_sh="" if local else f"REVISION=${{REVISION:-{shlex.quote(revision)}}}\n",
                                        entry_sh=" ".join([*spec.entrypoint, *spec.model_flag])),
        "docker-compose.yml": COMPOSE.substitute(
            common, recheck_compose=spec.recheck_line("docker-compose.yml"), entrypoint=_flow_list(spec.entrypoint, _compose_str), command=_compose_command(spec),
            multi_node_compose=(f"# NOT for one host: this plan spans {spec.nodes_text} and compose "
                                f"reserves devices on one machine only; use k8s/ (LeaderWorkerSet) or serve.sh on a Ray "
                                f"cluster (see serve.sh).\n" if steps else ""),
            compose_port=f"${{PORT:-{spec.port}}}",
            env_read=", ".join([*([] if local else ["MODEL"]), *(v for k, v in _ENV_OF_FLAG.items()
                                                                  if any(f.name == k for f in spec.flags)),
                                "VLLM_LOGGING_LEVEL"]),
            container_hf_home=CONTAINER_HF_HOME, container_vllm_cache=CONTAINER_VLLM_CACHE,
            compose_env="".join(f"      {k}: {_compose_str(v)}\n" for k, v in spec.env),
            compose_token=(f"      HF_TOKEN: {_compose_str(chr(36) + '{HF_TOKEN:?set HF_TOKEN in .env: this model is gated}', escape=False)}"
                           if spec.gated else
                           "      # passed through only when set (an empty HF_TOKEN is refused with 401, even for public models)\n"
                           "      HF_TOKEN:"),
            compose_model_mount=(f"      # {spec.local_dir} is a local {spec.local_what}, not a Hub id: mounted read-only\n"
                                 # the long syntax: a ':' in the path would split the short HOST:CONTAINER:ro form
                                 f"      - type: bind\n        source: {_compose_str(spec.local_dir)}\n"
                                 f"        target: {_compose_str(spec.model_ref('compose'))}\n        read_only: true\n"
                                 if local else ""),
            first_what="cold compile; a local folder, no download" if local else "download + cold compile",
            probe_timeout=PROBE_TIMEOUT_S,
            start_period=f"{spec.compose_start_period_s}s"),
        "client.py": CLIENT_PY.substitute(
            common, served_sh=served_sh, k8s_name=_k8s_name(spec), request=EMBED_REQUEST if spec.pooling else CHAT_REQUEST,
            smoke_what="one embedding request" if spec.pooling else "one chat completion",
            smoke_ok="a non-empty vector" if spec.pooling else "a non-empty answer"),
        "README.md": README.substitute(
            common, gpu_total=_gib_text(spec.gpu_total_bytes), verdict=verdict,
            arithmetic_plain="\n".join(spec.arithmetic), vllm_log_plain="\n".join(spec.vllm_log) or "(none predicted)",
            first_start_md=_first_start_log_note(spec, readme=True),
            startup_rows="\n".join(rows), k8s_desc=k8s_desc, probe_text=_probe_text(spec),
            restart_compile="cold compile: VLLM_DISABLE_COMPILE_CACHE=1" if spec.compile_cache_disabled else "warm compile",
            model_line=(f"Model: the local {spec.local_what} `{spec.local_dir}`" if local
                        else f"Model `{spec.model_id}` at revision `{revision}`"),
            local_notes=_local_notes(spec) + _overrides_notes(spec), driver_note=_driver_note(spec),
            token_row="HF_TOKEN (required: gated model)" if spec.gated else "HF_TOKEN (commented out: only for gated models)",
            revision_row="" if local else ", revision",
            token_run=" and HF_TOKEN (the model is gated)" if spec.gated else "",
            wsl2_notes=WSL2_README if spec.wsl2 else "",
            run_serve=("./serve.sh                    # on the head node, once `ray status` lists every GPU" if steps else
                       "./serve.sh                    # or: docker compose up -d"),
            multi_node_md=("\n" + "\n".join(["**Multi-node.** " + steps[0], "", "```bash",
                                                *(f"{line.split(':', 1)[1].strip():<40} # {line.split(':', 1)[0].lower()}"
                                                  for line in steps[1:3]), "```", "", " ".join(steps[3:]),
                                                "docker compose reserves GPUs on one host and cannot start this plan.",
                                                ""]) if steps else "")),
    }
    files.update(_k8s_files(spec))
    return files


# ------------------------------------------------------------------------------ I/O edge

EXECUTABLE = {"serve.sh", "client.py"}


def write_files(directory: str | os.PathLike, files: Mapping[str, str], force: bool = False) -> list[Path]:
    """Write `files` under `directory`. Refuses (before writing anything) to overwrite without `force`."""
    root = Path(directory)
    if root.exists() and not root.is_dir():
        raise InputError("DIR", f"{root} exists and is not a directory", "choose another path")
    # a path in the way that --force cannot overwrite either (a file named k8s where the k8s/ folder goes, a folder
    # named serve.sh): refused before anything is written, where the write stopped half-way ("k8s: File exists")
    # and left serve.sh, compose and the README without the k8s files
    for rel in files:
        path = root / rel
        in_way = next((p for p in reversed(path.relative_to(root).parents) if str(p) != "." and (root / p).exists()
                       and not (root / p).is_dir()), None)
        if in_way is not None:
            raise InputError("DIR", f"{root / in_way} is a file, where kvplan scaffold writes the folder {in_way}/ "
                             f"(for {rel})", "move the file away, or choose an empty directory")
        if path.is_dir():
            raise InputError("DIR", f"{path} is a folder, where kvplan scaffold writes the file {rel}",
                             "move the folder away, or choose an empty directory")
    if not force:
        existing = [root / rel for rel in files if (root / rel).exists()]
        if existing:
            more = f" (and {len(existing) - 1} more)" if len(existing) > 1 else ""
            raise InputError("DIR", f"{existing[0]} already exists{more}; kvplan scaffold never overwrites",
                             "pass --force to overwrite, or choose an empty directory")
    written = []
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if rel in EXECUTABLE:
            path.chmod(0o755)
        written.append(path)
    return written

