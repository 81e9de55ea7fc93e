"""When vLLM's hybrid state-block refusal applies under speculative decoding (plan.state_blocks_refusal,
_spec_decode_piecewise; versions rows spec_decode_piecewise_*).

vLLM raises "max_num_seqs (N) exceeds available Mamba cache blocks (M)" only while FULL decode CUDA graphs survive
config/compilation.py resolve_cudagraph_mode_and_sizes; with speculative decoding that function downgrades them to
PIECEWISE when an attention backend of the model lacks UNIFORM_BATCH graph support, and the check never runs."""

from __future__ import annotations

import json
import subprocess

import pytest

import kvplan
from kvplan.plan import EngineArgs, KVGroup, _full_graph_sizes, state_blocks_refusal
from kvplan.versions import rules_for

MTP3 = '{"method": "mtp", "num_speculative_tokens": 3}'
# Qwen3.5-27B on one H100 at half its context: the pool holds fewer state blocks than the default 1,024 sequences (at
# the full 262,144 the newest rules refuse the length first, model runner v2's sampler state leaving the pool short)
HALF = 131072
NGRAM3 = '{"method": "ngram", "num_speculative_tokens": 3}'
# two RTX 3090s serving the NVFP4 Qwen3.6-27B at its full context, as the club-3090 recipes do, with more sequences
# than the pool's blocks; the checkpoint declares an fp8 KV cache (noonghunna/club-3090 #584 logs the downgrade)
QWEN36_3090 = dict(tensor_parallel_size=2, max_model_len=262144, max_num_seqs=512)


def _skip_note(p):
    return [a for a in p.assumptions if "not refused: with speculative decoding" in a]


def _backend_warning(p):
    return [w for w in p.warnings if "with speculative decoding: refused as vLLM does" in w]


def test_mtp_on_hopper_keeps_the_refusal_and_warns_of_the_backend():
    """FlashAttention (the default on an H100) supports uniform multi-token decode graphs: FULL graphs stay, vLLM
    refuses; kvplan says which backend choice would change that."""
    p = kvplan.fit("Qwen/Qwen3.5-27B", "H100", max_model_len=131072, speculative_config=MTP3)
    assert p.args.max_num_seqs == 1024 and 0 < p.num_gpu_blocks < 1024
    assert not p.fits and p.failure == "state_blocks"
    assert p.error.startswith(f"max_num_seqs (1024) exceeds available Mamba cache blocks ({p.num_gpu_blocks}).")
    (warning,) = _backend_warning(p)
    assert "--attention-backend" in warning and "PIECEWISE" in warning and "#49547" in warning
    assert not _skip_note(p)
    # without speculative decoding the refusal is certain: no warning
    plain = kvplan.fit("Qwen/Qwen3.5-27B", "H100", max_model_len=131072)
    assert plain.failure == "state_blocks" and not _backend_warning(plain)
    # an fp8 KV cache on Hopper is FlashAttention's (FA3) too: still refused
    fp8 = kvplan.fit("Qwen/Qwen3.5-27B", "H100", max_model_len=131072, kv_cache_dtype="fp8", speculative_config=MTP3)
    assert fp8.failure == "state_blocks" and not _skip_note(fp8)


def test_the_check_counts_sequences_not_speculative_tokens():
    """The refusal compares max_num_seqs with the blocks whatever num_speculative_tokens is (one state block per
    sequence; the decode dispatcher caps its sizes at max_num_seqs x (1 + k))."""
    seen = set()
    for n in (256, 321, 340, 360, 400, 512):
        p = kvplan.fit("Qwen/Qwen3.5-27B", "H100", max_model_len=131072, speculative_config=MTP3, max_num_seqs=n)
        assert (p.failure == "state_blocks") == (n > p.num_gpu_blocks), n
        assert p.failure in (None, "state_blocks")
        seen.add(p.fits)
        if p.fits:  # n sequences of 1 + 3 tokens each would need more blocks than there are: not what vLLM checks
            assert n * 4 > p.num_gpu_blocks
    assert seen == {True, False}


@pytest.mark.parametrize("version", ["0.20.0", "0.24.0", "0.32.0"])
def test_fp8_kv_on_ampere_with_mtp_starts_piecewise_up_to_0_32(version):
    p = kvplan.fit("nvidia/Qwen3.6-27B-NVFP4", "RTX 3090", vllm_version=version, speculative_config=MTP3, **QWEN36_3090)
    assert p.args.kv_cache_dtype == "fp8" and 0 < p.num_gpu_blocks < 512
    assert p.fits and p.failure is None and p.error is None
    (note,) = _skip_note(p)
    assert "FlashInfer" in note and "PIECEWISE" in note and f"max_num_seqs (512) above the {p.num_gpu_blocks}" in note
    # the downgrade needs speculative decoding: the same flags without it are refused
    plain = kvplan.fit("nvidia/Qwen3.6-27B-NVFP4", "RTX 3090", vllm_version=version, **QWEN36_3090)
    assert plain.failure == "state_blocks" and not _skip_note(plain)


def test_fp8_kv_on_ampere_is_refused_again_from_0_33():
    """0.33.0's FlashInfer reports UNIFORM_BATCH below SM90 (native fa2 decode): FULL graphs, the check runs."""
    p = kvplan.fit("nvidia/Qwen3.6-27B-NVFP4", "RTX 3090", vllm_version="0.33.0", speculative_config=MTP3, **QWEN36_3090)
    assert p.failure == "state_blocks" and not _skip_note(p) and _backend_warning(p)


def test_bf16_kv_on_ampere_with_mtp_is_refused():
    """A bfloat16 KV cache on an A100 is FlashAttention's (FA2, UNIFORM_BATCH): FULL graphs stay with MTP."""
    p = kvplan.fit("Qwen/Qwen3.5-27B", "A100-80GB", max_model_len=131072, vllm_version="0.24.0", speculative_config=MTP3,
                   max_num_seqs=1024)
    assert p.num_gpu_blocks < p.args.max_num_seqs and p.failure == "state_blocks" and not _skip_note(p)
    fp8 = kvplan.fit("Qwen/Qwen3.5-27B", "A100-80GB", max_model_len=131072, vllm_version="0.24.0",
                     speculative_config=MTP3, kv_cache_dtype="fp8", max_num_seqs=1024)
    assert fp8.num_gpu_blocks < fp8.args.max_num_seqs and fp8.fits and _skip_note(fp8)


def test_linear_attention_hybrid_with_spec_decode_is_not_refused():
    """MiniMax's linear-attention builder supports single-token decode graphs only: any speculative decoding leaves
    PIECEWISE graphs; GDN and Mamba builders support uniform batches and keep the refusal."""
    rules = rules_for("0.20.0")
    page = 1 << 20
    groups = [KVGroup("full", 10, 16, page), KVGroup("recurrent", 70, 16, page, recurrent_kind="linear")]
    args = EngineArgs(max_num_seqs=256, speculative_config=NGRAM3)
    notes: list[str] = []
    warns: list[str] = []
    assert state_blocks_refusal(groups, 100, args, rules, None, notes, warns) is None
    assert len(notes) == 1 and "linear" in notes[0] and "PIECEWISE" in notes[0] and not warns
    # without speculative decoding, or with GDN layers, vLLM refuses
    assert state_blocks_refusal(groups, 100, EngineArgs(max_num_seqs=256), rules).startswith("max_num_seqs (256)")
    gdn = [groups[0], KVGroup("recurrent", 70, 16, page, recurrent_kind="gdn")]
    assert state_blocks_refusal(gdn, 100, args, rules, None, notes, warns).startswith("max_num_seqs (256)")
    assert len(warns) == 1
    # enough blocks: nothing to refuse or note
    assert state_blocks_refusal(groups, 256, args, rules, None, notes, warns) is None and len(notes) == 1
    # 0.19 had no check at all
    assert state_blocks_refusal(gdn, 100, args, rules_for("0.19.1")) is None


def test_cli_fit_with_speculative_config():
    r = subprocess.run(["kvplan", "fit", "Qwen/Qwen3.5-27B", "--gpu", "H100", "--max-model-len", "131072",
                        "--speculative-config", MTP3, "--json"], capture_output=True, text=True, timeout=120)
    d = json.loads(r.stdout)
    assert r.returncode == 1 and d["fits"] is False
    assert any("with speculative decoding: refused as vLLM does" in w for w in d["warnings"])
    r = subprocess.run(["kvplan", "fit", "nvidia/Qwen3.6-27B-NVFP4", "--gpu", "RTX 3090", "-tp", "2", "--max-num-seqs",
                        "512", "--vllm-version", "0.32.0", "--speculative-config", MTP3, "--json"],
                       capture_output=True, text=True, timeout=120)
    d = json.loads(r.stdout)
    assert r.returncode == 0 and d["fits"] is True
    assert any("not refused: with speculative decoding" in a for a in d["assumptions"])


@pytest.mark.parametrize("mode", ["PIECEWISE", "none"])
def test_compilation_config_without_full_graphs_is_not_refused(mode):
    """--compilation-config cudagraph_mode PIECEWISE or NONE captures no FULL decode graphs: vLLM does not check."""
    p = kvplan.fit("Qwen/Qwen3.5-27B", "H100", max_model_len=HALF, compilation_config=json.dumps({"cudagraph_mode": mode}))
    assert p.args.max_num_seqs == 1024 and 0 < p.num_gpu_blocks < 1024
    assert p.fits and p.failure is None
    assert any(f"cudagraph_mode {mode.upper()} captures no FULL decode graphs" in a for a in p.assumptions)
    still_charged = [w for w in p.warnings if "CUDA-graph memory per layer and capture size is still the one fitted" in w]
    assert bool(still_charged) == (mode == "PIECEWISE")  # NONE captures nothing, and is planned so


def test_cudagraph_mode_none_plans_no_graph_memory_as_enforce_eager_does():
    """cudagraph_mode NONE: vLLM captures no CUDA graphs, so none of their memory is charged and no capture line is
    predicted; PIECEWISE still captures: the default's PIECEWISE graphs without its FULL decode graphs (model runner v2,
    v1/worker/gpu/cudagraph_utils.py CudaGraphManager._init_candidates, 0.33.0 wheel: 1 MiB each past the two sampled)."""
    args = dict(max_model_len=8192)
    none = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", compilation_config={"cudagraph_mode": "NONE"}, **args)
    piecewise = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", compilation_config={"cudagraph_mode": "PIECEWISE"}, **args)
    default = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", **args)
    eager = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", enforce_eager=True, **args)
    assert default.cudagraph_bytes > piecewise.cudagraph_bytes > 0 and default.cudagraphs["model_runner"] == "v2"
    full = _full_graph_sizes(default.cudagraphs["capture_sizes"], default.args.max_num_seqs)
    assert default.cudagraph_bytes - piecewise.cudagraph_bytes == pytest.approx((full - 2) * 1024 ** 2, abs=2)
    assert none.cudagraph_bytes == eager.cudagraph_bytes == 0 and none.cudagraph_capture_bytes == 0 < piecewise.cudagraph_capture_bytes
    assert none.num_gpu_blocks == eager.num_gpu_blocks >= default.num_gpu_blocks
    assert not any("Graph capturing finished" in line for line in none.vllm_log)
    assert any("Graph capturing finished" in line for line in piecewise.vllm_log)


@pytest.mark.parametrize("mode", ["FULL_AND_PIECEWISE", "FULL_DECODE_ONLY", "FULL"])
def test_compilation_config_with_full_graphs_is_refused(mode):
    p = kvplan.fit("Qwen/Qwen3.5-27B", "H100", max_model_len=HALF, compilation_config={"cudagraph_mode": mode})
    assert p.failure == "state_blocks"
    # other keys alone leave the release's default mode
    q = kvplan.fit("Qwen/Qwen3.5-27B", "H100", max_model_len=HALF, compilation_config='{"max_cudagraph_capture_size": 256}')
    assert q.failure == "state_blocks" and q.args.cudagraph_mode is None


@pytest.mark.parametrize("value,needle", [('{"cudagraph_mode": "FULLY"}', "unknown cudagraph_mode"), ("3", "JSON object"),
                                          ("{cudagraph_mode", "not JSON")])
def test_compilation_config_errors_name_the_field(value, needle):
    from kvplan.errors import InputError

    with pytest.raises(InputError, match="--compilation-config") as exc:
        kvplan.fit("Qwen/Qwen3.5-27B", "H100", compilation_config=value)
    assert needle in str(exc.value)
    r = subprocess.run(["kvplan", "fit", "Qwen/Qwen3.5-27B", "--gpu", "H100", "--compilation-config", value],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--compilation-config" in r.stderr and "Traceback" not in r.stderr


def test_compilation_config_goes_into_the_serve_command():
    from kvplan.deploy import render_files, spec_from_plan

    p = kvplan.fit("Qwen/Qwen3.5-27B", "H100", compilation_config={"cudagraph_mode": "PIECEWISE"})
    spec = spec_from_plan(p)
    flags = {f.name: f.value for f in spec.flags}
    assert flags["--compilation-config"] == '{"cudagraph_mode":"PIECEWISE"}'
    assert "--compilation-config" in render_files(spec)["serve.sh"]
