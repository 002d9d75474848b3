/**
 * What `upload` sends: a file path (Node), a Blob, bytes or a ReadableStream, with a progress callback.
 * A path, Blob or bytes can be sent again, so an upload refused with 429/503 is retried under the same
 * Idempotency-Key; a ReadableStream is sent once, since what it gave is gone.
 */

export type UploadSource = string | Blob | Uint8Array | ReadableStream<Uint8Array>;
export type Progress = (sent: number, total: number | undefined) => void;

export interface Body {
  stream(): ReadableStream<Uint8Array>;
  size: number | undefined;
  replayable: boolean;
}

export async function uploadBody(source: UploadSource, onProgress?: Progress): Promise<Body> {
  if (typeof source === "string") {
    const { openAsBlob } = await import("node:fs");
    return uploadBody(await openAsBlob(source), onProgress);
  }
  if (source instanceof ReadableStream) {
    return { stream: () => counted(source, undefined, onProgress), size: undefined, replayable: false };
  }
  const blob = source instanceof Blob ? source : new Blob([new Uint8Array(source)]);
  return { stream: () => counted(blob.stream(), blob.size, onProgress), size: blob.size, replayable: true };
}

function counted(stream: ReadableStream<Uint8Array>, total: number | undefined, onProgress?: Progress) {
  let sent = 0;
  onProgress?.(0, total);
  return stream.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        controller.enqueue(chunk);
        sent += chunk.byteLength;
        onProgress?.(sent, total);
      },
    }),
  );
}

export function guessFormat(source: UploadSource, given?: "csv" | "json"): "csv" | "json" {
  if (given) return given;
  return typeof source === "string" && source.toLowerCase().endsWith(".json") ? "json" : "csv";
}

export const MEDIA_TYPES = { csv: "text/csv", json: "application/json" } as const;
