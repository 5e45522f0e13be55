/**
 * {@link HttpStore}: a read-only {@link ReadableStore} over plain HTTP(S) with `fetch`, for the
 * browser and Node: a dataset directory served by any static file server (nginx, a CDN, GitHub
 * Pages, `python3 -m http.server`). Import it from `@fmt/fs-adapters/http`. The one place that
 * talks to the network is an {@link HttpTransport}: `fetch` by default, or another one such as
 * `nodeHttpTransport` of `@fmt/fs-adapters/http-node` (node:http without web streams, faster
 * in Node).
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
import { readAnswerBody } from "./answer-body.js";
import { resolveRange, validateKey, validatePrefix } from "./index.js";
import type { ByteRange, ReadableStore } from "./index.js";
import {
  ConcurrencyLimit,
  DEFAULT_HTTP_RANGE_REQUEST_BYTES,
  InconsistentAnswer,
  checkConcurrency,
  checkRangeRequestBytes,
  RemoteStats,
  RetryableFailure,
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

export type { ByteRange, ReadableStore } from "./index.js";
export { DEFAULT_HTTP_RANGE_REQUEST_BYTES, DEFAULT_REMOTE_CONCURRENCY, RemoteStats } from "./remote.js";
export type { BodyLimits, RetryOptions } from "./remote.js";

/**
 * Which HTTP redirects {@link HttpStore} follows.
 *
 * @example
 * ```ts
 * const redirects: RedirectOptions = { allowCrossOrigin: true, forwardHeaders: ["x-api-key"] };
 * ```
 */
export interface RedirectOptions {
  /** Most redirects followed for one request (default 5). */
  maxRedirects?: number;
  /** Follow redirects to another origin (scheme, host, port); default `false`: refused with `IO_ERROR`. */
  allowCrossOrigin?: boolean;
  /** Configured headers (by name, case-insensitive) that go along to another origin; default none. */
  forwardHeaders?: string[];
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * One request an {@link HttpTransport} sends. `redirect: "manual"` asks for a redirect's own
 * answer (the store follows redirects itself); `"follow"` is asked only after an answer with
 * {@link HttpAnswer.opaqueRedirect}, which only a browser's `fetch` gives.
 *
 * @example
 * ```ts
 * const request: HttpRequest = { url: "http://127.0.0.1:8080/ds/meta/sizes", method: "GET", headers: { range: "bytes=0-99" }, signal: AbortSignal.timeout(5000), redirect: "manual" };
 * ```
 */
export interface HttpRequest {
  /** The absolute URL. */
  url: string;
  /** `GET`, or `HEAD` to tell "empty" from "missing". */
  method: "GET" | "HEAD";
  /** Request headers, names as configured (`range` in lower case). */
  headers: Record<string, string>;
  /** Aborts the request, its body included. */
  signal: AbortSignal;
  /** See above. */
  redirect: "manual" | "follow";
  /**
   * A buffer the body of a 200 or 206 answer may be read into as it arrives, before `body` is
   * called, when its announced length fits; `body` then resolves to a view of it, whatever buffer
   * `body` is given. The buffer may be written until `body` or `discard` settles (or the request
   * is aborted), also for an answer the caller then refuses (a wrong `Content-Range`, a body
   * past its cap that `discard` drains). The store offers the buffer it passes to `body`
   * (`getInto`). A transport may ignore it.
   */
  into?: Uint8Array;
}

/**
 * The answer to an {@link HttpRequest}: status and headers at once, the body on demand. The
 * store ends every answer with exactly one call of `body` or `discard`, which a transport may
 * rely on to free its connection.
 *
 * @example
 * ```ts
 * const answer = await transport({ url, method: "GET", headers: {}, signal, redirect: "manual" });
 * const bytes = answer.status === 200 ? await answer.body(1 << 20, (n) => new Error(`${n} bytes is too long`)) : (await answer.discard(), undefined);
 * ```
 */
export interface HttpAnswer {
  /** The HTTP status; 0 for an opaque redirect. */
  status: number;
  /** The reason phrase (may be empty). */
  statusText: string;
  /** The URL that answered (after redirects the transport followed); `""` when unknown. */
  url: string;
  /** Whether the transport followed a redirect to get this answer. */
  redirected: boolean;
  /** A redirect whose target is hidden (a browser's `fetch` with `redirect: "manual"`). */
  opaqueRedirect: boolean;
  /** A header's value (name case-insensitive), several values joined by `", "`; `null` when absent. */
  header(name: string): string | null;
  /**
   * The whole body. Once more than `cap` bytes have come, reading stops, the connection is
   * dropped and the promise rejects with `tooLong(bytes received so far)` (or at once with
   * `tooLong(announced length)`, for a body already being read into the request's `into`).
   * `into`: a buffer the body may be read into when it fits (the result is then a view of it), so
   * that a reader of many chunk files reuses one buffer; a transport may ignore it.
   */
  body(cap: number, tooLong: (received: number) => Error, into?: Uint8Array): Promise<Uint8Array>;
  /** Drops the body unread (a transport may close the connection rather than read a long one). */
  discard(): Promise<void>;
}

/**
 * How {@link HttpStore} sends a request: `fetch` by default ({@link fetchTransport}); in Node,
 * `nodeHttpTransport()` of `@fmt/fs-adapters/http-node` is faster. Errors it throws for a
 * dropped or refused connection should be recognised by `isConnectionError` (`@fmt/fs-adapters/remote`)
 * so that they are retried.
 *
 * @example
 * ```ts
 * const logged: HttpTransport = async (request) => {
 *   console.log(request.method, request.url);
 *   return fetchTransport()(request);
 * };
 * const store = new HttpStore("https://example.org/data/", { transport: logged });
 * ```
 */
export type HttpTransport = (request: HttpRequest) => Promise<HttpAnswer>;

/**
 * The default {@link HttpTransport}: `fetchFunction` (default `globalThis.fetch`, looked up when
 * this is called), bodies read through web streams with `readCapped`.
 *
 * @example
 * ```ts
 * const store = new HttpStore("https://example.org/data/", { transport: fetchTransport(myFetch) });
 * ```
 */
export function fetchTransport(fetchFunction: typeof globalThis.fetch = globalThis.fetch): HttpTransport {
  return async ({ url, method, headers, signal, redirect }) => {
    // Called as a plain function: a browser's fetch throws "Illegal invocation" when called as a
    // method of anything but the window.
    const response = await fetchFunction(url, { method, headers, signal, redirect });
    return {
      status: response.status,
      statusText: response.statusText,
      url: response.url,
      redirected: response.redirected,
      opaqueRedirect: response.type === "opaqueredirect",
      header: (name) => response.headers.get(name),
      body: (cap, tooLong, into) => readCapped(response.body, cap, tooLong, into),
      discard: async () => {
        await response.body?.cancel();
      },
    };
  };
}

/**
 * Options of {@link HttpStore}.
 *
 * @example
 * ```ts
 * const options: HttpStoreOptions = { concurrency: 8, indexKey: "index.txt", headers: { authorization: "Bearer …" } };
 * ```
 */
export interface HttpStoreOptions {
  /**
   * Requests in flight at once, and how many fetches a reader keeps going (see
   * `ReadableStore.concurrency`); default {@link DEFAULT_REMOTE_CONCURRENCY}. A browser queues
   * past its own per-host limit (6 over HTTP/1.1).
   */
  concurrency?: number;
  /**
   * Bytes a reader asks for in one range request where it can choose (see
   * `ReadableStore.rangeRequestBytes`): 64 KiB to 16 MiB, default
   * {@link DEFAULT_HTTP_RANGE_REQUEST_BYTES}. A reader keeps up to `concurrency` such requests in
   * flight. Say more for a server far away whose requests each wait a round trip.
   */
  rangeRequestBytes?: number;
  /**
   * A key whose value lists the store's keys, one per line (relative to the base URL; blank
   * lines and a leading `./` are ignored), e.g. made with `find . -type f > index.txt`. Without
   * it the store has no `list`, because HTTP cannot list a directory.
   */
  indexKey?: string;
  /** Extra request headers (authentication). */
  headers?: Record<string, string>;
  /** The `fetch` to use (default `globalThis.fetch`); not together with `transport`. */
  fetch?: typeof globalThis.fetch;
  /**
   * How requests are sent (default {@link fetchTransport} of `fetch`); in Node,
   * `nodeHttpTransport()` of `@fmt/fs-adapters/http-node`. Not together with `fetch`.
   */
  transport?: HttpTransport;
  /** Retries, timeouts, abort signal. */
  retry?: RetryOptions;
  /** Told once per store when the server ignores `Range` and sends whole values instead. */
  onNotice?: (message: string) => void;
  /** Most bytes an answer may bring (whole values, range overread). */
  limits?: BodyLimits;
  /** Which redirects are followed (default: same-origin only). */
  redirects?: RedirectOptions;
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
 * - Every answer is checked against its request: a `206` must name (in `Content-Range`) a range
 *   that covers the asked one — a superset is fine, the asked bytes are taken out of it; a body
 *   past the announced range is dropped. Anything else is asked again, then ends in
 *   `StorageError` `IO_ERROR` naming the URL, the asked range and the received one.
 * - A body is capped by what the request can return (`limits`: the asked length plus
 *   `maxRangeOverread` for a `206`, `maxBodyBytes` for a whole value); an answer announcing more
 *   is refused before its body is read, one streaming past the cap is cancelled.
 * - A body that ends before its `Content-Length` is retried; without a `Content-Length` the body
 *   is read to its end (or the cap) and taken as it is. `Retry-After` on 429/503 is honoured
 *   within `retry.deadlineMs`; an unparseable answer or a reset is retried on a fresh connection.
 * - Same-origin redirects are followed (at most `redirects.maxRedirects`); a redirect to another
 *   origin is refused with `IO_ERROR` unless `redirects.allowCrossOrigin`, and then only the
 *   configured headers named in `redirects.forwardHeaders` go along. In a browser `fetch` hides
 *   where a redirect goes, so the redirect is followed with only the headers named in
 *   `forwardHeaders` (another origin may then see that header-less request before it is
 *   refused); when it ends on the store's own origin, that URL is asked once more with every
 *   configured header.
 * - At most `concurrency` requests are in flight; more calls wait their turn.
 * - Requests go through the `transport` option ({@link HttpTransport}; default `fetch`); in Node,
 *   `nodeHttpTransport()` of `@fmt/fs-adapters/http-node` reads bodies without web streams.
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
  readonly #transport: HttpTransport;
  readonly #headers: Record<string, string>;
  readonly #retry: ReturnType<typeof resolveRetryOptions>;
  readonly #onNotice: ((message: string) => void) | undefined;
  readonly #limits: Required<BodyLimits>;
  /** Requests a reader keeps in flight; see the `concurrency` option. */
  readonly concurrency: number;
  /** Bytes a reader asks for in one range request; see the `rangeRequestBytes` option. */
  readonly rangeRequestBytes: number;
  readonly #maxRedirects: number;
  readonly #allowCrossOrigin: boolean;
  readonly #forwardHeaders: Set<string>;
  #index: Promise<string[]> | undefined;

  /** Serves keys relative to `baseUrl` (a trailing `/` is added when missing). */
  constructor(baseUrl: string, options: HttpStoreOptions = {}) {
    if (typeof baseUrl !== "string" || baseUrl === "") {
      throw new UsageError("INVALID_ARGUMENT", "baseUrl must be a non-empty URL", { field: "baseUrl", actual: baseUrl });
    }
    this.baseUrl = baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`;
    this.concurrency = checkConcurrency(options.concurrency);
    this.limit = new ConcurrencyLimit(this.concurrency);
    this.rangeRequestBytes = checkRangeRequestBytes(options.rangeRequestBytes, DEFAULT_HTTP_RANGE_REQUEST_BYTES);
    if (options.fetch !== undefined && options.transport !== undefined) {
      throw new UsageError("INVALID_ARGUMENT", "give either fetch or transport, not both", { field: "transport", expected: "fetch or transport", actual: "both" });
    }
    this.#transport = options.transport ?? fetchTransport(options.fetch);
    this.#headers = { ...options.headers };
    this.#retry = resolveRetryOptions(options.retry ?? {});
    this.#onNotice = options.onNotice;
    this.#limits = resolveBodyLimits(options.limits ?? {});
    const maxRedirects = options.redirects?.maxRedirects ?? 5;
    if (!Number.isSafeInteger(maxRedirects) || maxRedirects < 0) {
      throw new UsageError("INVALID_ARGUMENT", "redirects.maxRedirects must be an integer >= 0", { field: "redirects.maxRedirects", actual: maxRedirects });
    }
    this.#maxRedirects = maxRedirects;
    this.#allowCrossOrigin = options.redirects?.allowCrossOrigin === true;
    this.#forwardHeaders = new Set((options.redirects?.forwardHeaders ?? []).map((h) => h.toLowerCase()));
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
    const answer = await this.#request(key, "GET", { kind: "whole" });
    return answer?.bytes;
  }

  /**
   * {@link HttpStore.get} or, with `range`, {@link HttpStore.getRange}, with the body read into
   * `buffer` when the transport can and it fits (`nodeHttpTransport` with a `Content-Length`):
   * the result is then a view of `buffer`, else a new array. A reader of many chunk files reuses
   * one buffer instead of allocating (and later collecting) one per file.
   *
   * @example
   * ```ts
   * const spare = new Uint8Array(1 << 20);
   * const file = await store.getInto("data/__0.blp", spare);
   * ```
   */
  async getInto(key: string, buffer: Uint8Array, range?: ByteRange): Promise<Uint8Array | undefined> {
    if (range !== undefined) return this.#getRange(key, range, buffer);
    validateKey(key);
    const answer = await this.#request(key, "GET", { kind: "whole" }, buffer);
    return answer?.bytes;
  }

  /** Part of the value of `key` (clipped at its end); `undefined` if missing. */
  getRange(key: string, range: ByteRange): Promise<Uint8Array | undefined> {
    return this.#getRange(key, range);
  }

  async #getRange(key: string, range: ByteRange, into?: Uint8Array): Promise<Uint8Array | undefined> {
    validateKey(key);
    resolveRange(range, 0);
    const empty = "suffixLength" in range ? range.suffixLength === 0 : range.length === 0;
    if (empty) return (await this.#request(key, "HEAD", { kind: "whole" })) === undefined ? undefined : new Uint8Array(0);
    if (!this.rangeSupported) {
      const whole = await this.get(key);
      if (whole === undefined) return undefined;
      const { start, end } = resolveRange(range, whole.length);
      return whole.slice(start, end);
    }
    const asked: Asked = "suffixLength" in range ? { kind: "suffix", length: range.suffixLength } : { kind: "range", offset: range.offset, length: range.length };
    const answer = await this.#request(key, "GET", asked, into);
    if (answer === undefined) return undefined;
    if (answer.status === 416) return (await this.#request(key, "HEAD", { kind: "whole" })) === undefined ? undefined : new Uint8Array(0);
    if (answer.status === 200) {
      // 200 to a Range request: the server sent the whole value (already sliced).
      this.stats.rangeIgnored += 1;
      if (this.rangeSupported) {
        this.rangeSupported = false;
        this.#onNotice?.(`${this.baseUrl} ignores HTTP Range requests; reading whole values instead (put a CachingStore in front)`);
      }
    }
    return answer.bytes;
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

  /** Sends one request: redirects, status, body cap, and the asked bytes taken out of the answer. */
  async #exchange(key: string, url: string, method: "GET" | "HEAD", asked: Asked, signal: AbortSignal, into: Uint8Array | undefined): Promise<{ status: number; bytes: Uint8Array } | undefined> {
    let headers: Record<string, string> = { ...this.#headers };
    const range = rangeHeader(asked);
    if (method === "GET" && range !== undefined) headers.range = range;
    let answer: HttpAnswer;
    for (let hops = 0; ; hops++) {
      this.stats.record(0);
      answer = await this.#transport({ url, method, headers, signal, redirect: "manual", ...(into === undefined || method !== "GET" ? {} : { into }) });
      if (answer.opaqueRedirect) {
        // A browser hides where a redirect goes (no status, no Location). Follow it with only the
        // headers that may go to another origin, and look where it ended: on another origin it
        // is refused unless allowed; back on this origin, that URL is asked again with every
        // configured header, since same-origin redirects keep them.
        const bare: Record<string, string> = {};
        for (const [name, value] of Object.entries(headers)) if (name === "range" || this.#forwardHeaders.has(name.toLowerCase())) bare[name] = value;
        this.stats.record(0);
        answer = await this.#transport({ url, method, headers: bare, signal, redirect: "follow" });
        const landed = answer.url === "" ? url : answer.url;
        if (new URL(landed).origin !== new URL(url).origin) {
          if (this.#allowCrossOrigin) break;
          await answer.discard();
          throw this.#refuseRedirect(key, url, landed);
        }
        if (!answer.redirected || Object.keys(bare).length === Object.keys(headers).length) break;
        await answer.discard();
        if (hops >= this.#maxRedirects) {
          throw new StorageError("IO_ERROR", `HTTP ${method} ${url} redirected more than ${this.#maxRedirects} times`, { path: key, field: "redirects.maxRedirects", expected: `at most ${this.#maxRedirects} redirects`, actual: landed });
        }
        url = landed;
        continue;
      }
      if (!REDIRECTS.has(answer.status)) break;
      await answer.discard();
      const location = answer.header("location");
      if (location === null) break;
      const target = new URL(location, url).href;
      if (hops >= this.#maxRedirects) {
        throw new StorageError("IO_ERROR", `HTTP ${method} ${url} redirected more than ${this.#maxRedirects} times`, { path: key, field: "redirects.maxRedirects", expected: `at most ${this.#maxRedirects} redirects`, actual: target });
      }
      if (new URL(target).origin !== new URL(url).origin) {
        if (!this.#allowCrossOrigin) throw this.#refuseRedirect(key, url, target);
        const kept: Record<string, string> = {};
        for (const [name, value] of Object.entries(headers)) if (name === "range" || this.#forwardHeaders.has(name.toLowerCase())) kept[name] = value;
        headers = kept;
      }
      url = target;
    }
    const status = answer.status;
    if (status === 404 || status === 410) {
      await answer.discard();
      return undefined;
    }
    if (status === 416) {
      await answer.discard();
      return { status, bytes: new Uint8Array(0) };
    }
    if (status >= 500 || status === 429) {
      await answer.discard();
      throw new RetryableFailure(`HTTP ${status}`, { retryAfterMs: parseRetryAfter(answer.header("retry-after")) });
    }
    if (status !== 200 && status !== 206) {
      await answer.discard();
      throw new StorageError("IO_ERROR", `HTTP ${method} ${url} answered ${status} ${answer.statusText}`, {
        path: key,
        field: "key",
        expected: "200, 206 or 404",
        actual: status,
      });
    }
    if (method === "HEAD") {
      await answer.discard();
      return { status, bytes: new Uint8Array(0) };
    }
    const { body, contentRange } = await readAnswerBody(answer, status, asked, this.#limits, into, this.stats);
    return { status, bytes: extractAsked(asked, { status, contentRange }, body) };
  }

  #refuseRedirect(key: string, from: string, to: string): StorageError {
    return new StorageError("IO_ERROR", `HTTP ${from} redirects to another origin (${to}); refused (set redirects.allowCrossOrigin to follow it)`, {
      path: key,
      field: "redirects.allowCrossOrigin",
      expected: `a redirect within ${new URL(from).origin}`,
      actual: to,
    });
  }

  async #request(key: string, method: "GET" | "HEAD", asked: Asked, into?: Uint8Array): Promise<{ status: number; bytes: Uint8Array } | undefined> {
    const url = this.baseUrl + key.split("/").map(encodeURIComponent).join("/");
    try {
      return await this.limit.run(() => withRetries(this.#retry, this.stats, (signal) => this.#exchange(key, url, method, asked, signal, into), isConnectionError));
    } catch (error) {
      if (this.#retry.signal?.aborted === true && error === this.#retry.signal.reason) throw error;
      if (error instanceof StorageError) throw error;
      if (error instanceof InconsistentAnswer) {
        throw new StorageError("IO_ERROR", `HTTP ${method} ${url}: ${error.message}; asked ${error.asked}, received ${error.received}`, {
          path: key,
          field: "Content-Range",
          expected: error.asked,
          actual: error.received,
          cause: error,
        });
      }
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
