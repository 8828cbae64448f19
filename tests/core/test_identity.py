"""Who is who (issue 13): the cascade's safety rules, every decision kept, held supersession, lists, SMS senders.

Each test builds its own small store and checks the right entity, signal and decision row.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

from sqlmodel import select

from core.graph.apply import apply_candidates
from core.graph.entities import email_domain, is_full_name, sender_type, strip_decorations
from core.graph.merge import merge, unmerge
from core.graph.parties import list_addresses, resolve_parties
from core.graph.resolution import Context, NameIndex, resolve, resolve_mention
from core.extraction.personal_facts import extract_facts
from core.store.schema import Entity, Fact, MergeCandidate, Record, Source


@dataclass(frozen=True)
class P:  # an ingestors.base.Party look-alike (core never imports ingestors)
    name: str | None
    address: str | None = None
    address_kind: str = "email"
    role: str = "from"


@dataclass
class R:  # an ingestors.base.Record look-alike
    sender: P | None
    recipients: list = field(default_factory=list)
    kind: str = "email"
    thread: str | None = None
    attrs: dict = field(default_factory=dict)
    place: object = None


def _row(s, parties, text: str, when: datetime, thread: str | None = None) -> Record:
    src = s.exec(select(Source)).first()
    if src is None:
        src = Source(kind="mbox", path="/t.mbox", content_hash="t")
        s.add(src)
        s.flush()
    n = len(s.exec(select(Record)).all())
    row = Record(source_id=src.id, external_id=f"#{n}", kind="email", sender_entity_id=parties.sender_id,
                 sent_at=when, text=text, thread=thread, content_hash=f"h{n}")
    s.add(row)
    s.flush()
    parties.write_links(s, row.id)
    return row


def _say(s, index, rec: R, text: str, when: datetime):
    """What ingest does for one record: resolve its parties, write the row and links, apply its facts."""
    parties = resolve_parties(s, rec, index=index)
    row = _row(s, parties, text, when, rec.thread)
    speaker = s.get(Entity, parties.sender_id)
    apply_candidates(s, extract_facts(text, when), speaker, row.id, when, index)
    return parties


def _active(s, entity_id: int, key: str) -> list[str]:
    return [f.value for f in s.exec(select(Fact).where(Fact.subject_entity_id == entity_id, Fact.key == key,
                                                       Fact.superseded_by.is_(None))).all()]


# -------------------------------------------------------------------------------- names

def test_name_helpers():
    assert strip_decorations("John Doe 🤓") == "John Doe" and strip_decorations("🤓") == ""
    assert [is_full_name(n) for n in ("Alex", "Alex R.", "Dr. Smith", "Mia Clarke", "John-John Doe 🤓")] == \
        [False, False, False, True, True]
    assert email_domain("cristy@mystic.es.dupont.com") == "dupont.com"
    assert email_domain("ann@mail.example.co.uk") == "example.co.uk"


def test_two_people_named_just_alex_are_a_suggestion_not_a_merge(s):
    a = resolve(s, "person", "Alex", "alex@north.example")
    b = resolve(s, "person", "Alex", "alex.r@south.example")
    assert b.created and b.entity.id != a.entity.id and b.signal == "first_name"
    mc = s.get(MergeCandidate, b.review_id)
    assert (mc.a_id, mc.b_id, mc.status, mc.signal, mc.score, mc.decided_by) == \
        (a.entity.id, b.entity.id, "pending", "first_name", 0.6, "kith")
    assert "alex@north.example" in mc.reason and "alex.r@south.example" in mc.reason
    assert mc.threshold.startswith("suggestion")


def test_bare_name_corroborated_by_a_company_domain_merges_but_not_by_webmail(s):
    a = resolve(s, "person", "Cristy", "cristy@mystic.es.dupont.com")
    b = resolve(s, "person", "Cristy", "cristy@eplrx7.es.dupont.com")
    assert (b.entity.id, b.signal) == (a.entity.id, "first_name_domain")
    mc = s.get(MergeCandidate, b.merge_id)
    assert (mc.status, mc.decided_by, mc.confirmed_at, mc.detail["hold"]) == ("merged", "kith", None, True)
    g1 = resolve(s, "person", "Sam", "sam1@gmail.com")
    g2 = resolve(s, "person", "Sam", "sam.k@gmail.com")
    assert g2.entity.id != g1.entity.id and g2.signal == "first_name"  # gmail.com says nothing about who


def test_bare_names_without_identifiers_join_and_nicknames_stay_definitive(s):
    a = resolve(s, "person", "Mom", None)
    b = resolve(s, "person", "Mom", None)
    assert (b.entity.id, b.signal) == (a.entity.id, "bare_name")
    c = resolve(s, "person", "Mom", "+44 7700 900123", "phone")
    assert c.entity.id != a.entity.id and c.review_id is not None  # a bare name across identifiers


def test_full_name_across_unrelated_identifiers_is_a_suggestion_not_a_merge(s):
    """Two "Sam Lee"s at two companies, or one on WhatsApp by phone and one by mail: the same full name with
    addresses of their own is no more than a suggestion (it was a held merge: one person, both addresses)."""
    index = NameIndex()
    when = lambda m: datetime(2023, m, 6, 9, tzinfo=timezone.utc)  # noqa: E731
    a = _say(s, index, R(P("Sam Lee", "sam@acme.example")), "I work at Acme now.", when(3))
    b = _say(s, index, R(P("Sam Lee", "sam.lee@globex.example")), "I work at Globex these days.", when(4))
    c = _say(s, index, R(P("Sam Lee", "+44 7700 900123", "phone"), kind="chat", thread="wa:x"), "I live in Leeds.",
             when(5))
    assert len({a.sender_id, b.sender_id, c.sender_id}) == 3
    assert _active(s, a.sender_id, "employer") == ["Acme"] and _active(s, b.sender_id, "employer") == ["Globex"]
    assert s.exec(select(MergeCandidate).where(MergeCandidate.status == "merged")).all() == []
    pending = s.exec(select(MergeCandidate).where(MergeCandidate.status == "pending")).all()
    assert {(m.a_id, m.b_id, m.signal, m.score) for m in pending} == {
        (a.sender_id, b.sender_id, "full_name", 0.8), (a.sender_id, c.sender_id, "full_name", 0.8)}
    assert "sam@acme.example" in pending[0].reason and "sam.lee@globex.example" in pending[0].reason
    # the same address again finds its own Sam Lee, not the first one
    again = _say(s, index, R(P("Sam Lee", "sam.lee@globex.example")), "Hello.", when(6))
    assert again.sender_id == b.sender_id


def test_full_name_across_identifiers_of_one_company_is_a_suggestion_and_supersedes_once_merged(s):
    """Two "Alex Reed"s at one company's mail domain (rt4 F4: two "John Smith"s at one company were merged): a
    ``full_name`` suggestion, pending; each identity keeps its own facts until the person merges the two, then
    the later job supersedes the earlier one."""
    index = NameIndex()
    when = lambda m: datetime(2023, m, 6, 9, tzinfo=timezone.utc)  # noqa: E731
    first = _say(s, index, R(P("Alex Reed", "alex@north.dupont.com")), "I work at Northwind now.", when(3))
    second = _say(s, index, R(P("Alex Reed", "alex.r@south.dupont.com")), "I work at Southbank these days.", when(4))
    alex, other = first.sender_id, second.sender_id
    assert other != alex  # a full name and one company's mail domain are not one person …
    assert s.exec(select(MergeCandidate).where(MergeCandidate.status == "merged")).all() == []
    mc = s.exec(select(MergeCandidate).where(MergeCandidate.status == "pending")).one()
    assert (mc.a_id, mc.b_id, mc.signal, mc.score, mc.decided_by) == (alex, other, "full_name", 0.8, "kith")
    assert mc.reason == ("same full name 'Alex Reed' only at one company's mail domain (dupont.com), different "
                         "identifiers (alex.r@south.dupont.com vs alex@north.dupont.com)")
    # … so Southbank does not supersede Northwind: each is its own identity's
    assert _active(s, alex, "employer") == ["Northwind"] and _active(s, other, "employer") == ["Southbank"]
    # a later mail from the second address still speaks for that identity
    later = _say(s, index, R(P("Alex Reed", "alex.r@south.dupont.com")), "I live in Leeds.", when(5))
    assert later.sender_id == other and _active(s, other, "home") == ["Leeds"] and _active(s, alex, "home") == []
    # the person merges them (what `kith review merge ID` does: app.operations.review.decide)
    mc.detail, mc.status, mc.decided_by = merge(s, mc.a_id, mc.b_id), "merged", "person"
    s.add(mc)
    s.flush()
    assert s.get(Entity, other).tombstoned_at is not None
    assert _active(s, alex, "employer") == ["Southbank"] and _active(s, alex, "home") == ["Leeds"]
    old = s.exec(select(Fact).where(Fact.value == "Northwind")).one()
    assert old.superseded_by is not None and old.subject_entity_id == alex


def test_undoing_a_merge_kith_made_takes_back_later_records_and_facts(s):
    index = NameIndex()
    when = lambda m: datetime(2023, m, 6, 9, tzinfo=timezone.utc)  # noqa: E731
    a = _say(s, index, R(P("Jon Smith", None)), "Hello.", when(1))
    b = _say(s, index, R(P("John Smith", "john@x.example")), "Hi.", when(2))
    assert b.sender_id == a.sender_id  # fuzzy ≥ 0.85, one side has no address: merged by Kith
    mc = s.exec(select(MergeCandidate).where(MergeCandidate.status == "merged")).one()
    assert (mc.signal, mc.detail["hold"]) == ("fuzzy_high", False)
    c = _say(s, index, R(P("John Smith", "john@x.example")), "I work at Globex.", when(3))
    assert c.sender_id == a.sender_id and _active(s, a.sender_id, "employer") == ["Globex"]
    unmerge(s, mc.detail)
    row = s.exec(select(Record).where(Record.text == "I work at Globex.")).one()
    assert row.sender_entity_id == mc.b_id  # the later mail went back with its address
    assert _active(s, mc.b_id, "employer") == ["Globex"] and _active(s, a.sender_id, "employer") == []


def test_nickname_forms_of_one_name_join_unless_both_have_their_own_addresses(s):
    from core.graph.resolution import name_score

    assert name_score("Bob Smith", "Robert Smith") == (0.9, "nickname")
    assert name_score("Sasha Reed", "Robert Reed") == (0.45, "same_surname")
    a = resolve(s, "person", "Robert Smith", "robert@smith.example")
    b = resolve(s, "person", "Bob Smith", None)  # the owner's contact name for him
    assert (b.entity.id, b.signal) == (a.entity.id, "nickname")
    c = resolve(s, "person", "Liz Taylor", "liz@a.example")
    d = resolve(s, "person", "Elizabeth Taylor", "elizabeth@b.example")
    assert d.entity.id != c.entity.id and d.review_id is not None


def test_fuzzy_names_of_two_people_with_their_own_addresses_are_a_suggestion(s):
    a = resolve(s, "person", "John Smith", "john@a.example")
    b = resolve(s, "person", "Jon Smith", "jon@b.example")
    assert b.created and b.entity.id != a.entity.id and b.signal == "fuzzy_review" and b.review_id


def test_two_parties_of_one_chat_are_never_merged_by_name(s):
    index = NameIndex()
    rec = R(P("John Doe", None, "phone"), [P("John Doe 🤓", None, "phone", "member"), P("Jahn Doe", None, "phone",
                                                                                         "member")],
            kind="chat", thread="whatsapp:test")
    parties = resolve_parties(s, rec, index=index)
    ids = [x.entity_id for x in parties.links]
    assert len(set(ids)) == 3
    kept = s.exec(select(MergeCandidate).where(MergeCandidate.status == "separate")).all()
    assert {m.signal for m in kept} == {"same_chat"} and len(kept) == 3  # every pair of the three
    # the next message of the same chat finds each participant again, by thread
    again = resolve_parties(s, R(P("John Doe 🤓", None, "phone"), kind="chat", thread="whatsapp:test"), index=index)
    assert again.sender_id == ids[1] and again.links[0].signal in ("thread", "exact_name")


def test_emoji_in_another_chat_a_full_name_joins_with_its_reason_a_bare_name_is_a_suggestion(s):
    a = resolve(s, "person", "John Doe", None, context=Context(thread="chat:a"))
    b = resolve(s, "person", "John Doe 🤓", None, context=Context(thread="chat:b"))
    assert (b.entity.id, b.signal) == (a.entity.id, "exact_name")  # the owner's label with an emoji
    mc = s.get(MergeCandidate, b.merge_id)
    assert mc.reason == "same full name apart from emoji or symbols ('John Doe 🤓' / 'John Doe')"
    c = resolve(s, "person", "Maya", None, context=Context(thread="chat:a"))
    d = resolve(s, "person", "Maya 🌻", None, context=Context(thread="chat:b"))
    assert d.entity.id != c.entity.id and d.signal == "decoration" and d.review_id is not None


def test_last_first_order_and_a_full_name_learnt_later(s):
    a = resolve(s, "person", "Anna Greene", None)
    b = resolve(s, "person", "Greene, Anna", "annagreene85@gmail.com")
    assert (b.entity.id, b.signal) == (a.entity.id, "exact_name")
    c = resolve(s, "person", "Anna Greene", "agreene@umbrella.example")  # both have addresses now: a suggestion
    assert c.entity.id != a.entity.id and (c.signal, c.matched_id) == ("full_name", a.entity.id)
    # an Apple ID seen first without a name, then with it: the name learnt meets another Sam Palmer
    x = resolve(s, "person", None, "sam.palmer@icloud.com")
    y = resolve(s, "person", "Sam Palmer", "spalmer@wonka.example")
    assert x.entity.id != y.entity.id
    z = resolve(s, "person", "Sam Palmer", "sam.palmer@icloud.com")
    assert z.entity.id == x.entity.id and s.get(Entity, y.entity.id).tombstoned_at is None
    mc = s.exec(select(MergeCandidate).where(MergeCandidate.b_id == y.entity.id)).one()
    assert (mc.a_id, mc.signal, mc.status) == (x.entity.id, "full_name", "pending")
    # at one company's domain too the late name is only a suggestion (rt4 F4): not merged until the person says so
    u = resolve(s, "person", None, "kim.ro@eu.dupont.com")
    v = resolve(s, "person", "Kim Ro", "kro@dupont.com")
    w = resolve(s, "person", "Kim Ro", "kim.ro@eu.dupont.com")
    assert w.entity.id == u.entity.id and s.get(Entity, v.entity.id).tombstoned_at is None
    mc = s.exec(select(MergeCandidate).where(MergeCandidate.b_id == v.entity.id)).one()
    assert (mc.a_id, mc.signal, mc.status) == (u.entity.id, "full_name", "pending")
    assert s.exec(select(MergeCandidate).where(MergeCandidate.status == "merged", (
        MergeCandidate.a_id.in_((u.entity.id, v.entity.id))) | MergeCandidate.b_id.in_((u.entity.id, v.entity.id)))
    ).all() == []


def test_thread_first_then_whoever_the_text_names(s):
    index = NameIndex()
    rec = R(P("Maya Ortiz", None, "phone"), [P("Tom Weller", None, "phone", "member")], kind="chat", thread="wa:g")
    parties = resolve_parties(s, rec, index=index)
    tom = parties.links[1].entity_id
    other_tom = resolve(s, "person", "Tom Baker", "tom@baker.example").entity
    hit = resolve_mention(s, "Tom", "wa:g", index)
    assert (hit.entity.id, hit.signal) == (tom, "thread") and hit.entity.id != other_tom.id


# -------------------------------------------------------------------------------- SMS senders, lists

def test_short_codes_and_sender_ids_are_one_thing_each_never_a_person(s):
    assert sender_type("22000", "phone") == "short_code" and sender_type("GOOGLE", "alphanumeric") == "alphanumeric"
    assert sender_type("+1 617 555 1234", "phone") is None and sender_type("user123", "handle") is None
    a = resolve(s, "person", None, "22000", "short_code")
    b = resolve(s, "person", None, "22000", "phone")
    assert (a.entity.kind, a.entity.attrs["sender_type"], b.entity.id, b.signal) == \
        ("thing", "short_code", a.entity.id, "handle")
    g = resolve(s, "person", "GOOGLE", "GOOGLE", "alphanumeric")
    person = resolve(s, "person", "Google", None)
    assert g.entity.kind == "thing" and person.entity.kind == "person" and person.entity.id != g.entity.id


def test_list_headers_name_the_list_and_the_author_is_the_person():
    assert list_addresses({"list_post": "<mailto:dev@lists.example.org>"}) == {"dev@lists.example.org"}
    assert list_addresses({"sender": "owner-magick@wizards.dupont.com", "precedence": "bulk"}) == \
        {"magick@wizards.dupont.com"}
    assert list_addresses({"sender": "owner-magick@wizards.dupont.com"}) == set()  # no list evidence
    assert list_addresses({"list_id": "Dev talk <dev.lists.example.org>"}) == {"dev@lists.example.org"}


def test_a_list_that_rewrote_from_is_a_group_and_the_author_comes_from_x_original_from(s):
    index = NameIndex()
    rec = R(P("Ana Lima via Dev", "dev@lists.example.org"), [P("Dev", "dev@lists.example.org", role="to")],
            attrs={"list_post": "<mailto:dev@lists.example.org>", "x_original_from": "Ana Lima <ana@lima.example>",
                   "reply_to": "dev@lists.example.org"})
    parties = resolve_parties(s, rec, index=index)
    author = s.get(Entity, parties.sender_id)
    lst = [s.get(Entity, x.entity_id) for x in parties.links if x.role == "list"]
    assert (author.kind, author.canonical_name) == ("person", "Ana Lima")
    assert [(e.kind, e.attrs["group"]) for e in lst] == [("thing", "mailing_list")]
    # without X-Original-From, Reply-To names the author; a list address never becomes a person
    rec2 = R(P("Bo Chen via Dev", "dev@lists.example.org"), attrs={"list_id": "<dev.lists.example.org>",
                                                                    "reply_to": "Bo Chen <bo@chen.example>"})
    p2 = resolve_parties(s, rec2, index=index)
    assert s.get(Entity, p2.sender_id).canonical_name == "Bo Chen"
    assert s.exec(select(Entity).where(Entity.kind == "person", Entity.canonical_name.contains("Dev"))).all() == []


def test_a_list_first_seen_as_a_person_is_reclassified_with_its_reason(s):
    index = NameIndex()
    first = resolve_parties(s, R(P("Ann Lee", "ann@lee.example"), [P("Magick", "magick@wizards.example", role="to")]),
                            index=index)
    lst = s.get(Entity, first.links[1].entity_id)
    assert lst.kind == "person"
    resolve_parties(s, R(P("Bob Ray", "bob@ray.example"), [P("Magick", "magick@wizards.example", role="to")],
                         attrs={"sender": "owner-magick@wizards.example", "precedence": "bulk"}), index=index)
    s.refresh(lst)
    assert lst.kind == "thing" and lst.attrs["group"] == "mailing_list" and "mailing list" in lst.attrs["kind_reason"]


def test_a_list_mails_recipient_at_the_lists_address_family_is_the_list_not_a_person(s):
    # the corpus's "Font metrics": From cristy@…, To magick-developer@imagemagick.org, Sender owner-magick@…, bulk
    index = NameIndex()
    rec = R(P(None, "cristy@mystic.example"), [P(None, "magick-developer@imagemagick.example", role="to"),
                                              P(None, "markov@atcomputing.example", role="cc")],
            attrs={"sender": "owner-magick@imagemagick.example", "precedence": "bulk"})
    parties = resolve_parties(s, rec, index=index)
    kinds = {s.get(Entity, x.entity_id).canonical_name: (s.get(Entity, x.entity_id).kind, x.role)
             for x in parties.links}
    assert kinds["magick-developer@imagemagick.example"] == ("thing", "list")
    assert kinds["markov@atcomputing.example"] == ("person", "cc")  # another domain: a person
    # outside list mail, or with a display name, such an address stays a person
    other = resolve_parties(s, R(P(None, "ann@lee.example"), [P("Magda Dev", "magick-dev@imagemagick.example",
                                                                 role="to")]), index=index)
    assert s.get(Entity, other.links[1].entity_id).kind == "person"


def test_an_address_many_unrelated_people_write_from_is_a_shared_mailbox(s):
    index = NameIndex()
    for name in ("Ana Lima", "Bo Chen", "Cy Dunn"):
        last = resolve_parties(s, R(P(name, "studio@shared.example")), index=index)
    box = [x for x in last.links if x.role == "list"]
    assert box and s.get(Entity, box[0].entity_id).kind == "thing"
    assert s.get(Entity, last.sender_id).canonical_name == "Cy Dunn"


def test_me_as_a_recipient_is_the_owner(s):
    parties = resolve_parties(s, R(P(None, "22000", "short_code"), [P("me", None, "handle", "member")], kind="chat"),
                              owner_name="Nic Owner")
    me = s.get(Entity, parties.links[1].entity_id)
    assert me.is_owner and me.canonical_name == "Nic Owner"


def test_the_full_name_an_address_spells():
    from core.graph.resolution import address_full_names

    assert address_full_names("elliott.anna@yahoo.com", "Anna") == ["anna elliott"]
    assert address_full_names("anna.elliott@x.example", "Anna") == ["anna elliott"]
    assert address_full_names("kenjidavis75@yahoo.com", "Kenji") == ["kenji davis"]
    assert address_full_names("aelliott@wayne.example", "Anna") == ["anna elliott"]
    assert address_full_names("samantha.thompson@yahoo.com") == ["samantha thompson", "thompson samantha"]
    assert address_full_names("anna@x.example", "Anna") == []          # only the first name: nothing more
    assert address_full_names("b.smith@x.example", "Anna") == []       # not her first name
    assert address_full_names("info42x@x.example") == []               # one word, no name given
    assert address_full_names("anna.elliott@x.example", "Anna Elliott") == []  # a full name needs no help


def test_a_bare_first_name_whose_address_spells_one_persons_full_name_joins_them(s):
    anna = resolve(s, "person", "Anna Elliott", "anna@wayne.example")
    res = resolve(s, "person", "Anna", "elliott.anna@yahoo.com")
    assert (res.entity.id, res.signal) == (anna.entity.id, "address_name")
    mc = s.get(MergeCandidate, res.merge_id)
    assert mc.reason == "'Anna': the address elliott.anna@yahoo.com spells the full name 'anna elliott'"
    assert mc.detail["hold"]  # two identifiers of their own: facts wait for the person's word
    bare = resolve(s, "person", None, "anna.elliott@gmx.de")  # no display name at all
    assert (bare.entity.id, bare.signal) == (anna.entity.id, "address_name")
    # two people with that name (two parties of one message are never merged): only a suggestion
    first = resolve(s, "person", "Omar Haddad", "omar@north.example")
    second = resolve(s, "person", "Omar Haddad", "+1 206 555 0100", "phone", context=Context(apart={first.entity.id}))
    assert second.entity.id != first.entity.id
    res = resolve(s, "person", "Omar", "haddad.omar@yahoo.com")
    assert res.created and (res.signal, res.score) == ("first_name", 0.6)
    assert res.matched_id in {first.entity.id, second.entity.id}
    assert s.get(MergeCandidate, res.review_id).status == "pending"


def test_a_departments_shared_mailbox_is_no_person(s):
    """hr@, team@, hello@, sales@ … (RFC 2142's role names and what organisations add) are mailboxes a team
    shares: with no name they are a thing, not a person ('hr@acme.example — 3 records' was listed among people and
    counted in 'how many people do I know?'); a sub-address's tag does not hide the role (team+testing@ is team@);
    a person writing from one is that person, by name, and the shared address is not hers."""
    from core.store.schema import Alias

    index = NameIndex()
    for address in ("hr@acme.example", "team+testing@mailpile.example", "Sales@Acme.example"):
        got = resolve_parties(s, R(P(None, address)), index=index)
        assert s.get(Entity, got.sender_id).kind == "thing", address
    jane = resolve_parties(s, R(P("Jane Roe", "hr@acme.example")), index=index)
    e = s.get(Entity, jane.sender_id)
    assert (e.kind, e.canonical_name) == ("person", "Jane Roe")
    assert "hr@acme.example" not in {a.value for a in s.exec(select(Alias).where(Alias.entity_id == e.id))}
    # a personal mailbox that starts like one is a person
    harry = resolve_parties(s, R(P(None, "hrafn@acme.example")), index=index)
    assert s.get(Entity, harry.sender_id).kind == "person"
