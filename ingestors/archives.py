"""Zip archives (WhatsApp's "Export chat" zip, Google Takeout's zips, a zipped folder) read as folders; tar
archives (Takeout's ``.tgz`` choice, ``.tar.gz``, ``.tar``) too (:func:`tar_members`, :func:`archive_members`), and
one compressed file (``.mbox.gz``, ``chat.txt.bz2``, ``result.json.xz``) as an archive of that one file
(:func:`compressed_members`).

:func:`zip_members` opens an archive and yields its members one at a time, each copied to
a private temporary file that is deleted as soon as the caller is done with it (disk use
is bounded by the largest member, and nothing extracted outlives the import).  Each
member is cited as ``<archive path>/<member path>``.

Limits against zip bombs and hostile archives (:class:`ZipLimits`):

* at most ``max_members`` files per archive (nested archives count towards the outer one);
* a member bigger than ``ratio_floor`` may not expand more than ``max_ratio`` times
  (text mail compresses ~5–10×, a bomb ~1000×);
* a member is never written past the size its header declares, nor past the free disk
  space left (less ``disk_margin``);
* names with absolute paths or ``..`` are refused (zip slip); encrypted members are refused;
* archives inside archives are opened down to ``max_depth`` levels.

Members that are folders, hidden (name starting with ``.``), under ``__MACOSX/``, or
``.DS_Store``/``Thumbs.db``/``desktop.ini`` are skipped.  Every refusal is a
``(cited path, reason)`` the caller reports; the other members are still read.
"""
from __future__ import annotations

import bz2
import gzip
import lzma
import os
import shutil
import tarfile
import tempfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Callable, Iterator

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")  # local file header; end of central directory (empty archive)
SKIPPED_NAMES = {".DS_Store", "Thumbs.db", "desktop.ini"}


@dataclass(frozen=True)
class ZipLimits:
    """Limits for :func:`zip_members` (see the module docstring)."""

    max_members: int = 100_000
    max_ratio: float = 200.0
    ratio_floor: int = 1 << 20  # bytes: smaller members may compress as well as they like
    disk_margin: int = 256 << 20  # bytes of free disk always left
    max_depth: int = 2


@dataclass(frozen=True)
class Member:
    """One extracted member: ``path`` the temporary file (deleted after use), ``cite`` how it is named."""

    path: Path
    cite: str


def is_zip(path: Path, head: bytes | None = None) -> bool:
    """True for a ``.zip`` file or a file that starts with a zip signature."""
    if path.suffix.lower() == ".zip":
        return True
    if head is None:
        try:
            with open(path, "rb") as fh:
                head = fh.read(4)
        except OSError:
            return False
    return head[:4] in ZIP_MAGIC


def member_name(info: zipfile.ZipInfo) -> str:
    """A member's path as its maker wrote it.  Without the UTF-8 flag, ``zipfile`` reads the name as
    CP437 (the zip format's old default); macOS's and Windows' zippers and phones write UTF-8 there
    without setting the flag (``WhatsApp Chat - Família`` read as ``Fam├¡lia``), so such a name
    that is valid UTF-8 is read as UTF-8; any other stays as CP437 read it."""
    name = info.filename
    if info.flag_bits & 0x800 or name.isascii():
        return name
    try:
        return name.encode("cp437").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return name


def _skipped(name: str) -> bool:
    parts = PurePosixPath(name).parts
    return (not parts or parts[0] == "__MACOSX" or any(p.startswith(".") for p in parts)
            or parts[-1] in SKIPPED_NAMES)


def _unsafe(name: str) -> bool:
    p = PurePosixPath(name.replace("\\", "/"))
    return p.is_absolute() or ".." in p.parts or (len(name) > 1 and name[1] == ":")


def zip_members(path: Path, cite: str | None = None, limits: ZipLimits = ZipLimits(),
                errors: list[tuple[str, str]] | None = None, workdir: Path | None = None,
                _depth: int = 1, _budget: list[int] | None = None,
                first: Callable[[str], bool] | None = None) -> Iterator[Member]:
    """Yield the archive's members one by one as temporary files (each deleted when the next is asked for).

    Args:
        path: the zip file.
        cite: how the archive is named in citations (default ``str(path)``).
        limits: see :class:`ZipLimits`.
        errors: refusals are appended here as ``(cited path, reason)``; the archive as a whole
            failing to open is one such entry (cited as the archive).
        workdir: where the temporary files go (default the system's temporary folder).
        first: given a member's name, True for a member to read before the others (an address book, an
            export's profile file that names its owner); their order among themselves is kept.
    Yields:
        :class:`Member` per file, in the archive's order (those ``first`` picks before the rest); members of
        nested archives in place.
    """
    errors = errors if errors is not None else []
    cite = cite or str(path)
    budget = _budget if _budget is not None else [limits.max_members]
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        errors.append((cite, f"not a readable zip archive ({exc})"))
        return
    tmp = Path(tempfile.mkdtemp(prefix="kith-zip-", dir=workdir))
    try:
        with zf:
            infos = zf.infolist()
            if first is not None:
                infos = sorted(infos, key=lambda i: not first(member_name(i)))  # stable: archive order kept
            for info in infos:
                name = member_name(info)
                where = f"{cite}/{name}"
                admitted = False if info.is_dir() else _admit(name, where, cite, budget, limits, errors)
                if admitted is None:
                    return
                if not admitted:
                    continue
                if info.flag_bits & 0x1:
                    errors.append((where, "member is encrypted: not opened"))
                    continue
                if info.file_size > limits.ratio_floor and \
                        info.file_size > limits.max_ratio * max(1, info.compress_size):
                    errors.append((where, f"member expands {info.file_size / max(1, info.compress_size):.0f}× "
                                          f"(over {limits.max_ratio:.0f}×): not opened (a zip bomb guard)"))
                    continue
                free = shutil.disk_usage(tmp).free - limits.disk_margin
                if info.file_size > free:
                    errors.append((where, f"member needs {info.file_size >> 20} MiB, more than the free disk "
                                          "space: not opened"))
                    continue
                # under a folder named as the archive, so an iOS "_chat.txt" keeps its chat's name
                target = tmp / (Path(cite).stem or "archive") / PurePosixPath(name)
                target.parent.mkdir(parents=True, exist_ok=True)
                ok = _extract(zf, info, target, errors, where)
                if ok:
                    try:
                        yield from _inside(target, where, limits, errors, tmp, _depth, budget, first)
                    finally:
                        target.unlink(missing_ok=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class _TooLarge(ValueError):
    """A stream ran past the bytes allowed for it (:func:`_copy_capped`)."""


def _copy_capped(src, target: Path, cap: int, why: str) -> None:
    """Copy the binary stream ``src`` into a new private file ``target`` (mode 0600), 1 MiB at a time.

    Raises:
        _TooLarge: (with ``why``) the stream holds more than ``cap`` bytes; what was copied stays for the caller.
    """
    written = 0
    with open(target, "wb") as dst:
        os.chmod(target, 0o600)
        while chunk := src.read(1 << 20):
            written += len(chunk)
            if written > cap:
                raise _TooLarge(why)
            dst.write(chunk)


def _extract(zf: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path, errors: list, where: str) -> bool:
    """Copy one member to ``target``, never past its declared size.  False (and an error) on failure."""
    try:
        with zf.open(info) as src:
            _copy_capped(src, target, info.file_size, "member is larger than its header says")
    except (zipfile.BadZipFile, OSError, ValueError, RuntimeError, NotImplementedError, EOFError) as exc:
        target.unlink(missing_ok=True)
        errors.append((where, f"member could not be extracted ({exc})"))
        return False
    return True


TAR_SUFFIXES = (".tar", ".tgz", ".tar.gz", ".tbz", ".tbz2", ".tar.bz2", ".txz", ".tar.xz")
"""Tar archives read like zips (Google Takeout offers ``.tgz`` as well as ``.zip``)."""


def is_tar(path: Path) -> bool:
    """True for a file named as a tar archive (:data:`TAR_SUFFIXES`)."""
    return path.name.lower().endswith(TAR_SUFFIXES)


COMPRESSED_SUFFIXES = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
"""One compressed file (not a tar): gzip, bzip2, xz — read as an archive holding that file."""


def is_compressed(path: Path) -> bool:
    """True for a file named as one compressed file (``.gz``, ``.bz2``, ``.xz``) that is not a tar archive."""
    return path.suffix.lower() in COMPRESSED_SUFFIXES and not is_tar(path)


def archive_members(path: Path, cite: str | None = None, limits: ZipLimits = ZipLimits(),
                    errors: list[tuple[str, str]] | None = None, workdir: Path | None = None,
                    first: Callable[[str], bool] | None = None) -> Iterator[Member]:
    """:func:`zip_members` for a zip, :func:`tar_members` for a tar archive, :func:`compressed_members` for one
    compressed file (by name, :func:`is_tar`, :func:`is_compressed`)."""
    if is_tar(path):
        return tar_members(path, cite, limits, errors, workdir, first=first)
    if is_compressed(path):
        return compressed_members(path, cite, limits, errors, workdir)
    return zip_members(path, cite, limits, errors, workdir, first=first)


def compressed_members(path: Path, cite: str | None = None, limits: ZipLimits = ZipLimits(),
                       errors: list[tuple[str, str]] | None = None, workdir: Path | None = None,
                       _depth: int = 1, _budget: list[int] | None = None) -> Iterator[Member]:
    """Yield the one file inside a ``.gz``/``.bz2``/``.xz`` file (``mail.mbox.gz`` → ``mail.mbox``), as
    :func:`zip_members` yields a zip's, cited ``<path>/<inner name>``.  The inner name is the file's name less
    the compression suffix (``file`` when nothing is left).  Limits (:class:`ZipLimits`): it may not expand more
    than ``max_ratio`` times past ``ratio_floor`` bytes, nor past the free disk less ``disk_margin``; a zip or tar
    inside is opened as one (to ``max_depth``).  A damaged or cut-short stream is an error naming the file; what
    it held is not read (nothing partial is ingested).

    Args and yields: as for :func:`zip_members`; ``path`` is the compressed file.
    """
    errors = errors if errors is not None else []
    cite = cite or str(path)
    budget = _budget if _budget is not None else [limits.max_members]
    opener = COMPRESSED_SUFFIXES[path.suffix.lower()]
    inner = path.name[: -len(path.suffix)] or "file"
    where = f"{cite}/{inner}"
    if budget[0] <= 0:
        errors.append((cite, f"more than {limits.max_members} files in the archive: the rest was not opened "
                             "(a zip bomb guard)"))
        return
    budget[0] -= 1
    tmp = Path(tempfile.mkdtemp(prefix="kith-gz-", dir=workdir))
    try:
        target = tmp / inner
        try:
            packed = path.stat().st_size
            cap = min(max(limits.ratio_floor, int(limits.max_ratio * max(1, packed))),
                      shutil.disk_usage(tmp).free - limits.disk_margin)
            with opener(path, "rb") as src:
                _copy_capped(src, target, cap, f"expands past {cap >> 20} MiB ({limits.max_ratio:.0f}× its size "
                                               "or the free disk space): not opened (a zip bomb guard)")
        except _TooLarge as exc:
            errors.append((where, str(exc)))
            return
        except (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError) as exc:
            errors.append((cite, f"not a readable {path.suffix.lower()} file, or it is damaged or cut short "
                                 f"({exc}): nothing in it was read"))
            return
        try:
            yield from _inside(target, where, limits, errors, tmp, _depth, budget, None)
        finally:
            target.unlink(missing_ok=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def tar_members(path: Path, cite: str | None = None, limits: ZipLimits = ZipLimits(),
                errors: list[tuple[str, str]] | None = None, workdir: Path | None = None,
                _depth: int = 1, _budget: list[int] | None = None,
                first: Callable[[str], bool] | None = None) -> Iterator[Member]:
    """Yield a tar archive's (``.tgz``, ``.tar.gz``, ``.tar``…) regular files one by one as temporary files, as
    :func:`zip_members` does for a zip, with the same limits, except the expansion ratio (a compressed tar has one
    stream; the disk check bounds what a member may take).  Links, devices and folders are skipped.  The archive
    is read as a stream (a big ``.tgz`` is decompressed once, or twice when ``first`` picks members to read
    before the others).

    Args and yields: as for :func:`zip_members`; ``path`` is the tar file.
    """
    errors = errors if errors is not None else []
    cite = cite or str(path)
    budget = _budget if _budget is not None else [limits.max_members]
    tmp = Path(tempfile.mkdtemp(prefix="kith-tar-", dir=workdir))
    try:
        for wanted in ((True, False) if first is not None else (None,)):
            try:
                tf = tarfile.open(path, "r|*")
            except (tarfile.TarError, OSError, EOFError) as exc:
                errors.append((cite, f"not a readable tar archive ({exc})"))
                return
            with tf:
                try:
                    for info in tf:
                        name = info.name
                        if wanted is not None and bool(first(name)) != wanted:
                            continue
                        where = f"{cite}/{name}"
                        admitted = _admit(name, where, cite, budget, limits, errors) if info.isfile() else False
                        if admitted is None:
                            return
                        if not admitted:
                            continue
                        if info.size > shutil.disk_usage(tmp).free - limits.disk_margin:
                            errors.append((where, f"member needs {info.size >> 20} MiB, more than the free disk "
                                                  "space: not opened"))
                            continue
                        target = tmp / (Path(cite).name.split(".")[0] or "archive") / PurePosixPath(name)
                        target.parent.mkdir(parents=True, exist_ok=True)
                        if not _extract_tar(tf, info, target, errors, where):
                            continue
                        try:
                            yield from _inside(target, where, limits, errors, tmp, _depth, budget, first)
                        finally:
                            target.unlink(missing_ok=True)
                except (tarfile.TarError, OSError, EOFError, zlib.error, lzma.LZMAError) as exc:
                    errors.append((cite, f"the archive is damaged or cut short ({exc}): the members after that "
                                         "point were not read"))
                    return
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _admit(name: str, where: str, cite: str, budget: list[int], limits: ZipLimits, errors: list) -> bool | None:
    """Whether an archive member is read: True to read it, False to skip it (hidden or system files silently; a name
    pointing outside the archive with an error), None to stop (``max_members`` spent: an error).  Counts it in
    ``budget``."""
    if _skipped(name) and not _unsafe(name):
        return False
    if budget[0] <= 0:
        errors.append((cite, f"more than {limits.max_members} files in the archive: the rest was not opened "
                             "(a zip bomb guard)"))
        return None
    budget[0] -= 1
    if _unsafe(name):
        errors.append((where, "member name points outside the archive: not opened"))
        return False
    return True


def _inside(target: Path, where: str, limits: ZipLimits, errors: list, tmp: Path, depth: int, budget: list[int],
            first: Callable[[str], bool] | None) -> Iterator[Member]:
    """An extracted member: itself, or — a zip, tar or compressed file — what it holds, to ``max_depth`` levels."""
    if not (is_zip(target) or is_tar(target) or is_compressed(target)):
        yield Member(target, where)
    elif depth >= limits.max_depth:
        errors.append((where, f"archive nested more than {limits.max_depth} deep: not opened"))
    elif is_tar(target):
        yield from tar_members(target, where, limits, errors, tmp, depth + 1, budget, first)
    elif is_compressed(target):
        yield from compressed_members(target, where, limits, errors, tmp, depth + 1, budget)
    else:
        yield from zip_members(target, where, limits, errors, tmp, depth + 1, budget, first)


def _extract_tar(tf: tarfile.TarFile, info: tarfile.TarInfo, target: Path, errors: list, where: str) -> bool:
    """Copy one tar member to ``target``, never past its declared size.  False (and an error) on failure."""
    src = tf.extractfile(info)
    if src is None:
        return False
    written = 0
    with src, open(target, "wb") as dst:
        os.chmod(target, 0o600)
        while True:
            chunk = src.read(min(1 << 20, info.size - written + 1))
            if not chunk:
                break
            written += len(chunk)
            if written > info.size:
                target.unlink(missing_ok=True)
                errors.append((where, "member is larger than its header says: not read"))
                return False
            dst.write(chunk)
    return True
