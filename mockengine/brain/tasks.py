"""Tasks a response's own instructions set about the conversation: classify it, title it, summarise it.

An out-of-band Realtime response (``response.create`` with ``conversation: "none"``, its own
``instructions`` and ``metadata``) is how apps classify a request, title or summarise a conversation, or
moderate it: a model follows those instructions, which replace the session's for that response, and
answers the task rather than the user's last words. ``answered`` gives that answer, deterministically:

* classification ("Classify the user's request as story or question.", "Categorize the message into
  billing, technical or other.", "Respond with one of: yes, no."): one of the named labels as a bare word
  (as the instructions spell it), chosen from the newest user words (``_label``);
* an open classification of a mood or sentiment ("Classify the user's mood in one word."): the feeling
  said ("Happy"), else "Positive", "Negative" or "Neutral" (``_feeling``);
* a title ("Give this conversation a title.", "Generate a short title for this chat."): a short noun
  phrase, title-cased, from the conversation's first user words ("Tell me a long story about a dragon."
  → "Long Story About a Dragon");
* a summary ("Summarize the conversation so far.", "Give a brief recap."): what was said, turn by turn,
  restated in the third person (the user's words, the assistant's first sentence).

The response's input is what is read: the conversation, or the items its ``input`` names or holds.
The task may be the newest item too, a user's message asking it of "the above" ("Summarize the above message
in one sentence.", the API reference's out-of-band example): it is done on the items before it.

A Chat Completions request sets such a task in its system or developer message, its only instructions:
read as one when no tools are declared and, for a title or summary, when it is of the conversation or
text ("Summarize your answers briefly" is how to answer, not a task).
"""

from __future__ import annotations

import re

from mockengine.brain import lexicon, phrases, wordlists
from mockengine.brain.model import Reply, ReplyRequest, TurnView

_USER_KINDS = ("user_text", "user_audio")

# "don't", "do not", "never", "no need to" before a task in its clause: the task is refused, not set.
_REFUSED = re.compile(r"\b(?:don'?t|do\s+not|never|no\s+need\s+to|without)\b", re.IGNORECASE)

# Where a task is set: a sentence's opening, after "please", "now", "your (only) task/job is to", "you
# must/should", "I want you to" (a task mentioned inside another order, "Tell the user you will summarize
# their order", is no task for this response).
_SET = (
    r"(?:^|(?<=[.!?:\n]))\s*(?:#+\s*)?(?:task\s*:\s*)?(?:please\s+|now\s+|then\s+)*"
    r"(?:(?:your\s+(?:only\s+|sole\s+)?(?:task|job|goal)\s+is\s+to|you\s+(?:must|should|will)|i\s+want\s+you\s+to)\s+)?"
)
# A classification: the verb, then (within the sentence) "as" / "into" / "one of" and the labels.
_CLASSIFY = re.compile(
    _SET + r"\b(?:classify|categori[sz]e|label|tag)\b[^.\n]*?\b(?:as|into|with)\s+"
    r"(?:(?:exactly\s+)?one\s+of\s*:?\s*)?(?P<labels>[^.\n]+)",
    re.IGNORECASE | re.MULTILINE,
)
# "Respond with one of: a, b, c." / "Answer with either yes or no."
_ONE_OF = re.compile(
    _SET + r"\b(?:respond|answer|reply|output|return)\s+(?:only\s+)?with\s+(?:only\s+)?(?:exactly\s+)?"
    r"(?:one\s+of|either)\s*:?\s*(?P<labels>[^.\n]+)",
    re.IGNORECASE | re.MULTILINE,
)
_WRITE = r"(?:give|generate|write|create|suggest|make|produce|provide|come\s+up\s+with|propose|return)"
_TITLE = re.compile(
    _SET + _WRITE + r"\b[^.\n]{0,40}\b(?:title|headline)\b"
    r"|" + _SET + r"title\s+(?:this|the)\b",
    re.IGNORECASE | re.MULTILINE,
)
_SUMMARY = re.compile(
    _SET + r"(?:(?:briefly|quickly|concisely)\s+)?"
    r"(?:summari[sz]e|recap|sum\s+(?:(?:it|this|that|everything|things)\s+)?up)\b"
    r"|" + _SET + _WRITE + r"\b[^.\n]{0,40}\b(?:summary|recap)\b",
    re.IGNORECASE | re.MULTILINE,
)

# Between labels: commas, "or", "and", slashes, pipes.
_LABEL_SPLIT = re.compile(r"\s*(?:,\s*(?:or\s+|and\s+)?|\s+or\s+|\s+and\s+|/|\|)\s*", re.IGNORECASE)
# A label is one to three words; what follows the list ("based on its content") is cut.
_LABEL = re.compile(r"^[\"'“‘`]?(?:an?\s+|the\s+)?(?P<label>[\w-]+(?:\s+[\w-]+){0,2}?)[\"'”’`]?$")
_AFTER_LABELS = re.compile(
    r"\s+(?:based|depending|according|from|using|given|in|for|with|only|and\s+(?:respond|answer|reply|output))\b.*$",
    re.IGNORECASE,
)
# Labels that stand for what nothing else fits.
_CATCH_ALL = frozenset(("other", "others", "unknown", "none", "general", "misc", "miscellaneous", "neither"))


def _stemmed(topic: str, *more: str) -> frozenset[str]:
    """The stems of ``topic``'s single words in ``wordlists.SUPPORT_TOPICS`` and of ``more``."""
    said = (w for w in wordlists.SUPPORT_TOPICS.get(topic, ()) if " " not in w)
    return frozenset(lexicon.stem(w) for w in (*said, *more))


# The words of a support request that a common routing label covers (by stem), by the label's first word:
# a topic's words (``wordlists.SUPPORT_TOPICS``) and the looser ones a whole message's topic is also told
# by ("my card", "the app"), too loose to pick a tool argument's category.
_BILLING = _stemmed(
    "billing", "pay", "paid", "refund", "card", "price", "fee", "receipt", "subscription", "money"
)
_ACCOUNT = _stemmed("account")  # "login", "password"
_TECHNICAL = _ACCOUNT | _stemmed(
    "technical", "broken", "log", "app", "install", "freeze", "frozen", "slow", "load", "connect",
    "connection", "working", "reset", "update",
)  # fmt: skip
_SHIPPING = _stemmed("shipping", "ship", "deliver", "arrive", "courier")
_ABOUT_LABEL: dict[str, frozenset[str]] = {
    **dict.fromkeys(("billing", "payment", "payments", "finance"), _BILLING),
    "account": _BILLING | _ACCOUNT,  # an account's money and its access
    **dict.fromkeys(("technical", "tech", "support", "bug", "it"), _TECHNICAL),
    **dict.fromkeys(("shipping", "delivery", "logistics", "order", "orders"), _SHIPPING),
}
_QUESTION_LABELS = frozenset(("question", "questions", "query", "inquiry", "enquiry", "ask"))
_REQUEST_LABELS = frozenset(("request", "command", "instruction", "task", "action", "order"))
_GREETING_LABELS = frozenset(("greeting", "greetings", "smalltalk", "small-talk", "chitchat", "chit-chat"))
# Praise and complaint: a feeling said (``wordlists``) or what is said of a thing.
_POSITIVE = wordlists.POSITIVE_FEELINGS | frozenset(
    ("love", "like", "thanks", "thank", "awesome", "excellent", "wonderful", "nice")
)
_NEGATIVE = wordlists.NEGATIVE_FEELINGS | frozenset(("hate", "broken", "worst", "horrible", "problem"))

# What opens a request or a question before its topic ("Tell me a long story about …", "What's the …").
_TOPIC_OPENING = re.compile(
    r"^(?:(?:hi|hello|hey)(?:\s+there)?[,!.]?\s+)?(?:please\s+)?"
    r"(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
    r"(?:i(?:'d|\s+would)\s+like\s+(?:you\s+)?to\s+|i\s+(?:want|need)\s+(?:you\s+)?to\s+|let'?s\s+)?"
    r"(?:(?:tell|give|show|write|read|find|get|make|bring)\s+(?:me|us)\s+|help\s+me\s+(?:with\s+)?"
    r"|(?:talk|chat)\s+about\s+|explain\s+|describe\s+|"
    r"(?:what|who|where|when|why|how)(?:'s|\s+is|\s+are|\s+was|\s+do\s+i|\s+do\s+you|\s+does|\s+did|\s+can\s+i)?\s+)?"
    r"(?:please\s+)?",
    re.IGNORECASE,
)
_LEADING_ARTICLE = re.compile(r"^(?:a|an|the|some|about)\s+", re.IGNORECASE)
_SMALL_WORDS = frozenset(
    ("a", "an", "the", "about", "in", "on", "of", "for", "to", "and", "or", "with", "at", "by", "from", "as")
)
TITLE_WORDS = 6  # the most words a title has
SUMMARY_TURNS = 6  # the newest turns a summary restates
_QUOTED_WORDS = 30  # the most words of one turn a summary quotes
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def answered(request: ReplyRequest) -> Reply | None:
    """The answer to the task the response's own instructions set (module doc), or None when they set
    none of these tasks (or there are no own instructions)."""
    own = request.response_instructions
    # A Chat Completions system/developer message is the app's only way to set a task ("Classify the
    # user's message as billing or technical."): it is one, not a standing rule, when it sets it plainly
    # and declares no tools (an agent's "then call create_ticket" is a rule); a title or summary of the
    # conversation or text only ("Summarize your answers briefly" is how to answer).
    chat = not own and request.channel == "chat" and not request.tools
    own = own or (request.instructions if chat else "")
    said = _task_said(request)
    history = request.history[:-1] if said is not None else request.history
    found = _task(own, history, chat) if own else None
    if found is None and said is not None:
        found = _task(said, history, chat=False)
    return found


# A user message that sets a task about the items before it: "Summarize the above message in one
# sentence." (the out-of-band example of the API reference, after an item_reference). "Summarize our
# conversation" said in the conversation is answered as words to the participant ("So far you've said …").
_ABOUT_WHAT_CAME_BEFORE = re.compile(r"\b(?:above|preceding|foregoing)\b", re.IGNORECASE)


def _task_said(request: ReplyRequest) -> str | None:
    """The task the newest item sets when it is a user's typed message asking to classify, title or
    summarise what came before it ("Summarize the above message in one sentence."): a model does the
    task on the items before, as the API reference's out-of-band example expects (its ``input`` an
    ``item_reference`` and that request, its own instructions "Provide a concise answer."). None when
    tools are declared (a tool may do it) or the newest item is no such request."""
    if request.tools or not request.history or request.history[-1].kind != "user_text":
        return None
    words = request.history[-1].text.strip()
    if not _ABOUT_WHAT_CAME_BEFORE.search(words) or phrases.is_question(words):
        return None
    asked = _labels(words) or _asked(_TITLE, words) or _asked(_SUMMARY, words)
    return words if asked else None


def _task(own: str, history: tuple[TurnView, ...], chat: bool) -> Reply | None:
    """The answer to the task ``own`` sets (module doc) about ``history``; None when it sets none."""
    labels = _labels(own)
    if labels:
        return Reply(_label(labels, _newest_user_text(history)), rule="instructions.task.classify")
    feeling = _asked(_OPEN_CLASSIFY, own) if not chat else None
    # "Detect the user's mood and respond with empathy." is how to answer, no task
    if feeling is not None and not _OTHER_TASK.search(_sentence_at(own, feeling)):
        said = _newest_user_text(history)
        return Reply(_feeling(said, feeling.group("what").lower()), rule="instructions.task.classify_open")
    title = _asked(_TITLE, own)
    if title is not None and (not chat or _OF_THE_CONVERSATION.search(_sentence_at(own, title))):
        return Reply(_title(history), rule="instructions.task.title")
    summary = _asked(_SUMMARY, own)
    if summary is not None and (not chat or _OF_THE_CONVERSATION.search(_sentence_at(own, summary))):
        limit = _word_limit(own, _sentence_at(own, summary))
        if limit is not None:
            return Reply(_summary_in_words(history, limit), rule="instructions.task.summary_words")
        sentences = _sentence_limit(own, _sentence_at(own, summary))
        if sentences is not None:
            return Reply(
                _summary_in_sentences(history, sentences), rule="instructions.task.summary_sentences"
            )
        return Reply(_summary(history), rule="instructions.task.summary")
    return None


# A summary's length in words: "Summarize in 3 words", "in no more than five words", "a three-word
# summary", "Sum it up in one word".
_NUMBERS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
_WORD_LIMIT = re.compile(
    r"\b(?:in\s+(?:(?:about|around|under|exactly|just|only|at\s+most|no\s+more\s+than|fewer\s+than|less\s+than)"
    r"\s+)?)?(?P<n>\d{1,2}|" + "|".join(_NUMBERS) + r")[\s-]+words?\b",
    re.IGNORECASE,
)


def _word_limit(own: str, asked: str | None = None) -> int | None:
    """The number of words a summary is asked to take (``_WORD_LIMIT``), or None when none is said (or
    it is over 12: a sentence's summary is then the turn-by-turn one). ``asked``, the sentence that asks
    for the summary, says it first; another sentence of ``own`` only when it sets no other task ("Then
    greet the user in five words." is the greeting's length, "Use three words." the summary's)."""
    found = _WORD_LIMIT.search(asked) if asked is not None else None
    for sentence in re.split(r"(?<=[.!?\n])\s*", own) if found is None else ():
        found = _WORD_LIMIT.search(sentence)
        if found is not None and asked is not None and _OTHER_TASK.search(sentence):
            found = None
        if found is not None:
            break
    if found is None:
        return None
    said = found.group("n").lower()
    limit = int(said) if said.isdigit() else _NUMBERS.index(said) + 1
    return limit if 1 <= limit <= len(_NUMBERS) else None


# A summary's length in sentences: "in one sentence", "in two sentences", "a one-sentence summary", "in a
# single sentence"; "briefly", "a brief/short/quick/concise summary", "in short" ask for one.
_SENTENCE_LIMIT = re.compile(
    r"\b(?:in\s+(?:(?:about|around|under|exactly|just|only|at\s+most|no\s+more\s+than|fewer\s+than|less\s+than)"
    r"\s+)?)?(?P<n>a(?:\s+single)?|single|\d|" + "|".join(_NUMBERS[:5]) + r")[\s-]+sentences?\b",
    re.IGNORECASE,
)
_BRIEF = re.compile(
    r"\b(?:briefly|concisely|in\s+short|in\s+brief|(?:brief|short|quick|concise|one-line|one\s+line)\s+"
    r"(?:summary|recap))\b",
    re.IGNORECASE,
)


def _sentence_limit(own: str, asked: str) -> int | None:
    """The number of sentences (1-5) a summary is asked to take, from ``asked`` (the sentence that asks
    for it) or another sentence of ``own`` that sets no other task; "briefly" or "a short summary" is
    one. None when no length is said (the turn-by-turn summary)."""
    candidates = [asked] + [
        sentence
        for sentence in re.split(r"(?<=[.!?\n])\s*", own)
        if sentence and sentence != asked and not _OTHER_TASK.search(sentence)
    ]
    for sentence in candidates:
        found = _SENTENCE_LIMIT.search(sentence)
        if found is not None:
            said = found.group("n").lower()
            if said.isdigit():
                limit = int(said)
            elif said in _NUMBERS:
                limit = _NUMBERS.index(said) + 1
            else:  # "a sentence", "a single sentence"
                limit = 1
            return limit if 1 <= limit <= 5 else None
        if _BRIEF.search(sentence):
            return 1
    return None


def _summary_in_sentences(history: tuple[TurnView, ...], limit: int) -> str:
    """A summary of at most ``limit`` sentences, as a model writes one asked "in one sentence": the
    turn-by-turn summary when it has no more sentences than that; else one sentence of what the user
    said, each of their newest sentences quoted in turn ("The user said “I'd like to book a table for
    two tomorrow at 7pm”, then “Luigi's, please”, then asked “can you check the weather too”."), and,
    given two or more, the assistant's newest sentence after it. Deterministic: no draw."""
    restated = [
        view
        for view in history
        if (view.kind in _USER_KINDS or view.kind == "assistant") and view.text.strip()
    ][-SUMMARY_TURNS:]
    if len(restated) <= limit and all(len(_SENTENCE.split(view.text.strip())) == 1 for view in restated):
        return _summary(history)  # a line a turn, each one sentence
    pieces = [
        sentence.strip()
        for text in _user_texts(history)
        for sentence in _SENTENCE.split(text)
        if sentence.strip(" .!?")
    ][-SUMMARY_TURNS:]
    if not pieces:
        assistant = _newest_assistant_sentence(history)
        return f"The assistant said “{assistant}”." if assistant else "Nothing has been said yet."
    clauses = []
    for index, piece in enumerate(pieces):
        verb = "asked" if piece.rstrip().endswith("?") else ("said" if index == 0 else "")
        quoted = f"“{_shortened(piece.rstrip(' .!?'))}”"
        lead = "" if index == 0 else "then "
        clauses.append(f"{lead}{verb + ' ' if verb else ''}{quoted}")
    sentence = "The user " + ", ".join(clauses) + "."
    assistant = _newest_assistant_sentence(history)
    if limit >= 2 and assistant:
        sentence += f" The assistant replied “{assistant}”."
    return sentence


def _newest_assistant_sentence(history: tuple[TurnView, ...]) -> str:
    """The first sentence of the assistant's newest words, without its end mark, or "" when it said
    nothing."""
    said = [view.text.strip() for view in history if view.kind == "assistant" and view.text.strip()]
    return _shortened(_SENTENCE.split(said[-1])[0].rstrip(" .!?")) if said else ""


# A sentence of the instructions that sets a task other than the summary, whose length is its own.
_OTHER_TASK = re.compile(
    r"\b(?:greet|welcome|ask|answer|reply|respond|tell|say|thank|introduce|suggest|list|explain|title|name)\b",
    re.IGNORECASE,
)


def _summary_in_words(history: tuple[TurnView, ...], limit: int) -> str:
    """A summary of at most ``limit`` words, as a model writes one asked for so few: the content words
    of the user's turns, oldest first, each once, numbers and times after the rest ("I'd like to book a
    table for two tomorrow at 7pm" in three words → "Book table tomorrow."), then the assistant's if
    the user's are too few (an assistant's "How can I help you today?" says nothing); "Greetings exchanged
    only." when only greetings or thanks were said, "Nothing said yet." when no one spoke (cut to
    ``limit``)."""
    assistants = [
        _OFFER_OF_HELP.sub("", view.text)
        for view in history
        if view.kind == "assistant" and view.text.strip()
    ]
    texts = _user_texts(history) + assistants
    words: list[str] = []
    numbers: list[str] = []
    for text in texts:
        opened = _TOPIC_OPENING.sub("", text.strip(), count=1)
        for token in lexicon.tokens(opened):
            if (
                token.is_stop
                or token.lower in _FILLERS
                or token.lower in [w.lower() for w in words + numbers]
            ):
                continue
            plain = token.lower in _NUMBERS or any(ch.isdigit() for ch in token.text)
            (numbers if plain else words).append(token.text)
    # greetings and thanks alone are something said: what they were, not that nothing was
    spoken = any(view.text.strip() for view in history if view.kind in ("user_text", "assistant"))
    spoken = spoken or bool(_user_texts(history))
    nothing = ["Greetings", "exchanged", "only"] if spoken else ["Nothing", "said", "yet"]
    chosen = (words + numbers)[:limit] or nothing[:limit]
    first = chosen[0][:1].upper() + chosen[0][1:]
    return " ".join([first, *chosen[1:]]) + "."


# Words of greeting and thanks, which say nothing of what the conversation is about.
_FILLERS = frozenset(
    ("hi", "hello", "hey", "thanks", "thank", "please", "great", "ok", "okay", "sure", "yes", "about", "what")
)
# An assistant's offer of help ("How can I help you today?"), which says nothing of what was asked.
_OFFER_OF_HELP = re.compile(
    r"\b(?:how|what)\s+(?:can|may|could)\s+I\s+(?:help|assist|do\s+for)\b[^.!?]*[.!?]?"
    r"|\bwhat\s+can\s+I\s+do\b[^.!?]*[.!?]?",
    re.IGNORECASE,
)


# What a title or summary set by a Chat system message is of: the conversation, or the text the user sends.
_OF_THE_CONVERSATION = re.compile(
    r"\b(?:conversation|chat|discussion|exchange|dialog(?:ue)?|thread|transcript|message|messages|text"
    r"|input|article|document|email|following|user'?s)\b",
    re.IGNORECASE,
)


def _sentence_at(instructions: str, match: re.Match[str]) -> str:
    """The sentence of ``instructions`` the task ``match`` opens (to its full stop or line end)."""
    end = re.search(r"[.!?\n]", instructions[match.end() :])
    return instructions[match.start() : match.end() + (end.start() if end is not None else len(instructions))]


def _asked(pattern: re.Pattern[str], instructions: str) -> re.Match[str] | None:
    """The first match of ``pattern`` in ``instructions`` whose clause does not refuse it."""
    for match in pattern.finditer(instructions):
        clause = re.split(r"[.;:!?\n]", instructions[: match.start()])[-1]
        if not _REFUSED.search(clause):
            return match
    return None


def _labels(instructions: str) -> list[str]:
    """The labels a classification names, as spelt ("story or question" → ["story", "question"]); [] when
    the instructions ask for none or name fewer than two."""
    match = _asked(_CLASSIFY, instructions) or _asked(_ONE_OF, instructions)
    if match is None:
        return []
    listed = _AFTER_LABELS.sub("", match.group("labels").strip().rstrip(".:;!?"))
    labels: list[str] = []
    for piece in _LABEL_SPLIT.split(listed):
        found = _LABEL.match(piece.strip())
        if found is not None and found.group("label").lower() not in ("either", "one", "of"):
            labels.append(found.group("label"))
    return labels if len(labels) >= 2 else []


# A word that turns the praise or complaint after it into its opposite ("not happy", "don't like", "no
# problem"), one of the three words before it ("not very good", "isn't at all good"), in its own clause:
# the "no" of "No, this is terrible" answers and denies nothing. "never" is left out: "never been so
# happy" praises.
_DENIES = frozenset((
    "not", "no", "don't", "dont", "doesn't", "doesnt", "didn't", "didnt", "isn't", "isnt", "wasn't",
    "wasnt", "aren't", "arent", "weren't", "werent", "won't", "wont", "can't", "cant", "cannot", "hardly",
))  # fmt: skip
_CLAUSES = re.compile(r"[,.;:!?]+|\bbut\b", re.IGNORECASE)


def _polarity(said: str) -> tuple[bool, bool]:
    """Whether ``said`` praises and whether it complains: a word of ``_POSITIVE`` or ``_NEGATIVE``, turned
    to the other by a denial just before it in its clause ("I'm not happy" complains, "No problem,
    thanks" praises)."""
    praised = complained = False
    for clause in _CLAUSES.split(said.lower()):
        words = re.findall(r"[\w'-]+", clause)
        for index, word in enumerate(words):
            positive, negative = word in _POSITIVE, word in _NEGATIVE
            if not (positive or negative):
                continue
            if _DENIES & set(words[max(0, index - 3) : index]):
                positive, negative = negative, positive
            praised, complained = praised or positive, complained or negative
    return praised, complained


# A classification of how the words feel that names no labels ("Classify the user's mood in one word.",
# "Detect the sentiment of the message."): a model names one itself ("Happy", "Positive"). Realtime only
# (a response's own instructions): a chat system message naming the mood is how to answer.
_OPEN_CLASSIFY = re.compile(
    _SET + r"\b(?:classify|categori[sz]e|label|tag|detect|identify|determine|assess|analy[sz]e|rate)\b"
    r"[^.\n]*?\b(?P<what>sentiment|mood|emotion|feeling|tone)s?\b",
    re.IGNORECASE | re.MULTILINE,
)


def _feeling(said: str, what: str) -> str:
    """The answer to an open classification of ``said``'s ``what`` (``_OPEN_CLASSIFY``): for a mood, an
    emotion or a feeling, the first feeling word said not denied ("I am so happy today!" → "Happy"); else
    "Positive", "Negative" or "Neutral" by its praise and complaint (``_polarity``)."""
    praised, complained = _polarity(said)
    if what != "sentiment":
        for clause in _CLAUSES.split(said.lower()):
            words = re.findall(r"[\w'-]+", clause)
            for index, word in enumerate(words):
                if word in wordlists.FEELINGS and not _DENIES & set(words[max(0, index - 3) : index]):
                    return word.capitalize()
    if complained:
        return "Negative"
    return "Positive" if praised else "Neutral"


def _label(labels: list[str], said: str) -> str:
    """The label for ``said``: one the words name (by the word or its stem, the first said), else the one
    its form fits (a question, a request, a greeting, praise or complaint), else the catch-all label,
    else the first."""
    words = re.findall(r"[\w'-]+", said.lower())
    named = [
        (index, label)
        for label in labels
        for index, word in enumerate(words)
        if word == label.lower() or lexicon.stem(word) == lexicon.stem(label)
    ]
    if named:
        return min(named)[1]
    # a support router's labels by what the words are about ("the app crashes" → technical)
    about = [
        (index, label)
        for label in labels
        for index, word in enumerate(words)
        if lexicon.stem(word) in _ABOUT_LABEL.get(label.lower().replace("_", " ").split()[0], ())
    ]
    if about:
        return min(about)[1]
    stripped = said.strip()
    by_form: list[frozenset[str]] = []
    if phrases.is_question(stripped):
        by_form.append(_QUESTION_LABELS)
    elif phrases.greets(stripped):
        by_form.append(_GREETING_LABELS)
    elif stripped:
        by_form.append(_REQUEST_LABELS)
    praised, complained = _polarity(said)
    if praised and not complained:
        by_form.append(frozenset(("positive", "happy", "praise", "compliment")))
    if complained:
        by_form.append(frozenset(("negative", "complaint", "unhappy", "angry")))
    if not words:
        by_form.append(frozenset(("neutral",)))
    for family in by_form:
        for label in labels:
            if label.lower() in family:
                return label
    for label in labels:
        if label.lower() in _CATCH_ALL or label.lower() == "neutral":
            return label
    return labels[0]


def _user_texts(history: tuple[TurnView, ...]) -> list[str]:
    return [view.text.strip() for view in history if view.kind in _USER_KINDS and view.text.strip()]


def _newest_user_text(history: tuple[TurnView, ...]) -> str:
    texts = _user_texts(history)
    return texts[-1] if texts else ""


def _title(history: tuple[TurnView, ...]) -> str:
    """A short noun phrase for the conversation, from its first user words (their first sentence, its
    opening request or question words and a leading article dropped), in title case; "New Conversation"
    when the user said nothing."""
    texts = _user_texts(history)
    if not texts:
        return "New Conversation"
    first = _SENTENCE.split(texts[0])[0].strip().rstrip(".!?")
    topic = _LEADING_ARTICLE.sub("", _TOPIC_OPENING.sub("", first, count=1)).strip(" ,;:")
    words = (topic or first).split()[:TITLE_WORDS]
    while len(words) > 1 and words[-1].lower() in _SMALL_WORDS:
        words.pop()
    return " ".join(
        word
        if word[:1].isupper() or (index and word.lower() in _SMALL_WORDS)
        else word[:1].upper() + word[1:]
        for index, word in enumerate(words)
    )


def _summary(history: tuple[TurnView, ...]) -> str:
    """The newest turns restated: "The user asked: “…”", "The user said: “…”", "The assistant replied:
    “…”" (its first sentence), oldest first; "Nothing has been said yet." when no one spoke."""
    turns = [
        view
        for view in history
        if (view.kind in _USER_KINDS or view.kind == "assistant") and view.text.strip()
    ][-SUMMARY_TURNS:]
    lines: list[str] = []
    for view in turns:
        text = view.text.strip()
        if view.kind == "assistant":
            lines.append(f"The assistant replied: “{_shortened(_SENTENCE.split(text)[0])}”")
        elif phrases.is_question(text):
            lines.append(f"The user asked: “{_shortened(text)}”")
        else:
            lines.append(f"The user said: “{_shortened(text)}”")
    return " ".join(lines) if lines else "Nothing has been said yet."


def _shortened(text: str) -> str:
    words = text.split()
    return text if len(words) <= _QUOTED_WORDS else " ".join(words[:_QUOTED_WORDS]) + " …"
