"""colosseum verify over a record of every arena."""
