"""The `kvplan` command line: one Typer app, one module per command.

Every command that plans takes the same `vllm serve` flags, spelled as vLLM spells
them; `fit_options` adds them to a command once, so no command repeats them.
Exit codes: 0 success (and "fits"), 1 "does not fit" / a check failed, 2 bad input (a model the Hub and the HF cache
cannot supply included).
"""

from __future__ import annotations

import copy
import functools
import importlib
import inspect
import os
import sys
from dataclasses import fields
from typing import Optional

import typer

from kvplan.api import DEPLOYABLE_CARDS, FIT_PARAMS, GPU_HELP, FitFlags, refuse_auto_length, refuse_unpublished_version
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


class _ConsoleWhenUsed:
    """rich's Console, made the first time a command prints through it: `kvplan fit --json` writes its answer itself and
    never loads rich (its import is about a tenth of that command's start-up). The Console is made as it was when this
    module was imported: from the environment as it stood then (COLUMNS and LINES fix its size, FORCE_COLOR, NO_COLOR,
    TERM and the like its colours), while what a Console reads as it prints (COLUMNS where its size is not fixed, ...)
    it reads as it stands then. Attributes set on it (a test's `_width`) are the Console's."""

    __slots__ = ("_kwargs", "_environ", "_console")

    def __init__(self, **kwargs):
        object.__setattr__(self, "_kwargs", kwargs)
        object.__setattr__(self, "_environ", dict(os.environ))
        object.__setattr__(self, "_console", None)

    def _made(self):
        if self._console is None:
            from rich.console import Console

            made = Console(**self._kwargs, _environ=self._environ)
            del made._environ  # the class's own, os.environ, for what it reads later
            object.__setattr__(self, "_console", made)
        return self._console

    def __getattr__(self, name):
        return getattr(self._made(), name)

    def __setattr__(self, name, value):
        setattr(self._made(), name, value)

    def __delattr__(self, name):
        delattr(self._made(), name)

    # the methods Python looks up on the class, not through __getattr__ (rich's Live enters its console: `with console`)
    def __enter__(self):
        return self._made().__enter__()

    def __exit__(self, *exc):
        return self._made().__exit__(*exc)

    def __repr__(self):
        return repr(self._made())


console = _ConsoleWhenUsed()
err_console = _ConsoleWhenUsed(stderr=True)


def escape(markup: str) -> str:
    """rich.markup.escape, loaded when an error is printed."""
    from rich.markup import escape as rich_escape

    return rich_escape(markup)


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
    table = getattr(rich_utils, "Table", None)
    if isinstance(table, type) and not getattr(table, "_kvplan_stacks", False):
        rich_utils.Table = _stacking_table(table)
    rich_utils._kvplan_folds = True


def _stacking_table(table: type) -> type:
    """Typer's help table (rich_utils.Table) that, where its columns cannot each hold their longest word side by side,
    prints every option as a block: its names and type on one line, its help under them, indented, across the width.
    At 80 columns fit's 'vllm serve flags' panel held six columns, one of them the '--no-enable-chunked-prefill' names:
    rich narrowed the others below their words, and the names printed as '--gpu-memory-utili' over 'zation' and
    '--tensor-parallel-' over 'size' beside an 18-column help ('VLLM_ALLOW_CHUNKE' over 'D_LOCAL_ATTN_WITH'). A panel
    whose words stand whole (render.WholeOrStacked's test) prints as typer lays it out."""
    from rich.padding import Padding
    from rich.text import Text

    from kvplan.render import WholeOrStacked

    class StackingTable(table):
        _kvplan_stacks = True

        def __rich_console__(self, console, options):
            if self.show_header or WholeOrStacked(self)._words_stand_whole(console, options):
                yield from super().__rich_console__(console, options)
                return
            for row in zip(*(c._cells for c in self.columns)):
                *names, help_cell = row
                parts = [console.render_str(c) if isinstance(c, str) else c for c in names]
                words = [p for p in parts if isinstance(p, Text) and p.plain.strip()]
                head = Text(" ").join(words)
                head.no_wrap, head.overflow = False, "fold"
                yield head
                yield Padding(help_cell, (0, 0, 0, 4))

    StackingTable.__name__ = StackingTable.__qualname__ = f"Stacking{table.__name__}"
    return StackingTable


_P = inspect.Parameter
# the shared plan flags (kvplan.api.FIT_PARAMS, which the page's request fields are built from too) as typer options
FIT_OPTIONS: list[tuple[str, object, object]] = [
    (p.name, p.annotation, typer.Option(p.default, *p.flags, help=p.help, rich_help_panel=p.panel)) for p in FIT_PARAMS]


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


# Give a command the shared plan flags; the command receives them as `flags: FitFlags`. --gpu-kinds only the commands
# that answer --gpu auto take (below): elsewhere it would choose nothing
fit_options = option_group(FIT_OPTIONS, FitFlags, "flags", gpu_kinds=None)
# The same, for the commands that answer `--gpu auto` (fit, simulate, capacity: plan_from_flags(gpu_auto=True)).
_GPU_AUTO_HELP = (GPU_HELP + " Default: the GPU NVML detects, else a 16 GB T4. 'auto': the smallest catalog GPU x "
                  "tensor-parallel size (up to 8, or within --num-gpus){} that starts.")
fit_options_gpu_auto = option_group(FIT_OPTIONS, FitFlags, "flags", gpu=typer.Option(
    None, "--gpu", help=_GPU_AUTO_HELP.format(""), rich_help_panel="GPU"))
# scaffold's: its --gpu auto searches the cards it writes launch files for (plan_from_flags(deployable=True))
fit_options_deployable_auto = option_group(FIT_OPTIONS, FitFlags, "flags", gpu=typer.Option(
    None, "--gpu", help=_GPU_AUTO_HELP.format(" " + DEPLOYABLE_CARDS), rich_help_panel="GPU"))


def plan_from_flags(model: Optional[str], flags: FitFlags, command: str = "this command", *, gpu_auto: bool = False,
                    deployable: bool = False, simulable: bool = False, **extra):
    """Resolve the model and GPU and compute the plan the flags describe (`extra` overrides them: gpu=a GPUSpec).
    `gpu_auto`: `--gpu auto` is answered as `kvplan fit` and the page's scaffold and simulate answer it (the smallest
    catalog GPU x TP that starts, api.plan_from_flags_and_inverse), its choice said on stderr; without it
    (preflight plans this machine's GPU) --gpu auto is refused. `deployable`: the choice is among the cards scaffold
    writes launch files for (no Jetson Orin, no AMD card); `simulable`: among the cards simulate and capacity can
    time (api.SIMULABLE_CARDS)."""
    from kvplan.api import fit

    refuse_auto_length(flags, command)
    if gpu_auto and not extra and ((flags.gpu or "").strip().lower() == "auto" or flags.gpu_kinds is not None):
        from kvplan.api import plan_from_flags_and_inverse

        p, note = plan_from_flags_and_inverse(model, flags, None, deployable=deployable, simulable=simulable)
        err_console.print(note, highlight=False, soft_wrap=True)
        return p
    return fit(model, **{**flags.engine_kwargs(), **extra})


FROM_HELP = ("Plan a `vllm serve MODEL ...` command as written (in quotes; or `python -m vllm.entrypoints.openai.api_server "
             "--model MODEL ...`; `VAR=x` prefixes read as --env; --task X as the runner vLLM maps it to), a "
             "docker-compose `command:` of the vllm/vllm-openai image (its flags only, naming --model: read as the "
             "image's `vllm serve` entrypoint), or a script or compose file whose vllm serve line (backslash "
             "continuations joined) or service command is read: a compose file's ${VAR} from --env VAR=x, then the "
             ".env beside it, then the expression's default; a script's variables, arrays and sourced .env as it runs "
             "them, from --env; or a Kubernetes manifest (Deployment, StatefulSet, Pod, Job, ...) whose vLLM "
             "container is read: its command and args as Kubernetes joins them, $(VAR) from its env (a secret's value "
             "from --env), its VLLM_* env and image tag planned, its nvidia.com/gpu limit checked against the ranks, its pod's nvidia.com/gpu.product node label (nodeSelector or "
             "required node affinity, one product) planned as the GPU where --gpu is not given; or a values file of "
             "vLLM's Helm chart (production-stack: servingEngineSpec.modelSpec; FILE#NAME chooses one of several "
             "entries) read as its deployment-vllm-multi.yaml renders the entry's vllm container, requestGPU checked "
             "against the ranks. "
             "Its flags are planned; server flags that move no GPU memory (--host, --port, ...) are named in the "
             "notes; a flag kvplan does not model is refused. A flag also given here must agree with the command's.")


def from_option(extra: str = ""):
    """The --from option of the commands that plan a deployment (read_from reads it)."""
    return typer.Option(None, "--from", help=FROM_HELP + (" " + extra if extra else ""))


def read_from(model: Optional[str], flags: FitFlags, source: Optional[str], varied: list = (), *,
              pinned_gpu: bool = True):
    """(model, flags, the ServeCommand or None): `--from SOURCE` read (serve_command.parse_serve_command, its
    variables from --env) and merged with MODEL and the flags given (serve_command.merge: a flag given on both must
    agree). `varied`: sweep's and capacity's --vary, whose flags (and model) replace the command's in each row.
    A Kubernetes pod's GPU product label plans its GPU where no --gpu is given (launch_files.gpu_pinned; not where
    `pinned_gpu` is false: preflight checks this machine's); a --gpu of another card is warned of on stderr. Then
    the GPU and release a kvplan scaffold file names in its Re-check line (launch_files.sized_for_applied)."""
    if source is None:
        return model, flags, None
    from kvplan.api import vary_names
    from kvplan.render import warning_text
    from kvplan.launch_files import gpu_pinned, gpus_checked, sized_for_applied
    from kvplan.serve_command import merge, parse_serve_command

    command = parse_serve_command(source, flags.vllm_version, flags.env)
    names = vary_names(varied) if varied else []
    if names:
        command = command.replaced_by(names)
    model, flags = merge(model, flags, command, need_model="model" not in names)
    command = gpus_checked(command, flags, names)  # a Kubernetes container's GPU limit against the plan's ranks
    flags, command, warnings = gpu_pinned(command, flags, names, plan_it=pinned_gpu)  # the pod's GPU product label
    flags, command = sized_for_applied(command, flags, names, plan_it=pinned_gpu)  # scaffold's Re-check line
    for warning in warnings:
        err_console.print(warning_text(warning), highlight=False, soft_wrap=True)
    refuse_unpublished_version(flags.vllm_version)  # a compose image's release, as --vllm-version's
    return model, flags, command


def say_from(command, out=None) -> None:
    """The command's provenance lines (ServeCommand.lines), on stderr unless `out` is given: before a command's
    answer, never in its table, CSV or JSON."""
    if command is None:
        return
    from rich.text import Text

    for line in command.lines():
        (out or err_console).print(Text(line), soft_wrap=True)


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


def _app_for(args: list[str]) -> typer.Typer:
    """The app that runs `kvplan ARGS`: for `kvplan COMMAND ...`, `app` holding COMMAND alone, since typer makes every
    command it holds, options and all, before it parses a word (about 520 options for the twelve commands, several
    hundredths of a second of `kvplan fit`). It stays a group, so `kvplan fit ...` parses, prints its help and its
    errors ("Try 'kvplan fit --help'") as before. `kvplan`, `kvplan --help`, a command that is not one, and shell
    completion (which reads its words from the environment) run the whole app, listing every command."""
    if not args or any(k.endswith("_COMPLETE") or k.startswith("_TYPER_COMPLETE") for k in os.environ):
        return app
    asked = [c for c in app.registered_commands
             if (c.name or getattr(c.callback, "__name__", "")).lower().replace("_", "-") == args[0]]
    try:
        from typer.models import TyperInfo
    except ImportError:  # a typer that keeps its models elsewhere: the whole app
        return app
    if len(asked) != 1 or app.registered_groups or app.registered_callback is not None:
        return app
    alone = copy.copy(app)
    alone.registered_commands = asked
    # typer runs an app of one command as that command (`kvplan fit` would read "fit" as the model); an empty
    # callback's defaults (all unset) keep it a group whose settings are app's own
    alone.registered_callback = TyperInfo()
    return alone


# the number flags whose value is a fraction (0..1), to which a percentage ('90%') is offered as one
_FRACTION_FLAGS = frozenset({"--gpu-memory-utilization", "--spec-acceptance-rate", "--spec-draft-acceptance-rate"})


def _number_flag_error(exc: Exception):
    """A number flag given a word or a unit ('--gpu-gib 16GB', '--gpu-memory-utilization 90%', '--rate 8rps',
    '--max-num-seqs 1.5') as kvplan's InputError, naming the flag and the number to write; None for any other usage
    error. Typer answered those "Invalid value for '--gpu-gib': Input should be a valid number, unable to parse string
    as a number", which says neither what was given nor what to write. The value and kind are read from typer's
    pydantic error (typer >= 0.2x) or click's "'X' is not a valid float/integer" (older typers)."""
    import re

    from kvplan.errors import InputError

    param = getattr(exc, "param", None)
    opts = [o for o in getattr(param, "opts", None) or () if o.startswith("--")]
    if not opts:
        return None
    flag = max(opts, key=len)
    cause, value, kind = exc.__cause__, None, None
    errors = getattr(cause, "errors", None)
    if callable(errors):
        first = (errors() or [{}])[0]
        kind = {"float_parsing": "number", "int_parsing": "whole number",
                "int_from_float": "whole number"}.get(first.get("type", ""))
        value = first.get("input")
    if kind is None:
        m = re.match(r"'(.*)' is not a valid (float|integer)", str(getattr(exc, "message", "")))
        if not m:
            return None
        value, kind = m.group(1), "number" if m.group(2) == "float" else "whole number"
    if not isinstance(value, str):
        return None
    from kvplan.plan import human_int

    lead = re.search(r"[-+]?(?:\d+\.?\d*|\.\d+)", value)  # '16GB' -> 16, 'p90' -> 90, '8rps' -> 8
    if lead is None:
        fix = f"`kvplan {sys.argv[1] if len(sys.argv) > 1 else 'COMMAND'} --help` says what {flag} takes"
    elif kind == "whole number":
        try:  # '2e3' is 2000, '64k' 64,000 (as vllm serve's human-readable lengths read it), '1.5' 1
            whole = human_int(value.strip()) or int(float(value))
        except (ValueError, OverflowError):
            whole = int(float(lead.group(0)))
        fix = f"e.g. {flag} {whole}"
    elif value.strip().endswith("%") and flag in _FRACTION_FLAGS:
        fix = f"a fraction, not a percentage: {flag} {float(lead.group(0)) / 100:g} for {lead.group(0)} %"
    else:
        fix = f"the number alone, in the unit the flag's help names: {flag} {lead.group(0)}"
    return InputError(flag, f"{value!r} is not a {kind}", fix)


def _run(debug: bool) -> None:
    try:
        rv = _app_for(sys.argv[1:])(standalone_mode=False)
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
        refused = _number_flag_error(exc) if "BadParameter" in kinds else None
        if refused is not None:
            err_console.print(f"[bold red]error:[/] {escape(str(refused))}", highlight=False, soft_wrap=True)
            sys.exit(2)
        if "ClickException" in kinds:
            exc.show()
            sys.exit(2)
        if "Exit" in kinds:
            sys.exit(getattr(exc, "exit_code", 0))
        if debug:
            raise
        err_console.print(f"[bold red]internal error:[/] {type(exc).__name__}: {escape(str(exc))} (set KVPLAN_DEBUG=1 for the traceback)", highlight=False)
        sys.exit(3)
