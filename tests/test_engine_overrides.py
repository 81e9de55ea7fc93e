"""vllm serve's --num-gpu-blocks-override, --mamba-block-size and --calculate-kv-scales (CacheConfig fields). kvplan
answered "No such option", `--from` refused them as not modelled and validate skipped a record setting them.

--num-gpu-blocks-override: the profiled count is logged and replaced ("Overriding num_gpu_blocks=%d with
num_gpu_blocks_override=%d"; V1 v1/core/kv_cache_utils.py, V0 engine/llm_engine.py); the KV tensors are allocated at
its size. vLLM 0.8-0.20 check one max-length request against the profiled memory (vLLM issue #27181: opt-125m on an
H100 with an override of 1 started at 16 tokens, 0.01x), 0.21+ and V0 against the override; 0.9.1 ignored it (PR
#19503). --calculate-kv-scales (0.7.0-0.27.x) moves no startup figure."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import kvplan
from kvplan.deploy import render_files, spec_from_plan
from kvplan.errors import InputError

QWEN = "Qwen/Qwen2.5-0.5B-Instruct"
DATA = Path(__file__).parent / "data" / "calibration.jsonl"
KW = dict(max_model_len=4096, fixes=False)


def _opt125m(tmp_path):
    cfg = {"architectures": ["OPTForCausalLM"], "model_type": "opt", "hidden_size": 768, "num_attention_heads": 12,
           "num_hidden_layers": 12, "ffn_dim": 3072, "max_position_embeddings": 2048, "vocab_size": 50272,
           "torch_dtype": "float16", "word_embed_proj_dim": 768, "do_layer_norm_before": True,
           "activation_function": "relu", "enable_bias": True, "layer_norm_elementwise_affine": True}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    return str(path)


def test_the_override_is_the_pool_its_tokens_and_concurrency():
    base = kvplan.fit(QWEN, "L4", vllm_version="0.11.0", **KW)
    p = kvplan.fit(QWEN, "L4", vllm_version="0.11.0", num_gpu_blocks_override=2000, **KW)
    assert p.fits and p.num_gpu_blocks == 2000 and p.kv_cache_tokens == 2000 * 16
    assert p.max_concurrency == pytest.approx(2000 / 256, abs=0.01)
    assert p.kv_cache_bytes == base.kv_cache_bytes  # 'Available KV cache memory' is still the profile's
    assert f"Overriding num_gpu_blocks={base.num_gpu_blocks} with num_gpu_blocks_override=2000" in p.vllm_log
    assert any("left unused" in a for a in p.assumptions)


def test_opt125m_on_an_h100_starts_with_one_block_before_021_as_issue_27181_logged(tmp_path):
    # 'Overriding num_gpu_blocks=125643 with num_gpu_blocks_override=1', 'GPU KV cache size: 16 tokens',
    # 'Maximum concurrency for 2,048 tokens per request: 0.01x'
    cfg = _opt125m(tmp_path)
    p = kvplan.fit(cfg, "H100", vllm_version="0.11.0", num_gpu_blocks_override=1, fixes=False)
    assert p.fits and p.kv_cache_tokens == 16 and f"{p.max_concurrency:.2f}" == "0.01"
    assert any("--num-gpu-blocks-override 129 or more holds one" in w for w in p.warnings)
    profiled = next(line for line in p.vllm_log if line.startswith("Overriding"))
    assert abs(int(profiled.split("=")[1].split()[0]) - 125643) / 125643 < 0.01
    # from 0.21 the check reads the override's memory: vLLM's own refusal, naming the length one block holds
    late = kvplan.fit(cfg, "H100", vllm_version="0.21.0", num_gpu_blocks_override=1, fixes=False)
    assert not late.fits and "estimated maximum model length is 16" in late.error


def test_v0_checks_the_override_with_its_own_text():
    p = kvplan.fit(QWEN, "L4", vllm_version="0.6.4", num_gpu_blocks_override=200, **KW)
    assert not p.fits
    assert ("The model's max seq len (4096) is larger than the maximum number of tokens that can be stored in KV "
            "cache (3200)") in p.error


def test_0_9_1_logs_the_override_and_keeps_the_profiled_pool():
    base = kvplan.fit(QWEN, "L4", vllm_version="0.9.1", **KW)
    p = kvplan.fit(QWEN, "L4", vllm_version="0.9.1", num_gpu_blocks_override=200, **KW)
    assert p.num_gpu_blocks == base.num_gpu_blocks and p.fits
    assert any("PR #19503" in a for a in p.assumptions)
    from kvplan.api import uncertainty_band_of

    assert "validated band" in uncertainty_band_of(p)["text"]  # the profiled pool, banded as without it


def test_an_override_beyond_the_card_fails_at_allocation_and_the_fix_names_the_most_that_fits():
    p = kvplan.fit(QWEN, "L4", vllm_version="0.33.0", max_model_len=4096, num_gpu_blocks_override=150000)
    assert not p.fits and p.failure == "kv_alloc" and "CUDA out of memory" in p.error
    assert "--num-gpu-blocks-override 150,000" in p.error
    fix = next(f for f in p.fixes if f.name == "lower --num-gpu-blocks-override")
    assert fix.fits and 98000 < fix.flags["num_gpu_blocks_override"] < 150000


def test_the_extensible_kv_cache_stays_off_with_an_override():
    p = kvplan.fit(QWEN, "L4", vllm_version="0.34.0", num_gpu_blocks_override=2000, **KW)
    assert p.fits and p.num_gpu_blocks == 2000
    assert not any(line.startswith("Extended KV cache") for line in p.vllm_log)
    with pytest.raises(Exception) as e:
        kvplan.fit(QWEN, "L4", vllm_version="0.34.0", num_gpu_blocks_override=2000, enable_extensible_kv_cache=True,
                   **KW)
    assert "num_gpu_blocks_override overrides" in str(e.value)


def test_the_override_is_a_positive_block_count():
    with pytest.raises(InputError) as e:
        kvplan.fit(QWEN, "L4", num_gpu_blocks_override=0, **KW)
    assert e.value.field == "--num-gpu-blocks-override"


def test_serve_sh_from_and_records_carry_the_override():
    p = kvplan.fit(QWEN, "L4", num_gpu_blocks_override=2000, **KW)
    assert "--num-gpu-blocks-override 2000" in render_files(spec_from_plan(p))["serve.sh"]
    from kvplan.serve_command import parse_serve_command

    cmd = parse_serve_command(f"vllm serve {QWEN} --max-model-len 4096 --num-gpu-blocks-override 2000 "
                              "--calculate-kv-scales --kv-cache-dtype fp8")
    assert cmd.planned["num_gpu_blocks_override"] == 2000 and cmd.planned["calculate_kv_scales"] is True
    from kvplan.logs import parse_log

    log = parse_log(("INFO 06-11 10:47:43 [utils.py:233] non-default args: {'model': 'Qwen/Qwen2.5-0.5B-Instruct', "
                    "'num_gpu_blocks_override': 100}\n"
                    "INFO 06-11 10:47:44 [kv_cache_utils.py:660] Overriding num_gpu_blocks=333325 with "
                    "num_gpu_blocks_override=100\n").splitlines())
    assert log.to_record()["args"]["num_gpu_blocks_override"] == 100


def test_simulate_serves_the_plans_override_and_refuses_a_second_count(monkeypatch, capsys):
    from cli_runner import run_cli

    code, out, _ = run_cli(monkeypatch, capsys, "simulate", QWEN, "--gpu", "L4", "--max-model-len", "4096",
                           "--num-gpu-blocks-override", "3000", "-w", "azure-conv", "-n", "20", "--json")
    assert code == 0 and json.loads(out)["engine"]["num_gpu_blocks"] == 3000
    code, out, err = run_cli(monkeypatch, capsys, "simulate", QWEN, "--gpu", "L4", "--max-model-len", "4096",
                             "--num-gpu-blocks-override", "3000", "--num-gpu-blocks", "2000", "-w", "azure-conv",
                             "-n", "20")
    assert code != 0 and "contradicts --num-gpu-blocks-override" in out + err


def test_calculate_kv_scales_moves_nothing_and_comes_with_its_releases():
    base = kvplan.fit(QWEN, "L4", vllm_version="0.12.0", kv_cache_dtype="fp8", **KW)
    p = kvplan.fit(QWEN, "L4", vllm_version="0.12.0", kv_cache_dtype="fp8", calculate_kv_scales=True, **KW)
    assert (p.num_gpu_blocks, p.kv_cache_bytes, p.activation_peak_bytes) == (base.num_gpu_blocks, base.kv_cache_bytes,
                                                                             base.activation_peak_bytes)
    assert any(a.startswith("--calculate-kv-scales: no startup memory figure moves") for a in p.assumptions)
    late = kvplan.fit(QWEN, "L4", vllm_version="0.20.0", kv_cache_dtype="fp8", calculate_kv_scales=True, **KW)
    assert any("`--calculate-kv-scales` option is deprecated" in w for w in late.warnings)
    for version, says in (("0.6.4", "first in vLLM 0.7.0"), ("0.28.0", "removed in vLLM 0.28.0")):
        with pytest.raises(InputError) as e:
            kvplan.fit(QWEN, "L4", vllm_version=version, calculate_kv_scales=True, **KW)
        assert e.value.field == "--calculate-kv-scales" and says in str(e.value)
    assert "--calculate-kv-scales" in render_files(spec_from_plan(p))["serve.sh"]


def test_a_record_setting_them_is_planned_not_skipped():
    from kvplan.validate import load_records, predict_record, validate_records

    records = load_records(DATA)
    base = next(r for r in records if r["id"] == "meta-llama-3.1-8b-instruct-l4-u092-tp1")
    rec = json.loads(json.dumps(base))
    rec["args"]["num_gpu_blocks_override"] = 512
    rec["args"]["calculate_kv_scales"] = True
    assert validate_records([rec])[0].skipped is None
    p, _ = predict_record(rec)
    assert p.num_gpu_blocks == 512


GRANITE = "ibm-granite/granite-4.0-h-tiny"  # GraniteMoeHybrid: Mamba2 layers, mamba_chunk_size 256
HYB = dict(max_model_len=32768, fixes=False)


def test_mamba_prefix_caching_all_mode_lands_the_block_on_the_chunk_or_the_flag():
    # 0.15-0.27 'all' mode: block = lcm(chunk, 16) x cdiv(tokens per state, lcm): 256 x cdiv(400, 256) = 512 for the
    # model's chunk; --mamba-block-size 1024 replaces the chunk (platforms/interface.py, models/config.py)
    base = kvplan.fit(GRANITE, "H100", vllm_version="0.18.0", enable_prefix_caching=True, **HYB)
    given = kvplan.fit(GRANITE, "H100", vllm_version="0.18.0", enable_prefix_caching=True, mamba_block_size=1024, **HYB)
    assert min(g.block_size for g in base.groups) == 512
    assert min(g.block_size for g in given.groups) == 1024
    assert any("--mamba-block-size 1024" in a for a in given.assumptions)
    cmd = render_files(spec_from_plan(given))["serve.sh"]
    assert "--mamba-block-size 1024" in cmd


def test_mamba_block_size_moves_nothing_in_align_mode_and_is_refused_without_prefix_caching():
    base = kvplan.fit(GRANITE, "H100", vllm_version="0.33.0", enable_prefix_caching=True, **HYB)
    given = kvplan.fit(GRANITE, "H100", vllm_version="0.33.0", enable_prefix_caching=True, mamba_block_size=1024, **HYB)
    assert given.bytes_per_block == base.bytes_per_block and given.num_gpu_blocks == base.num_gpu_blocks
    assert any("'align' mode sets mamba_block_size" in a for a in given.assumptions)
    with pytest.raises(InputError) as e:  # a hybrid before 0.26 runs without prefix caching unless asked
        kvplan.fit(GRANITE, "H100", vllm_version="0.18.0", mamba_block_size=512, **HYB)
    assert "--mamba-block-size can only be set with --enable-prefix-caching" in str(e.value)
    with pytest.raises(InputError) as e:
        kvplan.fit(GRANITE, "H100", vllm_version="0.11.0", enable_prefix_caching=True, mamba_block_size=512, **HYB)
    assert "first in vLLM 0.11.1" in str(e.value)
    with pytest.raises(InputError):
        kvplan.fit(GRANITE, "H100", enable_prefix_caching=True, mamba_block_size=0, **HYB)


def test_auto_fit_from_0_21_fits_the_overrides_memory():
    p = kvplan.fit(QWEN, "L4", vllm_version="0.33.0", max_model_len=-1, num_gpu_blocks_override=200, fixes=False)
    assert p.fits and p.args.max_model_len == (200 - 1) * 16  # the null block held back (0.29+)
    assert any("reduced from 32768 to 3184" in line and "(0.04 GiB GPU)" in line for line in p.vllm_log)


def test_fit_shows_the_blocks_allocated_beside_the_profiled_pool(monkeypatch, capsys):
    from cli_runner import run_cli

    code, out, _ = run_cli(monkeypatch, capsys, "fit", QWEN, "--gpu", "L4", "--max-model-len", "4096",
                           "--vllm-version", "0.11.0", "--num-gpu-blocks-override", "2000")
    text = " ".join(out.split())
    assert code == 0 and "allocated 0.37 GiB: the 2,000 blocks of --num-gpu-blocks-override" in text
    assert "KV pool 0.37 GiB" in text


def test_a_gdn_hybrid_before_0_15_loses_prefix_caching_and_then_the_flag_is_refused():
    # MambaModelConfig turns prefix caching off for a hybrid without Mamba prefix caching in VllmConfig.__post_init__;
    # the 'after' validator then refuses --mamba-block-size (models/config.py, config/vllm.py, 0.13.0 wheel)
    with pytest.raises(InputError) as e:
        kvplan.fit("Qwen/Qwen3-Next-80B-A3B-Instruct", "H100", vllm_version="0.13.0", tensor_parallel_size=4,
                   enable_prefix_caching=True, mamba_block_size=512, **HYB)
    assert "can only be set with --enable-prefix-caching" in str(e.value) and "turns prefix caching off" in e.value.fix
