"""ICE on one machine: loopback host candidates.

aioice gathers a host candidate for every address of every interface *except* loopback
(``aioice.ice.get_host_addresses`` skips 127.0.0.1 and ::1). A client on the same machine therefore meets
the engine only over another interface, and on a machine (or container) whose only interface is ``lo`` no
candidate pair exists at all. The engine's peer connections add a 127.0.0.1 host candidate to the ones
aioice gathers, so a client on the same machine can always reach it: an aiortc client through the same
helper, Chromium with ``--allow-loopback-in-peer-connection`` (it gathers no loopback candidates without
it; with other interfaces up it needs none). No STUN server is used: every candidate is a host candidate
and nothing leaves the machine during gathering (aiortc's default is Google's STUN server).
"""

from __future__ import annotations

from typing import Any

from aiortc import RTCConfiguration, RTCPeerConnection

LOOPBACK_V4 = "127.0.0.1"


def offline_configuration() -> RTCConfiguration:
    """No ICE servers: host candidates only, no network look-up while gathering."""
    return RTCConfiguration(iceServers=[])


def include_loopback(pc: RTCPeerConnection) -> None:
    """Make ``pc``'s ICE agents gather a 127.0.0.1 host candidate too. Call after the transports exist
    (after ``setRemoteDescription`` on the answering side, after ``addTrack`` / ``createDataChannel`` on
    the offering side) and before ``setLocalDescription``, which gathers."""
    for connection in ice_connections(pc):
        if getattr(connection, "_mockengine_loopback", False):
            continue
        gather = connection.get_component_candidates

        async def with_loopback(
            component: int, addresses: list[str], timeout: int = 5, _gather: Any = gather
        ) -> Any:
            extra = [LOOPBACK_V4] if LOOPBACK_V4 not in addresses else []
            return await _gather(component=component, addresses=[*addresses, *extra], timeout=timeout)

        connection.get_component_candidates = with_loopback
        connection._mockengine_loopback = True


def ice_connections(pc: RTCPeerConnection) -> list[Any]:
    """The aioice connections behind ``pc``'s transports (one with BUNDLE, the usual case)."""
    dtls = [t.receiver.transport for t in pc.getTransceivers()]
    if pc.sctp is not None:
        dtls.append(pc.sctp.transport)
    connections: list[Any] = []
    for transport in dtls:
        connection = transport.transport.iceGatherer._connection
        if connection not in connections:
            connections.append(connection)
    return connections
