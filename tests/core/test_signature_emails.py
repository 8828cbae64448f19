"""A sender's other mail address from their signature (``core.extraction.signature.signature_emails``)."""
from __future__ import annotations

from core.extraction.signature import signature_emails


def test_an_address_alone_or_under_the_writers_own_label_is_theirs():
    assert signature_emails("I moved to Mumbai.\n\nPriya Nair\npriya.nair@gmail.com\n", "Priya Nair",
                            "priya@nairdesign.example") == ["priya.nair@gmail.com"]
    assert signature_emails("hi\n-- \nPriya\nE: Priya.Nair@Gmail.com\nWeb: https://nair.example\n", "Priya Nair",
                            "priya@nairdesign.example") == ["priya.nair@gmail.com"]


def test_someone_elses_address_a_role_address_the_own_one_and_words_are_not():
    text = ("hi\n-- \nPriya Nair\nWork: priya@nairdesign.example\nAssistant: bob@nairdesign.example\n"
            "info@nairdesign.example\n")
    assert signature_emails(text, "Priya Nair", "priya@nairdesign.example") == []
    assert signature_emails("Write to priya.nair@gmail.com for more.\n", "Priya Nair", "x@y.example") == []
    # a quoted reply's signature is someone else's
    assert signature_emails("Thanks!\n\nOn Mon, Tom wrote:\n> Tom\n> tom@t.example\n", "Tom", "tom@w.example") == []
