"""A response asked for while a function call still has no output (Pipecat holds a ``response.create``
and sends it at ``response.done``, before its tool's result): the reply does not repeat the pending
call; it says it is waiting for the result instead (docs/tools.md, "A response while a call is
pending")."""

from __future__ import annotations

from mockengine.brain.model import Reply, ToolCall
from mockengine.realtime.conversation import Item
from mockengine.realtime.replies import WAITING_FOR_RESULT, without_pending_repeats

USER = Item(id="item_u", type="message", role="user")
CALL = Item(
    id="item_c", type="function_call", name="get_weather", call_id="call_1", arguments='{"city":"Paris"}'
)
OUTPUT = Item(id="item_o", type="function_call_output", call_id="call_1", output='{"temp": 18}')
REPEAT = Reply("Checking weather…", (ToolCall("get_weather", '{"city": "Paris"}'),), rule="intent.call")


def test_the_identical_call_of_a_pending_one_becomes_a_waiting_sentence() -> None:
    reply = without_pending_repeats(REPEAT, (USER, CALL), "auto")
    assert reply.tool_calls == ()
    assert reply.text == WAITING_FOR_RESULT
    assert reply.rule == "pending_call"


def test_a_call_with_its_output_may_be_made_again() -> None:
    assert without_pending_repeats(REPEAT, (USER, CALL, OUTPUT), "auto") is REPEAT


def test_other_arguments_or_other_calls_are_kept() -> None:
    other = Reply("Checking weather…", (ToolCall("get_weather", '{"city": "Rome"}'),))
    assert without_pending_repeats(other, (USER, CALL), "auto") is other
    both = Reply(
        None, (ToolCall("get_weather", '{"city":"Paris"}'), ToolCall("get_time", '{"city":"Paris"}'))
    )
    kept = without_pending_repeats(both, (USER, CALL), "auto")
    assert kept.tool_calls == (ToolCall("get_time", '{"city":"Paris"}'),)


def test_a_forced_tool_choice_still_gets_its_call() -> None:
    assert without_pending_repeats(REPEAT, (USER, CALL), "required") is REPEAT
    assert (
        without_pending_repeats(REPEAT, (USER, CALL), {"type": "function", "name": "get_weather"}) is REPEAT
    )
