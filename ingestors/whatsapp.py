"""WhatsApp "Export chat" text files: one :class:`~ingestors.base.Record` (kind ``"chat"``) per message.

WhatsApp writes each message's header in the phone's locale.  What is read:

* **Shapes**: Android ``DD/MM/YY, HH:MM - Name: text`` and iOS ``[DD/MM/YY, HH:MM:SS] Name: text``;
  ``/``, ``.`` or ``-`` between date fields (also ``2023. 03. 12.``), 2- or 4-digit years,
  year-first dates, ``:`` or ``.`` in times, a short word between date and time
  (``à``, ``um``, ``klo``), a hyphen or en dash before the name.
* **Any locale's digits and marks**: every Unicode decimal digit (Arabic-Indic ``٢٥``,
  Persian, Devanagari, Bengali, ...) reads as its value; bidi marks (U+200E, U+200F,
  U+061C, U+202A–U+202E, U+2066–U+2069), the Arabic comma ``،`` and no-break or narrow
  no-break spaces are taken for what they stand for.  Thai Buddhist-era years (2566) are converted,
  and so are two-digit ones (``24/12/65``: 52–99 is 2552–2599 BE), and so are the calendars of Iranian and Saudi phones: a year 1300–1420 is Solar Hijri (1402/10/03 is
  2023-12-24; jdatetime), 1421–1500 Hijri Umm al-Qura (11/06/1445 is 2023-12-24; hijridate), with
  ``attrs["calendar"]`` (``"persian"``, ``"islamic-umalqura"``) and a note.
* **Encodings**: UTF-8 (a BOM dropped); UTF-16 with a BOM or without one (Windows' "Unicode"
  re-save); in UTF-8, a byte that is not UTF-8 (a line re-saved as Windows-1252) is read as its
  Windows-1252 character — nothing becomes U+FFFD — and the message is noted (:data:`RECODED_NOTE`).
  NUL bytes (a file padded or holed with zeros by a crash or a half-synced copy) are dropped, with
  :data:`NUL_NOTE` on the messages they were in or after.
* **12-hour clocks in any locale**: the AM/PM marker before or after the time is looked up in
  Babel's CLDR day periods of every locale (``AM``, ``a. m.``, ``ص``/``م``, ``上午``/``下午``,
  ``오전``/``오후``, ``π.μ.``, ``ق.ظ.``, ...); a word Babel does not know as a marker (``น.``) is
  read as part of a 24-hour time.

Decisions on the ambiguous cases:

* **One line format per file**: the first message header fixes the file's shape (brackets,
  separator, year length, seconds, 12/24-hour clock) — unless most headers have another shape whose
  senders include everyone writing in the first one (an odd line at the top: :meth:`Survey.main_shape`).  A header-like line of another shape
  (a message pasted from another export) is text of the message it sits in — unless its
  sender already writes in this file in the file's own shape *and* its time lies between
  the messages around it (a real export line that only looks different).  A line of the file's own
  shape is text too when it stands out of the file's time order as no export writes it
  (:meth:`Survey.pasted`): a ``Name: text`` line over an hour before one above it, by a sender who never
  writes in order elsewhere (another chat's lines pasted in: its senders are not members), or a line with
  no name over an hour after the next message (``13/03/2023, 09:00 - arrive in Faro`` in a typed agenda).
* **Day/month order** is decided once per *file* (``attrs["date_order"]``, ``"DMY"``,
  ``"MDY"`` or ``"YMD"``; ``attrs["date_order_basis"]`` says how): a first field above 12
  means day-first and a second above 12 month-first, the more frequent winning
  (``"dates"``; with none, a real export line of another shape whose date exists, between the messages around
  it, in one order only: :meth:`Survey.foreign_votes`) — but first, when every date could be a two-digit
  year first (Korean ``22. 12. 24.``),
  that order wins if the others give a year before WhatsApp (2009) or after next year (``"dates"``),
  if its dates alone run forwards (``"chronology"``) or if the clock marker's locales write the year
  first (``오후``, ``"locale"``) or the date is written ``22. 12. 24.`` (Korean's dots, ``"separator"``); else the order in which the dates run forwards in time (``"chronology"``);
  else ``.`` or ``-`` between the date's fields (``"separator"``: day-first, as every locale
  writing them so); else the locale's hint (``"locale"``: an AM/PM marker → the order of the
  CLDR short date of most locales writing it just so: ``p. m.`` (Spanish) and lower-case ``pm``
  (en_GB, en_AU) day-first; ``AM``/``PM`` → month-first, the common US export);
  else the ``dayfirst`` setting (``"setting"``).  With ``"separator"``, ``"locale"`` or
  ``"setting"`` every record gets a note.  A line whose date is impossible in the chosen order is not a header:
  it becomes part of the previous message, like any unparseable line.
* **Times** are the phone's wall-clock time with no zone: they are read in the
  ``local_timezone`` the ingestor was made with (default ``"UTC"``) and kept at
  that zone's offset, and ``attrs["time_basis"]`` is ``"assumed-local"``.  A wall time the zone
  had twice (the hour the clocks go back) is the second one when only that keeps the file's order
  (``01:50``, then ``01:10`` after the change: 01:10 GMT, not BST), with a note.  With an AM/PM
  marker, 12 is noon/midnight as usual and the impossible hour ``00`` (seen in
  real exports: ``00:08 a. m.``) is read as midnight (00:08); an hour of 13–23
  with a marker is read as a 24-hour time, with a note.
* **A file starting inside a message** (cut from a longer export: up to :data:`MAX_LEAD_LINES` lines of text,
  then two or more headers): those first lines are one record with no sender and no time
  (``sent_at`` None, ``attrs["headless"]``, ``attrs["before"]``: the first header's time, :data:`LEAD_NOTE`).
* **Multi-line messages**: a line that does not start with a date header (and any
  header-like line that cannot be read) belongs to the previous message — never dropped; blank
  lines at its end (before the next header, or the file's end) are not (WhatsApp trims a message's end).
  A message over :data:`MAX_MESSAGE_CHARS` keeps its start, with a note.
* **System lines** are not records (nobody wrote them): a header with no ``Name:``
  (Android: ``You were added``); a one-line text WhatsApp marks with U+200E at its start,
  under whatever sender iOS shows (the group, the chat partner, the actor:
  ``Family: \u200eAna added you``; :func:`is_generated`), calls included; and a "sender"
  that is a system line's words (:func:`system_senders`: the group's own name, a phone number
  followed by words, ``"+1 555 0100 added you to a group in the community: C"``).  Each is
  kept in ``attrs["system_events"]`` of the next message (``{"line", "at", "text"}``, and
  ``"shown_as"``: the sender iOS showed); those after the last message go on the last
  message.  A file with system lines only yields nothing.
* **Media**, in the common locales: ``<Media omitted>`` (``<Medien ausgeschlossen>``,
  ``<Multimedia omitido>``, ...), ``image omitted`` (iOS; ``Bild weggelassen``, ...) and similar
  leave the text empty, with ``attrs["media"] = "omitted"`` and a note (so does Android's ``null``, a
  view-once photo; iOS's ``NAME • 3 pages document omitted`` keeps ``NAME`` in ``attrs["media_name"]``);
  any ``<...>`` saying something was left out (``<View once voice message omitted>``) is media omitted too;
  Android's ``Waiting for this message. This may take a while.`` (never decrypted) gives an empty text,
  ``attrs["undelivered"]`` and a note; ``<attached: NAME>`` (any
  label) and ``NAME (file attached)`` keep the file name in ``attrs["media"]``, and so does iOS's caption
  written before the tag (``"The view \u200e<attached: 00000005-PHOTO-….jpg>"``: the text is the caption).
  ``This message was deleted`` (``Diese Nachricht wurde gelöscht``, ...; a final ``.`` or not)
  gives an empty text and a note ``"deleted"``; a trailing ``<This message was edited>``
  (``<Diese Nachricht wurde bearbeitet>``, ...) is cut and noted ``"edited"``.  Bidi marks at
  the ends of a text are dropped.
* **Who**: the sender is ``Party(name, None, "phone", "from")`` with the name as shown
  (emoji included; the ``~`` before a name not in the phone's contacts left out); a sender
  shown as a phone number (an unsaved contact; spaces, brackets and any hyphen) is
  ``Party(None, number, "phone", "from")``.  A contact name holding ``": "`` (``Work: Anna: hi``) is
  taken whole when every message (two or more) under the part before the colon starts with the same
  ``"X: "`` (:func:`colon_senders`).  In a chat of two whose export is named after one of them
  (``WhatsApp Chat with Ana.txt``), the other exported it: the owner (:func:`chat_owner`; every record
  carries ``attrs["owner_name"]``, the owner's own ``attrs["is_from_me"]``).  The recipients are every other sender of the
  file (role ``"member"``).
* **Thread**: ``"whatsapp:"`` + the file name without suffix (for an iOS
  ``_chat.txt`` the folder name), lower-cased: the same chat exported again keeps it.  The chat a line belongs
  to (``Record.scope``, part of its hash: :func:`scope_of_thread`) is the chat the export's name names
  (``WhatsApp Chat with Ann``), else the file's name; on import, a file whose name does not find its stored chat
  is read as the stored chat whose lines its first lines are (``app.operations.ingest._stored_chat``: at least
  two, more than half of those they can share), so the same chat exported again under any file name, with CRLF
  line ends or without the final line break, adds only its new lines.
* ``external_id`` is ``"line N"``: the 1-based line where the message starts.

Memory: the file is read line by line, twice (a survey of its headers, then the
messages); one message is held at a time.

Signal's plain-text export (``[2023-01-04 10:35] Name: text``, as written by signal-export)
has the iOS shape with a year-first date and is read by this ingestor too.
"""
from __future__ import annotations

import codecs
import io
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Iterator

from core import clock
from core.errors import InputError
from ingestors.base import FileOrder, Item, Party, Record, decode_utf8_or_1252, other_members, time_zone

MAX_MESSAGE_CHARS = 1_000_000  # one message's text is kept up to this many characters
MAX_LEAD_LINES = 20  # lines of text a file may start with before its first header (it starts inside a message)
NOT_AN_EXPORT = "not a WhatsApp chat export: the first line is not a 'date, time - name: text' header"
# the lines a file starts with before its first header: the end of a message whose header is not in the file
LEAD_NOTE = "the file starts inside a message: who wrote these lines, and when, is not in the file"
_LINE_MARKS = "\u200e\u200f"  # what iOS writes at the start of a poll's or a contact card's lines
_MARKS = "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"
_SPACES = "\u00a0\u202f\u2009\u2007\u3000"
_HEADER_SPAN = 96  # characters of a line looked at for a header
_HEADER = re.compile(
    r"^(?P<bracket>\[)?\s*"
    r"(?P<f1>\d{1,4})(?P<sep>[/.\-])(?P<sp>\s)?(?P<f2>\d{1,2})(?P=sep)\s?(?P<f3>\d{1,4})(?P<end>\.)?"
    r",?\s*(?:(?P<pre>[^\d\s\[\]\-\u2013:,][^\d\[\]\-\u2013:,]{0,11}?)\s*)?"
    r"(?P<h>\d{1,2})[:.](?P<m>\d{2})(?:[:.](?P<s>\d{2}))?"
    r"(?:\s*(?P<post>[^\d\s\[\]\-\u2013:][^\d\[\]\-\u2013:]{0,11}?))?"
    r"(?(bracket)\s*\]\s?|\s*[-\u2013]\s)"
    r"(?P<rest>.*)$",
    re.S,
)
# "Name: text": the name is what comes before the first colon, and holds no quotation mark of any
# script (a system line such as 'X changed the subject to "a: b"', '« Voyage : Lisbonne »',
# '„Reise: Rom“' or '「旅行: 東京」' is not a message).
_QUOTES = '"\u201c\u201d\u201e\u201f\u00ab\u00bb\u2039\u203a\u300c\u300d\u300e\u300f\uff02'
_AUTHOR = re.compile(rf'^(?P<name>[^:{_QUOTES}\n]{{1,100}}?):(?: |$)?(?P<text>.*)$', re.S)
_DASHES = "\u2010\u2011\u2012\u2013\u2212"  # hyphens phones show numbers with ("+1 (777) 777\u20117777")
_PHONE = re.compile(r"^\+?[\d\s\-().\u00a0\u202f" + _DASHES + r"]{6,}$")
# a phone number followed by words: a system line's subject ("+1 555 010 0004 added you to ...: C")
_PHONE_THEN_WORDS = re.compile(r"^\+?[\d\s\-().\u00a0\u202f" + _DASHES + r"]{6,}?\s+[^\W\d_]")
_INVISIBLE = "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\ufeff"
_LRM = "\u200e"
# Android's "<Media omitted>" in any locale: one <...> naming media (<Medien ausgeschlossen>,
# <Médias omis>, <Multimedia omitido>, <Mídia oculta>, <Без медиафайлов>, <Pominięto multimedia>, ...)
_OMITTED_ANDROID = re.compile(r"^<[^<>\n]{0,40}(?:m[eéíi]d[iy]|multim|медиа|медіа|мультимедиа|πολυμέσ|الوسائط|मीडिया|מדיה|رسانه|メディア|媒体|媒體|影音|미디어|สื่อ)[^<>\n]{0,40}>$",
                              re.I)
# iOS's "image omitted" in the common locales, either word order
_MEDIA_WORDS = (r"image|photo|video|audio|sticker|gif|document|contact card|bild|foto|dokument|kontaktkarte|"
                r"imagen|vídeo|documento|tarjeta de contacto|vidéo|autocollant|carte de contact|imagem|figurinha|"
                r"áudio|cartão de contato|immagine|scheda contatto|afbeelding|contactkaart|görüntü|ses|çıkartma|"
                r"belge|kişi kartı|изображение|фото|видео|аудио|аудиофайл|стикер|документ|карточка контакта|"
                r"fiche contact|contacto|ficheiro de áudio|зображення|відео|аудіо|картка контакту|наклейку|"
                r"gif-анімацію|obrázek|nálepka|vizitka|obraz|naklejka|wideo|gambar|stiker|dokumen|kartu kontak|"
                r"الصورة|صورة gif|الفيديوهات|الفيديو|المقاطع الصوتية|المستند|بطاقة جهة اتصال|الملصقات|الملصق")
_OMIT_WORDS = (r"omitted|weggelassen|ausgelassen|omitid[ao]|absente?|omise?|ocultad[ao]|oculta|omess[ao]|weggelaten|"
               r"dahil edilmedi|отсутствует|пропущен[оа]?|não revelad[ao]|manquante?|retirée?|esclus[ao]|"
               r"non inclus[ao]|відсутн[єя]|не додано|не добавлен|vynechán[ao]?|pominięt[ayeo]|tidak disertakan|"
               r"لم يتم إدراج|تم حذف")
# ... or one <...> saying something was left out ("<View once voice message omitted>")
_OMITTED_ANY = re.compile(rf"^<[^<>\n]{{0,50}}\b(?:{_OMIT_WORDS})\b[^<>\n]{{0,20}}>$", re.I)
_OMITTED = re.compile(rf"^(?:(?:{_MEDIA_WORDS})\s+(?:{_OMIT_WORDS})|(?:{_OMIT_WORDS})\s+(?:{_MEDIA_WORDS}))$", re.I)
# iOS's document left out, after its file name: "‎Trip plan.pdf • ‎3 pages ‎document omitted"
_OMITTED_NAMED = re.compile(rf"^(?P<name>[^\n•]+?\.\w{{1,5}})(?:\s*•[^\n]*?)?\s+"
                            rf"(?:(?:{_MEDIA_WORDS})\s+(?:{_OMIT_WORDS})|(?:{_OMIT_WORDS})\s+(?:{_MEDIA_WORDS}))$", re.I)
# Android writes "null" for a view-once photo or video (its content never exported)
_VIEW_ONCE = "null"
# "<attached: 00000012-PHOTO.jpg>" in any locale (a label, a colon, a file name), or "NAME (file attached)"
# "(file attached)" as Android writes it in the common locales: "(Datei angehängt)", "(archivo adjunto)", "(fichier
# joint)", "(file allegato)", "(arquivo anexado)", "(bestand bijgevoegd)", "(plik załączony)", "(файл прикреплен)",
# "(dosya ekli)", "(fil bifogad)", "(fil vedhæftet)", "(fil vedlagt)", "(tiedosto liitetty)", "(file terlampir)"
_FILE_ATTACHED = (r"file attached|datei angehängt|archivo adjunto|fichier joint|file allegato|arquivo anexado|"
                  r"ficheiro anexado|bestand bijgevoegd|plik załączony|файл прикреплен|файл прикреплён|dosya ekli|"
                  r"fil bifogad|fil vedhæftet|fil vedlagt|tiedosto liitetty|file terlampir|fitxer adjunt|"
                  r"soubor připojen|fájl csatolva|fișier atașat|συνημμένο αρχείο|קובץ מצורף|ملف مرفق")
_ATTACHED = re.compile(r"^(?:<[^<>:\n]{1,30}\s?:\s?(?P<a>[^<>\n]+?\.\w{1,5})>|(?P<b>.+?) \((?:" + _FILE_ATTACHED +
                       r")\))(?:\n(?P<caption>.*))?$", re.S | re.I)
# iOS writes a caption before the file it came with, on the same line (and any lines above it):
# "Look at this \u200e<attached: 00000005-PHOTO-2025-09-24-17-50-12.jpg>"
_ATTACHED_AFTER = re.compile(r"^(?P<caption>.*?)\s*<[^<>:\n]{1,30}\s?:\s?(?P<a>[^<>\n]+?\.\w{1,5})>$", re.S)
# "This message was deleted" / "You deleted this message" as WhatsApp writes them in the common locales
_DELETED = {
    "this message was deleted", "you deleted this message",
    "diese nachricht wurde gelöscht", "du hast diese nachricht gelöscht",
    "se eliminó este mensaje", "eliminaste este mensaje", "este mensaje fue eliminado",
    "ce message a été supprimé", "vous avez supprimé ce message",
    "mensagem apagada", "esta mensagem foi apagada", "você apagou esta mensagem",
    "questo messaggio è stato eliminato", "hai eliminato questo messaggio",
    "dit bericht is verwijderd", "je hebt dit bericht verwijderd",
    "данное сообщение удалено", "это сообщение удалено", "вы удалили это сообщение",
    "bu mesaj silindi", "bu mesajı sildiniz", "pesan ini telah dihapus", "anda menghapus pesan ini",
    "ta wiadomość została usunięta", "usunięto tę wiadomość",
    "הודעה זו נמחקה", "מחקת את ההודעה הזו", "تم حذف هذه الرسالة", "لقد حذفت هذه الرسالة", "حذفت هذه الرسالة",
    "این پیام حذف شد", "شما این پیام را حذف کردید", "यह संदेश हटा दिया गया", "आपने यह संदेश हटा दिया",
    "このメッセージは削除されました", "メッセージを削除しました", "삭제된 메시지입니다", "메시지를 삭제했습니다",
    "此消息已删除", "你删除了此消息", "此訊息已被刪除", "此訊息已刪除", "你已刪除此訊息",
    "ข้อความนี้ถูกลบแล้ว", "คุณลบข้อความนี้แล้ว",
}
# what Android writes for a message it never managed to decrypt (English; the words are WhatsApp's)
_WAITING = re.compile(r"^waiting for this message\.(?: this may take a while\.| check your phone\.)?$", re.I)
# "This message was deleted by admin Ana." / "You deleted this message as admin"
_DELETED_BY_ADMIN = re.compile(r"^(?:this message was deleted by admin\b.*|you deleted this message as admin)$", re.I)


def _is_deleted(bare: str) -> bool:
    """Whether a message's whole text is WhatsApp's "deleted" placeholder (:data:`_DELETED`, or by an admin)."""
    return bare.rstrip(".").casefold() in _DELETED or bool(_DELETED_BY_ADMIN.match(bare.rstrip(".")))


# a trailing "<This message was edited>" in the common locales (<Diese Nachricht wurde bearbeitet>, ...)
_EDITED = re.compile(r"\s*\u200e?<[^<>\n]{0,60}(?:edited|bearbeitet|editó|editad[ao]|modifié|modificato|bewerkt|"
                     r"düzenlendi|изменено|отредактировано|edytowan|diedit|נערכה|تعديل|ویرایش|संपादित|編集済み|已编辑|"
                     r"已編輯|수정됨|แก้ไข)[^<>\n]{0,40}>\s*$", re.I)
ORDERS = ("DMY", "MDY")
PASTE_SLACK = timedelta(hours=1)  # how far out of the file's time order a line must stand to be pasted text
FIRST_YEAR = 2009  # WhatsApp's first year: an earlier date is a misread order


# --------------------------------------------------------------------------- locale data (Babel / CLDR)

def _marker_key(text: str) -> str:
    """An AM/PM marker as compared: case folded, dots and spaces removed (``"p.\u202fm."`` → ``"pm"``)."""
    return "".join(ch for ch in text.casefold() if ch not in ". \u00a0\u202f\u2009")


def _cldr_markers(regions: bool):
    """Every CLDR locale's AM/PM markers (Babel): ``(marker as written, "a" | "p", the date order of the
    locale's short date pattern: "DMY", "MDY" or "YMD", the locale's language)``; base languages only unless
    ``regions``.  Nothing
    without Babel (a declared dependency; without it only AM/PM and a. m./p. m. are read)."""
    try:
        from babel import Locale, localedata
    except ImportError:
        return
    for ident in localedata.locale_identifiers():
        if "_" in ident and not regions:
            continue  # the base languages carry the markers; regions mostly repeat them
        try:
            loc = Locale.parse(ident)
            periods = loc.day_periods.get("format", {})
            pattern = loc.date_formats["short"].pattern
        except Exception:
            continue
        letters = [ch for ch in pattern if ch in "dMy"]
        order = "".join(dict.fromkeys("D" if ch == "d" else "M" if ch == "M" else "Y" for ch in letters))
        for width in ("abbreviated", "wide"):
            for period in ("am", "pm"):
                value = periods.get(width, {}).get(period)
                if value:
                    yield value, period[0], order, ident.split("_")[0]


def _speakers(language: str) -> float:
    """A language's weight among CLDR's territories: the sum of its population percentages over the
    territories it is spoken in (Babel's ``territory_languages``; Finnish ~117, Inari Sami ~0.01) — a rough
    count of the phones likely to write its markers, used only to settle a marker two languages read apart."""
    from babel.core import get_global

    return sum((d.get("population_percent") or 0.0) for langs in get_global("territory_languages").values()
               for lang, d in langs.items() if lang == language)


@lru_cache(maxsize=1)
def day_period_markers() -> dict[str, tuple[str, tuple[str, ...]]]:
    """Every locale's AM/PM markers from Babel's CLDR data: ``{marker key: ("a" | "p", date orders)}``.

    The date orders are those of the short date pattern of the locales using the marker
    (``"DMY"``, ``"MDY"`` or ``"YMD"``), for the day/month hint.  A marker that means AM in one
    locale and PM in another takes the meaning of the languages with at least ten times the speakers
    (:func:`_speakers`: Finnish ``ip.`` is PM, though Inari Sami writes it for AM), else is left out.
    Loaded once (~0.3 s); empty without Babel.
    """
    found: dict[str, dict[str, set[str]]] = {}
    orders: dict[str, list[tuple[str, str]]] = {}
    for value, period, order, language in _cldr_markers(regions=False):
        key = _marker_key(value)
        found.setdefault(key, {}).setdefault(period, set()).add(language)
        orders.setdefault(key, []).append((period, order))
    out: dict[str, tuple[str, tuple[str, ...]]] = {}
    for key, periods in found.items():
        if not key:
            continue
        if len(periods) > 1:
            weight = {p: sum(_speakers(lang) for lang in langs) for p, langs in periods.items()}
            first, second = sorted(weight, key=weight.get, reverse=True)
            if weight[first] < 10 * weight[second]:
                continue
            periods = {first: periods[first]}
        (period,) = periods
        out[key] = (period, tuple(o for p, o in orders[key] if p == period))
    return out


def read_marker(text: str | None) -> str | None:
    """``"a"`` or ``"p"`` for an AM/PM marker in any locale (``"PM"``, ``"a. m."``, ``"م"``, ``"오후"``), else None."""
    if not text:
        return None
    key = _marker_key(text)
    if key in ("am", "a"):
        return "a"
    if key in ("pm", "p"):
        return "p"
    hit = day_period_markers().get(key)
    return hit[0] if hit else None


def _marker_form(text: str) -> str:
    """An AM/PM marker as written, its spaces made plain (``"p.\u202fm."`` → ``"p. m."``); case and dots kept."""
    return " ".join(text.translate({0xa0: " ", 0x202f: " ", 0x2009: " "}).split())


@lru_cache(maxsize=1)
def marker_date_orders() -> dict[str, tuple[str, ...]]:
    """``{marker as written: date orders}`` over every CLDR locale, regions included (``"pm"``: en_GB,
    en_AU, ...; ``"p. m."``: es, es_MX, ...), for the day/month hint.  Loaded once (~1 s), only
    when a file's dates leave the order open; empty without Babel."""
    out: dict[str, list[str]] = {}
    for value, _period, order, _language in _cldr_markers(regions=True):
        out.setdefault(_marker_form(value), []).append(order)
    return {k: tuple(v) for k, v in out.items()}


def _locale_order(marker: str | None, year_first: bool = False) -> str | None:
    """The day/month order a 12-hour marker hints at, or None (24-hour clock, or no majority).

    ``AM``/``PM`` exactly so: month-first (the US phone's ``M/D/YY`` is the common case of an English
    export, though more locales write them day-first).  Any other marker: the majority of the CLDR
    short dates of the locales writing it just so (lower-case ``pm``: en_GB, en_AU, ... day-first;
    ``p. m.``: Spanish, day-first), else of those writing it in any case and dotting.  With
    ``year_first`` (the file's dates could be ``yy. M. d.``), ``"YMD"`` when most such locales write the
    year first (``오후``: Korean)."""
    if marker is None:
        return None
    form = _marker_form(marker)
    if form in ("AM", "PM", "A", "P"):
        return "MDY"
    orders = marker_date_orders().get(form)
    if not orders:
        hit = day_period_markers().get(_marker_key(marker))
        orders = hit[1] if hit else ()
    dmy, mdy, ymd = orders.count("DMY"), orders.count("MDY"), orders.count("YMD") if year_first else 0
    if ymd > max(dmy, mdy):
        return "YMD"  # 오후 (Korean: yy. M. d.)
    return "DMY" if dmy > mdy else "MDY" if mdy > dmy else None


# --------------------------------------------------------------------------- one header line

_DIGITS: dict[int, str] = {}


def _normalise(line: str) -> tuple[str, list[int]]:
    """The start of ``line`` with any script's digits as ASCII, bidi marks dropped, Arabic comma and
    special spaces made plain; and for each kept character its index in ``line``."""
    out: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(line[:_HEADER_SPAN]):
        if ch in _MARKS:
            continue
        if ch.isdigit() and not ch.isascii():
            value = unicodedata.decimal(ch, None)
            if value is None:
                return "", []
            ch = str(value)
        elif ch == "\u060c":  # ARABIC COMMA
            ch = ","
        elif ch in _SPACES:
            ch = " "
        out.append(ch)
        where.append(i)
    return "".join(out), where


@dataclass
class _Header:
    """A parsed header line before the date order is known."""

    line: int
    f1: int
    f2: int
    f3: int
    year_first: bool
    hour: int
    minute: int
    second: int
    ampm: str | None
    marker: str | None  # the marker as written
    korean: bool  # written "22. 12. 24." (dots, each followed by a space, and one after the last field)
    shape: tuple
    rest: str
    extra: list[str] = field(default_factory=list)  # continuation lines
    size: int = 0
    end: int = 0  # the message's last line


def _parse_header(line: str, lineno: int) -> _Header | None:
    text, where = _normalise(line)
    m = _HEADER.match(text)
    if not m:
        return None
    year_first = len(m["f1"]) == 4
    if len(m["f1"]) == 3 or len(m["f3"]) > (2 if year_first else 4) or (not year_first and len(m["f3"]) == 3):
        return None
    if not year_first and len(m["f3"]) == 1 and len(m["f1"]) != 2:
        return None  # a one-digit last field is only the day of a two-digit year first ("23. 1. 2.")
    ampm, marker = None, None
    for token, before in ((m["pre"], True), (m["post"], False)):
        side = read_marker(token)
        if side is not None:
            if ampm is not None:
                return None
            ampm, marker = side, token.strip()
    rest_at = m.start("rest")
    rest = line[where[rest_at]:] if rest_at < len(where) else ""
    shape = (bool(m["bracket"]), m["sep"], len(m["f1"]) if year_first else max(2, len(m["f3"])), m["s"] is not None,
             ampm is not None)
    korean = m["sep"] == "." and bool(m["sp"]) and bool(m["end"])
    return _Header(lineno, int(m["f1"]), int(m["f2"]), int(m["f3"]), year_first, int(m["h"]), int(m["m"]),
                   int(m["s"] or 0), ampm, marker, korean, shape, rest)


def _year(y: int) -> int:
    """A written year as Gregorian (other calendars than the Thai one are converted by :func:`to_gregorian`).

    Two digits: 00–51 are 2000–2051 (WhatsApp began in 2009: "19" is 2019); 52–99 are Thai Buddhist-era
    years (Thai phones write ``d/M/yy`` in that era: "65" is 2565 BE, 2022) — 2052 on is decades away.
    Four digits from 2400: Buddhist era (2565 is 2022)."""
    if y < 100:
        return y + 2000 if y < 52 else y + 2500 - 543
    if y >= 2400:
        return y - 543  # Thai Buddhist era
    return y


def calendar_of(year: int) -> str | None:
    """The calendar a phone wrote a 4-digit ``year`` in, when it is not Gregorian: ``"persian"`` (Solar
    Hijri, 1300–1420: Iranian and Afghan phones; 1402 is 2023/24) or ``"islamic-umalqura"`` (Hijri,
    1421–1500: Saudi phones; 1445 is 2023/24).  Gregorian years of WhatsApp's time (2009 on) are never
    in these ranges, nor are Thai Buddhist-era years (2552 on)."""
    if 1300 <= year <= 1420:
        return "persian"
    if 1421 <= year <= 1500:
        return "islamic-umalqura"
    return None


def to_gregorian(year: int, month: int, day: int) -> tuple[int, int, int]:
    """A date of :func:`calendar_of`'s calendar for ``year`` as a Gregorian ``(year, month, day)``
    (jdatetime for Solar Hijri, hijridate for Umm al-Qura); a Gregorian date unchanged.

    Raises:
        ValueError: no such day in that calendar (``(0, 0, 0)`` is never returned).
    """
    calendar = calendar_of(year)
    if calendar is None:
        return year, month, day
    try:
        if calendar == "persian":
            import jdatetime

            d = jdatetime.date(year, month, day).togregorian()
        else:
            from hijridate import Hijri

            d = Hijri(year, month, day).to_gregorian()
    except (ValueError, OverflowError, TypeError) as exc:
        raise ValueError(f"no such {calendar} date: {year}-{month}-{day}") from exc
    return d.year, d.month, d.day


def _ymd(h: _Header, order: str) -> tuple[int, int, int]:
    """The header's Gregorian ``(year, month, day)`` in ``order``; ``(0, 0, 0)`` when that date cannot be."""
    if h.year_first or order == "YMD":  # "YMD" of a two-digit first field: Korean "22. 12. 24."
        ymd = _year(h.f1), h.f2, h.f3
    elif order == "DMY":
        ymd = _year(h.f3), h.f2, h.f1
    else:
        ymd = _year(h.f3), h.f1, h.f2
    try:
        return to_gregorian(*ymd)
    except ValueError:
        return 0, 0, 0  # datetime() refuses it: the line is not a header in this order


def _hour(h: _Header, notes: list[str]) -> int:
    if h.ampm is None:
        return h.hour
    if h.hour == 0:  # impossible on a 12-hour clock, written by real exports ("00:08 a. m."): midnight
        if h.ampm == "p":
            notes.append("hour 00 with PM marker read as 12 (noon)")
            return 12
        return 0
    if h.hour > 12:
        notes.append(f"hour {h.hour} with AM/PM marker read as a 24-hour time")
        return h.hour
    if h.ampm == "a":
        return 0 if h.hour == 12 else h.hour
    return 12 if h.hour == 12 else h.hour + 12


def _naive(h: _Header, order: str) -> datetime | None:
    """The header's wall-clock time in ``order``, or None when that date/time cannot exist."""
    year, month, day = _ymd(h, order)
    try:
        return datetime(year, month, day, _hour(h, []), h.minute, h.second)
    except ValueError:
        return None


# --------------------------------------------------------------------------- the survey (first pass)

@dataclass
class Survey:
    """What the first pass over a file learned: its shape, the evidence for the date order, its members."""

    shape: tuple | None = None
    first_line: int | None = None
    year_first: bool = True
    day_first_votes: int = 0
    month_first_votes: int = 0
    backwards: dict = field(default_factory=lambda: {o: 0 for o in ORDERS + ("YMD",)})
    short_year_first: bool = True  # every header could be "yy. M. d." (two-digit first and last fields)
    korean: bool = True  # every header writes its date "22. 12. 24." (Korean; Slovenian has no final dot)
    implausible: dict = field(default_factory=lambda: {o: 0 for o in ORDERS + ("YMD",)})  # no date, or no WhatsApp year
    marker: str | None = None
    members: dict = field(default_factory=dict)  # name -> set of orders in which its header is valid
    senders: dict = field(default_factory=dict)  # name -> messages under it (system lines included)
    foreign: list = field(default_factory=list)  # [other-shape header, previous own-shape header, next one]
    shape_count: dict = field(default_factory=dict)  # header shape -> how many headers of the file have it
    shape_senders: dict = field(default_factory=dict)  # header shape -> the senders of its "Name: text" lines
    name_tails: dict = field(default_factory=dict)  # name -> the "X: " every text under it starts with, or None
    _last: dict = field(default_factory=dict)
    _latest_year: int = field(default_factory=lambda: clock.now().year + 1)  # no export is dated later
    _waiting: list = field(default_factory=list)
    _previous: "_Header | None" = None
    _open: list | None = None  # the last message's [sender, valid orders, one-line generated text so far]
    # lines of the file's own shape pasted into a message (see pasted()), per date order
    _named_max: dict = field(default_factory=dict)  # order -> the latest time of a "Name: text" line in order
    _nameless: dict = field(default_factory=lambda: {o: [] for o in ORDERS + ("YMD",)})  # [(line, time)] waiting
    _ahead: dict = field(default_factory=lambda: {o: set() for o in ORDERS + ("YMD",)})  # nameless lines after the next
    _behind: dict = field(default_factory=lambda: {o: [] for o in ORDERS + ("YMD",)})  # [(line, sender)] far back
    _in_order: dict = field(default_factory=lambda: {o: set() for o in ORDERS + ("YMD",)})  # senders of lines in order

    def more(self, line: str) -> None:
        """A line that is not an own-shape header: the open message has more than one line."""
        if self._open is not None and line.strip():
            self._open[2] = False

    def settle(self) -> None:
        """Count the open message; its sender is a member unless the message is a generated (system) text."""
        if self._open is not None:
            key, valid, generated = self._open
            self.senders[key] = self.senders.get(key, 0) + 1
            if not generated:
                self.members.setdefault(key, set()).update(valid)
            self._open = None

    def add(self, h: _Header) -> None:
        if self.shape is None:
            self.shape, self.first_line = h.shape, h.line
        self.shape_count[h.shape] = self.shape_count.get(h.shape, 0) + 1
        a = _AUTHOR.match(h.rest)
        if a:
            self.shape_senders.setdefault(h.shape, set()).add(_sender_key(a["name"]))
        if h.shape != self.shape:
            self.more(h.rest or "-")
            entry = [h, self._previous, None]
            self.foreign.append(entry)
            self._waiting.append(entry)
            return
        for entry in self._waiting:
            entry[2] = h
        self._waiting.clear()
        self._previous = h
        self.year_first &= h.year_first
        if not h.year_first:
            self.day_first_votes += h.f1 > 12
            self.month_first_votes += h.f2 > 12
        self.short_year_first &= not h.year_first and h.f1 < 100 and h.f3 < 100
        self.korean &= h.korean
        if h.marker and self.marker is None:
            self.marker = h.marker
        times = {o: _naive(h, o) for o in ORDERS + ("YMD",)}
        valid = {o for o, when in times.items() if when is not None}
        for order, when in times.items():
            self.implausible[order] += not (when is not None and FIRST_YEAR <= when.year <= self._latest_year)
            if when is not None:
                if order in self._last and when < self._last[order]:
                    self.backwards[order] += 1
                self._last[order] = when
        self.settle()
        a = _AUTHOR.match(h.rest)
        self._order_check(h.line, times, _sender_key(a["name"]) if a else None)
        if a:
            key = _sender_key(a["name"])
            self._open = [key, valid, is_generated(a["text"], False)]
            tail = _NAME_TAIL.match(a["text"])
            tail = _sender_key(tail["tail"]) if tail else None
            self.name_tails[key] = tail if key not in self.name_tails or self.name_tails[key] == tail else None

    def _order_check(self, line: int, times: dict, sender: str | None) -> None:
        """Note an own-shape header (its line, its time in each order) that stands out of the file's time order
        (for :meth:`pasted`)."""
        for order, when in times.items():
            if when is None:
                continue
            if sender is None:
                self._nameless[order].append((line, when))
                continue
            for line, at in self._nameless[order]:
                if at > when + PASTE_SLACK:
                    self._ahead[order].add(line)
            self._nameless[order].clear()
            latest = self._named_max.get(order)
            if latest is not None and when < latest - PASTE_SLACK:
                self._behind[order].append((line, sender))
            else:
                self._named_max[order] = when if latest is None else max(latest, when)
                self._in_order[order].add(sender)

    def pasted(self, order: str) -> tuple[set[int], set[str]]:
        """``(lines, senders)``: header lines of the file's own shape that are text pasted into a message, read
        in ``order``, and the senders found only on such lines (not the chat's members).

        A line is pasted when it stands out of the file's time order in a way an export does not write: a
        ``Name: text`` line more than :data:`PASTE_SLACK` before a ``Name: text`` line above it whose sender
        never writes in order elsewhere in the file (a conversation of another chat pasted in; a member's
        late-delivered message keeps its place), or a line with no name (a system line's shape: "13/03/2023,
        09:00 - arrive in Faro" in a typed agenda) more than :data:`PASTE_SLACK` after the next ``Name: text``
        line.
        """
        behind = {(line, who) for line, who in self._behind[order] if who not in self._in_order[order]}
        return self._ahead[order] | {line for line, _ in behind}, {who for _, who in behind}

    def main_shape(self) -> tuple | None:
        """The shape the file is written in when it is not its first header's: another shape of more headers
        whose senders include every sender of the first shape's lines (an odd line at the top of the file, by
        someone who writes in that other shape too — not lines pasted into a message, whose senders are
        others); else None."""
        own = self.shape_count.get(self.shape, 0)
        mine = self.shape_senders.get(self.shape, set())
        best = max((k for k in self.shape_count if k != self.shape), key=self.shape_count.get, default=None)
        if best is not None and self.shape_count[best] > own and mine <= self.shape_senders.get(best, set()):
            return best
        return None

    def foreign_votes(self) -> dict:
        """For each of ``"DMY"`` and ``"MDY"``, how many lines of another shape fit this file in that order only:
        written by someone who writes in the file's own shape, with a date that exists in that order and lies
        between the messages around it (a real line of this export, as :meth:`WhatsAppIngestor.read` accepts
        them: ``[13/01/2023, 7:02:11 PM] Ann: …`` atop a file of ambiguous dates is day-first)."""
        votes = {o: 0 for o in ORDERS}
        for h, before, after in self.foreign:
            a = _AUTHOR.match(h.rest)
            if not a or _sender_key(a["name"]) not in self.members:
                continue
            fits = []
            for order in ORDERS:
                when = _naive(h, order)
                lo = _naive(before, order) if before else None
                hi = _naive(after, order) if after else None
                if when is not None and (lo is None or lo <= when) and (hi is None or when <= hi):
                    fits.append(order)
            if len(fits) == 1:
                votes[fits[0]] += 1
        return votes

    def decide_order(self, dayfirst: bool, foreign: bool = True) -> tuple[str, str]:
        """``(order, basis)``: see the module docstring (``foreign=False``: without :meth:`foreign_votes`, as
        versions before them decided)."""
        if self.year_first:
            return "YMD", "dates"
        if self.short_year_first and not self.implausible["YMD"]:
            # "22. 12. 24." (Korean yy. M. d.) or "22/12/24" (British d/M/yy)? A year before WhatsApp (or
            # after now) refutes an order; then the order in which the dates run forwards; then the locale
            rivals = [o for o in ORDERS if not self.implausible[o]]
            if not rivals:
                return "YMD", "dates"
            if self.backwards["YMD"] < min(self.backwards[o] for o in rivals):
                return "YMD", "chronology"
            if _locale_order(self.marker, year_first=True) == "YMD":
                return "YMD", "locale"
            if self.korean:
                return "YMD", "separator"  # "yy. M. d.": Korean (Slovenian writes "d. MM. yy", no final dot)
        if self.day_first_votes or self.month_first_votes:
            return ("DMY" if self.day_first_votes >= self.month_first_votes else "MDY"), "dates"
        votes = self.foreign_votes() if foreign else {o: 0 for o in ORDERS}
        if votes["DMY"] != votes["MDY"]:  # a real export line of another shape ('[13/01/2023, …]') settles it
            return ("DMY" if votes["DMY"] > votes["MDY"] else "MDY"), "dates"
        if self.backwards["DMY"] != self.backwards["MDY"]:
            return ("DMY" if self.backwards["DMY"] < self.backwards["MDY"] else "MDY"), "chronology"
        if self.shape and self.shape[1] in ".-":
            return "DMY", "separator"  # 24.12.23, 24-12-2023: no locale writes month-first so
        hint = _locale_order(self.marker)
        if hint:
            return hint, "locale"
        return ("DMY" if dayfirst else "MDY"), "setting"


def decide_order(headers: list[_Header], dayfirst: bool) -> tuple[str, bool]:
    """The date order of these headers (all of one shape) and whether it was a guess (locale or setting)."""
    survey = Survey()
    for h in headers:
        survey.add(h)
    survey.settle()
    order, basis = survey.decide_order(dayfirst)
    return order, basis in ("separator", "locale", "setting")


def _sender_key(name: str) -> str:
    """A sender as shown, made comparable: marks dropped, spaces collapsed, the ``~`` WhatsApp puts before a
    name that is not in the phone's contacts (``"~\u202fNev"``) left out."""
    return _TILDE.sub("", " ".join(_clean(name).split()))


_TILDE = re.compile(r"^~\s*")
# "WhatsApp Chat with Ana", "WhatsApp-Chat mit Ana", "Chat de WhatsApp con Ana", "Chat WhatsApp con Ana",
# "Чат WhatsApp с Ana", "Czat WhatsApp z Ana", "WhatsApp-chatt med Ana", "Obrolan WhatsApp dengan Ana",
# "WhatsApp Chat - Family": up to two words, "WhatsApp", a word, then a joining word or a dash
_CHAT_TITLE = re.compile(r"^(?:[^\W\d_]+\s+){0,2}?whatsapp(?:[\s-]*[^\W\d_]+)??\s*"
                         r"(?:[-\u2013]|with|mit|con|avec|com|met|med|с|z|ze|ile|dengan|với|กับ)\s+(?P<title>.+)$",
                         re.I)
# what a browser or a file manager adds to a file saved twice: "WhatsApp Chat with Ana (1).txt", "… - Copy",
# "… - Kopie (2)", "… copy 2"
_SAVED_TWICE = re.compile(r"(?:\s*\(\d{1,3}\)|\s+-\s+(?:copy|kopie|copie|copia|kopia|kopio|kopi|копия)"
                          r"(?:\s*\(\d{1,3}\))?|\s+copy(?:\s+\d{1,3})?)$", re.I)


def _chat_stem(path: Path) -> str:
    """The export's name: the file's (the folder's for an iOS ``_chat.txt``), spaces collapsed, without what a
    browser or a file manager adds to a second copy (``(1)``, `` - Copy``)."""
    stem = path.stem
    if stem.lower() in {"_chat", "chat"} and path.parent.name:
        stem = path.parent.name
    stem = " ".join(stem.split())
    return _SAVED_TWICE.sub("", stem) or stem


def chat_title(path: Path) -> str | None:
    """The chat's name from the export's file name (``WhatsApp Chat with Ana.txt``) or, for an iOS
    ``_chat.txt``, its folder (``WhatsApp Chat - Family``), in the common locales; None when neither says."""
    m = _CHAT_TITLE.match(_chat_stem(path))
    return _sender_key(m["title"]) if m else None


def chat_owner(title: str | None, senders: list[str]) -> str | None:
    """Who exported a chat of two: the sender that is not the chat's ``title`` (WhatsApp names a one-to-one
    chat's export after the other person: ``WhatsApp Chat with Ana.txt`` written by Ana and Nic is Nic's),
    as :func:`_sender_key` writes it; None for a group, a chat of one sender, or a title naming neither."""
    if not title or len(senders) != 2 or title not in senders:
        return None
    return senders[0] if senders[1] == title else senders[1]


def system_senders(survey: "Survey", title: str | None, pasted: set[str] = frozenset()) -> set[str]:
    """Sender names (as :func:`_sender_key` writes them) that are a system line's words, not a person.

    * the chat's own name in a group of an iOS export (``title``, with two or more other senders, not counting
      those seen only on lines ``pasted`` into messages): iOS puts group notices under it (Android writes them
      with no sender: there the chat's name is a person);
    * a phone number followed by words (``"+1 555 010 0004 added you to a group in the community"``,
      an Android system line whose text holds a colon);
    * a sender seen once whose name is another sender's name followed by a lower-case word
      (``"Ana added Bo to the community"``).
    """
    names = set(survey.senders)
    out = set()
    people = [n for n in survey.members if n != title and n not in pasted]
    for name in names:
        if _PHONE_THEN_WORDS.match(name) and not _PHONE.match(name):
            out.add(name)
        elif survey.senders[name] == 1:
            for other in people:
                rest = name[len(other) + 1:]
                if other != name and name.startswith(other + " ") and rest[:1].islower():
                    out.add(name)
                    break
    # iOS (its "[date, time]" lines) puts a group's notices under the group's name; Android writes them with no
    # sender, so there the chat's name is a person ("WhatsApp Chat with Tom Weller.txt" where the owner also wrote
    # from a second number: Tom's lines were taken for notices and lost)
    ios = bool(survey.shape and survey.shape[0])
    if ios and title in names and len([n for n in people if n not in out]) >= 2:  # people: not system lines' words
        out.add(title)
    return out


_NAME_TAIL = re.compile(rf'^(?P<tail>[^\s:{_QUOTES}][^:{_QUOTES}\n]{{0,59}}?):(?: |$)')


def colon_senders(survey: "Survey") -> dict[str, str]:
    """Senders whose contact name holds ": " (``"Work: Anna"``, shown as ``Work: Anna: hi``): ``{name before
    the first colon: whole name}``, for each name under which two or more messages all start with the same
    ``"X: "`` of at most four words (one message alone cannot tell a name from a text such as ``"Note: …"``)."""
    return {key: f"{key}: {tail}" for key, tail in survey.name_tails.items()
            if tail and survey.senders.get(key, 0) >= 2 and len(tail.split()) <= 4
            and not (tail.isupper() or tail.casefold() in _LABELS)}


# words a sender's every message may start with that are no part of a name ("ALERT: …", "Reminder: …")
_LABELS = {"re", "fwd", "fw", "note", "ps", "p.s", "update", "reminder", "alert", "edit", "todo", "info", "warning",
           "error", "news", "hinweis", "rappel", "nota", "aviso", "erinnerung"}


def _clean(text: str) -> str:
    return text.translate({ord(c): None for c in _INVISIBLE})


def _sender(name: str) -> Party:
    name = _sender_key(name)
    if _PHONE.match(name) and sum(ch.isdigit() for ch in name) >= 6:
        return Party(None, name, "phone", "from")
    return Party(name, None, "phone", "from")


def scope_of_thread(thread: str) -> str:
    """A WhatsApp thread key as the chat it is (``ingestors.base.Record.scope``): ``whatsapp:`` and the chat's title
    when the export's name gives one (``whatsapp:whatsapp chat with ann``, ``whatsapp:whatsapp chat - ann`` →
    ``whatsapp:ann``), else the key as it is."""
    m = _CHAT_TITLE.match(thread.partition(":")[2])
    return "whatsapp:" + " ".join(m["title"].split()).casefold() if m else thread


def thread_key(path: Path) -> str:
    """``"whatsapp:<chat name>"`` from the export's file name (the folder's for ``_chat.txt``), lower-cased; a
    second copy's ``(1)`` or `` - Copy`` left out (:func:`_chat_stem`), so it is the same chat."""
    return "whatsapp:" + _chat_stem(path).casefold()


def _body(text: str, notes: list[str], attrs: dict) -> str:
    """Text of a message after media/deleted/edited markers (in the common locales) are read off."""
    edited = _EDITED.search(text)
    if edited:
        text = text[: edited.start()]
        notes.append("edited")
        attrs["edited"] = True
    bare = _clean(text).strip()
    m = _ATTACHED.match(bare)
    if m:
        attrs["media"] = m["a"] or m["b"]
        notes.append(f"attachment: {attrs['media']}")
        return m["caption"] or ""
    m = _ATTACHED_AFTER.match(bare)
    if m and m["caption"].strip():
        attrs["media"] = m["a"]
        notes.append(f"attachment: {attrs['media']}")
        return m["caption"].rstrip()
    if _OMITTED.match(bare) or _OMITTED_ANDROID.match(bare) or _OMITTED_ANY.match(bare) or bare == _VIEW_ONCE:
        attrs["media"] = "omitted"
        notes.append("media omitted from the export" + (" (view once)" if bare == _VIEW_ONCE else ""))
        return ""
    named = _OMITTED_NAMED.match(bare)
    if named:
        attrs["media"] = "omitted"
        attrs["media_name"] = named["name"].strip()
        notes.append(f"media omitted from the export: {attrs['media_name']}")
        return ""
    if _is_deleted(bare):
        attrs["deleted"] = True
        notes.append("deleted")
        return ""
    if _WAITING.match(bare):
        attrs["undelivered"] = True
        notes.append("not received: the phone was still waiting for this message")
        return ""
    return _strip_marks(text)


def _strip_marks(text: str) -> str:
    """``text`` without the bidi marks WhatsApp puts at its ends (inner ones are left as written)."""
    return text.strip(_INVISIBLE) if text[:1] in _INVISIBLE or text[-1:] in _INVISIBLE else text


def is_generated(text: str, multiline: bool) -> bool:
    """Whether a message's text is one WhatsApp wrote, not its sender (an iOS system line).

    iOS exports put a system line under a sender (the group's name, the chat partner, the actor:
    ``"Family: \u200eAna added you"``) and mark WhatsApp's own text with U+200E at its start.  Such a
    one-line text is generated unless it is a media, attachment or deleted placeholder (a record with a
    note) or holds a link (a shared location).
    """
    if multiline or not text.lstrip(" ").startswith(_LRM):
        return False
    bare = _clean(text).strip()
    if not bare or "://" in bare or _ATTACHED.match(bare) or _ATTACHED_AFTER.match(bare) or _OMITTED.match(bare) \
            or _OMITTED_ANDROID.match(bare) or _OMITTED_NAMED.match(bare):
        return False
    return not _is_deleted(bare)


RECODED_NOTE = "bytes that are not UTF-8 read as Windows-1252"
NUL_NOTE = "NUL bytes removed (the file was padded or holed with zero bytes)"


def _drop_nuls(line, n: int, nuls: set[int] | None):
    """``line`` (bytes or str) without its NUL characters, or None when nothing else was in it; ``n`` goes to ``nuls``."""
    if nuls is not None:
        nuls.add(n)
    line = line.replace(b"\x00" if isinstance(line, bytes) else "\x00", b"" if isinstance(line, bytes) else "")
    return line if line.strip() else None


def text_encoding(head: bytes) -> str:
    """The encoding of an export from its first bytes: ``"utf-16"`` with a UTF-16 BOM (Windows'
    "Unicode" re-save), ``"utf-16-le"``/``"utf-16-be"`` when about every other byte of the start is NUL
    (UTF-16 without a BOM), else ``"utf-8"`` (a UTF-8 BOM is dropped by the reader)."""
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) and not head.startswith(codecs.BOM_UTF32_LE):
        return "utf-16"
    sample = head[:256]
    sample = sample[: len(sample) // 2 * 2]
    if len(sample) >= 8:
        even, odd = sample[0::2].count(0), sample[1::2].count(0)
        if odd >= len(sample) // 4 and even <= odd // 8:  # (a few: U+xx00 characters, "\ude00")
            return "utf-16-le"
        if even >= len(sample) // 4 and odd <= even // 8:
            return "utf-16-be"
    return "utf-8"


EXPORT_SHAPE = "'31/12/2023, 21:05 - Name: text'"
"""How a WhatsApp export's message lines look, as the reasons of :func:`why_not_an_export` show them."""
_SCAN_LINES = 100_000  # lines :func:`why_not_an_export` looks through for a message line


def looks_binary(head: bytes) -> bool:
    """Whether the first bytes of a file are binary data rather than text in any encoding an export is written in.

    Args:
        head: the file's first bytes (a few KiB).
    Returns:
        True when, read as :func:`text_encoding` says (UTF-8 with stray Windows-1252 bytes, or UTF-16), more than
        a quarter of the bytes are not UTF-8 or more than 5% of the characters are control characters other than
        tab, line and page breaks (random bytes, an image, a database); False for text and for ``b""``.
    """
    if not head:
        return False
    encoding = text_encoding(head)
    if encoding == "utf-8":
        text, bad, _ = decode_utf8_or_1252(head, final=False)
        if bad > len(head) // 4:
            return True
    else:
        text = head[:len(head) // 2 * 2].decode(encoding, "replace")
        if text.count("\ufffd") > len(text) // 4:
            return True
    controls = sum(1 for ch in text if unicodedata.category(ch) == "Cc" and ch not in "\t\n\r\x0b\x0c")
    return controls > max(1, len(text) // 20)


_BLANK_BYTES = b" \t\r\n\x0b\x0c\x00"


def blank_file_reason(path: Path, head: bytes) -> str | None:
    """``"empty file (only zero bytes)"`` / ``"empty file (only blank lines)"`` when the whole file (read when it
    is at most 1 MiB; else ``head`` alone decides nothing) holds nothing but :data:`_BLANK_BYTES` (a UTF-8 or
    UTF-16 byte order mark aside); else None."""
    try:
        if path.stat().st_size > (1 << 20):
            return None
        data = path.read_bytes()
    except OSError:
        return None
    for bom in (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        if data.startswith(bom):
            data = data[len(bom):]
            break
    if data.strip(_BLANK_BYTES):
        return None
    return "empty file (only zero bytes)" if data and not data.strip(b"\x00") else "empty file (only blank lines)"


def _shown(line: str, width: int = 60) -> str:
    """A line as a reason quotes it: stripped of marks and spaces, cut to ``width`` characters with '…'."""
    line = "".join(ch for ch in line if ch not in _MARKS and unicodedata.category(ch) != "Cc").strip()
    return line if len(line) <= width else line[:width - 1].rstrip() + "…"


def why_not_an_export(path: Path) -> str:
    """What keeps a text file from being read as a WhatsApp chat export: the reason an import shows for it.

    Args:
        path: a file (a ``.txt`` the registry found no reader for).
    Returns:
        ``"empty file"`` (no bytes); ``"empty file (only blank lines)"`` / ``"empty file (only zero bytes)"``
        (nothing but spaces and line breaks; NUL bytes); ``"not a WhatsApp chat export: binary data, not text"``
        (:func:`looks_binary`); ``"not a WhatsApp chat export: no line starts with a date and time like
        '31/12/2023, 21:05 - Name: text' (first line: 'Meeting notes')"`` (looked for in the first
        :data:`_SCAN_LINES` lines: "none of its first N lines starts" when there are more); when the message
        lines come only after more than :data:`MAX_LEAD_LINES` lines of other text, or only one comes after
        other text, which line it is; ``"cannot read: …"`` when the file cannot be read.
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    if not head:
        return "empty file"
    if not head.strip(_BLANK_BYTES):  # only spaces, line breaks, zero bytes so far: the whole file?
        blank = blank_file_reason(path, head)
        if blank:
            return blank
    elif looks_binary(head):
        return "not a WhatsApp chat export: binary data, not text"
    first = None
    lead = headers = 0
    at = None  # the first message line's number
    seen = 0
    try:
        for n, line in WhatsAppIngestor._lines(path):
            seen = n
            if n > _SCAN_LINES:
                break
            if _parse_header(line, n):
                headers += 1
                at = at or n
                if headers >= 2:
                    break
                continue
            if line.strip(" \t\ufeff" + _MARKS + _SPACES) and first is None:
                first = line
            if line.strip() and not headers:
                lead += 1
    except InputError as exc:
        return exc.reason
    if first is None and not headers:
        return "empty file (only blank lines)"
    quoted = f"first line: '{_shown(first)}'" if first is not None else ""
    if not headers:
        where = f"none of its first {_SCAN_LINES:,} lines starts" if seen > _SCAN_LINES else "no line starts"
        return f"not a WhatsApp chat export: {where} with a date and time like {EXPORT_SHAPE} ({quoted})"
    if lead > MAX_LEAD_LINES:
        return (f"not a WhatsApp chat export: {lead} lines of other text come before the first line that starts "
                f"with a date and time (line {at}); an export starts with one ({quoted})")
    return (f"not a WhatsApp chat export: only one line starts with a date and time (line {at}), after "
            f"{lead} line{'s' if lead != 1 else ''} of other text ({quoted})")


class WhatsAppIngestor:
    """Reads a WhatsApp "Export chat" ``.txt`` file: one Record per message, in file order.

    Claims no suffix (``.txt`` is everyone's); the registry picks it by :meth:`sniff`.
    """

    name = "whatsapp"
    suffixes = frozenset()

    def __init__(self, local_timezone: str = "UTC", dayfirst: bool = True):
        """
        Args:
            local_timezone: IANA zone the phone's clock was in (export times carry no zone).
            dayfirst: date order to use when no date in a file settles it.
        Raises:
            ValueError: ``local_timezone`` is not a known zone.
        """
        self.local_timezone = time_zone(local_timezone)
        self.dayfirst = dayfirst

    def sniff(self, path: Path, head: bytes) -> float:
        """0.9 when the first non-empty line of ``head`` (UTF-8, or UTF-16 as :func:`text_encoding` finds it)
        is a WhatsApp message header; 0.7 when up to :data:`MAX_LEAD_LINES` lines of text come first (a file
        starting inside a message) and two or more headers follow in ``head``; else 0."""
        text = head.decode(text_encoding(head), "replace").replace("\x00", "")  # zero bytes: see _lines
        lead = headers = 0
        for line in text.splitlines():
            if not line.strip():
                continue
            if _parse_header(line, 1):
                if not lead:
                    return 0.9
                headers += 1
                if headers >= 2:
                    return 0.7
            elif not headers:
                lead += 1
                if lead > MAX_LEAD_LINES:
                    return 0.0
        return 0.0

    @staticmethod
    def _lines(path: Path, recoded: set[int] | None = None, nuls: set[int] | None = None) -> Iterator[tuple[int, str]]:
        """``(line number, text)`` of each line, read lazily (``\\n``, ``\\r\\n`` or ``\\r`` ends a line).

        The encoding is :func:`text_encoding`'s (UTF-8, a BOM dropped; UTF-16 with a BOM, or without one
        when every other byte of the start is NUL).  In UTF-8, a byte that is not part of valid UTF-8 (a
        line re-saved as Windows-1252 or Latin-1: ``caf\\xe9``) is read as its Windows-1252 character
        (Latin-1 for the five bytes Windows-1252 leaves undefined), so no byte is lost; the numbers of
        such lines are added to ``recoded``.  Broken UTF-16 becomes U+FFFD.  NUL characters (a file padded
        or holed with zero bytes by a crash or a half-synced copy) are dropped, a line of nothing else is
        left out, and the numbers of such lines are added to ``nuls``.

        Raises:
            InputError: the file cannot be opened.
        """
        try:
            fh = open(path, "rb")
        except OSError as exc:
            raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from exc
        with fh:
            encoding = text_encoding(fh.read(4096))
            fh.seek(0)
            if encoding != "utf-8":
                with io.TextIOWrapper(fh, encoding=encoding, errors="replace", newline=None) as text:
                    for n, line in enumerate(text, 1):  # the "utf-16" codec drops the BOM itself
                        line = line[:-1] if line.endswith("\n") else line
                        if "\x00" in line:
                            line = _drop_nuls(line, n, nuls)
                            if line is None:
                                continue
                        yield n, line
                return
            if fh.read(3) != codecs.BOM_UTF8:
                fh.seek(0)
            n = 0
            for raw in fh:
                raw = raw[:-1] if raw.endswith(b"\n") else raw
                raw = raw[:-1] if raw.endswith(b"\r") else raw
                for part in raw.split(b"\r"):  # a lone CR ends a line too (as in universal newlines)
                    n += 1
                    if b"\x00" in part:
                        part = _drop_nuls(part, n, nuls)
                        if part is None:
                            continue
                    text, bad, _ = decode_utf8_or_1252(part)
                    if bad and recoded is not None:
                        recoded.add(n)
                    yield n, text

    def survey(self, path: Path, shape: tuple | None = None) -> Survey:
        """First pass: the file's header shape, date-order evidence, members and other-shape lines.

        Args:
            path: the export.  shape: the header shape the file is written in; None: its first header's,
                unless :meth:`Survey.main_shape` finds the file written in another (then read again with it).
        Raises:
            InputError: the file cannot be read, or its first non-empty line is not a message header.
        """
        survey = Survey(shape=shape)
        lead = headers = 0  # lines of text before the first header (a file starting inside a message); headers
        for n, line in self._lines(path):
            h = _parse_header(line, n)
            if h is None:
                if line.strip() and not headers and shape is None:
                    lead += 1
                    if lead > MAX_LEAD_LINES:
                        raise InputError(str(path), NOT_AN_EXPORT)
                survey.more(line)
                continue
            headers += 1
            survey.add(h)
        if lead and headers < 2:  # text, then at most one header-shaped line: no chat export
            raise InputError(str(path), NOT_AN_EXPORT)
        survey.settle()
        if shape is None:
            main = survey.main_shape()
            if main is not None:
                return self.survey(path, main)
        return survey

    def read(self, path: Path) -> Iterator[Item]:
        """Yield one Record per message (kind ``"chat"``, ``sent_at`` local, tz-aware), in file order.

        Args:
            path: the exported ``.txt`` (UTF-8, a BOM allowed; bad bytes become U+FFFD).
        Raises:
            InputError: the file cannot be read, or its first non-empty line is not a message header.
        """
        path = Path(path)
        survey = self.survey(path)
        if survey.shape is None:
            return
        order, basis = survey.decide_order(self.dayfirst)
        former_order = survey.decide_order(self.dayfirst, foreign=False)[0]  # how imports before foreign votes read it
        pasted, pasted_only = survey.pasted(order)  # lines of this shape pasted into a message: its text
        title = chat_title(path)
        not_people = system_senders(survey, title, pasted_only) | pasted_only
        colon_names = colon_senders(survey)
        members = [_sender(colon_names.get(name, name)) for name, valid in survey.members.items()
                   if order in valid and name not in not_people]
        own = {(p.name, p.address) for p in members}
        owner = chat_owner(title, [n for n, valid in survey.members.items() if order in valid and n not in not_people])
        owner = _sender(colon_names.get(owner, owner)) if owner else None
        accepted = set()  # other-shape lines that are real messages of this chat
        for h, before, after in survey.foreign:
            a = _AUTHOR.match(h.rest)
            when, lo = _naive(h, order), _naive(before, order) if before else None
            hi = _naive(after, order) if after else None
            if (a and (_sender(a["name"]).name, _sender(a["name"]).address) in own and when is not None
                    and (lo is None or lo <= when) and (hi is None or when <= hi)):
                accepted.add(h.line)
        guessed_note = None
        if basis in ("separator", "locale", "setting"):
            why = (f"the {survey.marker!r} clock marker's locale" if basis == "locale" else
                   f"the {survey.shape[1]!r} between the date's fields" if basis == "separator" else "the setting")
            guessed_note = ("day/month order not settled by any date in the file; read as "
                            + {"DMY": "day-first", "MDY": "month-first"}.get(order, "year-first") + f" ({why})")

        thread = thread_key(path)
        scope = scope_of_thread(thread)
        recoded: set[int] = set()  # lines whose bytes were not all UTF-8
        nuls: set[int] = set()  # lines that held NUL bytes
        pending_events: list[dict] = []
        last: Record | None = None
        block: _Header | None = None
        order_of_times = FileOrder()  # a wall time the zone had twice: the one that keeps the file's order

        def finish(h: _Header, upto: float) -> Record | None:
            """The block's Record, or None for a system line (kept for the next message)."""
            notes: list[str] = []
            read_as = self._when(h, order, notes)
            sent_at = order_of_times.place(read_as, notes)
            extra = h.extra
            while extra and not extra[-1].strip():  # blank lines before the next header (or the end of the
                extra = extra[:-1]  # file) are none of the message: WhatsApp trims a message's end when it is sent
            marked = [x for x in extra if x[:1] in _LINE_MARKS]
            if marked:  # iOS opens a poll's or a card's lines with a direction mark: no part of the words
                raw_body = "\n".join([h.rest] + extra)
                extra = [x.lstrip(_LINE_MARKS) for x in extra]
            body = "\n".join([h.rest] + extra)
            m = _AUTHOR.match(body)
            key = _sender_key(m["name"]) if m else None
            if not m or key in not_people:
                pending_events.append({"line": h.line, "at": sent_at.isoformat(), "text": _clean(body).strip()})
                return None
            name, said = m["name"], m["text"]
            tail = _NAME_TAIL.match(said) if key in colon_names else None
            if tail:  # "Work: Anna: hi": the contact's name holds ": "
                name, said = colon_names[key], said[tail.end():]
            if is_generated(said, any(x.strip() for x in h.extra)):
                pending_events.append({"line": h.line, "at": sent_at.isoformat(), "text": _clean(said).strip(),
                                       "shown_as": key})
                return None
            sender = _sender(name)
            attrs: dict = {"time_basis": "assumed-local", "timezone": self.local_timezone.key,
                           "date_order": order, "date_order_basis": basis, "line": h.line}
            if owner is not None:  # the one who exported the chat: the owner (core.graph.parties)
                if owner.name:
                    attrs["owner_name"] = owner.name
                if (sender.name, sender.address) == (owner.name, owner.address):
                    attrs["is_from_me"] = True
            if guessed_note:
                notes.append(guessed_note)
            if h.shape != survey.shape:
                attrs["line_shape"] = "other"
            calendar = calendar_of(_year(h.f1 if h.year_first or order == "YMD" else h.f3))
            if calendar:
                attrs["calendar"] = calendar
                notes.append(f"date written in the {'Solar Hijri' if calendar == 'persian' else 'Hijri (Umm al-Qura)'}"
                             f" calendar, read as {sent_at:%Y-%m-%d}")
            if any(h.line <= n <= max(h.line, h.end) for n in recoded):
                notes.append(RECODED_NOTE)
            if any(h.line <= n <= upto for n in nuls):  # its lines, or zero bytes padding it up to the next
                notes.append(NUL_NOTE)
            if h.size > MAX_MESSAGE_CHARS:
                notes.append(f"message longer than {MAX_MESSAGE_CHARS} characters: its end was left out")
            if pending_events:
                attrs["system_events"] = list(pending_events)
                pending_events.clear()
            text = _body(said, notes, attrs)
            former_text = None
            if not text and isinstance(attrs.get("media"), str) and attrs["media"] != "omitted":
                # "IMG-20230512-WA0003.jpg (file attached)" alone: the line says what it sent, so it is found
                # ("did Teddy send me a photo?"); imports before this stored it empty: that record is this one
                text, former_text = f"[attached: {attrs['media']}]", ""
            if marked and former_text is None:  # the text as imports before the marks were dropped stored it
                raw = _AUTHOR.match(raw_body)
                raw_said = raw["text"] if raw else said
                raw_tail = _NAME_TAIL.match(raw_said) if tail else None
                if raw_tail:
                    raw_said = raw_said[raw_tail.end():]
                former_text = _body(raw_said, [], dict(attrs))
            return Record(source_path=str(path.absolute()), external_id=f"line {h.line}", kind="chat",
                          text=text, sent_at=sent_at, sender=sender, recipients=other_members(members, sender),
                          thread=thread, attrs=attrs, notes=notes, scope=scope,
                          former_text=former_text if former_text != text else None,
                          former_sent_at=read_as if sent_at is not read_as else
                          self._when(h, former_order, []) if former_order != order else None)

        lead: list[tuple[int, str]] = []  # the lines before the first message's header

        def headless(before: _Header | None) -> Iterator[Record]:
            """The lines the file starts with before its first header, as a record of unknown sender and time."""
            while lead and not lead[-1][1].strip():
                lead.pop()
            while lead and not lead[0][1].strip():
                lead.pop(0)
            if not lead:
                return
            notes, attrs = [LEAD_NOTE], {"line": lead[0][0], "headless": True}
            if before is not None:
                attrs["before"] = self._when(before, order, []).isoformat()
            if owner is not None and owner.name:
                attrs["owner_name"] = owner.name
            if any(lead[0][0] <= n <= lead[-1][0] for n in recoded):
                notes.append(RECODED_NOTE)
            text = _body("\n".join(line for _, line in lead), notes, attrs)
            lead.clear()
            yield Record(source_path=str(path.absolute()), external_id=f"line {attrs['line']}", kind="chat",
                         text=text, sent_at=None, sender=None, recipients=other_members(members, None),
                         thread=thread, attrs=attrs, notes=notes, scope=scope)

        for n, line in self._lines(path, recoded, nuls):
            h = _parse_header(line, n)
            starts = h is not None and self._when(h, order, []) is not None and (
                h.shape == survey.shape or n in accepted) and n not in pasted
            if starts:
                if block is None and lead:
                    yield from headless(h)
                if block is not None:
                    rec = finish(block, n - 1)
                    if rec is not None:
                        if last is not None:
                            yield last
                        last = rec
                block = h
                block.size, block.end = len(h.rest), n
            elif block is not None:
                block.size += len(line) + 1
                block.end = n
                if block.size <= MAX_MESSAGE_CHARS:
                    block.extra.append(line)
            else:
                lead.append((n, line))
        if block is None:
            yield from headless(None)
        if block is not None:
            rec = finish(block, float("inf"))
            if rec is not None:
                if last is not None:
                    yield last
                last = rec
        if last is not None:
            if pending_events:
                last.attrs.setdefault("system_events", []).extend(pending_events)
            yield last

    def _when(self, h: _Header, order: str, notes: list[str]) -> datetime | None:
        """The header's wall-clock time in ``local_timezone`` (tz-aware, its own offset), or None when impossible."""
        year, month, day = _ymd(h, order)
        hour = _hour(h, notes)
        try:
            local = datetime(year, month, day, hour, h.minute, h.second, tzinfo=self.local_timezone)
        except ValueError:
            return None
        return local
