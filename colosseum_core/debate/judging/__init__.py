"""The judge panel (COMPELLE-JUDGING-1): two judges, the seed's judge prompt, a fenced transcript.

``fence`` (COMPELLE-FENCE-2, FENCE-1 kept for the games judged through it) neutralises anything in
a turn that could pass for the transcript's markers or a turn label; ``votes``
reads a vote (two lines, PRO or CON first) and tells a hedge from a malformed reply; ``panel`` turns
the votes into the game's result and its reason string; ``ask`` asks the judges through the shared
providers: a hedge retried at a higher temperature, a slot that errors walked to its fallback, a
split deliberated.

Imported by: the games (``game``), verify (``audit``) and the tests. It imports the layers below it:
how a slot is asked (``asking``), the models document, the prompts and the rules.
"""
