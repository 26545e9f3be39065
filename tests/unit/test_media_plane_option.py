"""``serve --media-plane``: aiortc by default; pion only where its sidecar is built, said in one line."""

from __future__ import annotations

import pytest

from mockengine.cli import build_parser, settings_from_args


def parse(*argv: str):
    return settings_from_args(build_parser().parse_args(["serve", *argv]))


def test_the_default_plane_is_aiortc():
    assert parse().media_plane == "aiortc" and parse().media_udp_port == 0


def test_pion_without_its_sidecar_is_one_line_and_status_2(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("MOCKENGINE_PION_BIN", str(tmp_path / "missing"))
    with pytest.raises(SystemExit) as exited:
        parse("--media-plane", "pion")
    assert exited.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "make pion" in err[0] and "golang-github-pion-webrtc.v3-dev" in err[0], err


def test_pion_with_its_sidecar_takes_the_port(monkeypatch, tmp_path):
    sidecar = tmp_path / "mockengine-pion"
    sidecar.write_text("#!/bin/sh\n")
    sidecar.chmod(0o755)
    monkeypatch.setenv("MOCKENGINE_PION_BIN", str(sidecar))
    settings = parse("--media-plane", "pion", "--media-udp-port", "23100")
    assert (settings.media_plane, settings.media_udp_port) == ("pion", 23100)


def test_one_udp_port_for_several_workers_is_refused(monkeypatch, tmp_path, capsys):
    sidecar = tmp_path / "mockengine-pion"
    sidecar.write_text("#!/bin/sh\n")
    sidecar.chmod(0o755)
    monkeypatch.setenv("MOCKENGINE_PION_BIN", str(sidecar))
    with pytest.raises(SystemExit):
        parse("--media-plane", "pion", "--media-udp-port", "23100", "--workers", "2")
    assert "--media-udp-port" in capsys.readouterr().err
