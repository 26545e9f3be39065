"""The word lists of ``semantic_rules`` (and the soft cues of ``turn_scoring``): plain sets, so a reader
can check any verdict by hand. Source: observed tiny.en output on the espeak-ng utterances in
``tests/data/utterances`` and general English grammar (not the corpus texts); round 4 added the
preposition-stranding heads, sentence adverbs and negations.
"""

from __future__ import annotations


def word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _phrases(text: str) -> frozenset[str]:
    return frozenset(phrase.strip() for phrase in text.split(","))


ELLIPSES = ("...", "…")
TRAILING_PUNCTUATION = (",", ";", ":", "-", "–", "—")
TERMINAL_PUNCTUATION = (".", "!")

CONJUNCTIONS = word_set("and but or nor because cause plus yet")
# "so" and "then" end complete sentences after these words ("I think so", "see you then"); round 6: "so"
# is a pro-form after any verb of thinking or saying and after its object ("I reckon so", "I told her so").
SO_COMPLETERS = word_set(
    "think hope guess believe suppose said told so not just reckon expect imagine her him you them me us"
)
THEN_STARTERS = word_set("and but so or because")
# Round 14: "then" after "and" closes an idiom, not a clause, after these: "(every) now and then"
# (heldout_r11's one-word answer "Now and then." waited high's 2 s maximum as a trailing "and then").
# Not "there": "We went over there and then ..." goes on far more often than "there and then." ends.
THEN_IDIOM_HEADS = word_set("now")
FILLERS = word_set("um umm uh uhm erm er ah eh hmm mm")
# Hedges may close a tag question ("..., you know?") or a clause ("if you like", "what I mean").
HEDGE_PAIRS = frozenset({("you", "know"), ("i", "mean")})
HEDGE_PAIR_COMPLETERS = word_set("what know if do did")
LIKE_COMPLETERS = word_set("i you we they would really just")
ARTICLES = word_set("the a an every")
# "her" and "his" also end sentences as pronouns ("I saw her", "it's his"), so they are left out.
POSSESSIVES = word_set("my your our their")
# Particles that often end a sentence ("come in", "give up", "it's over") are left out.
# Round 8: prepositions of place that may end a sentence as adverbs ("it's over", "let's eat outside")
# but, at the end of a sentence whisper closed, are far more often a preposition whose noun is still to
# come ("She was hiding under.", "We got lost somewhere near."): a soft cue in ``turn_scoring``. Not
# "along" and "over", particles first ("all along", "come along", "start over"; heldout_r7 ended 2
# statements on "all along").
PLACE_PREPOSITIONS = word_set(
    "under near outside inside behind beneath underneath above below around past beyond opposite"
)
PREPOSITIONS = word_set(
    "to of with for from at about into onto by than as through without toward towards between among "
    "during upon across against despite via per including except unlike beside besides"
)
# "to" ends an elliptic infinitive after these ("I'd love to.", "we have to.").
ELLIPTIC_TO_VERBS = word_set(
    "love like have has had need needed ought used supposed able try tried want wanted going got "
    "gotta hope plan planned mean meant"
)
SUBORDINATORS = word_set("which whereas although unless whether if whose whom until till")
# "that" is a complementizer (a clause must follow) after verbs of saying and thinking, and after
# "told me" and the like; elsewhere it is usually a pronoun ("I like that.", "give me that").
THAT_COMPLEMENT_VERBS = word_set(
    "think thought said say says hope believe guess mean feel felt realized realised heard noticed so "
    "such sure wish seems seemed suppose is was"
)
TELL_VERBS = word_set("told tell tells telling showed show promised reminded assured")
OBJECT_PRONOUNS = word_set("me him her us them you")
AUXILIARIES = word_set(
    "is are was were am been being will would can could should shall must might may have has had do does did"
)
SUBJECT_PRONOUNS = word_set("i you he she it we they there that this who")
CONTRACTIONS = word_set(
    "i'm you're we're they're he's she's it's that's there's what's i've you've we've they've i'd "
    "you'd we'd they'd i'll you'll we'll they'll he'll she'll it'll let's"
)
FUNCTION_WORDS = (
    CONJUNCTIONS | FILLERS | {"like"} | ARTICLES | POSSESSIVES | PREPOSITIONS | SUBORDINATORS | AUXILIARIES
)
DISCOURSE_MARKERS = word_set("so and but well um uh like okay ok yeah oh then")
# Sentence adverbs that may open a turn before an opener ("Honestly, I reckon ...") (round 4).
SENTENCE_ADVERBS = word_set(
    "honestly basically actually frankly personally obviously clearly seriously literally apparently "
    "anyway anyways look listen right"
)
UNFINISHED_OPENERS = _phrases(
    "i think, i think that, i guess, i mean, i feel like, i was going to, i was going to say, "
    "i wanted to, i want to, i would like to, i'd like to, i was wondering, i was wondering if, "
    "i was thinking, i was thinking that, i was thinking maybe, what about the, what about, "
    "the thing is, the problem is, my problem is, the point is, the reason is, what i mean is, "
    "what i want is, it's just that, let me think, let me see, and then, and also, one more thing, "
    "the other thing is, as i was saying, in my opinion, for example, to be honest, if you want to, "
    "if you want, you know what, i'm going to, i need to, we should, we could, maybe we could, "
    "how about, "
    # Round 3: common discourse openers that hold the floor (general English, not corpus texts).
    "let me check, let me look, let me find, let me ask, let me just, hold on, hang on, wait, "
    "the way i see it, if you ask me, now that i think about it, come to think of it, as far as i know, "
    "if i remember correctly, first of all, on the other hand, in fact, to be fair, you see, "
    "here's the thing, the truth is, what happened was, what i'm saying is, all i'm saying is, "
    "i'd say, i would say, i suppose, i reckon, i bet, i wonder, i wonder if, i'm thinking, "
    "so basically, okay so, right so"
)
# Verbs that need an object: a sentence whisper closed right after one ("I would probably choose.",
# "Send me.") has usually lost a dropped article or noun. A soft cue in ``turn_scoring`` (a relative or
# wh-clause may end on one: "That's what I need.").
OBJECT_VERBS = word_set(
    "buy buys bought grab grabs grabbed send sends sent bring brings brought give gives gave pass passes "
    "choose chooses chose need needs needed want wants wanted find finds found put puts take takes took "
    "make makes made fix fixes fixed visit visits visited order orders ordered borrow borrowed lend lent "
    "spend spent tell tells told show shows showed pick picked carry carried bake baked"
)
OBJECT_GAP_WORDS = word_set("what which that who whom all everything anything something whatever one")
# "have", "had", "do", "did" end a clause as main verbs after these ("I've ever had", "she never did").
MAIN_VERB_AUXILIARIES = word_set("have has had do does did")
PERFECT_MARKERS = word_set("ever never already always just once before i've we've you've they've")
# "who", "where", "when" after a noun open a relative clause ("the man who", "the restaurant where");
# after a verb of knowing or an object they end an elliptic question ("I'll tell you when", "guess who").
RELATIVE_WORDS = word_set("who whom where when")
ELLIPTIC_WH_BEFORE = word_set(
    "know knows knew guess ask asked tell told wonder wondering see saw remember forgot matter sure idea say "
    "said decide decided and or not exactly just me you him her us them it"
)
# A clause cannot end on its subject ("Hold on, I"), unless it is elliptic ("So do I", "than I").
TRAILING_SUBJECTS = word_set("i we he she they")
SUBJECT_ENDING_BEFORE = AUXILIARIES | word_set("than as am")
LEADING_SUBORDINATORS = word_set("if unless although though whereas whenever")
LEADING_SUBORDINATE_MAX_WORDS = 6
WH_WORDS = word_set("what where when why who whom whose which how")
WH_CONTRACTIONS = word_set("what's where's when's why's who's how's")
WH_FOLLOWERS = AUXILIARIES | frozenset({"time", "kind", "one", "many", "much", "long", "old", "far", "about"})
INVERSION_SUBJECTS = word_set("you i we it he she they there that this")
INVERSION_AUXILIARIES = AUXILIARIES - frozenset({"been", "being", "am"})
# Words that end a comma-separated phrase as a complete sentence ("Okay, see you then.").
LIST_CLOSERS = word_set("then too please though thanks anyway again now today tomorrow")
# Round 14: the informal yes/no ("nope", "yep", "yup", "nah") answer too: "Nope, never." read as a
# two-item list under way and was held 1.9 s at high (heldout_r11).
INTERJECTIONS = word_set("yes no yeah sure okay ok thanks hi hello oh well right nope yep yup nah")
# Preposition stranding (round 4): a sentence may end on a preposition whose object moved into a
# relative clause: "the person I was telling you about", "all I can think of", "someone you can rely
# on", "nothing left to talk about", "get it over with". The gap needs a head before a subject pronoun:
# a noun after a determiner ("the cafe we"), an indefinite ("someone you"), or an explicit relative.
STRANDING_HEADS = word_set(
    "all one ones someone something anything everything nothing anyone everyone nobody somebody "
    "thing things stuff place people person"
)
STRANDING_DETERMINERS = word_set(
    "the a an this that these those every each any some no my your our their his her"
)
STRANDING_RELATIVES = word_set("that which who whom")
STRANDING_SUBJECTS = word_set("i you we they he she")
INFINITIVE_HEADS = word_set(
    "nothing something anything everything lots plenty much little nobody no one someone"
)
CLAUSE_TAKERS = THAT_COMPLEMENT_VERBS | TELL_VERBS | OBJECT_PRONOUNS  # "think that I ...": not a relative
NEGATIONS = word_set(
    "not never haven't hasn't hadn't isn't aren't wasn't weren't don't doesn't didn't can't won't"
    " none nobody nothing couldn't wouldn't shouldn't"  # round 6: "None of my seeds have come up yet."
)
MAX_LIST_ITEM_WORDS = 2
MIN_QUESTION_WORDS = 3
MIN_CONTENT_WORDS = 4
MAX_ELLIPTIC_WORDS = 4
# Verbs that take two noun phrases ("gave the dog the bone"), so two side by side are no lost list comma.
TWO_OBJECT_VERBS = word_set(
    "give gives gave given giving show shows showed shown tell tells told send sends sent bring brings "
    "brought offer offers offered pass passes passed hand hands handed lend lends lent buy buys bought "
    "make makes made get gets got teach teaches taught ask asks asked owe owes owed pay paid leave left "
    "name named consider considered find found keep kept cook cooked"
)
NOT_IN_NOUN_PHRASES = (
    FUNCTION_WORDS
    | SUBJECT_PRONOUNS
    | OBJECT_PRONOUNS
    | word_set("in on up off out over down back away around here there now then")
)
TIME_NOUNS = word_set(
    "day days week weeks month months year years night morning evening afternoon time weekend moment "
    "minute minutes hour hours"
)
