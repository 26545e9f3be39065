"""The recorder writes an exchange whose body has text with no UTF-8 form (a lone surrogate escaped)."""

from __future__ import annotations

import json

from mockengine.record.proxy import Recorder
from mockengine.settings import Settings


def test_an_exchange_with_a_lone_surrogate_is_recorded(tmp_path):
    recorder = Recorder("http://127.0.0.1:9/v1", tmp_path, Settings())
    path = recorder.next_exchange_path()
    body = json.loads('{"messages":[{"role":"user","content":"hi \\ud800"}]}')  # as the proxy parses it
    recorder.write_json(path, {"method": "POST", "request_body": body})
    recorder.writer.drain()
    recorder.writer.close()
    assert json.loads(path.read_text(encoding="utf-8"))["request_body"] == body
    assert not list(path.parent.glob("*.partial"))
