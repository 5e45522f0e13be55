// The S3 store's direct reads (the `transport` option: requests signed by the store and sent
// without the AWS SDK), on loopback:
// - against s3rver: format-1 and format-2 carrays written through the SDK read back exactly, with
//   every read after the first going through the transport;
// - against a misbehaving server in front of a real bcolz 1.2.1 dataset: each direct request
//   carries a SigV4 signature that holds for what the server received (recomputed with
//   node:crypto), with the session token of the client's credentials provider; refusals and
//   throttling end as on the SDK path; the route is learned only from a request the server took
//   (a client that follows region redirects reads from the right region); a refusal is never
//   retried, whatever its key says.
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchTransport } from "@fmt/fs-adapters/http";
import { nodeHttpTransport } from "@fmt/fs-adapters/http-node";
import { S3Store } from "@fmt/fs-adapters/s3";
import { createCarray, openCarray } from "@fmt/store";
import { countingTransport } from "../src/counting-transport.js";
import { startMisbehavingServer } from "../src/misbehaving-server.js";
import type { MisbehavingServer } from "../src/misbehaving-server.js";
import { TEST_BUCKET, makeClient, startS3Server } from "../src/s3-server.js";
import type { S3Server } from "../src/s3-server.js";
import { sentBySdk, sigV4Holds } from "../src/sigv4-check.js";
import { storageRejection as rejection } from "../src/rejection.js";

const CORPUS = new URL("../../../conformance/corpus/v1/bcolz-real/", import.meta.url).pathname;
const DATASET = "codec_lz4_c0_s1_i4";
const RETRY = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 10, timeoutMs: 5000 };

let server: S3Server;
let bad: MisbehavingServer;
let root: string;
let expected: Uint8Array;

beforeAll(async () => {
  server = await startS3Server();
  root = mkdtempSync(join(tmpdir(), "s3-direct-"));
  cpSync(join(CORPUS, DATASET, "data.bcolz"), join(root, DATASET), { recursive: true });
  expected = new Uint8Array(readFileSync(join(CORPUS, DATASET, "expected", "values.bin")));
  bad = await startMisbehavingServer(root, { bucket: TEST_BUCKET });
});
afterAll(async () => {
  await server?.stop();
  await bad?.stop();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe.each([
  { name: "node sockets", transport: () => nodeHttpTransport() },
  { name: "fetch", transport: () => fetchTransport() },
])("direct reads through $name against s3rver", ({ transport }) => {
  for (const formatVersion of [1, 2] as const) {
    it(`a format-${formatVersion} carray written through the SDK reads back exactly; every read after the first goes through the transport`, async () => {
      const values = Float64Array.from({ length: 50_000 }, (_, i) => Math.sin(i) * 1e3);
      const prefix = `direct-${formatVersion}-${Math.random().toString(36).slice(2)}/`;
      const writer = new S3Store({ client: makeClient(server.endpoint), bucket: TEST_BUCKET, prefix });
      await (await createCarray(writer, "ds", values, { dtype: "<f8", chunklen: 4096, formatVersion })).close();
      const sending = countingTransport(transport());
      const reader = new S3Store({ client: makeClient(server.endpoint), bucket: TEST_BUCKET, prefix, transport: sending });
      const a = await openCarray(reader, "ds");
      const all = await a.read();
      expect(all).toEqual(values);
      expect(await a.get(12_345)).toBe(values[12_345]);
      // The first GET went through the SDK (it showed the route); all others through the transport.
      expect(sending.sent.length).toBeGreaterThan(0);
      expect(sending.sent.length).toBe(reader.stats.requests - 1);
      expect(sending.sent.every((r) => r.startsWith(`GET /${TEST_BUCKET}/${prefix}ds/`))).toBe(true);
    });
  }
});

describe("direct reads against a misbehaving server", () => {
  it("are signed for what the server receives, with the session token of the client's credentials provider", async () => {
    let calls = 0;
    const client = new S3Client({
      endpoint: bad.origin,
      region: "eu-west-3",
      forcePathStyle: true,
      maxAttempts: 1,
      credentials: async () => {
        calls += 1;
        return { accessKeyId: "AKIDTEST", secretAccessKey: "secret/with+chars", sessionToken: "session-token-1" };
      },
    });
    bad.setPlan(() => ({ kind: "pass" }));
    bad.seen.length = 0;
    const store = new S3Store({ client, bucket: TEST_BUCKET, transport: nodeHttpTransport(), retry: RETRY });
    const a = await openCarray(store, DATASET);
    expect(Array.from(await a.readBytes())).toEqual(Array.from(expected));
    expect(await store.getRange(`${DATASET}/meta/sizes`, { offset: 0, length: 0 })).toEqual(new Uint8Array(0)); // a HEAD
    const direct = bad.seen.filter((r) => !sentBySdk(r));
    expect(direct.length).toBe(bad.seen.length - 1);
    expect(direct.map((r) => r.method)).toContain("HEAD");
    for (const request of bad.seen) {
      expect(sigV4Holds(request, "secret/with+chars"), `${request.method} ${request.url}`).toBe(true);
      expect(request.headers["x-amz-security-token"]).toBe("session-token-1");
      expect(String(request.headers.authorization)).toContain("Credential=AKIDTEST/");
      expect(String(request.headers.authorization)).toContain("/eu-west-3/s3/aws4_request");
    }
    // A wrong secret gives signatures that do not hold: the check above can fail.
    expect(sigV4Holds(direct[0]!, "another secret")).toBe(false);
    expect(calls).toBeGreaterThan(0);
    client.destroy();
  });

  it("a 403 is an IO_ERROR naming the key and the status, not retried", async () => {
    const store = new S3Store({ client: makeClient(bad.origin), bucket: TEST_BUCKET, transport: nodeHttpTransport(), retry: RETRY });
    bad.setPlan(() => ({ kind: "pass" }));
    await store.get(`${DATASET}/meta/sizes`);
    bad.setPlan(() => ({ kind: "refuse", status: 403 }));
    bad.seen.length = 0;
    const error = await rejection(store.get(`${DATASET}/meta/storage`));
    expect(error.code).toBe("IO_ERROR");
    expect(error.path).toBe(`${DATASET}/meta/storage`);
    expect(String(error.actual)).toBe("403 AccessDenied");
    expect(error.message).toContain(`s3://${TEST_BUCKET}/${DATASET}/meta/storage`);
    expect(bad.seen).toHaveLength(1);
    expect(sentBySdk(bad.seen[0]!)).toBe(false);
  });

  it("503 SlowDown on every attempt ends after maxAttempts with an IO_ERROR naming the status", async () => {
    const store = new S3Store({ client: makeClient(bad.origin), bucket: TEST_BUCKET, transport: nodeHttpTransport(), retry: RETRY });
    bad.setPlan(() => ({ kind: "pass" }));
    await store.get(`${DATASET}/meta/sizes`);
    bad.setPlan(() => ({ kind: "retry-after", value: "0", status: 503 }));
    bad.seen.length = 0;
    const error = await rejection(store.get(`${DATASET}/meta/storage`));
    expect(error.code).toBe("IO_ERROR");
    expect(String(error.actual)).toBe("503 SlowDown");
    expect(bad.seen).toHaveLength(RETRY.maxAttempts);
    expect(bad.seen.some(sentBySdk)).toBe(false);
    expect(store.stats.retries).toBe(RETRY.maxAttempts - 1);
  });

  it("a refusal is not retried even when the key reads like a connection error (\"network\", \"aborted\")", async () => {
    const store = new S3Store({ client: makeClient(bad.origin), bucket: TEST_BUCKET, transport: nodeHttpTransport(), retry: RETRY });
    bad.setPlan(() => ({ kind: "pass" }));
    await store.get(`${DATASET}/meta/sizes`);
    bad.setPlan(() => ({ kind: "refuse", status: 403 }));
    for (const key of ["social-network/meta/sizes", "aborted/terminated"]) {
      bad.seen.length = 0;
      const error = await rejection(store.get(key));
      expect(String(error.actual)).toBe("403 AccessDenied");
      expect(bad.seen).toHaveLength(1);
      expect(sentBySdk(bad.seen[0]!)).toBe(false);
    }
  });

  it("learns the route from the request the server took: a client following a region redirect reads from that region", async () => {
    // The bucket "lives" in eu-west-3: requests signed for another region get S3's 301.
    bad.setPlan(({ headers }) => (String(headers.authorization).includes("/eu-west-3/s3/") ? { kind: "pass" } : { kind: "wrong-region", region: "eu-west-3", endpoint: "ignored.example" }));
    bad.seen.length = 0;
    const client = new S3Client({ endpoint: bad.origin, region: "us-east-1", forcePathStyle: true, followRegionRedirects: true, maxAttempts: 1, credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" } });
    const store = new S3Store({ client, bucket: TEST_BUCKET, transport: nodeHttpTransport(), retry: RETRY });
    const first = await store.get(`${DATASET}/meta/sizes`);
    const second = await store.get(`${DATASET}/meta/sizes`);
    expect(second).toEqual(first);
    expect(bad.seen.map((r) => `${sentBySdk(r) ? "sdk" : "direct"} ${/\/(us-east-1|eu-west-3)\//.exec(String(r.headers.authorization))?.[1] ?? "?"}`)).toEqual(["sdk us-east-1", "sdk eu-west-3", "direct eu-west-3"]);
    client.destroy();
  });
});
