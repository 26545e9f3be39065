"""Over the wire, with the official ``openai`` SDK (Chat Completions on a real engine on loopback): stop
brk31's breaks, a framework user's own tools (LiveKit's and Pipecat's shapes, the OpenAI Agents SDK's
handoffs), each failed on its base (73f174c5) before its fix."""

from __future__ import annotations

from tests.own_tools import call_and_answer, chat_tool

PREFERENCES = chat_tool(
    "update_preferences",
    "Update the user's preferences.",
    {
        "preferences": {
            "type": "object",
            "properties": {
                "language": {"type": "string", "enum": ["English", "Spanish", "French", "German"]},
                "notifications": {"type": "boolean"},
            },
        }
    },
)


async def test_notifications_turned_off_alone_are_updated(engine) -> None:
    # was no call: "You said Turn off notifications. Tell me more."
    call, _ = await call_and_answer(engine, [PREFERENCES], "Turn off my notifications", '{"updated": true}')
    assert call == ("update_preferences", {"preferences": {"notifications": False}})


TO_BILLING = chat_tool("transfer_to_billing", "Transfer the caller to the billing department.", {})


async def test_an_apps_own_transfer_is_said_done(engine) -> None:
    # was the new agent's greeting: "Hi, you're through to the billing agent. How can I help?"
    call, said = await call_and_answer(
        engine, [TO_BILLING], "Transfer me to billing", '{"status": "transferred"}'
    )
    assert (call, said) == (("transfer_to_billing", {}), "I've transferred you to billing.")
