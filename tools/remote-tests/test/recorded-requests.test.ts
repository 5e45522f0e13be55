// The store benchmark's remote floors replay the requests a read made (bench/recorded-requests.ts).
// Checked against the static HTTP server on loopback, through a counting proxy that logs what the
// server was asked: the recorder changes nothing the read sends; a format-2 read is recorded as
// range requests into its superchunk files (not whole files); a replay sends the server the same
// requests, the open's chain one at a time, and fetches exactly the bytes those ranges hold on
// disk; a replay that finds a key the read did not (or misses one it found) fails instead of
// measuring other requests; curl's config gives each transfer its own range and `fail`.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpStore } from "@fmt/fs-adapters/http";
import { nodeHttpTransport } from "@fmt/fs-adapters/http-node";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { createCarray, openCarray } from "@fmt/store";
import { curlArguments, curlConfig, curlRange, recordingStore, replay } from "../bench/recorded-requests.js";
import type { RecordedRequest } from "../bench/recorded-requests.js";
import { startCountingProxy } from "../src/counting-proxy.js";
import type { CountingProxy, LoggedRequest } from "../src/counting-proxy.js";
import { startStaticServer } from "../src/static-server.js";
import type { StaticServer } from "../src/static-server.js";

const ROWS = 200_000;
const RANGE_BYTES = 64 * 1024;

describe("recorded requests of a read, replayed", () => {
  let root: string;
  let server: StaticServer;
  let proxy: CountingProxy;
  const values = Float64Array.from({ length: ROWS }, (_, i) => Math.sin(i / 100) * 1000 + (i % 13));

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "recorded-requests-"));
    await (await createCarray(new FileSystemStore(root), "v2.bcolz", values, { dtype: "<f8", formatVersion: 2, chunklen: 4096 })).close();
    server = await startStaticServer(root);
    proxy = await startCountingProxy(Number(new URL(server.url).port));
  });
  afterAll(async () => {
    await proxy?.stop();
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  const store = () => new HttpStore(`${proxy.endpoint}/`, { transport: nodeHttpTransport(), rangeRequestBytes: RANGE_BYTES });
  // What the server was asked, in an order that does not depend on timing.
  const asked = (log: readonly LoggedRequest[]) => log.map((r) => `${r.method} ${r.path} ${r.range ?? ""} ${r.status}`).sort();

  it("changes nothing the read sends: the server is asked the same with and without the recorder", async () => {
    proxy.reset();
    await (await openCarray(store(), "v2.bcolz")).read();
    const plain = asked(proxy.log);
    proxy.reset();
    await (await openCarray(recordingStore(store()).store, "v2.bcolz")).read();
    expect(asked(proxy.log)).toEqual(plain);
    expect(plain.filter((r) => r.includes("/v2.bcolz/data/") && r.includes("bytes=")).length).toBeGreaterThan(3);
  });

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

  it("replays the read's requests, those it sent alone alone, with exactly the bytes the ranges hold on disk", async () => {
    proxy.reset();
    const { store: recording, requests } = recordingStore(store());
    await (await openCarray(recording, "v2.bcolz")).read();
    const read = asked(proxy.log);
    // The open's chain went one request at a time; the data runs overlapped.
    expect(requests[0]!.alone).toBe(true);
    expect(requests.some((r) => r.alone === false)).toBe(true);
    const expected = requests.filter((r) => r.found).reduce((sum, r) => sum + expectedBytes(r), 0);
    for (const parallel of [4, 16]) {
      proxy.reset();
      expect(await replay(store(), requests, parallel)).toBe(expected);
      expect(asked(proxy.log)).toEqual(read);
      expect(proxy.peak).toBeLessThanOrEqual(parallel);
      // A request the read sent alone had the server to itself in the replay too.
      const headerOf = (r: RecordedRequest) => (curlRange(r) === undefined ? "" : `bytes=${curlRange(r)}`);
      const alone = new Set(requests.filter((r) => r.alone).map((r) => `/${r.key} ${headerOf(r)}`));
      const sentAlone = proxy.log.filter((e) => alone.has(`${e.path} ${e.range ?? ""}`));
      expect(sentAlone.length).toBe(alone.size);
      for (const entry of sentAlone) expect(entry.inFlightAtStart, `${entry.path} ${entry.range ?? ""}`).toBe(1);
    }
  });

  it("fails when a key is found on replay that the read did not find, or missing that it found", async () => {
    await expect(replay(store(), [{ key: "v2.bcolz/meta/shape", found: false }], 2)).rejects.toThrow(/present on replay/);
    await expect(replay(store(), [{ key: "v2.bcolz/no-such-file", found: true }], 2)).rejects.toThrow(/missing on replay/);
  });

  it("gives curl the range of a request, and a config where each transfer has its own range and fails only for a key the read found", () => {
    expect(curlRange({ key: "k", range: { offset: 4096, length: 100 } })).toBe("4096-4195");
    expect(curlRange({ key: "k", range: { suffixLength: 8 } })).toBe("-8");
    expect(curlRange({ key: "k" })).toBeUndefined();
    const config = curlConfig("http://h/", [
      { key: "a b/.journal", found: false },
      { key: "a b/data/__1__.bin", range: { offset: 0, length: 10 }, found: true },
      { key: "a b/meta/shape", found: true },
    ]);
    expect(config.split("next\n")).toEqual([
      'url = "http://h/a%20b/.journal"\noutput = "/dev/null"\n',
      'url = "http://h/a%20b/data/__1__.bin"\noutput = "/dev/null"\nrange = "0-9"\nfail\n',
      'url = "http://h/a%20b/meta/shape"\noutput = "/dev/null"\nfail\n',
    ]);
    // On curl's command line `--fail` would apply to the config's first transfer (the journal
    // above, which is not there).
    expect(curlArguments(16)).not.toContain("--fail");
    expect(curlArguments(16)).toContain("--no-progress-meter");
  });
});
