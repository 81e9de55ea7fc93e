"""Fit the measured-term coefficients (kvplan/calibration.py) on real startups, era group by era group.

    python tools/fit_calibration.py [calibration.jsonl]
    python tools/fit_calibration.py --graphs       # the CUDA-graph capture term on every record that logs it
    python tools/fit_calibration.py --estimates    # the estimate term against vLLM's own logged estimate
    python tools/fit_calibration.py --terms        # 0.20-0.26: each term against the log, where it states vLLM's estimate

For every record that logs its KV-cache GiB, the memory vLLM did not give the KV cache is
    implied = requested - weights - kv_cache          (weights: logged where logged, else predicted)
and kvplan models it as
    max(forward, a_sampler x S x V_pad) + n_const + n_tp [TP > 1, NCCL charged] + n_integrated [integrated memory]
    + [cudagraph subtracted] (g_const + g_per x layers x capture sizes)
The coefficients of each era group minimise the sum of |implied - modelled| / requested over the
group's records (a robust L1 fit by coordinate grid search). No coefficient belongs to one record:
each group's fit prints the records it used and the residual of every one.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import warnings
from pathlib import Path

warnings.simplefilter("ignore")

from kvplan.calibration import GIB  # noqa: E402
from kvplan.plan import fi_allreduce_workspace_bytes, model_runner, term_features  # noqa: E402
from kvplan.validate import load_records, log_format_era, predict_record  # noqa: E402

from _records import CHECKOUT, RECORD_FILES, ROOT, located, record_files  # noqa: E402 (the tools' record files, named once)

# V0 in two groups by how its non-torch memory is charged (docs/vllm-memory-model.md section 1.3): up to 0.6.4 from
# device-level reads (V0-a: the free memory lost since init_device; V0-b: device-wide used memory, which counts the
# CUDA context), from 0.6.5 (V0-c) as the increase over the baseline snapshot taken after the context was created.
# 0.6.5+ comes first: the older group takes its sampler term (the same sampler code, see SAMPLER_POOL).
# V1 likewise: 0.8.0-0.9.0.x (V1-a) charges the device-wide non-torch memory as V0-b does (v1/worker/gpu_worker.py
# determine_available_memory, 0.8.5.post1 / 0.9.0.1), 0.9.1-0.10 (V1-b) the increase over its init snapshot; no V1-a
# startup logs the term, so that group takes the device-wide value V0 <= 0.6.4's startups log (NON_TORCH_POOL).
GROUPS = {"V0 >= 0.6.5": ("V0-c",), "V0 <= 0.6.4": ("V0-a", "V0-b"), "V1 0.9.1-0.10": ("V1-b",), "V1 0.8-0.9.0": ("V1-a",),
          "V1 0.11-0.17": ("V1-c",), "V1 0.18-0.19": ("V1-d",), "V1 >= 0.20": ("V1-e", "V1-f")}
NON_TORCH_POOL = {"V1 0.8-0.9.0": "V0 <= 0.6.4"}
# From 0.27 (era V1-f) vLLM charges and logs another quantity than 0.20-0.26 (V1-e): total_consumed, the free device
# memory lost from the init snapshot to the end of the profile (utils/mem_utils.py memory_profiling, 0.27.1 wheel),
# which holds the weights, the non-torch increase, the allocator's reserved-but-free slack and every persistent torch
# tensor the profile keeps; 0.26.0's budget charges non_torch_increase alone (the same function, 0.26.0 wheel: CUDA-used
# less torch reserved, over the init snapshot), the persistent tensors falling in its torch peak. So 0.27+'s logged
# figures (consumed - weights) form a pool of their own, each net of what kvplan computes apart (model runner v2's
# penalty state, the fused-MoE workspace kept after the profile, FlashInfer's all-reduce workspace: plan.measured_terms'
# non-torch less the era's constant), and they set V1-f's constant alone; V1-e keeps the group's.
CONSUMED_POOL, CONSUMED_ERA = "V1 >= 0.27 (consumed)", "V1-f"


def planned_logging(records, field: str):
    """(record, plan) of every record that logs `field` and that kvplan predicts. A record whose log states no
    version is planned with the release its source dates (tools/record_dating.py: the issue's day, a dated report,
    its siblings' version), which `kvplan validate` does not read; the record yielded carries that reading under
    "_fitting_version" (`_not_fitted` reads it)."""
    from record_dating import version_reader

    records = list(records)
    fitted = version_reader(records)
    for rec in records:
        if rec["observed"].get(field) is None:
            continue
        try:
            version = fitted(rec)
            p, _ = predict_record(rec, version=version)
        except Exception:
            continue
        yield dict(rec, _fitting_version=version), p


def rows(records):
    from kvplan.calibration import coefficients_for
    from kvplan.plan import profile_sampler_term

    out = []
    for rec, p in planned_logging(records, "kv_cache_gib"):
        o = rec["observed"]
        w = o.get("weights_gib") * GIB if o.get("weights_gib") else p.weights_bytes
        implied = p.requested_bytes - w - o["kv_cache_gib"] * GIB - _computed_extras(p)
        f = term_features(p.model, p.gpu, p.args, p.rules)
        cg = p.rules.cudagraph_subtracted
        if model_runner(p.model, p.args, p.rules) == "v2":
            # model runner v2's graph estimate is its own (0 before 0.29, one pool + 1 MiB per FULL graph after):
            # computed, so taken out rather than fitted with the V1 runner's extrapolation
            implied -= p.cudagraph_bytes if cg else 0
            cg = False
        # a startup whose sampler ran FlashInfer's top-k/top-p kernel (VLLM_USE_FLASHINFER_SAMPLER=1, the record's
        # logged line) keeps that kernel's term from the code, not the era's fitted PyTorch-native one; a 0.17 startup
        # (Triton top-k/top-p in place, versions.py topk_topp_triton) keeps the term fitted on 0.18-0.19, which run the
        # same sampler code, not the 0.11-0.16 sort's
        # model runner v2's profile sampler run is read from the code (plan.mrv2_sampler_bytes_per_logit; 0.33+, whose
        # warmup pass keeps the era's fitted term, excepted): plan.profile_sampler_term says which term applies
        a_s, term = profile_sampler_term(p.model, p.args, p.rules, coefficients_for(p.era), f.s)
        a_s_kernel = None if term == "fitted" else a_s
        out.append({"id": rec["id"], "era": p.era, "implied": implied, "requested": p.requested_bytes, "f": f,
                    "fi_ws": fi_allreduce_workspace_bytes(p.model, p.gpu, p.args, p.rules)[0],
                    "nccl": p.rules.nccl_charged, "cg": cg, "why_not_fitted": _not_fitted(rec, p), "a_s_kernel": a_s_kernel})
    return out


def _computed_extras(p) -> float:
    """Memory kvplan computes rather than fits (the multimodal encoder pass, DeepSeek-V3.2's and -V4's sparse-attention
    buffers, model runner v2's sampler state where the budget counts it): taken out of the implied memory so that the
    fitted terms do not absorb it."""
    from kvplan.plan import computed_profile_terms, fi_allreduce_workspace_bytes, measured_terms, mrv2_sampler_state_bytes

    text = measured_terms(p.model, p.gpu, p.args, p.rules)["activation_peak"][0]
    return (sum(extra for _, extra, _ in computed_profile_terms(p.model, p.gpu, p.args, p.rules, text))
            + mrv2_sampler_state_bytes(p.model, p.args, p.rules)
            # FlashInfer's all-reduce fusion workspace (0.17+, TP > 1 on Hopper/Blackwell): its form is read from the
            # code and its granularity checked on the startups that log their non-torch memory (fi_workspace_family)
            + fi_allreduce_workspace_bytes(p.model, p.gpu, p.args, p.rules)[0])


def _not_fitted(rec, p) -> str | None:
    """Records scored with a group's coefficients but kept out of its fit: a release inferred only from the date of
    the vLLM issue the record comes from (a guess of the version, not a statement), and a 0.8-0.10 release running its
    V0 engine (V0's terms were fitted on 0.6-0.7 records; one or two such startups cannot refit them)."""
    basis = rec["_fitting_version"][1]
    if basis == "issue date":
        return "version inferred from the date of its vLLM issue"
    if basis == "same source":
        return "version taken from other startups of the same source"
    if p.rules.engine == "v0" and p.rules.release >= (0, 8, 0):
        return f"vLLM {p.rules.version} on its V0 engine"
    return None


def model(r, a_s, n_c, n_tp, n_int, g_c, g_p, n_nvls=0.0):
    f = r["f"]
    act = max(f.forward_peak_bytes + f.moe_bytes, (r["a_s_kernel"] or a_s) * f.sampler_elements) + f.moe_workspace_bytes
    nt = (n_c if r.get("n_c") is None else r["n_c"]) + (n_tp if f.tp_gt_1 and r["nccl"] else 0) + (n_int if f.integrated_memory else 0) + (n_nvls if f.nvls and r["nccl"] else 0)
    cg = (g_c + g_p * f.graph_layer_sizes) if r["cg"] and f.n_sizes else 0
    return act + nt + cg


def loss(rs, params):
    return sum(abs(r["implied"] - model(r, *params)) / r["requested"] for r in rs)


# CUDA-graph memory where the budget subtracts it (>= 0.20): calibration.py's estimate coefficients, 0.25 GiB + 0.287
# MiB x layers x capture sizes, held fixed here so that the era fit does not fold graph memory into non-torch memory
# (the capture's own fit is graph_report below).
from kvplan.calibration import ESTIMATE_G_CONST, ESTIMATE_G_PER  # noqa: E402


def fit_group(rs, a_s_fixed=None, n_c_fixed=None, n_int_fixed=None):
    grids = {
        "a_s": [x for x in range(4, 61, 2)],
        "n_c": [x * GIB / 20 for x in range(0, 21)],
        "n_tp": [x * GIB / 10 for x in range(0, 31)],
        "n_int": [x * GIB / 4 for x in range(0, 21)],
        "g_c": [x * GIB / 10 for x in range(0, 16)],
        "g_p": [x * 1024 ** 2 / 100 for x in range(0, 51, 5)],
        "n_nvls": [x * GIB / 10 for x in range(0, 61)],
    }
    params = [36, 0.15 * GIB, 0.5 * GIB, 0.0, ESTIMATE_G_CONST, ESTIMATE_G_PER, 0.0]
    if a_s_fixed is not None:
        params[0] = a_s_fixed
    if n_c_fixed is not None:
        params[1] = n_c_fixed
    if n_int_fixed is not None:
        params[3] = n_int_fixed
    used = {"a_s": a_s_fixed is None and any(r["f"].sampler_elements for r in rs), "n_c": n_c_fixed is None,
            "n_tp": any(r["f"].tp_gt_1 and r["nccl"] for r in rs),
            "n_int": n_int_fixed is None and any(r["f"].integrated_memory for r in rs),
            "g_c": False, "g_p": False, "n_nvls": False}
    names = list(grids)
    for _ in range(4):  # coordinate descent over the grids
        for i, name in enumerate(names):
            if not used[name]:
                continue
            best = min(grids[name], key=lambda v: loss(rs, params[:i] + [v] + params[i + 1:]))
            params[i] = best
    return dict(zip(names, params)), used


# The sampler's bytes per logit, where startups log the profile's peak itself ("torch peak memory increase") and the
# sampler's logits dominate it (S x V_pad x 16 B above 3 x the forward live set): the peak is then a_sampler x S x V_pad
# alone, with nothing else to share the residual. Read from the project's public records, the calibration file and
# tests/data/extra_records.jsonl (every record with its source), per era group.
PEAK_FILES = (RECORD_FILES["calibration"], RECORD_FILES["extra"])


# V1's sampler and its dummy run are the same code from 0.8 to 0.16 (the 0.10.2 and 0.14.1 startups log the same
# bytes per logit), so those two groups share one sampler coefficient; 0.17 changed the profiled sampler path.
SAMPLER_POOL = {"V1 0.9.1-0.10": "V1 0.8-0.16", "V1 0.8-0.9.0": "V1 0.8-0.16", "V1 0.11-0.17": "V1 0.8-0.16"}
# V0's sampler is one code path from 0.6.4 to 0.8.2 (model_executor/layers/sampler.py Sampler.forward and
# _apply_top_k_top_p, identical in the 0.6.4.post1, 0.6.6.post1, 0.7.1, 0.7.3 and 0.8.2 wheels but for the penalties'
# helper, which the profile run does not call), and its dummy run sets top_p 0.99 and top_k vocabulary - 1 for each of
# max_num_seqs sequences (worker/model_runner.py _dummy_run), so both V0 groups share one sampler term.
SAMPLER_POOL.update({"V0 >= 0.6.5": "V0", "V0 <= 0.6.4": "V0"})
# V0's measured terms are read from the calibration file alone, so that no record of tests/data/extra_records.jsonl
# leaves the out-of-sample set for them.
V0_FILES = PEAK_FILES[:1]
# 0.17 masks top-k/top-p with the Triton kernel of 0.18-0.19 (versions.py topk_topp_triton), not the sort of 0.8-0.16:
# a 0.17 startup that logs its sampler peak joins the 0.18-0.19 pool
TRITON_SAMPLER_POOL = "V1 0.18-0.19"


def _logging(root: Path, field: str, keep=None):
    """(record id, plan, term features, era group, logged GiB) of every record in PEAK_FILES that logs `field`, that
    `keep` (a test of the record) keeps and that kvplan predicts; V0 startups from V0_FILES only."""
    for name in PEAK_FILES:
        kept = [rec for rec in load_records(located(root, name)) if keep is None or keep(rec)]
        for rec, p in planned_logging(kept, field):
            group = next(g for g, eras in GROUPS.items() if p.era in eras)
            if p.rules.engine != "v1" and name not in V0_FILES:
                continue
            yield rec["id"], p, term_features(p.model, p.gpu, p.args, p.rules), group, rec["observed"][field]


def _profile_peak_alone(rec: dict) -> bool:
    """Whether a record's activation_peak_gib is the profile's peak alone: not the >= 0.27 summary's "peak
    activation" (consumed-memory form, validate.log_format_era), which adds the CUDA-graph estimate vLLM applied and
    which the records in tests/data/extra_records.jsonl carry as printed (docs/startup-record-format.md)."""
    era = log_format_era(rec.get("observed") or {})
    return era is None or era[0] != "0.27.0"


def sampler_peaks(root: Path) -> dict[str, list[tuple[str, float]]]:
    """{era group: [(record id, logged peak / (S x V_pad)), ...]} over the records whose logged peak is the sampler's.
    V0 startups on more than one rank are left out: V0 samples on the driver worker only (worker/model_runner.py
    execute_model returns before the sampler on the others, and LogitsProcessor._get_logits gathers the logits to
    rank 0 only, 0.7.1), and a quoted profile line may be any rank's."""
    from kvplan.calibration import coefficients_for
    from kvplan.plan import computed_profile_terms, measured_terms, profile_sampler_term

    out: dict[str, list[tuple[str, float]]] = {}
    for rid, p, f, group, peak in _logging(root, "activation_peak_gib", _profile_peak_alone):
        if f.sampler_elements * 32 < 3 * (f.forward_peak_bytes + f.moe_bytes) or (p.rules.engine != "v1" and f.tp_gt_1):
            continue
        _, term = profile_sampler_term(p.model, p.args, p.rules, coefficients_for(p.era), f.s)
        if term == "mrv2":
            continue  # model runner v2's sampler term is read from the code, not fitted (plan.mrv2_sampler_bytes_per_logit)
        text = measured_terms(p.model, p.gpu, p.args, p.rules)["activation_peak"][0]
        extra = sum(x for _, x, _ in computed_profile_terms(p.model, p.gpu, p.args, p.rules, text))
        # a 0.17 startup (the Triton term where plan charges it, >= 8 rows) joins the 0.18-0.19 pool
        pool = TRITON_SAMPLER_POOL if term == "triton" else SAMPLER_POOL.get(group, group)
        out.setdefault(pool, []).append((rid, (peak * GIB - extra) / f.sampler_elements))
    return out


def logged_non_torch(root: Path) -> dict[str, list[tuple[str, float]]]:
    """{era group: [(record id, logged non-torch bytes), ...]} over single-GPU startups on discrete GPUs (no NCCL, no
    integrated-memory term): the logged value is then n_const alone."""
    from kvplan.calibration import coefficients_for
    from kvplan.plan import measured_terms

    out: dict[str, list[tuple[str, float]]] = {}
    for rid, p, f, group, nt in _logging(root, "non_torch_gib"):
        if not (f.tp_gt_1 or f.integrated_memory or p.gpu.vendor != "NVIDIA"):
            if p.era == CONSUMED_ERA:  # consumed - weights, less the terms kvplan computes apart (CONSUMED_POOL)
                computed = measured_terms(p.model, p.gpu, p.args, p.rules)["non_torch"][0] - coefficients_for(p.era).n_const
                out.setdefault(CONSUMED_POOL, []).append((rid, nt * GIB - computed))
            else:
                out.setdefault(group, []).append((rid, nt * GIB))
    return out


def _implied_beyond_other_terms(root: Path, keep, with_integrated: bool) -> tuple[float, list[tuple[str, float]]]:
    """The median of what the records `keep` selects (rows of both record files) imply beyond their era's other terms,
    and each record's value; `with_integrated` False leaves the integrated-memory term out of those terms."""
    from kvplan.calibration import coefficients_for

    each = []
    for name in PEAK_FILES:
        for r in rows(load_records(located(root, name))):
            if not keep(r):
                continue
            c = coefficients_for(r["era"])
            modelled = model(r, c.a_sampler, c.n_const, c.n_tp, c.n_integrated if with_integrated else 0.0, c.g_const,
                             c.g_per_layer_size, c.n_nvls)
            each.append((r["id"], r["implied"] - modelled))
    return (statistics.median(v for _, v in each) if each else 0.0), each


def integrated_before_0_20(root: Path) -> tuple[float, list[tuple[str, float]]]:
    """The integrated-memory term of the V1 releases before 0.20 (GB10, Jetson): few startups per era group, so one
    term over all of them, the median of what each implies beyond the group's other terms (both record files)."""
    return _implied_beyond_other_terms(
        root, lambda r: r["f"].integrated_memory and r["era"] in ("V1-a", "V1-b", "V1-c", "V1-d"), with_integrated=False)


def nvlink_tp_term(root: Path) -> tuple[float, list[tuple[str, float]]]:
    """The non-torch memory of TP > 1 over NVLink on Hopper or later, in every V1 release: the median of what the V1
    startups with 2 such ranks (no NVLS) imply beyond their group's other terms (both record files). Startups that also
    build FlashInfer's all-reduce fusion workspace (0.17+) are left to fi_workspace_family: that term's size is a step
    of 512 MiB per buffer, so what they imply beyond it carries the step's rounding as well (0.17-0.34 GiB here)."""
    return _implied_beyond_other_terms(
        root, lambda r: r["f"].nvlink_tp and not r["f"].nvls and not r["era"].startswith("V0") and not r["why_not_fitted"]
        and not r["fi_ws"], with_integrated=True)


def fi_workspace_family(root: Path) -> tuple[float, list[tuple[str, float]]]:
    """FlashInfer's all-reduce + RMSNorm fusion workspace (plan.fi_allreduce_workspace_bytes): three buffers per rank,
    each rounded up to the driver's recommended multicast granularity. That granularity is checked on the startups
    that log their non-torch memory and build the workspace (both record files): each implies (logged non-torch - the
    era's constant - the NVLink TP term) / 3 per buffer, and the power of two nearest the median is the granularity.
    Returns (that granularity in bytes, [(record id, implied bytes per buffer)])."""
    import math

    from kvplan.calibration import coefficients_for
    from kvplan.plan import fi_allreduce_workspace_bytes

    each = []
    for rid, p, f, _, nt in _logging(root, "non_torch_gib"):
        ws, _ = fi_allreduce_workspace_bytes(p.model, p.gpu, p.args, p.rules)
        if not ws or p.rules.fi_allreduce_workspace_alloc != "multicast":
            continue
        c = coefficients_for(p.era)
        each.append((rid, (nt * GIB - c.n_const - (c.n_nvlink_tp if f.nvlink_tp else 0.0)) / 3))
    if not each:
        return 0.0, each
    median = statistics.median(v for _, v in each)
    return 2 ** round(math.log2(median)), each


def rocm_graph_family(root: Path) -> tuple[float, list[tuple[str, float]]]:
    """The ROCm CUDA-graph rate of 0.26+ (calibration.py ROCM_G_PER_GRAPH, plan.rocm_graph_units): over the ROCm
    startups of those releases that log their graph pool (both record files), what each implies per hipGraph beyond
    the era's pool constant, (logged - constant) / graphs. Returns (the median rounded to 0.01 MiB, in bytes,
    [(record id, implied bytes per graph)])."""
    from kvplan.calibration import ROCM_G_PER_GRAPH
    from kvplan.plan import rocm_graph_units

    each = []
    for rid, p, f, _, logged in _logging(root, "cudagraph_gib"):
        if (p.gpu.vendor or "").upper() != "AMD" or p.rules.cudagraph_rocm_cost != "per_graph" or not p.args.captures_cuda_graphs:
            continue
        units = rocm_graph_units(f.graphs, f.n_layers, p.args.max_num_seqs, p.args.decode_query_len)
        base = p.cudagraph_capture_bytes - ROCM_G_PER_GRAPH * units
        each.append((rid, (logged * GIB - base) / units))
    if not each:
        return 0.0, each
    return round(statistics.median(v for _, v in each) / 1024 ** 2, 2) * 1024 ** 2, each


def records_fixing_coefficients(root: Path) -> set[str]:
    """The ids of the records that fix a coefficient in the stages above (sampler and non-torch medians of groups with
    at least 5, the integrated-memory and NVLink-TP medians, the FlashInfer workspace and ROCm graph families, model
    runner v2's stated CUDA-graph estimates): the rest of tests/data/extra_records.jsonl stays blind."""
    ids: set[str] = set()
    for pools in (sampler_peaks(root), logged_non_torch(root)):  # V0's come from the calibration file alone
        for values in pools.values():
            if len(values) >= 5:
                ids |= {i for i, _ in values}
    ids |= {i for i, _ in integrated_before_0_20(root)[1]}
    ids |= {i for i, _ in nvlink_tp_term(root)[1]}
    ids |= {i for i, _ in fi_workspace_family(root)[1]}
    ids |= {i for i, _ in rocm_graph_family(root)[1]}
    ids |= mrv2_fitting_ids()
    return ids


def main():
    path = next((a for a in sys.argv[1:] if not a.startswith("--")), None) or str(located(ROOT, PEAK_FILES[0]))
    rs = rows(load_records(path))
    peaks = sampler_peaks(ROOT)
    non_torch = logged_non_torch(ROOT)
    n_int_early, each = integrated_before_0_20(ROOT)
    print(f"## integrated-memory term before 0.20: {n_int_early / GIB:.2f} GiB, the median of "
          + ", ".join(f"{i[:45]} {v / GIB:+.2f}" for i, v in each))
    n_nvlink_tp, each = nvlink_tp_term(ROOT)
    print(f"## TP>1 over NVLink on Hopper or later (V1): {n_nvlink_tp / GIB:.2f} GiB, the median of "
          + ", ".join(f"{i[:45]} {v / GIB:+.2f}" for i, v in each))
    n_nvlink_tp = round(n_nvlink_tp / GIB * 20) / 20 * GIB
    gran, each = fi_workspace_family(ROOT)
    if each:
        from kvplan.plan import FI_AR_MULTICAST_GRANULARITY
        print(f"## FlashInfer all-reduce fusion workspace (0.17+, TP > 1 on Hopper/Blackwell NVSwitch): per buffer, the "
              f"median of {len(each)} logged non-torch figures less the era's other terms, "
              + ", ".join(f"{i[:45]} {v / 1024 ** 2:.0f} MiB" for i, v in each)
              + f" -> granularity {gran / 1024 ** 2:.0f} MiB (plan.FI_AR_MULTICAST_GRANULARITY "
              f"{FI_AR_MULTICAST_GRANULARITY / 1024 ** 2:.0f} MiB)")
    rate, each = rocm_graph_family(ROOT)
    if each:
        from kvplan.calibration import ROCM_G_PER_GRAPH
        print(f"## ROCm CUDA graphs, 0.26+: per hipGraph beyond the era's pool constant, the median of {len(each)} logged pools, "
              + ", ".join(f"{i[:45]} {v / 1024 ** 2:.2f} MiB" for i, v in each)
              + f" -> {rate / 1024 ** 2:.2f} MiB (calibration.py ROCM_G_PER_GRAPH {ROCM_G_PER_GRAPH / 1024 ** 2:.2f} MiB)")
    for r in rs:  # held fixed in the group fits below
        if r["f"].nvlink_tp and not r["era"].startswith("V0"):
            r["implied"] -= n_nvlink_tp
    fitted = {}
    for group, eras in GROUPS.items():
        scored = [r for r in rs if r["era"] in eras]
        g = [r for r in scored if not r["why_not_fitted"]]
        if group in NON_TORCH_POOL:  # V1-a: the device-wide value of the group that logs that quantity
            pooled = sorted(v for _, v in non_torch.get(NON_TORCH_POOL[group], []))
            print(f"\n## {group}: non-torch memory charged device-wide, logged by no startup of the group; "
                  f"{NON_TORCH_POOL[group]}'s single-GPU startups log that quantity: median "
                  f"{statistics.median(pooled) / GIB:.2f} GiB of {len(pooled)} (calibration.py _DEVICE_WIDE_NON_TORCH_GIB)")
        if not g:
            continue
        # a group with at least 5 logged sampler peaks takes their median bytes per logit; the KV-implied fit then
        # fits only the other terms
        pool = SAMPLER_POOL.get(group, group)
        logged = sorted(v for _, v in peaks.get(pool, []))
        a_s_logged = round(statistics.median(logged), 1) if len(logged) >= 5 else None
        if logged:
            print(f"\n## {group}: sampler peaks logged by {len(logged)} startups ({pool}): "
                  + ", ".join(f"{i[:40]} {v:.1f}" for i, v in sorted(peaks[pool], key=lambda x: x[1]))
                  + (f" B/logit -> median {a_s_logged:.1f}" if a_s_logged else " (too few to fix the coefficient)"))
        # >= 0.20: most records there state no version or serve a stand-in config, and no 0.20-0.26 startup of the
        # fitting files logs its non-torch memory, so the sampler's bytes per logit and the non-torch constant are
        # carried over from 0.18-0.19 (the same code paths) and only the integrated-memory term, which no earlier group
        # can constrain, is fitted here; 0.27+ (V1-f) takes its own constant from its logged consumed figures
        # (CONSUMED_POOL, below).
        prev = fitted.get("V1 0.18-0.19", {}) if group == "V1 >= 0.20" else ({"a_s": a_s_logged} if a_s_logged else {})
        # V0 before 0.6.5: the same sampler term as 0.6.5+ (SAMPLER_POOL), which its records (forward-dominated
        # profiles) cannot fit
        if group == "V0 <= 0.6.4" and "a_s" not in prev and "V0 >= 0.6.5" in fitted:
            prev = {"a_s": fitted["V0 >= 0.6.5"]["a_s"]}
        # likewise a group with at least 5 single-GPU startups that log their non-torch memory takes its median
        nts = sorted(v for _, v in non_torch.get(group, []))
        if not nts and group in NON_TORCH_POOL:
            pooled = sorted(v for _, v in non_torch.get(NON_TORCH_POOL[group], []))
            prev = dict(prev, n_c=round(statistics.median(pooled) / GIB * 100) / 100 * GIB)
        if nts:
            n_c_logged = round(statistics.median(nts) / GIB * 100) / 100 * GIB if len(nts) >= 5 else None
            what = "non-torch memory of 0.20-0.26 (V1-e)" if group == "V1 >= 0.20" else "non-torch memory"
            print(f"\n## {group}: {what} logged by {len(nts)} single-GPU startups: "
                  + ", ".join(f"{i[:40]} {v / GIB:.2f}" for i, v in sorted(non_torch[group], key=lambda x: x[1]))
                  + (f" GiB -> median {n_c_logged / GIB:.2f} GiB" if n_c_logged is not None
                     else " GiB (too few to fix the constant)"))
            if n_c_logged is not None:
                prev = dict(prev, n_c=n_c_logged)
        elif group == "V1 >= 0.20":
            # 0.20-0.26 (V1-e) pool here (0.27+ in CONSUMED_POOL): their logged figure is non_torch_increase, the
            # quantity the budget charges (utils/mem_utils.py memory_profiling, 0.26.0), and kvplan computes nothing
            # apart from the constant on a single discrete GPU, so a fifth startup would fix it from the raw median
            print(f"\n## {group}: non-torch memory of 0.20-0.26 (V1-e) logged by 0 single-GPU startups of the "
                  f"fitting files (too few to fix the constant: V1-e keeps {prev['n_c'] / GIB:.2f} "
                  f"GiB from 0.18-0.19)")
        # >= 0.27 (V1-f): its own constant, the median of its logged consumed - weights net of the computed terms
        # (CONSUMED_POOL), where at least 5 single-GPU startups give it; its rows are modelled with it
        consumed = sorted(v for _, v in non_torch.get(CONSUMED_POOL, [])) if CONSUMED_ERA in eras else []
        n_c_own = None
        if consumed:
            n_c_own = round(statistics.median(consumed) / GIB * 100) / 100 * GIB if len(consumed) >= 5 else None
            print(f"\n## {CONSUMED_POOL}: consumed - weights less the terms kvplan computes apart, logged by "
                  f"{len(consumed)} single-GPU startups: "
                  + ", ".join(f"{i[:40]} {v / GIB:.3f}" for i, v in sorted(non_torch[CONSUMED_POOL], key=lambda x: x[1]))
                  + (f" GiB -> median {statistics.median(consumed) / GIB:.3f}, {CONSUMED_ERA} n_const {n_c_own / GIB:.2f} GiB"
                     if n_c_own is not None else " GiB (fewer than 5: not used)"))
            if n_c_own is not None:
                for r in scored:
                    if r["era"] == CONSUMED_ERA:
                        r["n_c"] = n_c_own
        # NCCL's NVLink SHARP buffers (more than 2 TP ranks on a Hopper-or-later NVSwitch, where NCCL is charged) are
        # fitted in a second stage on the records they apply to, the other terms being fitted without those records,
        # so that the few NVLS runs do not pull the sampler or non-torch coefficients.
        nvls = [r for r in g if r["f"].nvls and r["nccl"]]
        early = group != "V1 >= 0.20" and not group.startswith("V0")
        params, used = fit_group([r for r in g if r not in nvls] or g, prev.get("a_s"), prev.get("n_c"),
                                 round(n_int_early / GIB * 20) / 20 * GIB if early else None)
        if nvls:
            keys = list(params)
            params["n_nvls"] = min((x * GIB / 20 for x in range(0, 121)),
                                   key=lambda v: loss(nvls, [params[k] for k in keys[:-1]] + [v]))
            used["n_nvls"] = True
        fitted[group] = params
        if n_c_own is not None:
            fitted[CONSUMED_POOL] = {"n_c": n_c_own}
        print(f"\n## {group}: {len(g)} records")
        print("   " + ", ".join(f"{k}={v / GIB:.3f} GiB" if k not in ("a_s", "g_p") else (f"{k}={v:.0f} B/elem" if k == "a_s" else f"{k}={v / 1024 ** 2:.3f} MiB")
                                for k, v in params.items() if used[k]))
        for r in scored:
            m = model(r, *params.values())
            aside = f"  (scored, not fitted: {r['why_not_fitted']})" if r["why_not_fitted"] else ""
            print(f"   {r['id'][:52]:52} implied {r['implied'] / GIB:6.2f}  modelled {m / GIB:6.2f}  residual {(r['implied'] - m) / GIB:+6.2f} GiB{aside}")
    print("\n" + json.dumps({k: {n: round(v, 1) for n, v in p.items()} for k, p in fitted.items()}, indent=1))


# ---------------------------------------------------------------------------------------------- CUDA-graph memory
# Every startup of the three record files that logs its graphs' memory (observed.cudagraph_gib: "Graph capturing
# finished in N secs, took X GiB", or the summary line's "C GiB for CUDAGraph memory" from 0.10.2). The figure is the
# free device memory lost across the whole capture (v1/worker/gpu_model_runner.py capture_model: start_free_gpu_memory
# - end_free_gpu_memory, 0.11.0), and PyTorch's torch.cuda.graph context empties the caching allocator as each capture
# begins (torch/cuda/graphs.py graph.__enter__), so blocks the profile run left cached are given back inside it: nine
# startups log 0 or less (H100/H200 at 1,024 sequences, a GB10), which no graph formula can reach. They are scored,
# not fitted. The L1 fit (grid search, as fit_group) takes the calibration file's records with a positive figure from
# the releases that do not subtract the graphs from the budget (V0, V1 up to 0.19), whose figure is the capture alone;
# the other files are scored only. From 0.20 the budget subtracts vLLM's estimate and calibration.py keeps the
# coefficients the KV-pool fit of that group was made with (ESTIMATE_G_CONST, ESTIMATE_G_PER): the refit is scored there, not applied.
_DATA = CHECKOUT / "tests/data"  # this checkout's data (the log excerpts: the shared file's copy)
GRAPH_FILES = tuple(record_files().items())
GRAPH_GROUPS = (("V0", ("V0-a", "V0-b", "V0-c")), ("V1 0.8-0.10", ("V1-a", "V1-b")), ("V1 0.11-0.17", ("V1-c",)),
                ("V1 0.18-0.19", ("V1-d",)), ("V1 >= 0.20", ("V1-e", "V1-f")))


def graph_records(files=GRAPH_FILES) -> list[dict]:
    """One row per record that logs CUDA-graph memory and that kvplan predicts: the features a graph formula may use
    (decoder layers by kind, capture sizes, the largest, hidden size, TP, MoE, the drafter's graphs) and the figures."""
    out = []
    for tag, path in files:
        for rec, p in planned_logging(load_records(path), "cudagraph_gib"):
            logged = rec["observed"]["cudagraph_gib"]
            f = term_features(p.model, p.gpu, p.args, p.rules)
            if not f.n_sizes:
                continue  # no graphs (--enforce-eager): 0 logged, 0 predicted
            g = f.graphs
            runner = model_runner(p.model, p.args, p.rules)
            recurrent = sum(1 for layer in p.model.layers if layer.kind == "recurrent")
            out.append({"file": tag, "id": rec["id"], "era": p.era, "group": next(n for n, e in GRAPH_GROUPS if p.era in e),
                        "runner": runner, "mode": g.mode, "n": f.n_sizes, "largest": g.largest, "layers": f.n_layers,
                        "recurrent": recurrent, "drafter": g.drafter_layers * g.drafter_graphs, "hidden": p.model.hidden_size,
                        "tp": p.args.tensor_parallel_size, "moe": p.model.is_moe, "quant": quant_family(p.model.quant),
                        "integrated": f.integrated_memory, "amd": (p.gpu.vendor or "").upper() == "AMD", "logged": logged * GIB,
                        "predicted": p.cudagraph_capture_bytes, "subtracted": p.rules.cudagraph_subtracted,
                        "v1_formula": runner == "v1" or p.rules.release < (0, 29, 0) or not p.rules.cudagraph_subtracted})
    return out


def quant_family(quant) -> str:
    """The weight-quantization family a plan's QuantSpec belongs to, for the per-family graph tables: "AWQ/GPTQ"
    (awq, gptq and their Marlin kernels), "FP8" (fp8, online or block-wise, and compressed-tensors FP8),
    "NVFP4/MXFP4" (ModelOpt, compressed-tensors NVFP4, gpt-oss's MXFP4 experts), "compressed-tensors INT" (its INT4/INT8
    weight-only schemes), else the method's name; "unquantized" without one."""
    if quant is None:
        return "unquantized"
    method, scheme = quant.method.lower(), (quant.scheme or "").lower()
    if method.startswith(("awq", "gptq")):
        return "AWQ/GPTQ"
    if method == "modelopt" or "fp4" in method or scheme.startswith(("nvfp4", "mxfp4")):
        return "NVFP4/MXFP4"
    if "fp8" in method or scheme.startswith("fp8"):
        return "FP8"
    if method == "compressed-tensors":
        return "compressed-tensors INT"
    return method


QUANT_FAMILIES = ("unquantized", "AWQ/GPTQ", "compressed-tensors INT", "FP8", "NVFP4/MXFP4")


def family_table(rows, predict) -> list[str]:
    """Lines of kvplan's signed and absolute error (predict(r) - logged, GiB) per quantization family of `rows`."""
    out = []
    for fam in QUANT_FAMILIES + tuple(sorted({r["quant"] for r in rows} - set(QUANT_FAMILIES))):
        group = [r for r in rows if r["quant"] == fam]
        if group:
            signed = statistics.median((predict(r) - r["logged"]) / GIB for r in group)
            out.append(f"{fam:22} signed median {signed:+.2f} GiB  {graph_errors(group, predict)}")
    return out


def graph_errors(rows, predict) -> str:
    """median / p90 / max of |predicted - logged| in GiB over `rows`, and in % over those with a positive figure."""
    def q(values, frac):
        values = sorted(values)
        return values[min(len(values) - 1, int(round(frac * (len(values) - 1))))]
    gib = [abs(predict(r) - r["logged"]) / GIB for r in rows]
    pct = [100 * abs(predict(r) - r["logged"]) / r["logged"] for r in rows if r["logged"] > 0]
    return (f"n {len(rows):2}  |err| GiB median {statistics.median(gib):.2f} p90 {q(gib, .9):.2f} max {max(gib):.2f}"
            + (f"  |err| % median {statistics.median(pct):.0f} p90 {q(pct, .9):.0f} max {max(pct):.0f}" if pct else ""))


def _layer_sizes(r) -> float:
    return r["layers"] * r["n"] + r["drafter"]


# candidate formulas (bytes): name -> (parameter grids, prediction from the parameters)
GRAPH_FORMULAS = {
    "g_c + g_p x layers x sizes (calibration.py)": (
        ([x * GIB / 100 for x in range(0, 51)], [x * 1024 ** 2 / 100 for x in range(0, 101)]),
        lambda r, c, per: c + per * _layer_sizes(r)),
    "g_c + g_attn x attention layers x sizes + g_rec x GDN/Mamba layers x sizes": (
        ([x * GIB / 100 for x in range(0, 51)], [x * 1024 ** 2 / 100 for x in range(0, 101)],
         [x * 1024 ** 2 / 100 for x in range(0, 201)]),
        lambda r, c, per, rec: c + per * ((r["layers"] - r["recurrent"]) * r["n"] + r["drafter"]) + rec * r["recurrent"] * r["n"]),
    "g_c + g_p x layers x sizes + g_h x largest size x hidden": (
        ([x * GIB / 100 for x in range(0, 51)], [x * 1024 ** 2 / 100 for x in range(0, 101)], [x / 2 for x in range(0, 41)]),
        lambda r, c, per, h: c + per * _layer_sizes(r) + h * r["largest"] * r["hidden"]),
    "g_c + g_p x layers x sizes x (1 + g_tp [TP > 1])": (
        ([x * GIB / 100 for x in range(0, 51)], [x * 1024 ** 2 / 100 for x in range(0, 101)], [x / 20 for x in range(0, 41)]),
        lambda r, c, per, t: c + per * _layer_sizes(r) * (1 + (t if r["tp"] > 1 else 0))),
}


def _fit_l1(rows, grids, formula) -> list[float]:
    """Coordinate descent over the grids minimising sum |predicted - logged| (as fit_group, in bytes)."""
    params = [g[len(g) // 4] for g in grids]
    for _ in range(6):
        for i, grid in enumerate(grids):
            params[i] = min(grid, key=lambda v: sum(abs(formula(r, *(params[:i] + [v] + params[i + 1:])) - r["logged"])
                                                    for r in rows))
    return params


def capture_fit_rows(rows) -> list[dict]:
    """The rows the capture coefficients are fitted on: calibration.jsonl's positive figures from releases that do not
    subtract the graphs."""
    return [r for r in rows if not r["subtracted"] and r["file"] == "calibration" and r["logged"] > 0]


def capture_fit(rows) -> tuple[list[dict], list[float]]:
    """capture_fit_rows(rows) and the L1 fit of g_c + g_p x layers x sizes on them."""
    fit_rows = capture_fit_rows(rows)
    return fit_rows, _fit_l1(fit_rows, *GRAPH_FORMULAS[next(iter(GRAPH_FORMULAS))])


def graph_report() -> None:
    """The CUDA-graph term on every record that logs it: kvplan's errors by era group, then each candidate formula
    fitted on the calibration file's positive figures of the releases that do not subtract the graphs, scored on the
    records of those releases and on all (the numbers behind calibration.py's _G_CONST, _G_PER)."""
    rows = graph_records()
    capture_only = [r for r in rows if not r["subtracted"]]
    fit_rows = capture_fit_rows(rows)
    per_file = ", ".join(f"{t} {sum(r['file'] == t for r in rows)}" for t, _ in GRAPH_FILES)
    print(f"## CUDA-graph memory logged by {len(rows)} startups ({per_file}); {sum(r['logged'] <= 0 for r in rows)} log 0 or "
          f"less (scored, not fitted); {len(capture_only)} from releases that do not subtract the graphs; fitted on the "
          f"{len(fit_rows)} of calibration.jsonl among them with a positive figure")
    print("   kvplan as it stands (its predicted capture):")
    for name, _ in GRAPH_GROUPS:
        group = [r for r in rows if r["group"] == name]
        print(f"     {name:14} {graph_errors(group, lambda r: r['predicted'])}")
    print(f"     {'all':14} {graph_errors(rows, lambda r: r['predicted'])}")
    # by weight-quantization family (quant_family) within each group (CUDA only: ROCm's per-graph cost is a term of its
    # own): whether quantized checkpoints' captures stand apart from the unquantized ones of the same releases
    print("   kvplan as it stands by quantization (CUDA):")
    for name, _ in GRAPH_GROUPS:
        group = [r for r in rows if r["group"] == name and not r["amd"]]
        for line in family_table(group, lambda r: r["predicted"]):
            print(f"     {name:14} {line}")
    for label, (grids, formula) in GRAPH_FORMULAS.items():
        params = _fit_l1(fit_rows, grids, formula)
        print(f"   {label}: " + ", ".join(f"{v / GIB:.2f} GiB" if i == 0 else f"{v / 1024 ** 2:.3f} MiB" if v > 1000 else f"{v:g}"
                                          for i, v in enumerate(params)))
        for name, _ in GRAPH_GROUPS:
            group = [r for r in rows if r["group"] == name and r["v1_formula"]]
            if group:
                print(f"     {name:14} {graph_errors(group, lambda r: formula(r, *params))}"
                      + ("  (scored, not applied: the budget subtracts the estimate)" if all(r["subtracted"] for r in group) else ""))
        print(f"     {'all, >= 0.20 as it stands':14} "
              f"{graph_errors(rows, lambda r: r['predicted'] if r['subtracted'] else formula(r, *params))}")
    # the calibration file's fit rows hold no hybrid: the layer-kind rates fitted on every file's positive figures
    # (an analysis, applied nowhere) say whether GDN/Mamba layers cost less graph memory than attention layers
    label = next(k for k in GRAPH_FORMULAS if "GDN" in k)
    every = [r for r in rows if r["logged"] > 0 and r["v1_formula"]]
    params = _fit_l1(every, *GRAPH_FORMULAS[label])
    hybrids = [r for r in every if r["recurrent"]]
    print(f"   {label}, fitted on all {len(every)} positive figures ({len(hybrids)} hybrids; analysis only): "
          f"{params[0] / GIB:.2f} GiB, {params[1] / 1024 ** 2:.3f} MiB, {params[2] / 1024 ** 2:.3f} MiB; the hybrids log "
          + ", ".join(f"{r['logged'] / 1024 ** 2 / _layer_sizes(r):.2f}" for r in sorted(hybrids, key=lambda r: r["logged"] / _layer_sizes(r)))
          + " MiB per layer x size")
    print("   per record (logged / predicted GiB, MiB per layer x size):")
    for r in sorted(rows, key=lambda r: (r["group"], r["logged"] / _layer_sizes(r))):
        print(f"     {r['file'][:5]:5} {r['id'][:56]:56} {r['era']} {str(r['mode'])[:18]:18} TP{r['tp']} {r['n']:3} sizes "
              f"{r['layers']:3} layers ({r['recurrent']} GDN/Mamba){' MoE' if r['moe'] else '    '}  {r['logged'] / GIB:5.2f} / "
              f"{r['predicted'] / GIB:5.2f}  {r['logged'] / 1024 ** 2 / _layer_sizes(r):6.3f}")


# ----------------------------------------------------------------------------- vLLM's own CUDA-graph estimate
# From 0.19 the V1 model runner measures a CUDA-graph estimate during profiling ("Estimated CUDA graph memory: X GiB
# total"), and from 0.20 kvplan's rules (versions.py cudagraph_subtracted) take it out of the KV budget. The estimate
# (v1/worker/gpu_model_runner.py profile_cudagraph_memory, the same arithmetic in the 0.19.0-0.33.0 wheels) captures
# the first two graphs of each mode (PIECEWISE: every capture size; FULL: the uniform-decode sizes up to max_num_seqs)
# largest first into a throwaway pool, each measured as the free memory it costs, and returns the largest mode's
# first capture plus, per mode, (graphs - 1) x the second capture (at least 1 MiB). Model runner v2 estimates
# otherwise (v1/worker/gpu/cudagraph_utils.py profile_cudagraph_memory, 0.29.0), so its startups are left out. Every
# startup of the record files that states the estimate: its notes' quote of the estimate line or of the pool line
# ("CUDA graph pool memory: A GiB (actual), B GiB (estimated)"), the "equivalent to --gpu-memory-utilization=X" line
# (the estimate over the GPU's memory), or the log excerpt of the same source (tests/data/vllm_log_excerpts.jsonl, the
# shared file's copy; the compile-cache log pair of SOURCES-logs.md for the 0.23.0 RTX 4090 record).
_EXCERPTS = _DATA / "vllm_log_excerpts.jsonl"
_LOGS_OF = {"qwen2.5-coder-7b-instruct-rtx4090-udef-tp1-l32k-seqs32": _DATA / "compile_cold_rtx4090_v0230.log"}
_ESTIMATE_RE = re.compile(r"Estimated CUDA graph(?: memory:)? ([0-9.]+) GiB")
_POOL_RE = re.compile(r"CUDA graph pool memory: ([0-9.]+) GiB \(actual\), ([0-9.]+) GiB \(estimated\)")
_EQUIV_RE = re.compile(r"--gpu-memory-utilization=([0-9.]+) is equivalent to --gpu-memory-utilization=([0-9.]+)")


def stated_estimate(text: str, total_bytes: float) -> tuple[float | None, float | None]:
    """(vLLM's CUDA-graph estimate, the graph pool it then captured), bytes, as `text` states them (None: not
    stated): the estimate line, else the pool line's estimate, else the utilisation line's difference x total_bytes."""
    est, pool, equiv = _ESTIMATE_RE.search(text), _POOL_RE.search(text), _EQUIV_RE.search(text)
    value = (float(est.group(1)) * GIB if est else float(pool.group(2)) * GIB if pool
             else (float(equiv.group(1)) - float(equiv.group(2))) * total_bytes if equiv else None)
    return value, float(pool.group(1)) * GIB if pool else None


def _excerpts_by_source() -> dict[str, str]:
    """log_excerpts.jsonl's lines joined per source URL (a record's `source`), for the estimate tables below."""
    excerpts: dict[str, str] = {}
    for line in _EXCERPTS.read_text().splitlines():
        if line.strip():
            d = json.loads(line)
            excerpts[d["source_url"]] = excerpts.get(d["source_url"], "") + "\n".join(d["lines"])
    return excerpts


def _graph_startups(files, stated, planned):
    """(file tag, record, its text, plan, term features, graph plan) for each record of `files` whose text (its notes,
    log_excerpts.jsonl's lines for its source, a committed log) passes `stated` and whose plan passes `planned`, with
    graphs captured: planned as the fit plans them (their sources' dates), once per file."""
    excerpts = _excerpts_by_source()
    for tag, path in files:
        records = load_records(path)
        plans: dict[str, object] | None = None
        for rec in records:
            text = json.dumps(rec.get("notes", "")) + excerpts.get(rec.get("source", ""), "")
            if rec["id"] in _LOGS_OF:
                text += _LOGS_OF[rec["id"]].read_text()
            if not stated(text):
                continue
            if plans is None:
                plans = {r["id"]: q for field in ("cudagraph_gib", "kv_cache_gib") for r, q in planned_logging(records, field)}
            p = plans.get(rec["id"])
            if p is None or not planned(p):
                continue
            f = term_features(p.model, p.gpu, p.args, p.rules)
            if f.n_sizes and f.graphs is not None:
                yield tag, rec, text, p, f, f.graphs


def estimate_records(files=GRAPH_FILES) -> list[dict]:
    """One row per V1-runner startup that states vLLM's CUDA-graph estimate: its graphs per mode, largest size, layers,
    and the estimate kvplan's term gives (calibration.py ESTIMATE_G_CONST + ESTIMATE_G_PER x layers x sizes, whether or
    not the release subtracts it)."""
    from kvplan.plan import _full_graph_sizes

    out = []
    for tag, rec, text, p, f, g in _graph_startups(
            files, lambda text: bool(_ESTIMATE_RE.search(text) or _POOL_RE.search(text) or _EQUIV_RE.search(text)),
            lambda p: model_runner(p.model, p.args, p.rules) == "v1"):
        logged, pool = stated_estimate(text, p.total_bytes)
        pw = len(g.sizes) if g.mode in ("PIECEWISE", "FULL_AND_PIECEWISE") else 0
        full = _full_graph_sizes(g.sizes, p.args.max_num_seqs, p.args.decode_query_len) if g.mode in _FULL_MODES else 0
        out.append({"file": tag, "id": rec["id"], "release": p.rules.release, "gpu": p.gpu.name, "mode": g.mode,
                    "tp": p.args.tensor_parallel_size, "pw": pw, "full": full, "n": f.n_sizes, "largest": g.largest,
                    "layers": f.n_layers, "recurrent": sum(1 for layer in p.model.layers if layer.kind == "recurrent"),
                    "drafter": g.drafter_layers * g.drafter_graphs, "hidden": p.model.hidden_size,
                    "quant": quant_family(p.model.quant), "moe": p.model.is_moe,
                    "integrated": f.integrated_memory, "logged": logged, "pool": pool,
                    "charged": ESTIMATE_G_CONST + ESTIMATE_G_PER * f.graph_layer_sizes,
                    "subtracted": p.rules.cudagraph_subtracted})
    return out


_FULL_MODES = ("FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE")


def _extrapolated_graphs(r) -> int:
    """The graphs vLLM's estimate extrapolates: (graphs - 1) per mode that captures any."""
    return max(r["pw"] - 1, 0) + max(r["full"] - 1, 0)


# candidate forms of the estimate (bytes): name -> (parameter grids, prediction from the parameters)
ESTIMATE_FORMULAS = {
    "g_c + g_p x layers x sizes (calibration.py ESTIMATE_G_*)": (
        ([x * GIB / 100 for x in range(0, 101)], [x * 1024 ** 2 / 100 for x in range(0, 101)]),
        lambda r, c, per: c + per * _layer_sizes(r)),
    "g_c + g_g x extrapolated graphs (both modes)": (
        ([x * GIB / 100 for x in range(0, 101)], [x * 1024 ** 2 / 4 for x in range(0, 81)]),
        lambda r, c, per: c + per * _extrapolated_graphs(r)),
    "g_c + g_p x layers x extrapolated graphs": (
        ([x * GIB / 100 for x in range(0, 101)], [x * 1024 ** 2 / 100 for x in range(0, 101)]),
        lambda r, c, per: c + per * r["layers"] * _extrapolated_graphs(r)),
    "g_c + g_t x largest size (the first capture's batch)": (
        ([x * GIB / 100 for x in range(0, 101)], [x * 1024 ** 2 / 20 for x in range(0, 101)]),
        lambda r, c, per: c + per * r["largest"]),
}


def estimate_report() -> None:
    """kvplan's estimate term against every V1-runner estimate vLLM states, per record, then each candidate form fitted
    (L1) on all of them and scored on all, on those of releases that subtract it, and without integrated-memory GPUs
    (whose free memory is the OS's, so each capture's measure moves with it)."""
    rows = estimate_records()
    sub = [r for r in rows if r["subtracted"]]
    discrete = [r for r in rows if not r["integrated"]]
    print(f"## vLLM's CUDA-graph estimate stated by {len(rows)} V1-runner startups ({len(sub)} of releases that subtract it)")
    print("   record                                                    vLLM   GPU                      TP mode       "
          "PW/FULL largest layers  estimate  pool  kvplan")
    for r in sorted(rows, key=lambda r: (r["release"], r["id"])):
        pool = f"{r['pool'] / GIB:5.2f}" if r["pool"] is not None else "    -"
        print(f"   {r['id'][:57]:57} {'.'.join(map(str, r['release'])):6} {str(r['gpu'])[:24]:24} {r['tp']:2} "
              f"{str(r['mode'])[:10]:10} {r['pw']:3}/{r['full']:<3} {r['largest']:5} {r['layers']:5}   {r['logged'] / GIB:5.2f}  "
              f"{pool}  {r['charged'] / GIB:5.2f}")
    signed = statistics.median((r["charged"] - r["logged"]) / GIB for r in rows)
    print(f"   kvplan as it stands: all {graph_errors(rows, lambda r: r['charged'])}; signed median {signed:+.2f} GiB")
    print(f"                        subtracted {graph_errors(sub, lambda r: r['charged'])}")
    # by weight-quantization family (quant_family), on the releases that subtract the estimate (the KV pool moves with
    # it), discrete and integrated-memory GPUs apart: whether quantized checkpoints' estimates stand apart from the rest
    for name, group in (("subtracted, discrete GPUs", [r for r in sub if not r["integrated"]]),
                        ("subtracted, integrated memory", [r for r in sub if r["integrated"]])):
        print(f"   by quantization, {name}:")
        for line in family_table(group, lambda r: r["charged"]):
            print(f"     {line}")
    for label, (grids, formula) in ESTIMATE_FORMULAS.items():
        params = _fit_l1(rows, grids, formula)
        print(f"   {label}: {params[0] / GIB:.2f} GiB, {params[1] / 1024 ** 2:.3f} MiB")
        for name, group in (("all", rows), ("subtracted", sub), ("discrete GPUs", discrete)):
            print(f"     {name:14} {graph_errors(group, lambda r: formula(r, *params))}")


_PROFILE_CAPTURE_RE = re.compile(r"Graph capturing finished in [0-9.]+ secs?, took ([0-9.]+) GiB")


def mrv2_estimate_records(files=GRAPH_FILES) -> list[dict]:
    """One row per CUDA startup of model runner v2 with its own estimate (0.29+, versions.py mrv2_cudagraph_estimate)
    that states it (the pool line), with kvplan's estimate (plan.measured_terms: the capture fit's formula for the
    profile's capture + 1 MiB per FULL graph past the two sampled, plan.cudagraphs.mrv2_graph_estimate_bytes) and, where
    the log also quotes the profile's own capture (the first 'Graph capturing finished ... took X GiB', printed by the
    capture_model() that profile_cudagraph_memory runs), the per-FULL-graph cost that vLLM extrapolated:
    (estimate - profile capture) / (FULL graphs - 2) (v1/worker/gpu/cudagraph_utils.py _extrapolate_full_graph_memory,
    0.29.0: measured - (s0 + s1) + s0 + (n - 1) x s1), which vLLM's source floors at 1 MiB and does not otherwise give."""
    from kvplan.plan import measured_terms

    out = []
    for tag, rec, text, p, f, g in _graph_startups(
            files, lambda text: bool(_POOL_RE.search(text)),
            lambda p: (model_runner(p.model, p.args, p.rules) == "v2" and p.rules.mrv2_cudagraph_estimate
                       and (p.gpu.vendor or "").upper() != "AMD")):
        pool = _POOL_RE.search(text)
        full = g.full_count(p.args.max_num_seqs, p.args.decode_query_len) * g.lora_cases
        capture = _PROFILE_CAPTURE_RE.search(text)
        logged, profile = float(pool.group(2)) * GIB, float(capture.group(1)) * GIB if capture else None
        out.append({"file": tag, "id": rec["id"], "release": p.rules.release, "gpu": p.gpu.name, "pw": len(g.sizes),
                    "full": full, "layers": f.n_layers, "logged": logged, "actual": float(pool.group(1)) * GIB,
                    "profile": profile, "charged": measured_terms(p.model, p.gpu, p.args, p.rules)["cudagraph"][0],
                    "per_graph": (logged - profile) / (full - 2) if profile is not None and full > 2 else None})
    return out


def _mrv2_form(r, const, per):
    """calibration.py MRV2_G_CONST + MRV2_G_PER x layers x capture sizes (the profile's capture) + 1 MiB per FULL graph
    past the two sampled (plan.cudagraphs.mrv2_graph_estimate_bytes)."""
    return const + per * r["layers"] * r["pw"] + max(r["full"] - 2, 0) * 1024 ** 2


_MRV2_GRIDS = ([x * GIB / 100 for x in range(0, 41)], [x * 1024 ** 2 / 100 for x in range(0, 61)])
# the start whose pool prompted the term (tests/data/SOURCES-logs.md, forty-sixth round): fitted without it as well
_MRV2_HELD_OUT = "qwen3.5-4b-l4-udef-tp1-l32k-cold"
# startups stating the estimate that came after the fit (the fifty-eighth blind round's two RTX 5060 Ti starts,
# tests/data/SOURCES-logs.md): scored against the coefficients, not fitted (with them the fit is 0.03 GiB + 0.220 MiB)
MRV2_SCORED_NOT_FITTED = frozenset({"typhoon2.5-qwen3-4b-rtx5060ti-wsl2-u070-tp1-l8k-seqs256-xinf-v030",
                                    "typhoon2.5-qwen3-4b-rtx5060ti-wsl2-u070-tp1-l8k-v029-cold"})


def mrv2_fitting_ids() -> set[str]:
    """The startups (any record file, blind ones included) whose stated estimate fixed MRV2_G_CONST / MRV2_G_PER."""
    return {r["id"] for r in mrv2_estimate_records() if r["id"] not in MRV2_SCORED_NOT_FITTED}


def _fit_l1_exhaustive(rows, grids, formula) -> tuple[float, float]:
    """The pair of the two grids minimising sum |predicted - logged| (every pair tried: the sum is flat along a ridge
    of constant x slope trades, where _fit_l1's coordinate descent stops short)."""
    return min(((c, p) for c in grids[0] for p in grids[1]),
               key=lambda cp: sum(abs(formula(r, *cp) - r["logged"]) for r in rows))


def mrv2_estimate_fits(rows) -> dict[str, tuple[float, float]]:
    """The L1 fit of (MRV2_G_CONST, MRV2_G_PER) on every row and on the rows without the held-out start."""
    return {"all": _fit_l1_exhaustive(rows, _MRV2_GRIDS, _mrv2_form),
            f"without {_MRV2_HELD_OUT}": _fit_l1_exhaustive([r for r in rows if r["id"] != _MRV2_HELD_OUT], _MRV2_GRIDS,
                                                              _mrv2_form)}


def mrv2_estimate_report() -> None:
    rows = mrv2_estimate_records()
    print(f"## model runner v2's own CUDA-graph estimate (0.29+) stated by {len(rows)} CUDA startups")
    print("   record                                                    vLLM   PW/FULL layers  estimate  profile  actual  "
          "kvplan  per FULL graph past two")
    for r in sorted(rows, key=lambda r: (r["release"], r["id"])):
        prof = f"{r['profile'] / GIB:5.2f}" if r["profile"] is not None else "    -"
        per = f"{r['per_graph'] / 1024 ** 2:5.2f} MiB" if r["per_graph"] is not None else "    -"
        print(f"   {r['id'][:57]:57} {'.'.join(map(str, r['release'])):6} {r['pw']:3}/{r['full']:<3} {r['layers']:5}   "
              f"{r['logged'] / GIB:5.2f}    {prof}   {r['actual'] / GIB:5.2f}   {r['charged'] / GIB:5.2f}  {per}")
    if rows:
        print(f"   kvplan: {graph_errors(rows, lambda r: r['charged'])}; signed median "
              f"{statistics.median((r['charged'] - r['logged']) / GIB for r in rows):+.2f} GiB")
        for label, (const, per) in mrv2_estimate_fits(rows).items():
            print(f"   g_c + g_p x layers x sizes + (FULL - 2) x 1 MiB, fitted on {label}: {const / GIB:.2f} GiB, "
                  f"{per / 1024 ** 2:.3f} MiB; {graph_errors(rows, lambda r: _mrv2_form(r, const, per))}")


def terms_records(files=GRAPH_FILES) -> list[dict]:
    """One row per discrete-GPU V1-runner startup of a release whose budget subtracts vLLM's CUDA-graph estimate and
    runs it inside the profile's memory_profiling span (0.20-0.26, era V1-e: v1/worker/gpu_worker.py
    determine_available_memory, 0.22.1 wheel), that states the estimate: each term kvplan charges (activation peak,
    non-torch, estimate, KV pool) beside the figure the startup logs (None where it logs none), and what the logged
    pool leaves for the activation peak and non-torch memory once vLLM's own estimate is charged:
        left = requested - weights (logged, else planned) - logged KV pool - vLLM's estimate
    `residual` is left - (kvplan's activation + non-torch): positive where those two terms charge less than the pool
    says, the amount another term would have to add if the estimate matched vLLM's."""
    out = []
    for tag, rec, text, p, f, g in _graph_startups(
            files, lambda text: bool(_ESTIMATE_RE.search(text) or _POOL_RE.search(text) or _EQUIV_RE.search(text)),
            lambda p: (model_runner(p.model, p.args, p.rules) == "v1" and p.rules.cudagraph_subtracted
                       and p.era == "V1-e")):
        if f.integrated_memory:
            continue
        o = rec["observed"]
        if o.get("kv_cache_gib") is None:
            continue
        logged, _ = stated_estimate(text, p.total_bytes)
        w = o["weights_gib"] * GIB if o.get("weights_gib") else p.weights_bytes
        left = p.requested_bytes - w - o["kv_cache_gib"] * GIB - logged
        gib = (lambda v: None if v is None else v * GIB)
        out.append({"file": tag, "id": rec["id"], "release": p.rules.release, "gpu": p.gpu.name, "seqs": p.args.max_num_seqs,
                    "tokens": p.args.max_num_batched_tokens, "requested": p.requested_bytes, "weights": p.weights_bytes,
                    "act": (p.activation_peak_bytes, gib(o.get("activation_peak_gib"))),
                    "non_torch": (p.non_torch_bytes, gib(o.get("non_torch_gib"))),
                    "estimate": (p.cudagraph_bytes, logged), "kv": (p.kv_cache_bytes, o["kv_cache_gib"] * GIB),
                    "residual": left - p.activation_peak_bytes - p.non_torch_bytes})
    return out


def terms_report() -> None:
    """terms_records' table, then the signed medians of the estimate's and the pool's errors and of the residual, the
    residual by max_num_seqs, and how many of the rows could fit a coefficient (the blind file's only score)."""
    rows = terms_records()

    def cell(pair):
        predicted, logged = pair
        return f"{predicted / GIB:5.2f}/" + ("  -  " if logged is None else f"{logged / GIB:5.2f}")

    print(f"## activation peak, non-torch, CUDA-graph estimate and KV pool, kvplan/logged, on {len(rows)} discrete-GPU "
          "V1-runner startups of 0.20-0.26 that state vLLM's estimate")
    print("   record                                                    file  vLLM    seqs   act         non-torch   "
          "estimate    KV pool       residual")
    for r in sorted(rows, key=lambda r: (r["seqs"], r["release"], r["id"])):
        print(f"   {r['id'][:57]:57} {r['file'][:5]:5} {'.'.join(map(str, r['release'])):7} {r['seqs']:5}  {cell(r['act'])} "
              f"{cell(r['non_torch'])} {cell(r['estimate'])} {r['kv'][0] / GIB:6.2f}/{r['kv'][1] / GIB:6.2f} "
              f"{r['residual'] / GIB:+6.2f}")
    if not rows:
        return

    def signed(group, value):
        return f"{statistics.median(value(r) / GIB for r in group):+.2f} GiB (n {len(group)})"

    print(f"   signed medians: estimate {signed(rows, lambda r: r['estimate'][0] - r['estimate'][1])}, KV pool "
          f"{signed(rows, lambda r: r['kv'][0] - r['kv'][1])}, residual {signed(rows, lambda r: r['residual'])}")
    for label, keep in (("max_num_seqs <= 64", lambda s: s <= 64), ("65-512", lambda s: 64 < s <= 512),
                        ("> 512", lambda s: s > 512)):
        group = [r for r in rows if keep(r["seqs"])]
        if group:
            print(f"   residual, {label:18}: {signed(group, lambda r: r['residual'])}, each "
                  + ", ".join(f"{r['residual'] / GIB:+.2f}" for r in group))
    both = [r for r in rows if r["act"][1] is not None and r["non_torch"][1] is not None]
    print(f"   fitting rows (not blind): {sum(r['file'] != 'blind' for r in rows)} of {len(rows)}; rows logging the "
          f"activation peak and non-torch memory apart: {len(both)}"
          + "".join(f"; {r['id'][:40]} activation {(r['act'][0] - r['act'][1]) / GIB:+.2f}, non-torch "
                    f"{(r['non_torch'][0] - r['non_torch'][1]) / GIB:+.2f} GiB (kvplan - logged)" for r in both))


if __name__ == "__main__" and "--estimates" in sys.argv:
    estimate_report()
    mrv2_estimate_report()
elif __name__ == "__main__" and "--graphs" in sys.argv:
    graph_report()
elif __name__ == "__main__" and "--terms" in sys.argv:
    terms_report()
elif __name__ == "__main__" and "--write-residuals" not in sys.argv:
    main()


def residual_results(paths: list[str]):
    """The validate results the band's residuals come from: every record of `paths` scored as `kvplan validate`
    scores it, except that a version-less one is planned with the release its source dates, as the fit plans it
    (tools/record_dating.py): the band is kvplan's error on the release that ran, not the newest rules' on an older
    startup."""
    from kvplan.validate import validate_records
    from record_dating import version_reader

    return [r for path in paths for r in validate_records(load_records(path), version_of=version_reader)]


def write_residuals(paths: list[str]) -> None:
    """The KV-pool residuals by family and era, with the coefficients now in calibration.py, for `kvplan fit`'s band:
    those of every startup kvplan was validated on before shipping (the calibration file and extra_records.jsonl; the
    blind records stay out, so bench/band_coverage.py still measures the band on startups it was not built from)."""
    from kvplan.validate import residual_table

    table = residual_table(residual_results(paths))
    out = Path(__file__).resolve().parents[1] / "src" / "kvplan" / "data" / "residuals.json"
    names = " and ".join(Path(p).name for p in paths)
    out.write_text(json.dumps({"source": f"tools/fit_calibration.py --write-residuals on {names}", **table}, indent=1) + "\n")
    seen = table.get("args_seen", {})
    print(f"wrote {out}: " + ", ".join(f"{k} n={v['n']}" for k, v in table.items() if k != "args_seen")
          + f"; engine arguments no validated startup set: {sum(1 for v in seen.values() if not v['n'])} of {len(seen)}")


if __name__ == "__main__" and "--write-residuals" in sys.argv:
    write_residuals([a for a in sys.argv[1:] if not a.startswith("--")]
                    or [str(located(ROOT, name)) for name in PEAK_FILES])
