"""Everything the participant says by itself: short, plain sentences that are quick to synthesize.

Replies stay within two sentences and about 25 words. Where several phrasings exist the caller's seeded
``random.Random`` picks one, so a session replays identically while different seeds vary.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence
from typing import Any

from mockengine.brain import composing, facts, lexicon, names, things, utterance
from mockengine.brain.context import ContextEvent, QuestionContext

ECHO_WORDS = 8
ECHO_MAX = 12  # a sentence up to this long is echoed whole; a longer one is cut at a phrase's end
# An echo is cut at the last space before this many characters, or here when it is one unspaced run (a
# pasted base64 blob, a URL, CJK text): a few seconds of speech, not the whole acted tail.
ECHO_MAX_CHARS = 120
_PHRASE_OPENERS = frozenset(
    (
        "and",
        "but",
        "or",
        "so",
        "because",
        "then",
        "to",
        "for",
        "in",
        "on",
        "at",
        "with",
        "from",
        "about",
        "by",
    )
)
NOT_HEARD = "Sorry, I didn't catch that. Could you say it again?"
# What a response's own instructions get when the words were answered already and the instructions say
# nothing the participant can follow ("Do the thing we discussed"): an acknowledgement, never the last
# answer again (our choice of words).
INSTRUCTIONS_ACKNOWLEDGED = "Sure. What else can I help you with?"
# A sentence of instructions that only shapes how a reply is said ("Be brief.", "Speak like a pirate.",
# "Use a friendly tone.", "Respond in Spanish.", "Don't mention prices."): the reply is still the answer.
_SHAPING = re.compile(
    r"^\W*(?:please\s+)?(?:always\s+|only\s+|never\s+|don[’']?t\s+|do\s+not\s+)?"
    r"(?:be|speak|talk|sound|use|keep|stay|remain|respond|reply|answer|write|act|avoid|mention|limit|make"
    r"|you\s+are|you're|your\s+(?:tone|style|answers?|replies|responses?)|in\s+(?:a|an|one|two|three|short))\b",
    re.IGNORECASE,
)


def only_shapes(instructions: str) -> bool:
    """Every sentence of ``instructions`` only shapes how the reply is said (``_SHAPING``): the reply to
    the words stands, as a model answers the conversation in that manner."""
    sentences = [sentence for sentence, _ in _sentences(instructions) if sentence.strip()]
    return bool(sentences) and all(_SHAPING.match(sentence) for sentence in sentences)


_QUESTION_OPENERS = frozenset(
    (
        "what",
        "who",
        "whom",
        "whose",
        "where",
        "when",
        "why",
        "how",
        "which",
        "is",
        "are",
        "am",
        "was",
        "were",
        "do",
        "does",
        "did",
        "can",
        "could",
        "would",
        "will",
        "should",
        "shall",
        "may",
        "might",
        "have",
        "has",
    )
)
_LOWERABLE = _QUESTION_OPENERS | frozenset(
    (
        "the",
        "a",
        "an",
        "my",
        "your",
        "our",
        "their",
        "his",
        "her",
        "this",
        "that",
        "these",
        "those",
        "it",
        "it's",
        "we",
        "you",
        "they",
        "he",
        "she",
        "there",
        "here",
        "please",
        "let's",
        "so",
        "and",
        "but",
        "or",
        "if",
        "yes",
        "no",
        "not",
        "maybe",
        "well",
        "oh",
        "ok",
        "okay",
        "tell",
        "give",
        "send",
        "say",
        "rate",
        "pick",
        "choose",
        "describe",
        "look",
        "i'd",
        "today",
        "yesterday",
    )
)
GUARDRAIL_APOLOGY = "Sorry, I can't help with that."
# A handoff's new agent when the words only asked for it ("transfer me to the weather agent").
HANDED_OVER = (
    "Hi, you're through to the {agent}. How can I help?",
    "This is the {agent}. What can I do for you?",
)
# A handoff's new agent when the words asked it for something it has no tool or answer for ("I want a
# refund"): it introduces itself and takes the request up, as a model does (the words were echoed).
TAKEN_UP = (
    "Hi, you're through to the {agent}. I can help with that. Could you tell me a bit more?",
    "This is the {agent}. I can help with that. What are the details?",
)
# "Greetings!" greets; "Greetings from Paris!" sends someone's.
_HELLO = re.compile(
    r"^\W*(?:hello|hi|hey|greetings(?!\s+(?:from|of|to)\b)|good\s+(?:morning|afternoon|evening))\b", re.I
)


def greets(words: str) -> bool:
    """``words`` open with a greeting ("hi", "hello?", "good morning", "greetings")."""
    return _HELLO.match(words) is not None


_SOCIAL: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    # The OpenAI Agents SDKs' word when an output guardrail tripped (utterance.GUARDRAIL_FEEDBACK): an
    # apology, not an echo, which would repeat what tripped it and trip it again, turn after turn.
    (utterance.GUARDRAIL_FEEDBACK, (GUARDRAIL_APOLOGY, "I'm sorry, I can't go into that.")),
    (_HELLO, ("Hi, I'm {persona}. Nice to meet you.", "Hello! I'm {persona}, good to hear you.")),
    (utterance.ONLY_THANKS, ("You're welcome.", "No problem at all.")),
    (utterance.ONLY_FAREWELL, ("Goodbye, talk to you soon.", "Bye for now.")),
)
_STORY_REQUEST = re.compile(r"\b(?:tell|give|read)\b.*\bstory\b(?:\s+about\s+(?P<topic>[^.?!,]+))?", re.I)
# Deliberately long (about 20 s of speech): a story request is how clients test barge-in and cancel.
_STORY = (
    "Here is a story about {topic}. Every evening a light was lit at dusk, and it swept across the dark "
    "water until morning. One stormy night a small boat lost its way among the rocks. The beam found it "
    "just in time, and the crew followed it safely home. After that, the whole town came to say thank you."
)
_JOKE = "Parallel lines have so much in common, it's a shame they'll never meet."
_ASKED = ("You asked {echo}.", "So you're asking {echo}.")
_UNKNOWN_ANSWER = ("I'm not sure, to be honest.", "I don't know that one, sorry.", "Hmm, I'd have to think.")
_SAID = ("You said {echo}.", "I heard you say {echo}.")
_FOLLOW_UP = ("That sounds interesting.", "Tell me more.", "I see what you mean.")
_ACCEPTED = ("Done, I've submitted that.", "Okay, that's submitted.", "Great, that went through.")
_CHAT_SENT = ("I've sent that message.", "Okay, message sent.")
_COLOUR = ("It's {colour}.", "The image is {colour}.")
_TEXT_ANSWERS = (
    "It went well, and the conversation felt friendly.",
    "I think it was fine overall.",
    "My partner seemed warm and easy to talk to.",
)
_DIRECTIVE_QUOTED = re.compile(r"say exactly\s*:?\s*[\"“](?P<text>[^\"”]+)[\"”]", re.IGNORECASE)
_DIRECTIVE_LINE = re.compile(r"say exactly\s*:\s*(?P<text>[^\n\"“]+)", re.IGNORECASE)
# A request for a transcript of what the user said (the OpenAI cookbook's out-of-band transcription
# prompt: "Your only job is to transcribe exactly what the user said in their most recent spoken turn"):
# "transcribe" with the user or their words near it; a verbatim/literal transcript, or a transcript(ion),
# of the user's words; "repeat … word for word … what the caller said". A clause at most: "The transcript
# may contain errors; answer the user" or "a transcription company's agent" ask for none.
_SPEAKER = r"(?:user|caller|customer|speaker)"
_WHO = r"(?:user|caller|customer|speaker|utterance|turn|speech|said|spoke)"
_TRANSCRIPT_ASKED = re.compile(
    rf"\btranscrib(?:e|ing)\b[^.;\n]{{0,80}}\b{_WHO}"
    rf"|\b(?:verbatim|literal|exact|word[- ]for[- ]word)\b[^.;\n]{{0,40}}"
    rf"\btranscri(?:pt|ption)\b\s+(?:of|for)\b[^.;\n]{{0,40}}\b{_WHO}"
    rf"|\btranscri(?:pt|ption)\s+of\s+(?:the\s+|their\s+|what\s+the\s+)?{_SPEAKER}"
    rf"|\brepeat\b[^.;\n]{{0,40}}\b(?:word[- ]for[- ]word|verbatim)\b[^.;\n]{{0,60}}\b{_SPEAKER}\b"
    rf"[^.;\n]{{0,20}}\b(?:said|says|spoke)\b",
    re.IGNORECASE,
)


def pick(rng: random.Random, templates: tuple[str, ...], **values: Any) -> str:
    return rng.choice(templates).format(**values)


_WHOM = r"(?:the (?:user|caller|customer|participant|listener)|them|him|her)"
# "Please", "now", "then" and a manner ("Briefly thank the user…", "Politely tell the user…") first.
_PLEASE = r"^\W*(?:please\s+|now\s+|then\s+|[a-z]+ly,?\s+)*"
_FAREWELL = re.compile(_PLEASE + r"(?:say goodbye|say bye|thank " + _WHOM + r"|wish .* goodbye)\b", re.I)
_TELL = re.compile(
    _PLEASE
    + r"(?:tell|inform|remind|let)\s+"
    + _WHOM
    + r"\s*[:,]?\s+(?:know\s*[:,]?\s+)?(?:that\s+)?(?P<what>.+)",
    re.I,
)
_ASK_IF = re.compile(_PLEASE + r"ask\s+" + _WHOM + r"\s+(?:if|whether)\s+(?P<what>.+)", re.I)
_ASK_FOR = re.compile(_PLEASE + r"ask\s+" + _WHOM + r"\s+(?P<prep>for|about)\s+(?P<what>.+)", re.I)
# What "ask the user about …" is about, and the question a model asks of it: a stretch of time or an
# event the user has had ("their weekend", "their trip") is asked how it was; a favourite what it is;
# any other topic is asked to be told about (asking "about" a thing is not asking for it: "Could you
# tell me your weekend?" is no question a person asks).
_HAD = (
    r"weekend|day|week|morning|afternoon|evening|night|trip|holiday|holidays|vacation|journey|flight|stay"
    r"|visit|meeting|appointment|interview|exam|birthday|party|break|summer|winter|commute|shift|class|game"
)
_ABOUT_HAD = re.compile(rf"^(?P<whose>your|the)\s+(?P<what>(?:[a-z]+\s+)?(?:{_HAD}))$", re.I)
_ABOUT_FAVOURITE = re.compile(r"^your\s+(?P<what>favou?rite\s+[\w\s-]+)$", re.I)
# "Ask the user how their day is going." → "Could you tell me how your day is going?"
_ASK_WH = re.compile(
    _PLEASE + r"ask\s+" + _WHOM + r"\s+(?P<what>(?:how|what|when|where|which|who|why)\b.+)", re.I
)
# 'Ask the user: "Which city would you like the weather for?"': the question as it is written
_ASK_QUOTED = re.compile(
    _PLEASE + r"ask(?:\s+" + _WHOM + r")?\s*[:,]?\s*[\"“](?P<text>[^\"”]+\?)\s*[\"”]", re.I
)
_APOLOGY = re.compile(_PLEASE + r"apologi[sz]e\b(?:\s+to\s+" + _WHOM + r")?(?:\s+for\s+(?P<what>.+))?", re.I)
# In instructions "you" is the assistant: what it is told to tell the user of itself it says as "I"
# ("Tell the user you are looking that up." → "I'm looking that up."). Applied before _TO_THE_USER, whose
# "you" is the user's. "Thank you" stays a thanks.
_YOU_DO = r"(?=\s+(?:can|could|can't|cannot|couldn't|will|won't|would|wouldn't|should|shall|have|had"
_YOU_DO += r"|do|don't|did|didn't|may|might|must|need|want|hope|think|know|just|also|still|already|now)\b)"
_TO_THE_ASSISTANT = (
    (re.compile(r"\byou are\b|\byou're\b", re.I), "I'm"),
    (re.compile(r"\byou were\b", re.I), "I was"),
    (re.compile(r"\byou'(ll|ve|d)\b", re.I), r"I'\1"),
    (re.compile(r"\byourself\b", re.I), "myself"),
    (re.compile(r"\byours\b", re.I), "mine"),
    (re.compile(r"\byour\b", re.I), "my"),
    (re.compile(r"^you\b|\byou" + _YOU_DO, re.I), "I"),
    (re.compile(r"(?<!\bthank )\byou\b", re.I), "me"),
)
_YES_NO_AUX = re.compile(r"^you\s+(are|were|can|could|will|would|should|have been)\s+(.*)$", re.I)
_TO_THE_USER = (
    (re.compile(r"\bthe (?:user|caller|customer|participant|listener)'s\b", re.I), "your"),
    (re.compile(r"\bthe (?:user|caller|customer|participant|listener)\b", re.I), "you"),
    (re.compile(r"\bthey're\b", re.I), "you're"),
    (re.compile(r"\bthey are\b", re.I), "you are"),
    (re.compile(r"\bthey were\b", re.I), "you were"),
    (re.compile(r"\bthey have\b", re.I), "you have"),
    (re.compile(r"\bthey've\b", re.I), "you've"),
    (re.compile(r"\bthey\b", re.I), "you"),
    (re.compile(r"\btheir\b", re.I), "your"),
    (re.compile(r"\bthem\b", re.I), "you"),
    (re.compile(r"\bthemselves\b", re.I), "yourself"),
    (re.compile(r"\byou is\b", re.I), "you are"),
)
_GREETINGS = ("Hi, I'm {persona}. How can I help you today?", "Hello! I'm {persona}. What can I do for you?")
# The same greetings to a user whose name is known, for instructions that ask for it ("Greet the user by
# name.", LiveKit's ``generate_reply(instructions=…)`` after a restored chat context): a model uses it.
_NAMED_GREETINGS = (
    "Hi {name}, I'm {persona}. How can I help you today?",
    "Hello {name}! I'm {persona}. What can I do for you?",
)
_BY_NAME = re.compile(
    r"\b(?:by|using|with|use|call(?:ing)? (?:them|him|her) by)\s+"
    r"(?:(?:their|his|her|the (?:user|caller|customer)'?s?)\s+)?(?:first\s+)?name\b",
    re.I,
)
_FAREWELLS = ("Thanks for talking with me. Goodbye!", "Thank you, and goodbye!")


def instructed(
    instructions: str, rng: random.Random, persona: str, known: str = "", user_name: str | None = None
) -> str | None:
    """What a response's own instructions tell the assistant to say, as a model follows them: "Greet the
    user warmly." → a greeting, "Greet the user with 'Welcome to Acme.'" → "Welcome to Acme."
    (``greeting``); "Tell the user their table is booked." → "Your table is booked."; "Ask the user if
    they are still there." → "Are you still there?"; "Ask the user for their email address." → "Could
    you tell me your email address?"; 'Ask the user: "Which city?"' → "Which city?"; "Say goodbye." → a
    farewell; "Tell the user the hours." → what ``known`` (the session's instructions) says of the hours,
    else that they are not to hand (``told_fact``). The first sentence of that form counts; None when
    none is (the instructions then only shape the reply, as before). ``user_name``: the name the user
    gave earlier, for a greeting "by name" (``greeting``)."""
    for sentence, rest in _sentences(instructions):
        said = greeting(rest, rng, persona, in_instructions=True, user_name=user_name)
        if said is not None:
            return said
        if _FAREWELL.search(sentence):
            return rng.choice(_FAREWELLS)
        quoted = _ASK_QUOTED.match(rest)
        if quoted is not None:
            return " ".join(quoted.group("text").split())
        apology = _APOLOGY.search(sentence)
        if apology is not None:
            why = _from_the_assistant((apology.group("what") or "").strip().rstrip(".!?").strip())
            return f"Sorry for {why}." if why else "Sorry about that."
        for pattern, shape in ((_ASK_IF, "yes_no"), (_ASK_FOR, "for"), (_ASK_WH, "for"), (_TELL, "tell")):
            match = pattern.search(sentence)
            if match is None:
                continue
            said_as = _to_the_user if shape == "yes_no" else _from_the_assistant
            words = match.group("what").strip().rstrip(".!?").strip()
            what = said_as(words)
            if not what:
                continue
            if shape == "tell" and what.lower().startswith("to "):  # "remind the user to bring their ID"
                return f"Remember {what}."
            asked = f"Tell me {what}"
            if shape == "tell" and (_STORY_REQUEST.search(asked) or composing.requested(asked)):
                # "Tell the user a story about a lighthouse." is made, as the words ask it; it was said
                # back ("A story about a lighthouse.").
                return reply_to_words(asked, rng, persona)
            if shape == "tell":
                # The further instruction is read as it was written: its own "you" and "their".
                line, then = _then_instruction(words)
                if then:
                    return _said_then(said_as(line), then, rng, persona, known)
                fact = told_fact(what, known)
                return fact if fact is not None else f"{what[0].upper()}{what[1:]}."
            if shape == "for" and match.groupdict().get("prep", "").lower() == "about":
                return _asked_about(what)
            if shape == "for":
                return f"Could you tell me {what}?"
            yes_no = _YES_NO_AUX.match(what)
            if yes_no is not None:
                return f"{yes_no.group(1).capitalize()} you {yes_no.group(2)}?"
            rest = what[4:] if what.lower().startswith("you ") else what
            return f"Do you {rest}?"
    return None


def _asked_about(topic: str) -> str:
    """The question "ask the user about ``topic``" asks (``topic`` already said to the user: "your
    weekend"): "How was your weekend?", "What's your favourite food?", else "Could you tell me about
    your order?"."""
    had = _ABOUT_HAD.match(topic)
    if had is not None:
        return f"How was {had.group('whose').lower()} {had.group('what')}?"
    favourite = _ABOUT_FAVOURITE.match(topic)
    if favourite is not None:
        return f"What's your {favourite.group('what')}?"
    return f"Could you tell me about {topic}?"


_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|\n+")


def _sentences(text: str) -> Iterator[tuple[str, str]]:
    """Each sentence of ``text`` with the text from its start to the end: a quoted greeting may hold
    sentences of its own ("Greet the user with 'Hi! I'm Sam.'")."""
    text = text.strip()
    start = 0
    for brk in (*_SENTENCE_BREAK.finditer(text), None):
        end = len(text) if brk is None else brk.start()
        sentence = text[start:end].strip()
        if sentence:
            yield sentence, text[start:]
        if brk is not None:
            start = brk.end()


# The Twilio samples' "AI speaks first" item, a user message: Greet the user with 'Hello there! I am …'.
# A user message is that request alone: the greeting runs greedily to the last quote, so the apostrophes
# of "I'm" inside it stay in it. In instructions more may follow it ("Greet the user with 'Welcome to
# Acme.' Then ask for their order number."): the greeting ends at the first quote that ends a sentence.
_GREET_WHOM = re.compile(_PLEASE + r"(?:greet|welcome)\s+" + _WHOM + r"\b", re.I)
_GREET_WITH = _PLEASE + r"(?:greet|welcome)\s+" + _WHOM + r"\s+(?:with|by saying)\s*:?\s*[\"'“‘]"
_GREET_WITH_QUOTED = re.compile(_GREET_WITH + r"(?P<text>.+)[\"'”’]\s*[.!]?\s*$", re.I | re.S)
# Instructions put the rule in more ways than a user message does: "Always greet the user with 'Welcome
# to Sakura!'", "Always start by saying \"Hello, thanks for calling.\"", "Begin every call with '…'",
# "Your first message should be: '…'", "When the call starts, greet callers with '…' and ask …".
_WHEN = r"(?:always|first(?: of all)?|to (?:begin|start)(?: with)?|at the (?:start|beginning)(?: of \w+ \w+)?"
_WHEN += r"|when (?:the|a|each|every) \w+ (?:starts|begins)|you (?:must|should|will))"
_OPENER = _PLEASE + r"(?:" + _WHEN + r"\W+)*"
_GREETED = (
    r"(?:the |all |every |each )?(?:users?|callers?|customers?|participants?|listeners?|guests?|visitors?"
    r"|patients?|clients?|people)|them|him|her|everyone|everybody"
)
_CONVERSATION = (
    r"(?:(?:the|each|every|your|a) (?:call|conversation|session|chat|interaction|reply|response)s? )?"
)
_OPENING_WITH = _OPENER + (
    r"(?:(?:greet|welcome)\s+(?:" + _GREETED + r")\s+(?:with|by saying)"
    r"|(?:start|begin|open)\s+"
    + _CONVERSATION
    + r"(?:by saying|with(?: the words)?|by greeting (?:"
    + _GREETED
    + r") with)"
    r"|your (?:first|opening) (?:message|words|line|sentence|reply|response|greeting)"
    r" (?:should be|must be|is|will be)"
    r"|(?:use|say) (?:this|the following) (?:greeting|opening(?: line)?))\s*:?\s*[\"'“‘]"
)
_OPENING_QUOTED = re.compile(
    _OPENING_WITH + r"(?P<text>.+?)[\"'”’](?=[,;]|\s*[.!]?\s*$|\s*[.!]?\s+(?:[A-Z\"“]|and\b|then\b))",
    re.I | re.M,
)
_OPENING = re.compile(
    _OPENER + r"(?:greet|welcome|say (?:hello|hi) to|introduce yourself"
    r"|(?:start|begin|open)\s+"
    + _CONVERSATION
    + r"by (?:greeting|welcoming|introducing yourself|saying (?:hello|hi)\b))\b",
    re.I,
)


def greeting(
    words: str,
    rng: random.Random,
    persona: str,
    *,
    in_instructions: bool = False,
    user_name: str | None = None,
) -> str | None:
    """What to say when ``words`` tell the assistant to greet the user, as a model follows them: the
    quoted greeting as given ("Greet the user with 'Welcome to Acme.'" → "Welcome to Acme."), else a
    greeting of its own ("Hi, I'm Sam. How can I help you today?"); None when they do not.

    A user message (the AI-speaks-first item of twilio-samples/speech-assistant-openai-realtime-api-python
    and -node, "Greet the user with 'Hello there! I am an AI voice assistant …'") must be the request
    alone and name whom to greet. Instructions (``in_instructions``: a response's or the session's, from
    a sentence's start to their end) may go on after it, and "Welcome the caller." or "Introduce
    yourself." counts too, as do the ways instructions make it a rule: "Always greet the user with
    '…'", "Always start by saying '…'", "Begin every call with '…'", "Your first message should be
    '…'". Words that ask to greet the user by name ("Greet the user by their name.") greet ``user_name``
    (the name they gave earlier, when known: "Hi Ana, I'm Sam. …")."""
    words = words.strip()
    quoted = (_OPENING_QUOTED if in_instructions else _GREET_WITH_QUOTED).match(words)
    if quoted is not None and quoted.group("text").strip():
        return quoted.group("text").strip()
    if (_OPENING if in_instructions else _GREET_WHOM).match(words):
        language = _IN_LANGUAGE.search(_SENTENCE_BREAK.split(words, maxsplit=1)[0])
        if language is not None:  # "Say hello to the user in French": as a model does, in French
            return _GREETINGS_IN[language.group(1).lower()].format(persona=persona)
        if user_name and _BY_NAME.search(words):
            return pick(rng, _NAMED_GREETINGS, persona=persona, name=user_name)
        return pick(rng, _GREETINGS, persona=persona)
    return None


# A greeting asked in another language ("Say hello to the user in French"): a model greets in it. Our
# words, one each (the languages an app most often names; any other gets the English greeting).
_GREETINGS_IN = {
    "french": "Bonjour ! Je suis {persona}. Comment puis-je vous aider ?",
    "spanish": "¡Hola! Soy {persona}. ¿En qué puedo ayudarte?",
    "german": "Hallo! Ich bin {persona}. Wie kann ich Ihnen helfen?",
    "italian": "Ciao! Sono {persona}. Come posso aiutarti?",
    "portuguese": "Olá! Eu sou {persona}. Como posso ajudar?",
    "dutch": "Hallo! Ik ben {persona}. Waarmee kan ik je helpen?",
    "japanese": "こんにちは！{persona}です。ご用件は何でしょうか？",
    "chinese": "你好！我是{persona}。有什么可以帮你的吗？",
}
_IN_LANGUAGE = re.compile(r"\bin\s+(" + "|".join(_GREETINGS_IN) + r")\b", re.IGNORECASE)


def greeting_in(instructions: str, rng: random.Random, persona: str) -> str | None:
    """The greeting the session's ``instructions`` ask for in one of their sentences (``greeting``), for
    a reply with nothing to answer (an app's first ``response.create``); None when they ask for none."""
    for _, rest in _sentences(instructions):
        said = greeting(rest, rng, persona, in_instructions=True)
        if said is not None:
            return said
    return None


def _to_the_user(words: str) -> str:
    """Words about the user, said to them: "their order" → "your order", "the user is" → "you are"."""
    for pattern, replacement in _TO_THE_USER:
        words = pattern.sub(replacement, words)
    return words


def _from_the_assistant(words: str) -> str:
    """Words an instruction says of the assistant ("you") and the user ("they"), said by the assistant to
    the user: "you'll transfer them to your colleague" → "I'll transfer you to my colleague"."""
    for pattern, replacement in _TO_THE_ASSISTANT:
        words = pattern.sub(replacement, words)
    return _to_the_user(words)


# Words a response's own instructions dictate: a sentence opening with say/read/repeat, then at most a
# few words saying how (exactly, the following, this, aloud, verbatim, to the user, in English, a tone,
# and nothing else), then a colon and the text, or the text in quotes ('Say "…"').
# "Reply with exactly: PONG" dictates as "Say exactly: PONG" does; a reply "with" something undictated
# ("Respond with a number between 0 and 100.") has no colon or quotes and dictates nothing.
_DICTATION_VERB = (
    r"(?:^|(?<=[.!?\n]))\s*(?:please\s+)?(?:say|read(?:\s+out)?|repeat|(?:reply|respond|answer)\s+with)\b"
)
_DICTATION_HOW = re.compile(
    r"^(?:\s*(?:,|and|then|exactly|precisely|verbatim|word[- ]for[- ]word|aloud|out\s+loud|back|only|just"
    r"|nothing\s+else|the\s+following(?:\s+(?:text|message|words?|sentence|line|announcement))?"
    r"|(?:this|these)(?:\s+(?:text|message|words?|sentence|line|announcement))?"
    r"|to\s+the\s+(?:user|caller|customer|listener)|in\s+[A-Za-z]+|(?:a\s+)?[\w-]+\s+(?:tone|voice|manner)"
    r"|[\w-]+ly))*\s*$",
    re.IGNORECASE,
)
_DICTATED_AFTER_COLON = re.compile(
    _DICTATION_VERB + r"(?P<how>[^:\n\"“”]{0,100}?):\s*(?P<text>\S[^\n]*(?:\n(?!\s*\n)[^\n]*)*)",
    re.IGNORECASE,
)
_DICTATED_QUOTED = re.compile(
    _DICTATION_VERB + r"(?P<how>[^\"“”\n]{0,60}?)\s*[\"“](?P<text>[^\"”]+)[\"”]", re.IGNORECASE
)
# A condition after the quoted words makes them a rule for later ('Say "Are you still there?" when the
# user is silent'): a response's own instructions are often the session's prompt sent again.
_CONDITION_AFTER = re.compile(
    r"[\s,]*(?:if|when|whenever|unless|once|only|after|before|as\s+soon\s+as|in\s+case|every\s+time"
    r"|each\s+time|should|to\s+(?:end|close|start|open)|at\s+the\s+(?:end|start))\b",
    re.IGNORECASE,
)


# A further instruction after the words to say: "Say: welcome to Acme, then ask for their name" dictates
# "welcome to Acme" only. The instruction is a verb a prompt gives the assistant after "then"; "we open at
# nine, then we close at five" is all words to say.
_THEN_INSTRUCTION = re.compile(
    r"\s*(?:[,;.]\s*(?:and\s+)?|\s+and\s+)then\b[,\s]*(?P<rest>(?:please\s+)?(?:ask|tell|let|greet|thank"
    r"|offer|confirm|check|wait|explain|find\s+out|say\s+goodbye|wish|remind|inform)\b.*)$",
    re.IGNORECASE | re.DOTALL,
)


def _then_instruction(text: str) -> tuple[str, str]:
    """``text`` cut where a further instruction starts ("welcome to Acme, then ask for their name" →
    ("welcome to Acme", "ask for their name")); ``(text, "")`` when none does."""
    match = _THEN_INSTRUCTION.search(text)
    if match is None or not text[: match.start()].strip():
        return text, ""
    return text[: match.start()].strip(), match.group("rest").strip()


def _said_then(line: str, then: str, rng: random.Random, persona: str, known: str = "") -> str | None:
    """The dictated ``line`` as a sentence, then what the further instruction ``then`` has said ("ask
    for their name" → "Could you tell me your name?"); None when that instruction is no question to the
    user it can say: asked of someone else ("then ask the front desk for a key", "then ask for Bob": words
    the user is told), or one it cannot word ("then ask how their day was", "then offer a discount") —
    the line is then said whole, never cut short of what it asked for."""
    if _ASKED_OF_ANOTHER.match(then):
        return None
    line = line.rstrip(" ,;")
    sentence = f"{line[0].upper()}{line[1:]}" + ("" if line[-1] in ".!?" else ".")
    # "then ask for their name" leaves the one asked unsaid: the user the line was said to.
    then = re.sub(
        r"^((?:please\s+)?ask)\s+(?=for\b|about\b|if\b|whether\b)", r"\1 the user ", then, flags=re.I
    )
    after = instructed(then, rng, persona, known)
    return f"{sentence} {after}" if after else None


# A thing to tell named by a bare noun phrase ("the hours", "our opening times", "your balance"), no clause:
# a fact to say, not words to say back ("The hours.").
_BARE_THING = re.compile(
    r"^(?P<det>the|our|your|its|my)\s+(?P<thing>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,2})$", re.IGNORECASE
)
_CLAUSE_WORDS = frozenset(
    (
        "is",
        "are",
        "was",
        "were",
        "will",
        "has",
        "have",
        "had",
        "can",
        "be",
        "been",
        "that",
        "to",
        "not",
        "got",
    )
)
# A sentence of the instructions that tells the model what to do rather than what is so.
_TO_THE_MODEL = re.compile(
    r"^(?:if|when|whenever|you|always|never|do|don't|use|call|be|ask|tell|say|answer|only|make|keep|remember"
    r"|try|avoid|please)\b",
    re.IGNORECASE,
)
# A sentence that says what a thing is ("The hours are posted on the door", "We're open 9 to 5"), not
# one that only names it ("Balance lookups require a PIN").
_SAYS_WHAT = re.compile(r"\b(?:is|are|was|were)\b|\w'(?:re|s)\b|\d", re.IGNORECASE)
# A label's value that sends the user elsewhere ("Opening hours: see the website.").
_POINTS_ELSEWHERE = re.compile(r"^(?:see|visit|check|call|ask|refer\s+to|go\s+to)\b", re.IGNORECASE)
_LABELLED = re.compile(r"^(?P<label>[A-Za-z][\w' -]{0,40}?)\s*:\s*(?P<value>\S.*)$")


def told_fact(what: str, known: str) -> str | None:
    """What to say for "tell the user <a thing>" when the thing is a bare noun phrase ("the hours", "our
    opening times"): the sentence of ``known`` (the session's instructions) that names it, as a model
    reads it off its prompt ("Opening hours: Mon–Fri 9am–5pm." → "Our opening hours are Mon–Fri
    9am–5pm."); else that it is not to hand ("I'm afraid I don't have the hours to hand."), never the
    thing's name said back as a sentence ("The hours."). None when ``what`` is no bare noun phrase
    ("their table is booked": a clause, said as it is). A mock knows no facts but those it is given."""
    found = _BARE_THING.match(what.strip())
    if found is None:
        return None
    words = found.group("thing").lower().split()
    if _CLAUSE_WORDS & set(words):
        return None
    named = {lexicon.stem(w) for w in words}  # "our opening hours" of "We're open 9 to 5"
    headed = False
    for sentence in _SENTENCE_BREAK.split(known):
        sentence = sentence.strip().lstrip("-*• ").strip()
        heading = sentence.startswith("#") or sentence.endswith(":")
        sentence = sentence.strip("#: ")
        if not sentence:
            continue
        stems = {lexicon.stem(w) for w in re.findall(r"[A-Za-z]+", sentence)}
        if heading:  # "# Hours" or "Opening hours:" on its own line: the next line says them
            headed = bool(named & stems)
            continue
        if headed and not _TO_THE_MODEL.match(sentence):
            return sentence[0].upper() + sentence[1:] + ("" if sentence[-1] in ".!?" else ".")
        headed = False
        if not named & stems:
            continue
        if _TO_THE_MODEL.match(sentence):
            continue  # "If asked about the hours, use get_hours.": how to answer, not the answer
        labelled = _LABELLED.match(sentence)
        if labelled is not None:
            label = labelled.group("label").strip()
            value = labelled.group("value").strip().rstrip(".")
            label = f"{label[0].lower()}{label[1:]}"
            if _POINTS_ELSEWHERE.match(value):  # "Opening hours: see the website."
                return f"For our {label}, {value}."
            verb = "are" if label.lower().endswith("s") and not label.lower().endswith("ss") else "is"
            return f"Our {label} {verb} {value}."
        if not _SAYS_WHAT.search(sentence):
            continue  # "Balance lookups require a PIN.": names the balance, says nothing of it
        return sentence[0].upper() + sentence[1:] + ("" if sentence[-1] in ".!?" else ".")
    determiner = found.group("det").lower()
    thing = found.group("thing")
    return f"I'm afraid I don't have {'the' if determiner == 'our' else determiner} {thing} to hand."


# A standing order to answer a topic a given way: "If asked about the hours, tell them we're open 9 to 5",
# "When the user asks about parking, say 'There's free parking behind the building.'".
_IF_ASKED = re.compile(
    r"^(?:if|when|whenever)\s+(?:(?:the\s+|a\s+|an\s+)?(?:user|caller|customer|guest|client|someone|anyone|they|people)\s+)?"
    r"(?:is\s+|are\s+|gets?\s+)?ask(?:s|ed)?\s+(?:you\s+)?(?:about|for|what|when|where|whether|if|how)?\s*"
    r"(?P<topic>[^,;:]+?)\s*[,;:]\s*(?:then\s+)?(?:please\s+)?"
    r"(?:tell|say|reply|answer|explain|let\s+(?:them|the\s+\w+)\s+know)\b"
    r"(?:\s+(?:them|him|her|the\s+(?:user|caller|customer|guest|client)))?(?:\s+that)?\s*[,:]?\s*(?P<fact>\S.*)$",
    re.IGNORECASE,
)
# Words of a topic that name no thing asked about ("If asked about the hours": the hours).
_TOPIC_STOP = frozenset(
    ("the", "our", "your", "their", "a", "an", "any", "of", "we", "you", "it", "is", "are")
)


def if_asked(heard: str, instructions: str) -> str | None:
    """What the session's instructions say to answer when the user asks about a topic, said when ``heard``
    asks about it ("If asked about the hours, tell them we're open 9 to 5" and "What are your hours?" →
    "We're open 9 to 5."), as a model follows its prompt; quotes around the words dropped, the user
    spoken to ("they need a booking" → "You need a booking"). None when ``heard`` asks nothing, or about
    no topic such an order names. A fact to answer only: an order to use a tool ("If asked about the
    hours, call get_hours") or to do anything else is not said."""
    if not heard.strip() or not (is_question(heard) or _ASKS_ABOUT.search(heard)):
        return None
    asked = {lexicon.stem(w) for w in re.findall(r"[a-z']+", heard.lower())}
    for sentence in _SENTENCE_BREAK.split(instructions):
        found = _IF_ASKED.match(sentence.strip().lstrip("-*• ").strip())
        if found is None:
            continue
        topic = [w for w in re.findall(r"[a-z']+", found.group("topic").lower()) if w not in _TOPIC_STOP]
        if not topic or not {lexicon.stem(w) for w in topic} <= asked or not _about(heard, topic):
            continue
        fact = found.group("fact").strip()
        unquoted = QUOTED_WHOLE.fullmatch(fact.rstrip("."))
        if unquoted is not None:
            fact = unquoted.group("text").strip()
        else:
            # "tell them politely that we're closed": how to say it is no part of what is said
            fact = _HOW_TOLD.sub("", fact)
            # "…; then ask which plan they want", "…, but don't apologise": a further order, not said
            fact = _then_instruction(fact)[0]
            fact = _FURTHER_ORDER.sub("", fact).rstrip(" ,;")
            if not fact or _NOT_A_FACT.match(fact):
                continue  # "…, use get_hours", "…, tell them to call the front desk", "tell them nothing"
            # "tell them you don't know": the assistant's "you" is its own "I", said to the user
            subject = _ASSISTANT_AS_YOU.match(fact)
            if subject is not None:
                fact = _in_own_person(subject, fact) + fact[subject.end() :]
            fact = _to_the_user(fact)
        return fact[:1].upper() + fact[1:] + ("" if fact[-1:] in ".!?" else ".")
    return None


_ASKS_ABOUT = re.compile(r"^\W*(?:tell\s+me|i'?d\s+like\s+to\s+know|i\s+want\s+to\s+know)\b", re.I)
# A "tell them …" that is an order, not a fact: "to call the desk", "how to …", "where to find it" (what
# to find out, not the answer), "nothing", "the truth", a tool's name.
_NOT_A_FACT = re.compile(
    r"^(?:to\s|how\s|use\s|call\s|\w+_\w+|(?:where|what|when|who|whom|which|why|whether)\b"
    r"|(?:nothing|anything|the\s+truth)\b)",
    re.IGNORECASE,
)
# How the answer is to be said, before it: "politely that …", "kindly, …".
_HOW_TOLD = re.compile(
    r"^(?:politely|kindly|gently|firmly|briefly|clearly|nicely|honestly|calmly|courteously|respectfully"
    r"|warmly|simply)\b[\s,]*(?:that\s+)?",
    re.IGNORECASE,
)
# An order after the fact that is no part of it: "…, but don't apologise", "…; never mention prices".
_FURTHER_ORDER = re.compile(
    r"\s*[,;]\s*(?:but\s+|and\s+)?(?:don't|do\s+not|never|avoid)\b.*$", re.IGNORECASE | re.DOTALL
)
# The fact's subject when it is the assistant told of ("tell them you don't know"), in its own person.
_ASSISTANT_AS_YOU = re.compile(r"^(?:you're|you\s+are|you've|you'll|you'd|you)\b", re.IGNORECASE)
_AS_I = {"you're": "I'm", "you are": "I am", "you've": "I've", "you'll": "I'll", "you'd": "I'd", "you": "I"}
_AS_WE = {said: "we" + said[3:] for said in _AS_I}  # "you're" → "we're"
# What the assistant itself knows, says or can do ("you don't know", "you can't share it", "you're not
# able to …", "you're happy to help"): its "I". Anything else a business does ("you ship worldwide",
# "you're open 9 to 5", "you don't take cards") is said for the business: "we".
_OWN_DOING = frozenset((
    "know", "think", "believe", "understand", "remember", "recall", "share", "discuss", "disclose",
    "reveal", "say", "tell", "comment", "answer", "help", "assist", "check", "look", "find", "quote",
    "give", "talk", "speak", "access", "handle", "advise", "confirm", "guarantee", "promise", "able",
    "unable", "sure", "unsure", "happy", "glad", "sorry", "afraid", "an", "a", "just", "only", "bot",
    "assistant", "ai", "virtual", "here",
))  # fmt: skip
# Between the "you" and what it does: auxiliaries, a negation, an adverb of frequency.
_AUXILIARY = frozenset((
    "do", "don't", "does", "doesn't", "not", "can", "can't", "cannot", "could", "couldn't", "will", "won't",
    "would", "wouldn't", "should", "shouldn't", "may", "might", "must", "also", "only", "always", "never",
    "currently", "still", "unfortunately", "really",
))  # fmt: skip


def _in_own_person(found: re.Match[str], fact: str) -> str:
    """The fact's "you" (found at its start) as the assistant says it: "I" of what it knows, says or can
    do, "we" of what the business it speaks for does (``_OWN_DOING``)."""
    said = " ".join(found.group(0).lower().split())
    rest = [w for w in re.findall(r"[a-z']+", fact[found.end() :].lower()) if w not in _AUXILIARY]
    own = not rest or rest[0] in _OWN_DOING or rest[0].startswith("unable")
    return _AS_I[said] if own else _AS_WE[said]


# A topic word said as a measure, not asked about: "how many hours did it take", "two hours ago", "I
# waited for hours".
_COUNTED = frozenset((
    "many", "much", "few", "several", "couple", "number", "numbers", "more", "less", "fewer", "zero", "one",
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve", "twenty", "thirty",
))  # fmt: skip
_DURATION_BEFORE = frozenset(("for", "within", "past", "last", "took", "take", "takes", "spent", "waited"))
_DURATION_AFTER = frozenset(("ago", "later", "late", "long", "left"))
_TIME_SPANS = frozenset(lexicon.stem(w) for w in ("second", "minute", "hour", "day", "week", "month", "year"))


def _about(heard: str, topic: list[str]) -> bool:
    """``heard`` asks about the topic, not merely holds its words: the topic's last word said neither as
    a count ("how many hours did my order take to ship" asks no opening hours) nor, for a span of time
    ("hours"), as how long something took ("I waited for hours", "two hours ago"), nor waved off ("I don't
    care about your hours, where is my order?")."""
    words = re.findall(r"[a-z0-9']+", heard.lower())
    head = lexicon.stem(topic[-1])
    for at, word in enumerate(words):
        if lexicon.stem(word) != head:
            continue
        before = words[max(0, at - 2) : at]
        after = words[at + 1 : at + 2]
        counted = bool(_COUNTED & set(before)) or any(w.isdigit() for w in before)
        spent = bool(_DURATION_BEFORE & set(before)) or bool(_DURATION_AFTER & set(after))
        timed = head in _TIME_SPANS and spent
        waved_off = _WAVED_OFF.search(" ".join(words[max(0, at - 6) : at]) + " ") is not None
        if not counted and not timed and not waved_off:
            return True
    return False


# A topic the user says they are not asking about: "I don't care about your hours", "not asking about
# the hours", "never mind the hours", "forget the hours", "not interested in your hours".
_WAVED_OFF = re.compile(
    r"\b(?:don'?t care (?:about|for)|do not care (?:about|for)|not (?:asking |talking )?about"
    r"|not interested in|never ?mind(?: about)?|forget(?: about)?)\s+(?:[a-z']+\s+){0,2}$"
)


# "then ask …" of someone other than the user the line is said to: "ask the front desk for a key" (no
# user word after "ask"), "ask for Bob" (a name after "for", not the user's own "their name").
_ASKED_OF_ANOTHER = re.compile(
    r"(?:please\s+)?ask\s+(?!(?:for|about|if|whether|them|him|her|the\s+(?:user|caller|customer|guest|client)"
    r"|how|what|when|where|which|who)\b)"
    r"|(?:please\s+)?ask\s+(?:\w+\s+)?for\s+(?!(?:their|his|her|your|a|an)\b)",
    re.IGNORECASE,
)
# How a dictation asks for the words as they are ("Say exactly: …", "Repeat verbatim: …"): a "then …"
# inside them is part of the words.
_AS_THEY_ARE = re.compile(r"\b(?:exactly|precisely|verbatim|word[- ]for[- ]word)\b", re.IGNORECASE)


def dictated(instructions: str, rng: random.Random, persona: str = "", known: str = "") -> str | None:
    """The words a response's own instructions dictate, to be said as they are: "Say exactly the
    following to the user in English, friendly tone, and nothing else: TEXT", "Read the following text
    aloud: TEXT", "Repeat the following text verbatim: TEXT", "Say: TEXT", 'Say "TEXT"' → TEXT (quotes
    around TEXT dropped). None when none do: "Say goodbye.", "Say something friendly.", or "Speak slowly:
    …", whose words before the colon say more than how to say it. Only for a response's own
    instructions: a session's 'If unsure, say "I don't know."' is a standing order, not a reply. A further
    instruction after the words ("Say: welcome to Acme, then ask for their name") is followed, not said:
    "Welcome to Acme. Could you tell me your name?"; "Say: welcome, then tell them the hours" → "Welcome."
    and the hours ``known`` (the session's instructions) gives, else that they are not to hand
    (``told_fact``). ``rng`` (the response's seeded draw: required, so a dictation draws as the rest of
    the response does) and ``persona`` for what it says."""
    for pattern in (_DICTATED_QUOTED, _DICTATED_AFTER_COLON):
        for match in pattern.finditer(instructions):
            if not _DICTATION_HOW.match(match.group("how")):
                continue
            if pattern is _DICTATED_QUOTED and _CONDITION_AFTER.match(instructions, match.end()):
                continue
            text = " ".join(match.group("text").split()).strip()
            unquoted = QUOTED_WHOLE.fullmatch(text)
            text = unquoted.group("text").strip() if unquoted else text
            # quoted or asked for as they are ("Say exactly: …"), the words are all said
            if pattern is _DICTATED_AFTER_COLON and not unquoted and not _AS_THEY_ARE.search(match.group(0)):
                line, then = _then_instruction(text)
                said = _said_then(line, then, rng, persona, known) if then else None
                if said is not None:
                    return said
            if text:
                return text
    return None


QUOTED_WHOLE = re.compile(r"[\"“'‘](?P<text>[^\"”]+)[\"”'’]")


def asks_for_transcript(instructions: str) -> bool:
    """Whether ``instructions`` ask for a transcript of the user's words rather than a reply ("Transcribe
    the user's last message verbatim.", the cookbook's out-of-band transcription prompt); Markdown
    emphasis is read through. One refused ("Don't transcribe what the user said") or made by someone else
    ("We will transcribe the caller's answers later") is no request."""
    text = instructions.replace("*", "").replace("_", " ")
    for match in _TRANSCRIPT_ASKED.finditer(text):
        clause = re.split(r"[.;:!?\n]", text[: match.start()])[-1]
        if not _NOT_ASKED_BEFORE.search(clause):
            return True
    return False


# Before the verb in its clause: a negation, or a subject other than the one told (a request is an
# imperative, "Your only job is to transcribe", "You must transcribe").
_NOT_ASKED_BEFORE = re.compile(
    r"\b(?:don[’']?t|do\s+not|never|not|no\s+need\s+to|avoid|without)\b"
    r"|\b(?:we|they|it|he|she|someone|something|(?:we|they|it)[’']ll)"
    r"(?:\s+(?:will|would|can|could|may|might|shall|then|also|later|automatically))*\s*$",
    re.IGNORECASE,
)


def directive(instructions: str) -> str | None:
    """The text of a ``Say exactly: "…"`` directive in the instructions, if there is one."""
    match = _DIRECTIVE_QUOTED.search(instructions) or _DIRECTIVE_LINE.search(instructions)
    return match.group("text").strip() if match and match.group("text").strip() else None


def reply_to_words(
    heard: str,
    rng: random.Random,
    persona: str,
    covered: frozenset[str] = frozenset(),
    earlier: Sequence[str] = (),
    known: Sequence[str] = (),
) -> str:
    """One or two sentences showing the words were heard; known questions get a real answer.

    The one long reply is a requested story, which echoes its topic. ``covered``: the topics the app's
    declared tools cover ("weather"), which the participant never claims it cannot do. ``earlier``: the
    user's words before these, oldest first, for a question about what they said of themselves ("what's
    my name?"); ``known``: what the app told the model of them (instructions, system items).
    """
    words = heard.strip()
    if not words:
        return NOT_HEARD
    remembered = facts.remembered_answer(words, earlier, known) or _recalled_question(words, earlier)
    if remembered is not None:
        return remembered
    introduced = facts.given_name(words) if not is_question(words) else None
    if introduced is not None:  # "My name is Ada." is an introduction, not words to echo
        welcome = f"Nice to meet you, {introduced}."
        asked = _asked_after_introduction(words)
        # "My name is Ada. Tell me a story." asks for something too: a model welcomes, then does it.
        if not asked:
            return welcome
        return f"{welcome} {reply_to_words(asked, rng, persona, covered, earlier, known)}"
    for pattern, templates in _SOCIAL:
        if pattern.search(words):
            return pick(rng, templates, persona=persona)
    story = _STORY_REQUEST.search(words)
    if story is not None:
        topic = " ".join((story.group("topic") or "a lighthouse").split()[:ECHO_WORDS])
        return _STORY.format(topic=topic)
    composed = composing.requested(words)
    if composed is not None and composed.kind == "joke":  # a model tells it; it does not echo the request
        return f"Here's one: {_JOKE}"
    content = None
    if composed is not None:
        # A summary of the conversation quotes the last few things said: a study's conversation holds
        # hundreds of turns, and echoing every one cost each reply ~7 µs per earlier turn (docs/memory.md).
        said_before = [phrase for phrase in earlier if phrase.strip()]
        recalled = tuple(echo_of(phrase) for phrase in said_before[-composing.QUOTED_SAID :])
        content = composing.made(composed, words, rng, recalled)
    if content is not None:  # a poem, a song, a story, an explanation, a summary: made, not echoed
        return content
    # the question as heard, else as meant: "the capital on France" on a phone line is heard as a model
    # hears it, "the capital of France" (one lookup of the words, then one per swap)
    words = _the_question(words)
    meant = facts.answer_as_meant(words, persona, covered)
    fact: str | None = None
    if meant is not None:
        words, fact = meant
    echo = echo_of(words)
    if is_question(words):
        return f"{pick(rng, _ASKED, echo=echo)} {fact or rng.choice(_UNKNOWN_ANSWER)}"
    return f"{pick(rng, _SAID, echo=echo)} {fact or rng.choice(_FOLLOW_UP)}"


def _the_question(words: str) -> str:
    """The one question among several sentences, else ``words``: "What is the capital of France? Answer
    briefly." and "Thanks. Who wrote Hamlet?" are answered, and echoed, as the question they carry (a
    model answers the question; the other sentences only shape or thank). Two questions, or none, keep
    every sentence."""
    sentences = [s for s in names.SENTENCE_BREAK.split(words.strip()) if s.strip()]
    if len(sentences) < 2:
        return words
    questions = [s for s in sentences if s.rstrip().endswith("?")]
    return questions[0].strip() if len(questions) == 1 else words


def unanswered(said: str) -> bool:
    """Whether ``said`` is :func:`reply_to_words`' reply to words it has no answer for ("You asked who won
    the 2018 world cup. I don't know that one, sorry.", "You said look up the news. Tell me more.")."""
    return said.rstrip().endswith(_UNKNOWN_ANSWER + _FOLLOW_UP)


def _asked_after_introduction(words: str) -> str | None:
    """The sentences after an introduction when they ask for something made (a story, a joke, a poem):
    "My name is Ada. Tell me a story." → "Tell me a story."; None otherwise (a statement after the
    name is still only an introduction)."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", words.strip()) if s]
    rest = " ".join(sentences[1:])
    if rest and (_STORY_REQUEST.search(rest) or composing.requested(rest) is not None):
        return rest
    return None


# A request to hear the last answer again: "say that again", "can you repeat that?", "come again?",
# "sorry, what did you say?", "pardon?", "I didn't catch that". Words after the request ask for nothing
# more ("please", "one more time").
_AGAIN = r"(?:again|one more time|once more)"
_REPEAT = re.compile(
    r"^\W*(?:(?:sorry|excuse me|huh|wait|hmm+|oh|um|uh|what|ok|okay|hey)\W+)*"
    r"(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?|please\s+)?"
    rf"(?:(?:say|tell me|read|give me)\s+(?:that|it|this|what you (?:just )?said)\s+{_AGAIN}"
    rf"|say\s+{_AGAIN}|(?P<repeat>repeat)(?:\s+(?:that|it|this|yourself|what you (?:just )?said"
    r"|the (?:last )?(?:bit|part|answer|sentence|question)))?"
    r"|come again|pardon(?: me)?|what (?:did you (?:just )?say|was that)"
    r"|i (?:didn'?t|did not) (?:catch|get|hear|understand) (?:that|it|you|what you said))\b"
    rf"(?:\W+(?:please|{_AGAIN}|for me|sorry))*\W*$",
    re.IGNORECASE,
)
_ONLY_LEAD = re.compile(r"(?:sorry|excuse me|huh|wait|hmm+|oh|um|uh|ok|okay|hey)", re.IGNORECASE)
# What the assistant says before an answer it repeats.
_REPEATED = ("Sure. {said}", "Of course. {said}")
_NOTHING_SAID = "I haven't said anything yet. What can I do for you?"


# Words the user asks to hear said ("Say 'hello world' twice.", 'Repeat after me: good night', "say
# hello three times"): the words quoted, after "repeat after me", or said with how many times. A single
# quote opens after a space and closes before one, so an apostrophe inside ("Say 'I'm here'") is a letter.
_SAY_VERB = (
    r"^\W*(?:(?:please|now|ok(?:ay)?|can\s+you|could\s+you|would\s+you)[\s,]+)*(?:say|repeat|read\s+out)\b"
)
_SAY_QUOTED = re.compile(
    _SAY_VERB + r"[\s:,]+(?:after\s+me[\s:,]+)?(?:the\s+words?\s+)?"
    r"(?:\"(?P<double>[^\"]+)\"|“(?P<curly>[^”]+)”|'(?P<single>.+?)'(?=[\s.,!?;:]|$))"
    r"(?P<rest>.*)$",
    re.IGNORECASE,
)
_SAY_AFTER_ME = re.compile(_SAY_VERB + r"\s+after\s+me\s*[:,]?\s*(?P<words>\S.*?)[\s.!]*$", re.IGNORECASE)
_SAY_COUNTED = re.compile(
    _SAY_VERB
    + r"\s+(?P<words>(?!(?:that|it|this|again)\b)\w[\w\s',-]{0,60}?)\s+(?P<count>\w+(?:\s+times)?)\s*[.!]*$",
    re.IGNORECASE,
)
# "Say hello.", "Can you say good morning?": a few words to say now, bare (no quotes, no count). Not words
# that point at something to say ("say something", "say it", "say what you think"), a message for someone
# ("say hi to Bob"), nor a clause ("say when you're ready", "say yes if …"): those ask for no dictation.
_SAY_BARE = re.compile(
    r"^\W*(?:(?:please|now|ok(?:ay)?|can\s+you|could\s+you|would\s+you)[\s,]+)*say\s+"
    r"(?P<words>[A-Za-z][A-Za-z'-]*(?:[\s,]+[A-Za-z][A-Za-z'-]*){0,3})[\s,]*(?:please)?\s*[.!?]*\s*$",
    re.IGNORECASE,
)
_NOT_SAID_BARE = frozenset(
    [
        "something",
        "anything",
        "nothing",
        "everything",
        "more",
        "less",
        "it",
        "that",
        "this",
        "these",
        "those",
        "them",
        "what",
        "which",
        "how",
        "why",
        "when",
        "where",
        "who",
        "whom",
        "whatever",
        "again",
        "so",
        "the",
        "a",
        "an",
        "my",
        "your",
        "his",
        "her",
        "its",
        "our",
        "their",
        "to",
        "for",
        "at",
        "in",
        "on",
        "about",
        "with",
        "if",
        "unless",
        "because",
        "than",
        "from",
        "of",
        "into",
        "by",
        "as",
        "like",
        "after",
        "before",
        "while",
        "until",
        "whether",
    ]
)
_TIMES = (
    {"once": 1, "twice": 2, "thrice": 3}
    | {f"{word} times": n for n, word in enumerate(("zero", "one", "two", "three", "four", "five"), start=0)}
    | {f"{n} times": n for n in range(1, 6)}
)


def asked_to_say(words: str) -> str | None:
    """The words the user asks to hear, said as asked ("Say 'hello world' twice." → "Hello world, hello
    world."): quoted words or words after "repeat after me", once or the times said (at most five); None
    when the words ask nothing of the kind ("say that again" is a repeat, "say hi to Bob" a message)."""
    said, count = None, 1
    quoted = _SAY_QUOTED.match(words)
    if quoted is not None:
        said = quoted.group("double") or quoted.group("curly") or quoted.group("single")
        rest = quoted.group("rest").strip(" .!").lower()
        if rest and rest not in _TIMES:
            return None  # 'Say "hi" to Bob', 'Say "stop" when you are done': no words to say now
        count = _TIMES.get(rest, 1)
    else:
        after_me = _SAY_AFTER_ME.match(words)
        counted = _SAY_COUNTED.match(words) if after_me is None else None
        if after_me is not None:
            said = after_me.group("words")
        elif counted is not None and counted.group("count").lower() in _TIMES:
            said, count = counted.group("words"), _TIMES[counted.group("count").lower()]
        else:
            return _said_bare(words)
    said = (said or "").strip().rstrip(".!,")
    if not said or count < 1:
        return None
    line = ", ".join([said] * count) if count > 1 else said
    return line[:1].upper() + line[1:] + ("" if line[-1] in "?!." else ".")


def _said_bare(words: str) -> str | None:
    """The few words a bare "say X" asks to hear, said as a model says them ("Say hello." → "Hello!"): an
    exclamation, since nothing frames them; None unless ``_SAY_BARE`` reads them and no word of
    ``_NOT_SAID_BARE`` is among them."""
    bare = _SAY_BARE.match(words)
    if bare is None:
        return None
    said = re.sub(r"[\s,]+please$", "", bare.group("words").strip(" ,"), flags=re.IGNORECASE)
    if any(word.lower() in _NOT_SAID_BARE for word in re.split(r"[\s,]+", said)):
        return None
    return said[:1].upper() + said[1:] + "!"


def asks_to_repeat(words: str) -> str | None:
    """Whether ``words`` ask to hear the last answer again: None when not, "repeat" when they say only
    "repeat …" (which an app with a repeat mode may take for itself), else "again"."""
    clauses = [c.strip() for c in re.split(r"[,.;!?]+", words.replace("’", "'")) if c.strip()]
    asked = [c for c in clauses if not _ONLY_LEAD.fullmatch(c)]
    found = [_REPEAT.match(clause) for clause in asked]
    if not found or not all(found):  # "sorry, I didn't catch that, can you repeat?": every clause asks
        return None
    return "repeat" if all(f is not None and f.group("repeat") for f in found) else "again"


def repeated(previous: str | None, rng: random.Random) -> str:
    """The last answer said again, as a model repeats itself ("Sure. It's 21 degrees and sunny in
    Paris."); a repeat of a repeat is not prefixed twice. ``previous``: the assistant's newest words,
    None when it said nothing yet."""
    if not previous or not previous.strip():
        return _NOTHING_SAID
    said = previous.strip()
    for template in _REPEATED:
        lead = template.split("{", 1)[0]
        if said.startswith(lead) and len(said) > len(lead):
            said = said[len(lead) :]
            break
    return pick(rng, _REPEATED, said=said)


def makes_content(words: str) -> bool:
    """``words`` ask for content the participant makes itself: a poem, a song, a story, an explanation, a
    summary, a fun fact (``composing.made``)."""
    composed = composing.requested(words)
    return composed is not None and composed.kind in composing.MADE_KINDS


def is_story_request(words: str) -> bool:
    return _STORY_REQUEST.search(words) is not None


def echo_of(words: str) -> str:
    """What was said, as part of a sentence: the first sentence, cut at the end of a phrase (a comma, or
    before "and", "to", "for"…) when it is longer than ``ECHO_MAX`` words, at most ``ECHO_MAX_CHARS``
    characters, without end punctuation."""
    sentence = names.SENTENCE_BREAK.split(words.strip())[0]
    tokens = sentence.split()
    if len(tokens) > ECHO_MAX:
        tokens = tokens[: _phrase_end(tokens)]
    # Only a sentence-starting common word loses its capital ("What is…" → "what is…"); a name keeps it.
    # A contraction goes by its word ("What's" as "what", "How’s" as "how"); "I'm" keeps its capital.
    first = re.sub(r"['’](?:s|re|ll|d|ve)$", "", tokens[0].lower()) if tokens else ""
    if tokens and re.sub(r"[^a-z']", "", first) in _LOWERABLE:
        tokens[0] = tokens[0][:1].lower() + tokens[0][1:]
    echo = " ".join(tokens)
    if len(echo) > ECHO_MAX_CHARS:
        space = echo.rfind(" ", 0, ECHO_MAX_CHARS + 1)
        echo = echo[: space if space > 0 else ECHO_MAX_CHARS]
    return echo.rstrip(" ?!.,;:")


def _phrase_end(tokens: list[str]) -> int:
    """Where to cut a long sentence: after the last comma or before the last phrase-opening word
    within ``ECHO_MAX`` words (at least four words in), else after ``ECHO_WORDS`` words."""
    for end in range(ECHO_MAX, 3, -1):
        if tokens[end - 1].endswith((",", ";", ":")) or tokens[end].lower() in _PHRASE_OPENERS:
            return end
    return ECHO_WORDS


# "what was my first question?", "what did I just ask you?", "which question did I ask before that?": the
# user asks what they asked, as a model answers from its context (it was answered "You asked what was my
# first question. I'm not sure, to be honest."). "first" picks the oldest question, anything else the newest.
# "What did I ask" covers requests too: after "Book a table for four at 7 pm." a model says "You asked me to
# book a table for four at 7 pm." (it quoted the question before the booking); "my … question" only questions.
_ASKS_OWN_QUESTION = re.compile(
    r"\bwhat (?:was|were|is) my (?P<which>first|last|previous|earlier|latest) question\b"
    r"|\bwhat (?:question )?did I (?:just )?ask(?: you)?"
    r"(?: (?P<when>first|before|earlier|last|just now))?\s*[?.!]*$",
    re.IGNORECASE,
)
# "What did I just say?", "what did I tell you?", "what was the last thing I said?", "can you repeat what I
# said?", "do you remember what I just said?": the user asks for their own words, which a model quotes from
# its context (they were echoed as content: "So you're asking what did I just say. I'm not sure, to be
# honest."). The whole request only: "what did I say my name was?" asks a fact (facts.remembered_answer).
_ASKS_OWN_WORDS = re.compile(
    r"^\W*(?:(?:sorry|ok(?:ay)?|wait|so|hey|um|uh)\W+)*"
    r"(?:what (?:did|have) I (?:just |last )?(?:said|say|told you|tell you)"
    r"|what (?:was|is) the (?:last|first) thing I (?:just )?(?:said|told you)"
    r"|(?:(?:can|could|would) you |please )?(?:repeat|say) (?:back )?what I (?:just )?(?:said|told you)"
    r"|do you (?:remember|recall) what I (?:just )?(?:said|told you))"
    r"(?:\s+(?P<when>first|before|earlier|last|just now))?"
    r"(?:\W+(?:please|again))*\s*[?.!]*\s*$",
    re.IGNORECASE,
)
# Verbs an order opens with that the lexicon's action concepts do not hold ("tell me a joke", "set a timer").
_ORDER_VERBS = frozenset(
    ("tell", "give", "set", "turn", "call", "say", "help", "remind", "read", "make", "get", "take", "put",
     "bring")
)  # fmt: skip
# The speaker's words as the listener says them back ("tell me a joke" → "tell you a joke").
_SAID_BACK = {
    "me": "you", "my": "your", "mine": "yours", "i": "you", "myself": "yourself", "us": "you", "our": "your"
}  # fmt: skip


def _order(said: str) -> str | None:
    """The order ``said`` gives, from its verb on, without politeness or end punctuation and as said back
    ("Please book a table for four." → "book a table for four"); None when the words open with no verb of
    an order ("My name is Ada.", "I'd like a table")."""
    verb = things.request_verb(said)
    if verb is None or verb not in _ORDER_VERBS and lexicon.concept(verb) not in lexicon.ACTIONS:
        return None
    start = re.search(rf"(?<![\w'-]){re.escape(verb)}(?![\w'-])", said, re.IGNORECASE)
    if start is None or not re.match(r"\s+\w", said[start.end() :]):
        return None  # "Look, I'm tired.": no order
    rest = said[start.start() :].rstrip(" .!")
    return re.sub(
        r"\b(?:me|my|mine|I|myself|us|our)\b",
        lambda m: _SAID_BACK[m.group(0).lower()],
        rest[:1].lower() + rest[1:],
    )


def _recalled_words(words: str, earlier: Sequence[str]) -> str | None:
    """The answer to "what did I just say?" / "repeat what I said" from ``earlier`` (the user's words
    before these, oldest first): their newest words quoted ("You said “My sister lives in Chicago.”", a
    question as asked), the oldest for "first", or that nothing was said; None for other words."""
    found = _ASKS_OWN_WORDS.search(words.replace("’", "'"))
    if found is None:
        return None
    said = [line.strip() for line in earlier if line.strip()]
    if not said:
        return "You haven't said anything yet."
    first = "first" in found.group(0).lower()
    line = said[0] if first else said[-1]
    end = "" if line[-1] in ".?!" else "."
    verb = "asked" if is_question(line) else "said"
    return f"First you {verb} “{line}”{end}" if first else f"You {verb} “{line}”{end}"


def _recalled_question(words: str, earlier: Sequence[str]) -> str | None:
    """The answer to "what was my first question?" / "what did I just ask?" from ``earlier`` (the user's
    words before these, oldest first): the question quoted, the order said back ("You asked me to book a
    table …") when "what did I ask" finds one newer, or that none was asked; None for other words."""
    found = _ASKS_OWN_QUESTION.search(words)
    if found is None:
        return _recalled_words(words, earlier)
    questions_only = found.group("which") is not None
    asked = [
        said.strip()
        for said in earlier
        if said.strip()
        and (
            is_question(said) or not questions_only and (utterance.requests(said) or _order(said) is not None)
        )
    ]
    if not asked:
        return "You haven't asked me anything yet."
    first = (found.group("which") or found.group("when") or "").lower() == "first"
    question = asked[0] if first else asked[-1]
    end = "" if question[-1] in ".?!" else "."
    if not is_question(question):
        order = _order(question)
        told = f"me to {order}." if order is not None else f"“{question}”{end}"
        return f"First you asked {told}" if first else f"You asked {told}"
    return f"Your first question was “{question}”{end}" if first else f"You asked “{question}”{end}"


def is_question(words: str) -> bool:
    """``words`` ask something: they end with "?" or open with a question word or an auxiliary, as said or
    contracted ("what's", "whats", "who's", "how'd"), or with a negated auxiliary before its subject
    ("isn't it …", "don't you …"; "Don't forget the milk" orders)."""
    split = words.replace("’", "'").split()
    first = re.sub(r"[^a-z']", "", split[0].lower()) if split else ""
    if words.rstrip().endswith("?") or first in _QUESTION_OPENERS:
        return True
    contracted = _CONTRACTED_OPENER.fullmatch(first)
    if contracted is not None and contracted.group("base") in _QUESTION_OPENERS:
        return True
    negated = _NEGATED_OPENER.fullmatch(first)
    subject = re.sub(r"[^a-z']", "", split[1].lower()) if len(split) > 1 else ""
    return negated is not None and subject in _SUBJECTS


# "what's", "whats", "who's", "where'd", "how'll": a question word with a verb run into it.
_CONTRACTED_OPENER = re.compile(r"(?P<base>what|who|where|when|why|how|which)(?:'?s|'re|'d|'ll|'ve)")
# "isn't", "aren't", "don't", "doesn't", "can't", "won't", "wouldn't": an auxiliary negated.
_NEGATED_OPENER = re.compile(r"(?:is|are|was|were|do|does|did|can|could|would|should|won|have|has)n'?t")
_SUBJECTS = frozenset(("i", "you", "we", "they", "he", "she", "it", "that", "this", "there"))


def colour_answer(colour: str, rng: random.Random) -> str:
    return pick(rng, _COLOUR, colour=colour)


def brightness_answer(brightness: float, colour: str) -> str:
    """How bright an image looks from its mean luma (0..1): dark below 0.35, bright above 0.65."""
    if brightness < 0.35:
        return f"It's quite dark, mostly {colour}."
    if brightness > 0.65:
        return f"It's bright, mostly {colour}."
    return f"It's neither bright nor dark, mostly {colour}."


def image_shown(colour: str, brightness: float) -> str:
    """What is said of an image shown with no words (a user message that is only an ``input_image``):
    what it looks like, from its dominant colour and mean luma (0..1, as ``brightness_answer``), and what
    to do with it asked, as a model describes or acknowledges a picture sent alone (our choice of words,
    deterministic; "Sorry, I didn't catch that" read the image as nothing said)."""
    look = "dark" if brightness < 0.35 else "bright" if brightness > 0.65 else ""
    seen = f"a {look} image, mostly {colour}" if look else f"an image, mostly {colour}"
    return f"I can see {seen}. What would you like to know about it?"


def image_described(colour: str, brightness: float) -> str:
    """The answer to "what's in this image?" about the newest image: its look, from its dominant colour
    and mean luma (0..1), as ``image_shown`` says it, without asking what to do with it."""
    return image_shown(colour, brightness).split(". ")[0] + "."


def acknowledge_output(error: str | None, function_name: str | None, rng: random.Random) -> str:
    """The spoken follow-up to a function output: accepted, or refused with the host's error."""
    if error is None:
        return rng.choice(_CHAT_SENT if function_name == "send_chat" else _ACCEPTED)
    reason = error.strip().rstrip(".")
    return f"That didn't go through: {reason}." if reason else "That didn't go through."


def tool_failed(error: str) -> str:
    """An app's tool refused the call: said plainly, never as a success."""
    reason = error.strip().rstrip(".")
    return f"That didn't work: {reason}." if reason else "That didn't work."


def text_answer(rng: random.Random) -> str:
    return rng.choice(_TEXT_ANSWERS)


def verbal_answer(question: QuestionContext, value: Any) -> str:
    """Answering a question aloud when its tool is not available."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"I'd say {value:g}."
    if isinstance(value, str) and value:
        return f"I'd pick {value}." if question.choices else f"I'd say: {value}"
    return "Let me think about that one."


def chat_message(
    typed_speaker: str, typed_said: str, screen_text: str, persona: str, rng: random.Random
) -> str:
    """A short chat line reacting to the newest chat message, else to the screen."""
    if typed_said:
        suffix = f", {typed_speaker}" if typed_speaker else ""
        if re.search(r"^\W*(?:hello|hi|hey)\b", typed_said, re.IGNORECASE):
            return f"Hi{suffix}! I'm {persona}."
        if typed_said.rstrip().endswith("?"):
            return pick(
                rng, ("Good question{suffix}, I'm not sure yet.", "Hmm{suffix}, let me think."), suffix=suffix
            )
        return pick(rng, ("I agree{suffix}.", "Sounds good{suffix}."), suffix=suffix)
    if re.search(r"introduce", screen_text, re.IGNORECASE):
        return f"Hi, I'm {persona}. Nice to meet you!"
    return "Okay, ready when you are." if screen_text else f"Hello, I'm {persona}."


def context_reaction(event: ContextEvent, persona: str, rng: random.Random) -> str:
    """What to say when a context item (not a chat line or question) is the newest input."""
    data = event.data
    if event.event == "participants":
        names = [o.get("name") for o in data.get("others", []) if isinstance(o, dict) and o.get("name")]
        return f"Hi {' and '.join(str(n) for n in names)}, I'm {persona}." if names else f"Hi, I'm {persona}."
    if event.event == "screen":
        if re.search(r"introduce", event.text, re.IGNORECASE):
            return f"Hi, I'm {persona}. Nice to meet you."
        return rng.choice(("Okay, I see it.", "Alright, got it."))
    if event.event == "timer" and isinstance(data.get("secondsLeft"), int | float):
        seconds = data["secondsLeft"]
        return f"Okay, {seconds:g} {'second' if seconds == 1 else 'seconds'} left."
    if event.event == "revealed" and data.get("name") is not None:
        return f"Interesting, {data['name']} answered {data.get('answer')}."
    reactions = {
        "experimenter_message": "Understood.",
        "paused": "Okay, I'll wait.",
        "resumed": "Great, let's continue.",
    }
    return reactions.get(event.event, "Okay, noted.")


_CONTRACTIONS = {
    "I'm": "I am",
    "I'll": "I will",
    "I'd": "I would",
    "I've": "I have",
    "it's": "it is",
    "It's": "It is",
    "that's": "that is",
    "That's": "That is",
    "don't": "do not",
    "didn't": "did not",
    "can't": "cannot",
    "you're": "you are",
    "You're": "You are",
    "let's": "let us",
    "Let's": "Let us",
}
_CONTRACTION = re.compile(r"\b(" + "|".join(re.escape(word) for word in _CONTRACTIONS) + r")\b")
_CHATTY_TAILS = ("What do you think?", "I'm enjoying this, by the way.", "How about you?")


def styled(text: str, style: str, rng: random.Random) -> str:
    """``text`` in a persona's speaking style: ``brief`` as is, ``formal`` without contractions,
    ``chatty`` with one more friendly sentence."""
    if style == "formal":
        return _CONTRACTION.sub(lambda match: _CONTRACTIONS[match.group(1)], text)
    if style == "chatty" and text and len(text.split()) < 30:
        return f"{text} {rng.choice(_CHATTY_TAILS)}"
    return text


_ASKING_WORDS = re.compile(
    r"\?|\b(?:introduce|discuss|talk|chat|tell|say|share|describe|explain|agree|decide|offer|suggest|"
    r"respond|reply|greet)\b",
    re.IGNORECASE,
)


def asks_something(event: ContextEvent) -> bool:
    """Whether a context item asks the participant to say something.

    Chat lines, meeting others (``participants``) and free-text nudges do; so does a screen or
    experimenter message whose text asks ("Please introduce yourselves.", a question mark). Timers,
    revealed answers, pauses and resumes ask nothing: the participant stays silent (HRP: ``wait``).
    """
    if event.event in ("typed", "participants", "unparsed"):
        return True
    if event.event in ("screen", "experimenter_message"):
        return bool(_ASKING_WORDS.search(event.text))
    return False
