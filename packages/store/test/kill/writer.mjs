// Child process of write-kill.test.ts and write-kill-v2.test.ts: opens (or creates) the carray
// `ds` in DIR and runs random operations forever. Before each operation it appends one JSON line
// to LOG and fsyncs it: the operation, the array's content after it, and the length that will be
// on disk (committed) after it. The parent SIGKILLs it at a random moment.
//
// Arguments: DIR SEED LOG [FOCUS] [FORMAT]. FORMAT is 1 (default) or 2, the format version of a
// dataset this child creates (an existing one is opened as it is).
// FOCUS picks the mix:
// - mixed (default), append, set, resize, trim: append / set / resize / trim / flush / reopen,
//   the focused operation getting most of the draws (chunklen 5);
// - format-2 paths (chunklen 64, superchunks of 3 chunks, so that chunks compress and change
//   size): grow (small appends, each flushed: the partial last chunk is rewritten in place
//   through the journal, or relocated when it outgrows its slot), setmulti (sets spanning several
//   committed chunks: journal), relocate (one-chunk sets that alternately shrink a chunk to a
//   constant, in place, and grow it with random values, which does not fit a slot without spare
//   room: relocation), compact (relocations and compactions), shrink (resize and trim down,
//   deleting superchunk files, with appends to grow again).
import { fsyncedLog, seededRandom } from "./child-kit.mjs";
import { loadStore } from "./load-store.mjs";

const [dir, seedText, logPath, focus = "mixed", formatText = "1"] = process.argv.slice(2);
const rand = seededRandom(seedText);
const format = Number(formatText);
const V2_FOCUS = ["grow", "setmulti", "relocate", "compact", "shrink"];
const v2Focus = V2_FOCUS.includes(focus);
if (v2Focus && format !== 2) throw new Error(`focus ${focus} needs format 2`);

const { store, fsAdapters } = await loadStore();
const fs = new fsAdapters.FileSystemStore(dir);
// The log stays open until the parent kills this process.
const { record } = fsyncedLog(logPath);

// A fresh dataset's settings follow the seed: spare room 0 (every growth relocates), some, or
// 100 % (a chunk always fits its slot, so every rewrite goes through the journal); the checksum
// varies too (its size decides what fits).
function createOptions() {
  if (format !== 2) return { dtype: "<i4", chunklen: 5 };
  const pick = (list) => list[Number(seedText) % list.length];
  const spare = focus === "relocate" || focus === "compact" ? 0 : pick([0, 30, 100, 10]);
  const checksum = pick(["adler32", "crc32", "sha256", "none", "md5"]);
  return { dtype: "<i4", chunklen: v2Focus ? 64 : 5, formatVersion: 2, superchunksize: 3, spare, checksum };
}

let array;
try {
  array = await store.openCarray(fs, "ds", { mode: "a", breakLock: true });
} catch {
  array = await store.createCarray(fs, "ds", undefined, { ...createOptions(), mode: "w", breakLock: true });
}
const chunklen = array.chunklen;
let content = Array.from(await array.read());
let committed = content.length;
record({ op: "open", state: content, committed });
process.stdout.write("ready\n");

const randomValue = () => rand(2000) - 1000;
const randomValues = (n) => Array.from({ length: n }, randomValue);

async function append(values, flush = false) {
  record({ op: `append ${values.length}${flush ? "+flush" : ""}`, state: [...content, ...values], committed: flush ? content.length + values.length : committed });
  await array.append(values);
  content.push(...values);
  if (flush) {
    await array.flush();
    committed = content.length;
  }
}

async function setSlice(start, step, stop, value) {
  const next = content.slice();
  for (let i = start; i < stop; i += step) next[i] = value;
  record({ op: `set ${start}:${stop}:${step}=${value}`, state: next, committed });
  await array.set({ start, stop, step }, value);
  content = next;
}

async function setRows(rows, values) {
  const next = content.slice();
  rows.forEach((r, i) => (next[r] = values[i]));
  record({ op: `set [${rows}]`, state: next, committed });
  await array.set(rows, values);
  content = next;
}

async function resize(target) {
  const next = content.slice(0, target);
  while (next.length < target) next.push(0);
  record({ op: `resize ${target}`, state: next, committed: target });
  await array.resize(target);
  content = next;
  committed = target;
}

async function trim(k) {
  const n = content.length;
  record({ op: `trim ${k}`, state: content.slice(0, n - k), committed: n - k });
  await array.trim(k);
  content = content.slice(0, n - k);
  committed = content.length;
}

async function flush() {
  record({ op: "flush", state: content, committed: content.length });
  await array.flush();
  committed = content.length;
}

async function reopen() {
  record({ op: "reopen", state: content, committed: content.length });
  await array.close();
  array = await store.openCarray(fs, "ds", { mode: "a" });
  committed = content.length;
}

async function compact() {
  // compact() flushes first, then rewrites the files with dead space: the values do not change.
  record({ op: "compact", state: content, committed: content.length });
  await array.compact();
  committed = content.length;
}

// ---- the format-1 mix (both formats run it) -------------------------------------------------

// Choices of the mix below that belong to each focus; the focused ones get 4 draws in 5.
const FOCUS = { append: [0], set: [3, 5], resize: [6], trim: [7] };
function choose() {
  const focused = FOCUS[focus];
  // set and trim need rows: an empty array grows first.
  if (focused !== undefined && content.length < 20 && (focus === "set" || focus === "trim")) return 0;
  if (focused !== undefined && rand(5) < 4) return focused[rand(focused.length)];
  return rand(10);
}

async function mixStep() {
  const n = content.length;
  const choice = choose();
  if (choice <= 2) await append(randomValues(1 + rand(17)));
  else if (choice <= 4 && n > 0) await setSlice(rand(n), 1 + rand(4), n, randomValue());
  else if (choice === 5 && n > 0) {
    const rows = Array.from({ length: 1 + rand(6) }, () => rand(n));
    await setRows(rows, rows.map(randomValue));
  } else if (choice === 6) await resize(rand(60));
  else if (choice === 7 && n > 0) await trim(rand(Math.min(n, 12) + 1));
  else if (choice === 8) await flush();
  else await reopen();
}

// ---- the format-2 mixes (chunklen 64) -------------------------------------------------------

/** A full chunk of committed rows, or -1. */
function committedFullChunk() {
  const full = Math.floor(committed / chunklen);
  return full === 0 ? -1 : rand(full);
}

async function v2Step() {
  const n = content.length;
  const r = rand(20);
  // Every mix starts by growing to a few chunks, and stays below about 12 chunks (4 files).
  if (n < 3 * chunklen) return append(randomValues(chunklen + rand(2 * chunklen)), true);
  if (n > 12 * chunklen && focus !== "shrink") return resize(4 * chunklen + rand(4 * chunklen));
  if (r === 0) return reopen();
  switch (focus) {
    case "grow": {
      // The partial last chunk grows by a few rows, flushed: rewritten through the journal
      // when it fits its slot, else relocated; sometimes it fills and a new one starts.
      if (r < 17) return append(randomValues(1 + rand(r < 12 ? 6 : 40)), true);
      if (r < 19) return setSlice(n - 1 - rand(Math.min(n, 3 * chunklen)), 1, n, randomValue());
      return trim(1 + rand(2 * chunklen));
    }
    case "setmulti": {
      // Slices across two or more committed chunks: one journal, all or nothing.
      if (r < 15) {
        const start = rand(Math.max(1, committed - chunklen - 1));
        const stop = Math.min(n, start + chunklen + 1 + rand(4 * chunklen));
        // A constant makes the chunks smaller (installed in place), random values larger
        // (installed by relocation when the slot has no room).
        if (rand(2) === 0) return setSlice(start, 1 + rand(3), stop, randomValue());
        const rows = [];
        for (let i = start; i < stop; i += 1 + rand(3)) rows.push(i);
        return setRows(rows, rows.map(randomValue));
      }
      if (r < 18) return append(randomValues(1 + rand(2 * chunklen)), r === 17);
      return flush();
    }
    case "relocate":
    case "compact": {
      if (focus === "compact" && r < 8) return compact();
      const k = committedFullChunk();
      if (k >= 0 && r < 16) {
        const first = k * chunklen;
        // A constant chunk compresses to a few bytes (in place, journaled: the slot keeps its
        // size); random values over the whole int32 range do not compress, so they outgrow a
        // slot without spare room that a smaller chunk left (relocation).
        if (rand(3) === 0) return setSlice(first, 1, first + chunklen, randomValue());
        const rows = Array.from({ length: 1 + rand(chunklen) }, () => first + rand(chunklen));
        const wide = rand(2) === 0;
        return setRows(rows, rows.map(() => (wide ? rand(2_000_000_000) - 1_000_000_000 : randomValue())));
      }
      // New chunks of one value get small slots, which the sets above outgrow.
      return append(new Array(chunklen + rand(chunklen)).fill(randomValue()), true);
    }
    case "shrink": {
      // Down by a few rows or across chunk and superchunk boundaries; then grow again.
      if (r < 8) return resize(Math.max(0, n - 1 - rand(r < 4 ? 10 : 4 * chunklen)));
      if (r < 12) return trim(1 + rand(Math.min(n, 2 * chunklen)));
      return append(randomValues(1 + rand(3 * chunklen)), r < 17);
    }
    default:
      throw new Error(`unknown focus ${focus}`);
  }
}

for (;;) {
  if (v2Focus) await v2Step();
  else await mixStep();
}
