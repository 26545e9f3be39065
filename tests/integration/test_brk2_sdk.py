"""Over the wire, with the official ``openai`` SDK on Chat Completions: what broke in brain4's changes
under inputs their tests did not send (tests/unit/test_brain_brk2.py has the rest). Each failed before."""

from __future__ import annotations

import json

from openai import AsyncOpenAI

from tests.integration.test_brain4_sdk import ORDER, STRING, _calls, _complete, _tool

DROP = _tool("drop_table", "Drop a table", {"table": STRING})
QUERY = _tool("run_query", "Run a SQL query", {"sql": STRING})
RESPOND = _tool("respond", "Respond to the user", {"message": STRING})
DELETE = _tool("delete_account", "Delete the user's account", {"user_id": STRING})
TICKET = _tool("submit_ticket", "Submit a support ticket", {"description": STRING})


async def test_brk2_gaps_over_the_sdk(engine) -> None:
    eng = await engine()
    client = AsyncOpenAI(api_key="sk-1", base_url=f"{eng.http_url}/v1", max_retries=0)

    greeting = await _complete(client, "Hello!", [DROP, QUERY], tool_choice="required")
    assert [name for name, _ in _calls(greeting)] == ["run_query"]  # not drop_table

    replied = await _complete(client, "Hi there", [DELETE, RESPOND], tool_choice="required")
    assert _calls(replied) == [("respond", {"message": "Hi, I'm Sam. Nice to meet you."})]

    ticket = await _complete(client, "Please file a ticket: my screen is broken", [ORDER, TICKET])
    assert _calls(ticket) == [("submit_ticket", {"description": "my screen is broken"})]
    assert all(isinstance(json.loads(c.function.arguments), dict) for c in ticket.tool_calls or [])
