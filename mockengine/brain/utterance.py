"""What kind of utterance a user turn is, before any tool is considered: the words cleaned of fillers and
dismissals, and whether they ask for anything at all.

``clean()`` removes what is said while thinking ("um", "you know", "maybe") and a leading dismissal that
a request follows ("never mind, open orbit" → "open orbit"). ``not_asking()`` says why words ask for no
call, or None when they may: a request not to act ("don't play it"), a dismissal ("never mind", "not now",
"no thanks"), a closing remark ("that's all for now"), a question about the assistant or the app ("what
can you do?", "how does this work?") or about the participant ("what's your name?"), or a remark about
how something is ("the lights are really nice") with no complaint in it ("it's too dark in here" is a
request for light). ``past_event()`` finds a story told ("we watched a movie last night"), which the
matcher takes only as a record a tool keeps.
"""

from __future__ import annotations

import re

from mockengine.brain import lexicon, questions, scalars, values
from mockengine.brain.phrasing import LIGHT_VERBS
from mockengine.brain.wordlists import (
    DICTATED_RECORDS,
    FILLERS,
    IRREGULAR,
    MESSAGE_VERBS,
    RECORD_ATTRIBUTE_OPENERS,
    REPAIR_STOPS,
    SELF_REPAIRS,
    SIZES,
)

_FILLER = re.compile(rf"(?<![\w'])(?:{'|'.join(FILLERS)})(?![\w'])[,.]?\s*", re.IGNORECASE)
# (an "on" or "in" a verb takes ends no phrase: "my laptop won't turn on, high priority")
_PARTICLE_VERBS = ("turn", "turns", "turned", "switch", "switched", "log", "logged", "sign", "signed")
_ORPHAN_COMMA = re.compile(
    r"\b(the|a|an|my|your|our|to|of|for|at|with|"
    + "".join(f"(?<!\\b{verb} )" for verb in _PARTICLE_VERBS)
    + r"(?:in|on))\s*,\s*",
    re.IGNORECASE,
)
# "the the card"; a digit said twice ("four four two nine") is a code, not a stutter, and "St" twice is
# a street's Street then a town's Saint ("12 Main St St Louis 63101"), two words an address abbreviates alike
_REPEATED = re.compile(
    r"\b(?!(?:zero|oh|one|two|three|four|five|six|seven|eight|nine|\d+|st)\b)(\w+)(?:\s+\1\b)+",
    re.IGNORECASE,
)
_LEAD = r"^\W*(?:(?:no|nah|ok|okay|oh|actually|wait|hmm|please|but|so|well)\W+)*"
# A self-repair: a thing named, taken back and another named in its place ("I'd like a latte, no wait, a
# mocha" → "I'd like a mocha"). Both are phrases a determiner opens, so "a latte, no sugar" (no second
# thing) and "a latte and a mocha" (no words taking one back) are kept. Neither runs over a place's or a
# time's preposition or a verb (``REPAIR_STOPS``): "a ride to the station, actually the airport" takes
# back "the station", and "the airport, sorry, my flight is at 6" takes back nothing.
_PHRASE_WORD = rf"(?!(?:{'|'.join(REPAIR_STOPS)})\b)[\w'-]+"
_DETERMINED = rf"(?:a|an|the|some|one|two|three|my)\s+{_PHRASE_WORD}(?:\s+{_PHRASE_WORD}){{0,3}}?"
_REPAIR_WORDS = "|".join(r.replace(" ", r"\W+") for r in sorted(SELF_REPAIRS, key=len, reverse=True))
# (repair words said together or beside a filler: "no, make it a mocha", "um, no, a cappuccino")
_FILLER_WORDS = "|".join(FILLERS)
_TAKING_BACK = (
    rf"(?:(?:{_FILLER_WORDS})\W*\s+)*(?:{_REPAIR_WORDS})\W*\s+(?:(?:{_FILLER_WORDS}|{_REPAIR_WORDS})\W*\s+)*"
)
_SELF_REPAIR = re.compile(
    # ("A latte please. No, sorry, a mocha": the request's "please" stays with the thing named instead)
    rf"(?<![\w'])(?P<taken>{_DETERMINED})(?P<please>\s+please)?\s*[,;.!?-]+\s*{_TAKING_BACK}"
    rf"(?P<instead>{_DETERMINED})(?=\s*(?:[,.!?;]|please\b|$))",
    re.IGNORECASE,
)
_COUNT = re.compile(r"(?:two|three|\d+)\s", re.IGNORECASE)
# A number said with its unit taken back for another number, the unit not said again: "a timer for 10
# minutes, no wait, 15" → "a timer for 15 minutes".
# A number in digits or in words ("ten minutes, no, fifteen"; "twenty-five", "a hundred and ten").
_NUMBER_WORD = (
    r"(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen"
    r"|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
    r"|hundred|thousand)"
)
_NUMBER_SAID = rf"(?:\d+(?:\.\d+)?|(?:a\s+)?{_NUMBER_WORD}(?:(?:\s+and\s+|[\s-]+){_NUMBER_WORD})*)"
_NUMBER_REPAIR = re.compile(
    rf"(?<![\w.]){_NUMBER_SAID}\s+(?P<unit>[a-z]+)\s*[,;.!-]+\s*{_TAKING_BACK}"
    rf"(?P<instead>{_NUMBER_SAID})(?:\s+(?P=unit))?(?=\s*(?:[,.!?;]|please\b|$))",
    re.IGNORECASE,
)

# A clock time said with its am/pm (or "o'clock") taken back for another hour, the am/pm not said again:
# "a table for 7pm, no, eight" → "a table for eight pm" (it was party size 8: the bare "eight" read as a
# count, though what was taken back is the time).
_HOUR_SAID = rf"(?:\d{{1,2}}(?:[:.]\d\d)?|{_NUMBER_WORD}(?:[\s-]+(?:thirty|fifteen|forty[\s-]five))?)"
_DAYTIME = r"(?:[ap]\.?m\.?|o'?clock)"
_TIME_REPAIR = re.compile(
    rf"(?<![\w.:])(?P<taken>{_HOUR_SAID})(?P<space>\s*)(?P<daytime>{_DAYTIME})(?!\w)\s*[,;.!-]+\s*{_TAKING_BACK}"
    rf"(?:(?:at|make\s+it)\s+)?(?P<instead>{_HOUR_SAID})(?:\s*{_DAYTIME}(?!\w))?(?=\s*(?:[,.!?;]|please\b|$))",
    re.IGNORECASE,
)

# … and an hour said after "at" with no am/pm, taken back for another: "a table for 6 at 7, no, 8" → "a
# table for 6 at 8" (it kept 19:00); an alarm's "for" is its "at" ("set an alarm for 7, no, 8": 08:00).
_AT_HOUR_REPAIR = re.compile(
    rf"(?:(?<=\bat\s)|(?<=\balarm\sfor\s))(?P<taken>{_HOUR_SAID})(?!\s*{_DAYTIME})\s*[,;.!-]+\s*{_TAKING_BACK}"
    rf"(?:(?:at|make\s+it)\s+)?(?P<instead>{_HOUR_SAID}(?:\s*{_DAYTIME}(?!\w))?)(?=\s*(?:[,.!?;]|please\b|$))",
    re.IGNORECASE,
)


def _instead(found: re.Match[str]) -> str:
    """The thing named in place of the one taken back: "a large one" or "a large" of "a latte" is "a
    large latte"; a count taken back for no count ("two nights, no, a suite") is kept, the thing then
    told apart. A "please" said after the thing taken back stays, as the request it makes."""
    taken, instead = found.group("taken"), found.group("instead")
    if _COUNT.match(taken) and not _COUNT.match(instead):
        return found.group(0)
    please = " please" if found.group("please") else ""
    if instead.lower().endswith(" one") and len(instead.split()) > 2:
        return instead[: -len("one")] + taken.split()[-1] + please
    if len(instead.split()) == 2 and instead.split()[-1].lower() in SIZES:
        return f"{instead} {taken.split()[-1]}{please}"  # "a latte, make it a large": a large latte
    return instead + please


# A request not to act; "don't forget to …" / "don't let me forget …" / "don't stop" still ask, and so
# does a request to keep others from something ("don't let anyone disturb us": a request for privacy).
_NOT_TO = r"(?:don'?t|do not|never(?!\s*mind)|no need to|please don'?t|i'?m not ready to)\s+"
# What the speaker does not want to do asks for nothing, unless a later clause asks: "I don't want to
# get wet, what's the weather in Paris?"
_NOT_WANT_TO = re.compile(r"^\W*(?:i|we) (?:really )?(?:don'?t|do not) want to\s+", re.IGNORECASE)
# What the speaker does not want or need ("I don't want a table", "we don't need the weather") refuses
# it, unless a later clause says what they want instead ("I don't need the break, straight into the
# next round"): then it is a reason beside a request.
_NOT_WANTED = re.compile(
    _LEAD + r"(?:(?:i|we) (?:really |actually )?(?:don'?t|do not) (?:really )?(?:want|need)|no need for"
    r"|there'?s no need (?:to|for))\s+(?!to\b|forget\b)[^,;]*$",
    re.IGNORECASE,
)
# What the speaker does not want, then what they want instead: "I don't need the weather, just the time",
# "not the weather, the time in Tokyo", "I don't want a table but a room".
_UNWANTED_THEN = re.compile(
    _LEAD + r"(?:(?:i|we) (?:really |actually )?(?:don'?t|do not) (?:really )?(?:want|need)|no need for"
    r"|not)\s+(?!to\b|forget\b|now\b|yet\b|sure\b|really\b)(?P<refused>[^,;]*?)"
    r"(?:\s*[,;]\s*(?:(?:but|just|only|instead)\s+)?|\s+(?:but|just|only|instead)\s+)(?P<wanted>\S.*)$",
    re.IGNORECASE,
)
_STILL_ASKS = (
    r"(?!forget\b|let me forget\b|miss\b|stop\b|let (?:anyone|anybody|people)\b|hesitate\b|worry\b"
    r"|be (?:late|shy|afraid)\b)"
)
# Putting an action off: "hold off on buying it", "hang fire on launching it", "wait with sending that".
_PUT_OFF = r"(?:hold off|hang fire|hold fire|wait)\s+(?:on|with)\s+\w+ing\b"
_NEGATED = re.compile(rf"{_LEAD}(?:{_NOT_TO}{_STILL_ASKS}|{_PUT_OFF})", re.IGNORECASE)
_DISMISSAL = (
    r"(?:never ?mind(?: about)?(?: (?:the|that|this|those|these|my) [\w' -]+)?"
    r"|not (?:now|yet|today|right now)|no,? thanks?(?: you)?|no thank you"
    r"|forget (?:it|about it|that)|don'?t (?:bother|worry(?: about it)?)|nothing|nope|no|nah"
    r"|cancel that|scratch that|ignore (?:that|me)"
    r"|that's (?:fine|ok|okay)|all good|i'm good|i'm fine|leave it)"
)
_FOR_NOW = r"(?:\s+(?:for now|right now|for the moment|yet|today|at the moment|at all))?"
_DISMISSED = re.compile(
    _LEAD + _DISMISSAL + _FOR_NOW + r"\s*(?:[,.;!?-]+\s*|$)(?:(?:thanks|thank you)\W*$)?", re.IGNORECASE
)
_RELATIVE = re.compile(r"\b([a-z]+)\s+(?:that|which|who)\b[^,.;!?]*", re.IGNORECASE)
_CLOSING = re.compile(
    r"\b(?:that's|that is|that'll be|that will be)\s+(?:all|it)\b(?:\s+for\s+(?:now|today))?", re.IGNORECASE
)
_ABOUT_THE_APP = re.compile(
    r"\bwhat (?:else )?(?:\w+ )?can (?:you|i)\b(?! (?:tell|find|show|get) me about\b)"
    r"|\bhow (?:does|do) (?:this|that|it|you)\b(?:\s+\w+){0,3}\s+work\b"
    r"|\bhow does (?:this|the) \w+(?: \w+)? work\b"
    r"|\bwhat (?:does|do|would|will) (?!i\b|we\b)(?:this|that|it|you|\w+(?: \w+){0,2}) do\b"
    r"|\bare you able to\b|\bwhat are you\b"
    r"|\bis there a way to\b|\bwho made (?:you|this)\b|\bwhat(?:'s| is) this app\b|^\W*help\W*$"
    # how the service works in general, not a request for one case of it
    r"|^\W*(?:how|what|when|where|which|do|does|is|are|can)\b[^.!]*\b(?:usually|normally|typically|generally"
    r"|in general|on average)\b"
    r"|^\W*how (?:many|much|long)\b[^.!]*\bcan (?:i|we)\b(?! (?:get|have) (?:a|an|the|my|some)\b)"
    r"|^\W*is it (?:safe|ok|okay|possible|a good idea|bad|dangerous) to\b"
    # general knowledge and how-to, which no lookup of the user's own things answers
    r"|^\W*what(?:'s| is) the (?:best|right|easiest|proper|usual) way to\b"
    r"|\bwhat(?:'s| is| are) the differences? between\b"
    r"|^\W*(?:is|are) \w+ing\b[^?.!]*\b(?:bad|good|better|worse|healthy|safe|ok|okay) for\b"
    r"|^\W*can (?:i|we) \w+ (?:more than|multiple|several|as many)\b"
    r"|\b(?:in here|in this app|with this app)\W*\?\s*$",
    re.IGNORECASE,
)
# Undecided, thinking aloud: "I'm not sure which one to open yet", "I'm still browsing".
_UNDECIDED = re.compile(
    r"^\W*(?:hmm\W+)?(?:(?:i'?m|i am) )?not sure\b"
    r"|^\W*(?:i )?(?:don'?t|do not) know(?: (?:which|what|if|whether|yet)\b|\W*$)"
    r"|^\W*i (?:haven'?t|have not) (?:decided|made up my mind)\b",
    re.IGNORECASE,
)
_QUESTION_ONLY = re.compile(
    r"^\s*(?:who|why|how come|what do you think|do you|are you|can you hear)\b"
    r"|\bis (?:this|it) (?:thing )?(?:on|working)\b",
    re.I,
)
# A question about the participant itself: "what's your name?", "where are you from?"
# ("what's your return policy?", "what are your opening hours?" ask the business, which a tool answers)
_ABOUT_YOU = re.compile(
    r"\b(?:you|yourself|yours|your(?!\s+(?:[\w-]+\s+){0,2}(?:polic(?:y|ies)|hours|menu|prices?|rates?|fees?"
    r"|deals?|offers?|specials|promotions?|stock|inventory|catalog(?:ue)?|shipping|delivery|warranty"
    r"|opening|store|shop|branch(?:es)?|locations?)\b))\b",
    re.I,
)
_QUESTION = re.compile(
    r"\?\s*$|^\s*(?:what|what's|where|where's|who|how|how's|when|which|is|are|do|does)\b", re.I
)
# A past event told, not a request: "I went to the park this morning", "we watched a movie last night".
_PAST = re.compile(
    r"^\W*(?:(?:so|and|well|oh|yeah|actually)\W+)*"
    # a time told first: "last week Raj forgot to unmute", "yesterday we …"
    r"(?:(?:last (?:week|night|year|month|time|friday|monday|tuesday|wednesday|thursday|saturday|sunday)"
    r"|yesterday|earlier|the other day|this morning)\W+)?"
    r"(?:i|we|he|she|they|(?-i:[A-Z][a-z]+)|(?:my|our) \w+(?: #?[a-z]*\d[\w-]*)?|the (?:\w+ ){1,3}(?:i|we)"
    r"|the (?:\w+ ){0,2}\w+ (?:got|was|were))\s+"
    r"(?:just\s+|already\s+|\w+ly\s+|never\s+)?(?P<verb>[a-z]+(?<!e)ed|"  # not "need", "feed"
    + "|".join(sorted(IRREGULAR, key=len, reverse=True))
    + "|put|set|cut|shut|quit"  # pasts like their present: "delete it, I put it in twice"
    + r")\b",
    re.I,
)
# A remark on how something is: "<subject> is/are/looks … <quality>", with no verb of a request before it.
_REMARK = re.compile(
    r"^\W*(?:it's|that's|(?!(?:what|which|where|when|how|who|why|is|are|was|were|can|could|would|will|do|does"
    r"|did|please|there|here|let|lets|let's|i|i'm|we|we're|you|just|so|and|then)\b)(?:(?:[\w']+\s+){1,3}?"
    r"(?:is|are|was|were|looks?|seems?|sounds?|feels?|smells?|tastes?)\b|[\w']+'s\b|[\w']+'re\b))",
    re.IGNORECASE,
)
_REQUEST_MARK = re.compile(
    r"\b(?:please|can you|could you|would you|will you|i want|i need|i'd like|we need|let's|wanna|gotta"
    # "can I get an appointment …?", "could we have a table for four?": asking to be given something;
    # "can I speak to someone?": asking to be put through
    r"|(?:can|could|may) (?:i|we) (?:get|have|book|speak|talk)|we'd like)\b",
    re.I,
)
_COMPLAINT = re.compile(
    r"\b(?:too|way too|a (?:little )?bit|not enough|out of|can'?t|cannot|freezing|boiling|pitch black)\b",
    re.I,
)


# What the participant acts on is the end of what was said: a request to act comes at the end of a turn
# ("... anyway, could you add milk?"), and the matcher's work grows with the words it reads, so a pasted
# 1 MB message must cost no more than a long paragraph (docs/tools.md, "Bounded work"). 600 characters
# are about 100 words, some 40 s of speech; the labelled tool cases are all under 130.
ACTED_CHARS = 600
_TAIL_STARTS = (
    re.compile(r"[.!?]+[\"')\]]*\s+(?=\S)"),  # the first whole sentence in the tail
    re.compile(r"[,;:]\s+(?=\S)"),  # else the first whole clause
    re.compile(r"\s+(?=\S)"),  # else the first whole word
)


def acted_tail(text: str) -> str:
    """The last at most ``ACTED_CHARS`` characters of ``text`` that the participant acts on, starting at
    a sentence (else a clause, else a word) boundary; ``text`` itself when it is no longer."""
    if len(text) <= ACTED_CHARS:
        return text
    tail = text[-ACTED_CHARS:]
    for start in _TAIL_STARTS:
        found = start.search(tail)
        if found is not None:
            return tail[found.end() :]
    return tail


# A record named, then its words after a comma or a dash: "Add a task, renew my passport", "New to-do -
# buy milk". Only a record opening the words (a verb making one, or "new") with at most two words between.
_RECORD_THEN_WORDS = re.compile(
    r"^(?P<named>\W*(?:(?:please|ok|okay|so|hey)\W+)*(?:add|create|make|new|start|put|set\s+up)\b"
    r"(?:\s+[\w'-]+){0,2}?\s+(?:" + "|".join(re.escape(r) for r in DICTATED_RECORDS) + r"))"
    r"\s*(?:,|\s[-–—]|[-–—]\s)\s*(?=\w)(?!(?:(?:please|thanks|thank you|now|for me|ok|okay)\W*)+$)"
    # (the record's time, due date or priority, or a question, is no words of it: "Add a reminder, at 5pm")
    r"(?!(?:" + "|".join(w.replace(" ", r"\s+") for w in RECORD_ATTRIBUTE_OPENERS) + r")\b)",
    re.IGNORECASE,
)


# A message's recipient then its words after a colon: "Text John: I need to leave early" (a capitalised
# name, one or two words, right after the verb).
_MESSAGE_AFTER_COLON = re.compile(
    r"^(?P<named>\W*(?:(?:please|ok|okay|hey)\W+)*(?i:" + "|".join(re.escape(v) for v in MESSAGE_VERBS) + r")"
    r"\s+[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)\s*:\s*(?=\S)"
)


def repaired(text: str) -> str:
    """``text`` with each thing taken back replaced by the one named in its place ("I'd like a latte, no
    wait, a mocha" → "I'd like a mocha"), and a record's words after a comma or dash read as after a
    colon ("Add a task, renew my passport" → "Add a task: renew my passport"), and a message dictated
    after its recipient and a colon read as after "saying" ("Text John: I'm late" → "Text John saying
    I'm late"); ``text`` itself when none of these is said."""
    text = _SELF_REPAIR.sub(_instead, text.replace("’", "'"))
    text = _TIME_REPAIR.sub(_time_instead, text)
    text = _AT_HOUR_REPAIR.sub(lambda found: found.group("instead"), text)
    text = _NUMBER_REPAIR.sub(lambda found: f"{found.group('instead')} {found.group('unit')}", text)
    # "Add a task, renew my passport": the record's words said after it, as after a colon
    text = _RECORD_THEN_WORDS.sub(lambda found: found.group("named") + ": ", text)
    # "Text John: I need to leave early": the words after the colon are the message, as after "saying"
    return _MESSAGE_AFTER_COLON.sub(lambda found: found.group("named") + " saying ", text)


def _time_instead(found: re.Match[str]) -> str:
    """The hour named in place of the one taken back, with the am/pm of the one taken back unless it says
    its own ("7pm, no, 8am" → "8am")."""
    instead = found.group(0)[found.start("instead") - found.start() :].rstrip()
    if re.search(rf"{_DAYTIME}$", instead, re.IGNORECASE):
        return instead
    hour = found.group("instead")
    spoken = hour.lower()
    if found.group("taken")[:1].isdigit() and spoken in values.SPOKEN_HOURS:
        # written as the hour taken back was: "7pm, no, eight" → "8pm" (it was "eight pm"), as a model
        # writes a dictated message's time
        hour = str(values.SPOKEN_HOURS.index(spoken) + 1)
    space = found.group("space") if hour[:1].isdigit() else (found.group("space") or " ")
    return f"{hour}{space}{found.group('daytime')}"


def clean(text: str) -> str:
    """``text`` without fillers, stuttered repeats and a leading dismissal a request follows."""
    text = text.replace("’", "'")
    cleaned = _REPEATED.sub(r"\1", _FILLER.sub(" ", text))
    cleaned = _ORPHAN_COMMA.sub(r"\1 ", cleaned)  # "open the, uh, orbit project" → "open the orbit project"
    while True:
        dismissed = _DISMISSED.match(cleaned)
        rest = cleaned[dismissed.end() :] if dismissed else ""
        if dismissed is None or not rest.strip() or rest == cleaned:
            break
        cleaned = rest
    return " ".join(cleaned.split()) or text.strip()


def without_relative_clauses(text: str) -> str:
    """``text`` without the relative clauses after a noun ("a cab that leaves soon" → "a cab"): they
    describe a thing, they ask for nothing."""

    def cut(match: re.Match[str]) -> str:
        noun = lexicon.tokens(match.group(1))[0]
        keep = noun.is_stop or noun.concept in lexicon.ACTIONS or noun.lower in LIGHT_VERBS
        return match.group(0) if keep else match.group(1)

    return _RELATIVE.sub(cut, text)


def past_event(text: str) -> str | None:
    """The verb of a past event told ("went" of "I went to the park"), None when ``text`` is no such
    story (or asks for something as well)."""
    told = _PAST.search(text.replace("’", "'"))
    if told is None or _REQUEST_MARK.search(text) or then_asks(text) or _PASSWORD_FORGOTTEN.search(text):
        return None
    return told.group("verb").lower()


_BARE_REQUEST = re.compile(
    r"^\s*(?:please\s+)?(?:(?:you can|can you|could you)\s+)?(?![a-z]+ed\b)"
    r"(?!(?:is|was|it|that|he|she|they|we|i)\b)"
    r"[a-z]+\s+(?:it|them|this|that|the|my|our)\b",
    re.IGNORECASE,
)


def then_asks(text: str) -> bool:
    """A later clause starts with an action: "I changed my mind about the batteries, lose them"."""
    for clause in re.split(r"[,;]|\bso\b", lexicon.rewrite(text))[1:]:
        if _BARE_REQUEST.match(clause):  # "I lost my card, freeze it right now"
            return True
        words = [t for t in lexicon.tokens(clause) if not t.is_stop]
        if words and words[0].concept in lexicon.ACTIONS:
            return True
    return False


# ("how do I get to the airport" asks for a route, no how-to)
_HOW_TO = re.compile(
    r"^\W*how (?:do|should|can|would) (?:i|we|one|you) (?!say\b|get (?:to|from|home)\b)\w+", re.IGNORECASE
)


# "I forgot my password": no story, but the reset asked for (``wordlists.PHRASES`` reads it so)
_PASSWORD_FORGOTTEN = re.compile(
    r"\b(?:forgot|forgotten|can't remember|cannot remember|lost) (?:my|our|the) password\b", re.IGNORECASE
)
_SPEAKER = re.compile(r"\W*(?:i|we)\b", re.IGNORECASE)
_OWNED = re.compile(r"\W*(?:my|our)\b", re.IGNORECASE)
# What the speaker cannot do, a reason beside a request: "I can't make yoga any more, drop it".
_CANNOT = re.compile(r"\W*(?:i|we) (?:can'?t|cannot|won'?t be able to|couldn'?t)\b", re.IGNORECASE)


# A request that names its object only by a pronoun, the thing said before: "check on it", "look into that".
_REFERS_BACK = re.compile(r"\b(?:it|that|this|them)\b(?!\s+(?:is|was|'s)\b)", re.IGNORECASE)


def without_told_reasons(text: str) -> str:
    """``text`` without the clauses that tell what happened, when a request is said beside them: "get rid
    of the phone case, I found my old one" asks for the removal, the finding is a reason."""
    clauses = [c for c in re.split(r"\s*[,;]\s*", text) if c.strip()]

    def told(clause: str) -> bool:
        # what befell the speaker's own thing is a reason too when they ask for something beside it: "my
        # order A12345 arrived broken, I want a refund" asks the refund, no look at the order
        if not (_PAST.match(clause) or _CANNOT.match(clause)) or _PASSWORD_FORGOTTEN.search(clause):
            return False
        others = [other for other in clauses if other is not clause]
        owned = _OWNED.match(clause) and any(requests(other) for other in others)
        if owned and not _SPEAKER.match(clause) and all(_REFERS_BACK.search(other) for other in others):
            # "my order 4411 never arrived, could you check on it?": the request's "it" is the thing the
            # clause names, so the clause says what the request is about, not why it is made
            return False
        return bool(_SPEAKER.match(clause) or owned)

    kept = [c for c in clauses if not told(c)]
    return ", ".join(kept) if kept and len(kept) < len(clauses) else text


def how_to(text: str) -> bool:
    """A how-to question ("how do I reset the opener?"): a lookup may answer it ("how do I make banana
    bread?" to a recipe search), a tool that changes something may not."""
    return bool(_HOW_TO.match(text.replace("’", "'")))


def done_already(text: str) -> bool:
    """A past action the speaker did themselves ("I already locked the front door myself"): no redo."""
    return bool(re.search(r"\b(?:already|myself|ourselves)\b", text, re.IGNORECASE))


def requests(text: str) -> bool:
    """``text`` has the form of a request ("can you …", "please …", "I need …"), even as a question."""
    return bool(_REQUEST_MARK.search(text))


def complains(text: str) -> bool:
    """``text`` complains ("too dark", "we're out of coffee"): an indirect request."""
    return bool(_COMPLAINT.search(text))


def wanted_instead(text: str) -> tuple[str, str] | None:
    """What the speaker does not want and what they want after it (("the weather", "just the time") of
    "I don't need the weather, just the time"), None when ``text`` opens with no such refusal or says
    nothing after it."""
    found = _UNWANTED_THEN.match(text.replace("’", "'"))
    return (found.group("refused"), found.group("wanted")) if found is not None else None


def negated(text: str) -> bool:
    """``text`` asks for something not to be done ("don't play it")."""
    text = text.replace("’", "'")
    return bool(
        _NEGATED.search(text)
        or _NOT_WANTED.search(re.sub(r"\s+(?:but|instead|just)\b.*$", ",", text))
        or _NOT_WANT_TO.search(text)
        and not _asks_after(text)
    )


# A value taken back as the right one is said: "not Paris, Berlin" (opening the text, a clause or a
# sentence: "Paris? Not in fahrenheit, celsius"), "in not Paris but Berlin" (the words
# after "not" up to the comma or "but"), "the weather not in Paris but in Berlin" (a place after "not"
# and before "but", after any word); and "Berlin, not Paris" or "for Berlin not Paris" at the end.
_NOT_THIS = re.compile(
    r"(?P<before>^\W*|[,;]\s*|[.!?]\s+|\b(?:in|at|for|to|from|on|with|no)\W+)not\s+"
    # "not urgent", "not too pricey": a value said by its opposite, nothing taken back
    r"(?!(?:now|yet|today|really|sure|quite|much|bad|at all|too|urgent|important|critical|expensive|pricey"
    r"|fancy)\b)(?:in\s+|at\s+|for\s+|on\s+)?"
    r"[\w'-]+(?:\s+[\w'-]+){0,2}?\s*(?:,\s*(?:but\s+)?|\s+but\s+|[.!?]\s+)(?:rather\s+|instead\s+)?"
    r"|(?P<inside>\s)not\s+(?:in|at|for|on|to|from)\s+[\w'-]+(?:\s+[\w'-]+){0,2}?\s+but\s+(?:rather\s+)?",
    re.IGNORECASE,
)
_BUT_NOT_THIS = re.compile(
    r"\s*,\s*(?:but\s+|and\s+)?not\s+(?:in\s+|at\s+|for\s+)?[\w'-]+(?:\s+[\w'-]+)?\W*$"
    r"|(?-i:\s+not\s+(?:in\s+|at\s+|for\s+)?[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?\W*$)",
    re.I,
)


_DICTATED = re.compile(r"\b(?:saying|that says|which says|to say|reading)\b|[:\"“]")


def corrected(text: str) -> str:
    """``text`` without the values it takes back ("what's the weather, not Paris, Berlin" → "what's the
    weather Berlin"; "in not Paris but Berlin" → "in Berlin"; "in Berlin, not Paris" → "in Berlin");
    "not now", "not sure" and other words after "not" that stand alone are kept."""

    def kept_before(found: re.Match[str]) -> str:
        before = found.group("before")
        if before is None:
            return found.group("inside")
        # "the weather, not Paris, Berlin": the value said instead stands where the one taken back did
        return " " if before.strip().startswith((",", ";")) and found.start() > 0 else before

    text = text.replace("’", "'")
    # words dictated ("a comment saying Femi starts on Monday not Tuesday", quoted, after a colon) are
    # taken as said: only what comes before them is corrected
    dictated = _DICTATED.search(text)
    head, tail = (text[: dictated.start()], text[dictated.start() :]) if dictated else (text, "")
    kept = (
        _BUT_NOT_THIS.sub("", _NOT_THIS.sub(kept_before, head))
        if not tail
        else _NOT_THIS.sub(kept_before, head)
    )
    kept += tail
    return kept if kept.strip(" ,.;!?") else text


# The OpenAI Agents SDKs' feedback when an output guardrail tripped, sent as a user message with a
# response.create: Python's "guardrail triggered: no_secrets", JavaScript's "⚠️ Your last answer was
# blocked. Failed Guardrail Reason: … Please respond again following policy. Apologize …"
# (@openai/agents-realtime getRealtimeGuardrailFeedbackMessage). Instructions to the model, no request.
GUARDRAIL_FEEDBACK = re.compile(r"^\W*(?:guardrail triggered|your last answer was blocked)\b", re.I)

_TRANSFER_VERB = re.compile(
    r"\b(?:transfer|connect|put|pass|hand|switch|route|forward|send|take|get|talk|speak|chat|go)\b.*"
    r"\b(?:to|with|over|through|back)\b",
    re.I,
)
_SOMEONE = re.compile(r"\b(?:agent|team|department|desk|specialist|expert|someone|person|human)s?\b", re.I)
_CLAUSES = re.compile(r"([.!?;,]+\s*|\s+(?:and|then)\s+)", re.I)


def without_transfer_request(text: str, agent: str) -> str:
    """``text`` without the clauses that asked to be handed to ``agent`` (its words, e.g. "weather
    agent"), or to some agent, team or person: "Transfer me to the weather agent, what's it like in
    Rome?" → "what's it like in Rome?"; "" when the words asked for nothing else."""
    names = set(agent.lower().split()) - {"agent"}
    pieces = _CLAUSES.split(text)
    kept: list[str] = []
    for index in range(0, len(pieces), 2):
        clause = pieces[index]
        words = set(re.findall(r"[a-z0-9']+", clause.lower()))
        asks = _TRANSFER_VERB.search(clause) and ((names and names <= words) or _SOMEONE.search(clause))
        if not asks:
            kept.append(clause + (pieces[index + 1] if index + 1 < len(pieces) else ""))
    return "".join(kept).strip()


# Thanks and farewells are answered as such only when the message is nothing else: "Thanks, see you
# tomorrow!" is one, "Can you thank Ana for the notes and see you if she replies" asks for something.
_THANKS = r"(?:thanks|thank\s+you|many\s+thanks|cheers)(?:\s+(?:so|very)\s+much|\s+a\s+(?:lot|bunch|ton))?"
_THANKS += r"(?:\s+again)?(?:\s+for\s+(?:your|the|all(?:\s+the|\s+your)?|that|this|it|everything|helping)\b"
_THANKS += r"[^.!?,;]{0,30})?"
_FAREWELL = (
    r"(?:(?:good\s*bye|bye(?:\s*bye)?)(?:\s+then)?|bye\s+for\s+now|see\s+(?:you|ya)(?:\s+(?:later|soon|tomorrow|tonight|then|around"
    r"|next\s+(?:time|week|month)|on\s+\w+day))?|talk\s+(?:to\s+you\s+)?(?:later|soon|tomorrow)|take\s+care"
    r"|good\s+night|have\s+a\s+(?:nice|good|great|lovely)\s+(?:day|one|evening|night|weekend))"
)
# What may stand beside them in such a message: an acknowledgement ("ok", "that's all").
_BESIDE = (
    r"(?:ok(?:ay)?|great|cool|perfect|awesome|alright|all\s+right|wonderful|excellent|nice|lovely|good|oh|ah|well"
    r"|no|yes|yeah|sure|that(?:'s|\s+is|\s+was)\s+(?:(?:really|very|so)\s+)?(?:all|it|enough|great|perfect|fine"
    r"|good|helpful|everything|cool|nice|awesome|amazing|lovely|brilliant)(?:\s+for\s+now)?)"
)


def _only_social(kind: str) -> re.Pattern[str]:
    """A message made only of thanks and farewells (at least one of ``kind``) and acknowledgements."""
    named = r"(?:,?\s+(?-i:[A-Z][a-z]+))?"  # "Thanks, Ana", "Bye Sam"
    part = rf"(?:(?:{_THANKS}|{_FAREWELL}){named}|{_BESIDE})"
    gap = r"(?:\s*[,.!;]+\s*|\s+(?:and\s+)?)"
    return re.compile(rf"^\W*(?:{part}{gap})*{kind}{named}(?:{gap}{part})*\W*$", re.I)


ONLY_THANKS = _only_social(_THANKS)
ONLY_FAREWELL = _only_social(_FAREWELL)


def without_closing(text: str) -> str:
    """``text`` without a closing remark ("thanks, that's all for now"): its "all" is no enum value."""
    return _CLOSING.sub(" ", text.replace("’", "'"))


def not_asking(text: str) -> str | None:
    """Why ``text`` (cleaned) asks for no call, or None when it may ask for one."""
    text = text.replace("’", "'")
    if GUARDRAIL_FEEDBACK.search(text):
        return "an output guardrail's feedback"
    if negated(text):
        return "a request not to act"
    if _DISMISSED.fullmatch(text.strip()) or _DISMISSED.fullmatch(without_closing(text).strip() + " "):
        return "a dismissal"
    if not without_closing(text).strip(" ,.!?"):
        return "a closing remark"
    if ONLY_THANKS.search(text) or ONLY_FAREWELL.search(text):  # "see you later" searches for nothing
        return "thanks or a farewell"
    if _UNDECIDED.search(text) and not _REQUEST_MARK.search(text) and not _asks_after(text):
        return "thinking aloud"
    if _ABOUT_THE_APP.search(text):
        return "a question about the assistant"
    if questions.general(text):  # "what temperature should jeans be washed at?"
        return "a question of general advice"
    rewritten = lexicon.rewrite(text)  # "do you have any tea" is a search, rewritten
    if _QUESTION_ONLY.search(rewritten):
        return "a question for the participant"
    if _QUESTION.search(rewritten) and _ABOUT_YOU.search(rewritten) and not _REQUEST_MARK.search(text):
        return "a question for the participant"
    if is_remark(text) and not _COMPLAINT.search(text):
        return "a remark, not a request"
    return None


# A clause that asks, after one that does not: "not sure, what's the weather in Paris?"
_LATER_ASKS = re.compile(
    r"[,;.!?]\s*(?:so\s+|then\s+)?(?:what|what's|where|where's|when|how|how's|which|who|is|are|do|does)\b"
    r"[^,;.!]*\?\s*$",
    re.IGNORECASE,
)


def _asks_after(text: str) -> bool:
    """After thinking aloud, a later clause asks a question or for an action ("I don't know, book a
    table for two")."""
    return bool(_LATER_ASKS.search(text)) or then_asks(text)


def _measured_then(text: str) -> bool:
    """A measurement told in the past ("he was 7.8 kilos at the clinic"): a record to keep, no remark."""
    return bool(re.search(r"\b(?:was|were)\b", text, re.I)) and any(
        k.startswith("unit:") for k in scalars.value_kinds(text)
    )


def is_remark(text: str) -> bool:
    """A statement of how something is, with no request marker in it ("the lights are really nice"); one
    whose quality is an action's ("that's done now") reports a change the app can make."""
    return remark_quality(text) is not None


_WHEN_IT_IS = re.compile(
    r"\b(?:is|are|'s)\s+(?:on|at|this|next|tomorrow|today|tonight|in \w+ (?:days|weeks))\b", re.IGNORECASE
)


def remark_quality(text: str) -> str | None:
    """What a remark says something is ("too cold" of "the room is too cold"), None for no remark."""
    first = re.split(r"[,;.!?]", text, maxsplit=1)[0]
    remark = _REMARK.match(first)
    if remark is None or _measured_then(first):
        return None
    # an action said after the subject; "screen" says where, it asks for no state ("slick on the big screen")
    if any(t.concept in lexicon.ACTIONS - {"state"} for t in lexicon.tokens(first[remark.end() :])):
        return None
    # when a thing of the speaker's is ("my physics exam is on the 20th of March"): a date to keep
    if re.match(r"\W*(?:my|our)\b", first, re.I) and _WHEN_IT_IS.search(first):
        return None
    opening = lexicon.tokens(first[: remark.end()])[:1]
    if any(t.concept in lexicon.ACTIONS or t.lower in LIGHT_VERBS for t in opening):
        return None  # "show me what is on": a request with a clause inside ("this show is boring" is not)
    rest = text[len(first) :]
    asks_after = bool(re.search(r"[,;.]\s*(?:please\s+)?[a-z]+\b", rest)) and not rest.strip().endswith("?")
    if _REQUEST_MARK.search(text) or asks_after or "?" in text:
        return None
    return first[remark.end() :].strip()
