/**
 * Format-version-2 targets (spec/v2.md): superchunk files built from real v1 chunks, and the v2
 * metadata files. There is no v2 corpus yet, so the seeds are written with the library's own
 * v2 writers from real chunks and typical values, then mutated.
 *
 * @example
 * ```ts
 * import { v2Targets } from "./v2.js";
 * ```
 * @packageDocumentation
 */
import { buildSuperchunk, readSuperchunkHeader, readSuperchunkMetadataText, sniffBlpkVersion, verifySuperchunk } from "@fmt/header";
import {
  createCarrayStorageV2, parseAppendV2, parseDtype, parseJournalV2, parseShapeV2, parseStorageV2, parseSuperchunkMeta,
  serializeAppendV2, serializeJournalV2, serializeShapeV2, serializeStorageV2, serializeSuperchunkMeta,
} from "@fmt/meta";
import { single, singleBytes } from "../input.js";
import { mutateJson } from "../json-mutate.js";
import { mutateBytes, tokens } from "../mutate.js";
import type { Corpus, FuzzTarget } from "../target.js";

function superchunkSeeds(corpus: Corpus): Uint8Array[] {
  // Chunks of one data directory, in index order, make one superchunk (all but the last full).
  const byDir = new Map<string, { index: number; bytes: Uint8Array }[]>();
  for (const chunk of corpus.chunks) {
    const m = /^(.*)__(\d+)\.blp$/.exec(chunk.path);
    if (m === null || chunk.bytes.length > 16 << 10) continue;
    const list = byDir.get(m[1]!) ?? [];
    list.push({ index: Number(m[2]), bytes: chunk.bytes });
    byDir.set(m[1]!, list);
  }
  const seeds: Uint8Array[] = [];
  let variant = 0;
  for (const list of byDir.values()) {
    const chunks = list.sort((a, b) => a.index - b.index).slice(0, 3).map((c) => c.bytes);
    const nbytes = new DataView(chunks[0]!.buffer, chunks[0]!.byteOffset).getInt32(4, true);
    const typesize = chunks[0]![3]!;
    const offsets = variant % 3 !== 2;
    try {
      seeds.push(buildSuperchunk({
        chunks, checksumId: variant % 9, typesize, chunkSize: nbytes, offsets,
        metadata: variant % 2 === 0 ? serializeSuperchunkMeta({ capacity: chunks.length + (offsets ? variant % 3 : 0), firstChunk: 0 }) : undefined,
        capacity: offsets ? chunks.length + (variant % 3) : undefined,
        sparePercent: offsets ? (variant % 4) * 10 : 0,
      }));
      variant++;
    } catch {
      // A directory whose chunks do not make a valid superchunk (e.g. a middle chunk not full) gives no seed.
    }
    if (seeds.length >= 40) break;
  }
  return seeds;
}

/**
 * `sniffBlpkVersion`, `readSuperchunkHeader`, `readSuperchunkMetadataText` and
 * `verifySuperchunk` (offsets, slots, per-chunk checksums) on mutated superchunk files.
 *
 * @example
 * ```ts
 * v2SuperchunkTarget.run(single(file));
 * ```
 */
export const v2SuperchunkTarget: FuzzTarget = {
  name: "v2-superchunk",
  description: "sniffBlpkVersion + readSuperchunkHeader + metadata text + verifySuperchunk on mutated v2 superchunks of real chunks",
  seeds: (corpus) => superchunkSeeds(corpus).map(single),
  generate(rng, seeds) {
    const seed = singleBytes(rng.pick(seeds));
    // Header (32 bytes), metadata and offsets table get half of the edits.
    const focus = rng.chance(0.5) ? { start: 0, end: Math.min(seed.length, 160) } : { start: 0, end: seed.length };
    return single(mutateBytes(rng, seed, { dictionary: [...tokens("blpk", " ", "{", "}"), Uint8Array.of(2), Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f)], stack: 4, focus }));
  },
  run(input) {
    const bytes = singleBytes(input);
    if (sniffBlpkVersion(bytes, "fuzz.bin") !== 2) return;
    const header = readSuperchunkHeader(bytes, "fuzz.bin");
    if (header.hasMetadata) parseSuperchunkMeta(readSuperchunkMetadataText(bytes, header, "fuzz.bin"), "fuzz.bin");
    verifySuperchunk(bytes, { path: "fuzz.bin" });
  },
};

const V2_PARSERS: readonly ((text: string) => unknown)[] = [
  (t) => parseStorageV2(t, "meta/storage"),
  (t) => parseShapeV2(t, "meta/shape"),
  (t) => parseSuperchunkMeta(t, "superchunk metadata"),
  (t) => parseJournalV2(t, ".journal"),
  (t) => parseAppendV2(t, ".append"),
];

function v2MetaSeeds(): Uint8Array[] {
  const storage = createCarrayStorageV2({ dtype: parseDtype("<f8"), cparams: { clevel: 5, shuffle: 1, cname: "lz4", quantize: 0 }, chunklen: 1024, expectedlen: 100000 });
  const texts = [serializeStorageV2(storage), serializeShapeV2([1000, 3]), serializeSuperchunkMeta({ capacity: 8, firstChunk: 16 }), serializeJournalV2([[1, 1], [2, 3]]), serializeAppendV2(12345)];
  const encoder = new TextEncoder();
  // The first byte picks the parser, so one target covers every v2 metadata file.
  return texts.map((text, kind) => Uint8Array.from([kind, ...encoder.encode(text)]));
}

/**
 * The v2 metadata parsers (`meta/storage`, `meta/shape`, superchunk metadata, `.journal`,
 * `.append`); the input's first byte picks the parser.
 *
 * @example
 * ```ts
 * v2MetaTarget.run(single(Uint8Array.of(1, ...new TextEncoder().encode("[3]"))));
 * ```
 */
export const v2MetaTarget: FuzzTarget = {
  name: "v2-meta",
  description: "parseStorageV2 / parseShapeV2 / parseSuperchunkMeta / parseJournalV2 / parseAppendV2 (first byte picks) with JSON-structure and byte edits",
  seeds: () => v2MetaSeeds().map(single),
  generate(rng, seeds) {
    const seed = singleBytes(rng.pick(seeds));
    const body = seed.subarray(1);
    const edited = (rng.chance(0.6) ? mutateJson(rng, body) : undefined) ?? mutateBytes(rng, body, { dictionary: tokens("{", "}", "[", "]", "\"", ",", "-1", "1e999", "null", "2"), stack: 4, maxLength: 1 << 16 });
    return single(Uint8Array.from([seed[0]!, ...edited]));
  },
  run(input) {
    const bytes = singleBytes(input);
    if (bytes.length === 0) return;
    V2_PARSERS[bytes[0]! % V2_PARSERS.length]!(new TextDecoder().decode(bytes.subarray(1)));
  },
};

/**
 * Every v2 target.
 *
 * @example
 * ```ts
 * v2Targets.map((t) => t.name); // ["v2-superchunk", "v2-meta"]
 * ```
 */
export const v2Targets: FuzzTarget[] = [v2SuperchunkTarget, v2MetaTarget];
