// Type-checked by pack-check.mjs with tsc under moduleResolution node16 and bundler (strict,
// skipLibCheck off, so every shipped .d.ts reached from here is checked too). The tsconfig also
// lists `all-entries-<mode>.ts`, written next to it, which imports every entry point the mode's
// kind of program may use.
import { isBcolzError, type ErrorCode } from "@fmt/errors";
import { BLPK_V1_HEADER_SIZE, readChunkHeader } from "@fmt/header";
import { decompress } from "@fmt/blosc";
import { parseDtype, type DType } from "@fmt/meta";
import { MemoryStore, type ReadableStore } from "@fmt/fs-adapters";
import { open } from "@fmt/store";

export async function firstValue(store: ReadableStore): Promise<unknown> {
  try {
    const dataset = await open(store);
    return dataset.kind === "carray" ? await dataset.get(0) : dataset.length;
  } catch (e) {
    const code: ErrorCode = "MISSING_FILE";
    if (isBcolzError(e, code)) return undefined;
    throw e;
  }
}

export function chunkDecodes(file: Uint8Array): boolean {
  const chunk = file.subarray(BLPK_V1_HEADER_SIZE);
  return decompress(chunk).length === readChunkHeader(chunk, "data/__0.blp").nbytes;
}

export const dtype: DType = parseDtype("<f8");
export const store: ReadableStore = new MemoryStore();

// The declarations are real types, not `any`: these misuses must be errors.
// @ts-expect-error open takes a store, not a number
void open(42);
// @ts-expect-error not an error code of the specification
export const notACode: ErrorCode = "NOT_A_CODE";
