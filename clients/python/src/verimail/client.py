"""The synchronous client: ``Client(api_key).validate("a@b.com")``."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO, cast

import httpx

from verimail import _base
from verimail._operations import Call, call, options
from verimail._retry import RetryPolicy
from verimail._upload import Progress, Upload, guess_format
from verimail.errors import APIConnectionError
from verimail.types import (
    FINISHED,
    Accepted,
    BatchResult,
    BulkJob,
    Confirmation,
    ListResult,
    ResultsPage,
    ValidationResult,
)


class Client:
    """A client of one account's API key. Safe to share between threads; close it (or use ``with``)."""

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        key, self.base_url = _base.settings(api_key, base_url)
        self.retry = retry or RetryPolicy()
        self._http = http_client or httpx.Client(timeout=timeout)
        self._owned = http_client is None
        self._headers = _base.default_headers(key)

    def validate(
        self,
        email: str,
        *,
        quick_mode: bool | None = None,
        skip_catch_all: bool | None = None,
        timeout: int | None = None,
    ) -> ValidationResult | ListResult:
        """One address. When the service answers 202 (its SMTP check goes on past its wait), the client
        polls the results URL and returns the result once it is settled."""
        chosen = options(quickMode=quick_mode, skipCatchAll=skip_catch_all, timeout=timeout)
        body = {"email": email, **({"options": chosen} if chosen else {})}
        response = self._send(call("validate", json=body))
        if response.status_code == 202:  # the SMTP check goes on: its result is the job's one result
            page = self.wait_for_batch(_base.parsed(response)["batchId"], interval=0.5)
            return page["results"][0]
        return cast(ValidationResult, _base.parsed(response))

    def validate_batch(
        self, emails: Iterable[str], *, quick_mode: bool | None = None, idempotency_key: str | None = None
    ) -> BatchResult | Accepted:
        """1 to 100 addresses; ``Accepted`` when not all were answered in time (see ``wait_for_batch``)."""
        chosen = options(quickMode=quick_mode)
        body = {"emails": list(emails), **({"options": chosen} if chosen else {})}
        made = call("validate_batch", json=body, idempotency_key=idempotency_key)
        return cast(BatchResult | Accepted, self._json(made))

    def results_page(
        self, batch_id: str, *, starting_after: int | None = None, limit: int = 100
    ) -> ResultsPage:
        params = {"startingAfter": starting_after, "limit": limit}
        return cast(ResultsPage, self._json(call("batch_results", params=params, batch_id=batch_id)))

    def iter_results(self, batch_id: str, *, page_size: int = 100) -> Iterator[ListResult]:
        """Every settled result of a batch or list (``blk_`` id), page after page, in submission order."""
        after: int | None = None
        while True:
            page = self.results_page(batch_id, starting_after=after, limit=page_size)
            yield from page.get("results", [])
            after = page.get("nextStartingAfter")
            if not page.get("hasMore") or after is None:
                return

    def wait_for_batch(self, batch_id: str, *, interval: float = 1.0, timeout: float = 600.0) -> ResultsPage:
        """Poll until the batch has finished; its first page."""
        give_up = time.monotonic() + timeout
        while (page := self.results_page(batch_id, limit=1))["status"] not in FINISHED:
            _pause(interval, give_up, batch_id)
        return page

    def upload(
        self,
        source: str | os.PathLike[str] | BinaryIO,
        *,
        format: str | None = None,
        quick_mode: bool | None = None,
        on_progress: Progress | None = None,
        idempotency_key: str | None = None,
    ) -> BulkJob:
        """Send a list (a CSV or JSON file path, or a binary stream) to validate; ``on_progress(sent, total)``
        is called as it goes. Answers at once: ``wait_for_upload`` waits for the results."""
        fmt, body = guess_format(source, format), Upload(source, on_progress)
        made = call(
            "upload",
            params={"quickMode": quick_mode},
            idempotency_key=idempotency_key,
            headers=body.headers(fmt),
        )
        response = self._send(made, body)
        return cast(BulkJob, _base.parsed(response))

    def get_upload(self, job_id: str) -> BulkJob:
        return cast(BulkJob, self._json(call("upload_status", job_id=job_id)))

    def cancel_upload(self, job_id: str) -> BulkJob:
        return cast(BulkJob, self._json(call("cancel_upload", job_id=job_id)))

    def wait_for_upload(self, job_id: str, *, interval: float = 1.0, timeout: float = 3600.0) -> BulkJob:
        """Poll until the list has finished (completed, cancelled or failed)."""
        give_up = time.monotonic() + timeout
        while (job := self.get_upload(job_id))["status"] not in FINISHED:
            _pause(interval, give_up, job_id)
        return job

    def download(
        self, job_id: str, destination: str | os.PathLike[str] | BinaryIO, *, format: str = "csv"
    ) -> int:
        """Stream a finished list's results (``csv`` or ``json``) into a path or a binary stream; the size."""
        response = self._send(call("download", params={"format": format}, job_id=job_id), stream=True)
        try:
            if not response.is_success:
                response.read()
                raise _base.failure(response)
            if isinstance(destination, str | os.PathLike):
                with Path(destination).open("wb") as handle:
                    return _copy(response.iter_bytes(), handle)
            return _copy(response.iter_bytes(), destination)
        finally:
            response.close()

    def confirm_token(self, token: str, email: str) -> Confirmation:
        """Check a verdict token a web page passed on; a refused or replayed token raises ``TokenError``."""
        return cast(Confirmation, self._json(call("confirm_token", json={"token": token, "email": email})))

    def _json(self, made: Call) -> Any:
        return _base.parsed(self._send(made))

    def _send(self, made: Call, upload: Upload | None = None, *, stream: bool = False) -> httpx.Response:
        """One call, retried on 429/503 (and on a connection not made) as the policy says; every attempt
        carries the same headers, so an Idempotency-Key stays the one the call was given."""
        policy = self.retry if upload is None or upload.replayable else RetryPolicy(max_retries=0)
        attempt = 0
        while True:
            response = self._attempt(made, upload, stream)
            wait = policy.wait(attempt, response)
            if wait is None:
                if response is None:
                    raise APIConnectionError(f"could not connect to {self.base_url}")
                return response
            if response is not None:
                response.close()
            time.sleep(wait)
            attempt += 1

    def _attempt(self, made: Call, upload: Upload | None, stream: bool) -> httpx.Response | None:
        arguments = _base.request_arguments(made, self._headers)
        if upload is not None:
            arguments["content"] = upload.chunks()
        request = self._http.build_request(made.method, self.base_url + made.path, **arguments)
        try:
            return self._http.send(request, stream=stream)
        except httpx.ConnectError:
            return None
        except httpx.TransportError as error:
            raise APIConnectionError(f"{made.method} {made.path}: {error}") from error

    def close(self) -> None:
        if self._owned:
            self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


def _pause(interval: float, give_up: float, job_id: str) -> None:
    if time.monotonic() + interval > give_up:
        raise TimeoutError(f"{job_id} has not finished in the time given")
    time.sleep(interval)


def _copy(chunks: Iterator[bytes], handle: BinaryIO) -> int:
    written = 0
    for chunk in chunks:
        handle.write(chunk)
        written += len(chunk)
    return written
