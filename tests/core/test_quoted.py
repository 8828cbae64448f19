"""core/extraction/quoted.py: the writer's own lines of a mail, apart from what it quotes or forwards."""
from __future__ import annotations

import pytest

from core.extraction.quoted import own_words, split_inline_forward


@pytest.mark.parametrize("text, own", [
    ("Great!\n\nOn Mon, Apr 3, 2023 at 9:00 AM Uma Roy <uma@example.com> wrote:\n> I live in Berlin now.\n",
     "Great!\n\n"),
    ("> I live in Berlin now.\n\nNice! I live in Hamburg now.", "\nNice! I live in Hamburg now."),
    ("Thanks.\n\n-----Original Message-----\nFrom: Uma <uma@example.com>\nSent: Monday, April 3, 2023 9:00 AM\n"
     "To: Will\nSubject: hi\n\nI live in Munich now.", "Thanks.\n"),
    ("Thanks\n________________________________\nFrom: A <a@x.org>\nSent: Monday\nTo: me\nSubject: x\n\nI live in Rome.",
     "Thanks"),
    ("Sounds good.\n\nOn Mon, Mar 4, 2024 at 9:00 AM Bob <bob@x.org> wrote:\n\nI live in Berlin now.", "Sounds good.\n"),
    ("Yes.\nOn Wed, Jan 10, 2024 at 9:14 AM Carla Diaz <\ncarla@example.com> wrote:\n> Shall we?\n\nMine inline.",
     "Yes.\n\nMine inline."),
    ("Am 03.04.2023 um 09:00 schrieb Uma Roy <uma@example.com>:\n> Ich wohne in Berlin.\nSchön!", "Schön!"),
    ("FYI\n\n---------- Forwarded message ---------\nFrom: V <v@x.org>\n\nI live in Oslo now.", "FYI\n"),
    # attributions in other clients' styles, above quoted lines (mutt, Gnus, IMP, a bare "wrote")
    ("* Cristy (cristy@mystic.example) [000614 18:05]:\n> > It is a feature?\n> Yes.\nThen it stays.",
     "Then it stays."),
    ("Ann Lee <ann@x.org> writes:\n\n> Shall we?\n\nYes.", "\n\nYes."),
    ("Quoting Ann Lee <ann@x.org>:\n> Shall we?\nYes.", "Yes."),
    ("Ann wrote:\n> Shall we?\nYes.", "Yes."),
    # the writer's own words that only look like the forms stay
    ("My list:\n> not a quote really\nend", "My list:\nend"),
    ("I said it.\nAnd then Bob wrote:\nthings", "I said it.\nAnd then Bob wrote:\nthings"),
    ("I moved to Leeds. From: the start it was fine.", "I moved to Leeds. From: the start it was fine."),
])
def test_own_words(text, own):
    assert own_words(text) == own


def test_split_inline_forward_reads_the_header_block():
    fwd = split_inline_forward("See below.\n\n---------- Forwarded message ---------\n"
                               "From: Venue Desk <desk@hall.example>\nDate: Mon, Mar 4, 2024 at 5:00 PM\n"
                               "Subject: Booking\nTo: Dana <dana@example.org>\n\nThe Orchid Room is yours.\n")
    assert fwd.before == "See below."
    assert fwd.headers == {"From": "Venue Desk <desk@hall.example>", "Date": "Mon, Mar 4, 2024 at 5:00 PM",
                           "Subject": "Booking", "To": "Dana <dana@example.org>"}
    assert fwd.body == "The Orchid Room is yours."
    assert split_inline_forward("-------- Forwarded Message --------\nno headers here\n") is None
    assert split_inline_forward("plain text") is None
