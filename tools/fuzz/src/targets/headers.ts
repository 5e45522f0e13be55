/**
 * Targets for the two binary headers: the 16-byte blpk file header and the Blosc chunk header
 * with its bstarts table.
 *
 * @example
 * ```ts
 * import { blpkHeaderTarget } from "./headers.js";
 * ```
 * @packageDocumentation
 */
import { blockLayout, readBlpkV1Header, readBstarts, readChunkHeader, splitCount } from "@fmt/header";
import { single, singleBytes } from "../input.js";
import { mutateBytes, tokens } from "../mutate.js";
import type { FuzzTarget } from "../target.js";

const HEADER_TOKENS = [...tokens("blpk", "blpk\u0001"), Uint8Array.of(2, 1), Uint8Array.of(0xff, 0xff, 0xff, 0x7f), Uint8Array.of(0, 0, 0, 0x80)];

/**
 * `readBlpkV1Header` on mutated first bytes of real `.blp` files.
 *
 * @example
 * ```ts
 * blpkHeaderTarget.run(single(bytes));
 * ```
 */
export const blpkHeaderTarget: FuzzTarget = {
  name: "blpk-header",
  description: "readBlpkV1Header on mutated first 32 bytes of real .blp files",
  seeds: (corpus) => corpus.blpkFiles.slice(0, 64).map((f) => single(f.bytes.slice(0, 32))),
  generate: (rng, seeds) => single(mutateBytes(rng, singleBytes(rng.pick(seeds)), { dictionary: HEADER_TOKENS, stack: 4, focus: { start: 0, end: 16 } })),
  run(input) {
    readBlpkV1Header(singleBytes(input), "fuzz.blp");
  },
};

/**
 * `readChunkHeader`, `blockLayout`, `readBstarts` and `splitCount` on mutated real chunks (edits
 * aimed at the 16-byte header and the bstarts table).
 *
 * @example
 * ```ts
 * chunkHeaderTarget.run(single(chunk));
 * ```
 */
export const chunkHeaderTarget: FuzzTarget = {
  name: "chunk-header",
  description: "readChunkHeader + blockLayout + readBstarts + splitCount on mutated real chunk heads",
  seeds: (corpus) =>
    corpus.chunks.filter((_, i) => i % 4 === 0).map((c) => {
      // A chunk's head with cbytes set to the head's length, so the header still parses and the
      // edits reach the bstarts checks instead of stopping at TRUNCATED.
      const head = c.bytes.slice(0, 256);
      if (head.length >= 16) new DataView(head.buffer).setInt32(12, head.length, true);
      return single(head);
    }),
  generate: (rng, seeds) => single(mutateBytes(rng, singleBytes(rng.pick(seeds)), { dictionary: HEADER_TOKENS, stack: 4, focus: { start: 0, end: 48 } })),
  run(input) {
    const bytes = singleBytes(input);
    const header = readChunkHeader(bytes, "fuzz.chunk");
    const layout = blockLayout(header);
    const bstarts = readBstarts(bytes, header, "fuzz.chunk");
    if (layout.nblocks > 0 && bstarts.length > 0) splitCount(header, header.blocksize, false);
  },
};
