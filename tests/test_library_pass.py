"""kvplan as a Python library, used the way a notebook or a CI script uses it: every wrong input is a
kvplan.InputError naming the argument and the fix, never an exception from inside."""

from __future__ import annotations

import dataclasses
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


def _sharded(folder: Path) -> tuple[Path, int]:
    """A two-shard download of the tiny Llama, with model.safetensors.index.json as transformers writes it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(TINY_CONFIG))
    tensors = tiny_tensors()
    names = sorted(tensors)
    shards = {n: f"model-0000{1 + (k >= len(names) // 2)}-of-00002.safetensors" for k, n in enumerate(names)}
    for shard in sorted(set(shards.values())):
        (folder / shard).write_bytes(safetensors_bytes({n: tensors[n] for n in names if shards[n] == shard}))
    total = tiny_param_count() * 2
    (folder / "model.safetensors.index.json").write_text(json.dumps({"metadata": {"total_size": total},
                                                                      "weight_map": shards}))
    return folder, total


def test_a_folder_of_the_json_files_alone_plans_with_the_index_total_size(tmp_path):
    """config.json and model.safetensors.index.json fetched to plan before downloading the weights: refused before
    ("names 2 weight file(s), 2 of them not in the folder"); now the weights are the index's metadata.total_size,
    the bytes the headers give, and the plan says the shards are not there."""
    full, total = _sharded(tmp_path / "full")
    meta_only, _ = _sharded(tmp_path / "meta")
    for shard in meta_only.glob("*.safetensors"):
        shard.unlink()
    from_headers, from_index = kvplan.resolve_model(full), kvplan.resolve_model(meta_only)
    assert from_headers.checkpoint.total_bytes == from_index.checkpoint.total_bytes == total
    assert any("total_size" in n and "vllm serve needs" in n for n in from_index.notes)
    a = kvplan.fit(full, gpu="T4", max_model_len=2048, fixes=False)
    b = kvplan.fit(meta_only, gpu="T4", max_model_len=2048, fixes=False)
    assert a.weights_bytes == b.weights_bytes and a.kv_cache_tokens == b.kv_cache_tokens
    # one shard of two is an unfinished download: still refused, its weights would be undercounted
    (full / "model-00002-of-00002.safetensors").unlink()
    with pytest.raises(InputError) as e:
        kvplan.resolve_model(full)
    assert "finish the download" in e.value.fix


def test_an_index_without_total_size_counts_from_the_architecture_and_says_why(tmp_path):
    folder, _ = _sharded(tmp_path / "m")
    for shard in folder.glob("*.safetensors"):
        shard.unlink()
    index = folder / "model.safetensors.index.json"
    index.write_text(json.dumps({"metadata": {}, "weight_map": json.loads(index.read_text())["weight_map"]}))
    spec = kvplan.resolve_model(folder)
    assert spec.checkpoint is None and any("states no metadata.total_size" in n for n in spec.notes)


def _hf_cache_snapshot(home: Path, repo: str, commit: str, files: dict[str, bytes]) -> Path:
    """The HF cache layout huggingface_hub reads offline: refs/main names the commit, snapshots/<commit> holds the files."""
    root = home / "hub" / ("models--" + repo.replace("/", "--"))
    (root / "refs").mkdir(parents=True)
    (root / "refs" / "main").write_text(commit)
    snap = root / "snapshots" / commit
    snap.mkdir(parents=True)
    for name, blob in files.items():
        (snap / name).write_bytes(blob)
    return snap


def test_hf_hub_offline_reads_the_weights_of_the_snapshot_in_the_hf_cache(tmp_path):
    """With HF_HUB_OFFLINE=1 a model the notebook had downloaded (snapshot_download) was planned from its
    architecture ("safetensors metadata unavailable (OfflineModeIsEnabled)"), though its headers were on disk; they
    are read now, with no request made."""
    import os
    import subprocess
    import sys

    from fake_hub import COMMIT

    home = tmp_path / "hf"
    cfg = json.dumps(TINY_CONFIG).encode()
    _hf_cache_snapshot(home, "acme/notebook-llama", COMMIT,
                       {"config.json": cfg, "model.safetensors": safetensors_bytes(tiny_tensors())})
    _hf_cache_snapshot(home, "acme/config-only", COMMIT, {"config.json": cfg})
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    env.update({"HF_HUB_OFFLINE": "1", "HF_HOME": str(home), "PYTHONPATH": str(Path(kvplan.__file__).parents[1])})
    code = ("import json, kvplan\n"
            "for repo in ('acme/notebook-llama', 'acme/config-only'):\n"
            "    p = kvplan.fit(repo, gpu='T4', max_model_len=2048, fixes=False)\n"
            "    print(json.dumps([p.weights_exact, p.model.checkpoint.total_bytes if p.model.checkpoint else None,"
            " list(p.model.notes)]))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    cached, config_only = (json.loads(line) for line in r.stdout.splitlines())
    assert cached[:2] == [True, tiny_param_count() * 2]
    assert config_only[:2] == [False, None]
    assert any("no weight files in the HF cache" in n for n in config_only[2])


def test_an_llm_call_s_keywords_pasted_whole_plan_as_its_memory_flags_do():
    """vllm.LLM(model, trust_remote_code=True, seed=0, ...) keywords were refused one by one ('trust_remote_code: not
    an argument kvplan.fit takes', then seed, then tokenizer...); the ones that move no GPU memory are taken and named
    in the assumptions, and the plan is the one their memory flags give."""
    llm_kwargs = dict(model="Qwen/Qwen2.5-1.5B-Instruct", gpu_memory_utilization=0.9, max_model_len=8192,
                      tensor_parallel_size=1, quantization=None, kv_cache_dtype="auto", enforce_eager=True,
                      max_num_seqs=64, dtype="half", trust_remote_code=True, seed=0, swap_space=4,
                      tokenizer="Qwen/Qwen2.5-1.5B-Instruct")
    pasted = kvplan.fit(gpu="T4", entrypoint="llm", fixes=False, **llm_kwargs)
    memory_only = {k: v for k, v in llm_kwargs.items() if k not in ("trust_remote_code", "seed", "swap_space", "tokenizer")}
    plain = kvplan.fit(gpu="T4", entrypoint="llm", fixes=False, **memory_only)
    assert pasted.kv_cache_tokens == plain.kv_cache_tokens and pasted.args == plain.args
    assert "not planned with, as they move no GPU memory: seed, swap_space, tokenizer, trust_remote_code" in pasted.assumptions
    # an argument that does move memory kvplan does not model from it is still refused by name
    with pytest.raises(InputError) as e:
        kvplan.fit("Qwen/Qwen2.5-1.5B-Instruct", gpu="T4", max_seq_len_to_capture=8192)
    assert e.value.field == "max_seq_len_to_capture"


ROOT = Path(__file__).resolve().parents[1]


def _run_doctests(text: str, name: str) -> None:
    import doctest

    from kvplan import api

    # as `python -m doctest` runs a docstring: in its module's names (fit's examples call fit and replan unqualified)
    test = doctest.DocTestParser().get_doctest(text, {"fit": api.fit, "replan": api.replan}, name, name, 0)
    assert test.examples, f"{name} shows no example"
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0, f"{name}'s examples do not print what it shows"


def test_the_readme_s_python_section_runs_as_written():
    readme = (ROOT / "README.md").read_text()
    start = readme.index("## From Python")
    section = readme[start:readme.index("\n## ", start + 1)]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]  # the fence is not the last example's output
    _run_doctests(code, "README.md: From Python")


def test_the_docstrings_a_notebook_reads_run_as_written():
    """help(kvplan), help(kvplan.fit) and help(kvplan.replan) show examples whose output is the tool's (fit's had no
    output line, which doctest reads as 'prints nothing')."""
    from kvplan import api

    for obj, name in ((kvplan, "kvplan"), (api.fit, "kvplan.fit"), (api.replan, "kvplan.replan")):
        _run_doctests(obj.__doc__, name)
    for word in ("max_model_len", "entrypoint='llm'", "InputError", "pathlib.Path", "HF_HUB_OFFLINE"):
        assert word in api.fit.__doc__
    for word in ("per rank", "kv_cache_tokens", "max_concurrency", "to_dict()"):
        assert word in kvplan.Plan.__doc__


def test_to_dict_is_the_cli_json_less_its_band():
    """A script that parses `kvplan fit --json` and a notebook that calls p.to_dict() read the same keys and values."""
    import os
    import subprocess
    import sys

    from kvplan.api import uncertainty_band_of

    args = ["meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4", "--max-model-len", "16384"]
    env = {**os.environ, "PYTHONPATH": str(Path(kvplan.__file__).parents[1])}
    r = subprocess.run([sys.executable, "-m", "kvplan.cli", "fit", *args, "--json"], capture_output=True, text=True,
                       env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    cli = json.loads(r.stdout)
    p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", gpu="L4", max_model_len=16384)
    assert cli.pop("uncertainty") == json.loads(json.dumps(uncertainty_band_of(p)))
    assert cli == json.loads(json.dumps(p.to_dict()))


def test_a_plan_shown_in_a_notebook_cell_is_one_line_of_its_verdict():
    """A cell ending with `p` printed the dataclass whole (20,520 characters for Llama-3.1-8B on an L4)."""
    p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", gpu="L4", max_model_len=16384, fixes=False)
    shown = repr(p)
    assert len(shown) < 300 and "\n" not in shown
    assert f"kv_cache_tokens={p.kv_cache_tokens:,}" in shown and "fits=True" in shown and "NVIDIA L4" in shown
    refused = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", gpu="T4", max_model_len=16384)
    assert "fits=False, failure='load'" in repr(refused) and f"fixes={len(refused.fixes)}" in repr(refused)
    two = kvplan.fit("Qwen/Qwen2.5-7B-Instruct", gpu="2x T4", tensor_parallel_size=2, max_model_len=4096, fixes=False)
    assert "on 2 x 'NVIDIA Tesla T4'" in repr(two)
    # data parallelism: two engines, each with the pool shown (the tokens were read as the server's whole)
    dp = kvplan.fit("Qwen/Qwen2.5-7B-Instruct", gpu="2x L4", data_parallel_size=2, max_model_len=4096, fixes=False)
    assert dp.engines == 2 and dp.to_dict()["kv_cache_tokens_all_engines"] == 2 * dp.kv_cache_tokens
    assert f"engines=2 (figures per engine), kv_cache_tokens={dp.kv_cache_tokens:,}" in repr(dp)
    assert "engines=" not in repr(two)
    # a replan looks for no fixes: its repr does not say "fixes=0", which reads as "none exist"
    replanned = kvplan.replan(refused, max_model_len=32768)
    assert not replanned.fits and not replanned.fixes and "fixes=" not in repr(replanned)
    # the seed's arithmetic plans no release's startup, so its repr names none
    seed = kvplan.fit(gpu_gb=16, overhead_gb=1)
    assert "the seed's arithmetic" in repr(seed) and "vLLM" not in repr(seed)


def test_python_callers_get_python_fixes():
    """gpu='auto' was answered only "run `kvplan fit MODEL ... --gpu auto`" (the caller was running fit) and now also
    names the function; vllm_version=0.11 was offered vllm_version='auto', tensor_parallel_size='auto'
    tensor_parallel_size='8K'."""
    with pytest.raises(InputError) as e:
        kvplan.fit(MODEL, gpu="auto")
    assert "kvplan.api.smallest_gpu_and_tp" in e.value.fix
    from kvplan import api

    found = api.smallest_gpu_and_tp(kvplan.resolve_model(MODEL), api.engine_args(max_model_len=4096))
    assert found is not None and found[2].fits  # the call the fix names answers
    with pytest.raises(InputError) as e:
        kvplan.fit(MODEL, gpu="T4", vllm_version=0.11)
    assert "vllm_version='0.11.0'" in e.value.fix
    with pytest.raises(InputError) as e:
        kvplan.fit(MODEL, gpu="T4", tensor_parallel_size="auto")
    assert e.value.fix == "e.g. tensor_parallel_size=1"


@pytest.mark.parametrize("name, wrong", [("rope_theta", "abc"), ("cpu_offload_gb", "abc"), ("gpu_memory_utilization", "abc"),
                                         ("quantization", 4), ("entrypoint", 4), ("dtype", 4), ("runner", 4)])
def test_a_keyword_of_the_wrong_type_is_offered_an_example_it_takes_back(name, wrong):
    """Every number-valued keyword was offered NAME=0.9 (rope_theta=0.9, a rope base of 0.9; cpu_offload_gb=0.9), and
    every text one NAME='auto', which quantization and entrypoint refuse in turn; the example given now plans."""
    from kvplan.api import KEYWORD_EXAMPLES

    with pytest.raises(InputError) as e:
        kvplan.fit(MODEL, gpu="A100 80GB", fixes=False, **{name: wrong})
    example = KEYWORD_EXAMPLES.get(name, "auto")
    assert e.value.field == name and e.value.fix == f"e.g. {name}={example!r}"
    version = {"rope_theta": "0.11.0"}.get(name)  # --rope-theta: 0.5.0-0.11.0
    assert kvplan.fit(MODEL, gpu="A100 80GB", fixes=False, vllm_version=version, **{name: example}).fits


# a notebook's vllm.LLM(...) start as its cell prints it (the non-default args line of a real offline start, vLLM
# 0.18.0 on a V100 32GB: tests/data/blind_records.jsonl qwen2.5-7b-instruct-v100-32gb-udef-tp1-fp16-eager-l32k-llm), in
# colours, with a progress bar and Windows line endings
_NOTEBOOK_START = [
    "\x1b[32mINFO\x1b[0m 08-22 10:00:01 [utils.py:326] non-default args: {'trust_remote_code': True, 'dtype': 'float16', "
    "'disable_log_stats': True, 'enforce_eager': True, 'model': 'Qwen/Qwen2.5-7B-Instruct'}",
    "\x1b[32mINFO\x1b[0m 08-22 10:00:05 [model.py:1510] Using max model len 32768",
    "Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:02<00:02,  1.1s/it]\r"
    "Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:04<00:00,  1.1s/it]",
    "(EngineCore_DP0 pid=812) \x1b[32mINFO\x1b[0m 08-22 10:00:30 [gpu_model_runner.py:2653] Model loading took 14.25 GiB "
    "and 4.5 seconds",
]


def _parsed(lines: list[str]):
    from kvplan.logs import parse_log

    return parse_log("\r\n".join(lines) + "\r\n")


def test_a_notebook_llm_start_is_reconciled_with_vllm_llm_s_defaults():
    """A log of vllm.LLM(...) (its non-default args state disable_log_stats=True, which LLM sets itself, and no API
    server line) was planned as vllm serve, whose token budget is smaller: Qwen2.5-7B on an RTX 4090 at 32,768 under
    0.23 was planned 0.45 GiB short of activation peak, its pool 0.45 GiB too large. The record and the plan now carry
    entrypoint llm, as the ten offline starts among the blind records were marked by hand."""
    from kvplan.api import FitFlags
    from kvplan.reconcile import plan_kwargs_from_log

    log = _parsed(_NOTEBOOK_START)
    assert log.offline_llm and log.to_record()["args"]["entrypoint"] == "llm"
    kwargs = plan_kwargs_from_log(log, FitFlags(gpu="RTX 4090", vllm_version="0.23.0"))
    assert kwargs["entrypoint"] == "llm"
    as_logged = kvplan.fit(kwargs.pop("model", "Qwen/Qwen2.5-7B-Instruct"), fixes=False, **kwargs)
    serve = kvplan.fit("Qwen/Qwen2.5-7B-Instruct", gpu="RTX 4090", vllm_version="0.23.0", max_model_len=32768,
                       dtype="float16", enforce_eager=True, fixes=False)
    assert as_logged.args.max_num_batched_tokens > serve.args.max_num_batched_tokens
    # the same engine lines under vllm serve's front end, or beside its version line, stay vllm serve's
    for server in (["(APIServer pid=7) " + line for line in _NOTEBOOK_START],
                   ["INFO 08-22 10:00:00 [api_server.py:1]  vLLM API server version 0.23.0"] + _NOTEBOOK_START):
        served = _parsed(server)
        assert not served.offline_llm and "entrypoint" not in served.to_record()["args"]
    # nor one whose API server is one of several: `vllm serve --api-server-count N` (or data parallelism) names them
    # ApiServer_0 ... (its failure traceback, "(ApiServer_0 pid=87) Process ApiServer_0:", in logs vLLM users posted)
    several = _NOTEBOOK_START + ["(ApiServer_0 pid=87) Process ApiServer_0:", "(ApiServer_0 pid=87) Traceback (most "
                                "recent call last):"]
    assert not _parsed(several).offline_llm
    # and a notebook start that did not print disable_log_stats (an older vLLM, or disable_log_stats=False) too
    assert not _parsed([_NOTEBOOK_START[0].replace("'disable_log_stats': True, ", "")] + _NOTEBOOK_START[1:]).offline_llm


def test_a_snapshot_download_folder_is_named_by_its_repository(tmp_path):
    """snapshot_download('acme/notebook-llama') returns .../models--acme--notebook-llama/snapshots/COMMIT, which a
    notebook passes to vllm.LLM and to kvplan: the plan was named by the 40-character commit; it is now the repo id."""
    from fake_hub import COMMIT

    snap = _hf_cache_snapshot(tmp_path / "hf", "acme/notebook-llama", COMMIT,
                              {"config.json": json.dumps(TINY_CONFIG).encode(),
                               "model.safetensors": safetensors_bytes(tiny_tensors())})
    p = kvplan.fit(str(snap), gpu="T4", max_model_len=2048, fixes=False)
    assert p.model.id == "acme/notebook-llama" and p.weights_exact and p.to_dict()["model"] == "acme/notebook-llama"
    assert kvplan.resolve_model(snap / "config.json").id == "acme/notebook-llama"
    # a folder merely named like a commit, outside such a layout, keeps its name
    plain = _checkpoint(tmp_path / COMMIT)
    assert kvplan.resolve_model(plain).id == COMMIT


def test_engine_args_names_an_unknown_keyword_as_fit_does():
    """EngineArgs(max_model_length=8192) raised the dataclass's bare TypeError ("unexpected keyword argument"); it is
    now the InputError fit gives a misspelt flag, naming the keyword and the nearest field."""
    with pytest.raises(InputError) as e:
        kvplan.EngineArgs(max_model_length=8192)
    assert e.value.field == "max_model_length" and "did you mean max_model_len?" in str(e.value)
    assert "kvplan.EngineArgs" in str(e.value)
    with pytest.raises(InputError) as fitted:  # the same words as fit's, from one helper
        kvplan.fit(MODEL, gpu="T4", max_model_length=8192)
    assert fitted.value.fix == e.value.fix
    with pytest.raises(InputError) as e:  # nothing near: the flags it takes are listed
        kvplan.EngineArgs(zzz=1)
    assert "max_num_seqs" in e.value.fix
    assert kvplan.EngineArgs(max_model_len=8192).max_model_len == 8192
    with pytest.raises(TypeError):  # too many positional values is still Python's own error
        kvplan.EngineArgs(*range(len(dataclasses.fields(kvplan.EngineArgs)) + 1))


def test_llm_task_keyword_plans_the_runner_it_names_where_the_release_has_it():
    """vllm.LLM(task=...) was refused as unknown. Where the release has it (0.6.4-0.12), embed/classify/score/reward
    plan the pooling runner (as runner='pooling' does), generate/auto the default; from 0.13 vLLM has no task and
    kvplan says what to pass instead."""
    from kvplan.versions import SERVE_FLAG_UNTIL

    gone = SERVE_FLAG_UNTIL["--task"][0]
    last = f"0.{gone[1] - 1}.0"  # the last minor release with task (0.12.0)
    kw = dict(gpu="T4", max_model_len=4096, fixes=False, vllm_version=last)
    plain = kvplan.fit(MODEL, **kw)
    pooled = kvplan.fit(MODEL, runner="pooling", **kw)
    assert pooled.kv_cache_tokens > plain.kv_cache_tokens  # no lm_head or sampler: the task must move the pool
    for task in ("embed", "classify", "score", "reward", "EMBED"):
        as_task = kvplan.fit(MODEL, task=task, **kw)
        assert as_task.kv_cache_tokens == pooled.kv_cache_tokens and as_task.args.runner == "pooling"
        assert any(f"task={task.lower()!r} planned as runner='pooling'" in a for a in as_task.assumptions)
    for task in ("generate", "auto"):
        as_task = kvplan.fit(MODEL, task=task, **kw)
        assert as_task.kv_cache_tokens == plain.kv_cache_tokens
        assert any(f"task={task!r} not planned with" in a for a in as_task.assumptions)
    with pytest.raises(InputError) as e:  # the release that removed it
        kvplan.fit(MODEL, task="embed", **{**kw, "vllm_version": ".".join(map(str, gone))})
    assert e.value.field == "--task" and "runner='pooling'" in e.value.fix and "removed" in e.value.message
    with pytest.raises(InputError) as e:
        kvplan.fit(MODEL, task="embed", **{**kw, "vllm_version": "0.6.3"})  # before vLLM had it
    assert e.value.field == "--task" and "0.6.4" in e.value.message
    with pytest.raises(InputError) as e:
        kvplan.fit(MODEL, task="chat", **kw)
    assert e.value.field == "task" and "embed" in e.value.fix
    with pytest.raises(InputError) as e:  # two answers to one question
        kvplan.fit(MODEL, task="embed", runner="generate", **kw)
    assert e.value.field == "task"


def test_executor_backend_is_taken_as_moving_no_gpu_memory():
    """distributed_executor_backend (an LLM(...) keyword) was refused as unknown; the worker's memory profile does not
    read it, so it is taken, listed with the other such keywords, and a name vLLM does not know is refused."""
    plain = kvplan.fit(MODEL, gpu="T4", max_model_len=4096, fixes=False)
    for backend in ("mp", "ray", "uni"):
        p = kvplan.fit(MODEL, gpu="T4", max_model_len=4096, fixes=False, distributed_executor_backend=backend)
        assert p.kv_cache_tokens == plain.kv_cache_tokens
        assert "not planned with, as they move no GPU memory: distributed_executor_backend" in p.assumptions
    with pytest.raises(InputError) as e:
        kvplan.fit(MODEL, gpu="T4", distributed_executor_backend="rya")
    assert e.value.field == "distributed_executor_backend" and "ray" in e.value.fix
