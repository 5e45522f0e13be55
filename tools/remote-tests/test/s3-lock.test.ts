// The dataset write lock on S3, against two real servers on loopback:
// - Ceph RADOS Gateway 16.2 (Debian's radosgw, booted by src/ceph-rgw.ts), which enforces
//   `If-None-Match: *` on PutObject: the lock is atomic there, so of two writers racing for it
//   exactly one wins, every time;
// - s3rver (npm), which ignores conditional writes: the store falls back to a check-then-write
//   and tells the user so, once, when it first locks.
// Both: releasing never deletes a lock the writer no longer holds.
// Ceph RGW also checks every SigV4 signature, so it is where the store's direct reads (signed by
// the store itself, the `transport` option) meet a server that refuses a wrong one.
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BcolzError, ConflictError } from "@fmt/errors";
import { MemoryStore } from "@fmt/fs-adapters";
import { nodeHttpTransport } from "@fmt/fs-adapters/http-node";
import { S3Store } from "@fmt/fs-adapters/s3";
import type { S3StoreOptions } from "@fmt/fs-adapters/s3";
import { DatasetLock, createCarray, openCarray } from "@fmt/store";
import { startCephRgw } from "../src/ceph-rgw.js";
import type { CephRgw } from "../src/ceph-rgw.js";
import { countingTransport } from "../src/counting-transport.js";
import { startFaultProxy } from "../src/fault-proxy.js";
import { TEST_BUCKET, makeClient, startS3Server } from "../src/s3-server.js";
import type { S3Server } from "../src/s3-server.js";

const bytes = (s: string) => new TextEncoder().encode(s);
const retry = { baseDelayMs: 1, maxDelayMs: 5 };
let prefixCounter = 0;
const freshPrefix = () => `lock${++prefixCounter}/`;

/** The settled results of two racing acquires: the winner's lock and the loser's error. */
function outcome(results: PromiseSettledResult<DatasetLock>[]): { winner: DatasetLock; winnerIndex: number; loser: unknown } {
  const won = results.flatMap((r, i) => (r.status === "fulfilled" ? [{ lock: r.value, i }] : []));
  const lost = results.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []));
  expect(won.length, "writers that got the lock in one round").toBe(1);
  expect(lost).toHaveLength(1);
  return { winner: won[0]!.lock, winnerIndex: won[0]!.i, loser: lost[0] };
}

describe("on Ceph RGW, which enforces conditional writes", () => {
  let rgw: CephRgw;
  const clients: S3Client[] = [];
  const newClient = () => {
    const client = new S3Client({
      endpoint: rgw.endpoint,
      region: "us-east-1",
      forcePathStyle: true,
      credentials: { accessKeyId: rgw.accessKeyId, secretAccessKey: rgw.secretAccessKey },
      maxAttempts: 1,
    });
    clients.push(client);
    return client;
  };
  const warnings: string[] = [];
  // Each writer gets its own client (its own connections), like two processes would.
  const writer = (prefix: string, options: Partial<S3StoreOptions> = {}) =>
    new S3Store({ client: newClient(), bucket: rgw.bucket, prefix, retry, onWarning: (m) => warnings.push(m), ...options });

  beforeAll(async () => {
    rgw = await startCephRgw();
    console.log(`Ceph RGW booted in ${rgw.bootMs} ms at ${rgw.endpoint}`);
  }, 120_000);
  afterAll(async () => {
    for (const client of clients) client.destroy();
    await rgw?.stop();
  });

  it("refuses a PutObject with If-None-Match: * on an existing key with 412, and ignores If-Match on DELETE", async () => {
    const client = newClient();
    const Key = `${freshPrefix()}k`;
    const first = await client.send(new PutObjectCommand({ Bucket: rgw.bucket, Key, Body: "one", IfNoneMatch: "*" }));
    expect(first.$metadata.httpStatusCode).toBe(200);
    const second = client.send(new PutObjectCommand({ Bucket: rgw.bucket, Key, Body: "two", IfNoneMatch: "*" }));
    await expect(second).rejects.toMatchObject({ name: "PreconditionFailed", $metadata: { httpStatusCode: 412 } });
    const kept = await client.send(new GetObjectCommand({ Bucket: rgw.bucket, Key }));
    expect(await kept.Body?.transformToString()).toBe("one");
    // What S3Store.deleteIfUnchanged documents for RGW 16: a DELETE whose If-Match names another
    // ETag still deletes, so the release's check runs one round trip before its delete here.
    await client.send(new DeleteObjectCommand({ Bucket: rgw.bucket, Key, IfMatch: '"00000000000000000000000000000000"' }));
    await expect(client.send(new HeadObjectCommand({ Bucket: rgw.bucket, Key }))).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });
  });

  it("the probe finds native conditional writes, and locking warns about nothing", async () => {
    const store = writer(freshPrefix());
    expect(await store.conditionalCreateMode()).toBe("native");
    const lock = await DatasetLock.acquire(store, "ds");
    await lock.release();
    expect(await store.list("")).toEqual([]); // neither the probe key nor the lock is left
    expect(warnings).toEqual([]);
  });

  it("of two writers racing 100 times for the lock, exactly one wins each round", async () => {
    const prefix = freshPrefix();
    const a = writer(prefix);
    const b = writer(prefix);
    expect(await a.conditionalCreateMode()).toBe("native");
    expect(await b.conditionalCreateMode()).toBe("native");
    const wins = [0, 0];
    for (let round = 0; round < 100; round++) {
      const { winner, winnerIndex, loser } = outcome(await Promise.allSettled([DatasetLock.acquire(a, "ds"), DatasetLock.acquire(b, "ds")]));
      wins[winnerIndex]! += 1;
      expect(loser).toBeInstanceOf(ConflictError);
      expect((loser as ConflictError).code).toBe("LOCKED");
      expect((loser as ConflictError).path).toBe("ds/.lock");
      // The loser names the winner: the lock file it found is the winner's.
      expect(((loser as ConflictError).actual as { owner?: unknown }).owner).toBe(winner.token);
      await winner.release();
      expect(await a.get("ds/.lock")).toBeUndefined();
    }
    console.log(`100 rounds: writer A won ${wins[0]}, writer B won ${wins[1]}`);
    expect(wins[0]! + wins[1]!).toBe(100);
    expect(warnings).toEqual([]);
  });

  it("control: the same race really overlaps — with the emulated check-then-write both writers win some rounds", async () => {
    // Shows the race above is a real one (both requests in flight at once), not a sequence that
    // any lock would pass: the non-atomic fallback lets both win here (44 of 100 and 31 of 50 rounds in two runs here).
    const prefix = freshPrefix();
    const a = writer(prefix, { conditionalCreate: "emulated" });
    const b = writer(prefix, { conditionalCreate: "emulated" });
    let bothWon = 0;
    for (let round = 0; round < 50; round++) {
      const results = await Promise.allSettled([DatasetLock.acquire(a, "ds"), DatasetLock.acquire(b, "ds")]);
      if (results.every((r) => r.status === "fulfilled")) bothWon += 1;
      await a.delete("ds/.lock");
    }
    console.log(`emulated control: both writers got the lock in ${bothWon} of 50 rounds`);
    expect(bothWon).toBeGreaterThan(0);
    expect(warnings).toEqual([]); // chosen explicitly: no warning
  });

  it("two writers racing to open a carray for appending: exactly one opens it each round", async () => {
    const prefix = freshPrefix();
    const a = writer(prefix);
    const b = writer(prefix);
    await (await createCarray(a, "prices", [1, 2, 3], { dtype: "<f8", chunklen: 4 })).close();
    for (let round = 0; round < 10; round++) {
      const results = await Promise.allSettled([openCarray(a, "prices", { mode: "a" }), openCarray(b, "prices", { mode: "a" })]);
      const opened = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
      const refused = results.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []));
      expect(opened).toHaveLength(1);
      expect(refused).toHaveLength(1);
      expect(refused[0]).toMatchObject({ code: "LOCKED" });
      await opened[0]!.append([round]);
      await opened[0]!.close();
    }
    const reader = await openCarray(a, "prices");
    expect(reader.length).toBe(13);
    expect(await a.get("prices/.lock")).toBeUndefined();
  });

  it("a writer whose lock was broken and taken over releases without deleting the new holder's lock", async () => {
    const prefix = freshPrefix();
    const a = writer(prefix);
    const b = writer(prefix);
    const stale = await DatasetLock.acquire(a, "ds");
    const current = await DatasetLock.acquire(b, "ds", { breakLock: true });
    const conditionalDelete = vi.spyOn(a, "deleteIfUnchanged");
    a.stats.reset();
    await stale.release();
    expect(stale.held).toBe(false);
    expect(conditionalDelete).toHaveBeenCalledTimes(1);
    expect(conditionalDelete.mock.calls[0]?.[0]).toBe("ds/.lock");
    expect(await conditionalDelete.mock.results[0]?.value).toBe(false);
    expect(a.stats.requests).toBe(1); // one GET, which found another owner: no DELETE was sent
    const held = await b.get("ds/.lock");
    expect(new TextDecoder().decode(held)).toContain(current.token);
    await expect(DatasetLock.acquire(a, "ds")).rejects.toMatchObject({ code: "LOCKED" });
    await current.release();
    expect(await b.get("ds/.lock")).toBeUndefined();
  });

  it("deleteIfUnchanged deletes only a value that still holds the expected bytes", async () => {
    const store = writer(freshPrefix());
    expect(await store.deleteIfUnchanged("k", bytes("mine"))).toBe(false); // missing
    await store.put("k", bytes("theirs"));
    expect(await store.deleteIfUnchanged("k", bytes("mine"))).toBe(false);
    expect(await store.get("k")).toEqual(bytes("theirs"));
    expect(await store.deleteIfUnchanged("k", bytes("theirs"))).toBe(true);
    expect(await store.get("k")).toBeUndefined();
  });

  it("accepts the store's own signed reads (it checks SigV4), and refuses them signed with a wrong secret", async () => {
    const prefix = freshPrefix();
    const values = Float64Array.from({ length: 30_000 }, (_, i) => i / 7);
    await (await createCarray(writer(prefix), "ds", values, { dtype: "<f8", chunklen: 2048, formatVersion: 2 })).close();
    const transport = countingTransport(nodeHttpTransport());
    const reader = writer(prefix, { transport });
    const a = await openCarray(reader, "ds");
    expect(await a.read()).toEqual(values);
    expect(transport.sent.length).toBe(reader.stats.requests - 1); // all but the SDK's first GET
    const key = (await reader.list("ds/"))[0]!;
    const whole = (await reader.get(key))!;
    expect(await reader.getRange(key, { suffixLength: 5 })).toEqual(whole.slice(-5));
    expect(await reader.getRange(key, { offset: 0, length: 0 })).toEqual(new Uint8Array(0));
    expect(await reader.get("ds/nothing")).toBeUndefined();
    // Credentials that go wrong after the route is learned (a rotated secret): the store's own
    // request is refused by the signature check. (A wrong secret from the start never shows the
    // route: the SDK's first GET is refused, and the route is learned only from accepted ones.)
    let secret = rgw.secretAccessKey;
    const rotating = new S3Client({
      endpoint: rgw.endpoint,
      region: "us-east-1",
      forcePathStyle: true,
      maxAttempts: 1,
      // Expiring within the SDK's refresh window, so the provider is asked before every request.
      credentials: async () => ({ accessKeyId: rgw.accessKeyId, secretAccessKey: secret, expiration: new Date(Date.now() + 60_000) }),
    });
    clients.push(rotating);
    const forgedTransport = countingTransport(nodeHttpTransport());
    const forged = new S3Store({ client: rotating, bucket: rgw.bucket, prefix, retry, transport: forgedTransport });
    expect(await forged.get("ds/nothing")).toBeUndefined();
    secret = "not-the-secret";
    await expect(forged.get(key)).rejects.toMatchObject({ code: "IO_ERROR", actual: "403 SignatureDoesNotMatch", path: key });
    expect(forgedTransport.sent).toHaveLength(1);
    expect(forged.stats.requests).toBe(2);
  });

  it("corrects its clock from the server's Date when a direct read is refused as too far off, and reads", async () => {
    const prefix = freshPrefix();
    await writer(prefix).put("k", bytes("value"));
    const transport = countingTransport(nodeHttpTransport());
    const reader = writer(prefix, { transport });
    expect(await reader.get("k")).toEqual(bytes("value")); // through the SDK: shows the route
    const realNow = Date.now.bind(Date);
    const ahead = vi.spyOn(Date, "now").mockImplementation(() => realNow() + 20 * 60 * 1000);
    try {
      expect(await reader.get("k")).toEqual(bytes("value"));
      expect(reader.stats.retries).toBe(1); // one RequestTimeTooSkewed, then signed with the server's time
      expect(await reader.get("k")).toEqual(bytes("value"));
      expect(reader.stats.retries).toBe(1);
    } finally {
      ahead.mockRestore();
    }
    expect(transport.sent).toHaveLength(3);
  });
});

describe("on s3rver, which ignores conditional writes", () => {
  let server: S3Server;
  let client: S3Client;
  const store = (options: Partial<S3StoreOptions> = {}) => new S3Store({ client, bucket: TEST_BUCKET, prefix: freshPrefix(), retry, ...options });

  beforeAll(async () => {
    server = await startS3Server();
    client = makeClient(server.endpoint);
  });
  afterAll(async () => {
    client?.destroy();
    await server?.stop();
  });

  it("says plainly, once, when it first locks, that the lock is not atomic there", async () => {
    const warnings: string[] = [];
    const s = store({ onWarning: (m) => warnings.push(m) });
    expect(warnings).toEqual([]); // nothing is said before a lock is taken
    expect(await s.conditionalCreateMode()).toBe("emulated");
    expect(warnings).toEqual([]);
    const lock = await DatasetLock.acquire(s, "ds");
    expect(warnings).toHaveLength(1);
    const [message] = warnings;
    expect(message).toContain(server.endpoint); // where
    expect(message).toContain(`"${TEST_BUCKET}"`);
    expect(message).toContain("does not enforce conditional writes"); // what
    expect(message).toContain("accepted a PUT with If-None-Match: * over an existing object"); // how it knows
    expect(message).toContain("both get the lock"); // the risk
    expect(message).toContain('conditionalCreate: "emulated"'); // how to silence it
    await lock.release();
    await (await DatasetLock.acquire(s, "ds")).release();
    await (await DatasetLock.acquire(s, "other")).release();
    expect(warnings).toHaveLength(1);
  });

  it("warns through console.warn by default, and not at all when emulated was chosen", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      await (await DatasetLock.acquire(store(), "ds")).release();
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toContain("does not enforce conditional writes");
      warn.mockClear();
      const chosen = store({ conditionalCreate: "emulated" });
      await (await DatasetLock.acquire(chosen, "ds")).release();
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it("a writer whose lock was broken and taken over releases without deleting the new holder's lock", async () => {
    const prefix = freshPrefix();
    const a = new S3Store({ client, bucket: TEST_BUCKET, prefix, retry, conditionalCreate: "emulated" });
    const b = new S3Store({ client: makeClient(server.endpoint), bucket: TEST_BUCKET, prefix, retry, conditionalCreate: "emulated" });
    try {
      const stale = await DatasetLock.acquire(a, "ds");
      const current = await DatasetLock.acquire(b, "ds", { breakLock: true });
      await stale.release();
      expect(new TextDecoder().decode(await b.get("ds/.lock"))).toContain(current.token);
      await current.release();
      expect(await b.get("ds/.lock")).toBeUndefined();
    } finally {
      b.client.destroy();
    }
  });

  it("release sends DELETE with If-Match naming the ETag it read; a 412 leaves the lock, a 501 falls back to a plain DELETE", async () => {
    const proxy = await startFaultProxy(server.port);
    const proxied = makeClient(proxy.endpoint);
    const ifMatch: (string | undefined)[] = [];
    proxied.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { method?: string; headers?: Record<string, string> };
        if (request.method === "DELETE") ifMatch.push(request.headers?.["if-match"]);
        return next(args);
      },
      { step: "finalizeRequest", name: "recordIfMatch" },
    );
    try {
      // One attempt per request: the store's retries would repeat a 5xx before the fallback.
      const s = new S3Store({ client: proxied, bucket: TEST_BUCKET, prefix: freshPrefix(), retry: { ...retry, maxAttempts: 1 }, conditionalCreate: "emulated" });
      const lock = await DatasetLock.acquire(s, "ds");
      const { ETag } = await proxied.send(new HeadObjectCommand({ Bucket: TEST_BUCKET, Key: `${s.prefix}ds/.lock` }));
      // What a server that enforces If-Match answers when the lock changed between the GET and the DELETE.
      proxy.setPlan(({ method }) => (method === "DELETE" ? { kind: "status", status: 412, code: "PreconditionFailed" } : { kind: "pass" }));
      await lock.release();
      expect(ifMatch).toEqual([ETag]);
      expect(await s.get("ds/.lock")).toBeDefined(); // not deleted
      // A server that refuses the header outright: the bytes were just checked, so a plain DELETE follows.
      const mine = (await s.get("ds/.lock"))!;
      let deletes = 0;
      proxy.setPlan(({ method }) => (method === "DELETE" && deletes++ === 0 ? { kind: "status", status: 501, code: "NotImplemented" } : { kind: "pass" }));
      s.stats.reset();
      expect(await s.deleteIfUnchanged("ds/.lock", mine)).toBe(true);
      expect(ifMatch).toEqual([ETag, ETag, undefined]);
      expect(s.stats.requests).toBe(3); // GET, conditional DELETE (501), plain DELETE
      expect(await s.get("ds/.lock")).toBeUndefined();
    } finally {
      proxied.destroy();
      await proxy.stop();
    }
  });

  it("onWarning must be a function", () => {
    expect(() => store({ onWarning: "yes" as unknown as (m: string) => void })).toThrow(BcolzError);
  });
});

describe("MemoryStore", () => {
  it("releases a broken lock without deleting the new holder's", async () => {
    const memory = new MemoryStore();
    const stale = await DatasetLock.acquire(memory, "ds");
    const current = await DatasetLock.acquire(memory, "ds", { breakLock: true });
    await stale.release();
    expect(new TextDecoder().decode(await memory.get("ds/.lock"))).toContain(current.token);
    await current.release();
    expect(await memory.get("ds/.lock")).toBeUndefined();
    expect(await memory.deleteIfUnchanged("ds/.lock", bytes("x"))).toBe(false);
  });
});
