"""A new user's pass over the commands the README shows: what they typed, what kvplan answered, and what they expected."""

from __future__ import annotations

import json

import pytest

from cli_runner import run_cli


@pytest.mark.parametrize("name, card", [("h100-80gb", "NVIDIA H100 80GB SXM5"), ("rtx4090", "NVIDIA GeForce RTX 4090"),
                                        ("GPU 0: NVIDIA L4", "NVIDIA L4")])
def test_gpus_lists_the_card_a_gpu_flag_of_that_name_plans(monkeypatch, capsys, name, card):
    """`kvplan gpus h100-80gb` said 'no GPU contains' (nearest: 1080, A800-80GB, A100 80GB) while `fit --gpu h100-80gb`
    planned the H100 80GB SXM5: the listing filtered by substring only."""
    code, out, err = run_cli(monkeypatch, capsys, "gpus", name, "--json")
    assert code == 0 and [g["name"] for g in json.loads(out)] == [card], out
    code, out, err = run_cli(monkeypatch, capsys, "gpus", name)
    assert code == 0 and card.split()[-1] in out and "no GPU contains" not in err, out + err
    assert f"is read as {card}" in " ".join(err.split()), err


def test_gpus_still_says_when_nothing_matches(monkeypatch, capsys):
    code, out, err = run_cli(monkeypatch, capsys, "gpus", "zzz")
    assert code == 0 and "no GPU contains 'zzz'" in err and "read as" not in err
