"""Trial benchmark: a full trial (every registered part) of a guest model against its target.

The guest is what a model maker serves: ``colosseum_standins.guest``, one model name (``acme-7b``,
none of the house players') over the OpenAI protocol on loopback, in a child process of its own,
each prompt answered at house speed by the house player its route names (``ROUTES``: a regular
expression over the prompt's system and user text, the first match wins, else ``DEFAULT``) on the
sparring server (in a thread of the benchmark's process, which otherwise only waits). ``colosseum
trial openai/acme-7b --base-url …`` then runs as a user runs it (a second process) on a fresh
record, and again, to time the resume (every unit sealed: read, not played).

Figures per part: its state, the wall seconds between its progress lines, the calls, tokens and
seconds it reports, its format failures and refusals; then the whole trial's wall time against the
target (at most 10 minutes on 2 cores), and the rerun's.

    python benchmarks/trial.py
    python benchmarks/trial.py --arena events --json
    python benchmarks/trial.py --parts tests.support.trial_part_toy   # the tests' toy part as well

Exit status 0 when the trial ends with no failed part within the target, else 1. The routes are the
prompts' words the arenas' parts use; a part whose prompts a route misses is answered by the default
(the forecast's house-hash), which shows as format failures in its figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from colosseum_core.arenas import sparring_houses
from colosseum_standins.loopback import running_process
from colosseum_standins.sparring import running_sparring

REPO = Path(__file__).resolve().parent.parent
NAME = "acme-7b"
TARGET_S = 600.0
# Which house player answers which arena's prompts (first match wins).
# Each part's prompts, by their templates' own words (a contender's text that repeats an earlier
# route's phrase would be misrouted: a limit of this stand-in guest, which only routes): the
# debater and the judge (debate/prompts/*.txt) to house-generalist, which answers both roles; a chess
# move (events/chess/prompt.py); a challenge's authoring slot and its solving (events/challenges) to
# house-author, which does both, before a Solve-or-Object item (events/solve_or_object/prompt.py),
# whose instruction the challenge's solving prompt repeats.
# The forecast's packet falls through to DEFAULT, a house gladiator.
ROUTES = (
    r"You are a debater with a distinctive style|You are judging a debate on:=house-generalist",
    r"You are playing a game of chess as=house-chess",
    r"You are an author in a challenge event|You are a solver in a challenge event=house-author",
    r"Solve it, object to it, or abstain=house-solver",
    r"You are a judge reviewing an objection=house-reviewer",
)
DEFAULT = "house-hash"


def _trial(
    argv: list[str], env: dict[str, str]
) -> tuple[int, dict[str, Any] | None, list[tuple[float, str]]]:
    """Run ``colosseum trial`` as a user does; its exit code, its JSON report and each progress line
    with the seconds since the start."""
    started = time.monotonic()
    child = subprocess.Popen(
        [sys.executable, "-m", "colosseum_dagster.cli", "trial", *argv, "--json"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[tuple[float, str]] = []
    out: list[str] = []
    reader = threading.Thread(target=lambda: out.append(child.stdout.read() if child.stdout else ""))
    reader.start()
    assert child.stderr is not None
    for line in child.stderr:
        lines.append((time.monotonic() - started, line.rstrip("\n")))
        print(f"  [{lines[-1][0]:6.1f}s] {line.rstrip()}", file=sys.stderr)
    code = child.wait()
    reader.join()
    try:
        report = json.loads("".join(out))
    except ValueError:
        report = None
    return code, report, lines


def _part_walls(lines: list[tuple[float, str]]) -> dict[str, float]:
    """Each part's wall seconds, from its "asking" line to its closing one."""
    asked: dict[str, float] = {}
    walls: dict[str, float] = {}
    for at, line in lines:
        text = line.removeprefix("trial: ")
        name, _, rest = text.partition(" ")
        if rest.startswith("(") and rest.endswith("asking"):
            asked[name] = at
        elif text.partition(": ")[0] in asked and text.partition(": ")[2].split(" ")[0] in (
            "sealed",
            "waiting",
            "skipped",
            "failed",
        ):
            key = text.partition(": ")[0]
            walls[key] = at - asked[key]
    return walls


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--arena", default=None, help="only these arenas' parts (A,…)")
    parser.add_argument("--parts", default=None, help="modules offering more parts ($COLOSSEUM_TRIAL_PARTS)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    if args.parts:
        env["COLOSSEUM_TRIAL_PARTS"] = args.parts
    with tempfile.TemporaryDirectory(prefix="colosseum-trial-bench-") as scratch:
        return _bench(args, env, Path(scratch))


def _bench(args: argparse.Namespace, env: dict[str, str], scratch: Path) -> int:
    env["DAGSTER_HOME"] = str(scratch / "dagster_home")
    (scratch / "dagster_home").mkdir()
    data = scratch / "data"
    # The sparring server in a thread of this process, which otherwise only waits for the trial's.
    with running_sparring(houses=sparring_houses()) as sparring_url:
        guest_argv = [
            "colosseum_standins.guest",
            "--name",
            NAME,
            "--sparring",
            sparring_url,
            "--default",
            DEFAULT,
        ]
        for route in ROUTES:
            guest_argv += ["--route", route]
        with running_process(guest_argv) as guest:
            env["COLOSSEUM_SPARRING_URL"] = sparring_url
            argv = [f"openai/{NAME}", "--base-url", f"{guest.url}/v1", "--data", str(data)]
            if args.arena:
                argv += ["--arena", args.arena]
            started = time.monotonic()
            code, report, lines = _trial(argv, env)
            first = time.monotonic() - started
            started = time.monotonic()
            again_code, again, _ = _trial(argv, env)
            rerun = time.monotonic() - started
            routed = httpx.get(f"{guest.url}/status").json().get("routed", {})

    if report is None:
        print(f"trial: no report (exit {code}); its last lines:", file=sys.stderr)
        for _, line in lines[-5:]:
            print(f"  {line}", file=sys.stderr)
        return 1
    walls = _part_walls(lines)
    parts = [
        {
            "part": f"{p['arena']}/{p['part']}",
            "state": p["state"],
            "wall_s": round(walls.get(f"{p['arena']}/{p['part']}", 0.0), 2),
            "reported_s": p["seconds"],
            "calls": p["calls"],
            "tokens_in": p["tokens_in"],
            "tokens_out": p["tokens_out"],
            "format_failures": p["format_failures"],
            "refusals": p["refusals"],
            "note": p["note"],
        }
        for p in report["parts"]
    ]
    met = first <= TARGET_S and report["failed"] == 0
    summary = {
        "trial": report["trial"],
        "cores": os.cpu_count(),
        "parts": parts,
        "trial_s": round(first, 2),
        "target_s": TARGET_S,
        "rerun_s": round(rerun, 2),
        "rerun_exit": again_code,
        "rerun_same_units": again is not None
        and [p["unit"] for p in again["parts"]] == [p["unit"] for p in report["parts"]],
        "routed": routed,
        "met": met,
    }
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        print(f"trial {report['trial']} of openai/{NAME} on {os.cpu_count()} core(s):")
        for p in parts:
            fails = sum(p["format_failures"].values())
            print(
                f"  {p['part']:<28} {p['state']:<8} {p['wall_s']:7.1f}s wall  {p['calls']:5} calls  "
                f"{fails:3} format failures  {p['refusals']:3} refusals"
                + (f"  ({p['note'][:60]})" if p["note"] else "")
            )
        print(f"  routed: {', '.join(f'{k} {v}' for k, v in sorted(routed.items())) or 'nothing'}")
        verdict = "met" if met else "NOT met"
        print(f"whole trial {first:.1f}s (target {TARGET_S:.0f}s: {verdict}); rerun (resume) {rerun:.1f}s")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
