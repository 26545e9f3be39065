"""LiteLLM (``litellm``, pinned in pyproject's ``test`` extra) against a real engine on loopback, pointed at
it as at any OpenAI-compatible server: ``model="openai/<id>"``, ``api_base=<engine>/v1``, any key. Chat
Completions (plain, streamed, tools, structured output, errors mapped to LiteLLM's exceptions), the
Responses API (``litellm.aresponses`` and LiteLLM's ``openai/responses/`` bridge), the audio endpoints,
and LiteLLM's Realtime passthrough (``litellm._arealtime``, what the LiteLLM proxy's ``/v1/realtime``
route calls) behind a Starlette app on uvicorn, driven by the ``openai`` SDK's realtime client."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import os
import wave
from collections.abc import AsyncIterator
from typing import Any

# LiteLLM fetches its model price list from the network at import unless told to use its bundled copy.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import aiohttp  # noqa: E402
import litellm  # noqa: E402
import pytest  # noqa: E402
import uvicorn  # noqa: E402
from litellm.integrations.custom_logger import CustomLogger  # noqa: E402
from openai import AsyncOpenAI  # noqa: E402
from pydantic import BaseModel  # noqa: E402
from starlette.applications import Starlette  # noqa: E402
from starlette.routing import WebSocketRoute  # noqa: E402
from starlette.websockets import WebSocket  # noqa: E402

from tests.eventually import eventually  # noqa: E402
from tests.integration.compat.speech import spoken_question, stream  # noqa: E402

pytestmark = [
    # LiteLLM's own types: pydantic warns about their ReadOnly TypedDict items as it first builds them,
    # and about the chat-style usage dict LiteLLM's logging puts in a Responses stream's usage field.
    pytest.mark.filterwarnings("ignore:.*ReadOnly. qualifier:UserWarning"),
    pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning"),
]

MODEL = "openai/gpt-4o-mini"
CHAT_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]
RESPONSES_TOOLS = [{"type": "function", **CHAT_TOOLS[0]["function"]}]  # type: ignore[dict-item]


class CityWeather(BaseModel):
    city: str
    temperature_c: int
    summary: str


def user(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": text}]


async def streamed(**kwargs: Any) -> tuple[Any, list[Any]]:
    """A streamed ``litellm.acompletion``: the reply LiteLLM rebuilds from its chunks, and the chunks."""
    chunks = [chunk async for chunk in await litellm.acompletion(stream=True, **kwargs)]
    return litellm.stream_chunk_builder(chunks), chunks


async def streamed_weather_calls(model: str, base: dict[str, Any]) -> Any:
    """Two weather calls asked for in one streamed turn, rebuilt; their arguments checked."""
    built, _ = await streamed(
        model=model, messages=user("What is the weather in Paris and in London?"), tools=CHAT_TOOLS, **base
    )
    calls = built.choices[0].message.tool_calls
    assert [json.loads(c.function.arguments) for c in calls] == [{"city": "Paris"}, {"city": "London"}]
    return built


@pytest.fixture
async def base(engine) -> AsyncIterator[dict[str, Any]]:
    """What every LiteLLM call takes to reach a fresh engine: ``api_base``, ``api_key``, no retries.
    LiteLLM caches its OpenAI clients by base and key; the cache is emptied around each test, whose
    clients the ``openai_clients_closed`` fixture closes."""
    eng = await engine()
    litellm.in_memory_llm_clients_cache.flush_cache()
    yield {"api_base": f"{eng.http_url}/v1", "api_key": "sk-test", "max_retries": 0}
    litellm.in_memory_llm_clients_cache.flush_cache()


# --- Chat Completions ---------------------------------------------------------------------------------


async def test_acompletion_answers_with_usage_and_cost(base) -> None:
    reply = await litellm.acompletion(model=MODEL, messages=user("What is the capital of France?"), **base)
    assert "Paris" in reply.choices[0].message.content
    assert reply.choices[0].finish_reason == "stop"
    usage = reply.usage
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens > 0
    # LiteLLM prices the call from the usage and its own price list for the model named.
    assert reply._hidden_params["response_cost"] > 0


async def test_a_stream_rebuilds_into_the_answer_with_usage(base) -> None:
    built, chunks = await streamed(
        model=MODEL, messages=user("Tell me about Paris."), stream_options={"include_usage": True}, **base
    )
    assert len(chunks) > 2
    assert "Paris" in built.choices[0].message.content
    assert built.choices[0].finish_reason == "stop"
    assert built.usage.completion_tokens > 0


async def test_a_tool_loop_calls_the_tool_and_answers_its_result(base) -> None:
    messages = user("What is the weather in Paris?")
    first = await litellm.acompletion(model=MODEL, messages=messages, tools=CHAT_TOOLS, **base)
    assert first.choices[0].finish_reason == "tool_calls"
    (call,) = first.choices[0].message.tool_calls
    assert call.function.name == "get_weather" and json.loads(call.function.arguments) == {"city": "Paris"}
    # The assistant message as LiteLLM returns it goes back as is (with its LiteLLM-only fields).
    messages += [
        first.choices[0].message.model_dump(),
        {"role": "tool", "tool_call_id": call.id, "content": "It is sunny and 21 degrees in Paris."},
    ]
    second = await litellm.acompletion(model=MODEL, messages=messages, tools=CHAT_TOOLS, **base)
    assert second.choices[0].finish_reason == "stop"
    assert "sunny" in second.choices[0].message.content.lower()


async def test_streamed_parallel_tool_calls_assemble(base) -> None:
    built = await streamed_weather_calls(MODEL, base)
    calls = built.choices[0].message.tool_calls
    assert all(c.id.startswith("call_") for c in calls) and calls[0].id != calls[1].id
    assert built.choices[0].finish_reason == "tool_calls"


@pytest.mark.parametrize(
    "tool_choice", ["required", {"type": "function", "function": {"name": "get_weather"}}], ids=str
)
async def test_a_forced_tool_is_called(base, tool_choice) -> None:
    reply = await litellm.acompletion(
        model=MODEL, messages=user("Hello there."), tools=CHAT_TOOLS, tool_choice=tool_choice, **base
    )
    (call,) = reply.choices[0].message.tool_calls
    assert call.function.name == "get_weather" and "city" in json.loads(call.function.arguments)


async def test_response_format_a_pydantic_model(base) -> None:
    """LiteLLM turns the class into a strict ``json_schema`` (``additionalProperties: false`` added)."""
    reply = await litellm.acompletion(
        model=MODEL,
        messages=user("It is 21 degrees and sunny in Paris."),
        response_format=CityWeather,
        **base,
    )
    weather = CityWeather.model_validate_json(reply.choices[0].message.content)
    assert (weather.city, weather.temperature_c) == ("Paris", 21)


async def test_errors_map_to_litellms_exceptions(base, engine) -> None:
    """LiteLLM maps by status and, for the context window, by the message's words: the engine's are the
    live ones ("maximum context length")."""
    with pytest.raises(litellm.BadRequestError) as bad:
        await litellm.acompletion(model=MODEL, messages=user("Hello"), temperature=5, **base)
    assert "temperature" in str(bad.value)
    with pytest.raises(litellm.ContextWindowExceededError):
        await litellm.acompletion(model=MODEL, messages=user("word " * 200_000), **base)
    with pytest.raises(litellm.RateLimitError):
        await litellm.acompletion(
            model=MODEL,
            messages=user("Hello"),
            extra_headers={"X-Mockengine-Fault": "http_rate_limit:retry_after_s=0.2"},
            **base,
        )
    guarded = await engine(api_key="sk-right")
    with pytest.raises(litellm.AuthenticationError):
        await litellm.acompletion(
            model=MODEL, messages=user("Hello"), **{**base, "api_base": f"{guarded.http_url}/v1"}
        )


async def test_a_rate_limit_is_retried_through(base) -> None:
    """One 429 armed on the engine, then LiteLLM's own retry (``num_retries``) gets the answer."""
    async with aiohttp.ClientSession() as http:
        fault = {"fault": "http_rate_limit:retry_after_s=0.2", "requests": 1}
        control = base["api_base"].removesuffix("/v1") + "/mockengine/faults"
        async with http.post(control, json=fault) as armed:
            assert armed.status == 200
    reply = await litellm.acompletion(model=MODEL, messages=user("Hello"), num_retries=1, **base)
    assert reply.choices[0].message.content


# --- Responses API --------------------------------------------------------------------------------------


async def test_aresponses_a_tool_loop_by_previous_response_id(base) -> None:
    """LiteLLM wraps response ids in its own encoding (provider and model inside) and unwraps them on
    ``previous_response_id``: the engine gets its own id back and finds the kept response."""
    first = await litellm.aresponses(
        model=MODEL, input="What is the weather in Paris?", tools=RESPONSES_TOOLS, **base
    )
    (call,) = [item for item in first.output if item.type == "function_call"]
    assert json.loads(call.arguments) == {"city": "Paris"}
    second = await litellm.aresponses(
        model=MODEL,
        input=[{"type": "function_call_output", "call_id": call.call_id, "output": "Sunny, 21 degrees."}],
        previous_response_id=first.id,
        tools=RESPONSES_TOOLS,
        **base,
    )
    assert "21" in second.output_text
    assert second.usage.input_tokens > first.usage.input_tokens > 0


async def test_aresponses_streams_to_completed(base) -> None:
    events = [
        event
        async for event in await litellm.aresponses(
            model=MODEL, input="Tell me about Paris.", stream=True, **base
        )
    ]
    kinds = [str(getattr(event.type, "value", event.type)) for event in events]  # LiteLLM's enum
    assert kinds[:2] == ["response.created", "response.in_progress"] and kinds[-1] == "response.completed"
    text = "".join(
        e.delta for e, kind in zip(events, kinds, strict=True) if kind == "response.output_text.delta"
    )
    assert "Paris" in text and text == events[-1].response.output[0].content[0].text


async def test_the_responses_bridge_runs_a_streamed_tool_call(base) -> None:
    """``openai/responses/<model>``: LiteLLM's ``completion`` over the Responses API, its stream events
    translated back into chat chunks."""
    await streamed_weather_calls("openai/responses/gpt-4o-mini", base)


# --- Audio ------------------------------------------------------------------------------------------------


@pytest.mark.models
async def test_speech_is_heard_back_by_transcription(base) -> None:
    spoken = await litellm.aspeech(
        model="openai/tts-1",
        voice="alloy",
        input="The quick brown fox jumps over the lazy dog.",
        response_format="wav",
        **base,
    )
    with wave.open(io.BytesIO(spoken.content)) as wav:
        assert wav.getframerate() == 24_000 and wav.getnframes() > 24_000
    audio = io.BytesIO(spoken.content)
    audio.name = "speech.wav"
    heard = await litellm.atranscription(model="openai/whisper-1", file=audio, **base)
    assert "quick brown fox" in heard.text.lower()
    # whisper-1's default answer to LiteLLM is verbose_json: the duration it prices the call by.
    assert heard.duration and heard._hidden_params["response_cost"] > 0


@pytest.mark.models
async def test_a_streamed_transcription(base) -> None:
    pcm, text = spoken_question()
    audio = io.BytesIO()
    with wave.open(audio, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(24_000)
        wav.writeframes(pcm)
    audio.seek(0)
    audio.name = "question.wav"
    events = [
        event
        async for event in await litellm.atranscription(
            model="openai/gpt-4o-mini-transcribe", file=audio, stream=True, **base
        )
    ]
    assert [e.type for e in events[:-1]] == ["transcript.text.delta"] * (len(events) - 1)
    assert events[-1].type == "transcript.text.done" and events[-1].text == text
    assert events[-1].usage.input_tokens > 0


# --- Realtime, through LiteLLM's passthrough -----------------------------------------------------------


class SessionLog(CustomLogger):
    """What LiteLLM logged for each Realtime session once it ended: its token counts (from the
    ``response.done`` usage it read) and its cost."""

    def __init__(self) -> None:
        super().__init__()
        self.sessions: list[dict[str, Any]] = []

    async def async_log_success_event(self, kwargs, response_obj, start_time, end_time) -> None:
        logged = kwargs.get("standard_logging_object") or {}
        self.sessions.append(
            {
                "prompt_tokens": logged.get("prompt_tokens"),
                "completion_tokens": logged.get("completion_tokens"),
                "cost": kwargs.get("response_cost"),
            }
        )


@pytest.fixture
async def litellm_realtime(framework_engine, monkeypatch) -> AsyncIterator[tuple[str, SessionLog]]:
    """A Starlette app on uvicorn whose ``/v1/realtime`` does what the LiteLLM proxy's route does (accept,
    then ``litellm._arealtime`` with the deployment's ``openai/<model>``, ``api_base``, key and the
    client's ``model``/``intent``), in front of a fresh engine. Yields the app's ``ws://…/v1`` and the
    log of the sessions LiteLLM recorded."""
    eng = await framework_engine()
    log = SessionLog()
    monkeypatch.setattr(litellm, "callbacks", [log])

    async def realtime(websocket: WebSocket) -> None:
        await websocket.accept()
        query = {
            key: websocket.query_params[key] for key in ("model", "intent") if key in websocket.query_params
        }
        await litellm._arealtime(
            model=f"openai/{query.get('model', 'gpt-realtime')}",
            websocket=websocket,
            api_base=f"{eng.http_url}/v1",
            api_key="sk-test",
            query_params=query,
        )

    app = Starlette(routes=[WebSocketRoute("/v1/realtime", realtime)])
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
    )
    serving = asyncio.create_task(server.serve())
    await eventually(lambda: server.started or serving.done(), timeout_s=30, message="uvicorn never started")
    assert server.started, serving.exception()
    port = server.servers[0].sockets[0].getsockname()[1]
    yield f"ws://127.0.0.1:{port}/v1", log
    server.should_exit = True
    await asyncio.wait_for(serving, timeout=30)
    await eng.wait_until_idle()


async def respond(conn: Any, item: dict[str, Any]) -> list[Any]:
    """Create ``item``, ask for a response, and return its events up to its ``response.done``."""
    await conn.conversation.item.create(item=item)
    await conn.response.create()
    events = []
    async for event in conn:
        events.append(event)
        if event.type == "response.done":
            return events
    raise AssertionError("the session ended before response.done")


def typed(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


async def test_realtime_a_typed_turn_and_a_tool_through_litellm(litellm_realtime) -> None:
    url, log = litellm_realtime
    client = AsyncOpenAI(api_key="sk-anything", websocket_base_url=url)
    tool = RESPONSES_TOOLS[0]
    async with client.realtime.connect(model="gpt-realtime") as conn:
        await conn.session.update(
            session={"type": "realtime", "output_modalities": ["text"], "tools": [tool]}
        )
        greeted = await respond(conn, typed("Hi, I'm Ada."))
        assert greeted[-1].response.status == "completed"
        asked = await respond(conn, typed("What is the weather in Paris?"))
        call = [e for e in asked if e.type == "response.function_call_arguments.done"][-1]
        assert call.name == "get_weather" and json.loads(call.arguments) == {"city": "Paris"}
        output = {"type": "function_call_output", "call_id": call.call_id, "output": "Sunny, 21 degrees."}
        answered = await respond(conn, output)
    answer = [e.text for e in answered if e.type == "response.output_text.done"][-1]
    usage = [events[-1].response.usage for events in (greeted, asked, answered)]
    assert "21" in answer
    # LiteLLM's session log adds up every response.done's usage and prices it.
    (logged,) = await eventually(lambda: log.sessions, timeout_s=30, message="LiteLLM logged no session")
    assert logged["prompt_tokens"] == sum(u.input_tokens for u in usage)
    assert logged["completion_tokens"] == sum(u.output_tokens for u in usage)
    assert logged["cost"] > 0


@pytest.mark.models
async def test_realtime_a_spoken_turn_through_litellm(litellm_realtime) -> None:
    url, _ = litellm_realtime
    pcm, text = spoken_question()
    client = AsyncOpenAI(api_key="sk-anything", websocket_base_url=url)
    async with client.realtime.connect(model="gpt-realtime") as conn:
        await conn.session.update(
            session={
                "type": "realtime",
                "audio": {
                    "input": {
                        "transcription": {"model": "whisper-1"},
                        "turn_detection": {"type": "server_vad"},
                    }
                },
            }
        )

        async def send(chunk: bytes) -> None:
            await conn.input_audio_buffer.append(audio=base64.b64encode(chunk).decode())

        speaking = asyncio.create_task(stream(send, pcm, silence_ms=1500))
        transcript = said = ""
        audio_bytes = 0
        async for event in conn:
            if event.type == "conversation.item.input_audio_transcription.completed":
                transcript = event.transcript
            if event.type == "response.output_audio.delta":
                audio_bytes += len(base64.b64decode(event.delta))
            if event.type == "response.output_audio_transcript.done":
                said = event.transcript
            if event.type == "response.done":
                break
        await speaking
    assert transcript == text
    assert "Paris" in said and audio_bytes > 24_000 * 2


async def test_realtime_a_transcription_session_through_litellm(litellm_realtime) -> None:
    """``?intent=transcription`` with a model: LiteLLM keeps ``model`` on the URL for a non-OpenAI host
    and sends the session on; the engine opens a transcription session."""
    url, _ = litellm_realtime
    client = AsyncOpenAI(api_key="sk-anything", websocket_base_url=url)
    async with client.realtime.connect(
        model="gpt-4o-transcribe", extra_query={"intent": "transcription"}
    ) as conn:
        async for event in conn:
            assert event.type == "session.created"
            assert event.session.type == "transcription"
            break
