/**
 * The options of {@link S3Store}: {@link S3StoreOptions}, with {@link S3RedirectOptions} (which
 * redirects are followed) and {@link ConditionalCreate} (how dataset locks are created). Types
 * only; `@fmt/fs-adapters/s3` re-exports them. Browser-safe: no `node:` imports.
 *
 * @packageDocumentation
 */

import type { S3Client, S3ClientConfig } from "@aws-sdk/client-s3";
import type { HttpTransport } from "./http.js";
import type { BodyLimits, RetryOptions } from "./remote.js";

/**
 * Which redirects {@link S3Store} follows. A redirect to another path of the configured
 * endpoint is always followed (the request is signed again for it).
 *
 * S3 redirects in two ways. `307 TemporaryRedirect` (and any 3xx with a `Location`) names the
 * URL to ask; when that URL is on another scheme, host or port, the request goes there only with
 * `allowCrossOrigin`, and is then signed anew for that host with the client's credentials and
 * region. SigV4 signs the `Host` header, so what the other host receives (the access key ID and a
 * signature for that one request, valid about 15 minutes) cannot be replayed against the
 * configured endpoint or any other host; the secret key never leaves the client. No other header
 * is configured on an S3 store, so nothing else goes along. `301 PermanentRedirect` (the bucket
 * lives in another region) has no `Location`; it is never followed, even with
 * `allowCrossOrigin`, and ends in `IO_ERROR` naming the region (`x-amz-bucket-region`) and the
 * endpoint the server says to use: set the client's `region` (or `endpoint`) accordingly.
 *
 * @example
 * ```ts
 * const redirects: S3RedirectOptions = { maxRedirects: 3 };
 * ```
 */
export interface S3RedirectOptions {
  /** Most redirects followed for one request (default 5). */
  maxRedirects?: number;
  /**
   * Follow a redirect that leaves the configured endpoint (another scheme, host or port); the
   * request is then signed for that host (the signature is valid only there). Default `false`:
   * refused with `IO_ERROR`, nothing is sent there.
   */
  allowCrossOrigin?: boolean;
}

/**
 * How {@link S3Store.putExclusive} (the dataset `.lock`) creates a key only if it is absent.
 *
 * - `"auto"` (default): probe the server once (two conditional PUTs of a scratch key); use
 *   `"native"` if it refuses the second with 412, otherwise `"emulated"`.
 * - `"native"`: `PutObject` with `If-None-Match: *`; atomic on AWS S3 (since 2024), MinIO, R2.
 * - `"emulated"`: HEAD, then PUT, then read back and compare. Detects most races but is not
 *   atomic: two writers that both pass the HEAD within one round trip can both get `true`.
 *
 * When `"auto"` ends in `"emulated"`, the first `putExclusive` (the first lock taken) reports it
 * once through {@link S3StoreOptions.onWarning}; choosing `"emulated"` explicitly says you know,
 * and silences it.
 *
 * @example
 * ```ts
 * const mode: ConditionalCreate = "native";
 * ```
 */
export type ConditionalCreate = "auto" | "native" | "emulated";

/**
 * Options of {@link S3Store}.
 *
 * @example
 * ```ts
 * const options: S3StoreOptions = {
 *   client: { endpoint: "http://127.0.0.1:9000", region: "us-east-1", forcePathStyle: true },
 *   bucket: "datasets",
 *   prefix: "team-a/",
 *   multipartThreshold: 64 << 20,
 *   retry: { maxAttempts: 6, timeoutMs: 20_000 },
 * };
 * ```
 */
export interface S3StoreOptions {
  /**
   * An `S3Client`, or the configuration to build one with. A client built here gets
   * `maxAttempts: 1` because this store does its own retries; a client passed in is used as is
   * (its own retries then multiply with ours).
   */
  client: S3Client | S3ClientConfig;
  /** The bucket. */
  bucket: string;
  /** Prepended to every key; `"a/b"` and `"a/b/"` both put key `k` at `a/b/k`. Default `""`. */
  prefix?: string;
  /** Values larger than this many bytes are uploaded in parts (default 16 MiB). */
  multipartThreshold?: number;
  /** Part size of multipart uploads (default 8 MiB; S3 requires at least 5 MiB). */
  partSize?: number;
  /** Retries, timeouts, abort signal. */
  retry?: RetryOptions;
  /** How `putExclusive` works; see {@link ConditionalCreate}. */
  conditionalCreate?: ConditionalCreate;
  /**
   * Receives warnings meant for the person running the program, worded for them: today only
   * that the server does not enforce conditional writes, so dataset locks are not atomic (sent
   * once, when the first lock is taken). Default `console.warn`.
   */
  onWarning?: (message: string) => void;
  /** Most bytes an answer may bring (whole values, range overread). */
  limits?: BodyLimits;
  /** Which redirects are followed (default: within the configured endpoint only). */
  redirects?: S3RedirectOptions;
  /**
   * Requests a reader keeps in flight (see `ReadableStore.concurrency`); default
   * {@link DEFAULT_REMOTE_CONCURRENCY}. Each is bounded by the reader's chunk or run size.
   */
  concurrency?: number;
  /**
   * Bytes a reader asks for in one range request where it can choose (see
   * `ReadableStore.rangeRequestBytes`): 64 KiB to 16 MiB, default
   * {@link DEFAULT_S3_RANGE_REQUEST_BYTES}. A reader keeps up to `concurrency` such requests in
   * flight. S3 requests cost more than plain HTTP ones, so fewer and larger pay.
   */
  rangeRequestBytes?: number;
  /**
   * Sends the store's reads (`get`, `getRange`, `getInto` and the HEADs that tell "empty" from
   * "missing") through this {@link HttpTransport} instead of the AWS SDK: in Node,
   * `nodeHttpTransport()` of `@fmt/fs-adapters/http-node`; in a browser, `fetchTransport()` of
   * `@fmt/fs-adapters/http`. The store signs them itself (Signature Version 4, with the client's
   * credentials provider and clock offset, corrected from a skewed answer's `Date`) and sends
   * them where the SDK sent its first GET for this bucket that the server took, which it reads
   * the endpoint, addressing style and signing region from; until
   * then, and for clients signed otherwise (SigV4a, S3 Express), reads stay on the SDK. Writes,
   * deletes and lists always go through the SDK. Answers are checked as on the SDK path (status,
   * `Content-Range`, body cap, length, redirects); the SDK's own response checksums are not
   * asked for. A read of many chunk files then costs a fraction of the client CPU: the SDK spends
   * about 2 ms on each request (its middleware, serialisation, a stream per body). Default: none,
   * every request goes through the SDK.
   */
  transport?: HttpTransport;
}
