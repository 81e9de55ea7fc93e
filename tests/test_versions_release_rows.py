"""The rules rows that replaced kvplan.plan's inline release comparisons (`rules.release >= (0, 7, 0)`): each row's value at
every published release and two development builds equals what the old comparison gave. The reference expressions
below are the old inline ones, written once; the rows in versions._RULES must keep giving the same answers."""

import pytest

from kvplan.versions import PUBLISHED_RELEASES, rules_for

VERSIONS = (*PUBLISHED_RELEASES, "0.20.0.dev5", "0.26.1rc1.dev156", "0.5.4", "0.40.0")

# field -> the old inline expression of the release r (a parsed version tuple)
OLD = {
    "v0_engine_shipped": lambda r: r < (0, 11, 0),
    "use_v1_env_read": lambda r: (0, 6, 4) <= r < (0, 11, 1),
    "v0_chunked_prefill_tokens": lambda r: 2048 if r >= (0, 6, 5) else 512,
    # was (0, 12, 0): the 0.11.1 wheel's _set_default_args already takes max(max_model_len, the default)
    "v1_unchunked_batched_tokens": lambda r: "max_model_len" if r < (0, 11, 1) else "max_with_default",
    "uniform_type_kv_specs": lambda r: r >= (0, 11, 0),
    "mla_kernels": lambda r: r >= (0, 7, 1),  # was (0, 7, 0): the 0.7.0 wheel has no MLA backend
    # was "forced" below 0.18: the 0.7.x wheels have no FlashMLA, 0.8.0-0.10.0 no default CUTLASS_MLA
    "mla_block_size": lambda r: ("triton" if r < (0, 8, 0) else "flashmla" if r < (0, 10, 1) else "forced"
                                 if r < (0, 18, 0) else "preferred"),
    "dsv4_sparse_buffers_read": lambda r: r >= (0, 28, 0),
    "deepseek_v4_served": lambda r: not r < (0, 20, 0),
    "sparse_mla_served": lambda r: not r < (0, 11, 0),
    "sparse_mla_cache_layout": lambda r: "fp8_ds_mla" if r < (0, 11, 1) else "by_dtype",
    "sparse_mla_flashinfer_blackwell": lambda r: r >= (0, 33, 0),
    "sparse_mla_shared_workspace": lambda r: not r < (0, 13, 0),
    "sparse_mla_workspace_factor": lambda r: "fixed" if r < (0, 32, 0) else "by_length",
    "sparse_mla_prefill_q_concat": lambda r: r >= (0, 18, 0),
    "sparse_mla_prefill_token_buffers": lambda r: r >= (0, 31, 0),
    "sparse_mla_logits_buffer": lambda r: r >= (0, 19, 0),
    "sparse_mla_tp_topk_exchange": lambda r: r >= (0, 32, 0),
    "qwen3_vl_deepstack_buffers": lambda r: not r < (0, 11, 0),
    "qwen2_vl_video_profile": lambda r: r >= (0, 11, 0),
    "mm_text_only_towers": lambda r: "all" if r >= (0, 15, 0) else "qwen2_5_qwen3" if r >= (0, 10, 1) else "none",
    "mm_prefix_lm_text_only_off": lambda r: r >= (0, 27, 0),
    "mm_prefix_lm_batched_tokens_raise": lambda r: not r < (0, 22, 0),
    "mm_prefix_lm_item_refusal": lambda r: not r < (0, 22, 0),
    "mrv2_cudagraph_estimate": lambda r: not r < (0, 29, 0),
    "mrv2_forced_refusals": lambda r: "none" if r < (0, 20, 0) else "listed" if r >= (0, 22, 0) else "eagle_mtp_only",
    "mrv2_refusal_ngram_gpu": lambda r: (0, 22, 0) <= r < (0, 31, 0),
    # (before 0.20 the check returns first: the value there is read by no one)
    "mrv2_refuses_hybrid": lambda r: r < (0, 24, 0),
    "mrv2_refusal_prefix": lambda r: "VLLM_USE_V2_MODEL_RUNNER" if r < (0, 23, 0) else "Model Runner V2",
    "awq_auto_marlin": lambda r: not r < (0, 24, 0),  # AWQ_AUTO_MARLIN_SINCE = (0, 24, 0)
    "log_cudagraph_estimate": lambda r: r >= (0, 20, 0),
    "available_kv_log": lambda r: ("format_gib" if r >= (0, 14, 0) else "2f") if r >= (0, 9, 1) else "",
    "v0_blocks_log_device": lambda r: "GPU" if r < (0, 7, 0) else "cuda",
}


@pytest.mark.parametrize("field", sorted(OLD))
def test_each_moved_row_gives_what_the_old_comparison_gave(field):
    for version in VERSIONS:
        rules = rules_for(version)
        assert getattr(rules, field) == OLD[field](rules.release), (field, version)


def test_the_development_builds_read_as_the_releases_around_them():
    # the two dev builds land on either side of a step: 0.20.0.dev5 is before 0.20.0, 0.26.1rc1.dev156 is 0.27.0
    assert rules_for("0.20.0.dev5").release == (0, 20, -1)
    assert rules_for("0.26.1rc1.dev156").release == (0, 27, 0)


def test_a_record_version_below_the_first_release_number_is_no_release():
    # validate.version_basis reads a stated version from versions.RELEASE_NUMBERS_FROM (0.2) on: below it, setuptools-scm's
    # 0.1 guess for an untagged checkout, planned as a record without a version
    from kvplan.validate import version_basis
    from kvplan.versions import RELEASE_NUMBERS_FROM

    assert RELEASE_NUMBERS_FROM == (0, 2, 0)
    assert version_basis({"vllm_version": "0.2.0"}) == ("0.2.0", "stated")
    for below in ("0.1.7", "0.2.0.dev3", "0.0.1"):
        notes = []
        assert version_basis({"vllm_version": below}, notes)[1] != "stated"
        assert any("source build without a release number" in n for n in notes)


def test_deepseek_runs_mla_from_0_7_1_not_0_7_0():
    # the 0.7.0 wheel has no MLA backend (no attention/backends/mla/, no ModelConfig.use_mla): DeepSeek-V2-Lite's 16
    # heads keep K and V at head size 256 there; 0.7.1 caches one 576-wide MLA entry per token and layer
    import kvplan

    kw = dict(max_model_len=4096, fixes=False, site_calibration=False)
    old = kvplan.fit("deepseek-ai/DeepSeek-V2-Lite", "H100", vllm_version="0.7.0", **kw)
    new = kvplan.fit("deepseek-ai/DeepSeek-V2-Lite", "H100", vllm_version="0.7.1", **kw)
    assert any("DeepSeek MLA disabled, heads padded to 256" in a for a in old.assumptions)
    assert not any("DeepSeek MLA disabled" in a for a in new.assumptions)
    layers = 27
    assert old.bytes_per_block // old.block_size == layers * 2 * 16 * 256 * 2
    assert new.bytes_per_block // new.block_size == layers * 1280  # 576 x 2 B padded to a multiple of 256


@pytest.mark.parametrize("version, gpu, block", [("0.7.3", "H100", 16), ("0.8.0", "H100", 64), ("0.9.2", "B200", 16),
                                                 ("0.10.1", "B200", 128), ("0.10.1", "H100", 64), ("0.7.1", "A100", 16)])
def test_the_mla_block_size_follows_the_backends_each_release_has(version, gpu, block):
    # FlashMLA (64 on Hopper) from 0.8.0, CUTLASS_MLA the Blackwell default (128) from 0.10.1 (vllm/platforms/cuda.py in
    # the 0.7.1-0.7.3, 0.8.0, 0.8.5, 0.9.2, 0.10.0, 0.10.1 and 0.10.2 wheels); kvplan had forced both from 0.7
    import kvplan

    plan = kvplan.fit("deepseek-ai/DeepSeek-V2-Lite", gpu, vllm_version=version, max_model_len=4096, fixes=False,
                      site_calibration=False)
    assert plan.block_size == block
