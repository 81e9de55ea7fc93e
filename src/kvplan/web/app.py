"""The FastAPI application behind `kvplan web`: the page, and a JSON API others can script.

Request bodies use the CLI's option names in snake_case; answers are the CLI's `--json`
(`Plan.to_dict()`, sweep rows) plus the server-rendered charts. No arithmetic lives here:
plans come from `kvplan.api.plan_from_flags_and_inverse` (the same path as `kvplan fit`, including
`--gpu auto` and `--max-model-len auto`), curves and tables from `sweep_rows`, the bar from
`json_out.budget_segments`, in every plan answer (fit --json's budget_segments).

Safety: uploads are capped (5 MB), read as JSON/CSV text only and never executed (no
`trust_remote_code`); local paths are not accepted as model references over HTTP (upload
the config.json instead); simulations are bounded in requests, seconds and how many run at
once; Hub access uses the server's environment and no token is ever asked for or returned.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import re
import tempfile
import threading
import time
import typing
from collections import OrderedDict
from dataclasses import fields, replace
from pathlib import Path
from typing import Any, Optional, Union

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, create_model

from kvplan.api import (FIT_PARAMS, KEYWORD_EXAMPLES, SWEEPABLE, FitFlags, map_vary_values, parse_vary, plan_from_flags_and_inverse,
                        refuse_unpublished_version, sweep_rows, uncertainty_band_of, vary_names)
from kvplan.errors import GatedModelError, HubError, InputError, KvplanError
from kvplan.inputs import json_loads
from kvplan.plan import COUNT_EXAMPLES
from kvplan.render import plan_json, plan_rows_plain, verdict_text
from kvplan.resolve import LOCAL_MODEL_REFS, context_limit
from kvplan.launch_files import gpu_pinned, gpus_checked, sized_for_applied
from kvplan.serve_command import ServeCommand, merge, parse_serve_command
from kvplan.web.svg import budget_bar_svg, concurrency_curve_svg

STATIC_DIR = Path(__file__).parent / "static"
MAX_UPLOAD_BYTES = 5 * 1024 * 1024
MAX_STORED_UPLOADS = 64
MAX_SWEEP_ROWS = 600
MAX_SIM_REQUESTS = 20_000
MAX_SIM_SECONDS = 30.0
MAX_SIM_RUNNING = 2
MAX_CAPACITY_PROBES = 12
MAX_COMPARE_ROWS = 12  # deployments one /api/simulate capacity comparison searches (all within its time limit)
CURVE_MIN_TOKENS = 1024


# --------------------------------------------------------------------------- request bodies


def _flag_fields() -> dict[str, tuple[Any, Any]]:
    """FitFlags as pydantic fields, described with the CLI's own help texts."""
    hints = typing.get_type_hints(FitFlags)
    helps = {p.name: p.help for p in FIT_PARAMS}
    out: dict[str, tuple[Any, Any]] = {}
    for f in fields(FitFlags):
        ann = hints[f.name]
        if f.name in ("max_model_len", "max_num_batched_tokens"):
            ann = Optional[Union[int, str]]  # 32768, "32k" (or "auto" for max_model_len), as vllm serve reads them
        out[f.name] = (ann, Field(f.default, description=helps.get(f.name)))
    return out


# strict: JSON true is not the length 1, nor 2.0 a tensor-parallel size (vllm serve's argparse refuses both);
# NaN and Infinity (JSON would turn them into null in an answer) are refused by name before anything is computed
_STRICT = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
PlanRequest = create_model(
    "PlanRequest", __config__=_STRICT,
    model=(Optional[str], Field(None, description="Catalog id, Hub id (org/name), or an upload handle from /api/config.")),
    concurrency=(Optional[float], Field(None, description="With max_model_len 'auto': full-length requests that must fit.")),
    curve=(bool, Field(True, description="Also compute the concurrency-vs-max_model_len curve (svg.concurrency).")),
    from_command=(Optional[str], Field(None, description="A `vllm serve MODEL ...` command, a compose `command:` or a "
                                       "script's text (never a file path: the server reads no file), planned as `kvplan "
                                       "fit --from` plans it: its flags merged with this request's keys, which must "
                                       "agree with it. The answer carries `from_command` as `--json` does.")),
    **_flag_fields(),
)


class SweepRequest(PlanRequest):
    vary: list[str] = Field(default_factory=lambda: ["max_model_len=2048,4096,16384,32768"],
                            description="NAME=v1,v2,... (as `kvplan sweep --vary`); one or two of " + ", ".join(SWEEPABLE)
                            + "; or flags paired, one row per tuple: gpu,tensor_parallel_size=L4:4,H100:1")


class ScaffoldRequest(PlanRequest):
    served_model_name: Optional[str] = None
    port: int = 8000


class SimulateRequest(PlanRequest):
    workload: str = Field("azure-conv", description="A bundled trace name, or an upload handle from /api/workload.")
    rate_per_s: Optional[float] = Field(None, allow_inf_nan=True,  # Infinity: all at once, as `--rate inf`
                                        description="Requests per second (default: the trace's own timing).")
    max_requests: Optional[int] = Field(None, ge=1, le=MAX_SIM_REQUESTS,
                                        description=f"Default: the whole workload, capped at the first {MAX_SIM_REQUESTS:,}.")
    slo: Optional[str] = Field(None, description="e.g. ttft=500ms,tpot=50ms")
    capacity: bool = Field(False, description="Also find the highest rate that meets the SLO (needs slo).")
    percentile: float = Field(99.0, ge=1, le=100, description="With capacity: the percentile that must meet the SLO "
                              "(as `kvplan capacity --percentile`).")
    target_rate_per_s: Optional[float] = Field(None, gt=0, description="With capacity: also the replicas this many "
                                               "requests per second need (as `kvplan capacity --target-rate`).")
    vary: list[str] = Field(default_factory=list, description="With capacity: deployments to compare, NAME=v1,v2,... "
                            "as `kvplan capacity --vary` (one capacity search per combination, at most "
                            f"{MAX_COMPARE_ROWS}); one or two of " + ", ".join(SWEEPABLE) + "; or flags paired, one row per tuple: "
                            "gpu,tensor_parallel_size=L4:4,L40S:2,H100:1")
    gpu_hour_usd: Optional[str] = Field(None, description="With capacity: USD per GPU-hour, one price (2.5) or one per "
                                        "GPU (L4=0.8,H100=2.5; a GPU named twice, H100=2.5,H100=1.2, is costed at each), as "
                                        "`kvplan capacity --gpu-hour-usd`: adds the cost per hour and per million requests.")
    # the drafter's acceptance, as `kvplan simulate` and `capacity` take it (--spec-acceptance-rate, ...): with one of
    # them a plan's speculative_config is in the step model (simulate.serving_setup, simulate.SpecAcceptance), whose
    # range checks refuse a value under its key
    spec_acceptance_rate: Optional[float] = Field(None, description="With speculative_config: the per-token acceptance "
                                                  "probability a of the draft tokens (0..1, i.i.d. over positions): "
                                                  "(1 - a^(k+1)) / (1 - a) tokens per decode step, as "
                                                  "`kvplan simulate --spec-acceptance-rate`.")
    spec_mean_acceptance_length: Optional[float] = Field(None, description="With speculative_config: vLLM's logged 'Mean "
                                                         "acceptance length' (1 .. 1 + k), as `kvplan simulate "
                                                         "--spec-mean-acceptance-length`.")
    spec_draft_acceptance_rate: Optional[float] = Field(None, description="With speculative_config: vLLM's logged 'Avg "
                                                        "Draft acceptance rate' as a fraction (0..1): 1 + k x it tokens per "
                                                        "step, as `kvplan simulate --spec-draft-acceptance-rate`.")
    seed: int = 0

    def spec_acceptance(self):
        """The request's acceptance as simulate.SpecAcceptance (none given: an empty one, which changes nothing)."""
        from kvplan.simulate import SpecAcceptance

        return SpecAcceptance(acceptance_rate=self.spec_acceptance_rate, mean_acceptance_length=self.spec_mean_acceptance_length,
                              draft_acceptance_rate=self.spec_draft_acceptance_rate)


class FromCommandRequest(BaseModel):
    model_config = _STRICT
    from_command: str = Field(description="A `vllm serve MODEL ...` command, a compose `command:` or a script's text "
                              "(never a file path), as /api/plan's from_command.")
    vllm_version: Optional[str] = Field(None, description="The release the command is read for (its --task).")
    env: Optional[list[str]] = Field(None, description="KEY=VALUE each: the values of the command's variables.")


_REQUEST_MODELS = {"/api/from_command": FromCommandRequest, "/api/plan": PlanRequest, "/api/sweep": SweepRequest, "/api/scaffold": ScaffoldRequest,
                   "/api/simulate": SimulateRequest}
_FLAG_NAMES = [f.name for f in fields(FitFlags)]


# --------------------------------------------------------------------------- errors


class UploadTooLarge(InputError):
    pass


class SimulationBusy(KvplanError):
    pass


def _error_body(field: str, message: str, fix: Optional[str]) -> dict:
    return {"field": field, "message": message, "fix": fix, "error": f"{field}: {message}" + (f" ({fix})" if fix else "")}


def _status_for(exc: KvplanError) -> int:
    if isinstance(exc, UploadTooLarge):
        return 413
    if isinstance(exc, InputError):
        return 400
    if isinstance(exc, GatedModelError):
        return 403
    if isinstance(exc, SimulationBusy):
        return 429
    if isinstance(exc, HubError):
        return 502
    return 400


def _without_upload_dir(request: Request, text: Optional[str]) -> Optional[str]:
    """`text` with the server's upload folder taken off the paths of stored uploads ('/tmp/kvplan-web-x/workloads/
    workload-e3.csv is empty' -> 'workload-e3.csv is empty'): an error about an upload names the file, never where
    this server keeps it."""
    root = getattr(request.app.state, "upload_root", None)
    if not text or root is None:
        return text
    return re.sub(re.escape(str(root)) + r"[/\\](?:[^/\\\s'\"]+[/\\])*", "", text)


def _on_kvplan_error(request: Request, exc: KvplanError) -> JSONResponse:
    field = getattr(exc, "field", None) or "request"
    message = _without_upload_dir(request, getattr(exc, "message", None) or str(exc))
    fix = _without_upload_dir(request, getattr(exc, "fix", None))
    if field in ("model", "--model"):
        fix = page_fix(fix)
    return JSONResponse(_error_body(field, message, fix), status_code=_status_for(exc))


# pydantic's error types, said in plain words (the page shows them beside the field)
_PLAIN = {"int_parsing": "must be a whole number", "int_from_float": "must be a whole number",
          "int_type": "must be a whole number", "float_type": "must be a number", "bool_type": "must be true or false",
          "float_parsing": "must be a number", "bool_parsing": "must be true or false", "string_type": "must be text",
          "finite_number": "must be a finite number", "list_type": "must be a list"}


# a number key's own example ("gpu_gib": "16GB" and "rate_per_s": "2rps" were offered "e.g. 0.9", utilization's)
_NUMBER_EXAMPLES = {**{k: v for k, v in KEYWORD_EXAMPLES.items() if isinstance(v, float)}, "gpu_gib": 23.58,
                    "gpu_gb": 16, "concurrency": 8, "rate_per_s": 8, "percentile": 99, "target_rate_per_s": 40,
                    "spec_acceptance_rate": 0.7, "spec_mean_acceptance_length": 2.5, "spec_draft_acceptance_rate": 0.6,
                    "port": 8000, "seed": 1, "max_requests": 1000}
# pydantic's bound errors, by the constraint its ctx names
_BOUND_WORDS = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<"}
_JSON_KINDS = {dict: "an object", list: "a list", str: "a string", bool: "true or false", int: "a number",
               float: "a number", type(None): "null"}


def _bounds_fix(body: type[BaseModel], field: str) -> str:
    """'give a value >= 1 and <= 20000': the bounds the request model declares for `field`, all of them (pydantic's
    message names the one missed; its fix was "send a JSON object with the CLI's options in snake_case")."""
    info = body.model_fields.get(field)
    bounds = [f"{_BOUND_WORDS[k]} {getattr(m, k):g}" for m in (info.metadata if info else ()) for k in _BOUND_WORDS
              if getattr(m, k, None) is not None]
    return "give a value " + " and ".join(bounds) if bounds else "correct the value"


def _on_validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    first = exc.errors()[0] if exc.errors() else {}
    loc = [str(x) for x in first.get("loc", ()) if x != "body"]
    field = loc[0] if loc else "body"  # the request key, not the union member pydantic tried last
    kind = first.get("type", "")
    # the keys of the endpoint's own request: /api/simulate's rate_per_s, workload, slo ... were left out of the list
    body = _REQUEST_MODELS.get(request.url.path.rstrip("/"), PlanRequest)
    known = ", ".join(sorted(body.model_fields))
    content_type = request.headers.get("content-type", "")
    if not loc and kind in ("model_attributes_type", "dict_type", "model_type"):
        given = first.get("input")
        if isinstance(given, (bytes, str)) and "json" not in content_type.lower():
            # `curl -d '{...}'` sends application/x-www-form-urlencoded: FastAPI reads no JSON from it, and the answer
            # was "Input should be a valid dictionary ... (send a JSON object ...)" to a body that was one
            sent = content_type.split(";")[0].strip()
            message = (f"the body was sent as {sent}" if sent else "the body was sent without a Content-Type") + \
                ", not as application/json, so it was not read as JSON"
            fix = "send it with the header Content-Type: application/json (curl: -H 'Content-Type: application/json')"
        else:
            message = f"must be a JSON object, got {_JSON_KINDS.get(type(given), 'another value')}"
            fix = "send a JSON object with the CLI's options in snake_case ({} plans the defaults)"
        return JSONResponse(_error_body("body", message, fix), status_code=422)
    if kind == "json_invalid":  # loc is ('body', character offset): the offset is no field
        field = "body"
        message = f"not valid JSON (at character {loc[0]}: {first.get('ctx', {}).get('error', 'decode error')})" if loc else "not valid JSON"
        fix = "send a JSON object with the CLI's options in snake_case"
    elif kind == "missing" and not loc:
        message, fix = "no request body", "send a JSON object with the CLI's options in snake_case ({} plans the defaults)"
    elif kind == "extra_forbidden":
        message, fix = "is not an option", f"known keys: {known}"
    elif kind in _PLAIN:
        given = first.get("input")
        message = _PLAIN[kind] + (f", got {str(given)[:40]!r}" if isinstance(given, (str, int, float)) else "")
        # the field's own example (max_model_len 1e12 was answered "e.g. 4")
        fix = (f"e.g. {_NUMBER_EXAMPLES.get(field, 1.0):g} (a JSON number, without a unit)" if kind.startswith(("float", "finite")) else
               COUNT_EXAMPLES.get(field, f"e.g. {_NUMBER_EXAMPLES.get(field, 4)}") if kind.startswith("int") else
               "true or false (JSON's, unquoted)" if kind.startswith("bool") else "correct the value")
    elif kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        message, fix = first.get("msg", "out of range"), _bounds_fix(body, field)
    else:
        message, fix = first.get("msg", "invalid request"), "send a JSON object with the CLI's options in snake_case"
    return JSONResponse(_error_body(field, message, fix), status_code=422)


def _on_unexpected_error(request: Request, exc: Exception) -> JSONResponse:
    """Anything kvplan did not raise on purpose: a JSON 500 with one line, never a plain-text stack."""
    line = (str(exc).splitlines() or [""])[0][:200]
    return JSONResponse(_error_body("request", f"internal error: {type(exc).__name__}: {line}".rstrip(": "),
                                    "this is a kvplan bug: please report it with the request body"), status_code=500)


def page_fix(fix: Optional[str]) -> Optional[str]:
    """A model error's fix as the page can act on it: a catalog id or a Hub id, or an uploaded config.json."""
    return fix and fix.replace(", " + LOCAL_MODEL_REFS, " or upload the checkpoint's config.json")


# --------------------------------------------------------------------------- uploads


class UploadStore:
    """Uploaded files kept in a private temporary folder, addressed by handle ("upload:<name>")."""

    def __init__(self, root: Path, suffixes: tuple[str, ...], limit: int = MAX_STORED_UPLOADS):
        self.root, self.suffixes, self.limit = root, suffixes, limit
        self.root.mkdir(parents=True, exist_ok=True)
        self._paths: OrderedDict[str, Path] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, stem: str, suffix: str, text: str) -> tuple[str, Path]:
        path = self.root / f"{stem}{suffix}"
        path.write_text(text, encoding="utf-8")
        with self._lock:
            self._paths[stem] = path
            self._paths.move_to_end(stem)
            while len(self._paths) > self.limit:
                _, old = self._paths.popitem(last=False)
                old.unlink(missing_ok=True)
        return "upload:" + stem, path

    def get(self, handle: str, field: str) -> Path:
        stem = handle.split(":", 1)[1]
        with self._lock:
            path = self._paths.get(stem)
        if path is None or not path.is_file():
            raise InputError(field, f"unknown or expired upload {handle!r}", "upload the file again")
        return path


async def read_upload(request: Request, field: str, fix: str, size_fix: str,
                      limit_bytes: int = MAX_UPLOAD_BYTES) -> tuple[bytes, str]:
    """An uploaded file, the request body: its bytes and its UTF-8 text. Refused past `limit_bytes` without reading
    the rest (413, `size_fix`), and when it is not UTF-8 (400, `fix`); both errors name `field`."""
    declared = request.headers.get("content-length")
    too_big = UploadTooLarge(field, f"the upload is larger than {limit_bytes / 1024 ** 2:g} MB", size_fix)
    if declared and declared.isdigit() and int(declared) > limit_bytes:
        raise too_big
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit_bytes:
            raise too_big
    try:
        return bytes(body), body.decode("utf-8-sig")  # a byte-order mark dropped
    except UnicodeDecodeError:
        raise InputError(field, "not UTF-8 text", fix) from None


def _no_constant(name: str):
    raise InputError("config.json", f"holds {name}, which is not a number a config can use", "upload the checkpoint's own config.json")


def _safe_stem(name: str, content: bytes) -> str:
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", name.rsplit("/", 1)[-1]).strip("-.")[:48] or "model"
    return f"{base}-{hashlib.sha256(content).hexdigest()[:10]}"


# --------------------------------------------------------------------------- planning


def _exists(ref: str) -> bool:
    try:
        return Path(ref).expanduser().exists()
    except OSError:  # a name too long for a path is not one
        return False


# the command line's words in a from_command error, as the request's: the flag --from is the key from_command
_FROM_WORDS = ((re.compile(r"--from\b"), "from_command"), (re.compile(r"\bkvplan's --env\b"), "the request's env"),
               (re.compile(r"\bgive --env\b"), "give env"))


def _request_words(text: Optional[str]) -> Optional[str]:
    for pattern, words in _FROM_WORDS:
        text = pattern.sub(words, text) if text else text
    return text


def read_from_command(text: str, model: Optional[str], flags: FitFlags, varied: list = (), *, merged: bool = True):
    """(the ServeCommand, model, flags): a request's from_command read as text only (serve_command.parse_serve_command
    text_only: never a path, no file read) and merged with the request's keys as cli.read_from merges `--from` with
    the command line's flags (serve_command.merge). An error in the command is answered under from_command (a flag in
    it named in the message); a key given both ways and disagreeing under that key, its fix naming it."""
    try:
        command = parse_serve_command(text, flags.vllm_version, flags.env, text_only=True)
    except InputError as e:
        where = "" if e.field in ("--from", "from_command") else f"{e.field}: "
        raise InputError("from_command", where + _request_words(e.message), _request_words(e.fix)) from None
    names = vary_names(varied) if varied else []
    if names:
        command = command.replaced_by(names)
    try:  # a Kubernetes container's GPU limit against the ranks planned (the command's sizes, else the request's)
        command = gpus_checked(command, flags, names)
    except InputError as e:
        raise InputError("from_command", f"{e.field}: {e.message}", e.fix) from None
    if not merged:
        return command, model, flags
    try:
        model, flags = merge(model, flags, command, need_model="model" not in names)
    except InputError as e:
        key = {"MODEL": "model", "--from": "from_command"}.get(e.field, e.field.lstrip("-").replace("-", "_"))
        flag = e.field if e.field.startswith("--") and e.field != "--from" else None
        message, fix = e.message, e.fix
        if flag and fix:  # 'drop --max-model-len (the command's is planned)': the request's key
            fix = fix.replace(f"drop {flag}", f"drop {key}")
        if key == "model" and fix:
            fix = fix.replace("drop MODEL", "drop model")
        raise InputError(key, message, _request_words(fix)) from None
    try:  # a Kubernetes pod's GPU product label: its GPU planned where the request names none (a warning, in the notes)
        flags, command, _ = gpu_pinned(command, flags, names)
        flags, command = sized_for_applied(command, flags, names)  # the Re-check line of a kvplan scaffold file
    except InputError as e:
        raise InputError("from_command", f"{e.field}: {e.message}", _request_words(e.fix).replace("--gpu", "gpu")) from None
    refuse_unpublished_version(flags.vllm_version)  # a compose image's release, as --vllm-version's
    return command, model, flags


class Planner:
    """Turns request bodies into the CLI's calls; owns the upload stores."""

    CACHE_SIZE = 256

    def __init__(self, upload_root: Path):
        self.configs = UploadStore(upload_root / "configs", (".json",))
        self.workloads = UploadStore(upload_root / "workloads", (".csv", ".jsonl"))
        # plans are pure functions of the request: identical bodies (a shared URL, a page reload) reuse the answer
        self._answers: "OrderedDict[str, dict]" = OrderedDict()
        self._lock = threading.Lock()

    def cached(self, req: BaseModel, compute) -> dict:
        if str(getattr(req, "model", "") or "").startswith("upload:"):
            return compute(req)
        key = type(req).__name__ + req.model_dump_json()
        with self._lock:
            if key in self._answers:
                self._answers.move_to_end(key)
                return self._answers[key]
        answer = compute(req)
        with self._lock:
            self._answers[key] = answer
            while len(self._answers) > self.CACHE_SIZE:
                self._answers.popitem(last=False)
        return answer

    def model_ref(self, ref: Optional[str], field: str = "model") -> Optional[str]:
        """An HTTP model reference -> what `resolve_model` takes. Local paths are refused."""
        if ref is None:
            return None
        if not ref.strip():  # "model": "" (an unset template variable) planned the seed's model, as if left out
            raise InputError(field, "an empty value", "give a catalog id, a Hub id (org/name) or an upload handle, or "
                             f"leave {field} out for the default")
        ref = ref.strip()
        if ref.startswith("upload:"):
            return str(self.configs.get(ref, field))
        if ref.startswith((".", "/", "~", "\\")) or ref.endswith(".json") or _exists(ref):
            raise InputError(field, "local paths are not accepted over HTTP", "upload the config.json (POST /api/config), or give a catalog or Hub id")
        return ref

    def flags(self, req: BaseModel, varied: list = ()) -> tuple[Optional[str], FitFlags]:
        model, flags, _ = self.flags_and_command(req, varied)
        return model, flags

    def flags_and_command(self, req: BaseModel, varied: list = ()) -> tuple[Optional[str], FitFlags, Optional[ServeCommand]]:
        """(model, FitFlags, the request's from_command read or None): the request's keys, with its from_command's
        flags merged in as `--from` merges them with the command line's (cli.read_from: serve_command.merge, a key
        given both ways must agree). `varied`: the vary whose flags replace the command's in every row."""
        from kvplan.resolve import catalog_lookup

        data = req.model_dump()
        for name in ("max_model_len", "max_num_batched_tokens"):
            if isinstance(data.get(name), int):
                data[name] = str(data[name])
        refuse_unpublished_version(data.get("vllm_version"))  # as --vllm-version: the page planned '0.10.3' silently
        if (data.get("revision") or "").strip() in ("", "main") and catalog_lookup((data.get("model") or "").strip()):
            data["revision"] = None  # a catalog model is read offline at its recorded commit: 'main' asks for nothing else
        model, flags = data.get("model"), FitFlags(**{k: data[k] for k in _FLAG_NAMES})
        command = None
        if data.get("from_command") is not None:
            command, model, flags = read_from_command(data["from_command"], model, flags, varied)
        if command is not None and (flags.revision or "").strip() in ("", "main") and catalog_lookup((model or "").strip()):
            flags = replace(flags, revision=None)  # the command's catalog model, as the request's above
        field = "from_command" if command is not None and command.model is not None else "model"
        return self.model_ref(model, field), flags, command

    def plan(self, req: BaseModel, *, deployable: bool = False, simulable: bool = False):
        """(model, flags, plan, the inverse question's note, the request's from_command read or None)."""
        model, flags, command = self.flags_and_command(req)
        p, note = plan_from_flags_and_inverse(model, flags, req.concurrency, deployable=deployable, simulable=simulable)
        return model, flags, p, note, command

    def curve_rows(self, model: Optional[str], flags: FitFlags, p) -> list[dict]:
        """`kvplan sweep --vary max_model_len=...` over doubling lengths up to the model's limit."""
        chosen = p.args.max_model_len
        limit = context_limit(p.model, p.rules).tokens  # the longest length vLLM accepts for the model
        lengths, n = set(), min(CURVE_MIN_TOKENS, chosen)
        while n < max(limit, chosen):
            lengths.add(n)
            n *= 2
        lengths |= {chosen, limit}
        if (flags.gpu or "").lower() == "auto":  # the GPU and TP `--gpu auto` chose
            flags = replace(flags, gpu=p.gpu.id, tensor_parallel_size=p.args.tensor_parallel_size)
        return sweep_rows(model, flags, [("max_model_len", sorted(lengths))])

    def plan_response(self, req: BaseModel) -> dict:
        model, flags, p, note, command = self.plan(req)
        band = uncertainty_band_of(p)
        d = plan_json(p, note, band)
        if command is not None:  # as `kvplan fit --from ... --json`
            d["from_command"] = command.to_dict()
        if str(req.model or "").startswith("upload:"):  # the file uploaded, not where this server keeps it
            d["model_source"] = f"upload: {Path(model).name}"
        d["verdict"] = verdict_text(p).plain
        # fit's box as `kvplan fit` words it (render.plan_rows), a [label, text] row each, for the page's summary
        d["summary_rows"] = plan_rows_plain(p, d["model_source"])
        d["model_max_model_len"] = context_limit(p.model, p.rules).tokens
        curve = ""
        if req.curve:
            rows = self.curve_rows(model, flags, p)
            curve = concurrency_curve_svg(rows, p.args.max_model_len, p.max_concurrency, p.fits, band)
        d["svg"] = {"budget": budget_bar_svg(p), "concurrency": curve}
        return d

    def sweep_response(self, req: SweepRequest) -> dict:
        """`kvplan sweep --json`, plus which of the request's own fields the vary replaced ("replaced", "notes").
        The rows are computed (and cached) without those fields: every row overrides them, so the GPU table is not
        recomputed when only the form's GPU or TP changes."""
        varied = parse_vary(req.vary)
        replaced = replaced_by_vary(req, varied)
        rows = self.cached(req.model_copy(update={r["field"]: None for r in replaced}), self._sweep_rows)
        notes = replaced_notes(replaced)
        out = {**rows, "replaced": replaced, "notes": notes}
        command = self.command(req, varied)
        if command is not None:  # as `kvplan sweep --from ... --json`: the command, the flags the vary replaces noted
            out["from_command"] = command.to_dict()
        if rows["varied"] == ["gpu", "tensor_parallel_size"]:
            # the page's table of the GPU x TP combinations that start the plan, its cells and note worded here
            # (render.gpu_table), which the page shows as they stand
            from kvplan.render import gpu_table
            from kvplan.resolve import gpu_catalog

            out["gpu_table"] = gpu_table(rows["rows"], {g.id: g for g in gpu_catalog()}, wsl2=bool(req.wsl2), notes=notes)
        return out

    def _sweep_rows(self, req: SweepRequest) -> dict:
        varied = parse_vary(req.vary)
        varied, given = self.vary_models(varied, "--vary")
        combos = math.prod(len(vals) for _, vals in varied)
        if combos > MAX_SWEEP_ROWS:
            raise InputError("--vary", f"{combos} combinations; the page computes at most {MAX_SWEEP_ROWS}", "vary fewer values")
        model, flags = self.flags(req, varied)
        return {"varied": vary_names(varied), "rows": models_as_given(sweep_rows(model, flags, varied), given)}

    def command(self, req: BaseModel, varied: list = ()) -> Optional[ServeCommand]:
        """The request's from_command as read (replaced_by the vary's names), None without one."""
        if getattr(req, "from_command", None) is None:
            return None
        return read_from_command(req.from_command, req.model, FitFlags(**{k: getattr(req, k) for k in _FLAG_NAMES}),
                                 varied, merged=False)[0]

    def vary_models(self, varied: list[tuple], field: str) -> tuple[list[tuple], dict[str, str]]:
        """parse_vary's groups with each model value as resolve_model takes it (an upload handle: the file this server
        keeps), and those files by the handle given ({path: handle}, for models_as_given)."""
        given: dict[str, str] = {}

        def ref(v):
            out = self.model_ref(v, field)
            if out is not None and out != v:
                given[out] = v
            return out

        return map_vary_values(varied, "model", ref), given


def models_as_given(rows: list[dict], given: dict[str, str]) -> list[dict]:
    """`rows` with each model this server resolved from an upload handle named by that handle again (Planner.vary_models):
    a varied uploaded config's rows named the file this server keeps it in ('/tmp/kvplan-web-.../configs/x.json'),
    which the page showed and a user cannot give back, where the plan itself says 'upload: x.json'."""
    for r in rows:
        for key in ("model",):
            if isinstance(r.get(key), str) and r[key] in given:
                r[key] = given[r[key]]
    return rows


def replaced_notes(replaced: list[dict]) -> list[str]:
    """What replaced_by_vary found, a line each, as the page shows it beside a table."""
    return [f"vary {r['by']} replaced the form's {r['field']} ({r['value']}) in every row" for r in replaced]


def replaced_by_vary(req: BaseModel, varied: list[tuple[str, list]]) -> list[dict]:
    """The request's own fields that `vary` overrides in every row: {"field", "value", "by"} each. `kvplan sweep`
    refuses them (cli.fit.refuse_replaced_flags); the page, whose form always holds a model, a GPU and a length,
    sweeps and says which field the sweep replaced (shown beside the table). The GPU's own size (gpu_gib / gpu_gb)
    goes with it: sweep_rows sizes only the row of the GPU given."""
    out = []
    for name in vary_names(varied):
        fields_ = ("gpu", "gpu_gib", "gpu_gb") if name == "gpu" else (name,)
        for f in fields_:
            value = getattr(req, f, None)
            if value is not None and value != "":
                out.append({"field": f, "value": str(value), "by": name})
    return out


# --------------------------------------------------------------------------- scaffold and simulate


def optional_module(name: str):
    """A kvplan module written separately (deploy, simulate), or None while it does not exist."""
    import importlib

    try:
        return importlib.import_module(f"kvplan.{name}")
    except ImportError:
        return None


def scaffold_response(planner: Planner, req: ScaffoldRequest) -> dict:
    from kvplan.deploy import refuse_platform, render_files, spec_from_plan

    req = scaffold_server_flags(planner, req)  # the command's --port and --served-model-name, as kvplan scaffold writes them
    _, _, p, note, command = planner.plan(req, deployable=True)  # --gpu auto among the cards scaffold writes files for
    refuse_platform(p.gpu, str(p.vllm_version))  # as kvplan scaffold: before the verdict
    if not p.fits:
        raise InputError(refused_field(p), "the plan does not start, so no launch files are generated: " + (p.error or "does not fit"),
                         request_fixes(p))
    spec = spec_from_plan(p, served_model_name=req.served_model_name, port=req.port)
    out = {"model": spec.model_id, "gpu": spec.gpu_name, "gpus": spec.gpus, "vllm_version": spec.vllm_version,
           "inverse": note, "warnings": [str(w) for w in p.warnings],  # as `kvplan scaffold` prints them
           "files": render_files(spec)}
    if command is not None:
        out["from_command"] = command.to_dict()
        # the command's server flags serve.sh does not carry, as `kvplan scaffold --from` names them
        out["not_written"] = [f for f in command.not_planned if f not in ("--port", "--served-model-name", "--host")]
    return out


def scaffold_server_flags(planner: Planner, req: ScaffoldRequest) -> ScaffoldRequest:
    """`req` with its from_command's --port and --served-model-name as its port and served_model_name, as `kvplan
    scaffold --from` writes them: one given on both must agree (else refused under its key); a variable with no value
    refused."""
    command = planner.command(req)
    if command is None:
        return req
    update = {}
    for name, default in (("port", 8000), ("served_model_name", None)):
        if name not in command.server:
            continue
        value, given = command.server[name], getattr(req, name)
        if "$" in str(value):
            raise InputError(name, f"the command's --{name.replace('_', '-')} is {value}, a variable with no value",
                             f"give env {str(value).strip('${}').split(':')[0]}=VALUE, or the value written in the command")
        if given != default and str(given) != str(value):
            raise InputError(name, f"{given} is given, and the command sets {value}",
                             f"drop {name} (the command's is written), or make them agree")
        if name == "port":
            try:
                update[name] = int(value)
            except (TypeError, ValueError):
                raise InputError("from_command", f"--port {value} in the command is not a port number",
                                 "give --port N") from None
        else:
            update[name] = str(value)
    return req.model_copy(update=update) if update else req


def _usable_fixes(p) -> list:
    """The plan's fixes that start it and that a request can pass as written (request keys only)."""
    known = set(_FLAG_NAMES) | {"model"}
    return [f for f in p.fixes if f.fits and set(f.flags) <= known]


def refused_field(p) -> str:
    """The request key a plan that does not start is refused under: the first key its first fix changes
    (tensor_parallel_size where the weights exceed the card), max_model_len where no fix is passable."""
    usable = _usable_fixes(p)
    return next(iter(usable[0].flags)) if usable and usable[0].flags else "max_model_len"


def request_fixes(p) -> str:
    """The plan's fixes that start it, written as request keys (the fixes are passable as written): 'set
    tensor_parallel_size=4 (starts: ...)'. Only keys a request takes; 'see the Plan tab' when none is left."""
    usable = _usable_fixes(p)
    if not usable:
        return "no single change makes it start: see the fixes on the Plan tab"
    return "; or ".join("set " + ", ".join(f"{k}={v}" for k, v in f.flags.items()) + f" ({f.effect})" for f in usable[:3])


class SimulationTimeout(InputError):
    pass


# the command-line flags the workload and SLO readers name, as /api/simulate's request keys
_SIM_KEYS = {"--rate": "rate_per_s", "--target-rate": "target_rate_per_s", "--max-requests": "max_requests",
             "--seed": "seed", "--workload": "workload", "--slo": "slo", "--percentile": "percentile",
             "--gpu-hour-usd": "gpu_hour_usd", "--vary": "vary", "--speculative-config": "speculative_config",
             "--spec-acceptance-rate": "spec_acceptance_rate", "--spec-mean-acceptance-length": "spec_mean_acceptance_length",
             "--spec-draft-acceptance-rate": "spec_draft_acceptance_rate"}


@contextlib.contextmanager
def _request_keys():
    """An InputError from the workload or SLO readers (or check_servable), which speak the CLI's flags, re-raised under
    /api/simulate's request key, its fix spelled so too: an untimed trace without a rate answered field '--rate', 'give --rate R'."""
    try:
        yield
    except SimulationTimeout:
        raise
    except InputError as e:
        key = _SIM_KEYS.get(e.field, e.field.lstrip("-").replace("-", "_"))
        fix = e.fix
        for flag, name in _SIM_KEYS.items():
            fix = re.sub(re.escape(flag) + r"(?![\w-])", name, fix) if fix else fix
        raise InputError(key, e.message, fix) from None


def _deadline(limit_s: float):
    """A progress callback that stops a simulation past `limit_s` seconds of wall time."""
    end = time.perf_counter() + limit_s

    def check(*_):
        if time.perf_counter() > end:
            raise SimulationTimeout("max_requests", f"the simulation ran past {limit_s:g} s", "lower max_requests, or run `kvplan simulate` locally")
    return check


def simulate_response(planner: Planner, req: SimulateRequest, limit_s: float) -> dict:
    from kvplan import simulate as sim
    from kvplan.workload import fleet_workload, with_rate

    if req.vary:
        return capacity_compare_response(planner, req, limit_s)
    _, _, p, _, command = planner.plan(req, simulable=True)  # --gpu auto among the cards the step-time model can time
    if not p.fits:
        raise InputError(refused_field(p), "the plan does not start, so there is nothing to simulate: " + (p.error or ""),
                         request_fixes(p))
    workload = _request_workload(planner, req)
    with _request_keys():
        prices = sim.GpuPrices(req.gpu_hour_usd) if req.gpu_hour_usd is not None else None
        price_list = prices.require(p.gpu) if prices is not None else []
    with _request_keys():
        # the server `kvplan simulate` runs for these flags (prefix caching as the version has it, the plan's warnings,
        # speculative decoding at the acceptance given: refused under its key, as the CLI refuses it under its flag)
        config, step_model, rules = sim.serving_setup(p, spec_acceptance=req.spec_acceptance())
        # a workload vLLM refuses whole is an error, as `kvplan simulate` and `capacity` say, under the request's key
        # (max_model_len or workload): it answered 200 with every request rejected, and the capacity search bisected
        sim.check_servable(p, workload, config)
        slo = sim.parse_slo(req.slo, req.percentile)
    check = _deadline(limit_s)
    result = sim.simulate_plan(p, workload, config, step_model, rules, slo=slo, progress=check, worst_case_concurrency=p.max_concurrency)
    summary, rd = workload.summary(), result.to_dict()
    out = {"plan": {"model": p.model.id, "gpu": p.gpu.name, "max_concurrency": p.max_concurrency, "kv_cache_tokens": p.kv_cache_tokens,
                    "warnings": [str(w) for w in p.warnings]},  # as `kvplan simulate` notes them ("plan: ...")
           "workload": summary, "result": rd, "limits": {"max_requests": MAX_SIM_REQUESTS, "seconds": limit_s},
           "step_model": sim.step_model_report(step_model, config, rd["mean_running"], summary, result)}
    if command is not None:  # as `kvplan simulate --from ... --json`
        out["from_command"] = command.to_dict()
    # each example step as `kvplan simulate` prints it (simulate.step_line), for the page to show as it stands
    out["step_lines"] = [sim.step_line(e) for e in out["step_model"]["example_steps"]]
    # the result as `kvplan simulate` words it, for the page to show as it stands: the server's pool and the workload
    # (setup_lines), the concurrency and KV pool rows ([label, value]), the latency rows ([label, mean, p50, p90, p99],
    # under latency_columns), the throughput and, with an SLO, the goodput (rate_lines)
    dp = p.args.data_parallel_size or 1
    out["setup_lines"] = [sim.pool_line(config, dp), sim.workload_line(summary)]
    out["result_rows"] = [list(r) for r in sim.result_rows(rd, dp)]
    out["latency_columns"] = list(sim.LATENCY_COLUMNS)
    out["latency_rows"] = [list(r) for r in sim.latency_rows(rd)]
    out["rate_lines"] = [line for line in (sim.throughput_line(rd), sim.goodput_line(rd)) if line is not None]
    if req.capacity:
        if not req.slo:
            raise InputError("slo", "capacity needs at least one SLO", "e.g. ttft=1s,tpot=50ms")
        # the requests `kvplan capacity` probes with (a trace's first 5,000 unless max_requests is given), where the
        # simulation above ran the whole of it, as `kvplan simulate` does
        probed = _request_workload(planner, req, capacity=True)
        cap = sim.plan_capacity(p, lambda rate: with_rate(probed, rate, seed=req.seed), config, step_model, slo, rules,
                                fleet_at=lambda rate, k: fleet_workload(probed, rate, k, seed=req.seed), on_fleet=check,
                                max_probes=MAX_CAPACITY_PROBES, on_probe=check, target_rate_per_s=req.target_rate_per_s,
                                worst_case_concurrency=p.max_concurrency)
        out["capacity"] = {k: v for k, v in cap.to_dict().items() if k != "at_max_rate"}
        # as `kvplan capacity --gpu-hour-usd` prices it
        costs = [c for c in (sim.capacity_cost(price, p.gpus_used, cap, req.target_rate_per_s) for price in price_list)
                 if c is not None]
        if costs:  # "cost": the first price's, "costs": each price's (a GPU given two: on-demand and spot)
            out["capacity"]["cost"], out["capacity"]["costs"] = costs[0], costs
        # the answer as `kvplan capacity` words it (simulate.capacity_lines), for the page to show as it stands
        out["capacity_lines"] = sim.capacity_lines(cap, worst_case_concurrency=p.max_concurrency,
                                                   gpus_per_replica=p.gpus_used,
                                                   data_parallel_size=p.args.data_parallel_size or 1,
                                                   one_checked=sim.target_checked_alone(p, probed), costs=costs)
    return out


def _request_workload(planner: Planner, req: SimulateRequest, *, capacity: bool = False):
    """The workload a /api/simulate request names (a bundled trace or an upload), capped at MAX_SIM_REQUESTS. With
    `capacity`, the one a capacity search probes: without max_requests a trace's first CAPACITY_REQUESTS (all of a
    shorter one), as `kvplan capacity` takes it, so the page and the command answer one deployment with one rate (the
    page's search over the whole azure-conv trace, 19,366 requests, read 2.69 req/s per L40S replica for Qwen3-8B at
    16,384 tokens, the command's 3.13, and 8 A10G replicas for 10 req/s where the command said 9)."""
    from kvplan.api import CAPACITY_REQUESTS
    from kvplan.workload import BUNDLED, WorkloadSpec, build_workload, bundled_name

    source = str(planner.workloads.get(req.workload, "workload")) if req.workload.startswith("upload:") else req.workload
    if source == req.workload and not bundled_name(source):
        raise InputError("workload", f"unknown bundled trace {req.workload!r}", "one of " + ", ".join(BUNDLED) + ", or upload a CSV")
    for key, given in (("target_rate_per_s", req.target_rate_per_s), ("vary", req.vary or None),
                       ("gpu_hour_usd", req.gpu_hour_usd)):
        if given is not None and not req.capacity:
            raise InputError(key, "belongs to a capacity search", "add capacity: true")
    spec = WorkloadSpec(workload=source, rate_per_s=req.rate_per_s, max_requests=req.max_requests, seed=req.seed)
    with _request_keys():
        workload = build_workload(spec, default_requests=CAPACITY_REQUESTS if capacity else None)
        if len(workload) > MAX_SIM_REQUESTS:  # no max_requests given and a long trace: keep its first requests
            workload = build_workload(replace(spec, max_requests=MAX_SIM_REQUESTS))
    return workload


def capacity_compare_response(planner: Planner, req: SimulateRequest, limit_s: float) -> dict:
    """/api/simulate with capacity and vary: `kvplan capacity --vary --json`'s rows (simulate.capacity_rows), all the
    searches within the request's time limit, plus which of the request's own fields the vary replaced ("replaced",
    "notes"), as /api/sweep says it."""
    from kvplan import simulate as sim

    workload = _request_workload(planner, req, capacity=True)
    with _request_keys():
        varied = parse_vary(req.vary)
        slo = sim.parse_slo(req.slo, req.percentile)
        prices = sim.GpuPrices(req.gpu_hour_usd) if req.gpu_hour_usd is not None else None
    if not req.slo:
        raise InputError("slo", "capacity needs at least one SLO", "e.g. ttft=1s,tpot=50ms")
    combos = math.prod(len(vals) for _, vals in varied)
    if combos > MAX_COMPARE_ROWS:
        raise InputError("vary", f"{combos} deployments; the page searches at most {MAX_COMPARE_ROWS}",
                         "vary fewer values, or run `kvplan capacity --vary` locally")
    varied, given = planner.vary_models(varied, "vary")
    replaced = replaced_by_vary(req, varied)
    model, flags, command = planner.flags_and_command(req.model_copy(update={r["field"]: None for r in replaced}), varied)
    with _request_keys():
        rows = sim.capacity_rows(model, flags, varied, workload, slo, seed=req.seed, target_rate_per_s=req.target_rate_per_s,
                                 prices=prices, on_probe=_deadline(limit_s), max_probes=MAX_CAPACITY_PROBES,
                                 spec_acceptance=req.spec_acceptance())
    names = vary_names(varied)
    rows = models_as_given(rows, given)
    priced = prices is not None
    for r in rows:  # each row's cells as `kvplan capacity --vary`'s table shows them, for the page as they stand
        r["cells"] = sim.compare_cells(r, names, req.target_rate_per_s, priced)
    notes = replaced_notes(replaced)
    return {"capacity_rows": {"varied": names, "rows": rows, "slo": slo.describe(),
                              "target_rate_per_s": req.target_rate_per_s,
                              # the table's columns, (title, numeric) each, and the lines under it (kind, text), as
                              # the command heads its table and prints them (simulate.compare_columns, compare_lines)
                              "columns": [{"title": t, "numeric": n}
                                          for t, n in sim.compare_columns(names, req.target_rate_per_s, priced)],
                              "lines": [{"kind": k, "text": t} for k, t in sim.compare_lines(rows, names)],
                              # the note under the page's table: the command's heading line (less the model), the
                              # requests per probe, the cost columns' line and the form's fields the vary replaced
                              "note": sim.compare_note(workload.name, len(workload), slo.describe(), req.target_rate_per_s,
                                                       priced, notes)},
            "workload": workload.summary(), "limits": {"max_requests": MAX_SIM_REQUESTS, "seconds": limit_s},
            "replaced": replaced,
            "notes": notes, **({"from_command": command.to_dict()} if command is not None else {})}


# --------------------------------------------------------------------------- the app


def _catalog_models(search: Optional[str]) -> list[dict]:
    from kvplan.resolve import model_catalog

    rows = sorted(model_catalog().items())
    return [{"id": k, "source": v["source"], "gated": v.get("gated")} for k, v in rows if not search or search.lower() in k.lower()]


def _catalog_gpus() -> list[dict]:
    from kvplan.render import gpu_choice_label
    from kvplan.resolve import gpu_catalog

    return [{"id": g.id, "name": g.name, "total_gib": round(g.total_gib, 3), "total_bytes": g.total_bytes, "vendor": g.vendor,
             "compute_capability": g.compute_capability, "hbm_bandwidth_tbps": g.hbm_bandwidth_tbps, "aliases": list(g.aliases),
             "form": g.form, "kind": g.kind, "one_per_machine": g.one_per_machine,
             # the card as the page's GPU list names it, natively and under WSL2 (render.gpu_choice_label: the total
             # each plan uses, under WSL2 the card's WSL2 total, nvidia-smi's memory.total)
             "label": gpu_choice_label(g), "wsl2_label": gpu_choice_label(g, wsl2=True)}
            for g in sorted(gpu_catalog(), key=lambda g: g.total_bytes)]


def create_app(*, upload_dir: Optional[str] = None, simulate_seconds: float = MAX_SIM_SECONDS,
               allowed_hosts: Optional[list[str]] = None) -> FastAPI:
    """The application: GET / (the page), /static/*, and the JSON API under /api. `allowed_hosts`: the Host header
    values served (others get 400), so a page on another site cannot reach this server through DNS rebinding."""
    app = FastAPI(title="kvplan", version="0.1.0",
                  description="Predict what a vLLM deployment does at startup. Bodies use the CLI's options in snake_case; "
                              "answers are the CLI's --json. Errors: {field, message, fix}.")
    root = Path(upload_dir) if upload_dir else Path(tempfile.mkdtemp(prefix="kvplan-web-"))
    planner = Planner(root)
    sim_slots = threading.BoundedSemaphore(MAX_SIM_RUNNING)
    app.state.planner = planner
    app.state.upload_root = root  # taken off the paths an error about an upload names (_without_upload_dir)
    app.add_exception_handler(KvplanError, _on_kvplan_error)
    app.add_exception_handler(RequestValidationError, _on_validation_error)
    app.add_exception_handler(Exception, _on_unexpected_error)
    if allowed_hosts:
        from starlette.middleware.trustedhost import TrustedHostMiddleware

        app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.get("/", include_in_schema=False)
    def index():
        return FileResponse(STATIC_DIR / "index.html", media_type="text/html")

    @app.get("/api/models", summary="The embedded model catalog (as `kvplan models --json`)")
    def models(search: Optional[str] = None):
        return _catalog_models(search)

    @app.get("/api/gpus", summary="The GPU catalog, by memory (as `kvplan gpus --json`)")
    def gpus():
        return _catalog_gpus()

    @app.get("/api/features", summary="Which optional modules this server has")
    def features():
        from kvplan.api import known_versions
        from kvplan.plan import MAMBA_DTYPES
        from kvplan.versions import DEFAULT_RELEASE, LOAD_FORMATS, MOE_BACKENDS
        from kvplan.workload import BUNDLED

        has_sim = optional_module("simulate") is not None
        return {"scaffold": optional_module("deploy") is not None, "simulate": has_sim,
                "traces": {k: t.description for k, t in BUNDLED.items()} if has_sim else {},
                "vllm_versions": known_versions(), "default_vllm_version": DEFAULT_RELEASE,
                # every --load-format some release takes (versions.LOAD_FORMATS), as suggestions: /api/plan says which
                # the asked release takes
                "load_formats": list(LOAD_FORMATS),
                # the same for --moe-backend (versions.MOE_BACKENDS, every value some release's MoEBackend Literal
                # holds) and --mamba-cache-dtype (plan.MAMBA_DTYPES, the values EngineArgs' check takes)
                "moe_backends": list(MOE_BACKENDS), "mamba_cache_dtypes": list(MAMBA_DTYPES),
                "limits": {"upload_bytes": MAX_UPLOAD_BYTES, "simulate_requests": MAX_SIM_REQUESTS, "simulate_seconds": simulate_seconds}}

    @app.post("/api/from_command", summary="A command read as /api/plan's from_command reads it, planned with nothing: "
              "its model, the flags it sets (planned), its environment and notes (`kvplan fit --from ... --json`'s "
              "from_command)")
    def from_command_endpoint(req: FromCommandRequest):
        command, _, _ = read_from_command(req.from_command, None, FitFlags(vllm_version=req.vllm_version, env=req.env),
                                          merged=False)
        return {"from_command": command.to_dict()}

    @app.post("/api/plan", summary="`kvplan fit --json`, plus svg.budget and svg.concurrency")
    def plan_endpoint(req: PlanRequest):
        return planner.cached(req, planner.plan_response)

    @app.post("/api/sweep", summary="`kvplan sweep --json`: one plan per combination of the varied values")
    def sweep_endpoint(req: SweepRequest):
        return planner.sweep_response(req)

    @app.post("/api/scaffold", summary="The text of the files `kvplan scaffold` would write")
    def scaffold_endpoint(req: ScaffoldRequest):
        if optional_module("deploy") is None:
            return JSONResponse(_error_body("scaffold", "this kvplan has no scaffold module (kvplan.deploy)", "upgrade kvplan"), status_code=501)
        return scaffold_response(planner, req)

    @app.post("/api/simulate", summary=f"Simulate a workload on the plan (at most {MAX_SIM_REQUESTS:,} requests, {simulate_seconds:g} s)")
    def simulate_endpoint(req: SimulateRequest):
        if optional_module("simulate") is None:
            return JSONResponse(_error_body("simulate", "this kvplan has no simulator (kvplan.simulate)", "upgrade kvplan"), status_code=501)
        if not sim_slots.acquire(blocking=False):
            raise SimulationBusy(f"{MAX_SIM_RUNNING} simulations are already running")
        try:
            return simulate_response(planner, req, simulate_seconds)
        finally:
            sim_slots.release()

    upload_body = {"requestBody": {"required": True, "content": {"application/json": {"schema": {"type": "object"}}}}}

    @app.post("/api/config", summary="Upload a config.json (the file as the body, at most 5 MB); answers a model handle",
              openapi_extra=upload_body)
    async def config_endpoint(request: Request, name: Optional[str] = None):
        from kvplan.resolve import resolve_model

        fix = "upload the checkpoint's config.json"
        raw, text = await read_upload(request, "config.json", fix, "a config.json is a few KB; upload only that file")
        try:
            config = json_loads(text, parse_constant=_no_constant)
        except json.JSONDecodeError as exc:
            raise InputError("config.json", f"not valid JSON ({exc})", fix) from None
        if not isinstance(config, dict):
            raise InputError("config.json", "does not hold a JSON object", "a config.json is a JSON object of model settings")
        label = name if name and name != "config.json" else str(config.get("_name_or_path") or config.get("model_type") or "model")
        handle, path = planner.configs.put(_safe_stem(label, raw), ".json", json.dumps(config))
        spec = resolve_model(str(path))  # validates now: a ConfigError names the missing key
        return {"model": handle, "id": spec.id, "model_type": spec.model_type, "max_position_embeddings": spec.max_position_embeddings,
                "num_layers": spec.num_layers, "notes": list(spec.notes)}

    csv_body = {"requestBody": {"required": True, "content": {"text/csv": {"schema": {"type": "string"}}}}}

    @app.post("/api/workload", summary="Upload a workload CSV/JSONL for /api/simulate (at most 5 MB); answers a handle",
              openapi_extra=csv_body)
    async def workload_endpoint(request: Request, name: Optional[str] = None):
        from kvplan.workload import load_workload_file

        raw, text = await read_upload(request, "workload", "upload a CSV or JSONL file",
                                      "upload fewer requests, or run `kvplan simulate` with the file locally")
        suffix = ".jsonl" if text.lstrip().startswith("{") else ".csv"
        handle, path = planner.workloads.put(_safe_stem(name or "workload", raw), suffix, text)
        w = load_workload_file(path, flag="workload", name=name or path.name)
        return {"workload": handle, "summary": w.summary()}

    return app
