// Bundled by pack-check.mjs with esbuild (format esm, platform browser). `browser-modules.js`,
// written next to it, imports every browser-safe entry point of every package, so the bundle
// holds all of them; the bundle is then checked for Node built-ins and run once.
import { MemoryStore } from "@fmt/fs-adapters";
import { createCarray, openCarray } from "@fmt/store";
export { modules } from "./browser-modules.js";

/** Writes an int32 carray into a MemoryStore, reads it back, returns whether it is equal. */
export async function roundTrip() {
  const values = Array.from({ length: 3000 }, (_, i) => (i * 7919) % 1000);
  const store = new MemoryStore();
  const written = await createCarray(store, "", values, { dtype: "<i4", chunklen: 1000, cparams: { cname: "lz4", clevel: 5, shuffle: 1 } });
  await written.close();
  const read = await (await openCarray(store)).read();
  return read.length === values.length && values.every((v, i) => read[i] === v);
}
