"""The audio REST endpoints under admission control, as spoken Chat Completions are
(``admission.speech_admitted``): a burst of speech or transcription requests takes at most one worker
fewer than the executor the Realtime sessions share has (at least one), the rest wait on the event loop,
so a session's next sentence or transcript does not queue behind the burst; and every request is counted
in ``/metrics`` as the chat requests are. Over a real server on loopback, the ``openai`` SDK as client,
engine calls held at a gate so the burst lasts as long as the test needs."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from typing import Any

import aiohttp
from openai import AsyncOpenAI
from prometheus_client.parser import text_string_to_metric_families

from mockengine.engines.fakes import FakeSynthesizer, FakeTranscriber
from mockengine.engines.stt import Transcript
from mockengine.engines.tts import SpeechSegment
from mockengine.server.app import create_app
from mockengine.server.executors import MeteredExecutor
from tests.conftest import FAKE_TRANSCRIPT
from tests.eventually import eventually
from tests.speech import DATA

QUESTION = DATA / "question.wav"


class Held:
    """Engine calls held until ``release`` is set; ``entered`` counts the calls that began."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.entered = threading.Semaphore(0)

    def hold(self) -> None:
        self.entered.release()
        self.release.wait(timeout=60)


class HeldSynthesizer(FakeSynthesizer):
    def __init__(self) -> None:
        super().__init__()
        self.held = Held()

    def synthesize(self, text: str, *, voice: str, speed: float = 1.0) -> list[SpeechSegment]:
        self.held.hold()
        return super().synthesize(text, voice=voice, speed=speed)


class HeldTranscriber(FakeTranscriber):
    def __init__(self) -> None:
        super().__init__(default=FAKE_TRANSCRIPT)
        self.held = Held()

    def transcribe(
        self, pcm16_24k: bytes, *, language: str | None = None, prompt: str | None = None
    ) -> Transcript:
        self.held.hold()
        return super().transcribe(pcm16_24k, language=language, prompt=prompt)


async def _metrics(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{port}/metrics") as reply:
        text = await reply.text()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def _requests(metrics: dict, route: str, status: str = "200") -> float:
    return metrics.get(("mockengine_requests_total", (("route", route), ("status", status))), 0.0)


def _waiting(metrics: dict, executor: str) -> float:
    return metrics.get(("mockengine_requests_waiting", (("executor", executor),)), 0.0)


async def _waiting_now(port: int, executor: str, count: int) -> bool:
    return _waiting(await _metrics(port), executor) == count


async def _entered(held: Held) -> None:
    await asyncio.get_running_loop().run_in_executor(None, held.entered.acquire)


async def test_a_burst_of_speech_requests_leaves_a_worker_for_the_sessions(aiohttp_server, fake_resources):
    # Four speech requests at once, each synthesis held: with two tts workers, they take at most one,
    # so a Realtime session's next sentence (a job on the same executor) still runs. Before, two held
    # requests filled both workers and the session's sentence queued behind all four.
    synthesizer = HeldSynthesizer()
    tts = MeteredExecutor("tts-test", 2)
    settings = dataclasses.replace(fake_resources.settings, tts_threads=2)
    resources = dataclasses.replace(
        fake_resources, settings=settings, synthesizer=synthesizer, tts_executor=tts
    )
    server = await aiohttp_server(create_app(settings, resources))
    client = AsyncOpenAI(api_key="sk-test", base_url=f"http://127.0.0.1:{server.port}/v1", max_retries=0)
    before = await _metrics(server.port)

    async def speak(response_format: Any) -> bytes:
        answer = await client.audio.speech.create(
            model="gpt-4o-mini-tts", voice="alloy", input="Hello there.", response_format=response_format
        )
        return answer.read()

    burst = [asyncio.create_task(speak(fmt)) for fmt in ("mp3", "wav", "pcm", "mp3")]  # pcm: by sentence
    try:
        await _entered(synthesizer.held)  # one is speaking
        # The other three wait on the event loop once their requests have come in (counted as soon as
        # one was speaking, a loaded machine had not read them all yet). Given a worker instead, they
        # never all wait and this fails.
        await eventually(lambda: _waiting_now(server.port, "tts", 3), message="the other three never waited")
        sentence = asyncio.get_running_loop().run_in_executor(tts, lambda: "the session's sentence")
        done, _ = await asyncio.wait({sentence}, timeout=30)  # a guard, not a measure: it runs at once
        assert sentence in done and tts.queue_depth == 0
        during = await _metrics(server.port)
        assert _waiting(during, "tts") == 3  # still waiting: the sentence took the free worker
    finally:
        synthesizer.held.release.set()
        answers = await asyncio.gather(*burst)
        await client.close()
        tts.shutdown(wait=True)
    assert all(answers)
    after = await _metrics(server.port)
    assert _requests(after, "/v1/audio/speech") - _requests(before, "/v1/audio/speech") == 4
    assert _waiting(after, "tts") == 0


async def test_a_burst_of_transcriptions_queues_a_sessions_transcript_behind_one_at_most(
    aiohttp_server, fake_resources
):
    # whisper has one worker: three transcription requests at once, each held, run one at a time and the
    # other two wait on the event loop, so a session's transcript queues behind the one running only.
    # Before, all three went into the executor and the session's job was fourth in line.
    transcriber = HeldTranscriber()
    stt = MeteredExecutor("stt-test", 1)
    resources = dataclasses.replace(fake_resources, transcriber=transcriber, stt_executor=stt)
    server = await aiohttp_server(create_app(resources.settings, resources))
    client = AsyncOpenAI(api_key="sk-test", base_url=f"http://127.0.0.1:{server.port}/v1", max_retries=0)
    before = await _metrics(server.port)
    wav = QUESTION.read_bytes()
    burst = [
        asyncio.create_task(client.audio.transcriptions.create(model="whisper-1", file=("q.wav", wav))),
        asyncio.create_task(client.audio.translations.create(model="whisper-1", file=("q.wav", wav))),
        asyncio.create_task(
            client.audio.transcriptions.create(model="gpt-4o-transcribe", file=("q.wav", wav))
        ),
    ]
    try:
        await _entered(transcriber.held)  # one is being transcribed
        # The other two requests wait on the event loop once they have come in (a fixed 0.2 s pause took
        # for granted that they had, however loaded the machine); put in the executor instead, they never
        # count as waiting and this fails.
        await eventually(lambda: _waiting_now(server.port, "stt", 2), message="the other two never waited")
        session_job = asyncio.get_running_loop().run_in_executor(stt, lambda: "the session's transcript")
        assert stt.queue_depth == 1  # the session's job, behind the one running only
        assert _waiting(await _metrics(server.port), "stt") == 2
    finally:
        transcriber.held.release.set()
        results = await asyncio.gather(*burst)
        await client.close()
        stt.shutdown(wait=True)
    assert await session_job == "the session's transcript"
    assert [r.text for r in results] == [FAKE_TRANSCRIPT] * 3
    after = await _metrics(server.port)
    for route, count in (("/v1/audio/transcriptions", 2), ("/v1/audio/translations", 1)):
        assert _requests(after, route) - _requests(before, route) == count


async def test_refused_audio_and_chat_requests_are_counted_by_status(engine):
    eng = await engine()
    port = int(eng.http_url.rsplit(":", 1)[1])
    before = await _metrics(port)
    client = AsyncOpenAI(api_key="sk-test", base_url=eng.http_url + "/v1", max_retries=0)
    await client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "Hi."}])
    async with aiohttp.ClientSession() as http:
        form = aiohttp.FormData({"model": "whisper-9"})
        form.add_field("file", QUESTION.read_bytes(), filename="q.wav")
        async with http.post(
            f"{eng.http_url}/v1/audio/transcriptions", data=form, headers={"Authorization": "Bearer sk-test"}
        ) as reply:
            assert reply.status == 404
    after = await _metrics(port)
    assert _requests(after, "/v1/chat/completions") - _requests(before, "/v1/chat/completions") == 1
    delta = _requests(after, "/v1/audio/transcriptions", "404") - _requests(
        before, "/v1/audio/transcriptions", "404"
    )
    assert delta == 1
