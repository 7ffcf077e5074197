"""The one error a command's user can put right, apart from the rest of the commands' plumbing
(``common``) so that every command module, ``instance`` among them, may raise it without importing
``common`` (which reaches ``instance`` for the run plumbing)."""

from __future__ import annotations


class UserError(Exception):
    """Something the user can put right: printed as one line on stderr, exit status 2."""
