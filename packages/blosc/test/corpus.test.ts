// Every chunk file of the real bcolz datasets (written by bcolz 1.2.1 with c-blosc 1.21.3 and
// 1.14.3) decompresses; for carrays the chunks in order reproduce expected/values.bin.
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readBlpkV1Header, readChunkHeader, BLPK_V1_HEADER_SIZE } from "@fmt/header";
import { decompress } from "../src/index.js";
import { BACKENDS, useBackend } from "./backends.js";

const ROOT = fileURLToPath(new URL("../../../conformance/corpus/v1/bcolz-real/", import.meta.url));
interface Case { name: string; kind: string; rootdir: string; len: number; chunklen?: number; nchunks_full?: number; leftover_rows?: number; data_files?: string[] }
const manifest = JSON.parse(readFileSync(join(ROOT, "manifest.json"), "utf8")) as { cases: Case[] };

function blpFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...blpFiles(p));
    else if (/^__\d+\.blp$/.test(name) && dir.endsWith("data")) out.push(p);
  }
  return out;
}

describe.each(BACKENDS)("real bcolz corpus (%s backend)", (backend) => {
  useBackend(backend);
  const files = manifest.cases.flatMap((c) => blpFiles(join(ROOT, c.name, c.rootdir)));

  it(`decompresses all ${files.length} chunk files`, () => {
    expect(files.length).toBeGreaterThan(250);
    const codecs = new Set<string>();
    for (const f of files) {
      const bytes = new Uint8Array(readFileSync(f));
      expect(readBlpkV1Header(bytes, f)).toEqual({ version: 1, nchunks: 1n });
      const chunk = bytes.subarray(BLPK_V1_HEADER_SIZE);
      const h = readChunkHeader(chunk, f);
      if (!h.memcpyed) codecs.add(h.codec!);
      const out = decompress(chunk, { path: f, maxBytes: h.nbytes });
      expect(out.length).toBe(h.nbytes);
    }
    expect([...codecs].sort()).toEqual(["blosclz", "lz4", "snappy", "zlib", "zstd"]);
  });

  for (const c of manifest.cases.filter((k) => k.kind === "carray" && k.len > 0)) {
    it(`${c.name}: chunks in order equal expected/values.bin`, () => {
      const expected = new Uint8Array(readFileSync(join(ROOT, c.name, "expected", "values.bin")));
      const nfiles = (c.nchunks_full ?? 0) + ((c.leftover_rows ?? 0) > 0 ? 1 : 0);
      const parts: Uint8Array[] = [];
      for (let k = 0; k < nfiles; k++) {
        const bytes = new Uint8Array(readFileSync(join(ROOT, c.name, c.rootdir, "data", `__${k}.blp`)));
        parts.push(decompress(bytes.subarray(BLPK_V1_HEADER_SIZE)));
      }
      const total = parts.reduce((n, p) => n + p.length, 0);
      expect(total).toBe(expected.length);
      const all = new Uint8Array(total);
      let o = 0;
      for (const p of parts) { all.set(p, o); o += p.length; }
      expect(Buffer.compare(Buffer.from(all), Buffer.from(expected))).toBe(0);
    });
  }
});
