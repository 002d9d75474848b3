"""One JSON access line per request: who asked for what and how it ended, never the query string."""

from __future__ import annotations

import json
import logging

from tests.fixtures.db import Persona
from web.logs import ScrubbingJsonFormatter


def test_every_request_writes_one_line_without_its_query_string(client, owner: Persona, caplog) -> None:
    caplog.set_level(logging.INFO, logger="verimail.request")

    response = client.get("/api/keys?limit=5", headers=owner.headers)

    lines = [record for record in caplog.records if record.name == "verimail.request"]
    assert len(lines) == 1
    line = lines[0]
    assert (line.getMessage(), line.method, line.path, line.status) == ("request", "GET", "/api/keys", 200)
    assert line.requestId == response.headers["X-Request-Id"]
    assert (line.accountId, line.keyId) == (owner.account_id, owner.key_id)
    assert isinstance(line.durationMs, float)


def test_the_json_line_has_the_time_as_logging_writes_it_and_no_secret() -> None:
    formatter = ScrubbingJsonFormatter(
        "{asctime}{levelname}{name}{message}", style="{", rename_fields={"levelname": "level"}
    )
    fields = {"path": "/validate", "note": "sk_live_abcDEF123_-x"}
    records = [
        logging.LogRecord("verimail.request", logging.INFO, "", 0, "request", (), None) for _ in range(2)
    ]
    for record, created in zip(records, (1_767_225_600.25, 1_767_225_601.5), strict=True):
        record.created, record.msecs = created, (created % 1) * 1000
        record.__dict__.update(fields)

    lines = [json.loads(formatter.format(record)) for record in records]

    assert [line["asctime"] for line in lines] == [logging.Formatter().formatTime(r) for r in records]
    assert lines[0] == {
        "asctime": lines[0]["asctime"],
        "level": "INFO",
        "name": "verimail.request",
        "message": "request",
        "path": "/validate",
        "note": "sk_live_[REDACTED]",
    }


def test_a_reset_link_is_logged_by_its_route_not_its_token(client, caplog) -> None:
    caplog.set_level(logging.INFO, logger="verimail.request")

    client.get("/dashboard/reset-password/an-emailed-token-that-still-works")

    [line] = [record for record in caplog.records if record.name == "verimail.request"]
    assert line.path == "/dashboard/reset-password/<token>"
    assert "an-emailed-token" not in json.dumps(line.__dict__, default=str)
