"""Entity resolution quality on a generated address book, through Kith's own ingest (issue 13).

Run:  python benchmarks/resolution_bench.py [--people 500] [--seed 2] [--keep DIR]   (two imports: minutes)

The generator writes a person's archives the way their tools would: a Gmail Takeout mbox (mail from
each person's work and personal addresses, display names as people set them — full names, bare first
names, "Last, First", nicknames, typos, none; signatures with a mobile number; mailing-list copies
that rewrite From:; role addresses), a Messages ``chat.db`` (SMS/iMessage handles: phone numbers,
Apple IDs, short codes, alphanumeric senders), WhatsApp exports (the owner's saved contact names,
unsaved contacts as numbers, group chats) and a Telegram export (people's own profile names, user
ids).  Collisions are the realistic ones: shared first names, shared surnames in families, colleagues
on one company domain, nicknames, two people with one full name, one person on email, phone and two
chat apps.  The generator keeps the right clustering.

The owner's address book is written too, as one vCard file (``contacts.vcf``, what iPhone, macOS and
Google Contacts export; :func:`write_address_book`) with the gaps real books have: about three in four
people are in it (a contact WhatsApp shows by a saved name is on a card with that name, mostly), some
cards lack a phone or an email, nicknames are occasional, 40% have no UID, a few are stale.

Kith ingests the files with ``app.operations.ingest.ingest`` — what ``kith ingest`` runs — twice, into
two fresh data folders: the archives with ``contacts.vcf``, and the archives alone.  Every sender mention
(one email address, one phone, one Telegram user, one short code, one WhatsApp name in one chat) is
scored by the live entity its messages were linked to (the cards themselves are not scored).  Pairwise
precision, recall and F1 against the truth are printed for both runs beside two baselines from the same
archives: one entity per exact display name, and one entity per identifier.  Every wrong merge is
printed with the decisions behind it.

Goal (issue 13): F1 ≥ 0.95 with precision ≥ 0.98.  Seeds: the rules were developed on seed 1 (dev);
report seed 2 (test).
"""
from __future__ import annotations

import argparse
import itertools
import json
import mailbox
import random
import sqlite3
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

FIRST = ("Alex Sam Maria Anna John James Robert Michael David Daniel Sarah Laura Emma Olivia Sofia Lucas Noah "
         "Liam Mia Chloe Ben Tom Kate Elizabeth William Katherine Jennifer Thomas Christopher Nicholas Andrew "
         "Rebecca Victoria Margaret Peter Richard Susan Patricia Matthew Jonathan Samantha Alexander Alexandra "
         "Joseph Anthony Edward Lena Omar Priya Rahul Wei Mei Yuki Kenji Fatima Ahmed Carlos Lucia Mateo Ines "
         "Chiara Marco Ana Pedro Nina Ivan Olga Sven Ingrid Aisha Kwame Zoe Leo Hugo Clara Jonas Elif").split()
LAST = ("Smith Johnson Brown Garcia Miller Davis Rodriguez Martinez Lopez Wilson Anderson Taylor Moore Jackson "
        "Martin Lee Thompson White Harris Clark Lewis Robinson Walker Young Allen King Wright Scott Nguyen Hill "
        "Green Adams Baker Nelson Carter Mitchell Perez Roberts Turner Phillips Campbell Parker Evans Edwards "
        "Collins Stewart Sanchez Morris Rogers Reed Cook Morgan Bell Murphy Bailey Rivera Cooper Richardson Cox "
        "Howard Ward Torres Peterson Gray Ramirez James Watson Brooks Kelly Sanders Price Bennett Wood Barnes Ross "
        "Henderson Coleman Jenkins Perry Powell Long Patterson Hughes Flores Washington Butler Simmons Foster "
        "Gonzales Bryant Alexander Russell Griffin Diaz Hayes Myers Ford Hamilton Graham Sullivan Wallace Woods "
        "Cole West Jordan Owens Reynolds Fisher Ellis Harrison Gibson McDonald Cruz Marshall Ortiz Gomez Murray "
        "Freeman Wells Webb Simpson Stevens Tucker Porter Hunter Hicks Crawford Henry Boyd Mason Morales Kennedy "
        "Warren Dixon Ramos Reyes Burns Gordon Shaw Holmes Rice Robertson Hunt Black Daniels Palmer Mills Nichols "
        "Grant Knight Ferguson Rose Stone Hawkins Dunn Perkins Hudson Spencer Gardner Stephens Payne Pierce Berry "
        "Matthews Arnold Wagner Willis Ray Watkins Olson Carroll Duncan Snyder Hart Cunningham Bradley Lane "
        "Andrews Ruiz Harper Fox Riley Armstrong Carpenter Weaver Greene Lawrence Elliott Chavez Sims Austin "
        "Peters Kelley Franklin Lawson Okafor Haddad Nair Weller Vidal Clarke Owusu Park Lima Chen Dunn").split()
NICK = {"Robert": "Bob", "William": "Bill", "Elizabeth": "Liz", "Katherine": "Kate", "Alexander": "Alex",
        "Alexandra": "Alex", "Michael": "Mike", "Jennifer": "Jen", "Thomas": "Tom", "James": "Jim",
        "Daniel": "Dan", "Samantha": "Sam", "Christopher": "Chris", "Nicholas": "Nick", "Andrew": "Andy",
        "Rebecca": "Becky", "Victoria": "Vicky", "Margaret": "Maggie", "Matthew": "Matt", "Jonathan": "Jon",
        "Joseph": "Joe", "Anthony": "Tony", "Edward": "Ed", "Richard": "Rick", "Peter": "Pete", "Susan": "Sue",
        "Patricia": "Pat"}
WEBMAIL = ("gmail.com", "yahoo.com", "outlook.com", "icloud.com", "hotmail.com", "proton.me", "gmx.de")
EMOJI = ("🌻", "⚽", "🎸", "✈️", "🐶", "💼", "🌊")
OWNER, OWNER_ADDR = "Nic Owner", "nic@owner.example"
T0 = datetime(2022, 1, 3, 9, 0, tzinfo=timezone.utc)
APPLE_EPOCH = datetime(2001, 1, 1, tzinfo=timezone.utc)


@dataclass
class Person:
    """One true identity and the identifiers the generator gave it."""

    pid: str
    first: str
    last: str
    company: str | None = None
    emails: list[str] = field(default_factory=list)
    phone: str | None = None
    label: str | None = None        # the owner's saved contact name (WhatsApp); None: unsaved (shown as the number)
    telegram: str | None = None     # "user<N>"
    tg_name: str | None = None      # their own Telegram profile name
    signature: bool = False         # signs mail with their mobile number
    kind: str = "person"

    @property
    def full(self) -> str:
        return f"{self.first} {self.last}"


@dataclass
class Mention:
    """One way a sender appeared (the unit scored): channel, identifier key and the display name shown with
    it (an address with two display names is two mentions), the true person, and its message ids."""

    channel: str
    key: str
    name: str | None
    pid: str
    messages: list[tuple[str, str]] = field(default_factory=list)  # (file name, external id)

    @property
    def item(self) -> str:
        return f"{self.channel}:{self.key}|{self.name or ''}"


def _phone(rng: random.Random, used: set) -> str:
    while True:
        cc = rng.choice(["+1", "+44", "+49", "+61"])
        if cc == "+1":
            n = f"+1{rng.choice(['617', '212', '415', '312', '206'])}{rng.randrange(2000000, 9999999)}"
        elif cc == "+44":
            n = f"+447{rng.randrange(100000000, 999999999)}"
        elif cc == "+49":
            n = f"+4915{rng.randrange(10000000, 99999999)}"
        else:
            n = f"+614{rng.randrange(10000000, 99999999)}"
        if n not in used:
            used.add(n)
            return n


def _pretty(phone: str) -> str:
    import phonenumbers

    return phonenumbers.format_number(phonenumbers.parse(phone), phonenumbers.PhoneNumberFormat.INTERNATIONAL)


def make_people(n: int, rng: random.Random) -> list[Person]:
    """``n`` people with realistic collisions (module doc), plus organisations (short codes, senders, role mail)."""
    companies = [f"{w}.example" for w in ("northwind", "southbank", "initech", "globex", "umbrella", "acme",
                                          "hooli", "vandelay", "wayne", "stark", "tyrell", "soylent", "cyberdyne",
                                          "wonka", "gringotts", "oscorp", "aperture", "blackmesa", "contoso",
                                          "fabrikam", "tailspin", "adatum", "litware", "proseware", "woodgrove")]
    people: list[Person] = []
    names: set[str] = set()
    phones: set[str] = set()
    used_mail: set[str] = set()
    surnames = list(LAST)
    # families: households sharing a surname
    family_names = rng.sample(surnames, max(1, n // 12))
    i = 0
    while len(people) < n:
        i += 1
        last = rng.choice(family_names) if rng.random() < 0.3 else rng.choice(surnames)
        first = rng.choice(FIRST)
        if f"{first} {last}" in names:
            continue
        names.add(f"{first} {last}")
        people.append(Person(f"p{len(people)}", first, last))
    # two people with one full name (rare, but it happens)
    for _ in range(2):
        twin = rng.choice(people)
        people.append(Person(f"p{len(people)}", twin.first, twin.last))

    def mail(local: str, domain: str) -> str:
        addr = f"{local}@{domain}".lower()
        k = 1
        while addr in used_mail:
            k += 1
            addr = f"{local}{k}@{domain}".lower()
        used_mail.add(addr)
        return addr

    labels: set[str] = set()
    for p in people:
        if rng.random() < 0.55:
            p.company = rng.choice(companies)
            p.emails.append(mail(rng.choice([f"{p.first}.{p.last}", f"{p.first[0]}{p.last}", p.first]), p.company))
        if rng.random() < 0.75 or not p.emails:
            p.emails.append(mail(rng.choice([f"{p.first}.{p.last}", f"{p.first}{p.last}{rng.randrange(10, 99)}",
                                             f"{p.last}.{p.first}"]), rng.choice(WEBMAIL)))
        if rng.random() < 0.85:
            p.phone = _phone(rng, phones)
            p.signature = rng.random() < 0.5
            r = rng.random()
            if r < 0.72:
                label = p.full
            elif r < 0.80 and p.first in NICK:
                label = f"{NICK[p.first]} {p.last}"
            elif r < 0.86:
                label = f"{p.full} {rng.choice(EMOJI)}"
            elif r < 0.90:
                label = p.first
            else:
                label = None  # not saved: WhatsApp shows the number
            if label is not None and label in labels:
                label = f"{p.full} ({p.company.split('.')[0] if p.company else 'home'})"
            if label is not None:
                labels.add(label)
            p.label = label
        if rng.random() < 0.25:
            p.telegram = f"user{rng.randrange(10**8, 10**9)}"
            r = rng.random()
            p.tg_name = p.full if r < 0.7 else p.first if r < 0.9 else f"{NICK.get(p.first, p.first)} {p.last[0]}."
    orgs = [Person("o-22000", "22000", "", kind="short_code"), Person("o-72404", "72404", "", kind="short_code"),
            Person("o-google", "GOOGLE", "", kind="alphanumeric"), Person("o-dhl", "DHL", "", kind="alphanumeric"),
            Person("o-shop", "Acme Store", "", emails=["no-reply@acmestore.example"], kind="role"),
            Person("o-news", "Weekly Digest", "", emails=["newsletter@digest.example"], kind="role")]
    return people + orgs


def build_archives(people: list[Person], out: Path, rng: random.Random,
                   per_person: int = 3) -> dict[tuple[str, str, str], Mention]:
    """Write the archives into ``out``; returns the sender mentions with their true person ids."""
    mentions: dict[tuple[str, str, str], Mention] = {}

    def mention(channel: str, key: str, pid: str, name: str | None, file: str, ext: str) -> None:
        m = mentions.setdefault((channel, key, name or ""), Mention(channel, key, name, pid))
        m.messages.append((file, ext))

    when = iter(T0 + timedelta(minutes=97 * k) for k in itertools.count())
    humans = [p for p in people if p.kind == "person"]

    # --- mail -------------------------------------------------------------------------------
    box = mailbox.mbox(str(out / "mail.mbox"), create=True)
    n = 0

    def display(p: Person) -> str | None:
        r = rng.random()
        if r < 0.70:
            return p.full
        if r < 0.82:
            return p.first
        if r < 0.87:
            return f"{p.last}, {p.first}"
        if r < 0.92 and p.first in NICK:
            return f"{NICK[p.first]} {p.last}"
        if r < 0.95 and len(p.first) > 4:
            return f"{p.first[:-1]} {p.last}"  # a typo the sender's client kept ("Jame Smith")
        return None

    def add_mail(frm: str, frm_name: str | None, to: list[str], subject: str, body: str, extra: dict | None = None,
                 pid: str | None = None, key: str | None = None, shown: str | None = None) -> None:
        nonlocal n
        n += 1
        m = EmailMessage()
        m["From"] = formataddr((frm_name or "", frm)) if frm_name else frm
        m["To"] = ", ".join(to)
        m["Subject"] = subject
        m["Date"] = format_datetime(next(when))
        mid = f"<bench-{n}@kith.example>"
        m["Message-ID"] = mid
        for k, v in (extra or {}).items():
            m[k] = v
        m.set_content(body)
        box.add(mailbox.mboxMessage(m))
        if pid is not None:
            mention("email", key or frm.lower(), pid, shown or frm_name, "mail.mbox", mid)

    for p in humans:
        for addr in p.emails:
            for _ in range(rng.randint(1, per_person)):
                name = display(p)
                cc = [formataddr((q.full, q.emails[0])) for q in rng.sample(humans, rng.choice([0, 0, 1, 2]))
                      if q.emails and q is not p]
                sig = f"\n\n-- \n{p.full}\nMobile: {_pretty(p.phone)}\n" if p.signature and p.phone else "\n"
                add_mail(addr, name, [formataddr((OWNER, OWNER_ADDR))] + cc, rng.choice(
                    ["lunch?", "the report", "weekend plans", "photos", "quick question", "re: trip"]),
                    "Hi Nic,\nsee you soon." + sig, pid=p.pid)
    # a mailing list that rewrites From: (the authors are the people, the list is a group)
    for p in rng.sample([q for q in humans if q.emails], min(15, len(humans))):
        add_mail("dev@lists.example.org", f"{p.full} via Dev", ["Dev <dev@lists.example.org>"], "[dev] release",
                 "Release notes attached.", {"List-Id": "Dev talk <dev.lists.example.org>",
                                             "List-Post": "<mailto:dev@lists.example.org>",
                                             "X-Original-From": formataddr((p.full, p.emails[-1]))},
                 pid=p.pid, key=p.emails[-1], shown=p.full)
    for org in (q for q in people if q.kind == "role"):
        for _ in range(3):
            add_mail(org.emails[0], org.first, [OWNER_ADDR], "your order", "Thanks for your order.", pid=org.pid)
    box.flush()
    box.close()

    # --- Messages chat.db -------------------------------------------------------------------
    db = sqlite3.connect(out / "chat.db")
    db.executescript(CHAT_DB_SCHEMA)
    handles: dict[str, int] = {}
    chats: dict[str, int] = {}
    rowid = 0

    def handle(hid: str, service: str) -> int:
        if hid not in handles:
            handles[hid] = len(handles) + 1
            db.execute("INSERT INTO handle (ROWID, id, country, service) VALUES (?, ?, 'us', ?)",
                       (handles[hid], hid, service))
        return handles[hid]

    def chat(guid: str, members: list[int]) -> int:
        if guid not in chats:
            chats[guid] = len(chats) + 1
            db.execute("INSERT INTO chat (ROWID, guid, style, chat_identifier, service_name) VALUES (?, ?, 45, ?, "
                       "'iMessage')", (chats[guid], guid, guid.split(";")[-1]))
            for h in members:
                db.execute("INSERT INTO chat_handle_join VALUES (?, ?)", (chats[guid], h))
        return chats[guid]

    def message(h: int, c: int, text: str, service: str, pid: str, channel: str, key: str) -> None:
        nonlocal rowid
        rowid += 1
        at = next(when)
        guid = f"MSG-{rowid}"
        ns = int((at - APPLE_EPOCH).total_seconds()) * 10**9
        db.execute("INSERT INTO message (ROWID, guid, text, handle_id, date, is_from_me, service) "
                   "VALUES (?, ?, ?, ?, ?, 0, ?)", (rowid, guid, text, h, ns, service))
        db.execute("INSERT INTO chat_message_join VALUES (?, ?, ?)", (c, rowid, ns))
        mention(channel, key, pid, None, "chat.db", guid)

    for p in humans:
        if p.phone and rng.random() < 0.5:
            h = handle(p.phone, "SMS")
            c = chat(f"SMS;-;{p.phone}", [h])
            for _ in range(rng.randint(1, per_person)):
                message(h, c, "Running late, see you soon", "SMS", p.pid, "phone", p.phone)
        elif p.emails and rng.random() < 0.15:  # iMessage on an Apple ID = their personal address
            addr = p.emails[-1]
            h = handle(addr, "iMessage")
            c = chat(f"iMessage;-;{addr}", [h])
            message(h, c, "Sent you the photos", "iMessage", p.pid, "email", addr.lower())
    for org in (q for q in people if q.kind in ("short_code", "alphanumeric")):
        h = handle(org.first, "SMS")
        c = chat(f"SMS;-;{org.first}", [h])
        for _ in range(2):
            message(h, c, "Your code is 123456", "SMS", org.pid, "sms", org.first)
    db.commit()
    db.close()

    # --- WhatsApp -----------------------------------------------------------------------------
    wa = [p for p in humans if p.phone]

    def wa_name(p: Person) -> str:
        return p.label if p.label else _pretty(p.phone)

    def wa_key(p: Person, thread: str) -> tuple[str, str]:
        return ("phone", p.phone) if not p.label else ("wa_label", f"{thread}|{p.label}")

    def write_chat(title: str, members: list[Person], count: int) -> None:
        fname = f"WhatsApp Chat with {title}.txt"
        thread = title.casefold()
        lines = []
        for k in range(count):
            p = rng.choice(members)
            at = next(when)
            lines.append(f"{at:%d/%m/%Y, %H:%M} - {wa_name(p)}: see you at {k + 7} tonight")
            ch, key = wa_key(p, thread)
            mention(ch, key, p.pid, p.label, fname, f"line {len(lines)}")
        (out / "whatsapp").mkdir(exist_ok=True)
        (out / "whatsapp" / fname).write_text("\n".join(lines) + "\n", encoding="utf-8")

    for p in rng.sample(wa, int(len(wa) * 0.6)):
        write_chat(wa_name(p).replace("+", "").replace(" ", "_"), [p], rng.randint(1, per_person))
    for g in range(max(3, len(wa) // 25)):
        write_chat(f"Group {g}", rng.sample(wa, min(len(wa), rng.randint(3, 8))), 12)

    # --- Telegram ------------------------------------------------------------------------------
    tg = [p for p in humans if p.telegram]
    msg_id = itertools.count(1)
    tg_chats = []
    for p in tg:
        msgs = []
        for _ in range(rng.randint(1, per_person)):
            at = next(when)
            i = next(msg_id)
            msgs.append({"id": i, "type": "message", "date": at.strftime("%Y-%m-%dT%H:%M:%S"),
                         "date_unixtime": str(int(at.timestamp())), "from": p.tg_name, "from_id": p.telegram,
                         "text": "ok, see you"})
            mention("telegram", p.telegram, p.pid, p.tg_name, "result.json", f"chat {p.telegram[4:]} message {i}")
        tg_chats.append({"name": p.tg_name, "type": "personal_chat", "id": int(p.telegram[4:]), "messages": msgs})
    (out / "result.json").write_text(json.dumps({"about": "bench", "chats": {"list": tg_chats}}), encoding="utf-8")
    return mentions


TITLES = ("Engineer", "Account Manager", "Designer", "Product Manager", "Analyst", "Nurse", "Teacher", "Consultant")


def _esc(value: str) -> str:
    """A vCard text value with RFC 6350 §3.4 escapes."""
    return value.replace("\\", "\\\\").replace(",", "\\,").replace(";", "\\;").replace("\n", "\\n")


def _fold(line: str) -> list[str]:
    """RFC 6350 §3.2 folding at 75 octets (continuation lines start with a space)."""
    out, cur = [], ""
    for ch in line:
        if len((cur + ch).encode("utf-8")) > (75 if not out else 74):
            out.append(cur)
            cur = ""
        cur += ch
    out.append(cur)
    return [out[0]] + [" " + x for x in out[1:]]


def write_address_book(people: list[Person], path: Path, rng: random.Random) -> dict[str, int]:
    """The owner's address book as one vCard 3.0 file (what iPhone, macOS and Google Contacts export).

    Who is in it follows the phone: a contact WhatsApp shows by a saved name is on a card with that name
    (``FN`` = the saved name, ``N`` = their real name; a first name saved alone has no family name), 92%
    of them — a few live only on the SIM or another account; people WhatsApp shows as a bare number are
    not saved; people without a phone number are in it at 45% (mail contacts).  Gaps as in real books:
    each email address is on the card at 70%, nicknames at 25%, 40% of cards have no UID (Android, Google),
    5% are stale (an old mobile number instead of today's, an address at a former employer).  Work
    (``ORG``/``TITLE``) and birthdays as people fill them in.

    Returns:
        Counts: ``cards``, ``no_phone``, ``no_email``, ``stale``, ``people`` (humans).
    """
    import uuid

    humans = [p for p in people if p.kind == "person"]
    used = {p.phone for p in humans if p.phone}
    stats = {"cards": 0, "no_phone": 0, "no_email": 0, "stale": 0, "people": len(humans)}
    lines: list[str] = []
    for p in humans:
        if p.label is not None:
            if rng.random() >= 0.92:
                continue
        elif p.phone is not None or rng.random() >= 0.45:
            continue
        fn = p.label or (f"{NICK[p.first]} {p.last}" if p.first in NICK and rng.random() < 0.1 else p.full)
        bare = p.label is not None and p.label == p.first
        phone = p.phone if p.label is not None else None
        emails = [e for e in p.emails if rng.random() < 0.7]
        stale = rng.random() < 0.05
        if stale:
            stats["stale"] += 1
            if phone:
                phone = _phone(rng, used)  # their old number: nobody writes from it now
            emails = emails[:1] + [f"{p.first}.{p.last}@formerco.example".lower()]
        card = ["BEGIN:VCARD", "VERSION:3.0"]
        if rng.random() < 0.6:
            card.append(f"UID:{uuid.UUID(int=rng.getrandbits(128)).hex.upper()}")
        card.append(f"N:{'' if bare else _esc(p.last)};{_esc(p.first)};;;")
        card.append(f"FN:{_esc(fn)}")
        if p.first in NICK and rng.random() < 0.25:
            card.append(f"NICKNAME:{_esc(NICK[p.first])}")
        if p.company:
            card.append(f"ORG:{_esc(p.company.split('.')[0].capitalize())};")
            if rng.random() < 0.5:
                card.append(f"TITLE:{_esc(rng.choice(TITLES))}")
        if phone:
            card.append(f"TEL;type=CELL;type=VOICE;type=pref:{_pretty(phone)}")
        for k, e in enumerate(emails):
            card.append(f"EMAIL;type=INTERNET;type={'WORK' if p.company and e.endswith(p.company) else 'HOME'}"
                        f"{';type=pref' if k == 0 else ''}:{e}")
        if rng.random() < 0.4:
            card.append(f"BDAY:{rng.randrange(1950, 2004)}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}")
        card.append("END:VCARD")
        for line in card:
            lines += _fold(line)
        stats["cards"] += 1
        stats["no_phone"] += not phone
        stats["no_email"] += not emails
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode("utf-8"))
    return stats


CHAT_DB_SCHEMA = """
CREATE TABLE handle (ROWID INTEGER PRIMARY KEY, id TEXT NOT NULL, country TEXT, service TEXT NOT NULL);
CREATE TABLE chat (ROWID INTEGER PRIMARY KEY, guid TEXT UNIQUE NOT NULL, style INTEGER, chat_identifier TEXT,
    service_name TEXT, display_name TEXT);
CREATE TABLE message (ROWID INTEGER PRIMARY KEY, guid TEXT UNIQUE NOT NULL, text TEXT, attributedBody BLOB,
    handle_id INTEGER DEFAULT 0, date INTEGER, is_from_me INTEGER DEFAULT 0, service TEXT,
    item_type INTEGER DEFAULT 0, associated_message_type INTEGER DEFAULT 0);
CREATE TABLE chat_message_join (chat_id INTEGER, message_id INTEGER, message_date INTEGER DEFAULT 0,
    PRIMARY KEY (chat_id, message_id));
CREATE TABLE chat_handle_join (chat_id INTEGER, handle_id INTEGER, UNIQUE(chat_id, handle_id));
"""


# ----------------------------------------------------------------------------------------- scoring

def pairwise(pred: dict[str, object], truth: dict[str, str]) -> tuple[float, float, float]:
    """Pairwise precision, recall, F1 of clustering ``pred`` (item → cluster) against ``truth`` (item → cluster)."""
    def pairs(assign: dict) -> set[frozenset]:
        groups: dict = defaultdict(list)
        for item, c in assign.items():
            groups[c].append(item)
        return {frozenset(p) for g in groups.values() for p in itertools.combinations(sorted(g), 2)}
    p, t = pairs(pred), pairs(truth)
    tp = len(p & t)
    precision = tp / len(p) if p else 1.0
    recall = tp / len(t) if t else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def _norm_name(name: str) -> str:
    return " ".join(name.casefold().split())


def _identifier(m: Mention) -> str:
    import phonenumbers

    if m.channel == "phone":
        return "tel:" + phonenumbers.format_number(phonenumbers.parse(m.key), phonenumbers.PhoneNumberFormat.E164)
    return f"{m.channel}:{m.key.casefold()}"  # a WhatsApp name in one chat is its own identifier


def baselines(mentions: dict) -> tuple[dict, dict]:
    """(one entity per exact display name, one entity per identifier) over the same mentions."""
    by_name, by_id = {}, {}
    for m in mentions.values():
        by_name[m.item] = _norm_name(m.name) if m.name else _identifier(m)
        by_id[m.item] = _identifier(m)
    return by_name, by_id


def missed(pred: dict, truth: dict, mentions: dict) -> Counter:
    """True pairs Kith did not join, by what the weaker mention of the pair shows: a number with no name
    anywhere (SMS handle), no display name, a bare first name or nickname, or a full name."""
    from core.graph.entities import is_full_name

    by_item = {m.item: m for m in mentions.values()}

    def shows(m: Mention) -> int:
        if m.channel == "phone" and not m.name:
            return 0
        if not m.name:
            return 1
        return 2 if not is_full_name(m.name) else 3
    labels = ("a number never shown with a name", "an address with no display name", "a bare first name",
              "full names on both sides")
    out: Counter = Counter()
    groups: dict = defaultdict(list)
    for item, pid in truth.items():
        groups[pid].append(item)
    for items in groups.values():
        for a, b in itertools.combinations(items, 2):
            if pred[a] != pred[b]:
                out[labels[min(shows(by_item[a]), shows(by_item[b]))]] += 1
    return out


def kith_clusters(c, mentions: dict, files: dict[str, str]) -> tuple[dict, dict]:
    """Item → the live entity its messages were linked to (the most common one), and entity → its name."""
    from sqlmodel import select

    from core.graph.merge import live_survivor
    from core.store.schema import Record, Source

    pred, names = {}, {}
    with c.db.session() as s:
        src = {Path(x.path).name: x.id for x in s.exec(select(Source)).all()}
        for m in mentions.values():
            votes: Counter = Counter()
            for file, ext in m.messages:
                row = s.exec(select(Record).where(Record.source_id == src.get(Path(files[file]).name),
                                                  Record.external_id == ext)).first()
                if row is None or row.sender_entity_id is None:
                    continue
                e = live_survivor(s, row.sender_entity_id)
                if e is not None:
                    votes[e.id] += 1
                    names[e.id] = f"{e.canonical_name} ({e.kind})"
            pred[m.item] = votes.most_common(1)[0][0] if votes else f"missing:{m.item}"
    return pred, names


def wrong_merges(c, pred: dict, truth: dict, names: dict) -> list[str]:
    """One line per predicted entity that holds mentions of more than one true person, with the decisions."""
    from sqlmodel import select

    from core.store.schema import MergeCandidate

    groups: dict = defaultdict(list)
    for item, e in pred.items():
        groups[e].append(item)
    out = []
    with c.db.session() as s:
        for e, items in sorted(groups.items(), key=lambda kv: str(kv[0])):
            people = {truth[i] for i in items}
            if len(people) < 2:
                continue
            why = [f"#{mc.id} {mc.signal} {mc.score:.2f} ({mc.reason})" for mc in s.exec(
                select(MergeCandidate).where(MergeCandidate.a_id == e, MergeCandidate.status == "merged")).all()] \
                if isinstance(e, int) else []
            detail = "; ".join(f"{i} = {truth[i]}" for i in sorted(items))
            out.append(f"  wrong merge: entity {e} {names.get(e, '')}: {detail}"
                       + (f"  — decisions: {'; '.join(why)}" if why else ""))
    return out


def run_kith(home: Path, paths: list[Path], mentions: dict, files: dict[str, str]) -> dict:
    """One import of ``paths`` into a fresh data folder ``home`` through ``app.operations.ingest.ingest`` (what
    ``kith ingest`` runs); returns the scored clustering, the names, the decisions and the wrong merges."""
    import os

    os.environ["KITH_HOME"] = str(home)
    from sqlmodel import func, select

    from app.container import Container
    from app.operations.ingest import ingest
    from app.settings import Settings
    from core.store.schema import MergeCandidate

    st = Settings.load(home)
    st.owner_name, st.owner_emails = OWNER, [OWNER_ADDR]
    c = Container(st)
    try:
        t = time.perf_counter()
        report = ingest(c, paths)
        took = time.perf_counter() - t
        pred, names = kith_clusters(c, mentions, files)
        with c.db.session() as s:
            counts = dict(s.exec(select(MergeCandidate.status, func.count()).group_by(MergeCandidate.status)).all())
        truth = {m.item: m.pid for m in mentions.values()}
        return {"report": report, "took": took, "pred": pred, "names": names, "counts": counts,
                "wrong": wrong_merges(c, pred, truth, names)}
    finally:
        c.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--people", type=int, default=500)
    ap.add_argument("--seed", type=int, default=2, help="1 = dev split (rules developed on it), 2 = test split")
    ap.add_argument("--per-person", type=int, default=3, help="most messages per identifier")
    ap.add_argument("--keep", type=Path, default=None, help="keep the archives and the data folders here")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    work = args.keep or Path(tempfile.mkdtemp(prefix="kith-resolution-"))
    work.mkdir(parents=True, exist_ok=True)
    archives = work / "archives"
    archives.mkdir(exist_ok=True)
    people = make_people(args.people, rng)
    mentions = build_archives(people, archives, rng, args.per_person)
    book = work / "contacts.vcf"  # beside the archives: the run without it reads the same archives
    stats = write_address_book(people, book, random.Random(1000 * args.seed + 7))
    files = {"mail.mbox": str(archives / "mail.mbox"), "chat.db": str(archives / "chat.db"),
             "result.json": str(archives / "result.json")}
    for f in (archives / "whatsapp").glob("*.txt"):
        files[f.name] = str(f)
    truth = {m.item: m.pid for m in mentions.values()}
    n_msgs = sum(len(m.messages) for m in mentions.values())
    print(f"address book: {sum(p.kind == 'person' for p in people)} people + "
          f"{sum(p.kind != 'person' for p in people)} organisations (seed {args.seed}); {len(mentions)} sender "
          f"mentions in {n_msgs} messages across mail, Messages, {len(list((archives / 'whatsapp').glob('*.txt')))} "
          f"WhatsApp chats and Telegram")
    print(f"contacts.vcf: {stats['cards']} cards ({stats['cards'] / stats['people']:.0%} of the people), "
          f"{stats['no_phone']} without a phone, {stats['no_email']} without an email, {stats['stale']} stale")

    without = run_kith(work / "kith-home-archives-only", [archives], mentions, files)
    full = run_kith(work / "kith-home", [archives, book], mentions, files)
    for label, run in (("archives + contacts.vcf", full), ("archives only", without)):
        report = run["report"]
        print(f"kith ingest ({label}): {report.records_added} records in {run['took']:.1f} s, "
              f"{len(report.errors)} error(s)")
        for e in report.errors[:5]:
            print(f"  error: {e.path} {e.locator} {e.reason}")
    pred = full["pred"]
    by_name, by_id = baselines(mentions)
    rows = [("baseline: one entity per exact display name", by_name),
            ("baseline: one entity per identifier", by_id), ("kith: final entities", pred),
            ("kith without the address book", without["pred"])]
    scores = {}
    for label, assign in rows:
        p, r, f1 = pairwise(assign, truth)
        scores[label] = f1
        print(f"{label:<46} precision {p:.3f}  recall {r:.3f}  F1 {f1:.3f}")
    for label, _ in rows[:2] + rows[3:]:
        base = scores[label]
        ratio = f"{scores['kith: final entities'] / base:.2f}×" if base else "n/a (baseline F1 0)"
        name = label.split(": ", 1)[1] if label.startswith("baseline: ") else label
        print(f"kith F1 vs {name:<32} {ratio}")
    gaps = missed(pred, truth, mentions)
    total = sum(gaps.values())
    print(f"pairs kith left apart: {total}; where one side is " + "; ".join(
        f"{k} {v / total:.0%}" for k, v in gaps.most_common()) if total else "pairs kith left apart: 0")
    print("decisions kept: " + ", ".join(f"{v} {k}" for k, v in sorted(full["counts"].items())))
    print(f"wrong merges: {len(full['wrong'])}")
    for line in full["wrong"]:
        print(line)
    print(f"wrong merges without the address book: {len(without['wrong'])}")
    for line in without["wrong"]:
        print(line)


if __name__ == "__main__":
    main()
