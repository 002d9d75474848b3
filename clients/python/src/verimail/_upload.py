"""What ``upload`` sends: a file path or a binary stream, read in chunks, with a progress callback.

A path or a seekable stream can be sent again, so an upload refused with 429/503 is retried (under the same
Idempotency-Key); a stream that cannot seek is sent once, since what it gave is gone.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

Progress = Callable[[int, int | None], None]  # (bytes sent, total bytes or None when unknown)
CHUNK = 64 * 1024
MEDIA_TYPES = {"csv": "text/csv", "json": "application/json"}


@dataclass
class Upload:
    source: str | os.PathLike[str] | BinaryIO
    on_progress: Progress | None = None

    def __post_init__(self) -> None:
        stream = None if isinstance(self.source, str | os.PathLike) else self.source
        self._start = stream.tell() if stream is not None and stream.seekable() else None
        self.replayable = stream is None or self._start is not None
        self.size = self._size(stream)

    def _size(self, stream: BinaryIO | None) -> int | None:
        if stream is None:
            return Path(self.source).stat().st_size  # type: ignore[arg-type]
        if self._start is None:
            return None
        end = stream.seek(0, os.SEEK_END)
        stream.seek(self._start)
        return end - self._start

    def headers(self, format: str) -> dict[str, str]:
        sized = {"Content-Length": str(self.size)} if self.size is not None else {}
        return {"Content-Type": MEDIA_TYPES[format], **sized}

    def chunks(self) -> Iterator[bytes]:
        """The body from its start, reporting progress as it goes."""
        if isinstance(self.source, str | os.PathLike):
            with open(self.source, "rb") as handle:
                yield from self._read(handle)
            return
        if self._start is not None:
            self.source.seek(self._start)
        yield from self._read(self.source)

    async def async_chunks(self) -> AsyncIterator[bytes]:
        # Local files and in-memory streams answer at once; a slow stream should be read in a thread
        # by the caller (the trade-off: no thread per chunk here).
        for chunk in self.chunks():
            yield chunk

    def _read(self, handle: BinaryIO) -> Iterator[bytes]:
        sent = 0
        self._report(0)
        while chunk := handle.read(CHUNK):
            yield chunk
            sent += len(chunk)
            self._report(sent)

    def _report(self, sent: int) -> None:
        if self.on_progress is not None:
            self.on_progress(sent, self.size)


def guess_format(source: object, given: str | None) -> str:
    """``csv`` or ``json``: as given, else from a path's suffix, else csv."""
    if given is not None:
        if given not in MEDIA_TYPES:
            raise ValueError(f"format must be csv or json, not {given!r}")
        return given
    if isinstance(source, str | os.PathLike) and Path(source).suffix.lower() == ".json":
        return "json"
    return "csv"
