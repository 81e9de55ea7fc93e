"""vLLM's startup rules, version by version, as data.

Every behaviour that changed between vLLM releases is one row of `_RULES` (a field
name and the list of (first version, value) steps) or of a table further down (the
serve flags a release accepts, SERVE_FLAG_SINCE; quantization methods,
QUANT_MIN_CAPABILITY). `rules_for("0.11.0")` folds `_RULES` into one frozen
`VersionRules`; the planner reads its fields (kvplan.plan compares `rules.release` with no
literal release: the version tables, e.g. V0_ONLY_ARCHITECTURES, are looked up with it).

Facts come from `docs/vllm-memory-model.md` (written from the Python sources inside
vLLM's release wheels 0.6.3.post1 ... 0.33.0); the section of that document is
cited beside each row. A step at version X means "first seen in the first release
read that has it"; releases between two read versions were not checked.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache

from packaging.version import InvalidVersion, Version

from kvplan.errors import InputError

# The release a plan, a launch file and a record or log without a version take when none is given: the newest whose
# KV-cache sizing real startups have validated. vLLM 0.34.0 (NEWEST_READ) sizes its pool after warmup and CUDA-graph
# capture at gpu_memory_utilization 1.0 by default (the extensible KV cache, rules row kv_pool_sizing); kvplan plans it
# when asked (--vllm-version 0.34.0, a record or log that states it or prints its 'Memory after warmup' line), but no
# public 0.34 startup has scored that sizing yet, so the default stays on 0.33.0 until one does.
DEFAULT_RELEASE = "0.33.0"
# The newest release whose sources were read (RELEASES_READ): a version past it is planned with its rules and a warning
NEWEST_READ = "0.34.0"
OLDEST_READ = "0.6.3"

# Releases whose sources were read (docs/vllm-memory-model.md, "Sources and method").
RELEASES_READ = (
    "0.6.3.post1", "0.6.4.post1", "0.6.5", "0.6.6.post1", "0.7.3", "0.8.5.post1", "0.9.0",
    "0.9.1", "0.9.2", "0.10.2", "0.11.0", "0.12.0", "0.14.1", "0.17.1", "0.18.1", "0.19.1",
    "0.20.0", "0.20.2", "0.21.0", "0.24.0", "0.25.1", "0.26.0", "0.27.0", "0.27.1", "0.28.0",
    "0.29.0", "0.30.0", "0.32.0", "0.33.0", "0.34.0",
)

V = tuple[int, int, int]

# The releases vLLM published on PyPI from OLDEST_READ to the newest read (`pip index versions vllm`, read 2026-12-02;
# 0.34.0 from PyPI's simple index, vllm-0.34.0.tar.gz uploaded 2026-11-16T23:50:58Z, no 0.33.x after 0.33.0). A
# release number between them that is none of these ('0.10.3', '0.9.9') names no wheel, image or pin: kvplan planned it
# without a word and scaffold pinned vllm==0.10.3, which pip cannot install (unpublished_release).
PUBLISHED_RELEASES = (
    "0.6.3", "0.6.3.post1", "0.6.4", "0.6.4.post1", "0.6.5", "0.6.6", "0.6.6.post1", "0.7.0", "0.7.1", "0.7.2", "0.7.3",
    "0.8.0", "0.8.1", "0.8.2", "0.8.3", "0.8.4", "0.8.5", "0.8.5.post1", "0.9.0", "0.9.0.1", "0.9.1", "0.9.2", "0.10.0",
    "0.10.1", "0.10.1.1", "0.10.2", "0.11.0", "0.11.1", "0.11.2", "0.12.0", "0.13.0", "0.14.0", "0.14.1", "0.15.0",
    "0.15.1", "0.16.0", "0.17.0", "0.17.1", "0.18.0", "0.18.1", "0.19.0", "0.19.1", "0.20.0", "0.20.1", "0.20.2",
    "0.21.0", "0.22.0", "0.22.1", "0.23.0", "0.24.0", "0.25.0", "0.25.1", "0.26.0", "0.27.0", "0.27.1", "0.28.0",
    "0.29.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0", "0.34.0",
)


# a container image reference before its tag: [registry[:port]/]path/name: ("vllm/vllm-openai:", "docker.io/vllm/
# vllm-openai:", "localhost:5000/vllm-openai:"). vLLM's own images are tagged v<release> on Docker Hub
# (docs/deployment/docker.md of the 0.10 releases names the image; its release tags read vllm/vllm-openai:v0.10.1.1);
# "latest" and "nightly" name no release.
_IMAGE_REF = r"(?:[\w.-]+(?::\d+)?/)*[\w.-]+:"


def _version_match(text: str) -> re.Match:
    """The release numbers at the start of `text` (after a 'vllm' or image-reference prefix, and a 'v'). Raises
    InputError on nonsense."""
    m = re.match(rf"^\s*(?:vllm[\s=:-]*|{_IMAGE_REF})?v?(\d{{1,6}})\.(\d{{1,6}})(?:\.(\d{{1,6}}))?(?!\d)", str(text),
                 re.IGNORECASE)
    if not m:
        shown = str(text) if len(str(text)) <= 40 else str(text)[:40] + "..."
        # 'nightly' / 'latest' (image tags) name no release: the build's own number is what vLLM prints
        raise InputError("--vllm-version", f"cannot read a vLLM version from {shown!r}",
                         f"give a release such as {DEFAULT_RELEASE}, or the number the build prints (`python -c 'import vllm; "
                         "print(vllm.__version__)'` in its image, e.g. 0.26.1rc1.dev156 for a nightly)")
    return m


def names_patch_release(text: str) -> bool:
    """Whether a version names its patch release ('0.11.2'), not only its series ('0.11', which parse_version reads
    as the series' first release)."""
    return _version_match(text).group(3) is not None


@lru_cache(maxsize=256)  # read on every plan by many rules (each read parses the PEP 440 token twice): pure in `text`
def parse_version(text: str) -> V:
    """'0.10.2' -> (0, 10, 2); 'vllm/vllm-openai:v0.10.1.1' -> (0, 10, 1). A development build with no release
    candidate in its name ('0.11.0.dev123+gabc', setuptools_scm's name for main after the last tag, here 0.10.x) holds
    the release before X.Y.Z plus main, so it reads as the release before it: (0, 11, -1), after every 0.10.x and
    before 0.11.0. A release candidate ('0.20.0rc1') is its release, X.Y.Z. A nightly named after one
    ('0.26.1rc1.dev156+g0eec856cc') is main past X.Y.Z's branch point and reads as the release after X.Y.Z
    (nightly_after_candidate). A .post or +local build is its release ('0.6.4.post2.dev258' -> (0, 6, 4)). Raises
    InputError on nonsense."""
    m = _version_match(text)
    if untagged_source_build(text):
        release, why = untagged_build_release(text)
        if release is None:
            raise InputError("--vllm-version", f"{text!r} is a source build made where no release tag was reachable "
                             f"(setuptools-scm names such a checkout 0.1.dev<commits>): its number names no release ({why})",
                             f"give the release it was built after, e.g. --vllm-version {DEFAULT_RELEASE}")
        return tuple(int(x) for x in release.split("."))
    release = (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))
    after = nightly_after_candidate(text)
    if after:
        return tuple(int(x) for x in after[1].split(".")[:3])
    return (*release[:2], release[2] - 1) if development_build_of(text) else release


def release_text(release: V) -> str:
    """A release as vLLM numbers it, (0, 10, 2) -> '0.10.2'."""
    return ".".join(map(str, release))


def release_token(text: str) -> str:
    """The version as written after a 'vllm', 'vllm==' or image-reference prefix and a 'v', up to a space or a remark:
    'vllm/vllm-openai:v0.10.1.1' -> '0.10.1.1', '0.26.1rc1.dev693 (nightly)' -> '0.26.1rc1.dev693'."""
    return re.match(r"[0-9A-Za-z.+!_-]*", str(text)[_version_match(text).start(1):]).group(0)


def _pep440_token(text: str) -> Version | None:
    """The PEP 440 version at the start of `text` (after a 'vllm' or image prefix), None where packaging cannot read it."""
    try:
        return Version(release_token(text))
    except InvalidVersion:
        return None


def nightly_after_candidate(text: str) -> tuple[str, str] | None:
    """(X.Y.Z, the first release vLLM published after it) for a nightly named after a release candidate
    ('0.16.0rc2.dev305+g23210a911', '0.29.1rc1.dev17+gd2d649e67'); None for anything else, where no published
    release follows X.Y.Z (the newest rules apply then), and where X.Y.Z is older than OLDEST_READ (PUBLISHED_RELEASES
    does not hold the release after it; the oldest rules apply, with newer_than_read's warning)

    setuptools-scm names a build M commits past the newest tag it reaches, vX.Y.Zrc(N-1), 'X.Y.ZrcN.devM'. vLLM's
    final release tags are not on main (vLLM issue #25476: 0.10.2's tag 'does not come from any branch', so main's
    nightlies read 0.10.2rc3.dev377 and a v0.11.0rc1 tag was pushed on main to lift them), while the candidate tags
    that main reaches are put there when a release is cut: main's nightlies of September 2026 read 0.29.1rc1.dev301
    (vLLM PR #57397), after 0.29.0, on the way to 0.30.0. So such a build holds X.Y.Z and M of main's commits for the
    next release. kvplan's records show the next release's behaviour in them: 0.26.1rc1.dev156 prints 0.27's
    'consumed memory' summary, 0.16.0rc2.dev305 runs 0.17's all-reduce fusion; read as the next release, the four
    records whose plan moves come closer (tests/data/SOURCES-logs.md, Nightly round). A build only a few commits past
    the cut holds little of the next release; the plan says which rules it applied (rules_for)."""
    version = _pep440_token(text)
    if version is None or version.pre is None or version.dev is None or version.post is not None:
        return None
    base = release_text((version.release + (0, 0))[:3])
    if Version(base) < Version(OLDEST_READ):
        return None  # PUBLISHED_RELEASES starts at OLDEST_READ: the release after an older X.Y.Z is not among them
    later = [r for r in PUBLISHED_RELEASES if Version(r).release[:3] > Version(base).release[:3]]
    return (base, min(later, key=Version)) if later else None


# The lowest number read as a vLLM release in a record (validate.version_basis): below it (0.0.x, 0.1.x, and 0.2.0's dev
# builds, which parse_version reads as (0, 2, -1)) a version is taken for setuptools-scm's 0.1 guess for a checkout with
# no release tag (untagged_source_build reads its 0.1.devN form), not a release; vLLM's own 0.1.x releases (2023)
# predate every rule kvplan holds
RELEASE_NUMBERS_FROM: V = (0, 2, 0)


def untagged_source_build(text: str) -> bool:
    """Whether `text` is setuptools-scm's name for a checkout with no release tag reachable: '0.1.dev10446+g2dcd12d35'
    (its default guess 0.1, .dev and the number of commits; an Anyscale Ray Serve log of October 2025 prints one). vLLM's
    own 0.1.x releases (2023) have a patch number and no .dev. Read at the start of `text`, as _version_match reads a
    release: an image reference or a remark after it ('0.1.dev1+gd56e95223 (custom build from main)') is still one."""
    return re.match(rf"^\s*(?:vllm[\s=:-]*|{_IMAGE_REF})?v?0\.1\.dev\d+(?:\+\S*)?(?:\s|$)", str(text),
                    re.IGNORECASE) is not None


def untagged_build_release(text: str) -> tuple[str | None, str]:
    """(the release whose rules a 0.1.dev<N> source build takes, why) -- (None, why) where N places it nowhere.

    setuptools-scm's N is `git rev-list --count HEAD`, every commit the checkout holds. A checkout of vLLM's main holds
    each release whose release branch was cut from an ancestor of it, so it reads as the newest release whose branch
    point (data/vllm_branch_points.json) counts at most N: '0.1.dev7548+gbaba038' (main of 2025-07-08) holds 0.9.2's
    branch point (7,501) and not 0.10.0's (7,926), and reads as 0.9.2. Patch releases (0.27.1) leave from their
    branch's first release's point and are not told apart. A build on a branch of its own counts its own commits too,
    so N names the newest release it can hold. N below the first branch point read is a clone that fetched part of
    the history (a depth-1 clone prints 0.1.dev1); N past the end of the main history read could be a later release."""
    m = re.search(r"0\.1\.dev(\d+)", str(text))
    if not m or not untagged_source_build(text):
        return None, "it is not setuptools-scm's 0.1.dev<commits> name"
    n, table = int(m.group(1)), _data_file("vllm_branch_points.json")
    rows, end = table["releases"], table["main_known_through"]
    if n < rows[0]["branch_point_count"]:
        return None, (f"its {n:,} commit(s) are fewer than vLLM's main held at {rows[0]['release']}'s branch point "
                      f"({rows[0]['branch_point_count']:,}), the oldest this reading holds: an older checkout, or a clone "
                      "that fetched part of the history (a depth-1 clone counts 1), so the number places it nowhere")
    if n > end["count"]:
        return None, (f"its {n:,} commits are more than the upstream main history kvplan reads holds ({end['count']:,}, "
                      f"to {end['committed'][:10]}), past which {end['next_release']}'s and later branch points lie, so "
                      "the number places it nowhere")
    at = [r for r in rows if r["branch_point_count"] <= n][-1]
    later = [r for r in rows if r["branch_point_count"] > n]
    bound = (f"{later[0]['release']}'s ({later[0]['branch_point_count']:,})" if later else
             f"{end['next_release']}'s (past {end['count']:,})")
    return at["release"], (f"its {n:,} commits reach {at['release']}'s branch point on main ({at['branch_point_count']:,}, "
                           f"{at['branch_point_committed'][:10]}) and not {bound}")


def untagged_unplaced(text: str) -> bool:
    """Whether `text` is an untagged source build (0.1.dev<N>) whose N places it at no release
    (untagged_build_release): such a number names no release, as a log printing none."""
    return untagged_source_build(text) and untagged_build_release(text)[0] is None


def development_build_of(text: str) -> str | None:
    """The release 'X.Y.Z' that `text` names a development build of, with no release candidate in its name
    (0.11.0.dev123+gabc: PEP 440 orders it before 0.11.0, and it holds the release before X.Y.Z plus main's commits);
    None for a release, its release candidates and the nightlies built after one (0.20.0rc1, 0.29.1rc1.dev17: cut
    after X.Y.Z's branch point, nightly_after_candidate), its .post and +local builds, and a version packaging cannot read (a '0.10.1-cu128'
    image tag: its release)."""
    version = _pep440_token(text)
    if version is None or untagged_source_build(text):  # 0.1.dev<N> names no release of its own: untagged_build_release
        return None
    base = release_text((version.release + (0, 0))[:3])
    return base if version.dev is not None and version.pre is None and version.post is None and version < Version(base) else None


# (field, [(first version, value), ...]) -- the value holds from that version on.
# The architectures whose model class lists embed_tokens (and, but for Cohere's, lm_head) in its LoRA
# embedding_modules in every release read that serves them (rules row lora_embedding_archs adds the ones that changed).
LORA_EMBEDDING_ARCHS = frozenset({
    "ApertusForCausalLM", "AquilaForCausalLM", "AquilaModel", "BambaForCausalLM", "Cohere2ForCausalLM", "CohereForCausalLM",
    "CwmForCausalLM", "DeciLMForCausalLM", "Ernie4_5ForCausalLM", "Exaone4ForCausalLM", "ExaoneForCausalLM",
    "ExaoneMoEForCausalLM", "ExaoneMoeForCausalLM", "Fairseq2LlamaForCausalLM", "FalconH1ForCausalLM", "GlmForCausalLM",
    "GraniteForCausalLM", "GraniteMoeForCausalLM", "GraniteMoeHybridForCausalLM", "GraniteMoeSWAForCausalLM",
    "GraniteMoeSharedForCausalLM", "GraniteSWAForCausalLM", "GritLM", "HyperCLOVAXForCausalLM", "IQuestCoderForCausalLM",
    "InternLM3ForCausalLM", "InternLMForCausalLM", "Jais2ForCausalLM", "JambaForCausalLM", "K2HorizonForCausalLM",
    "LLaMAForCausalLM", "Lfm2ForCausalLM", "Lfm2MoeForCausalLM", "Llama4ForCausalLM", "LlamaForCausalLM",
    "MiniCPM3ForCausalLM", "MiniCPMForCausalLM", "MixtralForCausalLM", "MossAudioModel", "MotifForCausalLM",
    "NemotronForCausalLM", "NemotronHForCausalLM", "NemotronHPuzzleForCausalLM", "Param2MoEForCausalLM", "Phi3ForCausalLM",
    "PhiMoEForCausalLM", "Qwen3_5ForCausalLM", "Qwen3_5MoeForCausalLM", "SolarForCausalLM", "TeleChat2ForCausalLM",
    "TeleChat3ForCausalLM", "TeleChatForCausalLM", "TeleFLMForCausalLM", "XverseForCausalLM"})
# ... of which these wrap the embedding alone (no module named lm_head)
LORA_EMBEDDING_ONLY_ARCHS = frozenset({"CohereForCausalLM", "Cohere2ForCausalLM"})

# Model classes without SupportsLoRA, which vLLM refuses with --enable-lora ("{class} does not support LoRA yet.":
# v1/worker/lora_model_runner_mixin.py load_lora_model, 0.10.2, 0.20.0, 0.33.0; 0.33.0's LoRAConfig says "LoRA is not
# supported for ..."): the last release read whose class lacks it and the first read that has it (None: none read
# has it), from each class and its bases in models/ of the 0.10.2, 0.11.0, 0.12.0, 0.14.0, 0.15.0, 0.16.0, 0.18.0,
# 0.19.0, 0.20.0 and 0.33.0 wheels. A release between the two was not read.
LORA_UNSUPPORTED: dict[str, tuple[str, str | None]] = {
    "GptOssForCausalLM": ("0.11.0", "0.12.0"), "Llama4ForConditionalGeneration": ("0.11.0", "0.12.0"),
    "OlmoeForCausalLM": ("0.11.0", "0.12.0"), "OPTForCausalLM": ("0.11.0", "0.12.0"),
    "LlavaForConditionalGeneration": ("0.12.0", "0.14.0"), "PixtralForConditionalGeneration": ("0.12.0", "0.14.0"),
    "PaliGemmaForConditionalGeneration": ("0.12.0", "0.14.0"), "MiniMaxM2ForCausalLM": ("0.14.0", "0.15.0"),
    "Gemma4ForConditionalGeneration": ("0.19.0", "0.20.0"), "MllamaForConditionalGeneration": ("0.10.2", None),
    "DeepseekV4ForCausalLM": ("0.20.0", None),
}


# Model classes whose MoE layers hand FusedMoE the config's n_group as num_expert_group, which round-robin expert
# placement needs above 1 (fused_moe/expert_map_manager.py determine_expert_placement_strategy): the architectures
# model_executor/models/registry.py maps to AXK1.py, afmoe.py, bailing_moe.py, bailing_moe_linear.py,
# bailing_moe_v3.py, deepseek_v2.py (getattr(config, "n_group", 1)), exaone_moe.py, glm4_moe.py, mimo_v2.py,
# nemotron_h.py, param2moe.py and sarvam.py, the same in the 0.33.0 and 0.34.0 wheels. Every other class read there
# passes None or 1, or (Beam, GLM-5 Next, Kimi K3, under vllm/models/) a value kvplan has not traced to a config key.
EXPERT_GROUP_ARCHS = frozenset({
    "AXK1ForCausalLM", "AfmoeForCausalLM", "BailingMoeForCausalLM", "BailingMoeV2ForCausalLM", "BailingMoeV2_5ForCausalLM",
    "BailingMoeV3ForCausalLM", "DeepseekForCausalLM", "DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM",
    "ExaoneMoeForCausalLM", "ExaoneMoEForCausalLM", "Glm4MoeForCausalLM", "MiMoV2FlashForCausalLM", "MiMoV2ForCausalLM",
    "NemotronHForCausalLM", "NemotronHPuzzleForCausalLM", "Param2MoEForCausalLM", "SarvamMoEForCausalLM",
    "SarvamMLAForCausalLM"})


# The architectures whose vLLM class implements MixtureOfExperts (models/interfaces.py), the only ones that read
# --enable-eplb and the redundant experts: their MoE blocks build FusedMoE with enable_eplb and num_redundant_experts
# from the parallel config (e.g. models/qwen3_moe.py Qwen3MoeSparseMoeBlock, deepseek_v2.py DeepseekV2MoE), and the
# model runner builds the EPLB state only for such a model (v1/worker/gpu_model_runner.py load_model,
# is_mixture_of_experts / get_mixture_of_experts_model). Any other MoE class builds its experts as without EPLB and
# vLLM starts without balancing. Steps (first release, supported) as read from each wheel's model registry and the
# classes deriving from MixtureOfExperts in model_executor/models/ (and vllm/models/ from 0.20.0), in every release
# from 0.9.2 to 0.34.0 but 0.10.1.1, 0.20.1 and 0.27.1: 0.9.2, 0.10.0, 0.10.1, 0.10.2, 0.11.0, 0.11.1, 0.11.2, 0.12.0,
# 0.13.0, 0.14.0, 0.14.1, 0.15.0, 0.15.1, 0.16.0, 0.17.0, 0.17.1, 0.18.0, 0.18.1, 0.19.0, 0.19.1, 0.20.0, 0.20.2,
# 0.21.0, 0.22.0, 0.22.1, 0.23.0, 0.24.0, 0.25.0, 0.25.1, 0.26.0, 0.27.0, 0.28.0, 0.29.0, 0.30.0, 0.31.0, 0.32.0,
# 0.33.0, 0.34.0 (a step at X: first seen in X)
EPLB_ARCHITECTURES: dict[str, list[tuple[V, bool]]] = {
    "AXK1ForCausalLM": [((0, 17, 0), True)],
    "AfmoeForCausalLM": [((0, 25, 0), True)],
    "AliceAIForCausalLM": [((0, 33, 0), True)],
    "AriaForConditionalGeneration": [((0, 34, 0), True)],
    "BeamForCausalLM": [((0, 33, 0), True)],
    "DSparkDraftModel": [((0, 32, 0), True)],
    "DSparkV41DraftModel": [((0, 32, 0), True)],
    "DeepSeekMTPModel": [((0, 11, 1), True)],
    "DeepseekForCausalLM": [((0, 11, 1), True)],
    "DeepseekV2ForCausalLM": [((0, 9, 2), True)],
    "DeepseekV32ForCausalLM": [((0, 11, 0), True)],
    "DeepseekV32MTPModel": [((0, 29, 0), True)],
    "DeepseekV3BidirectionalModel": [((0, 29, 0), True)],
    "DeepseekV3ForCausalLM": [((0, 9, 2), True)],
    "DeepseekV4ForCausalLM": [((0, 23, 0), True)],
    "Dots3NoteMTPModel": [((0, 28, 0), True)],
    "Eagle3DeepseekV2ForCausalLM": [((0, 18, 0), True)],
    "Eagle3DeepseekV3ForCausalLM": [((0, 18, 0), True)],
    "EagleDeepSeekMTPModel": [((0, 10, 2), True)],
    "EagleLlama4ForCausalLM": [((0, 11, 1), True), ((0, 30, 0), False)],
    "EagleMistralLarge3ForCausalLM": [((0, 12, 0), True), ((0, 30, 0), False)],
    "Ernie4_5_MoeForCausalLM": [((0, 11, 1), True)],
    "FlexOlmoForCausalLM": [((0, 29, 0), True)],
    "Gemma4ForCausalLM": [((0, 19, 0), True)],
    "Glm4MoeForCausalLM": [((0, 11, 1), True)],
    "Glm4MoeLiteForCausalLM": [((0, 15, 0), True)],
    "Glm4MoeLiteMTPModel": [((0, 15, 0), True)],
    "Glm4MoeMTPModel": [((0, 11, 1), True)],
    "Glm5NextForCausalLM": [((0, 30, 0), True)],
    "Glm5NextForConditionalGeneration": [((0, 30, 0), True)],
    "Glm5NextMTPModel": [((0, 30, 0), True)],
    "GlmMoeDsaForCausalLM": [((0, 16, 0), True)],
    "HunYuanDenseV1ForCausalLM": [((0, 11, 0), True), ((0, 11, 1), False)],
    "HunYuanMoEV1ForCausalLM": [((0, 11, 0), True)],
    "InternS1ProForConditionalGeneration": [((0, 16, 0), True)],
    "InternS2MobiusForConditionalGeneration": [((0, 28, 0), True)],
    "InternS2MobiusMTP": [((0, 28, 0), True)],
    "InternS2PreviewForConditionalGeneration": [((0, 22, 0), True)],
    "K2HorizonForCausalLM": [((0, 30, 0), True)],
    "KimiLinearForCausalLM": [((0, 11, 1), True)],
    "Kolibri1ForCausalLM": [((0, 33, 0), True)],
    "Lfm2MoeForCausalLM": [((0, 11, 1), True)],
    "Llama4ForCausalLM": [((0, 11, 1), True)],
    "Llama4ForConditionalGeneration": [((0, 11, 1), True)],
    "MellumForCausalLM": [((0, 22, 1), True)],
    "MiMoV2FlashForCausalLM": [((0, 14, 0), True)],
    "MiMoV2ForCausalLM": [((0, 21, 0), True)],
    "MistralLarge3ForCausalLM": [((0, 12, 0), True)],
    "MixtralForCausalLM": [((0, 11, 0), True)],
    "MuseSparkForConditionalGeneration": [((0, 33, 0), True)],
    "NemotronHForCausalLM": [((0, 11, 1), True)],
    "NemotronHPuzzleForCausalLM": [((0, 16, 0), True)],
    "OlmoeForCausalLM": [((0, 34, 0), True)],
    "PanguProMoEV2ForCausalLM": [((0, 14, 0), True)],
    "PanguUltraMoEForCausalLM": [((0, 11, 1), True)],
    "Param2MoEForCausalLM": [((0, 20, 0), True)],
    "Qwen3MoeForCausalLM": [((0, 10, 1), True)],
    "Qwen3NextForCausalLM": [((0, 10, 2), True)],
    "Qwen3NextMTP": [((0, 11, 1), True)],
    "Qwen3VLMoeForConditionalGeneration": [((0, 12, 0), True)],
    "Qwen3_5MoeForCausalLM": [((0, 27, 0), True)],
    "Qwen3_5MoeForConditionalGeneration": [((0, 17, 0), True)],
    "Qwen3_5MoeMTP": [((0, 17, 0), True)],
    "Qwen4ExpForCausalLM": [((0, 29, 0), True)],
    "Qwen4ExpForConditionalGeneration": [((0, 29, 0), True)],
    "Qwen4ExpMTP": [((0, 29, 0), True)],
    "SarvamMLAForCausalLM": [((0, 18, 0), True)],
    "Step3p5ForCausalLM": [((0, 15, 1), True)],
    "Step5ForCausalLM": [((0, 33, 0), True)],
    "Step5MTP": [((0, 33, 0), True)],
    "TransformersMoEEmbeddingModel": [((0, 11, 1), True)],
    "TransformersMoEForCausalLM": [((0, 11, 1), True)],
    "TransformersMoEForMTP": [((0, 33, 0), True)],
    "TransformersMoEForSequenceClassification": [((0, 11, 1), True)],
    "TransformersMultiModalMoEForCausalLM": [((0, 11, 1), True)],
    "UnlimitedOCR2TextForCausalLM": [((0, 34, 0), True)],
}


def eplb_architecture(architectures, release: V) -> bool | None:
    """Whether vLLM `release` balances (EPLB) a model of `architectures` (EPLB_ARCHITECTURES); None before the first
    release with EPLB."""
    if release < (0, 9, 2):
        return None
    return any(_value_at(EPLB_ARCHITECTURES.get(a, [((0, 0, 0), False)]), release) for a in architectures or ())


# The routed experts' quantization methods that take EPLB (rules row eplb_quant_check), by the release first read with
# each set, keyed as plan.eplb.eplb_quant_key names them: "unquantized" (UnquantizedFusedMoEMethod), "fp8" (Fp8MoEMethod:
# an FP8 checkpoint or --quantization fp8), "ct_w8a8_fp8" (CompressedTensorsW8A8Fp8MoEMethod), "ct_wna16"
# (CompressedTensorsWNA16MoEMethod), "modelopt_nvfp4" (ModelOptNvFp4FusedMoE), "online" (OnlineMoEMethodBase),
# "experts_int8" (Int8OnlineMoEMethod, an OnlineMoEMethodBase, which ExpertsInt8Config.get_quant_method builds from
# 0.20.0; ExpertsInt8MoEMethod before), "mxfp4" (Mxfp4MoEMethod), "quark_mx" (QuarkOCP_MX_MoEMethod,
# QuarkW8A8Mxfp8MoEMethod). supports_eplb returns True in these classes of the 0.11.1, 0.11.2, 0.12.0, 0.13.0, 0.14.0,
# 0.14.1, 0.15.0, 0.15.1, 0.17.1, 0.19.1, 0.20.0, 0.33.0 and 0.34.0 wheels (0.10.0-0.11.0: isinstance of Fp8MoEMethod or
# UnquantizedFusedMoEMethod in FusedMoE.__init__; 0.9.2: Fp8MoEMethod alone). "ct_wna16" in 0.12.0-0.20.0: only where
# CompressedTensorsMoEMethod.get_moe_method builds the Triton class, not CompressedTensorsWNA16MarlinMoEMethod (whose
# supports_eplb is False; plan.eplb.ct_wna16_marlin), likewise 0.21.0-0.26.x. The second set: methods whose answer
# depends on the kernel backend they pick at load (0.27.0-0.34.0: CompressedTensorsWNA16MoEMethod.supports_eplb is
# wna16_backend == WNA16MoEBackend.TRITON, the backend fused_moe/oracle/int_wna16.py select_wna16_moe_backend picks in
# __init__; plan.eplb.resolve_eplb refuses where FlashInfer TRTLLM or Marlin takes the layer on NVIDIA and warns
# otherwise; 0.33.0-0.34.0 also
# CompressedTensorsW4A4Nvfp4MoEMethod / W4A4Mxfp4MoEMethod only on FlashInfer backends)
EPLB_QUANT_METHODS: list[tuple[V, tuple[frozenset[str], frozenset[str]]]] = [
    ((0, 0, 0), (frozenset(), frozenset())),
    ((0, 9, 2), (frozenset({"fp8"}), frozenset())),
    ((0, 10, 0), (frozenset({"fp8", "unquantized"}), frozenset())),
    ((0, 11, 1), (frozenset({"fp8", "unquantized", "ct_w8a8_fp8"}), frozenset())),
    ((0, 12, 0), (frozenset({"fp8", "unquantized", "ct_w8a8_fp8", "ct_wna16"}), frozenset())),
    ((0, 13, 0), (frozenset({"fp8", "unquantized", "ct_w8a8_fp8", "ct_wna16", "modelopt_nvfp4"}), frozenset())),
    ((0, 20, 0), (frozenset({"fp8", "unquantized", "ct_w8a8_fp8", "ct_wna16", "modelopt_nvfp4", "online",
                             "experts_int8"}), frozenset())),
    ((0, 27, 0), (frozenset({"fp8", "unquantized", "ct_w8a8_fp8", "modelopt_nvfp4", "online", "experts_int8"}),
                  frozenset({"ct_wna16"}))),
    ((0, 33, 0), (frozenset({"fp8", "unquantized", "ct_w8a8_fp8", "modelopt_nvfp4", "online", "experts_int8", "mxfp4",
                             "quark_mx"}),
                  frozenset({"ct_wna16", "ct_nvfp4", "ct_mxfp4"}))),
]

# The class FusedMoE's EPLB refusal names ("EPLB is not supported {class}.": rules eplb_quant_message) for the methods
# that refuse it, by eplb_quant_key, from each config's get_quant_method for a FusedMoE layer (quantization/*.py) in the
# 0.11.1, 0.12.0, 0.14.1, 0.15.0, 0.17.1, 0.19.1 and 0.20.0 wheels; None where not read, or where the class depends on
# what kvplan does not pin.
# "ct_wna16" is plan.eplb's (CompressedTensorsWNA16MarlinMoEMethod or CompressedTensorsWNA16MoEMethod)
EPLB_MOE_CLASSES: dict[str, list[tuple[V, str | None]]] = {
    "bitsandbytes": [((0, 0, 0), None), ((0, 11, 1), "BitsAndBytesMoEMethod"), ((0, 21, 0), None)],
    "gguf": [((0, 0, 0), None), ((0, 11, 1), "GGUFMoEMethod"), ((0, 21, 0), None)],
    "experts_int8": [((0, 0, 0), None), ((0, 11, 1), "ExpertsInt8MoEMethod"), ((0, 20, 0), None)],
    # Mxfp4Config.get_quant_method on CUDA: Mxfp4MoEMethod (0.11.1-0.19.1), GptOssMxfp4MoEMethod (0.20.0)
    "mxfp4": [((0, 0, 0), None), ((0, 11, 1), "Mxfp4MoEMethod"), ((0, 20, 0), "GptOssMxfp4MoEMethod"), ((0, 21, 0), None)],
    "modelopt_fp8": [((0, 0, 0), None), ((0, 11, 1), "ModelOptFp8MoEMethod"), ((0, 21, 0), None)],
    "modelopt_nvfp4": [((0, 0, 0), None), ((0, 11, 1), "ModelOptNvFp4FusedMoE"), ((0, 13, 0), None)],
    # CompressedTensorsMoEMethod.get_moe_method for NVFP4 / MXFP4 experts
    "ct_nvfp4": [((0, 0, 0), None), ((0, 11, 1), "CompressedTensorsW4A4MoeMethod"),
                 ((0, 12, 0), "CompressedTensorsW4A4Nvfp4MoEMethod"), ((0, 21, 0), None)],
    "ct_mxfp4": [((0, 0, 0), None), ((0, 15, 0), "CompressedTensorsW4A4Mxfp4MoEMethod"), ((0, 21, 0), None)],
    # AWQ and GPTQ experts (plan.eplb.wna16_moe_class picks among these): the Marlin MoE class where
    # check_moe_marlin_supports_layer passes (plan.eplb.wna16_marlin_fits), else MoeWNA16Config's MoeWNA16Method.
    # AWQ: awq.py and awq_marlin.py alike -- awq.py builds AWQMoEMethod in 0.11.1-0.11.2 and AWQMarlinMoEMethod in
    # 0.12.0-0.14.1, from 0.15.0 to 0.23.0 it hands the layer to AWQMarlinConfig (AWQMarlinMoEMethod); from 0.24.0
    # AutoAWQConfig serves awq / awq_marlin / auto_awq (quantization/__init__.py method map) and builds
    # AutoAWQMoEMethod (auto_awq.py get_quant_method). GPTQ: GPTQMarlinMoEMethod only where the checkpoint is converted
    # to gptq_marlin (GPTQMarlinConfig, up to 0.21.0; plain GPTQConfig builds MoeWNA16Method always: gptq.py); from
    # 0.22.0 AutoGPTQConfig serves gptq / gptq_marlin / auto_gptq and builds AutoGPTQMoEMethod (auto_gptq.py
    # get_quant_method). awq.py, awq_marlin.py, gptq.py, gptq_marlin.py, auto_awq.py, auto_gptq.py, moe_wna16.py of the
    # 0.11.1, 0.11.2, 0.12.0, 0.13.0, 0.14.1, 0.15.0, 0.16.0, 0.17.1, 0.18.1, 0.19.1, 0.20.0, 0.21.0, 0.22.0, 0.22.1,
    # 0.23.0, 0.24.0, 0.25.0, 0.25.1, 0.26.0, 0.27.0, 0.27.1, 0.28.0, 0.29.0, 0.30.0, 0.31.0, 0.32.0, 0.33.0, 0.34.0
    # wheels: none of these classes sets supports_eplb (FusedMoEMethodBase.supports_eplb: False), and FusedMoE /
    # RoutedExperts.__init__ refuses right after get_quant_method ("EPLB is not supported {class}.", fused_moe/layer.py
    # 0.21.0-0.23.0, fused_moe/routed_experts.py 0.24.0-0.34.0)
    "awq_marlin": [((0, 0, 0), None), ((0, 11, 1), "AWQMoEMethod"), ((0, 12, 0), "AWQMarlinMoEMethod"),
                   ((0, 24, 0), "AutoAWQMoEMethod")],
    "gptq_marlin": [((0, 0, 0), None), ((0, 11, 1), "GPTQMarlinMoEMethod"), ((0, 22, 0), "AutoGPTQMoEMethod")],
    "moe_wna16": [((0, 0, 0), None), ((0, 11, 1), "MoeWNA16Method")],
}


# The keys --eplb-config takes where vLLM refuses others: EPLBConfig's fields (config/parallel.py) from 0.16.0, whose
# config/utils.py @config makes the pydantic dataclass with ConfigDict(extra="forbid") (0.10.2-0.15.1: a plain pydantic
# dataclass, None here: not claimed). Fields as read in every wheel: use_async from 0.12.0, policy from 0.13.0,
# log_balancedness_interval from 0.14.0, communicator from 0.20.0, enable_migration_batching from 0.32.0
_EPLB_KEYS_016 = frozenset({"window_size", "step_interval", "num_redundant_experts", "log_balancedness",
                            "log_balancedness_interval", "use_async", "policy"})
EPLB_CONFIG_KEYS: list[tuple[V, frozenset[str] | None]] = [
    ((0, 0, 0), None),
    ((0, 16, 0), _EPLB_KEYS_016),
    ((0, 20, 0), _EPLB_KEYS_016 | {"communicator"}),
    ((0, 32, 0), _EPLB_KEYS_016 | {"communicator", "enable_migration_batching"}),
]


def eplb_config_keys(release: V) -> frozenset[str] | None:
    """The --eplb-config keys vLLM `release` takes where it refuses any other (EPLB_CONFIG_KEYS), else None."""
    return _value_at(EPLB_CONFIG_KEYS, release)


def eplb_moe_class(key: str, release: V) -> str | None:
    """The MoE method class vLLM `release` builds for the experts' method `key` where it refuses EPLB
    (EPLB_MOE_CLASSES), None where kvplan cannot name it."""
    steps = EPLB_MOE_CLASSES.get(key)
    return _value_at(steps, release) if steps else None


def eplb_quant_support(key: str, release: V) -> str:
    """'yes', 'no' or 'backend' (decided by the kernel the method picks at load) for the experts' method `key` under
    EPLB in vLLM `release` (EPLB_QUANT_METHODS)."""
    yes, maybe = _value_at(EPLB_QUANT_METHODS, release)
    return "yes" if key in yes else "backend" if key in maybe else "no"


def lora_refusal(architectures, version: str) -> tuple[str, str] | None:
    """("refused" | "unread", text) where vLLM `version` serves the model class without LoRA (LORA_UNSUPPORTED): refused
    up to the last release read without it, unread between that and the first read with it (or after it, where none
    has it); None otherwise."""
    release = parse_version(version)
    for arch in architectures or ():
        row = LORA_UNSUPPORTED.get(arch)
        if row is None:
            continue
        without, with_ = row
        if release <= parse_version(without):
            return "refused", arch
        if with_ is None or release < parse_version(with_):
            return "unread", arch
    return None


_RULES: dict[str, list[tuple[V, object]]] = {
    # Engine: V1 is the default from 0.8.0; V0 removed in 0.11 (section 0).
    "engine": [((0, 0, 0), "v0"), ((0, 8, 0), "v1")],
    # Whether the release still ships its V0 engine (section 0: removed in 0.11): up to 0.10 a V1 release falls back
    # to V0 for a feature V1 lacks (EngineArgs._is_v1_supported_oracle, plan.v1_fallback) and VLLM_USE_V1=0 runs V0
    "v0_engine_shipped": [((0, 0, 0), True), ((0, 11, 0), False)],
    # Whether vllm/envs.py reads VLLM_USE_V1, as bool(int(value)): 0.6.4-0.11.0 (read in the 0.6.4.post1, 0.7.3, 0.8.2
    # and 0.11.0 wheels; 0.6.4's api_server.py reads it at import). 0.11.0 still reads it, and its server stops on 0
    # (SERVE_ENV_REFUSED); from 0.11.1 it has no effect (plan._env_rules)
    "use_v1_env_read": [((0, 0, 0), False), ((0, 6, 4), True), ((0, 11, 1), False)],
    # How available KV memory is computed (section 0, era map; section 1.3).
    "era": [((0, 0, 0), "V0-a"), ((0, 6, 4), "V0-b"), ((0, 6, 5), "V0-c"), ((0, 8, 0), "V1-a"),
            ((0, 9, 1), "V1-b"), ((0, 11, 0), "V1-c"), ((0, 18, 0), "V1-d"), ((0, 20, 0), "V1-e"),
            ((0, 27, 0), "V1-f")],
    # gpu_memory_utilization default (section 1.2: vllm/config/cache.py).
    "default_gpu_memory_utilization": [((0, 0, 0), 0.90), ((0, 20, 0), 0.92)],
    # How the KV pool is sized. "estimate": from the memory profile's arithmetic, the pool is what the budget leaves
    # (sections 1.3-1.5), every release up to 0.33. "extensible" from 0.34.0, the extensible KV cache: on by default on
    # CUDA and ROCm (config/vllm.py VllmConfig._resolve_extensible_kv_cache, 0.34.0 wheel), it reserves the profile's
    # capacity as virtual memory, logs it as "Available KV cache memory", runs the fit check against it, then commits
    # the blocks the memory measured after warmup and CUDA-graph capture leaves (v1/worker/extensible_kv_cache.py
    # measure_kv_cache_blocks / measure_kv_cache_bytes; v1/core/kv_cache_planning.py finalize_extensible_kv_cache,
    # which checks the fit again and logs "GPU KV cache size" from the final count). Off (the estimate, at the
    # default below) with --no-enable-extensible-kv-cache, --kv-cache-memory-bytes, --num-gpu-blocks-override, on any
    # other platform, or where the driver lacks VMM (gpu_worker.py extensible_kv_cache_unsupported_reason):
    # plan.extensible_kv_cache decides.
    "kv_pool_sizing": [((0, 0, 0), "estimate"), ((0, 34, 0), "extensible")],
    # Whether a start whose pool the extensible KV cache sizes runs the KV-cache sizing warmup, full-budget steps through
    # execute_model / sample_tokens between kernel warmup and the CUDA-graph capture (v1/worker/gpu_worker.py
    # Worker._compile_or_warm_up_model -> v1/worker/gpu/warmup.py run_kv_cache_sizing_warmup, 0.34.0 wheel; absent
    # from the 0.33.0 wheel): a phase of the startup-time model (kvplan.startup, plan.extensible.kv_sizing_warmup_steps)
    "kv_cache_sizing_warmup": [((0, 0, 0), False), ((0, 34, 0), True)],
    # --num-gpu-blocks-override (CacheConfig.num_gpu_blocks_override): the pool is the override's blocks, allocated at its
    # size whatever the profile left (V1: kv_cache_utils.py may_override_num_blocks / get_num_blocks, logged "Overriding
    # num_gpu_blocks=%d with num_gpu_blocks_override=%d"; V0: engine/llm_engine.py _initialize_kv_caches, 0.6.4 wheel).
    # "ignored" in 0.9.1: its new get_num_blocks logs the override line and returns the profiled count, so the pool,
    # tokens and concurrency are the profile's (kv_cache_utils.py, 0.9.1 wheel; the 0.9.0 and 0.9.2 wheels assign it,
    # vLLM PR #19503 "[Bugfix] Respect num-gpu-blocks-override in v1", merged 2025-06-11, whose 'Before' log reads
    # "Overriding num_gpu_blocks=333325 with num_gpu_blocks_override=100 ... GPU KV cache size: 5,333,200 tokens").
    # Which count the one-request check reads: "profiled" where V1 checks the profiled memory before the override
    # replaces the count (kv_cache_utils.py get_kv_cache_config(s): check_enough_kv_cache_memory(available_memory),
    # 0.8.5-0.20.0 wheels), "override" from 0.21.0, whose get_kv_cache_configs sets available_memory to override x
    # bytes per block before auto-fit and the check (0.21.0-0.27.0 kv_cache_utils.py, 0.33.0-0.34.0
    # kv_cache_planning.py). V0 always checks the override (worker/worker.py raise_if_cache_size_invalid after
    # initialize_cache, 0.6.4 wheel): the planner reads "override" for a V0 engine whatever the row says.
    "gpu_blocks_override": [((0, 0, 0), "profiled"), ((0, 9, 1), "ignored"), ((0, 9, 2), "profiled"),
                            ((0, 21, 0), "override")],
    # gpu_memory_utilization's default where the extensible KV cache is on: 1.0 (CacheConfig.
    # resolved_gpu_memory_utilization, config/cache.py in the 0.34.0 wheel: the given value, else 1.0 with the extensible
    # KV cache, else DEFAULT_GPU_MEMORY_UTILIZATION 0.92, the row above); None before it exists
    "extensible_gpu_memory_utilization": [((0, 0, 0), None), ((0, 34, 0), 1.0)],
    # requested = ceil(total * util) from 0.14, a float before (section 1.2).
    "requested_is_ceil": [((0, 0, 0), False), ((0, 14, 0), True)],
    # CUDA-graph memory estimate subtracted from the budget (section 1.5: env default 1 from 0.20).
    "cudagraph_subtracted": [((0, 0, 0), False), ((0, 20, 0), True)],
    # ... and on ROCm (vllm/v1/worker/gpu_worker.py determine_available_memory, the guard before
    # profile_cudagraph_memory): excluded with `not current_platform.is_rocm()` in 0.20.0 and `current_platform.is_cuda()`
    # in 0.21.0-0.25.1, so a ROCm start subtracts no estimate and logs no 'CUDA graph memory profiling' line (a Gemma-3
    # MI300X start on 0.23.0 logs none: blind record gemma-3-4b-it-mi300x-udef-tp1-l8k); `is_cuda_alike()` from 0.26.0
    # takes ROCm in (read in the 0.20.0, 0.21.0, 0.22.0, 0.23.0, 0.24.0, 0.25.1, 0.26.0, 0.27.1, 0.28.0, 0.29.0 and
    # 0.30.0 wheels)
    "cudagraph_subtracted_rocm": [((0, 0, 0), False), ((0, 26, 0), True)],
    # ROCm's graph memory as kvplan charges it: "pool", the CUDA formula (a shared pool), or "per_graph", the era's
    # pool constant + calibration.py ROCM_G_PER_GRAPH per hipGraph (plan.rocm_graph_units). Every hipGraph holds memory
    # of its own (vLLM issue #19579, 0.9.1 on MI300; ROCm/pytorch issue #2286), a property of the ROCm runtime, not of
    # vLLM; kvplan applies it from 0.26.0, where the estimate moves the KV pool on ROCm (row above) and the rate is fitted
    # (three 0.27-0.30 startups). Before 0.26 the capture lies beyond the budget and the records disagree: a 0.23.0
    # MI300X start logs ~2 MiB per graph (blind gemma-3-4b-it-mi300x-udef-tp1-l8k, 3.74 GiB), a 0.11.0rc2 one ~0.25 MiB
    # per layer and size (blind gemma-3-27b-it-mi300x-udef-tp1-l4k-img2, 1.02 GiB); the CUDA formula stays there.
    "cudagraph_rocm_cost": [((0, 0, 0), "pool"), ((0, 26, 0), "per_graph")],
    # What ROCm's "Model loading took" figure measures (the load's DeviceMemoryProfiler.consumed_memory, the difference of
    # two current_platform.get_current_memory_usage readings): "allocated", torch's allocated bytes
    # (torch.cuda.max_memory_allocated: vllm/utils.py DeviceMemoryProfiler.current_memory_usage, 0.6.6 wheel;
    # platforms/rocm.py RocmPlatform.get_current_memory_usage, 0.7.2 and 0.21.0 wheels), the weights as kvplan counts
    # them; "device_used", the device memory in use (total - free from torch.cuda.mem_get_info: platforms/rocm.py
    # get_current_memory_usage, 0.7.3, 0.8.5 and 0.20.2 wheels), which holds the caching allocator's cached blocks and
    # the loader's temporaries as well, so the logged figure reads higher than the weights by memory kvplan cannot size.
    # Only the logged figure: the planned weights stay the allocated bytes. CUDA reads allocated bytes throughout.
    "rocm_weights_log_measure": [((0, 0, 0), "allocated"), ((0, 7, 3), "device_used"), ((0, 21, 0), "allocated")],
    # NCCL / custom all-reduce buffers charged to the budget: snapshot before NCCL init up to 0.10
    # (section 1.2, section 7 item 2).
    "nccl_charged": [((0, 0, 0), True), ((0, 11, 0), False)],
    # vLLM's custom all-reduce (distributed/device_communicators/custom_all_reduce.py CustomAllreduce.__init__), which
    # --disable-custom-all-reduce turns off (plan.terms custom_allreduce_says). Its buffers per rank, in MiB: a
    # cudaMalloc'd IPC buffer of meta_size() (a few KiB of signals) + max_size for the intermediate results, a
    # cudaMalloc'd IPC buffer the eager inputs are copied into, and rank_data, an 8 MiB torch tensor of the graph
    # buffers' pointer tuples. max_size is 8192 * 1024 by default in every wheel read (0.4.2-0.34.0); the input buffer
    # is max_size up to 0.26.0 and max(max_size, max_all_gather_size 2 MiB, max_reduce_scatter_size 16 MiB) =
    # 16 MiB from 0.27.0 (legacy_buffer_size; absent in the 0.26.0 wheel, present in 0.27.0-0.34.0). Where symmetric
    # memory is on (Hopper / Blackwell, 0.10.2 on), max_size is capped by CUSTOM_ALL_REDUCE_MAX_SIZES: not sized here.
    "custom_allreduce_buffer_mib": [((0, 0, 0), (8, 8, 8)), ((0, 27, 0), (8, 16, 8))],
    # ... the TP sizes it is built for (_SUPPORTED_WORLD_SIZES; any other logs "Custom allreduce is disabled due to an
    # unsupported world size"): 2, 4, 6, 8 in 0.4.2-0.26.0, 16 added from 0.27.0 (wheels 0.26.0, 0.27.0 read)
    "custom_allreduce_world_sizes": [((0, 0, 0), (2, 4, 6, 8)), ((0, 27, 0), (2, 4, 6, 8, 16))],
    # ... on AMD: never up to 0.8.2 (ParallelConfig sets disable_custom_all_reduce on ROCm, config.py 0.6.4-0.8.2
    # wheels); from 0.8.4 (0.8.3 not read) on MI300-class GPUs, platforms/rocm.py use_custom_allreduce (gfx94 in 0.8.4
    # and 0.8.5, gfx94 / gfx95 from 0.9.0; 0.34.0 the same), where the P2P test is skipped (XGMI), and with it
    # QuickAllReduce from 0.9.0 (cuda_communicator.py; its buffers only with VLLM_ROCM_QUICK_REDUCE_QUANTIZATION set,
    # "NONE" by default, quick_all_reduce.py 0.10.2). Held as the AMD GPUs (kvplan's catalog names) of those archs:
    # gfx942 MI300X / MI325X, gfx950 MI350X / MI355X
    "custom_allreduce_rocm": [((0, 0, 0), ()), ((0, 8, 4), ("MI300", "MI325")),
                              ((0, 9, 0), ("MI300", "MI325", "MI350", "MI355"))],
    # Whether a tensor-parallel all-reduce of a tensor past the custom all-reduce's limit (8 MiB by default) writes a new
    # tensor: from 0.6.5 GroupCoordinator.all_reduce always calls torch.ops.vllm.all_reduce -> _all_reduce_out_place,
    # whose fallback PyNcclCommunicator.all_reduce makes its output with torch.empty_like(in_tensor)
    # (distributed/parallel_state.py, device_communicators/pynccl.py, read in the 0.6.5, 0.6.6.post1, 0.7.1, 0.7.2 and
    # 0.7.3 wheels; V1's CudaCommunicator.all_reduce keeps every path out-of-place: custom, symmetric-memory and
    # FlashInfer all-reduce return a new tensor, pynccl empty_like, the torch.distributed fallback a clone,
    # device_communicators/cuda_communicator.py 0.17.0, 0.19.0, 0.33.0). Up to 0.6.4 a tensor the custom all-reduce does
    # not take is reduced in place (_all_reduce_in_place / inplace_all_reduce: pynccl or torch.distributed on the input
    # itself, 0.6.1 and 0.6.4.post1 wheels). plan.allreduce_live_bytes counts the output
    "allreduce_out_of_place": [((0, 0, 0), False), ((0, 6, 5), True)],
    # Other processes' memory shrinks the pool (V0-b, V1-a) or is refused at startup (V1-b on).
    "other_tenants": [((0, 0, 0), "ignored"), ((0, 6, 4), "subtracted"), ((0, 6, 5), "ignored"),
                      ((0, 8, 0), "subtracted"), ((0, 9, 1), "refused")],
    # "GPU KV cache size" tokens (section 3.5).
    "tokens_formula": [((0, 0, 0), "blocks_x_block_size"), ((0, 9, 0), "blocks_per_group_x_block_size"),
                       ((0, 20, 1), "concurrency_x_len")],
    # The block size "GPU KV cache size" multiplies by under blocks_per_group_x_block_size when every layer has one spec
    # (a dense model, or an attention-free pure Mamba model): the cache's block size (--block-size, 16 by default) in
    # 0.9-0.10, whose _get_kv_cache_config_uniform_type logs num_blocks x cache_config.block_size (0.10.2 wheel); the
    # group's own from 0.11, where get_kv_cache_config_from_groups logs num_blocks // groups x the smallest group
    # block size (0.11.0 wheel). The two differ only for a Mamba group, whose block is max_model_len without prefix
    # caching (v1/worker/gpu_model_runner.py "Set block_size to max_model_len" in 0.10.2-0.11.0, then
    # cache_config.mamba_block_size = max_model_len in models/config.py MambaModelConfig): 0.10.2 logs blocks x 16
    # for Mamba-Codestral, 0.11-0.20.0 blocks x max_model_len.
    "uniform_spec_tokens_block": [((0, 0, 0), "cache"), ((0, 11, 0), "group")],
    # Decode context parallelism (--decode-context-parallel-size, vLLM PR #23734; the flag from 0.10.2: SERVE_FLAG_SINCE):
    # the attention layers whose impl returns the softmax LSE for decode, which DCP needs (can_return_lse_for_decode:
    # "mla" = the FlashMLA, FlashAttention-MLA and CUTLASS-MLA impls of 0.10.2-0.11.0, where any other impl stops the
    # KV-cache setup, gpu_model_runner.initialize_kv_cache "DCP requires attention impls to return the softmax lse for
    # decode"; "mla_gqa" = from 0.11.1 also Triton MLA, FlashAttention and FlashInfer, with ModelConfig's GQA checks,
    # config/model.py verify_with_parallel_config). "none" before the flag.
    "dcp_attention": [((0, 0, 0), "none"), ((0, 10, 2), "mla"), ((0, 11, 1), "mla_gqa")],
    # How a --tensor-parallel-size that DCP does not divide, and a GQA model's DCP checks, are refused: "assert" =
    # AssertionErrors (EngineArgs.create_engine_config "tp_size=T must be divisible bydcp_size=D." with no space,
    # 0.10.2-0.25.x; ModelConfig's "tensor parallel size T must be greater than total num kv heads K when enable decode
    # context parallel for GQA/MQA" 0.11.1-0.26.x); "value_error_tp" = from 0.26.0 ParallelConfig's ValueError
    # "tp_size=T must be divisible by dcp_size=D." (config/parallel.py), the GQA checks still asserts; "value_error" =
    # from 0.27.0 the GQA checks are ValueErrors naming the flags ("Decode context parallelism for GQA/MQA requires ...").
    "dcp_refusal_form": [((0, 0, 0), "assert"), ((0, 26, 0), "value_error_tp"), ((0, 27, 0), "value_error")],
    # MLA decode under DCP with an fp8 KV cache: asserted in the decode forward ("DCP not support fp8 kvcache now.",
    # v1/attention/backends/mla/common.py 0.10.2-0.14.x, model_executor/layers/attention/mla_attention.py 0.15-0.24),
    # gone from 0.25.0's mla_attention.py
    "dcp_fp8_mla_asserts": [((0, 0, 0), True), ((0, 25, 0), False)],
    # Prefill context parallelism (--prefill-context-parallel-size / -pcp, the flag from 0.12.0: SERVE_FLAG_SINCE):
    # "refused" = 0.12.0's ParallelConfig ValueError "Prefill context parallelism is not fully supported. Please set
    # prefill_context_parallel_size to 1." (config/parallel.py); "no_impl" = 0.13.0-0.25.x, where no attention impl sets
    # supports_pcp (AttentionImpl's False, attention/backends/abstract.py) and the KV-cache setup asserts "PCP requires
    # attention impls' support, but the impl X does not support PCP." (v1/worker/cp_utils.py
    # check_attention_cp_compatibility); "mla" = from 0.26.0 MLAAttentionImpl.supports_pcp is True (v1/attention/backend.py)
    # and any other backend is invalid at selection ("PCP not supported"), cp_utils asserting "PCP requires attention
    # backend support, but X does not support PCP.". Read in the 0.12.0-0.34.0 wheels.
    "pcp_support": [((0, 0, 0), "none"), ((0, 12, 0), "refused"), ((0, 13, 0), "no_impl"), ((0, 26, 0), "mla")],
    # PCP with --data-parallel-size > 1: ParallelConfig's ValueError "PCP does not support data parallelism yet."
    # (config/parallel.py 0.26.0-0.29.x), gone from 0.30.0
    "pcp_refuses_dp": [((0, 0, 0), True), ((0, 30, 0), False)],
    # Where DCP places a sequence's tokens, --dcp-kv-cache-interleave-size (ParallelConfig.dcp_kv_cache_interleave_size,
    # the flag from 0.11.1) and --cp-kv-cache-interleave-size (cp_kv_cache_interleave_size, from 0.12.0): SERVE_FLAG_SINCE.
    # Which value vLLM checks against the block size ("Block_size(B) should be greater than or equal to and divisible by
    # X (I).", an AssertionError run only with --decode-context-parallel-size > 1): "dcp" = 0.11.1, the one flag
    # (VllmConfig.__post_init__, config/vllm.py); "dcp_overrides_cp" = 0.12.0-0.28.x, under DCP a
    # --dcp-kv-cache-interleave-size above 1 replaces the cp one with the warning "cp_kv_cache_interleave_size is
    # overridden by dcp_kv_cache_interleave_size. And dcp-kv-cache-interleave-size will be deprecated when PCP is fully
    # supported." and the cp value is checked (__post_init__ up to 0.19, VllmConfig.validate_block_size from 0.20);
    # from 0.29.0 that replacement moved into VllmConfig.adjust_dcp_kv_cache_interleave_size, run only for a KV-transfer
    # instance (a kv_connector and kv_role): without a --kv-transfer-config the dcp flag is not read by the config
    # (0.29.0's FlashInfer DCP metadata still reads it; 0.30.0's reads the cp one) and the cp value (default 1) is the
    # one checked and used. "kv_transfer_unchecked" = 0.29.0-0.32.x, where each worker runs it
    # (distributed/kv_transfer/kv_transfer_state.py ensure_kv_transfer_initialized, from gpu_worker's
    # initialize_from_config) after the engine core's validate_block_size checked the cp value (v1/engine/core.py
    # _initialize_kv_caches), so the dcp value is applied unchecked; "kv_transfer_only" = from 0.33.0 the engine core
    # runs it before validate_block_size (v1/engine/core.py 0.33.0-0.34.0), which checks the replaced value. "none"
    # before 0.11.1.
    # Read in the 0.11.0 (no flag), 0.11.1, 0.11.2, 0.12.0, 0.13.0, 0.14.0, 0.20.0, 0.26.0, 0.28.0, 0.29.0, 0.30.0, 0.32.0,
    # 0.33.0 and 0.34.0 wheels (engine/arg_utils.py, config/parallel.py, config/vllm.py).
    "cp_interleave_source": [((0, 0, 0), "none"), ((0, 11, 1), "dcp"), ((0, 12, 0), "dcp_overrides_cp"),
                             ((0, 29, 0), "kv_transfer_unchecked"), ((0, 33, 0), "kv_transfer_only")],
    # The KV connectors for which validate_block_size skips the interleave check (the worker pins the interleave size to
    # the block size for P/D): "" = none, up to 0.28.x; "any" = 0.29.0, any --kv-transfer-config kv_connector; "nixl" =
    # from 0.30.0 a NixlConnector (a MultiConnector child counts, KVTransferConfig.has_connector).
    "cp_interleave_check_skipped_for": [((0, 0, 0), ""), ((0, 29, 0), "any"), ((0, 30, 0), "nixl")],
    # An interleave size above 1 with --speculative-config: "config" = VllmConfig.__post_init__ asserts "MTP with
    # dcp_kv_cache_interleave_size > 1 is not supported now." (0.11.1) / "MTP with cp_kv_cache_interleave_size > 1 is not
    # supported now." (0.12.x), with or without DCP, for any size but 1 (its assert reads `size == 1 or
    # speculative_config is None`: 0 and negative sizes refused too, under the "> 1" text; config/vllm.py of the 0.11.1
    # and 0.12.0 wheels); "impl" = from 0.13.0 the KV-cache setup asserts, under DCP or PCP, above 1 only,
    # "MTP with cp_kv_cache_interleave_size > 1 is not supported in <impl>." for every attention impl that does not set
    # supports_mtp_with_cp_non_trivial_interleave_size (v1/worker/cp_utils.py check_attention_cp_compatibility; the
    # dense FlashMLA / FlashAttention / FlashInfer impls do not; the sparse FlashMLA and TokenSpeed MLA ones do in 0.34).
    "cp_interleave_mtp_check": [((0, 0, 0), "config"), ((0, 13, 0), "impl")],
    # `vllm serve --config FILE.yaml` (FlexibleArgumentParser._pull_args_from_config and its config-file loader:
    # vllm/utils.py of the 0.6.4 wheel, vllm/utils/__init__.py of 0.11.0, vllm/utils/argparse_utils.py of 0.11.1-0.34.0):
    # each KEY: VALUE becomes --KEY VALUE (a list --KEY V1 V2 ..., true --KEY), inserted after the subcommand and a model
    # given first, before the command line's own flags, which so win. "config_file_model": a `model:` key names the model
    # where the command gives none ("taken", 0.11.0+), or the model must come first on the command line ("positional",
    # 0.6.4: "No model_tag specified!"); the releases between were not read (None: kvplan refuses to guess).
    "config_file_model": [((0, 0, 0), "positional"), ((0, 6, 5), None), ((0, 11, 0), "taken")],
    # a false value: "store_boolean" (up to 0.11.0: dropped, except that flags of vLLM's StoreBoolean kind are passed
    # 'False'), "dropped" (0.11.1-0.26), "no_flag" (0.28.0+: --no-KEY where vllm serve has it, else dropped); 0.27 not read
    "config_file_false": [((0, 0, 0), "store_boolean"), ((0, 11, 1), "dropped"), ((0, 27, 0), None),
                          ((0, 28, 0), "no_flag")],
    # a map value: passed as its str() ("repr", a Python dict's text, which vLLM's JSON flags do not parse) up to 0.14,
    # as JSON text (json.dumps) from 0.20; 0.15-0.19 not read
    "config_file_map": [((0, 0, 0), "repr"), ((0, 15, 0), None), ((0, 20, 0), "json")],
    # Tokens the sliding window may hold beyond the window: T up to 0.26, then in-flight tokens
    # = 2 x T with async scheduling at PP=1 (section 3.4).
    # (section 3.4: max_concurrent_batches is 2 with async scheduling on MRV1 at PP=1, pp on MRV1 at PP>1,
    # pp+1 on MRV2, the default for generative models from 0.29)
    # The step to 2 x T is in the 0.26.0 wheel (VllmConfig.max_in_flight_tokens; 0.25.1 still reserves T), one
    # release before section 3.4 places it.
    "window_inflight": [((0, 0, 0), "one"), ((0, 26, 0), "mrv1-async"), ((0, 29, 0), "mrv2")],
    # --[no-]async-scheduling (SchedulerConfig.async_scheduling, vllm serve flag from 0.10.0: SERVE_FLAG_SINCE): the
    # engine schedules step s+1 while step s runs (AsyncScheduler, EngineCore.step_with_batch_queue, the executor's
    # max_concurrent_batches 2). Its default: off up to 0.13.x (SchedulerConfig `async_scheduling: bool = False` in the
    # 0.10.0 config.py and the 0.10.1-0.13.0 config/scheduler.py; 0.11.1-0.13.0 already carry VllmConfig's `is None`
    # branch, "we won't reach here until async scheduling is enabled by default"); "auto" from 0.14.0
    # (`Field(default=None)` in config/scheduler.py 0.14.0, `None` in 0.19.0-0.34.0): VllmConfig.__post_init__ turns
    # it on unless one of the rows below says the combination does not run it, then logs a warning and keeps it off;
    # an explicit --async-scheduling with such a combination is refused (config/vllm.py 0.14.0-0.34.0 wheels; up to
    # 0.11.0 EngineArgs.create_engine_config, engine/arg_utils.py 0.10.0-0.11.0). Read by plan.serve_flags, which
    # resolves the flag; the window groups' in-flight tokens (plan.kv.window_extra_tokens) and the simulator's
    # one-step lag (simulate.serving_setup) follow the resolved value.
    "async_scheduling_default": [((0, 0, 0), "off"), ((0, 14, 0), "auto")],
    # Whether async scheduling runs with pipeline parallelism (PP > 1): refused up to 0.14.x ("Async scheduling is
    # not supported with pipeline-parallel-size > 1." in 0.10.0-0.11.0 arg_utils.py, "... not yet compatible with
    # pipeline_parallel_size > 1." in 0.11.1-0.14.0 config/vllm.py; 0.14.0's auto default keeps it off with a
    # warning); taken from 0.15.0 (the check is gone from the 0.15.0-0.32.0 config/vllm.py); 0.33.0 refuses it again
    # on model runner v1 only (v1_async_sched_incompat "pipeline parallelism", scope row below); 0.34.0 takes it.
    "async_scheduling_pp": [((0, 0, 0), False), ((0, 15, 0), True), ((0, 33, 0), False)],
    # The speculative methods async scheduling runs with: none in 0.10.0-0.11.0 ("Currently, speculative decoding is
    # not supported with async scheduling."); EAGLE/MTP from 0.11.1 (EagleModelTypes: eagle, eagle3 and the MTP
    # methods), draft_model from 0.16.0, ngram_gpu from 0.18.0 (NgramGPUTypes), dspark from 0.26.0, dflash from 0.33.0;
    # the CPU n-gram and suffix methods never up to 0.33.0; "*" from 0.34.0, whose config/vllm.py checks no method.
    # (kvplan's --speculative-config methods: mtp, eagle, eagle3, draft_model, ngram, suffix.) With
    # disable_padded_drafter_batch=True a method in the list is refused too (0.11.1-0.33.0).
    "async_scheduling_spec_methods": [((0, 0, 0), ()), ((0, 11, 1), ("eagle", "eagle3", "mtp")),
                                      ((0, 16, 0), ("eagle", "eagle3", "mtp", "draft_model")), ((0, 34, 0), "*")],
    # Which model runner the PP / speculative limits above apply to: every runner up to 0.32.x; 0.33.0 only model
    # runner v1 (`if not self.use_v2_model_runner:` around v1_async_sched_incompat, config/vllm.py 0.33.0 wheel, its
    # refusal "Async scheduling is not supported by the V1 model runner with ..."); none from 0.34.0.
    "async_scheduling_limits_runner": [((0, 0, 0), "any"), ((0, 33, 0), "v1"), ((0, 34, 0), "none")],
    # Whether the auto default turns it on for a pooling model: yes in 0.14.0-0.19.x; from 0.20.0 VllmConfig keeps it
    # off ("Disabling asynchronous scheduling by default for pooling model.", a debug line; an explicit flag is taken).
    "async_scheduling_pooling_default": [((0, 0, 0), True), ((0, 20, 0), False)],
    # Whether it runs with a Mamba/GDN group under prefix caching (cache_config.mamba_cache_mode != "none"): refused
    # (explicit) / kept off (auto) in 0.16.x only ("Currently, async scheduling is not compatible with prefix caching
    # for Mamba models.", config/vllm.py 0.16.0; absent from 0.15.0 and 0.17.0).
    "async_scheduling_mamba_prefix": [((0, 0, 0), True), ((0, 16, 0), False), ((0, 17, 0), True)],
    # Memory one max-length request needs, in the fit check (section 4): the sum over layers up to 0.13, the first
    # group's pages x group size in 0.14-0.26, bytes per block x the sum over groups from 0.27.
    # (the sum over groups is in the 0.19.0 wheel, kv_cache_utils._max_memory_usage_bytes_from_groups; 0.18.1 still
    # takes the first group's spec. What changed at 0.27 is the concurrency line, section 3.5.)
    "fit_need_formula": [((0, 0, 0), "sum_layers"), ((0, 14, 0), "first_group"), ((0, 19, 0), "all_groups")],
    # Up to 0.13 the fit check runs on each layer's own spec before window layers are turned into full-attention ones
    # (0.8.3-0.10.2 get_kv_cache_config: check_enough_kv_cache_memory, then unify_hybrid_kv_cache_specs; 0.11-0.13
    # get_kv_cache_configs checks before get_kv_cache_groups unifies): a sliding-window or chunked-local layer the
    # release then holds as full attention (no hybrid manager before 0.9.1; the manager off for chunked local attention
    # in 0.10.1-0.13) is charged only its window, so a start can pass the check with a pool smaller than one
    # max-length request. From 0.14 the check runs on the groups (kv_cache_utils._check_enough_kv_cache_memory).
    "fit_check_sees_windows": [((0, 0, 0), True), ((0, 14, 0), False)],
    # V0's max_num_batched_tokens with chunked prefill on (section 2.3): 512 up to 0.6.4, 2048 from 0.6.5
    "v0_chunked_prefill_tokens": [((0, 0, 0), 512), ((0, 6, 5), 2048)],
    # V1's max_num_batched_tokens with --no-enable-chunked-prefill, the whole context in one step (engine/arg_utils.py
    # _set_default_args): max_model_len up to 0.11.0; from 0.11.1 max(max_model_len, the default), then at most
    # max_num_seqs x max_model_len ("max_with_default"; read in the 0.11.0, 0.11.1 and 0.12.0 wheels)
    "v1_unchunked_batched_tokens": [((0, 0, 0), "max_model_len"), ((0, 11, 1), "max_with_default")],
    # Whether V1 takes --no-enable-chunked-prefill for a generative model: "forced_on" up to 0.11.0, where
    # EngineArgs._set_default_args_v1 (0.8.0-0.10.2) / _set_default_args (0.11.0) set enable_chunked_prefill = True for
    # every non-pooling model whatever was given ("V1 always uses chunked prefills"; engine/arg_utils.py, 0.8.0, 0.8.5,
    # 0.9.2, 0.10.1, 0.10.2 and 0.11.0 wheels), so the step budget is the chunked default; "honoured" from 0.11.1, where
    # get_chunked_prefill_prefix_caching_defaults only fills an unset flag (0.11.1 wheel). A pooling model's given flag
    # is taken in every V1 release.
    "v1_chunked_prefill_flag": [((0, 0, 0), "forced_on"), ((0, 11, 1), "honoured")],
    # V1's default for chunked prefill and prefix caching on a pooling model, both off unless "incremental prefill" is
    # supported (plan.defaults.pooling_incremental_prefill; vLLM logs "(Enabling|Disabling) chunked prefill by default").
    # The pooling type is --pooler-config's, else a sentence-transformers Pooling config's, else the class default
    # (interfaces_base.default_pooling_type: LAST unless a class says otherwise):
    # - "given_last", 0.9.2-0.10.0 (the first releases to pool on V1, rules row v0_for_pooling): on only for pooling type
    #   "last", and the class default is not applied, so without a Pooling config the type is None and both are off
    #   (EngineArgs._set_default_args_v1 in engine/arg_utils.py, ModelConfig._init_pooler_config in config.py; 0.9.2
    #   and 0.10.0 wheels);
    # - "last_causal", 0.10.1-0.13: on for pooling type "last" with a causal model (hf_config.is_causal, default True),
    #   the class default filling an unset type (_set_default_args_v1 / _set_default_args in 0.10.1, 0.10.2 and 0.11.0,
    #   get_chunked_prefill_prefix_caching_defaults in 0.11.1; from 0.12 ModelConfig.is_chunked_prefill_supported /
    #   is_prefix_caching_supported in config/model.py: an encoder-only model (class default CLS or is_causal False)
    #   off, a decoder off for all/mean/step/cls pooling; 0.12.0 wheel);
    # - "last_or_all", from 0.13.0: a decoder is on for "all" pooling too (0.13.0: off for mean/step/cls; from 0.14.0,
    #   where pooling splits into seq_pooling_type and tok_pooling_type, off for sequence pooling MEAN / CLS or token
    #   pooling STEP), so a token-ALL reward model (Qwen2ForRewardModel, InternLM2ForRewardModel) is on
    #   (config/model.py is_chunked_prefill_supported / is_prefix_caching_supported; 0.13.0, 0.14.0, 0.20.0 and 0.34.0
    #   wheels)
    "pooling_chunked_prefill_default": [((0, 0, 0), "given_last"), ((0, 10, 1), "last_causal"),
                                        ((0, 13, 0), "last_or_all")],
    # How vLLM reads a sentence-transformers Pooling config's mode (transformers_utils/config.py get_pooling_config,
    # from the entries resolve.st_pooling_modes keeps; plan.defaults.st_pooling_types):
    # - "first_or_none" up to 0.10.0: the first key set to true, named by get_pooling_config_name ('pooling_mode_' cut,
    #   the part before the first '_', 'lasttoken' -> LAST); a name outside LAST/ALL/CLS/STEP/MEAN gives None
    #   (0.8.5, 0.9.2 and 0.10.0 wheels);
    # - "first_or_error" 0.10.1-0.13: the same, but such a name raises NotImplementedError("Pooling type MAX not
    #   supported") and the model does not start (0.10.1, 0.10.2, 0.11.0, 0.11.1, 0.12.0 and 0.13.0 wheels);
    # - "each" 0.14-0.29: every key set to true, parse_pooling_type'd: CLS/LAST/MEAN set seq_pooling_type, ALL/STEP
    #   tok_pooling_type (the later key winning), any other name skipped (0.14.0, 0.20.0 and 0.29.0 wheels);
    # - "each_or_mode" from 0.30: also a string "pooling_mode" (0.30.0, 0.31.0 and 0.34.0 wheels).
    "st_pooling_mode_read": [((0, 0, 0), "first_or_none"), ((0, 10, 1), "first_or_error"), ((0, 14, 0), "each"),
                             ((0, 30, 0), "each_or_mode")],
    # What vLLM does where the Pooling module's config.json is not in the checkpoint (get_hf_file_to_dict returns None:
    # transformers_utils/config.py, repo_utils.py from 0.14.0): "error" up to 0.13, where get_pooling_config calls
    # pooling_dict.items() on it (AttributeError: 'NoneType' object has no attribute 'items'; 0.6.4, 0.8.5, 0.9.2,
    # 0.10.1, 0.11.0, 0.11.2, 0.12.0 and 0.13.0 wheels); "empty" from 0.14.0 (`... or {}`: no mode, the class default;
    # 0.14.0 and 0.34.0 wheels). A file that is no JSON raises in json.load in every release (plan.defaults.st_pooling_types).
    "st_pooling_config_missing": [((0, 0, 0), "error"), ((0, 14, 0), "empty")],
    # The modules.json types vLLM takes as the sentence-transformers Pooling module, matched exactly
    # (transformers_utils/config.py get_pooling_config: `item["type"] == "sentence_transformers.models.Pooling"` in the
    # 0.6.4-0.23.0 and 0.25.0-0.29.0 wheels; `item["type"] in _ST_POOLING_MODULE_TYPES`, which adds
    # sentence-transformers' newer module path, in the 0.30.0-0.34.0 wheels). The same call decides --runner auto
    # (config/model.py ModelConfig._get_default_runner_type asks get_pooling_config before the architecture, 0.10.1
    # to 0.34.0 wheels; before 0.10.1 --task auto asks it too: config.py _get_preferred_task, 0.8.5 and 0.9.2 wheels):
    # a module of a type the release does not list leaves the checkpoint to its architecture and the pooling mode to
    # the class default (resolve.ST_POOLING_MODULE_TYPES, plan.args.st_module_as_read).
    "st_pooling_module_types": [((0, 0, 0), ("sentence_transformers.models.Pooling",)),
                                ((0, 30, 0), ("sentence_transformers.models.Pooling",
                                              "sentence_transformers.sentence_transformer.modules.pooling.Pooling"))],
    # The pooling types a PoolerConfig holds: "single" (pooling_type) up to 0.13; "split" from 0.14, where
    # seq_pooling_type (CLS/LAST/MEAN) and tok_pooling_type (ALL/STEP) are filled apart, each from the class default
    # (default_seq_pooling_type LAST, default_tok_pooling_type ALL) where neither --pooler-config nor the Pooling
    # config sets it, and a given pooling_type goes to the one it belongs to (config/pooler.py PoolerConfig.
    # __post_init__, config/model.py ModelConfig.__post_init__; 0.13.0, 0.14.0 and 0.34.0 wheels)
    "pooler_type_fields": [((0, 0, 0), "single"), ((0, 14, 0), "split")],
    # When vLLM checks a pooling type given on --pooler-config / --override-pooler-config (plan.defaults.pooler_given):
    # - "model_build" up to 0.11.x: PoolerConfig.pooling_type is any string (Optional[str]), looked up as
    #   PoolingType[name] only when the model's pooler is built (layers/pooler.py ResolvedPoolingConfig.from_config,
    #   0.6.4, 0.8.5, 0.9.2, 0.10.1, 0.11.0, 0.11.1 and 0.11.2 wheels), a KeyError; ModelConfig has read the
    #   checkpoint's sentence-transformers Pooling config before (config/__init__.py _init_pooler_config 0.10.1,
    #   config/model.py __post_init__ 0.11.0), so that config's refusal ('Pooling type MAX not supported') comes first;
    # - "parse" from 0.12.0: the field is a Literal of LAST/ALL/CLS/STEP/MEAN (config/pooler.py PoolingTypeStr, 0.12.0
    #   and 0.13.0 wheels; SequencePoolingType / TokenPoolingType from 0.14.0) that pydantic validates when argparse
    #   builds the PoolerConfig from the JSON (engine/arg_utils.py _compute_kwargs parse_dataclass,
    #   TypeAdapter(PoolerConfig).validate_json -> "argument --pooler-config: 1 validation error for PoolerConfig ...
    #   Input should be 'LAST', 'ALL', 'CLS', 'STEP' or 'MEAN'"), before any config is read. Neither accepts a lower
    #   case name ('mean').
    "pooler_type_checked": [((0, 0, 0), "model_build"), ((0, 12, 0), "parse")],
    # What the PoolerConfig does with a field it has not (seq_pooling_type / tok_pooling_type before 0.14,
    # plan.defaults.pooler_given / pooler_keys_ignored): "refused" up to 0.9.0, where it is a standard-library dataclass
    # built as PoolerConfig(**json) (config.py, 0.6.4 PoolerConfig.from_json, 0.8.5 argparse type=PoolerConfig.from_json,
    # 0.9.0 engine/arg_utils.py `f(**json.loads(x))`): TypeError "unexpected keyword argument"; "ignored" from 0.9.1,
    # where it is a pydantic dataclass without extra="forbid" (config.py 0.9.1 / 0.9.2, config/__init__.py 0.10.1,
    # config/pooler.py 0.11.0-0.13.0; built by TypeAdapter(PoolerConfig).validate_json or PoolerConfig(**dict)), which
    # drops it: the type is then the Pooling config's or the class default.
    "pooler_config_unknown_keys": [((0, 0, 0), "refused"), ((0, 9, 1), "ignored")],
    # The encoder positions an encoder-decoder model's (Whisper's) CrossAttentionSpec charges each request
    # (plan.kv.cross_attention_tokens): "encoder_len" from 0.10.2, the first release to run Whisper on V1
    # (kv_cache_interface.py CrossAttentionSpec.max_memory_usage_bytes reads MULTIMODAL_REGISTRY.get_encdec_max_encoder_len
    # in 0.10.2; from 0.11.0 it reads scheduler_config.max_num_encoder_input_tokens, which VllmConfig.__post_init__
    # sets to that length for an encoder-decoder model: config/__init__.py 0.11.0, config/vllm.py 0.11.1 and 0.12.0);
    # "batched_tokens" from 0.13.0, where that override is gone and SchedulerConfig.__post_init__'s
    # max_num_encoder_input_tokens = max_num_batched_tokens stands (config/scheduler.py; read in 0.13.0, 0.14.0, 0.20.0,
    # 0.33.0 and 0.34.0). Earlier releases run Whisper on V0 (V0_ONLY_ARCHITECTURES), which kvplan refuses. The same
    # max_num_encoder_input_tokens is the profile run's encoder compute budget (v1/core/encoder_cache_manager.py
    # compute_mm_encoder_budget), so "encoder_len" also profiles one audio item (plan.multimodal).
    "cross_attention_tokens": [((0, 0, 0), "encoder_len"), ((0, 13, 0), "batched_tokens")],
    # Chunked prefill and prefix caching for an encoder-decoder model (Whisper): vLLM logs "Encoder-decoder models do
    # not support chunked prefill nor prefix caching; disabling both." and turns chunked prefill off whatever is given
    # (VllmConfig.__post_init__ in config/__init__.py 0.10.2 and 0.11.0; SchedulerConfig.__post_init__ in
    # config/scheduler.py 0.11.1-0.34.0). The three rows below say what else each release does:
    # - encoder_decoder_budget_default: the chunked-prefill setting engine/arg_utils.py picks max_num_batched_tokens' default
    #   with, before that override. "chunked": V1 turns chunked prefill on for every generative model
    #   (_set_default_args 0.10.2/0.11.0, get_chunked_prefill_prefix_caching_defaults 0.11.1), so the default is the
    #   chunked one; "unchunked" from 0.12.0: ModelConfig.is_chunked_prefill_supported is False for attn_type
    #   "encoder_decoder" (config/model.py), so an unset flag takes the rule without chunked prefill
    #   (v1_unchunked_batched_tokens); a given --enable-chunked-prefill still takes the chunked default there.
    "encoder_decoder_budget_default": [((0, 0, 0), "chunked"), ((0, 12, 0), "unchunked")],
    # - encoder_decoder_prefix_caching: "forced_off": VllmConfig.__post_init__ sets cache_config.enable_prefix_caching =
    #   False (config/__init__.py 0.10.2, 0.11.0; config/vllm.py 0.11.1, its "final off-switch for CP/APC");
    #   "default_off" from 0.12.0: that line is gone and ModelConfig.is_prefix_caching_supported is False for
    #   "encoder_decoder" (config/model.py 0.12.0-0.34.0), so prefix caching is off unless --enable-prefix-caching is
    #   given, which is kept (read in 0.12.0, 0.13.0, 0.14.0, 0.20.0, 0.33.0, 0.34.0 config/vllm.py).
    "encoder_decoder_prefix_caching": [((0, 0, 0), "forced_off"), ((0, 12, 0), "default_off")],
    # - encoder_decoder_budget_check: whether the "max_num_batched_tokens (...) is smaller than max_model_len" check sees
    #   chunked prefill off. 0.10.2/0.11.0 check in SchedulerConfig (_verify_args) before VllmConfig turns it off, so
    #   a budget below max_model_len passes; from 0.11.1 SchedulerConfig.__post_init__ turns it off and then runs
    #   verify_max_model_len, which refuses (config/scheduler.py 0.11.1-0.34.0).
    "encoder_decoder_budget_check": [((0, 0, 0), False), ((0, 11, 1), True)],
    # Whether startup refuses --long-prefill-token-threshold above max_model_len ("long_prefill_token_threshold (N)
    # cannot be greater than the max_model_len (M)."). Up to 0.26 the check runs only with max_num_partial_prefills > 1
    # (SchedulerConfig._verify_args in vllm/config.py 0.10.0; SchedulerConfig.verify_max_model_len in
    # config/scheduler.py 0.10.1, 0.10.2, 0.20.0, 0.25.0, 0.26.0), which V1 never runs: it refuses concurrent partial
    # prefills (EngineArgs._is_v1_supported_oracle falls back to V0 up to 0.10, EngineArgs._check_feature_supported
    # raises from 0.11: engine/arg_utils.py 0.10.0, 0.10.2, 0.20.0). 0.27.0 drops max_num_partial_prefills and checks
    # every threshold (config/scheduler.py SchedulerConfig.verify_max_model_len, run by __post_init__; 0.27.0, 0.28.0,
    # 0.29.0, 0.33.0, 0.34.0 wheels), except an encoder-decoder model's, which __post_init__ sets to 0 first. Read by
    # plan.defaults.resolve_args (the plan's flag) and simulate.serving_setup (a threshold given to it).
    "long_prefill_threshold_checked": [((0, 0, 0), False), ((0, 27, 0), True)],
    # What a release does with concurrent partial prefills, --max-num-partial-prefills N or --max-long-partial-prefills
    # M other than their default 1 (flags from 0.7.3 to 0.26.x: SERVE_FLAG_SINCE / SERVE_FLAG_UNTIL). "v0": the V0
    # scheduler runs them (SchedulerConfig in vllm/config.py 0.7.3; EngineArgs flags in engine/arg_utils.py 0.7.3);
    # "v0_fallback": V1 falls back to V0 ("Concurrent Partial Prefill" in EngineArgs._is_v1_supported_oracle, which
    # raises instead under VLLM_USE_V1=1; 0.10.2 wheel); "stops" in 0.11.0: the same oracle check sets VLLM_USE_V1 off,
    # and the API server, with no V0 engine left, asserts V1 (engine/arg_utils.py and entrypoints/openai/api_server.py,
    # 0.11.0 wheel; SERVE_ENV_REFUSED's VLLM_USE_V1=0); "refused" from 0.11.1: EngineArgs._check_feature_supported
    # raises NotImplementedError("Concurrent Partial Prefill is not supported. ...") (0.11.1 and 0.26.0 wheels).
    # Read by `kvplan simulate`, which takes the flags and simulates none of that (simulate.serving_setup).
    "concurrent_partial_prefills": [((0, 0, 0), "v0"), ((0, 8, 0), "v0_fallback"), ((0, 11, 0), "stops"),
                                    ((0, 11, 1), "refused")],
    # Layers of one attention type but different page shapes form one KV-cache group with their pages summed
    # (UniformTypeKVCacheSpecs) from 0.11
    "uniform_type_kv_specs": [((0, 0, 0), False), ((0, 11, 0), True)],
    # MLA models run MLA kernels from 0.7.1 (vLLM PR #12601: the 0.7.1 wheel has attention/backends/mla/ and
    # triton_mla.py, ModelConfig.use_mla and DeepseekV2MLAAttention; the 0.7.0 wheel has none of them); before, V0 runs
    # DeepSeek's attention without MLA and pads its heads to 256 (kvplan.plan.kv's V0 page and the block size default)
    "mla_kernels": [((0, 0, 0), False), ((0, 7, 1), True)],
    # The --quantization methods under which 0.7.1 and 0.7.2 keep a DeepSeek model on MLA: ModelConfig.use_mla returns
    # False ("MLA is not supported with %s quantization. Disabling MLA.") for any other, and for a compressed-tensors
    # config unless every config group's weights and input activations have type "fp8" (config.py, read in the 0.7.1 and
    # 0.7.2 wheels); the model then runs without MLA as 0.7.0 did. () where no method disables it (0.7.3 reads only
    # VLLM_MLA_DISABLE: config.py in the 0.7.3, 0.8.5 and 0.9.2 wheels). plan.kv.runs_mla.
    "mla_quant_methods": [((0, 0, 0), ()), ((0, 7, 1), ("fp8", "compressed-tensors")), ((0, 7, 3), ())],
    # The MLA block size (plan._default_block_size): "triton" in 0.7.1-0.7.3 (Triton MLA alone, CacheConfig's 16:
    # vllm/platforms/cuda.py in the 0.7.1, 0.7.2 and 0.7.3 wheels has no FlashMLA); "flashmla" in 0.8.0-0.10.0
    # (FlashMLA forces 64 on Hopper, is_flashmla_supported takes compute capability 9 alone, 16 elsewhere; CUTLASS_MLA
    # forces 128 only where VLLM_ATTENTION_BACKEND names it: 0.8.0, 0.8.5, 0.9.2 and 0.10.0 wheels); "forced" in
    # 0.10.1-0.17 (CUTLASS_MLA the default and forced to 128 on Blackwell, read in the 0.10.1 and 0.10.2 wheels);
    # "preferred" from 0.18 (FLASHINFER_MLA prefers 32 on Blackwell, FLASH_ATTN_MLA / TRITON_MLA 16)
    "mla_block_size": [((0, 0, 0), "triton"), ((0, 8, 0), "flashmla"), ((0, 10, 1), "forced"), ((0, 18, 0), "preferred")],
    # CacheConfig.DEFAULT_BLOCK_SIZE, the size a start without --block-size asks every attention backend for
    # (config/cache.py _apply_block_size_default; platforms/interface.py update_block_size_for_backend hands it to
    # _preferred_block_size_for_backends -> AttentionBackend.get_preferred_block_size, v1/attention/backend.py, which
    # keeps it where the backend supports it, else the backend's smallest kernel block): 16 up to 0.33.0 (read in the
    # 0.16.0-0.33.0 wheels), 64 from 0.34.0. FLASH_ATTN / TRITON_ATTN / FLASH_ATTN_MLA / TRITON_MLA take any multiple of
    # 16 and FLASHINFER 16/32/64, so NVIDIA starts run 64-token blocks; FLASHINFER_MLA (32/64) leaves its 32 for 64
    # (plan.defaults._default_block_size)
    "default_block_size": [((0, 0, 0), 16), ((0, 34, 0), 64)],
    # The block size ROCM_ATTN (ROCm's first standard-attention backend, platforms/rocm.py _get_backend_priorities)
    # asks for without --block-size: the cache default up to 0.33 (0: no override of get_preferred_block_size), 16 from
    # 0.34.0 (RocmAttentionBackend.get_preferred_block_size "Keep the native kernel for default-sized runs",
    # v1/attention/backends/rocm_attn.py), so an Instinct start keeps 16-token blocks under the 64 default
    "rocm_attn_preferred_block_size": [((0, 0, 0), 0), ((0, 34, 0), 16)],
    # The gfx targets on which RocmPlatform.get_valid_backends swaps TRITON_ATTN ahead of ROCM_ATTN (unless the KV
    # cache is fp8_e5m2): gfx1201 and gfx1100 from 0.34.0 (platforms/rocm.py, absent in 0.33.0), where the start then
    # takes the cache default (64) as TRITON_ATTN supports it
    "rocm_triton_first_gfx": [((0, 0, 0), ()), ((0, 34, 0), ("gfx1100", "gfx1201"))],
    # Tokens one fused-MoE call sizes its caches for (fused_moe.py fused_experts_impl "M = min(num_tokens, CHUNK_SIZE)"):
    # VLLM_FUSED_MOE_CHUNK_SIZE 32768 up to 0.11, 16384 in 0.12-0.17; from 0.18 "M = num_tokens" (0 = no cap).
    "fused_moe_chunk_tokens": [((0, 0, 0), 32768), ((0, 12, 0), 16384), ((0, 18, 0), 0)],
    # Unquantized fused-MoE layers take their caches from the worker's persistent WorkspaceManager from 0.14.0: the
    # CUDA path builds a FusedMoEModularKernel of TritonExperts (unquantized_fused_moe_method.py 0.14.0;
    # oracle/unquantized.py make_unquantized_moe_kernel 0.16.0-0.33.0), whose _allocate_buffers gets workspace13 and
    # workspace2 from current_workspace_manager().get_simultaneous (modular_kernel.py), a buffer that grows to the
    # largest request and is never freed (v1/worker/workspace.py _ensure_workspace_size; init_workspace_manager in
    # v1/worker/gpu_worker.py). The profile's forward leaves it allocated under the sampler run that follows. 0.12.0
    # and 0.13.0 call fused_experts() (torch.empty caches freed after each layer), 0.11.2 too.
    "moe_workspace_persistent": [((0, 0, 0), False), ((0, 14, 0), True)],
    # Block-FP8 dense Linear layers split by TP: Fp8LinearMethod.create_weights checks each rank's slice against the
    # checkpoint's weight_block_size (quantization/fp8.py in 0.6.6.post1-0.10.2, then utils/fp8_utils.py
    # validate_fp8_block_shape, read in 0.11.0-0.33.0): a row-parallel layer's input slice must be a multiple of block_k,
    # a column-parallel layer's output slices multiples of block_n. From 0.14 (read: absent in 0.13.0, present in
    # 0.14.1, 0.17.1, 0.20.0, 0.29.0, 0.33.0) ColumnParallelLinear._maybe_allow_fp8_block_shape_mismatch (layers/
    # linear.py) sets allow_fp8_block_shape_mismatch on a merged layer (gate_up_proj, qkv_proj) whose slices are not
    # whole blocks, and the check skips it; single-output column layers and row-parallel layers are still checked.
    "fp8_block_merged_unchecked": [((0, 0, 0), False), ((0, 14, 0), True)],
    # compressed-tensors block FP8 (a config group whose weights are "type": "float", 8 bits, "strategy": "block",
    # "block_structure" [n, k]): 0.10.2's CompressedTensorsConfig._is_fp8_w8a8 / _is_fp8_w8a16 accept only the tensor
    # and channel strategies, so _get_scheme_from_parts raises "No compressed-tensors compatible scheme was found.";
    # from 0.11.0 (read in 0.11.0, 0.12.0, 0.13.0, 0.14.1, 0.15.1, 0.16.0, 0.17.1, 0.20.0, 0.24.0, 0.29.0, 0.33.0)
    # CompressedTensorsW8A8Fp8.create_weights calls validate_fp8_block_shape (the same two messages as Fp8Config) and
    # CompressedTensorsW8A8Fp8MoEMethod.create_weights the experts' block check (inline until 0.29, fp8_utils
    # validate_fp8_block_shape_moe in 0.33; the same two messages). The merged-layer exemption of
    # fp8_block_merged_unchecked never applies: ColumnParallelLinear._maybe_allow_fp8_block_shape_mismatch reads
    # quant_config.weight_block_size, which CompressedTensorsConfig does not have (0.14.1-0.33.0), so gate_up_proj and
    # qkv_proj are checked in every release
    "ct_fp8_block": [((0, 0, 0), False), ((0, 11, 0), True)],
    # Below compute capability 8.9 (CompressedTensorsW8A8Fp8.get_min_capability 89) the dense layers fall back to
    # CompressedTensorsW8A16Fp8 (Marlin), whose create_weights calls validate_fp8_block_shape from 0.16.0 (absent in
    # 0.14.1 and 0.15.1, present in 0.16.0, 0.17.1, 0.20.0, 0.29.0, 0.33.0); the MoE method checks on every GPU
    "ct_fp8_block_w8a16_checked": [((0, 0, 0), False), ((0, 16, 0), True)],
    # The quantized fused-MoE paths whose experts take their buffers from the same WorkspaceManager in the profile's
    # forward (plan.quantized_moe_experts names the path a checkpoint and GPU get). "mxfp4_marlin": gpt-oss's MXFP4
    # experts on Marlin (compute capability below 9.0 or 11+, Hopper before 0.12, VLLM_MXFP4_USE_MARLIN=1) run as a
    # FusedMoEKernel of MarlinExperts from 0.17.0 (quantization/mxfp4.py Mxfp4MoEMethod.process_weights_after_loading
    # builds self.moe_kernel, 0.17.0 and 0.18.0; fused_moe/oracle/mxfp4.py make_mxfp4_moe_kernel 0.19.1-0.33.0); 0.16.0
    # calls fused_marlin_moe() from Mxfp4MoEMethod.apply, whose torch.empty caches are freed after each layer. Not
    # listed, read and left at 0: the Hopper Triton path (0.12-0.33: triton_kernel_moe_forward, per-call torch.empty;
    # from 0.19.1 as OAITritonMxfp4ExpertsMonolithic, gpt_oss_triton_kernels_moe.py, no workspace_shapes), which the two
    # 0.14.1 H100 gpt-oss startups confirm (their logged peaks are the sampler's alone, 38.48 B per logit against
    # 38.37-38.92 for dense models of the same sweep); FlashInfer's SM100 MXFP4 kernels (monolithic, their workspace
    # inside flashinfer, not read); FP8, NVFP4 and int4 Marlin/Triton/CUTLASS experts (not pinned: see kvplan.plan.terms).
    # "fp8_block_triton": block FP8 experts on TritonExperts (plan._fp8_block_moe_experts: Hopper without EP, cc 8.9 and
    # 12.x where DeepGEMM does not run), a FusedMoEKernel from make_fp8_moe_kernel (fused_moe/oracle/fp8.py and
    # quantization/fp8.py Fp8MoEMethod, 0.17.0-0.33.0); its workspace_shapes are the unquantized ones, in the
    # activation dtype. Before 0.17 the oracle orders the backends otherwise, but off Hopper it lands on the same
    # TritonExperts in a FusedMoEModularKernel (quantization/fp8.py Fp8MoEMethod -> oracle/fp8.py make_fp8_moe_kernel,
    # buffers from the WorkspaceManager; 0.14.0, 0.15.0, 0.15.1 and 0.16.0 wheels): 0.15.0-0.16.0's
    # select_fp8_moe_backend tries AITER, FLASHINFER_TRTLLM, FLASHINFER_CUTLASS, DEEPGEMM, VLLM_CUTLASS (Fp8MoEMethod
    # passes allow_vllm_cutlass=False), TRITON, and on cc 8.9 and 12.x none before TRITON takes block FP8 (TRTLLM: family
    # 100 only, flashinfer_trtllm_moe.py _supports_current_device; FlashInferExperts: block scales on 9.0 only,
    # flashinfer_cutlass_moe.py _supports_quant_scheme; TritonOrDeepGemmExperts needs DeepGEMM's device too,
    # fallback.py FallbackExperts._supports_current_device, which is 9.0 / family 100, utils/deep_gemm.py
    # is_deep_gemm_supported); 0.14.0's if-chain (FlashInfer on 9.0 / family 100, Marlin below 8.9, DeepGEMM where
    # supported, AITER, VLLM_CUTLASS without block scales) ends in "default to Triton" there. Hopper: row
    # fp8_block_hopper_triton. 0.13.0 and before: fused_experts() per call (not read for FP8: not charged).
    # compressed-tensors block FP8 experts (strategy "block") take the same path in the same releases:
    # CompressedTensorsW8A8Fp8MoEMethod asks the same select_fp8_moe_backend and builds make_fp8_moe_kernel from 0.14.0
    # (0.14.0, 0.14.1, 0.15.1, 0.16.0, 0.17.1, 0.20.0, 0.24.0, 0.29.0 wheels) and calls fused_experts() in 0.13.0.
    # "ct_wna16_marlin": compressed-tensors int4 w4a16 experts on MarlinExperts from 0.23.0 (0.22.1 calls
    # fused_marlin_moe() directly; plan.quantized_moe_experts).
    "moe_quant_workspace": [((0, 0, 0), ()), ((0, 14, 0), ("fp8_block_triton",)),
                            ((0, 17, 0), ("mxfp4_marlin", "fp8_block_triton")),
                            ((0, 23, 0), ("mxfp4_marlin", "fp8_block_triton", "ct_wna16_marlin"))],
    # DeepGEMM on Blackwell workstation parts (cc 12.x): platforms/cuda.py support_deep_gemm lists 9.0 and family 100
    # up to 0.23.0, family 120 too from 0.24.0 (read in the 0.22.1, 0.23.0, 0.24.0, 0.25.0, 0.26.0, 0.27.1 and 0.33.0
    # wheels); with VLLM_USE_DEEP_GEMM at its default (1) block FP8 MoE then runs TritonOrDeepGemmExperts there
    "deep_gemm_sm12x": [((0, 0, 0), False), ((0, 24, 0), True)],
    # --moe-backend, where a select_*_moe_backend oracle refuses the backend asked for (plan.serve_flags.moe_backend): the text of
    # its ValueError. "quoted": "{Label} MoE backend '{VALUE}' does not support the deployment configuration since
    # {reason}." for NvFp4 / Mxfp4 / WNA16, unquoted "{Label} MoE backend {VALUE} ..." for FP8 and Unquantized (each
    # oracle's _make_log_unsupported / _return_or_raise, 0.20.0-0.33.0 wheels; 0.17.0-0.19.0's unquantized oracle says
    # "FlashInfer TRTLLM MoE backend is not available for this configuration." instead); "base": 0.34.0's shared
    # MoEBackendSelector.make_log_unsupported (fused_moe/oracle/base.py), "{name} MoE backend '{VALUE}' ...", the name
    # Fp8 / NvFp4 / Mxfp4 / WNA16 / Unquantized. The reason for a device: FusedMoEExperts.is_supported_config's
    # "kernel does not support current device {current_platform.device_name}" ("cuda", "rocm"; modular_kernel.py,
    # 0.17.0-0.34.0)
    # "unavailable" (0.17.0-0.19.0): the formats' oracles say "quoted" already, the unquantized one its own text
    "moe_backend_refusal_text": [((0, 0, 0), "unavailable"), ((0, 20, 0), "quoted"), ((0, 34, 0), "base")],
    # Mxfp4MoeBackend's value for --moe-backend aiter, which a refusal names: "AITER" (0.20.0 wheel), "AITER_MXFP4_BF16"
    # from 0.21.0 (its W4A16 CK kernel beside the new AITER_MXFP4_FP8; fused_moe/oracle/mxfp4.py)
    "mxfp4_aiter_backend_value": [((0, 0, 0), "AITER"), ((0, 21, 0), "AITER_MXFP4_BF16")],
    # FlashInferExperts._supports_current_device (fused_moe/flashinfer_cutlass_moe.py 0.17.0, experts/
    # flashinfer_cutlass_moe.py 0.20.0-0.34.0), the kernel --moe-backend flashinfer_cutlass names for FP8, NVFP4, MXFP4
    # and (0.20 on) unquantized experts: cc 9.0 and families 100 and 120, and 110 up to 0.20.x ("SM110 excluded:
    # flashinfer-ai/flashinfer#3134" from 0.21.0 on)
    "flashinfer_cutlass_moe_sm110": [((0, 0, 0), True), ((0, 21, 0), False)],
    # --moe-backend values refused with --enable-lora: config/lora.py LoRAConfig.verify_with_kernel_config (0.33.0 and
    # 0.34.0 wheels; absent from 0.32.0's), called from VllmConfig.__post_init__ before KernelConfig
    # .set_platform_defaults: MEGA_MOE_BACKENDS (deep_gemm_mega_moe and the FlashInfer MoE-EP backends) and
    # aiter_mega_moe, "LoRA is not supported with moe_backend={value!r}. Disable LoRA or select a MoE backend that
    # supports LoRA."
    "moe_backend_lora_refused": [((0, 0, 0), ()),
                                 ((0, 33, 0), ("deep_gemm_mega_moe", "flashinfer_moe_ep_cutedsl",
                                               "flashinfer_moe_ep_mega_deep_gemm", "aiter_mega_moe"))],
    # The compute capabilities gpt-oss's OAI Triton MXFP4 experts run on (BaseOAITritonExperts._supports_current_device,
    # fused_moe/gpt_oss_triton_kernels_moe.py 0.19.0, experts/gpt_oss_triton_kernels_moe.py 0.20.0-0.31.0: 9.0 <= cc <
    # 11.0; _triton_kernel_moe_supports_current_device 9.0 <= cc < 13.0 from 0.32.0 to 0.34.0): --moe-backend triton
    # on MXFP4 experts elsewhere is refused (plan.serve_flags.moe_backend)
    "mxfp4_triton_cc_until": [((0, 0, 0), (11, 0)), ((0, 32, 0), (13, 0))],
    # --moe-backend values KernelConfig.set_platform_defaults refuses for any model but DeepSeek-V4 (config/kernel.py
    # validate_flashinfer_moe_ep_model: FLASHINFER_MOE_EP_BACKENDS in 0.29.0-0.31.0, FLASHINFER_MOE_EP_DEEP_GEMM alone
    # from 0.32.0 to 0.34.0; FLASHINFER_MOE_EP_ARCHITECTURES DeepseekV4ForCausalLM, DeepSeekV4MTPModel), MoE or not:
    # "moe_backend={value!r} is only supported for DeepSeek-V4 models ([...]), but the model is [...]."
    "moe_backend_deepseek_v4_only": [((0, 0, 0), ()),
                                     ((0, 29, 0), ("flashinfer_moe_ep_mega_deep_gemm", "flashinfer_moe_ep_mega_cutedsl")),
                                     ((0, 32, 0), ("flashinfer_moe_ep_mega_deep_gemm",))],
    # NVFP4 experts with a gated GELU (Gemma 4's MoE: FusedMoE(..., activation="gelu"), models/gemma4.py Gemma4MoE,
    # 0.20.2 wheel) on Blackwell (cc 10.x-12.x) run vLLM's own CUTLASS kernel (CutlassExpertsFp4): select_nvfp4_moe_backend
    # (fused_moe/oracle/nvfp4.py, 0.20.2) tries FLASHINFER_TRTLLM and the two CUTEDSL kernels (family 100 only, SiLU /
    # ReLU^2 only) and FLASHINFER_CUTLASS (FlashInferExperts._supports_activation: SiLU, ReLU^2 no-mul, SwiGLU-OAI) before
    # VLLM_CUTLASS, which takes GELU; 0.24.0's FlashInferExperts adds GELU_TANH (Gemma 4's gelu_pytorch_tanh), so the
    # window closes there (0.21-0.23 not read); before 0.20 not read (plan.cutlass_fp4_moe_bytes)
    "nvfp4_gelu_vllm_cutlass": [((0, 0, 0), False), ((0, 20, 0), True), ((0, 24, 0), False)],
    # Block FP8 experts on Hopper (cc 9.0) without expert parallelism: TRITON first from 0.17.0 (oracle/fp8.py
    # _get_priority_backends, "On Hopper for Block Fp8, prefer Triton for TP", 0.17.0 wheel); 0.15.0-0.16.0's fixed
    # order puts FLASHINFER_CUTLASS (block scales on 9.0, flashinfer_cutlass_moe.py FlashInferExperts
    # ._supports_quant_scheme) and DEEPGEMM ahead of it, 0.14.0's chain FlashInfer (VLLM_USE_FLASHINFER_MOE_FP8) and
    # DeepGEMM, each taken where its package is installed: not pinned, not charged (plan._fp8_block_moe_experts)
    "fp8_block_hopper_triton": [((0, 0, 0), False), ((0, 17, 0), True)],
    # V0 turns chunked prefill on by itself for contexts > 32K (engine/arg_utils.py create_engine_config), except for
    # the listed cases, where the profile run takes max(max_model_len, 2048) tokens at once. None: never (before
    # vLLM PR #6666, merged 2024-07-23, first in 0.5.4). Exclusions: sliding window, speculative decoding and LoRA from
    # the start; multimodal models from PR #8425 (merged 2024-09-12; 0.6.1.post1 is not a release step here, 0.6.2 is);
    # ROCm from PR #11146 (merged 2024-12-12, so 0.6.5); pooling models as read in the 0.7.3 wheel; MLA models as read
    # in the 0.8.0 wheel ("Chunked prefill not supported for Multimodal or MLA in V0").
    # gpt-oss's MXFP4 experts on Hopper (quantization/mxfp4.py get_mxfp4_backend): Marlin while the Triton kernels
    # package is not installed (the 0.10-0.11 wheels import an external triton_kernels, which a pip install lacks;
    # a 0.11.2 H100 log says "Using Marlin backend"), the Triton kernels from 0.12, which vendors them
    # (vllm/third_party/triton_kernels).
    "mxfp4_hopper_backend": [((0, 0, 0), "marlin"), ((0, 12, 0), "triton")],
    # gpt-oss's MXFP4 experts on compute capability 11.x (Jetson Thor, sm_110), which FlashInfer's TRTLLM kernels do not
    # take (trtllm_mxfp4_moe.py _supports_current_device: family 100 only): the 0.33.0 wheel's gpt-oss priority list
    # (fused_moe/oracle/mxfp4.py _get_priority_backends_for_gpt_oss) moves TRITON behind MARLIN on family 120 alone,
    # and the OAI Triton kernels take 9.0 <= cc < 13.0 (gpt_oss_triton_kernels_moe.py
    # _triton_kernel_moe_supports_current_device), so 11.x runs the Triton kernels, in triton_kernels' Blackwell layouts
    # (weights.mxfp4_expert_layout); the 0.34.0 wheel moves TRITON behind MARLIN on family 110 too ("Jetson Thor (SM110):
    # MARLIN stays the default as it has not been benchmarked"). The compute-capability majors past Hopper where the
    # Triton kernels come before Marlin; releases before 0.33.0 were not re-read for this and keep Marlin.
    "mxfp4_triton_cc_majors": [((0, 0, 0), ()), ((0, 33, 0), (11,)), ((0, 34, 0), ())],
    # The Triton kernels' MXFP4 experts after loading (weights.mxfp4_expert_layout). "mxfp4_triton_keeps_scales": the
    # checkpoint's block scales stay on the layer beside the swizzled copy the kernel reads: the Triton branch of
    # process_weights_after_loading deletes w13_weight / w2_weight only and never replaces w13_weight_scale /
    # w2_weight_scale (quantization/mxfp4.py 0.12.0, 0.16.0; quantization/mxfp4.py _setup_kernel with
    # fused_moe/oracle/mxfp4.py convert_to_mxfp4_moe_kernel_format 0.19.0, 0.21.0, 0.23.0, 0.24.0) until 0.25.0, whose
    # convert_to_mxfp4_moe_kernel_format also deletes them ("drop the now-dead weight/scale Parameters to free their
    # memory"; 0.25.0, 0.25.1, 0.26.0, 0.27.1, 0.28.0, 0.33.0). Kept: +1/16 of the expert weights' bytes.
    "mxfp4_triton_keeps_scales": [((0, 0, 0), True), ((0, 25, 0), False)],
    # "mxfp4_triton_swizzle_align": the vendored triton_kernels' HopperMXValueLayout.swizzle_data pre-pads both dims
    # of the packed weight to multiples of 64 bytes (SWIZZLE_ALIGN_M / SWIZZLE_ALIGN_K) in the 0.17.0, 0.18.0, 0.19.0,
    # 0.20.0 and 0.21.0 wheels (vllm/third_party/triton_kernels/tensor_details/layout_details/hopper_value.py), not in
    # 0.12.0, 0.16.0 nor 0.22.0-0.33.0, whose swizzle pads only to its tile (16 x 32 bytes); 1: no pre-pad
    "mxfp4_triton_swizzle_align": [((0, 0, 0), 1), ((0, 17, 0), 64), ((0, 22, 0), 1)],
    # Where --env VLLM_MXFP4_USE_MARLIN=1 moves those experts to Marlin (plan.mxfp4_marlin_forced): "any" in 0.10.1,
    # whose Mxfp4MoEMethod._should_use_marlin returns the variable before any device check (quantization/mxfp4.py,
    # 0.10.1 and 0.10.1.1 wheels: a B200 included); "" in 0.10.2 and 0.11.0, where vllm/envs.py still defines it but
    # quantization/mxfp4.py get_mxfp4_backend never reads it (0.10.2, 0.11.0 wheels); "hopper" while get_mxfp4_backend
    # reads it after the FlashInfer branches (0.11.1, 0.11.2, 0.12.0, 0.16.0, 0.17.0, 0.18.0 wheels: Marlin over the
    # Triton kernels on SM90; Blackwell 10.0 takes FlashInfer first, other GPUs run Marlin anyway); "any" once
    # fused_moe/oracle/mxfp4.py select_mxfp4_moe_backend returns Marlin for it before any device's list (0.19.0,
    # 0.19.1, 0.23.0 wheels; family 100 included); "" where vllm/envs.py no longer has it (0.24.0, 0.25.1 wheels: the
    # oracle takes moe_backend instead) and before gpt-oss's MXFP4 (0.10.1)
"mxfp4_marlin_env": [((0, 0, 0), ""), ((0, 10, 1), "any"), ((0, 10, 2), ""), ((0, 11, 1), "hopper"),
                         ((0, 19, 0), "any"), ((0, 24, 0), "")],
    # Which top-k/top-p kernel V1's sampler runs when VLLM_USE_FLASHINFER_SAMPLER is not set (it sizes the profile's
    # sampler peak: calibration.py a_sampler / a_sampler_flashinfer). "if_installed": FlashInfer's whenever flashinfer
    # imports on a CUDA GPU (vLLM PR #11394, merged 2024-12-26: the V1 TopKTopPSampler; vllm/envs.py reads the unset
    # variable as None, which the V1 sampler takes as on and the V0 one as off); "opt_in": only with the variable set
    # to 1 (PR #26859 "Disable FlashInfer sampler by default", merged 2025-10-15, first in 0.11.1). PR #40376 (merged
    # after 2026-04-20) turns it back on by default; no release before 0.20.0 has it and the first one that does is not
    # pinned here, so no step is placed for it: from 0.18 the sampler term is one fitted value, whichever kernel ran.
    # What an unset variable does in 0.7-0.11.0 depends on the install, which no engine argument states: kvplan
    # charges the PyTorch-native path there (its coefficient's records) and says so in a note. (0.8.x also fell back to
    # PyTorch with FlashInfer >= 0.2.3 installed, until PR #15777 adapted the sampler to that API.)
    # "default_on" from 0.21.0: vllm/envs.py reads an unset variable as True ("Enabled by default when the hardware
    # supports it"), and the V1 sampler takes FlashInfer's kernel on CUDA wherever FlashInferBackend
    # .supports_compute_capability holds (row flashinfer_sampler_cc), falling back to the PyTorch-native one quietly
    # elsewhere (v1/sample/ops/topk_topp_sampler.py TopKTopPSampler.__init__, 0.21.0 and 0.22.0; flashinfer_sampler_supported
    # from 0.23.0, which from 0.31.0 also falls back on 16 SMs or fewer and where FlashInfer cannot JIT-compile for the
    # GPU). Read in the 0.20.0 and 0.20.2 wheels (None: opt-in) and 0.21.0, 0.22.0, 0.23.0, 0.24.0, 0.26.0, 0.28.0-0.33.0
    # (True); an earlier note here that no release before 0.20.0 has it holds. Model runner v2's sampler follows the
    # same function (v1/worker/gpu/sample/sampler.py Sampler.__init__ use_flashinfer, 0.28.0 and 0.33.0), but its
    # profile rows have no top-k/top-p (row mrv2_profile_sampler), so no kernel of either kind runs there.
    "flashinfer_sampler": [((0, 0, 0), "opt_in"), ((0, 7, 0), "if_installed"), ((0, 11, 1), "opt_in"),
                           ((0, 21, 0), "default_on")],
    # Whether the V1 runner's profile sampler run also warms the PyTorch-native path: from 0.21.0 _dummy_sampler_run
    # (v1/worker/gpu_model_runner.py) calls the sampler a second time with a per-request generator ("Also warm
    # forward_native"), which TopKTopPSampler.forward_cuda hands to forward_native (FlashInfer takes no generators), unless
    # logprobs_mode is processed_logits / processed_logprobs. The profile's sampler peak is then the larger of the two
    # kernels', the native one (the Triton mask for 8 or more rows, row topk_topp_triton), whatever the variable says.
    # Read in the 0.21.0-0.24.0, 0.26.0 and 0.28.0-0.33.0 wheels; absent from 0.17.1, 0.20.0 and 0.20.2.
    "profile_sampler_warms_native": [((0, 0, 0), False), ((0, 21, 0), True)],
    # The compute capabilities FlashInfer's sampler runs on, (lowest, highest): FlashInferBackend
    # .supports_compute_capability (v1/attention/backends/flashinfer.py). VLLM_USE_FLASHINFER_SAMPLER=1 set outside them
    # stops the server with "FlashInfer does not support compute capability X" (RuntimeError, TopKTopPSampler.__init__,
    # read in the 0.12.0, 0.13.0, 0.14.1, 0.17.1, 0.20.0-0.22.0; flashinfer_sampler_supported "FlashInfer top-p/top-k
    # sampling unavailable", 0.23.0-0.33.0); 0.11.0 has no check (0.11.1-0.11.2 not read). 7.5-12.1 in 0.12.0-0.23.0;
    # 8.0-12.1 from 0.24.0 (Turing: flashinfer-ai/flashinfer issue 3620, the comment in the 0.24.0-0.33.0 wheels).
    "flashinfer_sampler_cc": [((0, 0, 0), ()), ((0, 12, 0), ((7, 5), (12, 1))), ((0, 24, 0), ((8, 0), (12, 1)))],
    # The top-k/top-p masking V1's PyTorch path runs when FlashInfer's kernel does not: from 0.17.0 an in-place Triton
    # kernel for 8 or more rows (v1/sample/ops/topk_topp_sampler.py apply_top_k_top_p -> topk_topp_triton.py
    # apply_top_k_top_p_triton, which masks the fp32 logits in place with one vocabulary-wide buffer per SM; read in the
    # 0.17.0, 0.18.0 and 0.19.1 wheels, absent from 0.14.1, 0.15.1 and 0.16.0, whose v1/sample/ops have no
    # topk_topp_triton.py), else a full sort (fp32 values + int64 indices, apply_top_k_top_p_pytorch), which is what
    # the 0.8-0.16 sampler coefficient measured. The profile's dummy sampler run has top-k and top-p set for every row
    # (gpu_model_runner.py _dummy_sampler_run), so it takes the Triton kernel whenever it samples 8 or more sequences.
    "topk_topp_triton": [((0, 0, 0), False), ((0, 17, 0), True)],
    # FlashInfer's all-reduce + RMSNorm fusion, on by default from 0.17.0 at -O2 where TP > 1 on compute capability 9.0
    # or 10.0 (0.17.0-0.18.0: current_platform.is_device_capability(100)) / any 10.x (0.19.0 on:
    # is_device_capability_family(100)) with flashinfer installed (config/vllm.py enable_allreduce_rms_fusion, read in
    # the 0.17.0, 0.18.0, 0.19.0, 0.20.0, 0.22.1, 0.26.0, 0.28.0, 0.29.0, 0.31.0 and 0.33.0 wheels; off at every level
    # in 0.16.0). Its workspace is allocated when the compile pass is built, inside the profiled window, outside torch's
    # allocator (plan.fi_allreduce_workspace_bytes). The value names the size table the pass reads
    # (compilation/passes/fusion/allreduce_rms_fusion.py FI_ALLREDUCE_FUSION_MAX_SIZE_MB, read in every wheel
    # 0.17.0-0.29.0 but 0.23's patch releases, and 0.33.0: 0.17.0/0.18.0 cc 9.0 and 10.0; 0.19.0 adds 10.3; 0.25.0 adds
    # TP 16 (multi-node) on 10.0 and 10.3 (0.24.0 has none); 0.27.0 adds 10.7 (0.26.0 has none); 0.29.0 raises 10.3's
    # TP 8 from 2 to 4 MB (0.28.0 has 2)).
    "fi_allreduce_fusion": [((0, 0, 0), ""), ((0, 17, 0), "0.17"), ((0, 19, 0), "0.19"), ((0, 25, 0), "0.25"),
                            ((0, 27, 0), "0.27"), ((0, 29, 0), "0.29")],
    # ... and only with PP = DP = 1 up to 0.20 (the 0.17.0-0.20.0 wheels' enable_allreduce_rms_fusion; the condition is
    # gone in the 0.21.0 wheel)
    "fi_allreduce_fusion_pp_dp_1": [((0, 0, 0), True), ((0, 21, 0), False)],
    # How flashinfer (the version each vLLM wheel pins) allocates that workspace: "multicast" = SymmDeviceMemory, each
    # of its three buffers rounded up to the multicast granularity the driver recommends and refused without multicast
    # support (flashinfer/comm/mnnvl.py SymmDeviceMemory._get_allocation_prop, trtllm_ar.py
    # trtllm_create_ipc_workspace_for_all_reduce_fusion: flashinfer-python 0.6.4 (vLLM 0.17.0), 0.6.6 (0.18.0,
    # 0.19.0), 0.6.8.post1 (0.20.0, 0.21.0), 0.6.16.post3 (0.27.0), 0.6.18.post1 (0.30.0), 0.7.2.post1 (0.33.0));
    # "allocation" = torch's symmetric memory (flashinfer/comm/torch_symmetric_memory.py _alloc_symm_buffer_bytes,
    # flashinfer-python 0.6.11.post2 (vLLM 0.22.0), 0.6.12 (0.23.0, 0.24.0), 0.6.13 (0.25.0), 0.6.14 (0.26.0)), whose
    # allocator rounds to the allocation granularity only (pytorch torch/csrc/distributed/c10d/symm_mem/
    # CUDASymmetricMemory.cu CUDASymmetricMemoryAllocator::alloc)
    "fi_allreduce_workspace_alloc": [((0, 0, 0), "multicast"), ((0, 22, 0), "allocation"), ((0, 27, 0), "multicast")],
    "v0_long_context_chunked_skips": [((0, 0, 0), None), ((0, 5, 4), ("sliding", "speculative", "lora")),
                                      ((0, 6, 2), ("sliding", "speculative", "lora", "multimodal")),
                                      ((0, 6, 5), ("sliding", "speculative", "lora", "multimodal", "rocm")),
                                      ((0, 7, 3), ("sliding", "speculative", "lora", "multimodal", "rocm", "pooling")),
                                      ((0, 8, 0), ("sliding", "speculative", "lora", "multimodal", "rocm", "pooling", "mla"))],
    # Where get_pp_indices (vllm/distributed/utils.py) puts the layers an uneven pipeline split leaves over: the last
    # stage takes them all up to 0.7.3 (read in the 0.6.4-0.7.3 wheels); from vLLM PR #13839 (merged 2025-02-26, first
    # in 0.8.0; read in the 0.8.2, 0.10.0, 0.19.1 and 0.33.0 wheels) one each to the stages before the last, counted back
    # from the second-to-last (weights.pp_layer_split). VLLM_PP_LAYER_PARTITION overrides either.
    "pp_remainder": [((0, 0, 0), "last"), ((0, 8, 0), "middle")],
    # V0's capacity check divides the blocks by the pipeline stages in 0.10 (section 4).
    "v0_capacity_per_stage": [((0, 0, 0), False), ((0, 10, 0), True)],
    # The null block is held back in the fit check (section 3.3 / 4).
    "null_block_in_fit_check": [((0, 0, 0), False), ((0, 29, 0), True)],
    # A hybrid model (recurrent/Mamba-type layers) whose full decode CUDA graphs need one state block per sequence:
    # from 0.20 vLLM refuses to start when max_num_seqs exceeds the blocks of the pool ("max_num_seqs (N) exceeds
    # available Mamba cache blocks (M)", vllm/config/compilation.py resolve_cudagraph_mode_and_sizes; vLLM PR #38270,
    # which replaced the silent capping of the capture sizes of PR #34571). --enforce-eager captures no graphs and is
    # not checked.
    "state_blocks_refuse_max_num_seqs": [((0, 0, 0), False), ((0, 20, 0), True)],
    # The check runs only when FULL decode graphs survive resolve_cudagraph_mode_and_sizes (its guard:
    # cudagraph_mode.has_full_cudagraphs(), not the profiling pass, a Mamba-type layer in the KV config; model runner
    # v1 (_check_and_update_cudagraph_mode) and v2 (initialize_kv_cache) both call it). Speculative decoding makes the
    # decode query 1 + k tokens, and the same function then downgrades FULL_AND_PIECEWISE to PIECEWISE ("... is not
    # supported with spec-decode for attention backend ...; setting cudagraph_mode=PIECEWISE") when an attention
    # backend of the model supports less than UNIFORM_BATCH graphs; the refusal then never fires. max_num_seqs is
    # compared with the blocks whatever k is (the decode dispatcher caps its sizes at max_num_seqs x (1 + k)). Read in
    # the 0.20.0, 0.24.0, 0.28.0-0.33.0 wheels:
    # - recurrent kinds whose metadata builder lacks UNIFORM_BATCH: MiniMax's linear attention
    #   (v1/attention/backends/linear_attn.py LinearAttentionMetadataBuilder: UNIFORM_SINGLE_TOKEN_DECODE in every one);
    #   GDN (gdn_attn.py) and Mamba1/2 (mamba_attn.py) have UNIFORM_BATCH and keep FULL graphs.
    "spec_decode_piecewise_recurrent_kinds": [((0, 0, 0), ()), ((0, 20, 0), ("linear",))],
    # - an fp8 KV cache on an Ampere/Ada GPU (compute capability 8.x): FlashAttention takes fp8 KV only as FA3 on
    #   Hopper (flash_attn_supports_fp8), so FlashInfer, next in platforms/cuda.py's order, serves the attention layers,
    #   without TRTLLM kernels (utils/flashinfer.py supports_trtllm_attention: SM90/SM100/SM12x only), so with
    #   UNIFORM_SINGLE_TOKEN_DECODE (flashinfer.py get_cudagraph_support) up to 0.32; a 2x RTX 3090 Qwen3.6-27B MTP log
    #   (noonghunna/club-3090 #584) shows the downgrade, and vLLM issue #49547 keeps sm_86 open. 0.33.0 answers
    #   UNIFORM_BATCH below SM90 (native fa2 decode takes uniform multi-token queries): FULL graphs, the check runs.
    #   The same holds on a consumer Blackwell GPU (compute capability 12.x) in 0.20-0.27: flashinfer.py
    #   get_cudagraph_support answers UNIFORM_BATCH only where can_use_trtllm_attention holds, and
    #   utils/flashinfer.py supports_trtllm_attention is is_device_capability_family(100) alone (0.20.0, 0.27.1 wheels);
    #   0.28.0 adds the SM12x XQA path ("SM12x uses the dedicated XQA API, which supports speculative ... decode":
    #   UNIFORM_BATCH). A 0.27.1 RTX 5090 Qwen3.8-27B MTP log with an fp8 KV cache (FlashInfer) captures
    #   "PIECEWISE=11 (largest=64)" and no FULL graphs. Values: the compute-capability majors that downgrade.
    "spec_decode_piecewise_fp8_kv_cc_majors": [((0, 0, 0), ()), ((0, 20, 0), (8, 12)), ((0, 28, 0), (8,)), ((0, 33, 0), ())],
    # CUDA-graph capture sizes (vllm/config/vllm.py VllmConfig._set_cudagraph_sizes; section 1.5). vLLM's default
    # list: [1, 2, 4] + multiples of 8 below 256 + multiples of 16 from 256, up to
    # min(max_num_batched_tokens, min(max_num_seqs x q x 2, ceiling)), q the decode query length. Rows, as read in the
    # 0.10.2, 0.11.0-0.11.2, 0.12.0, 0.13.0, 0.14.1, 0.19.0, 0.20.0-0.25.1, 0.26.0-0.33.0 wheels:
    # - q is 1 up to 0.12.0 and 1 + num_speculative_tokens from 0.13.0 ("decode_query_len +=
    #   self.speculative_config.num_speculative_tokens"; 0.29.0 on: the uniform_decode_query_len property)
    "cudagraph_max_size_spec_query": [((0, 0, 0), False), ((0, 13, 0), True)],
    # - the grid itself before 0.11.1 (config.py / config/__init__.py VllmConfig._set_cudagraph_sizes, read in the
    #   0.8.2, 0.8.5, 0.9.0.1, 0.9.2, 0.10.0, 0.10.2 and 0.11.0 wheels): V1 0.8-0.9 captures [1, 2, 4] + every multiple of 8
    #   up to 512 ("step8_512", 67 sizes), 0.10.0-0.11.0 the same up to SchedulerConfig.cuda_graph_sizes' default
    #   min(max_num_seqs x 2, 512) ("step8"); both keep only sizes within max_num_batched_tokens. From 0.11.1 the grid
    #   above ("grid"). The V0 engine (any release) captures [1, 2, 4] + multiples of 8 up to max_num_seqs rounded up to
    #   one of them (worker/model_runner.py _get_max_graph_batch_size 0.6.4.post1; config.py _set_cudagraph_sizes'
    #   V0 branch 0.7.3-0.10.0), whatever max_num_batched_tokens is: plan.cudagraph_capture_sizes reads rules.engine.
    "cudagraph_size_grid": [((0, 0, 0), "step8_512"), ((0, 10, 0), "step8"), ((0, 11, 1), "grid")],
    # - --compilation-config's own cudagraph_capture_sizes before 0.11.1: CompilationConfig.init_with_cudagraph_sizes
    #   keeps a given list in place of the sizes the engine derived (V0's or V1's, --cuda-graph-sizes' too: "cudagraph
    #   sizes specified by model runner ... is overridden by config"), whole: neither max_num_batched_tokens nor
    #   max_num_seqs caps it (vllm/config.py 0.6.6.post1, 0.7.1, 0.7.3, 0.8.5, 0.9.0, 0.10.0; vllm/config/compilation.py
    #   and __init__.py 0.11.0). 0.6.6.post1 is the oldest release read with the field. From 0.11.1 the list is capped
    #   as --cudagraph-capture-sizes is (plan.given_capture_sizes).
    "compilation_capture_sizes_whole": [((0, 0, 0), False), ((0, 6, 6), True), ((0, 11, 1), False)],
    # - the ceiling is 512, or 1024 on a compute-capability-10.x GPU (is_device_capability_family(100)) from 0.28.0
    "cudagraph_max_size_cc10": [((0, 0, 0), 512), ((0, 28, 0), 1024)],
    # - from 0.21.0 max_num_batched_tokens itself is appended when it is within the largest size ("ensure
    #   max_num_tokens is captured if within max capture size")
    "cudagraph_capture_max_tokens": [((0, 0, 0), False), ((0, 21, 0), True)],
    # - from 0.29.0, with q > 1, the uniform decode sizes n x q are appended (n over the same grid of request counts up
    #   to max_num_seqs, plus max_num_seqs itself, each n x q within min(max_num_seqs x q x 2, ceiling) and
    #   max_num_batched_tokens); from 0.31.0, with q = 1, max_num_seqs itself when within that size. "spec": the
    #   first, "spec_and_seqs": both.
    "cudagraph_uniform_decode_sizes": [((0, 0, 0), "none"), ((0, 29, 0), "spec"), ((0, 31, 0), "spec_and_seqs")],
    # - from 0.34.0 the sizes are split into prefill (token counts: PIECEWISE graphs) and decode (request counts: FULL
    #   uniform-decode graphs of n x q tokens) sizes (config/vllm.py VllmConfig._split_cudagraph_capture_sizes;
    #   v1/worker/gpu/cudagraph_utils.py CudaGraphManager builds its token-keyed descriptors from
    #   prefill_cudagraph_capture_token_sizes and its decode ones from decode_cudagraph_capture_request_sizes). Both
    #   default to the shared sizes above except on a compute-capability-10.x GPU (is_device_capability_family(100))
    #   with no deprecated cudagraph_capture_sizes / max_cudagraph_capture_size given, which takes wider grids: prefill
    #   config/compilation.py prefill_cudagraph_capture_grid(min(8192, max_num_batched_tokens)) (54 sizes at 8192),
    #   decode decode_cudagraph_capture_grid(max_num_seqs) (64 sizes at 1024) within max_decode_cudagraph_capture_tokens
    #   8192 (decode_cudagraph_capture_shapes). plan.cudagraphs.cudagraph_plan
    "cudagraph_wide_defaults_cc10": [((0, 0, 0), False), ((0, 34, 0), True)],
    # - how the FULL uniform-decode graphs are keyed under speculative decoding (and without it). "rounded" to 0.33: the
    #   capture sizes are token counts; model runner v2 rounds each up to a multiple of q = 1 + num_speculative_tokens
    #   and keeps it while within max_num_seqs x q and the largest size (v1/worker/gpu/cudagraph_utils.py
    #   CudaGraphManager._init_candidates, 0.29.0 and 0.33.0 wheels), and model runner v1 rounds the whole list first
    #   (compilation.py adjust_cudagraph_sizes_for_spec_decode, rows cudagraph_spec_round_*). "requests" from 0.34.0,
    #   which has neither (adjust_cudagraph_sizes_for_spec_decode and model runner v1 are gone): the decode graphs are
    #   request counts n, captured at n x q tokens. Off the wide defaults each shared size s gives n = min(ceil(s / q),
    #   max_num_seqs) where ceil(s / q) x q is within the largest shared size (VllmConfig._split_cudagraph_capture_sizes,
    #   config/vllm.py), then config/compilation.py decode_cudagraph_capture_shapes keeps them up to min(max_num_seqs,
    #   max tokens // q), the first count past that captured at it (CudaGraphManager._init_candidates, 0.34.0 wheel).
    #   The PIECEWISE (prefill) graphs keep the shared token sizes, unrounded. vLLM's recorded cudagraph_capture_sizes
    #   becomes the union of the prefill sizes, the n x q decode sizes and the drafter's decode sizes (below), its
    #   max_cudagraph_capture_size their largest. plan.cudagraphs.split_capture_sizes
    "cudagraph_decode_keys": [((0, 0, 0), "rounded"), ((0, 34, 0), "requests")],
    # - what a release does with --compilation-config's split capture-size keys (prefill_cudagraph_capture_token_sizes,
    #   max_prefill_cudagraph_capture_tokens, decode_cudagraph_capture_request_sizes,
    #   max_decode_cudagraph_capture_requests; config/compilation.py CompilationConfig, new in 0.34.0). "ignored" before
    #   0.13.0: CompilationConfig is a pydantic BaseModel (vllm/config.py, 0.8.5 wheel) or dataclass (0.9.1-0.12.0
    #   wheels) without extra="forbid", so unknown keys are dropped; "refused" in 0.13.0-0.33.0: the dataclass is
    #   declared with ConfigDict(extra="forbid") (config/compilation.py 0.13.0-0.15.1, config/utils.py `config` 0.16.0-
    #   0.33.0 wheels), so pydantic refuses the key ("Unexpected keyword argument"); "read" from 0.34.0
    #   (VllmConfig._split_cudagraph_capture_sizes). plan.cudagraphs.split_key_refusal / _prefill_token_sizes
    "compilation_split_capture_keys": [((0, 0, 0), "ignored"), ((0, 13, 0), "refused"), ((0, 34, 0), "read")],
    # - what a release does when no CUDA-graph capture size is left (given sizes all above max_num_batched_tokens, split
    #   caps of 0, split lists all outside [1, max_num_batched_tokens] / [1, max_num_seqs], FULL_DECODE_ONLY with no
    #   decode request count): "kept" up to 0.33.0, the cudagraph_mode stays as configured and nothing is captured
    #   (config/vllm.py VllmConfig._set_cudagraph_sizes writes back the empty list, 0.33.0 wheel; the V1 runner's
    #   capture_model loops over no descriptor and logs "Graph capturing finished", model runner v2's capture_model finds
    #   none to capture and logs "Skipping encoder and decoder CUDA graph capture"); "none" from 0.34.0,
    #   VllmConfig._split_cudagraph_capture_sizes sets cudagraph_mode NONE when the recorded sizes are empty, with
    #   logger.info_once "No CUDA graph capture sizes are left; setting cudagraph_mode to NONE." (config/vllm.py, 0.34.0
    #   wheel), before _validate_adaptive_verification, which then refuses adaptive verification ("requires full CUDA
    #   graphs"). plan.cudagraphs._split_graph_plan / sizes_left
    "cudagraph_no_sizes_left": [((0, 0, 0), "kept"), ((0, 34, 0), "none")],
    # - what a release does with a max_cudagraph_capture_size below 1 (--max-cudagraph-capture-size or
    #   --compilation-config's field, neither bounded) where it captures graphs: "assert" from 0.11.1, the first
    #   release with the field: VllmConfig._set_cudagraph_sizes asserts min(max_num_batched_tokens, it) >= 1, "Maximum
    #   cudagraph size should be greater than or equal to 1 when using cuda graph." (config/vllm.py, 0.11.1, 0.14.0,
    #   0.18.1, 0.30.0, 0.33.0 and 0.34.0 wheels, the same text; with --enforce-eager or cudagraph_mode NONE the branch
    #   is skipped and the size set to 0). "unread" before. plan.cudagraphs._refuse_max_size_below_one
    "cudagraph_max_size_below_one": [((0, 0, 0), "unread"), ((0, 11, 1), "assert")],
    # - the warning model runner v2's capture_model logs in place of "Graph capturing finished ... took X GiB" where it
    #   has no decoder graph to capture (CudaGraphManager.needs_capture() false: no capture size left, or cudagraph_mode
    #   NONE, the user's own or as 0.34 sets it for want of sizes): it returns before capturing or timing anything
    #   (v1/worker/gpu/model_runner.py GPUModelRunner.capture_model, cudagraph_utils.py). 0.12-0.27 (0.12.0, 0.16.0,
    #   0.20.0, 0.25.0, 0.27.0 wheels) ask only the decoder and log v1's text; from 0.28 (0.28.0, 0.29.0, 0.33.0, 0.34.0
    #   wheels) capture_model also asks for encoder graphs (cudagraph_mm_encoder, default False, on a multimodal model)
    #   and logs the encoder-and-decoder text. --enforce-eager logs neither: the worker does not call capture_model
    #   (v1/worker/gpu_worker.py compile_or_warm_up_model, "if not self.model_config.enforce_eager", every wheel read).
    #   Model runner v1's capture_model has no such return for an empty list: it loops over no size and logs "Graph
    #   capturing finished" (v1/worker/gpu_model_runner.py, 0.33.0 wheel); its own warning is row
    #   capture_none_log_v1. plan.cudagraphs.capture_skipped
    "mrv2_capture_skipped_log": [((0, 0, 0), ""),
                                 ((0, 12, 0), "Skipping CUDA graph capture. To turn on CUDA graph capture, ensure "
                                  "`cudagraph_mode` was not manually set to `NONE`"),
                                 ((0, 28, 0), "Skipping encoder and decoder CUDA graph capture. To enable "
                                  "encoder capture, ensure `cudagraph_mm_encoder` is enabled; to enable decoder capture, "
                                  "ensure `cudagraph_mode` is not `NONE`.")],
    # - whether model runner v2 captures FULL graphs only, so that a cudagraph_mode without full graphs (PIECEWISE, the
    #   user's or as the config sets it: a pooling or encoder-decoder model) leaves CudaGraphManager.needs_capture()
    #   false and capture_model logs row mrv2_capture_skipped_log and captures nothing (the speculator's graphs
    #   neither: they are captured after that return): get_cudagraph_sizes returns {} where
    #   "not cudagraph_mode.has_full_cudagraphs()" (v1/worker/gpu/cudagraph_utils.py, 0.12.0, 0.13.0, 0.14.0, 0.14.1,
    #   0.15.0, 0.15.1 and 0.16.0 wheels); from 0.17 it "Support[s] both FULL and PIECEWISE cudagraph modes" and
    #   CudaGraphManager captures PIECEWISE graphs too (0.17.0, 0.17.1, 0.18.0-0.34.0 wheels). False before 0.12 (no
    #   model runner v2). plan.cudagraphs.capture_skipped
    "mrv2_full_graphs_only": [((0, 0, 0), False), ((0, 12, 0), True), ((0, 17, 0), False)],
    # - which capture sizes model runner v2 keeps for cudagraph_mode FULL_DECODE_ONLY, where none left makes
    #   CudaGraphManager.needs_capture() false, so capture_model logs row mrv2_capture_skipped_log and captures nothing:
    #   "requests" (0.12-0.16): get_cudagraph_sizes drops every size above max_num_seqs from the size table
    #   ("upper_bound = max_num_reqs if cudagraph_mode == CUDAGraphMode.FULL_DECODE_ONLY", v1/worker/gpu/
    #   cudagraph_utils.py, 0.12.0 and 0.16.0 wheels); "" (0.17.x): the size table is unfiltered (only the
    #   uniform-decode one is) and needs_capture() reads it (0.17.0, 0.17.1 wheels); "decode_tokens" (0.18+):
    #   CudaGraphManager._init_candidates makes FULL_DECODE_ONLY descriptors only for decode_query_len <= size <=
    #   max_num_seqs x decode_query_len and needs_capture() is len(_capture_descs) > 0 (0.18.0, 0.18.1, 0.19.0, 0.20.0,
    #   0.29.0 wheels); "" from 0.34, whose decode graphs are keyed on request counts (rules row cudagraph_decode_keys:
    #   the split plan's decode sizes, CudaGraphPlan.full_decode_graphs, 0.34.0 wheel's _init_candidates) and "" before
    #   0.12 (no model runner v2). plan.cudagraphs.capture_skipped
    "mrv2_decode_only_bound": [((0, 0, 0), ""), ((0, 12, 0), "requests"), ((0, 17, 0), ""), ((0, 18, 0), "decode_tokens"),
                               ((0, 34, 0), "")],
    # - the once-only warning model runner v2's capture_model logs, capturing nothing (the speculator's graphs neither),
    #   under pipeline parallelism (pipeline_parallel_size > 1) where it has graphs to capture (after the
    #   needs_capture() check, whose warning comes first): "Skipping CUDA graph capture because pipeline parallel is
    #   enabled. Pipeline parallel is currently eager-only." (v1/worker/gpu/model_runner.py GPUModelRunner.capture_model,
    #   `if self.use_pp: logger.warning_once(...); return 0`, 0.17.0, 0.17.1, 0.18.0 and 0.18.1 wheels; absent from the
    #   0.12.0-0.16.0 wheels, whose model runner v2 has no pipeline-parallel code, and from 0.19.0 on, which captures
    #   under pipeline parallelism with intermediate tensors). "" elsewhere. plan.cudagraphs.capture_skipped
    "mrv2_pp_capture_skipped_log": [((0, 0, 0), ""),
                                    ((0, 17, 0), "Skipping CUDA graph capture because pipeline parallel is enabled. "
                                     "Pipeline parallel is currently eager-only."),
                                    ((0, 19, 0), "")],
    # - whether model runner v2's capture_model asks for encoder graphs before it skips (capture_encoder: a multimodal
    #   model with cudagraph_mm_encoder true captures them and logs no warning): from 0.28 (0.28.0 wheel; absent in
    #   0.27.0's). plan.cudagraphs.capture_skipped
    "mrv2_capture_asks_encoder": [((0, 0, 0), False), ((0, 28, 0), True)],
    # - the warning model runner v1's capture_model logs, capturing nothing and logging no "Graph capturing finished",
    #   where the compilation config's cudagraph_mode is NONE and the start is not --enforce-eager (with it the worker
    #   never calls capture_model): "Skipping CUDA graph capture. To turn on CUDA graph capture, ensure `cudagraph_mode`
    #   was not manually set to `NONE`" from 0.10.1, when cudagraph_mode arrived (v1/worker/gpu_model_runner.py
    #   GPUModelRunner.capture_model, the same text in the 0.10.1, 0.10.2, 0.11.0, 0.12.0, 0.14.0, 0.20.0, 0.25.0, 0.28.0
    #   and 0.33.0 wheels; 0.34.0 has no model runner v1). "" before (no cudagraph_mode). plan.cudagraphs.capture_skipped
    "capture_none_log_v1": [((0, 0, 0), ""), ((0, 10, 1), "Skipping CUDA graph capture. To turn on CUDA graph capture, "
                            "ensure `cudagraph_mode` was not manually set to `NONE`")],
    # - what --speculative-config's num_speculative_tokens_per_batch_size (dynamic speculative decoding: K by batch size,
    #   SpeculativeConfig, present in the 0.28.0-0.34.0 wheels) does to the capture sizes. The dense schedule
    #   (v1/spec_decode/dynamic/utils.py build_dynamic_sd_schedule_lookup) maps each query length 1 + K to the widest
    #   batch that drafts K, and each such tier takes sizes of its own. "none" (0.28.0 wheel: no tiers); "default_sizes"
    #   0.29.0-0.33.0: the default grid appends n x q for each tier up to its widest batch (config/vllm.py
    #   VllmConfig._set_cudagraph_sizes decode_tiers, 0.29.0, 0.31.0, 0.32.0, 0.33.0 wheels; model runner v2's own
    #   handling of the tiers in 0.32-0.33 cudagraph_utils.py is not modelled); "decode_graphs" from 0.34.0: besides,
    #   the decode request counts come from the shared sizes at every tier's query length and the target's uniform-decode
    #   graphs are (n, q) per tier up to its widest batch (VllmConfig.get_decode_cudagraph_query_lens,
    #   _split_cudagraph_capture_sizes, config/compilation.py decode_cudagraph_capture_shapes, 0.34.0 wheel). With data
    #   parallelism vLLM drops the schedule (_maybe_disable_dynamic_sd_for_data_parallel, 0.29.0-0.34.0).
    #   plan.cudagraphs.decode_query_lens
    "dynamic_sd_capture_tiers": [((0, 0, 0), "none"), ((0, 29, 0), "default_sizes"), ((0, 34, 0), "decode_graphs")],
    # - the speculative methods whose drafter captures FULL graphs of its one-token draft decodes (the draft steps after
    #   the first) at request counts of their own, decode_cudagraph_capture_grid(max_num_seqs) (64 sizes at 1,024), up to
    #   max_num_seqs and the decode token budget, with num_speculative_tokens >= 2 and decode graphs kept
    #   (VllmConfig.get_draft_decode_cudagraph_request_sizes: "off SM100 its default is 512 / (1 + K) requests";
    #   multi-module MTP excluded; v1/worker/gpu/spec_decode/autoregressive/speculator.py init_cudagraph_manager,
    #   0.34.0 wheel). To 0.33 the drafter's decode manager keys them on the shared token sizes up to max_num_seqs
    #   (spec_decode/target_dependent_ar/speculator.py, decode_query_len=1, 0.33.0 wheel); kvplan's v2 graph memory
    #   counts neither (the profile measures the speculator's graphs in one pool with the target's).
    "draft_decode_cudagraph_methods": [((0, 0, 0), ()), ((0, 34, 0), ("eagle", "eagle3", "mtp", "draft_model"))],
    # --performance-mode interactivity (VllmConfig.performance_mode, vLLM PR #34936; absent from the 0.16.0 wheel's
    # config/vllm.py and engine/arg_utils.py, present in 0.17.0's and every later one read, 0.17.0-0.34.0): where vLLM
    # builds its default grid (no cudagraph_capture_sizes given; max_cudagraph_capture_size alone still takes it),
    # every size 1 .. min(largest, N) replaces 1, 2, 4 at its head ("Fine-grained CUDA graphs at small batch sizes",
    # VllmConfig._set_cudagraph_sizes, 0.17.0, 0.33.0 and 0.34.0 wheels), and from 0.34 the wider prefill grid of a
    # compute-capability-10.x GPU takes every count below N + 1 too (config/compilation.py
    # prefill_cudagraph_capture_grid(dense_head=True), called from VllmConfig._split_cudagraph_capture_sizes). N; 0
    # where the release has no performance mode.
    "cudagraph_interactivity_head": [((0, 0, 0), 0), ((0, 17, 0), 32)],
    # --performance-mode throughput: the usage-context defaults of max_num_batched_tokens and max_num_seqs, each where
    # not given, times this factor before the post-adjustments (engine/arg_utils.py
    # EngineArgs._set_default_max_num_seqs_and_batched_tokens_args, 0.17.0, 0.33.0 and 0.34.0 wheels: "If throughput
    # mode is set, double max_num_batched_tokens and max_num_seqs"). 1 where the release has no performance mode.
    "performance_mode_throughput_factor": [((0, 0, 0), 1), ((0, 17, 0), 2)],
    # vLLM's default --compilation-config cudagraph_mode on V1: PIECEWISE in 0.10 (config/compilation.py
    # __post_init__, 0.10.2 wheel), FULL_AND_PIECEWISE from 0.11.0 (config/__init__.py VllmConfig.__post_init__
    # "default to full and piecewise for most models"; pooling and encoder-decoder models keep PIECEWISE). V0 has no
    # mode.
    # An FP8 e4m3 KV cache (--kv-cache-dtype fp8 / fp8_e4m3) on an NVIDIA GPU of compute capability 8.0-8.8 (Ampere):
    # which V1 attention backend vLLM picks for it. "triton" in 0.11.0: platforms/cuda.py get_attn_backend_cls returns
    # TRITON_ATTN for any fp8 KV cache from cc 8.0 except 9.0, whose Triton reshape_and_cache kernel cannot cast to
    # e4m3 below 8.9 ("type fp8e4nv not supported in this architecture", vLLM issue #26431 on an RTX 3090 with 0.11.0):
    # plan.planner refuses the start (fp8_e5m2, Triton's fp8e5, is stored). "flashinfer" from 0.11.1: the backend
    # priorities FLASH_ATTN, FLASHINFER, TRITON_ATTN (cuda.py _get_backend_priorities), FlashAttention 2 takes no fp8
    # KV cache (flash_attn.py supports_kv_cache_dtype: flash_attn_supports_fp8, FA3 only) and FlashInfer, a dependency of
    # the wheel from 0.11.1 (flashinfer-python 0.5.2), takes fp8 / fp8_e4m3 / fp8_e5m2 on cc 7.5-12.1 (flashinfer.py;
    # read in 0.11.1, 0.16.0, 0.21.0, 0.33.0): whether its kernels run e4m3 on cc 8.x is FlashInfer's, not in vLLM's
    # source, so kvplan warns and names the issue. From 0.27.1 TritonAttentionImpl refuses any fp8 KV cache below 8.9
    # ("FP8 KV cache is not supported by the Triton attention backend", triton_attn.py; absent in 0.22.1). "none"
    # before 0.11: kvplan plans an fp8 KV cache there on V0.
    "fp8_e4m3_kv_pre_ada": [((0, 0, 0), "none"), ((0, 11, 0), "triton"), ((0, 11, 1), "flashinfer")],
    "cudagraph_mode_default": [((0, 0, 0), "PIECEWISE"), ((0, 11, 0), "FULL_AND_PIECEWISE")],
    # An encoder-decoder model's (Whisper's) cudagraph_mode (plan.cudagraphs._encoder_decoder_mode): an unset mode is
    # PIECEWISE up to 0.11.0 (config/__init__.py VllmConfig.__post_init__, 0.11.0 wheel; 0.10.x's default is PIECEWISE
    # for every model); any full mode becomes PIECEWISE in 0.11.1-0.12 (config/vllm.py, 0.11.1 and 0.12.0 wheels); any
    # mode but NONE / FULL_DECODE_ONLY becomes FULL_DECODE_ONLY from 0.13 (config/vllm.py, 0.13.0-0.34.0 wheels)
    "encoder_decoder_cudagraph_mode": [((0, 0, 0), "piecewise_default"), ((0, 11, 1), "piecewise_full"),
                                       ((0, 13, 0), "full_decode_only")],
    # How many times --enable-lora captures each CUDA graph (plan.cudagraphs.lora_graph_cases), with
    # CompilationConfig.cudagraph_specialize_lora at its default True (config/compilation.py, absent in the 0.11.0
    # wheel, default True from 0.11.1 through 0.33.0). Model runner v1: "one" to 0.11.0 (no LoRA case in capture_model,
    # 0.10.2 and 0.11.0 wheels); "with_without" from 0.11.1, each size with and without active LoRA (lora_cases
    # [True, False]; v1/cudagraph_dispatcher.py and v1/worker/gpu_model_runner.py capture_model, 0.11.1-0.14.1 wheels);
    # "active_counts" from 0.16.0, v1/cudagraph_dispatcher.py _get_lora_cases: 0 plus lora/utils.py
    # get_captured_lora_counts(max_loras, LoRAConfig.specialize_active_lora), [max_loras + 1] where that flag is off
    # (its default), so 2 cases again (0.16.0, 0.21.0, 0.33.0 wheels; 0.15.x's dispatcher not read, its LoRAConfig
    # has no specialize_active_lora). The 0.21+ profiled estimate captures the dispatcher's descriptors, so it counts
    # them too (gpu_model_runner.py profile_cudagraph_memory, 0.21.0). With cudagraph_specialize_lora false v1
    # captures one (LoRA) graph per size. Round 47's L40S start on 0.14.0 logs 102 = 2 x 51 PIECEWISE and 70 = 2 x 35
    # FULL graphs.
    "cudagraph_lora_cases": [((0, 0, 0), "one"), ((0, 11, 1), "with_without"), ((0, 16, 0), "active_counts")],
    # ... model runner v2: one has_lora graph per size in 0.22.x-0.23.0 (v1/worker/gpu/cudagraph_utils.py
    # CudaGraphManager.capture has_lora=, model_runner.py; 0.22.1 and 0.23.0 wheels); from 0.24.0
    # v1/worker/gpu/lora_utils.py get_lora_capture_cases, [0] + get_captured_lora_counts(...) (2 by default), and
    # [0, max_loras + 1] with cudagraph_specialize_lora false (0.24.0, 0.25.0, 0.33.0 wheels)
    "mrv2_lora_cases": [((0, 0, 0), "one"), ((0, 24, 0), "active_counts")],
    # Speculative decoding rounds the capture sizes up to multiples of q = 1 + num_speculative_tokens, drops those
    # above the largest size and dedups them (compilation.py CompilationConfig.adjust_cudagraph_sizes_for_spec_decode,
    # vLLM issue #28207's temporary fix), when FULL decode graphs are kept: the modes listed here (0.11.1-0.19: the
    # model runner's _check_and_update_cudagraph_mode, "decode_mode() == FULL and separate_routine()", i.e.
    # FULL_AND_PIECEWISE and FULL_DECODE_ONLY; from 0.20.0 resolve_cudagraph_mode_and_sizes, "decode_mode() == FULL":
    # FULL too). Read in the 0.11.0 (absent), 0.11.1, 0.12.0, 0.13.0, 0.14.1, 0.19.0, 0.20.0, 0.27.1, 0.33.0 wheels.
    "cudagraph_spec_round_modes": [((0, 0, 0), ()), ((0, 11, 1), ("FULL_AND_PIECEWISE", "FULL_DECODE_ONLY")),
                                   ((0, 20, 0), ("FULL", "FULL_AND_PIECEWISE", "FULL_DECODE_ONLY"))],
    # ... and by which model runner: both up to 0.24 (model runner v2's model_runner.py calls
    # resolve_cudagraph_mode_and_sizes too), model runner v1 only from 0.25.0 ("not use_v2_model_runner": v2 rounds its
    # own decode graphs in v1/worker/gpu/cudagraph_utils.py _init_candidates; 0.24.0 absent, 0.25.0 present).
    "cudagraph_spec_round_runners": [((0, 0, 0), ("v1", "v2")), ((0, 25, 0), ("v1",))],
    # ... and how (compilation.py adjust_cudagraph_sizes_for_spec_decode): in 0.11.1-0.11.2 any TP > 1 joins the
    # multiple, max(q, TP), a ValueError unless it is a multiple of both ("Can't determine cudagraph shapes ..."); from
    # 0.12.0 only with sequence parallelism (pass_config.enable_sp, off by default: IS_DENSE is False in the 0.27.1
    # optimisation levels), which kvplan does not model; gone from 0.32.0 (read in the 0.11.1, 0.11.2, 0.12.0, 0.13.0,
    # 0.19.0, 0.27.1, 0.31.0, 0.32.0, 0.33.0 wheels)
    "cudagraph_spec_round_with_tp": [((0, 0, 0), False), ((0, 11, 1), True), ((0, 12, 0), False)],
    # ... and where no size survives the rounding: 0.11.1-0.11.2 log a warning and keep the sizes unrounded ("keep");
    # from 0.12.0 q itself where it fits the largest size, else ValueError "No valid cudagraph sizes after rounding to
    # multiple of q ..." ("raise"; the message names sequence parallelism in 0.12.0-0.31.0, not from 0.32.0)
    "cudagraph_spec_round_none_kept": [((0, 0, 0), "keep"), ((0, 12, 0), "raise"), ((0, 32, 0), "raise_no_sp")],
    # The drafter of an EAGLE-family proposer (eagle, eagle3, the MTP methods; draft_model from 0.26.0, row
    # draft_model_cuda_graphs) compiles its
    # own layers and captures PIECEWISE graphs in the target's capture: gpu_model_runner.py _dummy_run calls
    # drafter.dummy_run(num_tokens, use_cudagraphs=..., is_graph_capturing=True) for each capture size, with
    # cudagraphs only while the target captures PIECEWISE graphs; the drafter's dispatcher gets PIECEWISE keys when the
    # mode's mixed part is PIECEWISE or FULL (spec_decode/eagle.py or llm_base_proposer.py initialize_cudagraph_keys,
    # 0.19.0, 0.27.1, 0.33.0; in 0.9.0 and 0.10.2 eagle.py use_cuda_graph with CompilationLevel.PIECEWISE). Its
    # CUDAGraphWrapper draws on the same global graph pool as the target's. n-gram drafting has no model.
    "drafter_cuda_graphs": [((0, 0, 0), False), ((0, 9, 0), True)],
    # ... but a "draft_model" drafter (an independent small model, V1 from 0.15) gets no graphs before 0.26.0: the
    # drafter's dispatcher keys are initialized only `if self.speculative_config and (use_eagle() or
    # uses_extract_hidden_states())` (v1/worker/gpu_model_runner.py _check_and_update_cudagraph_mode), use_eagle() being
    # eagle/eagle3/mtp (and dflash, dspark later; config/speculative.py), so its CudagraphDispatcher.dispatch finds
    # keys_initialized false and returns NONE (v1/cudagraph_dispatcher.py): it runs eagerly, in the profile's graph
    # estimate and in the capture. uses_draft_model() joins that condition in 0.26.0. Read in the 0.15.0, 0.17.0, 0.19.0,
    # 0.20.0, 0.22.0, 0.23.0, 0.24.0, 0.25.0, 0.25.1 (without) and 0.26.0, 0.27.0, 0.27.1, 0.28.0, 0.33.0 (with) wheels.
    # Public check: men16922/llmso-study's 0.23.0 pair (RTX 4080 Laptop, 0.85, Qwen2.5-1.5B): the utilization message
    # puts the graph estimate at (0.85 - 0.8165) x total with a Qwen2.5-0.5B draft model, no more than n-gram's 0.8153.
    "draft_model_cuda_graphs": [((0, 0, 0), False), ((0, 26, 0), True)],
    # Mamba pages per sequence and group (section 3.4): "none" mode 1; "align" mode 2 (+1 prefill checkpoint page for
    # the kinds in mamba_checkpoint_page, below); "all" mode one per block of the request. As read in the wheels:
    # - prefix caching is on by default for generative hybrids from 0.26.0 (config/model.py
    #   is_prefix_caching_supported: "Hybrid models do not support prefix caching" up to 0.25.1), so before that a
    #   hybrid runs "none" unless --enable-prefix-caching is given;
    # - with prefix caching on, 0.15-0.27 choose "all" for the models that support Mamba prefix caching (the Mamba1/2
    #   families: Mamba, Jamba, Zamba2, NemotronH, GraniteMoeHybrid, FalconH1) and "align" for the others (GDN,
    #   linear attention); from 0.28.0 "align" for every hybrid (models/config.py MambaModelConfig).
    "hybrid_prefix_caching_default": [((0, 0, 0), False), ((0, 26, 0), True)],
    # An attention-free model (pure Mamba2: Mamba2ForCausalLM, IsAttentionFree) never gets prefix caching by default:
    # is_prefix_caching_supported answers "Attention free models do not support prefix caching" in every wheel that
    # has it (config/model.py, 0.20.0-0.33.0), and 0.10.2's MambaModelConfig turns it off for every Mamba model.
    "attention_free_prefix_caching_default": [((0, 0, 0), False)],
    # (0.11.1-0.14 have no mode yet: with prefix caching a Mamba1/2-family model gets a page per block, as "all" later
    # does, and any other hybrid has prefix caching turned off, so "none": MambaSpec.max_memory_usage_bytes and
    # MambaModelConfig in the 0.11.1 and 0.13.0 wheels)
    "mamba_cache_mode": [((0, 0, 0), "none"), ((0, 11, 1), "all_if_supported_else_none"), ((0, 15, 0), "all_if_supported"),
                         ((0, 28, 0), "align")],
    # The recurrent kinds whose MambaSpec carries num_prefill_checkpoint_blocks=1 (the "+1" of align mode's
    # MambaSpec.max_memory_usage_bytes, v1/kv_cache_interface.py, 0.29.0 on). Read in the wheels: in 0.29.0-0.31.0 only
    # Kimi-K3's KDA layer sets it (models/kimi_k3/nvidia/kda.py; no Mamba2 or GDN layer does: a 0.29.0 Qwen3.8-27B start
    # logs 652 blocks and 38.35x at 8,192 tokens, 652 / 17 = 11 attention + 3 groups x 2 state pages); the Mamba2 mixer
    # sets it from 0.32.0 (model_executor/layers/mamba/mamba_mixer2.py get_kv_cache_spec, unconditionally); Qwen's GDN
    # layer from 0.33.0 (mamba/gdn/qwen_gdn_linear_attn.py get_kv_cache_spec), only when it exports checkpoints: align mode
    # with the FlashInfer GDN prefill kernel (_resolve_gdn_prefill_backend: CUDA SM 9.0, or SM 10.x / 12.x with
    # linear_key_head_dim 128 and a CUDA 13 runtime, which the 0.33.0 wheel's cu13 dependencies bring; any other
    # --gdn-prefill-backend turns it off: plan.kv.gdn_prefill) and every recurrent layer able to
    # (get_mamba_prefill_checkpoint_alignment).
    "mamba_checkpoint_page": [((0, 0, 0), ()), ((0, 32, 0), ("mamba2",)), ((0, 33, 0), ("mamba2", "gdn"))],
    # Tokens a hybrid model's attention block size is also a multiple of when its GDN layers export prefill
    # checkpoints (the cases of mamba_checkpoint_page's "gdn" above): in align mode
    # Platform._align_hybrid_block_size (platforms/interface.py, 0.33.0 and 0.34.0 wheels) takes the lcm of the kernel
    # block alignment and get_mamba_prefill_checkpoint_alignment, which for Qwen's GDN layers with FlashInfer's prefill
    # kernel is FLASHINFER_GDN_CHECKPOINT_ALIGNMENT = 64 (v1/attention/backends/gdn_attn.py; set as the layer's
    # _checkpoint_alignment in mamba/gdn/qwen_gdn_linear_attn.py). The 0.30.0-0.32.0 wheels have neither the constant
    # nor the lcm (1: no extra alignment). Mamba2 layers declare no alignment there (None -> 1).
    "gdn_checkpoint_block_alignment_tokens": [((0, 0, 0), 1), ((0, 33, 0), 64)],
    # --gdn-prefill-backend, as _resolve_gdn_prefill_backend (model_executor/layers/mamba/gdn/qwen_gdn_linear_attn.py)
    # takes it while Qwen's GDN layers are built (plan.kv.gdn_prefill; the values by release: GDN_PREFILL_BACKENDS).
    # What it raises for a backend of another platform, (backend, message) by release ({platform}:
    # current_platform.device_name, "cuda" in platforms/cuda.py, "rocm" in platforms/rocm.py): aiter_flydsl off ROCm,
    # RuntimeError naming "a ROCm AITER backend" (0.32.0, 0.33.0 wheels), "a ROCm backend" from 0.34.0, which raises
    # the same for hip; sycl off XPU, ValueError, checked first (0.33.0, 0.34.0 wheels)
    "gdn_other_platform_refusals": [
        ((0, 0, 0), ()),
        ((0, 32, 0), (("aiter_flydsl", "GDN prefill backend 'aiter_flydsl' was requested but it is a ROCm AITER backend "
                                       "and the current platform is {platform}."),)),
        ((0, 33, 0), (("sycl", "GDN prefill backend 'sycl' is only supported on XPU."),
                      ("aiter_flydsl", "GDN prefill backend 'aiter_flydsl' was requested but it is a ROCm AITER backend "
                                       "and the current platform is {platform}."))),
        ((0, 34, 0), (("sycl", "GDN prefill backend 'sycl' is only supported on XPU."),
                      ("aiter_flydsl", "GDN prefill backend 'aiter_flydsl' was requested but it is a ROCm backend and the "
                                       "current platform is {platform}."),
                      ("hip", "GDN prefill backend 'hip' was requested but it is a ROCm backend and the current platform "
                              "is {platform}."))),
    ],
    # The compute-capability majors on which the in-tree CuteDSL kernel runs where it is asked for (with 128-wide
    # keys; the backend itself from 0.22.0): SM 10.x (0.33.0), SM 11.x too from 0.34.0 (supports_cutedsl)
    "gdn_cutedsl_cc_majors": [((0, 0, 0), ("10",)), ((0, 34, 0), ("10", "11"))],
    # FlashInfer requested where its GDN prefill kernel cannot run: up to 0.21 (models/qwen3_next.py
    # ChunkGatedDeltaRule 0.18.0, mamba/gdn_linear_attn.py 0.21.0; FlashInfer only on CUDA SM 9.0) vLLM warns
    # (GDN_FLASHINFER_FALLBACK_WARNING) and runs Triton/FLA; from 0.22 _resolve_gdn_prefill_backend returns Triton/FLA
    # with only its info line 'Using Triton/FLA GDN prefill kernel (requested=flashinfer, head_k_dim=N).' (0.22.0-0.34.0
    # wheels)
    "gdn_flashinfer_fallback_warns": [((0, 0, 0), True), ((0, 22, 0), False)],
    # ROCm's aiter_flydsl / hip where their kernels are there but cannot serve the model ("GDN prefill backend '...'
    # was requested but {reasons}. Falling back to Triton/FLA."): 0.32.0 names the first reason alone, 0.33.0 on every
    # reason, joined by "; "
    "gdn_rocm_fallback_all_reasons": [((0, 0, 0), False), ((0, 33, 0), True)],
    # Hybrid grouping: from 0.20 the largest bucket size is used when max < 1.5 x min (section 3.2).
    # The largest bucket sets the group size when max < ratio x min: ratio 1.25 from 0.12.0, 1.5 from 0.18.0
    # (kv_cache_utils._get_kv_cache_groups_uniform_page_size in the wheels; 0.11.2 has no such rule).
    "group_size_max_ratio": [((0, 0, 0), 0.0), ((0, 12, 0), 1.25), ((0, 18, 0), 1.5)],
    # Error and log formats (sections 4, 5, 8).
    # (the wheels add the "See https://docs.vllm.ai/..." suffix in 0.13.0, and the CPU-backend wording with "model's"
    # in 0.22.0, two releases before section 4 places it)
    # (0.34.0: "hint", both messages carry v1/core/kv_cache_planning.py _more_kv_cache_memory_hint, which speaks of the
    # extensible KV cache and the resolved gpu_memory_utilization where that cache is on, else the old advice; the
    # fit message then ends "{hint} Decreasing `max_model_len` also reduces what is needed. See ...":
    # _check_enough_kv_cache_memory, 0.34.0 wheel; plan.planner._fit_check)
    "fit_error_format": [((0, 0, 0), "v0"), ((0, 8, 0), "v1-models-2f"), ((0, 13, 0), "v1-models-2f-see"),
                         ((0, 14, 0), "v1-models-gib"), ((0, 22, 0), "v1-model-gib"), ((0, 34, 0), "v1-model-hint")],
    "no_memory_error_format": [((0, 0, 0), "short"), ((0, 13, 0), "short-see"), ((0, 22, 0), "long"),
                               ((0, 34, 0), "hint")],
    # (0.34.0: both messages end with _more_kv_cache_memory_hint, whose text follows the pool sizing: the estimate's
    # "Try increasing `gpu_memory_utilization` when initializing the engine (this flag also controls CPU memory
    # reservation on the CPU backend, despite its name)." or the extensible KV cache's, and the fit error adds
    # "Decreasing `max_model_len` also reduces what is needed." (v1/core/kv_cache_planning.py
    # _check_enough_kv_cache_memory, 0.34.0 wheel; plan.kv_memory_hint))
    "weights_log_format": [((0, 0, 0), "gb"), ((0, 8, 0), "gib-4f"), ((0, 12, 0), "gib-4f-memory"),
                           ((0, 14, 0), "gib-round-memory")],
    "kv_log_format": [((0, 0, 0), "v0-blocks"), ((0, 6, 6), "v0-blocks"), ((0, 8, 0), "v1-two-lines"),
                      ((0, 28, 0), "v1-one-line")],
    # V0's block line names the device "# GPU blocks: N, # CPU blocks: M" up to 0.6.x, current_platform.device_name
    # "# cuda blocks: ..." from 0.7 (section 0, log eras)
    "v0_blocks_log_device": [((0, 0, 0), "GPU"), ((0, 7, 0), "cuda")],
    # V1's "Available KV cache memory: X GiB" line (plan._log_lines): none before 0.9.1, "%.2f" up to 0.13,
    # format_gib (str(round(x, 2)), section 5) from 0.14
    "available_kv_log": [((0, 0, 0), ""), ((0, 9, 1), "2f"), ((0, 14, 0), "format_gib")],
    # "Estimated CUDA graph memory: %.2f GiB total" in the predicted log of model runner v1 from 0.20, where the
    # estimate is subtracted (section 1.5; the section has the line on MRV1 from 0.18, where it is only logged)
    "log_cudagraph_estimate": [((0, 0, 0), False), ((0, 20, 0), True)],
    # The summary V1's Worker.compile_or_warm_up_model logs after the CUDA-graph capture wherever the pool was profiled
    # (kv_cache_memory_bytes unset): "Free memory on device (F/T GiB) on startup. Desired GPU memory utilization is
    # (u, R GiB). Actual usage is ..." with two `--kv-cache-memory=` suggestions (requested or free - those terms -
    # 150 MiB) and "Current kv cache memory in use is K" (v1/worker/gpu_worker.py; plan._summary_line). None in the
    # 0.10.1 wheel; 0.10.2 prints W GiB for weight, A for peak activation, N for non-torch memory and C for CUDAGraph
    # memory, the suggestions in bytes alone and K in bytes ("weights-bytes"); 0.11.0 adds each suggestion's GiB and
    # prints K in GiB ("weights", read in 0.11.0 and 0.26.0, A the profile's torch peak alone); from 0.27.0 "X GiB for
    # consumed memory (weights + non-torch)", A the transient peak plus the applied CUDA-graph estimate ("consumed",
    # read in 0.27.0, 0.33.0 and 0.34.0, which prints it under the extensible KV cache too, K the capacity, before
    # measure_kv_cache_blocks' 'Memory after warmup')
    "summary_log_format": [((0, 0, 0), ""), ((0, 10, 2), "weights-bytes"), ((0, 11, 0), "weights"), ((0, 27, 0), "consumed")],
    # "CUDA graph pool memory: A GiB (actual), E GiB (estimated), difference: D GiB (p%)." after the real capture,
    # wherever an estimate was made (Worker.compile_or_warm_up_model, cudagraph_memory_estimate > 0; read in the 0.26.0,
    # 0.27.0, 0.33.0 and 0.34.0 wheels; from 0.18 per vllm-memory-model.md section 1.5). The predicted log prints it
    # where the plan applies an estimate (0.20 on): 0.18-0.19 log one kvplan does not hold.
    "log_cudagraph_pool_memory": [((0, 0, 0), False), ((0, 18, 0), True)],
    # Scheduler defaults for `vllm serve` (section 2.3); see `batch_defaults`.
    # (the >= 160 GiB class is in the 0.28.0 wheel's EngineArgs.get_batch_defaults; from 0.33.0 an integrated part
    # whose NVML has no memory query is sized by its CUDA total, GB10 (cc 12.1) excepted: NvmlCudaPlatform.
    # get_device_total_memory's fallback and the is_gb10 test, read in the 0.32.0 and 0.33.0 wheels)
    "batch_defaults": [((0, 0, 0), "v0"), ((0, 8, 0), "v1-0.8"), ((0, 9, 0), "v1-0.9"), ((0, 28, 0), "v1-0.28"),
                       ((0, 33, 0), "v1-0.33")],
    # --kv-cache-dtype auto follows a checkpoint's KV-cache quantization (ModelOpt kv_cache_quant_algo FP8,
    # compressed-tensors kv_cache_scheme) instead of the model dtype: vLLM PRs #29980 and #30141, merged
    # December 2025; 0.14 is the first release read after them.
    # Which checkpoints: ModelOpt's kv_cache_quant_algo from 0.14.0 (torch_utils.resolve_kv_cache_dtype_string),
    # compressed-tensors' kv_cache_scheme from 0.15.0 (Attention.__init__), as read in the wheels.
    "kv_cache_auto_follows_checkpoint": [((0, 0, 0), ()), ((0, 14, 0), ("modelopt",)), ((0, 15, 0), ("modelopt", "compressed-tensors"))],
    # max_model_len not given for a LongRoPE model (Phi-3.5, Phi-4-mini): the derived length up to 0.11.0; its
    # original_max_position_embeddings from 0.11.1 (vLLM PR #27431, merged 2025-10-23, after 0.11.0 of 2025-10-04;
    # config/model.py _get_and_verify_max_len: "For LongRoPE, default to original_max_position_embeddings").
    "longrope_default_original": [((0, 0, 0), False), ((0, 11, 1), True)],
    # The rope types whose factor _get_and_verify_max_len does not apply to the config's stated length (vllm/config.py
    # 0.6.3-0.10, vllm/config/model.py from 0.11): su / longrope / llama3 up to 0.29.0 (read in the 0.6.3.post1,
    # 0.6.6.post1, 0.11.0, 0.11.1, 0.20.0 and 0.29.0 wheels); from 0.30.0 the YaRN variants too, whose
    # max_position_embeddings is taken as already scaled (vLLM PR #56446, "Align vLLM YaRN with Transformers and stop
    # re-scaling max_model_len"; read in the 0.30.0 and 0.33.0 wheels).
    "rope_unscaled_types": [((0, 0, 0), ("su", "longrope", "llama3")),
                            ((0, 30, 0), ("su", "longrope", "llama3", "yarn", "deepseek_yarn", "deepseek_llama_scaling"))],
    # A "yarn" rope dict restarts the derived length from its original_max_position_embeddings (then x factor), read
    # with rope_scaling["original_max_position_embeddings"] (a KeyError where the dict lacks it) up to 0.29.0; gone
    # from 0.30.0 (the same PR and wheels as rope_unscaled_types).
    "rope_yarn_from_original": [((0, 0, 0), True), ((0, 30, 0), False)],
    # How --hf-overrides reaches the config: up to 0.11.0 every key is set as given (transformers_utils/config.py
    # get_config: config.update(hf_overrides_kw)), so a dict replaces a sub-config whole; from 0.11.1 a dict given for
    # a sub-config (text_config, vision_config, ...) is merged into it key by key, recursively, while a dict-valued
    # parameter (rope_scaling) is still replaced (config/model.py ModelConfig._apply_dict_overrides / _update_nested,
    # read in the 0.11.0, 0.11.1, 0.14.1 and 0.33.0 wheels).
    "hf_overrides_nested_merge": [((0, 0, 0), False), ((0, 11, 1), True)],
    # The oldest GPU architecture the release wheels are built for: compute capability 7.0 up to 0.19,
    # 7.5 from 0.20 (CUDA 13 wheels; vLLM PR #39878; docs/gpu-facts.md section 5).
    "min_compute_capability": [((0, 0, 0), (7, 0)), ((0, 20, 0), (7, 5))],
    # The CUDA runtime of the default PyPI wheel (docs/gpu-facts.md section 7): 12.1 through 0.7.x; 12.4 for 0.8.x
    # (PyTorch 2.6); 12.8 from 0.9.0 ("default wheel has been upgraded from CUDA 12.4 to CUDA 12.8", 0.9.0 notes);
    # 12.9 from 0.12.0 (PyTorch 2.9); 13.0 from 0.20.0 (PR #39878, 0.20.0 release notes).
    "wheel_cuda": [((0, 0, 0), "12.1"), ((0, 8, 0), "12.4"), ((0, 9, 0), "12.8"), ((0, 12, 0), "12.9"), ((0, 20, 0), "13.0")],
    # Speculative decoding: each Mamba/GDN sequence holds one more state page per speculative token, and the conv
    # state grows to k - 1 + num_spec rows, from 0.17 (sections 3.1, 3.4).
    "mamba_spec_pages": [((0, 0, 0), False), ((0, 17, 0), True)],
    # --max-model-len -1: after profiling, the largest length whose KV fits replaces the model's limit
    # ("Auto-fit max_model_len: reduced from ... to ...", section 4), from 0.14.
    "max_model_len_auto_fit": [((0, 0, 0), False), ((0, 14, 0), True)],
    # ... whose lines, where 0.34's extensible KV cache is on, end "; the final length is set after CUDA graph capture
    # and warmup" (the length is fitted again to the memory measured after them), and whose refusal "Cannot auto-fit
    # max_model_len: not enough GPU memory available to serve even a single token." ends with
    # _more_kv_cache_memory_hint instead of "Try increasing `gpu_memory_utilization`." (v1/core/kv_cache_planning.py
    # _auto_fit_max_model_len, 0.34.0 wheel; plan.planner._auto_fit_plan)
    "auto_fit_tentative": [((0, 0, 0), False), ((0, 34, 0), True)],
    # Which windowed layers V1 keeps as windows. Read in the release wheels (0.7.3-0.33.0):
    # - sliding-window layers get their own spec (only the window is held) from 0.8.3 (PR #14097); before, every
    #   decoder layer is a full-attention spec and each request holds its whole length;
    # - a model mixing windowed and full layers is grouped by the hybrid KV-cache manager from 0.9.1 (PR #17996,
    #   "Initial full support for Hybrid Memory Allocator" in the 0.9.1 notes); before, kv_cache_utils'
    #   unify_hybrid_kv_cache_specs turns its window layers into full-attention ones;
    # - chunked local attention (Llama 4) has its own spec from 0.10.0; 0.10.1-0.13 turn the hybrid manager off for
    #   a model with attention_chunk_size unless VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1, whose
    #   default became 1 in 0.14 (vllm/envs.py; config/vllm.py).
    "sliding_window_spec": [((0, 0, 0), False), ((0, 8, 3), True)],
    "hybrid_kv_manager": [((0, 0, 0), False), ((0, 9, 1), True)],
    "chunked_local_spec": [((0, 0, 0), "none"), ((0, 10, 0), "kept"), ((0, 10, 1), "manager_off"), ((0, 14, 0), "kept")],
    # --disable-hybrid-kv-cache-manager (SchedulerConfig.disable_hybrid_kv_cache_manager; in engine/arg_utils.py from
    # 0.9.1, absent from 0.9.0; a bool defaulting to False up to 0.13, `bool | None` (None: vLLM decides) from 0.14):
    # get_kv_cache_config (0.9.1-0.10.2) / get_kv_cache_groups (0.11-0.32 kv_cache_utils.py, 0.33-0.34
    # kv_cache_planning.py) call unify_hybrid_kv_cache_specs, which turns every sliding-window and chunked-local spec
    # into a full-attention one where full-attention layers are present (so they hold every token, one group, the
    # full-attention page) and logs "Hybrid KV cache manager is disabled for this hybrid model, ..."; specs still not
    # of one type (Mamba / GDN state, cross attention beside full attention) are refused with this row's text:
    # unify_hybrid_kv_cache_specs' own ValueError in 0.9.1-0.26 (wheels 0.9.1, 0.10.0-0.10.2, 0.11.0, 0.12.0, 0.14.0,
    # 0.19.0, 0.26.0), _promote_local_kv_cache_specs' from 0.27 (wheels 0.27.0, 0.33.0, 0.34.0). The fit check runs
    # before the unification up to 0.13 (rules row fit_check_sees_windows), as without the manager.
    "hybrid_manager_off_refusal": [((0, 0, 0), "Hybrid KV cache manager is disabled but failed to convert the KV cache "
                                              "specs to one unified type."),
                                   ((0, 27, 0), "Failed to promote local KV cache specs to one unified type.")],
    # --kv-transfer-config (KVTransferConfig; engine/arg_utils.py from 0.6.5, absent from 0.6.4). kv_connector_names:
    # the names the release registers (0.6.5-0.6.6.post1: KVTransferConfig.model_post_init's supported_kv_connector
    # list, refused as the flag is read, "Unsupported kv_connector: X. Supported connectors are [...]."; from 0.7.0:
    # KVConnectorFactory.register_connector calls in kv_connector/factory.py, an unknown name refused as the engine
    # starts, "Unsupported connector type: X", unless kv_connector_module_path loads it from 0.9.0). Read from the
    # 0.6.5, 0.6.6.post1, 0.7.0-0.7.3, 0.8.0, 0.8.2, 0.8.5, 0.9.0-0.34.0 wheels.
    "kv_connector_names": [
        ((0, 0, 0), ()),
        ((0, 6, 5), ("PyNcclConnector", "MooncakeConnector")),
        ((0, 8, 0), ("PyNcclConnector", "MooncakeConnector", "LMCacheConnector")),
        ((0, 8, 5), ("PyNcclConnector", "MooncakeConnector", "LMCacheConnector", "MooncakeStoreConnector",
                     "SharedStorageConnector", "LMCacheConnectorV1")),
        ((0, 9, 0), ("PyNcclConnector", "MooncakeConnector", "LMCacheConnector", "MooncakeStoreConnector",
                     "SharedStorageConnector", "LMCacheConnectorV1", "NixlConnector", "MultiConnector")),
        ((0, 9, 2), ("PyNcclConnector", "MooncakeConnector", "LMCacheConnector", "MooncakeStoreConnector",
                     "SharedStorageConnector", "P2pNcclConnector", "LMCacheConnectorV1", "NixlConnector",
                     "MultiConnector")),
        ((0, 10, 1), ("SharedStorageConnector", "P2pNcclConnector", "LMCacheConnectorV1", "NixlConnector",
                      "MultiConnector")),
        ((0, 11, 0), ("SharedStorageConnector", "P2pNcclConnector", "LMCacheConnectorV1", "NixlConnector",
                      "MultiConnector", "OffloadingConnector")),
        ((0, 11, 1), ("SharedStorageConnector", "P2pNcclConnector", "LMCacheConnectorV1", "LMCacheMPConnector",
                      "NixlConnector", "MultiConnector", "OffloadingConnector", "DecodeBenchConnector")),
        ((0, 13, 0), ("ExampleConnector", "P2pNcclConnector", "LMCacheConnectorV1", "LMCacheMPConnector",
                      "NixlConnector", "MultiConnector", "OffloadingConnector", "DecodeBenchConnector",
                      "MooncakeConnector")),
        ((0, 14, 0), ("ExampleConnector", "P2pNcclConnector", "LMCacheConnectorV1", "LMCacheMPConnector",
                      "NixlConnector", "MultiConnector", "MoRIIOConnector", "OffloadingConnector",
                      "DecodeBenchConnector", "MooncakeConnector")),
        ((0, 17, 0), ("ExampleConnector", "ExampleHiddenStatesConnector", "P2pNcclConnector", "LMCacheConnectorV1",
                      "LMCacheMPConnector", "NixlConnector", "MultiConnector", "MoRIIOConnector",
                      "OffloadingConnector", "DecodeBenchConnector", "MooncakeConnector")),
        ((0, 18, 0), ("ExampleConnector", "ExampleHiddenStatesConnector", "P2pNcclConnector", "LMCacheConnectorV1",
                      "LMCacheMPConnector", "NixlConnector", "MultiConnector", "MoRIIOConnector",
                      "OffloadingConnector", "DecodeBenchConnector", "MooncakeConnector", "FlexKVConnectorV1")),
        ((0, 19, 0), ("ExampleConnector", "ExampleHiddenStatesConnector", "P2pNcclConnector", "LMCacheConnectorV1",
                      "LMCacheMPConnector", "NixlConnector", "MultiConnector", "MoRIIOConnector",
                      "OffloadingConnector", "DecodeBenchConnector", "MooncakeConnector", "FlexKVConnectorV1",
                      "SimpleCPUOffloadConnector")),
        ((0, 20, 0), ("ExampleConnector", "ExampleHiddenStatesConnector", "P2pNcclConnector", "LMCacheConnectorV1",
                      "LMCacheMPConnector", "NixlConnector", "MultiConnector", "MoRIIOConnector",
                      "OffloadingConnector", "DecodeBenchConnector", "MooncakeConnector", "FlexKVConnectorV1",
                      "SimpleCPUOffloadConnector", "HF3FSKVConnector")),
        ((0, 21, 0), ("ExampleConnector", "ExampleHiddenStatesConnector", "P2pNcclConnector", "LMCacheConnectorV1",
                      "LMCacheMPConnector", "NixlConnector", "MultiConnector", "MoRIIOConnector",
                      "OffloadingConnector", "DecodeBenchConnector", "MooncakeConnector", "MooncakeStoreConnector",
                      "FlexKVConnectorV1", "SimpleCPUOffloadConnector", "HF3FSKVConnector")),
        ((0, 24, 0), ("ExampleConnector", "ExampleHiddenStatesConnector", "LMCacheConnectorV1", "LMCacheMPConnector",
                      "NixlConnector", "NixlPullConnector", "NixlPushConnector", "MultiConnector", "MoRIIOConnector",
                      "OffloadingConnector", "DecodeBenchConnector", "MooncakeConnector", "MooncakeStoreConnector",
                      "FlexKVConnectorV1", "SimpleCPUOffloadConnector", "HF3FSKVConnector")),
        ((0, 30, 0), ("ExampleConnector", "ExampleHiddenStatesConnector", "LMCacheConnectorV1", "LMCacheMPConnector",
                      "NixlConnector", "NixlPullConnector", "NixlPushConnector", "MultiConnector", "HiSparseConnector",
                      "MoRIIOConnector", "OffloadingConnector", "DecodeBenchConnector", "MooncakeConnector",
                      "MooncakeStoreConnector", "FlexKVConnectorV1", "SimpleCPUOffloadConnector", "HF3FSKVConnector")),
        ((0, 34, 0), ("ExampleConnector", "ExampleHiddenStatesConnector", "LMCacheConnectorV1", "LMCacheMPConnector",
                      "NixlConnector", "NixlPullConnector", "NixlPushConnector", "MultiConnector", "HiSparseConnector",
                      "MoRIIOConnector", "OffloadingConnector", "DecodeBenchConnector", "MooncakeConnector",
                      "MooncakeStoreConnector", "UMBPStoreConnector", "FlexKVConnectorV1", "SimpleCPUOffloadConnector",
                      "HF3FSKVConnector")),
    ],
    # Where an unregistered kv_connector is refused: "config" as the flag is read (KVTransferConfig.model_post_init,
    # 0.6.5-0.6.6.post1), "factory" as the engine builds the connector (KVConnectorFactory, 0.7.0 on); "module_path":
    # the factory loads a name it does not register from kv_connector_module_path (0.9.0 on).
    "kv_connector_refused_at": [((0, 0, 0), "config"), ((0, 7, 0), "factory"), ((0, 9, 0), "module_path")],
    # The V0 engine's connectors among them (KVConnectorBase subclasses: SimpleConnector under PyNcclConnector /
    # MooncakeConnector, the V0 LMCacheConnector, MooncakeStoreConnector; factory.py 0.7.0-0.10.0). The V1 engine
    # asserts issubclass(connector_cls, KVConnectorBase_V1) on them (create_connector_v1, 0.8.5-0.10.0), the V0
    # engine issubclass(connector_cls, KVConnectorBase) on the others (create_connector_v0). Gone from 0.10.1 (the V1
    # MooncakeConnector of 0.13 and MooncakeStoreConnector of 0.21 are V1 connectors).
    "kv_connectors_v0": [((0, 0, 0), ("PyNcclConnector", "MooncakeConnector", "LMCacheConnector",
                                      "MooncakeStoreConnector")), ((0, 10, 1), ())],
    # 0.8.0-0.8.4 run --kv-transfer-config on V0: EngineArgs._is_v1_supported_oracle's
    # _raise_or_fallback(feature_name="--kv-transfer-config") (engine/arg_utils.py 0.8.0, 0.8.2 wheels; gone from 0.8.5)
    "v0_for_kv_transfer": [((0, 0, 0), False), ((0, 8, 0), True), ((0, 8, 5), False)],
    # What a KV connector does to the hybrid KV-cache manager (VllmConfig.__post_init__: config.py 0.9.1-0.10.1,
    # config/__init__.py 0.10.2-0.11.x, config/vllm.py 0.12.0-0.34.0): "none": no manager (before 0.9.1); "off": any
    # --kv-transfer-config turns it off (0.9.1-0.21; from 0.13 only where --[no-]disable-hybrid-kv-cache-manager is not
    # given); "unless_hma": off unless the connector class subclasses SupportsHMA (MultiConnector: every child),
    # 0.22 (supports_hma on get_connector_class) and 0.23-0.34 (KVConnectorFactory.supports_hma_config).
    "kv_transfer_hybrid": [((0, 0, 0), "none"), ((0, 9, 1), "off"), ((0, 22, 0), "unless_hma")],
    # vLLM's warning as it turns the manager off for the connector (logger.warning in the same block): none up to
    # 0.11.0; the connector's class name is put in for %s (0.22).
    "kv_transfer_hybrid_warning": [
        ((0, 0, 0), None),
        ((0, 11, 1), "Turning off hybrid kv cache manager because `--kv-transfer-config` is set. This will reduce the "
                     "performance of vLLM on LLMs with sliding window attention or Mamba attention. If you are a "
                     "developer of kv connector, please consider supporting hybrid kv cache manager for your connector "
                     "by making sure your connector is a subclass of `SupportsHMA` defined in kv_connector/v1/base.py."),
        ((0, 13, 0), "Turning off hybrid kv cache manager because `--kv-transfer-config` is set. This will reduce the "
                     "performance of vLLM on LLMs with sliding window attention or Mamba attention. If you are a "
                     "developer of kv connector, please consider supporting hybrid kv cache manager for your connector "
                     "by making sure your connector is a subclass of `SupportsHMA` defined in kv_connector/v1/base.py "
                     "and use --no-disable-hybrid-kv-cache-manager to start vLLM."),
        ((0, 22, 0), "Turning off hybrid kv cache manager because connector %s does not subclass `SupportsHMA`. This "
                     "will reduce performance on models with sliding window or Mamba attention. See "
                     "kv_connector/v1/base.py for details."),
        ((0, 23, 0), "Turning off hybrid kv cache manager because `--kv-transfer-config` selects a KV connector that "
                     "does not support it. Impact: hybrid SSM models (e.g. Jamba, Bamba) require HMA and will fail at "
                     "startup without it; models with sliding window attention will run with reduced performance. To "
                     "add HMA support to a KV connector, subclass `SupportsHMA` defined in kv_connector/v1/base.py "
                     "(for MultiConnector, all child connectors must support HMA)."),
    ],
    # The registered connectors whose class subclasses SupportsHMA (kv_connector/v1/*, 0.11.0-0.34.0 wheels: none up to
    # 0.17; from 0.24 NixlConnector is an alias of NixlPullConnector, a NixlBaseConnector). Read where kv_transfer_hybrid
    # is "unless_hma", and from 0.13 under --no-disable-hybrid-kv-cache-manager (row hybrid_flag_explicit_on); LMCacheConnectorV1, LMCacheMPConnector, ExampleConnector, FlexKVConnectorV1, HF3FSKVConnector and
    # P2pNcclConnector never subclass it, MoRIIOConnector from 0.30.
    "kv_connectors_hma": [
        ((0, 0, 0), ()),
        ((0, 18, 0), ("NixlConnector",)),
        ((0, 19, 0), ("NixlConnector", "SimpleCPUOffloadConnector")),
        ((0, 20, 0), ("MooncakeConnector", "NixlConnector", "SimpleCPUOffloadConnector")),
        ((0, 21, 0), ("DecodeBenchConnector", "MooncakeConnector", "MultiConnector", "NixlConnector",
                      "OffloadingConnector", "SimpleCPUOffloadConnector")),
        ((0, 22, 0), ("DecodeBenchConnector", "ExampleHiddenStatesConnector", "MooncakeConnector",
                      "MooncakeStoreConnector", "MultiConnector", "NixlConnector", "OffloadingConnector",
                      "SimpleCPUOffloadConnector")),
        ((0, 24, 0), ("DecodeBenchConnector", "ExampleHiddenStatesConnector", "MooncakeConnector",
                      "MooncakeStoreConnector", "MultiConnector", "NixlConnector", "NixlPullConnector",
                      "NixlPushConnector", "OffloadingConnector", "SimpleCPUOffloadConnector")),
        ((0, 30, 0), ("DecodeBenchConnector", "ExampleHiddenStatesConnector", "HiSparseConnector", "MoRIIOConnector",
                      "MooncakeConnector", "MooncakeStoreConnector", "MultiConnector", "NixlConnector",
                      "NixlPullConnector", "NixlPushConnector", "OffloadingConnector", "SimpleCPUOffloadConnector")),
        ((0, 34, 0), ("DecodeBenchConnector", "ExampleHiddenStatesConnector", "HiSparseConnector", "MoRIIOConnector",
                      "MooncakeConnector", "MooncakeStoreConnector", "MultiConnector", "NixlConnector",
                      "NixlPullConnector", "NixlPushConnector", "OffloadingConnector", "SimpleCPUOffloadConnector",
                      "UMBPStoreConnector")),
    ],
    # --no-disable-hybrid-kv-cache-manager (argparse.BooleanOptionalAction from 0.9.1): up to 0.12 the same as not
    # given (a bool defaulting to False: a connector still turns the manager off); from 0.13 (SchedulerConfig's
    # `bool | None = None`, config/scheduler.py 0.13.0) an explicit False keeps the manager on for a connector, where
    # KVConnectorFactory.create_connector refuses a class without SupportsHMA ("Connector X does not support HMA but
    # HMA is enabled. Please set `--disable-hybrid-kv-cache-manager`.", factory.py 0.11.1-0.34.0), and VllmConfig
    # refuses it where the release turns the manager off by itself (chunked local attention in 0.13: "Hybrid KV cache
    # manager was explicitly enabled but is not supported in this configuration. Consider omitting the
    # --no-disable-hybrid-kv-cache-manager flag to let vLLM decide automatically."; config/vllm.py 0.13.0, 0.14.0).
    "hybrid_flag_explicit_on": [((0, 0, 0), False), ((0, 13, 0), True)],
    # NixlConnector with kv_buffer_device "cpu" keeps a host copy of every KV-cache tensor to transfer from
    # (NixlConnectorWorker.initialize_host_xfer_buffer, torch.empty on the CPU with the KV cache's shape):
    # nixl_connector.py 0.10.1-0.14.0 wheels read, nixl/base_worker.py 0.26.0-0.34.0; absent from 0.9.2 and 0.10.0
    "nixl_host_buffer": [((0, 0, 0), False), ((0, 10, 1), True)],
    # KVTransferConfig's fields where it refuses any other key: None up to 0.15 (a pydantic BaseModel 0.6.5-0.8.x, a
    # dataclass 0.9-0.15: extra keys ignored); from 0.16 config/utils.py's @config builds a pydantic dataclass with
    # ConfigDict(extra="forbid"), so an unknown key is a ValidationError ("Unexpected keyword argument") as the flag is
    # read. kv_buffer_size, kv_rank, kv_parallel_size and kv_ip are gone from 0.32 (config/kv_transfer.py, 0.16.0-0.34.0
    # wheels).
    "kv_transfer_fields": [
        ((0, 0, 0), None),
        ((0, 16, 0), ("kv_connector", "engine_id", "kv_buffer_device", "kv_buffer_size", "kv_role", "kv_rank",
                      "kv_parallel_size", "kv_ip", "kv_port", "kv_connector_extra_config", "kv_connector_module_path",
                      "enable_permute_local_kv", "kv_load_failure_policy")),
        ((0, 32, 0), ("kv_connector", "engine_id", "kv_buffer_device", "kv_role", "kv_port", "kv_connector_extra_config",
                      "kv_connector_module_path", "enable_permute_local_kv", "kv_load_failure_policy")),
    ],
    # KVTransferConfig's refusal of a kv_connector without kv_role (model_post_init / __post_init__): "kv_disagg_role"
    # in its text up to 0.11.0, "kv_role" from 0.11.1; the roles listed as "`kv_producer`, `kv_consumer`, and
    # `kv_both`" up to 0.8.x, as get_args(KVRole), ('kv_producer', 'kv_both', 'kv_consumer'), from 0.9.0
    # (config.py 0.6.5-0.10.1, config/kv_transfer.py 0.10.2-0.34.0).
    "kv_role_missing_word": [((0, 0, 0), "kv_disagg_role"), ((0, 11, 1), "kv_role")],
    "kv_roles_said": [((0, 0, 0), "`kv_producer`, `kv_consumer`, and `kv_both`"),
                      ((0, 9, 0), "('kv_producer', 'kv_both', 'kv_consumer')")],
    # --disable-sliding-window (ModelConfig.disable_sliding_window; engine/arg_utils.py from 0.4.3, absent from 0.4.2):
    # _get_and_verify_max_len caps the derived max_model_len at the config's sliding_window (before the rope factor;
    # the min of a list up to 0.10.0, where a config with use_sliding_window false has none) and the window is
    # dropped from the config (cache_config.sliding_window None up to 0.10.0; hf_text_config.sliding_window = None
    # from 0.10.1), so window layers are built as full attention. Up to 0.11.2 a rope_scaling whose type is not one
    # of rope_unscaled_types (Gemma 3 aside) is refused: "Disabling sliding window is not supported for models with
    # rope_scaling. Please raise an issue so we can investigate." (NotImplementedError; config.py 0.4.3, 0.6.4, 0.8.5,
    # 0.9.2, 0.10.0; config/__init__.py 0.10.1, 0.10.2; config/model.py 0.11.0-0.11.2); gone from 0.12.0 (config/model.py
    # 0.12.0, 0.14.0, 0.19.0, 0.27.0, 0.33.0, 0.34.0).
    "disable_sliding_window_rope_refused": [((0, 0, 0), True), ((0, 12, 0), False)],
    # When 0.8-0.10 (V1 by default, V0 still shipped) run a model on the V0 engine instead: EngineArgs.
    # _is_v1_supported_oracle, read in each release wheel (0.8.0-0.10.2), which logs "{feature} is not supported by
    # the V1 Engine. Falling back to V0." and continues on V0. The conditions kvplan can see:
    # - a GPU of compute capability major < 8 (Turing, Volta), 0.8.0-0.10.1;
    # - a KV-cache dtype other than auto, unless FlashAttention 3 can store it: never in 0.8.0-0.8.1; fp8 on
    #   capability 9.x in 0.8.2-0.9.2; also anything on 10.0 in 0.10.0-0.10.1; also MLA models in 0.10.2;
    # - a pooling model (--task other than generate), 0.8.0-0.9.1;
    # - speculative decoding: any method in 0.8.x; other than ngram, eagle, medusa, deepseek_mtp in 0.9.x;
    # - pipeline parallelism with the default executor, 0.8.0-0.9.0;
    # - --dtype float32, 0.8.0-0.9.1; bitsandbytes 0.8.0-0.8.2 and gguf 0.8.0-0.8.5 weights;
    # - the architectures of V0_ONLY_ARCHITECTURES below.
    "v0_below_cc_major": [((0, 0, 0), 0), ((0, 8, 0), 8), ((0, 10, 2), 0)],
    "v1_kv_dtype": [((0, 0, 0), "any"), ((0, 8, 0), "auto_only"), ((0, 8, 2), "fp8_on_9"), ((0, 10, 0), "fp8_on_9_any_on_10.0"),
                    ((0, 10, 2), "fp8_on_9_any_on_10.0_mla"), ((0, 11, 0), "any")],
    "v0_for_pooling": [((0, 0, 0), False), ((0, 8, 0), True), ((0, 9, 2), False)],
    "v0_for_speculative": [((0, 0, 0), "none"), ((0, 8, 0), "all"), ((0, 9, 0), "not_ngram_mtp"), ((0, 10, 0), "none")],
    # Speculative methods with a drafter checkpoint ("model") that the V1 engine serves, read in the release wheels:
    # 0.8.x sends every speculative method to V0 (above); 0.9.0-0.10.0 EngineArgs._is_v1_supported_oracle keeps
    # "eagle", "eagle3" (and deepseek_mtp) on V1 (vllm/v1/spec_decode/eagle.py); 0.10-0.14 refuse method
    # "draft_model" ("Speculative decoding with draft model is not supported yet"), served on V1 from 0.15.0
    # (vllm/v1/spec_decode/draft_model.py, vLLM PR #24322; still there in 0.19.0 and 0.33.0). kvplan does not model
    # V0's spec_decode_worker, which split the blocks between draft and target.
    "spec_draft_methods": [((0, 0, 0), ()), ((0, 9, 0), ("eagle", "eagle3")), ((0, 15, 0), ("eagle", "eagle3", "draft_model"))],
    # With no "method", SpeculativeConfig.__post_init__ infers it from the drafter's name: "eagle-" or "eagle3-" ->
    # "eagle" up to 0.10.1 (vllm/config.py, read in the 0.9.0, 0.9.2, 0.10.0 wheels; vllm/config/__init__.py in
    # 0.10.1.1); from 0.10.2 "eagle-" -> "eagle" and then "eagle3" -> "eagle3" (config/__init__.py 0.10.2,
    # config/speculative.py 0.11.0, 0.13.0, 0.19.0, 0.33.0); anything else -> "draft_model".
    "spec_infers_eagle3_by_name": [((0, 0, 0), False), ((0, 10, 2), True)],
    # ... and whether that inference also rewrites a "method" given as "draft_model": up to 0.33 __post_init__ reads the
    # drafter's name whenever the method is not already eagle/eagle3/dflash/dspark, so {"method": "draft_model", "model":
    # ".../EAGLE3-..."} runs as eagle3 (config/speculative.py, 0.33.0 wheel); from 0.34 "A configured method is never
    # changed based on the draft checkpoint" (SpeculativeConfig.method's docstring; speculator_config.py
    # _resolve_checkpoint_config_class returns the configured StandaloneARSpeculatorConfig and detects by name only when
    # no method is given, 0.34.0 wheel), so the head is loaded as an independent draft model
    # (v1/worker/gpu/spec_decode/standalone_ar/speculator.py, which calls it with input_ids and positions only)
    "spec_configured_method_kept": [((0, 0, 0), False), ((0, 34, 0), True)],
    # What vLLM raises for method "draft_model" before it serves one on V1 (0.15.0), given as "method": 0.10.x
    # EngineArgs._is_v1_supported_oracle (engine/arg_utils.py, 0.10.0, 0.10.1.1, 0.10.2 wheels) and 0.11-0.14
    # EngineArgs.create_engine_config (0.11.0, 0.12.0, 0.13.0, 0.14.0 wheels), both NotImplementedError reading the
    # "method" key as given; "" where no such check exists (0.9.x sends it to V0). Inferred (no "method"), it passes
    # that check and the V1 model runner stops: "Unknown speculative decoding method: draft_model"
    # (v1/worker/gpu_model_runner.py GPUModelRunner.__init__, 0.10.0, 0.10.2, 0.13.0 wheels).
    "draft_model_refusal": [((0, 0, 0), ""),
                            ((0, 10, 0), "Speculative decoding with draft model is not supported yet. Please consider "
                                         "using other speculative decoding methods such as ngram, medusa, eagle, or deepseek_mtp."),
                            ((0, 11, 0), "Draft model speculative decoding is not supported yet. Please consider using "
                                         "other speculative decoding methods such as ngram, medusa, eagle, or mtp."),
                            ((0, 15, 0), "")],
    # Whether a "draft_model" drafter at a draft_tensor_parallel_size other than the target's TP is refused ("Currently,
    # 'draft_tensor_parallel_size' and 'tensor_parallel_size' must be the same", v1/spec_decode/draft_model.py
    # _raise_if_draft_tp_mismatch, 0.15.0-0.33.0 wheels), a check model runner v1 alone makes: its DraftModelProposer
    # is built only by v1/worker/gpu_model_runner.py, while model runner v2's draft-model speculator
    # (v1/worker/gpu/spec_decode/draft_model/speculator.py 0.31.0, standalone_ar/speculator.py 0.32.0-0.33.0,
    # load_draft_model) checks no TP, and config/speculative.py _verify_and_get_draft_tp accepts 1 (0.31.0-0.33.0); the
    # planner applies it only where the runner is v1 (a draft model's default to 0.30, rules row mrv2_v1_spec_methods;
    # VLLM_USE_V2_MODEL_RUNNER=0 after). The 0.34.0 wheel has no model runner v1 and no
    # v1/spec_decode/draft_model.py (v1/spec_decode holds dynamic/ and metrics.py only); its draft-model speculator
    # (v1/worker/gpu/spec_decode/standalone_ar/speculator.py load_draft_model) builds the draft under
    # SpeculativeConfig.draft_parallel_config without a process group of its own, so its layers still shard over the
    # target's TP group (no TP-group patching anywhere in the wheel), as an EAGLE head's do
    "draft_model_tp_refusal": [((0, 0, 0), True), ((0, 34, 0), False)],
    "v0_for_pipeline_parallel": [((0, 0, 0), False), ((0, 8, 0), True), ((0, 9, 1), False)],
    # Speculative decoding under pipeline parallelism (PP > 1). V0: every method goes through spec_decode_worker,
    # whose create_spec_worker raises NotImplementedError with this text (spec_decode/spec_decode_worker.py, read in
    # the 0.7.3, 0.8.5 and 0.9.2 wheels; the 0.5.5 and 0.6.3 wheels lack the check, so no refusal is given there).
    "pp_spec_v0_refusal": [((0, 0, 0), ""),
                           ((0, 7, 3), "Speculative decoding is currently incompatible with pipeline parallelism")],
    # V1, a drafter (eagle, eagle3, mtp, draft_model) with PP > 1 (plan.pp_speculative_refusal): "refused" up to 0.29,
    # read in the 0.19.0-0.29.0 wheels: SpeculativeConfig.create_draft_parallel_config copies the target's
    # pipeline_parallel_size, and SpeculativeConfig._verify_args -> ModelConfig.verify_with_parallel_config (config/
    # speculative.py, config/model.py) refuses a drafter class without SupportsPP: every EAGLE head (llama_eagle.py,
    # llama_eagle3.py, ...) and most MTP modules (deepseek_mtp.py, qwen3_next_mtp.py, qwen3_5_mtp.py, ... 0.19.0);
    # a drafter that passes (a draft_model LM, a SupportsPP MTP module) then fails in the profile run of every stage
    # but the last, which builds no drafter (v1/worker/gpu_model_runner.py __init__ builds it under
    # get_pp_group().is_last_rank; _dummy_run asserts on self.drafter: vLLM issues #30436, #49355).
    # "mrv2" from 0.30 (0.30.0-0.33.0 wheels): the draft config takes pipeline_parallel_size=1 and model runner v2
    # builds its speculator on the last stage only (v1/worker/gpu/model_runner.py, is_last_pp_rank), so the drafter's
    # weights, KV layers and profile buffers live there; model runner v1 (a draft model in 0.30) still fails as above.
    "pp_spec_drafter": [((0, 0, 0), "refused"), ((0, 30, 0), "mrv2")],
    # EAGLE-3 under PP on model runner v2 needs the target's decoder to relay its auxiliary hidden states between
    # stages (v1/worker/gpu/spec_decode/eagle/eagle3_utils.py verify_supports_aux_hidden_states_over_pp, 0.30.0-0.33.0):
    # the decoders that set supports_aux_hidden_states_over_pp are LlamaModel (llama.py), Qwen2Model (qwen2.py) and
    # SarvamModel, and their subclasses (MistralModel, Qwen3Model, ...); the architectures below serve them. 0.22-0.23
    # model runner v2 refuses EAGLE-3 with PP outright ("EAGLE3 with pipeline parallel is not supported."), which the
    # "refused" step of pp_spec_drafter already covers. The architectures are those of models/registry.py whose decoder is
    # LlamaModel, Qwen2Model or a subclass that keeps the flag (0.30.0 and 0.33.0 wheels: glm4.py Glm4Model, llama4.py
    # Llama4Model, telechat2.py, teleflm.py, mistral.py, qwen3.py; the "llama" entries InternLM3, IQuestCoder, LLaMA,
    # TeleChat3); MiMo's Qwen2Model subclass sets it False, Sarvam's from 0.33 is not listed
    "pp_eagle3_aux_architectures": [((0, 0, 0), ()),
                                    ((0, 30, 0), ("LlamaForCausalLM", "LLaMAForCausalLM", "MistralForCausalLM",
                                                  "Ministral3ForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM",
                                                  "Glm4ForCausalLM", "Llama4ForCausalLM", "InternLM3ForCausalLM",
                                                  "IQuestCoderForCausalLM", "TeleChat2ForCausalLM",
                                                  "TeleChat3ForCausalLM", "TeleFLMForCausalLM"))],
    "v0_for_cpu_offload": [((0, 0, 0), False), ((0, 8, 0), True), ((0, 8, 3), False)],
    # What --cpu-offload-gb may move to CPU memory: the parameters of the modules vLLM wraps, which are the decoder
    # layers make_layers builds (model_executor/models/utils.py make_layers -> maybe_offload_to_cpu, 0.8.5, 0.10.2 and
    # 0.16.0 wheels; -> get_offloader().wrap_modules, offloader/uva.py UVAOffloader, 0.17.0, 0.21.0, 0.33.0), never the
    # embedding, lm_head or final norm; from 0.30 also a multimodal model's towers (models/interfaces.py
    # _mark_tower_model wraps them where the offloader supports_tower_offload, UVA's does; absent in the 0.28.0 wheel,
    # present in 0.30.0, 0.31.0 and 0.33.0, 0.29 not read). Each wrapped module moves parameter by parameter, checking
    # the budget before each, so whole parameters move until the bytes moved reach cpu_offload_gb: the last one can
    # overshoot by its own size (plan: min(budget, eligible bytes)).
    "cpu_offload_towers": [((0, 0, 0), False), ((0, 30, 0), True)],
    "v0_for_lora": [((0, 0, 0), False), ((0, 8, 0), True), ((0, 8, 3), False)],
    "v0_for_float32": [((0, 0, 0), False), ((0, 8, 0), True), ((0, 9, 2), False)],
    "v0_for_quantization": [((0, 0, 0), ()), ((0, 8, 0), ("bitsandbytes", "gguf")), ((0, 8, 3), ("gguf",)), ((0, 9, 0), ())],
    # models with recurrent (Mamba-type) state: V0-only classes up to 0.9.1/0.10.0, and every model with inner state
    # through the "Mamba is experimental" check in 0.9.2-0.10.1
    "v0_for_recurrent": [((0, 0, 0), False), ((0, 8, 0), True), ((0, 10, 2), False)],
    # LoRA slots (vllm/lora, read in the 0.10-0.33 wheels): an extra vocabulary of 256 rows per adapter up to 0.11
    # (--lora-extra-vocab-size, gone in 0.12), and MoE experts wrapped from 0.11.1 (lora/layers/fused_moe.py).
    "lora_extra_vocab": [((0, 0, 0), 256), ((0, 12, 0), 0)],
    "lora_moe": [((0, 0, 0), False), ((0, 11, 1), True)],
    # ... with expert parallelism: FusedMoEWithLoRA asserts "EP support for Fused MoE LoRA is not implemented yet." in
    # 0.11.1-0.20.0 (lora/layers/fused_moe.py, 0.11.1, 0.12.0, 0.16.0, 0.20.0 wheels); from 0.21.0 it wraps each rank's
    # local experts (_ep_check, the default all2all_backend allgather_reducescatter) and refuses EP with
    # --fully-sharded-loras (_verify_ep_fs; 0.21.0, 0.22.0, 0.26.0, 0.30.0, 0.33.0 wheels)
    "lora_moe_ep": [((0, 0, 0), False), ((0, 21, 0), True)],
    # ... and --fully-sharded-loras splits the experts' w13 A (rank / TP) and w2 B (hidden / TP) from 0.12.0 (0.11.1's
    # FusedMoEWithLoRA reads no fully_sharded_loras; 0.12.0, 0.20.0, 0.33.0 wheels)
    "lora_moe_fully_sharded": [((0, 0, 0), False), ((0, 12, 0), True)],
    # ... and the expert placement under EP (--expert-placement-strategy, from 0.11.0): round_robin puts global expert
    # e on rank e % ep where the placement stays round_robin (fused_moe/expert_map_manager.py
    # determine_expert_placement_strategy and ExpertMapManager._determine_placement_strategy, the same in the 0.33.0 and
    # 0.34.0 wheels: EP over more than one rank, the model's num_expert_group > 1, no EPLB nor redundant experts, and
    # with data parallelism only the DeepEP low-latency or NIXL EP backends; else linear). "contiguous" (0.33.0 wheel):
    # the adapters' experts are still loaded as the contiguous range ep_rank x local_num_experts (lora/model_manager.py,
    # lora/lora_model.py), so a round-robin rank holds the adapter of other experts than its own; "refused" (0.34.0
    # wheel): FusedMoEWithLoRA._ep_check raises "Fused MoE LoRA with EP requires linear expert placement" while the
    # model loads, before its all2all-backend and fully-sharded checks. None: not read (0.21.0-0.32.0)
    "lora_moe_placement": [((0, 0, 0), None), ((0, 33, 0), "contiguous"), ((0, 34, 0), "refused")],
    # Expert-parallel load balancing (--enable-eplb). How the redundant experts are given: "flag" (--num-redundant-experts,
    # ParallelConfig.num_redundant_experts: vllm/engine/arg_utils.py and vllm/config.py of the 0.9.2-0.10.1 wheels; none
    # in 0.9.1's), "config" (--eplb-config '{"num_redundant_experts": N}', EPLBConfig in vllm/config/parallel.py of the
    # 0.10.2 wheel and every later one read; --num-redundant-experts stays a deprecated alias up to 0.11.2:
    # SERVE_FLAG_UNTIL). None: no EPLB in the release
    "eplb_form": [((0, 0, 0), None), ((0, 9, 2), "flag"), ((0, 10, 2), "config")],
    # ... the redundant experts when none are given: 0 (ParallelConfig / EPLBConfig num_redundant_experts = 0, 0.9.2-
    # 0.33.0 wheels), "min_divisible" (0.34.0 wheel: EPLBConfig.num_redundant_experts defaults to None and
    # ParallelConfig.compute_eplb_num_redundant_experts, called from VllmConfig.__post_init__, sets it under EPLB to
    # (ep - E % ep) % ep, the fewest that make logical + redundant experts divisible by the EP size)
    "eplb_redundant_default": [((0, 0, 0), 0), ((0, 34, 0), "min_divisible")],
    # ... ParallelConfig's checks under --enable-eplb: "platform" (0.9.2: CUDA only and num_redundant_experts >= 0),
    # "ep" (0.10.0 wheel and later: also "enable_expert_parallel must be True to use EPLB." and TP x DP (x PCP) > 1)
    "eplb_parallel_checks": [((0, 0, 0), None), ((0, 9, 2), "platform"), ((0, 10, 0), "ep")],
    # ... the bounds vLLM holds --eplb-config's / --num-redundant-experts' values to (plan.eplb._EPLB_BOUNDS):
    # "post_init" (ParallelConfig.__post_init__ under --enable-eplb raises "num_redundant_experts must be non-negative,
    # but got {n}.": config.py of the 0.9.2 and 0.10.0 wheels, config/parallel.py of 0.10.1, 0.10.2, 0.11.0; no bound on
    # the window), "redundant_field" (EPLBConfig.num_redundant_experts = Field(ge=0), pydantic's "Input should be greater
    # than or equal to 0" as --eplb-config is read, EPLB on or not: config/parallel.py of the 0.11.1-0.19.1 wheels;
    # window_size, step_interval, log_balancedness_interval plain ints), "fields" (also window_size, step_interval,
    # log_balancedness_interval = Field(gt=0), "Input should be greater than 0": the 0.20.0-0.34.0 wheels). Where vLLM
    # does not bound the window (0.10.2-0.19.x), kvplan refuses a window under 1 step under EPLB with what it does then
    "eplb_config_bounds": [((0, 0, 0), None), ((0, 9, 2), "post_init"), ((0, 11, 1), "redundant_field"),
                           ((0, 20, 0), "fields")],
    # ... the text of the one-rank refusal: "EPLB requires tensor_parallel_size or data_parallel_size to be greater than 1,
    # but got TP={tp},DP={dp}." (config.py 0.10.0, config/parallel.py 0.10.1-0.20.0 wheels), "EPLB requires tensor,
    # prefill-context, or data parallelism, but got TP={tp}, PCP={pcp}, DP={dp}." (0.27.1, 0.33.0 and 0.34.0 wheels;
    # logs.py src_eplb_needs_parallel; 0.21.0-0.27.0 not read for it)
    "eplb_one_rank_message": [((0, 0, 0), "tp_dp"), ((0, 27, 1), "tp_pcp_dp")],
    # ... the quantized experts that take EPLB. "fp8_only" (0.9.2: FusedMoE.__init__ raises "EPLB is only supported for
    # FP8 quantization for now." unless the method is Fp8MoEMethod, unquantized experts included), "fp8_or_unquantized"
    # (0.10.0-0.11.0: Fp8MoEMethod or UnquantizedFusedMoEMethod), "supports_eplb" (0.11.1 and later: the experts' method's
    # supports_eplb property -- fused_moe/layer.py FusedMoE.__init__ 0.11.1-0.20.0, fused_moe/routed_experts.py
    # 0.33.0-0.34.0; the methods per release in EPLB_QUANT_METHODS)
    "eplb_quant_check": [((0, 0, 0), None), ((0, 9, 2), "fp8_only"), ((0, 10, 0), "fp8_or_unquantized"),
                         ((0, 11, 1), "supports_eplb")],
    # ... the text of that refusal, which names the method's class (self.quant_method.__class__.__name__):
    # "class_fp8_note" ("EPLB is not supported {class}. EPLB is only supported for FP8 quantization for now.", the
    # 0.11.1, 0.11.2, 0.12.0, 0.13.0, 0.14.0, 0.14.1 wheels), "class" ("EPLB is not supported {class}.", 0.15.0, 0.15.1,
    # 0.17.1, 0.19.1, 0.20.0 wheels' fused_moe/layer.py, 0.33.0 and 0.34.0 wheels' fused_moe/routed_experts.py)
    "eplb_quant_message": [((0, 0, 0), None), ((0, 11, 1), "class_fp8_note"), ((0, 15, 0), "class")],
    # ... whether compressed-tensors integer weight-only experts take EPLB by the class get_moe_method picks, Marlin
    # (CompressedTensorsWNA16MarlinMoEMethod: supports_eplb False) or Triton (CompressedTensorsWNA16MoEMethod; True from
    # 0.12.0): compressed_tensors_moe.py of the 0.11.1-0.19.1 wheels read, compressed_tensors_moe/ of 0.20.0's
    # (plan.eplb.ct_wna16_marlin); the same choice in compressed_tensors_moe/compressed_tensors_moe.py get_moe_method
    # of the 0.21.0, 0.22.0, 0.24.0, 0.25.0, 0.25.1, 0.26.0 wheels (CompressedTensorsWNA16MarlinMoEMethod inherits
    # FusedMoEMethodBase.supports_eplb False; CompressedTensorsWNA16MoEMethod.supports_eplb True). From 0.27.0 the
    # Marlin class is gone: get_moe_method builds CompressedTensorsWNA16MoEMethod on CUDA, which decides by the kernel
    # backend it picks (EPLB_QUANT_METHODS; 0.27.0, 0.28.0, 0.29.0, 0.30.0, 0.31.0, 0.32.0, 0.33.0, 0.34.0 wheels)
    "eplb_ct_wna16_marlin": [((0, 0, 0), False), ((0, 11, 1), True), ((0, 27, 0), False)],
    # ... whether check_moe_marlin_supports_layer, which picks the Marlin MoE class for AWQ / GPTQ experts (plan.eplb.
    # wna16_marlin_fits), also refuses a layer that applies the router weight on its input (Llama 4's MoE):
    # quantization/utils/marlin_utils.py of the 0.12.0, 0.15.0, 0.19.1, 0.20.0, 0.21.0-0.26.0 wheels read
    # (supports_router_weight; plan.eplb.ct_wna16_marlin); gone from the
    # 0.27.0, 0.27.1, 0.28.0-0.34.0 wheels (check_moe_marlin_supports_config reads the hidden size, the width and the
    # group alone)
    "moe_marlin_router_check": [((0, 0, 0), True), ((0, 27, 0), False)],
    # ... FP8 experts (Fp8MoEMethod) on FlashInfer's TRTLLM kernel, which the method picks at load on Blackwell (compute
    # capability 10.x) with VLLM_USE_FLASHINFER_MOE_FP8=1 and VLLM_FLASHINFER_MOE_BACKEND "latency" (its default):
    # "forward" (0.13.0, 0.14.0, 0.14.1 wheels: get_fp8_moe_backend takes TRTLLM whatever EPLB, and Fp8MoEMethod.apply
    # raises "EPLB not supported for `Fp8MoEMethod` yet." at the first forward, the profile run; 0.12.0's apply has no
    # such check), "load" (0.15.0, 0.15.1, 0.16.0 wheels: fused_moe/oracle/fp8.py select_fp8_moe_backend passes over
    # TRTLLM under EPLB -- flashinfer_trtllm_moe.py _supports_parallel_config -- and, where VLLM_FLASHINFER_MOE_BACKEND
    # is set to latency, raises "FP8 MoE backend FLASHINFER_TRTLLM does not support the deployment configuration since
    # kernel does not support parallel config." for 128-block FP8 experts, a scheme the kernel takes).
    # "load_repr" (0.17.0, 0.17.1, 0.18.0, 0.19.1, 0.20.0, 0.21.0, 0.22.0, 0.23.0 wheels: the same path, the kernel's
    # class TrtLlmFp8Experts (experts/trtllm_fp8_moe.py _supports_parallel_config: not enable_eplb), whose
    # FusedMoEExperts.is_supported_config (modular_kernel.py) words the reason "kernel does not support parallel config
    # {moe_config.moe_parallel_config}", the rank's FusedMoEParallelConfig printed). None: no such check (from 0.24.0
    # select_fp8_moe_backend reads neither variable: a backend is asked for with --moe-backend; kvplan reads it
    # (plan.serve_flags.moe_backend) but does not refuse flashinfer_trtllm under EPLB: 0.33's TRTLLM FP8 experts hold a
    # monolithic class that refuses EPLB and a modular one whose parallel check was not read)
    "eplb_fp8_flashinfer_trtllm": [((0, 0, 0), None), ((0, 13, 0), "forward"), ((0, 15, 0), "load"),
                                   ((0, 17, 0), "load_repr"), ((0, 24, 0), None)],
    # ... the EPLB state (distributed/eplb/eplb_state.py EplbState.build / add_model): the load window and pass buffer
    # over the rank's local physical experts in 0.9.2 and 0.10.0, over all physical experts from 0.10.1 (0.10.1, 0.10.2,
    # 0.20.0, 0.33.0 wheels)
    "eplb_load_over_local": [((0, 0, 0), True), ((0, 10, 1), False)],
    # ... a copy of one MoE layer's local expert tensors kept for the weight exchange (expert_buffer = [torch.empty_like(w)
    # for w in model.expert_weights[0]]): absent from the 0.11.0 wheel's eplb_state.py, allocated by add_model in 0.12.0,
    # 0.14.1, 0.15.1, 0.17.1, 0.19.1, 0.20.0, 0.33.0 and 0.34.0 (0.34.0: unless the communicator is symm_mem, which owns
    # its own symmetric buffer)
    "eplb_expert_buffer": [((0, 0, 0), False), ((0, 12, 0), True)],
    # ... last_expert_load, (MoE layers, logical experts) int64 (torch.ones in EplbState.add_model): not in the
    # eplb_state.py of the 0.20.0, 0.20.2, 0.21.0, 0.22.0, 0.22.1, 0.23.0, 0.24.0, 0.25.0, 0.25.1, 0.26.0, 0.27.0,
    # 0.28.0, 0.29.0, 0.30.0 wheels; in the 0.31.0, 0.32.0, 0.33.0 and 0.34.0 wheels'
    "eplb_last_load": [((0, 0, 0), False), ((0, 31, 0), True)],
    # ... the replica slots of logical_to_physical_map, (MoE layers, logical experts, slots) int64: "redundant" (R + 1:
    # EplbState.build, 0.9.2 wheel; EplbState.add_model, 0.34.0 wheel, without elastic EP), "max" (MAX_EXPERT_REDUNDANCY
    # + 1 = 1024 whatever R, max_slots_per_logical_expert in EplbState.build / add_model of every wheel read from 0.10.0
    # to 0.33.0: 0.10.0-0.12.0, 0.13.0-0.20.2, 0.21.0-0.32.0, 0.33.0)
    "eplb_replica_slots": [((0, 0, 0), "redundant"), ((0, 10, 0), "max"), ((0, 34, 0), "redundant")],
    # ... the most redundant experts the state takes: EplbState.build / add_model asserts num_redundant_experts <=
    # MAX_EXPERT_REDUNDANCY (1023) when it builds the state, after the model loads ("num_redundant_experts {R} must be
    # less than or equal to 1023": eplb_state.py of the 0.10.0-0.34.0 wheels read; no check in 0.9.2's). None: no limit
    "eplb_max_redundant": [((0, 0, 0), None), ((0, 10, 0), 1023)],
    # ... EPLBConfig.use_async's default (config/parallel.py: absent before 0.12.0; False in the 0.12.0-0.22.1 wheels,
    # True from 0.23.0) and the refusal of a torch_nccl / pynccl communicator with async EPLB (EPLBConfig
    # _validate_eplb_config: absent from the 0.23.0 wheel, in the 0.24.0-0.34.0 wheels)
    "eplb_async_default": [((0, 0, 0), False), ((0, 23, 0), True)],
    "eplb_async_nccl_refused": [((0, 0, 0), False), ((0, 24, 0), True)],
    # ... where the state lands: the main model's EplbState is built after "Model loading took" is measured in 0.9.2-0.19.1
    # (v1/worker/gpu_model_runner.py load_model: EplbState.build / eplb_state.add_model after the DeviceMemoryProfiler
    # block, 0.9.2, 0.10.1, 0.12.0, 0.14.1, 0.15.1, 0.17.1, 0.19.1 wheels), so outside the weights, the profile and the
    # budget ("outside"); inside the block from 0.20.0 (0.20.0, 0.33.0 wheels), so part of the weights term ("weights")
    "eplb_state_measured": [((0, 0, 0), "outside"), ((0, 20, 0), "weights")],
    # The embedding and lm_head take LoRA slots only where the model class (or a base class) lists them in its
    # embedding_modules: lora/utils.py get_supported_lora_modules adds those names to the Linear layers' and
    # lora/model_manager.py _create_lora_modules wraps "embed_tokens" (VocabParallelEmbeddingWithLoRA) and swaps the
    # logits processor for LogitsProcessorWithLoRA under "lm_head" (0.10.2-0.33.0 wheels). Qwen2, Gemma 2/3/4, Phi-2,
    # DeepSeek, gpt-oss, Qwen3-Next and the multimodal *ForConditionalGeneration classes list none; Cohere lists
    # embed_tokens alone (its logits come from the tied embedding). Read in the 0.10.2, 0.11.0, 0.12.0, 0.14.0, 0.15.0,
    # 0.16.0, 0.18.0, 0.19.0, 0.20.0 and 0.33.0 wheels (models/registry.py's generation and multimodal tables, each
    # class with its bases): MistralForCausalLM is LlamaForCausalLM's through 0.14.0 and its own class with
    # embedding_modules = {} from 0.15.0; Qwen3ForCausalLM and Qwen3MoeForCausalLM list both from 0.16.0 (none in
    # 0.15.0). The extra LoRA vocabulary up to 0.11 (lora_extra_vocab) grows only these classes' tables.
    # --lora-target-modules matches a module by the last part of its name (lora/utils.py is_in_target_modules, 0.19.0
    # wheel); from 0.20.0 a packed module (qkv_proj, gate_up_proj) also by its children's names, q_proj, gate_proj...
    # (is_in_target_modules' packed_modules_mapping, 0.20.0 and 0.33.0 wheels)
    "lora_target_packed": [((0, 0, 0), False), ((0, 20, 0), True)],
    "lora_embedding_archs": [((0, 0, 0), LORA_EMBEDDING_ARCHS | {"MistralForCausalLM"}),
                             ((0, 15, 0), LORA_EMBEDDING_ARCHS),
                             ((0, 16, 0), LORA_EMBEDDING_ARCHS | {"Qwen3ForCausalLM", "Qwen3MoeForCausalLM"}),
                             # Lfm3ForCausalLM, new in 0.34.0 (models/lfm3.py: SupportsLoRA, embedding_modules
                             # embed_tokens and lm_head, as Lfm2ForCausalLM)
                             ((0, 34, 0), LORA_EMBEDDING_ARCHS | {"Qwen3ForCausalLM", "Qwen3MoeForCausalLM",
                                                                  "Lfm3ForCausalLM"})],
    # How `vllm serve` is told to serve a model as a pooling (embedding/classification) model: `--task embed` until
    # `--runner pooling` replaced it (vLLM PR #21470, merged July 2025; 0.10.1 is the first release after it). --task
    # (0.6.4) first took "embedding" only: "embed" is in the 0.6.5 wheel's TaskOption (vllm/config.py), not 0.6.4's.
    "pooling_flag": [((0, 0, 0), "--task embedding"), ((0, 6, 5), "--task embed"), ((0, 10, 1), "--runner pooling")],
    # DeepSeek-V4's sparse-attention workspaces, reserved in the profile run (read in the 0.28-0.33 wheels): the ROCm
    # (AITER) indexer's decode-logits buffer has max_num_batched_tokens rows until 0.30 caps them at max_num_seqs
    # (v1/attention/ops/rocm_aiter_mla_sparse.py); the indexer's prefill K buffer holds 10 x max_model_len entries
    # until 0.32 sizes it by sparse_mla_prefill_workspace_factor (5 up to 256K tokens, else 2; config/vllm.py)
    # How DeepSeek-V4's pool is divided and its fit check charged (v1/core/kv_cache_utils.py, 0.20-0.33 wheels): the
    # pool in layer tuples up to 0.22, each page size times its slots 0.23-0.26, the largest group as the block from
    # 0.27; the fit check in layer tuples up to 0.28 (_max_memory_usage_bytes_from_groups), blocks from 0.29
    "dsv4_accounting": [((0, 0, 0), "layer_tuple"), ((0, 23, 0), "page_slots"), ((0, 27, 0), "stride_tuple_check"),
                        ((0, 29, 0), "stride")],
    # The multimodal profile pass (v1/worker/gpu_model_runner.py, models/qwen3_vl.py): 0.11-0.12 size Qwen3-VL's dummy
    # video at 12.5 x its tokens and pad the cached output to that; the V1 runner keeps the dummy pixel tensors through
    # the text dummy run until the V2 runner becomes the default in 0.33 (v1/worker/gpu/mm/encoder_runner.py)
    # Weights load under a scoped 20 MiB max_split_size from 0.21 (v1/worker/gpu_worker.py
    # _scoped_allocator_max_split): large tensors get whole 2 MiB-rounded blocks, counted in "Model loading took"
    # Which GPU model runner a release picks by default (config/vllm.py use_v2_model_runner and
    # DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES; see plan.model_runner): the listed architectures, unquantized dense only
    # in 0.22-0.23; the listed ones in 0.24; generate models neither hybrid nor MoE (or listed) in 0.25-0.28; all from 0.29
    "model_runner_v2": [((0, 0, 0), "none"), ((0, 22, 0), "listed_dense"), ((0, 24, 0), "listed"), ((0, 25, 0), "dense"),
                        ((0, 29, 0), "all")],
    # How a release reads VLLM_USE_V2_MODEL_RUNNER (see plan.model_runner_choice): "unread" before 0.12 (not in
    # vllm/envs.py, read in the 0.11.1 and 0.11.2 wheels); "opt_in" in 0.12-0.21, bool(int(value)) defaulting to "0"
    # (envs.py), which v1/worker/gpu_worker.py Worker.__init__ copies to use_v2_model_runner: =1 builds model runner v2
    # (v1/worker/gpu/model_runner.py), =0 is the default (read in the 0.12.0, 0.14.1, 0.16.0, 0.19.0, 0.20.2, 0.21.0
    # wheels); "override" from 0.22, maybe_convert_bool (unset: None), and VllmConfig.use_v2_model_runner
    # (config/vllm.py) returns a set value before any default check (architecture, Triton, unsupported features), so
    # =1 forces v2 and =0 forces v1 for every model (read in the 0.22.0, 0.24.0, 0.25.1, 0.27.1, 0.28.0, 0.29.0,
    # 0.31.0 and 0.33.0 wheels). A value int() refuses stops the server with a ValueError wherever it is read.
    # "removed" from 0.34.0, which has no model runner v1 (v1/worker/gpu_model_runner.py is gone; v1/worker/gpu/
    # model_runner.py serves every model) and no VLLM_USE_V2_MODEL_RUNNER in envs.py: Platform.validate_environ
    # (platforms/interface.py, called from EngineArgs.create_engine_config) stops the start on any value but the string
    # "1" ("VLLM_USE_V2_MODEL_RUNNER=0 is no longer supported: Model Runner V1 has been removed. Unset this variable.")
    # and logs =1 as redundant (plan.args._env_rules)
    "mrv2_env": [((0, 0, 0), "unread"), ((0, 12, 0), "opt_in"), ((0, 22, 0), "override"), ((0, 34, 0), "removed")],
    "mrv2_architectures": [((0, 0, 0), ()), ((0, 22, 0), ("Qwen3ForCausalLM",)),
                           ((0, 23, 0), ("Qwen3ForCausalLM", "LlamaForCausalLM", "MistralForCausalLM")),
                           ((0, 24, 0), ("Qwen3ForCausalLM", "LlamaForCausalLM", "MistralForCausalLM", "DeepseekV2ForCausalLM",
                                         "Qwen2MoeForCausalLM", "GraniteMoeForCausalLM")),
                           ((0, 25, 0), ("DeepseekV2ForCausalLM", "Qwen2MoeForCausalLM", "GraniteMoeForCausalLM"))],
    # The speculative methods (as vLLM names them once settled) for which a release that would pick model runner v2
    # keeps model runner v1 (config/vllm.py VllmConfig._get_v2_model_runner_unsupported_features, "Model Runner V2 does
    # not yet support ..."): 0.22-0.29 everything but eagle, eagle3, mtp (and dflash, dspark, extract_hidden_states),
    # so ngram, suffix and draft_model (0.22.0, 0.23.0, 0.25.1, 0.27.1, 0.28.0, 0.29.0 wheels); 0.30.0 lists ngram,
    # ngram_gpu, draft_model, suffix, ...; 0.31.0 drops draft_model; 0.32.0 drops ngram (0.32.0, 0.33.0: suffix,
    # medusa, mlp_speculator, custom_class). None from 0.34.0: VllmConfig._get_model_runner_unsupported_features lists no
    # speculative method (config/vllm.py; suffix decoding runs on v2's GPU suffix speculator, config/speculative.py),
    # the GPU model runner being v2 alone.
    # --speculative-config's enable_adaptive_verification (SpeculativeConfig, config/speculative.py; absent from the
    # 0.28.0 wheel, present from 0.29.0) and the starts vLLM refuses with it on (plan.cudagraphs.
    # adaptive_verification_refusal). "unread": the release has no such field (kvplan checks nothing). "dspark_only"
    # (0.29.0 wheel): SpeculativeConfig.__post_init__ refuses it for any method but dspark ("Adaptive verification
    # only supported with DSpark"). "full_graphs" (0.30.0-0.33.0 wheels): any method; with use_local_argmax_reduction
    # refused unless the method estimates acceptance without the draft logits (row
    # adaptive_verification_own_confidence_methods); on model runner v1 refused by VllmConfig._validate_v1_model_runner
    # ("Model Runner V1 does not support: adaptive draft verification"); then VllmConfig._validate_adaptive_verification
    # refuses LoRA, a cudagraph_mode without FULL graphs (NONE, PIECEWISE, --enforce-eager) and pipeline parallelism.
    # "decode_graphs" (0.34.0 wheel): the same (no model runner v1 left), and besides a separate decode routine with
    # FULL decode graphs but no decode capture sizes ("Adaptive verification needs decode CUDA graphs, but
    # decode_cudagraph_capture_request_sizes is empty").
    "adaptive_verification": [((0, 0, 0), "unread"), ((0, 29, 0), "dspark_only"), ((0, 30, 0), "full_graphs"),
                              ((0, 34, 0), "decode_graphs")],
    # The methods whose adaptive verification does not read the draft logits, so use_local_argmax_reduction beside it
    # is not refused: method != "dspark" in SpeculativeConfig.__post_init__ (0.30.0-0.33.0 wheels); from 0.34.0 the
    # speculator config's adaptive_verification_uses_draft_logits, False for DSparkSpeculatorConfig and
    # SuffixSpeculatorConfig (v1/worker/gpu/spec_decode/dspark/config.py, suffix/config.py, 0.34.0 wheel)
    # What adaptive verification does with no CUDA-graph capture size left (every given size above
    # max_num_batched_tokens). "refused" from 0.34.0: vLLM has set cudagraph_mode NONE for want of sizes (row
    # cudagraph_no_sizes_left) before _validate_adaptive_verification, which refuses ("requires full CUDA graphs").
    # "first_verify_fails" 0.30.0-0.33.0 (0.30.0 and 0.33.0 wheels): the mode stays, so config/vllm.py
    # VllmConfig._validate_adaptive_verification passes and the start completes, but model runner v2's capture_model
    # (v1/worker/gpu/model_runner.py) finds no decoder graph and returns before the step-cost profile
    # (AdaptiveVerificationManager.batches_to_profile / set_initial_cost_curves), so the cost tables stay None and the
    # first step that verifies drafts stops at AdaptiveVerificationManager.get_num_tokens' `assert self.cost_tables is
    # not None` (v1/worker/gpu/spec_decode/adaptive_verification.py). "unread" before 0.30 (0.29 takes adaptive
    # verification only with dspark). plan.cudagraphs.adaptive_verification_refusal / adaptive_verification_warning
    "adaptive_verification_no_sizes": [((0, 0, 0), "unread"), ((0, 30, 0), "first_verify_fails"), ((0, 34, 0), "refused")],
    "adaptive_verification_own_confidence_methods": [((0, 0, 0), ()), ((0, 30, 0), ("dspark",)),
                                                     ((0, 34, 0), ("dspark", "suffix"))],
    "mrv2_v1_spec_methods": [((0, 0, 0), ()), ((0, 22, 0), ("ngram", "suffix", "draft_model")),
                             ((0, 31, 0), ("ngram", "suffix")), ((0, 32, 0), ("suffix",)),
                             # 0.34.0: no model runner v1; suffix has its own v2 speculator
                             # (v1/worker/gpu/spec_decode/suffix/, speculator_config.py _CONFIG_BY_METHOD)
                             ((0, 34, 0), ())],
    # The speculative methods whose drafting scans every request's whole token history on the GPU: model runner v2
    # keeps RequestState.all_token_ids, max_num_seqs x max_model_len int32, in device memory instead of UVA (pinned
    # host) memory for them (v1/worker/gpu/states.py RequestState.__init__, use_dense_all_token_ids; model_runner.py):
    # ngram in 0.33.0 (speculative_config.use_ngram()), ngram and suffix from 0.34.0 (SpeculatorConfig
    # prefer_dense_token_history, ngram/config.py and suffix/config.py). Allocated with the model runner, before the
    # profile run, so outside the KV pool (plan.terms._speculator_state_bytes).
    "spec_dense_token_history": [((0, 0, 0), ()), ((0, 33, 0), ("ngram",)), ((0, 34, 0), ("ngram", "suffix"))],
    # Suffix decoding: up to 0.33 Arctic Inference's CPU suffix trees on model runner v1 (SpeculativeConfig.
    # _validate_suffix_decoding: ImportError without arctic-inference, 0.33.0 wheel); from 0.34 a GPU speculator with
    # a corpus of finished responses, suffix_decoding_corpus_tokens int32 (default 1 << 20; none where
    # suffix_decoding_max_cached_requests is 0 or suffix_decoding_max_tree_depth < 2), two hash tables of
    # next_power_of_2(max(16, corpus / 4)) buckets x 8 int64 slots, and per-request scratch
    # (v1/worker/gpu/spec_decode/suffix/speculator.py SuffixSpeculator.__init__, 0.34.0 wheel)
    "suffix_gpu_corpus": [((0, 0, 0), False), ((0, 34, 0), True)],
    # A model-based drafter's cached draft logits with "draft_sample_method": "probabilistic" under model runner v2:
    # max_num_seqs x num_speculative_tokens x the drafter's vocabulary in the head dtype (the model dtype unless the
    # config names a head_dtype), allocated in the speculator's __init__ with the model runner in 0.33.0
    # (v1/worker/gpu/spec_decode/speculator.py DraftModelSpeculator.__init__) and in its load_model, inside vLLM's
    # "Model loading took", in 0.34.0 (_init_draft_logits -> draft_logits.py DraftLogitsCache, rows divided over TP only
    # under the opt-in enable_batch_sharded_sampling). Not read before 0.33
    "probabilistic_draft_logits": [((0, 0, 0), False), ((0, 33, 0), True)],
    # num_speculative_tokens suffix decoding takes when it is not given: suffix_decoding_max_tree_depth (default 24) up
    # to 0.33 (_validate_suffix_decoding, 0.33.0 wheel), min(8, suffix_decoding_max_tree_depth) from 0.34
    # (SuffixSpeculatorConfig.configure: "a deep default costs throughput at high concurrency", 0.34.0 wheel)
    "suffix_default_spec_tokens": [((0, 0, 0), "tree_depth"), ((0, 34, 0), "min8_tree_depth")],
    # What model runner v2's profile sampler run holds beside the model's logits (v1/worker/gpu/model_runner.py
    # profile_run -> _dummy_sampler_run, v1/worker/gpu/sample/sampler.py Sampler.apply_sampling_params and sample,
    # sample/states.py SamplingStates, sample/gumbel.py gumbel_sample; see plan.mrv2_sampler_bytes_per_logit). The dummy
    # batch adds no request, so every row keeps the defaults (top-k = vocabulary, top-p = 1.0): no top-k/top-p pass.
    # 0.22-0.25 copy the logits to fp32 for every row, unconditionally ("fp32_copy"; apply_sampling_params'
    # torch.empty_like(logits, dtype=torch.float32).copy_(logits), read in the 0.22.1, 0.23.0, 0.24.0, 0.25.0 and 0.25.1
    # wheels); 0.26 drops the copy (the ops mutate the model-dtype logits in place, cloning them only when raw logprobs
    # are returned, read in 0.26.0), 0.27 copies only when Sampler._requires_logits_processing finds a row with a logit
    # bias, penalty, bad words, a temperature other than 0 or 1, min-p, top-k or top-p (read in 0.27.0 and 0.27.1: the
    # dummy rows have none, SamplingStates and the penalty/bias/bad-word states start at their no-op values), and
    # 0.28-0.32 return them untouched when no row needs processing (needs_logits_processing; read in 0.28.0, 0.30.0,
    # 0.31.0 and 0.32.0): from 0.26 the peak is the model's logits and the Gumbel per-block argmax buffers ("logits");
    # 0.33 adds a second pass with SamplingParams.for_sampler_warmup (fp32 logits, penalties, top-k/top-p, logprobs;
    # "warmup", read in 0.33.0), which kvplan charges with the era's fitted sampler term.
    "mrv2_profile_sampler": [((0, 0, 0), "fp32_copy"), ((0, 26, 0), "logits"), ((0, 33, 0), "warmup")],
    # Whether model runner v2 estimates its CUDA-graph memory before the KV allocation: not before 0.29
    # (v1/worker/gpu/model_runner.py profile_cudagraph_memory returns 0, 0.26.0 and 0.28.0 wheels; capture_model still
    # captures PIECEWISE then FULL graphs into the global pool after it, v1/worker/gpu/cudagraph_utils.py
    # CudaGraphManager.capture, 0.26.0); from 0.29 the real capture against a throwaway pool, every PIECEWISE graph
    # measured, FULL graphs past the second extrapolated from the second sample at >= 1 MiB each
    # (v1/worker/gpu/cudagraph_utils.py profile_cudagraph_memory, _extrapolate_full_graph_memory, 0.29.0 and 0.33.0;
    # kvplan: plan.cudagraphs.mrv2_graph_estimate_bytes)
    "mrv2_cudagraph_estimate": [((0, 0, 0), False), ((0, 29, 0), True)],
    # The speculative methods whose model-runner-v2 speculator captures CUDA graphs that estimate measures: its
    # throwaway-pool capture_model(profile_only=True) runs speculator.capture() too, and only the target's manager is
    # capped at the FULL samples, so "PIECEWISE, encoder and speculator graphs are measured in full"
    # (v1/worker/gpu/cudagraph_utils.py profile_cudagraph_memory; v1/worker/gpu/model_runner.py capture_model, 0.29.0,
    # 0.33.0 and 0.34.0 wheels), and the real capture holds them beside the target's. The autoregressive speculators
    # (EAGLE, EAGLE-3, single-module MTP; spec_decode/autoregressive/speculator.py 0.29.0, target_dependent_ar 0.33.0
    # and 0.34.0) keep a draft-prefill manager in the target's cudagraph_mode (PIECEWISE graphs at the capture sizes,
    # FULL ones at the target's decode shapes) and, with num_speculative_tokens >= 2, a one-token draft-decode manager
    # of FULL graphs; a draft model's standalone speculator captures none to 0.33 ("CUDA graph not yet supported for
    # standalone AR speculator", standalone_ar/speculator.py 0.33.0) and the same pair from 0.34 (its prefill graphs
    # at q = num_speculative_tokens + 2, standalone_ar/speculator.py 0.34.0). Multi-module MTP's single manager is
    # not read: charged nothing. kvplan: plan.cudagraphs.CudaGraphPlan drafter_graphs / drafter_full_graphs.
    "mrv2_drafter_graph_methods": [((0, 0, 0), ()), ((0, 29, 0), ("eagle", "eagle3", "mtp")),
                                   ((0, 34, 0), ("eagle", "eagle3", "mtp", "draft_model"))],
    # Whether that estimate also holds FlashInfer's TRTLLM-API attention workspace: a module-level buffer of
    # VLLM_FLASHINFER_WORKSPACE_BUFFER_SIZE bytes (envs.py, 394 MiB by default) that v1/attention/backends/flashinfer.py
    # _get_trtllm_workspace_buffer allocates at the first attention forward running an XQA / TRTLLM-gen kernel and keeps
    # for the process. The profile run passes no attention metadata (skip_attn), so that first forward is a capture
    # inside profile_cudagraph_memory's measured capture_model() window (v1/worker/gpu/cudagraph_utils.py); the builders'
    # own workspace is allocated earlier, in initialize_kv_cache (v1/worker/gpu/attn_utils.py init_attn_backend calls
    # _get_workspace_buffer), and the real capture_model() finds the global buffer in place, so only the estimate carries
    # it. Read in the 0.29.0, 0.30.0, 0.31.0 and 0.33.0 wheels (kvplan: plan.terms.trtllm_workspace_in_estimate_bytes)
    "mrv2_estimate_trtllm_workspace": [((0, 0, 0), False), ((0, 29, 0), True)],
    # ... and model runner v1's estimate (0.20-0.28 default; any release forced with VLLM_USE_V2_MODEL_RUNNER=0): its
    # profile run builds no attention metadata either (gpu_model_runner.py _dummy_run builds it only for force_attention
    # or a FULL runtime mode; profile_run passes neither), so the first attention forward is a warmup inside
    # profile_cudagraph_memory: it captures PIECEWISE descriptors first, then FULL ones (cudagraph_dispatcher.py
    # get_capture_descs), and _warmup_and_capture runs the FULL mode's warmups with force_attention, so the largest FULL
    # graph's warmup allocates the buffer and it lands in that mode's first-capture sample, measured with
    # cudaMemGetInfo (mem_get_info / torch.accelerator.get_memory_info) around warmup and capture. The estimate is the
    # larger mode's first capture plus the per-graph rest (max(shared_memory_estimate.values()) + ...), so the buffer
    # adds at most its size (less where the PIECEWISE first capture exceeds the FULL one by the difference); the real
    # capture_model() after the KV allocation finds it in place. With no FULL graphs (cudagraph_mode PIECEWISE) no
    # forward in the window has metadata and the buffer comes after the KV allocation. Read in the 0.20.0, 0.21.0,
    # 0.24.0, 0.26.0 and 0.28.0 wheels (plan.terms.trtllm_workspace_in_estimate_bytes)
    "v1_estimate_trtllm_workspace": [((0, 0, 0), False), ((0, 20, 0), True)],
    # The compute-capability majors whose FlashInfer attention runs an XQA / TRTLLM-gen kernel, and so allocates that
    # buffer, where FlashInfer serves the attention (utils/flashinfer.py supports_trtllm_attention, decode; the builders
    # decode through it whenever it holds, flashinfer.py FlashInferMetadataBuilder.__init__
    # use_trtllm_decode_attention): is_device_capability_family(100) alone in the 0.20.0, 0.21.0, 0.24.0 wheels (and
    # 0.27.1, versions row spec_decode_piecewise_fp8_kv_cc_majors); 0.26.0 adds XQA decode on 9.0, where FlashAttention
    # 3, not FlashInfer, is vLLM's backend (fp8 caches included); 0.28.0 adds family 120 (the SM12x XQA decode API,
    # read in 0.28.0, 0.29.0 and 0.33.0). Earlier releases run the kernels on family 100 too, but no estimate of
    # theirs holds the buffer (rows cudagraph_subtracted, v1_estimate_trtllm_workspace), so the row starts at 0.20
    "trtllm_attention_cc_majors": [((0, 0, 0), ()), ((0, 20, 0), (10,)), ((0, 28, 0), (10, 12))],
    # ... and the compute-capability majors where FlashInfer serves an fp8 (e4m3) KV cache (FlashAttention 2 stores
    # none) and decodes through its own wrappers instead (the builder's BatchDecodeWithPagedKVCacheWrapper, not the
    # XQA / TRTLLM-gen kernels): the metadata builder's own workspace, of the same VLLM_FLASHINFER_WORKSPACE_BUFFER_SIZE
    # bytes, is made at its first wrapper (FlashInferMetadataBuilder._get_workspace_buffer, lazily: model runner v1
    # calls it nowhere else, v1/worker/gpu_model_runner.py), which the first FULL-mode warmup of
    # profile_cudagraph_memory builds (_get_decode_wrapper under decode_use_trtllm false), so the estimate holds it as
    # it holds the TRTLLM buffer (row v1_estimate_trtllm_workspace). The real capture does not: "Warming up FlashInfer
    # attention" (model_executor/warmup/kernel_warmup.py) builds the real builder's wrappers before capture_model.
    # 8.x and 12.x in 0.20-0.27 (read in the 0.20.0, 0.20.2, 0.21.0, 0.22.0 and 0.24.0 wheels); 12.x leaves at 0.28,
    # where decode takes the XQA path (row trtllm_attention_cc_majors) and builds no decode wrapper
    "v1_estimate_fi_wrapper_workspace_cc_majors": [((0, 0, 0), ()), ((0, 20, 0), (8, 12)), ((0, 28, 0), (8,))],
    # ... whose size from 0.26 is max(the variable, max_num_batched_tokens x query heads per rank x head size x 16 B),
    # "FlashInfer prefill temp buffers ... scale with the prefill chunk and query-head footprint"
    # (FlashInferMetadataBuilder._get_workspace_buffer, FLASHINFER_PREFILL_WORKSPACE_BYTES_PER_ELEM = 16; read in the
    # 0.26.0 and 0.28.0 wheels, not in 0.24.0): 0 before (the variable alone), else the bytes per element
    "fi_builder_workspace_bytes_per_elem": [((0, 0, 0), 0), ((0, 26, 0), 16)],
    # What VLLM_USE_V2_MODEL_RUNNER=1 forcing model runner v2 is refused for (VllmConfig._validate_v2_model_runner,
    # config/vllm.py, from 0.20; plan.check_model_runner_env): "eagle_mtp_only", any speculative method but eagle, eagle3 and
    # mtp in 0.20-0.21 (read in the 0.20.0 and 0.21.0 wheels); "listed", those of rules row mrv2_v1_spec_methods from 0.22
    "mrv2_forced_refusals": [((0, 0, 0), "none"), ((0, 20, 0), "eagle_mtp_only"), ((0, 22, 0), "listed")],
    # ... its message names ngram "ngram/ngram_gpu speculative decoding" in 0.22-0.30
    "mrv2_refusal_ngram_gpu": [((0, 0, 0), False), ((0, 22, 0), True), ((0, 31, 0), False)],
    # ... hybrid/mamba models (has_inner_state) are refused in 0.20-0.23; 0.24 only with mamba_cache_mode align, gone in
    # 0.25 (0.24.0 and 0.25.1 wheels)
    "mrv2_refuses_hybrid": [((0, 0, 0), True), ((0, 24, 0), False)],
    # ... and its message begins "VLLM_USE_V2_MODEL_RUNNER does not yet support: ..." in 0.20-0.22, "Model Runner V2
    # does not yet support: ..." from 0.23
    "mrv2_refusal_prefix": [((0, 0, 0), "VLLM_USE_V2_MODEL_RUNNER"), ((0, 23, 0), "Model Runner V2")],
    "allocator_split_limit": [((0, 0, 0), False), ((0, 21, 0), True)],
    # --enable-sleep-mode (ModelConfig.enable_sleep_mode, vLLM PR #11743: weights and KV cache allocated in vLLM's CuMem
    # pools, CuMemAllocator in vllm/device_allocator/cumem.py, so that sleep() can offload or discard them). The
    # platforms whose vLLM builds take it: CUDA only in 0.7.0-0.11.0 (config.py ModelConfig.__init__ raises unless
    # current_platform.is_cuda() in 0.7.0-0.8.4; platforms/interface.py is_sleep_mode_available is PlatformEnum.CUDA in
    # 0.8.5-0.11.0), CUDA and ROCm from 0.11.1 (is_sleep_mode_available, read in the 0.11.1-0.34.0 wheels); kvplan's
    # GPU vendors: NVIDIA (CUDA), AMD (ROCm)
    "sleep_mode_vendors": [((0, 0, 0), ()), ((0, 7, 0), ("NVIDIA",)), ((0, 11, 1), ("NVIDIA", "AMD"))],
    # ... and the ValueError's text where it refuses: "Sleep mode is only supported on CUDA devices." (0.7.0-0.8.4
    # config.py), "Sleep mode is not supported on current platform." (0.8.5 config.py; config/model.py to 0.34.0)
    "sleep_mode_platform_refusal": [((0, 0, 0), "Sleep mode is only supported on CUDA devices."),
                                    ((0, 8, 5), "Sleep mode is not supported on current platform.")],
    # ... with expandable_segments:True in PYTORCH_CUDA_ALLOC_CONF: none of vLLM's own checks in 0.7.x (0.7.0-0.7.3
    # cumem.py); "refused": CuMemAllocator.__init__ asserts "Expandable segments are not compatible with memory pool."
    # (0.8.0-0.20.0 wheels' cumem.py), which load_model reaches before any weight; "off_in_pool": use_memory_pool turns
    # expandable segments off inside the pool and back on after it (0.20.1 cumem.py reads PYTORCH_CUDA_ALLOC_CONF;
    # device_allocator/alloc_conf.py current_alloc_conf from 0.31), so the weights load with the 2 MiB-block rounding
    "sleep_mode_expandable": [((0, 0, 0), "unchecked"), ((0, 8, 0), "refused"), ((0, 20, 1), "off_in_pool")],
    # ... where those checks look for expandable_segments:True: "PYTORCH_CUDA_ALLOC_CONF", a substring of that
    # variable alone (os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "") in cumem.py, read in the 0.8.0, 0.10.0, 0.14.0,
    # 0.20.0, 0.20.1, 0.21.0, 0.24.0, 0.27.0 and 0.30.0 wheels), so an allocator config given as PYTORCH_ALLOC_CONF
    # passes them and reaches PyTorch's MemPool; "live": the allocator's settings in effect, whichever variable set
    # them (device_allocator/alloc_conf.py current_alloc_conf, PYTORCH_ALLOC_CONF first; 0.31.0-0.34.0 wheels)
    "sleep_mode_expandable_seen": [((0, 0, 0), "PYTORCH_CUDA_ALLOC_CONF"), ((0, 31, 0), "live")],
    # --calculate-kv-scales deprecated: vLLM warns that it is (config/cache.py _warn_deprecated_calculate_kv_scales,
    # 0.19.0 wheel; absent from 0.18.0's) and turns it off for attention + Mamba/GDN hybrids (models/config.py
    # HybridAttentionMambaModelConfig, 0.19.0-0.27.0); the flag is gone from 0.28.0 (SERVE_FLAG_UNTIL)
    "calculate_kv_scales_deprecated": [((0, 0, 0), False), ((0, 19, 0), True)],
    # The line vLLM logs before "GPU KV cache size" where decode context parallelism multiplies the tokens counted from
    # blocks ({dcp}: --decode-context-parallel-size; PCP runs only from 0.26, after the line is gone, so its size is 1
    # here): v1/core/kv_cache_utils.py, 0.10.2-0.11.x wheels' dcp_world_size form, 0.12.0-0.20.0's cp_world_size form
    "dcp_multiplier_line": [((0, 0, 0), "Multiplying the GPU KV cache size by the dcp_world_size {dcp}."),
                            ((0, 12, 0), "Multiplying the GPU KV cache size by the cp_world_size {dcp} (pcp_world_size 1 "
                                         "* dcp_world_size {dcp}).")],
    # The allocator-config variables the PyTorch a release pins reads, in its order (the first one set wins): torch
    # 2.9.0 reads PYTORCH_ALLOC_CONF first and PYTORCH_CUDA_ALLOC_CONF as a deprecated fallback (c10/core
    # AllocatorConfig; its libc10 holds "PYTORCH_CUDA_ALLOC_CONF is deprecated, use PYTORCH_ALLOC_CONF instead", the
    # 2.8.0 libc10 has no PYTORCH_ALLOC_CONF). vLLM pins torch==2.8.0 in 0.11.0 and torch==2.9.0 from 0.11.1 (wheel
    # METADATA Requires-Dist, 0.11.0-0.12.0); earlier releases pin 2.5-2.8 (0.7.0: 2.5.1, 0.8.0: 2.6.0)
    "torch_alloc_conf_env": [((0, 0, 0), ("PYTORCH_CUDA_ALLOC_CONF",)),
                             ((0, 11, 1), ("PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF"))],
    # ... whether the weights load in the "weights" pool: Worker.load_model enters allocator.use_memory_pool(tag=
    # "weights") in 0.7.0-0.9.2 and _maybe_get_memory_pool_context(tag="weights") in 0.10.1-0.13.0; 0.14.0-0.16.x write
    # `with self._maybe_get_memory_pool_context(tag="weights") and set_current_vllm_config(...)`, which enters only the
    # second context (read in the 0.14.0, 0.15.0 and 0.16.0 wheels), so the weights load outside the pool; `with (..., ...)`
    # from 0.17.0 (vLLM PR #32947). The KV cache is allocated in the "kv_cache" pool in every release read
    # (initialize_from_config / initialize_cache)
    "sleep_mode_weights_in_pool": [((0, 0, 0), True), ((0, 14, 0), False), ((0, 17, 0), True)],
    # ... whether leaving a pool unmaps its free segments behind PyTorch's back (cumem.py use_memory_pool: "Find all
    # unused allocations and manually release them", absent from 0.7.0-0.10.2, present from 0.11.0): the caching
    # allocator still counts them in memory_reserved(), which the budget reads until 0.26 (budget_counts_runner_buffers
    # False: non-torch memory = device used - memory_reserved), so a load that frees whole segments in the pool (a
    # repack, online quantization) lowers the counted non-torch memory and vLLM sizes the KV pool larger than the GPU
    # holds (vLLM issues #37096, #40256: an AWQ 70B at TP2 on RTX 4090s logged 5.16 GiB of KV cache with sleep mode,
    # 3.17 without, then ran out of memory); from 0.27 memory_profiling charges total_consumed from mem_get_info
    "sleep_mode_pool_trim": [((0, 0, 0), False), ((0, 11, 0), True)],
    # --load-format: how a value the release does not take is refused. "argparse": choices=[f.value for f in
    # LoadFormat] (engine/arg_utils.py add_cli_args, 0.6.4-0.10.0 wheels), so `vllm serve` stops with argparse's
    # "invalid choice" (quoted choices as Python <= 3.12.7's argparse prints them; 3.12.8+ and 3.13.1+ print them
    # unquoted); "loader": from 0.10.1 the flag is a plain str (LoadConfig.load_format: str | LoadFormats,
    # lowercased by LoadConfig), and get_model_loader (model_executor/model_loader/__init__.py, 0.10.1-0.34.0 wheels)
    # raises ValueError "Load format `{value}` is not supported" when the worker loads the model (LOAD_FORMATS below)
    "load_format_refusal": [((0, 0, 0), "argparse"), ((0, 10, 1), "loader")],
    # --load-format bitsandbytes and --quantization bitsandbytes. "paired": EngineArgs (create_engine_config in the
    # 0.6.4-0.7.3 wheels, create_load_config in 0.8.0 and 0.8.1) refuses either without the other: "BitsAndBytes
    # quantization and QLoRA adapter only support 'bitsandbytes' load format, but got {load_format}" and "BitsAndBytes
    # load format and QLoRA adapter only support 'bitsandbytes' quantization, but got {quantization}". From 0.8.2
    # create_load_config sets load_format = "bitsandbytes" itself where quantization is bitsandbytes (read in 0.8.2-0.27.0),
    # and --load-format bitsandbytes alone builds unquantized layers that BitsAndBytesModelLoader._get_bnb_target_modules
    # finds nothing in: AssertionError with this text (model_loader/loader.py 0.8.2-0.8.5, bitsandbytes_loader.py
    # 0.9.0-0.27.0; "vllm" to 0.9.2, "vLLM" from 0.10.0). A pre-quantized bitsandbytes checkpoint picks the loader
    # itself from 0.8.4 (create_engine_config: model_config.quantization == "bitsandbytes")
    "bnb_load_format": [((0, 0, 0), "paired"), ((0, 8, 2), "vllm currently does not support BNB quantization for"),
                        ((0, 10, 0), "vLLM currently does not support BNB quantization for")],
    # A pre-quantized bitsandbytes checkpoint (its config's quantization_config) served with no flags: "flags": vLLM
    # 0.6.4-0.8.3 keep load_format auto, so DefaultModelLoader loads it and fails on the quant-state tensors (weight.absmax,
    # weight.quant_state.bitsandbytes__nf4: logs.py signature bnb_quant_state_key) unless --quantization bitsandbytes is
    # given (and --load-format bitsandbytes before 0.8.2: bnb_load_format); "auto": from 0.8.4 create_engine_config sets
    # quantization = load_format = "bitsandbytes" itself for it (engine/arg_utils.py, absent from the 0.8.3 wheel's,
    # present in 0.8.4's to 0.27.0's)
    "bnb_checkpoint_loader": [((0, 0, 0), "flags"), ((0, 8, 4), "auto")],
    # --load-format gguf on a model that is no GGUF file: GGUFModelLoader._prepare_weights raises ValueError with this
    # text ({model}: the model path), read in loader.py 0.6.4-0.8.5 and gguf_loader.py 0.9.0-0.23.0 (0.24.0 has no GGUF:
    # LOAD_FORMATS). A .gguf model takes load_format and quantization "gguf" whatever is given (EngineArgs
    # check_gguf_file / is_gguf, 0.6.4-0.23.0)
    "gguf_reference_refusal": [
        ((0, 0, 0), "{model} is not a file."),
        ((0, 10, 0), "Unrecognised GGUF reference: {model} (expected local file, raw URL, or <repo_id>/<filename>.gguf)"),
        ((0, 12, 0), "Unrecognised GGUF reference: {model} (expected local file, raw URL, <repo_id>/<filename>.gguf, "
                     "or <repo_id>:<quant_type>)"),
        ((0, 17, 0), "Unrecognised GGUF reference: {model} (expected local file, <repo_id>/<filename>.gguf, or "
                     "<repo_id>:<quant_type>)")],
    # Whether what the model runner allocates after the worker's init snapshot and outside the weight load and the
    # profile run (model runner v2's sampler state, plan.mrv2_sampler_state_bytes) shrinks the KV budget: from 0.27
    # memory_profiling charges total_consumed, the free memory lost since that snapshot (vllm/utils/mem_utils.py, read
    # in the 0.27.0 and 0.28.0 wheels); 0.26 and before charge weights + torch peak increase + non-torch increase, which
    # leave such torch tensors out (read in the 0.26.0 wheel)
    "budget_counts_runner_buffers": [((0, 0, 0), False), ((0, 27, 0), True)],
    # The multimodal rotary embedding caches 4 x max_position_embeddings positions for video inputs from 0.7.2
    # (layers/rotary_embedding.py, later rotary_embedding/mrope.py MRotaryEmbedding cache_max_position_num; read in
    # the 0.7.1, 0.7.2, 0.9.0.1, 0.19.0 and 0.27.1 wheels)
    "mrope_cache_factor": [((0, 0, 0), 1), ((0, 7, 2), 4)],
    # What a bitsandbytes 4-bit weight's double-quantized statistics occupy once loaded. Both ways in are double
    # quantized: a pre-quantized checkpoint that declares bnb_4bit_use_double_quant keeps its 8-bit absmax, float32
    # nested absmax and offset (bitsandbytes QuantState.from_dict, called by BitsAndBytesModelLoader
    # _quantized_4bit_generator), and vLLM's in-flight quantization calls bitsandbytes quantize_4bit(weight,
    # compress_statistics=True, quant_type="nf4") at its default 64-value blocks (_unquantized_generator: model_loader/
    # loader.py in the 0.6.3, 0.7.3 and 0.8.5 wheels, model_loader/bitsandbytes_loader.py in 0.9.2-0.27.0).
    # "kept": held as loaded, 1 B per 64 weights plus 4 B per 256 blocks (read in 0.6.3, 0.7.3, 0.8.5, 0.9.2).
    # "float32": from 0.10.0 BitsAndBytesModelLoader._dequantize_dq (called from _bind_quant_states_to_params for
    # every 4-bit quant state) dequantizes them at load to one float32 absmax per 64 weights, 4 B per 64, "at the cost
    # of increased memory usage" (read in 0.10.0, 0.10.1.1, 0.20.0, 0.27.0). The 0.28.0 wheel has no bitsandbytes.
    "bnb_nested_absmax": [((0, 0, 0), "kept"), ((0, 10, 0), "float32")],
    # The quantization methods vLLM refuses unless --allow-deprecated-quantization is given: ModelConfig.
    # _verify_quantization raises "The quantization method %s is deprecated and will be removed in future versions of
    # vLLM. To bypass, set `--allow-deprecated-quantization`." for a method in DEPRECATED_QUANTIZATION_METHODS
    # (model_executor/layers/quantization/__init__.py), the checkpoint's own quant_method included (it is read into
    # self.quantization before the check). The list, read in each wheel: none in 0.13.0 (no flag); 0.14.0 and 0.14.1;
    # 0.15.1; 0.16.0, 0.17.0, 0.17.1, 0.18.0; 0.19.0; 0.20.0, 0.21.0, 0.22.0; 0.23.0 through 0.33.0.
    "deprecated_quant_methods": [
        ((0, 0, 0), ()),
        ((0, 14, 0), ("deepspeedfp", "tpu_int8", "ptpc_fp8", "fbgemm_fp8", "fp_quant", "bitblas", "gptq_marlin_24",
                      "gptq_bitblas", "hqq", "experts_int8", "ipex", "auto-round", "rtn", "petit_nvfp4")),
        ((0, 15, 0), ("tpu_int8", "ptpc_fp8", "fbgemm_fp8", "fp_quant", "bitblas", "gptq_marlin_24", "gptq_bitblas",
                      "experts_int8", "ipex", "petit_nvfp4")),
        ((0, 16, 0), ("tpu_int8", "ptpc_fp8", "fbgemm_fp8", "fp_quant", "experts_int8", "petit_nvfp4")),
        ((0, 19, 0), ("tpu_int8", "fbgemm_fp8", "fp_quant", "experts_int8", "petit_nvfp4")),
        ((0, 20, 0), ("tpu_int8", "fbgemm_fp8", "fp_quant")),
        ((0, 23, 0), ("fbgemm_fp8", "fp_quant")),
        # 0.34.0 removes fp_quant (no layers/quantization/fp_quant.py, not in QuantizationMethods; QUANT_METHODS_READ)
        ((0, 34, 0), ("fbgemm_fp8",)),
    ],
    # Whether online FP8 (--quantization fp8 on a 16-bit checkpoint) first builds every Linear weight in the model
    # dtype on the GPU: Fp8LinearMethod.create_weights allocates torch.empty(..., dtype=params_dtype) for each layer
    # when the checkpoint is not FP8-serialized and quantizes after loading (layers/quantization/fp8.py, read in
    # 0.10.2, 0.12.0, 0.14.1 and 0.15.1, where a patched weight loader quantizes each layer as it fills but every
    # layer's 16-bit tensor was allocated at model init; vLLM's fp8 docs up to 0.6.x: "we load the model at original
    # precision before quantizing down to 8-bits, so you need enough memory to load the whole model"). From 0.16.0
    # Fp8OnlineLinearMethod / Fp8OnlineMoEMethod create the weights on the meta device and materialize one layer at a
    # time (uses_meta_device; read in 0.16.0, 0.17.1, 0.20.0).
    "online_fp8_loads_16bit": [((0, 0, 0), True), ((0, 16, 0), False)],
    # Whether online --quantization fp8 builds the attention layers with Fp8Config's Fp8KVCacheMethod (k/v scales, so
    # --kv-cache-dtype fp8_e5m2 is refused: plan.planner.kv_scales_method). From 0.31 get_quant_config reads it as
    # fp8_per_tensor, an OnlineQuantizationConfig whose get_quant_method gives attention layers none
    # (model_executor/model_loader/weight_utils.py, quantization/online/base.py, 0.33.0 wheel)
    "online_fp8_kv_scales": [((0, 0, 0), True), ((0, 31, 0), False)],
    # Whether --kv-cache-dtype fp8_e5m2 is refused for a compressed-tensors checkpoint that declares no
    # kv_cache_scheme (weight-only or weight-and-activation schemes alone): CompressedTensorsConfig.get_quant_method
    # gives every Attention layer a CompressedTensorsKVCacheMethod whatever the config declares, and up to 0.23
    # Attention.__init__ refuses e5m2 for any such method (attention/layer.py in the 0.7.0, 0.10.2, 0.12.0, 0.14.1,
    # 0.17.1 wheels; model_executor/layers/attention/attention.py in 0.20.0-0.23.0). From 0.24.0 it exempts a
    # compressed-tensors method without a kv_cache_scheme ("weight-only ones declare none and must keep fp8_e5m2, the
    # only fp8 KV dtype usable on Ampere": read in the 0.24.0-0.33.0 wheels). plan.planner.kv_scales_method.
    "ct_e5m2_refused_without_kv_scheme": [((0, 0, 0), True), ((0, 24, 0), False)],
    # Whether --quantization bitsandbytes quantizes MoE experts: BitsAndBytesConfig.get_quant_method returns a method
    # for LinearBase layers only up to 0.9.2 (FusedMoE keeps the model dtype), BitsAndBytesMoEMethod for FusedMoE from
    # 0.10.0 (layers/quantization/bitsandbytes.py; 4-bit in-flight only there)
    "bnb_quantizes_experts": [((0, 0, 0), False), ((0, 10, 0), True)],
    # Where a release builds a decoder layer's parts, where it differs from the newest (weights._LAYER_PATHS): the
    # names a checkpoint's skip list is asked about, as (model_type prefix, part, path under the layer). Gemma 4's
    # routed experts sat in Gemma4MoE, built by Gemma4DecoderLayer with prefix "{prefix}.moe" (so at
    # "layers.N.moe.experts") from its first release, 0.19.0, through 0.30.0; from 0.31.0 the layer builds the
    # FusedMoE itself with prefix "{prefix}.experts" (models/gemma4.py Gemma4DecoderLayer.__init__, read in 0.19.0,
    # 0.20.0, 0.20.2, 0.21.0-0.24.0, 0.26.0, 0.28.0-0.33.0). The fourth field names the path a checkpoint's entry may
    # still spell, which the model's hf_to_vllm_mapper rewrites onto the module before the list is read: from 0.28.0
    # through 0.30.0 Gemma4ForConditionalGeneration's mapper (_GEMMA4_EXPERT_PARENT_MAPPER, models/gemma4.py and
    # gemma4_mm.py) rewrites an entry ending ".experts" to ".moe.experts", which Fp8Config / ModelOptQuantConfig
    # apply_vllm_mapper apply to their lists (0.26.0 has no such mapper). MiniMax-M2 builds its block_sparse_moe with
    # prefix "{prefix}.mlp" in every release read (models/minimax_m2.py MiniMaxM2DecoderLayer, 0.14.1, 0.17.1,
    # 0.18.0-0.33.0): no row.
    # Whether compressed-tensors refuses a MoE layer whose expert 0 takes different schemes on gate_proj, up_proj and
    # down_proj (an ignore list naming only some of them): CompressedTensorsMoEMethod.get_moe_method asks
    # get_scheme_dict of "<experts>.0.gate_proj", ".0.up_proj", ".0.down_proj" (None where should_ignore_layer names it)
    # and raises ValueError "All MoE projections need to have same quantization scheme but found multiple"
    # (compressed_tensors_moe.py, read in 0.12.0-0.24.0, 0.26.0, 0.28.0-0.33.0). 0.10.2 and 0.11.0 match the experts
    # against the config group's targets only, not the ignore list (plan.defaults.ct_moe_mixed_schemes).
    "ct_moe_mixed_refusal": [((0, 0, 0), False), ((0, 12, 0), True)],
    # Whether a Linear layer that no compressed-tensors config group's targets name (and the ignore list does not name)
    # loads unquantized: CompressedTensorsConfig.get_scheme_dict returns None where find_matched_target finds no target
    # (compressed_tensors.py / compressed_tensors/utils.py, read in 0.21.0, 0.22.0, 0.23.0, 0.24.0, 0.30.0); before,
    # find_matched_target raises ValueError "Unable to find matching target for <layer> in the compressed-tensors
    # config." (read in 0.10.2, 0.20.0, 0.20.2), so such a checkpoint does not start (plan.defaults._ct_untargeted_layer;
    # the weight count: weights._ct_untargeted).
    "ct_untargeted_unquantized": [((0, 0, 0), False), ((0, 21, 0), True)],
    # Whether ModelOptQuantConfig.apply_vllm_mapper rewrites each exclude_modules entry "X*" (X not ending in ".") as
    # "X" and "X.*" before the list is read (modelopt.py, read in 0.13.0, 0.14.1, 0.17.1-0.24.0, 0.26.0, 0.28.0-0.33.0;
    # 0.12.0 has no such rewrite): is_layer_excluded then finds X by containment anywhere in a module's name, where
    # the shell pattern X* matched only names starting with X. vLLM calls it only for a model class with an
    # hf_to_vllm_mapper (model_loader/utils.py configure_quant_config; models/interfaces.py SupportsQuant):
    # has_hf_mapper, data/hf_mappers.json.
    "modelopt_exclude_split": [((0, 0, 0), False), ((0, 13, 0), True)],
    "layer_module_paths": [((0, 0, 0), (("gemma4", "moe", "moe", None),)), ((0, 28, 0), (("gemma4", "moe", "moe", ""),)),
                           ((0, 31, 0), ())],
    # From 0.24.0 AutoAWQConfig serves --quantization awq and awq_marlin alike and takes Marlin wherever
    # check_marlin_supported passes (auto_awq.py get_quant_method, 0.24.0/0.25.1/0.33.0 wheels); up to 0.23
    # AWQMarlinConfig.override_quantization_method claims the checkpoint unless --quantization awq was given ("... you
    # specified quantization=awq explicitly, so forcing awq", awq_marlin.py, 0.20.0/0.22.1/0.23.0 wheels;
    # plan.awq_linear_kernel)
    "awq_auto_marlin": [((0, 0, 0), False), ((0, 24, 0), True)],
    # A GPTQ checkpoint's dense Linear layers: which kernel vLLM's choose_mp_linear_kernel gives them (plan.kv.
    # gptq_linear_kernel), which decides whether the checkpoint's qzeros stay in the "Model loading took" figure.
    # --quantization gptq: up to 0.21 GPTQMarlinConfig.override_quantization_method leaves the checkpoint to the plain
    # GPTQ method ("... you specified quantization=gptq explicitly, so forcing gptq", gptq_marlin.py, 0.21.0 wheel); from
    # 0.22.0 AutoGPTQConfig serves "gptq", "gptq_marlin", "auto_gptq" and "marlin" alike through the kernel choice
    # (auto_gptq.py override_quantization_method, quantization/__init__.py method map, 0.22.0, 0.23.0, 0.27.1 wheels).
    "gptq_flag_auto_kernel": [((0, 0, 0), False), ((0, 22, 0), True)],
    # MarlinLinearKernel.get_min_capability: 80 (kernels/mixed_precision/marlin.py, 0.6.3.post1-0.13.0 wheels), 75 from
    # 0.14 (0.14.1, 0.20.2, 0.27.1, 0.33.0, 0.34.0 wheels; kernels/linear/mixed_precision/marlin.py from 0.20)
    "marlin_linear_min_cc": [((0, 0, 0), (8, 0)), ((0, 14, 0), (7, 5))],
    # MacheteLinearKernel, tried before Marlin (_POSSIBLE_KERNELS, every release read 0.6.3.post1-0.34.0): (which
    # compute capabilities it takes, its group sizes). "from_90": get_min_capability 90 and no other device check
    # (0.6.3.post1, 0.8.5.post1, 0.9.2 wheels), "only_90": can_implement asks is_device_capability(90) (0.10.2, 0.14.1,
    # 0.20.2, 0.27.1, 0.33.0, 0.34.0; 0.10.0-0.10.1.1 not read). Group sizes MACHETE_SUPPORTED_GROUP_SIZES [-1, 128]
    # (machete_utils.py, 0.6.3.post1, 0.8.5.post1), query_machete_supported_group_sizes [-1, 64, 128] for float16 /
    # bfloat16 activations from 0.9.2. Its shape check: per-rank in_features a multiple of 64, out_features of 128
    # (check_machete_supports_shape, MACHETE_PREPACKED_BLOCK_SHAPE).
    "gptq_machete": [((0, 0, 0), ("from_90", (-1, 128))), ((0, 9, 2), ("from_90", (-1, 64, 128))),
                     ((0, 10, 2), ("only_90", (-1, 64, 128)))],
    # AllSparkLinearKernel, between Machete and Marlin: 8-bit (uint8b128) per-channel weights on compute capability
    # 8.0-8.9 (allspark_utils.py check_allspark_supported_dtype_shape; 0.8.5.post1, 0.9.2, 0.10.2, 0.14.1, 0.20.2, 0.27.1
    # wheels; not in 0.7.3's or 0.31.0's kernel lists; 0.8.0-0.8.4 and 0.28-0.30 not read)
    "gptq_allspark": [((0, 0, 0), False), ((0, 8, 5), True), ((0, 31, 0), False)],
    # Whether a symmetric GPTQ checkpoint's qzeros count in "Model loading took" where MarlinLinearKernel serves the
    # dense Linear layers. GPTQ-Marlin builds the kernel with zero_points=False (gptq_marlin.py / auto_gptq.py
    # create_weights; GPTQMarlinConfig.TYPE_MAP holds symmetric types only), so MarlinLinearKernel.
    # process_weights_after_loading replaces the loaded qzeros by an empty int32 Parameter (setattr(layer, w_zp_name,
    # marlin_make_empty_g_idx(device)): 0.6.3.post1, 0.6.4.post1, 0.7.3, 0.8.5.post1, 0.9.2, 0.10.2, 0.14.1, 0.20.2,
    # 0.27.1 wheels; marlin_make_empty in 0.33.0), and the g_idx too without act order (up to 0.32; 0.33.0 registers
    # none). That runs inside the loader's load_model (model_loader/loader.py _process_weights_after_loading up to
    # 0.8.5, base_loader.py process_weights_after_loading from 0.10.2), inside the DeviceMemoryProfiler around the
    # runner's load_model, and that profiler reads torch.cuda.max_memory_allocated right after
    # reset_peak_memory_stats (platforms/cuda.py get_current_memory_usage; gc.collect() first from 0.10.2): bytes held
    # by live tensors, so the freed qzeros are not in the figure. From 0.34.0 the kernel retires them instead
    # (MPLinearKernel._retire_unused_zp -> model_executor/utils.py retire_parameter: "It stays registered with its
    # loaded data (so it can be loaded again)") and registers a separate empty w_zp: they count again. Machete,
    # AllSpark and the Exllama / plain GPTQ kernels never drop them (machete.py, allspark.py transform qzeros only with
    # zero points; exllama.py builds a same-sized zeros tensor). GPTQ-Marlin MoE keeps the experts' w13/w2_qzeros
    # (gptq_marlin.py GPTQMarlinMoEMethod.process_weights_after_loading leaves them, 0.8.5.post1; auto_gptq.py
    # AutoGPTQMoEMethod.process_weights_after_loading re-registers them converted, 0.33.0).
    "gptq_marlin_zeros_kept": [((0, 0, 0), False), ((0, 34, 0), True)],
    # MLA keeps a model-dtype copy of a quantized kv_b_proj: process_weights_after_loading dequantizes it
    # (get_and_maybe_dequant_weights: "we currently do not have quantized bmm's which are needed for `W_UV` and
    # `W_UK_T`, we just store fp16/bf16 copies") and keeps W_UV / W_UK_T as views of that copy, inside the model load
    # vLLM measures. Read in the 0.8.2 wheel (attention/backends/mla/common.py for V0, v1/attention/backends/mla/
    # common.py for V1), 0.11.0 (v1/attention/backends/mla/common.py), 0.20.0 and 0.33.0
    # (model_executor/layers/attention/mla_attention.py; 0.33 through split_kv_b_proj and replace_parameter). Only
    # ROCm's AITER FP8/FP4 BMM paths (VLLM_ROCM_USE_AITER, off by default) requantize it instead. Not read before 0.8.2
    # (0.7.x absorbed the matrices into the q and o projections), so the row starts there.
    "mla_kv_b_copy": [((0, 0, 0), False), ((0, 8, 2), True)],
    # Whether the Marlin MoE weight prep pads a fused-MoE layer's per-rank intermediate size that the kernel's thread
    # tiles do not take (gate_up N = 2 x I a multiple of 128, down K = I a multiple of 64) up to a multiple of
    # lcm(64, group size), zero-filling the weights, scales and zero points (quantization/utils/marlin_utils.py
    # marlin_moe_padded_intermediate; fused_moe/oracle/int_wna16.py _process_weights_marlin for GPTQ / compressed-tensors
    # and the AWQ variant; marlin_utils_fp8.py prepare_fp8_moe_layer_for_marlin for FP8 weight-only on GPUs without FP8
    # compute). The WNA16 methods first ask check_moe_marlin_supports_layer with allow_tile_padding, which still wants
    # the hidden size a multiple of 128 and the per-rank size a multiple of the group (auto_awq.py, auto_gptq.py,
    # compressed_tensors_moe get_moe_method). Before 0.25.0 a misaligned layer failed that check and took the Moe WNA16
    # / non-Marlin method, which keeps the checkpoint's shapes (0.24.0 wheel: no marlin_moe_padded_intermediate). "":
    # no padding; "no_actorder": act-order checkpoints (GPTQ desc_act, compressed-tensors actorder group/dynamic) keep
    # the strict check (allow_tile_padding=not desc_act / not is_actorder: 0.25.0, 0.25.1, 0.26.0, 0.27.0, 0.27.1,
    # 0.28.0, 0.29.0 wheels); "all": every Marlin MoE layer (allow_tile_padding=True: 0.30.0, 0.31.0, 0.32.0, 0.33.0).
    # weights.marlin_moe_width; plan.marlin_moe_experts.
    "marlin_moe_tile_pad": [((0, 0, 0), ""), ((0, 25, 0), "no_actorder"), ((0, 30, 0), "all")],
    # Whether the dense Marlin kernels pad a Linear layer's per-rank N / K to a thread-tile family instead of refusing
    # it: from 0.24.0 marlin_utils.py marlin_padded_nk rounds (N, K) up to the cheaper of (N % 64, K % lcm(128, group))
    # and (N % 128, K % lcm(64, group)), zero-filling the weight, scales and zero points (MarlinLinearKernel
    # process_weights_after_loading, kernels/linear/mixed_precision/marlin.py, for AWQ, GPTQ and compressed-tensors
    # WNA16; prepare_fp8_layer_for_marlin, marlin_utils_fp8.py, for FP8 weight-only on GPUs without FP8 compute;
    # 0.24.0 and 0.30.0 wheels, absent from 0.23.0). An act-order layer (g_idx) keeps the strict check
    # (MarlinLinearKernel.can_implement -> check_marlin_supports_shape), and a group straddling the TP split is still
    # refused; before 0.24.0 every misaligned layer fails verify_marlin_supports_shape ("... is not divisible by
    # min_thread_n = 64" / "min_thread_k = 128": logs.py marlin_shape). plan.marlin_dense_group, weights.marlin_dense_pad.
    "marlin_dense_tile_pad": [((0, 0, 0), False), ((0, 24, 0), True)],
    # The model types whose MTP drafter builds its fc (the 2H -> H projection) without the quant_config when the
    # checkpoint is ModelOpt NVFP4 (quant_config.get_name() == "modelopt_fp4": fc_quant = None, "mtp.fc is stored as
    # BF16 in NVFP4 checkpoints but is missing from hf_quant_config.json exclude_modules", vLLM PR #38650): Qwen3.5 from
    # 0.20.0 (models/qwen3_5_mtp.py; 0.17.1-0.19.0 pass quant_config), Qwen3-Next from 0.25.0 (qwen3_next_mtp.py,
    # "mirroring the Qwen3.5 MTP handling (PR #38832)"; 0.17.1-0.24.0 pass quant_config); read through 0.33.0.
    # Every other method quantizes it unless the skip list names mtp.fc (weights.mtp_components).
    "mtp_fc_nvfp4_unquantized": [((0, 0, 0), ()), ((0, 20, 0), ("qwen3_5",)), ((0, 25, 0), ("qwen3_5", "qwen3_next"))],
    # The model types whose MTP drafter builds its fc without any quant_config, whatever the checkpoint's method: 0.10.2's
    # Qwen3-Next drafter (models/qwen3_next_mtp.py Qwen3NextMultiTokenPredictor: ColumnParallelLinear(2H, H,
    # gather_output=True, bias=False, return_bias=False), no quant_config, read in the 0.10.2 wheel); from 0.11.0 it passes
    # quant_config=quant_config (0.11.0, 0.12.0, 0.13.0, 0.14.1, 0.15.1, 0.16.0, 0.17.1, 0.20.0 wheels).
    "mtp_fc_unquantized": [((0, 0, 0), ("qwen3_next",)), ((0, 11, 0), ())],
    # Whether compressed-tensors asks a MoE layer's experts of the ignore list: from 0.12.0
    # CompressedTensorsMoEMethod.get_moe_method asks get_scheme_dict of expert 0's gate_proj / up_proj / down_proj
    # (should_ignore_layer, then the targets; an ignored set runs unquantized). Before, it takes
    # target_scheme_map["Linear"]'s scheme for every MoE layer whatever the ignore list names (compressed_tensors_moe.py,
    # read in 0.7.3, 0.9.2, 0.10.2, 0.11.0, 0.11.1, 0.11.2: "TODO ... check if the layer is being ignored"; from 0.10.2
    # a config without a "Linear" target falls back to a target matching re:.*down_proj.* and the like).
    # weights_per_rank(ct_experts_ignore).
    "ct_moe_ignore_read": [((0, 0, 0), False), ((0, 12, 0), True)],
    # The order in which compressed-tensors' find_matched_target tries a layer against the config groups' targets:
    # its own name, then its class by containment ("Linear" names every Linear layer), then a fused layer by its shards
    # (_match_fused_layer) up to 0.26.0 (compressed_tensors/utils.py, read in 0.10.2, 0.12.0, 0.17.1, 0.21.0, 0.24.0,
    # 0.26.0); from 0.27.0 the shards before the class (0.27.0, 0.28.0, 0.29.0, 0.33.0). Where one group names
    # q_proj / k_proj / v_proj and another "Linear", qkv_proj takes the "Linear" group's scheme before 0.27.0 and the
    # shards' from it. weights.ct_matched_target (fused_first).
    "ct_fused_match_first": [((0, 0, 0), False), ((0, 27, 0), True)],
    # The methods whose skip list is asked shard by shard for a fused layer (qkv_proj, gate_up_proj), refusing one that
    # names some shards and not the others: quantization/utils/quant_utils.py is_layer_skipped raises "Detected some but
    # not all shards of <layer> are quantized. All shards of fused layers to have the same precision." Fp8Config asks
    # it in every release read (fp8.py get_quant_method: 0.6.6.post1 with the static FUSED_LAYER_NAME_MAPPING, 0.10.2,
    # 0.12.0, 0.20.0, 0.33.0 with the model's packed_modules_mapping); AWQ from 0.12.0 (awq.py / awq_marlin.py
    # get_quant_method, skip_with_substr=True; auto_awq.py match_mode="substring" in 0.24.0-0.33.0), before it
    # is_layer_skipped_awq (0.10.2, 0.11.0), which asks the fused name alone. compressed-tensors refuses with its own
    # message (should_ignore_layer: plan.defaults._mixed_fused_shards); bitsandbytes asks the fused name alone
    # (is_layer_skipped_bnb, every release read). plan.defaults._mixed_fused_shards.
    "fused_skip_refusal": [((0, 0, 0), ("fp8",)), ((0, 12, 0), ("fp8", "awq"))],
    # Whether is_layer_skipped asks a fused layer's own name before its shards: from 0.24.0 an entry naming the fused
    # layer ("self_attn.qkv_proj"; for AWQ by substring, so "v_proj" names "qkv_proj") skips it whole whatever the
    # shards say (quant_utils.py, "Honor that fused-name match first": 0.24.0, 0.29.0, 0.33.0; absent from 0.12.0,
    # 0.20.0, 0.21.0, 0.22.0, 0.23.0, where the shards alone decide and may refuse). plan.defaults._mixed_fused_shards.
    "fused_skip_name_first": [((0, 0, 0), False), ((0, 24, 0), True)],
    # The V0 MLA backend of 0.7.1-0.7.3 absorbs the projections at load (attention/backends/mla/utils.py,
    # MLACommonImpl.process_weights_after_loading, read in the 0.7.1, 0.7.2 and 0.7.3 wheels; envs.py
    # VLLM_MLA_PERFORM_MATRIX_ABSORPTION, default "1"): W_Q_UK = einsum(W_Q, W_UK) and W_UV_O = einsum(W_UV, W_O) are new
    # model-dtype tensors beside the raw q_proj / kv_b_proj / o_proj, which prefill still uses, and W_QR (the rope
    # columns of q_proj) a contiguous copy; an FP8 layer's products are requantized to FP8 (unless
    # VLLM_MLA_DISABLE_REQUANTIZATION=1) and its kv_b_proj dequantized copy stays alive as W_UK / W_UV
    # (weights.weights_per_rank mla_absorbed, mla_requantize). The 0.8.0 wheel has no W_Q_UK /
    # W_UV_O anywhere (V0 and V1 MLA keep W_UK_T / W_UV views of kv_b_proj), so the row ends there.
    "mla_absorbed_weights": [((0, 0, 0), False), ((0, 7, 1), True), ((0, 8, 0), False)],
    # From 0.32 the Qwen3-VL and Qwen3.5/3.6 decoder layers pass get_rope a positions factor of 1 (4 only with video
    # pruning, --video-pruning-rate > 0: models/qwen3_vl.py mrope_positions_factor, used by qwen3_vl_moe.py and
    # qwen3_5.py Qwen3_5DecoderLayer; rotary_embedding/mrope.py cache_max_position_num = max_position_embeddings x
    # positions_factor), so their cos/sin cache holds max_position_embeddings positions; read in the 0.31.0 (absent),
    # 0.32.0 and 0.33.0 wheels
    "qwen3_mrope_positions_one": [((0, 0, 0), False), ((0, 32, 0), True)],
    "mm_video_padding": [((0, 0, 0), False), ((0, 11, 0), True), ((0, 13, 0), False)],
    # Qwen3-VL's deepstack input buffers, allocated while the model is built (models/qwen3_vl.py
    # Qwen3VLForConditionalGeneration.__init__ "register buffer for deepstack", which qwen3_vl_moe.py shares; read in
    # the 0.11.0, 0.12.0, 0.17.0-0.20.0 and 0.33.0 wheels): none before 0.11 (plan.deepstack_buffer_bytes)
    "qwen3_vl_deepstack_buffers": [((0, 0, 0), False), ((0, 11, 0), True)],
    # Qwen2/2.5-VL's profiled item with video and image allowed: from 0.11 a video of up to 14 frames sized from
    # max_model_len (qwen2_vl.py get_mm_max_tokens_per_item), which outnumbers the image past 16K tokens
    "qwen2_vl_video_profile": [((0, 0, 0), False), ((0, 11, 0), True)],
    # Which multimodal models skip building their vision tower in text-only mode (every modality's limit 0, or
    # --language-model-only): Qwen2.5-VL and Qwen3-VL from 0.10.1 (multimodal/registry.py "running in text-only mode",
    # their model classes), every tower marked with _mark_tower_model from 0.15 (model_executor/models/interfaces.py)
    "mm_text_only_towers": [((0, 0, 0), "none"), ((0, 10, 1), "qwen2_5_qwen3"), ((0, 15, 0), "all")],
    # A multimodal prefix-LM (plan._is_mm_prefix_lm) with multimodal inputs configuration-disabled is no prefix-LM to
    # vLLM from 0.27.0 (ModelConfig._supports_multimodal_for_mm_prefix, "Disabled mm_prefix attention mode because
    # multimodal inputs are configuration-disabled"; absent from 0.26.0)
    "mm_prefix_lm_text_only_off": [((0, 0, 0), False), ((0, 27, 0), True)],
    # For a multimodal prefix-LM vLLM raises its own max_num_batched_tokens default to the largest multimodal item
    # (engine/arg_utils.py _set_default_max_num_seqs_and_batched_tokens_args -> EngineArgs._get_min_mm_batched_tokens,
    # vLLM PR #43051; read in the 0.22.0, 0.25.1 and 0.33.0 wheels, absent from 0.21.0)
    "mm_prefix_lm_batched_tokens_raise": [((0, 0, 0), False), ((0, 22, 0), True)],
    # ... and refuses a max_num_batched_tokens below the largest item it will not chunk (v1/core/encoder_cache_manager.py
    # compute_mm_encoder_budget "Chunked MM input disabled but max_tokens_per_mm_item (...) is larger than
    # max_num_batched_tokens (...)", read in 0.22.0 and 0.33.0; vllm-project/recipes issue #441 shows it before 0.22,
    # which kvplan does not apply: those releases were not read)
    "mm_prefix_lm_item_refusal": [((0, 0, 0), False), ((0, 22, 0), True)],
    # How many items of the profiled modality (T tokens each) the V1 profile run encodes, budget = max(
    # max_num_batched_tokens, T) (compute_encoder_budget), limit = --limit-mm-per-prompt (999 unset on V1):
    # "ceil": min(cdiv(budget, T), max_num_seqs x limit) (v1/worker/gpu_model_runner.py profile_run, read in the 0.8.5,
    # 0.9.0, 0.9.0.1 and 0.9.2 wheels); "floor": max(1, min(budget // T, max_num_seqs x limit)) (0.10.0 wheel);
    # "per_prompt": the per-prompt count is max(1, min(limit, max_model_len // T)) (v1/worker/utils.py
    # MultiModalBudget.get_max_items, 0.10.1 wheel; multimodal/encoder_budget.py in later ones)
    "mm_profile_items": [((0, 0, 0), "ceil"), ((0, 10, 0), "floor"), ((0, 10, 1), "per_prompt")],
    # Float32 pixel tensors Llama-3.2-Vision (mllama) holds through the V0 profile's vision pass: 2 up to 0.7.2 (the
    # batched model input and MllamaForConditionalGeneration._parse_and_validate_image_input's float32 out_images
    # copy, models/mllama.py in the 0.6.3, 0.6.6.post1, 0.7.0, 0.7.1 and 0.7.2 wheels, whose dummy image is 1024 x
    # 1024), 1 from 0.7.3 (the multimodal processor's batched pixel_values are used as given: 0.7.3 wheel, and
    # unpack_data returns a stacked tensor unchanged in 0.8.5-0.10.0)
    "mllama_v0_pixel_copies": [((0, 0, 0), 2), ((0, 7, 3), 1)],
    "mm_pixels_held": [((0, 0, 0), True), ((0, 33, 0), False)],
    # Whether Pixtral's vision tower (Pixtral-12B, Mistral-Small-3.1/3.2) attends through a materialised
    # patches x patches block-diagonal mask: models/pixtral.py uses xformers' BlockDiagonalMask (no mask tensor) when
    # xformers imports, else transformers' generate_block_attention_mask, one (patches, patches) tensor in the
    # activation dtype passed to SDPA (VisionTransformer.forward and PixtralHFVisionModel.forward, read in the 0.10.2 and
    # 0.19.0 wheels). xformers is a vLLM dependency up to 0.11 (the 0.10.1.1 and 0.11.0 wheels' METADATA:
    # "Requires-Dist: xformers==0.0.32.post1"), not from 0.12.0 (0.12.0 and 0.19.0 METADATA: none; pixtral.py "vLLM
    # does not install xformers by default")
    "pixtral_sdpa_mask": [((0, 0, 0), False), ((0, 12, 0), True)],
    # ... and whether that tower attends over its packed patches by sequence lengths instead, with no mask at all: the
    # 0.33.0 and 0.34.0 wheels' models/pixtral.py runs MMEncoderAttention with cu_seqlens (the varlen FlashAttention ViT
    # backend on CUDA, platforms/cuda.py get_vit_attn_backend; TORCH_SDPA splits by cu_seqlens,
    # v1/attention/ops/vit_attn_wrappers.py vit_torch_sdpa_wrapper). The releases between 0.19 and 0.33 were not read
    # for this, so the step sits at the first read release that has it
    "pixtral_packed_attention": [((0, 0, 0), False), ((0, 33, 0), True)],
    # The block sizes NVIDIA's standard attention kernels take (AttentionBackend.get_supported_kernel_block_sizes,
    # checked by supports_block_size / validate_configuration "block_size not supported", v1/attention/backend.py;
    # read in the 0.16.0-0.28.0 wheels): FlashAttention and Triton MultipleOf(16), FlashInfer 16/32/64; FlexAttention
    # comes last in platforms/cuda.py's priority list. 0 where not read (before 0.16)
    "attention_block_multiple": [((0, 0, 0), 0), ((0, 16, 0), 16)],
    # FlexAttention's own: the base class's MultipleOf(1) up to 0.20 (no override in the 0.19.0 and 0.20.0 wheels'
    # v1/attention/backends/flex_attention.py), so a --block-size off the multiples of 16 runs on it; MultipleOf(16)
    # from 0.21.0 (FlexAttentionBackend.get_supported_kernel_block_sizes, read in the 0.21.0-0.33.0 wheels), so no
    # backend is valid and CudaPlatform.get_attn_backend_cls (platforms/cuda.py) raises "No valid attention backend
    # found". 0 where not read
    "flex_attention_block_multiple": [((0, 0, 0), 0), ((0, 16, 0), 1), ((0, 21, 0), 16)],
    # The KV-cache dtypes FlexAttention stores (FlexAttentionBackend.supported_kv_cache_dtypes, v1/attention/backends/
    # flex_attention.py): auto and bfloat16 in the 0.16.0 and 0.17.0 wheels, auto, float16 and bfloat16 in the 0.18.0
    # and 0.19.0-0.33.0 wheels; the same validate_configuration (v1/attention/backend.py) checks it in each. With an fp8
    # KV cache and a block size only it takes, no backend is valid: the same "No valid attention backend found"
    "flex_attention_kv_dtypes": [((0, 0, 0), ()), ((0, 16, 0), ("auto", "bfloat16")),
                                 ((0, 18, 0), ("auto", "float16", "bfloat16"))],
    # The dummy (and real) pixel values reach the GPU in the model's dtype from 0.9.0: MultiModalKwargs.as_kwargs takes
    # a dtype and casts floating-point inputs to model_config.dtype before the copy to the device (multimodal/inputs.py;
    # the callers v1/worker/gpu_model_runner.py profile_run and worker/model_runner.py execute_model pass
    # self.model_config.dtype; read in the 0.9.0 and 0.9.0.1 wheels, absent from 0.8.5, whose as_kwargs takes only a
    # device). From 0.9.1 the HF processor's outputs are cast instead (vLLM PR #18862, inputs/registry.py
    # InputProcessingContext.call_hf_processor in the 0.9.1 wheel; multimodal/processing/context.py _postprocess_output
    # in the 0.19.0 and 0.27.1 wheels). Up to 0.8.5 they stay the processors' float32 on the GPU
    "mm_pixels_model_dtype": [((0, 0, 0), False), ((0, 9, 0), True)],
    "dsv4_rocm_logit_rows": [((0, 0, 0), "tokens"), ((0, 30, 0), "seqs")],
    "dsv4_indexer_factor": [((0, 0, 0), "fixed"), ((0, 32, 0), "by_length")],
    # Whether the release's DeepSeek-V4 sparse-attention buffers are among those read (the 0.28-0.33 wheels, above):
    # older releases get them as read there, said so (plan._dsv4_workspace_bytes)
    "dsv4_sparse_buffers_read": [((0, 0, 0), False), ((0, 28, 0), True)],
    # DeepSeek-V4 is served from 0.20 (read in the 0.20-0.33 wheels, v1/core/kv_cache_utils.py; rules row
    # dsv4_accounting)
    "deepseek_v4_served": [((0, 0, 0), False), ((0, 20, 0), True)],
    # DeepSeek-V3.2 (sparse MLA), read in the 0.11-0.33 wheels (models/deepseek_v2.py, v1/core/kv_cache_utils.py,
    # v1/attention/backends/mla/indexer.py and flashmla_sparse.py, layers/sparse_attn_indexer.py; models/config.py,
    # mla_attention.py and platforms/cuda.py for the cache layout): served from 0.11;
    "sparse_mla_served": [((0, 0, 0), False), ((0, 11, 0), True)],
    # its latent cache in the fp8_ds_mla layout (656 B a token) whatever the cache dtype in 0.11.0, only for an fp8
    # cache from 0.11.1 ("by_dtype"; bf16 576 x 2 otherwise);
    "sparse_mla_cache_layout": [((0, 0, 0), "fp8_ds_mla"), ((0, 11, 1), "by_dtype")],
    # FlashInfer's sparse MLA on Blackwell (cc 10.x) with an fp8 cache, 576 B a token, from 0.33;
    "sparse_mla_flashinfer_blackwell": [((0, 0, 0), False), ((0, 33, 0), True)],
    # the lightning indexer's profile buffers: up to 0.12 a 2 L x 132 B indexer stand-in, from 0.13 one shared
    # workspace (the larger of the indexer's keys and FlashMLA's bf16 prefill buffers);
    "sparse_mla_shared_workspace": [((0, 0, 0), False), ((0, 13, 0), True)],
    # its factor 5, from 0.32 sparse_mla_prefill_workspace_factor (5 up to 256K tokens, else 2; config/vllm.py);
    "sparse_mla_workspace_factor": [((0, 0, 0), "fixed"), ((0, 32, 0), "by_length")],
    # FlashMLA's prefill q_concat, T x heads x 576 in bf16, from 0.18;
    "sparse_mla_prefill_q_concat": [((0, 0, 0), False), ((0, 18, 0), True)],
    # its per-token buffers, T x 64 (heads padded to 64) x 576 in bf16, from 0.31;
    "sparse_mla_prefill_token_buffers": [((0, 0, 0), False), ((0, 31, 0), True)],
    # a 512 MiB logits buffer from 0.19;
    "sparse_mla_logits_buffer": [((0, 0, 0), False), ((0, 19, 0), True)],
    # with TP > 1 a 2 x T x index_topk fp32 exchange from 0.32
    "sparse_mla_tp_topk_exchange": [((0, 0, 0), False), ((0, 32, 0), True)],
    # Whether a compiling (cold) start's memory profile holds a random copy of the input-embedding table: vLLM sets
    # Inductor's combo_kernels and benchmark_combo_kernel when neither is given and torch >= 2.9
    # (config/compilation.py CompilationConfig.__post_init__, read in the 0.11.1, 0.11.2, 0.12.0-0.16.0 and
    # 0.17.0-0.33.0 wheels; absent from the 0.10.2 and 0.11.0 wheels; 0.32+ leave the benchmark off under Inductor's
    # deterministic mode), and Inductor then benchmarks the candidate kernels on `get_args()` tensors, rand_strided
    # copies of every buffer argument at its size hint, the embedding gather's weight included (torch 2.13
    # _inductor/codegen/triton.py TritonScheduling.benchmark_fused_nodes / benchmark_codegened_module,
    # codegen_kernel_benchmark; scheduler.py Scheduler.speedup_by_combo_kernel), inside the profile's first forward.
    # plan.cold_start_pool_loss_bytes gives the bytes
    "cold_compile_embedding_copy": [((0, 0, 0), False), ((0, 11, 1), True)],
    # Whole prompt must fit at admission from 0.19 (section 6).
    "admit_whole_prompt": [((0, 0, 0), True), ((0, 8, 0), False), ((0, 19, 0), True)],
}


# The weights term of the KV budget: what the memory profile subtracts for the weights (vllm-memory-model.md section
# 1.3). "load_measure": the load's DeviceMemoryProfiler.consumed_memory, the very figure logged as 'Model loading
# took' (memory_profiling(weights_memory=model_runner.model_memory_usage), non_kv_cache_memory = non_torch_increase
# + torch_peak_increase + weights_memory, available = requested - non_kv_cache_memory): V1's
# v1/worker/gpu_worker.py Worker.determine_available_memory from 0.9.1 (read in the 0.9.1, 0.9.2, 0.10.2, 0.12.0,
# 0.15.0, 0.20.2, 0.21.0 and 0.26.0 wheels; utils memory_profiling, vllm/utils/mem_utils.py from 0.12) and V0's
# worker/worker.py Worker.determine_num_available_blocks (era V0-c, read in the 0.7.3, 0.8.5, 0.9.2 and 0.10.2
# wheels; versions.as_v0_engine). "torch_peak": torch's absolute allocated peak plus the non-torch memory after
# empty_cache, which holds the allocated weights and never the load's figure (V0-b; V1-a: gpu_worker.py
# determine_available_memory in the 0.7.3, 0.8.5 and 0.9.0 wheels). "init_free_delta": the free memory lost since
# init_device (V0-a). "total_consumed": the free memory lost since the init snapshot after empty_cache (V1-f:
# mem_utils.py memory_profiling total_consumed, 0.27.0 wheel; weights_memory is only printed). On CUDA the load's
# figure is torch's allocated bytes, so the term is the weights as planned; on ROCm where rocm_weights_log_measure is
# "device_used" (0.7.3-0.20.2), "load_measure" subtracts the cached blocks and temporaries the load left in the
# caching allocator (which the empty_cache before the profile then frees) and the non-torch memory the load grew
# (which non_torch_increase, counted from the snapshot before the load, holds again), so the KV pool is smaller than
# the plan's by as much as the logged figure exceeds the planned weights, memory kvplan cannot size (plan note,
# planner.rocm_weights_log_note; reconcile names it where a log shows it)
# The term is one of the memory-accounting era (rules row era; the releases above are those of its steps): V0-a
# init_free_delta, V0-b and V1-a torch_peak, V0-c and V1-b to V1-e load_measure, V1-f total_consumed.
# VersionRules.budget_weights_term reads it from the era, so a V0 engine's era (as_v0_engine) carries its term.
BUDGET_WEIGHTS_TERM_BY_ERA: dict[str, str] = {
    "V0-a": "init_free_delta", "V0-b": "torch_peak", "V0-c": "load_measure", "V1-a": "torch_peak",
    "V1-b": "load_measure", "V1-c": "load_measure", "V1-d": "load_measure", "V1-e": "load_measure",
    "V1-f": "total_consumed",
}


@dataclass(frozen=True, init=False)
class VersionRules:
    """The startup rules of one vLLM release, folded from the table."""

    version: str
    release: V
    engine: str
    v0_engine_shipped: bool
    use_v1_env_read: bool
    era: str
    default_gpu_memory_utilization: float
    kv_pool_sizing: str
    kv_cache_sizing_warmup: bool
    gpu_blocks_override: str
    extensible_gpu_memory_utilization: float | None
    requested_is_ceil: bool
    cudagraph_subtracted: bool
    cudagraph_subtracted_rocm: bool
    cudagraph_rocm_cost: str
    rocm_weights_log_measure: str
    nccl_charged: bool
    custom_allreduce_buffer_mib: tuple
    custom_allreduce_world_sizes: tuple
    custom_allreduce_rocm: tuple
    allreduce_out_of_place: bool
    other_tenants: str
    tokens_formula: str
    uniform_spec_tokens_block: str
    dcp_attention: str
    dcp_refusal_form: str
    dcp_fp8_mla_asserts: bool
    pcp_support: str
    pcp_refuses_dp: bool
    cp_interleave_source: str
    cp_interleave_check_skipped_for: str
    cp_interleave_mtp_check: str
    config_file_model: str | None
    config_file_false: str | None
    config_file_map: str | None
    window_inflight: str
    async_scheduling_default: str
    async_scheduling_pp: bool
    async_scheduling_spec_methods: object
    async_scheduling_limits_runner: str
    async_scheduling_pooling_default: bool
    async_scheduling_mamba_prefix: bool
    null_block_in_fit_check: bool
    state_blocks_refuse_max_num_seqs: bool
    spec_decode_piecewise_recurrent_kinds: tuple[str, ...]
    spec_decode_piecewise_fp8_kv_cc_majors: tuple[int, ...]
    cudagraph_max_size_spec_query: bool
    cudagraph_max_size_cc10: int
    cudagraph_capture_max_tokens: bool
    cudagraph_size_grid: str
    compilation_capture_sizes_whole: bool
    cudagraph_uniform_decode_sizes: str
    cudagraph_wide_defaults_cc10: bool
    cudagraph_decode_keys: str
    compilation_split_capture_keys: str
    cudagraph_no_sizes_left: str
    mrv2_capture_skipped_log: str
    mrv2_capture_asks_encoder: bool
    mrv2_full_graphs_only: bool
    mrv2_decode_only_bound: str
    mrv2_pp_capture_skipped_log: str
    capture_none_log_v1: str
    cudagraph_max_size_below_one: str
    dynamic_sd_capture_tiers: str
    draft_decode_cudagraph_methods: tuple[str, ...]
    cudagraph_interactivity_head: int
    adaptive_verification: str
    adaptive_verification_own_confidence_methods: tuple[str, ...]
    adaptive_verification_no_sizes: str
    performance_mode_throughput_factor: int
    fp8_e4m3_kv_pre_ada: str
    cudagraph_mode_default: str
    cudagraph_lora_cases: str
    mrv2_lora_cases: str
    cudagraph_spec_round_modes: tuple[str, ...]
    cudagraph_spec_round_runners: tuple[str, ...]
    cudagraph_spec_round_with_tp: bool
    cudagraph_spec_round_none_kept: str
    drafter_cuda_graphs: bool
    draft_model_cuda_graphs: bool
    fit_need_formula: str
    fit_check_sees_windows: bool
    v0_chunked_prefill_tokens: int
    v1_unchunked_batched_tokens: str
    v1_chunked_prefill_flag: str
    pooling_chunked_prefill_default: str
    st_pooling_mode_read: str
    st_pooling_config_missing: str
    st_pooling_module_types: tuple[str, ...]
    pooler_type_fields: str
    pooler_type_checked: str
    pooler_config_unknown_keys: str
    cross_attention_tokens: str
    encoder_decoder_budget_default: str
    encoder_decoder_prefix_caching: str
    encoder_decoder_budget_check: bool
    long_prefill_threshold_checked: bool
    concurrent_partial_prefills: str
    encoder_decoder_cudagraph_mode: str
    uniform_type_kv_specs: bool
    mla_kernels: bool
    mla_quant_methods: tuple
    mla_block_size: str
    default_block_size: int
    rocm_attn_preferred_block_size: int
    rocm_triton_first_gfx: tuple[str, ...]
    fused_moe_chunk_tokens: int
    moe_workspace_persistent: bool
    fp8_block_merged_unchecked: bool
    ct_fp8_block: bool
    ct_fp8_block_w8a16_checked: bool
    moe_quant_workspace: tuple[str, ...]
    deep_gemm_sm12x: bool
    moe_backend_refusal_text: str
    mxfp4_triton_cc_until: tuple[int, int]
    mxfp4_aiter_backend_value: str
    flashinfer_cutlass_moe_sm110: bool
    moe_backend_lora_refused: tuple[str, ...]
    moe_backend_deepseek_v4_only: tuple[str, ...]
    nvfp4_gelu_vllm_cutlass: bool
    fp8_block_hopper_triton: bool
    v0_long_context_chunked_skips: tuple[str, ...] | None
    mxfp4_hopper_backend: str
    mxfp4_triton_cc_majors: tuple[int, ...]
    mxfp4_triton_keeps_scales: bool
    mxfp4_triton_swizzle_align: int
    mxfp4_marlin_env: str
    flashinfer_sampler: str
    profile_sampler_warms_native: bool
    flashinfer_sampler_cc: tuple
    topk_topp_triton: bool
    fi_allreduce_fusion: str
    fi_allreduce_fusion_pp_dp_1: bool
    fi_allreduce_workspace_alloc: str
    v0_capacity_per_stage: bool
    pp_remainder: str
    hybrid_prefix_caching_default: bool
    attention_free_prefix_caching_default: bool
    mamba_cache_mode: str
    mamba_checkpoint_page: tuple[str, ...]
    gdn_checkpoint_block_alignment_tokens: int
    gdn_other_platform_refusals: tuple[tuple[str, str], ...]
    gdn_cutedsl_cc_majors: tuple[str, ...]
    gdn_flashinfer_fallback_warns: bool
    gdn_rocm_fallback_all_reasons: bool
    group_size_max_ratio: float
    fit_error_format: str
    auto_fit_tentative: bool
    no_memory_error_format: str
    weights_log_format: str
    kv_log_format: str
    v0_blocks_log_device: str
    available_kv_log: str
    log_cudagraph_estimate: bool
    summary_log_format: str
    log_cudagraph_pool_memory: bool
    batch_defaults: str
    admit_whole_prompt: bool
    kv_cache_auto_follows_checkpoint: tuple[str, ...]
    longrope_default_original: bool
    rope_unscaled_types: tuple[str, ...]
    rope_yarn_from_original: bool
    hf_overrides_nested_merge: bool
    max_model_len_auto_fit: bool
    mamba_spec_pages: bool
    min_compute_capability: tuple[int, int]
    wheel_cuda: str
    pooling_flag: str
    sliding_window_spec: bool
    hybrid_kv_manager: bool
    chunked_local_spec: str
    hybrid_manager_off_refusal: str
    kv_connector_names: tuple[str, ...]
    kv_connectors_v0: tuple[str, ...]
    kv_connector_refused_at: str
    v0_for_kv_transfer: bool
    kv_transfer_hybrid: str
    kv_transfer_hybrid_warning: str | None
    kv_connectors_hma: tuple[str, ...]
    kv_transfer_fields: tuple[str, ...] | None
    hybrid_flag_explicit_on: bool
    nixl_host_buffer: bool
    kv_role_missing_word: str
    kv_roles_said: str
    disable_sliding_window_rope_refused: bool
    v0_below_cc_major: int
    v1_kv_dtype: str
    v0_for_pooling: bool
    v0_for_speculative: str
    spec_draft_methods: tuple[str, ...]
    spec_infers_eagle3_by_name: bool
    spec_configured_method_kept: bool
    draft_model_refusal: str
    draft_model_tp_refusal: bool
    v0_for_pipeline_parallel: bool
    pp_spec_v0_refusal: str
    pp_spec_drafter: str
    pp_eagle3_aux_architectures: tuple[str, ...]
    v0_for_cpu_offload: bool
    cpu_offload_towers: bool
    v0_for_lora: bool
    lora_extra_vocab: int
    lora_moe: bool
    lora_moe_ep: bool
    eplb_form: str | None
    eplb_redundant_default: object
    eplb_parallel_checks: str | None
    eplb_config_bounds: str | None
    eplb_one_rank_message: str
    eplb_quant_check: str | None
    eplb_load_over_local: bool
    eplb_expert_buffer: bool
    eplb_last_load: bool
    eplb_replica_slots: str
    eplb_max_redundant: int | None
    eplb_async_default: bool
    eplb_async_nccl_refused: bool
    eplb_quant_message: str | None
    eplb_ct_wna16_marlin: bool
    moe_marlin_router_check: bool
    eplb_fp8_flashinfer_trtllm: str | None
    eplb_state_measured: str
    lora_moe_fully_sharded: bool
    lora_moe_placement: str | None
    lora_embedding_archs: frozenset
    lora_target_packed: bool
    v0_for_float32: bool
    v0_for_quantization: tuple[str, ...]
    v0_for_recurrent: bool
    model_runner_v2: str
    mrv2_env: str
    mrv2_architectures: tuple[str, ...]
    mrv2_v1_spec_methods: tuple[str, ...]
    spec_dense_token_history: tuple[str, ...]
    suffix_gpu_corpus: bool
    probabilistic_draft_logits: bool
    suffix_default_spec_tokens: str
    mrv2_profile_sampler: str
    mrv2_cudagraph_estimate: bool
    mrv2_drafter_graph_methods: tuple[str, ...]
    mrv2_estimate_trtllm_workspace: bool
    v1_estimate_trtllm_workspace: bool
    trtllm_attention_cc_majors: tuple
    v1_estimate_fi_wrapper_workspace_cc_majors: tuple
    fi_builder_workspace_bytes_per_elem: int
    mrv2_forced_refusals: str
    mrv2_refusal_ngram_gpu: bool
    mrv2_refuses_hybrid: bool
    mrv2_refusal_prefix: str
    allocator_split_limit: bool
    sleep_mode_vendors: tuple
    sleep_mode_platform_refusal: str
    sleep_mode_expandable: str
    sleep_mode_expandable_seen: str
    calculate_kv_scales_deprecated: bool
    dcp_multiplier_line: str
    torch_alloc_conf_env: tuple[str, ...]
    sleep_mode_weights_in_pool: bool
    sleep_mode_pool_trim: bool
    load_format_refusal: str
    bnb_load_format: str
    bnb_checkpoint_loader: str
    gguf_reference_refusal: str
    budget_counts_runner_buffers: bool
    mrope_cache_factor: int
    bnb_nested_absmax: str
    deprecated_quant_methods: tuple[str, ...]
    online_fp8_loads_16bit: bool
    online_fp8_kv_scales: bool
    ct_e5m2_refused_without_kv_scheme: bool
    bnb_quantizes_experts: bool
    ct_moe_mixed_refusal: bool
    ct_untargeted_unquantized: bool
    modelopt_exclude_split: bool
    layer_module_paths: tuple
    awq_auto_marlin: bool
    gptq_flag_auto_kernel: bool
    marlin_linear_min_cc: tuple
    gptq_machete: tuple
    gptq_allspark: bool
    gptq_marlin_zeros_kept: bool
    mla_kv_b_copy: bool
    marlin_moe_tile_pad: str
    marlin_dense_tile_pad: bool
    mtp_fc_nvfp4_unquantized: tuple[str, ...]
    mtp_fc_unquantized: tuple[str, ...]
    ct_moe_ignore_read: bool
    ct_fused_match_first: bool
    fused_skip_refusal: tuple[str, ...]
    fused_skip_name_first: bool
    mla_absorbed_weights: bool
    qwen3_mrope_positions_one: bool
    mm_video_padding: bool
    qwen3_vl_deepstack_buffers: bool
    qwen2_vl_video_profile: bool
    mm_text_only_towers: str
    mm_prefix_lm_text_only_off: bool
    mm_prefix_lm_batched_tokens_raise: bool
    mm_prefix_lm_item_refusal: bool
    mm_profile_items: str
    mllama_v0_pixel_copies: int
    mm_pixels_held: bool
    pixtral_sdpa_mask: bool
    pixtral_packed_attention: bool
    attention_block_multiple: int
    flex_attention_block_multiple: int
    flex_attention_kv_dtypes: tuple
    mm_pixels_model_dtype: bool
    dsv4_accounting: str
    dsv4_rocm_logit_rows: str
    dsv4_indexer_factor: str
    dsv4_sparse_buffers_read: bool
    deepseek_v4_served: bool
    sparse_mla_served: bool
    sparse_mla_cache_layout: str
    sparse_mla_flashinfer_blackwell: bool
    sparse_mla_shared_workspace: bool
    sparse_mla_workspace_factor: str
    sparse_mla_prefill_q_concat: bool
    sparse_mla_prefill_token_buffers: bool
    sparse_mla_logits_buffer: bool
    sparse_mla_tp_topk_exchange: bool
    cold_compile_embedding_copy: bool
    notes: tuple[str, ...]

    def __init__(self, **values) -> None:
        """Every field by name, as rules_for and dataclasses.replace give them. Written here rather than generated by
        @dataclass: the generated __init__ (a parameter and a line for each of the table's ~240 rows) took ~5 ms to
        compile at every start of kvplan, a tenth of all its dataclasses."""
        names = self.__dataclass_fields__
        if values.keys() != names.keys():
            missing, unknown = sorted(names.keys() - values.keys()), sorted(values.keys() - names.keys())
            raise TypeError(f"VersionRules() takes every field by name: missing {missing}, unknown {unknown}")
        for name in names:
            object.__setattr__(self, name, values[name])

    @property
    def is_v1(self) -> bool:
        return self.engine == "v1"

    @property
    def budget_weights_term(self) -> str:
        """What the KV budget subtracts as the weights: BUDGET_WEIGHTS_TERM_BY_ERA of the release's era."""
        return BUDGET_WEIGHTS_TERM_BY_ERA[self.era]


# Minimum Linux driver per CUDA toolkit (GA): NVIDIA's CUDA Toolkit release notes, Table 3
# (https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html; docs/gpu-facts.md section 6).
MIN_DRIVER_BY_CUDA: dict[str, str] = {
    "12.1": "530.30.02", "12.4": "550.54.14", "12.6": "560.28.03", "12.8": "570.26",
    "12.9": "575.51.03", "13.0": "580.65.06", "13.1": "590.44.01",
}
# Minor-version compatibility floors (https://docs.nvidia.com/deploy/cuda-compatibility/): CUDA 12.x applications run
# on >= 525.60.13, 13.x on the 580 branch, with a reduced feature set (no JIT of newer PTX).
MINOR_COMPAT_DRIVER_BY_CUDA_MAJOR: dict[int, str] = {11: "450.80.02", 12: "525.60.13", 13: "580.65.06"}


def driver_requirement(version: str) -> tuple[str, str]:
    """(the CUDA runtime of vLLM `version`'s default wheel and image, the NVIDIA driver it needs natively): rules row
    wheel_cuda and MIN_DRIVER_BY_CUDA, the one reading behind preflight's driver check, scaffold's README and a
    release comparison."""
    cuda = rules_for(version).wheel_cuda
    return cuda, MIN_DRIVER_BY_CUDA[cuda]


# Architectures that 0.8-0.10 run only on V0 (they implement SupportsV0Only): (class, first, last release).
V0_ONLY_ARCHITECTURES: tuple[tuple[str, V, V], ...] = (
    ("Gemma3ForConditionalGeneration", (0, 8, 0), (0, 8, 0)),
    ("MiniCPMV", (0, 8, 0), (0, 8, 2)), ("MiniCPMO", (0, 8, 0), (0, 8, 2)),
    ("GlmForCausalLM", (0, 8, 0), (0, 8, 4)), ("Phi4MMForCausalLM", (0, 8, 0), (0, 8, 4)),
    ("Qwen2ForRewardModel", (0, 8, 0), (0, 9, 1)), ("Qwen2ForProcessRewardModel", (0, 8, 0), (0, 9, 1)),
    ("BloomForCausalLM", (0, 8, 0), (0, 10, 1)), ("WhisperForConditionalGeneration", (0, 8, 0), (0, 10, 1)),
    ("MllamaForConditionalGeneration", (0, 8, 0), (0, 10, 2)), ("BartForConditionalGeneration", (0, 8, 0), (0, 10, 2)),
    ("Florence2ForConditionalGeneration", (0, 8, 3), (0, 10, 2)), ("MBartForConditionalGeneration", (0, 10, 1), (0, 10, 2)),
    ("MiniMaxText01ForCausalLM", (0, 8, 3), (0, 10, 0)), ("MiniMaxM1ForCausalLM", (0, 9, 2), (0, 10, 0)),
)


def as_v0_engine(rules: VersionRules, why: str) -> VersionRules:
    """The rules of a 0.8-0.10 release that runs a model on its V0 engine: V0's memory accounting (the 0.6.5-0.10
    era), block count, capacity line and scheduler defaults, with everything else of the release."""
    from dataclasses import replace

    return replace(rules, engine="v0", era="V0-c", other_tenants="ignored",
                   flashinfer_sampler="opt_in", tokens_formula="blocks_x_block_size", kv_log_format="v0-blocks",
                   fit_error_format="v0", batch_defaults="v0", admit_whole_prompt=True,
                   notes=rules.notes + (f"vLLM {rules.version} runs this on its V0 engine: {why} is not supported by "
                                        "its V1 engine (EngineArgs._is_v1_supported_oracle)",))


def _value_at(steps, at):
    """The value a stepped table ([(first version, value), ...] in version order) holds `at` a version: that of the
    last step at or before it; None before the first step."""
    value = None
    for first, v in steps:
        if at >= first:
            value = v
    return value


def rule_at(field: str, release: V):
    """The value rules row `field` holds at `release` (a parsed version); None before its first step."""
    return _value_at(_RULES[field], release)


def rule_values(field: str) -> list:
    """Every value rules row `field` takes, oldest release first."""
    return [value for _, value in _RULES[field]]


def release_from(field: str, value) -> str:
    """The release from which rules row `field` holds `value` to the newest read: its last step to that value."""
    first = [at for at, v in _RULES[field] if v == value][-1]
    return release_text(first)


def rule_span(field: str, release: V) -> tuple[str, str | None]:
    """The releases over which rules row `field` holds the value it has at `release`: the step it comes from, and the
    step that ends it (None where it holds to the newest read)."""
    steps = _RULES[field]
    at = max(i for i, (first, _) in enumerate(steps) if release >= first)
    value = steps[at][1]
    start = at
    while start > 0 and steps[start - 1][1] == value:
        start -= 1
    end = next((first for first, v in steps[at + 1:] if v != value), None)
    return release_text(steps[start][0]), None if end is None else release_text(end)


def first_release_where(field: str, test) -> str | None:
    """The first release from which every step of rules row `field` passes `test` (its value), None if the last fails."""
    first = None
    for at, v in _RULES[field]:
        if test(v):
            first = first or at
        else:
            first = None
    return release_text(first) if first else None


@lru_cache(maxsize=64)
def rules_for(version: str | None = None) -> VersionRules:
    """The rules of `version` (default: the newest release kvplan knows)."""
    text = str(version or DEFAULT_RELEASE).strip()
    text = text[1:] if re.match(r"[vV]\d", text) else text  # 'v0.11.0' as a tag spells it: the release 0.11.0
    release = parse_version(text)
    notes: list[str] = []  # (a release newer than NEWEST_READ is a warning of the plan: newer_than_read)
    if not version and DEFAULT_RELEASE != NEWEST_READ:
        notes.append(f"no vLLM version given: kvplan's default release, {DEFAULT_RELEASE}, the newest whose KV-cache sizing "
                     f"real startups validated; {NEWEST_READ} sizes the pool after warmup and CUDA-graph capture, at "
                     f"gpu_memory_utilization 1.0 by default (its extensible KV cache): --vllm-version {NEWEST_READ} plans it")
    before, after = development_build_of(text), nightly_after_candidate(text)
    if after:
        notes.append(f"vLLM {text} is a nightly of main named after the {after[0]} candidate tag it reaches (setuptools-scm): "
                     f"it holds main's commits past that tag, bound for the next release, {after[1]}, whose rules are applied")
    if before:
        notes.append(f"vLLM {text} is a development build of {before} (main after the release before it; PEP 440 orders "
                     f"it before {before}): the rules of the releases before {before} are applied")
    if untagged_source_build(text):  # parse_version placed it (or refused it above)
        placed, why = untagged_build_release(text)
        notes.append(f"vLLM {text} is a source build without a release tag (setuptools-scm's 0.1.dev<commits>): {why}, "
                     f"so {placed}'s rules are applied")
    if release < parse_version(OLDEST_READ):
        notes.append(f"vLLM {text} is older than the oldest release kvplan has read ({OLDEST_READ}): the rules of its era as first read are applied")
    values = {field: _value_at(steps, release) for field, steps in _RULES.items()}
    return VersionRules(version=text, release=release, notes=tuple(notes), **values)


def unpublished_release(text: str) -> str | None:
    """Why `text`, a plain release number ('0.10.3', 'v0.9.9') between OLDEST_READ and NEWEST_READ, is no release
    vLLM published (PUBLISHED_RELEASES), with its series' releases; None for a published one, a series alone ('0.10'),
    a development, candidate or local build ('0.11.0.dev5', '0.20.0rc1', '0.11.0+cu128'), a container image reference
    or a release outside that span (newer_than_read speaks of those)."""
    m = re.fullmatch(r"\s*v?(\d+)\.(\d+)\.(\d+)(?:\.(?:post)?\d+)?\s*", str(text), re.IGNORECASE)
    if not m:
        return None
    release = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
    if outside_read(release) is not None or any(parse_version(r) == release for r in PUBLISHED_RELEASES):
        return None
    series = [r for r in PUBLISHED_RELEASES if parse_version(r)[:2] == release[:2]]
    return (f"vLLM {str(text).strip()} is no published release"
            + (f" (the {release[0]}.{release[1]} series: {', '.join(series)})" if series else ""))


def outside_read(release: V) -> str | None:
    """Where a release lies beyond the ones kvplan read: "newer" than NEWEST_READ (whose rules apply), "older" than
    OLDEST_READ (the oldest rules kvplan holds apply), else None. The one test behind newer_than_read's warning, fit's
    vLLM row (render), reconcile's plan line, the band's "outside what was validated" (band.uncertainty_band) and
    a record's stated version (validate.version_basis)."""
    if release > parse_version(NEWEST_READ):
        return "newer"
    if release < parse_version(OLDEST_READ):
        return "older"
    return None


def newer_than_read(rules: VersionRules) -> str | None:
    """The warning for a release outside the ones kvplan read: newer than every one (NEWEST_READ's rules apply) or
    older (OLDEST_READ's apply); None otherwise."""
    where = outside_read(rules.release)
    if where == "older":
        # not OLDEST_READ's rules as such: a row whose first step is older (v0_long_context_chunked_skips at 0.5.4)
        # still gives the release its own value
        return (f"kvplan's rules start at vLLM {OLDEST_READ}; planned with the oldest rules kvplan holds (vLLM "
                f"{rules.version} is older: what differed before {OLDEST_READ} is not modelled)")
    if where is None:
        return None
    return (f"kvplan's rules stop at vLLM {NEWEST_READ}; planned with {NEWEST_READ}'s rules (vLLM {rules.version} "
            "is newer: what changed since is not modelled)")


def wheel_cuda(vllm_version: str | None) -> str | None:
    """The CUDA runtime of a release's default wheel (rule wheel_cuda), or None when no version is given or none can
    be read from the text (a log that never printed one)."""
    if not vllm_version:
        return None
    try:
        return rules_for(vllm_version).wheel_cuda
    except InputError:
        return None


def batch_defaults(rules: VersionRules, gpu_total_gib: float, gpu_name: str, compute_capability: str,
                   entrypoint: str = "serve") -> tuple[int, int]:
    """(max_num_batched_tokens, max_num_seqs) defaults of `vllm serve` (section 2.3).

    V1 sizes them by the device: a large-memory class (>= 70 GiB, not an A100) gets
    8192 / 1024, everything else 2048 / 256; from 0.28 a >= 160 GiB device gets 16384 / 1024.
    V0 (chunked prefill off) uses max(max_model_len, 2048) / 256, applied by the caller.
    `entrypoint` "llm" (vllm.LLM in Python, UsageContext.LLM_CLASS): 16384 tokens where serve has 8192 or 16384, 8192
    where it has 2048; the same sequence cap (engine/arg_utils.py, 0.8-0.33).
    """
    t, s = _serve_batch_defaults(rules, gpu_total_gib, gpu_name, compute_capability)
    if entrypoint == "llm" and rules.batch_defaults != "v0":
        t = 16384 if t >= 8192 else 8192
    return t, s


def _serve_batch_defaults(rules: VersionRules, gpu_total_gib: float, gpu_name: str, compute_capability: str) -> tuple[int, int]:
    name = gpu_name.lower()
    kind = rules.batch_defaults
    if kind == "v0":
        return (0, 256)  # 0 = "max(max_model_len, 2048)": resolved against max_model_len
    if compute_capability in INTEGRATED_MEMORY_CC and (kind != "v1-0.33" or compute_capability == "12.1"):
        # the device size comes from NVML (platforms/cuda.py get_device_total_memory), which integrated parts (GB10,
        # Jetson) do not implement: up to 0.32 the query raises and _set_default_args falls back to device_memory 0,
        # the small defaults; 0.33 falls back to the CUDA total (so Jetson Thor's ~122 GiB is a large device) but
        # keeps GB10 on the small tier
        return (2048, 256)
    if kind == "v1-0.8":
        return (8192, 1024) if gpu_total_gib >= 70 else (2048, 256)
    big = gpu_total_gib >= 70 and "a100" not in name
    if kind in ("v1-0.28", "v1-0.33") and gpu_total_gib >= 160:
        return (16384, 1024)
    return (8192, 1024) if big else (2048, 256)


# GPUs whose memory is the system's (GB10 / DGX Spark 12.1, Jetson Thor 11.0, Jetson Orin 8.7)
INTEGRATED_MEMORY_CC = ("12.1", "11.0", "8.7")


@lru_cache(maxsize=None)
def _data_file(name: str) -> dict:
    """One of kvplan's data files (src/kvplan/data), read once."""
    from importlib import resources

    return json.loads(resources.files("kvplan.data").joinpath(name).read_text())


def has_hf_mapper(architectures, release: V) -> bool:
    """Whether the model class vLLM builds for `architectures` has an hf_to_vllm_mapper in `release`, read at the newest
    release read at or before it (data/hf_mappers.json, tools/build_hf_mappers.py); False before the first read."""
    table = _data_file("hf_mappers.json")
    read = [v for v in table["versions_read"] if parse_version(v) <= release]
    if not read:
        return False
    at = read[-1]
    return any(at in table["architectures"].get(a, ()) for a in architectures or ())


# --------------------------------------------------------------------------- architectures each release registers


def architecture_table() -> dict:
    """data/architectures.json: per architecture, the releases whose vllm/model_executor/models/registry.py registers
    it, read from the wheels listed in its "source" (tools/build_architectures.py)."""
    return _data_file("architectures.json")


def _registered(row: dict, release: V) -> bool:
    """Whether a release registers the architecture: not at or before the release read just before it appeared, not
    at or after the first release read without it, not after the last release vLLM says supported it."""
    if row.get("missing_before") and release <= parse_version(row["missing_before"]):
        return False
    if row.get("missing_from") and release >= parse_version(row["missing_from"]):
        return False
    if row.get("supported_until") and release > parse_version(row["supported_until"]):
        return False
    return bool(row.get("first_read") or row.get("supported_until"))


def architecture_refusal(architectures, release: V) -> tuple[str, str, str] | None:
    """("unknown", warning, "") for architectures the table lacks (or none given); ("unsupported", vLLM's error, the
    release that registers it) when no listed architecture is registered in `release`; None when one is. vLLM's texts: registry.py
    _raise_for_unsupported (0.33.0; the "are not supported for now" wording since 0.6). Worked out once per
    (architectures, release): a plan, its fixes and its uncertainty band all ask."""
    return _architecture_refusal(tuple(architectures or ()), release)


@lru_cache(maxsize=256)
def _architecture_refusal(archs: tuple[str, ...], release: V) -> tuple[str, str, str] | None:
    rows = architecture_table()["architectures"]
    known = [a for a in archs if a in rows]
    if not known:
        what = f"architecture {', '.join(archs)}" if archs else "no architectures entry in the config"
        return ("unknown", f"{what}: not in the registry of any vLLM release kvplan read "
                           f"({architecture_table()['versions_read'][0]} to {architecture_table()['versions_read'][-1]}); "
                           "vLLM may refuse it (\"Model architectures [...] are not supported for now\"), and no "
                           "validated band applies", "")
    if any(_registered(rows[a], release) for a in known):
        return None
    arch = known[0]
    row = rows[arch]
    until = row.get("supported_until")
    if until and release > parse_version(until):
        return ("unsupported", f"Model architecture {arch} was supported in vLLM until v{until}, and is not supported "
                               "anymore. Please use an older version of vLLM if you want to use this model architecture.",
                until)
    text = f"Model architectures {list(archs)!r} are not supported for now. Supported architectures: dict_keys([...])"
    if row.get("missing_before") and release <= parse_version(row["missing_before"]):
        return "unsupported", text, row["first_read"]
    return "unsupported", text, row["last_read"]


# --------------------------------------------------------------------------- pipeline parallelism per architecture

# vLLM refuses --pipeline-parallel-size > 1 when the model class it builds for the config's architectures does not
# support PP: ModelConfig.verify_with_parallel_config (config/model.py from 0.11.0, config.py before; 0.8.5, 0.11.0 and
# 0.34.0 wheels) asks ModelRegistry.is_pp_supported_model (model_executor/models/registry.py), which reads
# _ModelInfo.supports_pp: interfaces.py supports_pp, true when SupportsPP is in the class's MRO (or the class sets
# supports_pp = True and has make_empty_intermediate_tensors) and its forward takes intermediate_tensors. The
# NotImplementedError's text is plan.defaults.NO_SUPPORTS_PP.


def pp_support_table() -> dict:
    """data/pp_support.json: per registered architecture whose model class lacks PP support in some release read, the
    runs of releases read ([first, last]) without it, read from the model files of the wheels in its "source"
    (tools/build_pp_support.py). An architecture it does not list supports PP in every release read that registers
    it."""
    return _data_file("pp_support.json")


def pp_unsupported_architecture(architectures, release: V) -> str | None:
    """The architecture vLLM builds for `architectures` (the first listed that `release` registers: the registry's
    inspect_model_cls takes them in order) when its model class lacks PP support in `release`, else None. Read at the
    newest release read at or before `release`; None for an architecture no release kvplan read registers, or none
    registered in `release` (architecture_refusal speaks for those)."""
    return _pp_unsupported(tuple(architectures or ()), release)


@lru_cache(maxsize=256)
def _pp_unsupported(archs: tuple[str, ...], release: V) -> str | None:
    rows = architecture_table()["architectures"]
    built = next((a for a in archs if a in rows and _registered(rows[a], release)), None)
    return built if built is not None and _pp_run_without(built, release) else None


def _pp_run_without(architecture: str, release: V) -> tuple[str, str] | None:
    """The run of releases read ([first, last]) without PP support for `architecture` that holds `release`, read at the
    newest release read at or before it; None where none does or no release read is that old."""
    table = pp_support_table()
    read = [v for v in table["versions_read"] if parse_version(v) <= release]
    if not read:
        return None
    at = parse_version(read[-1])
    return next(((first, last) for first, last in table["architectures"].get(architecture, {}).get("without_pp", ())
                 if parse_version(first) <= at <= parse_version(last)), None)


def pp_supported_from(architecture: str, release: V) -> str | None:
    """The first release read after `release` whose `architecture` class supports PP (the release read just after the
    run without it that holds `release`), or None when no release read does."""
    run = _pp_run_without(architecture, release)
    versions = pp_support_table()["versions_read"]
    after = versions.index(run[1]) + 1 if run else len(versions)
    if after >= len(versions):
        return None
    rows = architecture_table()["architectures"]
    return versions[after] if architecture in rows and _registered(rows[architecture], parse_version(versions[after])) else None


# ---- what `kvplan scaffold` may write for a release: the server's entry point and the flags it has

# The `vllm` console script (`vllm serve MODEL`) ships from 0.5.2: the 0.5.2 wheel's entry_points.txt declares
# "vllm = vllm.scripts:main"; the 0.4.2-0.5.1 wheels declare no console script, and their server is started as a
# module with the model as a flag (vllm/entrypoints/openai/api_server.py, "--model" in vllm/engine/arg_utils.py).
SERVE_CONSOLE_SCRIPT_SINCE: V = (0, 5, 2)
MODULE_SERVER = ("python3", "-m", "vllm.entrypoints.openai.api_server")

# The first release whose wheel has each flag kvplan scaffold writes, read in vllm/engine/arg_utils.py (and
# vllm/entrypoints/openai/cli_args.py for --host/--port) of every release wheel 0.4.2-0.33.0 and 0.34.0. (0, 4, 2) means "in the
# oldest wheel read". The --no-... forms come with argparse.BooleanOptionalAction: --enable-prefix-caching's from 0.6.5,
# --enable-chunked-prefill's from 0.8.5 (a StoreBoolean, "--enable-chunked-prefill False", in 0.5.3-0.8.4).
OLDEST_FLAGS_READ: V = (0, 4, 2)
SERVE_FLAG_SINCE: dict[str, V] = {
    "--revision": (0, 4, 2), "--served-model-name": (0, 4, 2), "--host": (0, 4, 2), "--port": (0, 4, 2),
    "--dtype": (0, 4, 2), "--quantization": (0, 4, 2), "--max-model-len": (0, 4, 2),
    "--gpu-memory-utilization": (0, 4, 2), "--tensor-parallel-size": (0, 4, 2), "--pipeline-parallel-size": (0, 4, 2),
    "--kv-cache-dtype": (0, 4, 2), "--block-size": (0, 4, 2), "--max-num-seqs": (0, 4, 2),
    "--max-num-batched-tokens": (0, 4, 2), "--enforce-eager": (0, 4, 2), "--enable-lora": (0, 4, 2),
    "--max-loras": (0, 4, 2), "--max-lora-rank": (0, 4, 2), "--fully-sharded-loras": (0, 4, 2),
    "--enable-prefix-caching": (0, 4, 2), "--enable-chunked-prefill": (0, 4, 2),
    "--distributed-executor-backend": (0, 4, 3), "--cpu-offload-gb": (0, 5, 3), "--limit-mm-per-prompt": (0, 5, 5),
    "--task": (0, 6, 4), "--no-enable-prefix-caching": (0, 6, 5), "--no-enable-chunked-prefill": (0, 8, 5),
    "--enable-expert-parallel": (0, 8, 0), "--speculative-config": (0, 8, 2), "--data-parallel-size": (0, 8, 3),
    "--mamba-ssm-cache-dtype": (0, 10, 1), "--mamba-cache-dtype": (0, 10, 1), "--runner": (0, 10, 1),
    # ParallelConfig.decode_context_parallel_size (-dcp): absent from the 0.10.1.1 wheel's engine/arg_utils.py, present
    # in 0.10.2's to 0.34.0's
    "--decode-context-parallel-size": (0, 10, 2),
    # ParallelConfig.prefill_context_parallel_size (-pcp): absent from the 0.11.1 and 0.11.2 wheels' engine/arg_utils.py,
    # present in 0.12.0's to 0.34.0's
    "--prefill-context-parallel-size": (0, 12, 0), "--language-model-only": (0, 17, 0),
    # ParallelConfig.dcp_kv_cache_interleave_size: absent from the 0.11.0 wheel's engine/arg_utils.py, present in 0.11.1's
    # to 0.34.0's (0.11.2's too); cp_kv_cache_interleave_size: absent from 0.11.1's and 0.11.2's, present in 0.12.0's to 0.34.0's
    # (rules row cp_interleave_source)
    "--dcp-kv-cache-interleave-size": (0, 11, 1), "--cp-kv-cache-interleave-size": (0, 12, 0),
    "--data-parallel-backend": (0, 9, 1),
    # CacheConfig.kv_cache_memory_bytes, vLLM PR #21489 ("Allow users to specify kv cache memory size"): absent from
    # the 0.10.1.1 wheel's engine/arg_utils.py, present in 0.10.2's (docs/vllm-memory-model.md section 1.3). (The
    # --mamba-ssm-cache-dtype step above is vLLM PR #22928, whose MambaDType is in the 0.10.1 wheel's config.)
    "--kv-cache-memory-bytes": (0, 10, 2),
    # --num-gpu-blocks-override: in the oldest wheel read (0.4.2's engine/arg_utils.py) and every one after, 0.34.0 too
    "--num-gpu-blocks-override": (0, 4, 2),
    # --mamba-block-size (CacheConfig.mamba_block_size, Field(gt=0)): absent from the 0.11.0 wheel's engine/arg_utils.py,
    # present in 0.11.1's to 0.34.0's
    "--mamba-block-size": (0, 11, 1),
    # --calculate-kv-scales (CacheConfig.calculate_kv_scales): absent from 0.6.6.post1's engine/arg_utils.py, present in
    # 0.7.0's; deprecated from 0.19.0 (config/cache.py _warn_deprecated_calculate_kv_scales), gone from 0.28.0's
    # (SERVE_FLAG_UNTIL)
    "--calculate-kv-scales": (0, 7, 0),
    # CacheConfig.enable_extensible_kv_cache, a BooleanOptionalAction (--enable-extensible-kv-cache and
    # --no-enable-extensible-kv-cache): absent from the 0.33.0 wheel's engine/arg_utils.py, present in 0.34.0's
    "--enable-extensible-kv-cache": (0, 34, 0), "--no-enable-extensible-kv-cache": (0, 34, 0),
    # VllmConfig.performance_mode (balanced, interactivity, throughput), vLLM PR #34936 (merged 2026-02-20): absent
    # from the 0.16.0 wheel's engine/arg_utils.py, present in 0.17.0's and every later one read (0.17.0-0.34.0)
    "--performance-mode": (0, 17, 0),
    # LoRAConfig.max_cpu_loras: in the 0.4.2 wheel's engine/arg_utils.py (and LoRAConfig's max_cpu_loras >= max_loras
    # check in config.py), every later one read; LoRAConfig.target_modules as --lora-target-modules: absent from the
    # 0.18.0 wheel's engine/arg_utils.py, present in 0.19.0's, 0.20.0's and 0.33.0's
    "--max-cpu-loras": (0, 4, 2), "--lora-target-modules": (0, 19, 0),
    # ParallelConfig.expert_placement_strategy ("linear" or "round_robin"): absent from the 0.10.2 wheel's
    # engine/arg_utils.py and config/parallel.py, present in 0.11.0's, 0.33.0's and 0.34.0's
    "--expert-placement-strategy": (0, 11, 0),
    # MultiModalConfig.skip_mm_profiling, vLLM PR #22950: in the 0.10.1 wheel's engine/arg_utils.py (the
    # "--skip-mm-profiling" argument of the MultiModalConfig group) and config/__init__.py
    "--skip-mm-profiling": (0, 10, 1),
    # ModelConfig.allow_deprecated_quantization: absent from the 0.13.0 wheel's engine/arg_utils.py, present in 0.14.0's
    # and every later one read (0.14.1-0.33.0)
    "--allow-deprecated-quantization": (0, 14, 0),
    # --compilation-config / -O: vLLM PR #10437 ("torch.compile rollout to users"), merged 2024-11-19, after 0.6.4.post1
    "--compilation-config": (0, 6, 5),
    # CompilationConfig.cudagraph_capture_sizes / max_cudagraph_capture_size as flags of their own: added to
    # vllm/engine/arg_utils.py in 0.11.1 (absent from the 0.11.0 wheel's, present in 0.11.1-0.33.0's), where the
    # SchedulerConfig.cuda_graph_sizes flag of 0.9.0-0.11.0 became their deprecated alias (removed in 0.13.0)
    "--cudagraph-capture-sizes": (0, 11, 1), "--max-cudagraph-capture-size": (0, 11, 1),
    # SchedulerConfig.cuda_graph_sizes: in the 0.9.0 / 0.9.0.1 wheels' vllm/config.py and engine/arg_utils.py (EngineArgs
    # .cuda_graph_sizes), not in 0.8.5's; gone from 0.13.0's engine/arg_utils.py (SERVE_FLAG_UNTIL)
    "--cuda-graph-sizes": (0, 9, 0),
    # ModelConfig's hf_overrides, --hf-overrides JSON: absent from the 0.6.3.post1 wheel's engine/arg_utils.py, present
    # in 0.6.4.post1's and every later one read. --rope-scaling: absent from 0.4.2's, present in 0.4.3's; --rope-theta:
    # absent from 0.4.3's, present in 0.5.0's (both gone from 0.11.1: SERVE_FLAG_UNTIL)
    "--hf-overrides": (0, 6, 4), "--rope-scaling": (0, 4, 3), "--rope-theta": (0, 5, 0),
    # EngineArgs.gdn_prefill_backend (argparse choices, default None: vLLM's own choice, "auto" in additional_config):
    # absent from the 0.17.1 wheel's engine/arg_utils.py, present in 0.18.0's and every later one read (0.19.0-0.34.0);
    # its values grow: GDN_PREFILL_BACKENDS below
    "--gdn-prefill-backend": (0, 18, 0),
    # ParallelConfig.enable_eplb and num_redundant_experts: absent from the 0.9.1 wheel's engine/arg_utils.py, present
    # in 0.9.2's (--enable-eplb, --num-redundant-experts, --eplb-window-size); EPLBConfig as --eplb-config JSON from
    # 0.10.2 (absent from 0.10.1's); ParallelConfig.all2all_backend as --all2all-backend from 0.11.1 (absent from
    # 0.11.0's, where the backend is the VLLM_ALL2ALL_BACKEND environment variable)
    "--enable-eplb": (0, 9, 2), "--num-redundant-experts": (0, 9, 2), "--eplb-config": (0, 10, 2),
    "--all2all-backend": (0, 11, 1),
    # KernelConfig.moe_backend as --moe-backend (vllm/config/kernel.py MoEBackend Literal, engine/arg_utils.py
    # kernel_group.add_argument("--moe-backend", ...)): absent from the 0.16.0 wheel's engine/arg_utils.py, present in
    # 0.17.0's and every later one read (0.18.0-0.34.0); its values grow: MOE_BACKENDS below
    "--moe-backend": (0, 17, 0),
    # ModelConfig.override_pooler_config as --override-pooler-config: absent from the 0.6.3.post1 wheel's
    # engine/arg_utils.py, present in 0.6.4's to 0.11.2's (gone from 0.12.0: SERVE_FLAG_UNTIL); ModelConfig.pooler_config
    # as --pooler-config: absent from the 0.10.2 wheel's, present in 0.11.0's and every later one read (0.11.1-0.34.0)
    "--override-pooler-config": (0, 6, 4), "--pooler-config": (0, 11, 0),
    # SchedulerConfig.long_prefill_token_threshold_adaptive (bool, default False: argparse.BooleanOptionalAction, both
    # spellings): absent from the 0.30.0 wheel's engine/arg_utils.py and config/scheduler.py, present in 0.31.0's,
    # 0.32.0's, 0.33.0's and 0.34.0's. kvplan simulate takes it (simulate.serving_setup refuses it before 0.31.0)
    "--long-prefill-token-threshold-adaptive": (0, 31, 0), "--no-long-prefill-token-threshold-adaptive": (0, 31, 0),
    # SchedulerConfig.max_num_partial_prefills / max_long_partial_prefills (concurrent partial prefills, default 1):
    # absent from the 0.7.2 wheel's engine/arg_utils.py, present in 0.7.3's, 0.10.2's, 0.11.0's, 0.11.1's and
    # 0.26.0's; gone from 0.27.0's (SERVE_FLAG_UNTIL). kvplan simulate takes them (rules row concurrent_partial_prefills)
    "--max-num-partial-prefills": (0, 7, 3), "--max-long-partial-prefills": (0, 7, 3),
    # SchedulerConfig.long_prefill_token_threshold (came with concurrent partial prefills): absent from the 0.7.2
    # wheel's engine/arg_utils.py, present in 0.7.3's and every later one read (0.10.2, 0.11.0, 0.26.0, 0.31.0-0.34.0)
    "--long-prefill-token-threshold": (0, 7, 3),
    # ModelConfig.enable_sleep_mode (vLLM PR #11743, "Support fully transparent sleep mode"): absent from the 0.6.6.post1
    # wheel's engine/arg_utils.py, present in 0.7.0's and every later one read (0.7.2-0.34.0)
    "--enable-sleep-mode": (0, 7, 0),
    # ParallelConfig.disable_custom_all_reduce: in the 0.4.2 wheel's engine/arg_utils.py and every later one read
    "--disable-custom-all-reduce": (0, 4, 2),
    # SchedulerConfig.disable_hybrid_kv_cache_manager (vLLM PR #17996's hybrid allocator): absent from the 0.9.0 wheel's
    # engine/arg_utils.py, present in 0.9.1's and every later one read (0.9.2-0.34.0)
    "--disable-hybrid-kv-cache-manager": (0, 9, 1), "--no-disable-hybrid-kv-cache-manager": (0, 9, 1),
    # VllmConfig.kv_transfer_config (KVTransferConfig): absent from the 0.6.4 wheel's engine/arg_utils.py, present in
    # 0.6.5's and every later one read (0.6.6.post1-0.34.0)
    "--kv-transfer-config": (0, 6, 5),
    # ModelConfig.disable_sliding_window: absent from the 0.4.2 wheel's engine/arg_utils.py, in 0.4.3's and every later one
    "--disable-sliding-window": (0, 4, 3),
    # SchedulerConfig.async_scheduling (bool: argparse.BooleanOptionalAction, both spellings): absent from the 0.9.2
    # wheel's engine/arg_utils.py and config.py, present in 0.10.0's and every later one read (0.10.1-0.34.0)
    "--async-scheduling": (0, 10, 0), "--no-async-scheduling": (0, 10, 0),
}

# Flags a later release removed: the first release without them. --cuda-graph-sizes: 0.12.0 warns it "is deprecated
# and will be removed in v0.13.0" (vllm/engine/arg_utils.py EngineArgs.create_engine_config), and the 0.13.0 wheel's
# engine/arg_utils.py has no cuda_graph_sizes.
SERVE_FLAG_UNTIL: dict[str, tuple[V, str]] = {
    # --rope-scaling / --rope-theta: deprecated ("`--rope-scaling` will be removed in a future release. Please instead
    # use `--hf-overrides`", ModelConfig.__init__ / __post_init__ in the 0.6.6.post1 and 0.11.0 wheels), removed by vLLM PR
    # #28006 (merged 2025-11-04): in the 0.11.0 wheel's engine/arg_utils.py, not in 0.11.1's
    # each fix in both spellings, the command line's and Python's (kvplan.fit(rope_scaling=...) arrives here too)
    "--rope-scaling": ((0, 11, 1), "use --hf-overrides '{\"rope_scaling\": {...}}' (the same JSON under that key; from "
                                   "Python, kvplan.fit(..., hf_overrides={\"rope_scaling\": {...}}))"),
    "--rope-theta": ((0, 11, 1), "use --hf-overrides '{\"rope_theta\": N}' (from Python, kvplan.fit(..., "
                                 "hf_overrides={\"rope_theta\": N}))"),
    # --task (vllm.LLM(task=...)): deprecated for --runner / --convert by vLLM PR #21470 (0.10.1, which reads embed,
    # classify, score and reward as the pooling runner), removed by PR #30397 ("Remove deprecated task, seed and MM
    # settings", merged 2025-12-10): 0.13.0's EngineArgs has no task ("unexpected keyword argument 'task'")
    "--task": ((0, 13, 0), "drop it: --runner pooling serves an embed, classify, score or reward model, and generate or "
                           "auto is the default (from Python, runner='pooling', or no task)"),
    # --swap-space (CacheConfig.swap_space, CPU blocks for V0's preemption by swapping, never GPU memory): removed by
    # vLLM PR #36216 ("[V0 Deprecation] Remove unused swap_space parameter", merged 2026-03-06, after 0.17.0's
    # branch): EngineArgs has it in the 0.15.0-0.17.1 wheels and not from 0.18.0 (unslothai/unsloth-zoo issue #1210,
    # which read inspect.signature(EngineArgs) in every release 0.15.0-0.29.0)
    "--swap-space": ((0, 18, 0), "drop it: the V1 engine preempts by recomputing and keeps no CPU swap"),
    # --calculate-kv-scales: "The `--calculate-kv-scales` option is deprecated and will be removed in v0.19. The scales
    # will be loaded from the model checkpoint if available, otherwise they default to 1.0." (config/cache.py, 0.19.0-
    # 0.27.0 wheels); CacheConfig and EngineArgs have no calculate_kv_scales from the 0.28.0 wheel
    "--calculate-kv-scales": ((0, 28, 0), "drop it: the fp8 KV scales are loaded from the checkpoint if it has them, "
                                          "otherwise they default to 1.0"),
    "--cuda-graph-sizes": ((0, 13, 0), "use --cudagraph-capture-sizes (the sizes) or --max-cudagraph-capture-size N "
                                       "(the grid up to N); from Python, cudagraph_capture_sizes=[...] or "
                                       "max_cudagraph_capture_size=N"),
    # --num-redundant-experts: "[DEPRECATED] --num-redundant-experts will be removed in v0.12.0." (engine/arg_utils.py,
    # 0.10.2-0.11.2 wheels, forwarded to EPLBConfig.num_redundant_experts); absent from the 0.12.0 wheel's
    "--num-redundant-experts": ((0, 12, 0), "use --eplb-config '{\"num_redundant_experts\": N}' (from Python, "
                                            "eplb_config={\"num_redundant_experts\": N})"),
    # --override-pooler-config: "`override_pooler_config` is deprecated and will be removed in v0.12.0 or v1.0.0,
    # whichever is sooner. Please use `pooler_config` instead." (config/model.py ModelConfig.__post_init__, 0.11.0 and
    # 0.11.2 wheels); absent from the 0.12.0 wheel's engine/arg_utils.py and config/model.py
    "--override-pooler-config": ((0, 12, 0), "use --pooler-config (the same JSON; from Python, pooler_config={...})"),
    # concurrent partial prefills: in the 0.26.0 wheel's engine/arg_utils.py and config/scheduler.py, not in 0.27.0's
    # (which checks every long_prefill_token_threshold: rules row long_prefill_threshold_checked)
    "--max-num-partial-prefills": ((0, 27, 0), "drop it: V1 never ran concurrent partial prefills (0.11.1-0.26 refuse "
                                               "any value but 1); --long-prefill-token-threshold N caps each prefill"),
    "--max-long-partial-prefills": ((0, 27, 0), "drop it: V1 never ran concurrent partial prefills (0.11.1-0.26 refuse "
                                                "any value but 1); --long-prefill-token-threshold N caps each prefill"),
}

# vllm serve flags that take several values, each its own argument ('--cudagraph-capture-sizes 1 2 4 8'): a list[int]
# config field gets argparse nargs="+" (vllm/engine/arg_utils.py _compute_kwargs; read in the 0.11.0 and 0.33.0
# wheels). CompilationConfig.cudagraph_capture_sizes is such a flag from 0.11.1 (SERVE_FLAG_SINCE), and
# SchedulerConfig.cuda_graph_sizes in 0.9.0-0.12.x, LoRAConfig.target_modules (list[str]) as --lora-target-modules
# from 0.19.0; --served-model-name, the names the API answers to (nargs="+" written out in the 0.6.4 wheel's
# arg_utils.py; ModelConfig.served_model_name `str | list[str] | None` through _compute_kwargs in 0.11.1 and 0.33.0).
# One fact for both directions: deploy writes these as several words in serve.sh, logs reads them back from a log's
# command line (as cudagraph_capture_sizes, cuda_graph_sizes), serve_command takes the words after them as theirs.
MULTI_VALUE_FLAGS = frozenset({"--cudagraph-capture-sizes", "--cuda-graph-sizes", "--lora-target-modules",
                               "--served-model-name"})

# What a release older than a flag had in its place, named when that flag is refused (_check_flag_exists): steps of
# (first release, text), the last step at or below the release applying. --cuda-graph-sizes: SchedulerConfig.cuda_graph_sizes
# (vllm/config.py 0.9.0-0.10.1, vllm/config/scheduler.py 0.10.2-0.11.0; not in the 0.8.5 wheel), read by
# VllmConfig._set_cudagraph_sizes: one value N captures 1, 2, 4 and the multiples of 8 up to N, several are the sizes
# themselves, all within max_num_batched_tokens. 0.6-0.10's --max-seq-len-to-capture is the longest sequence a graph
# covers, not a batch size.
_CAPTURE_SIZES_BEFORE = [((0, 0, 0), "it has no capture-size flag (--max-seq-len-to-capture is the longest sequence a "
                                     "CUDA graph covers, not a batch size); kvplan plans its default sizes"),
                         ((0, 9, 0), "it had --cuda-graph-sizes N [N ...] instead (one value: 1, 2, 4 and the multiples "
                                     "of 8 up to N; several: those sizes), which kvplan plans as --cuda-graph-sizes")]
SERVE_FLAG_BEFORE: dict[str, list[tuple[V, str]]] = {
    "--cudagraph-capture-sizes": _CAPTURE_SIZES_BEFORE, "--max-cudagraph-capture-size": _CAPTURE_SIZES_BEFORE,
    # EPLBConfig came in 0.10.2: the releases before it take the redundant experts as --num-redundant-experts
    "--eplb-config": [((0, 9, 2), "give the redundant experts as --num-redundant-experts N (0.9.2-0.11.x)")],
    # ParallelConfig.all2all_backend came in 0.11.1: envs.py's VLLM_ALL2ALL_BACKEND chooses it before (0.10.1, 0.11.0
    # wheels)
    "--all2all-backend": [((0, 0, 0), "the environment variable VLLM_ALL2ALL_BACKEND chooses the backend there")],
    # KernelConfig.moe_backend came in 0.17.0: before it environment variables steer the MoE kernel (0.16.0 wheel,
    # vllm/envs.py: VLLM_USE_FLASHINFER_MOE_FP8 / _FP4 / _FP16, VLLM_MXFP4_USE_MARLIN, VLLM_USE_DEEP_GEMM)
    "--moe-backend": [((0, 0, 0), "the MoE kernel is steered by environment variables there (VLLM_USE_FLASHINFER_MOE_FP8 "
                                  "/ _FP4 / _FP16, VLLM_MXFP4_USE_MARLIN, VLLM_USE_DEEP_GEMM)")],
    # ModelConfig.pooler_config came in 0.11.0 beside the override it replaced (0.6.4-0.11.x)
    "--pooler-config": [((0, 6, 4), "give the same JSON as --override-pooler-config (0.6.4-0.11.x)")],
}


# --quantization for a pre-quantized checkpoint. Every release reads a quantization_config in config.json itself: with
# no --quantization, ModelConfig._verify_quantization takes the checkpoint's method (vllm/config.py up to 0.10,
# vllm/config/model.py from 0.11). Giving the flag can only narrow that: the checkpoint's name must match it (else
# "Quantization method specified in the model config ... does not match"), --quantization awq / gptq keep the slower
# kernels instead of the Marlin ones vLLM picks itself (awq_marlin.py / gptq_marlin.py override_quantization_method,
# 0.5-0.21: "you specified quantization=awq explicitly, so forcing awq"), and argparse refuses a name outside the
# release's list (auto_round: vLLM spells it auto-round up to 0.21, and 0.33 serves those checkpoints as inc).
# ModelOpt's older exports declare it only in hf_quant_config.json: vLLM reads that file itself from 0.10.1
# (vllm/transformers_utils/config.py get_config, "ModelOpt 0.29.0 and before saves the quantization config in a
# separate hf_quant_config.json"; absent from the 0.10.0 wheel), so before that the flag is needed.
HF_QUANT_CONFIG_READ_SINCE: V = (0, 10, 1)
# --limit-mm-per-prompt takes JSON from 0.8.5 (engine/arg_utils.py: optional_type(json.loads) for the dict field);
# 0.5.5-0.8.4 parse it with nullable_kvs, "image=2,video=1" with whole numbers, and refuse JSON.
MM_LIMIT_JSON_SINCE: V = (0, 8, 5)


def serve_quantization(given: str | None, checkpoint_method: str | None, hf_quant_config_only: bool,
                       version: str) -> str | None:
    """The --quantization value `vllm serve` of `version` needs: the method given, as vLLM spells it; for a checkpoint
    served by its own config none (vLLM reads it, and picks the faster kernels itself), except a ModelOpt checkpoint
    declared only in hf_quant_config.json before HF_QUANT_CONFIG_READ_SINCE, which needs `checkpoint_method` (vLLM's
    name for it: modelopt, modelopt_fp4). InputError when the release predates the method (QUANT_MIN_CAPABILITY's
    first step)."""
    method = canonical_quant(given) if given else checkpoint_method
    first = QUANT_MIN_CAPABILITY.get(method or "", [(None, 0)])[0][0]  # its first step: the release that added it
    if first and parse_version(version) < first:
        since = release_text(first)
        raise InputError("--vllm-version", f"vLLM {version} has no {method} quantization method (first in vLLM {since}), "
                         "so it cannot load this checkpoint", f"use --vllm-version {since} or later")
    if given:
        return method
    if checkpoint_method == "bitsandbytes" and _value_at(_RULES["bnb_checkpoint_loader"], parse_version(version)) == "flags":
        return method  # the release loads it with the default loader otherwise (rules row bnb_checkpoint_loader)
    if checkpoint_method and hf_quant_config_only and parse_version(version) < HF_QUANT_CONFIG_READ_SINCE:
        return checkpoint_method
    return None


def serve_mm_limits(value: str | dict, limits: dict[str, int], version: str) -> str:
    """--limit-mm-per-prompt as `version` parses it: the JSON given (or built from `limits`, the items per modality)
    from MM_LIMIT_JSON_SINCE, "image=2,video=1" before."""
    if parse_version(version) < MM_LIMIT_JSON_SINCE:
        return ",".join(f"{k}={v}" for k, v in limits.items())
    if isinstance(value, dict):
        return json.dumps(value, separators=(",", ":"))
    return value.strip() if value.strip().startswith("{") else json.dumps(limits, separators=(",", ":"))


# --gdn-prefill-backend's argparse choices (vllm/engine/arg_utils.py EngineArgs.add_cli_args), each with the first
# release whose wheel takes it: flashinfer and triton with the flag (SERVE_FLAG_SINCE, 0.18.0); cutedsl absent from
# 0.21.0's, present in 0.22.0's; aiter_flydsl absent from 0.31.0's, present in 0.32.0's; sycl from 0.33.0; hip from
# 0.34.0. No "auto": vLLM's own choice is the flag left out (additional_config's "auto").
_GDN_FLAG_SINCE = SERVE_FLAG_SINCE["--gdn-prefill-backend"]
GDN_PREFILL_BACKENDS: dict[str, V] = {"flashinfer": _GDN_FLAG_SINCE, "triton": _GDN_FLAG_SINCE, "cutedsl": (0, 22, 0),
                                      "aiter_flydsl": (0, 32, 0), "sycl": (0, 33, 0), "hip": (0, 34, 0)}
# ROCm's own backends where their kernels are missing (RuntimeError, _resolve_gdn_prefill_backend): aiter_flydsl needs
# rocm_aiter_ops.is_gdn_flydsl_prefill_available (_aiter_ops.py: VLLM_ROCM_USE_AITER, a CDNA 3+ GPU, an AITER that
# exports the FlyDSL kernels; 0.32.0-0.34.0 wheels), hip is_hip_gdn_available (mamba/ops/hip_gdn_chunk.py: the
# _rocm_C.rdna35_gdn_chunked op, on_gfx115x; 0.34.0). Where they are there but cannot serve the model (linear key and
# value heads other than 128/128, a dtype the kernel lacks) vLLM warns "... was requested but {reasons}. Falling back
# to Triton/FLA." instead.
GDN_PREFILL_ROCM_MISSING: dict[str, str] = {
    "aiter_flydsl": "GDN prefill backend 'aiter_flydsl' was requested but the AITER FlyDSL prefill kernels are not "
                    "importable. Check that VLLM_ROCM_USE_AITER=1, that this is a CDNA 3 or newer GPU, and that the "
                    "installed AITER exports them.",
    "hip": "GDN prefill backend 'hip' was requested but _rocm_C.rdna35_gdn_chunked is unavailable. It is built and "
           "registered only for RDNA3.5 (gfx1150-gfx1153).",
}
# vLLM's warning where FlashInfer is requested but its GDN prefill kernel cannot run (rules row
# gdn_flashinfer_fallback_warns: up to 0.21)
GDN_FLASHINFER_FALLBACK_WARNING = ("GDN prefill backend 'flashinfer' is selected but cannot use this kernel on the "
                                   "current platform. Falling back to Triton/FLA.")


# --load-format's values: (the first release that takes it, the first that no longer does or None, the loader that
# serves it). The LoadFormat enum of vllm/config.py (0.6.4-0.10.0 wheels) and the LoadFormats Literal with
# _LOAD_FORMAT_TO_MODEL_LOADER of model_executor/model_loader/__init__.py (0.10.1-0.34.0): runai_streamer absent from
# 0.6.5's enum, present in 0.6.6.post1's; fastsafetensors absent from 0.8.1's, present in 0.8.2's; runai_streamer_sharded
# absent from 0.8.4's, present in 0.8.5's; hf absent from 0.11.2's, present in 0.12.0's; instanttensor absent from
# 0.17.0's, present in 0.18.0's; modelexpress absent from 0.21.0's, present in 0.22.0's; ipc_cache absent from 0.29.0's,
# present in 0.30.0's; gguf gone from 0.24.0 (with the GGUF loader), bitsandbytes from 0.28.0 (with the bitsandbytes
# loader). The rest are in every wheel read, 0.6.4-0.34.0. Before 0.6.4 (no wheel read for this) no value is refused.
LOAD_FORMATS_OLDEST_READ: V = (0, 6, 4)
_DEFAULT_LOADER = "DefaultModelLoader"
LOAD_FORMATS: dict[str, tuple[V, V | None, str]] = {
    "auto": ((0, 0, 0), None, _DEFAULT_LOADER), "pt": ((0, 0, 0), None, _DEFAULT_LOADER),
    "safetensors": ((0, 0, 0), None, _DEFAULT_LOADER), "npcache": ((0, 0, 0), None, _DEFAULT_LOADER),
    "dummy": ((0, 0, 0), None, "DummyModelLoader"), "tensorizer": ((0, 0, 0), None, "TensorizerLoader"),
    "sharded_state": ((0, 0, 0), None, "ShardedStateLoader"), "gguf": ((0, 0, 0), (0, 24, 0), "GGUFModelLoader"),
    "bitsandbytes": ((0, 0, 0), (0, 28, 0), "BitsAndBytesModelLoader"), "mistral": ((0, 0, 0), None, _DEFAULT_LOADER),
    "runai_streamer": ((0, 6, 6), None, "RunaiModelStreamerLoader"), "fastsafetensors": ((0, 8, 2), None, _DEFAULT_LOADER),
    "runai_streamer_sharded": ((0, 8, 5), None, "ShardedStateLoader"), "hf": ((0, 12, 0), None, _DEFAULT_LOADER),
    "instanttensor": ((0, 18, 0), None, _DEFAULT_LOADER), "modelexpress": ((0, 22, 0), None, "ModelExpressModelLoader"),
    "ipc_cache": ((0, 30, 0), None, "IpcModelLoader"),
}


def load_formats_at(release: V) -> tuple[str, ...]:
    """The --load-format values vLLM `release` takes, in LOAD_FORMATS' order (vLLM's enum order)."""
    return tuple(name for name, (first, gone, _) in LOAD_FORMATS.items()
                 if first <= release and (gone is None or release < gone))


# Values of a flag that came in a later release than the flag: the first release read that takes each
# (--kv-cache-dtype: choices in engine/arg_utils.py up to 0.8, the CacheDType Literal of vllm/config.py, then
# vllm/config/cache.py; 0.4.2 takes auto and fp8 only)
SERVE_VALUE_SINCE: dict[str, dict[str, V]] = {
    "--kv-cache-dtype": {"auto": (0, 4, 2), "fp8": (0, 4, 2), "fp8_e4m3": (0, 4, 3), "fp8_e5m2": (0, 4, 3),
                         "fp8_inc": (0, 10, 0), "bfloat16": (0, 11, 0), "fp8_ds_mla": (0, 11, 1)},
    # LoRAConfig's ranks (possible_max_ranks in vllm/config.py, refused at startup; the MaxLoRARanks Literal of
    # vllm/config/lora.py from 0.11.1): 8-256 in 0.7.3, 320 and 512 from 0.8.0, 1 from 0.11.1
    "--max-lora-rank": {"320": (0, 8, 0), "512": (0, 8, 0), "1": (0, 11, 1)},
    # the MambaDType Literal of vllm/config/cache.py: auto and float32 with the flag (0.10.1), float16 from 0.13.0,
    # bfloat16 from 0.22.0
    "--mamba-ssm-cache-dtype": {"float16": (0, 13, 0), "bfloat16": (0, 22, 0)},
    # --mamba-cache-dtype is typed by the same MambaDType Literal (config/cache.py, 0.10.1-0.34.0 wheels)
    "--mamba-cache-dtype": {"float16": (0, 13, 0), "bfloat16": (0, 22, 0)},
    # --task's TaskOption (vllm/config.py): "embedding" only in 0.6.4, "embed" from 0.6.5 (the pooling_flag row)
    "--task": {"embed": (0, 6, 5)},
    # (the values that came after the flag itself)
    "--gdn-prefill-backend": {name: since for name, since in GDN_PREFILL_BACKENDS.items() if since > _GDN_FLAG_SINCE},
}

# --all2all-backend's choices: the All2AllBackend Literal of vllm/config/parallel.py (0.14.0 on; ParallelConfig's
# all2all_backend field spelt the Literal inline in 0.11.1-0.13.0), which EngineArgs' argparse takes as its choices, read
# from the wheels of ALL2ALL_WHEELS_READ. Each value with the spans of releases read that hold it: (the first read that
# holds it, the first read that no longer does, or None). "mori" is in 0.15.0-0.22.0, not in 0.26.0-0.33.0 (which hold
# mori_high_throughput and mori_low_latency), and back in 0.34.0; a release between two reads whose answers differ
# (0.23-0.25, 0.28-0.29) is not refused on it.
ALL2ALL_WHEELS_READ: tuple[V, ...] = ((0, 11, 1), (0, 11, 2), (0, 12, 0), (0, 13, 0), (0, 14, 0), (0, 15, 0), (0, 16, 0),
                                      (0, 17, 0), (0, 18, 0), (0, 19, 0), (0, 20, 0), (0, 21, 0), (0, 22, 0), (0, 26, 0),
                                      (0, 27, 0), (0, 30, 0), (0, 31, 0), (0, 32, 0), (0, 33, 0), (0, 34, 0))
ALL2ALL_BACKENDS: dict[str, tuple[tuple[V, V | None], ...]] = {
    **{name: (((0, 11, 1), None),) for name in ("naive", "pplx", "deepep_high_throughput", "deepep_low_latency",
                                                 "allgather_reducescatter", "flashinfer_all2allv")},
    "mori": (((0, 15, 0), (0, 26, 0)), ((0, 34, 0), None)),
    **{name: (((0, 18, 0), None),) for name in ("nixl_ep", "flashinfer_nvlink_two_sided", "flashinfer_nvlink_one_sided")},
    **{name: (((0, 26, 0), None),) for name in ("deepep_v2", "mori_high_throughput", "mori_low_latency")},
    "moonep": (((0, 31, 0), None),),
    "passthrough": (((0, 32, 0), None),),
}


def _all2all_in_wheel(name: str, release: V) -> bool:
    return any(first <= release and (until is None or release < until) for first, until in ALL2ALL_BACKENDS.get(name, ()))


def all2all_backend_taken(name: str, release: V) -> bool | None:
    """Whether vLLM `release`'s --all2all-backend takes `name` (ALL2ALL_BACKENDS); None where it is not known: a
    release older than the flag (its own check), or one between two wheels read that answer differently."""
    if release < ALL2ALL_WHEELS_READ[0]:
        return None
    before = max(r for r in ALL2ALL_WHEELS_READ if r <= release)
    after = min((r for r in ALL2ALL_WHEELS_READ if r >= release), default=before)
    taken = {_all2all_in_wheel(name, before), _all2all_in_wheel(name, after)}
    return taken.pop() if len(taken) == 1 else None


def all2all_backends_of(release: V) -> list[str]:
    """The --all2all-backend values of the newest wheel read at or before `release`, as its Literal orders them."""
    read = max(r for r in ALL2ALL_WHEELS_READ if r <= release)
    return [name for name in ALL2ALL_BACKENDS if _all2all_in_wheel(name, read)]


# --moe-backend's choices: the MoEBackend Literal of vllm/config/kernel.py (KernelConfig.moe_backend, default "auto"),
# which EngineArgs' argparse takes as its choices after lower-casing the value and turning '-' into '_'
# (engine/arg_utils.py add_cli_args: moe_backend_kwargs["type"] = lambda s: s.lower().replace("-", "_")), read from the
# wheels of MOE_BACKEND_WHEELS_READ (0.16.0's has no flag: SERVE_FLAG_SINCE). Each value with the spans of releases
# read that hold it (first read holding it, first read no longer holding it or None): flashinfer_moe_ep_mega_cutedsl
# is in 0.29.0-0.31.0 only.
MOE_BACKEND_WHEELS_READ: tuple[V, ...] = ((0, 17, 0), (0, 18, 0), (0, 19, 0), (0, 20, 0), (0, 20, 1), (0, 21, 0),
                                          (0, 22, 0), (0, 23, 0), (0, 24, 0), (0, 25, 0), (0, 26, 0), (0, 27, 0),
                                          (0, 28, 0), (0, 29, 0), (0, 30, 0), (0, 31, 0), (0, 32, 0), (0, 33, 0),
                                          (0, 34, 0))
MOE_BACKENDS: dict[str, tuple[tuple[V, V | None], ...]] = {
    **{name: (((0, 17, 0), None),) for name in ("auto", "triton", "deep_gemm", "cutlass", "flashinfer_trtllm",
                                                 "flashinfer_cutlass", "flashinfer_cutedsl", "marlin", "aiter")},
    **{name: (((0, 20, 0), None),) for name in ("deep_gemm_mega_moe", "emulation")},
    **{name: (((0, 21, 0), None),) for name in ("humming", "triton_unfused")},
    "flashinfer_b12x": (((0, 22, 0), None),), "flydsl": (((0, 24, 0), None),), "hpc": (((0, 25, 0), None),),
    "batched_triton": (((0, 27, 0), None),),
    **{name: (((0, 29, 0), None),) for name in ("b12x", "flashinfer_moe_ep_mega_deep_gemm")},
    "flashinfer_moe_ep_mega_cutedsl": (((0, 29, 0), (0, 32, 0)),),
    **{name: (((0, 30, 0), None),) for name in ("aiter_triton_mxfp4_bf16", "rdna3")},
    **{name: (((0, 32, 0), None),) for name in ("flashinfer_moe_ep_cutedsl", "aiter_mega_moe")},
    "aiter_triton_mxfp4_mxfp4": (((0, 33, 0), None),),
}


def _moe_backend_in_wheel(name: str, release: V) -> bool:
    return any(first <= release and (until is None or release < until) for first, until in MOE_BACKENDS.get(name, ()))


def moe_backend_taken(name: str, release: V) -> bool | None:
    """Whether vLLM `release`'s --moe-backend takes `name` (already lower-cased, '-' as '_'; MOE_BACKENDS); None where
    it is not known: a release older than the flag (its own check), or one between two wheels read that differ."""
    if release < MOE_BACKEND_WHEELS_READ[0]:
        return None
    before = max(r for r in MOE_BACKEND_WHEELS_READ if r <= release)
    after = min((r for r in MOE_BACKEND_WHEELS_READ if r >= release), default=before)
    taken = {_moe_backend_in_wheel(name, before), _moe_backend_in_wheel(name, after)}
    return taken.pop() if len(taken) == 1 else None


def moe_backends_of(release: V) -> list[str]:
    """The --moe-backend values of the newest wheel read at or before `release`, as its Literal orders them."""
    read = max(r for r in MOE_BACKEND_WHEELS_READ if r <= release)
    return [name for name in MOE_BACKENDS if _moe_backend_in_wheel(name, read)]


# Which MoE experts read --moe-backend, and the values each maps: the select_*_moe_backend oracles of
# vllm/model_executor/layers/fused_moe/oracle/ map KernelConfig.moe_backend (anything but "auto") with their
# map_*_backend dict, and a value missing from it raises ValueError "moe_backend='{value}' is not supported for {label}
# MoE. Expected one of [{the dict's keys}]." while the model's MoE layers are built. Per scheme: (its label in that
# message, [(first release, the dict's keys in order), ...]), read from the 0.17.0-0.34.0 wheels (every minor .0 and
# 0.20.1). "unquantized": oracle/unquantized.py (UnquantizedFusedMoEMethod, 0.17.0 on). "fp8": oracle/fp8.py
# (Fp8MoEMethod, the online FP8 method, compressed-tensors / ModelOpt FP8 experts; 0.17.0 on). "nvfp4": oracle/nvfp4.py
# (ModelOpt and compressed-tensors NVFP4 experts, 0.17.0 on). "mxfp4": oracle/mxfp4.py from 0.19.0 (0.17.0 and 0.18.0
# pick gpt-oss's MXFP4 kernel in quantization/mxfp4.py get_mxfp4_backend, which reads no moe_backend: the flag is
# ignored there). "wna16": oracle/int_wna16.py select_wna16_moe_backend, which GPTQ / AWQ / compressed-tensors int4
# and int8 weight-only experts ask from 0.20.0 (gptq_marlin.py, awq_marlin.py, auto_gptq.py) and which maps
# moe_backend from 0.25.0 (0.20.0-0.24.0: ignored). Keys that are not argparse choices (flashinfer_trtllm_afp8, ck,
# xpu, cpu, ...) cannot be given on the command line; they are listed because vLLM's message lists them.
_MXFP4_022 = ("deep_gemm", "flashinfer_trtllm", "flashinfer_trtllm_afp8", "flashinfer_cutlass",
              "flashinfer_cutlass_afp8", "triton", "triton_unfused", "humming", "marlin", "aiter", "aiter_mxfp4_fp8",
              "aiter_mxfp4_mxfp4", "xpu", "cpu", "emulation")
MOE_BACKEND_ORACLES: dict[str, tuple[str, list[tuple[V, tuple[str, ...]]]]] = {
    "unquantized": ("unquantized", [
        ((0, 17, 0), ("triton", "flashinfer_trtllm", "flashinfer_cutlass", "aiter")),
        ((0, 27, 0), ("triton", "batched_triton", "flashinfer_trtllm", "flashinfer_cutlass", "aiter"))]),
    "fp8": ("FP8", [
        ((0, 17, 0), ("triton", "deep_gemm", "cutlass", "flashinfer_trtllm", "flashinfer_cutlass", "marlin", "aiter")),
        ((0, 25, 0), ("triton", "deep_gemm", "cutlass", "flashinfer_trtllm", "flashinfer_cutlass", "marlin", "humming",
                      "aiter", "hpc"))]),
    "nvfp4": ("NvFP4", [
        ((0, 17, 0), ("cutlass", "flashinfer_trtllm", "flashinfer_cutlass", "flashinfer_cutedsl", "marlin")),
        ((0, 20, 0), ("cutlass", "flashinfer_trtllm", "flashinfer_cutlass", "flashinfer_cutedsl", "marlin",
                      "emulation")),
        ((0, 22, 0), ("cutlass", "flashinfer_trtllm", "flashinfer_cutlass", "flashinfer_cutedsl", "flashinfer_b12x",
                      "marlin", "emulation")),
        ((0, 25, 0), ("cutlass", "flashinfer_trtllm", "flashinfer_cutlass", "flashinfer_cutedsl", "flashinfer_b12x",
                      "marlin", "humming", "emulation")),
        ((0, 29, 0), ("b12x", "cutlass", "flashinfer_trtllm", "flashinfer_cutlass", "flashinfer_cutedsl",
                      "flashinfer_b12x", "marlin", "humming", "emulation")),
        ((0, 32, 0), ("b12x", "cutlass", "flashinfer_trtllm", "flashinfer_cutlass", "flashinfer_cutedsl",
                      "flashinfer_moe_ep_cutedsl", "flashinfer_b12x", "marlin", "humming", "emulation"))]),
    "mxfp4": ("MXFP4", [
        ((0, 19, 0), ("flashinfer_trtllm", "flashinfer_trtllm_afp8", "flashinfer_cutlass", "flashinfer_cutlass_afp8",
                      "triton", "marlin", "ck", "xpu")),
        ((0, 20, 0), ("deep_gemm", "flashinfer_trtllm", "flashinfer_trtllm_afp8", "flashinfer_cutlass",
                      "flashinfer_cutlass_afp8", "triton", "triton_unfused", "marlin", "aiter", "xpu", "emulation")),
        ((0, 21, 0), ("deep_gemm", "flashinfer_trtllm", "flashinfer_trtllm_afp8", "flashinfer_cutlass",
                      "flashinfer_cutlass_afp8", "triton", "triton_unfused", "humming", "marlin", "aiter",
                      "aiter_mxfp4_fp8", "xpu", "emulation")),
        ((0, 22, 0), _MXFP4_022),
        ((0, 29, 0), ("b12x",) + _MXFP4_022),
        ((0, 30, 0), ("b12x",) + _MXFP4_022[:10] + ("aiter_triton_mxfp4_bf16",) + _MXFP4_022[10:]),
        ((0, 32, 0), ("b12x",) + _MXFP4_022[:5] + ("flashinfer_moe_ep_cutedsl", "flashinfer_moe_ep_mega_deep_gemm")
         + _MXFP4_022[5:10] + ("aiter_triton_mxfp4_bf16",) + _MXFP4_022[10:]),
        ((0, 33, 0), ("b12x",) + _MXFP4_022[:5] + ("flashinfer_moe_ep_cutedsl", "flashinfer_moe_ep_mega_deep_gemm")
         + _MXFP4_022[5:10] + ("aiter_triton_mxfp4_bf16", "aiter_mxfp4_fp8", "aiter_triton_mxfp4_mxfp4")
         + _MXFP4_022[11:])]),
    "wna16": ("WNA16", [
        ((0, 25, 0), ("marlin", "humming", "flashinfer_trtllm")),
        ((0, 26, 0), ("marlin", "humming", "flashinfer_trtllm", "emulation")),
        ((0, 27, 0), ("triton", "marlin", "humming", "flashinfer_trtllm", "emulation")),
        ((0, 30, 0), ("triton", "marlin", "humming", "flashinfer_trtllm", "emulation", "rdna3"))]),
}


# DeepSeek-V4's architectures (config/kernel.py FLASHINFER_MOE_EP_ARCHITECTURES, 0.29.0-0.34.0): the only models the
# FlashInfer MoE-EP megakernels take; their model code (models/deepseek_v4/) picks the MoE kernel itself
DEEPSEEK_V4_ARCHITECTURES = ("DeepSeekV4MTPModel", "DeepseekV4ForCausalLM")  # as sorted() orders them in vLLM's message


def moe_backend_oracle_since(scheme: str) -> V | None:
    """The first release whose experts of `scheme` read --moe-backend (MOE_BACKEND_ORACLES), None for a scheme none do."""
    row = MOE_BACKEND_ORACLES.get(scheme)
    return row[1][0][0] if row else None


def moe_backend_oracle(scheme: str, release: V) -> tuple[str, tuple[str, ...]] | None:
    """(label, the values its map_*_backend takes) of the oracle that reads --moe-backend for experts of `scheme`
    (MOE_BACKEND_ORACLES) in vLLM `release`; None where that release's experts of the scheme do not read the flag."""
    row = MOE_BACKEND_ORACLES.get(scheme)
    keys = _value_at(row[1], release) if row else None
    return (row[0], keys) if keys else None


# --block-size's argparse choices, release by release (engine/arg_utils.py choices up to 0.8.4, the BlockSize Literal
# of vllm/config.py / vllm/config/cache.py from 0.8.5; 0.6.5's wheel is back to 8-32; 256 joins the Literal in 0.11.1:
# 0.11.0's config/cache.py ends at 128, 0.11.1's and 0.11.2's hold 256); () from 0.18: any positive int
BLOCK_SIZE_CHOICES: list[tuple[V, tuple[int, ...]]] = [
    ((0, 0, 0), (8, 16, 32)), ((0, 6, 4), (8, 16, 32, 64, 128)), ((0, 6, 5), (8, 16, 32)),
    ((0, 6, 6), (8, 16, 32, 64, 128)), ((0, 8, 5), (1, 8, 16, 32, 64, 128)), ((0, 11, 1), (1, 8, 16, 32, 64, 128, 256)),
    ((0, 18, 0), ()),
]

# Environment settings a release's server stops on, with the releases (first, first without): VLLM_USE_V1=0 in 0.11.0,
# which removed the V0 engine but still reads the variable: create_engine_config then picks no V1, and
# build_async_engine_client_from_engine_args asserts envs.VLLM_USE_V1 (entrypoints/openai/api_server.py); 0.8-0.10 run
# V0 with it, 0.11.1 dropped the variable (vllm/envs.py).
SERVE_ENV_REFUSED: dict[tuple[str, str], tuple[V, V, str]] = {
    ("VLLM_USE_V1", "0"): ((0, 11, 0), (0, 11, 1), "it has no V0 engine left, and its API server asserts V1"),
}


# Environment variables a release refuses whatever their value, but the values listed: (first release, the values
# still taken, vLLM's message with {value}, what it takes instead). From 0.34.0 EngineArgs.create_engine_config runs
# Platform.validate_environ (platforms/interface.py, 0.34.0 wheel), which raises ValueError for each variable in
# envs.removed_environment_variables ("{env} has been removed. {hint}") and for VLLM_USE_V2_MODEL_RUNNER other than "1"
# (Model Runner V1, the only thing =0 selected in 0.22-0.33, is gone: envs.py no longer reads the variable; =1 only
# logs "VLLM_USE_V2_MODEL_RUNNER=1 is redundant and can be unset"). 0.33.0's validate_environ only warned of unknown
# VLLM_ variables; its envs.py read VLLM_MARLIN_INPUT_DTYPE (int8 / fp8 activations for Marlin).
SERVE_ENV_REMOVED: dict[str, tuple[V, tuple[str, ...], str, str]] = {
    "VLLM_USE_V2_MODEL_RUNNER": ((0, 34, 0), ("1",), "VLLM_USE_V2_MODEL_RUNNER={value} is no longer supported: Model "
                                 "Runner V1 has been removed. Unset this variable.",
                                 "unset it (model runner v2 is the only runner)"),
    "VLLM_MARLIN_INPUT_DTYPE": ((0, 34, 0), (), "VLLM_MARLIN_INPUT_DTYPE has been removed. Marlin no longer supports "
                                "8-bit activations. Use `--quantization humming` and set the activation dtype with "
                                "VLLM_HUMMING_INPUT_QUANT_CONFIG, e.g. '{{\"dtype\":\"int8\"}}'.",
                                "drop it (Marlin runs 16-bit activations)"),
}


def check_serve_env(env, version: str) -> None:
    """InputError naming the first (name, value) of `env` that vLLM `version`'s server stops on (SERVE_ENV_REFUSED,
    SERVE_ENV_REMOVED)."""
    release = parse_version(version)
    for name, value in env:
        refused = SERVE_ENV_REFUSED.get((name, str(value).strip()))
        if refused and refused[0] <= release < refused[1]:
            raise InputError("--env", f"vLLM {version} stops on {name}={value} ({refused[2]})",
                             f"drop {name}, or use a release before {release_text(refused[0])}")
        removed = SERVE_ENV_REMOVED.get(name)
        if removed and release >= removed[0] and str(value).strip() not in removed[1]:
            said = removed[2].format(value=str(value).strip())
            raise InputError("--env", f"vLLM {version} stops on {name}={value} before loading anything: {said}",
                             f"{removed[3]}, or use a release before {release_text(removed[0])}")

# How a switch is turned off, release by release: (first version, (flag, value) or None). None: the release has no
# "off" form, and off is its default (prefix caching before 0.6.5, V0; chunked prefill before 0.5.3, whose automatic
# chunking of long contexts starts in 0.5.4). Read in engine/arg_utils.py: store_true, then StoreBoolean
# (nargs="?": "--enable-chunked-prefill False"), then argparse.BooleanOptionalAction (--no-...).
SERVE_SWITCH_OFF: dict[str, list[tuple[V, tuple[str, str | None] | None]]] = {
    "--enable-prefix-caching": [((0, 0, 0), None), ((0, 6, 5), ("--no-enable-prefix-caching", None))],
    "--enable-chunked-prefill": [((0, 0, 0), None), ((0, 5, 3), ("--enable-chunked-prefill", "False")),
                                 ((0, 8, 5), ("--no-enable-chunked-prefill", None))],
    "--enable-extensible-kv-cache": [((0, 0, 0), None), ((0, 34, 0), ("--no-enable-extensible-kv-cache", None))],
}


def serve_switch(flag: str, on: bool, version: str) -> tuple[str, str | None] | None:
    """(flag, value) that sets switch `flag` on or off in `version`'s `vllm serve` (SERVE_SWITCH_OFF); None when off is
    the release's default and it has no way to say so."""
    return (flag, None) if on else _value_at(SERVE_SWITCH_OFF[flag], parse_version(version))


def serve_entrypoint(version: str) -> tuple[tuple[str, ...], bool]:
    """(the command that starts the OpenAI server of `version`, whether the model is given as --model)."""
    if parse_version(version) >= SERVE_CONSOLE_SCRIPT_SINCE:
        return ("vllm", "serve"), False
    return MODULE_SERVER, True


def check_serve_flags(names, version: str, values=None) -> None:
    """InputError naming the first flag of `names` that vLLM `version` does not have (SERVE_FLAG_SINCE), or whose value
    in `values` ({flag: value}) it does not take yet (SERVE_VALUE_SINCE), or the version when it is older than every
    wheel read."""
    release = parse_version(version)
    if release < OLDEST_FLAGS_READ:  # "first in 0.4.2" there means "in the oldest wheel read": not known to be missing
        oldest = release_text(OLDEST_FLAGS_READ)
        raise InputError("--vllm-version", f"vLLM {version} is older than the oldest release whose flags kvplan read "
                         f"({oldest}), so the launch command cannot be checked against it",
                         f"use --vllm-version {oldest} or later")
    for name in names:
        _check_flag_exists(name, release, version)
    check_serve_values(values or {}, version)


def _check_flag_exists(name: str, release: V, version: str) -> None:
    """InputError when vLLM `version` (`release`) has no flag `name` yet (SERVE_FLAG_SINCE)."""
    first = SERVE_FLAG_SINCE.get(name)
    if first is not None and release < first:
        since = release_text(first)
        before = _value_at(SERVE_FLAG_BEFORE[name], release) if name in SERVE_FLAG_BEFORE else None
        raise InputError(name, f"vLLM {version} has no {name} flag (first in vLLM {since}), so its server would "
                         "refuse the launch command" + (f"; {before}" if before else ""),
                         f"drop {name} or use --vllm-version {since} or later")
    gone = removed_flag(name, version)
    if gone is not None:
        raise InputError(name, gone[0], f"{gone[1]}, or use a --vllm-version before {gone[2]}")


def removed_flag(name: str, version: str) -> tuple[str, str, str] | None:
    """(why, fix, the release that removed it) where vLLM `version`'s `vllm serve` no longer has flag `name`
    (SERVE_FLAG_UNTIL), else None: the one reading behind a flag refused by fit and scaffold and a log's flag that
    `kvplan reconcile` carries to a later release."""
    gone = SERVE_FLAG_UNTIL.get(name)
    if gone is None or parse_version(version) < gone[0]:
        return None
    last = release_text(gone[0])
    return (f"vLLM {version} has no {name} flag (removed in vLLM {last}), so its server would refuse the launch "
            "command", gone[1], last)


def check_serve_values(values, version: str) -> None:
    """InputError naming the first flag of `values` ({flag: value}, None: not given) that vLLM `version`'s argparse or
    config refuses: a flag the release does not have yet (SERVE_FLAG_SINCE), a --block-size outside its choices
    (BLOCK_SIZE_CHOICES), or a value that came later than the flag (SERVE_VALUE_SINCE). Used by the plan as by the
    launch files, so fit and scaffold refuse alike."""
    release = parse_version(version)
    values = {name: str(value) for name, value in values.items() if value is not None}
    choices = _value_at(BLOCK_SIZE_CHOICES, release)
    block = values.get("--block-size")
    if block is not None and choices and int(block) not in choices:
        raise InputError("--block-size", f"vLLM {version}'s --block-size takes {', '.join(map(str, choices))}, not "
                         f"{block}: its argparse would refuse the launch command",
                         f"drop --block-size (vLLM picks its own) or give one of {', '.join(map(str, choices))}")
    if release < OLDEST_FLAGS_READ:  # what came "first in" the oldest wheel read may be older: nothing known to refuse
        return
    for name in values:
        _check_flag_exists(name, release, version)
    backend = values.get("--all2all-backend")
    if backend is not None and all2all_backend_taken(backend, release) is False:
        import difflib

        taken = all2all_backends_of(release)
        near = difflib.get_close_matches(backend.strip().lower(), taken, n=1, cutoff=0.6)
        raise InputError("--all2all-backend", f"vLLM {version}'s --all2all-backend takes {', '.join(taken)}, not "
                         f"{backend!r}: its argparse would refuse the launch command",
                         (f"did you mean {near[0]}? " if near else "") + "give one of them, or drop --all2all-backend "
                         "for vLLM's default")
    moe = values.get("--moe-backend")
    if moe is not None and moe_backend_taken(moe, release) is False:
        import difflib

        taken = moe_backends_of(release)
        known = MOE_BACKENDS.get(moe)
        why = ""
        if known and release < known[0][0]:
            why = f" ({moe} is first in vLLM {release_text(known[0][0])})"
        elif known and known[-1][1] is not None and release >= known[-1][1]:
            why = f" ({moe} was removed in vLLM {release_text(known[-1][1])})"
        near = difflib.get_close_matches(moe, taken, n=1, cutoff=0.6)
        raise InputError("--moe-backend", f"vLLM {version}'s --moe-backend takes {', '.join(taken)}, not {moe!r}{why}: "
                         f"its argparse would refuse the launch command (\"argument --moe-backend: invalid choice: "
                         f"'{moe}'\")", (f"did you mean {near[0]}? " if near else "") + "give one of them, or drop "
                         "--moe-backend (auto: vLLM picks the kernel)")
    for name, value in values.items():
        first = SERVE_VALUE_SINCE.get(name, {}).get(value)
        if first is not None and release < first:
            since = release_text(first)
            raise InputError(name, f"vLLM {version}'s {name} does not take {value} (first in vLLM {since}): it would "
                             "refuse the launch command", f"use another {name} or --vllm-version {since} or later")


# Minimum compute capability of each --quantization method: QuantizationConfig.get_min_capability() of its config
# class, which vLLM compares with the GPU's before loading ("The quantization method {q} is not supported for the
# current GPU. Minimum capability: {m}. Current capability: {c}." -- vllm/config.py VllmConfig._get_quantization_config
# in 0.7.3, vllm/config/vllm.py in 0.33.0). Steps as read in the release wheels 0.4.2-0.33.0 (the file named per row;
# from 0.22/0.24 the GPTQ/AWQ methods are served by auto_gptq.py (60) / auto_awq.py (75)):
QUANT_MIN_CAPABILITY: dict[str, list[tuple[V, int]]] = {
    "gptq": [((0, 0, 0), 60)],                                         # gptq.py, auto_gptq.py
    "awq": [((0, 0, 0), 75)],                                          # awq.py, auto_awq.py
    "gptq_marlin": [((0, 0, 0), 80), ((0, 14, 0), 75), ((0, 22, 0), 60)],  # gptq_marlin.py, then auto_gptq.py
    "awq_marlin": [((0, 5, 3), 80), ((0, 14, 0), 75)],                 # awq_marlin.py (new in 0.5.3)
    "fp8": [((0, 0, 0), 89), ((0, 5, 1), 80), ((0, 14, 0), 75)],       # fp8.py Fp8Config
    "compressed-tensors": [((0, 5, 0), 60), ((0, 5, 1), 75), ((0, 5, 3), 70)],  # compressed_tensors/compressed_tensors.py
    "bitsandbytes": [((0, 5, 0), 70)],                                 # bitsandbytes.py
    "mxfp4": [((0, 10, 1), 80)],                                       # mxfp4.py Mxfp4Config
    "modelopt": [((0, 6, 1), 89), ((0, 27, 0), 80)],                   # modelopt.py ModelOptFp8Config
    "modelopt_fp4": [((0, 8, 0), 100), ((0, 9, 0), 80), ((0, 14, 0), 75)],  # modelopt.py ModelOptNvFp4Config
    # w4afp8.py W4AFP8Config (new in 0.34.0): a subclass of Fp8Config, whose get_min_capability it keeps (75)
    "w4afp8": [((0, 34, 0), 75)],
}


# The compute capability from which vLLM runs FP8 / NVFP4 checkpoints' Linear and MoE GEMMs natively (8-bit / 4-bit
# activations); below it, on a GPU the method's QUANT_MIN_CAPABILITY step admits, the weights are repacked for Marlin
# and computed in the model's 16-bit dtype, with the warning "Your GPU does not have native support for FP8
# computation but FP8 quantization is being used. Weight-only FP8 compression will be used leveraging the Marlin
# kernel. This may degrade performance for compute-heavy workloads." (FP4 alike). FP8: cutlass_fp8_supported ->
# cutlass_scaled_mm_supports_fp8 (8.9+), else MarlinFP8ScaledMMLinearKernel (kernels/linear/scaled_mm/marlin.py,
# quantization/utils/marlin_utils_fp8.py prepare_fp8_layer_for_marlin, 0.33.0 wheel; Fp8LinearMethod's
# use_marlin = not has_device_capability(89) in 0.5.1-0.20). NVFP4: cutlass_fp4_supported ->
# cutlass_scaled_mm_supports_fp4 (10.0+: 10.0, 10.3, 11.0, 12.0, 12.1), else MarlinNvFp4LinearKernel
# (kernels/linear/nvfp4/marlin.py, quantization/utils/nvfp4_utils.py, 0.33.0 wheel; ModelOptNvFp4LinearMethod's
# use_marlin from 0.9.0, when modelopt_fp4's minimum capability fell from 10.0 to 8.0). Keyed by the scheme's
# leading word (QuantSpec.scheme: "fp8 block 128x128", "nvfp4 (modelopt)").
NATIVE_LOW_PRECISION_CAPABILITY: dict[str, tuple[int, int]] = {"fp8": (8, 9), "nvfp4": (10, 0)}


# vLLM's own list of --quantization values (QUANTIZATION_METHODS, from the QuantizationMethods Literal in
# vllm/model_executor/layers/quantization/__init__.py), read from the wheels of these releases. vLLM refuses any
# other value before loading ("Unknown quantization method" in ModelConfig's quantization check; "Invalid
# quantization method" in get_quantization_config).
QUANT_METHODS_READ: dict[V, tuple[str, ...]] = {
    (0, 10, 2): ("awq", "deepspeedfp", "tpu_int8", "fp8", "ptpc_fp8", "fbgemm_fp8", "modelopt", "modelopt_fp4", "bitblas", "gguf", "gptq_marlin_24", "gptq_marlin", "gptq_bitblas", "awq_marlin", "gptq", "compressed-tensors", "bitsandbytes", "hqq", "experts_int8", "ipex", "quark", "moe_wna16", "torchao", "auto-round", "rtn", "inc", "mxfp4", "petit_nvfp4"),
    (0, 11, 0): ("awq", "deepspeedfp", "tpu_int8", "fp8", "ptpc_fp8", "fbgemm_fp8", "modelopt", "modelopt_fp4", "bitblas", "gguf", "gptq_marlin_24", "gptq_marlin", "gptq_bitblas", "awq_marlin", "gptq", "compressed-tensors", "bitsandbytes", "hqq", "experts_int8", "ipex", "quark", "moe_wna16", "torchao", "auto-round", "rtn", "inc", "mxfp4", "petit_nvfp4"),
    (0, 12, 0): ("awq", "deepspeedfp", "tpu_int8", "fp8", "ptpc_fp8", "fbgemm_fp8", "fp_quant", "modelopt", "modelopt_fp4", "bitblas", "gguf", "gptq_marlin_24", "gptq_marlin", "gptq_bitblas", "awq_marlin", "gptq", "compressed-tensors", "bitsandbytes", "hqq", "experts_int8", "ipex", "quark", "moe_wna16", "torchao", "auto-round", "rtn", "inc", "mxfp4", "petit_nvfp4", "cpu_gptq", "cpu_awq"),
    # 0.19.0 has no online shorthand; 0.20.0 adds "online", fp8_per_tensor, fp8_per_block and
    # int8_per_channel_weight_only (the QuantizationMethods Literal of the 0.19.0 and 0.20.0 wheels); fp8_per_channel
    # is first read in 0.27.0
    (0, 19, 0): ("awq", "fp8", "fbgemm_fp8", "fp_quant", "modelopt", "modelopt_fp4", "modelopt_mxfp8", "modelopt_mixed", "gguf", "gptq_marlin", "awq_marlin", "gptq", "compressed-tensors", "bitsandbytes", "experts_int8", "quark", "moe_wna16", "torchao", "inc", "mxfp4", "mxfp8", "petit_nvfp4", "cpu_awq"),
    (0, 20, 0): ("awq", "fp8", "fbgemm_fp8", "fp_quant", "modelopt", "modelopt_fp4", "modelopt_mxfp8", "modelopt_mixed", "gguf", "gptq_marlin", "awq_marlin", "gptq", "humming", "compressed-tensors", "bitsandbytes", "experts_int8", "quark", "moe_wna16", "torchao", "inc", "mxfp4", "gpt_oss_mxfp4", "deepseek_v4_fp8", "cpu_awq", "online", "fp8_per_tensor", "fp8_per_block", "int8_per_channel_weight_only", "mxfp8"),
    # 0.23.0 is the last release with GGUF: its wheel has model_executor/model_loader/gguf_loader.py,
    # layers/quantization/gguf.py and transformers_utils/gguf_utils.py, the 0.24.0 wheel none of them (nor "gguf" in
    # the list); 0.24.0 adds auto_awq and fp8_per_channel (the QuantizationMethods Literal of both wheels)
    (0, 23, 0): ("awq", "fp8", "fbgemm_fp8", "fp_quant", "modelopt", "modelopt_fp4", "modelopt_mxfp8", "modelopt_mixed", "gguf", "auto_gptq", "gptq", "gptq_marlin", "awq_marlin", "humming", "compressed-tensors", "bitsandbytes", "experts_int8", "quark", "moe_wna16", "torchao", "inc", "mxfp4", "gpt_oss_mxfp4", "deepseek_v4_fp8", "online", "fp8_per_tensor", "fp8_per_block", "int8_per_channel_weight_only", "mxfp8"),
    (0, 24, 0): ("awq", "auto_awq", "fp8", "fbgemm_fp8", "fp_quant", "modelopt", "modelopt_fp4", "modelopt_mxfp8", "modelopt_mixed", "auto_gptq", "gptq", "gptq_marlin", "awq_marlin", "humming", "compressed-tensors", "bitsandbytes", "experts_int8", "quark", "moe_wna16", "torchao", "inc", "mxfp4", "gpt_oss_mxfp4", "deepseek_v4_fp8", "online", "fp8_per_tensor", "fp8_per_block", "fp8_per_channel", "int8_per_channel_weight_only", "mxfp8"),
    # 0.27.0 is the last release with bitsandbytes (its wheel has layers/quantization/bitsandbytes.py and
    # model_loader/bitsandbytes_loader.py; the 0.28.0 wheel has neither, after RFC vllm#39583)
    (0, 27, 0): ("awq", "auto_awq", "fp8", "fbgemm_fp8", "fp_quant", "modelopt", "modelopt_fp4", "modelopt_mxfp8", "modelopt_mixed", "auto_gptq", "gptq", "gptq_marlin", "awq_marlin", "humming", "compressed-tensors", "bitsandbytes", "experts_int8", "quark", "moe_wna16", "torchao", "inc", "mxfp4", "gpt_oss_mxfp4", "deepseek_v4_fp8", "online", "fp8_per_tensor", "fp8_per_block", "fp8_per_channel", "int8_per_channel_weight_only", "nvfp4_per_token", "mxfp8"),
    (0, 28, 0): ("awq", "auto_awq", "fp8", "fbgemm_fp8", "fp_quant", "modelopt", "modelopt_fp4", "modelopt_mxfp8", "modelopt_mixed", "auto_gptq", "gptq", "gptq_marlin", "awq_marlin", "humming", "compressed-tensors", "experts_int8", "quark", "moe_wna16", "torchao", "inc", "mxfp4", "gpt_oss_mxfp4", "deepseek_v4_fp8", "online", "fp8_per_tensor", "fp8_per_block", "fp8_per_channel", "int8_per_channel_weight_only", "nvfp4_per_token", "mxfp8"),
    (0, 33, 0): ("awq", "auto_awq", "fp8", "fbgemm_fp8", "fp_quant", "modelopt", "modelopt_fp4", "modelopt_mxfp8", "modelopt_mixed", "auto_gptq", "gptq", "gptq_marlin", "awq_marlin", "humming", "compressed-tensors", "experts_int8", "quark", "moe_wna16", "torchao", "inc", "mxfp4", "gpt_oss_mxfp4", "deepseek_v4_fp8", "online", "fp8_per_tensor", "fp8_per_block", "fp8_per_channel", "int8_per_channel_weight_only", "nvfp4_per_token", "mxfp8"),
    # 0.34.0 drops fp_quant (deprecated since 0.14.0; its wheel has no layers/quantization/fp_quant.py) and adds
    # w4afp8 (w4afp8.py W4AFP8Config: INT4 routed experts with FP8 activations, an Fp8Config otherwise) and two online
    # shorthands, lut_b_moe and mxfp4_hadamard32 (vllm/config/quantization.py _ONLINE_SHORTHANDS)
    (0, 34, 0): ("awq", "auto_awq", "fp8", "w4afp8", "fbgemm_fp8", "modelopt", "modelopt_fp4", "modelopt_mxfp8", "modelopt_mixed", "auto_gptq", "gptq", "gptq_marlin", "awq_marlin", "humming", "compressed-tensors", "experts_int8", "quark", "moe_wna16", "torchao", "inc", "mxfp4", "gpt_oss_mxfp4", "deepseek_v4_fp8", "online", "fp8_per_tensor", "fp8_per_block", "fp8_per_channel", "int8_per_channel_weight_only", "nvfp4_per_token", "mxfp8", "lut_b_moe", "mxfp4_hadamard32"),
}


# vLLM's spelling of every method name above, by the name with "-" read as "_" (vLLM's own names mix the two:
# "compressed-tensors", "auto-round", "gptq_marlin"; no two of them differ only there)
_QUANT_SPELLING: dict[str, str] = {name.replace("-", "_"): name for names in (*QUANT_METHODS_READ.values(), QUANT_MIN_CAPABILITY)
                                   for name in names}


def canonical_quant(name: str) -> str:
    """A --quantization value as vLLM spells it, whatever its case and "-"/"_" ('Compressed_Tensors' ->
    'compressed-tensors'); a name vLLM never had, lower-cased."""
    return _QUANT_SPELLING.get(name.lower().replace("-", "_"), name.lower())


def quantization_methods(version: str) -> frozenset[str] | None:
    """The --quantization values vLLM `version` accepts, as far as kvplan has read: the list of the release read at
    or before it, with the list of the next release read (a release between two reads accepts a name either has; a
    release read takes its own list alone); None before the first release read (no list known, nothing refused)."""
    release = parse_version(version)
    reads = sorted(QUANT_METHODS_READ.items())
    at = _value_at(reads, release)
    if at is None:
        return None
    if release in QUANT_METHODS_READ:
        return frozenset(at)
    after = [names for first, names in reads if first > release]
    return frozenset(at + (after[0] if after else ()))


def quant_method_last_read(method: str, version: str) -> str | None:
    """The newest release read before `version` whose --quantization list has `method` (vLLM dropped it since), as
    "X.Y.Z"; None where no earlier list read has it."""
    release, method = parse_version(version), canonical_quant(method)
    had = [first for first, names in QUANT_METHODS_READ.items() if first < release and method in names]
    return release_text(max(had)) if had else None


def quant_min_capability(method: str | None, version: str) -> tuple[int, int] | None:
    """The compute capability vLLM `version` requires for quantization `method` (None: no gate known)."""
    if not method:
        return None
    value = _value_at(QUANT_MIN_CAPABILITY.get(canonical_quant(method), ()), parse_version(version))
    return None if value is None else divmod(value, 10)


# ---- vllm:cache_config_info's labels by release (kvplan reconcile of a server's /metrics) ----------------------------
# The metric's labels are CacheConfig's fields (metrics_info: `{key: str(value) for key, value in self.__dict__.items()}`,
# vllm/config.py 0.6.4, vllm/config/cache.py 0.11.0-0.34.0) plus V1's engine label (vllm/v1/metrics/loggers.py
# log_metrics_info, 0.11.0-0.34.0; V0's vllm/engine/metrics.py info sets none, 0.6.4). Read in these wheels:
CACHE_CONFIG_INFO_WHEELS: tuple[V, ...] = (
    (0, 6, 4), (0, 11, 0), (0, 11, 1), (0, 11, 2), (0, 12, 0), (0, 13, 0), (0, 14, 0), (0, 20, 0), (0, 26, 0),
    (0, 28, 0), (0, 29, 0), (0, 30, 0), (0, 32, 0), (0, 33, 0), (0, 34, 0),
)
# each label some of them lack: (the first, the last wheel read whose CacheConfig has it). Every wheel read has
# block_size, cache_dtype, enable_prefix_caching, gpu_memory_utilization, is_attention_free, num_cpu_blocks,
# num_gpu_blocks, num_gpu_blocks_override and sliding_window; hash_block_size (0.20.0, gone in 0.26.0-0.28.0, back
# from 0.29.0) and the private _block_size_resolved / _extensible_kv_cache_resolved are left out.
CACHE_CONFIG_INFO_LABELS: dict[str, tuple[V, V]] = {
    "engine": ((0, 11, 0), (0, 34, 0)),
    "swap_space_bytes": ((0, 6, 4), (0, 6, 4)),
    "cpu_offload_gb": ((0, 6, 4), (0, 14, 0)),
    "swap_space": ((0, 11, 0), (0, 14, 0)),
    "cpu_kvcache_space_bytes": ((0, 11, 0), (0, 14, 0)),
    "calculate_kv_scales": ((0, 11, 0), (0, 26, 0)),
    "kv_cache_memory_bytes": ((0, 11, 0), (0, 34, 0)),
    "kv_sharing_fast_prefill": ((0, 11, 0), (0, 34, 0)),
    "mamba_cache_dtype": ((0, 11, 0), (0, 34, 0)),
    "mamba_page_size_padded": ((0, 11, 0), (0, 34, 0)),
    "mamba_ssm_cache_dtype": ((0, 11, 0), (0, 34, 0)),
    "prefix_caching_hash_algo": ((0, 11, 0), (0, 34, 0)),
    "kv_offloading_backend": ((0, 11, 1), (0, 34, 0)),
    "kv_offloading_size": ((0, 11, 1), (0, 34, 0)),
    "mamba_block_size": ((0, 11, 1), (0, 34, 0)),
    "kv_cache_dtype_skip_layers": ((0, 20, 0), (0, 34, 0)),
    "mamba_cache_mode": ((0, 20, 0), (0, 34, 0)),
    "user_specified_block_size": ((0, 20, 0), (0, 34, 0)),
    "user_specified_mamba_block_size": ((0, 20, 0), (0, 30, 0)),
    "kv_cache_max_concurrency": ((0, 26, 0), (0, 34, 0)),
    "kv_cache_size_tokens": ((0, 26, 0), (0, 34, 0)),
    "prefix_match_unit": ((0, 26, 0), (0, 34, 0)),
    "skip_page_size_padded": ((0, 26, 0), (0, 34, 0)),
    "replayssm_buffer_len": ((0, 28, 0), (0, 34, 0)),
    "use_replayssm": ((0, 28, 0), (0, 34, 0)),
    "kv_cache_layout": ((0, 29, 0), (0, 34, 0)),
    "prefix_cache_retention_interval": ((0, 29, 0), (0, 34, 0)),
    "use_kda_recoverssm": ((0, 29, 0), (0, 34, 0)),
    "enable_mamba_fine_grained_prefix_cache": ((0, 30, 0), (0, 30, 0)),
    "cache_hit_alignment_tokens": ((0, 32, 0), (0, 34, 0)),
    "effective_attention_block_size": ((0, 32, 0), (0, 34, 0)),
    "enable_mamba_shared_prefix_checkpoint": ((0, 32, 0), (0, 34, 0)),
    "swa_bounded_replay": ((0, 32, 0), (0, 34, 0)),
    "simple_cpu_offload_num_blocks": ((0, 33, 0), (0, 34, 0)),
    "enable_extensible_kv_cache": ((0, 34, 0), (0, 34, 0)),
}


# the labels every wheel read has, and hash_block_size (left out above)
CACHE_CONFIG_INFO_COMMON = frozenset({"block_size", "cache_dtype", "enable_prefix_caching", "gpu_memory_utilization",
                                      "is_attention_free", "num_cpu_blocks", "num_gpu_blocks", "num_gpu_blocks_override",
                                      "sliding_window", "hash_block_size"})


def cache_config_info_releases(labels) -> tuple[V, ...]:
    """The wheels read (CACHE_CONFIG_INFO_WHEELS) whose vllm:cache_config_info has exactly these of
    CACHE_CONFIG_INFO_LABELS: each label present within its releases, each absent outside them; none where a label is
    one no wheel read has (a release not read wrote it)."""
    names = set(labels)
    if any(n not in CACHE_CONFIG_INFO_COMMON and n not in CACHE_CONFIG_INFO_LABELS and not n.startswith("_")
           for n in names):
        return ()
    return tuple(r for r in CACHE_CONFIG_INFO_WHEELS
                 if all((name in names) == (first <= r <= last) for name, (first, last) in CACHE_CONFIG_INFO_LABELS.items()))


def cache_config_info_span(releases: tuple[V, ...]) -> tuple[V | None, V | None] | None:
    """(the wheel read before the first of `releases`, the one after the last): a release strictly between them may
    write those labels (releases between two wheels read are not known); None bounds are open ends. None where
    `releases` is empty."""
    if not releases:
        return None
    i, j = CACHE_CONFIG_INFO_WHEELS.index(releases[0]), CACHE_CONFIG_INFO_WHEELS.index(releases[-1])
    return (CACHE_CONFIG_INFO_WHEELS[i - 1] if i > 0 else None,
            CACHE_CONFIG_INFO_WHEELS[j + 1] if j + 1 < len(CACHE_CONFIG_INFO_WHEELS) else None)
