"""``colosseum trial NAME``: one model tried in every arena as a CALIBRATION contender against the
house field, one report at the end; ``colosseum trial report TRIAL_ID`` rebuilds that report from the
record. And ``colosseum standins guest``: a model maker's OpenAI-compatible server, on loopback, whose
one model answers at house speed.

The orchestration and the report are the platform's (``colosseum_core.trial``); the parts are the
arenas' (``colosseum_core.arenas.trial_parts``); this module only wires them to a terminal.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from colosseum_dagster.cli.arguments import add_listen_options, command, command_group
from colosseum_dagster.cli.common import DATA_HELP, UserError, data_home, record_root, shown

if TYPE_CHECKING:
    from colosseum_core.providers.models import ModelRef
    from colosseum_core.trial import TrialPart, TrialRequest
    from colosseum_core.trial.report import TrialReport


def _progress(line: str) -> None:
    print(f"trial: {shown(line)}", file=sys.stderr, flush=True)


def _model(args: argparse.Namespace) -> ModelRef:
    from colosseum_core.providers.models import ModelNameError, load_registry

    try:
        return load_registry(Path(args.models)).resolve(
            args.name, base_url=args.base_url, key_env=args.key_env
        )
    except ModelNameError as exc:
        raise UserError(str(exc)) from None


def _arenas(text: str | None) -> list[str] | None:
    if text is None:
        return None
    arenas = [a.strip() for a in text.split(",") if a.strip()]
    if not arenas:
        raise UserError("--arena: name at least one arena (e.g. --arena forecast,events)")
    return arenas


def _parts(arenas: list[str] | None) -> tuple[TrialPart, ...]:
    from colosseum_core.arenas import trial_parts

    try:
        return trial_parts(arenas)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def _seal_latest_card(request: TrialRequest) -> None:
    from colosseum_dagster.cli.forecast import seal_latest_card

    seal_latest_card(request)


def _draw_current_rotation(request: TrialRequest) -> None:
    from colosseum_dagster.cli.debate import draw_current_rotation

    draw_current_rotation(request)


# The prerequisites only the wiring can run, by (arena, part): a part that reports ``skipped`` because
# its arena has no unit to be tried on yet gets one made, as the arena's own command makes it, and
# runs again (``colosseum_core.trial.prepared``).
PREREQUISITES: dict[tuple[str, str], tuple[str, Callable[[TrialRequest], None]]] = {
    ("forecast", "forecast"): ("the latest card", _seal_latest_card),
    ("debate", "debate"): ("the current topic rotation", _draw_current_rotation),
}


def prepared_parts(parts: tuple[TrialPart, ...]) -> tuple[TrialPart, ...]:
    from colosseum_core.trial.prepared import Prepared

    def wrapped(part: TrialPart) -> TrialPart:
        known = PREREQUISITES.get((part.arena, part.part))
        return part if known is None else Prepared(part, known[1], known[0])

    return tuple(wrapped(p) for p in parts)


def _print_report(report: TrialReport, root: Path, as_json: bool) -> None:
    from colosseum_core.trial.report import render_text

    if as_json:
        document = report.document()
        document["data"] = str(root)
        print(json.dumps(document, indent=1, default=str))
        return
    for line in render_text(report, link=lambda path: str(root / path)):
        print(shown(line))


def cmd_trial(args: argparse.Namespace) -> int:
    import time

    from colosseum_core.providers.check import ModelCheckError, require_reachable
    from colosseum_core.record.locks import LockBusy
    from colosseum_core.trial import TrialRequest, trial_id
    from colosseum_core.trial.report import run_trial
    from colosseum_dagster.cli.common import sparring_for_run
    from colosseum_dagster.cli.trial_jobs import job_runner

    if args.name == "report":
        return cmd_trial_report(args)
    if args.trial is not None:
        raise UserError(f"unexpected {args.trial!r} after {args.name}: one model per trial")
    model = _model(args)
    if model.house:
        raise UserError(
            f"{model.name} is a house player: a trial tries a model against the house field, not one of it"
        )
    arenas = _arenas(args.arena)
    parts = prepared_parts(_parts(arenas))
    if not parts:
        raise UserError("no arena offers a trial part yet: nothing to try the model on")
    root = data_home(args.data)
    trial = trial_id(model)
    clock = lambda: dt.datetime.now(dt.UTC)  # noqa: E731
    with sparring_for_run() as sparring_url:
        _progress(f"{model.name}: asking it one short request first")
        try:
            [checked] = require_reachable(
                [model], environ=os.environ, sparring_url=sparring_url, clock=clock, monotonic=time.monotonic
            )
        except ModelCheckError as exc:
            raise UserError(f"refused before anything ran: {exc}") from None
        _progress(checked.line())
        names = ", ".join(f"{p.arena}/{p.part}" for p in parts)
        _progress(f"{trial}: {len(parts)} part(s) ({names}); record {root}")
        request = TrialRequest(
            model=model,
            trial=trial,
            data_dir=root,
            sparring_url=sparring_url,
            environ=dict(os.environ),
            clock=clock,
            progress=_progress,
            run_job=job_runner(root, verbose=args.verbose),
        )
        try:
            report = run_trial(parts, request)
        except LockBusy as exc:
            raise UserError(f"trial {trial}: {exc}") from None
    _print_report(report, root, args.json)
    if not args.json:
        print(f"again: colosseum trial report {trial}" + (f" --data {args.data}" if args.data else ""))
    return 1 if report.failed else 0


def cmd_trial_report(args: argparse.Namespace) -> int:
    from colosseum_core.trial.entries import TrialRecordError, check_trial_id, trials_in
    from colosseum_core.trial.report import rebuild_report

    if args.trial is None:
        raise UserError("trial report: name the trial (colosseum trial report TRIAL_ID)")
    root = record_root(args.data)
    try:
        check_trial_id(args.trial)
        report = rebuild_report(root, args.trial, _parts(None))
    except TrialRecordError as exc:
        raise UserError(str(exc)) from None
    if report is None:
        held = ", ".join(trials_in(root)) or "none"
        raise UserError(f"no trial {args.trial} in the record at {root} (trials there: {held})")
    _print_report(report, root, args.json)
    return 1 if report.failed else 0


def cmd_standins_guest(args: argparse.Namespace) -> int:
    import uvicorn

    from colosseum_dagster.cli.common import listening, refuse_a_taken_port
    from colosseum_standins.guest import build_app, config_of
    from colosseum_standins.loopback import uvicorn_config

    try:
        config = config_of(args.name, args.route, args.default, args.sparring, args.key)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    listening(args.sparring, "sparring server", "start `colosseum sparring serve`, or pass --sparring")
    refuse_a_taken_port(args.host, args.port)
    print(
        f"guest model {config.name} (OpenAI protocol) on http://{args.host}:{args.port}/v1, answered by "
        f"{len(config.routes)} route(s) and {config.default} at {args.sparring}; Ctrl-C stops it",
        file=sys.stderr,
    )
    uvicorn.Server(uvicorn_config(build_app(config), args.host, args.port)).run()
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    trial = command(
        sub,
        "trial",
        cmd_trial,
        "try one model in every arena against the house field, as a CALIBRATION contender, and report",
        "examples:\n"
        "  colosseum trial openai/acme-7b --base-url http://127.0.0.1:8000/v1\n"
        "  colosseum trial openai/gpt-5.1 --arena events --json\n"
        "  colosseum trial report acme-7b-1a2b3c4d\n"
        "NAME is provider/model, or a name models.toml holds. The model is asked one short request "
        "first and refused in one line if it does not answer. Each arena's part is an ordinary unit of "
        "that arena with its own seal (colosseum verify covers it). Run it again to resume: finished "
        "units are read, not played again. Exit 1 if a part failed (the others still ran).",
    )
    trial.add_argument(
        "name", help="the model: provider/model, or a name in models.toml ('report' reads one)"
    )
    trial.add_argument("trial", nargs="?", default=None, metavar="TRIAL_ID", help="after 'report': the trial")
    trial.add_argument(
        "--base-url", default=None, help="where the model is served (any OpenAI-compatible server)"
    )
    trial.add_argument("--key-env", default=None, metavar="VAR", help="the variable holding its key")
    trial.add_argument("--arena", default=None, metavar="A,…", help="only these arenas' parts (record names)")
    trial.add_argument("--models", default="models.toml", help="the model registry (default models.toml)")
    trial.add_argument("--data", default=None, help=DATA_HELP)
    trial.add_argument("--json", action="store_true", help="the report as JSON")
    trial.add_argument(
        "-v", "--verbose", action="store_true", help="print every Dagster event of the parts' runs"
    )

    standins = command_group(
        sub,
        "standins",
        "the local stand-ins for outside servers",
        "example:\n  colosseum standins guest --name acme-7b --sparring http://127.0.0.1:8766 \\\n"
        "      --route 'chess=house-chess' --default house-hash",
    )
    guest = command(
        standins,
        "guest",
        cmd_standins_guest,
        "serve one model name over the OpenAI protocol, answered by house players (a model maker's server)",
        "example:\n  colosseum sparring serve --port 8766 &\n"
        "  colosseum standins guest --name acme-7b --sparring http://127.0.0.1:8766 \\\n"
        "      --route '(?i)chess=house-chess' --default house-hash --port 8000\n"
        "  colosseum trial openai/acme-7b --base-url http://127.0.0.1:8000/v1\n"
        "Each request goes to the first route whose REGEX its system and user text holds (else "
        "--default), its reply comes back under --name.",
    )
    add_listen_options(guest, 8000)
    guest.add_argument("--name", required=True, help="the one model name served (none of the house players')")
    guest.add_argument("--sparring", required=True, metavar="URL", help="the sparring server's base URL")
    guest.add_argument("--route", action="append", default=[], metavar="REGEX=HOUSE_MODEL")
    guest.add_argument(
        "--default", required=True, metavar="HOUSE_MODEL", help="who answers an unrouted prompt"
    )
    guest.add_argument("--key", default=None, help="the key a request must bring (default: any or none)")
