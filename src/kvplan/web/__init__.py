"""`kvplan web`: a local page and JSON API over the same library as the CLI.

`create_app()` (in `kvplan.web.app`) builds the FastAPI application; `kvplan.web.svg`
draws the charts server-side. The page adds no arithmetic of its own: every number
comes from `kvplan.api.fit`, `kvplan.api.sweep_rows` and `kvplan.render`.
Needs the optional extra: `pip install '.[web]'` in the checkout.
"""

from __future__ import annotations

__all__ = ["create_app"]


def create_app(**kwargs):
    from kvplan.web.app import create_app as _create_app

    return _create_app(**kwargs)
