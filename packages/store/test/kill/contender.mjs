// Child process of two-writers.test.ts: tries to open the carray DIR/ds for writing. On success
// it prints "GOT", appends ROWS rows when it reads "append" on stdin, closes on "close" and
// prints "CLOSED". On failure it prints "REFUSED <code> <path>". With MODE=r it opens read-only
// and prints "READ <length>".
import { createInterface } from "node:readline";
import { loadStore } from "./load-store.mjs";

const [dir, mode] = process.argv.slice(2);
const { store, fsAdapters, close } = await loadStore();
const fsStore = new fsAdapters.FileSystemStore(dir);
try {
  const a = await store.openCarray(fsStore, "ds", { mode });
  if (mode === "r") {
    console.log(`READ ${a.length}`);
    await close();
    process.exit(0);
  }
  console.log("GOT");
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === "append") {
      await a.append(new Int32Array([7, 8, 9]));
      await a.flush();
      console.log("APPENDED");
    } else if (line === "close") {
      await a.close();
      console.log("CLOSED");
      break;
    }
  }
} catch (err) {
  console.log(`REFUSED ${err?.code} ${err?.path}`);
}
await close();
process.exit(0);
