"""`kvplan web`: serve the planner as a local page (and its JSON API) with uvicorn."""

from __future__ import annotations

import typer

from kvplan.cli import app, err_console

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def _web_stack():
    """uvicorn and the app factory, or an InputError naming the extra to install."""
    from kvplan.errors import InputError

    try:
        import fastapi  # noqa: F401
        import uvicorn
    except ImportError as exc:
        raise InputError("web", f"the web page needs FastAPI and uvicorn ({exc.name} is not installed)",
                         "pip install 'kvplan[web]'") from None
    from kvplan.web.app import create_app

    return uvicorn, create_app


@app.command()
def web(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind. Loopback by default; anything else exposes the page to your network."),
    port: int = typer.Option(8000, "--port", help="TCP port."),
) -> None:
    """Serve the planner as a local web page (http://127.0.0.1:8000); opens nothing by itself."""
    uvicorn, create_app = _web_stack()
    if host not in LOOPBACK_HOSTS:
        err_console.print(f"[yellow]warning:[/] binding {host}: anyone who can reach this address can use the planner "
                          "(Hub lookups use this server's credentials).", highlight=False)
    err_console.print(f"kvplan web on http://{'[' + host + ']' if ':' in host else host}:{port}/  (Ctrl+C to stop)", highlight=False)
    uvicorn.run(create_app(), host=host, port=port, log_level="warning")
