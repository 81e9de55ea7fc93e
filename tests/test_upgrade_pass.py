"""An operator's pass over upgrading a running vLLM 0.8-0.11 deployment to a 0.30-0.33 release: the release
comparison, the flags the new release refuses, the version strings they type."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

import kvplan
from kvplan.api import release_changes
from kvplan.cli import app
from kvplan.errors import InputError

GIB = 2**30


def _cli(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "80"})


def _to_pool(change: str) -> float:
    m = re.search(r"\(([+-]\d+\.\d+) GiB to the pool", change)
    return float(m.group(1)) if m else 0.0


def test_sweep_varies_the_release_and_names_every_term_that_moved_the_pool():
    """`kvplan sweep --vary vllm_version=OLD,NEW` was refused ('cannot vary'): an upgrade had no comparison. Each later
    row now names what moved its pool from the first release, and the moves it names add up to the pool's change."""
    r = _cli("sweep", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4", "--max-model-len", "8192",
             "--vary", "vllm_version=0.9.2,0.33.0", "--json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)["rows"]
    assert [row["vllm_version"] for row in rows] == ["0.9.2", "0.33.0"]
    assert rows[0]["release_changes"] is None and rows[1]["compared_with"] == "0.9.2"
    changes = rows[1]["release_changes"]
    old = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=8192, vllm_version="0.9.2", fixes=False)
    new = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=8192, vllm_version="0.33.0", fixes=False)
    assert rows[0]["kv_cache_bytes"] == old.kv_cache_bytes and rows[1]["kv_cache_bytes"] == new.kv_cache_bytes
    # the default utilization moved (0.90 -> 0.92 from 0.20), and the CUDA-graph estimate entered the budget
    assert any("gpu_memory_utilization 0.9 -> 0.92" in c for c in changes)
    assert old.cudagraph_bytes == 0 < new.cudagraph_bytes
    assert any(c.startswith("CUDA graphs in the budget") for c in changes)
    assert any(c.startswith("model runner v1 -> v2") for c in changes)
    # each named term rounds to 0.01 GiB: their sum is the pool's change within that rounding
    named = [c for c in changes if "to the pool" in c]
    assert abs(sum(_to_pool(c) for c in named) - (new.kv_cache_bytes - old.kv_cache_bytes) / GIB) <= 0.005 * len(named)
    text = _cli("sweep", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4", "--max-model-len", "8192",
                "--vary", "vllm_version=0.9.2,0.33.0")
    assert "vllm_version=0.33.0 vs 0.9.2: requested" in " ".join(text.output.split())


def test_release_changes_name_nothing_between_plans_that_agree():
    p = kvplan.fit("Qwen/Qwen2.5-7B-Instruct", "A10G", max_model_len=4096, vllm_version="0.10.1.1", fixes=False)
    q = kvplan.fit("Qwen/Qwen2.5-7B-Instruct", "A10G", max_model_len=4096, vllm_version="0.10.1", fixes=False)
    assert release_changes(p, q) == []


def test_a_release_sweep_refuses_an_unpublished_number_as_the_vary_value():
    r = _cli("sweep", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4", "--max-model-len", "8192",
             "--vary", "vllm_version=0.10.3,0.33.0")
    # (the console script's main() turns an InputError into exit 2 and this line)
    assert isinstance(r.exception, InputError) and r.exception.field == "--vary"
    assert "vllm_version=0.10.3: vLLM 0.10.3 is no published release" in str(r.exception)


@pytest.mark.parametrize("flag", ["--rope-theta"])
def test_a_release_sweep_row_whose_release_refuses_a_flag_says_which(flag):
    value = {"--rope-theta": "500000", "--task": "generate"}[flag]
    r = _cli("sweep", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4", "--max-model-len", "8192", flag, value,
             "--vary", "vllm_version=0.9.2,0.33.0", "--json")
    rows = json.loads(r.output)["rows"] if r.exit_code == 0 else None
    assert rows and rows[0]["fits"] and f"vLLM 0.33.0 has no {flag} flag" in rows[1]["error_input"]


DP2_LOG = "tests/data/dp2_engine_core_n_v0101.log"  # a real vLLM 0.10.1.1 start (Qwen2.5-7B, DP 2)


def _old_log_with(tmp_path, extra: str):
    """The real 0.10.1.1 log, its 'non-default args' line given the flags an older serve.sh carried."""
    text = open(DP2_LOG).read().replace("'gpu_memory_utilization': 0.8}", "'gpu_memory_utilization': 0.8, " + extra + "}")
    assert extra in text
    path = tmp_path / "old.log"
    path.write_text(text)
    return str(path)


def test_reconciling_an_old_log_under_a_new_release_names_its_flags_the_new_server_refuses(tmp_path):
    """The log's --swap-space 16 and --task generate were planned under 0.33.0 without a word, though 0.33.0's
    `vllm serve` refuses both (--swap-space from 0.18.0, --task from 0.13.0): carried over, the launch command fails."""
    log = _old_log_with(tmp_path, "'swap_space': 16, 'task': 'generate', 'rope_theta': 500000.0")
    r = _cli("reconcile", log, "Qwen/Qwen2.5-7B-Instruct", "--gpu", "A100-80GB", "--vllm-version", "0.33.0", "--json")
    assert r.exit_code == 0, r.output
    notes = json.loads(r.output)["notes"]
    assert any(n.startswith("the log's server was given --swap-space 16: vLLM 0.33.0 has no --swap-space flag "
                            "(removed in vLLM 0.18.0)") for n in notes)
    assert any(n.startswith("the log's server was given --task generate: vLLM 0.33.0 has no --task flag "
                            "(removed in vLLM 0.13.0)") for n in notes)
    # the gaps mix the two releases' differences with the plan's error: the note points at the comparison naming them
    assert any(n.startswith("the log is vLLM 0.10.1.1; the plan used vLLM 0.33.0's rules") and
               "--vary vllm_version=0.10.1.1,0.33.0" in n for n in notes)
    # --rope-theta is a flag the plan reads: dropped with the plan's own note, not named a second time
    assert sum("rope-theta" in n or "rope_theta" in n for n in notes) == 1
    # under the log's own release (and 0.17.1, the last with --swap-space) nothing is refused
    same = json.loads(_cli("reconcile", log, "Qwen/Qwen2.5-7B-Instruct", "--gpu", "A100-80GB", "--json").output)
    assert not any("the log's server was given" in n for n in same["notes"])
    old = json.loads(_cli("reconcile", log, "Qwen/Qwen2.5-7B-Instruct", "--gpu", "A100-80GB", "--vllm-version",
                          "0.17.1", "--json").output)
    assert [n.split(":")[0] for n in old["notes"] if "the log's server was given" in n] == [
        "the log's server was given --task generate"]


def test_scaffold_and_fit_read_removed_flags_from_one_table():
    from kvplan.versions import removed_flag

    assert removed_flag("--swap-space", "0.17.1") is None
    assert removed_flag("--swap-space", "0.18.0")[2] == "0.18.0"
    with pytest.raises(InputError) as e:
        kvplan.fit("Qwen/Qwen2.5-7B-Instruct", "L4", max_model_len=4096, vllm_version="0.33.0", rope_theta=1e6)
    assert "removed in vLLM 0.11.1" in str(e.value)


@pytest.mark.parametrize("version", ["0.9.2", "0.33.0"])
def test_scaffold_readme_names_the_host_driver_the_pinned_release_needs(tmp_path, version):
    """An upgrade from 0.9.2 (CUDA 12.8 wheels) to 0.33.0 (CUDA 13.0 from 0.20.0) stops on a 570-branch host before any
    memory figure matters; the launch files named no driver."""
    from kvplan.versions import MIN_DRIVER_BY_CUDA, rules_for

    r = _cli("scaffold", str(tmp_path / "out"), "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4", "--max-model-len",
             "8192", "--vllm-version", version)
    assert r.exit_code == 0, r.output
    readme = (tmp_path / "out" / "README.md").read_text()
    cuda = rules_for(version).wheel_cuda
    assert f"built with CUDA {cuda}" in readme and f"NVIDIA driver {MIN_DRIVER_BY_CUDA[cuda]} or newer" in readme
    assert ("cu129" in readme) == (cuda == "13.0")


def test_a_release_comparison_names_the_driver_step():
    old = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=8192, vllm_version="0.11.0", fixes=False)
    new = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=8192, vllm_version="0.30.0", fixes=False)
    same = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=8192, vllm_version="0.31.0", fixes=False)
    assert "default wheel CUDA 12.8 -> 13.0: host driver >= 570.26 -> >= 580.65.06" in " ".join(release_changes(old, new))
    assert not any("driver" in c for c in release_changes(new, same))


def test_a_release_comparison_says_when_the_logged_tokens_are_counted_another_way():
    """gpt-oss-20b on an L4 at 16,384: 0.10.1 logs blocks // groups x block size, 0.33.0 max_concurrency x
    max_model_len, so the same kind of pool reads 91,488 -> 170,424 tokens (+86 %) where its concurrency gains 6 %; the
    comparison named neither."""
    old = kvplan.fit("openai/gpt-oss-20b", "L4", max_model_len=16384, vllm_version="0.10.1", fixes=False)
    new = kvplan.fit("openai/gpt-oss-20b", "L4", max_model_len=16384, vllm_version="0.33.0", fixes=False)
    tokens_ratio, concurrency_ratio = new.kv_cache_tokens / old.kv_cache_tokens, new.max_concurrency / old.max_concurrency
    assert tokens_ratio > 1.5 * concurrency_ratio
    said = [c for c in release_changes(old, new) if c.startswith("'GPU KV cache size' tokens counted another way")]
    assert len(said) == 1 and f"{old.kv_cache_tokens:,} -> {new.kv_cache_tokens:,} tokens" in said[0]
    # a dense model's two formulas give the same count: nothing to say
    dense = [kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=8192, vllm_version=v, fixes=False)
             for v in ("0.9.2", "0.33.0")]
    assert dense[0].rules.tokens_formula != dense[1].rules.tokens_formula
    assert not any("counted another way" in c for c in release_changes(*dense))


def test_diagnose_names_the_release_that_removed_each_flag_of_a_carried_over_command(tmp_path):
    """An upgrade's first failure is argparse's 'unrecognized arguments' on the old serve.sh; diagnose read the line
    as a low-confidence hint naming --task and --enable-reasoning whatever the flags were."""
    log = tmp_path / "new.log"
    log.write_text("INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.33.0\n"
                   "vllm: error: unrecognized arguments: --swap-space 16 --task generate\n")
    finding = json.loads(_cli("diagnose", str(log), "--json").output)["findings"][0]
    assert finding["symptom"] == "invalid_engine_flags"
    assert "--swap-space was removed in vLLM 0.18.0" in finding["cause"]
    assert "--task was removed in vLLM 0.13.0" in finding["cause"]
    assert finding["confidence"] >= 0.8
    # a flag kvplan's table does not hold keeps the line a hint, and is named as unread
    log.write_text("vllm: error: unrecognized arguments: --swap-space 16 --num-scheduler-steps 8\n")
    finding = json.loads(_cli("diagnose", str(log), "--json").output)["findings"][0]
    assert "--swap-space was removed" in finding["cause"] and "--num-scheduler-steps" in finding["cause"]
    assert finding["confidence"] < 0.8
    # a release the table says still has the flag: not blamed on its removal
    log.write_text("INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.17.1\n"
                   "vllm: error: unrecognized arguments: --swap-space 16\n")
    finding = json.loads(_cli("diagnose", str(log), "--json").output)["findings"][0]
    assert "was removed" not in finding["cause"]
    # an untagged source build prints a number that names no release (setuptools-scm's 0.1.devN): the flags are still
    # named, as a hint, where diagnose stopped on "Error: --vllm-version: ... is a source build"
    log.write_text("INFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.1.dev1+ga7ff443\n"
                   "vllm: error: unrecognized arguments: --swap-space 16 --task generate\n")
    r = _cli("diagnose", str(log), "--json")
    assert "is a source build" not in r.output
    finding = json.loads(r.output)["findings"][0]
    assert "--task was removed in vLLM 0.13.0" in finding["cause"] and finding["confidence"] < 0.8


def test_a_site_calibration_measured_under_the_old_release_is_not_carried_into_another_era(tmp_path, monkeypatch):
    """The operator calibrates from the running 0.11.0 server's log (Llama-3.1-8B on an L4, a public log), then plans
    0.33.0: the 0.11.0 CUDA-graph gap (logged 0.38 GiB against 0.64 planned), a term 0.11.0 does not subtract from
    the budget, was subtracted from 0.33.0's, which does: its pool moved 4.01 -> 4.27 GiB on another release's
    measurement."""
    monkeypatch.setenv("KVPLAN_HOME", str(tmp_path / "home"))
    lines = next(json.loads(line)["lines"] for line in open("tests/data/vllm_log_excerpts.jsonl")
                 if "demo_env_l4" in line)
    log = tmp_path / "l4.log"
    log.write_text("\n".join(lines) + "\n")
    flags = ["--gpu", "L4", "--max-model-len", "32000", "--gpu-memory-utilization", "0.92"]
    r = _cli("reconcile", str(log), "meta-llama/Llama-3.1-8B-Instruct", *flags, "--vllm-version", "0.11.0", "--calibrate")
    assert r.exit_code == 0, r.output
    kw = dict(max_model_len=32000, gpu_memory_utilization=0.92, fixes=False)
    same = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", vllm_version="0.11.0", **kw)
    assert same.site_offsets and same.site_offsets["cudagraph_bytes"] < 0  # the release it was measured on takes it
    new = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", vllm_version="0.33.0", **kw)
    bare = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", vllm_version="0.33.0", site_calibration=False, **kw)
    assert new.kv_cache_bytes == bare.kv_cache_bytes and not new.site_offsets
    assert any(w.startswith("site calibration not applied: it was measured on a vLLM 0.11.0 startup (era V1-c)")
               for w in new.warnings)
    # a calibration whose release is a number that names none (an untagged source build's 0.1.devN) has no era to
    # match: it had been applied to every release's plan
    from kvplan.site_calibration import calibration_path
    data = json.loads(calibration_path().read_text())
    for entries in data.values():
        for entry in entries.values():
            entry["vllm_version"] = "0.1.dev1+gd56e95223"
    calibration_path().write_text(json.dumps(data))
    for version in ("0.11.0", "0.33.0"):
        p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", vllm_version=version, **kw)
        assert not p.site_offsets, version
        assert any("site calibration not applied" in w and "names no release" in w for w in p.warnings), version


def test_a_release_comparison_to_a_release_with_no_pool_is_answered():
    """gpt-oss-20b on an L4 at 16,384 and utilization 0.70 has a pool of a few thousand tokens under 0.33.0 and none
    under 0.10.1: compared in that order, the tokens-formula check divided the two releases' ratios, 0 by 0,
    and `kvplan sweep ... --vary vllm_version=0.33.0,0.10.1` stopped on a ZeroDivisionError."""
    new = kvplan.fit("openai/gpt-oss-20b", "L4", max_model_len=16384, vllm_version="0.33.0",
                     gpu_memory_utilization=0.70, fixes=False)
    old = kvplan.fit("openai/gpt-oss-20b", "L4", max_model_len=16384, vllm_version="0.10.1",
                     gpu_memory_utilization=0.70, fixes=False)
    assert new.kv_cache_tokens > 0 and old.kv_cache_tokens == 0 and old.max_concurrency == 0
    said = release_changes(new, old)
    assert "model runner v2 -> v1" in said
    assert not any("counted another way" in c for c in said)


def test_a_site_calibration_does_not_fold_two_eras_into_one_entry(tmp_path, monkeypatch):
    """The operator calibrated from the 0.11.0 server's log, then upgrades and calibrates a 0.33.0 startup of the same
    model on the same GPU: the means had folded the 0.11.0 CUDA-graph gap (a term 0.11.0 does not subtract from the
    budget) into the entry and labelled it 0.33.0, so every 0.33.0 plan took half of it."""
    monkeypatch.setenv("KVPLAN_HOME", str(tmp_path / "home"))
    lines = next(json.loads(line)["lines"] for line in open("tests/data/vllm_log_excerpts.jsonl")
                 if "demo_env_l4" in line)
    flags = ["--gpu", "L4", "--max-model-len", "32000", "--gpu-memory-utilization", "0.92"]
    old, new = tmp_path / "old.log", tmp_path / "new.log"
    old.write_text("\n".join(lines) + "\n")
    new.write_text("\n".join(lines) + "\n\n")  # another startup's bytes
    r = _cli("reconcile", str(old), "meta-llama/Llama-3.1-8B-Instruct", *flags, "--vllm-version", "0.11.0", "--calibrate")
    assert r.exit_code == 0, r.output
    from kvplan.site_calibration import calibration_path
    before = calibration_path().read_text()
    r = _cli("reconcile", str(new), "meta-llama/Llama-3.1-8B-Instruct", *flags, "--vllm-version", "0.33.0", "--calibrate")
    assert isinstance(r.exception, InputError) and r.exception.field == "--calibrate", r.output  # the CLI prints it
    said = f"{r.exception.message} ({r.exception.fix})"
    assert "measured on vLLM 0.11.0 startup(s) (era V1-c)" in said and "do not average" in said, said
    assert "remove the meta-llama/Llama-3.1-8B-Instruct entry under NVIDIA L4" in said
    assert calibration_path().read_text() == before  # the entry is left as it was
    # a second startup of the same era folds in
    r = _cli("reconcile", str(new), "meta-llama/Llama-3.1-8B-Instruct", *flags, "--vllm-version", "0.11.0", "--calibrate")
    assert r.exit_code == 0, r.output
    assert json.loads(calibration_path().read_text())["NVIDIA L4"]["meta-llama/Llama-3.1-8B-Instruct"]["n"] == 2


@pytest.mark.parametrize("order", [("0.33.0", "0.34.0"), ("0.34.0", "0.33.0")])
def test_upgrade_to_0_34_names_the_after_warmup_sizing_and_the_block_size(order):
    """0.33.0 -> 0.34.0 moved the pool by the new sizing (the extensible KV cache commits what the memory measured
    after warmup and CUDA-graph capture leaves, less a margin) and the 64-token blocks. The sweep said 'CUDA graphs in
    the budget 0.50 -> 0.00 GiB (+0.50 GiB to the pool: capture sizes or graph mode, below)', though the graphs are
    still captured and charged, and left the sizing as 'other budget terms -2.74 GiB'."""
    base, new = (kvplan.fit("Qwen/Qwen3-8B", "H100", max_model_len=8192, vllm_version=v, fixes=False) for v in order)
    changes = release_changes(base, new)
    text = " ".join(changes)
    ext = base if base.kv_pool is not None else new
    assert ext.vllm_version == "0.34.0"
    assert not any(c.startswith("other budget terms") for c in changes), changes
    assert "capture sizes or graph mode" not in text
    sizing = [c for c in changes if c.startswith("KV pool sized after warmup and CUDA-graph capture (")
              and "GiB to the pool: 0.34.0's extensible KV cache commits" in c]
    assert len(sizing) == 1, changes
    lost = (ext.kv_cache_capacity_bytes - ext.kv_cache_bytes) / GIB
    assert abs(abs(_to_pool(sizing[0])) - lost) <= 0.005
    assert f"the captured CUDA graphs {ext.cudagraph_capture_bytes / GIB:.2f} GiB" in sizing[0]
    assert "0.34.0's default with its extensible KV cache" in text
    assert any(c.startswith(f"block size {base.block_size} -> {new.block_size} tokens") for c in changes)
    named = [c for c in changes if "to the pool" in c]
    assert abs(sum(_to_pool(c) for c in named) - (new.kv_cache_bytes - base.kv_cache_bytes) / GIB) <= 0.005 * len(named)


def test_sweep_varies_the_extensible_kv_cache_on_and_off():
    """An operator comparing 0.34's new sizing with the estimate it replaces: --vary enable_extensible_kv_cache was
    refused ('cannot vary'). Each row is fit's plan with --enable- / --no-enable-extensible-kv-cache."""
    r = _cli("sweep", "Qwen/Qwen3-8B", "--gpu", "H100", "--max-model-len", "8192", "--vllm-version", "0.34.0",
             "--vary", "enable_extensible_kv_cache=on,false", "--json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)["rows"]
    assert [row["enable_extensible_kv_cache"] for row in rows] == [True, False]
    for row, on in zip(rows, (True, False)):
        p = kvplan.fit("Qwen/Qwen3-8B", "H100", max_model_len=8192, vllm_version="0.34.0",
                       enable_extensible_kv_cache=on, fixes=False)
        assert row["kv_cache_bytes"] == p.kv_cache_bytes and (p.kv_pool is not None) == on
    bad = _cli("sweep", "Qwen/Qwen3-8B", "--gpu", "H100", "--vllm-version", "0.34.0",
               "--vary", "enable_extensible_kv_cache=maybe")
    # (the console script's main() turns an InputError into exit 2 and this line)
    assert isinstance(bad.exception, InputError) and bad.exception.field == "--vary"
    assert "enable_extensible_kv_cache takes true/false values" in str(bad.exception)
