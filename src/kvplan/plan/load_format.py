"""--load-format (vLLM's LoadConfig.load_format): which model loader reads the weights.

None of the loaders changes what the weights hold on the GPU: every one loads into the model vLLM built from the
config, quantization and dtype (model_executor/model_loader/, read in the 0.6.4-0.34.0 wheels), so the weights, the
profile run and the KV budget are planned as without the flag, and the plan's notes say so, naming the loader. What a
loader holds on the GPU only while loading (fastsafetensors' file buffers) is not in "Model loading took": that is
torch's allocated memory after the load less before it, each read after torch.cuda.empty_cache() and a peak reset
(DeviceMemoryProfiler, utils/mem_utils.py, and CudaPlatform.get_current_memory_usage, 0.20.0 wheel), and the profile
run's peak is reset after the load. What
the flag does change is which starts vLLM refuses: a value its release does not take (versions.LOAD_FORMATS, with the
text of argparse or of get_model_loader: rules row load_format_refusal), bitsandbytes without its quantization
(rules row bnb_load_format) and gguf on a model that is no GGUF file (rules row gguf_reference_refusal). The weights
bitsandbytes and GGUF put on the GPU are sized where kvplan already sizes them: --quantization bitsandbytes
(resolve.BNB_IN_FLIGHT, weights.py) and a .gguf model (resolve._from_gguf)."""
from __future__ import annotations

from kvplan.errors import RefusedByVLLMError
from kvplan.plan.args import EngineArgs
from kvplan.resolve import ModelSpec
from kvplan.versions import (LOAD_FORMATS, LOAD_FORMATS_OLDEST_READ, VersionRules, canonical_quant, load_formats_at,
                             release_text, rules_for)

# what each loader does with the weights, for the plan's notes (model_executor/model_loader/*.py, 0.6.4-0.34.0)
_HOW = {
    "auto": "safetensors files where the checkpoint has them, else .bin",
    "pt": "the checkpoint's .bin / .pt files only",
    "safetensors": "the checkpoint's .safetensors files only",
    "npcache": ".bin files converted once to numpy files on disk, then read from those",
    "hf": "the Hugging Face-format files, as auto",
    "mistral": "Mistral's consolidated*.safetensors files",
    "instanttensor": "safetensors files read by the instanttensor library",
    "fastsafetensors": ("each rank's safetensors files copied onto the GPU by the fastsafetensors library (GPU Direct "
                        "Storage where there is one) and handed out from those buffers, freed per batch of files "
                        "(weight_utils.fastsafetensors_weights_iterator: copy_files_to_device, fb.close()): the load "
                        "needs room for a batch of files beyond the weights, freed before the profile run"),
    "dummy": "random values in the checkpoint's own shapes and dtypes (initialize_dummy_weights); nothing read from disk",
    "tensorizer": "a tensorizer-serialized file deserialized into the model's tensors",
    "sharded_state": "each rank's own pre-sharded files (written by save_sharded_state)",
    "runai_streamer_sharded": "each rank's own pre-sharded files, streamed by the Run:ai Model Streamer",
    "runai_streamer": "safetensors files streamed by the Run:ai Model Streamer (local disk or object storage) into CPU "
                      "memory, then copied into the model's tensors",
    "modelexpress": "weights received from a ModelExpress server into the model's tensors",
    "ipc_cache": "weights received from another process's GPU memory (CUDA IPC) into the model's tensors",
    "bitsandbytes": "bitsandbytes' loader, as --quantization bitsandbytes picks it: sized by the quantization",
    "gguf": "the GGUF file's quantized tensors, as a .gguf model picks it: sized from the file",
}


def _value(args: EngineArgs, rules: VersionRules) -> str | None:
    """--load-format as the release reads it: lowercased by LoadConfig where argparse no longer holds it to its
    choices (load_format_refusal "loader", 0.10.1+), as given before."""
    v = args.load_format
    if v is None:
        return None
    v = str(v).strip()
    return v.lower() if rules.load_format_refusal == "loader" else v


def _is_gguf(model: ModelSpec) -> bool:
    return model.quant is not None and model.quant.method == "gguf"


def _model_arg(model: ModelSpec) -> str:
    """The model as vllm serve is given it: the local path, else the Hub id."""
    return str(model.local_dir or model.id)


def load_format_refusal(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> None:
    """RefusedByVLLMError, with vLLM's own text, where vLLM `rules.version` refuses --load-format as given: a value it
    does not take, bitsandbytes without its quantization (or that quantization with another load format before
    0.8.2), gguf on a model that is no GGUF file."""
    value = _value(args, rules)
    given_quant = canonical_quant(args.quantization) if args.quantization else None
    if rules.bnb_load_format == "paired" and given_quant == "bitsandbytes" and value not in (None, "bitsandbytes"):
        # (not given: the launch files write --load-format bitsandbytes, load_format_says)
        raise RefusedByVLLMError("--load-format", f"vLLM {rules.version}: \"BitsAndBytes quantization and QLoRA adapter "
                                 f"only support 'bitsandbytes' load format, but got {value}\" (EngineArgs)",
                                 "pass --load-format bitsandbytes with --quantization bitsandbytes (vLLM < 0.8.2 "
                                 "needs both)", rule="bnb_load_format")
    if value is None:
        return
    choices = load_formats_at(rules.release)
    if rules.release >= LOAD_FORMATS_OLDEST_READ and value not in choices:
        if rules.load_format_refusal == "argparse":
            said = (f"argument --load-format: invalid choice: '{value}' (choose from "
                    f"{', '.join(repr(c) for c in choices)})")
        else:
            said = f"Load format `{value}` is not supported"
        known = LOAD_FORMATS.get(value)
        why = ""
        if known is not None and rules.release < known[0]:
            why = f" ({value} is first in vLLM {release_text(known[0])})"
        elif known is not None and known[1] is not None:
            why = f" ({value} was removed in vLLM {release_text(known[1])})"
        raise RefusedByVLLMError("--load-format", f"vLLM {rules.version} does not take --load-format {value}{why}: "
                                 f"\"{said}\"", f"one of {', '.join(choices)}, or leave it out (auto)",
                                 rule="load_format_value")
    quant = canonical_quant(args.quantization or (model.quant.method if model.quant else ""))
    if value == "bitsandbytes" and given_quant != "bitsandbytes":
        if rules.bnb_load_format == "paired":
            raise RefusedByVLLMError("--load-format", f"vLLM {rules.version}: \"BitsAndBytes load format and QLoRA "
                                     "adapter only support 'bitsandbytes' quantization, but got "
                                     f"{given_quant}\" (EngineArgs)",
                                     "pass --quantization bitsandbytes with --load-format bitsandbytes (vLLM < 0.8.2 "
                                     "needs both), or leave --load-format out", rule="bnb_load_format")
        if not quant:  # an unquantized checkpoint: the layers vLLM built have no bitsandbytes method to load into
            raise RefusedByVLLMError("--load-format", f"vLLM {rules.version} builds the model unquantized without "
                                     "--quantization bitsandbytes, and BitsAndBytesModelLoader finds no layer to load "
                                     f"into: \"{rules.bnb_load_format}\" (AssertionError, _get_bnb_target_modules)",
                                     "add --quantization bitsandbytes (4-bit at load), or leave --load-format out",
                                     rule="bnb_load_format")
    if value == "gguf" and not _is_gguf(model):
        raise RefusedByVLLMError("--load-format", f"vLLM {rules.version}'s GGUF loader takes a .gguf file only: \""
                                 + rules.gguf_reference_refusal.format(model=_model_arg(model))
                                 + "\" (GGUFModelLoader._prepare_weights)",
                                 "give the .gguf file as the model (vLLM then picks the GGUF loader itself), or leave "
                                 "--load-format out", rule="gguf_load_format")


def load_format_says(model: ModelSpec, args: EngineArgs, rules: VersionRules) -> list[str]:
    """The plan's notes on --load-format: the loader, and that the weights on the GPU are the same as without it."""
    value = _value(args, rules)
    given_quant = canonical_quant(args.quantization) if args.quantization else None
    if value is None:
        if rules.bnb_load_format == "paired" and given_quant == "bitsandbytes":
            return [f"--quantization bitsandbytes: vLLM {rules.version} refuses it without --load-format bitsandbytes "
                    "(EngineArgs, vLLM < 0.8.2); the launch files write it"]
        return []
    if _is_gguf(model) and value != "gguf":
        return [f"--load-format {value}: vLLM sets load format and quantization to gguf itself for a .gguf model "
                "(EngineArgs check_gguf_file / is_gguf), so GGUFModelLoader loads it; the weights as the file sizes them"]
    if given_quant == "bitsandbytes" and value != "bitsandbytes":
        return [f"--load-format {value}: with --quantization bitsandbytes vLLM {rules.version} sets the load format to "
                "bitsandbytes itself (EngineArgs.create_load_config, vLLM >= 0.8.2); BitsAndBytesModelLoader loads it"]
    loader = LOAD_FORMATS.get(value, (None, None, "its loader"))[2]
    how = _HOW.get(value, "")
    if value in ("bitsandbytes", "gguf"):
        return [f"--load-format {value}: {loader}, {how}"]
    return [f"--load-format {value}: {loader}, {how}; the same weight tensors on the GPU as with auto, so the weights, "
            "the profile run and the KV budget are planned as without it"]


def serve_load_format(given: str | None, quantization: str | None, version: str) -> tuple[str | None, str]:
    """(the --load-format serve.sh writes for vLLM `version`, why): the value given, or bitsandbytes where the release
    needs it beside --quantization bitsandbytes (rules row bnb_load_format "paired")."""
    rules = rules_for(version)
    if given:
        return str(given).strip(), "as given: the loader that reads the weights (the same weights on the GPU)"
    if rules.bnb_load_format == "paired" and quantization == "bitsandbytes":
        return "bitsandbytes", (f"vLLM {rules.version} refuses --quantization bitsandbytes without it (< 0.8.2)")
    return None, ""
