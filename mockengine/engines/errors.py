"""Engine errors: what the operator must fix before the server can run."""

from __future__ import annotations


class ModelNotFound(RuntimeError):
    """A configured model (whisper directory, piper voice) cannot be found on this machine.

    The message names the setting that chose the model (CLI flag and environment variable), the package
    that provides the default, and what was looked for, so the operator can fix it without reading code.
    mockengine never downloads weights, so a missing model is always a configuration error.
    """

    def __init__(self, *, what: str, looked_for: str, setting: str, env: str, package: str) -> None:
        self.what = what
        self.looked_for = looked_for
        self.setting = setting
        self.env = env
        self.package = package
        super().__init__(
            f"{what} not found: looked for {looked_for}. "
            f"Set {setting} / {env} to a local model, or install the '{package}' package "
            f"that provides the default (mockengine never downloads models)."
        )


class VoiceCatalogError(ValueError):
    """The voice catalogue file is unreadable or breaks its schema; the message names file and field."""
