"""A running vLLM server's Prometheus metrics (GET /metrics), read for `kvplan reconcile` where the startup log is gone.

What vLLM exposes (read in the released source):
- `vllm:cache_config_info`, a gauge set to 1 whose labels are every CacheConfig field as str (CacheConfig.metrics_info:
  `{key: str(value) for key, value in self.__dict__.items()}`, vllm/config.py 0.6.4, vllm/config/cache.py
  0.11.0-0.34.0). V0 (vllm/engine/metrics.py PrometheusStatLogger.info, 0.6.4) sets one series without an engine
  label; V1 (vllm/v1/metrics/loggers.py PrometheusStatLogger.log_metrics_info, 0.11.0-0.34.0) one per engine the
  server runs (its data-parallel rank) with an `engine` label, once the engines are initialized
  (log_engine_initialized), so num_gpu_blocks is set then; a label "None" is a field left unset.
- In V1 the num_gpu_blocks label is the sum over the engines that started with this server ("Sum values from all
  engines in DP case": vllm/v1/engine/utils.py wait_for_engine_startup 0.11.0-0.14.0, vllm/v1/engine/core_client.py
  _apply_ready_response 0.20.0-0.34.0), every engine's series carrying that one sum; from 0.26.0 (read in 0.26.0-0.34.0,
  absent in 0.20.0) the labels kv_cache_size_tokens and kv_cache_max_concurrency hold one engine's "GPU KV cache size:
  N tokens" and its maximum concurrency (not summed: core_client.py), and user_specified_block_size (0.20.0-0.34.0)
  says whether block_size was given or chosen by vLLM.
- The served model name is the `model_name` label of the per-engine metrics (loggers.py: labelnames ["model_name",
  "engine"], 0.11.0-0.34.0; 0.6.4's V0 metrics carry model_name alone); live KV usage is vllm:kv_cache_usage_perc
  (V1, a fraction: 1 is 100 %) or vllm:gpu_cache_usage_perc (V0, and V1's deprecated name while shown), running
  requests vllm:num_requests_running.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping, Optional

from kvplan.errors import InputError

INFO_METRIC = "vllm:cache_config_info"
# a series of the info gauge at a line's start (a startup log's debug line says "vllm cache_config_info", no colon)
_INFO_SERIES = re.compile(rb"(?m)^vllm:cache_config_info[{ ]")
USAGE_METRICS = ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc")
RUNNING_METRIC = "vllm:num_requests_running"
FETCH_FIX = ("pass the server's metrics endpoint while it runs (http://HOST:8000/metrics), or save it first: "
             "curl http://HOST:8000/metrics > metrics.txt")

# cache_config_info's labels a plan takes, as the fit keyword each sets (cache_dtype is --kv-cache-dtype's field)
LABEL_FLAGS = {"block_size": "block_size", "gpu_memory_utilization": "gpu_memory_utilization",
               "cache_dtype": "kv_cache_dtype", "enable_prefix_caching": "enable_prefix_caching",
               "kv_cache_memory_bytes": "kv_cache_memory_bytes", "num_gpu_blocks_override": "num_gpu_blocks_override"}


@dataclass(frozen=True)
class EngineSeries:
    """One series of vllm:cache_config_info: its engine label (None in V0) and every label as vLLM wrote it."""

    engine: Optional[str]
    labels: Mapping[str, str]

    def label(self, name: str) -> Optional[str]:
        """The label's value, None where absent or unset ("None": str(None))."""
        value = self.labels.get(name)
        return None if value in (None, "None", "") else value


@dataclass(frozen=True)
class MetricsSnapshot:
    """What one scrape of a vLLM server's /metrics says of its KV cache."""

    source: str
    series: tuple[EngineSeries, ...]
    model_names: tuple[str, ...] = ()
    kv_usage: Mapping[str, float] = field(default_factory=dict)  # engine ('' in V0) -> fraction in use
    usage_metric: Optional[str] = None
    running: Mapping[str, float] = field(default_factory=dict)  # engine -> requests running

    @property
    def engines(self) -> int:
        return len({s.engine for s in self.series})


def is_metrics_text(data: bytes) -> bool:
    """Whether the text holds a vllm:cache_config_info series (Prometheus text from a vLLM server's /metrics)."""
    return bool(_INFO_SERIES.search(data))


def is_prometheus_head(head: bytes) -> bool:
    """Whether a text begins as Prometheus text does: its first line a # HELP or # TYPE comment."""
    return head.lstrip().startswith((b"# HELP ", b"# TYPE "))


def parse_metrics(text: str, source: str) -> MetricsSnapshot:
    """The KV-cache series of a Prometheus text (prometheus_client's own parser). Refused, naming LOGFILE: text that
    is no Prometheus exposition, one without vllm:cache_config_info, one whose num_gpu_blocks is unset."""
    from prometheus_client.parser import text_string_to_metric_families

    series, names, usage, running = [], [], {}, {}
    try:
        families = list(text_string_to_metric_families(text))
    except (ValueError, TypeError, IndexError) as exc:
        raise InputError("LOGFILE", f"{source} is not Prometheus text ({str(exc)[:160]})", FETCH_FIX) from None
    for family in families:
        for sample in family.samples:
            labels = dict(sample.labels)
            engine = labels.get("engine", "")
            if sample.name == INFO_METRIC:
                series.append(EngineSeries(labels.get("engine"), labels))
            elif sample.name in USAGE_METRICS:
                usage.setdefault(sample.name, {})[engine] = sample.value
            elif sample.name == RUNNING_METRIC:
                running[engine] = sample.value
            if "model_name" in labels and labels["model_name"] not in names:
                names.append(labels["model_name"])
    if not series:
        raise InputError("LOGFILE", f"{source} has no {INFO_METRIC} series (vLLM's CacheConfig as a metric, set once the "
                         "engine has started)", "pass a vLLM server's /metrics after its startup (vllm serve exposes it "
                         "unless --disable-log-stats is given); " + FETCH_FIX)
    unset = [s for s in series if s.label("num_gpu_blocks") is None]
    if unset:
        which = f"engine {unset[0].engine}'s" if unset[0].engine is not None else "its"
        raise InputError("LOGFILE", f"{source}: {which} {INFO_METRIC} has num_gpu_blocks=\"None\": the engine had not "
                         "sized its KV cache when the metrics were taken", "scrape /metrics again once the server "
                         "answers requests (vLLM sets the label after its KV cache is allocated)")
    for s in series:
        try:
            int(s.labels["num_gpu_blocks"])
        except ValueError:
            raise InputError("LOGFILE", f"{source}: {INFO_METRIC} has num_gpu_blocks={s.labels['num_gpu_blocks']!r}, "
                             "not a whole number", "pass the metrics as the server wrote them") from None
    # V1's kv_cache_usage_perc where the page has it (0.11.0 registers the deprecated gpu_cache_usage_perc, shown with
    # --show-hidden-metrics-for-version, first: loggers.py), else V0's gpu_cache_usage_perc
    usage_metric = next((name for name in USAGE_METRICS if name in usage), None)
    return MetricsSnapshot(source=source, series=tuple(series), model_names=tuple(names),
                           kv_usage=usage.get(usage_metric, {}), usage_metric=usage_metric, running=running)


def fetch_metrics(url: str, timeout: float = 10.0) -> str:
    """GET a vLLM server's /metrics (the I/O edge of reading a running server). Refused, naming LOGFILE: no answer,
    an answer other than 200."""
    import httpx

    try:
        response = httpx.get(url, timeout=timeout, follow_redirects=True)
    except httpx.InvalidURL as exc:
        raise InputError("LOGFILE", f"{url} is no URL kvplan can fetch ({exc})", FETCH_FIX) from None
    except httpx.HTTPError as exc:
        raise InputError("LOGFILE", f"{url} did not answer ({type(exc).__name__}: {str(exc)[:160] or 'no detail'})",
                         "check that the vLLM server runs and its port is reachable from here; " + FETCH_FIX) from None
    if response.status_code != 200:
        raise InputError("LOGFILE", f"{url} answered HTTP {response.status_code}, not the metrics",
                         "pass the server's metrics path (vllm serve's is http://HOST:PORT/metrics), or save it "
                         "first: curl http://HOST:PORT/metrics > metrics.txt")
    return response.text


def read_metrics(ref: str, data: Optional[bytes] = None) -> MetricsSnapshot:
    """The snapshot of an http(s) URL (fetched; a bare http://HOST:PORT is its /metrics) or of a file's bytes read."""
    if data is None:
        from urllib.parse import urlsplit

        if urlsplit(ref).path in ("", "/"):  # the server's address: vllm serve's metrics are at /metrics
            ref = ref.rstrip("/") + "/metrics"
        return parse_metrics(fetch_metrics(ref), ref)
    return parse_metrics(data.decode("utf-8", errors="replace"), ref)


def is_url(ref: str) -> bool:
    return ref.startswith(("http://", "https://"))


# ---- the plan and the comparison -----------------------------------------------------------------------------


def _label_value(name: str, text: str):
    if name == "enable_prefix_caching":
        return {"True": True, "False": False}.get(text)
    if name in ("block_size", "num_gpu_blocks_override"):
        return int(text)
    if name == "gpu_memory_utilization":
        return float(text)
    if name == "cache_dtype":
        return None if text == "auto" else text
    return text  # kv_cache_memory_bytes: as vllm serve reads it (a whole number of bytes here)


def served_max_model_len(snapshot: MetricsSnapshot) -> Optional[int]:
    """The max_model_len the server's concurrency is at, where the labels pin it: vLLM >= 0.26 writes one engine's
    tokens as int(max_concurrency x max_model_len) and the concurrency beside them (kv_cache_utils.py
    get_kv_cache_capacity, read in 0.26.0, 0.30.0, 0.33.0, 0.34.0), so the one length L with int(concurrency x L) ==
    tokens is the server's; None where the labels are absent or several lengths give the tokens (a concurrency below
    1)."""
    first = snapshot.series[0]
    tokens, concurrency = first.label("kv_cache_size_tokens"), first.label("kv_cache_max_concurrency")
    if tokens is None or concurrency is None:
        return None
    try:
        t, c = int(tokens), float(concurrency)
    except ValueError:
        return None
    if not (c > 0 and t > 0):
        return None
    base = int(t / c)
    found = [n for n in range(max(1, base - 2), base + 3) if int(c * n) == t]
    return found[0] if len(found) == 1 else None


def plan_kwargs_from_metrics(snapshot: MetricsSnapshot) -> tuple[dict, dict]:
    """(the fit keywords the first engine's labels state, each as a flag in words): block_size where the user set it (a
    user_specified_block_size="False" says vLLM chose it: compared, not planned with), gpu_memory_utilization,
    cache_dtype as kv_cache_dtype, enable_prefix_caching, kv_cache_memory_bytes and num_gpu_blocks_override where set;
    max_model_len where the tokens and concurrency labels pin it (served_max_model_len)."""
    first = snapshot.series[0]
    kwargs, read = {}, []
    for label, flag in LABEL_FLAGS.items():
        text = first.label(label)
        if text is None:
            continue
        if label == "block_size" and first.label("user_specified_block_size") == "False":
            continue
        try:
            value = _label_value(label, text)
        except ValueError:
            raise InputError("LOGFILE", f"{snapshot.source}: {INFO_METRIC}'s {label}={text!r} is not a value vLLM "
                             "writes", "pass the metrics as the server wrote them") from None
        if value is None:
            continue
        kwargs[flag] = value
        read.append(f"--{flag.replace('_', '-')} {text}" if not isinstance(value, bool)
                    else f"--{'' if value else 'no-'}{flag.replace('_', '-')}")
    length = served_max_model_len(snapshot)
    if length is not None:
        kwargs["max_model_len"] = str(length)
        read.append(f"--max-model-len {length} (kv_cache_size_tokens / kv_cache_max_concurrency)")
    return kwargs, dict(zip(kwargs, read))


def observed_blocks(snapshot: MetricsSnapshot) -> tuple[Optional[int], list[str]]:
    """(one engine's num_gpu_blocks as the labels give it, notes). V1 sums the engines' blocks into one label that
    every engine's series carries: divided by the engines, where they agree. Series of the same engines stating other
    counts (scrapes of several servers pasted together) are named, and the smallest compared."""
    counts = {}
    for s in snapshot.series:
        counts.setdefault(s.engine, set()).add(int(s.labels["num_gpu_blocks"]))
    values = sorted({v for vs in counts.values() for v in vs})
    notes = []
    engines = len(counts)
    if len(values) > 1:
        listed = "; ".join(f"engine {e if e is not None else '-'}: {', '.join(f'{v:,}' for v in sorted(vs))}"
                           for e, vs in counts.items())
        notes.append(f"the {INFO_METRIC} series state different num_gpu_blocks ({listed}): the smallest, "
                     f"{values[0]:,}, is compared (one server's scrape states one count)")
        return values[0], notes
    total = values[0]
    if engines > 1:
        per, rest = divmod(total, engines)
        notes.append(f"num_gpu_blocks {total:,} is the sum over the {engines} engines this server runs (vLLM sums the "
                     f"data-parallel engines' blocks into one label): {total:,} / {engines} = "
                     + (f"{per:,} per engine, compared" if not rest else f"{total / engines:,.1f} on average per engine; "
                        f"the smallest engine holds {per:,} or less, compared as {per:,}"))
        return per, notes
    return total, notes


def observed_tokens(snapshot: MetricsSnapshot, blocks: Optional[int], plan) -> tuple[Optional[int], Optional[str]]:
    """One engine's KV-cache tokens: the kv_cache_size_tokens label where vLLM writes it (0.26.0-0.34.0: the "GPU KV
    cache size" it logs); else blocks x block_size where the plan's KV cache is one group of full-attention layers,
    whose tokens are exactly that; else None, with why."""
    text = snapshot.series[0].label("kv_cache_size_tokens")
    if text is not None:
        try:
            return int(float(text)), None
        except ValueError:
            pass
    block_size = snapshot.series[0].label("block_size")
    if blocks is None or block_size is None:
        return None, None
    model = getattr(plan, "model", None)
    kinds = [getattr(g, "kind", None) for g in getattr(plan, "groups", None) or ()]
    if getattr(model, "is_hybrid", False) or getattr(model, "is_attention_free", False) or len(kinds) > 1 \
            or any(k != "full" for k in kinds):
        what = ("a hybrid model (its recurrent state takes blocks too)" if getattr(model, "is_hybrid", False)
                else "a model whose KV cache is several groups or not full attention (sliding-window, recurrent)")
        return None, (f"kv_cache_tokens: not read from the metrics: for {what} the tokens do not follow from "
                      "num_gpu_blocks x block_size (vLLM divides the blocks among its KV-cache groups and by their "
                      "windows), and these metrics carry no kv_cache_size_tokens label (vLLM >= 0.26 writes it)")
    return blocks * int(block_size), None


@dataclass(frozen=True)
class MetricsReconciliation:
    """A running server's metrics beside the plan of the flags they state: reconcile's comparison rows (TermRow) for
    the figures the metrics hold, with the live KV usage and running requests as context (not compared)."""

    snapshot: MetricsSnapshot
    rows: tuple
    notes: tuple[str, ...]
    headline_gap: Optional[dict] = None
    plan: object = None

    def to_dict(self) -> dict:
        s = self.snapshot
        return {
            "source": "metrics",
            "metrics": s.source,
            "vllm_version": None,  # the metrics do not state the release
            "model": s.model_names[0] if s.model_names else None,
            "started": True,  # vLLM sets cache_config_info once its engines are initialized
            "engines": s.engines,
            "comparison": [r.to_dict() for r in self.rows],
            "headline_gap": self.headline_gap,
            "kv_cache_usage": dict(s.kv_usage),
            "kv_cache_usage_metric": s.usage_metric,
            "num_requests_running": dict(s.running),
            "cache_config_info": [dict(x.labels) for x in s.series],
            "notes": list(self.notes),
        }


def _same(a, b) -> bool:
    """Whether a command's flag value and a label's state one value (0.9 and '0.9', '8192' and 8192)."""
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return str(a) == str(b)


def _given(flags) -> dict:
    """The flags given on the command line: not None, and not a plain switch left off (a --no-... of an optional
    switch, False, is given)."""
    if flags is None:
        return {}
    from dataclasses import fields as dc_fields

    off = {f.name for f in dc_fields(flags) if f.default is False}
    return {k: v for k, v in flags.engine_kwargs().items() if v is not None and not (v is False and k in off)}


def _release_of_labels(snapshot: MetricsSnapshot, kwargs: dict) -> list[str]:
    """What the labels' set says of the server's release (versions.CACHE_CONFIG_INFO_LABELS), as notes; where no
    --vllm-version is given and kvplan's default release cannot write that set, the newest wheel read that does is
    planned (kwargs["vllm_version"] set), as a log without its version is planned by its format's era."""
    from kvplan.versions import (DEFAULT_RELEASE, cache_config_info_releases, cache_config_info_span, parse_version,
                                 release_text)

    labels = set(snapshot.series[0].labels)
    releases = cache_config_info_releases(labels)
    span = cache_config_info_span(releases)
    read = ", ".join(release_text(r) for r in releases)
    pass_it = "pass --vllm-version with the server's: pip show vllm, or the image's tag"
    if span is None:
        if "vllm_version" in kwargs:
            return []
        return [f"the metrics do not state vLLM's release, and the {INFO_METRIC} labels are those of no release kvplan "
                f"read: planned with vLLM {DEFAULT_RELEASE}'s rules ({pass_it})"]
    lo, hi = span
    between = ("a release " + " and ".join(filter(None, (f"after {release_text(lo)}" if lo else None,
                                                        f"before {release_text(hi)}" if hi else None))))
    said = f"the {INFO_METRIC} labels are those vLLM {read} writes{'' if len(releases) == 1 else ' (each)'} ({between})"

    def possible(version: str) -> bool:
        try:
            v = parse_version(version)
        except (InputError, ValueError):
            return True
        return (lo is None or v > lo) and (hi is None or v < hi)

    if "vllm_version" in kwargs:
        given = str(kwargs["vllm_version"])
        return [] if possible(given) else [f"{said}, not vLLM {given}: the plan's rules are likely not the server's "
                                           f"release's ({pass_it})"]
    if possible(DEFAULT_RELEASE):
        return [f"the metrics do not state vLLM's release; {said}: planned with vLLM {DEFAULT_RELEASE}'s rules, the "
                f"default ({pass_it})"]
    kwargs["vllm_version"] = release_text(releases[-1])
    return [f"the metrics do not state vLLM's release; {said}: planned with vLLM {kwargs['vllm_version']}'s rules, "
            f"the newest release read that writes them ({pass_it})"]


def plan_from_metrics(snapshot: MetricsSnapshot, model: str, flags=None, *, fit=None, command_flags=None):
    """(plan, notes): `model` planned with the flags the labels state, the flags given overriding them. The GPU is not
    in the metrics: given (--gpu, --gpu-gib, --gpu-gb), else the GPU NVML detects here, with a note, else refused.
    `command_flags`: those a --from command states (in `flags` too), beneath the labels: the server ran with the
    labels' values, so a command stating another is noted and not planned."""
    if fit is None:
        from kvplan.api import fit
    kwargs, read = plan_kwargs_from_metrics(snapshot)
    notes = []
    command_flags = dict(command_flags or {})
    given = {k: v for k, v in _given(flags).items() if k not in command_flags}
    differ = sorted(k for k in command_flags if k in kwargs and not _same(command_flags[k], kwargs[k]))
    if differ:
        notes.append("the --from command states " + ", ".join(f"--{k.replace('_', '-')} {command_flags[k]}" for k in differ)
                     + f"; the server's {INFO_METRIC} says " + ", ".join(read[k] for k in differ)
                     + ": planned with the server's, which it runs with (the command is not quite the one that started it)")
    kwargs = {**{k: v for k, v in command_flags.items() if k not in kwargs}, **kwargs}
    overridden = sorted(k for k in given if k in kwargs and given[k] != kwargs[k])
    if overridden:
        notes.append("given here over the labels: " + ", ".join(f"--{k.replace('_', '-')} {given[k]}" for k in overridden))
    kwargs.update(given)
    if not {"gpu", "gpu_gib", "gpu_gb"} & set(kwargs):
        from kvplan.resolve import detect_gpu

        here = detect_gpu()
        if here is None:
            raise InputError("--gpu", "the metrics do not say which GPU the server runs on (vllm:cache_config_info's "
                             "labels are its CacheConfig), and no GPU is detected here",
                             "give the server's GPU: --gpu NAME (e.g. --gpu H100) or --gpu-gib N")
        notes.append(f"the metrics do not say which GPU the server runs on: planned for {here.name}, the GPU detected "
                     "here (pass --gpu if the server runs on another machine)")
    notes += _release_of_labels(snapshot, kwargs)
    unstated = [f for f in ("max_model_len", "tensor_parallel_size") if f not in kwargs]
    if unstated:
        notes.append("the metrics do not state " + " or ".join(f"--{f.replace('_', '-')}" for f in unstated)
                     + ": planned at kvplan's default (pass the server's own)")
    for _ in range(len(kwargs) + 1):
        try:
            plan = fit(model, **kwargs)
            break
        except InputError as exc:
            name = exc.field.lstrip("-").replace("-", "_")
            if name not in read or name in given or name not in kwargs:
                raise
            # a value vLLM resolved itself that vllm serve does not take as a flag (0.11.0's block_size enlarged for a
            # hybrid model's page size, before user_specified_block_size told it apart): planned without, compared
            kwargs.pop(name)
            notes.append(f"the metrics' {read[name]} is not planned ({exc.message}): vLLM resolved it itself; planned "
                         "with kvplan's default, and compared")
    else:
        raise InputError("MODEL", "could not build a plan from the metrics' labels", "pass the flags explicitly")
    planned = [text for flag, text in read.items() if flag in kwargs and flag not in given]
    notes.insert(0, f"planned with the flags {INFO_METRIC}'s labels state: {', '.join(planned)}" if planned
                 else f"{INFO_METRIC}'s labels state no flag the plan takes here (each at vLLM's default)")
    return plan, notes


def reconcile_metrics(snapshot: MetricsSnapshot, plan=None, notes=(), *, length_given: bool = False) -> MetricsReconciliation:
    """The metrics' figures beside the plan's (or alone without one): num_gpu_blocks per engine, kv_cache_tokens where
    they follow, the maximum concurrency where vLLM writes it (compared where --max-model-len was given: the metrics
    do not state the length it is at), the block size."""
    from kvplan.reconcile import TermRow, headline_gap

    notes = list(notes)
    blocks, more = observed_blocks(snapshot)
    notes += more
    tokens, why = observed_tokens(snapshot, blocks, plan) if plan is not None else (
        (int(float(snapshot.series[0].label("kv_cache_size_tokens"))), None)
        if snapshot.series[0].label("kv_cache_size_tokens") else (None, None))
    if why:
        notes.append(why)
    concurrency = snapshot.series[0].label("kv_cache_max_concurrency")
    block_size = snapshot.series[0].label("block_size")
    rows = [
        TermRow("num_gpu_blocks", blocks, getattr(plan, "num_gpu_blocks", None), "blocks"),
        TermRow("kv_cache_tokens", tokens, getattr(plan, "kv_cache_tokens", None), "tokens"),
        TermRow("max_concurrency", float(concurrency) if concurrency else None, getattr(plan, "max_concurrency", None),
                "x", note=("not compared: the metrics do not state the server's max_model_len, the length the "
                           "concurrency is at (pass --max-model-len)" if concurrency and plan is not None
                           and not length_given and served_max_model_len(snapshot) is None else None)),
        TermRow("block_size", int(block_size) if block_size else None, getattr(plan, "block_size", None), "tokens"),
    ]
    length = served_max_model_len(snapshot)
    if length is not None:
        rows.append(TermRow("max_model_len", length, getattr(getattr(plan, "args", None), "max_model_len", None), "tokens"))
    usage = snapshot.kv_usage
    if usage:
        notes.append(f"live KV-cache usage ({snapshot.usage_metric}, not compared): "
                     + ", ".join(f"{'engine ' + e + ' ' if e else ''}{v:.1%}" for e, v in sorted(usage.items())))
    if snapshot.running:
        notes.append("requests running (vllm:num_requests_running, not compared): "
                     + ", ".join(f"{'engine ' + e + ' ' if e else ''}{v:,.0f}" for e, v in sorted(snapshot.running.items())))
    if plan is not None and snapshot.model_names:
        from kvplan.reconcile import same_model

        served = snapshot.model_names[0]
        if not same_model(served, getattr(plan.model, "id", served)):
            notes.append(f"the server's model_name label is {served!r} (its --served-model-name, else the model it "
                         f"loaded); planned {plan.model.id}")
    headline = headline_gap(rows, None) if plan is not None else None
    if headline is not None:  # the metrics print no pool either: said of them, not of a log
        headline["likely_cause"] = headline["likely_cause"].replace("the log prints no pool", "the metrics carry no pool")
    return MetricsReconciliation(snapshot=snapshot, rows=tuple(rows), notes=tuple(notes), headline_gap=headline, plan=plan)
