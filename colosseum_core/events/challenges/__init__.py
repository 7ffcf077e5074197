"""The challenge event: contenders author machine-checkable tasks for each other, then solve or object."""
