/**
 * The API operations this client calls, in one table: method, path, and whether the operation takes an
 * Idempotency-Key (set once per call, kept across its retries). tests/clients/test_drift.py checks the table
 * against /openapi.json; the bodies and queries are typed by src/schema.ts, generated from it.
 */

import type { components, operations } from "./schema.js";

type Schemas = components["schemas"];
export type ValidationResult = Schemas["SingleResultOut"];
export type BatchResult = Schemas["BatchResultOut"];
export type Accepted = Schemas["AcceptedOut"];
export type ResultsPage = Schemas["ResultsOut"];
export type ListResult = Schemas["ListResultOut"];
export type BulkJob = Schemas["BulkJobOut"];
export type Confirmation = Schemas["ConfirmedOut"];
export type ValidateBody = Schemas["ValidateBody"];
export type BatchBody = Schemas["BatchBody"];
export type ConfirmBody = Schemas["ConfirmBody"];
export type UploadQuery = NonNullable<operations["bulk.upload"]["parameters"]["query"]>;
export type ResultsQuery = NonNullable<operations["batches.results"]["parameters"]["query"]>;
export type DownloadQuery = NonNullable<operations["bulk.download"]["parameters"]["query"]>;

export interface Operation {
  method: "GET" | "POST";
  path: string;
  idempotent?: boolean;
}

export const OPERATIONS = {
  validate: { method: "POST", path: "/validate" },
  validateBatch: { method: "POST", path: "/validate/batch", idempotent: true },
  batchResults: { method: "GET", path: "/batches/{batch_id}/results" },
  upload: { method: "POST", path: "/bulk/jobs", idempotent: true },
  uploadStatus: { method: "GET", path: "/bulk/jobs/{job_id}" },
  download: { method: "GET", path: "/bulk/jobs/{job_id}/download" },
  cancelUpload: { method: "POST", path: "/bulk/jobs/{job_id}/cancel" },
  confirmToken: { method: "POST", path: "/validate/confirm" },
} as const satisfies Record<string, Operation>;

export const FINISHED = new Set(["completed", "cancelled", "failed"]);
