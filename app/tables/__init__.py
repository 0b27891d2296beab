"""The tables service: state.py (what a table is, and the errors), service.py (the
operations and the one read of a table), sums.py (each game's copy and the stats, kept in
step with every change to a game)."""

from .service import (
    add_recorded_games,
    check_keeper_code,
    clean_table_name,
    create_table,
    find_tables,
    game_codes,
    is_keeper_code,
    known_sources,
    load_table,
    merge_people,
    people_after,
    person_named,
    rename_person,
    start_game,
    sum_stats,
)
from .state import (
    TABLE_NAME_LENGTH,
    NoSuchPerson,
    PersonView,
    ReadOnlyTable,
    SeatView,
    TableError,
    TableGameView,
    TableNotFound,
    TableState,
    TableSummary,
)
from .sums import forget_games, record_change

__all__ = [
    "TABLE_NAME_LENGTH",
    "NoSuchPerson",
    "PersonView",
    "ReadOnlyTable",
    "SeatView",
    "TableError",
    "TableGameView",
    "TableNotFound",
    "TableState",
    "TableSummary",
    "add_recorded_games",
    "check_keeper_code",
    "clean_table_name",
    "create_table",
    "find_tables",
    "forget_games",
    "game_codes",
    "is_keeper_code",
    "known_sources",
    "load_table",
    "merge_people",
    "record_change",
    "people_after",
    "person_named",
    "rename_person",
    "start_game",
    "sum_stats",
]
