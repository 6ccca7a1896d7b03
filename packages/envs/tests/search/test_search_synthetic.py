"""The synthetic knowledge base: deterministic, invented unique names, questions whose answers
follow from the hop passages, and question roots partitioned by split."""

import re

from coevo.envs.search.synthetic import SPLIT_OF_ROOT, build_knowledge_base, synthetic_question
from coevo.envs.search.tasks import task_seed

SPLITS = ("train", "eval_in_distribution", "eval_out_of_distribution")


def test_deterministic_per_seed():
    assert build_knowledge_base(0, 40) is build_knowledge_base(0, 40)  # cached
    a, b = build_knowledge_base.__wrapped__(0, 40), build_knowledge_base.__wrapped__(0, 40)
    assert a.passages == b.passages
    assert build_knowledge_base(1, 40).passages != a.passages


def test_sizes_and_unique_names():
    kb = build_knowledge_base(0, 40)
    assert (len(kb.people), len(kb.companies), len(kb.countries), len(kb.currencies)) == (40, 20, 10, 4)
    assert len(kb.passages) == 40 + 20 + 10 + 4
    titles = [p.title for p in kb.passages]
    assert len(set(titles)) == len(titles)
    # every invented name word occurs in exactly one title (so a name query has one best passage)
    words = [
        w.lower()
        for t in titles
        for w in t.split()
        if w not in ("Dynamics", "Works", "Labs", "Holdings", "Foundry", "Systems")
    ]
    assert len(words) == len(set(words))
    assert len({p.id for p in kb.passages}) == len(kb.passages)


def test_answers_are_stated_in_the_last_hop_passage():
    kb = build_knowledge_base(0, 40)
    by_title = {p.title: p for p in kb.passages}
    for hops in (1, 2, 3):
        for index in range(20):
            q = synthetic_question(kb, hops, "train", task_seed("train", index, 0))
            assert q.dataset == f"hop{hops}" and len(q.hop_queries) == hops == len(q.gold_passage_ids)
            passages = [by_title[name] for name in q.hop_queries]
            assert q.golden_answers[0] in passages[-1].text
            # each hop's entity is named in the previous hop's passage (the chain is followable)
            for previous, entity in zip(passages, q.hop_queries[1:]):
                assert entity in previous.text
            # the question names only the root entity
            assert q.hop_queries[0] in q.question
            assert not any(name in q.question for name in q.hop_queries[1:])
            assert q.golden_answers[0] not in q.question


def test_roots_are_partitioned_by_split():
    kb = build_knowledge_base(0, 40)
    for kind in ("people", "companies"):
        groups = [set(kb.roots(kind, split)) for split in SPLITS]
        assert sum(map(len, groups)) == len(getattr(kb, kind))
        assert not (groups[0] & groups[1]) and not (groups[0] & groups[2]) and not (groups[1] & groups[2])
    assert SPLIT_OF_ROOT.count("train") == 3
    for split in SPLITS:
        roots = set(kb.roots("people", split)) | set(kb.roots("companies", split))
        for index in range(15):
            q = synthetic_question(kb, 1 + index % 3, split, task_seed(split, index, 0))
            assert q.hop_queries[0] in roots


def test_out_of_distribution_uses_other_phrasings():
    kb = build_knowledge_base(0, 40)
    train = {
        re.sub(r"[A-Z][a-z]+( [A-Z][a-z]+)?", "E", synthetic_question(kb, h, "train", s).question)
        for h in (1, 2, 3)
        for s in range(30)
    }
    ood = {
        re.sub(
            r"[A-Z][a-z]+( [A-Z][a-z]+)?",
            "E",
            synthetic_question(kb, h, "eval_out_of_distribution", s).question,
        )
        for h in (1, 2, 3)
        for s in range(30)
    }
    assert train and ood and not (train & ood)
