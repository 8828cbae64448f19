"""Whose words a mail's text holds: the writer's own lines, apart from what they quote or forward.

A reply carries the message it answers (``> I live in Berlin now.`` under ``On Mon, … Uma wrote:``) and a
forward carries someone else's message under a separator line; neither is the writer's own statement, so
facts about the writer are read from :func:`own_words` only.  A quote that runs to the end of a reply, under an
attribution line or Outlook's header block, is cut off by :func:`split_reply_quote` into a record of its own writer's
(``ingestors.mbox``), as a forward is; so is a ``>`` quote above or between the writer's answers (bottom-posted,
interleaved) under an attribution line, or whose first quoted line is the attribution (Apple Mail's ``<blockquote
type="cite">`` holds ``On … wrote:``), or that the caller names the writer of (the person the reply answers).  A
quoted date whose day and month read either way is read in the order that puts it before the reply.

Recognised, in the forms the common clients write:

* quoted lines: starting ``>`` (plain-text replies; HTML ``<blockquote>`` is written so by
  ``ingestors.mbox.html_to_text``);
* attribution lines: ``On … wrote:`` (also wrapped over two lines), ``Am … schrieb …:``, ``Le … a écrit :``,
  ``El … escribió:``, ``Il … ha scritto:``, ``Op … schreef …:``, ``Em … escreveu:``, ``… skrev …:``,
  ``W dniu … napisał:``, ``W dniu …, Ann pisze:``, ``… kirjoitti:``, ``… написал:``, ``Dne … napsal(a):``,
  ``… Ann írta:``, ``… tarihinde Ann yazdı:``, ``… に Ann さんは書きました:``, ``…のメール：``, ``在 …, Ann 写道:``,
  ``… 寫道：``, ``…님이 작성:``, ``… <address> wrote:``;
  and above ``>`` lines,
  any line ending with ``:`` that names an address, a date or a verb of saying (mutt's ``* Ann (a@…)
  [000614 18:05]:``, Gnus' ``Ann <a@…> writes:``, ``Quoting Ann:``, ``Ann wrote:``); above a quote not marked
  with ``>`` (Yahoo's webmail), any line ending with ``:`` that names an address or a verb of writing and a
  dated year (``… hat Ann <a@…> Folgendes geschrieben:``, ``…, 10:00 tarihinde şunu yazdı:``);
* separators: ``---------- Forwarded message ---------`` (Gmail), ``-------- Forwarded Message --------``
  (Thunderbird; in any language when a header block with a ``From:`` line in a client's language follows:
  ``-------- Message transféré --------`` / ``Sujet :`` / ``Date :`` / ``De :`` / ``Pour :``), ``Begin forwarded message:`` (Apple Mail), ``-----Original Message-----`` (Outlook), each
  also in the common European languages (``-----Ursprüngliche Nachricht-----``, ``Début du message
  réexpédié :``…), and Outlook's header block (``From:`` then ``Sent:``/``Date:`` and ``To:``/``Subject:``
  lines, maybe under a line of underscores; also as Outlook writes them in other languages: ``Von:``/
  ``Gesendet:``, ``De :``/``Envoyé :``, ``De:``/``Enviado:``/``Para:``/``Asunto:``, ``Da:``/``Inviato:``,
  ``Van:``/``Verzonden:``, ``Från:``/``Skickat:``, ``Kimden:``/``Gönderildi:``, ``差出人:``/``送信日時:``,
  ``发件人:``/``发送时间:``, ``Feladó:``/``Elküldve:``, ``Από:``/``Στάλθηκε:``, ``보낸 사람:``/``보낸 날짜:``…).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

FORWARD_MARK = re.compile(
    r"^[ \t]*(?:-{2,}[ \t]*(?:Forwarded message|Forwarded Message|Weitergeleitete Nachricht|Message transféré|"
    r"Mensaje reenviado|Messaggio inoltrato|Mensagem encaminhada|Doorgestuurd bericht|Vidarebefordrat meddelande|"
    r"Videresendt meddelelse|Videresendt melding|Wiadomość przekazana dalej|Välitetty viesti|"
    r"Пересылаемое сообщение|Пересланное сообщение)[ \t]*-*|"
    r"(?:Begin forwarded message|Anfang der weitergeleiteten Nachricht|Début du message réexpédié|"
    r"Inicio del mensaje reenviado|Inizio messaggio inoltrato|Início da mensagem reencaminhada|"
    r"Begin doorgestuurd bericht)[ \t]*:?)[ \t]*$", re.I | re.M)
"""A line that starts a forwarded message in the text (Gmail, Thunderbird, Apple Mail; a few languages)."""
_ORIGINAL_MARK = re.compile(
    r"^[ \t]*-{2,}[ \t]*(?:Original Message|Ursprüngliche Nachricht|Message d'origine|Mensaje original|"
    r"Messaggio originale|Oorspronkelijk bericht|Mensagem original|Originalmeddelande|Oprindelig meddelelse|"
    r"Opprinnelig melding|Wiadomość oryginalna|Alkuperäinen viesti|Исходное сообщение)[ \t]*-{2,}[ \t]*$", re.I)
# Lotus Notes' reply separator: "-----John Smith/Acme wrote: -----" (its quoted header block follows, To: first)
_NOTES_REPLY = re.compile(r"^[ \t]*-{3,}[ \t]*\S[^\n]{0,80}?\s(?:wrote|schrieb|a [ée]crit|escribi[óo]|ha scritto|"
                          r"schreef|escreveu|skrev|napisa[łl]a?):?[ \t]*-{3,}[ \t]*$", re.I)
_LEAD = (r"On\s.+\swrote|Am\s.+\sschrieb.*|Le\s.+\sa\s[ée]crit\s?|El\s.+\sescribi[óo]|Il\s.+\sha\sscritto|"
         r"Op\s.+\sschreef.*|Em\s.+\sescreveu|\S.*\d.*\sskrev\s.+|"
         r"(?:W\sdniu|Dnia)\s.+\s(?:napisał(?:a|\(a\))?|pisze).*|"  # Polish: Gmail, Thunderbird ("… pisze:")
         r".*\d.*\skirjoitti.*|.*\d.*\sнаписал(?:а|\(а\))?.*|.*\d.*\snapsal(?:a|\(a\))?.*|"
         r".*\d.*\s(?:ezt\s)?írta.*|.*\d.*\s(?:şunu\s|şunları\s)?yazdı|"  # Hungarian, Turkish (Thunderbird, Gmail)
         r".*\d.*\sέγραψε|.*\d.*\sa\sscris|.*\d.*\sнаписа(?:в|ла)|"  # Greek, Romanian, Ukrainian
         r".*\d.*(?:写道|寫道|書きました|のメール|작성)")  # Chinese, Japanese, Korean (after a date)
_COLON = r"[:：]"  # Chinese and Japanese clients end the line with a full-width colon
_ATTRIBUTION = re.compile(rf"^[ \t]*(?:{_LEAD}|[^:]{{0,80}}@[^:]{{1,80}}\swrote)[ \t]*{_COLON}[ \t]*$", re.I)
_WRAPPED = re.compile(rf"^[ \t]*(?:{_LEAD})[ \t]*{_COLON}[ \t]*$", re.I)  # "On … <" + "a@b> wrote:" on two lines
# Outlook's header block above a quoted message, in the languages Outlook writes it in
_FROM_NAMES = {"from", "von", "de", "da", "van", "från", "fra", "od", "lähettäjä", "от",
               # Outlook in Turkish, Japanese, Chinese, Hungarian, Greek, Korean, Romanian, Ukrainian, Arabic,
               # Hebrew, Croatian, Indonesian, Vietnamese, Thai, Czech
               "kimden", "gönderen", "差出人", "送信者", "发件人", "發件人", "寄件者", "寄件人", "feladó", "από",
               "보낸 사람", "de la", "від", "من", "מאת", "šalje", "pošiljatelj", "dari", "từ", "จาก", "odesílatel",
               # Thunderbird's forward header block (Italian, Polish, French, German, Dutch, Swedish, Spanish,
               # Slovak, Chinese (Taiwan))
               "mittente", "nadawca", "expéditeur", "absender", "afzender", "avsändare", "remitente", "odosielateľ",
               "發信人"}
_SENT_NAMES = {"sent", "date", "gesendet", "datum", "envoyé", "enviado", "enviada", "inviato", "verzonden",
               "skickat", "sendt", "wysłano", "lähetetty", "отправлено", "data",
               "gönderildi", "tarih", "送信日時", "日付", "发送时间", "發送時間", "寄件日期", "日期", "odesláno",
               "odoslané", "elküldve", "dátum", "στάλθηκε", "ημερομηνία", "보낸 날짜", "날짜", "trimis", "dată",
               "надіслано", "enviada em", "تاريخ الإرسال", "التاريخ", "נשלח", "תאריך", "poslano", "dikirim",
               "tanggal", "đã gửi", "ngày", "ส่ง", "วันที่",
               "fecha", "päiväys", "dato", "wysłane", "data e hora", "dátum és idő", "дата"}
_TO_ONLY = {"to", "an", "à", "para", "a", "aan", "till", "til", "do", "vastaanottaja", "кому",
            "kime", "alıcı", "宛先", "收件人", "收件者", "komu", "címzett", "προς", "받는 사람", "către", "إلى", "אל",
            "prima", "kepada", "đến", "ถึง",
            # Thunderbird's forward header block: French "Pour :", Polish "Adresat:", Spanish/Italian "Destinatario:"
            "pour", "adresat", "destinatario", "destinataire", "empfänger", "destinatário", "mottagare"}
_SUBJECT_NAMES = {"subject", "betreff", "objet", "asunto", "assunto", "oggetto", "onderwerp", "ämne", "emne", "temat",
                  "aihe", "тема", "konu", "件名", "主题", "主旨", "předmět", "predmet", "tárgy", "θέμα", "제목",
                  "subiect", "الموضوع", "נושא", "subjek", "chủ đề", "เรื่อง",
                  "sujet", "assumpte", "naslov", "aihe"}
# the other lines of Thunderbird's forward header block (Reply-To, Cc) in its languages
_OTHER_NAMES = {"reply-to": "Reply-To", "répondre à": "Reply-To", "antwort an": "Reply-To", "responder a": "Reply-To",
                "rispondi a": "Reply-To", "antwoord naar": "Reply-To", "odpowiedź do": "Reply-To",
                "svara till": "Reply-To", "odpověď na": "Reply-To", "vastausosoite": "Reply-To",
                "copie à": "Cc", "kopie": "Cc", "kopia": "Cc", "copia": "Cc", "cc": "Cc", "cco": "Bcc", "ccn": "Bcc",
                "bcc": "Bcc", "kopie an": "Cc", "копия": "Cc"}
_TO_NAMES = _TO_ONLY | _SUBJECT_NAMES
HEADER_NAMES = {**dict.fromkeys(_FROM_NAMES, "From"), **dict.fromkeys(_SENT_NAMES, "Date"),
                **dict.fromkeys(_TO_ONLY, "To"), **dict.fromkeys(_SUBJECT_NAMES, "Subject"), **_OTHER_NAMES}
"""The header names of a quoted or forwarded message's header block as mail clients write them in their
languages (casefolded) → the RFC 5322 name (``"gesendet"`` → ``"Date"``, ``"差出人"`` → ``"From"``)."""
_ALL_NAMES = "|".join(map(re.escape, sorted(_FROM_NAMES | _SENT_NAMES | _TO_NAMES | set(_OTHER_NAMES), key=len,
                                             reverse=True)))
_HEADER = re.compile(r"^[ \t]*\*?(" + _ALL_NAMES + r")\*?[ \t]*[:：][ \t]*(.*)$", re.I)
_DASHED_LINE = re.compile(r"^[ \t]*-{8,10}[ \t]+[^\s-][^\n]{0,50}?[ \t]+-{8,10}[ \t]*$")
_DASHED_FORWARD = re.compile(
    r"^[ \t]*-{8,10}[ \t]+[^\s-][^\n]{0,50}?[ \t]+-{8,10}[ \t]*\n(?=(?:[ \t]*\n)*(?:[ \t]*\*?(?:" + _ALL_NAMES
    + r")\*?[ \t]*[:：][^\n]*\n(?:[ \t]*\n)?){0,5}[ \t]*\*?(?:"
    + "|".join(map(re.escape, sorted(_FROM_NAMES, key=len, reverse=True))) + r")\*?[ \t]*[:：])", re.I | re.M)
"""Gmail's and Thunderbird's forward separator in any language (``---------- 転送されたメッセージ ---------``,
``-------- Přeposlaná zpráva --------``: eight to ten dashes, words, eight to ten dashes) when a header block with
a ``From:`` line (in a client's language) follows it: Gmail puts ``From:`` first, Thunderbird ``Subject:`` and
``Date:`` above it."""


def _dashed_forward(lines: list[str], i: int) -> bool:
    """True when ``lines[i]`` is a :data:`_DASHED_FORWARD` separator (the next non-blank line names the sender)."""
    if not _DASHED_LINE.match(lines[i]):
        return False
    block = [x for x in lines[i + 1:i + 14] if x.strip()][:6]
    for x in block:
        h = _HEADER.match(x)
        if h is None:
            return False
        if h.group(1).casefold() in _FROM_NAMES:
            return True
    return False


_RULE = re.compile(r"^[ \t]*_{8,}[ \t]*$")
_INTRO = re.compile(r"^.{1,200}:[ \t]*$")
_INTRO_SIGN = re.compile(r"@|\b(?:wrote|writes|said|says|schrieb|schreibt|[ée]crit|escribi[óo]|scritto|schreef|skrev|"
                         r"kirjoitti|napisa[łl]|pisze|napsal|написал|escreveu|quoting|zitat|írta|yazdı|έγραψε)\b|"
                         r"写道|寫道|書きました|のメール|작성|\d{1,4}[-/.:]\d{1,2}|"
                         r"\[[^\]]*\d[^\]]*\]", re.I)


_LOOSE_LINE = re.compile(r"^[ \t]*[^>\s].{8,300}[:：][ \t]*$")
_LOOSE_WHO = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b(?:wrote|schrieb|geschrieben|[ée]crit|escribi[óo]|scritto|"
                        r"schreef|escreveu|skrev|kirjoitti|napisa[łl]|pisze|napsal|написал|yazd[ıi]|menulis|έγραψε|"
                        r"[íi]rta)\b|写道|寫道|작성|のメール|書きました", re.I)
_LOOSE_WHEN = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)|(?<!\d)\d{1,2}[./]\d{1,2}[./]\d{2,4}(?!\d)")


def _loose_attribution(line: str) -> bool:
    """True for an attribution line in a language or order the patterns above do not name, as webmail writes
    it above a quote it does not mark with ``>`` (Yahoo's ``Am Montag, 4. März 2024, 10:00:00 MEZ hat Ann
    <a@…> Folgendes geschrieben:``, ``Ann <a@…>, 4 Mar 2024 Pzt, 10:00 tarihinde şunu yazdı:``): a line
    ending with ``:`` that names an address or a verb of writing, and a date with its year."""
    return bool(_LOOSE_LINE.match(line) and _LOOSE_WHO.search(line) and _LOOSE_WHEN.search(line))


def _introduces_quote(lines: list[str], i: int) -> bool:
    """True when ``lines[i]`` is an attribution in a client's own style — a line ending with ``:`` right above
    quoted (``>``) lines that names an address, a date or time, or a verb of saying: mutt's ``* Cristy
    (cristy@…) [000614 18:05]:``, Gnus' ``Cristy <c@…> writes:``, ``Quoting Ann <a@…>:``, ``Ann wrote:``."""
    line = lines[i]
    if not _INTRO.match(line) or line.lstrip().startswith(">"):
        return False
    nxt = next((x for x in lines[i + 1:] if x.strip()), "")
    return nxt.lstrip().startswith(">") and bool(_INTRO_SIGN.search(line))


def _outlook_block(lines: list[str], i: int) -> bool:
    """True when ``lines[i]`` starts an Outlook-style header block: ``From:`` then, within the next five lines,
    a ``Sent:``/``Date:`` line and a ``To:``/``Subject:`` line."""
    m = _HEADER.match(lines[i])
    if not m or m.group(1).casefold() not in _FROM_NAMES:
        return False
    names = {h.group(1).casefold() for h in map(_HEADER.match, lines[i + 1:i + 6]) if h}
    return bool(names & _SENT_NAMES) and bool(names & _TO_NAMES)


def quote_start(lines: list[str]) -> int | None:
    """Index of the first line of quoted history that runs to the end (a separator, an Outlook header block,
    or an attribution line whose quote is not marked with ``>``), or None."""
    for i, line in enumerate(lines):
        if FORWARD_MARK.match(line) or _ORIGINAL_MARK.match(line) or _NOTES_REPLY.match(line) or \
                _outlook_block(lines, i) or _dashed_forward(lines, i):
            return i - 1 if i and _RULE.match(lines[i - 1]) else i
        if _ATTRIBUTION.match(line) or _loose_attribution(line):
            width = 1
        elif line.strip() and i + 1 < len(lines) and (_WRAPPED.match(joined := f"{line} {lines[i + 1].strip()}")
                                                      or _loose_attribution(joined)):
            width = 2  # wrapped over two lines
        else:
            continue
        nxt = next((x for x in lines[i + width:] if x.strip()), "")
        if not nxt.lstrip().startswith(">"):
            return i
    return None


def own_words(text: str) -> str:
    """The writer's own lines of a mail's text: quoted lines, attribution lines and the quoted or forwarded
    history below a separator left out.

    Args:
        text: a mail body as text (line ends ``\\n``).
    Returns:
        The remaining lines joined with ``\\n`` (``""`` when the mail is all quote); text with none of the
        forms in the module doc comes back unchanged.
    """
    lines = text.split("\n")
    cut = quote_start(lines)
    if cut is not None:
        lines = lines[:cut]
    out: list[str] = []
    skip_next = False
    for i, line in enumerate(lines):
        if skip_next:
            skip_next = False
            continue
        if line.lstrip().startswith(">"):
            continue
        if _ATTRIBUTION.match(line) or _introduces_quote(lines, i):
            continue
        if line.strip() and i + 1 < len(lines) and _WRAPPED.match(f"{line} {lines[i + 1].strip()}"):
            skip_next = True  # an attribution wrapped over two lines
            continue
        out.append(line)
    return "\n".join(out) if len(out) != len(text.split("\n")) else text


@dataclass
class InlineForward:
    """A message forwarded inline in a mail's text: the forwarder's ``before`` text, the forwarded message's
    ``headers`` (name → value, names as written, e.g. ``{"From": "Venue Desk <desk@…>", "Date": …}``) and
    its ``body``."""

    before: str
    headers: dict[str, str]
    body: str


_QUOTED_LINE = re.compile(r"^[ \t]*> ?(.*)$")


def _unquote_opening_forward(text: str) -> str | None:
    """``text`` with one level of ``> `` taken off its last lines when they are a quote that opens with a
    forward separator (Apple Mail's HTML forward puts ``Begin forwarded message:`` itself inside the
    ``<blockquote>``) and runs to the end; else None.  A quote under an attribution line or after other quoted
    lines (a reply quoting someone's forward) is left alone."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        q = _QUOTED_LINE.match(line)
        if not q or not FORWARD_MARK.match(q.group(1)):
            continue
        prev = next((x for x in reversed(lines[:i]) if x.strip()), "")
        if prev.lstrip().startswith(">") or _ATTRIBUTION.match(prev) or _introduces_quote(lines, i - 1):
            return None
        rest = lines[i:]
        if not all(_QUOTED_LINE.match(x) for x in rest if x.strip()):
            return None
        return "\n".join(lines[:i] + [_QUOTED_LINE.match(x).group(1) if x.strip() else x for x in rest])
    return None


_MAILTO_FOLD = re.compile(r"^[ \t]*\[mailto:[^\]\s]+\]", re.I)


def split_inline_forward(text: str) -> InlineForward | None:
    """The first message forwarded inline in ``text`` (after a :data:`FORWARD_MARK` line, or a
    :data:`_DASHED_FORWARD` one in another language), or None.

    The forwarded message's header lines are the ``Name: value`` lines right after the separator (a blank
    line may come first), up to the first blank line that no further header line follows (HTML mail puts blank
    lines between them); a header block without a ``From:`` is not a forward (None).  When everything after the
    separator is quoted (``> ``: Apple Mail's HTML forward is a ``<blockquote>``, which may hold the separator
    too), one level of quoting is taken off first.  The body is the rest of the text, a further forward inside
    it included.
    """
    def mark(text: str) -> re.Match | None:
        dashed = (m for m in _DASHED_FORWARD.finditer(text) if not _ORIGINAL_MARK.match(m.group(0).rstrip("\n")))
        found = [m for m in (FORWARD_MARK.search(text), next(dashed, None)) if m is not None]
        return min(found, key=lambda m: m.start(), default=None)

    m = mark(text)
    if m is None:
        text = _unquote_opening_forward(text)
        m = mark(text) if text is not None else None
    if m is None:
        return None
    before = text[:m.start()].rstrip()
    rest = text[m.end():].lstrip("\n").split("\n")
    if any(x.strip() for x in rest) and all(x.lstrip().startswith(">") for x in rest if x.strip()):
        rest = [re.sub(r"^[ \t]*> ?", "", x) for x in rest]  # the forward in a blockquote (Apple Mail's HTML)
    headers: dict[str, str] = {}
    i = 0
    while i < len(rest):
        if not rest[i].strip():  # HTML mail writes one block per header line: blank lines between them
            j = next((k for k in range(i + 1, len(rest)) if rest[k].strip()), len(rest))
            h = _HEADER.match(rest[j]) if headers and j < len(rest) else None
            if h is None or h.group(1) in headers:
                break
            i = j
            continue
        h = _HEADER.match(rest[i])
        if h:
            name = h.group(1)
            headers[name] = h.group(2).strip()
            last = name
        elif headers and (rest[i][:1] in (" ", "\t") or _MAILTO_FOLD.match(rest[i])):
            headers[last] += " " + rest[i].strip()  # a folded header line (Outlook's "[mailto:…]" on its own)
        else:
            break
        i += 1
    if not any(k.casefold() in _FROM_NAMES for k in headers):
        return None
    body = "\n".join(rest[i:]).strip("\n")
    return InlineForward(before, headers, body)


_FORWARD_PREFIX = re.compile(r"^\s*(?:\[[^\]]{1,40}\]\s*)?(?:fwd?|wg|vs|vl|vb|tr|i|ilt|İlt|enc|rv|doorst|pd|"
                             r"пересл|πρθ|转发|轉寄|転送)\s*(?:\[\d+\]|\^\d+|\(\d+\))?\s*[:：]", re.I)
"""A subject that says its mail is a forward (``Fwd:``, ``FW:``, Outlook's ``WG:``, ``TR:``, ``RV:``, ``I:``, ``ENC:``,
``VB:``, ``Doorst:``, ``PD:``, ``転送:``…), possibly after a list tag."""


def split_header_block_forward(text: str, subject: str | None) -> InlineForward | None:
    """The message Outlook forwards in ``text`` under its header block (``From:`` / ``Sent:`` / ``To:`` /
    ``Subject:`` in the client's language, maybe under a rule or ``-----Original Message-----``), with no
    forward separator, when ``subject`` says the mail is a forward (:data:`_FORWARD_PREFIX`); else None (in a
    reply the block starts quoted history: :func:`split_reply_quote`).  Read as
    :func:`split_inline_forward` reads a message under a separator."""
    if not subject or not _FORWARD_PREFIX.match(subject):
        return None
    lines = text.split("\n")
    start = next((i for i in range(len(lines)) if _outlook_block(lines, i)), None)
    if start is None:
        return None
    cut = start
    while cut and (not lines[cut - 1].strip() or _RULE.match(lines[cut - 1]) or _ORIGINAL_MARK.match(lines[cut - 1])):
        cut -= 1
    # the rule, the "Original Message" line and the blank lines above the block belong to it
    return split_inline_forward("\n".join(lines[:cut]) + "\n\n---------- Forwarded message ---------\n"
                                + "\n".join(lines[start:]))


_SUBJECT_PREFIX = re.compile(
    r"^\s*(?:\[[^\]]{1,40}\]\s*|(?:re|fwd?|aw|wg|sv|vs|vl|vb|antw|tr|rif|r|i|odp|ynt|ilt|res|enc|rv|"
    r"отв|пересл|απ|σχετ|πρθ|回复|答复|回覆|转发|轉寄|転送)\s*(?:\[\d+\]|\^\d+|\(\d+\))?\s*[:：]+\s*)+", re.I)
"""Reply and forward prefixes as clients write them in many languages (``Re:``, ``Fwd:``, ``AW:``, ``WG:``, ``SV:``,
``R:``/``I:`` of Italian Outlook, ``Odp:``, ``Отв:``, ``回复：``, ``Re[2]:``, ``Re^2:``), and mailing-list tags in
brackets (``[hiking]``) among them."""
_FWD_SUFFIX = re.compile(r"\s*\((?:fwd|fw)\)\s*$", re.I)  # Pine's "Subject (fwd)"


def bare_subject(subject: str | None) -> str:
    """A mail subject without the reply/forward prefixes and list tags in front of it (:data:`_SUBJECT_PREFIX`)
    and Pine's ``(fwd)`` after it, spaces collapsed: ``"Re: Fwd: AW: WG: [hiking] Saturday route"`` →
    ``"Saturday route"``.  ``""`` for an empty subject (or one that is only prefixes)."""
    text = " ".join((subject or "").split())
    return _FWD_SUFFIX.sub("", _SUBJECT_PREFIX.sub("", text)).strip()


_ATTR_ADDRESS = re.compile(r"[<\[(]?[ \t]*(?:mailto:[ \t]*)?([\w.+'-]+@[\w-]+(?:\.[\w-]+)+)[ \t]*[>\])]?", re.I)
_ATTR_LEAD = re.compile(r"^(?:On|Le|Am|El|Il\sgiorno|Il|Op|Em|W\sdniu|Dnia|Dne|Den|在|于|於)\s*", re.I)
_ATTR_VERB = re.compile(r"\s*(?:wrote|writes|a\s[ée]crit|schrieb|escribi[óo]|ha\sscritto|schreef|escreveu|skrev|"
                        r"napisa[łl]\S*|pisze|kirjoitti|написал\S*|написа(?:в|ла)|napsal\S*|(?:ezt\s)?írta|"
                        r"(?:şunu\s|şunları\s)?yazdı|έγραψε|a\sscris|写道|寫道|(?:さんは)?書きました|のメール|"
                        r"(?:님이)?\s?작성)\s*[:：]?\s*$", re.I)
_ATTR_TIME_WORDS = re.compile(r"\s(?:at|à|um|a\slas|alle(?:\sore)?|om|às|kl\.?|klo|kello|o(?:\sgodz\.)?|v|ve|в|"
                              r"tarihinde|saatinde|keltezéssel|dátummal|időpontban|időpont:?|に|odesílatel|"
                              r"użytkownik|пользователь)(?=[\s,]|$)|\sUhr\b|,(?=\s*$)", re.I)
_CJK_HALF = re.compile(r"(上午|午前|오전|下午|午後|오후)\s*(\d{1,2}:\d\d(?::\d\d)?)")
_SPACED_DOTS = re.compile(r"(?<!\d)(\d{1,2})\.\s+(\d{1,2})\.\s+(\d{4})(?!\d)")  # Czech "3. 5. 2021"
_NOT_NAME = {"am", "pm", "uhr", "at", "um", "on", "le", "el", "il", "op", "em", "à", "de", "wrote", "schrieb", "gmt",
             "utc", "mez", "mesz", "cet", "cest", "est", "edt", "pst", "pdt", "bst"}


def _name_before(words: list[str]) -> str:
    """The name a line's words end with: up to four capitalised words, no digits, not a time word."""
    name: list[str] = []
    for k, w in enumerate(reversed(words)):
        bare = w.strip('",')
        if (not bare or not bare[0].isupper() or any(c.isdigit() for c in bare) or bare.casefold() in _NOT_NAME
                or (k and w.endswith(",")) or len(name) == 4):
            break
        name.append(bare)
    return " ".join(reversed(name))


_EITHER_WAY = re.compile(r"(?<!\d)(\d{1,2})([./-])(\d{1,2})\2(\d{4}|\d{2})(?!\d)")
_CLOCK = re.compile(r"(?<!\d)(\d{1,2}):(\d\d)(?::\d\d)?(?:\s?([AP])\.?M\b\.?)?", re.I)


def settle_day_month(date: str, sent: datetime | None) -> str:
    """``date`` (an attribution's date as written, e.g. ``"05/03/2021 10:00"``) with a day and month that could be
    read either way written unambiguously (``"2021-03-05 10:00"``) when only one reading is not after ``sent``,
    the time of the reply quoting it (a quoted message is never later than its reply; a day's slack for the zones);
    else ``date`` unchanged (one reading only, both before the reply, or ``sent`` None).

    Args:
        date: the date text of an attribution line (:func:`attribution_headers`' ``Date``).
        sent: when the quoting reply was sent (tz-aware or naive; its own wall-clock time is compared).
    Returns:
        The date text, its numeric date rewritten ``YYYY-MM-DD`` when chronology settles the order.
    """
    m = _EITHER_WAY.search(date)
    if m is None or sent is None:
        return date
    a, b, year = int(m.group(1)), int(m.group(3)), int(m.group(4))
    if not (1 <= a <= 12 and 1 <= b <= 12) or a == b:
        return date
    year += (2000 if year < 70 else 1900) if len(m.group(4)) == 2 else 0
    hour = minute = 0
    clock = _CLOCK.search(date, m.end())
    if clock:
        hour, minute = int(clock.group(1)) % 24, int(clock.group(2)) % 60
        if clock.group(3) and hour < 12 and clock.group(3).upper() == "P":
            hour += 12
    limit = sent.replace(tzinfo=None) + timedelta(days=1)
    fits = []
    for day, month in ((a, b), (b, a)):
        try:
            when = datetime(year, month, day, hour, minute)
        except ValueError:
            continue
        if when <= limit:
            fits.append(when)
    if len(fits) != 1:
        return date
    return f"{date[:m.start()]}{fits[0]:%Y-%m-%d}{date[m.end():]}"


def attribution_headers(line: str, sent: datetime | None = None) -> dict[str, str] | None:
    """The sender and the date an attribution line names (``On Sat, Oct 14, 2023 at 9:30 PM Mila Ross
    <mila@…> wrote:`` → ``{"From": "Mila Ross <mila@…>", "Date": "Sat, Oct 14, 2023 9:30 PM"}``; ``Le mer. 11
    oct. 2023 à 18:00, Hugo Martin <hugo@…> a écrit :``; ``Am …, 18:00 Uhr schrieb Ann Lee <ann@…>:``;
    ``On 14/10/2023 21:30, Mila Ross wrote:``; ``W dniu 3.05.2021 o 10:00, Ann Lee pisze:``; ``Ann Lee <a@…>, 3 May
    2021 Pzt, 10:00 tarihinde şunu yazdı:``; ``在 2021/5/3 10:00, Ann Lee 写道:``), or None when it names nobody.
    ``Date`` is left out when no date is left; with ``sent`` (when the quoting reply was sent) a date whose day and
    month read either way is written in the order that puts it before the reply (:func:`settle_day_month`)."""
    line = " ".join(line.replace("，", ", ").replace("、", ", ").replace("：", ":").split())
    line = _CJK_HALF.sub(lambda h: f"{h.group(2)} {'AM' if h.group(1) in ('上午', '午前', '오전') else 'PM'}", line)
    line = _SPACED_DOTS.sub(r"\1.\2.\3", line)
    m = _ATTR_ADDRESS.search(line)
    if m:
        address = m.group(1)
        before = line[:m.start()].rstrip()
        before = re.sub(r"\s*(?:schrieb|hat)$", "", before, flags=re.I).rstrip(' ,"')
        name = _name_before(before.split(" ")) if before else ""
        date = before[:len(before) - len(name)] if name else before
        date = re.sub(r"\s*(?:schrieb|hat)\s*$", "", date.rstrip(' ,"'), flags=re.I)
        if not re.search(r"\d", date):  # the date after the address (Gmail's Turkish, Hungarian, Chinese forms)
            after = _ATTR_VERB.sub("", line[m.end():])
            span = re.search(r"\d.*\d(?:\s?[AP]M\b)?", after)
            if span:
                date = span.group(0)
        sender = f"{name} <{address}>" if name else address
    else:
        rest = _ATTR_VERB.sub("", line.rstrip())
        g = re.search(r"\bschrieb\s+(.+?)\s*[:：]?$", line, re.I)
        if g and _name_before(g.group(1).split(" ")) == g.group(1).strip():
            name, date = g.group(1).strip(), line[:g.start()]
        elif rest == line.rstrip():
            return None
        else:
            name = _name_before(rest.rstrip(" ,").split(" "))
            date = rest.rstrip(" ,")[:len(rest.rstrip(" ,")) - len(name)] if name else ""
        if not name:
            return None
        sender = name
    mutt = re.search(r"\[(\d\d)(\d\d)(\d\d) (\d\d?:\d\d(?::\d\d)?)\]", line)  # mutt's "[000614 17:23]"
    if mutt:
        year = int(mutt.group(1))
        date = f"{1900 + year if year >= 70 else 2000 + year}-{mutt.group(2)}-{mutt.group(3)} {mutt.group(4)}"
    date = _ATTR_TIME_WORDS.sub(" ", " " + _ATTR_LEAD.sub("", date.strip())).strip(" ,")
    headers = {"From": sender}
    if re.search(r"\d", date):
        headers["Date"] = settle_day_month(" ".join(date.split()), sent)
    return headers


_RAW_HEADER = re.compile(r"^(?:Return-Path|Received|Message-ID|MIME-Version|Content-Type|Delivered-To|X-[\w-]+)"
                         r"[ \t]*:", re.I)


def _unquote(line: str) -> str:
    """``line`` with one level of ``>`` quoting taken off."""
    return re.sub(r"^[ \t]*> ?", "", line)


def _quoted_attribution(text: str) -> bool:
    """True when ``text`` (a quote's first line, its ``>`` taken off) is an attribution line: Apple Mail's HTML
    reply puts ``On … Ann Lee <a@…> wrote:`` inside its ``<blockquote type="cite">``."""
    if text.lstrip().startswith(">"):
        return False
    if _ATTRIBUTION.match(text) or _loose_attribution(text):
        return True
    return bool(_INTRO.match(text) and re.search(r"@", text) and attribution_headers(text))


def _reply_around_quotes(lines: list[str], sent: datetime | None, quoted_writer: str | None) -> InlineForward | None:
    """The quote of a bottom-posted or interleaved reply (the quoted ``>`` lines first, the writer's answers below
    or between them), or of a reply whose attribution line is inside the quote: ``before`` the writer's own lines,
    ``body`` every quoted line (one level of ``>`` off; a blank line between quoted stretches), ``headers`` from the
    attribution line above the first quoted line or opening the quote, else ``{"From": quoted_writer}``; None when
    there is no quote, no own text, or nobody to name."""
    quoted = [i for i, x in enumerate(lines) if x.lstrip().startswith(">")]
    if not quoted:
        return None
    first = quoted[0]
    attr: str | None = None
    drop: set[int] = set()
    p = next((i for i in range(first - 1, -1, -1) if lines[i].strip()), None)
    if p is not None:
        if p and lines[p - 1].strip() and _WRAPPED.match(joined := f"{lines[p - 1]} {lines[p].strip()}"):
            attr, drop = joined, {p - 1, p}  # wrapped over two lines
        elif _ATTRIBUTION.match(lines[p]) or _introduces_quote(lines, p) or _loose_attribution(lines[p]):
            attr, drop = lines[p], {p}
    if attr is None:  # the attribution opens the quote
        inner = [i for i in quoted if _unquote(lines[i]).strip()]
        if inner and _quoted_attribution(_unquote(lines[inner[0]])):
            attr, drop = _unquote(lines[inner[0]]), {inner[0]}
        elif len(inner) > 1 and inner[1] == inner[0] + 1 and \
                _WRAPPED.match(joined := f"{_unquote(lines[inner[0]])} {_unquote(lines[inner[1]]).strip()}"):
            attr, drop = joined, {inner[0], inner[1]}
    headers = attribution_headers(attr, sent) if attr else None
    if not headers:  # no attribution, or a line that names nobody (the writer's own "Meeting at 10:30:")
        drop = set()
        headers = {"From": quoted_writer} if quoted_writer else None
    if not headers:
        return None
    own = [x for i, x in enumerate(lines) if i not in drop and not x.lstrip().startswith(">")]
    body: list[str] = []
    last = None
    for i in quoted:
        if i in drop:
            continue
        if last is not None and any(lines[j].strip() and j not in drop for j in range(last + 1, i)):
            body.append("")  # the writer answered between these quoted stretches
        body.append(_unquote(lines[i]))
        last = i
    before = re.sub(r"\n{3,}", "\n\n", "\n".join(own)).strip("\n")
    return InlineForward(before, headers, "\n".join(body).strip("\n"))


def split_reply_quote(text: str, subject: str | None = None, sent: datetime | None = None,
                      quoted_writer: str | None = None) -> InlineForward | None:
    """The message a reply quotes, or None: under Outlook's header block (maybe under a rule or ``-----Original
    Message-----``), or under an attribution line (``On … Mila Ross <mila@…> wrote:``) whose quote runs to the end
    of the text, marked with ``>`` or not; or, marked with ``>``, above or between the writer's answers
    (bottom-posted, interleaved), named by the attribution line above it or opening it (Apple Mail's ``<blockquote
    type="cite">`` holds ``On … wrote:``; so does a plain ``> On … wrote:``).

    Args:
        text: the reply's text (line ends ``\n``).
        subject: its subject: the quote's ``Subject`` (without ``Re:``) when the quote names none.
        sent: when the reply was sent: an attribution date whose day and month read either way is read in the
            order that puts it before the reply (:func:`settle_day_month`).
        quoted_writer: who wrote a ``>`` quote that no attribution names (the person the reply answers, e.g.
            ``"Ann Lee <a@x.org>"``); None: such a quote is not split.
    Returns:
        ``before`` the writer's own text (the quoted lines and the attribution out); ``headers`` the quote's
        sender and date; ``body`` the quoted text, one level of ``>`` taken off (quoted stretches between answers
        joined with a blank line).  None when the writer wrote nothing of their own or the quote names nobody.
    """
    lines = text.split("\n")
    cut = quote_start(lines)
    if cut is not None:
        before = "\n".join(lines[:cut]).rstrip()
        j = cut
        while j < len(lines) and (not lines[j].strip() or _RULE.match(lines[j]) or _ORIGINAL_MARK.match(lines[j])):
            j += 1
        if j < len(lines) and _outlook_block(lines, j):
            if any(_RAW_HEADER.match(x) for x in lines[max(cut - 3, 0):j + 12]):
                return None  # a message's raw header block (a bounce's copy of the returned mail), not a quote
            found = split_inline_forward("\n".join(lines[:cut]) + "\n\n---------- Forwarded message ---------\n"
                                         + "\n".join(lines[j:]))
            if found is not None:
                found.before = before
        elif _ATTRIBUTION.match(lines[cut]) or _loose_attribution(lines[cut]):
            headers = attribution_headers(lines[cut], sent)
            found = InlineForward(before, headers, "\n".join(lines[cut + 1:]).strip("\n")) if headers else None
        elif cut + 1 < len(lines) and (_WRAPPED.match(joined := f"{lines[cut]} {lines[cut + 1].strip()}")
                                       or _loose_attribution(joined)):  # an attribution wrapped over two lines
            headers = attribution_headers(joined, sent)
            found = InlineForward(before, headers, "\n".join(lines[cut + 2:]).strip("\n")) if headers else None
        else:
            found = None
    else:
        k = next((i for i in range(len(lines) - 1, -1, -1)
                  if lines[i].strip() and not lines[i].lstrip().startswith(">")), None)
        if k is None:
            return None
        start = line = None
        if k < len(lines) - 1 and any(x.strip() for x in lines[k + 1:]):
            if k and lines[k - 1].strip() and _WRAPPED.match(joined := f"{lines[k - 1]} {lines[k].strip()}"):
                start, line = k - 1, joined  # an attribution wrapped over two lines
            elif _ATTRIBUTION.match(lines[k]) or _introduces_quote(lines, k):
                start, line = k, lines[k]
        if line is not None:
            body = "\n".join(_unquote(x) for x in lines[k + 1:]).strip("\n")
            headers = attribution_headers(line, sent)
            found = InlineForward("\n".join(lines[:start]).rstrip(), headers, body) if headers else None
        else:  # the attribution inside the quote, or the writer's answers below or between the quoted lines
            found = _reply_around_quotes(lines, sent, quoted_writer)
    if found is None or not found.before.strip() or not found.body.strip():
        return None
    if subject and not any(k.casefold() in _SUBJECT_NAMES for k in found.headers):
        found.headers["Subject"] = bare_subject(subject)
    return found
