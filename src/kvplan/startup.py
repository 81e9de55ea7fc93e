"""How long a vLLM server takes to become ready, phase by phase.

The model is fitted on the public startup records in
``shared/data/vllm_startup_times/startups.jsonl`` (129 engine starts from 71 public
sources, described in ``shared/docs/startup-times.md``; the 3 records flagged
``anomalous`` are excluded from every fit). Every coefficient below is what
:func:`fit_startup_model` returns on that file: medians per phase and log-linear
least squares over the whole family, never a value picked to match one record.

    T_ready = import + boot + download + load + compile + profile [+ kv_sizing_warmup] + capture + tail

    import   = 6 s                                  (before vLLM's first log line; startup-times.md)
    boot     = 8.9 s at TP1, 24 s at TP>1           (log start -> "Starting to load model"; medians)
    download = W_total / 0.159 GiB/s                 (only when the weights are not on the node yet;
                                                     median Hub rate, n=11, range 0.011-0.67 GiB/s)
    load     = W_rank / B_storage                   (per-rank GiB/s, median per storage class:
                                                     page cache 7.64, local disk 2.47, network FS 3.45,
                                                     cloud block SSD 0.92, local SSD cold 0.51)
    compile  = 9.40 * W_total^0.393 * TP^0.204     cold torch.compile (n=30)
             = 3.53 * W_total^0.250 * TP^0.331     warm compile cache (n=59)
             = 0                                    --enforce-eager
    profile  = 1.94 s                               (memory profiling / warmup run; median, n=37)
    capture  = 3.09 * TP^1.446                      (CUDA-graph capture; 0 with --enforce-eager; n=92)
    kv_sizing_warmup = steps * profile              (vLLM >= 0.34 with the extensible KV cache only; see below)
    tail     = 2 s                                  (init engine -> "Application startup complete"; median)

The KV-cache sizing warmup (vLLM 0.34.0: v1/worker/gpu_worker.py Worker._compile_or_warm_up_model calls
v1/worker/gpu/warmup.py run_kv_cache_sizing_warmup after warmup_kernels, before the CUDA-graph capture, only with the
extensible KV cache) runs, through execute_model and sample_tokens, a mixed step of max_num_batched_tokens scheduled
tokens (run_mixed_prefill_decode_warmup: prefills up to max_model_len - 1 tokens each, one decode request), i.e. a
forward over the profile run's token budget (profile_run's dummy batch is max_num_batched_tokens tokens) with the
sampler; a second such step where prompt logprobs (max_logprobs, 20 by default) are requested on a single prompt of
max_model_len < max_num_batched_tokens tokens; the 2-token prefill of the decode request before each. No startup record
is of 0.34, so the phase has no time of its own: each full-budget step is charged the profile term above (its median
`Memory profiling takes` / `Initial profiling/warmup run took`, the same forward), `steps` of them
(plan.extensible.kv_sizing_warmup_steps). The 2-token steps, MLA's context-prefill step and the pool's commit after
it are not timed.

W in GiB of weights (``W_total`` whole model, ``W_rank`` = ``W_total / TP``).

Measured error on the records (median / 90th-percentile absolute percentage error,
in-sample; :func:`evaluate` recomputes these and ``tests/test_scaffold.py`` checks them):

    load, with the record's storage class    n=111  median 35%   p90 126%
    compile (cold + warm)                    n=89   median 33%   p90 73%
    graph capture                            n=92   median 76%   p90 209%
    total, log start -> ready                n=59   median 43%   p90 92%
    total, leave-one-source-out refit        n=59   median 44%   p90 92%

So the honest band is about +-40-50 %: storage, CPU throttling and where the compile
cache lives are mostly unrecorded. That is why a startup probe is sized at twice the
prediction (startup-times.md: a budget of 2x covers 93 % of starts once the site's
load time is known, 3x covers 98 %), and why the first start on an empty cache
(download + cold compile) is what a probe must survive.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Optional

# Python import time before vLLM prints anything: "≈3–10 s" (startup-times.md, "Field
# conventions"); the proposed model there uses 6 s. Not visible in any log, so not fitted.
IMPORT_S = 6.0

STORAGE_CLASSES = (
    "page_cache",
    "local_disk",
    "network_fs",
    "cloud_block_ssd",
    "local_ssd_cold",
)
# The records' `storage_class` values that feed each of our classes.
_STORAGE_ALIASES = {
    "local_disk_unspecified": "local_disk",
    "hf_download": "local_disk",  # the load figure printed after a download reads the local cache
}


@dataclass(frozen=True)
class StartupCoefficients:
    """The fitted constants of the startup model (see the module docstring)."""

    boot_tp1_s: float
    boot_multi_gpu_s: float
    download_gib_per_s: float
    load_gib_per_s_per_rank: Mapping[str, float]
    compile_cold: tuple[float, float, float]  # (a, exponent of W_total GiB, exponent of TP)
    compile_warm: tuple[float, float, float]
    profile_s: float
    capture: tuple[float, float]  # (a, exponent of TP)
    tail_s: float
    n_records: int = 0


# The output of fit_startup_model() on shared/data/vllm_startup_times/startups.jsonl
# (126 non-anomalous records). tests/test_scaffold.py refits and compares.
COEFFICIENTS = StartupCoefficients(
    boot_tp1_s=8.874,
    boot_multi_gpu_s=24.0,
    download_gib_per_s=0.159,
    load_gib_per_s_per_rank={
        "page_cache": 7.642,
        "local_disk": 2.4695,
        "network_fs": 3.446,
        "cloud_block_ssd": 0.9225,
        "local_ssd_cold": 0.508,
    },
    compile_cold=(9.4002, 0.39306, 0.20443),
    compile_warm=(3.5342, 0.25050, 0.33065),
    profile_s=1.942,
    capture=(3.0891, 1.44601),
    tail_s=2.0,
    n_records=126,
)


@dataclass(frozen=True)
class StartupPrediction:
    """Predicted seconds per startup phase; `total_s` is process start to ready."""

    import_s: float
    boot_s: float
    download_s: float
    load_s: float
    compile_s: float
    profile_s: float
    capture_s: float
    tail_s: float
    storage: str
    compile_cache: str
    # vLLM >= 0.34's KV-cache sizing warmup: `kv_sizing_warmup_steps` full-budget steps, each at the profile term; a
    # phase only for a start that runs it (steps > 0)
    kv_sizing_warmup_s: float = 0.0
    kv_sizing_warmup_steps: int = 0

    @property
    def total_s(self) -> float:
        return (
            self.import_s + self.boot_s + self.download_s + self.load_s
            + self.compile_s + self.profile_s + self.capture_s + self.kv_sizing_warmup_s + self.tail_s
        )

    def phases(self) -> dict[str, float]:
        phases = {
            "import": self.import_s,
            "boot": self.boot_s,
            "download": self.download_s,
            "load": self.load_s,
            "compile": self.compile_s,
            "profile": self.profile_s,
        }
        if self.kv_sizing_warmup_steps:  # runs before the capture (Worker._compile_or_warm_up_model, 0.34.0)
            phases["kv sizing warmup"] = self.kv_sizing_warmup_s
        phases["capture"] = self.capture_s
        phases["tail"] = self.tail_s
        return phases


def predict_startup(
    weights_gib_total: float,
    tensor_parallel_size: int = 1,
    *,
    pipeline_parallel_size: int = 1,
    enforce_eager: bool = False,
    compile_cache: str = "cold",
    storage: str = "local_disk",
    download: bool = False,
    kv_sizing_warmup_steps: int = 0,
    coefficients: StartupCoefficients = COEFFICIENTS,
) -> StartupPrediction:
    """Predict startup seconds for `weights_gib_total` GiB of weights over TP x PP ranks.

    `compile_cache` is "cold" (first start) or "warm"; ignored with `enforce_eager`.
    `storage` is one of STORAGE_CLASSES; `download` adds fetching the weights from the Hub.
    `kv_sizing_warmup_steps`: the full-budget steps of vLLM >= 0.34's KV-cache sizing warmup (0 where the start runs
    none: plan.extensible.kv_sizing_warmup_steps), each charged the profile term.
    """
    if kv_sizing_warmup_steps < 0:
        raise ValueError(f"kv_sizing_warmup_steps must be 0 or more, not {kv_sizing_warmup_steps!r}")
    if compile_cache not in ("cold", "warm"):
        raise ValueError(f"compile_cache must be 'cold' or 'warm', not {compile_cache!r}")
    c = coefficients
    storage = _STORAGE_ALIASES.get(storage, storage)
    if storage not in c.load_gib_per_s_per_rank:
        raise ValueError(f"storage must be one of {sorted(c.load_gib_per_s_per_rank)}, not {storage!r}")
    tp = max(1, int(tensor_parallel_size))
    ranks = tp * max(1, int(pipeline_parallel_size))
    w_total = max(float(weights_gib_total), 0.01)
    w_rank = w_total / ranks
    if enforce_eager:
        compile_s = capture_s = 0.0
        state = "eager"
    else:
        a, bw, bt = c.compile_cold if compile_cache == "cold" else c.compile_warm
        compile_s = a * w_total**bw * tp**bt
        capture_s = c.capture[0] * tp ** c.capture[1]
        state = compile_cache
    return StartupPrediction(
        import_s=IMPORT_S,
        boot_s=c.boot_tp1_s if ranks == 1 else c.boot_multi_gpu_s,
        download_s=w_total / c.download_gib_per_s if download else 0.0,
        load_s=w_rank / c.load_gib_per_s_per_rank[storage],
        compile_s=compile_s,
        profile_s=c.profile_s,
        capture_s=capture_s,
        tail_s=c.tail_s,
        storage=storage,
        compile_cache=state,
        kv_sizing_warmup_s=kv_sizing_warmup_steps * c.profile_s,
        kv_sizing_warmup_steps=int(kv_sizing_warmup_steps),
    )


# ----------------------------------------------------------------------------- fitting


def load_records(path: str | Path) -> list[dict]:
    """Read a startups.jsonl file (I/O edge)."""
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _state(r: Mapping) -> str:
    if r.get("enforce_eager"):
        return "eager"
    return (r.get("compile_cache") or "").split(" ")[0]


def _loglinear(rows: list[tuple[list[float], float]]) -> list[float]:
    """Least squares of log(y) on [1, log(x1), ...]: returns [a, b1, ...] with a = exp(intercept)."""
    import numpy as np  # only the fit needs numpy; predictions do not

    x = np.array([[1.0] + [math.log(v) for v in xs] for xs, _ in rows])
    y = np.log([t for _, t in rows])
    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    return [float(math.exp(coef[0]))] + [float(b) for b in coef[1:]]


def _usable(records: Iterable[Mapping]) -> list[Mapping]:
    return [r for r in records if not r.get("anomalous")]


def fit_startup_model(records: Iterable[Mapping]) -> StartupCoefficients:
    """Fit every coefficient on a family of startup records (medians + log-linear LS)."""
    rs = _usable(records)

    def med(values):
        v = [x for x in values if x is not None]
        return float(statistics.median(v))

    rates: dict[str, list[float]] = {}
    for r in rs:
        if r.get("load_gib_per_s_per_rank"):
            cls = _STORAGE_ALIASES.get(r["storage_class"], r["storage_class"])
            rates.setdefault(cls, []).append(r["load_gib_per_s_per_rank"])

    def compile_rows(state):
        return [
            ([r["weights_gib_total_approx"], r["tensor_parallel_size"]], r["torch_compile_total_s"])
            for r in rs
            if _state(r) == state and r.get("torch_compile_total_s") and r.get("weights_gib_total_approx")
        ]

    capture_rows = [
        ([r["tensor_parallel_size"]], r["graph_capture_s"])
        for r in rs
        if _state(r) != "eager" and r.get("graph_capture_s") and r.get("weights_gib_total_approx")
    ]
    return StartupCoefficients(
        boot_tp1_s=med(r.get("log_start_to_load_start_s") for r in rs if r["tensor_parallel_size"] == 1),
        boot_multi_gpu_s=med(r.get("log_start_to_load_start_s") for r in rs if r["tensor_parallel_size"] > 1),
        download_gib_per_s=med(r.get("download_gib_per_s") for r in rs),
        load_gib_per_s_per_rank={k: float(statistics.median(v)) for k, v in rates.items() if k in STORAGE_CLASSES},
        compile_cold=tuple(_loglinear(compile_rows("cold"))),
        compile_warm=tuple(_loglinear(compile_rows("warm"))),
        profile_s=med((r.get("mem_profile_s") or r.get("initial_profile_s")) for r in rs),
        capture=tuple(_loglinear(capture_rows)),
        tail_s=med(r.get("init_engine_to_ready_s") for r in rs),
        n_records=len(rs),
    )


@dataclass(frozen=True)
class PhaseError:
    n: int
    median_abs_pct: float
    p90_abs_pct: float


def _err(pairs: list[tuple[float, float]]) -> PhaseError:
    errs = sorted(abs(p - a) / a * 100.0 for p, a in pairs if a and a > 0)
    if not errs:
        return PhaseError(0, float("nan"), float("nan"))
    p90 = errs[min(len(errs) - 1, int(math.ceil(0.9 * len(errs))) - 1)]
    return PhaseError(len(errs), float(statistics.median(errs)), p90)


def _predict_record(r: Mapping, c: StartupCoefficients) -> Optional[StartupPrediction]:
    w = r.get("weights_gib_total_approx")
    if not w:
        return None
    state = _state(r)
    storage = _STORAGE_ALIASES.get(r.get("storage_class") or "", r.get("storage_class") or "")
    if storage not in c.load_gib_per_s_per_rank:
        storage = "local_disk"
    return predict_startup(
        w,
        r.get("tensor_parallel_size") or 1,
        enforce_eager=state == "eager",
        compile_cache="warm" if state == "warm" else "cold",
        storage=storage,
        download=bool(r.get("download_s")),
        coefficients=c,
    )


def evaluate(records: Iterable[Mapping], c: StartupCoefficients = COEFFICIENTS) -> dict[str, PhaseError]:
    """Absolute percentage errors of each predicted phase against the records that print it."""
    rs = _usable(records)
    load, comp, cap, total = [], [], [], []
    for r in rs:
        p = _predict_record(r, c)
        if p is None:
            continue
        if r.get("load_weights_s"):
            load.append((p.load_s, r["load_weights_s"]))
        if r.get("torch_compile_total_s") and _state(r) in ("cold", "warm"):
            comp.append((p.compile_s, r["torch_compile_total_s"]))
        if r.get("graph_capture_s") and _state(r) != "eager":
            cap.append((p.capture_s, r["graph_capture_s"]))
        if r.get("log_start_to_ready_s"):
            total.append((p.total_s - p.import_s, r["log_start_to_ready_s"]))
    return {"load": _err(load), "compile": _err(comp), "capture": _err(cap), "total": _err(total)}


def leave_one_source_out(records: Iterable[Mapping]) -> PhaseError:
    """Total-time error when each source's records are predicted by a fit on all other sources."""
    rs = _usable(records)

    def source(r):
        url = r.get("source_url") or r["id"]
        return "/".join(url.split("/")[:5])

    pairs = []
    for s in sorted({source(r) for r in rs}):
        held = [r for r in rs if source(r) == s]
        if not any(r.get("log_start_to_ready_s") for r in held):
            continue
        c = fit_startup_model([r for r in rs if source(r) != s])
        for r in held:
            p = _predict_record(r, c)
            if p is not None and r.get("log_start_to_ready_s"):
                pairs.append((p.total_s - p.import_s, r["log_start_to_ready_s"]))
    return _err(pairs)


def probe_budget_s(prediction: StartupPrediction, margin: float = 2.0) -> float:
    """Seconds a startup probe should allow: `margin` x the prediction (startup-times.md: 2x)."""
    return margin * prediction.total_s


def probe_failure_threshold(prediction: StartupPrediction, period_s: int, margin: float = 2.0) -> int:
    """A startupProbe's failureThreshold: the probe periods that cover `probe_budget_s`."""
    return math.ceil(probe_budget_s(prediction, margin) / period_s)
