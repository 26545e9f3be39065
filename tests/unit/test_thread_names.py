"""The kernel names of the engine's threads (server/thread_names.py): what /proc/PID/task/TID/comm shows,
so the bench can attribute CPU off the event loop by role (issue 15)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from mockengine.loadtest.processes import thread_group
from mockengine.server.executors import MeteredExecutor
from mockengine.server.journal import BackgroundWriter
from mockengine.server.thread_names import named_executor, set_os_thread_name

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and prctl are Linux's")


def _comm() -> str:
    return Path(f"/proc/self/task/{threading.get_native_id()}/comm").read_text().strip()


def test_a_threads_role_is_its_name_without_the_pool_number() -> None:
    assert thread_group("stt_0") == "stt" and thread_group("tts_1") == "tts"
    assert thread_group("default_12") == "default" and thread_group("journal") == "journal"
    assert thread_group("python") == "python" and thread_group("_0") == "_0"


@linux_only
def test_set_os_thread_name_cuts_the_name_to_15_bytes() -> None:
    seen: list[str] = []

    def work() -> None:
        assert set_os_thread_name("a-very-long-thread-role")
        seen.append(_comm())

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert seen == ["a-very-long-thr"]


@linux_only
def test_the_engines_pools_and_journal_writer_name_their_threads_in_proc() -> None:
    stt, tts, default = MeteredExecutor("stt", 1), MeteredExecutor("tts", 2), named_executor("default", 1)
    try:
        assert stt.submit(_comm).result() == "stt_0"
        assert tts.submit(_comm).result() in {"tts_0", "tts_1"}
        assert default.submit(_comm).result() == "default_0"
    finally:
        for pool in (stt, tts, default):
            pool.shutdown()
    writer = BackgroundWriter()
    seen: list[str] = []
    done = threading.Event()
    writer.submit(lambda: (seen.append(_comm()), done.set()))
    assert done.wait(10) and seen == ["journal"]
    writer.close()


@linux_only
def test_threads_started_while_a_model_loads_carry_its_name_and_the_loader_gets_its_own_back() -> None:
    """A model's native pools are started while it loads (CTranslate2's worker, onnxruntime's): a thread
    started inside ``os_thread_named`` inherits the name from the kernel, as theirs do."""
    from mockengine.server.thread_names import os_thread_name, os_thread_named

    seen: list[str] = []

    def load() -> None:
        set_os_thread_name("loader")
        with os_thread_named("whisper"):
            pool = threading.Thread(target=lambda: seen.append(_comm()))  # no Python-side renaming
            pool.start()
            pool.join()
        seen.append(os_thread_name() or "")

    thread = threading.Thread(target=load)
    thread.start()
    thread.join()
    assert seen == ["whisper", "loader"]


@linux_only
def test_the_load_bench_keeps_the_engines_cpu_by_thread_role() -> None:
    """``--only load`` (``loadtest.capacity.measured``): every thread role of the engine's process gets
    its CPU per session-second beside the loop's figure (the engine here: this process)."""
    import asyncio
    import os
    from types import SimpleNamespace

    from mockengine.loadtest.capacity import measured
    from mockengine.loadtest.driver import LoadReport
    from mockengine.loadtest.processes import main_thread_cpu_seconds, tree_cpu_seconds
    from mockengine.loadtest.profile import PROFILES, LoadProfile

    pid = os.getpid()
    child = SimpleNamespace(
        process=SimpleNamespace(pid=pid),
        cpu_seconds=lambda: tree_cpu_seconds(pid),
        loop_cpu_seconds=lambda: main_thread_cpu_seconds(pid),
        rss_bytes=lambda: None,
    )
    pool = MeteredExecutor("stt", 1)

    async def work() -> LoadReport:
        await asyncio.get_running_loop().run_in_executor(pool, sum, range(1000))
        return LoadReport("ws://x", LoadProfile(sorted(PROFILES)[0], 2, 1.0), 1.0)

    try:
        report, _ = asyncio.run(measured(child, work()))  # type: ignore[arg-type]
    finally:
        pool.shutdown()
    roles = report.extra["server_thread_cpu_ms_per_session_s"]
    assert "loop" in roles and "stt" in roles
    assert all(isinstance(ms, float) for ms in roles.values())
