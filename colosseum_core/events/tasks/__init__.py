"""Tasks for the challenge and Solve-or-Object events: schema, exact checkers, checking, verification."""
