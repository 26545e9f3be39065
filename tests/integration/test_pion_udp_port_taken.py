"""``serve --media-plane pion --media-udp-port N`` where N is taken (a second engine on the same port, as
a developer who copies the first one's command line does): one line naming the port and the option, as
for a taken ``--port``, before the models load. It was the sidecar's "bind: address already in use",
then a 50-line traceback ending "RuntimeError: the pion sidecar ended before it was ready"."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from mockengine.rtc.pion.plane import BUILD_NEEDS, is_built

pytestmark = pytest.mark.slow  # a mockengine subprocess


@pytest.mark.parametrize("source", ["flag", "environment"])
def test_a_taken_media_udp_port_is_one_line(source: str) -> None:
    if not is_built():
        if os.environ.get("CI") == "true":
            pytest.fail(f"the pion sidecar is not built (make pion; {BUILD_NEEDS})")
        pytest.skip(f"the pion sidecar is not built (make pion; {BUILD_NEEDS})")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as taken, socket.socket() as free:
        taken.bind(("127.0.0.1", 0))
        free.bind(("127.0.0.1", 0))
        udp_port, tcp_port = str(taken.getsockname()[1]), str(free.getsockname()[1])
        free.close()  # a free TCP port for the engine itself
        given = ("--media-udp-port", udp_port) if source == "flag" else ()
        result = subprocess.run(
            [sys.executable, "-m", "mockengine", "serve", "--port", tcp_port, "--media-plane", "pion"]
            + list(given),
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "MOCKENGINE_MEDIA_UDP_PORT": udp_port},
        )
    named = "--media-udp-port" if source == "flag" else "MOCKENGINE_MEDIA_UDP_PORT (--media-udp-port)"
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [
        f"mockengine: cannot listen on UDP 127.0.0.1:{udp_port}: address already in use "
        f"(another server? choose another {named})"
    ], result.stderr
