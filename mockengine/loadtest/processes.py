"""Start an engine (or the baseline) as a child process on a free loopback port, and read its memory.

The driver and the server then run in separate processes, as they would in a real test, and the
server's resident memory can be read from ``/proc`` (Linux) for the per-session figures.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import aiohttp


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Child:
    """A server child process listening on ``port``; ``url`` is its Realtime WebSocket URL."""

    process: subprocess.Popen[bytes]
    port: int
    log_path: Path

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/v1/realtime?model=gpt-realtime"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def rss_bytes(self) -> int | None:
        """Resident memory of the process and its children (worker processes), None off Linux."""
        return tree_rss_bytes(self.process.pid)

    def cpu_seconds(self) -> float | None:
        """CPU time (user + system) used so far by the process and its children, None off Linux."""
        return tree_cpu_seconds(self.process.pid)

    def loop_cpu_seconds(self) -> float | None:
        """CPU time of the process's main thread alone (``serve``'s event loop), None off Linux or gone."""
        return main_thread_cpu_seconds(self.process.pid)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def process_rss_bytes(pid: int) -> int:
    """VmRSS of ``pid`` alone (bytes), 0 when /proc names none; OSError when it is gone."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def _stat_fields(pid: int | str) -> list[str]:
    """``/proc/PID/stat`` after the command name (which may hold spaces): state, ppid, …; raises OSError,
    IndexError or ValueError for a process that is gone or unreadable."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (not deeper), from /proc; [] off Linux."""
    found = []
    for entry in Path("/proc").iterdir() if Path("/proc/self/stat").exists() else ():
        if entry.name.isdigit():
            try:
                if int(_stat_fields(entry.name)[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return found


def _tree(pid: int) -> set[int]:
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int(_stat_fields(entry.name)[1])
            except (OSError, IndexError, ValueError):
                continue
    tree, frontier = {pid}, [pid]
    while frontier:
        current = frontier.pop()
        for child, parent in parents.items():
            if parent == current and child not in tree:
                tree.add(child)
                frontier.append(child)
    return tree


def main_thread_cpu_seconds(pid: int) -> float | None:
    """utime + stime of ``pid``'s main thread alone (``/proc/PID/task/PID/stat``); None off Linux or when
    the process is gone."""
    try:
        return _stat_cpu_seconds(Path(f"/proc/{pid}/task/{pid}/stat"))
    except (OSError, IndexError, ValueError):
        return None


def _stat_cpu_seconds(stat: Path) -> float:
    """utime + stime, in seconds, of a ``/proc/…/stat`` file; raises OSError when it is gone,
    IndexError/ValueError when it does not parse."""
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def thread_readings(pid: int) -> tuple[dict[int, float], dict[int, str]]:
    """CPU seconds (utime + stime) and kernel name (``comm``) of each thread of ``pid`` by thread id, from
    ``/proc/PID/task``; empty off Linux or when the process is gone."""
    cpu: dict[int, float] = {}
    names: dict[int, str] = {}
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return cpu, names
    for task in tasks:
        try:
            cpu[int(task.name)] = _stat_cpu_seconds(task / "stat")
            names[int(task.name)] = (task / "comm").read_text().strip()
        except (OSError, IndexError, ValueError):
            continue
    return cpu, names


LOOP_ROLE, UNNAMED_ROLE = "loop", "unnamed"
_NUMBERED = re.compile(r"[_-]\d+$")


def thread_group(comm: str) -> str:
    """A thread's role from its kernel name (server/thread_names.py): the pool number left out
    (``tts_1`` → ``tts``)."""
    return _NUMBERED.sub("", comm) or comm


def cpu_by_role(
    pid: int, before: dict[int, float], after: dict[int, float], names: dict[int, str]
) -> dict[str, float]:
    """CPU seconds each role of ``pid``'s threads spent from ``before`` to ``after``
    (:func:`thread_readings`), busiest first: ``loop`` (the main thread), the named roles (``stt``,
    ``whisper``, ``tts``, ``piper``, ``brain``, ``journal``, ``default``: server/thread_names.py, the pool
    number left out), ``unnamed`` (threads carrying the main thread's name). A thread gone before
    ``after`` is not counted."""
    main_name = names.get(pid)
    found: dict[str, float] = {}
    for tid, cpu_s in after.items():
        name = names.get(tid, "")
        role = (
            LOOP_ROLE if tid == pid else UNNAMED_ROLE if name == main_name or not name else thread_group(name)
        )
        found[role] = found.get(role, 0.0) + cpu_s - before.get(tid, 0.0)
    return dict(sorted(found.items(), key=lambda item: -item[1]))


def tree_cpu_seconds(pid: int) -> float | None:
    """utime + stime of ``pid`` and every descendant (threads included), from /proc; None off Linux."""
    if not Path("/proc/self/stat").exists():
        return None
    ticks = 0
    for member in _tree(pid):
        try:
            fields = _stat_fields(member)
            ticks += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            continue
    return ticks / os.sysconf("SC_CLK_TCK")


def tree_rss_bytes(pid: int) -> int | None:
    """VmRSS of ``pid`` plus every descendant, from /proc; None where /proc is missing."""
    if not Path("/proc/self/status").exists():
        return None
    total = 0
    for member in _tree(pid):
        try:
            total += process_rss_bytes(member)
        except OSError:
            continue
    return total


async def start_server(
    args: list[str], *, baseline: bool = False, timeout_s: float = 180.0, port: int | None = None
) -> Child:
    """Start ``mockengine serve ARGS`` (or the baseline) on ``port`` (default a free one); return once
    /healthz says 200 and the engine has announced that it listens (with ``--workers``, once every
    worker does)."""
    port = port or free_port()
    module = ["-m", "mockengine.loadtest.baseline"] if baseline else ["-m", "mockengine", "serve"]
    log = Path(tempfile.mkstemp(prefix="mockengine-bench-", suffix=".log")[1])
    command = [sys.executable, *module, "--host", "127.0.0.1", "--port", str(port), *args]
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=dict(os.environ))
    child = Child(process, port, log)
    deadline = time.monotonic() + timeout_s
    async with aiohttp.ClientSession() as http:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"server exited with {process.returncode}: {log.read_text()[-2000:]}")
            try:
                async with http.get(f"{child.http_url}/healthz") as response:
                    if response.status == 200 and (baseline or b"listening on" in log.read_bytes()):
                        return child
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.2)
    child.stop()
    raise RuntimeError(f"server did not answer /healthz within {timeout_s:.0f} s")
