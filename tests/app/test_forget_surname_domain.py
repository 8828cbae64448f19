"""Forget, stop 25: after forgetting a person, her surname alone after a title or as a family ("Mrs Sapovits",
"the Sapovitses") and the mail domain that is hers alone ("sapovits-design.test" in a link) no longer stay in what
others wrote; a common-word surname written as a word, another live person's surname, a colleague's shared domain
and webmail stay.  Inputs written here; the right values are the texts as written, with the mentions replaced."""
from __future__ import annotations

from pathlib import Path

from app.operations.forget import forget
from app.operations.ingest import ingest
from helpers.files import rows, scan
from helpers.mboxes import write_mbox


def _texts(c) -> list[str]:
    return [t.strip() for (t,) in rows(c.settings.db_path, "SELECT text FROM record WHERE tombstoned_at IS NULL "
                                                           "ORDER BY id")]


def _setup(c, tmp_path: Path):
    c.settings.owner_name, c.settings.owner_emails = "Owner Person", ["owner@example.net"]
    box = write_mbox(tmp_path / "mail.mbox", [
        ("Greta Sapovits <greta@sapovits-design.test>", "Tiles", "The quince tiles are glazed."),
        ("Bruno Castellane <bruno@castellane.test>", "Dinner",
         "Mrs Sapovits sends her regards; the Sapovitses are coming on Friday. Their site www.sapovits-design.test "
         "has the photos."),
        ("Ida Young <ida@young-architects.test>", "Plans", "The plans are attached."),
        ("Noor Haddad <noor@studio-collective.test>", "Plans",
         "Young people love the plans. Mrs Young will review them. See young-architects.test for the drawings."),
        ("Bruno Castellane <bruno@castellane.test>", "Webmail", "Write to me at bruno.c@gmail.com instead."),
        ("Noor Haddad <noor@studio-collective.test>", "Studio", "Ask at studio-collective.test about the kiln."),
        ("Luca Ferri <luca@studio-collective.test>", "Studio", "I share the studio-collective.test mailbox."),
    ])
    rep = ingest(c, [box])
    assert rep.records_added == 7 and not rep.errors


def test_a_forgotten_persons_surname_and_own_domain_leave_others_text(container, tmp_path):
    c = container
    _setup(c, tmp_path)
    forget(c, "Greta Sapovits", purge=True)
    texts = _texts(c)
    assert ("[forgotten] sends her regards; [forgotten] are coming on Friday. Their site www.[forgotten] has the "
            "photos.") in texts
    assert scan(c.settings.home, ["Sapovits", "sapovits-design", "quince tiles"]) == {}


def test_what_is_not_hers_stays(container, tmp_path):
    c = container
    _setup(c, tmp_path)
    forget(c, "Ida Young", purge=True)
    texts = _texts(c)
    # her title-and-surname and her own domain go; "Young people" is a word, not her
    assert "Young people love the plans. [forgotten] will review them. See [forgotten] for the drawings." in texts
    forget(c, "Noor Haddad", purge=True)
    texts = _texts(c)
    # the studio's domain is Luca's address too: it stays in his mail
    assert "I share the studio-collective.test mailbox." in texts and not any("kiln" in t for t in texts)
    forget(c, "Bruno Castellane", purge=True)
    assert not any("gmail.com" in t or "Castellane" in t for t in _texts(c))  # his own mail is gone entirely


def test_a_surname_a_live_person_bears_too_stays_where_she_is_no_party(container, tmp_path):
    c = container
    c.settings.owner_name, c.settings.owner_emails = "Alex Morgan", ["alex@example.net"]
    box = write_mbox(tmp_path / "mail.mbox", [
        ("Jane Morgan <jane@morgan-family.test>", "alex@example.net", "Hi", "Lunch on Sunday?"),
        ("Bruno Castellane <bruno@castellane.test>", "alex@example.net", "Lease", "Mr Morgan, the lease is signed."),
        ("Bruno Castellane <bruno@castellane.test>", "pia@castellane.test", "Gossip", "Mrs Morgan bought the mill.")])
    assert ingest(c, [box]).records_added == 3
    forget(c, "Jane Morgan", purge=True)
    texts = _texts(c)
    # a live Morgan (the owner) bears the surname: "Mr Morgan" and "Mrs Morgan" may be his family, wherever Jane is
    # no party — kept; her own mail is gone
    assert "Mr Morgan, the lease is signed." in texts and "Mrs Morgan bought the mill." in texts
    assert not any("Lunch on Sunday" in t for t in texts)


def test_a_surname_a_live_person_bears_and_another_persons_full_name_stay(container, tmp_path):
    c = container
    c.settings.owner_name, c.settings.owner_emails = "Owner Person", ["owner@example.net"]
    box = write_mbox(tmp_path / "mail.mbox", [
        ("Greta Sapovits <greta@sapovits-design.test>", "Tiles", "The quince tiles are glazed."),
        ("Karl Sapovits <karl@sapovits.test>", "Hello", "Hello from Karl."),
        ("Sam Reed <sam@reed.test>", "pia@reed.test", "Gossip",
         "Mrs Sapovits and the Sapovitses came. Greta Thunberg spoke; Greta said hi; Greta Garbo films later.")])
    assert ingest(c, [box]).records_added == 3
    forget(c, "Greta Sapovits", purge=True)
    # Karl Sapovits is live: "Mrs Sapovits" may be his; Greta Thunberg and Greta Garbo are not her; "Greta said" is
    assert ("Mrs Sapovits and the Sapovitses came. Greta Thunberg spoke; [forgotten] said hi; Greta Garbo films "
            "later.") in _texts(c)


def test_a_surname_in_other_languages_titles_in_capitals_and_possessives_goes(container, tmp_path):
    c = container
    c.settings.owner_name, c.settings.owner_emails = "Owner Person", ["owner@example.net"]
    box = write_mbox(tmp_path / "mail.mbox", [
        ("Greta Sapovits <greta@sapovits-design.test>", "Tiles", "The quince tiles are glazed."),
        ("Sam Reed <sam@reed.test>", "pia@reed.test", "Gossip",
         "Frau Sapovits and Mme Sapovits met Ms. SAPOVITS at the Sapovits' house; Sapovits's dog barked.")])
    assert ingest(c, [box]).records_added == 2
    forget(c, "Greta Sapovits", purge=True)
    assert "[forgotten] and [forgotten] met [forgotten] at [forgotten] house; [forgotten] dog barked." in _texts(c)
    assert scan(c.settings.home, ["Sapovits", "SAPOVITS"]) == {}
