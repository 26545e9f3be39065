"""A seeded generator of hostile and random-but-valid Realtime client frames (for the fuzz test).

Each :class:`Frame` says whether the engine must reject it. A rejected frame that can carry an
``event_id`` carries a unique ``bad-N`` one, so the test can match each to its ``error`` event; frames that
cannot (not JSON, binary, no usable ``event_id``) are counted and must each get an ``error`` with
``event_id: null``. Valid frames carry ``ok-N`` ids; they may be refused too (a cancel with nothing
active, a voice change after audio), which is fine — they must only not break anything.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from mockengine.engines.voices import VOICE_NAMES
from mockengine.protocol.client_events import MAX_NESTING, wire_types

VOICES = list(VOICE_NAMES)
# Every client event but the session's end and the beta alias of append, in the protocol's own order.
EVENT_TYPES = [
    kind
    for kind in wire_types("websocket")
    if kind not in ("session.close", "session.input_audio_buffer.append")
]


@dataclass(frozen=True)
class Frame:
    data: str | bytes
    must_fail: bool
    event_id: str | None  # the id the error must echo (None: the error's event_id is null)


class FuzzEvents:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.n = 0
        self.item_ids: list[str] = ["item_unknown"]
        self.bad: list[Callable[[str], Any]] = [
            self._unknown_type,
            self._missing_type,
            self._type_not_string,
            self._missing_required,
            self._wrong_field_type,
            self._bad_session_update,
            self._bad_base64,
            self._bad_item,
            self._bad_response,
            self._unknown_ids,
            self._deep_nesting,
            self._lone_surrogate,
            self._bad_truncate,
        ]
        self.idless: list[Callable[[], str | bytes]] = [
            self._not_json,
            self._json_not_object,
            self._truncated_json,
            self._nan,
            lambda: bytes(self.rng.randrange(256) for _ in range(self.rng.randrange(1, 64))),
        ]
        # Commits are rarer than the rest: each one costs a whisper run.
        self.valid_weights = [10, 10, 10, 1, 3, 3, 3, 3, 3, 3, 3, 3]
        self.valid: list[Callable[[str], dict[str, Any]]] = [
            self._append,
            self._append,
            self._append,
            lambda eid: {"type": "input_audio_buffer.commit", "event_id": eid},
            lambda eid: {"type": "input_audio_buffer.clear", "event_id": eid},
            self._user_item,
            self._user_item,
            self._retrieve_or_delete,
            self._response_create,
            lambda eid: {"type": "response.cancel", "event_id": eid},
            self._session_update,
            self._truncate,
        ]

    def frames(self, count: int, bad_share: float = 0.7) -> Iterator[Frame]:
        for _ in range(count):
            self.n += 1
            roll = self.rng.random()
            if roll < bad_share * 0.8:
                eid = f"bad-{self.n}"
                event = self.rng.choice(self.bad)(eid)
                yield Frame(event if isinstance(event, str) else json.dumps(event), True, eid)
            elif roll < bad_share:
                yield Frame(self.rng.choice(self.idless)(), True, None)
            else:
                eid = f"ok-{self.n}"
                make = self.rng.choices(self.valid, weights=self.valid_weights)[0]
                yield Frame(json.dumps(make(eid)), False, eid)

    # -- helpers ---------------------------------------------------------------------------------------

    def _text(self, n: int = 20) -> str:
        alphabet = string.ascii_letters + string.digits + " .,?!'\"\\/é漢🙂\t\n"
        return "".join(self.rng.choice(alphabet) for _ in range(self.rng.randrange(n)))

    def _junk(self) -> Any:
        return self.rng.choice(
            [None, True, 0, -1, 1.5, 10**30, "", "x" * 50, [], [1, "a"], {}, {"a": {"b": None}}]
        )

    def _item_id(self) -> str:
        return self.rng.choice(self.item_ids)

    # -- must fail, with an event_id -------------------------------------------------------------------

    def _unknown_type(self, eid: str) -> dict[str, Any]:
        kind = self.rng.choice(
            [
                "nope",
                "",
                "session.updat",
                "response.text.delta",
                "output_audio_buffer.clear",
                "transcription_session.update",
                "conversation.item.created",
                self._text(12) + ".x",
            ]
        )
        return {"type": kind, "event_id": eid}

    def _missing_type(self, eid: str) -> dict[str, Any]:
        return {"event_id": eid, "session": {"type": "realtime"}}

    def _type_not_string(self, eid: str) -> dict[str, Any]:
        return {"type": self.rng.choice([1, None, [], {"a": 1}, True, 2.5]), "event_id": eid}

    def _missing_required(self, eid: str) -> dict[str, Any]:
        kind = self.rng.choice(
            [
                "session.update",
                "input_audio_buffer.append",
                "conversation.item.create",
                "conversation.item.truncate",
                "conversation.item.delete",
                "conversation.item.retrieve",
            ]
        )
        return {"type": kind, "event_id": eid}

    def _wrong_field_type(self, eid: str) -> dict[str, Any]:
        junk = self.rng.choice([None, 5, 1.5, [], {}, True])
        kind, field = self.rng.choice(
            [
                ("session.update", "session"),
                ("input_audio_buffer.append", "audio"),
                ("conversation.item.create", "item"),
                ("conversation.item.create", "previous_item_id"),
                ("conversation.item.delete", "item_id"),
                ("conversation.item.retrieve", "item_id"),
                ("response.create", "response"),
                ("response.cancel", "response_id"),
            ]
        )
        event: dict[str, Any] = {"type": kind, "event_id": eid, field: junk}
        if field == "previous_item_id":
            event["item"] = {"type": "message", "role": "user", "content": []}
            if junk is None:
                event[field] = 5
        if field in ("response", "response_id") and junk in (None, {}):
            event[field] = 7  # null (and an empty response) are allowed there
        return event

    def _bad_session_update(self, eid: str) -> dict[str, Any]:
        session: dict[str, Any] = self.rng.choice(
            [
                {"type": "realtime", "bogus": 1},
                {"instructions": "no type"},
                {"type": "session"},
                {"type": "realtime", "modalities": ["text"]},
                {"type": "realtime", "voice": "alloy"},
                {"type": "realtime", "audio": {"output": {"voice": "bob"}}},
                {"type": "realtime", "audio": {"input": {"format": {"type": "audio/pcm", "rate": 16000}}}},
                {"type": "realtime", "audio": {"input": {"format": {}}}},
                {"type": "realtime", "audio": {"output": {"speed": 9}}},
                {"type": "realtime", "output_modalities": ["audio", "text"]},
                {"type": "realtime", "max_output_tokens": 0},
                {"type": "realtime", "max_output_tokens": "lots"},
                {"type": "realtime", "tool_choice": "sometimes"},
                {"type": "realtime", "tools": [{"type": "function"}]},
                {"type": "realtime", "tools": "none"},
                {"type": "realtime", "audio": {"input": {"turn_detection": {"type": "eager_vad"}}}},
                {
                    "type": "realtime",
                    "audio": {"input": {"turn_detection": {"type": "server_vad", "threshold": 7}}},
                },
                {
                    "type": "realtime",
                    "audio": {"input": {"turn_detection": {"type": "server_vad", "idle_timeout_ms": 10}}},
                },
                {"type": "realtime", "instructions": 5},
                {"type": "realtime", "truncation": "sometimes"},
                {
                    "type": "realtime",
                    "tools": [{"type": "mcp", "server_label": "a", "server_url": "http://[::1"}],
                },
                {
                    "type": "realtime",
                    "tools": [{"type": "mcp", "server_label": "a", "server_url": "http://h:99999"}],
                },
                {"type": "realtime", "tools": [{"type": "mcp", "server_label": "a", "connector_id": "x"}]},
                {
                    "type": "realtime",
                    "tools": [{"type": "mcp", "server_label": "a b", "server_url": "http://h/mcp"}],
                },
            ]
        )
        return {"type": "session.update", "event_id": eid, "session": session}

    def _bad_base64(self, eid: str) -> dict[str, Any]:
        audio = self.rng.choice(["%%%", "abc", "A===", "____", "ab\ncd", "é"])
        return {"type": "input_audio_buffer.append", "event_id": eid, "audio": audio}

    def _bad_item(self, eid: str) -> dict[str, Any]:
        item = self.rng.choice(
            [
                {"type": "message"},
                {"type": "message", "role": "wizard", "content": []},
                {"type": "message", "role": "user", "content": "hi"},
                {"type": "message", "role": "user", "content": [{"type": "output_audio"}]},
                {"type": "message", "role": "assistant", "content": [{"type": "input_audio", "audio": ""}]},
                {"type": "message", "role": "system", "content": [{"type": "input_image", "image_url": "x"}]},
                {"type": "message", "role": "user", "content": [{"type": "input_text"}], "extra": 1},
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_image", "image_url": "data:,"}],
                },
                {"type": "message", "role": "user", "content": [{"type": "input_audio", "audio": "%%"}]},
                {"type": "function_call"},
                {"type": "function_call_output", "call_id": "call_nobody", "output": "{}"},
                {"type": "mcp_approval_response", "approval_request_id": "mcpr_nobody", "approve": True},
                {"type": "mcp_approval_response", "approve": "yes"},
                {"type": "mcp_call", "server_label": "a", "name": "x", "arguments": "{}"},
                {"type": "mystery"},
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": 5}]},
            ]
        )
        return {"type": "conversation.item.create", "event_id": eid, "item": item}

    def _bad_response(self, eid: str) -> dict[str, Any]:
        response = self.rng.choice(
            [
                {"conversation": "bogus"},
                {"output_modalities": ["video"]},
                {"max_output_tokens": 99999},
                {"tool_choice": {"type": "function"}},
                {"input": [{"type": "item_reference", "id": "item_does_not_exist"}]},
                {"input": "everything"},
                {"metadata": {"k": 5}},
                {"bogus": True},
                {"audio": {"output": {"voice": "nobody"}}},
                {
                    "tools": [
                        {"type": "function", "name": "f", "parameters": {"type": "object", "properties": 3}}
                    ]
                },
            ]
        )
        return {"type": "response.create", "event_id": eid, "response": response}

    def _unknown_ids(self, eid: str) -> dict[str, Any]:
        kind = self.rng.choice(
            ["conversation.item.delete", "conversation.item.retrieve", "conversation.item.truncate"]
        )
        event = {"type": kind, "event_id": eid, "item_id": f"nope_{self.n}"}
        if kind.endswith("truncate"):
            event |= {"content_index": 0, "audio_end_ms": 0}
        if self.rng.random() < 0.3:
            item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "x"}]}
            return {
                "type": "conversation.item.create",
                "event_id": eid,
                "previous_item_id": f"nope_{self.n}",
                "item": item,
            }
        return event

    def _deep_nesting(self, eid: str) -> str:
        depth = self.rng.randrange(MAX_NESTING + 8, 400)  # past the limit with the wrapping objects
        body = '{"a":' * depth + "1" + "}" * depth
        session = f'{{"type": "realtime", "tracing": {{"metadata": {body}}}}}'
        return f'{{"type": "session.update", "event_id": "{eid}", "session": {session}}}'

    def _lone_surrogate(self, eid: str) -> str:
        item = '{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "a\\ud800b"}]}'
        return f'{{"type": "conversation.item.create", "event_id": "{eid}", "item": {item}}}'

    def _bad_truncate(self, eid: str) -> dict[str, Any]:
        return {
            "type": "conversation.item.truncate",
            "event_id": eid,
            "item_id": self._item_id(),
            "content_index": self.rng.choice([1, -1, "0", None]),
            "audio_end_ms": self.rng.choice([-5, "x", 1.5, None, 10]),
        }

    # -- must fail, no event_id possible ---------------------------------------------------------------

    def _not_json(self) -> str:
        return self.rng.choice(["not json", "", "{", "}", "{'type': 'x'}", "[1,", self._text(40) + "{"])

    def _json_not_object(self) -> str:
        return json.dumps(
            self.rng.choice([[], [{"type": "response.create"}], 5, "response.create", None, True])
        )

    def _truncated_json(self) -> str:
        whole = json.dumps(
            {"type": "response.create", "event_id": "cut", "response": {"instructions": "x" * 20}}
        )
        return whole[: self.rng.randrange(1, len(whole) - 1)]

    def _nan(self) -> str:
        return (
            '{"type": "session.update", "session": {"type": "realtime", "audio": {"output": {"speed": NaN}}}}'
        )

    # -- valid -----------------------------------------------------------------------------------------

    def _append(self, eid: str) -> dict[str, Any]:
        ms = self.rng.choice([1, 10, 20, 20, 40, 100, 250])
        n = ms * 24
        if self.rng.random() < 0.8:
            pcm = bytes(2 * n)
        else:
            amplitude = self.rng.choice([100, 3000, 20000])
            pcm = b"".join(
                self.rng.randrange(-amplitude, amplitude).to_bytes(2, "little", signed=True) for _ in range(n)
            )
        if self.rng.random() < 0.05:
            pcm = pcm[:-1]  # an odd byte: waits for its partner
        return {"type": "input_audio_buffer.append", "event_id": eid, "audio": base64.b64encode(pcm).decode()}

    def _user_item(self, eid: str) -> dict[str, Any]:
        item: dict[str, Any] = {
            "type": "message",
            "role": self.rng.choice(["user", "user", "system"]),
            "content": [{"type": "input_text", "text": self._text(60)}],
        }
        if self.rng.random() < 0.3:
            item["id"] = self.rng.choice([*self.item_ids, f"client_{self.n}"])
        if item.get("id"):
            self.item_ids.append(item["id"])
        event = {"type": "conversation.item.create", "event_id": eid, "item": item}
        if self.rng.random() < 0.2:
            event["previous_item_id"] = self.rng.choice(["root", *self.item_ids])
        return event

    def _retrieve_or_delete(self, eid: str) -> dict[str, Any]:
        kind = self.rng.choice(["conversation.item.retrieve", "conversation.item.delete"])
        return {"type": kind, "event_id": eid, "item_id": self._item_id()}

    def _truncate(self, eid: str) -> dict[str, Any]:
        return {
            "type": "conversation.item.truncate",
            "event_id": eid,
            "item_id": self._item_id(),
            "content_index": 0,
            "audio_end_ms": self.rng.randrange(0, 3000),
        }

    def _response_create(self, eid: str) -> dict[str, Any]:
        response: dict[str, Any] = {}
        if self.rng.random() < 0.9:
            response["output_modalities"] = ["text"]
        if self.rng.random() < 0.3:
            response["conversation"] = "none"
        if self.rng.random() < 0.3:
            response["max_output_tokens"] = self.rng.choice([1, 5, "inf"])
        if self.rng.random() < 0.2:
            response["instructions"] = self._text(40)
        return {"type": "response.create", "event_id": eid, "response": response}

    def _session_update(self, eid: str) -> dict[str, Any]:
        session: dict[str, Any] = {"type": "realtime"}
        choice = self.rng.randrange(5)
        if choice == 0:
            session["instructions"] = self._text(80)
        elif choice == 1:
            session["audio"] = {
                "input": {
                    "turn_detection": self.rng.choice(
                        [
                            None,
                            {"type": "server_vad", "silence_duration_ms": 200},
                            {"type": "semantic_vad", "eagerness": "high"},
                            {"type": "server_vad", "create_response": False},
                        ]
                    )
                }
            }
        elif choice == 2:
            session["audio"] = {"output": {"voice": self.rng.choice(VOICES)}}
        elif choice == 3:
            session["output_modalities"] = self.rng.choice([["text"], ["audio"]])
        else:
            session["audio"] = {"input": {"transcription": self.rng.choice([None, {"model": "whisper-1"}])}}
        return {"type": "session.update", "event_id": eid, "session": session}
