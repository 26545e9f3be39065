"""Verbs whose everyday sense is an action verb tools are named with, derived from Princeton
WordNet 3.0 by tools/derive_verb_synonyms.py (its docstring states the rule and the rejected
candidates). Generated, reviewed data: regenerate with the script rather than edit by hand.

WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved. Used under the WordNet
3.0 licence: permission to use, copy, modify and distribute this database for any purpose and
without fee or royalty is granted, provided the copyright notice and statements appear on all
copies. THIS DATABASE IS PROVIDED 'AS IS' AND PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR
WARRANTIES, EXPRESS OR IMPLIED. The name of Princeton University may not be used in advertising
or publicity pertaining to distribution of the database."""

VERB_SYNONYMS: dict[str, str] = {
    "begin": "start",
    "block up": "block",
    "call off": "cancel",
    "cease": "stop",
    "check out": "check",
    "check over": "check",
    "check up on": "check",
    "commence": "start",
    "conceal": "hide",
    "demonstrate": "show",
    "detect": "find",
    "discontinue": "stop",
    "discover": "find",
    "finish": "complete",
    "halt": "stop",
    "look for": "search",
    "open up": "open",
    "pass over": "skip",
    "purchase": "buy",
    "quit": "stop",
    "seek": "search",
    "send out": "send",
    "shut": "close",
    "skip over": "skip",
    "suss out": "check",
    "switch off": "turn off",
    "switch on": "turn on",
    "take away": "remove",
    "terminate": "end",
    "tone down": "mute",
}
