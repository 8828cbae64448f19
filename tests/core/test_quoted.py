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


@pytest.mark.parametrize("text, own", [
    # replies quoting without ">" under an attribution or an Outlook block in other languages
    ("Gracias.\n\nDe: Uma Roy <uma@example.com>\nEnviado: lunes, 1 de enero de 2001 9:05\nPara: Will Ng\n"
     "Asunto: hola\n\nVivo en Sevilla.", "Gracias.\n"),
    ("Danke.\n\n-----Ursprüngliche Nachricht-----\nVon: Uma Roy <uma@example.com>\nGesendet: Montag, 1. Januar 2001\n"
     "An: Will Ng\nBetreff: hi\n\nIch wohne in München.", "Danke.\n"),
    ("Grazie.\n\nDa: Uma Roy <uma@example.com>\nInviato: lunedì 1 gennaio 2001 09:05\nA: Will Ng\nOggetto: ciao\n\n"
     "Abito a Roma.", "Grazie.\n"),
    ("Bedankt.\n\nVan: Uma Roy <uma@example.com>\nVerzonden: maandag 1 januari 2001 09:05\nAan: Will Ng\n"
     "Onderwerp: hoi\n\nIk woon in Utrecht.", "Bedankt.\n"),
    ("Ótimo.\n\nEm seg., 1 de jan. de 2001 às 09:05, Uma Roy <uma@example.com> escreveu:\nMoro em Lisboa agora.",
     "Ótimo.\n"),
    ("Bra.\n\nDen mån 1 jan. 2001 kl 09:05 skrev Uma Roy <uma@example.com>:\nJag bor i Uppsala nu.", "Bra.\n"),
    ("Dzięki.\n\nW dniu 1.01.2001 o 09:05, Uma Roy napisał(a):\nMieszkam w Krakowie.", "Dzięki.\n"),
    ("好的。\n\nUma Roy <uma@example.com> 于2001年1月1日周一 09:05写道：\n我现在住在北京。", "好的。\n"),
    ("Ok.\n\n-----Message d'origine-----\nDe : Uma Roy\nJ'habite à Lyon.", "Ok.\n"),
    # own words that only look like the forms stay
    ("Da: capo a piedi.\nA: bene.", "Da: capo a piedi.\nA: bene."),
    ("I skrev it down.", "I skrev it down."),
])
def test_quotes_in_other_languages_are_not_the_writers_words(text, own):
    assert own_words(text) == own


def test_an_inline_forward_under_a_localised_separator_is_split():
    fwd = split_inline_forward("Mira.\n\n---------- Mensaje reenviado ---------\nDe: Venue Desk <desk@hall.example>\n"
                               "Enviado: lunes, 4 de marzo de 2024 17:00\nAsunto: Reserva\nPara: Dana\n\n"
                               "La sala está reservada.")
    assert fwd is not None and fwd.before == "Mira."
    assert fwd.headers["De"] == "Venue Desk <desk@hall.example>" and fwd.body == "La sala está reservada."
    fwd = split_inline_forward("FYI\n\nAnfang der weitergeleiteten Nachricht:\n\nVon: Venue Desk <desk@hall.example>\n"
                               "Betreff: Buchung\n\nGebucht.")
    assert fwd is not None and fwd.body == "Gebucht." and fwd.before == "FYI"
