// Test helpers for the writer: deterministic data generators and a batched bridge to the real
// c-blosc 1.21 (one /usr/bin/python3 process per call, data passed as files).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CodecName } from "@fmt/header";

const SCRIPT = fileURLToPath(new URL("./compress-oracle.py", import.meta.url));

export const CNAMES: readonly CodecName[] = ["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"];

export interface CompressJob {
  op: "compress";
  data: Uint8Array;
  typesize: number;
  clevel: number;
  shuffle: 0 | 1 | 2;
  cname: CodecName;
  blocksize?: number;
  /** `data` is all zeros: Python makes it instead of reading a file. */
  zeros?: boolean;
  /** Return c-blosc's whole chunk (`chunk`), not only its header and size. */
  full?: boolean;
}
export interface DecompressJob {
  op: "decompress";
  chunk: Uint8Array;
  expected: Uint8Array;
}
/** One raw LZ4 block from liblz4's `LZ4_compress_fast` (the LZ4 c-blosc links). */
export interface Lz4Job {
  op: "lz4";
  data: Uint8Array;
  acceleration: number;
  /** dstCapacity: LZ4 returns 0 when the block does not fit. */
  capacity: number;
}
export interface Lz4Result { id: number; /** base64; "" when LZ4 returned 0 */ stream: string }
export interface CompressResult { id: number; header: string; cbytes: number; /** base64, when the job asked for `full` */ chunk?: string }
export interface DecompressResult { id: number; ok: boolean; error?: string }

/**
 * Run jobs through real c-blosc (and the liblz4 it links) in one Python process; results come
 * back in job order, with c-blosc's version and a line naming the LZ4 library in use.
 */
export function runCblosc(jobs: CompressJob[]): { version: string; lz4: string; results: CompressResult[] };
export function runCblosc(jobs: DecompressJob[]): { version: string; lz4: string; results: DecompressResult[] };
export function runCblosc(jobs: Lz4Job[]): { version: string; lz4: string; results: Lz4Result[] };
export function runCblosc(jobs: (CompressJob | DecompressJob | Lz4Job)[]): { version: string; lz4: string; results: (CompressResult | DecompressResult | Lz4Result)[] } {
  const dir = mkdtempSync(join(tmpdir(), "blosc-compress-oracle-"));
  try {
    // Identical inputs (common in the header tests) are written once.
    const files = new Map<Uint8Array, string>();
    const fileOf = (bytes: Uint8Array): string => {
      let name = files.get(bytes);
      if (name === undefined) {
        name = `f${files.size}.bin`;
        writeFileSync(join(dir, name), bytes);
        files.set(bytes, name);
      }
      return name;
    };
    const wire = jobs.map((job, id) =>
      job.op === "compress"
        ? { op: job.op, id, ...(job.zeros === true ? { zeros: job.data.length } : { data: fileOf(job.data) }), typesize: job.typesize, clevel: job.clevel, shuffle: job.shuffle, cname: job.cname, blocksize: job.blocksize ?? 0, full: job.full === true }
        : job.op === "lz4"
          ? { op: job.op, id, data: fileOf(job.data), acceleration: job.acceleration, capacity: job.capacity }
          : { op: job.op, id, chunk: fileOf(job.chunk), expected: fileOf(job.expected) },
    );
    writeFileSync(join(dir, "jobs.json"), JSON.stringify({ jobs: wire }));
    const out = execFileSync("/usr/bin/python3", [SCRIPT, join(dir, "jobs.json"), dir], { encoding: "utf8", maxBuffer: 64 << 20 });
    return JSON.parse(out.trim().split("\n").pop()!) as { version: string; lz4: string; results: (CompressResult | DecompressResult | Lz4Result)[] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Small deterministic PRNG (mulberry32), uniform in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const BENCH_KINDS = ["f8-walk", "i8-arange", "f8-uniform", "i4-0..99"] as const;
export type BenchKind = (typeof BENCH_KINDS)[number];

/** Benchmark-like data of `nbytes` bytes (a whole number of elements); returns bytes and typesize. */
export function benchData(kind: BenchKind, nbytes: number, seed: number): { data: Uint8Array; typesize: number } {
  const rand = prng(seed);
  if (kind === "f8-walk") {
    const v = new Float64Array(nbytes / 8);
    let x = 0;
    for (let i = 0; i < v.length; i++) {
      // Box-Muller normal steps.
      x += Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
      v[i] = x;
    }
    return { data: new Uint8Array(v.buffer), typesize: 8 };
  }
  if (kind === "i8-arange") {
    const v = new BigInt64Array(nbytes / 8);
    for (let i = 0; i < v.length; i++) v[i] = BigInt(i + seed);
    return { data: new Uint8Array(v.buffer), typesize: 8 };
  }
  if (kind === "f8-uniform") {
    const v = new Float64Array(nbytes / 8);
    for (let i = 0; i < v.length; i++) v[i] = rand();
    return { data: new Uint8Array(v.buffer), typesize: 8 };
  }
  const v = new Int32Array(nbytes / 4);
  for (let i = 0; i < v.length; i++) v[i] = Math.floor(rand() * 100);
  return { data: new Uint8Array(v.buffer), typesize: 4 };
}
