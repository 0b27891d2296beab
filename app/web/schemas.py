"""The JSON API's shapes: what a request may send (strict: 5 is points, "5" is not) and
what a game or a table looks like in an answer."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from ..games import GameState
from ..i18n import gettext as _
from ..names import check_encodable
from ..rules.schedule import RoundOrder
from ..tables import PersonView, Season, TableState

# Text as sent, refused (422) when it holds lone surrogates that no reply could echo back.
Text = Annotated[str, AfterValidator(check_encodable)]


# Types as they are written: 5 is points, "5" and 5.0 are not; true is a boolean, 1 is not.
STRICT = ConfigDict(extra="forbid", strict=True)


class GameCreate(BaseModel):
    """A new game: names in clockwise seat order (one name: solitaire), who deals first,
    and the order of the rounds."""

    model_config = STRICT
    players: list[Text] = Field(min_length=1, max_length=50)
    first_dealer: int = 0
    table: str | None = Field(
        default=None, max_length=64, description="A table's code: the players become its people"
    )
    order: RoundOrder = Field(
        default="up",
        description='"up": 3 cards first (the rulebook); house rules: "down" (13 cards, '
        'Kings wild, first) or "shuffled" (a random order fixed when the game starts)',
    )


class SeatResultIn(BaseModel):
    """One seat's result: went out, the cards left in hand, or the points counted already."""

    model_config = STRICT
    went_out: bool = False
    cards: list[Text] | None = Field(default=None, max_length=60)
    points: int | None = None
    confirmed: bool = Field(
        default=False,
        description="With cards: they were kept as sent, though they hold a book or a run, "
        "or a wild kept after laying down (without it, such cards get 422 and a question)",
    )

    @model_validator(mode="after")
    def one_kind(self) -> SeatResultIn:
        given = sum([self.went_out, self.cards is not None, self.points is not None])
        if given > 1:
            raise ValueError(_("give one of went_out, cards or points for each player"))
        if self.confirmed and self.cards is None:
            raise ValueError(_("confirmed goes with cards: the cards a player kept"))

        return self


class RoundSave(BaseModel):
    """Every seat's result for one round, in seat order (null for a seat not in the round;
    solitaire: one result, the pile); version guards against overwrites."""

    model_config = STRICT
    results: list[SeatResultIn | None] = Field(max_length=50)
    version: int | None = None


class PlayerJoin(BaseModel):
    """A player sitting down mid-game: at clockwise position seat (default: last), starting
    with zero, the highest total so far, the rounded average, or a number of points."""

    model_config = STRICT
    name: Text = Field(max_length=200)
    seat: int | None = None
    start: Literal["zero", "highest", "average"] | int = "zero"


class HandCheck(BaseModel):
    """A hand to lay out: card codes with suits, the round's wild rank, and whether the
    hand is the one after drawing (one card then goes to the discard pile)."""

    model_config = STRICT
    cards: list[Text] = Field(max_length=60)
    wild_rank: Text | int | None = Field(
        default=None, description="The wild rank; with cards_dealt it may be left out"
    )
    cards_dealt: int | None = Field(
        default=None,
        ge=3,
        le=13,
        description="The round's cards dealt: the hand then holds exactly that many cards, "
        "or one more with discard",
    )
    discard: bool = False
    games: int = Field(
        default=1, ge=1, le=2, description="2 for two games combined (8 to 14 players)"
    )


class Group(BaseModel):
    kind: Literal["book", "run"]
    cards: list[str]
    stands_for: list[str | None]


class RoundPublic(BaseModel):
    number: int
    kind: Literal["round", "tiebreak"] = Field(
        description='"round" for the eleven rounds (or piles), "tiebreak" for a tie-break'
    )
    cards_dealt: int
    wild_rank: str
    dealer: int
    first_player: int
    players_in: list[int] = Field(description="The seats that play this round")
    went_out: int | None
    scores: list[int | None] | None = Field(description="Per seat; null for a seat not in it")
    cards: list[list[str] | None] | None = Field(
        description="Per seat, the cards entered on the picker (null: typed, went out or not "
        "in the round); in solitaire, the whole pile"
    )
    groups: list[Group] | None = Field(
        default=None, description="Solitaire: the pile's best books and runs"
    )
    leftover: list[str] | None = Field(
        default=None, description="Solitaire: the pile's cards left over, which score"
    )


class SeatPublic(BaseModel):
    name: str
    start_points: int = Field(description="Points a player who joined mid-game started with")
    joined_round: int | None = Field(description="The first round played, if joined mid-game")
    left_round: int | None = Field(description="The first round no longer played, if left")


class GamePublic(BaseModel):
    code: str = Field(description="The code this game was asked for with")
    can_edit: bool = Field(description="True for the scorekeeper's code, false for a watch code")
    watch_code: str | None = Field(
        default=None, description="The read-only code (only in the scorekeeper's answers)"
    )
    mode: Literal["game", "solitaire"]
    order: RoundOrder
    players: list[str]
    seats: list[SeatPublic]
    first_dealer: int
    rounds: list[RoundPublic]
    totals: list[int]
    current_round: int | None
    leaders: list[int]
    finished: bool
    winners: list[int]
    won: bool | None = Field(
        description="Solitaire, once every pile is saved: true if every pile closed"
    )
    can_tiebreak: bool = Field(
        description="The game is over and the lowest total is shared: a tie-break may be played"
    )
    version: int


def game_public(state: GameState) -> dict[str, Any]:
    """The API's view of a game."""
    current = state.current_round
    rounds = [
        RoundPublic(
            number=r.number,
            kind=r.kind,
            cards_dealt=r.cards_dealt,
            wild_rank=r.wild_rank_code,
            dealer=r.dealer,
            first_player=r.first_player,
            players_in=list(r.players_in),
            went_out=r.went_out,
            scores=r.scores,
            cards=None
            if r.entries is None
            else [
                None if e is None or e.cards is None else [c.code for c in e.cards]
                for e in r.entries
            ],
            groups=None if r.layout is None else r.layout["groups"],
            leftover=None if r.layout is None else r.layout["leftover"],
        )
        for r in state.rounds
    ]
    return GamePublic(
        code=state.code,
        can_edit=state.can_edit,
        watch_code=state.watch_code if state.can_edit else None,
        mode=state.mode,
        order=state.order,
        players=list(state.players),
        seats=[
            SeatPublic(
                name=seat.name,
                start_points=seat.start_points,
                joined_round=seat.joined_round,
                left_round=seat.left_round,
            )
            for seat in state.seats
        ],
        first_dealer=state.first_dealer,
        rounds=rounds,
        totals=state.totals,
        current_round=None if current is None else current.number,
        leaders=state.leaders,
        finished=state.finished,
        winners=state.winners,
        won=state.won,
        can_tiebreak=state.can_tiebreak and state.can_edit,
        version=state.version,
    ).model_dump(exclude=None if state.can_edit else {"watch_code"})


class TableCreate(BaseModel):
    """A new table: its name."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=200)


class PersonRename(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=200)


class TableSettings(BaseModel):
    """What a table may choose: the language of its pages ("de", "fr", "es", "nl", "en"), or
    null for each reader's browser to decide."""

    model_config = ConfigDict(extra="forbid")
    language: str | None = Field(max_length=35)


class PersonMerge(BaseModel):
    """Merge the person in the path into this one: their games and stats move over."""

    model_config = ConfigDict(extra="forbid")
    into: int


def table_public(state: TableState) -> dict[str, Any]:
    """The API's view of a table; the watch view carries no scorekeeper code at all."""
    answer: dict[str, Any] = {"code": state.code}
    if state.can_edit:
        answer["watch_code"] = state.watch_code
    answer.update(
        name=state.name,
        can_edit=state.can_edit,
        language=state.language,
        people=[
            {
                "id": person.id,
                "name": person.name,
                "stats": {
                    "games": person.stats.games,
                    "wins": person.stats.wins,
                    "win_rate": person.stats.win_rate,
                    "average_total": person.stats.average_total,
                    "best_total": person.stats.best_total,
                    "worst_total": person.stats.worst_total,
                    "rounds": person.stats.rounds,
                    "went_out": person.stats.went_out,
                    "went_out_rate": person.stats.went_out_rate,
                    "average_round": person.stats.average_round,
                    "zero_rounds": person.stats.zero_rounds,
                    "solitaire": {
                        "played": person.stats.solitaire.played,
                        "won": person.stats.solitaire.won,
                        "best_total": person.stats.solitaire.best_total,
                    },
                },
                "versus": {
                    str(other): {"games": h.games, "lower": h.lower, "higher": h.higher}
                    for other, h in person.versus.items()
                },
            }
            for person in state.people
        ],
        game_count=state.game_count,
        games=[
            {
                "code": game.code,
                "created_at": game.created_at.isoformat(),
                "players": [seat.name for seat in game.seats],
                "person_ids": [seat.person_id for seat in game.seats],
                "totals": [seat.total for seat in game.seats],
                "winners": game.winners,
                "finished": game.finished,
                "rounds_saved": game.rounds_saved,
                "round_count": game.round_count,
            }
            for game in state.games
        ],
    )
    if state.season is not None:
        add_season(answer, state.season)
    return answer


RECORDS = ("lowest_total", "highest_total", "highest_round", "most_went_out", "longest_win_streak")
# The first holders of a record listed in a table's answer (a record tied by thousands of
# games would otherwise swell it); `record_holders` says how many there are in all.
RECORD_HOLDERS_LISTED = 50


def person_public(state: TableState, person: PersonView) -> dict[str, Any]:
    """One person's answer: the table's code and name, the period, and the person as the
    table's answer shows them, with their whole head to head."""
    whole = table_public(replace(state, people=(person,), games=()))
    answer = {key: whole[key] for key in ("code", "name", "can_edit", "period", "years")}
    if "watch_code" in whole:
        answer["watch_code"] = whole["watch_code"]
    answer["person"] = whole["people"][0]
    return answer


def add_season(answer: dict[str, Any], season: Season) -> None:
    """What a season adds to a table's answer: each person's streaks and rating, the
    period, the years with finished games, and the records."""
    names = {entry["id"]: entry["name"] for entry in answer["people"]}
    for entry in answer["people"]:
        streak = season.streaks.get(entry["id"])
        rating = season.ratings.now.get(entry["id"])
        entry["stats"]["longest_win_streak"] = streak.longest if streak else 0
        entry["stats"]["current_win_streak"] = streak.current if streak else 0
        entry["rating"] = (
            None
            if rating is None
            else {
                "mu": rating.mu,
                "sigma": rating.sigma,
                "ordinal": rating.ordinal,
                "figure": rating.figure,
                "rated_games": rating.games,
                "new": rating.new,
            }
        )
    period = season.period
    answer.update(
        {
            "period": {
                "label": period.label,
                "year": period.year,
                "from": period.start.isoformat() if period.start else None,
                "to": period.end.isoformat() if period.end else None,
            },
            "years": season.years,
            "season_game_count": len(season.games),
            "records": {
                name: [
                    {
                        "person": {"id": holder.person, "name": names.get(holder.person, "?")},
                        "figure": holder.figure,
                        "watch_code": holder.watch_code,
                        "date": holder.finished_at.date().isoformat(),
                        **({"round": holder.round} if name == "highest_round" else {}),
                    }
                    for holder in getattr(season.records, name)[:RECORD_HOLDERS_LISTED]
                ]
                for name in RECORDS
            },
            "record_holders": {name: len(getattr(season.records, name)) for name in RECORDS},
        }
    )
