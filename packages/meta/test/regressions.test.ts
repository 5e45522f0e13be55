// Replays every saved failing input of conformance/corpus/regressions/meta/. File name prefixes
// say what a file is: storage-*, sizes-*, attrs-*, rootdirs-* hold one metadata file that must
// parse and serialize back byte for byte; json-* hold Python-dialect JSON that must round-trip.
import { describe, expect, it } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  createStorage,
  parseAttrs,
  parsePythonJson,
  parseRootdirs,
  parseSizes,
  parseStorage,
  serializeAttrs,
  serializeRootdirs,
  serializeSizes,
  serializeStorage,
  stringifyPythonJson,
} from "../src/index.js";

const DIR = fileURLToPath(new URL("../../../conformance/corpus/regressions/meta/", import.meta.url));
const files = readdirSync(DIR).sort();

describe("saved regressions", () => {
  it("has files to replay", () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)("%s", (name) => {
    const text = readFileSync(join(DIR, name), "utf8");
    if (name.startsWith("storage-")) {
      const st = parseStorage(text, name);
      expect(serializeStorage(st)).toBe(text);
      const fresh = createStorage({ dtype: st.dtype, cparams: st.cparams, chunklen: st.chunklen, expectedlen: st.expectedlen, dflt: st.dflt });
      expect(serializeStorage(fresh)).toBe(text);
    } else if (name.startsWith("sizes-")) {
      expect(serializeSizes(parseSizes(text, name))).toBe(text);
    } else if (name.startsWith("attrs-")) {
      expect(serializeAttrs(parseAttrs(text, name))).toBe(text);
    } else if (name.startsWith("rootdirs-")) {
      expect(serializeRootdirs(parseRootdirs(text, name))).toBe(text);
    } else if (name.startsWith("json-")) {
      expect(stringifyPythonJson(parsePythonJson(text, name))).toBe(text.replace(/\n$/, ""));
    } else {
      throw new Error(`unknown regression file kind: ${name}`);
    }
  });
});
