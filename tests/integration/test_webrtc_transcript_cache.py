"""The transcript cache over a real WebRTC call: the same utterance said twice on the microphone track
(Opus both times, so never the same bytes) is transcribed by whisper once; the second turn's transcript
comes from the cache's fingerprint match."""

from __future__ import annotations

import dataclasses
import threading

import pytest

from mockengine.engines.cache import MIB, ByteLRU, CachingTranscriber
from mockengine.engines.stt import Transcript
from mockengine.server.app import create_app
from tests.speech import question
from tests.webrtc_client import CallClient

pytestmark = pytest.mark.models
SESSION = {
    "type": "realtime",
    "audio": {
        "input": {
            "transcription": {"model": "whisper-1"},
            "turn_detection": {"type": "server_vad", "silence_duration_ms": 500, "create_response": False},
        }
    },
}


class CountingTranscriber:
    """The real whisper, counting its calls."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.calls = 0
        self._lock = threading.Lock()

    def transcribe(
        self, pcm16_24k: bytes, *, language: str | None = None, prompt: str | None = None
    ) -> Transcript:
        with self._lock:
            self.calls += 1
        return self.inner.transcribe(pcm16_24k, language=language, prompt=prompt)  # type: ignore[attr-defined]


@pytest.mark.parametrize("exact_only", [False, True], ids=["fingerprint", "exact-only"])
async def test_a_repeated_utterance_on_the_track_is_transcribed_once(
    aiohttp_server, real_resources, exact_only
):
    whisper = CountingTranscriber(real_resources.transcriber.inner)  # a fresh, empty cache
    transcriber = CachingTranscriber(whisper, ByteLRU(4 * MIB), fingerprints=not exact_only)  # type: ignore[arg-type]
    resources = dataclasses.replace(real_resources, transcriber=transcriber)
    server = await aiohttp_server(create_app(resources.settings, resources))
    client = CallClient()
    pcm, _ = question()
    try:
        await client.connect(f"http://127.0.0.1:{server.port}", session=SESSION)
        await client.wait_for("session.created")
        client.mic.say(pcm + bytes(48_000) + pcm)  # 1 s of silence between: two turns
        transcripts: list[str] = []
        after = 0
        for _ in range(2):
            done = await client.wait_for(
                "conversation.item.input_audio_transcription.completed", timeout_s=40, after=after
            )
            transcripts.append(done["transcript"])
            after = client.events.index(done) + 1
    finally:
        await client.close()
    assert "capital" in transcripts[0].lower() and "france" in transcripts[0].lower()
    if exact_only:
        assert whisper.calls == 2 and transcriber.fingerprint_hits == 0
    else:
        assert transcripts[1] == transcripts[0]
        assert whisper.calls == 1 and transcriber.fingerprint_hits == 1
