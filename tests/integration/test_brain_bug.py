"""A bug in the brain, met by a client's input, fails that response and not the session: a real engine
on loopback whose brain raises an unexpected ``KeyError`` on one request (as a tool schema shape the slot
filler did not expect once did: ``Optional[Literal[...]]``, which closed the socket with 1011 and made
LiveKit Agents reconnect into the same failure). The client gets a failed ``response.done``
(``server_error`` / ``reply_failed``, the exception named), the next response is answered, and the
engine's log carries the traceback."""

from __future__ import annotations

import json
import logging

import aiohttp

from mockengine.brain.selection import SelectingBrain


def _user_text(text: str) -> str:
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    return json.dumps({"type": "conversation.item.create", "item": item})


async def _until_done(ws: aiohttp.ClientWebSocketResponse) -> dict:
    while True:
        event = json.loads((await ws.receive(timeout=15)).data)
        assert event["type"] != "error", event
        if event["type"] == "response.done":
            return event["response"]


async def test_a_brain_bug_fails_the_response_and_the_session_goes_on(engine, monkeypatch, caplog):
    real_reply = SelectingBrain.reply

    def reply(self, request):
        if request.history and "explode" in request.history[-1].text:
            raise KeyError("enum")
        return real_reply(self, request)

    monkeypatch.setattr(SelectingBrain, "reply", reply)
    running = await engine()
    caplog.set_level(logging.ERROR, logger="mockengine.realtime.responses")
    async with aiohttp.ClientSession() as http:
        ws = await http.ws_connect(running.realtime, headers={"Authorization": "Bearer sk-x"})
        assert json.loads((await ws.receive(timeout=10)).data)["type"] == "session.created"
        text_only = {"type": "realtime", "output_modalities": ["text"]}
        await ws.send_str(json.dumps({"type": "session.update", "session": text_only}))
        await ws.send_str(_user_text("Please explode."))
        await ws.send_str(json.dumps({"type": "response.create"}))
        failed = await _until_done(ws)
        error = failed["status_details"]["error"]
        assert failed["status"] == "failed" and failed["output"] == []
        assert (error["type"], error["code"]) == ("server_error", "reply_failed")
        assert "KeyError" in error["message"] and "'enum'" in error["message"]

        # The session goes on: the next turn over the same socket is answered.
        await ws.send_str(_user_text("Hello, how are you today?"))
        await ws.send_str(json.dumps({"type": "response.create"}))
        answered = await _until_done(ws)
        assert answered["status"] == "completed" and answered["output"], answered
        assert not ws.closed
        await ws.close()
    assert any(record.exc_info and record.exc_info[0] is KeyError for record in caplog.records)
