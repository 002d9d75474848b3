"""Browser validation bodies: what a web page sends and is told, and a server's confirmation of a token."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from services import links
from services.browser.confirmations import Confirmed
from services.browser.validation import BrowserAnswer
from services.browser.verdicts import Reason, Verdict, VerdictName
from settings import BROWSER_TIMEOUT_RANGE, get_settings
from web.schemas.base import LIVEMODE, Body, Out, Timestamp
from web.schemas.errors import CodedError
from web.schemas.inputs import patterned
from web.schemas.validation_bodies import Email

# The token key's id and a dot (absent in tokens sealed before key ids), then Fernet's URL-safe base64;
# tokens are about 300 characters, the bound leaves room and stops junk early.
TOKEN_PATTERN = r"^(?:[A-Za-z0-9_-]{1,32}\.)?[A-Za-z0-9_-]+=*$"  # noqa: S105 - the form of a token, not one
Token = Annotated[
    str, *patterned(TOKEN_PATTERN, "{field} must be a verdict token as the page got it.", max_length=2048)
]
VERDICT = (
    "valid, warning or invalid (the result's severity); unknown when nothing was validated (throttled): "
    "let the address through"
)
REASON = "the finding that matters most, null when nothing stands out"
AUTHORITATIVE = (
    "true when the verdict is the result of a check the service finished; false when it is not (throttled, "
    "or answered before the check finished): the form's server then validates the address itself with "
    "POST /validate"
)


class BrowserValidateBody(Body):
    email: Email
    timeout: float = Field(
        default_factory=lambda: get_settings().browser.timeout,
        ge=BROWSER_TIMEOUT_RANGE[0],
        le=BROWSER_TIMEOUT_RANGE[1],
        description="seconds the page can wait (default BROWSER_TIMEOUT_SECONDS, 3): checks not finished by "
        "then are unknown with the reason timeout",
    )


class VerdictOut(Out):
    """What a form needs about an address, and nothing else (no score, SMTP replies or mail hosts)."""

    email: str = Field(description="the address, trimmed and lowercased as results write it")
    verdict: VerdictName = Field(description=VERDICT)
    reason: Reason | None = Field(description=REASON)
    disposable: bool | None = Field(description="a throwaway mailbox; null when not checked")
    role: bool | None = Field(description="a role account (info@, sales@); null when not checked")
    suggestion: str | None = Field(description="the address the visitor probably meant (a typo's fix)")

    @classmethod
    def fields_of(cls, verdict: Verdict) -> dict[str, Any]:
        return {
            "email": verdict.email,
            "verdict": verdict.verdict,
            "reason": verdict.reason,
            "disposable": verdict.disposable,
            "role": verdict.role,
            "suggestion": verdict.suggestion,
        }


class BrowserAnswerOut(VerdictOut):
    """A web form's answer: the verdict, and a token for the form's server to confirm it with."""

    token: str = Field(description="for the form's server to confirm (POST /validate/confirm)")
    expires_at: Timestamp = Field(description="the token cannot be confirmed after this instant")
    authoritative: bool = Field(description=AUTHORITATIVE)
    livemode: bool = Field(description=LIVEMODE)

    @classmethod
    def of(cls, answer: BrowserAnswer, livemode: bool) -> BrowserAnswerOut:
        return cls(
            **cls.fields_of(answer.verdict),
            token=answer.token,
            expires_at=answer.expires_at,
            authoritative=answer.authoritative,
            livemode=livemode,
        )


class ConfirmBody(Body):
    token: Token
    email: Email = Field(description="the address the form submitted: it must be the one the token is about")


class ConfirmedOut(VerdictOut):
    """The verdict the page was given, from a genuine, unexpired token of this account about this address:
    confirmed (for the first time) when it is authoritative; else not confirmed, with a message saying to
    validate the address with POST /validate (the token is not spent)."""

    confirmed: bool = Field(
        description="true: the verdict is the service's word, confirmed now for the first and only time; "
        "false: it is not authoritative and confirms nothing"
    )
    authoritative: bool = Field(description=AUTHORITATIVE)
    message: str | None = Field(description="why a verdict is not confirmed and what to do; null when it is")
    key_id: int = Field(description="the key whose publishable half the page used")
    validation_id: str | None = Field(description="the validation behind the verdict; null if none ran")
    results_url: str | None = Field(description="its full, settled result (validate:read)")
    issued_at: Timestamp
    confirmed_at: Timestamp | None = Field(description="null when the verdict is not confirmed")
    livemode: bool = Field(description="the token's mode, which is the confirming key's")

    @classmethod
    def of(cls, confirmed: Confirmed, host: str | None, livemode: bool) -> ConfirmedOut:
        claims = confirmed.claims
        job = claims.validation_id
        return cls(
            **cls.fields_of(claims.verdict),
            confirmed=confirmed.confirmed_at is not None,
            authoritative=claims.authoritative,
            message=confirmed.advice,
            key_id=claims.key_id,
            validation_id=job,
            results_url=links.results_url(job, host) if job else None,
            issued_at=claims.issued_at,
            confirmed_at=confirmed.confirmed_at,
            livemode=livemode,
        )


class TokenRefusedOut(CodedError):
    """The token confirms nothing: TOKEN_INVALID (forged or altered), TOKEN_EXPIRED, TOKEN_KEY_RETIRED (sealed
    with a token key the service no longer holds), TOKEN_OF_ANOTHER_ACCOUNT or TOKEN_EMAIL_MISMATCH; the
    page's verdict is not to be trusted, and the token is not used up."""


class TokenReplayedOut(CodedError):
    """TOKEN_ALREADY_CONFIRMED: the token was confirmed before (a replay)."""
