"""The `kvplan` command line: one Typer app, one module per command.

Every command that plans takes the same `vllm serve` flags, spelled as vLLM spells
them; `fit_options` adds them to a command once, so no command repeats them.
Exit codes: 0 success (and "fits"), 1 "does not fit" / a check failed, 2 bad input (a model the Hub and the HF cache
cannot supply included).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import sys
from dataclasses import dataclass, fields
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape

from kvplan.errors import KvplanError

app = typer.Typer(
    name="kvplan",
    help="Predict what a vLLM deployment will do before you spend money on a GPU.\n\n"
         "Examples:\n"
         "$ kvplan fit                     # the seed's example, offline, no GPU needed\n"
         "$ kvplan fit meta-llama/Llama-3.1-8B-Instruct --gpu L4 --max-model-len 32768\n"
         "$ kvplan COMMAND --help          # each command's options and examples\n\n"
         "Exit codes: 0 fits (or success), 1 does not fit (or a check failed), 2 bad input.",
    no_args_is_help=False,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()
err_console = Console(stderr=True)


def _help_cells_fold() -> None:
    """`kvplan COMMAND --help` keeps every option name and help word whole: typer's rich help table cut a cell too long
    for its column with an ellipsis, which at 80 columns left fit's options as '--gpu-memory-util…' and
    '--tensor-parallel…' and --env's variables as 'VLLM_ALLOW_LONG_…'; they now fold onto the next line. Typer builds
    those cells with rich_utils.highlighter / negative_highlighter (option names) and _get_parameter_help (the help
    text); where a typer release has not these, or builds its help otherwise (typer>=0.12 is all pyproject.toml asks),
    its help is left as it prints it: this never stops --help."""
    try:
        from typer import rich_utils
    except Exception:  # a typer without rich_utils (or whose import fails here): its own help, unchanged
        return
    from rich.text import Text

    def folding(make):
        def wrapper(*args, **kwargs):
            out = make(*args, **kwargs)
            parts = getattr(out, "renderables", None)  # _get_parameter_help: rich Columns of Text
            for text in parts if isinstance(parts, list) else [out]:
                if isinstance(text, Text):
                    text.overflow = "fold"
            return out
        return wrapper

    for name in ("highlighter", "negative_highlighter", "_get_parameter_help"):
        if callable(getattr(rich_utils, name, None)):
            setattr(rich_utils, name, folding(getattr(rich_utils, name)))
    rich_utils._kvplan_folds = True


@dataclass(frozen=True)
class FitFlags:
    """The `vllm serve` flags (plus kvplan's own GPU and version choices) a plan takes."""

    gpu: Optional[str] = None
    gpu_gib: Optional[float] = None
    gpu_gb: Optional[float] = None
    wsl2: bool = False
    num_gpus: Optional[int] = None
    max_model_len: Optional[str] = None
    gpu_memory_utilization: Optional[float] = None
    tensor_parallel_size: Optional[int] = None
    pipeline_parallel_size: Optional[int] = None
    data_parallel_size: Optional[int] = None
    enable_expert_parallel: bool = False
    kv_cache_dtype: Optional[str] = None
    max_num_seqs: Optional[int] = None
    max_num_batched_tokens: Optional[str] = None  # read as vllm serve reads it: 8k = 8,000, 8K = 8,192
    block_size: Optional[int] = None
    enforce_eager: bool = False
    quantization: Optional[str] = None
    dtype: Optional[str] = None
    mamba_ssm_cache_dtype: Optional[str] = None
    revision: Optional[str] = None
    speculative_config: Optional[str] = None
    compilation_config: Optional[str] = None
    cudagraph_capture_sizes: Optional[str] = None  # "1,2,4,8" (vllm serve: --cudagraph-capture-sizes 1 2 4 8)
    max_cudagraph_capture_size: Optional[int] = None
    cuda_graph_sizes: Optional[str] = None  # "1,2,4,8" or "256" (vLLM 0.9.0-0.12.x: --cuda-graph-sizes 1 2 4 8)
    enable_prefix_caching: Optional[bool] = None
    enable_chunked_prefill: Optional[bool] = None
    env: Optional[list[str]] = None
    cpu_offload_gb: Optional[float] = None
    kv_cache_memory_bytes: Optional[str] = None  # read as vllm serve reads it: 8G = 8 GiB, 8g = 8e9
    enable_lora: bool = False
    max_loras: Optional[int] = None
    max_lora_rank: Optional[int] = None
    fully_sharded_loras: bool = False
    runner: Optional[str] = None
    limit_mm_per_prompt: Optional[str] = None
    language_model_only: bool = False
    skip_mm_profiling: bool = False
    entrypoint: Optional[str] = None
    vllm_version: Optional[str] = None
    overhead_gb: Optional[float] = None

    def engine_kwargs(self) -> dict:
        """The flags as keyword arguments of `kvplan.fit` (None = the version's default)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


_P = inspect.Parameter
GPU_HELP = "GPU name or alias from the catalog (e.g. L4, H100, 'A100-80GB'; `kvplan gpus` lists them)."
FIT_PARAMS: list[tuple[str, object, object]] = [
    ("gpu", Optional[str], typer.Option(None, "--gpu", help=GPU_HELP + " Default: the GPU NVML detects, else a 16 GB T4.", rich_help_panel="GPU")),
    ("gpu_gib", Optional[float], typer.Option(None, "--gpu-gib", help="A custom GPU: total memory in GiB as CUDA reports it.", rich_help_panel="GPU")),
    ("gpu_gb", Optional[float], typer.Option(None, "--gpu-gb", help="A custom GPU: total memory in decimal GB (as the seed's arithmetic counts it).", rich_help_panel="GPU")),
    ("wsl2", bool, typer.Option(False, "--wsl2", help="The GPU runs under WSL2 (Windows), where CUDA's total is nvidia-smi's memory.total, 0.25-0.75 GiB above native Linux's: --gpu NAME is planned with that total (from the catalog, which says where it has none: then give --gpu-gib).", rich_help_panel="GPU")),
    ("num_gpus", Optional[int], typer.Option(None, "--num-gpus", help="GPUs available (default: tensor x pipeline x data parallel size).", rich_help_panel="GPU")),
    ("max_model_len", Optional[str], typer.Option(None, "--max-model-len", help="Context length to serve (vLLM default: the model's limit), read as vllm serve reads it: 32k = 32,000, 32K = 32,768, -1 = vLLM's auto-fit. 'auto' (kvplan fit, with --concurrency N) asks for the longest at which N requests fit.", rich_help_panel="vllm serve flags")),
    ("gpu_memory_utilization", Optional[float], typer.Option(None, "--gpu-memory-utilization", help="Fraction of total GPU memory vLLM may claim (0.90 before vLLM 0.20, 0.92 after).", rich_help_panel="vllm serve flags")),
    ("tensor_parallel_size", Optional[int], typer.Option(None, "--tensor-parallel-size", "-tp", help="Tensor-parallel ranks.", rich_help_panel="vllm serve flags")),
    ("pipeline_parallel_size", Optional[int], typer.Option(None, "--pipeline-parallel-size", "-pp", help="Pipeline-parallel stages.", rich_help_panel="vllm serve flags")),
    ("data_parallel_size", Optional[int], typer.Option(None, "--data-parallel-size", "-dp", help="Data-parallel engines (each with its own KV pool).", rich_help_panel="vllm serve flags")),
    ("enable_expert_parallel", bool, typer.Option(False, "--enable-expert-parallel", help="Split MoE experts over TP x DP ranks.", rich_help_panel="vllm serve flags")),
    ("kv_cache_dtype", Optional[str], typer.Option(None, "--kv-cache-dtype", help="auto, fp8, fp8_e4m3 or fp8_e5m2.", rich_help_panel="vllm serve flags")),
    ("max_num_seqs", Optional[int], typer.Option(None, "--max-num-seqs", help="Sequence cap per step.", rich_help_panel="vllm serve flags")),
    ("max_num_batched_tokens", Optional[str], typer.Option(None, "--max-num-batched-tokens", help="Token budget per step, read as vllm serve reads it (8k = 8,000, 8K = 8,192).", rich_help_panel="vllm serve flags")),
    ("block_size", Optional[int], typer.Option(None, "--block-size", help="KV-cache block size in tokens.", rich_help_panel="vllm serve flags")),
    ("enforce_eager", bool, typer.Option(False, "--enforce-eager", help="No CUDA graphs.", rich_help_panel="vllm serve flags")),
    ("quantization", Optional[str], typer.Option(None, "--quantization", "-q", help="Weight quantization method (awq, gptq, fp8, ...). Default: the checkpoint's own.", rich_help_panel="vllm serve flags")),
    ("dtype", Optional[str], typer.Option(None, "--dtype", help="auto, half, float16, bfloat16, float32.", rich_help_panel="vllm serve flags")),
    ("mamba_ssm_cache_dtype", Optional[str], typer.Option(None, "--mamba-ssm-cache-dtype", help="auto, float32, float16, bfloat16 (recurrent state of Mamba / Gated DeltaNet layers).", rich_help_panel="vllm serve flags")),
    ("revision", Optional[str], typer.Option(None, "--revision", help="Model revision (commit, tag or branch) to resolve on the Hub.", rich_help_panel="vllm serve flags")),
    ("speculative_config", Optional[str], typer.Option(None, "--speculative-config", help='Speculative decoding, as vLLM takes it: \'{"method": "mtp", "num_speculative_tokens": 3}\' (the checkpoint\'s MTP layers), method ngram, or a drafter checkpoint named by "model" (methods eagle, eagle3, draft_model: its weights, KV layers and buffers are counted).', rich_help_panel="vllm serve flags")),
    ("compilation_config", Optional[str], typer.Option(None, "--compilation-config", help='vLLM\'s compilation config as JSON; kvplan reads its cudagraph_mode (\'{"cudagraph_mode": "PIECEWISE"}\': no FULL decode graphs, so no hybrid state-block check) and, from vLLM 0.11.1, its cudagraph_capture_sizes and max_cudagraph_capture_size (as the two flags below).', rich_help_panel="vllm serve flags")),
    ("cudagraph_capture_sizes", Optional[str], typer.Option(None, "--cudagraph-capture-sizes", help="vLLM >= 0.11.1: the batch sizes CUDA graphs are captured at, comma-separated (1,2,4,8; vllm serve spells it --cudagraph-capture-sizes 1 2 4 8, and scaffold writes it so). As vLLM does: sizes above max_num_batched_tokens are dropped, nothing else is added; fewer or smaller sizes, less CUDA-graph memory and a larger KV pool. Default: the release's own list.", rich_help_panel="vllm serve flags")),
    ("max_cudagraph_capture_size", Optional[int], typer.Option(None, "--max-cudagraph-capture-size", help="vLLM >= 0.11.1: the largest CUDA-graph batch size; vLLM's default grid (1, 2, 4, multiples of 8, then of 16) up to it, capped at max_num_batched_tokens. Default: the release's own (2 x max_num_seqs, at most 512 on most GPUs).", rich_help_panel="vllm serve flags")),
    ("cuda_graph_sizes", Optional[str], typer.Option(None, "--cuda-graph-sizes", help="vLLM 0.9.0-0.12.x: the CUDA-graph batch sizes, comma-separated (vllm serve spells it --cuda-graph-sizes 1 2 4 8). Before 0.11.1 one value N means vLLM's sizes 1, 2, 4 and the multiples of 8 up to N, several are the sizes; from 0.11.1 it is --cudagraph-capture-sizes' deprecated alias (one value: that size alone). Sizes above max_num_batched_tokens are dropped. Refused by the releases without it.", rich_help_panel="vllm serve flags")),
    ("enable_prefix_caching", Optional[bool], typer.Option(None, "--enable-prefix-caching/--no-enable-prefix-caching", help="Prefix caching (default: the version's; for hybrid Mamba/GDN models it sets how many state pages a sequence holds; simulate and capacity model its hits from the workload's block hashes).", rich_help_panel="vllm serve flags")),
    ("enable_chunked_prefill", Optional[bool], typer.Option(None, "--enable-chunked-prefill/--no-enable-chunked-prefill", help="Chunked prefill (default: the version's; without it the profile run and each prefill take a whole prompt, max_num_batched_tokens >= max_model_len).", rich_help_panel="vllm serve flags")),
    ("env", Optional[list[str]], typer.Option(None, "--env", help="An environment variable the server runs with, KEY=VALUE (repeatable). Modelled: VLLM_USE_V1, VLLM_ALLOW_LONG_MAX_MODEL_LEN, VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE, VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS, VLLM_MXFP4_USE_MARLIN, VLLM_USE_DEEP_GEMM, VLLM_MOE_USE_DEEP_GEMM, VLLM_USE_FLASHINFER_SAMPLER, VLLM_DISABLE_COMPILE_CACHE, VLLM_PP_LAYER_PARTITION, VLLM_USE_V2_MODEL_RUNNER; others are carried into serve.sh.", rich_help_panel="vllm serve flags")),
    ("cpu_offload_gb", Optional[float], typer.Option(None, "--cpu-offload-gb", help="GiB of weights per GPU kept in CPU memory (vLLM's UVA offload): less on the GPU, streamed every forward.", rich_help_panel="vllm serve flags")),
    ("kv_cache_memory_bytes", Optional[str], typer.Option(None, "--kv-cache-memory-bytes", help="The KV-cache pool per GPU in bytes (vLLM >= 0.10.2; 8G = 8 GiB, 8g = 8e9), taken as given: gpu_memory_utilization no longer sizes it.", rich_help_panel="vllm serve flags")),
    ("enable_lora", bool, typer.Option(False, "--enable-lora", help="Serve LoRA adapters: vLLM allocates max_loras slots on every supported layer at startup.", rich_help_panel="vllm serve flags")),
    ("max_loras", Optional[int], typer.Option(None, "--max-loras", help="LoRA adapters in one batch (vLLM default 1).", rich_help_panel="vllm serve flags")),
    ("max_lora_rank", Optional[int], typer.Option(None, "--max-lora-rank", help="Largest adapter rank (vLLM default 16).", rich_help_panel="vllm serve flags")),
    ("fully_sharded_loras", bool, typer.Option(False, "--fully-sharded-loras", help="Shard both LoRA matrices over TP ranks.", rich_help_panel="vllm serve flags")),
    ("runner", Optional[str], typer.Option(None, "--runner", help="auto, generate or pooling: pooling serves an embedding/classification model (no lm_head, no sampler; --task embed before vLLM 0.10.1). auto: vLLM's choice from the architecture and a sentence-transformers modules.json.", rich_help_panel="vllm serve flags")),
    ("limit_mm_per_prompt", Optional[str], typer.Option(None, "--limit-mm-per-prompt", help='Items per modality a multimodal prompt may carry, as vLLM takes it: \'{"image": 2, "video": 0}\'. The profile run encodes the largest allowed items; all 0 = none.', rich_help_panel="vllm serve flags")),
    ("language_model_only", bool, typer.Option(False, "--language-model-only", help="Serve a multimodal checkpoint as text only (vLLM >= 0.17; the same as every --limit-mm-per-prompt at 0): no vision tower loaded, no encoder pass profiled.", rich_help_panel="vllm serve flags")),
    ("skip_mm_profiling", bool, typer.Option(False, "--skip-mm-profiling", help="vLLM >= 0.10.1: the profile run skips the multimodal encoder pass, so the KV pool takes the memory it would have held; requests with images or video may then run out of memory (vLLM: the user's responsibility).", rich_help_panel="vllm serve flags")),
    ("entrypoint", Optional[str], typer.Option(None, "--entrypoint", help="serve (vllm serve, default) or llm (vllm.LLM in Python, whose default token budget is 16384 where serve's is 8192, 8192 where it is 2048).", rich_help_panel="vllm serve flags")),
    ("vllm_version", Optional[str], typer.Option(None, "--vllm-version", help="Which vLLM release's rules to apply (default: the newest kvplan knows).", rich_help_panel="kvplan")),
    ("overhead_gb", Optional[float], typer.Option(None, "--overhead-gb", help="The seed's simple arithmetic: budget = GPU GB x utilization - weights - this many GB, all layers full attention.", rich_help_panel="kvplan")),
]


def refuse_unpublished_version(version: str | None) -> None:
    """--vllm-version as a user types it (the CLI's options, the page's field): '0.10.3' names no wheel, image or pin
    (versions.unpublished_release), and scaffold would pin it. Records and kvplan.api.fit are not refused: a public
    report can carry a number PyPI never had (tests/data/hybrid_state_blocks.jsonl's ROCm start says 0.23.1)."""
    if not version:
        return
    from kvplan.versions import NEWEST_KNOWN, unpublished_release

    why = unpublished_release(version)
    if why:
        from kvplan.errors import InputError

        raise InputError("--vllm-version", why, f"give the release you run (`pip show vllm`), e.g. {NEWEST_KNOWN}; a "
                         "development build as its own name (0.11.0.dev5) is planned too")


def option_group(params: list[tuple[str, object, object]], build, target: str, **overrides):
    """A decorator that gives a command a shared group of options, received as one object `target` = build(**values).

    `overrides` replaces an option's declaration for one command (name=typer.Option(...)), or drops it (name=None).
    """
    import typing

    chosen = [(name, ann, overrides.get(name, opt)) for name, ann, opt in params if overrides.get(name, opt) is not None]

    def decorate(func):
        sig = inspect.signature(func)
        hints = typing.get_type_hints(func, include_extras=True)  # resolve string annotations in func's module
        own = [p.replace(annotation=hints.get(p.name, p.annotation)) for p in sig.parameters.values() if p.name != target]
        added = [_P(name, _P.KEYWORD_ONLY, default=opt, annotation=ann) for name, ann, opt in chosen]

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            values = {name: kwargs.pop(name) for name, _, _ in chosen if name in kwargs}
            for name, value in values.items():
                if isinstance(value, str) and not value.strip():  # '--dtype ""' (an unset shell variable): no default guessed
                    from kvplan.errors import InputError

                    flag = "--" + name.replace("_", "-")
                    raise InputError(flag, "an empty value", f"give a value, or leave {flag} out for the default")
            refuse_unpublished_version(values.get("vllm_version"))
            return func(*args, **{target: build(**values)}, **kwargs)

        wrapper.__signature__ = sig.replace(parameters=own + added)
        annotations = {k: v for k, v in hints.items() if k not in (target, "return")}
        annotations.update({name: ann for name, ann, _ in chosen})
        wrapper.__annotations__ = annotations
        del wrapper.__wrapped__
        return wrapper

    return decorate


# Give a command the shared plan flags; the command receives them as `flags: FitFlags`.
fit_options = option_group(FIT_PARAMS, FitFlags, "flags")
# The same, for the commands that answer `--gpu auto` (fit, scaffold, simulate, capacity: plan_from_flags(gpu_auto=True)).
fit_options_gpu_auto = option_group(FIT_PARAMS, FitFlags, "flags", gpu=typer.Option(
    None, "--gpu", help=GPU_HELP + " Default: the GPU NVML detects, else a 16 GB T4. 'auto': the smallest catalog GPU x "
    "tensor-parallel size (up to 8) that starts.", rich_help_panel="GPU"))


def refuse_auto_length(flags: FitFlags, command: str) -> None:
    """`--max-model-len auto` is answered by `kvplan fit ... --concurrency N` alone: other commands take a length."""
    from kvplan.plan import is_auto_length

    if is_auto_length(flags.max_model_len):
        from kvplan.errors import InputError

        raise InputError("--max-model-len", f"'auto' asks for the largest length at which N requests fit, which "
                         f"`kvplan fit` answers (it takes --concurrency N); {command} takes a length",
                         "run `kvplan fit MODEL ... --max-model-len auto --concurrency N` and give the length it prints")


def plan_from_flags(model: Optional[str], flags: FitFlags, command: str = "this command", *, gpu_auto: bool = False,
                    **extra):
    """Resolve the model and GPU and compute the plan the flags describe (`extra` overrides them: gpu=a GPUSpec).
    `gpu_auto`: `--gpu auto` is answered as `kvplan fit` and the page's scaffold and simulate answer it (the smallest
    catalog GPU x TP that starts, cli.fit.plan_from_flags_and_inverse), its choice said on stderr; without it
    (preflight plans this machine's GPU) --gpu auto is refused."""
    from kvplan.api import fit

    refuse_auto_length(flags, command)
    if gpu_auto and not extra and (flags.gpu or "").strip().lower() == "auto":
        from kvplan.cli.fit import plan_from_flags_and_inverse

        p, note = plan_from_flags_and_inverse(model, flags, None)
        err_console.print(note, highlight=False, soft_wrap=True)
        return p
    return fit(model, **{**flags.engine_kwargs(), **extra})


# Each command lives in its own module and registers itself on `app` when imported.
# Command modules import heavy libraries (transformers, matplotlib, fastapi) lazily.
COMMAND_MODULES = ["fit", "preflight", "scaffold", "diagnose", "reconcile", "web", "validate", "simulate"]

for _name in COMMAND_MODULES:
    importlib.import_module(f"kvplan.cli.{_name}")


_FLAG_NAMES = {f.name for f in fields(FitFlags)}


def _as_flag(exc: KvplanError) -> KvplanError:
    """An error the Python API raised naming a keyword (kv_cache_memory_bytes) as the command line spells it
    (--kv-cache-memory-bytes), its example too ('kv_cache_memory_bytes=8G' -> '--kv-cache-memory-bytes 8G')."""
    from kvplan.errors import InputError

    field = getattr(exc, "field", None)
    if not isinstance(exc, InputError) or field not in _FLAG_NAMES:
        return exc
    flag = "--" + field.replace("_", "-")
    fix = exc.fix.replace(f"{field}=", f"{flag} ") if exc.fix else exc.fix
    return InputError(flag, exc.message.replace(f"{field}=", f"{flag} "), fix)


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _kvplan_warning_as_a_line(default_show):
    """warnings.showwarning that prints kvplan's own warnings (a config transformers' AutoConfig cannot read, ...) as
    the commands print theirs, "warning: ...": Python's default showed the source file, line and code to a user
    ("/.../kvplan/resolve.py:728: UserWarning: ..." and the line "spec = normalize(config, ...)")."""
    def show(message, category, filename, lineno, file=None, line=None):
        if not str(filename).startswith(_PACKAGE_DIR):
            return default_show(message, category, filename, lineno, file, line)
        from kvplan.render import warning_text

        err_console.print(warning_text(str(message)), highlight=False, soft_wrap=True)
    return show


def main() -> None:
    """Console-script entry: run the app, turning kvplan's errors into one-line messages."""
    import warnings

    debug = os.environ.get("KVPLAN_DEBUG") == "1"
    if "--help" in sys.argv[1:] and not getattr(sys.modules.get("typer.rich_utils"), "_kvplan_folds", False):
        _help_cells_fold()  # only for help: typer's rich_utils (50 ms of imports) is not loaded to plan
    default_show = warnings.showwarning
    if not debug:
        warnings.showwarning = _kvplan_warning_as_a_line(default_show)
    try:
        _run(debug)
    finally:
        warnings.showwarning = default_show


def _run(debug: bool) -> None:
    try:
        rv = app(standalone_mode=False)
        if isinstance(rv, int) and rv:
            sys.exit(rv)
    except KvplanError as exc:
        if debug:
            raise
        from kvplan.errors import HubError, InputError

        # a model the Hub and the HF cache cannot supply is input this command cannot use (2), never "does not fit" (1)
        code = 2 if isinstance(exc, (InputError, HubError)) else 1
        err_console.print(f"[bold red]error:[/] {escape(str(_as_flag(exc)))}", highlight=False, soft_wrap=True)
        sys.exit(code)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        err_console.print("aborted")
        sys.exit(130)
    except Exception as exc:  # a path that cannot be used, click usage errors, and anything unexpected
        if isinstance(exc, OSError) and exc.filename and not debug:
            # a path the user gave (--plot, --record, a scaffold folder, a log) that cannot be read or written
            err_console.print(f"[bold red]error:[/] {escape(str(exc.filename))}: {escape(str(exc.strerror or exc))} (check the path and its "
                              "permissions)", highlight=False, soft_wrap=True)
            sys.exit(2)
        # by class name: typer >= 0.20 raises its vendored click's exceptions (typer._click), not click's
        kinds = {c.__name__ for c in type(exc).__mro__}
        if "ClickException" in kinds:
            exc.show()
            sys.exit(2)
        if "Exit" in kinds:
            sys.exit(getattr(exc, "exit_code", 0))
        if debug:
            raise
        err_console.print(f"[bold red]internal error:[/] {type(exc).__name__}: {escape(str(exc))} (set KVPLAN_DEBUG=1 for the traceback)", highlight=False)
        sys.exit(3)
