"""Mentions of a forgotten person in text that stays (issue 11): names, addresses, phones, quoted mail."""
from __future__ import annotations

from core.graph.redact import Redactor, drop_attributed_quotes

STEVE = Redactor(names=["Steve Sapovits"], emails=["SapovitsS@globalsportsinc.com"], phones=["+16104917087"])


def test_names_addresses_and_phone_numbers_in_any_form():
    text = ("Ask Steve  Sapovits (sapovitss@GlobalSportsInc.com, 610-491-7087 or +1 (610) 491 7087); "
            "steve sapovits knows. Steve Dotson does not.")
    out = STEVE.redact(text)
    assert out == ("Ask [forgotten] ([forgotten], [forgotten] or [forgotten]); [forgotten] knows. "
                   "Steve Dotson does not.")
    assert STEVE.mentions(text) and not STEVE.mentions(out)
    assert not STEVE.mentions("Call 610-491-7088 about Steve.")  # another number, another Steve


def test_one_word_names_keep_their_case_in_prose_but_not_in_machine_fields():
    ivo = Redactor(names=["Ivo"])
    assert ivo.redact("Thanks Ivo, see you.") == "Thanks [forgotten], see you."
    assert ivo.redact("ivory and ivo") == "ivory and ivo"          # prose: lower-case "ivo" is not the name
    assert ivo.redact("entity:ivo", loose=True) == "entity:[forgotten]"  # a concept label is lower-cased
    assert ivo.redact_json({"entities": ["ivo", "bill"]}) == {"entities": ["[forgotten]", "bill"]}


def test_email_local_part_counts_only_in_machine_fields():
    assert STEVE.mentions("term:sapovitss", loose=True)
    assert not STEVE.mentions("sapovitss is not a word people write")


def test_a_quoted_message_attributed_to_them_goes_whole_even_when_rewrapped():
    mail = "\n".join([
        "Your problem is alpha blending.",
        "",
        "> -----Original Message-----",
        "> From:\tSteve Sapovits [SMTP:SapovitsS@globalsportsinc.com]",
        "> Subject:\tTransparency",
        "> ",
        "> > > > I'm an engineer -- not an image",
        "> expert.",                       # a re-wrapped fragment inside the quote
        "> > > > Steve Sapovits",
        "> > > > Work Phone: 610-491-7087",
    ])
    out = STEVE.redact(mail)
    assert out == "Your problem is alpha blending.\n\n> [forgotten message]"
    wrote = "Sure.\n\nOn Monday, Steve Sapovits wrote:\n> not an image expert\n> at all\n\nBill"
    assert STEVE.redact(wrote) == "Sure.\n\n[forgotten message]\n\nBill"


def test_unattributed_quotes_and_other_peoples_blocks_stay():
    text = "> From: Bill Radcliffe\n> To: 'Steve Sapovits'\n> Use -matte.\nthanks"
    assert STEVE.redact(text) == "> From: Bill Radcliffe\n> To: '[forgotten]'\n> Use -matte.\nthanks"
    assert drop_attributed_quotes("no quotes here") == "no quotes here"


def test_a_name_written_as_one_token_in_file_names_and_handles():
    out = STEVE.redact("[attached: Steve_Sapovits_cv.pdf, SteveSapovits-2019.pdf, cv-steve.sapovits.doc, plan.pdf]")
    assert out == "[attached: [forgotten]_cv.pdf, [forgotten]-2019.pdf, cv-[forgotten].doc, plan.pdf]"
    assert STEVE.redact_json({"attachments": ["Steve_Sapovits.pdf"]}) == {"attachments": ["[forgotten].pdf"]}
    assert not STEVE.mentions("SteveSapovitsky.pdf and Steve_Dotson.pdf")  # a longer word, another Steve


def test_their_own_acts_leave_a_kept_records_lists_others_are_redacted():
    from core.graph.redact import is_act

    attrs = {"reactions": [{"reaction": "❤", "actor": "Steve Sapovits"}, {"reaction": "👍", "actor": "Bill"}],
             "system_events": [{"at": "t", "text": "Garden Club: Steve Sapovits left"},
                               {"at": "t", "text": "Bill added Steve Sapovits"},
                               {"at": "t", "text": "Missed voice call", "shown_as": "Steve Sapovits"}],
             "forwarded_by": {"name": "Steve Sapovits", "id": None}}
    out = STEVE.redact_json(attrs, acts=True)
    assert out["reactions"] == [{"reaction": "👍", "actor": "Bill"}]
    assert out["system_events"] == [{"at": "t", "text": "Bill added [forgotten]"}]
    assert out["forwarded_by"] == {"name": "[forgotten]", "id": None}  # not a list's act: the message is another's
    assert STEVE.redact_json(attrs)["reactions"][0]["actor"] == "[forgotten]"  # without acts, only redacted
    assert not is_act({"at": "t", "text": "Bill: thanks [forgotten]"}) and not is_act("[forgotten]")


def test_a_first_name_shared_with_another_live_person_is_redacted_only_where_it_can_be_them():
    ben = Redactor(names=["Ben Carter", "Ben"], emails=["ben.carter@example.com"], others=["Ben Okafor"],
                   shared={"Ben": {4}}, own={1, 5}, record_parties={10: frozenset({4}), 11: frozenset({5})})
    # another live person's full name is never a mention
    assert ben.redact("Ben Okafor said hi, ask Ben") == "Ben Okafor said hi, ask [forgotten]"
    assert not ben.mentions("ben okafor") and ben.redact("entity:ben okafor", loose=True) == "entity:ben okafor"
    # where the other Ben is a party and he is not: only his full name and address go
    assert ben.for_record(10).redact("Thanks Ben; Ben Carter (ben.carter@example.com) too") == \
        "Thanks Ben; [forgotten] ([forgotten]) too"
    assert ben.for_record(11).redact("Thanks Ben") == "Thanks [forgotten]"  # his own thread
    assert ben.within({4, 5}).redact("Thanks Ben") == "Thanks [forgotten]"  # both: it can be him
    # nobody's a party: the text decides — it names the other Ben and not him, or it does not
    text = "Ben Okafor said hi. Also ask Ben about it."
    assert ben.within((), text).redact(text) == text
    both = "Ben Okafor and Ben Carter met; ask Ben"
    assert ben.within((), both).redact(both) == "Ben Okafor and [forgotten] met; ask [forgotten]"
    assert ben.within((), "ask Ben").redact("ask Ben") == "ask [forgotten]"
