/**
 * {@link S3Store} itself: the store's operations over one bucket, each sent with retries and
 * redirect following (`s3-send.ts` sends each command), and the dataset locks built on
 * conditional writes. Its options, the SDK loading, error reading and lock helpers live in the
 * sibling `s3-*` modules; `@fmt/fs-adapters/s3` re-exports it. Browser-safe: no `node:` imports.
 *
 * @packageDocumentation
 */

import type {
  CreateMultipartUploadCommandOutput,
  GetObjectCommandOutput,
  ListObjectsV2CommandOutput,
  S3Client,
  UploadPartCommandOutput,
} from "@aws-sdk/client-s3";
import { BcolzError, StorageError, UsageError } from "@fmt/errors";
import { checkPutOptions, resolveRange, validateKey, validatePrefix } from "./index.js";
import type { ByteRange, PutOptions, WritableStore } from "./index.js";
import type { HttpTransport } from "./http.js";
import {
  ConcurrencyLimit,
  DEFAULT_S3_RANGE_REQUEST_BYTES,
  InconsistentAnswer,
  checkConcurrency,
  checkRangeRequestBytes,
  RemoteStats,
  RetryableFailure,
  bodyCap,
  extractAsked,
  isConnectionError,
  rangeHeader,
  readCapped,
  resolveBodyLimits,
  resolveRetryOptions,
  withRetries,
} from "./remote.js";
import type { Asked, BodyLimits } from "./remote.js";
import type { RetrySettings } from "./retries.js";
import { directContext, directRequest } from "./s3-direct.js";
import type { DirectContext, DirectOutcome } from "./s3-direct.js";
import { requestFailure } from "./s3-errors.js";
import { PROBE_MARKER, randomHex, sameBytes } from "./s3-lock.js";
import { bodyOf, discardBody } from "./s3-bodies.js";
import type { ConditionalCreate, S3StoreOptions } from "./s3-options.js";
import { learnRoute } from "./s3-sign.js";
import type { RequestLike } from "./s3-redirects.js";
import { MISSING, describeEndpoint, sendCommand } from "./s3-send.js";
import type { SendContext } from "./s3-send.js";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
  sdk,
} from "./s3-sdk.js";

const MIB = 1024 * 1024;

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
 * - With the `transport` option, reads (GET, and the HEAD that tells "empty" from "missing") are
 *   signed by the store (SigV4) and sent through that {@link HttpTransport}, to where the SDK sent
 *   its first GET; everything here holds for them alike. Writes, deletes and lists stay on the SDK.
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
 * // In Node, reads without the SDK's cost per request: add transport: nodeHttpTransport() (@fmt/fs-adapters/http-node).
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
  readonly #retry: RetrySettings;
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
  /** Bytes a reader asks for in one range request; see the `rangeRequestBytes` option. */
  readonly rangeRequestBytes: number;
  readonly #maxRedirects: number;
  readonly #allowCrossOrigin: boolean;
  /** The `transport` option: reads go through it once {@link S3Store.#direct} is known. */
  readonly #transport: HttpTransport | undefined;
  /** How reads are sent without the SDK, learned from the SDK's first GET; `undefined` before. */
  #direct: DirectContext | undefined;
  /** `false` once the SDK's GET showed a route reads cannot take without it (see `learnRoute`). */
  #learnable = true;
  /** Bounds the direct reads in flight, as `HttpStore` bounds its requests. */
  readonly #limit: ConcurrencyLimit;

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
    this.rangeRequestBytes = checkRangeRequestBytes(options.rangeRequestBytes, DEFAULT_S3_RANGE_REQUEST_BYTES);
    this.#allowCrossOrigin = options.redirects?.allowCrossOrigin === true;
    if (options.transport !== undefined && typeof options.transport !== "function") {
      throw new UsageError("INVALID_ARGUMENT", "transport must be a function", { field: "transport", expected: "HttpTransport", actual: typeof options.transport });
    }
    this.#transport = options.transport;
    this.#limit = new ConcurrencyLimit(this.concurrency);
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
  getRange(key: string, range: ByteRange): Promise<Uint8Array | undefined> {
    return this.#getRange(key, range);
  }

  /**
   * {@link S3Store.get} or, with `range`, {@link S3Store.getRange}, with the body read into
   * `buffer` when it fits there: the result is then a view of `buffer` (or, when the server sent
   * more than the asked range, a copy of the asked bytes), else a new array. A
   * reader of many chunk files reuses one buffer instead of allocating (and later collecting) one
   * per file.
   *
   * @example
   * ```ts
   * const spare = new Uint8Array(1 << 20);
   * const file = await store.getInto("data/__0.blp", spare);
   * ```
   */
  async getInto(key: string, buffer: Uint8Array, range?: ByteRange): Promise<Uint8Array | undefined> {
    if (range !== undefined) return this.#getRange(key, range, buffer);
    return this.#getPlain(validateKey(key), { kind: "whole" }, "get", undefined, buffer);
  }

  async #getRange(key: string, range: ByteRange, into?: Uint8Array): Promise<Uint8Array | undefined> {
    validateKey(key);
    resolveRange(range, 0);
    const empty = "suffixLength" in range ? range.suffixLength === 0 : range.length === 0;
    if (empty) return (await this.#exists(key)) ? new Uint8Array(0) : undefined;
    if ("suffixLength" in range) return this.#getSuffix(key, range.suffixLength, into);
    return this.#getPlain(key, { kind: "range", offset: range.offset, length: range.length }, "getRange", undefined, into);
  }

  /**
   * A suffix range. Some servers (s3rver) read `bytes=-n` as `bytes=0-n`; such an answer still
   * tells the value's size, so one plain range request (checked like any other) repairs it;
   * `stats.suffixRepairs` counts those.
   */
  async #getSuffix(key: string, n: number, into?: Uint8Array): Promise<Uint8Array | undefined> {
    const answer = await this.#getObject(key, { kind: "suffix", length: n }, "getRange", undefined, into);
    if (answer === undefined || answer instanceof Uint8Array) return answer;
    this.suffixRepairs += 1;
    const total = answer.repair;
    if (n >= total) return this.#getPlain(key, { kind: "whole" }, "getRange", undefined, into);
    return this.#getPlain(key, { kind: "range", offset: total - n, length: n }, "getRange", undefined, into);
  }

  /** {@link S3Store.#getObject} for anything but a suffix (which alone can ask for a repair). */
  async #getPlain(key: string, asked: Asked, operation: string, seen?: { etag?: string | undefined }, into?: Uint8Array): Promise<Uint8Array | undefined> {
    const answer = await this.#getObject(key, asked, operation, seen, into);
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
        `Warning: the S3 server ${await describeEndpoint(this.client, this.bucket)} does not enforce conditional writes ` +
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
    if (this.#direct !== undefined) return (await this.#directOutcome(this.#direct, key, "HEAD", { kind: "whole" }, "head")).kind === "exists";
    try {
      await this.#send(key, "head", () => new HeadObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }), true);
      return true;
    } catch (error) {
      if (error === MISSING) return false;
      throw error;
    }
  }

  /** One GET (retried by #send); the body is read into `into` when it fits there. */
  async #getObject(key: string, asked: Asked, operation: string, seen?: { etag?: string | undefined }, into?: Uint8Array): Promise<Uint8Array | { repair: number } | undefined> {
    if (this.#direct !== undefined) {
      const outcome = await this.#directOutcome(this.#direct, key, "GET", asked, operation, seen, into);
      if (outcome.kind === "bytes") return outcome.bytes;
      if (outcome.kind === "repair") return { repair: outcome.total };
      if (outcome.kind === "past-end") return (await this.#exists(key)) ? new Uint8Array(0) : undefined;
      return undefined;
    }
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
          const body = bodyOf(response.Body);
          if (response.ContentLength !== undefined && response.ContentLength > cap) {
            await discardBody(body);
            throw new InconsistentAnswer(`the answer announces ${response.ContentLength} bytes, more than the ${cap} this request can return`, askedText, received(response.ContentLength));
          }
          const bytes = await readCapped(body, cap, (n) => new InconsistentAnswer(`the body runs past the ${cap} bytes this request can return`, askedText, received(n)), into);
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
        this.#transport !== undefined && this.#learnable ? (request) => this.#learn(request, key) : undefined,
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

  /** Reads the route of direct reads off the SDK's signed GET of `key` (see the `transport` option). */
  #learn(request: RequestLike, key: string): void {
    if (this.#direct !== undefined || this.#transport === undefined) return;
    const route = learnRoute(request, this.prefix + key);
    if (route === undefined || (route.signed && typeof (this.client.config as { credentials?: unknown }).credentials !== "function")) {
      this.#learnable = false;
      return;
    }
    this.#direct = directContext(this.client, this.#transport, route, {
      limits: this.#limits,
      maxRedirects: this.#maxRedirects,
      allowCrossOrigin: this.#allowCrossOrigin,
      stats: this.stats,
    });
  }

  /** One direct GET or HEAD (see the `transport` option), retried and with errors worded as on the SDK path. */
  async #directOutcome(direct: DirectContext, key: string, method: "GET" | "HEAD", asked: Asked, operation: string, seen?: { etag?: string | undefined }, into?: Uint8Array): Promise<DirectOutcome> {
    const where = `s3://${this.bucket}/${this.prefix}${key}`;
    try {
      const outcome = await this.#limit.run(() =>
        withRetries(
          this.#retry,
          this.stats,
          (signal) => directRequest(direct, key, this.prefix + key, method, asked, operation, signal, where, seen, into),
          // A refusal is a BcolzError whose message may well contain "network" (in a key): not a dropped connection.
          (error) => !(error instanceof BcolzError) && isConnectionError(error),
        ),
      );
      if (outcome.kind === "bytes") this.stats.bytes += outcome.bytes.length;
      return outcome;
    } catch (error) {
      throw requestFailure(error, key, operation, where, this.#retry.signal);
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
   * {@link sendCommand} for this store, with its fields as they are now (`bucket`, `prefix` and
   * the others are read-only to TypeScript only, and every other method reads them at the call).
   */
  #send<O = unknown, R = O>(key: string, operation: string, command: () => object, missingIsSentinel = false, read?: (output: O) => Promise<R>, onSent?: (request: RequestLike) => void): Promise<R> {
    const context: SendContext = { client: this.client, bucket: this.bucket, prefix: this.prefix, retry: this.#retry, stats: this.stats, maxRedirects: this.#maxRedirects, allowCrossOrigin: this.#allowCrossOrigin };
    return sendCommand<O, R>(context, key, operation, command, missingIsSentinel, read, onSent);
  }
}
