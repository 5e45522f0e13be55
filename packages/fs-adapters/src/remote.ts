/**
 * Shared machinery of the remote stores (`./s3`, `./http`): bounded retries with jittered
 * exponential backoff, per-attempt timeouts combined with a caller's abort signal, a concurrency
 * limit, and request/byte counters. Browser-safe: no `node:` imports.
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

/**
 * How a remote store retries and times out requests.
 *
 * @example
 * ```ts
 * const retry: RetryOptions = { maxAttempts: 4, baseDelayMs: 50, maxDelayMs: 2000, timeoutMs: 10_000 };
 * ```
 */
export interface RetryOptions {
  /** Attempts per request, the first included (default 5). */
  maxAttempts?: number;
  /** Backoff before retry n is a random delay in [0, min(maxDelayMs, baseDelayMs·2ⁿ)) ("full jitter"). Default 100. */
  baseDelayMs?: number;
  /** Upper bound of one backoff delay (default 5000). */
  maxDelayMs?: number;
  /** One attempt is aborted (and retried) after this many milliseconds (default 30000). */
  timeoutMs?: number;
  /** Aborts every request of the store; an aborted request rejects with the signal's reason, not retried. */
  signal?: AbortSignal;
}

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
 * Thrown inside an attempt to ask {@link withRetries} for another attempt (a 5xx answer, a body
 * shorter than announced). Never escapes {@link withRetries}: after the last attempt its `cause`
 * is thrown instead, or the instance itself when it has none.
 *
 * @example
 * ```ts
 * if (response.status >= 500) throw new RetryableFailure(`HTTP ${response.status}`);
 * ```
 */
export class RetryableFailure extends Error {
  /** Describes the failure, e.g. `"HTTP 503"`. */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RetryableFailure";
  }
}

/**
 * {@link RetryOptions} with every default filled in, as {@link resolveRetryOptions} returns them.
 *
 * @example
 * ```ts
 * const settings: RetrySettings = resolveRetryOptions({ maxAttempts: 3 });
 * console.log(settings.timeoutMs); // 30000
 * ```
 */
export interface RetrySettings {
  /** See {@link RetryOptions.maxAttempts}. */
  maxAttempts: number;
  /** See {@link RetryOptions.baseDelayMs}. */
  baseDelayMs: number;
  /** See {@link RetryOptions.maxDelayMs}. */
  maxDelayMs: number;
  /** See {@link RetryOptions.timeoutMs}. */
  timeoutMs: number;
  /** See {@link RetryOptions.signal}. */
  signal: AbortSignal | undefined;
}

/**
 * Checks {@link RetryOptions} and fills in the defaults.
 *
 * @example
 * ```ts
 * const settings = resolveRetryOptions({ maxAttempts: 3 });
 * ```
 */
export function resolveRetryOptions(options: RetryOptions): RetrySettings {
  const count = (value: number | undefined, fallback: number, field: string, min: number): number => {
    const v = value ?? fallback;
    if (!Number.isSafeInteger(v) || v < min) {
      throw new UsageError("INVALID_ARGUMENT", `${field} must be an integer >= ${min}`, { field, expected: `integer >= ${min}`, actual: v });
    }
    return v;
  };
  return {
    maxAttempts: count(options.maxAttempts, 5, "maxAttempts", 1),
    baseDelayMs: count(options.baseDelayMs, 100, "baseDelayMs", 0),
    maxDelayMs: count(options.maxDelayMs, 5000, "maxDelayMs", 0),
    timeoutMs: count(options.timeoutMs, 30_000, "timeoutMs", 1),
    signal: options.signal,
  };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** Marks an attempt that our own per-attempt timer aborted. */
class AttemptTimeout extends RetryableFailure {}

/**
 * Runs `attempt` until it succeeds, at most `maxAttempts` times. An attempt is retried when it
 * throws a {@link RetryableFailure}, when `isRetryable` says so, or when it times out; other
 * errors and the caller's abort end the loop at once. Each attempt gets its own signal, aborted
 * after `timeoutMs` or when the caller's signal aborts.
 *
 * @example
 * ```ts
 * const bytes = await withRetries(resolveRetryOptions({}), stats, (signal) => fetchOnce(url, signal), () => false);
 * ```
 */
export async function withRetries<T>(
  settings: RetrySettings,
  stats: RemoteStats,
  attempt: (signal: AbortSignal) => Promise<T>,
  isRetryable: (error: unknown) => boolean,
): Promise<T> {
  const outer = settings.signal;
  let last: unknown;
  for (let n = 0; n < settings.maxAttempts; n++) {
    if (n > 0) {
      stats.retries += 1;
      // Full jitter: spreads the retries of many clients throttled at once (503 SlowDown).
      const cap = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** (n - 1));
      await sleep(Math.floor(Math.random() * cap), outer);
    }
    if (outer?.aborted === true) throw outer.reason;
    const controller = new AbortController();
    const attemptState = { timedOut: false };
    const timer = setTimeout(() => {
      attemptState.timedOut = true;
      controller.abort(new AttemptTimeout(`no answer within ${settings.timeoutMs} ms`));
    }, settings.timeoutMs);
    const onAbort = () => controller.abort(outer?.reason);
    outer?.addEventListener("abort", onAbort, { once: true });
    try {
      return await attempt(controller.signal);
    } catch (error) {
      // Read again: the caller may have aborted while the attempt ran.
      if (isAborted(outer)) throw outer?.reason;
      last = attemptState.timedOut ? new AttemptTimeout(`no answer within ${settings.timeoutMs} ms`, { cause: error }) : error;
      if (!(last instanceof RetryableFailure) && !isRetryable(last)) throw last;
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onAbort);
    }
  }
  throw last;
}

/**
 * Whether `error` looks like a dropped or refused connection (Node's socket errors, `fetch`'s
 * `TypeError: fetch failed`, a body stream cut short).
 *
 * @example
 * ```ts
 * isConnectionError(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" })); // true
 * ```
 */
export function isConnectionError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; typeof e === "object" && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|ECONNABORTED|EAI_AGAIN|UND_ERR_SOCKET|UND_ERR_CLOSED|ERR_STREAM_PREMATURE_CLOSE)$/.test(code)) return true;
    const message = String((e as { message?: unknown }).message ?? "");
    if (/socket hang up|fetch failed|terminated|premature close|aborted|network/i.test(message)) return true;
  }
  return false;
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
