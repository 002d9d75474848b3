// Drives the built TypeScript client (clients/typescript/dist) against the live service; tests/clients/
// test_typescript_client.py runs it with node and reads the one JSON object it prints.
// Environment: VERIMAIL_API_KEY, VERIMAIL_BASE_URL, LIST_PATH, OUT_PATH, HOOK_* (a signed delivery).
import { readFile } from "node:fs/promises";
import { AuthenticationError, Client, InvalidRequestError, TokenError, webhooks } from "../../clients/typescript/dist/index.js";

const client = new Client({ retry: { maxWait: 61 } });
const report = {};

const single = await client.validate("deliverable@example.com");
report.single = { isValid: single.isValid, severity: single.severity, livemode: single.livemode };

const batch = await client.validateBatch(["deliverable@example.com", "undeliverable@example.com"]);
await client.waitForBatch(batch.batchId, { interval: 0.2, timeout: 60 });
report.batch = [];
for await (const result of client.iterResults(batch.batchId, 1)) report.batch.push([result.email, result.isValid]);

const progress = [];
const job = await client.upload(process.env.LIST_PATH, { onProgress: (sent, total) => progress.push([sent, total]) });
const finished = await client.waitForUpload(job.id, { interval: 0.3, timeout: 90 });
const written = await client.downloadToFile(job.id, process.env.OUT_PATH);
report.upload = { id: job.id, status: finished.status, total: finished.total, written, progress };

for (const [name, attempt] of [
  ["badKey", () => new Client({ apiKey: "sk_test_" + "0".repeat(40) }).validate("deliverable@example.com")],
  ["emptyBatch", () => client.validateBatch([])],
]) {
  try {
    await attempt();
    report[name] = "no error";
  } catch (error) {
    const family = error instanceof AuthenticationError ? "AuthenticationError" : error instanceof InvalidRequestError ? "InvalidRequestError" : error.constructor.name;
    report[name] = { family, status: error.status, code: error.code ?? null };
  }
}

const form = new Client({ apiKey: process.env.FORM_KEY });
const confirmed = await form.confirmToken(process.env.TOKEN, process.env.TOKEN_EMAIL);
let replay = "accepted";
try {
  await form.confirmToken(process.env.TOKEN, process.env.TOKEN_EMAIL);
} catch (error) {
  replay = error instanceof TokenError ? [error.status, error.code] : String(error);
}
report.token = { confirmed: confirmed.confirmed, verdict: confirmed.verdict, replay };

const body = await readFile(process.env.HOOK_BODY_PATH);
const headers = { "X-Service-Timestamp": process.env.HOOK_TIMESTAMP, "X-Service-Signature": process.env.HOOK_SIGNATURE };
const event = await webhooks.constructEvent(body, headers, process.env.HOOK_SECRET);
let altered = "accepted";
try {
  await webhooks.constructEvent(Buffer.concat([body, Buffer.from(" ")]), headers, process.env.HOOK_SECRET);
} catch (error) {
  altered = error.name;
}
report.webhook = { type: event.type, id: event.id, altered };

console.log(JSON.stringify(report));
