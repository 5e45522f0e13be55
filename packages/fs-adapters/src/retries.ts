/**
 * How the remote stores (`./s3`, `./http`) retry: bounded attempts with jittered exponential
 * backoff, a per-attempt timeout combined with the caller's abort signal, a deadline for all
 * attempts, `Retry-After` honoured, and which failures count as a dropped connection. Split out
 * of `remote.ts`, whose subpath entry (`@fmt/fs-adapters/remote`) re-exports it. Browser-safe: no
 * `node:` imports.
 *
 * @example
 * ```ts
 * const settings = resolveRetryOptions({ maxAttempts: 3 });
 * const answer = await withRetries(settings, new RemoteStats(), (signal) => fetch(url, { signal }), isConnectionError);
 * ```
 * @packageDocumentation
 */

import { UsageError } from "@fmt/errors";
import type { RemoteStats } from "./remote.js";

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
  /**
   * All attempts of one request, waits included, end within this many milliseconds (default
   * 120000): a `Retry-After` that would wait past it ends the request at once.
   */
  deadlineMs?: number;
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
  /** The server's `Retry-After`, in milliseconds, when it sent one. */
  readonly retryAfterMs: number | undefined;
  /** Describes the failure, e.g. `"HTTP 503"`. */
  constructor(message: string, options?: { cause?: unknown; retryAfterMs?: number | undefined }) {
    super(message, options);
    this.name = "RetryableFailure";
    this.retryAfterMs = options?.retryAfterMs;
  }
}

/**
 * Milliseconds to wait according to a `Retry-After` header value (delay-seconds or an
 * HTTP-date); `undefined` when absent or unreadable.
 *
 * @example
 * ```ts
 * parseRetryAfter("2"); // 2000
 * parseRetryAfter(new Date(Date.now() + 5000).toUTCString()); // about 5000
 * ```
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (!/[a-z]/i.test(text) || Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
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
  /** See {@link RetryOptions.deadlineMs}. */
  deadlineMs: number;
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
    deadlineMs: count(options.deadlineMs, 120_000, "deadlineMs", 1),
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
 * Runs `attempt` until it succeeds, at most `maxAttempts` times and within `deadlineMs`. An
 * attempt is retried when it throws a {@link RetryableFailure}, when `isRetryable` says so, or
 * when it times out; other errors and the caller's abort end the loop at once. Each attempt gets
 * its own signal, aborted after `timeoutMs` (or at the deadline) or when the caller's signal
 * aborts. The wait before a retry is the jittered backoff or the server's `Retry-After`
 * ({@link RetryableFailure.retryAfterMs}, or `retryAfterOf(error)`), whichever is longer; a wait
 * that would end past the deadline ends the loop with the last error instead.
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
  retryAfterOf?: (error: unknown) => number | undefined,
): Promise<T> {
  const outer = settings.signal;
  const deadline = Date.now() + settings.deadlineMs;
  let last: unknown;
  for (let n = 0; n < settings.maxAttempts; n++) {
    if (n > 0) {
      // Full jitter: spreads the retries of many clients throttled at once (503 SlowDown).
      const cap = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** (n - 1));
      const hinted = last instanceof RetryableFailure ? last.retryAfterMs : retryAfterOf?.(last);
      const wait = Math.max(Math.floor(Math.random() * cap), hinted ?? 0);
      if (Date.now() + wait >= deadline) throw last;
      stats.retries += 1;
      await sleep(wait, outer);
    }
    if (outer?.aborted === true) throw outer.reason;
    const controller = new AbortController();
    const attemptState = { timedOut: false };
    const budget = Math.max(1, Math.min(settings.timeoutMs, deadline - Date.now()));
    const timer = setTimeout(() => {
      attemptState.timedOut = true;
      controller.abort(new AttemptTimeout(`no answer within ${budget} ms`));
    }, budget);
    const onAbort = () => controller.abort(outer?.reason);
    outer?.addEventListener("abort", onAbort, { once: true });
    try {
      return await attempt(controller.signal);
    } catch (error) {
      // Whatever of the attempt is still under way stops: a transport still reading its body
      // (into a buffer the caller lent, say) must not go on once the caller has moved on.
      controller.abort(error);
      // Read again: the caller may have aborted while the attempt ran.
      if (isAborted(outer)) throw outer?.reason;
      last = attemptState.timedOut ? new AttemptTimeout(`no answer within ${budget} ms`, { cause: error }) : error;
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
    // HPE_*: the answer could not be parsed (stray bytes on a kept-alive connection); the
    // connection is closed and a retry opens a fresh one.
    if (typeof code === "string" && /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|ECONNABORTED|EAI_AGAIN|UND_ERR_SOCKET|UND_ERR_CLOSED|ERR_STREAM_PREMATURE_CLOSE|HPE_[A-Z_]+)$/.test(code)) return true;
    const rawMessage: unknown = (e as { message?: unknown }).message ?? "";
    const message = String(rawMessage);
    if (/socket hang up|fetch failed|terminated|premature close|aborted|network|parse error/i.test(message)) return true;
  }
  return false;
}
