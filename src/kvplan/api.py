"""The public entry points: resolve + plan in one call, the fixes, and the inverse questions."""

from __future__ import annotations

import inspect
import itertools
import math
import re
from dataclasses import dataclass, fields, replace
from typing import List, NamedTuple, Optional, Sequence

from kvplan.errors import InputError
from kvplan.plan import (COUNT_EXAMPLES, ENGINE_FLAGS, INT_ENGINE_ARGS, EngineArgs, Fix, Plan, device_shortfall_bytes, human_int, largest_given_pool_bytes, marlin_method,
                          parse_env, parse_max_model_len, plan, unknown_keyword)
from kvplan.resolve import (GPUS_PER_NODE, NO_GPU_NOTE, GPUSpec, WarningNote, ModelSpec, context_limit, find_gpu,
                            gpu_catalog, gpu_count_in_name, python_scalar, resolve_gpu, resolve_model)
from kvplan.versions import DEFAULT_RELEASE, NEWEST_READ, check_serve_values, driver_requirement, rules_for


# vllm.LLM(...) / EngineArgs arguments that move no GPU memory, which a caller pasting their LLM(...) keywords passes
# along (vllm/entrypoints/llm.py LLM.__init__, 0.6.3 to 0.11: tokenizer, tokenizer_mode, skip_tokenizer_init,
# trust_remote_code, tokenizer_revision, seed, swap_space (CPU memory for V0's swapped blocks; unused by V1),
# disable_async_output_proc, and disable_log_stats, which LLM sets itself; engine/arg_utils.py EngineArgs:
# download_dir, hf_token, served_model_name, code_revision). fit takes them and says they were not planned with.
# Not here, as they move memory kvplan does not model from them: mm_processor_kwargs,
# max_seq_len_to_capture, max_logprobs. (disable_custom_all_reduce and load_format are EngineArgs fields:
# plan.terms custom_allreduce_says, plan.serve_flags.)
# distributed_executor_backend (mp, ray, uni, external_launcher) picks how the workers are started (the executor
# class: vllm/v1/executor/abstract.py Executor.get_class); the worker's memory profile does not read it
# (vllm/v1/worker/gpu_worker.py Worker.init_device's snapshot and requested memory, determine_available_memory, 0.8-0.11):
# each rank profiles the same model shard whichever process hosts it.
NO_GPU_MEMORY_ARGS = frozenset({"tokenizer", "tokenizer_mode", "skip_tokenizer_init", "trust_remote_code",
                                "tokenizer_revision", "code_revision", "seed", "swap_space", "download_dir", "hf_token",
                                "served_model_name", "disable_log_stats", "disable_async_output_proc",
                                "distributed_executor_backend"})
EXECUTOR_BACKENDS = ("mp", "ray", "uni", "external_launcher")  # vllm/config/parallel.py DistributedExecutorBackend

# vllm.LLM(task=...), the older way to ask for a pooling model (vLLM 0.6.4, PR #9424, to 0.12; SERVE_FLAG_SINCE and
# SERVE_FLAG_UNTIL hold the releases): what kvplan plans for each value. generate and auto are vLLM's default for a
# generative model, so they move no memory; embed, classify, score and reward (embedding in 0.6.4) are the pooling
# runner, as vLLM 0.10.1 maps them (PR #21470: no lm_head, no sampler; EngineArgs.runner_type).
TASK_RUNNERS = {"auto": None, "generate": None, "embedding": "pooling", "embed": "pooling", "classify": "pooling",
                "score": "pooling", "reward": "pooling"}


# a keyword's example in the error a value of the wrong type gets, a value the keyword takes back (a fraction is no
# rope base or size in GiB; 'auto' is no quantization method or entry point); others: 0.9 for a number, 'auto' for text
KEYWORD_EXAMPLES = {"gpu_memory_utilization": 0.9, "rope_theta": 1000000.0, "cpu_offload_gb": 10.0, "overhead_gb": 1.0,
                    "quantization": "fp8", "entrypoint": "llm"}


def _fields_typed(*annotations: str) -> frozenset[str]:
    """The EngineArgs fields declared with one of `annotations` (as written in the class: "int | None")."""
    return frozenset(f.name for f in fields(EngineArgs) if f.type in annotations)


_BOOL_FIELDS = _fields_typed("bool", "bool | None")
_INT_FIELDS = frozenset(INT_ENGINE_ARGS)
_FLOAT_FIELDS = _fields_typed("float | None")
_STR_FIELDS = _fields_typed("str | None")
_NEVER_NONE = _fields_typed("bool")  # the "bool | None" fields take None: the release's default


def _unknown_keyword(name: str, function=None) -> InputError:
    function = function or fit
    keywords = {n for n, p in inspect.signature(function).parameters.items() if p.kind is p.KEYWORD_ONLY}  # gpu_gib, ...
    return unknown_keyword(name, f"kvplan.{function.__name__}", keywords)


def checked_engine_arg(name: str, value):
    """One engine argument as the Python API takes it: its own type, or a string as vllm serve's command line reads
    it (ints as human_int reads them: '8k', '8K'; floats such as '0.9'). Booleans must be bool. A NumPy scalar (a
    DataFrame's cell, np.arange's values) is the Python number or bool it holds."""
    value = python_scalar(value)
    if hasattr(value, "dtype") and hasattr(value, "shape"):  # a NumPy array (a scalar was read as its item above)
        # its truth value is ambiguous: "internal error: ValueError: The truth value of an array ... is ambiguous"
        raise InputError(name, f"an array of shape {tuple(value.shape)}, not one value", f"give {name} one value "
                         "(a NumPy scalar is read as its number; a list as a list)")
    if isinstance(value, str) and not value.strip():
        # vllm_version='', quantization='', runner='', speculative_config='' planned the defaults, as if left out (the
        # command line refused them; the page's API and kvplan.fit took them): no default is guessed from nothing
        raise InputError(name, "an empty value", f"give a value, or leave {name} out (None) for the default")
    if value is None:
        if name in _NEVER_NONE:
            raise InputError(name, "must be True or False, got None", f"e.g. {name}=True")
        return None
    if name in _BOOL_FIELDS:
        if not isinstance(value, bool):
            raise InputError(name, f"must be True or False, got {value!r} ({type(value).__name__})", f"e.g. {name}=True")
        return value
    if name in _INT_FIELDS:
        number = human_int(value) if isinstance(value, (int, str)) else None
        if number is None and isinstance(value, str):  # as a command line gives it: say how vllm serve reads one
            # a count's own example (tensor_parallel_size='auto' was offered tensor_parallel_size='8K')
            example = ("'8G' (8 GiB)" if name == "kv_cache_memory_bytes" else
                       COUNT_EXAMPLES[name].removeprefix("e.g. ").split(",")[0].split(" ")[0]
                       if name in COUNT_EXAMPLES and name != "max_num_batched_tokens" else "'8K' (8,192)")
            raise InputError(name, f"{value!r} is not a whole number as vllm serve reads it (digits, then optionally "
                             "k/m/g/t for x1000 or K/M/G/T for x1024: 8k = 8,000, 8K = 8,192; no sign, no 'iB')",
                             f"e.g. {name}={example}")
        if number is None:
            raise InputError(name, f"must be a whole number, got {value!r} ({type(value).__name__})", f"e.g. {name}=4")
        return number
    if name in _FLOAT_FIELDS:
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                pass
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
        raise InputError(name, f"must be a number, got {value!r} ({type(value).__name__})",
                         f"e.g. {name}={KEYWORD_EXAMPLES.get(name, 0.9)!r}")
    if name in _STR_FIELDS and not isinstance(value, str):
        # a release given as a number (vllm_version=0.11) was offered vllm_version='auto'; 0.10 as a number is 0.1
        example = "vllm_version='0.11.0' (a release as text: the number 0.10 reads 0.1)" if name == "vllm_version" \
            else f"{name}={KEYWORD_EXAMPLES.get(name, 'auto')!r}"
        raise InputError(name, f"must be a string, got {value!r} ({type(value).__name__})", f"e.g. {example}")
    if name == "max_model_len":
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise InputError(name, f"must be a length, got {value!r} ({type(value).__name__})", "e.g. max_model_len=4096 or '32k'")
        length = parse_max_model_len(value)
        if length is None:
            raise InputError(name, "'auto' asks for the largest length at which N requests fit, which needs N",
                             "call kvplan.api.max_model_len_for_concurrency(plan, N), or pass None for the model's limit")
        return length
    return value


def _checked_flags(kwargs: dict, function=None) -> dict:
    """Engine keywords as `function` (fit, replan) takes them: a name EngineArgs lacks is an InputError with the nearest
    one (EngineArgs(**kwargs) would answer a TypeError from inside), each value checked (checked_engine_arg), env parsed."""
    for name in sorted(kwargs):
        if name not in ENGINE_FLAGS:
            raise _unknown_keyword(name, function)
    kwargs = {name: checked_engine_arg(name, value) for name, value in kwargs.items()}
    if "env" in kwargs:
        kwargs["env"] = parse_env(kwargs["env"])
    return kwargs


def engine_args(**kwargs) -> EngineArgs:
    """EngineArgs from keyword arguments named as `vllm serve` flags in snake_case, each checked (checked_engine_arg)."""
    return EngineArgs(**_checked_flags(kwargs))


def fit(model: str | ModelSpec | None = None, gpu: str | GPUSpec | None = None, *, gpu_gib: float | None = None,
        gpu_gb: float | None = None, revision: str | None = None, fixes: bool = True, detect_gpu: bool = True,
        site_calibration: bool = True, wsl2: bool = False, **flags) -> Plan:
    """Predict vLLM's startup for `model` on `gpu`: what `kvplan fit` prints, as a Plan.

    model: a catalog id (offline; `kvplan models`), a Hugging Face Hub id (read at `revision`, honouring HF_TOKEN,
        HF_HOME and HF_HUB_OFFLINE: a snapshot in the HF cache is read there), a checkpoint folder (str or
        pathlib.Path: config.json and the safetensors headers, or model.safetensors.index.json's total_size where
        the shards are not downloaded), a config.json, a .gguf file, or a ModelSpec (resolve_model). None: the
        seed's example, Qwen/Qwen2.5-0.5B-Instruct at max_model_len 4096.
    gpu: a catalog name ('T4', 'L4', 'A100 40GB', 'P100'; `kvplan gpus`), with a count ('2x T4') for the GPUs there
        are, or a GPUSpec (resolve_gpu(...)[0]). None: the GPU NVML detects here (detect_gpu=False: never), else
        a 16 GB T4. gpu_gib / gpu_gb: a card by its total, in GiB as CUDA reports it or in decimal GB.
    **flags: the engine arguments, named as vLLM names them (vllm serve's flags in snake_case, as `vllm.LLM(...)`
        and EngineArgs take them): max_model_len, gpu_memory_utilization, tensor_parallel_size, quantization,
        kv_cache_dtype, dtype, enforce_eager, max_num_seqs, max_num_batched_tokens, ... (EngineArgs lists them all);
        vllm_version, the release whose rules apply (default: kvplan's default release, versions.DEFAULT_RELEASE,
        which may be older than the newest release it reads, versions.NEWEST_READ). Values as Python gives them
        or as the command line reads them (max_model_len='32k'); NumPy scalars are read as their numbers.
        entrypoint='llm' plans `vllm.LLM(...)` in Python, whose default token budget is larger than vllm serve's.
        An LLM(...) call's keywords that move no GPU memory (trust_remote_code, seed, tokenizer,
        distributed_executor_backend, ...) are taken and named in the plan's assumptions; task='embed' (classify,
        score, reward: vLLM 0.6.4-0.12) plans the pooling runner, task='generate' or 'auto' the default.
    fixes: compute the nearest flags that make a refused plan start (Plan.fixes; False is faster in a loop).
    site_calibration: apply what `kvplan reconcile --calibrate` stored for this GPU and model.
    wsl2: the card runs under WSL2, whose CUDA total is nvidia-smi's memory.total.

    A plan that does not start is no exception: `fits` is False and `error`, `failure` and `fixes` say why and
    what would. Bad input raises kvplan.InputError (`.field` names the argument, `.fix` says what to give); a Hub
    that cannot supply the model raises kvplan.errors.HubError; both are kvplan.KvplanError. `p.to_dict()` is
    `kvplan fit --json` without its "uncertainty" (kvplan.api.uncertainty_band_of(p)).

    >>> p = fit("Qwen/Qwen2.5-0.5B-Instruct", gpu="T4", max_model_len=4096, vllm_version="0.11.0")
    >>> p.fits, p.kv_cache_tokens, round(p.max_concurrency, 2)
    (True, 931040, 227.3)
    >>> round(p.kv_cache_bytes / 2**30, 2), round(p.weights_bytes / 2**30, 2)  # bytes per rank
    (10.65, 0.92)
    """
    if isinstance(revision, str) and not revision.strip():  # '' read as no revision: the command line refuses it
        raise InputError("revision", "an empty value", "give a branch, tag or commit, or leave revision out (None) for "
                         "the Hub's main")
    spec = model if isinstance(model, ModelSpec) else resolve_model(model, revision=revision)
    notes: list[str] = []
    executor = flags.get("distributed_executor_backend")
    if isinstance(executor, str) and executor.strip().lower() not in EXECUTOR_BACKENDS:
        raise InputError("distributed_executor_backend", f"unknown executor backend {executor!r}",
                         f"one of {', '.join(EXECUTOR_BACKENDS)} (it moves no GPU memory; vLLM refuses another name)")
    task = flags.pop("task", None)
    unplanned = sorted(name for name in flags if name in NO_GPU_MEMORY_ARGS)
    if unplanned:  # an LLM(...) call's keywords pasted whole: taken, and said to move nothing
        for name in unplanned:
            flags.pop(name)
        notes.append(f"not planned with, as they move no GPU memory: {', '.join(unplanned)}")
    if task is not None:
        notes.append(task_as_runner(task, flags))
    if model is None and flags.get("max_model_len") is None:
        flags["max_model_len"] = 4096
        notes.append("no model given: the seed's example, Qwen/Qwen2.5-0.5B-Instruct at max_model_len 4096")
    named_count = None
    count_from_name = False  # --num-gpus taken from the GPU's name ('2x L40S'), not given
    if isinstance(gpu, GPUSpec):
        gspec = gpu
    else:
        gspec, gpu_notes = resolve_gpu(gpu, gib=gpu_gib, gb=gpu_gb, detect=detect_gpu, wsl2=wsl2)
        notes += gpu_notes
        named_count = gpu_count_in_name(gpu)
        if named_count and flags.get("num_gpus") is None:
            flags["num_gpus"] = named_count  # '2x L40S': the GPUs available; vLLM's ranks are still its flags'
            count_from_name = True
    args = engine_args(**flags)
    offsets, unread = site_offsets_for(gspec, spec, args) if site_calibration else (None, None)
    try:
        p = plan(spec, gspec, args, extra_assumptions=notes, site_offsets=offsets)
        p = replace(p, site_calibration=site_calibration and args.overhead_gb is None)
    except InputError as exc:
        if not (count_from_name and exc.field == "--num-gpus"):
            raise
        # the count came from the GPU's name ('2x L4'), not from --num-gpus: the error names what was given
        ranks = (args.tensor_parallel_size * (args.pipeline_parallel_size or 1) * (args.data_parallel_size or 1)
                 * (args.prefill_context_parallel_size or 1))
        pcp = " x prefill context" if (args.prefill_context_parallel_size or 1) > 1 else ""
        raise InputError("--gpu", f"{gpu!r} names {named_count} GPU(s), but tensor x pipeline{pcp} x data parallel = {ranks} "
                         "ranks", f"--gpu '{ranks}x {gspec.name}', or smaller parallel sizes") from None
    if model is not None and any(n.startswith(NO_GPU_NOTE) for n in notes):
        # a guess of the card the table shows as if given (the seed's own example, no model named, keeps it a note)
        p = replace(p, warnings=p.warnings + ("no --gpu given and no GPU detected here: planned for a 16 GB Tesla T4 "
                                              "(the seed's example card); give --gpu NAME for the card you mean",))
    if unread:  # a stored calibration that cannot be read was skipped: said, not silent
        p = replace(p, warnings=p.warnings + (unread,))
    choices = tuple(n for n in notes if isinstance(n, WarningNote))  # ChoiceNote among them
    if choices:
        p = replace(p, warnings=p.warnings + choices)
    if named_count and named_count > p.gpus_used:
        a = p.args
        others = p.gpus_used // a.tensor_parallel_size  # pipeline stages x data-parallel engines
        used = f"TP {a.tensor_parallel_size} x PP {a.pipeline_parallel_size}" + (f" x DP {p.engines}" if p.engines > 1 else "")
        fix = (f"give --tensor-parallel-size {named_count // others}" if named_count % others == 0 else
               f"give parallel sizes whose product (TP x PP x DP) is {named_count}")
        p = replace(p, warnings=p.warnings + (f"{gpu!r} names {named_count} GPUs, but vLLM uses {p.gpus_used} ({used}): "
                                              f"{fix} to plan them all",))
    if fixes and p.mode == "vllm":
        p = p.with_fixes(compute_fixes(p, gpus_available=flags.get("num_gpus")))
    return p


def task_as_runner(task, flags: dict, flag: Optional[str] = None) -> str:
    """vllm.LLM(task=...) (or, with flag='--task', vllm serve's --task: kvplan fit --from) as the runner kvplan plans
    (TASK_RUNNERS), set in `flags`; the note the plan carries. Refused where the release has no task argument (before
    0.6.4, from 0.13.0), for a value vLLM never took, and beside a runner that says otherwise."""
    name = flag or "task"
    runner_name = "--runner" if flag else "runner"
    said = (lambda v: f"{flag} {v}") if flag else (lambda v: f"task={v!r}")
    task = python_scalar(task)
    if not isinstance(task, str) or task.strip().lower() not in TASK_RUNNERS:
        raise InputError(name, f"unknown task {task!r}", "generate or auto (vLLM's default for a generative model), or "
                         "embed, classify, score or reward for a pooling model (from vLLM 0.10.1: runner='pooling')")
    value = task.strip().lower()
    version = rules_for(checked_engine_arg("vllm_version", flags.get("vllm_version"))).version
    check_serve_values({"--task": value}, version)  # a release without vllm.LLM's task refuses it
    runner = TASK_RUNNERS[value]
    if runner is None:
        return f"{said(value)} not planned with: vLLM's default for a generative model, it moves no GPU memory"
    given = flags.get("runner")
    if given is not None and str(given).strip().lower() not in (runner, value):
        raise InputError(name, f"{said(value)} asks for the {runner} runner, but {runner_name} {given!r} was given",
                         "give one of them")
    flags["runner"] = runner
    return (f"{said(value)} planned as " + (f"--runner {runner}" if flag else f"runner={runner!r}")
            + " (vLLM 0.10.1 reads it so): no lm_head, no sampler in the profile run")


def site_offsets_for(gpu: GPUSpec, model: ModelSpec, args: EngineArgs | None = None) -> tuple[dict | None, str | None]:
    """The one place a plan gets its site calibration: the offsets `kvplan reconcile --calibrate` stored for this GPU
    and model (None where there are none), and the warning for a file that is there but cannot be read (the plan is
    then made without it). Every command that plans goes through `fit` (fit, sweep and its rows, scaffold, simulate,
    capacity, preflight, diagnose, reconcile, the web API's plan, sweep, GPU table, scaffold and simulate) and its
    replans (`replan`: the fixes, `--gpu auto`, `--max-model-len auto`), so they all apply it alike. Not applied:
    the seed's arithmetic (--overhead-gb has no measured terms), `kvplan validate` (public startups of other machines,
    planned with `plan.plan` directly) and `kvplan reconcile --calibrate` (which measures the whole gap)."""
    if args is not None and args.overhead_gb is not None:
        return None, None
    try:
        from kvplan.site_calibration import load_site_calibration
    except ImportError:
        return None, None
    try:
        entry = load_site_calibration(gpu.name, model.id)
    except InputError as exc:
        return None, f"site calibration not applied: {exc.message} ({exc.fix})"
    except Exception as exc:  # noqa: BLE001 -- a calibration file must never stop a plan
        return None, f"site calibration not applied: {type(exc).__name__}: {exc}"
    measured = entry.get("vllm_version") if isinstance(entry, dict) else None
    if measured and args is not None:
        # the gaps are of the terms as the measured release accounts them: another era subtracts CUDA graphs from the
        # budget or not, samples in another dtype, holds other state from load (versions.py era rows), so 0.11.0's
        # graph gap taken into a 0.33.0 plan moved its pool by the size of a term 0.11.0 never subtracted
        try:
            now = rules_for(args.vllm_version)
        except InputError:  # the plan's own release check names it
            return entry, None
        try:
            was = rules_for(str(measured))
        except InputError:  # a number that names no release (an untagged source build's 0.1.devN): its era is unknown
            return None, (f"site calibration not applied: it was measured on a vLLM {measured} startup, a number that "
                          f"names no release, so which release's accounting it measured is unknown; reconcile a "
                          f"{now.version} startup log with --calibrate (with --vllm-version where its build prints no "
                          "release) to calibrate that release")
        if was.era != now.era:
            return None, (f"site calibration not applied: it was measured on a vLLM {measured} startup (era {was.era}), "
                          f"and vLLM {now.version} (era {now.era}) accounts the terms it measured otherwise; reconcile "
                          f"a {now.version} startup log with --calibrate to calibrate that release")
    return entry, None


def replan(p: Plan, *, model: str | ModelSpec | None = None, gpu: str | GPUSpec | None = None, **changes) -> Plan:
    """The same plan with some flags changed (no fixes computed): `changes` are `fit`'s flags, checked as `fit` checks
    them (max_model_len='16k', a NumPy scalar; a misspelt name is an InputError with the nearest one); `model` and
    `gpu`, a reference as `fit` takes it (a catalog id, a folder, 'A100 40GB') or a resolved spec.

    >>> p = fit("Qwen/Qwen2.5-0.5B-Instruct", gpu="T4", max_model_len=4096)
    >>> replan(p, max_num_seqs=8).args.max_num_seqs
    8
    """
    # the flags as given, so that defaults which depend on what changes (the GPU's batch sizes, the context's token
    # budget) are derived again; the release stays the one planned
    changes = _checked_flags(changes, replan)
    if model is not None and not isinstance(model, ModelSpec):  # a string reached the planner ('str' has no 'cc')
        model = resolve_model(model)
    if gpu is not None and not isinstance(gpu, GPUSpec):
        gpu = resolve_gpu(gpu, detect=False)[0]
    base = p.given_args or p.args
    given = {k: getattr(base, k) for k in ENGINE_FLAGS}
    given["vllm_version"] = p.args.vllm_version
    given.update(changes)
    # a site calibration is of one GPU and model: it carries over to a replan of the same ones; a replan on another
    # GPU or model takes that one's (site_offsets_for), as `kvplan fit` with it would, where the plan looked its up
    same = (model is None or model == p.model) and (gpu is None or gpu == p.gpu)
    args = EngineArgs(**given)
    offsets = p.site_offsets if same else site_offsets_for(gpu or p.gpu, model or p.model, args)[0] if p.site_calibration else None
    return replace(plan(model or p.model, gpu or p.gpu, args, site_offsets=offsets), site_calibration=p.site_calibration)


def _try(p: Plan, **kw) -> Plan | None:
    try:
        return replan(p, **kw)
    except InputError:
        return None


class _Offer(NamedTuple):
    """A fix as found, with the plan it gives (None: said as it is) and, for a value searched up to the warm answer,
    the flag and that answer (`bound`): compute_fixes adds its first start to it (_first_start_note), once for all."""

    fix: Fix
    plan: Plan | None = None
    flag: str | None = None
    bound: int | float | None = None


def compute_fixes(p: Plan, gpus_available: int | None = None) -> tuple[Fix, ...]:
    """The nearest changes that make (or keep) the plan starting, each with its computed effect and written as the
    user can pass it, and where its first, compiling start may be refused (_first_start_note). `gpus_available`
    (--num-gpus, '8x H200') bounds the tensor-parallel fix."""
    return tuple(_first_start_note(o.fix, o.plan, p, o.flag, o.bound) for o in _offers(p, gpus_available))


def _offers(p: Plan, gpus_available: int | None) -> list[_Offer]:
    """compute_fixes' fixes, as found."""
    fixes: list[_Offer] = []
    a = p.args
    if p.fits:
        return []
    if p.failure == "architecture":  # a release that registers the architecture (versions.architecture_refusal)
        from kvplan.versions import architecture_refusal

        release = architecture_refusal(p.model.architectures, p.rules.release)[2]
        q = _try(p, vllm_version=release)
        if q:
            fixes.append(_Offer(Fix(f"a vLLM release with {p.model.architectures[0]}", {"vllm_version": release}, _effect(q),
                                     q.fits)))
        return fixes
    if p.failure == "platform":
        if p.failure_code == "attention_backend":  # a block size no backend takes (FlexAttention
            # from 0.21), or one only FlexAttention takes with an fp8 KV cache it cannot store: on no card
            multiple = p.rules.attention_block_multiple
            for name, flags in ((f"block size {multiple}", {"block_size": multiple}),
                                ("auto KV-cache dtype (FlexAttention, slower)", {"kv_cache_dtype": "auto"})):
                q = _try(p, **flags)
                if q and q.fits:  # from 0.21 FlexAttention refuses the block size too: only the block size helps
                    fixes.append(_Offer(Fix(name, flags, _effect(q), q.fits)))
            return fixes
        if p.failure_code == "fp8_e4m3_kv":  # e4m3 in Triton below cc 8.9 (plan.planner._fp8_e4m3_kv_error)
            q = _try(p, kv_cache_dtype="fp8_e5m2")
            if q:
                fixes.append(_Offer(Fix("fp8_e5m2 KV cache", {"kv_cache_dtype": "fp8_e5m2"}, _effect(q), q.fits), q))
                return fixes
        if p.failure_code == "moe_mixed_schemes":  # the checkpoint's ignore list, not a flag or a GPU, decides it
            return fixes
        if p.failure_code == "gdn_prefill_backend":  # a backend of another platform (plan.kv.gdn_prefill): Triton/FLA
            # runs on every platform (leaving the flag out, vLLM's own choice, is the other way)
            q = _try(p, gdn_prefill_backend="triton")
            if q:
                fixes.append(_Offer(Fix("Triton/FLA GDN prefill kernel", {"gdn_prefill_backend": "triton"}, _effect(q),
                                        q.fits), q))
            return fixes
        if a.dtype == "bfloat16" and p.gpu.cc and p.gpu.cc < (8, 0):
            q = _try(p, dtype="float16")
            if q:
                fixes.append(_Offer(Fix("float16 instead of bfloat16", {"dtype": "half"}, _effect(q), q.fits)))
        g = smallest_gpu(p, any_size=True)
        if g is not None:
            q = _try(p, gpu=g)
            cards = f"{q.gpus_used} x " if q and q.gpus_used > 1 else ""
            fixes.append(_Offer(Fix("a supported GPU", {"gpu": g.name},
                                    _effect(q) + f" on {cards}{g.name} (compute capability {g.compute_capability})", True)))
        return fixes
    if p.failure == "kv_alloc":  # the given pool does not fit on the card: a smaller one, or more room for it
        room = largest_given_pool_bytes(p)
        if p.args.num_gpu_blocks_override is not None:  # the blocks given: the most the card holds beside the rest
            blocks = room // p.bytes_per_block if p.bytes_per_block else 0
            q = _try(p, num_gpu_blocks_override=blocks) if blocks else None
            if q:
                fixes.append(_Offer(Fix("lower --num-gpu-blocks-override", {"num_gpu_blocks_override": blocks}, _effect(q),
                                        q.fits), q))
            return fixes
        given = f"{room // 2**20}M"  # whole MiB, as vllm serve reads it (M = 2**20)
        q = _try(p, kv_cache_memory_bytes=room) if room else None
        if q:
            fixes.append(_Offer(Fix("lower --kv-cache-memory-bytes", {"kv_cache_memory_bytes": given}, _effect(q), q.fits), q))
        fixes += _quantization_fixes(p)
        fix = _tensor_parallel_fix(p, gpus_available)
        return fixes + ([fix] if fix else [])
    if p.failure == "state_blocks":  # fewer state blocks than max_num_seqs (plan.state_blocks_refusal)
        # the largest count that starts, as for a pool short of memory: vLLM's message names the blocks of this pool
        # ("at most N"), but fewer sequences leave a larger one (a smaller sampler peak, fewer graphs captured)
        # a count above the blocks vLLM's message names is said as such, or it reads as a misprint of N
        fix = _max_num_seqs_fix(p, named_blocks=p.num_gpu_blocks)
        if fix is None and p.num_gpu_blocks > 0:  # not even one sequence starts: what vLLM's message offers, and why not
            q = _try(p, max_num_seqs=p.num_gpu_blocks)
            fix = _Offer(Fix("lower max_num_seqs", {"max_num_seqs": p.num_gpu_blocks}, _effect(q), q.fits), q) if q else None
        if fix:
            fixes.append(fix)
        q = _try(p, enforce_eager=True)
        if q:
            fixes.append(_Offer(Fix("no CUDA graphs", {"enforce_eager": True}, _effect(q) + " (slower decode)", q.fits), q))
        fix = _utilization_fix(p, "less headroom")
        return fixes + ([fix] if fix else [])
    found = _largest_max_model_len_plan(p)
    if found:
        best_len, q = found
        fixes.append(_Offer(Fix("lower max_model_len", {"max_model_len": best_len},
                                f"starts: {q.kv_cache_tokens:,} tokens, {q.max_concurrency:.2f}x concurrency at "
                                f"{best_len:,}", True), q, "max_model_len", best_len))
    fixes += _lora_fixes(p)
    fix = _max_num_seqs_fix(p) if p.failure != "load" else None
    if fix:
        fixes.append(fix)
    if a.kv_cache_dtype == "auto" and p.gpu.cc and p.failure != "load":  # the pool, not the weights
        # e4m3 (fp8) from compute capability 8.9; below it e5m2, which vLLM's Triton kernels can store (vLLM issue
        # #26431; plan.planner._fp8_e4m3_kv_error)
        kv = "fp8" if p.gpu.cc >= (8, 9) else "fp8_e5m2"
        q = _try(p, kv_cache_dtype=kv) if p.gpu.cc >= (7, 5) else None  # FlashInfer's floor (vLLM 0.11.1+)
        if q:
            fixes.append(_Offer(Fix(f"{kv} KV cache", {"kv_cache_dtype": kv}, _effect(q), q.fits), q))
    if (p.failure == "memory" and a.async_scheduling_resolved and p.rules.window_inflight != "one"
            and any(g.kind in ("sliding", "chunked") and g.window for g in p.groups)):
        # from 0.26 a window group reserves max_num_batched_tokens per step in flight (plan.serve_flags): one step
        # fewer without async scheduling (vLLM's VllmConfig.max_in_flight_tokens)
        q = _try(p, async_scheduling=False)
        if q and q.fits:
            fixes.append(_Offer(Fix("no async scheduling", {"async_scheduling": False},
                                    _effect(q) + " (each sliding-window request reserves tokens for one step in flight "
                                    "fewer; the CPU work between steps is no longer overlapped)", True), q))
    fix = _utilization_fix(p, "less headroom; OOM risk under load") if p.failure != "load" else None
    if fix:
        fixes.append(fix)
    if p.kv_pool is not None and p.failure == "memory":
        # vLLM >= 0.34's extensible KV cache keeps a margin and the transient peak free beyond what the profile
        # charges; sized from the profile's estimate instead (at 0.92 unless given), a small card's pool can be larger
        q = _try(p, enable_extensible_kv_cache=False)
        if q and q.fits:
            fixes.append(_Offer(Fix("pool from the profile's estimate", {"enable_extensible_kv_cache": False},
                                    _effect(q) + f" (at gpu_memory_utilization {q.args.gpu_memory_utilization:g}; less "
                                    "headroom beside the pool than the measured sizing keeps)", True), q))
    fixes += _quantization_fixes(p)
    fix = _tensor_parallel_fix(p, gpus_available)
    if fix:
        fixes.append(fix)
    g = smallest_gpu(p)
    if g is not None:
        q = _try(p, gpu=g)
        if q:
            # a card about as large as this one that starts does so on what else differs: vllm serve's batch defaults
            # by GPU (an A100 80GB beside an H100: 256 sequences and 2,048 tokens per step, not 1,024 and 8,192)
            same_size = g.total_bytes <= 1.02 * p.gpu.total_bytes
            other = [f"{name} {getattr(q.args, name):,}" for name in ("max_num_seqs", "max_num_batched_tokens")
                     if getattr(q.args, name, None) != getattr(a, name, None) and getattr(q.args, name, None)]
            why = f"; its defaults: {', '.join(other)}" if other else ""
            cards = f"{q.gpus_used} x " if q.gpus_used > 1 else ""  # TP / PP kept: that many of them, as the TP fix says
            fixes.append(_Offer(Fix("another GPU" if same_size else "a larger GPU", {"gpu": g.name},
                                    _effect(q) + f" on {cards}{g.name} ({g.total_gib:.1f} GiB{why})", q.fits), q))
    return fixes


def _lora_fixes(p: Plan) -> list[_Offer]:
    """Smaller LoRA slots for a plan they keep from starting (vLLM allocates max_loras x max_lora_rank on every wrapped
    module while loading: weights.lora_buffer_bytes): the slots on attention alone (--lora-target-modules qkv_proj
    o_proj, from the release that has the flag), the most adapters per batch and the largest rank vLLM takes
    (MaxLoRARanks) that start. A MoE's experts hold most of the slots (Qwen3-30B-A3B: 128 experts x 48 layers)."""
    from kvplan.plan.args import LORA_RANKS
    from kvplan.versions import SERVE_FLAG_SINCE

    a = p.args
    if not a.enable_lora or p.failure not in ("memory", "load"):
        return []
    out: list[_Offer] = []
    if not a.lora_targets and p.rules.release >= SERVE_FLAG_SINCE["--lora-target-modules"]:
        q = _try(p, lora_target_modules="qkv_proj,o_proj")
        if q and q.weights_bytes < p.weights_bytes:
            out.append(_Offer(Fix("LoRA slots on attention only", {"lora_target_modules": "qkv_proj,o_proj"},
                                  _effect(q) + " (adapters' weights on other modules are then not applied)", q.fits), q))
    loras, rank = a.max_loras or 1, a.max_lora_rank or 16
    if loras > 1:
        n, q = _largest(0, loras - 1, lambda n: _try(p, max_loras=n) if n else None)
        if q is not None:
            out.append(_Offer(Fix("fewer LoRA adapters per batch", {"max_loras": n}, _effect(q), True), q))
    ranks = [r for r in LORA_RANKS if r < rank]
    if ranks:
        i, q = _largest(-1, len(ranks) - 1, lambda i: _try(p, max_lora_rank=ranks[i]) if i >= 0 else None)
        if q is not None:
            out.append(_Offer(Fix("a lower LoRA rank", {"max_lora_rank": ranks[i]}, _effect(q)
                                  + f" (adapters of rank above {ranks[i]} are then refused)", True), q))
    return out


def _max_num_seqs_fix(p: Plan, named_blocks: int | None = None) -> _Offer | None:
    """The largest max_num_seqs that starts the plan (_largest_max_num_seqs_plan), with its effect, or None: one offer for a
    pool short of memory and for a hybrid's state blocks below max_num_seqs alike (`named_blocks`: the blocks vLLM's
    state-block message names, said where the count found is above them)."""
    found = _largest_max_num_seqs_plan(p)
    if found is None:
        return None
    seqs, q = found
    effect = _effect(q) + f", {seqs} sequences at a time"
    if named_blocks is not None and seqs > named_blocks:
        effect += f" (more than the {named_blocks:,} vLLM's message names: fewer sequences leave a larger pool)"
    return _Offer(Fix("lower max_num_seqs", {"max_num_seqs": seqs}, effect, True), q, "max_num_seqs", seqs)


def _utilization_fix(p: Plan, caution: str) -> _Offer | None:
    """The smallest gpu_memory_utilization (up to 0.98) at which the plan starts, with what it costs, or None."""
    if p.args.gpu_memory_utilization >= 0.98:
        return None
    u = smallest_utilization(p)
    if u is None:
        return None
    q = _try(p, gpu_memory_utilization=u)
    return _Offer(Fix("raise gpu_memory_utilization", {"gpu_memory_utilization": u}, _effect(q) + f" ({caution})", True),
                  q, "gpu_memory_utilization", u)


def _quantization_fixes(p: Plan) -> list[_Offer]:
    """Smaller weights, as something the user can pass: online FP8 (--quantization fp8 on this unquantized checkpoint,
    which vLLM quantizes at load) and the quantized checkpoints of this model that the catalog holds (its id plus a
    suffix, e.g. Qwen/Qwen3-32B -> Qwen/Qwen3-32B-FP8). No fix names a method the checkpoint lacks; online FP8 and
    a checkpoint are offered only where their weights are smaller than the plan's (not FP8 over --quantization
    bitsandbytes, 4-bit)."""
    from kvplan.plan.defaults import quant_capability_error
    from kvplan.resolve import model_catalog
    from kvplan.versions import canonical_quant

    if p.model.quant is not None:
        return []
    out: list[_Offer] = []
    given = (p.given_args or p.args).quantization  # an online method asked for (--quantization fp8 / bitsandbytes)
    # where the release's Fp8Config takes this GPU (versions.QUANT_MIN_CAPABILITY: FP8 W8A8 from compute capability
    # 8.9, weight-only FP8 Marlin on 8.0 from 0.5.1 and 7.5 from 0.14), not the flag given
    if (p.gpu.cc and p.gpu.vendor == "NVIDIA" and quant_capability_error("fp8", p.gpu, p.rules.version) is None
            and (given is None or canonical_quant(given) != "fp8")):
        q = _try(p, quantization="fp8")
        # only where FP8 weights are smaller than the plan's own: not over a 4-bit online method given (bitsandbytes)
        if q and q.weights_bytes < p.weights_bytes:
            out.append(_Offer(Fix("online FP8 weights", {"quantization": "fp8"}, _effect(q), q.fits), q))
            if q.fits:
                return out
    prefix = p.model.id.lower() + "-"
    for cid in sorted(model_catalog()):
        if not cid.lower().startswith(prefix):
            continue
        try:
            spec = resolve_model(cid)
        except InputError:
            continue
        if spec.quant is None:
            continue
        flags: dict = {"model": cid}
        if given:  # the online method given would be refused on a quantized checkpoint: name the checkpoint's own
            flags["quantization"] = _checkpoint_quant_flag(spec, p.gpu, p.rules.version)
        q = _try(p, model=spec, quantization=flags.get("quantization"))
        if q and q.weights_bytes < p.weights_bytes:  # a checkpoint with larger weights than the plan's cannot help
            out.append(_Offer(Fix(f"serve {cid} ({spec.quant.method} checkpoint of this model)", flags, _effect(q), q.fits), q))
            if q.fits:
                break
    return out


def _checkpoint_quant_flag(spec: ModelSpec, gpu: GPUSpec, version: str) -> str:
    """The --quantization value naming the method vLLM `version` itself serves a quantized checkpoint with on `gpu`:
    ModelOpt's NVFP4 and mixed-precision checkpoints are modelopt_fp4 / modelopt_mixed (their hf_quant_config's
    quant_algo); an AWQ / GPTQ checkpoint the Marlin kernels take is awq_marlin / gptq_marlin (plan.marlin_method), since
    --quantization awq / gptq would force the slower non-Marlin kernel (versions.py, above HF_QUANT_CONFIG_READ_SINCE);
    others the method their config declares (fp8, awq, compressed-tensors, mxfp4)."""
    q = spec.quant
    if q.method == "modelopt":
        scheme = q.scheme.lower()
        return "modelopt_mixed" if "mixed" in scheme else "modelopt_fp4" if "fp4" in scheme else "modelopt"
    if q.method in ("awq", "gptq"):
        return marlin_method(spec, gpu, version) or q.method
    return q.method


def _tensor_parallel_fix(p: Plan, gpus_available: int | None) -> _Offer | None:
    """The smallest TP size the model accepts (plan.accepted_tp_sizes) above this one that starts: within the GPUs
    available when they are known, else the smallest at all, with the GPU count it needs stated."""
    from kvplan.plan import accepted_tp_sizes

    a = p.args
    sizes = [t for t in accepted_tp_sizes(p.model) if t > a.tensor_parallel_size]
    last = None
    for tp in sizes:
        q = _try(p, tensor_parallel_size=tp, num_gpus=None)
        if q is None:
            continue
        last = (tp, q)
        if not q.fits:
            continue
        need = q.gpus_used
        flags: dict = {"tensor_parallel_size": tp}
        where = _cards_text(need, p.gpu)
        node = GPUS_PER_NODE
        if tp > node and tp % node == 0 and a.pipeline_parallel_size == 1 and not p.gpu.one_per_machine:
            # more ranks than a node holds: vLLM's multi-node layout is TP within a node and PP across nodes (vLLM docs,
            # serving/parallelism_scaling.md), as `kvplan scaffold` writes it; offered where that split starts too
            staged = _try(p, tensor_parallel_size=node, pipeline_parallel_size=tp // node, num_gpus=None)
            if staged is not None and staged.fits:
                flags = {"tensor_parallel_size": node, "pipeline_parallel_size": tp // node}
                where = (f" on {need} x {p.gpu.name}: {tp // node} nodes of {node}, TP {node} within each node and PP "
                         f"{tp // node} across them, vLLM's multi-node layout")
                if gpus_available and need > gpus_available:
                    flags["num_gpus"] = need
                    where += f" (needs {need} GPUs; {gpus_available} available)"
                return _Offer(Fix(f"tensor parallel {node} x pipeline parallel {tp // node}", flags, _effect(staged) + where,
                                  True), staged)
        if gpus_available and need > gpus_available:
            flags["num_gpus"] = need
            where += f" (needs {need} GPUs; {gpus_available} available)"
        return _Offer(Fix(f"tensor parallel {tp}", flags, _effect(q) + where, True), q)
    if last is None:
        return None
    tp, q = last  # none of them starts: the largest accepted, to show how far it is
    return _Offer(Fix(f"tensor parallel {tp}", {"tensor_parallel_size": tp}, _effect(q) + _cards_text(q.gpus_used, p.gpu),
                      False))


def _cards_text(need: int, gpu: GPUSpec) -> str:
    """Where a tensor-parallel fix runs: `need` cards of one machine, or, for a GPU that comes one to a machine (a
    laptop's, a Jetson module, a DGX Spark), as many machines joined over the network, which vLLM runs as one
    multi-node server (a Ray cluster, as `kvplan scaffold` writes it)."""
    if gpu.one_per_machine:
        return (f" over {need} machines with one {gpu.name} each (tensor parallelism across the network: a multi-node "
                "server on a Ray cluster)")
    return f" on {need} x {gpu.name}"


def first_start_holds(q: Plan | None) -> bool:
    """The plan starts, and so does its first, compiling start (no cold-start refusal: Plan.first_start_refused, from
    the plan's own first-start loss, cold_start_pool_loss_bytes)."""
    return q is not None and q.fits and not q.first_start_refused


# how a fix's effect says where its first start may be refused (Fix.first_start_refused)
FIRST_START_NOTE = "a first, compiling start"


def _first_start_value(p: Plan, flag: str, bound) -> int | float | None:
    """The value of `flag` nearest the fix's `bound` (the warm answer) at which the plan's first, compiling start also
    holds one request (first_start_holds): the largest --max-model-len (in blocks) or --max-num-seqs up to it, the
    smallest --gpu-memory-utilization (2 decimals, up to 0.98) from it; the same searches as the warm fix (_largest,
    smallest_utilization), None where none is found."""
    if flag == "max_model_len":
        bs = p.block_size
        n, best = _largest(0, bound // bs, lambda n: _try(p, max_model_len=n * bs), ok=first_start_holds)
        return n * bs if best is not None else None
    if flag == "max_num_seqs":
        n, best = _largest(0, bound - 1, lambda n: _try(p, max_num_seqs=n), ok=first_start_holds)
        return n if best is not None else None
    if flag == "gpu_memory_utilization":  # from the warm answer, which the first start does not hold, up to 0.98
        return smallest_utilization(p, floor=bound, ok=first_start_holds)
    return None


def _first_start_note(fix: Fix, q: Plan | None, p: Plan | None = None, flag: str | None = None, bound=None) -> Fix:
    """`fix` as offered, plus where its plan `q` starts warm but its first, compiling start may be refused (the
    cold-start warning): the effect says so, with the value of `flag` at which a first start also holds one request
    (_first_start_value, searched from the plan `p` the fixes are for), and the fix carries both (first_start_refused,
    first_start_flags). The fix's own value and 'starts' are unchanged: kvplan plans the warm restart."""
    if q is None or not q.fits or not q.first_start_refused:
        return fix
    value = _first_start_value(p, flag, bound) if p is not None and flag else None
    if value is None:
        where = (f"; {FIRST_START_NOTE} with it may be refused (fit with these flags shows the cold-start warning)"
                 if flag is None else f" ({FIRST_START_NOTE} may be refused at any {flag.replace('_', '-')} here: "
                 "leave more room or expect one retry)")
        return replace(fix, effect=fix.effect + where, first_start_refused=True)
    shown = f"{value:,}" if isinstance(value, int) else f"{value:g}"
    side = "or more" if flag == "gpu_memory_utilization" else "or less"
    return replace(fix, effect=fix.effect + f" ({FIRST_START_NOTE} needs --{flag.replace('_', '-')} {shown} {side})",
                   first_start_refused=True, first_start_flags={flag: value})


def _one_request_need(q: Plan) -> str:
    """What one max_model_len request needs beside a refused fix's pool, so that the reader sees how far short it is:
    the need vLLM's own check prints (V1: "(X GiB KV cache is needed, ...)"), else the tokens the pool holds (V0:
    "... stored in KV cache (N)"); '' where neither message was predicted."""
    n = q.args.max_model_len
    m = re.search(r"\(([\d.]+) GiB KV cache is needed", q.error or "")
    if m:
        return f"; one {n:,}-token request needs {float(m.group(1)):.2f} GiB"
    m = re.search(r"stored in KV cache \((\d+)\)", q.error or "")
    if m:
        return f"; it holds {int(m.group(1)):,} tokens, one request needs {n:,}"
    return ""


def _effect(q: Plan | None) -> str:
    if q is None:
        return "not possible with these flags"
    if q.failure == "load":
        return f"still does not load ({q.weights_bytes / 1024 ** 3:.2f} GiB of weights per rank on a {q.total_bytes / 1024 ** 3:.2f} GiB GPU)"
    if not q.fits and q.failure not in (None, "memory"):
        # refused by another check than the pool's (a hybrid's state blocks below max_num_seqs, a platform or
        # architecture refusal, an allocation): its GiB for KV would read as too small a pool
        return f"still does not start: {(q.error or q.failure).split('. ')[0].strip()}"
    if not q.fits and q.kv_cache_bytes <= 0:
        return f"still does not fit (no memory left for the KV cache: {-q.kv_cache_bytes / 1024 ** 3:.2f} GiB short)"
    if not q.fits:
        return f"still does not fit ({q.kv_cache_bytes / 1024 ** 3:.2f} GiB for KV{_one_request_need(q)})"
    return f"starts: {q.kv_cache_tokens:,} tokens, {q.max_concurrency:.2f}x concurrency at {q.args.max_model_len:,}"


def _largest(lo: int, hi: int, plan_at, ok=lambda q: q.fits) -> tuple[int, Plan | None]:
    """The largest n in [lo, hi] whose plan_at(n) is `ok`, taking lo's as ok (the caller has seen it, or asks for
    nothing below it) and ok as holding up to the answer and not past it; with the plan found at n, None where no n
    above lo was. The bisection every "largest flag that still starts" search here shares."""
    best = None
    while lo < hi:
        mid = (lo + hi + 1) // 2
        q = plan_at(mid)
        if q is not None and ok(q):
            lo, best = mid, q
        else:
            hi = mid - 1
    return lo, best


def largest_max_model_len(p: Plan) -> int | None:
    """The largest max_model_len that starts, with everything else unchanged (a multiple of the block size): from the
    length vLLM's error estimates (what the pool sized at the length given holds), searched upward below the length
    given, since a shorter context can itself free memory for the pool: V0's token budget is max(max_model_len,
    2048) without chunked prefill, and from 0.12 the budget and CUDA graphs shrink to max_num_seqs x max_model_len,
    so the profiled peak falls with the length (Phi-3.5-mini on an H200 at 0.7.1 and 0.3 utilization: the estimate
    74,240 starts, and so does 81,920, the answer; 81,936 does not). None where vLLM estimates no length or the
    estimate itself does not start."""
    found = _largest_max_model_len_plan(p)
    return found[0] if found else None


def _largest_max_model_len_plan(p: Plan) -> tuple[int, Plan] | None:
    """largest_max_model_len with the plan at that length."""
    if not p.estimated_max_model_len:
        return None
    bs = p.block_size
    lo = max(bs, p.estimated_max_model_len // bs * bs)
    q = _try(p, max_model_len=lo)
    if q is None or not q.fits:
        return None  # even the length the pool holds does not start: something other than the length stands in the way
    # in blocks; the length given does not start; only lengths seen to start become the answer
    blocks, best = _largest(lo // bs, (p.args.max_model_len - 1) // bs, lambda n: _try(p, max_model_len=n * bs))
    return blocks * bs, best or q


def _largest_max_num_seqs_plan(p: Plan) -> tuple[int, Plan] | None:
    """The largest max_num_seqs below the one given that starts the plan at its own length, everything else unchanged,
    with the plan at that count: fewer sequences shrink the profile run's sampler peak (one row of logits per sequence)
    and the CUDA graphs captured up to it, which can be the memory the pool lacks (Qwen3.5-27B on an H100 at 262,144
    tokens). None when even one sequence does not start."""
    q = _try(p, max_num_seqs=1)
    if q is None or not q.fits:
        return None
    seqs, best = _largest(1, p.args.max_num_seqs - 1, lambda n: _try(p, max_num_seqs=n))
    return seqs, best or q


def max_model_len_for_concurrency(p: Plan, concurrency: float, *, first_start: bool = False) -> int | None:
    """The largest max_model_len at which `concurrency` full-length requests fit the pool. vLLM runs at most
    max_num_seqs requests at once (SchedulerConfig), so a concurrency above it is refused rather than promised.
    None below one block: a shorter context can start where one block does not (from 0.12 max_num_batched_tokens, and
    with it the CUDA graphs, shrinks to max_num_seqs x max_model_len), but holds no prompt worth serving; the plan at
    one block (refused_at_any_length) then says what stands in the way. With `first_start`, the largest at which a
    first, compiling start also holds them (first_start_holds: no cold-start refusal, from the plan's own loss)."""
    if isinstance(concurrency, bool) or not isinstance(concurrency, (int, float)) or not math.isfinite(concurrency) \
            or concurrency < 1 or concurrency != int(concurrency):
        raise InputError("--concurrency", f"must be a whole number of requests, 1 or more, got {concurrency!r}", "e.g. --concurrency 16")
    if concurrency > p.args.max_num_seqs:
        raise InputError("--concurrency", f"{concurrency:g} requests at once, but vLLM runs at most max_num_seqs "
                         f"({p.args.max_num_seqs}) at a time", f"give --max-num-seqs {int(concurrency)} as well, or "
                         f"--concurrency {p.args.max_num_seqs} or less")
    lo, _ = _largest(0, context_limit(p.model, p.rules).tokens, lambda n: _try(p, max_model_len=n),
                     ok=lambda q: (first_start_holds(q) if first_start else q.fits) and q.max_concurrency >= concurrency)
    return lo if lo >= p.block_size else None


def refused_at_any_length(p: Plan) -> Plan | None:
    """The plan at the shortest context (one block) when even that does not start: the refusal is then not the
    length's (weights that do not load, a GPU or dtype the release refuses, no memory left for the cache blocks,
    fewer state blocks than max_num_seqs), and no --max-model-len answers it. None when a short context starts."""
    q = _try(p, max_model_len=p.block_size)
    return q if q is not None and not q.fits else None


def smallest_utilization(p: Plan, ceiling: float = 0.98, *, floor: float | None = None, ok=None) -> float | None:
    """The smallest gpu_memory_utilization (2 decimals, from `floor`, the plan's own by default, up to `ceiling`) at
    which the plan passes `ok` (starts, by default; first_start_holds for a first start's)."""
    ok = ok or (lambda q: q is not None and q.fits)
    lo, hi = int(round((p.args.gpu_memory_utilization if floor is None else floor) * 100)), int(ceiling * 100)
    if not ok(_try(p, gpu_memory_utilization=hi / 100)):
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(_try(p, gpu_memory_utilization=mid / 100)):
            hi = mid
        else:
            lo = mid + 1
    return lo / 100


def smallest_gpu(p: Plan, *, any_size: bool = False) -> GPUSpec | None:
    """The smallest catalog GPU (by memory; larger than this one unless `any_size`) on which the plan starts,
    of the same form as this one where one starts (a datacenter card is answered with a datacenter card, a desktop
    card with a desktop or workstation card), else of any form but a laptop or an integrated-memory part (GB10,
    Jetson: the host's memory at a fraction of the bandwidth) unless this GPU is one."""
    form = p.gpu.form
    others: list[GPUSpec] = []
    # a card smaller than the weights per rank cannot load them (the load OOM of plan._load_oom), whatever else it
    # has; 10 % of slack for weights that a GPU generation lays out differently (quantized kernels' padding)
    floor = 0.9 * p.weights_bytes if p.weights_bytes else 0
    for g in sorted(gpu_catalog(), key=lambda g: g.total_bytes):
        if (g.total_bytes <= p.gpu.total_bytes and not any_size) or g.vendor != p.gpu.vendor or g.id == p.gpu.id:
            continue
        if g.total_bytes < floor:
            continue
        if g.form != form:
            if not g.one_per_machine:
                others.append(g)
            continue
        q = _try(p, gpu=g)
        if q is not None and q.fits:
            return g
    for g in others:
        q = _try(p, gpu=g)
        if q is not None and q.fits:
            return g
    return None


# GPUSpec.kind's values, as --gpu-kinds takes them; --gpu auto searches AUTO_GPU_KINDS unless told otherwise: it
# picked an RTX 4050 Laptop GPU for Qwen3-0.6B and 2 x GeForce RTX 2080 Ti for Llama-3.1-8B (at 8,192 tokens), cards
# nobody sizing a server rents
GPU_KINDS = ("datacenter", "workstation", "consumer", "laptop", "integrated")
AUTO_GPU_KINDS = ("datacenter", "workstation")
_GPU_KIND_WORDS = {"datacenter": "data-center", "workstation": "workstation", "consumer": "consumer",
                   "laptop": "laptop", "integrated": "integrated-memory"}


def parse_gpu_kinds(text: Optional[str], field: str = "--gpu-kinds") -> tuple[str, ...]:
    """`--gpu-kinds`: the kinds of card `--gpu auto` searches, comma- or space-separated (GPU_KINDS: datacenter,
    workstation, consumer, laptop, integrated; 'data-center' and 'server' read as datacenter, 'all' as every kind),
    in GPU_KINDS' order; None or blank: AUTO_GPU_KINDS."""
    if text is None or not str(text).strip():
        return AUTO_GPU_KINDS
    aliases = {"data-center": "datacenter", "data_center": "datacenter", "server": "datacenter", "dc": "datacenter",
               "integrated-memory": "integrated"}
    chosen: set[str] = set()
    for word in re.split(r"[,\s]+", str(text).strip().lower()):
        if not word:
            continue
        if word == "all":
            chosen.update(GPU_KINDS)
            continue
        kind = aliases.get(word, word)
        if kind not in GPU_KINDS:
            raise InputError(field, f"unknown kind of GPU {word!r}",
                             f"give one or more of {', '.join(GPU_KINDS)} (or all), e.g. {field} datacenter,consumer")
        chosen.add(kind)
    return tuple(k for k in GPU_KINDS if k in chosen)


def gpu_kinds_words(kinds: tuple[str, ...]) -> str:
    """How --gpu auto's note names the kinds it searched: 'data-center and workstation cards'; '' for every kind."""
    if set(kinds) >= set(GPU_KINDS):
        return ""
    words = [_GPU_KIND_WORDS[k] for k in kinds]
    return (", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else words[0]) + " cards"


def smallest_gpu_and_tp(model: ModelSpec, args: EngineArgs, vendor: str = "NVIDIA", *,
                        site_calibration: bool = True, first_start: bool = True,
                        kinds: tuple[str, ...] = AUTO_GPU_KINDS) -> tuple[GPUSpec, int, Plan] | None:
    """`--gpu auto`: the smallest catalog GPU x TP (1, 2, 4, 8) that starts, by total memory, each GPU planned with
    its site calibration (site_offsets_for) as `kvplan fit --gpu THAT` plans it, among the cards of `kinds`
    (GPUSpec.kind; by default data-center and workstation cards). With `first_start` (the default), the
    smallest whose first, compiling start holds one request too (first_start_holds: no cold-start refusal), where one
    does; else the smallest that starts warm, whose plan then carries the cold-start warning (gpu_and_tp_choices)."""
    cold, warm = gpu_and_tp_choices(model, args, vendor, site_calibration=site_calibration, kinds=kinds)
    return (cold or warm) if first_start else warm


def auto_tp_cap(args: EngineArgs) -> int:
    """The largest TP `--gpu auto` tries: 8 (one node), or fewer where --num-gpus leaves fewer GPUs per PP x DP."""
    if not args.num_gpus:
        return 8
    return min(8, args.num_gpus // ((args.pipeline_parallel_size or 1) * (args.data_parallel_size or 1)
                                     * (args.prefill_context_parallel_size or 1)))


def auto_tp_sizes(args: EngineArgs) -> tuple[int, ...]:
    """The TP sizes `--gpu auto` tries: a --tensor-parallel-size given, alone (the search is then for the card at that
    size: it had planned 4 x L4 for Qwen3-32B asked at TP 2); else 1, 2, 4 and 8 up to auto_tp_cap."""
    if args.tensor_parallel_size:
        return (args.tensor_parallel_size,)
    return tuple(tp for tp in (1, 2, 4, 8) if tp <= auto_tp_cap(args))


def auto_tp_scope(args: EngineArgs) -> str:
    """How the note and refusal of `--gpu auto` name the TP sizes it searched ('TP up to 8', 'TP 2')."""
    if args.tensor_parallel_size:
        return f"TP {args.tensor_parallel_size} (--tensor-parallel-size)"
    cap = auto_tp_cap(args)
    return f"TP up to {cap}" + (f" (--num-gpus {args.num_gpus})" if cap < 8 else "")


def gpu_and_tp_choices(model: ModelSpec, args: EngineArgs, vendor: str = "NVIDIA", *, site_calibration: bool = True,
                       deployable: bool = False, simulable: bool = False, kinds: tuple[str, ...] = AUTO_GPU_KINDS
                       ) -> tuple[tuple[GPUSpec, int, Plan] | None, tuple[GPUSpec, int, Plan] | None]:
    """(the smallest catalog GPU x TP whose first, compiling start also holds one request, the smallest that starts
    warm), by total memory, each None where no catalog GPU x TP up to 8 is one; the same where the smallest warm
    start's first start holds too. The search smallest_gpu_and_tp answers from. Where the flags are refused as input on
    every catalog GPU x TP (a --max-model-len above the model's limit), that refusal is raised: it names the flag and
    its fix, where 'no GPU fits' would send the reader to a GPU for a length no GPU serves. `deployable`: only cards
    whose launch files kvplan scaffold writes (deploy.refuse_platform: no Jetson Orin, no AMD card). `simulable`: only
    cards whose HBM bandwidth the catalog holds, which the step-time model of simulate and capacity needs (their
    --gpu auto picked an RTX 4000 SFF Ada for gpt-oss-20b, then refused it for want of that bandwidth). `kinds`: only
    cards of these kinds (GPUSpec.kind, parse_gpu_kinds; by default data-center and workstation cards)."""
    options = []
    # --num-gpus bounds the search: TP x PP x DP ranks within the GPUs available (without it, TP up to 8: one node);
    # a --tensor-parallel-size given is the one size searched
    for g in gpu_catalog():
        if g.vendor != vendor or (deployable and not _deployable(g, args)) or (simulable and not g.hbm_bandwidth_tbps):
            continue
        if g.kind not in kinds:
            continue
        for tp in auto_tp_sizes(args):
            if tp > 1 and g.one_per_machine:
                continue
            options.append((g.total_bytes * tp, tp, g))
    warm, refused, planned = None, None, False
    for _, tp, g in sorted(options, key=lambda o: (o[0], o[1])):
        offsets = site_offsets_for(g, model, args)[0] if site_calibration else None
        try:
            q = plan(model, g, replace(args, tensor_parallel_size=tp, num_gpus=None), site_offsets=offsets)
        except InputError as exc:
            refused = exc  # (the largest option's, by the search's order)
            continue
        planned = True
        if not q.fits:
            continue
        found = (g, tp, q)
        warm = warm or found  # (the first that starts: `found` itself, so `cold is warm` where its first start holds)
        if first_start_holds(q):
            return found, warm
    if not planned and refused is not None:
        raise refused
    return None, warm


# the cards gpu_and_tp_choices(deployable=True) keeps, as --gpu auto's note and scaffold's --gpu help name them
DEPLOYABLE_CARDS = "among those kvplan scaffold writes files for (no Jetson Orin, no AMD card)"
# the cards gpu_and_tp_choices(simulable=True) keeps, as simulate's and capacity's --gpu auto note names them
SIMULABLE_CARDS = "among those whose bandwidth kvplan's catalog holds (the step-time model needs it)"


def _deployable(gpu: GPUSpec, args: EngineArgs) -> bool:
    """Whether kvplan scaffold writes launch files for `gpu` (deploy.refuse_platform: PyPI's CUDA wheel and the
    vllm/vllm-openai image, not a Jetson Orin's or an AMD card's build)."""
    from kvplan.deploy import refuse_platform

    try:
        refuse_platform(gpu, rules_for().version)  # (the card alone decides; the release only names the pin)
    except InputError:
        return False
    return True


def known_versions() -> list[str]:
    from kvplan.versions import RELEASES_READ

    return list(RELEASES_READ)


# --------------------------------------------------------------------------- the flags a consumer plans with
# The command line (kvplan.cli) and the page (kvplan.web) both take these and ask the same questions with them;
# neither imports the other.


@dataclass(frozen=True)
class FitFlags:
    """The `vllm serve` flags (plus kvplan's own GPU and version choices) a plan takes."""

    gpu: Optional[str] = None
    gpu_gib: Optional[float] = None
    gpu_gb: Optional[float] = None
    wsl2: bool = False
    num_gpus: Optional[int] = None
    gpu_kinds: Optional[str] = None  # with --gpu auto: the kinds of card searched (parse_gpu_kinds); no engine argument
    max_model_len: Optional[str] = None
    gpu_memory_utilization: Optional[float] = None
    tensor_parallel_size: Optional[int] = None
    pipeline_parallel_size: Optional[int] = None
    decode_context_parallel_size: Optional[int] = None
    prefill_context_parallel_size: Optional[int] = None
    dcp_kv_cache_interleave_size: Optional[int] = None
    cp_kv_cache_interleave_size: Optional[int] = None
    data_parallel_size: Optional[int] = None
    enable_expert_parallel: bool = False
    expert_placement_strategy: Optional[str] = None
    enable_eplb: bool = False
    num_redundant_experts: Optional[int] = None
    eplb_config: Optional[str] = None
    all2all_backend: Optional[str] = None
    kv_cache_dtype: Optional[str] = None
    max_num_seqs: Optional[int] = None
    max_num_batched_tokens: Optional[str] = None  # read as vllm serve reads it: 8k = 8,000, 8K = 8,192
    block_size: Optional[int] = None
    enforce_eager: bool = False
    quantization: Optional[str] = None
    dtype: Optional[str] = None
    mamba_ssm_cache_dtype: Optional[str] = None
    mamba_cache_dtype: Optional[str] = None
    revision: Optional[str] = None
    speculative_config: Optional[str] = None
    compilation_config: Optional[str] = None
    cudagraph_capture_sizes: Optional[str] = None  # "1,2,4,8" (vllm serve: --cudagraph-capture-sizes 1 2 4 8)
    max_cudagraph_capture_size: Optional[int] = None
    performance_mode: Optional[str] = None  # balanced (vLLM's default), interactivity or throughput (vLLM >= 0.17)
    cuda_graph_sizes: Optional[str] = None  # "1,2,4,8" or "256" (vLLM 0.9.0-0.12.x: --cuda-graph-sizes 1 2 4 8)
    enable_prefix_caching: Optional[bool] = None
    enable_chunked_prefill: Optional[bool] = None
    long_prefill_token_threshold: Optional[int] = None
    long_prefill_token_threshold_adaptive: Optional[bool] = None
    env: Optional[list[str]] = None
    cpu_offload_gb: Optional[float] = None
    kv_cache_memory_bytes: Optional[str] = None  # read as vllm serve reads it: 8G = 8 GiB, 8g = 8e9
    num_gpu_blocks_override: Optional[int] = None
    mamba_block_size: Optional[int] = None
    calculate_kv_scales: bool = False
    enable_extensible_kv_cache: Optional[bool] = None
    gdn_prefill_backend: Optional[str] = None
    moe_backend: Optional[str] = None
    enable_lora: bool = False
    max_loras: Optional[int] = None
    max_lora_rank: Optional[int] = None
    fully_sharded_loras: bool = False
    max_cpu_loras: Optional[int] = None
    lora_target_modules: Optional[str] = None  # "qkv_proj,o_proj" (vllm serve: --lora-target-modules qkv_proj o_proj)
    runner: Optional[str] = None
    pooler_config: Optional[str] = None  # JSON (vLLM >= 0.11): a pooling model's PoolerConfig
    override_pooler_config: Optional[str] = None  # JSON (vLLM 0.6.4-0.11.x)
    limit_mm_per_prompt: Optional[str] = None
    language_model_only: bool = False
    skip_mm_profiling: bool = False
    enable_sleep_mode: bool = False
    disable_custom_all_reduce: bool = False
    disable_hybrid_kv_cache_manager: Optional[bool] = None
    kv_transfer_config: Optional[str] = None
    disable_sliding_window: bool = False
    load_format: Optional[str] = None
    async_scheduling: Optional[bool] = None
    allow_deprecated_quantization: bool = False
    entrypoint: Optional[str] = None
    hf_overrides: Optional[str] = None  # JSON: keys set on the model's config ('{"rope_scaling": {...}}')
    rope_scaling: Optional[str] = None  # JSON (vLLM 0.4.3-0.11.0)
    rope_theta: Optional[float] = None  # vLLM 0.5.0-0.11.0
    vllm_version: Optional[str] = None
    overhead_gb: Optional[float] = None

    def engine_kwargs(self) -> dict:
        """The flags as keyword arguments of `kvplan.fit` (None = the version's default); gpu_kinds, which only
        `--gpu auto` reads (plan_from_flags_and_inverse), is none."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "gpu_kinds"}


class FitParam(NamedTuple):
    """One of FitFlags' flags as a consumer offers it: its annotation and default, how the command line spells it
    (`--tensor-parallel-size`, `-tp`), its help text and the help panel it is listed under. `kvplan`'s options are
    built from these (cli.FIT_OPTIONS), and so are the page's request fields and their descriptions (web.app)."""

    name: str
    annotation: object
    default: object
    flags: tuple[str, ...]
    help: str
    panel: str


# the release a plan takes without --vllm-version (versions.DEFAULT_RELEASE) is not always the newest kvplan reads
# (versions.NEWEST_READ): the help names both, so that a newer release read is found, and not taken for the default
VLLM_VERSION_HELP = ("Which vLLM release's rules to apply (default: " + (
    f"{DEFAULT_RELEASE}, the newest kvplan knows)." if DEFAULT_RELEASE == NEWEST_READ else
    f"{DEFAULT_RELEASE}, kvplan's default release; the newest it reads, {NEWEST_READ}, applies when given: "
    f"--vllm-version {NEWEST_READ})."))
GPU_HELP = "GPU name or alias from the catalog (e.g. L4, H100, 'A100-80GB'; `kvplan gpus` lists them)."
# the environment variables the plan reads (plan/args.py, versions.py): --env's help names them, and `--from` takes them
# from a compose service's environment: or a script's exports (serve_command)
MODELLED_ENV = ("VLLM_USE_V1", "VLLM_ALLOW_LONG_MAX_MODEL_LEN", "VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE",
                "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS", "VLLM_MXFP4_USE_MARLIN", "VLLM_USE_DEEP_GEMM",
                "VLLM_MOE_USE_DEEP_GEMM", "VLLM_USE_FLASHINFER_SAMPLER", "VLLM_DISABLE_COMPILE_CACHE",
                "VLLM_PP_LAYER_PARTITION", "VLLM_USE_V2_MODEL_RUNNER", "VLLM_FLASHINFER_WORKSPACE_BUFFER_SIZE")
FIT_PARAMS: list[FitParam] = [
    FitParam("gpu", Optional[str], None, ("--gpu",), GPU_HELP + " Default: the GPU NVML detects, else a 16 GB T4.", "GPU"),
    FitParam("gpu_gib", Optional[float], None, ("--gpu-gib",), "A custom GPU: total memory in GiB as CUDA reports it.", "GPU"),
    FitParam("gpu_gb", Optional[float], None, ("--gpu-gb",), "A custom GPU: total memory in decimal GB (as the seed's arithmetic counts it).", "GPU"),
    FitParam("wsl2", bool, False, ("--wsl2",), "The GPU runs under WSL2 (Windows), where CUDA's total is nvidia-smi's memory.total, 0.25-0.75 GiB above native Linux's: --gpu NAME is planned with that total (from the catalog, which says where it has none: then give --gpu-gib).", "GPU"),
    FitParam("num_gpus", Optional[int], None, ("--num-gpus",), "GPUs available (default: tensor x pipeline x data parallel size).", "GPU"),
    FitParam("gpu_kinds", Optional[str], None, ("--gpu-kinds",), "With --gpu auto: the kinds of card searched, comma-separated: datacenter, workstation, consumer (GeForce, TITAN, Radeon RX), laptop, integrated (GB10, Jetson), or all. Default: datacenter,workstation (`kvplan gpus --json` gives each card's kind).", "GPU"),
    FitParam("max_model_len", Optional[str], None, ("--max-model-len",), "Context length to serve (vLLM default: the model's limit), read as vllm serve reads it: 32k = 32,000, 32K = 32,768, -1 = vLLM's auto-fit. 'auto' (kvplan fit, with --concurrency N) asks for the longest at which N requests fit.", "vllm serve flags"),
    FitParam("gpu_memory_utilization", Optional[float], None, ("--gpu-memory-utilization",), "Fraction of total GPU memory vLLM may claim (default 0.90 before vLLM 0.20, 0.92 after; from 0.34, 1.0 with its extensible KV cache, whose pool is what the memory measured after warmup leaves: a lower value only caps it, and vLLM warns where one between 0.7 and 1.0 keeps 1 GiB or more of free memory out of it).", "vllm serve flags"),
    FitParam("tensor_parallel_size", Optional[int], None, ("--tensor-parallel-size", "-tp"), "Tensor-parallel ranks.", "vllm serve flags"),
    FitParam("pipeline_parallel_size", Optional[int], None, ("--pipeline-parallel-size", "-pp"), "Pipeline-parallel stages.", "vllm serve flags"),
    FitParam("decode_context_parallel_size", Optional[int], None, ("--decode-context-parallel-size", "-dcp"), "vLLM >= 0.10.2: decode context parallelism, a divisor of --tensor-parallel-size; each rank of a DCP group keeps 1/dcp of every sequence's tokens in its MLA (GQA from 0.11.1) KV cache, so the same per-rank pool holds dcp x the tokens. MLA models only before 0.11.1; GQA needs TP above the KV heads.", "vllm serve flags"),
    FitParam("prefill_context_parallel_size", Optional[int], None, ("--prefill-context-parallel-size", "-pcp"), "vLLM >= 0.26 in practice (the flag from 0.12; 0.12 refuses it, 0.13-0.25 have no attention impl that supports it): prefill context parallelism, PCP groups of whole TP groups, so TP x PP x PCP GPUs per engine; each PCP rank keeps the whole KV cache (the same tokens and concurrency as without it) and a MoE model's experts are split over TP x PCP. MLA models only, on model runner v2 (v1, which 0.26-0.28 keep for most MoE models, is refused as not read).", "vllm serve flags"),
    FitParam("dcp_kv_cache_interleave_size", Optional[int], None, ("--dcp-kv-cache-interleave-size",), "vLLM >= 0.11.1: under --decode-context-parallel-size, how many consecutive tokens each DCP rank keeps in turn (default 1); it must divide the block size (vLLM refuses 'Block_size(B) should be greater than or equal to and divisible by ...'). It places tokens and moves no figure (blocks, tokens, concurrency). 0.12-0.28 copy it over --cp-kv-cache-interleave-size; from 0.29 vLLM reads it only with a --kv-transfer-config.", "vllm serve flags"),
    FitParam("cp_kv_cache_interleave_size", Optional[int], None, ("--cp-kv-cache-interleave-size",), "vLLM >= 0.12: the interleave size that replaced --dcp-kv-cache-interleave-size (default 1): a divisor of the block size under decode context parallelism, refused as vLLM refuses it; with --speculative-config only 1. It places tokens and moves no figure.", "vllm serve flags"),
    FitParam("data_parallel_size", Optional[int], None, ("--data-parallel-size", "-dp"), "Data-parallel engines (each with its own KV pool).", "vllm serve flags"),
    FitParam("enable_expert_parallel", bool, False, ("--enable-expert-parallel",), "Split MoE experts over TP x DP ranks.", "vllm serve flags"),
    FitParam("expert_placement_strategy", Optional[str], None, ("--expert-placement-strategy",), "vLLM >= 0.11: linear (the default) or round_robin, how whole experts are spread over the EP ranks. With --enable-lora on a MoE model vLLM 0.34 refuses a placement that stays round_robin (EP over more than one rank, a model with several expert groups, no data parallelism).", "vllm serve flags"),
    FitParam("enable_eplb", bool, False, ("--enable-eplb",), "vLLM >= 0.9.2: expert-parallel load balancing (with --enable-expert-parallel over several GPUs, on a model class that balances). Each MoE layer holds its experts plus the redundant ones, (E + R) / EP per rank, and the balancer's state.", "vllm serve flags"),
    FitParam("num_redundant_experts", Optional[int], None, ("--num-redundant-experts",), "vLLM 0.9.2-0.11.x: redundant experts per MoE layer under --enable-eplb (vLLM 0.10.2 and later: --eplb-config '{\"num_redundant_experts\": N}'). Default 0; from vLLM 0.34 the fewest that split the experts evenly over the EP ranks.", "vllm serve flags"),
    FitParam("eplb_config", Optional[str], None, ("--eplb-config",), 'vLLM >= 0.10.2: EPLB settings as JSON; kvplan reads num_redundant_experts, window_size (steps of expert load kept, default 1000) and communicator (\'{"num_redundant_experts": 32}\').', "vllm serve flags"),
    FitParam("all2all_backend", Optional[str], None, ("--all2all-backend",), "vLLM >= 0.11.1: the MoE all2all backend under expert parallelism, written to the launch files as given (its communication buffers are not counted).", "vllm serve flags"),
    FitParam("kv_cache_dtype", Optional[str], None, ("--kv-cache-dtype",), "auto, fp8, fp8_e4m3 or fp8_e5m2.", "vllm serve flags"),
    FitParam("max_num_seqs", Optional[int], None, ("--max-num-seqs",), "Sequence cap per step.", "vllm serve flags"),
    FitParam("max_num_batched_tokens", Optional[str], None, ("--max-num-batched-tokens",), "Token budget per step, read as vllm serve reads it (8k = 8,000, 8K = 8,192).", "vllm serve flags"),
    FitParam("block_size", Optional[int], None, ("--block-size",), "KV-cache block size in tokens. Default: the attention backend's choice from vLLM's default, 16 up to vLLM 0.33 and 64 from 0.34 (NVIDIA's backends take it; ROCm's first backend keeps 16; hybrid and MLA models their own).", "vllm serve flags"),
    FitParam("enforce_eager", bool, False, ("--enforce-eager",), "No CUDA graphs.", "vllm serve flags"),
    FitParam("quantization", Optional[str], None, ("--quantization", "-q"), "Weight quantization method (awq, gptq, fp8, ...). Default: the checkpoint's own.", "vllm serve flags"),
    FitParam("dtype", Optional[str], None, ("--dtype",), "auto, half, float16, bfloat16, float32.", "vllm serve flags"),
    FitParam("mamba_ssm_cache_dtype", Optional[str], None, ("--mamba-ssm-cache-dtype",), "auto, float32, float16, bfloat16 (recurrent state of Mamba / Gated DeltaNet layers).", "vllm serve flags"),
    FitParam("mamba_cache_dtype", Optional[str], None, ("--mamba-cache-dtype",), "auto, float32, float16, bfloat16: the conv state of Mamba / Gated DeltaNet layers, their SSM state where --mamba-ssm-cache-dtype and the model leave it auto, and linear-attention state (vLLM >= 0.10.1).", "vllm serve flags"),
    FitParam("revision", Optional[str], None, ("--revision",), "Model revision (commit, tag or branch) to resolve on the Hub.", "vllm serve flags"),
    FitParam("speculative_config", Optional[str], None, ("--speculative-config",), 'Speculative decoding, as vLLM takes it: \'{"method": "mtp", "num_speculative_tokens": 3}\' (the checkpoint\'s MTP layers), method ngram, or a drafter checkpoint named by "model" (methods eagle, eagle3, draft_model: its weights, KV layers and buffers are counted).', "vllm serve flags"),
    FitParam("compilation_config", Optional[str], None, ("--compilation-config",), 'vLLM\'s compilation config as JSON; kvplan reads its cudagraph_mode (\'{"cudagraph_mode": "PIECEWISE"}\': no FULL decode graphs, so no hybrid state-block check) and, from vLLM 0.11.1, its cudagraph_capture_sizes and max_cudagraph_capture_size (as the two flags below).', "vllm serve flags"),
    FitParam("cudagraph_capture_sizes", Optional[str], None, ("--cudagraph-capture-sizes",), "vLLM >= 0.11.1: the batch sizes CUDA graphs are captured at, comma-separated (1,2,4,8; vllm serve spells it --cudagraph-capture-sizes 1 2 4 8, and scaffold writes it so). As vLLM does: sizes above max_num_batched_tokens are dropped, nothing else is added; fewer or smaller sizes, less CUDA-graph memory and a larger KV pool. Default: the release's own list.", "vllm serve flags"),
    FitParam("max_cudagraph_capture_size", Optional[int], None, ("--max-cudagraph-capture-size",), "vLLM >= 0.11.1: the largest CUDA-graph batch size; vLLM's default grid (1, 2, 4, multiples of 8, then of 16) up to it, capped at max_num_batched_tokens. Default: the release's own (2 x max_num_seqs, at most 512 on most GPUs).", "vllm serve flags"),
    FitParam("performance_mode", Optional[str], None, ("--performance-mode",), "vLLM >= 0.17: balanced (the default), interactivity (vLLM's default capture-size grid takes every batch size 1-32 at its head instead of 1, 2, 4: more CUDA graphs, more graph memory) or throughput (the default max_num_seqs and max_num_batched_tokens doubled where not given).", "vllm serve flags"),
    FitParam("cuda_graph_sizes", Optional[str], None, ("--cuda-graph-sizes",), "vLLM 0.9.0-0.12.x: the CUDA-graph batch sizes, comma-separated (vllm serve spells it --cuda-graph-sizes 1 2 4 8). Before 0.11.1 one value N means vLLM's sizes 1, 2, 4 and the multiples of 8 up to N, several are the sizes; from 0.11.1 it is --cudagraph-capture-sizes' deprecated alias (one value: that size alone). Sizes above max_num_batched_tokens are dropped. Refused by the releases without it.", "vllm serve flags"),
    FitParam("enable_prefix_caching", Optional[bool], None, ("--enable-prefix-caching/--no-enable-prefix-caching",), "Prefix caching (default: the version's; for hybrid Mamba/GDN models it sets how many state pages a sequence holds; simulate and capacity model its hits from the workload's block hashes).", "vllm serve flags"),
    FitParam("enable_chunked_prefill", Optional[bool], None, ("--enable-chunked-prefill/--no-enable-chunked-prefill",), "Chunked prefill (default: the version's; without it the profile run and each prefill take a whole prompt, max_num_batched_tokens >= max_model_len).", "vllm serve flags"),
    FitParam("long_prefill_token_threshold", Optional[int], None, ("--long-prefill-token-threshold",), "vLLM >= 0.7.3: the per-request prefill chunk cap (0 = none, vLLM's default). No memory; simulate and capacity apply it as the release does (from 0.31 not in a step with one request running or waiting, from 0.34 only with chunked prefill; none for an encoder-decoder model), scaffold writes it. From vLLM 0.27 one above max_model_len is refused.", "vllm serve flags"),
    FitParam("long_prefill_token_threshold_adaptive", Optional[bool], None, ("--long-prefill-token-threshold-adaptive/--no-long-prefill-token-threshold-adaptive",), "vLLM >= 0.31 (off by default): floor --long-prefill-token-threshold in each step at max_num_batched_tokens divided by the requests running or waiting. Refused by older releases, whose vllm serve has no such flag.", "vllm serve flags"),
    FitParam("env", Optional[list[str]], None, ("--env",), "An environment variable the server runs with, KEY=VALUE (repeatable). Modelled: " + ", ".join(MODELLED_ENV) + "; others are carried into serve.sh.", "vllm serve flags"),
    FitParam("cpu_offload_gb", Optional[float], None, ("--cpu-offload-gb",), "GiB of weights per GPU kept in CPU memory (vLLM's UVA offload): less on the GPU, streamed every forward.", "vllm serve flags"),
    FitParam("kv_cache_memory_bytes", Optional[str], None, ("--kv-cache-memory-bytes",), "The KV-cache pool per GPU in bytes (vLLM >= 0.10.2; 8G = 8 GiB, 8g = 8e9), taken as given: gpu_memory_utilization no longer sizes it.", "vllm serve flags"),
    FitParam("num_gpu_blocks_override", Optional[int], None, ("--num-gpu-blocks-override",), "The KV pool's block count, replacing the profiled one (vLLM's num_gpu_blocks_override): the blocks are allocated at its size (CUDA out of memory where the card cannot hold them), tokens and concurrency are its; vLLM >= 0.21 (and V0) check one max-length request against it, 0.8-0.20 against the profiled memory. `kvplan simulate` serves this pool.", "vllm serve flags"),
    FitParam("mamba_block_size", Optional[int], None, ("--mamba-block-size",), "vLLM >= 0.11.1: tokens per Mamba state block under prefix caching (refused without --enable-prefix-caching, as vLLM refuses it). Read by Mamba prefix caching's 'all' mode (Mamba1/2 hybrids, vLLM 0.11.1-0.27), whose block becomes a multiple of it in place of the model's Mamba chunk size; 'align' mode (GDN hybrids, every hybrid from 0.28) sets it to the block size, so nothing moves.", "vllm serve flags"),
    FitParam("calculate_kv_scales", bool, False, ("--calculate-kv-scales",), "vLLM 0.7.0-0.27.x: fp8 KV-cache scales computed on the first forward (deprecated from 0.19, removed in 0.28). Moves no startup memory figure: planned as without it, and said.", "vllm serve flags"),
    FitParam("enable_extensible_kv_cache", Optional[bool], None, ("--enable-extensible-kv-cache/--no-enable-extensible-kv-cache",), "vLLM >= 0.34: the extensible KV cache, on by default on CUDA and ROCm (gpu_memory_utilization then defaults to 1.0): the pool is what the memory measured after warmup and CUDA-graph capture leaves, less a margin; off, it is the profile's estimate at 0.92. --kv-cache-memory-bytes turns it off.", "vllm serve flags"),
    FitParam("gdn_prefill_backend", Optional[str], None, ("--gdn-prefill-backend",), "vLLM >= 0.18: the prefill kernel of Qwen's Gated DeltaNet layers (Qwen3-Next, Qwen3.5+ hybrids): flashinfer, triton, cutedsl (0.22+), aiter_flydsl (0.32+, ROCm), sycl (0.33+, XPU), hip (0.34+, ROCm). Default: vLLM's choice, FlashInfer where it runs (SM 9.0; SM 10.x/12.x with 128-wide keys), whose prefill checkpoints put a hybrid's block size on a 64-token grid with prefix caching from 0.33; triton keeps it off that grid. A backend of another platform is refused as vLLM refuses it.", "vllm serve flags"),
    FitParam("moe_backend", Optional[str], None, ("--moe-backend",), "vLLM >= 0.17: the kernel the MoE experts run on (KernelConfig.moe_backend; lower-cased, '-' read as '_'): auto, triton, deep_gemm, cutlass, flashinfer_trtllm, flashinfer_cutlass, flashinfer_cutedsl, marlin, aiter, and the later releases' values. Planned as the environment variable it stands for: marlin on MXFP4 experts as VLLM_MXFP4_USE_MARLIN=1 (Marlin's padding and workspace), triton / deep_gemm / marlin / flashinfer_* on block-FP8 experts, cutlass on NVFP4 (vLLM's CUTLASS buffers), marlin on WNA16. A value the experts' quantization does not take, or one whose kernel does not run on the GPU, is refused with vLLM's message; a model without MoE layers ignores it.", "vllm serve flags"),
    FitParam("enable_lora", bool, False, ("--enable-lora",), "Serve LoRA adapters: vLLM allocates max_loras slots on every supported layer at startup.", "vllm serve flags"),
    FitParam("max_loras", Optional[int], None, ("--max-loras",), "LoRA adapters in one batch (vLLM default 1).", "vllm serve flags"),
    FitParam("max_lora_rank", Optional[int], None, ("--max-lora-rank",), "Largest adapter rank (vLLM default 16).", "vllm serve flags"),
    FitParam("fully_sharded_loras", bool, False, ("--fully-sharded-loras",), "Shard both LoRA matrices over TP ranks.", "vllm serve flags"),
    FitParam("max_cpu_loras", Optional[int], None, ("--max-cpu-loras",), "Adapters cached in CPU memory (vLLM default max_loras; no GPU memory; vLLM refuses fewer than --max-loras).", "vllm serve flags"),
    FitParam("lora_target_modules", Optional[str], None, ("--lora-target-modules",), "vLLM >= 0.19: the modules that take LoRA slots, comma-separated (qkv_proj,o_proj; from 0.20 also q_proj, gate_proj...); vllm serve spells it --lora-target-modules qkv_proj o_proj. Default: every supported module.", "vllm serve flags"),
    FitParam("runner", Optional[str], None, ("--runner",), "auto, generate or pooling: pooling serves an embedding/classification model (no lm_head, no sampler; --task embed before vLLM 0.10.1). auto: vLLM's choice from the architecture and a sentence-transformers modules.json.", "vllm serve flags"),
    FitParam("pooler_config", Optional[str], None, ("--pooler-config",), 'vLLM >= 0.11: a pooling model\'s PoolerConfig as JSON (\'{"pooling_type": "MEAN"}\'; from 0.14 also seq_pooling_type / tok_pooling_type). Its pooling type, over the checkpoint\'s sentence-transformers Pooling config and the class default, decides whether chunked prefill and prefix caching are on by default (vLLM >= 0.9.2, V1).', "vllm serve flags"),
    FitParam("override_pooler_config", Optional[str], None, ("--override-pooler-config",), "vLLM 0.6.4-0.11.x: --pooler-config's older name (the same JSON; removed in 0.12). From 0.11 it replaces --pooler-config where both are given.", "vllm serve flags"),
    FitParam("limit_mm_per_prompt", Optional[str], None, ("--limit-mm-per-prompt",), 'Items per modality a multimodal prompt may carry, as vLLM takes it: \'{"image": 2, "video": 0}\'. The profile run encodes the largest allowed items; all 0 = none.', "vllm serve flags"),
    FitParam("language_model_only", bool, False, ("--language-model-only",), "Serve a multimodal checkpoint as text only (vLLM >= 0.17; the same as every --limit-mm-per-prompt at 0): no vision tower loaded, no encoder pass profiled.", "vllm serve flags"),
    FitParam("enable_sleep_mode", bool, False, ("--enable-sleep-mode",), "vLLM >= 0.7.0: weights and KV cache go in vLLM's CuMem pools, so that sleep() can free them (RL frameworks: verl, OpenRLHF); the same budget as without. CUDA only, and ROCm from vLLM 0.11.1.", "vllm serve flags"),
    FitParam("disable_custom_all_reduce", bool, False, ("--disable-custom-all-reduce",), "Tensor-parallel all-reduces through NCCL instead of vLLM's custom all-reduce kernel (usual on several GeForce cards without NVLink or P2P, where vLLM turns it off by itself). The same budget as without; the note says what the kernel's buffers were in the release.", "vllm serve flags"),
    FitParam("kv_transfer_config", Optional[str], None, ("--kv-transfer-config",), 'vLLM >= 0.6.5: the KV connector as JSON (\'{"kv_connector": "NixlConnector", "kv_role": "kv_both"}\'; LMCacheConnectorV1, OffloadingConnector, P2pNcclConnector, MultiConnector...). Checked as the release checks it (kv_role, the connector names it registers). vLLM 0.9.1-0.21 turns the hybrid KV-cache manager off for any connector, 0.22+ for one that does not subclass SupportsHMA: then, as with --disable-hybrid-kv-cache-manager, window layers are held as full attention (gpt-oss, Gemma 3, Llama 4). The connector\'s own buffers are not charged (a warning says so).', "vllm serve flags"),
    FitParam("disable_hybrid_kv_cache_manager", Optional[bool], None, ("--disable-hybrid-kv-cache-manager/--no-disable-hybrid-kv-cache-manager",), "vLLM >= 0.9.1: no separate KV-cache groups for sliding-window and chunked-local layers: beside full-attention layers they are held as full attention (every token, one group, the full-attention page), so fewer tokens fit (gpt-oss, Gemma 3, Llama 4). A Mamba / Gated DeltaNet hybrid (Qwen3-Next, Jamba) or an encoder-decoder model is refused as vLLM refuses it. --no-...: from vLLM 0.13 keeps the manager on for a --kv-transfer-config connector (refused, as vLLM refuses it, for a connector without SupportsHMA).", "vllm serve flags"),
    FitParam("disable_sliding_window", bool, False, ("--disable-sliding-window",), "vLLM >= 0.4.3: sliding-window layers run as full attention (every token held) and max_model_len is capped at the window (the model's default length becomes the window; a longer --max-model-len is refused). Up to vLLM 0.11.x a model with rope scaling (gpt-oss's YaRN) is refused as vLLM refuses it.", "vllm serve flags"),
    FitParam("load_format", Optional[str], None, ("--load-format",), "The loader that reads the weights, as vLLM takes it (auto, pt, safetensors, npcache, dummy, tensorizer, sharded_state, runai_streamer, fastsafetensors, ... by release; gguf to 0.23, bitsandbytes to 0.27): the same weights on the GPU, so the same budget; vLLM's refusals (an unknown value, bitsandbytes without --quantization bitsandbytes, gguf on no .gguf file) are refused here.", "vllm serve flags"),
    FitParam("async_scheduling", Optional[bool], None, ("--async-scheduling/--no-async-scheduling",), "vLLM >= 0.10.0: schedule the next step while one runs (default: off up to 0.13; from 0.14 on unless the release does not run it with the setup: pipeline parallelism up to 0.14, some speculative methods, a pooling model from 0.20, where it stays off). From 0.26 a sliding-window request reserves max_num_batched_tokens per step in flight (2 with it at PP 1, 1 without); simulate and capacity lag admission one step with it. Given on where the release does not run it, vLLM refuses to start.", "vllm serve flags"),
    FitParam("skip_mm_profiling", bool, False, ("--skip-mm-profiling",), "vLLM >= 0.10.1: the profile run skips the multimodal encoder pass, so the KV pool takes the memory it would have held; requests with images or video may then run out of memory (vLLM: the user's responsibility).", "vllm serve flags"),
    FitParam("allow_deprecated_quantization", bool, False, ("--allow-deprecated-quantization",), "vLLM >= 0.14: serve a quantization method the release deprecates (fbgemm_fp8 from 0.34, which removed fp_quant; fbgemm_fp8 and fp_quant in 0.23-0.33; more before), which it refuses without this flag.", "vllm serve flags"),
    FitParam("entrypoint", Optional[str], None, ("--entrypoint",), "serve (vllm serve, default) or llm (vllm.LLM in Python, whose default token budget is 16384 where serve's is 8192, 8192 where it is 2048).", "vllm serve flags"),
    FitParam("hf_overrides", Optional[str], None, ("--hf-overrides",), 'Keys set on the model\'s config before anything is derived from it, as vLLM takes them (JSON): \'{"rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}}\' lengthens the derived max length (up to vLLM 0.29: 32,768 x 4; from 0.30 a YaRN factor is not applied, so give "max_position_embeddings" too); num_key_value_heads, head_dim, sliding_window... change the KV cache as they would in vLLM. A sub-config\'s keys ({"text_config": {...}}) are merged from vLLM 0.11.1.', "vllm serve flags"),
    FitParam("rope_scaling", Optional[str], None, ("--rope-scaling",), "vLLM 0.4.3-0.11.0: the rope_scaling dict as JSON (set on the config as --hf-overrides '{\"rope_scaling\": ...}'); refused by later releases, which take --hf-overrides.", "vllm serve flags"),
    FitParam("rope_theta", Optional[float], None, ("--rope-theta",), "vLLM 0.5.0-0.11.0: the config's rope_theta; refused by later releases, which take --hf-overrides '{\"rope_theta\": N}'.", "vllm serve flags"),
    FitParam("vllm_version", Optional[str], None, ("--vllm-version",), VLLM_VERSION_HELP, "kvplan"),
    FitParam("overhead_gb", Optional[float], None, ("--overhead-gb",), "The seed's simple arithmetic: budget = GPU GB x utilization - weights - this many GB, all layers full attention.", "kvplan"),
]


def refuse_unpublished_version(version: str | None) -> None:
    """--vllm-version as a user types it (the CLI's options, the page's field): '0.10.3' names no wheel, image or pin
    (versions.unpublished_release), and scaffold would pin it. Records and kvplan.api.fit are not refused: a public
    report can carry a number PyPI never had (tests/data/hybrid_state_blocks.jsonl's ROCm start says 0.23.1)."""
    if not version:
        return
    from kvplan.versions import DEFAULT_RELEASE, unpublished_release

    why = unpublished_release(version)
    if why:
        raise InputError("--vllm-version", why, f"give the release you run (`pip show vllm`), e.g. {DEFAULT_RELEASE}; a "
                         "development build as its own name (0.11.0.dev5) is planned too")


def refuse_auto_length(flags: FitFlags, command: str) -> None:
    """`--max-model-len auto` is answered by `kvplan fit ... --concurrency N` alone: other commands take a length."""
    from kvplan.plan import is_auto_length

    if is_auto_length(flags.max_model_len):
        raise InputError("--max-model-len", f"'auto' asks for the largest length at which N requests fit, which "
                         f"`kvplan fit` answers (it takes --concurrency N); {command} takes a length",
                         "run `kvplan fit MODEL ... --max-model-len auto --concurrency N` and give the length it prints")


# requests each capacity search probe simulates by default (`kvplan capacity` and the page's capacity search alike,
# so that the two answer one deployment with one rate): a trace's first ones (all of a shorter trace), or a
# synthetic draw
CAPACITY_REQUESTS = 5000


SWEEPABLE = ("max_model_len", "gpu_memory_utilization", "gpu", "model", "kv_cache_dtype", "tensor_parallel_size", "quantization",
             "vllm_version", "max_loras", "max_lora_rank", "enable_extensible_kv_cache", "gdn_prefill_backend",
             # the scheduler's knobs: what they move is the budget (max_num_seqs, max_num_batched_tokens: the profile
             # run; enforce_eager: the CUDA graphs; block_size: the rounding) or, in `kvplan capacity`, the steps
             "max_num_seqs", "max_num_batched_tokens", "block_size", "enforce_eager", "enable_prefix_caching",
             "enable_chunked_prefill", "long_prefill_token_threshold", "async_scheduling",
             # the MoE experts' kernel: its padding and workspace
             "moe_backend")
# the on/off flags among them, read by _switch_value
_SWITCHES = ("enable_extensible_kv_cache", "enforce_eager", "enable_prefix_caching", "enable_chunked_prefill",
             "async_scheduling")


def _switch_value(text: str) -> bool:
    """An on/off flag's --vary value (--vary enable_extensible_kv_cache=true,false): true/false, on/off, 1/0."""
    word = str(text).strip().lower()
    if word in ("true", "on", "1", "yes"):
        return True
    if word in ("false", "off", "0", "no"):
        return False
    raise ValueError(text)


_switch_value.__name__ = "true/false"


def _engine_kwargs_and_gpu(flags: FitFlags) -> tuple[dict, Optional[str], Optional[float], Optional[float], Optional[str]]:
    """The flags as kvplan.fit's engine keywords, and apart from them --gpu, --gpu-gib, --gpu-gb and --revision."""
    kw = flags.engine_kwargs()
    return kw, kw.pop("gpu"), kw.pop("gpu_gib"), kw.pop("gpu_gb"), kw.pop("revision")


def plan_from_flags_and_inverse(model: Optional[str], flags: FitFlags, concurrency: Optional[float], *,
                                deployable: bool = False, simulable: bool = False):
    """The plan the flags describe, answering the inverse questions (`--gpu auto`, `--max-model-len auto`);
    `deployable`: `--gpu auto` picks among the cards kvplan scaffold writes launch files for; `simulable`: among the
    cards simulate and capacity can time (their bandwidth known)."""
    from kvplan.plan import is_auto_length

    kw, gpu, gib, gb, revision = _engine_kwargs_and_gpu(flags)
    if flags.gpu_kinds is not None and not (gpu and gpu.strip().lower() == "auto"):
        raise InputError("--gpu-kinds", "chooses the cards --gpu auto searches; with " + (f"--gpu {gpu}" if gpu else
                         "no --gpu") + " it would be ignored", "give --gpu auto, or drop --gpu-kinds")
    if gpu and gpu.lower() == "auto":
        kinds = parse_gpu_kinds(flags.gpu_kinds)
        # --gpu auto answers one unknown: a size it would not read, or a second unknown, is refused, not dropped
        if gib is not None or gb is not None:
            flag = "--gpu-gib" if gib is not None else "--gpu-gb"
            raise InputError(flag, "--gpu auto picks a catalog GPU, so a custom size would be ignored",
                             f"drop --gpu auto ({flag} alone plans that card), or drop {flag}")
        if is_auto_length(kw.get("max_model_len")):
            raise InputError("--gpu", "auto picks the GPU for a given length; with --max-model-len auto both would be "
                             "unknown", "give --max-model-len N with --gpu auto, or a GPU with --max-model-len auto "
                             "--concurrency N")
        if kw.pop("wsl2", False):  # (no engine argument: engine_args below would refuse it)
            raise InputError("--wsl2", "--gpu auto searches the catalog's native-Linux totals, not the WSL2 ones",
                             "name the GPU: --gpu NAME --wsl2 (its nvidia-smi total), or drop --wsl2")
        if concurrency is not None:
            raise InputError("--concurrency", "goes with --max-model-len auto (with --gpu auto it would be ignored)",
                             "drop --concurrency, or give a GPU with --max-model-len auto --concurrency N")
        spec = resolve_model(model, revision=revision)
        args = engine_args(**kw)
        cold, warm = gpu_and_tp_choices(spec, args, deployable=deployable, simulable=simulable, kinds=kinds)
        searched = gpu_kinds_words(kinds)
        if warm is None:  # (flags refused as input on every card are raised by the search itself)
            # the kinds searched, and the others that --gpu-kinds can add, where the search left some out
            among = f" (searched: {searched})" if searched else ""
            more = "search more kinds of card (--gpu-kinds all), " if searched else ""
            if args.tensor_parallel_size:
                raise InputError("--gpu", f"no catalog GPU at {auto_tp_scope(args)} fits this plan{among}",
                                 f"{more}drop --tensor-parallel-size (auto then tries 1, 2, 4 and 8), lower --max-model-len "
                                 "or use a quantized checkpoint")
            if auto_tp_cap(args) < 8:
                raise InputError("--gpu", f"no catalog GPU with {auto_tp_scope(args)} fits this plan{among}",
                                 f"{more}allow more GPUs (--num-gpus), lower --max-model-len or use a quantized checkpoint")
            raise InputError("--gpu", f"no catalog GPU with TP up to 8 fits this plan{among}",
                             f"{more}lower --max-model-len or use a quantized checkpoint")
        # a card whose first, compiling start would be refused is not chosen where a larger one starts cold too
        g, tp, _ = cold or warm
        kw["tensor_parallel_size"] = tp
        p = fit(spec, g, revision=revision, **kw)
        # scaffold's search passes over the cards it writes no files for (a Jetson Orin fit may name): its note says so
        among = "".join(f" {words}" for words, on in ((DEPLOYABLE_CARDS, deployable), (SIMULABLE_CARDS, simulable)) if on)
        # the kinds of card searched, and how to search others: a laptop or GeForce card is picked only where asked

        # the one TP searched where one was given: 'the smallest catalog GPU at TP 2 (--tensor-parallel-size) ...'
        what = (f"GPU at {auto_tp_scope(args)}" if args.tensor_parallel_size else "GPU x TP") + among
        if cold is None:
            note = (f"--gpu auto: the smallest catalog {what} that starts is {tp} x {g.name}, but its first, "
                    "compiling start may be refused (see the cold-start warning), as on every catalog "
                    f"{'GPU at' if args.tensor_parallel_size else 'GPU x'} {auto_tp_scope(args)} that starts")
        elif cold[:2] != warm[:2]:
            note = (f"--gpu auto: the smallest catalog {what} that starts, its first (compiling) start included, "
                    f"is {tp} x {g.name} ({warm[1]} x {warm[0].name} is smaller and starts warm, but its first start may "
                    "be refused)")
        else:
            note = f"--gpu auto: the smallest catalog {what} that starts is {tp} x {g.name}"
        if searched:  # the kinds of card searched, and how to search others: a laptop or GeForce card only where asked
            note += f"; searched: {searched} (--gpu-kinds all searches every kind)"
        return p, note
    want_auto_len = is_auto_length(kw.get("max_model_len"))
    if want_auto_len and concurrency is None:
        raise InputError("--max-model-len", "auto needs --concurrency N (how many full-length requests must fit)", "e.g. --max-model-len auto --concurrency 16")
    if concurrency is not None and not want_auto_len:
        raise InputError("--concurrency", "goes with --max-model-len auto", "e.g. --max-model-len auto --concurrency 16")
    if want_auto_len:
        kw["max_model_len"] = None
        base = fit(model, gpu, gpu_gib=gib, gpu_gb=gb, revision=revision, fixes=False, **kw)
        best = max_model_len_for_concurrency(base, concurrency)
        if not best:
            refused = refused_at_any_length(base)
            if refused is not None:  # not a question of length: the plan (exit 1) names vLLM's own refusal and its fixes
                shortest = refused.args.max_model_len
                kw["max_model_len"] = shortest
                p = fit(base.model, base.gpu, **kw)
                return _fixes_answered(p, base, concurrency), (
                    f"--max-model-len auto: no context length starts, not even {shortest:,} tokens; the refusal below "
                    f"is not the length's, and each fix says the longest context at which {concurrency:g} "
                    f"{'request fits' if concurrency == 1 else 'requests fit'} with it")
            raise InputError("--concurrency", f"even {base.block_size}-token requests (one block) do not reach {concurrency:g}x "
                             "concurrency", "lower --concurrency or change the GPU")
        kw["max_model_len"] = best
        p = fit(base.model, base.gpu, **kw)
        note = f"--max-model-len auto: {best:,} is the largest context at which {concurrency:g} full-length {'request fits' if concurrency == 1 else 'requests fit'}"
        if p.first_start_refused:  # the warm restart planned holds them; a first, compiling start may be refused there
            first = max_model_len_for_concurrency(base, concurrency, first_start=True)
            note += (f" (a first, compiling start needs --max-model-len {first:,} or less)" if first else
                     " (a first, compiling start may be refused at any length here: see the cold-start warning)")
        return p, note
    return fit(model, gpu, gpu_gib=gib, gpu_gb=gb, revision=revision, **kw), None


def _fixes_answered(p: Plan, base: Plan, concurrency: float) -> Plan:
    """`p` (planned at one block, where no length starts) with each fix that starts answered as --max-model-len auto
    --concurrency N asked: the longest context at which N requests fit with it (its effect at one block read '5447.00x
    concurrency at 16' for TP 2 of a 14B on two 3090s), and, as the question's own answer says, the longest at which a
    first, compiling start with it also holds them where that is shorter (max_model_len_for_concurrency first_start:
    the fix's cold-start flag was its plan's at one block, which said nothing of the length answered)."""
    fixes = []
    for f in p.fixes:
        best = first = None
        if f.fits:
            changes = dict(f.flags)
            try:
                if isinstance(changes.get("gpu"), str):
                    changes["gpu"] = find_gpu(changes["gpu"])
                if isinstance(changes.get("model"), str):
                    changes["model"] = resolve_model(changes["model"])
                q = replan(base, **changes)
                best = max_model_len_for_concurrency(q, concurrency)
                first = max_model_len_for_concurrency(q, concurrency, first_start=True) if best else None
            except InputError:
                best = None
        if not best:
            fixes.append(f)
            continue
        effect = (f"starts: with it, {best:,} is the longest context at which {concurrency:g} "
                  f"{'request fits' if concurrency == 1 else 'requests fit'}")
        if first == best:
            fixes.append(replace(f, effect=effect, first_start_refused=False, first_start_flags=None))
        elif first:
            fixes.append(replace(f, effect=effect + f" ({FIRST_START_NOTE} with it needs --max-model-len {first:,} or less)",
                                 first_start_refused=True, first_start_flags={**f.flags, "max_model_len": first}))
        else:
            fixes.append(replace(f, effect=effect + f"; {FIRST_START_NOTE} with it may be refused at any length (fit with "
                                 "these flags shows the cold-start warning)", first_start_refused=True, first_start_flags=None))
    return p.with_fixes(tuple(fixes))


def uncertainty_band_of(p):
    """The validated band `kvplan fit` shows beside a plan (kvplan.band.uncertainty_band), None where no residuals
    cover it."""
    from kvplan.band import uncertainty_band

    return uncertainty_band(p)


def _gib(b: float) -> str:
    return f"{b / 2**30:.2f}"


def _signed_gib(b: float) -> str:
    return f"{b / 2**30:+.2f} GiB"


def _after_warmup_loss(p: Plan) -> tuple[float, float, float, float, float]:
    """(what the extensible KV cache's pool is below the profile's capacity, the captured CUDA graphs in it, the budget
    the device cannot hold beside the margin, the margin, the rest: whole blocks) in bytes per rank; zeros where the
    pool is the profile's estimate. The pool is capacity - capture - max(0, requested + margin - init_free), in whole
    blocks (plan.extensible.measured_pool)."""
    pool = p.kv_pool
    if pool is None or p.kv_cache_capacity_bytes is None:
        return (0.0, 0.0, 0.0, 0.0, 0.0)
    lost = p.kv_cache_capacity_bytes - p.kv_cache_bytes
    capture = float(p.cudagraph_capture_bytes)
    short = device_shortfall_bytes(pool)
    return (lost, capture, short, float(pool["margin_bytes"]), lost - capture - short)


def release_changes(base: Plan, p: Plan) -> list[str]:
    """What moves the plan `p` from `base`, the same deployment planned under another vLLM release: each budget term
    that changed (the pool is requested - weights - non_torch - activation_peak - cudagraph, per rank), with the
    release default or rule behind it, then what changed in the pages (block size, bytes per token, pages a request
    reserves) and the engine (V0 / V1, model runner, CUDA-graph mode and sizes, a verdict). Terms that did not move
    are not named; the list's term deltas sum to the pool's (a residual would be named as such)."""
    if base.mode != "vllm" or p.mode != "vllm":
        return []
    out: list[str] = []
    a, b = base.args, p.args
    was, now = base.vllm_version, p.vllm_version
    tol = 0.005 * 2**30  # what rounds to 0.00 GiB in the table is not named

    def moved(x: float, y: float) -> bool:
        return abs(y - x) >= tol

    if moved(base.requested_bytes, p.requested_bytes):
        why = (f"gpu_memory_utilization {a.gpu_memory_utilization:g} -> {b.gpu_memory_utilization:g}"
               if a.gpu_memory_utilization != b.gpu_memory_utilization else "the GPU's total or its rounding")
        for plan, util in ((p, b.gpu_memory_utilization), (base, a.gpu_memory_utilization)):
            # 1.0 is the default of a release that sizes the pool after warmup (config/cache.py
            # CacheConfig.resolved_gpu_memory_utilization, 0.34.0), not a value the user chose
            if (a.gpu_memory_utilization != b.gpu_memory_utilization and plan.kv_pool is not None
                    and util == plan.rules.extensible_gpu_memory_utilization):
                why += f", {plan.vllm_version}'s default with its extensible KV cache"
        out.append(f"requested {_gib(base.requested_bytes)} -> {_gib(p.requested_bytes)} GiB "
                   f"({_signed_gib(p.requested_bytes - base.requested_bytes)} to the pool: {why})")
    deltas = p.requested_bytes - base.requested_bytes
    for name, attr in (("weights", "weights_bytes"), ("non-torch memory", "non_torch_bytes"),
                       ("activation peak", "activation_peak_bytes"), ("CUDA graphs in the budget", "cudagraph_bytes")):
        x, y = getattr(base, attr), getattr(p, attr)
        deltas -= y - x
        if not moved(x, y):
            continue
        why = ""
        formulas = [{t.name: t.formula for t in plan.terms}.get(attr[:-len("_bytes")]) for plan in (base, p)]
        if attr == "activation_peak_bytes":
            causes = [f"{f} {getattr(a, f):,} -> {getattr(b, f):,}" for f in ("max_num_batched_tokens", "max_num_seqs")
                      if getattr(a, f) != getattr(b, f)]
            if formulas[0] != formulas[1] and formulas[1]:
                causes.append(f"{was}: {formulas[0]}; {now}: {formulas[1]}")
            why = "; ".join(causes) or "the release's profile run (--explain names each term)"
        elif attr in ("non_torch_bytes", "weights_bytes") and formulas[1] and formulas[0] != formulas[1]:
            why = f"{was}: {formulas[0]}; {now}: {formulas[1]}"
        elif attr == "cudagraph_bytes":
            if (base.kv_pool is None) != (p.kv_pool is None):
                # the extensible KV cache estimates no CUDA graphs before the KV allocation: it measures the captured
                # pool after warmup (v1/worker/gpu/model_runner.py GPUModelRunner.profile_cudagraph_memory, 0.34.0)
                ext = p if p.kv_pool is not None else base
                why = (f"{ext.vllm_version}'s extensible KV cache makes no estimate before the KV allocation: the "
                       f"{_gib(ext.cudagraph_capture_bytes)} GiB captured is charged after warmup, in the pool's "
                       "sizing below")
            elif not base.rules.cudagraph_subtracted and p.rules.cudagraph_subtracted:
                why = (f"{now} subtracts its CUDA-graph estimate before sizing the pool; {was} captured "
                       f"{_gib(base.cudagraph_capture_bytes)} GiB after allocating it, beyond the budget")
            elif base.rules.cudagraph_subtracted and not p.rules.cudagraph_subtracted:
                why = f"{now} captures its CUDA graphs after sizing the pool, beyond the budget"
            else:
                why = "capture sizes or graph mode, below"
        elif attr == "weights_bytes":
            why = "how the release loads or counts this checkpoint (--explain names it)"
        else:
            why = "the release's accounting (--explain names it)"
        out.append(f"{name} {_gib(x)} -> {_gib(y)} GiB ({_signed_gib(x - y)} to the pool: {why})")
    residual = (p.kv_cache_bytes - base.kv_cache_bytes) - deltas
    # the extensible KV cache (vLLM >= 0.34) commits less than the budget's terms leave ('Available KV cache memory',
    # kv_cache_capacity_bytes): the captured CUDA graphs, what the device cannot hold beside a margin, whole blocks
    sized = [_after_warmup_loss(plan) for plan in (base, p)]
    to_pool = sized[0][0] - sized[1][0]
    if moved(0, to_pool):
        residual -= to_pool
        ext = p if p.kv_pool is not None else base
        _, capture, short, margin, rounding = sized[1] if ext is p else sized[0]
        parts = [f"the captured CUDA graphs {_gib(capture)} GiB"]
        if short >= tol:
            parts.append(f"{_gib(short)} GiB of the budget the device cannot hold with a {_gib(margin)} GiB margin free "
                         f"(requested {_gib(ext.kv_pool['requested_bytes'])} GiB + the margin > "
                         f"{_gib(ext.kv_pool['init_free_bytes'])} GiB free at startup)")
        if abs(rounding) >= tol:
            parts.append(f"{_gib(rounding)} GiB to whole blocks")
        both = base.kv_pool is not None and p.kv_pool is not None
        out.append(f"KV pool sized after warmup and CUDA-graph capture ({_signed_gib(to_pool)} to the pool: "
                   f"{ext.vllm_version}'s extensible KV cache" + (")" if both else
                   f" commits the profile's 'Available KV cache memory' {_gib(ext.kv_cache_capacity_bytes)} GiB less "
                   + ", ".join(parts) + ")"))
    if moved(0, residual):
        out.append(f"other budget terms {_signed_gib(residual)} to the pool (--explain names each)")
    if base.block_size != p.block_size:
        out.append(f"block size {base.block_size} -> {p.block_size} tokens")
    if base.kv_bytes_per_token != p.kv_bytes_per_token:
        out.append(f"KV bytes per token {base.kv_bytes_per_token:,.0f} -> {p.kv_bytes_per_token:,.0f}")
    pages = [next(((t.value, t.formula) for t in plan.terms if t.name == "blocks_per_request"), None) for plan in (base, p)]
    if None not in pages and pages[0][0] != pages[1][0]:
        out.append(f"pages a max_model_len request reserves {pages[0][0]:,} -> {pages[1][0]:,} blocks ({was}: "
                   f"{pages[0][1]}; {now}: {pages[1][1]})")
    ratios = [(b / a if a > 0 else None) for a, b in ((base.kv_cache_tokens, p.kv_cache_tokens),
                                                       (base.max_concurrency, p.max_concurrency))]
    if (base.rules.tokens_formula != p.rules.tokens_formula and all(ratios)
            and abs(ratios[0] / ratios[1] - 1) > 0.01):  # (a release whose pool holds no request has no count to compare)
        # the same pool logs another token count (from 0.2x, max_concurrency x max_model_len where window groups
        # share the blocks): a tokens column read as capacity across the two releases would mislead
        counts = [{t.name: t.formula for t in plan.terms}.get("kv_cache_tokens") for plan in (base, p)]
        out.append(f"'GPU KV cache size' tokens counted another way ({was}: {counts[0]}; {now}: {counts[1]}): "
                   f"{base.kv_cache_tokens:,} -> {p.kv_cache_tokens:,} tokens is not the capacity's change, "
                   f"concurrency {base.max_concurrency:.2f}x -> {p.max_concurrency:.2f}x is")
    if base.rules.engine != p.rules.engine or base.era != p.era:
        out.append(f"engine {base.rules.engine.upper()} (era {base.era}) -> {p.rules.engine.upper()} (era {p.era})")
    runners = [(plan.model_runner or {}).get("runner") for plan in (base, p)]
    if runners[0] != runners[1]:
        out.append(f"model runner {runners[0]} -> {runners[1]}")
    graphs = [plan.cudagraphs or {} for plan in (base, p)]
    if (graphs[0].get("mode"), graphs[0].get("num_capture_sizes")) != (graphs[1].get("mode"), graphs[1].get("num_capture_sizes")):
        out.append(f"CUDA graphs {graphs[0].get('mode')} x {graphs[0].get('num_capture_sizes')} sizes -> "
                   f"{graphs[1].get('mode')} x {graphs[1].get('num_capture_sizes')} sizes")
    drivers = [driver_requirement(plan.vllm_version) for plan in (base, p)]
    if drivers[0] != drivers[1]:
        out.append(f"default wheel CUDA {drivers[0][0]} -> {drivers[1][0]}: host driver >= {drivers[0][1]} -> >= "
                   f"{drivers[1][1]} (kvplan preflight checks it)")
    if base.fits != p.fits:
        out.append("starts under " + (now if p.fits else was) + ", not under " + (was if p.fits else now))
    return out


def parse_vary(specs: List[str]) -> list[tuple]:
    """`--vary` entries as (name, values) each, one group of the product: NAME=v1,v2 (or a doubling range a..b of
    max_model_len or tensor_parallel_size). A paired entry NAME1,NAME2=a1:a2,b1:b2 varies its flags together, one row
    per tuple (--vary gpu,tensor_parallel_size=L4:4,L40S:2,H100:1 plans 4 x L4, 2 x L40S and 1 x H100, not the nine
    combinations), and is the group ((NAME1, NAME2), [(a1, a2), (b1, b2)]). Rows are the product of the groups
    (vary_settings); at most two groups, each flag in one of them."""
    out: list[tuple] = []
    seen: list[str] = []
    for spec in specs:
        names_part, _, values = spec.partition("=")
        if "," in names_part:
            group = _parse_paired(names_part, values, spec)
            names = list(group[0])
        else:
            group = _parse_one(names_part, values, spec)
            names = [group[0]]
        for name in names:
            if name in seen:  # one row per combination: a second entry would overwrite the first
                raise InputError("--vary", f"{name} is varied twice",
                                 f"give all its values in one entry, e.g. {name}=a,b,c, or pair it with another flag "
                                 f"in one entry, e.g. gpu,tensor_parallel_size=L4:4,H100:1")
            seen.append(name)
        out.append(group)
    if len(out) > 2:
        raise InputError("--vary", "at most two parameters at once", "vary one or two of " + ", ".join(SWEEPABLE)
                         + ", or pair flags in one entry (gpu,tensor_parallel_size=L4:4,H100:1)")
    return out


def _vary_name(raw: str) -> str:
    name = raw.strip().replace("-", "_").lstrip("_")
    if name not in SWEEPABLE:
        raise InputError("--vary", f"cannot vary {name!r}", f"one of {', '.join(SWEEPABLE)} (e.g. --vary max_model_len=2048,4096)")
    return name


def _vary_value(name: str, v, spec: str):
    """One --vary value as its flag reads it: a length (4096, 32k), a count, a fraction, else the text."""
    conv = {"max_model_len": parse_max_model_len, "tensor_parallel_size": int, "gpu_memory_utilization": float,
            "max_loras": int, "max_lora_rank": int, "max_num_seqs": int, "block_size": int,
            "long_prefill_token_threshold": int, **{switch: _switch_value for switch in _SWITCHES}}.get(name, str)
    if name == "vllm_version":  # as --vllm-version reads it: a number vLLM never published is refused, not planned
        try:
            refuse_unpublished_version(v)
        except InputError as exc:
            raise InputError("--vary", f"vllm_version={v}: {exc.message}", exc.fix) from None
    try:
        return conv(v) if isinstance(v, str) else v
    except (ValueError, InputError):
        raise InputError("--vary", f"bad value in {spec!r}", f"{name} takes {'lengths such as 4096 or 32k' if name == 'max_model_len' else conv.__name__ + ' values'}") from None


_VARY_QUOTING = ("a value holding ',' or ':' in quotes (gpu,model=H100:\"/ckpt/qwen:8b\") or each such character "
                 "after a backslash (/ckpt/qwen\\:8b)")


def _vary_fields(values: str, spec: str, paired: bool) -> list[list[tuple[str, bool]]]:
    """The values of one --vary entry, split on ',' (between values or tuples) and, when `paired`, on ':' (between a
    tuple's values): a list per value or tuple of (text, quoted). A value in double or single quotes is taken as it
    stands (its ',', ':' and '..' included), and a backslash before ',', ':', a quote or a backslash keeps that one
    character (other backslashes, as in a Windows path, stay as they are); values are stripped of surrounding
    spaces, and an empty value or tuple (a trailing ',') is dropped."""
    out: list[list[tuple[str, bool]]] = []
    tup: list[tuple[str, bool]] = []
    buf: list[str] = []
    quoted = False
    i, n = 0, len(values)

    def end_field() -> None:
        nonlocal buf, quoted
        tup.append(("".join(buf) if quoted else "".join(buf).strip(), quoted))
        buf, quoted = [], False

    while i < n:
        c = values[i]
        if c == "\\" and i + 1 < n and values[i + 1] in ",:\"'\\":
            buf.append(values[i + 1])
            i += 2
            continue
        if c in "\"'" and not quoted and not "".join(buf).strip():
            close = values.find(c, i + 1)
            if close < 0:
                raise InputError("--vary", f"an unclosed {c} in {spec!r}", f"close the quote: {_VARY_QUOTING}")
            buf, quoted = [values[i + 1:close]], True
            start, i = i, close + 1
            while i < n and values[i].isspace():
                i += 1
            if i < n and values[i] not in (",:" if paired else ","):
                raise InputError("--vary", f"text after the quoted value {values[start:close + 1]} in {spec!r}",
                                 f"quote the whole value: {_VARY_QUOTING}")
            continue
        if c == "," or (c == ":" and paired):
            end_field()
            if c == ",":
                if any(text or q for text, q in tup):
                    out.append(tup)
                tup = []
        else:
            buf.append(c)
        i += 1
    end_field()
    if any(text or q for text, q in tup):
        out.append(tup)
    return out


def _parse_one(raw_name: str, values: str, spec: str) -> tuple[str, list]:
    """NAME=v1,v2,... (or a..b, doubling) as (name, values); a value may be quoted or escaped (_vary_fields)."""
    name = _vary_name(raw_name)
    given = [t[0] for t in _vary_fields(values, spec, paired=False)]
    vals = [v for v, _ in given]
    if not vals:
        raise InputError("--vary", f"no values for {name}", f"e.g. --vary {name}=a,b,c")
    ranged = name in ("max_model_len", "tensor_parallel_size", "max_loras")
    dotted = any(".." in v and not q for v, q in given)  # a quoted value is a value, '..' and all
    if dotted and not ranged and name != "model":  # a model path may hold '..': it is a value
        # 'gpu_memory_utilization=0.8..0.95' was answered "gpu_memory_utilization takes float values"
        example = {"gpu_memory_utilization": "0.8,0.85,0.9,0.95"}.get(name, "a,b,c")
        raise InputError("--vary", f"a range (a..b, doubling) runs over max_model_len or tensor_parallel_size (or max_loras), not "
                         f"{name}", f"list its values: --vary {name}={example}")
    if dotted and ranged:
        try:
            lo, hi = (parse_max_model_len(x.strip()) if name == "max_model_len" else int(x) for x in values.split(".."))
        except (ValueError, InputError):
            raise InputError("--vary", f"bad range in {spec!r}", f"e.g. --vary {name}=1024..131072") from None
        if lo < 1 or hi < 1:
            raise InputError("--vary", f"a range runs over positive values, got {spec!r}", f"e.g. --vary {name}=1024..131072")
        # doubling from the first end to the second; a range written high..low runs downwards, halving
        vals = []
        v = lo
        while (v <= hi) if lo <= hi else (v >= hi):
            vals.append(v)
            v = v * 2 if lo <= hi else v // 2
    return name, [_vary_value(name, v, spec) for v in vals]


def _parse_paired(names_part: str, values: str, spec: str) -> tuple[tuple[str, ...], list[tuple]]:
    """NAME1,NAME2=a1:a2,b1:b2 as ((name1, name2), [(a1, a2), (b1, b2)]): one row per tuple."""
    names = tuple(_vary_name(n) for n in names_part.split(","))
    for i, n in enumerate(names):
        if n in names[:i]:
            raise InputError("--vary", f"{n} is named twice in {names_part.strip()!r}", "name each flag once")
    shown = ",".join(names)
    example = ":".join(f"<{n}>" for n in names)
    tuples = _vary_fields(values, spec, paired=True)
    if not tuples:
        raise InputError("--vary", f"no values for {shown}", f"one tuple per row, e.g. --vary {shown}={example},{example}")
    rows = []
    for tup in tuples:
        parts = [x for x, _ in tup]
        t = ":".join(parts)
        if len(parts) != len(names) or not all(parts):
            raise InputError("--vary", f"{t!r} gives {len([x for x in parts if x])} of the {len(names)} values of "
                             f"{shown}", f"one value per flag, separated by ':' ({_VARY_QUOTING}), e.g. --vary "
                             f"{shown}={example}")
        for n, (x, quoted) in zip(names, tup):
            if ".." in x and n != "model" and not quoted:
                raise InputError("--vary", f"a range ({x}) cannot be paired: {shown} takes one value per flag in "
                                 "each tuple", f"list the tuples, e.g. --vary {shown}={example}")
        rows.append(tuple(_vary_value(n, x, spec) for n, x in zip(names, parts)))
    return names, rows


def vary_names(varied: list[tuple]) -> list[str]:
    """The flags parse_vary's groups vary, in order (a paired group's names each)."""
    return [n for name, _ in varied for n in (name if isinstance(name, tuple) else (name,))]


def vary_setting(row: dict, names: Sequence[str], value=str) -> str:
    """A varied row named by its varied values, as the lines under a sweep or a comparison of deployments name it
    ('gpu=H100, tensor_parallel_size=2'); `value` writes each value (sweep's tables: a length as '8,192')."""
    return ", ".join(f"{n}={value(row[n])}" for n in names)


def vary_settings(varied: list[tuple]) -> list[dict]:
    """One {flag: value} per row: the product of parse_vary's groups, a paired group's tuples taken whole."""
    groups = [[dict(zip(name, t)) for t in vals] if isinstance(name, tuple) else [{name: v} for v in vals]
              for name, vals in varied]
    return [{k: v for part in combo for k, v in part.items()} for combo in itertools.product(*groups)]


def map_vary_values(varied: list[tuple], flag: str, fn) -> list[tuple]:
    """parse_vary's groups with `fn` applied to each value of `flag` (paired or not)."""
    out = []
    for name, vals in varied:
        if isinstance(name, tuple) and flag in name:
            i = name.index(flag)
            vals = [t[:i] + (fn(t[i]),) + t[i + 1:] for t in vals]
        elif name == flag:
            vals = [fn(v) for v in vals]
        out.append((name, vals))
    return out


def sweep_rows(model: Optional[str], flags: FitFlags, varied: list[tuple[str, list]], plans: Optional[list] = None) -> list[dict]:
    """One plan per combination of the varied values, planned as `fit` plans it (with fit's warnings, per row under
    "warnings", a refused row's reason under "error" and "failure", and each row's GPU and model's site calibration,
    api.site_offsets_for, under "site_calibration");
    bad combinations become rows with the error. `plans`, when given, collects the plans made (in row order, errors
    left out)."""
    from kvplan.resolve import answers_kept

    with answers_kept():  # the card --gpu names and the weights on a rank are the same in rows that vary neither
        return _sweep_rows(model, flags, varied, plans)


def _sweep_rows(model: Optional[str], flags: FitFlags, varied: list[tuple[str, list]], plans: Optional[list]) -> list[dict]:
    from kvplan.errors import HubError
    from kvplan.plan import site_calibration_dict

    if "max_model_len" not in vary_names(varied):
        refuse_auto_length(flags, "a sweep")
    kw, gpu_ref, gib, gb, revision = _engine_kwargs_and_gpu(flags)
    models = {}

    def get_model(ref):
        if ref not in models:
            models[ref] = resolve_model(ref, revision=revision)
        return models[ref]

    rows: list[dict] = []
    errors: list[InputError | HubError] = []
    by_release = "vllm_version" in vary_names(varied)
    baselines: dict[tuple, Plan] = {}  # over --vary vllm_version: each deployment's plan under its first release
    for setting in vary_settings(varied):
        args_kw = dict(kw)
        args_kw.update({k: v for k, v in setting.items() if k not in ("gpu", "model")})
        if str(setting.get("quantization", "")).lower() == "none":
            # --vary quantization=none,fp8: the checkpoint's own (no --quantization), the row a comparison needs;
            # refused as an unknown method whose fix, "drop --quantization", a sweep row cannot take
            args_kw["quantization"] = None
        row = dict(setting)
        gpu = setting.get("gpu", gpu_ref)
        size = {"gpu_gib": gib, "gpu_gb": gb} if gpu == gpu_ref else {}  # a custom size belongs to --gpu, not a varied one
        try:
            p = fit(get_model(setting.get("model", model)), gpu, fixes=False, **size, **args_kw)
        except (InputError, HubError) as exc:  # a varied model the Hub cannot supply is that row's error, as a GPU's is
            row["error_input"] = str(exc)
            rows.append(row)
            errors.append(exc)
            continue
        row.update({"fits": p.fits, "kv_cache_bytes": p.kv_cache_bytes, "kv_cache_tokens": p.kv_cache_tokens,
                    "max_concurrency": p.max_concurrency, "num_gpu_blocks": p.num_gpu_blocks, "weights_bytes": p.weights_bytes,
                    "model": setting.get("model", p.model.id), "gpu": setting.get("gpu", p.gpu.name),
                    # the total planned per GPU (under --wsl2 the card's WSL2 total, not the catalog's native one)
                    # and whether a first, compiling start may be refused where this warm plan starts
                    "gpu_total_bytes": p.total_bytes, "first_start_refused": p.first_start_refused,
                    "max_model_len": p.args.max_model_len, "gpu_memory_utilization": p.args.gpu_memory_utilization,
                    "kv_cache_dtype": p.args.kv_cache_dtype, "tensor_parallel_size": p.args.tensor_parallel_size,
                    "vllm_version": p.vllm_version, "warnings": [str(w) for w in p.warnings],
                    # why a row does not start (fit's error line): a refused row's "no" beside a pool and a
                    # concurrency above 1x (a hybrid's state blocks below max_num_seqs) said nothing of the reason
                    "failure": None if p.fits else p.failure, "error": None if p.fits else (p.error or p.failure),
                    "site_calibration": site_calibration_dict(p.site_offsets)})
        if by_release:  # what moved the pool from the same deployment's first release: every term and default named
            key = tuple(sorted((k, str(v)) for k, v in setting.items() if k != "vllm_version"))
            base = baselines.setdefault(key, p)
            row["release_changes"] = None if base is p else release_changes(base, p)
            row["compared_with"] = None if base is p else base.vllm_version
        rows.append(row)
        if plans is not None:
            plans.append(p)
    if rows and len(errors) == len(rows) and len({str(e) for e in errors}) == 1:
        raise errors[0]  # every row failed alike: the fixed flags are at fault, not a varied value
    add_ratios(rows)
    return rows


def add_ratios(rows: list[dict]) -> None:
    """Each planned row's "ratio": its concurrency over the first row's that planned with a pool (sweep's ratio
    column, which --json lacked). An error row has no number, and a row whose pool holds no request (a negative
    budget's 0x) is no base a ratio can be taken against; None where no row is."""
    planned = [r for r in rows if not r.get("error_input") and r["max_concurrency"] > 0]
    base = planned[0]["max_concurrency"] if planned else 0
    for r in rows:
        if not r.get("error_input"):
            r["ratio"] = r["max_concurrency"] / base if base else None


__all__ = ["fit", "replan", "compute_fixes", "largest_max_model_len", "max_model_len_for_concurrency",
           "smallest_utilization", "smallest_gpu", "smallest_gpu_and_tp", "gpu_and_tp_choices", "GPU_KINDS", "AUTO_GPU_KINDS",
           "parse_gpu_kinds", "engine_args", "rules_for", "site_offsets_for",
           "FitFlags", "FitParam", "FIT_PARAMS", "GPU_HELP", "CAPACITY_REQUESTS", "refuse_unpublished_version", "refuse_auto_length", "SWEEPABLE",
           "plan_from_flags_and_inverse", "uncertainty_band_of", "parse_vary", "vary_names", "vary_settings",
           "map_vary_values", "sweep_rows", "release_changes", "DEPLOYABLE_CARDS", "SIMULABLE_CARDS"]
