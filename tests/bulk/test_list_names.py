"""A list is named by the file it was uploaded as: printable, without a path, and downloaded under it."""

from __future__ import annotations

import pytest

from models.jobs import ValidationJob
from services.validation import list_names


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("customers.csv", "customers.csv"),
        ("C:\\Users\\ann\\Kunden März.csv", "Kunden März.csv"),  # old browsers send the whole path
        ("../../etc/passwd", "passwd"),
        ('evil"\r\nSet-Cookie: x.csv', 'evil"Set-Cookie: x.csv'),
        ("   ", None),
        (None, None),
        ("a" * 300 + ".csv", "a" * list_names.MAX_LENGTH),
    ],
)
def test_the_uploaded_name_is_kept_as_a_person_reads_it(given: str | None, kept: str | None) -> None:
    assert list_names.stored(given) == kept


@pytest.mark.parametrize(
    ("file_name", "fmt", "download"),
    [
        ("customers.csv", "csv", "customers-cleaned.csv"),
        ("customers.csv", "json", "customers-cleaned.json"),
        ("no extension", "csv", "no extension-cleaned.csv"),
        (".csv", "csv", "blk_abc.csv"),
        (None, "csv", "blk_abc.csv"),  # uploaded through the API: no file name
    ],
)
def test_results_download_under_the_lists_name(file_name: str | None, fmt: str, download: str) -> None:
    job = ValidationJob(public_id="blk_abc", file_name=file_name)
    assert list_names.download_name(job, fmt) == download
