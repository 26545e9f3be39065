"""The engine as an MCP client: it lists and calls the tools of the hosted MCP servers a session declares
(``ListMcpTools`` / ``CallMcpTool`` effects), as the real service does with a server it can reach.

Speaks MCP over streamable HTTP (or HTTP+SSE for a ``…/sse`` URL) with the official ``mcp`` SDK
(``mcp.Client``, the initialize handshake), a fresh connection per listing or call, each within
``timeout_s``. Every failure is one :class:`McpFailure` carrying the item's ``error`` object
(openai-python's ``RealtimeMcpToolCall.error``), whatever went wrong (a server that cannot be reached,
an error, the timeout): ``http_error`` (the server's HTTP status; 502 when it could not be
reached, 504 on the timeout, our choice of codes), ``protocol_error`` (the JSON-RPC error code) or
``tool_execution_error`` (the tool said ``isError``, or its answer was too large to take).

A server answers over server-sent events, and the SDK bounds one event (its reader stops at the limit):
over streamable HTTP the engine takes up to ``MAX_SSE_EVENT_BYTES`` (16 MiB, for the SDK's default of
1 MiB failed a tool's 600 kB text, which the SDK's servers send twice: as text and as structured
content); over HTTP+SSE the SDK's 1 MiB is fixed (``sse_client`` has no setting). An answer over the
limit fails the call with a ``tool_execution_error`` that says so; it used to read "SSE stream failed:
Server-sent event exceeded …" as a ``protocol_error`` -32000, or "Could not reach the MCP server".
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from contextlib import AsyncExitStack
from typing import Any
from urllib.parse import urlsplit

import httpx2
from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import TextContent

from mockengine.protocol.errors import counted
from mockengine.realtime.mcp import McpServer

log = logging.getLogger("mockengine.mcp")
UNREACHABLE = 502
TIMED_OUT = 504
MAX_SSE_EVENT_BYTES = 16 * 1024 * 1024
# httpx2's SSE reader, when one event passes the limit: "Server-sent event exceeded the N byte limit."
# (the SDK's streamable HTTP client relays it in a JSON-RPC error, "SSE stream failed: …").
_SSE_EVENT_TOO_LARGE = re.compile(r"Server-sent event exceeded the (\d+) byte limit")


class McpFailure(Exception):
    """A listing or call that failed; ``error`` is the item's error object."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(error["message"])
        self.error = error


async def list_tools(server: McpServer, timeout_s: float) -> list[dict[str, Any]]:
    """The server's tools as openai-python's ``RealtimeMcpListTools.Tool`` dicts (every page).

    Raises :class:`McpFailure`."""

    async def run(client: Client) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            page = await client.list_tools(cursor=cursor)
            for tool in page.tools:
                annotations = (
                    tool.annotations.model_dump(by_alias=True, exclude_none=True)
                    if tool.annotations
                    else None
                )
                tools.append(
                    {
                        "name": tool.name,
                        "description": tool.description,
                        "input_schema": tool.input_schema,
                        "annotations": annotations,
                    }
                )
            cursor = page.next_cursor
            if not cursor:
                return tools

    return await _with_client(server, timeout_s, run)


async def call_tool(server: McpServer, name: str, arguments: str, timeout_s: float) -> str:
    """Call ``name`` with ``arguments`` (JSON text of an object); returns its text output (its text
    parts joined, else its structured content as JSON).

    Raises :class:`McpFailure`."""
    try:
        parsed = json.loads(arguments or "{}")
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict):
        raise McpFailure(
            {"type": "protocol_error", "code": -32602, "message": "Arguments are not a JSON object."}
        )

    async def run(client: Client) -> str:
        result = await client.call_tool(name, parsed)
        texts = [part.text for part in result.content if isinstance(part, TextContent)]
        output = "\n".join(texts)
        if not output and result.structured_content is not None:
            output = json.dumps(result.structured_content)
        if result.is_error:
            raise McpFailure({"type": "tool_execution_error", "message": output or "The tool failed."})
        return output

    return await _with_client(server, timeout_s, run)


async def _with_client(server: McpServer, timeout_s: float, run: Any) -> Any:
    try:
        async with asyncio.timeout(timeout_s):
            async with AsyncExitStack() as stack:
                transport = await _transport(server, timeout_s, stack)
                client = await stack.enter_async_context(Client(transport, cache=None, mode="legacy"))
                return await run(client)
    except Exception as exc:  # the SDK's errors come wrapped in task groups' exception groups
        raise _failure(server, timeout_s, _leaf(exc)) from exc


async def _transport(server: McpServer, timeout_s: float, stack: AsyncExitStack) -> Any:
    """Streamable HTTP, or the older HTTP+SSE transport for a URL whose path ends in ``/sse`` (where
    FastMCP and most servers serve it; OpenAI's MCP guide names both transports as supported)."""
    headers = server.http_headers()
    if urlsplit(server.server_url).path.rstrip("/").endswith("/sse"):
        return sse_client(server.server_url, headers=headers, timeout=timeout_s, sse_read_timeout=timeout_s)
    # The client the SDK asks for to carry headers (streamable_http_client's own docs).
    http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(timeout_s))
    await stack.enter_async_context(http)
    return streamable_http_client(server.server_url, http_client=http, max_sse_event_size=MAX_SSE_EVENT_BYTES)


def _failure(server: McpServer, timeout_s: float, exc: BaseException) -> McpFailure:
    if isinstance(exc, McpFailure):
        return exc
    too_large = _SSE_EVENT_TOO_LARGE.search(exc.error.message if isinstance(exc, MCPError) else str(exc))
    if too_large is not None and isinstance(exc, MCPError | httpx2.SSEError):
        limit_bytes = int(too_large.group(1))
        message = (
            f"The MCP server's answer is too large: over the {_size(limit_bytes)} an answer may take "
            f"({counted(limit_bytes, 'byte')}); the tool's output was dropped."
        )
        return McpFailure({"type": "tool_execution_error", "message": message})
    if isinstance(exc, TimeoutError):
        message = f"The MCP server did not answer within {timeout_s:g} s."
        return McpFailure({"type": "http_error", "code": TIMED_OUT, "message": message})
    if isinstance(exc, MCPError):
        return McpFailure({"type": "protocol_error", "code": exc.error.code, "message": exc.error.message})
    if isinstance(exc, httpx2.HTTPStatusError):
        status = exc.response.status_code
        return McpFailure(
            {"type": "http_error", "code": status, "message": f"The MCP server answered {status}."}
        )
    message = str(exc) or type(exc).__name__
    log.info("MCP server %s: %s", server.server_url, message)
    message = f"Could not reach the MCP server at {server.server_url}: {message}"
    return McpFailure({"type": "http_error", "code": UNREACHABLE, "message": message})


def _size(size_bytes: int) -> str:
    mib = size_bytes / (1024 * 1024)
    return f"{mib:g} MiB" if mib >= 1 else counted(size_bytes, "byte")


def _leaf(exc: BaseException) -> BaseException:
    """The first exception at the bottom of nested exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc
