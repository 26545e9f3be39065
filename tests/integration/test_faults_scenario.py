"""Scenario rules fire faults like any other action (``fault:``)."""

from __future__ import annotations

import dataclasses
import json

import aiohttp
import pytest

from mockengine.brain.scenario import ScenarioError, parse_scenario
from mockengine.brain.selection import load_library
from mockengine.faults.spec import FaultSpecError, scenario_rule_faults
from mockengine.server.app import create_app
from tests.integration.test_faults_ws import ask, events_until_close

SCENARIO = """
name: faulty
rules:
  - id: cut_story
    when: {heard_contains: lighthouse}
    say: Once upon a time there was a lighthouse keeper. He watched the sea every night. The end.
    fault: close_after_audio_delta:2
  - id: fail_it
    when: {heard_contains: fail}
    say: This reply will fail halfway through its sentences, I am afraid.
    fault: {kind: response_failed, k: 1}
"""


async def test_rules_fire_faults_for_their_own_reply(aiohttp_server, resources, tmp_path):
    (tmp_path / "faulty.yaml").write_text(SCENARIO)
    settings = dataclasses.replace(resources.settings, audio_pace=0.0)
    resources = dataclasses.replace(
        resources, settings=settings, scenarios=load_library(None, [str(tmp_path)])
    )
    server = await aiohttp_server(create_app(settings, resources))
    url = f"ws://127.0.0.1:{server.port}/v1/realtime?model=gpt-realtime&scenario=faulty"
    async with aiohttp.ClientSession() as http:
        ws = await http.ws_connect(url, headers={"Authorization": "Bearer sk-x"})
        assert json.loads((await ws.receive(timeout=10)).data)["type"] == "session.created"
        await ask(ws, "Please fail now.")
        events, _ = await events_until_close(ws)
        assert events[-1]["response"]["status"] == "failed"
        await ask(ws, "Hello there.")  # the fault was for that reply only
        events, _ = await events_until_close(ws)
        assert events[-1]["response"]["status"] == "completed"
        await ask(ws, "Tell me about the lighthouse.")
        events, _ = await events_until_close(ws, stop_at=None)
        assert [e["type"] for e in events].count("response.output_audio.delta") == 2
        assert ws.close_code == 1006
    async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{server.port}/healthz") as reply:
        counts = (await reply.json())["faults_injected"]
    assert counts == {"response_failed": 1, "close_after_audio_delta": 1}


def test_a_bad_fault_in_a_scenario_names_the_file_and_rule():
    bad = parse_scenario("name: x\nrules:\n  - id: a\n    say: hi\n    fault: nope\n", source="x.yaml")
    placed = r"x.yaml: line 5: at \$\.rules\[0\]\.fault: rule 'a': unknown fault kind 'nope'"
    with pytest.raises(FaultSpecError, match=placed):
        scenario_rule_faults([bad])
    with pytest.raises(ScenarioError):  # the schema still checks the shape
        parse_scenario("name: x\nrules:\n  - id: a\n    fault: 5\n")
    good = parse_scenario("name: x\nrules:\n  - id: a\n    fault: [slow_drip:5, {kind: dead_peer}]\n")
    specs = scenario_rule_faults([good])["x"]["scenario:a"]
    assert [s.kind for s in specs] == ["slow_drip", "dead_peer"]


async def _statuses_of_seeded_sessions(aiohttp_server, resources, tmp_path, sessions: int) -> list[str]:
    settings = dataclasses.replace(resources.settings, audio_pace=0.0, seed=5)
    resources = dataclasses.replace(
        resources, settings=settings, scenarios=load_library(None, [str(tmp_path)])
    )
    server = await aiohttp_server(create_app(settings, resources))
    url = f"ws://127.0.0.1:{server.port}/v1/realtime?model=gpt-realtime&scenario=halfway"
    statuses = []
    async with aiohttp.ClientSession() as http:
        for _ in range(sessions):
            async with http.ws_connect(url, headers={"Authorization": "Bearer sk-x"}) as ws:
                assert json.loads((await ws.receive(timeout=10)).data)["type"] == "session.created"
                await ask(ws, "Please fail now.")
                events, _ = await events_until_close(ws)
                statuses.append(events[-1]["response"]["status"])
    await server.close()
    return statuses


async def test_a_rules_rate_hits_a_share_of_a_seeded_servers_sessions(aiohttp_server, resources, tmp_path):
    """A seeded server's sessions share their id: drawn under it, rate=0.5 hit every session or none.
    Drawn under each session's handle, it hits some, the same ones every run."""
    (tmp_path / "halfway.yaml").write_text(
        "name: halfway\nrules:\n  - id: fail_it\n    when: {heard_contains: fail}\n"
        "    say: This reply may fail halfway through.\n    fault: response_failed:k=1,rate=0.5\n"
    )
    first = await _statuses_of_seeded_sessions(aiohttp_server, resources, tmp_path, 10)
    assert {"failed", "completed"} == set(first)
    assert await _statuses_of_seeded_sessions(aiohttp_server, resources, tmp_path, 10) == first
