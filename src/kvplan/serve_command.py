"""A `vllm serve ...` command (or `python -m vllm.entrypoints.openai.api_server --model M ...`), as people hold it in a
serve.sh, a compose file or a README, read onto the flags kvplan plans with (api.FitFlags): `kvplan fit --from CMD`.
Where the command is found in a launch file (a script, a compose file, a Kubernetes manifest, a Helm values file, a
Dockerfile) and the GPU facts that file adds is kvplan.launch_files; this module is the command itself.

The command's flags are read by logs.parse_command_args (the reader of a startup log's command line: shlex, nargs
lists, -tp/-pp/-q); each is then, by the classes kvplan already keeps:
- a FitFlags engine flag (api.FIT_PARAMS): planned;
- an argument that moves no GPU memory (api.NO_GPU_MEMORY_ARGS, validate.ARGS_WITHOUT_MEMORY_EFFECT: the OpenAI
  server's host, port, api_key, chat_template, tool_call_parser, ...): planned without, and named in the notes;
- an engine argument vLLM has and kvplan does not model (validate.ARGS_NOT_MODELLED), set away from its default:
  refused, naming it (a number kvplan cannot determine is not guessed);
- anything else: refused as not a vllm serve flag kvplan knows.
`VAR=x vllm serve ...` and `env VAR=x vllm serve ...` prefixes are read as kvplan's --env. A flag given both on
kvplan's command line and in the command must agree (else refused, naming it); so must MODEL. The one vllm serve
command of a shell line or script (command_line, serve_segment: `ray start ... && vllm serve ... 2>&1 | tee log`) is
found here too, for every reader of launch_files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Optional

from kvplan.errors import InputError
from kvplan.versions import MULTI_VALUE_FLAGS


# FitFlags fields that are kvplan's own choices, no vllm serve flag: a command carrying one is refused as unknown
KVPLAN_ONLY = frozenset({"gpu", "gpu_gib", "gpu_gb", "wsl2", "num_gpus", "gpu_kinds", "env", "entrypoint",
                         "vllm_version", "overhead_gb"})
# vllm serve's short spellings (vllm/engine/arg_utils.py: -tp, -pp, -dp, -q; logs.parse_command_args reads the first
# three itself), as their long flags
SHORT_FLAGS = {"-tp": "--tensor-parallel-size", "-pp": "--pipeline-parallel-size", "-dp": "--data-parallel-size",
               "-q": "--quantization", "-dcp": "--decode-context-parallel-size",
               "-pcp": "--prefill-context-parallel-size"}
# spellings vllm serve takes for a FitFlags flag: vLLM's own startup summary suggests `--kv-cache-memory=N` (argparse
# reads it as --kv-cache-memory-bytes' prefix; other abbreviations are not read: the full flag set decides them)
ALIASES = {"kv_cache_memory": "kv_cache_memory_bytes"}
# the FitFlags fields vllm serve takes as nargs="+" lists (versions.MULTI_VALUE_FLAGS), which FitFlags holds
# comma-separated
_COMMA_LISTS = frozenset(flag[2:].replace("-", "_") for flag in MULTI_VALUE_FLAGS)
_OPENAI_SERVER_MODULES = ("vllm.entrypoints.openai.api_server",)
_ENV_WORD = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_NUMBER = re.compile(r"^-\d")


@dataclass(frozen=True)
class ServeCommand:
    """What a command says: its model, the FitFlags values it sets (field -> value, as kvplan's command line would
    give them), its environment (KEY=VALUE), the arguments planned without (as flags: --host) and where it came from."""

    source: str  # the command as read (one line), or "PATH: line"
    model: Optional[str]
    planned: dict
    env: tuple[str, ...]
    not_planned: tuple[str, ...]
    server: dict = field(default_factory=dict)  # the not-planned arguments' values (field -> value): scaffold's --port
    read_as: tuple[str, ...] = ()  # how the command was read: the image's entrypoint, --task as --runner
    inputs: tuple[str, ...] = ()  # the --env variables the launch file read as its own (MODEL, PORT): merge drops them
    gpus: Optional[tuple] = None  # a Kubernetes container's nvidia.com/gpu limit: (count, its field[, its resource
    # where the field does not name it: a Helm entry's requestGPU of requestGPUType]); gpus_checked
    gpu_pin: Optional[tuple] = None  # the GPU products its pod's node selection requires: (values, field, the MIG
    # slice its limits take: (profile, field) or None, each value's labeller: 'nvidia' or 'amd'); gpu_pinned
    gpu_group: Optional[tuple] = None  # a LeaderWorkerSet's group: (size, its field, the leader's GPUs, a worker's;
    # each (count, field) or None); gpus_checked checks the group's GPUs, _group_gpus_checked
    sized_for: Optional[tuple] = None  # the file's `# Re-check: kvplan fit --from ...` line (kvplan scaffold's): (the
    # options it names, FitFlags field -> value; where it is); sized_for_applied

    def notes(self) -> list[str]:
        out = list(self.read_as)
        if self.not_planned:
            out.append("not planned with, as they move no GPU memory: " + ", ".join(self.not_planned))
        return out

    def lines(self, explain: bool = False) -> list[str]:
        """Where the plan's flags came from, as the commands print it before their answer: the command read, and
        (explain) each flag planned from it."""
        out = [f"from the command: {self.source}"]
        if explain:
            out += [f"  {flag} {value}" if value is not True else f"  {flag}" for flag, value in self.to_dict()["planned"].items()]
            out += [f"  --env {e}" for e in self.env]
        return out + self.notes()

    def replaced_by(self, names) -> "ServeCommand":
        """The command with the flags (and the model) `--vary NAME=...` replaces in every row (sweep, capacity) left
        out of it, each said in a note."""
        names = set(names)
        gone = {k: v for k, v in self.planned.items() if k in names}
        notes = tuple(f"{flag_name(k)} {v} in the command: replaced by --vary {k} in each row" for k, v in gone.items())
        model = self.model
        if "model" in names and model is not None:
            notes += (f"the command's model {model}: replaced by --vary model in each row",)
            model = None
        return replace(self, model=model, planned={k: v for k, v in self.planned.items() if k not in names},
                       read_as=self.read_as + notes)

    def to_dict(self) -> dict:
        """The provenance `kvplan fit --from ... --json` adds: each flag as planned, from the command."""
        return {"command": self.source, "model": self.model,
                "planned": {flag_name(k): v for k, v in self.planned.items()},
                "env": list(self.env), "not_planned": list(self.not_planned), "notes": self.notes()}


def flag_name(name: str) -> str:
    return "--" + name.replace("_", "-")


# --revision main is the branch vLLM (huggingface_hub) downloads without a --revision; kvplan plans an explicit
# revision from the Hub alone (its catalog's configs are of no commit), and scaffold writes `--revision main` (REVISION's
# default) for a model planned without one: read as no --revision, so the files scaffold wrote plan as it planned them
MAIN_REVISION_NOTE = ("--revision main planned as no --revision (main is the branch vLLM downloads without one; the "
                      "catalog's or HF cache's copy of the config is read)")


# programs that run the command given as their arguments, unchanged (their manuals: bash's `time` keyword and GNU time,
# coreutils nice / timeout / stdbuf, util-linux taskset / ionice, numactl(8), bash's `command`): their options taking
# a value, their options alone, and the words before the command (taskset's CPU list, timeout's duration). Another
# option (taskset -p, command -v) is refused: the program then runs no command
_WRAPPERS = {
    "time": ({"-o", "--output", "-f", "--format"}, {"-p", "-v", "--verbose", "-a", "--append", "-q", "--quiet",
                                                     "--portability"}, 0),
    "nice": ({"-n", "--adjustment"}, set(), 0),
    "ionice": ({"-c", "--class", "-n", "--classdata"}, {"-t", "--ignore"}, 0),
    "taskset": (set(), {"-a", "--all-tasks", "-c", "--cpu-list"}, 1),
    "numactl": ({"-N", "--cpunodebind", "-m", "--membind", "-i", "--interleave", "-C", "--physcpubind", "-p",
                 "--preferred", "-w", "--weighted-interleave"}, {"-l", "--localalloc", "-a", "--all", "-b",
                                                                   "--balancing"}, 0),
    "stdbuf": ({"-i", "--input", "-o", "--output", "-e", "--error"}, set(), 0),
    "timeout": ({"-s", "--signal", "-k", "--kill-after"}, {"--preserve-status", "--foreground", "-v", "--verbose"}, 1),
    "command": (set(), {"-p"}, 0),
    # the init programs a Dockerfile's ENTRYPOINT runs the server under (krallin/tini's usage: -p SIGNAL, -e CODE;
    # Yelp/dumb-init's: -r / --rewrite s:r, -c / --single-child); their -h, -l, --version run no command
    "tini": ({"-p", "-e"}, {"-s", "-v", "-vv", "-vvv", "-w", "-g"}, 0),
    "dumb-init": ({"-r", "--rewrite"}, {"-c", "--single-child", "-v", "--verbose"}, 0),
}


def _past_wrapper(tokens: list[str], i: int) -> int:
    """The index of the command a wrapper program (`_WRAPPERS`: `nice -n 10`, `taskset -c 0-7`, `numactl
    --cpunodebind=0`) at tokens[i] runs; an option it has that kvplan does not read refused, naming it."""
    name = Path(tokens[i]).name
    valued, alone, positional = _WRAPPERS[name]
    i += 1
    while i < len(tokens) and tokens[i].startswith("-") and tokens[i] != "--":
        tok = tokens[i]
        if tok in valued:
            i += 2
        elif tok in alone or (name == "nice" and re.fullmatch(r"-\d+", tok)) or tok.split("=", 1)[0] in valued or any(
                tok.startswith(v) and not v.startswith("--") for v in valued):  # --opt=VALUE, -oVALUE
            i += 1
        else:
            raise InputError("--from", f"{name} {tok}: an option of {name} kvplan does not read (it may run no "
                             "command)", f"give the vllm serve command without {name}: --from 'vllm serve MODEL ...'")
    i += tokens[i:i + 1] == ["--"]
    return i + positional


def wrapper_prefix(tokens: list[str]) -> tuple[int, list[str], list[str]]:
    """(the index of the command, the NAME=VALUE words before it, the wrapper programs run before it): the words
    that run the command as their argument (env, /usr/bin/env, exec, nohup, sudo, `_WRAPPERS`: nice, tini, ...)."""
    env: list[str] = []
    i, wrappers = 0, []
    while i < len(tokens):
        program = Path(tokens[i]).name if "/" in tokens[i] and not _ENV_WORD.match(tokens[i]) else tokens[i]
        if program in ("env", "exec", "nohup", "sudo", "-E") or _ENV_WORD.match(tokens[i]):  # /usr/bin/env too
            if _ENV_WORD.match(tokens[i]):
                env.append(tokens[i])
            i += 1
        elif program in _WRAPPERS and len(tokens) > i + 1:
            start, i = i, _past_wrapper(tokens, i)
            wrappers.append(" ".join(tokens[start:i]))
        else:
            break
    return i, env, wrappers


def parse_serve_command(source: str, vllm_version: Optional[str] = None, given_env: Optional[list] = None, *,
                        text_only: bool = False) -> ServeCommand:
    """Read `source` (a command, or a file holding one) as ServeCommand; InputError for anything not planned exactly.
    `vllm_version` (kvplan's --vllm-version; None: its default release) decides whether --task is taken;
    `given_env` (kvplan's --env KEY=VALUE list) gives the command's variables their values (kvplan.launch_vars).
    `text_only`: `source` is text, never a path, and no file is read (the page's from_command: read_source)."""
    from kvplan.api import FIT_PARAMS, NO_GPU_MEMORY_ARGS, task_as_runner
    from kvplan.launch_files import (config_file_args, docker_run_command, read_recheck_line, read_source,
                                     shell_wrapped_command)
    from kvplan.launch_vars import MAX_ARG_STRLEN, Values, env_values
    from kvplan.logs import parse_command_args
    from kvplan.validate import ARGS_NOT_MODELLED, ARGS_WITHOUT_MEMORY_EFFECT

    values = Values(sources=[("--env", env_values(given_env))])
    tokens, shown, read_as = read_source(source, values, text_only=text_only)
    container = docker_run_command(tokens, values)  # `docker run ... IMAGE ARGS`: the command its container runs
    if container is not None:
        tokens, read_as = container[0], read_as + container[1]
    wrapped = shell_wrapped_command(tokens, values)  # `bash -c 'vllm serve ...'`: the command its script runs
    if wrapped is not None:
        tokens, read_as = wrapped, read_as + (f"read as the {Path(tokens[0]).name} -c script runs its vllm serve",)
    long = next((t for t in tokens if len(t) > MAX_ARG_STRLEN), None)
    if long is not None:  # execve refuses it (E2BIG): the server cannot start with it
        raise InputError("--from", f"a word of the command is {len(long):,} characters ({long[:40]!r}...), longer than "
                         f"Linux lets one argument be (MAX_ARG_STRLEN, {MAX_ARG_STRLEN:,}): the command cannot run",
                         "write that value out shorter (a variable repeated in it?)")
    read_as += values.notes()
    release = image_release(values.image)
    if values.release_pin is not None:  # a Dockerfile's `pip install vllm==X.Y.Z`: run after its FROM, over the
        release = values.release_pin[0]  # image's own vLLM (FROM vllm/vllm-openai:v0.10.0 + RUN pip install vllm==...)
    if values.image and release is None:
        read_as += (f"the image {values.image} pins no vLLM release kvplan reads (vllm/vllm-openai:vX.Y.Z): planned "
                    "at --vllm-version, or kvplan's default release",)
    elif release is not None and vllm_version is None:
        vllm_version = release  # the --task reading below takes the image's release
    i, env, wrappers = wrapper_prefix(tokens)
    if wrappers:
        read_as += (f"read as the command {' '.join(wrappers)!r} runs: it runs vllm serve with its arguments as given "
                    "(CPU placement, priority, timing, an init forwarding signals; no GPU memory)",)
    read_as += _environment(values.environment, env)
    rest = tokens[i:]
    model = None
    if len(rest) >= 2 and Path(rest[0]).name == "vllm" and rest[1] == "serve":
        rest = rest[2:]
        if rest and not rest[0].startswith("-"):
            model, rest = rest[0], rest[1:]
    elif len(rest) >= 3 and re.fullmatch(r"python[0-9.]*", Path(rest[0]).name) and rest[1] == "-m" \
            and rest[2] in _OPENAI_SERVER_MODULES:
        rest = rest[3:]
    else:
        raise InputError("--from", f"the command runs {' '.join(rest[:2]) or 'nothing'!r}, not vllm serve",
                         "give `vllm serve MODEL ...` or `python -m vllm.entrypoints.openai.api_server --model MODEL ...`")
    rest, model, config_notes = config_file_args(rest, model, source, vllm_version, text_only)  # --config FILE.yaml
    read_as += config_notes
    # -dp and the other short spellings as their long flags; a negative number as a value ('--max-model-len -1') kept
    # with its flag (parse_command_args reads a token starting with '-' as the next flag)
    flags_in: list[str] = []
    for j, tok in enumerate(rest):
        name, eq, value = tok.partition("=")
        if tok.startswith("-") and not tok.startswith("--") and not _NUMBER.match(tok):
            if name not in SHORT_FLAGS:
                raise InputError(tok, "not a vllm serve flag kvplan knows", "give the flag's long form (--name)")
            tok = SHORT_FLAGS[name] + (eq + value)
        elif _NUMBER.match(tok) and flags_in and flags_in[-1].startswith("--") and "=" not in flags_in[-1]:
            flags_in[-1] = flags_in[-1] + "=" + tok
            continue
        flags_in.append(tok)
    _refuse_stray_words(flags_in)
    args = parse_command_args(["vllm", "serve"] + flags_in)
    if "model" in args:
        if model is not None and str(args["model"]) != model:
            raise InputError("--model", f"the command names two models, {model} and {args['model']}", "give one")
        model = str(args.pop("model"))
    params = {p.name: p for p in FIT_PARAMS if p.name not in KVPLAN_ONLY}
    planned: dict = {}
    not_planned: list[str] = []
    server: dict = {}
    not_modelled: list[str] = []
    unknown: list[str] = []
    task = None
    for name, value in args.items():
        negated = name.startswith("no_") and name[3:] in params and params[name[3:]].annotation == Optional[bool]
        if negated:
            name, value = name[3:], not value if isinstance(value, bool) else value
        name = ALIASES.get(name, name)
        if name in params:
            planned[name] = _as_fit_value(params[name], value, negated)
        elif name in NO_GPU_MEMORY_ARGS or name in ARGS_WITHOUT_MEMORY_EFFECT:
            not_planned.append(flag_name(name))
            server[name] = value
        elif name in ARGS_NOT_MODELLED:
            default = ARGS_NOT_MODELLED[name]
            if value == default or str(value).lower() == str(default).lower():
                not_planned.append(flag_name(name))  # at vLLM's default: nothing changes
            else:
                not_modelled.append(f"{flag_name(name)} {value} (vLLM's default {default!r})")
        elif name == "task":  # vllm serve --task (0.6.4-0.12): the runner api.TASK_RUNNERS maps it to, set below
            task = value
        elif name == "config":  # vllm serve --config FILE.yaml: flags kvplan would not see
            raise InputError("--config", f"the command reads more flags from {value}, which kvplan does not read",
                             "write that file's flags on the command instead of --config")
        else:
            unknown.append(flag_name(name))
    _refuse_unknown_values(model, planned, env, values)
    if not_modelled:
        raise InputError("--from", "the command sets " + "; ".join(not_modelled) + ": vLLM engine arguments that change "
                         "what the startup sizes, which kvplan does not model, so its numbers cannot be determined",
                         "plan the command without " + ", ".join(m.split(" ")[0] for m in not_modelled)
                         + ", or with each at vLLM's default")
    if unknown:
        raise InputError("--from", "not a vllm serve flag kvplan knows: " + ", ".join(unknown),
                         "check the spelling (`vllm serve --help`), or plan the command without "
                         + ("it" if len(unknown) == 1 else "them"))
    if release is not None:  # a --vllm-version given too must agree (merge), as any flag on both
        planned["vllm_version"] = release
        read_as += (f"vLLM {release}: the release the image {values.image} runs" if values.release_pin is None else
                    f"vLLM {release}: the release {values.release_pin[1]} installs",)
    if planned.get("revision") == "main":  # what kvplan scaffold writes for a model it planned unpinned
        del planned["revision"]
        server["revision"] = "main"
        read_as += (MAIN_REVISION_NOTE,)
    if task is not None:  # as vllm.LLM(task=...): refused outside its releases, a runner disagreeing with it refused
        as_flags = {"runner": planned.get("runner"), "vllm_version": vllm_version}
        read_as += (task_as_runner(task if task is not True else "", as_flags, flag="--task"),)
        if as_flags["runner"] is not None:
            planned["runner"] = as_flags["runner"]
    # the --env variables the file read (${MODEL}, $PORT) are its inputs, no environment of the server: left out of the
    # plan's (scaffold would export them); vLLM's own (VLLM_*) stay the server's
    inputs = tuple(sorted(n for n in values.from_env if not n.startswith("VLLM_")))
    if inputs:
        read_as += ("--env " + ", ".join(inputs) + ": read as the file's variables, not planned as the server's "
                    "environment",)
    return ServeCommand(shown, model, planned, tuple(env), tuple(sorted(not_planned)), server, read_as, inputs,
                        values.gpu_limit, values.gpu_pin, values.gpu_group,
                        read_recheck_line(source, text_only) or (values.task_gpu and values.task_gpu + (True,)))


# the vllm/vllm-openai image's release tags (v0.11.0, v0.10.1.1; docker.io/ or a mirror's registry before it): the
# release the compose service runs. latest, nightly or a digest name none
_IMAGE_RELEASE = re.compile(r"(?:^|/)vllm/vllm-openai:v?(\d+\.\d+\.\d+(?:\.\d+|\.post\d+)?)$")


def image_release(image: Optional[str]) -> Optional[str]:
    """The vLLM release a compose service's `image:` pins (vllm/vllm-openai:vX.Y.Z), None where it pins none."""
    m = _IMAGE_RELEASE.search(image.strip()) if image else None
    return m.group(1) if m else None


def _environment(environment: dict, env: list[str]) -> tuple[str, ...]:
    """A compose service's environment: or a script's exports (launch_vars.Values.environment) into `env` (KEY=VALUE,
    before the command's own `VAR=x` prefixes, which win on the line they start): the variables the plan reads
    (api.MODELLED_ENV); the other VLLM_* ones named in a note (the rest, HF_HOME, HF_TOKEN, ..., move no GPU memory)."""
    from kvplan.api import MODELLED_ENV

    prefixed = {e.split("=", 1)[0] for e in env}
    env[:0] = [f"{k}={v}" for k, v in sorted(environment.items()) if k in MODELLED_ENV and k not in prefixed]
    other = sorted(k for k in environment if k.startswith("VLLM_") and k not in MODELLED_ENV)
    return ((f"environment not planned with: {', '.join(other)} (variables kvplan's plan does not read)",)
            if other else ())


def _refuse_unknown_values(model: Optional[str], planned: dict, env: list[str], values) -> None:
    """A variable with no value (or a command substitution) where the model, a planned flag or the environment takes
    it: refused, naming the variable and where its value would come from. Elsewhere (--api-key, --port) it plans
    nothing and is taken as written."""
    from kvplan.launch_vars import kubernetes_refs, unresolved

    places = ([("the model", model)] if model is not None else []) + [
        (flag_name(k), v) for k, v in planned.items() if isinstance(v, str)] + [("--env", e) for e in env]
    for where, value in places:
        if "$" not in value and "`" not in value:
            continue
        names = unresolved(value)
        bare = [n.strip("${}") for n in names]
        missing = [n for n in bare if n in values.missing]
        refs = [n for n in kubernetes_refs(value) if n in values.k8s_refs]
        secret = [n for n in missing if n in values.k8s_unknown]
        if refs or secret:
            _refuse_kubernetes_value(where, value, (refs or secret)[0], values)
        if values.exec_form_at and not missing:
            raise InputError(values.exec_form_at, f"{where} is {value}: the exec form (a JSON list) runs no shell, so "
                             "vllm serve gets the text as written, not a variable's value",
                             "write the value in the list, or use the shell form (CMD vllm serve MODEL --flag ${VAR}), "
                             "whose shell reads the image's ENV")
        if not missing:
            raise InputError("--from", f"{where} is {value} in the command, a shell expansion whose value kvplan "
                             "cannot know", "give the command with the value written out")
        name = missing[0]
        why = values.missing[name]
        if why == "the script sets it on some paths only":
            raise InputError("--from", f"{where} is {value} in the command, and the script sets {name} on some paths "
                             "only (in an if, a loop, or appended to), so which value is planned would be a guess",
                             f"set {name} once in the script, outside any if, or give the command in quotes")
        dotenv = values.dotenv_path
        looked = ", ".join(["kvplan's --env"] + ([dotenv if Path(dotenv).is_file() else f"no {dotenv}"] if dotenv else [])
                           + (["no default in the expression"] if not why else []))
        if values.unread:
            looked += "; the script sources " + ", ".join(values.unread) + ", which kvplan does not read"
        raise InputError("--from", f"{where} is {value} in the command, and {name} has no value ({looked}"
                         + (f"; its message: {why}" if why else "") + ")",
                         f"give --env {name}=VALUE" + (f", or set {name} in {dotenv}" if dotenv else "")
                         + "; kvplan does not read its own environment")


def _refuse_kubernetes_value(where: str, value: str, name: str, values) -> None:
    """A manifest's `$(NAME)` (or a shell wrapper's $NAME) left without a value where the model or a planned flag takes
    it: refused naming the field, why (not in the container's env, so Kubernetes passes it as written; or set from a
    secret / configMap / fieldRef / envFrom, whose value kvplan cannot know) and the fix."""
    field = values.k8s_refs.get(name)
    if name in values.k8s_unknown:
        defined, how = values.k8s_unknown[name]
        raise InputError(field or defined, f"{where} is {value} in the command, and {name} is set from {how} "
                         f"({defined}), whose value kvplan cannot know",
                         f"give --env {name}=VALUE (the value it holds), or write the value in the manifest")
    if not re.fullmatch(r"[ -<>-~]+", name):  # no env entry can have it (was: 'define  in the container's env')
        # an env name is at most printable ASCII other than '=' (the relaxed rule, KEP-4369
        # RelaxedEnvironmentVariableValidation; the older one [-._a-zA-Z][-._a-zA-Z0-9]*): '$()' or 'A=B' names none
        raise InputError(field or "--from", f"{where} is {value} in the command, and $({name}) names no variable a "
                         "container's env can define (printable ASCII other than '='), so Kubernetes passes it to vLLM "
                         "as written", "write the value in the manifest")
    raise InputError(field or "--from", f"{where} is {value} in the command, and {name} is not in the container's env, "
                     "so Kubernetes passes $(" + name + ") to vLLM as written",
                     f"define {name} in the container's env (name: {name}, value: ...), or write the value in the "
                     "manifest")


def _refuse_stray_words(tokens: list[str]) -> None:
    """A word no flag takes as its value (a second model, a value after a switch's value) would be dropped unread by
    logs.parse_command_args, which reads as it does (a flag takes the next word, a nargs list the words up to the next
    flag): refused, naming it."""

    taking = None  # the flag whose value the next word is: "one", "list", or None
    for tok in tokens:
        if tok.startswith("--"):
            name, eq, _ = tok[2:].partition("=")
            taking = None if eq else "list" if "--" + name.replace("_", "-") in MULTI_VALUE_FLAGS else "one"
        elif taking:
            taking = "list" if taking == "list" else None
        else:
            raise InputError("--from", f"{tok!r} in the command is no flag and no flag's value (vllm serve would refuse "
                             "it)", "check the command: quote a value with spaces, or drop the word")


def _as_fit_value(param, value, negated: bool):
    """A command's value as kvplan's own command line gives the FitFlags field (typer's types): '32768' for a length,
    0.95 for a fraction, True for a switch, '1,2,4,8' for a list."""
    flag = flag_name(param.name)
    ann = param.annotation
    if ann is bool or ann == Optional[bool]:
        if not isinstance(value, bool):
            raise InputError(flag, f"is a switch, given the value {value!r} in the command",
                             f"write {flag} alone (or --no-{flag[2:]} where vLLM takes it)")
        return value
    if isinstance(value, bool):  # '--max-model-len' with nothing after it
        raise InputError(flag, "has no value in the command", f"give it one: {flag} VALUE")
    if param.name in _COMMA_LISTS:
        return ",".join(str(value).split())
    if ann == Optional[int]:
        return value if isinstance(value, int) else str(value)  # '8k': read (and refused) as kvplan.fit reads it
    if ann == Optional[float]:
        return float(value) if isinstance(value, (int, float)) else str(value)
    return str(value)


def merge(model: Optional[str], flags, command: ServeCommand, need_model: bool = True):
    """(model, FitFlags) with the command's flags in: MODEL or a flag given on kvplan's command line as well must be
    the command's (else InputError naming it: no silent guess which one is meant). `need_model`: a command naming no
    model is refused (not where --vary model names the models)."""
    from kvplan.api import FitFlags

    defaults = {f.name: f.default for f in fields(FitFlags)}
    if model is not None and command.model is not None and model != command.model:
        raise InputError("MODEL", f"{model} is given, and the command serves {command.model}",
                         "drop MODEL (the command's is planned), or change one so that they agree")
    model = command.model if command.model is not None else model
    if model is None and need_model:
        raise InputError("--from", "the command names no model (vllm serve MODEL, or --model MODEL)",
                         "add the model to the command")
    changes = {}
    if "revision" in command.server and flags.revision not in (None, command.server["revision"]):
        raise InputError("--revision", f"{flags.revision} is given, and the command sets {command.server['revision']}",
                         "drop --revision (the command's is planned), or make them agree")
    for name, value in command.planned.items():
        given = getattr(flags, name)
        if given != defaults[name] and not _same(name, given, value):
            raise InputError(flag_name(name), f"{given} is given, and the command sets {value}",
                             f"drop {flag_name(name)} (the command's is planned), or make them agree")
        changes[name] = value
    if command.inputs and flags.env:
        changes["env"] = [e for e in flags.env if e.split("=", 1)[0].strip() not in command.inputs] or None
    if command.env:
        env = list(changes.get("env", flags.env) or [])
        keys = {e.split("=", 1)[0]: e for e in env}
        for e in command.env:
            key = e.split("=", 1)[0]
            if key in keys and keys[key] != e:
                raise InputError("--env", f"{keys[key]} is given, and the command sets {e}",
                                 f"drop --env {keys[key]}, or make them agree")
            if key not in keys:
                env.append(e)
        changes["env"] = env
    return model, replace(flags, **changes)


def _same(name: str, a, b) -> bool:
    """The two values plan the same: equal as given, or as kvplan.fit reads them ('32k' and 32000)."""
    if a == b or str(a) == str(b):
        return True
    from kvplan.api import checked_engine_arg

    try:
        return checked_engine_arg(name, a) == checked_engine_arg(name, b)
    except Exception:  # one is no value of the flag: not the same
        return False


# ---- the one vllm serve command of a shell line or script ------------------------------------------------------------
# a `docker run` / `podman run` of the vllm/vllm-openai image (launch_files.docker_run_command reads it)
_DOCKER_RUN_VLLM = re.compile(r"\b(?:docker|podman)\s+(?:container\s+)?run\b.*(?:^|[\s/])vllm/vllm-openai(?:[:@\s]|$)")


def is_serve_line(line: str) -> bool:
    return (bool(re.search(r"\bvllm\s+serve\b", line)) or any(m in line for m in _OPENAI_SERVER_MODULES)
            or bool(_DOCKER_RUN_VLLM.search(line)))


def script_lines(text: str) -> list[str]:
    """`text`'s lines, backslash continuations joined."""
    return re.sub(r"[ \t]*\\\r?\n[ \t]*", " ", text).splitlines()


def command_line(text: str) -> str:
    """The `vllm serve` line of `text` (a command, or a script file's content): backslash continuations joined,
    comments dropped; refused where there is none or more than one."""
    lines = [line.strip() for line in script_lines(text)
             if line.strip() and not line.strip().startswith("#") and is_serve_line(line)]
    if not lines:
        raise InputError("--from", "no `vllm serve ...` or `python -m vllm.entrypoints.openai.api_server ...` command "
                         "found", "give the command in quotes, or a script file whose line runs vllm serve")
    if len(lines) > 1:
        raise InputError("--from", f"{len(lines)} vllm serve commands found; which one is planned would be a guess",
                         "give the one command in quotes: --from 'vllm serve MODEL ...'")
    return lines[0]


def command_segments(script: str) -> list[str]:
    """A shell script's simple commands, one a line: its lines (continuations joined) split where bash ends a command
    (an unquoted ;, &&, ||, | or &; not inside quotes or $( ), not a redirection's &: 2>&1, &>), so the `vllm serve`
    of `ray start --head ...; vllm serve ...` is its own command."""
    out = []
    for line in script_lines(script):
        cur, quote, depth, i = [], None, 0, 0
        while i < len(line):
            ch = line[i]
            if quote:
                if ch == "\\" and quote == '"' and i + 1 < len(line):
                    cur.append(line[i:i + 2])
                    i += 2
                    continue
                if ch == quote:
                    quote = None
            elif ch == "\\" and i + 1 < len(line):
                cur.append(line[i:i + 2])
                i += 2
                continue
            elif ch in "'\"`":
                quote = ch
            elif line.startswith("$(", i) or (ch == "(" and depth):
                depth += 1
                cur.append(line[i:i + 2] if ch == "$" else ch)
                i += 2 if ch == "$" else 1
                continue
            elif ch == ")" and depth:
                depth -= 1
            elif ch == "#" and (not cur or cur[-1][-1:] in " \t") and not depth:
                break  # a comment
            elif not depth and (ch == ")" or ((ch == "(" or (ch in "{}" and line[i + 1:i + 2] in ("", " ", "\t")))
                                              and not "".join(cur).strip())):  # (the join last: once a bracket)
                # a subshell's ( ), a group's { }: the commands inside are run as they are outside
                out.append("".join(cur))
                cur = []
                i += 1
                continue
            elif not depth and ((ch == "|" and line[i - 1:i] != ">") or ch == ";" or (
                    ch == "&" and line[i - 1:i] not in (">", "<") and line[i + 1:i + 2] != ">")):
                out.append("".join(cur))
                cur = []
                i += 2 if line[i:i + 2] in ("&&", "||") else 1
                continue
            cur.append(ch)
            i += 1
        out.append("".join(cur))
    # the reserved words and ! before a command (bash's compound commands: `if ...; then CMD; fi`, `! CMD`) run it
    return [seg for seg in (re.sub(r"^(?:(?:!|then|do|else|if|elif|while|until)\s+)+", "", seg.strip()) for seg in out)
            if seg and seg not in ("fi", "done", "esac")]


# a redirection bash applies before it runs a command (never an argument the command sees): [n]> [n]>> [n]>| [n]<
# [n]<> &> &>> >& WORD, a here-string [n]<<< WORD and a here-document's [n]<<[-]WORD, [n]>&m / [n]<&m / [n]>&- , each [n]
# also as {varname} (the bash manual, Redirections); where its word is not attached, the next word is its target
_REDIRECTION = re.compile(r"(?:(?:\d*|\{[A-Za-z_][A-Za-z0-9_]*\})(?:>>|>\||>&(?![\d-])|<<<|<<-?|<>|>|<)|&>>?)(?:&[\d-]+)?")


def without_redirections(command: str) -> str:
    """`command` (one simple command of a shell line) without its unquoted redirections and their targets:
    `vllm serve M --port 8000 > log 2>&1` is `vllm serve M --port 8000`."""
    out, i, quote = [], 0, None
    while i < len(command):
        ch = command[i]
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"`":
            quote = ch
        elif ch == "\\" and i + 1 < len(command):
            out.append(command[i:i + 2])
            i += 2
            continue
        elif (not out or out[-1][-1:].isspace()) and (m := _REDIRECTION.match(command, i)) and m.end() > i and (
                ">" in m.group(0) or "<" in m.group(0)):
            i = m.end()
            if not re.search(r"&[\d-]+$", m.group(0)):  # a file target: attached, or the next word
                while i < len(command) and command[i] in " \t":
                    i += 1
                target_quote = None
                while i < len(command) and (target_quote or not command[i].isspace()):
                    if command[i] in "'\"" and target_quote in (None, command[i]):
                        target_quote = None if target_quote else command[i]
                    i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out).strip()


def serve_segment(line: str) -> str:
    """The `vllm serve` command of a shell line: the one simple command that runs it (`ray start --head && vllm serve
    ...`, `vllm serve ... 2>&1 | tee log`, `nohup vllm serve ... &`), without its redirections; refused where two run it."""
    segments = [seg for seg in command_segments(line) if is_serve_line(seg)]
    if len(segments) > 1:
        raise InputError("--from", f"{len(segments)} vllm serve commands on one line; which one is planned would be a "
                         "guess", "give the one command in quotes: --from 'vllm serve MODEL ...'")
    return without_redirections(segments[0]) if segments else line
