"""protocol.codec.loads_strict: the JSON of HTTP bodies, read as any other JSON parser reads it."""

from __future__ import annotations

import pytest

from mockengine.protocol.codec import MAX_NESTING, loads_strict


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_plain_json_is_read():
    assert loads_strict(b'{"a": [1, "\\u00e9", "\\ud83d\\ude00"]}') == {"a": [1, "é", "😀"]}
    assert loads_strict(nested(MAX_NESTING)) == loads_strict(nested(MAX_NESTING).encode())


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("{nope", "Expecting property name"),
        ('{"speed": NaN}', "NaN is not valid JSON"),
        ('{"speed": -Infinity}', "-Infinity is not valid JSON"),
        ('{"input": "\\ud800"}', "unpaired UTF-16 surrogate"),
        ('{"input": "\\udc00 after a low one"}', "unpaired UTF-16 surrogate"),
        (nested(MAX_NESTING + 1), f"nest at most {MAX_NESTING} deep"),
        (nested(100_000), "deeper than the parser goes"),  # past the parser's recursion
        (b'{"a": "\xff"}', "codec can't decode"),
    ],
)
def test_what_other_parsers_refuse_is_refused(raw, reason):
    with pytest.raises(ValueError, match=reason):
        loads_strict(raw)
