"""`kith brief PERSON [--json]` — how a person likes to be written to (seed 000).

Registered in ``app/cli.py`` with one line: ``main.add_command(brief)``.
"""
from __future__ import annotations

import json
import sys

import click

from core.errors import Ambiguous, KithError, NotFound


@click.command()
@click.argument("person")
@click.option("--json", "as_json", is_flag=True, help="Print the brief as JSON.")
@click.option("--context", default="", help="Current conversation text, to rank observations.")
def brief(person: str, as_json: bool, context: str) -> None:
    """Show what Kith has learned about how PERSON (name, alias or id) likes to be communicated with."""
    from app.container import Container
    from app.personal import PersonalService
    from core.personal.briefing import render

    try:
        with Container() as c:
            svc = PersonalService(c)
            b = svc.brief(person, context=context)
            svc.close()
    except Ambiguous as exc:
        click.echo(f"kith: {exc}", err=True)  # the message lists each candidate's id, name and kind
        sys.exit(1)
    except (NotFound, KithError) as exc:
        click.echo(f"kith: {exc}", err=True)
        sys.exit(1)
    if as_json:
        click.echo(json.dumps(b.to_json(), ensure_ascii=False, indent=2))
    else:
        click.echo(render(b))
