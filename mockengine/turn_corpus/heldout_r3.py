"""Round-3 held-out texts of the turn corpus (split ``heldout_r3``).

Written on 2026-12-01 at 17:07 UTC by someone who never saw the turn detector's code or any of its
results, BEFORE any tuning of round 3. New wordings, none taken from the first corpus or from
:mod:`.heldout_r2`; written as people speak, not shaped to any rule. Spoken by the earlier rounds'
voices plus two settings neither round used (:data:`NEW_VOICES`). Score this split once, at the end of
round 3; never look at its per-case results while tuning.

Scored once, 2026-12-01 18:30 UTC, after round 3's tuning (main with issue-18 merged): mid-thought
pauses cut 14/169 (8 %) at high, 23/192 (12 %) at medium, 8/192 (4 %) at low (lists 20 %, prepositions
12 %, articles 10 % at high); finished turns median speech end -> speech_stopped 349 / 499 / 2086 ms at
high / medium / low, but complete statements 1304 ms at high (round 3's hold), all within the max wait.
From round 4 on it is tuning data.

MID_THOUGHT uses the corpus's six categories; sub-kinds the issue names are filed as follows:
possessives ("my", "her", "our") under ``article``; "going to" / "trying to" / "I'd like to" under
``preposition``; "because", relative "the one that" / "the guy who", and numbers cut after "and" ("about
two hundred and") under ``conjunction``; "I think" / "let me see" / "so basically" and clauses stopped on
an auxiliary ("We should probably", "She might") under ``opener``.
"""

from __future__ import annotations

# (engine, name, rate) as in turn_corpus.Voice: the American espeak-ng female variant, slower than any
# earlier setting; piper joe slower than any earlier length scale.
NEW_VOICES = (("espeak", "en-us+f3", 135.0), ("piper", "joe", 1.35))

COMPLETE = (
    "The dishwasher makes a funny noise when it drains.",
    "I've been working from home since January.",
    "Our landlord finally replaced the boiler.",
    "That's exactly what I was worried about.",
    "Switch it off.",
    "I'll call you back.",
    "We're out of milk.",
    "She's the person I was telling you about.",
    "It took us three hours to get through security.",
    "The new bridge opens next spring.",
    "I'm not sure yet.",
    "He left his umbrella on the bus again.",
    "Let's get it over with.",
    "My mum grew up in a tiny village near the coast.",
    "The quarterly numbers look better than we expected.",
    "There's nothing left to talk about.",
    "I fell asleep on the sofa.",
    "Count me in.",
    "The heating has been off all week.",
    "We painted the spare room green.",
    "This is the cafe we used to go to.",
    "I need a haircut.",
    "The lecture was cancelled because the professor was ill.",
    "It's not worth the trouble.",
    "That's the bus I usually get on.",
    "I wrote the whole report in one evening.",
    "The cat knocked a glass off the table.",
    "My knee still hurts from the football on Saturday.",
    "I've got nothing else to add.",
    "We should probably book a table.",
    "Sorry, I was miles away.",
    "The shop ran out of the size I wanted.",
    "He's someone you can rely on.",
    "The meeting has been moved to the afternoon.",
    "Dinner's ready.",
    "That's all I can think of.",
)
QUESTIONS = (
    "Have you seen my blue scarf anywhere?",
    "What time does the last train leave?",
    "Could you read that back to me?",
    "How do I reset my password?",
    "Is the pool open on bank holidays?",
    "Which platform is it?",
    "Do you want the window seat or the aisle?",
    "What are you up to this weekend?",
    "Can we do this another time?",
    "Where would you recommend for breakfast?",
    "How many people are coming on Saturday?",
    "Would it be okay if I left a bit early?",
    "Who's in charge of the budget?",
    "What's the quickest way to the airport?",
    "Did anyone feed the cat?",
    "Is that the one you were talking about?",
    "Why is the heating making that noise?",
    "How far is it from here?",
    "Have we met before?",
    "What should I bring?",
    "Do they deliver on Sundays?",
    "Whose turn is it to cook?",
    "Can you turn it up a bit?",
    "Shall we go?",
)
# "Yes." is already in the first corpus, so "Yeah." and "Yep." stand in for it here.
ONE_WORD = (
    "Yeah.",
    "Yep.",
    "Exactly.",
    "Correct.",
    "Never.",
    "Tomorrow.",
    "Agreed.",
    "Cheers.",
    "Fifteen.",
    "Nine.",
    "Eleven.",
    "Sarah.",
    "Michael.",
    "London.",
    "Saturday.",
    "Whatever.",
)
# (category, words before the pause, words after it)
MID_THOUGHT = (
    # articles and possessives
    ("article", "Can you remind me to call the", "plumber about the leak?"),
    ("article", "I've been meaning to buy a", "proper winter coat."),
    ("article", "We stayed in this tiny flat above a", "bakery in Naples."),
    ("article", "She lent me her", "camera for the wedding."),
    ("article", "Have you met our", "new neighbour yet?"),
    ("article", "I'm pretty sure I left the", "oven on."),
    ("article", "Could you book us a", "table for eight tonight?"),
    ("article", "My favourite thing about the trip was the", "food at the night market."),
    ("article", "He showed up with an", "enormous cake."),
    ("article", "Don't forget to bring your", "swimming stuff."),
    ("article", "What I need right now is a", "long holiday."),
    ("article", "We ended up watching that", "documentary about octopuses."),
    ("article", "I think it's in the", "top drawer of my desk."),
    ("article", "Our", "flight got delayed by four hours."),
    ("article", "It was such a", "relief to get home."),
    ("article", "Have you got a copy of the", "contract somewhere?"),
    # prepositions and "to"
    ("preposition", "I was going to", "text you but my phone died."),
    ("preposition", "We need to talk about", "the holiday rota."),
    ("preposition", "The keys are somewhere under", "the pile of post."),
    ("preposition", "I've been trying to", "cut down on coffee."),
    ("preposition", "She moved back in with", "her parents in May."),
    ("preposition", "Could you put me through to", "someone in billing?"),
    ("preposition", "We're thinking of driving down to", "Cornwall in August."),
    ("preposition", "I got the idea from", "a podcast I heard."),
    ("preposition", "He's really into", "old maps and atlases."),
    ("preposition", "The package got left outside", "the wrong house."),
    ("preposition", "I'm not very good at", "remembering names."),
    ("preposition", "Let's push the deadline back to", "the end of next week."),
    ("preposition", "I've been looking forward to", "this all month."),
    ("preposition", "She's allergic to", "almost every kind of nut."),
    ("preposition", "We walked all the way across", "the park in the rain."),
    ("preposition", "I'd like to", "change my appointment."),
    # conjunctions, "because", relative clauses, numbers cut after "and"
    ("conjunction", "I'd love to come, but", "I've already got plans."),
    ("conjunction", "We didn't stay long because", "the baby was tired."),
    ("conjunction", "Grab me a coffee if", "you're going past the kiosk."),
    ("conjunction", "I'll finish this email and then", "we can head out."),
    ("conjunction", "It's the one that", "has the red roof."),
    ("conjunction", "That's the guy who", "fixed our fence last year."),
    ("conjunction", "I'm looking for the file that", "Sam sent on Friday."),
    ("conjunction", "It came to about two hundred and", "forty pounds."),
    ("conjunction", "She said that", "the office would be closed."),
    ("conjunction", "We waited until", "the rain stopped."),
    ("conjunction", "I don't mind driving, as long as", "someone else navigates."),
    ("conjunction", "I was so tired that", "I slept through the alarm."),
    ("conjunction", "You can borrow the car while", "I'm away."),
    ("conjunction", "He paid for dinner, and", "I got the taxi home."),
    ("conjunction", "The rent went up by nearly three hundred and", "fifty a month."),
    ("conjunction", "I kept the receipt in case", "it doesn't fit."),
    # fillers
    ("filler", "The address is, uh,", "fourteen Station Road."),
    ("filler", "I'd like to order the, um,", "mushroom risotto."),
    ("filler", "We should probably, like,", "leave soon."),
    ("filler", "My appointment is on, erm,", "Wednesday I think."),
    ("filler", "She's, like,", "the nicest person I know."),
    ("filler", "So the total comes to, uh,", "sixty three fifty."),
    ("filler", "I was thinking we could, um,", "try the new Thai place."),
    ("filler", "He's been, you know,", "a bit down lately."),
    ("filler", "The thing I really want is, uh,", "a quiet weekend."),
    ("filler", "It's kind of, like,", "a cross between a bike and a scooter."),
    ("filler", "My login is, um,", "my email address."),
    ("filler", "We could meet at, uh,", "half past five."),
    ("filler", "I mean, it's, um,", "not the end of the world."),
    ("filler", "Her name was, erm,", "Rebecca, I think."),
    ("filler", "Basically we just, like,", "ran out of time."),
    ("filler", "Um", "could you say that again?"),
    # inside lists
    ("list", "Can you pick up bread, cheese,", "and some tomatoes?"),
    ("list", "I've invited Jess, Marco,", "and my cousin Liam."),
    ("list", "The course covers statistics, programming,", "and a bit of design."),
    ("list", "Pack sunscreen, a hat,", "and plenty of water."),
    ("list", "We looked at flats in Leeds, York,", "and Sheffield."),
    ("list", "The recipe needs garlic, ginger,", "and a little soy sauce."),
    ("list", "I still have to do the ironing, the hoovering,", "and the bathroom."),
    ("list", "The kit comes with a charger, a case,", "and two spare batteries."),
    ("list", "She's lived in Dublin, Madrid,", "and briefly in Tokyo."),
    ("list", "Monday, Wednesday,", "and Friday work for me."),
    ("list", "We'll need plates, cups,", "and some napkins."),
    ("list", "The options are the train, the coach,", "or a hire car."),
    ("list", "I ordered a burger, chips,", "and a milkshake."),
    ("list", "Check the oil, the tyres,", "and the windscreen wipers."),
    ("list", "We need onions, peppers, and", "a tin of tomatoes."),
    ("list", "Bring a towel, flip flops, and", "something warm for later."),
    # openers, "I think" / "let me see" / "so basically", clauses stopped on an auxiliary
    ("opener", "So basically", "the server went down overnight."),
    ("opener", "Let me see now", "it was either Tuesday or Wednesday."),
    ("opener", "Personally I think", "the first draft was stronger."),
    ("opener", "Honestly, I reckon", "it'll be fine."),
    ("opener", "The problem we've got is", "nobody has the password."),
    ("opener", "What I was going to say was", "we could split the bill."),
    ("opener", "Okay so the thing is", "I can't make Friday."),
    ("opener", "If I remember rightly", "the shop shuts at five."),
    ("opener", "I suppose", "we could try again tomorrow."),
    ("opener", "Thinking about it,", "the other hotel was nicer."),
    ("opener", "Let me just", "find the right page."),
    ("opener", "We should probably", "check with your mum first."),
    ("opener", "I was wondering whether", "you'd seen my charger."),
    ("opener", "I'm not sure if", "they've paid yet."),
    ("opener", "She might", "be a bit late."),
    ("opener", "What we could do is", "take turns driving."),
)
