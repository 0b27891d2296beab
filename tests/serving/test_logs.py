"""No game code reaches the access log: a code in a log is a key left in the door."""

import logging

from app.logs import RedactGameCodes, redact


def test_codes_are_hidden_in_paths():
    assert redact("/g/AbC-123_xyz/rounds/3") == "/g/[code]/rounds/3"
    assert redact("/api/games/AbC-123_xyz?x=1") == "/api/games/[code]?x=1"
    assert redact("/rules") == "/rules"


def test_the_access_log_line_is_redacted():
    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", "/g/secretcode123/events", "1.1", 200),
        None,
    )
    assert RedactGameCodes().filter(record)
    assert "secretcode123" not in record.getMessage()
    assert "/g/[code]/events" in record.getMessage()


def test_repeated_warnings_are_logged_once_a_minute_with_a_count(caplog):
    import logging

    from app.logs import FLOOD_PRONE, OncePerInterval, install

    install()
    for name in FLOOD_PRONE:
        assert any(isinstance(f, OncePerInterval) for f in logging.getLogger(name).filters)
    flood = OncePerInterval(interval=60)
    records = [
        logging.LogRecord(
            "asyncio",
            logging.ERROR,
            __file__,
            1,
            "socket.accept() out of system resource",
            None,
            None,
        )
        for _ in range(1000)
    ]
    passed = [record for record in records if flood.filter(record)]
    assert len(passed) == 1
    other = logging.LogRecord(
        "uvicorn.error", logging.WARNING, __file__, 1, "Exceeded concurrency limit.", None, None
    )
    assert flood.filter(other)
    flood.interval = 0
    later = logging.LogRecord(
        "asyncio", logging.ERROR, __file__, 1, "socket.accept() out of system resource", None, None
    )
    assert flood.filter(later)
    assert "999 more like it" in later.getMessage()


def test_the_server_raises_its_open_file_limit_and_stays_below_it():
    import resource

    from app.serve import FILES_KEPT_BACK, concurrency_limit, raise_open_file_limit
    from tests.conftest import test_settings

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(256, hard), hard))
        assert raise_open_file_limit() == resource.getrlimit(resource.RLIMIT_NOFILE)[0] == hard
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert concurrency_limit(test_settings("sqlite://"), 1024) == 1024 - FILES_KEPT_BACK
    assert concurrency_limit(test_settings("sqlite://", limit_concurrency=300), 1024) == 300
    assert (
        concurrency_limit(test_settings("sqlite://", limit_concurrency=5000), 1024)
        == 1024 - FILES_KEPT_BACK
    )
