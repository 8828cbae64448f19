"""Mail inputs of kinds earlier passes did not try, fifth pass: each test writes its input and checks the values
worked out by hand."""
from __future__ import annotations

import base64

from ingestors.mbox import EmlIngestor


def _eml(tmp_path, name: str, headers: str, body: bytes) -> list:
    path = tmp_path / name
    path.write_bytes(("From: Ann Lee <ann@example.org>\nTo: Me <me@example.com>\n"
                      "Date: Mon, 04 Mar 2024 10:00:00 +0900\nMIME-Version: 1.0\n" + headers + "\n").encode("ascii")
                     + body)
    return list(EmlIngestor().read(path))


# ----------------------------------------------------------------------------- vendor supersets of two labels

def test_iso_2022_jp_as_outlook_sends_it_is_read(tmp_path):
    # Outlook sends CP50221 under 'ISO-2022-JP': ㈱ is JIS 0x2D6A (NEC row 13), which Python's iso2022_jp refuses,
    # so the subject was '$B-j (B' and the body its escape sequences; テスト is JIS 0x2546 0x2539 0x2548
    body = b"\x1b$B-j\x1b(B Tanaka \x1b$B%F%9%H\x1b(B\n\x1b$B#1#2\x1b(B\n"
    [r] = _eml(tmp_path, "jp.eml", "Subject: =?ISO-2022-JP?B?GyRCLWobKEI=?= Tanaka\n"
                                   'Content-Type: text/plain; charset="ISO-2022-JP"\nContent-Transfer-Encoding: 7bit\n',
               body)
    assert r.subject == "㈱ Tanaka"
    assert r.text == "㈱ Tanaka テスト\n１２\n"  # '#1#2' is JIS X 0208's full-width １２


def test_iso_2022_jp_with_half_width_kana_and_an_ibm_extension(tmp_path):
    # 髙 (an NEC-selected IBM extension) is Shift_JIS 0xEEE0, JIS row 0x7C, cell 0x62 ('|b' under ESC $ B):
    # s1 0xEE, s2 0xE0 ≥ 0x9F → j1 = 2 × (0xEE − 0xB0) = 0x7C, j2 = 0xE0 − 0x7E = 0x62.  Under ESC ( I, JIS X 0201
    # kana: 0x36 is ｶ (0xB6), 0x40 is ﾀ (0xC0)
    assert b"\xee\xe0".decode("cp932") == "髙"
    body = b"\x1b$B|b\x1b(B san \x1b(I6@\x1b(B\n"
    [r] = _eml(tmp_path, "kana.eml", "Subject: t\nContent-Type: text/plain; charset=iso-2022-jp\n", body)
    assert r.text == "髙 san ｶﾀ\n"


def test_big5_as_hong_kong_and_taiwan_send_it_is_read(tmp_path):
    # 恒 and 埗 are Big5-HKSCS only (Hong Kong), 碁 and € CP950 only (Taiwan): under 'big5' each became U+FFFD
    text = "香港恒生銀行 深水埗 碁 €10\n"
    body = "香港恒生銀行 深水埗 ".encode("big5hkscs") + "碁 €10\n".encode("cp950")
    [r] = _eml(tmp_path, "big5.eml", 'Subject: t\nContent-Type: text/plain; charset="big5"\n'
                                     "Content-Transfer-Encoding: base64\n", base64.encodebytes(body))
    assert r.text == text and "\ufffd" not in r.text


def test_euc_jp_with_nec_row_13_is_read(tmp_path):
    # ① is EUC-JP 0xADA1 (JIS 0x2D21, NEC row 13): Python's euc_jp refuses it, and the body became U+FFFD there;
    # 髙 (NEC-selected IBM extension) is JIS 0x7C62, EUC-JP 0xFCE2
    body = b"\xad\xa1 " + "高橋さん".encode("euc_jp") + b" \xfc\xe2\n"
    [r] = _eml(tmp_path, "euc.eml", "Subject: t\nContent-Type: text/plain; charset=EUC-JP\n"
                                    "Content-Transfer-Encoding: 8bit\n", body)
    assert r.text == "① 高橋さん 髙\n"


# ----------------------------------------------------------------------------- Google Talk chats kept in Gmail

GTALK = (b"From 1423456789012345679@xxx Thu Dec 20 10:00:00 +0000 2012\n"
         b"X-GM-THRID: 1423456789012345679\nX-Gmail-Labels: Chat\n"
         b"From: Bob Smith <bob@gmail.com>\nTo: alice@gmail.com\n"
         b"Message-ID: <1234567.1234567.112233445566.chat@gmail.com>\nMIME-Version: 1.0\n"
         b'Content-Type: multipart/alternative; boundary="----=_Part_1"\nSubject: Chat with Bob Smith\n\n'
         b"------=_Part_1\nContent-Type: text/xml; charset=utf-8\nContent-Transfer-Encoding: 7bit\n\n"
         b'<con:conversation xmlns:con="google:archive:conversation">'
         b'<cli:message to="alice@gmail.com" from="bob@gmail.com/Talk.v1044" int:time-stamp="1355997600000" '
         b'xmlns:cli="jabber:client" xmlns:int="google:internal"><cli:body>dinner at Casa Azul?</cli:body>'
         b'<time ms="1355997600000" xmlns="google:timestamp"/></cli:message>'
         b'<cli:message to="bob@gmail.com/Talk.v1044" from="alice@gmail.com" xmlns:cli="jabber:client">'
         b'<cli:composing xmlns:cli="http://jabber.org/protocol/chatstates"/></cli:message>'
         b'<cli:message to="bob@gmail.com" from="alice@gmail.com" xmlns:cli="jabber:client"><cli:body>sure, 8?'
         b'</cli:body><x stamp="20121220T10:01:30" xmlns="jabber:x:delay"/></cli:message></con:conversation>\n'
         b"------=_Part_1\nContent-Type: text/html; charset=utf-8\n\n"
         b'<div><span style="font-weight:bold">Bob</span>: dinner at Casa Azul?</div>'
         b'<div><span style="font-weight:bold">me</span>: sure, 8?</div>\n------=_Part_1--\n\n')


def test_a_google_talk_chat_kept_in_gmail_is_each_persons_messages(tmp_path, container):
    from datetime import datetime, timezone

    from sqlmodel import select

    from app.operations.ingest import ingest
    from core.store.schema import Record as Row
    from ingestors.base import Party
    from ingestors.mbox import MboxIngestor

    path = tmp_path / "All mail Including Spam and Trash.mbox"
    path.write_bytes(GTALK)
    items = list(MboxIngestor().read(path))
    # read as mail, the chat was one record of Bob's holding Alice's 'sure, 8?' (its HTML part) or, with the XML
    # part alone, a blank record; 1355997600000 ms is 2012-12-20T10:00:00Z; the x stamp 20121220T10:01:30 is UTC;
    # Alice's 'composing' notice says nothing and is no record
    assert [(r.kind, r.sender, r.sent_at, r.text, r.recipients) for r in items] == [
        ("chat", Party("Bob Smith", "bob@gmail.com"), datetime(2012, 12, 20, 10, 0, tzinfo=timezone.utc),
         "dinner at Casa Azul?", [Party(None, "alice@gmail.com", "email", "to")]),
        ("chat", Party(None, "alice@gmail.com"), datetime(2012, 12, 20, 10, 1, 30, tzinfo=timezone.utc),
         "sure, 8?", [Party("Bob Smith", "bob@gmail.com", "email", "to")])]
    assert [r.external_id for r in items] == ["<1234567.1234567.112233445566.chat@gmail.com> #1",
                                              "<1234567.1234567.112233445566.chat@gmail.com> #3"]
    assert {r.thread for r in items} == {"gmail-thread:1423456789012345679"}
    assert {r.subject for r in items} == {"Chat with Bob Smith"}
    assert ingest(container, [path]).errors == []
    with container.db.session() as s:
        assert sorted(r.text for r in s.exec(select(Row)).all()) == ["dinner at Casa Azul?", "sure, 8?"]


# ----------------------------------------------------------------------------- names without addresses

def test_an_outlook_forward_naming_people_without_addresses_keeps_their_whole_names(tmp_path):
    # Exchange writes display names only in a forward's header block: 'From: John Smith' was read as the address
    # 'John' (sender 'John'), and 'To: Doe, Jane; Bob Lee' split at the comma
    body = (b"See below.\n\n________________________________\nFrom: John Smith\n"
            b"Sent: Friday, March 1, 2024 5:15 PM\nTo: Doe, Jane; Bob Lee\nSubject: Budget for Q2\n\n"
            b"We can spend 40k on the Harbour Hall refit.\n")
    items = _eml(tmp_path, "fw.eml", "Subject: FW: Budget for Q2\nContent-Type: text/plain; charset=us-ascii\n", body)
    assert [r.sender.name for r in items] == ["Ann Lee", "John Smith"]
    assert items[1].text.startswith("We can spend 40k")
    assert [(p.name, p.address) for p in items[1].recipients] == [("Doe, Jane", None), ("Bob Lee", None)]


def test_a_group_with_no_members_names_no_one(tmp_path):
    [r] = _eml(tmp_path, "bcc.eml", "Subject: t\nCc: undisclosed-recipients:;\n", b"hi\n")
    assert [(p.name, p.address) for p in r.recipients] == [("Me", "me@example.com")]


# ----------------------------------------------------------------------------- Lotus Notes forwards

NOTES_EN = (b"FYI, see John's note below.\n\n----- Forwarded by Ann Lee/Acme on 04/03/2024 09:58 -----\n\n"
            b"John Smith/Acme\n01/03/2024 17:15\n\nTo\nAnn Lee/Acme@Acme\ncc\n\nSubject\nBudget for Q2\n\n"
            b"We can spend 40k on the Harbour Hall refit in Q2.\n\nJohn\n")
NOTES_DE = (b"FYI\n\n----- Weitergeleitet von Ann Lee/Acme am 04.03.2024 09:58 -----\n\n" + b" " * 60 + b"\n"
            b"             John Smith/Acme\n             01.03.2024 17:15\n"
            b"                                                        An\n"
            b"                      Ann Lee/Acme@Acme, Carl Roe/Acme@Acme\n"
            b"                                                     Kopie\n\n"
            b"                                                   Betreff\n"
            b"                      Budget for Q2\n" + b" " * 60 + b"\n\n"
            b"We can spend 40k on the Harbour Hall refit in Q2.\n")


def test_a_lotus_notes_forward_is_the_forwarded_writers_record(tmp_path):
    # Notes writes the forwarded mail's sender and time on lines of their own and its To/cc/Subject labels alone
    # on a line, the value below (no 'From:'): John's words stayed Ann's.  The separator's 'on 04/03/2024' is the
    # mail's own day (Mon 4 March 2024) only day-first, so John's '01/03/2024 17:15' is 1 March (not 3 January),
    # at the forwarding mail's offset (+09:00)
    from datetime import datetime, timedelta, timezone

    items = _eml(tmp_path, "fw.eml", "Subject: Fw: Budget for Q2\nContent-Type: text/plain; charset=us-ascii\n",
                 NOTES_EN)
    assert [(r.sender.name, r.text) for r in items] == [
        ("Ann Lee", "FYI, see John's note below."),
        ("John Smith", "We can spend 40k on the Harbour Hall refit in Q2.\n\nJohn")]
    assert items[1].subject == "Budget for Q2"
    assert items[1].sent_at == datetime(2024, 3, 1, 17, 15, tzinfo=timezone(timedelta(hours=9)))
    assert [(p.name, p.address) for p in items[1].recipients] == [("Ann Lee", None)]


def test_a_lotus_notes_forward_laid_out_in_columns_in_german(tmp_path):
    items = _eml(tmp_path, "wg.eml", "Subject: WG: Budget for Q2\nContent-Type: text/plain; charset=us-ascii\n",
                 NOTES_DE)
    assert [(r.sender.name, r.text) for r in items] == [
        ("Ann Lee", "FYI"), ("John Smith", "We can spend 40k on the Harbour Hall refit in Q2.")]
    assert [p.name for p in items[1].recipients] == ["Ann Lee", "Carl Roe"]
    assert items[1].sent_at.date().isoformat() == "2024-03-01"  # dotted: day-first


def test_a_mail_programs_own_store_says_what_to_do_instead(tmp_path):
    # an Outlook .pst, Outlook for Mac .olm, Lotus Notes .nsf: 'unsupported file type: .pst' said nothing of how
    # to get the mail in; the reason names the kind and the way out (mbox or .eml), as for .msg
    from ingestors.registry import ingestor_for, unsupported_reason

    for name, kind in (("backup.pst", "an Outlook data file"), ("Archive.olm", "an Outlook for Mac archive"),
                       ("mail.nsf", "a Lotus Notes database"), ("outlook.ost", "Outlook's offline copy")):
        path = tmp_path / name
        path.write_bytes(b"!BDN\x00\x00" + bytes(64))
        assert ingestor_for(path) is None
        reason = unsupported_reason(path)
        assert reason.startswith(f"unsupported file type: {path.suffix} ({kind}") and "mbox" in reason


# ----------------------------------------------------------------------------- a broken fold in the headers

def test_a_header_wrapped_without_a_leading_space_keeps_the_headers_below_it(tmp_path):
    # 'Subject: Budget for' / 'Q2 plans': a broken mailer wrapped the subject without the space of a
    # continuation; the parser ended the headers there, so Date and Message-ID became body text and the mail had
    # no time ('no Date header: time unknown')
    [r] = _eml(tmp_path, "fold.eml", "Subject: Budget for\nQ2 plans\nMessage-ID: <b1@example.org>\n",
               b"The body.\n")
    assert (r.subject, r.text, r.external_id) == ("Budget for Q2 plans", "The body.\n", "<b1@example.org>")
    assert r.sent_at.isoformat() == "2024-03-04T10:00:00+09:00"
    assert "a header line wrapped without the space that marks a continuation: read as one" in r.notes


def test_a_body_starting_right_under_the_headers_is_not_taken_for_a_header(tmp_path):
    # no blank line between headers and body, and the body's second line looks like a label: nothing refolded
    path = tmp_path / "nosep.eml"
    path.write_bytes(b"From: Ann Lee <ann@example.org>\nSubject: hi\nDate: Mon, 04 Mar 2024 10:00:00 +0000\n"
                     b"Hello Bob,\nNote: bring it\n\nSee you\n")
    [r] = list(EmlIngestor().read(path))
    assert r.subject == "hi" and r.text.startswith("Hello Bob,\nNote: bring it")


def test_a_google_talk_chat_forwarded_inside_a_mail_leaves_the_mail_its_writers(tmp_path):
    from ingestors.mbox import MboxIngestor

    inner = GTALK.split(b"\n", 1)[1]  # the chat mail without its envelope line
    outer = (b"From carl@example.org Mon Mar  4 10:00:00 2024\nFrom: Carl Roe <carl@example.org>\n"
             b"Date: Mon, 04 Mar 2024 10:00:00 +0000\nSubject: Fwd: our chat\nMessage-ID: <c1@example.org>\n"
             b'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="OUT"\n\n--OUT\n'
             b"Content-Type: text/plain\n\nHere is the chat I mentioned.\n--OUT\nContent-Type: message/rfc822\n\n"
             + inner + b"\n--OUT--\n")
    path = tmp_path / "fwd.mbox"
    path.write_bytes(outer)
    items = list(MboxIngestor().read(path))
    assert (items[0].kind, items[0].sender.name, items[0].text.strip()) == ("email", "Carl Roe",
                                                                           "Here is the chat I mentioned.")


def test_a_lotus_notes_reply_separator_starts_the_quoted_history():
    # Notes 8 writes '-----John Smith/Acme wrote: -----' above the quoted mail's To/From/Date/Subject block: the
    # writer's own words kept the separator and the 'To:' line above the 'From:' that was taken for the block
    from core.extraction.quoted import own_words

    text = ("Thanks John, agreed.\n\n-----John Smith/Acme wrote: -----\nTo: Ann Lee/Acme@Acme\n"
            "From: John Smith/Acme\nDate: 01/03/2024 17:15\nSubject: Budget\n\nWe can spend 40k.\n")
    assert own_words(text).strip() == "Thanks John, agreed."
    assert own_words("Hi\n\n----- I wrote this -----\nok") == "Hi\n\n----- I wrote this -----\nok"


def test_a_hangouts_message_gmail_kept_under_its_chat_label_is_a_chat_message(tmp_path):
    from ingestors.mbox import MboxIngestor

    # from 2013 Gmail kept each Hangouts message as a mail of its own, labelled Chat, no subject: it was counted
    # as an email ('how many emails did Bob send me?')
    path = tmp_path / "All mail Including Spam and Trash.mbox"
    path.write_bytes(b"From 1500000000000000001@xxx Mon Mar 04 10:00:00 +0000 2019\nX-GM-THRID: 1500000000000000001\n"
                     b"X-Gmail-Labels: Archived,Chat\nFrom: Bob Smith <bob@gmail.com>\nTo: alice@gmail.com\n"
                     b"Date: Mon, 04 Mar 2019 10:00:00 +0000\n\nHey! How are you?\n\n"
                     b"From 1500000000000000002@xxx Mon Mar 04 11:00:00 +0000 2019\nX-Gmail-Labels: Inbox\n"
                     b"From: Bob Smith <bob@gmail.com>\nTo: alice@gmail.com\nSubject: Invoice\n"
                     b"Date: Mon, 04 Mar 2019 11:00:00 +0000\n\nAttached.\n")
    items = list(MboxIngestor().read(path))
    assert [(r.kind, r.sender.name, r.text.strip()) for r in items] == [
        ("chat", "Bob Smith", "Hey! How are you?"), ("email", "Bob Smith", "Attached.")]


def test_a_mail_of_several_authors_keeps_them_all(tmp_path):
    # 'From: Ann Lee <ann@…>, Bob Roy <bob@…>' with 'Sender: Bob Roy <bob@…>' (RFC 5322: several authors, the
    # Sender sent it): the sender was Ann and Bob was in no field at all
    path = tmp_path / "two.eml"
    path.write_bytes(b"From: Ann Lee <ann@example.org>, Bob Roy <bob@example.org>\nSender: Bob Roy <bob@example.org>\n"
                     b"To: Team <team@example.org>\nSubject: Our proposal\nDate: Mon, 04 Mar 2024 10:00:00 +0000\n\n"
                     b"Here it is.\n")
    [r] = list(EmlIngestor().read(path))
    assert (r.sender.name, r.sender.address) == ("Bob Roy", "bob@example.org")
    assert r.attrs["other_authors"] == [{"name": "Ann Lee", "address": "ann@example.org"}]
    assert "written by several: Bob Roy, Ann Lee" in r.notes
