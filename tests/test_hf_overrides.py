"""--hf-overrides (and 0.4.3-0.11.0's --rope-scaling / --rope-theta): keys set on the model's config before anything is
derived from it, as vLLM applies them, from fit to serve.sh, reconcile and validate."""

from __future__ import annotations

import json

import pytest

import kvplan
from kvplan.cli import FitFlags
from kvplan.deploy import render_files, spec_from_plan
from kvplan.errors import InputError
from kvplan.logs import parse_lines
from kvplan.reconcile import plan_from_log
from kvplan.resolve import context_limit, resolve_model
from kvplan.validate import predict_record
from kvplan.versions import SERVE_FLAG_SINCE, SERVE_FLAG_UNTIL, rules_for

from cli_runner import refused, run_cli

QWEN3 = "Qwen/Qwen3-32B"
QWEN25 = "Qwen/Qwen2.5-7B-Instruct"
YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}
OVERRIDE = json.dumps({"rope_scaling": YARN})
LONG = int(YARN["original_max_position_embeddings"] * YARN["factor"])  # 131,072: the model card's YaRN length


def _fit(model=QWEN3, **kw):
    kw.setdefault("max_model_len", LONG)
    return kvplan.fit(model, "H200", fixes=False, **kw)


@pytest.mark.parametrize("model", [QWEN3, QWEN25])
def test_the_yarn_override_plans_the_model_card_length_without_the_env_var(model):
    stated = resolve_model(model).max_position_embeddings
    assert stated < LONG
    with pytest.raises(InputError) as e:  # the config alone: refused, as vLLM refuses it
        _fit(model, vllm_version="0.29.0")
    assert e.value.field == "--max-model-len"
    p = _fit(model, vllm_version="0.29.0", hf_overrides=OVERRIDE)
    assert p.args.max_model_len == LONG and not p.args.env_on("VLLM_ALLOW_LONG_MAX_MODEL_LEN")
    # up to 0.29 a yarn dict restarts from original_max_position_embeddings, then x factor
    assert p.config_overrides["changed"]["max_model_len_limit"] == [stated, LONG]
    assert any(a.startswith("--hf-overrides") and f"{stated:,} -> {LONG:,}" in a for a in p.assumptions)
    assert p.to_dict()["hf_overrides"]["given"] == {"rope_scaling": YARN}


def test_from_0_30_a_yarn_factor_is_not_applied_and_the_fix_says_what_to_add():
    stated = resolve_model(QWEN3).max_position_embeddings
    assert context_limit(resolve_model(QWEN3), rules_for("0.30.0")).tokens == stated
    with pytest.raises(InputError) as e:
        _fit(vllm_version="0.30.0", hf_overrides=OVERRIDE)
    assert e.value.field == "--max-model-len" and f'"max_position_embeddings": {LONG}' in e.value.fix
    p = _fit(vllm_version="0.30.0", hf_overrides=json.dumps({"rope_scaling": YARN, "max_position_embeddings": LONG}))
    assert p.config_overrides["changed"]["max_model_len_limit"] == [stated, LONG]
    # the release boundary is the rules rows', not a constant
    assert rules_for("0.29.0").rope_yarn_from_original and not rules_for("0.30.0").rope_yarn_from_original
    assert "yarn" in rules_for("0.30.0").rope_unscaled_types and "yarn" not in rules_for("0.29.0").rope_unscaled_types


def test_a_yarn_dict_without_its_original_length_is_refused_where_vllm_reads_it():
    cut = json.dumps({"rope_scaling": {"rope_type": "yarn", "factor": 4.0}})
    with pytest.raises(InputError) as e:
        _fit(max_model_len=32768, vllm_version="0.29.0", hf_overrides=cut)
    assert e.value.field == "--hf-overrides" and "original_max_position_embeddings" in e.value.message
    assert _fit(max_model_len=32768, vllm_version="0.30.0", hf_overrides=cut).fits  # 0.30 no longer reads it


@pytest.mark.parametrize("heads", [4, 2])
def test_an_override_of_the_kv_heads_changes_the_kv_bytes_per_token(heads):
    base = _fit(max_model_len=32768)
    p = _fit(max_model_len=32768, hf_overrides=json.dumps({"num_key_value_heads": heads}))
    assert p.kv_bytes_per_token * base.model.num_kv_heads == base.kv_bytes_per_token * heads
    assert p.model.num_kv_heads == heads and p.config_overrides["changed"]["num_key_value_heads"] == [base.model.num_kv_heads, heads]
    assert p.kv_cache_tokens > base.kv_cache_tokens  # a smaller KV per token: more tokens in about the same pool
    # a replan (the fixes, --max-model-len auto) starts from the model as read, not from the overridden one twice
    again = kvplan.api.replan(p, max_model_len=16384)
    assert again.model.num_kv_heads == heads and again.config_overrides == p.config_overrides


def test_an_override_of_the_head_dim_changes_the_kv_bytes_per_token():
    base = _fit(max_model_len=32768)
    p = _fit(max_model_len=32768, hf_overrides=json.dumps({"head_dim": base.model.head_dim // 2}))
    assert p.kv_bytes_per_token * 2 == base.kv_bytes_per_token


@pytest.mark.parametrize("bad, said", [
    ('{"rope_scaling": ', "not JSON"),
    ("[1, 2]", "must be a JSON object"),
    ('"yarn"', "must be a JSON object"),
    ('{"num_key_value_heads": 5}', "num_key_value_heads"),  # 64 query heads are not split in groups of 5
])
def test_a_bad_override_is_refused_naming_the_flag(bad, said):
    with pytest.raises(InputError) as e:
        _fit(max_model_len=32768, hf_overrides=bad)
    assert e.value.field == "--hf-overrides" and said in e.value.message and e.value.fix


def test_the_command_line_refuses_a_bad_override_without_a_traceback(monkeypatch, capsys):
    text = refused(monkeypatch, capsys, "--hf-overrides", "fit", QWEN3, "--gpu", "H200", "--hf-overrides", "{rope_scaling: yarn}")
    assert "not JSON" in text


def test_a_key_the_config_does_not_have_is_warned_with_the_nearest_one():
    p = _fit(max_model_len=32768, hf_overrides=json.dumps({"rope_scalling": YARN}))
    warning = next(w for w in p.warnings if "rope_scalling" in w)
    assert "did you mean 'rope_scaling'" in warning
    assert "max_model_len_limit" not in p.config_overrides["changed"]  # misspelt: nothing derived changed


def test_a_sub_config_is_merged_from_0_11_1_and_refused_before():
    model = "Qwen/Qwen3-VL-2B-Instruct"
    heads = resolve_model(model).num_kv_heads
    nested = json.dumps({"text_config": {"num_key_value_heads": heads // 2}})
    merged = kvplan.fit(model, "H200", max_model_len=8192, fixes=False, vllm_version="0.11.1", hf_overrides=nested)
    assert merged.model.num_kv_heads == heads // 2  # the text config's other keys kept: merged, not replaced
    assert merged.model.num_layers == resolve_model(model).num_layers
    with pytest.raises(InputError) as e:
        kvplan.fit(model, "H200", max_model_len=8192, fixes=False, vllm_version="0.11.0", hf_overrides=nested)
    assert e.value.field == "--hf-overrides" and "0.11.1" in e.value.fix
    assert not rules_for("0.11.0").hf_overrides_nested_merge and rules_for("0.11.1").hf_overrides_nested_merge


@pytest.mark.parametrize("flag, kw, value", [("--rope-scaling", "rope_scaling", json.dumps(YARN)), ("--rope-theta", "rope_theta", 2e6)])
def test_the_older_rope_flags_are_accepted_where_the_release_has_them(flag, kw, value):
    first, (gone, fix) = SERVE_FLAG_SINCE[flag], SERVE_FLAG_UNTIL[flag]
    last_with = ".".join(map(str, (0, gone[1], gone[2] - 1)))  # 0.11.0, the release before the removal
    assert first < gone and "--hf-overrides" in fix
    p = _fit(max_model_len=LONG if kw == "rope_scaling" else 32768, vllm_version=last_with, **{kw: value})
    assert p.fits and p.config_overrides["given"][kw] == (YARN if kw == "rope_scaling" else value)
    with pytest.raises(InputError) as e:
        _fit(max_model_len=32768, vllm_version=".".join(map(str, gone)), **{kw: value})
    assert e.value.field == flag and "--hf-overrides" in e.value.fix and "removed" in e.value.message
    # fit is called from Python too: the fix names the keyword form, the same dict under hf_overrides
    assert f'hf_overrides={{"{kw}": ' in e.value.fix


def test_the_older_rope_flags_are_named_as_given_in_fit_and_its_notes(monkeypatch, capsys):
    # fit's "config" row and the plan's note name the flags the user gave (they read "--hf-overrides applied" for a
    # --rope-scaling / --rope-theta command line)
    args = ["fit", QWEN3, "--gpu", "H200", "--max-model-len", str(LONG), "--vllm-version", "0.11.0",
            "--rope-scaling", json.dumps(YARN), "--rope-theta", "1000000"]
    code, out, _ = run_cli(monkeypatch, capsys, *args)
    flat = " ".join(out.replace("│", " ").split())
    assert code == 0 and "--rope-scaling and --rope-theta applied: max length" in flat and "--hf-overrides applied" not in flat
    p = _fit(vllm_version="0.11.0", rope_scaling=json.dumps(YARN))
    assert p.args.config_override_flags == ("--rope-scaling",)
    assert any(a.startswith("--rope-scaling {") for a in p.assumptions)
    both = _fit(vllm_version="0.11.0", hf_overrides=json.dumps({"rope_theta": 2e6}), rope_scaling=json.dumps(YARN))
    assert any(a.startswith("--hf-overrides and --rope-scaling {") for a in both.assumptions)


def test_hf_overrides_is_refused_by_a_release_before_it():
    first = SERVE_FLAG_SINCE["--hf-overrides"]
    before = "0.6.3"
    assert (0, 6, 3) < first
    with pytest.raises(InputError) as e:
        kvplan.fit(QWEN25, "H100", max_model_len=LONG, fixes=False, vllm_version=before, hf_overrides=OVERRIDE)
    assert e.value.field == "--hf-overrides"


def test_serve_sh_readme_and_compose_carry_the_override():
    p = _fit(vllm_version="0.29.0", hf_overrides=OVERRIDE)
    files = render_files(spec_from_plan(p))
    line = next(l for l in files["serve.sh"].splitlines() if "--hf-overrides" in l)
    assert line.strip() == "--hf-overrides '" + OVERRIDE + "'"  # as given, one shell word
    assert "--hf-overrides" in files["README.md"] and f"{LONG:,}" in files["README.md"]
    assert json.loads(files["docker-compose.yml"].split('"--hf-overrides", ')[1].split("]")[0].replace('\\"', '"')[1:-1]) == {"rope_scaling": YARN}


@pytest.mark.parametrize("theta", [1234567.0, 1e6, 10000.5])
def test_serve_sh_passes_the_rope_theta_planned_digit_for_digit(theta):
    # serve.sh wrote f"{theta:g}": 1,234,567 became 1.23457e+06, a rope base vLLM would have served instead
    p = _fit(max_model_len=32768, vllm_version="0.11.0", rope_theta=theta)
    flag = next(f for f in spec_from_plan(p).flags if f.name == "--rope-theta")
    assert float(flag.value) == theta == p.config_overrides["given"]["rope_theta"] and "e+" not in flag.value


def test_scaffold_writes_a_serve_sh_bash_reads_back(tmp_path, monkeypatch, capsys):
    import shlex
    import subprocess

    code, out, err = run_cli(monkeypatch, capsys, "scaffold", str(tmp_path / "d"), QWEN3, "--gpu", "H200", "--max-model-len",
                             str(LONG), "--vllm-version", "0.29.0", "--hf-overrides", OVERRIDE)
    assert code == 0, out + err
    serve = (tmp_path / "d" / "serve.sh").read_text()
    assert subprocess.run(["bash", "-n", str(tmp_path / "d" / "serve.sh")]).returncode == 0
    word = next(l for l in serve.splitlines() if l.strip().startswith("--hf-overrides"))
    assert json.loads(shlex.split(word)[1]) == {"rope_scaling": YARN}


NON_DEFAULT = ("INFO 06-05 16:06:08 [api_server.py:1289] vLLM API server version 0.10.2\n"
               "INFO 06-05 16:06:09 [utils.py:328] non-default args: {'model_tag': 'Qwen/Qwen3-32B', 'model': 'Qwen/Qwen3-32B', "
               "'max_model_len': 131072, 'hf_overrides': {'rope_scaling': {'rope_type': 'yarn', 'factor': 4.0, "
               "'original_max_position_embeddings': 32768}}}\n")
NAMESPACE = ("INFO 01-05 10:00:00 api_server.py:640] vLLM API server version 0.6.6.post1\n"
             "INFO 01-05 10:00:00 api_server.py:641] args: Namespace(host=None, port=8000, model='Qwen/Qwen2.5-7B-Instruct', "
             "max_model_len=131072, rope_scaling={'rope_type': 'yarn', 'factor': 4.0, 'original_max_position_embeddings': 32768}, "
             "rope_theta=None, hf_overrides=None, enforce_eager=False)\n")


@pytest.mark.parametrize("text, model, key", [(NON_DEFAULT, QWEN3, "hf_overrides"), (NAMESPACE, QWEN25, "rope_scaling")])
def test_reconcile_plans_a_log_with_the_override_it_was_given(text, model, key):
    log = parse_lines(text.splitlines())
    record_args = log.to_record()["args"]
    assert record_args[key] == ({"rope_scaling": YARN} if key == "hf_overrides" else YARN)
    p, notes = plan_from_log(log, model, FitFlags(gpu="H200"), site_calibration=False)
    assert p.args.max_model_len == LONG
    assert p.config_overrides["changed"]["max_model_len_limit"][1] == LONG
    assert not any("above the" in n for n in notes)  # the override, not an unread argument, allowed the length


def test_the_overriding_line_stands_for_an_unprinted_argument():
    text = ("INFO 06-05 16:06:08 [api_server.py:1289] vLLM API server version 0.9.1\n"
            "INFO 06-05 16:06:09 [config.py:532] Overriding HF config with {'num_key_value_heads': 4}\n")
    assert parse_lines(text.splitlines()).to_record()["args"]["hf_overrides"] == {"num_key_value_heads": 4}


def _record(args):
    return {"id": "t", "vllm_version": "0.10.2", "model": {"id": QWEN3, "config": None},
            "gpu": {"name": "H200", "count": 1}, "args": {"max_model_len": 32768, **args}, "observed": {}}


def test_validate_plans_a_record_with_its_override():
    base, _ = predict_record(_record({}))
    p, _ = predict_record(_record({"hf_overrides": {"num_key_value_heads": 4}}))
    assert p.kv_bytes_per_token * base.model.num_kv_heads == base.kv_bytes_per_token * 4
    as_text, _ = predict_record(_record({"hf_overrides": json.dumps({"num_key_value_heads": 4})}))
    assert as_text.kv_bytes_per_token == p.kv_bytes_per_token
    with pytest.raises(InputError) as e:
        predict_record(_record({"hf_overrides": "[4]"}))
    assert e.value.field == "args.hf_overrides"
