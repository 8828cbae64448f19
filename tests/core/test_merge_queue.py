"""The merge-review queue after a merge: a suggestion about an entity that was just merged follows it to the survivor
(or is answered and leaves the queue), and an unmerge puts it back — pass 24 on ``mbox_two_people_named_alex``'s kind.

Seen: two mails from "Jordan Blake" at two addresses gave a suggestion "Jordan Blake (id 6) ~ Jordan Blake (id 8)";
an address-book card listing both addresses then merged both into the card's entity, and the suggestion stayed in
`kith review` between two entities that no longer existed — merging it failed ("entity 6 does not exist")."""
from __future__ import annotations

from sqlmodel import select

from core.graph.merge import merge, unmerge
from core.graph.resolution import record_decision, resolve
from core.store.schema import Entity, MergeCandidate


def pending(s):
    return sorted((mc.a_id, mc.b_id) for mc in s.exec(select(MergeCandidate).where(
        MergeCandidate.status == "pending")).all())


def test_a_suggestion_follows_its_entity_into_the_survivor_and_back(s):
    a = resolve(s, "person", "Jordan Blake", "jordan@acme.example").entity
    b = resolve(s, "person", "Jordan Blake", "jblake@globex.example").entity
    card = resolve(s, "person", "Jordan B", "jb@card.example").entity
    for mc in s.exec(select(MergeCandidate)).all():  # whatever the cascade suggested: only ours below
        s.delete(mc)
    record_decision(s, a.id, b.id, "pending", "full_name", 0.8, "same full name")
    log = merge(s, card.id, a.id)
    assert pending(s) == sorted([(card.id, b.id)])  # the card's entity and the other address: still a question
    unmerge(s, log)
    s.flush()
    assert pending(s) == [(a.id, b.id)]


def test_a_suggestion_answered_by_a_merge_leaves_the_queue_and_comes_back_on_unmerge(s):
    a = resolve(s, "person", "Jordan Blake", "jordan@acme.example").entity
    b = resolve(s, "person", "Jordan Blake", "jblake@globex.example").entity
    card = resolve(s, "person", "Jordan B", "jb@card.example").entity
    for mc in s.exec(select(MergeCandidate)).all():
        s.delete(mc)
    record_decision(s, a.id, b.id, "pending", "full_name", 0.8, "same full name")
    b_log = merge(s, card.id, b.id)
    b_log.pop("suggestions")  # as a store written before suggestions followed a merge: (a, b) left behind
    mc = s.exec(select(MergeCandidate)).one()
    mc.a_id, mc.b_id = a.id, b.id
    s.add(mc)
    s.flush()
    log = merge(s, card.id, a.id)  # both addresses are the card's now: nothing is left to ask
    assert pending(s) == []
    unmerge(s, log)
    s.flush()
    assert pending(s) == [(a.id, b.id)]
    assert s.exec(select(MergeCandidate)).one().reason == "same full name"


def test_the_pair_being_merged_is_left_to_its_caller(s):
    a = resolve(s, "person", "Jordan Blake", "jordan@acme.example").entity
    b = resolve(s, "person", "Jordan Blake", "jblake@globex.example").entity
    for mc in s.exec(select(MergeCandidate)).all():
        s.delete(mc)
    mc = record_decision(s, a.id, b.id, "pending", "full_name", 0.8, "same full name")
    merge(s, a.id, b.id)  # the review queue's "merge" marks this row merged itself
    assert s.get(MergeCandidate, mc.id) is not None and pending(s) == [(a.id, b.id)]
