// Measures reading one bcolz carray of 10 M × <f8 from local files, from a static HTTP server and
// from an S3-protocol server (s3rver), all on loopback: read-all time and requests, and 1,000
// random single-element reads in requests and bytes; in format 1 (a file per chunk) and format 2
// (superchunk files), `BENCH_FORMATS=1,2` by default. Read-all runs `BENCH_REPEATS` times (default
// 3) on fresh handles; the table gives the fastest and the ratio to local files. Run with
// `pnpm --filter @fmt/remote-tests bench` (after `pnpm exec turbo run build`). Asserts nothing.
//
// With BENCH_STORE_ROOT set, it is the remote part of the store benchmark instead
// (tools/bench/store.mjs runs it as a child): it serves the carrays BENCH_STORE_NAMES (default
// carray.bcolz) found in that directory over HTTP and through s3rver, reads each whole from local
// files, HTTP and S3 (fresh handle and open each time; WARM_UPS untimed runs, then BENCH_STORE_RUNS timed
// runs), checks every read against BENCH_STORE_ROOT/carray-source.f8, and prints one JSON line.
//
// The HTTP store sends its requests with the Node transport (`nodeHttpTransport()` of
// `@fmt/fs-adapters/http-node`: its own HTTP/1.1 on sockets for http: URLs);
// the same store with its default `fetch` transport is measured too, side by side (the table's
// "HTTP (static server, fetch)" row; in the JSON line `httpWithFetch` and `httpWithFetchFloor`,
// which the store benchmark's table does not show). The S3 store reads the same way: its own
// signed requests on `nodeHttpTransport()` (its `transport` option); the same store with every
// request through the AWS SDK is measured too (`s3WithSdk`, `s3WithSdkFloor`, not in the
// table). Beside each read, its floors: the requests the read made (recorded on its first,
// untimed run: the open's, then every file in format 1 or runs of slots of the superchunk files
// in format 2) sent again with nothing decoded, by the same store (`httpFetch`, `s3Fetch`) and,
// with curl on the PATH, by curl (`httpCurl`, `s3Curl`: a native client's floor).
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { join, relative } from "node:path";
import { CachingStore } from "@fmt/fs-adapters";
import type { ReadableStore } from "@fmt/fs-adapters";
import { HttpStore } from "@fmt/fs-adapters/http";
import { nodeHttpTransport } from "@fmt/fs-adapters/http-node";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { S3Store } from "@fmt/fs-adapters/s3";
import { createCarray, openCarray } from "@fmt/store";
import { TEST_BUCKET, makeClient, startS3Server } from "../src/s3-server.js";
import { curlArguments, curlConfig, recordingStore, replay } from "./recorded-requests.js";
import type { RecordedRequest } from "./recorded-requests.js";
import { startStaticServer } from "../src/static-server.js";

const N = Number(process.env.BENCH_ROWS ?? 10_000_000);
const SINGLE_READS = 1000;
const FORMATS = (process.env.BENCH_FORMATS ?? "1,2").split(",").map((f) => Number(f) as 1 | 2);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

// Garbage is collected before each timed run (untimed), as the store benchmark's own runs do:
// otherwise the previous run's 80 MB result is collected inside whichever run comes next, and a
// remote read hides that work in its network waits while a local read pays it in full.
v8.setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

// Untimed runs before the timed ones, for every kind: with one, the local read-all of the first
// timed runs still paid the warm-up of this process (258, 178, then 63, 62, 54 ms over five runs,
// 2026-11-27), and a median of three made the local baseline three times too slow.
const WARM_UPS = 3;

async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  collectGarbage();
  const t0 = performance.now();
  const value = await f();
  return [value, performance.now() - t0];
}

/** The store benchmark's remote rows (see the header). */
async function forStoreBench(root: string): Promise<void> {
  const names = (process.env.BENCH_STORE_NAMES ?? "carray.bcolz").split(",");
  const runs = Number(process.env.BENCH_STORE_RUNS ?? 5);
  // The same CRC-32 as the bench's own process (store.mjs passes @fmt/header/node's location).
  if (process.env.BENCH_CRC_MODULE !== undefined) ((await import(pathToFileURL(process.env.BENCH_CRC_MODULE).href)) as { useNativeCrc32(): void }).useNativeCrc32();
  const sourceBytes = readFileSync(join(root, "carray-source.f8"));
  const source = Buffer.from(sourceBytes.buffer, sourceBytes.byteOffset, sourceBytes.byteLength);
  const s3 = await startS3Server();
  const http = await startStaticServerProcess(root);
  const results: Record<string, unknown>[] = [];
  try {
    for (const name of names) {
      const files = filesUnder(join(root, name));
      const upload = new S3Store({ client: makeClient(s3.endpoint), bucket: TEST_BUCKET });
      for (let i = 0; i < files.length; i += 8) {
        await Promise.all(files.slice(i, i + 8).map((f) => upload.put(relative(root, f), new Uint8Array(readFileSync(f)))));
      }
      // [result key, a fresh store, result key of the floor measurement below]
      const kinds: [string, () => ReadableStore, string][] = [
        ["local", () => new FileSystemStore(root), ""],
        ["http", () => new HttpStore(http.url, { transport: nodeHttpTransport() }), "httpFetch"],
        ["httpWithFetch", () => new HttpStore(http.url), "httpWithFetchFloor"],
        ["s3", () => new S3Store({ client: makeClient(s3.endpoint), bucket: TEST_BUCKET, transport: nodeHttpTransport() }), "s3Fetch"],
        ["s3WithSdk", () => new S3Store({ client: makeClient(s3.endpoint), bucket: TEST_BUCKET }), "s3WithSdkFloor"],
      ];
      const result: Record<string, unknown> = { name };
      // The requests of each kind's first (untimed) read, replayed by the floors below.
      const requestsOf = new Map<string, RecordedRequest[]>();
      for (const [kind, make] of kinds) {
        try {
          const times: number[] = [];
          for (let r = 0; r < WARM_UPS + runs; r++) {
            const recording = r === 0 ? recordingStore(make()) : undefined;
            const store = recording?.store ?? make();
            const [all, ms] = await timed(async () => (await openCarray(store, name)).read());
            const bytes = all as Float64Array;
            if (!Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).equals(source)) throw new Error(`${kind}: the values read differ from the source`);
            // Only a read that completed with the right values gives its requests to the floors.
            if (recording !== undefined) requestsOf.set(kind, recording.requests);
            if (r >= WARM_UPS) times.push(ms);
          }
          result[kind] = { times };
        } catch (error) {
          result[kind] = { error: String((error as Error)?.message ?? error).split("\n")[0] };
        }
      }
      // Our client's floor: the requests of the read (recorded above: the open's, then the
      // carray's files in format 1 or runs of slots of its superchunk files in format 2), those the
      // read sent alone sent alone, the others 16 at a time (the remote stores' concurrency), each
      // into a reused buffer, nothing decoded. The difference from the read-all is about what the
      // reader adds to fetching.
      for (const [kind, make, floorKey] of kinds.filter(([k]) => k !== "local")) {
        try {
          const requests = requestsOf.get(kind);
          if (requests === undefined || requests.length === 0) throw new Error(`${kind}: no read recorded`);
          const times: number[] = [];
          for (let r = 0; r < WARM_UPS + runs; r++) {
            const store = make();
            const [fetched, ms] = await timed(() => replay(store, requests, 16));
            if (fetched === 0) throw new Error(`${kind}: fetched nothing`);
            if (r >= WARM_UPS) times.push(ms);
          }
          result[floorKey] = { times, requests: requests.length };
        } catch (error) {
          result[floorKey] = { error: String((error as Error)?.message ?? error).split("\n")[0] };
        }
      }
      // A native client's floor: curl sending the same requests to the same servers, all of them
      // up to 16 at a time (a config has no order between transfers; s3rver serves unsigned
      // GETs), its process start included. What a server needs to answer the read's requests,
      // with no JavaScript client in the way.
      for (const [key, kind, base] of [["httpCurl", "http", http.url], ["s3Curl", "s3", `${s3.endpoint}/${TEST_BUCKET}/`]] as const) {
        try {
          const requests = requestsOf.get(kind);
          if (requests === undefined || requests.length === 0) throw new Error(`${kind}: no read recorded`);
          const times: number[] = [];
          for (let r = 0; r < WARM_UPS + runs; r++) {
            const ms = await curlAll(curlConfig(base, requests));
            if (r >= WARM_UPS) times.push(ms);
          }
          result[key] = { times, requests: requests.length };
        } catch (error) {
          result[key] = { error: String((error as Error)?.message ?? error).split("\n")[0] };
        }
      }
      results.push(result);
    }
  } finally {
    await http.stop();
    await s3.stop();
  }
  process.stdout.write(`${JSON.stringify({ results })}\n`);
}

/**
 * Milliseconds curl takes to run the transfers of `config` ({@link curlConfig}), 16 at a time;
 * rejects when one that must exist fails (an open also asks for keys that are not there).
 */
async function curlAll(config: string): Promise<number> {
  collectGarbage();
  const t0 = performance.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn("curl", curlArguments(16), { stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`curl exited with ${code}: ${stderr.trim().split("\n")[0] ?? ""}`))));
    child.stdin.end(config);
  });
  return performance.now() - t0;
}

/** The standalone measurement (see the header). */
async function standalone(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "bench-remote-"));
  try {
    // A random walk, like the corpus's bigchunk case: compressible but not trivially.
    const data = new Float64Array(N);
    let x = 0;
    for (let i = 0; i < N; i++) data[i] = x += Math.sin(i * 0.37) + (i % 7) * 0.01;
    const s3 = await startS3Server();
    const http = await startStaticServer(root);
    try {
      for (const format of FORMATS) {
        const name = `ds-v${format}`;
        const [, writeMs] = await timed(async () => (await createCarray(new FileSystemStore(root), name, data, { dtype: "<f8", formatVersion: format })).close());
        const files = filesUnder(join(root, name));
        const onDisk = files.reduce((sum, f) => sum + statSync(f).size, 0);
        const upload = new S3Store({ client: makeClient(s3.endpoint), bucket: TEST_BUCKET });
        for (let i = 0; i < files.length; i += 8) {
          await Promise.all(files.slice(i, i + 8).map((f) => upload.put(relative(root, f), new Uint8Array(readFileSync(f)))));
        }
        const stores: [string, () => { store: ReadableStore; stats: () => { requests: number; bytes: number } }][] = [
          ["local files", () => ({ store: new FileSystemStore(root), stats: () => ({ requests: 0, bytes: 0 }) })] /* a file system store counts nothing */,
          ["HTTP (static server, node:http)", () => { const s = new HttpStore(http.url, { transport: nodeHttpTransport() }); return { store: s, stats: () => s.stats.snapshot() }; }],
          ["HTTP (static server, fetch)", () => { const s = new HttpStore(http.url); return { store: s, stats: () => s.stats.snapshot() }; }],
          ["S3 (s3rver)", () => { const s = new S3Store({ client: makeClient(s3.endpoint), bucket: TEST_BUCKET, transport: nodeHttpTransport() }); return { store: s, stats: () => s.stats.snapshot() }; }],
          ["S3 (s3rver, every request through the SDK)", () => { const s = new S3Store({ client: makeClient(s3.endpoint), bucket: TEST_BUCKET }); return { store: s, stats: () => s.stats.snapshot() }; }],
        ];
        const probe = await openCarray(new FileSystemStore(root), name);
        console.log(`\nformat ${format}: ${N} rows <f8, chunklen ${probe.chunklen}, ${files.length} files, ${(onDisk / 1e6).toFixed(1)} MB on disk (written in ${writeMs.toFixed(0)} ms)`);
        console.log("store | read-all ms (fastest of runs) | ratio to local | read-all requests (open included) | 1,000 single reads: requests, bytes (with CachingStore)");
        let localMs = 0;
        for (const [label, make] of stores) {
          let best = Infinity;
          const runs: number[] = [];
          let readRequests = 0;
          for (let r = 0; r < REPEATS; r++) {
            const a = make();
            const array = await openCarray(a.store, name);
            const [all, readMs] = await timed(() => array.read());
            if ((all as Float64Array).length !== N || (all as Float64Array)[N - 1] !== data[N - 1] || (all as Float64Array)[N >> 1] !== data[N >> 1]) throw new Error(`${label}: wrong values`);
            runs.push(readMs);
            best = Math.min(best, readMs);
            readRequests = a.stats().requests;
          }
          if (label === "local files") localMs = best;
          const b = make();
          const cached = await openCarray(new CachingStore(b.store, { maxBytes: 256 << 20 }), name);
          const before = b.stats();
          let seed = 42;
          for (let i = 0; i < SINGLE_READS; i++) {
            seed = (seed * 1103515245 + 12345) % 2 ** 31;
            const index = seed % N;
            if ((await cached.get(index)) !== data[index]) throw new Error(`${label}: wrong value at ${index}`);
          }
          const after = b.stats();
          console.log(`${label} | ${best.toFixed(0)} (${runs.map((m) => m.toFixed(0)).join(", ")}) | ${(best / localMs).toFixed(2)} | ${readRequests} | ${after.requests - before.requests}, ${after.bytes - before.bytes}`);
        }
      }
    } finally {
      await http.stop();
      await s3.stop();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The static HTTP server in a process of its own (BENCH_STATIC_SERVE=root): prints `{"url"}` once
 * listening and stops when its standard input closes. The store benchmark's client then has the
 * event loop to itself, as it has with s3rver (always a child) and as it would with a real server.
 */
async function serveStatic(root: string): Promise<void> {
  const http = await startStaticServer(root);
  process.stdout.write(`${JSON.stringify({ url: http.url })}\n`);
  process.stdin.resume();
  await new Promise<void>((resolve) => process.stdin.once("end", () => resolve()));
  await http.stop();
}

/** Starts {@link serveStatic} in a child process (this same script). */
async function startStaticServerProcess(root: string): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url)], { env: { ...process.env, BENCH_STATIC_SERVE: root, BENCH_STORE_ROOT: "" }, stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const newline = out.indexOf("\n");
      if (newline >= 0) resolve((JSON.parse(out.slice(0, newline)) as { url: string }).url);
    });
    child.once("exit", (code) => reject(new Error(`the static server exited with ${code} before listening`)));
  });
  return {
    url,
    async stop() {
      child.stdin.end();
      await exited;
    },
  };
}

const storeRoot = process.env.BENCH_STORE_ROOT;
const staticRoot = process.env.BENCH_STATIC_SERVE;
await (staticRoot !== undefined && staticRoot !== "" ? serveStatic(staticRoot) : storeRoot === undefined || storeRoot === "" ? standalone() : forStoreBench(storeRoot));
