// Many readers at once on S3: readers, each with its own client, read disjoint chunk ranges of one
// dataset in parallel. (Readers during a live append are not tested here: s3rver writes an
// object's bytes and its metadata in place, in two files, so a concurrent GET can see a torn
// object, which AWS S3 and MinIO never serve. That test needs a server with atomic PUTs.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { S3Store } from "@fmt/fs-adapters/s3";
import { createCarray, openCarray } from "@fmt/store";
import { TEST_BUCKET, makeClient, startS3Server } from "../src/s3-server.js";
import type { S3Server } from "../src/s3-server.js";

let server: S3Server;
beforeAll(async () => {
  server = await startS3Server();
});
afterAll(async () => {
  await server?.stop();
});
const storeFor = (prefix: string) => new S3Store({ client: makeClient(server.endpoint), bucket: TEST_BUCKET, prefix });
const values = (n: number, from = 0) => Int32Array.from({ length: n }, (_, i) => (from + i) * 7 - 3);

describe("several readers at once", () => {
  it("four readers with their own clients read disjoint chunk ranges in parallel", async () => {
    const all = values(4000);
    await (await createCarray(storeFor("many/"), "ds", all, { dtype: "<i4", chunklen: 250 })).close();
    const readers = [0, 1, 2, 3].map(() => storeFor("many/"));
    const parts = await Promise.all(readers.map(async (store, r) => Array.from((await (await openCarray(store, "ds")).read(r * 1000, (r + 1) * 1000)) as Int32Array)));
    expect(parts.flat()).toEqual(Array.from(all));
    for (const store of readers) expect(store.stats.requests).toBe(4 + 4); // open + 4 chunks of 250 rows
  });
});
