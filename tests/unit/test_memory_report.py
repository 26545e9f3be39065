"""``GET /mockengine/memory`` and the soak's after-end breakdown by owner (docs/memory.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from aiohttp import web

from mockengine.faults.control import CONTROL_TOKEN
from mockengine.loadtest.soak_memory import format_owner_changes, owner_changes
from mockengine.server import memory
from mockengine.server.allocator import active_python_malloc

SMAPS = """\
55d0c0000000-55d0c8000000 rw-p 00000000 00:00 0                          [heap]
Size:             131072 kB
Rss:              102400 kB
7f0000000000-7f0000100000 rw-p 00000000 00:00 0
Rss:                1024 kB
7f0000200000-7f0000300000 r-xp 00000000 08:01 123                        /usr/lib/libc.so.6
Rss:                 800 kB
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
Rss:                  40 kB
"""

MALLOC_INFO = """<malloc version="1">
<heap nr="0">
<sizes><size from="33" to="48" total="96" count="2"/></sizes>
<total type="fast" count="2" size="96"/>
<total type="rest" count="10" size="4000000"/>
<system type="current" size="160000000"/>
<system type="max" size="500000000"/>
</heap>
<heap nr="1">
<total type="fast" count="0" size="0"/>
<total type="rest" count="1" size="2000"/>
<system type="current" size="135168"/>
</heap>
<total type="fast" count="2" size="96"/>
<total type="rest" count="11" size="4002000"/>
<total type="mmap" count="9" size="275251200"/>
<system type="current" size="160135168"/>
</malloc>
"""

DEBUGMALLOCSTATS_TAIL = """\
# arenas allocated total           =                   66
# arenas reclaimed                 =                    0
# arenas highwater mark            =                   66
# arenas allocated current         =                   66
66 arenas * 1048576 bytes/arena    =           69,206,016

# bytes in allocated blocks        =           35,375,776
# bytes in available blocks        =           12,399,360
1245 unused pools * 16384 bytes    =           20,398,080
"""


def test_resident_memory_by_kind_of_mapping():
    assert memory.resident_by_mapping(SMAPS) == {
        "heap": 102400 * 1024,
        "anonymous": 1024 * 1024,
        "stacks": 40 * 1024,
        "files": 800 * 1024,
    }


def test_glibc_arenas_and_mmap_blocks_from_malloc_info():
    assert memory.glibc_arenas(MALLOC_INFO) == {
        "arenas": [
            {"system_bytes": 160000000, "free_bytes": 4000096},
            {"system_bytes": 135168, "free_bytes": 2000},
        ],
        "mmap_blocks": 9,
        "mmap_bytes": 275251200,
    }


def test_pymalloc_figures_from_debugmallocstats():
    assert memory.pymalloc_figures(DEBUGMALLOCSTATS_TAIL) == {
        "arenas": 66,
        "arenas_highwater": 66,
        "arenas_reclaimed": 0,
        "allocated_block_bytes": 35375776,
        "free_block_bytes": 12399360,
        "unused_pool_bytes": 1245 * 16384,
    }


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="needs /proc (Linux)")
def test_breakdown_of_this_process_adds_up():
    figures = memory.memory_breakdown()
    assert figures["python_malloc"] == active_python_malloc()
    resident = sum(figures["mappings"].values())
    assert 0.8 * figures["rss_bytes"] <= resident <= 1.2 * figures["rss_bytes"]
    assert figures["python_objects"]["gc_tracked"] > 1000 and figures["threads"] >= 1
    if figures["python_malloc"] == "pymalloc":
        assert figures["pymalloc"]["arenas"] >= 1 and figures["pymalloc"]["allocated_block_bytes"] > 0
    if sys.platform == "linux" and figures["glibc"] is not None:
        assert figures["glibc"]["arenas"][0]["system_bytes"] > 0
    print("stderr still works", file=sys.stderr)  # the stats' capture gave fd 2 back


async def test_endpoint_serves_loopback_and_honours_the_control_token(aiohttp_client):
    app = web.Application()
    memory.add_routes(app)
    client = await aiohttp_client(app)
    reply = await client.get("/mockengine/memory")
    assert reply.status == 200 and (await reply.json())["rss_bytes"] is not None
    guarded = web.Application()
    guarded[CONTROL_TOKEN] = "t0ken"
    memory.add_routes(guarded)
    client = await aiohttp_client(guarded)
    assert (await client.get("/mockengine/memory")).status == 403
    reply = await client.get("/mockengine/memory", headers={"Authorization": "Bearer t0ken"})
    assert reply.status == 200


def test_after_end_changes_by_owner():
    def figures(heap_mib: int, anon_mib: int, arenas: int, objects: int) -> dict:
        mib = 1024 * 1024
        return {
            "mappings": {"heap": heap_mib * mib, "anonymous": anon_mib * mib, "files": 90 * mib},
            "glibc": {"mmap_bytes": 262 * mib},
            "pymalloc": {"arenas": arenas},
            "python_objects": {"gc_tracked": objects},
        }

    changes = owner_changes(figures(133, 207, 35, 1207), figures(135, 237, 66, 1177))
    assert changes == {
        "heap_mib": 2.0,
        "anonymous_mib": 30.0,
        "files_mib": 0.0,
        "glibc_mmap_mib": 0.0,
        "pymalloc_arenas": [35, 66],
        "gc_tracked_objects": -30,
    }
    text = format_owner_changes(changes)
    assert "heap +2 MiB" in text and "pymalloc arenas 35 → 66" in text and "anonymous +30 MiB" in text
    assert owner_changes(None, figures(1, 1, 1, 1)) is None
    assert "n/a" in format_owner_changes(None)
