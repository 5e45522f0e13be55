// Many readers at once on S3: readers (each with its own client) read disjoint chunk ranges of one
// dataset in parallel, and readers that open the dataset while a writer appends always see a
// prefix of the final content, never a torn or shrinking one.
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

describe("several readers and one writer", () => {
  it("four readers with their own clients read disjoint chunk ranges in parallel", async () => {
    const all = values(4000);
    await (await createCarray(storeFor("many/"), "ds", all, { dtype: "<i4", chunklen: 250 })).close();
    const readers = [0, 1, 2, 3].map(() => storeFor("many/"));
    const parts = await Promise.all(readers.map(async (store, r) => Array.from((await (await openCarray(store, "ds")).read(r * 1000, (r + 1) * 1000)) as Int32Array)));
    expect(parts.flat()).toEqual(Array.from(all));
    for (const store of readers) expect(store.stats.requests).toBe(4 + 4); // open + 4 chunks of 250 rows
  });

  it("readers opening while a writer appends see a growing prefix of the final content", async () => {
    const writerStore = storeFor("live/");
    const writer = await createCarray(writerStore, "ds", values(100), { dtype: "<i4", chunklen: 64 });
    const batches = 12;
    const final = Array.from(values(100 + batches * 37));
    let writing = true;
    const appending = (async () => {
      for (let b = 0; b < batches; b++) {
        await writer.append(values(37, 100 + b * 37));
        await writer.flush();
      }
      await writer.close();
      writing = false;
    })();
    const reader = storeFor("live/");
    const seen: number[] = [];
    for (let round = 0; round < 200 && (writing || seen.length === 0); round++) {
      const snapshot = Array.from((await (await openCarray(reader, "ds")).read()) as Int32Array);
      expect(snapshot).toEqual(final.slice(0, snapshot.length));
      seen.push(snapshot.length);
    }
    await appending;
    expect(seen.every((n, i) => i === 0 || n >= seen[i - 1]!)).toBe(true);
    expect(Array.from((await (await openCarray(reader, "ds")).read()) as Int32Array)).toEqual(final);
  });
});
