"""kvplan scaffold for vLLM 0.34.0, whose extensible KV cache sizes the pool after warmup and CUDA-graph capture: the
files' arithmetic, expected log lines and flags as a 0.34 start has them. Every plan pins its release."""
from __future__ import annotations

import re

import kvplan
from kvplan.deploy import render_files, spec_from_plan
from kvplan.render import first_start_text

GIB = 2**30


def _plan(**flags):
    flags.setdefault("max_model_len", 8192)
    return kvplan.fit("Qwen/Qwen3-8B", "H100", vllm_version="0.34.0", **flags)


def _arithmetic(text: str) -> dict[str, str]:
    lines = [line[len("#   "):] for line in text.splitlines() if line.startswith("#   ")]
    return {line[:17].strip(): line[17:] for line in lines if len(line) > 17 and line[16] == " "}


def test_arithmetic_separates_the_capacity_from_the_pool_sized_after_warmup():
    """serve.sh and README said 'CUDA graphs 0.00 GiB' and 'KV cache requested - the above = 58.15 GiB', though
    requested - the above is 60.89 GiB (the logged 'Available KV cache memory', only the capacity reserved) and the
    pool is what the memory measured after warmup leaves (0.50 GiB of graphs captured, a margin kept free)."""
    p = _plan()
    assert p.kv_pool is not None and p.kv_cache_capacity_bytes > p.kv_cache_bytes
    files = render_files(spec_from_plan(p))
    rows = _arithmetic(files["serve.sh"])
    capacity = p.kv_cache_capacity_bytes / GIB
    assert f"requested - the above = {capacity:.2f} GiB" in rows["capacity"], rows
    # the terms listed above the capacity add up to it
    terms = sum(float(re.match(r"([\d.]+) GiB", rows[k]).group(1)) for k in ("weights", "activation peak", "non-torch",
                                                                            "CUDA graphs"))
    requested = float(re.search(r"= ([\d.]+) GiB", rows["requested"]).group(1))
    assert abs(requested - terms - capacity) <= 0.02
    kv = rows["KV cache"]
    assert f"= {p.kv_cache_bytes / GIB:.2f} GiB" in kv and "requested - the above" not in kv, kv
    assert f"{p.cudagraph_capture_bytes / GIB:.2f} GiB captured CUDA graphs" in kv
    taken = [float(x) for x in re.findall(r"- ([\d.]+) GiB", kv)]
    assert abs(capacity - sum(taken) - p.kv_cache_bytes / GIB) <= 0.02, kv
    assert rows["KV cache"] in files["README.md"]
    # a release that sizes the pool from the profile's estimate keeps its one line
    old = render_files(spec_from_plan(kvplan.fit("Qwen/Qwen3-8B", "H100", max_model_len=8192, vllm_version="0.33.0")))
    assert "requested - the above = " in _arithmetic(old["serve.sh"])["KV cache"]
    assert "capacity" not in _arithmetic(old["serve.sh"])


def test_a_compiling_first_start_names_the_pool_line_not_the_capacity():
    """The first start's smaller pool was labelled 'Available KV cache memory 56.99-58.15 GiB', which a 0.34 start
    logs as the capacity (60.89 GiB); the pool it commits is the 'Extended KV cache to N blocks (S GiB)' line."""
    p = _plan()
    lo, hi = re.search(r"compiling: ([\d.]+)–([\d.]+) GiB", first_start_text(p)).groups()
    files = render_files(spec_from_plan(p))
    assert f"a first start (empty compile cache): Extended KV cache to N blocks ({lo}-{hi} GiB)" in files["serve.sh"]
    assert f"Available KV cache memory {lo}-{hi}" not in files["serve.sh"]
    assert (f"the pool it commits after warmup (`Extended KV cache to N blocks (S GiB)`) between {lo} and {hi} GiB"
            in files["README.md"])


def test_gpu_memory_utilization_is_left_unset_at_the_extensible_default():
    """The files wrote '--gpu-memory-utilization 1': vLLM 0.34.0 advises leaving it unset with its extensible KV cache
    (config/cache.py CacheConfig.gpu_memory_utilization), and an explicit 1.0 stays 1.0 where the start falls back to
    the profile's estimate (no CUDA virtual memory management), which unset takes at 0.92. Given, it is written."""
    p = _plan()
    assert p.args.gpu_memory_utilization == 1.0 and p.given_args.gpu_memory_utilization is None
    files = render_files(spec_from_plan(p))
    for name in ("serve.sh", "docker-compose.yml", "k8s/deployment.yaml"):
        assert "gpu-memory-utilization" not in files[name], name
    assert "gpu_memory_utilization left unset: vLLM 0.34.0's default with its extensible KV cache" in files["serve.sh"]
    assert f"takes {p.rules.default_gpu_memory_utilization}" in files["serve.sh"]
    for given in (1.0, 0.95):
        written = render_files(spec_from_plan(_plan(gpu_memory_utilization=given)))["serve.sh"]
        assert f"--gpu-memory-utilization {given:g}" in written and "left unset" not in written
    off = render_files(spec_from_plan(_plan(enable_extensible_kv_cache=False)))["serve.sh"]
    assert "--gpu-memory-utilization 0.92" in off


def test_readme_says_the_startup_prediction_has_no_0_34_start():
    """The startup prediction (and the probe sized at twice it) is fitted on records before 0.34, whose extensible KV
    cache runs a KV-cache sizing warmup after CUDA-graph capture: the README now says the prediction does not count it,
    where it said nothing (a 0.33 plan's README is unchanged)."""
    readme = render_files(spec_from_plan(_plan()))["README.md"]
    text = " ".join(readme.split())
    assert ("No vLLM 0.34.0 start is among the startups the prediction is fitted on: with the extensible KV cache a "
            "start also runs a KV-cache sizing warmup") in text
    old = render_files(spec_from_plan(kvplan.fit("Qwen/Qwen3-8B", "H100", max_model_len=8192, vllm_version="0.33.0")))
    off = render_files(spec_from_plan(_plan(enable_extensible_kv_cache=False)))
    assert "sizing warmup" not in old["README.md"] and "sizing warmup" not in off["README.md"]
