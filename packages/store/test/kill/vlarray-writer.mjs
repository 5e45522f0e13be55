// Child process of write-kill-v2.test.ts: opens (or creates) the utf8 vlarray `vl` in DIR
// (spec/v2.md §12: carrays offsets/ and values/, format 2) and appends a few strings at a time
// forever, with an occasional reopen. Before each append it logs the whole list of elements as it
// will be after it, fsynced; an append is all or nothing (values/ first, then offsets/, whose
// meta/shape is the commit), so after a SIGKILL the vlarray reads as the last line's list or the
// one before.
import { fsyncedLog, seededRandom } from "./child-kit.mjs";
import { loadStore } from "./load-store.mjs";

const [dir, seedText, logPath] = process.argv.slice(2);
const rand = seededRandom(seedText);

const { store, fsAdapters } = await loadStore();
const fs = new fsAdapters.FileSystemStore(dir);
// The log stays open until the parent kills this process.
const { record } = fsyncedLog(logPath);

let array;
try {
  array = await store.openVLArray(fs, "vl", { mode: "a", breakLock: true });
} catch {
  const spare = [0, 25, 100][Number(seedText) % 3];
  array = await store.createVLArray(fs, "vl", undefined, { vtype: "utf8", chunklen: 16, offsetsChunklen: 8, superchunksize: 2, spare, mode: "w", breakLock: true });
}
let elements = [...(await array.read())];
record({ op: "open", state: elements });
process.stdout.write("ready\n");

const ALPHABET = "abcdé€𝄞xyz";
const word = () => Array.from({ length: rand(12) }, () => [...ALPHABET][rand(10)]).join("");

for (;;) {
  if (rand(15) === 0) {
    record({ op: "reopen", state: elements });
    await array.close();
    array = await store.openVLArray(fs, "vl", { mode: "a" });
    continue;
  }
  const added = Array.from({ length: 1 + rand(5) }, word);
  const next = [...elements, ...added];
  record({ op: `append ${added.length}`, state: next });
  await array.append(added);
  elements = next;
}
