/**
 * Shared machinery of the remote stores (`./s3`, `./http`): request/byte counters, the checks of
 * an answer against its request (ranges, body caps), a concurrency limit, and (from `retries.ts`,
 * re-exported here) bounded retries with jittered exponential backoff and per-attempt timeouts.
 * Browser-safe: no `node:` imports.
 *
 * @example
 * ```ts
 * import { RemoteStats } from "@fmt/fs-adapters/remote";
 * const stats = new RemoteStats();
 * stats.record(1024);
 * console.log(stats.snapshot()); // { requests: 1, bytes: 1024, retries: 0, rangeIgnored: 0 }
 * ```
 * @packageDocumentation
 */

import { UsageError } from "@fmt/errors";
import { RetryableFailure } from "./retries.js";

export { RetryableFailure, isConnectionError, parseRetryAfter, resolveRetryOptions, withRetries } from "./retries.js";
export type { RetryOptions, RetrySettings } from "./retries.js";

/**
 * Counters of what a remote store asked of its server: a request is one HTTP exchange (retries
 * included), bytes are response body bytes received.
 *
 * @example
 * ```ts
 * const before = store.stats.snapshot();
 * await dataset.read(0, 1);
 * console.log(store.stats.snapshot().requests - before.requests);
 * ```
 */
export class RemoteStats {
  /** HTTP requests sent, retries included. */
  requests = 0;
  /** Response body bytes received. */
  bytes = 0;
  /** Attempts that failed and were retried. */
  retries = 0;
  /** Range requests the server answered with the whole value (HTTP store only). */
  rangeIgnored = 0;

  /**
   * Counts one request that received `bytes` body bytes.
   *
   * @example
   * ```ts
   * stats.record(0); // a HEAD request
   * ```
   */
  record(bytes: number): void {
    this.requests += 1;
    this.bytes += bytes;
  }

  /**
   * A plain copy of the counters.
   *
   * @example
   * ```ts
   * const { requests, bytes } = store.stats.snapshot();
   * ```
   */
  snapshot(): { requests: number; bytes: number; retries: number; rangeIgnored: number } {
    return { requests: this.requests, bytes: this.bytes, retries: this.retries, rangeIgnored: this.rangeIgnored };
  }

  /**
   * Sets every counter to zero.
   *
   * @example
   * ```ts
   * store.stats.reset();
   * ```
   */
  reset(): void {
    this.requests = 0;
    this.bytes = 0;
    this.retries = 0;
    this.rangeIgnored = 0;
  }
}

/**
 * An answer that does not fit its request (a `Content-Range` naming other bytes, a body longer
 * than the request can return, a `206` without a usable `Content-Range`). Retried like any
 * {@link RetryableFailure}; the stores turn the last one into a `StorageError` `IO_ERROR` that
 * names the URL or key, the asked range and the received one.
 *
 * @example
 * ```ts
 * throw new InconsistentAnswer("Content-Range names other bytes", "bytes 0-99", "bytes 1000-1099/5000");
 * ```
 */
export class InconsistentAnswer extends RetryableFailure {
  /** What was asked, e.g. `"bytes 0-99"` or `"the whole value"`. */
  readonly asked: string;
  /** What came back, e.g. `"206 bytes 1000-1099/5000, 100 body bytes"`. */
  readonly received: string;
  /** Says what does not fit. */
  constructor(message: string, asked: string, received: string) {
    super(message);
    this.name = "InconsistentAnswer";
    this.asked = asked;
    this.received = received;
  }
}

/**
 * What a read asked for: the whole value, `length` bytes at `offset`, or the last `length` bytes.
 *
 * @example
 * ```ts
 * const asked: Asked = { kind: "range", offset: 0, length: 32 };
 * ```
 */
export type Asked = { kind: "whole" } | { kind: "range"; offset: number; length: number } | { kind: "suffix"; length: number };

/**
 * The `Range` header value of an {@link Asked} (`undefined` for the whole value).
 *
 * @example
 * ```ts
 * rangeHeader({ kind: "range", offset: 10, length: 5 }); // "bytes=10-14"
 * ```
 */
export function rangeHeader(asked: Asked): string | undefined {
  if (asked.kind === "whole") return undefined;
  if (asked.kind === "suffix") return `bytes=-${asked.length}`;
  return `bytes=${asked.offset}-${asked.offset + asked.length - 1}`;
}

/** Describes an {@link Asked} for error messages. */
function describeAsked(asked: Asked): string {
  if (asked.kind === "whole") return "the whole value";
  return rangeHeader(asked) ?? "";
}

/**
 * Limits on what one answer may bring.
 *
 * @example
 * ```ts
 * const limits: BodyLimits = { maxBodyBytes: 64 << 20, maxRangeOverread: 1 << 20 };
 * ```
 */
export interface BodyLimits {
  /** Most bytes a whole-value answer (a `get`, or a `200` to a range request) may have (default 256 MiB). */
  maxBodyBytes?: number;
  /** Most bytes a `206` may bring beyond the asked length (an aligned superset; default 1 MiB). */
  maxRangeOverread?: number;
}

/**
 * {@link BodyLimits} with defaults filled in and checked.
 *
 * @example
 * ```ts
 * const limits = resolveBodyLimits({}); // { maxBodyBytes: 268435456, maxRangeOverread: 1048576 }
 * ```
 */
export function resolveBodyLimits(limits: BodyLimits): Required<BodyLimits> {
  const check = (value: number | undefined, fallback: number, field: string): number => {
    const v = value ?? fallback;
    if (!Number.isSafeInteger(v) || v < 0) throw new UsageError("INVALID_ARGUMENT", `${field} must be a non-negative integer`, { field, expected: "integer >= 0", actual: v });
    return v;
  };
  return { maxBodyBytes: check(limits.maxBodyBytes, 256 * 1024 * 1024, "maxBodyBytes"), maxRangeOverread: check(limits.maxRangeOverread, 1024 * 1024, "maxRangeOverread") };
}

/**
 * The most body bytes an answer with this status may carry for `asked`.
 *
 * @example
 * ```ts
 * bodyCap({ kind: "range", offset: 0, length: 50 }, 206, resolveBodyLimits({})); // 1048626
 * ```
 */
export function bodyCap(asked: Asked, status: number, limits: Required<BodyLimits>): number {
  if (asked.kind === "whole" || status === 200) return limits.maxBodyBytes;
  return Math.min(limits.maxBodyBytes, asked.length + limits.maxRangeOverread);
}

/**
 * Reads a body, cancelling it (and so closing the connection) once it passes `cap` bytes: a web
 * `ReadableStream`, or any async iterable of byte arrays (a Node `Readable`, which leaving the
 * loop destroys). With `into`, a body that fits there is read into it and the result is a view
 * of it.
 *
 * @example
 * ```ts
 * const bytes = await readCapped(response.body, 1024, (n) => new RetryableFailure(`${n} bytes`));
 * ```
 */
export async function readCapped(
  stream: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | null | undefined,
  cap: number,
  tooLong: (received: number) => Error,
  into?: Uint8Array,
): Promise<Uint8Array> {
  if (stream === null || stream === undefined) return new Uint8Array(0);
  const parts: Uint8Array[] = [];
  let total = 0;
  // Pieces go straight into `into` while they fit; past its end, what it holds becomes the first part.
  let filling = into;
  const take = (value: Uint8Array): void => {
    total += value.length;
    if (total > cap) throw tooLong(total);
    if (filling !== undefined && total <= filling.length) {
      filling.set(value, total - value.length);
      return;
    }
    if (filling !== undefined) {
      if (total > value.length) parts.push(filling.subarray(0, total - value.length));
      filling = undefined;
    }
    parts.push(value);
  };
  if ("getReader" in stream) {
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      try {
        take(value);
      } catch (error) {
        await reader.cancel().catch(() => undefined);
        throw error;
      }
    }
  } else {
    // Throwing out of the loop ends the iteration, which destroys a Node stream.
    for await (const value of stream) take(value);
  }
  if (filling !== undefined) return filling.subarray(0, total);
  const only = parts.length === 1 ? parts[0] : undefined;
  if (only !== undefined) {
    // A piece that owns all of its memory becomes the value, as a plain Uint8Array (a Node
    // stream's pieces are Buffers, whose `slice` would be a view); one that is part of a larger
    // allocation is copied, so the value neither keeps the rest alive nor shows it through `.buffer`.
    if (only.byteOffset !== 0 || only.byteLength !== only.buffer.byteLength) return new Uint8Array(only);
    return only.constructor === Uint8Array ? only : new Uint8Array(only.buffer, 0, only.byteLength);
  }
  return joinParts(parts, total);
}

/**
 * `parts` copied one after another into a new array of `total` bytes (their summed length). @internal
 *
 * @example
 * ```ts
 * joinParts([Uint8Array.of(1), Uint8Array.of(2, 3)], 3); // Uint8Array [1, 2, 3]
 * ```
 */
export function joinParts(parts: readonly Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * An answer's status line and headers, as {@link extractAsked} needs them.
 *
 * @example
 * ```ts
 * const head: AnswerHead = { status: 206, contentRange: "bytes 0-9/100" };
 * ```
 */
export interface AnswerHead {
  /** The HTTP status (200 or 206). */
  status: number;
  /** The `Content-Range` header, if any. */
  contentRange: string | null | undefined;
}

/**
 * Takes the asked bytes out of an answer, or throws {@link InconsistentAnswer} when the answer
 * does not contain them: a `200` is the whole value (sliced); a `206` must carry a
 * `Content-Range` `bytes s-e/t` that covers the asked range (clipped at `t`), with at least
 * `e-s+1` body bytes (more are dropped). A `206` for a superset of the asked range is fine.
 *
 * @example
 * ```ts
 * extractAsked({ kind: "range", offset: 4, length: 2 }, { status: 206, contentRange: "bytes 0-9/10" }, body); // body[4..6]
 * ```
 */
export function extractAsked(asked: Asked, head: AnswerHead, body: Uint8Array): Uint8Array {
  const received = `${head.status} ${head.contentRange ?? "without Content-Range"}, ${body.length} body bytes`;
  const wrong = (why: string) => new InconsistentAnswer(why, describeAsked(asked), received);
  if (head.status === 200) {
    if (asked.kind === "whole") return body;
    const start = asked.kind === "suffix" ? Math.max(0, body.length - asked.length) : Math.min(asked.offset, body.length);
    const end = asked.kind === "suffix" ? body.length : Math.min(body.length, asked.offset + asked.length);
    return body.slice(start, end);
  }
  if (head.status !== 206) throw wrong(`unexpected status ${head.status}`);
  const match = /^\s*bytes\s+(\d+)-(\d+)\/(\d+|\*)\s*$/i.exec(head.contentRange ?? "");
  if (match === null) throw wrong("a 206 answer without a usable Content-Range");
  const s = Number(match[1]);
  const e = Number(match[2]);
  const total = match[3] === "*" ? undefined : Number(match[3]);
  if (e < s || (total !== undefined && e >= total)) throw wrong("a Content-Range that contradicts itself");
  const length = e - s + 1;
  if (body.length < length) throw new RetryableFailure(`body of ${body.length} bytes, Content-Range ${head.contentRange ?? ""} announced`);
  let a: number;
  let b: number; // inclusive
  if (asked.kind === "whole") {
    if (total === undefined) throw wrong("a 206 answer of unknown total to a whole-value request");
    a = 0;
    b = total - 1;
  } else if (asked.kind === "suffix") {
    if (total === undefined) throw wrong("a 206 answer of unknown total to a suffix request");
    a = Math.max(0, total - asked.length);
    b = total - 1;
  } else {
    a = asked.offset;
    b = asked.offset + asked.length - 1;
    if (total !== undefined) b = Math.min(b, total - 1);
    else if (s <= a && a <= e) b = Math.min(b, e);
    if (b < a) return new Uint8Array(0);
  }
  if (s > a || e < b) throw wrong("the Content-Range does not cover the asked range");
  // The usual answer is exactly the asked bytes: the body itself (the transport's own array, or
  // a view of the buffer the caller lent), not a copy.
  return a === s && b - s + 1 === body.length ? body : body.slice(a - s, b - s + 1);
}


/**
 * A counting semaphore: at most `limit` tasks of {@link ConcurrencyLimit.run} run at once.
 *
 * @example
 * ```ts
 * const limit = new ConcurrencyLimit(4);
 * const pages = await Promise.all(urls.map((u) => limit.run(() => fetch(u))));
 * ```
 */
export class ConcurrencyLimit {
  readonly #limit: number;
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  /** Allows `limit` (≥ 1) tasks at once. */
  constructor(limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new UsageError("INVALID_ARGUMENT", "concurrency must be an integer >= 1", { field: "concurrency", expected: "integer >= 1", actual: limit });
    }
    this.#limit = limit;
  }

  /** Most tasks that were running at the same time so far. */
  peak = 0;

  /** Runs `task` once fewer than `limit` tasks are running. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    // A finishing task hands its slot straight to the first waiter, so a caller arriving between
    // the hand-over and the waiter's resumption cannot take the slot as well.
    if (this.#active >= this.#limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#active += 1;
    this.peak = Math.max(this.peak, this.#active);
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next === undefined) this.#active -= 1;
      else next();
    }
  }
}

/**
 * Requests in flight a reader keeps on a remote store by default: on loopback S3 and HTTP servers
 * reading a 10 M-row carray, 16 took 328 ms where the reader's local default of 4 took 718 ms
 * (tools/bench/README.md); past 16 a server's own limits decide.
 *
 * @example
 * ```ts
 * new HttpStore(url, { concurrency: DEFAULT_REMOTE_CONCURRENCY * 2 });
 * ```
 */
export const DEFAULT_REMOTE_CONCURRENCY = 16;

/**
 * The `concurrency` option of a remote store: an integer in 1..256, default
 * {@link DEFAULT_REMOTE_CONCURRENCY}.
 *
 * @example
 * ```ts
 * checkConcurrency(undefined); // 16
 * ```
 */
export function checkConcurrency(value: unknown): number {
  if (value === undefined) return DEFAULT_REMOTE_CONCURRENCY;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1 || value > 256) {
    throw new UsageError("INVALID_ARGUMENT", "concurrency must be an integer in 1..256", { field: "concurrency", expected: "1..256", actual: value });
  }
  return value;
}

/**
 * The size of one range request an `HttpStore` asks readers for by default (see
 * `ReadableStore.rangeRequestBytes`). A request there costs little past its bytes, and smaller
 * runs arrive one after another rather than all together at the end: a format-2 read-all of the
 * store benchmark's carray over loopback took 81–85 ms in runs of 1 MiB, 91 in runs of 2 MiB and
 * 103–107 in runs of 4 MiB (tools/bench/README.md, "Issue 16, step by step (2026-11-30, night
 * session)").
 *
 * @example
 * ```ts
 * new HttpStore(url, { rangeRequestBytes: DEFAULT_HTTP_RANGE_REQUEST_BYTES * 4 });
 * ```
 */
export const DEFAULT_HTTP_RANGE_REQUEST_BYTES = 1024 * 1024;

/**
 * The size of one range request an `S3Store` asks readers for by default. Each S3 request costs
 * more (the SDK's ~2 ms of CPU per request; an S3 server's own work per request): the same read
 * through s3rver took 499 ms in runs of 4 MiB and 556 ms in runs of 1 MiB (the same README
 * section).
 *
 * @example
 * ```ts
 * new S3Store({ bucket: "data", rangeRequestBytes: DEFAULT_S3_RANGE_REQUEST_BYTES * 2 });
 * ```
 */
export const DEFAULT_S3_RANGE_REQUEST_BYTES = 4 * 1024 * 1024;

/**
 * The `rangeRequestBytes` option of a remote store: an integer in 64 KiB..16 MiB, else
 * `fallback`. A reader keeps up to `concurrency` such requests in flight, so the upper bound keeps
 * that under 4 GiB even at the largest concurrency (256), and at 256 MiB with the default (16).
 *
 * @example
 * ```ts
 * checkRangeRequestBytes(undefined, DEFAULT_HTTP_RANGE_REQUEST_BYTES); // 1048576
 * ```
 */
export function checkRangeRequestBytes(value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 65536 || value > 16777216) {
    throw new UsageError("INVALID_ARGUMENT", "rangeRequestBytes must be an integer from 65536 (64 KiB) to 16777216 (16 MiB)", {
      field: "rangeRequestBytes",
      expected: "65536..16777216",
      actual: value,
    });
  }
  return value;
}
