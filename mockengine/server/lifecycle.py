"""One serving process from bind to exit: listen, announce, and on SIGTERM / SIGINT stop in order.

Stopping: the listening socket closes first (no new connections); every Realtime session then gets the
events already queued for it and close 1001 ("going away", the code the live service uses when it ends a
session itself); HTTP requests under way may finish; then journals and traces are flushed and closed and
the model executors stopped. All of it within ``shutdown_grace_s``: past that, or on a second signal,
the process exits at once (status 1, logged). A clean stop exits 0.

Start-up: :func:`bind` takes the address before the models load (a taken port fails at once, one line,
and nobody can connect to a server still loading: the socket listens only when serving starts);
``serve_until_stopped`` then listens and announces the server (``on_listening``, with the bound port,
which ``--port 0`` lets the kernel choose), so a script that waits for the announcement can connect.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import signal
import socket
import ssl
import threading
import time
from collections.abc import Callable

from aiohttp import web

from mockengine.server.state import RUNNERS, LiveLoops
from mockengine.server.thread_names import named_executor
from mockengine.settings import Settings

log = logging.getLogger("mockengine")
GOING_AWAY = 1001
GOING_AWAY_REASON = "server shutting down"
FORCED_EXIT_STATUS = 1
# Ports below this need root or CAP_NET_BIND_SERVICE (Linux's default ip_unprivileged_port_start; the
# BSDs' and macOS's reserved ports end there too): an ordinary user's bind gets EACCES.
PRIVILEGED_BELOW = 1024


class CannotListen(Exception):
    """The address cannot be bound (taken, not local, no permission); ``str()`` is one line for humans."""


def track_runners(app: web.Application) -> None:
    """Keep the live Realtime session runners, and close them all (1001) when the application shuts
    down. The runner registers itself in ``app[RUNNERS]`` while it runs."""
    app[RUNNERS] = LiveLoops()
    app.on_shutdown.append(_close_sessions)


async def _close_sessions(app: web.Application) -> None:
    closed = app[RUNNERS].close_all(GOING_AWAY, GOING_AWAY_REASON)
    if closed:
        log.info("closing %d session(s) with %d", closed, GOING_AWAY)


def bind(
    host: str,
    port: int,
    *,
    reuse_port: bool = False,
    port_label: str = "--port",
    host_label: str = "--host",
) -> socket.socket:
    """A socket bound to ``host:port`` (not listening yet); raises :class:`CannotListen`, whose hint names
    the setting to change: ``port_label`` for a taken port, ``host_label`` for a host that does not resolve
    or is not this machine's (``MOCKENGINE_PORT (--port)`` when the value came from there)."""
    try:
        family, kind, proto, _name, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        hint = f" (no such host? choose another {host_label})" if isinstance(exc, socket.gaierror) else ""
        raise CannotListen(f"cannot listen on {host}:{port}: {_reason(exc)}{hint}") from exc
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(address)
    except OSError as exc:
        sock.close()
        hint = {
            errno.EADDRINUSE: f" (another server? choose another {port_label})",
            errno.EADDRNOTAVAIL: f" (not this machine's? choose another {host_label})",
        }.get(exc.errno or 0, "")
        if exc.errno == errno.EACCES and 0 < port < PRIVILEGED_BELOW:
            hint = (
                f" (ports below {PRIVILEGED_BELOW} need root or CAP_NET_BIND_SERVICE; choose another "
                f"{port_label}, {PRIVILEGED_BELOW} or above, e.g. {Settings.port})"
            )
        raise CannotListen(f"cannot listen on {host}:{port}: {_reason(exc)}{hint}") from exc
    return sock


def check_udp_port(host: str, port: int, *, port_label: str, host_label: str) -> None:
    """Raise :class:`CannotListen` if UDP ``host:port`` cannot be bound now (the pion sidecar's one
    port, ``--media-udp-port``; 0 is never checked: the sidecar picks a free one), saying which setting
    to change, as :func:`bind` does for TCP. The socket is closed again: the sidecar binds it itself,
    so a port taken in between still fails there (the sidecar says so)."""
    if not port:
        return
    try:
        family, kind, proto, _name, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_DGRAM, flags=socket.AI_PASSIVE
        )[0]
        with socket.socket(family, kind, proto) as sock:
            sock.bind(address)
    except OSError as exc:
        hint = {
            errno.EADDRINUSE: f" (another server? choose another {port_label})",
            errno.EADDRNOTAVAIL: f" (not this machine's? choose another {host_label})",
        }.get(exc.errno or 0, "")
        if isinstance(exc, socket.gaierror):
            hint = f" (no such host? choose another {host_label})"
        raise CannotListen(f"cannot listen on UDP {host}:{port}: {_reason(exc)}{hint}") from exc


def _reason(exc: OSError) -> str:
    return (exc.strerror or str(exc)).lower()


async def serve_until_stopped(
    app: web.Application,
    sock: socket.socket,
    *,
    grace_s: float,
    on_listening: Callable[[int], None],
    ssl_context: ssl.SSLContext | None = None,
    signals: tuple[signal.Signals, ...] = (signal.SIGTERM, signal.SIGINT),
    unix_path: str | None = None,
) -> None:
    """Serve ``app`` on ``sock`` (from :func:`bind`) until SIGTERM or SIGINT, then stop as the module
    says. ``on_listening(port)`` runs once the socket listens. ``signals``: what stops it. ``unix_path``:
    a unix socket served too (a worker's own address for its siblings, ``server/webrtc/siblings.py``)."""
    # Requests under way get most of the grace; closing journals and executors the rest.
    runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=grace_s * 0.8)
    # run_in_executor(None, …) (malloc_trim, the console's reads) on threads named ``default_N`` in /proc
    # (server/thread_names.py); asyncio.run shuts the loop's default executor down at its end.
    asyncio.get_running_loop().set_default_executor(named_executor("default"))
    await runner.setup()
    await web.SockSite(runner, sock, ssl_context=ssl_context).start()
    if unix_path is not None:
        await web.UnixSite(runner, unix_path).start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in signals:
        loop.add_signal_handler(signum, _on_signal, stop, signum)
    on_listening(int(sock.getsockname()[1]))
    await stop.wait()
    started = time.monotonic()
    watchdog = threading.Timer(grace_s, _forced_exit, ("the grace period ran out",))
    watchdog.daemon = True
    watchdog.start()
    await runner.cleanup()
    watchdog.cancel()
    log.info("stopped in %.2f s", time.monotonic() - started)


def _on_signal(stop: asyncio.Event, signum: int) -> None:
    if stop.is_set():
        _forced_exit(f"a second {signal.Signals(signum).name}")
    name = signal.Signals(signum).name
    log.info("%s: stopping (no new connections; sessions close with %d)", name, GOING_AWAY)
    stop.set()


def _forced_exit(why: str) -> None:
    log.warning("stopping at once: %s", why)
    logging.shutdown()
    os._exit(FORCED_EXIT_STATUS)
