"""Thread pools for the engine calls (whisper, piper) whose queue is visible.

``MeteredExecutor`` is a ``ThreadPoolExecutor`` (so ``loop.run_in_executor`` takes it as is) that
counts calls waiting for a thread and calls running, exports both as
``mockengine_executor_queue_depth`` / ``mockengine_executor_running``, and times each call
(``mockengine_engine_call_seconds``). Admission control reads ``queue_depth``: when work piles up
faster than the threads finish it, new sessions are refused instead of slowing every session.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from mockengine.server.metrics import ENGINE_SECONDS, EXECUTOR_QUEUE_DEPTH, EXECUTOR_RUNNING
from mockengine.server.thread_names import PREFIX, name_os_thread

T = TypeVar("T")


class MeteredExecutor(ThreadPoolExecutor):
    def __init__(self, name: str, threads: int) -> None:
        # the kernel names each thread too (``stt_0``: server/thread_names.py), for per-thread CPU figures
        super().__init__(
            max_workers=max(1, threads), thread_name_prefix=PREFIX + name, initializer=name_os_thread
        )
        self.name = name
        self._waiting = 0
        self._count_lock = threading.Lock()
        self._queue_gauge = EXECUTOR_QUEUE_DEPTH.labels(executor=name)
        self._running_gauge = EXECUTOR_RUNNING.labels(executor=name)
        self._seconds = ENGINE_SECONDS.labels(engine=name)

    @property
    def queue_depth(self) -> int:
        """Calls submitted and not yet started."""
        return self._waiting

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        with self._count_lock:
            self._waiting += 1
        self._queue_gauge.inc()

        def call() -> T:
            with self._count_lock:
                self._waiting -= 1
            self._queue_gauge.dec()
            self._running_gauge.inc()
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self._seconds.observe(time.perf_counter() - started)
                self._running_gauge.dec()

        future = super().submit(call)
        # A call cancelled before it started (shutdown) leaves the queue too.
        future.add_done_callback(lambda f: self._forget(f))
        return future

    def _forget(self, future: Future[Any]) -> None:
        if future.cancelled():
            with self._count_lock:
                self._waiting -= 1
            self._queue_gauge.dec()
