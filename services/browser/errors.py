"""Errors of browser validation and token confirmation (``web/errors.py`` shapes them; docs/decisions.md
lists their statuses)."""

from __future__ import annotations

from services.errors import CodedError


class OriginNotAllowed(CodedError):
    """The page calling is not on one of the key's allowed origins (or no page is: no Origin header)."""

    code = "ORIGIN_NOT_ALLOWED"


class TokenRefused(CodedError):
    """A verdict token that does not confirm anything; each subclass names why."""


class TokenInvalid(TokenRefused):
    """Not a token this service issued, or one altered since: forged, truncated, tampered with."""

    code = "TOKEN_INVALID"


class TokenKeyRetired(TokenRefused):
    """Sealed with a token key the service no longer holds (rotated out of ``VERDICT_TOKEN_KEYS``)."""

    code = "TOKEN_KEY_RETIRED"


class TokenExpired(TokenRefused):
    code = "TOKEN_EXPIRED"


class TokenAlreadyConfirmed(TokenRefused):
    """A token confirms one form submission: a second confirmation is a replay."""

    code = "TOKEN_ALREADY_CONFIRMED"


class TokenOfAnotherAccount(TokenRefused):
    code = "TOKEN_OF_ANOTHER_ACCOUNT"


class TokenEmailMismatch(TokenRefused):
    """The token is genuine but about another address than the one the form submitted."""

    code = "TOKEN_EMAIL_MISMATCH"
