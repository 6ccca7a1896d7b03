"""A synthetic knowledge base about fictional entities, and 1–3-hop questions over it.

People, companies, cities and countries get invented names (random syllables, every name token
unique in the base), so no model can know a fact without retrieving its passage. Each entity
has one passage stating its facts; a question of ``h`` hops needs the passages of ``h``
entities in turn (e.g. 3 hops: company → its founder → the founder's birth city → that city's
country), and its ``hop_queries`` are those entities' names, which the expert searches in order.

Question roots (the entity a question starts from) are partitioned by split, so evaluation asks
about entities that training never asked about; out of distribution also uses other phrasings.
Everything is a deterministic function of ``(seed, num_people)`` and the task's seed.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from dataclasses import dataclass

from coevo.envs.search.corpus import Passage
from coevo.envs.search.qa import Question

_ONSETS = (
    "b",
    "d",
    "f",
    "g",
    "k",
    "l",
    "m",
    "n",
    "p",
    "r",
    "s",
    "t",
    "v",
    "z",
    "br",
    "dr",
    "kr",
    "tr",
    "st",
    "th",
    "qu",
)
_VOWELS = ("a", "e", "i", "o", "u", "ae", "ou")
_CODAS = ("", "", "n", "r", "l", "s", "th", "x", "m")
PROFESSIONS = ("painter", "engineer", "botanist", "composer", "architect", "chemist", "sculptor", "novelist")
FEATURES = (
    "glass bridges",
    "salt markets",
    "clock towers",
    "river festivals",
    "copper mines",
    "night gardens",
)
COMPANY_SUFFIXES = ("Dynamics", "Works", "Labs", "Holdings", "Foundry", "Systems")
SPLIT_OF_ROOT = ("train", "train", "train", "eval_in_distribution", "eval_out_of_distribution")


@dataclass(frozen=True)
class Person:
    name: str
    profession: str
    city: str
    year: int


@dataclass(frozen=True)
class Company:
    name: str
    founder: str
    city: str
    year: int


@dataclass(frozen=True)
class KnowledgeBase:
    people: dict[str, Person]
    companies: dict[str, Company]
    countries: dict[str, str]  # city -> country
    currencies: dict[str, str]  # country -> currency
    passages: tuple[Passage, ...]

    def roots(self, kind: str, split: str) -> list[str]:
        """Names of the ``kind`` ("people"/"companies") entities that questions of ``split`` start from."""
        names = sorted(getattr(self, kind))
        return [n for i, n in enumerate(names) if SPLIT_OF_ROOT[i % len(SPLIT_OF_ROOT)] == split]


class _Names:
    """Invented capitalised words, no word (lower-cased) used twice."""

    def __init__(self, rng: random.Random):
        self.rng, self.used = rng, set()

    def word(self, syllables: int, ending: str = "") -> str:
        while True:
            parts = [self.rng.choice(_ONSETS) + self.rng.choice(_VOWELS) for _ in range(syllables)]
            word = ("".join(parts) + self.rng.choice(_CODAS) + ending).capitalize()
            if word.lower() not in self.used and len(word) >= 4:
                self.used.add(word.lower())
                return word


@functools.lru_cache(maxsize=8)
def build_knowledge_base(seed: int, num_people: int) -> KnowledgeBase:
    rng = random.Random(f"search-kb/{seed}/{num_people}")
    names = _Names(rng)
    num_countries = max(3, num_people // 10)
    num_cities = max(5, num_people // 4)
    countries = [names.word(2, rng.choice(("ia", "ar", "esh", "ova"))) for _ in range(num_countries)]
    currencies = {c: names.word(1).lower() for c in countries}
    cities = [names.word(2) for _ in range(num_cities)]
    country_of = {city: countries[i % num_countries] for i, city in enumerate(cities)}
    people: dict[str, Person] = {}
    for _ in range(num_people):
        name = f"{names.word(2)} {names.word(rng.choice((2, 3)))}"
        people[name] = Person(name, rng.choice(PROFESSIONS), rng.choice(cities), rng.randint(1890, 1999))
    founders = list(people)
    companies: dict[str, Company] = {}
    for i in range(max(4, num_people // 2)):
        name = f"{names.word(2)} {COMPANY_SUFFIXES[i % len(COMPANY_SUFFIXES)]}"
        founder = founders[i % len(founders)]
        companies[name] = Company(
            name, founder, rng.choice(cities), people[founder].year + rng.randint(25, 60)
        )
    passages = []
    for p in people.values():
        article = "an" if p.profession[0] in "aeiou" else "a"
        text = f"{p.name} is {article} {p.profession}. {p.name} was born in {p.city} in {p.year}."
        passages.append(Passage(f"syn-{len(passages)}", p.name, text))
    for c in companies.values():
        text = f"{c.name} is a company founded in {c.year} by {c.founder}. Its headquarters are in {c.city}."
        passages.append(Passage(f"syn-{len(passages)}", c.name, text))
    for city, country in country_of.items():
        text = f"{city} is a city in {country}, known for its {rng.choice(FEATURES)}."
        passages.append(Passage(f"syn-{len(passages)}", city, text))
    for country, currency in currencies.items():
        text = f"{country} is a country whose currency is the {currency}."
        passages.append(Passage(f"syn-{len(passages)}", country, text))
    return KnowledgeBase(people, companies, country_of, currencies, tuple(passages))


# A template: (root kind, phrasing in distribution, phrasing out of distribution, solver); the
# solver returns (answer, hop queries) for a root name.
Solver = Callable[[KnowledgeBase, str], tuple[str, tuple[str, ...]]]
Template = tuple[str, str, str, Solver]


def _founder(kb: KnowledgeBase, company: str) -> Person:
    return kb.people[kb.companies[company].founder]


TEMPLATES: dict[int, tuple[Template, ...]] = {
    1: (
        (
            "people",
            "In which city was {} born?",
            "Name the birthplace of {}.",
            lambda kb, p: (kb.people[p].city, (p,)),
        ),
        (
            "people",
            "What is the profession of {}?",
            "What does {} do for a living?",
            lambda kb, p: (kb.people[p].profession, (p,)),
        ),
        (
            "companies",
            "Who founded {}?",
            "Which person established {}?",
            lambda kb, c: (kb.companies[c].founder, (c,)),
        ),
        (
            "companies",
            "In which year was {} founded?",
            "{} was established in which year?",
            lambda kb, c: (str(kb.companies[c].year), (c,)),
        ),
    ),
    2: (
        (
            "companies",
            "In which city was the founder of {} born?",
            "The person who established {} was born in which city?",
            lambda kb, c: (_founder(kb, c).city, (c, _founder(kb, c).name)),
        ),
        (
            "companies",
            "What is the profession of the founder of {}?",
            "What did the person who established {} do for a living?",
            lambda kb, c: (_founder(kb, c).profession, (c, _founder(kb, c).name)),
        ),
        (
            "people",
            "In which country was {} born?",
            "{} was born in a city of which country?",
            lambda kb, p: (kb.countries[kb.people[p].city], (p, kb.people[p].city)),
        ),
        (
            "companies",
            "In which country is {} headquartered?",
            "The headquarters of {} lie in which country?",
            lambda kb, c: (kb.countries[kb.companies[c].city], (c, kb.companies[c].city)),
        ),
    ),
    3: (
        (
            "companies",
            "In which country was the founder of {} born?",
            "The person who established {} was born in which country?",
            lambda kb, c: (
                kb.countries[_founder(kb, c).city],
                (c, _founder(kb, c).name, _founder(kb, c).city),
            ),
        ),
        (
            "people",
            "What is the currency of the country where {} was born?",
            "Which currency is used where {} was born?",
            lambda kb, p: (
                kb.currencies[kb.countries[kb.people[p].city]],
                (p, kb.people[p].city, kb.countries[kb.people[p].city]),
            ),
        ),
    ),
}


def synthetic_question(kb: KnowledgeBase, hops: int, split: str, seed: int) -> Question:
    """The question of ``hops`` hops that task seed ``seed`` of ``split`` asks."""
    rng = random.Random(seed)
    kind, phrasing, ood_phrasing, solve = rng.choice(TEMPLATES[hops])
    root = rng.choice(kb.roots(kind, split) or kb.roots(kind, "train"))
    answer, queries = solve(kb, root)
    text = (ood_phrasing if split == "eval_out_of_distribution" else phrasing).format(root)
    gold_ids = tuple(p.id for q in queries for p in kb.passages if p.title == q)
    return Question(text, (answer,), f"hop{hops}", queries, f"syn-{split}-{seed}", gold_ids)
