"""Forget, pass 23: one person under several aliases (two mail addresses, a phone number, a nickname on a card)
across mail, WhatsApp and an address book, a place by its own name, a file Kith could not read, and the turns
of the chat with Kith that quoted them.  Every test writes its own inputs; the right values come from them:
what the person wrote must be in no file of the data folder after a purge, and what others wrote stays.

Faults these tests pinned (each a kind):

* a reply in the chat with Kith keeps its sources listing in the personalization ledger's ``message`` row, so
  the words of a forgotten person's mail stayed in the data folder after ``forget --purge``;
* a person forgotten (hidden, restorable) came back, as a new person, when a later import brought a mail from
  their address (next month's export);
* a place could not be forgotten by its own name ("Arezzo" for "Arezzo, Tuscany, Italy");
* a file Kith could not read at all (only in the list of what could not be read, with a name in its reason)
  could not be forgotten (``no imported file``);
* forget, *Restore*, then forget for good left the name in the restored forget's label and plan;
* copies in the data folder's Inbox kept her words after a purge, and the window's next start imported her back;
* a kept photo's file name and its memory's citation of its folder named her;
* a summary (or a chat turn) read before another process erased her was saved after it, with her name;
* her phone number in the way her own country writes it, her mail quoted under a German, Italian or Dutch
  attribution, or under an Outlook header in another language, stayed in others' messages;
* the learning-log entry of a redacted message kept the names split from the address it spelled.
"""
from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from pathlib import Path

from app.operations.entities import find_entity
from app.operations.forget import forget, plan_forget, restore
from app.operations.ingest import ingest
from core.store.forgetting import Target
from helpers.files import scan
from helpers.mboxes import write_mbox
from helpers.photos import write_photo

THEO = "Theodora Quillfeather"
HER_WORDS = ["marzipan oboe recital", "periwinkle trebuchet", "umber colander", "kiln needs a second firing"]
HER_IDS = ["Theodora", "Quillfeather", "teddyq@fastmail.test", "theodora.quillfeather@quillworks.io",
           "+44 7700 900123", "447700900123"]


def _card(path: Path) -> Path:
    path.write_bytes("\r\n".join([
        "BEGIN:VCARD", "VERSION:3.0", "N:Quillfeather;Theodora;;;", f"FN:{THEO}", "NICKNAME:Teddy Q",
        "TEL;type=CELL:+44 7700 900123", "EMAIL:theodora.quillfeather@quillworks.io", "EMAIL:teddyq@fastmail.test",
        "END:VCARD", ""]).encode())
    return path


def _setup(c, tmp_path: Path) -> None:
    c.settings.owner_name, c.settings.owner_emails = "Owner Person", ["owner@example.net"]
    box = write_mbox(tmp_path / "mail.mbox", [
        (f"{THEO} <theodora.quillfeather@quillworks.io>", "Kiln schedule",
         "The kiln needs a second firing on Thursday for the glaze."),
        ("Teddy <teddyq@fastmail.test>", "weekend", "Bring the periwinkle trebuchet to the allotment."),
        ("Bruno Castellane <bruno@castellane.test>", "Pottery", "My ochre lantern works again, finally.")])
    chat = tmp_path / "WhatsApp Chat with Teddy Q.txt"
    chat.write_text("12/05/2023, 09:00 - Teddy Q: the marzipan oboe recital is at 7\n"
                    "12/05/2023, 09:01 - Owner Person: see you there\n"
                    "12/05/2023, 09:02 - Teddy Q: and bring the umber colander\n", encoding="utf-8")
    rep = ingest(c, [_card(tmp_path / "contacts.vcf"), box, chat])
    assert rep.records_added == 7 and not rep.errors  # the card, 3 mails, 3 chat lines
    theo = find_entity(c, "Teddy Q")
    assert find_entity(c, "teddyq@fastmail.test").id == theo.id == find_entity(c, "+44 7700 900123").id


def _ledger_texts(c) -> list[str]:
    db = sqlite3.connect(str(c.settings.db_path))
    try:
        return [t for (t,) in db.execute("SELECT text FROM message WHERE record_ref IS NULL ORDER BY id")]
    finally:
        db.close()


def _chat(c, question: str) -> str:
    from app.loop import ConversationLoop
    from app.models.llm import NoModel

    return ConversationLoop.for_container(c, model=NoModel()).turn(question).reply


def test_a_chat_reply_that_quoted_a_forgotten_persons_mail_keeps_none_of_her_words(container, tmp_path):
    c = container
    _setup(c, tmp_path)
    reply = _chat(c, "when is the kiln firing?")
    assert "second firing" in reply  # the reply (and its sources listing) quotes her mail
    _chat(c, "is my ochre lantern working?")
    before = _ledger_texts(c)
    assert any("second firing" in t for t in before)

    plan = plan_forget(c, "Teddy Q")
    rep = forget(c, "Teddy Q")  # hidden first: the ledger's copy goes at once, and comes back on restore
    assert rep.counts["personal"] == plan.counts["personal"]
    after = _ledger_texts(c)
    assert not any("second firing" in t for t in after)
    assert "[forgotten]" in after
    assert any("ochre lantern" in t for t in after)  # Bruno's mail and the question about it stay
    restore(c, rep.forget_id)
    assert _ledger_texts(c) == before

    forget(c, "Teddy Q", purge=True)
    assert scan(c.settings.home, HER_WORDS + HER_IDS) == {}
    assert "ochre lantern" in scan(c.settings.home, ["ochre lantern"])  # what others wrote stays


def test_a_forgotten_person_writing_again_in_a_later_import_stays_forgotten(container, tmp_path):
    c = container
    _setup(c, tmp_path)
    hidden = forget(c, THEO)
    later = write_mbox(tmp_path / "june.mbox", [
        ("Teddy <teddyq@fastmail.test>", "hello again", "The tangerine harpsichord arrives on Friday."),
        ("Bruno Castellane <bruno@castellane.test>", "Lantern", "The saffron lantern is sold.")],
        start=datetime(2023, 6, 5, 10, tzinfo=timezone.utc))
    rep = ingest(c, [later])
    assert rep.records_added == 2
    assert rep.forgotten_again == ["Teddy (person)"]
    db = sqlite3.connect(str(c.settings.db_path))
    try:
        live = db.execute("SELECT count(*) FROM alias a JOIN entity e ON e.id = a.entity_id WHERE e.tombstoned_at "
                          "IS NULL AND a.normalized = 'teddyq@fastmail.test'").fetchone()[0]
        kept = [t for (t,) in db.execute("SELECT text FROM record WHERE tombstoned_at IS NULL")]
    finally:
        db.close()
    assert live == 0
    assert not any("tangerine" in t for t in kept) and any("saffron lantern" in t for t in kept)
    from app.operations.ask import ask

    assert not any("tangerine" in r.text for r in ask(c, "tangerine harpsichord", k=5))
    # the first forget is still hers to restore; the second is listed beside it
    restore(c, hidden.forget_id)
    assert find_entity(c, THEO).id


def test_a_place_is_forgotten_by_its_own_name_with_its_photos(container, tmp_path):
    c = container
    when = datetime(2023, 5, 20, 10, tzinfo=timezone.utc)
    write_photo(tmp_path / "p" / "IMG_0001.jpg", when, 43.4633, 11.8796)
    write_photo(tmp_path / "p" / "IMG_0002.jpg", when.replace(hour=11), 43.4640, 11.8800,
                colours=((200, 100, 50), (10, 20, 30)))
    write_photo(tmp_path / "p" / "IMG_0003.jpg", datetime(2023, 6, 1, 11, tzinfo=timezone.utc), 51.5007, -0.1246,
                colours=((20, 200, 50), (10, 90, 30)))
    assert ingest(c, [tmp_path / "p"]).records_added == 3
    arezzo = find_entity(c, "arezzo")
    assert arezzo.kind == "place" and arezzo.canonical_name.startswith("Arezzo, ")
    assert plan_forget(c, "Arezzo").records == 2
    forget(c, "Arezzo", purge=True)
    assert scan(c.settings.home, ["Arezzo", "Tuscany"]) == {}
    db = sqlite3.connect(str(c.settings.db_path))
    try:
        left = [t for (t,) in db.execute("SELECT text FROM record")]
    finally:
        db.close()
    assert len(left) == 1 and "London" in left[0]


def test_a_file_kith_could_not_read_is_forgotten_from_the_list_of_what_could_not_be_read(container, tmp_path):
    c = container
    bad = tmp_path / "broken.vcf"
    bad.write_bytes(b"BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Theodora Quillfeather\r\nEMAIL;garbage\r\n")
    rep = ingest(c, [bad])
    assert rep.errors and "Theodora Quillfeather" in rep.errors[0].reason

    def listed() -> list[str]:
        db = sqlite3.connect(str(c.settings.db_path))
        try:
            return [r for (r,) in db.execute("SELECT reason FROM quarantineitem")]
        finally:
            db.close()
    first = listed()
    plan = plan_forget(c, Target.source(str(bad)))
    assert plan.counts["graph"]["quarantine"] == 1 and plan.label == "broken.vcf (file)"
    hidden = forget(c, Target.source(str(bad)))
    assert listed() == []
    restore(c, hidden.forget_id)
    assert listed() == first
    forget(c, Target.source(str(bad)), purge=True)
    assert scan(c.settings.home, ["Quillfeather", "broken.vcf"]) == {}


def test_forget_restore_then_forget_for_good_leaves_no_name_in_the_list_of_forgets(container, tmp_path):
    c = container
    _setup(c, tmp_path)
    first = forget(c, "Teddy Q")
    restore(c, first.forget_id)
    forget(c, "Teddy Q", purge=True)
    assert scan(c.settings.home, HER_WORDS + HER_IDS) == {}
    from app.operations.forget import list_forgotten

    labels = {f.forget_id: f.label for f in list_forgotten(c, include_done=True)}
    assert labels[first.forget_id] == f"entity #{first.forget_id}"


def test_a_purge_deletes_the_inbox_copies_that_held_the_forgotten_person(container, tmp_path):
    """Files dropped into ``<data folder>/Inbox`` stay there and are offered again at the window's next start:
    after a purge they held her words, and importing them again brought her back."""
    from app.watch import inbox_folder

    c = container
    c.settings.owner_name, c.settings.owner_emails = "Owner Person", ["owner@example.net"]
    inbox = inbox_folder(c)
    chat = inbox / "WhatsApp Chat with Teddy Q.txt"
    chat.write_text("12/05/2023, 09:00 - Teddy Q: the marzipan oboe recital is at 7\n"
                    "12/05/2023, 09:01 - Owner Person: see you there\n", encoding="utf-8")
    other = inbox / "bruno.mbox"
    write_mbox(other, [("Bruno Castellane <bruno@castellane.test>", "Pottery", "My ochre lantern works again.")])
    _card(inbox / "contacts.vcf")
    (inbox / "old.vcf").write_bytes(f"BEGIN:VCARD\r\nVERSION:3.0\r\nFN:{THEO}\r\n".encode())  # cannot be read
    first = ingest(c, [inbox])
    assert first.records_added == 4 and len(first.errors) == 1
    plan = plan_forget(c, "Teddy Q")
    assert plan.counts["graph"]["inbox_files"] == 3  # her chat, her card, her broken card; Bruno's mail is not hers
    hidden = forget(c, "Teddy Q")
    assert chat.is_file()  # restorable: nothing is deleted yet
    restore(c, hidden.forget_id)
    rep = forget(c, "Teddy Q", purge=True)
    assert rep.purged["forgets"][rep.forget_id]["inbox_files"] == 3
    assert sorted(p.name for p in inbox.iterdir()) == ["bruno.mbox"]
    assert scan(c.settings.home, ["marzipan", "Quillfeather", "Teddy"]) == {}
    again = ingest(c, [inbox])  # what the window does with the Inbox at its next start
    assert again.records_added == 0
    assert "ochre lantern" in scan(c.settings.home, ["ochre lantern"])


def test_a_photo_whose_file_or_folder_is_named_after_the_forgotten_person_keeps_no_name(container, tmp_path):
    """The photo stays (it is not hers), but its record's file name and its memory's citation of the file named
    her after a purge ("Theodora_Quillfeather_birthday.jpg", "Teddy Q party/IMG_2000.jpg")."""
    c = container
    _setup(c, tmp_path)
    named = write_photo(tmp_path / "Theodora_Quillfeather_birthday.jpg", datetime(2023, 7, 1, 12, tzinfo=timezone.utc),
                        48.8566, 2.3522, colours=((10, 10, 200), (200, 10, 10)))
    folder = write_photo(tmp_path / "Teddy Q party" / "IMG_2000.jpg", datetime(2023, 7, 2, 12, tzinfo=timezone.utc),
                         48.8570, 2.3530, colours=((10, 200, 200), (20, 10, 10)))
    assert ingest(c, [named, folder]).records_added == 2

    def photos() -> list[tuple[str, str]]:
        db = sqlite3.connect(str(c.settings.db_path))
        try:
            return db.execute("SELECT r.external_id, e.provenance FROM record r JOIN episode e ON e.record_id = r.id "
                              "WHERE r.kind = 'photo' ORDER BY r.id").fetchall()
        finally:
            db.close()
    before = photos()
    hidden = forget(c, THEO)
    assert sorted(x for x, _ in photos()) == ["IMG_2000.jpg", "[forgotten]_birthday.jpg"]
    assert all("Teddy" not in p and "Quillfeather" not in p for _, p in photos())
    restore(c, hidden.forget_id)
    assert photos() == before
    forget(c, THEO, purge=True)
    assert len(photos()) == 2  # both photos stay
    assert scan(c.settings.home, HER_IDS + ["Teddy"]) == {}


def test_a_summary_written_while_another_process_forgets_someone_does_not_bring_their_name_back(container,
                                                                                                 tmp_path):
    """The summaries after an import are read outside the writer lock and saved under it: a person erased by
    another Kith in between (``kith forget --purge`` while ``kith ingest`` summarises) came back by name in the
    owner's summary ("Written to by … Person2 Surname2 …").  The forget here runs inside the model call, which
    sits exactly in that gap."""
    from app.jobs import regenerate_summaries

    c = container
    _setup(c, tmp_path)
    forgot: list[int] = []

    def generate(prompt: str) -> str:
        if not forgot:
            forgot.append(forget(c, THEO, purge=True).forget_id)
        return prompt.split("Facts:\n", 1)[-1].split("facts:\n", 1)[-1]  # the text it was asked about

    regenerate_summaries(c, generate=generate)
    assert forgot
    db = sqlite3.connect(str(c.settings.db_path))
    try:
        texts = [t for (t,) in db.execute("SELECT text FROM summary")]
    finally:
        db.close()
    assert texts and not any("Theodora" in t or "Quillfeather" in t or "Teddy" in t for t in texts)
    assert scan(c.settings.home, HER_IDS + ["Teddy"]) == {}


def test_a_forgotten_phone_number_written_the_way_its_country_writes_it_is_redacted(container, tmp_path):
    """A friend in Britain writes the forgotten +44 number as "07700 900123" or "0044 7700 900123": with the
    settings' region the US (the default), neither was read as her number and both stayed after a purge."""
    c = container
    _setup(c, tmp_path)
    box = write_mbox(tmp_path / "bruno.mbox", [
        ("Bruno Castellane <bruno@castellane.test>", "Numbers",
         "Her mobile is 07700 900123, or 0044 7700 900123. Mine is 020 7946 0018, call me.")],
        start=datetime(2023, 6, 1, 9, tzinfo=timezone.utc))
    assert ingest(c, [box]).records_added == 1
    forget(c, THEO, purge=True)
    db = sqlite3.connect(str(c.settings.db_path))
    try:
        (text,) = db.execute("SELECT text FROM record WHERE subject = 'Numbers'").fetchone()
    finally:
        db.close()
    assert text.strip() == "Her mobile is [forgotten], or [forgotten]. Mine is 020 7946 0018, call me."
    assert scan(c.settings.home, ["900123"]) == {}


def test_a_chat_reply_made_while_another_process_erases_what_it_recalled_keeps_none_of_it(container, tmp_path):
    """The chat recalls outside the writer lock and keeps the turn under it: a person erased by another Kith in
    between (``kith forget --purge`` while the window answers) came back in the kept reply and its copy in the
    personalization ledger.  The forget here runs right after recall, exactly in that gap."""
    from app.loop import ConversationLoop
    from app.models.llm import NoModel
    from app.operations.ask import ask
    from app.operations.conversations import open_conversation

    c = container
    _setup(c, tmp_path)

    def recall(text: str):
        found = ask(c, text, trace=True)
        forget(c, THEO, purge=True)
        return found
    loop = ConversationLoop.for_container(c, model=NoModel(), recall=recall)
    assert "second firing" in loop.turn("when is the kiln firing?").reply  # what was shown, before the erase
    kept = open_conversation(c, loop.conversation)
    assert kept.turns[1].text == "[forgotten]" and not kept.turns[1].memories
    assert _ledger_texts(c)[-1] == "[forgotten]"
    assert scan(c.settings.home, HER_WORDS + HER_IDS) == {}


def test_someone_else_with_the_forgotten_persons_name_at_another_address_is_not_forgotten(container, tmp_path):
    """A later import's mail from the same name at an unrelated address is another person: only an address,
    number, handle or card of the hidden person forgets a newcomer again."""
    c = container
    _setup(c, tmp_path)
    forget(c, THEO)
    later = write_mbox(tmp_path / "july.mbox", [
        (f"{THEO} <t.q@otherplace.example>", "Choir", "The choir sings on Sunday at the abbey.")],
        start=datetime(2023, 7, 9, 10, tzinfo=timezone.utc))
    rep = ingest(c, [later])
    assert rep.records_added == 1 and rep.forgotten_again == []
    assert find_entity(c, "t.q@otherplace.example").canonical_name == THEO


def test_her_words_quoted_under_an_attribution_in_another_language_go_with_her(container, tmp_path):
    """German, Italian and Dutch mail clients put the verb before the name ("Am … schrieb X <x@…>:", "Op …
    schreef X:") or write "ha scritto:": the quoted block under such a line is the forgotten person's own mail
    and stayed, word for word, in the reply after a purge."""
    c = container
    _setup(c, tmp_path)
    box = write_mbox(tmp_path / "quotes.mbox", [
        ("Bruno Castellane <bruno@castellane.test>", "AW: Kiln",
         f"Ja, gerne.\n\nAm 01.05.2023 um 10:00 schrieb {THEO} <theodora.quillfeather@quillworks.io>:\n"
         "> Der Brennofen braucht einen zweiten Brand wegen der lapislazuli Glasur.\n> Gruss\n"),
        ("Bruno Castellane <bruno@castellane.test>", "R: Kiln",
         f"Va bene.\n\nIl giorno lun 1 mag 2023 alle ore 10:00 {THEO} <theodora.quillfeather@quillworks.io> "
         "ha scritto:\n> Il forno ha bisogno di una seconda cottura per lo smalto ossidiana.\n"),
        ("Bruno Castellane <bruno@castellane.test>", "Re: Kiln",
         "Ok.\n\nOp ma 1 mei 2023 om 10:00 schreef Teddy <teddyq@fastmail.test>:\n"
         "> De oven heeft een tweede stook nodig voor het kobaltgroen glazuur.\n")],
        start=datetime(2023, 5, 2, 9, tzinfo=timezone.utc))
    assert ingest(c, [box]).records_added == 6  # each reply, and the message it quotes as its writer's (stop 26)
    forget(c, THEO, purge=True)
    db = sqlite3.connect(str(c.settings.db_path))
    try:
        texts = [t.strip() for (t,) in db.execute("SELECT text FROM record WHERE subject LIKE '%Kiln' ORDER BY id")]
    finally:
        db.close()
    # the mail quoted in each reply is her record (Teddy too is her), gone with her; the replies are Bruno's lines
    assert texts == ["Ja, gerne.", "Va bene.", "Ok."]
    assert scan(c.settings.home, ["lapislazuli", "ossidiana", "kobaltgroen"]) == {}


def test_an_outlook_style_forward_headed_in_swedish_or_russian_goes_with_her():
    """Outlook heads a forwarded or replied-to mail with "From:" in the client's language ("Från:", "От:",
    "Od:", "Fra:", "发件人:"): under a header naming the forgotten person, what follows is her mail."""
    from core.graph.redact import Redactor

    red = Redactor.from_aliases([("name", THEO, THEO.casefold()),
                                 ("email", "theodora.quillfeather@quillworks.io", "theodora.quillfeather@quillworks.io")])
    for head in ("Från", "От", "Od", "Fra", "发件人"):
        text = (f"Hej, se nedan.\n\n{head}: {THEO} <theodora.quillfeather@quillworks.io>\nSkickat: den 1 maj 2023\n"
                "Ämne: Ugn\n\nUgnen behöver en andra bränning för den safirblå glasyren.\n")
        assert red.redact(text).strip() == "Hej, se nedan.\n\n[forgotten message]", head


def test_the_learning_log_of_a_kept_message_that_spelled_her_address_keeps_no_part_of_it(container, tmp_path):
    """Bruno's mail gives her address in capitals ("Theodora.Quillfeather@QuillWorks.io"); the memory's log entry
    for it listed the entities it named split from the address ("theodora", "quillfeather", "quillworks"), and
    the forget redacted the mail but left the log entry."""
    c = container
    _setup(c, tmp_path)
    box = write_mbox(tmp_path / "bruno.mbox", [
        ("Bruno Castellane <bruno@castellane.test>", "Mail", "Write to Theodora.Quillfeather@QuillWorks.io today.")],
        start=datetime(2023, 6, 1, 9, tzinfo=timezone.utc))
    assert ingest(c, [box]).records_added == 1
    forget(c, THEO, purge=True)
    assert scan(c.settings.home, ["Theodora", "Quillfeather", "QuillWorks"]) == {}
    db = sqlite3.connect(str(c.settings.db_path))
    try:
        (text,) = db.execute("SELECT text FROM record WHERE subject = 'Mail'").fetchone()
    finally:
        db.close()
    assert text.strip() == "Write to [forgotten] today."


def test_the_writers_own_words_quoted_under_a_line_naming_her_stay():
    """A line naming her that ends with ':' but carries no date or address is the writer's own introduction:
    what it quotes is not her mail."""
    from core.graph.redact import Redactor

    red = Redactor.from_aliases([("name", THEO, THEO.casefold())])
    text = f"Here is what I sent {THEO}:\n> The lantern is ready on Friday.\n"
    assert red.redact(text) == "Here is what I sent [forgotten]:\n> The lantern is ready on Friday.\n"
