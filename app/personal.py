"""App glue for communication personalization (seed 000): people, imported chats, live chat, briefs.

:class:`PersonalService` wraps the core ledger (``core.personal``) for one
container: it embeds with the container's encoder (all-MiniLM-L6-v2, float32
(384,)), resolves people by id, name or alias, learns imported conversations,
observes the owner's live turns with Kith in sessions (rotated every 30 min,
observations every 5 turns and on close), and assembles briefs.
"""
from __future__ import annotations

import threading
from collections import defaultdict
from typing import Iterable, Sequence

from sqlmodel import select

from app.observer_llm import ChatModel, LLMObserver
from core import clock
from core.errors import Ambiguous, NotFound
from core.personal import observations as obs
from core.personal import open_ledger
from core.personal.briefing import Brief, assemble, render
from core.personal.conversation import ChatMessage, ConversationResult, learn_conversation
from core.personal.learn import Exchange, add_messages, learn, load_profile, set_person
from core.personal.observer import Turn, is_question, sentiment
from core.personal.sessions import Sessions
from core.personal.signals import epoch
from core.personal.topics import topic_names
from core.store.schema import Alias, Entity

OWNER_KEY = "__owner__"


class PersonalService:
    """Personalization for one container.

    Args:
        container: the app :class:`app.container.Container` (db, encoder, settings).
        observer_model: a chat model for the LLM observer, or None (deterministic observer).
    """

    def __init__(self, container, observer_model: ChatModel | None = None):
        self.c = container
        self.ledger = open_ledger(container.db)
        self.sessions = Sessions(self.ledger)
        if observer_model is None and getattr(container.settings, "observer", "deterministic") == "llm":
            from app.models.registry import build_chat_model

            candidate = build_chat_model(container.settings)
            observer_model = candidate if getattr(candidate, "available", False) else None
        self.observer = LLMObserver(observer_model)
        self.observation_fallbacks = 0
        self._lock = threading.Lock()

    # -- people ---------------------------------------------------------------------
    def owner_id(self) -> int:
        """The owner's entity id (created from settings.owner_name / owner_emails, or "Me", when missing)."""
        from core.graph.owner import ensure_owner

        def work():
            with self.c.db.session() as s:
                return int(ensure_owner(s, self.c.settings.owner_name, list(self.c.settings.owner_emails),
                                        self.c.names).id)
        return self.c.writer.run(work)

    def resolve_person(self, ref) -> int:
        """A person's entity id from an id, a name or an alias (case-insensitive).

        Raises:
            NotFound: nobody by that name; Ambiguous: several people match.
        """
        from app.operations.entities import find_to_read

        return int(find_to_read(self.c, ref).id)  # "kith brief Sam": a first name alone

    def _person_for_party(self, party) -> int:
        """The entity of a chat participant, through the graph's resolution cascade (one person per address)."""
        from core.graph.resolution import resolve

        def work():
            with self.c.db.session() as s:
                r = resolve(s, "person", party.name, party.address, party.address_kind,
                            self.c.settings.default_region, index=self.c.names)
                return int(r.entity.id), r.entity.canonical_name
        pid, name = self.c.writer.run(work)
        set_person(self.ledger, pid, name=name)
        return pid

    def _is_owner(self, party) -> bool:
        st = self.c.settings
        names = {n.casefold() for n in ([st.owner_name] if st.owner_name else [])} | {"you", "me"}
        addrs = {a.casefold() for a in st.owner_emails}
        return bool((party.name and party.name.casefold() in names)
                    or (party.address and party.address.casefold() in addrs))

    # -- imported conversations -----------------------------------------------------
    def learn_from_conversation(self, records: Iterable, owner_is=None) -> ConversationResult:
        """Learn every chat thread in ``records`` (ingestors.base.Record with sender and sent_at).

        Args:
            records: chat (or mail) records; grouped by ``thread`` (or source file), ordered by time.
            owner_is: optional predicate Party → bool naming the owner (default: settings' owner name /
                emails, or "You"/"Me").

        Returns:
            The summed :class:`ConversationResult`.
        """
        is_owner = owner_is or self._is_owner
        threads: dict[str, list] = defaultdict(list)
        for r in records:
            if r.sender is None or r.sent_at is None or not (r.text or "").strip():
                continue
            threads[r.thread or r.source_path].append(r)
        total = ConversationResult()
        owner = self.owner_id()
        for key, recs in threads.items():
            ids: dict[str, int] = {OWNER_KEY: owner}
            msgs = []
            for r in recs:
                if is_owner(r.sender):
                    sk = OWNER_KEY
                else:
                    sk = (r.sender.address or r.sender.name or "").casefold()
                    if sk not in ids:
                        ids[sk] = self._person_for_party(r.sender)
                msgs.append(ChatMessage(sk, r.sent_at, r.text, r.external_id))
            res = learn_conversation(self.ledger, msgs, OWNER_KEY, ids.__getitem__, conversation=key,
                                     embed=lambda texts: self.c.encoder.encode(texts))
            for f in ("turns", "messages", "exchanges", "replies", "silences", "signals", "preference_updates"):
                setattr(total, f, getattr(total, f) + getattr(res, f))
        return total

    def learn_stored(self, rows: Sequence, senders: dict[int, str], owner: int,
                     embed=None, done_sql: str | None = None, done_params: Sequence = ()) -> ConversationResult:
        """Learn stored records' conversations (the ingest's ledger stage) in ONE ledger transaction.

        Unlike :meth:`learn_from_conversation`, people are already resolved: each row's
        ``sender_entity_id`` is its person and the owner is ``owner``.  ``done_sql`` (with
        ``done_params``) runs in the same transaction — the stage clears its mark there — so a crash
        leaves either everything learned and marked, or nothing.  Call it on the writer thread.

        Args:
            rows: ``core.store.schema.Record`` rows (chat or mail) with sender and time.
            senders: entity id → display name (for the ledger's person profiles).
            owner: the owner's entity id.
            embed: texts → float32 (n, 384) for the owner's turns (default: the container's encoder).
            done_sql / done_params: the caller's bookkeeping statement.

        Returns:
            The summed :class:`ConversationResult`.
        """
        from core.personal.learn import load_profile, save_profile

        threads: dict[str, list] = defaultdict(list)
        for r in rows:
            if r.sender_entity_id is None or r.sent_at is None or not (r.text or "").strip():
                continue
            threads[r.thread or f"source:{r.source_id}"].append(r)
        total = ConversationResult()
        embed = embed or (lambda texts: self.c.encoder.encode(texts))
        with self.ledger.transaction() as tx:
            for pid in {r.sender_entity_id for rs in threads.values() for r in rs} - {owner}:
                p = load_profile(tx, pid)
                if not p.name and senders.get(pid):
                    p.name = senders[pid]
                    save_profile(tx, p)
            for key, recs in threads.items():
                msgs = [ChatMessage(OWNER_KEY if r.sender_entity_id == owner else r.sender_entity_id,
                                    clock.ensure_utc(r.sent_at), r.text, r.external_id) for r in recs]
                res = learn_conversation(self.ledger, msgs, OWNER_KEY,
                                         lambda k: owner if k == OWNER_KEY else int(k), conversation=key,
                                         embed=embed)
                for f in ("turns", "messages", "exchanges", "replies", "silences", "signals", "preference_updates"):
                    setattr(total, f, getattr(total, f) + getattr(res, f))
            if done_sql:
                tx.execute(done_sql, tuple(done_params))
        return total

    # -- briefs -----------------------------------------------------------------------
    def brief(self, person_ref, context: str = "", now=None) -> Brief:
        """The person's brief at ``now`` (default: core.clock.now()), observations ranked against ``context``."""
        pid = self.resolve_person(person_ref)
        emb = self.c.encoder.encode([context])[0] if context.strip() else None
        return self._named(assemble(self.ledger, pid, now or clock.now(), context=context, context_embedding=emb))

    def _named(self, b: Brief) -> Brief:
        """``b`` with the person's name filled in when the ledger has none (people known only from mail or photos
        have no ledger profile name yet; the owner's profile is never named): the entity's name — for an
        unnamed owner ("Me"), "the owner" — so observations and the brief never say "Person 72".  Observations an
        earlier version wrote as "Person 72 …" are shown with the name (read-only: the ledger is not rewritten)."""
        if not b.person.name:
            with self.c.db.session() as s:
                e = s.get(Entity, b.person.id)
                if e is not None:
                    b.person.name = "the owner" if e.is_owner and e.canonical_name.casefold() == "me" \
                        else e.canonical_name
        if b.person.name:
            old = f"Person {b.person.id} "
            name = b.person.name[:1].upper() + b.person.name[1:]
            b.observations = list(dict.fromkeys(name + " " + o[len(old):] if o.startswith(old) else o
                                                for o in b.observations))  # the same statement once
        return b

    def system_prompt(self, person_ref, context: str = "") -> str:
        """The brief rendered for the chat model's system prompt."""
        return render(self.brief(person_ref, context))

    def writing_help(self, person_ref, request: str) -> list[dict]:
        """Chat messages asking a model to draft a message to a contact, using the contact's brief."""
        b = self.brief(person_ref, context=request)
        name = b.person.name or str(person_ref)
        return [{"role": "system", "content": render(b) + f"\n\nDraft a message from the owner to {name} that fits "
                 "these preferences. Reply with the message only."},
                {"role": "user", "content": request}]

    def profile_view(self, person_ref, now=None) -> dict:
        """What the window's profile shows: 7 × 24 heatmap ([day][hour], Monday first), hot and cold topics."""
        b = self.brief(person_ref, now=now)
        return {"person": b.person.model_dump(), "heatmap": b.timing.heatmap, "timezone": b.timing.timezone,
                "hot": [h.model_dump() for h in b.topics.hot], "cold": [c.model_dump() for c in b.topics.cold]}

    # -- live chat with Kith --------------------------------------------------------------
    def store_chat_message(self, msg) -> int:
        """Persist one turn of the owner's chat with Kith as a Message row (seed 000), with its embedding.

        Args:
            msg: an ``app.loop.ChatMessage`` (role ``user``/``assistant``, text, embedding float32 (384,)
                or None, ``at`` tz-aware UTC, conversation id).

        Returns:
            The Message id.  The owner's words are ``direction="in"``; Kith's replies ``"out"`` — the
            messages whose reception the observer scores on the next owner turn.
        """
        from core.personal.observer import is_question as _is_q

        pid = self.owner_id()
        row = {"person_id": pid, "direction": "out" if msg.role == "assistant" else "in",
               "conversation": msg.conversation, "text": msg.text, "length": len(msg.text.split()),
               "is_question": _is_q(msg.text), "at": epoch(msg.at), "embedding": msg.embedding,
               "topic": (topic_names(msg.text) or [None])[0]}

        def work():
            if msg.role == "assistant" and getattr(msg, "cites", None):
                from app.operations.conversations import records_gone
                from core.store.forgetting import REPLACEMENT

                with self.c.db.session() as s:  # a memory the reply quotes was forgotten meanwhile (another Kith)
                    if records_gone(s, msg.cites):
                        row.update(text=REPLACEMENT, length=1, is_question=False, embedding=None, topic=None)
            with self.ledger.transaction() as tx:
                return add_messages(tx, [row])[0]
        return self.c.writer.run(work)

    def observe_owner_turn(self, kith_text: str | None, kith_at, owner_text: str, owner_at,
                           conversation: str = "chat", prompt_message_id: int | None = None,
                           owner_embedding=None) -> dict:
        """Observe the owner's message as a reply to Kith's previous one, learn it in the session.

        Args:
            kith_text / kith_at: Kith's previous message and when it was shown (None on the first turn).
            owner_text / owner_at: the owner's message and when it was sent (tz-aware UTC or epoch s).
            prompt_message_id: the Message row of Kith's previous message when it is already stored
                (then it is not written again).
            owner_embedding: float32 (384,) of the owner's message, stored with its Message row.

        Returns:
            {"session_id", "source" (observer used), "observations" (written, if due), "rotated"}.
        """
        pid = self.owner_id()
        t_owner = epoch(owner_at)
        with self._lock:
            sess = self.sessions.current(pid, conversation)
            sid = sess.id if sess else self.sessions.open(pid, t_owner, conversation)
            sid, rotated = self.sessions.rotate_if_due(sid, t_owner)
        prompt = Turn(kith_text, epoch(kith_at)) if kith_text else None
        out, source = self.observer.observe(prompt, Turn(owner_text, t_owner))
        prompt_id = None
        with self.ledger.transaction() as tx:
            rows = []
            if prompt is not None and prompt_message_id is None:
                emb = self.c.encoder.encode([kith_text])[0]
                rows.append({"person_id": pid, "direction": "out", "conversation": conversation, "session_id": sid,
                             "text": kith_text, "length": len(kith_text.split()), "at": prompt.at, "embedding": emb,
                             "is_question": is_question(kith_text)})
            rows.append({"person_id": pid, "direction": "in", "conversation": conversation, "session_id": sid,
                         "text": owner_text, "length": out.engagement.word_count, "at": t_owner,
                         "tone": sentiment(owner_text)[1], "embedding": owner_embedding})
            ids = add_messages(tx, rows)
            prompt_id = prompt_message_id if prompt_message_id is not None else (ids[0] if prompt is not None else None)
        pt = topic_names(kith_text) if kith_text else []
        rt = topic_names(owner_text)
        learn(self.ledger, Exchange(person_id=pid, output=out, reply_at=t_owner, prompt_message_id=prompt_id,
                                    prompt_at=prompt.at if prompt else None, prompt_topics=tuple(pt),
                                    reply_topics=tuple(rt), initiated=tuple(t for t in rt if t not in pt),
                                    prompt_is_question=bool(kith_text and is_question(kith_text)),
                                    session_id=sid))
        written = []
        if self.sessions.turn(sid) or rotated is not None:
            written = self.write_observations(pid, t_owner, conversation)
        return {"session_id": sid, "source": source, "observations": written, "rotated": rotated is not None}

    def close_session(self, conversation: str = "chat", at=None) -> dict | None:
        """Close the owner's open session (promote signals, EMA, observations).  None if none is open."""
        pid = self.owner_id()
        sess = self.sessions.current(pid, conversation)
        if sess is None:
            return None
        t = epoch(at or clock.now())
        summary = self.sessions.close(sess.id, t)
        written = self.write_observations(pid, t, conversation)
        return {"promoted": summary.promoted, "preference_updates": summary.preference_updates,
                "observations": written}

    def write_observations(self, person_id: int, at, source: str = "") -> list[str]:
        """Observations about the person's patterns, embedded and written (reinforcing repeats).

        From the chat model when one is configured for observing (``observer_model``): its statements are
        checked (1–5 of them, each 10–200 characters, no more than the brief supports: only the person's
        name or "they" as the subject); on any failure the template statements over the brief are used and
        the fallback is counted in ``observation_fallbacks`` (seed 000: LLM when configured, templates
        otherwise).
        """
        b = self._named(assemble(self.ledger, person_id, at))
        stmts = self._model_observations(b) or obs.from_brief(b)
        if not stmts:
            return []
        vecs = self.c.encoder.encode([s for s, _c in stmts])
        for (text, cat), v in zip(stmts, vecs):
            obs.write(self.ledger, person_id, text, cat, at, v, source)
        return [s for s, _c in stmts]

    def _model_observations(self, b) -> list[tuple[str, str]]:
        model = self.observer.model
        if model is None:
            return []
        prompt = [{"role": "system", "content": (
            "From this brief about how a person communicates, write 1 to 5 short observations about their "
            "communication patterns, each one sentence, each about the person. Answer with JSON only: "
            '{"observations": [{"text": "...", "category": "timing|topics|style|what_works|what_doesnt"}]}')},
            {"role": "user", "content": render(b)}]
        try:
            data = model.complete_json(prompt)
            items = data["observations"]
            out = []
            for it in items[:5]:
                text, cat = str(it["text"]).strip(), str(it.get("category", "style")).strip() or "style"
                if not 10 <= len(text) <= 200:
                    raise ValueError(f"observation length {len(text)} outside 10–200 characters")
                out.append((text, cat))
            if not out:
                raise ValueError("no observations")
            return out
        except Exception:  # malformed, empty or failing model: templates, counted (never silent)
            self.observation_fallbacks += 1
            return []

    def set_person(self, person_ref, **meta) -> dict:
        """Set a person's cohort metadata (relationship, role, timezone, …)."""
        pid = self.resolve_person(person_ref)
        p = set_person(self.ledger, pid, **meta)
        return {"person_id": pid, "meta": p.meta}

    # -- privacy --------------------------------------------------------------------------
    def forget_person(self, entity_id: int) -> dict[str, int]:
        """Remove everything personal about one person, in one transaction on the ledger.

        Removed: their global signals, their session-scoped signals, their contributions to cohort
        ledgers (the cohorts' aggregates are rebuilt from what remains), their aggregates and
        watermarks, the Message rows to and from them, their observations (text, FTS entry and
        embedding), preference vector, "what works" counts, person profile and conversation sessions.
        The graph entity itself is not touched (``app/operations/forget.py`` owns that).

        Args:
            entity_id: the person's entity id.

        Returns:
            Rows removed per table: ``signal`` (their own ledger), ``cohort_signal`` (copies in cohort
            ledgers), ``session_signal``, ``signal_agg``, ``signal_wm``, ``message``, ``observation``,
            ``observation_fts``, ``preference_vector``, ``person_pattern``, ``person_profile``,
            ``conversation_session``.  All zero for someone Kith knows nothing about.
        """
        pid = int(entity_id)
        L = self.ledger

        def work() -> dict[str, int]:
            with L.transaction() as c:
                n = L.forget_owner(pid, conn=c)
                n["session_signal"] += c.execute(
                    "DELETE FROM session_signal WHERE session_id IN (SELECT id FROM conversation_session "
                    "WHERE person_id=?)", (pid,)).rowcount
                oids = [r[0] for r in c.execute("SELECT id FROM observation WHERE person_id=?", (pid,))]
                n["observation_fts"] = sum(c.execute("DELETE FROM observation_fts WHERE rowid=?", (o,)).rowcount
                                           for o in oids)
                for table, col in (("observation", "person_id"), ("message", "person_id"),
                                   ("preference_vector", "person_id"), ("person_pattern", "person_id"),
                                   ("person_profile", "person_id"), ("conversation_session", "person_id")):
                    n[table] = c.execute(f"DELETE FROM {table} WHERE {col}=?", (pid,)).rowcount
            return n
        with self._lock:
            counts = self.c.writer.run(work)
        if L.cohorts is not None:
            L.cohorts.invalidate(pid)
        return counts

    def close(self) -> None:
        self.ledger.close()


def personal_service(c) -> PersonalService:
    """The container's one :class:`PersonalService` (created on first use), so its ledger connections are
    opened once per thread rather than once per import batch."""
    svc = getattr(c, "_personal_service", None)
    if svc is None:
        svc = PersonalService(c)
        c._personal_service = svc
    return svc
