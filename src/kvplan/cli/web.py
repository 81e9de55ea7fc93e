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
                         "pip install '.[web]' in kvplan's checkout, as the README does (or pip install fastapi uvicorn "
                         "python-multipart)") from None
    from kvplan.web.app import create_app

    return uvicorn, create_app


@app.command()
def web(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind. Loopback by default; anything else exposes the page to your network."),
    port: int = typer.Option(8000, "--port", help="TCP port."),
) -> None:
    """Serve the planner as a local web page (http://127.0.0.1:8000); opens nothing by itself.

    Examples:
    $ kvplan web
    $ kvplan web --port 8080
    """
    import tempfile

    from kvplan.deploy import check_port

    check_port(port)
    check_host(host)
    uvicorn, create_app = _web_stack()
    check_port_free(host, port)
    if host not in LOOPBACK_HOSTS:
        err_console.print(f"[yellow]warning:[/] binding {host}: anyone who can reach this address can use the planner "
                          "(Hub lookups use this server's credentials).", highlight=False)
    err_console.print(f"kvplan web on http://{'[' + host + ']' if ':' in host else host}:{port}/  (Ctrl+C to stop)", highlight=False)
    with tempfile.TemporaryDirectory(prefix="kvplan-web-") as uploads:  # uploaded files go with the server
        uvicorn.run(create_app(upload_dir=uploads, allowed_hosts=allowed_hosts(host)), host=host, port=port, log_level="warning")


def check_host(host: str) -> None:
    """InputError naming --host for an address that names nothing: "" (or spaces) would bind every interface of the
    machine unannounced, which takes saying 0.0.0.0."""
    from kvplan.errors import InputError

    if not host.strip() or host != host.strip():
        raise InputError("--host", f"{host!r} is not an address", "127.0.0.1 (this machine only, the default), or "
                         "0.0.0.0 to listen on every interface")


def allowed_hosts(host: str) -> list[str]:
    """The Host header values served: loopback names and the address bound, so that a page from another site that
    rebinds its DNS name to this machine is refused (400)."""
    return list(dict.fromkeys(["127.0.0.1", "localhost", "[::1]", host if ":" not in host else f"[{host}]"]))


def check_port_free(host: str, port: int) -> None:
    """InputError naming --port when the address cannot be bound (in use, or not this machine's), before anything
    is announced."""
    import socket

    from kvplan.errors import InputError

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except (socket.gaierror, UnicodeError) as exc:  # a name that resolves to no address of this machine
            raise InputError("--host", f"cannot resolve {host!r} ({getattr(exc, 'strerror', None) or exc})",
                             "an address of this machine, e.g. 127.0.0.1") from None
        except OSError as exc:
            raise InputError("--port", f"cannot listen on {host}:{port} ({exc.strerror or exc})",
                             f"stop what uses it, or choose another port, e.g. --port {port + 1 if port < 65535 else 8000}") from None
