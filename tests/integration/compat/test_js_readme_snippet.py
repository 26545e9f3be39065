"""The README's Agents SDK snippet (``@openai/agents-realtime``), run as written with only the engine's
port changed, against a real engine on loopback: it prints the replies and ends by itself. It never
ended: the session stayed open and the user had to press Ctrl-C to get their prompt back.

Needs Node ≥ 20 and npm, as tests/integration/compat/test_js_agents.py (whose helpers it uses)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from tests.integration.compat.test_js_agents import JS_DIR, _install, _tools

README = Path(__file__).resolve().parents[3] / "README.md"
URL = "ws://127.0.0.1:8765/v1/realtime?model=gpt-realtime"
ENDS_WITHIN_S = 60


def readme_agents_snippet() -> str:
    """The ```js block after the README's "From JavaScript, the OpenAI Agents SDK" paragraph."""
    text = README.read_text()
    after = text[text.index("From JavaScript, the OpenAI Agents SDK") :]
    match = re.search(r"```js\n(.*?)```", after, re.DOTALL)
    assert match is not None, "the README's Agents SDK snippet is gone"
    return match.group(1)


async def test_the_readme_agents_snippet_prints_the_reply_and_ends(engine) -> None:
    node, npm = _tools()
    await _install(npm)
    eng = await engine()  # paced, as `mockengine serve` answers a user
    snippet = readme_agents_snippet()
    assert URL in snippet
    code = snippet.replace(URL, eng.realtime)
    # As a module run from tests/js, so that its imports resolve to the pinned SDK there.
    process = await asyncio.create_subprocess_exec(
        node,
        "--input-type=module",
        "-e",
        code,
        cwd=JS_DIR,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    # Read as it comes: what a snippet that never ends printed is kept when it is killed.
    printed, said = asyncio.ensure_future(process.stdout.read()), asyncio.ensure_future(process.stderr.read())
    try:
        await asyncio.wait_for(process.wait(), ENDS_WITHIN_S)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise AssertionError(
            f"still running after {ENDS_WITHIN_S} s; it printed {(await printed).decode()!r}"
        ) from None
    out, err = (await printed).decode(), (await said).decode()
    assert process.returncode == 0, err
    assert "The weather in Paris is sunny." in out.splitlines(), out
    await eng.wait_until_idle()
