/** The client: `new Client({ apiKey })`, then `await client.validate("a@b.com")`. */

import { APIConnectionError, VerimailError, errorFrom } from "./errors.js";
import {
  FINISHED,
  OPERATIONS,
  type Accepted,
  type BatchBody,
  type BatchResult,
  type BulkJob,
  type Confirmation,
  type ListResult,
  type ResultsPage,
  type UploadQuery,
  type ValidateBody,
  type ValidationResult,
} from "./operations.js";
import { DEFAULT_RETRY, retryWait, sleep, type RetryPolicy } from "./retry.js";
import { MEDIA_TYPES, guessFormat, uploadBody, type Body, type Progress, type UploadSource } from "./upload.js";

export const VERSION = "0.1.0";

export interface ClientOptions {
  /** The secret key (sk_live_/sk_test_); default: process.env.VERIMAIL_API_KEY. */
  apiKey?: string;
  /** Default: process.env.VERIMAIL_BASE_URL, else http://127.0.0.1:8000. */
  baseUrl?: string;
  retry?: Partial<RetryPolicy>;
  /** Seconds before one request gives up. Default 60. */
  timeout?: number;
  /** Another fetch (a proxy agent's, a recorder's). Default: the global fetch. */
  fetch?: typeof fetch;
}

interface Call {
  operation: keyof typeof OPERATIONS;
  path?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  body?: Body;
  headers?: Record<string, string>;
  idempotencyKey?: string;
}

interface WaitOptions {
  /** Seconds between polls. Default 1. */
  interval?: number;
  /** Seconds before giving up. Default 600. */
  timeout?: number;
}

function environment(name: string): string | undefined {
  return typeof process === "undefined" ? undefined : process.env[name];
}

export class Client {
  readonly baseUrl: string;
  readonly retry: RetryPolicy;
  private readonly apiKey: string;
  private readonly timeout: number;
  private readonly fetcher: typeof fetch;

  constructor(options: ClientOptions = {}) {
    const apiKey = options.apiKey ?? environment("VERIMAIL_API_KEY");
    if (!apiKey) throw new VerimailError("Give an API key (apiKey, or the VERIMAIL_API_KEY environment variable).");
    this.apiKey = apiKey;
    this.baseUrl = (options.baseUrl ?? environment("VERIMAIL_BASE_URL") ?? "http://127.0.0.1:8000").replace(/\/+$/, "");
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.timeout = options.timeout ?? 60;
    this.fetcher = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** One address. A 202 (the SMTP check goes on past the service's wait) is polled until settled. */
  async validate(email: string, options?: ValidateBody["options"]): Promise<ValidationResult | ListResult> {
    const response = await this.send({ operation: "validate", json: { email, ...(options ? { options } : {}) } });
    if (response.status === 202) {
      const accepted = (await parsed(response)) as Accepted;
      const page = await this.waitForBatch(accepted.batchId, { interval: 0.5 });
      return page.results[0] as ListResult;
    }
    return (await parsed(response)) as ValidationResult;
  }

  /** 1 to 100 addresses; Accepted (202) when not all were answered in time: see waitForBatch. */
  async validateBatch(
    emails: string[],
    options?: BatchBody["options"],
    idempotencyKey?: string,
  ): Promise<BatchResult | Accepted> {
    const json: BatchBody = { emails, ...(options ? { options } : {}) };
    return (await this.json({ operation: "validateBatch", json, idempotencyKey })) as BatchResult | Accepted;
  }

  async resultsPage(batchId: string, startingAfter?: number, limit = 100): Promise<ResultsPage> {
    const query = { startingAfter, limit };
    return (await this.json({ operation: "batchResults", path: { batch_id: batchId }, query })) as ResultsPage;
  }

  /** Every settled result of a batch or list (a blk_ id), page after page, in submission order. */
  async *iterResults(batchId: string, pageSize = 100): AsyncGenerator<ListResult> {
    let after: number | undefined;
    for (;;) {
      const page = await this.resultsPage(batchId, after, pageSize);
      yield* page.results;
      after = page.nextStartingAfter ?? undefined;
      if (!page.hasMore || after === undefined) return;
    }
  }

  async waitForBatch(batchId: string, options: WaitOptions = {}): Promise<ResultsPage> {
    return this.poll(() => this.resultsPage(batchId, undefined, 1), batchId, options);
  }

  /** Send a list (a CSV or JSON file path, Blob, bytes or stream); onProgress(sent, total) as it goes. */
  async upload(
    source: UploadSource,
    options: { format?: "csv" | "json"; query?: UploadQuery; onProgress?: Progress; idempotencyKey?: string } = {},
  ): Promise<BulkJob> {
    const body = await uploadBody(source, options.onProgress);
    const headers = { "Content-Type": MEDIA_TYPES[guessFormat(source, options.format)] };
    const call = { operation: "upload", query: options.query, body, headers, idempotencyKey: options.idempotencyKey };
    return (await this.json(call as Call)) as BulkJob;
  }

  async getUpload(jobId: string): Promise<BulkJob> {
    return (await this.json({ operation: "uploadStatus", path: { job_id: jobId } })) as BulkJob;
  }

  async cancelUpload(jobId: string): Promise<BulkJob> {
    return (await this.json({ operation: "cancelUpload", path: { job_id: jobId } })) as BulkJob;
  }

  async waitForUpload(jobId: string, options: WaitOptions = {}): Promise<BulkJob> {
    return this.poll(() => this.getUpload(jobId), jobId, { timeout: 3600, ...options });
  }

  /** A finished list's results (csv or json), streamed. */
  async download(jobId: string, format: "csv" | "json" = "csv"): Promise<ReadableStream<Uint8Array>> {
    const response = await this.send({ operation: "download", path: { job_id: jobId }, query: { format } });
    if (!response.ok) throw await failure(response);
    if (!response.body) throw new VerimailError("the download answered no body");
    return response.body;
  }

  /** Node: stream a finished list's results into a file; the bytes written. */
  async downloadToFile(jobId: string, path: string, format: "csv" | "json" = "csv"): Promise<number> {
    const [{ createWriteStream }, { Writable }] = await Promise.all([import("node:fs"), import("node:stream")]);
    let written = 0;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        written += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    await (await this.download(jobId, format)).pipeThrough(counter).pipeTo(Writable.toWeb(createWriteStream(path)));
    return written;
  }

  /** Check a verdict token a web page passed on; a refused or replayed token throws TokenError. */
  async confirmToken(token: string, email: string): Promise<Confirmation> {
    return (await this.json({ operation: "confirmToken", json: { token, email } })) as Confirmation;
  }

  private async poll<T extends { status: string }>(read: () => Promise<T>, id: string, options: WaitOptions) {
    const giveUp = Date.now() + (options.timeout ?? 600) * 1000;
    for (;;) {
      const state = await read();
      if (FINISHED.has(state.status)) return state;
      if (Date.now() + (options.interval ?? 1) * 1000 > giveUp) throw new VerimailError(`${id} has not finished in time`);
      await sleep(options.interval ?? 1);
    }
  }

  private async json(call: Call): Promise<unknown> {
    return parsed(await this.send(call));
  }

  /** One call, retried on 429/503 (and a connection not made); every attempt carries the same headers. */
  private async send(call: Call): Promise<Response> {
    const operation = OPERATIONS[call.operation];
    const headers: Record<string, string> = {
      "X-API-Key": this.apiKey,
      Accept: "application/json",
      "User-Agent": `verimail-typescript/${VERSION}`,
      ...call.headers,
    };
    if ("idempotent" in operation && operation.idempotent) {
      headers["Idempotency-Key"] = call.idempotencyKey ?? crypto.randomUUID();
    }
    if (call.json !== undefined) headers["Content-Type"] = "application/json";
    const policy = call.body && !call.body.replayable ? { ...this.retry, maxRetries: 0 } : this.retry;
    const url = this.url(operation.path, call);
    for (let attempt = 0; ; attempt++) {
      const response = await this.attempt(url, operation.method, headers, call);
      const wait = retryWait(policy, attempt, response);
      if (wait === undefined) {
        if (!response) throw new APIConnectionError(`could not connect to ${this.baseUrl}`);
        return response;
      }
      await response?.body?.cancel();
      await sleep(wait);
    }
  }

  private async attempt(url: string, method: string, headers: Record<string, string>, call: Call) {
    const init: RequestInit & { duplex?: "half" } = { method, headers, signal: AbortSignal.timeout(this.timeout * 1000) };
    if (call.json !== undefined) init.body = JSON.stringify(call.json);
    if (call.body) {
      init.body = call.body.stream();
      init.duplex = "half"; // a streamed request body (fetch's rule)
    }
    try {
      return await this.fetcher(url, init);
    } catch (error) {
      if (isConnectionRefused(error)) return null;
      throw new APIConnectionError(`${method} ${url}: ${String(error)}`);
    }
  }

  private url(template: string, call: Call): string {
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(call.path?.[name] ?? ""));
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) query.set(name, String(value));
    }
    const text = query.toString();
    return `${this.baseUrl}${path}${text ? `?${text}` : ""}`;
  }
}

function isConnectionRefused(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } } | undefined)?.cause;
  return cause?.code === "ECONNREFUSED";
}

async function parsed(response: Response): Promise<unknown> {
  if (response.ok) return response.json();
  throw await failure(response);
}

async function failure(response: Response): Promise<VerimailError> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON (a proxy's page): the text is the message
  }
  return errorFrom(response.status, body, response.headers);
}
