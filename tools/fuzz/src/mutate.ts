/**
 * Byte-level mutators: the edits a careless writer, a bad disk or a hostile user make to a file.
 * Each takes the generator of the input, so a mutated input is reproducible from its index.
 *
 * @example
 * ```ts
 * const rng = inputRng(1, "codec-lz4", 0);
 * const mutated = mutateBytes(rng, chunk, { dictionary: [], stack: 3 });
 * ```
 * @packageDocumentation
 */
import type { Rng } from "./rng.js";

/** Options of {@link mutateBytes}. */
export interface MutateOptions {
  /** Byte strings worth inserting or overwriting with (tokens of the format, magic numbers). */
  dictionary: readonly Uint8Array[];
  /** At most this many edits in a row (at least one). */
  stack: number;
  /** Where edits land more often: a byte range that holds the structure a parser looks at first. */
  focus?: { start: number; end: number };
  /** Largest result allowed; insertions stop growing past it. Default 1 MiB. */
  maxLength?: number;
}

// Values that sit on the boundaries parsers test against: zero, sign bits, powers of two, the
// largest 31- and 32-bit integers.
const INTERESTING_32 = [0, 1, 2, 15, 16, 17, 127, 128, 255, 256, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff, 0x7fffffef, 0x100000];

function position(rng: Rng, length: number, focus: MutateOptions["focus"]): number {
  if (length === 0) return 0;
  if (focus !== undefined && focus.end > focus.start && rng.chance(0.5)) {
    const end = Math.min(focus.end, length);
    if (end > focus.start) return focus.start + rng.below(end - focus.start);
  }
  return rng.below(length);
}

function splice(bytes: Uint8Array, at: number, remove: number, insert: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length - remove + insert.length);
  out.set(bytes.subarray(0, at), 0);
  out.set(insert, at);
  out.set(bytes.subarray(at + remove), at + insert.length);
  return out;
}

function randomBytes(rng: Rng, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = rng.below(256);
  return out;
}

/**
 * One random edit: bit flip, byte set, interesting 8/16/32-bit value, truncation, deletion,
 * insertion (random, repeated or dictionary bytes), duplication of a slice, or overwrite with a
 * dictionary token.
 *
 * @example
 * ```ts
 * const next = mutateOnce(new Rng(3), Uint8Array.of(1, 2, 3), { dictionary: [], stack: 1 });
 * ```
 */
export function mutateOnce(rng: Rng, bytes: Uint8Array, options: MutateOptions): Uint8Array {
  const maxLength = options.maxLength ?? 1 << 20;
  const n = bytes.length;
  const at = position(rng, n, options.focus);
  const kind = rng.below(n === 0 ? 1 : 12);
  switch (kind) {
    case 0: {
      const size = rng.chance(0.5) ? 1 + rng.below(8) : 1 + rng.below(256);
      const insert = rng.chance(0.5) ? randomBytes(rng, size) : new Uint8Array(size).fill(rng.below(256));
      return n + size > maxLength ? bytes : splice(bytes, Math.min(at, n), 0, insert);
    }
    case 1: {
      const out = bytes.slice();
      out[at] = out[at]! ^ (1 << rng.below(8));
      return out;
    }
    case 2: {
      const out = bytes.slice();
      out[at] = rng.below(256);
      return out;
    }
    case 3: {
      const out = bytes.slice();
      const value = rng.pick(INTERESTING_32);
      const width = rng.pick([1, 2, 4]);
      const plus = rng.chance(0.3) ? rng.below(5) - 2 : 0;
      const v = (value + plus) >>> 0;
      for (let i = 0; i < width && at + i < n; i++) out[at + i] = (v >>> (8 * i)) & 0xff;
      return out;
    }
    case 4:
      return bytes.slice(0, rng.chance(0.5) ? at : n - 1 - rng.below(Math.min(n, 16)));
    case 5: {
      const size = Math.min(n - at, 1 + rng.below(rng.chance(0.7) ? 8 : 512));
      return splice(bytes, at, size, new Uint8Array(0));
    }
    case 6: {
      const size = Math.min(n - at, 1 + rng.below(64));
      const copy = bytes.slice(at, at + size);
      const to = rng.below(n + 1);
      return n + size > maxLength ? bytes : splice(bytes, to, 0, copy);
    }
    case 7:
    case 8: {
      if (options.dictionary.length === 0) return mutateOnce(rng, bytes, { ...options, dictionary: [Uint8Array.of(0)] });
      const token = rng.pick(options.dictionary);
      if (kind === 7 || n + token.length > maxLength) {
        const out = bytes.slice();
        out.set(token.subarray(0, Math.max(0, n - at)), at);
        return out;
      }
      return splice(bytes, at, 0, token);
    }
    case 9: {
      const out = bytes.slice();
      const count = 1 + rng.below(16);
      for (let i = 0; i < count; i++) {
        const p = position(rng, n, options.focus);
        out[p] = out[p]! ^ (1 << rng.below(8));
      }
      return out;
    }
    case 10: {
      const out = bytes.slice();
      const size = Math.min(n - at, 1 + rng.below(32));
      out.fill(rng.pick([0, 0xff, rng.below(256)]), at, at + size);
      return out;
    }
    default: {
      // Swap two slices: keeps the length, breaks the order of structures.
      const size = Math.min(n - at, 1 + rng.below(32));
      const other = rng.below(Math.max(1, n - size));
      const out = bytes.slice();
      out.set(bytes.subarray(other, other + size), at);
      out.set(bytes.subarray(at, at + size), other);
      return out;
    }
  }
}

/**
 * One to `stack` random edits in a row (fewer edits are more likely, so most inputs stay close
 * to a valid file and reach deep into the parser).
 *
 * @example
 * ```ts
 * const mutated = mutateBytes(new Rng(9), seed, { dictionary: tokens("{", "}"), stack: 4 });
 * ```
 */
export function mutateBytes(rng: Rng, bytes: Uint8Array, options: MutateOptions): Uint8Array {
  const edits = 1 + rng.below(Math.max(1, options.stack)) * (rng.chance(0.5) ? 0 : 1);
  let out = bytes;
  for (let i = 0; i < edits; i++) out = mutateOnce(rng, out, options);
  return out;
}

/**
 * UTF-8 encodings of the given strings, for {@link MutateOptions.dictionary}.
 *
 * @example
 * ```ts
 * const jsonTokens = tokens("{", "}", "NaN", "1e999");
 * ```
 */
export function tokens(...words: string[]): Uint8Array[] {
  const encoder = new TextEncoder();
  return words.map((w) => encoder.encode(w));
}
