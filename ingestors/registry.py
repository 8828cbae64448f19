"""Which ingestor reads which file: by suffix first, then by sniffing the first 4 KiB.

Like Picard's format registry: a file whose suffix one ingestor claims goes to
it; when several claim the suffix, or none does, each candidate's ``sniff()``
scores the file's first :data:`SNIFF_BYTES` bytes and the best score wins (for an
unclaimed suffix only at :data:`MIN_SCORE` or above).  Files nobody takes are
listed by :func:`plan` with the reason to show ("unsupported file type: .xyz").

Other formats join with :func:`register` (or by adding to :data:`_BUILTIN`).
"""
from __future__ import annotations

import importlib
import re
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from core.errors import InputError
from ingestors.base import Ingestor

SNIFF_BYTES = 4096
MIN_SCORE = 0.5  # a sniff below this does not claim a file whose suffix nobody claims
SKIPPED_NAMES = {".DS_Store", "Thumbs.db", "desktop.ini"}
_SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")  # SQLite's files beside a database (chat.db-wal)


_MAIL_MBOX_COMPANIONS = {"table_of_contents", "info.plist"}  # Apple Mail's index files in an exported X.mbox folder


_THUNDERBIRD_FILES = {"filterlog.html", "junklog.html", "msgfilterrules.dat", "popstate.dat", "virtualfolders.dat",
                      "rules.dat"}  # Thunderbird's own bookkeeping beside the mailboxes of a mail folder


def _thunderbird_skips(names: list[str], folder: str) -> set[str]:
    """What a Thunderbird mail folder holds besides mail, when ``names`` include a mailbox's ``.msf`` summary
    (``Inbox`` + ``Inbox.msf``): the ``.msf`` summaries (Mork indexes, no messages), the folder's bookkeeping
    files (:data:`_THUNDERBIRD_FILES`) and mailboxes that are empty (an emptied Trash)."""
    present = set(names)
    summaries = {f for f in names if f.lower().endswith(".msf") and f[:-4] in present}
    if not summaries:
        return set()
    empty = set()
    for f in summaries:
        try:
            if os.path.getsize(os.path.join(folder, f[:-4])) == 0:
                empty.add(f[:-4])
        except OSError:
            pass
    return summaries | empty | {f for f in names if f.lower() in _THUNDERBIRD_FILES}


def _listed(names: list[str], folder: str = "") -> list[str]:
    """The names of one folder worth reading: not hidden, not :data:`SKIPPED_NAMES`, not SQLite's
    companion files of a database beside them (``chat.db-wal``, ``chat.db-shm``, ``chat.db-journal``:
    SQLite reads them with ``chat.db``; alone they are no export), and, in a folder named ``*.mbox``
    (Apple Mail's export: the messages are its file ``mbox``), not Apple Mail's ``table_of_contents``
    and ``Info.plist``; in a Thunderbird mail folder, not its ``.msf`` summaries, bookkeeping files and empty
    mailboxes (:func:`_thunderbird_skips`)."""
    present = set(names)
    in_mail_export = folder.lower().rstrip("/\\").endswith(".mbox") and "mbox" in present
    thunderbird = _thunderbird_skips(names, folder)
    return [f for f in names if not f.startswith(".") and f not in SKIPPED_NAMES and f not in thunderbird
            and not any(f.endswith(c) and f[:-len(c)] in present for c in _SQLITE_COMPANIONS)
            and not (in_mail_export and f.lower() in _MAIL_MBOX_COMPANIONS)]

_BUILTIN = (  # (module, class): made with no arguments, in this order (ties go to the first)
    ("ingestors.mbox", "MboxIngestor"),
    ("ingestors.mbox", "EmlIngestor"),
    ("ingestors.photos", "PhotoIngestor"),
    ("ingestors.whatsapp", "WhatsAppIngestor"),
    ("ingestors.telegram", "TelegramIngestor"),
    ("ingestors.telegram_html", "TelegramHtmlIngestor"),
    ("ingestors.messenger", "MessengerIngestor"),
    ("ingestors.google_chat", "GoogleChatIngestor"),
    ("ingestors.hangouts", "HangoutsIngestor"),
    ("ingestors.imessage", "IMessageIngestor"),
    ("ingestors.contacts", "VCardIngestor"),
    ("ingestors.video", "VideoIngestor"),
)
_ingestors: list[Ingestor] | None = None


def all_ingestors(local_timezone: str | None = None) -> list[Ingestor]:
    """Every known ingestor instance: the built-in ones (made once), then those added by :func:`register`.

    Args:
        local_timezone: an IANA zone: the built-in ingestors that read zone-less times (their constructor takes
            ``local_timezone``: photos, videos, WhatsApp, Telegram) are made anew with it; None or ``"UTC"``: as made.

    Raises:
        ValueError: ``local_timezone`` is not a known zone.
    """
    global _ingestors
    if _ingestors is None:
        _ingestors = [getattr(importlib.import_module(m), c)() for m, c in _BUILTIN]
    if local_timezone in (None, "UTC"):
        return list(_ingestors)
    import inspect

    builtin = {(m, c) for m, c in _BUILTIN}
    return [type(i)(local_timezone=local_timezone)
            if (type(i).__module__, type(i).__name__) in builtin
            and "local_timezone" in inspect.signature(type(i).__init__).parameters else i
            for i in _ingestors]


def register(ingestor: Ingestor) -> None:
    """Add an ingestor (an instance) after the existing ones; one with the same ``name`` is replaced."""
    current = [i for i in all_ingestors() if i.name != ingestor.name]
    global _ingestors
    _ingestors = current + [ingestor]


def read_head(path: Path, size: int = SNIFF_BYTES) -> bytes:
    """The first ``size`` bytes of a file.

    Raises:
        InputError: the file cannot be read.
    """
    try:
        with open(path, "rb") as fh:
            return fh.read(size)
    except OSError as exc:
        raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from exc


def ingestor_for(path: str | os.PathLike, ingestors: Iterable[Ingestor] | None = None) -> Ingestor | None:
    """The ingestor that should read ``path``, or None when no ingestor takes it.

    Args:
        path: a file.
        ingestors: candidates (default :func:`all_ingestors`).
    Returns:
        The only ingestor claiming the file's suffix (case-insensitive) without
        reading the file; else the best-sniffing of those claiming it; else, when
        none claims the suffix, the best sniff of all if it scores ≥ :data:`MIN_SCORE`.
    Raises:
        InputError: the file had to be sniffed and cannot be read.
    """
    path = Path(path)
    pool = list(all_ingestors() if ingestors is None else ingestors)
    suffix = path.suffix.lower()
    claiming = [i for i in pool if suffix and suffix in i.suffixes]
    if len(claiming) == 1:
        return claiming[0]
    head = read_head(path)
    scored = [(i.sniff(path, head), -n, i) for n, i in enumerate(claiming or pool)]
    if not scored:
        return None
    score, _, best = max(scored, key=lambda t: t[:2])
    return best if claiming or score >= MIN_SCORE else None


_OTHER_MAIL_STORES = {
    ".pst": "an Outlook data file, which Kith does not read: convert it to mbox (readpst from libpst, or import it "
            "into Thunderbird and export the mailbox as mbox), and import that",
    ".ost": "Outlook's offline copy of a mailbox, which Kith does not read: export the mailbox from Outlook "
            "(File > Open & Export > Import/Export) or from its webmail as mbox, and import that",
    ".olm": "an Outlook for Mac archive, which Kith does not read: import it into Apple Mail or Thunderbird and "
            "export the mailbox as mbox, and import that",
    ".nsf": "a Lotus Notes database, which Kith does not read: export the mail as .eml or mbox, and import that",
    ".dbx": "an Outlook Express mail folder, which Kith does not read: import it into Thunderbird and export it "
            "as mbox, and import that",
}
"""Mail programs' own stores, with what to do instead (the reason :func:`unsupported_reason` gives)."""


_READ_BY_CONTENT = {".txt", ".json", ".html", ".htm", ""}
"""Suffixes no reader claims by name, whose files Kith reads by content (WhatsApp's ``.txt``, the JSON and HTML
chat exports, a file without a suffix): for one no reader took, :func:`unsupported_reason` says what is wrong
with its content, not that the type is unsupported."""


def _content_reason(path: Path, suffix: str) -> str | None:
    """What is wrong with the content of a file of a :data:`_READ_BY_CONTENT` type no reader took: ``"empty file"``
    (also ``"empty file (only blank lines)"`` / ``"(only zero bytes)"``); for ``.txt`` why it is not a WhatsApp
    chat export (``ingestors.whatsapp.why_not_an_export``); for ``.json`` ``"not a JSON file: binary data, not
    text"`` or ``"not a JSON file: it does not start with '{' or '[' (first line: '…')"``.  None when the file
    cannot be read (a name given without a file) or nothing more is to be said than the type's own reason."""
    from ingestors.whatsapp import blank_file_reason, looks_binary, text_encoding, why_not_an_export

    try:
        with open(path, "rb") as fh:
            head = fh.read(SNIFF_BYTES)
    except OSError:
        return None
    if suffix == ".txt":
        return why_not_an_export(path)
    if not head:
        return "empty file"
    blank = blank_file_reason(path, head)
    if blank:
        return blank
    if suffix != ".json":
        return None
    if looks_binary(head):
        return "not a JSON file: binary data, not text"
    text = head.decode(text_encoding(head), "replace").lstrip("\ufeff \t\r\n\x00")
    if text.startswith(("{", "[")):
        return None  # JSON, but no export Kith reads: the type's own reason says which are
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    first = first if len(first) <= 60 else first[:59].rstrip() + "…"
    return f"not a JSON file: it does not start with '{{' or '[' (first line: '{first}')"


def unsupported_reason(path: str | os.PathLike) -> str:
    """Why no reader takes ``path``, the reason an import shows for it.

    Args:
        path: a file no ingestor took (:func:`ingestor_for` gave None), or just a name.
    Returns:
        ``"unsupported file type: .xyz"`` (``"unsupported file type: no suffix"`` for a bare name; for a
        ``.json`` file no reader took, which JSON exports are read; for Meta's HTML export's ``message_N.html``,
        to download the JSON format instead; for a mail program's own store, what to do instead); for a type
        Kith reads by content (:data:`_READ_BY_CONTENT`) what is wrong with the file's content instead, as
        :func:`_content_reason` says (``"empty file"``, ``"not a WhatsApp chat export: …"``, ``"not a JSON
        file: …"``)."""
    suffix = Path(path).suffix.lower()
    if suffix == ".msg":  # Outlook's own format: say what to do instead
        from ingestors.mbox import OUTLOOK_MSG

        return f"unsupported file type: .msg ({OUTLOOK_MSG})"
    if suffix in _OTHER_MAIL_STORES:  # a mail program's own store: say how to get mbox or .eml out of it
        return f"unsupported file type: {suffix} ({_OTHER_MAIL_STORES[suffix]})"
    if suffix in (".html", ".htm") and re.fullmatch(r"message_\d+\.html?", Path(path).name.lower()):
        return (f"unsupported file type: {suffix} (a Facebook or Instagram export in HTML: Kith reads the JSON "
                "format; request the download again with Format: JSON)")
    if suffix in _READ_BY_CONTENT:  # a type Kith reads by what is in it: say what is wrong with what is in it
        wrong = _content_reason(Path(path), suffix)
        if wrong:
            return wrong
    if suffix == ".json":  # .json is read by content: say which JSON files are read
        return ("unsupported file type: .json (not a chat export Kith reads: Telegram's result.json, "
                "Instagram's or Facebook Messenger's message_N.json, Google Takeout's Hangouts.json or Google Chat's "
                "messages.json)")
    return f"unsupported file type: {suffix or 'no suffix'}"


def expand_paths(paths: Iterable[str | os.PathLike] | str | os.PathLike) -> list[Path]:
    """Files to import from files and folders the user gave.

    Args:
        paths: files and/or folders (one path, or an iterable of them).
    Returns:
        Every file, folders walked recursively, each folder's files sorted by path;
        hidden files and folders (name starting with ``.``), ``.DS_Store``,
        ``Thumbs.db``, ``desktop.ini`` and SQLite's ``-wal``/``-shm``/``-journal`` files beside
        their database are skipped inside folders (a file named directly is kept).  Arguments
        keep their order; duplicates are dropped.
    Raises:
        InputError: a path does not exist.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out: list[Path] = []
    seen: set[str] = set()

    def add(p: Path) -> None:
        key = os.path.abspath(p)
        if key not in seen:
            seen.add(key)
            out.append(p)

    for given in map(Path, paths):
        if given.is_dir():
            found = []
            for root, dirs, files in os.walk(given):
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                found += [Path(root, f) for f in _listed(files, root)]
            for p in sorted(found):
                add(p)
        elif given.exists():
            add(given)
        else:
            raise InputError(str(given), "no such file or folder")
    return out


def expand_inputs(paths: Iterable[str | os.PathLike]) -> tuple[list[Path], list[tuple[str, str]]]:
    """Files to import from what the user named, and a reason for each path that cannot be used.

    Unlike :func:`expand_paths` nothing is raised: one bad path never stops the others.

    Args:
        paths: files and/or folders, in the user's order.
    Returns:
        ``(files, problems)``: ``files`` absolute (symbolic links resolved), folders walked as in
        :func:`expand_paths`, duplicates dropped; ``problems`` ``(path as given, reason)`` for a
        path that does not exist, is a symbolic link loop, is not readable, or is neither a file
        nor a folder, and for a sub-folder that cannot be listed.
    """
    files: list[Path] = []
    problems: list[tuple[str, str]] = []
    seen: set[str] = set()

    def add(p: Path) -> None:
        key = str(p)
        if key not in seen:
            seen.add(key)
            files.append(p)

    for raw in paths:
        shown = str(raw)
        given = Path(raw).expanduser()
        try:
            path = given.resolve(strict=True)
        except RuntimeError:  # Python < 3.13 reports a loop this way
            problems.append((shown, "a symbolic link loop"))
            continue
        except OSError as exc:
            import errno

            if exc.errno == errno.ELOOP:
                problems.append((shown, "a symbolic link loop"))
            elif os.path.lexists(given):
                problems.append((shown, f"cannot be opened: {exc.strerror or exc}"))
            else:
                problems.append((shown, "no such file or folder"))
            continue
        if path.is_dir():
            def walk_error(exc: OSError) -> None:
                problems.append((exc.filename or shown, f"folder cannot be read: {exc.strerror or exc}"))

            found = []
            for root, dirs, names in os.walk(path, onerror=walk_error):
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                found += [Path(root, f) for f in _listed(names, root)]
            for p in sorted(found):
                add(p)
        elif path.is_file():
            if not os.access(path, os.R_OK):
                problems.append((shown, "not readable (permission denied)"))
                continue
            add(path)
        else:
            problems.append((shown, "neither a file nor a folder"))
    return files, problems


@dataclass
class Plan:
    """What :func:`plan` decided.

    Attributes:
        matched: ``(file, ingestor)`` pairs, in :func:`expand_paths` order.
        unsupported: ``(file, reason)`` for files no ingestor takes
            (reason: ``"unsupported file type: .xyz"``).
        unreadable: ``(file, reason)`` for files that could not even be sniffed.
    """

    matched: list[tuple[Path, Ingestor]] = field(default_factory=list)
    unsupported: list[tuple[Path, str]] = field(default_factory=list)
    unreadable: list[tuple[Path, str]] = field(default_factory=list)


def plan(paths: Iterable[str | os.PathLike] | str | os.PathLike,
         ingestors: Iterable[Ingestor] | None = None) -> Plan:
    """Expand ``paths`` (see :func:`expand_paths`) and pick an ingestor for each file.

    Returns:
        A :class:`Plan`; files no ingestor takes are in ``plan.unsupported`` with
        the reason to show the user.
    Raises:
        InputError: a given path does not exist.
    """
    pool = list(all_ingestors() if ingestors is None else ingestors)
    result = Plan()
    for path in expand_paths(paths):
        try:
            ingestor = ingestor_for(path, pool)
        except InputError as exc:
            result.unreadable.append((path, exc.reason))
            continue
        if ingestor is None:
            result.unsupported.append((path, unsupported_reason(path)))
        else:
            result.matched.append((path, ingestor))
    return result
