"""Fidelity details a new user met, over the wire with the official ``openai`` SDK (fake engines, no
models): a response cancelled before its first audio leaves nothing behind (reference §3.6); an
unobeyable tool_choice is an error and the session goes on; two cities are two calls; a clear while the
user speaks closes the turn."""

from __future__ import annotations

import base64
import json

from mockengine.audio.synthetic import synthetic_voiced_pcm16
from tests.speech import STORY, events_until, sdk_session


async def test_a_response_cancelled_before_its_first_audio_leaves_no_item(engine) -> None:
    # The first audio delta is due 2 s after response.created: the cancel surely comes first.
    eng = await engine(audio_pace=1.0, first_delta_delay_ms=2000)
    async with sdk_session(eng.url) as connection:
        await connection.conversation.item.create(item=STORY)
        await connection.response.create()
        before = await events_until(connection, "response.created")
        user_item_id = next(e["item"]["id"] for e in before if e["type"] == "conversation.item.done")
        await connection.response.cancel()
        seen = await events_until(connection, "response.done")
        assert [e["type"] for e in seen] == ["response.done"]  # no item announced, none to close
        response = seen[-1]["response"]
        assert response["status"] == "cancelled" and response["output"] == []
        assert response["usage"]["total_tokens"] == response["usage"]["input_tokens"] == 0
        # The conversation holds the user's item only: the next reply follows it directly.
        await connection.response.create(response={"output_modalities": ["text"]})
        seen = await events_until(connection, "response.done")
        added = next(e for e in seen if e["type"] == "conversation.item.added")
        assert added["item"]["role"] == "assistant" and added["previous_item_id"] == user_item_id
        assert seen[-1]["response"]["status"] == "completed"


WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "Get the current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}


async def test_an_unobeyable_tool_choice_is_an_error_and_the_session_goes_on(engine) -> None:
    eng = await engine()
    async with sdk_session(eng.url) as connection:
        forced = {"type": "function", "name": "nope"}
        await connection.session.update(
            session={"type": "realtime", "tools": [WEATHER], "tool_choice": forced}, event_id="u1"
        )
        error = (await events_until(connection, "error"))[-1]["error"]
        assert (error["code"], error["param"], error["event_id"]) == (
            "invalid_value",
            "session.tool_choice",
            "u1",
        )
        await connection.session.update(session={"type": "realtime", "output_modalities": ["text"]})
        session = (await events_until(connection, "session.updated"))[-1]["session"]
        assert session["tools"] == [] and session["tool_choice"] == "auto"  # the refused update left nothing
        await connection.conversation.item.create(
            item={
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "Hello there"}],
            }
        )
        await connection.response.create(response={"tool_choice": "required"}, event_id="r1")
        seen = await events_until(connection, "error")
        assert "response.created" not in [e["type"] for e in seen]
        error = seen[-1]["error"]
        assert (error["param"], error["event_id"]) == ("response.tool_choice", "r1")
        await connection.response.create()  # the user's item is still there to be answered
        done = (await events_until(connection, "response.done"))[-1]["response"]
        assert done["status"] == "completed" and done["output"][0]["type"] == "message"


async def test_the_weather_in_two_cities_is_two_parallel_calls(engine) -> None:
    eng = await engine()
    async with sdk_session(eng.url) as connection:
        await connection.session.update(
            session={"type": "realtime", "output_modalities": ["text"], "tools": [WEATHER]}
        )
        await events_until(connection, "session.updated")
        text = "What's the weather in Paris and in Rome?"
        await connection.conversation.item.create(
            item={"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
        )
        await connection.response.create()
        done = (await events_until(connection, "response.done"))[-1]["response"]
        calls = [item for item in done["output"] if item["type"] == "function_call"]
        assert [(c["name"], json.loads(c["arguments"])) for c in calls] == [
            ("get_weather", {"city": "Paris"}),
            ("get_weather", {"city": "Rome"}),
        ]
        assert len({c["call_id"] for c in calls}) == 2


async def test_a_clear_while_the_user_speaks_closes_the_turn(engine) -> None:
    eng = await engine()
    async with sdk_session(eng.url) as connection:
        speech = synthetic_voiced_pcm16(800)
        for offset in range(0, len(speech), 960):  # 20 ms appends
            await connection.input_audio_buffer.append(
                audio=base64.b64encode(speech[offset : offset + 960]).decode()
            )
        started = (await events_until(connection, "input_audio_buffer.speech_started"))[-1]
        await connection.input_audio_buffer.clear()
        seen = await events_until(connection, "input_audio_buffer.cleared")
        assert [e["type"] for e in seen] == [
            "input_audio_buffer.speech_stopped",
            "input_audio_buffer.cleared",
        ]
        assert seen[0]["item_id"] == started["item_id"]
        # Speaking again is a new turn: its own speech_started, committed and answered.
        for offset in range(0, len(speech), 960):
            await connection.input_audio_buffer.append(
                audio=base64.b64encode(speech[offset : offset + 960]).decode()
            )
        silence = base64.b64encode(bytes(960)).decode()
        for _ in range(50):
            await connection.input_audio_buffer.append(audio=silence)
        seen = await events_until(connection, "input_audio_buffer.committed")
        again = next(e for e in seen if e["type"] == "input_audio_buffer.speech_started")
        assert again["item_id"] == seen[-1]["item_id"] != started["item_id"]


async def test_a_custom_voice_is_echoed_in_the_response_as_set(engine) -> None:
    """A custom voice ``{"id": …}`` (session or response.create) is what response.created/.done name; they
    named ``alloy``, the voice that speaks it here. The live service echoes the object: the Agents SDK maps
    it to its id before validating those two events (openai-python's ``RealtimeResponse`` types a str)."""
    eng = await engine()
    async with sdk_session(eng.url) as connection:
        session = {"type": "realtime", "audio": {"output": {"voice": {"id": "voice_1234"}}}}
        await connection.session.update(session=session)
        updated = (await events_until(connection, "session.updated"))[-1]
        assert updated["session"]["audio"]["output"]["voice"] == {"id": "voice_1234"}
        await connection.conversation.item.create(item=STORY)
        voices = []
        for asked in (
            {},
            {"audio": {"output": {"voice": {"id": "voice_999"}}}},
            {"audio": {"output": {"voice": "cedar"}}},
        ):
            await connection.response.create(response={"conversation": "none", **asked})
            seen = await events_until(connection, "response.done")
            created = next(e for e in seen if e["type"] == "response.created")
            assert created["response"]["audio"] == seen[-1]["response"]["audio"]
            assert any(e["type"] == "response.output_audio.delta" for e in seen)  # spoken all the same
            voices.append(seen[-1]["response"]["audio"]["output"]["voice"])
    assert voices == [{"id": "voice_1234"}, {"id": "voice_999"}, "cedar"]


async def test_an_out_of_band_input_may_answer_a_call_made_in_it(engine) -> None:
    """``response.input`` is the response's own context: a ``function_call_output`` there answers the
    ``function_call`` before it in the same input. It was refused, "Tool call ID 'call_x' not found in
    conversation.", as if it had been a ``conversation.item.create``; an unknown call still is."""
    eng = await engine()
    call = {
        "type": "function_call",
        "call_id": "call_x",
        "name": "get_weather",
        "arguments": '{"city": "Oslo"}',
    }
    output = {
        "type": "function_call_output",
        "call_id": "call_x",
        "output": '{"temp_c": -3, "conditions": "snow"}',
    }
    question = {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "Weather in Oslo?"}],
    }
    async with sdk_session(eng.url) as connection:
        oob = {"conversation": "none", "output_modalities": ["text"], "tools": [WEATHER]}
        await connection.response.create(response={**oob, "input": [question, call, output]})
        seen = await events_until(connection, "response.done")
        assert not [e for e in seen if e["type"] == "error"]
        reply = seen[-1]["response"]["output"][0]["content"][0]["text"]
        assert "snow" in reply and "Oslo" in reply
        await connection.response.create(response={**oob, "input": [question, output]})  # no call before it
        error = (await events_until(connection, "error"))[-1]["error"]
        assert error["code"] == "invalid_tool_call_id"
        # and the conversation holds none of it: an output for that call there is refused too
        await connection.conversation.item.create(item=output)
        assert (await events_until(connection, "error"))[-1]["error"]["code"] == "invalid_tool_call_id"
