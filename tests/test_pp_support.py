"""Pipeline parallelism on a model class without SupportsPP: refused per architecture and release as vLLM does
(ModelConfig.verify_with_parallel_config -> ModelRegistry.is_pp_supported_model; data/pp_support.json, read from the
model files of the vLLM wheels by tools/build_pp_support.py)."""

from __future__ import annotations

import io
import zipfile

import pytest

import kvplan
from kvplan.errors import RefusedByVLLMError
from kvplan.plan.defaults import NO_SUPPORTS_PP
from kvplan.resolve import resolve_model
from kvplan.versions import (PUBLISHED_RELEASES, parse_version, pp_support_table, pp_supported_from,
                             pp_unsupported_architecture)
from repo_scripts import load_script

RULE = "pipeline parallelism on a model without SupportsPP"
MAVERICK = "meta-llama/Llama-4-Maverick-17B-128E-Instruct"


def test_llama4_at_0_8_3_is_refused_and_0_8_4_plans():
    """vllm-project/vllm issue 16231 (tests/data/blind_failure_cases.jsonl, fail4-pp-unsupported-llama4-maverick):
    0.8.3 refused Llama 4 Maverick at TP 8 x PP 2 with vLLM's SupportsPP text; 0.8.4's mllama4.py
    Llama4ForConditionalGeneration implements SupportsPP."""
    kw = dict(tensor_parallel_size=8, pipeline_parallel_size=2, max_model_len=8192, fixes=False)
    with pytest.raises(RefusedByVLLMError) as e:
        kvplan.fit(MAVERICK, "16x H100", vllm_version="0.8.3", **kw)
    assert e.value.rule == RULE and NO_SUPPORTS_PP in str(e.value)
    assert "--pipeline-parallel-size 1" in e.value.fix and "vLLM 0.8.4 or newer" in e.value.fix
    p = kvplan.fit(MAVERICK, "16x H100", vllm_version="0.8.4", **kw)
    assert p.args.pipeline_parallel_size == 2


@pytest.mark.parametrize("version, refused", [("0.10.1", True), ("0.10.1.1", True), ("0.10.2", False)])
def test_gpt_oss_gains_supports_pp_in_0_10_2(version, refused):
    """gpt_oss.py GptOssForCausalLM: nn.Module only in the 0.10.1 and 0.10.1.1 wheels, SupportsPP in 0.10.2."""
    kw = dict(pipeline_parallel_size=2, max_model_len=8192, fixes=False, vllm_version=version)
    if refused:
        with pytest.raises(RefusedByVLLMError, match="Supported models implement the `SupportsPP` interface") as e:
            kvplan.fit("openai/gpt-oss-20b", "2x H100", **kw)
        assert e.value.rule == RULE and "vLLM 0.10.2 or newer" in e.value.fix
    else:
        assert kvplan.fit("openai/gpt-oss-20b", "2x H100", **kw).args.pipeline_parallel_size == 2


def test_architectures_with_supports_pp_are_planned_at_pp2():
    for model in ("Qwen/Qwen3-8B", "meta-llama/Llama-3.1-8B-Instruct"):
        for version in ("0.8.5", "0.11.0", "0.33.0", "0.34.0"):
            assert pp_unsupported_architecture(resolve_model(model).architectures, parse_version(version)) is None
    p = kvplan.fit("Qwen/Qwen3-8B", "2x H100", pipeline_parallel_size=2, max_model_len=8192, fixes=False)
    assert p.args.pipeline_parallel_size == 2


def test_the_table_lookup():
    whisper = ("WhisperForConditionalGeneration",)
    assert pp_unsupported_architecture(whisper, (0, 34, 0)) == whisper[0]
    assert pp_unsupported_architecture(whisper, (0, 7, 0)) == whisper[0]
    assert pp_supported_from(whisper[0], (0, 34, 0)) is None  # no release read gives Whisper SupportsPP
    # DeepseekV4ForCausalLM (deepseek_v4.py): nn.Module only in 0.20.0-0.20.2, SupportsPP from 0.21.0
    assert pp_unsupported_architecture(("DeepseekV4ForCausalLM",), (0, 20, 2)) == "DeepseekV4ForCausalLM"
    assert pp_unsupported_architecture(("DeepseekV4ForCausalLM",), (0, 21, 0)) is None
    assert pp_supported_from("DeepseekV4ForCausalLM", (0, 20, 1)) == "0.21.0"
    # unknown and unregistered architectures are left to architecture_refusal
    assert pp_unsupported_architecture(("NoSuchForCausalLM",), (0, 34, 0)) is None
    assert pp_unsupported_architecture(whisper, (0, 6, 3)) is None  # Whisper is registered from 0.7.0
    # vLLM builds the first listed architecture that the release registers
    assert pp_unsupported_architecture(("NoSuchForCausalLM", *whisper), (0, 34, 0)) == whisper[0]
    assert pp_unsupported_architecture(("LlamaForCausalLM", *whisper), (0, 34, 0)) is None


def test_every_published_release_was_read():
    """The table reads each published release's wheel, so no release falls between two reads."""
    assert set(PUBLISHED_RELEASES) <= set(pp_support_table()["versions_read"])


def _builder():
    return load_script("tools/build_pp_support.py")  # (its folder importable: tools/_vllm_registry.py)


_FILES = {
    "vllm/model_executor/models/registry.py": '_TEXT_GENERATION_MODELS = {\n'
        '    "BaseForCausalLM": ("base", "BaseForCausalLM"),\n'
        '    "ChildForCausalLM": ("child", "ChildForCausalLM"),\n'
        '    "PlainForCausalLM": ("plain", "PlainForCausalLM"),\n'
        '    "NoKwForCausalLM": ("plain", "NoKwForCausalLM"),\n'
        '    "KwargsForCausalLM": ("plain", "KwargsForCausalLM"),\n}\n',
    "vllm/model_executor/models/base.py": "from torch import nn\nfrom .interfaces import SupportsPP, SupportsLoRA\n"
        "class BaseForCausalLM(nn.Module, SupportsLoRA, SupportsPP):\n"
        "    def forward(self, input_ids, positions, intermediate_tensors=None):\n        pass\n",
    "vllm/model_executor/models/child.py": "from vllm.model_executor.models.base import BaseForCausalLM\n"
        "class ChildForCausalLM(BaseForCausalLM):\n    pass\n",
    "vllm/model_executor/models/plain.py": "import torch.nn as nn\nfrom .interfaces import SupportsPP\n"
        "class PlainForCausalLM(nn.Module):\n"
        "    def forward(self, input_ids, positions, intermediate_tensors=None):\n        pass\n"
        "class NoKwForCausalLM(nn.Module, SupportsPP):\n    def forward(self, input_ids, positions):\n        pass\n"
        "class KwargsForCausalLM(nn.Module, SupportsPP):\n    def forward(self, input_ids, **kwargs):\n        pass\n",
}


def test_the_builder_reads_supports_pp_through_the_bases(tmp_path):
    wheel = tmp_path / "vllm-9.9.9-cp38-abi3-manylinux1_x86_64.whl"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, text in _FILES.items():
            z.writestr(name, text)
    wheel.write_bytes(buf.getvalue())
    table = _builder().build([str(wheel)])
    # SupportsPP inherited from another model file passes; a class without it, or whose forward takes no
    # intermediate_tensors (interfaces.py supports_pp's supports_kw; **kwargs accepts it), does not
    assert table["versions_read"] == ["9.9.9"]
    assert table["architectures"] == {"NoKwForCausalLM": {"without_pp": [["9.9.9", "9.9.9"]]},
                                      "PlainForCausalLM": {"without_pp": [["9.9.9", "9.9.9"]]}}
