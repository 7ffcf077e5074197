"""Stage 4 of a card: its packet sent to every seat, each reply read, the answers signed twice.

``seats`` says who fills each seat, ``asking`` how a seat is asked (one packet, one reply),
``reading`` turns a reply into binding answers, ``answers`` lays a card's answers out as signed
tables; ``house`` holds the house gladiators the sparring server hosts for the forecast.

Imported by: the later stages, the pages (``site``), verify (``audit``), the registry (the house
gladiators), the wiring, the benchmarks and the tests; it imports the stages before it.
"""
