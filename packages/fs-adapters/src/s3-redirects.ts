/**
 * How the S3 store follows redirects: which HTTP statuses are redirects, the one rule of where a
 * redirect may lead ({@link redirectTarget}: the hop limit and the refusal to leave the endpoint),
 * shared by the SDK's requests (`s3-send.ts`) and the direct reads (`s3-direct.ts`), the parts of
 * an SDK command and of its HTTP request that the store's middleware touches, and the middleware
 * that shows the route of direct reads. Browser-safe: no `node:` imports.
 *
 * @internal
 * @packageDocumentation
 */

import { StorageError } from "@fmt/errors";
import { statusOf } from "./s3-errors.js";

export const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * The URL a redirect leads to: its `Location` resolved against `base`, the URL that was
 * requested. `StorageError` `IO_ERROR` when this hop is one past `rules.maxRedirects` (field
 * `redirects.maxRedirects`) or when the target leaves `rules.origin` while
 * `rules.allowCrossOrigin` is off (field `redirects.allowCrossOrigin`); `key`, `operation` and
 * `where` (the `s3://` name) only word that error.
 *
 * @example
 * ```ts
 * const rules = { maxRedirects: 5, allowCrossOrigin: false, origin: "http://127.0.0.1:4568" };
 * redirectTarget("/b/k?x", "http://127.0.0.1:4568/b/k", 0, rules, "k", "get", "s3://b/k"); // URL http://127.0.0.1:4568/b/k?x
 * ```
 */
export function redirectTarget(
  location: string,
  base: string | URL,
  hops: number,
  rules: { readonly maxRedirects: number; readonly allowCrossOrigin: boolean; readonly origin: string | undefined },
  key: string,
  operation: string,
  where: string,
): URL {
  const target = new URL(location, base);
  if (hops >= rules.maxRedirects) {
    throw new StorageError("IO_ERROR", `S3 ${operation} of ${where} redirected more than ${rules.maxRedirects} times`, { path: key, field: "redirects.maxRedirects", expected: `at most ${rules.maxRedirects} redirects`, actual: target.href });
  }
  if (target.origin !== rules.origin && !rules.allowCrossOrigin) {
    throw new StorageError("IO_ERROR", `S3 ${operation} of ${where} redirects to another endpoint (${target.href}); refused (set redirects.allowCrossOrigin to follow it)`, {
      path: key,
      field: "redirects.allowCrossOrigin",
      expected: `a redirect within ${rules.origin ?? "the endpoint"}`,
      actual: target.href,
    });
  }
  return target;
}

/** The part of an SDK command this store touches: its own middleware stack. */
export interface CommandWithStack {
  middlewareStack: { add(middleware: unknown, options: { step: "build" | "deserialize"; name: string; priority?: "low" }): void };
}

/** The part of an SDK HTTP request a redirect changes. */
export interface RequestLike {
  protocol: string;
  hostname: string;
  port?: number | undefined;
  path: string;
  query?: Record<string, string | string[] | null>;
  headers: Record<string, string>;
}

/** The HTTP status of an SDK answer (its raw response) or error (`statusOf`), whichever the next handler gave. */
function statusOfOutcome(outcome: unknown): number | undefined {
  const response = (outcome as { response?: { statusCode?: unknown } } | null)?.response?.statusCode;
  if (typeof response === "number") return response;
  return statusOf(outcome);
}

/**
 * An SDK middleware for the deserialize step, where a request is as the SDK hands it to its HTTP
 * handler (signed): once the server has answered it as it answers a good request (200, 206, a
 * missing key's 404, 416), and `learnable()` still holds (no redirect was followed), it shows
 * the request to `onAccepted`. A 301 of the wrong region (which the SDK may follow with
 * `followRegionRedirects`, signing anew) or a refusal does not serve as a model. Whatever
 * `onAccepted` does, the answer goes on unchanged.
 */
export function learnFromAnswer(learnable: () => boolean, onAccepted: (request: RequestLike) => void) {
  return (next: (args: { request: unknown }) => Promise<unknown>) => async (args: { request: unknown }) => {
    const before = learnable();
    let status: number | undefined;
    try {
      const result = await next(args);
      status = statusOfOutcome(result);
      return result;
    } catch (error) {
      status = statusOfOutcome(error);
      throw error;
    } finally {
      if (before && status !== undefined && [200, 206, 404, 416].includes(status)) {
        try {
          onAccepted(args.request as RequestLike);
        } catch {
          // learning the route must never fail the read that shows it
        }
      }
    }
  };
}
