"""vLLM's async scheduling (--[no-]async-scheduling): whether the engine schedules step s+1 while step s runs.

vLLM resolves SchedulerConfig.async_scheduling in VllmConfig.__post_init__ (config/vllm.py, 0.11.1-0.34.0 wheels;
EngineArgs.create_engine_config in engine/arg_utils.py up to 0.11.0). Given on, a combination the release does not
run with it is refused; left unset, the release's default applies: off up to 0.13, and from 0.14 on unless such a
combination (or a pooling model, from 0.20) keeps it off with a warning. The limits are the versions rows
async_scheduling_* (pipeline parallelism, speculative methods, the model runner they apply to, Mamba prefix caching).

What the resolved value moves: from 0.26 the tokens a sliding-window / chunked-local request may hold beyond its window
(VllmConfig.max_in_flight_tokens = max_concurrent_batches x max_num_batched_tokens: 2 at PP 1 with async on model
runner v1, pp + 1 on v2, else pp; plan.kv.window_extra_tokens), and the simulator's one-step scheduling lag
(simulate.SchedulerRules.async_scheduling). The planner keeps it in EngineArgs.async_scheduling_resolved."""

from __future__ import annotations

from kvplan.errors import RefusedByVLLMError
from kvplan.plan.args import EngineArgs, _speculative_method, speculative_object
from kvplan.resolve import ModelSpec
from kvplan.versions import VersionRules

FLAG = "--async-scheduling"
FIX = "drop --async-scheduling (or give --no-async-scheduling)"


def _method(args: EngineArgs) -> str | None:
    obj = speculative_object(args.speculative_config)
    if obj is None:
        return None
    method = _speculative_method(obj)
    return "mtp" if method.endswith("mtp") else method


def async_limit(model: ModelSpec, args: EngineArgs, rules: VersionRules, runner: str) -> tuple[str, str] | None:
    """(what keeps async scheduling from running in this combination at this release, in vLLM's words; the change that
    lifts it), or None."""
    from kvplan.plan.kv import prefix_caching_on

    scope = rules.async_scheduling_limits_runner
    limited = scope == "any" or (scope == "v1" and runner != "v2")
    if limited and (args.pipeline_parallel_size or 1) > 1 and not rules.async_scheduling_pp:
        return "pipeline parallelism (--pipeline-parallel-size > 1)", "--pipeline-parallel-size 1"
    method = _method(args)
    allowed = rules.async_scheduling_spec_methods
    if limited and method is not None and allowed != "*":
        if method not in allowed:
            return ((f"{method}-based speculative decoding", f"a speculative method it runs with ({', '.join(allowed)})")
                    if allowed else ("speculative decoding", "no --speculative-config"))
        obj = speculative_object(args.speculative_config) or {}
        if obj.get("disable_padded_drafter_batch"):
            return "disable_padded_drafter_batch=True", "disable_padded_drafter_batch false in --speculative-config"
    if (not rules.async_scheduling_mamba_prefix and "recurrent" in model.cache_kinds
            and rules.mamba_cache_mode != "none" and prefix_caching_on(args, rules, hybrid=True)):
        return "prefix caching for Mamba models", "--no-enable-prefix-caching"
    return None


def resolve_async_scheduling(model: ModelSpec, args: EngineArgs, rules: VersionRules, runner: str,
                             warns: list[str], refuse: bool = True) -> bool:
    """The async_scheduling vLLM runs with: the flag where given (refused where the release does not run it, when
    `refuse`: the release is the one run, not a versionless record's era), else the release's default. A default kept
    off by a limit is said in `warns`, as vLLM logs it."""
    if rules.engine != "v1":  # V0 has no async scheduler; the flag (0.10.x) builds a V1 engine's config only
        return bool(args.async_scheduling)
    found = async_limit(model, args, rules, runner)
    limit = found[0] if found else None
    if args.async_scheduling:
        if found and refuse:
            raise RefusedByVLLMError(FLAG, f"vLLM {rules.version} does not run async scheduling with {limit} and refuses "
                                     f"to start", f"{FIX}, or give {found[1]}", rule="async scheduling with " + limit)
        return True
    if args.async_scheduling is False or rules.async_scheduling_default == "off":
        return False
    if (args.runner_type == "pooling" or model.is_pooling) and not rules.async_scheduling_pooling_default:
        return False  # (vLLM logs it at debug level only)
    if limit:
        warns.append(f"async scheduling is off: vLLM {rules.version} turns it on by default but not with {limit} "
                     "(\"Async scheduling ... will be disabled\")")
        return False
    return True
