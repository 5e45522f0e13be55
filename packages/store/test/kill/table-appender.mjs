// Child process of live-append.test.ts: opens the ctable DIR/t for writing, prints "READY", then
// appends ROWS rows per call (column a = row number, b = 2 × row number, c = −row number) until
// stdin says "stop"; then it closes and prints "STOPPED <length>".
import { createInterface } from "node:readline";
import { loadStore } from "./load-store.mjs";

const ROWS = 37;
const [dir] = process.argv.slice(2);
const { store, fsAdapters, close } = await loadStore();
const t = await store.openCtable(new fsAdapters.FileSystemStore(dir), "t", { mode: "a" });
let stop = false;
createInterface({ input: process.stdin }).on("line", (line) => {
  if (line === "stop") stop = true;
});
console.log("READY");
while (!stop) {
  const first = t.length;
  const a = Float64Array.from({ length: ROWS }, (_, i) => first + i);
  await t.append({ a, b: a.map((x) => 2 * x), c: Int32Array.from(a, (x) => -x) });
  // Let the event loop read stdin between appends.
  await new Promise((resolve) => setImmediate(resolve));
}
const length = t.length;
await t.close();
console.log(`STOPPED ${length}`);
await close();
process.exit(0);
