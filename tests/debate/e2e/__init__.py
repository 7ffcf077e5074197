"""The debate arena end to end: epochs, crowns and boards through the real Definitions."""
