"""The multi-event arena's part of the one public site: every sealed event, its standings and games."""
