// The test proxies (fault-proxy.ts, counting-proxy.ts) in front of a plain node:http server: a
// client that goes away in the middle of a request body must not leave the forwarded request
// open at the server (which would hold the server's close() for Node's 300 s request timeout),
// and a complete body arrives whole.
import { createServer } from "node:http";
import type { IncomingMessage, Server } from "node:http";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCountingProxy } from "../src/counting-proxy.js";
import { startFaultProxy } from "../src/fault-proxy.js";

/** What the upstream saw of each request: bytes received, and whether it ended or closed first. */
interface Seen {
  bytes: number;
  outcome: "ended" | "closed before its end" | "open";
}

let upstream: Server;
let port = 0;
const seen: Seen[] = [];

beforeAll(async () => {
  upstream = createServer((req: IncomingMessage, res) => {
    const record: Seen = { bytes: 0, outcome: "open" };
    seen.push(record);
    req.on("data", (chunk: Buffer) => (record.bytes += chunk.length));
    req.on("end", () => {
      record.outcome = "ended";
      res.end("ok");
    });
    req.on("close", () => {
      if (record.outcome === "open") record.outcome = "closed before its end";
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  port = (upstream.address() as { port: number }).port;
});
afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

/** Sends a PUT announcing 100,000 bytes through `endpoint`, `sent` of them, then goes away (or waits for the answer when all were sent). */
async function put(endpoint: string, sent: number): Promise<void> {
  const socket = connect(Number(new URL(endpoint).port), "127.0.0.1");
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.write(`PUT /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n`);
  socket.write(Buffer.alloc(sent));
  if (sent === 100_000) {
    await new Promise<void>((resolve) => socket.once("data", () => resolve()));
    socket.destroy();
    return;
  }
  // The proxy forwards the headers and the first bytes, then the client goes away.
  await until(() => seen.length > 0 && seen.at(-1)!.bytes === sent);
  socket.destroy();
}

async function until(condition: () => boolean, ms = 5_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!condition() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 10));
  return condition();
}

const proxies = [
  ["the fault proxy", () => startFaultProxy(port)],
  ["the counting proxy", () => startCountingProxy(port)],
] as const;

describe.each(proxies)("%s", (_name, start) => {
  it("ends the forwarded request when the client leaves in the middle of the body", async () => {
    const proxy = await start();
    try {
      seen.length = 0;
      await put(proxy.endpoint, 1_000);
      // Without the proxy ending it, the upstream would wait for the other 99,000 bytes.
      await until(() => seen[0]?.outcome !== "open");
      expect(seen).toEqual([{ bytes: 1_000, outcome: "closed before its end" }]);
    } finally {
      await proxy.stop();
    }
  }, 15_000);

  it("passes a whole body on whole", async () => {
    const proxy = await start();
    try {
      seen.length = 0;
      await put(proxy.endpoint, 100_000);
      expect(seen).toEqual([{ bytes: 100_000, outcome: "ended" }]);
    } finally {
      await proxy.stop();
    }
  }, 15_000);
});
