"""GET /health as the operator asks it (``X-Operator-Token``): the public answer plus every egress probes
leave from, with its counters; anyone else, a wrong token included, gets the public answer."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import replace

import pytest

from maillab import MailLab
from services.probing.egress.limiter import RedisSessionLimiter
from services.probing.fleet.policy import Politeness
from settings import ConfigError, get_settings, parse_sha256
from tests.fixtures.db import create_test_app
from verifier.dns import MailResolver
from verifier.egress import parse_egress
from verifier.smtp import probe_domain_group

TOKEN = secrets.token_urlsafe(24)


def test_the_operator_sees_every_egress_with_its_counters(
    lab: MailLab, monkeypatch: pytest.MonkeyPatch
) -> None:
    egress = parse_egress("direct://127.0.0.95?helo=out95.verimail.test")
    monkeypatch.setenv("SMTP_EGRESS", egress.id + "?helo=out95.verimail.test")
    config = lab.engine_config(smtp_egress=(egress,))
    limiter = RedisSessionLimiter(Politeness(3, 30, 0, 30, 600, 60), (egress,))
    probe_domain_group(
        MailResolver(config).resolve("mailbox.test"),
        ["alice@mailbox.test"],
        config=config,
        limiter=limiter,
        check_catch_all=False,
    )
    client = create_test_app(operator_token_sha256=hashlib.sha256(TOKEN.encode()).hexdigest()).test_client()

    answer = client.get("/health", headers={"X-Operator-Token": TOKEN})

    assert answer.status_code == 200
    body = answer.json
    assert body is not None
    assert (body["status"], body["down"]) == ("ok", [])
    [shown] = body["egresses"]
    assert (shown["id"], shown["helo"], shown["inUse"]) == (egress.id, "out95.verimail.test", True)
    assert (shown["sessionsOpen"], shown["sessionsTotal"], shown["rcpts"]) == (0, 1, 1)
    assert (shown["blocks"], shown["backoffUntil"], shown["lastError"]) == ({}, None, None)


def test_without_the_operator_token_health_is_the_public_answer() -> None:
    client = create_test_app(operator_token_sha256=hashlib.sha256(TOKEN.encode()).hexdigest()).test_client()
    public = {"status": "ok", "database": True, "redis": True, "down": []}
    assert client.get("/health").json == public
    assert client.get("/health", headers={"X-Operator-Token": TOKEN + "x"}).json == public
    unset = create_test_app(operator_token_sha256="").test_client()
    assert unset.get("/health", headers={"X-Operator-Token": ""}).json == public


def test_a_malformed_operator_hash_stops_start_up_naming_the_variable() -> None:
    with pytest.raises(ConfigError, match="OPERATOR_TOKEN_SHA256 must be a SHA-256 in hex"):
        parse_sha256("OPERATOR_TOKEN_SHA256", TOKEN)
    assert parse_sha256("OPERATOR_TOKEN_SHA256", "AB" * 32) == "ab" * 32
    assert "ab" * 32 not in repr(replace(get_settings(), operator_token_sha256="ab" * 32))  # never logged
