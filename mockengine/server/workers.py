"""``mockengine serve --workers N``: N serving processes sharing one port (SO_REUSEPORT).

Each worker is a fresh process (``spawn``) that loads the models once and runs its own event loop; the
kernel spreads new connections over the listening workers. A session lives on the socket it arrived on,
so workers share no state and need none: the same holds across machines behind any L4/L7 load balancer
(see ``deploy/``). The parent only supervises: it forwards SIGINT/SIGTERM (each worker then stops as
``server/lifecycle.py`` says, within ``--shutdown-grace-s``), and when one worker dies it stops the rest
and exits with that worker's status, leaving restarts to the process manager.

``/metrics`` sums all workers through prometheus-client's multiprocess mode (the parent sets
``PROMETHEUS_MULTIPROC_DIR`` for the children). WebRTC calls are the exception to "no shared state": a
call's hang-up or sideband may land on another worker, which forwards it to the call's own worker over
that worker's unix socket (``server/webrtc/siblings.py``).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from mockengine.settings import Settings


def _worker(settings: Settings, index: int, ready: Any) -> None:
    from mockengine.server.loading import StoppedWhileLoading, stop_while_loading, stopped_while_loading

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the parent too, which forwards it
    logging.basicConfig(
        level=settings.log_level.upper(),
        format=f"%(asctime)s %(levelname)s %(name)s[w{index}] %(message)s",
    )
    try:
        with stop_while_loading((signal.SIGTERM,)):  # the parent's SIGTERM while loading: a clean stop
            _serve_worker(settings, index, ready)
    except StoppedWhileLoading as stopped:
        sys.exit(stopped_while_loading(stopped))


def _serve_worker(settings: Settings, index: int, ready: Any) -> None:
    import asyncio

    from mockengine.brain.scenario import ScenarioError
    from mockengine.engines.errors import ModelNotFound
    from mockengine.faults.spec import FaultSpecError
    from mockengine.server.app import create_app, settle_heap
    from mockengine.server.event_loop import install_event_loop
    from mockengine.server.lifecycle import CannotListen, bind, serve_until_stopped
    from mockengine.server.tls import server_ssl_context
    from mockengine.server.webrtc.siblings import SIBLINGS, WORKER_DIR_ENV, Siblings

    try:
        sock = bind(settings.host, settings.port, reuse_port=True)  # before the models load
        tls = server_ssl_context(settings) if settings.tls else None
        app = create_app(settings)
        siblings = Siblings(index, settings.workers, os.environ[WORKER_DIR_ENV])
        app[SIBLINGS] = siblings  # calls' hang-up and sideband reach the worker holding the call
    except (CannotListen, ModelNotFound, ScenarioError, FaultSpecError, OSError, ValueError) as exc:
        print(f"mockengine: {exc}", file=sys.stderr)
        sys.exit(2)
    settle_heap()
    install_event_loop(settings.loop)
    asyncio.run(
        serve_until_stopped(
            app,
            sock,
            grace_s=settings.shutdown_grace_s,
            on_listening=lambda _port: ready.put(index),  # the parent announces when all listen
            ssl_context=tls.context if tls is not None else None,
            signals=(signal.SIGTERM,),  # Ctrl-C reaches the parent too, which forwards it
            unix_path=siblings.socket_path(index),
        )
    )


def serve_workers(settings: Settings, label: Callable[[str], str] | None = None) -> int:
    """Run ``settings.workers`` worker processes on ``settings.host:port`` until signalled. ``label``
    names a setting in a start-up mistake (``serve``'s ``source_label``; default: its option)."""
    from mockengine.server.lifecycle import CannotListen, bind
    from mockengine.server.settings_checks import option

    label = label or option
    if settings.port == 0:
        print(f"mockengine: --workers needs a fixed {label('port')} (each worker binds it)", file=sys.stderr)
        return 2
    # The address is tried here first, and without SO_REUSEPORT: a taken port or a host that does not
    # resolve is one line naming its setting, before any worker starts (each worker said it, the parent
    # then that a worker exited), and a port another engine's workers listen on counts as taken (with
    # SO_REUSEPORT these workers would have joined theirs, the kernel sharing connections between both).
    try:
        bind(settings.host, settings.port, port_label=label("port"), host_label=label("host")).close()
    except CannotListen as exc:
        print(f"mockengine: {exc}", file=sys.stderr)
        return 2
    metrics_dir = tempfile.mkdtemp(prefix="mockengine-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir
    sockets_dir = tempfile.mkdtemp(prefix="mockengine-workers-")  # each worker's unix socket (calls)
    os.environ["MOCKENGINE_WORKER_DIR"] = sockets_dir
    context = multiprocessing.get_context("spawn")
    ready = context.Queue()
    workers = [
        context.Process(target=_worker, args=(settings, i, ready), name=f"mockengine-worker-{i}", daemon=True)
        for i in range(settings.workers)
    ]
    stopping = False

    def stop(_signum: int, _frame: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    for worker in workers:
        worker.start()
    status = 0
    listening: set[int] = set()
    try:
        while not stopping:
            # Announced once every worker listens: a client (or the bench's warm-up) that connects
            # earlier would find only the first ones and leave the others cold.
            if len(listening) < len(workers):
                try:
                    listening.add(ready.get(timeout=0.2))
                except queue.Empty:
                    pass
                else:
                    if len(listening) == len(workers):
                        scheme = "wss" if settings.tls else "ws"
                        print(
                            f"mockengine listening on {scheme}://{settings.host}:{settings.port}/v1/realtime"
                            f"?model=gpt-realtime ({settings.workers} workers)",
                            flush=True,
                        )
            else:
                time.sleep(0.2)
            ended = next((w for w in workers if not w.is_alive()), None)
            if ended is not None:
                status = ended.exitcode or 1
                print(f"mockengine: {ended.name} exited with {ended.exitcode}; stopping", file=sys.stderr)
                break
    finally:
        for worker in workers:
            if worker.is_alive():
                worker.terminate()  # SIGTERM: each worker stops within the grace period
        deadline = time.monotonic() + settings.shutdown_grace_s + 1.0
        for worker in workers:
            worker.join(max(0.0, deadline - time.monotonic()))
            if worker.is_alive():
                worker.kill()
        shutil.rmtree(metrics_dir, ignore_errors=True)
        shutil.rmtree(sockets_dir, ignore_errors=True)
    return status
