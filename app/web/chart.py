"""The running-totals chart, drawn here as SVG: one line per player, round by round."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from ..games import GameState
from ..i18n import fill, ngettext
from ..i18n import gettext as _
from ..rules.ratings import START

WIDTH = 360
PLOT_TOP = 12
PLOT_HEIGHT = 170
PLOT_LEFT = 38
PLOT_RIGHT = 10
LEGEND_ROW = 20
# Two palettes of the same hues: darker strokes on a light page, lighter on a dark one.
LIGHT = ["#1f5fbf", "#c0392b", "#1e8449", "#8e44ad", "#b9770e", "#117a8b", "#a93262", "#4d5656"]
DARK = ["#7fb2ff", "#ff8a7a", "#6fdc8c", "#d2a8ff", "#ffc861", "#5fd4e6", "#ff8fc1", "#c8d0d0"]
DASHES = ["", "6 4", "2 3"]


Line = list[tuple[int, int]]
"""One seat's running total as (round number, total) points."""

# Beyond this many letters a name shares no legend row: each name gets a whole row.
LEGEND_NAME_SHARING_ROW = 16


def running_totals(state: GameState) -> list[Line]:
    """Each seat's total after each of the eleven rounds (or piles) it played, from its start:
    round 0 for the players from the start, the round before it joined, with its start points,
    for a player who sat down mid-game. Tie-breaks never change a total: they are left out."""
    lines: list[Line] = [
        [((seat.joined_round or 1) - 1, seat.start_points)] for seat in state.seats
    ]
    for round_state in state.main_rounds:
        scores = round_state.scores
        if scores is None:
            # A game's rounds are saved in order; solitaire piles in any order.
            if state.is_solitaire:
                continue
            break
        for seat, points in enumerate(scores):
            if points is not None:
                lines[seat].append((round_state.number, lines[seat][-1][1] + points))
    return lines


def _style() -> str:
    rules = [
        "text{font:11px system-ui,sans-serif;fill:#222}",
        ".grid{stroke:#ccc;stroke-width:1}",
        ".line{fill:none;stroke-width:2.5;stroke-linejoin:round}",
    ]
    dark = ["text{fill:#eee}", ".grid{stroke:#555}"]
    for index, (light, dark_colour) in enumerate(zip(LIGHT, DARK, strict=True)):
        rules.append(f".s{index}{{stroke:{light}}}")
        dark.append(f".s{index}{{stroke:{dark_colour}}}")
    return "".join(rules) + "@media (prefers-color-scheme:dark){" + "".join(dark) + "}"


def totals_chart(players: Sequence[str], lines: Sequence[Line], round_count: int) -> str:
    """The chart as a standalone SVG document; names are escaped. Two names share a legend
    row, unless one is long: then each has a row, so no name is cut off."""
    top = max((total for line in lines for _, total in line), default=0) or 1
    step = _nice_step(top)
    top = -(-top // step) * step
    plot_width = WIDTH - PLOT_LEFT - PLOT_RIGHT
    per_row = _legend_names_a_row(players)
    height = totals_chart_height(players)

    def x(round_number: int) -> float:
        return PLOT_LEFT + plot_width * round_number / max(round_count, 1)

    def y(total: int) -> float:
        return PLOT_TOP + PLOT_HEIGHT * (1 - total / top)

    names = ", ".join(escape(name) for name in players)
    title = fill(_("Running totals: %(names)s"), names=names)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'width="{WIDTH}" height="{height}" role="img">',
        f"<title>{title}</title>",
        f"<style>{_style()}</style>",
    ]
    for value in range(0, top + 1, step):
        parts.append(
            f'<line class="grid" x1="{PLOT_LEFT}" x2="{WIDTH - PLOT_RIGHT}" '
            f'y1="{y(value):.1f}" y2="{y(value):.1f}"/>'
            f'<text x="{PLOT_LEFT - 4}" y="{y(value) + 4:.1f}" text-anchor="end">{value}</text>'
        )
    for number in range(1, round_count + 1):
        parts.append(
            f'<text x="{x(number):.1f}" y="{PLOT_TOP + PLOT_HEIGHT + 14}" '
            f'text-anchor="middle">{number}</text>'
        )
    for seat, line in enumerate(lines):
        style = f"s{seat % len(LIGHT)}"
        dash = DASHES[(seat // len(LIGHT)) % len(DASHES)]
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        points = " ".join(f"{x(n):.1f},{y(total):.1f}" for n, total in line)
        parts.append(f'<polyline class="line {style}"{dash_attr} points="{points}"/>')
        legend_x = 10 + (seat % per_row) * (WIDTH // 2)
        legend_y = PLOT_TOP + PLOT_HEIGHT + 26 + (seat // per_row) * LEGEND_ROW
        last = line[-1][1]
        parts.append(
            f'<line class="line {style}"{dash_attr} x1="{legend_x}" x2="{legend_x + 22}" '
            f'y1="{legend_y + 8}" y2="{legend_y + 8}"/>'
            f'<text x="{legend_x + 28}" y="{legend_y + 12}">{escape(players[seat])} {last}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _legend_names_a_row(players: Sequence[str]) -> int:
    return 1 if any(len(name) > LEGEND_NAME_SHARING_ROW for name in players) else 2


def totals_chart_height(players: Sequence[str]) -> int:
    """The chart's height for these names (its width is WIDTH): the page keeps a box of
    this shape for it before it comes."""
    legend_rows = -(-len(players) // _legend_names_a_row(players))
    return PLOT_TOP + PLOT_HEIGHT + 26 + legend_rows * LEGEND_ROW


def _nice_step(top: int) -> int:
    for step in (10, 20, 25, 50, 100, 200, 250, 500, 1000):
        if top / step <= 6:
            return step
    return 10 ** len(str(top))


def rating_chart(name: str, figures: Sequence[int]) -> str:
    """One person's rating (the figure the pages show) from the start and after each rated
    game, as a standalone SVG document: the same look as the game chart, dark mode
    included; the name escaped."""
    values = [START, *figures]
    low, high = min(values), max(values)
    step = _nice_step(max(1, high - low))
    bottom = low // step * step
    top = -(-high // step) * step
    if top == bottom:
        top += step
    plot_width = WIDTH - PLOT_LEFT - PLOT_RIGHT
    height = PLOT_TOP + PLOT_HEIGHT + 24

    def x(index: int) -> float:
        return PLOT_LEFT + plot_width * index / max(len(values) - 1, 1)

    def y(value: float) -> float:
        return PLOT_TOP + PLOT_HEIGHT * (1 - (value - bottom) / (top - bottom))

    title = fill(_("%(name)s's rating, game by game"), name=escape(name))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'width="{WIDTH}" height="{height}" role="img">',
        f"<title>{title}</title>",
        f"<style>{_style()}</style>",
    ]
    for value in range(bottom, top + 1, step):
        parts.append(
            f'<line class="grid" x1="{PLOT_LEFT}" x2="{WIDTH - PLOT_RIGHT}" '
            f'y1="{y(value):.1f}" y2="{y(value):.1f}"/>'
            f'<text x="{PLOT_LEFT - 4}" y="{y(value) + 4:.1f}" text-anchor="end">{value}</text>'
        )
    if figures:
        points = " ".join(f"{x(i):.1f},{y(value):.1f}" for i, value in enumerate(values))
        parts.append(f'<polyline class="line s0" points="{points}"/>')
        parts.append(
            f'<text x="{PLOT_LEFT}" y="{PLOT_TOP + PLOT_HEIGHT + 16}">'
            + ngettext(
                "From %(start)s: %(num)s rated game, now %(now)s",
                "From %(start)s: %(num)s rated games, now %(now)s",
                len(figures),
            )
            % {"start": START, "num": len(figures), "now": figures[-1]}
            + "</text>"
        )
    parts.append("</svg>")
    return "".join(parts)
