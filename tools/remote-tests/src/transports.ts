// The HTTP store's transports every HTTP test runs with: the default (`fetch`, web streams) and
// `nodeHttpTransport` (`@fmt/fs-adapters/http-node`) both ways it sends `http:` requests: over its
// own sockets (its default) and through Node's `node:http` client. A test suite is parametrized over them with
// `describe.each(HTTP_TRANSPORTS)("… ($name)", ({ options }) => …)` and builds its stores with
// `new HttpStore(url, { ...theirOptions, ...options() })`.
import type { HttpStoreOptions } from "@fmt/fs-adapters/http";
import { nodeHttpTransport } from "@fmt/fs-adapters/http-node";

/** One way for an HttpStore to send its requests. */
export interface HttpTransportCase {
  /** Named in test titles. */
  name: string;
  /** The store options that choose it (a fresh transport each call). */
  options: () => Pick<HttpStoreOptions, "transport">;
}

/**
 * `fetch` (the store's default, no option given), a fresh `nodeHttpTransport()` (sockets) and a
 * fresh `nodeHttpTransport({ plainHttp: "node:http" })`.
 *
 * @example
 * ```ts
 * describe.each(HTTP_TRANSPORTS)("reads ($name)", ({ options }) => {
 *   it("gets a value", async () => expect(await new HttpStore(url, options()).get("k")).toBeDefined());
 * });
 * ```
 */
export const HTTP_TRANSPORTS: HttpTransportCase[] = [
  { name: "fetch", options: () => ({}) },
  { name: "node sockets", options: () => ({ transport: nodeHttpTransport() }) },
  { name: "node:http", options: () => ({ transport: nodeHttpTransport({ plainHttp: "node:http" }) }) },
];
