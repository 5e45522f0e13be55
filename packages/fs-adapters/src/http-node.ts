/**
 * {@link nodeHttpTransport}: an {@link HttpTransport} for {@link HttpStore}, for Node only:
 * `http:` over HTTP/1.1 of its own on `node:net` sockets (`http-socket-node.ts`), `https:` over
 * `node:https`, bodies without web streams. Through `node:http`, the 156 files (~440 KB each) of
 * a carray came in 76–101 ms on loopback where `fetch` took 142–155 ms; over the sockets, a whole
 * read of the bench's carray took about half of `node:http`'s time (tools/bench/README.md).
 * Import it from `@fmt/fs-adapters/http-node`.
 *
 * @example
 * ```ts
 * import { httpStoreForNode } from "@fmt/fs-adapters/http-node";
 * import { open } from "@fmt/store";
 * const store = httpStoreForNode("https://example.org/data/", { concurrency: 16 });
 * const prices = await open(store, "prices.bcolz");
 * ```
 * @packageDocumentation
 */

import { Agent as HttpAgent, request as httpRequest } from "node:http";
import type { ClientRequest, IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { AgentOptions as HttpsAgentOptions } from "node:https";
import { UsageError } from "@fmt/errors";
import { HttpStore } from "./http.js";
import { DRAIN_LIMIT, IDLE_SOCKET_MS, bodyTarget } from "./http-socket-node.js";
import { SocketPool } from "./http-socket-pool-node.js";
import { prematureClose } from "./http1-message-node.js";
import type { HttpAnswer, HttpRequest, HttpStoreOptions, HttpTransport } from "./http.js";
import { checkConcurrency, joinParts } from "./remote.js";

export type { HttpAnswer, HttpRequest, HttpStoreOptions, HttpTransport } from "./http.js";

/**
 * Options of {@link nodeHttpTransport}.
 *
 * @example
 * ```ts
 * const options: NodeHttpTransportOptions = { maxSockets: 32, tls: { ca: readFileSync("ca.pem") } };
 * ```
 */
export interface NodeHttpTransportOptions {
  /**
   * Connections open at once per origin (default 256, the largest `concurrency` a store takes,
   * so the store's own limit decides). Give at least the store's `concurrency`: requests past
   * this many wait for a free connection inside the transport, and their time counts against
   * the store's per-attempt timeout.
   */
  maxSockets?: number;
  /** TLS settings of `https:` connections (a private CA, client certificates), as `https.Agent` takes them. */
  tls?: Pick<HttpsAgentOptions, "ca" | "cert" | "key" | "pfx" | "passphrase" | "rejectUnauthorized" | "servername">;
  /**
   * How `http:` requests go: `"sockets"` (default), HTTP/1.1 spoken over `node:net` connections,
   * each reading into a small buffer of its own, a body with a `Content-Length` read from the
   * socket straight into its value; or
   * `"node:http"`, Node's own client, which allocates a buffer per socket read and collects them
   * later: on loopback, a whole read of a 153-file carray took about half its time over the
   * sockets. `https:` always goes through `node:https`.
   */
  plainHttp?: "sockets" | "node:http";
}

/**
 * The {@link HttpTransport} {@link nodeHttpTransport} makes, with a way to close its idle
 * connections.
 *
 * @example
 * ```ts
 * const transport: NodeHttpTransport = nodeHttpTransport();
 * const store = new HttpStore(url, { transport });
 * // … reads …
 * transport.close();
 * ```
 */
export type NodeHttpTransport = HttpTransport & {
  /** Closes every connection of this transport (idle ones at once, busy ones too: their requests fail). */
  close(): void;
};

/**
 * An {@link HttpTransport} for Node: `http:` requests over kept-alive `node:net` connections
 * speaking HTTP/1.1 itself (or, with `plainHttp: "node:http"`, Node's client), `https:` requests
 * through a keep-alive `node:https` agent; at most `maxSockets` connections per origin either way.
 * No `Accept-Encoding` is sent and nothing is decoded (an answer with a `Content-Encoding` other
 * than `identity` fails when its body is read); redirects are never followed (the 3xx answer is
 * returned for the store to follow; asked for `redirect: "follow"`, which only a browser's opaque
 * redirects need, it throws). A body's cap is checked as its bytes come: past the cap the
 * connection is closed. The request's signal ends the request, body included. Connection errors
 * (`ECONNRESET`, `ECONNREFUSED`, a premature close, `HPE_*` for an answer that cannot be parsed)
 * are retried by the store.
 *
 * @example
 * ```ts
 * import { HttpStore } from "@fmt/fs-adapters/http";
 * import { nodeHttpTransport } from "@fmt/fs-adapters/http-node";
 * const transport = nodeHttpTransport({ maxSockets: 16 });
 * const store = new HttpStore("http://127.0.0.1:8080/corpus/", { transport, concurrency: 16 });
 * ```
 */
export function nodeHttpTransport(options: NodeHttpTransportOptions = {}): NodeHttpTransport {
  const maxSockets = options.maxSockets ?? 256;
  if (!Number.isSafeInteger(maxSockets) || maxSockets < 1) {
    throw new UsageError("INVALID_ARGUMENT", "maxSockets must be an integer >= 1", { field: "maxSockets", expected: "integer >= 1", actual: maxSockets });
  }
  const plainHttp = options.plainHttp ?? "sockets";
  if (plainHttp !== "sockets" && plainHttp !== "node:http") {
    throw new UsageError("INVALID_ARGUMENT", 'plainHttp is "sockets" or "node:http"', { field: "plainHttp", expected: '"sockets" | "node:http"', actual: plainHttp });
  }
  const agentOptions = { keepAlive: true, maxSockets, maxFreeSockets: maxSockets, timeout: IDLE_SOCKET_MS };
  let sockets: SocketPool | undefined;
  let plain: HttpAgent | undefined;
  let secure: HttpsAgent | undefined;
  const send = (request: HttpRequest): Promise<HttpAnswer> => {
    if (request.redirect !== "manual") {
      return Promise.reject(
        new UsageError("INVALID_ARGUMENT", 'nodeHttpTransport never follows redirects itself (only a browser\'s fetch needs redirect: "follow")', { field: "redirect", expected: "manual", actual: request.redirect }),
      );
    }
    const url = new URL(request.url);
    if (url.protocol === "http:" && plainHttp === "sockets") return (sockets ??= new SocketPool(maxSockets)).send(request, url);
    if (url.protocol === "http:") return exchange(request, url, httpRequest, (plain ??= new HttpAgent(agentOptions)));
    if (url.protocol === "https:") return exchange(request, url, httpsRequest, (secure ??= new HttpsAgent({ ...options.tls, ...agentOptions })));
    return Promise.reject(new UsageError("INVALID_ARGUMENT", `nodeHttpTransport speaks http: and https:, not ${url.protocol}`, { field: "url", expected: "an http: or https: URL", actual: request.url }));
  };
  return Object.assign(send, {
    close(): void {
      sockets?.close();
      plain?.destroy();
      secure?.destroy();
    },
  });
}

/** The `node:http` or `node:https` `request` function. */
type RequestFunction = (url: URL, options: { method: string; headers: Record<string, string>; agent: HttpAgent }) => ClientRequest;

/** Sends one request; resolves with its answer once the status line and headers are in. */
function exchange(request: HttpRequest, url: URL, send: RequestFunction, agent: HttpAgent): Promise<HttpAnswer> {
  const { signal } = request;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<HttpAnswer>((resolve, reject) => {
    // One failure handler at a time: the answer's promise until it resolves, then the body's;
    // a failure while neither waits (between the two) is kept for `body` to report.
    let fail: ((error: unknown) => void) | undefined = reject;
    let failure: unknown;
    let done = false;
    const failWith = (error: unknown): void => {
      if (done) return;
      done = true;
      signal.removeEventListener("abort", onAbort);
      if (fail === undefined) failure = error;
      else fail(error);
    };
    const finish = (): void => {
      done = true;
      signal.removeEventListener("abort", onAbort);
    };
    const onAbort = (): void => {
      failWith(signal.reason);
      req.destroy();
    };
    const req = send(url, { method: request.method, headers: request.headers, agent });
    signal.addEventListener("abort", onAbort, { once: true });
    req.on("error", failWith);
    req.on("response", (res: IncomingMessage) => {
      res.on("error", failWith);
      res.on("close", () => {
        if (!res.complete) failWith(prematureClose());
      });
      const announced = contentLength(res);
      fail = undefined;
      resolve({
        status: res.statusCode ?? 0,
        statusText: res.statusMessage ?? "",
        url: request.url,
        redirected: false,
        opaqueRedirect: false,
        header(name) {
          const value = res.headers[name.toLowerCase()];
          return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
        },
        body(cap, tooLong, into) {
          return new Promise<Uint8Array>((resolveBody, rejectBody) => {
            if (done) {
              // The failure as it came (a connection error, or the signal's reason as fetch gives it).
              // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
              if (failure !== undefined) rejectBody(failure);
              else rejectBody(new Error("the body of this answer was already read or discarded"));
              return;
            }
            fail = rejectBody;
            const encoding = res.headers["content-encoding"];
            if (encoding !== undefined && encoding.toLowerCase() !== "identity") {
              // Never asked for (no Accept-Encoding is sent), and the bytes on the wire are not
              // the value: refuse rather than hand back compressed bytes.
              failWith(new Error(`the answer is ${encoding}-encoded; nodeHttpTransport sends no Accept-Encoding and does not decode bodies`));
              req.destroy();
              return;
            }
            // Chunks are copied straight into the value where the body has one (bodyTarget);
            // otherwise they are kept and copied once at the end.
            let target = bodyTarget(announced, cap, into);
            const parts: Uint8Array[] = [];
            let total = 0;
            res.on("data", (chunk: Buffer) => {
              if (done) return;
              const next = total + chunk.length;
              if (next > cap) {
                failWith(tooLong(next));
                // Stop reading: the connection goes, with whatever the server still sends.
                req.destroy();
                return;
              }
              if (target !== undefined && next > target.length) {
                // More than announced (Node's parser does not let this happen; kept safe anyway).
                parts.push(target.subarray(0, total));
                target = undefined;
              }
              if (target !== undefined) target.set(chunk, total);
              else parts.push(chunk);
              total = next;
            });
            res.on("end", () => {
              if (done) return;
              finish();
              if (target !== undefined) {
                resolveBody(total === target.length ? target : target.slice(0, total));
                return;
              }
              // A fresh array: the chunks are views into Node's socket buffers (headers and all).
              resolveBody(joinParts(parts, total));
            });
          });
        },
        discard() {
          if (done) return Promise.resolve();
          // A short rest is read so the connection serves the next request; a long or endless one
          // is not worth reading.
          if (!res.complete && (announced === undefined || announced > DRAIN_LIMIT)) {
            finish();
            req.destroy();
            return Promise.resolve();
          }
          // Resolved at the end of the answer, when Node hands the connection back to the agent
          // (in a tick that runs before this promise's reactions): a request sent right after
          // reuses it instead of opening another. An abort or a dropped connection ends the
          // draining as well (the signal still destroys the request meanwhile).
          return new Promise<void>((resolveDiscard) => {
            fail = () => resolveDiscard();
            res.once("end", () => {
              finish();
              resolveDiscard();
            });
            res.resume();
          });
        },
      });
    });
    req.end();
  });
}

/** The answer's `Content-Length` as a number; `undefined` when absent or not a plain integer. */
function contentLength(res: IncomingMessage): number | undefined {
  const value = res.headers["content-length"];
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/**
 * An {@link HttpStore} whose requests go through a {@link nodeHttpTransport} of its own with as
 * many connections as the store's `concurrency`.
 *
 * @example
 * ```ts
 * const store = httpStoreForNode("http://127.0.0.1:8080/corpus/", { indexKey: "index.txt" });
 * console.log(await store.list!("ds/data/"));
 * ```
 */
export function httpStoreForNode(baseUrl: string, options: Omit<HttpStoreOptions, "fetch" | "transport"> & { tls?: NodeHttpTransportOptions["tls"] } = {}): HttpStore {
  const { tls, ...storeOptions } = options;
  const transport = nodeHttpTransport({ maxSockets: checkConcurrency(options.concurrency), ...(tls === undefined ? {} : { tls }) });
  return new HttpStore(baseUrl, { ...storeOptions, transport });
}
