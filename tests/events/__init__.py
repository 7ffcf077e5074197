"""The multi-event arena (colosseum_core/events): the kinds' registry, asking, tasks and rules."""
