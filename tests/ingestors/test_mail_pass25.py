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
