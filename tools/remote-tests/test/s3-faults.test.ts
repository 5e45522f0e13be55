// S3Store through a fault-injecting proxy in front of s3rver: dropped connections, 503 SlowDown,
// 500, delays past the attempt timeout and truncated bodies are retried; a refusal (403) and a
// fault that never stops end in a typed IO_ERROR naming the key; and under random faults a carray
// that is being written always reopens with either its old or its new content.
import { connect } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StorageError } from "@fmt/errors";
import { S3Store } from "@fmt/fs-adapters/s3";
import { createCarray, openCarray } from "@fmt/store";
import { startFaultProxy } from "../src/fault-proxy.js";
import type { Fault, FaultProxy } from "../src/fault-proxy.js";
import { TEST_BUCKET, makeClient, startS3Server } from "../src/s3-server.js";
import type { S3Server } from "../src/s3-server.js";

let server: S3Server;
let proxy: FaultProxy;
let prefixCounter = 0;
const PASS: Fault = { kind: "pass" };

/** A store through the proxy, with short timeouts and backoff so retries are quick. */
function viaProxy(maxAttempts = 5) {
  return new S3Store({
    client: makeClient(proxy.endpoint),
    bucket: TEST_BUCKET,
    prefix: `f${++prefixCounter}/`,
    retry: { maxAttempts, baseDelayMs: 1, maxDelayMs: 10, timeoutMs: 300 },
  });
}
/** The same keys without the proxy, to look at what the server really holds. */
const direct = (store: S3Store) => new S3Store({ client: makeClient(server.endpoint), bucket: TEST_BUCKET, prefix: store.prefix });
/** Injects `fault` into the next request only. */
function once(fault: Fault): void {
  let used = false;
  proxy.setPlan(() => {
    if (used) return PASS;
    used = true;
    return fault;
  });
}

beforeAll(async () => {
  server = await startS3Server();
  proxy = await startFaultProxy(server.port);
});
afterAll(async () => {
  await proxy?.stop();
  await server?.stop();
});

describe("one injected fault is retried", () => {
  const value = new Uint8Array(4000).map((_, i) => i % 251);
  const faults: [string, Fault][] = [
    ["a dropped connection", { kind: "drop" }],
    ["503 SlowDown", { kind: "status", status: 503, code: "SlowDown" }],
    ["500 InternalError", { kind: "status", status: 500, code: "InternalError" }],
    ["a delay past the attempt timeout", { kind: "delay", ms: 1500 }],
    ["a truncated body", { kind: "truncate" }],
  ];
  for (const [name, fault] of faults) {
    it(`get after ${name}`, async () => {
      const store = viaProxy();
      proxy.setPlan(() => PASS);
      await store.put("data/__0.blp", value);
      once(fault);
      const got = await store.get("data/__0.blp");
      expect(got?.length).toBe(value.length);
      expect(got?.every((x, i) => x === value[i])).toBe(true);
      expect(store.stats.retries).toBe(1);
    });
  }

  it("a put whose answer is lost after the server stored it is retried and lands once", async () => {
    const store = viaProxy();
    once({ kind: "drop-after-forward" });
    await store.put("meta/sizes", value);
    expect(store.stats.retries).toBe(1);
    expect((await direct(store).get("meta/sizes"))?.length).toBe(value.length);
  });
});

describe("failures that do not go away", () => {
  it("403 is an IO_ERROR naming the key, not retried", async () => {
    const store = viaProxy();
    proxy.setPlan(() => ({ kind: "status", status: 403, code: "AccessDenied" }));
    const error = await store.get("meta/storage").catch((e: unknown) => e);
    proxy.setPlan(() => PASS);
    expect(error).toBeInstanceOf(StorageError);
    expect(error).toMatchObject({ code: "IO_ERROR", path: "meta/storage", actual: "403 AccessDenied" });
    expect(store.stats.requests).toBe(1);
  });

  it("503 on every attempt ends after maxAttempts with an IO_ERROR", async () => {
    const store = viaProxy(4);
    proxy.setPlan(() => ({ kind: "status", status: 503, code: "SlowDown" }));
    const error = await store.put("data/__1.blp", new Uint8Array(10)).catch((e: unknown) => e);
    proxy.setPlan(() => PASS);
    expect(error).toMatchObject({ code: "IO_ERROR", path: "data/__1.blp", actual: "503 SlowDown" });
    expect(store.stats.requests).toBe(4);
    expect(store.stats.retries).toBe(3);
  });

  it("dropped connections on every attempt end in an IO_ERROR", async () => {
    const store = viaProxy(3);
    proxy.setPlan(() => ({ kind: "drop" }));
    const error = await store.list("").catch((e: unknown) => e);
    proxy.setPlan(() => PASS);
    expect(error).toMatchObject({ code: "IO_ERROR", path: "" });
    expect(store.stats.requests).toBe(3);
  });
});

describe("nothing committed is lost under random faults", () => {
  it("a carray written through a faulty proxy reopens with its old or its new content after every step", async () => {
    // Each request meets a fault with probability 0.3, drawn from a seeded generator; with only
    // 2 attempts per request some operations fail for good, which is the point.
    let seed = 12345;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const kinds: Fault[] = [
      { kind: "drop" },
      { kind: "drop-after-forward" },
      { kind: "status", status: 503, code: "SlowDown" },
      { kind: "status", status: 500, code: "InternalError" },
      { kind: "truncate" },
    ];
    const store = viaProxy(2);
    const clean = direct(store);
    const initial = [1, 2, 3];
    await (await createCarray(clean, "ds", initial, { dtype: "<i4", chunklen: 4 })).close();
    let committed = [...initial];
    let failures = 0;
    const steps = fc.sample(fc.tuple(fc.constantFrom("append", "set", "trim"), fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 6 })), { numRuns: 25, seed: 7 });
    for (const [op, values] of steps) {
      proxy.setPlan(() => (random() < 0.3 ? kinds[Math.floor(random() * kinds.length)]! : PASS));
      const next = op === "append" ? [...committed, ...values] : op === "set" ? committed.map((v, i) => (i === 0 ? values[0]! : v)) : committed.slice(0, Math.max(0, committed.length - 1));
      let ok = false;
      try {
        const writer = await openCarray(store, "ds", { mode: "a" });
        try {
          if (op === "append") await writer.append(values);
          else if (op === "set") await writer.set(0, values[0]!);
          else await writer.trim(Math.min(1, writer.length));
        } finally {
          await writer.close();
        }
        ok = true;
      } catch (error) {
        expect(error).toBeInstanceOf(StorageError);
        failures += 1;
      }
      proxy.setPlan(() => PASS);
      // Recover like an operator would after a crash: break the stale lock, open, close.
      if (!ok) await (await openCarray(clean, "ds", { mode: "a", breakLock: true })).close();
      const now = Array.from((await (await openCarray(clean, "ds")).read()) as Int32Array);
      if (ok) expect(now).toEqual(next);
      else expect([JSON.stringify(committed), JSON.stringify(next)]).toContain(JSON.stringify(now));
      committed = now;
    }
    expect(proxy.counts.injected.drop + proxy.counts.injected.status).toBeGreaterThan(0);
    expect(failures).toBeGreaterThan(0);
  });
});

describe("teardown", () => {
  it("a client gone in the middle of a body leaves nothing open: proxy and server stop at once", async () => {
    // A client that goes away while sending a PUT left the forwarded half request open at
    // s3rver, whose close() then waited for Node's 300 s request timeout: the likely cause of a
    // CI run's afterAll timing out here. proxy-body.test.ts checks the proxies' part alone; this
    // checks that the whole teardown is quick.
    let ownServer: S3Server | undefined = await startS3Server();
    let ownProxy: FaultProxy | undefined;
    try {
      ownProxy = await startFaultProxy(ownServer.port);
      const socket = connect(Number(new URL(ownProxy.endpoint).port), "127.0.0.1");
      await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
      socket.write(`PUT /${TEST_BUCKET}/half HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n`);
      socket.write(Buffer.alloc(1000));
      // Let the proxy forward the headers and the first bytes before the client goes away.
      await new Promise((resolve) => setTimeout(resolve, 200));
      socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const started = Date.now();
      await ownProxy.stop();
      ownProxy = undefined;
      await ownServer.stop();
      ownServer = undefined;
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await ownProxy?.stop();
      await ownServer?.stop();
    }
  }, 15_000);
});
