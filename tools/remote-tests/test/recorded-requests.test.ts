// The store benchmark's remote floors replay the requests a read made (bench/recorded-requests.ts).
// Checked against the static HTTP server on loopback: a format-2 read is recorded as range
// requests into its superchunk files (not whole files), a replay fetches exactly the bytes those
// ranges hold on disk, and a replay that finds a key the read did not (or misses one it found)
// fails instead of measuring other requests.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpStore } from "@fmt/fs-adapters/http";
import { nodeHttpTransport } from "@fmt/fs-adapters/http-node";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { createCarray, openCarray } from "@fmt/store";
import { curlRange, recordingStore, replay } from "../bench/recorded-requests.js";
import type { RecordedRequest } from "../bench/recorded-requests.js";
import { startStaticServer } from "../src/static-server.js";
import type { StaticServer } from "../src/static-server.js";

const ROWS = 200_000;
const RANGE_BYTES = 64 * 1024;

describe("recorded requests of a read, replayed", () => {
  let root: string;
  let server: StaticServer;
  const values = Float64Array.from({ length: ROWS }, (_, i) => Math.sin(i / 100) * 1000 + (i % 13));

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "recorded-requests-"));
    await (await createCarray(new FileSystemStore(root), "v2.bcolz", values, { dtype: "<f8", formatVersion: 2, chunklen: 4096 })).close();
    server = await startStaticServer(root);
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  const store = () => new HttpStore(server.url, { transport: nodeHttpTransport(), rangeRequestBytes: RANGE_BYTES });

  // The bytes a request's answer holds, from the file on disk (not from the store).
  function expectedBytes({ key, range }: RecordedRequest): number {
    const size = statSync(join(root, key)).size;
    if (range === undefined) return size;
    if ("suffixLength" in range) return Math.min(range.suffixLength, size);
    return Math.max(0, Math.min(range.offset + range.length, size) - range.offset);
  }

  it("records a format-2 read as range requests into the superchunk files, each at most the store's range size", async () => {
    const { store: recording, requests } = recordingStore(store());
    const read = await (await openCarray(recording, "v2.bcolz")).read();
    expect(Array.from(read as Float64Array)).toEqual(Array.from(values));
    const data = requests.filter((r) => r.key.startsWith("v2.bcolz/data/"));
    expect(data.length).toBeGreaterThan(3);
    for (const request of data) {
      expect(request.range, request.key).toBeDefined();
      expect(request.found).toBe(true);
      if (request.range !== undefined && "length" in request.range) expect(request.range.length).toBeLessThanOrEqual(RANGE_BYTES);
    }
    // The open asked for at least one key that is not there (the journal), and that is recorded.
    expect(requests.some((r) => r.found === false)).toBe(true);
    expect(requests.every((r) => r.found !== undefined)).toBe(true);
  });

  it("replays exactly the bytes the recorded ranges hold on disk", async () => {
    const { store: recording, requests } = recordingStore(store());
    await (await openCarray(recording, "v2.bcolz")).read();
    const expected = requests.filter((r) => r.found).reduce((sum, r) => sum + expectedBytes(r), 0);
    expect(await replay(store(), requests, 4)).toBe(expected);
    expect(await replay(store(), requests, 16)).toBe(expected);
  });

  it("fails when a key is found on replay that the read did not find, or missing that it found", async () => {
    await expect(replay(store(), [{ key: "v2.bcolz/meta/shape", found: false }], 2)).rejects.toThrow(/present on replay/);
    await expect(replay(store(), [{ key: "v2.bcolz/no-such-file", found: true }], 2)).rejects.toThrow(/missing on replay/);
  });

  it("gives curl the range of a request", () => {
    expect(curlRange({ key: "k", range: { offset: 4096, length: 100 } })).toBe("4096-4195");
    expect(curlRange({ key: "k", range: { suffixLength: 8 } })).toBe("-8");
    expect(curlRange({ key: "k" })).toBeUndefined();
  });
});
