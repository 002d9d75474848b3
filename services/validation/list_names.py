"""A list's name: the uploaded file's own, kept printable, and the name its results are downloaded under."""

from __future__ import annotations

import re

from models.jobs import ValidationJob

MAX_LENGTH = 200
_PATH_SEPARATORS = re.compile(r"[\\/]")


def stored(file_name: str | None) -> str | None:
    """The name as a person reads it: the last part of a path (some browsers send the whole path), without
    control characters, at most ``MAX_LENGTH`` characters; None when nothing is left."""
    base = _PATH_SEPARATORS.split(file_name or "")[-1]
    printable = "".join(character for character in base if character.isprintable()).strip()
    return printable[:MAX_LENGTH].strip() or None


def download_name(job: ValidationJob, fmt: str) -> str:
    """``customers.csv`` gives ``customers-cleaned.csv`` (or ``.json``); a list without a name, its id."""
    stem = job.file_name.rsplit(".", 1)[0].strip() if job.file_name else ""
    return f"{stem}-cleaned.{fmt}" if stem else f"{job.public_id}.{fmt}"
