"""The chess event's rules, reading, players and suite (the [chess] extra)."""
