"""The ``search`` environment: Search-R1-style multi-turn question answering with a retriever.

Each turn the agent replies ``<think>…</think><search>query</search>`` — answered with the top-k
passages as ``<information>Doc 1(Title: …) text …</information>`` — or
``<think>…</think><answer>text</answer>``, which ends the episode with reward = exact match
(``info`` also holds token F1). A malformed reply is invalid (``parse_action`` → ``None``), and so
is searching a query already searched in the episode. After ``max_turns`` turns without an
answer the episode ends unsuccessfully.

Questions come from a synthetic knowledge base of fictional entities (default; 1–3 hops) or,
with ``qa_file`` and ``corpus_file``, from Search-R1 / FlashRAG data (NQ, HotpotQA, ...). The
task type is ``hop1``..``hop3`` or the dataset name, so metrics are reported per dataset.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from coevo.core import registry
from coevo.core.env.protocol import Environment, StepResult, Task
from coevo.core.fields import bounded, choice, random_seed
from coevo.core.fields import path as path_field
from coevo.envs.data_files import DataFileError, load_checked
from coevo.envs.file_splits import split_rows, task_index
from coevo.envs.search.actions import ANSWER, SEARCH, format_reply, parse_reply, split_action
from coevo.envs.search.corpus import Passage, cached_fingerprint, fingerprint_passages, load_corpus
from coevo.envs.search.dense import check_dense_available
from coevo.envs.search.index import RETRIEVERS, IndexSpec, shared_index
from coevo.envs.search.metrics import exact_match, f1_score
from coevo.envs.search.qa import DATASETS, Question, load_questions
from coevo.envs.search.synthetic import build_knowledge_base, synthetic_question
from coevo.envs.search.tasks import task_seed

HOP_TYPES = ("hop1", "hop2", "hop3")
QA_ROW = "one JSON object per line with 'question' and 'golden_answers', or Search-R1 Parquet"
CORPUS_ROW = "one JSON object per line with 'id' and 'contents' (or 'title' and 'text')"
INSTRUCTION = (
    "Answer the given question. Reason inside <think> and </think>. To search, write "
    "<search>query</search>; the results come back between <information> and </information>. "
    "When you know the answer, write it inside <answer> and </answer>, without explanation."
)


def _default_hops() -> list[int]:
    return [1, 2, 3]


def format_information(passages: list[Passage], max_words: int = 0) -> str:
    """Search-R1's rendering of retrieved passages: ``Doc i(Title: t) text``, one per line."""
    if not passages:
        return "<information>No results found.</information>"
    lines = []
    for i, p in enumerate(passages, start=1):
        words = p.text.split()
        text = " ".join(words[:max_words]) + " ..." if max_words and len(words) > max_words else p.text
        lines.append(f"Doc {i}(Title: {p.title}) {text}")
    return "<information>" + "\n".join(lines) + "</information>"


@registry.envs.register("search")
class SearchEnv(Environment):
    """Multi-turn retrieval-augmented QA (Search-R1 grammar) over a synthetic or real corpus."""

    name = "search"
    task_types = HOP_TYPES + DATASETS + ("qa",)
    invalid_observation = (
        "Invalid reply. To search, put the query between <search> and </search>; to answer, put the "
        "answer between <answer> and </answer>; do not repeat a search."
    )
    free_form_actions = True

    @dataclass
    class Config:
        seed: int = random_seed(0)  # base seed: the synthetic knowledge base and each task's question
        # synthetic hop counts (1, 2 or 3), round-robin by index
        hops: list[int] = bounded(_default_hops, ge=1, le=3, length=(1, None))
        # size of the synthetic knowledge base (also num_people/2 companies, ...); a 2-hop question needs 4
        num_people: int = bounded(40, ge=4)
        # training questions (JSONL/Parquet); empty: the synthetic knowledge base
        qa_file: str = path_field("", empty="the synthetic knowledge base")
        # eval_in_distribution questions; empty: hold out the last rows of qa_file
        eval_qa_file: str = path_field("", empty="hold out the last rows of qa_file")
        # eval_out_of_distribution questions (with qa_file); empty: that split is empty
        ood_qa_file: str = path_field("", empty="that split is empty")
        # passages (FlashRAG JSONL) to search; required with qa_file
        corpus_file: str = path_field("", empty="none (the synthetic knowledge base)")
        retriever: str = choice("bm25", RETRIEVERS)  # "bm25" | "dense" (needs coevo-envs[dense])
        # dense: a sentence-transformers folder; empty: packaged all-MiniLM-L6-v2
        embedding_model: str = path_field("", empty="the packaged all-MiniLM-L6-v2")
        top_k: int = bounded(3, ge=1)  # passages returned per search
        # truncate each returned passage to this many words; 0: whole
        max_passage_words: int = bounded(0, ge=0)
        # turns (searches + the answer) before the episode ends unsuccessfully
        max_turns: int = bounded(5, ge=1)
        # where built indexes are cached (keyed by corpus + settings)
        index_dir: str = path_field(".cache/coevo/search")
        # synthetic eval tasks, or rows held out of qa_file
        eval_in_distribution_size: int = bounded(60, ge=1)
        # synthetic OOD tasks (unseen entities and phrasings)
        eval_out_of_distribution_size: int = bounded(60, ge=1)

    def __init__(self, config: Config | None = None):
        self.config = c = config if config is not None else self.Config()
        if not c.hops or any(h not in (1, 2, 3) for h in c.hops):
            raise ValueError(f"hops must be a non-empty list of 1, 2 and 3; got {list(c.hops)}")
        if c.retriever not in RETRIEVERS:
            raise ValueError(f"retriever must be one of {list(RETRIEVERS)}, got {c.retriever!r}")
        if c.top_k < 1 or c.max_turns < 1 or c.num_people < 4:
            raise ValueError("top_k and max_turns must be at least 1 and num_people at least 4")
        if c.qa_file:
            if not c.corpus_file:
                raise ValueError("env.corpus_file: required with env.qa_file (the passages to search)")
        elif c.eval_qa_file or c.ood_qa_file or c.corpus_file:
            key = next(k for k in ("eval_qa_file", "ood_qa_file", "corpus_file") if getattr(c, k))
            raise ValueError(f"env.{key}: needs env.qa_file (the training questions) as well; set env.qa_file, "
                             f"or leave env.{key} empty for the synthetic knowledge base")
        if c.retriever == "dense":
            check_dense_available(c.embedding_model)
        self._check_files()
        self.max_steps = c.max_turns
        self._task: Task | None = None
        self._question: Question | None = None
        self._queries: tuple[str, ...] = ()  # normalised queries searched so far
        self._turns = 0
        self._done = False

    # -- data -----------------------------------------------------------------------------------
    def _check_files(self) -> None:
        """Open and validate every configured file now (cached per file version), so a bad row is
        reported with its key and line before any work rather than mid-run."""
        c = self.config
        for key in ("qa_file", "eval_qa_file", "ood_qa_file"):
            if getattr(c, key):
                load_checked(load_questions, getattr(c, key), f"env.{key}", QA_ROW)
        if c.corpus_file:
            load_checked(load_corpus, c.corpus_file, "env.corpus_file", CORPUS_ROW)
        if c.qa_file and not c.eval_qa_file and len(load_questions(c.qa_file)) < 2:
            raise DataFileError(f"env.qa_file: {c.qa_file} holds 1 question; at least 2 are needed (the last "
                                f"rows are held out for evaluation), or set env.eval_qa_file")

    @property
    def synthetic(self) -> bool:
        return not self.config.qa_file

    def passages(self) -> tuple[Passage, ...]:
        if self.synthetic:
            return build_knowledge_base(self.config.seed, self.config.num_people).passages
        return load_corpus(self.config.corpus_file)

    def retriever(self):
        """The shared (per process), disk-cached index over ``passages()``."""
        c = self.config
        passages = self.passages()
        fingerprint = fingerprint_passages(passages) if self.synthetic else cached_fingerprint(c.corpus_file)
        return shared_index(IndexSpec(c.retriever, c.index_dir, c.embedding_model), passages, fingerprint)

    def search(self, query: str) -> list[Passage]:
        passages = self.passages()
        return [passages[i] for i, _ in self.retriever().search(query, self.config.top_k)]

    def _split_questions(self, split: str) -> tuple[Question, ...]:
        c = self.config
        return split_rows(split, load_questions, c.qa_file, c.eval_qa_file, c.ood_qa_file, c.eval_in_distribution_size)

    # -- tasks ----------------------------------------------------------------------------------
    def num_tasks(self, split: str) -> int | None:
        if split not in self.splits:
            raise ValueError(f"unknown split {split!r}; search has {list(self.splits)}")
        if not self.synthetic:
            return len(self._split_questions(split))
        if split == "train":
            return None
        if split == "eval_in_distribution":
            return self.config.eval_in_distribution_size
        return self.config.eval_out_of_distribution_size

    def task(self, split: str, index: int) -> Task:
        index = task_index(split, index, self.num_tasks(split))
        if self.synthetic:
            task_type = f"hop{self.config.hops[index % len(self.config.hops)]}"
        else:
            task_type = self._split_questions(split)[index].dataset
        return Task(self.name, split, index, task_type, task_seed(split, index, self.config.seed))

    def question(self, task: Task) -> Question:
        """The question ``task`` asks."""
        if self.synthetic:
            kb = build_knowledge_base(self.config.seed, self.config.num_people)
            return synthetic_question(kb, int(task.task_type.removeprefix("hop")), task.split, task.seed)
        return self._split_questions(task.split)[task.index]

    # -- episode --------------------------------------------------------------------------------
    def reset(self, task: Task) -> str:
        self._task, self._question = task, self.question(task)
        self._queries, self._turns, self._done = (), 0, False
        return f"{INSTRUCTION}\nQuestion: {self._question.question}"

    def step(self, action: str) -> StepResult:
        question = self._require_question()
        if self._done:
            return StepResult(self.invalid_observation, 0.0, done=True, invalid=True, info=self._info())
        self._turns += 1
        parts = split_action(action)
        if parts is None and isinstance(action, str):
            reply = parse_reply(action)  # a whole reply instead of a canonical action
            parts = split_action(reply) if reply is not None else None
        if parts is None:
            return self._invalid({"malformed": True})
        kind, content = parts
        if kind == ANSWER:
            em, f1 = exact_match(content, question.golden_answers), f1_score(content, question.golden_answers)
            self._done = True
            info = self._info() | {"em": em, "f1": f1, "answer": content}
            return StepResult(f"Your answer: {content}", em, done=True, won=em == 1.0, info=info)
        query = " ".join(content.lower().split())
        if query in self._queries:
            return self._invalid({"repeated_query": True})
        self._queries += (query,)
        results = self.search(content)
        observation = format_information(results, self.config.max_passage_words)
        self._done = self._turns >= self.max_steps
        info = self._info() | {"retrieved": [p.id for p in results]}
        if self._done:
            info |= {"em": 0.0, "f1": 0.0}
        return StepResult(observation, 0.0, done=self._done, info=info)

    def _invalid(self, extra: dict[str, Any]) -> StepResult:
        self._done = self._turns >= self.max_steps
        info = self._info() | extra | ({"em": 0.0, "f1": 0.0} if self._done else {})
        return StepResult(self.invalid_observation, 0.0, done=self._done, invalid=True, info=info)

    def admissible_actions(self) -> list[str]:
        return []

    @property
    def goal(self) -> str:
        return self._require_question().question

    @property
    def done(self) -> bool:
        return self._done

    @property
    def current_question(self) -> Question:
        return self._require_question()

    def snapshot(self) -> Any:
        return (self._task, self._question, self._queries, self._turns, self._done)

    def restore(self, snapshot: Any) -> None:
        self._task, self._question, self._queries, self._turns, self._done = snapshot

    # -- helpers --------------------------------------------------------------------------------
    def memory(self) -> str | None:
        return f"searched: {'; '.join(self._queries)}" if self._queries else None

    def parse_action(self, text: str) -> str | None:
        """``"search: q"`` / ``"answer: a"`` from a well-formed reply, else ``None`` (never raises)."""
        return parse_reply(text)

    def format_action(self, action: str) -> str:
        return format_reply(action)

    def expert_action(self) -> str | None:
        """Search each hop query in order (real data: the question), then answer the first gold answer."""
        if self._question is None or self._done:
            return None
        for query in self._question.hop_queries:
            if " ".join(query.lower().split()) not in self._queries:
                return f"{SEARCH}: {query}"
        return f"{ANSWER}: {self._question.golden_answers[0]}"

    def _info(self) -> dict[str, Any]:
        return {"turns": self._turns}

    def _require_question(self) -> Question:
        if self._question is None:
            raise RuntimeError("call reset(task) before stepping the search environment")
        return self._question
