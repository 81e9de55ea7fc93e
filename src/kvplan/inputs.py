"""Reading the files users hand kvplan: gzip is opened transparently (by its magic bytes, whatever the name),
UTF-16 with a byte-order mark (as Windows PowerShell 5's `>` writes) is decoded, anything else must be UTF-8."""

from __future__ import annotations

import gzip
import io
import json
import os
import zlib
from pathlib import Path
from typing import IO, Optional

from kvplan.errors import ConfigError, InputError

GZIP_MAGIC = b"\x1f\x8b"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def _head(stream: IO[bytes], n: int = 4) -> bytes:
    peek = getattr(stream, "peek", None)
    return peek(n)[:n] if peek is not None else b""


def open_binary(source) -> IO[bytes]:
    """A path or a binary stream, un-gzipped when it starts with gzip's magic bytes."""
    stream = open(Path(source), "rb") if isinstance(source, (str, Path)) else source
    if not hasattr(stream, "peek"):
        stream = io.BufferedReader(stream)  # type: ignore[arg-type]
    if _head(stream, 2) == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=stream)  # type: ignore[return-value]
    return stream


# what reading a gzip stream raises when the file is cut short (EOFError), has bytes after its end or a broken header
# (BadGzipFile), or a corrupt deflate body (zlib.error)
GZIP_ERRORS = (gzip.BadGzipFile, EOFError, zlib.error)


def existing_file(ref, field: str, fix: str) -> Path:
    """The path of a file a command names; InputError naming `field` when there is no such file (or a folder is named)."""
    path = Path(ref)
    if path.is_dir():
        raise InputError(field, f"{ref} is a folder, not a file", fix)
    # a pipe (`<(zcat x.gz)`, /dev/stdin) reads as a file does; only a name that is nothing is refused
    if not path.exists():
        raise InputError(field, f"no such file: {ref}", fix)
    return path


def input_name(source, default: str = "the input") -> str:
    """How an error names an input: a path as given, "standard input", a stream's file name, else `default`."""
    if isinstance(source, (str, os.PathLike)):
        return str(source)
    name = getattr(source, "name", None)
    if name in ("<stdin>", 0):  # sys.stdin and its buffer, as a Python stream names them
        return "standard input"
    return str(name) if isinstance(name, (str, os.PathLike)) else default


def damaged_gzip(source, what: str, fix: str, field: str = "FILE") -> InputError:
    """The one-line error for a gzip file that cannot be read to its end, naming the file (`input_name`)."""
    return InputError(field, f"{input_name(source)} is a damaged gzip file (cut short, or with bytes after its end); "
                      f"expected {what}", fix)


def utf16_encoding(stream: IO[bytes]) -> Optional[str]:
    """'utf-16' when the stream starts with a UTF-16 byte-order mark, else None."""
    return "utf-16" if _head(stream, 2) in _UTF16_BOMS else None


def read_text(path, what: str, fix: str, field: str = "FILE") -> str:
    """The whole text of a (possibly gzipped) file: UTF-8 (a BOM dropped) or UTF-16 with a BOM. Undecodable
    input is an InputError naming `field` (the argument or flag that gave the file), the file, `what` it should be
    and `fix`."""
    try:
        with open_binary(path) as stream:
            encoding = utf16_encoding(stream) or "utf-8-sig"
            data = stream.read()
        return data.decode(encoding)
    except GZIP_ERRORS:
        raise damaged_gzip(path, what, fix, field) from None
    except (UnicodeDecodeError, OSError) as exc:
        reason = "not text (neither UTF-8 nor UTF-16 with a byte-order mark)" if isinstance(exc, UnicodeDecodeError) else str(exc)
        raise InputError(field, f"{path} is {reason}; expected {what}", fix) from None


def json_loads(text, **kwargs) -> object:
    """json.loads of text a user gave (a file, a flag, an upload), whose every failure is a json.JSONDecodeError, as
    the callers catch: an array nested 100,000 deep raised RecursionError, and an integer of more than 4,300 digits
    ValueError("Exceeds the limit (4300 digits) for integer string conversion"), both "internal error" (exit 3)."""
    try:
        return json.loads(text, **kwargs)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", text if isinstance(text, str) else "", 0) from None
    except ValueError as exc:  # the integer-digits limit (sys.set_int_max_str_digits)
        raise json.JSONDecodeError(str(exc).split(";")[0], text if isinstance(text, str) else "", 0) from None


def read_json_file(path) -> object:
    """A JSON file (config.json, modules.json, ...), decoded as UTF-8 with a byte-order mark dropped (as some Windows
    editors write one). Raises what reading it raises: OSError, UnicodeDecodeError, json.JSONDecodeError."""
    return json_loads(Path(path).read_bytes().decode("utf-8-sig"))


def read_json_object(path: Path, field_name: str) -> dict:
    """A config file (config.json, hf_quant_config.json) that must hold a JSON object, as `read_json_file` reads it;
    what goes wrong is a one-line error naming `field_name`: ConfigError for bytes that are no UTF-8, invalid JSON or
    no object, InputError for a file that cannot be read."""
    try:
        data = read_json_file(path)
    except UnicodeDecodeError:  # not a permissions problem: the bytes are no UTF-8 text
        raise ConfigError(field_name, f"{path} is not UTF-8 text (a config.json is JSON text)",
                          "download the checkpoint's config.json again, or save it as UTF-8") from None
    except OSError as exc:
        raise InputError(field_name, f"cannot read {path}: {exc.strerror or exc}", "check the path and permissions") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(field_name, f"{path} is not valid JSON (line {exc.lineno}: {exc.msg})", "fix the file or download it again") from None
    if not isinstance(data, dict):
        raise ConfigError(field_name, f"{path} does not hold a JSON object", "a config.json is a JSON object of model settings")
    return data


def read_text_or_empty(path: str) -> str:
    """A system file's text (/proc/version, /proc/mounts), undecodable bytes replaced; "" where it cannot be read."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return ""


def closing_bracket(text: str, start: int, opens: str = "([{", closes: str = ")]}") -> int:
    """The index of the bracket closing the one at text[start] (brackets nested inside counted, quoted text skipped:
    a launch file's `$(...)`, a log's `Name(...)` / `{...}`); -1 where the text ends inside it."""
    depth, quote = 0, None
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in opens:
            depth += 1
        elif ch in closes:
            depth -= 1
            if depth <= 0:
                return i
    return -1
