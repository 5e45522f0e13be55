/**
 * One target per Blosc codec: mutated real chunks of that codec through `decompress` (and
 * sometimes `decompressRange`), alternating the WebAssembly and TypeScript decoders.
 *
 * @example
 * ```ts
 * import { codecTargets } from "./codecs.js";
 * codecTargets.map((t) => t.name); // ["codec-blosclz", "codec-lz4", …]
 * ```
 * @packageDocumentation
 */
import { decompress, decompressRange, initBlosc, setDecodeBackend } from "@fmt/blosc";
import { single, singleBytes } from "../input.js";
import { mutateBytes, tokens } from "../mutate.js";
import type { CorpusChunk, FuzzTarget } from "../target.js";

// Output allowed per decode: far above any corpus chunk (the largest is 320 KB), far below what
// a worker's memory limit holds, so a lying header is refused rather than allocated.
const MAX_DECODED_BYTES = 8 << 20;
// Seeds above this size make every mutation copy a lot of bytes for little gain.
const MAX_SEED_BYTES = 64 << 10;

const STREAM_TOKENS: { readonly [K in CorpusChunk["codec"]]: Uint8Array[] } = {
  blosclz: [Uint8Array.of(0xff, 0xff, 0xff), Uint8Array.of(0xe0, 0xff, 0xff), Uint8Array.of(0x1f)],
  lz4: [Uint8Array.of(0xff, 0xff, 0xff), Uint8Array.of(0xf0), Uint8Array.of(0x0f, 0, 0), Uint8Array.of(0, 0)],
  lz4hc: [Uint8Array.of(0xff, 0xff, 0xff), Uint8Array.of(0xf0), Uint8Array.of(0x0f, 0, 0), Uint8Array.of(0, 0)],
  snappy: [Uint8Array.of(0xff, 0xff, 0xff, 0x7f), Uint8Array.of(0xfc, 0xff, 0xff, 0xff, 0xff), Uint8Array.of(0x02, 0, 0), Uint8Array.of(0x03)],
  zlib: [Uint8Array.of(0x78, 0x9c), Uint8Array.of(0x78, 0x01), Uint8Array.of(0x03, 0x00), Uint8Array.of(0xff, 0xff, 0, 0)],
  zstd: [Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd), Uint8Array.of(0x60), Uint8Array.of(0x01, 0, 0), Uint8Array.of(0x03, 0, 0), ...tokens("\u00ff\u00ff")],
};

let wasmReady = false;

function codecTarget(codec: CorpusChunk["codec"]): FuzzTarget {
  const formatCode = { blosclz: 0, lz4: 1, lz4hc: 1, snappy: 2, zlib: 3, zstd: 4 }[codec];
  return {
    name: `codec-${codec}`,
    description: `decompress/decompressRange of mutated real ${codec} chunks, WebAssembly and TypeScript decoders`,
    timeoutMs: 2000,
    async init() {
      wasmReady = await initBlosc();
    },
    seeds(corpus) {
      const own = corpus.chunks.filter((c) => c.codec === codec).sort((a, b) => a.bytes.length - b.bytes.length);
      const small = own.filter((c) => c.bytes.length <= MAX_SEED_BYTES);
      const picked = (small.length > 0 ? small : own.slice(0, 1)).slice(0, 48);
      const regressions = corpus.regressionChunks.filter((c) => c.bytes.length > 2 && ((c.bytes[2]! >> 5) & 7) === formatCode);
      return [...picked, ...regressions].map((c) => single(c.bytes));
    },
    generate(rng, seeds) {
      const seed = singleBytes(rng.pick(seeds));
      // Most edits go to the compressed streams (the header has its own target).
      const focus = rng.chance(0.8) ? { start: 16, end: seed.length } : { start: 0, end: 16 };
      return single(mutateBytes(rng, seed, { dictionary: STREAM_TOKENS[codec], stack: 6, focus }));
    },
    run(input) {
      const bytes = singleBytes(input);
      // The backend is chosen from the input so a reproducer replays on the same decoder.
      const useJs = !wasmReady || bytes.length % 2 === 0;
      setDecodeBackend(useJs ? "js" : "wasm");
      if (bytes.length % 3 === 0 && bytes.length > 16) {
        const nbytes = bytes[4]! | (bytes[5]! << 8);
        decompressRange(bytes, nbytes >> 2, nbytes >> 1, { path: "fuzz.chunk", maxBytes: MAX_DECODED_BYTES });
      } else {
        decompress(bytes, { path: "fuzz.chunk", maxBytes: MAX_DECODED_BYTES });
      }
    },
  };
}

/**
 * The codec targets, one per codec name bcolz writes.
 *
 * @example
 * ```ts
 * const zstd = codecTargets.find((t) => t.name === "codec-zstd");
 * ```
 */
export const codecTargets: FuzzTarget[] = (["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"] as const).map(codecTarget);
