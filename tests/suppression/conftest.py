"""Fixtures of the suppression tests: SNS's certificate directory with the test CA's signing certificate."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from services.suppression import sns
from settings import get_settings
from tests.suppression.signers import SnsSigner


@pytest.fixture(scope="session")
def sns_signer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SnsSigner]:
    """SNS's signing certificate, issued by the test's own CA, trusted through SNS_CERTIFICATE_DIR."""
    directory = tmp_path_factory.mktemp("sns-certificates")
    signer = SnsSigner.into(Path(directory))
    with pytest.MonkeyPatch.context() as env:
        env.setenv("SNS_CERTIFICATE_DIR", str(directory))
        get_settings.cache_clear()
        sns._load.cache_clear()
        yield signer
    get_settings.cache_clear()
    sns._load.cache_clear()
