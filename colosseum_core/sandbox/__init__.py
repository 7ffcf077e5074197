"""Running untrusted programs: bubblewrap, with no network, no host files and hard limits.

``bubblewrap`` builds the jail and runs a program in it; ``launch`` is what starts inside it (a
fixed clock and seeded entropy).

Imported by: the events that check programs (``colosseum_core.events``: the tasks' checkers), their
wiring and commands, the benchmarks and the tests. It knows no arena (``.importlinter``).
"""
