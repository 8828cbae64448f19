"""The Kith archive: the whole memory as one portable, versioned file (``docs/archive-format.md``).

An archive is a ZIP file (ZIP64 where needed) of members written and read as streams, one row at a
time, so neither side ever holds the archive in memory:

* ``manifest.json`` — written last: the format name and version, what wrote it, and for every other
  member its SHA-256, its size in bytes (uncompressed) and its row count;
* ``settings.json`` — the person's settings without secrets (there are none in settings; keys live in
  the OS keyring) and without machine-specific paths;
* ``tables/<table>.jsonl`` — one JSON object per row, ``{column: value}``; datetimes as ISO 8601 UTC
  strings, bytes as ``{"$b64": …}``, JSON columns as JSON;
* ``fts/<table>.jsonl`` — full-text rows ``{"rowid": …, column: text}`` (they are not derivable exactly
  from the tables: a forget's redaction rewrites them);
* ``signatures/signatures.bin`` and ``signatures/gists.bin`` — ``uint8 (n, 1024)`` HDC rows, row ``i``
  being the episode whose ``signature_row`` is ``i`` in ``tables/episode.jsonl``;
* ``vectors/<collection>.jsonl`` — ``{"id", "embedding": {"$f32": base64 float32 LE}, "metadata"}``.

This module is the format (writing, reading, checksums, value encoding); what goes in it and how it is
put back is ``app/operations/archive.py``.
"""
from __future__ import annotations

import base64
import hashlib
import io
import json
import zipfile
import zlib
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import IO, Any, Iterator

import numpy as np
from sqlalchemy import JSON, Boolean, Date, DateTime, Float, Integer, LargeBinary

from core.errors import InputError

FORMAT = "kith-archive"
FORMAT_VERSION = 1
"""v1: tables, full-text rows, signatures, vectors and settings, as documented in docs/archive-format.md."""
MANIFEST = "manifest.json"


class ArchiveError(InputError):
    """An archive cannot be read: not a Kith archive, corrupt (a checksum or a ZIP CRC does not match),
    or written by a newer Kith (format version above :data:`FORMAT_VERSION`)."""


# ---- values -------------------------------------------------------------------------------------------

def encode_value(v: Any) -> Any:
    """A database value as JSON: datetimes → ISO 8601 (UTC, ``+00:00``), bytes → ``{"$b64": …}``."""
    if isinstance(v, datetime):
        if v.tzinfo is None:
            v = v.replace(tzinfo=timezone.utc)
        return v.astimezone(timezone.utc).isoformat()
    if isinstance(v, date):
        return v.isoformat()
    if isinstance(v, (bytes, bytearray, memoryview)):
        return {"$b64": base64.b64encode(bytes(v)).decode("ascii")}
    return v


def decode_value(v: Any, coltype=None) -> Any:
    """The inverse of :func:`encode_value` for a column of SQLAlchemy type ``coltype`` (None: raw)."""
    if v is None:
        return None
    if isinstance(v, dict) and set(v) == {"$b64"}:
        return base64.b64decode(v["$b64"])
    if coltype is not None:
        py = _python_type(coltype)
        if py is datetime and isinstance(v, str):
            d = datetime.fromisoformat(v)  # Kith stores UTC, tz-aware (SQLModel refuses naive datetimes)
            return d.astimezone(timezone.utc) if d.tzinfo else d.replace(tzinfo=timezone.utc)
        if py is date and isinstance(v, str):
            return date.fromisoformat(v)
        if py is bool:
            return bool(v)
        if py is float and isinstance(v, int):
            return float(v)
        if py is int and isinstance(v, bool):
            return int(v)
        if py is bytes and isinstance(v, str):
            return base64.b64decode(v)
    return v


def _python_type(coltype):
    t = getattr(coltype, "impl", coltype)  # a TypeDecorator (SQLModel's DateTime) wraps the real type
    for typ, py in ((JSON, dict), (DateTime, datetime), (Date, date), (Boolean, bool), (Float, float),
                    (Integer, int), (LargeBinary, bytes)):
        if isinstance(t, typ) or isinstance(coltype, typ):
            return py
    try:
        return coltype.python_type
    except (NotImplementedError, AttributeError):
        return None


def encode_vector(v: np.ndarray) -> dict:
    """A float32 vector as ``{"$f32": base64 of its little-endian bytes}`` (exact)."""
    return {"$f32": base64.b64encode(np.asarray(v, dtype="<f4").tobytes()).decode("ascii")}


def decode_vector(d: dict) -> np.ndarray:
    return np.frombuffer(base64.b64decode(d["$f32"]), dtype="<f4").astype(np.float32)


# ---- writing ------------------------------------------------------------------------------------------

@dataclass
class MemberInfo:
    """One member as the manifest lists it."""

    name: str
    sha256: str
    bytes: int
    rows: int

    def to_json(self) -> dict:
        return {"sha256": self.sha256, "bytes": self.bytes, "rows": self.rows}


class _MemberWriter:
    """A stream into one ZIP member that hashes and counts what it writes."""

    def __init__(self, zf: zipfile.ZipFile, name: str, compress: bool):
        info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
        info.external_attr = 0o644 << 16
        self.name = name
        self._fh = zf.open(info, "w", force_zip64=True)
        self._h = hashlib.sha256()
        self.bytes = 0
        self.rows = 0
        self._buf = io.BytesIO()

    def write(self, data: bytes, rows: int = 0) -> None:
        self._h.update(data)
        self.bytes += len(data)
        self.rows += rows
        self._buf.write(data)
        if self._buf.tell() >= 1 << 20:
            self._flush()

    def line(self, obj: Any) -> None:
        """One JSON line (one row)."""
        self.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n", rows=1)

    def _flush(self) -> None:
        self._fh.write(self._buf.getvalue())
        self._buf = io.BytesIO()

    def close(self) -> MemberInfo:
        self._flush()
        self._fh.close()
        return MemberInfo(self.name, self._h.hexdigest(), self.bytes, self.rows)


class ArchiveWriter:
    """Writes an archive to ``path`` (first to ``path.partial``, renamed when the manifest is written, so a
    crash or a cancel never leaves a file that looks complete).

    Use :meth:`member` for each member (one open at a time), then :meth:`finish` with the manifest's header.
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self.tmp = self.path.with_name(self.path.name + ".partial")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._zf = zipfile.ZipFile(self.tmp, "w", allowZip64=True)
        self.members: dict[str, MemberInfo] = {}

    def member(self, name: str, compress: bool = True) -> "_MemberCtx":
        return _MemberCtx(self, name, compress)

    def finish(self, header: dict) -> dict:
        """Write ``manifest.json`` (``header`` + ``members``) and move the file into place; returns the manifest."""
        manifest = {"format": FORMAT, "format_version": FORMAT_VERSION, **header,
                    "members": {n: m.to_json() for n, m in self.members.items()}}
        self._zf.writestr(zipfile.ZipInfo(MANIFEST, date_time=(2020, 1, 1, 0, 0, 0)),
                          json.dumps(manifest, indent=2, ensure_ascii=False), compress_type=zipfile.ZIP_DEFLATED)
        self._zf.close()
        self.tmp.replace(self.path)
        return manifest

    def abort(self) -> None:
        try:
            self._zf.close()
        finally:
            self.tmp.unlink(missing_ok=True)


class _MemberCtx:
    def __init__(self, w: ArchiveWriter, name: str, compress: bool):
        self.w, self.name, self.compress = w, name, compress

    def __enter__(self) -> _MemberWriter:
        self.mw = _MemberWriter(self.w._zf, self.name, self.compress)
        return self.mw

    def __exit__(self, *exc) -> None:
        info = self.mw.close()
        if exc[0] is None:
            self.w.members[self.name] = info


# ---- reading ------------------------------------------------------------------------------------------

@dataclass
class ArchiveReader:
    """An open archive: :attr:`manifest` checked for format and version at open; :meth:`verify` checks every
    member's SHA-256 and size against it (streamed).

    Raises (at open):
        ArchiveError: not a ZIP file, no manifest, another format, or a newer format version.
    """

    path: Path
    manifest: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.path = Path(self.path)
        try:
            self._zf = zipfile.ZipFile(self.path, "r")
        except FileNotFoundError:
            raise ArchiveError(str(self.path), "no such file") from None
        except (zipfile.BadZipFile, OSError) as exc:
            raise ArchiveError(str(self.path), f"not a Kith archive (not a readable ZIP file: {exc})") from None
        try:
            raw = self._zf.read(MANIFEST)
        except KeyError:
            self.close()
            raise ArchiveError(str(self.path), f"not a Kith archive (no {MANIFEST})") from None
        except (zipfile.BadZipFile, zlib.error, OSError) as exc:
            self.close()
            raise ArchiveError(str(self.path), f"corrupt archive: {MANIFEST} cannot be read ({exc})") from None
        try:
            self.manifest = json.loads(raw)
        except ValueError as exc:
            self.close()
            raise ArchiveError(str(self.path), f"corrupt archive: {MANIFEST} is not JSON ({exc})") from None
        if self.manifest.get("format") != FORMAT:
            self.close()
            raise ArchiveError(str(self.path), f"not a Kith archive (format {self.manifest.get('format')!r})")
        ver = self.manifest.get("format_version")
        if not isinstance(ver, int) or ver < 1:
            self.close()
            raise ArchiveError(str(self.path), f"corrupt archive: format version {ver!r}")
        if ver > FORMAT_VERSION:
            self.close()
            raise ArchiveError(str(self.path), f"archive format v{ver} is newer than this Kith reads "
                                               f"(v{FORMAT_VERSION}); update Kith to import it")

    @property
    def members(self) -> dict[str, dict]:
        return self.manifest.get("members", {})

    def has(self, name: str) -> bool:
        return name in self.members

    def verify(self, progress=None) -> int:
        """Stream every member and compare its SHA-256 and size with the manifest.

        Returns:
            Bytes checked.

        Raises:
            ArchiveError: a member is missing, extra, or does not match (naming it).
        """
        listed = set(self.members)
        present = {i.filename for i in self._zf.infolist()} - {MANIFEST}
        if listed - present:
            raise ArchiveError(str(self.path), "corrupt archive: missing member(s) " + ", ".join(sorted(listed - present)))
        if present - listed:
            raise ArchiveError(str(self.path), "corrupt archive: member(s) not in the manifest "
                               + ", ".join(sorted(present - listed)))
        total = 0
        for i, (name, m) in enumerate(sorted(self.members.items())):
            h = hashlib.sha256()
            n = 0
            for chunk in self._chunks(name):
                h.update(chunk)
                n += len(chunk)
            if n != m.get("bytes") or h.hexdigest() != m.get("sha256"):
                raise ArchiveError(str(self.path), f"corrupt archive: {name} does not match its checksum "
                                   f"(sha256 {h.hexdigest()[:12]}…, {n} bytes; the manifest says "
                                   f"{str(m.get('sha256'))[:12]}…, {m.get('bytes')} bytes)")
            total += n
            if progress is not None:
                progress("verify", i + 1, len(self.members))
        return total

    def _chunks(self, name: str, size: int = 1 << 20) -> Iterator[bytes]:
        try:
            with self._zf.open(name) as fh:
                while True:
                    b = fh.read(size)
                    if not b:
                        return
                    yield b
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:
            raise ArchiveError(str(self.path), f"corrupt archive: {name} cannot be read ({exc})") from None

    def lines(self, name: str) -> Iterator[Any]:
        """The JSON objects of a ``.jsonl`` member, one at a time."""
        try:
            with self._zf.open(name) as fh:
                for n, raw in enumerate(io.TextIOWrapper(fh, encoding="utf-8"), 1):
                    if raw.strip():
                        try:
                            yield json.loads(raw)
                        except ValueError as exc:
                            raise ArchiveError(str(self.path), f"corrupt archive: {name} line {n} is not JSON ({exc})") from None
        except KeyError:
            raise ArchiveError(str(self.path), f"corrupt archive: no member {name}") from None
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:
            raise ArchiveError(str(self.path), f"corrupt archive: {name} cannot be read ({exc})") from None

    def open(self, name: str) -> IO[bytes]:
        """A binary stream of a member."""
        return self._zf.open(name)

    def read_json(self, name: str) -> Any:
        return json.loads(b"".join(self._chunks(name)))

    def close(self) -> None:
        self._zf.close()

    def __enter__(self) -> "ArchiveReader":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
