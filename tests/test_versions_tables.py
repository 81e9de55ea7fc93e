"""One fact, one place: the per-release tables, quantization names, the architecture registry and the GPU count."""

import pytest

from kvplan import api


def test_a_quantization_name_gates_alike_however_it_is_spelled():
    # kvplan accepts 'awq-marlin' for vLLM's awq_marlin (the name check reads '-' as '_'), so the capability gate must
    # read it so too: awq_marlin needs cc 8.0 in 0.11 (versions.QUANT_MIN_CAPABILITY) and a T4 is 7.5
    refusals = set()
    for spelled in ("awq_marlin", "awq-marlin", "AWQ-Marlin"):
        p = api.fit("Qwen/Qwen2.5-72B-Instruct-AWQ", "T4", quantization=spelled, vllm_version="0.11.0",
                    max_model_len=4096, fixes=False)
        refusals.add((p.failure, p.error))
    assert len(refusals) == 1 and next(iter(refusals))[0] == "platform"


def test_canonical_quant_keeps_vllms_own_spelling():
    from kvplan.versions import QUANT_METHODS_READ, QUANT_MIN_CAPABILITY, canonical_quant, quant_min_capability

    assert canonical_quant("Compressed_Tensors") == "compressed-tensors"
    assert canonical_quant("GPTQ-Marlin") == "gptq_marlin"
    assert canonical_quant("auto_round") == "auto-round"
    assert canonical_quant("not-a-method") == "not-a-method"
    # no two of vLLM's names differ only in '-' and '_', or the reading would be ambiguous
    names = {n for names in QUANT_METHODS_READ.values() for n in names} | set(QUANT_MIN_CAPABILITY)
    assert len({n.replace("-", "_") for n in names}) == len(names)
    assert quant_min_capability("compressed_tensors", "0.11.0") == quant_min_capability("compressed-tensors", "0.11.0") == (7, 0)


def test_a_release_newer_than_every_one_read_is_said_once():
    from kvplan.versions import NEWEST_READ

    major, minor, _ = (int(x) for x in NEWEST_READ.split("."))
    newer = f"{major}.{minor + 7}.0"
    p = api.fit("Qwen/Qwen3-8B", "H100", max_model_len=8192, vllm_version=newer, fixes=False)
    said = [t for t in p.warnings + p.assumptions if f"vLLM {newer} is newer" in t]
    assert len(said) == 1 and said[0] in p.warnings
    # the seed's arithmetic has no warnings: it is among the assumptions there
    simple = api.fit("Qwen/Qwen3-8B", "H100", max_model_len=8192, vllm_version=newer, overhead_gb=2, fixes=False)
    assert sum(f"vLLM {newer} is newer" in t for t in simple.assumptions) == 1


def test_every_engine_arg_is_checked_by_the_type_the_dataclass_declares():
    # api's type checks come from EngineArgs' annotations: a field added there is checked without a second list
    import pytest
    from dataclasses import fields

    from kvplan.errors import InputError
    from kvplan.plan import EngineArgs

    wrong = {"bool": "yes", "bool | None": "yes", "int | None": "many", "float | None": "lots", "str | None": 5}
    checked = [f for f in fields(EngineArgs) if f.type in wrong]
    assert len(checked) >= 25
    for f in checked:
        with pytest.raises(InputError) as exc:
            api.engine_args(**{f.name: wrong[f.type]})
        assert exc.value.field in (f.name, "--" + f.name.replace("_", "-"))


def test_the_gpu_count_warning_counts_every_rank_and_its_advice_plans_them_all():
    # '8x H100' with PP 2 (or DP 2): vLLM occupies TP x PP x DP GPUs (Plan.gpus_used), so the TP that uses all 8 is 4;
    # the advice must lead to a plan of 8 GPUs, not to one the --num-gpus check refuses
    import re

    for extra in ({"pipeline_parallel_size": 2}, {"data_parallel_size": 2}, {"tensor_parallel_size": 2, "data_parallel_size": 2}):
        p = api.fit("Qwen/Qwen3-8B", "8x H100", max_model_len=4096, fixes=False, **extra)
        warning = next(w for w in p.warnings if "names 8 GPUs" in w)
        assert f"vLLM uses {p.gpus_used} " in warning
        tp = int(re.search(r"--tensor-parallel-size (\d+)", warning).group(1))
        q = api.fit("Qwen/Qwen3-8B", "8x H100", max_model_len=4096, fixes=False, **dict(extra, tensor_parallel_size=tp))
        assert q.gpus_used == 8 and not any("names 8 GPUs" in w for w in q.warnings)
    # and the note on the count names every factor of the ranks
    assert any("--data-parallel-size" in a for a in p.assumptions if "8 x NVIDIA H100" in a)


def test_a_count_in_the_gpu_name_is_said_with_a_custom_size_too():
    # '2x L40S' with --gpu-gib: the count still sets --num-gpus 2 (api.fit), so the note that says so stays
    p = api.fit("Qwen/Qwen3-8B", "2x L40S", gpu_gib=40, max_model_len=4096, fixes=False)
    assert p.args.num_gpus == 2 and any("--num-gpus 2" in a for a in p.assumptions)
    a100 = api.fit("Qwen/Qwen3-8B", "A100", gpu_gib=40, max_model_len=4096, fixes=False)
    assert not any("variant clouds rent most" in t for t in a100.assumptions + a100.warnings)  # the size is given


@pytest.mark.parametrize("kwargs, field", [
    ({"kv_cache_dtype": "bfloat16", "vllm_version": "0.10.0"}, "--kv-cache-dtype"),  # first in 0.11.0
    ({"block_size": 64, "vllm_version": "0.6.3"}, "--block-size"),                    # 8, 16, 32 there
    ({"env": ("VLLM_USE_V1=0",), "vllm_version": "0.11.0"}, "--env"),                  # its server asserts V1
    ({"enable_lora": True, "max_lora_rank": 512, "vllm_version": "0.7.3"}, "--max-lora-rank"),  # from 0.8.0
    # flags the release lacks altogether: --kv-cache-memory-bytes from 0.10.2 (PR #21489), --mamba-ssm-cache-dtype
    # from 0.10.1 (PR #22928)
    ({"kv_cache_memory_bytes": 20 * 2**30, "vllm_version": "0.10.1"}, "--kv-cache-memory-bytes"),
    ({"mamba_ssm_cache_dtype": "float32", "vllm_version": "0.10.0"}, "--mamba-ssm-cache-dtype"),
])
def test_fit_refuses_a_value_the_release_refuses_as_scaffold_does(kwargs, field, tmp_path):
    """A value `vllm serve` of the chosen release refuses is refused by the plan too (it had said 'starts' while
    scaffold refused to write the launch command), with the same field; a release that takes it plans it."""
    import kvplan
    from kvplan.deploy import render_files, spec_from_plan
    from kvplan.errors import InputError

    with pytest.raises(InputError) as planned:
        kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192, **kwargs)
    assert planned.value.field == field
    later = {**kwargs, "vllm_version": "0.11.1"}
    if field == "--block-size":
        later["vllm_version"] = "0.6.4"
    p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192, **later)
    assert p.fits
    render_files(spec_from_plan(p))  # and the launch files of that plan are written


@pytest.mark.parametrize("version, util, before", [
    ("0.20.0.dev123+gabc1234", 0.90, "0.20.0"),        # main after 0.19.x: the 0.92 default is 0.20.0's
    ("0.20.0rc1", 0.92, None),                         # a release candidate is cut from 0.20.0's branch
    ("vllm/vllm-openai:v0.20.0rc1", 0.92, None),
    ("0.20.0", 0.92, None),
    ("0.20.0.post1", 0.92, None),                      # .post and +local builds come after their release
    ("0.20.0+cu130", 0.92, None),
    ("0.20.1.dev4", 0.92, "0.20.1"),                   # a development build of 0.20.1 has 0.20.0's rules
])
def test_a_development_build_takes_the_rules_of_the_release_before_it(version, util, before):
    from packaging.version import Version

    from kvplan.versions import parse_version, rules_for

    p = api.fit("Qwen/Qwen2.5-0.5B-Instruct", "H100", max_model_len=4096, vllm_version=version, fixes=False)
    assert p.args.gpu_memory_utilization == util
    said = [t for t in p.assumptions if "PEP 440" in t]
    assert len(said) == (1 if before else 0) and (not before or f"build of {before}" in said[0])
    # a development build orders as PEP 440 does against the releases around it; a candidate reads as its release
    token = version.rsplit(":v", 1)[-1]
    for other in ("0.19.1", "0.20.0", "0.20.1"):
        if before:
            assert (parse_version(token) < parse_version(other)) == (Version(token) < Version(other))
        else:
            assert (parse_version(token) < parse_version(other)) == (Version(token).release < Version(other).release)
    assert rules_for(version).era == rules_for("0.19.1" if before == "0.20.0" else "0.20.0").era


@pytest.mark.parametrize("nightly, reads_as", [
    ("0.16.0rc2.dev305+g23210a911", "0.17.0"),            # runs 0.17's all-reduce fusion (blind round 39)
    ("0.26.1rc1.dev156+g0eec856cc.d20260731", "0.27.0"),  # prints 0.27's 'consumed memory' summary (0.26.1: never published)
    ("0.19.1rc1.dev71+gdd9342e6b", "0.20.0"),
    ("vllm/vllm-openai:v0.20.0rc1.dev9", "0.20.1"),
])
def test_a_nightly_named_after_a_candidate_tag_reads_as_the_next_published_release(nightly, reads_as):
    from kvplan.versions import nightly_after_candidate, parse_version, rules_for

    assert parse_version(nightly) == parse_version(reads_as)
    assert nightly_after_candidate(nightly)[1] == reads_as
    rules = rules_for(nightly)
    assert rules.era == rules_for(reads_as).era
    assert any(f"bound for the next release, {reads_as}" in n for n in rules.notes)
    # a candidate itself, a plain development build and a release are not such nightlies
    for other in ("0.20.0rc1", "0.20.1.dev4", "0.20.0", "0.20.0.post1"):
        assert nightly_after_candidate(other) is None


def test_a_nightly_after_the_newest_published_release_keeps_its_number():
    from kvplan.versions import PUBLISHED_RELEASES, nightly_after_candidate, parse_version, rules_for

    published = max(PUBLISHED_RELEASES, key=parse_version)
    newest = parse_version(published)
    text = f"{newest[0]}.{newest[1]}.{newest[2] + 1}rc1.dev5"
    assert nightly_after_candidate(text) is None
    assert parse_version(text) == (newest[0], newest[1], newest[2] + 1)
    assert rules_for(text).era == rules_for(published).era


def test_a_nightly_after_0_33_0_holds_0_34_0():
    # main's nightlies after the 0.33.0 cut (0.33.1rc1.devN) are bound for 0.34.0, published on PyPI 2026-11-16: read
    # as 0.33.1 (0.33.0's rules) until 0.34.0 was a published release kvplan knows
    from kvplan.versions import nightly_after_candidate, parse_version

    assert nightly_after_candidate("0.33.1rc1.dev12+gabc") == ("0.33.1", "0.34.0")
    assert parse_version("0.33.1rc1.dev12+gabc") == (0, 34, 0)


def test_a_nightly_before_the_oldest_release_read_keeps_its_number():
    # PUBLISHED_RELEASES starts at OLDEST_READ: '0.5.0rc1.dev3' read as the next release after 0.5.0 took 0.6.3 (vLLM
    # published 0.5.1-0.6.2 between them) and lost the warning that kvplan's rules start at 0.6.3
    from kvplan.versions import OLDEST_READ, newer_than_read, nightly_after_candidate, outside_read, parse_version, rules_for

    for text in ("0.5.0rc1.dev3", "0.6.2rc1.dev10+gabc"):
        assert nightly_after_candidate(text) is None
        assert outside_read(parse_version(text)) == "older"
        assert OLDEST_READ in (newer_than_read(rules_for(text)) or "")
    assert nightly_after_candidate("0.6.3rc1.dev1") == ("0.6.3", "0.6.4")  # from the oldest read on: the next release


def test_the_0_26_1_nightly_is_planned_with_the_consumed_memory_measure_of_0_27():
    from kvplan.versions import rules_for

    assert rules_for("0.26.1rc1.dev156").era == rules_for("0.27.0").era != rules_for("0.26.0").era


@pytest.mark.parametrize("given", [" 0.11.0 ", "v0.11.0", "V0.11.0\n"])
def test_a_version_with_spaces_or_a_tag_v_is_named_as_its_release(given):
    from kvplan.versions import rules_for

    r = rules_for(given)
    assert r.version == "0.11.0" and r.release == (0, 11, 0)


@pytest.mark.parametrize("given", ["0.1.dev1+gd56e95223 (custom build from main)", "vllm/vllm-openai:v0.1.dev5",
                                   "vllm 0.1.dev1+gd56e95223"])
def test_an_untagged_source_build_with_a_prefix_or_a_remark_names_no_release(given):
    """setuptools-scm's 0.1.dev<commits> is read where _version_match reads a release: after an image reference or a
    'vllm' prefix, and before a remark. It had parsed as (0, 1, -1)."""
    from kvplan.errors import InputError
    from kvplan.versions import parse_version, untagged_source_build

    assert untagged_source_build(given)
    with pytest.raises(InputError, match="names no release"):
        parse_version(given)
    assert not untagged_source_build("0.1.7") and not untagged_source_build("0.1.dev1x")


def test_the_published_releases_agree_with_the_releases_kvplan_reads_and_dates():
    """versions.PUBLISHED_RELEASES decides which --vllm-version numbers are refused as never published: raising
    DEFAULT_RELEASE (or reading a release) without adding it there would refuse the newest release itself. The package
    cannot read tools/data/vllm_release_dates.json (PyPI upload dates, not installed), so the two lists are held
    alike here, over OLDEST_READ..the newest release read (DEFAULT_RELEASE, the default, may trail it)."""
    import json
    from pathlib import Path

    from kvplan.versions import (DEFAULT_RELEASE, OLDEST_READ, PUBLISHED_RELEASES, RELEASES_READ, parse_version,
                                 unpublished_release)

    newest_read = max(RELEASES_READ, key=parse_version)
    assert DEFAULT_RELEASE in PUBLISHED_RELEASES and OLDEST_READ in PUBLISHED_RELEASES
    assert parse_version(DEFAULT_RELEASE) <= parse_version(newest_read) == parse_version(max(PUBLISHED_RELEASES, key=parse_version))
    assert not [r for r in RELEASES_READ if r not in PUBLISHED_RELEASES]
    assert not [r for r in PUBLISHED_RELEASES if unpublished_release(r)]
    dates = json.loads((Path(__file__).parents[1] / "tools" / "data" / "vllm_release_dates.json").read_text())
    lo, hi = parse_version(OLDEST_READ), parse_version(newest_read)
    dated = [r["version"] for r in dates["releases"] if lo <= parse_version(r["version"]) <= hi]
    assert set(dated) == set(PUBLISHED_RELEASES) and len(dated) == len(PUBLISHED_RELEASES)


@pytest.mark.parametrize("given", ["nightly", "latest"])
def test_an_image_tag_that_names_no_release_says_how_to_read_the_builds_number(given):
    # 'nightly' was answered 'give a release such as 0.33.0' only: a nightly user has no release to give
    from kvplan.errors import InputError
    from kvplan.versions import parse_version

    with pytest.raises(InputError) as e:
        parse_version(given)
    assert "vllm.__version__" in e.value.fix and "rc1.dev" in e.value.fix


def test_version_rules_hold_every_row_of_the_table_and_no_other():
    """VersionRules writes its own __init__ (the generated one, a parameter per row, was slow to compile): it must
    still take each of versions._RULES's rows by name, refuse a row left out or one it has no field for, and keep the
    frozen dataclass's replace, equality and hash."""
    import dataclasses

    from kvplan.versions import _RULES, VersionRules, rule_at, rules_for

    rules = rules_for("0.20.0")
    assert {f.name for f in dataclasses.fields(VersionRules)} == set(_RULES) | {"version", "release", "notes"}
    assert all(getattr(rules, row) == rule_at(row, (0, 20, 0)) for row in _RULES)
    values = {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)}
    assert VersionRules(**values) == rules and hash(VersionRules(**values)) == hash(rules)
    v0 = dataclasses.replace(rules, engine="v0")
    assert v0.engine == "v0" and v0.era == rules.era and v0 != rules
    with pytest.raises(TypeError, match="missing \\['era'\\]"):
        VersionRules(**{k: v for k, v in values.items() if k != "era"})
    with pytest.raises(TypeError, match="unknown \\['not_a_row'\\]"):
        VersionRules(**values, not_a_row=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.era = "V1-a"
