"""Hosted MCP tools (docs/tools.md, "Hosted MCP tools") over the wire with the official ``openai`` SDK
against a real MCP server on loopback (tests/mcp_server.py: the ``mcp`` SDK's MCPServer over streamable
HTTP): the engine lists the server's tools, the participant picks one as it picks a function, the engine
calls it and the next response grounds its answer in the server's real output; approval asked, granted
and refused; an unreachable server, a failing tool and a slow one fail in the protocol's shape and the
session goes on; the same from a client secret's session and a WebRTC call's (a connector refused
there). Every event is checked against the SDK's models."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest
from openai import AsyncOpenAI

from mockengine.server import mcp_client
from tests.mcp_server import free_port, mcp_server
from tests.speech import events_until, validate_server_event
from tests.webrtc_client import CallClient

TEXT = {"output_modalities": ["text"]}


def _mcp_tool(url: str, **fields: Any) -> dict[str, Any]:
    return {"type": "mcp", "server_label": "weather", "server_url": url, **fields}


async def _declare(connection: Any, *tools: dict[str, Any]) -> list[dict[str, Any]]:
    """session.update with ``tools``; the events until the listing's item is done."""
    session = {"type": "realtime", "output_modalities": ["text"], "tools": list(tools)}
    await connection.session.update(session=session)
    seen: list[dict[str, Any]] = []
    while not seen or seen[-1]["type"] != "conversation.item.done":
        seen += await events_until(connection, "conversation.item.done")
    return seen


async def _ask(connection: Any, text: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    content = [{"type": "input_text", "text": text}]
    await connection.conversation.item.create(item={"type": "message", "role": "user", "content": content})
    await connection.response.create(response=TEXT)
    return await _response(connection)


async def _response(connection: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    seen = await events_until(connection, "response.done")
    assert not [e for e in seen if e["type"] == "error"], seen
    return seen[-1]["response"], seen


def _said(response: dict[str, Any]) -> str:
    return " ".join(
        part.get("text") or ""
        for item in response["output"]
        if item["type"] == "message"
        for part in item["content"]
    )


def _kinds(response: dict[str, Any]) -> list[str]:
    return [item["type"] for item in response["output"]]


async def _connect(engine: Any, mcp_timeout_s: float = 10.0) -> tuple[AsyncOpenAI, Any]:
    """The engine's MCP deadline is its default 10 s unless a test waits one out: a loaded machine may be
    slow to list or call the test's server, which only the slow tool's test should turn into a failure."""
    eng = await engine(audio_pace=0.0, mcp_timeout_s=mcp_timeout_s)
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=eng.url)
    return client, client.realtime.connect(model="gpt-realtime")


@pytest.mark.parametrize("transport", ["streamable-http", "sse"])
async def test_the_server_is_listed_called_and_its_output_spoken(engine, transport: str) -> None:
    client, connecting = await _connect(engine)
    async with mcp_server(transport) as server, connecting as connection:
        await events_until(connection, "session.created")
        listing = await _declare(connection, _mcp_tool(server.url, require_approval="never"))
        kinds = [e["type"] for e in listing]
        assert kinds[kinds.index("session.updated") :] == [
            "session.updated",
            "conversation.item.added",
            "mcp_list_tools.in_progress",
            "mcp_list_tools.completed",
            "conversation.item.done",
        ]
        item = listing[-1]["item"]
        assert (item["type"], item["server_label"]) == ("mcp_list_tools", "weather")
        tools = {tool["name"]: tool for tool in item["tools"]}
        assert set(tools) == {"get_weather", "roll_dice", "book_table", "check_stock"}
        assert tools["get_weather"]["input_schema"]["required"] == ["city"]
        assert tools["get_weather"]["annotations"]["readOnlyHint"] is True

        response, events = await _ask(connection, "What's the weather like in Paris?")
        assert server.calls == [("get_weather", {"city": "Paris"})]
        [call] = [item for item in response["output"] if item["type"] == "mcp_call"]
        assert (call["server_label"], call["name"]) == ("weather", "get_weather")
        assert json.loads(call["arguments"]) == {"city": "Paris"}
        assert call["output"] == "It is 21 degrees and sunny in Paris."
        assert call["error"] is None
        call_events = [
            e["type"]
            for e in events
            if e.get("item_id") == call["id"] or e.get("item", {}).get("id") == call["id"]
        ]
        assert call_events[0] == "response.output_item.added"
        assert "response.mcp_call_arguments.delta" in call_events
        tail = [k for k in call_events if k != "response.mcp_call_arguments.delta"]
        assert tail == [
            "response.output_item.added",
            "conversation.item.added",
            "response.mcp_call_arguments.done",
            "response.mcp_call.in_progress",
            "response.mcp_call.completed",
            "conversation.item.done",
            "response.output_item.done",
        ]
        assert response["status"] == "completed"

        # As the Agents JS SDK does on the call's conversation.item.done: ask for the answer.
        await connection.response.create(response=TEXT)
        answer, _ = await _response(connection)
        assert "21 degrees and sunny in Paris" in _said(answer)
        assert server.calls == [("get_weather", {"city": "Paris"})]  # grounded, not called again


async def test_allowed_tools_filter_the_listing_and_the_choice(engine) -> None:
    client, connecting = await _connect(engine)
    async with mcp_server() as server, connecting as connection:
        await events_until(connection, "session.created")
        tool = _mcp_tool(server.url, allowed_tools=["roll_dice"], require_approval="never")
        listing = await _declare(connection, tool)
        assert [t["name"] for t in listing[-1]["item"]["tools"]] == ["roll_dice"]
        response, _ = await _ask(connection, "What's the weather like in Paris?")
        assert "mcp_call" not in _kinds(response)
        response, _ = await _ask(connection, "Roll a die with twenty sides.")
        [call] = [item for item in response["output"] if item["type"] == "mcp_call"]
        assert server.calls == [("roll_dice", {"sides": 20})]
        assert call["output"].startswith("The die shows ")


async def _approval_request(connection: Any, question: str) -> dict[str, Any]:
    """Ask; the response's mcp_approval_request (the response waits for the answer)."""
    content = [{"type": "input_text", "text": question}]
    await connection.conversation.item.create(item={"type": "message", "role": "user", "content": content})
    await connection.response.create(response=TEXT)
    while True:
        [*seen, done] = await events_until(connection, "conversation.item.done")
        assert "response.done" not in [e["type"] for e in seen]
        if done["item"]["type"] == "mcp_approval_request":
            return done["item"]


async def test_approval_is_asked_then_granted_or_refused(engine) -> None:
    """The response asks and waits; the client answers with the mcp_approval_response item alone (as
    openai-ruby's examples/realtime/mcp_approval.rb and the Agents JS SDK's approve() do): approved,
    the call runs in that response; refused, it ends without one and the next response says so."""
    client, connecting = await _connect(engine)
    async with mcp_server() as server, connecting as connection:
        await events_until(connection, "session.created")
        await _declare(connection, _mcp_tool(server.url, require_approval="always"))

        request = await _approval_request(connection, "What's the weather like in Paris?")
        assert (request["name"], json.loads(request["arguments"])) == ("get_weather", {"city": "Paris"})
        assert server.calls == []
        approval = {"type": "mcp_approval_response", "approval_request_id": request["id"], "approve": True}
        await connection.conversation.item.create(item=approval)
        response, _ = await _response(connection)
        assert _kinds(response) == ["message", "mcp_approval_request", "mcp_call"]
        call = response["output"][2]
        assert call["approval_request_id"] == request["id"]
        assert call["output"] == "It is 21 degrees and sunny in Paris."
        assert server.calls == [("get_weather", {"city": "Paris"})]

        request = await _approval_request(connection, "Roll a die with six sides.")
        refusal = {"type": "mcp_approval_response", "approval_request_id": request["id"], "approve": False}
        await connection.conversation.item.create(item=refusal)
        response, _ = await _response(connection)
        assert _kinds(response) == ["message", "mcp_approval_request"]
        await connection.response.create(response=TEXT)
        response, _ = await _response(connection)
        assert _kinds(response) == ["message"]
        assert _said(response).startswith("Okay, I won't")  # as after any refused call
        assert [name for name, _ in server.calls] == ["get_weather"]


async def test_the_tools_headers_and_token_reach_the_server(engine) -> None:
    client, connecting = await _connect(engine)
    async with mcp_server() as server, connecting as connection:
        await events_until(connection, "session.created")
        tool = _mcp_tool(server.url, headers={"X-Team": "blue"}, authorization="tok_123")
        listing = await _declare(connection, tool)
        assert "mcp_list_tools.completed" in [e["type"] for e in listing]
    assert server.headers and all(h.get("x-team") == "blue" for h in server.headers)
    assert all(h.get("authorization") == "Bearer tok_123" for h in server.headers)


async def test_an_approval_for_no_request_is_refused(engine) -> None:
    client, connecting = await _connect(engine)
    async with connecting as connection:
        await events_until(connection, "session.created")
        approval = {"type": "mcp_approval_response", "approval_request_id": "item_nope", "approve": True}
        await connection.conversation.item.create(item=approval)
        [error] = await events_until(connection, "error")
        assert error["error"]["param"] == "item.approval_request_id"


async def test_a_second_answer_to_an_approval_request_is_refused(engine) -> None:
    """The first answer stands: a later approval of a refused request got in and ran the refused call in
    the next response."""
    client, connecting = await _connect(engine)
    async with mcp_server() as server, connecting as connection:
        await events_until(connection, "session.created")
        await _declare(connection, _mcp_tool(server.url, require_approval="always"))
        request = await _approval_request(connection, "What's the weather like in Paris?")
        refusal = {"type": "mcp_approval_response", "approval_request_id": request["id"], "approve": False}
        await connection.conversation.item.create(item=refusal)
        await _response(connection)
        approval = {**refusal, "approve": True}
        await connection.conversation.item.create(item=approval)
        [*_, error] = await events_until(connection, "error")
        assert (error["error"]["code"], error["error"]["param"]) == (
            "invalid_value",
            "item.approval_request_id",
        )
        assert "has already been answered" in error["error"]["message"]
        await connection.response.create(response=TEXT)
        response, _ = await _response(connection)
        assert _said(response).startswith("Okay, I won't")
        assert server.calls == []


async def test_an_approved_call_whose_server_was_removed_fails_uncalled(engine) -> None:
    """session.update drops the server while its approval request waits: approved, the call fails with
    an error saying so, the server is not called, and the session goes on."""
    client, connecting = await _connect(engine)
    async with mcp_server() as server, connecting as connection:
        await events_until(connection, "session.created")
        await _declare(connection, _mcp_tool(server.url, require_approval="always"))
        request = await _approval_request(connection, "What's the weather like in Paris?")
        await connection.session.update(session={"type": "realtime", "tools": []})
        await events_until(connection, "session.updated")
        approval = {"type": "mcp_approval_response", "approval_request_id": request["id"], "approve": True}
        await connection.conversation.item.create(item=approval)
        response, seen = await _response(connection)
        assert "response.mcp_call.failed" in [e["type"] for e in seen]
        assert _kinds(response) == ["message", "mcp_approval_request", "mcp_call"]
        call = response["output"][2]
        assert call["output"] is None and call["error"]["type"] == "tool_execution_error"
        assert "'weather' is no longer in the session's tools" in call["error"]["message"]
        assert server.calls == []


async def test_an_unreachable_server_fails_its_listing_and_the_session_goes_on(engine) -> None:
    client, connecting = await _connect(engine)
    async with connecting as connection:
        await events_until(connection, "session.created")
        url = f"http://127.0.0.1:{free_port()}/mcp"
        listing = await _declare(connection, _mcp_tool(url))
        kinds = [e["type"] for e in listing]
        assert "mcp_list_tools.failed" in kinds and "mcp_list_tools.completed" not in kinds
        assert listing[-1]["item"]["tools"] == []
        response, _ = await _ask(connection, "What is the capital of France?")
        assert "Paris" in _said(response)


async def test_a_failing_tool_and_a_slow_one_fail_the_call_not_the_session(engine) -> None:
    client, connecting = await _connect(engine, mcp_timeout_s=3.0)  # check_stock sleeps 30 s
    async with mcp_server() as server, connecting as connection:
        await events_until(connection, "session.created")
        await _declare(
            connection,
            _mcp_tool(server.url, require_approval={"never": {"tool_names": ["book_table", "check_stock"]}}),
        )
        for question, error_type in [
            ("Book a table at the restaurant Chez Paul.", "tool_execution_error"),
            ("Check whether the product teapot is in stock.", "http_error"),
        ]:
            response, events = await _ask(connection, question)
            [call] = [item for item in response["output"] if item["type"] == "mcp_call"]
            assert call["output"] is None and call["error"]["type"] == error_type, call
            assert "response.mcp_call.failed" in [e["type"] for e in events]
            assert response["status"] == "completed"
        assert [name for name, _ in server.calls] == ["book_table", "check_stock"]
        response, _ = await _ask(connection, "What is the capital of France?")
        assert "Paris" in _said(response)


async def test_a_client_secrets_mcp_server_is_listed_when_its_session_opens(engine) -> None:
    """The session a client secret carries is a session.update applied at creation: its MCP servers are
    listed right after session.created, and the browser's first turn can use them."""
    eng = await engine(audio_pace=0.0)
    async with mcp_server() as server:
        tool = _mcp_tool(server.url, require_approval="never")
        session = {
            "type": "realtime",
            "model": "gpt-realtime",
            "output_modalities": ["text"],
            "tools": [tool],
        }
        base = eng.url.replace("ws://", "http://")
        async with AsyncOpenAI(api_key="sk-test", base_url=base) as client:
            secret = await client.realtime.client_secrets.create(session=session)
        assert secret.session.tools[0].type == "mcp"
        browser = AsyncOpenAI(api_key=secret.value, websocket_base_url=eng.url)
        async with browser.realtime.connect(model="gpt-realtime") as connection:
            opening = await events_until(connection, "conversation.item.done")
            kinds = [e["type"] for e in opening]
            assert kinds == [
                "session.created",
                "conversation.item.added",
                "mcp_list_tools.in_progress",
                "mcp_list_tools.completed",
                "conversation.item.done",
            ]
            response, _ = await _ask(connection, "What's the weather like in Paris?")
        assert server.calls == [("get_weather", {"city": "Paris"})]
        assert [item["type"] for item in response["output"]] == ["message", "mcp_call"]


async def test_a_spoken_reply_calls_the_server_after_its_clause(engine) -> None:
    """With audio output the clause is spoken first ("Checking weather…"), then the call runs."""
    client, connecting = await _connect(engine)
    async with mcp_server() as server, connecting as connection:
        await events_until(connection, "session.created")
        tool = _mcp_tool(server.url, require_approval="never")
        await connection.session.update(session={"type": "realtime", "tools": [tool]})
        await events_until(connection, "mcp_list_tools.completed")
        content = [{"type": "input_text", "text": "What's the weather like in Paris?"}]
        await connection.conversation.item.create(
            item={"type": "message", "role": "user", "content": content}
        )
        await connection.response.create()
        response, events = await _response(connection)
        kinds = [e["type"] for e in events]
        assert kinds.index("response.output_audio.done") < kinds.index("response.mcp_call.in_progress")
        assert [item["type"] for item in response["output"]] == ["message", "mcp_call"]
        assert response["output"][1]["output"] == "It is 21 degrees and sunny in Paris."
        assert server.calls == [("get_weather", {"city": "Paris"})]


async def test_a_webrtc_calls_mcp_server_is_listed_and_called(engine) -> None:
    """A call's session (``/v1/realtime/calls``, multipart) declares the server; the data channel
    carries the listing and the call as a WebSocket does."""
    eng = await engine(audio_pace=0.0)
    async with mcp_server() as server:
        tool = _mcp_tool(server.url, require_approval="never")
        call = CallClient()
        try:
            await call.connect(
                eng.http_url, session={"type": "realtime", "output_modalities": ["text"], "tools": [tool]}
            )
            await call.wait_for("mcp_list_tools.completed")
            content = [{"type": "input_text", "text": "What's the weather like in Paris?"}]
            call.send(
                {
                    "type": "conversation.item.create",
                    "item": {"type": "message", "role": "user", "content": content},
                }
            )
            call.send({"type": "response.create"})
            done = await call.wait_for("response.done")
        finally:
            await call.close()
        for event in call.events:
            validate_server_event(event)
        [mcp_call] = [item for item in done["response"]["output"] if item["type"] == "mcp_call"]
        assert mcp_call["output"] == "It is 21 degrees and sunny in Paris."
        assert server.calls == [("get_weather", {"city": "Paris"})]


async def test_a_webrtc_call_with_a_connector_is_refused_saying_why(engine) -> None:
    eng = await engine()
    tool = {"type": "mcp", "server_label": "gmail", "connector_id": "connector_gmail", "authorization": "t"}
    offer = await CallClient().offer()
    form = aiohttp.FormData(default_to_multipart=True)
    form.add_field("sdp", offer)
    form.add_field("session", json.dumps({"type": "realtime", "tools": [tool]}))
    async with aiohttp.ClientSession() as http:
        reply = await http.post(
            f"{eng.http_url}/v1/realtime/calls", data=form, headers={"Authorization": "Bearer sk-test"}
        )
        error = (await reply.json())["error"]
    assert reply.status == 400
    assert (error["code"], error["param"]) == ("invalid_value", "session.tools[0].connector_id")
    assert "OpenAI's cloud" in error["message"]


@pytest.mark.parametrize(
    ("transport", "limit_bytes", "taken"),
    [
        ("streamable-http", None, True),  # the engine's 16 MiB: the SDK's default 1 MiB failed it
        ("streamable-http", 2 * 1024 * 1024, False),  # an answer over the limit: said so
        ("sse", None, False),  # HTTP+SSE: the SDK's 1 MiB is fixed
    ],
)
async def test_a_tool_output_over_a_mib(engine, monkeypatch, transport: str, limit_bytes, taken) -> None:
    """A tool's 1.5 MB text (sent twice by the SDK's server: text and structured content) is taken over
    streamable HTTP; an answer over the limit fails the call with an error that says it was too large
    (it read "SSE stream failed: Server-sent event exceeded …" or "Could not reach the MCP server")."""
    if limit_bytes is not None:
        monkeypatch.setattr(mcp_client, "MAX_SSE_EVENT_BYTES", limit_bytes)
    output_bytes = 1_500_000
    eng = await engine(audio_pace=0.0, mcp_timeout_s=30.0)
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=eng.url)
    async with (
        mcp_server(transport, output_bytes=output_bytes) as server,
        client.realtime.connect(model="gpt-realtime") as connection,
    ):
        await events_until(connection, "session.created")
        await _declare(connection, _mcp_tool(server.url, require_approval="never"))
        content = [{"type": "input_text", "text": "Read the log called app."}]
        await connection.conversation.item.create(
            item={"type": "message", "role": "user", "content": content}
        )
        choice = {"type": "mcp", "server_label": "weather", "name": "read_log"}
        await connection.response.create(response={**TEXT, "tool_choice": choice})
        response, _ = await _response(connection)
        [call] = [item for item in response["output"] if item["type"] == "mcp_call"]
        assert [name for name, _ in server.calls] == ["read_log"]
        if taken:
            assert call["error"] is None and call["output"] == "x" * output_bytes
        else:
            assert call["output"] is None
            assert call["error"]["type"] == "tool_execution_error"
            assert call["error"]["message"].startswith("The MCP server's answer is too large: over the ")
        # The session goes on.
        await connection.response.create(response=TEXT)
        await _response(connection)
