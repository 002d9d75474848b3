"""The lifecycle functions the rotation work calls: grace keys still work, rotation restarts the clock."""

from __future__ import annotations

from datetime import timedelta

import pytest

from core import clock
from models import ApiKey, KeyStatus
from models.session import transaction
from services import auth
from services.audit import Origin
from services.errors import InvalidApiKey
from services.keys import lifecycle
from services.keys.errors import KeyInactive
from tests.fixtures.db import Persona

HERE = Origin(ip="127.0.0.1")


def set_status(key_id: int, status: KeyStatus) -> None:
    with transaction() as session:
        session.get_one(ApiKey, key_id).status = status.value


def test_a_key_in_its_grace_period_still_authenticates(owner: Persona) -> None:
    set_status(owner.key_id, KeyStatus.GRACE)
    assert auth.authenticate(owner.secret, HERE).key.status == "grace"


def test_rotating_a_grace_key_makes_it_active_and_restarts_the_90_day_clock(
    owner: Persona, frozen_clock
) -> None:
    set_status(owner.key_id, KeyStatus.GRACE)
    clock.move(timedelta(days=91))
    with transaction() as session:
        new_secret = lifecycle.rotate_secret(session, session.get_one(ApiKey, owner.key_id))
    found = auth.authenticate(new_secret, HERE).key
    assert (found.status, found.secret_issued_at) == ("active", clock.now())
    with pytest.raises(InvalidApiKey):
        auth.authenticate(owner.secret, HERE)


def test_a_deactivated_key_is_refused_and_cannot_be_rotated(owner: Persona) -> None:
    with transaction() as session:
        lifecycle.deactivate(session, session.get_one(ApiKey, owner.key_id), "day 97")
    with pytest.raises(InvalidApiKey):
        auth.authenticate(owner.secret, HERE)
    with transaction() as session, pytest.raises(KeyInactive):
        lifecycle.rotate_secret(session, session.get_one(ApiKey, owner.key_id))
