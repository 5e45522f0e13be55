// Child process of live-append.test.ts: opens the format-2 carray DIR/a for writing, prints
// "READY", then until stdin says "stop" keeps row r equal to r while it appends a few rows at a
// time, each append flushed (the partial last chunk is rewritten through the journal or relocated),
// rewrites runs of rows across chunks with their own values (journaled, installed in place) and
// compacts now and then; then it closes and prints "STOPPED <length>".
import { createInterface } from "node:readline";
import { loadStore } from "./load-store.mjs";

const [dir] = process.argv.slice(2);
const { store, fsAdapters, close } = await loadStore();
const a = await store.openCarray(new fsAdapters.FileSystemStore(dir), "a", { mode: "a" });
let stop = false;
createInterface({ input: process.stdin }).on("line", (line) => {
  if (line === "stop") stop = true;
});
console.log("READY");
for (let step = 0; !stop; step++) {
  const n = a.length;
  if (step % 7 === 3 && n > 40) {
    const start = (step * 13) % (n - 40);
    await a.set({ start, stop: start + 40 }, Int32Array.from({ length: 40 }, (_, i) => start + i));
  } else if (step % 11 === 5) {
    await a.compact();
  } else {
    await a.append(Int32Array.from({ length: 1 + (step % 9) }, (_, i) => n + i));
    await a.flush();
  }
  // Let the event loop read stdin between operations.
  await new Promise((resolve) => setImmediate(resolve));
}
const length = a.length;
await a.close();
console.log(`STOPPED ${length}`);
await close();
process.exit(0);
