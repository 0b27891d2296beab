"""HTML forms as data: what a player typed and tapped, kept whole across errors."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..games import GameState, RoundState, SeatEntry
from ..i18n import fill, ngettext
from ..i18n import gettext as _
from ..rules.cards import (
    MAX_PLAYERS,
    CardError,
    Decks,
    card_points,
    parse_card,
)
from ..rules.schedule import ROUND_COUNT, ROUND_ORDERS, RoundOrder, cards_dealt
from ..rules.scoring import SeatResult
from ..rules.solver import MAX_HAND, Solution, solve
from .card_faces import CardFace, card_face

MAX_FORM_CARDS = 20
_WHOLE_NUMBER = re.compile(r"-?[0-9]{1,9}")


@dataclass
class SeatForm:
    """One player's part of the round form."""

    cards: list[str] = field(default_factory=list)
    typed: str = ""
    # Ticked "Laid everything down: 0": no cards left on purpose, not forgotten.
    zero: bool = False
    # The cards were kept as tapped, though they hold a group (or a wild after laying down).
    confirmed: bool = False
    error: str = ""


@dataclass
class RoundForm:
    """The round entry form: who went out, each seat's cards or typed points, and errors."""

    number: int
    seats: list[SeatForm]
    went_out: int | None = None
    version: int | None = None
    errors: list[str] = field(default_factory=list)
    # Saving met a newer game (409): the page compares both rounds and asks which to keep.
    conflict: bool = False
    # The version "Replace it with mine" was offered against; only that button sends it.
    replace_version: int | None = None
    version_unreadable: bool = False
    players_in: tuple[int, ...] | None = None
    """The seats in this round (None: everyone); the others get no result."""
    to_confirm: set[int] = field(default_factory=set)
    """Seats whose tapped cards the rules asked about: a button confirms they were kept."""

    @classmethod
    def blank(cls, state: GameState, round_state: RoundState) -> RoundForm:
        """An empty form, or the saved round's entries ready to correct."""
        if round_state.entries is None:
            seats = [SeatForm() for _ in state.players]
            return cls(
                number=round_state.number,
                seats=seats,
                version=state.version,
                players_in=round_state.players_in,
            )
        return cls(
            number=round_state.number,
            seats=[_seat_from_entry(entry) for entry in round_state.entries],
            went_out=round_state.went_out,
            version=state.version,
            players_in=round_state.players_in,
        )

    @classmethod
    def parse(
        cls,
        number: int,
        fields: Mapping[str, str],
        seat_count: int,
        players_in: tuple[int, ...] | None = None,
    ) -> RoundForm:
        """Read the posted form; anything unreadable becomes a message, never an exception."""
        seats = []
        for seat in range(seat_count):
            codes = [c for c in fields.get(f"cards_{seat}", "").split(",") if c.strip()]
            typed = fields.get(f"points_{seat}", "").strip()
            zero = bool(fields.get(f"zero_{seat}"))
            # Confirmed before (kept in the form), or just now by the seat's button.
            confirmed = bool(fields.get(f"confirmed_{seat}")) or fields.get("confirm") == str(seat)
            seats.append(
                SeatForm(cards=codes[:MAX_FORM_CARDS], typed=typed, zero=zero, confirmed=confirmed)
            )
        form = cls(number=number, seats=seats, players_in=players_in)
        form.went_out = _seat_index(fields.get("went_out", ""), seat_count)
        form.version, form.replace_version, form.version_unreadable = posted_versions(fields)
        return form

    @property
    def based_on(self) -> int | None:
        """The version the save is based on: only "Replace it with mine" may save over a
        round changed since this form was filled, and only the version it names."""
        return self.replace_version if self.replace_version is not None else self.version

    def apply_tap(self, fields: Mapping[str, str]) -> bool:
        """Add or remove one card as a tap without JavaScript asks; True if it was a tap
        (or a plain refresh: Enter in a number field must not save or add a card)."""
        if fields.get("refresh"):
            return True
        add, remove = fields.get("add", ""), fields.get("remove", "")
        if add:
            seat_text, _, code = add.partition(":")
            seat = _seat_index(seat_text, len(self.seats))
            if seat is not None and len(self.seats[seat].cards) < MAX_FORM_CARDS:
                self.seats[seat].cards.append(code)
                self.seats[seat].confirmed = False  # other cards: asked about afresh
            return True
        if remove:
            seat_text, _, index_text = remove.partition(":")
            seat = _seat_index(seat_text, len(self.seats))
            index = _int_or_none(index_text)
            if seat is not None and index is not None and 0 <= index < len(self.seats[seat].cards):
                del self.seats[seat].cards[index]
                self.seats[seat].confirmed = False
            return True
        return False

    def plays(self, seat: int) -> bool:
        return self.players_in is None or seat in self.players_in

    def results(self, names: Sequence[str]) -> list[SeatResult | None] | None:
        """The seats' results for the rules (None for a seat not in the round), or None
        after noting each unreadable entry and each seat left empty without saying so (a
        forgotten player is not a 0)."""
        if self.version_unreadable:
            self.errors.append(
                _(
                    "This page's copy of the game could not be read, so nothing was saved. "
                    "Check the sheet, then save again: your entries are kept."
                )
            )
            return None
        results: list[SeatResult | None] = []
        for seat, entry in enumerate(self.seats):
            if not self.plays(seat):
                results.append(None)
            elif seat == self.went_out:
                results.append(SeatResult(went_out=True))
            elif not (entry.typed or entry.cards or entry.zero) and self.went_out is not None:
                name = names[seat]
                entry.error = fill(
                    _("Did %(name)s go out too? Tap Went out or add %(name)s's cards."), name=name
                )
            elif entry.typed:
                points = _int_or_none(entry.typed)
                if points is None:
                    entry.error = fill(
                        _("%(typed)s is not a number of points."), typed=repr(entry.typed[:10])
                    )
                results.append(SeatResult(points=points))
            else:
                try:
                    cards = tuple(parse_card(c) for c in entry.cards)
                    results.append(SeatResult(cards=cards, confirmed=entry.confirmed))
                except CardError as error:
                    entry.error = str(error)
        if any(entry.error for entry in self.seats):
            return None
        return results

    def seat_points(self, seat: int, wild_rank: int) -> int | None:
        """What the seat's tapped cards cost now, for the running total beside the name."""
        entry = self.seats[seat]
        if seat == self.went_out:
            return 0
        if entry.typed:
            return _int_or_none(entry.typed)
        try:
            return sum(card_points(parse_card(c), wild_rank=wild_rank) for c in entry.cards)
        except CardError:
            return None


@dataclass
class NewGameForm:
    """The new game form: a game or solitaire, names in seat order, who deals first, and
    the order of the rounds."""

    names: list[str]
    first_dealer: int = 0
    error: str = ""
    # Set when parsing: a first dealer that is no seat, or names past the most players.
    problem: str = ""
    mode: str = "game"
    order: RoundOrder = "up"

    @classmethod
    def blank(cls) -> NewGameForm:
        return cls(names=["", "", "", ""])

    @classmethod
    def parse(cls, fields: Mapping[str, str]) -> NewGameForm:
        numbered = sorted(
            int(key[5:]) for key in fields if key.startswith("name_") and key[5:].isdigit()
        )
        names = [fields[f"name_{i}"] for i in numbered if i < MAX_PLAYERS]
        form = cls(names=[n[:60] for n in names])
        if numbered and numbered[-1] >= MAX_PLAYERS:
            extra = sum(bool(fields[f"name_{i}"].strip()) for i in numbered if i >= MAX_PLAYERS)
            if extra:
                form.problem = fill(
                    _(
                        "A game has at most %(most)s players; %(extra)s more name(s) were "
                        "sent and left out."
                    ),
                    most=MAX_PLAYERS,
                    extra=extra,
                )
        first = _int_or_none(fields.get("first_dealer", "0"))
        if first is None or not 0 <= first < max(len(form.names), 1):
            form.problem = form.problem or _("Choose the first dealer from the players listed.")
        else:
            form.first_dealer = first
        form.mode = "solitaire" if fields.get("mode") == "solitaire" else "game"
        form.order = next((o for o in ROUND_ORDERS if o == fields.get("order")), "up")
        return form

    def apply_action(self, fields: Mapping[str, str]) -> bool:
        """Add, remove or move a seat, as the button pressed asks; True if it was one."""
        action = fields.get("action", "")
        verb, _, index_text = action.partition(":")
        index = _int_or_none(index_text)
        if verb == "add":
            if len(self.names) < MAX_PLAYERS:
                self.names.append("")
            return True
        if index is None or not 0 <= index < len(self.names):
            return False
        if verb == "remove" and len(self.names) > 1:
            del self.names[index]
            if self.first_dealer == index:
                self.first_dealer = 0
            elif self.first_dealer > index:
                self.first_dealer -= 1
        elif verb in ("up", "down"):
            other = index - 1 if verb == "up" else index + 1
            if 0 <= other < len(self.names):
                self.names[index], self.names[other] = self.names[other], self.names[index]
                # The chosen first dealer moves with their name.
                if self.first_dealer in (index, other):
                    self.first_dealer = other if self.first_dealer == index else index
        else:
            return False
        return True

    def players(self) -> tuple[list[str], int]:
        """The filled-in names and the first dealer's index among them (solitaire: the first
        seat's name alone, the only one the form shows for it)."""
        if self.mode == "solitaire":
            return ([self.names[0]] if self.names and self.names[0].strip() else []), 0
        filled = [(i, name) for i, name in enumerate(self.names) if name.strip()]
        first = next((n for n, (i, _) in enumerate(filled) if i == self.first_dealer), 0)
        return [name for _, name in filled], first


@dataclass
class JoinForm:
    """A player sitting down mid-game: name, where they sit, and what they start with."""

    name: str = ""
    seat: int | None = None
    start_choice: str = "zero"
    start_points: str = ""
    error: str = ""

    @classmethod
    def parse(cls, fields: Mapping[str, str]) -> JoinForm:
        form = cls(
            name=fields.get("name", "")[:60],
            start_choice=fields.get("start", "zero"),
            start_points=fields.get("start_points", "").strip()[:6],
        )
        seat_text = fields.get("seat", "").strip()
        if seat_text not in ("", "last"):
            form.seat = _int_or_none(seat_text)
            if form.seat is None:
                form.error = _("Choose where the new player sits.")
        if form.start_choice == "points" and _int_or_none(form.start_points) is None:
            form.error = _("Type the points the new player starts with, or choose another start.")
        return form

    def start(self) -> str | int:
        """What the service takes: zero, highest, average or a number of points."""
        if self.start_choice == "points":
            return _int_or_none(self.start_points) or 0
        return self.start_choice


def posted_versions(fields: Mapping[str, str]) -> tuple[int | None, int | None, bool]:
    """The version a posted form was filled on, the one its "Replace it with mine" names,
    and whether either was sent unreadable (the stale check cannot run: refused, never
    skipped)."""
    version_text = fields.get("version", "").strip()
    version = _int_or_none(version_text)
    replace_version = _int_or_none(fields.get("replace", ""))
    unreadable = (bool(version_text) and version is None) or (
        "replace" in fields and replace_version is None
    )
    return version, replace_version, unreadable


def _seat_from_entry(entry: SeatEntry | None) -> SeatForm:
    if entry is None:
        return SeatForm()
    if entry.cards is not None:
        # Saved cards stood as kept once: a correction does not ask about them again.
        cards = [card.code for card in entry.cards]
        return SeatForm(cards=cards, zero=not entry.cards, confirmed=bool(cards))
    if entry.went_out:
        return SeatForm()
    return SeatForm(typed=str(entry.points))


def _int_or_none(text: str) -> int | None:
    text = text.strip()
    return int(text) if _WHOLE_NUMBER.fullmatch(text) else None


def _seat_index(text: str, seat_count: int) -> int | None:
    value = _int_or_none(text)
    return value if value is not None and 0 <= value < seat_count else None


@dataclass
class HandForm:
    """The hand checker's form: the round's cards dealt, the cards tapped, and whether to
    find a discard."""

    cards_dealt: int = 3
    cards: list[str] = field(default_factory=list)
    discard: bool = False
    games: int = 1
    error: str = ""

    @classmethod
    def parse(cls, fields: Mapping[str, str]) -> HandForm:
        """Read the query string; a bad value becomes a message, never an exception. The
        round is given by its cards dealt (any order of rounds), or by its number in the
        rulebook's order."""
        form = cls()
        if "cards_dealt" in fields:
            dealt = _int_or_none(fields.get("cards_dealt", ""))
            if dealt is None or not 3 <= dealt <= 13:
                form.error = _("Choose how many cards were dealt: 3 to 13.")
            else:
                form.cards_dealt = dealt
        else:
            number = _int_or_none(fields.get("round", "1"))
            if number is None or not 1 <= number <= ROUND_COUNT:
                form.error = fill(_("Choose a round from 1 to %(last)s."), last=ROUND_COUNT)
            else:
                form.cards_dealt = cards_dealt(number)
        form.cards = [c.strip().upper() for c in fields.get("cards", "").split(",") if c.strip()]
        form.discard = fields.get("discard", "") in ("1", "on", "true")
        form.games = 2 if fields.get("games") == "2" else 1
        add, remove = fields.get("add", "").strip().upper(), _int_or_none(fields.get("remove", ""))
        if add and len(form.cards) < MAX_HAND:
            form.cards.append(add)
        if remove is not None and 0 <= remove < len(form.cards):
            del form.cards[remove]
        form.cards = form.cards[: MAX_HAND + 1]
        return form

    @property
    def wild_rank(self) -> int:
        """The wild rank always matches the cards dealt."""
        return self.cards_dealt

    @property
    def wanted(self) -> int:
        """How many cards the hand holds: the cards dealt, one more just after drawing."""
        return self.cards_dealt + 1 if self.discard else self.cards_dealt

    @property
    def cards_to_tap(self) -> str:
        """What to tap, in a player's words."""
        if self.discard:
            return fill(
                _(
                    "Tap the %(wanted)s cards in the hand: the %(dealt)s dealt and the one "
                    "just drawn."
                ),
                wanted=self.wanted,
                dealt=self.cards_dealt,
            )
        return fill(_("Tap the %(wanted)s cards in the hand."), wanted=self.wanted)

    @property
    def still_to_tap(self) -> str:
        """ "" once the hand holds the right number of cards; else how many to tap."""
        missing = self.wanted - len(self.cards)
        if missing <= 0:
            return ""
        return ngettext(
            "Tap %(num)s more card: the hand holds %(wanted)s.",
            "Tap %(num)s more cards: the hand holds %(wanted)s.",
            missing,
        ) % {"num": missing, "wanted": self.wanted}

    def count_error(self) -> str:
        """Too many cards for this round, in a player's words ("" otherwise)."""
        extra = len(self.cards) - self.wanted
        if extra <= 0:
            return ""
        if self.discard:
            message = _(
                "%(count)s cards is too many: %(dealt)s were dealt, and one was drawn. "
                "Remove %(extra)s."
            )
        else:
            message = _("%(count)s cards is too many: %(dealt)s were dealt. Remove %(extra)s.")
        return fill(message, count=len(self.cards), dealt=self.cards_dealt, extra=extra)

    def check(self, wild_rank: int, decks: Decks) -> tuple[list[CardFace], Solution | None]:
        """The tapped cards' faces and, once the hand holds the right count, its best layout;
        any problem is kept in self.error."""
        faces = self.faces()
        if not self.error:
            self.error = self.count_error()
        if not faces or self.error or self.still_to_tap:
            return faces or [], None
        try:
            return faces, solve(self.cards, wild_rank, self.discard, decks=decks)
        except ValueError as error:
            self.error = str(error)
            return faces, None

    def faces(self) -> list[CardFace] | None:
        """The tapped cards' faces, or None (with a message) when a code is not a card."""
        try:
            for code in self.cards:
                parse_card(code, suit_required=True)
            return [card_face(code) for code in self.cards]
        except CardError as error:
            self.error = str(error)
            return None
