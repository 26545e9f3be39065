"""Hosted MCP tools in the session core (no sockets, the shell's MCP work fed back by hand): a response
waits for its servers' listings, a cut while a server works closes the call, listings are kept per
label, a response's own MCP tools are listed, and an approved call runs without asking the brain."""

from __future__ import annotations

import dataclasses
from typing import Any

from mockengine.protocol import client_events as ce
from mockengine.realtime.effects import CallMcpTool, ListMcpTools, Step, Trace
from mockengine.realtime.session import RealtimeSession
from tests.conftest import make_session

URL = "http://127.0.0.1:9/mcp"
TOOLS = [
    {
        "name": "get_weather",
        "description": "Get the current weather for a city.",
        "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        "annotations": None,
    }
]


class Run:
    """A session and everything it sent and asked for."""

    def __init__(self) -> None:
        self.session: RealtimeSession = make_session(seed=3)
        self.events: list[dict[str, Any]] = []
        self.effects: list[Any] = []
        self.now_ms = 0.0
        self.take(self.session.start())

    def take(self, step: Step) -> Step:
        self.events += step.events
        self.effects += step.effects
        return step

    def send(self, event: Any) -> Step:
        self.now_ms += 10
        return self.take(self.session.receive(event, self.now_ms))

    def declare(self, **fields: Any) -> Step:
        tool = {"type": "mcp", "server_label": "weather", "server_url": URL, **fields}
        return self.send(
            ce.SessionUpdate({"type": "realtime", "output_modalities": ["text"], "tools": [tool]})
        )

    def ask(self, text: str, response: dict[str, Any] | None = None) -> Step:
        content = [{"type": "input_text", "text": text}]
        self.send(ce.ConversationItemCreate({"type": "message", "role": "user", "content": content}))
        return self.send(ce.ResponseCreate(response or {}))

    def listed(self, tools: list[dict[str, Any]] | None = TOOLS) -> Step:
        [listing] = [e for e in self.effects if isinstance(e, ListMcpTools)][-1:]
        return self.take(self.session.on_mcp_tools(listing.key, tools, self.now_ms))

    def kinds(self, step: Step) -> list[str]:
        return [event["type"] for event in step.events]


def test_a_response_waits_for_its_servers_tools() -> None:
    run = Run()
    run.declare(require_approval="never")
    waiting = run.ask("What's the weather like in Paris?")
    assert run.kinds(waiting)[-1] == "response.created"
    listed = run.listed()
    kinds = run.kinds(listed)
    assert kinds[:2] == ["mcp_list_tools.completed", "conversation.item.done"]
    assert "response.mcp_call.in_progress" in kinds and "response.done" not in kinds
    [call] = [e for e in listed.effects if isinstance(e, CallMcpTool)]
    assert (call.name, call.arguments, call.server.server_url) == ("get_weather", '{"city": "Paris"}', URL)
    [trace] = [e for e in listed.effects if isinstance(e, Trace) and e.kind == "mcp_list_tools"]
    assert trace.data["tools"] == ["get_weather"]
    done = run.take(run.session.on_mcp_call(call.key, "Sunny.", None, run.now_ms))
    [trace] = [e for e in done.effects if isinstance(e, Trace)]
    assert (trace.kind, trace.data["item_id"], trace.data["error"]) == ("mcp_call", call.key.item_id, None)
    assert run.kinds(done)[:3] == [
        "response.mcp_call.completed",
        "conversation.item.done",
        "response.output_item.done",
    ]
    assert run.kinds(done)[-2:] == ["response.done", "rate_limits.updated"]


def test_a_failed_listing_leaves_the_brain_without_the_tools() -> None:
    run = Run()
    run.declare()
    run.ask("What's the weather like in Paris?")
    step = run.listed(None)
    assert run.kinds(step)[:2] == ["mcp_list_tools.failed", "conversation.item.done"]
    assert step.events[1]["item"]["tools"] == []
    assert not [e for e in step.effects if isinstance(e, CallMcpTool)]
    assert run.kinds(step)[-2:] == ["response.done", "rate_limits.updated"]


def test_a_cancel_while_the_server_works_closes_the_call_and_drops_its_late_result() -> None:
    run = Run()
    run.declare(require_approval="never")
    run.listed()
    step = run.ask("What's the weather like in Paris?")
    [call] = [e for e in step.effects if isinstance(e, CallMcpTool)]
    cancelled = run.send(ce.ResponseCancel())
    kinds = run.kinds(cancelled)
    assert kinds[0] == "response.mcp_call.failed"
    item = cancelled.events[-3]["item"]
    assert (item["type"], item["output"], item["error"]["type"]) == ("mcp_call", None, "tool_execution_error")
    assert cancelled.events[-2]["response"]["status"] == "cancelled"
    assert not run.session.is_wanted(call.key)
    assert run.session.on_mcp_call(call.key, "Sunny.", None, run.now_ms).events == []


def test_a_server_is_listed_once_per_label_until_its_address_changes() -> None:
    run = Run()
    run.declare(require_approval="never")
    run.listed()
    again = run.declare(require_approval="always", allowed_tools=["get_weather"])
    assert not [e for e in again.effects if isinstance(e, ListMcpTools)]
    moved = run.declare(server_url="http://127.0.0.1:9/other")
    [listing] = [e for e in moved.effects if isinstance(e, ListMcpTools)]
    assert listing.server.server_url == "http://127.0.0.1:9/other"
    assert "mcp_list_tools.in_progress" in run.kinds(moved)


def test_a_responses_own_mcp_tool_is_listed_for_it() -> None:
    run = Run()
    tool = {"type": "mcp", "server_label": "weather", "server_url": URL, "require_approval": "never"}
    step = run.ask("What's the weather like in Paris?", {"tools": [tool], "output_modalities": ["text"]})
    assert run.kinds(step)[-3:] == [
        "conversation.item.added",
        "mcp_list_tools.in_progress",
        "response.created",
    ]
    listed = run.listed()
    assert [e.name for e in listed.effects if isinstance(e, CallMcpTool)] == ["get_weather"]


def _approval_request(run: Run) -> dict[str, Any]:
    step = run.ask("What's the weather like in Paris?")
    [request] = [e["item"] for e in step.events if e["type"] == "conversation.item.done"][-1:]
    assert request["type"] == "mcp_approval_request"
    assert not [e for e in step.effects if isinstance(e, CallMcpTool)]
    assert "response.done" not in run.kinds(step)  # the response waits for the answer
    return request


def _asked() -> tuple[Run, dict[str, Any]]:
    """A session whose server needs approval, and the request its response waits on."""
    run = Run()
    run.declare(require_approval="always")
    run.listed()
    return run, _approval_request(run)


def _next_reply_declines(run: Run) -> None:
    """The next response calls nothing and says the call was refused."""
    step = run.send(ce.ResponseCreate({}))
    assert not [e for e in step.effects if isinstance(e, CallMcpTool)]
    [said] = [e["text"] for e in step.events if e["type"] == "response.output_text.done"]
    assert said.startswith("Okay, I won't")


def _answer(request: dict[str, Any], approve: bool) -> ce.ConversationItemCreate:
    item = {"type": "mcp_approval_response", "approval_request_id": request["id"], "approve": approve}
    return ce.ConversationItemCreate(item)


def test_an_approved_call_runs_in_the_response_that_asked() -> None:
    """As the live service does (openai-ruby's examples/realtime/mcp_approval.rb, the Agents JS SDK's
    approve()): the client sends only the mcp_approval_response, no response.create."""
    run, request = _asked()
    step = run.send(_answer(request, True))
    [call] = [e for e in step.effects if isinstance(e, CallMcpTool)]
    assert (call.name, call.arguments, call.key.item_id != request["id"]) == (
        "get_weather",
        '{"city": "Paris"}',
        True,
    )
    added = [e["item"] for e in step.events if e["type"] == "response.output_item.added"]
    assert [(i["type"], i["approval_request_id"]) for i in added] == [("mcp_call", request["id"])]
    done = run.take(run.session.on_mcp_call(call.key, "Sunny.", None, run.now_ms))
    [response] = [e["response"] for e in done.events if e["type"] == "response.done"]
    assert [item["type"] for item in response["output"]] == ["message", "mcp_approval_request", "mcp_call"]


def test_a_refused_call_ends_the_response_and_the_next_one_says_so() -> None:
    run, request = _asked()
    step = run.send(_answer(request, False))
    assert not [e for e in step.effects if isinstance(e, CallMcpTool)]
    [response] = [e["response"] for e in step.events if e["type"] == "response.done"]
    assert [item["type"] for item in response["output"]] == ["message", "mcp_approval_request"]
    _next_reply_declines(run)


def test_an_approval_after_its_response_was_cut_runs_the_call_at_once() -> None:
    """The request stays in the conversation after the cut, and its approval is honoured as the waiting
    response would have honoured it: a response starts and runs the call (it sat unanswered until the
    client happened to send a response.create; a client that answers with the item alone, as the Agents
    JS SDK's approve() does, saw nothing happen)."""
    run, request = _asked()
    cut = run.send(ce.ResponseCancel())
    assert [e["response"]["status"] for e in cut.events if e["type"] == "response.done"] == ["cancelled"]
    kept = run.send(ce.ConversationItemRetrieve(item_id=request["id"]))
    assert [e["item"]["type"] for e in kept.events] == ["mcp_approval_request"]
    step = run.send(_answer(request, True))
    assert run.kinds(step)[:3] == ["conversation.item.added", "conversation.item.done", "response.created"]
    [call] = [e for e in step.effects if isinstance(e, CallMcpTool)]
    assert (call.name, call.arguments) == ("get_weather", '{"city": "Paris"}')
    [reply] = [e for e in step.effects if isinstance(e, Trace) and e.kind == "reply"]
    assert reply.data["rule"] == "mcp_approved"
    done = run.take(run.session.on_mcp_call(call.key, "Sunny.", None, run.now_ms))
    [response] = [e["response"] for e in done.events if e["type"] == "response.done"]
    assert [(i["type"], i["approval_request_id"]) for i in response["output"]] == [
        ("mcp_call", request["id"])
    ]
    assert not [e for e in run.send(ce.ResponseCreate({})).effects if isinstance(e, CallMcpTool)]  # ran once


def test_a_refusal_after_the_cut_starts_nothing_and_the_next_reply_declines() -> None:
    run, request = _asked()
    run.send(ce.ResponseCancel())
    step = run.send(_answer(request, False))
    assert run.kinds(step) == ["conversation.item.added", "conversation.item.done"]
    _next_reply_declines(run)


def test_an_answer_to_the_cut_request_answers_the_same_call_asked_again() -> None:
    """Cut, then a new response (a response.create, or server_vad's reply to the barge-in) asks for the
    same call again and waits: the client's answer to the first request went unheard, the new response
    waited on for ever."""
    run, request = _asked()
    run.send(ce.ResponseCancel())
    again = run.send(ce.ResponseCreate({}))
    [asked] = [e["item"] for e in again.events if e["type"] == "conversation.item.done"][-1:]
    assert asked["type"] == "mcp_approval_request" and asked["id"] != request["id"]
    step = run.send(_answer(request, True))
    [call] = [e for e in step.effects if isinstance(e, CallMcpTool)]
    added = [e["item"] for e in step.events if e["type"] == "response.output_item.added"]
    assert [(i["type"], i["approval_request_id"]) for i in added] == [("mcp_call", request["id"])]
    done = run.take(run.session.on_mcp_call(call.key, "Sunny.", None, run.now_ms))
    assert [e["response"]["status"] for e in done.events if e["type"] == "response.done"] == ["completed"]


def test_only_tools_the_brain_can_act_on_are_declared_to_it() -> None:
    """A server's tools are external input: a name no function may have, or a schema that is no valid
    JSON Schema, stays in the listing but is never offered (the brain would fail on it)."""
    run = Run()
    run.declare(require_approval="never")
    broken = [
        {"name": "bad name!", "description": "", "input_schema": {"type": "object"}, "annotations": None},
        {"name": "bad_schema", "description": "", "input_schema": {"type": "object", "properties": 5}},
        {"name": "not_object", "description": "", "input_schema": {"type": "string"}, "annotations": None},
    ]
    step = run.listed([*TOOLS, *broken])
    assert [t["name"] for t in step.events[1]["item"]["tools"]] == [
        "get_weather",
        "bad name!",
        "bad_schema",
        "not_object",
    ]
    specs, routes = run.session.responses.mcp.declared(run.session.config["tools"])
    assert [spec.name for spec in specs] == ["get_weather"] and list(routes) == ["get_weather"]


def test_allowed_tools_changed_later_apply_to_the_kept_listing() -> None:
    run = Run()
    run.declare(require_approval="never", allowed_tools=[])
    step = run.listed()
    assert step.events[1]["item"]["tools"] == []
    assert run.session.responses.mcp.declared(run.session.config["tools"])[0] == []
    run.declare(require_approval="never", allowed_tools=["get_weather"])  # the same server: not listed again
    specs, _ = run.session.responses.mcp.declared(run.session.config["tools"])
    assert [spec.name for spec in specs] == ["get_weather"]


def test_a_listing_item_counts_against_max_conversation_items() -> None:
    run = Run()
    options = dataclasses.replace(run.session.ctx.options, max_conversation_items=1)
    run.session.ctx.options = options
    content = [{"type": "input_text", "text": "Hello."}]
    run.send(ce.ConversationItemCreate({"type": "message", "role": "user", "content": content}))
    step = run.declare()
    assert run.kinds(step)[-2:] == ["mcp_list_tools.in_progress", "conversation.item.deleted"]
    assert [item.type for item in run.session.conversation] == ["mcp_list_tools"]


def test_a_second_answer_to_an_approval_request_is_refused() -> None:
    """The first answer stands: a later approval of a refused request no longer runs the refused call
    in the next response, and the conversation holds one answer."""
    run, request = _asked()
    run.send(_answer(request, False))
    for approve in (True, False):
        step = run.send(_answer(request, approve))
        [error] = [e["error"] for e in step.events if e["type"] == "error"]
        assert (error["type"], error["code"], error["param"]) == (
            "invalid_request_error",
            "invalid_value",
            "item.approval_request_id",
        )
        assert error["message"].startswith(
            f"MCP approval request '{request['id']}' has already been answered"
        )
        assert not [e for e in step.events if e["type"] == "conversation.item.added"]
    _next_reply_declines(run)


def test_a_second_approval_of_an_approved_request_is_refused() -> None:
    run, request = _asked()
    step = run.send(_answer(request, True))
    [call] = [e for e in step.effects if isinstance(e, CallMcpTool)]
    run.take(run.session.on_mcp_call(call.key, "Sunny.", None, run.now_ms))
    step = run.send(_answer(request, True))
    assert [e["error"]["code"] for e in step.events if e["type"] == "error"] == ["invalid_value"]
    assert not [e for e in step.effects if isinstance(e, CallMcpTool)]


def test_an_approved_call_whose_server_left_the_session_fails_uncalled() -> None:
    """The server was removed (session.update) while its approval request waited: approved, the call is
    not made; the mcp_call fails with an error that says why, and the response completes."""
    run, request = _asked()
    run.send(ce.SessionUpdate({"type": "realtime", "tools": []}))
    step = run.send(_answer(request, True))
    assert not [e for e in step.effects if isinstance(e, CallMcpTool)]
    assert "response.mcp_call.failed" in run.kinds(step)
    [call] = [
        e["item"]
        for e in step.events
        if e["type"] == "conversation.item.done" and e["item"]["type"] == "mcp_call"
    ]
    assert call["approval_request_id"] == request["id"] and call["output"] is None
    assert call["error"] == {
        "type": "tool_execution_error",
        "message": "MCP server 'weather' is no longer in the session's tools; the tool was not called.",
    }
    [response] = [e["response"] for e in step.events if e["type"] == "response.done"]
    assert response["status"] == "completed"


def test_a_responses_own_mcp_server_is_kept_through_a_session_update() -> None:
    """A server the response.create declared is the response's: a session.update does not remove it."""
    run = Run()
    tool = {"type": "mcp", "server_label": "weather", "server_url": URL, "require_approval": "always"}
    content = [{"type": "input_text", "text": "What's the weather like in Paris?"}]
    run.send(ce.ConversationItemCreate({"type": "message", "role": "user", "content": content}))
    run.send(ce.ResponseCreate({"tools": [tool], "output_modalities": ["text"]}))
    step = run.listed()
    [request] = [
        e["item"]
        for e in step.events
        if e["type"] == "conversation.item.done" and e["item"]["type"] == "mcp_approval_request"
    ]
    run.send(ce.SessionUpdate({"type": "realtime", "tools": []}))
    step = run.send(_answer(request, True))
    assert [e.name for e in step.effects if isinstance(e, CallMcpTool)] == ["get_weather"]
