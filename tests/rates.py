"""Rates the test engines run at.

Written replies stream at ten times the default rate (``Settings.text_tokens_per_s``, 50 tokens a second)
in every test engine, the fake models' and the real ones': still paced (a cancel can land mid-reply, the
timers run), without the realistic rate adding ~100 s of test time over the fast tier's files with text
replies alone (measured 2026-12-07: 238 s → 341 s). A test of the default rate asks for it
(``engine(text_tokens_per_s=Settings().text_tokens_per_s)``).
"""

TEST_TEXT_TOKENS_PER_S = 500.0
