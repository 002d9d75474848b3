// node examples/validate.mjs  (VERIMAIL_API_KEY=sk_test_..., VERIMAIL_BASE_URL optional)
import { Client, RateLimitError } from "../dist/index.js";

const client = new Client();
const single = await client.validate("deliverable@example.com");
console.log("single:", single.email, single.severity);
try {
  const batch = await client.validateBatch(["role@example.com", "disposable@example.com"]);
  for await (const result of client.iterResults(batch.batchId)) console.log("batch:", result.email, result.severity);
} catch (error) {
  if (error instanceof RateLimitError) console.log("still limited; retry in", error.retryAfter, "s");
  else throw error;
}
