"""A tool's output read back as a model reads it (``narration.grounding``): a batch that partly failed
says its failures (``{"sent": 12, "failed": 2}`` was "I've sent the newsletter."), and a humidity, battery,
probability or progress given as a number up to 100 is said in percent (``"humidity": 82`` was "the
humidity is 82")."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockengine.brain.failures import partial_failure
from mockengine.brain.fields import when_said
from mockengine.brain.narration import grounding


def said(name: str, arguments: dict[str, Any], output: Any) -> str:
    return grounding(json.dumps(output), name, json.dumps(arguments))


@pytest.mark.parametrize(
    ("name", "arguments", "output", "expected"),
    [
        (
            "send_newsletter",
            {"list": "customers"},
            {"sent": 12, "failed": 2},
            "I've sent the newsletter, but only partly: 12 sent and 2 failed.",
        ),
        (
            "sync_contacts",
            {},
            {"synced": 40, "skipped": 3, "errors": 1},
            "I've synced the contacts, but only partly: 40 synced, 3 skipped and 1 failed.",
        ),
        (
            "send_invites",
            {"event": "Party"},
            {"sent": 3, "failed": ["a@x.org", "b@y.org"]},
            "I've sent the invites: Party. 3 sent, but 2 failed (a@x.org and b@y.org).",
        ),
        (
            "send_newsletter",
            {"list": "customers"},
            {"sent": 0, "failed": 3},
            "I couldn't send the newsletter for customers: all 3 failed.",
        ),
        ("send_newsletter", {"list": "customers"}, {"sent": 12, "failed": 0}, "I've sent the newsletter."),
    ],
)
def test_a_partial_failure_is_said(name: str, arguments: dict[str, Any], output: Any, expected: str) -> None:
    assert said(name, arguments, output) == expected


def test_counts_without_a_failure_are_no_partial_failure() -> None:
    assert partial_failure({"sent": 12}) is None
    assert partial_failure({"failed": 2}) is None  # no count of what went through: the failure rules'
    assert partial_failure({"sent": True, "failed": False}) is None


WEATHER = ("get_weather", {"city": "Paris"})


@pytest.mark.parametrize(
    ("name", "arguments", "output", "expected"),
    [
        (
            *WEATHER,
            {"temperature": 18, "humidity": 82},
            "It's 18 degrees in Paris and the humidity is 82 percent.",
        ),
        (*WEATHER, {"humidity": 82}, "The humidity in Paris is 82 percent."),
        (
            *WEATHER,
            {"temperature": 18, "humidity": 0.82},
            "It's 18 degrees in Paris and the humidity is 82 percent.",
        ),
        (
            "get_device_status",
            {"device": "phone"},
            {"battery_level": 45, "charging": True},
            "The battery level for phone is 45 percent and it's charging.",
        ),
        (
            "get_forecast",
            {"city": "Paris"},
            {"chance_of_rain": 30, "conditions": "cloudy"},
            "It's cloudy in Paris and the chance of rain is 30 percent.",
        ),
        (
            "get_upload_status",
            {"file": "report.pdf"},
            {"progress": 0.75, "status": "uploading"},
            "The progress for report.pdf is 75 percent and the status is uploading.",
        ),
        (
            "get_upload_status",
            {"file": "report.pdf"},
            {"progress": 1, "status": "done"},
            "The progress for report.pdf is 100 percent and the status is done.",
        ),
        # no share: a count, a capacity with its unit, a number past 100
        (
            "get_device_status",
            {"device": "phone"},
            {"battery_mah": 4000},
            "The battery mah for phone is 4000.",
        ),
        ("get_stats", {"team": "Reds"}, {"progress": 140}, "The progress for Reds is 140."),
    ],
)
def test_a_share_is_said_in_percent(name: str, arguments: dict[str, Any], output: Any, expected: str) -> None:
    assert said(name, arguments, output) == expected


@pytest.mark.parametrize(
    ("name", "arguments", "output", "expected"),
    [
        (
            "search_restaurants",
            {"query": "sushi"},
            {"results": [], "total": 0},
            "There are no results for sushi.",
        ),
        (
            "search_restaurants",
            {"query": "sushi"},
            {"results": [{"name": "Sushi Ko"}, {"name": "Umi"}], "next_page": "abc", "total": 14},
            "There are 14 results for sushi; the first 2 are Sushi Ko and Umi.",
        ),
        ("search_products", {"query": "usb cable"}, [], "There are no products for usb cable."),
        (
            "search_books",
            {"query": "classics"},
            ["Dune", "Emma"],
            "There are 2 books for classics: Dune and Emma.",
        ),
        ("list_tasks", {}, {"tasks": [], "count": 0}, "There are no tasks."),
        (
            "get_order",
            {"order_id": "A12"},
            {
                "order_id": "A12",
                "status": "shipped",
                "shipped_at": "2026-12-03T14:30:00Z",
                "delivered_at": None,
            },
            "The status for A12 is shipped and it was shipped on December 3, 2026 at 2:30 PM UTC.",
        ),
        (
            "get_next_meeting",
            {},
            {"title": "Standup", "start": "2026-12-07T09:30:00+01:00", "location": None},
            "The start for Standup is December 7, 2026 at 9:30 AM.",
        ),
        (
            "get_invoice",
            {"invoice_id": "INV-9"},
            {"amount": {"value": 49.99, "currency": "EUR"}, "due_date": "2026-12-31", "paid": False},
            "The amount for INV-9 is 49.99 euros, the due date is December 31, 2026 and it's not paid.",
        ),
        (
            "get_flights",
            {"destination": "Lisbon"},
            {"flights": [{"flight": "TP123", "departs": "2026-12-08T07:15:00"}], "has_more": True},
            "There is 1 flight to Lisbon; it is TP123 (departs December 8, 2026 at 7:15 AM)"
            " and there are more.",
        ),
        ("delete_files", {"folder": "tmp"}, {"deleted": 0}, "No files were deleted."),
        ("archive_email", {}, {"archived": 0}, "Nothing was archived."),
    ],
)
def test_lists_dates_and_counts_are_said_as_a_model_says_them(
    name: str, arguments: dict[str, Any], output: Any, expected: str
) -> None:
    assert said(name, arguments, output) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-12-03", "December 3, 2026"),
        ("2026-12-03T00:05:00Z", "December 3, 2026 at 12:05 AM UTC"),
        ("2026-12-03 12:00", "December 3, 2026 at 12:00 PM"),
        ("2026-13-03", None),
        ("2026-12-03T25:00", None),
        ("12/03/2026", None),
    ],
)
def test_an_iso_date_is_read_as_a_date(value: str, expected: str | None) -> None:
    assert when_said(value) == expected
