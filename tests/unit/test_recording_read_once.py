"""A recording's ``events.jsonl`` is read once (docs/record-replay.md, "Replaying"): ``serve --replay``
checked it before the models loaded, read it again to serve, and read it once more as each recorded
session was first served — with a study-length recording (hundreds of MB) a slow start-up and a stall
of seconds at a session's start. Now the check's reading is what serves, and a session's start reads
only its WAVs. Lines end at newlines only: a transcript's U+2028 (the journal writes text as is) cut a
whole recording's line in two and refused it as a hand edit."""

from __future__ import annotations

import json
import wave
from pathlib import Path
from typing import Any

import pytest

from mockengine.recordings import recording as recording_module
from mockengine.recordings.format import RecordingError
from mockengine.recordings.recording import check_recording, load_recording


def record(seq: int, source: str, event: dict[str, Any]) -> str:
    stamp = {"seq": seq, "t": 1_700_000_000.0 + seq / 10, "ms": seq * 100.0, "from": source}
    return json.dumps({**stamp, "event": event}, ensure_ascii=False) + "\n"


def make_recording(root: Path, transcript: str = "Hello there.") -> Path:
    manifest = {"format": "mockengine-recording", "version": 1, "upstream": "ws://x", "audio": True}
    root.mkdir()
    (root / "recording.json").write_text(json.dumps(manifest), encoding="utf-8")
    session = root / "realtime-0001"
    session.mkdir()
    with wave.open(str(session / "resp_1.wav"), "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(24000)
        handle.writeframes(b"\x01\x00" * 2400)
    delta = {"wav": "resp_1.wav", "start_ms": 0.0, "duration_ms": 100.0}
    lines = [
        record(1, "server", {"type": "session.created", "session": {"id": "sess_1"}}),
        record(2, "client", {"type": "response.create"}),
        record(3, "server", {"type": "response.output_audio.delta", "response_id": "resp_1", "delta": delta}),
        record(4, "server", {"type": "response.output_audio_transcript.done", "transcript": transcript}),
    ]
    (session / "events.jsonl").write_text("".join(lines), encoding="utf-8")
    return root


@pytest.fixture
def reads(monkeypatch) -> list[Path]:
    """Every opening of an ``events.jsonl`` for reading (``Path.read_text`` opens with ``Path.open``)."""
    opened: list[Path] = []
    original_open = Path.open

    def spy_open(self: Path, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if self.name == "events.jsonl" and "r" in mode:
            opened.append(self)
        return original_open(self, mode, *args, **kwargs)

    monkeypatch.setattr(Path, "open", spy_open)
    return opened


def test_the_start_up_check_and_the_load_read_the_lines_once(tmp_path, reads):
    root = make_recording(tmp_path / "rec")
    check_recording(root)  # serve, before the models load
    loaded = load_recording(root)  # create_app, after
    assert len(reads) == 1
    assert [step.type for step in loaded.session().steps][-1] == "response.output_audio_transcript.done"
    assert len(reads) == 1  # the session's start read its WAVs only


def test_a_session_start_serves_what_start_up_read(tmp_path):
    root = make_recording(tmp_path / "rec")
    loaded = load_recording(root)
    (root / "realtime-0001" / "events.jsonl").write_text("not a recording any more\n", encoding="utf-8")
    session = loaded.session()
    assert [step.type for step in session.steps] == [
        "session.created",
        "response.create",
        "response.output_audio.delta",
        "response.output_audio_transcript.done",
    ]
    assert session.audio({"wav": "resp_1.wav", "start_ms": 0, "duration_ms": 1}) == b"\x01\x00" * 24


def test_an_edit_after_the_check_is_read_and_refused_with_its_line(tmp_path):
    root = make_recording(tmp_path / "rec")
    check_recording(root)
    events = root / "realtime-0001" / "events.jsonl"
    with events.open("a", encoding="utf-8") as handle:
        handle.write('{"seq": 5, "broken\n{"seq": 6}\n')
    with pytest.raises(RecordingError, match=r"events.jsonl: line 5: not JSON"):
        load_recording(root)


def test_a_checked_recording_is_kept_for_one_load_only(tmp_path):
    root = make_recording(tmp_path / "rec")
    checked = check_recording(root)
    assert load_recording(root) is checked
    assert load_recording(root) is not checked  # another app's: its own served-session count
    assert recording_module._CHECKED == []


def test_another_recordings_load_leaves_the_checked_one_for_its_own(tmp_path, reads):
    replay, scenario = make_recording(tmp_path / "replay"), make_recording(tmp_path / "scenario")
    check_recording(replay)
    load_recording(scenario)  # a scenario of kind recording, loaded first by create_app
    load_recording(replay)
    assert reads == [replay / "realtime-0001" / "events.jsonl", scenario / "realtime-0001" / "events.jsonl"]


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
def test_a_transcript_holding_a_unicode_line_separator_is_read_whole(tmp_path, separator):
    root = make_recording(tmp_path / "rec", transcript=f"First line.{separator}Second line.")
    steps = load_recording(root).session().steps
    assert steps[-1].event["transcript"] == f"First line.{separator}Second line."


def test_a_torn_last_line_is_still_skipped_and_a_broken_one_before_it_refused(tmp_path):
    root = make_recording(tmp_path / "rec")
    events = root / "realtime-0001" / "events.jsonl"
    with events.open("a", encoding="utf-8") as handle:
        handle.write('{"seq": 5, "t": 1.0, "ms": 500.0, "from": "server", "event": {"type": "resp')
    assert len(load_recording(root).session().steps) == 4
    events.write_text(events.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    with pytest.raises(RecordingError, match=r"line 5: not JSON"):
        load_recording(root)


def test_a_session_start_reads_no_samples_and_the_microphones_never(tmp_path, monkeypatch):
    """All of a session's WAVs were read as it started: an hour of the microphone alone (170 MB), which a
    replay never sends. Start-up reads the headers of the WAVs steps send from (never the microphone's);
    each one's samples are read when a step first needs them."""
    root = make_recording(tmp_path / "rec")
    (root / "realtime-0001" / "input_audio.wav").write_bytes(b"not read: no step refers to it")
    headers: list[str] = []
    samples: list[int] = []
    original_open, original_readframes = wave.open, wave.Wave_read.readframes

    def spy_open(f: Any, *a: Any, **k: Any) -> Any:
        headers.append(Path(getattr(f, "name", f)).name)
        return original_open(f, *a, **k)

    def spy_readframes(self: wave.Wave_read, n: int) -> bytes:
        samples.append(n)
        return original_readframes(self, n)

    monkeypatch.setattr(wave, "open", spy_open)
    monkeypatch.setattr(wave.Wave_read, "readframes", spy_readframes)
    session = load_recording(root).session()
    assert (headers, samples) == (["resp_1.wav"], [])  # its header checked, no sample read
    ref = {"wav": "resp_1.wav", "start_ms": 0, "duration_ms": 100}
    assert session.audio(ref) == b"\x01\x00" * 2400
    assert session.audio(ref) == b"\x01\x00" * 2400
    assert samples == [2400]  # read once, on its first use
    assert "input_audio.wav" in session.wavs and "other.wav" not in session.wavs


def test_every_reference_without_audio_to_send_is_one_silent_span(tmp_path):
    """`audio` and `span` each worked out "its WAV is gone"; `span` alone decides now, and `audio` sends
    the silence it gives: a --no-audio reference, a WAV deleted after start-up, a WAV never there."""
    root = make_recording(tmp_path / "rec")
    session = load_recording(root).session()
    omitted = {"omitted_base64_chars": 6400}  # 4,800 bytes of PCM: 2,400 samples
    assert session.span(omitted) == (None, 0, 2400) and session.audio(omitted) == bytes(4800)
    (root / "realtime-0001" / "resp_1.wav").unlink()
    gone = {"wav": "resp_1.wav", "start_ms": 10.0, "duration_ms": 50.0}
    assert session.span(gone) == (None, 0, 1200) and session.audio(gone) == bytes(2400)
    never = {"wav": "other.wav", "start_ms": 0.0, "duration_ms": 20.0}
    assert session.span(never) == (None, 0, 480) and session.audio(never) == bytes(960)
    assert session.span({"text": "no audio"}) is None and session.audio({"text": "no audio"}) == b""
    assert session.span("resp_1.wav") is None and session.audio("resp_1.wav") == b""
