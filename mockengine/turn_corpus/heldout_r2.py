"""Round-2 held-out texts of the turn corpus (split ``heldout_r2``).

Written on 2026-12-01 BEFORE any tuning of round 2, after the first held-out half had been scored and
its failing cases named (that half is burned: round 2 tunes on it). New wordings, none taken from the
first corpus; spoken by the first corpus's voices plus two settings it never used (:data:`NEW_VOICES`).
Score this split once, at the end of round 2; never look at its per-case results while tuning.
"""

from __future__ import annotations

# (engine, name, rate) as in turn_corpus.Voice: a British espeak-ng voice with a female variant, faster
# than any first-round voice; piper joe at a length scale between the first round's.
NEW_VOICES = (("espeak", "en-gb+f2", 185.0), ("piper", "joe", 1.1))

COMPLETE = (
    "The printer on the second floor is broken again.",
    "I'll pick you up at seven.",
    "We adopted a cat last month.",
    "Her presentation went really well.",
    "I can't find my glasses anywhere.",
    "The bakery on the corner closes early on Sundays.",
    "That was the best pizza I've ever had.",
    "My phone battery died during the call.",
    "They're renovating the old library.",
    "I forgot to water the plants.",
    "The concert was completely sold out.",
    "We walked along the river after dinner.",
    "Nobody answered the door.",
    "He finally passed his driving test.",
    "I'd rather stay in tonight.",
    "The package arrived this morning.",
)
QUESTIONS = (
    "Did you remember to lock the car?",
    "What should we cook for dinner?",
    "Is there a pharmacy near here?",
    "How long does the drive take?",
    "Can I borrow your umbrella?",
    "Where did you park?",
    "Why didn't you call me back?",
    "Are the tickets still available?",
    "Who's bringing the cake?",
    "Should I wear a jacket?",
    "What did the doctor say?",
    "Does this bus go downtown?",
)
ONE_WORD = ("Definitely.", "Nope.", "Right.", "Perfect.", "Friday.", "Twelve.", "Probably.", "Goodbye.")
# (category, words before the pause, words after it)
MID_THOUGHT = (
    ("article", "Honestly the hardest part was finding a", "parking spot downtown."),
    ("article", "Could you grab the", "charger from my bag?"),
    ("article", "My neighbour just bought an", "electric scooter."),
    ("article", "We spent the whole afternoon at the", "beach near her house."),
    ("article", "Send me the", "slides before lunch."),
    ("article", "I'm trying to remember the", "name of that restaurant."),
    ("article", "There's a", "strange noise coming from the engine."),
    ("article", "He always orders the", "spiciest thing on the menu."),
    ("preposition", "I've been waiting for", "almost an hour now."),
    ("preposition", "She keeps complaining about", "the noise upstairs."),
    ("preposition", "You should talk to", "someone in accounting."),
    ("preposition", "We're flying into", "Denver on Thursday."),
    ("preposition", "Can we move the call to", "later this afternoon?"),
    ("preposition", "The kids were playing in", "the garden all morning."),
    ("preposition", "I found this recipe on", "an old cooking blog."),
    ("preposition", "He's been living without", "a car for years."),
    ("conjunction", "I tried calling her and", "nobody picked up."),
    ("conjunction", "The tickets were cheap, but", "the seats were awful."),
    ("conjunction", "Let's leave early so", "we can avoid the crowds."),
    ("conjunction", "I'll cook tonight unless", "you'd rather eat out."),
    ("conjunction", "She studied all night, yet", "she still felt nervous."),
    ("conjunction", "We can take the train or", "rent a car for the weekend."),
    ("conjunction", "I didn't go running because", "my knee was sore."),
    ("conjunction", "Call me when", "you get to the hotel."),
    ("filler", "The password is, um,", "written on the fridge."),
    ("filler", "My brother is, uh,", "a nurse in Boston."),
    ("filler", "We were just, like,", "sitting there waiting."),
    ("filler", "Honestly it's, you know,", "not a big deal."),
    ("filler", "I think the answer is, um,", "forty two."),
    ("filler", "So the plan was, er,", "to meet them at six."),
    ("filler", "Her new job is, like,", "two hours away."),
    ("filler", "It cost, uh,", "about three hundred dollars."),
    ("list", "I need to call the bank, the dentist,", "and my landlord."),
    ("list", "We saw lions, zebras,", "and a few giraffes."),
    ("list", "Grab some apples, bananas,", "and a bag of rice."),
    ("list", "He plays guitar, drums,", "and a bit of piano."),
    ("list", "The flat has a kitchen, two bedrooms,", "and a small balcony."),
    ("list", "My favourite cities are Lisbon, Prague,", "and Vienna."),
    ("list", "Remember your keys, your wallet,", "and your phone."),
    ("list", "On Monday we have maths, history,", "and chemistry."),
    ("opener", "I mean", "it could have gone worse."),
    ("opener", "Let me check", "my calendar first."),
    ("opener", "The way I see it", "we have two options."),
    ("opener", "Hold on, I", "think I saw him yesterday."),
    ("opener", "If you ask me", "the first version was better."),
    ("opener", "What happened was", "the bus broke down."),
    ("opener", "Now that I think about it", "she never replied."),
    ("opener", "My guess is", "they forgot about it."),
)
