"""``mockengine record``: a relaying proxy in front of any Realtime / Chat Completions endpoint that
writes a recording (format: ``mockengine.recordings.format``; replay: ``serve --replay``)."""
