"""A test helper: set one value deep inside a nested dict (a record, a config) by its path of keys."""

from __future__ import annotations


def set_nested(obj: dict, keys: list[str], value) -> None:
    """obj[k0][k1]...[kn] = value, the parents existing."""
    *parents, last = keys
    for key in parents:
        obj = obj[key]
    obj[last] = value
