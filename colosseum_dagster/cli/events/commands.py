"""``colosseum events <kind> event freeze|run`` and ``standings``, once for every kind of event.

A kind's commands (``EventCommands``) say only what is its own: its freeze's options and config, the
report of a frozen manifest, how its standings are read and printed, and its extras (the chess
suite and games, the Solve-or-Object bank and items, the challenge tasks), which sit beside the
shared ones. The jobs, their resource and their step words are the kind's Dagster wiring's
(``colosseum_dagster.events.kinds``), imported when a command runs a job.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from colosseum_dagster.cli.common import (
    DATA_HELP,
    RAW,
    UserError,
    data_home,
    failure_messages,
    resource_config,
    run_partition,
    shown,
    sparring_for_run,
)

_EVENT = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
Row = dict[str, Any]


def event_name(text: str, example: str = "chess-2026-12-02") -> str:
    """An event's name as its partition key: refused with an example when it cannot be one."""
    if not _EVENT.match(text):
        raise UserError(f"event {text!r}: lower-case letters, digits, '.', '-' or '_' (e.g. {example})")
    return text


def events_tables(root: Path) -> Any:
    """The events arena's tables in the record at ``root``."""
    from colosseum_core.events.arena import EVENTS
    from colosseum_core.record.layout import Record

    return Record(root).tables(EVENTS)


def report_failure(event: str, failures: list[str], as_json: bool) -> int:
    if as_json:
        print(json.dumps({"event": event, "success": False, "failures": failures}, indent=1))
    else:
        print(f"event {event}: FAILED: {'; '.join(failures) or 'see the run log (-v)'}")
    return 1


def require_sandbox() -> None:
    from colosseum_core.sandbox.bubblewrap import unavailable_reason

    reason = unavailable_reason()
    if reason is not None:
        raise UserError(f"the bank's programs run in the sandbox, and it cannot run here: {reason}")


def medal_mark(medal: str | None) -> str:
    return {"gold": " G", "silver": " S", "bronze": " B"}.get(medal or "", "")


def reply_said(reply: Row, objection: Callable[[Row], str], *, answered: bool, check: str = "") -> str:
    """A contender's reply as a listing shows it: its answer (and ``check``, how it was checked), its
    objection's class and ``objection`` (asked only of an objection), its other verdict, or why it
    holds none (no reply, or one not read)."""
    if reply["verdict"] == "ANSWER":
        return f"ANSWER {shown(reply['answer'] or '')}{check}"
    if reply["verdict"] == "OBJECT":
        return f"OBJECT {reply['defect']} {objection(reply)}"
    return reply["verdict"] or (f"unreadable ({reply['failure']})" if answered else "no reply")


def _nothing(*_: Any) -> None:
    return None


def frozen_report(
    event: str, row: Row, manifest: Mapping[str, Any], *, kind: bool = True, key_id: bool = True
) -> Row:
    """The head of a freeze's report: the event, its kind, class and manifest's SHA-256, the key that
    signed it, its contenders (a kind's report goes on from there)."""
    return {
        "event": event,
        **({"kind": manifest["kind"]} if kind else {}),
        "class": manifest.get("class"),
        "manifest_sha256": row["manifest_sha256"],
        **({"key_id": row["key_id"]} if key_id else {}),
        "contenders": [c["id"] if isinstance(c, Mapping) else c for c in manifest["contenders"]],
    }


def print_contenders(report: Row) -> None:
    """A frozen report's contenders, on one line (all a kind with nothing of its own prints)."""
    print(f"  {len(report['contenders'])} contenders: {', '.join(report['contenders'])}")


def print_calibration(report: Row, *, house: str = "take part") -> None:
    """Said of a frozen event whose contenders' keys are missing: house stand-ins ``house`` instead."""
    if report["missing_keys"]:
        print(f"  CALIBRATION: house stand-ins {house}, as {', '.join(report['missing_keys'])} are not set")


def _plain_standing(r: Row) -> str:
    return f"  {r.get('placement') or '-'}{medal_mark(r.get('medal'))}  {r['contender']}"


class Option(NamedTuple):
    """A command's option: its flag, its type (``Path``: a file, checked to exist), its default and help."""

    flag: str
    type: type
    default: Any
    help: str

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")


def add_options(parser: argparse.ArgumentParser, options: tuple[Option, ...]) -> None:
    for option in options:
        parser.add_argument(option.flag, type=option.type, default=option.default, help=option.help)


@dataclasses.dataclass(frozen=True)
class FileCheck:
    """A kind's ``<group> check``: its file (the chess suite, the Solve-or-Object bank) checked, the
    default one unless ``option`` names another; ``examples``, its group's (words after the kind);
    ``more`` adds the group's other commands before it."""

    group: str
    group_help: str
    help: str
    option: Option
    func: Callable[[argparse.Namespace], int]
    examples: tuple[str, ...] = ()
    more: Callable[[argparse._SubParsersAction], None] = _nothing


@dataclasses.dataclass(frozen=True)
class ShowOne:
    """A kind's ``<group> show EVENT ID``: one of an event's games or items, every attempt or reply to
    it; ``sample``, an id as the examples give it."""

    group: str
    group_help: str
    help: str
    func: Callable[[argparse.Namespace], int]
    json_help: str
    sample: str


@dataclasses.dataclass(frozen=True)
class EventCommands:
    """What a kind's commands say that is their own. ``cli``: the word after ``colosseum events``;
    ``example``: an event's name as its examples give it; ``noun``: what its run's help and its
    errors call an event of the kind (a frozen ``noun`` event; its ``noun`` standings), none the
    shared words. The defaults are a kind's with nothing of its own (a test's)."""

    kind: str
    cli: str
    help: str
    example: str
    noun: str = ""
    # Its help's examples, each a command's words after ``colosseum events <cli>``: the group's, the
    # ``event`` group's, and the freeze's beyond ``event freeze <example>``.
    examples: tuple[str, ...] = ()
    event_examples: tuple[str, ...] = ()
    freeze_examples: tuple[str, ...] = ()
    freeze_help: str = "resolve the contenders and freeze the event's manifest (signed; never edited)"
    contenders_help: str = "the contenders registry (default: the kind's)"
    seed_help: str = "the event's seed (default: drawn, recorded)"
    # Its freeze's own options (added after --contenders); those of type ``Path`` are files.
    freeze_options: tuple[Option, ...] = ()
    # Its freeze's own config from the options, refusing what cannot be frozen (after the files).
    freeze_config: Callable[[argparse.Namespace], Row] = lambda args: {}
    frozen_report: Callable[[str, Row, Mapping[str, Any]], Row] = frozen_report
    print_frozen: Callable[[Row], None] = print_contenders
    run_help: str = "run every step of a frozen event and seal its standings, through the real Definitions"
    run_note: str = "A run that stops is resumed by running it again: nothing recorded is run again."
    # Refused before a run: why an event of another kind is not run by these commands (None: it is
    # not asked), and what the kind needs on this host.
    wrong_kind: Callable[[str, str], str] | None = None
    requires: Callable[[], None] = _nothing
    run_requires: Callable[[], None] = _nothing
    standings_help: str = "the event's standings: placements and medals"
    standings_rows: Callable[[Any], list[Row]] = lambda frame: frame.to_dicts()
    # How its standings are printed: after a title (``standings_title``, the rule they are made
    # under), a line of column heads and one line a row; or, for standings not one row a contender,
    # all of them by ``print_standings``.
    standings_title: str = ""
    standings_head: str = ""
    standing: Callable[[Row], str] = _plain_standing
    print_standings: Callable[[list[Row]], None] | None = None
    # Its extras' commands: the check of its file, listed before ``event``; after it (before
    # ``standings``), the show of one game or item and any others.
    check: FileCheck | None = None
    show: ShowOne | None = None
    extras: Callable[[argparse._SubParsersAction], None] = _nothing

    @property
    def standings_table(self) -> str:
        """The table its standings are read from: its kind's sealing table."""
        from colosseum_core.events.kinds import kind_named

        kind = kind_named(self.kind)
        if kind is None:
            raise UserError(f"the {self.kind} event is not a registered kind of event")
        return kind.sealing

    def command(self, *words: str) -> str:
        return " ".join(("colosseum events", self.cli, *words))

    # -- running its jobs ------------------------------------------------------------------------

    def run_job(self, job: str, event: str, root: Path, *, verbose: bool, ops: Row | None = None) -> Any:
        """``job`` (``freeze`` or ``event``) of the kind's wiring for ``event``, with a sparring server
        for its house players."""
        from colosseum_core.events.arena import EVENTS
        from colosseum_dagster.events.kinds import wiring_named

        wiring = wiring_named(self.kind)
        if wiring is None:
            raise UserError(f"the {self.kind} event has no jobs: its kind names no Dagster wiring")
        name = f"{wiring.prefix}_{job}_job"
        with sparring_for_run(arenas=(EVENTS.name,)) as sparring_url:
            resources: Row = resource_config(root, None)
            resources[wiring.resource] = {"config": {"sparring_url": sparring_url}}
            print(f"event {event}: running {name}", file=sys.stderr)
            return run_partition(
                name, "events", event, root, resources, verbose=verbose, step_words=wiring.step_words, ops=ops
            )

    # -- the shared commands ---------------------------------------------------------------------

    def cmd_freeze(self, args: argparse.Namespace) -> int:
        self.requires()
        root, event = data_home(args.data), event_name(args.event, self.example)
        tables = events_tables(root)
        if tables.exists("event_manifests", event):
            raise UserError(
                f"event {event} is frozen already (its manifest is never edited); "
                "a new event needs a new name"
            )
        files = ("contenders", *(o.dest for o in self.freeze_options if o.type is Path))
        for field in files:
            path = getattr(args, field)
            if path and not Path(path).is_file():
                raise UserError(f"--{field} {path}: no such file")
        config: Row = {
            "kind": self.kind,
            **self.freeze_config(args),
            "only": args.contender or [],
            "replicates": args.replicates,
        }
        for field in files:
            if getattr(args, field):
                config[field] = str(Path(getattr(args, field)).resolve())
        if args.seed is not None:
            config["seed"] = args.seed
        result = self.run_job(
            "freeze", event, root, verbose=args.verbose, ops={"events__event_manifests": {"config": config}}
        )
        if not result.success:
            return report_failure(event, failure_messages(result), args.json)
        row = tables.read("event_manifests", event).row(0, named=True)
        manifest = json.loads(row["manifest"])
        report = self.frozen_report(event, row, manifest)
        if args.json:
            print(json.dumps(report, indent=1))
            return 0
        print(f"event {event}: frozen ({manifest['class']}), manifest sha256 {row['manifest_sha256']}")
        self.print_frozen(report)
        print(f"next: {self.command('event', 'run', event)}")
        return 0

    def standings(self, root: Path, event: str) -> list[Row]:
        tables = events_tables(root)
        sealing = self.standings_table
        if not tables.exists(sealing, event):
            standings = f"{self.noun} standings" if self.noun else "standings"
            raise UserError(f"event {event} has no {standings} yet: `{self.command('event', 'run', event)}`")
        return self.standings_rows(tables.read(sealing, event))

    def cmd_run(self, args: argparse.Namespace) -> int:
        self.requires()
        root, event = data_home(args.data), event_name(args.event, self.example)
        tables = events_tables(root)
        if not tables.exists("event_manifests", event):
            raise UserError(f"event {event} is not frozen: `{self.command('event', 'freeze', event)}` first")
        if self.wrong_kind is not None:
            kind = json.loads(tables.read("event_manifests", event)["manifest"][0]).get("kind")
            if kind != self.kind:
                raise UserError(self.wrong_kind(event, kind))
        self.run_requires()
        result = self.run_job("event", event, root, verbose=args.verbose)
        if not result.success:
            return report_failure(event, failure_messages(result), args.json)
        rows = self.standings(root, event)
        if args.json:
            print(json.dumps({"event": event, "success": True, "standings": rows}, indent=1, default=str))
        else:
            self.print_rows(event, rows)
        return 0

    def print_rows(self, event: str, rows: list[Row]) -> None:
        print(f"event {event}: standings" + (f" ({self.standings_title})" if self.standings_title else ""))
        if self.print_standings is not None:
            self.print_standings(rows)
            return
        if self.standings_head:
            print(self.standings_head)
        for r in rows:
            print(self.standing(r))

    def cmd_standings(self, args: argparse.Namespace) -> int:
        root, event = data_home(args.data), event_name(args.event, self.example)
        rows = self.standings(root, event)
        if args.json:
            print(json.dumps({"event": event, "standings": rows}, indent=1, default=str))
        else:
            self.print_rows(event, rows)
        return 0

    # -- its parser ------------------------------------------------------------------------------

    def add_commands(self, events: argparse._SubParsersAction) -> None:
        """``colosseum events <cli> …``: its extras, ``event freeze|run``, and ``standings``."""
        short = f"{self.example.split('-')[0]}-1"
        event_examples = self.event_examples or (f"event freeze {short}", f"event run {short}")
        kind = command_group(
            events,
            self.cli,
            self.help,
            self._examples(self.examples or (*event_examples, f"standings {short}")),
            "action",
        )
        if self.check is not None:
            self._add_check(kind, self.check)
        event = command_group(kind, "event", "freeze or run an event", self._examples(event_examples))
        freeze = subcommand(
            event,
            "freeze",
            self.freeze_help,
            self._examples((f"event freeze {self.example}", *self.freeze_examples)),
        )
        freeze.add_argument("event", help=f"the event's name (its partition), e.g. {self.example}")
        freeze.add_argument("--contenders", default=None, help=self.contenders_help)
        add_options(freeze, self.freeze_options)
        freeze.add_argument("--contender", action="append", help="keep only these contender ids (repeatable)")
        freeze.add_argument("--seed", type=int, default=None, help=self.seed_help)
        freeze.add_argument(
            "--replicates", type=int, default=1999, help="bootstrap replicates (default 1999)"
        )
        _output_options(freeze, "machine-readable report", verbose=True)
        freeze.set_defaults(func=self.cmd_freeze)
        run = subcommand(
            event,
            "run",
            self.run_help,
            f"{self._examples((f'event run {self.example} --json',))}\n{self.run_note}",
        )
        run.add_argument("event", help=f"a frozen {self.noun} event" if self.noun else "a frozen event")
        _output_options(run, "machine-readable standings", verbose=True)
        run.set_defaults(func=self.cmd_run)
        if self.show is not None:
            self._add_show(kind, self.show, short)
        self.extras(kind)
        event_command(
            kind,
            "standings",
            help=self.standings_help,
            epilog=self._examples((f"standings {self.example} --json",)),
            func=self.cmd_standings,
            json_help="machine-readable standings",
        )

    def _add_check(self, kind: argparse._SubParsersAction, check: FileCheck) -> None:
        examples = self._examples(check.examples or (f"{check.group} check",))
        group = command_group(kind, check.group, check.group_help, examples)
        check.more(group)
        parser = subcommand(group, "check", check.help, self._examples((f"{check.group} check --json",)))
        add_options(parser, (check.option,))
        parser.add_argument("--json", action="store_true", help="machine-readable report")
        parser.set_defaults(func=check.func)

    def _add_show(self, kind: argparse._SubParsersAction, show: ShowOne, short: str) -> None:
        examples = self._examples((f"{show.group} show {short} {show.sample}",))
        group = command_group(kind, show.group, show.group_help, examples)
        event_command(
            group,
            "show",
            help=show.help,
            epilog=self._examples((f"{show.group} show {self.example} {show.sample}",)),
            func=show.func,
            json_help=show.json_help,
            also=((show.group, f"the {show.group}'s id, e.g. {show.sample}"),),
        )

    def _examples(self, lines: tuple[str, ...]) -> str:
        """An epilog: each line a command of this kind (``lines`` are its words after the kind)."""
        return ("examples:\n" if len(lines) > 1 else "example:\n") + "\n".join(
            f"  {self.command(line)}" for line in lines
        )


def subcommand(sub: argparse._SubParsersAction, name: str, help: str, epilog: str) -> argparse.ArgumentParser:
    """A command with its help and its examples (``epilog``, printed as written)."""
    return sub.add_parser(name, help=help, formatter_class=RAW, epilog=epilog)


def command_group(
    sub: argparse._SubParsersAction, name: str, help: str, epilog: str, dest: str = ""
) -> argparse._SubParsersAction:
    """A group of commands (``suite``, ``game``, ``event`` …), one of which is asked for (its word in
    ``dest``, by default ``<name>_action``)."""
    return subcommand(sub, name, help, epilog).add_subparsers(dest=dest or f"{name}_action", required=True)


def event_command(
    sub: argparse._SubParsersAction,
    name: str,
    *,
    help: str,
    epilog: str,
    func: Callable[[argparse.Namespace], int],
    json_help: str,
    also: tuple[tuple[str, str], ...] = (),
) -> None:
    """A command that reads one event of the record (``standings``, ``game show`` …): the event,
    ``also`` (further positional arguments with their help), ``--data`` and ``--json``."""
    parser = subcommand(sub, name, help, epilog)
    parser.add_argument("event")
    for argument, argument_help in also:
        parser.add_argument(argument, help=argument_help)
    _output_options(parser, json_help, verbose=False)
    parser.set_defaults(func=func)


def _output_options(parser: argparse.ArgumentParser, json_help: str, *, verbose: bool) -> None:
    parser.add_argument("--data", default=None, help=DATA_HELP)
    parser.add_argument("--json", action="store_true", help=json_help)
    if verbose:
        parser.add_argument("-v", "--verbose", action="store_true", help="print every Dagster event")
