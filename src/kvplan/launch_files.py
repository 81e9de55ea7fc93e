"""Where `kvplan fit --from SOURCE` finds the `vllm serve` command (kvplan.serve_command reads it): read_source takes
a command, a script file, a docker-compose `command:` or file, a Kubernetes manifest (a Deployment, Pod, Job, ... or a
LeaderWorkerSet), a values file of vLLM's Helm chart (production-stack) or a Dockerfile, and gives the command's words
as its runtime would run them (variables by kvplan.launch_vars), the facts the file adds left on launch_vars.Values:
its environment, its image (the release), the GPUs a compose service reserves or a container's limits take, the GPU
product its pod is pinned to. After serve_command.merge, the checks that apply those facts to the plan: gpus_checked
(the GPUs given against the plan's ranks; a LeaderWorkerSet's whole group), gpu_pinned (a GPU Feature Discovery or
AMD node label plans its card) and sized_for_applied (kvplan scaffold's `# Re-check:` line plans the GPU and release
the file was sized for).
"""

from __future__ import annotations

import math
import re
import shlex
from dataclasses import replace
from pathlib import Path
from typing import Optional

from kvplan.errors import InputError
from kvplan.serve_command import (ServeCommand, command_line, command_segments, is_serve_line, script_lines,
                                  serve_segment, without_redirections, wrapper_prefix)


# a word that names a file (serve.sh, ./deploy/compose.yml, ~/x): what a page's from_command, text only, refuses by name
_PATH_WORD = re.compile(r"[/\\~]|\.(?:sh|bash|ya?ml|env|txt|json)$", re.I)
TEXT_FIELD = "from_command"


def read_source(source: str, values=None, *, text_only: bool = False) -> tuple[list[str], str, tuple[str, ...]]:
    """(the command's words, how to name where it came from, how it was read): `source` is a command, a compose
    `command:` holding the image's flags, or a file holding one (a script, or a compose file). Variables are read as
    the runtime reads them (kvplan.launch_vars), from `values` (a launch_vars.Values: kvplan's --env). `text_only`
    (the page's from_command: text sent over HTTP): `source` is never read as a path, and no file is read (a script's
    sourced .env included); a one-word value (a file's name) is refused naming from_command."""
    from kvplan.launch_vars import Values, dotenv, expand, run_script, shell_words

    values = values if values is not None else Values()
    ray = _ray_serve_source(source, values, text_only)  # a Ray Serve LLM config (its own section below)
    if ray is not None:
        return ray
    helm = _helm_source(source, values, text_only)  # a values file of vLLM's Helm chart (its own section below)
    if helm is not None:
        return helm
    if text_only:
        return _read_text(source, values)
    if not source or not source.strip():
        raise InputError("--from", "an empty value", "give a `vllm serve ...` command in quotes, or a script file")
    path = Path(source).expanduser()
    try:  # a file first: a folder's name may hold a space and the word vllm
        is_file = "\n" not in source and path.is_file()
    except (OSError, ValueError):
        is_file = False
    one_line_json = source.lstrip().startswith("{")  # `kubectl get -o json | jq -c`: as the page reads it
    manifest = (_k8s_objects(source) if not is_file and ("\n" in source or one_line_json) and "apiVersion" in source
                else None)
    if manifest is not None:  # a manifest's text given in quotes ("$(cat deployment.yaml)"), as the page reads it
        return _manifest_command("the manifest", manifest, values)
    words = None if is_file else _image_args(source)
    if words is not None:
        words = [expand(w, values, compose=True) for w in words]
        serve = _flags_as_serve(words)
        if serve is None:
            raise InputError("--from", "the command holds only flags (a compose `command:` for the vllm/vllm-openai "
                             "image) and names no model with --model", "add --model MODEL to it")
        return serve, " ".join(source.split()), (IMAGE_ENTRYPOINT_NOTE,)
    if not is_file and _COMPOSE_KEY.match(source):  # `command: vllm serve ...`, `command: ["vllm", "serve", ...]`
        return _compose_command(source, values)
    looks_like_command = "vllm" in source and (" " in source.strip() or "\n" in source)
    if is_file or not looks_like_command:
        if not is_file:
            raise InputError("--from", f"{source!r} is no file and no vllm serve command",
                             "give a script file that runs vllm serve, or the command in quotes")
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise InputError("--from", f"cannot read {source}: {exc.strerror or exc}", "give a readable file") from None
        manifest = _k8s_objects(text) if path.suffix in (".yml", ".yaml", ".json") else None
        if manifest is not None:
            return _manifest_command(source, manifest, values)
        if _DOCKERFILE_NAME.search(path.name) or (path.suffix not in (".yml", ".yaml", ".json", ".sh")
                                                   and looks_like_dockerfile(text)):
            return _dockerfile_command(source, text, values)
        if path.suffix in (".yml", ".yaml"):
            beside = path.parent / ".env"  # docker compose's: after the shell's environment (kvplan's --env)
            values.dotenv_path = str(beside)
            if beside.is_file():
                values.sources.append((str(beside), dotenv(beside)))
            commands = _compose_commands(text, values)
            if commands is not None:
                return _compose_file_command(source, commands, values)
            values.sources = values.sources[:1]
            task = skypilot_task(text)
            if task is not None:
                return _skypilot_command(source, task, values)
        command_line(text)  # one vllm serve line, else refused
        arrays, line = run_script(script_lines(text), path.parent, values, is_serve_line)
        line = serve_segment(line)
        words = shell_words(line, values, arrays)
        return words, f"{source}: {shlex.join(words) if words != _plain_words(line) else line}", ()
    line = serve_segment(command_line(source))
    return shell_words(line, values), line, ()


def _read_text(source: str, values) -> tuple[list[str], str, tuple[str, ...]]:
    """read_source for text alone (the page's from_command): a command, a compose `command:` (the image's flags, or a
    vllm serve line), a compose file's text (its one service command, interpolated from the request's env alone: no
    .env beside it is read) or a script's text (its variables and arrays followed as for a script file, a file it
    sources left unread). Nothing is read from the server's disk."""
    from kvplan.launch_vars import expand, run_script, shell_words

    text = (source or "").strip()
    if not text:
        raise InputError(TEXT_FIELD, "an empty value", "paste a `vllm serve MODEL ...` command, a compose `command:` "
                         "or a script's text, or leave from_command out")
    if not re.search(r"\s", text):
        what = "a file's name or path" if _PATH_WORD.search(text) else "one word"
        raise InputError(TEXT_FIELD, f"{text!r} is {what}, not a command: from_command takes the command's text, and "
                         "the server reads no file", "paste the command itself (vllm serve MODEL ...), or the file's text")
    manifest = _k8s_objects(text) if "apiVersion" in text else None
    if manifest is not None:  # a Kubernetes manifest's text: its vLLM container, as a manifest file is read
        return _manifest_command("the manifest", manifest, values)
    if looks_like_dockerfile(text):  # a Dockerfile's text: its last stage's command, as a Dockerfile is read
        return _dockerfile_command("the Dockerfile", text, values)
    words = _image_args(text)
    if words is not None:
        words = [expand(w, values, compose=True) for w in words]
        serve = _flags_as_serve(words)
        if serve is None:
            raise InputError(TEXT_FIELD, "the command holds only flags (a compose `command:` for the vllm/vllm-openai "
                             "image) and names no model with --model", "add --model MODEL to it")
        return serve, " ".join(text.split()), (IMAGE_ENTRYPOINT_NOTE,)
    if _COMPOSE_KEY.match(text):  # as the command line reads a compose `command:` given in quotes
        return _compose_command(text, values)
    commands = _compose_commands(text, values)
    if commands is not None:
        return _compose_file_command("the compose file", commands, values)
    task = skypilot_task(text)
    if task is not None:
        return _skypilot_command("the SkyPilot task", task, values)
    if "\n" not in text:  # one line: as the command line reads a command given in quotes
        line = serve_segment(command_line(text))
        return shell_words(line, values), line, ()
    command_line(text)  # one vllm serve line, else refused
    arrays, line = run_script(script_lines(text), None, values, is_serve_line, read_files=False)
    line = serve_segment(line)
    words = shell_words(line, values, arrays)
    return words, shlex.join(words) if words != _plain_words(line) else line, ()


def _plain_words(line: str) -> Optional[list[str]]:
    try:
        return shlex.split(line, comments=True)
    except ValueError:
        return None


# ---- a docker-compose `command:` or file -----------------------------------------------------------------------------
# the vllm/vllm-openai image's ENTRYPOINT (vLLM docker/Dockerfile, final stage vllm-openai): `vllm serve` in recent
# releases, `python3 -m vllm.entrypoints.openai.api_server` before; both take `--model MODEL` and the same flags, so a
# docker-compose `command:` (or `docker run vllm/vllm-openai ARGS`) holding only the flags is read as `vllm serve` with them
IMAGE_ENTRYPOINT_NOTE = "read as the vllm/vllm-openai image's `vllm serve` entrypoint (its docker/Dockerfile's ENTRYPOINT)"


def _flags_as_serve(words: list[str]) -> Optional[list[str]]:
    """`vllm serve` with the image's arguments `words` where they name the model with --model (else None: the model
    would be a guess)."""
    if not any(w == "--model" or w.startswith("--model=") for w in words):
        return None
    return ["vllm", "serve"] + words


_COMPOSE_KEY = re.compile(r"^\s*(?:-\s*)?command\s*:\s*", re.S)


def _compose_words(text: str) -> Optional[list[str]]:
    """The words of `text` read as a compose `command:` value (the key optional): a YAML / JSON flow list, a folded or
    literal block (`>` / `|`), or a shell line; None where it reads as none of them."""
    body = _COMPOSE_KEY.sub("", text.strip(), count=1).strip()
    if body.startswith("["):  # a YAML / JSON flow list: ["--model", "Qwen/Qwen3-8B", ...]
        try:
            import yaml

            words = yaml.safe_load(body)
        except Exception:  # no YAML reader, or not a list it reads: left to the shell reading below
            words = None
        if isinstance(words, list) and all(isinstance(w, (str, int, float)) for w in words):
            return [str(w) for w in words]
    body = re.sub(r"^[>|][+-]?[ \t]*(?:\r?\n|$)", "", body)  # a block scalar's indicator
    body = re.sub(r"[ \t]*\\\r?\n[ \t]*", " ", body)  # backslash continuations
    body = " ".join(line.strip() for line in body.splitlines() if line.strip() and not line.strip().startswith("#"))
    try:
        return shlex.split(body, comments=True)
    except ValueError:
        return None


def _image_args(text: str) -> Optional[list[str]]:
    """The words of `text` when it is the image's arguments only (a compose `command:` value, its YAML list, or the
    flags alone) starting with a flag; None otherwise."""
    words = _compose_words(text)
    return words if words and words[0].startswith("-") else None


def _compose_command(source: str, values) -> tuple[list[str], str, tuple[str, ...]]:
    """A compose `command:` given as text that runs vllm serve (`command: vllm serve ...`, its YAML list)."""
    from kvplan.launch_vars import expand

    words = [expand(w, values, compose=True) for w in _compose_words(source) or []]
    line = shlex.join(words)
    if not is_serve_line(line):
        raise InputError("--from", f"the compose command runs {' '.join(words[:1]) or 'nothing'!r}: neither the "
                         "vllm/vllm-openai image's flags (the model named by --model) nor vllm serve",
                         "give the image's flags with the model as --model MODEL, or `vllm serve MODEL ...`")
    return _serve_words(words), line, ()


def _serve_words(words: list[str]) -> list[str]:
    """The words of the one vllm serve command in a compose `command:` (refused where none or more than one)."""
    command_line(shlex.join(words))
    return words


def _compose_file_command(source: str, commands: list, values) -> tuple[list[str], str, tuple[str, ...]]:
    """The one service `command:` of a compose file, as read_source gives it."""
    if len(commands) != 1:
        raise InputError("--from", f"{source} has {len(commands) or 'no'} service command{'s' if len(commands) != 1 else ''}"
                         "; which one is planned would be a guess" if commands else f"{source} has no service with a "
                         "`command:`", "give the one service's command in quotes: --from 'command: --model MODEL ...'")
    words, env, image, gpus = commands[0]
    values.environment.update(env)
    values.image = image
    values.gpu_limit = gpus  # checked against the plan's ranks (gpus_checked)
    if words and words[0].startswith("-"):
        serve = _flags_as_serve(words)
        if serve is None:
            raise InputError("--from", f"{source}'s command holds only flags and names no model with --model",
                             "add --model MODEL to it")
        return serve, f"{source}: {shlex.join(words)}", (IMAGE_ENTRYPOINT_NOTE,)
    command_line(shlex.join(words))
    return words, f"{source}: {shlex.join(words)}", ()


def _compose_commands(text: str, values=None) -> Optional[list]:
    """The `command:` of each service of a docker-compose file (its YAML: `services:` mapping) as a list of words, its
    `entrypoint:` first where the service sets one, each value interpolated as docker compose does
    (launch_vars.expand); None where `text` is no compose file (or no YAML reader)."""
    try:
        import yaml

        doc = yaml.safe_load(text)
    except Exception:
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("services"), dict):
        return None
    from kvplan.launch_vars import expand

    def interpolated(value, field: str = "") -> str:
        if isinstance(value, (list, dict)):  # one word: str() of a YAML alias bomb's list would never end
            raise InputError(field or "--from", f"is {_shown(value)}, not one value", "give it as one string")
        return expand(str(value), values, compose=True) if values is not None else str(value)

    def interpolated_free(value, field: str) -> str:
        if isinstance(value, (list, dict)):
            raise InputError(field, f"is {_shown(value)}, not one KEY=VALUE entry", "give it as one string: KEY=VALUE")
        return str(value)

    out = []
    for svc_name, svc in doc["services"].items():
        if not isinstance(svc, dict) or not svc.get("command"):
            continue
        environment = svc.get("environment") or {}
        if isinstance(environment, list):  # ["KEY=VALUE", "KEY"]
            environment = dict((interpolated_free(e, f"services.{svc_name}.environment[{k}]").split("=", 1)
                                + [None])[:2] for k, e in enumerate(environment))
        env = {}
        for key, value in (environment.items() if isinstance(environment, dict) else ()):
            if value is None:  # `KEY:` alone: the value of the shell docker compose runs in (kvplan's --env)
                value, _ = values.lookup(str(key)) if values is not None else (None, None)
            if value is not None:
                env[str(key)] = interpolated(value if not isinstance(value, bool) else str(value).lower(),
                                             f"services.{svc_name}.environment.{key}")
        words = []
        for key in ("entrypoint", "command"):
            part = svc.get(key)
            if isinstance(part, list):
                words += [interpolated(w, f"services.{svc_name}.{key}[{k}]") for k, w in enumerate(part)]
            elif part:
                try:  # as docker compose: the string interpolated, then split as a shell line
                    words += shlex.split(interpolated(part, f"services.{svc_name}.{key}"), comments=True)
                except ValueError as exc:
                    raise InputError("--from", f"a service's command does not parse as a shell line ({exc})",
                                     "check its quotes") from None
        out.append((words, env, interpolated(svc["image"]) if svc.get("image") else None,
                    _compose_gpus(svc, f"services.{svc_name}", interpolated)))
    return out


def _compose_gpus(svc: dict, at: str, interpolated) -> Optional[tuple]:
    """(count, its field) of the GPUs a compose service reserves: the GPU entries of deploy.resources.reservations.
    devices (capabilities holding gpu), or of the service's `gpus:` list, each by its count or its device_ids (the
    Compose specification's deploy and services gpus sections); None where it reserves none, or `all` (the host's
    GPUs, a number kvplan cannot know: not checked)."""
    # each level of the path a map, the devices and gpus a list of maps (the Compose specification's schema, which
    # docker compose checks before it starts the service): another shape is refused by its field, not read as none
    node, where = svc, at
    for key in ("deploy", "resources", "reservations"):
        node, where = node.get(key), f"{where}.{key}"
        if node is None:
            break
        if not isinstance(node, dict):
            raise InputError(where, f"is {_shown(node)}, not a map", "write it as the Compose specification's "
                             "deploy: {resources: {reservations: {devices: [{capabilities: [gpu], count: 1}]}}}")
    gpus = svc.get("gpus")
    if gpus is not None and not isinstance(gpus, list) and str(gpus) != "all":
        raise InputError(f"{at}.gpus", f"is {_shown(gpus)}, not a list of GPU requests", "give gpus: all, or a "
                         "list: gpus: [{driver: nvidia, count: 1}]")
    places = [(f"{at}.deploy.resources.reservations.devices", node.get("devices") if isinstance(node, dict) else None),
              (f"{at}.gpus", gpus)]
    total, fields = 0, []
    for where, devices in places:
        if devices is not None and not isinstance(devices, list) and where.endswith("devices"):
            raise InputError(where, f"is {_shown(devices)}, not a list of device requests",
                             "give a list: devices: [{capabilities: [gpu], count: 1}]")
        for i, dev in enumerate(devices if isinstance(devices, list) else []):
            if not isinstance(dev, dict):
                raise InputError(f"{where}[{i}]", f"is {_shown(dev)}, not a device request (a map)",
                                 "give a map: {capabilities: [gpu], count: 1}")
            caps = dev.get("capabilities")
            if caps is not None and (not isinstance(caps, list) or not all(isinstance(c, str) for c in caps)):
                raise InputError(f"{where}[{i}].capabilities", f"is {_shown(caps)}, not a list of capability names",
                                 "give a list: capabilities: [gpu]")
            if where.endswith("devices") and "gpu" not in (caps or []):
                continue
            if dev.get("device_ids") is not None:
                ids = dev["device_ids"]
                if not isinstance(ids, list):
                    raise InputError(f"{where}[{i}].device_ids", f"is {ids!r}, not a list of device ids",
                                     'list them: device_ids: ["0", "1"]')
                total, fields = total + len(ids), fields + [f"{where}[{i}].device_ids"]
                continue
            count = dev.get("count")
            if count is None or str(interpolated(count, f"{where}[{i}].count")).strip().lower() == "all":
                return None  # every GPU of the host
            text = str(interpolated(count)).strip()
            if isinstance(count, bool) or not re.fullmatch(r"\d+", text) or int(text) < 1:
                raise InputError(f"{where}[{i}].count", f"is {_shown(count)}, not a whole number of GPUs",
                                 "give the GPUs the service reserves: count: 1 (or all)")
            total, fields = total + int(text), fields + [f"{where}[{i}].count"]
    return (total, " + ".join(fields)) if fields else None


# ---- a Kubernetes manifest ------------------------------------------------------------------------------------------
# where each workload kind holds its pod's spec (the Kubernetes API: Pod.spec, PodTemplate.template.spec, the
# template.spec of the controllers, CronJob's jobTemplate); other kinds (Service, PersistentVolumeClaim, ...) run nothing
_K8S_POD_SPEC = {"Pod": ("spec",), "PodTemplate": ("template", "spec"),
                 "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
                 **{kind: ("spec", "template", "spec") for kind in ("Deployment", "StatefulSet", "DaemonSet",
                                                                     "ReplicaSet", "ReplicationController", "Job")}}
_VLLM_IMAGE = re.compile(r"(?:^|/)vllm/vllm-openai(?:[:@]|$)")
_SHELLS = frozenset({"sh", "bash", "dash", "ash", "zsh", "ksh"})
_GPU_RESOURCE = "nvidia.com/gpu"
# the extended resources a container's limits take GPUs by: NVIDIA's device plugin's, and AMD's (ROCm/k8s-device-plugin,
# whose pods vLLM's ROCm images serve); a limit of either is the pod's GPUs
_GPU_RESOURCES = (_GPU_RESOURCE, "amd.com/gpu")


def _k8s_objects(text: str) -> Optional[list]:
    """The Kubernetes objects of `text` (YAML documents separated by ---, or JSON; a `kind: List`'s items): those with
    apiVersion and kind; None where there is none (or no YAML reader)."""
    try:
        import yaml

        docs = list(yaml.safe_load_all(text))
    except Exception as exc:
        docs = _json_manifest(text)
        if docs is None and _MANIFEST_KEYS.search(text) and re.search(r"^\s*\"?kind\"?\s*:", text, re.M):
            # read as no manifest, the text was refused as "no `vllm serve ...` command found", its error unsaid
            mark = getattr(exc, "problem_mark", None)
            raise InputError("--from", "the Kubernetes manifest (apiVersion, kind) is not valid YAML"
                             + (f": {exc.problem} at line {mark.line + 1}, column {mark.column + 1}"
                                if mark is not None and getattr(exc, "problem", None) else
                                ": nested too deeply" if isinstance(exc, RecursionError) else
                                f": {str(exc).split(';')[0][:120]}" if isinstance(exc, ValueError) else ""),
                             "fix the YAML there (`kubectl apply --dry-run=client -f FILE` names it too)") from None
        if docs is None:
            return None
    objs = []
    for doc in docs:
        if isinstance(doc, dict) and doc.get("kind") == "List" and isinstance(doc.get("items"), list):
            objs += [item for item in doc["items"] if isinstance(item, dict)]
        elif isinstance(doc, dict):
            objs.append(doc)
    objs = [o for o in objs if isinstance(o.get("kind"), str) and "apiVersion" in o]
    return objs or None


# a manifest's first key, as YAML (apiVersion: v1) or JSON ({"apiVersion": "v1", ...}) writes it
_MANIFEST_KEYS = re.compile(r'^\s*(?:\{\s*)?"?apiVersion"?\s*:', re.M)


def _json_manifest(text: str) -> Optional[list]:
    """`text` read as one JSON document (a tab PyYAML refuses is JSON's whitespace), None where it is no JSON."""
    from kvplan.inputs import json_loads

    if not text.lstrip().startswith("{"):
        return None
    try:
        return [json_loads(text)]
    except ValueError:
        return None


def _strings(container: dict, key: str, path: str) -> Optional[list[str]]:
    """A container's command or args: a list of strings, as the Kubernetes API takes it (a number or a shell line
    refused, naming the field: the API server refuses them too)."""
    value = container.get(key)
    if value is None:
        return None
    if not isinstance(value, list):
        raise InputError(f"{path}.{key}", f"is {_shown(value)}, not a list of strings (Kubernetes runs the words as given, "
                         "with no shell)", f'write it as a list: {key}: ["vllm", "serve"]' if key == "command"
                         else f'write it as a list: {key}: ["MODEL", "--max-model-len", "8192"]')
    for k, word in enumerate(value):
        if not isinstance(word, str):
            raise InputError(f"{path}.{key}[{k}]", f"is {_shown(word)}, not a string (the Kubernetes API refuses a number or a "
                             "boolean there)", f'quote it: "{_scalar(word)}"' if _scalar(word) is not None
                             else "write each word as one string")
    return value


def _expanded(text: str, lookup, field: str) -> str:
    """`text` with its `$(VAR)` references expanded as the kubelet expands them (launch_vars.expand_kubernetes); a result
    longer than one exec argument or environment string may be (launch_vars.MAX_ARG_STRLEN) refused naming `field`:
    the container cannot start with it, and env values that each hold the previous one twice grow past any memory."""
    from kvplan.launch_vars import MAX_ARG_STRLEN, ExpansionTooLong, expand_kubernetes

    try:
        return expand_kubernetes(text, lookup, limit=MAX_ARG_STRLEN)
    except ExpansionTooLong:
        raise InputError(field, f"expands ($(VAR) references replaced) to more than {MAX_ARG_STRLEN:,} characters, "
                         "longer than Linux lets one argument or environment variable be (MAX_ARG_STRLEN): the "
                         "container cannot start with it", "write the value out, or reference each variable once") from None


def _shown(value) -> str:
    """A manifest's value as an error quotes it: its repr, cut to 80 characters (a 10,000-word list is not echoed)."""
    import reprlib

    shown = reprlib.Repr()  # bounded in depth and items: a YAML alias bomb (lists of lists by reference) is no 9**9 text
    shown.maxlevel, shown.maxstring, shown.maxother = 3, 60, 60
    text = shown.repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _scalar(value) -> Optional[str]:
    """A number or boolean as YAML writes it (true, 8192), for a fix that quotes it; None for a list or map."""
    if isinstance(value, bool):
        return str(value).lower()
    return str(value) if isinstance(value, (int, float)) and len(str(value)) <= 40 else None


def _entries(container: dict, key: str, path: str) -> list:
    """A container's env or envFrom: a list (absent or null: none), as the Kubernetes API takes it; anything else (a
    number, a string, a map) refused naming the field, where it was iterated as entries or read as none."""
    value = container.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        example = "[{name: VLLM_USE_V1, value: \"1\"}]" if key == "env" else "[{secretRef: {name: NAME}}]"
        raise InputError(f"{path}.{key}", f"is {_shown(value)}, not a list (the Kubernetes API takes a list of entries)",
                         f"write it as a list: {key}: {example}, or leave it out")
    return value


def _runs_vllm(container: dict) -> bool:
    """The container is the vLLM server: its command runs vllm serve, or it runs the vllm/vllm-openai image's
    entrypoint (no command). (Its words are checked as the API takes them only where it is: another container's are
    no input of the plan.)"""
    command, args = container.get("command"), container.get("args")
    image = container.get("image")
    if (command is None or not isinstance(command, list)) and _VLLM_IMAGE.search(image if isinstance(image, str) else ""):
        return True  # (a command that is no list: refused by _strings, naming it, not passed over as no vLLM's)
    words = [w if isinstance(w, str) else "" for part in (command, args)  # (str() of a nested alias could be endless)
             for w in (part if isinstance(part, list) else [part] if part else [])]
    return is_serve_line(" ".join(words))


def _manifest_command(source: str, objs: list, values, gpu_resource: str = _GPU_RESOURCE
                      ) -> tuple[list[str], str, tuple[str, ...]]:
    """The vLLM container of a Kubernetes manifest (a Deployment, StatefulSet, Pod, Job, ...; several documents read):
    its command and args joined as Kubernetes joins them (command replaces the image's ENTRYPOINT, args its CMD),
    `$(VAR)` expanded from its env as the kubelet expands it (launch_vars.expand_kubernetes), a shell wrapper
    (`sh -c "vllm serve ..."`) read as bash runs it; its env for the plan's environment, its image for the release and
    its nvidia.com/gpu limit for gpus_checked, the GPU product its pod is pinned to for gpu_pinned."""
    from kvplan.api import MODELLED_ENV

    found, kinds = [], []
    for obj in objs:
        kinds.append(obj["kind"])
        spec_path = _K8S_POD_SPEC.get(obj["kind"]) or _lws_leader_path(obj)
        spec = obj
        for key in spec_path or ():
            spec = spec.get(key) if isinstance(spec, dict) else None
        containers = spec.get("containers") if isinstance(spec, dict) else None
        if not spec_path or not isinstance(containers, list):
            continue
        name = (obj.get("metadata") or {}).get("name") if isinstance(obj.get("metadata"), dict) else None
        name = name if isinstance(name, str) else None
        what = f"{obj['kind']} {name}" if name else obj["kind"]
        for i, c in enumerate(containers):
            path = ".".join(spec_path) + f".containers[{i}]"
            if isinstance(c, dict) and _runs_vllm(c):
                found.append((what, path, c, spec, ".".join(spec_path), obj))
    if not found:
        raise InputError("--from", f"{source} has no container that runs vLLM (the vllm/vllm-openai image, or a "
                         f"`vllm serve` command) in its {', '.join(kinds)}",
                         "give the manifest of the Deployment (or Pod, StatefulSet, Job, LeaderWorkerSet) whose "
                         "container serves the "
                         "model, or its command in quotes")
    if len(found) > 1:
        raise InputError("--from", f"{source} has {len(found)} containers that run vLLM ("
                         + ", ".join(f"{what}: {path}" for what, path, *_ in found)
                         + "); which one is planned would be a guess",
                         "give a manifest with the one vLLM container, or its command in quotes")
    what, path, c, spec, spec_at, obj = found[0]
    where = f"{source} ({what})"
    pin = _gpu_products(spec, spec_at)
    # a MIG slice's resource in its limits (the mixed MIG strategy): the pod's GPU
    values.gpu_pin = None if pin is None else (pin[0], pin[1], _mig_resource(c, path), pin[2])
    given = dict(values.sources[0][1]) if values.sources else {}  # kvplan's --env
    literal: dict = _lws_env(obj)  # the env's values (name/value pairs), expanded as the kubelet expands them, in order
    unknown = values.k8s_unknown
    for j, e in enumerate(_entries(c, "env", path)):
        field_j = f"{path}.env[{j}]"
        if not isinstance(e, dict) or not isinstance(e.get("name"), str) or not e["name"].strip():
            raise InputError(field_j, "has no name", "give each env entry a name: and a value: (or valueFrom:)")
        name = e["name"]
        if name in _lws_env(obj):  # LWS's own, which its webhook puts first in place of this one
            continue
        if e.get("valueFrom") is not None:
            ref = e["valueFrom"]
            how = next(iter(ref)) if isinstance(ref, dict) and ref else "valueFrom"
            unknown[name] = (field_j, f"valueFrom.{how}")
            literal.pop(name, None)
            continue
        value = e.get("value", "")
        if value is None:
            value = ""
        if not isinstance(value, str):
            raise InputError(f"{field_j}.value", f"is {_shown(value)}, not a string (the Kubernetes API refuses a number or "
                             "a boolean there)", f'quote it: value: "{_scalar(value)}"' if _scalar(value) is not None
                             else "write the value as one string")
        deps = [n for n in re.findall(r"\$\(([^)]*)\)", value) if n in unknown and n not in literal]
        if deps:  # a value built from a secret's: as unknown as it
            unknown[name] = (field_j, f"$({deps[0]}), {unknown[deps[0]][1]} at {unknown[deps[0]][0]}")
            literal.pop(name, None)
            continue
        def known(ref: str, at: str = f"{field_j}.value") -> Optional[str]:
            if ref not in literal:
                values.k8s_refs.setdefault(ref, at)  # kept as written in the value: named where it is planned
            return literal.get(ref)
        literal[name] = _expanded(value, known, f"{field_j}.value")
        unknown.pop(name, None)
    env_from = []
    for j, e in enumerate(_entries(c, "envFrom", path)):
        if not isinstance(e, dict):  # the API's EnvFromSource: a map naming a configMapRef or a secretRef
            raise InputError(f"{path}.envFrom[{j}]", f"is {_shown(e)}, not a map (the Kubernetes API takes each "
                             "envFrom entry as a map with configMapRef or secretRef)",
                             "write it as a map: - configMapRef: {name: NAME} (or secretRef: {name: NAME}), or "
                             "leave it out")
        env_from.append(f"{path}.envFrom[{j}]")

    def lookup_at(field: str):
        def lookup(name: str) -> Optional[str]:
            if name in literal:
                values.note(f"$({name})", literal[name], f"{path}.env")
                return literal[name]
            if (name in unknown or env_from) and name in given:
                values.from_env.add(name)
                values.note(f"$({name})", given[name], "--env")
                return given[name]
            values.k8s_refs.setdefault(name, field)
            return None
        return lookup

    command = [_expanded(w, lookup_at(f"{path}.command[{k}]"), f"{path}.command[{k}]")
               for k, w in enumerate(_strings(c, "command", path) or [])]
    args = [_expanded(w, lookup_at(f"{path}.args[{k}]"), f"{path}.args[{k}]")
            for k, w in enumerate(_strings(c, "args", path) or [])]
    if env_from:  # a variable the manifest does not define may be one of these
        for name in values.k8s_refs:
            unknown.setdefault(name, (env_from[0], "envFrom"))
    for name, (field_j, how) in unknown.items():  # a variable the plan reads, of a value kvplan cannot know
        if name in MODELLED_ENV and name not in given:
            raise InputError(field_j, f"{where}: {name} is set from {how}, whose value kvplan cannot know, and the "
                             "plan reads it", f"give --env {name}=VALUE (the value it holds)")
    if env_from:
        read_as_env = (f"{', '.join(env_from)}: variables kvplan cannot read (a configMap's or secret's); the plan "
                       "takes none of them (give a VLLM_* one it reads with --env)",)
    else:
        read_as_env = ()
    values.environment.update({k: v for k, v in literal.items()})
    if c.get("image") is not None and not isinstance(c["image"], str):  # the API refuses it; str() of it pins nothing
        raise InputError(f"{path}.image", f"is {_shown(c['image'])}, not a string (the Kubernetes API takes the image's name)",
                         'write it as one string: image: "vllm/vllm-openai:v0.11.0"')
    values.image = c["image"] if c.get("image") else None
    values.gpu_limit = _gpu_limit(c, path)
    values.gpu_group = _lws_group(obj, values.gpu_limit)
    read_as: tuple[str, ...] = read_as_env
    if values.gpu_limit is None:
        read_as += (f"{path} sets no resources.limits[\"{gpu_resource}\"]: the GPUs the pod gets are not checked "
                    "against the plan's",)
    read_as += _lws_worker_notes(obj)
    if not command:  # the image's ENTRYPOINT with args (its CMD replaced)
        if not args or not args[0].startswith("-"):
            raise InputError(f"{path}.command", f"{where} sets no command, so the vllm/vllm-openai image's entrypoint "
                             "runs with " + (f"args {shlex.join(args[:2])} ..." if args else "no args")
                             + ": the model is named by --model there on every release, and a first word that is no "
                             "flag would be a guess", 'set command: ["vllm", "serve"] (the model first in args), or '
                             "name the model with --model MODEL in args")
        serve = _flags_as_serve(args)
        if serve is None:
            raise InputError(f"{path}.args", f"{where}: the image's entrypoint runs with args that name no model with "
                             "--model", "add --model MODEL to args")
        return serve, f"{where}: {shlex.join(args)}", (IMAGE_ENTRYPOINT_NOTE,) + read_as
    words = command + args
    at = _shell_script_at(words)
    if at is not None:
        # a shell wrapper: its script runs with the container's environment (a secret's value from --env)
        values.sources = [(f"{path}.env", literal), ("--env", given if env_from else
                                                     {k: v for k, v in given.items() if k in unknown})]
        words = _script_words(words[at], values, words[at + 2:],  # `sh -c SCRIPT NAME ARGS...`: $0 is NAME, "$@" ARGS
                              (f"{path}.args" if c.get("args") else f"{path}.command", where))
        return words, f"{where}: {shlex.join(words)}", read_as
    command_line(shlex.join(words))
    return words, f"{where}: {shlex.join(words)}", read_as


def _shell_script_at(words: list[str]) -> Optional[int]:
    """The index of the script the words run, where they run a shell's script: `sh -c SCRIPT ...` (bash, dash, ...;
    -c with other options: -ec, -xc, and options before or after it: `bash -o pipefail -c SCRIPT`, as a Dockerfile's
    SHELL ["/bin/bash", "-o", "pipefail", "-c"] runs its shell form). bash(1): with -c, the script is the first
    argument that is no option; -o / +o / -O / +O and --rcfile / --init-file take the next word as their value."""
    if not words or Path(words[0]).name not in _SHELLS:
        return None
    i, reads_c = 1, False
    while i < len(words) and words[i][:1] in "-+" and words[i] not in ("-", "--", "+"):
        option = words[i]
        if re.fullmatch(r"-[A-Za-z]*c[A-Za-z]*", option):
            reads_c = True
        i += 2 if option in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file") else 1
    i += words[i:i + 1] == ["--"]
    return i if reads_c and i < len(words) else None


def shell_wrapped_command(tokens: list[str], values) -> Optional[list[str]]:
    """The words of the vllm serve command a `bash -c 'vllm serve ...'` line runs (after VAR=x prefixes, exec, nohup;
    `sh -c SCRIPT NAME ARGS`: "$@" the ARGS), as a container's shell wrapper is read; None for another command."""
    words = tokens[wrapper_prefix(tokens)[0]:]  # VAR=x, exec, nohup and the wrappers vllm serve itself may follow
    at = _shell_script_at(words)
    if at is None:
        return None
    return _script_words(words[at], values, words[at + 2:], ("--from", "the shell's script"))


def _script_words(script: str, values, positional: list[str] = (), positional_at: tuple[str, str] = ("", "")
                  ) -> list[str]:
    """The words of the one vllm serve command of a shell's script (`sh -c SCRIPT`: a Kubernetes container's command,
    a Dockerfile's shell form), as bash runs it: split into its simple commands (`ray start ...; vllm serve ...`: each
    its own line), one vllm serve command (else refused), its variables and arrays followed from `values` (no file
    read), its redirections dropped. `positional`: the script's arguments (`sh -c SCRIPT NAME ARGS...`), the "$@" of
    the vllm serve line; the script reading them elsewhere is refused naming `positional_at` (field, where)."""
    from kvplan.launch_vars import run_script, shell_words

    segments = command_segments(script)
    command_line("\n".join(segments))  # one vllm serve command, else refused
    arrays, line = run_script(segments, None, values, is_serve_line, read_files=False)
    if positional:  # "$@" of the vllm serve line is them (they were dropped: the command planned without them)
        rest = "\n".join(x for x in segments if x.strip() != line.strip())
        if re.search(r"\$\{?[@*#]|\$\{?[1-9]", rest):
            field_at, where = positional_at
            raise InputError(field_at, f"{where}: the script reads its arguments (\"$@\", $1, ...) outside its vllm "
                             "serve line, which kvplan does not follow",
                             "use \"$@\" on the vllm serve line alone, or write the flags in the script")
        arrays = {**arrays, "@": positional}
    return shell_words(without_redirections(line), values, arrays)


# GPU Feature Discovery's node label of a node's GPU (resolve.gpu_product_label reads its value); under the mixed MIG
# strategy a slice's is nvidia.com/mig-<profile>.product (NVIDIA/k8s-device-plugin internal/lm/mig-strategy.go)
_GFD_PRODUCT_KEY = re.compile(r"^nvidia\.com/(?:gpu|mig-[0-9a-z.+-]+)\.product$")
# AMD's node labeller's label of a node's GPU (ROCm/k8s-device-plugin cmd/k8s-node-labeller/main.go: amd.com/gpu.
# product-name, and beta.amd.com/gpu.product-name, its experimental prefix; resolve.amd_product_label reads its value)
_AMD_PRODUCT_KEY = re.compile(r"^(?:beta\.)?amd\.com/gpu\.product-name$")
_REQUIRED = "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"


def _product_key(key) -> Optional[str]:
    """'nvidia' for GPU Feature Discovery's product label, 'amd' for AMD's node labeller's; None for any other key."""
    if isinstance(key, str):
        if _GFD_PRODUCT_KEY.match(key):
            return "nvidia"
        if _AMD_PRODUCT_KEY.match(key):
            return "amd"
    return None


def _gpu_products(spec: dict, at: str) -> Optional[tuple]:
    """The GPU products the pod's nodes must have by a GPU Feature Discovery product label (or AMD's node labeller's
    amd.com/gpu.product-name): (the values, in order, the field that says so, and each value's labeller: 'nvidia' or
    'amd'), from its nodeSelector and its required node affinity (nodeSelectorTerms are ORed, a term's
    matchExpressions ANDed, and both with the nodeSelector: the Kubernetes API reference, NodeSelector /
    NodeSelectorRequirement); None where no product is required (a term without an `In` on the label, a NotIn, Exists
    or a preferred affinity pins none). A value the API refuses (no string), or a selection no node can meet, is
    refused naming the field."""
    selector = spec.get("nodeSelector") if isinstance(spec.get("nodeSelector"), dict) else {}
    pinned, field_at, labeller = None, None, {}
    examples = {"nvidia": "NVIDIA-L4", "amd": "AMD_Instinct_MI300X_OAM"}
    for key, value in selector.items():
        kind = _product_key(key)
        if kind:
            field_at = f'{at}.nodeSelector["{key}"]'
            if not isinstance(value, str):
                raise InputError(field_at, f"is {_shown(value)}, not a string (the Kubernetes API refuses a number or "
                                 "a boolean there)", f'quote it: "{_scalar(value) or examples[kind]}"')
            labeller.setdefault(value, kind)
            pinned = [value] if pinned is None else [v for v in pinned if v == value]
    terms, term_sets = _dig(spec, _REQUIRED + ".nodeSelectorTerms"), []
    for t, term in enumerate(terms if isinstance(terms, list) else []):
        allowed, allowed_at = None, None
        exprs = term.get("matchExpressions") if isinstance(term, dict) else None
        for k, e in enumerate(exprs if isinstance(exprs, list) else []):
            kind = _product_key(e.get("key")) if isinstance(e, dict) else None
            if not (kind and e.get("operator") == "In"):
                continue
            values_at = f"{at}.{_REQUIRED}.nodeSelectorTerms[{t}].matchExpressions[{k}].values"
            given = e.get("values")
            if not isinstance(given, list) or not given or not all(isinstance(v, str) for v in given):
                raise InputError(values_at, f"is {_shown(given)}, not a list of strings (operator In takes one value or "
                                 "more)", f'give the products as strings: values: ["{examples[kind]}"]')
            for v in given:
                labeller.setdefault(v, kind)
            allowed = list(given) if allowed is None else [v for v in allowed if v in given]
            allowed_at = values_at
        if allowed is None:  # this term lets the pod onto a node of any GPU
            term_sets = None
            break
        term_sets.append((allowed, allowed_at))
    if term_sets:
        affinity = list(dict.fromkeys(v for allowed, _ in term_sets for v in allowed))
        affinity_at = term_sets[0][1] if len(term_sets) == 1 else f"{at}.{_REQUIRED}.nodeSelectorTerms"
        if pinned is None:
            pinned, field_at = affinity, affinity_at
        else:
            pinned = [v for v in pinned if v in affinity]
            field_at = f"{field_at} and {affinity_at}"
    if pinned is None:
        return None
    if not pinned:
        raise InputError(field_at, "no GPU product meets both (nodeSelector and required node affinity, or two "
                         "requirements in one term, ask for different products): no node takes the pod",
                         "require the one product the pod runs on")
    products = tuple(dict.fromkeys(pinned))
    return products, field_at, tuple(labeller[v] for v in products)


def _mig_resource(container: dict, path: str) -> Optional[tuple]:
    """(profile, field) of the MIG slice the container's limits take as its own resource, nvidia.com/mig-<profile>
    (the device plugin's mixed MIG strategy, internal/lm/mig-strategy.go); None where they take none."""
    resources = container.get("resources") if isinstance(container.get("resources"), dict) else {}
    limits = resources.get("limits") if isinstance(resources.get("limits"), dict) else {}
    slices = [k for k in limits if isinstance(k, str) and k.startswith("nvidia.com/mig-")]
    return (slices[0][len("nvidia.com/mig-"):], f'{path}.resources.limits["{slices[0]}"]') if len(slices) == 1 else None


def _dig(obj, dotted: str):
    for key in dotted.split("."):
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj

def _gpu_limit(container: dict, path: str) -> Optional[tuple]:
    """The container's resources.limits["nvidia.com/gpu"] (or ["amd.com/gpu"]) as (count, its field); None where it
    sets none; both set refused (vLLM runs on one platform)."""
    from kvplan.resolve import MAX_GPU_COUNT

    resources = container.get("resources")
    for at, value in ((f"{path}.resources", resources),
                      (f"{path}.resources.limits", resources.get("limits") if isinstance(resources, dict) else None)):
        if value is not None and not isinstance(value, dict):  # was read as none: the GPU check skipped, unsaid
            raise InputError(at, f"is {_shown(value)}, not a map (the Kubernetes API takes resource names and quantities)",
                             f"write it as a map: resources: {{limits: {{{_GPU_RESOURCE}: 1}}}}")
    resources = container.get("resources") if isinstance(container.get("resources"), dict) else {}
    limits = resources.get("limits") if isinstance(resources.get("limits"), dict) else {}
    given = [r for r in _GPU_RESOURCES if limits.get(r) is not None]
    if not given:
        return None
    fields = [f'{path}.resources.limits["{r}"]' for r in given]
    if len(given) > 1:
        raise InputError(" and ".join(fields), "take GPUs of two vendors; vLLM runs on one platform, so which GPUs "
                         "serve would be a guess", "keep the one limit of the GPUs the pod runs on")
    resource, field = given[0], fields[0]
    value = limits[resource]
    digits = str(value).strip() if isinstance(value, (int, str)) else ""
    if isinstance(value, bool) or not re.fullmatch(r"\d+", digits) or not digits.strip("0"):
        raise InputError(field, f"is {_shown(value)}, not a whole number of GPUs", f"give the GPUs the pod takes: {resource}: 1")
    if len(digits.lstrip("0")) > 6 or int(digits) > MAX_GPU_COUNT:  # 2**70 GPUs was planned, '... of them idle'
        raise InputError(field, f"is {digits[:12]}{'...' if len(digits) > 12 else ''}: more GPUs than any one pod "
                         f"holds (at most {MAX_GPU_COUNT:,})", f"give the GPUs the pod takes: {resource}: 1")
    return int(digits), field


_PARALLEL = ("tensor_parallel_size", "pipeline_parallel_size", "prefill_context_parallel_size", "data_parallel_size")


def gpus_checked(command: Optional[ServeCommand], flags, varied=()) -> Optional[ServeCommand]:
    """The command with a note on the GPUs its launch file gives it (a Kubernetes container's resources.limits
    ["nvidia.com/gpu"], a compose service's device reservation) and the ranks the plan runs (the command's parallel
    sizes, else those of `flags`, kvplan's), TP x PP x PCP x DP (one GPU each, as plan.Plan.gpus_used counts them); fewer
    GPUs than ranks refused, naming the field (the server cannot start as planned). Not checked where --vary varies a
    parallel size."""
    if command is not None and command.gpu_group is not None:
        return _group_gpus_checked(command, flags, varied)
    if command is None or command.gpus is None:
        return command
    count, field = command.gpus[:2]  # and the resource where the field does not name it (a Helm entry's requestGPU)
    resource = command.gpus[2] if len(command.gpus) > 2 else _resource_of(field)
    if set(varied) & set(_PARALLEL):
        return replace(command, read_as=command.read_as + (f"{field} = {count}: not checked against the ranks, "
                                                           "which --vary varies",))
    ranks_how = _plan_ranks(command, flags)
    if ranks_how is None:  # a size that is no number: the plan refuses it, naming the flag
        return command
    ranks, how = ranks_how
    # who holds the GPUs: a compose service, a `docker run` container (--gpus), a Kubernetes pod
    kind = ("compose" if field.startswith("services.") else "run" if field.endswith("--gpus") else
            "task" if field == "resources.accelerators" else "pod")
    holder = {"compose": "the service reserves", "run": "the container gets", "pod": "the pod gets",
              "task": "the task's nodes get"}[kind]
    if ranks > count:
        fix = {"compose": f"reserve {ranks} GPUs for the service (count: {ranks})", "run": f"give --gpus {ranks}",
               "pod": f"set {resource}: {ranks} in the container's limits",
               "task": f"ask for {ranks} GPUs (accelerators: NAME:{ranks}, or more nodes)"}[kind]
        raise InputError(field, f"is {count}: {holder} {count} GPU{'s' if count > 1 else ''}, and the command runs "
                         f"{ranks} ranks ({how}), one GPU each, so vLLM cannot start as planned",
                         f"{fix}, or plan parallel sizes whose product is {count}")
    if ranks < count:
        held = {"compose": "the service reserves", "run": "the container gets", "pod": "the pod holds",
                "task": "the task's nodes get"}[kind]
        note = f"{field} = {count}: {held} {count} GPUs and vLLM uses {ranks} ({how}); {count - ranks} of them idle"
    else:
        note = f"{field} = {count}: the GPUs of the plan's {ranks} rank{'s' if ranks > 1 else ''} ({how})"
    return replace(command, read_as=command.read_as + (note,))


def gpu_pinned(command: Optional[ServeCommand], flags, varied=(), *, plan_it: bool = True):
    """(flags, command, warnings): the GPU a Kubernetes pod is pinned to by GPU Feature Discovery's product label or
    AMD's node labeller's amd.com/gpu.product-name (ServeCommand.gpu_pin) planned where no --gpu is given (flags.gpu
    the catalog card the label names exactly, resolve.gpu_product_label / amd_product_label; a note names the field), and compared with the card --gpu names where one is (a
    different card: a warning naming both, the --gpu one planned). Refused, naming the field and the fix (--gpu): a label
    that names no catalog card or several, several products required, a MIG slice without its total (--gpu-gib).
    Not planned where --vary varies the GPU or `plan_it` is false (preflight checks this machine's GPU): a note then."""
    from kvplan.errors import KvplanError
    from kvplan.resolve import GIB, amd_product_label, find_gpu, gpu_product_label

    if command is None or command.gpu_pin is None:
        return flags, command, []
    products, field_at, mig, labellers = (command.gpu_pin + (None, None))[:4]
    labellers = labellers or ("nvidia",) * len(products)
    shown = products[0] if len(products) == 1 else "[" + ", ".join(products) + "]"
    labels = [amd_product_label(v) if by == "amd" else gpu_product_label(v) for v, by in zip(products, labellers)]
    if mig is not None:  # the node's card named, the pod given a MIG slice of it (mixed strategy): the slice planned
        labels = [gpu_product_label(f"{lab.value}-MIG-{mig[0]}") if lab.profile is None and not lab.shared
                  and by == "nvidia" else lab for lab, by in zip(labels, labellers)]
        shown += f" and {mig[1]}"
    named = ", ".join(f"{lab.value} ({lab.name})" if lab.name else lab.value for lab in labels)

    def noted(*notes):
        return replace(command, read_as=command.read_as + notes)

    if "gpu" in varied:
        return flags, noted(f"{field_at} = {shown}: not planned, --vary gpu names each row's GPU"), []
    given = (flags.gpu or "").strip()
    if not given and not plan_it:
        cards = ", ".join(lab.name or lab.value for lab in labels)
        return flags, noted(f"{field_at} = {shown}: the pod runs on {cards}; this machine's GPU is checked here "
                            "(give --gpu to plan the pod's)"), []
    if given.lower() == "auto" or (not given and getattr(flags, "gpu_kinds", None) is not None):
        return flags, noted(f"{field_at} = {shown}: the pod's GPU; --gpu auto searches the catalog's instead"), []
    if given:
        total = (round(flags.gpu_gib * GIB) if flags.gpu_gib else round(flags.gpu_gb * 10 ** 9) if flags.gpu_gb
                 else None)
        try:
            card = find_gpu(given, total_bytes=total)
        except KvplanError:  # no card, or a MIG slice without its total: the plan refuses it itself
            return flags, command, []
        if any(lab.name == card.name for lab in labels):  # the card, or the same MIG slice of it
            same = (f"the pod's GPU, as --gpu {given} names it" if len(labels) == 1
                    else f"--gpu {given} plans one of the pod's GPUs")
            return flags, noted(f"{field_at} = {shown}: {same}"), []
        unknown = [lab.value for lab in labels if not lab.ref]
        if len(unknown) == len(labels):
            return flags, noted(f"{field_at} = {shown}: names no catalog GPU exactly; the --gpu {given} card "
                                f"({card.name}) is planned"), []
        warning = (f"--gpu {given} plans the {card.name}, and {field_at} pins the pod to {named}: the plan is not of "
                   "the GPU the pod is scheduled on")
        return flags, noted(warning), [warning]
    fix = "give --gpu NAME for the card the pod runs on (`kvplan gpus` lists them)"
    if len(products) > 1:
        raise InputError(field_at, f"allows {len(products)} GPU products ({', '.join(products)}); which one is planned "
                         "would be a guess", fix + ", or require one product")
    lab = labels[0]
    if not lab.cards:
        spelled = ("AMD's node labeller's product-name label is the card's product name, spaces written '_' and "
                   "parentheses dropped" if labellers[0] == "amd" else
                   "GPU Feature Discovery's product label is the NVML device name, spaces written '-'")
        raise InputError(field_at, f"{lab.value!r} names no GPU in kvplan's catalog exactly ({spelled})"
                         + (f", nor a MIG {lab.profile} slice of a catalog card" if lab.profile else ""), fix)
    if len(lab.cards) > 1:
        raise InputError(field_at, f"{lab.value!r} names {len(lab.cards)} catalog GPUs (" + ", ".join(
            g.name for g in lab.cards) + "); which one is planned would be a guess", fix)
    if lab.profile and flags.gpu_gib is None and flags.gpu_gb is None:
        raise InputError(field_at, f"{lab.value!r} is a MIG {lab.profile} slice of the {lab.cards[0].name}: vLLM sees "
                         "the slice's memory, which its profile name does not state exactly",
                         "give the slice's total as vLLM logs it with --gpu-gib N (its 'Free memory on device (x/N "
                         "GiB)' line)")
    notes = [f"{field_at} = {shown}: planned on {lab.name}"]
    warnings = []
    if lab.shared:
        warnings.append(f"{field_at} = {shown}: time-slicing shares the {lab.cards[0].name} with other pods, whose "
                        "memory the plan does not count")
        notes += warnings
    return replace(flags, gpu=lab.ref), noted(*notes), warnings


# ---- a LeaderWorkerSet (kubernetes-sigs/lws, apiVersion leaderworkerset.x-k8s.io/v1) --------------------------------
# vLLM's multi-node deployment on Kubernetes (vLLM docs/deployment/frameworks/lws.md; lws docs/examples/vllm/GPU/lws.yaml):
# a group of spec.leaderWorkerTemplate.size pods (default 1), the leader from leaderTemplate (workerTemplate where it has
# none), the others from workerTemplate; the leader runs vllm serve, the workers join its Ray cluster, and vLLM places
# its TP x PP (x PCP x DP) ranks on the whole group's GPUs. LWS's pod webhook puts LWS_LEADER_ADDRESS, LWS_GROUP_SIZE
# and LWS_WORKER_INDEX (0 on the leader) first in every container's env, in place of the container's own of those
# names (lws pkg/utils/pod/pod_utils.go AddLWSVariables / addEnvVarsIfNotExists; docs/reference/labels-annotations-
# and-environment-variables.md), so $(LWS_GROUP_SIZE) and the script's $LWS_GROUP_SIZE are the group's size.
_LWS_API = "leaderworkerset.x-k8s.io/"
_LWS_TEMPLATE = "spec.leaderWorkerTemplate"


def _is_lws(obj: dict) -> bool:
    return obj.get("kind") == "LeaderWorkerSet" and str(obj.get("apiVersion") or "").startswith(_LWS_API)


def _lws_leader_path(obj: dict) -> Optional[tuple]:
    """Where a LeaderWorkerSet holds its leader pod's spec; None for another kind."""
    if not _is_lws(obj):
        return None
    template = _dig(obj, _LWS_TEMPLATE)
    which = "leaderTemplate" if isinstance(template, dict) and template.get("leaderTemplate") is not None else "workerTemplate"
    return ("spec", "leaderWorkerTemplate", which, "spec")


def _lws_size(obj: dict) -> tuple[int, str]:
    field_at = f"{_LWS_TEMPLATE}.size"
    value = _dig(obj, field_at)
    if value is None:
        return 1, field_at
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(field_at, f"is {_shown(value)}, not a whole number of pods (the LeaderWorkerSet API takes an "
                         "integer, 1 or more)", "give the pods of each group: size: 2")
    from kvplan.resolve import MAX_GPU_COUNT

    if value > MAX_GPU_COUNT:  # each pod one GPU or more: a group past any deployment, as a pod's limit past any pod
        raise InputError(field_at, f"is {value:,} pods, more than any one deployment spans (at most {MAX_GPU_COUNT:,} "
                         "GPUs)", "give the pods of each group: size: 2")
    return value, field_at


def _lws_env(obj: dict) -> dict:
    """The variables LWS's webhook gives the leader's containers whose value the manifest says (LWS_LEADER_ADDRESS
    names the group's DNS name, no input of the plan: left undefined); {} for another kind."""
    if not _is_lws(obj):
        return {}
    return {"LWS_GROUP_SIZE": str(_lws_size(obj)[0]), "LWS_WORKER_INDEX": "0"}


def _lws_worker_notes(obj: dict) -> tuple[str, ...]:
    """A note for each container of a LeaderWorkerSet's workerTemplate (where a leaderTemplate is the leader) that
    runs the vLLM server itself (a `vllm serve` command, or the vllm/vllm-openai image's entrypoint) rather than
    joining the leader's (ray start): its flags are not the plan's, which is the leader's command."""
    if not _is_lws(obj) or not isinstance(_dig(obj, _LWS_TEMPLATE), dict) or \
            _dig(obj, f"{_LWS_TEMPLATE}.leaderTemplate") is None:
        return ()
    at = f"{_LWS_TEMPLATE}.workerTemplate.spec.containers"
    containers = _dig(obj, at)
    return tuple(f"{at}[{i}] runs vLLM's server in each worker pod too: its flags are not read (the plan is the "
                 "leader's command); a worker started with other flags holds other memory"
                 for i, c in enumerate(containers if isinstance(containers, list) else [])
                 if isinstance(c, dict) and _runs_vllm(c))


def _lws_group(obj: dict, leader: Optional[tuple]) -> Optional[tuple]:
    """(size, its field, the leader's GPU limit, a worker pod's: each (count, field) or None) of a LeaderWorkerSet;
    a worker pod's GPUs are its containers' limits together; None for another kind."""
    if not _is_lws(obj):
        return None
    size, size_at = _lws_size(obj)
    template = _dig(obj, _LWS_TEMPLATE)
    if template.get("leaderTemplate") is None:  # the leader is a pod of workerTemplate, as the workers are
        return size, size_at, leader, leader
    at = f"{_LWS_TEMPLATE}.workerTemplate.spec.containers"
    containers = _dig(obj, at)
    limits = [_gpu_limit(c, f"{at}[{i}]") for i, c in enumerate(containers if isinstance(containers, list) else [])
              if isinstance(c, dict)]
    limits = [lim for lim in limits if lim is not None]
    worker = (sum(n for n, _ in limits), " + ".join(f for _, f in limits)) if limits else None
    return size, size_at, leader, worker


def _plan_ranks(command: ServeCommand, flags) -> Optional[tuple]:
    """(ranks, how) the plan runs: TP x PP x PCP x DP of the command (merged with `flags`); None where a size is no
    number (the plan refuses it, naming the flag)."""
    sizes = {}
    for name in _PARALLEL:
        value = command.planned.get(name, getattr(flags, name))
        try:
            sizes[name] = int(str(value)) if value is not None else 1
        except ValueError:
            return None
    shown = [n for n in _PARALLEL if n != "prefill_context_parallel_size" or sizes[n] > 1]
    ranks = 1
    for n in _PARALLEL:
        ranks *= sizes[n]
    return ranks, (" x ".join(n.split("_parallel")[0].replace("_", " ") for n in shown) + " parallel = "
                   + " x ".join(str(sizes[n]) for n in shown))


def _group_gpus_checked(command: ServeCommand, flags, varied=()) -> ServeCommand:
    """gpus_checked for a LeaderWorkerSet: the group's GPUs (the leader's limit + size - 1 workers' limits) against
    the plan's ranks, which vLLM spans across the group's pods; fewer refused naming the fields, more noted as idle,
    a leader and workers given different limits said."""
    size, size_at, leader, worker = command.gpu_group

    def noted(*notes):
        return replace(command, read_as=command.read_as + notes)

    if set(varied) & set(_PARALLEL):
        return noted(f"{size_at} = {size}: the group's GPUs not checked against the ranks, which --vary varies")
    missing = [what for what, lim in (("the leader", leader), ("the workers", worker if size > 1 else leader))
               if lim is None]
    if missing:
        return noted(f"{size_at} = {size}: {' and '.join(missing)} set no GPU limit (nvidia.com/gpu or amd.com/gpu), "
                     "so the group's GPUs are not checked against the plan's ranks")
    ranks_how = _plan_ranks(command, flags)
    if ranks_how is None:
        return command
    ranks, how = ranks_how
    total = leader[0] + (size - 1) * worker[0]
    if size == 1:
        held, fields = f"{total}", leader[1]
    elif leader[0] == worker[0] and leader[1] == worker[1]:
        held, fields = f"{size} x {leader[0]} = {total}", f"{size_at} x {leader[1]}"
    else:
        held, fields = f"{leader[0]} + {size - 1} x {worker[0]} = {total}", f"{leader[1]} + ({size_at} - 1) x {worker[1]}"
    notes = ()
    if size > 1 and leader[0] != worker[0]:
        notes += (f"{leader[1]} = {leader[0]} and {worker[1]} = {worker[0]} differ: the leader pod and each worker pod "
                  "hold different GPUs",)
    pods = f"the group's {size} pods hold" if size > 1 else "the group's one pod holds"
    if ranks > total:
        per_pod = -(-ranks // size)
        raise InputError(fields, f"{size_at} = {size}: {pods} {held} GPUs, and the command runs {ranks} ranks ({how}), "
                         "one GPU each, which vLLM places across the group's pods, so vLLM cannot start as planned",
                         f"give each pod {per_pod} GPUs ({_resource_of(leader[1])}: {per_pod}), or more pods in the "
                         f"group (size), or plan parallel sizes whose product is {total}")
    if ranks < total:
        notes += (f"{fields}: {pods} {held} GPUs and vLLM uses {ranks} ({how}); {total - ranks} of them idle",)
    else:
        notes += (f"{fields}: {pods} {held} GPUs, those of the plan's {ranks} rank{'s' if ranks > 1 else ''} ({how}), "
                  "which vLLM places across the group's pods",)
    return noted(*notes)


def _resource_of(field_at: str) -> str:
    """The resource a limit's field names: nvidia.com/gpu in '...limits["nvidia.com/gpu"]'."""
    m = re.search(r'limits\["([^"]+)"\]', field_at)
    return m.group(1) if m else _GPU_RESOURCE


# ---- a values file of vLLM's Helm chart (vllm-project/production-stack) ----------------------------------------------
# The chart's helm/templates/deployment-vllm-multi.yaml (read at production-stack a6c01db0, the template last changed in
# 6d98f834) renders each servingEngineSpec.modelSpec[] entry (enabled unless `enabled: false`, no raySpec.enabled: that
# one is ray-cluster.yaml's) as a Deployment whose container "vllm" runs, as its `command:` list:
#   vllm serve MODEL_URL --host 0.0.0.0 --port CONTAINER_PORT        (/opt/venv/bin/vllm for lmcache/vllm-openai)
#   [--enable-lora] [--enable-auto-tool-choice] [--tool-call-parser P]
#   vllmConfig (a non-empty map): [--enable-chunked-prefill | --no-enable-chunked-prefill] (where the key is set),
#     --enable-prefix-caching where enablePrefixCaching is true, else --no-enable-prefix-caching (always one),
#     --max-model-len, --dtype, --tensor-parallel-size, --max-num-seqs, --gpu_memory_utilization, --max_loras,
#     --runner, --convert (each where its key is set), then extraArgs' words
#   [--revision modelRevision] [--kv-transfer-config {"kv_connector":"LMCacheConnectorV1",...} where
#     lmcacheConfig.enabled] [--chat-template /templates/chatTemplate]
# each value through sprig's `quote` (Go's %v: Helm reads a values file's numbers as float64, so 1000000 is written
# 1e+06). Its env: VLLM_USE_V1=0 where vllmConfig.v0 is "1", then servingEngineSpec.env and the entry's env (verbatim);
# its resources: the entry's resources, else requestGPU as requests and limits of requestGPUType (nvidia.com/gpu)
# (_helpers.tpl chart.resources). The container is then read as a manifest's is (_manifest_command), its fields named
# by the values keys they come from.
_HELM_TEMPLATE = "the chart's templates/deployment-vllm-multi.yaml"
# the vllmConfig keys the template writes as flags: key -> flag, as it spells them
_HELM_VLLM_FLAGS = {"maxModelLen": "--max-model-len", "dtype": "--dtype", "tensorParallelSize": "--tensor-parallel-size",
                    "maxNumSeqs": "--max-num-seqs", "gpuMemoryUtilization": "--gpu_memory_utilization",
                    "maxLoras": "--max_loras", "runner": "--runner", "convert": "--convert"}
_HELM_VLLM_READ = frozenset(_HELM_VLLM_FLAGS) | {"enableChunkedPrefill", "enablePrefixCaching", "extraArgs", "v0",
                                                 "prometheusMultiprocDir"}
# the entry's keys the template turns into the command, env or GPU resources (the others: the pod's metadata,
# storage, CPU and memory requests, scheduling: no vLLM flag, no GPU memory)
_HELM_READ = frozenset({"name", "enabled", "raySpec", "repository", "tag", "modelURL", "enableLoRA", "enableTool",
                        "toolCallParser", "vllmConfig", "modelRevision", "lmcacheConfig", "chatTemplate", "env",
                        "envFromSecret", "resources", "requestGPU", "requestGPUType", "affinity", "nodeSelectorTerms",
                        "nodeName"})
_HELM_CONTAINER = "spec.template.spec.containers[0]"
_HELM_POD = "spec.template.spec"


def _helm_values_doc(text: str) -> Optional[dict]:
    """`text` read as a values file of the production-stack chart (a servingEngineSpec mapping with a modelSpec
    list); None where it is not one."""
    if "servingEngineSpec" not in text:
        return None
    try:
        import yaml

        doc = yaml.safe_load(text)
    except Exception:
        return None
    spec = doc.get("servingEngineSpec") if isinstance(doc, dict) else None
    return doc if isinstance(spec, dict) and "modelSpec" in spec else None


def _chosen_yaml_file(source: str) -> Optional[tuple]:
    """(its path, its text, NAME, FILE) of the YAML file `source` names, alone or as FILE#NAME choosing an entry of it
    (a values file's modelSpec, a Ray Serve config's LLMConfig); None where it names none."""
    path, name = Path(source).expanduser(), None
    try:
        if not path.is_file() and "#" in source:
            head, _, tail = source.rpartition("#")
            if Path(head).expanduser().is_file():
                path, name, source = Path(head).expanduser(), tail, head
        if not path.is_file() or path.suffix not in (".yml", ".yaml"):
            return None
        return path, path.read_text(encoding="utf-8", errors="replace"), name, source
    except (OSError, ValueError):
        return None


def _helm_source(source: str, values, text_only: bool) -> Optional[tuple]:
    """read_source of a chart values file (`FILE`, `FILE#NAME` choosing the modelSpec entry NAME, or the file's
    text); None where `source` is none."""
    if not source or not source.strip():
        return None
    if "\n" in source:
        doc = _helm_values_doc(source)
        return _helm_command("the values file", doc, values, None) if doc is not None else None
    if text_only:
        return None
    chosen = _chosen_yaml_file(source)
    if chosen is None:
        return None
    _, text, name, source = chosen
    doc = _helm_values_doc(text)
    if doc is None:
        if name is not None:
            raise InputError("--from", f"{source} is no values file of vLLM's Helm chart (no servingEngineSpec."
                             f"modelSpec), so #{name} chooses nothing", f"give --from {source} alone")
        return None
    return _helm_command(source, doc, values, name)


def _go_value(value, key: str) -> str:
    """A values-file value as the template writes it (`{{ value }}`, `quote`: Go's %v of what Helm read, numbers as
    float64); refused by its key where that is no word vLLM reads as written (null, a map, Go's 1e+06)."""
    from decimal import Decimal

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        f = float(value)
        if f != f or f in (float("inf"), float("-inf")):
            raise InputError(key, f"is {value!r}, no number vLLM reads", "give a finite number")
        d = Decimal(repr(f)).normalize() if f else Decimal(0)
        if f and not -4 <= d.adjusted() < 6:  # Go's %v (strconv 'g', shortest): exponent form from 1e+06 / 1e-05 on
            digits = "".join(map(str, d.as_tuple().digits))
            go = (("-" if f < 0 else "") + digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
                  + f"e{'+' if d.adjusted() >= 0 else '-'}{abs(d.adjusted()):02d}")
            raise InputError(key, f"is {value!r}, which Helm reads as a float64 and the template writes as {go} "
                             "(Go's %v), a word vLLM's flag may not read", "give the flag in "
                             'vllmConfig.extraArgs as strings instead, e.g. ["--max-model-len", "1048576"]')
        return format(d, "f")
    if isinstance(value, str):
        if "{{" in value:
            raise InputError(key, f"is {value!r}, a Helm template expression left in the values file: Helm renders "
                             "no template in values, so the chart writes it as this text, whose meaning kvplan cannot "
                             "know", "write the value itself in the values file")
        return value
    if value is None:
        raise InputError(key, "is empty (null): the template writes the flag with no value", "give it a value, or "
                         "drop the key")
    raise InputError(key, f"is {_shown(value)}, not one value (the template writes Go's text of it)", "give one value")


def _go_true(value) -> bool:
    """A value's truth in a Go template (`if`): false, 0, null, an empty string, list or map are false."""
    return not (value is None or value is False or (isinstance(value, (int, float)) and value == 0)
                or (isinstance(value, (str, list, dict)) and not value))


def _helm_command(source: str, doc: dict, values, name: Optional[str]) -> tuple[list[str], str, tuple[str, ...]]:
    """The one modelSpec entry's vllm container, as the chart renders it (see this section's head), read as a manifest's
    container is; an error of a rendered field named by the values key it comes from."""
    serving = doc["servingEngineSpec"]
    if "enableEngine" in serving and not _go_true(serving["enableEngine"]):
        raise InputError("servingEngineSpec.enableEngine", f"is {serving['enableEngine']!r}: the chart renders no vLLM "
                         "Deployment", "set enableEngine: true")
    specs = serving.get("modelSpec")
    if not isinstance(specs, list) or not all(isinstance(s, dict) for s in specs):
        raise InputError("servingEngineSpec.modelSpec", "is no list of model entries", "give a list: modelSpec: "
                         "[{name: ..., modelURL: ..., repository: vllm/vllm-openai, tag: ...}]")
    for k, s in enumerate(specs):  # a name is one word (#NAME chooses by it); str() of a YAML alias bomb never ends
        if isinstance(s.get("name"), (list, dict)):
            raise InputError(f"servingEngineSpec.modelSpec[{k}].name", f"is {_shown(s['name'])}, not one name",
                             "give the entry's name as one string: name: qwen3")
    names = [str(s.get("name")) for s in specs]
    deployed = [i for i, s in enumerate(specs) if s.get("enabled") is not False]
    if name is not None:
        if name not in names:
            raise InputError("--from", f"{source} has no modelSpec entry named {name!r} (its entries: "
                             + (", ".join(names) or "none") + ")", f"give --from {source}#NAME with one of them")
        i = names.index(name)
        if i not in deployed:
            raise InputError(f"servingEngineSpec.modelSpec[{i}].enabled", f"is false: the chart deploys no {name}",
                             "set enabled: true, or choose another entry")
    elif len(deployed) == 1:
        i = deployed[0]
    else:
        raise InputError("--from", f"{source} has {len(deployed) or 'no'} modelSpec entr{'ies' if len(deployed) != 1 else 'y'}"
                         " the chart deploys" + (" (" + ", ".join(names[i] for i in deployed) + "); which one is "
                                                 "planned would be a guess" if deployed else ""),
                         (f"choose one by its name: --from {source}#{names[deployed[0]]}" if "\n" not in source
                          and source != "the values file" else "give the file with #NAME, or one entry")
                         if deployed else "set enabled: true on the entry to plan")
    spec, at = specs[i], f"servingEngineSpec.modelSpec[{i}]"
    ray = spec.get("raySpec")
    if isinstance(ray, dict) and _go_true(ray.get("enabled")):
        raise InputError(f"{at}.raySpec.enabled", "is true: the chart runs this model on a Ray cluster "
                         "(templates/ray-cluster.yaml), whose command kvplan does not read",
                         "plan the model's vllm serve command with --from 'vllm serve ...'")
    keys: list[str] = []  # the values key of each rendered command word

    def add(word: str, key: str) -> None:
        command.append(word)
        keys.append(key)

    for key in ("repository", "tag", "modelURL"):
        if spec.get(key) in (None, ""):
            raise InputError(f"{at}.{key}", "is not set: the chart requires it" if key != "modelURL"
                             else "is not set: the chart writes `vllm serve \"\"`", f"give {key}: ...")
    repository, tag = _go_value(spec["repository"], f"{at}.repository"), _go_value(spec["tag"], f"{at}.tag")
    command: list[str] = []
    add("/opt/venv/bin/vllm" if repository == "lmcache/vllm-openai" else "vllm", f"{at}.repository")
    add("serve", _HELM_TEMPLATE)
    add(_go_value(spec["modelURL"], f"{at}.modelURL"), f"{at}.modelURL")
    port = serving.get("containerPort", "8000")
    for word in ("--host", "0.0.0.0", "--port", _go_value(port if port not in (None, "") else "8000",
                                                          "servingEngineSpec.containerPort")):
        add(word, "servingEngineSpec.containerPort")
    if _go_true(spec.get("enableLoRA")):
        add("--enable-lora", f"{at}.enableLoRA")
    if _go_true(spec.get("enableTool")):
        add("--enable-auto-tool-choice", f"{at}.enableTool")
    if _go_true(spec.get("toolCallParser")):
        add("--tool-call-parser", f"{at}.toolCallParser")
        add(_go_value(spec["toolCallParser"], f"{at}.toolCallParser"), f"{at}.toolCallParser")
    vc = spec.get("vllmConfig")
    if vc is not None and not isinstance(vc, dict):
        raise InputError(f"{at}.vllmConfig", f"is {vc!r}, not a map", "give vllmConfig: {maxModelLen: 8192, ...}")
    vc = vc or {}
    notes: list[str] = []
    if vc:  # `with .vllmConfig`: an empty map writes none of these
        if "enableChunkedPrefill" in vc:
            add("--enable-chunked-prefill" if _go_true(vc["enableChunkedPrefill"]) else "--no-enable-chunked-prefill",
                f"{at}.vllmConfig.enableChunkedPrefill")
        add("--enable-prefix-caching" if _go_true(vc.get("enablePrefixCaching")) else "--no-enable-prefix-caching",
            f"{at}.vllmConfig.enablePrefixCaching")
        if "enablePrefixCaching" not in vc:
            notes.append(f"{at}.vllmConfig sets no enablePrefixCaching: {_HELM_TEMPLATE} writes "
                         "--no-enable-prefix-caching")
        for key, flag in _HELM_VLLM_FLAGS.items():
            if key in vc:
                add(flag, f"{at}.vllmConfig.{key}")
                add(_go_value(vc[key], f"{at}.vllmConfig.{key}"), f"{at}.vllmConfig.{key}")
        extra = vc.get("extraArgs")
        if _go_true(extra):
            if not isinstance(extra, list):
                raise InputError(f"{at}.vllmConfig.extraArgs", f"is {extra!r}, not a list of strings",
                                 'give a list: extraArgs: ["--kv-cache-dtype", "fp8"]')
            for k, word in enumerate(extra):
                add(_go_value(word, f"{at}.vllmConfig.extraArgs[{k}]"), f"{at}.vllmConfig.extraArgs[{k}]")
        unread = [k for k in vc if k not in _HELM_VLLM_READ]
        if unread:
            notes.append(f"{at}.vllmConfig." + f", {at}.vllmConfig.".join(map(str, unread)) + f": {_HELM_TEMPLATE} "
                         "writes no flag for " + ("it" if len(unread) == 1 else "them") + " (Helm ignores "
                         + ("it" if len(unread) == 1 else "them") + "; a vLLM flag goes in extraArgs)")
    if _go_true(spec.get("modelRevision")):
        add("--revision", f"{at}.modelRevision")
        add(_go_value(spec["modelRevision"], f"{at}.modelRevision"), f"{at}.modelRevision")
    lm = spec.get("lmcacheConfig") if isinstance(spec.get("lmcacheConfig"), dict) else {}
    v0 = "v0" in vc and _go_value(vc["v0"], f"{at}.vllmConfig.v0") == "1"
    if lm and _go_true(lm.get("enabled")):
        role = _go_value(lm["kvRole"], f"{at}.lmcacheConfig.kvRole") if _go_true(lm.get("kvRole")) else "kv_both"
        if "enablePD" in lm:
            rpc = _go_value(lm.get("nixlRole", ""), f"{at}.lmcacheConfig.nixlRole") if lm.get("nixlRole") is not None else ""
            config = ('{"kv_connector":"LMCacheConnectorV1","kv_role":"%s","kv_connector_extra_config":'
                      '{"discard_partial_chunks": false, "lmcache_rpc_port": "%s"}}' % (role, rpc))
        elif v0:
            config = '{"kv_connector":"LMCacheConnector","kv_role":"%s"}' % role
        else:
            config = '{"kv_connector":"LMCacheConnectorV1","kv_role":"%s"}' % role
        add("--kv-transfer-config", f"{at}.lmcacheConfig.enabled")
        add(config, f"{at}.lmcacheConfig.enabled")
        other = [k for k in lm if k not in ("enabled", "kvRole", "enablePD", "nixlRole")]
        if other:
            notes.append(f"{at}.lmcacheConfig: " + ", ".join(map(str, other)) + ": LMCache's own settings (its "
                         "LMCACHE_* variables: CPU / disk offloading, its controller), which the plan does not read")
    if _go_true(spec.get("chatTemplate")):
        add("--chat-template", f"{at}.chatTemplate")
        add(f"/templates/{_go_value(spec['chatTemplate'], f'{at}.chatTemplate')}", f"{at}.chatTemplate")
    # the container's env, as the template writes it (only what a plan or $(VAR) can read; HF_HOME and the like are
    # the chart's paths), each with the values key it comes from
    env: list = [{"name": "PYTHONHASHSEED", "value": "123"}]
    env_keys = [_HELM_TEMPLATE]
    if vc and v0:
        env.append({"name": "VLLM_USE_V1", "value": "0"})
        env_keys.append(f"{at}.vllmConfig.v0")
    if _go_true(spec.get("hf_token")):
        env.append({"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {}}})
        env_keys.append(f"{at}.hf_token")
    for where, entries in (("servingEngineSpec.env", serving.get("env")), (f"{at}.env", spec.get("env"))):
        if entries is None:
            continue
        if not isinstance(entries, list):
            raise InputError(where, f"is {entries!r}, not a list of env entries",
                             "give a list: - name: VLLM_USE_V1\n  value: \"1\"")
        for j, e in enumerate(entries):
            if isinstance(e, dict) and isinstance(e.get("value"), str) and "{{" in e["value"]:
                _go_value(e["value"], f"{where}[{j}].value")
            env.append(e)
            env_keys.append(f"{where}[{j}]")
    if lm and _go_true(lm.get("enabled")):
        env.append({"name": "VLLM_RPC_TIMEOUT", "value": "1000000"})
        env_keys.append(f"{at}.lmcacheConfig.enabled")
    env_from = []
    if _go_true(serving.get("configs")):
        env_from.append("servingEngineSpec.configs")
    if _go_true(spec.get("envFromSecret")):
        env_from.append(f"{at}.envFromSecret")
    # resources (_helpers.tpl chart.resources): the entry's own, else requestGPU as a limit of requestGPUType
    if _go_true(spec.get("resources")):
        resources, gpu_key, gpu_type = spec["resources"], None, _GPU_RESOURCE
    else:
        resources, gpu_key = {}, f"{at}.requestGPU"
        count = spec.get("requestGPU")
        gpu_type = spec.get("requestGPUType") or _GPU_RESOURCE
        for value, key in ((count, gpu_key), (gpu_type, f"{at}.requestGPUType")):
            if isinstance(value, (list, dict)):  # refused by its key, before str() writes it out
                _go_value(value, key)
        try:
            positive = count is not None and int(float(str(count))) > 0  # sprig's `int`
        except ValueError:
            positive = False
        if positive:
            resources = {"limits": {str(gpu_type): _go_value(count, gpu_key)}}
    pod: dict = {"containers": [{"name": "vllm", "image": f"{repository}:{tag}", "command": command, "env": env,
                                 "envFrom": [{}] * len(env_from), "resources": resources}]}
    if _go_true(spec.get("affinity")):
        pod["affinity"] = spec["affinity"]
    elif _go_true(spec.get("nodeSelectorTerms")) and not _go_true(spec.get("nodeName")):
        pod["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": spec["nodeSelectorTerms"]}}}
    for k, word in enumerate(command):
        if "{{" in word:
            _go_value(word, keys[k])
    renames = [(f"{_HELM_CONTAINER}.command[{k}]", key) for k, key in enumerate(keys)]
    renames += [(f"{_HELM_CONTAINER}.env[{j}]", key) for j, key in enumerate(env_keys)]
    renames += [(f"{_HELM_CONTAINER}.envFrom[{j}]", key) for j, key in enumerate(env_from)]
    renames += [(f'{_HELM_CONTAINER}.resources.limits["{r}"]', gpu_key or f'{at}.resources.limits["{r}"]')
                for r in _GPU_RESOURCES]
    renames += [(f"{_HELM_CONTAINER}.resources", f"{at}.resources"),
                (f"{_HELM_POD}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms",
                 f"{at}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
                 if _go_true(spec.get("affinity")) else f"{at}.nodeSelectorTerms"),
                (f"{_HELM_POD}.affinity", f"{at}.affinity"), (f"{_HELM_CONTAINER}.env", f"{at}.env"),
                (_HELM_CONTAINER, f"{at} ({_HELM_TEMPLATE}'s vllm container)")]
    where = f"{source}: {at} ({spec.get('name')})"
    renames.append((f"{where} (Deployment)", where))
    pattern = re.compile("|".join(re.escape(old) for old, _ in sorted(renames, key=lambda r: -len(r[0]))))
    table = dict(renames)

    def renamed(text):
        return pattern.sub(lambda m: table[m.group(0)], text) if isinstance(text, str) else text

    obj = {"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"template": {"spec": pod}}}
    try:
        words, shown, read_as = _manifest_command(where, [obj], values, str(gpu_type))
    except InputError as exc:
        raise InputError(renamed(exc.field), renamed(exc.message), renamed(exc.fix)) from None
    # the limit's resource kept (requestGPUType: amd.com/gpu), as its field is renamed requestGPU
    values.gpu_limit = ((values.gpu_limit[0], renamed(values.gpu_limit[1]), _resource_of(values.gpu_limit[1]))
                        if values.gpu_limit else None)
    if values.gpu_pin is not None:
        values.gpu_pin = tuple(renamed(p) if isinstance(p, str) else
                               tuple(renamed(q) for q in p) if isinstance(p, tuple) else p for p in values.gpu_pin)
    values.k8s_refs.update({k: renamed(v) for k, v in values.k8s_refs.items()})
    values.k8s_unknown.update({k: tuple(renamed(x) for x in v) for k, v in values.k8s_unknown.items()})
    values.read[:] = [renamed(r) for r in values.read]
    shown = renamed(shown)
    other = sorted(str(k) for k in spec if k not in _HELM_READ)
    if other:
        notes.append(f"{at}: {', '.join(other)}: {_HELM_TEMPLATE} writes no vLLM flag of "
                     + ("it" if len(other) == 1 else "them") + "; not planned with, as they move no GPU memory (the "
                     "pod's replicas, CPU, memory, storage, labels)")
    read_as = tuple(renamed(r) for r in read_as if r != IMAGE_ENTRYPOINT_NOTE)
    return words, shown, (f"read as {_HELM_TEMPLATE} (vllm-project/production-stack) renders {at}",) + read_as + tuple(notes)


# ---- a Dockerfile ----------------------------------------------------------------------------------------------------
# The container a Dockerfile builds runs its last stage's ENTRYPOINT with its CMD (the Dockerfile reference,
# docs.docker.com/reference/dockerfile: "Understand how CMD and ENTRYPOINT interact"): an exec-form ENTRYPOINT
# (a JSON list) gets the CMD appended (an exec-form CMD's words, a shell-form one as /bin/sh -c TEXT), a shell-form
# ENTRYPOINT runs `/bin/sh -c TEXT` and ignores CMD; a stage without either inherits its base's (another stage, or the
# image: the vllm/vllm-openai image's ENTRYPOINT is `vllm serve`, IMAGE_ENTRYPOINT_NOTE), and an ENTRYPOINT set in a
# stage resets a CMD inherited from the base. Variables ($VAR, ${VAR:-default}, ${VAR:+alt}) are replaced in FROM, ENV
# and ARG (from the ARGs before and the ENVs so far; --env standing for `docker build --build-arg`; an ARG before the
# first FROM is seen in a stage only where the stage declares it again, `ARG NAME`; an unset one is empty, and a value
# past MAX_ARG_STRLEN refused), never in an exec-form CMD / ENTRYPOINT (no shell runs it); a shell form's shell reads
# the ENV at run time. ARG declares one or more NAME[=DEFAULT]; the legacy `ENV NAME VALUE` takes the rest of the line,
# its quotes removed. A line whose first word is no instruction (a typo, `CMD["x"]`) is refused, as docker build stops
# on it; a UTF-8 byte order mark is dropped. A malformed JSON list
# is a shell form. SHELL sets the shell-form prefix. `pip install vllm==X.Y.Z` in a RUN pins the release as an image tag
# does. Line continuations end in the escape character (`\`, or the `# escape=` directive's), comment lines are dropped
# (inside a continuation too), a here-document's body (RUN <<EOF ... EOF) is no instruction.
_DOCKERFILE_NAME = re.compile(r"^(?:Dockerfile|Containerfile)(?:\.[\w.-]+)?$|\.(?:Dockerfile|Containerfile)$", re.I)
_DOCKER_INSTRUCTIONS = frozenset({"FROM", "RUN", "CMD", "LABEL", "MAINTAINER", "EXPOSE", "ENV", "ADD", "COPY",
                                  "ENTRYPOINT", "VOLUME", "USER", "WORKDIR", "ARG", "ONBUILD", "STOPSIGNAL",
                                  "HEALTHCHECK", "SHELL"})
_HEREDOC = re.compile(r"<<(-?)[\"']?([A-Za-z_][A-Za-z0-9_]*)[\"']?")
_PIP_VLLM = re.compile(r"\bpip3?\s+install\b[^;&|\n]*?(?<![\w.-])[\"']?vllm(?:\[[^\]]*\])?==(\d+\.\d+\.\d+(?:\.post\d+|\.\d+)?)\b")


def _dockerfile_instructions(text: str) -> list[tuple[int, str, str]]:
    """(line, INSTRUCTION, its text) of each instruction of a Dockerfile, continuations joined; a line of no
    instruction gives its first word as INSTRUCTION (docker build stops on it: 'unknown instruction')."""
    lines = text.removeprefix("\ufeff").splitlines()  # a UTF-8 byte order mark: BuildKit's parser drops it
    escape = "\\"
    for number, line in enumerate(lines, 1):  # parser directives: comments `# name=value` before anything else
        m = re.match(r"^\s*#\s*([a-zA-Z]+)\s*=\s*(\S+)\s*$", line)
        if not m:
            break
        if m.group(1).lower() == "escape":
            if m.group(2) not in ("\\", "`"):  # docker build: 'invalid escape token ... does not match ` or \\'
                raise InputError(f"Dockerfile line {number} (# escape=)", f"the escape character "
                                 f"{m.group(2)[:20]!r} is neither \\ nor `, which docker build stops on",
                                 "write # escape=\\ or # escape=`, or remove the line")
            escape = m.group(2)
    out, i = [], 0
    while i < len(lines):
        start, line = i + 1, lines[i]
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [line]
        while parts[-1].rstrip().endswith(escape):  # at the file's end too: the instruction ends there
            parts[-1] = parts[-1].rstrip()[:-1]
            while i < len(lines) and (not lines[i].strip() or lines[i].lstrip().startswith("#")):
                i += 1  # comment and empty lines inside a continuation: dropped, the instruction goes on
            if i < len(lines):
                parts.append(lines[i])
                i += 1
        joined = " ".join(p.strip() for p in parts)
        m = re.match(r"^\s*(\S+)(?:\s+(.*))?$", joined, re.S)  # the instruction: its first word (`CMD["x"]` is one)
        body = (m.group(2) or "").strip()
        # RUN / COPY / ADD <<EOF (the instructions BuildKit reads here-documents of): its body lines, up to the
        # terminator, are no instructions; one with no terminator docker build stops on ('unterminated heredoc')
        for doc in _HEREDOC.finditer(body) if m.group(1).upper() in ("RUN", "COPY", "ADD") else ():
            strip_tabs, word = doc.group(1), doc.group(2)
            while i < len(lines) and (lines[i].lstrip("\t") if strip_tabs else lines[i]).rstrip("\r") != word:
                i += 1
            if i >= len(lines):
                raise InputError(f"Dockerfile line {start} ({m.group(1).upper()[:40]})", f"the here-document <<{word} "
                                 f"has no line {word} ending it, which docker build stops on (unterminated heredoc)",
                                 f"end it with a line holding {word} alone")
            i += 1
        out.append((start, m.group(1).upper(), body))
    return out


def looks_like_dockerfile(text: str) -> bool:
    """Whether `text` reads as a Dockerfile: a FROM, and every instruction one of the Dockerfile's."""
    try:
        steps = _dockerfile_instructions(text)
    except InputError:  # a parser directive docker build stops on: read as a Dockerfile, which refuses it
        return re.search(r"^\s*FROM\s", text, re.M | re.I) is not None
    return (any(name == "FROM" for _, name, _ in steps)
            and all(name in _DOCKER_INSTRUCTIONS for _, name, _ in steps))


def _docker_form(body: str, shell: list) -> tuple[list, bool]:
    """(the words, exec form?) of a CMD / ENTRYPOINT / SHELL: a JSON list of strings as it is, else the shell form
    `SHELL... TEXT` (a malformed list too, as Docker runs it)."""
    if body.startswith("["):
        import json

        try:
            words = json.loads(body)
        except ValueError:
            words = None
        if isinstance(words, list) and all(isinstance(w, str) for w in words):
            return words, True
    return [*shell, body], False


def _dockerfile_command(source: str, text: str, values) -> tuple[list[str], str, tuple[str, ...]]:
    """The command the container of a Dockerfile's last stage runs, as read_source gives it; its ENV as the server's
    environment, its base image (or a pip pin of vllm) as the release."""
    from kvplan.launch_vars import MAX_ARG_STRLEN, ExpansionTooLong, Values, expand, shell_words

    given = dict(values.sources[0][1]) if values.sources else {}  # kvplan's --env: --build-arg / docker run -e
    stages: dict = {}
    stage = None
    count = 0
    global_args: dict = {}
    notes: list[str] = []

    def substituted(raw: str, scope: dict, where: str, unset: Optional[str] = None) -> str:
        """`raw` with its variables replaced from `scope` (--env first); a name with no value kept as written, or
        `unset` ("": a stage's ENV, ARG and RUN, as docker build replaces an unset variable with nothing)."""
        try:
            read = Values(sources=[("--env", given), (where, scope)])
            text = expand(raw, read, compose=True, limit=MAX_ARG_STRLEN)
            if read.missing and unset is not None:
                read = Values(sources=[("--env", given), (where, scope), ("", dict.fromkeys(read.missing, unset))])
                text = expand(raw, read, compose=True, limit=MAX_ARG_STRLEN)
            return text
        except InputError as exc:
            raise InputError(where, exc.message, exc.fix) from None
        except ExpansionTooLong:
            raise InputError(where, f"expands (its variables replaced) to more than {MAX_ARG_STRLEN:,} characters, "
                             "longer than Linux lets one argument or environment variable be (MAX_ARG_STRLEN): the "
                             "container cannot start with it", "write the value out, or reference each variable "
                             "once") from None

    def unset_empty(raw: str, scope: dict, where: str) -> Values:
        """The values `raw`'s shell words are read with: --env, then `scope`, then nothing for a name neither has."""
        read = Values(sources=[("--env", given), (where, scope)])
        expand(raw, read, compose=True, limit=MAX_ARG_STRLEN)
        return Values(sources=[("--env", given), (where, scope), ("", dict.fromkeys(read.missing, ""))])

    for line, name, body in _dockerfile_instructions(text):
        where = f"{Path(source).name if source != 'the Dockerfile' else source} line {line} ({name[:40]})"
        if name not in _DOCKER_INSTRUCTIONS:
            raise InputError(f"{Path(source).name if source != 'the Dockerfile' else source} line {line}",
                             f"{name[:40]!r} is no Dockerfile instruction: docker build stops on it "
                             "(unknown instruction)", "write FROM, RUN, CMD, ENTRYPOINT, ENV, ARG, ... followed by a "
                             "blank, or make the line a comment (#)")
        if name == "ARG":  # `ARG NAME[=DEFAULT] [NAME[=DEFAULT] ...]`, quotes as the shell reads them
            try:
                declared = shlex.split(body)
            except ValueError as exc:
                raise InputError(where, f"not read as words ({exc})", "check its quotes") from None
            scope = global_args if stage is None else stage["args"]
            for word in declared:
                key, eq, default = word.partition("=")
                if eq:
                    value = given.get(key, substituted(default, dict(scope) if stage is None else
                                                       {**scope, **stage["env"]}, where, unset=""))
                elif stage is None:
                    value = given.get(key)
                else:  # `ARG NAME` in a stage: the global ARG's value, or a --build-arg's
                    value = given.get(key, global_args.get(key))
                if value is not None:
                    scope[key] = value
                else:
                    scope.pop(key, None)
            continue
        if name == "FROM":
            words = substituted(body, global_args, where).split()
            words = [w for w in words if not w.startswith("--")]  # --platform=...
            if len(words) not in (1, 3) or len(words) == 3 and words[1].lower() != "as":
                # docker build: 'FROM requires either one or three arguments' (a flag is --name=value: --platform=...)
                raise InputError(where, "names no image" if not words else f"reads {shlex.join(words)[:80]}, not IMAGE "
                                 "or IMAGE AS NAME (docker build stops on it)", "write FROM [--platform=PLATFORM] "
                                 "IMAGE[:TAG] [AS NAME]")
            left = re.search(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", words[0])
            if left:  # an ARG with no value: docker build stops on the image reference it leaves
                raise InputError(where, f"the image is {words[0]}, and the build argument {left.group(1)} has no "
                                 "value (an ARG before FROM without a default, or none)",
                                 f"give --env {left.group(1)}=VALUE (as docker build --build-arg), or a default: "
                                 f"ARG {left.group(1)}=VALUE")
            base = stages.get(words[0].lower())
            stage = ({**base, "args": {}, "env": dict(base["env"]), "cmd_inherited": True} if base is not None else
                     {"image": words[0], "env": {}, "entrypoint": None, "cmd": None, "cmd_inherited": True, "args": {},
                      "shell": ["/bin/sh", "-c"], "pin": None})
            if len(words) >= 3 and words[1].lower() == "as":
                stages[words[2].lower()] = stage
            count += 1
            continue
        if stage is None:
            raise InputError(where, "comes before the first FROM", "start the Dockerfile with FROM IMAGE")
        scope = {**stage["args"], **stage["env"]}  # an ARG before FROM is not seen in a stage that does not declare it
        if name == "ENV":
            try:
                first = shlex.split(body)[0] if body else ""
            except ValueError as exc:
                raise InputError(where, f"not read as words ({exc})", "check its quotes") from None
            if "=" not in first:  # the legacy form: ENV NAME the rest of the line (after any blank: tabs too),
                key, rest = (re.split(r"\s+", body, maxsplit=1) + [""])[:2]  # its quotes removed
                substituted(rest, scope, where)  # its length checked: values that double at each line stop here
                stage["env"][key] = (" ".join(shell_words(rest, unset_empty(rest, scope, where)))
                                     if re.search(r"[\"'\\]", rest) else substituted(rest, scope, where, unset=""))
            else:
                substituted(body, scope, where)  # its length checked: values that double at each line stop here
                words = shell_words(body, unset_empty(body, scope, where))
                for w in words:
                    key, eq, value = w.partition("=")
                    if not eq:
                        raise InputError(where, f"{w!r} is not NAME=VALUE", "write ENV NAME=VALUE ...")
                    stage["env"][key] = value
        elif name == "SHELL":
            words, exec_form = _docker_form(body, [])
            if not exec_form:
                raise InputError(where, "is not a JSON list", 'write SHELL ["/bin/bash", "-c"]')
            stage["shell"] = words
        elif name == "ENTRYPOINT":
            stage["entrypoint"] = _docker_form(body, stage["shell"]) + (where,)
            if stage["cmd_inherited"]:
                stage["cmd"] = None
        elif name == "CMD":
            stage["cmd"] = _docker_form(body, stage["shell"]) + (where,)
            stage["cmd_inherited"] = False
        elif name == "RUN":
            pin = _PIP_VLLM.search(substituted(body, scope, where, unset=""))
            if pin:
                stage["pin"] = (pin.group(1), where)
    if stage is None:
        raise InputError("--from", f"{source} has no FROM", "give the Dockerfile that builds the vLLM server's image")
    if count > 1:
        notes.append(f"{source}: the last of its {count} stages is planned, the one `docker build` builds without "
                     "--target")
    values.environment.update(stage["env"])
    values.image = stage["image"]
    if stage["pin"] is not None:  # installed after the image's FROM: over the vLLM an image holds
        values.release_pin = stage["pin"]
    values.sources = [("--env", given), (f"{source} ENV", stage["env"])]  # `docker run -e` first, then the image's
    entry, cmd = stage["entrypoint"], stage["cmd"]
    shown = f"{source}: "
    if entry is None and _VLLM_IMAGE.search(stage["image"] or ""):  # the image's `vllm serve` with CMD as its args
        words = cmd[0] if cmd is not None and cmd[1] else None
        if words is None or not words or not words[0].startswith("-") or _flags_as_serve(words) is None:
            at = cmd[2] if cmd is not None else f"{source} (CMD)"
            raise InputError(at, f"the {stage['image']} image's entrypoint runs with "
                             + (f"{shlex.join(cmd[0][:3])} ..." if cmd is not None else "no CMD")
                             + ": its arguments name the model with --model (an exec-form list of flags)",
                             'write CMD ["--model", "MODEL", ...], or ENTRYPOINT ["vllm", "serve"] with the model first '
                             "in CMD")
        values.exec_form_at = cmd[2]
        return _flags_as_serve(words), shown + shlex.join(words), (IMAGE_ENTRYPOINT_NOTE, *notes)
    if entry is not None and not entry[1]:
        words = entry[0]  # a shell-form ENTRYPOINT: CMD is not run
        if cmd is not None:
            notes.append(f"{cmd[2]}: not run, as the shell-form ENTRYPOINT ignores CMD")
    else:
        rest = entry[0][wrapper_prefix(entry[0])[0]:] if entry is not None else []
        if rest and cmd is not None and not cmd[1] and (is_serve_line(shlex.join(rest)) or Path(rest[0]).name in _SHELLS):
            # ENTRYPOINT ["vllm", "serve"] with CMD MODEL ...: vllm serve is given `/bin/sh -c TEXT` (an init alone,
            # ENTRYPOINT ["tini", "--"], runs the shell-form CMD as its command: planned)
            raise InputError(cmd[2], f"a shell-form CMD: the exec-form ENTRYPOINT ({entry[2]}) runs "
                             f"{shlex.join(rest[:2])} with {shlex.join(cmd[0][:2])} TEXT as its arguments, not the "
                             "command TEXT", 'write CMD as a JSON list: CMD ["MODEL", "--flag", "value"]')
        words = (entry[0] if entry is not None else []) + (cmd[0] if cmd is not None else [])
    if not words:
        raise InputError("--from", f"{source} sets no ENTRYPOINT or CMD, and its base image {stage['image']} runs "
                         "no vllm serve kvplan knows", 'add ENTRYPOINT ["vllm", "serve"] and CMD ["MODEL", ...]')
    start = wrapper_prefix(words)[0]  # an init (ENTRYPOINT ["tini", "--"]) running the shell: the shell's script
    script = _shell_script_at(words[start:])
    script = None if script is None else start + script
    if script is not None:  # a shell form (/bin/sh -c TEXT), or a shell in the exec form (`sh -c SCRIPT NAME ARGS`)
        at = " and ".join(x[2] for x in (entry, cmd) if x is not None)
        words = _script_words(words[script], values, words[script + 2:], (at, source))
        return words, shown + shlex.join(words), tuple(notes)
    if not is_serve_line(shlex.join(words)) and re.search(r"\.(?:sh|bash|py)$|^/", words[0]):
        at = " and ".join(x[2] for x in (entry, cmd) if x is not None)
        raise InputError(at, f"the container runs {words[0]}, a program in the image whose vllm serve command the "
                         "Dockerfile does not show", f"give that script to --from (--from {Path(words[0]).name}), with "
                         "--env for the Dockerfile's ENV it reads")
    command_line(shlex.join(words))
    values.exec_form_at = " and ".join(x[2] for x in (entry, cmd) if x is not None)
    return words, shown + shlex.join(words), tuple(notes)


# ---- the GPU and release a file was sized for ------------------------------------------------------------------------
# kvplan scaffold writes into serve.sh, docker-compose.yml and k8s/ one comment line naming the kvplan options of the
# card and release it sized them for (deploy.ScaffoldSpec.recheck_line): `# Re-check: kvplan fit --from serve.sh --gpu
# 'NVIDIA L4' --vllm-version 0.33.0`. --from plans those where they are not given, as the line says to run it: the
# command alone names no GPU, and a file sized for an L4 was planned on the default T4 ("does not start").
RECHECK_LINE = re.compile(r"^[ \t]*#[ \t]*Re-check:[ \t]*kvplan fit --from[ \t]+\S+(?P<args>[^\n]*)$", re.M)
_RECHECK_OPTIONS = {"--gpu": "gpu", "--gpu-gib": "gpu_gib", "--gpu-gb": "gpu_gb", "--wsl2": "wsl2",
                    "--vllm-version": "vllm_version"}


def read_recheck_line(source: str, text_only: bool) -> Optional[tuple]:
    """(options, where) of the source's Re-check line, None where it has none; InputError naming the line for an
    option it does not take or a value that is not one."""
    from kvplan.inputs import read_text_or_empty

    path = None if text_only or "\n" in source else Path(source.strip()).expanduser()
    try:
        is_file = path is not None and path.is_file()
    except (OSError, ValueError):  # a command too long to be a file's name
        is_file = False
    text = source if path is None else (read_text_or_empty(str(path)) if is_file else "")
    matches = list(RECHECK_LINE.finditer(text))
    if not matches:
        return None
    name = path.name if path is not None else "the command"
    m = matches[0]
    where = f"{name} line {text.count(chr(10), 0, m.start()) + 1} (# Re-check:)"
    fix = "write it as kvplan scaffold does (`# Re-check: kvplan fit --from FILE --gpu NAME --vllm-version X.Y.Z`), or remove it"
    if len(matches) > 1:
        raise InputError(where, f"{name} holds {len(matches)} Re-check lines; which GPU it was sized for would be a "
                         "guess", fix)
    try:
        words = shlex.split(m.group("args"))
    except ValueError as exc:
        raise InputError(where, f"not read as shell words ({exc})", fix) from None
    options: dict = {}
    i = 0
    while i < len(words):
        flag, eq, value = words[i].partition("=")
        field_name = _RECHECK_OPTIONS.get(flag)
        if field_name is None or field_name in options:
            raise InputError(where, f"{words[i]!r} is not an option this line gives (--gpu, --gpu-gib, --gpu-gb, "
                             "--wsl2, --vllm-version, each once)", fix)
        if field_name == "wsl2":
            if eq:  # --wsl2 takes no value: --wsl2=false was read as --wsl2
                raise InputError(where, f"{words[i]!r}: --wsl2 takes no value", fix)
            options["wsl2"] = True
            i += 1
            continue
        if not eq:
            if i + 1 >= len(words):
                raise InputError(where, f"{flag} has no value", fix)
            value, i = words[i + 1], i + 1
        i += 1
        if field_name in ("gpu_gib", "gpu_gb"):
            try:
                number = float(value)
            except ValueError:
                number = float("nan")
            if not math.isfinite(number) or number <= 0:
                raise InputError(where, f"{flag} {value!r} is not a GPU's memory in {'GiB' if field_name == 'gpu_gib' else 'GB'}", fix)
            options[field_name] = number
        else:
            options[field_name] = value
    _recheck_values_checked(options, where, fix)
    return (options, where) if options else None


def _recheck_values_checked(options: dict, where: str, fix: str) -> None:
    """The line's GPU and release read as kvplan reads the options it names (resolve_gpu, parse_version), a value
    neither takes refused naming the line: the command planned with them names no --gpu, and an error naming --gpu
    (or --gpu-gib, --vllm-version) pointed at an option the user did not give."""
    from kvplan.errors import KvplanError
    from kvplan.resolve import resolve_gpu
    from kvplan.versions import parse_version

    try:
        if any(k in options for k in ("gpu", "gpu_gib", "gpu_gb")) and options.get("gpu") != "auto":
            resolve_gpu(options.get("gpu"), gib=options.get("gpu_gib"), gb=options.get("gpu_gb"), detect=False,
                        wsl2=bool(options.get("wsl2")))
        if "vllm_version" in options:
            parse_version(options["vllm_version"])
    except KvplanError as exc:
        raise InputError(where, f"{getattr(exc, 'field', '') or 'its value'}: {getattr(exc, 'message', exc)}",
                         fix) from None


def sized_for_applied(command: Optional[ServeCommand], flags, varied=(), *, plan_it: bool = True):
    """(flags, command): the GPU and release the file's Re-check line names (ServeCommand.sized_for) planned where
    neither is given (--gpu, --gpu-gib / --gpu-gb, --gpu auto; --vllm-version or an image's release), each said in a
    note; a different one given is planned, and the note says what the file was sized for. Not planned where --vary
    varies it or `plan_it` is false (preflight checks this machine's GPU)."""
    if command is None or command.sized_for is None:
        return flags, command
    options, where = command.sized_for[:2]
    asked = len(command.sized_for) > 2 and command.sized_for[2]  # a SkyPilot task's resources: asked for, not sized
    sized_for, the_gpu = (("asks for", "the GPU the task asks for") if asked else
                          ("sized for", "the GPU the file was sized for"))
    gpu_keys = ("gpu", "gpu_gib", "gpu_gb", "wsl2")
    sized = " ".join(f"--{k.replace('_', '-')}" + ("" if v is True else f" {shlex.quote(str(v))}")
                     for k, v in options.items() if k in gpu_keys)
    notes, changes = [], {}
    if sized:
        given = any(getattr(flags, k) for k in gpu_keys) or getattr(flags, "gpu_kinds", None) is not None
        if "gpu" in varied:
            notes.append(f"{where}: {sized_for} {sized}; not planned, --vary gpu names each row's GPU")
        elif not given and not plan_it:
            notes.append(f"{where}: {sized_for} {sized}; this machine's GPU is checked here (give those options to "
                         "plan that card)")
        elif not given:
            changes.update({k: v for k, v in options.items() if k in gpu_keys})
            notes.append(f"{where}: planned on {sized}, {the_gpu} (give --gpu to plan another)")
        elif any(options.get(k) != getattr(flags, k) and (options.get(k) or getattr(flags, k)) for k in gpu_keys):
            notes.append(f"{where}: {sized_for} {sized}; the GPU given is planned")
    version = options.get("vllm_version")
    if version is not None and "vllm_version" not in varied:
        if flags.vllm_version is None:
            changes["vllm_version"] = version
            notes.append(f"{where}: vLLM {version}, the release the file was sized for")
        elif str(flags.vllm_version) != version:
            notes.append(f"{where}: sized for vLLM {version}; {flags.vllm_version} is planned")
    return replace(flags, **changes), replace(command, read_as=command.read_as + tuple(notes))


# ---- docker run / podman run ------------------------------------------------------------------------------------------
# `docker run [OPTIONS] IMAGE [COMMAND] [ARG...]` (Docker's `docker container run` reference, docs.docker.com/reference/
# cli/docker/container/run; podman run takes these options under the same names): the image's ENTRYPOINT runs with
# COMMAND ARG... in place of its CMD, or --entrypoint's program with them; -e / --env NAME=VALUE (NAME alone: the value
# of the shell docker runs in, kvplan's --env) and --env-file set the container's environment; --gpus (all, N,
# "device=0,1", count=N) the GPUs it gets. vLLM's own documented start is one (docs/deployment/docker.md: `docker run
# --runtime nvidia --gpus all -v ... -p 8000:8000 --ipc=host vllm/vllm-openai:latest --model ...`).
_DOCKER_RUN_VALUED = frozenset(
    "--add-host --annotation -a --attach --blkio-weight --blkio-weight-device --cap-add --cap-drop --cgroup-parent "
    "--cgroupns --cidfile --cpu-count --cpu-percent --cpu-period --cpu-quota --cpu-rt-period --cpu-rt-runtime -c "
    "--cpu-shares --cpus --cpuset-cpus --cpuset-mems --detach-keys --device --device-cgroup-rule --device-read-bps "
    "--device-read-iops --device-write-bps --device-write-iops --dns --dns-option --dns-search --domainname "
    "--entrypoint -e --env --env-file --expose --gpus --group-add --health-cmd --health-interval --health-retries "
    "--health-start-interval --health-start-period --health-timeout -h --hostname --io-maxbandwidth --io-maxiops --ip "
    "--ip6 --ipc --isolation --kernel-memory -l --label --label-file --link --link-local-ip --log-driver --log-opt "
    "--mac-address -m --memory --memory-reservation --memory-swap --memory-swappiness --mount --name --network --net "
    "--network-alias --net-alias --oom-score-adj --pid --pids-limit --platform -p --publish --pull --restart --runtime "
    "--security-opt --shm-size --stop-signal --stop-timeout --storage-opt --sysctl --tmpfs --ulimit -u --user --userns "
    "--uts -v --volume --volume-driver --volumes-from -w --workdir "
    # podman run's own (podman-run(1)) that take a value
    "--pod --secret --hooks-dir --cgroup-conf --cgroups --chrootdirs --conmon-pidfile --gidmap --uidmap --subuidname "
    "--subgidname --image-volume --init-path --log-level --passwd-entry --preserve-fd --requires --sdnotify --seccomp-policy "
    "--timeout --tz --umask --unsetenv --variant --arch --os --decryption-key --authfile --cert-dir --creds".split())
_DOCKER_RUN_ALONE = frozenset(
    "-d --detach --disable-content-trust --init -i --interactive --no-healthcheck --oom-kill-disable --privileged -P "
    "--publish-all -q --quiet --read-only --rm --sig-proxy -t --tty --use-api-socket "
    "--replace --env-host --http-proxy --no-hosts --read-only-tmpfs --rmi --tls-verify --systemd".split())
_DOCKER_SHORT_ALONE = frozenset("dtiPq")


def docker_run_command(tokens: list[str], values) -> Optional[tuple[list[str], tuple[str, ...]]]:
    """(the words the container runs, notes) where `tokens` run `docker run ...` / `podman run ...` (after the words
    serve_command.wrapper_prefix skips); None otherwise. The container's environment, image and --gpus go to `values`
    (as a compose service's do); an option kvplan does not know is refused by name (whether it takes a value would be a
    guess), as is a container command that is no vllm serve."""
    i = wrapper_prefix(tokens)[0]  # VAR=x, sudo, exec, nohup and the wrappers vllm serve itself may follow
    if i >= len(tokens) or Path(tokens[i]).name not in ("docker", "podman"):
        return None
    tool = Path(tokens[i]).name
    j = i + 1
    if tokens[j:j + 2] == ["container", "run"]:
        j += 2
    elif tokens[j:j + 1] == ["run"]:
        j += 1
    else:
        return None
    run = f"{tool} run"
    env: dict = {}
    gpus: Optional[str] = None
    entrypoint: Optional[str] = None
    notes: list[str] = []

    def option(name: str, value: str) -> None:
        nonlocal gpus, entrypoint
        if name in ("-e", "--env"):
            key, eq, val = value.partition("=")
            if eq:
                env[key] = val
            else:  # NAME alone: the value of the shell docker runs in
                given, _ = values.lookup(key)
                if given is not None:
                    env[key] = given
                else:
                    notes.append(f"{run} -e {key}: the value of the shell docker runs in, not given here (--env "
                                 f"{key}=VALUE gives it)")
        elif name == "--env-file":
            path = Path(value).expanduser()
            if path.is_file():
                from kvplan.launch_vars import dotenv

                env.update(dotenv(path))
            else:
                notes.append(f"{run} --env-file {value}: not read (no such file here); give a VLLM_* variable it sets "
                             "with --env")
        elif name == "--gpus":
            gpus = value
        elif name == "--entrypoint":
            entrypoint = value

    while j < len(tokens) and tokens[j].startswith("-") and tokens[j] != "-":
        tok = tokens[j]
        if tok == "--":
            j += 1
            break
        name, eq, value = tok.partition("=")
        if tok.startswith("--"):
            if name in _DOCKER_RUN_VALUED:
                if not eq:
                    if j + 1 >= len(tokens):
                        raise InputError(name, f"{run} {name} has no value", f"give {name} VALUE before the image")
                    value, j = tokens[j + 1], j + 1
                option(name, value)
            elif name not in _DOCKER_RUN_ALONE:
                raise InputError(name, f"an option of `{run}` kvplan does not know, so where its image begins would be a "
                                 "guess", f"write it as {name}=VALUE, or give the container's command in quotes")
            j += 1
            continue
        # short options: -it, -d, -p 8000:8000, -p8000:8000, -eVAR=x
        k = 1
        while k < len(tok):
            flag = "-" + tok[k]
            if tok[k] in _DOCKER_SHORT_ALONE:
                k += 1
                continue
            if flag in _DOCKER_RUN_VALUED:
                value = tok[k + 1:]
                if not value:
                    if j + 1 >= len(tokens):
                        raise InputError(flag, f"{run} {flag} has no value", f"give {flag} VALUE before the image")
                    value, j = tokens[j + 1], j + 1
                option(flag, value.lstrip("="))
                break
            raise InputError(flag, f"an option of `{run}` kvplan does not know, so where its image begins would be a "
                             "guess", "give the container's command in quotes")
        j += 1
    if j >= len(tokens):
        raise InputError("--from", f"the `{run}` command names no image", f"give `{run} [OPTIONS] IMAGE [ARGS...]`")
    image, args = tokens[j], tokens[j + 1:]
    values.image = image
    values.environment.update(env)
    count = _docker_gpus(gpus, run) if gpus is not None else None
    if count is not None:
        values.gpu_limit = (count, f"{run} --gpus")
    if entrypoint is not None:
        words = [entrypoint] + args
    elif _VLLM_IMAGE.search(image):
        if not args or not args[0].startswith("-") or _flags_as_serve(args) is None:
            raise InputError("--from", f"{run} runs the {image} image's entrypoint with "
                             + (f"{shlex.join(args[:2])} ..." if args else "no arguments")
                             + ": the model is named by --model there on every release, and a first word that is no flag "
                             "would be a guess", f"name the model with --model MODEL after the image, or run `{run} ... "
                             f"--entrypoint vllm {image} serve MODEL ...`")
        return ["vllm", "serve"] + args, (IMAGE_ENTRYPOINT_NOTE, *notes)
    else:
        words = args
    if not words:
        raise InputError("--from", f"{run} runs the {image} image's own command, which kvplan cannot see",
                         "give the container's command after the image (vllm serve MODEL ...)")
    at = _shell_script_at(words)
    if at is not None:
        return _script_words(words[at], values, words[at + 2:], ("--from", run)), tuple(notes)
    command_line(shlex.join(words))
    return words, tuple(notes)


def _docker_gpus(value: str, run: str) -> Optional[int]:
    """The GPUs `--gpus VALUE` gives the container (Docker's gpu opts, a CSV of all, N, count=N, device=ID,...,
    capabilities=..., driver=...); None for all (the host's, a number kvplan cannot know)."""
    import csv

    try:
        fields = next(csv.reader([value.strip().strip("'")]), [])
    except csv.Error:
        fields = []
    count: Optional[int] = None
    devices: Optional[int] = None
    fix = "give --gpus all, --gpus N or --gpus '\"device=0,1\"' (the device list quoted inside the value)"
    for f in fields:
        key, eq, val = f.strip().partition("=")
        if not eq and key == "all" or (eq and key == "count" and val == "all"):
            return None
        if not eq and key.isdigit():
            count = int(key)
        elif eq and key == "count" and val.isdigit():
            count = int(val)
        elif eq and key == "device":
            devices = len([d for d in val.split(",") if d.strip()])
        elif not eq or key not in ("capabilities", "driver", "options"):
            raise InputError("--gpus", f"{run} --gpus {value}: not a GPU request Docker takes", fix)
    if count is not None and devices is not None:  # Docker: "cannot set both Count and DeviceIDs on device request"
        raise InputError("--gpus", f"{run} --gpus {value}: both a count and device ids, which Docker refuses", fix)
    count = devices if devices is not None else count
    if count is not None and not 0 < count <= 65536:
        raise InputError("--gpus", f"{run} --gpus {value}: {count} GPUs", "give the number of GPUs the container gets")
    return count


# ---- a SkyPilot task YAML ---------------------------------------------------------------------------------------------
# SkyPilot's task YAML (docs.skypilot.co reference/yaml-spec; vLLM's docs/deployment/frameworks/skypilot.md serves with
# one): `run:` is the script each node runs (bash), with `envs:` exported (`sky launch --env NAME=x`, kvplan's --env,
# overriding them) and SKYPILOT_NUM_GPUS_PER_NODE / SKYPILOT_NUM_NODES / SKYPILOT_NODE_RANK set by SkyPilot;
# `resources.accelerators` the GPUs a node gets: NAME, NAME:COUNT, {NAME: COUNT}, or a set / list of candidates (SkyPilot
# launches one of them); `num_nodes` the nodes; `setup:` runs first (a `pip install vllm==X.Y.Z` there pins the release);
# `resources.image_id: docker:IMAGE` the container it runs in.
# SkyPilot's accelerator names (its catalogs, `sky show-gpus`; case does not matter) that name one card of kvplan's
# catalog: A100 is the 40 GB part, A100-80GB the 80 GB one; H100 (and GCP's H100-MEGA) the SXM5 board clouds rent, as
# kvplan's own --gpu H100 plans it. Another name is not read (--gpu plans the card).
SKYPILOT_ACCELERATORS = {"T4": "tesla-t4", "L4": "l4", "A10G": "a10g", "A10": "a10", "L40": "l40", "L40S": "l40s",
                         "A40": "a40", "A100": "a100-40gb-sxm", "A100-80GB": "a100-80gb-sxm", "H100": "h100-sxm",
                         "H100-MEGA": "h100-sxm", "H200": "h200", "B200": "b200", "V100": "v100-16gb",
                         "V100-32GB": "v100-32gb", "P100": "tesla-p100-pcie-16gb", "K80": "tesla-k80",
                         "RTX4090": "rtx-4090", "A6000": "rtx-a6000", "MI300X": "mi300x"}
_SKYPILOT_KEYS = frozenset({"run", "setup", "envs", "resources", "num_nodes", "name", "workdir", "file_mounts",
                            "service", "secrets", "config", "event_callback", "volumes"})


def skypilot_task(text: str) -> Optional[dict]:
    """The task of a SkyPilot YAML (a map whose keys are the spec's, with a `run:` script), None for any other text."""
    if "run" not in text:
        return None
    try:
        import yaml

        doc = yaml.safe_load(text)
    except Exception:
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("run"), str) or not set(doc) <= _SKYPILOT_KEYS:
        return None
    return doc


def _skypilot_accelerators(resources, run: str) -> tuple[list[tuple[str, int]], str]:
    """([(name, count per node)], its field) of resources.accelerators: one entry, or the candidates SkyPilot picks
    among."""
    field = "resources.accelerators"
    value = resources.get("accelerators") if isinstance(resources, dict) else None
    if value is None:
        return [], field
    entries = value.items() if isinstance(value, dict) else ([value] if isinstance(value, str) else value)
    if not isinstance(entries, (list, set, tuple, type({}.items()))):
        raise InputError(field, f"is {_shown(value)}, not a GPU name", "write accelerators: NAME:COUNT (L4:1)")
    out = []
    for entry in entries:
        name, count = (entry if isinstance(entry, tuple) else (entry, None))
        if not isinstance(name, str) or not name.strip():
            raise InputError(field, f"holds {_shown(name)}, not a GPU name", "write accelerators: NAME:COUNT (L4:1)")
        if count is None and ":" in name:
            name, _, count = name.partition(":")
        try:
            count = 1 if count is None else float(count)
        except (TypeError, ValueError):
            count = -1
        if count != int(count) or not 0 < count <= 65536:
            raise InputError(field, f"{name}: {count} is not a number of GPUs", "write NAME:COUNT with a whole count")
        out.append((name.strip(), int(count)))
    return out, field


def _skypilot_command(source: str, doc: dict, values) -> tuple[list[str], str, tuple[str, ...]]:
    """The vllm serve command of a SkyPilot task's run script, as read_source gives it; its GPU (the accelerator it
    names, planned where no --gpu is given: launch_files.sized_for_applied), GPUs per node x nodes against the ranks, its
    envs, and the release its setup installs or its image runs."""
    given = dict(values.sources[0][1]) if values.sources else {}
    envs = doc.get("envs") or {}
    if not isinstance(envs, dict):
        raise InputError("envs", f"is {_shown(envs)}, not a map of NAME: VALUE", "write envs: as NAME: VALUE lines")
    accels, field = _skypilot_accelerators(doc.get("resources"), doc["run"])
    nodes = doc.get("num_nodes", 1)
    if isinstance(nodes, bool) or not isinstance(nodes, int) or not 0 < nodes <= 65536:
        raise InputError("num_nodes", f"is {_shown(nodes)}, not a number of nodes", "write num_nodes: N")
    notes: list[str] = []
    counts = {c for _, c in accels}
    sky = {"SKYPILOT_NUM_NODES": str(nodes), "SKYPILOT_NODE_RANK": "0"}
    if len(counts) == 1:
        sky["SKYPILOT_NUM_GPUS_PER_NODE"] = str(counts.pop())
        values.gpu_limit = (int(sky["SKYPILOT_NUM_GPUS_PER_NODE"]) * nodes, field)
    env = {str(k): ("" if v is None else str(v).lower() if isinstance(v, bool) else str(v)) for k, v in envs.items()}
    values.sources = [("--env", given), ("envs", env), ("SkyPilot", sky)]  # sky launch --env first
    values.environment.update({k: given.get(k, v) for k, v in env.items()})
    if len(accels) == 1:
        name = accels[0][0]
        ref = SKYPILOT_ACCELERATORS.get(name.upper())
        if ref is None:  # never matched partially: the plan is of --gpu, said
            notes.append(f"{field} = {name}: no SkyPilot accelerator name kvplan maps to a card of its catalog "
                         f"({', '.join(sorted(SKYPILOT_ACCELERATORS))}); the plan is of --gpu (give that card)")
        else:
            from kvplan.resolve import find_gpu

            values.task_gpu = ({"gpu": find_gpu(ref).name}, f"{source} {field} = {name}")
    elif len(accels) > 1:
        notes.append(f"{field}: any of {', '.join(n for n, _ in accels)}, as SkyPilot finds one: the plan is of --gpu "
                     "(give the one it launched)")
    image = ((doc.get("resources") or {}).get("image_id") if isinstance(doc.get("resources"), dict) else None)
    if isinstance(image, str) and image.startswith("docker:"):
        values.image = image[len("docker:"):]
    pin = _PIP_VLLM.search(doc.get("setup") or "") if isinstance(doc.get("setup"), str) else None
    if pin and not (values.image and _VLLM_IMAGE.search(values.image)):
        values.release_pin = (pin.group(1), f"{source} setup")
    if nodes > 1:
        notes.append(f"num_nodes = {nodes}: the run script runs on each node; its vllm serve is read as the head "
                     "node's (SKYPILOT_NODE_RANK 0)")
    words = _script_words(doc["run"], values, (), ("run", source))
    return words, f"{source}: {shlex.join(words)}", tuple(notes)


# ---- vllm serve --config FILE.yaml -------------------------------------------------------------------------------------
# vLLM reads the YAML file's keys as flags (versions.py config_file_model / config_file_false / config_file_map say how,
# per release) and puts them after the subcommand and a model given first, before the command's own flags, so the
# command's win; the file is opened from the server's working directory.
_CONFIG_MAX_NODES = 100_000


def _config_nodes(value, budget: list) -> None:
    """Count the YAML nodes of `value` against budget[0] (a YAML alias bomb expands past any file's size)."""
    budget[0] -= 1
    if budget[0] < 0:
        raise InputError("--config", "holds more than 100,000 values (a YAML alias bomb?)", "write the flags plainly")
    if isinstance(value, dict):
        for k, v in value.items():
            _config_nodes(v, budget)
    elif isinstance(value, list):
        for v in value:
            _config_nodes(v, budget)


def config_file_args(rest: list[str], model: Optional[str], source: str, vllm_version: Optional[str],
                     text_only: bool) -> tuple[list[str], Optional[str], tuple[str, ...]]:
    """(the command's flags with --config FILE's in place, the model, notes) as vllm serve reads them at `vllm_version`
    (kvplan's default release where None); rest unchanged where it has no --config."""
    at = [k for k, tok in enumerate(rest) if tok == "--config" or tok.startswith("--config=")]
    if not at:
        return rest, model, ()
    if len(at) > 1:
        raise InputError("--config", "given twice; vLLM asserts 'More than one config file specified!'",
                         "give one --config FILE")
    k = at[0]
    name, eq, value = rest[k].partition("=")
    if not eq:
        if k + 1 >= len(rest) or rest[k + 1].startswith("-"):
            raise InputError("--config", "has no file; vLLM stops: 'No config file specified!'", "give --config FILE.yaml")
        value = rest[k + 1]
    others = rest[:k] + rest[k + (1 if eq else 2):]
    from kvplan.versions import DEFAULT_RELEASE, rules_for

    rules = rules_for(vllm_version)
    release = vllm_version or DEFAULT_RELEASE
    if value.rsplit(".", 1)[-1] not in ("yaml", "yml"):
        raise InputError("--config", f"{value}: vLLM stops: 'Config file must be of a yaml/yml type.'",
                         "give the flags in a .yaml file")
    if text_only:
        raise InputError("from_command", f"the command reads its flags from {value}, a file on the server's machine, "
                         "which the page does not read", "paste the command with that file's flags written on it")
    path = Path(value).expanduser()
    folder = Path(source).expanduser().parent if "\n" not in source else None
    candidates = [path] if path.is_absolute() else [path] + ([folder / path] if folder is not None else [])
    found = next((c for c in candidates if c.is_file()), None)
    if found is None:
        raise InputError("--config", f"{value}: no such file here ({', '.join(str(c) for c in candidates)})",
                         "run kvplan where the server runs, or give the file's path")
    import yaml

    try:
        doc = yaml.safe_load(found.read_text(encoding="utf-8", errors="replace"))
    except yaml.YAMLError as exc:
        raise InputError("--config", f"{value} is not YAML vLLM reads ({str(exc).splitlines()[0]})",
                         "fix the file") from None
    if doc is None:
        doc = {}
    if not isinstance(doc, dict):
        raise InputError("--config", f"{value} holds {_shown(doc)}, not a map of flags", "write KEY: VALUE lines")
    _config_nodes(doc, [_CONFIG_MAX_NODES])
    words: list[str] = []
    notes: list[str] = [f"--config {value}: its keys read as vLLM {release} reads them, before the command's own flags "
                        "(which win)"]
    for key, item in doc.items():
        key = str(key)
        flag = "--" + key
        if isinstance(item, bool):
            if item:
                words.append(flag)
            elif rules.config_file_false == "no_flag":
                words.append("--no-" + key)  # dropped by vLLM where it has no such flag: the plan refuses it as unknown
            elif rules.config_file_false == "dropped":
                notes.append(f"--config {value}: {key}: false is dropped by vLLM {release} (no flag)")
            else:
                raise InputError(f"--config {value}", f"{key}: false, which vLLM {release} "
                                 + ("passes as 'False' to flags of its StoreBoolean kind and drops for the others"
                                    if rules.config_file_false == "store_boolean" else "reads in a way kvplan has not read")
                                 + "; which this is, kvplan has not read", f"leave {key} out, or give --no-{key} on the command")
        elif isinstance(item, list):
            if item:
                words += [flag] + [str(v) for v in item]
        elif isinstance(item, dict):
            if rules.config_file_map != "json":
                raise InputError(f"--config {value}", f"{key} is a map, which vLLM {release} "
                                 + ("passes as Python's text of it, not JSON" if rules.config_file_map == "repr" else
                                    "reads in a way kvplan has not read"),
                                 f"write {key} as a JSON string: {key}: '{{\"...\": ...}}'")
            import json

            words += [flag, json.dumps(item)]
        else:
            words += [flag, "" if item is None else str(item)]
    config_model = None
    if "--model" in words:
        at_model = words.index("--model")
        config_model = words[at_model + 1] if at_model + 1 < len(words) else None
    if model is None and config_model is not None:
        if rules.config_file_model != "taken":
            raise InputError("--config", f"{value} names the model, and vLLM {release} "
                             + ("takes it only first on the command line ('No model_tag specified!')"
                                if rules.config_file_model == "positional" else
                                "was not read for a model in the config file"),
                             "give the model first on the command line: vllm serve MODEL --config FILE")
        words.pop(at_model)
        words.pop(at_model)
        model = config_model
        notes.append(f"--config {value}: the model {model}")
    elif model is not None and config_model is not None:
        words.pop(at_model)
        words.pop(at_model)
        notes.append(f"--config {value}: its model {config_model} is not served; the command's {model} is")
    return words + others, model, tuple(notes)


# ---- a Ray Serve LLM config --------------------------------------------------------------------------------------------
# Ray Serve LLM (docs.ray.io serve/llm: LLMConfig; `serve run config.yaml` with `applications[].args.llm_configs[]`, the
# import_path ray.serve.llm:build_openai_app) runs vLLM with an LLMConfig's engine_kwargs as its engine arguments (the
# EngineArgs field names), its model_loading_config.model_source as the model, runtime_env.env_vars as the environment,
# on the GPU accelerator_type names (Ray's labels, ray/util/accelerators/accelerators.py: the GPU's name as NVML gives
# it, so A100 stands for the 40 GB and the 80 GB part and H100 for the 80 GB boards and the 94 GB NVL; A100-40G and
# A100-80G are the sized labels). An llm_configs entry may be the path of a YAML file holding one LLMConfig. The
# release is the one installed beside Ray, which the config does not state.
RAY_ACCELERATORS = {"T4": "T4", "P100": "P100", "A10G": "A10G", "L4": "L4", "L40S": "L40S", "A100-40G": "A100 40GB",
                    "A100-80G": "A100 80GB", "H100": "H100", "H200": "H200", "H20": "H20", "B200": "B200",
                    "AMD-Instinct-MI300X-OAM": "MI300X"}


def _ray_llm_configs(doc) -> Optional[list]:
    """The LLMConfigs of a Ray Serve config (applications[].args.llm_configs[]) or the one LLMConfig a file holds; None
    where `doc` is neither."""
    if isinstance(doc, dict) and isinstance(doc.get("model_loading_config"), dict):
        return [doc]
    if not isinstance(doc, dict) or not isinstance(doc.get("applications"), list):
        return None
    out = []
    for app in doc["applications"]:
        args = app.get("args") if isinstance(app, dict) else None
        configs = args.get("llm_configs") if isinstance(args, dict) else None
        if isinstance(configs, list):
            out += configs
    return out or None


def _ray_serve_source(source: str, values, text_only: bool) -> Optional[tuple]:
    """read_source of a Ray Serve LLM config (`FILE`, `FILE#MODEL_ID` choosing an LLMConfig, or the file's text);
    None where `source` is none."""
    import yaml

    name, folder = None, None
    if "\n" in source:
        text = source
    elif text_only or not source.strip():
        return None
    else:
        chosen = _chosen_yaml_file(source)
        if chosen is None:
            return None
        path, text, name, source = chosen
        folder = path.parent
    if "llm_configs" not in text and "model_loading_config" not in text:
        return None
    try:
        configs = _ray_llm_configs(yaml.safe_load(text))
    except yaml.YAMLError:
        return None
    if configs is None:
        return None
    where = source if folder is not None else "the Ray Serve config"
    loaded = []
    for k, config in enumerate(configs):
        field = f"applications[].args.llm_configs[{k}]"
        if isinstance(config, str):  # the path of a YAML file holding one LLMConfig
            if folder is None:
                raise InputError(field, f"is the file {config}, which the page does not read",
                                 "paste the LLMConfig itself")
            sub = folder / config
            try:
                config = yaml.safe_load(sub.read_text(encoding="utf-8", errors="replace"))
            except (OSError, yaml.YAMLError) as exc:
                raise InputError(field, f"{sub} is not read ({exc})", "give the LLMConfig's file beside the config") from None
        if not isinstance(config, dict) or not isinstance(config.get("model_loading_config"), dict):
            raise InputError(field, "is no LLMConfig (no model_loading_config map)", "give model_loading_config: "
                             "{model_id: ..., model_source: ...}")
        loaded.append((field, config))
    if name is not None:
        loaded = [(f, c) for f, c in loaded if c["model_loading_config"].get("model_id") == name]
        if not loaded:
            raise InputError("--from", f"{where} has no LLMConfig whose model_id is {name}", "give one of its model_ids")
    if len(loaded) > 1:
        ids = ", ".join(str(c["model_loading_config"].get("model_id")) for _, c in loaded)
        raise InputError("--from", f"{where} serves {len(loaded)} models ({ids}); which one is planned would be a guess",
                         f"choose one: --from {where}#MODEL_ID")
    field, config = loaded[0]
    loading = config["model_loading_config"]
    model = loading.get("model_source") or loading.get("model_id")
    if not isinstance(model, str) or not model.strip():
        raise InputError(f"{field}.model_loading_config.model_source", f"is {_shown(model)}, not a Hub id or a path "
                         "(a cloud-storage mirror's model kvplan cannot read)", "give MODEL to kvplan (the checkpoint's "
                         "Hub id or config.json)")
    kwargs = config.get("engine_kwargs") or {}
    if not isinstance(kwargs, dict):
        raise InputError(f"{field}.engine_kwargs", f"is {_shown(kwargs)}, not a map", "write engine_kwargs as a map")
    words = ["vllm", "serve", model]
    for key, value in kwargs.items():
        flag = "--" + str(key).replace("_", "-")
        if key == "model":
            continue
        if isinstance(value, bool):
            words.append(flag if value else "--no-" + flag[2:])
        elif isinstance(value, dict):
            import json

            words += [flag, json.dumps(value)]
        elif isinstance(value, list):
            words += [flag] + [str(v) for v in value] if value else []
        else:
            words += [flag, "" if value is None else str(value)]
    runtime = config.get("runtime_env") or {}
    env = runtime.get("env_vars") if isinstance(runtime, dict) else None
    if isinstance(env, dict):
        values.environment.update({str(k): str(v) for k, v in env.items()})
    notes = [f"{where} ({field}): engine_kwargs read as vllm serve's flags, model_loading_config.model_source as the "
             "model; the vLLM release is the one installed beside Ray (give --vllm-version)"]
    accel = config.get("accelerator_type")
    if isinstance(accel, str) and accel.strip():
        ref = RAY_ACCELERATORS.get(accel.strip())
        if ref is None:  # A100, V100 (two memory sizes), or a label of no catalog card: the plan is of --gpu
            notes.append(f"{field}.accelerator_type = {accel}: a Ray label of more than one card, or of none in "
                         "kvplan's catalog; the plan is of --gpu (give the card)")
        else:
            from kvplan.resolve import find_gpu

            values.task_gpu = ({"gpu": find_gpu(ref).name}, f"{where} {field}.accelerator_type = {accel}")
            if accel.strip() == "H100":
                notes.append(f"{field}.accelerator_type = H100: Ray labels the H100 NVL (94 GB) H100 too; give --gpu "
                             "'H100 NVL' for it")
    return words, f"{where}: {shlex.join(words)}", tuple(notes)

