"""The bodies of ``POST /validate`` and ``POST /validate/batch`` (spec 4.1, 4.2), and ``job_options``:
a request's switches as its job's options (a bulk upload's too)."""

from __future__ import annotations

from typing import Annotated, Protocol

from pydantic import BeforeValidator, Field, WithJsonSchema

from services.auth import Actor
from services.jobs.options import JobOptions
from services.validation.errors import BATCH_MAXIMUM
from settings import MAX_AGE_RANGE, VALIDATE_TIMEOUT_RANGE, get_settings
from web.schemas.base import Body
from web.schemas.inputs import NUL_FREE, integral

Email = Annotated[str, Field(max_length=254, description="at most 254 characters")]

RETRY_TEMPORARY = (
    "temporary failures (greylisting, 421, timeouts) are answered `smtp` unknown with `retryAfter` within "
    "the wait either way; true also retries them in the background until JOB_DEADLINE_SECONDS: the results "
    "URL then shows the settled verdicts and the completion event fires once, when the retries end"
)


MAX_AGE = (
    "seconds, 0 to 2592000 (30 days): an address this account validated within them with the same options "
    "(and plan) is answered from that verdict, with no new DNS or SMTP traffic, `metadata.cached` true and "
    "`metadata.checkedAt` the time of the check; only final verdicts are reused (none with a check unknown, "
    "none the service gave up on). "
    "Charged as any validation. 0 always checks live; left out, the service's default "
    "(RECENT_VERDICT_MAX_AGE, 0 unless the operator set one)"
)

# Whole seconds: 60.0 is 60 (JSON has one number type), 1.5 and "60" are refused.
MaxAge = Annotated[int, Field(ge=MAX_AGE_RANGE[0], le=MAX_AGE_RANGE[1]), BeforeValidator(integral)]


class ValidateOptions(Body):
    quick_mode: bool = Field(default=False, description="skip the SMTP and catch-all checks")
    skip_catch_all: bool = Field(default=False, description="skip catch-all detection")
    retry_temporary: bool = Field(default=False, description=RETRY_TEMPORARY)
    max_age: MaxAge | None = Field(default=None, description=MAX_AGE)


TIMEOUT = (
    "seconds the answer may take: it is 200 within them, the checks not finished by then unknown with the "
    "reason `timeout` (`timedOut`, `resultsUrl`), and the validation goes on to its settled result "
    "(results URL, `validation.completed`), charged once. Without it the request waits up to "
    "VALIDATE_WAIT_SECONDS (70) and is answered 202 past it"
)


class SingleOptions(ValidateOptions):
    timeout: float | None = Field(
        default=None, ge=VALIDATE_TIMEOUT_RANGE[0], le=VALIDATE_TIMEOUT_RANGE[1], description=TIMEOUT
    )


class ValidateBody(Body):
    email: Email
    options: SingleOptions = SingleOptions()


class BatchBody(Body):
    """``emails`` must be strings; an address that is not valid still gets its (invalid) result."""

    # The size is checked by the service, which answers BATCH_EMPTY / BATCH_TOO_LARGE (spec 7.1).
    emails: Annotated[
        list[str],
        WithJsonSchema(
            {
                "type": "array",
                "items": {"type": "string", "pattern": NUL_FREE},
                "minItems": 1,
                "maxItems": BATCH_MAXIMUM,
            }
        ),
    ]
    options: ValidateOptions = ValidateOptions()


class Switches(Protocol):
    @property
    def quick_mode(self) -> bool: ...
    @property
    def skip_catch_all(self) -> bool: ...
    @property
    def retry_temporary(self) -> bool: ...
    @property
    def max_age(self) -> int | None: ...


def job_options(actor: Actor, options: Switches) -> JobOptions:
    """The switches as the job's options, in the caller's mode (a test key's jobs are test-mode jobs)."""
    return JobOptions.for_account(
        actor.account,
        quick_mode=options.quick_mode,
        skip_catch_all=options.skip_catch_all,
        retry_temporary=options.retry_temporary,
        max_age=default_max_age() if options.max_age is None else options.max_age,
        livemode=actor.livemode,
    )


def default_max_age() -> int:
    """``options.maxAge`` of a request that names none (``RECENT_VERDICT_MAX_AGE``)."""
    return get_settings().jobs.recent_max_age
