// Decodes every ```hex block of spec/v2.md and checks the fields the text around it states. The
// expected values below were read off the spec's field tables (derived by hand from the layout),
// not produced by the code under test.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { FormatError } from "@fmt/errors";
import {
  buildSuperchunk, checkRequiredChunkSize, chunkSlotSpan, offsetsEntrySpan, readBlpkV1Header, readOffsets, readSuperchunkChunk, readSuperchunkHeader,
  readSuperchunkMetadataText, sniffBlpkVersion, slotCapacities, spareRoom, walkChunkOffsets, SUPERCHUNK_HEADER_SPAN,
} from "../src/index.js";

const SPEC = fileURLToPath(new URL("../../../spec/v2.md", import.meta.url));

interface HexExample {
  label: string;
  bytes: Uint8Array;
}

/**
 * Every fenced block whose info string is `hex <label>`. A line is an optional `oooo:` position
 * (checked against the bytes before it), then two-digit hex bytes, then a free comment.
 */
function hexExamples(markdown: string): HexExample[] {
  const out: HexExample[] = [];
  const fence = /^```hex(?: +(\S+))?\n([\s\S]*?)^```$/gm;
  for (const m of markdown.matchAll(fence)) {
    const label = m[1];
    if (label === undefined) throw new Error("a ```hex block without a label");
    const bytes: number[] = [];
    for (const line of m[2]!.split("\n")) {
      const tokens = line.trim().split(/\s+/).filter((t) => t !== "");
      if (tokens.length === 0) continue;
      if (/^[0-9A-Fa-f]{4}:$/.test(tokens[0]!)) {
        const at = parseInt(tokens.shift()!.slice(0, 4), 16);
        if (at !== bytes.length) throw new Error(`${label}: line says position ${at}, bytes so far ${bytes.length}`);
      }
      for (const t of tokens) {
        if (!/^[0-9A-Fa-f]{2}$/.test(t)) break;
        bytes.push(parseInt(t, 16));
      }
    }
    out.push({ label, bytes: Uint8Array.from(bytes) });
  }
  return out;
}

const examples = new Map(hexExamples(readFileSync(SPEC, "utf8")).map((e) => [e.label, e.bytes]));

function example(label: string): Uint8Array {
  const bytes = examples.get(label);
  if (bytes === undefined) throw new Error(`spec/v2.md has no hex example ${label}`);
  return bytes;
}

function i32s(bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  return Array.from({ length: bytes.length / 4 }, (_, k) => view.getInt32(4 * k, true));
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof FormatError) return `${e.code} ${e.field}`;
    throw e;
  }
  return undefined;
}

describe("spec/v2.md hex examples", () => {
  it("are exactly the ones this test knows (a new example needs its checks here)", () => {
    expect([...examples.keys()].sort(), JSON.stringify([...examples.keys()])).toEqual(["bloscpack-v3", "blpk-v1", "superchunk-dataset", "superchunk-no-metadata", "superchunk-relocated"]);
  });

  it("§8.1 superchunk-dataset: header, metadata, offsets, chunks, checksums, spare room", () => {
    const file = example("superchunk-dataset");
    expect(file.length).toBe(160);
    const h = readSuperchunkHeader(file, "data/__1__.bin");
    expect(h).toEqual({ version: 2, hasOffsets: true, hasMetadata: true, checksumId: 1, typesize: 4, chunkSize: 8, lastChunk: 4, nchunks: 2, metaSize: 40 });
    const text = readSuperchunkMetadataText(file, h);
    expect(text).toBe('{"capacity": 4, "first_chunk": 0}' + " ".repeat(7));
    expect(JSON.parse(text)).toEqual({ capacity: 4, first_chunk: 0 });
    expect(readOffsets(file, h, { capacity: 4, fileLength: file.length })).toEqual([104, 132]);
    const free = new DataView(file.buffer, file.byteOffset + 88, 16);
    expect([free.getBigInt64(0, true), free.getBigInt64(8, true)]).toEqual([-1n, -1n]);

    const c0 = readSuperchunkChunk(file.subarray(104), h, 0, { path: "data/__1__.bin" });
    expect(c0.blosc).toMatchObject({ flags: 0x33, typesize: 4, nbytes: 8, blocksize: 8, cbytes: 24, memcpyed: true, shuffle: 1, dontSplit: true, codec: "lz4" });
    expect(i32s(c0.chunk.subarray(16))).toEqual([1, 2]);
    expect([...file.subarray(128, 132)]).toEqual([0x66, 0x00, 0x65, 0x07]);
    const c1 = readSuperchunkChunk(file.subarray(132), h, 1, { path: "data/__1__.bin" });
    expect(c1.blosc).toMatchObject({ nbytes: 4, blocksize: 4, cbytes: 20 });
    expect(i32s(c1.chunk.subarray(16))).toEqual([3]);
    expect([...file.subarray(152, 156)]).toEqual([0x5b, 0x00, 0x45, 0x05]); // 0x0545005A XOR index 1
    expect([...file.subarray(156)]).toEqual([0, 0, 0, 0]);

    expect(spareRoom(24, 8, 50)).toBe(0);
    expect(spareRoom(20, 8, 50)).toBe(4);
    expect(slotCapacities([104, 132], 160)).toEqual([28, 28]);
    // The text says a full memcpyed chunk (24 bytes) plus its checksum fits chunk 1's slot.
    expect(24 + 4).toBeLessThanOrEqual(slotCapacities([104, 132], 160)[1]!);

    // The builder lays the same chunks out into exactly these bytes.
    const built = buildSuperchunk({
      chunks: [c0.chunk, c1.chunk], checksumId: 1, typesize: 4, chunkSize: 8, metadata: '{"capacity": 4, "first_chunk": 0}', capacity: 4, sparePercent: 50,
    });
    expect(built).toEqual(file);
  });

  it("§9 the three ranges stated for the §8.1 file", () => {
    const file = example("superchunk-dataset");
    const h = readSuperchunkHeader(file.subarray(0, 32));
    expect(SUPERCHUNK_HEADER_SPAN).toEqual({ offset: 0, length: 32 });
    expect(offsetsEntrySpan(h, 0)).toEqual({ offset: 72, length: 16 });
    expect(chunkSlotSpan(h, 0, file.subarray(72, 88))).toEqual({ offset: 104, length: 28 });
    expect(offsetsEntrySpan(h, 1)).toEqual({ offset: 80, length: 8 });
    expect(chunkSlotSpan(h, 1, file.subarray(80, 88))).toEqual({ offset: 132, length: 28 });
  });

  it("§8.2 superchunk-no-metadata: offsets only, crc32, 100 bytes", () => {
    const file = example("superchunk-no-metadata");
    expect(file.length).toBe(100);
    const h = readSuperchunkHeader(file);
    expect(h).toEqual({ version: 2, hasOffsets: true, hasMetadata: false, checksumId: 2, typesize: 4, chunkSize: 8, lastChunk: 4, nchunks: 2, metaSize: 0 });
    expect(readSuperchunkMetadataText(file, h)).toBe("");
    expect(readOffsets(file, h, { fileLength: file.length })).toEqual([48, 76]);
    // Without the table (option bit 0 clear) the same chunks follow the header back to back and
    // are found by walking cbytes + 4 from one to the next: 32, then 32 + 24 + 4 = 60.
    const walked = new Uint8Array(84);
    walked.set(file.subarray(0, 32));
    walked[5] = 0x00;
    walked.set(file.subarray(48), 32);
    expect(walkChunkOffsets(walked, readSuperchunkHeader(walked))).toEqual([32, 60]);
    expect(i32s(readSuperchunkChunk(file.subarray(48), h, 0).chunk.subarray(16))).toEqual([1, 2]);
    expect(i32s(readSuperchunkChunk(file.subarray(76), h, 1).chunk.subarray(16))).toEqual([3]);
    expect([...file.subarray(72, 76)]).toEqual([0x68, 0x87, 0x1f, 0x69]);
    expect([...file.subarray(96, 100)]).toEqual([0x1b, 0x94, 0xe1, 0xc5]);
    expect([...file.subarray(24, 32)]).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it("§8.3 superchunk-relocated: the §8.1 file after an append by relocation", () => {
    const before = example("superchunk-dataset");
    const file = example("superchunk-relocated");
    expect(file.length).toBe(188);
    const h = readSuperchunkHeader(file);
    expect(h).toMatchObject({ checksumId: 1, chunkSize: 8, lastChunk: 8, nchunks: 2, metaSize: 40 });
    const offsets = readOffsets(file, h, { capacity: 4, fileLength: file.length });
    expect(offsets).toEqual([104, 160]);
    expect(i32s(readSuperchunkChunk(file.subarray(104), h, 0).chunk.subarray(16))).toEqual([1, 2]);
    const c1 = readSuperchunkChunk(file.subarray(160), h, 1);
    expect(c1.blosc).toMatchObject({ nbytes: 8, cbytes: 24 });
    expect(i32s(c1.chunk.subarray(16))).toEqual([3, 4]);
    expect([...file.subarray(184)]).toEqual([0x6b, 0x00, 0x7d, 0x07]); // 0x077D006A XOR index 1
    expect(slotCapacities(offsets, file.length)).toEqual([56, 28]);
    expect(spareRoom(24, 8, 50)).toBe(0);
    // With the old length 3 the last required chunk needs 1 row and holds 2: allowed (§10.4).
    expect(() => checkRequiredChunkSize(8, 1, { chunklen: 2, atomsize: 4 })).not.toThrow();
    // Bytes 32-159 other than the header fields and entry 1 are the §8.1 file unchanged: the old
    // slot of chunk 1 became dead space, its Blosc header zeroed (§13.5).
    expect(file.subarray(104, 132)).toEqual(before.subarray(104, 132));
    expect([...file.subarray(132, 148)]).toEqual(new Array(16).fill(0));
    expect(file.subarray(148, 160)).toEqual(before.subarray(148, 160));
    expect(file.subarray(16, 80)).toEqual(before.subarray(16, 80));
    expect(file.subarray(88, 104)).toEqual(before.subarray(88, 104));
    const steps = before.slice();
    new DataView(steps.buffer).setInt32(12, 8, true); // header: last-chunk 8
    new DataView(steps.buffer).setBigInt64(80, 160n, true); // offsets[1] = 160
    steps.fill(0, 132, 148); // the old slot's Blosc header zeroed
    const grown = new Uint8Array(188);
    grown.set(steps);
    grown.set(c1.chunk, 160);
    grown.set(Uint8Array.of(0x6b, 0x00, 0x7d, 0x07), 184);
    expect(grown).toEqual(file);
  });

  it("§8.4 blpk-v1 and bloscpack-v3 are told apart by byte 4", () => {
    const v1 = example("blpk-v1");
    expect(sniffBlpkVersion(v1)).toBe(1);
    expect(readBlpkV1Header(v1).nchunks).toBe(1n);
    expect(codeOf(() => readSuperchunkHeader(v1))).toBe("UNSUPPORTED_VERSION blpk.version");

    const v3 = example("bloscpack-v3");
    expect(sniffBlpkVersion(v3)).toBe(3);
    expect(codeOf(() => readSuperchunkHeader(v3))).toBe("UNSUPPORTED_VERSION blpk.version");
    const asV2 = v3.slice();
    asV2[4] = 2;
    const h = readSuperchunkHeader(asV2);
    expect([h.chunkSize, h.lastChunk, h.nchunks, h.metaSize]).toEqual([262144, 137856, 2, 20]);
  });

  it("§12 the vlarray example's offsets and values are the UTF-8 of its strings", () => {
    const strings = ["ab", "", "h\u00e9llo"];
    const bytes = strings.map((t) => new TextEncoder().encode(t));
    const offsets = [0];
    for (const b of bytes) offsets.push(offsets[offsets.length - 1]! + b.length);
    expect(offsets).toEqual([0, 2, 2, 8]);
    const values = Uint8Array.from(bytes.flatMap((b) => [...b]));
    expect([...values]).toEqual([0x61, 0x62, 0x68, 0xc3, 0xa9, 0x6c, 0x6c, 0x6f]);
    expect(new TextDecoder().decode(values.subarray(offsets[2], offsets[3]))).toBe("h\u00e9llo");
    // chunklen 4: element 2 starts in values chunk 0 and ends in chunk 1.
    expect([Math.floor(offsets[2]! / 4), Math.floor((offsets[3]! - 1) / 4)]).toEqual([0, 1]);
  });
});
