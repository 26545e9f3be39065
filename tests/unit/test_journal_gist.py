"""`mockengine journal`'s one-line gists: what a field does not carry is left out, never shown as Python's
``None``."""

from __future__ import annotations

from mockengine.journal import gist


def test_a_client_item_without_an_id_and_an_error_without_a_code():
    create = {
        "from": "client",
        "event": {
            "type": "conversation.item.create",
            "item": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi"}]},
        },
    }
    assert gist(create) == "message user 'Hi'"
    refused = {
        "from": "server",
        "event": {
            "type": "error",
            "error": {"type": "invalid_request_error", "code": None, "message": "No key"},
        },
    }
    assert gist(refused) == "No key"
    coded = {
        "from": "server",
        "event": {"type": "error", "error": {"code": "invalid_value", "message": "Bad"}},
    }
    assert gist(coded) == "invalid_value Bad"
