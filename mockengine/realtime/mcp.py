"""Hosted MCP tools (``{"type": "mcp", "server_label", "server_url", …}``) in a session: which servers it
has, the tools each listed, which the brain may pick, which need the user's approval.

How this works
--------------
The engine plays the part the real service plays (docs/tools.md, "Hosted MCP tools"): when a
``session.update`` (or the session a client secret carries) adds a server, the session puts an
``mcp_list_tools`` item into the conversation, says ``mcp_list_tools.in_progress`` and asks its shell to
list the server's tools (a ``ListMcpTools`` effect; the shell speaks MCP, this module never does IO). The
listing comes back through :meth:`McpServers.listed`: ``mcp_list_tools.completed`` and the item with its
tools (filtered by ``allowed_tools``), or ``mcp_list_tools.failed`` and an empty list. A listing is kept
per server label for the session's life and made again only when the server's address, headers or
token change. The brain sees a listed tool as a declared function (name, description, ``input_schema``
as parameters); when it picks one, ``streaming`` writes an ``mcp_approval_request`` or an ``mcp_call``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from mockengine.brain.model import ToolSpec, TurnView
from mockengine.ids import IdFactory
from mockengine.protocol import server_events as se
from mockengine.protocol.session_config import schema_problem
from mockengine.realtime.conversation import Conversation, Item

Events = list[dict[str, Any]]
FUNCTION_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")  # OpenAI's rule for function names
# Worded as the brain reads a refused call (brain/narration.py), so it says "Okay, I won't …".
DECLINED = "The user declined this tool call."


@dataclass(frozen=True)
class McpServer:
    """Where and how the shell reaches one MCP server (``server/mcp_client.py``). ``headers`` as the tool gave
    them; ``authorization`` (an OAuth access token) goes out as ``Authorization: Bearer …``."""

    server_label: str
    server_url: str
    headers: tuple[tuple[str, str], ...] = ()
    authorization: str | None = None

    @classmethod
    def from_tool(cls, tool: dict[str, Any]) -> McpServer:
        """From a validated MCP tool (``session_config.check_mcp_tools``)."""
        return cls(
            tool["server_label"],
            tool["server_url"],
            tuple(sorted((tool.get("headers") or {}).items())),
            tool.get("authorization"),
        )

    def http_headers(self) -> dict[str, str]:
        headers = dict(self.headers)
        if self.authorization:
            headers["Authorization"] = f"Bearer {self.authorization}"
        return headers


@dataclass(frozen=True)
class McpRoute:
    """Where a tool the brain picked goes: an MCP server's (``server_label``), with or without the user's
    approval first."""

    server_label: str
    needs_approval: bool
    approval_request_id: str | None = None  # the approved request a call runs for


@dataclass
class McpListing:
    """One server's tools as listed for this session (all of them; ``allowed_tools`` is applied when
    they are shown and offered); ``tools`` None while the listing runs."""

    server: McpServer
    item: Item
    tools: list[dict[str, Any]] | None = None


def _names_filter_matches(spec: Any, tool: dict[str, Any]) -> bool:
    """``{"tool_names": [...], "read_only": bool}`` (openai-python's McpToolFilter): the tool is named, or
    read-only as asked by its ``readOnlyHint`` annotation."""
    if not isinstance(spec, dict):
        return False
    if tool["name"] in (spec.get("tool_names") or []):
        return True
    read_only = spec.get("read_only")
    hint = (tool.get("annotations") or {}).get("readOnlyHint")
    return read_only is not None and hint is not None and bool(hint) == read_only


def is_allowed(config: dict[str, Any], tool: dict[str, Any]) -> bool:
    """Whether ``allowed_tools`` (a list of names, a filter, or absent: all) lets ``tool`` through."""
    allowed = config.get("allowed_tools")
    if allowed is None:
        return True
    if isinstance(allowed, list):
        return tool["name"] in allowed
    return _names_filter_matches(allowed, tool)


def needs_approval(config: dict[str, Any], tool: dict[str, Any]) -> bool:
    """``require_approval``: ``"never"``, ``"always"`` or ``{always: filter, never: filter}``; a tool that
    neither filter names needs approval, as it does when the field is absent (the hosted-MCP default in
    OpenAI's MCP guide: approval is required unless the tool says otherwise)."""
    rule = config.get("require_approval")
    if rule == "never":
        return False
    if not isinstance(rule, dict):
        return True
    if _names_filter_matches(rule.get("always"), tool):
        return True
    return not _names_filter_matches(rule.get("never"), tool)


@dataclass
class McpServers:
    """The session's MCP listings by server label (see the module docstring)."""

    ids: IdFactory
    listings: dict[str, McpListing] = field(default_factory=dict)
    # Each server's tool config as last declared in the session (``allowed_tools`` of its listing).
    configs: dict[str, dict[str, Any]] = field(default_factory=dict)

    def sync(
        self, tools: Iterable[dict[str, Any]], conversation: Conversation
    ) -> tuple[Events, list[McpServer]]:
        """List the servers of ``tools`` not listed yet (or whose address, headers or token changed):
        for each, the ``mcp_list_tools`` item added to ``conversation`` and ``mcp_list_tools.in_progress``;
        returns those events and the servers to list."""
        events: Events = []
        to_list: list[McpServer] = []
        for tool in tools:
            if tool.get("type") != "mcp":
                continue
            self.configs[tool["server_label"]] = tool
            server = McpServer.from_tool(tool)
            known = self.listings.get(server.server_label)
            if known is not None and known.server == server:
                continue
            item = Item(self.ids.item(), "mcp_list_tools", server_label=server.server_label, tools=[])
            self.listings[server.server_label] = McpListing(server, item)
            item.previous_item_id = conversation.insert(item)
            events += [
                se.conversation_item_added(
                    self.ids.event(), previous_item_id=item.previous_item_id, item=item.wire()
                ),
                se.mcp_list_tools_in_progress(self.ids.event(), item_id=item.id),
            ]
            to_list.append(server)
        return events, to_list

    def item_id_of(self, server: McpServer) -> str:
        return self.listings[server.server_label].item.id

    def is_wanted(self, item_id: str) -> bool:
        """Whether a listing for the item ``item_id`` still matters (not replaced by a newer one)."""
        return any(listing.item.id == item_id and listing.tools is None for listing in self.listings.values())

    def listed(self, item_id: str, tools: list[dict[str, Any]] | None) -> Events:
        """A listing arrived (``tools``: the server's, as openai-python's ``RealtimeMcpListTools.Tool``
        dicts) or failed (None): the item gets the allowed tools, or none."""
        listing = next((x for x in self.listings.values() if x.item.id == item_id and x.tools is None), None)
        if listing is None:
            return []
        config = self.configs.get(listing.server.server_label, {})
        # The listing keeps every tool (a later allowed_tools may widen the choice); the item shows
        # the allowed ones, as declared when it was made.
        listing.tools = list(tools or [])
        item = listing.item
        item.tools = [tool for tool in listing.tools if is_allowed(config, tool)]
        kind = se.mcp_list_tools_completed if tools is not None else se.mcp_list_tools_failed
        events = [kind(self.ids.event(), item_id=item.id)]
        if item.in_conversation:
            events.append(
                se.conversation_item_done(
                    self.ids.event(), previous_item_id=item.previous_item_id, item=item.wire()
                )
            )
        return events

    def is_listing(self, tools: Iterable[dict[str, Any]]) -> bool:
        """Whether a server of ``tools`` is still being listed (a response waits for its tools)."""
        return any(
            (listing := self.listings.get(tool["server_label"])) is not None and listing.tools is None
            for tool in tools
            if tool.get("type") == "mcp"
        )

    def declared(self, tools: Iterable[dict[str, Any]]) -> tuple[list[ToolSpec], dict[str, McpRoute]]:
        """The listed tools of the MCP servers among ``tools`` (a response's), as the brain sees
        declared functions, and where each goes. A name a function tool or an earlier server already
        has is left out (the brain tells tools apart by name)."""
        taken = {tool.get("name") for tool in tools if tool.get("type") != "mcp"}
        specs: list[ToolSpec] = []
        routes: dict[str, McpRoute] = {}
        for config in tools:
            if config.get("type") != "mcp":
                continue
            listing = self.listings.get(config["server_label"])
            for tool in (listing.tools or []) if listing is not None else []:
                if tool["name"] in taken or not is_allowed(config, tool) or not _is_usable(tool):
                    continue
                taken.add(tool["name"])
                parameters = tool["input_schema"]
                specs.append(ToolSpec(tool["name"], tool.get("description") or "", parameters))
                routes[tool["name"]] = McpRoute(config["server_label"], needs_approval(config, tool))
        return specs, routes

    def server(self, server_label: str) -> McpServer | None:
        listing = self.listings.get(server_label)
        return None if listing is None else listing.server


def _is_usable(tool: dict[str, Any]) -> bool:
    """A listed tool the brain can act on: a function's name, and an object schema that is valid JSON
    Schema (a server's tools are checked as a client's functions are; the others stay in the listing
    but are never picked)."""
    schema = tool.get("input_schema")
    if not isinstance(tool.get("name"), str) or not FUNCTION_NAME.fullmatch(tool["name"]):
        return False
    return (
        isinstance(schema, dict)
        and schema.get("type", "object") == "object"
        and schema_problem(schema) is None
    )


def brain_history(context: Iterable[Item]) -> tuple[TurnView, ...]:
    """The context as the brain reads it (``Item.views``); a declined approval reads as the tool's call
    and the output "The user declined this tool call.", so the next reply declines ("Okay, I won't …")
    instead of asking again."""
    items = list(context)
    requests = {item.id: item for item in items if item.type == "mcp_approval_request"}
    history: list[TurnView] = []
    for item in items:
        history += item.views()
        if item.type == "mcp_approval_response" and not item.approve:
            request = requests.get(item.approval_request_id or "")
            if request is not None:
                output = DECLINED
                history += [
                    TurnView(
                        request.id,
                        "function_call",
                        request.arguments or "",
                        name=request.name,
                        call_id=request.id,
                    ),
                    TurnView(item.id, "function_call_output", output, call_id=request.id),
                ]
    return tuple(history)


def approved_call(context: Iterable[Item]) -> Item | None:
    """The newest approval request the user approved and no call has run for yet (a response after
    the approval runs it), or None."""
    items = list(context)
    called = {item.approval_request_id for item in items if item.type == "mcp_call"}
    answered: dict[str, bool] = {}
    for item in items:
        if item.type == "mcp_approval_response" and item.approval_request_id:
            answered[item.approval_request_id] = bool(item.approve)
    for item in reversed(items):
        if item.type == "mcp_approval_request" and answered.get(item.id) and item.id not in called:
            return item
    return None
