"""Pass 25 on identity: who is who in small archives of the kinds real users have — a family's shared mailbox, and
the same people under other names, addresses and relations.  Inputs written by the tests themselves; each right
value worked out by hand."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sqlmodel import select

from core.extraction.personal_facts import extract_facts
from core.graph.apply import apply_candidates
from core.graph.parties import resolve_parties
from core.graph.resolution import NameIndex
from core.store.schema import Entity, Fact, MergeCandidate, Record, Source
from tests.core.test_identity import P, R  # the Party and Record look-alikes

T0 = datetime(2023, 3, 6, 9, 0, tzinfo=timezone.utc)


def _say(s, index, rec: R, text: str, when: datetime):
    """What ingest does for one record: resolve its parties, write the row and links, apply its facts."""
    parties = resolve_parties(s, rec, index=index)
    src = s.exec(select(Source)).first()
    if src is None:
        src = Source(kind="mbox", path="/t.mbox", content_hash="t")
        s.add(src)
        s.flush()
    n = len(s.exec(select(Record)).all())
    row = Record(source_id=src.id, external_id=f"#{n}", kind=rec.kind, sender_entity_id=parties.sender_id,
                 sent_at=when, text=text, thread=rec.thread, content_hash=f"h{n}")
    s.add(row)
    s.flush()
    parties.write_links(s, row.id)
    apply_candidates(s, extract_facts(text, when), s.get(Entity, parties.sender_id), row.id, when, index)
    return parties


def _live(s, kind: str | None = None):
    q = select(Entity).where(Entity.tombstoned_at.is_(None))
    return [e for e in s.exec(q.order_by(Entity.id)).all() if kind is None or e.kind == kind]


def _current(s, entity_id: int, key: str) -> list[str]:
    return sorted(f.value for f in s.exec(select(Fact).where(Fact.subject_entity_id == entity_id, Fact.key == key,
                                                             Fact.superseded_by.is_(None))).all())


def test_a_family_mailbox_found_shared_keeps_its_first_writer_a_person(s):
    """Maria Garcia, Tom Baker, Lucy Baker and Dev Patel all write from home@garcia-baker.example (three unrelated
    names: a shared mailbox).  Was: Maria's entity — her job at Acme, her sister Ines — became the group (a thing),
    and her next mail made a second Maria Garcia, with the three 'one person under two names?' suggestions left in
    the queue.  Now a group of its own takes the address; Maria stays one person with all she said."""
    index, box = NameIndex(), "home@garcia-baker.example"
    for i, (name, text) in enumerate([("Maria Garcia", "I work at Acme."),
                                      ("Maria Garcia", "My sister Ines lives in Madrid."),
                                      ("Tom Baker", "I work at Initech."),
                                      ("Lucy Baker", "I started at Hooli."),
                                      ("Dev Patel", "I live in Leeds."),
                                      ("Maria Garcia", "I moved to Bath.")]):
        last = _say(s, index, R(P(name, box)), text, T0 + timedelta(days=i))
    people = [e.canonical_name for e in _live(s, "person")]
    assert sorted(people) == ["Dev Patel", "Ines", "Lucy Baker", "Maria Garcia", "Tom Baker"]
    [maria] = [e for e in _live(s, "person") if e.canonical_name == "Maria Garcia"]
    assert _current(s, maria.id, "employer") == ["Acme"] and _current(s, maria.id, "home") == ["Bath"]
    assert _current(s, maria.id, "relation:sister:ines") == ["Ines"]
    assert s.exec(select(Record).where(Record.sender_entity_id == maria.id)).all().__len__() == 3
    [group] = [e for e in _live(s, "thing") if (e.attrs or {}).get("group")]
    assert group.canonical_name == box and [x.entity_id for x in last.links if x.role == "list"] == [group.id]
    assert s.exec(select(MergeCandidate).where(MergeCandidate.status == "pending")).all() == []
    asked = s.exec(select(MergeCandidate).where(MergeCandidate.signal == "other_name")).all()
    assert sorted(m.status for m in asked) == ["separate"] * 3


def test_an_address_first_seen_without_a_name_still_becomes_the_group(s):
    index, box = NameIndex(), "studio@shared.example"
    _say(s, index, R(P(None, box)), "Hello.", T0)
    for i, name in enumerate(("Ana Lima", "Bo Chen", "Cy Dunn")):
        last = _say(s, index, R(P(name, box)), "Hi.", T0 + timedelta(days=i + 1))
    [group] = [e for e in _live(s, "thing") if (e.attrs or {}).get("group")]
    assert [x.entity_id for x in last.links if x.role == "list"] == [group.id]
    assert sorted(e.canonical_name for e in _live(s, "person")) == ["Ana Lima", "Bo Chen", "Cy Dunn"]


def test_the_chats_me_and_the_mailboxs_sent_mail_are_one_owner(s):
    """No owner set.  An iMessage export's own message ("me", is_from_me) comes first and makes the stand-in "Me";
    then Ann's mail to "Alex Morgan" <alex@morgan.example>, then Alex's own mail from the Sent label.  Was: "Me"
    (the owner, now also holding alex@…) and "Alex Morgan" (a person, not the owner) — two people; Alex's job on
    "Me", Ann's mail to the other one.  Now Alex Morgan is merged into the owner, who takes that name."""
    index = NameIndex()
    _say(s, index, R(P("me", None, "handle"), [P(None, "+447700900123", "phone", "to")], kind="chat",
                     attrs={"is_from_me": True}), "I moved to Leeds last week.", T0)
    _say(s, index, R(P("Ann Lee", "ann@lee.example"), [P("Alex Morgan", "alex@morgan.example", role="to")]),
         "Hi Alex, lunch on Friday?", T0 + timedelta(days=1))
    sent = _say(s, index, R(P("Alex Morgan", "alex@morgan.example"), [P("Ann Lee", "ann@lee.example", role="to")],
                            attrs={"is_from_me": True}), "I work at Initech.", T0 + timedelta(days=2))
    [me] = [e for e in _live(s, "person") if e.is_owner]
    assert me.canonical_name == "Alex Morgan" and sent.sender_id == me.id
    assert sorted(e.canonical_name for e in _live(s, "person")) == ["+447700900123", "Alex Morgan", "Ann Lee"]
    assert _current(s, me.id, "home") == ["Leeds"] and _current(s, me.id, "employer") == ["Initech"]
    # Ann's mail was to the owner
    from core.store.schema import RecordEntity
    to = s.exec(select(RecordEntity).where(RecordEntity.record_id == 2, RecordEntity.role == "to")).all()
    assert [x.entity_id for x in to] == [me.id]
    [mc] = s.exec(select(MergeCandidate).where(MergeCandidate.status == "merged")).all()
    assert (mc.a_id, mc.signal, mc.decided_by) == (me.id, "email", "kith")


def test_an_owner_named_by_the_sent_mail_stays_the_one_owner(s):
    index = NameIndex()
    _say(s, index, R(P("Alex Morgan", "alex@morgan.example"), [P("Ann Lee", "ann@lee.example", role="to")],
                     attrs={"is_from_me": True}), "I work at Initech.", T0)
    chat = _say(s, index, R(P("me", None, "handle"), [P(None, "+447700900123", "phone", "to")], kind="chat",
                            attrs={"is_from_me": True}), "I moved to Leeds.", T0 + timedelta(days=1))
    [me] = [e for e in _live(s, "person") if e.is_owner]
    assert me.canonical_name == "Alex Morgan" and chat.sender_id == me.id
    assert s.exec(select(MergeCandidate)).all() == []


def _kin(s):
    """{name: sorted (key, value) of current home/job facts} of live people, and the owner's relatives by key."""
    people = {e.canonical_name: sorted((f.key, f.value) for f in s.exec(select(Fact).where(
        Fact.subject_entity_id == e.id, Fact.key.in_(("home", "employer")), Fact.superseded_by.is_(None))).all())
        for e in _live(s, "person") if not e.is_owner}
    from core.store.schema import FactEntity
    [me] = [e for e in _live(s, "person") if e.is_owner]
    rel = {f.key: s.get(Entity, s.exec(select(FactEntity).where(FactEntity.fact_id == f.id,
                                                                 FactEntity.role == "object")).first().entity_id)
           .canonical_name for f in s.exec(select(Fact).where(Fact.subject_entity_id == me.id,
                                                              Fact.domain == "relationships")).all()}
    return people, rel


OWNER = P("Alex Morgan", "alex@morgan.example")
MUM = P("Mum", "+447700900222", "phone")
DAD = P("Dad ❤️", "+447700900333", "phone")


def test_the_owners_mum_and_the_chat_contact_saved_as_mum_are_one_person(s):
    """The owner's phone shows their mother as "Mum" (a WhatsApp contact).  Was: "Mum" (home Leeds) and "Alex Morgan's
    mother" (job at Initech, from the owner's "my mum works at Initech") — two mothers; "Dad moved to York" likewise
    made a second father beside "Dad ❤️"."""
    index = NameIndex()
    _say(s, index, R(OWNER, attrs={"is_from_me": True}), "Hi.", T0)
    _say(s, index, R(MUM, [P("me", None, "handle", "to")], kind="chat"), "I moved to Leeds.", T0 + timedelta(days=1))
    _say(s, index, R(DAD, kind="chat"), "I work at Acme.", T0 + timedelta(days=2))
    _say(s, index, R(OWNER, attrs={"is_from_me": True}), "My mum works at Initech. Dad moved to York.",
         T0 + timedelta(days=3))
    people, rel = _kin(s)
    assert people == {"Mum": [("employer", "Initech"), ("home", "Leeds")],
                      "Dad ❤️": [("employer", "Acme"), ("home", "York")]}
    assert rel == {"relation:mother": "Mum", "relation:father": "Dad ❤️"}


def test_a_relative_spoken_of_before_their_contact_appears_joins_it(s):
    index = NameIndex()
    _say(s, index, R(OWNER, attrs={"is_from_me": True}), "My mum works at Initech. Dad moved to York.", T0)
    _say(s, index, R(MUM, [P("me", None, "handle", "to")], kind="chat"), "I moved to Leeds.", T0 + timedelta(days=1))
    _say(s, index, R(DAD, kind="chat"), "I work at Acme.", T0 + timedelta(days=2))
    people, rel = _kin(s)
    assert people == {"Mum": [("employer", "Initech"), ("home", "Leeds")],
                      "Dad ❤️": [("employer", "Acme"), ("home", "York")]}
    assert rel == {"relation:mother": "Mum", "relation:father": "Dad ❤️"}
    merged = s.exec(select(MergeCandidate).where(MergeCandidate.status == "merged")).all()
    assert sorted((s.get(Entity, m.a_id).canonical_name, m.signal) for m in merged) == [("Dad ❤️", "alias"),
                                                                                         ("Mum", "alias")]


def test_someone_elses_mum_is_not_the_owners_contact(s):
    index = NameIndex()
    _say(s, index, R(OWNER, attrs={"is_from_me": True}), "Hi.", T0)
    _say(s, index, R(MUM, kind="chat"), "I moved to Leeds.", T0 + timedelta(days=1))
    _say(s, index, R(P("Tom Hill", "tom@hill.example")), "My mum lives in Bath.", T0 + timedelta(days=2))
    people, _ = _kin(s)
    assert people["Mum"] == [("home", "Leeds")] and people["Tom Hill's mother"] == [("home", "Bath")]


def test_kin_names():
    from core.graph.apply import kin_name

    assert [kin_name(n) for n in ("Mum", "mom", "Dad ❤️", "Nan", "Hubby", "Mum Smith", "Tom", "Ma", None)] == [
        "mother", "mother", "father", "grandmother", "husband", None, None, None, None]


def _facts_of(s, name: str) -> list[tuple[str, str]]:
    [e] = [e for e in _live(s, "person") if e.canonical_name == name]
    return sorted((f.key, f.value) for f in s.exec(select(Fact).where(Fact.subject_entity_id == e.id,
                                                                      Fact.domain != "identity",
                                                                      Fact.superseded_by.is_(None))).all())


def test_someone_elses_named_relative_is_their_relative(s):
    """Was: "Nina's sister lives in Oslo" and "Tom Hill's wife Ana works at Globex" stated nothing (no relative, no
    home, no job).  Now Nina has a sister who lives in Oslo, and Tom Hill's wife is Ana, who works at Globex; the
    writer, Rosa, gains no relatives."""
    index = NameIndex()
    rosa = P("Rosa Vidal", "rosa@vidal.example")
    _say(s, index, R(rosa), "Nina's sister lives in Oslo.", T0)
    _say(s, index, R(rosa), "Tom Hill's wife Ana works at Globex.", T0 + timedelta(days=1))
    _say(s, index, R(rosa), "Mum's friend Sue lives in Bath.", T0 + timedelta(days=2))
    assert sorted(e.canonical_name for e in _live(s, "person")) == ["Ana", "Nina", "Nina's sister", "Rosa Vidal",
                                                                    "Sue", "Tom Hill"]
    assert _facts_of(s, "Nina") == [("relation:sister", "Nina's sister")]
    assert _facts_of(s, "Nina's sister") == [("home", "Oslo")]
    assert _facts_of(s, "Tom Hill") == [("relation:wife:ana", "Ana")]
    assert _facts_of(s, "Ana") == [("employer", "Globex")]
    assert _facts_of(s, "Rosa Vidal") == [] and _facts_of(s, "Sue") == [("home", "Bath")]
    st = s.exec(select(Fact).where(Fact.key == "relation:sister")).one().statement
    assert st.endswith("Nina has a sister.")


def test_the_relative_of_someone_who_writes_is_the_one_they_speak_of(s):
    index = NameIndex()
    nina = P("Nina Keller", "nina@keller.example")
    _say(s, index, R(nina), "My sister works at Initech.", T0)
    _say(s, index, R(P("Rosa Vidal", "rosa@vidal.example"), thread="t1"), "Nina Keller's sister moved to Bergen.",
         T0 + timedelta(days=1))
    assert _facts_of(s, "Nina Keller's sister") == [("employer", "Initech"), ("home", "Bergen")]
    assert len([e for e in _live(s, "person") if "sister" in e.canonical_name]) == 1


def test_an_organisations_boss_is_no_ones_relative(s):
    index = NameIndex()
    rosa = P("Rosa Vidal", "rosa@vidal.example")
    _say(s, index, R(rosa), "I work at Initech.", T0)
    _say(s, index, R(rosa), "Initech's boss moved to Leeds.", T0 + timedelta(days=1))
    assert sorted(e.canonical_name for e in _live(s, "person")) == ["Rosa Vidal"]


def test_the_named_relative_of_a_relative_is_theirs(s):
    index = NameIndex()
    rosa = P("Rosa Vidal", "rosa@vidal.example")
    _say(s, index, R(rosa), "My sister Jane's boyfriend lives in Leeds.", T0)
    assert sorted(e.canonical_name for e in _live(s, "person")) == ["Jane", "Jane's boyfriend", "Rosa Vidal"]
    assert _facts_of(s, "Jane") == [("relation:boyfriend", "Jane's boyfriend")]
    assert _facts_of(s, "Jane's boyfriend") == [("home", "Leeds")]
    assert _facts_of(s, "Rosa Vidal") == [("relation:sister:jane", "Jane")]


def test_a_kinship_word_naming_a_member_of_the_chat_is_that_member(s):
    """A family's group chat, as the owner's phone shows it: "Mum" and "Dad" are members.  Mum writes "Dad and I
    moved to Spain last week".  Was: Mum and a new person "Mum's father" lived in Spain.  Now Dad (the member) does.
    Outside such a chat, Tom's "Dad moved to York" is still Tom's own father."""
    index = NameIndex()
    names = ("Mum", "Dad", "Alex Morgan")

    def others(me):  # the chat's other members (a record's parties never include its sender twice)
        return [P(n, None, "phone", "member") for n in names if n != me]

    sun = datetime(2023, 3, 12, 9, 3, tzinfo=timezone.utc)
    _say(s, index, R(P("Dad", None, "phone"), others("Dad"), kind="chat", thread="family"), "Morning all!", sun)
    _say(s, index, R(P("Mum", None, "phone"), others("Mum"), kind="chat", thread="family"),
         "Dad and I moved to Spain last week 🌞", sun + timedelta(minutes=2))
    _say(s, index, R(P("Tom Hill", "tom@hill.example")), "Dad moved to York.", sun + timedelta(days=1))
    assert sorted(e.canonical_name for e in _live(s, "person")) == ["Alex Morgan", "Dad", "Mum", "Tom Hill",
                                                                    "Tom Hill's father"]
    assert _facts_of(s, "Dad") == [("home", "Spain")]  # since Mon 27 Feb 2023, the week before
    assert _facts_of(s, "Mum") == [("home", "Spain")]
    assert _facts_of(s, "Tom Hill's father") == [("home", "York")]


def test_a_notification_address_a_person_writes_through_is_not_theirs(container, tmp_path):
    """'Ann Lee (Google Calendar)' <calendar-notification@google.com> and 'Ann Lee (via Google Docs)'
    <comments-noreply@docs.google.com> are Ann sending through a robot mailbox.  Was: her profile read 'Ann Lee
    (Google Calendar) writes from calendar-notification@google.com.' (and 'Ann Lee | Acme writes from …' with her
    mail's directory qualifier); now only her own address, under her name."""
    from app.operations.graph import profile
    from app.operations.ingest import ingest
    from helpers.mboxes import write_mbox

    ingest(container, [write_mbox(tmp_path / "ann.mbox", [
        ('"Ann Lee | Acme" <ann@acme.example>', "Hi", "I work at Acme."),
        ('"Ann Lee (Google Calendar)" <calendar-notification@google.com>', "Invitation: lunch", "Ann Lee invited you."),
        ('"Ann Lee (via Google Docs)" <comments-noreply@docs.google.com>', "Doc", "Ann Lee commented."),
    ])])
    p = profile(container, "Ann Lee")
    assert [f.statement.split(", ", 1)[-1] for f in p.current if f.key.startswith("email:")] == [
        "Ann Lee writes from ann@acme.example."]
    assert p.records == 3


def test_a_full_name_learnt_later_under_a_nickname_becomes_the_name(s):
    """'Jon' <jon.m@outlook.example>, then 'Jonathan Miller' from the same address: was still called 'Jon' (the full
    name only an alias, since 'Jon' is no word of it); now 'Jonathan Miller'.  'Bob' → 'Robert Smith' likewise."""
    from core.graph.resolution import resolve

    jon = resolve(s, "person", "Jon", "jon.m@outlook.example").entity
    assert resolve(s, "person", "Jonathan Miller", "jon.m@outlook.example").entity.id == jon.id
    assert jon.canonical_name == "Jonathan Miller"
    bob = resolve(s, "person", "Bob", "bob@smith.example").entity
    resolve(s, "person", "Robert Smith", "bob@smith.example")
    assert bob.canonical_name == "Robert Smith"
    ann = resolve(s, "person", "Ann", "ann@lee.example").entity
    resolve(s, "person", "Ann Lee", "ann@lee.example")
    assert ann.canonical_name == "Ann Lee"  # as before


def test_my_parents_are_the_same_mother_and_father_as_my_mum_and_dad(s):
    index = NameIndex()
    rosa = P("Rosa Vidal", "rosa@vidal.example")
    _say(s, index, R(rosa), "My mum works at Initech.", T0)
    _say(s, index, R(rosa), "My parents moved to Spain.", T0 + timedelta(days=1))
    assert sorted(e.canonical_name for e in _live(s, "person")) == ["Rosa Vidal", "Rosa Vidal's father",
                                                                    "Rosa Vidal's mother"]
    assert _facts_of(s, "Rosa Vidal's mother") == [("employer", "Initech"), ("home", "Spain")]
    assert _facts_of(s, "Rosa Vidal's father") == [("home", "Spain")]
