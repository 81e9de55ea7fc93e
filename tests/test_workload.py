"""Workloads: bundled traces, user files, synthetic specs, arrivals, caps and resampling."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvplan.errors import InputError
from kvplan.workload import (BUNDLED, TRACES_DIR, WorkloadSpec, build_workload, load_bundled, load_workload_file,
                             parse_length_dist, poisson_gamma_arrivals, with_rate)

# row counts and means from shared/data/traces/README.md
EXPECTED = {"azure-conv": (19366, 1154.7, 211.1), "azure-code": (8819, 2047.8, 27.9),
            "mooncake-conv": (12031, 12035.1, 342.6), "mooncake-synthetic": (3993, 15325.5, 149.1),
            "sharegpt": (30731, 2340.2, 438.8), "arxiv-sum": (28257, 2588.1, 291.4), "bwb": (33768, 1067.1, 1612.6)}


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_bundled_traces_match_their_readme(name):
    w = load_bundled(name)
    rows, pmean, cmean = EXPECTED[name]
    assert len(w) == rows
    assert w.prompt_tokens.mean() == pytest.approx(pmean, rel=1e-3)
    assert w.completion_tokens.mean() == pytest.approx(cmean, rel=1e-3)
    assert w.timed == BUNDLED[name].timed
    if w.timed:
        assert w.arrival_s[0] == 0 and (np.diff(w.arrival_s) >= 0).all()


def test_bundled_files_have_readme_and_stay_small():
    readme = (TRACES_DIR / "README.md").read_text()
    total = 0
    for t in BUNDLED.values():
        assert t.filename in readme
        size = (TRACES_DIR / t.filename).stat().st_size
        assert size < 3_000_000
        total += size
    assert total < 4_000_000
    assert "licen" in readme.lower()


def test_azure_timestamps_and_mooncake_milliseconds():
    az = load_bundled("azure-conv")
    assert az.mean_rate_per_s == pytest.approx(5.53, abs=0.01)  # README: 5.53 req/s over 3,502 s
    assert az.arrival_s[-1] == pytest.approx(3501.7, abs=0.5)
    mc = load_bundled("mooncake-conv")
    assert mc.arrival_s[-1] == pytest.approx(3537, abs=1)  # README: span 0 -> 3,537 s
    assert mc.hash_block_tokens == 512 and len(mc.block_hashes) == len(mc)
    assert mc.block_hashes[0][:3] == (0, 1, 2)


def test_user_csv_and_jsonl(tmp_path):
    csv_path = tmp_path / "w.csv"
    csv_path.write_text("prompt_tokens,completion_tokens,arrival_s\n10,5,0.5\n20,6,0.1\n30,7,0.3\n")
    w = load_workload_file(csv_path)
    assert w.prompt_tokens.tolist() == [20, 30, 10]  # sorted by arrival
    assert w.arrival_s.tolist() == pytest.approx([0.0, 0.2, 0.4])
    jl = tmp_path / "w.jsonl"
    jl.write_text("\n".join(json.dumps(d) for d in (
        {"prompt_tokens": 100, "completion_tokens": 10, "block_hashes": [1, 2, 3]},
        {"prompt_tokens": 50, "completion_tokens": 0},
        {"prompt_tokens": 70, "completion_tokens": 3, "block_hashes": [1, 9]})) + "\n")
    w2 = load_workload_file(jl)
    assert len(w2) == 2 and not w2.timed
    assert w2.block_hashes == ((1, 2, 3), (1, 9)) and w2.hash_block_tokens == 16
    assert any("dropped 1" in n for n in w2.notes)
    neg = tmp_path / "neg.csv"  # a negative count is a broken file, not a request to drop
    neg.write_text("prompt_tokens,completion_tokens\n10,5\n-5,6\n")
    with pytest.raises(InputError) as e:
        load_workload_file(neg)
    assert e.value.field == "--workload" and "request 2 has -5 prompt" in str(e.value)
    one = load_workload_file(csv_path).summary()  # three timed requests have a rate; one request has none (no NaN)
    assert one["mean_rate_per_s"] == pytest.approx(5.0)
    single = tmp_path / "one.csv"
    single.write_text("prompt_tokens,completion_tokens,arrival_s\n10,5,0.5\n")
    assert "mean_rate_per_s" not in load_workload_file(single).summary()
    # the LLMServingSim requests.jsonl shape
    ls = tmp_path / "r.jsonl"
    ls.write_text(json.dumps({"input_toks": 5, "output_toks": 6, "arrival_time": 1000.5}) + "\n"
                  + json.dumps({"input_toks": 7, "output_toks": 8, "arrival_time": 1001.0}) + "\n")
    w3 = load_workload_file(ls)
    assert w3.arrival_s.tolist() == [0.0, 0.5]


def test_bad_files_raise_input_error(tmp_path):
    with pytest.raises(InputError):
        load_workload_file(tmp_path / "missing.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    with pytest.raises(InputError) as e:
        load_workload_file(bad)
    assert e.value.field == "--workload"
    bad2 = tmp_path / "bad.jsonl"
    bad2.write_text("{not json}\n")
    with pytest.raises(InputError):
        load_workload_file(bad2)
    with pytest.raises(InputError):
        build_workload(WorkloadSpec("no-such-trace"))


@pytest.mark.parametrize("text,kind", [("lognormal:1000,0.8", "lognormal"), ("constant:512", "constant"), ("512", "constant"),
                                       ("uniform:10,20", "uniform"), ("normal:100,10", "normal"),
                                       ("exponential:300", "exponential"), ("zipf:1.5,10", "zipf")])
def test_length_distributions(text, kind):
    d = parse_length_dist(text)
    assert d.kind == kind
    x = d.sample(2000, np.random.default_rng(0))
    assert x.dtype == np.int64 and (x >= 1).all()
    if kind == "lognormal":
        assert np.median(x) == pytest.approx(1000, rel=0.1)
    if kind == "uniform":
        assert x.min() >= 10 and x.max() <= 20


@pytest.mark.parametrize("text", ["lognormal:1000", "gauss:1,2", "uniform:a,b", "constant:-3", "zipf:0.5", ""])
def test_bad_length_specs(text):
    with pytest.raises(InputError):
        parse_length_dist(text)


def test_arrivals_rate_and_burstiness():
    rng = np.random.default_rng(0)
    a = poisson_gamma_arrivals(20000, 10.0, 1.0, rng)
    gaps = np.diff(a)
    assert gaps.mean() == pytest.approx(0.1, rel=0.03)
    assert gaps.std() / gaps.mean() == pytest.approx(1.0, rel=0.05)  # Poisson: CV 1
    b = poisson_gamma_arrivals(20000, 10.0, 0.25, rng)
    gb = np.diff(b)
    assert gb.mean() == pytest.approx(0.1, rel=0.05)
    assert gb.std() / gb.mean() == pytest.approx(2.0, rel=0.1)  # Gamma shape k: CV 1/sqrt(k)
    assert (poisson_gamma_arrivals(5, float("inf"), 1.0, rng) == 0).all()


def test_synthetic_spec_is_deterministic_per_seed():
    spec = WorkloadSpec(prompt_len="lognormal:800,0.5", completion_len="uniform:10,100", rate_per_s=4, max_requests=500, seed=3)
    a, b = build_workload(spec), build_workload(spec)
    assert (a.prompt_tokens == b.prompt_tokens).all() and (a.arrival_s == b.arrival_s).all()
    c = build_workload(WorkloadSpec(prompt_len="lognormal:800,0.5", completion_len="uniform:10,100", rate_per_s=4, max_requests=500, seed=4))
    assert not (a.prompt_tokens == c.prompt_tokens).all()
    assert len(a) == 500 and a.mean_rate_per_s == pytest.approx(4, rel=0.15)


def test_cap_resample_and_rescale():
    capped = build_workload(WorkloadSpec("azure-conv", max_requests=100))
    full = load_bundled("azure-conv")
    assert (capped.prompt_tokens == full.prompt_tokens[:100]).all()
    assert (capped.arrival_s == full.arrival_s[:100]).all()
    big = build_workload(WorkloadSpec("azure-conv", max_requests=50_000, rate_per_s=20, seed=1))
    assert len(big) == 50_000 and big.mean_rate_per_s == pytest.approx(20, rel=0.05)
    assert set(np.unique(big.prompt_tokens)) <= set(np.unique(full.prompt_tokens))
    scaled = build_workload(WorkloadSpec("azure-conv", rate_per_s=11.06))
    assert scaled.mean_rate_per_s == pytest.approx(11.06, rel=1e-6)
    assert np.argsort(scaled.arrival_s, kind="stable").tolist() == list(range(len(scaled)))
    with pytest.raises(InputError):
        build_workload(WorkloadSpec("sharegpt"))  # no timing and no --rate
    s = build_workload(WorkloadSpec("sharegpt", rate_per_s=2, max_requests=1000))
    assert s.timed and len(s) == 1000
    with pytest.raises(InputError):
        build_workload(WorkloadSpec("azure-conv", rate_per_s=-1))
    with pytest.raises(InputError):
        build_workload(WorkloadSpec("azure-conv", max_requests=0))


@settings(max_examples=30, deadline=None)
@given(st.floats(0.1, 100), st.integers(2, 300))
def test_with_rate_hits_the_asked_rate(rate, n):
    base = build_workload(WorkloadSpec("azure-conv", max_requests=n))
    w = with_rate(base, rate)
    assert w.mean_rate_per_s == pytest.approx(rate, rel=1e-6)
    assert (w.prompt_tokens == base.prompt_tokens).all()


def test_a_csv_saved_with_a_byte_order_mark_reads_its_first_column(tmp_path):
    p = tmp_path / "w.csv"
    p.write_bytes(b"\xef\xbb\xbfprompt_tokens,completion_tokens\n100,20\n200,30\n")
    w = load_workload_file(p)
    assert w.prompt_tokens.tolist() == [100, 200] and w.completion_tokens.tolist() == [20, 30]


def test_bundled_traces_answer_to_the_names_people_write():
    from kvplan.workload import bundled_name

    assert bundled_name("mooncake-conversation") == "mooncake-conv"
    assert bundled_name("ShareGPT") == "sharegpt" and bundled_name("arxiv_summarization") == "arxiv-sum"
    assert bundled_name("no-such-trace") is None
    with pytest.raises(InputError) as e:
        build_workload(WorkloadSpec(workload="mooncake-convo", rate_per_s=1.0))
    assert "did you mean mooncake-conv?" in str(e.value)


@pytest.mark.parametrize("text, missing, fix", [
    ('{"prompt_tokens": 10}\n', "no completion token column among ['prompt_tokens']", "add a column named completion_tokens"),
    ("completion_tokens,x\n1,2\n", "no prompt token column among ['completion_tokens', 'x']", "add a column named prompt_tokens"),
    ("prompt,completion\n1,2\n", "no prompt/completion token columns", "name them prompt_tokens and completion_tokens"),
])
def test_a_missing_token_column_is_named(tmp_path, text, missing, fix):
    """A file with prompt_tokens alone was refused with "no prompt/completion token columns among ['prompt_tokens']"
    and told to name the columns prompt_tokens and completion_tokens: the one it lacks is named now."""
    p = tmp_path / ("w.jsonl" if text.startswith("{") else "w.csv")
    p.write_text(text)
    with pytest.raises(InputError) as e:
        load_workload_file(p)
    assert missing in str(e.value) and fix in str(e.value)
