"""Values spoken or written in a request: numbers ("25", "twenty five", "a dozen"), dates ("tomorrow",
"March 5th", "friday") and clock times ("3 pm", "noon"), each with the character span it came from."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

# -- numbers ----------------------------------------------------------------------------------------------

_UNITS = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}
_TENS = {
    w: 10 * (i + 2)
    for i, w in enumerate(["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"])
}
_SCALES = {"hundred": 100, "thousand": 1000}
_NUMBER_WORDS = set(_UNITS) | set(_TENS) | set(_SCALES) | {"a", "and", "half", "couple", "dozen"}


@dataclass(frozen=True)
class Span:
    """A value found in the text and the character span ``[start, end)`` it came from."""

    value: object
    start: int
    end: int


_DIGITS = re.compile(r"(?<![\w.])[-+]?\d+(?:,\d{3})*(?:[.,]\d+)?(?=x\b|[^\w]|$)")  # "2x" speed too
_SPOKEN = re.compile(r"\b(?:[a-z]+)(?:[\s-]+(?:[a-z]+))*\b")


def numbers(text: str) -> list[Span]:
    """Numbers written as digits ("25", "2.5") or spoken ("twenty five", "a dozen", "a couple"), in order."""
    found = [Span(_number(m.group(0)), m.start(), m.end()) for m in _DIGITS.finditer(text)]
    lowered = text.lower()
    for match in re.finditer(r"[a-z]+(?:[\s-]+[a-z]+)*", lowered):
        found += _spoken_numbers(match.group(0), match.start())
    # "that one", "the one before": a pronoun, not a quantity.
    found = [s for s in found if not (s.value == 1 and _POINTING.search(lowered[: s.start]))]
    return sorted(found, key=lambda span: span.start)


_POINTING = re.compile(r"\b(?:this|that|the|which|next|last|other|same|each)\s+$")


def _number(text: str) -> float | int:
    if re.fullmatch(r"[-+]?\d{1,3}(?:,\d{3})+", text):  # "1,500": a thousands separator
        return int(text.replace(",", ""))
    value = float(text.replace(",", "."))
    return int(value) if value.is_integer() else value


def _spoken_numbers(chunk: str, offset: int) -> list[Span]:
    spans: list[Span] = []
    words = [(m.group(0), m.start() + offset, m.end() + offset) for m in re.finditer(r"[a-z]+", chunk)]
    i = 0
    while i < len(words):
        value, used = _read_number([w for w, _, _ in words[i:]])
        if used:
            spans.append(Span(value, words[i][1], words[i + used - 1][2]))
            i += used
        else:
            i += 1
    return spans


def _read_number(words: list[str]) -> tuple[int | float, int]:
    """The number the leading ``words`` spell and how many words it took (0: none)."""
    if words[:2] == ["a", "dozen"]:
        return 12, 2
    if words[:2] == ["a", "couple"]:
        return 2, 2 + (len(words) > 2 and words[2] == "of")
    whole, used = _read_whole(words)
    rest = words[used:]
    if used and rest[:3] == ["and", "a", "half"]:  # "one and a half"
        return whole + 0.5, used + 3
    if used and rest[:1] == ["point"] and rest[1:2] and rest[1] in _UNITS and _UNITS[rest[1]] < 10:
        return float(f"{whole}.{_UNITS[rest[1]]}"), used + 2  # "one point five"
    return whole, used


def _read_whole(words: list[str]) -> tuple[int, int]:
    """The whole number the leading ``words`` spell and how many words it took (0: none)."""
    total, current, used = 0, 0, 0
    for index, word in enumerate(words):
        if word == "a" and used == 0 and index + 1 < len(words) and words[index + 1] in _SCALES:
            current = 1  # "a hundred and twenty"
        elif word in _UNITS and (used == 0 or words[index - 1] in _TENS or words[index - 1] in _SCALES):
            current += _UNITS[word]
        elif word in _UNITS and used and words[index - 1] == "and" and current >= 100:
            current += _UNITS[word]  # "a hundred and five"
        elif word in _TENS and (used == 0 or words[index - 1] in _SCALES or words[index - 1] == "and"):
            current += _TENS[word]
        elif word in _SCALES and used:
            current = max(current, 1) * _SCALES[word]
            if _SCALES[word] >= 1000:
                total, current = total + current, 0
        elif word == "and" and used and index + 1 < len(words) and words[index + 1] in _UNITS | _TENS:
            pass
        else:
            break
        used = index + 1
    return total + current, used


# -- dates and times --------------------------------------------------------------------------------------

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTH = (
    r"(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_ORDINAL_WORDS = {
    word: index + 1
    for index, word in enumerate(
        [
            "first",
            "second",
            "third",
            "fourth",
            "fifth",
            "sixth",
            "seventh",
            "eighth",
            "ninth",
            "tenth",
            "eleventh",
            "twelfth",
            "thirteenth",
            "fourteenth",
            "fifteenth",
            "sixteenth",
            "seventeenth",
            "eighteenth",
            "nineteenth",
            "twentieth",
        ]
    )
}
_ORDINAL_WORDS |= {f"twenty {w}": 20 + n for w, n in _ORDINAL_WORDS.items() if n < 10}
_ORDINAL_WORDS |= {"thirtieth": 30, "thirty first": 31}
_SPOKEN_DAY = "|".join(w.replace(" ", "[ -]") for w in sorted(_ORDINAL_WORDS, key=len, reverse=True))
# "the 5th", "5", "the fifth", "twenty-first"
_ORDINAL = rf"(?P<day>\d{{1,2}}(?=st|nd|rd|th|\b)|{_SPOKEN_DAY})(?:st|nd|rd|th)?"
# A spoken ordinal stands alone as a day ("on the twentieth") only when no noun follows ("the second time").
_ALONE = (
    r"(?=\s*(?:$|[,.;!?]|(?:at|for|from|in|and|or|to|until|till|through|please|morning|afternoon|evening)\b))"
)
_DATE_PATTERNS = (
    re.compile(r"\b(?P<iso>\d{4}-\d{2}-\d{2})\b"),
    re.compile(rf"\b(?:on\s+)?(?:the\s+)?{_ORDINAL}\s+(?:of\s+)?{_MONTH}\b"),
    re.compile(rf"\b(?:on\s+)?{_MONTH}\s+(?:the\s+)?{_ORDINAL}\b"),
    re.compile(
        r"\b(?:on\s+)?(?P<rel>today|tonight|tomorrow|(?:the\s+)?day after tomorrow|yesterday"
        r"|(?:the\s+)?day before yesterday)\b"
    ),
    re.compile(r"\b(?:on\s+)?last\s+(?P<lastday>(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b"),
    re.compile(
        r"\b(?:in|within)\s+(?P<count>a|an|one|two|three|four|five|six|seven|\d{1,2})\s+(?P<unit>days?|weeks?)\b"
    ),
    re.compile(r"\b(?P<week>next week|a week from (?:today|now))\b"),
    # "by the 15th": a day of this month, or of the next once it has passed
    re.compile(
        r"\b(?:on|by|for|until|before|from|starting|since)\s+the\s+"
        rf"(?:(?P<monthday>\d{{1,2}})(?:st|nd|rd|th)\b|(?P<spokenday>{_SPOKEN_DAY})\b{_ALONE})"
    ),
    re.compile(
        r"\b(?:on\s+)?(?P<next>next\s+|this\s+)?(?P<weekday>(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b"
    ),
)
# "one" … "twelve", in order, so that index + 1 is the hour.
_SPOKEN_HOURS = [word for word, value in _UNITS.items() if 1 <= value <= 12]
SPOKEN_HOURS = _SPOKEN_HOURS
_HOUR = rf"(?P<hour>\d{{1,2}}|{'|'.join(_SPOKEN_HOURS)})"
_TIME_PATTERNS = (
    # "half past six", "quarter to eight", "ten past nine" (the hour as a number or a word)
    re.compile(
        r"\b(?:at\s+)?(?P<past>half|(?:a\s+)?quarter|ten|twenty|five|twenty[\s-]five)\s+"
        rf"(?P<relation>past|to|after)\s+{_HOUR}"
        r"(?:\s*(?P<ampm>[ap]\.?m\.?|in the morning|in the afternoon|in the evening|at night|tonight))?\b"
    ),
    # British "half seven" is 7:30 ("at half seven", "by half eight", "the half five one")
    re.compile(
        rf"\b(?:at|by|for|until|till|from|around|about|the)\s+(?P<past>half)\s+{_HOUR}\b"
        r"(?!\s+(?:past|to|an?|hours?|minutes?|dozen|way)\b)"
        r"(?:\s*(?P<ampm>[ap]\.?m\.?|in the morning|in the afternoon|in the evening|at night|tonight))?"
    ),
    # … and on its own with a part of the day: "on thursday, half five in the morning"
    re.compile(
        rf"(?:^|(?<=,\s))(?P<past>half)\s+{_HOUR}\s+"
        r"(?P<ampm>in the morning|in the afternoon|in the evening|at night|tonight)"
    ),
    re.compile(r"\b(?:at\s+)?(?P<hour>\d{1,2}):(?P<minute>\d{2})\s*(?P<ampm>[ap]\.?m\.?)?(?![\w])"),
    re.compile(
        rf"\b(?:at\s+)?{_HOUR}(?:\s+(?P<spoken_minute>thirty|fifteen|forty five|forty-five))?\s*"
        r"(?P<ampm>[ap]\.?m\.?|o'clock|(?:in the|this) (?:morning|afternoon|evening)|at night|tonight)"
        r"(?![\w])"
    ),
    re.compile(r"\b(?:at\s+)?(?P<named>noon|midday|midnight)\b"),
    # "at six thirty", "at 7 15": a spoken clock time after "at", no am/pm
    # ("the ten fifteen", "the seven thirty": a departure named by its time)
    re.compile(
        rf"\b(?:at|the)\s+{_HOUR}\s+(?P<spoken_minute>thirty|fifteen|forty five|forty-five)\b"
        r"(?![\s-]*(?:years?|minutes?|people|[a-z]+s)\b)"
    ),
    re.compile(
        rf"\bat\s+{_HOUR}\b(?!\s*(?:%|percent|degrees|minutes|dollars|thousand|hundred|million|k\b|kg|kilos"
        r"|miles|km|pounds|euros|steps|people|bpm|rpm))"
    ),
    # a bare hour after a preposition of time: "after eight", "before six", "by ten", "until four"
    re.compile(
        rf"\b(?:after|before|by|until|till|around)\s+{_HOUR}\b(?![:.]?\d)(?!\s*(?:%|percent|degrees|minutes?"
        r"|hours?|days?|weeks?|months?|years?|dollars|thousand|hundred|million|k\b|kg|kilos|miles|km|pounds"
        r"|euros|steps|people|of|more|times|bpm|rpm|[a-z]+s\b))"
    ),
    # an alarm's bare hour after "for": "set an alarm for 7" (a table's "for 7" is its party)
    re.compile(
        rf"\b(?:alarm|wake\s+(?:me|us)(?:\s+up)?)\s+for\s+{_HOUR}\b(?![:.]?\d)"
        r"(?!\s*(?:minutes?|hours?|mins?|secs?|seconds?|days?)\b)"
    ),
)


def dates(text: str, today: date) -> list[Span]:
    """Dates in ``text`` as ISO ``YYYY-MM-DD`` strings: ISO, "March 5th", "the 5th of March", "today",
    "tomorrow", "friday", "next friday". Relative ones count from ``today``; a month-day without a year is
    the next such day on or after ``today``."""
    lowered = text.lower()
    found: list[Span] = []
    for pattern in _DATE_PATTERNS:
        for match in pattern.finditer(lowered):
            if any(s.start <= match.start() < s.end for s in found):
                continue
            value = _date_value(match, today)
            if value is not None:
                found.append(Span(value.isoformat(), match.start(), match.end()))
    weekend = _THIS_WEEKEND.search(lowered)
    if weekend is not None and not any(s.start < weekend.end() and weekend.start() < s.end for s in found):
        # the coming Saturday (today, on a Saturday or a Sunday: the weekend is under way)
        days = (5 - today.weekday()) % 7 if today.weekday() < 6 else 0
        found.append(Span((today + timedelta(days=days)).isoformat(), weekend.start(), weekend.end()))
    return sorted((_a_week_on(lowered, span) for span in found), key=lambda span: span.start)


# "this weekend", "over the weekend": its first day. ("next weekend" is said of either coming one: not read.)
_THIS_WEEKEND = re.compile(r"\b(?:this|over the|for the)\s+weekend\b")


_WEEK_BEFORE = re.compile(r"\ba week (?:on |from |after )?$")
_WEEK_AFTER = re.compile(r"\s+week\b(?!\s*(?:end|day|night))")


def _a_week_on(lowered: str, span: Span) -> Span:
    """British "a week on thursday", "a week tomorrow", "thursday week": that day a week later."""
    before = _WEEK_BEFORE.search(lowered[: span.start])
    after = _WEEK_AFTER.match(lowered, span.end)
    said = lowered[span.start : span.end]
    if before is None and (after is None or not re.search(r"day|tomorrow", said)):
        return span
    later = (date.fromisoformat(str(span.value)) + timedelta(days=7)).isoformat()
    return Span(later, before.start() if before else span.start, after.end() if after else span.end)


def _date_value(match: re.Match[str], today: date) -> date | None:
    groups = match.groupdict()
    if groups.get("iso"):
        try:
            return date.fromisoformat(groups["iso"])
        except ValueError:
            return None
    if groups.get("rel"):
        relative = groups["rel"].removeprefix("the").strip()
        shift = {"today": 0, "tonight": 0, "tomorrow": 1, "day after tomorrow": 2, "yesterday": -1}
        return today + timedelta(days=shift.get(relative, -2))  # "the day before yesterday"
    if groups.get("lastday"):  # the most recent one before today
        wanted = next(i for i, d in enumerate(WEEKDAYS) if d.startswith(groups["lastday"][:3]))
        return today - timedelta(days=(today.weekday() - wanted) % 7 or 7)
    if groups.get("count"):
        count = groups["count"]
        number = int(count) if count.isdigit() else ({"a": 1, "an": 1} | _UNITS).get(count, 1)
        return today + timedelta(days=number * (7 if groups["unit"].startswith("week") else 1))
    if groups.get("week"):
        return today + timedelta(days=7)
    if groups.get("monthday") or groups.get("spokenday"):
        return _next_month_day(today, _day_number(groups.get("monthday") or groups["spokenday"]))
    if groups.get("weekday"):
        wanted = next(i for i, d in enumerate(WEEKDAYS) if d.startswith(groups["weekday"][:3]))
        ahead = (wanted - today.weekday()) % 7 or 7
        # "friday" and "next friday" mean the coming one, but "next tuesday" said on a monday is not
        # tomorrow (that would be "tomorrow"): it is a week later.
        if ahead == 1 and (groups.get("next") or "").strip() == "next":
            ahead += 7
        return today + timedelta(days=ahead)
    month = next(i + 1 for i, m in enumerate(MONTHS) if m.startswith(groups["month"][:3]))
    try:
        day = _day_number(groups["day"])
        candidate = date(today.year, month, day)
        return candidate if candidate >= today else date(today.year + 1, month, day)
    except ValueError:
        return None


def _day_number(text: str) -> int:
    """ "5" or "fifth" / "twenty-first" as a day of the month."""
    return int(text) if text.isdigit() else _ORDINAL_WORDS[" ".join(text.replace("-", " ").split())]


def _next_month_day(today: date, day: int) -> date | None:
    """The coming ``day`` of a month: this month's if not past, else the next month's."""
    year, month = today.year, today.month
    for _ in range(3):  # a 31st may skip a month
        try:
            candidate = date(year, month, day)
        except ValueError:
            candidate = None
        if candidate is not None and candidate >= today:
            return candidate
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return None


def times(text: str) -> list[Span]:
    """Clock times in ``text`` as ``HH:MM`` (24 h): "3 pm", "3:30pm", "15:30", "three thirty pm", "noon",
    "at 7", "9 in the morning"; an hour without am/pm is the morning's beside "wake" or "breakfast", the
    evening's beside "dinner" or "a table" ("a table at 8" → 20:00), else the afternoon's from 1 to 7."""
    lowered = text.lower()
    found: list[Span] = []
    morning = _MORNING.search(lowered) is not None  # "wake me up at six thirty": not the evening
    # an alarm's or a waking's hour, no morning said: its small hours are the afternoon's
    alarm_only = morning and _MORNING_WORDS.search(lowered) is None
    # "a table for 4 at 8", "dinner at 7:30": an evening plan's hour is the evening's, as a model reads it
    evening = not morning and _evening_plan(lowered)
    reminder = _REMINDER.search(lowered)
    for pattern in _TIME_PATTERNS:
        for match in pattern.finditer(lowered):
            if any(s.start <= match.start() < s.end or match.start() <= s.start < match.end() for s in found):
                continue
            groups = match.groupdict()
            if evening and _PARTY_TONIGHT.match(lowered, max(0, match.start() - 4)) and match.start() >= 4:
                # "a table for four tonight at 8": an evening plan's "for four" is its party, "tonight"
                # its day (it was 16:00 and the party asked, or the party 8)
                continue
            if groups.get("ampm") in ("o'clock", "oclock"):  # "at 7 o'clock" says no half of the day
                groups["ampm"] = None
            hour_said = groups.get("hour") or ""
            small_hour = hour_said in ("1", "2", "3", "one", "two", "three") and not groups.get("past")
            if alarm_only and small_hour and not groups.get("ampm"):
                # "set an alarm for 2": a nap's or an errand's 14:00, not 02:00 (our choice, docs/tools.md)
                groups["ampm"] = "pm"
            elif morning and not groups.get("ampm"):
                groups["ampm"] = "am"
            elif (
                evening
                and not groups.get("ampm")
                and not (
                    reminder
                    and reminder.start() < match.start()
                    and not _evening_plan(lowered[: match.start()])
                )
            ):
                # a reminder's hour said before what it reminds of is its own: "Remind me at 8 to cancel my
                # booking" is 08:00 (the booking is what is reminded of, not when)
                groups["ampm"] = "pm"
            value = _time_value(groups)
            if value is not None:
                found.append(Span(value, match.start(), match.end()))
    return sorted(found, key=lambda span: span.start)


def _evening_plan(lowered: str) -> bool:
    """``lowered`` names an evening plan (a dinner, a table) or a booking of no daytime errand."""
    return _EVENING_PLANS.search(lowered) is not None or (
        _BOOKING.search(lowered) is not None and _DAYTIME_BOOKING.search(lowered) is None
    )


# A reminder asked: its hour is read by the words before it, not by what it reminds of after it.
_REMINDER = re.compile(r"\bremind(?:er)?\b")
# The morning said as such; an alarm or a waking alone leaves 1-3 the afternoon's ("an alarm for 2").
_MORNING_WORDS = re.compile(r"\b(?:morning|breakfast|sunrise|dawn)\b")
# An hour without am/pm (1-11) is the morning's for an alarm or a waking ("set an alarm at 8", "wake me at
# 6": 06:00), the evening's for a dinner, a table or a booking ("move my booking to Saturday at 8":
# 20:00), as a model reads them; with neither, 1-7 is the afternoon's and 8-11 the morning's. An alarm's
# or a waking's 1-3, no morning said, is the afternoon's ("set an alarm for 2": 14:00; our choice).
# An alarm is the morning's only when it is the thing set ("set an alarm at 8", "alarm at 6"): one talked
# about ("a meeting about the alarm at 3") leaves the hour the afternoon's.
_MORNING = re.compile(
    r"\b(?:wake|waking|morning|breakfast|sunrise|dawn)\b"
    r"|\b(?:set|make|create|add|need|want|put|schedule)\s+(?:(?:me|up|us)\s+)?(?:(?:an?|my|the|another)\s+)?alarms?\b"
    r"|^\W*(?:an?\s+)?alarms?\b"
)
_EVENING_PLANS = re.compile(
    r"\b(?:dinner|supper|table|restaurant|drinks|cocktails|concert|movie"
    r"|cinema|theat(?:er|re)|party|pub|gig|date night)\b"
)
# A booking of no kind said is a restaurant's, the evening's ("move my booking to Saturday at 8": 20:00);
# one of the day's errands is not ("my dentist booking at 9": 09:00).
_BOOKING = re.compile(r"\b(?:reservations?|bookings?|rebook)\b")
_DAYTIME_BOOKING = re.compile(
    r"\b(?:dentist|doctor|gp|clinic|hospital|haircut|hair|barber|salon|nails?|massage|physio|therapy|vet"
    r"|appointment|checkup|check-up|meeting|class|lesson|service|mot|garage|car|flight|train|bus)\b"
)
# An evening plan's "for <n> tonight" ("a table for four tonight", "dinner for 2 this evening"): a party
# of n on that day, no clock time, as "a table for 7" is a party of 7.
_PARTY_TONIGHT = re.compile(
    rf"for\s+(?:\d{{1,2}}|{'|'.join(_SPOKEN_HOURS)})\s+"
    r"(?:tonight|this evening|tomorrow night|tomorrow evening)\b"
)
_PAST_MINUTES = {"half": 30, "quarter": 15, "a quarter": 15, "ten": 10, "twenty": 20, "five": 5}


def _relative_time(hour: int, groups: dict[str, str | None]) -> str | None:
    """ "half past six" → 18:30 (an hour of 1-7 without am/pm is the afternoon, as for "at 3"),
    "quarter to eight" → 19:45."""
    words = " ".join((groups.get("past") or "").replace("-", " ").split())
    minutes = _PAST_MINUTES.get(words, 25 if words == "twenty five" else 0)
    ampm = (groups.get("ampm") or "").replace(".", "")
    if groups.get("relation") == "to":
        hour, minutes = hour - 1, 60 - minutes
    evening = ampm in ("pm", "in the afternoon", "in the evening", "at night", "tonight")
    if (evening and hour < 12) or (not ampm and (1 <= hour <= 7 or hour == 0)):
        hour += 12
    if hour > 23 or minutes > 59:
        return None
    return f"{hour:02d}:{minutes:02d}"


def _time_value(groups: dict[str, str | None]) -> str | None:
    named = groups.get("named")
    if named:
        return "00:00" if named == "midnight" else "12:00"
    hour_text = groups.get("hour") or ""
    hour = int(hour_text) if hour_text.isdigit() else _SPOKEN_HOURS.index(hour_text) + 1
    if groups.get("past"):
        return _relative_time(hour, groups)
    minute_text = groups.get("minute") or ""
    spoken = (groups.get("spoken_minute") or "").replace("-", " ")
    minute = (
        int(minute_text) if minute_text else {"": 0, "thirty": 30, "fifteen": 15, "forty five": 45}[spoken]
    )
    ampm = (groups.get("ampm") or "").replace(".", "")
    if ampm in ("pm", "at night", "tonight") or ampm.endswith(("afternoon", "evening")):
        hour += 12 if hour < 12 else 0
    elif ampm in ("am", "in the morning", "this morning") and hour == 12:
        hour = 0
    elif not ampm and not minute_text and 1 <= hour <= 7:
        hour += 12  # "at 3" in conversation means the afternoon
    if hour > 23 or minute > 59:
        return None
    return f"{hour:02d}:{minute:02d}"


_EVENING = re.compile(
    r"\b(?:tonight|(?:this|in the|tomorrow|(?:mon|tues|wednes|thurs|fri|satur|sun)day)"
    r" (?:evening|afternoon|night))\b",
    re.IGNORECASE,
)


def in_the_evening(clock: Span | None, said: str) -> Span | None:
    """``clock`` moved to the afternoon or evening when ``said`` places it there though the words were
    taken as the day ("quarter to nine tonight" → 20:45)."""
    if clock is None or not isinstance(clock.value, str) or not _EVENING.search(said):
        return clock
    hour, minute = (int(part) for part in clock.value.split(":"))
    return Span(f"{hour + 12:02d}:{minute:02d}", clock.start, clock.end) if hour < 12 else clock


# A thing and the number it is set to: "apples to 12", "pears: 5", "apples = 12" (a thing's name one word).
_COUNT_OF = re.compile(r"\b([a-z][a-z'-]*)\s*(?:\s(?:to|at|is|are)\s|[:=])\s*(\d+(?:\.\d+)?)\b", re.I)
_NOT_THINGS = frozenset(("it", "that", "this", "them", "timer", "alarm", "stock", "count", "counts"))


def counts(text: str) -> Span | None:
    """The things named with the number each is set to ("set the stock of apples to 12 and pears to 5"
    → ``{"apples": 12, "pears": 5}``), with the span from the first thing to the last number; None when
    fewer than one is said. Whole numbers are ints."""
    found = [m for m in _COUNT_OF.finditer(text) if m.group(1).lower() not in _NOT_THINGS]
    if not found:
        return None
    value = {m.group(1).lower(): _number(m.group(2)) for m in found}
    return Span(value, found[0].start(), found[-1].end())
