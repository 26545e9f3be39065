"""Round-3 development texts of the turn corpus (split ``dev_r3``: tuned on, like ``tune``).

Written on 2026-12-01 by round 3's tuner, before looking at any round-3 result, to find cues that hold
beyond the texts the rules were first set on: new wordings, and mid-thought categories the first corpus
did not have as such (possessives, auxiliaries, subordinate and relative clauses, numbers cut in the
middle). Same format as the held-out modules; spoken by the first corpus's voices plus
:data:`NEW_VOICES`. This split is tuned on: it is NOT a held-out result.
"""

from __future__ import annotations

# (engine, name, rate) as in turn_corpus.Voice: a Scottish espeak-ng voice with a male variant, slower
# than most first-round voices; piper joe slightly faster than its usual length scale.
NEW_VOICES = (("espeak", "en-gb-scotland+m4", 150.0), ("piper", "joe", 0.95))

COMPLETE = (
    "The dentist moved my appointment to Friday.",
    "I've already paid for the tickets.",
    "Our neighbours are having a party tonight.",
    "This coffee is much too strong.",
    "We missed the last train home.",
    "My cousin is getting married in June.",
    "The lift is out of order again.",
    "I started running in the mornings.",
    "They closed the road for repairs.",
    "Dinner will be ready in ten minutes.",
    "I lost my umbrella on the bus.",
    "The new manager seems friendly.",
    "It took us four hours to get there.",
    "I'm allergic to peanuts.",
)
QUESTIONS = (
    "Have you seen my charger anywhere?",
    "What time does the film start?",
    "Could we sit by the window?",
    "Who told you about the party?",
    "Is the museum open on Mondays?",
    "How did the interview go?",
    "Where can I buy a ticket?",
    "Do they deliver on weekends?",
    "Why is the line so long?",
    "Would you mind closing the door?",
)
ONE_WORD = (
    "Gladly.",
    "Nowhere.",
    "Monday.",
    "Seventeen.",
    "Nah.",
    "Deal.",
    "Certainly.",
    "Nothing.",
    "Great.",
    "Tonight.",
    "Please.",
    "Fine.",
)
# (category, words before the pause, words after it)
MID_THOUGHT = (
    ("article", "I'd like to order the", "vegetable curry please."),
    ("article", "She's bringing an", "apple pie for dessert."),
    ("article", "We finally found a", "flat near the park."),
    ("article", "Could you check the", "oven for me?"),
    ("article", "He spilled coffee all over the", "new carpet."),
    ("article", "I'm reading a", "book about sharks."),
    ("preposition", "We're having dinner at", "my aunt's house."),
    ("preposition", "She's really good at", "fixing old radios."),
    ("preposition", "I'm not sure about", "the second option."),
    ("preposition", "He's been working on", "a new song all week."),
    ("preposition", "Let's talk after", "the meeting."),
    ("preposition", "They live next to", "the old church."),
    ("conjunction", "I wanted to call you but", "my phone was dead."),
    ("conjunction", "We can walk there or", "take a taxi."),
    ("conjunction", "She opened the window and", "the cat jumped out."),
    ("conjunction", "I'll wait here until", "you come back."),
    ("conjunction", "He was late again, so", "we started without him."),
    ("conjunction", "The food was great, although", "the service was slow."),
    ("filler", "I was, um,", "thinking about dinner."),
    ("filler", "The movie was, uh,", "a bit too long."),
    ("filler", "We could, like,", "go to the beach instead."),
    ("filler", "It's kind of, you know,", "hard to explain."),
    ("filler", "My sister said, er,", "she might come later."),
    ("filler", "Honestly, um,", "I don't really mind."),
    ("list", "We need plates, cups,", "and a few napkins."),
    ("list", "I visited Rome, Florence,", "and Venice."),
    ("list", "She bought carrots, onions,", "and some garlic."),
    ("list", "The house has a garage, a garden,", "and a big attic."),
    ("list", "Bring a towel, sunscreen,", "and a hat."),
    ("list", "He speaks Spanish, Dutch,", "and some Japanese."),
    ("opener", "I think", "the blue car is faster."),
    ("opener", "Let me see", "if I have any change."),
    ("opener", "The point is", "nobody asked me."),
    ("opener", "I guess", "we could try again."),
    ("opener", "To be fair", "it was raining."),
    ("opener", "What I'd like is", "a quiet evening."),
    ("possessive", "Have you met my", "new roommate?"),
    ("possessive", "We left our", "bags in the car."),
    ("possessive", "They sold their", "house last spring."),
    ("possessive", "I borrowed your", "pen for a minute."),
    ("possessive", "She forgot her", "keys again."),
    ("possessive", "He can't find his", "passport anywhere."),
    ("auxiliary", "I was going to", "ask you something."),
    ("auxiliary", "We should have", "left earlier."),
    ("auxiliary", "She said she would", "call me tonight."),
    ("auxiliary", "I think it might", "snow tomorrow."),
    ("auxiliary", "They have been", "waiting for ages."),
    ("auxiliary", "You really should", "try the soup."),
    ("subordinate", "I left early because", "I felt sick."),
    ("subordinate", "She bought the dress that", "she saw in the window."),
    ("subordinate", "This is the man who", "fixed our roof."),
    ("subordinate", "We stayed inside since", "it was freezing."),
    ("subordinate", "I'll tell you when", "the train arrives."),
    ("subordinate", "That's the restaurant where", "we had our first date."),
    ("number", "The bill came to two hundred and", "forty dollars."),
    ("number", "My flight leaves at half past", "seven."),
    ("number", "We need about three or", "four more chairs."),
    ("number", "The code is one two three and then", "four."),
    ("number", "We're expecting around a hundred and", "twenty guests."),
    ("number", "She was born in two thousand and", "one."),
)
