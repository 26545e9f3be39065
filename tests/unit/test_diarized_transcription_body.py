"""``POST /v1/audio/transcriptions``' ``diarized_json`` over a transcript of several sentences: segments as
verbose_json cuts them, and in the stream each ``transcript.text.segment`` right after its last word,
every body and event parsed by openai-python's types."""

from __future__ import annotations

from multidict import MultiDict
from openai.types.audio import TranscriptionDiarized, TranscriptionStreamEvent
from pydantic import TypeAdapter

from mockengine.chat.transcription import diarized_body, parse_request, stream_events
from mockengine.engines.stt import Transcript, WordTiming
from mockengine.engines.tokens import TokenCounter

TWO_SENTENCES = Transcript(
    "Hello there. How are you?",
    2000,
    "en",
    (
        WordTiming("Hello", 0, 400),
        WordTiming("there.", 400, 800),
        WordTiming("How", 1000, 1300),
        WordTiming("are", 1300, 1500),
        WordTiming("you?", 1500, 1900),
    ),
)


def _request(stream: bool):
    form = MultiDict(
        model="gpt-4o-transcribe-diarize", response_format="diarized_json", stream=str(stream).lower()
    )
    return parse_request(form)


def test_each_sentence_is_a_segment_of_speaker_a() -> None:
    body = diarized_body(_request(False), TWO_SENTENCES, TokenCounter())
    parsed = TranscriptionDiarized.model_validate(body)
    assert [(s.id, s.text, s.start, s.end, s.speaker) for s in parsed.segments] == [
        ("seg_0", "Hello there.", 0.0, 0.8, "A"),
        ("seg_1", "How are you?", 1.0, 2.0, "A"),  # the last runs to the end of the audio
    ]
    assert parsed.duration == 2.0 and parsed.task == "transcribe"


def test_a_streamed_segment_follows_its_last_word() -> None:
    events = stream_events(_request(True), TWO_SENTENCES, TokenCounter())
    adapter: TypeAdapter[TranscriptionStreamEvent] = TypeAdapter(TranscriptionStreamEvent)
    for event in events:
        adapter.validate_python(event)
    assert [e.get("delta", e.get("id")) or e["type"] for e in events] == [
        "Hello",
        " there.",
        "seg_0",
        " How",
        " are",
        " you?",
        "seg_1",
        "transcript.text.done",
    ]
    # Without diarized_json the diarize model streams as the others do: no segment event.
    plain = MultiDict(model="gpt-4o-transcribe-diarize", stream="true")
    assert all(
        e["type"] != "transcript.text.segment"
        for e in stream_events(parse_request(plain), TWO_SENTENCES, TokenCounter())
    )
