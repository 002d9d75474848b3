"""Client ``Idempotency-Key`` on job creation (``POST /validate/batch``, ``POST /bulk/jobs``), as Stripe does.

A client that lost the answer to a request sends it again with the same key: within ``KEY_TTL`` the same
account gets the same job back (nothing charged, nothing run twice). The key is tied to a digest of what
was sent (the route, the addresses and the client's options); the same key with a different request is
refused with ``IdempotencyKeyReused`` (422) instead of silently answering for the other request.

The key is stored on the job (unique per account while set), and the job row is written *before* the
quota is charged: two concurrent requests with one key meet at the unique index, and the second learns
that the first is still in progress (409) rather than being charged a second time.
"""

from __future__ import annotations

import hashlib
import io
import json
from datetime import timedelta
from typing import IO, Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from core import clock
from models.jobs import JobStatus, ValidationJob
from models.session import transaction
from services.errors import InvalidField
from services.jobs import store
from services.validation.errors import IdempotencyKeyReused, IdempotentRequestInProgress

KEY_TTL = timedelta(hours=24)
MAX_KEY_LENGTH = 255
HEADER = "Idempotency-Key"
UNIQUE_INDEX = "uq_validation_jobs_account_id_idempotency_key"


def parse_key(value: str | None) -> str | None:
    """The header's key, or None when absent; printable ASCII, 1 to 255 characters."""
    if value is None:
        return None
    if not 0 < len(value) <= MAX_KEY_LENGTH or not (value.isascii() and value.isprintable()):
        raise InvalidField(HEADER, f"{HEADER} must be 1 to {MAX_KEY_LENGTH} printable ASCII characters.")
    return value


def digest_of(*parts: Any) -> str:
    """A digest of a request's meaning (canonical JSON of ``parts``)."""
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def earlier_job(account_id: int, key: str, livemode: bool = True) -> ValidationJob | None:
    """The job this account created under ``key`` in the last 24 h, in the same mode (a test request never
    replays a live job, nor the other way round); 409 while it is still being received."""
    with transaction() as session:
        job = session.scalars(
            select(ValidationJob).where(
                ValidationJob.account_id == account_id,
                ValidationJob.livemode == livemode,
                ValidationJob.idempotency_key == key,
                ValidationJob.created_at >= clock.now() - KEY_TTL,
            )
        ).one_or_none()
    if job is not None and job.status == JobStatus.UPLOADING.value:
        raise IdempotentRequestInProgress(
            f"A request with this {HEADER} is still being received; retry in a few seconds."
        )
    return job


def same_request(job: ValidationJob, digest: str) -> ValidationJob:
    """``job`` if it was created by a request with this digest; else the client reused a key by mistake."""
    if job.request_digest != digest:
        raise IdempotencyKeyReused(
            f"This {HEADER} was already used for a different request in the last 24 hours "
            f"(job {job.public_id}). Use a new key for a new request.",
            field=HEADER,
        )
    return job


def is_key_conflict(error: IntegrityError) -> bool:
    """The unique index of keys refused a second job: a concurrent request with the same key won."""
    return getattr(getattr(error.orig, "diag", None), "constraint_name", None) == UNIQUE_INDEX


def release_expired(session: Session, account_id: int, key: str) -> None:
    """Free a key older than 24 h for reuse (the unique index would otherwise refuse the new job)."""
    store.release_idempotency_key(session, account_id, key, created_before=clock.now() - KEY_TTL)


class DigestingStream(io.RawIOBase):
    """A request body read through a SHA-256: a streamed list's digest without holding the list."""

    def __init__(self, raw: IO[bytes], prefix: str) -> None:
        self._raw = raw
        self.sha = hashlib.sha256(prefix.encode())

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._raw.read(len(buffer))
        buffer[: len(data)] = data
        self.sha.update(data)
        return len(data)

    def hexdigest(self) -> str:
        return self.sha.hexdigest()


def drain(stream: IO[bytes]) -> None:
    """Read a body to its end (a replayed upload is digested, not stored)."""
    while stream.read(64 * 1024):
        pass
