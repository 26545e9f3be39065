"""Round-4 held-out texts of the turn corpus (split ``heldout_r4``).

Written on 2026-12-01 at 20:08 UTC by someone who never saw the turn detector's code or any of its
results, BEFORE any tuning of round 4. New wordings, none taken from the first corpus, from
:mod:`.heldout_r2`, :mod:`.dev_r3` or :mod:`.heldout_r3`; written as people speak, not shaped to any
rule. Spoken by the earlier rounds' voices plus two settings no earlier round used (:data:`NEW_VOICES`).
Score this split once, at the end of round 4; never look at its per-case results while tuning.

Scored once, 2026-12-01 20:50 UTC, after round 4's tuning (main at dcb1a6a, issue-18 merged), and for
comparison with round 3's code (ac0d949) on the same clips: mid-thought pauses cut at high 22/169 (13 %)
under round 4's code against 17/169 (10 %) under round 3's; at medium 25/200 against 26/200; at low 5/200
(2.5 %) against 6/200 (3 %). Finished turns, median speech end -> speech_stopped at high: complete
statements 364 ms (round 3's code: 1310 ms, its hold), questions 254, one-word answers 348, all finished
349 ms; every finished turn within the eagerness's max wait under both. Worst at high under round 4:
conjunctions 18 %, lists 17 %, openers 14 %, prepositions 12 %. From round 5 on it is tuning data.

COMPLETE includes statements that end on words which often start a continuation elsewhere ("again",
"though", "too", "anyway", "as well", "then", "actually", "or something", "so", a number, a name): they
are finished turns. QUESTIONS mixes yes/no, wh- and tag questions. ONE_WORD has one- and two-word
answers, including a one-word question ("Sorry?").

MID_THOUGHT uses the corpus's six categories; sub-kinds are filed as follows: possessives ("my", "our",
"his", "their") and demonstratives ("that") under ``article``; "going to" / "trying to" / "about to" /
"We'd love to" under ``preposition``; "because", "even though", "either ... or", relative clauses ("the
woman who", "the place where", "the bloke who") and numbers cut after "and" ("nine hundred and") under
``conjunction``; "um" / "uh" / "er" / "like" / "you know" / "sort of" under ``filler``; pauses inside a
list, including after its first item, under ``list``; "I'd say" / "hang on, let me" / "the annoying
thing is" and clauses stopped on an auxiliary or a modal ("We could", "They must have", "He'd") under
``opener``.
"""

from __future__ import annotations

# (engine, name, rate) as in turn_corpus.Voice: the British Received Pronunciation espeak-ng voice with
# a male variant at a middling rate; piper joe faster than any earlier length scale.
NEW_VOICES = (("espeak", "en-gb-x-rp+m3", 160.0), ("piper", "joe", 0.9))

COMPLETE = (
    "The neighbours' dog was barking half the night again.",
    "I quite liked it, though.",
    "She's coming to the wedding too.",
    "It doesn't matter anyway.",
    "Bring your wellies as well.",
    "Our house is number sixty three.",
    "I was just talking to Priya.",
    "The match finished two all.",
    "The parcel was addressed to someone called Martin.",
    "I hope so.",
    "See you Thursday, then.",
    "It was quite good, actually.",
    "Maybe we could just get a takeaway or something.",
    "The babysitter can stay until eleven.",
    "The kettle's just boiled.",
    "Leave it with me.",
    "He's been a teacher for nearly twenty years.",
    "The garage rang to say the car is ready.",
    "I think I've caught a cold.",
    "That's fine by me.",
    "The supermarket has stopped selling my favourite biscuits.",
    "I can't stand the sound of leaf blowers.",
    "My brother's moved up to Glasgow.",
    "You can keep the change.",
    "She's already left for the airport.",
    "The mailman came early today.",
    "It's been a really long week.",
    "We got soaked walking back from the station.",
    "We never did find out who sent the flowers.",
    "The lights in the hallway keep flickering.",
    "I'm taking the kids swimming after school.",
    "Not today.",
    "There's a spare key under the plant pot.",
    "I had a feeling you'd say that.",
    "I'm going to bed.",
    "We drove past the house where I grew up, and it looks completely different now.",
)
QUESTIONS = (
    "It's freezing out there, isn't it?",
    "You've already eaten, haven't you?",
    "She won't mind, will she?",
    "That was the right exit, wasn't it?",
    "We're not late, are we?",
    "Is this seat taken?",
    "Did you get my message?",
    "Are you allowed to park here?",
    "Does anyone want the last slice?",
    "Can you hear me okay?",
    "Have you tried restarting it?",
    "Will you be around tomorrow afternoon?",
    "What's the wifi password?",
    "Where did you get those shoes?",
    "When are your parents arriving?",
    "How was the drive up?",
    "Who was that on the phone?",
    "Why are all the lights off?",
    "Which bin does glass go in?",
    "How much do I owe you?",
    "What do you fancy doing tonight?",
    "Any news from the hospital?",
    "Are we still on for Friday?",
    "Do you know if the post office is open?",
)
ONE_WORD = (
    "Both.",
    "Neither.",
    "Of course.",
    "Not really.",
    "Fair enough.",
    "Brilliant.",
    "Go ahead.",
    "Thursday.",
    "Twenty.",
    "Three.",
    "Half six.",
    "Emma.",
    "Manchester.",
    "No problem.",
    "Sorry?",
    "Lovely.",
)
# (category, words before the pause, words after it)
MID_THOUGHT = (
    # articles, possessives and demonstratives
    ("article", "I need to get the", "car washed before Sunday."),
    ("article", "She's just started a", "pottery class on Tuesdays."),
    ("article", "Could you take the", "bins out tonight?"),
    ("article", "We had an", "absolute nightmare getting here."),
    ("article", "Did you see the", "state of the kitchen?"),
    ("article", "Somebody's nicked my", "bike from outside the library."),
    ("article", "There's an", "old piano in their garage."),
    ("article", "He drives a", "bright orange van."),
    ("article", "Can I have a", "look at the menu?"),
    ("article", "Their", "baby was born on Tuesday."),
    ("article", "I'm going to paint the", "fence this weekend."),
    ("article", "It's basically a", "smaller version of the old one."),
    ("article", "We're getting our", "kitchen redone in March."),
    ("article", "Pass me that", "tea towel, would you?"),
    ("article", "The", "dog's been sick on the rug."),
    ("article", "Have you still got his", "phone number?"),
    ("article", "I spent most of the", "morning on hold to the council."),
    ("article", "She works for an", "insurance company in Leeds."),
    # prepositions and "to"
    ("preposition", "I'm trying to", "find a present for my dad."),
    ("preposition", "We're going to", "have to cancel the trip."),
    ("preposition", "She's been on the phone to", "her sister for an hour."),
    ("preposition", "Just forward it to", "the team inbox."),
    ("preposition", "I grew up just outside", "Newcastle."),
    ("preposition", "He's terrified of", "spiders."),
    ("preposition", "We ran into", "your old teacher at the shops."),
    ("preposition", "It's hidden behind", "the books on the top shelf."),
    ("preposition", "We'd love to", "have you over for dinner some time."),
    ("preposition", "Don't put it next to", "the radiator."),
    ("preposition", "I've had enough of", "this rain."),
    ("preposition", "She spent the whole summer working at", "a campsite in France."),
    ("preposition", "We're meeting them outside", "the cinema at eight."),
    ("preposition", "Can you ask him about", "the parking permit?"),
    ("preposition", "The train stops at", "every little village on the way."),
    ("preposition", "I'm just about to", "jump in the shower."),
    ("preposition", "It's been sitting in", "the fridge since last week."),
    ("preposition", "I'm so sorry for", "keeping you waiting."),
    # conjunctions, "because", relative clauses, numbers cut after "and"
    ("conjunction", "I'd offer you a lift, but", "the car's in the garage."),
    ("conjunction", "We had to turn back because", "the road was flooded."),
    ("conjunction", "I'll do the washing up if", "you dry."),
    ("conjunction", "That's the woman who", "runs the bakery on the high street."),
    ("conjunction", "Do you remember the place where", "we got stuck in the snow?"),
    ("conjunction", "They're asking nine hundred and", "ninety for the bike."),
    ("conjunction", "The flat's on the market for two hundred and", "ten thousand."),
    ("conjunction", "I put the heating on, but", "it's still freezing in here."),
    ("conjunction", "She skipped the party since", "she had an exam the next day."),
    ("conjunction", "We'll go to the beach unless", "it rains."),
    ("conjunction", "I couldn't sleep because", "the neighbours were playing music."),
    ("conjunction", "He told me that", "he's handing in his notice."),
    ("conjunction", "I'll text you as soon as", "I land."),
    ("conjunction", "We could get the bus, or", "we could just walk."),
    ("conjunction", "The bloke who", "lives upstairs plays the drums."),
    ("conjunction", "Either we leave now or", "we miss the start."),
    ("conjunction", "My grandmother is ninety and", "she still does the crossword every day."),
    ("conjunction", "I bought the blue one even though", "I wanted the green."),
    # fillers
    ("filler", "The best time for me is, um,", "after lunch."),
    ("filler", "I'll have a, uh,", "small latte, please."),
    ("filler", "He just, like,", "walked out of the room."),
    ("filler", "We're sort of", "halfway through the move."),
    ("filler", "My date of birth is, uh,", "the third of March."),
    ("filler", "It was, you know,", "one of those days."),
    ("filler", "I'm, uh,", "not totally sure about that."),
    ("filler", "She's sort of", "between jobs at the moment."),
    ("filler", "Can I get the, um,", "chicken wrap with no onions?"),
    ("filler", "So we, er,", "missed the ferry."),
    ("filler", "The reason I called is, uh,", "about the invoice."),
    ("filler", "Uh,", "which way is the car park?"),
    ("filler", "They're, like,", "the loudest family on the street."),
    ("filler", "I just, you know,", "never got round to asking."),
    # inside lists
    ("list", "We still need milk, teabags,", "and something for breakfast."),
    ("list", "I've got work on Monday, Tuesday,", "and Thursday this week."),
    ("list", "The room has a desk, a lamp,", "and a really uncomfortable bed."),
    ("list", "Can you grab the crisps, the dips,", "and the paper plates?"),
    ("list", "She's got two cats, a rabbit,", "and a very old tortoise."),
    ("list", "I've been to Berlin, Krakow,", "and Budapest this year."),
    ("list", "You'll need your passport, two photos,", "and a utility bill."),
    ("list", "Chop the onions, the carrots, and", "the celery."),
    ("list", "The kids want pizza, chips,", "or fish fingers."),
    ("list", "I invited Ollie, Ruth, Dan,", "and the people from next door."),
    ("list", "We've got red, white,", "or a bottle of rose."),
    ("list", "Mop the floor, wipe the counters,", "and take out the recycling."),
    ("list", "It comes in small, medium,", "and large."),
    ("list", "We could go bowling, see a film,", "or just get dinner."),
    ("list", "He's lived in Cardiff, Bristol, and", "now Birmingham."),
    ("list", "I need a new phone,", "a laptop, and a decent pair of headphones."),
    # openers, "I'd say" / "hang on, let me" / "the annoying thing is", clauses stopped on an auxiliary
    ("opener", "I'd say", "we'll be there by four."),
    ("opener", "Hang on, let me", "grab a pen."),
    ("opener", "The annoying thing is", "I'd already paid."),
    ("opener", "What I don't get is", "why they didn't tell us."),
    ("opener", "Truth be told,", "I'd forgotten all about it."),
    ("opener", "As far as I know", "the office is shut on Monday."),
    ("opener", "We could", "always ask your brother."),
    ("opener", "They must have", "gone out the back way."),
    ("opener", "You'll probably", "need a bigger bag."),
    ("opener", "I've been thinking, and", "maybe we should sell the car."),
    ("opener", "The main reason is", "it's just too expensive."),
    ("opener", "If it were up to me", "we'd stay another night."),
    ("opener", "Funnily enough,", "I was just about to ring you."),
    ("opener", "From what she told me", "it went really well."),
    ("opener", "He'd", "never say that to your face."),
    ("opener", "Right, so first of all", "you need to scan your ticket."),
)
