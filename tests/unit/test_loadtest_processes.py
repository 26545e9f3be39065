"""The /proc readings the benches and the tools take of a process and its children (Linux)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from mockengine.loadtest import processes

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads Linux's /proc")


def test_children_are_the_direct_children_only():
    # A child that starts a grandchild: the child is ours, the grandchild is not (it is the child's).
    script = (
        "import subprocess, time; subprocess.Popen(['sleep', '30']); print('up', flush=True); time.sleep(30)"
    )
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "up"
        mine = processes.children(os.getpid())
        assert child.pid in mine
        grandchildren = processes.children(child.pid)
        assert len(grandchildren) == 1 and grandchildren[0] not in mine
        assert processes.tree_rss_bytes(child.pid) > processes.tree_rss_bytes(grandchildren[0]) > 0
    finally:
        for pid in processes.children(child.pid):
            os.kill(pid, 9)
        child.kill()
        child.wait()
