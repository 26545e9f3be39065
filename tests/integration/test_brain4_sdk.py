"""Over the wire, with the official ``openai`` SDK on Chat Completions: brain4's gaps as a user meets them
(docs/tools.md, "Known gaps from the last stop"). Each failed on the old code: a greeting under
``tool_choice: "required"`` filed a ticket, a price question and a card read out called nothing, a
question misheard on a phone line went unanswered."""

from __future__ import annotations

import json
from typing import Any

from openai import AsyncOpenAI

STRING = {"type": "string"}


def _tool(name: str, description: str, properties: dict[str, Any]) -> dict[str, Any]:
    parameters = {"type": "object", "properties": properties, "required": list(properties)}
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


TICKET = _tool("submit_ticket", "Submit a support ticket", {"subject": STRING, "body": STRING})
ORDER = _tool("lookup_order", "Look up an order", {"order_id": STRING})
MENU = _tool("get_menu_item", "Look up a menu item", {"name": STRING})
PAY = _tool("pay_by_card", "Pay the order by card", {"card_number": STRING, "expiry": STRING, "cvv": STRING})


async def _complete(client: AsyncOpenAI, text: str, tools: list[dict[str, Any]], **extra: Any) -> Any:
    completion = await client.chat.completions.create(
        model="gpt-4o",
        messages=[{"role": "user", "content": text}],
        tools=tools,  # type: ignore[arg-type]
        **extra,
    )
    return completion.choices[0].message


def _calls(message: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []]


async def test_brain4_gaps_over_the_sdk(engine) -> None:
    eng = await engine()
    client = AsyncOpenAI(api_key="sk-1", base_url=f"{eng.http_url}/v1", max_retries=0)

    greeting = await _complete(client, "Hello!", [TICKET, ORDER], tool_choice="required")
    assert [name for name, _ in _calls(greeting)] == ["lookup_order"]

    price = await _complete(client, "What does a Margherita cost?", [MENU])
    assert _calls(price) == [("get_menu_item", {"name": "Margherita"})]

    card = await _complete(
        client, "Pay with card 4242 4242 4242 4242, expires oh four twenty-eight, CVC 123", [PAY]
    )
    assert _calls(card) == [
        ("pay_by_card", {"card_number": "4242424242424242", "expiry": "04/28", "cvv": "123"})
    ]

    misheard = await _complete(client, "What is the capital on France?", [ORDER])
    assert _calls(misheard) == [] and "Paris is the capital of France." in (misheard.content or "")
