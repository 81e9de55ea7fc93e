"""A team serving one base model with many LoRA adapters and/or a speculative drafter: what kvplan plans for the
flags that team passes, checked against vLLM's source release by release (each test names the files read)."""

from __future__ import annotations

import json

import pytest

import kvplan
from kvplan.errors import InputError
from kvplan.resolve import resolve_model

GIB = 1024 ** 3
NEXT = "Qwen/Qwen3-Next-80B-A3B-Instruct"


def test_qwen3_next_mtp_serves_the_one_layer_vllm_builds():
    # Qwen3-Next-80B-A3B's config declares neither num_nextn_predict_layers nor mtp_num_hidden_layers; Qwen3NextMTP
    # reads num_nextn_predict_layers with default 1 (models/qwen3_next_mtp.py 0.10.2-0.33.0), so the model card's
    # --speculative-config '{"method":"qwen3_next_mtp","num_speculative_tokens":2}' starts with one MTP layer
    assert resolve_model(NEXT).mtp_layers == 1
    base = kvplan.fit(NEXT, gpu="H200", tensor_parallel_size=4, max_model_len=32768, vllm_version="0.33.0")
    for version in ("0.10.2", "0.33.0"):
        p = kvplan.fit(NEXT, gpu="H200", tensor_parallel_size=4, max_model_len=32768, vllm_version=version,
                       speculative_config='{"method": "qwen3_next_mtp", "num_speculative_tokens": 2}')
        assert p.fits and p.speculative["method"] == "mtp"
        assert any("1 MTP layer(s) draft 2 token(s)" in n for n in p.assumptions)
        if version == "0.33.0":
            # one full-attention decoder layer with its 512 experts, the fc and norms: 0.77 GiB a rank
            assert 0.7 * GIB < p.weights_bytes - base.weights_bytes < 0.85 * GIB


def _lora_gib(model, version, **kw):
    p = kvplan.fit(model, gpu="H100", max_model_len=8192, vllm_version=version, enable_lora=True, max_loras=8,
                   max_lora_rank=64, **kw)
    note = next(n for n in p.assumptions if n.startswith("--enable-lora:"))
    return p, note


def test_lora_embedding_and_lm_head_slots_only_where_the_class_lists_them():
    # lora/utils.py get_supported_lora_modules takes the class's embedding_modules: Qwen2ForCausalLM lists none
    # (0.10.2-0.33.0), so 8 x rank 64 wraps no 152,064-row embedding or lm_head: 2 x 8 x (152,064 + 3,584) x 64 x 2 B
    qwen2, note = _lora_gib("Qwen/Qwen2.5-7B-Instruct", "0.33.0")
    llama, llama_note = _lora_gib("meta-llama/Llama-3.1-8B-Instruct", "0.33.0")
    assert "not the embedding nor lm_head" in note and "embedding and lm_head" in llama_note
    plain = kvplan.fit("Qwen/Qwen2.5-7B-Instruct", gpu="H100", max_model_len=8192, vllm_version="0.33.0")
    slots = qwen2.weights_bytes - plain.weights_bytes
    layers = 28 * 8 * 64 * 2 * (3 * 3584 + 3584 + 512 + 512 + 3584 + 3584 + 2 * 3584 + 2 * 18944 + 18944 + 3584)
    assert slots == layers  # the decoder layers' slots alone
    # MistralForCausalLM is Llama's class through 0.14.0 and its own, listing none, from 0.15.0; Qwen3 lists both from
    # 0.16.0 (models/mistral.py, qwen3.py in the 0.14.0, 0.15.0 and 0.16.0 wheels)
    m14, _ = _lora_gib("mistralai/Mistral-7B-Instruct-v0.3", "0.14.0")
    m15, n15 = _lora_gib("mistralai/Mistral-7B-Instruct-v0.3", "0.15.0")
    assert m14.weights_bytes - m15.weights_bytes == 8 * 64 * 2 * (2 * 32768 + 2 * 4096) and "MistralForCausalLM lists neither" in n15
    q15, _ = _lora_gib("Qwen/Qwen3-8B", "0.15.0")
    q16, n16 = _lora_gib("Qwen/Qwen3-8B", "0.16.0")
    assert q16.weights_bytes - q15.weights_bytes == 8 * 64 * 2 * (2 * 151936 + 2 * 4096) and "embedding and lm_head)" in n16


MOE = "Qwen/Qwen3-30B-A3B"


def _moe(version, **kw):
    return kvplan.fit(MOE, gpu="H100", max_model_len=8192, vllm_version=version, enable_lora=True, max_loras=8,
                      max_lora_rank=64, **kw)


def test_max_cpu_loras_is_taken_and_checked_as_lora_config_checks_it():
    # --max-cpu-loras (engine/arg_utils.py 0.4.2-0.33.0) was refused by every command ('No such option'); LoRAConfig
    # refuses fewer than max_loras (config/lora.py, 0.10.2 and 0.33.0: "max_cpu_loras (4) must be >= max_loras (8)")
    p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", gpu="L40S", max_model_len=8192, enable_lora=True, max_loras=8,
                   max_lora_rank=64, max_cpu_loras=32)
    assert p.fits and p.args.max_cpu_loras == 32
    with pytest.raises(InputError) as e:
        kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", gpu="L40S", enable_lora=True, max_loras=8, max_cpu_loras=4)
    assert e.value.field == "--max-cpu-loras" and "--max-cpu-loras 8" in e.value.fix
    # without --enable-lora vLLM builds no LoRAConfig (EngineArgs.create_engine_config, 0.6.4 / 0.11.1 / 0.33.0 wheels):
    # the settings are ignored, unchecked, and said; the plan is the one without them
    ignored = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", gpu="L40S", max_model_len=8192, max_loras=8, max_cpu_loras=4)
    plain = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", gpu="L40S", max_model_len=8192)
    assert ignored.kv_cache_tokens == plain.kv_cache_tokens and ignored.fits
    assert any(w.startswith("--max-loras 8, --max-cpu-loras 4 without --enable-lora: vLLM ignores them")
               for w in ignored.warnings)


def test_lora_target_modules_put_slots_on_the_named_modules_only():
    # LoRAConfig.target_modules (--lora-target-modules, 0.19.0+): lora/model_manager.py _match_target_modules wraps
    # only the modules named. Qwen3-30B-A3B's 128 experts x 48 layers take 8 x rank 64 x 3 x (2048 + 768) x 2 B a layer:
    # attention alone leaves them out
    every = _moe("0.33.0")
    attn = _moe("0.33.0", lora_target_modules="qkv_proj,o_proj")
    assert not every.fits and attn.fits
    plain = kvplan.fit(MOE, gpu="H100", max_model_len=8192, vllm_version="0.33.0")
    h, q, kv = 2048, 32 * 128, 4 * 128
    assert attn.weights_bytes - plain.weights_bytes == 48 * 8 * 64 * 2 * (3 * h + q + 2 * kv + q + h)
    # from 0.20.0 a packed layer is matched by its children's names too (is_in_target_modules' packed mapping)
    assert _moe("0.20.0", lora_target_modules="q_proj,k_proj,v_proj,o_proj").weights_bytes == \
        _moe("0.20.0", lora_target_modules="qkv_proj,o_proj").weights_bytes
    # 0.19.0 matches the last name part only: q_proj wraps nothing, and the plan warns
    p19 = _moe("0.19.0", lora_target_modules="q_proj,k_proj,v_proj,o_proj")
    assert p19.weights_bytes - plain.weights_bytes < attn.weights_bytes - plain.weights_bytes
    assert any("wrap nothing" in w and "qkv_proj" in w for w in p19.warnings)
    with pytest.raises(InputError) as e:
        _moe("0.18.0", lora_target_modules="qkv_proj")
    assert e.value.field == "--lora-target-modules" and "0.19.0" in e.value.fix
    with pytest.raises(InputError) as e:
        _moe("0.33.0", lora_target_modules="mlp_head")
    assert e.value.field == "--lora-target-modules" and "qkv_proj" in e.value.fix


def test_lora_flags_reach_serve_sh_and_reconcile():
    from kvplan.deploy import spec_from_plan
    from kvplan.logs import parse_lines
    from kvplan.reconcile import plan_kwargs_from_log

    argv = spec_from_plan(_moe("0.33.0", lora_target_modules="qkv_proj,o_proj", max_cpu_loras=32)).serve_argv()
    i = argv.index("--lora-target-modules")
    assert argv[i + 1:i + 3] == ["qkv_proj", "o_proj"]  # nargs="+": one argument per name
    assert argv[argv.index("--max-cpu-loras") + 1] == "32"
    log = parse_lines(["INFO 01-01 00:00:00 [__init__.py:1] vLLM version 0.33.0",
                       "INFO 01-01 00:00:00 [utils.py:1] non-default args: {'model': 'Qwen/Qwen3-30B-A3B', "
                       "'enable_lora': True, 'max_loras': 8, 'max_lora_rank': 64, 'max_cpu_loras': 32, "
                       "'lora_target_modules': ['qkv_proj', 'o_proj']}"])
    kw = plan_kwargs_from_log(log)
    assert kw["lora_target_modules"] == ["qkv_proj", "o_proj"] and kw["max_cpu_loras"] == 32


def test_lora_slots_that_stop_the_load_are_named_with_their_fixes():
    # 8 x rank 64 on Qwen3-30B-A3B (experts and router) is 50.69 GiB of the 107.57 GiB a rank loads: the error says so,
    # and the fixes shrink the slots (they offered FP8 and bigger hardware only)
    p = _moe("0.33.0")
    assert p.failure == "load" and "50.69 GiB of them are the LoRA slots, 8 x rank 64" in p.error
    fixes = {f.name: f for f in p.fixes}
    attn = fixes["LoRA slots on attention only"]
    assert attn.flags == {"lora_target_modules": "qkv_proj,o_proj"} and attn.fits
    assert fixes["fewer LoRA adapters per batch"].flags == {"max_loras": 1}
    assert fixes["a lower LoRA rank"].flags == {"max_lora_rank": 8}
    # a fix is what it says: the plan with it starts
    assert _moe("0.33.0", lora_target_modules="qkv_proj,o_proj").fits
    assert kvplan.fit(MOE, gpu="H100", max_model_len=8192, vllm_version="0.33.0", enable_lora=True, max_loras=1,
                      max_lora_rank=64).fits
    # before --lora-target-modules (0.18.0) that fix is not offered
    assert "LoRA slots on attention only" not in {f.name for f in _moe("0.18.0").fixes}


NGRAM = '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 3}'
CAPACITY = ("--gpu", "L40S", "--max-model-len", "8192", "--workload", "azure-conv", "--slo", "ttft=2s,tpot=100ms",
            "-n", "150")


def test_capacity_says_what_its_step_model_leaves_out(monkeypatch, capsys):
    # simulate noted that speculative decoding and LoRA's matmuls are not in the step model; capacity, which bisects
    # over the same simulations, printed a rate with a drafter configured and said nothing (its --json notes were [])
    from cli_runner import run_cli

    args = ("capacity", "meta-llama/Llama-3.1-8B-Instruct", *CAPACITY, "--speculative-config", NGRAM, "--enable-lora")
    code, out, err = run_cli(monkeypatch, capsys, *args)
    assert "note: speculative decoding (ngram, 3 tokens) is not in the step model" in err.replace("\n", " ")
    assert "note: LoRA: the slots' memory is in the plan" in err.replace("\n", " ")
    code, out, err = run_cli(monkeypatch, capsys, *args, "--json")
    notes = json.loads(out)["notes"]
    assert any(n.startswith("speculative decoding (ngram") for n in notes) and any(n.startswith("LoRA:") for n in notes)
    code, out, err = run_cli(monkeypatch, capsys, *args, "--vary", "gpu_memory_utilization=0.8,0.9", "--json")
    rows = json.loads(out)["rows"] if isinstance(json.loads(out), dict) else json.loads(out)
    assert all(any(n.startswith("speculative decoding") for n in r["notes"]) for r in rows)


def test_draft_tensor_parallel_size_is_read_as_vllm_reads_it(tmp_path):
    # was ignored: a draft model at "draft_tensor_parallel_size": 1 under a TP-4 target planned as starting, which
    # v1/spec_decode/draft_model.py refuses (0.15.0-0.33.0); a value other than 1 or TP is refused by
    # SpeculativeConfig._verify_and_get_draft_tp (0.10.2, 0.33.0); an EAGLE head loads at the target's TP regardless.
    # Pinned at 0.30.0, the last release whose default runner for a draft model is model runner v1 (the refusal is
    # v1's DraftModelProposer; 0.31-0.33's model runner v2 does not refuse: test_draft_model_tp_refused_on_runner_v1_only)
    from kvplan.errors import RefusedByVLLMError

    draft = tmp_path / "qwen3-0.6b"
    draft.mkdir()
    (draft / "config.json").write_text(json.dumps(resolve_model("Qwen/Qwen3-0.6B").raw_config))

    def fit(extra: dict, model="Qwen/Qwen3-32B", method="draft_model", path=str(draft), **kw):
        spec = dict({"method": method, "model": path, "num_speculative_tokens": 4}, **extra)
        return kvplan.fit(model, gpu="H100", tensor_parallel_size=4, max_model_len=16384, vllm_version="0.30.0",
                          speculative_config=json.dumps(spec), **kw)

    assert fit({}).fits and fit({"draft_tensor_parallel_size": 4}).fits
    with pytest.raises(RefusedByVLLMError, match="must be the same. Got 1 and 4") as e:
        fit({"draft_tensor_parallel_size": 1})
    assert e.value.field == "--speculative-config" and '"draft_tensor_parallel_size": 4' in e.value.fix
    with pytest.raises(RefusedByVLLMError, match="cannot be other value than 1 or target"):
        fit({"draft_tensor_parallel_size": 3})
    head = tmp_path / "head3"
    head.mkdir()
    (head / "config.json").write_text(json.dumps({
        "architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama", "hidden_act": "silu", "hidden_size": 4096,
        "intermediate_size": 14336, "max_position_embeddings": 2048, "num_attention_heads": 32,
        "num_key_value_heads": 8, "num_hidden_layers": 1, "rms_norm_eps": 1e-05, "vocab_size": 128256,
        "draft_vocab_size": 32000}))
    e3 = fit({"draft_tensor_parallel_size": 1}, model="meta-llama/Llama-3.1-8B-Instruct", method="eagle3", path=str(head))
    assert e3.fits and any("draft_tensor_parallel_size 1 is not applied" in n for n in e3.assumptions)
    same = fit({}, model="meta-llama/Llama-3.1-8B-Instruct", method="eagle3", path=str(head))
    assert e3.weights_bytes == same.weights_bytes  # the head split over TP 4 either way
    # MTP layers are a draft model config too (the target checkpoint's): __post_init__ runs the same
    # _verify_and_get_draft_tp (config/speculative.py 0.33.0), and the layers load at the target's TP
    mtp = dict(gpu="H200", tensor_parallel_size=8, max_model_len=8192)
    with pytest.raises(RefusedByVLLMError, match="cannot be other value than 1 or target"):
        kvplan.fit("deepseek-ai/DeepSeek-V3", speculative_config=json.dumps(
            {"method": "mtp", "num_speculative_tokens": 1, "draft_tensor_parallel_size": 3}), **mtp)
    one = kvplan.fit("deepseek-ai/DeepSeek-V3", speculative_config=json.dumps(
        {"method": "mtp", "num_speculative_tokens": 1, "draft_tensor_parallel_size": 1}), **mtp)
    assert one.fits and any("draft_tensor_parallel_size 1 is not applied" in n for n in one.assumptions)


def test_mtp_without_num_speculative_tokens_takes_vllms_default(tmp_path):
    # SpeculativeConfig.__post_init__ defaults num_speculative_tokens to the drafter's n_predict, the MTP layer count
    # the config declares (config/__init__.py 0.10.2, config/speculative.py 0.33.0), where "model" names the checkpoint;
    # without "model" and without a count it builds no draft config and _verify_args refuses the start
    # ("num_speculative_tokens must be provided with speculative model unless the draft model config contains an
    # n_predict parameter", 0.10.2, 0.20.0, 0.27.0, 0.33.0)
    p = kvplan.fit("deepseek-ai/DeepSeek-V3", gpu="H200", tensor_parallel_size=8, max_model_len=32768,
                   speculative_config='{"method": "deepseek_mtp", "model": "deepseek-ai/DeepSeek-V3"}')
    assert p.fits and p.speculative["num_speculative_tokens"] == 1
    assert any(n.startswith("num_speculative_tokens 1: vLLM's default for MTP") for n in p.assumptions)
    with pytest.raises(InputError, match="num_speculative_tokens must be provided with speculative model") as e:
        kvplan.fit("deepseek-ai/DeepSeek-V3", gpu="H200", tensor_parallel_size=8, max_model_len=32768,
                   speculative_config='{"method": "deepseek_mtp"}')
    assert '"num_speculative_tokens": 1' in e.value.fix and '"model": "deepseek-ai/DeepSeek-V3"' in e.value.fix
    # Qwen3-Next's config declares no count: vLLM refuses ("A speculative model was provided, but
    # `num_speculative_tokens` was not provided"), though its drafter builds one layer when the count is given
    with pytest.raises(InputError, match="num_speculative_tokens` was not provided") as e:
        kvplan.fit(NEXT, gpu="H200", tensor_parallel_size=4, max_model_len=32768,
                   speculative_config='{"method": "qwen3_next_mtp", "model": "%s"}' % NEXT)
    assert e.value.field == "--speculative-config" and '"num_speculative_tokens": 1' in e.value.fix
    # a count above n_predict must be a multiple of it ("num_speculative_tokens:3 must be divisible by n_predict=2")
    raw = dict(resolve_model("deepseek-ai/DeepSeek-V3").raw_config, num_nextn_predict_layers=2)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(raw))
    kw = dict(gpu="H200", tensor_parallel_size=8, max_model_len=32768)
    with pytest.raises(InputError, match="divisible by n_predict=2") as e:
        kvplan.fit(str(path), speculative_config='{"method": "mtp", "num_speculative_tokens": 3}', **kw)
    assert "num_speculative_tokens 2 or 4" in e.value.fix
    assert kvplan.fit(str(path), speculative_config='{"method": "mtp", "num_speculative_tokens": 4}', **kw).fits


def test_sweep_varies_the_lora_slots(monkeypatch, capsys):
    # 'kvplan sweep --vary max_loras=1,2,4,8' was refused ("cannot vary 'max_loras'"): the slots' count and rank are
    # what a multi-adapter server trades against its KV pool
    from cli_runner import run_cli

    code, out, err = run_cli(monkeypatch, capsys, "sweep", MOE, "--gpu", "H100", "--max-model-len", "8192",
                             "--enable-lora", "--vary", "max_loras=1..8", "--vary", "max_lora_rank=16,64", "--json")
    rows = json.loads(out)["rows"] if isinstance(json.loads(out), dict) else json.loads(out)
    got = {(r["max_loras"], r["max_lora_rank"]): r for r in rows}
    assert sorted(got) == [(n, r) for n in (1, 2, 4, 8) for r in (16, 64)]
    # 1 x 64 and 4 x 16 are the same slots (rank x count), and more slots leave less pool
    assert got[(1, 64)]["kv_cache_tokens"] == got[(4, 16)]["kv_cache_tokens"]
    assert got[(1, 16)]["kv_cache_tokens"] > got[(2, 16)]["kv_cache_tokens"] > got[(4, 16)]["kv_cache_tokens"]
    assert not got[(8, 64)]["fits"] and got[(1, 16)]["fits"]


def test_moe_lora_slots_under_fully_sharded_loras_and_expert_parallelism():
    # lora/layers/fused_moe.py: per local expert w13 A 2 x (rank | rank/TP fully sharded) x H, w2 A rank x I_part,
    # w13 B 2 x I_part x rank, w2 B (H | H/TP fully sharded) x rank (0.12.0+); under EP (0.21.0+) E / ep local
    # experts at the whole intermediate size; before 0.21 EP is refused ("EP support for Fused MoE LoRA is not
    # implemented yet."), and from 0.21 EP with --fully-sharded-loras
    from kvplan.errors import RefusedByVLLMError

    def moe(version, **kw):
        return kvplan.fit(MOE, gpu="H100", max_model_len=8192, vllm_version=version, tensor_parallel_size=4,
                          enable_lora=True, max_loras=8, max_lora_rank=64, **kw)

    h, i, r, e, layers, tp = 2048, 768, 64, 128, 48, 4
    per = lambda a_rank, inter, b_hidden: 2 * a_rank * h + r * inter + 2 * inter * r + b_hidden * r  # noqa: E731
    full = moe("0.33.0")
    sharded = moe("0.33.0", fully_sharded_loras=True)
    moe_fs = layers * 8 * 2 * e * (per(r, i // tp, h) - per(r // tp, i // tp, h // tp))
    dense_fs = full.weights_bytes - sharded.weights_bytes - moe_fs
    assert 0 <= dense_fs < 0.05 * moe_fs  # the attention layers' own fully-sharded saving besides the experts'
    # 0.11.1 reads no fully_sharded_loras for the experts
    assert moe("0.11.1").weights_bytes - moe("0.11.1", fully_sharded_loras=True).weights_bytes == dense_fs
    ep = moe("0.33.0", enable_expert_parallel=True)
    plain_ep = kvplan.fit(MOE, gpu="H100", max_model_len=8192, vllm_version="0.33.0", tensor_parallel_size=4,
                          enable_expert_parallel=True)
    plain = kvplan.fit(MOE, gpu="H100", max_model_len=8192, vllm_version="0.33.0", tensor_parallel_size=4)
    experts_tp = layers * 8 * 2 * e * per(r, i // tp, h)
    experts_ep = layers * 8 * 2 * (e // tp) * per(r, i, h)
    assert (full.weights_bytes - plain.weights_bytes) - (ep.weights_bytes - plain_ep.weights_bytes) == experts_tp - experts_ep
    with pytest.raises(RefusedByVLLMError, match="EP support for Fused MoE LoRA is not implemented yet") as e20:
        moe("0.20.0", enable_expert_parallel=True)
    assert e20.value.field == "--enable-expert-parallel" and "0.21.0" in e20.value.fix
    with pytest.raises(RefusedByVLLMError, match="together with fully_sharded_loras=True"):
        moe("0.33.0", enable_expert_parallel=True, fully_sharded_loras=True)


def test_moe_router_and_shared_expert_take_lora_slots():
    # the router (ReplicatedLinear / GateLinear) and a shared expert's Linear layers are wrapped like any Linear
    # (lora/utils.py get_supported_lora_modules; models/qwen3_moe.py, llama4.py 0.33.0): they had no slots
    def slots(model, **kw):
        with_lora = kvplan.fit(model, gpu="H200", tensor_parallel_size=8, max_model_len=8192, enable_lora=True,
                               max_loras=8, max_lora_rank=64, **kw)
        return with_lora.weights_bytes - kvplan.fit(model, gpu="H200", tensor_parallel_size=8, max_model_len=8192).weights_bytes

    r, tp, n = 64, 8, 8 * 2  # rank, TP, 8 slots x 2 B
    # Llama-4-Scout: 48 MoE layers, 16 experts, hidden 5,120, one shared expert of 8,192
    scout = "meta-llama/Llama-4-Scout-17B-16E-Instruct"
    router = r * (5120 + 16)
    shared = 2 * r * 5120 + r * 2 * 8192 // tp + r * 8192 // tp + 5120 * r
    assert slots(scout) - slots(scout, lora_target_modules="qkv_proj,o_proj,experts") == 48 * n * (router + shared)
    assert slots(scout, lora_target_modules="router") == 48 * n * router  # Llama 4 names it router
    # Qwen3-30B-A3B: a router of 128 experts, no shared expert
    assert slots(MOE, lora_target_modules="gate") == 48 * n * r * (2048 + 128)


def test_lora_on_a_class_without_lora_support_is_refused_as_vllm_refuses_it():
    # GptOssForCausalLM implements SupportsLoRA from 0.12.0 (models/gpt_oss.py; not in 0.10.2's or 0.11.0's), and
    # vLLM refuses --enable-lora before ("GptOssForCausalLM does not support LoRA yet.", lora_model_runner_mixin.py);
    # kvplan planned 8 adapters' slots on it
    from kvplan.errors import RefusedByVLLMError

    def fit(version):
        return kvplan.fit("openai/gpt-oss-20b", gpu="H100", max_model_len=8192, vllm_version=version, enable_lora=True)

    with pytest.raises(RefusedByVLLMError, match="GptOssForCausalLM does not support LoRA yet") as e:
        fit("0.11.0")
    assert e.value.field == "--enable-lora" and "--vllm-version 0.12.0" in e.value.fix
    assert fit("0.12.0").fits and not any("LoRA support" in w for w in fit("0.12.0").warnings)
    assert any("lies between the releases read" in w for w in fit("0.11.1").warnings)  # 0.11.1 was not read


def test_moe_lora_refused_with_round_robin_expert_placement_from_0_34():
    # lora/layers/fused_moe.py FusedMoEWithLoRA._ep_check (0.34.0 wheel) refuses an EP placement other than linear;
    # the 0.33.0 wheel has no such check and loads each rank's adapter experts as a contiguous range
    # (lora/model_manager.py). The placement stays round_robin only with EP over several ranks, num_expert_group > 1
    # and no data parallelism (fused_moe/expert_map_manager.py determine_expert_placement_strategy, both wheels).
    # GLM-4.5 routes over n_group 1; --hf-overrides gives it 8 groups, which Glm4MoeForCausalLM passes to FusedMoE
    from kvplan.errors import RefusedByVLLMError

    glm, grouped = "zai-org/GLM-4.5", '{"n_group": 8}'

    def plan(version, **kw):
        kw = {"tensor_parallel_size": 8, "enable_expert_parallel": True, "enable_lora": True,
              "expert_placement_strategy": "round_robin", "hf_overrides": grouped, **kw}
        return kvplan.fit(glm, gpu="H200", max_model_len=32768, vllm_version=version, **kw)

    with pytest.raises(RefusedByVLLMError, match="Fused MoE LoRA with EP requires linear expert placement") as e34:
        plan("0.34.0")
    assert e34.value.field == "--expert-placement-strategy" and "got 'round_robin'" in str(e34.value)
    # the same round-robin start under 0.33.0 starts, warned, with the LoRA slots of the linear placement
    old = plan("0.33.0")
    linear = plan("0.33.0", expert_placement_strategy=None)
    assert old.fits and old.weights_bytes == linear.weights_bytes and old.kv_cache_tokens == linear.kv_cache_tokens
    assert any("contiguous range" in w for w in old.warnings)
    assert not any("contiguous range" in w for w in linear.warnings)
    # linear placement, no LoRA, or a fallback to linear: no refusal in 0.34
    assert plan("0.34.0", expert_placement_strategy="linear").fits
    assert plan("0.34.0", enable_lora=False).fits
    with_dp = plan("0.34.0", tensor_parallel_size=4, data_parallel_size=2)
    assert with_dp.fits and any("allgather_reducescatter" in n for n in with_dp.assumptions)
    one_group = plan("0.34.0", hf_overrides=None)
    assert one_group.fits and any("1 expert group" in n for n in one_group.assumptions)
    # experts sliced by TP (no EP): round_robin is never in effect
    assert plan("0.34.0", enable_expert_parallel=False).fits
    # a class kvplan has not read passing the groups: said, not refused
    qwen = kvplan.fit(MOE, gpu="H100", tensor_parallel_size=4, max_model_len=8192, vllm_version="0.34.0", enable_lora=True,
                      enable_expert_parallel=True, expert_placement_strategy="round_robin", hf_overrides=grouped)
    assert qwen.fits and any("has not read whether" in w for w in qwen.warnings)


def test_expert_placement_strategy_flag_is_checked():
    # ParallelConfig.expert_placement_strategy: absent from the 0.10.2 wheel, in 0.11.0's; values linear, round_robin
    with pytest.raises(InputError) as old:
        kvplan.fit(MOE, gpu="H100", max_model_len=8192, vllm_version="0.10.2", tensor_parallel_size=2,
                   enable_expert_parallel=True, expert_placement_strategy="round_robin")
    assert old.value.field == "--expert-placement-strategy"
    with pytest.raises(InputError, match="unknown placement"):
        kvplan.fit(MOE, gpu="H100", max_model_len=8192, expert_placement_strategy="striped")
    assert kvplan.fit(MOE, gpu="H100", max_model_len=8192, vllm_version="0.11.0", tensor_parallel_size=2,
                      enable_expert_parallel=True, expert_placement_strategy="round_robin").fits
