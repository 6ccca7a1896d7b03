"""The text commands of TextCraft-Synth and their parser; one step carries up to N of them.

Commands (case and spacing free), separated by ``;`` or new lines::

    info <item>[, <item> ...]                       # recipes and crafting depths (platoon's get_info)
    craft <n> <item> from <k> <ingredient>, ...     # n items made; each k is what the n consume
    inventory                                       # what you hold (platoon's view_inventory)
    finish [message]                                # end the episode; won iff the goal is crafted;
                                                    # a sub-agent's message is its report to its parent

As in the authors' ``craft(ingredients, target=(item, n))``: ``n`` is the number of items made, a
multiple of the recipe's yield; every ingredient is named with exactly the count ``n / yield``
crafts consume, no ingredient is missing and none is extra.

``parse_step`` turns a step's text into commands or raises ``CommandError`` saying what is wrong
(the environment answers that with an invalid action). It looks at no more than
``MAX_STEP_CHARS`` characters, so hostile text costs little: a longer step is refused unread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from coevo.envs.recursive import MAX_DIGITS, small_int

MAX_STEP_CHARS = 4000  # a step's whole text (the expert's longest step is under 2,000)
MAX_INFO_ITEMS = 64  # items one 'info' asks about
MAX_NAME_CHARS = 32  # an item name's length (the world's longest is 11)
MAX_REPORT_CHARS = 200  # the part of a finish message that is kept
_NAME = re.compile(r"[a-z0-9_]+")
GRAMMAR = ("'info <item>, ...', 'craft <n> <item> from <k> <ingredient>, ...', 'inventory' or 'finish', "
           "several separated by ';'")


class CommandError(ValueError):
    """A step's text that is not a list of well-formed commands (the message says why)."""


@dataclass(frozen=True)
class Info:
    items: tuple[str, ...]


@dataclass(frozen=True)
class Craft:
    count: int  # items to make
    item: str
    ingredients: tuple[tuple[str, int], ...]  # (item, count consumed), in the order written


@dataclass(frozen=True)
class ShowInventory:
    pass


@dataclass(frozen=True)
class Finish:
    message: str = ""  # free text; a sub-agent's reaches its parent at the join (its report)


Command = Info | Craft | ShowInventory | Finish


def parse_step(text: str, most: int) -> list[Command]:
    """The commands of one step, at most ``most`` of them; ``CommandError`` otherwise."""
    if not isinstance(text, str):
        raise CommandError("a step is text")
    if len(text) > MAX_STEP_CHARS:
        raise CommandError(f"a step is at most {MAX_STEP_CHARS} characters, got {len(text)}")
    parts = [" ".join(p.split()) for p in re.split(r"[;\n]", text.lower())]
    parts = [p for p in parts if p]
    if not parts:
        raise CommandError(f"empty step; expected {GRAMMAR}")
    if len(parts) > most:
        raise CommandError(f"at most {most} commands a step, got {len(parts)}")
    return [parse_command(p) for p in parts]


def parse_command(text: str) -> Command:
    """One whitespace-collapsed, lower-case command."""
    verb, _, rest = text.partition(" ")
    if verb == "inventory" and not rest:
        return ShowInventory()
    if verb == "finish":
        return Finish(rest[:MAX_REPORT_CHARS])
    if verb == "info":
        names = [n for n in re.split(r"[,\s]+", rest) if n]
        if not names:
            raise CommandError("'info' names at least one item: 'info <item>, <item>'")
        if len(names) > MAX_INFO_ITEMS:
            raise CommandError(f"'info' asks about at most {MAX_INFO_ITEMS} items, got {len(names)}")
        return Info(tuple(_name(n) for n in names))
    if verb == "craft":
        return _craft(rest)
    raise CommandError(f"unknown command {_quote(text)}; expected {GRAMMAR}")


def _craft(rest: str) -> Craft:
    head, sep, tail = rest.partition(" from ")
    words = head.split()
    if not sep or len(words) != 2:
        raise CommandError(f"malformed craft {_quote(rest)}; expected 'craft <n> <item> from <k> <ingredient>, ...'")
    count = _count(words[0])
    item = _name(words[1])
    ingredients: list[tuple[str, int]] = []
    for part in tail.split(","):
        pair = part.split()
        if len(pair) != 2:
            raise CommandError(f"malformed ingredient {_quote(part.strip())}; expected '<k> <ingredient>'")
        name = _name(pair[1])
        if any(name == seen for seen, _ in ingredients):
            raise CommandError(f"ingredient {name} named twice")
        ingredients.append((name, _count(pair[0])))
    return Craft(count, item, tuple(ingredients))


def _count(text: str) -> int:
    value = small_int(text)
    if value is None or value < 1:
        raise CommandError(f"a count is a whole number from 1 with at most {MAX_DIGITS} digits, not {_quote(text)}")
    return value


def _name(text: str) -> str:
    if len(text) > MAX_NAME_CHARS or not _NAME.fullmatch(text):
        raise CommandError(f"{_quote(text)} is not an item name (letters, digits and '_')")
    return text


def _quote(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:40] + "…")
