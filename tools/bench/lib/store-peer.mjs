// The JavaScript peer of the store benchmark: zarrita.js (npm `zarrita`, with the file-system
// store of `@zarrita/storage`, as its users read local zarr data) reading the zarr v2 copy of the
// carray's values that python3-zarr wrote (Blosc lz4, clevel 5, shuffle, chunks of 65,536). Its
// Blosc is numcodecs' (c-blosc compiled to WebAssembly).
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { timed } from "./store-ours.mjs";

/**
 * `{ loaded: true, readall(runs), gets(indices)(runs) }`, each resolving to `{ median, times, result }`
 * (result: a Float64Array, an array of numbers), or `{ loaded: false, error }`.
 * @param {string} zarrDir the zarr v2 array's directory
 */
export async function zarritaOperations(zarrDir) {
  let zarr;
  let FsStore;
  let version = "?";
  try {
    zarr = await import("zarrita");
    FsStore = (await import("@zarrita/storage/fs")).default;
  } catch (error) {
    return { loaded: false, error: `zarrita not installed (${String(error?.message ?? error).split("\n")[0]})` };
  }
  try {
    version = JSON.parse(readFileSync(new URL("../node_modules/zarrita/package.json", import.meta.url), "utf8")).version;
  } catch {
    // the version is only printed
  }
  const open = () => zarr.open.v2(zarr.root(new FsStore(zarrDir)), { kind: "array" });
  return {
    loaded: true,
    version,
    readall: (runs) => timed(async () => (await zarr.get(await open())).data, runs),
    gets: (indices) => async (runs) => {
      const array = await open();
      return timed(async () => {
        const out = new Array(indices.length);
        for (let i = 0; i < indices.length; i++) out[i] = await zarr.get(array, [indices[i]]);
        return out;
      }, runs);
    },
  };
}

export const zarrDirOf = (root) => join(root, "carray.zarr");
