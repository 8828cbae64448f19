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
