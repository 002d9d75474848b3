"""The asynchronous client: ``await AsyncClient(api_key).validate("a@b.com")`` (asyncio or trio, via httpx).

Its methods are the sync client's, awaited; their documentation is on ``verimail.Client``."""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO, cast

import anyio
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


class AsyncClient:
    """A client of one account's API key for async code; close it (or use ``async with``)."""

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        key, self.base_url = _base.settings(api_key, base_url)
        self.retry = retry or RetryPolicy()
        self._http = http_client or httpx.AsyncClient(timeout=timeout)
        self._owned = http_client is None
        self._headers = _base.default_headers(key)

    async def validate(
        self,
        email: str,
        *,
        quick_mode: bool | None = None,
        skip_catch_all: bool | None = None,
        timeout: int | None = None,
    ) -> ValidationResult | ListResult:
        chosen = options(quickMode=quick_mode, skipCatchAll=skip_catch_all, timeout=timeout)
        body = {"email": email, **({"options": chosen} if chosen else {})}
        response = await self._send(call("validate", json=body))
        if response.status_code == 202:  # the SMTP check goes on: its result is the job's one result
            page = await self.wait_for_batch(_base.parsed(response)["batchId"], interval=0.5)
            return page["results"][0]
        return cast(ValidationResult, _base.parsed(response))

    async def validate_batch(
        self, emails: Iterable[str], *, quick_mode: bool | None = None, idempotency_key: str | None = None
    ) -> BatchResult | Accepted:
        chosen = options(quickMode=quick_mode)
        body = {"emails": list(emails), **({"options": chosen} if chosen else {})}
        made = call("validate_batch", json=body, idempotency_key=idempotency_key)
        return cast(BatchResult | Accepted, await self._json(made))

    async def results_page(
        self, batch_id: str, *, starting_after: int | None = None, limit: int = 100
    ) -> ResultsPage:
        params = {"startingAfter": starting_after, "limit": limit}
        return cast(ResultsPage, await self._json(call("batch_results", params=params, batch_id=batch_id)))

    async def iter_results(self, batch_id: str, *, page_size: int = 100) -> AsyncIterator[ListResult]:
        after: int | None = None
        while True:
            page = await self.results_page(batch_id, starting_after=after, limit=page_size)
            for result in page.get("results", []):
                yield result
            after = page.get("nextStartingAfter")
            if not page.get("hasMore") or after is None:
                return

    async def wait_for_batch(
        self, batch_id: str, *, interval: float = 1.0, timeout: float = 600.0
    ) -> ResultsPage:
        give_up = time.monotonic() + timeout
        while (page := await self.results_page(batch_id, limit=1))["status"] not in FINISHED:
            await _pause(interval, give_up, batch_id)
        return page

    async def upload(
        self,
        source: str | os.PathLike[str] | BinaryIO,
        *,
        format: str | None = None,
        quick_mode: bool | None = None,
        on_progress: Progress | None = None,
        idempotency_key: str | None = None,
    ) -> BulkJob:
        fmt, body = guess_format(source, format), Upload(source, on_progress)
        made = call(
            "upload",
            params={"quickMode": quick_mode},
            idempotency_key=idempotency_key,
            headers=body.headers(fmt),
        )
        return cast(BulkJob, _base.parsed(await self._send(made, body)))

    async def get_upload(self, job_id: str) -> BulkJob:
        return cast(BulkJob, await self._json(call("upload_status", job_id=job_id)))

    async def cancel_upload(self, job_id: str) -> BulkJob:
        return cast(BulkJob, await self._json(call("cancel_upload", job_id=job_id)))

    async def wait_for_upload(
        self, job_id: str, *, interval: float = 1.0, timeout: float = 3600.0
    ) -> BulkJob:
        give_up = time.monotonic() + timeout
        while (job := await self.get_upload(job_id))["status"] not in FINISHED:
            await _pause(interval, give_up, job_id)
        return job

    async def download(
        self, job_id: str, destination: str | os.PathLike[str] | BinaryIO, *, format: str = "csv"
    ) -> int:
        response = await self._send(call("download", params={"format": format}, job_id=job_id), stream=True)
        try:
            if not response.is_success:
                await response.aread()
                raise _base.failure(response)
            if isinstance(destination, str | os.PathLike):
                with Path(destination).open("wb") as handle:
                    return await _copy(response.aiter_bytes(), handle)
            return await _copy(response.aiter_bytes(), destination)
        finally:
            await response.aclose()

    async def confirm_token(self, token: str, email: str) -> Confirmation:
        return cast(
            Confirmation, await self._json(call("confirm_token", json={"token": token, "email": email}))
        )

    async def _json(self, made: Call) -> Any:
        return _base.parsed(await self._send(made))

    async def _send(
        self, made: Call, upload: Upload | None = None, *, stream: bool = False
    ) -> httpx.Response:
        policy = self.retry if upload is None or upload.replayable else RetryPolicy(max_retries=0)
        attempt = 0
        while True:
            response = await self._attempt(made, upload, stream)
            wait = policy.wait(attempt, response)
            if wait is None:
                if response is None:
                    raise APIConnectionError(f"could not connect to {self.base_url}")
                return response
            if response is not None:
                await response.aclose()
            await anyio.sleep(wait)
            attempt += 1

    async def _attempt(self, made: Call, upload: Upload | None, stream: bool) -> httpx.Response | None:
        arguments = _base.request_arguments(made, self._headers)
        if upload is not None:
            arguments["content"] = upload.async_chunks()
        request = self._http.build_request(made.method, self.base_url + made.path, **arguments)
        try:
            return await self._http.send(request, stream=stream)
        except httpx.ConnectError:
            return None
        except httpx.TransportError as error:
            raise APIConnectionError(f"{made.method} {made.path}: {error}") from error

    async def aclose(self) -> None:
        if self._owned:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()


async def _pause(interval: float, give_up: float, job_id: str) -> None:
    if time.monotonic() + interval > give_up:
        raise TimeoutError(f"{job_id} has not finished in the time given")
    await anyio.sleep(interval)


async def _copy(chunks: AsyncIterator[bytes], handle: BinaryIO) -> int:
    written = 0
    async for chunk in chunks:
        handle.write(chunk)
        written += len(chunk)
    return written
