"""How fast the exact hand solver is: median, p99 and max time per solve, in ms.

Run as ``.venv/bin/python bench/solver.py``. Every set is drawn with a fixed seed, so each
run times the same hands:

* 10,000 random 13-card hands from the real 116-card deck, Kings wild;
* 10,000 random 14-card hands (after drawing), Kings wild, with the discard;
* an adversarial set: many wilds, two or three suits, long runs with duplicates, every
  wild rank, plus the slowest hands a hill-climb on the solver's memo size turned up.

Times are wall-clock per call (``time.perf_counter``), garbage collector on, so a busy
machine shows in the tail; the load average is printed alongside.
"""

from __future__ import annotations

import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.rules.cards import RANK_CODES, RANKS, SUITS  # noqa: E402
from app.rules.solver import solve  # noqa: E402

Case = tuple[list[str], str, bool]  # cards, wild rank, discard

DECK = [RANK_CODES[rank] + suit for rank in RANKS for suit in SUITS] * 2 + ["JOKER"] * 6
CODES = [RANK_CODES[rank] for rank in RANKS]
RANDOM_HANDS = 10_000


def cards(text: str) -> list[str]:
    return text.split()


# Found by hill-climbing on the number of memo states (the slowest shapes seen).
WORST_FOUND: list[Case] = [
    (cards("4R 5S 6D 6R 7D 7H 7R 7S 8D 8R 8S 9R 10H JOKER"), "4", True),
    (cards("4C 4S 5C 5H 5S 6C 6H 6R 6S 7C 8H 9S JH JOKER"), "J", True),
    (cards("3C 3D 4D 4R 5C 5D 5R 5S 6C 6R 7D 8R 9D JOKER"), "9", True),
    (cards("4H 4S 5C 6C 6H 6R 6S 7C 7H 7R 8S 9H 10C 10R"), "10", True),
    (cards("6D 6S 9C 9S 10H 10R JC JH JR JS QC QR KH KR"), "6", True),
    (cards("5H 6D 6R 6S 7D 7H 7R 7S 8R 8S 9R 9S 10H JS"), "9", True),
    (cards("7C 7H 8D 8R 8S 9C 9H 9R 10R 10S JC JS QD QR"), "Q", True),
    (cards("5C 5C 5S 7C 9D 9R 10C 10D 10H 10R JC JR QR KH"), "5", True),
    (cards("9H 10C 7D 8C 9D JOKER JOKER 10D JC 9C 9R JR 7H 8S"), "5", True),
    (cards("7D KS 6S JOKER 8D 6H 8R 6R 5D 7H 9H 9R 7C 5H"), "K", True),
]


def random_hands(seed: int, size: int, wild: str, discard: bool) -> list[Case]:
    rng = random.Random(seed)
    return [(rng.sample(DECK, size), wild, discard) for _ in range(RANDOM_HANDS)]


def adversarial_hands(seed: int) -> list[Case]:
    rng = random.Random(seed)
    cases: list[Case] = []
    for size, discard in ((13, False), (14, True)):
        # Two or three suits, both copies of everything, 0 to 6 jokers, every wild rank.
        for wild in CODES:
            for jokers in range(7):
                for _ in range(6):
                    suits = rng.sample(list(SUITS), rng.choice([2, 2, 3]))
                    low = rng.randint(3, 8)
                    high = min(13, low + rng.randint(4, 8))
                    pool = [RANK_CODES[r] + s for r in range(low, high + 1) for s in suits] * 2
                    hand = ["JOKER"] * jokers + rng.sample(pool, min(len(pool), size - jokers))
                    cases.append((hand, wild, discard))
        # Both copies of a long stretch of one suit, the same ranks in a second suit, wilds.
        for wild in CODES:
            for low in range(3, 9):
                suit, other = rng.sample(list(SUITS), 2)
                stretch = [RANK_CODES[r] + suit for r in range(low, min(14, low + 5))] * 2
                rest = [RANK_CODES[r] + other for r in range(low, min(14, low + 5))]
                hand = (stretch + rest + ["JOKER"] * 6)[:size]
                cases.append((hand, wild, discard))
    cases += WORST_FOUND
    return cases


def measure(cases: list[Case]) -> list[float]:
    clock = time.perf_counter
    times: list[float] = []
    for hand, wild, discard in cases:
        start = clock()
        solve(hand, wild, discard)
        times.append((clock() - start) * 1000)
    return times


def report(name: str, times: list[float], target: str) -> None:
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    print(
        f"{name:<32} n={len(ordered):>6}  median {statistics.median(ordered):6.3f}  "
        f"p99 {p99:6.3f}  max {ordered[-1]:6.3f}  (ms; target {target})"
    )


def main() -> None:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"Python {platform.python_version()}, {os.cpu_count()} CPUs, load average {load}")
    sets = [
        ("13 cards, Kings wild", random_hands(13, 13, "K", False), "p99 < 2"),
        ("14 cards, Kings wild, discard", random_hands(14, 14, "K", True), "p99 < 5"),
        ("adversarial", adversarial_hands(2024), "max < 50"),
    ]
    measure([case for _name, cases, _target in sets for case in cases[:300]])  # warm up
    for name, cases, target in sets:
        report(name, measure(cases), target)


if __name__ == "__main__":
    main()
