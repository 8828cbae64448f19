"""Result types of the operations, shared by the CLI (``--json``) and the window."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import date


@dataclass
class IngestError:
    """One thing that could not be read: ``path`` and, inside it, ``locator`` (may be empty)."""

    path: str
    reason: str
    locator: str = ""

    def to_json(self) -> dict:
        d = {"path": self.path, "reason": self.reason}
        if self.locator:
            d["locator"] = self.locator
        return d


@dataclass
class IngestProgress:
    """Progress of an ingest run, sent to the progress callback after each batch and file.

    Attributes:
        files_done / files_total: files finished out of the files found.
        current: the file being read now ('' when finished).
        records_added / records_skipped: running totals.
        errors: running count of errors.
    """

    files_done: int
    files_total: int
    current: str
    records_added: int
    records_skipped: int
    errors: int


@dataclass
class IngestReport:
    """What ``ingest`` did.  JSON: ``{"files", "records_added", "records_skipped", "errors": [{"path", "reason"}]}``."""

    files: int = 0
    records_added: int = 0
    records_skipped: int = 0
    errors: list[IngestError] = field(default_factory=list)
    cancelled: bool = False
    records_filtered: int = 0  # Gmail spam / trash / promotions, left out on purpose (seed 002)
    extraction_fallbacks: int = 0  # LLM extraction answers that failed the schema twice (deterministic used)
    resumed: int = 0  # stage completions of records an earlier (crashed, failed or cancelled) import left undone
    lock: dict = field(default_factory=dict)  # the writer lock: holds, seconds waited for others, own overhead (s)
    files_ok: int = 0  # files read without any error
    after_import: dict | None = None  # the after-import jobs' result when the import ran them itself (separate process)
    forgotten_again: list[str] = field(default_factory=list)  # who a forget made during the import hid, come back
    # through its later batches and forgotten again (app.operations.forget.forget_late_arrivals)
    purged_during: int = 0  # forgets purged during the import: what arrived after them could not be matched

    @property
    def nothing_read(self) -> bool:
        """True when there were errors and not one file could be read, nor one record taken from any:
        the CLI exits 1."""
        return (bool(self.errors) and not self.files_ok and not self.cancelled
                and not (self.records_added or self.records_skipped or self.records_filtered))

    def to_json(self) -> dict:
        d = {"files": self.files, "records_added": self.records_added,
             "records_skipped": self.records_skipped, "errors": [e.to_json() for e in self.errors]}
        if self.resumed:
            d["resumed"] = self.resumed
        if self.lock:
            d["lock"] = self.lock
        if self.records_filtered:
            d["records_filtered"] = self.records_filtered
        if self.extraction_fallbacks:
            d["extraction_fallbacks"] = self.extraction_fallbacks
        if self.cancelled:
            d["cancelled"] = True
        if self.nothing_read:
            d["nothing_read"] = True
        if self.files_ok:
            d["files_ok"] = self.files_ok
        if self.after_import is not None:
            d["after_import"] = self.after_import
        if self.forgotten_again:
            d["forgotten_again"] = list(self.forgotten_again)
        if self.purged_during:
            d["purged_during"] = self.purged_during
        return d

    @classmethod
    def from_json(cls, d: dict) -> "IngestReport":
        """The report :meth:`to_json` wrote (e.g. by an import run in another process)."""
        errs = [IngestError(e.get("path", ""), e.get("reason", ""), e.get("locator", "")) for e in d.get("errors", [])]
        return cls(files=int(d.get("files", 0)), records_added=int(d.get("records_added", 0)),
                   records_skipped=int(d.get("records_skipped", 0)), errors=errs,
                   cancelled=bool(d.get("cancelled", False)), records_filtered=int(d.get("records_filtered", 0)),
                   extraction_fallbacks=int(d.get("extraction_fallbacks", 0)), resumed=int(d.get("resumed", 0)),
                   lock=dict(d.get("lock", {})), files_ok=int(d.get("files_ok", 0)),
                   after_import=d.get("after_import"), forgotten_again=list(d.get("forgotten_again", [])),
                   purged_during=int(d.get("purged_during", 0)))


@dataclass
class AskResult:
    """One answer from memory.

    Attributes:
        text: the record's text, the fact's statement, or (history) what used to be true.
        source: the source file ('' for none; "chat (…)" for something said to Kith).
        when: ISO 8601 UTC or None.  score: the fused retrieval score (not comparable across questions).
        relevance: calibrated P(relevant) in [0, 1] (``core/retrieval/relevance.py``).
        kind: "record" (a message, photo, memo), "episode" (said in chat), "fact" (current) or "history"
            (a superseded fact).
        record_id: the record (for a fact: its first evidence record).  episode_id, fact_id: when known.
        subject, sender: the record's subject and sender (a fact: "domain: key" and its subject's name).
        confidence: a fact's confidence.  tier: seed 001's recall tier of a turn (A–D).
        record_kind: the record's kind (email, chat, photo, voice, …).
        utc_offset: a record's offset where it was sent or taken, minutes east of UTC (+540 for Tokyo), or None:
            its local day is ``when`` at this offset (a photo taken at 00:30 in Tokyo is on the day after its UTC
            day).
        date_only: only the record's day is known (a photo named IMG-20230504-WA0001.jpg, a memo's date tag):
            ``when`` is noon of that day by convention, never a time to show.
    """

    text: str
    source: str
    when: str | None
    score: float
    record_id: int = 0
    subject: str | None = None
    sender: str | None = None
    kind: str = "record"
    fact_id: int = 0
    confidence: float | None = None
    relevance: float = 0.0
    episode_id: int = 0
    tier: str = ""
    record_kind: str = ""
    evidence: list = field(default_factory=list)  # a fact's evidence record ids
    utc_offset: int | None = None
    date_only: bool = False

    def local_when(self) -> str | None:
        """``when`` at the record's own offset (``"2023-05-05T00:30:00+09:00"``), ``when`` itself (UTC) when the
        offset is unknown, or None.  A record whose day alone is known (``date_only``) gives that day,
        ``"2023-05-04"``: the noon it is stored at was never said."""
        if not self.when or self.utc_offset is None:
            return self.when[:10] if self.when and self.date_only else self.when
        from datetime import datetime, timedelta, timezone

        try:
            local = datetime.fromisoformat(self.when).astimezone(timezone(timedelta(minutes=self.utc_offset)))
        except ValueError:
            return self.when
        return local.date().isoformat() if self.date_only else local.isoformat()

    def statement(self) -> tuple[str, date | None]:
        """For a fact or history result: its statement without the ``"As of 2021-06-30, "`` lead every fact's
        statement starts with (seed 002), first letter capitalised, and the day the lead names (None for "an
        unknown date").  Any other result: ``(text, None)``."""
        from core.store.schema import statement_day, statement_sentence

        if self.kind not in ("fact", "history"):
            return self.text, None
        sentence = statement_sentence(self.text)
        return sentence[:1].upper() + sentence[1:], statement_day(self.text)

    def to_json(self) -> dict:
        d = {"text": self.text, "source": self.source, "when": self.when, "score": self.score, "kind": self.kind,
             "subject": self.subject, "sender": self.sender, "record_id": self.record_id,
             "relevance": self.relevance}
        if self.kind in ("fact", "history"):
            d.update(fact_id=self.fact_id, confidence=self.confidence)
        if self.date_only:
            d["date_only"] = True
        return d


@dataclass
class EntityRow:
    """One entity as listed by ``kith entities``."""

    id: int
    kind: str
    name: str
    aliases: list[str]
    records: int
    facts: int
    last_seen: str | None = None

    def to_json(self) -> dict:
        return asdict(self)
