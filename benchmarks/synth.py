"""Generated archives for benchmarks and the crash/concurrency tests: made-up people, deterministic text.

Nothing here reads the shared corpus; every file is written from a seed, so two runs with the same
arguments give byte-identical files (and therefore the same content hashes in Kith).
"""
from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from pathlib import Path

FIRST = ["Amara", "Bruno", "Chiara", "Dmitri", "Elif", "Farid", "Greta", "Hiro", "Ines", "Jonas", "Kemal",
         "Lucia", "Mateo", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Sven", "Tamsin", "Umar", "Vera",
         "Wanda", "Xavier", "Yusuf", "Zofia"]
LAST = ["Abbott", "Bergstrom", "Castillo", "Dubois", "Eriksen", "Fontaine", "Grimaldi", "Haddad", "Ivanova",
        "Jansen", "Kowalski", "Lindqvist", "Moreau", "Novak", "Okafor", "Petrov", "Quinlan", "Rossi",
        "Sandoval", "Tanaka"]
WORDS = ("garden harbour lantern violin orchard meadow pottery canoe glacier lighthouse bakery festival "
         "telescope marathon library quartz compass museum bicycle vineyard ferry recipe saddle tapestry "
         "harvest summit cathedral workshop kayak almanac puzzle ceramic sailboat lecture choir beacon "
         "carnival granite hammock jasmine kettle lagoon mosaic nectar opal parcel quilt riverbank "
         "scooter thistle umbrella velvet willow yarn zephyr basket cobalt dune ember fjord grove "
         "hazel island juniper kiln lemon maple nutmeg olive pebble quarry ridge spruce timber tulip "
         "valley walnut acorn birch cedar delta falcon ginger heron ivory jade koala lotus magnet "
         "noodle otter pepper raven salmon tiger urchin vanilla walrus badger camel dolphin eagle "
         "meeting tomorrow weekend dinner project budget invoice schedule photos travel train ticket").split()
CONNECT = ("we should", "did you see the", "remember the", "I booked the", "can you bring the",
           "let's talk about the", "I finally fixed the", "the new", "thanks for the", "what about the")
OWNER = ("Nora Owner", "nora.owner@example.net")


def people(n: int = 20, seed: int = 0) -> list[tuple[str, str]]:
    """``n`` distinct made-up (full name, email) pairs."""
    rnd = random.Random(seed)
    names: list[str] = []
    while len(names) < n:
        name = f"{rnd.choice(FIRST)} {rnd.choice(LAST)}"
        if name not in names:
            names.append(name)
    return [(nm, nm.lower().replace(" ", ".") + "@example.org") for nm in names]


def sentence(rnd: random.Random, words: int) -> str:
    """About ``words`` words of plausible chat prose."""
    out: list[str] = []
    while len(out) < words:
        out += rnd.choice(CONNECT).split() + [rnd.choice(WORDS) for _ in range(rnd.randint(3, 7))]
        out[-1] += rnd.choice(".!?,")
    text = " ".join(out[:words])
    return text[0].upper() + text[1:].rstrip(",") + "."


def write_mbox(path: Path, n: int, senders: int = 20, words: int = 50, seed: int = 0,
               owner_share: float = 0.1, marker: str = "") -> Path:
    """Write an mbox of ``n`` messages from ``senders`` made-up people (about ``words`` words each).

    About ``owner_share`` of the messages are the owner's replies, labelled ``Sent`` the way Gmail Takeout
    labels them, so the owner is known and mail threads feed the personalization ledger.  Messages come
    in threads of 1–6 (``In-Reply-To``/``References``).  ``marker`` is appended to every subject (to make
    two archives' texts distinguishable).

    Returns:
        ``path``.
    """
    rnd = random.Random(seed)
    folks = people(senders, seed)
    t = datetime(2021, 3, 1, 8, 0, tzinfo=timezone.utc)
    lines: list[str] = []
    i = 0
    thread = 0
    while i < n:
        thread += 1
        who = rnd.choice(folks)
        subject = f"{rnd.choice(WORDS).capitalize()} {rnd.choice(WORDS)} {thread}{marker}"
        root = None
        for j in range(min(n - i, rnd.randint(1, 6))):
            owner_turn = j % 2 == 1 and rnd.random() < owner_share * 5
            frm = OWNER if owner_turn else who
            to = who if owner_turn else OWNER
            t += timedelta(minutes=rnd.randint(3, 600))
            mid = f"<m{seed}-{i}@example.test>"
            hdr = [f"From {frm[1]} {t:%a %b %d %H:%M:%S %Y}",
                   f"From: {frm[0]} <{frm[1]}>", f"To: {to[0]} <{to[1]}>",
                   f"Subject: {'Re: ' if j else ''}{subject}", f"Date: {format_datetime(t)}",
                   f"Message-ID: {mid}"]
            if owner_turn:
                hdr.append("X-Gmail-Labels: Sent")
            if root:
                hdr += [f"In-Reply-To: {root}", f"References: {root}"]
            root = root or mid
            hdr += ["MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8", ""]
            lines += hdr + [sentence(rnd, words), ""]
            i += 1
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_whatsapp(path: Path, n: int, members: list[str], phrase_every: int = 0, phrase: str = "",
                   seed: int = 0, words: int = 20) -> Path:
    """Write an Android-style WhatsApp export (``DD/MM/YYYY, HH:MM - Name: text``) of ``n`` messages among
    ``members``; every ``phrase_every``-th message (if > 0) contains ``phrase``.  Returns ``path``."""
    rnd = random.Random(seed)
    t = datetime(2022, 5, 1, 9, 0)
    out = []
    for i in range(n):
        t += timedelta(minutes=rnd.randint(1, 90))
        text = sentence(rnd, words)
        if phrase_every and i % phrase_every == 0:
            text = f"{text} {phrase}"
        out.append(f"{t:%d/%m/%Y, %H:%M} - {rnd.choice(members)}: {text}")
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path
