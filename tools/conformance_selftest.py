"""Start a fresh mockengine (real models, default settings) and run the HRP conformance suite against it,
at real-time pace, for both turn detections. Prints the runner's report; exits with its status.

Used by ``make test``; the runner talks to the engine only over the wire, as it would to any engine.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

STARTUP_TIMEOUT_S = 120


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_healthy(port: int, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"mockengine exited during start-up with status {server.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise SystemExit("mockengine did not become healthy in time")


def main() -> int:
    port = free_port()
    report = Path("reports") / "conformance.json"
    report.parent.mkdir(exist_ok=True)
    server = subprocess.Popen(
        [sys.executable, "-m", "mockengine", "serve", "--port", str(port), "--log-level", "WARNING"]
    )
    try:
        wait_healthy(port, server)
        url = f"ws://127.0.0.1:{port}/v1/realtime?model=gpt-realtime"
        print(f"HRP conformance against a fresh mockengine at {url}", flush=True)
        return subprocess.call(
            [
                sys.executable,
                "-m",
                "mockengine",
                "conformance",
                "--url",
                url,
                "--turn-detection",
                "all",
                "--json",
                str(report),
            ]
        )
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    raise SystemExit(main())
