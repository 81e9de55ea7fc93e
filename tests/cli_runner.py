"""`kvplan ARGS` run in this process, as the console script runs it: the helper the CLI tests share."""

from __future__ import annotations

import json
import re
import time
import sys

from kvplan.cli import main


def run_cli(monkeypatch, capsys, *args: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `kvplan ARGS`; KVPLAN_DEBUG unset, so errors print as a user sees them."""
    monkeypatch.setattr(sys, "argv", ["kvplan", *args])
    monkeypatch.delenv("KVPLAN_DEBUG", raising=False)
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0
    out = capsys.readouterr()
    return code, out.out, out.err


def refused(monkeypatch, capsys, field: str, *args: str) -> str:
    """The output of `kvplan ARGS`, asserted to be an input error (exit 2, no traceback) naming `field`."""
    code, out, err = run_cli(monkeypatch, capsys, *args)
    text = " ".join((out + err).split())
    assert code == 2, text
    assert "Traceback" not in text and "internal error" not in text, text
    assert f"error: {field}:" in text, text
    return text


def refused_at_once(monkeypatch, capsys, field: str, *args: str) -> str:
    """refused(), within 20 s and in under 2,000 characters: an input built to blow up (a YAML alias bomb) is refused
    without being written out."""
    start = time.monotonic()
    text = refused(monkeypatch, capsys, field, *args)
    assert time.monotonic() - start < 20 and len(text) < 2000
    return text


def hub_offline(monkeypatch, tmp_path) -> None:
    """The Hugging Face Hub unreachable and an empty HF cache, as on a machine without network."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)


def planned_json(monkeypatch, capsys, *args: str) -> dict:
    """`kvplan ARGS --json` parsed, asserted to have answered (exit 0, or 1 for a plan that does not start)."""
    code, out, err = run_cli(monkeypatch, capsys, *args, "--json")
    assert code in (0, 1), out + err
    return json.loads(out)


def scaffolded(monkeypatch, capsys, folder, *args: str) -> int:
    """`kvplan scaffold FOLDER ARGS`, asserted to have written the files; the KV-cache tokens it planned (serve.sh's
    expected startup line)."""
    code, _, err = run_cli(monkeypatch, capsys, "scaffold", str(folder), *args)
    assert code == 0, err
    return int(re.search(r"GPU KV cache size: ([\d,]+) tokens", (folder / "serve.sh").read_text()).group(1)
               .replace(",", ""))
