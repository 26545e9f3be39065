"""Mistakes a QA engineer makes writing a scenario or a fault, said so they can be fixed from the message
alone: a misspelt fault parameter in the object form (a scenario's `fault: {kind: …, kk: 1}`, a profile,
JSON on `?fault=` or the header) named its near miss and what the kind takes only in the compact form
(the object form said jsonschema's "Additional properties are not allowed ('kk' was unexpected)"); a
misspelt fault kind, and a misspelt value of a scenario field with a fixed set (`context_event:
questoin`), named no near miss. `mockengine serve` is run as a user runs it, and a live engine is asked
over HTTP and the WebSocket."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import aiohttp
import pytest

from mockengine.brain.scenario import ScenarioError, parse_scenario
from mockengine.faults.spec import FaultSpecError, parse_faults


async def serve_refuses(*args: str) -> str:
    """``mockengine serve ARGS`` on a free port: its stderr, once it exited with status 2."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mockengine", "serve", "--port", "0", *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, stderr = await asyncio.wait_for(process.communicate(), 180)
    text = stderr.decode()
    assert process.returncode == 2, text
    assert "Traceback" not in text, text
    return text


async def test_serve_names_a_misspelt_fault_parameter_of_a_scenario_rule(tmp_path: Path) -> None:
    scenario = tmp_path / "flaky.yaml"
    scenario.write_text(
        "name: flaky\nrules:\n  - id: story\n    when: {heard_contains: story}\n    say: Once upon a time.\n"
        "    fault: {kind: response_failed, kk: 1}\n"
    )
    text = await serve_refuses("--scenario", str(scenario))
    assert f"{scenario}: line 6: at $.rules[0].fault:" in text, text
    assert "unknown parameter 'kk' (did you mean 'k'?); it takes k, rate, times" in text, text


async def test_serve_names_a_misspelt_context_event(tmp_path: Path) -> None:
    scenario = tmp_path / "quiz.yaml"
    scenario.write_text(
        "name: quiz\nrules:\n  - id: q\n    when: {context_event: questoin}\n    answer: true\n"
    )
    text = await serve_refuses("--scenario", str(scenario))
    assert f"{scenario}: line 4: at $.rules[0].when.context_event:" in text, text
    assert "did you mean 'question'?" in text, text


async def test_a_live_engine_names_a_misspelt_fault_in_its_answers(engine) -> None:
    live = await engine()
    async with aiohttp.ClientSession() as http:
        async with http.get(
            f"{live.http_url}/v1/models",
            headers={
                "Authorization": "Bearer sk-x",
                "X-Mockengine-Fault": '{"kind": "http_status", "stauts": 502}',
            },
        ) as answer:
            assert answer.status == 400
            body = await answer.json()
        assert "unknown parameter 'stauts' (did you mean 'status'?)" in body["error"]["message"], body
        upgrade = {  # a WebSocket upgrade: a bad `?fault=` is refused before it, with a JSON body
            "Authorization": "Bearer sk-x",
            "Connection": "Upgrade",
            "Upgrade": "websocket",
            "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        }
        async with http.get(f"{live.realtime}&fault=response_faild:k=1", headers=upgrade) as answer:
            assert answer.status == 400
            said = (await answer.json())["error"]["message"]
    assert "unknown fault kind 'response_faild' (did you mean 'response_failed'?)" in said, said


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        (
            '{"kind": "response_failed", "kk": 1}',
            "unknown parameter 'kk' (did you mean 'k'?); it takes k, rate, times",
        ),
        ("response_failed:kk=1", "unknown parameter 'kk' (did you mean 'k'?); it takes k, rate, times"),
        (
            '{"kind": "http_status", "bogus": 1}',
            "unknown parameter 'bogus'; it takes status, rate, times, path",
        ),
        (
            '{"kind": "close_after_audio_dleta"}',
            "unknown fault kind 'close_after_audio_dleta' (did you mean ",
        ),
        ("close_after_audio_dleta:2", "unknown fault kind 'close_after_audio_dleta' (did you mean "),
    ],
)
def test_both_forms_say_the_same(spec: str, said: str) -> None:
    with pytest.raises(FaultSpecError) as refused:
        parse_faults(spec)
    assert said in str(refused.value), str(refused.value)


def test_a_ws_kind_does_not_offer_path() -> None:
    """`path` narrows HTTP faults to a route; a Realtime session's fault has no route to name."""
    with pytest.raises(FaultSpecError) as refused:
        parse_faults("slow_drip:mss=5")
    assert str(refused.value).endswith("it takes ms, rate, times"), str(refused.value)


def test_an_enum_typo_in_a_scenario_names_the_near_miss() -> None:
    with pytest.raises(ScenarioError, match=r"'questoin' is not one of .* \(did you mean 'question'\?\)"):
        parse_scenario(
            "name: x\nrules:\n  - id: a\n    when: {context_event: [timer, questoin]}\n    silent: true\n"
        )
