/**
 * How {@link S3Store} sends one SDK command: with retries, following redirects within the
 * endpoint, with every other failure than an abort, a missing key asked as `MISSING` and the
 * library's own errors worded as a `StorageError` naming the key. Split out of
 * `s3-store.ts` (the store's operations), which calls {@link sendCommand} for everything the SDK
 * sends. Browser-safe: no `node:` imports.
 *
 * @internal
 * @packageDocumentation
 */

import type { S3Client } from "@aws-sdk/client-s3";
import { BcolzError } from "@fmt/errors";
import { headerOf, isMissing, isRetryableS3, requestFailure, statusOf, wrongRegion } from "./s3-errors.js";
import { REDIRECTS, learnFromAnswer, redirectTarget } from "./s3-redirects.js";
import type { CommandWithStack, RequestLike } from "./s3-redirects.js";
import type { RemoteStats } from "./remote.js";
import { parseRetryAfter, withRetries } from "./retries.js";
import type { RetrySettings } from "./retries.js";

/**
 * What {@link sendCommand} needs of its store: the client, where keys live, the retry and
 * redirect settings, and the counters it adds to.
 *
 * @example
 * ```ts
 * const context: SendContext = { client, bucket: "data", prefix: "", retry: resolveRetryOptions({}), stats: new RemoteStats(), maxRedirects: 5, allowCrossOrigin: false };
 * ```
 */
export interface SendContext {
  /** The SDK client that sends. */
  readonly client: S3Client;
  /** The bucket, for the `s3://` names of errors. */
  readonly bucket: string;
  /** The key prefix, `""` or ending in `/`. */
  readonly prefix: string;
  /** How attempts are retried and timed out. */
  readonly retry: RetrySettings;
  /** The store's counters: one request per attempt and hop, the bytes `read` returns. */
  readonly stats: RemoteStats;
  /** Redirects followed at most per attempt. */
  readonly maxRedirects: number;
  /** Whether a redirect may leave the endpoint. */
  readonly allowCrossOrigin: boolean;
}

/**
 * Thrown by {@link sendCommand} for a 404 when the caller asked for it (`missingIsSentinel`);
 * never escapes `S3Store`.
 *
 * @example
 * ```ts
 * try { await sendCommand(context, key, "head", head, true); } catch (error) { if (error === MISSING) return false; throw error; }
 * ```
 */
export const MISSING = Symbol("missing");

/**
 * Sends one command for `key` with retries. `missingIsSentinel` turns a 404 into the
 * {@link MISSING} sentinel; `read` consumes the response inside the attempt, so a truncated or
 * inconsistent body is retried; `onSent` is shown a signed request the server answered as a good
 * one (see `learnFromAnswer`). Redirects are followed within the endpoint (see
 * `S3RedirectOptions`).
 *
 * @example
 * ```ts
 * await sendCommand(context, "x/meta/sizes", "delete", () => new DeleteObjectCommand({ Bucket: context.bucket, Key: context.prefix + "x/meta/sizes" }));
 * ```
 */
export async function sendCommand<O = unknown, R = O>(
  context: SendContext,
  key: string,
  operation: string,
  command: () => object,
  missingIsSentinel = false,
  read?: (output: O) => Promise<R>,
  onSent?: (request: RequestLike) => void,
): Promise<R> {
  const { retry, stats } = context;
  const where = `s3://${context.bucket}/${context.prefix}${key}`;
  const route: { target: URL | undefined; origin: string | undefined; url: string | undefined } = { target: undefined, origin: undefined, url: undefined };
  try {
    return await withRetries(
      retry,
      stats,
      async (abortSignal) => {
        for (let hops = 0; ; hops++) {
          stats.record(0);
          const built = command() as CommandWithStack;
          built.middlewareStack.add(
            (next: (args: { request: unknown }) => Promise<unknown>) => async (args: { request: unknown }) => {
              const request = args.request as RequestLike;
              const redirected = route.target;
              if (redirected !== undefined) {
                request.protocol = redirected.protocol;
                request.hostname = redirected.hostname;
                request.port = redirected.port === "" ? undefined : Number(redirected.port);
                request.path = redirected.pathname;
                request.query = Object.fromEntries(redirected.searchParams);
                request.headers.host = redirected.host;
              }
              const url = `${request.protocol}//${request.hostname}${request.port === undefined ? "" : `:${request.port}`}${request.path}`;
              route.url = url;
              route.origin ??= new URL(url).origin;
              return next(args);
            },
            { step: "build", name: "fmtRedirect", priority: "low" },
          );
          if (onSent !== undefined) {
            // The deserialize step sees the request as the SDK hands it to its HTTP handler:
            // signed. Only a request the server answered as it would a good one (a body, or a
            // missing key) serves as a model: a 301 of the wrong region (which the SDK may
            // follow with `followRegionRedirects`, signing anew) or a refusal does not.
            built.middlewareStack.add(
              learnFromAnswer(() => route.target === undefined, onSent),
              { step: "deserialize", name: "fmtLearnRoute", priority: "low" },
            );
          }
          let output: O;
          try {
            output = (await context.client.send(built as never, { abortSignal })) as O;
          } catch (error) {
            const status = statusOf(error);
            const location = headerOf(error, "location");
            if (status === 301 && location === undefined) throw wrongRegion(error, key, operation, where, route.origin);
            if (status === undefined || !REDIRECTS.has(status) || location === undefined || route.url === undefined) throw error;
            route.target = redirectTarget(location, route.url, hops, { maxRedirects: context.maxRedirects, allowCrossOrigin: context.allowCrossOrigin, origin: route.origin }, key, operation, where);
            continue;
          }
          if (read === undefined) return output as unknown as R;
          const result = await read(output);
          if (result instanceof Uint8Array) stats.bytes += result.length;
          return result;
        }
      },
      (error) => !(error instanceof BcolzError) && !isMissing(error) && isRetryableS3(error),
      (error) => parseRetryAfter(headerOf(error, "retry-after")),
    );
  } catch (error) {
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- MISSING is an internal sentinel, caught by the caller that asked for it
    if (missingIsSentinel && isMissing(error) && !(retry.signal?.aborted === true && error === retry.signal.reason)) throw MISSING;
    throw requestFailure(error, key, operation, where, retry.signal);
  }
}

/**
 * The endpoint of `client` for a warning: `at http://host:port (bucket "b")`, or `of bucket "b"`
 * when the client names no endpoint (AWS picks one per region).
 *
 * @example
 * ```ts
 * console.log(await describeEndpoint(client, "data")); // at http://127.0.0.1:4568 (bucket "data")
 * ```
 */
export async function describeEndpoint(client: S3Client, bucket: string): Promise<string> {
  let url = "";
  try {
    const provider = (client.config as unknown as { endpoint?: () => Promise<{ protocol?: string; hostname?: string; port?: number; path?: string }> }).endpoint;
    const endpoint = await provider?.();
    if (endpoint?.hostname !== undefined) {
      const protocol = (endpoint.protocol ?? "https").replace(/:$/, "");
      const path = endpoint.path === undefined || endpoint.path === "/" ? "" : endpoint.path;
      url = `${protocol}://${endpoint.hostname}${endpoint.port === undefined ? "" : `:${endpoint.port}`}${path}`;
    }
  } catch {
    // no endpoint to name: AWS picks one per region
  }
  return url === "" ? `of bucket "${bucket}"` : `at ${url} (bucket "${bucket}")`;
}
