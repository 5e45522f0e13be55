// Child process of write-kill.test.ts: opens (or creates) the carray `ds` in DIR and runs random
// append / set / resize / trim / flush / reopen operations forever. Before each operation it
// appends one JSON line to LOG and fsyncs it: the operation, the array's content after it, and
// the length that will be on disk (committed) after it. The parent SIGKILLs it at a random moment.
// FOCUS (optional: append, set, resize or trim) makes that operation most of the work, so the
// kills land inside it; without it the mix is even.
import { closeSync } from "node:fs";
import { fsyncedLog, seededRandom } from "./child-kit.mjs";
import { loadStore } from "./load-store.mjs";

const [dir, seedText, logPath, focus = "mixed"] = process.argv.slice(2);
const rand = seededRandom(seedText);

const { store, fsAdapters } = await loadStore();
const fs = new fsAdapters.FileSystemStore(dir);
const { fd: log, record } = fsyncedLog(logPath);

let array;
try {
  array = await store.openCarray(fs, "ds", { mode: "a", breakLock: true });
} catch {
  array = await store.createCarray(fs, "ds", undefined, { dtype: "<i4", chunklen: 5, mode: "w", breakLock: true });
}
let content = Array.from(await array.read());
let committed = content.length;
record({ op: "open", state: content, committed });
process.stdout.write("ready\n");

// Choices of the mix below that belong to each focus; the focused ones get 4 draws in 5.
const FOCUS = { append: [0], set: [3, 5], resize: [6], trim: [7] };
function choose() {
  const focused = FOCUS[focus];
  // set and trim need rows: an empty array grows first.
  if (focused !== undefined && content.length < 20 && (focus === "set" || focus === "trim")) return 0;
  if (focused !== undefined && rand(5) < 4) return focused[rand(focused.length)];
  return rand(10);
}

for (;;) {
  const n = content.length;
  const choice = choose();
  if (choice <= 2) {
    const values = Array.from({ length: 1 + rand(17) }, () => rand(2000) - 1000);
    record({ op: `append ${values.length}`, state: [...content, ...values], committed });
    await array.append(values);
    content.push(...values);
  } else if (choice <= 4 && n > 0) {
    const start = rand(n);
    const step = 1 + rand(4);
    const value = rand(2000) - 1000;
    const next = content.slice();
    for (let i = start; i < n; i += step) next[i] = value;
    record({ op: `set ${start}::${step}=${value}`, state: next, committed });
    await array.set({ start, step }, value);
    content = next;
  } else if (choice === 5 && n > 0) {
    const rows = Array.from({ length: 1 + rand(6) }, () => rand(n));
    const values = rows.map(() => rand(2000) - 1000);
    const next = content.slice();
    rows.forEach((r, i) => (next[r] = values[i]));
    record({ op: `set [${rows}]`, state: next, committed });
    await array.set(rows, values);
    content = next;
  } else if (choice === 6) {
    const target = rand(60);
    const next = content.slice(0, target);
    while (next.length < target) next.push(0);
    record({ op: `resize ${target}`, state: next, committed: target });
    await array.resize(target);
    content = next;
    committed = target;
  } else if (choice === 7 && n > 0) {
    const k = rand(Math.min(n, 12) + 1);
    record({ op: `trim ${k}`, state: content.slice(0, n - k), committed: n - k });
    await array.trim(k);
    content = content.slice(0, n - k);
    committed = content.length;
  } else if (choice === 8) {
    record({ op: "flush", state: content, committed: content.length });
    await array.flush();
    committed = content.length;
  } else {
    record({ op: "reopen", state: content, committed: content.length });
    await array.close();
    array = await store.openCarray(fs, "ds", { mode: "a" });
    committed = content.length;
  }
}
closeSync(log);
