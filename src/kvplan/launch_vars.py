"""Variables in a launch file `--from` reads: docker compose's interpolation of a compose file, and the shell words
and variables of a serve script (the docker-compose.yml and serve.sh `kvplan scaffold` writes use both).

Where a value comes from, as each runtime takes it:
- a compose file (the Compose spec's interpolation: `$VAR`, `${VAR}`, `${VAR:-default}`, `${VAR-default}`,
  `${VAR:?error}`, `${VAR?error}`, `${VAR:+alt}`, `${VAR+alt}`, `$$` for a literal `$`): kvplan's `--env VAR=x`
  (standing for the shell `docker compose` runs in, which docker compose puts first), then the `.env` file beside the
  compose file, then the expression's default;
- a script: run as it is written, from kvplan's `--env` (the caller's environment): its own assignments
  (`MODEL=${MODEL:-Qwen/Qwen3-8B}`), arrays (`args=(...)`, `"${args[@]}"`) and a `.env` it sources (`. ./.env`, read
  from the script's folder where it is there) are followed; `"$@"` (the script's arguments) is empty.
kvplan's own process environment is not read: a plan does not change with what the shell it runs in exports.

A variable with no value (unset, no default) is kept as written (`${MAX_LEN}`): serve_command refuses it where it is
the model or a planned flag's value (naming the variable and the fix), and takes it where nothing is planned from it
(--api-key, --port).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from kvplan.errors import InputError
from kvplan.inputs import closing_bracket

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_UNRESOLVED = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])")


@dataclass
class Values:
    """Where a variable's value is taken from (`sources`, in order: (where, {name: value})), and what was taken: each
    expression read ('${MODEL:-Qwen/Qwen3-8B} = Qwen/Qwen3-8B (its default)') and each variable with no value."""

    sources: list = field(default_factory=list)
    read: list = field(default_factory=list)
    missing: dict = field(default_factory=dict)  # name -> the error text of ${NAME:?text}, or ""
    assigned: dict = field(default_factory=dict)  # a script's own variables (a .env it sources included), first
    uncertain: set = field(default_factory=set)  # names a script sets on some paths only: no value taken
    assigned_from: dict = field(default_factory=dict)  # name -> the .env file a script took it from
    dotenv_path: Optional[str] = None  # the .env docker compose or the script would read (there or not)
    from_env: set = field(default_factory=set)  # the --env variables the file read
    image: Optional[str] = None  # a compose service's image: (serve_command.image_release reads its release)
    release_pin: Optional[tuple] = None  # a Dockerfile's `pip install vllm==X.Y.Z`: (the release, where)
    task_gpu: Optional[tuple] = None  # the GPU a SkyPilot task asks for: (kvplan options, where), as a Re-check line's
    exec_form_at: Optional[str] = None  # a Dockerfile's exec-form CMD / ENTRYPOINT the command comes from: no shell
    # expands its words
    unread: list = field(default_factory=list)  # files a script sources that kvplan does not read (a venv's activate)
    environment: dict = field(default_factory=dict)  # what the server runs with: a compose service's environment:,
    # a script's exports (set -a while it sources a .env included)
    # a Kubernetes container's variables whose value kvplan cannot know (valueFrom: a secret, a configMap, a fieldRef;
    # or envFrom): name -> (the manifest field that defines it, what it is read from)
    k8s_unknown: dict = field(default_factory=dict)
    k8s_refs: dict = field(default_factory=dict)  # name -> the manifest field of the first command/args word whose
    # $(NAME) Kubernetes leaves unexpanded (or whose value kvplan cannot know)
    gpu_limit: Optional[tuple] = None  # a Kubernetes container's nvidia.com/gpu limit: (count, its field)
    gpu_pin: Optional[tuple] = None  # the GPU products its pod requires by node label: (values, field, MIG, labellers)
    gpu_group: Optional[tuple] = None  # a LeaderWorkerSet group's size and GPU limits (launch_files._lws_group)

    def lookup(self, name: str) -> tuple[Optional[str], Optional[str]]:
        if name in self.uncertain:
            return None, None
        if name in self.assigned:
            return self.assigned[name], self.assigned_from.get(name)
        for where, values in self.sources:
            if name in values:
                if where == "--env":
                    self.from_env.add(name)
                return values[name], where
        return None, None

    def note(self, expr: str, value: str, where: Optional[str]) -> None:
        if where is None:  # the script's own assignment: said where it was read from, not again at each use
            return
        line = f"{expr} = {value!r} ({where})"
        if line not in self.read:
            self.read.append(line)

    def notes(self) -> tuple[str, ...]:
        out = []
        if self.read:
            out.append("variables read: " + "; ".join(self.read))
        return tuple(out)


def env_values(env: Optional[list]) -> dict:
    """kvplan's --env KEY=VALUE list as a dict (a malformed entry is left to --env's own check)."""
    out = {}
    for e in env or []:
        key, eq, value = str(e).partition("=")
        if eq and _NAME.fullmatch(key.strip()):
            out[key.strip()] = value
    return out


def dotenv(path: Path) -> dict:
    """A `.env` file as docker compose and `set -a; . ./.env` read the lines kvplan writes and people keep there:
    KEY=VALUE, an `export ` before it, comments, a value in single quotes (as written) or double quotes (\\n, \\" and
    \\\\ read), an unquoted value up to a ' #' comment."""
    out = {}
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InputError("--from", f"cannot read {path}: {exc.strerror or exc}", "make it readable, or remove it") from None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        line = re.sub(r"^export\s+", "", line)
        key, eq, value = line.partition("=")
        key = key.strip()
        if not eq or not _NAME.fullmatch(key):
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] == "'":
            value = value[1:-1]
        elif len(value) >= 2 and value[0] == value[-1] == '"':
            value = re.sub(r'\\([\\"n])', lambda m: "\n" if m.group(1) == "n" else m.group(1), value[1:-1])
        else:
            value = re.split(r"\s+#", value, maxsplit=1)[0].strip()
        out[key] = value
    return out


def _closing_brace(text: str, start: int) -> int:
    """The index of the `}` closing the `${` whose body starts at `start` (nested `${...}` skipped); -1 if none."""
    depth, i = 1, start
    while i < len(text):
        if text.startswith("${", i):
            depth += 1
            i += 2
            continue
        if text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def expand(text: str, values: Values, *, compose: bool, arrays: Optional[dict] = None,
           limit: Optional[int] = None) -> str:
    """`text` with its variables replaced (a compose value, or a shell word's double-quoted or bare part): an unset
    variable with no default is kept as written and named in values.missing. `compose`: `$$` is a literal `$` (the
    Compose spec); in a script `$$`, `$(...)` and backquotes are kept as written (a value kvplan cannot know).
    `limit`: ExpansionTooLong once the result passes that many characters (checked as it grows, as
    expand_kubernetes does: a Dockerfile's ENV lines that each hold the previous value twice)."""
    out: list[str] = []
    size = 0
    i = 0
    while i < len(text):
        if limit is not None and size > limit:
            raise ExpansionTooLong(f"more than {limit:,} characters")
        ch = text[i]
        if ch != "$":
            out.append(ch)
            size += 1
            i += 1
            continue
        if text.startswith("$$", i):
            out.append("$" if compose else "$$")
            i += 2
        elif text.startswith("${", i):
            end = _closing_brace(text, i + 2)
            if end < 0:
                raise InputError("--from", f"{text[i:]!r}: a ${{ with no closing }}", "close the variable's braces")
            out.append(_parameter(text[i:end + 1], text[i + 2:end], values, compose, arrays, limit))
            i = end + 1
        elif m := _NAME.match(text, i + 1):
            out.append(_parameter(text[i:m.end()], m.group(0), values, compose, arrays, limit))
            i = m.end()
        else:
            out.append(ch)  # '$@', '$1', '$(', a lone '$': kept as written
            i += 1
        size += len(out[-1])
    if limit is not None and size > limit:
        raise ExpansionTooLong(f"more than {limit:,} characters")
    return "".join(out)


_OPERATOR = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\[([@*0-9]+)\])?(?:(:?[-?+=])(.*))?$", re.S)


def _parameter(expr: str, body: str, values: Values, compose: bool, arrays: Optional[dict],
               limit: Optional[int] = None) -> str:
    """One `${NAME[op word]}` (or `$NAME`) as the Compose spec and the shell read it."""
    m = _OPERATOR.match(body)
    if not m:
        return expr  # ${#VAR}, ${VAR/x/y}, ...: kept as written, a value kvplan does not work out
    name, index, op, word = m.group(1), m.group(2), m.group(3), m.group(4)
    if index is not None:
        items = (arrays or {}).get(name)
        if items is None:
            return expr
        return " ".join(items) if index in "@*" else (items[int(index)] if int(index) < len(items) else "")
    value, where = values.lookup(name)
    if name in values.uncertain:
        values.missing.setdefault(name, "the script sets it on some paths only")
        return expr
    if value is None and arrays and name in arrays:  # $args: an array's first element
        value, where = (arrays[name][0] if arrays[name] else ""), None
    unset, empty = value is None, not value
    if op is None:
        if unset:
            values.missing.setdefault(name, "")
            return expr
        values.note(expr, value, where)
        return value
    word = expand(word, values, compose=compose, arrays=arrays, limit=limit)
    use_word = (empty if op.startswith(":") else unset)
    if op[-1] in "-=":
        if use_word:
            values.note(expr, word, "its default" if unset else f"its default: empty in {where or 'the script'}")
            return word
        values.note(expr, value, where)
        return value
    if op[-1] == "+":
        return "" if use_word else word
    # ? and :?: the value, or an error at run time (kept as written: refused where it is planned)
    if use_word:
        values.missing.setdefault(name, word)
        return expr
    values.note(expr, value, where)
    return value


# Linux's MAX_ARG_STRLEN (32 pages of 4 KiB, include/uapi/linux/binfmts.h): the longest one argument or environment
# string execve takes (E2BIG beyond it), so the container of a longer expanded word or value never starts
MAX_ARG_STRLEN = 131_072


class ExpansionTooLong(ValueError):
    """expand_kubernetes' result would pass `limit` characters (references that double a value at each step)."""


def expand_kubernetes(text: str, lookup: Callable[[str], Optional[str]], limit: Optional[int] = None) -> str:
    """`text` (a container's command or args word, or an env value) as the kubelet expands it: `$(NAME)` replaced by
    lookup(NAME), and kept as written where lookup gives None (Kubernetes leaves a reference it cannot resolve
    unchanged); `$$` a literal `$` (so `$$(NAME)` is the text `$(NAME)`); any other `$` (`$NAME`, `${NAME}`, an unclosed
    `$(`) left as written, for the shell if one runs the words. (The Kubernetes API reference, Container.command/args
    and EnvVar.value: "Variable references $(VAR_NAME) are expanded using the previously defined environment variables
    in the container and any service environment variables. If a variable cannot be resolved, the reference in the
    input string will be unchanged. Double $$ are reduced to a single $, which allows for escaping the $(VAR_NAME)
    syntax".) `limit`: ExpansionTooLong once the result passes that many characters (checked as it grows, so
    references to a value that doubles at each step stop there rather than filling the memory)."""
    out: list[str] = []
    size = 0
    i = 0
    while i < len(text):
        if limit is not None and size > limit:
            raise ExpansionTooLong(f"more than {limit:,} characters")
        if text[i] != "$" or i + 1 == len(text):
            out.append(text[i])
            size += 1
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "$":
            out.append("$")
            size += 1
            i += 2
            continue
        end = text.find(")", i + 2) if nxt == "(" else -1
        if end < 0:  # `$x`, `${x}`, an unclosed `$(`: the two characters as written
            out.append(text[i:i + 2])
            size += 2
            i += 2
            continue
        value = lookup(text[i + 2:end])
        out.append(text[i:end + 1] if value is None else value)
        size += len(out[-1])
        i = end + 1
    if limit is not None and size > limit:
        raise ExpansionTooLong(f"more than {limit:,} characters")
    return "".join(out)


_K8S_REF = re.compile(r"\$\(([^)]*)\)")


def kubernetes_refs(text: str) -> list[str]:
    """The names of the `$(NAME)` references left in a word."""
    return _K8S_REF.findall(text)


def unresolved(text: str) -> list[str]:
    """The variables (as written) left in a word: `${MAX_LEN}`, `$MODEL`."""
    return [m.group(0) + ("}" if m.group(0).startswith("${") else "") for m in _UNRESOLVED.finditer(text)]


# ---- a script's words -----------------------------------------------------------------------------------------------


def shell_words(line: str, values: Values, arrays: Optional[dict] = None) -> list[str]:
    """The words bash makes of `line`: quotes, backslashes and a `#` comment read; variables expanded (values, arrays);
    an unquoted expansion split on blanks; `"${arr[@]}"` one word per element; `"$@"` the words of arrays["@"] (a
    Kubernetes `sh -c SCRIPT NAME ARGS...`'s ARGS), else none (a script file runs with no arguments)."""
    words: list[str] = []
    cur: list[str] = []
    started = False
    i, n = 0, len(line)

    def flush():
        nonlocal cur, started
        if started:
            words.append("".join(cur))
        cur, started = [], False

    while i < n:
        ch = line[i]
        if ch in " \t\r\n":
            flush()
            i += 1
        elif ch == "#" and not started:
            break
        elif ch == "\\":
            if i + 1 < n and line[i + 1] != "\n":
                cur.append(line[i + 1])
            started = True
            i += 2
        elif ch == "'":
            end = line.find("'", i + 1)
            if end < 0:
                raise InputError("--from", "an unclosed ' quote in the command", "check its quotes")
            cur.append(line[i + 1:end])
            started = True
            i = end + 1
        elif ch == '"':
            j, part = i + 1, []
            while j < n and line[j] != '"':
                if line[j] == "\\" and j + 1 < n and line[j + 1] in '$`"\\\n':
                    part.append(line[j:j + 2])
                    j += 2
                else:
                    part.append(line[j])
                    j += 1
            if j >= n:
                raise InputError("--from", 'an unclosed " quote in the command', "check its quotes")
            body = "".join(part)
            i = j + 1
            whole = re.fullmatch(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\[@\]\}|\$@|\$\{@\}", body)
            if whole and not started and (i >= n or line[i] in " \t\r\n"):
                if whole.group(1) and arrays is not None and whole.group(1) in arrays:
                    words.extend(arrays[whole.group(1)])  # "${args[@]}": each element one word
                    continue
                if not whole.group(1):  # "$@": the script's arguments (arrays["@"], `sh -c SCRIPT NAME ARGS...`'s), else none
                    words.extend(arrays.get("@", []) if arrays is not None else [])
                    continue
            cur.append(_unescape_double(expand(_mark_escapes(body), values, compose=False, arrays=arrays)))
            started = True
        elif line.startswith("$(", i) or ch == "`":
            # an unquoted command substitution or arithmetic ($(...), $((...)), `...`): one piece of the word, kept
            # as written (its output is no value kvplan can know), whatever blanks, ; or | it holds
            end = closing_bracket(line, i + 1, "(", ")") if ch == "$" else line.find("`", i + 1)
            if end < 0:
                raise InputError("--from", f"an unclosed {'$(' if ch == '$' else '`'} in the command",
                                 "check its parentheses and quotes")
            cur.append(line[i:end + 1])
            started = True
            i = end + 1
        elif ch == "$":
            end = _closing_brace(line, i + 2) if line.startswith("${", i) else -1
            token = line[i:end + 1] if end >= 0 else re.match(r"\$[A-Za-z_][A-Za-z0-9_]*|\$[@*0-9#?$!-]?",
                                                              line[i:]).group(0)
            i += len(token)
            if token in ("$@", "$*", "${@}", "${*}") and not (arrays and arrays.get("@")):
                started = started or bool(cur)
                continue
            if token in ("$@", "$*", "${@}", "${*}"):  # the arguments, each split on blanks as unquoted
                items = [w for arg in arrays["@"] for w in arg.split()]
                for k, item in enumerate(items):
                    if k:
                        flush()
                    cur.append(item)
                    started = True
                continue
            arr = re.fullmatch(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\[[@*]\]\}", token)
            if arr and arrays is not None and arr.group(1) in arrays:
                items = list(arrays[arr.group(1)])
            else:
                value = expand(token, values, compose=False, arrays=arrays)
                items = [value] if value == token else value.split()
            for k, item in enumerate(items):  # word splitting of an unquoted expansion
                if k:
                    flush()
                cur.append(item)
                started = True
        else:
            cur.append(ch)
            started = True
            i += 1
    flush()
    return words


_ESCAPED = "\x00"


def _mark_escapes(body: str) -> str:
    r"""A double-quoted body with its \$ kept from expansion (marked), the other escapes left for _unescape_double."""
    return body.replace("\\$", _ESCAPED)


def _unescape_double(text: str) -> str:
    return re.sub(r'\\([`"\\\n])', r"\1", text).replace(_ESCAPED, "$")


_BLOCK_OPEN = re.compile(r"^(if|for|while|until|case|select)\b|\{\s*$|\(\)\s*\{")
_BLOCK_CLOSE = re.compile(r"^(fi|done|esac|\})\b")
_ASSIGN = re.compile(r"^(?:export\s+|declare\s+(?:-[a-zA-Z]+\s+)*|local\s+|readonly\s+)?([A-Za-z_][A-Za-z0-9_]*)(\+?)=(.*)$", re.S)
_SOURCE = re.compile(r"(?:^|[;&|]\s*|\bthen\s+)(?:\.|source)\s+([^\s;&|]+)")


def _closes_array(line: str) -> bool:
    """The line ends an array's `( ... )`: its code (not a comment line) ends with `)`."""
    code = line.strip()
    return not code.startswith("#") and bool(re.search(r"\)\s*(#[^'\"]*)?$", code))


def run_script(lines: list[str], folder: Optional[Path], values: Values,
               is_command: Callable[[str], bool], *, read_files: bool = True) -> tuple[dict, Optional[str]]:
    """Follow the script's lines (continuations joined) up to its `vllm serve` line (is_command): (its arrays, that
    line); its variables go to values.assigned, the names it sets on some paths only (inside an if / loop / case, or
    appended to) to values.uncertain. A `.env` it sources is read from `folder` where it is there (as the usual
    `[[ -f .env ]]` guard does); values.exported names the variables `set -a` exports from it. `read_files` False (a
    script's text pasted on the page: the server reads no file of its own): every file it sources is left unread,
    named where a variable has no value."""
    arrays: dict = {}
    exported: set = set()
    all_export = False
    depth = 0
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        if not line or line.startswith("#"):
            continue
        if is_command(line):
            for name in exported:
                value, _ = values.lookup(name)
                if value is not None and name not in values.uncertain:
                    values.environment[name] = value
            return arrays, line
        if re.match(r"^set\s+[-+]\w*a", line):  # set -a / set +a: every variable set meanwhile exported
            all_export = line.split()[1].startswith("-")
        for name in re.findall(r"^export\s+([A-Za-z_][A-Za-z0-9_ ]*)$", line):  # export NAME [NAME...]
            exported.update(name.split())
        for m in _SOURCE.finditer(line):
            target = m.group(1).strip("'\"")
            if not read_files:
                values.unread.append(target)
                continue
            path = (folder / target) if folder is not None and not Path(target).is_absolute() else Path(target)
            if path.name.endswith(".env"):
                values.dotenv_path = str(path)
                if path.is_file():
                    for name, value in dotenv(path).items():
                        values.assigned[name] = value
                        values.assigned_from[name] = str(path)
                        if all_export:
                            exported.add(name)
                        values.uncertain.discard(name)
                continue
            values.unread.append(target)  # a venv's activate, a site's profile: named where a variable has no value
        first = re.split(r"\s*;\s*", line, maxsplit=1)[0]
        if _BLOCK_CLOSE.match(first):
            depth = max(0, depth - 1)
            continue
        if _BLOCK_OPEN.search(first) and not re.search(r"\b(fi|done|esac)\s*$", line):
            depth += 1
            continue
        m = _ASSIGN.match(line)
        if m and m.group(3).startswith("(") and not m.group(2):  # an array: name=( ... ) over one or more lines
            parts = [m.group(3)[1:]]
            while not _closes_array(parts[-1]) and i < len(lines):
                parts.append(lines[i])
                i += 1
            if not _closes_array(parts[-1]):
                raise InputError("--from", f"the script's array {m.group(1)}=( has no closing )", "close it")
            parts[-1] = re.sub(r"\)\s*(#.*)?$", "", parts[-1].strip())
            items: list[str] = []
            for part in parts:
                items += shell_words(part, values, arrays)
            arrays[m.group(1)] = items
            values.assigned.pop(m.group(1), None)
            if depth:
                values.uncertain.add(m.group(1))
            continue
        if m and len(_raw_words(m.group(3))) > 1 and not re.search(r"[;&|]", _code(m.group(3))):
            continue  # NAME=value cmd ...: the variable is that command's alone
        if m:
            name, append, rhs = m.group(1), m.group(2), m.group(3)
            words = shell_words(rhs, values, arrays) if rhs.strip() else [""]
            if append or depth:
                values.uncertain.add(name)
                continue
            values.assigned[name] = " ".join(words)
            values.assigned_from.pop(name, None)
            if all_export or line.startswith("export "):
                exported.add(name)
            values.uncertain.discard(name)
            arrays.pop(name, None)
            continue
        un = re.match(r"^unset\s+([A-Za-z_][A-Za-z0-9_ ]*)", line)
        if un:
            for name in un.group(1).split():
                if depth:
                    values.uncertain.add(name)
                else:
                    values.assigned.pop(name, None)
                    arrays.pop(name, None)
            continue
        # whatever else sets or unsets a variable (a one-line if, `[[ ... ]] && X=1`, a case arm, a loop, read, a
        # function's body): its value is not followed, so a use of it is refused
        for name in re.findall(r"\bunset\s+([A-Za-z_][A-Za-z0-9_]*)", line):
            values.uncertain.add(name)
        for name in re.findall(r"(?:^|[\s;&|()])([A-Za-z_][A-Za-z0-9_]*)\+?=", _code(line)):
            values.uncertain.add(name)
        for names in re.findall(r"\b(?:read|for|select)\s+(?:-\w+\s+)*([A-Za-z_][A-Za-z0-9_ ]*)", _code(line)):
            values.uncertain.update(n for n in names.split() if n not in ("in", "do"))
    return arrays, None


def _raw_words(text: str) -> list[str]:
    """`text` split as the shell splits it before expansion (quotes kept together); [text] where it does not parse."""
    try:
        return shlex.split(text, comments=True)
    except ValueError:
        return [text]


def _code(line: str) -> str:
    """`line` without its quoted parts and its comment: where an assignment is code, not text."""
    line = re.sub(r"'[^']*'|\"(?:\\.|[^\"\\])*\"", "''", line)
    return re.sub(r"(^|\s)#.*$", "", line)
