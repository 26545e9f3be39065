"""A semantic_vad probe is one executor job: whisper and the prosody of the last syllable together.

The core asks for it (a ``Transcribe`` effect with ``prosody_at_ms``) and only combines the results; no
numpy runs inside ``RealtimeSession`` on the event loop."""

from __future__ import annotations

import json

import pytest

from mockengine.audio.pcm import encode_base64_audio
from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.bench.audio import bare_session
from mockengine.engines.fakes import FakeSynthesizer
from mockengine.engines.stt import Transcript, WordTiming
from mockengine.protocol import client_events as ce
from mockengine.protocol.client_events import parse_client_event
from mockengine.realtime.effects import ItemTranscriptKey, ProbeKey, Transcribe
from mockengine.realtime.probe_job import engine_for, run_transcribe
from mockengine.realtime.prosody import measure_prosody
from mockengine.virtual_time import VirtualTimeDriver


class _Words:
    """A transcriber that always hears the same words (and counts its calls)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.calls = 0

    def transcribe(
        self, pcm16: bytes, *, language: str | None = None, prompt: str | None = None
    ) -> Transcript:
        self.calls += 1
        words = tuple(WordTiming(w, 300 * i, 300 * i + 250, 0.99) for i, w in enumerate(self.text.split()))
        return Transcript(self.text, len(pcm16) // 48, "en", words)


def _probe_jobs(turn_detection: dict) -> list[Transcribe]:
    session = bare_session()
    update = {
        "type": "session.update",
        "session": {"type": "realtime", "audio": {"input": {"turn_detection": turn_detection}}},
    }
    session.receive(parse_client_event(json.dumps(update)), 0.0)
    pcm = synthetic_voiced_pcm16(1200) + bytes(48 * 400)
    jobs = []
    for i in range(0, len(pcm), 960):
        message = json.dumps(
            {"type": "input_audio_buffer.append", "audio": encode_base64_audio(pcm[i : i + 960])}
        )
        step = session.receive(parse_client_event(message), i / 48)
        jobs += [e for e in step.effects if isinstance(e, Transcribe)]
    return jobs


def test_a_semantic_probe_asks_for_prosody_in_the_same_job_and_server_vad_does_not():
    semantic = _probe_jobs({"type": "semantic_vad", "eagerness": "high", "create_response": False})
    assert semantic and all(job.prosody_at_ms is not None for job in semantic)
    assert 0 < semantic[0].prosody_at_ms <= len(semantic[0].pcm16) // 48
    server = _probe_jobs({"type": "server_vad", "silence_duration_ms": 500, "create_response": False})
    assert server and all(job.prosody_at_ms is None for job in server)


def test_the_job_returns_whisper_words_and_the_prosody_measured_on_the_same_audio():
    pcm = synthetic_voiced_pcm16(900)
    words = _Words("I was going to")
    heard = run_transcribe(words, Transcribe(ProbeKey(0, 1), pcm, "en", prosody_at_ms=880))
    assert heard.transcript.text == "I was going to" and words.calls == 1
    assert heard.prosody == measure_prosody(pcm, 880)
    assert heard.prosody.pitch_slope_st_per_s is not None
    plain = run_transcribe(words, Transcribe(ItemTranscriptKey("x"), pcm, "en"))
    assert plain.prosody is None


def test_a_known_transcript_skips_whisper_but_still_measures_prosody():
    pcm = synthetic_voiced_pcm16(900)
    words = _Words("never called")
    known = Transcript("Yes.", 900, "en")
    heard = run_transcribe(words, Transcribe(ProbeKey(0, 1), pcm, prosody_at_ms=880), known)
    assert words.calls == 0 and heard.transcript is known and heard.prosody is not None


def _spoken_turn(replay: VirtualTimeDriver) -> VirtualTimeDriver:
    """``replay`` run through 1.2 s of voiced audio and 3 s of silence under semantic_vad at high."""
    replay.start()
    detection = {"type": "semantic_vad", "eagerness": "high", "create_response": False}
    replay.send(ce.SessionUpdate({"type": "realtime", "audio": {"input": {"turn_detection": detection}}}))
    replay.stream(synthetic_voiced_pcm16(1200))
    replay.stream_silence(3000)
    replay.run_until_idle()
    return replay


@pytest.mark.parametrize("text", ["I was going to ask you about the", "Yes."])
def test_same_audio_and_words_give_the_same_events(text):
    def events() -> list[dict]:
        replay = _spoken_turn(VirtualTimeDriver(bare_session(), _Words(text), FakeSynthesizer()))
        return [event for _, event in replay.events] + [trace.data for trace in replay.traces]

    first = events()
    assert any(e.get("type") == "input_audio_buffer.speech_stopped" for e in first)
    assert first == events()


def test_a_turn_transcriber_hears_only_semantic_probes():
    main, pauses = _Words("main"), _Words("pauses")
    probe = Transcribe(ProbeKey(0, 1), b"", "en", prosody_at_ms=10)
    item = Transcribe(ItemTranscriptKey("x"), b"", "en")
    assert engine_for(probe, main, pauses) is pauses
    assert engine_for(item, main, pauses) is main
    assert engine_for(probe, main, None) is main


def test_a_semantic_turn_is_decided_and_transcribed_by_the_turn_transcriber():
    main, pauses = _Words("I was going to ask you about the"), _Words("Yes.")
    replay = _spoken_turn(VirtualTimeDriver(bare_session(), main, FakeSynthesizer(), turn_transcriber=pauses))
    stopped = [t for t, e in replay.events if e["type"] == "input_audio_buffer.speech_stopped"]
    turn_end = next(trace.data for trace in replay.traces if trace.kind == "turn_end")
    assert pauses.calls >= 1 and main.calls == 0
    # Judged finished on the turn transcriber's "Yes." (held, not fast: this fixture's pitch rises, and
    # a rising short answer is an opener since round 8), not unfinished on the main model's words (2 s).
    assert turn_end["transcript"] == "Yes." and turn_end["reason"].startswith("complete_utterance")
    assert stopped and stopped[0] < 1200 + 2000
