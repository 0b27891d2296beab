"""A table's stats: what each game leaves for each player, and the sums over many games."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..i18n import fill
from ..i18n import gettext as _
from .standings import ranking


@dataclass(frozen=True, slots=True)
class SeatOutcome:
    """What one game leaves for one seat."""

    total: int
    rounds: int
    went_out: int
    zero_rounds: int
    full_game: bool
    won: bool


def game_outcomes(
    round_scores: Sequence[Sequence[int | None] | None],
    went_out: Sequence[int | None],
    *,
    seat_count: int,
    winners: Sequence[int],
    start_points: Sequence[int] | None = None,
) -> list[SeatOutcome]:
    """Each seat's outcome from a game's ordinary rounds (None: not played; a None seat in a
    round: that player was not in it) and who went out in each; tie-break rounds are left
    to the caller's winners. A total starts from the seat's start points (a player who
    joined mid-game); a full game is one where the seat played every planned round."""
    played = [scores for scores in round_scores if scores is not None]
    all_played = bool(round_scores) and len(played) == len(round_scores)
    starts = list(start_points or [0] * seat_count)
    outcomes = []
    for seat in range(seat_count):
        points = [scores[seat] for scores in played if scores[seat] is not None]
        outcomes.append(
            SeatOutcome(
                total=starts[seat] + sum(p for p in points if p is not None),
                rounds=len(points),
                went_out=sum(1 for out in went_out if out == seat),
                zero_rounds=sum(1 for p in points if p == 0),
                full_game=all_played and len(points) == len(round_scores),
                won=seat in winners,
            )
        )
    return outcomes


@dataclass(frozen=True, slots=True)
class PersonGameLine:
    """One person's finished game, as the stats read it."""

    game: int
    person: int
    total: int
    rounds: int
    went_out: int
    zero_rounds: int
    full_game: bool
    won: bool
    solitaire: bool = False
    start_points: int = 0
    """What the person started with, having sat down mid-game: in the total, but scored in
    no round."""
    seated: bool = True
    """Still at the table when the game ended (False: left during it)."""


@dataclass(frozen=True, slots=True)
class SolitaireStats:
    """Games played alone: how many, how many won, the best (lowest) total."""

    played: int = 0
    won: int = 0
    best_total: int | None = None


@dataclass(frozen=True, slots=True)
class PersonStats:
    """One person's numbers over a table's finished games (rates and averages exact)."""

    games: int = 0
    wins: int = 0
    win_rate: float | None = None
    average_total: float | None = None
    best_total: int | None = None
    worst_total: int | None = None
    rounds: int = 0
    went_out: int = 0
    went_out_rate: float | None = None
    average_round: float | None = None
    zero_rounds: int = 0
    solitaire: SolitaireStats = field(default_factory=SolitaireStats)


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """Games two people played together; `lower`: times this person finished with fewer
    points than the other, `higher`: times the other did."""

    games: int = 0
    lower: int = 0
    higher: int = 0


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


@dataclass(frozen=True, slots=True)
class PersonTotals:
    """Sums over one person's finished games: what the stats are computed from (the
    database adds these up with SQL; totals_of is the same sum in Python)."""

    games: int = 0
    wins: int = 0
    full_games: int = 0
    full_points: int = 0
    best_total: int | None = None
    worst_total: int | None = None
    rounds: int = 0
    went_out: int = 0
    points: int = 0
    zero_rounds: int = 0
    solitaire_played: int = 0
    solitaire_won: int = 0
    solitaire_best: int | None = None


def totals_of(lines: Iterable[PersonGameLine]) -> PersonTotals:
    """The sums over one person's finished games (solitaire games kept apart). A game they
    played no round of (they left before their first) is no game of theirs."""
    together: list[PersonGameLine] = []
    alone: list[PersonGameLine] = []
    for line in lines:
        if line.rounds:
            (alone if line.solitaire else together).append(line)
    full_totals = [line.total for line in together if line.full_game]
    return PersonTotals(
        games=len(together),
        wins=sum(line.won for line in together),
        full_games=len(full_totals),
        full_points=sum(full_totals),
        best_total=min(full_totals, default=None),
        worst_total=max(full_totals, default=None),
        rounds=sum(line.rounds for line in together),
        went_out=sum(line.went_out for line in together),
        points=sum(line.total - line.start_points for line in together),
        zero_rounds=sum(line.zero_rounds for line in together),
        solitaire_played=len(alone),
        solitaire_won=sum(line.won for line in alone),
        # Like other games, best counts games of every pile only.
        solitaire_best=min((line.total for line in alone if line.full_game), default=None),
    )


def stats_from_totals(sums: PersonTotals) -> PersonStats:
    """The stats from the sums: rates and averages exact, None where nothing was played."""
    return PersonStats(
        games=sums.games,
        wins=sums.wins,
        win_rate=_ratio(sums.wins, sums.games),
        average_total=_ratio(sums.full_points, sums.full_games),
        best_total=sums.best_total,
        worst_total=sums.worst_total,
        rounds=sums.rounds,
        went_out=sums.went_out,
        went_out_rate=_ratio(sums.went_out, sums.rounds),
        average_round=_ratio(sums.points, sums.rounds),
        zero_rounds=sums.zero_rounds,
        solitaire=SolitaireStats(
            played=sums.solitaire_played, won=sums.solitaire_won, best_total=sums.solitaire_best
        ),
    )


def person_stats(lines: Iterable[PersonGameLine]) -> PersonStats:
    """The stats of one person from their finished games (solitaire games on their own line)."""
    return stats_from_totals(totals_of(lines))


def table_stats(lines: Iterable[PersonGameLine]) -> dict[int, PersonStats]:
    """Every person's stats, by person id."""
    by_person: dict[int, list[PersonGameLine]] = defaultdict(list)
    for line in lines:
        by_person[line.person].append(line)
    return {person: person_stats(own) for person, own in by_person.items()}


def head_to_head(lines: Iterable[PersonGameLine]) -> dict[int, dict[int, HeadToHead]]:
    """For each person, each other person they played with: games together and who finished
    lower. A game counts for two people only when both were seated at its end (and played a
    round of it); equal totals that a tie-break settled count for its winner. Solitaire
    games have nobody to compare with."""
    by_game: dict[int, list[PersonGameLine]] = defaultdict(list)
    for line in lines:
        if not line.solitaire and line.seated and line.rounds:
            by_game[line.game].append(line)
    counts: dict[int, dict[int, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    for seated in by_game.values():
        for mine in seated:
            for theirs in seated:
                if theirs.person == mine.person:
                    continue
                tally = counts[mine.person][theirs.person]
                tally[0] += 1
                tally[1] += _finished_lower(mine, theirs)
                tally[2] += _finished_lower(theirs, mine)
    return {
        person: {other: HeadToHead(*tally) for other, tally in others.items()}
        for person, others in counts.items()
    }


def _finished_lower(mine: PersonGameLine, theirs: PersonGameLine) -> bool:
    """Fewer points, or the same and the tie-break's winner against its loser."""
    if mine.total != theirs.total:
        return mine.total < theirs.total
    return mine.won and not theirs.won


def result_line(players: Sequence[str], seat_totals: Sequence[int], winners: Sequence[int]) -> str:
    """The result to share, winners first: "Ann wins with 209 · Cy 209 · Dee 313"."""
    if not winners:
        return ""
    names = " & ".join(players[seat] for seat in winners)
    if len(winners) == 1:
        won = _("%(names)s wins with %(total)s")
    else:
        won = _("%(names)s win with %(total)s")
    parts = [fill(won, names=names, total=seat_totals[winners[0]])]

    parts += [
        f"{players[seat]} {seat_totals[seat]}"
        for seat in ranking(seat_totals)
        if seat not in winners
    ]
    return " · ".join(parts)
