"""Stage 4 of a card: its packet sent to every seat, each reply read, the answers signed twice.

``seats`` says who fills each seat, ``asking`` how a seat is asked (one packet, one reply),
``reading`` turns a reply into binding answers, ``answers`` lays a card's answers out as signed
tables; ``house`` holds the house gladiators the sparring server hosts for the forecast. Imports
the stages before it; settlement, the board, site, audit, the wiring and the tests may import it.
"""
