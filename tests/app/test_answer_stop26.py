"""Stop 26: the chat's memory answerer on questions it got wrong or could not answer — each fixed as a kind:
relationship questions asked the other way round ("who is Tom's wife?" when Emma wrote "my husband is Tom"),
"who are my siblings?" (every brother and sister), photos a WhatsApp chat sent whose files were not exported, a
month asked without its year, and the owner's own "your place" retold.  Inputs written here; the right answers are
worked out by hand from them."""
from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest

from app.loop import ConversationLoop
from app.models.llm import NoModel
from app.operations.ingest import ingest
from helpers.built import built_once, loop_on
from helpers.mboxes import write_mbox


def _said(reply: str) -> str:
    """The answer without its sources and citation marks."""
    return re.sub(r"\s*(?:\[\d+\])+$", "", reply.split("\n\nSources:")[0]).strip()


# ---- a data folder built once per module, each test on its own copy (a test's turns write the conversation,
# its trace and observations: nothing one test does reaches another) ----

def _as_owner(c, emails: bool = True):
    c.settings.owner_name = "Alex Morgan"
    if emails:
        c.settings.owner_emails = ["alex@morgan.example"]


def _build_family(c, tmp_path):
    _as_owner(c)
    box = write_mbox(tmp_path / "m.mbox", [
        ("Emma Stone <emma@stone.example>", "alex@morgan.example", "hi", "My husband is Tom."),
        ("Alex Morgan <alex@morgan.example>", "ben@carter.example", "re", "Nina's husband is Paul Grey."),
        ("Ben Carter <ben@carter.example>", "alex@morgan.example", "kids", "My son Max started school."),
        ("Alex Morgan <alex@morgan.example>", "ben@carter.example", "fam",
         "My brother Sam is visiting, and my sister Jane too."),
        ("Alex Morgan <alex@morgan.example>", "ben@carter.example", "fam2", "My sister Beth lives in Porto."),
        ("Ana Lima <ana@lima.example>", "alex@morgan.example", "news", "I now work for Dr. Patel at the clinic."),
    ], start=datetime(2023, 6, 1, 9, tzinfo=timezone.utc))
    assert ingest(c, [box]).records_added == 6


@pytest.fixture(scope="module")
def _family_home(tmp_path_factory):
    return built_once(tmp_path_factory, "family", _build_family)


@pytest.fixture
def family(request):
    yield from loop_on(request, "_family_home", _build_family, _as_owner)


@pytest.mark.parametrize("question, answer", [
    # the direction the message says it
    ("who is Emma's husband?", "Tom is Emma Stone's husband."),
    ("who is Nina's husband?", "Paul Grey is Nina's husband."),
    ("who is Ben's son?", "Max is Ben Carter's son."),
    # the other way round: an inverse relation
    ("who is Tom's wife?", "Tom is married to Emma Stone."),  # Emma's sex is not known
    ("what is Tom's wife's name?", "Tom is married to Emma Stone."),
    ("who is Paul's wife?", "Paul Grey is married to Nina."),
    ("who is Max's father?", "Ben Carter is Max's parent."),  # "my son Max": a parent
    ("who is Max's mother?", "Ben Carter is Max's parent."),
    ("who are Max's parents?", "Ben Carter is Max's parent."),
    ("who is Sam's sister?", "You are Sam's sibling."),
    ("who is Dr. Patel's employee?", "Ana Lima is Dr. Patel's employee."),
    # a kind asked as a whole: every one of it
    ("who are my siblings?", "Beth, Jane and Sam are your siblings."),
    ("who are my sisters?", "Beth and Jane are your sisters."),
    ("who are Ben's children?", "Max is Ben Carter's child."),
    ("who are my brothers and sisters?", "Beth, Jane and Sam are your siblings."),
    # other forms of the same questions
    ("who is the father of Max?", "Ben Carter is Max's parent."),
    ("who is the husband of Nina?", "Paul Grey is Nina's husband."),
    ("who is Max's dad?", "Ben Carter is Max's parent."),
    ("who is Emma's hubby?", "Tom is Emma Stone's husband."),
    ("who is Emma married to?", "Emma Stone is married to Tom."),
    ("who is Tom married to?", "Tom is married to Emma Stone."),
    ("whose husband is Tom?", "Tom is Emma Stone's husband."),
    ("whose son is Max?", "Max is Ben Carter's son."),
    ("how many siblings do I have?", "You have 3 siblings I know of: Beth, Jane and Sam."),
    ("how many sisters do I have?", "You have 2 sisters I know of: Beth and Jane."),
    ("how many kids does Ben have?", "Ben Carter has 1 child I know of: Max."),
])
def test_relationships_either_way(family, question, answer):
    reply = family.turn(question).reply
    assert _said(reply) == answer, reply
    assert "\n\nSources:\n[" in reply, reply  # the message that said so, cited


@pytest.mark.parametrize("question", ["who is Zed's wife?", "who is Quentin's father?", "who is Zed married to?",
                                      "whose wife is Zed?", "how many brothers does Zed have?"])
def test_someone_unknown_has_no_relative(family, question):
    assert family.turn(question).reply == "I found nothing about that."


def test_no_such_relative_is_said_so(family):
    assert family.turn("who is Ben's wife?").reply == "Nothing in your records says who Ben Carter's wife is."
    assert family.turn("who is my husband?").reply == "Nothing in your records says who your husband is."
    assert family.turn("who am I married to?").reply == "Nothing in your records says who your spouse is."
    assert family.turn("how many brothers does Ben have?").reply == \
        "Nothing in your records says Ben Carter has any brothers."
    # "my sister" (the owner's) is not Ben's: no sibling of Ben's is known
    assert family.turn("who are Ben's siblings?").reply == "Nothing in your records says who Ben Carter's sibling is."


# ---- photos a WhatsApp chat sent whose file is not in the export; the owner's own "your place" told back ----

TOM_CHAT = ("12/05/2023, 09:00 - Tom Hill: look at the kiln\n"
            "12/05/2023, 09:01 - Tom Hill: IMG-20230512-WA0003.jpg (file attached)\n"  # the file is in the export
            "12/05/2023, 09:02 - Tom Hill: <Media omitted>\n"
            "13/05/2023, 10:03 - Tom Hill: IMG-20230513-WA0005.jpg (file attached)\n"  # the file is not
            "13/05/2023, 10:04 - Tom Hill: notes.pdf (file attached)\n"  # no photo
            "13/05/2023, 10:05 - Tom Hill: you can come to my place on Sunday\n"
            "13/05/2023, 21:15 - Alex Morgan: IMG-20230513-WA0006.jpg (file attached)\n"
            "13/05/2023, 21:16 - Alex Morgan: come to your place on Saturday?\n")
ANA_CHAT = ("[14/05/2023, 09:00:00] Ana Lima: hello there\n"
            "[14/05/2023, 09:01:00] Ana Lima: \u200e<attached: 00000012-PHOTO-2023-05-14-09-01-00.jpg>\n"
            "[14/05/2023, 09:02:00] Ana Lima: \u200eimage omitted\n"
            "[14/05/2023, 09:03:00] Alex Morgan: I'll come to your place tomorrow\n")


def _build_chats(c, tmp_path):
    from PIL import Image

    _as_owner(c, emails=False)
    tom = tmp_path / "WhatsApp Chat with Tom Hill"
    tom.mkdir()
    Image.new("RGB", (8, 8), (200, 10, 10)).save(tom / "IMG-20230512-WA0003.jpg")
    (tom / "WhatsApp Chat with Tom Hill.txt").write_text(TOM_CHAT, encoding="utf-8")
    ana = tmp_path / "WhatsApp Chat - Ana Lima"
    ana.mkdir()
    (ana / "_chat.txt").write_text(ANA_CHAT, encoding="utf-8")
    rep = ingest(c, [tom, ana])
    assert (rep.records_added, rep.errors) == (13, [])  # 12 chat lines and the one photo file


@pytest.fixture(scope="module")
def _chats_home(tmp_path_factory):
    return built_once(tmp_path_factory, "chats", _build_chats)


@pytest.fixture
def chats(request):
    yield from loop_on(request, "_chats_home", _build_chats, lambda c: _as_owner(c, emails=False))


@pytest.mark.parametrize("question, answer", [
    # the photo imported (its line is that photo, counted once), "<Media omitted>", WA0005 not in the export
    ("how many photos did Tom send me?",
     "Tom Hill sent you 3 photos, in May 2023 (2 of them without their file: the export left them out)."),
    ("how many pictures has Tom sent me?",
     "Tom Hill sent you 3 photos, in May 2023 (2 of them without their file: the export left them out)."),
    ("how many photos did Tom share with me?",
     "Tom Hill sent you 3 photos, in May 2023 (2 of them without their file: the export left them out)."),
    ("how many photos did I get from Tom?",
     "Tom Hill sent you 3 photos, in May 2023 (2 of them without their file: the export left them out)."),
    ("how many photos has Tom sent me on WhatsApp?",
     "Tom Hill sent you 3 photos, in May 2023 (2 of them without their file: the export left them out)."),
    ("how many photos did Tom send me in 2023?",
     "Tom Hill sent you 3 photos in 2023, in May 2023 (2 of them without their file: the export left them out)."),
    # iOS: "<attached: …PHOTO….jpg>" with no file, "image omitted"
    ("how many photos did Ana send me?", "Ana Lima sent you 2 photos, on 14 May 2023 (the export left their files "
                                         "out)."),
    ("how many photos did I send Tom?", "You sent Tom Hill 1 photo, on 13 May 2023 (the export left its file out)."),
    # a month without its year: the May of the lines
    ("how many images did Tom send me in May?", "Tom Hill sent you 3 photos in May 2023, from 12 May 2023 to 13 May "
                                                "2023 (2 of them without their file: the export left them out)."),
    ("how many pics did Ana send me in may?", "Ana Lima sent you 2 photos in May 2023, on 14 May 2023 (the export left "
                                              "their files out)."),
])
def test_a_photo_line_counts_without_its_file(chats, question, answer):
    assert chats.turn(question).reply == answer


def test_photos_from_someone_unknown_are_not_guessed(chats):
    assert chats.turn("how many photos did Zed send me?").reply == "I found nothing about that."


@pytest.mark.parametrize("question, answer", [
    # the owner to Tom: "your place" is Tom's, never the owner's own
    ("where will I go on Saturday?", "Come to Tom Hill's place on Saturday?"),
    ("whose place will I go to tomorrow?", "You'll come to Ana Lima's place tomorrow"),
])
def test_the_owners_own_you_is_whom_they_wrote_to(chats, question, answer):
    assert _said(chats.turn(question).reply) == answer


def test_anothers_my_place_is_theirs(chats):
    # Tom's "you can come to my place": "you" is the owner he wrote to, "my" is Tom's
    assert _said(chats.turn("where can I go on Sunday?").reply) == "You can come to Tom Hill's place on Sunday"


# ---- a month asked without its year ----

def _build_photos(container, tmp_path):
    from helpers.photos import write_photo

    u = timezone.utc
    for i, when in enumerate([datetime(2022, 6, 3, 10, tzinfo=u), datetime(2022, 6, 20, 10, tzinfo=u),
                              datetime(2024, 6, 5, 10, tzinfo=u), datetime(2024, 6, 28, 10, tzinfo=u),
                              datetime(2024, 7, 2, 10, tzinfo=u)]):
        write_photo(tmp_path / "p" / f"p{i}.jpg", when, 38.72, -9.14)
    assert ingest(container, [tmp_path / "p"]).records_added == 5


@pytest.fixture(scope="module")
def _photos_home(tmp_path_factory):
    return built_once(tmp_path_factory, "photos", _build_photos)


@pytest.fixture
def photos(request):
    yield from loop_on(request, "_photos_home", _build_photos, lambda c: None)


@pytest.mark.parametrize("now, question, answer", [
    # the latest June with photos (none in 2023 or 2025), said with its year
    (datetime(2025, 12, 1), "how many photos did I take in June?",
     "You took 2 photos in June 2024, from 5 June 2024 to 28 June 2024."),
    (datetime(2025, 12, 1), "How many pictures did I take in july", "You took 1 photo in July 2024, on 2 July 2024."),
    # June not yet begun this year: last year's has none, the one before it has
    (datetime(2024, 5, 10), "how many photos did I take in June?",
     "You took 2 photos in June 2022, from 3 June 2022 to 20 June 2022."),
    # this June, going on
    (datetime(2024, 6, 10), "how many photos did I take in June?",
     "You took 2 photos in June 2024, from 5 June 2024 to 28 June 2024."),
    # no March with photos: this year's March, said so
    (datetime(2025, 3, 15), "how many photos did I take in March?", "You took 0 photos in March 2025."),
    # a year said is kept
    (datetime(2025, 12, 1), "how many photos did I take in June 2022?",
     "You took 2 photos in June 2022, from 3 June 2022 to 20 June 2022."),
    # other words for it: a month's short name, "images", "do I have from"
    (datetime(2025, 12, 1), "how many images did I take in Jun?",
     "You took 2 photos in June 2024, from 5 June 2024 to 28 June 2024."),
    (datetime(2025, 12, 1), "how many photos do I have from June?",
     "You have 2 photos in June 2024, from 5 June 2024 to 28 June 2024."),
    # "last June": the latest June gone by, with photos or not; "this June": this year's
    (datetime(2025, 3, 1), "how many photos did I take last June?",
     "You took 2 photos in June 2024, from 5 June 2024 to 28 June 2024."),
    (datetime(2025, 7, 1), "how many photos did I take last June?", "You took 0 photos in June 2025."),
    (datetime(2024, 7, 15), "how many photos did I take this June?",
     "You took 2 photos in June 2024, from 5 June 2024 to 28 June 2024."),
    # other questions about a month without its year
    (datetime(2025, 12, 1), "where was I in June?",
     "In June 2024, you were in Lisbon, Lisbon, Portugal (2 photos, first on 5 June 2024)."),
    (datetime(2025, 12, 1), "what happened in June?", "In June 2024: 2 photos; photos at Lisbon, Lisbon, Portugal (2)."),
])
def test_a_month_without_its_year(photos, now, question, answer):
    from core import clock

    with clock.frozen(now.replace(tzinfo=timezone.utc)):
        assert photos.turn(question).reply == answer


def test_siblings_from_every_fact_either_way(container, tmp_path):
    # the owner names a brother and two sisters; Sam and Lucy, writing to the owner, call the owner their brother
    c = container
    c.settings.owner_name, c.settings.owner_emails = "Alex Morgan", ["alex@morgan.example"]
    box = write_mbox(tmp_path / "s.mbox", [
        ("Alex Morgan <alex@morgan.example>", "ben@carter.example", "fam",
         "My brother Sam is visiting, and my sister Jane too."),
        ("Alex Morgan <alex@morgan.example>", "ben@carter.example", "fam2", "My sister Beth lives in Porto."),
        ("Sam Morgan <sam@morgan.example>", "alex@morgan.example", "bday", "My brother Alex is turning 40 soon!"),
        ("Lucy Morgan <lucy@morgan.example>", "alex@morgan.example", "hi", "Tell my brother Alex I said hi."),
    ], start=datetime(2023, 6, 1, 9, tzinfo=timezone.utc))
    assert ingest(c, [box]).records_added == 4
    loop = ConversationLoop.for_container(c, model=NoModel())
    # "Sam" (the owner's word) and Sam Morgan are one; Lucy's sex is not known: a sibling, not a brother
    assert _said(loop.turn("who are my siblings?").reply) == "Beth, Jane, Lucy Morgan and Sam Morgan are your siblings."
    assert _said(loop.turn("who are my brothers?").reply) == "Sam is your brother."
    assert _said(loop.turn("who are my sisters?").reply) == "Beth and Jane are your sisters."
    assert _said(loop.turn("who is Lucy's brother?").reply) == "You are Lucy Morgan's brother."
    assert _said(loop.turn("how many siblings do I have?").reply) == \
        "You have 4 siblings I know of: Beth, Jane, Lucy Morgan and Sam Morgan."


def _build_phrasings(c, tmp_path):
    _as_owner(c)
    box = write_mbox(tmp_path / "p.mbox", [
        ("Emma Stone <emma@stone.example>", "alex@morgan.example", "hi", "Hi! My husband's name is Tom, he says hello."),
        ("Kate Bell <kate@bell.example>", "alex@morgan.example", "hi", "Rob is my husband, by the way."),
        ("Alex Morgan <alex@morgan.example>", "ben@carter.example", "re", "Nina's husband, Paul Grey, called."),
        ("Alex Morgan <alex@morgan.example>", "ben@carter.example", "re2", "Gus is Lena's brother."),
        ("Dan Ross <dan@ross.example>", "alex@morgan.example", "kids", "My daughter is called Mia."),
    ], start=datetime(2023, 6, 1, 9, tzinfo=timezone.utc))
    assert ingest(c, [box]).records_added == 5


@pytest.fixture(scope="module")
def _phrasings_home(tmp_path_factory):
    return built_once(tmp_path_factory, "phrasings", _build_phrasings)


@pytest.fixture
def phrasings(request):
    yield from loop_on(request, "_phrasings_home", _build_phrasings, _as_owner)


@pytest.mark.parametrize("question, answer", [
    ("who is Emma's husband?", "Tom is Emma Stone's husband."),
    ("who is Tom's wife?", "Tom is married to Emma Stone."),  # Emma's sex is not known
    ("who is Kate's husband?", "Rob is Kate Bell's husband."),
    ("who is Rob's wife?", "Rob is married to Kate Bell."),
    ("who is Nina's husband?", "Paul Grey is Nina's husband."),  # "Nina's husband, Paul Grey, called"
    ("who is Paul's wife?", "Paul is married to Nina."),
    ("who is Lena's brother?", "Gus is Lena's brother."),
    ("who is Gus's sister?", "Lena is Gus's sibling."),
    ("who is Mia's father?", "Dan Ross is Mia's parent."),
    ("who is Dan's daughter?", "Mia is Dan Ross's daughter."),
    ("whose daughter is Mia?", "Mia is Dan Ross's daughter."),
    ("whose husband is Paul?", "Paul is Nina's husband."),
])
def test_other_ways_of_saying_a_relationship(phrasings, question, answer):
    assert _said(phrasings.turn(question).reply) == answer


def test_whose_asks_the_relation_it_names(phrasings):
    # Dan wrote "my daughter": Mia is no one's son
    assert phrasings.turn("whose son is Mia?").reply == "Nothing in your records says whose son Mia is."


def test_a_photo_in_the_exports_media_folder_is_counted_once(container, tmp_path):
    from PIL import Image

    folder = tmp_path / "export"
    (folder / "Media").mkdir(parents=True)
    Image.new("RGB", (8, 8), (200, 10, 10)).save(folder / "Media" / "IMG-20230512-WA0003.jpg")
    (folder / "WhatsApp Chat mit Teddy Q.txt").write_text(
        "12.05.23, 09:00 - Teddy Q: schau mal\n"
        "12.05.23, 09:01 - Teddy Q: IMG-20230512-WA0003.jpg (Datei angehängt)\n"  # its file, imported
        "12.05.23, 09:02 - Teddy Q: <Medien ausgeschlossen>\n", encoding="utf-8")  # German "<Media omitted>"
    assert ingest(container, [folder]).records_added == 4
    loop = ConversationLoop.for_container(container, model=NoModel())
    assert loop.turn("how many photos did Teddy send me?").reply == \
        "Teddy Q sent you 2 photos, on 12 May 2023 (1 of them without its file: the export left it out)."


@pytest.mark.parametrize("said, told", [
    ("come to your place on Saturday?", "Come to their place on Saturday?"),
    ("Can I come to yours tomorrow?", "Can you come to theirs tomorrow?"),
    ("you should come to my place", "They should come to your place"),
    ("Thank you for having me at your place", "Thank them for having you at their place"),
    ("can u come to ur place", "Can they come to their place"),
    ('She said "come to your place" to me', 'She said "come to your place" to you'),  # quoted words as written
])
def test_the_owners_own_message_told_back(said, told):
    # the owner's own message (what the chat's answer retells): its "you" is whom it was written to, its "I" the owner
    from app.answer import best_sentence

    assert best_sentence("place", said, "Alex Morgan", owner="Alex Morgan") == told
    # another's message keeps "you" (the owner it was written to) and makes "my" theirs
    assert best_sentence("place", "you can come to my place", "Tom Hill", owner="Alex Morgan") == \
        "You can come to Tom Hill's place"
