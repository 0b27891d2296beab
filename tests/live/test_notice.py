"""The notice a save sends the other processes: the state when it fits, never a code that
can edit, and what a receiver makes of it."""

import json
from dataclasses import replace

import pytest

from app.db import make_engine
from app.games import create_game, save_round
from app.live.notice import LIMIT_BYTES, decode, encode, keeper_hash
from app.rules.cards import RANK_CODES, SUITS, parse_card
from app.rules.scoring import SeatResult
from tests.databases import wired_session


@pytest.fixture
def migrated_engine(migrated_database_url):
    engine = make_engine(migrated_database_url)
    yield engine
    engine.dispose()


LONG_NAMES = [f"{name} Featherstonehaugh-Marjoribank"[:30] for name in "ABCDEFGHIJKLMN"]


def played(engine, players, rounds, *, kept=None):
    """A game of players with rounds saved (seat 0 out first; the others keep the cards
    kept(round, seat) gives, or score 20), as the database holds it."""
    with wired_session(engine) as session:
        state = create_game(session, players=players)
    for number in range(1, rounds + 1):
        results = [SeatResult(went_out=True)]
        for seat in range(1, len(players)):
            if kept is None:
                results.append(SeatResult(points=20))
            else:
                cards = tuple(parse_card(code) for code in kept(number, seat))
                results.append(SeatResult(cards=cards, confirmed=True))
        with wired_session(engine) as session:
            state = save_round(session, code=state.code, number=number, results=results)
    return state


def test_a_state_travels_whole_and_comes_back_the_same_with_the_code_the_receiver_knew(
    migrated_engine,
):
    state = played(migrated_engine, ["Ann", "Ben", "Cy"], 4)
    payload = encode(state)
    assert state.code not in payload
    notice = decode(payload)
    assert (notice.topic, notice.version, notice.keeper) == (
        state.watch_code,
        state.version,
        keeper_hash(state.code),
    )
    assert notice.state_with(state.code) == state
    assert notice.state_with(state.code).totals == [0, 80, 80]
    # A receiver that knew another scorekeeper code (since replaced) gets nothing from it.
    assert notice.state_with("an-old-scorekeeper-code") is None


def test_kept_cards_travel_as_cards(migrated_engine):
    hands = {1: ["QH", "4S"], 2: ["JOKER", "KD", "10R"]}
    state = played(migrated_engine, ["Ann", "Ben"], 2, kept=lambda number, _: hands[number])
    back = decode(encode(state)).state_with(state.code)
    assert back == state
    assert [card.code for card in back.rounds[1].entries[1].cards] == ["JOKER", "KD", "10R"]


def test_a_state_too_big_for_one_notice_goes_as_its_topic_and_version(migrated_engine):
    # Fourteen players with the longest names, each keeping up to eight cards a round (two
    # decks: no card more than twice at the table).
    deck = [rank + suit for rank in RANK_CODES.values() for suit in SUITS] * 2

    def kept(number, seat):
        count = min(number + 2, 8)
        return deck[(seat - 1) * count : seat * count]

    big = played(migrated_engine, LONG_NAMES, 11, kept=kept)
    payload = encode(big)
    assert len(payload.encode()) <= LIMIT_BYTES
    assert json.loads(payload) == {"topic": big.watch_code, "version": big.version}
    # A lower limit does the same to a small game.
    small = played(migrated_engine, ["Ann", "Ben"], 1)
    assert "state" in json.loads(encode(small))
    assert json.loads(encode(small, limit=100)) == {"topic": small.watch_code, "version": 2}


def test_no_code_that_can_edit_ever_travels(migrated_engine):
    state = played(migrated_engine, ["Ann", "Ben"], 1)
    with_rematch = replace(state, rematch_code="rematch-keeper-code", rematch_watch_code="rw")
    for sent in (state, with_rematch, state.for_watchers()):
        payload = encode(sent)
        assert state.code not in payload and "rematch-keeper-code" not in payload
    # A game with a rematch, and a watcher's view, go without their state.
    assert "state" not in json.loads(encode(with_rematch))
    assert "state" not in json.loads(encode(state.for_watchers()))


@pytest.mark.parametrize(
    "payload", ["not json", "[]", '{"topic": "x"}', '{"topic": "x", "version": 1, "state": 3}']
)
def test_a_notice_that_is_not_ours_is_refused(payload):
    with pytest.raises(ValueError):
        decode(payload)
