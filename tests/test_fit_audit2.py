"""Second audit of `kvplan fit` / `sweep` / the Python API: warnings a sweep must carry, data parallelism shown,
inputs refused with one clear line."""

from __future__ import annotations

import json
import os
import subprocess

import pytest


import kvplan
from kvplan.errors import InputError


def run(*args):
    return subprocess.run(["kvplan", *args], capture_output=True, text=True, timeout=120)


# ---- sweep carries fit's warnings


def test_sweep_shows_each_rows_warnings_once_saying_which_rows():
    r = run("sweep", "Qwen/Qwen3-8B", "--vary", "gpu=A100,2x A100")
    assert r.returncode == 0, r.stderr
    out = " ".join(r.stdout.split())
    # the variant choice concerns both rows and is printed once; the unused GPU only the 2x row
    assert out.count("names cards with") == 1 and "warning (all rows): GPU 'A100' names cards" in out
    assert "warning (gpu=2x A100): '2x A100' names 2 GPUs, but vLLM uses 1" in out


def test_sweep_json_carries_warnings_per_row_as_fit_does():
    r = run("sweep", "Qwen/Qwen3-8B", "--vary", "gpu=A100,2x A100", "--json")
    rows = json.loads(r.stdout)["rows"]
    for row in rows:
        assert row["warnings"] == [str(w) for w in kvplan.fit("Qwen/Qwen3-8B", row["gpu"], fixes=False).warnings]
    assert len(rows[0]["warnings"]) == 1 and len(rows[1]["warnings"]) == 2


def test_a_sweeps_refused_rows_say_why():
    """A refused row read 'no' beside a pool and a concurrency above 1x (a hybrid's state blocks below max_num_seqs)
    with nothing saying why: its reason is printed under the table, each row named, and is in --json as fit's error.
    At 0.9: at the default 0.92 the 262,144 row's pool (16.52 GiB, V1-f's non-torch constant 0.15) now holds the one
    request (16.46 GiB) and both rows are refused for the state blocks; 0.9 keeps the two reasons apart (14.34 GiB,
    283 state blocks of 832 tokens, 300 of 800 before GDN's 64-token checkpoint grid; 14.89 GiB and 312 before model
    runner v2's graph estimate charged 0.25 MiB x 64 layers x sizes)."""
    r = run("sweep", "Qwen/Qwen3.5-27B", "--gpu", "H100", "--gpu-memory-utilization", "0.9", "--vary", "max_model_len=32768,262144")
    assert r.returncode == 1, r.stderr  # no row starts: "does not fit", as fit's exit code says it
    out = " ".join(r.stdout.split())
    assert "does not start (max_model_len=32,768): max_num_seqs (1024) exceeds available Mamba cache blocks (283)" in out
    assert "does not start (max_model_len=262,144): To serve at least one request" in out
    assert "kvplan fit with a refused row's flags lists its nearest fixes" in out
    rows = json.loads(run("sweep", "Qwen/Qwen3.5-27B", "--gpu", "H100", "--gpu-memory-utilization", "0.9", "--vary", "max_model_len=32768,262144",
                          "--json").stdout)["rows"]
    for row in rows:
        p = kvplan.fit("Qwen/Qwen3.5-27B", "H100", fixes=False, max_model_len=row["max_model_len"],
                       gpu_memory_utilization=0.9)
        assert not row["fits"] and row["error"] == p.error and row["failure"] == p.failure
    assert rows[0]["failure"] == "state_blocks"
    # --csv carries the reason as --json does
    import csv
    import io
    table = list(csv.DictReader(io.StringIO(run("sweep", "Qwen/Qwen3.5-27B", "--gpu", "H100", "--gpu-memory-utilization", "0.9", "--vary",
                                                "max_model_len=32768,262144", "--csv").stdout)))
    assert [(r["failure"], r["error"]) for r in table] == [(row["failure"], row["error"]) for row in rows]
    ok = json.loads(run("sweep", "Qwen/Qwen3-8B", "--gpu", "H100", "--vary", "max_model_len=4096", "--json").stdout)["rows"]
    assert ok[0]["fits"] and ok[0]["error"] is None and ok[0]["failure"] is None
    assert "does not start" not in run("sweep", "Qwen/Qwen3-8B", "--gpu", "H100", "--vary", "max_model_len=4096").stdout


def test_sweep_varies_quantization_as_fit_plans_each_method():
    """--vary quantization=awq,awq_marlin was refused ('cannot vary'), though an AWQ checkpoint's two kernels plan
    differently (the plain one's float16 weight copy up to 0.23); each row is fit's plan with that --quantization, and
    a method the checkpoint is not is that row's error."""
    common = ("Qwen/Qwen2.5-72B-Instruct-AWQ", "--gpu", "A100-80GB", "--vllm-version", "0.20.0",
              "--tensor-parallel-size", "2", "--max-model-len", "32768")
    r = run("sweep", *common, "--vary", "quantization=awq,awq_marlin,gptq", "--json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)["rows"]
    assert [row["quantization"] for row in rows] == ["awq", "awq_marlin", "gptq"]
    for row in rows[:2]:
        p = kvplan.fit(common[0], "A100-80GB", vllm_version="0.20.0", tensor_parallel_size=2, max_model_len=32768,
                       quantization=row["quantization"], fixes=False)
        assert row["kv_cache_bytes"] == p.kv_cache_bytes
    assert rows[0]["kv_cache_bytes"] < rows[1]["kv_cache_bytes"]  # the plain kernel's weight copy
    assert "not gptq" in rows[2]["error_input"]


def test_sweep_range_written_high_to_low_runs_downwards():
    r = run("sweep", "Qwen/Qwen3-8B", "--gpu", "H100", "--vary", "max_model_len=32768..4096", "--json")
    assert r.returncode == 0, r.stderr
    assert [row["max_model_len"] for row in json.loads(r.stdout)["rows"]] == [32768, 16384, 8192, 4096]


def test_sweep_range_of_non_positive_lengths_is_refused_not_looped():
    r = run("sweep", "Qwen/Qwen3-8B", "--gpu", "H100", "--vary", "max_model_len=-1..4096")
    assert r.returncode == 2 and "--vary" in r.stderr and "positive" in r.stderr


def test_sweep_table_whose_first_row_is_an_error_still_prints():
    r = run("sweep", "Qwen/Qwen3-8B", "--gpu", "H100", "--vary", "max_model_len=65536..16384")
    assert r.returncode == 0, r.stderr
    assert "internal error" not in r.stderr and "2.00×" in r.stdout  # ratios against the first row that planned


def test_sweep_prints_a_refused_rows_error_whole_under_the_table():
    # the README's example: Qwen3-8B's limit is 40,960, so 65,536 and 131,072 are refused; the error (with its fix)
    # was squeezed into the ratio column, a few characters a line, and the row's length printed without separators
    r = run("sweep", "Qwen/Qwen3-8B", "--gpu", "L4", "--vary", "max_model_len=4096..131072")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    row = next(line for line in lines if "65,536" in line and "│" in line)
    assert "error" in row and "see below" in row
    out = " ".join(r.stdout.split())
    assert ("error (max_model_len=65,536): --max-model-len: User-specified max_model_len (65536) is greater than the "
            "derived max_model_len") in out
    assert out.count("use --max-model-len 40960 or less") == 2  # once for each refused length, not cut


def test_sweep_prints_an_error_two_rows_share_once_naming_both():
    r = run("sweep", "--vary", "max_model_len=32768,65536", "--vary", "gpu=T4,L4")
    assert r.returncode == 0, r.stderr
    out = " ".join(r.stdout.split())
    assert "error (max_model_len=65,536, gpu=T4; max_model_len=65,536, gpu=L4): --max-model-len:" in out
    assert out.count("User-specified max_model_len") == 1


def test_sweep_names_a_warnings_rows_as_its_errors_and_leaves_an_unloaded_rows_pool_blank():
    # a warning's rows read 'max_model_len=16384' beside the errors' 'max_model_len=65,536'; and a row whose weights
    # do not load (Qwen3-8B on a T4) showed a pool of -3.09 GiB, 0 tokens and 0.00x, figures no startup reaches
    r = run("sweep", "Qwen/Qwen3-8B", "--vary", "max_model_len=16384,32768", "--vary", "gpu=T4,L4")
    assert r.returncode == 0, r.stderr
    out = " ".join(r.stdout.split())
    assert "warning (max_model_len=16,384, gpu=L4): a first start compiles" in out
    t4 = [line.split("│")[3:-1] for line in r.stdout.splitlines() if line.startswith("│") and "T4" in line]
    assert len(t4) == 2 and all([c.strip() for c in cells] == ["no", "—", "—", "—", "—"] for cells in t4)
    assert "CUDA out of memory while loading the model weights" in out  # why, under the table


def test_sweep_ratios_are_against_the_first_row_whose_pool_holds_a_request():
    # at 0.3 the pool is negative (0x): every ratio printed '—', the 0.99 and 0.95 rows' included
    r = run("sweep", "Qwen/Qwen3-8B", "--gpu", "L4", "--max-model-len", "8192",
            "--vary", "gpu_memory_utilization=0.3,0.99,0.95")
    assert r.returncode == 0, r.stderr
    rows = {line.split("│")[1].strip(): line.split("│")[-2].strip() for line in r.stdout.splitlines() if line.startswith("│")}
    assert rows["0.3"] == "0.00×" and rows["0.99"] == "1.00×" and rows["0.95"].endswith("×") and rows["0.95"] != "1.00×"


def test_sweep_over_models_shows_a_model_the_hub_cannot_supply_as_its_rows_error(tmp_path):
    # an unknown GPU is its row's error; an unknown model (a HubError, not an InputError) stopped the whole sweep
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}
    r = subprocess.run(["kvplan", "sweep", "--gpu", "L4", "--max-model-len", "8192",
                        "--vary", "model=Qwen/Qwen3-8B,foo/bar,Qwen/Qwen3-4B"],
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    out = " ".join(r.stdout.split())
    assert "error (model=foo/bar): model:" in out and "Qwen/Qwen3-4B │ yes" in out


# ---- data parallelism is visible


def test_fit_table_shows_the_gpus_of_all_engines_and_numbers_per_engine():
    r = run("fit", "Qwen/Qwen3-30B-A3B", "--gpu", "H100", "-dp", "2")
    out = " ".join(r.stdout.replace("│", " ").split())
    assert "H100 80GB SXM5 × 2 (TP 1 × PP 1 × DP 2)" in out
    assert "· DP 2 ·" in out
    p = kvplan.fit("Qwen/Qwen3-30B-A3B", "H100", data_parallel_size=2, fixes=False)
    assert f"tokens {p.kv_cache_tokens:,} per engine (of 2; {2 * p.kv_cache_tokens:,} in all)" in out
    assert f"{p.max_concurrency:.2f}x at 40,960 tokens per request per engine (of 2; {2 * p.max_concurrency:.2f}x in all)" in out


def test_fit_json_says_which_numbers_are_per_engine():
    d = json.loads(run("fit", "Qwen/Qwen3-30B-A3B", "--gpu", "H100", "-dp", "2", "--json").stdout)
    assert d["gpus_used"] == 2 and d["engines"] == 2
    assert {"kv_cache_tokens", "max_concurrency"} <= set(d["per_engine"])
    assert d["kv_cache_tokens_all_engines"] == 2 * d["kv_cache_tokens"]
    one = json.loads(run("fit", "Qwen/Qwen3-30B-A3B", "--gpu", "H100", "--json").stdout)
    assert one["engines"] == 1 and one["gpus_used"] == 1 and one["kv_cache_tokens_all_engines"] == one["kv_cache_tokens"]


# ---- inputs refused with one clear line


@pytest.mark.parametrize("flag,value", [("--gpu-gib", "inf"), ("--gpu-gib", "nan"), ("--gpu-gb", "inf"), ("--gpu-gb", "nan")])
def test_gpu_size_that_is_no_number_is_an_input_error(flag, value):
    r = run("fit", "Qwen/Qwen3-8B", flag, value)
    assert r.returncode == 2 and "internal error" not in r.stderr
    assert f"{flag}: GPU memory must be a positive finite number" in r.stderr


def test_unknown_quantization_method_names_vllms_list():
    with pytest.raises(InputError) as e:
        kvplan.fit("Qwen/Qwen3-8B", "H100", quantization="foo", fixes=False)
    text = str(e.value)
    assert text.startswith("--quantization: unknown quantization method 'foo' for vLLM 0.33.0 (known: ")
    assert "gptq_marlin" in text and "FOO checkpoint" not in text
    # the list is the release's: bitsandbytes is in 0.12.0's and gone from 0.33.0's
    kvplan.fit("Qwen/Qwen3-8B", "H100", quantization="bitsandbytes", vllm_version="0.12.0", fixes=False)
    with pytest.raises(InputError, match="no longer has quantization method 'bitsandbytes'"):
        kvplan.fit("Qwen/Qwen3-8B", "H100", quantization="bitsandbytes", fixes=False)


def test_zero_gpus_in_the_name_is_refused_like_num_gpus_0():
    r = run("fit", "Qwen/Qwen3-8B", "--gpu", "0x H100")
    assert r.returncode == 2 and "--gpu: '0x H100' names no GPUs" in r.stderr


def test_a_release_newer_than_kvplan_knows_is_a_visible_warning():
    from kvplan.versions import NEWEST_READ

    p = kvplan.fit("Qwen/Qwen3-8B", "H100", vllm_version="9.9", fixes=False)
    assert any(w.startswith(f"kvplan's rules stop at vLLM {NEWEST_READ}; planned with {NEWEST_READ}'s rules") for w in p.warnings)
    assert not any("rules stop" in w for w in kvplan.fit("Qwen/Qwen3-8B", "H100", fixes=False).warnings)


# ---- the Python API checks its arguments


@pytest.mark.parametrize("kw,needle", [
    ({"enforce_eager": "no"}, "enforce_eager: must be True or False, got 'no' (str)"),
    ({"enable_prefix_caching": 1}, "enable_prefix_caching: must be True or False"),
    ({"gpu_memory_utilization": [0.9]}, "gpu_memory_utilization: must be a number, got [0.9] (list)"),
    ({"tensor_parallel_size": 2.5}, "tensor_parallel_size: must be a whole number, got 2.5 (float)"),
    ({"kv_cache_dtype": 8}, "kv_cache_dtype: must be a string, got 8 (int)"),
    ({"max_model_len": "auto"}, "max_model_len: 'auto' asks for the largest length"),
    ({"max_model_length": 4096}, "max_model_length: not an argument kvplan.fit takes (did you mean max_model_len?)"),
])
def test_api_refuses_a_wrong_argument_naming_it(kw, needle):
    with pytest.raises(InputError) as e:
        kvplan.fit("Qwen/Qwen3-8B", "H100", fixes=False, **kw)
    assert needle in str(e.value)


def test_api_reads_strings_as_vllm_serve_reads_its_command_line():
    p = kvplan.fit("Qwen/Qwen3-8B", "H100", fixes=False, gpu_memory_utilization="0.9", max_model_len="32k", tensor_parallel_size="2")
    q = kvplan.fit("Qwen/Qwen3-8B", "H100", fixes=False, gpu_memory_utilization=0.9, max_model_len=32000, tensor_parallel_size=2)
    assert (p.args.gpu_memory_utilization, p.args.max_model_len, p.args.tensor_parallel_size) == (0.9, 32000, 2)
    assert p.kv_cache_tokens == q.kv_cache_tokens


def _config_dir(tmp_path, **changes):
    import json
    base = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
            "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256,
            "max_position_embeddings": 8192, "torch_dtype": "bfloat16"}
    base.update(changes)
    for k in [k for k, v in changes.items() if v is None]:
        del base[k]
    (tmp_path / "config.json").write_text(json.dumps(base))
    return str(tmp_path)


@pytest.mark.parametrize("changes,field", [
    (dict(num_hidden_layers=32.5), "num_hidden_layers"),
    (dict(num_key_value_heads=64), "num_key_value_heads"),
    (dict(num_key_value_heads=5), "num_key_value_heads"),
    (dict(num_key_value_heads=0), "num_key_value_heads"),
    (dict(hidden_size=-4096), "hidden_size"),
    (dict(intermediate_size=-1), "intermediate_size"),
    (dict(vocab_size="many"), "vocab_size"),
])
def test_a_malformed_config_is_an_error_naming_its_field(tmp_path, changes, field):
    from kvplan.errors import ConfigError
    with pytest.raises(ConfigError) as e:
        kvplan.fit(_config_dir(tmp_path, **changes), "H100", detect_gpu=False, fixes=False, max_model_len=4096)
    assert e.value.field == field


def test_a_well_formed_config_with_whole_floats_still_plans(tmp_path):
    p = kvplan.fit(_config_dir(tmp_path, num_hidden_layers=32.0, head_dim=128), "H100", detect_gpu=False, fixes=False,
                   max_model_len=4096)
    assert p.model.num_layers == 32 and p.kv_bytes_per_token == 2 * 32 * 8 * 128 * 2


@pytest.mark.parametrize("args", [
    ["sweep", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "L4", "--max-model-len", "auto", "--vary", "gpu_memory_utilization=0.8,0.9"],
    ["simulate", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "L4", "--max-model-len", "auto", "-w", "azure-conv", "-n", "20"],
])
def test_auto_length_outside_fit_is_one_clear_error(args):
    import subprocess
    r = subprocess.run(["kvplan", *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--concurrency" in r.stderr and "kvplan fit" in r.stderr and not r.stdout.strip()


def test_infinite_concurrency_is_an_error():
    import subprocess
    r = subprocess.run(["kvplan", "fit", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "L4", "--max-model-len", "auto",
                        "--concurrency", "inf"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--concurrency" in r.stderr and "internal error" not in r.stderr


def test_a_catalog_config_without_architectures_takes_transformers_class_for_its_model_type():
    # the catalog's Granite 4.0-H and Falcon-H1 excerpts leave "architectures" out; vLLM reads the checkpoint's own
    from kvplan.api import uncertainty_band_of
    p = kvplan.fit("ibm-granite/granite-4.0-h-tiny", "L4", detect_gpu=False, fixes=False)
    assert p.model.architectures == ("GraniteMoeHybridForCausalLM",) and uncertainty_band_of(p) is not None
    old = kvplan.fit("ibm-granite/granite-4.0-h-tiny", "L4", detect_gpu=False, fixes=False, vllm_version="0.7.3")
    assert not old.fits and "GraniteMoeHybridForCausalLM" in old.error


def test_max_num_batched_tokens_reads_as_vllm_serve_reads_it():
    import subprocess
    r = subprocess.run(["kvplan", "fit", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "L4", "--max-model-len", "8192",
                        "--max-num-batched-tokens", "8K", "--json"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    import json
    assert json.loads(r.stdout)["args"]["max_num_batched_tokens"] == 8192


def test_a_sweep_whose_every_row_fails_alike_is_the_error_itself():
    import subprocess
    r = subprocess.run(["kvplan", "sweep", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "nonexistent", "--vary",
                        "max_model_len=4096,8192"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--gpu" in r.stderr and not r.stdout.strip()
    from kvplan.api import FitFlags, sweep_rows
    rows = sweep_rows("Qwen/Qwen2.5-7B-Instruct", FitFlags(gpu="L4"), [("max_model_len", [4096, 999999999])])
    assert "error_input" in rows[1] and rows[0]["fits"]  # one bad value: its row says so, the others stand


def test_an_auto_fit_plan_keeps_the_flag_as_given_for_its_replans():
    # --max-model-len -1: a fix replans with -1 (auto-fit again), not at the model's full length
    from kvplan.api import replan
    p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", detect_gpu=False, fixes=False, max_model_len=-1)
    assert p.given_args.max_model_len == -1 and p.fits and p.args.max_model_len < 131072
    q = replan(p, gpu_memory_utilization=0.85)
    assert q.fits and q.args.max_model_len < p.args.max_model_len


@pytest.mark.parametrize("flag", ["--cpu-offload-gb", "--overhead-gb"])
@pytest.mark.parametrize("value", ["inf", "nan"])
def test_a_non_finite_gib_flag_is_one_line_naming_it(flag, value):
    # both were an 'internal error' (int() of an infinite or NaN byte count) instead of naming the flag
    r = run("fit", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4", flag, value)
    assert r.returncode == 2 and "internal error" not in r.stderr
    assert f"{flag}: must be a finite number >= 0" in " ".join(r.stderr.split())
    with pytest.raises(InputError) as e:
        kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "L4", fixes=False, **{flag[2:].replace("-", "_"): float(value)})
    assert e.value.field == flag


def test_a_sweep_that_varies_one_flag_twice_is_refused_as_the_page_refuses_it():
    """Rows are one per combination, keyed by the varied names: a second --vary of the same name would overwrite the
    first silently (two entries of max_model_len made one 2048 row). parse_vary refuses it, for the CLI and the page."""
    import pytest

    from kvplan.api import parse_vary
    from kvplan.errors import InputError

    with pytest.raises(InputError) as exc:
        parse_vary(["max_model_len=1024", "max_model_len=2048"])
    assert exc.value.field == "--vary" and "varied twice" in str(exc.value)
    assert parse_vary(["max_model_len=1024,2048", "gpu=H100"]) == [("max_model_len", [1024, 2048]), ("gpu", ["H100"])]


def test_a_fix_is_printed_as_a_shell_runs_it():
    """A GPU fix names the catalog card, whose name has spaces: '--gpu NVIDIA A100 80GB SXM4' pasted into a shell ran
    as --gpu NVIDIA plus three stray arguments. The value is quoted (shlex.quote), and the quoted command replans to
    the plan the fix promised; the page's renderFixes quotes alike (checked with node where it is installed)."""
    import shlex
    import shutil
    from pathlib import Path

    from kvplan.plan import fix_command_text

    p = kvplan.fit("Qwen/Qwen3-32B", "H100", detect_gpu=False)
    gpu_fix = next(f for f in p.fixes if "gpu" in f.flags)
    assert " " in gpu_fix.flags["gpu"] and gpu_fix.command_text == f"--gpu '{gpu_fix.flags['gpu']}'"
    argv = shlex.split(gpu_fix.command_text)
    assert argv == ["--gpu", gpu_fix.flags["gpu"]]
    r = run("fit", "Qwen/Qwen3-32B", *argv, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["fits"] is True
    assert fix_command_text({"max_num_seqs": 89, "enforce_eager": True}) == "--max-num-seqs 89 --enforce-eager"
    assert fix_command_text({"model": "Qwen/Qwen3-32B-FP8"}) == "Qwen/Qwen3-32B-FP8"
    node = shutil.which("node")
    if node:
        js = (Path(kvplan.__file__).parent / "web" / "static" / "app.js").read_text()
        start = js.index("function shellQuote")
        body = js[start:js.index("\n}\n", start) + 3]
        values = ["NVIDIA A100 80GB SXM4", "fp8", "0.94", "it's", "a/b-c.d"]
        out = subprocess.run([node, "-e", body + f"console.log(JSON.stringify({json.dumps(values)}.map(shellQuote)))"],
                             capture_output=True, text=True, timeout=60)
        assert json.loads(out.stdout) == [shlex.quote(v) for v in values], out.stderr
