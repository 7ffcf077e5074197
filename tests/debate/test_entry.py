"""The debate arena's entry checks (COMPELLE-ENTRY-1), each case the spec and docs/decisions.md name."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest

from colosseum_core.chain.http import HttpGists, HttpLedger
from colosseum_core.chain.ledger import GistFile, GistRevision
from colosseum_core.debate.entry import (
    PANEL_COLUMNS,
    admitted_to_panel,
    entries,
    entry_counts,
    resolve_entries,
)
from colosseum_core.debate.entry.names import ENTERED, PENDING, REJECTED
from colosseum_core.debate.strategy import (
    INLINE,
    MAX_STRATEGY_BYTES,
    PINNED,
    UNPINNED,
    gist_text,
    read_commitment,
    strategy_hash,
    text_problem,
)
from colosseum_standins.ledger import running_ledger

GIST = "0123456789abcdef0123"
SHA = "a" * 40
NOW = dt.datetime(2026, 1, 2, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("data", "kind", "sha"),
    [
        (f"gist:{GIST}@{SHA}", PINNED, SHA),
        (f"https://gist.github.com/someone/{GIST}/{SHA}", PINNED, SHA),
        (f"  gist:{GIST}@{SHA}\n", PINNED, SHA),
        (f"gist:{GIST}", UNPINNED, None),
        (f"https://gist.github.com/someone/{GIST}", UNPINNED, None),
        ("Argue like a trial lawyer.", INLINE, None),
        (f"gist:{GIST}@{SHA[:39]}", INLINE, None),  # not a pointer at all: its text is the strategy
    ],
)
def test_a_commitment_is_a_pinned_or_unpinned_pointer_or_inline_text(
    data: str, kind: str, sha: str | None
) -> None:
    pointer = read_commitment(data)
    assert (pointer.kind, pointer.sha) == (kind, sha)


def test_a_strategy_is_text_of_bounded_size() -> None:
    assert text_problem("Be brief.\n\tBe kind.", "x") is None
    assert "empty" in str(text_problem(" \n ", "x"))
    assert f"a strategy is at most {MAX_STRATEGY_BYTES:,} bytes" in str(text_problem("y" * 1_000_000, "x"))
    assert "character 3 is U+0000" in str(text_problem("abc\x00def", "commitment of hotkey h"))
    assert strategy_hash("Be brief.") == strategy_hash("Be brief.") != strategy_hash("Be brief!")


def test_a_strategy_gist_holds_one_file_returned_whole() -> None:
    whole = GistFile("s.md", "Argue.", 6, False)
    assert gist_text(GistRevision(GIST, SHA, (whole,))) == ("Argue.", None)
    two = gist_text(GistRevision(GIST, SHA, (whole, GistFile("t.md", "x", 1, False))))
    assert two[0] is None and "holds 2 files (s.md, t.md)" in str(two[1])
    cut = gist_text(GistRevision(GIST, SHA, (GistFile("s.md", "y" * 10, 2_000_000, True),)))
    assert cut[0] is None and "truncated by GitHub (2,000,000 bytes)" in str(cut[1])


def _panel(resolved: pl.DataFrame, votes: dict[str, tuple[int, int]], king: str | None = None, demoted=False):
    """The panel's counts (valid, BAD) for the hotkeys it was asked about."""
    asked = admitted_to_panel(resolved)["hotkey"].to_list()
    rows = [
        {
            "hotkey": h,
            "panel_valid": votes[h][0],
            "panel_bad": votes[h][1],
            "is_king": h == king,
            "king_demoted": demoted and h == king,
        }
        for h in asked
        if h in votes
    ]
    frame = pl.DataFrame(rows, schema={"hotkey": pl.String(), **PANEL_COLUMNS})
    return resolved.join(frame, on="hotkey", how="left")


def test_entry_through_the_local_ledger_every_check_in_its_order() -> None:
    with running_ledger(now=lambda: NOW) as (url, ledger):

        def miner(hotkey: str, data: str | None, after: int) -> None:
            ledger.register(hotkey)
            if data is not None:
                ledger.advance(after)
                ledger.commit(hotkey, data)

        inside = ledger.put_gist({"strategy.md": "Answer the strongest claim first."})
        transient = ledger.put_gist({"strategy.md": "Concede nothing."})
        miner("at-200", "Speak plainly.", 200)
        miner("at-201", "Speak plainly.", 201)
        ledger.register("rewriter")
        ledger.commit("rewriter", "First text.")
        ledger.advance(250)
        ledger.commit("rewriter", "A later rewrite.")  # the chain keeps only this one, out of the window
        miner("silent", None, 0)
        miner("unpinned", f"gist:{inside.gist_id}", 0)
        miner("pinned", f"gist:{inside.gist_id}@{inside.sha}", 0)
        miner("missing", f"gist:{inside.gist_id}@{'b' * 40}", 0)
        miner("flaky", f"gist:{transient.gist_id}@{transient.sha}", 0)
        miner("binary", "win\x00win", 0)
        ledger.unavailable[transient.gist_id] = 1

        chain = HttpLedger(url)
        resolved = resolve_entries(chain.neurons(), chain.commitments(), HttpGists(url))
        judged = entries(_panel(resolved, {"at-200": (3, 0), "pinned": (2, 0)})).to_dicts()
        by = {row["hotkey"]: row for row in judged}

        assert (by["at-200"]["status"], by["at-200"]["rule"]) == (ENTERED, None)
        assert by["at-201"]["status"] == REJECTED and by["at-201"]["rule"] == "registration_window"
        assert (
            "201 blocks after registering" in by["at-201"]["value"]
            and "(window 200)" in by["at-201"]["value"]
        )
        assert (
            by["rewriter"]["rule"] == "registration_window" and "250 blocks after" in by["rewriter"]["value"]
        )
        assert (by["silent"]["rule"], by["silent"]["value"]) == ("registration_window", "no commitment")
        assert by["unpinned"]["rule"] == "pinned_revision" and "without a revision" in by["unpinned"]["value"]
        assert by["missing"]["rule"] == "pinned_revision" and "not found" in by["missing"]["value"]
        assert by["binary"]["rule"] == "pinned_revision" and "U+0000" in by["binary"]["value"]
        assert by["flaky"]["status"] == PENDING and by["flaky"]["rule"] == "revision_unavailable"
        assert by["pinned"]["status"] == ENTERED
        assert by["pinned"]["strategy_hash"] == strategy_hash("Answer the strongest claim first.")
        assert by["at-200"]["rules"] == "COMPELLE-ENTRY-1"
        counts = entry_counts(entries(_panel(resolved, {"at-200": (3, 0), "pinned": (2, 0)})))
        assert counts.entered == 2 and counts.by_rule["registration_window"] == 3

        # The transient failure passes: next epoch the same pointer resolves.
        again = resolve_entries(chain.neurons(), chain.commitments(), HttpGists(url))
        assert again.filter(pl.col("hotkey") == "flaky")["resolution"].item() == "resolved"


@pytest.mark.parametrize(
    ("valid", "bad", "verdict", "status"),
    [
        (3, 3, "BAD", REJECTED),
        (2, 2, "BAD", REJECTED),  # one vote invalid, the other two BAD
        (1, 1, "PENDING", PENDING),  # a single valid vote never locks anyone out
        (3, 0, "GOOD", ENTERED),
        (2, 0, "GOOD", ENTERED),
        (3, 1, "PENDING", PENDING),
        (3, 2, "PENDING", PENDING),
        (0, 0, "PENDING", PENDING),
    ],
)
def test_the_intent_panels_lopsided_bar(valid: int, bad: int, verdict: str, status: str) -> None:
    resolved = _inline_entry("m")
    row = entries(_panel(resolved, {"m": (valid, bad)})).row(0, named=True)
    assert (row["verdict"], row["status"]) == (verdict, status)


def _inline_entry(hotkey: str) -> pl.DataFrame:
    from colosseum_core.chain.ledger import Commitment, Neuron

    return resolve_entries(
        [Neuron(0, hotkey, 10)],
        {hotkey: Commitment(hotkey, 20, "Argue well.")},
        gists=None,  # type: ignore[arg-type]
    )


def test_the_sitting_king_is_demoted_once_then_locked_out() -> None:
    resolved = _inline_entry("king")
    once = entries(_panel(resolved, {"king": (3, 3)}, king="king")).row(0, named=True)
    assert (once["status"], once["rule"]) == (PENDING, "intent_undecided")
    assert "the sitting king" in once["value"] and "BAD again locks it out" in once["value"]
    twice = entries(_panel(resolved, {"king": (3, 3)}, king="king", demoted=True)).row(0, named=True)
    assert (twice["status"], twice["rule"]) == (REJECTED, "intent_panel")
    # A king the panel calls GOOD simply enters.
    assert entries(_panel(resolved, {"king": (3, 0)}, king="king"))["status"].item() == ENTERED


def test_a_miner_the_panel_was_not_asked_about_sits_out() -> None:
    row = entries(_inline_entry("m")).row(0, named=True)
    assert (row["status"], row["rule"], row["value"]) == (
        PENDING,
        "intent_undecided",
        "the panel was not asked",
    )
