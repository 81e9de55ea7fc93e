"""kvplan as a Python library, used the way a notebook or a CI script uses it: every wrong input is a
kvplan.InputError naming the argument and the fix, never an exception from inside."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_hub import safetensors_bytes
from test_resolve import TINY_CONFIG, tiny_param_count, tiny_tensors

import kvplan
from kvplan import InputError

MODEL = "Qwen/Qwen2.5-0.5B-Instruct"


@pytest.mark.parametrize("kw, field, says", [
    ({"gpu": 16}, "--gpu", "gpu_gib=16"),              # a size where a name goes: the fix names gpu_gib
    ({"gpu": ("L4",)}, "--gpu", "gpu='L4'"),
    ({"gpu_gib": True}, "--gpu-gib", "must be a number"),  # was planned as a 1 GiB card
    ({"gpu_gb": [16]}, "--gpu-gb", "must be a number"),    # was a list repeated 10**9 times (MemoryError)
    ({"gpu_gib": "x"}, "--gpu-gib", "must be a number"),
])
def test_a_gpu_of_the_wrong_type_is_an_input_error(kw, field, says):
    with pytest.raises(InputError) as e:
        kvplan.fit(MODEL, detect_gpu=False, **kw)
    assert e.value.field == field and says in str(e.value)


def test_a_gpu_size_given_as_text_reads_as_the_number():
    """gpu_gib='15' (from a config file or an environment variable) plans the 15 GiB card gpu_gib=15 plans."""
    as_text = kvplan.fit(MODEL, gpu_gib="15", detect_gpu=False, fixes=False)
    as_number = kvplan.fit(MODEL, gpu_gib=15, detect_gpu=False, fixes=False)
    assert as_text.total_bytes == as_number.total_bytes == 15 * 1024 ** 3
    assert as_text.kv_cache_tokens == as_number.kv_cache_tokens


def test_numpy_scalars_plan_as_the_numbers_they_hold():
    """A sweep over a DataFrame or np.arange passes NumPy scalars: they were refused ('must be a whole number, got
    8 (int32)'); each now plans as the Python value it holds, and the plan's JSON stays serialisable."""
    np = pytest.importorskip("numpy")

    as_numpy = kvplan.fit(MODEL, gpu="T4", fixes=False, max_model_len=np.int64(4096), max_num_seqs=np.int32(8),
                          gpu_memory_utilization=np.float64(0.85), enforce_eager=np.bool_(True), gpu_gib=np.float32(15))
    plain = kvplan.fit(MODEL, gpu="T4", fixes=False, max_model_len=4096, max_num_seqs=8,
                       gpu_memory_utilization=0.85, enforce_eager=True, gpu_gib=15)
    assert as_numpy.to_dict() == plain.to_dict()
    json.dumps(as_numpy.to_dict())  # the plan's JSON holds Python numbers
    with pytest.raises(InputError) as e:  # an array is not one value
        kvplan.fit(MODEL, gpu="T4", max_model_len=np.array([4096, 8192]))
    assert e.value.field == "max_model_len"


def test_replan_checks_its_flags_as_fit_does():
    p = kvplan.fit(MODEL, gpu="T4", max_model_len=4096, fixes=False)
    with pytest.raises(InputError) as e:  # was a TypeError from EngineArgs.__init__
        kvplan.replan(p, max_num_seq=8)
    assert e.value.field == "max_num_seq" and "did you mean max_num_seqs?" in str(e.value)
    assert "kvplan.replan" in str(e.value)
    with pytest.raises(InputError) as e:
        kvplan.replan(p, enforce_eager="yes")
    assert e.value.field == "enforce_eager"
    # '16k' as fit reads it (replan refused it: "must be a whole number, got '16k'")
    assert kvplan.replan(p, max_model_len="16K").args.max_model_len == 16384


def test_replan_on_another_gpu_or_model_named_as_fit_names_them():
    """replan(p, gpu='A100 40GB') reached the planner with the string ('str' object has no attribute 'cc'); it now
    plans what fit plans with that GPU (or model) and the same flags."""
    p = kvplan.fit(MODEL, gpu="T4", max_model_len=4096, fixes=False)
    moved = kvplan.replan(p, gpu="A100 40GB")
    direct = kvplan.fit(MODEL, gpu="A100 40GB", max_model_len=4096, fixes=False)
    assert moved.gpu == direct.gpu and moved.kv_cache_tokens == direct.kv_cache_tokens
    other = kvplan.replan(p, model="Qwen/Qwen2.5-1.5B-Instruct")
    assert other.model.id == "Qwen/Qwen2.5-1.5B-Instruct"
    assert other.kv_cache_tokens == kvplan.fit("Qwen/Qwen2.5-1.5B-Instruct", gpu="T4", max_model_len=4096,
                                               fixes=False).kv_cache_tokens
    with pytest.raises(InputError) as e:
        kvplan.replan(p, gpu="T5")
    assert e.value.field == "--gpu"


def _checkpoint(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(TINY_CONFIG))
    (folder / "model.safetensors").write_bytes(safetensors_bytes(tiny_tensors()))
    return folder


def test_a_checkpoint_folder_given_as_a_path(tmp_path):
    """pathlib.Path('/content/model') was refused ("PosixPath(...) names no model"); it reads as its string does."""
    folder = _checkpoint(tmp_path / "ckpt")
    by_path = kvplan.resolve_model(folder)
    assert by_path == kvplan.resolve_model(str(folder))
    assert by_path.checkpoint.total_bytes == tiny_param_count() * 2
    p = kvplan.fit(folder, gpu="T4", max_model_len=2048, fixes=False)
    assert p.weights_exact and p.model.local_dir == str(folder.resolve())
    assert kvplan.replan(p, model=folder).kv_cache_tokens == p.kv_cache_tokens


def test_plan_called_directly_names_what_it_takes():
    """kvplan.plan(resolve_model(...), resolve_gpu(...), ...) passed resolve_gpu's (spec, notes) pair and failed inside
    with "'tuple' object has no attribute 'cc'"; a name or a dict of flags failed alike."""
    m = kvplan.resolve_model(MODEL)
    g = kvplan.resolve_gpu("T4", detect=False)
    cases = [((m, g, None), "gpu", "resolve_gpu(NAME)[0]"), ((MODEL, g[0], None), "model", "resolve_model"),
             ((m, "T4", None), "gpu", "resolve_gpu"), ((m, g[0], {"max_model_len": 4096}), "args", "EngineArgs(**flags)"),
             ((m, g[0], kvplan.EngineArgs(gpu_memory_utilization="0.9")), "--gpu-memory-utilization", "must be a number")]
    for call, field, says in cases:
        with pytest.raises(InputError) as e:
            kvplan.plan(*call)
        assert e.value.field == field and says in str(e.value), call
    # no args: the release's defaults, as EngineArgs() gives them
    assert kvplan.plan(m, g[0]).to_dict() == kvplan.plan(m, g[0], kvplan.EngineArgs()).to_dict()
