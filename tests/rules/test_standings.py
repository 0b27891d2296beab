"""Totals, leaders and winners, ties included."""

from app.rules.standings import leaders, ranking, totals


def test_totals_skip_unplayed_rounds():
    assert totals([[0, 10, 5], None, [7, 0, 3]], seat_count=3) == [7, 10, 8]


def test_every_seat_leads_before_anything_is_saved():
    assert leaders(totals([None] * 11, seat_count=4)) == [0, 1, 2, 3]


def test_single_leader():
    assert leaders([41, 53, 60]) == [0]


def test_tied_lowest_totals_share_the_lead():
    assert leaders([40, 60, 40, 41]) == [0, 2]


def test_final_standings_run_from_lowest_to_highest():
    assert ranking([60, 40, 75, 40]) == [1, 3, 0, 2]
