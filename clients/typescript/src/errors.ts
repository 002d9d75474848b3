/**
 * Errors typed by the API's error codes: one class per family, each with `code`, `status`, `message` and
 * `details` (the body's other fields). A coded answer (`{"error": {"code", "message", ...}}`) is classed by its
 * code, a flat one (`{"error", "message", ...}`) by its status; an unknown code falls back on its status.
 */

export class VerimailError extends Error {
  readonly status: number | undefined;
  readonly code: string | undefined;
  readonly details: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    message: string,
    init: { status?: number; code?: string; details?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(init.status ? `${init.status}${init.code ? ` ${init.code}` : ""}: ${message}` : message);
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? {};
    this.headers = init.headers ?? {};
  }

  /** What to quote to support: the body's requestId (500s) or the X-Request-Id header. */
  get requestId(): string | undefined {
    const found = this.details["requestId"] ?? this.headers["x-request-id"];
    return typeof found === "string" ? found : undefined;
  }
}

/** No answer: the service could not be reached, or the connection broke. */
export class APIConnectionError extends VerimailError {}
/** 401: the key is missing, wrong, revoked or expired. */
export class AuthenticationError extends VerimailError {}
/** 403: the key may not do this (scope, IP allowlist, test mode, plan, origin). */
export class PermissionDeniedError extends VerimailError {}
/** 403: the account already has as many keys, webhook endpoints or sub-users as its plan allows. */
export class LimitReachedError extends PermissionDeniedError {}
/** 429: a rate limit, the monthly hard limit or a publishable key's budget. */
export class RateLimitError extends VerimailError {
  get retryAfter(): number | undefined {
    const value = this.details["retryAfter"] ?? this.headers["retry-after"];
    return value === undefined ? undefined : Number(value);
  }
}
/** 400, 413, 414, 415: the request itself is wrong; `field` names the offending field if one does. */
export class InvalidRequestError extends VerimailError {
  get field(): string | undefined {
    const value = this.details["field"];
    return typeof value === "string" ? value : undefined;
  }
}
/** 404: no such thing for this key. */
export class NotFoundError extends VerimailError {}
/** 409 or 422: understood, refused in the current state (idempotency key reused, list not finished, ...). */
export class ConflictError extends VerimailError {}
/** A verdict token that confirms nothing, or was confirmed before (TOKEN_ALREADY_CONFIRMED). */
export class TokenError extends VerimailError {}
/** 500: a bug on the service's side; quote `requestId`. */
export class ServerError extends VerimailError {}
/** 503: the service's database or Redis is unreachable for a moment; retried automatically. */
export class ServiceUnavailableError extends ServerError {}

type Family = new (message: string, init?: ConstructorParameters<typeof VerimailError>[1]) => VerimailError;

/** Every code the service sends, with its family (tests/clients/test_drift.py keeps it complete). */
export const CODES: Record<string, Family> = {
  MISSING_API_KEY: AuthenticationError,
  INVALID_API_KEY: AuthenticationError,
  QUERY_API_KEY_NOT_ALLOWED: AuthenticationError,
  INBOUND_REQUEST_REFUSED: AuthenticationError,
  INSUFFICIENT_PERMISSIONS: PermissionDeniedError,
  IP_NOT_ALLOWED: PermissionDeniedError,
  LIVE_MODE_REQUIRED: PermissionDeniedError,
  ORIGIN_NOT_ALLOWED: PermissionDeniedError,
  PLAN_UPGRADE_REQUIRED: PermissionDeniedError,
  KEY_LIMIT_REACHED: LimitReachedError,
  WEBHOOK_ENDPOINT_LIMIT_REACHED: LimitReachedError,
  INBOUND_SOURCE_LIMIT_REACHED: LimitReachedError,
  LISTENER_LIMIT_REACHED: LimitReachedError,
  SUB_USER_LIMIT_REACHED: LimitReachedError,
  RATE_LIMIT_EXCEEDED: RateLimitError,
  PUBLISHABLE_KEY_BUDGET_EXCEEDED: RateLimitError,
  BATCH_EMPTY: InvalidRequestError,
  INBOUND_PAYLOAD_INVALID: InvalidRequestError,
  BATCH_TOO_LARGE: InvalidRequestError,
  KEY_INACTIVE: ConflictError,
  EMAIL_TAKEN: ConflictError,
  DOMAIN_TAKEN: ConflictError,
  DOMAIN_NOT_VERIFIED: ConflictError,
  TOKEN_INVALID: TokenError,
  TOKEN_EXPIRED: TokenError,
  TOKEN_KEY_RETIRED: TokenError,
  TOKEN_OF_ANOTHER_ACCOUNT: TokenError,
  TOKEN_EMAIL_MISMATCH: TokenError,
  TOKEN_ALREADY_CONFIRMED: TokenError,
};

const STATUSES: Record<number, Family> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  413: InvalidRequestError,
  414: InvalidRequestError,
  415: InvalidRequestError,
  422: ConflictError,
  429: RateLimitError,
  500: ServerError,
  503: ServiceUnavailableError,
};

function byStatus(status: number): Family {
  return STATUSES[status] ?? (status >= 500 ? ServerError : VerimailError);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The typed error for an answer of `status` with `body` (parsed JSON, or its text). */
export function errorFrom(status: number, body: unknown, headers: Headers): VerimailError {
  const lowered: Record<string, string> = {};
  headers.forEach((value, name) => (lowered[name.toLowerCase()] = value));
  if (isObject(body) && isObject(body["error"])) {
    const { code, message, details, ...rest } = body["error"];
    const fields = { ...rest, ...(isObject(details) ? details : {}) };
    const codeText = typeof code === "string" ? code : undefined;
    const family = (codeText && CODES[codeText]) || byStatus(status);
    return new family(String(message ?? ""), { status, code: codeText, details: fields, headers: lowered });
  }
  if (isObject(body)) {
    const { error, message, ...fields } = body;
    return new (byStatus(status))(String(message ?? error ?? ""), { status, details: fields, headers: lowered });
  }
  return new (byStatus(status))(String(body).slice(0, 500), { status, headers: lowered });
}
