"""Requests for content the assistant itself produces: a story, a joke, a poem, an explanation, a summary.

A model writes these itself; it calls no tool for them unless a tool says it makes that content ("Tell
the user a joke", ``summarize_document``). "Tell me a long story about the sea." with the voice-client
spec's tools declared gave ``show_details {"card": "long story"}`` ("about" is a word of details); it is
a story now, told in words. The form is read, never a tool's vocabulary: a verb of telling or making
("tell", "write", "give", "sing", "make up", "come up with", "do you know") with an optional "me/us" and
determiner before one of the content nouns, or a verb that is the content itself ("explain …",
"summarise …", "sum up …", "recap …").

An explanation or a summary *of something the app holds* is still a request for it: "summarise my
unread emails" reads the emails first, as a model calls the lookup before it summarises. So for those two
kinds a tool that declares a word of the topic (what follows the noun or the verb) stays allowed
(``evidence.allows``).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from mockengine.brain import lexicon

# kind → the words a tool declares when it makes that content itself (its name or description)
_KIND_WORDS: dict[str, tuple[str, ...]] = {
    "story": ("story", "stories", "tale", "fable", "anecdote", "storytelling"),
    "joke": ("joke", "jokes", "pun", "puns", "riddle", "riddles", "funny"),
    "poem": ("poem", "poems", "poetry", "haiku", "limerick", "sonnet", "rhyme", "verse", "lyric", "lyrics"),
    "song": ("song", "songs", "lullaby", "sing"),
    "explanation": ("explain", "explanation", "explains", "define", "definition"),
    "summary": ("summary", "summarise", "summarize", "summaries", "recap", "overview", "tldr"),
    "fact": ("fact", "facts", "trivia"),
}
_NOUNS: dict[str, str] = {
    "story": "story",
    "stories": "story",
    "tale": "story",
    "tales": "story",
    "fable": "story",
    "anecdote": "story",
    "joke": "joke",
    "jokes": "joke",
    "pun": "joke",
    "puns": "joke",
    "riddle": "joke",
    "riddles": "joke",
    "poem": "poem",
    "poems": "poem",
    "haiku": "poem",
    "limerick": "poem",
    "limericks": "poem",
    "sonnet": "poem",
    "rhyme": "poem",
    "song": "song",
    "lullaby": "song",
    "explanation": "explanation",
    "summary": "summary",
    "recap": "summary",
    "overview": "summary",
    "fact": "fact",
    "facts": "fact",
}
# Verbs of telling or making; not "share", "hear", "got", "play" ("share the story with Bob", "let me hear
# that song again", "I got a song stuck in my head, play it" ask an app's tools).
_TELLING = (
    r"(?P<verb>tell|write|give|sing|compose|recite|read|make\s+up|come\s+up\s+with|think\s+of|invent"
    r"|know)"
)
# A song is made by singing or writing it; "give me a song" asks a player for one.
_SONG_VERBS = frozenset(("sing", "write", "compose"))
# between the verb and the noun: "me", "a", "long", "one of your", "really short" — no preposition that
# would make the noun a card's title ("tell me about the story project")
_BETWEEN = r"(?:\s+(?!(?:about|on|in|from|for|to|with|and)\b)[a-z'-]+){0,4}?"
_NOUN = r"(?P<noun>" + "|".join(sorted(_NOUNS, key=len, reverse=True)) + r")"
# The request opens its sentence or clause, after politeness: "remind me to tell Tom a joke" is a
# reminder, not a joke.
_OPENING = (
    r"(?:^|[.!?,;:]\s*)\W*(?:(?:please|so|ok|okay|now|hey|hi|and|also|then|can|could|would|will|you|u|just"
    r"|quickly|briefly|i\s+want|i'd\s+like|i\s+need|to|do|did|go\s+on)\b[\s,]*)*"
)
_MADE = re.compile(rf"{_OPENING}{_TELLING}\b{_BETWEEN}\s+{_NOUN}\b(?P<topic>.*)", re.IGNORECASE)
_CONTENT_VERB = re.compile(
    rf"{_OPENING}(?P<verb>explain|summari[sz]e|sum\s+up|recap|define)\b(?P<topic>.*)", re.IGNORECASE
)


@dataclass(frozen=True)
class Composed:
    """A request for content: its ``kind`` ("story", "joke", "poem", "song", "explanation", "summary",
    "fact") and the words of its ``topic`` ("about the sea")."""

    kind: str
    topic: str


def requested(text: str) -> Composed | None:
    """The content ``text`` asks the assistant to produce, or None. "Tell me a long story about the sea." →
    story; "write a haiku about autumn" → poem; "can you explain how tides work" → explanation; "tell me
    more about this one" asks for no content (no content noun)."""
    made = _MADE.search(text)
    if made is not None:
        kind = _NOUNS[made.group("noun").lower()]
        verb = made.group("verb").lower().split()[0]
        if kind != "song" or verb in _SONG_VERBS or verb == "make":
            return Composed(kind, made.group("topic").strip(" .!?"))
    verb = _CONTENT_VERB.search(text)
    if verb is not None:
        word = verb.group("verb").lower()
        kind = "explanation" if word in ("explain", "define") else "summary"
        return Composed(kind, verb.group("topic").strip(" .!?"))
    return None


def makes(kind: str, declared: frozenset[str]) -> bool:
    """A tool whose declared concepts (``intent.vocabulary_of``) name this content makes it itself."""
    return any(lexicon.concept(word) in declared for word in _KIND_WORDS.get(kind, (kind,)))


def about_the_app(composed: Composed, declared: frozenset[str]) -> bool:
    """An explanation or summary of something the tool declares ("summarise my unread emails" to a mail
    app): the tool is still what it is read from."""
    if composed.kind not in ("explanation", "summary"):
        return False
    topic = {t.concept for t in lexicon.tokens(composed.topic) if not t.is_stop}
    return bool(topic & declared)


# What the assistant makes when asked: a short poem (a song's words are one too), a story, an
# explanation. Deterministic per seed (the caller's ``random.Random`` picks the form); the subject is the
# request's topic with its pronouns turned to the listener ("my cat" → "your cat"), never the request's
# own words echoed ("I heard you say write a poem about the sea").
_POEMS = (
    (
        "{Subject}, in the early light —",
        "more than words can say;",
        "you stay with me all through the night",
        "and walk with me all day.",
    ),
    (
        "I wrote these lines for {subject},",
        "to keep a little while:",
        "a quiet thought, a gentle part",
        "of every passing mile.",
    ),
    (
        "Think of {subject} and you will find",
        "a story softly told,",
        "a little warmth to ease the mind,",
        "a little light, like gold.",
    ),
)
_HAIKU = (
    ("{Subject} —", "a small, bright moment", "the whole day keeps close."),
    ("Quiet as morning,", "{subject} waits for me", "where the path begins."),
)
_SHORT_FORMS = frozenset(("haiku",))
_DEFAULT_SUBJECTS = ("the morning", "the sea", "a quiet day")
_EXPLANATIONS = (
    "Here's the short version of {subject}: it comes down to a cause and its effects. Something sets "
    "it going, a few steps follow from one another, and what you notice at the end is the sum of them.",
    "Put simply, {subject} is a few parts working together. Each does one small job, and together "
    "they give the result you see; once you know the parts, the whole makes sense.",
)
_STORY = (
    "Here is a story about {subject}. Once, not long ago, a small town by the sea heard news of "
    "{subject}. Nobody knew quite what to expect, so everyone waited and watched. In the end it all "
    "turned out better than anyone had hoped, and the town still tells the tale on long winter evenings."
)
# Said to the listener: the requester's words about themselves become "you", "your".
_TO_LISTENER = {
    "my": "your",
    "me": "you",
    "i": "you",
    "i'm": "you're",
    "mine": "yours",
    "myself": "yourself",
    "our": "your",
    "us": "you",
    "we": "you",
    "ours": "yours",
}
# What a topic ends with that is no part of it: "explain tides to me like I'm five", "… please".
_TOPIC_TAIL = re.compile(
    r"(?:\s+(?:to me|to us|for me|for us|please|briefly|quickly|in simple terms|simply|in a nutshell"
    r"|like i'?m (?:five|5|a child)|in (?:a few|one or two|two) (?:words|lines|sentences)))+$",
    re.IGNORECASE,
)
_TOPIC_LEAD = re.compile(r"^(?:about|on|of|regarding|for|called|titled)\s+", re.IGNORECASE)
_SUMMARIES = (
    "In short, {subject} comes down to three things: how it began, what changed along the way, and what "
    "it left behind.",
    "Here's the gist of {subject}: a beginning that set things going, a turning point, and an outcome "
    "that still matters.",
)
_FACTS = (
    "Here's a fun fact about {subject}: there's a lot more to it than most people think, and the "
    "details surprise nearly everyone who looks into them.",
    "A fun fact about {subject}: people have wondered about {subject} for a very long time, and there's "
    "still more to learn.",
)
# "summarise what we talked about", "a recap of our conversation", "sum up so far": the conversation itself
_THE_CONVERSATION = re.compile(
    r"^(?:(?:of|about)\s+)?(?:what (?:we|you and i|i) (?:have |'ve )?(?:talked|spoke|spoken|said|discussed)"
    r"(?: about)?(?: so far)?|(?:our|the|this) (?:conversation|chat|discussion|call)(?: so far)?|so far"
    r"|everything(?: so far)?|it all|that)$",
    re.IGNORECASE,
)
MADE_KINDS = frozenset(("poem", "song", "story", "explanation", "summary", "fact"))


def subject_of(composed: Composed) -> str:
    """The subject of a request for content, said to the listener ("about my cat" → "your cat",
    "how tides work to me" → "how tides work"); "" when none was said."""
    return " ".join(_TO_LISTENER.get(w.lower(), w) for w in _topic_words(composed).split())


def _topic_words(composed: Composed) -> str:
    """The request's topic as said, without its lead ("about") and tail ("to me", "please")."""
    topic = _TOPIC_TAIL.sub("", composed.topic.strip(" .!?,")).strip()
    return _TOPIC_LEAD.sub("", topic).strip()


def of_the_conversation(composed: Composed) -> bool:
    """A summary of the conversation itself ("summarise what we talked about", "a recap so far")."""
    if composed.kind != "summary":
        return False
    return bool(_THE_CONVERSATION.match(_topic_words(composed) or "so far"))


# How many of the user's earlier phrases a summary of the conversation quotes (the last ones).
QUOTED_SAID = 3


def made(composed: Composed, text: str, rng: random.Random, earlier: tuple[str, ...] = ()) -> str | None:
    """The content itself for ``MADE_KINDS``, else None: "Here's a short poem about the sea:" and four
    lines of it (three for a haiku); a story about the subject; an explanation of it in two sentences; a
    summary of it in one, or of the conversation (``earlier``: what the user said before, oldest first, as
    echoed phrases; the last ``QUOTED_SAID`` are quoted); a fun fact.
    ``text``: the request as said (its form: "haiku")."""
    if composed.kind not in MADE_KINDS:
        return None
    subject = subject_of(composed)
    if composed.kind == "explanation":
        return rng.choice(_EXPLANATIONS).format(subject=subject or "it")
    if of_the_conversation(composed):
        if not earlier:
            return "There isn't much to sum up yet: we've only just started."
        shown = [f'"{said[0].upper()}{said[1:]}"' for said in earlier[-QUOTED_SAID:]]
        listed = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])}, then {shown[-1]}"
        return f"So far you've said {listed}."
    if composed.kind == "summary":
        return rng.choice(_SUMMARIES).format(subject=subject or "it")
    if composed.kind == "fact":
        return rng.choice(_FACTS).format(subject=subject or "the world")
    subject = subject or rng.choice(_DEFAULT_SUBJECTS)
    if composed.kind == "story":
        return _STORY.format(subject=subject)
    short = bool(_SHORT_FORMS & {w.lower() for w in re.findall(r"[A-Za-z]+", text)})
    lines = rng.choice(_HAIKU if short else _POEMS)
    capital = subject[0].upper() + subject[1:]
    poem = "\n".join(line.format(subject=subject, Subject=capital) for line in lines)
    what = "haiku" if short else "song" if composed.kind == "song" else "poem"
    return f"Here's a short {what} about {subject}:\n{poem}"
