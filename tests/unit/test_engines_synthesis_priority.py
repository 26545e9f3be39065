"""Speech synthesis gives way to the event loop: the synthesising thread's priority is lowered once,
never the main thread's (where the engine's event loop runs)."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from mockengine.engines.tts import SYNTHESIS_NICE, yield_to_serving_thread

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="per-thread nice values are Linux's")


def _nice_of_current_thread() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def test_a_worker_thread_is_lowered_once_and_the_main_thread_never() -> None:
    main_before = _nice_of_current_thread()
    seen: list[int] = []

    def worker() -> None:
        before = _nice_of_current_thread()
        yield_to_serving_thread()
        seen.append(_nice_of_current_thread())
        yield_to_serving_thread()  # once per thread: a second call changes nothing
        seen.append(_nice_of_current_thread())
        seen.append(before)

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    after, again, before = seen
    assert after == max(before, SYNTHESIS_NICE) and again == after
    yield_to_serving_thread()
    assert _nice_of_current_thread() == main_before
