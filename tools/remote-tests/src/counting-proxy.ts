// A counting HTTP proxy on loopback: forwards every request unchanged to an upstream server (s3rver
// or the static server) and logs what the server was asked: method, path, Range header, status,
// body bytes, and when the exchange started and ended. It also tracks how many requests were in
// flight at once, so that tests can state what a read costs and how far it overlaps, as the server
// sees it (not as a store wrapper believes). An optional delay per request makes overlap visible
// on loopback, where answers otherwise come back before the next request is sent.
import { createServer, request as httpRequest } from "node:http";
import type { Server } from "node:http";
import type { Socket } from "node:net";
import { pipeBody } from "./proxy-body.js";

/** One request as the proxy saw it. */
export interface LoggedRequest {
  method: string;
  /** URL path, percent-decoded, without the query string (`/bucket/key` for path-style S3). */
  path: string;
  /** The Range header, if any (`bytes=a-b`). */
  range: string | undefined;
  status: number;
  /** Response body bytes. */
  bytes: number;
  /** Requests in flight when this one arrived (itself included). */
  inFlightAtStart: number;
  /** ms since the proxy started (performance.now based). */
  start: number;
  end: number;
}

/** A running counting proxy. */
export interface CountingProxy {
  endpoint: string;
  /** Every finished request, in the order they finished. */
  readonly log: LoggedRequest[];
  /** Most requests in flight at once since the last reset. */
  readonly peak: number;
  /** Requests in flight now. */
  readonly inFlight: number;
  /** Delay (ms) before forwarding a request; default none. */
  setDelay(delay: (request: { method: string; path: string; range: string | undefined }) => number): void;
  /** Clears the log and the peak. */
  reset(): void;
  stop(): Promise<void>;
}

/** Starts a counting proxy on 127.0.0.1 (free port) in front of 127.0.0.1:`upstreamPort`. */
export async function startCountingProxy(upstreamPort: number): Promise<CountingProxy> {
  let delay: (request: { method: string; path: string; range: string | undefined }) => number = () => 0;
  let inFlight = 0;
  const sockets = new Set<Socket>();
  const state = {
    log: [] as LoggedRequest[],
    peak: 0,
  };
  const server: Server = createServer((req, res) => {
    inFlight += 1;
    state.peak = Math.max(state.peak, inFlight);
    const start = performance.now();
    const inFlightAtStart = inFlight;
    const url = new URL(req.url ?? "/", "http://x");
    const path = decodeURIComponent(url.pathname);
    const range = typeof req.headers.range === "string" ? req.headers.range : undefined;
    const method = req.method ?? "GET";
    let bytes = 0;
    // The exchange ends when the answer has been handed to the socket (or the connection closed).
    res.once("close", () => {
      inFlight -= 1;
      state.log.push({ method, path, range, status: res.statusCode, bytes, inFlightAtStart, start, end: performance.now() });
    });
    const forward = () => {
      // A client that gave up during the delay: nothing to forward.
      if (req.destroyed || req.socket.destroyed) return;
      const upstream = httpRequest({ host: "127.0.0.1", port: upstreamPort, method, path: req.url, headers: req.headers }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => chunks.push(chunk));
        answer.on("end", () => {
          const body = Buffer.concat(chunks);
          if (res.destroyed) return;
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          bytes = body.length;
          res.end(body);
        });
      });
      upstream.on("error", () => res.socket?.destroy());
      pipeBody(req, upstream);
    };
    const ms = delay({ method, path, range });
    if (ms > 0) setTimeout(forward, ms);
    else forward();
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("proxy has no port");
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    get log() {
      return state.log;
    },
    get peak() {
      return state.peak;
    },
    get inFlight() {
      return inFlight;
    },
    setDelay(next) {
      delay = next;
    },
    reset() {
      state.log = [];
      state.peak = inFlight;
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `[start, end)` of a `bytes=a-b` Range header; `undefined` for none or another form. */
export function parseRange(range: string | undefined): [number, number] | undefined {
  const m = /^bytes=(\d+)-(\d+)$/.exec(range ?? "");
  return m === null ? undefined : [Number(m[1]), Number(m[2]) + 1];
}
