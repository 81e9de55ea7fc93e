"""Which architecture names vLLM's `--runner auto` (task 'auto' before 0.10.1) serves as generators, not pooling models.

vLLM resolves a registered architecture through its registry and an unregistered one through its suffix table, where
'ChatModel' and 'LMHeadModel' (generate) come before the bare 'Model' (pooling): `_SUFFIX_TO_DEFAULTS`
(vllm/config/__init__.py in 0.10.2, vllm/config/model.py in 0.11.0 and 0.33.0). Its registry lists GPT2LMHeadModel,
QWenLMHeadModel, JAISLMHeadModel, ChatGLMModel and AquilaModel as text-generation models, and InternVLChatModel,
H2OVLChatModel, UltravoxModel, Qwen2_5OmniModel and MiDashengLMModel as multimodal generators (registry.py,
`_TEXT_GENERATION_MODELS` / `_MULTIMODAL_MODELS`, 0.10.2-0.33.0). A generator's profile run samples: its plan keeps the
lm_head and the sampler's logits, which the blind set's two gpt2 Colab starts (0.6.4.post1) show as ~0.47 GiB of
profile peak over the weights.
"""

import pytest

from kvplan.resolve import normalize, served_as_pooling
from kvplan.validate import predict_record
from named_records import BLIND, records

GPT2_T4 = "gpt2-t4-u050-tp1-l1k-colab-v064"
GPT2_L4 = "gpt2-l4-u050-tp1-l1k-colab-v064"
GIB = 1024 ** 3


@pytest.mark.parametrize("arch", ["GPT2LMHeadModel", "QWenLMHeadModel", "JAISLMHeadModel", "ChatGLMModel",
                                  "AquilaModel", "InternVLChatModel", "H2OVLChatModel", "SkyworkR1VChatModel",
                                  "UltravoxModel", "Qwen2_5OmniModel", "MiDashengLMModel", "LlamaForCausalLM",
                                  "Gemma3ForConditionalGeneration"])
def test_generative_names_are_not_pooling(arch):
    assert served_as_pooling([arch]) is False


@pytest.mark.parametrize("arch", ["BertModel", "XLMRobertaModel", "Qwen2Model", "LlamaModel", "Gemma2Model",
                                  "Qwen2ForRewardModel", "Qwen2ForProcessRewardModel", "BertForSequenceClassification",
                                  "Qwen3ForSequenceClassification"])
def test_pooling_names_stay_pooling(arch):
    assert served_as_pooling([arch]) is True


def test_no_architecture_is_not_pooling():
    assert served_as_pooling([]) is False


def test_gpt2_is_planned_as_a_generator_with_its_sampler():
    # the round's gpt2 config (GPT2LMHeadModel): not a pooling model, so the V0 profile's sampler term is charged:
    # 40 B x 256 sequences x 50,304 padded logits = 0.48 GiB, where V0's profile line leaves 0.71 - 0.24 = 0.47 GiB of
    # peak over the weights on both cards
    recs = records(BLIND, (GPT2_T4, GPT2_L4))
    for rid, rec in recs.items():
        spec = normalize(rec["model"]["config"], model_id="gpt2", source="record")
        assert spec.is_pooling is False, rid
        plan, _ = predict_record(rec)
        assert not any("pooling" in a for a in plan.assumptions), rid
        assert plan.activation_peak_bytes == 40 * 256 * 50304, rid
        logged_peak = 0.71 - rec["observed"]["weights_gib"]
        assert abs(plan.activation_peak_bytes / GIB - logged_peak) < 0.02, rid


# registered pooling architectures with no pooling suffix (registry.py: JinaVLForRanking ->
# JinaVLForSequenceClassification from 0.10.2; HF_ColBERT, ColQwen3 from 0.17.1; ColPaliForRetrieval, JinaForRanking from
# 0.20.0; GritLM and Terratorch embedding models): vLLM's auto runner pools them
@pytest.mark.parametrize("arch", ["JinaVLForRanking", "JinaForRanking", "ColPaliForRetrieval", "ColQwen3", "HF_ColBERT",
                                  "GritLM", "Terratorch"])
def test_registered_rankers_and_retrievers_are_pooling(arch):
    assert served_as_pooling([arch]) is True



def test_a_reranker_on_a_generative_backbone_is_planned_without_a_sampler():
    # JinaForRanking (jina-reranker-v3) over a Qwen-family decoder: the same config named *ForCausalLM is a generator
    # whose profile samples, named as the ranker it is pooled (runner pooling, no sampler term in the peak)
    from kvplan.plan import EngineArgs, plan
    from kvplan.resolve import resolve_gpu, resolve_model

    base = resolve_model("Qwen/Qwen2.5-0.5B-Instruct")
    config = dict(base.raw_config)
    gpu = resolve_gpu("L4")[0]
    args = EngineArgs(max_model_len=4096, vllm_version="0.33.0")
    peaks = {}
    for arch in ("Qwen2ForCausalLM", "JinaForRanking"):
        spec = normalize({**config, "architectures": [arch]}, model_id="ranker", source="test")
        assert spec.is_pooling is (arch == "JinaForRanking")
        p = plan(spec, gpu, args)
        assert p.args.runner_type == ("pooling" if arch == "JinaForRanking" else None)  # None: the default, generate
        peaks[arch] = p.activation_peak_bytes
    assert peaks["JinaForRanking"] < peaks["Qwen2ForCausalLM"]
