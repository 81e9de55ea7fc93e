"""kvplan validate on the real startups in tests/data/calibration.jsonl (a copy of shared/data/vllm_logs/calibration.jsonl)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from kvplan.validate import load_records, summarize, uncertainty_band, validate_records
from kvplan.errors import InputError
from kvplan.versions import DEFAULT_RELEASE

DATA = Path(__file__).parent / "data" / "calibration.jsonl"


@pytest.fixture(scope="module")
def records():
    return load_records(DATA)


@pytest.fixture(scope="module")
def end_to_end(records):
    return validate_records(records)


def test_every_record_predicted_or_skipped_with_a_reason(records, end_to_end):
    assert len(end_to_end) == len(records)
    for r in end_to_end:
        assert r.skipped or r.predicted
        if r.skipped:
            assert len(r.skipped) > 10


def test_kvplan_beats_the_seeds_arithmetic_on_the_kv_pool(end_to_end):
    ours, seed = summarize(end_to_end), summarize(end_to_end, seed=True)
    assert ours["kv_cache_gib"]["median_abs_pct"] < seed["kv_cache_gib"]["median_abs_pct"]
    assert ours["fits_accuracy"] > seed["fits_accuracy"]
    assert ours["skipped"] <= 0.06 * ours["records"]


def test_given_the_pool_the_arithmetic_is_exact_for_most_records(records):
    res = validate_records(records, given_kv=True)
    s = summarize(res)
    assert s["kv_cache_tokens"]["median_abs_pct"] <= 0.3
    assert s["max_concurrency"]["median_abs_pct"] <= 0.3
    exact = [r for r in res if "num_gpu_blocks" in r.error_pct]
    assert exact and all(abs(r.error_pct["num_gpu_blocks"]) < 0.3 for r in exact)


def test_bad_file_is_a_clear_error(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_text("{not json}\n")
    with pytest.raises(InputError) as e:
        load_records(p)
    assert "x.jsonl:1" in str(e.value)


def test_cli_json_shape():
    r = subprocess.run(["kvplan", "validate", str(DATA), "--json"], capture_output=True, text=True, timeout=300)
    d = json.loads(r.stdout)
    rec = d["records"][0]
    for key in ("id", "predicted", "observed", "error_pct", "skipped"):
        assert key in rec
    for fig in ("kv_cache_gib", "kv_cache_tokens", "max_concurrency", "weights_gib", "num_gpu_blocks"):
        assert {"n", "median_abs_pct", "p90_abs_pct", "max_abs_pct"} <= set(d["summary"][fig])
    assert "fits_accuracy" in d["summary"] and "skipped" in d["summary"]


def test_a_band_is_never_read_from_too_few_startups():
    import kvplan
    from kvplan.band import MIN_BAND_RECORDS, _residuals

    # the hybrid family holds one startup of the V1 <= 0.10 era: its p10-p90 would be a band of width 0
    assert 0 < _residuals()["hybrid|V1 <= 0.10"]["n"] < MIN_BAND_RECORDS
    p = kvplan.fit("google/gemma-3-27b-it", "H100", vllm_version="0.10.1.1", max_model_len=8192, fixes=False)
    band = uncertainty_band(p)
    assert band["era"] == "all eras" and band["n"] == _residuals()["hybrid|*"]["n"] >= MIN_BAND_RECORDS
    assert band["kv_cache_gib"][0] < band["kv_cache_gib"][1]
    assert band["outside_validation"] and "too few for a p10–p90" in band["text"]
    assert band["text"].startswith("band (")  # not called validated


def test_each_record_says_which_defaults_its_plan_took():
    # the record format: a null field takes that release's default, "and says which default it used"
    rec = {"id": "defaults", "source": "hand-written", "vllm_version": "0.20.0",
           "model": {"id": "Qwen/Qwen2.5-7B-Instruct", "config": None, "quant_config": None, "weights_bytes": None},
           "gpu": {"name": "NVIDIA L4", "total_gib": None, "count": 1},
           "args": {"max_model_len": 4096, "gpu_memory_utilization": None, "max_num_seqs": 8},
           "observed": {"kv_cache_gib": 5.0}}
    (r,) = validate_records([rec])
    out = r.to_dict()
    assert any(a.startswith("gpu_memory_utilization 0.") and "(vLLM 0.20.0 default)" in a for a in out["plan_assumptions"])
    assert any(a.startswith("max_num_batched_tokens") for a in out["plan_assumptions"])
    # a stated flag is no default: max_num_seqs 8 is not listed as one
    assert not any(a.startswith("max_num_seqs") for a in out["plan_assumptions"])
    assert not set(out["assumptions"]) & set(out["plan_assumptions"])


def test_fit_shows_the_validated_band_and_says_when_outside():
    import kvplan

    p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=16384, fixes=False)
    band = uncertainty_band(p)
    assert band["n"] >= 5 and band["lo"] < 0 < band["hi"]
    lo, hi = band["max_concurrency"]
    assert lo < p.max_concurrency < hi
    v0 = kvplan.fit("deepseek-ai/DeepSeek-V3", "H200", tensor_parallel_size=8, max_model_len=8192, vllm_version="0.6.4", fixes=False)
    assert uncertainty_band(v0)["outside_validation"] is True
    # residuals are (logged - predicted) / predicted (residual_table): the logged pool is predicted x (1 + residual)
    kv = p.kv_cache_bytes / 1024 ** 3
    assert band["kv_cache_gib"] == pytest.approx([kv * (1 + band["lo"]), kv * (1 + band["hi"])])


def test_the_plotted_band_is_the_one_the_text_states_and_a_negative_pool_has_none():
    import kvplan
    from kvplan.validate import band_bounds
    from kvplan.web.svg import concurrency_curve_svg

    # an over-predicting family (vLLM logs 30 % to 5 % less than predicted): what it logs lies below the prediction
    lo, hi = band_bounds(10.0, {"lo": -0.30, "hi": -0.05})
    assert (lo, hi) == pytest.approx((7.0, 9.5)) and hi < 10
    svg = concurrency_curve_svg([{"max_model_len": 4096, "max_concurrency": 10.0, "fits": True},
                                 {"max_model_len": 8192, "max_concurrency": 5.0, "fits": True}],
                                chosen_max_model_len=4096, chosen_concurrency=10.0, chosen_fits=True,
                                band={"lo": 0.05, "hi": 0.30, "text": "t"})
    assert "class='band'" in svg
    short = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", gpu_memory_utilization=0.5, fixes=False)
    assert short.kv_cache_bytes < 0 and short.failure == "memory"
    band = uncertainty_band(short)
    assert band["lo"] is None and band["text"].startswith("no validated band")


def test_a_gpu_with_its_own_memory_is_not_answered_with_an_integrated_part():
    import kvplan
    from kvplan.api import smallest_gpu
    from kvplan.versions import INTEGRATED_MEMORY_CC

    short = kvplan.fit("zai-org/GLM-4.5", "H100", tensor_parallel_size=8, fixes=False)
    g = smallest_gpu(short)
    assert g is not None and g.compute_capability not in INTEGRATED_MEMORY_CC and g.total_bytes > short.gpu.total_bytes
    # and a datacenter card with a datacenter card, a desktop card with a desktop or workstation one
    t4 = kvplan.fit("Qwen/Qwen3-8B", "T4", fixes=False)
    assert not t4.fits and smallest_gpu(t4).form == "datacenter"
    rtx = kvplan.fit("Qwen/Qwen3-32B", "RTX 4090", fixes=False)
    assert not rtx.fits and smallest_gpu(rtx).form == "desktop"


def test_a_verdict_inside_the_band_says_it_is_near_the_edge():
    import kvplan
    from dataclasses import replace

    p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=16384, fixes=False)
    band = uncertainty_band(p)
    edge = 1 + (band["hi"] / 2)  # concurrency just above 1 but inside the band's reach
    near = replace(p, max_concurrency=edge)
    assert "may refuse this start" in uncertainty_band(near)["text"]
    assert "near the edge" not in uncertainty_band(replace(p, max_concurrency=10.0))["text"]


def _versionless(rec: dict, **observed) -> dict:
    r = json.loads(json.dumps(rec))
    r["vllm_version"] = None
    r["observed"] = {k: None for k in r["observed"]} | {"kv_cache_gib": 10.0, "fits": True} | observed
    return r


@pytest.mark.parametrize("observed, era_version", [
    # V1's summary line with separate weight / activation / non-torch / CUDAGraph figures: 0.10.2-0.26
    ({"weights_gib": 15.0, "non_torch_gib": 0.13, "activation_peak_gib": 4.8, "cudagraph_gib": 0.1}, "0.10.2"),
    # the >= 0.27 summary ("consumed memory (weights + non-torch)"): no non-torch figure apart
    ({"weights_gib": 15.0, "activation_peak_gib": 0.5, "cudagraph_gib": 0.1}, "0.27.0"),
    # V0's split line (non-torch and activation, no graph figure), even without the block line
    ({"weights_gib": 15.0, "non_torch_gib": 0.25, "activation_peak_gib": 0.19}, "0.7.3"),
    # only the pool: nothing identifies the era, the default release's rules apply
    ({}, None),
])
def test_a_versionless_record_takes_its_era_from_the_log_format(records, observed, era_version):
    from kvplan.validate import predict_record
    from kvplan.versions import DEFAULT_RELEASE, rules_for

    base = next(r for r in records if r["id"] == "meta-llama-3.1-8b-instruct-l4-u092-tp1")
    p, notes = predict_record(_versionless(base, **observed))
    want = era_version or DEFAULT_RELEASE
    assert p.rules.era == rules_for(want).era
    assert any("version not stated" in n and f"{want} rules" in n or f"({want})" in n or f"({want}, " in n for n in notes), notes


def test_a_drafter_kvplan_does_not_model_is_planned_without_and_said(records):
    from kvplan.validate import predict_record

    base = next(r for r in records if r["id"] == "meta-llama-3.1-8b-instruct-l4-u092-tp1")
    rec = json.loads(json.dumps(base))
    rec["args"]["speculative_config"] = {"method": "eagle3", "num_speculative_tokens": 2}
    p, notes = predict_record(rec)
    plain, _ = predict_record(base)
    assert p.args.speculative_config is None and p.num_gpu_blocks == plain.num_gpu_blocks
    assert any("speculative decoding not modelled" in n for n in notes)


def test_an_embedding_checkpoint_is_planned_as_vllms_pooling_runner(records):
    # Qwen3-Embedding-8B on 0.12: served without lm_head and without the sampler's profile peak
    from kvplan.validate import predict_record

    rec = next(r for r in records if r["id"] == "qwen3-embedding-8b-h100-udef-tp1")
    p, notes = predict_record(rec)
    assert p.model.is_pooling and any("pooling runner" in n for n in notes)
    assert abs(p.weights_bytes / 2**30 - rec["observed"]["weights_gib"]) / rec["observed"]["weights_gib"] < 0.01
    assert abs(p.kv_cache_bytes / 2**30 - rec["observed"]["kv_cache_gib"]) / rec["observed"]["kv_cache_gib"] < 0.02
    generative = json.loads(json.dumps(rec))
    generative["args"]["runner"] = "generate"  # stated in the record: the name no longer decides
    g, _ = predict_record(generative)
    assert not g.model.is_pooling and g.weights_bytes > p.weights_bytes


def test_record_values_written_as_strings_are_read_or_refused_by_field(records):
    from kvplan.validate import predict_record, validate_records

    base = next(r for r in records if r["id"] == "meta-llama-3.1-8b-instruct-l4-u092-tp1")
    plain, _ = predict_record(base)
    loose = json.loads(json.dumps(base))
    loose["args"].update(gpu_memory_utilization="0.92", max_model_len="32k", max_num_seqs="128", enforce_eager="false",
                         dtype="torch.bfloat16")
    loose["observed"].update(kv_cache_gib="4.75", kv_cache_tokens="38,944", fits="true")
    p, _ = predict_record(loose)
    assert p.num_gpu_blocks == plain.num_gpu_blocks and p.args.max_model_len == 32_000
    (r,) = validate_records([loose])
    assert r.observed["kv_cache_tokens"] == 38_944 and r.error_pct["kv_cache_gib"] == pytest.approx(
        validate_records([base])[0].error_pct["kv_cache_gib"])
    bad = json.loads(json.dumps(base))
    bad["args"]["gpu_memory_utilization"] = "most of it"
    (r,) = validate_records([bad])
    assert r.skipped.startswith("args.gpu_memory_utilization")


def test_a_records_id_and_source_do_not_change_its_plan(records):
    # docs/startup-record-format.md: "nothing in the tool may depend on a record's id or source". A version-less
    # record from a vLLM issue of July 2025 (#21348, 0.9.2 then) and the same record from nowhere plan alike: the
    # newest rules where its figures do not name the era, the era its log format names where they do
    from kvplan.validate import predict_record
    from kvplan.versions import DEFAULT_RELEASE

    base = next(r for r in records if r["id"] == "meta-llama-3.1-8b-instruct-l4-u092-tp1")
    summary_line = {"weights_gib": 15.0, "non_torch_gib": 0.13, "activation_peak_gib": 4.8, "cudagraph_gib": 0.1}
    for observed, want in (({}, DEFAULT_RELEASE), (summary_line, "0.10.2")):
        plans = []
        for rid, source in (("a", "https://github.com/vllm-project/vllm/issues/21348"), ("b", None),
                            ("c", "https://github.com/llm-d/llm-d-benchmark/blob/259334868c50/config_explorer/x.md")):
            p, notes = predict_record(_versionless(base, **observed) | {"id": rid, "source": source})
            assert p.rules.version == want, (source, notes)
            assert not any("issue" in n or "same source" in n for n in notes), notes
            plans.append((p.kv_cache_bytes, p.num_gpu_blocks, p.weights_bytes))
        assert len(set(plans)) == 1
    # runs of one document no longer lend each other a version
    source = "https://example.org/one-report-of-several-runs.md"
    dated = dict(json.loads(json.dumps(base)), id="a", source=source, vllm_version="0.12.0")
    bare = _versionless(base) | {"id": "b", "source": source}
    results = {r.id: r for r in validate_records([dated, bare])}
    assert results["a"].label["rules_applied"] == "0.12.0" and results["b"].label["rules_applied"] == DEFAULT_RELEASE


def test_a_version_read_from_outside_the_record_plans_it_where_the_record_states_none(records):
    # the fitting tools date a calibration record by its source (tools/record_dating.py) and pass that release in;
    # a stated version wins over it
    from kvplan.validate import predict_record

    base = next(r for r in records if r["id"] == "meta-llama-3.1-8b-instruct-l4-u092-tp1")
    p, notes = predict_record(_versionless(base), version=("0.9.2", "issue date"))
    assert p.rules.version == "0.9.2" and any("from outside the record (issue date)" in n for n in notes)
    stated = dict(json.loads(json.dumps(base)), vllm_version="0.12.0")
    p, _ = predict_record(stated, version=("0.9.2", "issue date"))
    assert p.rules.version == "0.12.0"


def test_records_carry_the_multimodal_limits_into_the_plan(records):
    # a record's non-default args may say which modalities the server allowed; all 0 is vLLM's text-only mode
    from kvplan.validate import validate_records

    base = next(r for r in records if r["id"] == "qwen3-vl-30b-a3b-instruct-h100-udef-tp2")
    text_only = json.loads(json.dumps(base)) | {"id": "text-only"}
    text_only["args"]["limit_mm_per_prompt"] = {"image": 0, "video": 0}
    bad = json.loads(json.dumps(base)) | {"id": "bad"}
    bad["args"]["limit_mm_per_prompt"] = "image=lots"
    got = {r.id: r for r in validate_records([base, text_only, bad])}
    assert got["text-only"].predicted["weights_gib"] < got[base["id"]].predicted["weights_gib"] - 0.3
    assert got["text-only"].predicted["kv_cache_gib"] > got[base["id"]].predicted["kv_cache_gib"] + 2
    assert got["bad"].skipped and "limit-mm-per-prompt" in got["bad"].skipped


def test_a_record_that_ran_with_fewer_batched_tokens_than_its_context_had_chunked_prefill_on(records):
    from kvplan.validate import predict_record

    base = next(r for r in records if r["id"] == "meta-llama-3.1-8b-instruct-l4-u092-tp1")
    rec = json.loads(json.dumps(base))
    rec["vllm_version"] = "0.7.3"  # V0 turns chunked prefill on by itself only above 32K
    rec["args"].update(max_model_len=16384, max_num_batched_tokens=2048, enable_chunked_prefill=None)
    p, notes = predict_record(rec)
    assert p.args.enable_chunked_prefill is True and p.args.max_num_batched_tokens == 2048
    assert any("chunked prefill not stated" in n for n in notes)


@pytest.mark.parametrize("text, release", [("0.11.0 (docker)", (0, 11, 0)), ("vLLM v0.7.3", (0, 7, 3)),
                                           ("vllm==0.10.2", (0, 10, 2)), ("0.29.1rc1.dev17+gd2d649e67", (0, 30, 0)),  # main past the tag: the next release
                                           ("vllm/vllm-openai:v0.10.1.1", (0, 10, 1)), ("0.10.1+cu126", (0, 10, 1)),
                                           ("docker.io/vllm/vllm-openai:v0.9.2", (0, 9, 2)),
                                           ("localhost:5000/vllm/vllm-openai:0.8.5", (0, 8, 5))])
def test_version_strings_as_records_and_logs_write_them(text, release):
    from kvplan.versions import parse_version

    assert parse_version(text) == release


@pytest.mark.parametrize("text", ["main", "latest", "vllm/vllm-openai:latest", "vllm/vllm-openai:nightly",
                                  "rocm/vllm:rocm6.3.1_instinct_vllm0.8.3_20250415"])
def test_a_version_that_names_no_release_is_refused(text):
    from kvplan.errors import InputError
    from kvplan.versions import parse_version

    with pytest.raises(InputError):
        parse_version(text)


def test_a_record_whose_version_is_a_docker_image_tag_plans_with_that_release(records):
    from kvplan.validate import predict_record

    base = next(r for r in records if r["id"] == "meta-llama-3.1-8b-instruct-l4-u092-tp1")
    plain, tagged = json.loads(json.dumps(base)), json.loads(json.dumps(base))
    plain["vllm_version"], tagged["vllm_version"] = "0.10.1.1", "vllm/vllm-openai:v0.10.1.1"
    p_plain, _ = predict_record(plain)
    p_tagged, notes = predict_record(tagged)
    assert p_tagged.rules.release == (0, 10, 1) and p_tagged.kv_cache_bytes == p_plain.kv_cache_bytes
    assert not any("not a release number" in n for n in notes)


def test_a_record_whose_gpu_name_carries_the_count_plans_that_many(records):
    from kvplan.validate import predict_record

    base = next(r for r in records if r["id"] == "qwen2-7b-instruct-a100-80-u025-tp2")
    rec = json.loads(json.dumps(base))
    rec["gpu"] = {"name": "2x " + base["gpu"]["name"], "total_gib": base["gpu"]["total_gib"], "count": None}
    rec["args"]["tensor_parallel_size"] = None
    p, notes = predict_record(rec)
    assert p.args.tensor_parallel_size == 2 and any("from the name" in n for n in notes)


@pytest.mark.parametrize("flag, gib_below", [("bitsandbytes", 7.0), ("ptpc_fp8", 9.0)])
def test_a_flag_that_quantizes_at_load_sizes_an_unquantized_record(records, flag, gib_below):
    from kvplan.validate import predict_record

    base = next(r for r in records if r["id"] == "meta-llama-3.1-8b-instruct-l4-u092-tp1")
    rec = json.loads(json.dumps(base))
    rec["args"]["quantization"] = flag
    p, notes = predict_record(rec)
    plain, _ = predict_record(base)
    assert p.weights_bytes / 2 ** 30 < gib_below < plain.weights_bytes / 2 ** 30
    assert any("quantized at load" in n for n in notes)


def test_record_files_as_editors_and_people_write_them(tmp_path):
    from kvplan.validate import load_records

    lines = (Path(__file__).parent / "data" / "calibration.jsonl").read_text().splitlines()[:2]
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" + ("\n# a comment\n\n".join(lines) + "\n").encode())
    assert [r["id"] for r in load_records(bom)] == [json.loads(x)["id"] for x in lines]
    arr = tmp_path / "records.json"
    arr.write_text(json.dumps([json.loads(x) for x in lines], indent=1))
    assert len(load_records(arr)) == 2
    arr.write_text(json.dumps([json.loads(lines[0]), 3]))
    with pytest.raises(InputError, match=r"records\.json:2 is not a startup record"):
        load_records(arr)


def test_a_hand_written_record_of_a_catalog_model_needs_no_config():
    """A record without a config is planned from the catalog when its id is a catalog model (and says so); any other
    id without a config is still skipped, naming model.config."""
    rec = {"id": "mine", "model": {"id": "Qwen/Qwen3-8B"}, "gpu": {"name": "L4"}, "args": {"max_model_len": 8192},
           "observed": {"kv_cache_gib": 4.0}}
    (catalog,) = validate_records([rec])
    assert catalog.skipped is None and catalog.predicted["kv_cache_tokens"] > 0
    assert any("planned from kvplan's catalog" in n for n in catalog.assumptions)
    (unknown,) = validate_records([dict(rec, model={"id": "someone/private-model"})])
    assert unknown.skipped and "model.config" in unknown.skipped


def test_record_files_gzipped_utf16_binary_or_empty(tmp_path):
    import gzip
    import sys

    lines = DATA.read_text().splitlines()[:3]
    text = "\n".join(lines) + "\n"
    ids = [json.loads(x)["id"] for x in lines]
    gz = tmp_path / "records.jsonl"  # gzip whatever the name says
    gz.write_bytes(gzip.compress(text.encode()))
    utf16 = tmp_path / "ps5.jsonl"  # as Windows PowerShell 5's `>` writes: UTF-16 LE with a byte-order mark
    utf16.write_text(text, encoding="utf-16")
    assert [r["id"] for r in load_records(gz)] == ids == [r["id"] for r in load_records(utf16)]
    binary = tmp_path / "blob.jsonl"
    binary.write_bytes(bytes(range(128, 256)) * 8)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n# only a comment\n")
    for path, words in ((binary, "not text"), (empty, "no records in")):
        with pytest.raises(InputError) as err:
            load_records(path)
        assert words in str(err.value) and str(path) in str(err.value)
        proc = subprocess.run([sys.executable, "-c", "from kvplan.cli import main; main()", "validate", str(path)],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2 and "internal error" not in proc.stderr and str(path) in proc.stderr


def test_a_record_without_its_model_or_observed_names_what_is_missing(tmp_path):
    p = tmp_path / "r.jsonl"
    p.write_text('{"id": "x"}\n')
    with pytest.raises(InputError) as err:
        load_records(p)
    assert "r.jsonl:1" in str(err.value) and "'model'" in str(err.value) and "'observed'" in str(err.value)
    p.write_text('{"id": "x", "model": {"id": "Qwen/Qwen3-8B"}}\n')
    with pytest.raises(InputError) as err:
        load_records(p)
    assert "'observed'" in str(err.value) and "'model'" not in str(err.value)


@pytest.mark.parametrize("section, key, meant", [
    ("args", "max_modle_len", "max_model_len"),
    ("observed", "kv_cache_gb", "kv_cache_gib"),
    ("gpu", "totl_gib", "total_gib"),
    ("model", "weight_bytes", "weights_bytes"),
    ("", "vllm_verison", "vllm_version"),
])
def test_a_misspelt_record_key_is_a_skip_naming_it_and_the_nearest_known_one(records, section, key, meant):
    base = json.loads(json.dumps(records[0]))
    part = base if not section else base[section]
    part[key] = part.get(meant, 1)
    (r,) = validate_records([base])
    where = f"{section}.{key}" if section else key
    assert r.skipped and f"unknown field {where} (did you mean {meant}?)" in r.skipped


def test_every_real_record_uses_only_known_fields():
    from kvplan.validate import clean_record

    shared = Path(__file__).resolve().parents[2] / "shared" / "data" / "vllm_logs" / "calibration.jsonl"
    files = [DATA, Path(__file__).parent / "data" / "extra_records.jsonl"] + ([shared] if shared.is_file() else [])
    for f in files:
        for rec in load_records(f):
            clean_record(rec)  # raises on a key outside the record format


def _a_scored_record():
    import json as _json
    from pathlib import Path as _Path

    from kvplan.validate import validate_records

    for line in (_Path(__file__).parent / "data" / "extra_records.jsonl").read_text().splitlines():
        rec = _json.loads(line)
        if line.strip() and not validate_records([rec])[0].skipped and (rec.get("args") or {}).get("max_model_len"):
            return rec
    raise AssertionError("no scored record in tests/data/extra_records.jsonl")


def test_a_suffixed_arg_that_leaves_a_negative_pool_is_a_skip_with_the_reason():
    from kvplan.validate import validate_records

    rec = _a_scored_record()
    rec["args"] = dict(rec["args"], max_num_batched_tokens="8m")  # vllm serve: 8,000,000 tokens
    r = validate_records([rec])[0]
    assert r.skipped and "8m" in r.skipped and "8,000,000" in r.skipped and not r.predicted


@pytest.mark.parametrize("spelt", [{"max_num_batched_tokens": "8k"}, {"max_model_len": "4k"},
                                   {"kv_cache_dtype": "fp8_e5m2"}])
def test_a_startup_that_does_not_fit_is_scored_however_its_args_are_spelt(spelt):
    # a negative pool is a start that does not fit: scored (fits false), not skipped because an argument was written
    # with a suffix ("8k" is 8,000 to vllm serve) or has a digit-letter pair in its name (fp8_e5m2)
    from kvplan.validate import validate_records

    rec = _a_scored_record()
    rec["args"] = dict(rec["args"], gpu_memory_utilization=0.02, **spelt)
    plain = dict(rec, args=dict(rec["args"], **{k: {"8k": 8000, "4k": 4000}.get(v, v) for k, v in spelt.items()}))
    r, r_plain = validate_records([rec, plain])
    assert r_plain.predicted["kv_cache_gib"] < 0 and r_plain.predicted["fits"] is False  # the plain spelling: scored
    assert not r.skipped, r.skipped
    assert r.predicted == r_plain.predicted


def test_an_iec_suffix_vllm_refuses_is_refused():
    from kvplan.validate import validate_records

    rec = _a_scored_record()
    rec["args"] = dict(rec["args"], max_num_batched_tokens="8Ki")  # vLLM's human_readable_int: no IEC suffixes
    r = validate_records([rec])[0]
    assert r.skipped and "8Ki" in r.skipped


def test_every_validate_message_points_to_a_file_that_exists():
    import re as _re
    from pathlib import Path as _Path

    root = _Path(__file__).parent.parent
    text = (root / "src" / "kvplan" / "validate.py").read_text()
    for doc in set(_re.findall(r"docs/startup-record-format\.md", text)):
        assert (root / doc).is_file(), doc


def test_each_record_is_cleaned_and_planned_once(monkeypatch):
    """validate_records cleans and checks a record once (a sibling-version pass, the scoring and the seed's
    arithmetic had each cleaned it again) and plans it once (the seed's arithmetic re-planned it)."""
    import kvplan.validate as v

    records = load_records(DATA)[:12]
    calls = {"clean": 0, "plan": 0}
    clean, plan = v.clean_record, v.plan

    def counting_clean(rec):
        calls["clean"] += 1
        return clean(rec)

    def counting_plan(*args, **kwargs):
        calls["plan"] += 1
        return plan(*args, **kwargs)

    monkeypatch.setattr(v, "clean_record", counting_clean)
    monkeypatch.setattr(v, "plan", counting_plan)
    results = validate_records(records)
    scored = [r for r in results if not r.skipped]
    assert scored and all(r.seed_predicted for r in scored)
    assert calls["clean"] == len(records)
    assert calls["plan"] <= len(records)


@pytest.mark.parametrize("gpu, says", [
    ({"name": None, "total_gib": None, "count": 1}, "names no GPU"),
    ({"name": "NVIDIA GeForce RTX 4060 Ti", "total_gib": None, "count": 1}, "different memory"),  # sold as 8 and 16 GB
])
def test_a_record_without_a_usable_gpu_says_why(gpu, says):
    from kvplan.validate import validate_records

    rec = dict(_a_scored_record(), gpu=gpu)
    (r,) = validate_records([rec])
    assert r.skipped.startswith("gpu") and says in r.skipped and "total_gib" in r.skipped
    # the same record with the total vLLM logged is scored
    (r,) = validate_records([dict(rec, gpu=dict(gpu, total_gib=15.7))])
    assert not r.skipped


@pytest.mark.parametrize("spelt, plain", [
    ({"dtype": "BF16"}, {"dtype": "bfloat16"}),            # the checkpoint's dtype as safetensors write it
    ({"dtype": "fp16"}, {"dtype": "float16"}),
    ({"quantization": "null"}, {"quantization": None}),    # an unset flag as a log prints it
])
def test_args_as_records_spell_them_are_read_as_vllm_serve_names_them(spelt, plain):
    from kvplan.validate import validate_records

    rec = _a_scored_record()
    a, b = (dict(rec, args=dict(rec["args"], **x)) for x in (spelt, plain))
    ra, rb = validate_records([a, b])
    assert not ra.skipped and not rb.skipped, ra.skipped
    assert ra.predicted == rb.predicted


def test_gpus_without_a_stated_tp_are_split_as_vllm_can_split_the_heads(records):
    # Qwen2-7B has 28 attention and 4 KV heads: vLLM refuses TP=8, so a start on a record's 8 GPUs with no TP stated
    # ran with at most TP=4, the largest TP dividing 8 that splits the heads; it is scored as that, not skipped
    from kvplan.validate import validate_records

    base = next(r for r in records if r["id"] == "qwen2-7b-instruct-a100-40-u050-tp2")
    unstated = json.loads(json.dumps(base))
    unstated["args"]["tensor_parallel_size"] = None
    unstated["gpu"]["count"] = 8
    stated = json.loads(json.dumps(unstated))
    stated["args"]["tensor_parallel_size"] = 4
    r, r4 = validate_records([unstated, stated])
    assert not r.skipped, r.skipped
    assert r.predicted == r4.predicted and any("TP=4" in a for a in r.assumptions)


def _with_quantization_config(qc: dict, weights_bytes=None) -> dict:
    config = json.loads((Path(__file__).parents[1] / "src/kvplan/data/models.json").read_text())[
        "meta-llama/Llama-3.1-8B-Instruct"]["config"]
    return {"id": qc["quant_method"], "vllm_version": "0.10.1.1", "gpu": {"name": "AMD Instinct MI300X"},
            "model": {"id": "x/quantized", "config": dict(config, quantization_config=qc), "weights_bytes": weights_bytes},
            "args": {"max_model_len": 8192}, "observed": {"fits": True}}


def test_a_quantization_method_kvplan_cannot_size_is_a_skip_not_unquantized_weights():
    # an HQQ checkpoint is not bf16: without its bytes no weight figure can be given (it was predicted as bf16)
    from kvplan.validate import validate_records

    unsized, sized = validate_records([_with_quantization_config({"quant_method": "hqq"}),
                                       _with_quantization_config({"quant_method": "hqq"}, weights_bytes=6_000_000_000)])
    assert unsized.skipped and "hqq" in unsized.skipped and not unsized.predicted
    assert not sized.skipped and sized.predicted["weights_gib"] == pytest.approx(6e9 / 1024 ** 3, rel=0.02)


def test_amd_quark_and_intel_auto_round_checkpoints_are_sized_by_their_weight_format():
    # Quark's FP8 weights (global_quant_config.weight.dtype fp8_e4m3) take what an fp8 checkpoint takes; Intel's
    # 'intel/auto-round' is auto-round's int4 group 128
    from kvplan.validate import validate_records

    quark, fp8, intel, auto_round = validate_records([
        _with_quantization_config({"quant_method": "quark", "global_quant_config": {
            "weight": {"dtype": "fp8_e4m3", "qscheme": "per_tensor"}}, "exclude": ["lm_head"]}),
        _with_quantization_config({"quant_method": "fp8", "activation_scheme": "dynamic", "ignored_layers": ["lm_head"]}),
        _with_quantization_config({"quant_method": "intel/auto-round", "bits": 4, "group_size": 128}),
        _with_quantization_config({"quant_method": "auto-round", "bits": 4, "group_size": 128})])
    assert quark.predicted["weights_gib"] == pytest.approx(fp8.predicted["weights_gib"])
    assert intel.predicted["weights_gib"] == pytest.approx(auto_round.predicted["weights_gib"])
    assert quark.predicted["weights_gib"] < 9.5 and intel.predicted["weights_gib"] < 6  # bf16: 14.99 GiB


def test_figures_copied_with_the_unit_the_log_prints_are_read():
    # "KV cache size 24.83 GiB" (older releases print GB for the same GiB), "Maximum concurrency ...: 28.37x"
    from kvplan.validate import validate_records

    rec = _a_scored_record()
    obs = {k: v for k, v in rec["observed"].items() if v is not None}
    spelt = dict(rec, observed=dict(rec["observed"], **{k: f"{v} GiB" if k.endswith("_gib") and i % 2 else
                                                        f"{v}GB" if k.endswith("_gib") else f"{v}x" if k == "max_concurrency"
                                                        else v for i, (k, v) in enumerate(obs.items())}),
                 gpu=dict(rec["gpu"], total_gib=f"{rec['gpu']['total_gib']} GiB" if rec["gpu"].get("total_gib") else None))
    r, plain = validate_records([spelt, rec])
    assert not r.skipped, r.skipped
    assert r.observed == plain.observed and r.error_pct == plain.error_pct
    (bad,) = validate_records([dict(rec, observed=dict(rec["observed"], max_concurrency="28.37 GiB"))])
    assert bad.skipped and "max_concurrency" in bad.skipped  # a unit that is not the figure's own


@pytest.mark.parametrize("key, value", [("trust_remote_code", True), ("swap_space", 16), ("served_model_name", "llama"),
                                        ("seed", 0), ("disable_log_stats", "true"), ("tokenizer_mode", "mistral"),
                                        ("distributed_executor_backend", "ray"), ("port", 8000)])
def test_a_record_with_an_engine_argument_that_leaves_memory_alone_plans_as_without_it(records, key, value):
    from kvplan.validate import predict_record

    base = next(r for r in records if r["id"] == "meta-llama-3.1-8b-instruct-l4-u092-tp1")
    rec = json.loads(json.dumps(base))
    rec["args"][key] = value
    p, notes = predict_record(rec)
    assert p.kv_cache_bytes == predict_record(base)[0].kv_cache_bytes
    assert any(key in n and "put aside" in n for n in notes)


@pytest.mark.parametrize("key, value", [("kv_sharing_fast_prefill", "true"), ("max_seq_len_to_capture", 32768),
                                        ("compilation_config", {"cudagraph_capture_sizes": [1, 2, 4]})])
def test_a_record_with_an_unmodelled_memory_argument_is_skipped_naming_it(records, key, value):
    from kvplan.validate import validate_records

    base = next(r for r in records if r["id"] == "meta-llama-3.1-8b-instruct-l4-u092-tp1")
    rec = json.loads(json.dumps(base))
    rec["args"][key] = value
    at_default = json.loads(json.dumps(base))
    at_default["args"][key] = {"max_seq_len_to_capture": 8192,
                               "compilation_config": {}}.get(key, False)
    skipped, kept = validate_records([rec, at_default])
    assert skipped.skipped and skipped.skipped.startswith(f"args.{key}:") and "does not model" in skipped.skipped
    assert kept.skipped is None


def test_a_record_with_kv_cache_memory_bytes_gets_that_pool(records):
    from kvplan.resolve import GIB
    from kvplan.validate import predict_record

    base = next(r for r in records if r["id"] == "meta-llama-3.1-8b-instruct-l4-u092-tp1")
    rec = json.loads(json.dumps(base))
    rec["args"]["kv_cache_memory_bytes"] = "3G"  # vLLM reads an uppercase suffix as binary: 3 GiB
    p, _ = predict_record(rec)
    assert p.kv_cache_bytes == 3 * GIB


def test_a_misspelt_engine_argument_still_names_the_nearest_known_one(records):
    from kvplan.validate import validate_records

    base = next(r for r in records if r["id"] == "meta-llama-3.1-8b-instruct-l4-u092-tp1")
    rec = json.loads(json.dumps(base))
    rec["args"]["num_gpu_block_override"] = 512
    assert "did you mean num_gpu_blocks_override?" in validate_records([rec])[0].skipped


@pytest.mark.parametrize("name, parent_capability", [("NVIDIA A100-SXM4-40GB MIG 3g.20gb", "8.0"),
                                                     ("NVIDIA H100 80GB HBM3 MIG 1g.10gb", "9.0")])
def test_a_record_on_a_mig_slice_plans_with_the_slice_total_and_the_card_capability(records, name, parent_capability):
    from kvplan.resolve import GIB
    from kvplan.validate import predict_record, validate_records

    base = next(r for r in records if r["id"] == "meta-llama-3.1-8b-instruct-l4-u092-tp1")
    rec = json.loads(json.dumps(base))
    rec["gpu"] = {"name": name, "total_gib": None, "count": 1}
    skip = validate_records([rec])[0].skipped
    # the profile's nominal size ("20gb") is not what CUDA reports for the slice: no guess, the fix names total_gib
    assert "MIG slice" in skip and "gpu.total_gib" in skip
    rec["gpu"]["total_gib"] = 9.5
    p, _ = predict_record(rec)
    assert p.gpu.total_bytes == int(9.5 * GIB) and p.gpu.compute_capability == parent_capability


def test_fit_on_a_mig_slice_takes_the_given_total_and_the_card_capability():
    from kvplan.errors import InputError
    from kvplan.resolve import GIB, resolve_gpu

    with pytest.raises(InputError, match="--gpu-gib"):
        resolve_gpu("NVIDIA A100-SXM4-80GB MIG 3g.40gb")
    spec, _ = resolve_gpu("NVIDIA A100-SXM4-80GB MIG 3g.40gb", gib=39.25)
    assert spec.total_bytes == int(39.25 * GIB) and spec.compute_capability == "8.0" and "MIG 3g.40gb" in spec.name


def test_the_shipped_residual_bands_are_those_of_the_current_coefficients():
    # `kvplan fit`'s validated band reads src/kvplan/data/residuals.json, the residuals of the calibration and
    # extra_records startups (never the blind ones); a coefficient or rule change that moves them must regenerate it
    # (python tools/fit_calibration.py --write-residuals, which plans a version-less record with the release its
    # source dates, as the fit does)
    import json
    from pathlib import Path

    from kvplan.validate import residual_table
    from repo_scripts import load_script

    here = Path(__file__).parent
    tool = load_script("tools/fit_calibration.py", "fit_calibration_residuals")
    results = tool.residual_results([str(here / "data" / name) for name in ("calibration.jsonl", "extra_records.jsonl")])
    shipped = json.loads((here.parent / "src" / "kvplan" / "data" / "residuals.json").read_text())
    assert "extra_records.jsonl" in shipped.pop("source")
    assert json.loads(json.dumps(residual_table(results))) == shipped


def test_a_records_own_residual_gives_back_its_logged_pool():
    """residual_table stores what vLLM logged relative to the prediction; band_bounds must read it the same way, or
    every band is mirrored about the prediction (an over-predicted family's band would sit above it)."""
    from kvplan.validate import band_bounds, predict_record, residual_table

    records = [r for r in load_records(str(DATA)) if (r["observed"] or {}).get("kv_cache_gib")][:6]
    results = validate_records(records)
    checked = 0
    for rec, res in zip(records, results):
        if res.skipped or res.error_pct.get("kv_cache_gib") is None:
            continue
        table = residual_table([res])
        r = next(iter(table.values()))["median_pct"] / 100
        p, _ = predict_record(rec)
        logged = rec["observed"]["kv_cache_gib"]
        lo, hi = band_bounds(p.kv_cache_bytes / 1024 ** 3, {"lo": r, "hi": r})
        assert lo == pytest.approx(logged, rel=1e-6) and hi == pytest.approx(logged, rel=1e-6)
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("rows", ["--rows", "--no-rows"])
def test_the_cli_prints_why_each_record_was_skipped_whole(tmp_path, monkeypatch, capsys, rows):
    """The caption only counted skipped records, and the row's cell cut the reason to a few words (or --no-rows
    dropped it): a user whose one record was skipped could not see which field to fix."""
    from cli_runner import run_cli

    rec = dict(_a_scored_record(), id="my-start", gpu={"name": "NVIDIA Foo 9000", "total_gib": None, "count": 1})
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(rec) + "\n" + json.dumps(dict(rec, id="my-other-start")) + "\n")
    code, out, err = run_cli(monkeypatch, capsys, "validate", str(path), rows)
    text = " ".join(out.split())
    assert code == 2, err  # both records skipped: nothing was validated (was exit 0)
    assert ("skipped my-start, my-other-start: gpu.name: unknown GPU 'NVIDIA Foo 9000'; the record gives no total_gib "
            "(add gpu.total_gib as vLLM logged it, or name the GPU as kvplan's catalog does (nearest: ") in text


def test_the_summary_says_how_many_records_were_planned_without_a_stated_version(records, monkeypatch, capsys):
    # with a record's source unread, a version-less record's rules come from its log format or are the newest: the
    # summary counts them (JSON summary.version_basis, each record's version_basis) and the table's caption says so
    from kvplan.validate import summarize

    base = next(r for r in records if r["id"] == "meta-llama-3.1-8b-instruct-l4-u092-tp1")
    summary_line = {"weights_gib": 15.0, "non_torch_gib": 0.13, "activation_peak_gib": 4.8, "cudagraph_gib": 0.1}
    recs = [base, _versionless(base) | {"id": "bare"}, _versionless(base, **summary_line) | {"id": "dated-by-format"}]
    results = validate_records(recs)
    assert [r.label["version_basis"] for r in results] == ["stated", "newest", "log format"]
    assert summarize(results)["version_basis"] == {"stated": 1, "newest": 1, "log format": 1}
    assert all(r.to_dict()["version_basis"] for r in results)
    from kvplan.cli.validate import summary_table

    caption = summary_table(summarize(results), None, False).caption
    assert (f"no version stated: 1 planned with the default release's rules ({DEFAULT_RELEASE}), 1 planned with the era "
            "their log format names") in caption
    assert "no version stated" not in summary_table(summarize(results[:1]), None, False).caption


def test_a_stated_version_below_0_2_is_read_as_a_source_build_and_0_2_0_as_stated():
    # version_basis's boundary: 0.0.x, 0.1.x and 0.2.0's dev builds ((0, 2, -1)) are taken for setuptools-scm's guess
    # for an untagged checkout (no rules applied from the number); 0.2.0 and later are stated releases
    from kvplan.validate import version_basis

    def basis(v):
        notes: list[str] = []
        return version_basis({"vllm_version": v, "observed": {}}, notes), notes

    for v in ("0.0.9", "0.1.4", "0.1", "0.2.0.dev3", "0.1.dev5+gabc"):
        (rules, how), notes = basis(v)
        assert how == "newest" and any("source build without a release number" in n for n in notes), v
    for v in ("0.2.0", "0.11.2"):
        assert basis(v)[0] == (v, "stated"), v
