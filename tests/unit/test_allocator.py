"""``--python-malloc``: why the engine serves Python's objects on glibc's malloc, and that `serve` really
restarts itself on it (server/allocator.py, docs/memory.md).

The first test is the cause in miniature, in a fresh interpreter per allocator: many small objects (as
a session's frames and events), 0.2 % of them outliving the rest (as tables and caches do), then what
the engine's reclaimer does (a full collection and ``malloc_trim(0)``). pymalloc keeps its 1 MiB arenas
as long as one object in each lives; malloc returns every free page.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from mockengine.server import allocator
from mockengine.server.reclaim import MALLOC_TRIM

glibc_only = pytest.mark.skipif(MALLOC_TRIM is None, reason="needs glibc's malloc_trim (Linux)")

FRAGMENT = textwrap.dedent(
    """
    import gc
    from mockengine.server.reclaim import MALLOC_TRIM

    def rss():
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmRSS:"))

    before = rss()
    held = [[i, str(i)] for i in range(400_000)]
    kept = held[::500]
    peak = rss()
    del held
    gc.collect()
    MALLOC_TRIM(0)
    print((rss() - before) / (peak - before))
    """
)


def _kept_share(python_malloc: str) -> float:
    env = {**os.environ, "PYTHONMALLOC": python_malloc}
    command = [sys.executable, "-c", FRAGMENT]
    return float(subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout)


@glibc_only
def test_freed_small_objects_go_back_on_malloc_but_stay_on_pymalloc():
    on_pymalloc, on_malloc = _kept_share("pymalloc"), _kept_share("malloc")
    assert on_pymalloc > 0.5, on_pymalloc  # measured 0.95: nearly every arena pinned
    assert on_malloc < 0.25, on_malloc  # measured 0.04: pages with survivors only
    assert on_malloc < on_pymalloc / 3


@glibc_only
def test_serve_restarts_itself_on_malloc_keeping_its_pid_and_arguments():
    script = textwrap.dedent(
        """
        import os, sys
        from mockengine.server.allocator import use_python_malloc
        print(os.getpid(), os.environ.get("PYTHONMALLOC"), sys.argv[1:], flush=True)
        use_python_malloc(sys.argv[1], may_restart=True)
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONMALLOC"}
    out = subprocess.run(
        [sys.executable, "-c", script, "malloc", "--x"], env=env, capture_output=True, text=True, check=True
    )
    first, second = out.stdout.splitlines()
    assert first.split()[1] == "None" and second.split()[1] == "malloc"
    assert first.split()[0] == second.split()[0]  # execv: the same process (supervisors, signals, /proc)
    assert first.split(None, 2)[2] == second.split(None, 2)[2] == "['malloc', '--x']"


def _environ_without_pythonmalloc(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONMALLOC"}
    monkeypatch.setattr(allocator.os, "environ", environ)
    return environ


def test_no_restart_when_the_user_chose_or_on_pymalloc(monkeypatch):
    calls: list[tuple[str, list[str]]] = []
    environ = _environ_without_pythonmalloc(monkeypatch)
    allocator.use_python_malloc("pymalloc", may_restart=True, execv=lambda *a: calls.append(a))
    allocator.use_python_malloc("malloc", may_restart=False, execv=lambda *a: calls.append(a))
    environ["PYTHONMALLOC"] = "pymalloc"
    allocator.use_python_malloc("malloc", may_restart=True, execv=lambda *a: calls.append(a))
    assert calls == []
    with pytest.raises(ValueError, match="--python-malloc"):
        allocator.use_python_malloc("jemalloc", may_restart=False)


@glibc_only
def test_restart_runs_the_same_command(monkeypatch):
    calls: list[tuple[str, list[str]]] = []
    environ = _environ_without_pythonmalloc(monkeypatch)
    allocator.use_python_malloc("malloc", may_restart=True, execv=lambda *a: calls.append(a))
    assert calls == [(sys.executable, list(sys.orig_argv))]
    assert environ["PYTHONMALLOC"] == "malloc"


def test_active_python_malloc_is_what_the_interpreter_started_with(monkeypatch):
    environ = _environ_without_pythonmalloc(monkeypatch)
    assert allocator.active_python_malloc() == "pymalloc"  # CPython's default
    environ["PYTHONMALLOC"] = "malloc"
    assert allocator.active_python_malloc() == "malloc"
