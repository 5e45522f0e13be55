// The format-1 layout's byte pieces of a chunk file (src/layout-v1.ts, `partial.ranges`): a
// `where` pass asks for the same pieces of every chunk, and the layout keeps the windows and lent
// buffers it made for them. What it keeps must never answer for pieces changed since.
import { describe, expect, it } from "vitest";
import { FormatError } from "@fmt/errors";
import { MemoryStore } from "@fmt/fs-adapters";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCarray, openCarray } from "@fmt/store";
import { LayoutV1 } from "../src/layout-v1.js";

/** A two-chunk float64 carray written by this library, and its chunk 0 file's bytes. */
async function twoChunks(store: MemoryStore | FileSystemStore): Promise<Uint8Array> {
  const values = Float64Array.from({ length: 2048 }, (_, i) => i * 1.5);
  const a = await createCarray(store, "a", values, { dtype: "float64", chunklen: 1024 });
  await a.close();
  await openCarray(store, "a");
  return (await store.get("a/data/__0.blp"))!;
}

const geometry = { path: "a", chunklen: 1024, atomSize: 8, length: () => 2048 };

/** A store to test on, and how to remove what it left. */
type Made = { store: MemoryStore | FileSystemStore; done: () => void };

describe.each([
  ["MemoryStore", (): Made => ({ store: new MemoryStore(), done: () => undefined })],
  [
    "FileSystemStore",
    (): Made => {
      const dir = mkdtempSync(join(tmpdir(), "layout-ranges-"));
      return { store: new FileSystemStore(dir), done: () => rmSync(dir, { recursive: true, force: true }) };
    },
  ],
] as const)("LayoutV1 partial.ranges on %s", (_name, make) => {
  /** `test` on a fresh two-chunk carray in a store `make` gives, removed afterwards. */
  const onTwoChunks = async (test: (store: Made["store"], file: Uint8Array, layout: LayoutV1) => Promise<void>): Promise<void> => {
    const { store, done } = make();
    try {
      const file = await twoChunks(store);
      await test(store, file, new LayoutV1(store, geometry, undefined));
    } finally {
      done();
    }
  };

  it("answers for the pieces as they are at each call, also when the caller changed them in place", () =>
    onTwoChunks(async (_store, file, layout) => {
      const ranges = layout.partial.ranges!.bind(layout.partial);
      const pieces = [
        { offset: 0, length: 16 },
        { offset: 100, length: 8 },
      ];
      // Chunk offsets: the 16-byte container header is in front of them in the file.
      const expected = (): Uint8Array[] => pieces.map((p) => file.slice(16 + p.offset, 16 + p.offset + p.length));
      expect(await ranges(0, pieces, true)).toEqual(expected());
      expect(await ranges(0, pieces, true)).toEqual(expected());
      pieces[1]!.offset = 200;
      pieces[1]!.length = 5;
      expect(await ranges(0, pieces, true)).toEqual(expected());
      pieces.push({ offset: 300, length: 3 });
      expect(await ranges(0, pieces, false)).toEqual(expected());
      expect(await ranges(0, pieces, true)).toEqual(expected());
    }));

  it("reads into the buffers lent at each call, also when the caller changed them in place", () =>
    onTwoChunks(async (store, file, layout) => {
      const ranges = layout.partial.ranges!.bind(layout.partial);
      const pieces = [{ offset: 40, length: 8 }];
      const first = new Uint8Array(8);
      const second = new Uint8Array(8);
      const lent: Uint8Array[] = [first];
      const reads = store instanceof FileSystemStore;
      const [a] = (await ranges(0, pieces, true, lent))!;
      expect(a).toEqual(file.slice(56, 64));
      lent[0] = second;
      const [b] = (await ranges(0, pieces, true, lent))!;
      expect(b).toEqual(file.slice(56, 64));
      // A store that reads into lent buffers (local files, read on this thread) used the one lent now.
      expect(b!.buffer === second.buffer).toBe(reads);
      expect(second.some((x) => x !== 0)).toBe(reads);
    }));

  it("still checks each file's container header", () =>
    onTwoChunks(async (store, file, layout) => {
      const pieces = [{ offset: 0, length: 16 }];
      await layout.partial.ranges!(0, pieces, true);
      const broken = file.slice();
      broken[0] = 0x00;
      await store.put("a/data/__1.blp", broken);
      await expect(layout.partial.ranges!(1, pieces, true)).rejects.toBeInstanceOf(FormatError);
    }));
});
