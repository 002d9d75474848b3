"""The guide's layout table names every folder of the repository and every capability package of
``services/``: a package added without a line there fails."""

from __future__ import annotations

import re

from tests.docs import code
from tests.docs.markdown import table_rows

PAGE = "docs/guide.md"


def _named_folders() -> set[str]:
    first_cells = [cells[0] for cells in table_rows(PAGE) if cells]
    return {name.rstrip("/") for cell in first_cells for name in re.findall(r"`([\w/]+/)`", cell)}


def test_the_layout_names_every_folder_of_the_repository() -> None:
    folders = {path.split("/", 1)[0] for path in code.tracked_files() if "/" in path}
    shown = {folder for folder in folders if not folder.startswith(".")}
    assert sorted(shown - _named_folders()) == []


def test_the_layout_names_every_services_package() -> None:
    packages = {
        path.rsplit("/", 1)[0]
        for path in code.tracked_files()
        if re.fullmatch(r"services/\w+/__init__\.py", path)
    }
    assert sorted(packages - _named_folders()) == []
