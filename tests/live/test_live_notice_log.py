"""What an admin reads when a save cannot be passed on to the other processes' pages."""

import logging

from app.db import make_engine
from app.games import GameState
from app.live.memory import Broker
from app.live.postgres import PostgresRelay


def test_a_save_the_other_processes_cannot_hear_of_is_logged_in_words(tmp_path, caplog):
    # SQLite has no pg_notify: telling the other processes fails as on a lost connection.
    engine = make_engine(f"sqlite:///{tmp_path}/no-notify.db")
    relay = PostgresRelay(engine, Broker(), load_state=lambda topic: None)
    saved = GameState(
        code="keeper1",
        watch_code="watch1",
        can_edit=True,
        players=("Ann", "Ben"),
        first_dealer=0,
        rounds=(),
        finished=False,
        version=2,
    )
    with caplog.at_level(logging.WARNING, logger="app.live.postgres"):
        relay.publish("watch1", saved)  # the save itself is not failed for it
    engine.dispose()
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == ["Live updates: could not tell the other processes about a save"]
