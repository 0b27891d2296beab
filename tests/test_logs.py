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
