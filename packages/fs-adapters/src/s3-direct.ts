/**
 * One GET or HEAD of an S3 object sent without the AWS SDK: signed here ({@link signS3Request})
 * and sent through an {@link HttpTransport} to the route the SDK itself used for the bucket
 * ({@link S3Route}). {@link S3Store} sends its reads this way when it has a `transport`, because
 * the SDK's per-request work (its middleware stack, serialisation, a stream per body) cost about
 * as much CPU as the server's answer on loopback: a read of a dataset is one request per chunk
 * file. The answer is checked exactly as the SDK path checks it (status, `Content-Range`, body
 * cap, length); redirects follow the same rules. Browser-safe: no `node:` imports.
 *
 * @internal
 * @packageDocumentation
 */

import { StorageError } from "@fmt/errors";
import { readAnswerBody } from "./answer-body.js";
import type { HttpAnswer, HttpTransport } from "./http.js";
import { InconsistentAnswer, RetryableFailure, extractAsked, parseRetryAfter, rangeHeader } from "./remote.js";
import type { Asked, BodyLimits, RemoteStats } from "./remote.js";
import type { S3Client } from "@aws-sdk/client-s3";
import { wrongRegionError } from "./s3-errors.js";
import { REDIRECTS, redirectTarget } from "./s3-redirects.js";
import { encodeS3Key, signS3Request } from "./s3-sign.js";
import type { S3Credentials, S3Route, SigningKeyCache } from "./s3-sign.js";

/** What one direct request needs besides its key. */
export interface DirectContext {
  transport: HttpTransport;
  route: S3Route;
  /** The client's credentials (its provider, which caches and refreshes them). */
  credentials: () => Promise<S3Credentials>;
  /** Milliseconds to add to this machine's clock (the SDK's `systemClockOffset`). */
  clockOffset: () => number;
  /**
   * Reads an answer's `Date` header and, when it is more than 5 minutes off this machine's clock
   * plus the offset, sets the offset from it (as the SDK does); `true` when it did.
   */
  correctClock: (date: string | null) => boolean;
  /** The signing key of the last signature. */
  keys: SigningKeyCache;
  limits: Required<BodyLimits>;
  maxRedirects: number;
  allowCrossOrigin: boolean;
  stats: RemoteStats;
}

/** How far a server's `Date` may be from this machine's clock before the offset is set from it (the SDK's rule too). */
const CLOCK_SKEW_MS = 5 * 60 * 1000;

/**
 * The {@link DirectContext} of a store whose SDK client is `client`: its credentials provider,
 * and its clock offset (`systemClockOffset`, which the SDK keeps and which a direct answer's
 * `Date` corrects as the SDK's own answers do).
 *
 * @example
 * ```ts
 * const context = directContext(client, nodeHttpTransport(), route, { limits, maxRedirects: 5, allowCrossOrigin: false, stats });
 * ```
 */
export function directContext(
  client: S3Client,
  transport: HttpTransport,
  route: S3Route,
  rest: Pick<DirectContext, "limits" | "maxRedirects" | "allowCrossOrigin" | "stats">,
): DirectContext {
  const config = client.config as unknown as { credentials?: unknown; systemClockOffset?: unknown };
  const offset = () => (typeof config.systemClockOffset === "number" ? config.systemClockOffset : 0);
  return {
    transport,
    route,
    credentials: config.credentials as () => Promise<S3Credentials>,
    clockOffset: offset,
    correctClock: (header) => {
      const server = header === null ? Number.NaN : Date.parse(header);
      if (!Number.isFinite(server) || Math.abs(server - (Date.now() + offset())) < CLOCK_SKEW_MS) return false;
      config.systemClockOffset = server - Date.now();
      return true;
    },
    keys: {},
    ...rest,
  };
}

/** The outcome of {@link directRequest} that is not an error. */
export type DirectOutcome =
  | { kind: "bytes"; bytes: Uint8Array }
  /** A suffix answered from the wrong end: the value has `total` bytes (see `S3Store`). */
  | { kind: "repair"; total: number }
  | { kind: "missing" }
  /** 416: the range starts at or past the end. */
  | { kind: "past-end" }
  /** A HEAD's 200. */
  | { kind: "exists" };

/** Refusals of a signature whose time is off (worth another attempt once the clock offset is set). */
const SKEW_CODES = /^(RequestTimeTooSkewed|RequestExpired|SignatureDoesNotMatch|InvalidSignatureException|AccessDenied|Forbidden)$/;

/** S3 error codes worth another attempt although their status is a 4xx. */
const RETRYABLE_CODES = /^(SlowDown|RequestTimeout|ThrottlingException|Throttling|ThrottledException|RequestThrottled|ServiceUnavailable|InternalError)$/;

/**
 * One attempt (redirects included) at `method` of `fullKey`, for `key` in messages. Throws
 * {@link RetryableFailure} (5xx, 429, throttling, a short body, an answer that does not fit the
 * request) for `withRetries` to try again, and `StorageError` `IO_ERROR` for a refusal.
 *
 * @example
 * ```ts
 * const outcome = await directRequest(context, "ds/meta/sizes", "p/ds/meta/sizes", "GET", { kind: "whole" }, "get", signal, "s3://b/p/ds/meta/sizes");
 * ```
 */
export async function directRequest(
  context: DirectContext,
  key: string,
  fullKey: string,
  method: "GET" | "HEAD",
  asked: Asked,
  operation: string,
  signal: AbortSignal,
  where: string,
  seen?: { etag?: string | undefined },
  into?: Uint8Array,
): Promise<DirectOutcome> {
  const { route, transport } = context;
  let url = new URL(route.basePath + encodeS3Key(fullKey), route.origin);
  const range = method === "GET" ? rangeHeader(asked) : undefined;
  const extra: Record<string, string> = range === undefined ? {} : { range };
  let answer: HttpAnswer;
  let clockCorrected = false;
  for (let hops = 0; ; hops++) {
    context.stats.record(0);
    const headers = route.signed
      ? signS3Request(method, url, extra, await context.credentials(), route.region, route.service, new Date(Date.now() + context.clockOffset()), context.keys)
      : { ...extra };
    answer = await transport({ url: url.href, method, headers, signal, redirect: "manual", ...(into === undefined || method !== "GET" ? {} : { into }) });
    // Only the configured endpoint's clock counts: another host (a followed redirect) does not set it.
    if (url.origin === route.origin) clockCorrected = context.correctClock(answer.header("date")) || clockCorrected;
    if (answer.opaqueRedirect) {
      // A browser's fetch hides where the redirect goes; following it blind could send the
      // signed request elsewhere, so it is refused like a cross-origin redirect.
      await answer.discard();
      throw new StorageError("IO_ERROR", `S3 ${operation} of ${where} was redirected where this transport cannot tell`, { path: key, field: "redirects", expected: "an answer without a redirect", actual: "an opaque redirect" });
    }
    if (!REDIRECTS.has(answer.status)) break;
    const location = answer.header("location");
    if (location === null) {
      if (answer.status === 301) {
        const body = await errorBody(answer, method);
        throw wrongRegionError({ region: answer.header("x-amz-bucket-region") ?? undefined, endpoint: xmlField(body, "Endpoint"), name: xmlField(body, "Code") ?? "PermanentRedirect" }, key, operation, where, route.origin);
      }
      break;
    }
    await answer.discard();
    url = redirectTarget(location, url, hops, { maxRedirects: context.maxRedirects, allowCrossOrigin: context.allowCrossOrigin, origin: route.origin }, key, operation, where);
  }
  const status = answer.status;
  if (status === 404) {
    await answer.discard();
    return { kind: "missing" };
  }
  if (status === 416) {
    await answer.discard();
    return { kind: "past-end" };
  }
  if (status !== 200 && status !== 206) {
    const body = await errorBody(answer, method);
    const code = xmlField(body, "Code") ?? (answer.statusText === "" ? "Error" : answer.statusText.replace(/\s+/g, ""));
    // A signature refused because this machine's clock is off: the offset was just set from the
    // answer's Date, so the next attempt is signed with the server's time.
    if (status >= 500 || status === 429 || RETRYABLE_CODES.test(code) || (clockCorrected && SKEW_CODES.test(code))) {
      throw new RetryableFailure(`${status} ${code}`, { retryAfterMs: parseRetryAfter(answer.header("retry-after")) });
    }
    const message = xmlField(body, "Message");
    throw new StorageError("IO_ERROR", `S3 ${operation} of ${where} failed: ${message ?? `${status} ${code}`}`, {
      path: key,
      field: "key",
      expected: `a successful ${operation}`,
      actual: `${status} ${code}`,
    });
  }
  if (seen !== undefined) seen.etag = answer.header("etag") ?? undefined;
  if (method === "HEAD") {
    await answer.discard();
    return { kind: "exists" };
  }
  const { body: bytes, contentRange } = await readAnswerBody(answer, status, asked, context.limits, into);
  try {
    return { kind: "bytes", bytes: extractAsked(asked, { status, contentRange }, bytes) };
  } catch (error) {
    // A suffix answered from the wrong end still tells the size (as on the SDK path).
    const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(contentRange ?? "");
    if (asked.kind === "suffix" && error instanceof InconsistentAnswer && match !== null && bytes.length >= Number(match[2]) - Number(match[1]) + 1) {
      return { kind: "repair", total: Number(match[3]) };
    }
    throw error;
  }
}

/** The XML error document of a failed GET (at most 64 KiB of it), `""` for a HEAD or an unreadable one. */
async function errorBody(answer: HttpAnswer, method: "GET" | "HEAD"): Promise<string> {
  if (method === "HEAD") {
    await answer.discard();
    return "";
  }
  try {
    return new TextDecoder().decode(await answer.body(64 * 1024, (n) => new Error(`an error document of more than ${n} bytes`)));
  } catch {
    return "";
  }
}

/** The text of `<name>…</name>` in an S3 error document, if present and short. */
function xmlField(xml: string, name: string): string | undefined {
  const match = new RegExp(`<${name}>([^<]{1,512})</${name}>`).exec(xml);
  return match?.[1];
}
