"""`kvplan validate` on records with the mistakes a user writing one by hand makes: each is a skip naming the record,
the field and the fix (or a note saying what was read), never a traceback, a non-JSON number or a silent guess."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import run_cli
from nested import set_nested
from kvplan.validate import load_records, validate_records

HERE = Path(__file__).parent


def _record(**changes) -> dict:
    rec = json.loads((HERE / "data" / "blind_records.jsonl").read_text().splitlines()[0])
    for path, value in changes.items():
        set_nested(rec, path.split("__"), value)
    return rec


@pytest.mark.parametrize("changes, field, says", [
    # a JSON number drops the release's trailing zero: 0.10 was read as 0.1, a "source build", and the newest rules ran
    ({"vllm_version": 0.10}, "vllm_version", "0.10 reads as 0.1"),
    ({"vllm_version": 0.11}, "vllm_version", "quote the release"),
    # 0 read as "not given" (the catalog's total), NaN and 1e308 crashed the planner ("internal: OverflowError")
    ({"gpu__total_gib": 0}, "gpu.total_gib", "positive, finite number of GiB"),
    ({"gpu__total_gib": -5}, "gpu.total_gib", "positive, finite number of GiB"),
    ({"gpu__total_gib": float("nan")}, "gpu.total_gib", "positive, finite number of GiB"),
    ({"gpu__total_gib": 1e308}, "gpu.total_gib", "positive, finite number of GiB"),
    # 0 GPUs was read as one, a negative count too
    ({"gpu__count": 0}, "gpu.count", "must be from 1 to 65,536"),
    ({"gpu__count": -1}, "gpu.count", "must be from 1 to 65,536"),
    # a NaN or Infinity figure was scored into a NaN error and written as NaN, which is not JSON
    ({"observed__kv_cache_gib": float("nan")}, "observed.kv_cache_gib", "finite number"),
    ({"observed__max_concurrency": float("inf")}, "observed.max_concurrency", "finite number"),
    ({"model__weights_bytes": -5}, "model.weights_bytes", "positive number of bytes"),
])
def test_a_mistaken_field_is_a_skip_naming_it_and_the_fix(monkeypatch, capsys, tmp_path, changes, field, says):
    path = tmp_path / "mine.jsonl"
    path.write_text(json.dumps(_record(id="mine", **changes)) + "\n")
    code, out, err = run_cli(monkeypatch, capsys, "validate", str(path), "--json")
    assert code == 2 and "Traceback" not in out + err  # its one record skipped: nothing validated (was exit 0)
    # strict JSON: no NaN or Infinity anywhere in the output
    data = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c} in validate --json"))
    (rec,) = data["records"]
    assert rec["id"] == "mine" and rec["skipped"].startswith(f"{field}: ") and says in rec["skipped"], rec["skipped"]
    assert "internal" not in rec["skipped"]
    assert data["summary"]["skipped"] == 1


def test_the_table_names_the_skipped_record_field_and_fix(monkeypatch, capsys, tmp_path):
    path = tmp_path / "mine.jsonl"
    path.write_text(json.dumps(_record(id="mine", gpu__count=0)) + "\n")
    code, out, err = run_cli(monkeypatch, capsys, "validate", str(path), "--no-rows")
    text = " ".join((out + err).split())
    assert code == 2 and "skipped mine: gpu.count: must be from 1 to 65,536, got 0 (give the number of GPUs" in text, text


def test_a_record_without_an_id_is_named_by_its_line(monkeypatch, capsys, tmp_path):
    rec = _record()
    del rec["id"]
    bad = _record(gpu__count=0)
    del bad["id"]
    path = tmp_path / "noid.jsonl"
    path.write_text(json.dumps(_record(id="first")) + "\n\n" + json.dumps(rec) + "\n" + json.dumps(bad) + "\n")
    code, out, err = run_cli(monkeypatch, capsys, "validate", str(path), "--json")
    ids = [r["id"] for r in json.loads(out)["records"]]
    assert ids == ["first", f"{path}:3 (no id)", f"{path}:4 (no id)"]  # the blank line 2 counts: the editor's line
    assert json.loads(out)["records"][2]["skipped"].startswith("gpu.count: ")
    # records handed to the API without an id are named by their place
    (r,) = validate_records([rec])
    assert r.id == "record 1 (no id)"


def test_load_records_keeps_a_records_own_id():
    recs = load_records(HERE / "data" / "blind_records.jsonl")
    assert all("(no id)" not in r["id"] for r in recs)


@pytest.mark.parametrize("version, says", [
    ("0.11", "vLLM '0.11' names no patch release: 0.11.0's rules applied"),
    ("0.99.0", "vLLM 0.99.0 is newer than the newest release kvplan has read"),
])
def test_a_version_kvplan_reads_with_a_guess_says_so(version, says):
    (r,) = validate_records([_record(id="v", vllm_version=version)])
    assert r.skipped is None and any(says in a for a in r.assumptions), r.assumptions


@pytest.mark.parametrize("version", ["0.10.1.1", "v0.10.1.1", "vllm/vllm-openai:v0.10.1.1"])
def test_a_full_release_takes_no_note(version):
    (r,) = validate_records([_record(id="v", vllm_version=version)])
    assert r.skipped is None and r.assumptions == []


# ---- the validated band `kvplan fit` prints: which startups it speaks for, and where it speaks for none


def test_the_band_names_its_family_and_era(monkeypatch, capsys):
    code, out, err = run_cli(monkeypatch, capsys, "fit", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4",
                             "--max-model-len", "8192", "--vllm-version", "0.10.1.1", "--json")
    band = json.loads(out)["uncertainty"]
    assert band["family"] == "dense" and band["era"] == "V1 <= 0.10" and band["outside_validation"] is False
    assert band["text"].startswith(f"validated band (p10–p90 of {band['n']} real dense startups, vLLM V1 <= 0.10)")


@pytest.mark.parametrize("version, says", [
    ("0.99.0", "outside what was validated: vLLM 0.99.0 is newer than the newest release kvplan has read"),
    ("0.2.0", "outside what was validated: vLLM 0.2.0 is older than the oldest release kvplan has read"),
])
def test_a_release_kvplan_never_read_is_outside_the_validated_band(monkeypatch, capsys, version, says):
    # 0.99.0 was banded with the V1 >= 0.11 records, 0.2.0 with the V0 ones, each called validated
    code, out, err = run_cli(monkeypatch, capsys, "fit", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4",
                             "--max-model-len", "8192", "--vllm-version", version, "--json")
    band = json.loads(out)["uncertainty"]
    assert band["outside_validation"] is True and says in band["text"], band
    code, out, err = run_cli(monkeypatch, capsys, "fit", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4",
                             "--max-model-len", "8192", "--vllm-version", version)
    assert says in " ".join(out.replace("│", " ").split())


# ---- the README's reproduce commands on a clean checkout: the repository alone, no shared/ beside it


def test_the_calibration_copy_is_the_shared_file():
    shared = HERE.parents[1] / "shared" / "data" / "vllm_logs" / "calibration.jsonl"
    if not shared.is_file():
        pytest.skip("no shared/ beside this checkout")
    assert (HERE / "data" / "calibration.jsonl").read_bytes() == shared.read_bytes()


def test_the_fit_script_reads_the_checkouts_calibration_copy_without_shared(tmp_path):
    # python tools/readme_accuracy.py and bench/band_coverage.py stopped with "no such file: ../shared/data/..."
    import shutil

    from repo_scripts import load_script

    tool = load_script("tools/fit_calibration.py", "fit_calibration_clean_checkout_under_test")
    full, bare = tmp_path / "full", tmp_path / "bare"
    for base, names in ((full, tool.PEAK_FILES), (bare, tool.PEAK_FILES[1:])):
        for rel in names:
            (base / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(HERE / "data" / Path(rel).name, base / rel)
    assert not (bare / tool.PEAK_FILES[0]).exists()
    assert tool.located(bare, tool.PEAK_FILES[0]) == tool.CHECKOUT / "tests" / "data" / "calibration.jsonl"
    fixing = tool.records_fixing_coefficients(bare)
    assert fixing and fixing == tool.records_fixing_coefficients(full)


def test_the_out_of_sample_table_has_a_command_that_reproduces_it(tmp_path, capsys):
    # the README said "reproduce any table with the command above it", and the out-of-sample table had none
    from repo_scripts import load_script

    readme = (HERE.parent / "README.md").read_text()
    assert "python tools/readme_accuracy.py --out-of-sample\n/tmp/out-of-sample.jsonl && kvplan validate" in readme
    tool = load_script("tools/readme_accuracy.py", "readme_accuracy_out_of_sample_under_test")
    out = tmp_path / "oos.jsonl"
    tool.main(["--out-of-sample", str(out)])
    kept = [json.loads(line)["id"] for line in out.read_text().splitlines() if line.strip()]
    every = [r["id"] for r in load_records(HERE / "data" / "extra_records.jsonl")]
    assert 0 < len(kept) < len(every) and set(kept) < set(every)
    assert f"The {len(kept)} of them that fix no coefficient" in readme


def test_the_summary_says_the_seed_is_given_the_weights(monkeypatch, capsys, tmp_path):
    # the terminal's summary showed the seed's weights at 0.00 % (it is handed the logged weights), the README "(given)"
    code, out, err = run_cli(monkeypatch, capsys, "validate", str(HERE / "data" / "blind_records.jsonl"), "--no-rows",
                             "--markdown", str(tmp_path / "t.md"))
    weights = next(line for line in (tmp_path / "t.md").read_text().splitlines() if line.startswith("| weights GiB"))
    assert weights.split("|")[6:9] == [" (given) "] * 3, weights
    assert "0.00 %" not in weights.split("|", 6)[-1]
    code, out, err = run_cli(monkeypatch, capsys, "validate", str(HERE / "data" / "blind_records.jsonl"), "--no-rows",
                             "--given-kv", "--markdown", str(tmp_path / "g.md"))
    assert "(given)" not in (tmp_path / "g.md").read_text()  # no seed columns there


def test_an_id_two_records_carry_is_noted_on_stderr(monkeypatch, capsys, tmp_path):
    path = tmp_path / "dup.jsonl"
    path.write_text((json.dumps(_record(id="same")) + "\n") * 2 + json.dumps(_record(id="other")) + "\n")
    code, out, err = run_cli(monkeypatch, capsys, "validate", str(path), "--json")
    assert [r["id"] for r in json.loads(out)["records"]] == ["same", "same", "other"]  # stdout stays one JSON document
    assert "2 records carry the id 'same'" in " ".join(err.split()) and "other" not in err


def test_a_record_without_args_is_a_skip_not_every_default(monkeypatch, capsys, tmp_path):
    # it was planned at the model's full length and the release's utilization: +455 % on the pool, no word said
    rec = _record(id="noargs")
    del rec["args"]
    (r,) = validate_records([rec])
    assert r.skipped.startswith("args: the record has no args") and "{} if every one was left at its default" in r.skipped
    (r,) = validate_records([dict(rec, args={})])  # an empty section: every argument at its default, as stated
    assert r.skipped is None


def test_a_misspelt_gpu_name_is_answered_with_the_catalogs_nearest():
    (r,) = validate_records([_record(id="typo", gpu__name="RTX 4080 Supr", gpu__total_gib=None)])
    assert r.skipped.startswith("gpu.name: unknown GPU 'RTX 4080 Supr'") and "nearest: RTX 4080 Super" in r.skipped
    assert "--gpu-gib" not in r.skipped  # a flag of kvplan fit, no field of a record
    (r,) = validate_records([_record(id="far", gpu__name="Huawei Ascend 910B", gpu__total_gib=None)])
    assert r.skipped.endswith("(add gpu.total_gib as vLLM logged it)")  # nothing near: the fix as before


@pytest.mark.parametrize("model, arch", [
    ("mistralai/Mistral-Small-3.1-24B-Instruct-2503", "Mistral3ForConditionalGeneration"),  # dense, banded by others
    ("ibm-granite/granite-4.0-h-tiny", "GraniteMoeHybridForCausalLM"),  # Mamba hybrid, banded by GDN/sliding ones
])
def test_an_architecture_with_no_validated_startup_is_outside_the_band(model, arch):
    import kvplan
    from kvplan.validate import uncertainty_band

    band = uncertainty_band(kvplan.fit(model, "H100", max_model_len=8192, fixes=False))
    assert band["outside_validation"] is True and band["kv_cache_gib"]  # the family's band, still shown
    assert band["text"].startswith("band (p10–p90 of")  # not called "validated"
    assert band["text"].endswith(f"outside what was validated: no validated startup of the {arch} architecture")
    same = uncertainty_band(kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192, fixes=False))
    assert same["outside_validation"] is False and same["text"].startswith("validated band (")


# ---- files that are not JSON lines of records


def test_one_pretty_printed_record_is_read_and_several_are_named(monkeypatch, capsys, tmp_path):
    one = tmp_path / "one.json"
    one.write_text(json.dumps(_record(id="pretty"), indent=2) + "\n")
    assert [r["id"] for r in load_records(one)] == ["pretty"]  # one JSON object, as a JSON array of them is read
    two = tmp_path / "two.jsonl"
    two.write_text(json.dumps(_record(id="a"), indent=2) + "\n" + json.dumps(_record(id="b"), indent=2) + "\n")
    code, out, err = run_cli(monkeypatch, capsys, "validate", str(two))
    text = " ".join(err.split())
    assert code == 2 and "Traceback" not in text
    assert f"{two}:1 starts a record written over several lines (pretty-printed JSON)" in text and "jq -c ." in text


def test_a_vllm_log_given_as_records_points_to_reconcile(monkeypatch, capsys):
    log = HERE / "data" / "compile_warm_rtx4090_v0230.log"
    code, out, err = run_cli(monkeypatch, capsys, "validate", str(log))
    text = " ".join(err.split())
    assert code == 2 and f"{log}:1 is a line of a vLLM log, not a startup record" in text
    assert f"kvplan reconcile {log} MODEL --record records.jsonl" in text


def test_a_broken_record_line_beside_records_quoting_a_log_is_still_called_not_json(monkeypatch, capsys, tmp_path):
    quoting = _record(id="q", notes="INFO 07-06 09:41:03 [core.py:113] Initializing a V1 LLM engine")
    path = tmp_path / "r.jsonl"
    path.write_text('{"id": "broken", \n' + json.dumps(quoting) + "\n")
    code, out, err = run_cli(monkeypatch, capsys, "validate", str(path))
    assert code == 2 and f"{path}:1 is not JSON" in " ".join(err.split())


def test_records_read_from_a_pipe(tmp_path):
    # `kvplan validate <(zcat records.jsonl.gz)` names /dev/fd/N, a pipe and not a regular file: it is read, not refused
    import subprocess
    import sys

    line = Path(__file__).parent.joinpath("data", "blind_records.jsonl").read_text().splitlines()[0]
    out = subprocess.run([sys.executable, "-m", "kvplan", "validate", "/dev/stdin", "--json"], input=line + "\n",
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert len(json.loads(out.stdout)["records"]) == 1
    # '-' is standard input, as reconcile and diagnose read it (validate said 'no such file: -')
    dash = subprocess.run([sys.executable, "-m", "kvplan", "validate", "-", "--json"], input=line + "\n",
                          capture_output=True, text=True, timeout=120)
    assert dash.returncode == 0, dash.stderr
    assert json.loads(dash.stdout)["records"] == json.loads(out.stdout)["records"]
    missing = subprocess.run([sys.executable, "-m", "kvplan", "validate", str(tmp_path / "nothing.jsonl")],
                             capture_output=True, text=True, timeout=120)
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_the_rows_fit_a_narrow_terminal_and_show_both_figures_on_a_wide_one():
    import os
    import subprocess
    import sys

    data = str(Path(__file__).parent / "data" / "calibration.jsonl")

    def run(columns: int) -> str:
        out = subprocess.run([sys.executable, "-m", "kvplan", "validate", data], capture_output=True, text=True,
                             timeout=300, env={**os.environ, "COLUMNS": str(columns)})
        assert out.returncode == 0, out.stderr
        return out.stdout

    narrow = run(80)
    table = narrow[:narrow.index("Summary")]
    # every line of the rows table within 80 columns, no column cut off: the fits verdict is on each row
    assert max(len(line) for line in table.splitlines()) <= 80
    assert "signed % error against the log" in table and "fits" in table and table.count("right") >= 40
    # Llama-3.1-8B on an RTX 3090: KV 3.82 predicted, 3.81 logged (+0.3 %; 3.78, -0.9 %, before the dense live set's
    # third T x H row and V0 <= 0.6.4's non-torch constant at its logged 0.35 GiB)
    # (the id breaks after a '-' at 80 columns: "llama-3.1-8b-instruct-" / "rtx3090-u090-tpx")
    lines = table.splitlines()
    at = next(i for i, line in enumerate(lines) if line.split()[:1] == ["rtx3090-u090-tpx"])
    row = lines[at - 1]
    assert row.split()[0] == "llama-3.1-8b-instruct-" and row.split()[2] == "+0.3", row
    wide = run(200)
    assert "pred / logged" in wide and "3.82 / 3.81" in wide and "signed % error" not in wide


def test_a_gpu_outside_the_catalog_is_said_where_its_total_is_given():
    rec = {"id": "vgpu", "source": "hand-written", "vllm_version": "0.10.2",
           "model": {"id": "Qwen/Qwen2.5-7B-Instruct", "config": None, "quant_config": None, "weights_bytes": None},
           "gpu": {"name": "NVIDIA A40-48Q", "total_gib": 47.74, "count": 1},
           "args": {"max_model_len": 4096}, "observed": {"kv_cache_gib": 30.0}}
    (r,) = validate_records([rec])
    assert r.skipped is None
    said = [a for a in r.assumptions if "not in kvplan's catalog" in a]
    assert said and "47.74 GiB" in said[0] and "no compute capability" in said[0] and "NVIDIA A40" in said[0]
    # a catalog GPU with its logged total is no such case
    rec["gpu"]["name"] = "NVIDIA A40"
    (r,) = validate_records([rec])
    assert not any("not in kvplan's catalog" in a for a in r.assumptions)


def test_the_summary_keeps_its_words_and_figures_whole_at_80_columns(monkeypatch, capsys, tmp_path):
    """At 80 columns the summary's ruled table cut "KV-cache GiB" and "concurrency" to "KV-cac…" and "concur…" and
    wrapped "1213.04 %"; a narrow terminal gets it without vertical rules and the title's % for every cell."""
    from cli_runner import run_cli

    from kvplan.cli import console

    lines = (Path(__file__).parent / "data" / "blind_records.jsonl").read_text().splitlines()[:12]
    records = tmp_path / "some.jsonl"
    records.write_text("\n".join(lines) + "\n")
    for width, ruled in ((80, False), (140, True)):
        monkeypatch.setattr(console, "_width", width)
        code, out, _ = run_cli(monkeypatch, capsys, "validate", str(records))
        assert code == 0
        summary = out[out.index("Summary"):]
        assert "…" not in summary and max(len(line.rstrip()) for line in summary.splitlines()) <= width, summary
        for figure in ("weights GiB", "KV-cache GiB", "concurrency"):
            assert any(line.split("│")[1 if ruled else 0].strip().startswith(figure) for line in summary.splitlines()
                       if len(line.split("│")) > (1 if ruled else 0)), summary
        assert ("┃" in summary) == ruled and (" %" in summary.split("\n", 1)[1].rsplit("fit verdict", 1)[0]) == ruled
