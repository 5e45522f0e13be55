// Run by the release rehearsal in a fresh npm project that installed only @fmt/store and
// @fmt/fs-adapters from the loopback registry: a carray written to disk and read back, and real
// bcolz 1.2.1 datasets compared with the values the corpus expects.
// Usage: node use.mjs CORPUS_SET_DIR CASE... ; prints one JSON line.
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { createCarray, open } from "@fmt/store";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [setDir, ...cases] = process.argv.slice(2);
const bytesOf = (v) => new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
const equalBytes = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

// 1. write, reopen, read
const dir = mkdtempSync(join(tmpdir(), "rehearsal-app-"));
const values = Float64Array.from({ length: 10_000 }, (_, i) => i * 0.25 - 100);
const written = await createCarray(new FileSystemStore(join(dir, "a.bcolz")), "", values, { dtype: "<f8", chunklen: 1000, cparams: { cname: "lz4", clevel: 5 } });
await written.close();
const reopened = await open(new FileSystemStore(join(dir, "a.bcolz")));
const back = await reopened.read(0, reopened.length);
const roundTrip = { kind: reopened.kind, dtype: reopened.dtype.str, length: reopened.length, equal: equalBytes(bytesOf(back), bytesOf(values)), element: await reopened.get(4321) };
rmSync(dir, { recursive: true, force: true });

// 2. real bcolz datasets against the corpus's expected values (expected/*.bin: raw little-endian)
const manifest = JSON.parse(readFileSync(join(setDir, "manifest.json"), "utf8"));
const real = {};
for (const name of cases) {
  const entry = manifest.cases.find((c) => c.name === name);
  const caseDir = join(setDir, name);
  const dataset = await open(new FileSystemStore(join(caseDir, entry.rootdir)));
  if (dataset.kind === "carray") {
    const got = await dataset.read(0, dataset.length);
    real[name] = { kind: dataset.kind, dtype: dataset.dtype.str, length: dataset.length, expectedLength: entry.len, equal: equalBytes(bytesOf(got), readFileSync(join(caseDir, "expected", "values.bin"))) };
  } else {
    const columns = {};
    for (const [column, dtype] of entry.dtype) {
      if (!/^[<>|][iuf]\d$/.test(dtype)) continue; // numeric columns: their bytes compare directly
      const got = await dataset.column(column).read(0, dataset.length);
      columns[column] = equalBytes(bytesOf(got), readFileSync(join(caseDir, "expected", `${column}.bin`)));
    }
    real[name] = { kind: dataset.kind, length: dataset.length, expectedLength: entry.len, columns };
  }
}
console.log(JSON.stringify({ roundTrip, real }));
