"""A new user's pass over the commands the README shows: what they typed, what kvplan answered, and what they expected."""

from __future__ import annotations

import json
import re

import pytest

from cli_runner import refused, run_cli


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


def test_a_utilization_given_as_a_percentage_is_answered_with_the_fraction(monkeypatch, capsys):
    """--gpu-memory-utilization 95 was answered 'e.g. 0.9': the user meant 0.95."""
    out = refused(monkeypatch, capsys, "--gpu-memory-utilization", "fit", "Qwen/Qwen3-8B", "--gpu", "L4",
                  "--gpu-memory-utilization", "95")
    assert "--gpu-memory-utilization 0.95 for 95 %" in out
    out = refused(monkeypatch, capsys, "--gpu-memory-utilization", "fit", "Qwen/Qwen3-8B", "--gpu", "L4",
                  "--gpu-memory-utilization", "0")
    assert "e.g. 0.9" in out and "percentage" not in out
    # 1.5 was answered "0.015 for 1.5 %": a typo over 1, no percentage anyone serves at
    out = refused(monkeypatch, capsys, "--gpu-memory-utilization", "fit", "Qwen/Qwen3-8B", "--gpu", "L4",
                  "--gpu-memory-utilization", "1.5")
    assert "e.g. 0.9" in out and "0.015" not in out


def test_a_range_of_utilizations_names_what_ranges_are_for(monkeypatch, capsys):
    """--vary gpu_memory_utilization=0.8..0.95 said 'gpu_memory_utilization takes float values' of two floats."""
    out = refused(monkeypatch, capsys, "--vary", "sweep", "Qwen/Qwen3-8B", "--vary", "gpu_memory_utilization=0.8..0.95")
    assert "max_model_len or tensor_parallel_size" in out and "gpu_memory_utilization=0.8,0.85,0.9,0.95" in out
    assert "takes float values" not in out


def test_a_model_path_with_dots_is_still_a_value_of_vary_model():
    """The range refusal above made every '..' a range: --vary model=../ckpt/config.json,Qwen/Qwen3-8B was 'bad range
    in ...' (it was the two models before)."""
    from kvplan.api import parse_vary

    assert parse_vary(["model=../ckpt/config.json,Qwen/Qwen3-8B"]) == [("model", ["../ckpt/config.json", "Qwen/Qwen3-8B"])]
    assert parse_vary(["max_model_len=4k..16k"]) == [("max_model_len", [4000, 8000, 16000])]


@pytest.mark.parametrize("vary, code", [
    (("--vary", "gpu_memory_utilization=90,95"), 2),  # every row bad input, each its own refusal: was exit 0
    (("--gpu", "T4", "--vary", "max_model_len=4k,8k"), 1),  # no row starts (the weights do not load): was exit 0
    (("--gpu", "L4", "--vary", "max_model_len=4k,32K"), 0),  # one row starts
])
def test_sweep_exit_codes_say_whether_any_row_starts(monkeypatch, capsys, vary, code):
    got, out, err = run_cli(monkeypatch, capsys, "sweep", "Qwen/Qwen3-8B", *vary)
    assert got == code, out + err
    got, out, err = run_cli(monkeypatch, capsys, "sweep", "Qwen/Qwen3-8B", *vary, "--json")
    assert got == code and json.loads(out)["rows"], out + err


def test_a_missing_relative_path_is_called_missing(monkeypatch, capsys, tmp_path):
    """'models/qwen/config.jsn' (a typo of a relative path) was 'unknown model ... (or give a Hub id ...)': a Hub id
    has one '/', so a name with more is a path, and it is not there. A name with no catalog id near it reads 'give a
    Hub id', not '(or give ...'."""
    from cli_runner import hub_offline

    hub_offline(monkeypatch, tmp_path)
    monkeypatch.chdir(tmp_path)
    out = refused(monkeypatch, capsys, "model", "fit", "models/qwen/config.jsn", "--gpu", "L4")
    assert "no such file or folder: models/qwen/config.jsn" in out
    out = refused(monkeypatch, capsys, "model", "fit", "zzzz", "--gpu", "L4")
    assert "unknown model 'zzzz' (give a Hub id" in out


def test_scaffold_readme_says_the_download_rate_it_assumed(monkeypatch, capsys, tmp_path):
    """The README's startup table said 'download | 96 s' with no rate: 96 s is 15.3 GiB at the public startups' median
    download rate (startup.COEFFICIENTS), which the user's own network replaces."""
    from kvplan.startup import COEFFICIENTS

    code, out, err = run_cli(monkeypatch, capsys, "scaffold", str(tmp_path / "d"), "Qwen/Qwen3-8B", "--gpu", "L4",
                             "--max-model-len", "8k")
    assert code == 0, out + err
    row = next(line for line in (tmp_path / "d" / "README.md").read_text().splitlines() if line.startswith("| download"))
    assert f"GiB at {COEFFICIENTS.download_gib_per_s:g} GiB/s" in row and "your network" in row, row


@pytest.mark.parametrize("command", [("fit", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "L4"),
                                     ("scaffold", "{tmp}/d", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "L4")])
def test_a_release_vllm_never_published_is_refused_with_its_series(monkeypatch, capsys, tmp_path, command):
    """--vllm-version 0.10.3 (vLLM went 0.10.2 -> 0.11.0) was planned as '0.10.3 rules' without a word, and scaffold
    pinned vllm==0.10.3 and the image v0.10.3, neither of which exists."""
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    out = refused(monkeypatch, capsys, "--vllm-version", *args, "--max-model-len", "8k", "--vllm-version", "0.10.3")
    assert "0.10.3 is no published release (the 0.10 series: 0.10.0, 0.10.1, 0.10.1.1, 0.10.2)" in out
    assert not (tmp_path / "d").exists()


@pytest.mark.parametrize("version", ["0.10.2", "0.10.1.1", "0.9.0.1", "0.8.5.post1", "0.10", "0.11.0.dev5", "0.20.0rc1",
                                     "0.11.0+cu128", "0.34.1", "0.4.0"])
def test_releases_series_and_builds_are_still_planned(monkeypatch, capsys, version):
    code, out, err = run_cli(monkeypatch, capsys, "fit", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "L40S", "--max-model-len",
                             "8k", "--vllm-version", version)
    assert code in (0, 1) and "no published release" not in out + err, out + err


def test_validate_of_records_none_of_which_can_be_planned_is_bad_input(monkeypatch, capsys, tmp_path):
    """A file whose every record is skipped (here: no GPU named, no total) printed a summary of n = 0 and dashes and
    exited 0, which a script reads as a validation that passed."""
    from pathlib import Path

    rec = json.loads((Path(__file__).parent / "data" / "calibration.jsonl").read_text().splitlines()[0])
    rec.pop("gpu")
    f = tmp_path / "mine.jsonl"
    f.write_text(json.dumps(rec) + "\n")
    for extra in ((), ("--json",)):
        code, out, err = run_cli(monkeypatch, capsys, "validate", str(f), *extra)
        assert code == 2 and "none of its 1 record(s) could be planned" in " ".join(err.split()), out + err
    # one record planned beside it: the file is scored, exit 0 as before
    good = (Path(__file__).parent / "data" / "calibration.jsonl").read_text().splitlines()[0]
    f.write_text(good + "\n" + json.dumps(rec) + "\n")
    code, out, err = run_cli(monkeypatch, capsys, "validate", str(f))
    assert code == 0 and "skipped" in out, out + err


@pytest.mark.parametrize("name, count", [("7900 XTX", None), ("2x 7900 XTX", 2), ("4xH100", 4), ("8 x A100", 8),
                                         ("2 × L4", 2), ("H100 x 4", 4),
                                         # the catalog's own alias '7900XTX' was 'unknown GPU TX', and the first fix
                                         # of '7900 XTX' refused '8 xA100' (a count before it read since 2x H100 was)
                                         ("7900XTX", None), ("2x7900XTX", 2), ("8 xA100", 8), ("4 xH100", 4), ("4xT4", 4),
                                         ("4X H100", 4), ("2*L4", 2)])
def test_a_card_whose_name_has_an_x_word_is_not_read_as_a_count(name, count):
    """--gpu '7900 XTX' (as people call the Radeon RX 7900 XTX) answered "unknown GPU 'TX'": the '7900 X' was read as a
    count of 7900 GPUs."""
    from kvplan.resolve import find_gpu, gpu_count_in_name

    assert gpu_count_in_name(name) == count
    card = find_gpu(name).name
    if "7900" in name:
        assert card == "AMD Radeon RX 7900 XTX"


def _calibrate_dp2_log(monkeypatch, capsys, tmp_path) -> tuple[int, str]:
    """`reconcile --calibrate` of the DP2 0.10.1 log with a site calibration under tmp_path: (exit code, stdout's words)."""
    from pathlib import Path

    monkeypatch.setenv("KVPLAN_HOME", str(tmp_path))
    log = str(Path(__file__).parent / "data" / "dp2_engine_core_n_v0101.log")
    code, out, err = run_cli(monkeypatch, capsys, "reconcile", log, "Qwen/Qwen2.5-7B-Instruct", "--gpu", "H100",
                             "--calibrate")
    return code, " ".join(out.split())


def test_reconcile_calibrate_says_what_it_stored_in_gib_and_where(monkeypatch, capsys, tmp_path):
    """It printed the stored terms as a Python dict ("{'weights_gib': 0.0, 'non_torch_gib': 0.0, 'kv_cache_gib':
    -0.0133}"): no unit, nothing of where they went or what reads them."""
    code, text = _calibrate_dp2_log(monkeypatch, capsys, tmp_path)
    assert code == 0 and "{'" not in text, text
    assert "site calibration stored (1 startup(s); logged minus planned, per rank): " in text and " GiB" in text
    assert f"{tmp_path / 'calibration.json'} now holds it for NVIDIA H100" in text, text


def test_reconcile_calibrate_says_which_terms_a_plan_applies(monkeypatch, capsys, tmp_path):
    """'site calibration stored (1 startup(s)): weights +0.00 GiB, CUDA graphs -0.06 GiB, KV cache +1.58 GiB ...; every
    planning command applies it' read as a pool 1.58 GiB larger to come: a plan applies the CUDA-graph term alone (the
    activation, non-torch and graph terms; the pool follows from them), and fit's pool came out smaller, not larger."""
    import kvplan

    code, text = _calibrate_dp2_log(monkeypatch, capsys, tmp_path)
    assert code == 0 and "every planning command applies it" not in text, text
    applied = re.search(r"every planning command applies CUDA graphs ([-+][\d.]+) GiB; recorded, not applied: weights "
                        r"\+0\.00 GiB, KV cache \+[\d.]+ GiB", text)
    assert applied, text
    entry = json.loads((tmp_path / "calibration.json").read_text())["NVIDIA H100 80GB SXM5"]["Qwen/Qwen2.5-7B-Instruct"]
    assert set(entry) & {"activation_peak_bytes", "non_torch_bytes", "cudagraph_bytes", "kv_cache_bytes"} == {"cudagraph_bytes"}
    # planned under the log's release (a calibration is applied within the era it was measured in): 0.10.1.1 captures
    # its graphs after sizing the pool, so the applied graph term moves the capture by itself, and the recorded KV gap
    # moves nothing
    kw = dict(max_model_len=4096, vllm_version="0.10.1.1")
    plain = kvplan.fit("Qwen/Qwen2.5-7B-Instruct", "H100", site_calibration=False, **kw)
    calibrated = kvplan.fit("Qwen/Qwen2.5-7B-Instruct", "H100", **kw)
    assert calibrated.kv_cache_bytes == plain.kv_cache_bytes
    assert ((calibrated.cudagraph_capture_bytes - plain.cudagraph_capture_bytes) / 2**30
            == pytest.approx(float(applied.group(1)), abs=0.01))


@pytest.mark.parametrize("ref", ["Qwen/Qwen3-8B ", " qwen3-8b", "Qwen/Qwen3-8B\n"])
def test_a_model_id_pasted_with_spaces_is_read_without_them(monkeypatch, capsys, ref):
    """'Qwen/Qwen3-8B ' (copied with a trailing space) was 'unknown model ... (nearest catalog ids: Qwen/Qwen3-8B, ...)'."""
    code, out, err = run_cli(monkeypatch, capsys, "fit", ref, "--gpu", "H100", "--max-model-len", "4k", "--json")
    assert code == 0 and json.loads(out)["model"] == "Qwen/Qwen3-8B", out + err


def test_capacity_help_does_not_name_a_rate_flag_it_lacks(monkeypatch, capsys):
    """capacity --help said a trace's timing is 'scaled to --rate'; capacity has no --rate (it probes the rates)."""
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run_cli(monkeypatch, capsys, "capacity", "--help")
    assert code == 0 and "scaled to each probed rate" in out and "scaled to --rate" not in out and "--rate " not in out
