"""Workloads for `kvplan simulate`: who arrives when, with how many prompt and output tokens.

Three sources, one result type (`Workload`, arrays not per-request objects):

* bundled traces (`azure-conv`, `azure-code`, `mooncake-conv`, `mooncake-synthetic`,
  `sharegpt`, `arxiv-sum`, `bwb`), shipped gzip-compressed in `kvplan/data/traces/`
  with their source and licence in the README there;
* a user file (`--workload FILE`): CSV or JSONL with `prompt_tokens`, `completion_tokens`,
  optional `arrival_s` and `block_hashes`; the bundled traces' own column names and the
  LLMServingSim `requests.jsonl` format are recognised too;
* a synthetic spec: length distributions (`lognormal:1000,0.8`, `constant:512`, ...) and
  a Poisson or Gamma arrival process.

Arrival processes follow `vllm bench serve` (vllm/benchmarks/serve.py@0.19): at request
rate R with burstiness B, gaps are Gamma(shape=B, scale=1/(R*B)); B = 1 is Poisson, B < 1
is burstier. Every random draw takes a `seed`; the same inputs give the same workload.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from kvplan.errors import InputError
from kvplan.inputs import json_loads, read_text

TRACES_DIR = Path(__file__).parent / "data" / "traces"


@dataclass(frozen=True)
class BundledTrace:
    name: str
    filename: str
    description: str
    timed: bool
    hash_block_tokens: int = 0  # tokens per prefix-hash block (Mooncake: 512)


BUNDLED: dict[str, BundledTrace] = {
    t.name: t
    for t in (
        BundledTrace("azure-conv", "azure2023_AzureLLMInferenceTrace_conv.csv.gz",
                     "Azure LLM inference 2023, conversation (Splitwise, CC-BY-4.0): 19,366 timed requests, 5.5 req/s", True),
        BundledTrace("azure-code", "azure2023_AzureLLMInferenceTrace_code.csv.gz",
                     "Azure LLM inference 2023, code (Splitwise, CC-BY-4.0): 8,819 timed requests, bursty", True),
        BundledTrace("mooncake-conv", "mooncake_fast25_conversation_trace.jsonl.gz",
                     "Mooncake FAST'25 conversation (Kimi, Apache-2.0): 12,031 timed requests, long prompts, prefix hashes", True, 512),
        BundledTrace("mooncake-synthetic", "mooncake_fast25_synthetic_trace.jsonl.gz",
                     "Mooncake FAST'25 synthetic (Apache-2.0): 3,993 requests, Poisson arrivals, prefix hashes", True, 512),
        BundledTrace("sharegpt", "etalon_sharegpt_8k_filtered_stats_llama2_tokenizer.csv.gz",
                     "ShareGPT lengths, Llama-2 tokenizer (etalon, Apache-2.0): 30,731 requests, lengths only", False),
        BundledTrace("arxiv-sum", "vidur_arxiv_summarization_stats_llama2_tokenizer_filtered_v2.csv.gz",
                     "arXiv summarization lengths (Vidur, MIT): 28,257 requests, lengths only", False),
        BundledTrace("bwb", "etalon_bwb_stats_llama2_tokenizer_filtered_v2.csv.gz",
                     "Bilingual Web Book translation lengths (etalon, Apache-2.0): 33,768 requests, lengths only, long outputs", False),
    )
}


# Longer names people write for the bundled traces.
BUNDLED_ALIASES = {"azure-conversation": "azure-conv", "azure-coding": "azure-code", "mooncake-conversation": "mooncake-conv",
                   "mooncake": "mooncake-conv", "arxiv-summarization": "arxiv-sum", "arxiv": "arxiv-sum",
                   "azure": "azure-conv"}


def bundled_name(name: str) -> str | None:
    """The bundled trace a name means (its own name, an alias, any case, '_' for '-'), else None."""
    key = name.strip().lower().replace("_", "-")
    if key in BUNDLED:
        return key
    return BUNDLED_ALIASES.get(key)


@dataclass(frozen=True, eq=False)
class Workload:
    """Requests sorted by arrival. `arrival_s` is None for a length-only workload."""

    name: str
    prompt_tokens: np.ndarray  # int64, >= 1
    completion_tokens: np.ndarray  # int64, >= 1
    arrival_s: Optional[np.ndarray] = None  # float64, non-decreasing, first = 0 for traces
    block_hashes: Optional[tuple] = None  # per request: tuple of ints (prefix-hash chain)
    hash_block_tokens: int = 0  # tokens covered by one hash
    notes: tuple[str, ...] = ()

    def __len__(self) -> int:
        return int(self.prompt_tokens.shape[0])

    @property
    def timed(self) -> bool:
        return self.arrival_s is not None

    def prefill_only(self) -> "Workload":
        """The same requests served by a pooling (embedding) model: each is one prefill that ends the request, so the
        completion lengths are replaced by the single output a pooling request returns."""
        if bool((self.completion_tokens == 1).all()):
            return self
        return replace(self, completion_tokens=np.ones_like(self.completion_tokens),
                       notes=self.notes + ("pooling model: each request is one prefill; the workload's completion "
                                           "lengths are not generated",))

    @property
    def mean_rate_per_s(self) -> float:
        if self.arrival_s is None or len(self) < 2:
            return float("nan")
        span = float(self.arrival_s[-1] - self.arrival_s[0])
        return (len(self) - 1) / span if span > 0 else float("inf")

    def summary(self) -> dict:
        def stats(a):
            return {"mean": float(a.mean()), "p50": float(np.percentile(a, 50)), "p90": float(np.percentile(a, 90)),
                    "p99": float(np.percentile(a, 99)), "max": int(a.max())}

        out = {"name": self.name, "requests": len(self), "prompt_tokens": stats(self.prompt_tokens),
               "completion_tokens": stats(self.completion_tokens)}
        if self.arrival_s is not None:
            out["duration_s"] = float(self.arrival_s[-1] - self.arrival_s[0])
            if math.isfinite(self.mean_rate_per_s):  # not for one request, nor all at once (JSON has no NaN)
                out["mean_rate_per_s"] = self.mean_rate_per_s
        if self.notes:
            out["notes"] = list(self.notes)
        return out


# ---------------------------------------------------------------- length distributions

@dataclass(frozen=True)
class LengthDist:
    """A token-length distribution; `sample(n, rng)` gives int64 >= 1."""

    kind: str
    params: tuple[float, ...]

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        k, p = self.kind, self.params
        if k == "constant":
            x = np.full(n, p[0])
        elif k == "uniform":
            x = rng.integers(int(p[0]), int(p[1]) + 1, size=n)
        elif k == "normal":
            x = rng.normal(p[0], p[1], size=n)
        elif k == "lognormal":  # median, sigma of log
            x = rng.lognormal(math.log(p[0]), p[1], size=n)
        elif k == "exponential":  # mean
            x = rng.exponential(p[0], size=n)
        elif k == "zipf":  # a, scale
            x = rng.zipf(p[0], size=n) * (p[1] if len(p) > 1 else 1.0)
        elif k == "percentiles":  # (q1, v1, q2, v2, ...), q rising: see _percentile_sample
            x = _percentile_sample(p, rng.standard_normal(n))
        else:  # pragma: no cover - parse_length_dist rejects others
            raise ValueError(k)
        # a zipf tail can pass int64; lengths that long are rejected by any max_model_len, whatever their value
        return np.clip(np.rint(x), 1, _MAX_TOKENS).astype(np.int64)


def _percentile_sample(params: tuple[float, ...], z: np.ndarray) -> np.ndarray:
    """Lengths with the given percentiles, from standard-normal draws `z`: between two given percentiles the log of the
    length is linear in the normal quantile (so two percentiles alone are a lognormal through both), beyond the
    outermost interior ones the nearest segment's slope continues; p0 and p100, where given, bound the draws. Each
    given percentile is met exactly in the limit of many draws."""
    from statistics import NormalDist

    pts = [(params[i], params[i + 1]) for i in range(0, len(params), 2)]
    inner = [(NormalDist().inv_cdf(q / 100), math.log(v)) for q, v in pts if 0 < q < 100]
    zs, lv = np.array([a for a, _ in inner]), np.array([b for _, b in inner])
    y = np.interp(z, zs, lv)
    lo_slope = (lv[1] - lv[0]) / (zs[1] - zs[0])
    hi_slope = (lv[-1] - lv[-2]) / (zs[-1] - zs[-2])
    y = np.where(z < zs[0], lv[0] + (z - zs[0]) * lo_slope, y)
    y = np.where(z > zs[-1], lv[-1] + (z - zs[-1]) * hi_slope, y)
    x = np.exp(np.minimum(y, math.log(_MAX_TOKENS)))
    bounds = dict(pts)
    return np.clip(x, bounds.get(0.0, 1.0), bounds.get(100.0, float(_MAX_TOKENS)))


def _parse_percentiles(text: str, flag: str) -> "LengthDist":
    """'p50=1020,p90=2734,p99=4142' (optionally 'percentiles:' first, 'max=' for p100, 'min=' for p0): measured
    percentiles of a length. At least two between p0 and p100; the percentiles rise, and the lengths with them."""
    body = text.strip().lower()
    body = body.split(":", 1)[1] if body.startswith("percentiles:") else body
    example = "e.g. p50=1000,p90=2700,p99=4100 (the percentile, then the length in tokens)"
    pts: list[tuple[float, float]] = []
    # separated by commas or spaces ('p50=1020 p90=2734', as a dashboard's figures are copied), 'p50:1020' as 'p50=1020'
    body = re.sub(r"\s*([=:])\s*", "=", body)
    for part in (x for x in re.split(r"[,\s]+", body) if x):
        key, _, raw = part.partition("=")
        key = {"min": "p0", "max": "p100", "median": "p50"}.get(key.strip(), key.strip())
        try:
            q, v = float(key[1:]) if key.startswith("p") else float("nan"), float(raw)
        except ValueError:
            raise InputError(flag, f"cannot read {part!r} as a percentile", example) from None
        if not (0 <= q <= 100):
            raise InputError(flag, f"{part!r}: a percentile is p0 to p100", example)
        if not (math.isfinite(v) and 1 <= v <= _MAX_TOKENS):
            raise InputError(flag, f"{part!r}: a length is a token count of at least 1", example)
        pts.append((q, v))
    pts.sort()
    for (q0, v0), (q1, v1) in zip(pts, pts[1:]):
        if q0 == q1:
            raise InputError(flag, f"p{q0:g} is given twice in {text!r}", "give each percentile once")
        if v1 < v0:
            raise InputError(flag, f"p{q1:g}={v1:g} is below p{q0:g}={v0:g} in {text!r}: a length's percentiles rise "
                             "with the percentile", f"check the order of the values; {example}")
    if sum(1 for q, _ in pts if 0 < q < 100) < 2:
        raise InputError(flag, f"{text!r} gives fewer than two percentiles between p0 and p100, which do not set a "
                         "spread", example)
    return LengthDist("percentiles", tuple(x for pt in pts for x in pt))


_LEN_KINDS = {"constant": (1, 1), "uniform": (2, 2), "normal": (2, 2), "lognormal": (2, 2), "exponential": (1, 1), "zipf": (1, 2)}
# each distribution's own form, for the error that refuses its parameters
_LEN_EXAMPLES = {"constant": "constant:512 (every length N)", "uniform": "uniform:100,2000 (A to B)",
                 "normal": "normal:1000,200 (mean, standard deviation)", "lognormal": "lognormal:1000,0.8 (median, sigma)",
                 "exponential": "exponential:1000 (mean)", "zipf": "zipf:1.5,100 (exponent a > 1, scale)"}


# a length given by its percentiles: 'p50=1020,...', 'p50:1020 ...', 'median=...', 'percentiles:...'
_PERCENTILE_FORM = re.compile(r"(?:percentiles:)?\s*(?:p\d|median|min|max)\S*?\s*[=:]")


def parse_length_dist(text: str, flag: str = "--prompt-len") -> LengthDist:
    """'lognormal:1000,0.8' (median, sigma), 'constant:512', 'uniform:100,2000', 'normal:mean,std',
    'exponential:mean', 'zipf:a[,scale]', measured percentiles 'p50=1000,p90=2700,p99=4100' (`_parse_percentiles`);
    a bare number means constant."""
    s = text.strip().lower()
    if _PERCENTILE_FORM.match(s):
        return _parse_percentiles(text, flag)
    try:
        # a bare number is constant:N, held to constant's rules below (it was returned unchecked: --prompt-len 0, -3
        # or 1e-320 drew 1-token prompts and 1.5 two-token ones, without a word)
        kind, _, rest = s.partition(":") if ":" in s else ("constant", "", s)
        params = tuple(float(v) for v in rest.split(",") if v.strip())
    except ValueError:
        raise InputError(flag, f"cannot read length distribution {text!r}", "write e.g. lognormal:1000,0.8, constant:512 or measured "
                         "percentiles p50=1000,p90=2700,p99=4100")
    if kind not in _LEN_KINDS:
        raise InputError(flag, f"unknown distribution {kind!r}", "use one of " + ", ".join(_LEN_KINDS)
                         + ", or measured percentiles p50=N,p90=N,p99=N")
    lo, hi = _LEN_KINDS[kind]
    if not lo <= len(params) <= hi or any(v < 0 for v in params) or (kind != "zipf" and params[0] <= 0):
        count = f"{lo}{'' if lo == hi else f'-{hi}'} positive number{'' if hi == 1 else 's'}"
        raise InputError(flag, f"{kind} takes {count}, got {text!r}", f"e.g. {_LEN_EXAMPLES[kind]}")
    if not all(math.isfinite(v) for v in params):
        raise InputError(flag, f"{text!r} has a number that is not finite", f"e.g. {_LEN_EXAMPLES[kind]}")
    if kind == "zipf" and params[0] <= 1:
        raise InputError(flag, "zipf needs a > 1", "e.g. zipf:1.5,100")
    if kind in ("constant", "uniform") and any(v != int(v) for v in params):
        raise InputError(flag, f"{kind} lengths are whole tokens, got {text!r}", f"e.g. {kind}:" + ("512" if kind == "constant" else "100,2000"))
    if kind == "uniform" and params[0] > params[1]:
        raise InputError(flag, f"uniform:A,B needs A <= B, got {text!r}", f"uniform:{params[1]:g},{params[0]:g}")
    if kind == "normal":
        below_one = 0.5 * (1.0 + math.erf((1.0 - params[0]) / (params[1] * math.sqrt(2.0)))) if params[1] > 0 else 0.0
        if below_one > 0.01:  # those would be clipped to one token, and the mean with them
            raise InputError(flag, f"{text!r} puts {below_one:.0%} of the lengths below one token, which would be "
                             "raised to one", "a smaller spread, or lognormal:MEDIAN,SIGMA for skewed lengths")
    return LengthDist(kind, params)


# ---------------------------------------------------------------- arrivals

def poisson_gamma_arrivals(n: int, rate_per_s: float, burstiness: float, rng: np.random.Generator) -> np.ndarray:
    """Arrival times (s, first at 0) with Gamma(shape=burstiness, scale=1/(rate*burstiness)) gaps,
    as `vllm bench serve --burstiness` draws them (vllm/benchmarks/serve.py@0.19). burstiness 1 = Poisson."""
    if n == 0:
        return np.zeros(0)
    if not math.isfinite(rate_per_s):
        return np.zeros(n)
    gaps = rng.gamma(shape=burstiness, scale=1.0 / (rate_per_s * burstiness), size=n - 1)
    return np.concatenate(([0.0], np.cumsum(gaps)))


# ---------------------------------------------------------------- file parsing

_PROMPT_KEYS = ("prompt_tokens", "ContextTokens", "input_length", "num_prefill_tokens", "input_toks", "prompt_len", "input_tokens")
_COMPLETION_KEYS = ("completion_tokens", "GeneratedTokens", "output_length", "num_decode_tokens", "output_toks", "output_len", "output_tokens")
_ARRIVAL_KEYS = ("arrival_s", "arrival_ms", "timestamp", "TIMESTAMP", "timestamp_ms", "arrival_time", "arrival_time_ms")
# arrival columns in milliseconds: the Mooncake traces' 'timestamp' (FAST25-release/README.md) and any '_ms' name
_MS_ARRIVAL_KEYS = ("arrival_ms", "timestamp", "timestamp_ms", "arrival_time_ms")
_ARRIVAL_KEYS_TEXT = ("arrival_s or arrival_time (seconds), arrival_ms, timestamp_ms or timestamp (milliseconds, as the "
                      "Mooncake traces), or the Azure traces' TIMESTAMP (a date and time)")


def _unread_time_columns(names: Sequence[str]) -> list[str]:
    """Columns whose name says time but that kvplan does not read as arrivals ('time', 'time_ms', 'arrival_sec'...)."""
    words = ("time", "arrival", "ts", "sec", "secs", "date")  # a part of the name, between '_'s
    starts = ("time", "arrival", "date")  # or its start ('timestamp2', 'arrivals', 'datetime'); not 'sec' ('second_turn')
    return [n for n in names if n not in _ARRIVAL_KEYS and (
        any(w in n.lower().replace("-", "_").split("_") for w in words) or n.lower().startswith(starts))]
_HASH_KEYS = ("block_hashes", "hash_ids")


def _pick(keys: Sequence[str], names: Sequence[str]) -> Optional[str]:
    for k in keys:
        if k in names:
            return k
    return None


def _parse_times(key: str, values: list) -> np.ndarray:
    """Arrival seconds from the first request. Azure: 'YYYY-MM-DD HH:MM:SS.fffffff'; Mooncake: ms."""
    if key == "TIMESTAMP":
        t = np.array([str(v).strip().replace(" ", "T")[:26] for v in values], dtype="datetime64[us]")
        return (t - t.min()).astype(np.int64) / 1e6
    t = np.asarray(values, dtype=np.float64)
    if key in _MS_ARRIVAL_KEYS:
        t = t / 1000.0
    # from the earliest finite time, so that a 'nan' or '-inf' row stays the one the caller names: t.min() made every
    # row NaN and the error blamed request 1 ("request 1 has arrival time '0'") for a 'nan' in request 3
    finite = t[np.isfinite(t)]
    return t - finite.min() if finite.size else t


def _dotted(obj: dict, prefix: str = "", depth: int = 0) -> dict:
    """The values of nested objects under dotted names: {"usage": {"prompt_tokens": 5}} -> {"usage.prompt_tokens": 5}
    (top-level keys are not included; at most four levels deep)."""
    out: dict = {}
    for k, v in obj.items():
        if isinstance(v, dict) and depth < 4:
            for kk, vv in v.items():
                name = f"{prefix}{k}.{kk}"
                if isinstance(vv, dict):
                    out.update(_dotted({kk: vv}, f"{prefix}{k}.", depth + 1))
                else:
                    out[name] = vv
    return out


# An OpenAI-style API log: token counts in a usage object (chat/completions: prompt_tokens / completion_tokens; the
# Responses API: input_tokens / output_tokens), at the top ({"usage": ...}) or under the response ({"response":
# {"usage": ...}}, the Batch API's output {"response": {"body": {"usage": ...}}}); the arrival in 'created' (Unix
# seconds, as the API returns it) or a timestamp field (a date and time, or Unix seconds / milliseconds)
_USAGE_PROMPT = ("prompt_tokens", "input_tokens")
_USAGE_COMPLETION = ("completion_tokens", "output_tokens")
_LOG_TIME_KEYS = ("created", "created_at", "timestamp", "request_time", "start_time")


def _usage_column(names: Sequence[str], leaves: Sequence[str]) -> Optional[str]:
    """The dotted column of a usage object's count (the shallowest, then the first named), None where there is none."""
    hits = [n for n in names if "." in n and n.rsplit(".", 1)[1] in leaves and n.rsplit(".", 2)[-2] == "usage"]
    return min(hits, key=lambda n: (n.count("."), leaves.index(n.rsplit(".", 1)[1]))) if hits else None


def _log_time_column(names: Sequence[str]) -> Optional[str]:
    """An API log's arrival column: 'created' or a timestamp field, the shallowest (a logger's own top-level time
    before the response's 'created'), 'created' first among equals."""
    hits = [n for n in names if n.rsplit(".", 1)[-1] in _LOG_TIME_KEYS and "usage." not in n]
    return min(hits, key=lambda n: (n.count("."), _LOG_TIME_KEYS.index(n.rsplit(".", 1)[-1]))) if hits else None


def _iso_times(values: list) -> Optional[np.ndarray]:
    """Unix seconds of ISO 8601 dates and times ('2024-06-10T12:00:00Z', '2024-06-10 12:00:00'), None unless every
    value is one."""
    from datetime import datetime

    try:
        return np.array([datetime.fromisoformat(v.strip().replace("Z", "+00:00")).timestamp() for v in values])
    except (AttributeError, TypeError, ValueError):
        return None


def _log_times(column: str, values: list, file_name: str, flag: str) -> tuple[np.ndarray, str]:
    """An API log's arrival seconds from the first request, and the unit read: ISO dates and times, or Unix seconds
    ('created', as the API gives it), or milliseconds where the numbers are past 1e11 (Unix seconds that large are
    past the year 5000)."""
    _numbers_only(values, file_name, column, flag, "Unix seconds, or an ISO 8601 date and time, on every line")
    if all(isinstance(v, str) for v in values):
        t = _iso_times(values)
        if t is None:
            try:
                t = np.array([float(v) for v in values])
            except ValueError:
                raise InputError(flag, f"{file_name}: cannot read {column} as a date and time or a number",
                                 "ISO 8601 (2024-06-10T12:00:00Z) or Unix seconds") from None
        else:
            return t - t.min(), "a date and time"
    try:
        t = np.asarray([float(v) for v in values], dtype=np.float64)
    except (TypeError, ValueError):
        i = next(i for i, v in enumerate(values) if not isinstance(v, (int, float)) or isinstance(v, bool))
        raise InputError(flag, f"{file_name}: request {i + 1} has {values[i]!r} in {column}, not a time",
                         "Unix seconds, or an ISO 8601 date and time, on every line") from None
    if not np.isfinite(t).all():
        i = int(np.flatnonzero(~np.isfinite(t))[0])
        raise InputError(flag, f"{file_name}: request {i + 1} has arrival time {values[i]!r}", "finite seconds")
    unit = "Unix seconds"
    if column.rsplit(".", 1)[-1] != "created" and t.size and float(np.median(np.abs(t))) > 1e11:
        t, unit = t / 1000.0, "Unix milliseconds"
    return t - t.min(), unit


# An arrival column's mean rate past which its unit is doubted: seconds with a request fewer than once in 100 s
# whose times are whole numbers (milliseconds, as a logger writes them), or milliseconds more than 1,000 requests a
# second whose times have fractions (seconds). Unix times past 1e11 in a seconds column are milliseconds (as seconds
# they fall past the year 5000).
_SLOW_RATE_PER_S = 0.01
_FAST_RATE_PER_S = 1000.0


def _unit_warning(column: str, values: list, arrival: np.ndarray, fix: Optional[str] = None) -> Optional[str]:
    """A warning naming `column` and the fix where its times read in its unit give an implausible rate: milliseconds
    under a seconds name (1718000000123, or growing by ~1,000 a request), or seconds under a milliseconds name.
    `fix`: an API log's (its 'created' is Unix seconds, whole, however sparse: only the Unix-milliseconds test)."""
    if column == "TIMESTAMP" or arrival.size < 3:
        return None
    try:
        raw = np.asarray([float(v) for v in values], dtype=np.float64)
    except (TypeError, ValueError):
        return None
    span = float(arrival.max() - arrival.min())
    rate = (arrival.size - 1) / span if span > 0 else math.inf
    whole = bool(np.all(raw == np.floor(raw)))
    in_ms = column in _MS_ARRIVAL_KEYS
    if not in_ms and float(np.max(np.abs(raw))) > 1e11:
        why = f"reach {np.max(np.abs(raw)):.0f}, a Unix time in milliseconds (as seconds, past the year 5000)"
    elif not in_ms and whole and rate < _SLOW_RATE_PER_S and fix is None:
        why = (f"give {rate:.3g} req/s (a request every {1 / rate:,.0f} s); read as milliseconds they give "
               f"{rate * 1000:.3g} req/s")
    elif in_ms and not whole and rate > _FAST_RATE_PER_S and fix is None:
        return (f"warning: arrival column {column!r} is read in milliseconds, and its times give {rate:,.0f} req/s; "
                f"read as seconds they give {rate / 1000:.3g} req/s. If they are seconds, name the column arrival_s")
    else:
        return None
    return (f"warning: arrival column {column!r} is read in seconds, and its times {why}. If they are milliseconds, "
            + (fix or "name the column arrival_ms (or divide them by 1,000)"))


def _columns_from_file(path: Path, flag: str) -> tuple[dict, str]:
    """{column: list of values} and the format name ('csv' or 'jsonl'). The file is read as every user file is
    (`inputs.read_text`: gzip by its magic bytes, UTF-8 or UTF-16 with a byte-order mark); what is not a table of
    requests is an InputError naming `flag`."""
    name = path.name[:-3] if path.name.endswith(".gz") else path.name
    fix = "a CSV with a header row, or JSON lines: one object per request"
    text = read_text(path, "a workload (CSV or JSON lines)", fix, field=flag)
    if name.endswith((".jsonl", ".json", ".ndjson")):
        cols: dict[str, list] = {}
        rows = 0
        for lineno, line in enumerate(text.split("\n"), 1):
            line = line.strip()
            if not line:
                continue
            try:
                obj = json_loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(flag, f"{path}: line {lineno} is not JSON ({getattr(exc, 'msg', 'nested too deep')})",
                                 "one JSON object per line") from None
            if not isinstance(obj, dict):
                raise InputError(flag, f"{path}: line {lineno} is a JSON {type(obj).__name__}, not an object", fix)
            # an API log's nested objects ({"usage": {"prompt_tokens": ...}}, {"response": {"body": {"usage": ...}}})
            # as dotted columns (usage.prompt_tokens), each line's own, so a first line without usage (an error
            # response) does not hide the column; top-level keys are the first line's, as before
            nested = _dotted(obj)
            if not cols:
                cols = {k: [] for k in obj}
            for k in nested:
                if k not in cols:
                    cols[k] = [None] * rows
            for k in cols:
                cols[k].append(obj[k] if k in obj else nested.get(k))
            rows += 1
        if not cols:
            raise InputError(flag, f"{path} holds no requests (no JSON object)", "give JSON lines: one object per request, "
                             'e.g. {"prompt_tokens": 512, "completion_tokens": 128}')
        return cols, "jsonl"
    reader = csv.reader(io.StringIO(text))
    try:
        header = [h.strip() for h in next(reader)]
        rows = [r for r in reader if r]
    except StopIteration:
        raise InputError(flag, f"{path} is empty", "give a CSV with a header row") from None
    except csv.Error as exc:
        raise InputError(flag, f"{path} is not a readable CSV ({exc})", fix) from None
    # a row with more cells than the header has columns: each cell was read under the header's name by its place and
    # the rest dropped, so '1,000,33,1.0' (a count written with a thousands comma) read prompt 1, output 0 (dropped
    # "with 0 tokens"), arrival 33, without a word (empty cells past the last column, a trailing comma, are nothing)
    wide = next((n for n, r in enumerate(rows) if len(r) > len(header) and any(c.strip() for c in r[len(header):])), None)
    if wide is not None:
        raise InputError(flag, f"{path}: row {wide + 1} after the header has {len(rows[wide])} cells for the header's {len(header)} columns "
                         f"({','.join(rows[wide])[:80]})", "one cell per column: a number written with a thousands "
                         'comma is quoted ("1,000") or written without it (1000)')
    cols = {h: [r[i] if i < len(r) else "" for r in rows] for i, h in enumerate(header)}
    if "block_hashes" in cols:  # CSV block hashes: space or ';' separated ints
        try:
            cols["block_hashes"] = [[int(x) for x in v.replace(";", " ").split()] for v in cols["block_hashes"]]
        except ValueError:
            raise InputError(flag, f"{path}: a block_hashes cell is not integers", "space- or ';'-separated integers, "
                             "one hash per block of the prompt") from None
    return cols, "csv"


def _span_text(seconds: float) -> str:
    return f"{seconds:.3g} s ({seconds / 86400:.3g} days)"


def check_span(arrival_s: Optional[np.ndarray], rate_per_s: Optional[float], field: str = "--rate") -> None:
    """InputError naming `field` when arrivals (at `rate_per_s`, None: the trace's own) span more than _MAX_SPAN_S:
    a rate that low is a unit mistake, and a simulation over it would step through months of idle time."""
    if arrival_s is None or not arrival_s.size:
        return
    span = float(arrival_s.max() - arrival_s.min())
    if span <= _MAX_SPAN_S:
        return
    n = len(arrival_s)
    least = _least_rate(n)
    shown = f"{rate_per_s:g} req/s" if rate_per_s is not None else "the trace's own timing"
    raise InputError(field, f"{n:,} arrivals at {shown} span {_span_text(span)}, past the "
                     f"{_span_text(_MAX_SPAN_S)} kvplan simulates", f"a rate of at least {least:.3g} req/s, or fewer "
                     "requests (--max-requests)")


def _least_rate(n_requests: int) -> float:
    """The rate at which `n_requests` evenly spaced arrivals span exactly what kvplan simulates (_MAX_SPAN_S)."""
    return max(0, n_requests - 1) / _MAX_SPAN_S


def lowest_simulated_rate(n_requests: int) -> float:
    """The lowest request rate at which `n_requests` arrivals fit the span kvplan simulates (check_span), with a
    margin for random inter-arrival times: where a rate search (kvplan capacity) may start."""
    return 1.1 * _least_rate(n_requests)


# requests one simulation takes: each holds a few dozen bytes in each of a dozen per-request arrays, so ten million
# is about a GiB of state (and hours of event stepping); past it a count is a typo
MAX_REQUESTS = 10_000_000
_MAX_TOKENS = 2 ** 40  # far past any context vLLM serves; longer counts are typos
_MAX_SPAN_S = 1e7  # about 116 days of arrivals: longer is a unit mistake (ms or ns read as s)


def _numbers_only(values: list, file_name: str, column: str, flag: str, fix: str) -> None:
    """InputError naming the first request whose `column` holds a JSON true / false, list or object: Python reads
    true as 1, so a token count of true was one token and an arrival of true one second, without a word; an arrival
    of [1, 2] made the column two-dimensional ("internal error: IndexError")."""
    i = next((i for i, v in enumerate(values) if isinstance(v, (bool, np.bool_, list, dict))), None)
    if i is not None:
        v = values[i]
        shown = json.dumps(bool(v)) if isinstance(v, (bool, np.bool_)) else f"a JSON {'list' if isinstance(v, list) else 'object'}"
        raise InputError(flag, f"{file_name}: request {i + 1} has {shown} in {column}, not a number", fix)


def _token_counts(values: list, file_name: str, column: str, flag: str) -> np.ndarray:
    _numbers_only(values, file_name, column, flag, "every row needs integer counts")
    try:
        x = np.asarray([float(v) for v in values], dtype=np.float64)
    except (TypeError, ValueError):
        def unreadable(v) -> bool:
            try:
                float(v)
                return False
            except (TypeError, ValueError):
                return True

        i = next(i for i, v in enumerate(values) if unreadable(v))
        shown = "nothing (a missing value)" if values[i] is None or values[i] == "" else repr(values[i])
        raise InputError(flag, f"{file_name}: request {i + 1} has {shown} in {column}, not a token count",
                         "every row needs integer counts") from None
    bad = np.flatnonzero(~np.isfinite(x) | (x != np.floor(x)) | (np.abs(x) > _MAX_TOKENS))
    if bad.size:
        i = int(bad[0])
        raise InputError(flag, f"{file_name}: request {i + 1} has {values[i]!r} in {column}"
                         + (f" ({bad.size} such requests)" if bad.size > 1 else ""), "whole token counts")
    return x.astype(np.int64)


def _is_int_list(h) -> bool:
    """A row's block hashes: a list of integers (None or empty: no full block)."""
    if h is None:
        return True
    return isinstance(h, (list, tuple)) and all(isinstance(x, int) and not isinstance(x, bool) for x in h)


def load_workload_file(path: str | os.PathLike, flag: str = "--workload", name: Optional[str] = None,
                       hash_block_tokens: int = 0) -> Workload:
    p = Path(path)
    if not p.is_file():
        raise InputError(flag, f"no such file: {path}", "give a bundled name (" + ", ".join(BUNDLED) + ") or a CSV/JSONL path")
    cols, _fmt = _columns_from_file(p, flag)
    names = list(cols)
    pk, ck = _pick(_PROMPT_KEYS, names), _pick(_COMPLETION_KEYS, names)
    api_log = False
    dropped_lines = 0
    if pk is None and ck is None:  # an OpenAI-style log: the counts in a usage object
        upk, uck = _usage_column(names, _USAGE_PROMPT), _usage_column(names, _USAGE_COMPLETION)
        if upk is not None and uck is not None:
            pk, ck, api_log = upk, uck, True
            # a line without usage (an error response, a request still open) served no tokens: dropped, and said
            keep = [i for i, (a, b) in enumerate(zip(cols[pk], cols[ck])) if a is not None or b is not None]
            dropped_lines = len(cols[pk]) - len(keep)
            if dropped_lines and keep:
                cols = {k: [v[i] for i in keep] for k, v in cols.items()}
    if pk is None or ck is None:
        other = next((sep for sep in (";", "\t", "|") if len(names) == 1 and sep in names[0]), None)
        # name the column that is missing: a file with prompt_tokens alone read "no prompt/completion token columns
        # among ['prompt_tokens']", and its fix named the column it already had
        missing = ("prompt/completion token columns" if pk is None and ck is None
                   else "prompt token column" if pk is None else "completion token column")
        raise InputError(flag, f"{p.name}: no {missing} among {names}",
                         f"separate the columns with commas (this header uses {other!r})" if other else
                         "name them prompt_tokens and completion_tokens" if pk is None and ck is None else
                         f"add a column named {'prompt_tokens' if pk is None else 'completion_tokens'} "
                         f"(or one of {', '.join(_PROMPT_KEYS[1:] if pk is None else _COMPLETION_KEYS[1:])})")
    prompt, completion = _token_counts(cols[pk], p.name, pk, flag), _token_counts(cols[ck], p.name, ck, flag)
    if prompt.size == 0:
        raise InputError(flag, f"{p.name} has no requests", "add rows")
    negative = np.flatnonzero((prompt < 0) | (completion < 0))
    if negative.size:
        i = int(negative[0])
        raise InputError(flag, f"{p.name}: request {i + 1} has {int(prompt[i])} prompt and {int(completion[i])} output tokens"
                         + (f" ({negative.size} such requests)" if negative.size > 1 else ""),
                         "token counts are >= 0 (requests with 0 are dropped with a note)")
    notes = []
    bad = (prompt < 1) | (completion < 1)
    ak = _pick(_ARRIVAL_KEYS, names)
    arrival = None
    log_unit = warning = None
    if api_log:  # its own arrival columns first, else 'created' or a timestamp field (a date, or Unix s / ms)
        ak = _pick(("arrival_s", "arrival_ms", "timestamp_ms", "arrival_time", "arrival_time_ms"), names)
        if ak is None and (ak := _log_time_column(names)) is not None:
            arrival, log_unit = _log_times(ak, cols[ak], p.name, flag)
            if arrival.size and float(arrival.max()) > _MAX_SPAN_S:
                raise InputError(flag, f"{p.name}: the arrivals in column {ak} span {_span_text(float(arrival.max()))}",
                                 f"give {ak} in Unix seconds")
            warning = _unit_warning(ak, cols[ak], arrival, fix=f"write {ak} in Unix seconds (divide by 1,000)") \
                if log_unit == "Unix seconds" else None
        notes.append(f"read as an API log: prompt tokens from {pk}, output tokens from {ck}, "
                     + (f"arrivals from {ak}" + (f" ({log_unit})" if log_unit else "") if ak is not None else
                        "no arrival time (none of " + ", ".join(_LOG_TIME_KEYS) + ")")
                     + (f"; dropped {dropped_lines:,} line{'s' if dropped_lines != 1 else ''} without usage"
                        if dropped_lines else ""))
        if log_unit is not None and warning:
            notes.append(warning)
    if log_unit is None and ak is not None:
        dated = False
        _numbers_only(cols[ak], p.name, ak, flag, "milliseconds as numbers" if ak in _MS_ARRIVAL_KEYS else "seconds as numbers")
        try:
            arrival = _parse_times(ak, cols[ak])
        except (TypeError, ValueError):
            # dates and times carry their own unit: read as the API log's are (a Mooncake 'timestamp' column of
            # '2024-01-01T00:00:00Z' was refused with "seconds as numbers", which that column, in milliseconds, is not)
            arrival = _iso_times(cols[ak])
            if arrival is None:
                unit = "milliseconds" if ak in _MS_ARRIVAL_KEYS else "seconds"
                raise InputError(flag, f"{p.name}: cannot read arrival times in column {ak}",
                                 f"{unit} as numbers, or ISO 8601 dates and times (2024-06-10T12:00:00Z) on every row") from None
            arrival, dated = arrival - arrival.min(), True
            notes.append(f"arrival column {ak!r} read as dates and times")
        if not np.isfinite(arrival).all():
            i = int(np.flatnonzero(~np.isfinite(arrival))[0])
            raise InputError(flag, f"{p.name}: request {i + 1} has arrival time {cols[ak][i]!r}", "finite seconds")
        if arrival.size and float(arrival.max()) > _MAX_SPAN_S:
            raise InputError(flag, f"{p.name}: the arrivals in column {ak} span {_span_text(float(arrival.max()))}",
                             "give seconds from the first request (arrival_s), or name the column arrival_ms if they "
                             "are milliseconds" if ak not in _MS_ARRIVAL_KEYS else
                             "give milliseconds from the first request")
        if ak == "timestamp" and not dated:
            notes.append("arrival column 'timestamp' read as milliseconds (the Mooncake traces' unit); name it "
                         "arrival_s to give seconds")
        warning = None if dated else _unit_warning(ak, cols[ak], arrival)
        if warning:
            notes.append(warning)
    elif log_unit is None and (unread := _unread_time_columns(names)):
        # a 'time' or 'time_ms' column was dropped without a word, and the run then took Poisson arrivals
        notes.append(f"column{'s' if len(unread) > 1 else ''} {', '.join(repr(n) for n in unread)} not read as arrival "
                     f"times: kvplan reads {_ARRIVAL_KEYS_TEXT}; rename the column to keep the trace's timing")
    hk = _pick(_HASH_KEYS, names)
    hashes = None
    if hk is not None:
        bad_row = next((i for i, h in enumerate(cols[hk]) if not _is_int_list(h)), None)
        if bad_row is None:
            hashes = [tuple(int(x) for x in (h or ())) for h in cols[hk]]
        else:
            raise InputError(flag, f"{p.name}: {hk} of request {bad_row + 1} is {cols[hk][bad_row]!r}",
                             "a list of integers, one hash per block of the prompt")
        if hash_block_tokens <= 0:
            hash_block_tokens = 512 if hk == "hash_ids" else 16
    if bad.all():  # nothing would be left to simulate
        raise InputError(flag, f"{p.name}: every request has 0 prompt or 0 output tokens (vLLM serves none of them)",
                         "give requests with at least 1 prompt and 1 output token")
    if bad.any():
        notes.append(f"dropped {int(bad.sum())} requests with 0 prompt or output tokens")
        keep = ~bad
        prompt, completion = prompt[keep], completion[keep]
        if arrival is not None:
            arrival = arrival[keep]
        if hashes is not None:
            hashes = [h for h, k in zip(hashes, keep) if k]
    if arrival is not None:
        order = np.argsort(arrival, kind="stable")
        arrival, prompt, completion = arrival[order], prompt[order], completion[order]
        if hashes is not None:
            hashes = [hashes[i] for i in order]
        arrival = arrival - arrival[0]
    return Workload(name=name or p.name, prompt_tokens=prompt, completion_tokens=completion, arrival_s=arrival,
                    block_hashes=tuple(hashes) if hashes is not None else None,
                    hash_block_tokens=hash_block_tokens if hashes is not None else 0, notes=tuple(notes))


def load_bundled(name: str) -> Workload:
    trace = BUNDLED[name]
    w = load_workload_file(TRACES_DIR / trace.filename, name=name, hash_block_tokens=trace.hash_block_tokens)
    return w


# ---------------------------------------------------------------- the one entry point

@dataclass(frozen=True)
class WorkloadSpec:
    """What the user asked for on the command line."""

    workload: Optional[str] = None  # bundled name or file path; None = synthetic
    prompt_len: Optional[str] = None
    completion_len: Optional[str] = None
    rate_per_s: Optional[float] = None  # None: the trace's own timing
    burstiness: float = 1.0
    arrivals: Optional[str] = None  # poisson | gamma | trace; None: the trace's timing where it has one, else gamma
    max_requests: Optional[int] = None
    seed: int = 0


def build_workload(spec: WorkloadSpec, default_requests: Optional[int] = None) -> Workload:
    """Load or generate the workload the spec describes (deterministic for a seed). Without `spec.max_requests`, a
    trace is taken whole, or its first `default_requests` where it is longer (never resampled up to that: a shorter
    trace keeps its own requests and timing), and a synthetic workload draws `default_requests` (else 1000)."""
    if spec.seed < 0:
        raise InputError("--seed", f"must be >= 0, got {spec.seed}", "e.g. --seed 1")
    rng = np.random.default_rng(spec.seed)
    if spec.rate_per_s is not None and not (spec.rate_per_s > 0):
        raise InputError("--rate", f"rate must be > 0, got {spec.rate_per_s}", "requests per second, e.g. --rate 8 (inf = all at once)")
    if not 0 < spec.burstiness < math.inf:  # NaN and inf too: no Gamma shape
        raise InputError("--burstiness", f"must be a finite number > 0, got {spec.burstiness:g}",
                         "1 = Poisson, < 1 burstier, > 1 smoother")
    if spec.max_requests is not None and not 1 <= spec.max_requests <= MAX_REQUESTS:
        raise InputError("--max-requests", f"must be from 1 to {MAX_REQUESTS:,}, got {spec.max_requests:,}",
                         "e.g. --max-requests 10000")
    arrivals_kind = spec.arrivals.lower() if spec.arrivals is not None else None
    if arrivals_kind not in (None, "poisson", "gamma", "trace"):
        raise InputError("--arrivals", f"unknown arrival process {spec.arrivals!r}", "poisson, gamma or trace")
    if arrivals_kind in ("poisson", "trace") and spec.burstiness != 1.0:
        raise InputError("--burstiness", f"shapes Gamma arrivals; --arrivals {arrivals_kind} does not draw them",
                         "--arrivals gamma, or leave --burstiness at 1")
    burst = spec.burstiness

    if spec.workload is None:
        if spec.prompt_len is None or spec.completion_len is None:
            raise InputError("--workload", "no workload given", "name a trace (--workload azure-conv), a file, or give --prompt-len and --completion-len")
        if arrivals_kind == "trace":
            raise InputError("--arrivals", "a synthetic workload has no trace timing", "poisson or gamma (the default)")
        n = spec.max_requests or default_requests or 1000
        p = parse_length_dist(spec.prompt_len, "--prompt-len").sample(n, rng)
        c = parse_length_dist(spec.completion_len, "--completion-len").sample(n, rng)
        rate = spec.rate_per_s if spec.rate_per_s is not None else float("inf")
        arr = poisson_gamma_arrivals(n, rate, burst, rng)
        check_span(arr, spec.rate_per_s)
        return Workload(name=f"synthetic(prompt={spec.prompt_len}, completion={spec.completion_len})",
                        prompt_tokens=p, completion_tokens=c, arrival_s=arr)

    if Path(spec.workload).is_dir():
        raise InputError("--workload", f"{spec.workload} is a folder, not a file", "give a CSV or JSONL file of requests "
                         "(prompt_tokens, completion_tokens), or a bundled trace: " + ", ".join(BUNDLED))
    if Path(spec.workload).is_file():
        w = load_workload_file(spec.workload)
    elif bundled_name(spec.workload):
        w = load_bundled(bundled_name(spec.workload))
    else:
        import difflib

        near = difflib.get_close_matches(spec.workload.lower(), list(BUNDLED) + list(BUNDLED_ALIASES), n=2, cutoff=0.5)
        raise InputError("--workload", f"{spec.workload!r} is neither a bundled trace nor a file",
                         (f"did you mean {' or '.join(dict.fromkeys(bundled_name(n) for n in near))}? " if near else "")
                         + "bundled: " + ", ".join(BUNDLED))
    notes = list(w.notes)
    # lengths overridden by a distribution where asked
    if spec.prompt_len is not None:
        w = replace(w, prompt_tokens=parse_length_dist(spec.prompt_len, "--prompt-len").sample(len(w), rng), block_hashes=None)
    if spec.completion_len is not None:
        w = replace(w, completion_tokens=parse_length_dist(spec.completion_len, "--completion-len").sample(len(w), rng))
    # said, not silent: the summary still named the trace (workload azure-conv: prompt mean 200) with its lengths gone
    replaced = [f"{what} lengths drawn from {flag} {given}" for what, flag, given in
                (("prompt", "--prompt-len", spec.prompt_len), ("output", "--completion-len", spec.completion_len))
                if given is not None]
    if replaced:
        notes.append(f"{' and '.join(replaced)}, replacing the workload's own")

    n = spec.max_requests or (min(default_requests, len(w)) if default_requests else len(w))
    if n < len(w):
        idx = np.arange(n)  # a cap keeps the first n (trace order)
        notes.append(f"capped to the first {n} of {len(w)} requests")
    elif n > len(w):
        idx = np.sort(rng.integers(0, len(w), size=n)) if not w.timed else rng.integers(0, len(w), size=n)
        notes.append(f"resampled {n} requests (with replacement) from {len(w)}; arrivals regenerated")
    else:
        idx = None
    resampled = idx is not None and n > len(w)
    prompt = w.prompt_tokens if idx is None else w.prompt_tokens[idx]
    completion = w.completion_tokens if idx is None else w.completion_tokens[idx]
    hashes = w.block_hashes if (idx is None or w.block_hashes is None) else tuple(w.block_hashes[i] for i in idx)
    if arrivals_kind == "trace" and (w.arrival_s is None or resampled):
        raise InputError("--arrivals", f"workload {w.name} has no arrival times" if w.arrival_s is None else
                         f"resampling {n} requests from {len(w)} regenerates the arrivals", "poisson or gamma")
    if w.arrival_s is not None and arrivals_kind is None and burst != 1.0 and not resampled:
        raise InputError("--burstiness", f"workload {w.name} keeps its own arrival times, which --burstiness does not "
                         "reshape", "add --arrivals gamma to replace them with Gamma arrivals at --rate")
    regenerate = resampled or arrivals_kind in ("poisson", "gamma")
    arrival = None if (w.arrival_s is None or regenerate) else (w.arrival_s if idx is None else w.arrival_s[idx])
    if w.arrival_s is not None and arrivals_kind in ("poisson", "gamma") and not resampled:
        notes.append(f"the trace's own arrival times replaced (--arrivals {arrivals_kind})")

    if arrival is not None and spec.rate_per_s is not None and len(arrival) > 1 and arrival[-1] > arrival[0]:
        own = (len(arrival) - 1) / float(arrival[-1] - arrival[0])
        arrival = (arrival - arrival[0]) * (own / spec.rate_per_s)
        notes.append(f"trace timestamps scaled from {own:.2f} to {spec.rate_per_s:g} req/s (burst shape kept)")
    if arrival is None:
        if spec.rate_per_s is None:
            rate = w.mean_rate_per_s if w.timed else None
            if rate is None or not math.isfinite(rate):
                unread = [n for n in w.notes if "not read as arrival times" in n]
                raise InputError("--rate", f"workload {w.name} has no arrival times"
                                 + (f" ({unread[0].split(': kvplan reads')[0]})" if unread else ""),
                                 "give --rate R (requests per second)" + (
                                     f", or name the arrival column as kvplan reads it: {_ARRIVAL_KEYS_TEXT}"
                                     if unread else ""))
        else:
            rate = spec.rate_per_s
        arrival = poisson_gamma_arrivals(n, rate, burst, rng)
        notes.append(f"{_arrivals_name(burst)} arrivals at {rate:g} req/s")
    check_span(arrival, spec.rate_per_s)
    return Workload(name=w.name, prompt_tokens=np.ascontiguousarray(prompt, dtype=np.int64),
                    completion_tokens=np.ascontiguousarray(completion, dtype=np.int64),
                    arrival_s=np.ascontiguousarray(arrival, dtype=np.float64), block_hashes=hashes,
                    hash_block_tokens=w.hash_block_tokens if hashes is not None else 0, notes=tuple(notes))


def with_rate(w: Workload, rate_per_s: float, burstiness: float = 1.0, seed: int = 0, field: str = "--rate") -> Workload:
    """The same requests at another mean rate: a timed workload's gaps are scaled (burst shape
    kept); an untimed one gets fresh Poisson/Gamma arrivals. The note on the arrivals' rate is rewritten.
    A rate whose arrivals would span more than `check_span` allows is an InputError naming `field`."""
    notes = tuple(n for n in w.notes if not n.startswith(_RATE_NOTE_STARTS))
    if w.arrival_s is not None and len(w) > 1 and w.arrival_s[-1] > w.arrival_s[0]:
        own = w.mean_rate_per_s
        out = replace(w, arrival_s=(w.arrival_s - w.arrival_s[0]) * (own / rate_per_s),
                      notes=notes + (f"arrivals scaled to {rate_per_s:.4g} req/s (their burst shape kept)",))
    else:
        rng = np.random.default_rng(seed)
        out = replace(w, arrival_s=poisson_gamma_arrivals(len(w), rate_per_s, burstiness, rng),
                      notes=notes + (f"{_arrivals_name(burstiness)} arrivals at {rate_per_s:.4g} req/s",))
    check_span(out.arrival_s, rate_per_s, field)
    return out


# the most requests a fleet check simulates (`fleet_workload`): past it each replica sees fewer than a probe's sample
FLEET_MAX_REQUESTS = 100_000


def recorded_arrivals(w: Workload) -> bool:
    """Whether `w`'s arrival times are a trace's own (scaled or not), not Poisson/Gamma arrivals kvplan drew."""
    return w.arrival_s is not None and not any(n.startswith(("Poisson arrivals at", "Gamma(burstiness=")) for n in w.notes)


def fleet_workload(w: Workload, rate_per_s: float, replicas: int, burstiness: float = 1.0, seed: int = 0,
                   max_requests: int = FLEET_MAX_REQUESTS) -> Optional[Workload]:
    """The sample a fleet of `replicas` serves at `rate_per_s` in all: `replicas` copies of `w`'s requests (up to
    `max_requests`), interleaved, with fresh Poisson/Gamma arrivals at the whole rate. Behind a round-robin router
    replica c then serves copy c: the requests one replica's probe serves, in their order (started 1 / copies of the
    way further along for each copy, so that the replicas are not all sent the same request at once), at its share
    of the rate (its gaps the sum of `replicas` of the fleet's, as a real
    round-robin router spaces them). `w` itself, at the rate, split `replicas` ways, gave each replica a run too short
    to build its queue (Qwen3-8B on an H100, ShareGPT's first 500 requests over 8 replicas at 40 req/s: TPOT p99
    20.5 ms, against 43.4 ms for one replica at 5 req/s); and the order is kept because it matters as much (the same
    500 requests shuffled gave one replica 21-32 ms). Prefix hashes are renumbered per copy: equal within a copy where
    `w`'s are, never across copies, so the copies share no prefix the workload does not. None for recorded
    arrivals: a trace is not redrawn (its bursts are its own); the fleet is checked as one replica at its share of
    the rate with the whole trace (find_capacity)."""
    if recorded_arrivals(w):
        return None
    n = len(w)
    copies = max(1, min(int(replicas), max_requests // max(1, n)))
    # fleet request i x copies + c is copy c's i-th: w's request (i + c x n / copies) mod n
    idx = ((np.arange(n)[:, None] + (np.arange(copies) * n // copies)[None, :]) % n).ravel()
    hashes = w.block_hashes
    if hashes is not None:
        ids: dict = {}
        for chain in hashes:
            for h in chain:
                ids.setdefault(h, len(ids))
        span = len(ids)
        # copy c's hash j is c x span + j
        copy = np.tile(np.arange(copies), n)
        hashes = tuple(tuple(ids[h] + int(c) * span for h in hashes[i]) for i, c in zip(idx.tolist(), copy.tolist()))
    notes = tuple(x for x in w.notes if not x.startswith(_RATE_NOTE_STARTS))
    out = replace(w, prompt_tokens=w.prompt_tokens[idx], completion_tokens=w.completion_tokens[idx],
                  arrival_s=poisson_gamma_arrivals(len(idx), rate_per_s, burstiness, np.random.default_rng(seed)),
                  block_hashes=hashes,
                  notes=notes + (f"{_arrivals_name(burstiness)} arrivals at {rate_per_s:.4g} req/s",
                                 f"the fleet's sample: {copies} cop{'ies' if copies != 1 else 'y'} of the {n:,} requests"))
    # its span is a probe's at the replica's share of the rate (the search probed it), so check_span is not repeated
    return out


def _arrivals_name(burstiness: float) -> str:
    return "Poisson" if burstiness == 1 else f"Gamma(burstiness={burstiness:g})"


# the notes build_workload and with_rate write about the arrivals' rate (with_rate replaces them)
_RATE_NOTE_STARTS = ("trace timestamps scaled from", "arrivals scaled to", "Poisson arrivals at", "Gamma(burstiness=")


def prefix_block_hashes(prompt_tokens: Sequence[int], parents: Sequence[Sequence[int]],
                        block_tokens: int = 16) -> tuple:
    """Per-request block hashes (`Workload.block_hashes`) from a prefix tree: request i's prompt starts with
    `parents[i][1]` tokens of request `parents[i][0]`'s prompt (-1: shares nothing), every other block is its
    own. Hashes cover the prompt's full `block_tokens` blocks; request i inherits its parent's first
    shared // block_tokens hashes, so chained keys match exactly where the token blocks do (parents must come
    first). With every parent -1 each request gets unique hashes: no cross-request hits, but a preempted
    request's own cached blocks can still be found again."""
    out: list = []
    for i, n in enumerate(prompt_tokens):
        full = int(n) // block_tokens
        parent, shared = (list(parents[i]) + [-1, 0])[:2] if parents is not None and i < len(parents) else (-1, 0)
        inherit = out[parent][: min(int(shared) // block_tokens, full)] if 0 <= parent < i else ()
        out.append(tuple(inherit) + tuple((i + 1) * 1_000_003 + b for b in range(len(inherit), full)))
    return tuple(out)
