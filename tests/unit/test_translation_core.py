"""The translation session's core (mockengine/realtime/translation.py): 200 ms frames from any chunking,
phrases ended by a pause or a maximum length, elapsed_ms, the output schedule's chunks and spaces, and
the session.update rules."""

from __future__ import annotations

import pytest

from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.protocol.errors import ProtocolError
from mockengine.realtime.translation import (
    FRAME_BYTES,
    MAX_PHRASE_MS,
    OUTPUT_CHUNK_BYTES,
    PAUSE_MS,
    FrameBuffer,
    OutputQueue,
    PhraseSegmenter,
    default_translation_session,
    merge_translation_session,
    schedule_output,
    transcript_deltas,
)

FRAME = bytes(FRAME_BYTES)


def test_short_appends_are_buffered_and_long_ones_split_into_frames() -> None:
    buffer = FrameBuffer()
    assert buffer.push(bytes(FRAME_BYTES - 2)) == []
    assert buffer.pending_bytes == FRAME_BYTES - 2
    frames = buffer.push(bytes(2 + FRAME_BYTES * 2 + 100))
    assert [len(f) for f in frames] == [FRAME_BYTES] * 3 and buffer.pending_bytes == 100
    flushed = buffer.flush()
    assert flushed is not None and len(flushed) == FRAME_BYTES  # padded with silence
    assert buffer.flush() is None


def test_frames_do_not_depend_on_chunking() -> None:
    pcm = bytes(range(256)) * 200
    one, many = FrameBuffer(), FrameBuffer()
    whole = one.push(pcm)
    pieces = [f for start in range(0, len(pcm), 777) for f in many.push(pcm[start : start + 777])]
    assert whole == pieces


def push_all(segmenter: PhraseSegmenter, flags: str) -> list:
    """``flags``: one character a frame, ``s`` speech, ``.`` silence; the phrases returned, in order."""
    return [p for flag in flags if (p := segmenter.push(FRAME, speech=flag == "s")) is not None]


def test_a_pause_ends_a_phrase_with_a_frame_of_lead_in() -> None:
    segmenter = PhraseSegmenter()
    pause = "." * (PAUSE_MS // 200)
    phrases = push_all(segmenter, ".." + "sss" + pause + "..")
    assert len(phrases) == 1
    assert (phrases[0].start_ms, phrases[0].end_ms) == (200, 400 + 600 + PAUSE_MS)
    assert len(phrases[0].pcm16) == (phrases[0].end_ms - phrases[0].start_ms) // 200 * FRAME_BYTES
    assert segmenter.elapsed_ms == 200 * (2 + 3 + len(pause) + 2) and not segmenter.in_phrase


def test_a_short_gap_does_not_end_a_phrase_but_the_maximum_length_does() -> None:
    segmenter = PhraseSegmenter()
    assert push_all(segmenter, "ss.ss") == []
    assert segmenter.in_phrase
    segmenter = PhraseSegmenter()
    phrases = push_all(segmenter, "s" * (MAX_PHRASE_MS // 200 * 2 + 1))
    assert [p.end_ms - p.start_ms for p in phrases] == [MAX_PHRASE_MS, MAX_PHRASE_MS]
    assert segmenter.in_phrase  # the third has begun
    flushed = segmenter.flush()
    assert flushed is not None and flushed.start_ms == 2 * MAX_PHRASE_MS


def test_the_vad_hears_voiced_audio_and_not_silence() -> None:
    segmenter = PhraseSegmenter()
    assert not segmenter.is_speech(FRAME)
    assert segmenter.is_speech(synthetic_voiced_pcm16(200))


def test_output_is_cut_in_frames_with_words_where_their_speech_starts() -> None:
    pcm = bytes(OUTPUT_CHUNK_BYTES * 2 + 10)
    chunks = schedule_output([("Hello there world.", pcm)], leading_space=False)
    assert [len(c.pcm16) for c in chunks] == [OUTPUT_CHUNK_BYTES, OUTPUT_CHUNK_BYTES, 10]
    assert "".join(c.text for c in chunks) == "Hello there world."
    # characters 0, 6 and 12 of 18: a third into the audio is still the first chunk, two thirds the second
    assert [c.text for c in chunks] == ["Hello there", " world.", ""]
    later = schedule_output([("Again.", bytes(100))], leading_space=True)
    assert [c.text for c in later] == [" Again."]
    queue = OutputQueue()
    queue.extend(chunks)
    assert [queue.take() for _ in range(4)][3] is None


def test_transcript_deltas_are_append_only_words() -> None:
    assert transcript_deltas("My colour is blue.", False) == ["My", " colour", " is", " blue."]
    assert transcript_deltas("And more", True) == [" And", " more"]
    assert transcript_deltas("  ", True) == []


def test_session_update_rules() -> None:
    session = default_translation_session("sess_1", "gpt-realtime-translate", 123)
    assert session["type"] == "translation" and session["audio"]["input"]["transcription"] is None
    updated = merge_translation_session(
        session,
        {
            "audio": {
                "input": {
                    "noise_reduction": {"type": "near_field"},
                    "transcription": {"model": "gpt-realtime-whisper"},
                },
                "output": {"language": "de"},
            },
            "model": "gpt-realtime-translate",  # unchanged: accepted
        },
    )
    assert updated["audio"]["input"]["noise_reduction"] == {"type": "near_field", "strength": 1.0}
    assert session["audio"]["output"]["language"] == "en"  # the current session is not changed
    kept = merge_translation_session(updated, {"audio": {"input": {"noise_reduction": {"strength": 0.5}}}})
    assert kept["audio"]["input"]["noise_reduction"] == {"type": "near_field", "strength": 0.5}
    off = merge_translation_session(
        kept, {"audio": {"input": {"noise_reduction": None, "transcription": None}}}
    )
    assert off["audio"]["input"] == {"noise_reduction": None, "transcription": None}


@pytest.mark.parametrize("model", ["gpt-realtime-2", "gpt-realtime-translate", "not-a-model"])
def test_an_update_naming_a_model_is_taken_and_keeps_the_session_model(model: str) -> None:
    """As on /v1/realtime (docs/realtime-protocol.md): the model is set when the session is created, and
    a ``model`` in ``session.update`` changes nothing while the rest of the update applies."""
    session = default_translation_session("sess_1", "gpt-realtime-translate", 0)
    updated = merge_translation_session(session, {"model": model, "audio": {"output": {"language": "de"}}})
    assert updated["model"] == "gpt-realtime-translate"
    assert updated["audio"]["output"]["language"] == "de"


@pytest.mark.parametrize(
    ("update", "param", "code"),
    [
        ({"type": "realtime"}, "session.type", "immutable_parameter"),
        ({"voice": "marin"}, "session.voice", "unknown_parameter"),
        ({"audio": {"output": {"language": 3}}}, "session.audio.output.language", "invalid_type"),
        ({"audio": {"output": {"voice": "x"}}}, "session.audio.output.voice", "unknown_parameter"),
        (
            {"audio": {"input": {"noise_reduction": {"type": "loud"}}}},
            "session.audio.input.noise_reduction.type",
            "invalid_value",
        ),
        (
            {"audio": {"input": {"noise_reduction": {"type": "far_field", "strength": 1.5}}}},
            "session.audio.input.noise_reduction.strength",
            "decimal_out_of_range",
        ),
        (
            {"audio": {"input": {"transcription": {}}}},
            "session.audio.input.transcription.model",
            "missing_required_parameter",
        ),
        (
            {"audio": {"input": {"turn_detection": None}}},
            "session.audio.input.turn_detection",
            "unknown_parameter",
        ),
        ([], "session", "invalid_type"),
    ],
)
def test_session_update_errors_name_their_param(update, param, code) -> None:
    session = default_translation_session("sess_1", "gpt-realtime-translate", 123)
    with pytest.raises(ProtocolError) as raised:
        merge_translation_session(session, update)
    assert (raised.value.param, raised.value.code) == (param, code)
