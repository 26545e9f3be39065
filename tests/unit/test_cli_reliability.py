"""The reliability and security options map onto settings (CLI and environment)."""

from __future__ import annotations

import pytest

from mockengine.cli import build_parser, settings_from_args
from mockengine.settings import Settings, from_env


def parse(*argv: str) -> Settings:
    return settings_from_args(build_parser().parse_args(["serve", *argv]))


def test_repeated_api_key_and_limits_and_tls(monkeypatch):
    monkeypatch.delenv("MOCKENGINE_TLS", raising=False)
    settings = parse(
        "--api-key", "sk-a", "--api-key", "sk-b", "--max-sessions", "3", "--auth-failure", "http",
        "--tls-cert", "c.pem", "--tls-key", "k.pem", "--journal-dir", "j",
    )  # fmt: skip
    assert settings.api_keys == ("sk-a", "sk-b")
    assert (settings.max_sessions, settings.auth_failure, settings.journal_dir) == (3, "http", "j")
    assert settings.tls and settings.tls_cert == "c.pem"
    assert not parse().tls


def test_environment_lists_and_flags():
    settings = from_env(environ={"MOCKENGINE_API_KEYS": "sk-a, sk-b,", "MOCKENGINE_TLS": "1"})
    assert settings.api_keys == ("sk-a", "sk-b") and settings.tls


def test_bad_auth_failure_mode_is_refused(monkeypatch):
    monkeypatch.setenv("MOCKENGINE_AUTH_FAILURE", "teapot")
    with pytest.raises(SystemExit):
        parse()
