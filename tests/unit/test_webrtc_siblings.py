"""Which worker holds a call under ``serve --workers N`` (no network): the id's last character."""

from __future__ import annotations

from types import SimpleNamespace

from mockengine.ids import IdFactory
from mockengine.server.webrtc.siblings import FORWARDED, Siblings


def request(headers: dict[str, str] | None = None) -> object:
    return SimpleNamespace(headers=headers or {})


def test_a_worker_marks_its_call_ids_and_sends_its_siblings_calls_home():
    first, second = Siblings(0, 3, "/tmp/x"), Siblings(2, 3, "/tmp/x")
    mine = first.tag(IdFactory(7).rtc_call())
    theirs = second.tag(IdFactory(7).rtc_call())
    assert mine != theirs and len(mine) == len(theirs) == len(IdFactory(7).rtc_call())
    assert mine.startswith("rtc_u1_") and mine[-1] == "0" and theirs[-1] == "2"
    assert first.owner_elsewhere(request(), mine) is None  # its own
    assert first.owner_elsewhere(request(), theirs) == 2
    assert second.owner_elsewhere(request(), mine) == 0
    assert first.owner_elsewhere(request({FORWARDED: "2"}), theirs) is None  # never forwarded twice
    assert first.owner_elsewhere(request(), "rtc_u1_" + "f" * 32) is None  # no such worker: a plain 404
    assert first.owner_elsewhere(request(), "call_" + "1" * 16) is None  # not a call id
    assert first.socket_path(2) == "/tmp/x/w2.sock"
