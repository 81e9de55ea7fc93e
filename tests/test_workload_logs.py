"""Traces in the forms people have them: OpenAI-style API logs (token counts in a usage object, nested or not, the
arrival in 'created' or a timestamp field) are read, with a note of the fields read; an arrival column whose unit
gives an implausible rate (milliseconds under a seconds name, or the reverse) is read with a warning naming the
column and the fix."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cli_runner import run_cli
from kvplan.errors import InputError
from kvplan.workload import BUNDLED, WorkloadSpec, build_workload

QWEN8 = "Qwen/Qwen3-8B"


def _jsonl(path, objs):
    path.write_text("".join(json.dumps(o) + "\n" for o in objs))
    return str(path)


def _load(path, **kw):
    return build_workload(WorkloadSpec(workload=str(path), **kw))


def test_an_openai_chat_completion_log_is_read(tmp_path):
    """{"usage": {"prompt_tokens", "completion_tokens"}, "created": Unix seconds} was refused ('no prompt/completion
    token columns among [...]'); its counts and arrivals are now read, and a note names the fields."""
    created = [1718000000 + 3 * i for i in range(30)]
    objs = [{"id": f"chatcmpl-{i}", "object": "chat.completion", "created": t, "model": "m",
             "usage": {"prompt_tokens": 812 + i, "completion_tokens": 240 - i, "total_tokens": 1052}}
            for i, t in enumerate(created)]
    w = _load(_jsonl(tmp_path / "log.jsonl", objs))
    assert w.prompt_tokens.tolist() == [812 + i for i in range(30)]
    assert w.completion_tokens.tolist() == [240 - i for i in range(30)]
    assert w.arrival_s.tolist() == [t - created[0] for t in created]
    note = next(n for n in w.notes if n.startswith("read as an API log"))
    assert "usage.prompt_tokens" in note and "usage.completion_tokens" in note and "created (Unix seconds)" in note


def test_a_request_response_log_drops_lines_without_usage_and_reads_a_timestamp(tmp_path):
    """{"request": ..., "response": {"usage": ...}}: the counts under response.usage; the logger's own ISO timestamp
    (top level) is the arrival, before the response's whole-second 'created'; a first line that is an error response
    (no usage) is dropped and said, and does not hide the usage columns."""
    objs = [{"request": {"model": "m"}, "response": {"error": {"message": "rate limited"}},
             "timestamp": "2024-06-10T12:00:00Z"}]
    objs += [{"request": {"model": "m", "messages": [{"role": "user", "content": "hi"}]},
              "response": {"created": 1718020800, "usage": {"prompt_tokens": 500 + i, "completion_tokens": 100}},
              "timestamp": f"2024-06-10T12:00:{i:02d}.500Z"} for i in range(20)]
    w = _load(_jsonl(tmp_path / "log.jsonl", objs))
    assert len(w) == 20 and w.prompt_tokens.tolist() == [500 + i for i in range(20)]
    assert w.arrival_s == pytest.approx(np.arange(20.0))
    note = next(n for n in w.notes if n.startswith("read as an API log"))
    assert "response.usage.prompt_tokens" in note and "timestamp (a date and time)" in note
    assert "dropped 1 line without usage" in note


def test_batch_output_and_responses_api_usage(tmp_path):
    """The Batch API's output lines (response.body.usage) and the Responses API's input_tokens / output_tokens; a
    numeric timestamp past 1e11 is Unix milliseconds."""
    objs = [{"custom_id": str(i), "response": {"status_code": 200, "body": {
        "created_at": 1718000000, "usage": {"input_tokens": 300, "output_tokens": 50 + i}}},
        "timestamp": 1718000000000 + 500 * i} for i in range(10)]
    w = _load(_jsonl(tmp_path / "batch.jsonl", objs))
    assert w.completion_tokens.tolist() == [50 + i for i in range(10)]
    assert w.arrival_s == pytest.approx(0.5 * np.arange(10))
    note = next(n for n in w.notes if n.startswith("read as an API log"))
    assert "response.body.usage.input_tokens" in note and "timestamp (Unix milliseconds)" in note


def test_an_api_log_without_a_time_needs_a_rate_and_a_bad_time_is_named(tmp_path):
    objs = [{"usage": {"prompt_tokens": 10, "completion_tokens": 5}} for _ in range(5)]
    w = _load(_jsonl(tmp_path / "untimed.jsonl", objs), rate_per_s=2.0)
    assert len(w) == 5 and any("no arrival time" in n for n in w.notes)
    objs = [{"usage": {"prompt_tokens": 10, "completion_tokens": 5}, "created": c} for c in (1, 2, "soon")]
    with pytest.raises(InputError) as e:
        _load(_jsonl(tmp_path / "bad.jsonl", objs))
    assert e.value.field == "--workload" and "created" in e.value.message and "request 3" in e.value.message


def test_simulate_reads_an_api_log_and_says_which_fields(monkeypatch, capsys, tmp_path):
    objs = [{"created": 1718000000 + i, "usage": {"prompt_tokens": 800, "completion_tokens": 100}} for i in range(60)]
    path = _jsonl(tmp_path / "log.jsonl", objs)
    code, out, err = run_cli(monkeypatch, capsys, "simulate", QWEN8, "--gpu", "L4", "--max-model-len", "8192", "-w", path)
    assert code == 0, err
    text = " ".join(out.split())
    assert "read as an API log: prompt tokens from usage.prompt_tokens" in text
    # 60 requests, one a second by their 'created' times
    assert "workload log.jsonl: 60 requests, prompt mean 800" in text and "1.00 req/s" in text


def test_an_api_logs_created_in_milliseconds_is_warned_and_sparse_seconds_are_not(tmp_path):
    """'created' is Unix seconds (as the API gives it): a log that wrote milliseconds there (1718000000123) is warned,
    naming the column and the fix; whole seconds a request every five minutes are not."""
    objs = [{"created": 1718000000123 + 1000 * i, "usage": {"prompt_tokens": 10, "completion_tokens": 5}} for i in range(10)]
    w = _load(_jsonl(tmp_path / "ms.jsonl", objs))
    warning = next(n for n in w.notes if n.startswith("warning:"))
    assert "arrival column 'created' is read in seconds" in warning and "write created in Unix seconds" in warning
    objs = [{"created": 1718000000 + 300 * i, "usage": {"prompt_tokens": 10, "completion_tokens": 5}} for i in range(10)]
    w = _load(_jsonl(tmp_path / "sparse.jsonl", objs))
    assert not [n for n in w.notes if n.startswith("warning:")], w.notes


def _csv(path, column, times):
    path.write_text(f"{column},prompt_tokens,completion_tokens\n" + "".join(f"{t},500,50\n" for t in times))
    return str(path)


@pytest.mark.parametrize("column,times,needle", [
    ("arrival_s", [1718000000123 + 250 * i for i in range(40)], "a Unix time in milliseconds"),  # epoch ms
    ("arrival_s", [1000 * i for i in range(40)], "read as milliseconds they give 1 req/s"),  # ~1,000 a request
    ("arrival_time", [250 * i for i in range(40)], "read as milliseconds they give 4 req/s"),
])
def test_milliseconds_under_a_seconds_name_are_warned(tmp_path, column, times, needle):
    w = _load(_csv(tmp_path / "t.csv", column, times))
    warning = next((n for n in w.notes if n.startswith("warning:")), None)
    assert warning is not None, w.notes
    assert f"arrival column {column!r} is read in seconds" in warning and needle in warning
    assert "name the column arrival_ms" in warning


def test_seconds_under_a_milliseconds_name_are_warned(tmp_path):
    w = _load(_csv(tmp_path / "t.csv", "arrival_ms", [f"{0.25 * i:.2f}" for i in range(40)]))
    warning = next(n for n in w.notes if n.startswith("warning:"))
    assert "arrival column 'arrival_ms' is read in milliseconds" in warning and "4,000 req/s" in warning
    assert "name the column arrival_s" in warning


@pytest.mark.parametrize("column,times", [
    ("arrival_s", [0.25 * i for i in range(40)]),  # 4 req/s in seconds
    ("arrival_s", [50 * i for i in range(40)]),  # a sparse trace: a request every 50 s (0.02 req/s) is kept quiet
    ("arrival_s", [1718000000 + 2 * i for i in range(40)]),  # Unix seconds
    ("arrival_ms", [250 * i for i in range(40)]),  # 4 req/s in milliseconds
    ("arrival_s", [0] * 40),  # all at once
])
def test_plausible_arrivals_are_not_warned(tmp_path, column, times):
    w = _load(_csv(tmp_path / "t.csv", column, times))
    assert not [n for n in w.notes if n.startswith("warning:")], w.notes


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_bundled_traces_are_not_warned(name):
    w = build_workload(WorkloadSpec(workload=name, rate_per_s=1.0))
    assert not [n for n in w.notes if n.startswith(("warning:", "read as an API log"))], w.notes


def test_capacity_prints_the_warning(monkeypatch, capsys, tmp_path):
    path = _csv(tmp_path / "t.csv", "arrival_s", [1000 * i for i in range(40)])
    code, out, err = run_cli(monkeypatch, capsys, "capacity", QWEN8, "--gpu", "L4", "--max-model-len", "8192",
                             "-w", path, "--slo", "ttft=5s,tpot=100ms")
    assert code == 0, err
    assert "warning: arrival column 'arrival_s' is read in seconds" in " ".join(err.split())
