/**
 * When to try a request again: 429 and 503, after the `Retry-After` the service sent plus up to `jitter` of it
 * at random (so refused clients do not return together). A wait over `maxWait` is not slept: the error is
 * thrown at once (the monthly hard limit says "next month").
 */

export interface RetryPolicy {
  /** Attempts after the first; 0 turns retries off. Default 3. */
  maxRetries: number;
  /** Seconds: the longest one wait may be. Default 60 (a minute's rate window). */
  maxWait: number;
  /** Seconds before the first retry when the answer gives no Retry-After. Default 0.5. */
  backoff: number;
  /** Up to this share of the wait is added at random. Default 0.25. */
  jitter: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 3, maxWait: 60, backoff: 0.5, jitter: 0.25 };
const RETRIED = new Set([429, 503]);

/** Seconds to wait before attempt `attempt + 1`, or undefined to stop (`response` null: no connection). */
export function retryWait(policy: RetryPolicy, attempt: number, response: Response | null): number | undefined {
  if (attempt >= policy.maxRetries) return undefined;
  if (response && !RETRIED.has(response.status)) return undefined;
  const asked = response ? retryAfter(response) : undefined;
  const base = asked ?? policy.backoff * 2 ** attempt;
  if (base > policy.maxWait) return undefined;
  return base + Math.random() * policy.jitter * Math.max(base, policy.backoff);
}

function retryAfter(response: Response): number | undefined {
  const value = response.headers.get("Retry-After");
  const seconds = value === null ? NaN : Number(value);
  return Number.isFinite(seconds) ? Math.max(0, seconds) : undefined;
}

export function sleep(seconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, seconds * 1000));
}
