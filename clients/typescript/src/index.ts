/** The official TypeScript client of the verimail API: fetch-based, zero runtime dependencies. */

export { Client, VERSION, type ClientOptions } from "./client.js";
export * from "./errors.js";
export type {
  Accepted,
  BatchResult,
  BulkJob,
  Confirmation,
  ListResult,
  ResultsPage,
  UploadQuery,
  ValidationResult,
} from "./operations.js";
export { DEFAULT_RETRY, type RetryPolicy } from "./retry.js";
export type { Progress, UploadSource } from "./upload.js";
export * as webhooks from "./webhooks.js";
export type { components, operations, paths } from "./schema.js";
