/**
 * {@link S3Store}: a {@link WritableStore} over an S3-compatible bucket (AWS S3, MinIO, Ceph RGW,
 * Cloudflare R2, GCS interoperability) through `@aws-sdk/client-s3`. Import it from
 * `@fmt/fs-adapters/s3`. Browser-safe: no `node:` imports of its own.
 *
 * `@aws-sdk/client-s3` is an optional peer dependency of `@fmt/fs-adapters`: install it next to
 * this package to use the S3 store (`npm install @aws-sdk/client-s3`). Only this entry point loads
 * it; without it, importing this module rejects with a `UsageError` (`INVALID_ARGUMENT`, field
 * `@aws-sdk/client-s3`) that says what to install.
 *
 * @example
 * ```ts
 * import { S3Store } from "@fmt/fs-adapters/s3";
 * import { open } from "@fmt/store";
 * const store = new S3Store({ client: { region: "eu-west-1" }, bucket: "my-data", prefix: "bcolz/" });
 * const prices = await open(store, "prices.bcolz");
 * ```
 * @packageDocumentation
 */

import type {
  CreateMultipartUploadCommandOutput,
  GetObjectCommandOutput,
  ListObjectsV2CommandOutput,
  S3Client,
  S3ClientConfig,
  UploadPartCommandOutput,
} from "@aws-sdk/client-s3";
import { BcolzError, StorageError, UsageError } from "@fmt/errors";
import { checkPutOptions, resolveRange, validateKey, validatePrefix } from "./index.js";
import type { ByteRange, PutOptions, WritableStore } from "./index.js";
import {
  InconsistentAnswer,
  checkConcurrency,
  RemoteStats,
  RetryableFailure,
  bodyCap,
  extractAsked,
  isConnectionError,
  parseRetryAfter,
  rangeHeader,
  readCapped,
  resolveBodyLimits,
  resolveRetryOptions,
  withRetries,
} from "./remote.js";
import type { Asked, BodyLimits, RetryOptions } from "./remote.js";

/** The version range of `@aws-sdk/client-s3` this store is built and tested against. */
const SDK_RANGE = "^3.1169.0";

/**
 * Whether `error` says that the package `@aws-sdk/client-s3` itself could not be found (not one of
 * its own files or dependencies, which would be a broken installation instead).
 */
function isSdkMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  const namesSdk = /@aws-sdk\/client-s3(?![\w/-])/.test(message);
  return namesSdk && (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND" || /cannot find|failed to (resolve|load)|not found/i.test(message));
}

/**
 * Loads the AWS SDK's S3 client, an optional peer dependency: `@fmt/fs-adapters` and
 * `@fmt/fs-adapters/node` never load it, so local-disk users need not install it.
 */
async function loadSdk(): Promise<typeof import("@aws-sdk/client-s3")> {
  try {
    return await import("@aws-sdk/client-s3");
  } catch (error) {
    if (!isSdkMissing(error)) throw error;
    throw new UsageError(
      "INVALID_ARGUMENT",
      `S3Store needs the AWS SDK's S3 client, which is not installed: run \`npm install @aws-sdk/client-s3@${SDK_RANGE}\` ` +
        "(an optional peer dependency of @fmt/fs-adapters, left out so that local-disk users do not pay for it)",
      { field: "@aws-sdk/client-s3", cause: error },
    );
  }
}

const sdk = await loadSdk();
const {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
} = sdk;

export type { ByteRange, PutOptions, ReadableStore, WritableStore } from "./index.js";
export { DEFAULT_REMOTE_CONCURRENCY, RemoteStats } from "./remote.js";
export type { BodyLimits, RetryOptions } from "./remote.js";

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

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The part of an SDK command this store touches: its own middleware stack. */
interface CommandWithStack {
  middlewareStack: { add(middleware: unknown, options: { step: "build"; name: string; priority?: "low" }): void };
}

/** The part of an SDK HTTP request a redirect changes. */
interface RequestLike {
  protocol: string;
  hostname: string;
  port?: number | undefined;
  path: string;
  query?: Record<string, string | string[] | null>;
  headers: Record<string, string>;
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
}

const MIB = 1024 * 1024;
// A scratch key for the conditional-write probe; `list` hides it.
const PROBE_MARKER = ".fmt-probe-";

function statusOf(error: unknown): number | undefined {
  const status = (error as { $metadata?: { httpStatusCode?: unknown } } | null)?.$metadata?.httpStatusCode;
  return typeof status === "number" ? status : undefined;
}

function nameOf(error: unknown): string {
  const name = (error as { name?: unknown; Code?: unknown } | null)?.name;
  return typeof name === "string" ? name : "Error";
}

/** Throttling, server errors and dropped connections are worth another attempt. */
function isRetryableS3(error: unknown): boolean {
  const status = statusOf(error);
  if (status !== undefined && (status >= 500 || status === 429)) return true;
  const name = nameOf(error);
  if (/^(SlowDown|InternalError|ServiceUnavailable|RequestTimeout|ThrottlingException|ConditionalRequestConflict)$/.test(name)) return true;
  if (status === 409 && name === "ConditionalRequestConflict") return true;
  return status === undefined && isConnectionError(error);
}

/** A response header of a failed SDK call, if the SDK kept the response. */
function headerOf(error: unknown, name: string): string | undefined {
  const headers = (error as { $response?: { headers?: Record<string, string | undefined> } } | null)?.$response?.headers;
  if (headers === undefined) return undefined;
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

function isMissing(error: unknown): boolean {
  const name = nameOf(error);
  return statusOf(error) === 404 || name === "NoSuchKey" || name === "NotFound";
}

function randomHex(): string {
  const bytes = new Uint8Array(8);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * A {@link WritableStore} over an S3 bucket: key `k` is the object `<prefix>k`.
 *
 * - `get`/`getRange` give `undefined` for a missing object (404 / NoSuchKey). Ranges become
 *   `Range: bytes=a-b` or `bytes=-n` (suffix); a range past the end is clipped like every store
 *   (the server's 416 is answered with one HEAD).
 * - `put` is one `PutObject`, or a multipart upload above `multipartThreshold` (aborted if a part
 *   fails for good). S3 replaces objects atomically, so readers see the old or the new value.
 * - `delete` of a missing key is not an error; `list` pages through `ListObjectsV2` (1,000 keys
 *   a page) and returns every key under the prefix, sorted.
 * - Dataset locks: `putExclusive` creates the lock with a conditional PUT ({@link ConditionalCreate};
 *   a server that does not enforce it is reported through `onWarning`), `deleteIfUnchanged`
 *   releases it only while it still holds the releasing writer's bytes (DELETE with `If-Match`).
 * - Throttling (503 SlowDown), other 5xx, 429, timeouts and dropped connections are retried with
 *   jittered exponential backoff ({@link RetryOptions}), honouring `Retry-After` within
 *   `retry.deadlineMs`; a body shorter than its Content-Length and an unparseable answer (retried
 *   on a fresh connection) too.
 * - Every GET answer is checked against its request: a `206` must name a `Content-Range` that
 *   covers the asked range (a superset is fine: the asked bytes are taken out of it), a `200` to
 *   a range request is the whole object (sliced), and a body is capped by what the request can
 *   return (`limits`) — an answer announcing more is refused unread, one streaming past it is
 *   cancelled. An inconsistent answer is asked again, then ends in `IO_ERROR` naming the key, the
 *   asked range and the received one.
 * - A redirect (3xx with `Location`) within the configured endpoint is followed; one that leaves
 *   it is refused with `IO_ERROR` unless `redirects.allowCrossOrigin`, and then signed for the
 *   new host ({@link S3RedirectOptions}). A `301 PermanentRedirect` without `Location` (wrong
 *   region) is `IO_ERROR` naming the region and endpoint to use. Any other failure, or the last failed attempt, is a `StorageError` `IO_ERROR` whose
 *   `path` is the key and whose `actual` is the HTTP status and S3 error name. An abort through
 *   `retry.signal` rejects with the signal's reason.
 *
 * @example
 * ```ts
 * const store = new S3Store({ client: new S3Client({ region: "us-east-1" }), bucket: "data" });
 * await store.put("x/meta/sizes", new TextEncoder().encode("{}"));
 * console.log(await store.getRange("x/meta/sizes", { suffixLength: 1 })); // Uint8Array [125]
 * ```
 */
export class S3Store implements WritableStore {
  /** The SDK client in use. */
  readonly client: S3Client;
  /** The bucket. */
  readonly bucket: string;
  /** The key prefix, `""` or ending in `/`. */
  readonly prefix: string;
  /** Requests and bytes this store has used so far. */
  readonly stats = new RemoteStats();
  /** Suffix ranges the server answered from the wrong end, repaired with a second request. */
  suffixRepairs = 0;
  readonly #retry: ReturnType<typeof resolveRetryOptions>;
  readonly #multipartThreshold: number;
  readonly #partSize: number;
  #conditional: ConditionalCreate;
  #probe: Promise<"native" | "emulated"> | undefined;
  readonly #onWarning: (message: string) => void;
  #warnedEmulated = false;
  /** What the probe saw when it chose `"emulated"`, for the warning. */
  #emulatedBecause = "";
  readonly #limits: Required<BodyLimits>;
  /** Requests a reader keeps in flight; see the `concurrency` option. */
  readonly concurrency: number;
  readonly #maxRedirects: number;
  readonly #allowCrossOrigin: boolean;

  /** Connects to `options.bucket` (nothing is sent until the first operation). */
  constructor(options: S3StoreOptions) {
    if (typeof options?.bucket !== "string" || options.bucket === "") {
      throw new UsageError("INVALID_ARGUMENT", "bucket must be a non-empty string", { field: "bucket", actual: options?.bucket });
    }
    this.bucket = options.bucket;
    const prefix = options.prefix ?? "";
    this.prefix = prefix === "" || prefix.endsWith("/") ? prefix : `${prefix}/`;
    if (this.prefix !== "") validateKey(this.prefix.slice(0, -1));
    this.client = options.client instanceof sdk.S3Client ? options.client : new sdk.S3Client({ maxAttempts: 1, ...options.client });
    this.#retry = resolveRetryOptions(options.retry ?? {});
    this.#multipartThreshold = options.multipartThreshold ?? 16 * MIB;
    this.#partSize = options.partSize ?? 8 * MIB;
    if (!Number.isSafeInteger(this.#partSize) || this.#partSize < 5 * MIB) {
      throw new UsageError("INVALID_ARGUMENT", "partSize must be at least 5 MiB", { field: "partSize", expected: ">= 5242880", actual: this.#partSize });
    }
    if (!Number.isSafeInteger(this.#multipartThreshold) || this.#multipartThreshold < 0) {
      throw new UsageError("INVALID_ARGUMENT", "multipartThreshold must be a non-negative integer", { field: "multipartThreshold", actual: this.#multipartThreshold });
    }
    this.#limits = resolveBodyLimits(options.limits ?? {});
    const maxRedirects = options.redirects?.maxRedirects ?? 5;
    if (!Number.isSafeInteger(maxRedirects) || maxRedirects < 0) {
      throw new UsageError("INVALID_ARGUMENT", "redirects.maxRedirects must be an integer >= 0", { field: "redirects.maxRedirects", actual: maxRedirects });
    }
    this.#maxRedirects = maxRedirects;
    this.concurrency = checkConcurrency(options.concurrency);
    this.#allowCrossOrigin = options.redirects?.allowCrossOrigin === true;
    this.#conditional = options.conditionalCreate ?? "auto";
    if (!["auto", "native", "emulated"].includes(this.#conditional)) {
      throw new UsageError("INVALID_ARGUMENT", "conditionalCreate must be auto, native or emulated", { field: "conditionalCreate", actual: this.#conditional });
    }
    if (options.onWarning !== undefined && typeof options.onWarning !== "function") {
      throw new UsageError("INVALID_ARGUMENT", "onWarning must be a function", { field: "onWarning", expected: "(message: string) => void", actual: typeof options.onWarning });
    }
    this.#onWarning = options.onWarning ?? ((message: string) => console.warn(message));
  }

  /** The value of `key`; `undefined` if missing. */
  async get(key: string): Promise<Uint8Array | undefined> {
    return this.#getPlain(validateKey(key), { kind: "whole" }, "get");
  }

  /** Part of the value of `key` (clipped at its end); `undefined` if missing. */
  async getRange(key: string, range: ByteRange): Promise<Uint8Array | undefined> {
    validateKey(key);
    resolveRange(range, 0);
    const empty = "suffixLength" in range ? range.suffixLength === 0 : range.length === 0;
    if (empty) return (await this.#exists(key)) ? new Uint8Array(0) : undefined;
    if ("suffixLength" in range) return this.#getSuffix(key, range.suffixLength);
    return this.#getPlain(key, { kind: "range", offset: range.offset, length: range.length }, "getRange");
  }

  /**
   * A suffix range. Some servers (s3rver) read `bytes=-n` as `bytes=0-n`; such an answer still
   * tells the value's size, so one plain range request (checked like any other) repairs it;
   * `stats.suffixRepairs` counts those.
   */
  async #getSuffix(key: string, n: number): Promise<Uint8Array | undefined> {
    const answer = await this.#getObject(key, { kind: "suffix", length: n }, "getRange");
    if (answer === undefined || answer instanceof Uint8Array) return answer;
    this.suffixRepairs += 1;
    const total = answer.repair;
    if (n >= total) return this.#getPlain(key, { kind: "whole" }, "getRange");
    return this.#getPlain(key, { kind: "range", offset: total - n, length: n }, "getRange");
  }

  /** {@link S3Store.#getObject} for anything but a suffix (which alone can ask for a repair). */
  async #getPlain(key: string, asked: Asked, operation: string, seen?: { etag?: string | undefined }): Promise<Uint8Array | undefined> {
    const answer = await this.#getObject(key, asked, operation, seen);
    if (answer === undefined || answer instanceof Uint8Array) return answer;
    throw new StorageError("IO_ERROR", `S3 ${operation} of s3://${this.bucket}/${this.prefix}${key} got no usable answer`, { path: key, field: "Content-Range", expected: rangeHeader(asked) ?? "the whole value" });
  }

  /**
   * Stores `value` under `key` (multipart above the threshold). S3 has made an object durable
   * when its PUT answers, so `{ durable: false }` changes nothing.
   */
  async put(key: string, value: Uint8Array, options?: PutOptions): Promise<void> {
    validateKey(key);
    checkPutOptions(options);
    if (!(value instanceof Uint8Array)) {
      throw new UsageError("INVALID_ARGUMENT", "a stored value must be a Uint8Array", { field: "value", expected: "Uint8Array", actual: typeof value });
    }
    const body = value.slice();
    if (body.length > this.#multipartThreshold) return this.#putMultipart(key, body);
    await this.#send(key, "put", () => new PutObjectCommand({ Bucket: this.bucket, Key: this.prefix + key, Body: body }));
  }

  /**
   * Nothing to flush: every `put` was durable when it resolved. Present so that writers call the
   * same API on every store.
   *
   * @example
   * ```ts
   * await store.put("ds/data/__0.blp", bytes, { durable: false });
   * await store.sync(); // resolves at once
   * ```
   */
  async sync(): Promise<void> {}

  /** Removes `key`; a missing key is not an error. */
  async delete(key: string): Promise<void> {
    validateKey(key);
    await this.#send(key, "delete", () => new DeleteObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }));
  }

  /** Every key under `prefix`, sorted, across all result pages. */
  async list(prefix: string): Promise<string[]> {
    validatePrefix(prefix);
    const keys: string[] = [];
    const seen = new Set<string>();
    let token: string | undefined;
    do {
      const page = await this.#send<ListObjectsV2CommandOutput>(prefix, "list", () =>
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix + prefix, ContinuationToken: token }),
      );
      for (const entry of page.Contents ?? []) {
        const full = entry.Key;
        if (full === undefined || !full.startsWith(this.prefix)) continue;
        const key = full.slice(this.prefix.length);
        if (key.includes(PROBE_MARKER)) continue;
        try {
          validateKey(key);
        } catch {
          continue; // objects whose names are not store keys ("a//b", "x/") are not ours
        }
        keys.push(key);
      }
      const next = page.IsTruncated === true ? page.NextContinuationToken : undefined;
      // A server that hands out the same token twice would loop forever.
      if (next !== undefined && seen.has(next)) {
        throw new StorageError("IO_ERROR", "the server repeated a list continuation token", { path: prefix, field: "prefix", actual: next });
      }
      if (next !== undefined) seen.add(next);
      token = next;
    } while (token !== undefined);
    return keys.sort();
  }

  /**
   * Creates `key` only if it does not exist; `true` when created. See {@link ConditionalCreate}
   * for how atomic that is on a given server; when the `"auto"` probe finds the server does not
   * enforce conditional writes, the first call says so through `onWarning`.
   *
   * @example
   * ```ts
   * if (!(await store.putExclusive("prices/.lock", owner))) console.log("someone else writes");
   * ```
   */
  async putExclusive(key: string, value: Uint8Array): Promise<boolean> {
    validateKey(key);
    const mode = this.#conditional === "auto" ? await this.conditionalCreateMode() : this.#conditional;
    if (mode === "native") return this.#putIfAbsent(this.prefix + key, key, value.slice());
    if (this.#conditional === "auto" && !this.#warnedEmulated) {
      this.#warnedEmulated = true;
      this.#onWarning(
        `Warning: the S3 server ${await this.#describeEndpoint()} does not enforce conditional writes ` +
          `(${this.#emulatedBecause}), so the write lock on ` +
          `s3://${this.bucket}/${this.prefix}${key} is taken by check-then-write. Two writers that start within ` +
          "a fraction of a second of each other can then both get the lock, and two writers at once corrupt a dataset. " +
          "Make sure only one process writes to a dataset at a time, or use a server that enforces conditional " +
          "writes (AWS S3, MinIO, Ceph RGW, Cloudflare R2). To silence this warning, create the S3Store with " +
          'conditionalCreate: "emulated" (or pass onWarning).',
      );
    }
    if (await this.#exists(key)) return false;
    // The read-back catches a second writer whose PUT landed after ours (lock contents carry a
    // random owner token, so two writers never write equal bytes).
    await this.put(key, value);
    const back = await this.get(key);
    return back !== undefined && sameBytes(back, value);
  }

  /**
   * The mode `putExclusive` uses: the configured one, or for `"auto"` the result of a one-time
   * probe (two conditional PUTs of a scratch key, then a DELETE).
   *
   * @example
   * ```ts
   * console.log(await store.conditionalCreateMode()); // "native" on AWS S3 and MinIO
   * ```
   */
  async conditionalCreateMode(): Promise<"native" | "emulated"> {
    if (this.#conditional !== "auto") return this.#conditional;
    this.#probe ??= (async () => {
      const probeKey = `${this.prefix}${PROBE_MARKER}${randomHex()}`;
      const bytes = new Uint8Array([1]);
      let mode: "native" | "emulated";
      try {
        const first = await this.#putIfAbsent(probeKey, probeKey, bytes);
        const second = await this.#putIfAbsent(probeKey, probeKey, bytes);
        mode = first && !second ? "native" : "emulated";
        this.#emulatedBecause = "it accepted a PUT with If-None-Match: * over an existing object";
      } catch (error) {
        // 400/501 NotImplemented: the server rejects the header outright.
        if (error instanceof BcolzError && /\b(400|501)\b/.test(String(error.actual))) {
          mode = "emulated";
          this.#emulatedBecause = `it refused a PUT with If-None-Match: * (${String(error.actual)})`;
        } else throw error;
      }
      await this.#send(probeKey, "delete", () => new DeleteObjectCommand({ Bucket: this.bucket, Key: probeKey }));
      return mode;
    })();
    return this.#probe;
  }

  /**
   * Deletes `key` if its value is still exactly `expected` (lock release): a GET that also gives
   * the object's ETag, a byte comparison, then `DeleteObject` with `If-Match: <etag>`. On servers
   * that honour `If-Match` on DELETE (AWS S3, per its API reference) the compare and the delete
   * are atomic: a value replaced in between makes the DELETE fail with 412 and the result
   * `false`. Servers that ignore it (Ceph RGW 16, s3rver) delete regardless, so there the check
   * is one round trip ahead of the delete; for a lock file that only matters if someone broke a
   * live lock and took it in that instant. `false` when the key is missing or holds other bytes.
   *
   * @example
   * ```ts
   * const mine = new TextEncoder().encode('{"owner": "3f9a"}\n');
   * await store.deleteIfUnchanged("prices.bcolz/.lock", mine); // true: it was ours, now gone
   * ```
   */
  async deleteIfUnchanged(key: string, expected: Uint8Array): Promise<boolean> {
    validateKey(key);
    if (!(expected instanceof Uint8Array)) {
      throw new UsageError("INVALID_ARGUMENT", "the expected value must be a Uint8Array", { field: "expected", expected: "Uint8Array", actual: typeof expected });
    }
    const seen: { etag?: string | undefined } = {};
    const current = await this.#getPlain(key, { kind: "whole" }, "deleteIfUnchanged", seen);
    if (current === undefined || !sameBytes(current, expected)) return false;
    const Key = this.prefix + key;
    try {
      await this.#send(key, "deleteIfUnchanged", () => new DeleteObjectCommand({ Bucket: this.bucket, Key, IfMatch: seen.etag }));
      return true;
    } catch (error) {
      // 412: replaced since the GET; 404: gone since (a conditional DELETE of a missing key may answer so).
      if (error instanceof BcolzError && /^(412|404) /.test(String(error.actual))) return false;
      // A server that refuses the header outright (400/501, as the probe reads them): the bytes
      // were checked one round trip ago, so delete as servers that ignore it do.
      if (error instanceof BcolzError && /^(400|501) /.test(String(error.actual))) {
        await this.#send(key, "deleteIfUnchanged", () => new DeleteObjectCommand({ Bucket: this.bucket, Key }));
        return true;
      }
      throw error;
    }
  }

  /** `at http://host:port (bucket "b")`, or `of bucket "b"` when the client names no endpoint. */
  async #describeEndpoint(): Promise<string> {
    let url = "";
    try {
      const provider = (this.client.config as unknown as { endpoint?: () => Promise<{ protocol?: string; hostname?: string; port?: number; path?: string }> }).endpoint;
      const endpoint = await provider?.();
      if (endpoint?.hostname !== undefined) {
        const protocol = (endpoint.protocol ?? "https").replace(/:$/, "");
        const path = endpoint.path === undefined || endpoint.path === "/" ? "" : endpoint.path;
        url = `${protocol}://${endpoint.hostname}${endpoint.port === undefined ? "" : `:${endpoint.port}`}${path}`;
      }
    } catch {
      // no endpoint to name: AWS picks one per region
    }
    return url === "" ? `of bucket "${this.bucket}"` : `at ${url} (bucket "${this.bucket}")`;
  }

  async #putIfAbsent(fullKey: string, key: string, body: Uint8Array): Promise<boolean> {
    try {
      await this.#send(key, "putExclusive", () => new PutObjectCommand({ Bucket: this.bucket, Key: fullKey, Body: body, IfNoneMatch: "*" }));
      return true;
    } catch (error) {
      if (error instanceof BcolzError && /^412 /.test(String(error.actual))) return false;
      throw error;
    }
  }

  async #exists(key: string): Promise<boolean> {
    try {
      await this.#send(key, "head", () => new HeadObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }), true);
      return true;
    } catch (error) {
      if (error === MISSING) return false;
      throw error;
    }
  }

  async #getObject(key: string, asked: Asked, operation: string, seen?: { etag?: string | undefined }): Promise<Uint8Array | { repair: number } | undefined> {
    try {
      return await this.#send<GetObjectCommandOutput, Uint8Array | { repair: number }>(
        key,
        operation,
        () => new GetObjectCommand({ Bucket: this.bucket, Key: this.prefix + key, Range: rangeHeader(asked) }),
        true,
        async (response) => {
          const status = response.$metadata.httpStatusCode ?? 200;
          if (seen !== undefined) seen.etag = response.ETag;
          const cap = bodyCap(asked, status, this.#limits);
          const askedText = rangeHeader(asked) ?? "the whole value";
          const received = (n: number) => `${status} ${response.ContentRange ?? "without Content-Range"}, ${n} body bytes`;
          const stream = response.Body?.transformToWebStream();
          if (response.ContentLength !== undefined && response.ContentLength > cap) {
            await stream?.cancel().catch(() => undefined);
            throw new InconsistentAnswer(`the answer announces ${response.ContentLength} bytes, more than the ${cap} this request can return`, askedText, received(response.ContentLength));
          }
          const bytes = await readCapped(stream, cap, (n) => new InconsistentAnswer(`the body runs past the ${cap} bytes this request can return`, askedText, received(n)));
          if (response.ContentLength !== undefined && bytes.length !== response.ContentLength) {
            throw new RetryableFailure(`body of ${bytes.length} bytes, ${response.ContentLength} announced`);
          }
          try {
            return extractAsked(asked, { status, contentRange: response.ContentRange }, bytes);
          } catch (error) {
            // A suffix answered from the wrong end still tells the size: repair it with a plain range.
            const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(response.ContentRange ?? "");
            if (asked.kind === "suffix" && error instanceof InconsistentAnswer && match !== null && bytes.length >= Number(match[2]) - Number(match[1]) + 1) {
              return { repair: Number(match[3]) };
            }
            throw error;
          }
        },
      );
    } catch (error) {
      if (error === MISSING) return undefined;
      // 416: the range starts at or past the end; the clipped answer is empty if the key exists.
      if (error instanceof BcolzError && /^416 /.test(String(error.actual))) {
        return (await this.#exists(key)) ? new Uint8Array(0) : undefined;
      }
      throw error;
    }
  }

  async #putMultipart(key: string, body: Uint8Array): Promise<void> {
    const Key = this.prefix + key;
    const created = await this.#send<CreateMultipartUploadCommandOutput>(key, "put", () => new CreateMultipartUploadCommand({ Bucket: this.bucket, Key }));
    const UploadId = created.UploadId;
    if (UploadId === undefined) {
      throw new StorageError("IO_ERROR", "the server started a multipart upload without an UploadId", { path: key, field: "key", expected: "UploadId" });
    }
    try {
      const parts: { PartNumber: number; ETag: string | undefined }[] = [];
      for (let offset = 0, PartNumber = 1; offset < body.length; offset += this.#partSize, PartNumber++) {
        const part = body.subarray(offset, Math.min(body.length, offset + this.#partSize));
        const done = await this.#send<UploadPartCommandOutput>(key, "put", () => new UploadPartCommand({ Bucket: this.bucket, Key, UploadId, PartNumber, Body: part }));
        parts.push({ PartNumber, ETag: done.ETag });
      }
      await this.#send(key, "put", () => new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key, UploadId, MultipartUpload: { Parts: parts } }));
    } catch (error) {
      // Best effort: an upload left open costs storage until the bucket's lifecycle rule ends it.
      await this.#send(key, "put", () => new AbortMultipartUploadCommand({ Bucket: this.bucket, Key, UploadId })).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Sends one command with retries. `missingIsSentinel` turns a 404 into the {@link MISSING}
   * sentinel; `read` consumes the response inside the attempt, so a truncated or inconsistent
   * body is retried. Redirects are followed within the endpoint (see {@link S3RedirectOptions}).
   */
  async #send<O = unknown, R = O>(
    key: string,
    operation: string,
    command: () => object,
    missingIsSentinel = false,
    read?: (output: O) => Promise<R>,
  ): Promise<R> {
    const where = `s3://${this.bucket}/${this.prefix}${key}`;
    const route: { target: URL | undefined; origin: string | undefined; url: string | undefined } = { target: undefined, origin: undefined, url: undefined };
    try {
      return await withRetries(
        this.#retry,
        this.stats,
        async (abortSignal) => {
          for (let hops = 0; ; hops++) {
            this.stats.record(0);
            const built = command() as CommandWithStack;
            built.middlewareStack.add(
              (next: (args: { request: unknown }) => Promise<unknown>) => async (args: { request: unknown }) => {
                const request = args.request as RequestLike;
                const target = route.target;
                if (target !== undefined) {
                  request.protocol = target.protocol;
                  request.hostname = target.hostname;
                  request.port = target.port === "" ? undefined : Number(target.port);
                  request.path = target.pathname;
                  request.query = Object.fromEntries(target.searchParams);
                  request.headers.host = target.host;
                }
                const url = `${request.protocol}//${request.hostname}${request.port === undefined ? "" : `:${request.port}`}${request.path}`;
                route.url = url;
                route.origin ??= new URL(url).origin;
                return next(args);
              },
              { step: "build", name: "fmtRedirect", priority: "low" },
            );
            let output: O;
            try {
              output = (await this.client.send(built as never, { abortSignal })) as O;
            } catch (error) {
              const status = statusOf(error);
              const location = headerOf(error, "location");
              if (status === 301 && location === undefined) throw this.#wrongRegion(error, key, operation, where, route.origin);
              if (status === undefined || !REDIRECTS.has(status) || location === undefined || route.url === undefined) throw error;
              const target = new URL(location, route.url);
              if (hops >= this.#maxRedirects) {
                throw new StorageError("IO_ERROR", `S3 ${operation} of ${where} redirected more than ${this.#maxRedirects} times`, { path: key, field: "redirects.maxRedirects", expected: `at most ${this.#maxRedirects} redirects`, actual: target.href });
              }
              if (target.origin !== route.origin && !this.#allowCrossOrigin) {
                throw new StorageError("IO_ERROR", `S3 ${operation} of ${where} redirects to another endpoint (${target.href}); refused (set redirects.allowCrossOrigin to follow it)`, {
                  path: key,
                  field: "redirects.allowCrossOrigin",
                  expected: `a redirect within ${route.origin ?? "the endpoint"}`,
                  actual: target.href,
                });
              }
              route.target = target;
              continue;
            }
            if (read === undefined) return output as unknown as R;
            const result = await read(output);
            if (result instanceof Uint8Array) this.stats.bytes += result.length;
            return result;
          }
        },
        (error) => !(error instanceof BcolzError) && !isMissing(error) && isRetryableS3(error),
        (error) => parseRetryAfter(headerOf(error, "retry-after")),
      );
    } catch (error) {
      if (this.#retry.signal?.aborted === true && error === this.#retry.signal.reason) throw error;
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- MISSING is an internal sentinel, caught by the caller that asked for it
      if (missingIsSentinel && isMissing(error)) throw MISSING;
      if (error instanceof BcolzError) throw error;
      if (error instanceof InconsistentAnswer) {
        throw new StorageError("IO_ERROR", `S3 ${operation} of ${where}: ${error.message}; asked ${error.asked}, received ${error.received}`, {
          path: key,
          field: "Content-Range",
          expected: error.asked,
          actual: error.received,
          cause: error,
        });
      }
      const status = statusOf(error);
      const what = status === undefined ? nameOf(error) : `${status} ${nameOf(error)}`;
      throw new StorageError("IO_ERROR", `S3 ${operation} of ${where} failed: ${(error as Error)?.message ?? what}`, {
        path: key,
        field: "key",
        expected: `a successful ${operation}`,
        actual: what,
        cause: error,
      });
    }
  }

  /**
   * S3's `301 PermanentRedirect`: the bucket lives in another region. It has no `Location`; the
   * region is in `x-amz-bucket-region` and (to a GET) the endpoint in the XML error body. Not
   * followed, even with `redirects.allowCrossOrigin`: the request would have to be signed for
   * that region, which is the client's configuration.
   */
  #wrongRegion(error: unknown, key: string, operation: string, where: string, origin: string | undefined): StorageError {
    const region = headerOf(error, "x-amz-bucket-region");
    const endpoint = (error as { Endpoint?: unknown } | null)?.Endpoint;
    const said = [region === undefined ? undefined : `region ${region}`, typeof endpoint === "string" ? `endpoint ${endpoint}` : undefined].filter((x) => x !== undefined).join(", ");
    const fix = region === undefined ? "the client's region or endpoint" : `the client's region to "${region}"`;
    return new StorageError("IO_ERROR", `S3 ${operation} of ${where}: the bucket must be addressed through another endpoint (301 PermanentRedirect${said === "" ? "" : `: ${said}`}); set ${fix}`, {
      path: key,
      field: region === undefined ? "client.endpoint" : "client.region",
      expected: `the bucket served by ${origin ?? "the configured endpoint"}`,
      actual: `301 ${nameOf(error)}${said === "" ? "" : ` (${said})`}`,
      cause: error,
    });
  }
}

/** Thrown by `#send` for a 404 when the caller asked for it; never escapes the class. */
const MISSING = Symbol("missing");
