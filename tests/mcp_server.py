"""A real MCP server on loopback for the hosted-MCP tests: the official ``mcp`` SDK's ``MCPServer`` (the
former FastMCP) over streamable HTTP, served by uvicorn in the test's event loop. It records every
tool call it runs, so a test can tell a call that ran from one that did not."""

from __future__ import annotations

import asyncio
import logging
import random
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations


@dataclass
class RunningMcpServer:
    url: str  # the endpoint, http://127.0.0.1:<port>/mcp (or /sse)
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)  # of every HTTP request, lower-case names


def _server(calls: list[tuple[str, dict[str, Any]]], output_bytes: int | None = None) -> MCPServer:
    # MCPServer configures the root logger (logging.basicConfig with a rich handler at INFO): undone, so
    # the tests after it in this process log as before.
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    server = MCPServer("weather-and-dice", log_level="WARNING")
    root.handlers[:] = handlers
    root.setLevel(level)

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def get_weather(city: str) -> str:
        """Get the current weather for a city."""
        calls.append(("get_weather", {"city": city}))
        return f"It is 21 degrees and sunny in {city}."

    @server.tool()
    def roll_dice(sides: int) -> str:
        """Roll one die with the given number of sides."""
        calls.append(("roll_dice", {"sides": sides}))
        return f"The die shows {random.Random(sides).randint(1, sides)}."

    @server.tool()
    def book_table(restaurant: str) -> str:
        """Book a table at a restaurant."""
        calls.append(("book_table", {"restaurant": restaurant}))
        raise ValueError("the restaurant is fully booked")

    @server.tool()
    async def check_stock(product: str) -> str:
        """Check whether a product is in stock."""
        calls.append(("check_stock", {"product": product}))
        await asyncio.sleep(30)
        return "In stock."

    if output_bytes is not None:

        @server.tool()
        def read_log(name: str) -> str:
            """Read a log file."""
            calls.append(("read_log", {"name": name}))
            return "x" * output_bytes

    return server


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@asynccontextmanager
async def mcp_server(
    transport: str = "streamable-http", *, output_bytes: int | None = None
) -> AsyncIterator[RunningMcpServer]:
    """Serve the tools above until the block ends, over streamable HTTP (``…/mcp``) or the older
    HTTP+SSE transport (``transport="sse"``, ``…/sse``). With ``output_bytes``, a fifth tool too,
    ``read_log``, whose output is that many bytes."""
    port = free_port()
    path = "/sse" if transport == "sse" else "/mcp"
    running = RunningMcpServer(f"http://127.0.0.1:{port}{path}")
    server_app = _server(running.calls, output_bytes)
    app = server_app.sse_app() if transport == "sse" else server_app.streamable_http_app()

    async def recording(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            running.headers.append({k.decode(): v.decode() for k, v in scope["headers"]})
        await app(scope, receive, send)

    config = uvicorn.Config(recording, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            if task.done():
                task.result()  # it could not start: raise why
            await asyncio.sleep(0.02)
        yield running
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)
