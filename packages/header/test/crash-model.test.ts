// A model check of the write orders of spec/v2.md §13. A tiny one-column carray of `|u1` rows lives
// in an in-memory map of files; each operation is the exact sequence of atomic steps §13 lists
// (a whole-file replacement, a write of at most 32 bytes, a slot written at the end of a file, a
// deletion; an in-place slot overwrite is split in two to model a torn write). For every prefix of
// the steps — a writer killed at that moment — a reader that follows §10.3, §10.4, §7.4 and the
// journal rule of §13.4 must see exactly the old rows before the commit and the new rows after it;
// a writer opening the dataset afterwards (§13.1) must change nothing a reader sees, and its own
// append, killed at every step in turn, must again show the old rows or the new ones. The reader and writer below are written from the spec text, with the header
// codecs of this package; they are a model, not the store.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  buildSuperchunk, checkDatasetSuperchunk, checkRequiredChunkSize, checksumKind, computeChunkChecksum, journalChunkFileName, locateChunk,
  offsetsTableStart, readChunkHeader, readOffsets, readSuperchunkChunk, readSuperchunkHeader, readSuperchunkMetadataText, requiredChunks,
  slotCapacities, spareRoom, superchunkFileName, writeChunkHeader, writeSuperchunkHeader,
} from "../src/index.js";

type Files = Map<string, Uint8Array>;
type Step = (fs: Files) => void;
interface Config {
  chunklen: number;
  S: number;
  checksumId: number;
  spare: number;
}

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

/** A memcpyed Blosc chunk of one-byte rows. */
function chunkOf(rows: readonly number[]): Uint8Array {
  const out = new Uint8Array(16 + rows.length);
  writeChunkHeader({ version: 2, versionlz: 1, flags: 0x12, typesize: 1, nbytes: rows.length, blocksize: Math.max(1, rows.length), cbytes: 16 + rows.length }, out);
  out.set(rows, 16);
  return out;
}

function newSuperchunk(cfg: Config, s: number, chunks: number[][]): Uint8Array {
  return buildSuperchunk({
    chunks: chunks.map(chunkOf), checksumId: cfg.checksumId, typesize: 1, chunkSize: cfg.chunklen,
    metadata: `{"capacity": ${cfg.S}, "first_chunk": ${(s - 1) * cfg.S}}`, capacity: cfg.S, sparePercent: cfg.spare,
  });
}

function lengthOf(fs: Files): number {
  return (JSON.parse(dec(fs.get("meta/shape")!)) as { shape: number[] }).shape[0]!;
}

function journalOf(fs: Files): [number, number][] {
  const j = fs.get(".journal");
  return j === undefined ? [] : (JSON.parse(dec(j)) as { chunks: [number, number][] }).chunks;
}

/** The reader of §10.3–§10.4 with the journal rule of §13.4. */
function readRows(fs: Files, cfg: Config): number[] {
  const len = lengthOf(fs);
  const journal = journalOf(fs);
  const { nchunks, rest, superchunks } = requiredChunks(len, cfg.chunklen, cfg.S);
  const out: number[] = [];
  superchunks.forEach((required, k) => {
    const s = k + 1;
    const key = superchunkFileName(s);
    const file = fs.get(key);
    if (file === undefined) throw new Error(`MISSING_FILE ${key}`);
    const h = readSuperchunkHeader(file, key);
    const meta = JSON.parse(readSuperchunkMetadataText(file, h, key)) as { capacity?: number; first_chunk?: number };
    checkDatasetSuperchunk(h, { capacity: meta.capacity, firstChunk: meta.first_chunk }, { s, required, chunklen: cfg.chunklen, atomsize: 1, superchunksize: cfg.S }, key);
    const offsets = readOffsets(file, h, { capacity: meta.capacity, fileLength: file.length, path: key });
    for (let i = 0; i < required; i++) {
      const g = (s - 1) * cfg.S + i;
      const rows = g === nchunks - 1 && rest > 0 ? rest : cfg.chunklen;
      const next = journalChunkFileName(s, i);
      const fromJournal = journal.some(([js, ji]) => js === s && ji === i) && fs.has(next);
      const { chunk, blosc } = fromJournal ? readSuperchunkChunk(fs.get(next)!, h, i, { path: next, firstChunk: meta.first_chunk }) : readSuperchunkChunk(file.subarray(offsets[i]), h, i, { path: key, firstChunk: meta.first_chunk });
      checkRequiredChunkSize(blosc.nbytes, rows, { chunklen: cfg.chunklen, atomsize: 1 }, key);
      out.push(...chunk.subarray(16, 16 + rows));
    }
  });
  return out;
}

// ---- atomic steps --------------------------------------------------------------------------

function header(fs: Files, key: string) {
  return readSuperchunkHeader(fs.get(key)!, key);
}

/** A new slot (chunk, checksum, spare) at the end of the file; returns its offset. */
function appendSlot(fs: Files, cfg: Config, key: string, chunk: Uint8Array, g: number): number {
  const file = fs.get(key)!;
  const sum = computeChunkChecksum(cfg.checksumId, chunk, g); // bound to the global index (§6)
  const grown = new Uint8Array(file.length + chunk.length + sum.length + spareRoom(chunk.length, cfg.chunklen, cfg.spare));
  grown.set(file);
  grown.set(chunk, file.length);
  grown.set(sum, file.length + chunk.length);
  fs.set(key, grown);
  return file.length;
}

function writeAt(fs: Files, key: string, at: number, bytes: Uint8Array): void {
  const copy = fs.get(key)!.slice();
  copy.set(bytes, at);
  fs.set(key, copy);
}

function writeEntry(fs: Files, key: string, i: number, offset: number): void {
  const entry = new Uint8Array(8);
  new DataView(entry.buffer).setBigInt64(0, BigInt(offset), true);
  writeAt(fs, key, offsetsTableStart(header(fs, key)) + 8 * i, entry);
}

function writeHeader(fs: Files, key: string, change: { nchunks?: number; lastChunk?: number }): void {
  const h = header(fs, key);
  writeAt(fs, key, 0, writeSuperchunkHeader({ ...h, ...change }));
}

function liveOffsets(fs: Files, key: string, cfg: Config): number[] {
  const file = fs.get(key)!;
  return readOffsets(file, header(fs, key), { capacity: cfg.S, fileLength: file.length });
}

function chunkRowsAt(fs: Files, key: string, offset: number): number[] {
  const file = fs.get(key)!;
  const blosc = readChunkHeader(file.subarray(offset));
  return [...file.subarray(offset + 16, offset + 16 + blosc.nbytes)];
}

// ---- operations, as step lists (commit = index of the committing step) -----------------------

interface Plan {
  steps: Step[];
  commit: number;
}

/** §13.1: finish a journal, drop leftovers, hide chunks and files the length does not need. */
function openForWriting(fs: Files, cfg: Config): Plan {
  const steps: Step[] = [];
  for (const [s, i] of journalOf(fs)) {
    const next = journalChunkFileName(s, i);
    if (!fs.has(next)) continue;
    steps.push(...installSteps(cfg, s, i, () => fs.get(next)!));
  }
  const stray = [...fs.keys()].filter((k) => k.endsWith(".next") || k.endsWith(".compact"));
  steps.push((f) => stray.forEach((k) => f.delete(k)), (f) => f.delete(".journal"));
  steps.push((f) => {
    const { superchunks } = requiredChunks(lengthOf(f), cfg.chunklen, cfg.S);
    if (superchunks.length > 0) {
      const key = superchunkFileName(superchunks.length);
      if (header(f, key).nchunks !== superchunks[superchunks.length - 1]) writeHeader(f, key, { nchunks: superchunks[superchunks.length - 1]! });
    }
    for (const k of [...f.keys()]) {
      const m = /^data\/__(\d+)__\.bin$/.exec(k);
      if (m !== null && Number(m[1]) > superchunks.length) f.delete(k);
    }
  });
  return { steps, commit: -1 };
}

/** §13.4 step 3 for one chunk whose new image (chunk + checksum) `image()` gives. */
function installSteps(cfg: Config, s: number, i: number, image: () => Uint8Array): Step[] {
  const key = superchunkFileName(s);
  let fits = false;
  let at = 0;
  let slot = -1;
  const size = checksumKind(cfg.checksumId).size;
  return [
    (fs) => {
      const offsets = liveOffsets(fs, key, cfg);
      at = offsets[i]!;
      fits = image().length <= slotCapacities(offsets, fs.get(key)!.length)[i]!;
      if (fits) writeAt(fs, key, at, image().subarray(0, Math.floor(image().length / 2)));
      else slot = appendSlot(fs, cfg, key, image().subarray(0, image().length - size), (s - 1) * cfg.S + i);
    },
    (fs) => {
      if (fits) writeAt(fs, key, at + Math.floor(image().length / 2), image().subarray(Math.floor(image().length / 2)));
      else writeEntry(fs, key, i, slot);
    },
  ];
}

function appendPlan(fs0: Files, cfg: Config, rows: number[]): Plan {
  const old = readRows(fs0, cfg);
  const len = old.length;
  const { nchunks, rest, superchunks } = requiredChunks(len, cfg.chunklen, cfg.S);
  const all = [...old, ...rows];
  const chunkRows = (g: number): number[] => all.slice(g * cfg.chunklen, Math.min(all.length, (g + 1) * cfg.chunklen));
  const after = requiredChunks(all.length, cfg.chunklen, cfg.S);
  const steps: Step[] = [];
  const touched = new Map<number, number>();
  const firstNew = rest > 0 ? nchunks - 1 : nchunks;
  const fresh = new Map<number, number[][]>();
  for (let g = firstNew; g < after.nchunks; g++) {
    const { superchunk: s, local: i } = locateChunk(g, cfg.S);
    if (s <= superchunks.length) {
      const key = superchunkFileName(s);
      let slot = -1;
      steps.push((fs) => (slot = appendSlot(fs, cfg, key, chunkOf(chunkRows(g)), g)), (fs) => writeEntry(fs, key, i, slot));
      touched.set(s, i + 1);
    } else {
      fresh.set(s, [...(fresh.get(s) ?? []), chunkRows(g)]);
    }
  }
  for (const [s, count] of touched) {
    const last = (s - 1) * cfg.S + count - 1;
    steps.push((fs) => writeHeader(fs, superchunkFileName(s), { nchunks: count, lastChunk: chunkRows(last).length }));
  }
  for (const [s, chunks] of fresh) steps.push((fs) => fs.set(superchunkFileName(s), newSuperchunk(cfg, s, chunks)));
  steps.push((fs) => fs.set("meta/shape", enc(`{"shape": [${all.length}]}\n`)));
  return { steps, commit: steps.length - 1 };
}

function trimPlan(fs0: Files, cfg: Config, newLen: number): Plan {
  const old = readRows(fs0, cfg);
  const { nchunks, rest, superchunks } = requiredChunks(newLen, cfg.chunklen, cfg.S);
  const steps: Step[] = [(fs) => fs.set("meta/shape", enc(`{"shape": [${newLen}]}\n`))];
  if (superchunks.length > 0) {
    const s = superchunks.length;
    const key = superchunkFileName(s);
    const ns = superchunks[s - 1]!;
    steps.push((fs) => writeHeader(fs, key, { nchunks: ns, lastChunk: chunkRowsAt(fs, key, liveOffsets(fs, key, cfg)[ns - 1]!).length }));
    if (rest > 0) {
      const rows = old.slice((nchunks - 1) * cfg.chunklen, newLen);
      let slot = -1;
      steps.push((fs) => (slot = appendSlot(fs, cfg, key, chunkOf(rows), nchunks - 1)), (fs) => writeEntry(fs, key, ns - 1, slot), (fs) => writeHeader(fs, key, { lastChunk: rest }));
    }
  }
  const existing = [...fs0.keys()].map((k) => /^data\/__(\d+)__\.bin$/.exec(k)).filter((m) => m !== null).map((m) => Number(m[1])).sort((a, b) => b - a);
  for (const s of existing) if (s > superchunks.length) steps.push((fs) => fs.delete(superchunkFileName(s)));
  return { steps, commit: 0 };
}

function updatePlan(fs0: Files, cfg: Config, start: number, values: number[]): Plan {
  const next = readRows(fs0, cfg);
  next.splice(start, values.length, ...values);
  const len = next.length;
  const first = Math.floor(start / cfg.chunklen);
  const last = Math.floor((start + values.length - 1) / cfg.chunklen);
  const images = new Map<number, Uint8Array>();
  for (let g = first; g <= last; g++) {
    const chunk = chunkOf(next.slice(g * cfg.chunklen, Math.min(len, (g + 1) * cfg.chunklen)));
    const sum = computeChunkChecksum(cfg.checksumId, chunk, g);
    const image = new Uint8Array(chunk.length + sum.length);
    image.set(chunk);
    image.set(sum, chunk.length);
    images.set(g, image);
  }
  if (first === last) {
    const { superchunk: s, local: i } = locateChunk(first, cfg.S);
    const key = superchunkFileName(s);
    const offsets = liveOffsets(fs0, key, cfg);
    if (images.get(first)!.length > slotCapacities(offsets, fs0.get(key)!.length)[i]!) {
      // §13.5: one chunk that does not fit is relocated; the entry write commits.
      const steps = installSteps(cfg, s, i, () => images.get(first)!);
      return { steps, commit: 1 };
    }
  }
  const steps: Step[] = [];
  const pairs = [...images.keys()].map((g) => [g, locateChunk(g, cfg.S)] as const);
  for (const [g, { superchunk: s, local: i }] of pairs) steps.push((fs) => fs.set(journalChunkFileName(s, i), images.get(g)!));
  const commit = steps.length;
  steps.push((fs) => fs.set(".journal", enc(`{"format": 2, "chunks": [${pairs.map(([, p]) => `[${p.superchunk}, ${p.local}]`).join(", ")}]}\n`)));
  for (const [g, { superchunk: s, local: i }] of pairs) steps.push(...installSteps(cfg, s, i, () => images.get(g)!));
  for (const [, { superchunk: s, local: i }] of pairs) steps.push((fs) => fs.delete(journalChunkFileName(s, i)));
  steps.push((fs) => fs.delete(".journal"));
  return { steps, commit };
}

function compactPlan(fs0: Files, cfg: Config, s: number): Plan {
  const rows = readRows(fs0, cfg);
  const { superchunks } = requiredChunks(rows.length, cfg.chunklen, cfg.S);
  if (s > superchunks.length) return { steps: [], commit: -1 };
  const key = superchunkFileName(s);
  const offsets = liveOffsets(fs0, key, cfg);
  const chunks = offsets.slice(0, superchunks[s - 1]).map((o) => chunkRowsAt(fs0, key, o));
  const bytes = newSuperchunk(cfg, s, chunks);
  return {
    steps: [(fs) => fs.set(`${key}.compact`, bytes), (fs) => { fs.set(key, bytes); fs.delete(`${key}.compact`); }],
    commit: 1,
  };
}

function run(fs: Files, plan: Plan, upTo = plan.steps.length): void {
  plan.steps.slice(0, upTo).forEach((step) => step(fs));
}

// ---- the check ---------------------------------------------------------------------------------

const configArb = fc.record({
  chunklen: fc.integer({ min: 1, max: 4 }),
  S: fc.integer({ min: 1, max: 3 }),
  checksumId: fc.integer({ min: 0, max: 8 }),
  spare: fc.constantFrom(0, 10, 50, 100),
});
const rowsArb = fc.array(fc.nat(255), { minLength: 1, maxLength: 9 });
const opArb = fc.oneof(
  fc.record({ kind: fc.constant("append" as const), rows: rowsArb }),
  fc.record({ kind: fc.constant("trim" as const), keep: fc.nat(1000) }),
  fc.record({ kind: fc.constant("update" as const), at: fc.nat(1000), rows: rowsArb }),
  fc.record({ kind: fc.constant("compact" as const), s: fc.integer({ min: 1, max: 4 }) }),
);
type Op = typeof opArb extends fc.Arbitrary<infer T> ? T : never;

function planFor(fs: Files, cfg: Config, op: Op): { plan: Plan; expected: number[] } {
  const rows = readRows(fs, cfg);
  switch (op.kind) {
    case "append":
      return { plan: appendPlan(fs, cfg, op.rows), expected: [...rows, ...op.rows] };
    case "trim": {
      const keep = op.keep % (rows.length + 1);
      return { plan: trimPlan(fs, cfg, keep), expected: rows.slice(0, keep) };
    }
    case "update": {
      if (rows.length === 0) return { plan: { steps: [], commit: -1 }, expected: rows };
      const start = op.at % rows.length;
      const values = op.rows.slice(0, rows.length - start);
      const expected = rows.slice();
      expected.splice(start, values.length, ...values);
      return { plan: updatePlan(fs, cfg, start, values), expected };
    }
    case "compact":
      return { plan: compactPlan(fs, cfg, op.s), expected: rows };
  }
}

function emptyDataset(): Files {
  return new Map([["meta/shape", enc('{"shape": [0]}\n')]]);
}

describe("spec/v2.md §13 write orders, killed at every step", () => {
  it("a reader sees the old rows before the commit and the new rows after it; reopening changes nothing and appends work", () => {
    fc.assert(
      fc.property(configArb, fc.array(opArb, { minLength: 1, maxLength: 4 }), opArb, rowsArb, (cfg, history, last, more) => {
        const fs = emptyDataset();
        for (const op of history) {
          run(fs, openForWriting(fs, cfg));
          run(fs, planFor(fs, cfg, op).plan);
        }
        run(fs, openForWriting(fs, cfg));
        const before = readRows(fs, cfg);
        const { plan, expected } = planFor(fs, cfg, last);
        for (let k = 0; k <= plan.steps.length; k++) {
          const killed = new Map(fs);
          // Steps replace whole values in the map, so a shallow copy is an independent state.
          const fresh = plan.commit < 0 ? plan : planFor(killed, cfg, last).plan;
          run(killed, fresh, k);
          const want = k > plan.commit ? expected : before;
          expect(readRows(killed, cfg)).toEqual(want);
          run(killed, openForWriting(killed, cfg));
          expect(readRows(killed, cfg)).toEqual(want);
          // The next writer's append is itself killed at every step.
          const follow = appendPlan(killed, cfg, more);
          for (let j = 0; j <= follow.steps.length; j++) {
            const again = new Map(killed);
            run(again, appendPlan(again, cfg, more), j);
            expect(readRows(again, cfg)).toEqual(j > follow.commit ? [...want, ...more] : want);
          }
        }
      }),
      {
        numRuns: 150,
        examples: [
          // An append killed after its header write leaves nchunks above what the length needs and
          // a full image of the old partial chunk; the next append keeps that chunk partial, which
          // is only legal once the reopening writer has reset nchunks (§13.1).
          [{ chunklen: 3, S: 3, checksumId: 1, spare: 0 }, [{ kind: "append", rows: [1, 2, 3, 4] }], { kind: "append", rows: [5, 6, 7] }, [8]],
          // A trim that cuts a superchunk back to a partial last chunk must write the header before
          // the truncated chunk (§13.3).
          [{ chunklen: 2, S: 3, checksumId: 2, spare: 10 }, [{ kind: "append", rows: [1, 2, 3, 4, 5, 6] }], { kind: "trim", keep: 3 }, [9]],
        ],
      },
    );
  });
});
