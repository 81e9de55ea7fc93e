"""What a vLLM server does with a workload: paged admission, continuous batching, latency.

A discrete-event simulator at engine-step granularity, mirroring vLLM V1's scheduler
(vllm/v1/core/sched/scheduler.py::Scheduler.schedule and
vllm/v1/core/kv_cache_manager.py::KVCacheManager.allocate_slots @0.19; summarised in
shared/docs/vllm-memory-model.md section 6 and simulation-notes.md section 2):

* every step has a token budget (max_num_batched_tokens) and a sequence cap (max_num_seqs);
* RUNNING requests are served first, in running order: a decoding request takes 1 token,
  a partially prefilled one min(remaining, long_prefill_token_threshold, budget left), the threshold where the
  release applies it (`SchedulerRules.long_prefill_needs_chunked` / `long_prefill_needs_company`), floored at
  max_num_batched_tokens // requests running or waiting with --long-prefill-token-threshold-adaptive (0.31+,
  `SchedulerRules.long_prefill_adaptive`);
* KV is allocated incrementally in block_size units from `num_gpu_blocks - 1` usable blocks
  (block 0 is the null block, vllm/v1/core/block_pool.py); when a running request cannot
  get a block, the LAST running request is preempted (recompute: its blocks are freed, it
  goes to the FRONT of WAITING and later re-prefills prompt + generated tokens);
* only if nothing was preempted this step are WAITING requests admitted, FCFS, while budget
  and sequence slots remain; admission stops at the first request that cannot be allocated.
  From 0.19 the whole prompt must fit (`scheduler_reserve_full_isl`), before only its first
  chunk. With chunked prefill off (the plan's setting: --no-enable-chunked-prefill from 0.11.1, a
  pooling model's default) a prompt is admitted only if it fits the step's budget left whole; one
  that does not is set aside up to 0.11 (later ones may go ahead), from 0.12 admission stops there;
* optional prefix caching: full hashed prefix blocks are shared and reused; freed blocks go to the
  tail of one free queue (cached ones keep their hash and count as free), allocation pops its head,
  evicting what it pops (LRU, `_PrefixCache`); a request's blocks are freed last block first, and a
  preempted request's full blocks (generated tokens included) stay cached, so on resumption it hits
  what has not been evicted. A workload without block hashes still gets these own-block hits;
* per-request blocks are exact per KV group (section 3.4): full attention grows one block per
  block_size tokens, sliding-window and chunked-local groups grow likewise until their cap
  (vLLM frees out-of-window blocks), recurrent state is a fixed count (`EngineConfig`);
* async scheduling (default from 0.14, `SchedulerRules.async_scheduling`; a plan's --[no-]async-scheduling as resolved): while the engine is busy, the step
  that starts at t was scheduled when the previous step started, so it sees arrivals up to then and still
  counts the requests that finished in the previous step (their slots and blocks are freed one step later);
  `first_scheduled_s` is that schedule() call, as vLLM's `scheduled_ts`. An idle engine schedules at once.
  What it saves, the host time of a step overlapped with the previous step's GPU forward, is not in the step model
  (`async_scheduling_note`, ASYNC_OVERLAP_CHECK: the data at hand do not size it), and simulate says so.

Speed: per-request state lives in flat lists, decoding requests are an aggregate (a decode
clock, a heap of finish clocks, a histogram of block-boundary phases weighted by the blocks each
decoder adds at a boundary), and runs of pure-decode steps where nothing can change are skipped
in one arithmetic jump (closed-form step-time sum, block need per phase). With windowed groups a
decoder's weight drops when a group reaches its cap: one heap event per group per request, and
jumps stop there; full-attention-only models have no such events. A step model with window layers
keeps the decoders' contexts sorted (less the decode clock), so each reads min(its context, window)
and jumps stop where the longest one still below a window reaches it. One million Azure-conversation
requests take well under a minute.

Data parallel (`simulate_replicas`): independent replicas behind a router, or, with `lockstep=True`,
the data-parallel ranks of a MoE model, which vLLM steps together (each group step lasts as long as the
slowest rank's; idle ranks run dummy batches), routed by vLLM's DP balancer ('vllm-dp': lowest
4 x waiting + running, on the counts its coordinator published at most 100 ms before plus the requests routed
since, `_DPBalancerView`). `max_num_seqs`, `max_num_batched_tokens` and the KV pool are per rank.

Step time: a per-step roofline (`StepModel`), coefficients in `StepCoefficients`, each
documented with the data it was fitted on.
"""

from __future__ import annotations

import bisect
import heapq
import math
import re
import time as _time
from collections import OrderedDict, deque
from dataclasses import asdict, dataclass, field, is_dataclass, replace
from typing import Callable, Optional, Sequence

import numpy as np

from kvplan.errors import InputError, RefusedByVLLMError
from kvplan.workload import Workload, fleet_workload, lowest_simulated_rate, recorded_arrivals, with_rate

# =====================================================================================
# Scheduler rules per vLLM version (data, not scattered ifs)
# =====================================================================================


@dataclass(frozen=True)
class SchedulerRules:
    """The scheduling behaviour of one vLLM era."""

    version: str
    engine: str  # "v1" or "v0"
    admit_whole_prompt: bool  # >= 0.19 and V0: the whole prompt must fit at admission
    mixed_batches: bool  # V1: prefill chunks and decodes share a step; V0 default: prefill-only steps
    # V1: on unless the plan turned it off (`serving_setup`: Plan.chunked_prefill, --no-enable-chunked-prefill where
    # the release takes it, from 0.11.1, or a pooling model's default); without it a WAITING request is admitted only
    # if its (threshold-capped) prompt fits what is left of the step's token budget
    chunked_prefill: bool
    watermark_fraction: float  # V0: 0.01 of the blocks kept free at admission; V1: none (0.0)
    skip_admission_after_preemption: bool  # V1: no WAITING request is considered in a step that preempted
    source: str
    # V1 async scheduling (default on from 0.14.0: vllm/config/vllm.py `async_scheduling is None` -> True for the
    # mp/uni executors, config/scheduler.py `Field(default=None)` in the 0.14.0 wheel, False in 0.13.0's; versions row
    # async_scheduling_default; serving_setup takes a plan's resolved flag instead, plan.serve_flags; AsyncScheduler + EngineCore.step_with_batch_queue with 2 batches in flight, PR #27614): step s+1 is
    # scheduled while step s runs, from the state after step s-1's output. So a request that arrives while the
    # engine is busy joins one step later than without it, and a finished request holds its slot and blocks for one
    # more scheduling decision (it is removed when step s-1's output is processed, after step s+1 was scheduled;
    # the scheduler does not give it a token past max_tokens). First-token and finish times are unchanged.
    async_scheduling: bool = False
    # Data-parallel ranks (lockstep MoE) pad their batches to the largest rank's (vllm/v1/worker/dp_utils.py): on every
    # step unless eager ("every_step", before 0.16), or only on steps where every rank runs a CUDA graph
    # ("graph_steps": vLLM PR #34102, merged in February 2026 between 0.15.1 and 0.16.0, by its date; not read in a
    # wheel). The padded tokens go through the expert layers like real ones. V0 has no data-parallel engine. The
    # "every_step" row starts with V1 (0.8); the first release that padded at all was not read.
    dp_padding: str = "none"
    # V1 without chunked prefill, a WAITING request whose prompt does not fit the budget left: "skip" (set aside for
    # this step, later ones may still be admitted: vllm/v1/core/sched/scheduler.py Scheduler.schedule
    # `skipped_waiting_requests.prepend_request(request); continue`, 0.10.2, 0.11.0 and 0.11.1 wheels) or "stop"
    # (`break`: no later request is admitted this step; 0.12.0, 0.13.0 and 0.34.0 wheels). 0.11.2 was not read.
    unchunked_oversize: str = "stop"
    # Where long_prefill_token_threshold caps a request's prefill chunk (vllm/v1/core/sched/scheduler.py
    # Scheduler.schedule). V1 0.8-0.30: every request, RUNNING or WAITING, chunked prefill or not (the 0.10.0, 0.10.1,
    # 0.10.2, 0.20.0, 0.25.0, 0.29.0 and 0.30.0 wheels read scheduler_config.long_prefill_token_threshold at both
    # caps, unconditionally). From 0.31.0 schedule() takes a local `long_prefill_token_threshold` that is 0 unless
    # `num_eligible_reqs > 1` (len(running) + len(waiting) + len(kv_holding_waiting) when schedule() starts, from
    # get_request_counts: a lone request is not capped; 0.31.0, 0.32.0 and 0.33.0 wheels), and from 0.34.0 also 0
    # unless `scheduler_config.enable_chunked_prefill` (0.34.0 wheel). `long_prefill_needs_chunked`: the cap applies
    # only with chunked prefill (V0 too: vllm/core/scheduler.py@0.7.3 `_get_num_new_uncached_and_cached_tokens`
    # caps partial prefills under `enable_chunking` only); `long_prefill_needs_company`: only when more than one
    # request is running or waiting.
    long_prefill_needs_chunked: bool = False
    long_prefill_needs_company: bool = False
    # Whether the release has SchedulerConfig.long_prefill_token_threshold_adaptive (vllm serve
    # --[no-]long-prefill-token-threshold-adaptive, default off; absent from the 0.30.0 wheel, identical in the 0.31.0,
    # 0.32.0, 0.33.0 and 0.34.0 wheels). With it on, Scheduler.schedule floors a cap that applies in the step (after
    # the company / chunked-prefill gates above) at the input budget's fair share: max(threshold,
    # scheduler_config.max_num_batched_tokens // num_eligible_reqs), num_eligible_reqs the same running + waiting
    # count the company gate reads; one value per step, for RUNNING and WAITING requests alike. A threshold of 0 stays
    # 0 (no cap). Only `EngineConfig.long_prefill_token_threshold_adaptive` turns it on; releases without the flag
    # refuse it (serving_setup, versions.SERVE_FLAG_SINCE).
    long_prefill_adaptive: bool = False


# (first release, what changed there) — each row updates the rules of the rows before it. vLLM V1 became the
# default engine in 0.8.0 (vllm/envs.py VLLM_USE_V1 default flip), DP padding narrowed to CUDA-graph steps in 0.16
# (see `SchedulerRules.dp_padding`), the whole-prompt admission gate arrived in 0.19
# (`SchedulerConfig.scheduler_reserve_full_isl=True`), V0's BlockSpaceManager kept a 1 %
# watermark (vllm/core/block_manager.py@0.7.3) and scheduled prefills without decodes
# unless chunked prefill was enabled (vllm/core/scheduler.py@0.7.3 `_schedule_default`).
_RULE_STEPS: tuple[tuple[tuple[int, int, int], dict], ...] = (
    ((0, 0, 0), dict(engine="v0", admit_whole_prompt=True, mixed_batches=False, chunked_prefill=False,
                     watermark_fraction=0.01, skip_admission_after_preemption=False, long_prefill_needs_chunked=True,
                     source="vllm/core/scheduler.py@0.7.3 (V0 default scheduler)")),
    ((0, 8, 0), dict(engine="v1", admit_whole_prompt=False, mixed_batches=True, chunked_prefill=True,
                     watermark_fraction=0.0, skip_admission_after_preemption=True, dp_padding="every_step",
                     unchunked_oversize="skip", long_prefill_needs_chunked=False,
                     source="vllm/v1/core/sched/scheduler.py@0.8-0.18 (first chunk must fit)")),
    ((0, 12, 0), dict(unchunked_oversize="stop")),
    ((0, 14, 0), dict(async_scheduling=True)),
    ((0, 16, 0), dict(dp_padding="graph_steps")),
    ((0, 19, 0), dict(admit_whole_prompt=True,
                      source="vllm/v1/core/sched/scheduler.py@0.19 (scheduler_reserve_full_isl; async scheduling on)")),
    ((0, 31, 0), dict(long_prefill_needs_company=True, long_prefill_adaptive=True)),
    ((0, 34, 0), dict(long_prefill_needs_chunked=True)),
)


def scheduler_rules(version: Optional[str], engine: Optional[str] = None) -> SchedulerRules:
    """The rules of a vLLM version string ('0.19.0'); None = newest. `engine` "v0": a 0.8-0.10 release that runs
    the deployment on its V0 engine (a plan's `rules.engine`) schedules as V0 does."""
    from kvplan.versions import DEFAULT_RELEASE, parse_version

    text = version or DEFAULT_RELEASE
    release = tuple(parse_version(text))[:3]
    chosen: dict = {}
    for first, changes in _RULE_STEPS:
        if release >= first and not (engine == "v0" and chosen):  # a V0 engine keeps the first row's rules
            chosen.update(changes)
    return SchedulerRules(version=text, **chosen)


# =====================================================================================
# The plan the simulator consumes
# =====================================================================================


@dataclass(frozen=True)
class EngineConfig:
    """The scheduler's numbers, resolved from a plan or given by hand.

    Blocks one request holding n tokens takes, with k = ceil(n / block_size):
        fixed_blocks_per_seq + blocks_per_boundary * k + sum(min(k, cap) for cap in window_caps)
    `blocks_per_boundary` counts the KV groups that grow for ever (full attention, MLA);
    `window_caps` holds one entry per sliding-window or chunked-local group, the blocks it grows to
    before vLLM frees out-of-window blocks as fast as it allocates (`remove_skipped_blocks`);
    `fixed_blocks_per_seq` the recurrent state blocks plus the sliding-window groups' extra block
    (shared/docs/vllm-memory-model.md sections 3.4 and 6)."""

    num_gpu_blocks: int
    block_size: int
    max_num_seqs: int
    max_num_batched_tokens: int
    max_model_len: int
    # 0 = no per-request cap: vLLM's default in every release kvplan simulates. SchedulerConfig's field defaults to 0
    # (vllm/config.py 0.10.0; config/scheduler.py 0.10.1-0.34.0); up to 0.26 __post_init__ makes it
    # int(max_model_len * 0.04) when max_num_partial_prefills > 1 (0.10.0, 0.10.2, 0.20.0, 0.25.0, 0.26.0 wheels), which
    # only V0 runs (V1 refuses concurrent partial prefills, versions row long_prefill_threshold_checked) and which
    # kvplan does not take; 0.27.0 drops max_num_partial_prefills and that derivation.
    long_prefill_token_threshold: int = 0
    # vllm serve --long-prefill-token-threshold-adaptive (0.31+, default off in 0.31.0-0.34.0): floor the threshold
    # at max_num_batched_tokens // the requests running or waiting, where the release has it
    # (`SchedulerRules.long_prefill_adaptive`)
    long_prefill_token_threshold_adaptive: bool = False
    fixed_blocks_per_seq: int = 0  # hybrid models: recurrent state blocks held per sequence (+1 per sliding group)
    blocks_per_boundary: int = 1  # KV groups that grow by one block every block_size tokens, without limit
    enable_prefix_caching: bool = False
    blocks_note: str = ""
    window_caps: tuple[int, ...] = ()  # per windowed group: at most this many growing blocks
    cudagraph_max_tokens: int = 0  # the largest CUDA-graph capture size (0: eager), which bounds DP padding's steps
    # the CUDA-graph capture sizes, ascending (): eager, or not known): a step of at most the largest runs the graph of
    # the next size up, its linear layers, collectives and expert layers over the padded tokens (`graph_tokens`)
    cudagraph_sizes: tuple[int, ...] = ()
    # the longest max_model_len the model's config lets vLLM serve (resolve.context_limit; 0: not known, or raised with
    # VLLM_ALLOW_LONG_MAX_MODEL_LEN): a fix never names a longer one
    model_len_limit: int = 0

    def graph_tokens(self, tokens: int) -> int:
        """The tokens a step of `tokens` runs its forward pass over: vLLM 0.19 pads a step of at most the largest capture
        size up to the next size (vllm/v1/cudagraph_dispatcher.py CudagraphDispatcher._compute_bs_to_padded_graph_size
        and dispatch: FULL graphs for uniform decode batches, PIECEWISE for the others, both padded); a larger step runs
        eager, unpadded."""
        sizes = self.cudagraph_sizes
        if not sizes or tokens > sizes[-1] or tokens <= 0:
            return tokens
        return sizes[bisect.bisect_left(sizes, tokens)]

    @property
    def usable_blocks(self) -> int:
        return self.num_gpu_blocks - 1  # block 0 is the null block (vllm/v1/core/block_pool.py)

    def blocks_for(self, tokens: int) -> int:
        k = -(-tokens // self.block_size)
        b = self.fixed_blocks_per_seq + self.blocks_per_boundary * k
        for cap in self.window_caps:
            b += cap if k > cap else k
        return b

    def blocks_for_array(self, tokens: np.ndarray) -> np.ndarray:
        k = -(-np.asarray(tokens, dtype=np.int64) // self.block_size)
        b = self.fixed_blocks_per_seq + self.blocks_per_boundary * k
        for cap in self.window_caps:
            b = b + np.minimum(k, cap)
        return b


def _block_structure(blocks_for_tokens: Callable[[int], int], block_size: int, max_model_len: int) -> tuple[int, int, str]:
    """(fixed, per-boundary, note) so that blocks(n) = fixed + per_boundary * ceil(n / block_size).

    The fallback for a plan without KV groups: exact for full-attention and Mamba-hybrid models
    (fixed state blocks + full-attention groups); sliding-window groups (whose blocks stop growing at
    the window) are counted as if they grew, which over-counts their blocks; the note says so."""
    bs = block_size
    per = int(blocks_for_tokens(2 * bs + 1)) - int(blocks_for_tokens(2 * bs))
    fixed = int(blocks_for_tokens(bs)) - per
    probes = [1, bs, bs + 1, 5 * bs + 3, max(1, max_model_len // 2), max(1, max_model_len - 1)]
    exact = all(int(blocks_for_tokens(n)) == fixed + per * (-(-n // bs)) for n in probes)
    note = "" if exact else ("blocks_for_tokens is not fixed + k*ceil(n/block_size) (sliding-window groups?): "
                             "the simulator lets every group grow, over-counting window-capped blocks")
    return max(fixed, 0), max(per, 1), note


def _probe_lengths(bs: int, max_model_len: int, caps: Sequence[int]) -> list[int]:
    """Token counts where a block structure can go wrong: block edges, each cap's edge, the ends."""
    ns = {1, bs - 1, bs, bs + 1, 2 * bs, 2 * bs + 1, 5 * bs + 3, max_model_len // 2, max_model_len - 1, max_model_len}
    for cap in caps:
        for d in (-bs - 1, -bs, -bs + 1, -1, 0, 1, bs - 1, bs, bs + 1):
            ns.add(cap * bs + d)
    return sorted(n for n in ns if 1 <= n <= max_model_len)


def _plan_block_structure(plan, block_size: int, max_model_len: int,
                          window_caps: bool = True) -> tuple[int, int, tuple[int, ...], str]:
    """(fixed, per-boundary, window caps, note) from the plan's KV groups (see `EngineConfig`).

    Each group's own block count comes from the plan (`plan.blocks_for_tokens` of a plan holding
    that group alone, i.e. `kvplan.plan.kv._group_blocks`): a constant `off` plus growth that is at most
    one block per block_size tokens, up to `cap` blocks. A group whose cap is not reached within
    max_model_len counts as growing for ever, so full-attention-only models keep blocks_per_boundary
    (and the simulator's fast path) unchanged. `window_caps=False` lets windowed groups grow
    like full attention (the earlier over-count; for comparisons)."""
    bs = block_size
    groups = tuple(getattr(plan, "groups", None) or ())
    if not groups or not is_dataclass(plan):
        fixed, per, note = _block_structure(plan.blocks_for_tokens, bs, max_model_len)
        return fixed, per, (), note
    k_max = -(-max_model_len // bs)
    fixed = per = 0
    caps: list[int] = []
    inexact: list[str] = []
    for grp in groups:
        one = replace(plan, groups=(grp,))
        off = int(one.blocks_for_tokens(0))
        cap = int(one.blocks_for_tokens(max_model_len)) - off
        fixed += off
        if cap <= 0:
            continue  # recurrent state: a fixed count
        if not all(int(one.blocks_for_tokens(n)) == off + min(-(-n // bs), cap) for n in _probe_lengths(bs, max_model_len, (cap,))):
            # e.g. a group whose block size is a multiple of the primary one: min(ceil(n/bs), cap) bounds it from above
            inexact.append(f"{grp.kind} (block size {grp.block_size})")
        if cap >= k_max or not window_caps:
            per += 1
        else:
            caps.append(cap)
    note = ""
    if inexact:
        note = (f"KV groups {', '.join(inexact)} do not grow one block per {bs} tokens: the simulator charges "
                f"them as if they did (an upper bound on their blocks)")
    return fixed, per, tuple(sorted(caps)), note


def engine_config_from_plan(plan, num_gpu_blocks: Optional[int] = None, enable_prefix_caching: bool = False,
                            long_prefill_token_threshold: int = 0, *, window_caps: bool = True,
                            long_prefill_token_threshold_adaptive: bool = False) -> EngineConfig:
    """Read the scheduler numbers off a `kvplan.Plan` (or anything with the same attributes).
    Sliding-window and chunked-local KV groups stop growing at their cap (`window_caps=False`: they
    grow like full attention, over-counting their blocks; for comparisons)."""
    from kvplan.plan import cudagraph_capture_sizes

    args = plan.args
    max_model_len = int(args.max_model_len)
    fixed, per, caps, note = _plan_block_structure(plan, int(plan.block_size), max_model_len, window_caps)
    mnbt = int(args.max_num_batched_tokens or 0) or max(max_model_len, 2048)
    # the capture sizes the plan's release captures (plan.cudagraph_plan: its ceiling, max_num_batched_tokens and
    # uniform decode sizes, the speculative-decoding rounding); a plan without them (the seed's arithmetic, a stand-in
    # object) takes the grid every release shares
    graphs = getattr(plan, "cudagraphs", None)
    if not args.captures_cuda_graphs:
        sizes = ()
    elif graphs and graphs.get("prefill_capture_sizes") is not None:
        # 0.34+: the target's own graphs, its prefill sizes and its n x q uniform-decode ones; vLLM's recorded
        # capture_sizes also hold the drafter's one-token decode sizes, which no target step runs at
        q = int(graphs.get("decode_query_len") or 1)
        decode = (graphs.get("decode_capture_tokens")  # several query lengths (dynamic speculative decoding's tiers)
                  or [int(n) * q for n in graphs.get("decode_capture_requests") or ()])
        sizes = tuple(sorted({int(s) for s in graphs["prefill_capture_sizes"]} | {int(t) for t in decode}))
    elif graphs and graphs.get("capture_sizes"):
        sizes = tuple(sorted(int(s) for s in graphs["capture_sizes"]))
    else:
        sizes = tuple(cudagraph_capture_sizes(int(args.max_num_seqs), mnbt))
    return EngineConfig(
        num_gpu_blocks=int(num_gpu_blocks if num_gpu_blocks is not None else plan.num_gpu_blocks),
        block_size=int(plan.block_size), max_num_seqs=int(args.max_num_seqs), max_num_batched_tokens=mnbt,
        max_model_len=max_model_len, long_prefill_token_threshold=long_prefill_token_threshold,
        long_prefill_token_threshold_adaptive=long_prefill_token_threshold_adaptive, fixed_blocks_per_seq=fixed, blocks_per_boundary=per, enable_prefix_caching=enable_prefix_caching,
        blocks_note=note, window_caps=caps, cudagraph_max_tokens=max(sizes, default=0), cudagraph_sizes=sizes,
        model_len_limit=_model_len_limit(plan))


def _model_len_limit(plan) -> int:
    """The plan's model's length limit in its release (0 where the plan lifts it or is not a kvplan.Plan)."""
    from kvplan.resolve import context_limit

    args, model, rules = plan.args, getattr(plan, "model", None), getattr(plan, "rules", None)
    if model is None or rules is None or args.allow_long_max_model_len or args.env_on("VLLM_ALLOW_LONG_MAX_MODEL_LEN"):
        return 0
    try:
        limit = context_limit(model, rules)
    except (AttributeError, TypeError, ValueError):
        return 0
    return int(limit.tokens) if limit.stated else 0



def check_partial_prefills(plan, max_num: Optional[int], max_long: Optional[int]) -> None:
    """--max-num-partial-prefills / --max-long-partial-prefills (None: not given) as the plan's release takes them:
    refused where its vllm serve has no such flag (0.7.3-0.26.x: versions.SERVE_FLAG_SINCE / SERVE_FLAG_UNTIL) or
    below 1; their default 1 changes nothing; any other value is refused, as vLLM refuses it (0.11.0 stops, 0.11.1-0.26
    raise: versions row concurrent_partial_prefills) or, where V0 runs concurrent partial prefills (0.7.3-0.10.x), as
    a scheduler kvplan does not simulate."""
    from kvplan.errors import InputError
    from kvplan.versions import check_serve_flags

    given = {"--max-num-partial-prefills": max_num, "--max-long-partial-prefills": max_long}
    given = {flag: n for flag, n in given.items() if n is not None}
    if not given:
        return
    check_serve_flags(list(given), plan.vllm_version)
    for flag, n in given.items():
        if n < 1:
            raise InputError(flag, f"must be >= 1, got {n} (vLLM refuses it)", "1, the default, or leave it out")
    n_all, n_long = max_num or 1, max_long or 1
    if n_all == 1 and n_long == 1:
        return  # vLLM's default: one partial prefill at a time, which the simulator runs
    flag = "--max-num-partial-prefills" if n_all != 1 else "--max-long-partial-prefills"
    how = plan.rules.concurrent_partial_prefills
    if how == "v0_fallback" and plan.rules.engine == "v0":
        how = "v0"  # the plan runs V0 anyway (VLLM_USE_V1=0, another feature's fallback)
    if how in ("refused", "stops"):
        why = ("EngineArgs._check_feature_supported raises \"Concurrent Partial Prefill is not supported. We recommend to "
               "remove Concurrent Partial Prefill from your config.\"" if how == "refused" else
               "it falls back to the V0 engine for Concurrent Partial Prefill, which it no longer ships, and its API "
               "server asserts V1")
        raise RefusedByVLLMError(flag, f"{n_all if flag.startswith('--max-num') else n_long}: vLLM {plan.vllm_version} "
                                 f"refuses to start ({why})", f"leave {flag} out, or give 1",
                                 rule="concurrent partial prefills")
    if n_long > n_all:
        raise RefusedByVLLMError("--max-long-partial-prefills", f"{n_long} is above --max-num-partial-prefills {n_all}: "
                                 f"vLLM {plan.vllm_version} refuses to start (SchedulerConfig)",
                                 f"give at most {n_all}", rule="max_long_partial_prefills > max_num_partial_prefills")
    engine = ("its V0 engine" if how == "v0" else
              "its V0 engine (V1 falls back to V0 for \"Concurrent Partial Prefill\"; with VLLM_USE_V1=1 it refuses)")
    raise InputError(flag, f"vLLM {plan.vllm_version} runs concurrent partial prefills on {engine}, whose scheduler "
                     "kvplan does not simulate", f"leave {flag} out, or give 1, to simulate one partial prefill at a "
                     "time; --long-prefill-token-threshold N still caps each chunk")


def serving_setup(plan, num_gpu_blocks: Optional[int] = None, long_prefill_token_threshold: Optional[int] = None,
                  spec_acceptance: Optional["SpecAcceptance"] = None,
                  long_prefill_token_threshold_adaptive: Optional[bool] = None,
                  max_num_partial_prefills: Optional[int] = None,
                  max_long_partial_prefills: Optional[int] = None) -> tuple[EngineConfig, "StepModel", "SchedulerRules"]:
    """The engine, step model and scheduler rules of the server a plan describes, as `vllm serve` runs it with the
    plan's flags: prefix caching on where the flag or the version's default turns it on (`plan.prefix_caching_on`),
    the plan's warnings among the step model's notes, the release's scheduler rules. Every command that simulates a
    plan (kvplan simulate and capacity, the page's /api/simulate) builds its server here, so that one set of flags is
    one simulated server wherever it is asked. `spec_acceptance` (given: the drafter's acceptance) puts the plan's
    speculative decoding in the step model (`spec_decode_for`). `long_prefill_token_threshold` and
    `long_prefill_token_threshold_adaptive` (None: the plan's own, vllm serve's --long-prefill-token-threshold and
    --[no-]long-prefill-token-threshold-adaptive) set the scheduler's prefill chunk cap."""
    from kvplan.plan import prefix_caching_on

    if long_prefill_token_threshold is None:
        long_prefill_token_threshold = int(getattr(plan.args, "long_prefill_token_threshold", None) or 0)
    if long_prefill_token_threshold_adaptive is None:
        long_prefill_token_threshold_adaptive = getattr(plan.args, "long_prefill_token_threshold_adaptive", None)
    mml = int(plan.args.max_model_len)
    given_threshold, dropped = long_prefill_token_threshold, ()
    if long_prefill_token_threshold and getattr(plan.model, "is_encoder_decoder", False):
        # vLLM zeroes the threshold of an encoder-decoder model (Whisper) with chunked prefill ("Encoder-decoder models
        # do not support chunked prefill nor prefix caching; disabling both."): VllmConfig.__post_init__ in
        # config/__init__.py 0.10.2 and 0.11.0, SchedulerConfig.__post_init__ in config/scheduler.py 0.11.1, 0.26.0,
        # 0.27.0, 0.30.0-0.34.0 wheels, there before verify_max_model_len, so no threshold is refused either. kvplan
        # plans Whisper from 0.10.2, the first release that runs it on V1: every release it simulates does this.
        long_prefill_token_threshold = 0
        dropped = (f"--long-prefill-token-threshold {given_threshold} is set to 0 by vLLM for an encoder-decoder "
                   "model (no chunked prefill): no prefill is capped",)
    if long_prefill_token_threshold > mml and plan.rules.long_prefill_threshold_checked:
        # vLLM refuses to start (versions row long_prefill_threshold_checked: config/scheduler.py
        # SchedulerConfig.verify_max_model_len); earlier releases take it, a cap no prompt reaches
        raise RefusedByVLLMError(
            "--long-prefill-token-threshold", f"{long_prefill_token_threshold} is above max_model_len {mml:,}: vLLM "
            f"{plan.vllm_version} refuses to start (\"long_prefill_token_threshold ({long_prefill_token_threshold}) "
            f"cannot be greater than the max_model_len ({mml})\")", f"give at most {mml}, or 0 for no cap",
            rule="long_prefill_token_threshold > max_model_len")
    if long_prefill_token_threshold_adaptive is not None:
        # vllm serve's argparse has no --[no-]long-prefill-token-threshold-adaptive before 0.31.0 (SchedulerConfig
        # .long_prefill_token_threshold_adaptive: absent from the 0.30.0 wheel's engine/arg_utils.py, present in
        # 0.31.0's-0.34.0's): refused as fit and scaffold refuse a flag the release does not have
        from kvplan.versions import check_serve_flags

        check_serve_flags(["--" + ("" if long_prefill_token_threshold_adaptive else "no-")
                           + "long-prefill-token-threshold-adaptive"], plan.vllm_version)
    check_partial_prefills(plan, max_num_partial_prefills, max_long_partial_prefills)
    per_block, total = int(getattr(plan, "bytes_per_block", 0) or 0), int(getattr(plan.gpu, "total_bytes", 0) or 0)
    if num_gpu_blocks is not None and per_block > 0 and total > 0 and num_gpu_blocks * per_block > total:
        # a pool no GPU of this plan holds (a typo's extra zeros: 10**12 blocks, 196 PB on an L4) was simulated as given
        raise InputError("--num-gpu-blocks", f"{num_gpu_blocks:,} blocks x {per_block:,} B = "
                         f"{num_gpu_blocks * per_block / 2 ** 30:,.2f} GiB per rank, more than the whole "
                         f"{plan.gpu.name}'s {total / 2 ** 30:.2f} GiB",
                         f"give the pool vLLM logged for this GPU ('# GPU blocks' / 'GPU KV cache size'); at most "
                         f"{total // per_block:,} blocks of {per_block:,} B fit in it, the plan's pool is "
                         f"{plan.num_gpu_blocks:,}")
    pc = prefix_caching_on(plan.args, plan.rules, plan.model.is_hybrid)
    cfg = engine_config_from_plan(plan, num_gpu_blocks=num_gpu_blocks, enable_prefix_caching=pc,
                                  long_prefill_token_threshold=long_prefill_token_threshold,
                                  long_prefill_token_threshold_adaptive=bool(long_prefill_token_threshold_adaptive))
    sm = StepModel.from_plan(plan)
    if spec_acceptance is not None and spec_acceptance.given():
        sm = replace(sm, spec=spec_decode_for(plan, sm, spec_acceptance))
    notes = tuple(f"plan: {w}" for w in plan.warnings)  # what fit prints beside the verdict (a GPU variant picked, ...)
    notes += dropped
    if long_prefill_token_threshold_adaptive and not given_threshold:
        # vLLM takes it and floors nothing: "Only applies when long_prefill_token_threshold is nonzero"
        # (config/scheduler.py 0.31.0-0.34.0)
        notes += ("--long-prefill-token-threshold-adaptive changes nothing without --long-prefill-token-threshold N: "
                  "vLLM floors only a threshold that is set",)
    if num_gpu_blocks is not None and not plan.fits:
        # the pool is the user's, but the plan says this engine never gets that far: say so beside the figures
        notes += (f"the plan for these flags does not start ({plan.error}); the simulation uses the --num-gpu-blocks "
                  f"{num_gpu_blocks} given",)
    if notes:
        sm = replace(sm, notes=sm.notes + notes)
    rules = scheduler_rules(plan.vllm_version, plan.rules.engine)
    chunked = getattr(plan, "chunked_prefill", None)
    if rules.engine == "v1" and chunked is not None and chunked != rules.chunked_prefill:
        # the plan's resolved setting (--no-enable-chunked-prefill from 0.11.1, a pooling model's default), not the
        # engine's usual one; V0's chunked-prefill scheduling (mixed steps) is not modelled, so V0 keeps its rules
        rules = replace(rules, chunked_prefill=bool(chunked))
    elif rules.engine == "v0" and chunked:
        sm = replace(sm, notes=sm.notes + (v0_chunked_prefill_note(plan, cfg, rules),))
    async_on = getattr(plan.args, "async_scheduling_resolved", None)
    if rules.engine == "v1" and async_on is not None:
        # --[no-]async-scheduling as the plan resolved it (plan.serve_flags: the flag, or the release's default where a
        # setup keeps it off: PP up to 0.14, a speculative method it does not run, a pooling model from 0.20), said in
        # the rules' source ("... (first chunk must fit; async scheduling off)")
        src = rules.source.replace("; async scheduling on", "")
        said = f"async scheduling {'on' if async_on else 'off'}"
        src = f"{src[:-1]}; {said})" if src.endswith(")") else f"{src} ({said})"
        rules = replace(rules, async_scheduling=bool(async_on), source=src)
    return cfg, sm, rules


def v0_chunked_prefill_note(plan, cfg: EngineConfig, rules: SchedulerRules) -> str:
    """What a simulation of a V0 engine that runs chunked prefill leaves out. V0 then schedules with
    Scheduler._schedule_chunked_prefill (vllm/core/scheduler.py, 0.6.3-0.10.2): decodes first, then unfinished prefill
    chunks, then new prompts in chunks, in one step of at most max_num_batched_tokens (with partial-prefill limits from
    0.7); the simulator has only V0's default scheduler (`_RULE_STEPS`' first row: prefill-only steps of whole prompts,
    a budget of at least max_model_len), so the latencies are those of a server without chunked prefill."""
    limits = _StepLimits.of(cfg, rules)
    why = "given" if plan.args.enable_chunked_prefill else f"V0's default for max_model_len {cfg.max_model_len:,} > 32K"
    return (f"vLLM {rules.version} runs this deployment on its V0 engine with chunked prefill ({why}), whose mixed "
            f"prefill/decode steps of at most {cfg.max_num_batched_tokens:,} tokens are not modelled: the simulation "
            f"schedules it as V0 without chunked prefill (prefill-only steps of whole prompts, up to "
            f"{limits.budget_tokens:,} tokens a step), so its TTFT, TPOT and queueing are not this server's; the KV "
            f"pool is the plan's")

# =====================================================================================
# Step time: a calibrated roofline
# =====================================================================================


# ---- interconnects (data, not ifs): per-direction x16 link rates and how a GPU's catalog text maps to them
# PCI-SIG raw rates for x16 links after 128b/130b encoding: Gen3 8 GT/s -> 15.75 GB/s, Gen4 31.5, Gen5 63, Gen6 126.
PCIE_X16_BYTES_PER_S: dict[str, float] = {"3": 15.75e9, "4": 31.5e9, "5": 63e9, "6": 126e9}


def link_bytes_per_s(interconnect: Optional[str], has_nvlink: bool, coeffs: "StepCoefficients",
                     p2p: Optional[bool] = None) -> tuple[float, float, str]:
    """(achieved bytes/s, fixed cost per collective in s, description) of the link that carries tensor-parallel
    collectives between a GPU's peers, from the catalog's `interconnect` text ("PCIe 5.0 x16; no NVLink",
    "900 GB/s", ...). NVLink: `coeffs.nvlink_*`. PCIe: the link's rate x `coeffs.pcie_efficiency` (GPUDirect
    P2P, or unknown) or `coeffs.pcie_efficiency_no_p2p` (`p2p` False: GeForce cards)."""
    text = (interconnect or "").lower()
    if has_nvlink or ("pcie" not in text and text):
        return coeffs.nvlink_bytes_per_s, coeffs.allreduce_latency_s, "NVLink"
    if "infinity fabric" in text or "xgmi" in text:
        # AMD Instinct peer links (MI300X: 7 x 128 GB/s bidirectional, 896 GB/s aggregate, AMD's data sheet) are
        # a GPU fabric of NVLink's class, not the PCIe slot the text also names. No RCCL run was measured here:
        # the NVLink coefficients stand in.
        return coeffs.nvlink_bytes_per_s, coeffs.allreduce_latency_s, "Infinity Fabric (NVLink-class coefficients)"
    m = re.search(r"pcie\s*(?:gen\s*)?(\d)", text)
    gen = m.group(1) if m and m.group(1) in PCIE_X16_BYTES_PER_S else "4"
    eff = coeffs.pcie_efficiency_no_p2p if p2p is False else coeffs.pcie_efficiency
    p2p_note = {False: ", no P2P", True: ", P2P", None: ", P2P assumed"}[p2p]
    return (PCIE_X16_BYTES_PER_S[gen] * eff, coeffs.pcie_latency_s,
            f"PCIe {gen}.0 x16 without NVLink{p2p_note}" + ("" if m else " (generation not in the catalog text: Gen4 assumed)"))


def gemm_batch_factor(table: Sequence[tuple[int, float]], tokens: float) -> float:
    """`StepCoefficients.gemm_batch_factors` at `tokens`: linear between its entries, its last one beyond them."""
    if tokens >= table[-1][0]:
        return table[-1][1]
    i = bisect.bisect_right(table, (tokens, math.inf))
    (t0, f0), (t1, f1) = table[i - 1], table[i]
    return f0 + (f1 - f0) * (tokens - t0) / (t1 - t0)


@dataclass(frozen=True)
class StepCoefficients:
    """Efficiencies and fixed costs of the per-step roofline. Fitted by bench/calibrate_step_model.py on the
    calibration data only (shared/data/validation: Vidur profiling, the H200 micro-benchmark, the
    AIConfigurator silicon sample); the four vLLM 0.19 runs in llmservingsim_vllm_runs/ score the model
    and are never fitted on.

    Memory-bound kernels follow AIConfigurator's form, time = bytes / (spec bandwidth x eta) + a fixed cost
    per kernel (its system YAMLs: 0.8 "empirical scaling factor" + 3 us per memory op):
    eta_mem_stream: achieved / spec bandwidth of a kernel streaming weights or KV, excluding the per-kernel
        fixed cost. Least-squares over the 13 one-token points of the four layer GEMMs (Vidur H100 Llama-2-7B
        and Llama-2-70B at TP 1/2/4/8, A100 Llama-3-8B at TP 1/2/4/8; H200 Llama-3.1-8B layer, measured here):
        eta 0.889, 5.1 us per GEMM; 12 of 13 points within +-12 % (worst: Llama-2-7B TP8, 50 MB/layer, +31 %).
        Corroborated by the H200 raw read/copy ceilings, 0.89-0.91 of spec (h200_microbench_measured.json).
        The earlier flat 0.77 folded the per-kernel cost into the bandwidth, which over-charges big GEMMs on
        slow memory (a consumer GPU's 8B step) and under-charges small ones (TP 8).
    t_kernel_s: fixed cost per kernel (same fit: 5.1 us; AIConfigurator uses 3 us per memory op).
    kernels_per_dense_layer: kernels of one decoder layer in a vLLM step: 4 GEMMs (QKV, O, gate+up, down),
        2 attention kernels (KV-cache write, attention), 4 fused elementwise (2 add+RMSNorm, RoPE,
        SiLU-and-mul) = 10. Vidur's unfused elementwise ops cost 2.3-6.6 us each at 1 token (mlp.csv).
    kernels_per_moe_layer: a fused-MoE layer replaces gate+up / SiLU / down (3) by router GEMM, top-k,
        align, two grouped expert GEMMs, SiLU, sum (7) = 14 (vllm/model_executor/layers/fused_moe).
    eta_compute: achieved / spec dense FLOPS for token GEMMs at >= 1k tokens. H200 Llama-3.1-8B layer GEMMs
        705-793 TFLOPS of 989 = 0.71-0.80 (JSON); Vidur H100 4096 tokens 0.70-0.76, A100 0.74; Sarathi-Serve
        Yi-34B 1k prefill linear 0.68. -> 0.74
    eta_attn_compute: the same for prefill attention's FLOPs; None (the reference GPUs: no attention-kernel timing
        in the calibration data) takes eta_compute. Set where a GPU's attention kernels were measured. On an H200,
        PyTorch's causal attention over one sequence (bench/data/h200_probe.json) reached 0.15 / 0.31 / 0.48 / 0.61
        of 989 TFLOPS at 1k / 2k / 4k / 8k tokens (cuDNN), 0.11-0.32 (FlashAttention-2): below eta_compute, as the
        measured RTX GPUs' vLLM kernels are (0.45-0.67). Not vLLM's kernels (FlashAttention-3, several sequences a
        launch), so not set from it.
    eta_kv_mem, t_fixed_s, t_seq_layer_s: fitted jointly (bench/calibrate_step_model.py --fit: grid over
        t_fixed {0, 0.25, 0.5, 1} ms x t_seq_layer {0 .. 1.5} us x eta_kv {0.6, 0.7, 0.8}, minimising TPOT MAPE)
        on the 203 AIConfigurator vLLM rows (Llama-3.1-70B fp8 H100/H200 TP 1-8, Qwen3-32B H100, Llama-3.1-8B-FP8
        H200) whose concurrency x (isl + osl) fits the KV pool (`kv_bound`; the 16 others ran fewer sequences
        than the client concurrency). Why a per-request term: with the earlier (t_fixed 0.5 ms, no per-request
        cost, eta_kv 0.70) the residual pred/meas - 1 of TPOT fell with concurrency inside every cell (same
        model, GPU, TP, isl, osl; bench/step_residuals.py): -5.2 +- 0.2 % per doubling of concurrency over 39
        cells (-4.2 +- 0.4 % in the 17 decode-dominated cells, osl >= isl), from +4 % at concurrency 4 to
        -11 % at 128, largest at short context (isl 1024 / osl 128: -5 % at c 4-8, -21 % at c 48-80) -- a cost
        that grows with the number of requests, not with their context. The B200 rows (vLLM Llama-3.1-70B fp8,
        not fitted on) show the same sign, -2.5 +- 0.8 % per doubling.
    t_seq_layer_s: cost per scheduled request per decoder layer per step: the per-request part of the paged
        attention kernels (query load, split-KV merge, block-table walk, KV-cache write: one work item per
        request and layer whatever its context), plus what else grows with the request count (sampling over
        the vocabulary, per-request scheduler / input-preparation work) folded in. Host and GPU work are not apart
        in it, so what async scheduling (vLLM 0.14+ default) overlaps is not subtracted: ASYNC_OVERLAP_CHECK. Charged once per request
        (decode or prefill chunk), never per prefill token. A per-request cost independent of depth fitted
        worse (TPOT MAPE 12.0 % at best vs 10.8 %). Fit: 0.8 us (64 us per step per request for an 80-layer
        model; 26 us for a 32-layer one), with t_fixed_s 0 (the grid's lower edge: the earlier 0.5 ms was
        standing in for the per-request cost at the typical batch) and eta_kv_mem 0.80.
        Result on the 219 rows: TPOT MAPE 11.4 % (was 13.3 %); on the 203 rows fitted 10.8 % (13.0 %); within-
        cell slope -1.2 +- 0.2 % per doubling (was -5.2), decode-dominated cells +0.6 +- 0.4 % (was -4.2).
        Flat optimum: (1.0 us, eta_kv 0.9) fits as well (10.8 %) but eta_kv is capped at 0.8 -- AIConfigurator's
        empirical factor, below the 0.89-0.91 raw read/copy ceiling measured on the H200; ragged 16-token pages
        do not stream like a memcpy. A decode attention kernel can reach that ceiling: on an H200 (bench/probe_gpu.py,
        bench/data/h200_probe.json; PyTorch's kernels, contiguous KV, one query token per request, 32/8 heads of 128)
        cuDNN's read the KV at 0.87-0.91 of 4.8 TB/s at 32 requests x 16k and 128 x 4k-16k tokens (0.73-0.74 at
        32 x 4k and 128 x 1k), FlashAttention-2's at 0.50-0.55; up to 8 requests x 4k tokens a launch took
        0.05-0.07 ms whatever it read.
        Caveat: it does not transfer to B200 as it is (hold-out, 56 rows not
        KV-bound: TPOT MAPE 10.5 -> 12.4 %, bias +6.6 -> +11.2 %; slope -2.5 -> +2.4 % per doubling): per-request
        costs are lower on Blackwell / the newer vLLM of those rows, which the catalog cannot tell apart.
        H200 micro-benchmark (GEMMs only, no attention or per-request work): unaffected; its only batch effect
        is a GEMM tile step at 128 tokens (0.175 ms measured vs 0.123 modelled), gone again at 256.
        A whole step on a real H200 (bench/probe_step.py, bench/data/h200_step.json: a Llama-3.1-8B-shaped
        decoder in PyTorch replayed as a CUDA graph, cuBLAS GEMMs, cuDNN attention, no scheduler): the model's
        GPU terms (all but per_request_work) come within -11 to +8 % of it on 10 decode steps of 1-256 requests
        at 1k-4k tokens (mean |error| 4.5 %), fitted on none of them; a 2,048-token prefill chunk is 19 % short,
        where PyTorch runs its elementwise ops unfused and its attention at 0.31 of peak (vLLM fuses both).
    allreduce_latency_s, nvlink_bytes_per_s: one NVLink collective's fixed cost and achieved bandwidth
        (AIConfigurator H200 YAML: 10 us p2p latency, 450 GB/s intra-node); the fit above picks 10 us.
    pcie_latency_s, pcie_efficiency, pcie_efficiency_no_p2p: one NCCL collective between PCIe GPUs without
        NVLink, t = latency + bus bytes / (efficiency x raw x16 rate), fitted (bench/fit_pcie_collectives.py) on
        public nccl-tests runs only (bench/data/pcie_nccl_measurements.csv, every row with its URL; the vLLM
        validation runs are not used):
        | series (n GPUs, PCIe gen, P2P)             | fitted busbw | / x16 link | intercept (>= 64 KB) |
        | 2 x RTX 2080 Ti, Gen3, no P2P, all_reduce    |  4.0 GB/s    | 0.26       | 23.6 us |
        | 2 x RTX 2080 Ti, Gen3, no P2P, all_gather    |  3.2 GB/s    | 0.20       | 17.6 us |
        | 4 x RTX 5090, Gen5, no P2P, all_reduce       | 26.8 GB/s    | 0.43       | 30.3 us |
        | 4 x RTX 4090 (tinygrad P2P), Gen4, P2P, AR   | 12.4 GB/s    | 0.39       | 22.0 us |
        | 4 x RTX PRO 6000, Gen5, P2P (P2P_LEVEL=SYS)  | 39.3 GB/s    | 0.62       | (busbw only) |
        | 8 x RTX PRO 6000, Gen5, P2P, 1 GB            | 46.4 GB/s    | 0.74       | (busbw only) |
        -> pcie_efficiency (P2P; also used when P2P is unknown) = 0.62, the median of the P2P series;
        pcie_efficiency_no_p2p (GeForce: NVIDIA does not enable P2P on them, nccl-tests#287) = 0.26, the median
        of the no-P2P series (NCCL stages through host memory; the spread, 0.20-0.43, follows the host, not the
        link generation -- too few series to fit per generation). pcie_latency_s = 20.6 us, the median
        intercept of the 2-GPU series over 64 KB-64 MB (NCCL's Simple protocol, the range of TP activations);
        8-8 KB messages take 11-12 us (LL protocol), so small decode batches are over-charged by ~9 us per
        collective. No 2-GPU P2P or Gen4/Gen5 2-GPU table was found: the P2P value comes from 4-8 GPU rings.
    """

    eta_mem_stream: float = 0.889
    t_kernel_s: float = 5.1e-6
    kernels_per_dense_layer: int = 10
    kernels_per_moe_layer: int = 14
    eta_compute: float = 0.74
    eta_attn_compute: Optional[float] = None  # prefill attention's FLOPs; None: eta_compute (see MEASURED_KERNELS_BY_GPU)
    eta_kv_mem: float = 0.80
    moe_overlap: float = 1.0  # fused-MoE layer: read + compute - overlap x min(read, compute); 1: the slower of the two
    eta_moe_compute: Optional[float] = None  # the expert GEMMs' FLOPs; None: eta_compute (see MEASURED_KERNELS_BY_GPU)
    eta_expert_stream: Optional[float] = None  # the fused-MoE experts' read; None: eta_mem_stream (see MEASURED_KERNELS_BY_GPU)
    mixed_decode_kv_per_extra_head: float = 0.0  # see MEASURED_KERNELS_BY_GPU; 0: no mixed-batch penalty measured
    # ((tokens, factor), ...) ascending from (1, 1.0): the weight-stream time of the linear layers at that many tokens over
    # their time at one (linear between entries, the last beyond); see MEASURED_KERNELS_BY_GPU. (): 1 at every batch
    gemm_batch_factors: tuple = ()
    t_fixed_s: float = 0.0
    t_seq_layer_s: float = 0.8e-6
    allreduce_latency_s: float = 10e-6
    nvlink_bytes_per_s: float = 450e9
    pcie_latency_s: float = 20.6e-6
    pcie_efficiency: float = 0.62
    pcie_efficiency_no_p2p: float = 0.26


DEFAULT_COEFFICIENTS = StepCoefficients()


# GPUs whose own kernels were measured: their timings replace, like for like, the coefficients that were fitted on
# kernel timings of the reference GPUs (H100/A100/H200 GEMMs: eta_mem_stream and t_kernel_s from one-token GEMMs,
# eta_compute from GEMMs at >= 1k tokens, which prefill attention's FLOPs also use there: no reference attention-kernel
# timing was available, so eta_attn_compute defaults to eta_compute). eta_kv_mem, t_seq_layer_s and t_fixed_s were
# fitted on end-to-end step times (they carry per-step work no kernel timing sees) and stay. Fit:
# bench/calibrate_step_model.py --gpu-profiles on bench/data/gpu_kernel_profiles.csv, every row with its URL
# (LLMServingSim's public vLLM 0.19.0 kernel profiles, eager mode, bf16, TP1):
#   rtx-4090 (Llama-3.1-8B): the four layer GEMMs and the LM head at one token, 33.5 MB - 1.05 GB: 960 GB/s (0.953 of
#   1,008) + 3.3 us, every point within 1.4 %; the layer GEMMs at 1,024-2,048 tokens: 0.960 of 165.2 TFLOPS (median of
#   260, 0.82-1.01); prefill attention in chunks of 1,024-2,048 tokens: 0.665 (median of 24, 0.45-0.86).
#   rtx-pro-6000-blackwell: the four layer GEMMs and the LM head at one token of its Llama-3.1-8B and Qwen3-32B TP1
#   profiles, 33.5 MB - 1.56 GB: 1,455 GB/s (0.812 of 1,792) + 2.4 us per kernel (t_kernel_s), every point within
#   5.3 % (9 GEMMs; Qwen3-32B's O projection at one token, 84 MB in 24 us = 3.5 TB/s, read the L2 and is left out --
#   61 us at 2-8 tokens). The spread of that intercept is wide: the same fit with the profiles' TP2 shards (19 GEMMs,
#   17-778 MB) gives 0.813 + 2.8 us, on the medians over 1-8 tokens 0.835 + 3.8 us; Llama-3.1-8B alone 2.9 us,
#   Qwen3-32B alone 4.2 us -- all below the reference GPUs' 5.1 us. The whole one-token layer agrees: its
#   elementwise kernels (RMSNorm, RoPE, SiLU-and-mul) take 2.4-2.7 us each in Llama-3.1-8B (2.0-4.2 in Qwen3-32B) and
#   its attention module at one request 7.9-8.4 us, so a Llama-3.1-8B layer's time beyond its weights at 0.812 is
#   25-28 us (TP1, TP2) over its 10 kernels (2.5-2.8 us each; the RTX 4090's layer the same way: 30.8 us, 3.1 each,
#   against its 3.3 us fit). The kernel count per layer
#   matches (kernels_per_dense_layer 10) for Llama; Qwen3's q/k RMSNorms are 2 more per layer (12; 16 in a Qwen3-MoE
#   layer against kernels_per_moe_layer 14), not counted. The profile's decode-only attention reads the KV at a
#   median 0.80 of 1,792 GB/s (61 cells of >= 256 MB, Llama-3.1-8B TP1; 0.65-0.85), the global eta_kv_mem: kept.
#   Its GPU-side per-request work, 0.09-0.12 us per request per layer in decode attention (least squares over the cells
#   of >= 64 MB) and 0.5-0.7 us per sequence in the sampler, is ~4 us a request a step for Llama-3.1-8B against
#   t_seq_layer_s's 26 us: that term is mostly work no kernel timing sees, and t_seq_layer_s / t_fixed_s stay.
#   eta_expert_stream: the Qwen3-30B-A3B fused-MoE layer at 4-32 tokens with 32-128 experts touched (302 MB -
#   1.2 GB, past the 128 MB L2): 1,538 GB/s (0.858 of 1,792), every point within 2 %: the experts stream faster than
#   the dense GEMMs at one token. eta_compute: the layer GEMMs at 1,024-2,048 tokens of all three profiles: 0.710 of
#   503.8 TFLOPS (median of 650, 0.46-0.86): Qwen3-30B-A3B's QKV and O (k 2,048 / 4,096, n 5,120 / 2,048: the model's
#   own TP1 shapes, as the profile's TP2 timings, half of these, show; 130 GEMMs, 0.46-0.71, median 0.578, the value
#   before the other two were read) and the four GEMMs of Llama-3.1-8B and Qwen3-32B (520; Llama's sum 0.75 of the peak
#   at 1,024 tokens, 0.79 at 2,048: the 0.578 had charged that run's 2,048-token steps ~30 % too long, which its
#   decode steps' missing batch factor, below, had hidden); prefill attention: 0.454 (median of 43, 0.27-0.54).
# moe_overlap, eta_moe_compute (rtx-pro-6000-blackwell): the profile's fused-MoE layer at 4-512 tokens with 32-128
#   experts touched (21 cells of moe.csv, top-8) grows with the tokens even where reading the experts dominates: 817 us
#   at 16 tokens, 875 at 256, 912 at 512 (128 experts). Read and compute add up there: time = 33 us + expert bytes /
#   (1,792 GB/s x 0.858) + FLOPs / (503.8 TFLOPS x 0.949), every cell within 7 %, where the slower-of-the-two form
#   (moe_overlap 1) is flat and 10 % short at 512 tokens. Kept to this GPU: on the AIConfigurator MoE hold-out (H100 /
#   H200 / B200, no kernel timing) adding them everywhere moved TPOT MAPE from 18.3 to 18.6 %.
# mixed_decode_kv_per_extra_head: in a step that also carries a prefill chunk, vLLM's FlashAttention call is one
#   variable-length launch over prefill and decode requests, and the decodes' KV is read far more slowly than in a
#   decode-only launch. The profiles' attention.csv times every (chunk, prefix, decodes, context) cell; the decode
#   share of a mixed cell, (mixed - same chunk alone) / (same decodes alone), is 1 + a x (query heads per KV head
#   - 1): the decode-only kernel packs a KV head's query heads into one read, the mixed one reads a KV tile once per
#   query head and finds the repeats in L2 only in part. a, the median over the cells without a cached prefix whose
#   decode-only time is >= 50 us (bench/data/mixed_attention_cells.csv; bench/calibrate_step_model.py --gpu-profiles):
#   rtx-4090 0.331 (360 cells of Llama-3.1-8B, 4 query heads per KV head: decode attention x2.0 when a chunk shares
#   the step; p10-p90 0.21-0.98, largest at 128+ decodes); rtx-pro-6000-blackwell 0.261 (2,641 cells of Llama-3.1-8B,
#   Qwen3-32B and Qwen3-30B-A3B, 4 and 8 per KV head; per model 0.22, 0.26, 0.28; p10-p90 0.15-0.65). The reference
#   GPUs had no mixed-batch attention timing, so their coefficient stays 0 (no penalty); MLA models read one latent
#   head and are not charged.
# gemm_batch_factors: a layer GEMM does not read its weights at the one-token rate at every batch size below the
#   roofline's ridge. The profiles' dense.csv time the four layer GEMMs at 1-2,048 tokens; summed, at a decode batch's
#   token counts (vLLM 0.19's CUDA-graph capture sizes that the profile grid holds), over their one-token time
#   (bench/calibrate_step_model.py --gpu-profiles, `fit_gemm_batch_factors`; the "batch" rows of gpu_kernel_profiles.csv):
#   rtx-4090 (Llama-3.1-8B) 1.02-1.03 at 2-16 tokens, 1.10 at 24 (cuBLAS's next M tile: 16 -> 20 tokens is +7 %),
#   1.14 at 64, 1.29 at 128, 1.55 at 256 (where the compute side, 1.55 at eta_compute, takes over); rtx-pro-6000-
#   blackwell (Llama-3.1-8B and Qwen3-32B) 1.04 at 16, 1.07 at 24, 1.10 at 64, 1.20 at 128, 1.41 at 256. The model
#   had charged the one-token time up to the ridge (165 tokens on the RTX 4090): its decode-only steps at 17-42
#   sequences came 5 % under the sum of the profiled kernels (GEMMs, attention, elementwise, LM head, sampler) on
#   the RTX 4090 run's decode-only seconds, which that sum matches (median +0.3 %). bench/check_decode_steps.py, median
#   model error on the four runs' decode-only seconds: -5.2 / -7.2 / -6.3 / -6.2 % before, +2.0 / -3.6 / -3.6 / +0.5 %
#   with these factors and the CUDA-graph padding (EngineConfig.graph_tokens). The
#   reference GPUs keep none: the H200 micro-benchmark's layer GEMMs are flat from 1 to 64 tokens
#   (h200_microbench_measured.json; its 128-token step, +41 %, is on one GPU and one shape only).
MEASURED_KERNELS_BY_GPU: dict[str, tuple[dict, str]] = {
    "rtx-4090": ({"eta_mem_stream": 0.953, "t_kernel_s": 3.3e-6, "eta_compute": 0.960, "eta_attn_compute": 0.665,
                  "mixed_decode_kv_per_extra_head": 0.331,
                  "gemm_batch_factors": ((1, 1.0), (2, 1.017), (4, 1.019), (8, 1.025), (16, 1.032), (24, 1.1), (32, 1.109),
                                         (40, 1.119), (48, 1.129), (56, 1.134), (64, 1.14), (80, 1.164), (96, 1.177),
                                         (112, 1.232), (128, 1.289), (144, 1.275), (160, 1.305), (176, 1.359),
                                         (192, 1.477), (208, 1.541), (224, 1.544), (240, 1.541), (256, 1.55))},
                 "LLMServingSim's vLLM 0.19 kernel profile of Llama-3.1-8B on an RTX 4090 "
                 "(bench/data/gpu_kernel_profiles.csv)"),
    "rtx-pro-6000-blackwell": ({"eta_mem_stream": 0.812, "t_kernel_s": 2.4e-6, "eta_compute": 0.710,
                                "eta_attn_compute": 0.454, "mixed_decode_kv_per_extra_head": 0.261, "moe_overlap": 0.0,
                                "eta_moe_compute": 0.949, "eta_expert_stream": 0.858,
                                "gemm_batch_factors": ((1, 1.0), (2, 1.019), (4, 1.013), (8, 1.019), (16, 1.035), (24, 1.071),
                                                       (32, 1.075), (40, 1.085), (48, 1.088), (56, 1.097), (64, 1.099),
                                                       (80, 1.157), (96, 1.172), (112, 1.186), (128, 1.196), (144, 1.315),
                                                       (160, 1.325), (176, 1.342), (192, 1.35), (208, 1.382), (224, 1.394),
                                                       (240, 1.402), (256, 1.413))},
                               "LLMServingSim's vLLM 0.19 kernel profiles of Llama-3.1-8B, Qwen3-32B and Qwen3-30B-A3B "
                               "on an RTX PRO 6000 (bench/data/gpu_kernel_profiles.csv)"),
}


def step_coefficients_for(gpu) -> tuple[StepCoefficients, Optional[str]]:
    """The step-time coefficients for a GPU: the global fit, with the kernel-level ones replaced where that GPU's kernels
    were measured (MEASURED_KERNELS_BY_GPU); and a note saying which applied."""
    measured = MEASURED_KERNELS_BY_GPU.get(getattr(gpu, "id", None))
    if measured is None:
        return DEFAULT_COEFFICIENTS, None
    values, source = measured
    said = ", ".join(f"{k} {v * 1e6:.1f} us" if k.endswith("_s") else
                     f"{k} {v[-1][1]:.2f} at {v[-1][0]} tokens" if isinstance(v, tuple) else f"{k} {v:.3f}"
                     for k, v in values.items())
    return replace(DEFAULT_COEFFICIENTS, **values), f"{gpu.name}'s own kernels were measured ({said}): {source}"


@dataclass(frozen=True)
class StepModel:
    """Per-rank costs of one engine step. All byte/FLOP figures are per GPU rank.

    step = t_fixed + max(weight bytes / (BW eta_mem), linear FLOPs / (peak eta_c)) + kernels x t_kernel
           + KV bytes / (BW eta_kv) (or attention FLOPs, whichever is slower) + collectives
    `peak_flops_per_s` may be None (catalog has no FLOPS for the GPU): the compute side is then left out
    and the model is a bandwidth-only roofline -- right for decode, optimistic for prefill (TTFT); `notes`
    says so."""

    weights_bytes_per_rank: float  # dense weights read every step (input embedding table excluded)
    expert_bytes_per_rank: float  # MoE expert weights held by this rank (only the touched experts are read)
    num_experts: int  # experts held by this rank
    experts_per_tok: int
    expert_selection_fraction: float  # k / E_total: chance one token routes to a given expert
    expert_token_multiplier: float  # tokens an expert layer sees per local token (EP over DP ranks: dp)
    linear_flops_per_token: float  # 2 x active params / TP, excluding the LM head and the input embedding lookup
    lm_head_flops_per_seq: float  # 2 x vocab x hidden / TP, once per sequence per step
    kv_bytes_per_token: float  # KV bytes per context token per rank (the layers that attend to the whole context)
    attn_flops_per_token_pair: float  # 4 x those layers x heads x head_dim / TP per (query, key) pair
    num_kernels: int  # kernels per step (layers x kernels per layer)
    num_allreduces: int  # 2 per layer at TP > 1, else 0
    allreduce_bytes_per_token: float  # hidden x 2 bytes x 2(TP-1)/TP (ring)
    hbm_bytes_per_s: float
    peak_flops_per_s: Optional[float]
    link_bytes_per_s: float
    coeffs: StepCoefficients = DEFAULT_COEFFICIENTS
    collective_latency_s: Optional[float] = None  # None = coeffs.allreduce_latency_s (NVLink)
    num_ep_collectives: int = 0  # expert parallel: dispatch + combine per MoE layer
    ep_bytes_per_token: float = 0.0  # per local token, per collective
    notes: tuple[str, ...] = ()
    expert_flops_per_token: float = 0.0  # part of linear_flops_per_token: 2 x k experts' params / TP (all layers)
    num_layers: int = 0  # decoder layers (per-request per-layer cost, coeffs.t_seq_layer_s)
    query_heads_per_kv_head: int = 1  # GQA group; 1 for MLA (one latent KV head read once)
    # sliding-window / chunked-local layers: ((window tokens, KV bytes per token, FLOPs per query-key pair), ...) per rank;
    # a decode reads min(context, window) tokens of them
    windows: tuple = ()
    state_bytes_per_seq: float = 0.0  # recurrent (Mamba / GDN) state per sequence per rank: read and written each step
    # speculative decoding with a known acceptance (SpecDecode; None: one token per decode step, no draft cost)
    spec: Optional["SpecDecode"] = None

    # ---- the roofline terms
    def _compute_s(self, flops: float, eta: Optional[float] = None) -> float:
        """Seconds for `flops` at the GPU's peak times `eta` (default eta_compute); 0 where the peak is unknown."""
        return flops / (self.peak_flops_per_s * (eta or self.coeffs.eta_compute)) if self.peak_flops_per_s else 0.0

    def _weights_bytes(self, tokens: int) -> float:
        if self.expert_bytes_per_rank <= 0 or self.num_experts <= 1:
            return self.weights_bytes_per_rank
        routed = max(tokens, 0) * self.expert_token_multiplier
        touched = 1.0 - (1.0 - self.expert_selection_fraction) ** routed  # distinct experts hit, in expectation
        return self.weights_bytes_per_rank + self.expert_bytes_per_rank * touched

    def fixed_part_s(self, tokens: int, seqs: int, logits: Optional[int] = None) -> float:
        """Everything that does not depend on context length: overhead, linear layers, collectives.
        The LM head runs once per scheduled request (`seqs`: vLLM computes logits only at each request's last
        scheduled position, gpu_model_runner `logits_indices`), not per prefill token. The MoE expert layers
        assume every expert-parallel rank carries as many tokens as this one (`moe_part_s`). `logits`: the positions
        the LM head runs at where not one per request (speculative decoding: 1 + k per decoding request)."""
        return sum(self._fixed_terms(tokens, seqs, logits))

    def _fixed_terms(self, tokens: int, seqs: int, logits: Optional[int] = None) -> tuple:
        """(fixed overhead, per-request work, dense weights or linear FLOPs (the slower), kernel launches,
        tensor-parallel collectives, expert layers, recurrent state read and written) in seconds: the parts of
        `fixed_part_s`."""
        c = self.coeffs
        # dense_weights_read_s, spelled out: this runs every detailed step, where the property call cost 7 % of it
        t_mem = self.weights_bytes_per_rank / (self.hbm_bytes_per_s * c.eta_mem_stream)
        if c.gemm_batch_factors and tokens > 1:
            t_mem *= gemm_batch_factor(c.gemm_batch_factors, tokens)
        t_fl = self._compute_s((self.linear_flops_per_token - self.expert_flops_per_token) * tokens
                               + self.lm_head_flops_per_seq * (seqs if logits is None else logits))
        lat = c.allreduce_latency_s if self.collective_latency_s is None else self.collective_latency_s
        t_comm = 0.0
        if self.num_allreduces:
            t_comm += self.num_allreduces * (lat + tokens * self.allreduce_bytes_per_token / self.link_bytes_per_s)
        state = 2.0 * self.state_bytes_per_seq * seqs / (self.hbm_bytes_per_s * c.eta_kv_mem) if self.state_bytes_per_seq else 0.0
        return (c.t_fixed_s, c.t_seq_layer_s * self.num_layers * seqs, max(t_mem, t_fl), self.num_kernels * c.t_kernel_s,
                t_comm, self.moe_part_s(tokens, tokens * self.expert_token_multiplier), state)

    def _step_terms(self, decode_seqs: int, decode_context_tokens: int, chunks: Sequence[tuple[int, int]] = (),
                    decode_contexts: Optional[Sequence[int]] = None) -> dict:
        """The seconds of one step by term; `step_s` is their sum."""
        tokens = decode_seqs + sum(ch for ch, _ in chunks)
        fixed, per_request, linear, kernels, collectives, experts, state = self._fixed_terms(tokens, decode_seqs + len(chunks))
        read_bound = linear > self._compute_s((self.linear_flops_per_token - self.expert_flops_per_token) * tokens
                                              + self.lm_head_flops_per_seq * (decode_seqs + len(chunks)))
        mixed = self.mixed_decode_factor if chunks else 1.0
        return {
            "fixed_overhead": fixed, "per_request_work": per_request,
            ("dense_weights_read" if read_bound else "linear_flops"): linear,
            "kernel_launches": kernels, "tp_collectives": collectives, "expert_layers": experts,
            "recurrent_state_rw": state,
            "decode_kv_read": mixed * (self.per_context_token_s * decode_context_tokens
                                       + self.window_decode_s(decode_seqs, decode_context_tokens, decode_contexts)[0]),
            "prefill_attention": sum(self.prefill_attention_s(ch, pre) for ch, pre in chunks),
        }

    def explain_step(self, decode_seqs: int, decode_context_tokens: int, chunks: Sequence[tuple[int, int]] = ()) -> dict:
        """One step: what it schedules, and the nonzero terms of `step_s` in milliseconds (`terms_ms`, which add up
        to `total_ms`)."""
        terms = self._step_terms(decode_seqs, decode_context_tokens, chunks)
        return {"decode_seqs": decode_seqs, "decode_context_tokens": decode_context_tokens,
                "prefill_chunks": [list(c) for c in chunks],
                "terms_ms": {k: round(v * 1e3, 4) for k, v in terms.items() if v},
                "total_ms": round(sum(terms.values()) * 1e3, 4)}

    def to_dict(self) -> dict:
        """What the step model was built from: per-rank sizes, the GPU's speeds, the coefficients, and notes."""
        return {"weights_bytes_per_rank": self.weights_bytes_per_rank, "expert_bytes_per_rank": self.expert_bytes_per_rank,
                "kv_bytes_per_token": self.kv_bytes_per_token, "hbm_bytes_per_s": self.hbm_bytes_per_s,
                "peak_flops_per_s": self.peak_flops_per_s, "link_bytes_per_s": self.link_bytes_per_s,
                "num_layers": self.num_layers, "num_kernels": self.num_kernels,
                "query_heads_per_kv_head": self.query_heads_per_kv_head, "mixed_decode_factor": self.mixed_decode_factor,
                "windows": [{"window_tokens": w, "kv_bytes_per_token": b, "flops_per_token_pair": f} for w, b, f in self.windows],
                "state_bytes_per_seq": self.state_bytes_per_seq,
                "coefficients": asdict(self.coeffs), "notes": list(self.notes),
                **({"speculative_decoding": self.spec.to_dict()} if self.spec is not None else {})}

    def moe_part_s(self, tokens: float, group_tokens: float) -> float:
        """Expert layers and expert-parallel collectives of a rank holding `tokens` when its EP group holds
        `group_tokens` in all (lockstep data-parallel ranks: the sum over the ranks). With the all-gather /
        reduce-scatter all2all every rank's experts see the whole group's tokens; the rank computes the
        group's token-expert pairs routed to its E/ep experts (group_tokens x k / ep, balanced routing) and
        reads the experts they touch; the dispatch gathers the other ranks' tokens (group - own) and the
        combine scatters them back. Its own kernel max(bytes, FLOPs): expert GEMMs are separate kernels."""
        if self.expert_bytes_per_rank <= 0 or self.num_experts <= 1:
            return 0.0
        c = self.coeffs
        ep = self.expert_token_multiplier
        t_mem = (max(self._weights_bytes(group_tokens / ep) - self.weights_bytes_per_rank, 0.0)
                 / (self.hbm_bytes_per_s * (c.eta_expert_stream or c.eta_mem_stream)))
        t_fl = self._compute_s(self.expert_flops_per_token * group_tokens / ep, c.eta_moe_compute)
        t = t_mem + t_fl - c.moe_overlap * min(t_mem, t_fl)
        if self.num_ep_collectives and ep > 1:
            lat = c.allreduce_latency_s if self.collective_latency_s is None else self.collective_latency_s
            per_token = self.ep_bytes_per_token / (ep - 1)  # hidden x 2 bytes
            t += self.num_ep_collectives * (lat + max(group_tokens - tokens, 0.0) * per_token / self.link_bytes_per_s)
        return t

    @property
    def per_context_token_s(self) -> float:
        """Decode attention time per context token read (memory-bound unless FLOPs dominate)."""
        return max(self.kv_bytes_per_token / (self.hbm_bytes_per_s * self.coeffs.eta_kv_mem),
                   self._compute_s(self.attn_flops_per_token_pair))

    @property
    def dense_weights_read_s(self) -> float:
        """Seconds to stream the dense weights once: the memory side of the linear layers."""
        return self.weights_bytes_per_rank / (self.hbm_bytes_per_s * self.coeffs.eta_mem_stream)

    @property
    def mixed_decode_factor(self) -> float:
        """How much longer the decodes' KV takes to read in a step that also prefills (1: no penalty measured)."""
        return 1.0 + self.coeffs.mixed_decode_kv_per_extra_head * max(self.query_heads_per_kv_head - 1, 0)

    def window_decode_s(self, decode_seqs: int, decode_context_tokens: float, contexts: Optional[Sequence[int]] = None,
                        base: int = 0) -> tuple[float, float, Optional[int]]:
        """Decode reads of the window layers: (seconds this step, how much that grows per further decode step with
        every request one token longer, the steps over which it grows so -- None: no window still filling). Each
        request reads min(its context, window) tokens of a window layer. `contexts` (each request's context less
        `base`, ascending; the simulator keeps them so) sums that request by request; without them every request is
        taken at the mean context, which is exact only when all are on one side of each window."""
        if not self.windows or decode_seqs <= 0:
            return 0.0, 0.0, None
        mean = decode_context_tokens / decode_seqs
        read = growth = 0.0
        steps = None
        for w, bpt, _ in self.windows:
            if contexts is None:
                filling = decode_seqs if mean < w else 0
                tokens = decode_seqs * min(mean, w)
                longest_filling = mean
            else:  # the requests still filling the window read their context, the others the window
                filling = bisect.bisect_left(contexts, w - base)
                tokens = (sum(contexts[:filling]) + filling * base if filling else 0) + (decode_seqs - filling) * w
                longest_filling = contexts[filling - 1] + base if filling else 0
            read += tokens * bpt
            if filling:  # linear until the longest of them reaches the window
                growth += filling * bpt
                k = int(w - longest_filling) + 1
                steps = k if steps is None or k < steps else steps
        per_byte = 1.0 / (self.hbm_bytes_per_s * self.coeffs.eta_kv_mem)
        return read * per_byte, growth * per_byte, steps

    def prefill_attention_s(self, chunk: int, prefix: int) -> float:
        kv_bytes = self.kv_bytes_per_token * (prefix + chunk)
        flops = self.attn_flops_per_token_pair * chunk * (prefix + (chunk + 1) / 2.0)
        for w, bpt, fpp in self.windows:  # a window layer's query sees the last `window` tokens, itself included
            kv_bytes += bpt * min(prefix + chunk, w - 1 + chunk)
            flops += fpp * chunk * min(prefix + (chunk + 1) / 2.0, w)
        kv = kv_bytes / (self.hbm_bytes_per_s * self.coeffs.eta_kv_mem)
        fl = self._compute_s(flops, self.coeffs.eta_attn_compute)
        return max(kv, fl)

    def step_s(self, decode_seqs: int, decode_context_tokens: int, chunks: Sequence[tuple[int, int]] = (),
               decode_contexts: Optional[Sequence[int]] = None) -> float:
        """Time of one step: `decode_seqs` decodes reading `decode_context_tokens` in total, plus
        prefill `chunks` of (tokens, prefix already in KV). Window layers read each decode's own context when
        `decode_contexts` (ascending) gives them, else the mean (see `window_decode_s`)."""
        return sum(self._step_terms(decode_seqs, decode_context_tokens, chunks, decode_contexts).values())

    # ---- construction
    @classmethod
    def from_numbers(cls, *, weights_bytes: float, active_params: float, num_layers: int, hidden_size: int,
                     num_attention_heads: int, num_kv_heads: int, head_dim: int, vocab_size: int,
                     kv_bytes_per_token: float, hbm_bytes_per_s: float, peak_flops_per_s: Optional[float],
                     tensor_parallel_size: int = 1, num_experts: int = 0, experts_per_tok: int = 0,
                     moe_intermediate_size: int = 0, nvlink: bool = True, interconnect: Optional[str] = None,
                     embedding_bytes: float = 0.0, expert_parallel_size: int = 1, p2p: Optional[bool] = None,
                     rank_bytes: Optional[tuple[float, float]] = None, mla: bool = False,
                     attention_layers: Optional[int] = None, windows: Sequence[tuple[int, float, int]] = (),
                     state_bytes_per_seq: float = 0.0,
                     coeffs: StepCoefficients = DEFAULT_COEFFICIENTS) -> "StepModel":
        """`weights_bytes` and `active_params`: the whole model; `kv_bytes_per_token`: per rank.
        `embedding_bytes`: the input embedding table when it is not tied to the LM head -- a lookup, not
        streamed each step. `expert_parallel_size` > 1: experts spread over that many data-parallel ranks
        (vLLM --data-parallel-size N --enable-expert-parallel): each rank holds E/ep experts, its expert
        layers see the tokens of all ep ranks (the ranks step in lockstep), and every MoE layer does a
        dispatch and a combine collective (vLLM's default all-gather / reduce-scatter all2all backend).
        `rank_bytes`: (bytes every step streams, routed-expert bytes held) on one rank as loaded, quantized -- given,
        they replace the split of `weights_bytes` by parameter share (which assumes one byte width throughout).
        `attention_layers`: the layers that attend to the whole context (default: all); `windows`: (window tokens, KV
        bytes per token per rank, layers) of sliding-window / chunked-local layers; `state_bytes_per_seq`: the recurrent
        state of one sequence per rank (hybrid and Mamba models)."""
        tp = max(1, int(tensor_parallel_size))
        ep = max(1, int(expert_parallel_size))
        is_moe = num_experts > 1 and moe_intermediate_size > 0
        expert_params = expert_active = 0.0
        if is_moe:
            expert_params = float(num_layers) * num_experts * 3 * hidden_size * moe_intermediate_size
            expert_active = float(num_layers) * experts_per_tok * 3 * hidden_size * moe_intermediate_size
        total_params = (active_params - expert_active) + expert_params
        expert_share = expert_params / total_params if total_params > 0 else 0.0
        expert_bytes = weights_bytes * expert_share
        dense_bytes = max(weights_bytes - expert_bytes - embedding_bytes, 0.0)
        lm_head_params = float(vocab_size) * hidden_size
        # an untied input embedding is a table lookup, not a GEMM: its params are in active_params but cost no FLOPs
        embed_params = float(vocab_size) * hidden_size if embedding_bytes > 0 else 0.0
        link, latency, link_note = link_bytes_per_s(interconnect, nvlink, coeffs, p2p)
        notes = []
        if not peak_flops_per_s:
            notes.append("no peak FLOPS for this GPU in kvplan's catalog: the step model is bandwidth-only, so "
                         "prefill (compute-bound) steps and TTFT are optimistic")
        if (tp > 1 or ep > 1) and link_note != "NVLink":
            notes.append(f"collectives over {link_note}: {link / 1e9:.0f} GB/s achieved and {latency * 1e6:.0f} us "
                         "each (fitted on public nccl-tests runs, bench/data/pcie_nccl_measurements.csv; host-dependent)")
        dense_rank, expert_rank = rank_bytes if rank_bytes else (dense_bytes / tp, expert_bytes / (tp * ep))
        return cls(
            weights_bytes_per_rank=float(dense_rank),
            expert_bytes_per_rank=float(expert_rank) if is_moe else 0.0,
            num_experts=int(num_experts) // ep if is_moe else int(num_experts),
            experts_per_tok=int(experts_per_tok),
            expert_selection_fraction=(experts_per_tok / num_experts) if is_moe else 0.0,
            expert_token_multiplier=float(ep),
            linear_flops_per_token=2.0 * max(active_params - lm_head_params - embed_params, 0.0) / tp,
            expert_flops_per_token=2.0 * expert_active / tp,
            lm_head_flops_per_seq=2.0 * lm_head_params / tp,
            kv_bytes_per_token=float(kv_bytes_per_token),
            attn_flops_per_token_pair=4.0 * (num_layers if attention_layers is None else attention_layers)
            * num_attention_heads * head_dim / tp,
            windows=tuple((int(w), float(bpt), 4.0 * n * num_attention_heads * head_dim / tp) for w, bpt, n in windows),
            state_bytes_per_seq=float(state_bytes_per_seq),
            num_layers=int(num_layers),
            query_heads_per_kv_head=1 if mla else max(1, int(num_attention_heads) // max(1, int(num_kv_heads))),
            num_kernels=num_layers * (coeffs.kernels_per_moe_layer if is_moe else coeffs.kernels_per_dense_layer),
            num_allreduces=2 * num_layers if tp > 1 else 0,
            allreduce_bytes_per_token=hidden_size * 2.0 * 2.0 * (tp - 1) / tp,
            hbm_bytes_per_s=float(hbm_bytes_per_s), peak_flops_per_s=float(peak_flops_per_s) if peak_flops_per_s else None,
            link_bytes_per_s=link, coeffs=coeffs, collective_latency_s=latency,
            num_ep_collectives=2 * num_layers if (is_moe and ep > 1) else 0,
            ep_bytes_per_token=hidden_size * 2.0 * (ep - 1) if ep > 1 else 0.0,
            notes=tuple(notes))

    @classmethod
    def from_plan(cls, plan, coeffs: Optional[StepCoefficients] = None, *,
                  expert_parallel_size: Optional[int] = None) -> "StepModel":
        """Build from a `kvplan.Plan`: its model shape, its GPU's speeds and interconnect, its per-rank KV bytes.
        The expert-parallel size defaults to the plan's (TP x DP with --enable-expert-parallel on a MoE model).
        `coeffs` defaults to the GPU's (`step_coefficients_for`)."""
        m, g = plan.model, plan.gpu
        gpu_note = None
        if coeffs is None:
            coeffs, gpu_note = step_coefficients_for(g)
        if getattr(plan.args, "cpu_offload_gb", None):
            raise InputError("--cpu-offload-gb", "the step-time model does not model weights streamed from CPU memory over "
                             "PCIe on every forward", "simulate a plan without --cpu-offload-gb, on a GPU that holds the weights")
        tp = int(getattr(plan.args, "tensor_parallel_size", 1) or 1)
        if expert_parallel_size is None:
            dp = int(getattr(plan.args, "data_parallel_size", 1) or 1)
            expert_parallel_size = tp * dp if (getattr(plan.args, "enable_expert_parallel", False) and m.is_moe) else 1
        bw = g.hbm_bandwidth_bytes_per_s
        from kvplan.plan.planner import gemm_compute_dtype

        compute_dtype = gemm_compute_dtype(getattr(m, "quant", None), getattr(plan.args, "quantization", None), g)
        if not bw:
            if g.id == "custom":  # --gpu-gib / --gpu-gb alone: a size, no speeds
                raise InputError("--gpu-gib", f"a {g.name} has a size but no HBM bandwidth or FLOPS, which the "
                                 "step-time model needs", "name the card it is as well, e.g. --gpu L4 --gpu-gib 18: "
                                 "that card's speeds with your total")
            raise InputError("--gpu", f"kvplan's catalog has no HBM bandwidth for {g.name}",
                             "the step-time model needs it; pick a catalog GPU that lists it")
        weights_total = float(getattr(m, "weights_bytes", 0) or 0) or float(plan.weights_bytes) * tp
        uses = dict(getattr(plan, "weights_by_use", ()) or ())
        # the plan's loaded bytes by use, quantized as vLLM holds them (an FP8 / AWQ / MXFP4 checkpoint streams its
        # own bytes, not the bf16 count); the vision tower and an untied input embedding are not streamed in decode
        rank_bytes = (float(uses.get("streamed", 0)), float(uses.get("experts", 0))) if uses.get("streamed") else None
        kv_per_token = float(plan.kv_bytes_per_token)
        pp = int(getattr(plan.args, "pipeline_parallel_size", 1) or 1)
        pp_note = None
        if pp > 1:
            # A step passes through the PP stages one after another, so its time is theirs summed: the reads of every
            # stage (this rank's, one stage's, times the stages) with the whole model's FLOPs, layers and collectives.
            rank_bytes = (rank_bytes[0] * pp, rank_bytes[1] * pp) if rank_bytes else None  # None: whole model / TP
            kv_per_token *= pp
            pp_note = (f"pipeline parallel ({pp} stages): a step's time is its {pp} stages' summed, each read as this "
                       f"rank's; vLLM keeps up to {pp} micro-batches in flight (its engine's batch queue), which this "
                       "simulation does not: where steps are compute-bound (long prefills) throughput is under-estimated, "
                       f"by up to {pp}x; stage-to-stage transfers are not charged")
        sm = cls.from_numbers(
            weights_bytes=weights_total, active_params=float(m.active_params), num_layers=m.num_layers,
            hidden_size=m.hidden_size, num_attention_heads=m.num_attention_heads, num_kv_heads=m.num_kv_heads,
            head_dim=m.head_dim, vocab_size=m.vocab_size, kv_bytes_per_token=kv_per_token,
            hbm_bytes_per_s=bw, peak_flops_per_s=g.peak_flops(compute_dtype), tensor_parallel_size=tp,
            num_experts=m.num_experts, experts_per_tok=m.num_experts_per_tok,
            moe_intermediate_size=m.moe_intermediate_size, nvlink=bool(getattr(g, "has_nvlink", True)),
            interconnect=getattr(g, "interconnect", None), embedding_bytes=embedding_bytes(m),
            expert_parallel_size=expert_parallel_size, p2p="geforce" not in str(g.name).lower(), rank_bytes=rank_bytes,
            mla=bool(getattr(m, "uses_mla", False)), coeffs=coeffs, **_layer_reads(plan))
        extra = tuple(n for n in (gpu_note, pp_note) if n)
        return replace(sm, notes=sm.notes + extra) if extra else sm


def step_model_report(step_model: StepModel, config: EngineConfig, mean_running: float, workload_summary: dict,
                      result: Optional["SimResult"] = None) -> dict:
    """What a run's step times were built from (StepModel.to_dict) and two of its steps split into their terms: a
    decode step of the realized mean number of running requests at the mean context (prompt + half the output) of the
    requests served (given the run's `result`; else the workload's), never past max_model_len, and a prefill step of
    one full token budget. Over the whole workload, rejected requests included, the decode example ran at 50,115
    tokens of context under max_model_len 8,192."""
    seqs = max(1, round(mean_running))
    served = result.completed if result is not None else None
    if served is not None and served.any():
        context = round(float((result.prompt_tokens[served] + result.completion_tokens[served] / 2).mean()))
    else:
        context = round(workload_summary["prompt_tokens"]["mean"] + workload_summary["completion_tokens"]["mean"] / 2)
    context = min(context, config.max_model_len)
    steps = [step_model.explain_step(seqs, seqs * context), step_model.explain_step(0, 0, [(config.max_num_batched_tokens, 0)])]
    if step_model.spec is not None:  # the same decode step verifying 1 + k tokens a request, with the drafter's passes
        steps.insert(1, step_model.spec.explain_step(step_model, seqs, seqs * context))
    for e in steps:  # each request's context, as 'step time: decode step of 12 requests at 2,559 tokens of context'
        if e["decode_seqs"]:  # prints it (--json had only the step's total, 30,708, for gpt-oss-20b at 4 req/s)
            e["decode_context_tokens_per_request"] = context
    return {**step_model.to_dict(), "example_steps": steps}


def step_line(e: dict) -> str:
    """One of step_model_report's example steps as a line: the step, its terms in ms, and for a speculative decode step
    the time per token it emits (`kvplan simulate` prints it after 'step time: ', the web page shows it)."""
    per_request = e.get("decode_context_tokens_per_request", e["decode_context_tokens"] // max(1, e["decode_seqs"]))
    what = (f"decode step of {e['decode_seqs']} request{'s' if e['decode_seqs'] != 1 else ''} at {per_request:,} tokens "
            "of context" if e["decode_seqs"] else f"prefill step of {e['prefill_chunks'][0][0]:,} tokens")
    parts = ", ".join(f"{k.replace('_', ' ')} {v:.2f}" for k, v in e["terms_ms"].items())
    if e.get("speculative"):  # the decode step as speculative decoding runs it, and its time per token emitted
        sp = e["speculative"]
        return (f"speculative {what}: {e['total_ms']:.2f} ms ({parts}), {sp['ms_per_token']:.2f} ms per token at "
                f"{sp['tokens_per_step']:.3f} tokens per step")
    return f"{what}: {e['total_ms']:.2f} ms ({parts})"


# A simulation's result in words, as `kvplan simulate` prints it and the web page shows it (/api/simulate answers each
# line and row): the server and workload lines, the concurrency and KV pool rows, the latency rows, throughput and goodput.
# With data parallelism the pool and concurrency figures are one engine's (simulate_replicas: replica 0's, or the
# busiest rank's in lockstep) while throughput and requests cover the whole server: they say so ('per engine'), where
# 'realized max running 29' read as the server's for two engines that ran 29 each.

LATENCY_COLUMNS = ("mean", "p50", "p90", "p99")
_LATENCY_ROWS = (("queue_ms", "queueing"), ("ttft_ms", "TTFT"), ("tpot_ms", "TPOT"), ("itl_ms", "ITL"), ("e2e_ms", "end-to-end"))


def pool_line(config: EngineConfig, data_parallel_size: int = 1) -> str:
    """The simulated server's pool and scheduler limits: 'pool 61,498 blocks x 16 tokens, max_num_seqs 256, ...'."""
    each = f" per engine (of {data_parallel_size})" if data_parallel_size > 1 else ""
    return (f"pool {config.num_gpu_blocks:,} blocks x {config.block_size} tokens{each}, max_num_seqs {config.max_num_seqs}, "
            f"max_num_batched_tokens {config.max_num_batched_tokens}, max_model_len {config.max_model_len:,}"
            f"{', prefix caching' if config.enable_prefix_caching else ''}")


def workload_line(summary: dict) -> str:
    """A workload's summary (Workload.summary()) in a line: its name, requests, prompt and output lengths, mean rate."""
    n = summary["requests"]
    return (f"workload {summary['name']}: {n:,} request{'s' if n != 1 else ''}, prompt mean "
            f"{summary['prompt_tokens']['mean']:.0f} / p99 {summary['prompt_tokens']['p99']:.0f}, output mean "
            f"{summary['completion_tokens']['mean']:.0f} / p99 {summary['completion_tokens']['p99']:.0f}"
            + (f", {rate_text(summary['mean_rate_per_s'])} req/s" if "mean_rate_per_s" in summary else ""))


def result_rows(d: dict, data_parallel_size: int = 1) -> list[tuple[str, str]]:
    """A simulation's (SimResult.to_dict()) concurrency and KV pool figures, a (label, value) row each: the worst case
    as fit prints it, the realized concurrency, KV usage, preemptions, prefix-cache hits, requests completed / rejected."""
    per = " per engine" if data_parallel_size > 1 else ""
    rows = [(f"worst case{per} (pool / max_model_len)", f"{d['worst_case_concurrency']:.2f}x"),
            (f"realized max running{per}", f"{d['max_running']}"),
            (f"realized mean / p50 / p90 / p99 running{per}",
             f"{d['mean_running']:.1f} / {d['running_p50']} / {d['running_p90']} / {d['running_p99']}")]
    if d["realized_over_worst_case"]:
        rows.append(("realized max / worst case", f"{d['realized_over_worst_case']:.1f}x"))
    rows.append((f"KV usage peak / mean{per}", f"{d['kv_usage_peak'] * 100:.1f} % / {d['kv_usage_mean'] * 100:.1f} %"))
    rows.append(("preemptions (requests) / recomputed tokens",
                 f"{d['preemptions']:,} ({d['requests_preempted']:,}) / {d['recomputed_tokens']:,}"))
    if d["prefix_hit_tokens"]:
        rows.append(("prefix-cache hit tokens", f"{d['prefix_hit_tokens']:,}"))
    rows.append(("requests completed / rejected", f"{d['requests_completed']:,} / {d['requests_rejected']:,}"))
    return rows


def latency_rows(d: dict) -> list[tuple[str, ...]]:
    """A simulation's latencies, a row each (queueing, TTFT, TPOT, ITL, end-to-end): the label and its LATENCY_COLUMNS
    in ms_text, a row in seconds where any of its figures reaches 10 s."""
    rows = []
    for key, label in _LATENCY_ROWS:
        v = d[key]
        in_seconds = max((v[q] or 0) for q in LATENCY_COLUMNS) >= 10_000
        rows.append((label, *(ms_text(v[q], in_seconds) for q in LATENCY_COLUMNS)))
    return rows


def throughput_line(d: dict) -> str:
    """The whole server's throughput: requests and tokens per second over the simulated time, and how busy it was."""
    return (f"throughput {rate_text(d['requests_per_s'])} req/s, {d['input_tokens_per_s']:,.0f} input + "
            f"{d['output_tokens_per_s']:,.0f} output tokens/s over {d['duration_s']:,.1f} s (busy {d['busy_fraction'] * 100:.0f} %)")


def goodput_line(d: dict) -> Optional[str]:
    """The goodput and the share of requests within the SLO (a rejected request counts as a miss); None without an SLO."""
    slo = d["slo"]
    if not any(v is not None for v in slo.values()):
        return None
    rejected = (f" (the {d['requests_rejected']:,} rejected count as misses)" if d["requests_rejected"] else "")
    return (f"goodput {rate_text(d['goodput_requests_per_s'])} req/s: {d['slo_attainment'] * 100:.1f} % of requests meet "
            + ", ".join(f"{k[:-3]} <= {v:g} ms" for k, v in slo.items() if v is not None) + rejected)


# =====================================================================================
# Speculative decoding in the step model
# =====================================================================================

# The acceptance a drafter reaches depends on the drafter, the target and the text, not on anything the plan holds:
# it is an input, in one of three forms (vLLM's names for the two it logs, vllm/v1/spec_decode/metrics.py
# SpecDecodingLogging.log, wheel 0.34.0, where "Mean acceptance length" = 1 + accepted / drafts, "the bonus token"
# included, and "Avg Draft acceptance rate" = accepted / drafted tokens).
SPEC_ACCEPTANCE_FLAGS = {
    "acceptance_rate": "--spec-acceptance-rate",
    "mean_acceptance_length": "--spec-mean-acceptance-length",
    "draft_acceptance_rate": "--spec-draft-acceptance-rate",
}


@dataclass(frozen=True)
class SpecAcceptance:
    """How often the drafter's tokens are accepted, as given (at most one of the three; none: not known).
    acceptance_rate: Leviathan et al. 2023's alpha ("Fast Inference from Transformers via Speculative Decoding",
        ICML 2023, section 3.1), the chance that a draft token is accepted, taken as the same for every position
        given the ones before it were (i.i.d.); vLLM logs it as the first value of "Per-position acceptance rate".
    mean_acceptance_length: vLLM's logged "Mean acceptance length", tokens emitted per request per step (1 + the
        accepted draft tokens: the bonus token included), 1 .. 1 + num_speculative_tokens.
    draft_acceptance_rate: vLLM's logged "Avg Draft acceptance rate" (accepted / drafted tokens) as a fraction 0 .. 1
        (the log prints it in percent)."""

    acceptance_rate: Optional[float] = None
    mean_acceptance_length: Optional[float] = None
    draft_acceptance_rate: Optional[float] = None

    def given(self) -> list[str]:
        return [name for name in SPEC_ACCEPTANCE_FLAGS if getattr(self, name) is not None]

    def tokens_per_step(self, k: int) -> tuple[float, str]:
        """(expected tokens a decoding request emits per step with k draft tokens, how that was read). Checks the
        value's range; refuses more than one form."""
        given = self.given()
        if len(given) > 1:
            raise InputError(SPEC_ACCEPTANCE_FLAGS[given[1]], f"{' and '.join(SPEC_ACCEPTANCE_FLAGS[g] for g in given)} "
                             "both say how many draft tokens are accepted", "give one of them")
        name = given[0]
        flag, v = SPEC_ACCEPTANCE_FLAGS[name], float(getattr(self, name))
        if not math.isfinite(v):
            raise InputError(flag, f"must be a number, got {v}", _SPEC_ACCEPTANCE_FIX)
        if name == "mean_acceptance_length":
            if not 1.0 <= v <= 1.0 + k:
                raise InputError(flag, f"{v:g} is outside 1 .. {1 + k} (1 + num_speculative_tokens {k}): vLLM's mean "
                                 "acceptance length counts the bonus token and at most every draft token",
                                 f"give a value from 1 to {1 + k}, e.g. the 'Mean acceptance length' of vLLM's "
                                 "'SpecDecoding metrics' log line")
            return v, f"{flag} {v:g} (vLLM's mean acceptance length: the bonus token and the accepted draft tokens)"
        if not 0.0 <= v <= 1.0:
            raise InputError(flag, f"{v:g} is outside 0 .. 1", "give a fraction, e.g. 0.6 for 60 %"
                             + (" (vLLM's log prints the draft acceptance rate in percent)"
                                if name == "draft_acceptance_rate" else ""))
        if name == "draft_acceptance_rate":
            return 1.0 + k * v, f"{flag} {v:g}: 1 + {k} x {v:g} (vLLM's accepted / drafted tokens)"
        return expected_tokens_per_step(v, k), (f"{flag} {v:g}: (1 - a^(k+1)) / (1 - a) with a = {v:g}, k = {k} "
                                               "(i.i.d. acceptance, Leviathan et al. 2023)")


_SPEC_ACCEPTANCE_FIX = ("give the drafter's acceptance: --spec-acceptance-rate A (per-token, 0..1), "
                        "--spec-mean-acceptance-length L or --spec-draft-acceptance-rate R (vLLM's logged metrics)")


def expected_tokens_per_step(acceptance_rate: float, k: int) -> float:
    """Tokens one verification step emits per request on average: the accepted prefix of the k draft tokens plus the
    target's own (bonus or correction) token, 1 + a + ... + a^k = (1 - a^(k+1)) / (1 - a) when each draft token is
    accepted with probability a independently of the position (Leviathan et al. 2023, Theorem 3.8; k + 1 at a = 1)."""
    a = float(acceptance_rate)
    if a >= 1.0:
        return float(k + 1)
    return (1.0 - a ** (k + 1)) / (1.0 - a)


@dataclass(frozen=True)
class SpecDecode:
    """Speculative decoding in the step model. Each decode step of a request verifies 1 + k tokens in the target's
    forward (the k draft tokens and the bonus position: the scheduler takes 1 + k tokens of the step's budget for it,
    v1/core/sched/scheduler.py Scheduler.schedule `token_budget -= num_new_tokens`, its spec tokens included; the LM
    head runs at all 1 + k positions, v1/worker/gpu/model_runner.py `num_logits = num_draft_tokens_per_req +
    num_bonus_tokens`, wheel 0.34.0) and emits `tokens_per_step` of them on average. The drafter runs k passes after the target's (model runner v2, vllm/v1/worker/gpu/spec_decode,
    wheel 0.34.0): the first over the step's whole batch (speculator.py DraftModelSpeculator: "draft prefill on the
    target batch", prefill chunks included, writing the drafter's KV), then k - 1 of one token per request
    (autoregressive/speculator.py _multi_step_decode, `for step in range(1, num_speculative_steps)`). `drafter`: its
    step model (an EAGLE head or a draft model, at the target's GPU and coefficients); None for n-gram / suffix
    drafting (no GPU forward). `target_kv_bytes_per_token`: the target's own layers' KV per context token (the plan's
    figure counts the drafter's layers in the same pages)."""

    method: str
    num_speculative_tokens: int
    tokens_per_step: float
    source: str
    drafter: Optional["StepModel"] = None
    target_kv_bytes_per_token: Optional[float] = None

    @property
    def verify_tokens(self) -> int:
        return 1 + self.num_speculative_tokens

    def target_of(self, step_model: "StepModel") -> "StepModel":
        """The target's step model reading its own layers' KV only."""
        kv = self.target_kv_bytes_per_token
        return step_model if kv is None or kv == step_model.kv_bytes_per_token else replace(step_model, kv_bytes_per_token=kv)

    def verify_context_token_s(self, target: "StepModel") -> float:
        """The target's decode attention per context token with 1 + k query tokens: the KV read once, its FLOPs
        1 + k times."""
        return max(target.kv_bytes_per_token / (target.hbm_bytes_per_s * target.coeffs.eta_kv_mem),
                   self.verify_tokens * target._compute_s(target.attn_flops_per_token_pair))

    def context_token_s(self, target: "StepModel") -> tuple:
        """A speculative step's seconds per context token of its decoders: (the target's verification,
        `verify_context_token_s`; the drafter's k passes, each reading its own KV of the context: 0 with no drafter).
        With `fixed_s` the one formula of a speculative step, window layers and prefill attention apart."""
        return (self.verify_context_token_s(target),
                self.num_speculative_tokens * self.drafter.per_context_token_s if self.drafter is not None else 0.0)

    def fixed_s(self, target: "StepModel", tokens: int, seqs: int, logits: int, fixed_part=None) -> tuple:
        """A speculative step's seconds apart from context: (the target's verification forward over `tokens`, 1 + k a
        decoding request and the prefill chunks' tokens, for `seqs` requests with the LM head at `logits` positions;
        the drafter's k passes, the first over the step's tokens, then k - 1 of one token a request: 0 with no
        drafter). `fixed_part`: the target's fixed_part_s as the caller times it (the simulator pads it to the step's
        CUDA graph); by default its own."""
        verify = (fixed_part or target.fixed_part_s)(tokens, seqs, logits)
        d = self.drafter
        return verify, (d.fixed_part_s(tokens, seqs) + (self.num_speculative_tokens - 1) * d.fixed_part_s(seqs, seqs)
                        if d is not None else 0.0)

    def explain_step(self, step_model: "StepModel", decode_seqs: int, decode_context_tokens: int) -> dict:
        """A speculative decode step of `decode_seqs` requests (as StepModel.explain_step has a plain one): the target's
        verification and the drafter's passes in milliseconds, and the time per emitted token."""
        n, ctx, q, k = decode_seqs, decode_context_tokens, self.verify_tokens, self.num_speculative_tokens
        t = self.target_of(step_model)
        verify_fixed, draft_fixed = self.fixed_s(t, n * q, n, n * q)
        verify_rate, draft_rate = self.context_token_s(t)
        terms = {f"target_verify_{q}_tokens": verify_fixed + verify_rate * ctx + t.window_decode_s(n, ctx)[0]}
        if self.drafter is not None:
            terms[f"drafter_{k}_passes"] = draft_fixed + draft_rate * ctx
        total = sum(terms.values())
        return {"decode_seqs": n, "decode_context_tokens": ctx, "prefill_chunks": [],
                "terms_ms": {key: round(v * 1e3, 4) for key, v in terms.items() if v}, "total_ms": round(total * 1e3, 4),
                "speculative": {"tokens_per_step": self.tokens_per_step,
                                "ms_per_token": round(total * 1e3 / self.tokens_per_step, 4)}}

    def to_dict(self) -> dict:
        d = {"method": self.method, "num_speculative_tokens": self.num_speculative_tokens,
             "mean_acceptance_length": self.tokens_per_step, "acceptance": self.source,
             "verify_tokens_per_request": self.verify_tokens, "drafter_passes": self.num_speculative_tokens if self.drafter else 0}
        if self.drafter is not None:
            d["drafter"] = {"weights_bytes_per_rank": self.drafter.weights_bytes_per_rank,
                            "kv_bytes_per_token": self.drafter.kv_bytes_per_token, "num_layers": self.drafter.num_layers}
        return d

    def note(self) -> str:
        k = self.num_speculative_tokens
        drafter = ("the n-gram drafter runs on the CPU: no GPU forward, its time not charged" if self.drafter is None else
                   f"the {self.method} drafter runs {k} pass(es) a step (the first over the step's tokens, then one token "
                   "per request)")
        return (f"speculative decoding ({self.method}, {k} tokens): {self.tokens_per_step:.3f} tokens per request per "
                f"decode step from {self.source}; the target verifies {self.verify_tokens} tokens per decoding request "
                f"and {drafter}; simulated as one-token steps each lasting 1/{self.tokens_per_step:.3f} of the "
                "speculative step (a step with prefill chunks: their added cost in full), so latencies and throughput "
                "are expected values and ITL percentiles are smoothed (vLLM emits a step's accepted tokens together); "
                f"the {k} lookahead slot(s) per request are not held in the simulated pool")


def spec_decode_for(plan, step_model: "StepModel", acceptance: SpecAcceptance) -> SpecDecode:
    """The plan's speculative decoding at the acceptance given, with the drafter's step model; refused where the plan
    has none or where the drafter's size is not a term of the plan."""
    given = acceptance.given()
    flag = SPEC_ACCEPTANCE_FLAGS[given[0]]
    spec = getattr(plan.args, "speculative", None)
    if not spec:
        raise InputError(flag, "the plan has no speculative decoding: there is no draft to accept",
                         "give --speculative-config (e.g. '{\"method\": \"ngram\", \"num_speculative_tokens\": 3}'), or "
                         f"leave {flag} out")
    method, k = spec[0], int(spec[1])
    per_step, source = acceptance.tokens_per_step(k)
    if method == "ngram":
        return SpecDecode(method, k, per_step, source)
    info = dict(getattr(plan, "speculative", None) or {})
    if method == "mtp":
        raise InputError(flag, f"the drafter's cost is unknown: the plan counts the checkpoint's {plan.model.mtp_layers} "
                         "MTP layer(s) inside the model's weights, so the bytes and FLOPs of one MTP forward (a term the "
                         "step model needs for each of the k draft passes) are not a term of the plan, and kvplan does "
                         "not guess them", f"leave {flag} out (the simulation then notes that speculative decoding is "
                         "outside the step model), or plan an EAGLE / draft-model drafter or ngram")
    draft = getattr(plan.args, "draft", None)
    parts = dict(info.get("draft_weights_parts") or {})
    if draft is None or not parts:
        raise InputError(flag, f"the {method} drafter's weights are not in the plan (draft_weights_parts), which its "
                         "k forward passes read", f"leave {flag} out")
    drafter_kv = _drafter_kv_bytes_per_token(plan, draft, info)
    drafter = _drafter_step_model(plan, step_model, method, draft, parts, info, drafter_kv)
    return SpecDecode(method, k, per_step, source, drafter=drafter,
                      target_kv_bytes_per_token=step_model.kv_bytes_per_token - drafter_kv)


def _drafter_kv_bytes_per_token(plan, draft, info: dict) -> float:
    from kvplan.resolve import heads_per_rank
    from kvplan.weights import kv_dtype_bytes

    tp = int(getattr(plan.args, "tensor_parallel_size", 1) or 1)
    layers = int(info.get("draft_kv_layers") or 0)
    return float(layers * 2 * heads_per_rank(draft.num_kv_heads, tp) * draft.head_dim
                 * kv_dtype_bytes(plan.args.kv_cache_dtype or "auto", plan.args.dtype))


def _drafter_step_model(plan, target: "StepModel", method: str, draft, parts: dict, info: dict,
                        kv: float) -> "StepModel":
    """The drafter's own step model, at the target's GPU, TP and coefficients. Its streamed bytes are the plan's
    drafter parts (kvplan.weights.drafter_weights): an EAGLE head's layers, fc and (EAGLE-3) its own draft-vocabulary
    lm_head, or (EAGLE) the target's lm_head it shares, read once per pass; an own embedding table (pipeline stages)
    is a lookup. A draft model is a whole model (its untied input embedding a lookup). `kv`: the drafter's KV bytes per
    token (_drafter_kv_bytes_per_token)."""
    from kvplan.resolve import DTYPE_BYTES
    from kvplan.weights import draft_vocab_size

    tp = int(getattr(plan.args, "tensor_parallel_size", 1) or 1)
    dtype_b = float(DTYPE_BYTES[plan.args.dtype])
    common = dict(num_layers=draft.num_layers, hidden_size=draft.hidden_size,
                  num_attention_heads=draft.num_attention_heads, num_kv_heads=draft.num_kv_heads, head_dim=draft.head_dim,
                  kv_bytes_per_token=kv, hbm_bytes_per_s=target.hbm_bytes_per_s, peak_flops_per_s=target.peak_flops_per_s,
                  tensor_parallel_size=tp, coeffs=target.coeffs)
    if method == "draft_model":
        whole = float(info.get("draft_weights_bytes") or sum(parts.values())) * tp
        sm = StepModel.from_numbers(weights_bytes=whole, active_params=float(draft.active_params), vocab_size=draft.vocab_size,
                                    embedding_bytes=embedding_bytes(draft), **common)
    else:
        streamed = float(sum(b for name, b in parts.items() if not name.startswith("embed_tokens")))
        if method == "eagle3":
            vocab = draft_vocab_size(draft)
        else:  # the target's lm_head, shared: vocab x hidden / TP at the model dtype
            vocab = int(plan.model.vocab_size)
            streamed += target.lm_head_flops_per_seq / 2.0 * dtype_b
        sm = StepModel.from_numbers(weights_bytes=streamed * tp, active_params=streamed * tp / dtype_b, vocab_size=vocab,
                                    rank_bytes=(streamed, 0.0), **common)
    return replace(sm, link_bytes_per_s=target.link_bytes_per_s, collective_latency_s=target.collective_latency_s, notes=())


def _layer_reads(plan) -> dict:
    """What a step reads per layer kind, from the plan's KV groups (per rank): how many layers attend to the whole
    context, the window layers as (window, KV bytes per token, layers), and one sequence's recurrent state (one page
    per recurrent layer). An empty dict where the plan has no groups (the seed's arithmetic)."""
    groups = tuple(getattr(plan, "groups", ()) or ())
    layers = [l for l in getattr(plan.model, "layers", ()) if getattr(l, "kind", "none") != "none"]
    if not groups or sum(g.num_layers for g in groups) != len(layers):
        return {}  # groups that do not list every layer once (pipeline stages, DeepSeek-V4's layer tuples): all as global
    whole = sum(g.num_layers for g in groups if g.kind in ("full", "mla"))
    windows: dict[int, list] = {}
    for g in groups:
        if g.kind in ("sliding", "chunked") and g.window:
            acc = windows.setdefault(int(g.window), [0.0, 0])
            acc[0] += g.page_bytes / g.block_size * g.num_layers
            acc[1] += g.num_layers
    state = sum(g.page_bytes * g.num_layers for g in groups if g.kind == "recurrent")
    return {"attention_layers": whole, "windows": tuple((w, b, n) for w, (b, n) in sorted(windows.items())),
            "state_bytes_per_seq": float(state)}


def embedding_bytes(model) -> float:
    """Bytes of the input embedding table when it is a separate tensor (untied): looked up, not streamed."""
    if getattr(model, "tie_word_embeddings", False):
        return 0.0
    per_param = float(getattr(model, "dtype_bytes", 2) or 2)
    return float(model.vocab_size) * float(model.hidden_size) * per_param



# =====================================================================================
# Results
# =====================================================================================


def _pcts(values: np.ndarray, scale: float = 1.0) -> dict:
    if values.size == 0:
        return {"mean": None, "p50": None, "p90": None, "p99": None}
    v = values * scale
    p50, p90, p99 = np.percentile(v, [50, 90, 99])
    return {"mean": float(v.mean()), "p50": float(p50), "p90": float(p90), "p99": float(p99)}


@dataclass(frozen=True)
class SLO:
    ttft_ms: Optional[float] = None
    tpot_ms: Optional[float] = None
    e2e_ms: Optional[float] = None
    percentile: float = 99.0  # capacity: the percentile that must meet the SLO
    # The parts of the --slo text whose number had no unit and so was read as milliseconds (parse_slo), as written:
    # the CLI's note says so from these, so what was parsed and what is said cannot disagree. Not part of the objective.
    bare_ms: tuple[str, ...] = field(default=(), compare=False)

    def met_by(self, ttft_s: np.ndarray, tpot_s: np.ndarray, e2e_s: np.ndarray) -> np.ndarray:
        ok = np.ones(ttft_s.shape, dtype=bool)
        if self.ttft_ms is not None:
            ok &= ttft_s * 1e3 <= self.ttft_ms
        if self.tpot_ms is not None:
            ok &= np.nan_to_num(tpot_s, nan=0.0) * 1e3 <= self.tpot_ms
        if self.e2e_ms is not None:
            ok &= e2e_s * 1e3 <= self.e2e_ms
        return ok

    def describe(self) -> str:
        parts = [f"{k}<={v:g}ms" for k, v in (("ttft", self.ttft_ms), ("tpot", self.tpot_ms), ("e2e", self.e2e_ms)) if v is not None]
        return ", ".join(parts) + f" at p{self.percentile:g}" if parts else "none"


# other names of the objectives: vllm bench serve's e2el (its --goodput and --percentile-metrics keys), and the
# end-to-end latency by its plain names
_SLO_ALIASES = {"e2el": "e2e", "latency": "e2e", "e2e_latency": "e2e"}


def _slo_parts(text: str) -> list[str]:
    """The objectives of an --slo text as written, one 'key=value' (or 'key:value') each: separated by commas, or by
    spaces before the next key, as `vllm bench serve --goodput ttft:500 tpot:50` takes them (argparse nargs="+",
    "KEY:VALUE pairs ... separated by spaces": vllm/benchmarks/serve.py, read in 0.10.2 and 0.20.0); spaces around
    '=' or ':' and before a unit ('ttft = 500 ms') stay inside their objective."""
    return [p.strip() for part in text.split(",") for p in re.split(r"\s+(?=[A-Za-z_]\w*\s*[=:])", part.strip())
            if p.strip()] or [text]


def parse_slo(text: Optional[str], percentile: float = 99.0) -> SLO:
    """'ttft=500ms,tpot=50ms' (units ms or s; bare numbers are ms, and the parts that had one are kept in SLO.bare_ms);
    vllm bench serve's --goodput form 'ttft:500 tpot:50' (`_slo_parts`) too."""
    if not text or not text.strip():
        return SLO(percentile=percentile)
    vals = {}
    bare = []
    for part in _slo_parts(text):
        # 'ttft:500' too, as `vllm bench serve --goodput` writes its objectives
        key, _, raw = part.strip().partition("=" if "=" in part else ":")
        key = key.strip().lower()
        key = _SLO_ALIASES.get(key, key)
        raw = raw.strip().lower()
        if key == "itl":
            raise InputError("--slo", "itl (the gap between two tokens) is not an objective kvplan checks per request",
                             "use tpot=, the mean gap over a request's output (what vllm bench serve's goodput calls tpot)")
        if key not in ("ttft", "tpot", "e2e") or not raw:
            raise InputError("--slo", f"cannot read {part!r}", "write e.g. ttft=500ms,tpot=50ms (keys ttft, tpot, e2e; "
                             "e2el or latency for e2e)")
        if key in vals:
            raise InputError("--slo", f"{key} is given twice", f"give one {key}= value")
        try:
            if raw.endswith("ms"):
                v = float(raw[:-2])
            elif raw.endswith("s"):
                v = float(raw[:-1]) * 1e3
            else:
                v = float(raw)
                bare.append(part.strip())
        except ValueError:
            raise InputError("--slo", f"cannot read the number in {part!r}", "e.g. ttft=500ms or ttft=0.5s")
        if not (math.isfinite(v) and v > 0):
            raise InputError("--slo", f"{key} must be a positive number, got {raw!r}", "e.g. tpot=50ms")
        vals[key] = v
    return SLO(ttft_ms=vals.get("ttft"), tpot_ms=vals.get("tpot"), e2e_ms=vals.get("e2e"), percentile=percentile,
               bare_ms=tuple(bare))


@dataclass(frozen=True, eq=False)
class SimResult:
    """Everything one simulation measured. Times in seconds unless the name says otherwise."""

    config: EngineConfig
    rules: SchedulerRules
    workload_name: str
    worst_case_concurrency: float
    # per request (index = workload order)
    arrival_s: np.ndarray
    first_scheduled_s: np.ndarray
    first_token_s: np.ndarray
    finish_s: np.ndarray
    prompt_tokens: np.ndarray
    completion_tokens: np.ndarray
    preemptions_per_request: np.ndarray
    rejected: np.ndarray  # bool: vLLM would refuse it (prompt + output > max_model_len or > pool)
    # aggregates
    steps: int
    preemptions: int
    recomputed_tokens: int
    prefix_hit_tokens: int
    prefill_tokens_computed: int
    decode_tokens_computed: int
    busy_s: float
    makespan_s: float
    running_time_hist_s: np.ndarray  # seconds spent with n running (index n)
    max_running: int
    kv_usage_peak: float
    kv_usage_time_mean: float
    itl_hist_edges_s: np.ndarray
    itl_hist_tokens: np.ndarray
    # time series (sampled)
    ts_t_s: np.ndarray
    ts_running: np.ndarray
    ts_waiting: np.ndarray
    ts_kv_usage: np.ndarray
    slo: SLO = SLO()
    wall_s: float = 0.0
    notes: tuple[str, ...] = ()

    # ---- derived per-request arrays (completed requests only)
    @property
    def completed(self) -> np.ndarray:
        return np.isfinite(self.finish_s) & ~self.rejected

    @property
    def ttft_s(self) -> np.ndarray:
        c = self.completed
        return self.first_token_s[c] - self.arrival_s[c]

    @property
    def e2e_s(self) -> np.ndarray:
        c = self.completed
        return self.finish_s[c] - self.arrival_s[c]

    @property
    def tpot_s(self) -> np.ndarray:
        """(last token - first token) / (output tokens - 1); requests with one output token excluded."""
        c = self.completed & (self.completion_tokens > 1)
        return (self.finish_s[c] - self.first_token_s[c]) / (self.completion_tokens[c] - 1)

    @property
    def queue_s(self) -> np.ndarray:
        c = self.completed
        return self.first_scheduled_s[c] - self.arrival_s[c]

    @property
    def mean_running(self) -> float:
        total = self.running_time_hist_s.sum()
        return float((self.running_time_hist_s * np.arange(self.running_time_hist_s.size)).sum() / total) if total > 0 else 0.0

    def request_table(self) -> dict[str, np.ndarray]:
        """One column per figure, one row per request (workload order): what the latency percentiles are taken over,
        so they can be recomputed. Times in seconds from the run's start, latencies in ms; NaN where a request has no
        such time (rejected, or one output token for tpot). `completed` marks the rows the percentiles count."""
        c = self.completed
        nan = np.full(self.arrival_s.size, np.nan)

        def ms(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
            out = nan.copy()
            out[rows] = values * 1e3
            return out

        return {"arrival_s": self.arrival_s, "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "first_scheduled_s": np.where(c, self.first_scheduled_s, np.nan),
                "first_token_s": np.where(c, self.first_token_s, np.nan), "finish_s": np.where(c, self.finish_s, np.nan),
                "queue_ms": ms(self.queue_s, c), "ttft_ms": ms(self.ttft_s, c),
                "tpot_ms": ms(self.tpot_s, c & (self.completion_tokens > 1)), "e2e_ms": ms(self.e2e_s, c),
                "preemptions": self.preemptions_per_request, "rejected": self.rejected, "completed": c}

    def running_percentile(self, q: float) -> int:
        h = self.running_time_hist_s
        if h.sum() <= 0:
            return 0
        cdf = np.cumsum(h) / h.sum()
        return int(np.searchsorted(cdf, q / 100.0))

    def itl_percentiles_ms(self) -> dict:
        w = self.itl_hist_tokens
        if w.sum() <= 0:
            return {"mean": None, "p50": None, "p90": None, "p99": None}
        mids = np.sqrt(self.itl_hist_edges_s[:-1] * self.itl_hist_edges_s[1:])
        cdf = np.cumsum(w) / w.sum()
        pick = lambda q: float(mids[min(np.searchsorted(cdf, q), mids.size - 1)] * 1e3)
        return {"mean": float((mids * w).sum() / w.sum() * 1e3), "p50": pick(0.5), "p90": pick(0.9), "p99": pick(0.99)}

    def slo_attainment(self, slo: Optional[SLO] = None) -> float:
        slo = slo or self.slo
        c = self.completed
        if not c.any():
            return 0.0
        tpot = np.full(c.sum(), np.nan)
        multi = self.completion_tokens[c] > 1
        tpot[multi] = (self.finish_s[c][multi] - self.first_token_s[c][multi]) / (self.completion_tokens[c][multi] - 1)
        ok = slo.met_by(self.first_token_s[c] - self.arrival_s[c], tpot, self.finish_s[c] - self.arrival_s[c])
        return float(ok.sum() / max(1, self.arrival_s.size))  # a rejected request (an error to its client) misses

    def slo_check(self, slo: Optional[SLO] = None) -> dict:
        """Each objective's value at the SLO's percentile, as `meets` compares it, and the verdict. Rejected requests
        count as misses (their clients got an error): the percentile is taken over all requests, the rejected ones
        ranked last, which is the completed requests' percentile at q x total / completed (beyond 100: missed, and
        no value). Every admitted request must also have completed."""
        slo = slo or self.slo
        done = int(self.completed.sum())
        q = slo.percentile * self.arrival_s.size / max(1, done)

        def at(values: np.ndarray) -> Optional[float]:
            return float(np.percentile(values, q) * 1e3) if values.size and q <= 100.0 else None

        values = {"ttft_ms": at(self.ttft_s), "tpot_ms": at(self.tpot_s), "e2e_ms": at(self.e2e_s)}
        limits = {"ttft_ms": slo.ttft_ms, "tpot_ms": slo.tpot_ms, "e2e_ms": slo.e2e_ms}
        met = done > 0 and done >= int((~self.rejected).sum()) and q <= 100.0 and all(
            values[k] is None or values[k] <= limit for k, limit in limits.items() if limit is not None)
        return {"percentile": slo.percentile, "percentile_of_completed": q, **values, "meets": bool(met)}

    def meets(self, slo: Optional[SLO] = None) -> bool:
        """Every SLO holds at its percentile, and every admitted request completed (slo_check)."""
        return self.slo_check(slo)["meets"]

    def to_dict(self) -> dict:
        c = self.completed
        span = self.makespan_s
        out_tokens = int(self.completion_tokens[c].sum())
        in_tokens = int(self.prompt_tokens[c].sum())
        attain = self.slo_attainment()
        d = {
            "workload": self.workload_name,
            "vllm_version": self.rules.version,
            "scheduler_rules": asdict(self.rules),
            "engine": asdict(self.config),
            "requests_total": int(self.arrival_s.size),
            "requests_completed": int(c.sum()),
            "requests_rejected": int(self.rejected.sum()),
            "worst_case_concurrency": self.worst_case_concurrency,
            "max_running": int(self.max_running),
            "mean_running": self.mean_running,
            "running_p50": self.running_percentile(50),
            "running_p90": self.running_percentile(90),
            "running_p99": self.running_percentile(99),
            "realized_over_worst_case": (self.max_running / self.worst_case_concurrency) if self.worst_case_concurrency else None,
            "kv_usage_peak": self.kv_usage_peak,
            "kv_usage_mean": self.kv_usage_time_mean,
            "preemptions": int(self.preemptions),
            "requests_preempted": int((self.preemptions_per_request > 0).sum()),
            "recomputed_tokens": int(self.recomputed_tokens),
            "prefix_hit_tokens": int(self.prefix_hit_tokens),
            "queue_ms": _pcts(self.queue_s, 1e3),
            "ttft_ms": _pcts(self.ttft_s, 1e3),
            "tpot_ms": _pcts(self.tpot_s, 1e3),
            "itl_ms": self.itl_percentiles_ms(),
            "e2e_ms": _pcts(self.e2e_s, 1e3),
            "duration_s": span,
            "steps": int(self.steps),
            "busy_fraction": self.busy_s / span if span > 0 else 0.0,
            "requests_per_s": float(c.sum() / span) if span > 0 else 0.0,
            "input_tokens_per_s": in_tokens / span if span > 0 else 0.0,
            "output_tokens_per_s": out_tokens / span if span > 0 else 0.0,
            "slo": {"ttft_ms": self.slo.ttft_ms, "tpot_ms": self.slo.tpot_ms, "e2e_ms": self.slo.e2e_ms},
            "slo_attainment": attain,
            # the objectives at the SLO's percentile, as capacity checks them (and prints them)
            "slo_check": self.slo_check() if any(v is not None for v in (self.slo.ttft_ms, self.slo.tpot_ms, self.slo.e2e_ms)) else None,
            "goodput_requests_per_s": attain * self.arrival_s.size / span if span > 0 else 0.0,
            "simulator_wall_s": self.wall_s,
            # where async scheduling is on, what of it is simulated (`async_scheduling_note`): the admission lag, not
            # the host time it overlaps, so latencies are an upper bound from that side. None for V0
            "async_scheduling": None if self.rules.engine != "v1" else {
                "on": self.rules.async_scheduling, "admission_lag_modelled": self.rules.async_scheduling,
                "host_overlap_modelled": False,
                "latencies_from_host_side": "upper bound" if self.rules.async_scheduling else None},
            "notes": list(self.notes),
        }
        return d


# =====================================================================================
# The engine
# =====================================================================================

_ITL_EDGES_S = np.geomspace(1e-4, 1e3, 561)  # 80 bins per decade




class _PrefixCache:
    """vLLM's block pool with prefix caching (vllm/v1/core/block_pool.py and kv_cache_utils.py@0.19).

    Full blocks are hashed with their parent's hash; a block nobody uses goes to the TAIL of the free queue
    and keeps its hash (it still counts as free), and allocation pops blocks from the HEAD of that queue,
    evicting the hash of a cached block it pops -- LRU over all free blocks, cached or not (`popleft_n`,
    `_maybe_evict_cached_block`). A request's blocks are freed in reverse order (`free_blocks(reversed(...))`
    in single_type_kv_cache_manager.py), so its tail blocks are evicted first and its prefix survives longest.
    One cache entry = `blocks_per_hash` KV blocks. `free` holds the queue in order: cached keys (their
    entry's blocks) and runs of plain free blocks (keys ("plain", n)); at start one run of every usable block."""

    def __init__(self, blocks_per_hash: int, usable_blocks: int):
        self.blocks_per_hash = blocks_per_hash
        self.ref: dict = {}  # key -> users (> 0)
        self.free: OrderedDict = OrderedDict()  # the free queue, head first: key -> blocks
        self.n_cached_free = 0  # cached keys in the free queue
        self.plain_free = 0  # blocks in plain runs
        self._runs = 0
        self.evicted = 0  # cache entries evicted (statistics)
        self.free_plain(usable_blocks)

    def in_use_blocks(self) -> int:
        return len(self.ref) * self.blocks_per_hash

    def free_blocks(self) -> int:
        return self.plain_free + self.n_cached_free * self.blocks_per_hash

    def cached(self, key) -> bool:
        return key in self.ref or (key in self.free and not (type(key) is tuple and key[0] == "plain"))

    def match(self, chain) -> tuple[int, int]:
        """(leading entries of `chain` that are cached, how many of those sit in the free queue)."""
        n = in_free = 0
        ref, free = self.ref, self.free
        for key in chain:
            if key in ref:
                n += 1
            elif key in free:
                n += 1
                in_free += 1
            else:
                break
        return n, in_free

    def free_plain(self, blocks: int) -> None:
        """Append `blocks` uncached blocks to the tail of the free queue."""
        if blocks > 0:
            self._runs += 1
            self.free[("plain", self._runs)] = blocks
            self.plain_free += blocks

    def free_cached(self, keys) -> list:
        """Append a released request's own full blocks, already in reverse order, as cached entries; a key
        that is already cached (another copy) is freed as plain blocks. Returns the keys cached."""
        got = []
        for key in keys:
            if key in self.ref or key in self.free:
                self.free_plain(self.blocks_per_hash)
                continue
            self.free[key] = self.blocks_per_hash
            self.n_cached_free += 1
            got.append(key)
        return got

    def take(self, blocks: int) -> None:
        """Pop `blocks` from the head of the free queue (the caller checked they are free), evicting cached
        entries popped on the way; an entry's leftover blocks stay at the head as plain blocks."""
        free = self.free
        while blocks > 0:
            key = next(iter(free))
            cnt = free[key]
            if not (type(key) is tuple and key[0] == "plain"):  # evict a cached entry: its blocks become plain
                del free[key]
                self.n_cached_free -= 1
                self.evicted += 1
                self._runs += 1
                run = ("plain", self._runs)
                free[run] = cnt
                free.move_to_end(run, last=False)
                self.plain_free += cnt
                key = run
            if cnt <= blocks:
                del free[key]
                self.plain_free -= cnt
                blocks -= cnt
            else:
                free[key] = cnt - blocks
                self.plain_free -= blocks
                blocks = 0

    def acquire(self, keys) -> None:
        for key in keys:
            if key in self.ref:
                self.ref[key] += 1
            else:
                del self.free[key]
                self.n_cached_free -= 1
                self.ref[key] = 1

    def adopt(self, keys) -> list:
        """A request computed these full blocks: the ones not held by anyone become shared entries."""
        got = []
        for key in keys:
            if key in self.ref:
                continue  # someone else's copy is in use; ours stays private
            if key in self.free:  # a stale free copy: ours replaces it (the old one becomes plain)
                del self.free[key]
                self.n_cached_free -= 1
                self.free_plain(self.blocks_per_hash)
            self.ref[key] = 1
            got.append(key)
        return got

    def release(self, keys) -> None:
        """Drop one user of each key, in the order given (callers pass a request's keys last block first)."""
        for key in keys:
            r = self.ref[key]
            if r <= 1:
                del self.ref[key]
                self.free[key] = self.blocks_per_hash
                self.n_cached_free += 1
            else:
                self.ref[key] = r - 1


def _chain_keys(hashes: tuple) -> tuple:
    """Block i's key covers blocks 0..i (vLLM hashes each block together with its parent's hash)."""
    out = []
    parent = 0
    for h in hashes:
        parent = hash((parent, h))
        out.append(parent)
    return tuple(out)


class _Shared:
    """Per-request arrays every engine writes (each only its own requests)."""

    def __init__(self, n: int):
        inf = math.inf
        self.first_sched = [inf] * n
        self.first_tok = [inf] * n
        self.finish = [inf] * n
        self.n_pre = [0] * n


@dataclass(frozen=True)
class _StepLimits:
    """What one scheduler step may hold, resolved from the config and the rules."""

    budget_tokens: int  # tokens per step (max_num_batched_tokens; V0 without chunked prefill: >= max_model_len)
    max_seqs: int  # running requests (vLLM requires max_num_batched_tokens >= max_num_seqs)
    # per-request prefill chunk cap (long_prefill_token_threshold, else the budget) where the release applies it
    # (`SchedulerRules.long_prefill_needs_chunked`). V1 0.8-0.33 applies it with chunked prefill or without
    # (vllm/v1/core/sched/scheduler.py: it caps num_new_tokens before the `not enable_chunked_prefill and
    # num_new_tokens > token_budget` check, so a capped prompt is prefilled in threshold-sized steps); V0 and V1 from
    # 0.34 only when chunking, so without chunked prefill they admit a whole prompt that fits the budget whatever the
    # threshold. From 0.31 a step with one request running or waiting takes no cap
    # (`SchedulerRules.long_prefill_needs_company`), and the adaptive threshold's fair-share floor
    # (`SchedulerRules.long_prefill_adaptive`) depends on the requests: the engine decides both per step.
    chunk_cap_tokens: int
    watermark_blocks: int  # V0: blocks kept free at admission while anything runs

    @classmethod
    def of(cls, cfg: EngineConfig, rules: SchedulerRules) -> "_StepLimits":
        budget = cfg.max_num_batched_tokens
        if not rules.chunked_prefill:
            budget = max(budget, cfg.max_model_len)
        threshold = budget
        if 0 < cfg.long_prefill_token_threshold < budget and (rules.chunked_prefill or not rules.long_prefill_needs_chunked):
            threshold = cfg.long_prefill_token_threshold
        return cls(budget_tokens=budget, max_seqs=min(cfg.max_num_seqs, budget), chunk_cap_tokens=threshold,
                   watermark_blocks=int(rules.watermark_fraction * cfg.num_gpu_blocks))


def _blocks_for_fn(cfg: EngineConfig) -> Callable[[int], int]:
    """`cfg.blocks_for` as a fast closure (the engine calls it on every allocation)."""
    bs = cfg.block_size
    g = cfg.blocks_per_boundary
    fixed_blocks = cfg.fixed_blocks_per_seq
    caps = tuple(sorted(cfg.window_caps))
    if caps:
        def bfor(n: int) -> int:
            k = -(-n // bs)
            b = fixed_blocks + g * k
            for cap in caps:
                b += cap if k > cap else k
            return b
    else:
        def bfor(n: int) -> int:
            return fixed_blocks + g * (-(-n // bs))
    return bfor


def _decode_steps_fitting(avail_blocks: int, wphase: list, per_cycle: int, clock: int, bs: int) -> int:
    """Pure-decode steps the free pool can feed from decode clock `clock`: whole block_size cycles of
    `per_cycle` blocks each, then single steps while the next phase's need still fits."""
    cycles = avail_blocks // per_cycle
    k_pool = cycles * bs
    rem = avail_blocks - cycles * per_cycle
    for _ in range(bs):
        need_j = wphase[(-(clock + k_pool)) % bs]
        if need_j > rem:
            break
        rem -= need_j
        k_pool += 1
    return k_pool


def _decode_steps_until(dt_need_s: float, a0: float, b: float) -> int:
    """The fewest pure-decode steps (step i lasting a0 + b*i seconds) that reach `dt_need_s` from now (>= 1)."""
    if dt_need_s <= a0:
        return 1
    if b > 0:
        qb = a0 - b / 2.0
        k_t = int(math.ceil((-qb + math.sqrt(qb * qb + 2.0 * b * dt_need_s)) / b))
    else:
        k_t = int(math.ceil(dt_need_s / a0))
    k_t = max(1, k_t)
    while k_t > 1 and (k_t - 1) * a0 + b * (k_t - 1) * (k_t - 2) / 2.0 >= dt_need_s:
        k_t -= 1
    return k_t


def _engine(workload: Workload, cfg: EngineConfig, step_model: StepModel, rules: SchedulerRules,
            rids: list, out: _Shared, rejected_l: list, stats: dict, interval: float,
            progress: Optional[Callable[[int], None]] = None, lockstep: bool = False):
    """One engine as a generator: send it a time barrier, it runs until then and yields its
    outstanding request count. `rids` (arrival order) may grow between sends (a router).

    `lockstep=True` (data-parallel ranks of a MoE model, driven by `_run_lockstep`): the engine takes one
    step at a time and yields ("step", its step time, its tokens) or ("idle",); the driver answers a step with the
    group's step time (the slowest rank's) and an idle rank with the group's new clock (inf: finish).
    No decode-run skipping in this mode.

    The engine state lives in this generator's locals; the nested functions below are its named steps (like
    methods of an engine object, but closures keep the hot loop's variable access fast). One loop turn:
    `ingest_arrivals`, then either an idle wait, a run of pure-decode steps (`decode_run_length`,
    `run_decode_steps`), or one detailed step: `schedule_decoders`, `schedule_prefill_chunks`, `admit_waiting`,
    `step_time_s`, `finish_step` (which calls `complete_chunks`)."""
    bs = cfg.block_size
    g = cfg.blocks_per_boundary
    usable = cfg.usable_blocks
    limits = _StepLimits.of(cfg, rules)
    budget = limits.budget_tokens
    max_seqs = limits.max_seqs
    cap = limits.chunk_cap_tokens
    # from 0.31 the cap applies only in a step where more than one request is running or waiting, and with
    # --long-prefill-token-threshold-adaptive it is floored at max_num_batched_tokens // those requests (set per step
    # below)
    cap_needs_company = rules.long_prefill_needs_company and cap < budget
    cap_fair_share = rules.long_prefill_adaptive and cfg.long_prefill_token_threshold_adaptive and cap < budget
    cap_per_step = cap_needs_company or cap_fair_share
    input_budget = cfg.max_num_batched_tokens  # vLLM's input_budget: scheduler_config.max_num_batched_tokens
    threshold = cap  # this step's cap: `cap`, the budget (no cap) in a step with a lone request, or the fair share
    watermark = limits.watermark_blocks
    chunked = rules.chunked_prefill
    skip_oversize = not chunked and rules.unchunked_oversize == "skip"
    whole_prompt = rules.admit_whole_prompt
    mixed = rules.mixed_batches
    skip_after_preempt = rules.skip_admission_after_preemption
    async_sched = rules.async_scheduling

    # windowed KV groups (sliding window, chunked local): each grows one block per boundary until its
    # cap. A decoder's per-boundary weight is g + the groups still growing at its context; it drops
    # at the context thresholds `cap_ctx` (events on a heap, like finishes). Without windowed groups
    # every weight is g and none of this runs.
    caps = tuple(sorted(cfg.window_caps))
    windowed = bool(caps)
    cap_ctx = [c * bs for c in caps]  # context (a block boundary) at which a group stops growing
    n_caps = len(caps)
    bisect_right = bisect.bisect_right
    bfor = _blocks_for_fn(cfg)

    arrival = stats["arrival_list"]
    prompt = stats["prompt_list"]
    completion = stats["completion_list"]
    first_sched, first_tok, finish, n_pre = out.first_sched, out.first_tok, out.finish, out.n_pre
    INF = math.inf

    cache: Optional[_PrefixCache] = None
    chains: dict = {}
    hash_tokens = stats.get("hash_tokens") or bs
    block_hashes = workload.block_hashes
    if stats.get("prefix_caching"):
        cache = _PrefixCache(hash_tokens // bs * g, usable)

    computed: dict = {}  # waiting / prefilling requests: tokens in KV
    generated: dict = {}  # output tokens so far (decoders: refreshed when they leave the decode set)
    held: dict = {}  # prefilling requests: own blocks
    refs: dict = {}  # rid -> prefix-cache keys it uses

    # decode aggregate: computed = c0 + D, generated = g0 + D
    D = 0
    dec_c0: dict = {}
    dec_g0: dict = {}
    dec_fin: dict = {}
    heap: list = []
    wphase = [0] * bs  # per-boundary block need of the decoders in each phase (context - D) % bs
    W_dec = 0  # sum of wphase: blocks one full block_size cycle of decode steps needs
    dec_w: dict = {}  # windowed models: rid -> its per-boundary weight
    dec_next: dict = {}  # windowed models: rid -> decode clock D of its next weight drop
    cap_heap: list = []  # (D of a weight drop, rid); stale entries are skipped
    n_dec = 0
    S_dec = 0

    running: dict = {}  # rid -> True decoding / False prefilling, in running order
    lingering: list = []  # async scheduling: (rid, own blocks) finished last step, still holding a slot and blocks
    last_start = last_end = -1.0  # the latest step's start and end (async scheduling: decisions lag one step)
    prefilling: dict = {}  # rid -> None, in running order
    waiting: deque = deque()
    used = 0  # own blocks of running requests (shared prefix entries are counted by the cache)
    nxt = 0  # next index into rids
    now = 0.0
    done = 0
    steps = 0
    preemptions = 0
    recomputed = 0
    hit_total = 0
    prefill_written = 0  # KV tokens written by prefill chunks (conservation checks)
    decode_written = 0
    busy = 0.0
    run_hist = [0.0] * (max_seqs + 2)
    max_running = 0
    kv_peak = 0.0
    kv_area = 0.0
    itl_acc: dict = {}
    log_lo = math.log(_ITL_EDGES_S[0])
    n_bins = _ITL_EDGES_S.size - 1
    inv_log_step = n_bins / (math.log(_ITL_EDGES_S[-1]) - log_lo)
    ts_t: list = []
    ts_run: list = []
    ts_wait: list = []
    ts_kv: list = []
    next_sample = interval
    inv_usable = 1.0 / usable

    graph_sizes = cfg.cudagraph_sizes
    if graph_sizes:  # a step's forward pass runs over its CUDA graph's padded tokens (EngineConfig.graph_tokens)
        padded = [cfg.graph_tokens(t) for t in range(graph_sizes[-1] + 1)]
        fixed_unpadded = step_model.fixed_part_s

        def fixed_part(tokens: int, seqs: int, logits: Optional[int] = None) -> float:
            return fixed_unpadded(padded[tokens] if tokens < len(padded) else tokens, seqs, logits)
    else:
        fixed_part = step_model.fixed_part_s
    per_ctx = step_model.per_context_token_s
    mixed_factor = step_model.mixed_decode_factor
    per_ctx_mixed = per_ctx * mixed_factor
    window_decode = step_model.window_decode_s if step_model.windows else None
    win_c0: list = []  # window layers: the decoders' c0 (context less D), ascending, so each reads its own context
    pf_attn = step_model.prefill_attention_s
    fixed_cache: dict = {}

    # speculative decoding (StepModel.spec): a decode step verifies q = 1 + k tokens per request and emits E on average;
    # the engine still moves each decoder one token a step, each step lasting 1/E of the speculative step (below)
    spec = step_model.spec
    q = spec.verify_tokens if spec is not None else 1
    if spec is not None:
        inv_e = 1.0 / spec.tokens_per_step
        drafter = spec.drafter
        target_sm = spec.target_of(step_model)
        # seconds per context token of a decoder: the target's decode attention over q query tokens, the drafter's
        # k passes (SpecDecode.context_token_s)
        per_ctx_v, draft_ctx = spec.context_token_s(target_sm)
        ctx_rate = per_ctx_v + draft_ctx  # of the whole speculative step
        spec_fixed: dict = {}  # n -> what of a pure-decode speculative step of n requests does not depend on context

        def spec_decode_s(n: int, ctx: float) -> float:
            """A pure-decode speculative step of n requests reading ctx context tokens (window layers apart)."""
            f = spec_fixed.get(n)
            if f is None:
                f = spec_fixed[n] = sum(spec.fixed_s(target_sm, n * q, n, n * q, fixed_part))
            return f + ctx_rate * ctx

    # ------------------------------------------------------------------ blocks

    def in_use() -> int:
        return used + (cache.in_use_blocks() if cache is not None else 0)

    def take_blocks(n: int) -> bool:
        """Allocate n blocks, evicting cached-but-free prefix blocks (LRU) when needed."""
        nonlocal used
        if cache is None:
            if n > usable - used:
                return False
            used += n
            return True
        if n > cache.free_blocks():
            return False
        cache.take(n)  # LRU: from the head of the free queue, evicting cached blocks popped on the way
        used += n
        return True

    def release_refs(rid: int) -> int:
        keys = refs.pop(rid, None)
        if keys:
            cache.release(reversed(keys))  # vLLM frees a request's blocks last block first
            return len(keys) * cache.blocks_per_hash
        return 0

    def key_of(rid: int, i: int):
        """Cache key of a request's i-th full hash block: the workload's prefix chain over the prompt's full
        blocks, then keys of its own (nobody else computes its generated tokens)."""
        ch = chains.get(rid)
        return ch[i] if ch is not None and i < len(ch) else ("g", rid, i)

    def hit_chain(rid: int, target: int) -> tuple:
        """The keys a (re-)admitted request may hit: full blocks of target - 1 tokens (vLLM keeps the last
        token to compute, `max_cache_hit_length = num_tokens - 1`). A preempted request also looks for its
        own freed blocks, generated tokens included (vLLM hashes output tokens' blocks as they fill)."""
        limit = (target - 1) // hash_tokens
        ch = chains.get(rid, ())
        if len(ch) >= limit:
            return ch[:limit] if len(ch) > limit else ch
        if not n_pre[rid]:
            return ch
        return tuple(ch) + tuple(("g", rid, i) for i in range(len(ch), limit))

    def free_own(rid: int, own: int, c: int, keep: bool) -> None:
        """Return a request's own blocks to the free queue in vLLM's order (tail first): the partial block
        (and any fixed state blocks) as plain blocks, then, if `keep` (preemption), its full hash blocks of
        the c tokens in KV as cached entries, last first, then its shared prefix entries, last first."""
        nonlocal used
        used -= own
        cand = []
        if keep and not windowed:
            held_keys = refs.get(rid)
            held_set = set(held_keys) if held_keys else ()
            cand = [k for k in (key_of(rid, i) for i in range(c // hash_tokens)) if k not in held_set]
            cand = cand[: max(0, own) // cache.blocks_per_hash] if cache.blocks_per_hash else []
        cache.free_plain(own - len(cand) * cache.blocks_per_hash)
        if cand:
            cache.free_cached(reversed(cand))
        release_refs(rid)

    def shared_blocks(rid: int) -> int:
        keys = refs.get(rid)
        return len(keys) * cache.blocks_per_hash if keys else 0

    # ------------------------------------------------------------------ the decode set

    def remove_decoder(rid: int) -> int:
        """Take a request out of the decode aggregate; returns its context (tokens in KV)."""
        nonlocal n_dec, S_dec, W_dec
        c0 = dec_c0.pop(rid)
        c = c0 + D
        generated[rid] = dec_g0.pop(rid) + D
        del dec_fin[rid]
        if windowed:
            w = dec_w.pop(rid)
            dec_next.pop(rid, None)
        else:
            w = g
        wphase[c0 % bs] -= w
        W_dec -= w
        n_dec -= 1
        S_dec -= c
        if window_decode:
            del win_c0[bisect.bisect_left(win_c0, c0)]
        return c

    def set_weight(rid: int, c0: int, c: int, old: int) -> None:
        """Windowed models: the decoder's weight at context c (groups whose cap lies beyond c still grow)
        and the clock of its next drop."""
        nonlocal W_dec
        i = bisect_right(cap_ctx, c)
        w = g + n_caps - i
        dec_w[rid] = w
        wphase[c0 % bs] += w - old
        W_dec += w - old
        if i < n_caps:
            t = cap_ctx[i] - c0
            dec_next[rid] = t
            heapq.heappush(cap_heap, (t, rid))
        else:
            dec_next.pop(rid, None)

    def add_decoder(rid: int, c: int) -> None:
        """Put a request with context c into the decode aggregate (and its finish on the heap)."""
        nonlocal n_dec, S_dec, W_dec
        c0 = c - D
        dec_c0[rid] = c0
        dec_g0[rid] = generated[rid] - D
        f = D + completion[rid] - generated[rid]
        dec_fin[rid] = f
        if windowed:
            set_weight(rid, c0, c, 0)
        else:
            wphase[c0 % bs] += g
            W_dec += g
        n_dec += 1
        S_dec += c
        if window_decode:
            bisect.insort(win_c0, c0)
        heapq.heappush(heap, (f, rid))

    def stop_window_growth() -> None:
        """Windowed groups that reached their cap by decode clock D stop growing."""
        while cap_heap and cap_heap[0][0] <= D:
            t_drop, rid = heapq.heappop(cap_heap)
            if dec_next.get(rid) == t_drop:
                c0 = dec_c0[rid]
                set_weight(rid, c0, c0 + D, dec_w[rid])

    # ------------------------------------------------------------------ preemption and finishing

    def preempt_tail(booked: bool = False) -> int:
        """Preempt the last running request (recompute: blocks freed, back to the front of WAITING). vLLM 0.19,
        vllm/v1/core/sched/scheduler.py: Scheduler.schedule pops the tail of RUNNING (FCFS) while a running
        request's allocate_slots fails; Scheduler._preempt_request frees its blocks (KVCacheManager.free, last block
        first), sets num_computed_tokens = 0 and prepends it to WAITING, where it is re-admitted through
        get_computed_blocks (own freed blocks still cached are hits) and the whole-sequence gate.
        `booked`: the decoders already hold this step's blocks (`schedule_decoders` ran), so a decoder's own
        blocks are those of its context + 1 tokens."""
        nonlocal preemptions, recomputed, used
        rid = next(reversed(running))
        is_dec = running.pop(rid)
        if is_dec:
            c = remove_decoder(rid)
            own = bfor(c + 1 if booked else c) - (shared_blocks(rid) if cache is not None else 0)
        else:
            del prefilling[rid]
            c = computed[rid]
            own = held.pop(rid)
        if cache is not None:
            free_own(rid, own, c, True)  # its full blocks stay cached until evicted: a later hit on resumption
        else:
            used -= own
        recomputed += c
        computed[rid] = 0
        preemptions += 1
        n_pre[rid] += 1
        waiting.appendleft(rid)
        return rid

    def finish_request(rid: int, own_blocks: int) -> None:
        nonlocal done, used
        finish[rid] = now
        if async_sched:
            lingering.append((rid, own_blocks))  # freed after the next step's scheduling (`release_lingering`)
        elif cache is not None:
            free_own(rid, own_blocks, 0, False)
        else:
            used -= own_blocks
        running.pop(rid, None)
        computed.pop(rid, None)
        generated.pop(rid, None)
        done += 1
        if progress is not None:
            progress(1)

    def release_lingering() -> None:
        nonlocal used
        for rid, own_blocks in lingering:
            if cache is not None:
                free_own(rid, own_blocks, 0, False)
            else:
                used -= own_blocks
        lingering.clear()

    def retire_finished(clock: int) -> None:
        """Finish every decoder whose last token is due by decode clock `clock` (stale heap entries skipped)."""
        while heap and heap[0][0] <= clock:
            f_clock, rid = heapq.heappop(heap)
            if dec_fin.get(rid) != f_clock:
                continue
            c = remove_decoder(rid)
            finish_request(rid, bfor(c) - (shared_blocks(rid) if cache is not None else 0))

    # ------------------------------------------------------------------ statistics

    def record_itl(step_s: float, tokens: int) -> None:
        b = int((math.log(step_s) - log_lo) * inv_log_step)
        b = 0 if b < 0 else (n_bins - 1 if b >= n_bins else b)
        itl_acc[b] = itl_acc.get(b, 0) + tokens

    def account(t0: float, t1: float, n_running: int, used0: int, used1: int, step_s: float = 0.0) -> None:
        """Time-weighted statistics and time-series samples over [t0, t1].

        The samples read what vLLM 0.19's gauges read (vllm/v1/core/sched/scheduler.py, Scheduler.make_stats,
        called at the end of update_from_output): running = len(running), waiting = len(waiting) +
        len(skipped_waiting) -- a preempted request is back in WAITING (Scheduler._preempt_request prepends it)
        -- and KV usage = BlockPool.get_usage() = 1 - free / (num_gpu_blocks - 1) (vllm/v1/core/block_pool.py),
        where the free queue holds cached blocks nobody uses: a cached-but-free block counts as free, as here
        (`in_use` counts own blocks and cache entries someone holds). With async scheduling
        (EngineCore.step_with_batch_queue, vllm/v1/engine/core.py) update_from_output(step s) runs after
        schedule(step s+1), so a sample shows the step that starts then: this step's running set and blocks."""
        nonlocal kv_peak, kv_area, next_sample
        dt = t1 - t0
        if dt <= 0:
            return
        run_hist[n_running] += dt
        if used1 * inv_usable > kv_peak:
            kv_peak = used1 * inv_usable
        kv_area += 0.5 * (used0 + used1) * inv_usable * dt
        if next_sample <= t1:
            n_wait = len(waiting)
            while next_sample <= t1:
                frac = (next_sample - t0) / dt if next_sample > t0 else 0.0
                # requests that arrived inside the window are queued at its end; with async scheduling vLLM's
                # gauge is taken when a step's output is processed, before the engine reads new arrivals, so one
                # that came within the last step (`step_s`) is not counted yet
                j = nxt
                seen = next_sample - step_s if async_sched else next_sample
                while j < len(rids) and arrival[rids[j]] <= seen:
                    j += 1
                ts_t.append(next_sample)
                ts_run.append(n_running)
                ts_wait.append(n_wait + (j - nxt))
                ts_kv.append((used0 + (used1 - used0) * frac) * inv_usable)
                next_sample += interval

    # ------------------------------------------------------------------ arrivals and admission

    def ingest_arrivals(decided: float) -> None:
        """Queue every request that arrived by `decided` (rejected ones are dropped)."""
        nonlocal nxt
        while nxt < len(rids) and arrival[rids[nxt]] <= decided:
            rid = rids[nxt]
            nxt += 1
            if rejected_l[rid]:
                continue
            waiting.append(rid)
            computed[rid] = 0
            generated[rid] = 0
            if cache is not None and block_hashes is not None:
                h = block_hashes[rid]
                if h:  # only full prompt blocks can be hit (vLLM hashes full blocks)
                    chains[rid] = _chain_keys(h[: prompt[rid] // hash_tokens])

    def admissible_head(budget_left: int) -> bool:
        """Would WAITING's head pass the admission gate in a step with `budget_left` tokens to spare?"""
        if budget_left <= 0:
            return False
        rid = waiting[0]
        target = prompt[rid] + generated.get(rid, 0)
        hit_blocks = 0
        start = 0
        if cache is not None:
            hit_n, hit_free = cache.match(hit_chain(rid, target))
            # a hit on a free cached block takes it out of the free queue: it costs a free block
            # (vLLM get_num_blocks_to_allocate counts `num_evictable_computed_blocks`)
            hit_blocks = (hit_n - hit_free) * cache.blocks_per_hash
            start = hit_n * hash_tokens
        if skip_oversize and min(target - start, threshold) > budget_left:
            return True  # set aside, a later request may be admitted: the detailed step decides
        gate_tokens = target if whole_prompt else start + min(target - start, threshold, budget_left)
        avail = usable - in_use()
        if watermark and running:
            avail -= watermark
        return bfor(gate_tokens) - hit_blocks <= avail

    # ------------------------------------------------------------------ runs of pure-decode steps

    def decode_run_length() -> tuple:
        """(k, a0, b): pure-decode steps that can run before anything but the clock changes -- until the next
        completion, the next windowed-group cap, or the step whose blocks the pool cannot give (k = 0: that is
        the next step) -- and their cost: step i of the run lasts a0 + b*i seconds."""
        while True:  # drop heap entries of decoders that were preempted since
            f_clock, rid = heap[0]
            if dec_fin.get(rid) == f_clock:
                break
            heapq.heappop(heap)
        k = heap[0][0] - D  # steps until the next completion
        if cap_heap:  # ... or until a decoder's windowed group stops growing
            while cap_heap and dec_next.get(cap_heap[0][1]) != cap_heap[0][0]:
                heapq.heappop(cap_heap)
            if cap_heap and cap_heap[0][0] - D < k:
                k = cap_heap[0][0] - D
        if W_dec:
            k_pool = _decode_steps_fitting(usable - in_use(), wphase, W_dec, D, bs)
            if k_pool < k:
                k = k_pool
        if lingering:
            k = min(k, 1)  # they are released after this step
        if spec is not None:  # each engine step: 1/E of the speculative step (context rates included)
            a0 = spec_decode_s(n_dec, S_dec + n_dec) * inv_e
            b = ctx_rate * n_dec * inv_e
            if window_decode:
                read_s, growth_s, k_win = window_decode(n_dec, S_dec + n_dec, win_c0, D + 1)
                if k_win is not None and k_win < k:
                    k = k_win
                a0 += read_s * inv_e
                b += growth_s * inv_e
            return k, a0, b
        a0 = fixed_cache.get(n_dec)
        if a0 is None:
            a0 = fixed_cache[n_dec] = fixed_part(n_dec, n_dec)
        a0 += per_ctx * (S_dec + n_dec)
        b = per_ctx * n_dec
        if window_decode:  # window layers: linear while no window fills during the run
            read_s, growth_s, k_win = window_decode(n_dec, S_dec + n_dec, win_c0, D + 1)
            if k_win is not None and k_win < k:
                k = k_win
            a0 += read_s
            b += growth_s
        return k, a0, b

    def run_decode_steps(k: int, nrun: int, a0: float, b: float) -> None:
        """Advance k pure-decode steps at once: blocks, clock, statistics, finished requests."""
        nonlocal now, last_start, last_end, busy, steps, decode_written, S_dec, D
        cyc = k // bs  # blocks the k steps allocate: whole block_size cycles, then the remaining phases
        need = cyc * W_dec
        for jj in range(cyc * bs, k):
            need += wphase[(-(D + jj)) % bs]
        u0 = in_use()
        if need:
            take_blocks(need)
        dt = k * a0 + b * k * (k - 1) / 2.0
        t0 = now
        now += dt
        last_start, last_end = now - (a0 + b * (k - 1)), now
        account(t0, now, nrun, u0, u0 + need, a0 + b * (k - 1))
        busy += dt
        steps += k
        record_itl(dt / k, n_dec * k)
        decode_written += n_dec * k
        S_dec += n_dec * k
        D += k
        if lingering:
            release_lingering()
        retire_finished(D)

    # ------------------------------------------------------------------ one detailed step

    def schedule_decoders() -> tuple:
        """Give every decoder its next token's blocks, preempting from the tail while the pool is short
        (decoders come first in running order). Returns (decode tokens, preempted)."""
        preempted = False
        dec_need = wphase[(-D) % bs]
        while dec_need > usable - in_use() and n_dec:
            victim = next(reversed(running))
            if running[victim] and (dec_c0[victim] + D) % bs == 0:
                dec_need -= dec_w[victim] if windowed else g
            preempt_tail()
            preempted = True
        if dec_need:
            take_blocks(dec_need)
        return n_dec, preempted

    def schedule_prefill_chunks(t_budget: int, chunks: list, booked: bool) -> tuple:
        """Next chunks of the requests already prefilling, in running order, preempting from the tail for
        their blocks. Appends (rid, tokens, prefix tokens) to `chunks`; returns (budget left, preempted).
        `booked`: the decoders were scheduled first (their token and next block taken). vLLM walks RUNNING in
        order and preempts its tail, which it has not scheduled yet, so a decoder preempted here gives back
        its block and its token (the caller recounts the decode tokens)."""
        preempted = False
        for rid in list(prefilling):
            if rid not in prefilling:
                continue  # preempted earlier in this loop
            if t_budget <= 0:
                break
            target = prompt[rid] + generated[rid]
            ch = min(target - computed[rid], threshold, t_budget)
            sh = shared_blocks(rid) if cache is not None else 0
            need = bfor(computed[rid] + ch) - sh - held[rid]
            while need > 0 and not take_blocks(need):
                preempted = True
                if booked and running[next(reversed(running))]:
                    t_budget += 1  # the decoder's token goes back to the budget
                if preempt_tail(booked) == rid:
                    break
            if rid not in prefilling:
                continue
            held[rid] += max(need, 0)
            chunks.append((rid, ch, computed[rid]))
            t_budget -= ch
        return t_budget, preempted

    def admit_waiting(t_budget: int, chunks: list, decided: float) -> None:
        """Admit WAITING requests FCFS while budget, sequence slots and the block gate allow (prefix-cache
        hits shorten the first chunk); appends their first chunks to `chunks`."""
        nonlocal hit_total
        skipped: list = []  # WAITING requests set aside in this admission (skip_oversize)
        while waiting and t_budget > 0 and len(running) + len(lingering) < max_seqs:
            rid = waiting[0]
            target = prompt[rid] + generated[rid]
            hit_n = hit_free = 0
            if cache is not None:
                ch_keys = hit_chain(rid, target)
                if ch_keys:
                    hit_n, hit_free = cache.match(ch_keys)
            hit_blocks = (hit_n - hit_free) * cache.blocks_per_hash if hit_n else 0  # free hits cost a free block
            start = hit_n * hash_tokens if hit_n else 0
            ch = target - start
            if ch > threshold:
                ch = threshold
            if ch > t_budget:
                if not chunked:
                    # without chunked prefill the (threshold-capped) prompt must fit the step budget left
                    if skip_oversize:
                        skipped.append(waiting.popleft())
                        continue
                    break
                ch = t_budget
            gate_tokens = target if whole_prompt else start + ch
            avail = usable - in_use()
            if watermark and running:
                avail -= watermark
            if bfor(gate_tokens) - hit_blocks > avail:
                break  # FCFS: later requests do not skip ahead
            waiting.popleft()
            if hit_n:
                keys = ch_keys[:hit_n]
                cache.acquire(keys)
                refs[rid] = list(keys)
                hit_total += start
                hit_blocks = hit_n * cache.blocks_per_hash
            need = bfor(start + ch) - hit_blocks
            if not take_blocks(need):  # cannot happen after the gate; keep the books straight
                if hit_n:
                    release_refs(rid)
                waiting.appendleft(rid)
                break
            held[rid] = need
            computed[rid] = start
            running[rid] = False
            prefilling[rid] = None
            if first_sched[rid] == INF:
                first_sched[rid] = decided  # when vLLM ran the schedule() that admitted it
            chunks.append((rid, ch, start))
            t_budget -= ch
        waiting.extendleft(reversed(skipped))  # back at the head, in their order, for the next step

    def step_time_s(tokens: int, dec_tokens: int, chunks: list) -> float:
        """Seconds a detailed step with these decode tokens and prefill chunks takes on its own."""
        if spec is not None:
            return spec_step_time_s(tokens, dec_tokens, chunks)
        dt = fixed_part(tokens, dec_tokens + len(chunks)) + (per_ctx_mixed if chunks else per_ctx) * (S_dec + dec_tokens)
        if window_decode and dec_tokens:
            dt += window_decode(dec_tokens, S_dec + dec_tokens, win_c0, D + 1)[0] * (mixed_factor if chunks else 1.0)
        for _, ch, pre in chunks:
            dt += pf_attn(ch, pre)
        return dt

    def spec_step_time_s(tokens: int, dec_tokens: int, chunks: list) -> float:
        """`step_time_s` with speculative decoding. The speculative step (decoders verifying q tokens each, the chunks,
        the drafter's passes) emits E tokens per decoder; this engine step moves them one, so it is charged the
        chunks' added cost in full and 1/E of the decode-only step: T(decoders + chunks) - (1 - 1/E) T(decoders), at
        least T(decoders) / E as the step time never falls when tokens are added."""
        ctx = S_dec + dec_tokens
        seqs = dec_tokens + len(chunks)
        v_tokens = tokens + dec_tokens * (q - 1)
        win = window_decode(dec_tokens, ctx, win_c0, D + 1)[0] if window_decode and dec_tokens else 0.0
        if not chunks:
            return (spec_decode_s(dec_tokens, ctx) + win) * inv_e
        verify_fixed, draft_fixed = spec.fixed_s(target_sm, v_tokens, seqs, seqs + dec_tokens * (q - 1), fixed_part)
        t = verify_fixed + mixed_factor * (per_ctx_v * ctx + win) + draft_fixed + draft_ctx * ctx
        for _, ch, pre in chunks:  # the chunks' attention, in the target and in the drafter's first pass
            t += pf_attn(ch, pre)
            if drafter is not None:
                t += drafter.prefill_attention_s(ch, pre)
        if not dec_tokens:
            return t
        return t - (1.0 - inv_e) * (spec_decode_s(dec_tokens, ctx) + win)

    def finish_step(dt: float, u0: int, tokens: int, dec_tokens: int, chunks: list) -> None:
        """Advance the clock by a detailed step of dt seconds and apply its outcome."""
        nonlocal now, last_start, last_end, busy, steps, max_running, decode_written, prefill_written, S_dec, D
        t0 = now
        now += dt
        last_start, last_end = t0, now
        busy += dt
        steps += 1
        nrun = len(running)
        if nrun > max_running:
            max_running = nrun
        account(t0, now, nrun, u0, u0, dt)
        decode_written += dec_tokens
        prefill_written += tokens - dec_tokens
        if dec_tokens:
            record_itl(dt, dec_tokens)
            S_dec += n_dec
            D += 1
            retire_finished(D)
        complete_chunks(chunks)

    def complete_chunks(chunks: list) -> None:
        """Book the step's prefill chunks; a request whose prompt (plus any recomputed output) is now in KV
        sampled its first token: it finishes or joins the decoders (adopting its full prefix blocks)."""
        nonlocal used
        for rid, ch, _pre in chunks:
            if rid not in prefilling:
                continue
            computed[rid] += ch
            target = prompt[rid] + generated[rid]
            if computed[rid] < target:
                continue
            generated[rid] += 1
            if first_tok[rid] == INF:
                first_tok[rid] = now
            del prefilling[rid]
            if cache is not None and rid in chains:
                have = len(refs.get(rid, ()))
                full = len(chains[rid])
                if full > have:
                    got = cache.adopt(chains[rid][have:full])
                    if got:
                        refs.setdefault(rid, []).extend(got)
                        moved = len(got) * cache.blocks_per_hash
                        held[rid] -= moved
                        used -= moved
            own = held.pop(rid)
            if generated[rid] >= completion[rid]:
                finish_request(rid, own)
                continue
            running[rid] = True
            add_decoder(rid, computed.pop(rid))

    # ------------------------------------------------------------------ the loop

    # the driver of a lockstep group reads (waiting incl. routed-but-not-ingested, running) from here
    stats["load"] = lambda: (len(waiting) + len(rids) - nxt, len(running))
    # what the rank's scheduler reports to vLLM's DP coordinator: routed requests it has not read yet are not in it
    stats["counts"] = lambda: (len(waiting), len(running))

    def stall_report() -> str:
        """The state of an engine whose loop cannot progress (for the error message)."""
        head = ""
        if waiting:
            rid = waiting[0]
            target = prompt[rid] + generated.get(rid, 0)
            head = (f"; WAITING's head, request {rid}, needs {target} tokens = {bfor(target)} blocks "
                    f"(step budget {budget}, chunk cap {threshold}, chunked prefill {chunked})")
        return (f"simulator stalled at t={now!r} s: a scheduling pass changed nothing and time cannot advance "
                f"({len(running)} running, {len(waiting)} waiting, {len(lingering)} finished still holding blocks, "
                f"{in_use()} of {usable} blocks in use, {len(rids) - nxt} arrivals pending{head})")

    empty_sig = None  # the state after the latest empty schedule (no-progress guard)

    barrier = yield 0
    if lockstep:
        now = barrier
    while True:
        # arrivals up to now (async scheduling, engine busy: up to the previous step's start, when vLLM
        # scheduled the step that starts now)
        decided = last_start if (async_sched and last_end == now and (running or waiting)) else now
        ingest_arrivals(decided)
        if cap_per_step:
            # vLLM counts len(running) + len(waiting) when schedule() starts (Scheduler.get_request_counts); a
            # request that finished in the step before last is still in RUNNING then under async scheduling
            eligible = len(running) + len(lingering) + len(waiting)
            if cap_needs_company and eligible <= 1:
                threshold = budget
            elif cap_fair_share and eligible:
                threshold = min(budget, max(cap, input_budget // eligible))
            else:
                threshold = cap
        if lingering and not running and not waiting:
            release_lingering()  # nothing is scheduled next: the slots and blocks are free before anything else
        if not running and not waiting:  # idle: wait for the group, the next arrival or the barrier
            if lockstep:
                t_group = yield ("idle",)
                if t_group == INF:
                    break
                account(now, t_group, 0, used, used)
                now = max(now, t_group)
                continue
            t_next = arrival[rids[nxt]] if nxt < len(rids) else INF
            if t_next > barrier or t_next == INF:
                if barrier == INF:
                    break
                account(now, barrier, 0, used, used) if barrier > now else None
                now = max(now, barrier)
                barrier = yield 0
                continue
            account(now, t_next, 0, used, used)
            now = t_next
            continue
        if not lockstep and now >= barrier:
            barrier = yield len(running) + len(waiting)
            continue

        nrun = len(running)
        if nrun > max_running:
            max_running = nrun
        stop_window_growth()

        # fast path: a run of pure-decode steps where nothing but the clock changes
        if lingering and not waiting and not prefilling and wphase[(-D) % bs] <= usable - in_use():
            # holding them cannot change the next step: no admission, no preemption (the decoders' next blocks fit;
            # a running prefill's next chunk is not in that count, so it keeps them held)
            release_lingering()
        if not lockstep and n_dec and n_dec == nrun and (not waiting or nrun + len(lingering) >= max_seqs
                                                          or not admissible_head(budget - n_dec * q)):
            k, a0, b = decode_run_length()
            # stop where an arrival could change the schedule, or at the barrier
            t_stop = barrier
            if nxt < len(rids) and not waiting and nrun < max_seqs:
                t_a = arrival[rids[nxt]]
                if t_a < t_stop:
                    t_stop = t_a
            if k > 1 and t_stop < INF:
                k_t = _decode_steps_until(t_stop - now, a0, b)
                if k_t < k:
                    k = k_t
            if k >= 1:
                run_decode_steps(k, nrun, a0, b)
                continue
            # k == 0: the next decode step must preempt; take the detailed path

        # one detailed step: decoders, then running prefills, then admissions
        t_budget = budget
        preempted = False
        chunks: list = []  # (rid, tokens, prefix tokens)
        prefill_only = (not mixed) and bool(waiting) and nrun < max_seqs and admissible_head(budget)
        dec_tokens = 0
        if n_dec and not prefill_only:
            dec_tokens, preempted = schedule_decoders()
            t_budget -= dec_tokens if q == 1 else min(t_budget, dec_tokens * q)  # speculative: 1 + k tokens each
        if (mixed or prefill_only) and prefilling:
            t_budget, chunk_preempted = schedule_prefill_chunks(t_budget, chunks, dec_tokens > 0)
            if chunk_preempted:
                preempted = True
                if dec_tokens:
                    dec_tokens = n_dec  # decoders preempted for a prefill chunk do not run this step
        if not (preempted and skip_after_preempt) and (mixed or prefill_only):
            admit_waiting(t_budget, chunks, decided)
        if lingering:
            release_lingering()  # this step's schedule is made; vLLM has processed their last output by the next
        tokens = dec_tokens
        for _, ch, _ in chunks:
            tokens += ch
        if tokens == 0:
            last_end = -1.0  # an empty schedule: vLLM waits for the step in flight and schedules again at once
            if not running and waiting and nxt >= len(rids) and not admissible_head(budget):
                raise RuntimeError("simulator stalled: the head of the queue can never be admitted")
            # the next turn schedules again at the same time: this empty schedule must have changed something
            # (a preemption, blocks of finished requests released, arrivals queued), or the next is the same
            sig = (now, nxt, steps, preemptions, done, len(waiting), len(running), len(lingering), in_use())
            if sig == empty_sig:
                raise RuntimeError(stall_report())
            empty_sig = sig
            if lockstep:  # nothing to run this step: wait for the group like an idle rank
                t_group = yield ("idle",)
                if t_group == INF:
                    raise RuntimeError("simulator stalled: a lockstep rank holds requests it cannot schedule; "
                                       + stall_report())
                account(now, t_group, len(running), in_use(), in_use())
                now = max(now, t_group)
            continue
        u0 = in_use()
        dt = step_time_s(tokens, dec_tokens, chunks)
        if lockstep:
            # the group's step: every rank waits for the slowest; its tokens as its expert layers saw them (padded)
            dt = yield ("step", dt, cfg.graph_tokens(tokens + dec_tokens * (q - 1)))
        finish_step(dt, u0, tokens, dec_tokens, chunks)

    if used or (cache is not None and (cache.in_use_blocks() or cache.free_blocks() != usable)):
        raise RuntimeError(f"simulator bug: {in_use()} blocks still held after every request finished")
    stats.update(prefill_written=prefill_written, decode_written=decode_written, steps=steps, preemptions=preemptions, recomputed=recomputed, hit_tokens=hit_total, busy=busy,
                 run_hist=run_hist, max_running=max_running, kv_peak=kv_peak, kv_area=kv_area, itl_acc=itl_acc,
                 ts=(ts_t, ts_run, ts_wait, ts_kv), now=now)
    yield -1


def _rejections(workload: Workload, cfg: EngineConfig) -> tuple[np.ndarray, np.ndarray]:
    """(longer than max_model_len, larger than the whole pool though within max_model_len) per request. vLLM's OpenAI
    server refuses prompt + max_tokens > max_model_len (entrypoints/openai/serving_engine.py `_validate_input`); one
    that could not fit the pool alone would preempt itself forever."""
    total = workload.prompt_tokens + workload.completion_tokens
    too_long = total > cfg.max_model_len
    return too_long, ~too_long & (cfg.blocks_for_array(total - 1) > cfg.usable_blocks)


def _rejected_note(workload: Workload, cfg: EngineConfig, too_long: np.ndarray, too_big: np.ndarray) -> str:
    """How many requests vLLM refuses, for which limit, and what serves them: it said 'prompt + output exceeds
    max_model_len 8192 or the KV pool', naming neither which nor the flag that changes it."""
    total = workload.prompt_tokens + workload.completion_tokens
    n = int(too_long.sum() + too_big.sum())
    parts = []
    if too_long.any():
        parts.append(f"{int(too_long.sum()):,} longer than max_model_len {cfg.max_model_len:,} (prompt + output; the "
                     f"longest {int(total[too_long].max()):,} tokens: --max-model-len {int(total[too_long].max())} "
                     "would admit them, where vLLM starts at that length: `kvplan fit` says)")
    if too_big.any():
        parts.append(f"{int(too_big.sum()):,} needing more than the whole KV pool ({cfg.usable_blocks:,} usable blocks "
                     f"of {cfg.block_size} tokens; a larger pool or shorter requests)")
    return f"vLLM refuses {n:,} request{'s' if n != 1 else ''} (rejected): " + "; ".join(parts)


def check_servable(plan, workload: Workload, cfg: EngineConfig) -> None:
    """Refuse a workload none of whose requests the planned server admits: simulated, every latency was '-' and the
    command exited 0, with a note as the only word of why."""
    from kvplan.errors import InputError

    served = _as_served(plan, workload) if plan is not None else workload
    if not len(served):
        return
    too_long, too_big = _rejections(served, cfg)
    if not (too_long | too_big).all():
        return
    total = served.prompt_tokens + served.completion_tokens
    n = len(served)
    every = "the one request" if n == 1 else f"all {n:,} requests"
    if too_long.all():
        shortest, longest = int(total.min()), int(total.max())
        span = f"{shortest:,} tokens" if shortest == longest else f"{shortest:,} to {longest:,} tokens"
        admits = (f"--max-model-len {longest} admits {'it' if n == 1 else 'them all'}" if shortest == longest else
                  f"--max-model-len {longest} admits them all, {shortest} the shortest")
        shorter = "give shorter requests (--prompt-len / --completion-len, or the workload's token columns)"
        fix = f"{admits} (`kvplan fit` says whether vLLM starts at that length), or {shorter}"
        if cfg.model_len_limit and longest > cfg.model_len_limit:  # no length the model's config lets vLLM serve
            fix = (f"{shorter}: the model's config lets vLLM serve at most {cfg.model_len_limit:,} tokens"
                   + (f" (--max-model-len {cfg.model_len_limit} admits the requests up to it)" if shortest <= cfg.model_len_limit
                      else "") + "; a longer context needs rope scaling (--hf-overrides)")
        raise InputError("--max-model-len", f"{every} of workload {served.name} {'is' if n == 1 else 'are'} longer than "
                         f"max_model_len {cfg.max_model_len:,} (prompt + output: {span}), so vLLM refuses "
                         f"{'it' if n == 1 else 'every one'} and nothing is served", fix)
    # each request fails one limit or the other: say how many fail which (it said "more KV cache than the whole pool
    # ... or exceed max_model_len" where none was over the length, and named no --max-model-len where some were)
    n_long, n_big = int(too_long.sum()), int(too_big.sum())  # (_rejections: too_big holds none too long)
    parts = ([f"{n_big:,} need more KV cache than the whole pool holds ({cfg.usable_blocks:,} usable blocks of "
              f"{cfg.block_size} tokens)"] if n_big else []) + (
             [f"{n_long:,} are longer than max_model_len {cfg.max_model_len:,}"] if n_long else [])
    fixes = ["a larger pool (--gpu-memory-utilization, a larger GPU, more tensor parallelism; or --num-gpu-blocks from "
             "the real startup log)"]
    if n_long and not (cfg.model_len_limit and int(total[too_long].max()) > cfg.model_len_limit):
        fixes.append(f"a --max-model-len of at least {int(total[too_long].max())} for the longer ones")
    raise InputError("--workload", f"of workload {served.name}'s {n:,} request{'s' if n != 1 else ''}, "
                     + " and ".join(parts) + ", so vLLM serves none of them",
                     "give shorter requests, or " + ", or ".join(fixes))


def _prepare(workload: Workload, cfg: EngineConfig, notes: list) -> tuple[np.ndarray, dict]:
    if cfg.num_gpu_blocks < 2:
        raise InputError("--num-gpu-blocks", f"{cfg.num_gpu_blocks} blocks leave none usable", "vLLM needs at least 2 (one is the null block)")
    if workload.arrival_s is None:
        raise InputError("--rate", f"workload {workload.name} has no arrival times", "give --rate R")
    if cfg.max_num_seqs < 1 or cfg.max_num_batched_tokens < 1:
        raise InputError("--max-num-seqs", "max_num_seqs and max_num_batched_tokens must be >= 1", "use vLLM's defaults")
    bs = cfg.block_size
    too_long, too_big = _rejections(workload, cfg)
    rejected = too_long | too_big
    if cfg.blocks_note:
        notes.append(cfg.blocks_note)
    if rejected.any():
        notes.append(_rejected_note(workload, cfg, too_long, too_big))
    stats = {"arrival_list": workload.arrival_s.tolist(), "prompt_list": workload.prompt_tokens.tolist(),
             "completion_list": workload.completion_tokens.tolist(), "prefix_caching": False}
    if cfg.enable_prefix_caching:
        if workload.block_hashes is None or workload.hash_block_tokens <= 0:
            notes.append("prefix caching on, but the workload has no block hashes: no shared prefixes modelled; a "
                         "preempted request can still hit its own freed blocks")
            stats["prefix_caching"] = True
            stats["hash_tokens"] = bs
        elif workload.hash_block_tokens % bs:
            notes.append(f"prefix hashes cover {workload.hash_block_tokens} tokens, not a multiple of block_size {bs}: no hits modelled")
        else:
            stats["prefix_caching"] = True
            stats["hash_tokens"] = workload.hash_block_tokens
    return rejected, stats


def _auto_interval(workload: Workload) -> float:
    span = float(workload.arrival_s[-1]) if len(workload) else 0.0
    return float(max(1.0, math.ceil(span / 5000.0)))


def _result(workload: Workload, cfg: EngineConfig, rules: SchedulerRules, out: _Shared, rejected: np.ndarray,
            stats: dict, slo: SLO, wall_s: float, notes: list, worst_case: Optional[float]) -> SimResult:
    n_bins = _ITL_EDGES_S.size - 1
    itl_hist = np.zeros(n_bins)
    for b_i, tok in stats["itl_acc"].items():
        itl_hist[b_i] += tok
    finish = np.asarray(out.finish, dtype=np.float64)
    fin = finish[np.isfinite(finish)]
    makespan = float(fin.max()) if fin.size else 0.0
    hist = np.asarray(stats["run_hist"])
    nz = np.nonzero(hist)[0]
    hist = hist[: (nz[-1] + 1) if nz.size else 1]
    if worst_case is None:
        worst_case = cfg.usable_blocks / max(1, cfg.blocks_for(cfg.max_model_len))
    ts_t, ts_run, ts_wait, ts_kv = stats["ts"]
    overload = _overload_note(workload, finish, np.asarray(out.first_sched), makespan)
    if overload:
        notes = list(notes) + [overload]
    said = async_scheduling_note(rules)
    if said:
        notes = list(notes) + [said]
    return SimResult(
        config=cfg, rules=rules, workload_name=workload.name, worst_case_concurrency=float(worst_case),
        arrival_s=workload.arrival_s, first_scheduled_s=np.asarray(out.first_sched), first_token_s=np.asarray(out.first_tok),
        finish_s=finish, prompt_tokens=workload.prompt_tokens, completion_tokens=workload.completion_tokens,
        preemptions_per_request=np.asarray(out.n_pre), rejected=rejected, steps=stats["steps"],
        preemptions=stats["preemptions"], recomputed_tokens=stats["recomputed"], prefix_hit_tokens=stats["hit_tokens"],
        prefill_tokens_computed=stats["prefill_written"], decode_tokens_computed=stats["decode_written"],
        busy_s=stats["busy"], makespan_s=makespan, running_time_hist_s=hist, max_running=stats["max_running"],
        kv_usage_peak=stats["kv_peak"], kv_usage_time_mean=stats["kv_area"] / makespan if makespan > 0 else 0.0,
        itl_hist_edges_s=_ITL_EDGES_S, itl_hist_tokens=itl_hist, ts_t_s=np.asarray(ts_t),
        ts_running=np.asarray(ts_run, dtype=np.int64), ts_waiting=np.asarray(ts_wait, dtype=np.int64),
        ts_kv_usage=np.asarray(ts_kv), slo=slo, wall_s=wall_s, notes=tuple(notes))


# What async scheduling saves is not in the step-time model, and why (`async_scheduling_note`). vLLM's AsyncScheduler +
# EngineCore.step_with_batch_queue (0.14.0 wheel, vllm/v1/engine/core.py, vllm/v1/core/sched/async_scheduler.py; PRs
# #19970, #23569, default from #27614) schedule step s+1 and prepare its inputs on the host while the GPU runs step s, so
# the host time of a step (schedule(), input preparation, update_from_output) leaves the step's critical path where the
# GPU forward is the longer. The step model has no host term to overlap: StepCoefficients.t_fixed_s is 0 (the fit's
# lower edge) and t_seq_layer_s folds host and GPU per-request work together (the RTX GPUs' kernel profiles put ~4 of
# its 26 us a request a step for Llama-3.1-8B on the GPU), fitted on AIConfigurator vLLM rows of 0.12.0 and of October
# 2025 (0.11-era), where async scheduling is off by default. Taking that per-request term as host time that async
# scheduling hides (a step = max(GPU, host) ~ the GPU terms at these batch sizes) moved the four vLLM 0.19.0 replays,
# async scheduling on (RTX 4090 meta.json: async_scheduling true; the others 0.19's default), away from the measured
# TPOT (bench/bench_simulate.py --async-overlap): (run, TPOT error as charged, with the per-request term hidden).
# So the term stays charged in full, with async scheduling on or off. vLLM's own figures do not size the host part
# either: #23569 (full overlap of input preparation) "expected speedup is 5-10 % over the current async scheduling", a
# claim; #32618 31.8 % TPOT with pipeline parallelism 4 (Qwen3-30B-A3B-FP8; its description: --async-scheduling vs
# --no-async-scheduling), a setup the replays have no counterpart for; #27914: no effect on prefill. No measured run
# has async scheduling off at a vLLM release and setup that a run with it on matches (the AIConfigurator sample's only
# same-model same-GPU pair across 0.14, gpt-oss-120b on H100 at 0.11.2 and 0.18.0, shares no isl/osl/concurrency cell).
ASYNC_OVERLAP_CHECK: tuple[tuple[str, float, float], ...] = (
    ("RTX4090_Llama-3.1-8B", +1.9, -1.0), ("RTXPRO6000_Llama-3.1-8B", +2.2, -6.8),
    ("RTXPRO6000_Qwen3-30B-A3B-Instruct-2507", +0.4, -8.1), ("RTXPRO6000_Qwen3-32B", -2.0, -9.5),
)


def async_scheduling_note(rules: SchedulerRules) -> Optional[str]:
    """What a simulation says of async scheduling (`SchedulerRules.async_scheduling`, the rules table's rows; a plan's
    --[no-]async-scheduling as resolved): where on, that its one-step admission lag is simulated and its saving, the
    host time it overlaps with the GPU forward, is not (ASYNC_OVERLAP_CHECK), so the latencies are an upper bound from
    that side; where turned off in a release that turns it on by default, that the step times are the same either
    way. None for V0 and where off by default."""
    if rules.engine != "v1":
        return None
    worst = max(abs(e) for _, e, _ in ASYNC_OVERLAP_CHECK)
    hidden = [-h for _, _, h in ASYNC_OVERLAP_CHECK if h < -5]
    if rules.async_scheduling:
        return ("async scheduling on: its one-step lag is simulated (a request arriving while the engine is busy joins "
                "one step later; a finished request holds its slot and blocks one step longer), its saving is not: the "
                "host time (scheduling, input preparation, output processing) vLLM overlaps with the previous step's "
                "GPU forward is not separated from the GPU time in the step model (fitted on vLLM 0.12 and older runs, "
                "async scheduling off), so from that side these latencies are an upper bound. On four vLLM 0.19 runs "
                f"with it on, the step times as charged came within ±{worst:.1f} % of the measured TPOT; taking the "
                f"per-request term as hidden host time left {len(hidden)} of them {min(hidden):.0f}-{max(hidden):.0f} % "
                "short, so it stays charged in full")
    if scheduler_rules(rules.version).async_scheduling:
        return (f"async scheduling off (vLLM {rules.version} turns it on by default): the step times are those of "
                "async scheduling on, whose host-time saving is not modelled, so a comparison with it on shows only its "
                "one-step admission lag, not what it saves")
    return None


def _overload_note(workload: Workload, finish_s: np.ndarray, first_sched_s: np.ndarray, makespan_s: float) -> Optional[str]:
    """A sentence when arrivals outran the server: the run lasted well past the last arrival while requests queued
    for long (the queue grew for the whole run, so every latency figure depends on the workload's length)."""
    if workload.arrival_s is None or len(workload) < 2:
        return None
    span = float(workload.arrival_s[-1] - workload.arrival_s[0])
    done = np.isfinite(finish_s) & np.isfinite(first_sched_s)
    if span <= 0 or not done.any() or makespan_s <= 0:
        return None
    offered = (len(workload) - 1) / span
    served = int(done.sum()) / makespan_s
    if makespan_s < 1.5 * float(workload.arrival_s[-1]) and served >= 0.95 * offered:
        return None
    queue_p90 = float(np.percentile(first_sched_s[done] - workload.arrival_s[done], 90))
    if queue_p90 < 10.0:
        return None
    return (f"overloaded: requests arrived at {offered:.2f} req/s and were served at {served:.2f} req/s, so the queue "
            f"grew for the whole run (p90 queueing {queue_p90:,.0f} s) and the latencies grow with the workload's "
            "length; `kvplan capacity` finds the highest rate that meets the SLOs")


def simulate(workload: Workload, config: EngineConfig, step_model: StepModel, rules: Optional[SchedulerRules] = None,
             *, slo: SLO = SLO(), sample_interval_s: Optional[float] = None,
             progress: Optional[Callable[[int], None]] = None, worst_case_concurrency: Optional[float] = None) -> SimResult:
    """Run the workload through one vLLM engine. Deterministic; no I/O. `progress(n)` is called
    with the number of requests that just finished."""
    wall0 = _time.perf_counter()
    rules = rules or scheduler_rules(None)
    notes = list(workload.notes) + list(getattr(step_model, "notes", ()))
    rejected, stats = _prepare(workload, config, notes)
    out = _Shared(len(workload))
    gen = _engine(workload, config, step_model, rules, list(range(len(workload))), out, rejected.tolist(), stats,
                  sample_interval_s or _auto_interval(workload), progress)
    next(gen)
    gen.send(math.inf)
    return _result(workload, config, rules, out, rejected, stats, slo, _time.perf_counter() - wall0, notes,
                   worst_case_concurrency)


ROUTERS = ("round-robin", "least-loaded", "vllm-dp")


# How often vLLM's DP coordinator publishes the ranks' request counts to the API server: at most every
# `min_stats_update_interval_ms` = 100 ms while they change (vllm/v1/engine/coordinator.py@0.19.0,
# DPCoordinatorProc.process_input_socket).
DP_STATS_PUBLISH_S = 0.1


def _vllm_dp_pick(loads: Sequence[tuple[int, int]]) -> int:
    """vLLM's internal data-parallel load balancer (vllm/v1/engine/core_client.py@0.19,
    DPLBAsyncMPClient.get_core_engine_for_request): the rank with the lowest 4 x waiting + running,
    lowest index on ties. The lockstep driver feeds it vLLM's lagged view (`_DPBalancerView`); the independent
    replicas' router the exact counts."""
    best, best_score = 0, None
    for r, (n_wait, n_run) in enumerate(loads):
        score = 4 * n_wait + n_run
        if best_score is None or score < best_score:
            best, best_score = r, score
    return best


class _DPBalancerView:
    """The (waiting, running) counts the API server's DP balancer sees, as vLLM 0.19 builds them for the MoE
    engines (DPEngineCoreProc): after every step a rank sends its scheduler's counts to the coordinator when they
    changed (vllm/v1/engine/core.py DPEngineCoreProc._maybe_publish_request_counts; Scheduler.get_request_counts:
    running, waiting + skipped -- requests it has not read from its input queue yet are in neither); the coordinator
    publishes the latest counts of every rank to the API server at most every 100 ms (`DP_STATS_PUBLISH_S`), and
    they replace the server's copy; between two publications the server adds one waiting request to the rank it
    routes each request to (core_client.py DPLBAsyncMPClient.get_core_engine_for_request, "Increment local
    waiting count for better balancing between stats updates"). The simulator publishes on a 100 ms grid the
    counts of the latest step boundary."""

    def __init__(self, counts: list, period_s: float = DP_STATS_PUBLISH_S):
        self.counts = counts  # per rank: () -> (waiting, running) as the rank's scheduler reports them
        self.period_s = period_s
        self.view = [[0, 0] for _ in counts]
        self.next_publish = 0.0

    def pick(self, t: float) -> int:
        if t >= self.next_publish:
            self.view = [list(c()) for c in self.counts]
            self.next_publish = (math.floor(t / self.period_s) + 1) * self.period_s
        r = _vllm_dp_pick(self.view)
        self.view[r][0] += 1
        return r


def _run_lockstep(gens: list, stats: list, rid_lists: list, arrival: list, router: str,
                  step_model: Optional[StepModel] = None, pad_up_to: float = 0) -> None:
    """Drive data-parallel ranks that step together (vLLM runs the DP ranks of a MoE model in lockstep:
    every rank runs a forward pass each step, an idle rank a dummy batch, because the expert layers'
    collectives span all ranks -- vllm/v1/engine/core.py DPEngineCoreProc, `execute_dummy_batch`).
    A group step lasts as long as the slowest rank's step. Arrivals are routed at step boundaries ('vllm-dp': on the
    balancer's lagged view of the ranks' counts, `_DPBalancerView`).
    Each rank proposes its step time assuming every rank holds as many tokens as it does; the expert layers
    are then recharged with the group's real token count (`StepModel.moe_part_s`): a rank prefilling 2048
    tokens next to one decoding 128 computes the experts for 2176 tokens' pairs / ep, not 2048 x ep / ep.
    The group step is the slowest rank's step without its expert layers, plus the expert layers once: their
    collectives (vLLM 0.19's default all2all_backend "allgather_reducescatter": all_gatherv of every rank's tokens,
    reduce_scatterv of the outputs, vllm/distributed/device_communicators/all2all.py AgRsAll2AllManager) end together
    on every rank, when the rank that receives the most -- the one holding the fewest tokens, an idle rank's dummy
    batch none -- has the others' share: group - fewest tokens a collective (exact for two ranks; the gather's
    receive side for more). So the 2048-token prefill above moves its 2048 tokens to the other rank and back,
    though its own rank receives only 128.
    vLLM pads every rank to the largest rank's token count where the version pads (`SchedulerRules.dp_padding`): a
    step whose largest rank holds at most `pad_up_to` tokens puts ranks x that count through the expert layers (an
    idle rank's dummy batch included). `pad_up_to` is 0 with no padding (eager), the largest CUDA-graph capture size
    where only graph steps pad (vllm/v1/worker/dp_utils.py `_synchronize_dp_ranks`: DP padding iff the ranks' synced
    cudagraph mode is not NONE), infinite where every step pads.
    A rank that holds requests but scheduled nothing (its empty schedule preempted, or released the blocks of
    requests that finished in the previous step) waits for the group's step like an idle rank, as vLLM's dummy
    batch does; if no rank has a step to run, the group re-polls every rank at the same time (a dummy step of no
    length) rather than jumping to the next arrival or ending the run."""
    moe = step_model is not None and step_model.expert_bytes_per_rank > 0 and step_model.expert_token_multiplier > 1
    replicas = len(gens)
    n = len(arrival)
    nxt = 0
    now = 0.0

    balancer = _DPBalancerView([s["counts"] for s in stats]) if router == "vllm-dp" else None

    def route_until(t: float) -> None:
        nonlocal nxt
        while nxt < n and arrival[nxt] <= t:
            if router == "round-robin":
                r = nxt % replicas
            elif balancer is not None:
                r = balancer.pick(arrival[nxt])
            else:
                loads = [s["load"]() for s in stats]
                r = min(range(replicas), key=lambda i: (loads[i][0] + loads[i][1], i))
            rid_lists[r].append(nxt)
            nxt += 1

    route_until(now)
    props = [g.send(now) for g in gens]
    while True:
        steppers = [r for r in range(replicas) if props[r][0] == "step"]
        if steppers:
            if moe:
                largest = max(props[r][2] for r in steppers)
                padded = largest <= pad_up_to
                group = replicas * largest if padded else sum(props[r][2] for r in steppers)
                # the expert layers' collectives end together on every rank, when the rank that receives the most
                # has its share: the one holding the fewest tokens (an idle rank's dummy batch: none unless padded)
                least = largest if padded else (min(props[r][2] for r in steppers) if len(steppers) == replicas else 0)
                ep = step_model.expert_token_multiplier
                dt = (max(props[r][1] - step_model.moe_part_s(props[r][2], props[r][2] * ep) for r in steppers)
                      + step_model.moe_part_s(least, group))
            else:
                dt = max(props[r][1] for r in steppers)
            now += dt
            route_until(now)
            props = [gens[r].send(dt if props[r][0] == "step" else now) for r in range(replicas)]
            continue
        if any(s["load"]() != (0, 0) for s in stats):
            # a rank holds requests but scheduled nothing (its empty schedule preempted, or released the blocks
            # of requests that finished the step before, async scheduling): vLLM's ranks run a dummy step and
            # that rank schedules again; an engine whose empty schedule repeats unchanged raises
            props = [g.send(now) for g in gens]
            continue
        if nxt >= n:
            for g in gens:
                g.send(math.inf)
            return
        now = max(now, arrival[nxt])
        route_until(now)
        props = [g.send(now) for g in gens]


# data-parallel engines one simulation steps (each keeps its own queues and pool, and the DP balancer scans them all
# at every arrival): past any deployment's group, and a count that large would not finish
MAX_SIM_ENGINES = 4096


def _simulate_server(workload: Workload, config: EngineConfig, step_model: StepModel, rules: Optional[SchedulerRules],
                     data_parallel_size: int, lockstep: bool, **kw) -> SimResult:
    """One engine, or `data_parallel_size` engines behind vLLM's DP balancer (lowest 4 x waiting + running),
    stepping in lockstep for a MoE model as vLLM runs them."""
    if data_parallel_size > MAX_SIM_ENGINES:
        raise InputError("--data-parallel-size", f"{data_parallel_size:,} engines: the simulator steps each one and "
                         f"takes at most {MAX_SIM_ENGINES:,}", "simulate one engine group of a realistic size (the plan "
                         "itself takes any data-parallel size)")
    if data_parallel_size > 1:
        kw.pop("sample_interval_s", None)
        return simulate_replicas(workload, config, step_model, data_parallel_size, "vllm-dp", rules, lockstep=lockstep, **kw)
    return simulate(workload, config, step_model, rules, **kw)


def simulate_plan(plan, workload: Workload, config: EngineConfig, step_model: StepModel, rules: SchedulerRules,
                  **kw) -> SimResult:
    """The server a plan describes (see `_simulate_server`)."""
    dp = int(getattr(plan.args, "data_parallel_size", 1) or 1)
    return _simulate_server(_as_served(plan, workload, step_model.spec), config, step_model, rules, dp, plan.model.is_moe,
                            **kw)


def _as_served(plan, workload: Workload, spec: Optional[SpecDecode] = None) -> Workload:
    """The workload as the planned server runs it: one prefill per request for a pooling model; with speculative
    decoding the pool keeps the drafter's pages, and each step emits one token unless the acceptance is known
    (`spec`, the step model's)."""
    if plan.model.is_pooling:
        workload = workload.prefill_only()
    notes = served_caveats(plan, spec)
    return replace(workload, notes=workload.notes + notes) if notes else workload


def served_caveats(plan, spec_decode: Optional[SpecDecode] = None) -> tuple[str, ...]:
    """What the step model leaves out of the planned server: speculative decoding's draft and verification cost and
    its accepted tokens (unless `spec_decode` puts them in: then how), LoRA's extra matmuls. Said by simulate among its
    notes and by capacity beside its rate (a capacity answered with a drafter configured read as the drafter's
    speedup)."""
    out = []
    spec = getattr(plan.args, "speculative", None)
    if spec_decode is not None:
        out.append(spec_decode.note())
    elif spec:
        out.append(f"speculative decoding ({spec[0]}, {spec[1]} tokens) is not in the step model: one token per step, no "
                   "draft cost and no accepted extra tokens (the KV pool and state pages are the plan's, drafter included)")
    if getattr(plan.args, "enable_lora", False):
        out.append("LoRA: the slots' memory is in the plan; the adapters' extra matmuls are not in the step model")
    return tuple(out)


def plan_capacity(plan, workload_at: Callable[[float], Workload], config: EngineConfig, step_model: StepModel,
                  slo: "SLO", rules: SchedulerRules, **kw) -> "CapacityResult":
    """`find_capacity` for the server a plan describes (a replica is the whole data-parallel group)."""
    dp = int(getattr(plan.args, "data_parallel_size", 1) or 1)
    workload_of = workload_at
    workload_at = lambda rate: _as_served(plan, workload_of(rate), step_model.spec)  # noqa: E731
    fleet_of = kw.pop("fleet_at", None)
    if fleet_of is not None:
        kw["fleet_at"] = lambda rate, k: (lambda w: None if w is None else _as_served(plan, w, step_model.spec))(
            fleet_of(rate, k))
    # a checkpoint already quantized (AWQ, GPTQ, FP8, ...) is not made faster by 'a quantized model': Qwen2.5-72B-AWQ
    # missing a TTFT on two A100s was told to plan one
    quantized = bool(plan.args.quantization or getattr(plan.model, "quant", None))
    kw.setdefault("faster", "a faster GPU or more tensor parallelism" if quantized else
                  "a faster GPU, more tensor parallelism or a quantized model")
    return find_capacity(workload_at, config, step_model, slo, rules, data_parallel_size=dp, lockstep=plan.model.is_moe, **kw)


class GpuPrices:
    """`--gpu-hour-usd`: what one GPU costs per hour, in US dollars. '2.5' prices every GPU alike; 'L4=0.8,H100=2.5'
    prices each GPU named, each name read as `--gpu` reads it (a catalog id, name or alias). A GPU named more than once
    ('H100=2.5,H100=1.2': on-demand and spot, or two clouds) has each of its prices, in the order given, and is
    costed at each (all_of); so are several prices for every GPU ('2.5,1.2')."""

    EXAMPLE = "e.g. 2.5 (every GPU), L4=0.8,H100=2.5 (per GPU) or H100=2.5,H100=1.2 (two prices for one GPU)"

    def __init__(self, text: str, field: str = "--gpu-hour-usd"):
        self.field = field
        self.every: list[float] = []  # prices for every GPU
        self.by_gpu: dict[str, list[tuple[str, float]]] = {}  # catalog GPU name -> [(the name as given, price), ...]
        text = (text or "").strip()
        if not text:
            raise InputError(field, "no price given", self.EXAMPLE)
        if "=" not in text:
            self.every = [self._price(raw, raw.strip()) for raw in text.split(",") if raw.strip()]
            return
        from kvplan.errors import KvplanError
        from kvplan.resolve import resolve_gpu

        for part in text.split(","):
            name, eq, raw = part.partition("=")
            name = name.strip()
            if not eq or not name:
                raise InputError(field, f"cannot read {part.strip()!r}", "give every GPU a price as NAME=USD, " + self.EXAMPLE)
            try:
                gpu = resolve_gpu(name, detect=False)[0]
            except KvplanError as exc:
                raise InputError(field, getattr(exc, "message", str(exc)),
                                 "name a GPU as --gpu names it (see `kvplan gpus`)") from None
            price = self._price(raw, part.strip())
            if any(v == price for _, v in self.by_gpu.get(gpu.name, ())):
                raise InputError(field, f"{name} is priced at {price:g} twice", "give each price of a GPU once")
            self.by_gpu.setdefault(gpu.name, []).append((name, price))

    def _price(self, raw: str, shown: str) -> float:
        try:
            v = float(raw.strip().lstrip("$"))
        except ValueError:
            v = math.nan
        if not (math.isfinite(v) and v > 0):
            raise InputError(self.field, f"{shown!r} is not a positive price in USD per GPU-hour",
                             self.EXAMPLE)
        return v

    def all_of(self, gpu) -> list[float]:
        """Every price given for one hour of this GPU (a GPUSpec), in the order given; [] where none was."""
        if self.every:
            return list(self.every)
        return [v for _, v in self.by_gpu.get(gpu.name, ())]

    def of(self, gpu) -> Optional[float]:
        """The (first) price of one hour of this GPU, None where none was given for it."""
        prices = self.all_of(gpu)
        return prices[0] if prices else None

    def require(self, gpu) -> list[float]:
        """Every price of one hour of this GPU, an InputError naming it where none was given (before any search)."""
        prices = self.all_of(gpu)
        if not prices:
            raise InputError(self.field, f"no price for {gpu.name}", "add its NAME=USD, or give one price for every GPU")
        return prices


# the short cell of a deployment that does not start, by Plan.failure (its full error is the row's "reason")
_REFUSAL_CELLS = {"load": "weights too big", "memory": "KV pool too small", "kv_alloc": "KV pool too small",
                  "state_blocks": "too few states", "platform": "GPU refused"}


def capacity_rows(model: Optional[str], flags, varied: list, base: Workload, slo: SLO, *, burstiness: float = 1.0,
                  seed: int = 0, target_rate_per_s: Optional[float] = None, router: str = "round-robin",
                  prices: Optional[GpuPrices] = None, on_row: Optional[Callable[[int, int, dict], None]] = None,
                  on_probe: Optional[Callable[[float, bool], None]] = None, max_probes: int = 24,
                  spec_acceptance: Optional[SpecAcceptance] = None) -> list[dict]:
    """`kvplan capacity --vary`: one capacity search per deployment of `kvplan sweep --vary` (api.parse_vary's
    `varied`, planned by api.sweep_rows, so a row is the server `kvplan fit` plans for its flags), over one workload
    `base` (scaled to each probed rate, as `kvplan capacity` scales it). Each row: the varied values, "gpu" (as
    given), "gpu_name" (the catalog's), "model",
    "gpus_per_replica" (one whole server: TP x PP x DP), "rate_per_replica" (req/s within the SLO), with a target rate "replicas" and "gpus", with
    `prices` "usd_per_gpu_hour", "usd_per_hour" (the fleet's for the target, else one replica's) and
    "usd_per_million_requests" (at the target, else at the replica's capacity), a row per price where its GPU was
    given several (on-demand and spot: the same answer, priced at each); a row that does not start or meets
    the SLO at no rate has "cell" (a few words) and "reason" (the whole of it); "met_above_rate_per_s" is the highest
    rate above the answer that met the SLO again (a rate under it missed), None where the probes were monotone; every
    row its plan's "warnings" and the step-time model's caveats on its rate, "notes". Rows are sorted best first (least
    cost per million requests; without prices, fewest GPUs for the target, else most req/s per GPU; a tie to the more
    req/s per GPU), rows without an answer last, and the first answered one has "best": True. `on_row(i, n, row)` is
    called as row i of n is answered (a progress line); a price missing for a GPU a row plans on is an InputError before any search."""
    from kvplan.api import sweep_rows, vary_names

    names = vary_names(varied)
    plans: list = []
    rows = sweep_rows(model, flags, varied, plans)
    left = iter(plans)
    pairs = [(r, None if r.get("error_input") else next(left)) for r in rows]
    if prices is not None:
        unpriced = sorted({p.gpu.name for _, p in pairs if p is not None and p.fits and prices.of(p.gpu) is None})
        if unpriced:
            raise InputError(prices.field, "no price for " + ", ".join(unpriced),
                             "add NAME=USD for " + ("it" if len(unpriced) == 1 else "each") + ", or one price for every GPU")
    out = []
    for i, (r, p) in enumerate(pairs):
        setting = {n: r[n] for n in names}
        row: dict = {**setting, "model": r.get("model"), "gpu": r.get("gpu"), "gpus_per_replica": None,
                     "rate_per_replica": None, "replicas": None, "gpus": None, "cell": None, "reason": None,
                     "met_above_rate_per_s": None,
                     # the plan's warnings, as sweep prints them: which card a bare 'A100' was planned as, a first
                     # (compiling) start that may be refused where the warm start ranked
                     "warnings": list(r.get("warnings") or ()), "notes": []}
        _capacity_row(row, p, r, base, slo, burstiness, seed, target_rate_per_s, router, prices, on_probe, max_probes,
                      spec_acceptance)
        if p is not None and not row["cell"]:
            from kvplan.resolve import other_speed_note

            # the name given ('H100'), timed as one card where another of the same memory and other speeds answers
            speeds = other_speed_note(setting.get("gpu", flags.gpu), p.gpu)
            row["notes"] += [speeds] if speeds else []
        if on_row:
            on_row(i, len(pairs), row)
        # a GPU given several prices (on-demand and spot): the deployment once per price, each row its own cost
        out += [row] + [{**row, **cost} for cost in row.pop("_more_costs", ())]

    def key(row):
        per_gpu = -row["rate_per_replica"] / row["gpus_per_replica"] if row["rate_per_replica"] else None
        if prices is not None:
            v = row.get("usd_per_million_requests")
        elif target_rate_per_s is not None:
            v = row["gpus"]
        else:
            v = per_gpu
        # a tie (as many GPUs, as many dollars) goes to the more req/s per GPU: the fleet with the more headroom over
        # the target (2 x L40S at TP 2, 7.28 req/s, was marked cheapest over 2 at TP 1, 11.4 req/s, by listing order)
        return (v is None, v if v is not None else 0.0, per_gpu if per_gpu is not None else 0.0)

    out.sort(key=key)  # stable: full ties keep the order the deployments were listed in
    if out and key(out[0])[0] is False:
        out[0]["best"] = True
    return out


def deployment_cost(usd_per_gpu_hour: float, gpus: int, rate_per_s: float) -> dict:
    """What `gpus` GPUs at a price per GPU-hour cost per hour, and per million requests served at `rate_per_s`."""
    per_hour = usd_per_gpu_hour * gpus
    return {"usd_per_gpu_hour": usd_per_gpu_hour, "usd_per_hour": per_hour,
            "usd_per_million_requests": per_hour / (rate_per_s * 3600.0) * 1e6}


def capacity_cost(usd_per_gpu_hour: float, gpus_per_replica: int, cap, target_rate_per_s: Optional[float] = None
                  ) -> Optional[dict]:
    """deployment_cost of a capacity search's answer `cap`: the fleet for the target, else one replica at its capacity;
    None where there is no answer to price (no rate meets the SLO, or no number of replicas meets the target)."""
    if cap.max_rate_per_s <= 0:
        return None
    if target_rate_per_s is None:
        return deployment_cost(usd_per_gpu_hour, gpus_per_replica, cap.max_rate_per_s)
    if not cap.replicas_needed:
        return None
    return deployment_cost(usd_per_gpu_hour, gpus_per_replica * cap.replicas_needed, target_rate_per_s)


def rate_digits(rate: float, significant: int = 3) -> int:
    """Decimals that show a rate to three significant figures, and never fewer than two: 0.1066 -> 3 (0.106), where
    two decimals read 0.10 and a target's replicas divided by it came out 50 against the 47 printed beside it."""
    return max(2, significant - 1 - math.floor(math.log10(rate))) if rate > 0 and math.isfinite(rate) else 2


def _trim(text: str) -> str:
    """Zeros past the second decimal dropped: 0.290 -> 0.29, 12.00 kept."""
    whole, _, frac = text.partition(".")
    return f"{whole}.{frac[:2] + frac[2:].rstrip('0')}" if frac else text


def rate_down(rate: float, significant: int = 3) -> str:
    """A rate to three significant figures (two decimals at least), rounded down (toward one the SLO was met at): how
    `kvplan capacity` and the web page show a capacity (5.6292 -> 5.62, 0.1066 -> 0.106)."""
    digits = rate_digits(rate, significant)
    return _trim(f"{math.floor(rate * 10 ** digits + 1e-9) / 10 ** digits:.{digits}f}")  # (0.29 x 100 is 28.999...)


def rate_cell(rate: Optional[float]) -> str:
    """A compared deployment's rate per replica as `kvplan capacity --vary`'s table and the web page's show it: rounded
    down (rate_down), '-' where no rate meets the SLO."""
    return rate_down(rate) if rate else "-"


def cost_cells(row: dict) -> list[str]:
    """A compared deployment's (capacity_rows row) price and costs as `kvplan capacity --vary`'s $/GPU-h, $/hour and
    $/M req columns and the web page's show them: the price as given (1.2), the costs to the cent with thousands
    separators (1,234.50), '-' where the row has none."""
    return [f"{row['usd_per_gpu_hour']:g}" if row.get("usd_per_gpu_hour") else "-",
            f"{row['usd_per_hour']:,.2f}" if row.get("usd_per_hour") else "-",
            f"{row['usd_per_million_requests']:,.2f}" if row.get("usd_per_million_requests") else "-"]


def cost_columns_line(target_rate_per_s: Optional[float]) -> str:
    """What the $/hour and $/M req columns of compared deployments price: the fleet for a target, else one replica."""
    return ("$/hour: " + ("the fleet for the target" if target_rate_per_s is not None else "one replica")
            + "; $/M req: per million requests at " + ("the target rate" if target_rate_per_s is not None
                                                        else "the replica's capacity"))


def compare_heading(workload_name: str, slo_text: str, target_rate_per_s: Optional[float]) -> str:
    """What compared deployments were searched for, as `kvplan capacity --vary` heads its table after the model:
    'workload azure-conv, ttft <= 2 s ... at p95, target 20 req/s'."""
    return (f"workload {workload_name}, {slo_text}"
            + (f", target {target_rate_per_s:g} req/s" if target_rate_per_s is not None else ""))


def compare_note(workload_name: str, requests: int, slo_text: str, target_rate_per_s: Optional[float], priced: bool,
                 notes: Sequence[str] = ()) -> str:
    """The web page's note under its table of compared deployments: the command's heading (compare_heading), the
    requests each probe simulates, what the cost columns price where priced (cost_columns_line), and `notes`
    (the form's fields the vary replaced)."""
    return (f"({compare_heading(workload_name, slo_text, target_rate_per_s)}, {requests:,} requests per probe"
            + (f"; {cost_columns_line(target_rate_per_s)}" if priced else "")
            + "".join(f"; {n}" for n in notes) + ")")


def best_mark(priced: bool, target_rate_per_s: Optional[float]) -> str:
    """The mark of the best of compared deployments, as `kvplan capacity --vary`'s table and the web page's show it:
    what its order ranks by (capacity_rows)."""
    return "cheapest" if priced else ("fewest GPUs" if target_rate_per_s is not None else "most req/s per GPU")


def compare_columns(names: Sequence[str], target_rate_per_s: Optional[float], priced: bool) -> list[tuple[str, bool]]:
    """The columns of compared deployments' table, as `kvplan capacity --vary` and the web page head it: (title,
    numeric) each; the varied flags ('TP' for tensor_parallel_size), GPUs and req/s per replica, with a target the
    replicas and GPUs for it, priced the price each row was costed at and its costs (cost_cells), and a last column
    for the best row's mark or why a row has no answer ('KV pool too small')."""
    cols = [("TP" if n == "tensor_parallel_size" else n.replace("_", " "), False) for n in names]
    cols += [("GPUs/rep", True), ("req/s/rep", True)]
    if target_rate_per_s is not None:
        cols += [("replicas", True), ("GPUs", True)]
    if priced:  # a GPU given two prices (on-demand, spot) has a row for each
        cols += [("$/GPU-h", True), ("$/hour", True), ("$/M req", True)]
    return cols + [("note", False)]


def compare_cells(row: dict, names: Sequence[str], target_rate_per_s: Optional[float], priced: bool) -> list[str]:
    """A compared deployment's (capacity_rows row) cells under compare_columns, as `kvplan capacity --vary` and the web
    page show them: the rate rounded down (rate_cell), the costs (cost_cells), and the row's refusal or, for the best
    row, its mark (best_mark)."""
    cells = [str(row[n]) for n in names] + [str(row["gpus_per_replica"] or "-"), rate_cell(row["rate_per_replica"])]
    if target_rate_per_s is not None:
        cells += [str(row["replicas"] or "-"), str(row["gpus"] or "-")]
    if priced:
        cells += cost_cells(row)
    return cells + [row["cell"] or (best_mark(priced, target_rate_per_s) if row.get("best") else "")]


def compare_lines(rows: Sequence[dict], names: Sequence[str]) -> list[tuple[str, str]]:
    """The lines under compared deployments' table, as `kvplan capacity --vary` prints them and the web page lists
    them, (kind, text) each: why a row has no answer ("reason") and a rate above its answer that met the SLO again
    ("again", met_again_line), once per deployment however many prices its GPU was given; then each plan's warnings
    once with the rows they concern ("warning": which card a bare 'A100' was planned as, a first, compiling start that
    may be refused) and the step-time model's caveats on a row's rate ("note": a card timed on bandwidth alone)."""
    from kvplan.api import vary_setting
    from kvplan.render import sweep_warnings

    out: list[tuple[str, str]] = []
    said = set()
    for r in rows:
        shown = vary_setting(r, names)
        if shown in said:
            continue
        said.add(shown)
        if r["reason"]:
            out.append(("reason", f"{shown}: {r['cell']}: {r['reason']}"))
        again = met_again_line(shown, r)
        if again:
            out.append(("again", again))
    out += [("warning", t.plain) for t in sweep_warnings(rows, names)]
    out += [("note", t.plain) for t in sweep_warnings(rows, names, "notes")]
    return out


def target_checked_alone(plan, workload: Workload) -> bool:
    """Whether find_capacity checks a target rate on one replica at its share of the rate (a data-parallel server, or
    a recorded trace, for which fleet_workload draws no fleet sample) rather than on the fleet behind the router."""
    return (plan.args.data_parallel_size or 1) > 1 or recorded_arrivals(workload)


def rate_text(rate: float) -> str:
    """A measured rate (requests per second) to three significant figures, two decimals at least: a slow trace's
    0.00401 req/s read '0.00 req/s'."""
    return _trim(f"{rate:.{rate_digits(rate)}f}")


def ms_text(v, in_seconds: Optional[bool] = None) -> str:
    """Milliseconds, or seconds from 10 s on; `in_seconds` makes one table row use one unit."""
    if v is None:
        return "-"
    seconds = v >= 10_000 if in_seconds is None else in_seconds
    return f"{v / 1000:,.2f} s" if seconds else f"{v:,.1f} ms"


def _plain(text: str, style: str) -> str:
    return text


def capacity_lines(cap: "CapacityResult", *, worst_case_concurrency: float, gpus_per_replica: int,
                   data_parallel_size: int = 1, one_checked: bool = False, costs: Sequence[dict] = (),
                   mark: Callable[[str, str], str] = _plain) -> list[str]:
    """A capacity search's answer in words, a line each: the capacity within the SLO (or why no rate meets it), where
    the SLO does not bind, a rate above it that met the SLO again, the run at that rate, the replicas for the target
    rate and how they were counted, and the cost at each price (`costs`: capacity_cost's). `kvplan capacity` prints
    them; /api/simulate answers them ("capacity_lines") for the web page to show as they stand. `one_checked`: the
    target was checked on one replica at its share (a data-parallel server or a recorded trace), else on the fleet.
    `mark(text, style)` marks the answer's figures ('bold'; the CLI's rich markup), plain text by default."""
    slo = cap.slo
    percentile = slo.percentile
    target_rate = cap.target_rate_per_s
    out = []
    if cap.max_rate_per_s <= 0:
        out.append(mark(f"no probed rate meets {slo.describe()}", "bold red") + f" (even {cap.probes[0][0]:g} req/s)")
        if cap.reason:
            out.append(f"  {cap.reason}; fix: {cap.fix}")
    else:
        a = cap.at_max.to_dict()
        unit = f"per replica of {data_parallel_size} data-parallel engines" if data_parallel_size > 1 else "per replica"
        # rounded down: 5.6292 printed as 5.63, a rate the search did not find within the SLO
        shown = rate_down(cap.max_rate_per_s)
        out.append(f"capacity: {mark(f'{shown} req/s', 'bold')} {unit} within {slo.describe()}")
        if not cap.slo_binding:
            out.append(f"  the SLO does not bind: it holds up to {shown} req/s, what the replica serves with every "
                       "request queued at once; past that its queue grows without end, so the server, not the SLO, sets "
                       "the capacity")
        if cap.met_above is not None:
            out.append(f"  not monotone in the rate: {rate_text(min(r for r in cap.missed_rates if r > cap.max_rate_per_s))}"
                       f" req/s missed the SLO and {rate_text(cap.met_above)} req/s above it met it again; the "
                       "capacity is the highest rate under every probed miss")
        check = a["slo_check"]  # the values the bisection compared with the SLO (rejected requests ranked last)
        out.append(f"  at that rate: TTFT p{percentile:g} {ms_text(check['ttft_ms'])}, TPOT p{percentile:g} "
                   f"{ms_text(check['tpot_ms'])}, max running {a['max_running']} "
                   f"(vLLM's startup 'Maximum concurrency', every request max_model_len long: "
                   f"{worst_case_concurrency:.2f}x), mean running {a['mean_running']:.1f}, KV usage peak "
                   f"{a['kv_usage_peak'] * 100:.1f} % / mean {a['kv_usage_mean'] * 100:.1f} %, "
                   f"{a['output_tokens_per_s']:,.0f} output tokens/s, {a['preemptions']:,} preemptions"
                   + (f", {a['requests_rejected']:,} of {a['requests_total']:,} requests rejected (counted as misses)"
                      if a["requests_rejected"] else ""))
    if target_rate is not None:
        if cap.replicas_needed:
            gpus = gpus_per_replica  # each replica is one whole server: TP x PP x DP GPUs
            n = cap.replicas_needed
            out.append(f"target {target_rate:g} req/s: {mark(f'{n} replica' + ('s' if n != 1 else ''), 'bold')}"
                       + (f" of {gpus} GPUs each ({n * gpus} GPUs)" if gpus > 1 else "")
                       + f" ({cap.router} router)")
            # how the count was reached: the division, then the fleet simulated at the target (find_capacity adds
            # replicas while that simulation misses the SLO), so the count can be traced to the rate above
            first = max(1, math.ceil(target_rate / cap.max_rate_per_s))
            how = (f"  {target_rate:g} / {rate_down(cap.max_rate_per_s, 4)} req/s per replica = "
                   f"{target_rate / cap.max_rate_per_s:.2f}, rounded up to {first}")

            # a data-parallel replica is checked alone at its share of the target (find_capacity's run_replica),
            # the others as a fleet behind the router: 'the 4 simulated at 20 req/s' was one group at 5
            def checked(k: int) -> str:
                return (f"one replica simulated at {target_rate:g} / {k} = {rate_text(target_rate / k)} req/s"
                        if one_checked
                        else f"{'the ' if k == n else ''}{k} simulated at {target_rate:g} req/s")

            if n > first:
                how += f"; {checked(first)} missed the SLO, so {n}"
            if cap.at_target is not None:
                t = cap.at_target.slo_check(slo)
                how += (f"; {checked(n)}: TTFT p{percentile:g} {ms_text(t['ttft_ms'])}, "
                        f"TPOT p{percentile:g} {ms_text(t['tpot_ms'])}")
            out.append(how)
        elif cap.max_rate_per_s <= 0 and cap.rejected_fraction > (100 - percentile) / 100:
            # the rejections rule every rate out (cap.reason): it read as a matter of load, which replicas do not fix
            out.append(f"target {target_rate:g} req/s: no number of replicas meets the SLO (the requests vLLM "
                       f"rejects, {cap.rejected_fraction * 100:.1f} % of them, miss it on any replica; the fix "
                       "above lifts that)")
        elif cap.max_rate_per_s <= 0:
            out.append(f"target {target_rate:g} req/s: no number of replicas meets the SLO (one replica misses "
                       "it at the lowest rate probed, and more replicas only lower each one's rate)")
        else:
            out.append(f"target {target_rate:g} req/s: not met with up to 256 replicas")
    for cost in costs:
        price = cost["usd_per_gpu_hour"]
        n_gpus = round(cost["usd_per_hour"] / price)
        per_hour = f"{cost['usd_per_hour']:,.2f} USD/hour"
        out.append(f"cost at {price:g} USD per GPU-hour: {mark(per_hour, 'bold')} for "
                   f"{n_gpus} GPU{'s' if n_gpus != 1 else ''}, {cost['usd_per_million_requests']:,.2f} USD per "
                   "million requests at " + (f"{target_rate:g} req/s" if target_rate is not None else
                                              f"{rate_down(cap.max_rate_per_s)} req/s"))
    return out


def met_again_line(setting: str, row: dict) -> Optional[str]:
    """A compared deployment's (capacity_rows row) 'not monotone' line, as `kvplan capacity --vary` prints it under
    its table and the web page lists it: a probed rate above its answer met the SLO again. None where none did.
    `setting`: the deployment's varied values as the line names them ('gpu=H100')."""
    if not row.get("met_above_rate_per_s"):
        return None
    return (f"{setting}: not monotone in the rate: {rate_text(row['met_above_rate_per_s'])} req/s, above its "
            f"{rate_down(row['rate_per_replica'])}, met the SLO again; the capacity is the highest rate under every "
            "probed miss")


def _capacity_row(row: dict, p, r: dict, base: Workload, slo: SLO, burstiness, seed, target_rate_per_s, router, prices,
                  on_probe, max_probes, spec_acceptance: Optional[SpecAcceptance] = None) -> None:
    """One deployment's answer of capacity_rows, filled into `row`."""
    if p is None:
        row.update(cell="bad input", reason=r["error_input"])
        return
    row.update(gpu_name=p.gpu.name, gpus_per_replica=p.gpus_used, tensor_parallel_size=p.args.tensor_parallel_size)
    if not p.fits:
        row.update(cell=_REFUSAL_CELLS.get(p.failure, p.failure or "refused"),
                   reason=p.error or p.failure)
        return
    try:
        config, step_model, rules = serving_setup(p, spec_acceptance=spec_acceptance)
    except InputError as exc:  # a card the step-time model cannot time (no bandwidth in the catalog): this row's
        # answer, where it ended the whole comparison ('capacity --vary gpu=L4,L20' lost the L4's search)
        if exc.field in SPEC_ACCEPTANCE_FLAGS.values():
            # the acceptance given (out of range, two forms, no speculative_config) is wrong for every row alike: refused
            # under its flag, as one capacity search refuses it, where each row read 'no step model'
            raise
        row.update(cell="no step model", reason=f"{exc.message}; {exc.fix}" if exc.fix else exc.message)
        return
    # the step-time model's caveats on this row's rate (a card without peak FLOPS is timed on bandwidth alone, so its
    # prefills and TTFT come out optimistic), as `kvplan simulate` notes them; the plan's own warnings are "warnings"
    row["notes"] = [n for n in step_model.notes if not n.startswith("plan: ")] + list(served_caveats(p, step_model.spec))
    try:
        check_servable(p, base, config)
    except InputError as exc:
        row.update(cell="rejects all requests", reason=f"{exc.message}; {exc.fix}" if exc.fix else exc.message)
        return
    cap = plan_capacity(p, lambda rate: with_rate(base, rate, burstiness, seed), config, step_model, slo, rules,
                        fleet_at=lambda rate, k: fleet_workload(base, rate, k, burstiness, seed),
                        target_rate_per_s=target_rate_per_s, router=router, on_probe=on_probe,
                        max_probes=max_probes, worst_case_concurrency=p.max_concurrency)
    row["rate_per_replica"] = cap.max_rate_per_s if cap.max_rate_per_s > 0 else 0.0
    row["met_above_rate_per_s"] = cap.met_above  # a probed rate above the answer met the SLO again, else None
    if cap.max_rate_per_s <= 0:
        row.update(cell="misses SLO at any rate", reason=f"{cap.reason}; fix: {cap.fix}" if cap.reason else None)
        return
    if target_rate_per_s is not None:
        if cap.replicas_needed is None:
            row.update(cell="over 256 replicas")
            return
        row.update(replicas=cap.replicas_needed, gpus=cap.replicas_needed * p.gpus_used)
    costs = [c for c in (capacity_cost(price, p.gpus_used, cap, target_rate_per_s) for price in
                         (prices.all_of(p.gpu) if prices else ())) if c is not None]
    if costs:
        row.update(costs[0])
        row["_more_costs"] = costs[1:]  # (capacity_rows adds a row for each)


def simulate_replicas(workload: Workload, config: EngineConfig, step_model: StepModel, replicas: int,
                      router: str = "round-robin", rules: Optional[SchedulerRules] = None, *, slo: SLO = SLO(),
                      worst_case_concurrency: Optional[float] = None, lockstep: bool = False,
                      progress: Optional[Callable[[int], None]] = None) -> SimResult:
    """Several identical engines behind a router: 'round-robin', 'least-loaded' (fewest
    outstanding requests at arrival, like Vidur's least-outstanding-requests global scheduler) or
    'vllm-dp' (vLLM's data-parallel balancer: lowest 4 x waiting + running).
    Per-request figures cover all replicas; the time series and concurrency are replica 0's, except
    with `lockstep=True` (data-parallel ranks of a MoE model stepping together, see `_run_lockstep`):
    then the running and waiting series are summed over the ranks (one shared clock) and KV usage averaged,
    max_running and the KV peak are the busiest rank's, and the running histogram and KV mean are per rank (mean
    over ranks). `progress(n)` is called as requests finish, on any replica."""
    if replicas < 1:
        raise InputError("--replicas", "must be >= 1", "e.g. 2")
    if router not in ROUTERS:
        raise InputError("--router", f"unknown router {router!r}", " or ".join(ROUTERS))
    if replicas == 1:
        return simulate(workload, config, step_model, rules, slo=slo, worst_case_concurrency=worst_case_concurrency,
                        progress=progress)
    wall0 = _time.perf_counter()
    rules = rules or scheduler_rules(None)
    what = ("running and waiting series summed over the ranks, KV usage averaged; max running and KV peak are the busiest "
            "rank's, mean running and KV mean per rank") if lockstep else (
            "time series and concurrency are engine 0's" if router == "vllm-dp" else "time series and concurrency are replica 0's")
    # vllm-dp: one server's data-parallel engines (capacity calls the whole server one replica), not separate replicas
    unit = ("lockstep data-parallel ranks" if lockstep else
            "data-parallel engines of one server" if router == "vllm-dp" else "replicas")
    notes = (list(workload.notes) + list(getattr(step_model, "notes", ()))
             + [f"{replicas} {unit}, {router} router; {what}"])
    # the largest rank's batch up to which the ranks pad (`_run_lockstep`): none eager, else per the version's rule
    pad_up_to = {"every_step": math.inf, "graph_steps": config.cudagraph_max_tokens}.get(rules.dp_padding, 0) \
        if config.cudagraph_max_tokens else 0
    if lockstep and pad_up_to:
        notes.append("the ranks pad their batches to the largest rank's, whose tokens the expert layers then see on every "
                     "rank: " + ("on every step" if pad_up_to == math.inf else
                                 f"on steps of at most {pad_up_to} tokens a rank (CUDA graphs)")
                     + f" (vLLM {rules.version}, dp_utils)")
    rejected, stats0 = _prepare(workload, config, notes)
    out = _Shared(len(workload))
    rej_l = rejected.tolist()
    interval = _auto_interval(workload)
    rid_lists = [[] for _ in range(replicas)]
    stats = [dict(stats0) for _ in range(replicas)]
    gens = []
    for r in range(replicas):
        gen = _engine(workload, config, step_model, rules, rid_lists[r], out, rej_l, stats[r], interval,
                      progress=progress, lockstep=lockstep)
        next(gen)
        gens.append(gen)
    arrival = stats0["arrival_list"]
    if lockstep:
        _run_lockstep(gens, stats, rid_lists, arrival, router, step_model, pad_up_to=pad_up_to)
        merged = dict(stats[0])
        for key in ("steps", "preemptions", "recomputed", "hit_tokens", "prefill_written", "decode_written"):
            merged[key] = sum(s[key] for s in stats)
        merged["steps"] = stats[0]["steps"]  # group steps (every rank takes each one)
        series = [s["ts"] for s in stats]
        length = min(len(ts[0]) for ts in series)
        merged["ts"] = (series[0][0][:length],
                        [sum(ts[1][i] for ts in series) for i in range(length)],
                        [sum(ts[2][i] for ts in series) for i in range(length)],
                        [sum(ts[3][i] for ts in series) / replicas for i in range(length)])
        width = max(len(s["run_hist"]) for s in stats)
        merged["run_hist"] = [sum(s["run_hist"][i] if i < len(s["run_hist"]) else 0.0 for s in stats) / replicas
                              for i in range(width)]
        merged["max_running"] = max(s["max_running"] for s in stats)
        # the pool figures as the concurrency ones: the peak the busiest rank's, the time mean over the ranks (each
        # rank has its own pool of the same size), not rank 0's alone (whose peak was below the group's mean series)
        merged["kv_peak"] = max(s["kv_peak"] for s in stats)
        merged["kv_area"] = sum(s["kv_area"] for s in stats) / replicas
        return _result(workload, config, rules, out, rejected, merged, slo, _time.perf_counter() - wall0, notes,
                       worst_case_concurrency)
    if router == "round-robin":
        for i in range(len(workload)):
            rid_lists[i % replicas].append(i)
    else:
        load = [0] * replicas
        for i, t in enumerate(arrival):
            for r in range(replicas):
                load[r] = gens[r].send(t)
            if router == "vllm-dp":
                # exact counts: in vLLM 0.19 only the MoE ranks (DPEngineCoreProc) publish theirs to the coordinator
                # (`_DPBalancerView`); what the balancer sees of independent dense engines was not modelled
                best = _vllm_dp_pick([s["load"]() for s in stats])
            else:
                best = min(range(replicas), key=lambda r: (load[r], r))
            rid_lists[best].append(i)
    for gen in gens:
        gen.send(math.inf)
    merged = dict(stats[0])
    for key in ("steps", "preemptions", "recomputed", "hit_tokens", "prefill_written", "decode_written"):
        merged[key] = sum(s[key] for s in stats)
    return _result(workload, config, rules, out, rejected, merged, slo, _time.perf_counter() - wall0, notes,
                   worst_case_concurrency)


# =====================================================================================
# Capacity: the highest rate one replica sustains within the SLOs
# =====================================================================================


# The scan below a capacity search's answer (find_capacity, _scan_below): from a quarter of the answer (one step of
# the search's 4x growth) up to it, no two rates that met the SLO further apart than 4 ** (1/5) (1.32x: four rates
# between two growth steps), at most SCAN_PROBES probes.
SCAN_SPAN = 4.0
SCAN_RATIO = 4.0 ** 0.2
SCAN_PROBES = 12


def _scan_points(best: float, probes: list) -> list[float]:
    """The rates the scan below `best` probes: geometric fill of every gap wider than SCAN_RATIO between consecutive
    rates that met (the highest met rate at or below best / SCAN_SPAN anchoring the span), ascending; points under
    best / SCAN_SPAN are not probed."""
    floor = best / SCAN_SPAN
    met = sorted({r for r, m in probes if m and r <= best})
    anchor = [r for r in met if r <= floor]
    edges = ([anchor[-1]] if anchor else []) + [r for r in met if r > floor]
    points = []
    for a, b in zip(edges, edges[1:]):
        n = math.ceil(math.log(b / a) / math.log(SCAN_RATIO) - 1e-9) - 1
        points += [a * (b / a) ** (i / (n + 1)) for i in range(1, n + 1)]
    return [x for x in points if x >= floor]


def _scan_below(best: float, binding: bool, probes: list, ok: Callable[[float], bool], rel_tol: float,
                budget: int, on_scan: Optional[Callable[[float, int], None]] = None) -> tuple[float, bool]:
    """Probes the rates below a search's answer `best` that its probes left unchecked (_scan_points), lowest first.
    Where one misses the SLO, the answer falls below it: bisected between the highest rate that met under the miss
    and the miss, then scanned again. Returns (answer, binding): the highest probed rate that met with no probed rate
    under it missing (a scan that finds nothing to miss leaves the search's answer as it was), and False for
    binding only where the SLO still held at the saturation rate."""
    spent = 0
    while spent < budget:
        missed = None
        points = _scan_points(best, probes)[:budget - spent]
        if points and on_scan:
            on_scan(best, len(points))
        for x in points:
            spent += 1
            if not ok(x):
                missed = x
                break
        if missed is None:
            break
        binding = True  # a rate under the answer missed: the SLO binds there, whatever the saturation rate does
        best = max(r for r, m in probes if m and r < missed)
        bad = missed
        while spent < budget and (bad - best) > rel_tol * best:
            spent += 1
            mid = math.sqrt(best * bad)
            if ok(mid):
                best = mid
            else:
                bad = mid
    return best, binding


@dataclass(frozen=True)
class CapacityResult:
    slo: SLO
    max_rate_per_s: float
    at_max: Optional[SimResult]
    probes: tuple[tuple[float, bool], ...]  # (rate, met)
    target_rate_per_s: Optional[float] = None
    replicas_needed: Optional[int] = None
    router: str = "round-robin"
    at_target: Optional[SimResult] = None
    saturation_rate_per_s: Optional[float] = None  # requests/s served with every request queued at once
    slo_binding: bool = True  # False: the SLO held up to the saturation rate, which bounds the capacity instead
    rejected_fraction: float = 0.0  # requests vLLM refuses at any rate (prompt + output > max_model_len or the pool)
    reason: Optional[str] = None  # why no rate meets the SLO: the rejections rule it out, or the lowest rate misses it
    fix: Optional[str] = None
    searched_probes: Optional[int] = None  # how many of `probes` the search took; the rest are the scan's (_scan_below)

    @property
    def missed_rates(self) -> list[float]:
        """The probed rates that missed the SLO, ascending."""
        return sorted(r for r, m in self.probes if not m)

    @property
    def met_above(self) -> Optional[float]:
        """The highest probed rate above the answer that met the SLO (a rate under it missed): None where the probes
        were monotone in the rate."""
        above = [r for r, m in self.probes if m and r > self.max_rate_per_s]
        return max(above) if above else None

    def to_dict(self) -> dict:
        searched = len(self.probes) if self.searched_probes is None else self.searched_probes
        return {
            "rejected_fraction": self.rejected_fraction,
            "reason": self.reason,
            "fix": self.fix,
            "saturation_rate_per_s": self.saturation_rate_per_s,
            "slo_binding": self.slo_binding,
            "slo": {"ttft_ms": self.slo.ttft_ms, "tpot_ms": self.slo.tpot_ms, "e2e_ms": self.slo.e2e_ms,
                    "percentile": self.slo.percentile},
            "max_rate_per_s": self.max_rate_per_s,
            "at_max_rate": self.at_max.to_dict() if self.at_max is not None else None,
            "probes": [{"rate_per_s": r, "meets_slo": m, "stage": "search" if i < searched else "scan"}
                       for i, (r, m) in enumerate(self.probes)],
            "missed_rates_per_s": self.missed_rates,
            "met_above_rate_per_s": self.met_above,
            "target_rate_per_s": self.target_rate_per_s,
            "replicas_needed": self.replicas_needed,
            "router": self.router,
            "at_target": self.at_target.to_dict() if self.at_target is not None else None,
        }


def find_capacity(workload_at: Callable[[float], Workload], config: EngineConfig, step_model: StepModel,
                  slo: SLO, rules: Optional[SchedulerRules] = None, *, lo: float = 0.05, hi: Optional[float] = None,
                  rel_tol: float = 0.03, max_probes: int = 24, target_rate_per_s: Optional[float] = None,
                  router: str = "round-robin", max_replicas: int = 256,
                  on_probe: Optional[Callable[[float, bool], None]] = None, data_parallel_size: int = 1,
                  lockstep: bool = False, worst_case_concurrency: Optional[float] = None,
                  fleet_at: Optional[Callable[[float, int], Optional[Workload]]] = None,
                  on_fleet: Optional[Callable[[int, int, bool], None]] = None,
                  faster: str = "a faster GPU, more tensor parallelism or a quantized model",
                  scan_probes: int = SCAN_PROBES,
                  on_scan: Optional[Callable[[float, int], None]] = None) -> CapacityResult:
    """The highest request rate below which every probed rate met the SLO: a search (the rate grown 4x a probe, then
    bisected) and a scan below its answer (`_scan_below`: the SLO need not be monotone in the rate, so a rate
    between two probes that met may miss it; the scan takes up to `scan_probes` probes past `max_probes`).
    `workload_at(rate)` gives the workload at a rate. With a target rate, also the replicas it needs behind `router`.

    The search never goes past the replica's saturation rate: the requests per second it serves with every request
    of the workload queued at once (`workload_at(inf)`). Offered more, its queue grows without bound however
    patient the SLO, so a finite run can meet the SLO there only because it ends; where the SLO still holds at the
    saturation rate, that rate is the capacity and `slo_binding` is False. `faster`: what the fix names for an SLO
    the lowest rate already misses (the server's faster variants).

    `data_parallel_size` > 1: one replica is a group of that many engines behind vLLM's DP balancer (stepping in
    lockstep for a MoE model); for a target rate, the replicas of the group are sized by giving one group its
    share of the rate with Poisson arrivals (a round-robin router spaces each group's arrivals more evenly, Erlang
    rather than Poisson, so this errs on the slow side).

    `fleet_at(rate, replicas)`: the sample the fleet is checked on at the target (workload.fleet_workload: a probe's
    requests for every replica, not one probe's split among them, whose short runs never built a replica's queue);
    None from it (a recorded trace, not redrawn) checks one replica at its share of the target with the whole
    trace, as for data parallelism. Without `fleet_at`, the fleet runs `workload_at(target)`. `on_fleet(replicas,
    requests, met)` is called after each check at the target (a progress line: one is a probe's run many times over);
    `on_scan(answer, rates)` before each pass of the scan below the answer that has rates to probe."""

    def run_replica(w: Workload) -> SimResult:
        return _simulate_server(w, config, step_model, rules, data_parallel_size, lockstep, slo=slo,
                                worst_case_concurrency=worst_case_concurrency)

    if slo.ttft_ms is None and slo.tpot_ms is None and slo.e2e_ms is None:
        raise InputError("--slo", "capacity needs at least one SLO", "e.g. --slo ttft=1s,tpot=50ms")
    rules = rules or scheduler_rules(None)
    probes: list = []
    cache_res: dict = {}

    def ok(rate: float) -> bool:
        res = run_replica(workload_at(rate))
        met = res.meets(slo)
        cache_res[rate] = res
        probes.append((rate, met))
        if on_probe:
            on_probe(rate, met)
        return met

    everything = workload_at(math.inf)
    # a long workload at the default lowest probe would span more than kvplan simulates: start where it fits
    lo = max(lo, lowest_simulated_rate(len(everything.prompt_tokens)))
    saturated = run_replica(everything)
    n_rejected, n_total = int(saturated.rejected.sum()), int(saturated.rejected.size)
    rejected_fraction = n_rejected / max(1, n_total)
    reason = fix = None
    if rejected_fraction > (100 - slo.percentile) / 100:  # the rejected requests miss at every rate
        longest = int((everything.prompt_tokens + everything.completion_tokens).max())
        reason = (f"{n_rejected:,} of {n_total:,} requests ({100 * rejected_fraction:.1f}%) are rejected by vLLM (prompt + "
                  f"output over max_model_len {config.max_model_len:,} or the KV pool) and count as misses, so "
                  f"p{slo.percentile:g} of requests cannot meet the SLO at any rate")
        # a length this pool cannot hold one request of does not start (vLLM's one-request check at startup): the
        # fix then names a larger pool, where it read as a flag to raise on this GPU
        need = int(config.blocks_for_array(np.array([longest - 1]))[0])
        where = "" if need <= config.usable_blocks else (
            f" on a larger GPU or tensor-parallel size: one request that long needs {need:,} KV blocks and this pool has "
            f"{config.usable_blocks:,}, so vLLM does not start at that length here (`kvplan fit --gpu auto "
            f"--max-model-len {longest}` finds one)")
        percentile = f"judge a percentile of {100 * (1 - rejected_fraction):.1f} or lower"
        if config.model_len_limit and longest > config.model_len_limit:
            # no flag admits them: the model's config caps max_model_len (a longer one needs rope scaling)
            fix = (f"{percentile}, or give shorter requests: the workload's longest prompt + output, {longest:,} tokens, "
                   f"is over the {config.model_len_limit:,} the model's config lets vLLM serve (a longer context needs "
                   "rope scaling: --hf-overrides)")
        else:
            fix = (f"raise max_model_len to at least {longest:,} (the workload's longest prompt + output){where}, or "
                   f"{percentile}")
    served = int(saturated.completed.sum())
    saturation = served / saturated.makespan_s if saturated.makespan_s > 0 and served else math.inf
    binding = True
    if not ok(min(lo, saturation)):
        best = 0.0
    else:
        best = min(lo, saturation)
        # grow until failure, or until the saturation rate
        rate = min(hi or lo * 4, saturation)
        bad = rate
        while len(probes) < max_probes and best < saturation:
            if not ok(rate):
                bad = rate
                break
            best = rate
            rate = min(rate * 4, saturation)
        else:
            binding = best < saturation
            bad = best
        while binding and len(probes) < max_probes and (bad - best) > rel_tol * best:
            mid = math.sqrt(best * bad) if best > 0 else bad / 2
            if ok(mid):
                best = mid
            else:
                bad = mid
    searched = len(probes)
    if best > 0:
        best, binding = _scan_below(best, binding, probes, ok, rel_tol, scan_probes, on_scan)
    if best <= 0 and reason is None and probes:
        # no rate at all: say which objective the lowest rate already misses, and by how much (an SLO below what one
        # request alone takes cannot be met by any rate)
        lowest = probes[0][0]
        check = cache_res[lowest].slo_check(slo)
        missed = [(k[:-3], check[k], limit) for k, limit in (("ttft_ms", slo.ttft_ms), ("tpot_ms", slo.tpot_ms),
                                                              ("e2e_ms", slo.e2e_ms))
                  if limit is not None and check[k] is not None and check[k] > limit]
        if missed:
            reason = (f"at {lowest:g} req/s, the lowest rate probed, " + ", ".join(
                f"{name} p{slo.percentile:g} is {value:,.1f} ms against {limit:g} ms" for name, value, limit in missed))
            fix = ("loosen " + " and ".join(f"--slo {name}" for name, _, _ in missed) + " to at least that, or plan "
                   + faster)
    replicas = None
    at_target = None
    if target_rate_per_s is not None and best > 0:
        # with no rate met, replicas do not help: each would serve its share slower than the lowest rate probed, which
        # already misses the SLO (a search here met it by the luck of a smaller sample: "no probed rate meets ...
        # (even 0.05 req/s)" beside "target 10 req/s: 102 replicas")
        replicas = max(1, int(math.ceil(target_rate_per_s / best)))
        # a data-parallel group is checked at its share; otherwise the fleet runs a sample drawn for its size (fleet_at)
        # or, without fleet_at, the one target-rate sample, drawn once
        drawn_per_size = fleet_at is not None and data_parallel_size == 1
        whole = workload_at(target_rate_per_s) if fleet_at is None and data_parallel_size == 1 else None
        while replicas <= max_replicas:
            w = fleet_at(target_rate_per_s, replicas) if drawn_per_size else whole
            if w is None:
                res = run_replica(workload_at(target_rate_per_s / replicas))
            else:
                res = simulate_replicas(w, config, step_model, replicas, router, rules, slo=slo,
                                        worst_case_concurrency=worst_case_concurrency)
            if on_fleet:
                on_fleet(replicas, int(res.rejected.size), res.meets(slo))
            if res.meets(slo):
                at_target = res
                break
            replicas += max(1, replicas // 8)
        else:
            replicas = None
    return CapacityResult(slo=slo, max_rate_per_s=best, at_max=cache_res.get(best), probes=tuple(probes),
                          searched_probes=searched,
                          target_rate_per_s=target_rate_per_s, replicas_needed=replicas, router=router,
                          at_target=at_target, saturation_rate_per_s=saturation if math.isfinite(saturation) else None,
                          slo_binding=binding, rejected_fraction=rejected_fraction, reason=reason, fix=fix)
