"""The exact hand solver: the fewest points a hand can be left holding.

`solve` splits a hand into books and runs so that the cards left over cost as little as
possible, and says how: which groups, what each wild stands for, what is left and, when
asked, which card to discard (to go out, or to keep the fewest points).

How it stays exact and fast in pure Python:

* A card of the round's wild rank is always treated as a wild. That loses nothing: a
  wild may stand for itself, so whatever the card does as its own rank it does as a wild.
  Jokers and wild-rank cards are then interchangeable, and the search only counts them.
* Once one group is down, spare wilds cost nothing: a book takes any number, a run can be
  lengthened (or split in two and lengthened), three or more make a group of their own.
  So the search maximises the value of the natural cards placed, within the wilds held.
* The natural cards are visited rank by rank (suit by suit within a rank). Every copy is
  left over, discarded, put in the book of its rank, or starts a run. A run takes one
  free copy of every later rank it spans (swapping a natural into a run for a wild never
  hurts: whatever held the natural takes the wild instead), so a run is fixed by its top
  card, wilds fill its gaps, and the copies it takes are reserved in a grid of free cards.
  A book is settled when its rank is done; no copy is left over beside a book of its rank
  (it would join the book), and a run of one natural and two wilds is never needed (the
  book of its rank takes the card for no more wilds).
* Cards that can never join a group are set aside first, the search stops as soon as
  everything left is placed, and hands with two wilds per remaining card are placed whole.
  The memo table is per call; its key is (cell, free cards, the rank's book, wilds left,
  discard still owed).

With ``discard=True`` the search owes one discard, which a natural card must take. The
only other candidate, discarding a wild, can only do better when no natural card fits
anywhere (then everything is left over), and is priced directly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..i18n import fill
from ..i18n import gettext as _
from .card_words import card_name
from .cards import RANK_CODES, RANKS, SUITS, Card, Decks, card_points, parse_card, parse_rank

MAX_HAND = 14
"""The most cards a hand can hold: 13 dealt in the last round and 1 drawn."""

GroupKind = Literal["book", "run"]

_SUIT_ORDER: tuple[str, ...] = tuple(SUITS)
_SUIT_INDEX: dict[str, int] = {suit: i for i, suit in enumerate(_SUIT_ORDER)}
_PAD = (0, 2, 1, 0, 0)  # wilds a book needs, by its ledger entry
_CLOSED = 4  # ledger entry of a rank with a copy left over: it gets no book
_SUIT_BITS = 33  # a suit's copies in the grid: 3 bits for each of the 11 ranks
_SUIT_MASK = (1 << _SUIT_BITS) - 1
_NEG = -(1 << 40)  # "impossible" in the search


@dataclass(frozen=True)
class Group:
    """One book or run laid down.

    ``cards`` are the card codes as held (upper case). ``stands_for`` runs parallel to
    ``cards``: ``None`` for a card played as itself (a wild-rank card in its own book or
    in its own place in a run counts as itself), otherwise what the wild stands for: a
    rank code such as ``"9"`` in a book, a card code such as ``"9H"`` in a run. Run cards
    are listed from the lowest rank up.
    """

    kind: GroupKind
    cards: list[str]
    stands_for: list[str | None]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "cards": list(self.cards), "stands_for": list(self.stands_for)}


@dataclass(frozen=True)
class Solution:
    """The best way to play a hand.

    ``points`` is what the ``leftover`` cards cost. ``discard`` is the card set aside
    (only with ``discard=True``, else ``None``); ``points == 0`` then means the hand
    goes out.
    """

    points: int
    groups: list[Group]
    leftover: list[str]
    discard: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: points, groups (kind, cards, stands_for), leftover, discard."""
        return {
            "points": self.points,
            "groups": [group.to_dict() for group in self.groups],
            "leftover": list(self.leftover),
            "discard": self.discard,
        }


def has_wild_only_group(solution: Solution, wild_rank: int) -> bool:
    """Whether a group is made only of wild cards (jokers and the wild rank); the app's
    ruling is that such a group counts, since wilds stand in for any card."""
    return any(
        all(card.is_joker or card.rank == wild_rank for card in map(parse_card, group.cards))
        for group in solution.groups
    )


def solve(
    cards: Sequence[str],
    wild_rank: str | int,
    discard: bool = False,
    *,
    decks: Decks | None = None,
) -> Solution:
    """The fewest points ``cards`` can be left with when ``wild_rank`` is wild.

    ``cards`` are card codes ("QH", "10R", "JOKER"; any letter case; a suit is required
    except for jokers); ``wild_rank`` is a rank code ("7", "K") or a number 3 to 13.
    With ``discard=True`` the hand is the one after drawing and exactly one card is set
    aside, chosen to keep the fewest points. ``decks`` bounds the copies of each card
    (default: one game, 2 of each card and 6 jokers).

    Equal answers are broken the same way every time, whatever the order of ``cards``.
    Raises ValueError for an unknown code, a missing suit, more copies of a card than the
    decks hold, more than 14 cards, or nothing to discard.
    """
    wild = _parse_wild_rank(wild_rank)
    hand = _parse_hand(cards, decks or Decks(games=1))
    if discard and not hand:
        raise ValueError(_("There is no card to discard: the hand is empty."))
    return _Solver(hand, wild).solve(discard)


def check_hand_size(card_count: int, *, cards_dealt: int, discard: bool) -> None:
    """ValueError unless a hand of that round holds card_count cards: exactly the cards
    dealt, or one more just after drawing (when a discard is asked for)."""
    wanted = cards_dealt + 1 if discard else cards_dealt
    if card_count != wanted:
        if discard:
            message = _(
                "%(dealt)s cards were dealt this round: a hand just after drawing, holds "
                "exactly %(wanted)s cards, not %(count)s."
            )
        else:
            message = _(
                "%(dealt)s cards were dealt this round: a hand holds exactly %(wanted)s cards, "
                "not %(count)s."
            )
        raise ValueError(fill(message, dealt=cards_dealt, wanted=wanted, count=card_count))


def round_wild_rank(wild_rank: str | int | None, cards_dealt: int | None) -> int:
    """The wild rank of a round: given, or the one matching the cards dealt (they always
    match); ValueError when neither is given or they disagree."""
    if cards_dealt is not None and cards_dealt not in RANKS:
        raise ValueError(
            fill(_("%(dealt)s cards are never dealt: rounds deal 3 to 13."), dealt=cards_dealt)
        )
    if wild_rank is None:
        if cards_dealt is None:
            raise ValueError(_("Give the wild rank, or the cards dealt this round."))
        return cards_dealt
    wild = _parse_wild_rank(wild_rank)
    if cards_dealt is not None and wild != cards_dealt:
        raise ValueError(
            fill(
                _(
                    "With %(dealt)s cards dealt the wild rank is %(rank)s, not %(given)s: the "
                    "wild rank always matches the cards dealt."
                ),
                dealt=cards_dealt,
                rank=RANK_CODES[cards_dealt],
                given=RANK_CODES[wild],
            )
        )
    return wild


# --- input ---------------------------------------------------------------------------


def _parse_wild_rank(wild_rank: str | int) -> int:
    if isinstance(wild_rank, bool):
        raise ValueError(_not_a_wild_rank(wild_rank))
    if isinstance(wild_rank, int):
        if wild_rank in RANKS:
            return wild_rank
        raise ValueError(
            fill(
                _("%(rank)s is not a wild rank: use 3 to 13 (J = 11, Q = 12, K = 13)"),
                rank=repr(wild_rank),
            )
        )
    if isinstance(wild_rank, str):
        text = wild_rank.strip()
        if text.isascii() and text.isdigit() and int(text) in RANKS:
            return int(text)
        return parse_rank(text)
    raise ValueError(_not_a_wild_rank(wild_rank))


def _not_a_wild_rank(wild_rank: object) -> str:
    return fill(_("%(rank)s is not a wild rank: use 3 to 10, J, Q or K"), rank=repr(wild_rank))


def _parse_hand(cards: Sequence[str], decks: Decks) -> list[Card]:
    if isinstance(cards, str | bytes) or not isinstance(cards, Sequence):
        raise ValueError(
            _("Give the hand as a list of card codes, such as ['QH', '10R', 'JOKER'].")
        )
    if len(cards) > MAX_HAND:
        raise ValueError(
            fill(
                _("A hand holds at most %(most)s cards (13 dealt and 1 drawn), not %(count)s."),
                most=MAX_HAND,
                count=len(cards),
            )
        )
    hand = [parse_card(code, suit_required=True) for code in cards]
    counts = Counter(hand)
    jokers = counts.pop(Card(None), 0)
    if jokers > decks.jokers:
        raise ValueError(
            fill(
                _("%(count)s jokers in one hand, but the decks hold only %(most)s."),
                count=jokers,
                most=decks.jokers,
            )
        )
    for card, count in sorted(counts.items()):
        if count > decks.copies_of_card:
            raise ValueError(
                fill(
                    _(
                        "%(count)s of the %(card)s (%(code)s) in one hand, but the decks hold "
                        "only %(most)s."
                    ),
                    count=count,
                    card=card_name(card),
                    code=card.code,
                    most=decks.copies_of_card,
                )
            )

    return hand


def _card_key(card: Card) -> tuple[int, int]:
    """Sort order for output: by rank, then suit; jokers last."""
    if card.rank is None:
        return (99, 0)
    return (card.rank, _SUIT_INDEX[card.suit or ""])


# --- the search ----------------------------------------------------------------------


@dataclass
class _Plan:
    """The search's decisions, before wild cards are dealt into the gaps."""

    runs: list[tuple[str, int, int, set[int]]]  # suit, first rank, last rank, natural ranks
    books: dict[int, list[str]]  # rank -> suits of the naturals in its book
    leftover: list[Card]
    discard: Card | None


_Move = tuple[int, int, int, int, int, int, int, tuple[int, ...], int, int]
"""A choice at one cell: (value gained, next grid, next book entry, wilds left, discard
owed, value and copies used up, run ends, copies booked, copies discarded)."""

_Place = tuple[Card | None, int, str | None]
"""A place in a group being built: (natural card, or None for a wild; rank; run suit)."""

_Runs = tuple[int, int, int, int, int, tuple[int, ...]]
"""Runs started at one cell: (how many, counts left, wilds, value taken, copies taken, ends)."""


class _Solver:
    def __init__(self, hand: list[Card], wild: int) -> None:
        self.wild = wild
        self.wilds = sorted(
            (card for card in hand if card.rank is None or card.rank == wild), key=_card_key
        )
        wild_count = len(self.wilds)
        naturals = sorted(
            (card for card in hand if card.rank is not None and card.rank != wild), key=_card_key
        )
        self.naturals = naturals
        self.natural_total = sum(card.rank or 0 for card in naturals)
        # Dead cards can never be in a group: too few of their rank for a book and too few
        # neighbours of their suit for a run, even with every wild. They are left over.
        live = Counter((_SUIT_INDEX[card.suit or ""], card.rank or 0) for card in naturals)
        changed = True
        while changed:
            changed = False
            per_rank = Counter[int]()
            for (_suit, rank), count in live.items():
                per_rank[rank] += count
            for suit, rank in list(live):
                if per_rank[rank] + wild_count >= 3:
                    continue
                if any(
                    sum((suit, q) in live for q in range(low, low + 3)) + wild_count >= 3
                    for low in range(max(3, rank - 2), min(rank, 11) + 1)
                ):
                    continue
                del live[(suit, rank)]
                changed = True
        self.dead = [
            card for card in naturals if (_SUIT_INDEX[card.suit or ""], card.rank) not in live
        ]
        # Cells: (suit, rank) holding live naturals, rank by rank, suit by suit. The grid of
        # free copies packs 3 bits a cell, 33 bits a suit.
        self.cells: list[tuple[int, int]] = sorted(live, key=lambda cell: (cell[1], cell[0]))
        self.count = len(self.cells)
        self.cell_rank = [rank for _suit, rank in self.cells]
        self.cell_suit = [suit for suit, _rank in self.cells]
        self.cell_shift = [_SUIT_BITS * suit + 3 * (rank - 3) for suit, rank in self.cells]
        self.last_of_rank = [
            p + 1 == self.count or self.cell_rank[p + 1] != rank
            for p, rank in enumerate(self.cell_rank)
        ]
        self.grid = sum(count << (_SUIT_BITS * s + 3 * (r - 3)) for (s, r), count in live.items())
        self.live_value = sum(rank * count for (_s, rank), count in live.items())
        self.live_count = sum(live.values())
        self.memo: dict[tuple[int, int, int, int, int], int] = {}
        self.run_memo: dict[tuple[int, int], list[_Runs]] = {}

    def _runs(self, p: int, counts: int) -> list[_Runs]:
        """Every way to start runs at cell p, best first: k runs for k = copies down to 0.

        counts: the free copies of the cell's suit.
        """
        key = (p, counts)
        found = self.run_memo.get(key)
        if found is not None:
            return found
        r = self.cell_rank[p]
        c = (counts >> (3 * (r - 3))) & 7
        rest = counts & ~(7 << (3 * (r - 3)))
        combos: list[_Runs] = []
        for k in range(c, 0, -1):
            for counts2, cost, gain, taken, ends in _run_combos(rest, r, k, len(self.wilds)):
                combos.append((k, counts2, cost, gain, taken, ends))
        combos.append((0, rest, 0, 0, 0, ()))
        self.run_memo[key] = combos
        return combos

    def _moves(self, p: int, grid: int, lb: int, wl: int, flag: int) -> list[_Move]:
        """The choices for the copies at cell p, in order of preference.

        Runs first (more runs, longer runs), then the discard, then books before leftovers.
        lb is the book of the cell's rank: 0 none yet, 1 to 3 its naturals (3 or more),
        or closed: a copy left over means no book (it would rather join the book).
        """
        r = self.cell_rank[p]
        c = (grid >> self.cell_shift[p]) & 7
        ss = _SUIT_BITS * self.cell_suit[p]
        base = grid & ~(_SUIT_MASK << ss)
        last = self.last_of_rank[p]
        moves: list[_Move] = []
        for k, counts2, cost, gain, taken, ends in self._runs(p, (grid >> ss) & _SUIT_MASK):
            if cost > wl:
                continue
            grid2 = base | (counts2 << ss)
            wl1 = wl - cost
            m = c - k
            gain1 = gain + k * r
            for nd in (0, 1) if flag and m else (0,):
                left = m - nd
                if not left or lb == _CLOSED:
                    shapes: tuple[tuple[int, int], ...] = ((0, lb),)
                elif lb:
                    shapes = ((left, min(3, lb + left)),)
                else:
                    shapes = ((left, min(3, left)), (0, _CLOSED))
                for nb, lb2 in shapes:
                    wl2 = wl1
                    if last:  # the rank's book is settled
                        wl2 -= _PAD[lb2]
                        if wl2 < 0:
                            continue
                        lb2 = 0
                    moves.append(
                        (
                            gain1 + (nb + nd) * r,
                            grid2,
                            lb2,
                            wl2,
                            flag - nd,
                            c * r + gain,
                            c + taken,
                            ends,
                            nb,
                            nd,
                        )
                    )
        return moves

    def best(self, p: int, grid: int, lb: int, wl: int, flag: int, rv: int, rc: int) -> int:
        """The most value the cells from p on can add: naturals grouped, or the discard.

        grid: free copies from cell p on; lb: the book of cell p's rank; wl: wilds not yet
        spent; flag: 1 while a natural must be discarded; rv, rc: value and number of the
        free copies.
        """
        n = self.count
        shifts = self.cell_shift
        last_of_rank = self.last_of_rank
        # Cells emptied by earlier runs only settle their rank's book.
        while True:
            if p == n:
                return _NEG if flag else 0
            if (grid >> shifts[p]) & 7:
                break
            if last_of_rank[p] and lb:
                wl -= _PAD[lb]
                if wl < 0:
                    return _NEG
                lb = 0
            p += 1
        if rc == 0:
            return 0 if not flag and wl >= _PAD[lb] else _NEG
        if wl >= _PAD[lb] + 2 * rc and lb != _CLOSED:
            return rv  # wilds enough to book every copy left with two of them
        key = (p, grid, lb, wl, flag)
        memo = self.memo
        found = memo.get(key)
        if found is not None:
            return found
        result = _NEG
        best = self.best
        nxt = p + 1
        for gain, grid2, lb2, wl2, flag2, used, placed, _e, _b, _d in self._moves(
            p, grid, lb, wl, flag
        ):
            value = best(nxt, grid2, lb2, wl2, flag2, rv - used, rc - placed)
            if value > _NEG and value + gain > result:
                result = value + gain
                if result >= rv:  # everything left is placed: nothing beats it
                    break
        memo[key] = result
        return result

    def plan(self, flag: int) -> _Plan:
        """Walk the memo table from the start, taking the first best move at every cell."""
        runs: list[tuple[str, int, int, set[int]]] = []
        books: dict[int, list[str]] = {}
        leftover: list[Card] = list(self.dead)
        discard: Card | None = None
        n = self.count
        p = 0
        grid = self.grid
        lb = 0
        wl = len(self.wilds)
        rv = self.live_value
        rc = self.live_count
        while True:
            while p < n and not (grid >> self.cell_shift[p]) & 7:
                if self.last_of_rank[p]:
                    wl -= _PAD[lb]
                    lb = 0
                p += 1
            if p == n:
                return _Plan(runs, books, leftover, discard)
            target = self.best(p, grid, lb, wl, flag, rv, rc)
            for move in self._moves(p, grid, lb, wl, flag):
                gain, grid2, lb2, wl2, flag2, used, placed, ends, nb, nd = move
                value = self.best(p + 1, grid2, lb2, wl2, flag2, rv - used, rc - placed)
                if value > _NEG and value + gain == target:
                    break
            else:  # pragma: no cover - the memo table always holds a way through
                raise AssertionError("the solver's memo table lost its way")
            si, r = self.cells[p]
            suit = _SUIT_ORDER[si]
            free = (grid >> (_SUIT_BITS * si)) & _SUIT_MASK
            copies = (free >> (3 * (r - 3))) & 7
            for end in ends:
                ranks = {r}
                for q in range(r + 1, end + 1):
                    if (free >> (3 * (q - 3))) & 7:
                        free -= 1 << (3 * (q - 3))
                        ranks.add(q)
                runs.append((suit, r, end, ranks))
            if nb:
                books.setdefault(r, []).extend([suit] * nb)
            if nd:
                discard = Card(r, suit)
            leftover.extend([Card(r, suit)] * (copies - len(ends) - nb - nd))
            p, grid, lb, wl, flag, rv, rc = (
                p + 1,
                grid2,
                lb2,
                wl2,
                flag2,
                rv - used,
                rc - placed,
            )

    def solve(self, discard: bool) -> Solution:
        wilds = self.wilds
        wild_cost = sum(card_points(card, wild_rank=self.wild) for card in wilds)
        total = self.natural_total
        n = self.count
        args = (0, self.grid, 0, len(wilds))
        live = (self.live_value, self.live_count)
        if not discard:
            if n and self.best(*args, 0, *live) > 0:
                return self._build(self.plan(0), wilds)
            return self._nothing_fits(self.naturals, wilds, None)
        # Discard a natural card: the highest dead card, or a live one the search picks ...
        nat_points: int | None = None
        nat_plan: _Plan | None = None
        if self.naturals:
            top = self.naturals[-1].rank or 0  # the highest natural
            take = self.best(*args, 1, *live) if n else _NEG
            dead = _NEG
            if self.dead:  # the highest dead card is the best dead card to discard
                dead = (self.dead[-1].rank or 0) + (self.best(*args, 0, *live) if n else 0)
            if max(dead, take) > top:  # some natural card fits in a group
                nat_points = total - max(dead, take)
                if dead >= take:
                    nat_plan = self.plan(0)
                    nat_plan.leftover.remove(self.dead[-1])
                    nat_plan.discard = self.dead[-1]
                else:
                    nat_plan = self.plan(1)
            else:
                nat_points = total - top + (0 if len(wilds) >= 3 else wild_cost)
        # ... or discard a wild: better only when no natural card fits anywhere.
        wild_points: int | None = None
        if wilds:
            spare = wilds[:-1]  # the costliest wild (a joker if any) goes
            spare_cost = sum(card_points(card, wild_rank=self.wild) for card in spare)
            wild_points = total + (0 if len(spare) >= 3 else spare_cost)
        if nat_points is not None and (wild_points is None or nat_points <= wild_points):
            if nat_plan is not None:
                return self._build(nat_plan, wilds)
            naturals = list(self.naturals)
            out = naturals.pop()
            return self._nothing_fits(naturals, wilds, out)
        return self._nothing_fits(self.naturals, wilds[:-1], wilds[-1])

    # --- turning decisions into groups -------------------------------------------------

    def _nothing_fits(self, naturals: list[Card], wilds: list[Card], out: Card | None) -> Solution:
        groups: list[Group] = []
        leftover = list(naturals)
        if len(wilds) >= 3:
            groups.append(self._wild_group(wilds))
        else:
            leftover.extend(wilds)
        return self._result(groups, leftover, out)

    def _wild_group(self, wilds: list[Card]) -> Group:
        """A book made of wilds only, of the wild rank: wild-rank cards count as themselves."""
        code = RANK_CODES[self.wild]
        return Group(
            "book",
            [card.code for card in wilds],
            [None if card.rank == self.wild else code for card in wilds],
        )

    def _result(self, groups: list[Group], leftover: list[Card], out: Card | None) -> Solution:
        leftover = sorted(leftover, key=_card_key)
        return Solution(
            points=sum(card_points(card, wild_rank=self.wild) for card in leftover),
            groups=groups,
            leftover=[card.code for card in leftover],
            discard=out.code if out is not None else None,
        )

    def _build(self, plan: _Plan, wilds: list[Card]) -> Solution:
        # A draft group is its kind and its places: (card or None for a wild, rank, suit).
        # A book place has no suit; a run place names the card it stands for. A wild-rank
        # card whose own place is in a run (a gap, or a chosen end) will play as itself.
        own = Counter(card for card in wilds if card.rank == self.wild)
        books: list[list[_Place]] = []
        for rank in sorted(plan.books):
            suits = sorted(plan.books[rank], key=_SUIT_INDEX.__getitem__)
            places: list[_Place] = [(Card(rank, suit), rank, None) for suit in suits]
            books.append(places + [(None, rank, None)] * _PAD[min(3, len(suits))])
        runs: list[list[_Place]] = []
        for suit, low, high, ranks in sorted(
            plan.runs, key=lambda run: (_SUIT_INDEX[run[0]], run[1], run[2])
        ):
            places = [
                (Card(q, suit) if q in ranks else None, q, suit) for q in range(low, high + 1)
            ]
            own[Card(self.wild, suit)] -= low < self.wild < high
            while len(places) < 3:
                _grow(places, own, self.wild)
            runs.append(places)
        extra = len(wilds) - sum(
            card is None for places in books + runs for card, _rank, _suit in places
        )
        spare: list[list[_Place]] = []
        if extra >= 3:  # spare wilds make a book of the wild rank
            spare.append([(None, self.wild, None)] * extra)
        elif extra:
            for places in runs:  # a spare wild-rank card lengthens a run as itself
                while extra and _grow(places, own, self.wild, only_own=True):
                    extra -= 1
            if extra and books:
                books[0] += [(None, books[0][0][1], None)] * extra
            elif extra:
                _lengthen(runs, extra, own, self.wild)
        drafts: list[tuple[GroupKind, list[_Place]]] = [("book", places) for places in books]
        drafts += [("run", places) for places in runs]
        drafts += [("book", places) for places in spare]
        return self._result(self._deal_wilds(drafts, wilds), plan.leftover, plan.discard)

    def _deal_wilds(
        self, drafts: list[tuple[GroupKind, list[_Place]]], wilds: list[Card]
    ) -> list[Group]:
        """Put the wild cards in the holes: a wild-rank card goes to its own place first."""
        free = list(wilds)
        dealt: dict[tuple[int, int], Card] = {}
        for phase in ("run", "book"):
            for g, (kind, places) in enumerate(drafts):
                if kind != phase:
                    continue
                for i, (card, rank, suit) in enumerate(places):
                    if card is None:
                        own = Card(rank, suit) if kind == "run" else None
                        for w in free:
                            if w.rank == rank and (own is None or w == own):
                                dealt[(g, i)] = w
                                free.remove(w)
                                break
        groups: list[Group] = []
        for g, (kind, places) in enumerate(drafts):
            codes: list[str] = []
            stands: list[str | None] = []
            for i, (card, rank, suit) in enumerate(places):
                if card is not None:
                    codes.append(card.code)
                    stands.append(None)
                    continue
                held = dealt.get((g, i))
                w = held if held is not None else free.pop(0)
                codes.append(w.code)
                if w.rank == rank and (suit is None or w.suit == suit):
                    stands.append(None)
                else:
                    stands.append(Card(rank, suit).code)
            groups.append(Group(kind, codes, stands))
        return groups


def _grow(places: list[_Place], own: Counter[Card], wild: int, *, only_own: bool = False) -> bool:
    """Add a wild's place to a run: where a wild-rank card would be itself, else up, else down."""
    low, high, suit = places[0][1], places[-1][1], places[0][2]
    if len(places) >= 11:
        return False
    mine = Card(wild, suit)
    if high + 1 == wild and own[mine] > 0:
        places.append((None, wild, suit))
    elif low - 1 == wild and own[mine] > 0:
        places.insert(0, (None, wild, suit))
    elif only_own:
        return False
    elif high < 13:
        places.append((None, high + 1, suit))
        return True
    else:
        places.insert(0, (None, low - 1, suit))
        return True
    own[mine] -= 1
    return True


def _lengthen(runs: list[list[_Place]], extra: int, own: Counter[Card], wild: int) -> None:
    """Find room in the runs for one or two spare wilds (there is no book to take them)."""
    for _turn in range(extra):
        if not any(_grow(places, own, wild) for places in runs):
            # Every run is 3 to King: split one in two and lengthen the upper part down.
            runs.append(runs[0][3:])
            runs[0] = runs[0][:3]
            _grow(runs[-1], own, wild)


def _run_combos(
    counts: int, r: int, k: int, wl: int, top: int = 13
) -> Iterator[tuple[int, int, int, int, tuple[int, ...]]]:
    """Ways for k runs to start at rank r: (counts left, wilds, value and copies taken, ends).

    Each run takes one free copy of every rank it spans above r and ends on a natural
    (a run of two naturals gets one more wild to make three). Ends never increase from one
    run to the next (``top`` is the highest end allowed), so each set of runs comes once,
    longest first, and the longer run takes the free copies first.
    """
    if k == 0:
        yield counts, 0, 0, 0, ()
        return
    # A run of one natural and two wilds is never needed: its rank's book takes the card
    # for at most the same two wilds.
    ends: list[tuple[int, int, int, int, int]] = []
    naturals = 0
    gain = 0
    left = counts
    for q in range(r + 1, top + 1):
        sh = 3 * (q - 3)
        if (left >> sh) & 7:
            left -= 1 << sh
            naturals += 1
            gain += q
            length = q - r + 1
            cost = (length if length > 3 else 3) - 1 - naturals
            if cost > wl:
                if length >= 3:
                    break  # longer runs only need more wilds
                continue
            ends.append((q, left, cost, gain, naturals))
    for end, after, cost, value, taken in reversed(ends):
        for counts2, cost2, value2, taken2, more in _run_combos(after, r, k - 1, wl - cost, end):
            yield counts2, cost + cost2, value + value2, taken + taken2, (end, *more)
