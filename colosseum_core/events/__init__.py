"""The multi-event arena: chess, challenge construction, Solve or Object; each event its own standings."""
