"""``serve --port 80`` by a process without the privilege to take it: a real ``serve`` subprocess. It
said "cannot listen on 127.0.0.1:80: permission denied" and nothing more; the line now says why and
which ports to choose. As root (CI) the subprocess runs under ``capsh`` without CAP_NET_BIND_SERVICE,
which is what an ordinary user lacks; skipped where the port can be taken anyway."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

PORT = 80


def _unprivileged(argv: list[str]) -> list[str]:
    """``argv`` run without the privilege to bind below 1024."""
    if os.geteuid() != 0:
        return argv
    capsh = shutil.which("capsh")
    if capsh is None:
        pytest.skip("running as root without capsh to drop CAP_NET_BIND_SERVICE")
    return [capsh, "--drop=cap_net_bind_service", "--", "-c", 'exec "$0" "$@"', *argv]


def _binds(port: int) -> bool:
    probe = f"import socket; socket.socket().bind(('127.0.0.1', {port}))"
    return subprocess.run(_unprivileged([sys.executable, "-c", probe]), capture_output=True).returncode == 0


@pytest.mark.slow  # a mockengine subprocess
def test_serve_on_a_privileged_port_says_why_and_what_to_choose() -> None:
    if _binds(PORT):
        pytest.skip(f"port {PORT} can be bound here without privileges")
    result = subprocess.run(
        _unprivileged(
            [sys.executable, "-m", "mockengine", "serve", "--host", "127.0.0.1", "--port", str(PORT)]
        ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == [
        f"mockengine: cannot listen on 127.0.0.1:{PORT}: permission denied (ports below 1024 need root or "
        "CAP_NET_BIND_SERVICE; choose another --port, 1024 or above, e.g. 8765)"
    ], result.stderr
