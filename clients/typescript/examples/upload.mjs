// node examples/upload.mjs list.csv results.csv
import { Client } from "../dist/index.js";

const [, , list, out] = process.argv;
const client = new Client();
const job = await client.upload(list, { onProgress: (sent, total) => process.stdout.write(`\rsent ${sent} of ${total}`) });
console.log(`\n${job.id}: ${job.total} rows`);
const finished = await client.waitForUpload(job.id, { interval: 2 });
console.log("finished:", finished.status, finished.counts);
console.log("wrote", await client.downloadToFile(job.id, out), "bytes to", out);
