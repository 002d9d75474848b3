/**
 * Verify webhook deliveries: `X-Service-Signature` is the hex HMAC-SHA256 of `timestamp + "." + raw body`,
 * keyed with the endpoint's `whsec_...` secret; `X-Service-Timestamp` is whole Unix seconds. Verify the raw
 * body (before JSON parsing); the tolerance (300 s) stops replays. Web Crypto only (Node 20+, Deno, Bun,
 * browsers, edge runtimes); the comparison is `crypto.subtle.verify`'s, independent of where bytes differ.
 */

export const SIGNATURE_HEADER = "X-Service-Signature";
export const TIMESTAMP_HEADER = "X-Service-Timestamp";
export const DEFAULT_TOLERANCE_SECONDS = 300;

export class SignatureVerificationError extends Error {
  override name = "SignatureVerificationError";
}

export interface WebhookEvent {
  id: string;
  type: string;
  created: number | string;
  livemode?: boolean;
  data: Record<string, unknown>;
  [field: string]: unknown;
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

const encoder = new TextEncoder();

function bytes(body: string | Uint8Array): Uint8Array {
  return typeof body === "string" ? encoder.encode(body) : body;
}

function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

async function hmacKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
    "verify",
  ]);
}

function signed(timestamp: string, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const prefix = encoder.encode(`${timestamp}.`);
  const message = new Uint8Array(prefix.length + body.length);
  message.set(prefix);
  message.set(body, prefix.length);
  return message;
}

/** The hex signature of `body` at `timestamp`: what the service sends. */
export async function computeSignature(secret: string, timestamp: string, body: string | Uint8Array): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret), signed(timestamp, bytes(body)));
  return Array.from(new Uint8Array(mac), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Throws SignatureVerificationError unless `signature` is valid for `body` and recent enough. */
export async function verifySignature(
  body: string | Uint8Array,
  timestamp: string | undefined | null,
  signature: string | undefined | null,
  secret: string,
  options: { tolerance?: number; now?: number } = {},
): Promise<void> {
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE_SECONDS;
  if (!timestamp || !signature) throw new SignatureVerificationError(`missing ${TIMESTAMP_HEADER} or ${SIGNATURE_HEADER}`);
  if (!/^[0-9]{1,12}$/.test(timestamp)) throw new SignatureVerificationError(`${TIMESTAMP_HEADER} must be Unix seconds`);
  const now = options.now ?? Date.now() / 1000;
  if (Math.abs(now - Number(timestamp)) > tolerance) {
    throw new SignatureVerificationError(`timestamp outside the tolerance of ${tolerance} seconds`);
  }
  const received = signature.trim().toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(received)) throw new SignatureVerificationError(`${SIGNATURE_HEADER} must be 64 hex digits`);
  const mac = new Uint8Array(received.match(/../g)!.map((pair) => parseInt(pair, 16)));
  const valid = await crypto.subtle.verify("HMAC", await hmacKey(secret), mac, signed(timestamp, bytes(body)));
  if (!valid) throw new SignatureVerificationError("signature does not match the body and timestamp");
}

/** Verify a delivery from its raw body and request headers, then parse the event. */
export async function constructEvent(
  body: string | Uint8Array,
  headers: HeaderSource,
  secret: string,
  options: { tolerance?: number } = {},
): Promise<WebhookEvent> {
  await verifySignature(body, header(headers, TIMESTAMP_HEADER), header(headers, SIGNATURE_HEADER), secret, options);
  return JSON.parse(typeof body === "string" ? body : new TextDecoder().decode(body)) as WebhookEvent;
}
