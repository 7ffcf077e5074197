"""Challenge events benchmark: the sandbox's start-up and the built-in checkers' throughput.

(a) Sandbox start-up (COLOSSEUM-SANDBOX-2): one run of an empty Python program under bubblewrap,
    everything included (the job folder written, the namespaces made, the sized /tmp mounted, the
    limits set, the clock and entropy fixed, Debian's Python started and ended, the folder
    removed); target ≤ 20 ms per run on 2 cores. Beside it,
    the same interpreter started bare (no sandbox), so the sandbox's own share is visible.
(b) The built-in exact checkers (COLOSSEUM-EXACT-CHECKERS-1): 10,000 answers checked against their
    references, a mix of the four answer types with right, wrong and malformed answers; target ≤ 1 s.
    Every verdict is compared with a plain re-reading written apart (int, Fraction, json.loads), so
    a fast checker that answers wrongly fails the benchmark.
(c) A task verified end to end (COLOSSEUM-TASK-VERIFIED-2) with a program checker and a reference
    program: five steps, each run three times, fifteen sandbox runs; reported, no target.
(d) One challenge event of 8 contenders end to end with house players (authors of every kind, two
    house reviewers) on the sparring server in-process, each phase timed as its Dagster asset runs it
    (the same core functions): authoring and admission, commitments, solving and review, the close.

Each figure is the median of ``--runs`` timed runs after one untimed warm-up. The load average is
printed: the box has 2 cores.

    python benchmarks/challenges.py
    python benchmarks/challenges.py --json      # one JSON object, for scripts

Exit status 0 when every target is met and every verdict agrees, else 1 (2 when no sandbox runs here).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from fractions import Fraction

from timing import median_seconds  # the sibling script: run as `python benchmarks/challenges.py`

from colosseum_core.events.tasks.answers import exact_check
from colosseum_core.events.tasks.checking import sandbox_runner
from colosseum_core.events.tasks.task import parse_task
from colosseum_core.events.tasks.verification import verify_task
from colosseum_core.sandbox.bubblewrap import INTERPRETER, run_python, unavailable_reason

TARGETS = {"sandbox_start_s": 0.020, "exact_10k_s": 1.0}


def answers(count: int, seed: int) -> list[tuple[str, str, str]]:
    """(answer type, reference, answer): a third right, a third wrong, a sixth malformed, the rest
    right but written differently (white space, scaled fractions, reordered JSON keys)."""
    rng = random.Random(seed)
    made = []
    for index in range(count):
        kind = ("integer", "fraction", "string", "json")[index % 4]
        value = rng.randint(-(10**6), 10**6)
        if kind == "integer":
            reference, right, other = str(value), f" +{value}\n" if value >= 0 else str(value), str(value + 1)
        elif kind == "fraction":
            q = rng.randint(1, 999)
            reference, right, other = f"{value}/{q}", f"{value * 3}/{q * 3}", f"{value + 1}/{q}"
        elif kind == "string":
            reference, right, other = f"item-{value}", f"item-{value}\n", f"Item-{value}"
        else:
            reference = json.dumps({"a": value, "b": [1, 2]}, separators=(",", ":"))
            right, other = json.dumps({"b": [1, 2], "a": value}), json.dumps({"a": value, "b": [2, 1]})
        pick = rng.random()
        answer = (
            right
            if pick < 0.5
            else other
            if pick < 0.83
            else {"integer": "4,2", "fraction": "1/0"}.get(kind, "[1")
        )
        if kind == "string" and pick >= 0.83:
            answer = other
        made.append((kind, reference, answer))
    return made


def plain_verdict(kind: str, reference: str, answer: str) -> bool:
    """The same question answered the obvious way, written apart from the checkers."""
    text = answer.strip(" \t\r\n")
    try:
        if kind == "integer":
            return text.isascii() and text.lstrip("+-").isdigit() and int(text) == int(reference)
        if kind == "fraction":
            return Fraction(text) == Fraction(reference) if "." not in text else False
        if kind == "string":
            return text == reference
        return json.loads(text) == json.loads(reference)
    except (ValueError, ZeroDivisionError):
        return False


REGISTRY = """
[settings]
temperature = 0.0
timeout_s = 60.0
{houses}
[[judge]]
id = "judge-a"
protocol = "openai"
model = "gpt-5.1"
base_url = "https://api.openai.com"
key_env = "OPENAI_API_KEY"
house = "house-reviewer"

[[judge]]
id = "judge-b"
protocol = "anthropic"
model = "claude-opus-4-5"
base_url = "https://api.anthropic.com"
key_env = "ANTHROPIC_API_KEY"
house = "house-reviewer-s1"
"""
HOUSE_AUTHORS = (
    "house-author-sharp",
    "house-author-subtle",
    "house-author-s2",
    "house-author-subtle-s3",
    "house-author-credulous",
    "house-author-paranoid",
    "house-author-lazy",
    "house-author-hostile",
)


def one_event(slots: int) -> dict[str, float]:
    """Seconds per phase of one challenge event of eight house contenders."""
    import datetime as dt
    import tempfile
    from pathlib import Path

    from colosseum_core.arenas import sparring_houses
    from colosseum_core.events.challenges import run
    from colosseum_core.record.layout import Record
    from colosseum_core.trust.keys import KeyStore
    from colosseum_standins.sparring import running_sparring

    houses = "".join(
        f'\n[[house]]\nid = "h{i}"\nprotocol = "openai"\nmodel = "{model}"\n'
        for i, model in enumerate(HOUSE_AUTHORS)
    )
    now = dt.datetime(2026, 12, 2, 12, tzinfo=dt.UTC)
    runner = sandbox_runner()
    times: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as scratch, running_sparring(houses=sparring_houses()) as url:
        registry = Path(scratch) / "challenges.toml"
        registry.write_text(REGISTRY.format(houses=houses))
        record, keys = Record(Path(scratch) / "data"), KeyStore.for_data(Path(scratch) / "data")

        def timed_step(name: str, work):  # type: ignore[no-untyped-def]
            started = time.perf_counter()
            result = work()
            times[name] = time.perf_counter() - started
            return result

        frozen, _ = timed_step(
            "freeze",
            lambda: run.freeze_challenge_event(
                event="bench", contenders_path=registry, environ={}, slots=slots, seed=1, keys=keys, now=now
            ),
        )
        asking = {"record": record, "keys": keys, "sparring_url": url, "environ": {}, "clock": lambda: now}
        authored = timed_step("authoring", lambda: run.author(frozen, **asking))
        subs = timed_step("admission", lambda: run.admit(frozen, authored, keys=keys, runner=runner))[
            "challenge_submissions"
        ]
        commitments = timed_step("commitments", lambda: run.commit_tasks(frozen, subs, keys=keys, now=now))
        solved = timed_step("solving", lambda: run.solve(frozen, subs, commitments, runner=runner, **asking))
        replies = solved["challenge_replies"]
        reviews = timed_step("review", lambda: run.review(frozen, subs, commitments, replies, **asking))
        revealed = timed_step(
            "reveal",
            lambda: run.reveal(
                frozen, subs, commitments, replies, reviews, record=record, keys=keys, runner=runner
            ),
        )
        timed_step(
            "scoring",
            lambda: run.score(
                frozen, subs, replies, reviews, revealed["challenge_reveals"], revealed["challenge_key"]
            ),
        )
        times["tasks admitted"] = float(subs.filter(subs["status"] == "verified").height)
        times["replies"] = float(replies.height)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--answers", type=int, default=10_000)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--slots", type=int, default=2, help="authoring slots per contender in (d)")
    args = parser.parse_args()
    reason = unavailable_reason()
    if reason is not None:
        print(f"no sandbox here: {reason}", file=sys.stderr)
        return 2

    starts = 20
    sandboxed, _, _ = median_seconds(lambda: [run_python("pass") for _ in range(starts)], args.runs)
    bare, _, _ = median_seconds(
        lambda: [subprocess.run([INTERPRETER, "-I", "-S", "-c", "pass"], check=True) for _ in range(starts)],
        args.runs,
    )
    batch = answers(args.answers, seed=20261202)
    exact_s, _, verdicts = median_seconds(
        lambda: [exact_check(kind, reference, answer).accepted for kind, reference, answer in batch],
        args.runs,
    )
    disagreements = sum(
        verdict != plain_verdict(*item) for verdict, item in zip(verdicts, batch, strict=True)
    )
    task = parse_task(
        {
            "format": "COLOSSEUM-TASK-1",
            "statement": "Give a prime number greater than 100 as an integer.",
            "answer_type": "integer",
            "reference": {
                "program": "print(next(n for n in range(101, 200) if all(n % d for d in range(2, n))))"
            },
            "checker": {
                "kind": "program",
                "source": "import json, sys\nn = int(json.load(sys.stdin)['answer'])\n"
                "print('ACCEPT' if n > 100 and all(n % d for d in range(2, n)) else 'REJECT')",
            },
            "failure_cases": ["100", "121", "7"],
        }
    )
    runner = sandbox_runner()
    verify_s, _, verification = median_seconds(lambda: verify_task(task, runner), args.runs)

    event = one_event(args.slots)
    figures = {
        "sandbox_start_s": sandboxed / starts,
        "bare_interpreter_s": bare / starts,
        "sandbox_share_s": (sandboxed - bare) / starts,
        "exact_10k_s": exact_s * 10_000 / args.answers,
        "exact_answers": args.answers,
        "exact_accepted": sum(verdicts),
        "exact_disagreements": disagreements,
        "task_verified_s": verify_s,
        "task_verified": verification.verified,
        "event_phases_s": event,
        "load_average": os.getloadavg(),
    }
    met = {name: figures[name] <= target for name, target in TARGETS.items()}
    ok = all(met.values()) and disagreements == 0 and verification.verified
    if args.json:
        print(json.dumps({**figures, "targets": TARGETS, "met": met, "ok": ok}))
        return 0 if ok else 1
    print(f"load average {figures['load_average'][0]:.2f} (2 cores)")
    print(
        f"(a) sandbox start-up   {figures['sandbox_start_s'] * 1000:6.1f} ms per run   target ≤ 20 ms   "
        f"{'met' if met['sandbox_start_s'] else 'MISSED'}; the bare interpreter "
        f"{figures['bare_interpreter_s'] * 1000:.1f} ms, "
        f"so the sandbox adds {figures['sandbox_share_s'] * 1000:.1f} ms"
    )
    print(
        f"(b) exact checkers     {figures['exact_10k_s']:6.3f} s per 10,000 answers   target ≤ 1 s   "
        f"{'met' if met['exact_10k_s'] else 'MISSED'}; {figures['exact_accepted']:,} accepted, "
        f"{disagreements} disagreements with the plain re-reading"
    )
    print(
        f"(c) one program task verified   {verify_s * 1000:.0f} ms (5 sandbox runs), "
        f"{'verified' if verification.verified else 'NOT verified: ' + verification.reason}"
    )
    phases = {k: v for k, v in event.items() if k not in ("tasks admitted", "replies")}
    total = sum(phases.values())
    print(
        f"(d) one challenge event, 8 house contenders x {args.slots} slots: {total:.1f} s "
        f"({int(event['tasks admitted'])} tasks admitted, {int(event['replies'])} replies)"
    )
    for name, seconds in phases.items():
        print(f"      {name:<26}{seconds:6.2f} s  {seconds / total:6.1%}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
