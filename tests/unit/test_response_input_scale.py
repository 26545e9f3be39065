"""A ``response.create`` whose ``input`` holds many items: what each entry may answer (the calls made
earlier in the same input) is kept as the entries are read, not gathered again from every earlier entry
for each one. That was quadratic on the event loop: 50,000 entries (a 2.6 MB frame) held every session
of the engine past a client's 20 s keep-alive."""

from __future__ import annotations

from typing import Any

from mockengine.protocol import client_events as ce
from mockengine.realtime import responses


def _calls_and_outputs(pairs: int) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for n in range(pairs):
        entries.append({"type": "function_call", "call_id": f"call_{n}", "name": "f", "arguments": "{}"})
        entries.append({"type": "function_call_output", "call_id": f"call_{n}", "output": "ok"})
    return entries


def test_the_earlier_calls_are_not_gathered_again_for_each_entry(driver, monkeypatch) -> None:
    gathered: list[int] = []

    def counting_frozenset(values: Any = ()) -> frozenset[Any]:
        built = frozenset(values)
        gathered.append(len(built))
        return built

    monkeypatch.setattr(responses, "frozenset", counting_frozenset, raising=False)
    entries = _calls_and_outputs(1_000)
    since = len(driver.events)
    driver.send(ce.ResponseCreate({"conversation": "none", "output_modalities": ["text"], "input": entries}))
    sent = [event["type"] for _, event in driver.events[since:]]
    assert "response.created" in sent and "error" not in sent
    assert sum(gathered) < 4 * len(entries)  # gathered anew for each entry: ~1,000,000


def test_an_output_before_its_call_in_the_input_is_still_refused(driver) -> None:
    entries = _calls_and_outputs(3)
    entries[2], entries[3] = entries[3], entries[2]  # call_1's output ahead of call_1
    since = len(driver.events)
    driver.send(ce.ResponseCreate({"conversation": "none", "output_modalities": ["text"], "input": entries}))
    errors = [event["error"] for _, event in driver.events[since:] if event["type"] == "error"]
    assert [(e["code"], e["param"]) for e in errors] == [
        ("invalid_tool_call_id", "response.input[2].call_id")
    ]
