"""Programs beyond PyPI that some tests need (tools/install_test_deps.sh installs them)."""

from __future__ import annotations

import os
import shutil

import pytest


def need_program(program: str, install: str) -> str:
    """The path of ``program``. Without it the calling test, or the module at import, is skipped with how
    to install it (``install``); under ``CI=true`` it fails instead, as CI must run every test."""
    path = shutil.which(program)
    if path is None:
        reason = f"{program} is not installed ({install}; tools/install_test_deps.sh installs it)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason, allow_module_level=True)
    return path


def need_espeak_ng() -> None:
    """espeak-ng, which voices the turn corpus and the fingerprint's minimal pairs."""
    need_program("espeak-ng", "Debian package espeak-ng")
