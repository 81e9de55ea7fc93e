"""The blind set's MIG-slice startups (SOURCES-logs.md, thirtieth round: ssaketh-ch/llama31b-benchmark, Llama-3.1-8B on an
H200 NVL MIG 3g.71gb slice, vLLM 0.17.1, vllm.LLM in an MLPerf harness).

vLLM sizes the LLM class's default max_num_batched_tokens by the memory CUDA reports (vllm/engine/arg_utils.py
EngineArgs._set_default_args, 0.17.0: 'if device_memory >= 70 * GiB_bytes and "a100" not in device_name'), and a
MIG slice reports its own memory (69.75 GiB here), not the card's: the slice gets the small-device default 8192, which
the logs show ('Chunked prefill is enabled with max_num_batched_tokens=8192', 'compile range (1, 8192)'); the whole
H200 NVL would get 16384.
"""
import json
from pathlib import Path

from kvplan.resolve import GIB
from kvplan.validate import predict_record

DATA = Path(__file__).parent / "data"


def _mig_records():
    recs = [json.loads(line) for line in (DATA / "blind_records.jsonl").read_text().splitlines() if line.strip()]
    return [r for r in recs if " MIG " in (r["gpu"]["name"] or "")]


def test_mig_slice_records_plan_on_the_slice_total():
    recs = _mig_records()
    assert len(recs) == 4
    for rec in recs:
        p, _ = predict_record(rec)
        assert p.total_bytes == int(round(69.75 * GIB))


def test_mig_slice_gets_the_small_device_batched_tokens_default():
    rec = next(r for r in _mig_records() if r["id"] == "llama-3.1-8b-instruct-h200nvl-mig3g71-udef-tp1-l128k-llm-warm")
    assert rec["args"]["max_num_batched_tokens"] is None and rec["args"]["entrypoint"] == "llm"
    p, _ = predict_record(rec)
    assert p.args.max_num_batched_tokens == 8192  # the log's 'Chunked prefill is enabled with max_num_batched_tokens=8192'
    whole = dict(rec, gpu={"name": "NVIDIA H200 NVL", "total_gib": None, "count": 1})
    q, _ = predict_record(whole)
    assert q.args.max_num_batched_tokens == 16384
    # the logged pool, 46.78 GiB, is matched within 1 % by the plan on the slice
    assert abs(p.kv_cache_bytes / GIB - rec["observed"]["kv_cache_gib"]) / rec["observed"]["kv_cache_gib"] < 0.01


def test_a_slice_total_above_the_whole_card_is_refused():
    """--gpu 'A100 40GB MIG 3g.20gb' --gpu-gib 60 was planned as a 60 GiB slice of a 39.38 GiB card."""
    import pytest

    from kvplan.errors import InputError
    from kvplan.resolve import find_gpu

    with pytest.raises(InputError) as e:
        find_gpu("A100 40GB MIG 3g.20gb", total_bytes=60 * GIB)
    assert e.value.field == "--gpu-gib" and "60.00 GiB" in str(e.value) and "A100 40GB" in str(e.value)
    ok = find_gpu("A100 40GB MIG 3g.20gb", total_bytes=int(19.5 * GIB))
    assert ok.total_bytes == int(19.5 * GIB) and ok.name.endswith("MIG 3g.20gb")


def test_a_slice_total_above_the_whole_card_names_the_size_flag_given():
    """--gpu 'A100 40GB MIG 3g.20gb' --gpu-gb 80 was refused as '--gpu-gib: ...', a flag not given."""
    import pytest

    from kvplan.errors import InputError
    from kvplan.resolve import resolve_gpu

    for kw, flag in (({"gb": 80}, "--gpu-gb"), ({"gib": 60}, "--gpu-gib")):
        with pytest.raises(InputError) as e:
            resolve_gpu("A100 40GB MIG 3g.20gb", **kw)
        assert e.value.field == flag and "more than the whole" in str(e.value)


def test_a_profile_the_card_does_not_offer_is_refused_with_its_profiles():
    """'A100 MIG 9g.80gb' (no 9g profile on any card) and 'H100 MIG 3g.41gb' (the H100's 3g slice is 3g.40gb) were
    planned as slices of the card with whatever total was given; NVIDIA's MIG user guide and mig-parted's profile
    lists (resolve.MIG_PROFILES) have neither."""
    import pytest

    from kvplan.errors import InputError
    from kvplan.resolve import resolve_gpu

    for name, listed in (("A100 MIG 9g.80gb", "3g.40gb, 4g.40gb, 7g.80gb"), ("H100 MIG 3g.41gb", "3g.40gb"),
                         ("H100 MIG 4c.3g.40gb", "3g.40gb")):
        for kw in ({}, {"gib": 30.0}):  # refused for the profile before a total is asked for
            with pytest.raises(InputError) as e:
                resolve_gpu(name, **kw)
            assert e.value.field == "--gpu" and name in str(e.value) and listed in str(e.value)
    with pytest.raises(InputError, match="the NVIDIA L4 has no MIG"):
        resolve_gpu("L4 MIG 1g.6gb", gib=5.0)


def test_a_refused_profile_lists_every_named_cards_profiles():
    """'A100 MIG 5g.20gb' listed only the 80 GB A100's profiles (the card 'A100' resolves to), so a 40 GB card's
    user did not see theirs; a reference naming one variant ('A100 80GB') lists that one's alone."""
    import pytest

    from kvplan.errors import InputError
    from kvplan.resolve import resolve_gpu

    with pytest.raises(InputError) as e:
        resolve_gpu("A100 MIG 5g.20gb", gib=19.0)
    assert "1g.5gb, 1g.10gb, 2g.10gb, 3g.20gb" in str(e.value) and "3g.40gb, 4g.40gb, 7g.80gb" in str(e.value)
    with pytest.raises(InputError) as e:
        resolve_gpu("A100 80GB MIG 3g.20gb", gib=19.0)
    assert "3g.40gb" in str(e.value) and "1g.5gb" not in str(e.value)


def test_a_valid_profile_plans_on_the_card_its_memory_names():
    from kvplan.resolve import GIB, resolve_gpu

    for name, card in (("H100 MIG 3g.40gb", "NVIDIA H100 80GB SXM5"), ("H200 MIG 1g.18gb", "NVIDIA H200 141GB"),
                       ("A100 MIG 3g.20gb", "NVIDIA A100 40GB SXM4"), ("A100 MIG 3g.40gb", "NVIDIA A100 80GB SXM4"),
                       ("H100 MIG 1g.12gb", "NVIDIA H100 NVL"), ("NVIDIA H100 80GB HBM3 MIG 1c.3g.40gb", "NVIDIA H100 80GB SXM5"),
                       # RTX PRO Blackwell's '-me' and '+me.all' profiles were read as no MIG, and '1g' as '1GB'
                       ("RTX PRO 6000 MIG 1g.24gb-me", "NVIDIA RTX PRO 6000 Blackwell"),
                       ("RTX PRO 6000 MIG 2g.48gb+me.all", "NVIDIA RTX PRO 6000 Blackwell")):
        spec, notes = resolve_gpu(name, gib=9.5)
        assert spec.name.startswith(card + " MIG ") and spec.total_bytes == int(9.5 * GIB)
        # the profile's memory picked the variant: no 'names cards with ... as well' note
        assert not any("as well" in n for n in notes), (name, notes)
