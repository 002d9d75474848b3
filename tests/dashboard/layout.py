"""What a phone shows wrong: content cut off or wider than the screen, and words left for the reader to fix.

``clipped`` (``clipped.js``) lists every visible element that runs past the viewport's right edge, every box
whose content is wider than the box and hidden or scrolled sideways, and every table cell whose content
spills out. The main navigation scrolls sideways on purpose (with a fade that says so), so it is left out;
so is what is hidden off-screen by design (the skip link, headings kept for screen readers only).
"""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page

CLIPPED = (Path(__file__).parent / "clipped.js").read_text()
UNFINISHED_PLURAL = re.compile(r"\w\(s\)")


def clipped(page: Page) -> list[str]:
    problems: list[str] = page.evaluate(CLIPPED)
    return problems


def unfinished_plurals(page: Page) -> list[str]:
    """ "day(s)" and the like: the page should say "1 day" or "2 days"."""
    return UNFINISHED_PLURAL.findall(page.inner_text("body"))
