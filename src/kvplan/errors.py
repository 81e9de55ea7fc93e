"""The error tree. Every failure a user can cause names the field and the fix.

Shaped like httpx's: one base class, a few branches a caller may catch separately.
The CLI maps `InputError` to exit code 2 and prints `str(error)` on one line.
"""

from __future__ import annotations


class KvplanError(Exception):
    """Base class of every error kvplan raises on purpose."""


class InputError(KvplanError):
    """Bad input: an unknown name, a value out of range, a malformed file.

    `field` names what was wrong (a flag such as ``--gpu``, or a config key);
    `fix` says what to do about it.
    """

    def __init__(self, field: str, message: str, fix: str | None = None):
        self.field = field
        self.message = message
        self.fix = fix
        text = f"{field}: {message}"
        if fix:
            text += f" ({fix})"
        super().__init__(text)


class UnknownModelError(InputError):
    pass


class UnknownGPUError(InputError):
    pass


class ConfigError(InputError):
    """A model config that is malformed, incomplete, or of an unsupported architecture."""


class UndeterminedError(InputError):
    """A number kvplan cannot determine. Raised instead of guessing."""


class RefusedByVLLMError(InputError):
    """Engine arguments vLLM itself refuses before loading anything, with its own message. `rule` names the check
    (e.g. 'max_num_batched_tokens < max_model_len'), so a caller can act on which one failed."""

    def __init__(self, field: str, message: str, fix: str | None = None, *, rule: str):
        self.rule = rule
        super().__init__(field, message, fix)


class HubError(KvplanError):
    """The Hugging Face Hub could not be reached or refused the request. Its text starts with the field it is about
    (`model:`), as an InputError's does."""

    def __init__(self, message: str, fix: str | None = None):
        self.field = "model"
        self.message = message
        self.fix = fix
        super().__init__(f"{self.field}: {message}" + (f" ({fix})" if fix else ""))


class GatedModelError(HubError):
    pass


class OfflineError(HubError):
    pass
