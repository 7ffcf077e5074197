"""The project as a whole: its docs and its deployment's configuration."""
