"""`kith` — the command line (click).

Commands: ingest, entities, ask, forget, restore, forgotten, purge, gui, ….  Every command that reports
takes ``--json``.  Errors print one clear line and exit 1 (2 for usage).
"""
from __future__ import annotations

import json
import re
import sys

import click

from core.errors import Ambiguous, KithError, NotFound


def _container():
    """The data folder's services, with the writer-lock behaviour the command line asked for
    (``--wait``: seconds to wait for another Kith that is writing; a message is shown while waiting)."""
    from app.container import Container

    ctx = click.get_current_context(silent=True)
    root = ctx.find_root() if ctx is not None else None
    wait = (root.params.get("wait") if root is not None else None)
    name = " ".join(["kith", *(sys.argv[1:3] if len(sys.argv) > 1 else [])])

    def waiting(msg: str) -> None:
        click.echo(f"kith: {msg}" + (f" (up to {wait:g} s; --wait)" if wait is not None else ""), err=True)

    return Container(describe=name, lock_timeout=wait, on_lock_wait=waiting)


def _emit(data: dict) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


def _warn_vectors(c) -> None:
    from app.pipeline import vector_store_warning

    msg = vector_store_warning(c)
    if msg:
        click.echo(f"kith: warning: {msg}", err=True)


def _fail(msg: str) -> None:
    click.echo(f"kith: {msg}", err=True)
    sys.exit(1)


def _print_version(ctx: click.Context, _param, value: bool) -> None:
    """``--version``: looked up only when asked (reading the package metadata costs ~30 ms of every command's
    start when done at import, as ``click.version_option(version=…)`` would)."""
    if not value or ctx.resilient_parsing:
        return
    from app.about import version

    click.echo(f"kith, version {version()}", color=ctx.color)
    ctx.exit()


LOCK_EXIT = 75  # EX_TEMPFAIL: another Kith kept the data folder's writer lock past --wait


@click.group()
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version and exit.")
@click.option("--wait", type=click.FloatRange(min=0), default=None, envvar="KITH_WAIT", show_envvar=True,
              help="Seconds a command that writes waits for another Kith writing the same data folder "
                   f"(default: as long as it takes); past it, exit {LOCK_EXIT}.")
def main(wait: float | None) -> None:
    """Kith: a private memory of your life, built from your own archives. Data folder: $KITH_HOME or your user data dir."""


@main.command()
@click.argument("paths", nargs=-1, required=True)  # each path is checked by the import, one bad one stops none
@click.option("--defer", is_flag=True, help="Store records now (keyword search finds them at once); leave vectors, "
              "memory and personalization to the next import or `kith doctor --repair`.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--progress-jsonl", is_flag=True, hidden=True,
              help="For the window: progress as JSON lines on stdout, then {\"report\": …}; SIGTERM cancels.")
def ingest(paths: tuple[str, ...], as_json: bool, defer: bool, progress_jsonl: bool) -> None:
    """Read mail (mbox, eml), chats (WhatsApp, Telegram, Instagram, Messenger, iMessage chat.db), photos (JPEG,
    HEIC), voice memos, folders and zip archives of them into memory.  Exit status: 0 when everything was read, 2 when
    some path, file or message in one could not be (what could is kept; the errors are listed), 1 when nothing at
    all could be read."""
    import threading
    from dataclasses import asdict

    from app.operations.ingest import ingest as run

    import signal

    cancel = threading.Event()
    if progress_jsonl:  # the window's import process (app/import_process.py): stop after the current batch
        signal.signal(signal.SIGTERM, lambda *_: cancel.set())
    elif threading.current_thread() is threading.main_thread():
        def interrupted(*_):  # Ctrl+C: stop after the current batch (what it wrote is kept); again: at once
            if cancel.is_set():
                raise KeyboardInterrupt
            cancel.set()
            click.echo("kith: stopping after the current batch (Ctrl+C again stops at once)…", err=True)
        previous_sigint = signal.signal(signal.SIGINT, interrupted)
    with _container() as c:
        shown: set[str] = set()

        def progress(p):
            if progress_jsonl:
                sys.stdout.write(json.dumps({"progress": asdict(p)}) + "\n")
                sys.stdout.flush()
            elif not as_json and p.current and p.current not in shown:
                shown.add(p.current)
                click.echo(f"[{p.files_done + 1}/{p.files_total}] {p.current}", err=True)

        try:
            report = run(c, list(paths), progress=progress, defer=defer, cancel=cancel)
        finally:
            if not progress_jsonl and threading.current_thread() is threading.main_thread():
                signal.signal(signal.SIGINT, previous_sigint)
        if report.records_added and not cancel.is_set() and not defer:
            # The after-import work (summaries, the knowledge map, consolidation) here too, so that a profile
            # opened after `kith ingest` has its summary; the window's import process does it so that none of it
            # runs in the window's own interpreter.
            from app.jobs import after_import

            if not progress_jsonl and not as_json:
                click.echo("summarising and consolidating what was added…", err=True)
            try:
                report.after_import = after_import(c, cancel=cancel)
            except Exception as exc:  # the import itself is done and kept; the next import or the window tries again
                report.after_import = None
                click.echo(f"kith: after-import jobs failed: {exc}", err=True)
    if progress_jsonl:
        sys.stdout.write(json.dumps({"report": report.to_json()}) + "\n")
        sys.stdout.flush()
        return
    if as_json:
        _emit(report.to_json())
    else:
        click.echo(f"{report.files} file(s): {report.records_added} record(s) added, "
                   f"{report.records_skipped} already known, {len(report.errors)} error(s)")
        for e in report.errors:
            where = f" ({e.locator})" if e.locator else ""
            click.echo(f"  ! {e.path}{where}: {e.reason}")
        if report.cancelled:
            click.echo("  stopped before the end: what was read is kept; the same command again continues "
                       "(what was read already is skipped)")
        for label in report.forgotten_again:
            click.echo(f"  forgotten again: {label} (you had forgotten them; what this import brought of them is "
                       "forgotten too — `kith forgotten` lists it)")
        if report.purged_during:
            click.echo(f"  note: {report.purged_during} forget(s) were purged while this import ran; what it added "
                       "after them could not be checked against them (see `kith entities`)")
    if report.nothing_read:
        click.echo("kith: nothing could be read from the given paths", err=True)
        sys.exit(1)
    if report.errors:  # a script must see that a file failed (a fake export.zip, a cut file): not 0
        click.echo(f"kith: {len(report.errors)} error(s): not everything could be read (exit status 2)", err=True)
        sys.exit(2)


@main.command()
@click.option("--kind", type=click.Choice(["person", "place", "topic", "event", "thing"]), help="Only this kind.")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def entities(kind: str | None, as_json: bool) -> None:
    """List the people, places and things Kith knows, with record and fact counts."""
    from app.operations.entities import list_entities

    with _container() as c:
        rows = list_entities(c, kind)
    if as_json:
        _emit({"entities": [r.to_json() for r in rows]})
        return
    if not rows:
        click.echo("Kith knows nobody yet. Try: kith ingest PATH")
    for r in rows:
        alias = f"  [{', '.join(r.aliases[:3])}]" if r.aliases else ""
        click.echo(f"{r.id:>5}  {r.kind:<7} {r.name}{alias}  — {r.records} record(s), {r.facts} fact(s)")


@main.command()
@click.argument("question")
@click.option("--k", "k", type=click.IntRange(1, 100), default=None, help="How many results (default 5).")
@click.option("--as-of", "as_of", default=None, help="Answer as of this date/time (ISO 8601, UTC if no zone).")
@click.option("--all", "show_all", is_flag=True, help="Also show results below the relevance threshold.")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def ask(question: str, k: int | None, as_of: str | None, show_all: bool, as_json: bool) -> None:
    """Answer QUESTION from memory (no language model): the relevant records and facts with their sources.

    Each result shows its calibrated relevance (0-1); below the threshold nothing is shown, and "I found
    nothing about that." is the answer.  Superseded facts are shown as history."""
    from app.answer import about_question, cited_only, memory_answer, spelled
    from app.memory import owner_name
    from app.operations.ask import ask_all
    from app.operations.warmup import prepare_ask

    question = spelled(question)  # "wher does maya liv?": as the chat reads it
    when = _parse_when(as_of) if as_of else None
    with _container() as c:
        prepare_ask(c)  # the encoder loads and Chroma opens on threads of their own while this one goes on
        try:
            shown, results = ask_all(c, question, k, as_of=when, every=show_all)
        except ValueError as exc:
            _fail(str(exc))
        _warn_vectors(c)
        # the chat's memory answer, from what clears the threshold (--all lists more; the answer stays the same,
        # its citations renumbered to the longer list)
        about = about_question(c, question, when)
        found = getattr(about, "result", None)  # the record a graph answer rests on, when recall did not show it
        if found is not None and all(r.record_id != found.record_id for r in shown):
            shown = [*shown, found]
            results = [*results, found] if show_all else shown
        answer = memory_answer(question, shown, owner_name(c), about)
        if show_all and answer.cited:
            def key(r):
                return r.kind, r.record_id, r.fact_id, r.episode_id
            where = {key(r): i for i, r in reversed(list(enumerate(results, 1)))}
            renumber = {n: where.get(key(shown[n - 1])) for n in answer.cited}
            answer.text = re.sub(r"\[(\d+)\]", lambda m: f"[{renumber.get(int(m.group(1))) or m.group(1)}]",
                                 answer.text)
            answer.cited = [renumber.get(n) or n for n in answer.cited]
    if as_json:
        _emit({"answer": None if answer.nothing else answer.text, "results": [r.to_json() for r in results]})
        return
    if not answer.nothing:
        click.echo(answer.text + "\n")
    elif not results:
        click.echo("I found nothing about that." + ("" if show_all else " (--all shows weaker matches)"))
    else:  # "Nothing in your records says who your boss is.": said, then what was found nearest
        click.echo((answer.text or "I found nothing about that.") + "\n")
    from core.graph.facts import statement_sentence

    for i, r in enumerate(results, 1):
        if cited_only(about) and not show_all and i not in answer.cited:
            continue  # a graph answer ("who do I email most?"): only what it rests on is its source
        first = " ".join((statement_sentence(r.text) if r.kind in ("fact", "history") else r.text).split())[:200]
        label = {"fact": "fact", "history": "history"}.get(r.kind, r.record_kind or r.kind)
        click.echo(f"{i}. [{r.relevance:.2f}] {label} · {r.local_when() or 'time unknown'} — {r.source}\n   {first}")


def _forget_target(ref, source, record_id, fact_id, start, end):
    from core.store.forgetting import Target

    given = [x for x in (ref, source, record_id, fact_id, start or end) if x not in (None, "")]
    if len(given) != 1:
        _fail("say what to forget: a name or id, or one of --source PATH, --record ID, --fact ID, --from/--to DATE")
    if source:
        return Target.source(source)
    if record_id is not None:
        return Target.record(record_id)
    if fact_id is not None:
        return Target.fact(fact_id)
    if start or end:
        if not (start and end):
            _fail("a time range needs both --from and --to")
        return Target.range(_parse_when(start), _parse_when(end))
    return ref


@main.command()
@click.argument("ref", required=False)
@click.option("--source", type=click.Path(), default=None, help="Forget everything imported from this file (or from inside this archive or folder).")
@click.option("--record", "record_id", type=int, default=None, help="Forget one record (a message, photo, memo).")
@click.option("--fact", "fact_id", type=int, default=None, help="Forget one fact.")
@click.option("--from", "start", default=None, help="Forget what was sent from this time (ISO 8601, UTC if no zone)…")
@click.option("--to", "end", default=None, help="…up to (not including) this time.")
@click.option("--remove-mentions", is_flag=True,
              help="Also forget other people's messages that mention it (default: they stay, the mention redacted).")
@click.option("--dry-run", is_flag=True, help="Show what would be forgotten, per store, and change nothing.")
@click.option("--purge", is_flag=True, help="Erase it from every file now; it cannot be restored.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.option("--json", "as_json", is_flag=True, help="Print the plan or the report as JSON.")
def forget(ref, source, record_id, fact_id, start, end, remove_mentions, dry_run, purge, yes, as_json) -> None:
    """Forget REF (a person, place or thing, by id or name) — or a file, a time range, a record, a fact —
    from every store. It disappears at once and can be restored for 30 days (`kith restore`); then, or
    with --purge, it is erased from every file."""
    from app.operations.forget import forget as run, plan_forget

    target = _forget_target(ref, source, record_id, fact_id, start, end)
    mentions = "remove" if remove_mentions else "redact"
    with _container() as c:
        try:
            plan = plan_forget(c, target, mentions)
        except (NotFound, Ambiguous, ValueError) as exc:
            _fail(str(exc))
        if dry_run:
            if as_json:
                _emit(plan.to_json())
            else:
                click.echo(plan.describe())
                click.echo("(dry run: nothing was forgotten)")
            return
        if not yes:
            if not sys.stdin.isatty():
                _fail(f"{plan.describe()}\nRe-run with --yes to confirm.")
            if not click.confirm(plan.describe() + ("\nErase it now, for good?" if purge else "\nContinue?"),
                                 default=False):
                click.echo("Nothing was forgotten.")
                return
        try:
            report = run(c, plan.target, purge=purge, mentions=mentions)
        except (NotFound, ValueError) as exc:
            _fail(str(exc))
    if as_json:
        _emit(report.to_json())
    else:
        click.echo(report.summary())


@main.command()
@click.argument("forget_id", type=int, required=False)
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def restore(forget_id: int | None, as_json: bool) -> None:
    """Undo forget FORGET_ID within its recovery window (without an id: list what can be restored)."""
    from app.operations.forget import list_forgotten, restore as run

    with _container() as c:
        if forget_id is None:
            items = [i for i in list_forgotten(c) if i.restorable]
            if as_json:
                _emit({"forgotten": [i.to_json() for i in items]})
            else:
                _print_forgotten(items)
            return
        try:
            report = run(c, forget_id)
        except (NotFound, ValueError) as exc:
            _fail(str(exc))
    if as_json:
        _emit(report.to_json())
    else:
        click.echo(f"Restored {report.label} (forget #{report.forget_id}).")


def _print_forgotten(items) -> None:
    if not items:
        click.echo("Nothing is waiting to be restored.")
    for i in items:
        until = f"restorable until {i.expires_at.date().isoformat()}" if i.restorable else i.state
        click.echo(f"{i.forget_id:>5}  {i.label}  — forgotten {i.created_at.date().isoformat()}, {until}")


@main.command()
@click.option("--all", "show_all", is_flag=True, help="Also list restored and purged forgets.")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def forgotten(show_all: bool, as_json: bool) -> None:
    """What was forgotten: restorable forgets (with --all, restored and purged ones too)."""
    from app.operations.forget import list_forgotten

    with _container() as c:
        items = list_forgotten(c, include_done=show_all)
    if as_json:
        _emit({"forgotten": [i.to_json() for i in items]})
    else:
        _print_forgotten(items)


@main.command()
@click.argument("forget_id", type=int, required=False)
@click.option("--expired", is_flag=True, help="Erase every forget whose recovery window has passed.")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def purge(forget_id: int | None, expired: bool, as_json: bool) -> None:
    """Erase forget FORGET_ID from every file now (or, with --expired, every forget past its window):
    rows, signature rows, vectors and free pages. It cannot be restored afterwards."""
    from app.operations.forget import purge as run, purge_expired

    if (forget_id is None) == (not expired):
        _fail("say which forget to erase (kith purge ID) or use --expired")
    with _container() as c:
        try:
            result = purge_expired(c) if expired else run(c, forget_id).to_json()
        except (NotFound, ValueError) as exc:
            _fail(str(exc))
    if as_json:
        _emit(result)
    elif expired:
        n = len(result.get("forgets") or {})
        click.echo(f"Erased {n} expired forget(s)." if n else "Nothing has expired.")
    else:
        click.echo(f"Erased {result['label']} from every file.")


@main.command()
@click.argument("action", type=click.Choice(["list", "merge", "reject", "unmerge", "confirm", "all", "why"]),
                default="list")
@click.argument("review_id", type=int, required=False)
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def review(action: str, review_id: int | None, as_json: bool) -> None:
    """The merge-review queue: `kith review` lists suggestions; `kith review merge|reject|unmerge|confirm ID`
    decides; `kith review all` lists every decision (merges Kith made, pairs kept apart); `kith review why ENTITY`
    says why an entity is one person."""
    from app.operations import review as ops

    with _container() as c:
        try:
            if action in ("list", "all"):
                items = ops.list_reviews(c, "pending" if action == "list" else None)
            elif review_id is None:
                _fail(f"`kith review {action}` needs the id of a review item (see `kith review`)")
            elif action == "why":
                why = ops.why_one(c, review_id)
                if as_json:
                    _emit(why.to_json())
                    return
                _print_why(why)
                return
            else:
                items = [ops.act(c, review_id, action)]
        except (NotFound, ValueError) as exc:
            _fail(str(exc))
    if as_json:
        _emit({"reviews": [i.to_json() for i in items]})
        return
    if not items:
        click.echo("Nothing to review.")
    for i in items:
        who = f"{'kith' if i.decided_by == 'kith' else 'you'}{', unconfirmed' if i.status == 'merged' and not i.confirmed else ''}"
        click.echo(f"{i.id:>5}  {i.status:<8} {i.score:.2f}  {i.a_name} (id {i.a_id})  ~  {i.b_name} (id {i.b_id})"
                   f"  — {i.reason}" + (f"  [{i.signal}, {i.threshold}; {who}]" if i.signal else ""))


def _print_why(why) -> None:
    click.echo(f"Why {why.name} (id {why.entity_id}) is one {why.kind}:" + (f" {why.kind_reason}" if why.kind_reason else ""))
    for a in why.aliases:
        click.echo(f"  {a.value} ({a.kind}): {a.how}")
    for x in why.links:
        click.echo(f"  {x.count} record(s) via {x.via}: {x.signal} ({x.threshold})")
    for d in why.decisions:
        click.echo(f"  #{d.id} {d.status} with {d.other_name} (id {d.other_id}): {d.signal} {d.score:.2f} "
                   f"[{d.threshold}] — {d.reason}" + (f"; you can: {', '.join(d.actions)}" if d.actions else ""))
        for h in d.held_facts:
            click.echo(f"      waits for confirmation: {h}")


@main.command()
@click.argument("ref")
@click.option("--as-of", "as_of", default=None, help="Only facts true at this date/time (ISO 8601, UTC if no zone).")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def profile(ref: str, as_of: str | None, as_json: bool) -> None:
    """Everything Kith knows about REF (id or name): aliases, current facts, history, sources, summary."""
    from app.operations import graph

    with _container() as c:
        try:
            if as_of:
                facts = graph.facts_as_of(c, ref, _parse_when(as_of))
                if as_json:
                    _emit({"as_of": as_of, "facts": [f.to_json() for f in facts]})
                else:
                    for f in facts:
                        click.echo(_fact_line(f))
                return
            p = graph.profile(c, ref)
        except (NotFound, Ambiguous) as exc:
            _fail(str(exc))
    if as_json:
        _emit(p.to_json())
        return
    click.echo(f"{p.name} — {p.kind}{' (you)' if p.is_owner else ''}, id {p.id}, {p.records} record(s)")
    if p.aliases:
        click.echo("Aliases: " + ", ".join(f"{a['value']} ({a['kind']})" for a in p.aliases))
    click.echo("Current facts:" if p.current else "No facts yet.")
    for f in p.current:
        click.echo(_fact_line(f, "  - "))
    if p.history:
        click.echo("History (superseded):")
        for f in p.history:
            click.echo(_fact_line(f, "  - "))
    if p.held:
        click.echo("Waiting for you to confirm a merge (`kith review why` / `kith review confirm ID`):")
        for f in p.held:
            click.echo(_fact_line(f, "  - "))
    if p.summary:
        click.echo(("Summary (stale): " if p.summary_stale else "Summary: ") + p.summary)


def _fact_line(f, lead: str = "- ") -> str:
    """A fact as a profile line: its sentence, then since/until (the day its statement names, the day it ended),
    its records and its confidence — "  - Ann lives in Rome. (since 2023-01-09; 2 records; confidence 0.64)"."""
    from core.graph.facts import statement_sentence

    day = re.match(r"As of (\d{4}-\d\d-\d\d), ", f.statement or "")
    when = [f"since {day.group(1)}"] if day else []
    if f.valid_to:
        when.append(f"until {f.valid_to[:10]}")
    n = f.evidence_count
    when += [f"{n} record{'s' if n != 1 else ''}", f"confidence {f.confidence:.2f}"]
    return f"{lead}{statement_sentence(f.statement)} ({'; '.join(when)})"


def _parse_when(text: str):
    from datetime import datetime, timezone

    try:
        d = datetime.fromisoformat(text)
    except ValueError:
        _fail(f"not an ISO 8601 date: {text!r} (e.g. 2026-06-01)")
    return d if d.tzinfo else d.replace(tzinfo=timezone.utc)


@main.command(name="map")
@click.option("--limit", type=int, default=30)
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def knowledge_map(limit: int, as_json: bool) -> None:
    """The knowledge map: entity names ranked by how many facts Kith holds about them."""
    from app.operations.graph import knowledge_map as run

    with _container() as c:
        rows = run(c, limit)
    if as_json:
        _emit({"map": rows})
        return
    for r in rows:
        click.echo(f"{r['facts']:>5}  {r['name']} ({r['kind']}, id {r['id']})")


@main.command()
@click.argument("query")
@click.option("--kind", type=click.Choice(["person", "place", "topic", "event", "thing"]), default=None)
@click.option("--domain", default=None, help="Only facts of this domain (identity, relationships, work, ...).")
@click.option("--k", "k", type=click.IntRange(1, 100), default=10)
@click.option("--history", is_flag=True, help="Include superseded facts.")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def search(query: str, kind: str | None, domain: str | None, k: int, history: bool, as_json: bool) -> None:
    """Semantic search over facts and conversation chunks, filtered by entity kind and domain."""
    from app.operations.graph import search as run

    with _container() as c:
        _warn_vectors(c)
        try:
            hits = run(c, query, kind=kind, domain=domain, k=k, include_history=history)
        except ValueError as exc:
            _fail(str(exc))
    if as_json:
        _emit({"results": [h.to_json() for h in hits]})
        return
    for h in hits:
        click.echo(f"[{h.score:.3f}] {h.type}: {' '.join(h.text.split())[:160]}")


@main.command()
@click.option("--limit", type=int, default=None, help="At most this many summaries.")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def summarize(limit: int | None, as_json: bool) -> None:
    """Regenerate stale and missing summaries (stale first) and refresh the knowledge map."""
    from app.jobs import regenerate_summaries

    with _container() as c:
        result = regenerate_summaries(c, limit=limit)
    if as_json:
        _emit(result)
    else:
        click.echo(f"{result['written']} summary(ies) written, {result['remaining']} still due.")


@main.command()
@click.argument("ref", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def owner(ref: str | None, as_json: bool) -> None:
    """Show the owner (you), or make REF the owner: first-person facts in your messages are about you."""
    from app.operations.entities import find_entity, set_owner_entity

    with _container() as c:
        try:
            e = set_owner_entity(c, find_entity(c, ref).id) if ref else None
        except (NotFound, Ambiguous) as exc:
            _fail(str(exc))
        if e is None:
            from core.graph.owner import owner as current

            with c.db.session() as s:
                e = current(s)
    data = {"owner": {"id": e.id, "name": e.canonical_name} if e else None}
    if as_json:
        _emit(data)
    else:
        click.echo(f"Owner: {e.canonical_name} (id {e.id})" if e else
                   "No owner yet: set owner_name/owner_emails in settings.json, or run `kith owner NAME_OR_ID`.")


@main.command()
@click.option("--screenshot", type=click.Path(dir_okay=False), default=None,
              help="Render the window, save a PNG here and exit (for machines without a display).")
@click.option("--tab", default=None, help="Start on this tab (chat, inbox, people, timeline, memory, settings).")
@click.option("--theme", type=click.Choice(["light", "dark"]), default=None,
              help="Light or dark instead of following the system.")
def gui(screenshot: str | None, tab: str | None, theme: str | None) -> None:
    """Open the Kith window."""
    from app.gui import run

    sys.exit(run(screenshot=screenshot, tab=tab, theme=theme))


from app.cli_memory import register as _register_memory  # noqa: E402
from app.cli_personal import brief as _brief  # noqa: E402

main.add_command(_brief)
_register_memory(main)  # kith consolidate, kith learned


@main.command()
@click.option("--model", "backend", type=click.Choice(["settings", "none"]), default="settings",
              help="'none' answers from memory only, whatever the settings say.")
@click.option("--resume", "resume", is_flag=False, flag_value="", default=None, metavar="[ID]",
              help="Continue a kept conversation (the newest without an ID; `kith conversations` lists them).")
def chat(backend: str, resume: str | None) -> None:
    """Chat with Kith in the terminal (one line per turn; an empty line or Ctrl-D ends; Ctrl-C stops a reply).
    Every conversation is kept in the data folder (`kith conversations`)."""
    import signal
    import threading

    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        # started with SIGINT ignored (a background job of a non-interactive shell): Python then installs no
        # KeyboardInterrupt handler, and Ctrl-C could not stop a reply as this command promises
        signal.signal(signal.SIGINT, signal.default_int_handler)
    import time

    from app.loop import SOURCES_MARK, ConversationLoop
    from app.models.llm import NoModel

    with _container() as c:
        loop = ConversationLoop.for_container(c, model=NoModel() if backend == "none" else None)
        if resume is not None:
            from app.operations.conversations import history, resolve

            try:
                conv = resolve(c, resume)
            except KithError as exc:
                _fail(str(exc))
            loop.resume(conv.info.id, history(conv), conv.info.partner_id)
            click.echo(f"Continuing \u201c{conv.info.title}\u201d ({conv.info.id}, {conv.info.turns} messages)")
            for t in conv.turns[-4:]:
                first = t.text.split(SOURCES_MARK, 1)[0]
                click.echo(f"{'you' if t.role == 'user' else 'kith'}> {first}")
        while True:
            try:
                text = click.prompt("you", default="", show_default=False, prompt_suffix="> ")
            except (EOFError, click.Abort, KeyboardInterrupt):
                break
            if not text.strip():
                break
            click.echo("kith> ", nl=False)
            cancel = threading.Event()
            out: dict = {}

            done = threading.Event()

            def run(text=text, cancel=cancel, out=out, done=done):
                try:
                    out["result"] = loop.turn(text, on_token=lambda piece: click.echo(piece, nl=False), cancel=cancel)
                except Exception as exc:  # shown below, the chat goes on
                    out["error"] = exc
                finally:
                    done.set()
            threading.Thread(target=run, name="kith-chat-turn", daemon=True).start()
            # Wait in short sleeps, not Thread.join: a KeyboardInterrupt inside join can leave the thread marked
            # as stopped while it still runs (CPython bpo-45274), and the reply would be read before it exists.
            while not done.is_set():
                try:
                    time.sleep(0.05)
                except KeyboardInterrupt:  # Ctrl-C stops the reply, not the chat
                    if not cancel.is_set():
                        cancel.set()
                        click.echo(" [stopping]", nl=False)
            click.echo()
            if "error" in out:
                click.echo(f"kith: {out['error']}", err=True)
                continue
            result = out["result"]
            if result.cancelled:
                click.echo("(stopped)")
            if not result.no_model and not result.fell_back:
                for m in result.memories:
                    click.echo(f"   {m.line(120)}")
        if loop.turns:
            click.echo(f"(kept as {loop.conversation}; `kith chat --resume {loop.conversation}` continues it)",
                       err=True)


@main.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_context
def conversations(ctx, as_json: bool) -> None:
    """The chat conversations kept in the data folder, the most recent first (`show`, `rename`, `delete`)."""
    if ctx.invoked_subcommand is not None:
        return
    from app.operations.conversations import list_conversations

    with _container() as c:
        rows = list_conversations(c)
    if as_json:
        _emit({"conversations": [r.to_json() for r in rows]})
        return
    if not rows:
        click.echo("No conversations kept yet (`kith chat` starts one).")
    for r in rows:
        who = f" \u00b7 with {r.partner}" if r.partner else ""
        click.echo(f"{r.id}  {r.updated_at:%Y-%m-%d %H:%M}  {r.turns:3d} messages{who}  {r.title}")


@conversations.command(name="show")
@click.argument("conversation_id", required=False, default="")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def conversations_show(conversation_id: str, as_json: bool) -> None:
    """Print a kept conversation (the newest without an ID)."""
    from app.operations.conversations import resolve

    with _container() as c:
        try:
            conv = resolve(c, conversation_id)
        except KithError as exc:
            _fail(str(exc))
    if as_json:
        _emit(conv.to_json())
        return
    click.echo(f"{conv.info.title} ({conv.info.id})")
    for t in conv.turns:
        click.echo(f"{'you' if t.role == 'user' else 'kith'}> {t.text}")


@conversations.command(name="rename")
@click.argument("conversation_id")
@click.argument("title")
def conversations_rename(conversation_id: str, title: str) -> None:
    """Give a conversation your own title."""
    from app.operations.conversations import rename

    with _container() as c:
        try:
            info = rename(c, conversation_id, title)
        except (KithError, ValueError) as exc:
            _fail(str(exc))
    click.echo(f"{info.id}: {info.title}")


@conversations.command(name="delete")
@click.argument("conversation_id")
def conversations_delete(conversation_id: str) -> None:
    """Delete a conversation's transcript (what you told Kith in it stays in memory until you forget it)."""
    from app.operations.conversations import delete

    with _container() as c:
        try:
            n = delete(c, conversation_id)
        except KithError as exc:
            _fail(str(exc))
    click.echo(f"Deleted {conversation_id} ({n} messages).")


@main.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def transcribe(path: str, as_json: bool) -> None:
    """Transcribe an audio file with the local Whisper model (converted once from the bundled weights)."""
    with _container() as c:
        result = c.transcribe(path)  # the configured model, primed with the names Kith knows
    if as_json:
        _emit({"text": result.text, "path": path, "language": result.language, "languages": result.languages,
               "no_speech": result.no_speech, "speakers": result.speakers})
    else:
        click.echo("(no speech found)" if result.no_speech else result.text.strip())


@main.group()
def models() -> None:
    """Local and remote models: prepare the built-in ones, test the configured chat model."""


@models.command(name="prepare")
def models_prepare() -> None:
    """Convert the bundled SmolLM2 and Whisper weights into the data folder (once; offline)."""
    from app.models.registry import prepare_default_models

    with _container() as c:
        paths = prepare_default_models(c.settings, lambda stage, frac: click.echo(f"{stage}: {frac:.0%}", err=True))
    for name, p in paths.items():
        click.echo(f"{name}: {p}")


@models.command(name="test")
def models_test() -> None:
    """Send one short request to the configured chat model and say whether it answered."""
    from app.models.registry import check_connection

    with _container() as c:
        try:
            result = check_connection(c.settings)
        except KithError as exc:
            _fail(str(exc))
    click.echo(("ok: " if result.ok else "failed: ") + result.message)
    if not result.ok:
        sys.exit(1)


@main.command()
@click.option("--repair", is_flag=True, help="Repair what the checks find and finish what imports left undone.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def doctor(repair: bool, as_json: bool) -> None:
    """Check that SQLite, full-text search, Chroma, the signature files and the ledger agree, row by row
    (exit 1 when they do not); --repair fixes what it can and reports what it did."""
    from app.operations import doctor as ops

    with _container() as c:
        if repair:
            def progress(stage, done, total):
                if not as_json:
                    click.echo(f"  {stage}: {done}/{total}", err=True)
            report = ops.repair(c, progress=progress)
        else:
            report = ops.diagnose(c)
    if as_json:
        _emit(report.to_json())
    else:
        for line in report.describe():
            click.echo(line)
        if not report.ok and not repair:
            click.echo("Run `kith doctor --repair` to fix what can be fixed.")
        elif report.busy and any(report.pending.values()) and not repair:
            click.echo("Nothing is wrong so far; the import has work left.")
    sys.exit(0 if report.ok else 1)


@main.command("export")
@click.argument("archive", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the manifest as JSON.")
def export_cmd(archive: str, as_json: bool) -> None:
    """Write the whole memory (entities, facts with history, records, episodes, signatures, vectors, ledger,
    settings without secrets) to ARCHIVE, one portable file (docs/archive-format.md).  Reads only."""
    from app.operations.archive import export_archive

    with _container() as c:
        rep = export_archive(c, archive)
    if as_json:
        _emit(rep.manifest)
        return
    click.echo(f"{rep.path}: Kith archive v{rep.manifest['format_version']}, {len(rep.manifest['members'])} members, "
               f"{rep.seconds:.1f} s")
    for k, v in rep.manifest["counts"].items():
        click.echo(f"  {k:<16}{v}")


@main.command("import-archive")
@click.argument("archive", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def import_archive_cmd(archive: str, as_json: bool) -> None:
    """Put ARCHIVE (made by `kith export`) into this data folder, which must hold no memory yet.  Every
    checksum is verified first; a corrupt archive or one from a newer Kith is refused."""
    from app.operations.archive import import_archive

    with _container() as c:
        rep = import_archive(c, archive)
    if as_json:
        _emit({"path": rep.path, "imported": rep.counts, "verified_bytes": rep.verified_bytes, "seconds": rep.seconds})
        return
    click.echo(f"{rep.path}: verified {rep.verified_bytes} bytes; imported in {rep.seconds:.1f} s")
    for k, v in rep.manifest["counts"].items():
        click.echo(f"  {k:<16}{v}")


@main.command()
@click.option("--to", "to", required=True, help="The server database: postgresql+psycopg://user@host:port/db (empty).")
@click.option("--chroma", default=None, help="The Chroma server: http://host:port (default: $KITH_CHROMA_URL).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def migrate(to: str, chroma: str | None, as_json: bool) -> None:
    """Copy this data folder into a PostgreSQL + Chroma server setup (through the archive format), then compare
    counts and checksums of records, facts, vectors and signatures.  The data folder is not changed."""
    import os

    from app.operations.archive import migrate as run

    with _container() as c:
        rep = run(c, to, chroma or os.environ.get("KITH_CHROMA_URL", ""))
    if as_json:
        _emit(rep.to_json())
    else:
        for line in rep.lines():
            click.echo(line)
        if rep.ok:
            click.echo("To use it: set database_url and chroma_url in settings.json (or KITH_DATABASE_URL and "
                       "KITH_CHROMA_URL) on every device.")
    sys.exit(0 if rep.ok else 1)


def run_cli() -> None:  # pragma: no cover - console-script wrapper
    from core.store.lock import LockTimeout

    try:
        main(standalone_mode=True)
    except LockTimeout as exc:
        click.echo(f"kith: {exc}", err=True)
        sys.exit(LOCK_EXIT)
    except KithError as exc:
        _fail(str(exc))
    except Exception as exc:
        msg = store_write_failure(exc)
        if msg is None:
            raise
        _fail(msg)
    finally:
        _ending()


WRITE_ERRNOS = {"ENOSPC", "EFBIG", "EDQUOT", "EROFS", "EACCES", "EPERM", "EIO"}


def store_write_failure(exc: BaseException) -> str | None:
    """One clear line for a data folder that cannot be written (a full disk, a file-size limit, a read-only or
    unwritable folder, an I/O error), from the exception a store raised; None for any other exception.

    What every earlier batch committed is kept, and the next command or ``kith doctor --repair`` finishes the
    stages left undone, so the line says that instead of a traceback."""
    import errno
    import sqlite3

    seen, why = set(), None
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, sqlite3.OperationalError) and any(
                k in str(exc).lower() for k in ("disk i/o error", "disk is full", "readonly", "read-only",
                                                 "unable to open database")):
            why = str(exc)
            break
        if isinstance(exc, OSError) and errno.errorcode.get(exc.errno or 0) in WRITE_ERRNOS:
            why = exc.strerror or str(exc)
            break
        exc = getattr(exc, "orig", None) or exc.__cause__ or exc.__context__
    if why is None:
        return None
    return (f"cannot write to the data folder ({why}): is the disk full, or the folder read-only? What was stored "
            "before is kept; free space (or fix the permissions) and run the command again — `kith doctor --repair` "
            "finishes what was left undone")


def _ending() -> None:
    """The command is done and the process ends: spare the interpreter's last garbage collection.

    Everything the command made is still alive (Chroma, SQLAlchemy, numpy: ~10⁶ objects); at exit CPython
    collects them all once more, 0.3-0.5 s of a cold ``kith ask`` on 2 cores.  ``gc.freeze()`` moves them out
    of the collector's reach; the process's memory goes back to the system with it, and exit handlers, file
    closing and the stores' own shutdown still run (the command closed its container before this)."""
    import gc

    sys.stdout.flush()
    gc.freeze()


if __name__ == "__main__":  # pragma: no cover
    run_cli()
