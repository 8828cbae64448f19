"""The Redactor, stop 27 (red team rt4): a full name another live entity bears is shared, another person's address
is never a mention, a one-word name takes an unknown surname with it, and quoted words of a forgotten message go.
Expected texts worked out by hand."""
from __future__ import annotations

from core.graph.redact import QUOTE_REPLACEMENT, Redactor, drop_quoted_words, own_words


def _sam() -> Redactor:
    # the forgotten Sam Lee (id 5) at gmail; another live Sam Lee (id 6) at initech
    return Redactor(["Sam Lee", "Sam"], ["sam.lee@gmail.com"], own={5}, surnames=["Lee"],
                    shared={"sam lee": {6}, "sam": {6}, "lee": {6}}, related={"sam lee": {22}, "sam": {22}, "lee": {22}})


def test_a_full_name_another_live_entity_bears_is_redacted_only_where_it_can_be_the_forgotten_one():
    red = _sam()
    text = "Sam Lee writes from sam.lee@initech.com"
    assert red.within([6]).redact(text) == text                                 # the other Sam Lee's row
    assert red.within([22]).redact("Lena wrote to Sam Lee") == "Lena wrote to Sam Lee"  # tied to him by a fact
    assert red.for_record(1).redact(text) == "[forgotten] writes from sam.lee@initech.com"  # nobody's: may be him
    assert red.within([5, 6]).redact("Sam Lee, sam.lee@gmail.com") == "[forgotten], [forgotten]"
    assert not red.within([6]).mentions("Sam Lee said sam.lee is fine")


def test_another_persons_address_is_never_a_mention_in_part_or_whole():
    red = Redactor(["Tom Vandersloot", "Tom"], ["tom.vandersloot@globex.com"])
    attrs = "From tom.v.private@yahoo.com Tue Mar 12 09:00:00 2024"
    assert not red.mentions(attrs, loose=True)
    assert red.redact(attrs, loose=True) == attrs
    assert red.redact("mail tom.vandersloot@globex.com or tom.v.private@yahoo.com", loose=True) == \
        "mail [forgotten] or tom.v.private@yahoo.com"


def test_a_one_word_name_with_a_surname_kith_did_not_know_is_one_mention():
    red = Redactor(["Quornelia"])
    assert red.redact("Quornelia Hartwig called me today") == "[forgotten] called me today"
    assert red.redact("Quornelia at the lake") == "[forgotten] at the lake"
    # that full name is another live person's: never a mention
    other = Redactor(["Quornelia"], others=["Quornelia Hartwig"])
    assert other.redact("Quornelia Hartwig called, Quornelia Smith too") == \
        "Quornelia Hartwig called, [forgotten] too"
    # a person with a full name known keeps the old rule: "Greta Garbo" is someone else
    assert Redactor(["Greta Sapovits", "Greta"]).redact("Greta Garbo and Greta") == "Greta Garbo and [forgotten]"


def test_quoted_words_of_a_forgotten_message_become_one_line_at_their_depth():
    said = [own_words("I started at Globex. My boss is Tom, he is strict.\n\n> Congrats! How is it?")]
    reply = ("Great news!\n\n> I started at Globex. My boss is Tom,\n> he is strict.\n>> Congrats! How is it?\n"
             "> ok")
    assert drop_quoted_words(reply, said) == f"Great news!\n\n> {QUOTE_REPLACEMENT}\n>> Congrats! How is it?\n> ok"
    red = Redactor(["Ana Ruiz"], quoted=said)
    assert red.mentions(reply)
    assert red.redact(reply).startswith(f"Great news!\n\n> {QUOTE_REPLACEMENT}\n")
    assert drop_quoted_words("> ok\n> sure", said) == "> ok\n> sure"  # too short to tell


def test_an_attribution_naming_them_surname_first_takes_the_quote_with_it():
    red = Redactor(["Ana Ruiz", "Ana"])
    text = "See below.\n\nOn 8 Mar 2024, Ruiz, Ana wrote:\n> My boss is strict.\n> Really."
    assert red.redact(text) == f"See below.\n\n{QUOTE_REPLACEMENT}"
    assert red.redact("Ruiz, Anastasia said hi; Ruiz, Ana too") == "Ruiz, Anastasia said hi; [forgotten] too"
