"""The totals chart as drawn: every line inside the picture, rounds along the bottom, a
scale in round numbers, and room for the legend."""

import re

import pytest

from app.web.chart import PLOT_HEIGHT, PLOT_LEFT, PLOT_RIGHT, PLOT_TOP, WIDTH, totals_chart


def picture_size(svg):
    width, height = re.search(r'viewBox="0 0 (\d+) (\d+)"', svg).groups()
    return int(width), int(height)


def line_points(svg):
    lines = re.findall(r'<polyline class="line s\d+"[^>]* points="([^"]+)"', svg)
    return [[tuple(map(float, p.split(","))) for p in line.split()] for line in lines]


def scale_labels(svg):
    return [
        int(v) for v in re.findall(r'<text x="[\d.]+" y="[\d.]+" text-anchor="end">(\d+)<', svg)
    ]


def round_labels(svg):
    return re.findall(r'<text x="([\d.]+)" y="[\d.]+" text-anchor="middle">(\d+)<', svg)


@pytest.mark.parametrize("round_count", [1, 11])
def test_every_line_stays_in_the_plot_and_the_last_round_is_at_the_right_edge(round_count):
    lines = [[(0, 0), (round_count, 95)], [(0, 0), (round_count, 40)]]
    svg = totals_chart(["Ann", "Ben"], lines, round_count)
    width, height = picture_size(svg)
    assert width == WIDTH
    for line in line_points(svg):
        for x, y in line:
            assert PLOT_LEFT <= x <= WIDTH - PLOT_RIGHT
            assert PLOT_TOP <= y <= PLOT_TOP + PLOT_HEIGHT
        assert line[0][0] == PLOT_LEFT  # the start, before round 1
        assert line[-1][0] == WIDTH - PLOT_RIGHT  # the last round at the right edge
    # Below the plot: the round numbers, then a legend row for the two names.
    assert height >= PLOT_TOP + PLOT_HEIGHT + 26 + 20
    legend_ys = [float(y) for y in re.findall(r'<text x="[\d.]+" y="([\d.]+)">(?:Ann|Ben) ', svg)]
    assert legend_ys and all(y < height for y in legend_ys)


def test_the_rounds_along_the_bottom_are_numbered_one_to_the_last():
    svg = totals_chart(["Ann", "Ben"], [[(0, 0), (3, 20)], [(0, 0), (3, 5)]], 11)
    labels = round_labels(svg)
    assert [number for _, number in labels] == [str(n) for n in range(1, 12)]
    xs = [float(x) for x, _ in labels]
    assert xs == sorted(xs) and xs[-1] == WIDTH - PLOT_RIGHT


@pytest.mark.parametrize(
    ("highest", "scale"),
    [
        (8, [0, 10]),
        (55, [0, 10, 20, 30, 40, 50, 60]),
        (260, [0, 50, 100, 150, 200, 250, 300]),
        (1400, [0, 250, 500, 750, 1000, 1250, 1500]),
    ],
)
def test_the_scale_counts_in_round_numbers_up_past_the_highest_total(highest, scale):
    svg = totals_chart(["Ann", "Ben"], [[(0, 0), (11, highest)], [(0, 0), (11, 0)]], 11)
    assert scale_labels(svg) == scale
