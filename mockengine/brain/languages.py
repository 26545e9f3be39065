"""The language the app's instructions tell the assistant to answer in ("Always answer in French.",
"Respond only in Spanish.", "You only speak German."), and the brain's stock replies in it.

The mock does not translate (docs/translation.md): whisper tiny.en hears English and there is no
translation model. What it has is a small table of its own stock replies, written once per language, for
the replies it composes from the user's words alone: a greeting, thanks, a farewell, "how are you", a
statement echoed, a question echoed. In another language the user's words are quoted as said (a model
would translate them; we cannot), and a question is answered "I don't know" in that language even where
the English reply knew the fact (a fact said in English would break the instructions' one rule). Replies
an app or a scenario wrote (dictated text, a rule's ``say``) and replies about tools (a call's outcome,
the tool's output) stay as written: only the languages below, only the kinds above.
"""

from __future__ import annotations

import random
import re

from mockengine.brain import utterance

# A sentence that sets the reply's language as a rule: a verb of answering (answer, respond, reply, speak,
# talk, write, communicate, converse), "only" or "always" anywhere before "in <language>", or "<language>
# only". "Translate the text into French" is a task, and "If the user writes in French, answer in French"
# a condition we cannot read: neither sets it.
_VERB = r"(?:answer|respond|reply|speak|talk|write|communicate|converse|chat)(?:s|ing)?"
_LANGUAGE_NAMES = ("french", "spanish", "german")
_RULE = re.compile(
    rf"\b{_VERB}\b[^.!?\n]{{0,40}}?\b(?:in|using)\s+(?:the\s+)?(?P<language>{'|'.join(_LANGUAGE_NAMES)})\b"
    rf"|\b(?:only|always)\s+(?:ever\s+)?{_VERB}\s+(?P<tongue>{'|'.join(_LANGUAGE_NAMES)})\b",
    re.IGNORECASE,
)
_CONDITION = re.compile(r"\b(?:if|when|unless|whenever)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")


def reply_language(instructions: str) -> str | None:
    """The language (``"french"``, ``"spanish"``, ``"german"``) the instructions set for every reply in a
    sentence of their own, else None (English, or a language we have no replies in)."""
    for sentence in _SENTENCE.findall(instructions or ""):
        if _CONDITION.search(sentence):
            continue
        found = _RULE.search(sentence)
        if found is not None:
            return (found.group("language") or found.group("tongue")).lower()
    return None


# Our own words, one or two per kind and language: what the brain says, not a translation of the user.
_REPLIES: dict[str, dict[str, tuple[str, ...]]] = {
    "french": {
        "greeting": ("Bonjour ! Je suis {persona}. Comment puis-je vous aider ?",),
        "thanks": ("Je vous en prie.", "Avec plaisir."),
        "farewell": ("Au revoir, à bientôt !", "Au revoir !"),
        "how_are_you": ("Je vais bien, merci de demander.",),
        "said": ("Vous avez dit : « {echo} ». Dites-m'en plus.", "J'ai bien entendu : « {echo} »."),
        "asked": ("Vous demandez : « {echo} ». Je ne sais pas, désolé.",),
        "not_heard": ("Pardon, je n'ai pas bien entendu. Pouvez-vous répéter ?",),
    },
    "spanish": {
        "greeting": ("¡Hola! Soy {persona}. ¿En qué puedo ayudarte?",),
        "thanks": ("De nada.", "Con gusto."),
        "farewell": ("¡Adiós, hasta pronto!", "¡Hasta luego!"),
        "how_are_you": ("Estoy bien, gracias por preguntar.",),
        "said": ("Has dicho: «{echo}». Cuéntame más.", "Te he oído: «{echo}»."),
        "asked": ("Preguntas: «{echo}». No lo sé, lo siento.",),
        "not_heard": ("Perdona, no te he oído bien. ¿Puedes repetirlo?",),
    },
    "german": {
        "greeting": ("Hallo! Ich bin {persona}. Wie kann ich Ihnen helfen?",),
        "thanks": ("Gern geschehen.", "Bitte sehr."),
        "farewell": ("Auf Wiedersehen, bis bald!", "Tschüss!"),
        "how_are_you": ("Mir geht es gut, danke der Nachfrage.",),
        "said": ("Sie haben gesagt: „{echo}“. Erzählen Sie mir mehr.", "Ich habe gehört: „{echo}“."),
        "asked": ("Sie fragen: „{echo}“. Das weiß ich leider nicht.",),
        "not_heard": ("Entschuldigung, ich habe Sie nicht verstanden. Können Sie das wiederholen?",),
    },
}
_HOW_ARE_YOU = re.compile(r"^\W*how\s+(?:are|r)\s+(?:you|u)\b(?:\s+(?:doing|today))?\W*$", re.IGNORECASE)
_HELLO = re.compile(
    r"^\W*(?:hi|hello|hey|hiya|howdy|greetings|good\s+(?:morning|afternoon|evening))(?:\s+there)?\W*$",
    re.IGNORECASE,
)
_ECHO_MAX_CHARS = 200  # a long text is quoted by its opening, as the English echo is


def stock_reply(language: str, heard: str, persona: str, rng: random.Random, is_question: bool) -> str:
    """The brain's reply to the user's words ``heard`` in ``language`` (one of ``reply_language``'s):
    by the words' kind (module doc), the words themselves quoted when echoed. ``is_question``: the
    words ask something (``phrases.is_question``, passed in: this module sits beneath phrases)."""
    replies = _REPLIES[language]
    words = heard.strip()
    if not words:
        kind = "not_heard"
    elif _HELLO.match(words):
        kind = "greeting"
    elif utterance.ONLY_THANKS.search(words):
        kind = "thanks"
    elif utterance.ONLY_FAREWELL.search(words):
        kind = "farewell"
    elif _HOW_ARE_YOU.match(words):
        kind = "how_are_you"
    else:
        kind = "asked" if is_question else "said"
    echo = words.rstrip(".!?… ")
    echo = echo if len(echo) <= _ECHO_MAX_CHARS else echo[:_ECHO_MAX_CHARS].rsplit(" ", 1)[0] + " …"
    return rng.choice(replies[kind]).format(persona=persona, echo=echo)


def greeting(language: str, persona: str) -> str:
    """The brain's own greeting (the first reply, nothing said yet) in ``language``."""
    return _REPLIES[language]["greeting"][0].format(persona=persona)
