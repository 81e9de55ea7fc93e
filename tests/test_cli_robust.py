"""The command line as a new user meets it: typos, wrong files and values out of range get a one-line error naming
the field and the fix (exit 2), never a traceback, an empty answer with exit 0, or a silent guess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_runner import hub_offline, refused, run_cli
from kvplan.cli import main

M = "meta-llama/Llama-3.1-8B-Instruct"
VL = "Qwen/Qwen3-VL-2B-Instruct"
SRC = str(Path(__file__).resolve().parents[1] / "src")


def cli(monkeypatch, capsys, *args: str) -> tuple[int, str]:
    """(exit code, stdout + stderr, whitespace folded) of `kvplan ARGS`, run in this process."""
    code, out, err = run_cli(monkeypatch, capsys, *args)
    return code, " ".join((out + err).split())




@pytest.fixture()
def offline(monkeypatch, tmp_path):
    hub_offline(monkeypatch, tmp_path)


# ------------------------------------------------------------------ models and flags


def test_a_typo_of_a_catalog_id_offline_names_it_and_is_bad_input(monkeypatch, capsys, offline):
    """A Hub id kvplan cannot fetch was exit 1, which scripts read as "does not fit", and named no catalog id."""
    out = refused(monkeypatch, capsys, "model", "fit", "meta-llama/Llama-3.1-8B-Instrcut", "--gpu", "L4")
    assert "did you mean the catalog id meta-llama/Llama-3.1-8B-Instruct?" in out
    out = refused(monkeypatch, capsys, "model", "fit", "someone/not-a-model-at-all", "--gpu", "L4")
    assert "did you mean" not in out and "kvplan models" in out


@pytest.mark.parametrize("value", ["-1", "5GiB", "abc", "1.5K"])
def test_a_size_flag_vllm_cannot_read_is_named_as_the_flag(monkeypatch, capsys, value):
    """--kv-cache-memory-bytes -1 was 'kv_cache_memory_bytes: must be a whole number, got '-1' (e.g.
    kv_cache_memory_bytes=4)': the Python keyword, an example of 4 bytes, and -1 is a whole number."""
    out = refused(monkeypatch, capsys, "--kv-cache-memory-bytes", "fit", M, "--gpu", "L4", "--kv-cache-memory-bytes", value)
    assert "as vllm serve reads it" in out and "e.g. --kv-cache-memory-bytes '8G' (8 GiB)" in out
    assert "kv_cache_memory_bytes" not in out


def test_the_python_api_keeps_its_keyword_names():
    import kvplan
    from kvplan.errors import InputError

    with pytest.raises(InputError) as exc:
        kvplan.fit(M, "L4", max_model_len=4096, max_num_batched_tokens="8KiB")
    assert exc.value.field == "max_num_batched_tokens" and "max_num_batched_tokens='8K' (8,192)" in str(exc.value)


def test_a_release_older_than_any_read_is_a_warning(monkeypatch, capsys):
    code, out = cli(monkeypatch, capsys, "fit", M, "--gpu", "L4", "--max-model-len", "8192", "--vllm-version", "0.5.0")
    assert code == 0, out
    assert "warning: kvplan's rules start at vLLM 0.6.3; planned with the oldest rules kvplan holds" in out


@pytest.mark.parametrize("model, limits, says", [
    (VL, '{"imag": 2}', "'imag' is no modality vLLM reads (image, video, audio)"),
    (VL, '{"image": 1, "vidoe": 0}', "'vidoe' is no modality"),
    (M, '{"image": 2}', f"{M} takes no image, video or audio input, so vLLM ignores the limits"),
])
def test_limits_vllm_ignores_are_said(monkeypatch, capsys, model, limits, says):
    """vLLM takes any key and reads only the model's own modalities: a typo limited nothing, silently."""
    code, out = cli(monkeypatch, capsys, "fit", model, "--gpu", "L4", "--max-model-len", "8192", "--limit-mm-per-prompt", limits)
    assert code == 0, out
    assert "warning: --limit-mm-per-prompt: " + says in out


def test_known_modalities_warn_nothing(monkeypatch, capsys):
    code, out = cli(monkeypatch, capsys, "fit", VL, "--gpu", "L4", "--max-model-len", "8192", "--limit-mm-per-prompt",
                    '{"image": 2, "video": 0}')
    assert code == 0 and "--limit-mm-per-prompt:" not in out, out


@pytest.mark.parametrize("module", ["kvplan", "kvplan.cli"])
def test_python_dash_m_runs_the_command_line(module):
    r = subprocess.run([sys.executable, "-m", module, "fit", "--gpu", "L4", "--json"], capture_output=True, text=True,
                       env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"}, timeout=120)
    assert r.returncode == 0, r.stderr
    assert '"fits": true' in r.stdout


# ------------------------------------------------------------------ files


def test_reconcile_refuses_a_text_that_is_no_vllm_log(monkeypatch, capsys, tmp_path):
    """It printed a table of '-' and exited 0."""
    f = tmp_path / "notes.txt"
    f.write_text("hello\nthis is not a server log\n")
    out = refused(monkeypatch, capsys, "LOGFILE", "reconcile", str(f))
    assert "no vLLM startup line was recognised" in out and "(2 line(s) read)" in out and "docker logs" in out


@pytest.mark.parametrize("command", ["reconcile", "diagnose"])
def test_a_folder_given_as_the_log_is_called_a_folder(monkeypatch, capsys, tmp_path, command):
    out = refused(monkeypatch, capsys, "LOGFILE", command, str(tmp_path))
    assert "is a folder, not a file" in out and "no such file" not in out


def test_validate_of_a_folder_is_called_a_folder(monkeypatch, capsys, tmp_path):
    out = refused(monkeypatch, capsys, "FILE", "validate", str(tmp_path))
    assert "is a folder, not a file" in out


SIM = ["simulate", M, "--gpu", "L4", "--max-model-len", "8192", "--rate", "2"]


def test_a_workload_of_only_empty_requests_is_refused(monkeypatch, capsys, tmp_path):
    """Every request dropped for 0 tokens left nothing, and the simulation died in an IndexError (exit 3)."""
    f = tmp_path / "zeros.csv"
    f.write_text("prompt_tokens,completion_tokens\n0,0\n100,0\n")
    out = refused(monkeypatch, capsys, "--workload", *SIM, "-w", str(f))
    assert "every request has 0 prompt or 0 output tokens" in out


def test_an_empty_jsonl_workload_is_called_empty(monkeypatch, capsys, tmp_path):
    f = tmp_path / "w.jsonl"
    f.write_text("\n\n")
    out = refused(monkeypatch, capsys, "--workload", *SIM, "-w", str(f))
    assert "holds no requests (no JSON object)" in out and "columns among []" not in out


def test_a_folder_as_the_workload_is_called_a_folder(monkeypatch, capsys, tmp_path):
    out = refused(monkeypatch, capsys, "--workload", *SIM, "-w", str(tmp_path))
    assert "is a folder, not a file" in out


@pytest.mark.parametrize("spec, example", [("constant:0", "e.g. constant:512"), ("exponential:-1", "e.g. exponential:1000"),
                                           ("normal:100", "e.g. normal:1000,200"), ("uniform:1", "e.g. uniform:100,2000")])
def test_a_length_distribution_error_shows_its_own_form(monkeypatch, capsys, spec, example):
    """'constant:0' was answered with 'constant takes 1 positive numbers ... (e.g. lognormal:1000,0.8)'."""
    out = refused(monkeypatch, capsys, "--prompt-len", *SIM, "--prompt-len", spec, "--completion-len", "constant:8", "-n", "10")
    assert example in out and "lognormal" not in out


def test_capacity_that_no_rate_meets_says_which_objective_misses(monkeypatch, capsys):
    """An 8B model in bf16 on an L4 decodes at ~60 ms a token: a 50 ms TPOT is missed at any rate, and capacity only
    said 'no probed rate meets ... (even 0.05 req/s)'."""
    code, out = cli(monkeypatch, capsys, "capacity", M, "--gpu", "L4", "--max-model-len", "8192", "-w", "azure-conv",
                    "-n", "30", "--slo", "ttft=5s,tpot=50ms")
    assert code == 1, out
    assert "the lowest rate probed, tpot p99 is" in out and "against 50 ms" in out and "loosen --slo tpot" in out
    assert "ttft p99" not in out  # the objective it meets is not blamed


def test_validate_markdown_target_checked_first_and_written_with_json(monkeypatch, capsys, tmp_path):
    records = str(Path(__file__).parent / "data" / "blind_records.jsonl")
    out = refused(monkeypatch, capsys, "--markdown", "validate", records, "--markdown", str(tmp_path))
    assert "is a folder" in out
    out = refused(monkeypatch, capsys, "--markdown", "validate", records, "--markdown", str(tmp_path / "no" / "x.md"))
    assert "does not exist" in out
    md = tmp_path / "acc.md"
    code, out = cli(monkeypatch, capsys, "validate", records, "--json", "--markdown", str(md))
    assert code == 0 and md.read_text().startswith("| figure |")  # --json had dropped --markdown unwritten


def test_catalog_listings_say_when_nothing_matches(monkeypatch, capsys):
    code, out = cli(monkeypatch, capsys, "models", "zzzz-none")
    assert code == 0 and "no catalog id contains 'zzzz-none'" in out
    code, out = cli(monkeypatch, capsys, "gpus", "A10O")
    assert code == 0 and "no GPU contains 'A10O' (nearest: A10" in out
    code, out = cli(monkeypatch, capsys, "gpus", "h100")  # gpus takes a filter as models does (was a usage error)
    assert code == 0 and "H100 PCIe" in out and "L4" not in out
    # MIG slices are no catalog entries: 'gpus mig' said "no GPU contains 'mig' (nearest: mi250, ...)"
    code, out = cli(monkeypatch, capsys, "gpus", "mig")
    assert code == 0 and "--gpu 'CARD MIG PROFILE' --gpu-gib N" in out and "NVIDIA A30: 1g.6gb, 2g.12gb, 4g.24gb" in out
    code, out = cli(monkeypatch, capsys, "gpus", "H100 MIG")
    assert "NVIDIA H100 NVL: 1g.12gb" in out and "A30" not in out
    # --json lists the cards the table names, each with its profiles (it printed [] where the table listed them)
    code, out = cli(monkeypatch, capsys, "gpus", "H100 MIG", "--json")
    rows = {r["name"]: r["mig_profiles"] for r in json.loads(out)}
    assert code == 0 and rows["NVIDIA H100 NVL"][0] == "1g.12gb" and "NVIDIA A30" not in rows and len(rows) == 3
    code, out = cli(monkeypatch, capsys, "gpus", "L4", "--json")
    assert code == 0 and all(r["mig_profiles"] is None for r in json.loads(out))


def test_a_config_that_is_not_utf8_is_called_so(monkeypatch, capsys, tmp_path):
    (tmp_path / "config.json").write_bytes(b"\xff\xfe\x00garbage")
    out = refused(monkeypatch, capsys, "config.json", "fit", str(tmp_path), "--gpu", "L4")
    assert "is not UTF-8 text" in out and "permissions" not in out


def test_a_gpu_count_from_the_name_is_blamed_on_the_name(monkeypatch, capsys):
    """--gpu '2x L4' with TP 4 said '--num-gpus: ... use --num-gpus 4', a flag the user never gave."""
    out = refused(monkeypatch, capsys, "--gpu", "fit", M, "--gpu", "2x L4", "--tensor-parallel-size", "4")
    assert "'2x L4' names 2 GPU(s), but tensor x pipeline x data parallel = 4 ranks" in out and "--gpu '4x NVIDIA L4'" in out
    out = refused(monkeypatch, capsys, "--num-gpus", "fit", M, "--gpu", "L4", "--tensor-parallel-size", "4", "--num-gpus", "2")
    assert "use --num-gpus 4" in out


def test_a_vllm_use_v1_value_vllm_cannot_read_is_refused_where_it_reads_it(monkeypatch, capsys):
    out = refused(monkeypatch, capsys, "--env VLLM_USE_V1", "fit", M, "--gpu", "L4", "--max-model-len", "8192",
                  "--vllm-version", "0.9.2", "--env", "VLLM_USE_V1=maybe")
    assert "'maybe' is not a value vLLM 0.9.2 reads" in out and "VLLM_USE_V1=1" in out
    code, out = cli(monkeypatch, capsys, "fit", M, "--gpu", "L4", "--max-model-len", "8192", "--env", "VLLM_USE_V1=maybe")
    assert code == 0, out  # 0.33 has one engine and no such variable


def test_reconcile_record_to_a_folder_names_the_flag(monkeypatch, capsys, tmp_path):
    log = str(Path(__file__).parent / "data" / "dp2_engine_core_n_v0101.log")
    out = refused(monkeypatch, capsys, "--record", "reconcile", log, "--record", str(tmp_path))
    assert "cannot write" in out and "- for standard output" in out


@pytest.mark.parametrize("extra, field, says", [
    (["--max-model-len", "2048"], "--vary", "max_model_len is varied, so --max-model-len 2048 would be replaced in every row"),
    (["--csv", "--json"], "--csv", "--json and --csv each print the table"),
    (["--plot", "sweep.jpg"], "--plot", "is not a .png or .svg file name"),
    (["--plot", "/nonexistent-folder/sweep.png"], "--plot", "the folder /nonexistent-folder does not exist"),
])
def test_sweep_refuses_contradictions_before_planning(monkeypatch, capsys, extra, field, says):
    """The varied flag silently won over the given one, --json silently won over --csv, and a bad --plot was refused
    (or an OSError) only after the whole table had been printed."""
    out = refused(monkeypatch, capsys, field, "sweep", M, "--gpu", "L4", "--vary", "max_model_len=4096,8192", *extra)
    assert says in out and "max_model_len ┃" not in out and "4,096" not in out


def test_capacity_without_an_objective_is_refused_before_the_search(monkeypatch, capsys):
    out = refused(monkeypatch, capsys, "--slo", "capacity", M, "--gpu", "H100", "--max-model-len", "8192", "-w", "azure-conv",
                  "-n", "20", "--slo", "")
    assert "bisecting" not in out  # the search was announced, then refused


def test_scaffold_into_an_empty_folder_name_writes_nothing(monkeypatch, capsys, tmp_path):
    """`kvplan scaffold "$OUT" MODEL` with OUT unset wrote the seven files into the current folder."""
    monkeypatch.chdir(tmp_path)
    refused(monkeypatch, capsys, "DIR", "scaffold", "", M, "--gpu", "L4", "--max-model-len", "8192")
    assert list(tmp_path.iterdir()) == []
    refused(monkeypatch, capsys, "--served-model-name", "scaffold", str(tmp_path / "d"), M, "--gpu", "L4",
            "--max-model-len", "8192", "--served-model-name", " ")
    assert not (tmp_path / "d").exists()


@pytest.mark.parametrize("flag", ["--vllm-version", "--runner", "--quantization", "--speculative-config", "--entrypoint"])
def test_an_empty_flag_value_is_refused_not_read_as_the_default(monkeypatch, capsys, flag):
    """'--vllm-version ""' planned with the newest release, '--runner ""' as auto, ... silently."""
    out = refused(monkeypatch, capsys, flag, "fit", M, "--gpu", "L4", "--max-model-len", "8192", flag, "")
    assert "an empty value" in out and f"leave {flag} out for the default" in out


SIM_OK = ["simulate", M, "--gpu", "H100", "--max-model-len", "8192", "--rate", "2", "-n", "10", "-w", "azure-conv"]


def test_simulate_output_paths_are_checked_before_the_run(monkeypatch, capsys, tmp_path):
    """--plot "" wrote three PNGs into the current folder; a file where the folder should be was a bare OSError."""
    monkeypatch.chdir(tmp_path)
    out = refused(monkeypatch, capsys, "--plot", *SIM_OK, "--plot", "")
    assert "an empty path" in out and list(tmp_path.iterdir()) == []
    refused(monkeypatch, capsys, "--requests", *SIM_OK, "--requests", " ")
    (tmp_path / "taken").write_text("x")
    out = refused(monkeypatch, capsys, "--plot", *SIM_OK, "--plot", str(tmp_path / "taken"))
    assert "cannot make the folder" in out and "simulated" not in out


def test_a_model_planned_on_the_default_card_says_so(monkeypatch, capsys):
    """Without --gpu on a machine without one, a model was planned on a T4 with the guess among the assumptions only."""
    import kvplan.resolve as r

    monkeypatch.setattr(r, "detect_gpu", lambda: None)
    code, out = cli(monkeypatch, capsys, "fit", "meta-llama/Llama-3.2-1B-Instruct", "--max-model-len", "8192")
    assert "warning: no --gpu given and no GPU detected here: planned for a 16 GB Tesla T4" in out, out
    code, out = cli(monkeypatch, capsys, "fit")  # the seed's own example (README) stays as it was
    assert code == 0 and "warning" not in out


@pytest.mark.parametrize("name, content, says", [
    ("gap.jsonl", '{"prompt_tokens": 10, "completion_tokens": 5}\n{"prompt_tokens": 10}\n',
     "request 2 has nothing (a missing value) in completion_tokens"),
    ("short.csv", "prompt_tokens,completion_tokens\n10,5\n20\n", "request 2 has nothing (a missing value) in completion_tokens"),
    ("word.csv", "prompt_tokens,completion_tokens\n10,5\n20,many\n", "request 2 has 'many' in completion_tokens"),
    ("semi.csv", "prompt_tokens;completion_tokens\n10;5\n", "separate the columns with commas (this header uses ';')"),
])
def test_a_workload_cell_error_names_the_request(monkeypatch, capsys, tmp_path, name, content, says):
    """It said 'non-numeric token counts in completion_tokens', naming no row, and nothing of a ';' header."""
    f = tmp_path / name
    f.write_text(content)
    out = refused(monkeypatch, capsys, "--workload", *SIM, "-w", str(f))
    assert says in out


def test_a_checkpoint_whose_files_do_not_match_its_config_warns(monkeypatch, capsys, tmp_path):
    """A folder with a 7B config and one tiny shard planned 0.00 GiB of weights as 'exact', silently."""
    import json
    import struct

    (tmp_path / "config.json").write_text(json.dumps({
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 32000, "intermediate_size": 11008,
        "max_position_embeddings": 4096, "torch_dtype": "bfloat16"}))
    header = json.dumps({"model.norm.weight": {"dtype": "BF16", "shape": [4096], "data_offsets": [0, 8192]}}).encode()
    (tmp_path / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header + bytes(8192))
    code, out = cli(monkeypatch, capsys, "fit", str(tmp_path), "--gpu", "L4")
    assert "warning: the checkpoint's weight files hold 0.00 GiB, but its config.json counts" in out
    assert "a partial download (shards missing)" in out


@pytest.mark.parametrize("extra, field, says", [
    (["--gpu-gib", "20"], "--gpu-gib", "--gpu auto picks a catalog GPU, so a custom size would be ignored"),
    (["--max-model-len", "auto", "--concurrency", "4"], "--gpu", "with --max-model-len auto both would be unknown"),
    (["--max-model-len", "8192", "--concurrency", "4"], "--concurrency", "with --gpu auto it would be ignored"),
])
def test_gpu_auto_refuses_what_it_would_ignore(monkeypatch, capsys, extra, field, says):
    """--gpu-gib and --concurrency were dropped unread; with --max-model-len auto the error told a CLI user to call
    kvplan.api.max_model_len_for_concurrency."""
    out = refused(monkeypatch, capsys, field, "fit", M, "--gpu", "auto", *extra)
    assert says in out and "kvplan.api" not in out


@pytest.mark.parametrize("command", [["sweep", M, "--vary", "max_model_len=4096,8192"], ["preflight", M]])
def test_gpu_auto_outside_fit_says_where_it_is_answered(monkeypatch, capsys, tmp_path, command):
    out = refused(monkeypatch, capsys, "--gpu", *command, "--gpu", "auto")
    assert "is answered by `kvplan fit` (and scaffold, simulate, capacity)" in out and "unknown GPU" not in out


@pytest.mark.parametrize("command", ["scaffold", "simulate", "capacity"])
def test_gpu_auto_is_answered_as_fit_and_the_page_answer_it(monkeypatch, capsys, tmp_path, command):
    """The page's scaffold and simulate answered --gpu auto (through fit's path) while the CLI's refused it."""
    import json

    code, out = cli(monkeypatch, capsys, "fit", M, "--gpu", "auto", "--max-model-len", "8192", "--json")
    chosen = json.loads(out)
    args = {"scaffold": ["scaffold", str(tmp_path / "d"), M],
            "simulate": ["simulate", M, "-w", "azure-conv", "-n", "20", "--json"],
            "capacity": ["capacity", M, "-w", "azure-conv", "-n", "20", "--slo", "tpot=500ms", "--json"]}[command]
    code, out = cli(monkeypatch, capsys, *args, "--gpu", "auto", "--max-model-len", "8192")
    assert code == 0, out
    assert chosen["inverse"].startswith("--gpu auto: the smallest catalog GPU x TP that starts")  # fit's own answer,
    # said alike (with the card passed over where its first start may be refused); scaffold says it searched its own
    # cards (api.DEPLOYABLE_CARDS)
    from kvplan.api import DEPLOYABLE_CARDS

    said = chosen["inverse"].replace("GPU x TP", f"GPU x TP {DEPLOYABLE_CARDS}", 1) if command == "scaffold" else chosen["inverse"]
    if command != "scaffold":
        # simulate and capacity search the cards the step-time model can time (api.SIMULABLE_CARDS): the same answer
        # here, 2 x RTX 2080Ti, with the smaller warm start it passed over among those cards named
        from kvplan.api import FitFlags, plan_from_flags_and_inverse

        p, said = plan_from_flags_and_inverse(M, FitFlags(gpu="auto", max_model_len="8192"), None, simulable=True)
        assert (p.gpu.name, p.args.tensor_parallel_size) == (chosen["gpu"], chosen["args"]["tensor_parallel_size"])
    assert said in " ".join(out.split())
    assert f" is {chosen['args']['tensor_parallel_size']} x {chosen['gpu']}" in out
    if command == "scaffold":
        assert chosen["gpu"] in (tmp_path / "d" / "serve.sh").read_text()


@pytest.mark.parametrize("flag", [["-pp", "2"], ["--enable-lora"], ["--kv-cache-memory-bytes", "4G"], ["--cpu-offload-gb", "4"],
                                  ["--quantization", "fp8"]])
def test_the_seeds_arithmetic_refuses_flags_it_would_drop(monkeypatch, capsys, flag):
    """--overhead-gb with -pp 2 planned every layer's weights on one rank; with LoRA, a given pool, CPU offload or
    online FP8 the same numbers as without them, silently."""
    long = {"-pp": "--pipeline-parallel-size"}.get(flag[0], flag[0])
    out = refused(monkeypatch, capsys, long, "fit", M, "--gpu-gb", "80", "--overhead-gb", "1", "--max-model-len", "8192", *flag)
    assert "the seed's arithmetic (--overhead-gb) has no" in out and "drop --overhead-gb" in out


def test_the_seeds_arithmetic_takes_what_it_models(monkeypatch, capsys):
    code, out = cli(monkeypatch, capsys, "fit", M, "--gpu-gb", "80", "--overhead-gb", "1", "--max-model-len", "8192",
                    "--kv-cache-dtype", "fp8", "-tp", "2")
    assert code == 0, out


def _store_calibration(home: Path, gpu: str, model: str, activation_gib: float) -> None:
    import json

    home.mkdir(parents=True, exist_ok=True)
    entry = {"terms": {"activation_peak_gib": activation_gib}, "counts": {"activation_peak_gib": 1}, "n": 1,
             "activation_peak_bytes": int(activation_gib * 1024 ** 3), "source": "kvplan reconcile --calibrate (test)"}
    (home / "calibration.json").write_text(json.dumps({gpu: {model: entry}}))


def test_a_site_calibration_is_shown_and_its_fixes_are_calibrated(monkeypatch, tmp_path):
    """A stored calibration changes fit's numbers with a warning (it once sat among the assumptions only), and the fixes
    are replanned with it (they were once replanned without it: lengths and tokens of an uncalibrated plan)."""
    import kvplan

    monkeypatch.setenv("KVPLAN_HOME", str(tmp_path))
    plain = kvplan.fit(M, "L4", max_model_len=131072, site_calibration=False)
    _store_calibration(tmp_path, plain.gpu.name, M, 1.0)
    calibrated = kvplan.fit(M, "L4", max_model_len=131072)
    shown = next(w for w in calibrated.warnings if w.startswith("site calibration applied"))
    assert "activation +1.00 GiB" in shown and "non-torch" not in shown  # the terms it moved, and only those
    assert calibrated.kv_cache_bytes == pytest.approx(plain.kv_cache_bytes - 1024 ** 3, abs=2 ** 21)

    def length_fix(p):
        return next(f.command_text for f in p.fixes if "--max-model-len" in f.command_text)

    assert length_fix(calibrated) != length_fix(plain)  # the calibrated pool holds fewer tokens


def test_a_site_calibration_that_cannot_be_read_or_written_is_said(monkeypatch, capsys, tmp_path):
    (tmp_path / "calibration.json").write_text("not json")
    monkeypatch.setenv("KVPLAN_HOME", str(tmp_path))
    code, out = cli(monkeypatch, capsys, "fit", M, "--gpu", "L4", "--max-model-len", "8192")
    assert code == 0 and "warning: site calibration not applied: cannot read" in out
    blocked = tmp_path / "a-file"
    blocked.write_text("x")
    monkeypatch.setenv("KVPLAN_HOME", str(blocked))
    log = str(Path(__file__).parent / "data" / "dp2_engine_core_n_v0101.log")
    out = refused(monkeypatch, capsys, "KVPLAN_HOME", "reconcile", log, "Qwen/Qwen2.5-7B-Instruct", "--gpu", "H100", "--calibrate")
    assert "cannot write the site calibration" in out


def test_one_startup_is_calibrated_once(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("KVPLAN_HOME", str(tmp_path))
    log = str(Path(__file__).parent / "data" / "dp2_engine_core_n_v0101.log")
    args = ["reconcile", log, "Qwen/Qwen2.5-7B-Instruct", "--gpu", "H100", "--calibrate"]
    code, out = cli(monkeypatch, capsys, *args)
    assert code == 0 and "site calibration stored (1 startup(s);" in out
    out = refused(monkeypatch, capsys, "--calibrate", *args)  # it was stored again as a second startup
    assert "this log is already in the site calibration" in out


def test_scaffold_prints_the_plans_warnings_as_fit_does(monkeypatch, capsys, tmp_path):
    """scaffold wrote files for a release kvplan has no rules for, a site calibration, a GPU variant it chose, and
    said none of what fit and sweep warn about."""
    code, out = cli(monkeypatch, capsys, "fit", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4", "--max-model-len", "4096",
                    "--vllm-version", "9.9")
    assert code == 0 and "warning: kvplan's rules stop at vLLM" in out
    # (a series alone is not pinned: scaffold writes the image tag v<release>, which names a patch release)
    code, out = cli(monkeypatch, capsys, "scaffold", str(tmp_path / "d"), "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4",
                    "--max-model-len", "4096", "--vllm-version", "9.9.0")
    assert code == 0 and "warning: kvplan's rules stop at vLLM" in out


def test_simulate_json_of_a_plan_that_does_not_start_is_fits_json(monkeypatch, capsys):
    """simulate --json printed Plan.to_dict() where fit --json prints plan_json (the validated band, an inverse
    question's answer): one plan, one JSON."""
    import json

    flags = ["--gpu", "L4", "--max-model-len", "131072"]  # a memory refusal: the band is given
    code, fit_out = cli(monkeypatch, capsys, "fit", M, *flags, "--json")
    assert code == 1
    monkeypatch.setattr(sys, "argv", ["kvplan", "simulate", M, *flags, "-w", "azure-conv", "-n", "5", "--json"])
    try:
        main()
    except SystemExit as exc:
        assert exc.code == 1
    sim = json.loads(capsys.readouterr().out)
    want = json.loads(fit_out)
    assert sim == want and sim["fits"] is False and sim["uncertainty"]


def test_importing_the_package_main_module_runs_nothing():
    """kvplan/__main__.py runs the command line under `python -m kvplan` only, as kvplan/cli/__main__.py does (an import,
    such as pydoc's or a tool's, once ran the CLI on the importer's argv)."""
    env = dict(os.environ, PYTHONPATH=SRC)
    done = subprocess.run([sys.executable, "-c", "import kvplan.__main__, kvplan.cli.__main__"], capture_output=True,
                          text=True, env=env, timeout=120)
    assert done.returncode == 0 and done.stdout == "" and "Usage" not in done.stderr, (done.stdout, done.stderr)
    ran = subprocess.run([sys.executable, "-m", "kvplan", "gpus", "h200", "--json"], capture_output=True, text=True,
                         env=env, timeout=120)
    assert ran.returncode == 0 and "H200" in ran.stdout


@pytest.mark.parametrize("ref", ["Qwen/Qwen3-8B@main", "meta-llama/Llama-3.1-8B-Instruct@0e9e39f2"])
def test_a_revision_written_after_an_at_sign_names_the_revision_flag(monkeypatch, capsys, ref):
    # it was "unknown model 'Qwen/Qwen3-8B@main' (nearest catalog ids: Qwen/Qwen3-8B, ...)"
    text = refused(monkeypatch, capsys, "model", "fit", ref, "--gpu", "L4")
    model, revision = ref.split("@")
    assert f"{model} --revision {revision}" in text and "nearest" not in text


def test_a_catalog_id_with_a_revision_offline_says_the_catalog_is_not_read_for_a_revision(monkeypatch, capsys, tmp_path):
    # it said "did you mean the catalog id Qwen/Qwen3-8B?" to a user who had typed exactly that id
    hub_offline(monkeypatch, tmp_path)
    text = refused(monkeypatch, capsys, "model", "fit", "Qwen/Qwen3-8B", "--gpu", "L4", "--revision", "abc123")
    assert "did you mean" not in text
    assert "Qwen/Qwen3-8B at revision abc123" in text and "drop --revision to plan from the catalog's copy" in text


@pytest.mark.parametrize("version, shown", [
    ("0.35.0", "0.35.0 — planned with 0.34.0's rules, the newest kvplan holds (era V1-f)"),
    ("0.2.0", "0.2.0 — planned with the oldest rules kvplan holds (era V0-a)"),
    ("0.33.0", "0.33.0 rules (era V1-f)"), ("0.34.0", "0.34.0 rules (era V1-f)"),
    # the row named the build's own number with "rules" while another release's rules planned it
    ("0.26.1rc1.dev156+g0eec856cc", "0.26.1rc1.dev156+g0eec856cc — a nightly of main past the 0.26.1 candidate tag: "
                                    "0.27.0's rules (era V1-f)"),
    ("0.20.0.dev5", "0.20.0.dev5 — a development build of 0.20.0: the rules of the releases before it (era V1-d)"),
])
def test_the_vllm_row_says_whose_rules_planned_a_release_kvplan_has_not_read(monkeypatch, capsys, version, shown):
    """fit's panel said "vLLM 0.34.0 rules (era V1-f)" while the warning under it said 0.33.0's rules were applied."""
    from kvplan.cli import console
    from kvplan.versions import NEWEST_READ

    assert NEWEST_READ == "0.34.0"  # the newest release read: move the cases with it
    monkeypatch.setattr(console, "_width", 200)
    _, out, _ = run_cli(monkeypatch, capsys, "fit", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4", "--max-model-len",
                        "4096", "--vllm-version", version)
    row = next(line for line in out.splitlines() if line.startswith("│ vLLM "))
    assert " ".join(row.strip("│ ").split()) == f"vLLM {shown}", row


def test_models_lists_the_catalog_in_alphabetical_order_whatever_the_case(monkeypatch, capsys):
    """`kvplan models` sorted by code point: ai21labs/Jamba and deepseek-ai/... came after Qwen/..., zai-org last."""
    import json

    code, out, _ = run_cli(monkeypatch, capsys, "models", "--json")
    ids = [m["id"] for m in json.loads(out)]
    assert code == 0 and ids == sorted(ids, key=str.lower)
    assert ids.index("ai21labs/Jamba-v0.1") < ids.index("MiniMaxAI/MiniMax-M2.5") < ids.index("Qwen/Qwen3-8B")


@pytest.mark.parametrize("flag, value, hint", [
    ("--block-size", "0", "e.g. 16"), ("--max-num-seqs", "-1", "e.g. 256"), ("--max-num-batched-tokens", "0", "e.g. 8192"),
    ("--tensor-parallel-size", "0", "e.g. 1, 2, 4 or 8"),
])
def test_a_count_below_one_is_refused_with_a_value_the_flag_takes(monkeypatch, capsys, flag, value, hint):
    """Every count flag's refusal said "(e.g. 1)": a block size or token budget no one would give."""
    text = refused(monkeypatch, capsys, flag, "fit", "Qwen/Qwen3-8B", "--gpu", "L40S", flag, value)
    assert f"must be a positive integer, got {value} ({hint}" in text


@pytest.mark.parametrize("method, says", [("awq", "pick an AWQ checkpoint"), ("gptq", "pick a GPTQ checkpoint"),
                                          ("modelopt", "pick a MODELOPT checkpoint"), ("moe_wna16", "pick a MOE_WNA16 checkpoint")])
def test_a_quantization_the_checkpoint_lacks_names_the_checkpoint_to_pick(monkeypatch, capsys, method, says):
    """It read "pick a AWQ checkpoint of this model"."""
    text = refused(monkeypatch, capsys, "--quantization", "fit", "Qwen/Qwen3-8B", "--gpu", "L40S", "--quantization", method)
    assert says in text


def test_kvplans_own_python_warnings_print_as_warning_lines(monkeypatch, capsys, tmp_path):
    """A config.json whose model_type transformers does not know printed Python's warning format to the user: the
    source file and line ("/.../kvplan/resolve.py:728: UserWarning: ...") and the code line under it."""
    import json

    config = {"architectures": ["FooBarForCausalLM"], "model_type": "foobar", "hidden_size": 4096, "num_hidden_layers": 32,
              "num_attention_heads": 32, "intermediate_size": 14336, "vocab_size": 128256, "max_position_embeddings": 8192}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    code, out, err = run_cli(monkeypatch, capsys, "fit", str(path), "--gpu", "L4", "--max-model-len", "4096")
    assert code == 0
    text = " ".join(err.split())
    assert "warning: transformers' AutoConfig does not know model_type 'foobar'" in text, err
    assert "UserWarning" not in err and ".py:" not in err, err


@pytest.mark.parametrize("search, expected", [
    ("llama4", {"meta-llama/Llama-4-Maverick-17B-128E-Instruct", "meta-llama/Llama-4-Scout-17B-16E-Instruct"}),
    ("gptoss", {"openai/gpt-oss-120b", "openai/gpt-oss-20b"}),
    ("qwen3.8", {"Qwen/Qwen3.8-27B", "Qwen/Qwen3.8-2.4T-A95B", "Qwen/Qwen3.8-2.4T-A95B-FP8"}),
])
def test_models_search_reads_the_type_column_and_spellings_without_dashes(monkeypatch, capsys, search, expected):
    """`kvplan models llama4` (the type column's spelling) and `kvplan models gptoss` listed nothing; a dotted
    version still matches only its own ids (qwen3.8 is not Qwen3-8B)."""
    import json

    code, out, _ = run_cli(monkeypatch, capsys, "models", search, "--json")
    assert code == 0 and {m["id"] for m in json.loads(out)} == expected


def test_models_help_says_what_its_search_matches(monkeypatch, capsys):
    """The help said "Filter by substring." of a search that also reads the model type and the id without dashes."""
    from kvplan.cli import console

    monkeypatch.setattr(console, "_width", 200)
    monkeypatch.setenv("COLUMNS", "200")
    _, out, _ = run_cli(monkeypatch, capsys, "models", "--help")
    text = " ".join(out.replace("│", " ").split())
    assert "model type" in text and "gptoss" in text, out


@pytest.mark.parametrize("ref, meant", [
    ("Qwen/Qwen3.5-27B-Instruct", "Qwen/Qwen3.5-27B"),  # was: Qwen/Qwen2.5-7B-Instruct
    ("meta-llama/Llama-4-Scout", "meta-llama/Llama-4-Scout-17B-16E-Instruct"),  # was: no suggestion
    ("google/gemma-3-27b", "google/gemma-3-27b-it"),  # was: google/gemma-2-27b
])
def test_a_shortened_or_suffixed_catalog_id_offline_names_the_model_meant(monkeypatch, capsys, offline, ref, meant):
    """Offline, a name that shortens a catalog id or adds a suffix to one got difflib's nearest string instead."""
    out = refused(monkeypatch, capsys, "model", "fit", ref, "--gpu", "H100")
    assert f"did you mean the catalog id {meant}?" in out


def test_a_bare_shortened_name_lists_the_catalog_id_it_shortens_first(monkeypatch, capsys):
    out = refused(monkeypatch, capsys, "model", "fit", "Llama-4-Scout", "--gpu", "H100")
    assert "nearest catalog ids: meta-llama/Llama-4-Scout-17B-16E-Instruct," in out


@pytest.mark.parametrize("width", [80, 100, 120])
def test_the_budget_legend_never_splits_an_item_across_lines(width):
    """Wrapped as one text, the legend split "■ CUDA" from "graphs 0.30 GiB" at 80 columns and "■" from "headroom" at
    120: each item is whole on its line now, and every item is there."""
    from rich.console import Console

    import kvplan
    from kvplan.render import budget_segments, print_plan

    p = kvplan.fit("Qwen/Qwen3.5-27B", "H100", max_model_len=32768)
    console = Console(width=width, record=True, color_system=None)
    print_plan(console, p)
    lines = [line.strip("│ ") for line in console.export_text().splitlines() if "■" in line]
    items = [item.strip() for line in lines for item in line.split("■")[1:]]
    assert [item.rsplit(" ", 2)[0] for item in items] == [label for label, _ in budget_segments(p)], lines
    assert all(len(line) <= width for line in console.export_text().splitlines())
