"""The Solve-or-Object event: sound problems and their minimally edited defective twins."""
