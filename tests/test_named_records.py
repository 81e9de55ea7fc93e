"""tests/named_records.py, the helper the blind-round tests read their named startups through: a test of named records
runs on every record it names or fails naming the ones its file does not hold."""

import pytest

from kvplan.validate import load_records
from named_records import BLIND, DATA, record, records

ABSENT = "no-such-startup-in-any-record-file"


def _held(n: int) -> list[str]:
    """The ids of the blind file's first `n` records, read from the file."""
    return [r["id"] for r in load_records(DATA / BLIND)[:n]]


def test_records_by_id_in_the_files_order_whatever_order_they_are_named_in():
    first, second, third = _held(3)
    recs = records(BLIND, (third, first, second))
    assert list(recs) == [first, second, third]
    assert all(recs[rid]["id"] == rid for rid in recs)
    # a path given whole reads the same file as its name under tests/data
    assert records(DATA / BLIND, (first,)) == {first: recs[first]}


def test_a_missing_id_fails_naming_it_and_not_the_ids_found():
    first, second = _held(2)
    with pytest.raises(AssertionError) as e:
        records(BLIND, (first, ABSENT, second))
    message = str(e.value)
    assert ABSENT in message and BLIND in message
    assert first not in message and second not in message


def test_every_missing_id_is_named_once():
    (first,) = _held(1)
    other = ABSENT + "-too"
    with pytest.raises(AssertionError) as e:
        records(BLIND, (ABSENT, first, other, ABSENT))
    message = str(e.value)
    assert message.count(other) == 1 and message.count(ABSENT) == 2  # ABSENT alone, and inside `other`


def test_one_missing_record_fails_naming_it():
    (first,) = _held(1)
    assert record(BLIND, first)["id"] == first
    with pytest.raises(AssertionError, match=ABSENT):
        record(BLIND, ABSENT)
