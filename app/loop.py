"""The conversation loop: observe → learn → recall + brief → prompt → stream the reply → store → observations.

Every dependency is injected, so the memory (``app/memory.py``) and personalization
(``app/personal.py``) layers can plug in as they land:

* ``recall(text) -> list`` of memories: objects or dicts with ``text``, ``source``, ``when``,
  ``score`` and ``record_id`` / ``id`` (``AskResult`` fits). Default (``for_container``):
  ``app.operations.ask.ask``.
* ``brief(text) -> str`` (or an object whose ``str()`` is the brief). Default: empty.
* ``observe(user_text, previous_reply) -> observation`` and ``learn(observation)``. Default: none.
* ``store(ChatMessage)``: persist a message with its embedding. Default: kept in ``loop.messages``.
* ``embed(texts) -> float32 (n, dim)``. Default (``for_container``): the router's ``messages`` encoder.
* ``make_observations(history) -> Any``: run every ``observations_every`` turns (default 5).

The prompt is ``resources/prompts/system.txt`` filled with the owner, today's date, the brief and
the numbered memories with their sources, then the conversation so far, then the new message.
It is trimmed to the model's window (oldest turns first, then the lowest-ranked memories, then the
brief, then the tail of the message itself), never overflowed.  The reply cites memories as ``[n]``;
:attr:`TurnResult.cited` lists them for the UI.  With no model configured, the answer is the
recalled memories themselves with their sources, saying that no model is configured.
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Sequence

import numpy as np

from app.models.llm import ChatModel, prompt_template
from core import clock
from core.errors import ContextTooLong

CITATION = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
MEMORY_CHARS = 600  # each memory is clipped to this many characters in the prompt


@dataclass
class Memory:
    """A recalled memory as shown to the model: ``number`` is its [n] in the prompt."""

    number: int
    text: str
    source: str = ""
    when: str | None = None
    score: float = 0.0
    ref: Any = None
    item: Any = None  # what recall returned (an AskResult): the memory answerer reads its kind, sender, ...

    def line(self, limit: int = MEMORY_CHARS) -> str:
        """``[n] (when; source) text`` with the text clipped to ``limit`` characters (a fact as its sentence: the
        line says when)."""
        text = " ".join(self.text.split())
        if getattr(self.item, "kind", None) in ("fact", "history"):
            from core.graph.facts import statement_sentence

            text = statement_sentence(text)
        if len(text) > limit:
            text = text[:limit].rstrip() + " …"
        meta = "; ".join(x for x in (self.when[:10] if self.when else "", f"source: {self.source}" if self.source
                                     else "") if x)
        return f"[{self.number}] ({meta}) {text}" if meta else f"[{self.number}] {text}"


@dataclass
class ChatMessage:
    """One message of the conversation, handed to ``store``: role ``user``/``assistant``, text, embedding
    (float32, L2-normalised, or None when no encoder is wired), UTC time, conversation id, cited memory refs."""

    role: str
    text: str
    embedding: np.ndarray | None
    at: datetime
    conversation: str
    cites: list = field(default_factory=list)


@dataclass
class TurnResult:
    """What one turn produced.

    Attributes:
        reply: the assistant's text (for no model: the memory answer).
        memories: recalled memories in prompt order (the UI lists them).
        cited: the memories the reply cites by [n] (all memories for the no-model answer).
        brief: the brief text used.
        prompt: the messages sent to the model (empty with no model).
        model: the model's name ("none" with no model).
        no_model: True when no model is configured.
        cancelled: True when generation was cancelled (``reply`` holds what came before).
        dropped: what trimming removed: ``{"turns": n, "memories": n, "brief": bool, "message_chars": n}``.
        observation: the observer's output this turn (or None).
        observations: the result of the periodic observation run, when it ran this turn.
        warnings: observer/learner/store failures that did not stop the turn.
        fell_back: the model's answer failed the grounding checks and the memory answer replaced it.
        note: why it was replaced (or "stopped", "the model ran out of time").
        raw: the model's own text (also when it was replaced).
        timed_out: generation hit the time limit.
    """

    reply: str
    memories: list[Memory]
    cited: list[Memory]
    brief: str
    prompt: list[dict]
    model: str
    no_model: bool = False
    cancelled: bool = False
    dropped: dict = field(default_factory=dict)
    observation: Any = None
    observations: Any = None
    warnings: list[str] = field(default_factory=list)
    fell_back: bool = False
    note: str = ""
    raw: str = ""
    timed_out: bool = False


def new_conversation_id(at: datetime | None = None) -> str:
    """A new conversation's id: ``chat-YYYYMMDDTHHMMSSZ-xxxxxx`` (UTC start time and 24 random bits, so two
    conversations started in the same second differ)."""
    import secrets

    return (clock.ensure_utc(at) or clock.now()).strftime("chat-%Y%m%dT%H%M%SZ-") + secrets.token_hex(3)


def _field(item: Any, *names: str, default=None):
    for name in names:
        if isinstance(item, dict) and name in item:
            return item[name]
        if hasattr(item, name):
            return getattr(item, name)
    return default


def to_memories(items: Sequence[Any]) -> list[Memory]:
    """Normalise recall results (AskResult, dicts, objects) into numbered :class:`Memory` items."""
    out = []
    for i, item in enumerate(items or [], 1):
        if isinstance(item, Memory):
            item.number = i
            out.append(item)
            continue
        out.append(Memory(number=i, text=str(_field(item, "text", "statement", default="")),
                          source=str(_field(item, "source", "provenance", default="") or ""),
                          when=_field(item, "when", "t_valid", default=None),
                          score=float(_field(item, "score", default=0.0) or 0.0),
                          ref=_field(item, "record_id", "id", "ref", default=None), item=item))
        if out[-1].when is not None and not isinstance(out[-1].when, str):
            out[-1].when = str(out[-1].when)
    return out


def cited_numbers(reply: str) -> list[int]:
    """The memory numbers a reply cites (``[2]``, ``[1, 3]``), in first-cited order, without repeats."""
    seen: list[int] = []
    for group in CITATION.findall(reply):
        for n in (int(x) for x in group.split(",")):
            if n not in seen:
                seen.append(n)
    return seen


_REQUEST = re.compile(r"^\s*(?:(?:please|pls|ok|okay|now|so|and|kith)[,\s]+)*(?:tell|show|find|list|give|fetch|"
                      r"search|look\s+up|explain|describe|summari[sz]e|count|name)\b", re.IGNORECASE)


def _is_question(text: str) -> bool:
    """Whether a chat turn asks rather than tells: a question (``core.personal.observer.is_question``), a request
    ("tell me Tom's job title", "show me the photos from Rome", "please find …") or three words or fewer.  What
    asks is never stored as something the person said (it would come back as an answer)."""
    from core.personal.observer import is_question

    return is_question(text) or bool(_REQUEST.match(text)) or len(text.split()) <= 3


def _container_store(c, personal, last: dict) -> Callable[["ChatMessage"], Any]:
    """Keep each turn: Kith's replies as Message rows with their embeddings (the owner's messages are written
    by the observer, with theirs), and each of the person's turns through the sensory buffer into the HDC
    memory (seed 001): a statement ("I booked a kayak trip") is an explicit observation and always becomes an
    episode; a question becomes one only when the surprise gate promotes it (surprise > 0.4 against the
    held beliefs).  Episodes carry bi-temporal stamps and both signatures, the gist embedded as the owner
    tells it (``speaker_view``).  All writes run on the container's single writer thread."""
    from app.memory import service
    from core.extraction.text import speaker_view
    from core.memory.episodes import EpisodeDraft
    from core.memory.recall import make_cue

    def store(msg: "ChatMessage") -> None:
        if msg.role == "assistant":
            last["id"], last["at"] = personal.store_chat_message(msg), msg.at
            return
        last["user_embedding"] = msg.embedding
        if msg.embedding is None or not msg.text.strip():
            return
        svc = service(c)
        question = _is_question(msg.text)
        if question:  # a question asks memory: kept only if it is news (seed 001 surprise gating)
            frame = svc.perceive([msg.text], make_cue(svc.mem, msg.text).structured[None, :], at=msg.at)[0]
            if not frame.promoted:
                return
        who = c.settings.owner_name or None
        gist = c.encoder.encode([speaker_view(who, msg.text)])[0] if who else msg.embedding
        draft = EpisodeDraft(text=msg.text, embedding=np.asarray(gist, dtype=np.float32), t_valid=msg.at,
                             speaker=who or "Me", session=msg.conversation,
                             provenance=f"chat:{msg.conversation}" + ("#question" if question else ""))
        eid = c.writer.run(lambda: service(c).mem.store(draft))
        if not question:
            svc.perceive_episodes([eid], [msg.text])
            c.writer.run(_learn_facts_from_chat, c, msg)
    return store


def _learn_facts_from_chat(c, msg: "ChatMessage") -> None:
    """What the owner tells Kith is a fact source too (seed 002: conversations with the assistant):
    "my sister Jane lives in Portland" → facts about the owner's sister, dated from the message."""
    from app.operations.graph import index_facts
    from core.extraction.personal_facts import extract_facts
    from core.graph.apply import apply_candidates
    from core.graph.owner import ensure_owner

    candidates = (c.fact_extractor(msg.text, msg.at, None) if c.fact_extractor is not None
                  else extract_facts(msg.text, msg.at))
    if not candidates:
        return
    with c.db.session() as s:
        me = ensure_owner(s, c.settings.owner_name, list(c.settings.owner_emails), c.names)
        ids = [o.fact.id for o in apply_candidates(s, candidates, me, None, msg.at, c.names)]
    index_facts(c, ids)


def _wire_personal(c, kwargs: dict) -> None:
    """Default store, brief, observer and observations from the personalization service (seed 000), for the
    owner: observe → learn each owner message as a reply to Kith's previous one (writing both as Message
    rows), the owner's brief in the system prompt, observations every ``observations_every`` turns.
    Callers may pass their own."""
    from app.personal import personal_service

    svc = personal_service(c)
    last: dict = {"at": None, "id": None}

    def observe(text: str, previous: str | None):
        now = clock.now()
        emb = c.encoder.encode([text])[0]
        return svc.observe_owner_turn(previous, last["at"] or now, text, now,
                                      prompt_message_id=last["id"] if previous else None, owner_embedding=emb)

    kwargs.setdefault("store", _container_store(c, svc, last))
    kwargs.setdefault("brief", lambda text: svc.system_prompt(svc.owner_id(), text))
    kwargs.setdefault("observe", observe)
    kwargs.setdefault("make_observations", lambda history: svc.write_observations(svc.owner_id(), clock.now(),
                                                                                  source="chat"))


_PRONOUN = re.compile(r"\b(?P<p>he|she|they|him|them|his|their|theirs|hers|her)\b(?P<after>\s+(?P<next>[\w'’]+))?",
                      re.IGNORECASE)
_NOT_OWNED = frozenset({"yesterday", "today", "tomorrow", "last", "this", "next", "about", "and", "or", "to", "from",
                        "with", "in", "on", "at", "for", "by", "of", "again", "recently", "lately", "ago", "before",
                        "after", "since", "most", "more", "first", "once", "twice", "when", "if", "that"})


SOURCES_MARK = "\n\nSources:\n"
"""What separates a memory answer from the numbered sources it lists (:meth:`ConversationLoop.memory_reply`)."""
NOTE_MARK = "\n\n(Kith's own answer from memory:"
"""How the note of a model reply replaced by the memory answer begins (:func:`fallback_note`)."""


def fallback_note(note: str) -> str:
    """The note after a memory answer that replaced a model's reply: ``"\n\n(Kith's own answer from memory:
    the model cited nothing.)"``."""
    return f"{NOTE_MARK} {note}.)"


def resolve_pronouns(text: str, name: str) -> str:
    """``text`` with its third-person pronouns put as ``name`` (possessives as ``name's``): "he/she/they/him/them"
    → "Cristy"; "his/their/hers" and "her" before a noun → "Cristy's" ("her email address"); "her" at the end or
    before a preposition or a time word is the object ("hear from her", "talk to her yesterday")."""
    def put(m: re.Match) -> str:
        p = m.group("p").casefold()
        after = m.group("after") or ""
        nxt = (m.group("next") or "").casefold()
        owned = p in ("his", "their", "theirs", "hers") or (p == "her" and nxt and nxt not in _NOT_OWNED)
        return (f"{name}'s" if owned else name) + after
    return _PRONOUN.sub(put, text)


class ConversationLoop:
    """One conversation with Kith (history lives here; the stores via the injected callables).

    Args:
        model: a ChatModel (NoModel for none).
        recall: ``recall(text) -> list`` of memories (see the module docstring).
        brief: ``brief(text) -> str``.
        observe / learn: the observer and the signal learner (optional).
        store: persists each :class:`ChatMessage` (default: appended to ``self.messages``).
        embed: ``embed(texts) -> (n, dim) float32`` for stored messages (optional).
        make_observations: ``make_observations(history)``, run every ``observations_every`` turns.
        owner: how the system prompt names the person.
        max_reply_tokens: the most tokens per reply (at most a quarter of the model's window is reserved).
        conversation: an id for this conversation (default: its start time).
        answerer: ``"memory"`` — always the memory answerer; ``"auto"``/``"model"`` — the model when one is
            available (grounded and checked), else the memory answerer.
        time_limit: seconds a model reply may take before the memory answer replaces it.
        owner_name: the owner's name, for "I" in questions (the memory answerer says "You were …").
        keep: ``keep(loop, text, result)`` after each turn: keeps the conversation across restarts
            (``for_container``: ``app.operations.conversations.keep_turn``); a failure is a warning.
        about: ``about(text)``: what the knowledge graph holds about the entity a "who is X?" question names
            (``for_container``: ``app.answer.about_question``), for the memory answerer; None: not asked.
    """

    def __init__(self, model: ChatModel, recall: Callable[[str], Sequence[Any]], *,
                 brief: Callable[[str], Any] | None = None,
                 observe: Callable[[str, str | None], Any] | None = None,
                 learn: Callable[[Any], Any] | None = None,
                 store: Callable[[ChatMessage], Any] | None = None,
                 embed: Callable[[Sequence[str]], np.ndarray] | None = None,
                 make_observations: Callable[[list[dict]], Any] | None = None,
                 observations_every: int = 5, owner: str = "the person", max_reply_tokens: int = 256,
                 conversation: str | None = None, answerer: str = "auto", time_limit: float = 30.0,
                 owner_name: str | None = None, keep: Callable[["ConversationLoop", str, "TurnResult"], Any] | None = None,
                 about: Callable[[str], Any] | None = None):
        self.model = model
        self.recall = recall
        self.brief = brief
        self.observe = observe
        self.learn = learn
        self.store = store
        self.embed = embed
        self.make_observations = make_observations
        self.observations_every = max(1, int(observations_every))
        self.owner = owner
        self.max_reply_tokens = max_reply_tokens
        self.answerer = answerer
        self.time_limit = float(time_limit)
        self.owner_name = owner_name
        self.conversation = conversation or new_conversation_id()
        self.keep = keep
        self.about = about
        self.partner_id: int | None = None  # the person the conversation is with (kept with it; None: the owner)
        self.subject: str | None = None  # who the last answer about someone was about ("she" in the next question)
        self.history: list[dict] = []
        self.messages: list[ChatMessage] = []
        self.turns = 0
        self._lock = threading.Lock()

    @classmethod
    def for_container(cls, c, model: ChatModel | None = None, **kwargs) -> "ConversationLoop":
        """A loop wired to a Container: the answering model from settings (unless given: ``NoModel`` when the
        settings' answerer is the memory answerer, ``app.models.registry.answerer``), recall = ``ask`` (with
        the attention trace queued to the writer), embeddings from the router's ``messages`` encoder, owner
        name and reply budget from settings."""
        from app.answer import about_question
        from app.memory import owner_name
        from app.models.registry import build_answer_model, setting
        from app.models.router import EmbeddingRouter
        from app.operations.ask import ask

        if model is None:
            model = build_answer_model(c.settings)
        kwargs.setdefault("answerer", "memory" if setting(c.settings, "chat_answerer") == "memory" else "model")
        kwargs.setdefault("owner_name", c.settings.owner_name or owner_name(c))
        router = EmbeddingRouter.from_settings(c.settings)
        router.register("all-MiniLM-L6-v2", lambda: c.encoder)  # the Container's encoder, loaded on first use

        def recall(text: str):
            return ask(c, text, trace=True)

        kwargs.setdefault("embed", lambda texts: router.encode("messages", texts))

        def keep(loop: "ConversationLoop", text: str, result: "TurnResult") -> None:
            from app.operations.conversations import keep_turn

            keep_turn(c, loop.conversation, text, result, partner_id=loop.partner_id)
        kwargs.setdefault("keep", keep)
        kwargs.setdefault("about", lambda text: about_question(c, text))
        _wire_personal(c, kwargs)
        kwargs.setdefault("owner", c.settings.owner_name or "the person")
        kwargs.setdefault("max_reply_tokens", int(setting(c.settings, "chat_max_reply_tokens")))
        kwargs.setdefault("observations_every", int(setting(c.settings, "observations_every")))
        return cls(model, kwargs.pop("recall", recall), **kwargs)

    def resume(self, conversation: str, history: Sequence[dict], partner_id: int | None = None) -> None:
        """Continue a kept conversation (``kith chat --resume``, the window's conversation list): its id, its
        messages as ``[{"role", "content"}]`` (oldest first: ``app.operations.conversations.history``) and the
        person it was with."""
        with self._lock:
            self.conversation = conversation
            self.history = [{"role": m["role"], "content": m["content"]} for m in history]
            self.turns = sum(1 for m in self.history if m["role"] == "user")
            self.partner_id = partner_id

    # ------------------------------------------------------------------------------------------ prompt

    def system_prompt(self, brief: str, memories: list[Memory]) -> str:
        """``resources/prompts/system.txt`` filled in (the brief and memory sections from their templates)."""
        brief_section = prompt_template("brief").format(owner=self.owner, brief=brief.strip()) if brief.strip() else ""
        if memories:
            memories_section = prompt_template("memories").format(memories="\n".join(m.line() for m in memories))
        else:
            memories_section = prompt_template("no_memories")
        return prompt_template("system").format(owner=self.owner, today=clock.now().date().isoformat(),
                                                brief_section=brief_section,
                                                memories_section=memories_section).strip()

    def build_prompt(self, text: str, brief: str, memories: list[Memory]) -> tuple[list[dict], list[Memory], dict]:
        """The messages to send, trimmed to the model's window.

        Returns:
            (messages, the memories that survived trimming, what was dropped).

        Raises:
            ContextTooLong: even the system prompt alone does not fit.
        """
        window = int(self.model.context_window)
        reply_budget = min(self.max_reply_tokens, max(16, window // 4))
        budget = window - reply_budget
        history = list(self.history)
        memories = list(memories)
        dropped = {"turns": 0, "memories": 0, "brief": False, "message_chars": 0}

        def messages() -> list[dict]:
            return ([{"role": "system", "content": self.system_prompt(brief, memories)}] + history
                    + [{"role": "user", "content": text}])

        msgs = messages()
        while self.model.count_tokens(msgs) > budget:
            if history:
                del history[:2]  # the oldest user + assistant pair
                dropped["turns"] += 1
            elif memories:
                memories.pop()  # the lowest-ranked
                dropped["memories"] += 1
            elif brief:
                brief, dropped["brief"] = "", True
            elif len(text) > 200:
                cut = len(text) // 4
                text, dropped["message_chars"] = text[:-cut], dropped["message_chars"] + cut
            else:
                raise ContextTooLong(f"the model's {window}-token window is too small even for the system prompt; "
                                     "pick a model with a larger window in Settings → Models")
            msgs = messages()
        self._reply_budget = reply_budget
        return msgs, memories, dropped

    # ------------------------------------------------------------------------------------------- turn

    def turn(self, text: str, *, on_token: Callable[[str], Any] | None = None,
             cancel: threading.Event | None = None) -> TurnResult:
        """Run one turn for the person's message ``text``.

        Args:
            text: the person's message.
            on_token: called with each piece of the reply as it streams (UI thread marshalling is the caller's).
            cancel: set it to stop generation; the partial reply is kept and stored.

        Returns:
            :class:`TurnResult`.

        Raises:
            ValueError: ``text`` is empty.
            ModelError subclasses from the model (unreachable, bad key, model missing, context too long, ...);
            the history is left unchanged when the model fails before replying.
        """
        text = (text or "").strip()
        if not text:
            raise ValueError("a chat turn needs a message")
        with self._lock:
            warnings: list[str] = []
            previous = next((m["content"] for m in reversed(self.history) if m["role"] == "assistant"), None)
            observation = None
            if self.observe is not None:
                try:
                    observation = self.observe(text, previous)
                    if self.learn is not None and observation is not None:
                        self.learn(observation)
                except Exception as exc:  # the observer must never stop the chat
                    warnings.append(f"observer failed: {type(exc).__name__}: {exc}")
            from app.answer import spelled

            asked = self.resolve_pronouns(spelled(text))  # "when did I last hear from her?" after "who is Cristy?"
            memories = to_memories(self.recall(asked))
            brief_obj = self.brief(text) if self.brief is not None else ""
            brief = "" if brief_obj is None else str(brief_obj)

            if not getattr(self.model, "available", False) or self.answerer == "memory":
                reply, cited = self.memory_reply(asked, memories)
                if on_token:
                    on_token(reply)
                result = TurnResult(reply=reply, memories=memories, cited=cited, brief=brief, prompt=[],
                                    model="none", no_model=True, observation=observation, warnings=warnings)
            else:
                result = self._grounded_turn(text, brief, memories, on_token, cancel, observation, warnings)

            self.history += [{"role": "user", "content": text}, {"role": "assistant", "content": result.reply}]
            self._store(text, result, warnings)
            if self.keep is not None:
                try:
                    self.keep(self, text, result)
                except Exception as exc:  # the answer stands even when it could not be kept
                    warnings.append(f"keeping the conversation failed: {type(exc).__name__}: {exc}")
            self.turns += 1
            if self.make_observations is not None and self.turns % self.observations_every == 0:
                try:
                    result.observations = self.make_observations(self.history[-2 * self.observations_every:])
                except Exception as exc:
                    warnings.append(f"observations failed: {type(exc).__name__}: {exc}")
            return result

    def memory_reply(self, text: str, memories: list[Memory]) -> tuple[str, list[Memory]]:
        """The memory answerer's reply (``app.answer.memory_answer``): one short direct answer citing the
        memories it rests on, then the memories as numbered sources; and the cited memories."""
        from app.answer import NOTHING, SmallTalk, cited_only, memory_answer

        about = None
        if self.about is not None:
            try:
                about = self.about(text)
            except Exception:  # the graph lookup only sharpens the answer: without it, the answer from memories
                about = None
        name = getattr(about, "name", None)
        if isinstance(name, str) and name and not getattr(about, "is_owner", False):
            self.subject = name  # who "she" is in the next question
        found = getattr(about, "result", None)  # the record a graph answer rests on ("when did I last hear …")
        if found is not None and all(getattr(m.item, "record_id", None) != found.record_id for m in memories):
            memories.append(to_memories([found])[0])
            memories[-1].number = len(memories)
        if not memories and about is None:
            return NOTHING, []
        ans = memory_answer(text, [m.item if m.item is not None else m for m in memories], self.owner_name, about)
        if not memories or isinstance(about, SmallTalk) or ans.text == NOTHING:
            return ans.text, []  # "I found nothing about that." lists no sources
        by_number = {m.number: m for m in memories}
        cited = [by_number[n] for n in ans.cited if n in by_number]
        listed = cited if cited_only(about) else memories  # a graph answer lists only what it cites
        if not listed:
            return ans.text, []
        return ans.text + SOURCES_MARK + "\n".join(m.line(limit=200) for m in listed), cited

    def resolve_pronouns(self, text: str) -> str:
        """``text`` with a third-person pronoun put as the person the conversation's last "who is X?" (or "when
        did I last hear from X?", "what is X's address?") answer was about — "when did I last hear from her?"
        after "who is Cristy?" → "when did I last hear from Cristy?"; "what is her email address?" → "what is
        Cristy's email address?".  Unchanged when no one was named yet or the text has no such pronoun."""
        if not self.subject:
            return text
        return resolve_pronouns(text, self.subject)

    def memory_answer(self, memories: list[Memory]) -> str:
        """The memories as numbered sources (kept for callers that show them without an answer)."""
        if not memories:
            return prompt_template("no_model_empty").strip()
        return "\n".join(m.line() for m in memories)

    def _grounded_turn(self, text, brief, memories, on_token, cancel, observation, warnings) -> "TurnResult":
        """The model's turn, bounded and grounded: the prompt numbers the memories; the reply must cite them
        by [n]; one that cites nothing (when memories were given), cites what was not given, repeats itself
        or runs out of time is replaced by the memory answer, with a note."""
        from app.answer import check_grounded, stream_bounded

        msgs, memories, dropped = self.build_prompt(text, brief, memories)
        raw, cancelled, timed_out = stream_bounded(self.model, msgs, max_tokens=self._reply_budget,
                                                   time_limit=self.time_limit, cancel=cancel, on_token=on_token)
        cited_n, problem = check_grounded(raw, len(memories))
        if not memories and problem == "the model's answer cited no evidence":
            problem = ""  # nothing was recalled: an uncited "I don't know" may stand
        by_number = {m.number: m for m in memories}
        note, fell_back, reply = "", False, raw
        if cancelled:
            note = "stopped"
        elif problem or timed_out:
            note = "the model ran out of time" if timed_out else problem
            fell_back = True
            reply, mem_cited = self.memory_reply(text, memories)
            reply = reply + fallback_note(note)
            if on_token:
                on_token("\n\n" + reply)
            cited_n = [m.number for m in mem_cited]
        cited = [by_number[n] for n in cited_n if n in by_number]
        return TurnResult(reply=reply, memories=memories, cited=cited, brief=brief, prompt=msgs,
                          model=self.model.name, cancelled=cancelled, dropped=dropped, observation=observation,
                          warnings=warnings, fell_back=fell_back, note=note, raw=raw, timed_out=timed_out)

    def _store(self, text: str, result: TurnResult, warnings: list[str]) -> None:
        now = clock.now()
        vectors = None
        if self.embed is not None:
            try:
                vectors = np.asarray(self.embed([text, result.reply]), dtype=np.float32)
            except Exception as exc:
                warnings.append(f"embedding failed: {type(exc).__name__}: {exc}")
        msgs = [ChatMessage("user", text, None if vectors is None else vectors[0], now, self.conversation),
                ChatMessage("assistant", result.reply, None if vectors is None else vectors[1], now,
                            self.conversation, cites=[m.ref for m in result.cited])]
        for m in msgs:
            if self.store is None:
                self.messages.append(m)
                continue
            try:
                self.store(m)
            except Exception as exc:
                warnings.append(f"storing the {m.role} message failed: {type(exc).__name__}: {exc}")
