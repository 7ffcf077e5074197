"""The entry checks' names, their order (COMPELLE-ENTRY-1) and what each makes of a miner it stops."""

from __future__ import annotations

from typing import Final

REGISTRATION_WINDOW: Final = "registration_window"
PINNED_REVISION: Final = "pinned_revision"
REVISION_UNAVAILABLE: Final = "revision_unavailable"
INTENT_PANEL: Final = "intent_panel"
INTENT_UNDECIDED: Final = "intent_undecided"

# The spec's three checks, in its order; the second and third each stop a miner in one of two ways.
RULE_ORDER: Final = (
    REGISTRATION_WINDOW,
    PINNED_REVISION,
    REVISION_UNAVAILABLE,
    INTENT_PANEL,
    INTENT_UNDECIDED,
)

ENTERED, REJECTED, PENDING = "entered", "rejected", "pending"
# A rejected miner is out until it registers a new hotkey (or, for the panel, a new panel revision
# re-judges it); a pending one sits this epoch out, keeps its rating, and is checked again next epoch.
STATUS_OF_RULE: Final = {
    REGISTRATION_WINDOW: REJECTED,
    PINNED_REVISION: REJECTED,
    REVISION_UNAVAILABLE: PENDING,
    INTENT_PANEL: REJECTED,
    INTENT_UNDECIDED: PENDING,
}
