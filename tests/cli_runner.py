"""`kvplan ARGS` run in this process, as the console script runs it: the helper the CLI tests share."""

from __future__ import annotations

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
