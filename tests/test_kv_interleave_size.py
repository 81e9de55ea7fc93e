"""--dcp-kv-cache-interleave-size (ParallelConfig.dcp_kv_cache_interleave_size, vLLM >= 0.11.1) and
--cp-kv-cache-interleave-size (cp_kv_cache_interleave_size, vLLM >= 0.12.0): how many consecutive tokens each DCP rank
keeps in turn. kvplan named them as not modelled (validate.ARGS_NOT_MODELLED: a record skipped, `--from` refused,
`kvplan fit` "No such option").

What vLLM does with them (wheels 0.11.0-0.34.0): the KV-cache manager gives a request block_size x dcp virtual blocks
whatever the interleave size (v1/core and v1/kv_cache_interface.py read none), so no startup figure moves; under DCP
the value must divide the block size ("Block_size(B) should be greater than or equal to and divisible by ..."); above 1
it is refused with --speculative-config (config/vllm.py 0.11.1-0.12.x, v1/worker/cp_utils.py from 0.13); the dcp flag
overrides the cp one under DCP in 0.12-0.28, and from 0.29 only for a KV-transfer instance."""
from __future__ import annotations

import json

import pytest

import kvplan
from kvplan.deploy import render_files, spec_from_plan
from kvplan.errors import InputError, RefusedByVLLMError

V3 = "deepseek-ai/DeepSeek-V3"
LEN = 131072
MTP = '{"method": "mtp", "num_speculative_tokens": 1}'


def _v3(version: str, dcp: int | None = 8, **kw):
    return kvplan.fit(V3, "H200", tensor_parallel_size=8, max_model_len=kw.pop("max_model_len", LEN),
                      vllm_version=version, decode_context_parallel_size=dcp, fixes=False, **kw)


def _figures(p):
    return (p.kv_cache_bytes, p.num_gpu_blocks, p.bytes_per_block, p.kv_cache_tokens, p.max_concurrency)


@pytest.mark.parametrize("version, flag", [("0.11.1", "dcp_kv_cache_interleave_size"),
                                           ("0.20.0", "cp_kv_cache_interleave_size"),
                                           ("0.33.0", "cp_kv_cache_interleave_size")])
def test_an_interleave_that_divides_the_block_moves_no_figure_and_the_plan_says_so(version, flag):
    base = _v3(version)
    block = base.block_size  # FlashMLA's 64 at 0.11.1; the interleave may be the whole block (block-level placement)
    for size in (2, block):
        p = _v3(version, **{flag: size})
        assert _figures(p) == _figures(base)
        log_line = next(line for line in base.vllm_log if line.startswith("GPU KV cache size"))
        assert log_line in p.vllm_log
        note = next(a for a in p.assumptions if a.startswith(f"interleave size {size} "))
        assert f"--{flag.replace('_', '-')} {size}" in note and "read no interleave size" in note
        assert "pool, blocks, tokens and concurrency are the ones without it" in note


@pytest.mark.parametrize("version, flag, field", [
    ("0.11.1", "dcp_kv_cache_interleave_size", "dcp_kv_cache_interleave_size"),
    ("0.26.0", "dcp_kv_cache_interleave_size", "cp_kv_cache_interleave_size"),  # the dcp value replaces the cp one
    ("0.33.0", "cp_kv_cache_interleave_size", "cp_kv_cache_interleave_size")])
def test_an_interleave_the_block_size_does_not_divide_is_refused_with_vllms_text(version, flag, field):
    block = _v3(version).block_size
    with pytest.raises(RefusedByVLLMError) as e:
        _v3(version, **{flag: 2 * block})
    assert e.value.rule == "cp_interleave_block_size" and e.value.field == "--" + flag.replace("_", "-")
    assert (f"AssertionError: Block_size({block}) should be greater than or equal to and divisible by {field} "
            f"({2 * block}).") in str(e.value)
    assert str(block) in e.value.fix


def test_flags_only_from_their_first_release():
    with pytest.raises(InputError) as e:
        _v3("0.11.0", dcp_kv_cache_interleave_size=16)
    assert "has no --dcp-kv-cache-interleave-size flag (first in vLLM 0.11.1)" in str(e.value)
    for version in ("0.11.1", "0.11.2"):
        with pytest.raises(InputError) as e:
            _v3(version, cp_kv_cache_interleave_size=16)
        assert "has no --cp-kv-cache-interleave-size flag (first in vLLM 0.12.0)" in str(e.value)


@pytest.mark.parametrize("version, flag, field", [
    ("0.11.1", "dcp_kv_cache_interleave_size", "dcp_kv_cache_interleave_size"),
    ("0.12.0", "cp_kv_cache_interleave_size", "cp_kv_cache_interleave_size"),
    ("0.33.0", "cp_kv_cache_interleave_size", "cp_kv_cache_interleave_size")])
def test_zero_or_a_negative_size_is_refused_as_vllm_refuses_it(version, flag, field):
    # vLLM's fields take any int (config/parallel.py, engine/arg_utils.py of the 0.12.0 and 0.33.0 wheels: no bound);
    # under DCP its block-size check computes block_size % size: 0 raises ZeroDivisionError, a negative size that does
    # not divide the block fails its assert; a negative divisor (-1) passes: vLLM starts, kvplan refuses it as before
    cli_flag = "--" + flag.replace("_", "-")
    block = _v3(version).block_size
    with pytest.raises(RefusedByVLLMError) as e:
        _v3(version, **{flag: 0})
    assert e.value.rule == "cp_interleave_block_size" and e.value.field == cli_flag
    assert "ZeroDivisionError: integer modulo by zero" in str(e.value) and str(block) in e.value.fix
    with pytest.raises(RefusedByVLLMError) as e:
        _v3(version, **{flag: -3})
    assert (f"AssertionError: Block_size({block}) should be greater than or equal to and divisible by {field} "
            "(-3).") in str(e.value)
    for accepted in (dict(**{flag: -1}), dict(dcp=None, **{flag: 0})):  # vLLM starts with these
        with pytest.raises(InputError) as e:
            _v3(version, **accepted)
        assert type(e.value) is InputError and e.value.field == cli_flag and "must be a positive integer" in str(e.value)
    if version == "0.12.0":  # the dcp value below 2 is not copied over the cp one: vLLM starts with the default 1
        with pytest.raises(InputError) as e:
            _v3(version, dcp_kv_cache_interleave_size=0)
        assert type(e.value) is InputError and "must be a positive integer, got 0" in str(e.value)


def test_the_dcp_flag_overrides_the_cp_one_then_needs_a_kv_transfer_instance():
    # 0.12-0.28: under DCP the dcp value replaces the cp one, with vLLM's warning
    p = _v3("0.20.0", dcp_kv_cache_interleave_size=8, cp_kv_cache_interleave_size=4)
    assert any("cp_kv_cache_interleave_size is overridden by dcp_kv_cache_interleave_size" in a for a in p.assumptions)
    assert any(a.startswith("interleave size 8 (--dcp-kv-cache-interleave-size 8)") for a in p.assumptions)
    # from 0.29 only adjust_dcp_kv_cache_interleave_size (a KV-transfer instance) reads it: 0.28 refuses 2 x block,
    # 0.33 leaves the cp default and warns that the flag is not applied
    block = _v3("0.28.0").block_size
    with pytest.raises(RefusedByVLLMError):
        _v3("0.28.0", dcp_kv_cache_interleave_size=2 * block)
    p = _v3("0.33.0", dcp_kv_cache_interleave_size=2 * block)
    assert _figures(p) == _figures(_v3("0.33.0"))
    assert any(w.startswith(f"--dcp-kv-cache-interleave-size {2 * block}: vLLM 0.33.0 reads it only for a KV-transfer "
                            "instance") and "--cp-kv-cache-interleave-size" in w for w in p.warnings)
    # with a connector it is applied: 0.33 checks it (LMCache), but skips the check for NIXL P/D
    lmcache = json.dumps({"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"})
    with pytest.raises(RefusedByVLLMError):
        _v3("0.33.0", dcp_kv_cache_interleave_size=2 * block, kv_transfer_config=lmcache)
    nixl = json.dumps({"kv_connector": "NixlConnector", "kv_role": "kv_both"})
    p = _v3("0.33.0", dcp_kv_cache_interleave_size=2 * block, kv_transfer_config=nixl)
    assert any(a.startswith(f"interleave size {block} (the block size, which vLLM 0.33.0 sets for the P/D connector)")
               and "skips its block-size check" in a for a in p.assumptions)
    p = _v3("0.33.0", cp_kv_cache_interleave_size=2 * block, kv_transfer_config=nixl)  # given: kept, unchecked
    assert any(a.startswith(f"interleave size {2 * block} (--cp-kv-cache-interleave-size") for a in p.assumptions)
    # 0.30-0.32: the workers apply it after the engine's check, which saw the cp value
    p = _v3("0.30.0", dcp_kv_cache_interleave_size=2 * block, kv_transfer_config=lmcache)
    assert any("after the engine's block-size check" in a for a in p.assumptions)


def test_above_one_with_speculative_decoding_as_each_release_refuses_it():
    kw = dict(max_model_len=32768, speculative_config=MTP)
    with pytest.raises(RefusedByVLLMError) as e:  # 0.11.1: the config's assert, with or without DCP
        _v3("0.11.1", None, dcp_kv_cache_interleave_size=2, **kw)
    assert "AssertionError: MTP with dcp_kv_cache_interleave_size > 1 is not supported now." in str(e.value)
    with pytest.raises(RefusedByVLLMError) as e:  # 0.12: the cp value, with or without DCP
        _v3("0.12.0", None, cp_kv_cache_interleave_size=2, **kw)
    assert "AssertionError: MTP with cp_kv_cache_interleave_size > 1 is not supported now." in str(e.value)
    assert _v3("0.12.0", None, dcp_kv_cache_interleave_size=2, **kw).num_gpu_blocks > 0  # not copied without DCP
    # 0.13+: the KV-cache setup's check per attention impl, under DCP or PCP only
    assert _v3("0.13.0", None, cp_kv_cache_interleave_size=2, **kw).num_gpu_blocks > 0
    with pytest.raises(RefusedByVLLMError) as e:
        _v3("0.13.0", cp_kv_cache_interleave_size=2, **kw)
    assert e.value.rule == "cp_interleave_mtp" and "MTP with cp_kv_cache_interleave_size > 1 is not supported in" in str(e.value)


def test_zero_with_speculative_decoding_as_each_release_takes_it():
    # 0.11.1-0.12.x assert the size == 1 with a --speculative-config (config/vllm.py): 0 refused under the "> 1" text,
    # with or without DCP; 0.13+ check only a size above 1 (v1/worker/cp_utils.py): vLLM starts, kvplan refuses it
    kw = dict(max_model_len=32768, speculative_config=MTP)
    with pytest.raises(RefusedByVLLMError) as e:
        _v3("0.11.1", None, dcp_kv_cache_interleave_size=0, **kw)
    assert e.value.rule == "cp_interleave_mtp" and "MTP with dcp_kv_cache_interleave_size > 1" in str(e.value)
    with pytest.raises(RefusedByVLLMError) as e:
        _v3("0.12.0", None, cp_kv_cache_interleave_size=-1, **kw)
    assert e.value.rule == "cp_interleave_mtp" and "MTP with cp_kv_cache_interleave_size > 1" in str(e.value)
    with pytest.raises(InputError) as e:
        _v3("0.13.0", None, cp_kv_cache_interleave_size=0, **kw)
    assert type(e.value) is InputError and "must be a positive integer, got 0" in str(e.value)


def test_without_dcp_it_is_planned_and_named():
    p = _v3("0.33.0", None, cp_kv_cache_interleave_size=16)
    assert _figures(p) == _figures(_v3("0.33.0", None))
    assert any(a.startswith("--cp-kv-cache-interleave-size 16: where decode context parallelism places") for a in p.assumptions)


def test_from_scaffold_validate_logs_and_the_command_line_carry_it():
    from typer.testing import CliRunner

    from kvplan.cli import app
    from kvplan.logs import parse_log
    from kvplan.serve_command import parse_serve_command
    from kvplan.validate import ARG_FIELDS, ARGS_NOT_MODELLED, validate_records

    cmd = parse_serve_command(f"vllm serve {V3} -tp 8 -dcp 8 --dcp-kv-cache-interleave-size 16 "
                              "--cp-kv-cache-interleave-size 16")
    assert cmd.planned["dcp_kv_cache_interleave_size"] == 16 and cmd.planned["cp_kv_cache_interleave_size"] == 16
    p = _v3("0.33.0", cp_kv_cache_interleave_size=16)
    assert "--cp-kv-cache-interleave-size 16" in render_files(spec_from_plan(p))["serve.sh"]
    for name in ("dcp_kv_cache_interleave_size", "cp_kv_cache_interleave_size"):
        assert name not in ARGS_NOT_MODELLED and name in ARG_FIELDS
    rec = {"id": "cp-interleave-synthetic", "model": {"id": V3}, "gpu": {"name": "NVIDIA H200", "count": 8},
           "vllm_version": "0.33.0", "args": {"max_model_len": LEN, "tensor_parallel_size": 8,
                                              "decode_context_parallel_size": 8, "cp_kv_cache_interleave_size": 16},
           "observed": {"fits": True}}
    (r,) = validate_records([rec])
    assert not r.skipped, r.skipped
    assert r.predicted["kv_cache_tokens"] == p.kv_cache_tokens
    log = ("INFO 10-20 10:00:01 [api_server.py:1896] vLLM API server version 0.33.0\n"
           "INFO 10-20 10:00:01 [utils.py:233] non-default args: {'model_tag': 'deepseek-ai/DeepSeek-V3', 'model': "
           "'deepseek-ai/DeepSeek-V3', 'max_model_len': 131072, 'tensor_parallel_size': 8, "
           "'decode_context_parallel_size': 8, 'dcp_kv_cache_interleave_size': 16}\n")
    assert parse_log(log).to_record()["args"]["dcp_kv_cache_interleave_size"] == 16
    res = CliRunner().invoke(app, ["fit", V3, "--gpu", "H200", "-tp", "8", "-dcp", "8", "--max-model-len", "131072",
                                   "--cp-kv-cache-interleave-size", "16", "--vllm-version", "0.33.0", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["args"]["cp_kv_cache_interleave_size"] == 16
