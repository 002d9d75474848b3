// Drives the built TypeScript client into a real 429 (tests/clients/test_typescript_retries.py): spends the
// account's minute, then makes one batch call through a recording fetch and prints what it saw as JSON.
// Environment: VERIMAIL_API_KEY, VERIMAIL_BASE_URL, PER_MINUTE.
import { Client, RateLimitError } from "../../clients/typescript/dist/index.js";

const impatient = new Client({ retry: { maxRetries: 0 } });
const left = 60 - (Date.now() / 1000) % 60;
if (left < 15) await new Promise((done) => setTimeout(done, (left + 0.5) * 1000)); // refusals in this minute
for (let n = 0; n < Number(process.env.PER_MINUTE); n++) await impatient.validate("deliverable@example.com");

const report = { attempts: [] };
try {
  await impatient.validateBatch(["deliverable@example.com"]);
  report.refused = "no error";
} catch (error) {
  report.refused = error instanceof RateLimitError ? { status: error.status, retryAfter: error.retryAfter } : String(error);
}

const recording = (url, init) => {
  report.attempts.push({ at: performance.now() / 1000, key: new Headers(init.headers).get("Idempotency-Key") });
  return fetch(url, init);
};
const client = new Client({ retry: { maxWait: 61 }, fetch: recording });
const batch = await client.validateBatch(["deliverable@example.com", "role@example.com"]);
const again = await client.validateBatch(["deliverable@example.com", "role@example.com"], undefined, report.attempts[0].key);
report.sameBatch = again.batchId === batch.batchId;
console.log(JSON.stringify(report));
