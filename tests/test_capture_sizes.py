"""--cudagraph-capture-sizes / --max-cudagraph-capture-size (CompilationConfig.cudagraph_capture_sizes and
max_cudagraph_capture_size, flags of `vllm serve` from 0.11.1): plan.given_capture_sizes, cudagraph_plan, the version
gate (versions.SERVE_FLAG_SINCE / SERVE_FLAG_BEFORE), the launch files and `kvplan validate`'s record args.

vLLM's use of them, read in config/vllm.py VllmConfig._set_cudagraph_sizes (0.11.1, 0.13.0, 0.21.0, 0.29.0, 0.33.0
wheels): a given list is deduplicated, sorted and cut at max_num_batched_tokens, nothing else; a given largest size
alone builds the default grid up to min(it, max_num_batched_tokens); both given must agree on the largest size."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

import kvplan
from kvplan.calibration import coefficients_for
from kvplan.errors import InputError, RefusedByVLLMError
from kvplan.validate import ARGS_NOT_MODELLED, predict_record, validate_records
from kvplan.versions import rules_for

from cli_runner import refused, run_cli

QWEN = "Qwen/Qwen2.5-0.5B-Instruct"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
GRID_64 = [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64]


def _fit(version="0.20.0", **kw):
    kw.setdefault("max_model_len", 4096)
    return kvplan.fit(QWEN, "T4", vllm_version=version, fixes=False, site_calibration=False, **kw)


def test_given_sizes_change_the_graph_term_by_their_count():
    """0.20.0 (V1 runner, its graph estimate subtracted from the budget): the term is g_const + g_per x layers x sizes,
    so 4 given sizes instead of the default 51 take 47 x layers x g_per off it, and the pool grows by as much."""
    base, given = _fit(), _fit(cudagraph_capture_sizes="1,2,4,8")
    assert base.cudagraphs["num_capture_sizes"] == 51 and base.cudagraphs["capture_sizes_source"] == "default"
    assert given.cudagraphs["capture_sizes"] == [1, 2, 4, 8]
    assert given.cudagraphs["capture_sizes_source"] == "--cudagraph-capture-sizes"
    g_per = coefficients_for(rules_for("0.20.0").era).g_per_layer_size
    layers = base.model.num_layers
    expected = g_per * layers * (51 - 4)
    assert abs((base.cudagraph_bytes - given.cudagraph_bytes) - expected) <= 2
    assert given.kv_cache_bytes > base.kv_cache_bytes
    assert any("4 capture size(s) (1, 2, 4, 8) from --cudagraph-capture-sizes" in n for n in given.assumptions)
    # a list, a tuple and vllm serve's spaces read alike
    assert _fit(cudagraph_capture_sizes=[8, 4, 2, 1, 4]).cudagraph_bytes == given.cudagraph_bytes
    assert _fit(cudagraph_capture_sizes="1 2 4 8").cudagraph_bytes == given.cudagraph_bytes


def test_a_largest_size_alone_builds_the_grid_up_to_it():
    p = _fit(max_cudagraph_capture_size=64)
    assert p.cudagraphs["capture_sizes"] == GRID_64
    assert p.cudagraphs["capture_sizes_source"].startswith("--max-cudagraph-capture-size 64")
    # not scaled by max_num_seqs: above the default's 2 x 16 = 32
    assert _fit(max_num_seqs=16, max_cudagraph_capture_size=64).cudagraphs["largest"] == 64
    assert _fit(max_num_seqs=16).cudagraphs["largest"] == 32


def test_a_given_size_above_max_num_batched_tokens_is_dropped_as_vllm_does():
    """The given list is cut at max_num_batched_tokens (vLLM warns that the config overrides it); a largest size above
    the budget is truncated to it, and from 0.21.0 the budget itself is captured (max_num_batched_tokens appended)."""
    p = _fit(max_num_batched_tokens=4096, cudagraph_capture_sizes="1,2,8,8192")
    assert p.cudagraphs["capture_sizes"] == [1, 2, 8]
    assert "8192 dropped, above max_num_batched_tokens 4,096" in p.cudagraphs["capture_sizes_source"]
    # nothing caps a given list but the budget: not 2 x max_num_seqs, not the 512 ceiling
    big = _fit(max_num_seqs=16, max_num_batched_tokens=4096, cudagraph_capture_sizes="1,1024,4096")
    assert big.cudagraphs["capture_sizes"] == [1, 1024, 4096]
    # --max-cudagraph-capture-size above the budget: the grid up to the budget, plus the budget from 0.21.0
    old = _fit("0.20.0", max_model_len=300, max_num_batched_tokens=300, max_cudagraph_capture_size=1000)
    new = _fit("0.21.0", max_model_len=300, max_num_batched_tokens=300, max_cudagraph_capture_size=1000)
    assert old.cudagraphs["largest"] == 288 and new.cudagraphs["largest"] == 300
    assert "truncated to 300" in new.cudagraphs["capture_sizes_source"]
    # both given: the largest kept size must be the given largest, else vLLM's ValueError
    with pytest.raises(RefusedByVLLMError, match=r"max_cudagraph_capture_size\(=8192\) should be consistent with the "
                                                 r"max value of cudagraph_capture_sizes\(=8\)"):
        _fit(max_num_batched_tokens=4096, cudagraph_capture_sizes="1,2,8,8192", max_cudagraph_capture_size=8192)
    assert _fit(cudagraph_capture_sizes="1,2,8", max_cudagraph_capture_size=8).cudagraphs["capture_sizes"] == [1, 2, 8]


def test_the_full_decode_split_follows_the_given_largest_size():
    """Model runner v2 (0.29+) estimates its graphs as the profile's capture (0.25 MiB per layer x capture size,
    calibration.py MRV2_G_PER) plus 1 MiB per FULL decode graph past the two sampled, the capture sizes up to
    max_num_seqs: fewer given sizes, fewer PIECEWISE captures and FULL graphs."""
    base = _fit("0.33.0")
    given = _fit("0.33.0", cudagraph_capture_sizes="1,2,4,8")
    assert given.cudagraphs["model_runner"] == "v2"
    full_base = len([s for s in base.cudagraphs["capture_sizes"] if s <= base.args.max_num_seqs])
    from kvplan.calibration import MRV2_G_PER
    n_base = base.cudagraphs["num_capture_sizes"]
    assert given.cudagraphs["num_capture_sizes"] == 4
    # (n_base - 4) x layers fewer PIECEWISE captures at 0.25 MiB, and (full_base - 2) - (4 - 2) fewer FULL graphs at 1 MiB
    assert base.cudagraph_bytes - given.cudagraph_bytes == pytest.approx(
        MRV2_G_PER * base.model.num_layers * (n_base - 4) + (full_base - 4) * 1024 ** 2, abs=2)


def test_speculative_rounding_applies_to_given_sizes():
    """adjust_cudagraph_sizes_for_spec_decode rounds the final list, given or not (config/compilation.py 0.11.1+)."""
    p = kvplan.fit(LLAMA, "H100", max_model_len=8192, vllm_version="0.20.0", fixes=False, site_calibration=False,
                   speculative_config='{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}',
                   cudagraph_capture_sizes="1,2,3,5,8")
    assert p.cudagraphs["capture_sizes"] == [4, 8] and p.cudagraphs["rounded_to_multiple_of"] == 4


@pytest.mark.parametrize("version, had", [("0.11.0", "--cuda-graph-sizes"), ("0.10.2", "--cuda-graph-sizes"),
                                          ("0.9.0", "--cuda-graph-sizes"), ("0.8.5", "--max-seq-len-to-capture")])
@pytest.mark.parametrize("flag, value", [("cudagraph_capture_sizes", "1,2,4"), ("max_cudagraph_capture_size", 64)])
def test_a_release_before_0_11_1_refuses_the_flags_naming_what_it_had(version, had, flag, value):
    with pytest.raises(InputError) as e:
        _fit(version, **{flag: value})
    name = "--" + flag.replace("_", "-")
    assert e.value.field == name
    assert f"vLLM {version} has no {name} flag (first in vLLM 0.11.1)" in e.value.message and had in e.value.message
    assert _fit("0.11.1", **{flag: value}).cudagraphs["capture_sizes_source"] != "default"


@pytest.mark.parametrize("value", ["1,x", "0,2", "", "[]"])
def test_malformed_sizes_are_refused(value):
    with pytest.raises(InputError) as e:
        _fit(cudagraph_capture_sizes=value)
    # an empty value is refused as the command line refuses it, by its keyword (it was read as not given)
    assert e.value.field == ("cudagraph_capture_sizes" if value == "" else "--cudagraph-capture-sizes")


def test_the_command_line_json_and_launch_files(monkeypatch, capsys):
    code, out, _ = run_cli(monkeypatch, capsys, "fit", QWEN, "--gpu", "T4", "--max-model-len", "4096",
                           "--cudagraph-capture-sizes", "1,2,4,8", "--json")
    assert code == 0
    graphs = json.loads(out)["cudagraphs"] if "cudagraphs" in json.loads(out) else json.loads(out)["plan"]["cudagraphs"]
    assert graphs["capture_sizes"] == [1, 2, 4, 8] and graphs["capture_sizes_source"] == "--cudagraph-capture-sizes"
    text = refused(monkeypatch, capsys, "--max-cudagraph-capture-size", "fit", QWEN, "--gpu", "T4",
                   "--vllm-version", "0.10.2", "--max-cudagraph-capture-size", "64")
    assert "--cuda-graph-sizes" in text
    from kvplan.deploy import render_files, spec_from_plan

    spec = spec_from_plan(_fit("0.20.0", cudagraph_capture_sizes="8,1,2,4", max_cudagraph_capture_size=8))
    argv = spec.serve_argv()
    i = argv.index("--cudagraph-capture-sizes")
    assert argv[i + 1:i + 5] == ["8", "1", "2", "4"]  # as given, one argument per size (vLLM's nargs="+")
    assert argv[argv.index("--max-cudagraph-capture-size") + 1] == "8"
    serve = render_files(spec)["serve.sh"]
    line = next(ln for ln in serve.splitlines() if "--cudagraph-capture-sizes" in ln)
    assert shlex.split(line)[1:] == ["8", "1", "2", "4"]


def test_the_table_names_the_capture_flags_given(monkeypatch, capsys):
    """The flags row listed every engine flag but the capture sizes a user gave."""
    _, out, _ = run_cli(monkeypatch, capsys, "fit", QWEN, "--gpu", "T4", "--max-model-len", "4096",
                        "--cudagraph-capture-sizes", "1,2,4,8", "--max-cudagraph-capture-size", "8")
    flat = " ".join(line.strip("│ ") for line in out.splitlines())
    assert "cudagraph_capture_sizes 1,2,4,8" in flat and "max_cudagraph_capture_size 8" in flat, out
    _, out, _ = run_cli(monkeypatch, capsys, "fit", QWEN, "--gpu", "T4", "--max-model-len", "4096")
    assert "capture_size" not in out


def _blind_record(rid="qwen2.5-7b-instruct-a10g-u092-tp1-l2k-seqs128-mbt2k"):
    path = Path(__file__).parent / "data" / "blind_records.jsonl"
    return next(json.loads(line) for line in path.read_text().splitlines()
                if line.strip() and json.loads(line)["id"] == rid)


def test_validate_scores_a_record_that_sets_them():
    """A copy of a blind record (0.22.0, A10G) with the field added, in this test only: scored, not skipped, and
    planned with the sizes given."""
    assert "cudagraph_capture_sizes" not in ARGS_NOT_MODELLED and "max_cudagraph_capture_size" not in ARGS_NOT_MODELLED
    base = _blind_record()
    rec = json.loads(json.dumps(base))
    rec["args"]["cudagraph_capture_sizes"] = [1, 2, 4, 8]
    p, _ = predict_record(rec)
    p0, _ = predict_record(base)
    assert p.cudagraphs["capture_sizes"] == [1, 2, 4, 8] and p0.cudagraphs["num_capture_sizes"] > 4
    assert p.kv_cache_bytes > p0.kv_cache_bytes
    top = json.loads(json.dumps(base))
    top["args"]["max_cudagraph_capture_size"] = "64"
    assert predict_record(top)[0].cudagraphs["capture_sizes"] == GRID_64
    scored, scored_top = validate_records([rec, top])
    assert scored.skipped is None and scored.error_pct and scored_top.skipped is None
    # 0.9-0.12's --cuda-graph-sizes on this 0.22.0 record: the release has no such flag, so it is skipped naming it
    old = json.loads(json.dumps(base))
    old["args"]["cuda_graph_sizes"] = [1, 2, 4]
    (skipped,) = validate_records([old])
    assert skipped.skipped and skipped.skipped.startswith("--cuda-graph-sizes: vLLM 0.22.0 has no --cuda-graph-sizes")
    bad = json.loads(json.dumps(base))
    bad["args"]["cudagraph_capture_sizes"] = ["a"]
    with pytest.raises(InputError) as e:
        predict_record(bad)
    assert e.value.field == "args.cudagraph_capture_sizes" and "spells it --cudagraph-capture-sizes 1 2 4 8" in str(e.value)


def test_compilation_config_sets_them_too_and_not_beside_the_flags():
    """The flags only fill CompilationConfig's fields (vllm/engine/arg_utils.py create_engine_config, 0.11.1-0.33.0):
    the same fields in --compilation-config are taken alike, and both at once are vLLM's 'mutually exclusive'."""
    p = _fit(compilation_config='{"cudagraph_capture_sizes": [1, 2, 4, 8]}')
    assert p.cudagraphs["capture_sizes"] == [1, 2, 4, 8]
    assert p.cudagraphs["capture_sizes_source"] == "--compilation-config cudagraph_capture_sizes"
    assert p.cudagraph_bytes == _fit(cudagraph_capture_sizes="1,2,4,8").cudagraph_bytes
    assert _fit(compilation_config={"max_cudagraph_capture_size": 64}).cudagraphs["capture_sizes"] == GRID_64
    with pytest.raises(RefusedByVLLMError, match="cudagraph_capture_sizes and compilation_config.cudagraph_capture_sizes "
                                                 "are mutually exclusive"):
        _fit(cudagraph_capture_sizes="1,2", compilation_config='{"cudagraph_capture_sizes": [1, 2]}')
    with pytest.raises(InputError, match="--compilation-config"):
        _fit(compilation_config='{"max_cudagraph_capture_size": "big"}')


@pytest.mark.parametrize("version", ["0.11.1", "0.20.0", "0.33.0", "0.34.0"])
def test_a_largest_size_below_one_is_vllms_assertion(version):
    # config/vllm.py VllmConfig._set_cudagraph_sizes asserts min(max_num_batched_tokens, max_cudagraph_capture_size)
    # >= 1 where graphs are captured (0.11.1, 0.14.0, 0.18.1, 0.30.0, 0.33.0, 0.34.0 wheels), before the list check
    assert rules_for(version).cudagraph_max_size_below_one == "assert"
    for kw in ({"max_cudagraph_capture_size": 0}, {"compilation_config": '{"max_cudagraph_capture_size": 0}'},
               {"max_cudagraph_capture_size": 0, "cudagraph_capture_sizes": "1,2"}):
        with pytest.raises(RefusedByVLLMError) as e:
            _fit(version, **kw)
        assert e.value.message == ("AssertionError: Maximum cudagraph size should be greater than or equal to 1 when "
                                   "using cuda graph.")
        assert e.value.rule == "max_cudagraph_capture_size below 1"
    # no graphs, no check: vLLM sets the size to 0 itself
    assert _fit(version, max_cudagraph_capture_size=0, enforce_eager=True).fits
    assert rules_for("0.11.0").cudagraph_max_size_below_one == "unread"
    # before 0.11.1 the JSON's list is kept whole (test_compilation_config_sizes_before_0_11_1_are_kept_whole)
    assert _fit("0.11.0", compilation_config={"cudagraph_capture_sizes": [1, 2]}).cudagraphs["capture_sizes"] == [1, 2]


# a real 0.23.0 start (RTX 4090, tests/data/compile_warm_rtx4090_v0230.log: StellaLee/vllm-experiment, as
# test_reconcile.py cites it), its 'non-default args' line given capture settings; its engine-config line prints the
# resolved grid (compilation_config 'cudagraph_capture_sizes': [1, ..., 64], 'max_cudagraph_capture_size': 64)
WARM_LOG = Path(__file__).parent / "data" / "compile_warm_rtx4090_v0230.log"
WARM_ARGS = "'max_num_seqs': 32}"


def _warm_log(tmp_path, extra: str) -> Path:
    text = WARM_LOG.read_text(encoding="utf-8")
    assert text.count(WARM_ARGS) == 1
    path = tmp_path / "capture.log"
    path.write_text(text.replace(WARM_ARGS, "'max_num_seqs': 32, " + extra + "}"), encoding="utf-8")
    return path


def _plan_of_log(path):
    from kvplan.cli import FitFlags
    from kvplan.logs import parse_log
    from kvplan.reconcile import plan_from_log

    plan, _notes = plan_from_log(parse_log(path), "Qwen/Qwen2.5-7B-Instruct", FitFlags(gpu="RTX 4090"),
                                 site_calibration=False)
    return plan


def test_reconcile_plans_the_capture_settings_the_log_was_given(tmp_path):
    """`kvplan reconcile` plans with the log's --cudagraph-capture-sizes / --max-cudagraph-capture-size (its
    non-default args), so its graph term is the 4 sizes' and not the default grid's 11 (max_num_seqs 32 -> 64)."""
    from kvplan.logs import parse_log

    base = _plan_of_log(WARM_LOG)
    # the engine-config line's resolved grid is vLLM's result, not a setting: the plan keeps its default
    assert base.cudagraphs["capture_sizes"] == GRID_64 and base.cudagraphs["capture_sizes_source"] == "default"
    assert not {"cudagraph_capture_sizes", "max_cudagraph_capture_size"} & set(parse_log(WARM_LOG).to_record()["args"])
    given = _plan_of_log(_warm_log(tmp_path, "'cudagraph_capture_sizes': [1, 2, 4, 8], 'max_cudagraph_capture_size': 8"))
    assert given.cudagraphs["capture_sizes"] == [1, 2, 4, 8]
    assert given.cudagraphs["capture_sizes_source"] == "--cudagraph-capture-sizes with --max-cudagraph-capture-size"
    assert given.cudagraph_bytes < base.cudagraph_bytes and given.kv_cache_bytes > base.kv_cache_bytes
    top = _plan_of_log(_warm_log(tmp_path, "'max_cudagraph_capture_size': 16"))
    assert top.cudagraphs["capture_sizes"] == [1, 2, 4, 8, 16]
    # given inside --compilation-config (-cc): read alike
    comp = _plan_of_log(_warm_log(tmp_path, "'compilation_config': {'cudagraph_capture_sizes': [1, 2, 4, 8]}"))
    assert comp.cudagraphs["capture_sizes"] == [1, 2, 4, 8]


def test_a_command_line_gives_the_sizes_as_vllm_serve_spells_them():
    from kvplan.logs import parse_command_args, parse_lines

    args = parse_command_args("vllm serve m --cudagraph-capture-sizes 1 2 4 8 --max-num-seqs 4")
    assert args["cudagraph_capture_sizes"] == "1 2 4 8" and args["max_num_seqs"] == 4
    assert parse_capture_sizes_of(args["cudagraph_capture_sizes"]) == (1, 2, 4, 8)
    log = parse_lines(['non-default args: {"model": "m", "compilation_config": '
                       '"{\\"max_cudagraph_capture_size\\": 32, \\"cudagraph_mode\\": null}"}'])
    assert log.to_record()["args"]["max_cudagraph_capture_size"] == 32


def parse_capture_sizes_of(value):
    from kvplan.plan import parse_capture_sizes

    return parse_capture_sizes(value)


def test_reconcile_record_carries_them_and_validate_scores_it(monkeypatch, capsys, tmp_path):
    log = _warm_log(tmp_path, "'cudagraph_capture_sizes': [1, 2, 4, 8]")
    out = tmp_path / "startup.jsonl"
    code, _stdout, stderr = run_cli(monkeypatch, capsys, "reconcile", str(log), "Qwen/Qwen2.5-7B-Instruct", "--force-model",
                                    "--gpu", "RTX 4090", "--record", str(out))
    assert code == 0, stderr
    (record,) = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    assert record["args"]["cudagraph_capture_sizes"] == [1, 2, 4, 8]
    (scored,) = validate_records([record])
    assert scored.skipped is None and scored.error_pct
    assert predict_record(record)[0].cudagraphs["capture_sizes"] == [1, 2, 4, 8]


def _fit_l4(version, **kw):
    kw.setdefault("max_model_len", 4096)
    return kvplan.fit(QWEN, "L4", vllm_version=version, fixes=False, site_calibration=False, **kw)


GRID8_64 = [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64]


@pytest.mark.parametrize("version", ["0.9.0", "0.10.0", "0.11.0"])
def test_cuda_graph_sizes_before_0_11_1_one_value_is_the_step_8_grid(version):
    """SchedulerConfig.cuda_graph_sizes read by VllmConfig._set_cudagraph_sizes (vllm/config.py 0.9.0.1, 0.10.0,
    vllm/config/__init__.py 0.11.0 wheels): one value N -> 1, 2, 4 and the multiples of 8 up to N; several -> the sizes
    sorted; then only the sizes within max_num_batched_tokens. The graphs are captured after the pool is sized in these
    releases, so the captured bytes move, not the pool."""
    base = _fit_l4(version)
    one = _fit_l4(version, cuda_graph_sizes="64")
    assert base.cudagraphs["num_capture_sizes"] == 67 and one.cudagraphs["capture_sizes"] == GRID8_64
    assert one.cudagraphs["capture_sizes_source"].startswith("--cuda-graph-sizes 64")
    several = _fit_l4(version, cuda_graph_sizes=[8, 4, 2, 1, 4])
    assert several.cudagraphs["capture_sizes"] == [1, 2, 4, 8]
    assert several.cudagraph_capture_bytes < one.cudagraph_capture_bytes < base.cudagraph_capture_bytes
    cut = _fit_l4(version, cuda_graph_sizes="1,2,8192", max_num_batched_tokens=4096)
    assert cut.cudagraphs["capture_sizes"] == [1, 2] and "above max_num_batched_tokens 4,096 dropped" in \
        cut.cudagraphs["capture_sizes_source"]
    # a value above 512 is not capped (no max_num_seqs, no 512 ceiling): within the token budget
    assert _fit_l4(version, cuda_graph_sizes="1024", max_num_batched_tokens=8192).cudagraphs["largest"] == 1024


@pytest.mark.parametrize("version", ["0.11.1", "0.12.0"])
def test_cuda_graph_sizes_from_0_11_1_is_the_capture_sizes_alias(version):
    """0.11.1-0.12.x copy --cuda-graph-sizes into CompilationConfig.cudagraph_capture_sizes (vllm/engine/arg_utils.py
    EngineArgs.create_engine_config, 0.11.1 and 0.12.0 wheels): one value is that size alone, and it excludes the
    other ways of giving the list."""
    assert _fit_l4(version, cuda_graph_sizes="64").cudagraphs["capture_sizes"] == [64]
    alias, new = _fit_l4(version, cuda_graph_sizes="1,2,4,8"), _fit_l4(version, cudagraph_capture_sizes="1,2,4,8")
    assert alias.cudagraphs["capture_sizes"] == [1, 2, 4, 8] and alias.cudagraph_bytes == new.cudagraph_bytes
    assert alias.cudagraphs["capture_sizes_source"] == "--cuda-graph-sizes"
    with pytest.raises(RefusedByVLLMError, match="cudagraph_capture_sizes and compilation_config.cudagraph_capture_sizes"):
        _fit_l4(version, cuda_graph_sizes="1,2", cudagraph_capture_sizes="1,2")
    with pytest.raises(RefusedByVLLMError, match="cuda_graph_sizes and compilation_config.cudagraph_capture_sizes"):
        _fit_l4(version, cuda_graph_sizes="1,2", compilation_config={"cudagraph_capture_sizes": [1, 2]})


def test_cuda_graph_sizes_is_refused_where_the_release_lacks_it(monkeypatch, capsys):
    for version, word in (("0.8.5", "first in vLLM 0.9.0"), ("0.13.0", "removed in vLLM 0.13.0"),
                          ("0.20.0", "removed in vLLM 0.13.0")):
        with pytest.raises(InputError, match=word) as e:
            _fit_l4(version, cuda_graph_sizes="64")
        assert e.value.field == "--cuda-graph-sizes"
    with pytest.raises(InputError, match="not a whole number") as e:
        _fit_l4("0.10.0", cuda_graph_sizes="a")
    assert e.value.field == "--cuda-graph-sizes"
    out = refused(monkeypatch, capsys, "--cuda-graph-sizes", "fit", QWEN, "--gpu", "L4", "--vllm-version", "0.13.0",
                  "--cuda-graph-sizes", "64")
    assert "removed in vLLM 0.13.0" in out
    code, stdout, _ = run_cli(monkeypatch, capsys, "fit", QWEN, "--gpu", "L4", "--vllm-version", "0.10.0",
                              "--max-model-len", "4096", "--cuda-graph-sizes", "64", "--json")
    assert code == 0 and json.loads(stdout)["cudagraphs"]["capture_sizes"] == GRID8_64
    _, out, _ = run_cli(monkeypatch, capsys, "fit", QWEN, "--gpu", "L4", "--vllm-version", "0.10.0", "--max-model-len",
                        "4096", "--cuda-graph-sizes", "1,2,4,8")
    assert "cuda_graph_sizes 1,2,4,8" in " ".join(line.strip("│ ") for line in out.splitlines()), out
    # the launch files write it as vllm serve reads it: one argument per size (nargs="+")
    from kvplan.deploy import render_files, spec_from_plan

    spec = spec_from_plan(_fit_l4("0.10.0", cuda_graph_sizes="1,2,4,8"))
    argv = spec.serve_argv()
    i = argv.index("--cuda-graph-sizes")
    assert argv[i + 1:i + 5] == ["1", "2", "4", "8"]
    line = next(ln for ln in render_files(spec)["serve.sh"].splitlines() if "--cuda-graph-sizes" in ln)
    assert shlex.split(line)[1:] == ["1", "2", "4", "8"]


def test_validate_scores_a_record_with_cuda_graph_sizes():
    assert "cuda_graph_sizes" not in ARGS_NOT_MODELLED
    rec = json.loads(json.dumps(_blind_record()))
    rec["vllm_version"] = "0.10.0"
    rec["args"]["cuda_graph_sizes"] = [64]
    p, _ = predict_record(rec)
    assert p.cudagraphs["capture_sizes"] == GRID8_64
    (scored,) = validate_records([rec])
    assert scored.skipped is None
    bad = json.loads(json.dumps(rec))
    bad["args"]["cuda_graph_sizes"] = ["x"]
    with pytest.raises(InputError) as e:  # explained with this flag's own spelling, not --cudagraph-capture-sizes'
        predict_record(bad)
    assert e.value.field == "args.cuda_graph_sizes" and "spells it --cuda-graph-sizes 1 2 4 8" in str(e.value)


def test_a_0_10_log_gives_its_cuda_graph_sizes_to_reconcile():
    from kvplan.logs import parse_command_args, parse_lines

    assert parse_command_args("vllm serve m --cuda-graph-sizes 1 2 4")["cuda_graph_sizes"] == "1 2 4"
    log = parse_lines(["INFO 08-01 10:00:00 [cli_args.py:261] non-default args: {'model': 'm', 'cuda_graph_sizes': [64]}"])
    assert log.to_record()["args"]["cuda_graph_sizes"] == [64]


def test_every_flag_serve_sh_writes_as_several_words_is_read_back_as_a_list():
    """One fact (versions.MULTI_VALUE_FLAGS, vLLM's nargs="+" flags) for both directions: the launch files write each
    of these flags as one argument per value, and a log's command line read by logs.parse_command_args gathers the
    words back into the one flag, not the first word alone."""
    from kvplan import deploy, logs, versions
    from kvplan.deploy import spec_from_plan
    from kvplan.logs import parse_command_args

    assert deploy.MULTI_VALUE_FLAGS is versions.MULTI_VALUE_FLAGS
    assert logs._LIST_FLAGS == {flag[2:].replace("-", "_") for flag in versions.MULTI_VALUE_FLAGS}
    for flag in versions.MULTI_VALUE_FLAGS:
        argv = deploy.Flag(flag, "8 1 2 4").argv()
        assert argv == [flag, "8", "1", "2", "4"]
        args = parse_command_args(shlex.join(["vllm", "serve", "m", *argv, "--max-num-seqs", "4"]))
        assert args[flag[2:].replace("-", "_")] == "8 1 2 4" and args["max_num_seqs"] == 4, (flag, args)
    # the launch files of a plan that sets each one (--cuda-graph-sizes is a 0.9.0-0.12.x flag)
    for version, field in (("0.20.0", "cudagraph_capture_sizes"), ("0.10.2", "cuda_graph_sizes")):
        spec = spec_from_plan(_fit(version, **{field: "8 1 2 4"}))
        args = parse_command_args(shlex.join(["vllm", "serve", *spec.serve_argv()]))
        assert args[field] == "8 1 2 4" and args["max_num_batched_tokens"] == 2048, (version, args)


@pytest.mark.parametrize("version", ["0.6.6", "0.7.3", "0.8.5", "0.9.0", "0.10.0", "0.11.0"])
def test_compilation_config_sizes_before_0_11_1_are_kept_whole(version):
    """CompilationConfig.init_with_cudagraph_sizes (vllm/config.py 0.6.6.post1-0.10.0, config/compilation.py 0.11.0)
    keeps a given cudagraph_capture_sizes in place of the sizes the engine derived (V0's from max_num_seqs, V1's from
    --cuda-graph-sizes), each size once and not cut at max_num_batched_tokens; kvplan had planned the default sizes
    without a word."""
    base = _fit_l4(version)
    given = _fit_l4(version, compilation_config={"cudagraph_capture_sizes": [8, 4, 2, 1, 4, 8192]},
                    max_num_batched_tokens=4096)
    assert given.cudagraphs["capture_sizes"] == [1, 2, 4, 8, 8192]
    assert given.cudagraphs["capture_sizes_source"].startswith("--compilation-config cudagraph_capture_sizes (kept whole")
    assert base.cudagraphs["capture_sizes_source"] == "default" and base.cudagraphs["num_capture_sizes"] > 5
    assert given.cudagraph_capture_bytes != base.cudagraph_capture_bytes
    if version not in ("0.6.6", "0.7.3", "0.8.5"):  # V1 0.9+: it overrides --cuda-graph-sizes, as vLLM logs
        both = _fit_l4(version, cuda_graph_sizes="64", compilation_config={"cudagraph_capture_sizes": [1, 2]})
        assert both.cudagraphs["capture_sizes"] == [1, 2] and "overrides --cuda-graph-sizes" in \
            both.cudagraphs["capture_sizes_source"]
    with pytest.raises(InputError, match="--compilation-config"):
        _fit_l4(version, compilation_config={"cudagraph_capture_sizes": [0]})


def test_compilation_config_sizes_before_the_oldest_release_read_with_them_are_said_to_be_unread():
    p = _fit_l4("0.6.5", compilation_config={"cudagraph_capture_sizes": [1, 2]})
    assert p.cudagraphs["capture_sizes"] != [1, 2] and "not read for vLLM 0.6.5" in p.cudagraphs["capture_sizes_source"]
