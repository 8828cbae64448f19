"""Decoders for charset labels that mail programs write on text Python's own codecs of that name refuse.

* ``iso-2022-jp`` (:func:`decode_iso2022jp`): Outlook, Thunderbird and Japanese webmail send Microsoft's
  CP50220/CP50221 under that label — JIS X 0208 with NEC's row 13 (①, ㈱, ㌔, Ⅰ) and the NEC-selected IBM
  extensions (髙, 﨑) — which Python's ``iso2022_jp`` codecs reject, so a whole body or subject was left as its
  escape sequences (``$B-j (B``).  Each JIS X 0208 pair is read as its Shift_JIS twin in ``cp932``; JIS X 0201 kana
  (``ESC ( I`` and SO/SI), JIS X 0212 (``ESC $ ( D``) and JIS X 0213 (``ESC $ ( Q``/``O``) are read too.
* ``euc-jp`` (:func:`decode_eucjp`): the same extensions in EUC-JP (① is 0xADA1), read the same way.
* ``big5`` (:func:`decode_big5`): Hong Kong mail is Big5-HKSCS (恒, 埗) and Taiwanese mail Microsoft's CP950
  (碁, 銹, €), both labelled ``big5``; each pair is read in Big5-HKSCS, else CP950 (WHATWG's Big5 is both).

They are registered as Python codecs (``kith-iso2022jp``, ``kith-eucjp``, ``kith-big5``: decode only) when this
module is imported; an unreadable byte is an error (``strict``) or U+FFFD (any other ``errors``).
"""
from __future__ import annotations

import codecs
import re

_ESCAPES = {
    b"\x1b(B": "ascii", b"\x1b(J": "ascii", b"\x1b(H": "ascii", b"\x1b(I": "kana",
    b"\x1b$@": "jis0208", b"\x1b$B": "jis0208", b"\x1b&@\x1b$B": "jis0208",
    b"\x1b$(D": "jis0212", b"\x1b$(Q": "jis0213", b"\x1b$(O": "jis0213",
}
_ESCAPE = re.compile(b"|".join(re.escape(e) for e in sorted(_ESCAPES, key=len, reverse=True)))


def _jis_pair(c1: int, c2: int, mode: str) -> str:
    """One two-byte character of a JIS set (both bytes 0x21–0x7E); UnicodeDecodeError when it is none."""
    if not (0x21 <= c1 <= 0x7E and 0x21 <= c2 <= 0x7E):
        raise UnicodeDecodeError("iso-2022-jp", bytes([c1, c2]), 0, 2, "not a JIS character")
    if mode == "jis0212":
        return bytes([0x8F, c1 | 0x80, c2 | 0x80]).decode("euc_jp")
    if mode == "jis0213":
        return bytes([c1 | 0x80, c2 | 0x80]).decode("euc_jis_2004")
    s1 = ((c1 + 1) >> 1) + (0x70 if c1 <= 0x5E else 0xB0)
    s2 = c2 + (0x1F if c2 <= 0x5F else 0x20) if c1 & 1 else c2 + 0x7E
    return bytes([s1, s2]).decode("cp932")  # NEC row 13 and the IBM extensions: cp932 has them


def decode_iso2022jp(data: bytes, errors: str = "strict") -> str:
    """ISO-2022-JP text as Microsoft's CP50221 writes it (module doc).

    Raises:
        UnicodeDecodeError: with ``errors="strict"``, at the first byte that is no character.
    """
    data = bytes(data)
    out: list[str] = []
    mode, shifted = "ascii", False
    i, n = 0, len(data)
    while i < n:
        b = data[i]
        if b == 0x1B:
            m = _ESCAPE.match(data, i)
            if m:
                mode, shifted = _ESCAPES[m.group(0)], False
                i = m.end()
                continue
        elif b == 0x0E:  # SO: JIS X 0201 kana until SI
            shifted = True
            i += 1
            continue
        elif b == 0x0F:
            shifted = False
            i += 1
            continue
        if b in (0x0A, 0x0D):  # a line end is one in every mode
            out.append(chr(b))
            i += 1
            continue
        try:
            if b >= 0x80:
                raise UnicodeDecodeError("iso-2022-jp", data, i, i + 1, "8-bit byte")
            if shifted or mode == "kana":
                if not 0x21 <= b <= 0x5F:
                    raise UnicodeDecodeError("iso-2022-jp", data, i, i + 1, "not a kana")
                out.append(bytes([b | 0x80]).decode("cp932"))
                i += 1
            elif mode == "ascii" or b < 0x21:  # a space or a control within a JIS run stands for itself
                out.append(chr(b))
                i += 1
            else:
                if i + 1 >= n:
                    raise UnicodeDecodeError("iso-2022-jp", data, i, n, "cut in half")
                out.append(_jis_pair(b, data[i + 1], mode))
                i += 2
        except UnicodeDecodeError as exc:
            if errors == "strict":
                raise UnicodeDecodeError("iso-2022-jp", data, i, min(n, i + (2 if mode != "ascii" else 1)),
                                         exc.reason) from None
            out.append("\ufffd")
            i += 2 if mode.startswith("jis") and not shifted and b >= 0x21 and i + 1 < n else 1
    return "".join(out)


def _decode_chars(data: bytes, errors: str, label: str, char_at) -> str:
    """``data`` decoded one character at a time: ASCII bytes stand for themselves; ``char_at(data, i)`` gives the
    multi-byte character at ``i`` as ``(text, bytes used)`` or raises UnicodeDecodeError, whose ``start``–``end``
    span is what a replacement character stands for (``errors="replace"``: U+FFFD, then go on after it).

    Raises:
        UnicodeDecodeError: with ``errors="strict"``, named ``label``, at the first byte that is no character.
    """
    out: list[str] = []
    i, n = 0, len(data)
    while i < n:
        b = data[i]
        if b < 0x80:
            out.append(chr(b))
            i += 1
            continue
        try:
            text, size = char_at(data, i)
        except UnicodeDecodeError as exc:
            if errors == "strict":
                raise UnicodeDecodeError(label, data, exc.start, exc.end, exc.reason) from None
            out.append("\ufffd")
            i = max(exc.end, i + 1)
            continue
        out.append(text)
        i += size
    return "".join(out)


def _eucjp_char(data: bytes, i: int) -> tuple[str, int]:
    """The EUC-JP character at ``data[i]`` (a byte from 0x80) and its length (:func:`decode_eucjp`)."""
    b = data[i]
    size = 3 if b == 0x8F else 2
    chunk = data[i:i + size]
    try:
        if len(chunk) < size or any(x < 0xA1 for x in chunk[1:]):
            raise ValueError("not an EUC-JP character")
        if b == 0x8E:
            return bytes([chunk[1]]).decode("cp932"), size
        if b == 0x8F:
            return chunk.decode("euc_jp"), size
        if b >= 0xA1:
            return _jis_pair(b & 0x7F, chunk[1] & 0x7F, "jis0208"), size
        raise ValueError("not an EUC-JP lead byte")
    except (UnicodeDecodeError, ValueError):
        raise UnicodeDecodeError("euc-jp", data, i, i + 1, "not an EUC-JP character") from None


def decode_eucjp(data: bytes, errors: str = "strict") -> str:
    """EUC-JP as Japanese mail programs write it: JIS X 0208 pairs with NEC's row 13 and the IBM extensions
    (read through cp932, as :func:`decode_iso2022jp` reads them), 0x8E kana, 0x8F JIS X 0212.

    Raises:
        UnicodeDecodeError: with ``errors="strict"``, at the first byte that is no character.
    """
    data = bytes(data)
    try:
        return data.decode("euc_jp")
    except UnicodeDecodeError:
        return _decode_chars(data, errors, "euc-jp", _eucjp_char)


def _big5_char(data: bytes, i: int) -> tuple[str, int]:
    """The Big5 pair at ``data[i]`` read as Big5-HKSCS, else CP950 (:func:`decode_big5`); a bad pair whose
    second byte is ASCII spans its lead byte alone (that byte is itself)."""
    pair = data[i:i + 2]
    for codec in ("big5hkscs", "cp950"):
        try:
            return pair.decode(codec), len(pair)
        except UnicodeDecodeError:
            continue
    end = i + 1 if len(pair) == 2 and pair[1] < 0x80 else i + len(pair)
    raise UnicodeDecodeError("big5", data, i, end, "not a Big5 character")


def decode_big5(data: bytes, errors: str = "strict") -> str:
    """Big5 text as Hong Kong (Big5-HKSCS) and Taiwanese (CP950) mail programs write it (module doc).

    Raises:
        UnicodeDecodeError: with ``errors="strict"``, at the first byte that is no character.
    """
    data = bytes(data)
    for whole in ("big5hkscs", "cp950"):
        try:
            return data.decode(whole)
        except UnicodeDecodeError:
            pass
    return _decode_chars(data, errors, "big5", _big5_char)


def _codec_info(name: str, decode) -> codecs.CodecInfo:
    def encode(text: str, errors: str = "strict"):
        raise UnicodeEncodeError(name, text, 0, len(text), "decode only")

    def dec(data, errors: str = "strict"):
        return decode(data, errors), len(data)

    return codecs.CodecInfo(encode, dec, name=name)


_CODECS = {"kith_iso2022jp": ("kith-iso2022jp", decode_iso2022jp), "kith_big5": ("kith-big5", decode_big5),
           "kith_eucjp": ("kith-eucjp", decode_eucjp)}


def _search(name: str):
    found = _CODECS.get(name.replace("-", "_"))
    return _codec_info(*found) if found else None


codecs.register(_search)
