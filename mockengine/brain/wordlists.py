"""Word lists for the tool matcher (``lexicon`` uses them): stop words, synonym groups, the groups that
are actions, multi-word phrases rewritten before tokenizing, fillers said while thinking, and the
associations that let an indirect request ("it's too dark in here") reach the tool it implies; and the
vocabularies more than one module reads: feelings by sentiment, a support request's topics.

Common English, not the labelled sets' sentences: a group is words a speaker uses for one action or
thing; an association is a thing that implies another ("dark" → light, switched on).
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOPWORDS = _words(
    "a an the me my our us you your i we it its this that these those them one ones please can could "
    "would will shall should do does did just to of for in on at by with from into onto and or but "
    "then so is are was be been am let lets let's now some any there here up down okay ok hey hi yeah "
    "yes go going want wanna like need id i'd i'm im you're it's that's what's whats actually well oh "
    "nah hmm alright yep sure what which who how"
)

# Languages by their English names: what a language parameter takes ("in Portuguese"), never a place's
# name ("a trip to Lisbon" names no language).
LANGUAGES = _words(
    "english spanish french german italian portuguese dutch flemish swedish norwegian danish finnish "
    "icelandic polish czech slovak hungarian romanian bulgarian greek turkish russian ukrainian belarusian "
    "serbian croatian bosnian slovenian macedonian albanian lithuanian latvian estonian irish welsh gaelic "
    "catalan basque galician maltese japanese chinese mandarin cantonese korean vietnamese thai lao khmer "
    "burmese indonesian malay tagalog filipino hindi urdu bengali punjabi tamil telugu marathi gujarati "
    "kannada malayalam nepali sinhala arabic hebrew persian farsi pashto kurdish swahili amharic yoruba "
    "igbo hausa zulu xhosa afrikaans somali latin esperanto mongolian kazakh uzbek georgian armenian "
    "azerbaijani maori hawaiian yiddish"
)

# The words after "I"/"we" that say a thing must be done ("I need to …", "we have to …"): a to-do said to a
# to-do tool (rewritten to "todo") and, opening the words, the request's frame to any other tool
# (``slots``).
NEED_TO = ("need to", "have to", "must", "should", "gotta", "got to")

# What one wears or packs against the weather: asked of ("will I need a coat?", "should I pack sunscreen
# for Rome?") it asks for the forecast, a weather concept (``intent.rank``); in a request ("find me a winter
# coat") it is a thing, no weather asked.
WORN_AGAINST_WEATHER = frozenset(
    [
        "coat",
        "coats",
        "raincoat",
        "jacket",
        "jackets",
        "sunscreen",
        "suncream",
        "sunblock",
        "sunglasses",
        "gloves",
        "scarf",
    ]
)

GROUPS: tuple[tuple[str, ...], ...] = tuple(
    tuple(group.split())
    for group in (
        "open show display view see focus check",
        "launch play run start watch demo",
        "pause hold",
        "stop halt cease quit",
        "resume continue unpause",
        "restart replay rewind beginning over",
        "close exit dismiss leave end hang",
        "next forward ahead skip",
        "prev previous before preceding earlier",
        "back return backward backwards",
        "favorite favourite bookmark star heart save fav",
        "like love enjoy",
        "dislike hate",
        "remove delete unfavorite unfavourite drop cancel clear discard scrap ditch scratch trash bin undo",
        "add put include insert append chuck stick throw",
        "flip turnover reverse side face",
        "filter only narrow category tag topic kind",
        "rate rating reaction thumb thumbs score vote",
        "navigate move go jump",
        "details detail info information about more spec specs description background lowdown",
        "state screen seeing looking selected",
        "media video clip movie film playback",
        "buy purchase checkout order pay",
        "cart basket bag trolley",
        "search find look browse lookup seek",
        "product item thing stuff",
        "remind reminder remember alert",
        "event meeting appointment calendar",
        "create make setup schedule book jot write compose reserve reservation",
        "apply use redeem enter",
        "list agenda upcoming planned",
        "last latter",
        "complete done finish finished tick",
        "track status shipping deliver delivery arrive package",
        "coupon code promo voucher discount",
        "light lamp lights bulb lighting",
        "temperature thermostat heat heating warm warmer cool cooler degree hot cold colder freezing chilly",
        "volume loud louder quiet quieter softer mute",
        "music song track tune playlist album",
        "weather rain rainy raining snow snowing snowy wind windy sunny umbrella cloudy storm stormy outside "
        + " ".join(sorted(WORN_AGAINST_WEATHER)),
        "ride car taxi cab trip journey lift travel",
        "email mail inbox emails",
        "money dollars dollar bucks euros euro pounds cash funds",
        "photo photos picture pictures pic pics image images snapshot snapshots",
        "alarm alarms wake",
        "human person people someone agent representative operator",
        "availability available free vacancy vacancies",
        "todo to-do task tasks chore chores errand errands",
        "change update edit modify alter",
        "convert exchange swap",
        "lock secure bolt",
        "unlock unbolt",
        "shuffle random mix",
        "bright brightness dim brighter dimmer",
        "on enable activate",
        "off disable deactivate kill",
        "up positive upvote",
        "down negative downvote",
    )
)

# How someone says they feel ("I'm happy", "feeling a bit anxious"), by the sentiment it shows: what a
# "mood" property is filled with (``chat.shaping``) and what a sentiment label is chosen by (``tasks``).
# OTHER_FEELINGS show none, or said bare mean something else ("I'm afraid it's late" is politeness, "fine"
# and "content" are also nouns).
POSITIVE_FEELINGS = _words(
    "happy excited thrilled calm relaxed cheerful glad grateful hopeful proud joyful great good energetic "
    "motivated optimistic"
)
NEGATIVE_FEELINGS = _words(
    "unhappy sad angry mad furious upset tired exhausted anxious nervous worried stressed scared bored "
    "lonely frustrated annoyed depressed bad awful terrible sick ill overwhelmed disappointed"
)
OTHER_FEELINGS = _words("sleepy afraid content confused curious fine okay ok surprised")
FEELINGS = POSITIVE_FEELINGS | NEGATIVE_FEELINGS | OTHER_FEELINGS

# The words (whole words or phrases) a support request says of its topic, by the routing label that names
# the topic: "I was charged twice" is billing, "I'm locked out" account. A ticket's category enum
# (``scales``) and a support router's labels (``tasks``) are picked by them.
SUPPORT_TOPICS: dict[str, tuple[str, ...]] = {
    "billing": ("charged", "overcharged", "charge", "invoice", "payment", "bill"),
    "technical": ("crash", "crashes", "crashing", "bug", "error", "not working", "doesn't work"),
    "account": ("log in", "login", "sign in", "password", "locked out"),
    "shipping": ("package", "parcel", "shipment", "delivery", "tracking"),
}

# The verbs of a tool that reads, which changes nothing ("get_weather", "list_orders", "track_package").
READ_VERBS = _words("get list view show check track find search read")

ACTIONS = _words(
    "open launch pause stop send share resume restart close next prev back favorite like dislike remove add "
    "flip filter rate navigate buy search remind create complete track lock unlock shuffle state apply"
)

_DAY_WORD = (
    r"(?:day|today|tomorrow|tonight|week|weekend|morning|afternoon|evening"
    r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
)
_TAKING = (
    r"(?:i'll|i will|we'll) (?:have|take) (?=(?:two|three|four|five|six|seven|eight|nine|ten|\d+|some"
    r"|a dozen|half a dozen|a couple|a few|a pair)\b"
    r"|(?:it|that|this|them|those|these|one)\s*(?:[,.!?]|$))"
)

PHRASES: tuple[tuple[str, str], ...] = (
    (r"(where|when|how|who)'s", r"\1 is"),
    # "What's it like in Berlin right now?", "how is it in Oslo at the moment?": a place at the present,
    # with no subject but "it", is asked after its weather, as a model reads it (current_conditions was
    # not called); "what's it like to live in Berlin", "how is it going" ask no such thing
    (
        r"(?:what(?:'s| is)|how is) it(?: like| looking| doing)?(?: out there| outside| out)? "
        r"(?=(?:in|at) [^?.!,;]*\b(?:right now|now|at the moment|currently|today|this (?:morning|afternoon"
        r"|evening)|tonight)\b)",
        "what is the weather like ",
    ),
    (r"how (?:do|would|can) (?:you|i|we) say", "translate"),  # "how do you say 'thank you' in German"
    (r"what (?:does|do) ('[^']+'|\"[^\"]+\") mean", r"translate \1"),
    ("thumbs up", "thumbs up"),
    ("thumbs down", "thumbs down"),
    # seeing a doctor is an appointment with them ("I need to see Dr. Patel", "can I see the dentist";
    # not "see Doctor Who", a show, nor "you should see the dentist's new office")
    (
        r"(?<!you )(?<!you'll )(?<!should )(?<!must )(?:see|visit) (?:a |an |the |my )?"
        r"(?!(?:doctor|dr\.?) who\b)"
        r"(?=(?:dr|doctor|dentist|gp|nurse|physio|physiotherapist|therapist|optician|specialist|hygienist|surgeon|consultant|pediatrician|paediatrician|dermatologist|vet)\b(?!'s))",
        "book appointment with ",
    ),
    # a review, a comment or a note is written when it is left ("leave a review": not leaving)
    (
        r"\bleave (a|an|some|my|our|your|the) "
        r"(?=(?:review|reviews|comment|comments|note|notes|message|feedback|rating|tip|voicemail)\b)",
        r"write \1 ",
    ),
    ("pull up", "open"),
    ("bring up", "open"),
    # "Take me to the settings": a place opened; "take me to the weather agent", "… to a human": being put
    # through to someone (an Agents SDK handoff's own verb), no screen opened
    (
        r"take me to(?! (?:the |a |an |your |my |some )?(?:[a-z]+[ -]){0,2}"
        r"(?:agent|agents|person|human|someone|somebody|team|department|desk|representative|rep|operator"
        r"|specialist|manager|supervisor|assistant|bot)\b)",
        "open",
    ),
    ("check out", "checkout"),
    ("look for", "search"),
    # "Look up an order" is a search, not what is on screen: lookup_order matched "my screen is broken"
    ("look up", "lookup"),
    ("keep going", "resume"),
    ("carry on", "resume"),
    ("start over", "restart"),
    ("from the start", "restart"),
    ("from the beginning", "restart"),
    ("one before", "previous"),
    ("the one before", "previous"),
    ("go back", "back"),
    ("turn over", "turnover"),
    ("other side", "flip side"),
    ("what am i (?:seeing|watching|looking at)", "screen state"),
    ("on screen", "screen state"),
    ("on the screen", "screen state"),
    ("looking at", "looking state"),
    ("turn on", "on"),
    ("switch on", "on"),
    ("turn off", "off"),
    ("switch off", "off"),
    ("turn up", "louder"),
    ("turn down", "quieter"),
    ("take out", "remove"),
    (r"(?:take|get) (.+?) off (?=(?:the|my|our|your) )", r"remove \1 from "),
    ("check(?:ed)? off", "complete"),
    (r"last (?:night|week|weekend|month|year|time)", "formerly"),  # a time past, not the last one
    (r"(?:want|need|have|got|like) to (?:go|get) to", "travel to"),
    (r"(?:i|we)(?:'ve| have)? (?:already |just )?(?:did|done)", "done"),
    (rf"(?:i|we) (?:really )?(?:{'|'.join(NEED_TO)})(?= \w)", "todo"),
    ("to do", "todo"),
    (r"(?:make |take )?(?:a )?note (?:that|of)", "create note saying"),
    (r"(?:jot|write|note) (?:(?:it|this|that) )?down", "create"),
    ("tick(?:ed)? off", "complete"),
    ("check (?:up )?on", "status"),
    ("take a note", "create note"),
    ("gets? here", "arrive"),
    ("how long until", "when"),
    (r"(?:how long|how much longer) (?:till|til|'til|before|left)", "when time left"),  # a time remaining
    (r"\b([a-z]+)-wise\b", r"\1"),  # "reminders-wise": about the reminders
    ("(?:we're|we are|i'm|i am) (?:all )?out of", "add"),
    ("(?:we|i) (?:ran|run|have run) out of", "add"),
    ("can't see", "dark"),
    ("cannot see", "dark"),
    ("get rid of", "remove"),
    ("mark as done", "complete"),
    ("cross(?:ed)? off", "complete"),
    ("i'd like", "want"),
    ("would like", "want"),
    ("put on", "play"),
    ("do i have", "list"),
    ("set up", "create"),
    (r"turn (\w+(?: \w+)?) over", r"flip \1"),
    ("open up", "open"),
    ("let's look at", "open"),
    ("look at", "open"),
    ("what've i got", "list"),
    ("what have i got", "list"),
    ("am i (?:free|busy)", "list"),
    ("block out", "schedule"),
    (r"(?:pencil|slot|squeeze) (?:me |us )?in\b", "schedule"),
    (r"(?:fit|book|put) (?:me |us )?in(?= (?:a|an|the|my|our|some)\b)", "schedule"),
    ("don't let me forget", "remind me"),
    ("do not let me forget", "remind me"),
    (r"make (it|this one|that one|them)(?= \w)", r"set \1"),  # "make this one black and white"
    (
        r"(?:crank|turn|bring) (?:it|this|that|the (?:music|volume|sound|radio|tv|telly|speaker))"
        r" (?:right |way |all the way )?up",
        "set louder",
    ),
    (
        r"(?:crank|turn|bring) (?:it|this|that|the (?:music|volume|sound|radio|tv|telly|speaker))"
        r" (?:right |way |all the way )?down",
        "set quieter",
    ),
    ("got any", "search"),
    ("do you (?:guys |folks |all )?have", "search"),
    ("do you (?:guys |folks |all |lot )?(?:sell|stock|carry|do)", "search"),
    ("i'm after", "search"),
    ("i'm looking for", "search"),
    ("looking for", "search"),
    ("what's in", "view in"),
    (r"the following (?=one|card|item|page|song|track|episode)", "the next "),
    (r"(?:sign|put) (me|us) (?:up |down )?(?:for|to|on)\b", r"book \1 for"),  # "sign me up for boxing"
    (r"(?:enrol|enroll|register) (me|us) (?:for|on|in)\b", r"book \1 for"),
    (r"the (?:one|card|item|thing|ones) (?:about|with|on|called) (?=the |a |an )", ""),  # "the one about …"
    # everyday idioms for the actions above
    (r"(?:i'm|i am) not (?:a|really a|much of a) (?:big )?fan(?: of)?", "dislike"),
    (r"(?:i'm|i am) (?:a )?(?:big |huge )?fan of", "like"),
    (r"(?:throw|stick|whack|chuck|bung) on (?=some|a|an|the|my)", "play "),
    (r"how (?:do|can|should|would) (?:i|we) get (?=to|from|home)", "travel "),
    (r"\bget (me|us) (?=from\b|to\b|home\b)", r"travel \1 "),
    (r"\bover to\b", "to"),
    (r"(?<=\w),\s*(?:and\s+)?go(?=\s*[!.]*\s*$)", " start"),  # "fifty minutes of chemistry, go": start now
    (
        r"how much (?:is|does|will) (?:all |the )?(?:this|that|it|everything)(?: all)? "
        r"(?:come|coming|add|adding) (?:to|up)",
        "view cart total",
    ),
    ("what is in", "view in"),
    # a price asked without the word: "what does a Margherita cost?", "how much is a large latte?", "how
    # much do the tickets cost?" ask for a price, as "what's the price of …" does
    (
        r"what (?:does|do|did|would|will|'d|'ll) (?!(?:it|that|this|everything|all)\b)(.+?) cost\b",
        r"price of \1",
    ),
    (
        r"how much (?:does|do|did|would|will) (?!(?:it|that|this|everything|all)\b)(.+?) cost\b",
        r"price of \1",
    ),
    # an amount of money asked in another currency converts it: "how much is 20 pounds in yen?", "how
    # much is 100 USD in EUR?" (by its ISO 4217 code, as written in a chat)
    (
        r"(?:how much (?:is|are|would be)|what(?: is|'s| are| would be)) "
        r"(?=(?:\S+ ){1,3}?(?:dollars?|bucks|euros?|pounds?|quid|yen|yuan|francs?|rupees?|pesos?|won|"
        r"rand|zloty|lira|kron(?:a|or|e|er)|usd|eur|gbp|jpy|cad|aud|chf|cny|inr|mxn|sek|nok|dkk) "
        r"(?:in|into|to) \w)",
        "convert ",
    ),
    (r"how much (?:is|are|'s) (?=(?:a|an|the|one|two|three|four|\d+) \w)", "price of "),
    # a keeping or adding verb in an idiom keeps and adds nothing ("save me some time and …")
    (
        r"\bsave (?:me|us|you|him|her|them) (?:some |a lot of |a bit of |the )?"
        r"(?:time|trouble|effort|hassle|bother)\b",
        "",
    ),
    (r"\b(?:adds|added|add) up\b", "comes"),
    ("get me out of here", "exit"),
    # "I want my money back": a refund asked for ("give me my money back", "can I get my money back")
    (r"\b(?:my|our|the|their|his|her) money back\b", "a refund"),
    # "I forgot my password": a password reset asked for, as a support desk's model reads it
    (
        r"\b(?:forgot|forgotten|can't remember|cannot remember|lost) (?:my|our|the) password\b",
        "reset my password",
    ),
    ("what's on", "list on"),
    ("what is on", "list on"),
    (r"take (.+?) out of", r"remove \1 from"),
    (r"take (it|them|that|this|those|these) out\b", r"remove \1"),
    # colloquial verbs of everyday English for the actions above
    (r"(?:nudge|ping|buzz|prod) (me|us)\b", r"remind \1"),
    # a medium used as a verb for a person: "message Tom saying …", "text Ana that …"
    (
        r"(?:(?<=^ )|(?<=, )|(?<=and ))(?:message|text|dm|whatsapp) "
        r"(?!(?:the|a|an|my|your|our|it|this|that|is|was|me|us|message|box)\b)(?=\w)",
        "send a message to ",
    ),
    # … or for a number written with its area code in parentheses or its country's code ("text (415)
    # 555-0199 that …", "text +44 7700 …"), which starts with no word (kept by the group: the pattern
    # ends on a word's edge)
    (
        r"(?:(?<=^ )|(?<=, )|(?<=and ))(?:message|text|dm|whatsapp) (\(\d+|\+\d+)",
        r"send a message to \1",
    ),
    # "email Bob: the meeting moved" (read "email Bob saying …"): an email sent to the person named
    (
        r"(?:(?<=^ )|(?<=, )|(?<=and )|(?<=please ))e-?mail "
        r"(?!(?:the|a|an|my|your|our|it|this|that|is|was|me|us|address|box|inbox)\b)(?=\w)",
        "send an email to ",
    ),
    # "tell Sarah: I'm running late" (read "tell Sarah saying …"), "tell Sarah that …": a message to her;
    # "tell me a joke", "tell them the hours" ask the assistant to say something
    (
        r"(?:(?<=^ )|(?<=please ))tell (?!(?:me|us|you|the|a|an|my|your|our|it|this|that|everyone)\b)"
        r"(?=[\w'-]+(?: [\w'-]+)? (?:saying|that)\b)",
        "send a message to ",
    ),
    (r"give (me|us) a (?:shout|nudge|buzz|ping)", r"remind \1"),
    (r"(?<!to )(?<!gonna )lose (it|them|that|those|this|these|the|my)\b", r"remove \1"),
    (r"(?:fire|boot|spin|power|start) up", "launch"),
    ("kick off", "launch"),
    (r"(?:see|watch) (it|this|that) in action", r"launch \1"),
    # "freeze it" pauses a player and freezes a card: both words heard
    (r"freeze (it|that|this|there|the \w+)", r"pause freeze \1"),
    ("freeze frame", "pause"),
    (r"(?:from|at) the (?:very )?top(?! of\b)", "restart"),
    (r"\bfinal (?=\w)", "last "),  # "the final card", not "what a final!"
    (r"(?:all the way )?(?:to|at) the (?:very )?(?:start|beginning|top|front) of the \w+", "first"),
    (r"(?:all the way )?(?:to|at) the (?:very )?(?:end|bottom|back) of the \w+", "last"),
    (r"the one after(?: (?:this|that|it))?", "next"),
    ("one after", "next"),
    (r"back (?:one|a) (\w+)", r"previous \1"),
    (r"(?:cross|tick|check|strike) (it|that|this|them|those|these|\w+) off", r"complete \1"),
    (r"pop (.+?) (?:in|on)(?= for\b| on\b| at\b|$)", r"add \1"),
    (r"pop (.+?) (?:in|into) (?=the|my|our)", r"add \1 to "),
    (r"let (?!me\b|us\b)(.+?) in (?=through\b|by\b|at\b)", r"unlock \1 "),
    (r"let (?!me\b|us\b)(.+?) in\b(?! on\b)", r"unlock \1"),
    (r"let (?!me\b|us\b)(?:\w+) into (?=the|my|our)", "unlock "),
    (r"read (?:me|out) (my|the|all)", r"list \1"),
    (rf"what does ((?=(?:\S+ )*?{_DAY_WORD}\b).+?) look like", r"list \1"),  # "what does friday look like"
    (r"what(?:'s| is) the damage", "view cart total"),
    (r"what do (?:i|we) owe", "view cart total"),
    # "I'll have six of the batteries", not "I'll have a think" or "I'll take it from here"
    (_TAKING, "add "),
    (r"get (me|us) ((?:\w+ ){1,2})of (those|these|them)\b", r"add \2of \3"),  # "get me two of those"
    (r"turn (it|this|that) (?:a)?round", r"flip \1"),
    (r"(?:i|we) only care about", "only"),
    (r"black (?:and|&) white|b&w|monochrome", "grayscale"),
    (r"change (.+?) into\b", r"convert \1 into"),
    (r"start (an?|a new|new) (note|list|document|file|draft|page|entry|doc)\b", r"create \1 \2"),
)

# Things asked for that are no service of an app's: help, a moment, a word, an answer. Both the ordering
# tool's reading (``intent.ordered_thing``) and the claim that no tool gives a thing asked for
# (``intent.got_undeclared``) read it.
NO_THING = frozenset((
    "help", "hand", "moment", "minute", "second", "sec", "chance", "word", "question", "answer", "idea",
    "clue", "sense", "break", "look", "bit", "little", "lot", "few", "person", "human", "agent", "someone",
    "manager", "representative", "supervisor", "operator", "more", "favour", "favor", "hint", "tip",
    "summary", "translation", "explanation",
))  # fmt: skip

# What a business does for a customer rather than sells: asked for ("can I get a refund?"), it is no
# thing an ordering tool orders.
SERVICES = frozenset((
    "refund", "return", "exchange", "update", "copy", "receipt", "invoice", "quote", "estimate", "discount",
    "appointment", "reservation", "booking", "table", "room", "ride", "callback", "call", "replacement",
    "upgrade", "account", "password", "statement", "balance", "order", "delivery", "status", "ticket",
    "confirmation", "number", "code", "coupon", "voucher", "credit", "loan", "job", "time", "day", "date",
    "taxi", "cab", "sample", "taste",
))  # fmt: skip
# A tool's first word that orders a thing (``order_drink``, ``buy_ticket``, ``purchase_item``).
ORDERING_VERBS = frozenset(("order", "buy", "purchase"))
# What a shop, a café or a venue gives or seats a customer with, and words that name no thing itself ("a
# cheaper one", "a vegetarian option", "a bigger size"): the head of a thing asked for that is none of
# what an ordering tool sells ("Can I get a menu?" orders no drink "menu").
NOT_SOLD = frozenset((
    "one", "ones", "option", "options", "size", "kind", "type", "choice", "thing", "something", "menu",
    "bill", "check", "tab", "recommendation", "suggestion", "waiter", "waitress", "server", "seat", "chair",
    "card", "straw", "straws", "napkin", "napkins", "price", "booth", "booster", "list", "fork", "forks",
    "spoon", "spoons", "knife", "knives", "chopsticks", "cutlery", "utensils", "silverware", "toothpick",
    "toothpicks", "stirrer", "stirrers",
))  # fmt: skip
# The sizes a thing sold comes in: said alone ("A large please") they name no thing.
SIZES = frozenset(("small", "medium", "large", "regular", "big", "little", "tall", "grande", "venti"))
# What a shop or a café adds to a sale rather than sells, by the words that name it ("Can I get gift wrap?",
# "an extended warranty"): no thing an ordering tool orders. Phrases, as "wrap" alone is food.
EXTRAS = (
    "warranty", "guarantee", "insurance", "protection plan", "gift wrap", "gift wrapping", "gift-wrap",
    "gift-wrapping", "gift receipt", "wrapping", "installation", "assembly", "refill",
)  # fmt: skip
# What a thing sold is carried away or served in ("a box for leftovers", "a to-go box", "a bag for this", "a
# glass"): asked for alone, or with only words of ``PACKAGING_KINDS``, it is no thing sold; "a box of
# donuts" is the donuts, and "a bento box", "a sleeping bag", "a poke bowl" are things sold.
PACKAGING = frozenset((
    "box", "bag", "container", "carrier", "carton", "lid", "sleeve", "tray", "cup", "glass", "mug", "plate",
    "bowl",
))  # fmt: skip
PACKAGING_KINDS = frozenset((
    "to-go", "togo", "takeout", "take-out", "takeaway", "take-away", "carryout", "carry-out", "doggy",
    "doggie", "leftover", "leftovers", "paper", "plastic", "carrier", "shopping", "gift", "extra", "spare",
    "clean", "fresh", "new", "empty", "separate", "small", "smaller", "big", "bigger", "large", "larger",
    "little", "cup", "drink", "coffee",
))  # fmt: skip
# A parameter's word for the thing an ordering tool sells, whatever the tool's own noun is.
SOLD_THING = frozenset(("item", "product", "dish", "meal", "food", "drink", "beverage"))
# The parameters a state said in an address goes to ("Springfield IL 62704" → state).
STATE_PARAMETERS = ("state", "region", "province", "state_code", "state_or_province")

# Verbs a tool's name or description starts with when it changes something (not a lookup): "Change where
# the ride goes", "Record a show", "Send money". A tool starting with none of them reports ("Where the
# driver is", "Balance of the account").
CHANGE_VERBS = _words(
    "add append archive assign block book buy call cancel change clear close complete create delete "
    "disable dismiss edit enable end flag follow freeze hide invite join launch leave lock log make "
    "mark move mute open order pause pay pin place play post print publish queue rate record remind "
    "remove rename reply request reserve reset restart resume save schedule send set share shuffle "
    "skip snooze sort start stop submit subscribe switch take toggle transfer translate turn undo "
    "unlock unmute unsubscribe update upload write"
)

# Verbs whose British forms double the final l ("cancel" → "cancelled", "travel" → "traveller").
_DOUBLED_L_BASES = (
    "cancel channel tunnel travel label model signal fuel level total dial marshal pencil shovel snorkel"
    " swivel unravel yodel counsel duel enamel equal funnel grovel jewel kennel libel marvel panel pedal"
    " quarrel revel rival spiral stencil towel barrel bevel chisel drivel initial refuel remodel relabel"
)

# Irregular past tenses and participles, so "I swam for an hour" reaches a tool declaring "swim".
IRREGULAR: dict[str, str] = {
    **dict.fromkeys(("swam", "swum"), "swim"),
    **dict.fromkeys(("ran",), "run"),
    **dict.fromkeys(("rode", "ridden"), "ride"),
    **dict.fromkeys(("went", "gone"), "go"),
    **dict.fromkeys(("ate", "eaten"), "eat"),
    **dict.fromkeys(("drank", "drunk"), "drink"),
    **dict.fromkeys(("got", "gotten"), "get"),
    **dict.fromkeys(("bought",), "buy"),
    **dict.fromkeys(("made",), "make"),
    **dict.fromkeys(("took", "taken"), "take"),
    **dict.fromkeys(("wrote", "written"), "write"),
    **dict.fromkeys(("sent",), "send"),
    **dict.fromkeys(("paid",), "pay"),
    **dict.fromkeys(("saw", "seen"), "see"),
    **dict.fromkeys(("gave", "given"), "give"),
    **dict.fromkeys(("found",), "find"),
    **dict.fromkeys(("brought",), "bring"),
    **dict.fromkeys(("sold",), "sell"),
    **dict.fromkeys(("flew", "flown"), "fly"),
    **dict.fromkeys(("drove", "driven"), "drive"),
    **dict.fromkeys(("slept",), "sleep"),
    **dict.fromkeys(("spent",), "spend"),
    **dict.fromkeys(("began", "begun"), "begin"),
    **dict.fromkeys(("forgot", "forgotten"), "forget"),
    **dict.fromkeys(("broke", "broken"), "break"),
    **{"had": "have", "said": "say", "told": "tell", "thought": "think", "felt": "feel", "came": "come"},
    **{"heard": "hear", "met": "meet", "lost": "lose", "won": "win", "fell": "fall", "kept": "keep"},
    **{"knew": "know", "became": "become", "stood": "stand", "sat": "sit", "spoke": "speak"},
    # British spellings, so "in colour" reaches an option "color"
    **{"colour": "color", "colours": "colors", "grey": "gray", "greyscale": "grayscale", "centre": "center"},
    **{"theatre": "theater", "organise": "organize", "cancelled": "canceled", "metre": "meter"},
    # British doubled l of a verb ending in an unstressed vowel and l ("channelled", "travelling",
    # "cancellation" aside: that one doubles in both), each form listed: a rule would make "filled" "filed"
    **{
        f"{base}l{ending}": f"{base}{ending}"
        for base in _DOUBLED_L_BASES.split()
        for ending in ("ed", "ing", "er", "ers")
    },
    **{"caught": "catch", "taught": "teach", "held": "hold", "built": "build", "sang": "sing"},
}

# Said while thinking, no part of any request: removed before matching ("um, could you maybe open it").
FILLERS: tuple[str, ...] = (
    r"u+m+",
    r"u+h+m*",
    r"e+r+m*",
    r"h+m+",
    r"m+h*m+",
    "you know",
    "i mean",
    "by the way",
    "kind of",
    "sort of",
    "maybe",
    "perhaps",
    "possibly",
    "basically",
    "kindly",
    "like,",
    r"(?:hold|hang) on(?=[,.!])",
    "all the way",
    r"wait(?: a (?:sec|second|minute|moment))?(?=[,.!])",
    r"one (?:sec|second)(?=[,.!])",
)

# A concept that implies others: an indirect request ("it's too dark in here", "how hot is it in Cairo")
# reaches a tool declaring one of these, at ASSOCIATION_WEIGHT of the tool's weight for it.
ASSOCIATIONS: dict[str, tuple[str, ...]] = {
    "stop": ("pause", "close", "remove"),  # "stop the music" pauses it, "stop the parking" ends it
    "send": ("share",),  # "send the Wedding album to Dan" shares it
    "complete": ("close",),  # "finish my ride" ends it
    "remind": ("todo",),  # a to-do app takes "remind me to …" as a task
    "navigate": ("ride",),  # "I want to go to the airport", to a ride app
    "launch": ("channel",),  # "put on the BBC", "watch channel 4" to a TV
    "dark": ("light", "on"),
    "bright": ("light", "on"),  # dimming a light leaves it on
    "temperature": ("weather",),
    "price": ("product", "menu"),  # "what does a Margherita cost?" to a lookup of a menu item or product
}
ASSOCIATION_WEIGHT = 0.6
# Words (by stem) whose concept implies another only in an app where no tool declares it: "add Ana Silva, her
# number is …" makes a new contact (create_contact) where nothing adds; where a tool adds ("add the Airbnb
# to the Porto trip group" → add_expense) a create_group is no adding.
# A table asked for where no tool declares one is a restaurant's: "Can I get a table for four?" to
# book_restaurant "Book a restaurant" (the value is the concept, "restaurant"'s stem).
FALLBACK_ASSOCIATIONS: dict[str, tuple[str, ...]] = {"add": ("create",), "tabl": ("restaur",)}
# Words whose concept is too narrow for every sense they have: "save" is a favourite ("save this song")
# and a new record kept ("save Ana's number", "save this as a note"); "set" also changes a value a tool
# updates ("set the stock of apples to 12" → update_inventory). Keyed by the word's stem.
WORD_ASSOCIATIONS: dict[str, tuple[str, ...]] = {"save": ("add", "create"), "set": ("change",)}
# The words a tool's verb of keeping also means, by the verb's stem: "add Ana Silva, …" to save_contact.
KEEPING_WORDS: dict[str, tuple[str, ...]] = {"save": ("add",), "store": ("add", "save")}

# What a speaker says to take back the thing just named and name another in its place ("a latte, no
# wait, a mocha"; "a latte, sorry, I mean a mocha"; "a latte, make that a mocha"): a self-repair.
SELF_REPAIRS = (
    "no wait",
    "wait no",
    "no sorry",
    "sorry",
    "i mean",
    "i meant",
    "no i mean",
    "sorry i mean",
    "make that",
    "make it",
    "scratch that",
    "wait",
    "no",
    "actually",
    "oops",
)
# Words no phrase taken back or named instead runs over (``utterance.repaired``): the repair words, a
# place's or a time's preposition ("a ride to the station, actually the airport" takes back the
# station) and a verb ("the airport, sorry, my flight is at 6" names no thing instead).
REPAIR_STOPS = (
    "no", "wait", "sorry", "i", "make", "scratch", "actually", "oops",
    "to", "for", "at", "in", "on", "from", "into", "onto", "near", "by",
    "is", "are", "was", "were", "am", "be",
)  # fmt: skip

# Kinds of thing asked for, by the head word that names one (``intent.ordered_thing``): a tool whose name
# or description names a kind (``KIND_WORDS``) takes only things of its kinds or of none known, as a
# model knows a pillow is no room-service dish and a sandwich no drink. A thing of no kind known ("a
# bento box") goes to any ordering tool, as before.
THINGS_OF_KIND: dict[str, frozenset[str]] = {
    "drink": _words(
        "latte lattes mocha mochas cappuccino cappuccinos espresso espressos americano macchiato cortado "
        "coffee coffees tea teas chai smoothie smoothies juice lemonade soda sodas coke cola water beer "
        "beers wine cocktail cocktails milkshake shake frappuccino frappe cocoa matcha kombucha"
    ),
    "food": _words(
        "sandwich sandwiches burger burgers cheeseburger pizza pizzas salad salads soup fries pasta steak "
        "omelette omelet pancakes pancake waffle waffles bagel bagels croissant croissants muffin muffins "
        "donut donuts doughnut doughnuts cake cookie cookies wrap taco tacos burrito sushi breakfast lunch "
        "dinner dessert toast eggs chicken noodles curry rice risotto lasagna nachos quesadilla fruit"
    ),
    "housekeeping": _words(
        "pillow pillows blanket blankets towel towels sheet sheets duvet linen linens bedding toiletries "
        "soap shampoo conditioner toothbrush toothpaste razor hanger hangers iron robe bathrobe slippers "
        "tissues cot crib"
    ),
}
# The words in a tool's name or description that say which kinds it takes ("Order food from room
# service" → food; "Order a drink" → drink). A food tool takes drinks too: room service brings both.
KIND_WORDS: dict[str, tuple[str, ...]] = {
    # (not "coffee", "café" or "bar": a café's or a bar's tool sells food as well; "Order snacks and
    # drinks from the pool bar" takes a cookie)
    "drink": ("drink", "drinks", "beverage", "beverages"),
    "food": (
        "food", "foods", "meal", "meals", "dish", "dishes", "menu", "kitchen", "restaurant", "dining",
        "snack", "snacks",
    ),
    "housekeeping": (
        "housekeeping", "linen", "linens", "amenity", "amenities", "toiletries", "towels", "pillows",
        "bedding", "blankets",
    ),
}  # fmt: skip
KINDS_TAKEN_WITH = {"food": frozenset(("food", "drink"))}

# Records whose words a speaker dictates after naming one ("Add a task, renew my passport"; "New note -
# call the bank"): the comma or dash after one is read as the colon of "Add a task: renew my passport".
DICTATED_RECORDS = ("task", "to-do", "todo", "to do", "reminder", "note", "item", "entry", "memo")
# The words that open a record's time, due date or priority, or a question, after its comma ("Add a
# reminder, at 5pm"; "Add a task, due Friday"; "Set up a reminder, tomorrow at 9 to call mom"; "Add a
# task, can you?"): no words of the record, which are read as before.
RECORD_ATTRIBUTE_OPENERS = (
    "at", "on", "by", "for", "due", "every", "each", "tomorrow", "today", "tonight", "next", "in",
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    "high", "low", "medium", "normal", "urgent", "priority",
    "can you", "could you", "would you", "will you", "please could", "if you",
    "no rush", "whenever", "when you", "if possible",
)  # fmt: skip

# Verbs that send a message to the person named after them; "Text John: I need to leave early" dictates
# the message after the colon, as "Text John saying …" does.
MESSAGE_VERBS = ("text", "message", "msg", "sms", "whatsapp", "email", "e-mail", "ping", "dm", "tell")

# Countries that are one city, whose name a city parameter takes as it is ("the weather in Singapore").
CITY_STATES = frozenset(
    ("singapore", "monaco", "vatican city", "vatican", "hong kong", "macau", "macao", "san marino")
)

# The words after "to" that are no town a thing is sent to (``acting._town_sent``): "Send order 12345 to
# Tuesday" says when, not where.
NOT_TOWNS = _words(
    "monday tuesday wednesday thursday friday saturday sunday today tomorrow tonight january february "
    "march april may june july august september october november december"
)

# Abbreviations written in lower case with full stops ("at 7 p.m. on Friday", "fruit, e.g. apples"):
# their last stop ends no sentence when a lower-case word follows (``names.SENTENCE_BREAK``).
LOWER_ABBREVIATIONS = ("a.m", "p.m", "e.g", "i.e", "etc", "approx", "vs")

# An argument's name for where a trip or a ride goes (``destination``, ``dropoff``): read back after "to"
# ("I've booked the trip to Lisbon"), not "in" as a place the action happens in.
DESTINATION_WORDS = frozenset(("destination", "dest", "arrival", "dropoff", "drop", "going", "where_to"))
# A lookup's name word that asks for a state itself (``check_status``, ``get_health``): an output of only
# "ok" answers it; to any other lookup ("get_weather") it is only an acknowledgement, no detail.
STATE_LOOKUPS = frozenset(("status", "state", "health", "ping", "availability", "connection"))

# What is shipped when a thing is sent to a town alone ("Send order 12345 to Leeds", "ship my parcel to
# York"): a record's number or one of these words; "Send the report to Finance" ships nothing.
SHIPPED_THINGS = frozenset((
    "order", "orders", "package", "packages", "parcel", "parcels", "shipment", "shipments", "delivery",
    "it", "them", "purchase", "purchases", "item", "items", "box", "stuff",
))  # fmt: skip

# A tool output's fields that say it failed (``failures``): a yes/no that is false (``{"ok": false}``), a
# status word of failure (``{"status": "error"}``), the field that carries the error itself, and where the
# reason is written. A model reads these as "I couldn't …: <reason>.", never as the thing done.
# "done" and "completed" are left out: ``{"title": "Milk", "done": false}`` is a task not done, no failure.
SUCCESS_FLAGS = frozenset(("ok", "success", "succeeded", "successful", "accepted"))
# A count of the parts of a batch that failed (``{"sent": 12, "failed": 2}``), or the list of them
# (``"failed": ["a@x.org"]``): beside a count of those that went through, a partial failure.
FAILED_COUNTS = frozenset((
    "failed", "failures", "failed count", "fail count", "failure count", "errors", "error count", "bounced",
    "undelivered", "not sent", "rejected count", "num failed", "failed items",
))  # fmt: skip
# A count of the parts of a batch that went through, by what was done to them.
DONE_COUNTS = frozenset((
    "sent", "succeeded", "successful", "success count", "success", "delivered", "processed", "synced",
    "imported", "exported", "updated", "created", "deleted", "removed", "uploaded", "downloaded",
    "completed", "passed", "added", "saved", "moved", "copied", "archived", "notified", "invited",
    "charged", "refunded", "scheduled", "published", "ok count", "num sent",
))  # fmt: skip
# Counts said beside a partial failure, after what went through ("3 skipped").
ASIDE_COUNTS = frozenset(("skipped", "ignored", "duplicates", "unchanged"))
# A decision ("rejected", "denied", "declined") is the app's answer, said as the state it is, no failure.
FAILED_STATES = frozenset(("error", "errored", "failed", "failure", "fail", "fault", "exception"))
STATE_FIELDS = frozenset(("status", "state", "result", "outcome"))
# A record's own states of failure: a payment, job or build looked up by its id (``get_payment`` with
# ``payment_id`` → ``{"status": "failed", "reason": "card declined"}``) failed, not the lookup; "error" is
# kept as the tool's, as is any failed status of an action (``cancel_order`` → "failed").
RECORD_FAILED_STATES = frozenset(("failed", "failure", "fail"))
ERROR_FIELDS = frozenset(("error", "errors", "exception", "fault"))
# A tool named for errors (``lookup_error_code``, ``get_recent_errors``) answers with them: its ``error``
# field is the thing looked up, no failure of its own.
ERROR_LOOKUPS = frozenset(("error", "errors", "exception", "exceptions", "fault", "faults"))
# Fields beside a failed status that say no more than the failure: with only these, ``{"status": "failed",
# "message": …}`` is the tool's failure; with any other (``{"state": "failed", "exit_code": 2}``) it is
# the state of the thing looked up.
FAILURE_ONLY_FIELDS = frozenset((
    "code", "error code", "type", "error type", "timestamp", "time", "request id", "trace id",
    "retry after", "retryable", "ok", "success", "status code", "http status",
))  # fmt: skip
HTTP_STATUS_FIELDS = frozenset(("status", "status code", "http status", "http code", "status http"))
REASON_FIELDS = (
    "reason", "detail", "details", "message", "error message", "error description", "description", "msg",
    "error", "errors", "why", "cause", "title",
)  # fmt: skip
# The reason phrases of HTTP 4xx and 5xx statuses (RFC 9110 and common ones): "404 Not Found" alone is a
# failure; "404 Main Street" is an address.
HTTP_ERROR_PHRASES = (
    "bad request", "unauthorized", "payment required", "forbidden", "not found", "method not allowed",
    "not acceptable", "request timeout", "conflict", "gone", "unprocessable entity", "unprocessable content",
    "too many requests", "internal server error", "not implemented", "bad gateway", "service unavailable",
    "gateway timeout", "precondition failed", "payload too large", "unsupported media type",
)  # fmt: skip

# Currencies by ISO 4217 code, as said after an amount ("1,234.50 US dollars"), with their minor digits.
CURRENCIES: dict[str, tuple[str, int]] = {
    "USD": ("US dollars", 2), "EUR": ("euros", 2), "GBP": ("British pounds", 2), "JPY": ("yen", 0),
    "CAD": ("Canadian dollars", 2), "AUD": ("Australian dollars", 2), "NZD": ("New Zealand dollars", 2),
    "CHF": ("Swiss francs", 2), "CNY": ("yuan", 2), "INR": ("rupees", 2), "MXN": ("Mexican pesos", 2),
    "BRL": ("reais", 2), "SEK": ("Swedish kronor", 2), "NOK": ("Norwegian kroner", 2),
    "DKK": ("Danish kroner", 2), "PLN": ("zloty", 2), "KRW": ("won", 0), "SGD": ("Singapore dollars", 2),
    "HKD": ("Hong Kong dollars", 2), "ZAR": ("rand", 2),
}  # fmt: skip
# A field's name word that holds the currency its amounts are in; words that name an amount of money.
CURRENCY_FIELDS = frozenset(("currency", "currency code", "ccy", "iso currency"))
MONEY_WORDS = frozenset((
    "balance", "amount", "total", "subtotal", "price", "cost", "fee", "fees", "fare", "tax", "tip",
    "refund", "due", "payment", "charge", "credit", "debit", "available", "limit", "deposit", "owed",
))  # fmt: skip
# A money field's last words saying its amount is in hundredths (``balance_cents``, ``amount_minor``,
# ``total_in_pence``): 12345 of them is 123.45 in the currency.
MINOR_UNIT_WORDS = frozenset(("cents", "cent", "pence", "minor"))
# A field that holds a share, said in percent when given as a fraction (``"humidity": 0.82`` → 82 percent).
SHARE_WORDS = frozenset((
    "humidity", "chance", "probability", "cover", "cloudiness", "share", "ratio", "progress", "completion",
    "battery", "confidence", "occupancy", "utilization",
))  # fmt: skip
# A field that is a percentage when given as a number up to 100 (``"humidity": 82``, ``"battery": 45``,
# ``"progress": 60``): said "82 percent", as a model reads a bare humidity or battery level.
PERCENT_WORDS = frozenset((
    "humidity", "chance", "probability", "cloudiness", "progress", "completion", "battery", "occupancy",
    "utilization", "cover",
))  # fmt: skip
# The last word of a percentage field named for what it measures ("battery_level", "humidity_value").
PERCENT_TAILS = frozenset(("level", "value", "remaining", "left"))
# A share's own fractions: ``"progress": 1`` is done (100 percent), not 1 percent.
FRACTION_WORDS = frozenset(("probability", "progress", "completion", "confidence", "ratio"))
# A field's name that opens with a preposition qualifies the fact before it ("as of 2026-12-05").
QUALIFIER_OPENERS = frozenset(("as", "since", "until", "till", "through"))
