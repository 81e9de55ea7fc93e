"""--kv-transfer-config (vLLM >= 0.6.5), as each release does it: KVTransferConfig's checks (config.py 0.6.5-0.10.1,
config/kv_transfer.py 0.10.2-0.34.0), the connector names kv_connector/factory.py registers, and the hybrid KV-cache
manager VllmConfig.__post_init__ turns off for a connector (0.9.1-0.21 for any, 0.22+ for one not subclassing
SupportsHMA), which holds window layers as full attention as --disable-hybrid-kv-cache-manager does."""
from __future__ import annotations

import json

import pytest

import kvplan
from kvplan.cli import FitFlags
from kvplan.deploy import render_files, spec_from_plan
from kvplan.errors import InputError
from kvplan.logs import kv_transfer_from_text
from kvplan.reconcile import plan_from_log
from kvplan.validate import ARG_FIELDS, ARGS_NOT_MODELLED, predict_record, validate_records
from kvplan.versions import SERVE_FLAG_SINCE, rules_for
from named_records import record, startup_log

GPT_OSS, GEMMA3, NEXT = "openai/gpt-oss-20b", "google/gemma-3-27b-it", "Qwen/Qwen3-Next-80B-A3B-Instruct"
NIXL = '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}'
LMCACHE = '{"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}'
KT = "--kv-transfer-config"


def _fit(model=GPT_OSS, version="0.33.0", **kw):
    return kvplan.fit(model, "H100", vllm_version=version, fixes=False, **kw)


def _note(p, head=KT + ":"):
    return next(a for a in p.assumptions if a.startswith(head))


# ---- the hybrid KV-cache manager, per release and connector


def test_a_connector_without_hma_support_holds_gpt_oss_windows_as_full_attention():
    base = _fit()
    lm = _fit(kv_transfer_config=LMCACHE)
    flag = _fit(disable_hybrid_kv_cache_manager=True)
    assert len(base.groups) == 2 and len(lm.groups) == 1 and lm.groups[0].kind == "full"
    # the same plan as the flag: 75,975 blocks of 786,432 B, 1,215,600 tokens (hybrid: 151,950 / 2,158,958)
    assert (lm.num_gpu_blocks, lm.kv_cache_tokens, lm.bytes_per_block) == (75_975, 1_215_600, 786_432)
    assert (lm.num_gpu_blocks, lm.kv_cache_tokens) == (flag.num_gpu_blocks, flag.kv_cache_tokens)
    assert "does not subclass SupportsHMA" in _note(lm)
    assert any(w.startswith("Turning off hybrid kv cache manager because `--kv-transfer-config` selects a KV connector "
                            "that does not support it.") for w in lm.warnings)
    assert any(w.startswith("Hybrid KV cache manager is disabled for this hybrid model") for w in lm.warnings)
    assert any(a.startswith("--kv-transfer-config (LMCacheConnectorV1): vLLM 0.33.0's unify_hybrid_kv_cache_specs")
               for a in lm.assumptions)


def test_nixl_keeps_the_manager_from_0_22_not_before():
    base = _fit()
    nixl = _fit(kv_transfer_config=NIXL)
    assert (nixl.num_gpu_blocks, nixl.kv_cache_tokens, len(nixl.groups)) == (base.num_gpu_blocks, base.kv_cache_tokens, 2)
    assert "subclasses SupportsHMA" in _note(nixl)
    assert not any(w.startswith("Turning off hybrid") for w in nixl.warnings)
    old = _fit(version="0.21.0", kv_transfer_config=NIXL)
    assert len(old.groups) == 1 and "any --kv-transfer-config turns it off" in _note(old)
    assert any("use --no-disable-hybrid-kv-cache-manager to start vLLM." in w for w in old.warnings)


@pytest.mark.parametrize("version,warned", [("0.10.2", None), ("0.11.0", None),
                                            ("0.12.0", "defined in kv_connector/v1/base.py."),
                                            ("0.22.0", "connector LMCacheConnectorV1 does not subclass `SupportsHMA`.")])
def test_the_warning_vllm_logs_per_release(version, warned):
    p = _fit(version=version, kv_transfer_config=LMCACHE)
    assert len(p.groups) == 1
    turning = [w for w in p.warnings if w.startswith("Turning off hybrid kv cache manager")]
    assert (turning == []) if warned is None else (len(turning) == 1 and warned in turning[0])


def test_multi_connector_needs_every_child_to_support_hma():
    def multi(*names):
        return json.dumps({"kv_connector": "MultiConnector", "kv_role": "kv_both", "kv_connector_extra_config": {
            "connectors": [{"kv_connector": n, "kv_role": "kv_both"} for n in names]}})
    assert len(_fit(kv_transfer_config=multi("NixlConnector", "OffloadingConnector")).groups) == 2
    mixed = _fit(kv_transfer_config=multi("NixlConnector", "LMCacheConnectorV1"))
    assert len(mixed.groups) == 1 and "(children: NixlConnector, LMCacheConnectorV1)" in _note(mixed)


def test_gemma3_at_32k_no_longer_starts_with_lmcache():
    p = _fit(GEMMA3, max_model_len=32768, kv_transfer_config=LMCACHE)
    assert not p.fits and p.kv_cache_tokens == 32_272 and len(p.groups) == 1


def test_a_mamba_hybrid_is_refused_where_the_connector_turns_the_manager_off():
    with pytest.raises(InputError) as e:
        _fit(NEXT, version="0.21.0", tensor_parallel_size=4, kv_transfer_config=NIXL)
    assert "Hybrid KV cache manager is disabled but failed to convert the KV cache specs to one unified type." in str(e.value)
    assert "turned off for --kv-transfer-config (NixlConnector)" in str(e.value) and "0.22.0 or newer" in str(e.value)
    # 0.33: NIXL keeps the manager, so the hybrid plans
    assert _fit(NEXT, tensor_parallel_size=4, kv_transfer_config=NIXL).num_gpu_blocks > 0


def test_the_flag_given_too_leaves_the_connector_check_unread():
    p = _fit(kv_transfer_config=LMCACHE, disable_hybrid_kv_cache_manager=True)
    assert len(p.groups) == 1 and "off by --disable-hybrid-kv-cache-manager already" in _note(p)
    assert not any(w.startswith("Turning off hybrid") for w in p.warnings)


def test_a_model_without_windows_plans_the_same_and_the_buffers_are_a_warning():
    kw = dict(max_model_len=16384)
    base = kvplan.fit("Qwen/Qwen3-8B", "L4", vllm_version="0.33.0", fixes=False, **kw)
    p = kvplan.fit("Qwen/Qwen3-8B", "L4", vllm_version="0.33.0", fixes=False, kv_transfer_config=LMCACHE, **kw)
    assert (p.num_gpu_blocks, p.kv_cache_tokens) == (base.num_gpu_blocks, base.kv_cache_tokens)
    assert any("kvplan charges no GPU memory for the connector itself" in w for w in p.warnings)


# ---- vLLM's checks of the flag


def test_the_flag_starts_at_0_6_5():
    assert SERVE_FLAG_SINCE[KT] == (0, 6, 5)
    with pytest.raises(InputError) as e:
        kvplan.fit("Qwen/Qwen3-8B", "L4", vllm_version="0.6.4", fixes=False, max_model_len=8192,
                   kv_transfer_config='{"kv_connector": "PyNcclConnector", "kv_role": "kv_both"}')
    assert "first in vLLM 0.6.5" in str(e.value)


@pytest.mark.parametrize("value,version,text", [
    ('{"kv_connector": "NixlConnector"}', "0.33.0",
     "Please specify kv_role when kv_connector is set, supported roles are ('kv_producer', 'kv_both', 'kv_consumer')"),
    ('{"kv_connector": "NixlConnector"}', "0.10.2", "Please specify kv_disagg_role when kv_connector is set"),
    ('{"kv_connector": "NixlConnector", "kv_role": "both"}', "0.33.0", "Unsupported kv_role: both. Supported roles are"),
    ('{"kv_connector": "PyNcclConnector", "kv_role": "kv_both"}', "0.33.0", "Unsupported connector type: PyNcclConnector"),
    ('{"kv_connector": "NixlConnector", "kv_role": "kv_both"}', "0.6.5",
     "Unsupported kv_connector: NixlConnector. Supported connectors are ['PyNcclConnector', 'MooncakeConnector']."),
    ('{"kv_connector": "PyNcclConnector", "kv_role": "kv_both"}', "0.9.2", "assert issubclass(connector_cls, KVConnectorBase_V1)"),
    ('{"kv_connector": "OffloadingConnector", "kv_role": "kv_both"}', "0.10.2", "Unsupported connector type: OffloadingConnector"),
    ('{"kv_connector": "Nixl', "0.33.0", "vllm serve refuses it as it reads the flag"),
    ('{"kv_connector": "P2pNcclConnector", "kv_role": "kv_both", "kv_buffer_size": 1e9}', "0.33.0",
     "kv_buffer_size: Unexpected keyword argument"),
    ('{"kv_conector": "NixlConnector", "kv_role": "kv_both"}', "0.16.0", "kv_conector: Unexpected keyword argument"),
    ('{"kv_connector": "MultiConnector", "kv_role": "kv_both", "kv_connector_extra_config": {"connectors": '
     '[{"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_ip": "10.0.0.1"}]}}', "0.33.0",
     "kv_ip: Unexpected keyword argument"),
])
def test_refused_as_vllm_refuses_it(value, version, text):
    with pytest.raises(InputError) as e:
        kvplan.fit("Qwen/Qwen3-8B", "L4", vllm_version=version, fixes=False, max_model_len=8192, kv_transfer_config=value)
    assert text in str(e.value)


def test_unknown_keys_are_ignored_before_0_16_and_old_fields_until_0_32():
    p2p = '{"kv_connector": "P2pNcclConnector", "kv_role": "kv_both", "kv_buffer_size": 1e9}'
    for version in ("0.15.0", "0.23.0"):  # (P2pNcclConnector registered up to 0.23)
        kvplan.fit("Qwen/Qwen3-8B", "L4", vllm_version=version, fixes=False, max_model_len=8192, kv_transfer_config=p2p)
    kvplan.fit("Qwen/Qwen3-8B", "L4", vllm_version="0.31.0", fixes=False, max_model_len=8192,
               kv_transfer_config=LMCACHE[:-1] + ', "kv_buffer_size": 1e9}')
    typo = '{"kv_conector": "NixlConnector", "kv_role": "kv_both"}'
    kvplan.fit("Qwen/Qwen3-8B", "L4", vllm_version="0.15.0", fixes=False, max_model_len=8192, kv_transfer_config=typo)


def test_an_external_connector_loads_from_its_module_path():
    ext = '{"kv_connector": "MyConnector", "kv_role": "kv_both", "kv_connector_module_path": "my.pkg"}'
    p = _fit(kv_transfer_config=ext)
    assert len(p.groups) == 1 and "cannot read whether the external MyConnector subclasses SupportsHMA" in _note(p)


def test_0_8_0_to_0_8_4_fall_back_to_v0_for_it():
    assert rules_for("0.8.2").v0_for_kv_transfer and not rules_for("0.8.5").v0_for_kv_transfer
    p = kvplan.fit("Qwen/Qwen3-8B", "L4", vllm_version="0.8.2", fixes=False, max_model_len=8192,
                   kv_transfer_config='{"kv_connector": "PyNcclConnector", "kv_role": "kv_both"}')
    assert "--kv-transfer-config is not supported by the V1 Engine. Falling back to V0." in p.warnings


# ---- the consumers: CLI, --from, serve.sh, logs, records


def test_the_command_line_and_from_take_it():
    from typer.testing import CliRunner

    from kvplan.cli import app
    res = CliRunner().invoke(app, ["fit", GPT_OSS, "--gpu", "H100", KT, LMCACHE, "--vllm-version", "0.33.0", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert json.loads(out["args"]["kv_transfer_config"])["kv_connector"] == "LMCacheConnectorV1"
    assert out["num_gpu_blocks"] == 75_975
    res = CliRunner().invoke(app, ["fit", "--from", f"vllm serve {GPT_OSS} --kv-transfer-config '{LMCACHE}'",
                                   "--gpu", "H100", "--vllm-version", "0.33.0", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["num_gpu_blocks"] == 75_975


def test_serve_sh_carries_it():
    p = _fit(kv_transfer_config=LMCACHE)
    script = render_files(spec_from_plan(p))["serve.sh"]
    assert """--kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'""" in script
    assert KT not in render_files(spec_from_plan(_fit()))["serve.sh"]


def test_a_log_with_a_connector_is_planned_with_it():
    repr_ = ("KVTransferConfig(kv_connector='LMCacheConnectorV1', engine_id='e1', kv_buffer_device='cuda', "
             "kv_buffer_size=1000000000.0, kv_role='kv_both', kv_rank=None, kv_parallel_size=1, kv_ip='127.0.0.1', "
             "kv_port=14579, kv_connector_extra_config={}, kv_connector_module_path=None)")
    assert kv_transfer_from_text(repr_) == {"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}
    log = startup_log(GPT_OSS, 32768, kv_transfer_config={"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"})
    assert log.to_record()["args"]["kv_transfer_config"] == {"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}
    p, _notes = plan_from_log(log, GPT_OSS, FitFlags(gpu="H100"), site_calibration=False)
    assert len(p.groups) == 1


def test_a_record_with_a_connector_is_planned_not_skipped():
    assert "kv_transfer_config" not in ARGS_NOT_MODELLED and "kv_transfer_config" in ARG_FIELDS
    rec = record("calibration.jsonl", "gpt-oss-20b-a100-u065-tpx")
    base, _ = predict_record(rec)
    flagged = json.loads(json.dumps(rec))
    flagged["args"]["kv_transfer_config"] = {"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}
    (result,) = validate_records([flagged])
    assert result.skipped is None
    p, _ = predict_record(flagged)
    assert len(p.groups) == 1 < len(base.groups) and p.num_gpu_blocks < base.num_gpu_blocks


# ---- --no-disable-hybrid-kv-cache-manager: the manager kept on against a connector from 0.13


def test_no_disable_keeps_the_manager_for_an_hma_connector_from_0_13():
    on = _fit(version="0.20.0", kv_transfer_config=NIXL, disable_hybrid_kv_cache_manager=False)
    assert len(on.groups) == 2 and "--no-disable-hybrid-kv-cache-manager keeps the hybrid KV-cache manager on" in _note(on)
    assert not any(w.startswith("Turning off hybrid") for w in on.warnings)
    # up to 0.12 False is the flag's default: the connector still turns the manager off
    assert len(_fit(version="0.12.0", kv_transfer_config=NIXL, disable_hybrid_kv_cache_manager=False).groups) == 1


@pytest.mark.parametrize("version", ["0.17.0", "0.20.0", "0.33.0"])
def test_no_disable_with_a_connector_without_hma_is_refused(version):
    with pytest.raises(InputError) as e:
        _fit(version=version, kv_transfer_config=LMCACHE, disable_hybrid_kv_cache_manager=False)
    assert ("Connector LMCacheConnectorV1 does not support HMA but HMA is enabled. Please set "
            "`--disable-hybrid-kv-cache-manager`.") in str(e.value)


def test_no_disable_on_chunked_local_attention_in_0_13_is_refused():
    with pytest.raises(InputError) as e:
        kvplan.fit("meta-llama/Llama-4-Scout-17B-16E-Instruct", "H100", vllm_version="0.13.0", fixes=False,
                   tensor_parallel_size=4, max_model_len=65536, disable_hybrid_kv_cache_manager=False)
    assert "Hybrid KV cache manager was explicitly enabled but is not supported in this configuration." in str(e.value)


def test_no_disable_flag_in_cli_from_and_serve_sh():
    from typer.testing import CliRunner

    from kvplan.cli import app
    assert SERVE_FLAG_SINCE["--no-disable-hybrid-kv-cache-manager"] == (0, 9, 1)
    res = CliRunner().invoke(app, ["fit", "--from", f"vllm serve {GPT_OSS} --kv-transfer-config '{NIXL}' "
                                   "--no-disable-hybrid-kv-cache-manager", "--gpu", "H100", "--vllm-version", "0.20.0",
                                   "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["args"]["disable_hybrid_kv_cache_manager"] is False and out["num_gpu_blocks"] == 151_243
    p = _fit(version="0.20.0", kv_transfer_config=NIXL, disable_hybrid_kv_cache_manager=False)
    assert "\n  --no-disable-hybrid-kv-cache-manager\n" in render_files(spec_from_plan(p))["serve.sh"]


def test_the_namespace_line_and_an_explicit_no_disable_are_read_from_a_log():
    from kvplan.logs import parse_lines

    def log(version, hma):
        return parse_lines([
            f"INFO 10-02 10:00:01 [api_server.py:1896] vLLM API server version {version}",
            "INFO 10-02 10:00:01 [api_server.py:1897] args: Namespace(model='openai/gpt-oss-20b', max_model_len=32768, "
            f"disable_hybrid_kv_cache_manager={hma}, kv_transfer_config=KVTransferConfig(kv_connector='NixlConnector', "
            "engine_id='e', kv_buffer_device='cuda', kv_role='kv_both', kv_connector_extra_config={}, "
            "kv_connector_module_path=None), seed=0)"]).to_record()["args"]
    new = log("0.20.0", False)
    assert new["kv_transfer_config"] == {"kv_connector": "NixlConnector", "kv_role": "kv_both"}
    assert new["disable_hybrid_kv_cache_manager"] is False
    # up to 0.12 the Namespace prints the default False: not a given --no- flag
    assert "disable_hybrid_kv_cache_manager" not in log("0.11.0", False)
    assert "disable_hybrid_kv_cache_manager" not in log("0.20.0", None)


def test_nixl_with_a_cpu_buffer_needs_host_ram_as_large_as_the_pool():
    cpu = '{"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_buffer_device": "cpu"}'
    p = _fit(kv_transfer_config=cpu)
    assert any("host RAM as large as its KV pool" in a for a in p.assumptions)
    assert p.num_gpu_blocks == _fit(kv_transfer_config=NIXL).num_gpu_blocks
    assert not any("host RAM" in a for a in _fit(version="0.10.0", kv_transfer_config=cpu).assumptions)
    assert not any("host RAM" in a for a in _fit(kv_transfer_config=NIXL).assumptions)


def test_diagnose_names_the_real_flag_for_both_refusals():
    from kvplan.diagnose import diagnose

    top = diagnose(["(EngineCore_DP0 pid=1) ERROR 12-02 01:00:00 [core.py:866] ValueError: Connector LMCacheConnectorV1 "
                    "does not support HMA but HMA is enabled. Please set `--disable-hybrid-kv-cache-manager`."]).top
    assert top is not None and top.fatal and "LMCacheConnectorV1" in top.cause
    assert "--no-disable-hybrid-kv-cache-manager" in top.fix
    forced = diagnose(["ValueError: Hybrid KV cache manager was explicitly enabled but is not supported in this "
                       "configuration. Consider omitting the --no-disable-hybrid-kv-cache-manager flag to let vLLM "
                       "decide automatically."]).top
    assert forced is not None and "--no-disable-hybrid-kv-cache-manager" in forced.fix
