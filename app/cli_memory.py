"""`kith consolidate` and `kith learned` (seed 001).  Register with one line in app/cli.py:

    from app.cli_memory import register; register(main)
"""
from __future__ import annotations

import json
from dataclasses import asdict
from datetime import datetime, timedelta, timezone

import click


def _container():
    from app.container import Container

    return Container()


@click.command("consolidate")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def consolidate_cmd(as_json: bool) -> None:
    """Consolidate recent episodes into atoms and beliefs; update the self-vector; compact signatures."""
    from app.memory import consolidate

    with _container() as c:
        rep = c.writer.run(consolidate, c)
    d = asdict(rep)
    if as_json:
        click.echo(json.dumps(d, indent=2, default=str))
        return
    click.echo(f"scanned {rep.scanned} episodes (mean surprise {rep.mean_surprise:.2f}); {rep.clusters} clusters")
    click.echo(f"atoms: {len(rep.atoms_created)} new, {len(rep.atoms_reinforced)} reinforced, "
               f"{len(rep.atoms_decayed)} decayed, {len(rep.atoms_archived)} archived")
    click.echo(f"beliefs: {len(rep.beliefs_asserted)} asserted, {len(rep.beliefs_superseded)} superseded; "
               f"signature rows dropped: {rep.signatures_dropped}")


@click.command("learned")
@click.option("--since", default=None, help="ISO 8601 date/time (UTC if no zone); default: the last 7 days.")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def learned_cmd(since: str | None, as_json: bool) -> None:
    """What did I learn? The learning-event log since a time."""
    from app.memory import learned

    when = datetime.now(timezone.utc) - timedelta(days=7)
    if since:
        when = datetime.fromisoformat(since)
        when = when if when.tzinfo else when.replace(tzinfo=timezone.utc)
    with _container() as c:
        events = learned(c, when)
    rows = [{"at": e.at.isoformat(), "kind": e.kind, "target": e.target, "detail": e.detail} for e in events]
    if as_json:
        click.echo(json.dumps(rows, indent=2, default=str))
        return
    for r in rows:
        click.echo(f"{r['at'][:19]}  {r['kind']:<20} {r['target']:<16} {json.dumps(r['detail'], default=str)[:100]}")
    if not rows:
        click.echo("nothing learned in that window")


def register(group: click.Group) -> None:
    """Add the memory commands to the `kith` click group."""
    group.add_command(consolidate_cmd)
    group.add_command(learned_cmd)
    group.add_command(goals_cmd)


@click.group("goals", invoke_without_command=True)
@click.pass_context
def goals_cmd(ctx) -> None:
    """Your goals: recall leans toward memories that serve the active ones (seed 001's goal bias)."""
    if ctx.invoked_subcommand is None:
        from app.memory import goals

        with _container() as c:
            rows = goals(c)
        if not rows:
            click.echo("No goals yet. Add one: kith goals add \"find a thai place for the team dinner\"")
        for g in rows:
            due = f"  (due {g['deadline'][:10]})" if g["deadline"] else ""
            click.echo(f"{g['id']:>4}  {g['state']:<9} {g['title']}{due}")


@goals_cmd.command("add")
@click.argument("title")
@click.option("--deadline", default=None, help="ISO date, e.g. 2026-12-24.")
@click.option("--criteria", default="", help="How you will know it is done.")
def goals_add(title: str, deadline: str | None, criteria: str) -> None:
    """Add an active goal."""
    from app.memory import set_goal

    when = datetime.fromisoformat(deadline).replace(tzinfo=timezone.utc) if deadline else None
    with _container() as c:
        g = set_goal(c, title, deadline=when, success_criteria=criteria)
    click.echo(f"Goal {g['id']} added: {g['title']}")


@goals_cmd.command("set")
@click.argument("goal_id", type=int)
@click.argument("state", type=click.Choice(["active", "paused", "completed", "abandoned"]))
def goals_set(goal_id: int, state: str) -> None:
    """Pause, complete, abandon or reactivate a goal."""
    from app.memory import change_goal
    from core.errors import KithError

    with _container() as c:
        try:
            g = change_goal(c, goal_id, state)
        except KithError as exc:
            raise click.ClickException(str(exc))
    click.echo(f"Goal {g['id']} is now {g['state']}.")
