/**
 * Reading the errors the AWS SDK throws for S3 calls: their HTTP status, S3 error name and response
 * headers; whether one means a missing object or is worth another attempt; and the `301
 * PermanentRedirect` (bucket in another region) translated into a `StorageError` that says what to
 * set. Browser-safe: no `node:` imports.
 *
 * @internal
 * @packageDocumentation
 */

import { BcolzError, StorageError } from "@fmt/errors";
import { InconsistentAnswer, RetryableFailure, isConnectionError } from "./remote.js";

/** The HTTP status an SDK error carries (`$metadata.httpStatusCode`), e.g. 404; `undefined` without one. */
export function statusOf(error: unknown): number | undefined {
  const status = (error as { $metadata?: { httpStatusCode?: unknown } } | null)?.$metadata?.httpStatusCode;
  return typeof status === "number" ? status : undefined;
}

/** The S3 error code an SDK error is named by (`"NoSuchKey"`, `"SlowDown"`, …); `"Error"` without a name. */
export function nameOf(error: unknown): string {
  const name = (error as { name?: unknown; Code?: unknown } | null)?.name;
  return typeof name === "string" ? name : "Error";
}

/** Throttling, server errors and dropped connections are worth another attempt. */
export function isRetryableS3(error: unknown): boolean {
  const status = statusOf(error);
  if (status !== undefined && (status >= 500 || status === 429)) return true;
  const name = nameOf(error);
  if (/^(SlowDown|InternalError|ServiceUnavailable|RequestTimeout|ThrottlingException|ConditionalRequestConflict)$/.test(name)) return true;
  if (status === 409 && name === "ConditionalRequestConflict") return true;
  return status === undefined && isConnectionError(error);
}

/** A response header of a failed SDK call, if the SDK kept the response. */
export function headerOf(error: unknown, name: string): string | undefined {
  const headers = (error as { $response?: { headers?: Record<string, string | undefined> } } | null)?.$response?.headers;
  if (headers === undefined) return undefined;
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

/** Whether an SDK error says the key does not exist (404, `NoSuchKey`, `NotFound`): `get` then answers `undefined`. */
export function isMissing(error: unknown): boolean {
  const name = nameOf(error);
  return statusOf(error) === 404 || name === "NoSuchKey" || name === "NotFound";
}

/**
 * S3's `301 PermanentRedirect`: the bucket lives in another region. It has no `Location`; the
 * region is in `x-amz-bucket-region` and (to a GET) the endpoint in the XML error body. Not
 * followed, even with `redirects.allowCrossOrigin`: the request would have to be signed for
 * that region, which is the client's configuration.
 */
export function wrongRegion(error: unknown, key: string, operation: string, where: string, origin: string | undefined): StorageError {
  const endpoint = (error as { Endpoint?: unknown } | null)?.Endpoint;
  return wrongRegionError({ region: headerOf(error, "x-amz-bucket-region"), endpoint: typeof endpoint === "string" ? endpoint : undefined, name: nameOf(error), cause: error }, key, operation, where, origin);
}

/**
 * {@link wrongRegion} from the parts of the answer: the region (`x-amz-bucket-region`), the
 * endpoint (the error document's `Endpoint`) and the S3 error name; shared by the SDK path and
 * the direct one (`s3-direct.ts`).
 */
export function wrongRegionError(
  said: { region: string | undefined; endpoint: string | undefined; name: string; cause?: unknown },
  key: string,
  operation: string,
  where: string,
  origin: string | undefined,
): StorageError {
  const { region, endpoint } = said;
  const parts = [region === undefined ? undefined : `region ${region}`, endpoint === undefined ? undefined : `endpoint ${endpoint}`].filter((x) => x !== undefined).join(", ");
  const fix = region === undefined ? "the client's region or endpoint" : `the client's region to "${region}"`;
  return new StorageError("IO_ERROR", `S3 ${operation} of ${where}: the bucket must be addressed through another endpoint (301 PermanentRedirect${parts === "" ? "" : `: ${parts}`}); set ${fix}`, {
    path: key,
    field: region === undefined ? "client.endpoint" : "client.region",
    expected: `the bucket served by ${origin ?? "the configured endpoint"}`,
    actual: `301 ${said.name}${parts === "" ? "" : ` (${parts})`}`,
    cause: said.cause,
  });
}

/**
 * The error a failed S3 request ends in, for both the SDK path and the direct one: the caller's
 * abort reason as it is, a `BcolzError` as it is, an answer that does not fit its request as
 * `IO_ERROR` naming both ranges, anything else as `IO_ERROR` naming the status and S3 error name.
 */
export function requestFailure(error: unknown, key: string, operation: string, where: string, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted === true && error === signal.reason) return error;
  if (error instanceof BcolzError) return error;
  if (error instanceof InconsistentAnswer) {
    return new StorageError("IO_ERROR", `S3 ${operation} of ${where}: ${error.message}; asked ${error.asked}, received ${error.received}`, {
      path: key,
      field: "Content-Range",
      expected: error.asked,
      actual: error.received,
      cause: error,
    });
  }
  const status = statusOf(error);
  const what = status === undefined ? (error instanceof RetryableFailure ? error.message : nameOf(error)) : `${status} ${nameOf(error)}`;
  return new StorageError("IO_ERROR", `S3 ${operation} of ${where} failed: ${(error as Error)?.message ?? what}`, {
    path: key,
    field: "key",
    expected: `a successful ${operation}`,
    actual: what,
    cause: error,
  });
}
