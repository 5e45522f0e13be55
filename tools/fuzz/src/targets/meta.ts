/**
 * Targets for the metadata files (meta/sizes, meta/storage, __attrs__, __rootdirs__) and dtype
 * strings: mutated real files through the parsers of `@fmt/meta`.
 *
 * @example
 * ```ts
 * import { metaTargets } from "./meta.js";
 * ```
 * @packageDocumentation
 */
import { atomSize, decodeMetadata, dtypeFromNumpyStr, parseAttrs, parseDtype, parseRootdirs, parseSizes, parseStorage } from "@fmt/meta";
import { single, singleBytes } from "../input.js";
import { mutateJson } from "../json-mutate.js";
import { mutateBytes, tokens } from "../mutate.js";
import type { Corpus, CorpusFile, FuzzTarget } from "../target.js";

// JSON structure, Python's non-standard literals, numbers at the edges of exactness, escapes that
// are not valid text, deep nesting, and the keys the bcolz schemas look for.
const JSON_TOKENS = tokens(
  "{", "}", "[", "]", "\"", ",", ":", " ", "\\", "null", "true", "false", "NaN", "Infinity", "-Infinity",
  "1e999", "-0", "0.0", "9007199254740993", "18446744073709551616", "-1", "2147483648", "1e-400",
  "\"\\u0000\"", "\"\\ud800\"", "\\uDFFF", "\u00e9", "\uffff", "[[[[[[[[[[[[[[[[", "{\"a\":{\"a\":{\"a\":",
  "\"shape\": [", "\"nrows\": ", "\"dtype\": \"", "\"cparams\": {", "\"clevel\": ", "\"shuffle\": ", "\"cname\": \"",
  "\"chunklen\": ", "\"expectedlen\": ", "\"dflt\": ", "\"names\": [", "\"quantize\": ", "\"..\"", "\"a/b\"", "\"\"",
);

const DTYPE_TOKENS = tokens("<", ">", "|", "=", "i", "u", "f", "c", "b", "S", "U", "V", "M", "m", "O", "8", "4", "2", "1", "16", "0",
  "99999999999", "[ns]", "[s]", "[D]", "[", "]", "(2,3)", "int", "uint", "float", "complex", "datetime64", "timedelta64", "bool", "64", "128");

const DTYPE_SEEDS = ["<i4", ">i8", "|u1", "<f8", ">f4", "<f2", "|b1", "|S7", "<U3", ">U2", "<M8[ns]", "<m8[s]", "|V16", "int32", "uint64", "float16",
  "bool", "datetime64[ns]", "timedelta64[s]", "complex128", "object", "|S300"];

const decoder = new TextDecoder();

function metaTarget(name: string, pick: (c: Corpus) => CorpusFile[], parse: (text: string) => unknown): FuzzTarget {
  return {
    name,
    description: `decodeMetadata + parser of ${name.slice(5)} on real files with JSON-structure and byte edits`,
    seeds: (corpus) => pick(corpus).slice(0, 64).map((f) => single(f.bytes)),
    generate(rng, seeds) {
      const seed = singleBytes(rng.pick(seeds));
      const structured = rng.chance(0.6) ? mutateJson(rng, seed) : undefined;
      return single(structured ?? mutateBytes(rng, seed, { dictionary: JSON_TOKENS, stack: 6, maxLength: 1 << 16 }));
    },
    run(input) {
      parse(decodeMetadata(singleBytes(input), name));
    },
  };
}

/**
 * `decodeMetadata` + `parseSizes`/`parseStorage`/`parseAttrs`/`parseRootdirs`, one target each.
 *
 * @example
 * ```ts
 * metaTargets.map((t) => t.name); // ["meta-sizes", "meta-storage", "meta-attrs", "meta-rootdirs"]
 * ```
 */
export const metaTargets: FuzzTarget[] = [
  metaTarget("meta-sizes", (c) => c.metaFiles.sizes, (t) => parseSizes(t, "meta/sizes")),
  metaTarget("meta-storage", (c) => c.metaFiles.storage, (t) => parseStorage(t, "meta/storage")),
  metaTarget("meta-attrs", (c) => c.metaFiles.attrs, (t) => parseAttrs(t, "__attrs__")),
  metaTarget("meta-rootdirs", (c) => c.metaFiles.rootdirs, (t) => parseRootdirs(t, "__rootdirs__")),
];

/**
 * `parseDtype`, `dtypeFromNumpyStr` and `atomSize` on mutated dtype strings (numpy codes, names,
 * units).
 *
 * @example
 * ```ts
 * dtypeTarget.run(single(new TextEncoder().encode("<M8[ns]")));
 * ```
 */
export const dtypeTarget: FuzzTarget = {
  name: "dtype",
  description: "parseDtype + dtypeFromNumpyStr + atomSize on mutated dtype strings",
  seeds: () => tokens(...DTYPE_SEEDS).map(single),
  generate: (rng, seeds) => single(mutateBytes(rng, singleBytes(rng.pick(seeds)), { dictionary: DTYPE_TOKENS, stack: 4, maxLength: 128 })),
  run(input) {
    const text = decoder.decode(singleBytes(input));
    const dtype = parseDtype(text, "meta/storage", "dtype");
    atomSize(dtype, [1, 3, 2]);
    if (/^[<>|]/.test(text)) dtypeFromNumpyStr(text, "meta/storage", "dtype");
  },
};
