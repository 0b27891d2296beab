"""The tables this browser has opened, kept in a cookie like its games."""

from __future__ import annotations

from fastapi import Request, Response
from sqlmodel import Session

from ..tables import TableSummary, find_tables

TABLES_COOKIE = "crownkeeper_tables"
REMEMBERED_TABLES = 8


def remembered_table_codes(request: Request) -> list[str]:
    """Table codes this browser has opened, newest first."""
    raw = request.cookies.get(TABLES_COOKIE, "")
    return [code for code in raw.split(".") if 0 < len(code) <= 64][:REMEMBERED_TABLES]


def remember_table(response: Response, request: Request, code: str) -> None:
    """Keep code first in this browser's list of tables."""
    codes = [code, *(c for c in remembered_table_codes(request) if c != code)]
    response.set_cookie(
        TABLES_COOKIE,
        ".".join(codes[:REMEMBERED_TABLES]),
        max_age=400 * 24 * 3600,
        httponly=True,
        samesite="lax",
        path=request.scope.get("root_path") or "/",
    )


def remembered_tables(request: Request, session: Session) -> list[TableSummary]:
    """The tables this browser remembers that still exist, newest first."""
    return find_tables(session, codes=remembered_table_codes(request))
