"""A journal line survives text that has no UTF-8 form (a lone surrogate a client escaped)."""

from __future__ import annotations

from mockengine.journal import read_records
from mockengine.server.journal import BackgroundWriter, SessionJournal


def test_a_client_event_with_a_lone_surrogate_is_kept_in_the_journal(tmp_path):
    writer = BackgroundWriter()
    journal = SessionJournal(writer, tmp_path / "sess_x")
    raw = '{"type":"conversation.item.create","event_id":"ev\\ud800"}'  # json.loads takes it
    journal.client_text(raw, "audio/pcm", "audio/pcm")
    journal.client_text('{"type":"response.create"}', "audio/pcm", "audio/pcm")
    journal.close()
    writer.drain()
    writer.close()

    records = list(read_records(tmp_path / "sess_x" / "events.jsonl"))
    assert [r["seq"] for r in records] == [1, 2]
    assert records[0]["event"]["event_id"] == "ev\ud800"
    assert records[1]["event"]["type"] == "response.create"
