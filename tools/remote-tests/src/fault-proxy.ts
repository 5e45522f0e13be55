// A fault-injecting HTTP proxy on loopback: forwards each request to an upstream server unless
// the test's plan says to drop the connection (before or after the upstream handled it), answer
// an error status, delay, or cut the response body short. Used in front of s3rver.
import { Agent, createServer, request as httpRequest } from "node:http";
import type { ClientRequest, IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { pipeBody } from "./proxy-body.js";

/** What the proxy does with one request. */
export type Fault =
  | { kind: "pass" }
  /** Close the connection without forwarding or answering. */
  | { kind: "drop" }
  /** Forward (so the upstream applies a write), then close the connection without answering. */
  | { kind: "drop-after-forward" }
  /** Answer this status with an S3-style XML error, without forwarding. */
  | { kind: "status"; status: number; code: string }
  /** Wait this long, then forward (nothing, if the client has gone by then). */
  | { kind: "delay"; ms: number }
  /** Forward, then send the headers and half of the body and close the connection. */
  | { kind: "truncate" };

/** Decides the fault for the n-th request (0-based) the proxy sees. */
export type FaultPlan = (request: { method: string; url: string; index: number }) => Fault;

/** A running proxy. */
export interface FaultProxy {
  endpoint: string;
  /** Requests seen, and how many of each fault kind were injected. */
  counts: { requests: number; injected: Record<Fault["kind"], number> };
  /** Replaces the plan (default: pass everything). */
  setPlan(plan: FaultPlan): void;
  stop(): Promise<void>;
}

const pass: FaultPlan = () => ({ kind: "pass" });

/** Starts a proxy on 127.0.0.1 (free port) in front of `upstreamPort` on 127.0.0.1. */
export async function startFaultProxy(upstreamPort: number): Promise<FaultProxy> {
  let plan = pass;
  const counts: FaultProxy["counts"] = {
    requests: 0,
    injected: { pass: 0, drop: 0, "drop-after-forward": 0, status: 0, delay: 0, truncate: 0 },
  };
  const sockets = new Set<Socket>();
  // Requests to the upstream go through an agent of our own, without keep-alive, and are tracked
  // so `stop` can end them: a forwarded request whose client went away mid-body would otherwise
  // stay open at the upstream (Node's server waits 300 s for a request body), and the upstream's
  // own close() would wait for it.
  const target: Upstream = { port: upstreamPort, agent: new Agent({ keepAlive: false }), requests: new Set(), timers: new Set() };
  const server: Server = createServer((req, res) => {
    const fault = plan({ method: req.method ?? "GET", url: req.url ?? "/", index: counts.requests++ });
    counts.injected[fault.kind] += 1;
    handle(fault, req, res, target);
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
    counts,
    setPlan(next) {
      plan = next;
    },
    async stop() {
      for (const timer of target.timers) clearTimeout(timer);
      for (const request of target.requests) request.destroy();
      target.agent.destroy();
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The upstream and what the proxy has in flight towards it. */
interface Upstream {
  port: number;
  agent: Agent;
  requests: Set<ClientRequest>;
  timers: Set<NodeJS.Timeout>;
}

function handle(fault: Fault, req: IncomingMessage, res: ServerResponse, target: Upstream): void {
  switch (fault.kind) {
    case "drop":
      req.resume();
      req.socket.destroy();
      return;
    case "status": {
      req.resume();
      const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${fault.code}</Code><Message>injected by the test proxy</Message></Error>`;
      res.writeHead(fault.status, { "content-type": "application/xml", "content-length": Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    case "delay": {
      const timer = setTimeout(() => {
        target.timers.delete(timer);
        forward(req, res, target, "pass");
      }, fault.ms);
      target.timers.add(timer);
      return;
    }
    default:
      forward(req, res, target, fault.kind);
  }
}

function forward(req: IncomingMessage, res: ServerResponse, target: Upstream, mode: "pass" | "drop-after-forward" | "truncate"): void {
  // The client gave up (its attempt timed out) before the delay ran out: nothing to forward.
  if (req.destroyed || req.socket.destroyed) return;
  const upstream = httpRequest(
    { host: "127.0.0.1", port: target.port, agent: target.agent, method: req.method, path: req.url, headers: req.headers },
    (answer) => {
      const chunks: Buffer[] = [];
      answer.on("data", (chunk: Buffer) => chunks.push(chunk));
      answer.on("end", () => {
        const body = Buffer.concat(chunks);
        if (res.destroyed) return;
        if (mode === "drop-after-forward") {
          res.socket?.destroy();
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (mode === "truncate" && body.length > 0) {
          res.write(body.subarray(0, Math.floor(body.length / 2)));
          // Give the half body a moment to leave before the connection is cut.
          setImmediate(() => res.socket?.destroy());
          return;
        }
        res.end(body);
      });
    },
  );
  target.requests.add(upstream);
  upstream.on("close", () => target.requests.delete(upstream));
  upstream.on("error", () => res.socket?.destroy());
  pipeBody(req, upstream);
}
