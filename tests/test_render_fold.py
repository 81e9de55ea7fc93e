"""Long words in kvplan's rich output at a narrow terminal: a path, URL, record id, term name or size list too long
for its column breaks after a '/' (',' for sizes, '-' for ids, '_' for names) instead of rich's fold at the last
column, which split a commit hash, a size ('136' as '1' / '36') or a name ('kv_bytes_per_toke' / 'n'); nothing is
cut to an ellipsis. Wide output is as before."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console
from rich.table import Table

import kvplan
from kvplan.render import Breakable, explain_table, plan_table

from cli_runner import run_cli

URL = "https://github.com/TickerTaka/TickerTaka-backend/blob/001c701a5805/reports/vllm-colab-t4-e2e-2026-06-24/09-vllm-server.log"


def _render(renderable, width: int) -> str:
    buf = io.StringIO()
    Console(file=buf, width=width, color_system=None).print(renderable)
    return buf.getvalue()


def _cells(out: str, column: int) -> list[str]:
    """The text of one column of a boxed table, line by line."""
    return [line.split("│")[column].strip() for line in out.splitlines() if line.count("│") > column]


@pytest.mark.parametrize("width", [30, 44, 60, 90])
def test_a_url_breaks_after_a_slash_and_reads_back_whole(width):
    t = Table()
    t.add_column("source", overflow="fold")
    t.add_row(Breakable(f"seen in a log: {URL}", "/"))
    lines = [c for c in _cells(_render(t, width), 1) if c]
    assert "".join(lines).replace("seen in a log:", "", 1).strip() == URL or " ".join(lines) == f"seen in a log: {URL}"
    url_lines = [c for c in lines if c not in ("seen in a", "log:", "seen in a log:")]
    for line in url_lines[:-1]:  # each line of the URL ends at a '/' (at a '-' where a part is too long for one line)
        assert line.endswith("/") or line.endswith("-"), (width, lines)
    assert "001c701a5805/" in "\n".join(lines)  # the commit hash on one line


def test_words_that_fit_and_wide_output_are_as_rich_prints_them():
    t1, t2 = Table(), Table()
    for t in (t1, t2):
        t.add_column("a", overflow="fold")
    text = "fitted by tools/fit_calibration.py on 12 V1 records [dim](dates)[/]"
    t1.add_row(text)
    t2.add_row(Breakable(text, "/"))
    for width in (40, 80, 200):
        assert _render(t1, width) == _render(t2, width)


def test_explain_at_80_columns_keeps_names_and_hashes_whole():
    p = kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "T4", fixes=False, site_calibration=False)
    out = _render(explain_table(p), 80)
    for folded in ("kv_bytes_per_toke\n", "blocks_per_reques", "fit_calibra\n", "cold_start_pool_l\n"):
        assert folded not in out.replace(" ", "").replace("│", ""), folded
    terms = _cells(out, 1)
    assert "kv_bytes_per_" in terms and "token" in terms  # broken after its '_', both halves whole
    source = "".join(_cells(out, 4))
    assert "001c701a5805/" in source and "tools/fit_calibration.py" in source.replace("fit_\n", "fit_")
    # at 220 columns nothing breaks: as rich printed it
    wide = _render(explain_table(p), 220)
    assert "kv_bytes_per_token" in wide and "tools/fit_calibration.py" in wide


def test_the_plan_panel_folds_a_long_path_and_size_list_instead_of_cutting_them(tmp_path):
    folder = tmp_path / "some-organisation-checkpoints" / "llama-1b-finetuned-on-internal-data-run-20260101-step-120000"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 1024, "intermediate_size": 2816,
        "num_hidden_layers": 8, "num_attention_heads": 8, "num_key_value_heads": 8, "vocab_size": 32000,
        "torch_dtype": "bfloat16", "max_position_embeddings": 16384}))
    p = kvplan.fit(str(folder), "L4", fixes=False, site_calibration=False)
    out = _render(plan_table(p), 80)
    assert "…" not in out
    assert "".join(line[14:].strip() for line in out.splitlines()[:4]).count(folder.name) == 2, out
    sizes = [1, 2, 4] + list(range(8, 513, 8))
    p = kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "L4", fixes=False, site_calibration=False,
                   cudagraph_capture_sizes=",".join(map(str, sizes)))
    for width in (60, 80, 220):
        out = _render(plan_table(p), width)
        assert "…" not in out
        lines = [line[14:].strip() for line in out.splitlines()]
        first = next(i for i, line in enumerate(lines) if line.startswith("1,2,4,8,"))
        last = next(i for i, line in enumerate(lines) if line.endswith("504,512"))
        listed = lines[first:last + 1]
        assert "".join(listed) == ",".join(map(str, sizes)), (width, out)  # every size, none cut off
        assert all(line.endswith(",") for line in listed[:-1]), (width, listed)  # each line ends at a comma


def test_fit_explain_under_columns_80_end_to_end(monkeypatch, capsys):
    from kvplan.cli import console

    monkeypatch.setattr(console, "_width", 80)
    code, out, _ = run_cli(monkeypatch, capsys, "fit", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "T4", "--explain")
    assert code == 0
    table = out[out.index("How each number was produced"):out.index("Assumptions")]
    terms = _cells(table, 1)
    assert "kv_bytes_per_" in terms and "kv_bytes_per_toke" not in terms and "n" not in terms, terms


def test_validate_record_ids_break_after_a_hyphen():
    from types import SimpleNamespace

    from kvplan.cli.validate import rows_table

    r = SimpleNamespace(id="qwen3-14b-a100-80-udef-tp1-l32k", label={"vllm_version": "0.10.0", "gpu": "A100"},
                        skipped=None, observed={}, predicted={}, error_pct={})
    for width in (50, 60):  # rich folded it "qwen3-14b-a100-80-ude" / "f-tp1-l32k" at 60 columns
        lines = _render(rows_table([r], False, "x.jsonl", compact=True), width).splitlines()
        first = next(i for i, line in enumerate(lines) if line.strip().startswith("qwen3-"))
        last = next(i for i, line in enumerate(lines) if line.strip().startswith("0.10.0"))
        ids = [line.split()[0] for line in lines[first:last]]
        assert "".join(ids) == r.id and all(i.endswith("-") for i in ids[:-1]), (width, ids)


def test_preflight_paths_break_after_a_slash():
    t = Table()
    t.add_column("finding", overflow="fold", width=27)
    t.add_row(Breakable("43.2 GiB free at /root/.cache/huggingface/hub for 0.9 GiB of weights", "/", "=_-"))
    t.add_row(Breakable("export HF_HOME=/path/on/a/persistent/volume", "/", "=_-"))
    cells = _cells(_render(t, 80), 1)
    assert "/root/.cache/huggingface/" in cells and "HF_HOME=/path/on/a/" in " ".join(cells)
    assert not any(c.endswith("/hu") or c.endswith("persisten") for c in cells), cells


def test_scaffold_lists_a_long_folder_broken_after_its_slashes(tmp_path):
    from typer.testing import CliRunner

    from kvplan.cli import app

    out_dir = tmp_path / "a-rather-long-output-directory-name" / "for-the-deployment-of-this-model" / "and-one-more"
    res = CliRunner().invoke(app, ["scaffold", str(out_dir), "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "L4"],
                             env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert max(map(len, lines)) <= 80
    joined = []  # the listed files, their lines joined back: each broken line ends at a '/'
    for line in lines[lines.index(next(ln for ln in lines if ln.endswith("(vLLM 0.33.0):"))) + 1:]:
        if line.startswith("Predicted startup"):
            break
        if line.startswith("  "):
            joined.append(line.strip())
        else:
            assert joined[-1].endswith("/"), lines
            joined[-1] += line
    assert sorted(joined) == sorted(str(p) for p in out_dir.rglob("*") if p.is_file()), joined


def _stacked_render(first_cell, header="model", width=40) -> str:
    from rich.console import Console
    from rich.table import Table

    from kvplan.render import WholeOrStacked

    t = Table()
    t.add_column(header)
    for h in ("max_model_len tokens", "gpu_memory_utilization", "kv_cache_tokens concurrency"):
        t.add_column(h)
    t.add_row(first_cell, "131,072", "0.92", "1,993,760")
    console = Console(width=width, force_terminal=False, color_system=None)
    with console.capture() as cap:
        console.print(WholeOrStacked(t))
    return cap.get()


@pytest.mark.parametrize("kind", ["plain", "markup", "text", "text_header", "renderable"])
def test_the_stacked_view_keeps_the_first_columns_header_whatever_its_cells_are(kind):
    """Stacked (a width the table cannot fit with whole words), each row's first line is '▸ HEADER VALUE'. A header given
    as rich Text was read through a `.text` attribute Text does not have and dropped ('▸ Qwen/Qwen3-8B'), and a first cell
    that is a renderable (a panel) replaced the heading line altogether, header and all."""
    from rich.panel import Panel
    from rich.text import Text

    first = {"plain": "Qwen/Qwen3-8B", "markup": "[bold]Qwen/Qwen3-8B[/bold]", "text": Text("Qwen/Qwen3-8B", style="bold"),
             "text_header": "Qwen/Qwen3-8B", "renderable": Panel("Qwen/Qwen3-8B")}[kind]
    header = Text("model", style="bold") if kind == "text_header" else "model"
    out = _stacked_render(first, header)
    assert "┃" not in out and "│ max" not in out, out  # stacked, not the table
    lines = out.splitlines()
    heading = next(line for line in lines if line.startswith("▸"))
    if kind == "renderable":
        assert heading.strip() == "▸ model", out
        assert "Qwen/Qwen3-8B" in lines[lines.index(heading) + 2], out
    else:
        assert heading.strip() == "▸ model Qwen/Qwen3-8B", out
    assert "[bold]" not in out and "1,993,760" in out, out
