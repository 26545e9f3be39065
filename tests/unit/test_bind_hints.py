"""``bind``'s one line names the setting to change: the port for a taken one, the host for one that does
not resolve or is not this machine's (an address from TEST-NET-1, RFC 5737). Over a subprocess, with the
environment's names: tests/integration/test_cli_sources.py."""

from __future__ import annotations

import errno
import socket

import pytest

from mockengine.server import lifecycle
from mockengine.server.lifecycle import CannotListen, bind


def refused(host: str, port: int) -> str:
    with pytest.raises(CannotListen) as caught:
        bind(host, port, port_label="P", host_label="H").close()
    return str(caught.value)


def test_a_taken_port_names_the_port() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert refused("127.0.0.1", port).endswith(
            ": address already in use (another server? choose another P)"
        )


def test_an_address_not_this_machines_names_the_host() -> None:
    said = refused("192.0.2.1", 0)
    assert said.startswith("cannot listen on 192.0.2.1:0: ") and said.endswith(
        " (not this machine's? choose another H)"
    ), said


def test_a_host_that_does_not_resolve_names_the_host() -> None:
    said = refused("nohost.invalid", 0)
    assert said.endswith(" (no such host? choose another H)"), said


class _NoPrivilege(socket.socket):
    """A socket whose bind is refused as an unprivileged process's is below 1024 (EACCES)."""

    def bind(self, address) -> None:  # type: ignore[no-untyped-def]
        raise PermissionError(errno.EACCES, "Permission denied")


def test_a_privileged_port_says_it_needs_privileges_and_names_a_port_to_choose(monkeypatch) -> None:
    """It said only "permission denied": nothing about why, nor what to do."""
    monkeypatch.setattr(lifecycle.socket, "socket", _NoPrivilege)
    assert refused("127.0.0.1", 80) == (
        "cannot listen on 127.0.0.1:80: permission denied (ports below 1024 need root or "
        "CAP_NET_BIND_SERVICE; choose another P, 1024 or above, e.g. 8765)"
    )


def test_a_refusal_of_an_ordinary_port_does_not_blame_its_number(monkeypatch) -> None:
    """EACCES on a port ≥ 1024 comes from elsewhere (a security policy): no privileged-port hint."""
    monkeypatch.setattr(lifecycle.socket, "socket", _NoPrivilege)
    assert refused("127.0.0.1", 8765) == "cannot listen on 127.0.0.1:8765: permission denied"
