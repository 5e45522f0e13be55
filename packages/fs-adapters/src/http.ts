/**
 * {@link HttpStore}: a read-only {@link ReadableStore} over plain HTTP(S) with `fetch`, for the
 * browser and Node: a dataset directory served by any static file server (nginx, a CDN, GitHub
 * Pages, `python3 -m http.server`). Import it from `@fmt/fs-adapters/http`.
 *
 * @example
 * ```ts
 * import { HttpStore } from "@fmt/fs-adapters/http";
 * import { open } from "@fmt/store";
 * const store = new HttpStore("https://example.org/data/", { concurrency: 6 });
 * const prices = await open(store, "prices.bcolz");
 * ```
 * @packageDocumentation
 */

import { StorageError, UsageError } from "@fmt/errors";
import { resolveRange, validateKey, validatePrefix } from "./index.js";
import type { ByteRange, ReadableStore } from "./index.js";
import { ConcurrencyLimit, RemoteStats, RetryableFailure, isConnectionError, resolveRetryOptions, withRetries } from "./remote.js";
import type { RetryOptions } from "./remote.js";

export type { ByteRange, ReadableStore } from "./index.js";
export { RemoteStats } from "./remote.js";
export type { RetryOptions } from "./remote.js";

/**
 * Options of {@link HttpStore}.
 *
 * @example
 * ```ts
 * const options: HttpStoreOptions = { concurrency: 8, indexKey: "index.txt", headers: { authorization: "Bearer …" } };
 * ```
 */
export interface HttpStoreOptions {
  /** Requests in flight at once (default 6, a browser's per-host limit for HTTP/1.1). */
  concurrency?: number;
  /**
   * A key whose value lists the store's keys, one per line (relative to the base URL; blank
   * lines and a leading `./` are ignored), e.g. made with `find . -type f > index.txt`. Without
   * it the store has no `list`, because HTTP cannot list a directory.
   */
  indexKey?: string;
  /** Extra request headers (authentication). */
  headers?: Record<string, string>;
  /** The `fetch` to use (default `globalThis.fetch`). */
  fetch?: typeof globalThis.fetch;
  /** Retries, timeouts, abort signal. */
  retry?: RetryOptions;
  /** Told once per store when the server ignores `Range` and sends whole values instead. */
  onNotice?: (message: string) => void;
}

/**
 * A read-only store over HTTP: key `k` is the URL `<base>k`.
 *
 * - 200 → the value; 404 and 410 → `undefined` (a missing key); 401/403 and any other 4xx →
 *   `StorageError` `IO_ERROR` naming the key and the status, not retried; 5xx, 429, timeouts and
 *   dropped connections → retried with jittered backoff ({@link RetryOptions}), then `IO_ERROR`.
 * - `getRange` sends `Range: bytes=a-b` (or `bytes=-n`). A 206 answer is the range; a 416 (the
 *   range starts past the end) costs one HEAD to tell "empty" from "missing". A server that
 *   ignores `Range` answers 200 with the whole value: that one answer is sliced (never fetched
 *   twice), counted in `stats.rangeIgnored`, reported once through `onNotice`, and from then on
 *   `getRange` asks for whole values without a `Range` header.
 * - A body that ends before its `Content-Length` is retried; without a `Content-Length` the body
 *   is read to its end and taken as it is.
 * - At most `concurrency` requests are in flight; more calls wait their turn.
 *
 * @example
 * ```ts
 * const store = new HttpStore("http://127.0.0.1:8080/corpus/", { indexKey: "index.txt" });
 * const head = await store.getRange("ds/data/__0.blp", { offset: 0, length: 32 });
 * console.log(store.stats.snapshot()); // { requests: 1, bytes: 32, retries: 0, rangeIgnored: 0 }
 * ```
 */
export class HttpStore implements ReadableStore {
  /** The base URL, ending in `/`. */
  readonly baseUrl: string;
  /** Requests and bytes this store has used so far. */
  readonly stats = new RemoteStats();
  /** The concurrency limit shared by all requests (its `peak` tells the most seen at once). */
  readonly limit: ConcurrencyLimit;
  /** `false` once the server was seen ignoring `Range`. */
  rangeSupported = true;
  /** Present when `indexKey` was given: the keys of the index file under `prefix`, sorted. */
  readonly list?: (prefix: string) => Promise<string[]>;
  readonly #fetch: typeof globalThis.fetch;
  readonly #headers: Record<string, string>;
  readonly #retry: ReturnType<typeof resolveRetryOptions>;
  readonly #onNotice: ((message: string) => void) | undefined;
  #index: Promise<string[]> | undefined;

  /** Serves keys relative to `baseUrl` (a trailing `/` is added when missing). */
  constructor(baseUrl: string, options: HttpStoreOptions = {}) {
    if (typeof baseUrl !== "string" || baseUrl === "") {
      throw new UsageError("INVALID_ARGUMENT", "baseUrl must be a non-empty URL", { field: "baseUrl", actual: baseUrl });
    }
    this.baseUrl = baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`;
    this.limit = new ConcurrencyLimit(options.concurrency ?? 6);
    const f = options.fetch ?? globalThis.fetch;
    this.#fetch = (input, init) => f(input, init);
    this.#headers = { ...options.headers };
    this.#retry = resolveRetryOptions(options.retry ?? {});
    this.#onNotice = options.onNotice;
    if (options.indexKey !== undefined) {
      const indexKey = validateKey(options.indexKey);
      this.list = async (prefix: string) => {
        validatePrefix(prefix);
        this.#index ??= this.#readIndex(indexKey);
        return (await this.#index).filter((k) => k.startsWith(prefix));
      };
    }
  }

  /** The value of `key`; `undefined` if the server says 404/410. */
  async get(key: string): Promise<Uint8Array | undefined> {
    validateKey(key);
    const answer = await this.#request(key, "GET", undefined);
    return answer?.bytes;
  }

  /** Part of the value of `key` (clipped at its end); `undefined` if missing. */
  async getRange(key: string, range: ByteRange): Promise<Uint8Array | undefined> {
    validateKey(key);
    resolveRange(range, 0);
    const empty = "suffixLength" in range ? range.suffixLength === 0 : range.length === 0;
    if (empty) return (await this.#request(key, "HEAD", undefined)) === undefined ? undefined : new Uint8Array(0);
    if (!this.rangeSupported) {
      const whole = await this.get(key);
      if (whole === undefined) return undefined;
      const { start, end } = resolveRange(range, whole.length);
      return whole.slice(start, end);
    }
    const header = "suffixLength" in range ? `bytes=-${range.suffixLength}` : `bytes=${range.offset}-${range.offset + range.length - 1}`;
    const answer = await this.#request(key, "GET", header);
    if (answer === undefined) return undefined;
    if (answer.status === 416) return (await this.#request(key, "HEAD", undefined)) === undefined ? undefined : new Uint8Array(0);
    if (answer.status === 206) return answer.bytes;
    // 200 to a Range request: the server sent the whole value.
    this.stats.rangeIgnored += 1;
    if (this.rangeSupported) {
      this.rangeSupported = false;
      this.#onNotice?.(`${this.baseUrl} ignores HTTP Range requests; reading whole values instead (put a CachingStore in front)`);
    }
    const { start, end } = resolveRange(range, answer.bytes.length);
    return answer.bytes.slice(start, end);
  }

  async #readIndex(indexKey: string): Promise<string[]> {
    const bytes = await this.get(indexKey);
    if (bytes === undefined) {
      throw new StorageError("IO_ERROR", "the index file that lists the store's keys is missing", { path: indexKey, field: "indexKey", expected: "a list of keys, one per line", actual: "404" });
    }
    const keys = new Set<string>();
    for (let line of new TextDecoder().decode(bytes).split(/\r?\n/)) {
      line = line.trim().replace(/^\.\//, "");
      if (line === "" || line === indexKey) continue;
      keys.add(validateKey(line));
    }
    return [...keys].sort();
  }

  async #request(key: string, method: "GET" | "HEAD", range: string | undefined): Promise<{ status: number; bytes: Uint8Array } | undefined> {
    const url = this.baseUrl + key.split("/").map(encodeURIComponent).join("/");
    try {
      return await this.limit.run(() =>
        withRetries(
          this.#retry,
          this.stats,
          async (signal) => {
            const headers: Record<string, string> = { ...this.#headers };
            if (range !== undefined) headers.range = range;
            this.stats.record(0);
            const response = await this.#fetch(url, { method, headers, signal });
            const status = response.status;
            if (status === 404 || status === 410) {
              await response.body?.cancel();
              return undefined;
            }
            if (status === 416) {
              await response.body?.cancel();
              return { status, bytes: new Uint8Array(0) };
            }
            if (status >= 500 || status === 429) {
              await response.body?.cancel();
              throw new RetryableFailure(`HTTP ${status}`);
            }
            if (status !== 200 && status !== 206) {
              await response.body?.cancel();
              throw new StorageError("IO_ERROR", `HTTP ${method} ${url} answered ${status} ${response.statusText}`, {
                path: key,
                field: "key",
                expected: "200, 206 or 404",
                actual: status,
              });
            }
            const bytes = method === "HEAD" ? new Uint8Array(0) : new Uint8Array(await response.arrayBuffer());
            this.stats.bytes += bytes.length;
            const announced = response.headers.get("content-length");
            // Content-Length is the size of the (possibly compressed) body on the wire; compare
            // only when the body was not content-encoded.
            const encoded = (response.headers.get("content-encoding") ?? "identity") !== "identity";
            if (method === "GET" && announced !== null && !encoded && Number(announced) !== bytes.length) {
              throw new RetryableFailure(`body of ${bytes.length} bytes, ${announced} announced`);
            }
            return { status, bytes };
          },
          isConnectionError,
        ),
      );
    } catch (error) {
      if (this.#retry.signal?.aborted === true && error === this.#retry.signal.reason) throw error;
      if (error instanceof StorageError) throw error;
      throw new StorageError("IO_ERROR", `HTTP ${method} ${url} failed: ${(error as Error)?.message ?? String(error)}`, {
        path: key,
        field: "key",
        expected: `a successful ${method}`,
        actual: (error as Error)?.message ?? String(error),
        cause: error,
      });
    }
  }
}
