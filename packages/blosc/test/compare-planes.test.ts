// comparePlanned (the plane kernel of wasm/compare_planes.c) against comparisons of the values
// themselves, made here in JavaScript from the array that was compressed (IEEE 754 for floats,
// exact integers otherwise): counts and masks, for every operator, integers of 1 to 8 bytes
// (signed and unsigned), float16, float32 and float64 (NaN, ±0, ±∞ and subnormals among the
// values), both codecs the kernel takes, split and unsplit blocks, several blocks with a short
// last one, and constants drawn from the values (ties down to the last plane). Chunks the
// kernel does not take (memcpyed, bit-shuffled, unshuffled, zlib) give `undefined`.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compress, comparePlanned, planChunk, setDecodeBackend } from "../src/index.js";
import type { PlaneComparison } from "../src/index.js";

type Op = PlaneComparison["op"];
const OPS: readonly Op[] = ["==", "!=", "<", "<=", ">", ">="];

interface Kind {
  name: string;
  size: number;
  kind: PlaneComparison["kind"];
  /** The values of some little-endian bytes, as numbers or bigints. */
  read(bytes: Uint8Array): (number | bigint)[];
  /** Little-endian bytes of values drawn as 64-bit patterns. */
  write(bits: bigint[]): Uint8Array;
}

/** The value of IEEE 754 half-precision bits. */
function halfToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0x1f) return fraction === 0 ? sign * Infinity : NaN;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

function integers(size: number, signed: boolean): Kind {
  return {
    name: `${signed ? "i" : "u"}${size}`,
    size,
    kind: signed ? "signed" : "unsigned",
    read(bytes) {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const out: (number | bigint)[] = [];
      for (let at = 0; at < bytes.length; at += size) {
        if (size === 8) out.push(signed ? view.getBigInt64(at, true) : view.getBigUint64(at, true));
        else if (size === 4) out.push(signed ? view.getInt32(at, true) : view.getUint32(at, true));
        else if (size === 2) out.push(signed ? view.getInt16(at, true) : view.getUint16(at, true));
        else out.push(signed ? view.getInt8(at) : view.getUint8(at));
      }
      return out;
    },
    write: (bits) => bytesOf(bits, size),
  };
}

function floats(size: 2 | 4 | 8): Kind {
  return {
    name: `f${size}`,
    size,
    kind: "float",
    read(bytes) {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const out: number[] = [];
      for (let at = 0; at < bytes.length; at += size) out.push(size === 8 ? view.getFloat64(at, true) : size === 4 ? view.getFloat32(at, true) : halfToNumber(view.getUint16(at, true)));
      return out;
    },
    write: (bits) => bytesOf(bits, size),
  };
}

function bytesOf(bits: bigint[], size: number): Uint8Array {
  const out = new Uint8Array(bits.length * size);
  bits.forEach((b, i) => {
    let rest = BigInt.asUintN(8 * size, b);
    for (let k = 0; k < size; k++, rest >>= 8n) out[i * size + k] = Number(rest & 0xffn);
  });
  return out;
}

const KINDS: Kind[] = [integers(1, true), integers(1, false), integers(2, true), integers(2, false), integers(4, true), integers(4, false), integers(8, true), integers(8, false), floats(2), floats(4), floats(8)];

/** Bit patterns of special floats of each size: ±0, ±∞, NaNs, the smallest subnormals, ±1. */
const SPECIAL: { [size: number]: bigint[] } = {
  2: [0x0000n, 0x8000n, 0x7c00n, 0xfc00n, 0x7e00n, 0x7c01n, 0xfe00n, 0x0001n, 0x8001n, 0x3c00n, 0xbc00n],
  4: [0x00000000n, 0x80000000n, 0x7f800000n, 0xff800000n, 0x7fc00000n, 0x7f800001n, 0xffc00000n, 0x00000001n, 0x80000001n, 0x3f800000n, 0xbf800000n],
  8: [0n, 0x8000000000000000n, 0x7ff0000000000000n, 0xfff0000000000000n, 0x7ff8000000000000n, 0x7ff0000000000001n, 0xfff8000000000000n, 1n, 0x8000000000000001n, 0x3ff0000000000000n, 0xbff0000000000000n],
};

function holds(op: Op, a: number | bigint, b: number | bigint): boolean {
  switch (op) {
    case "==":
      return a === b;
    case "!=":
      return a !== b;
    case "<":
      return a < b;
    case "<=":
      return a <= b;
    case ">":
      return a > b;
    case ">=":
      return a >= b;
  }
}

/**
 * Values of one kind: a walk of small steps from a random start (neighbours share their top
 * planes, so ties reach the low planes), random patterns, and the kind's special values.
 */
function valuesOf(kind: Kind, n: number, seed: number, spread: number): bigint[] {
  const out: bigint[] = [];
  let s = seed >>> 0;
  const next = (): number => (s = (Math.imul(s, 1103515245) + 12345) >>> 0);
  const mask = (1n << BigInt(8 * kind.size)) - 1n;
  let walk = (BigInt(next()) << 32n) | BigInt(next());
  for (let i = 0; i < n; i++) {
    const r = next() % 10;
    if (r < 8) walk += BigInt((next() % (2 * spread + 1)) - spread);
    else if (r < 9) walk = (BigInt(next()) << 32n) | BigInt(next());
    out.push(r === 9 && kind.kind === "float" ? SPECIAL[kind.size]![next() % SPECIAL[kind.size]!.length]! : walk & mask);
  }
  return out;
}

/**
 * `n` values whose top byte is `near` (one in five) or `near + 1`, the bytes below it drawn from
 * a seeded generator: values that never tie with a constant of another top byte. Their top plane
 * compresses (LZ4 finds the pattern), so a count reads it from its literals.
 */
function walkBelow(n: number, near: bigint, top: bigint, seed: number): bigint[] {
  let s = seed;
  const next = (): bigint => BigInt((s = (Math.imul(s, 1103515245) + 12345) >>> 0));
  const low = (1n << top) - 1n;
  return Array.from({ length: n }, (_, i) => ((i % 5 === 0 ? near : near + 1n) << top) | (((next() << 24n) ^ next()) & low));
}

/** comparePlanned of `chunk` (of `bits` as `kind`) with `constantBits`, for every operator: masks and counts as JavaScript compares the values. */
function expectComparisons(kind: Kind, bits: bigint[], constantBits: bigint, chunk: Uint8Array): void {
  const plan = planChunk(chunk);
  const values = kind.read(kind.write(bits));
  const value = kind.write([constantBits]);
  const constant = kind.read(value)[0]!;
  for (const op of OPS) {
    const mask = new Uint8Array(bits.length).fill(0xff);
    const expected = expectAgreement(kind, values, op, constant, mask, comparePlanned(chunk, plan, { kind: kind.kind, op, value }, mask));
    expect(comparePlanned(chunk, plan, { kind: kind.kind, op, value })).toBe(expected);
  }
}

/** That `mask` holds 1 exactly where `values[i] op constant` and `got` counts them; that count. */
function expectAgreement(kind: Kind, values: (number | bigint)[], op: Op, constant: number | bigint, mask: Uint8Array, got: number | undefined): number {
  let expected = 0;
  for (let i = 0; i < values.length; i++) {
    const hit = holds(op, values[i]!, constant);
    expected += hit ? 1 : 0;
    if (mask[i] !== (hit ? 1 : 0)) expect.fail(`${kind.name} ${op} ${constant}: value ${i} (${values[i]}) gave ${mask[i]}`);
  }
  expect(got).toBe(expected);
  return expected;
}

describe("comparePlanned", () => {
  it("counts and masks as comparing the values would (property)", () => {
    let compared = 0;
    let memcpyed = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...KINDS),
        fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 300, max: 20_000 })),
        fc.integer(),
        fc.constantFrom(1, 3, 300, 70_000),
        fc.constantFrom(...OPS),
        fc.constantFrom("lz4", "blosclz"),
        fc.constantFrom(0, 256, 1024, 4096, 65_536),
        fc.nat(),
        (kind, n, seed, spread, op, cname, blocksize, pick) => {
          const bits = valuesOf(kind, n, seed, spread);
          const bytes = kind.write(bits);
          const values = kind.read(bytes);
          // The constant: a value of the array (a tie down to the last plane) or one next to it.
          const base = bits[pick % n]!;
          // Or a random one, whose top byte most blocks never tie with.
          const constantBits = pick % 4 === 0 ? base : pick % 4 === 1 ? base + 1n : pick % 4 === 2 ? base - 1n : BigInt(seed >>> 0) * 0x9e3779b97f4a7c15n;
          const value = kind.write([constantBits]);
          const constant = kind.read(value)[0]!;
          const chunk = compress(bytes, { typesize: kind.size, cname, clevel: 5, shuffle: 1, blocksize });
          const plan = planChunk(chunk);
          // Stale bytes in the mask (the store reuses one across chunks) must all be overwritten.
          const mask = new Uint8Array(n).fill(0xff);
          const got = comparePlanned(chunk, plan, { kind: kind.kind, op, value }, mask);
          // NaN and zero constants are the caller's to refuse; the kernel's answer is not defined.
          if (kind.kind === "float" && (Number.isNaN(constant) || constant === 0)) return;
          if (plan.header.memcpyed) {
            expect(got).toBeUndefined();
            memcpyed++;
            return;
          }
          compared++;
          expect(got).toBeDefined();
          const expected = expectAgreement(kind, values, op, constant, mask, got);
          // Counting alone gives the same number.
          expect(comparePlanned(chunk, plan, { kind: kind.kind, op, value })).toBe(expected);
        },
      ),
      { numRuns: 400 },
    );
    // Incompressible chunks are stored memcpyed and declined: most cases must reach the kernel.
    expect(compared).toBeGreaterThan(memcpyed);
  });

  it("compares chunks whose every value ties with the constant down to the last plane", () => {
    // Every 16-value group stays undecided until the last plane: the kernel's list of undecided
    // groups is as long as it gets, in split blocks and in the short last block.
    for (const kind of KINDS) {
      const n = (3 * 65_536) / kind.size + 37;
      const pattern = kind.kind === "float" ? (kind.size === 2 ? 0x3c01n : kind.size === 4 ? 0x3f800001n : 0x3ff0000000000001n) : 0x55n;
      const bytes = kind.write(Array.from({ length: n }, () => pattern));
      const value = kind.write([pattern]);
      // A forced 2 KiB block of split planes comes out at c-blosc's 64 KiB minimum.
      const chunk = compress(bytes, { typesize: kind.size, cname: "lz4", clevel: 1, shuffle: 1, blocksize: 2048 });
      const plan = planChunk(chunk);
      expect(plan.nblocks).toBeGreaterThan(2);
      for (const op of OPS) {
        const mask = new Uint8Array(n).fill(0xff);
        const holdsForAll = op === "==" || op === "<=" || op === ">=";
        expect(comparePlanned(chunk, plan, { kind: kind.kind, op, value }, mask)).toBe(holdsForAll ? n : 0);
        expect(mask.every((b) => b === (holdsForAll ? 1 : 0))).toBe(true);
      }
    }
  });

  it("decides blocks from their top plane alone when no value ties with the constant there, and takes the planes below in a block where one does", () => {
    // Split blocks and a short last one, of positive and of negative values. Every value's top
    // byte is `near` or `near + 1`, the constant's above or below both; the second block also
    // holds a value whose top byte ties with the constant's, and for floats the third a NaN and an
    // infinity of the values' sign (their exponent needs the planes below).
    for (const kind of KINDS.filter((k) => k.size > 1)) {
      for (const [near, constantTop] of [[0x3fn, 0x41n], [0x3fn, 0x3dn], [0xbfn, 0xc1n], [0xbfn, 0xbdn]] as const) {
        const top = BigInt(8 * kind.size - 8);
        const low = (1n << top) - 1n;
        const n = 8 * 16_384 + 37;
        const constantBits = (constantTop << top) | (0x1234n & low);
        // SPECIAL's NaN and infinity of the values' sign.
        const nan = near >= 0x80n ? 6 : 4;
        const infinity = near >= 0x80n ? 3 : 2;
        const chunkOf = (perBlock: number): { bits: bigint[]; chunk: Uint8Array } => {
          const bits = walkBelow(n, near, top, 12345);
          bits[perBlock + 77] = constantBits + 1n;
          if (kind.kind === "float") {
            bits[2 * perBlock + 5] = SPECIAL[kind.size]![nan]!;
            bits[2 * perBlock + 900] = SPECIAL[kind.size]![infinity]!;
          }
          return { bits, chunk: compress(kind.write(bits), { typesize: kind.size, cname: "lz4", clevel: 5, shuffle: 1, blocksize: 16_384 }) };
        };
        // The block size the compressor picks for this many bytes, then the values placed by it.
        const perBlock = planChunk(chunkOf(1000).chunk).header.blocksize / kind.size;
        const { bits, chunk } = chunkOf(perBlock);
        const plan = planChunk(chunk);
        expect(plan.header.blocksize / kind.size).toBe(perBlock);
        expect(plan.nblocks).toBeGreaterThanOrEqual(4);
        expectComparisons(kind, bits, constantBits, chunk);
      }
    }
  });

  it("decides a one-block chunk from its top plane, the values after its last 16 included, and holds back a NaN or an infinity among them", () => {
    // One split block of 1,000 values (as the store's plane readers read a chunk file): its last
    // 8 values are compared apart from the groups of 16.
    for (const kind of KINDS.filter((k) => k.size > 1)) {
      for (const [near, constantTop] of [[0x3fn, 0x41n], [0x3fn, 0x3dn], [0xbfn, 0xc1n], [0xbfn, 0xbdn]] as const) {
        const top = BigInt(8 * kind.size - 8);
        const low = (1n << top) - 1n;
        const n = 1000;
        const constantBits = (constantTop << top) | (0x1234n & low);
        // Nothing special, then SPECIAL's +infinity, -infinity, NaN and negative NaN.
        const cases: (number | undefined)[] = kind.kind === "float" ? [undefined, 2, 3, 4, 6] : [undefined];
        for (const special of cases) {
          const bits = walkBelow(n, near, top, 777);
          if (special !== undefined) bits[n - 3] = SPECIAL[kind.size]![special]!;
          const chunk = compress(kind.write(bits), { typesize: kind.size, cname: "lz4", clevel: 5, shuffle: 1 });
          const plan = planChunk(chunk);
          expect(plan.nblocks).toBe(1);
          expect(plan.header.memcpyed).toBe(false);
          expectComparisons(kind, bits, constantBits, chunk);
        }
      }
    }
  });

  it("counts from a top plane's literals exactly as from its decoded bytes, whatever the stream holds (corrupted streams give the same error or count)", () => {
    // A count without a mask may decide a block from its LZ4 top plane's literals; with a mask the
    // plane is decoded. Bytes of that stream overwritten at random must give both the same answer.
    const kind = KINDS.find((k) => k.name === "f8")!;
    const n = 1000;
    // Top bytes 0x3f and 0x40 in a seeded irregular order: a stream of many short sequences,
    // long enough for the decoder's fast path (32 bytes left on both sides).
    let s = 99;
    const next = (): number => (s = (Math.imul(s, 1103515245) + 12345) >>> 0);
    const bits = walkBelow(n, 0x3fn, 56n, 99).map((b) => ((next() >>> 16) % 40 === 0 ? b ^ (0x7fn << 56n) : b));
    const chunk = compress(kind.write(bits), { typesize: 8, cname: "lz4", clevel: 5, shuffle: 1 });
    const plan = planChunk(chunk);
    expect(plan.nblocks).toBe(1);
    // The top plane's stream: the last of the block's eight.
    let at = plan.bstarts[0]!;
    let size = 0;
    for (let stream = 0; stream < 8; stream++) {
      size = chunk[at]! | (chunk[at + 1]! << 8) | (chunk[at + 2]! << 16) | (chunk[at + 3]! << 24);
      if (stream < 7) at += 4 + size;
    }
    expect(size).toBeGreaterThan(64);
    expect(size).toBeLessThanOrEqual(n / 4);
    const stream = at + 4;
    const answer = (call: () => number | undefined): string => {
      try {
        return String(call());
      } catch (error) {
        return `error ${(error as Error).message}`;
      }
    };
    let errors = 0;
    let counts = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(size - 1), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), fc.constantFrom(...OPS), fc.constantFrom(0x41n, 0x3dn), (writes, op, constantTop) => {
        const corrupted = chunk.slice();
        for (const [offset, byte] of writes) corrupted[stream + offset] = byte;
        const value = kind.write([(constantTop << 56n) | 0x1234n]);
        const counted = answer(() => comparePlanned(corrupted, planChunk(corrupted), { kind: "float", op, value }));
        const masked = answer(() => comparePlanned(corrupted, planChunk(corrupted), { kind: "float", op, value }, new Uint8Array(n)));
        if (masked.startsWith("error")) errors++;
        else counts++;
        expect(counted).toBe(masked);
      }),
      { numRuns: 300 },
    );
    // Many overwrites break the stream: the refusals are compared too, and so are the counts.
    expect(errors).toBeGreaterThan(0);
    expect(counts).toBeGreaterThan(0);
  });

  it("compares a chunk of several blocks with a short last one, and blocks too small to split", () => {
    const n = 10_000 + 37;
    const values = Float64Array.from({ length: n }, (_, i) => Math.round(Math.sin(i / 300) * 4000) / 8);
    const bytes = new Uint8Array(values.buffer);
    for (const blocksize of [512, 8192]) {
      const chunk = compress(bytes, { typesize: 8, cname: "lz4", clevel: 9, shuffle: 1, blocksize });
      const plan = planChunk(chunk);
      expect(plan.nblocks).toBeGreaterThan(1);
      const mask = new Uint8Array(n).fill(0xff);
      const got = comparePlanned(chunk, plan, { kind: "float", op: "<=", value: new Uint8Array(new Float64Array([12.5]).buffer) }, mask);
      let expected = 0;
      for (let i = 0; i < n; i++) {
        expected += values[i]! <= 12.5 ? 1 : 0;
        expect(mask[i]).toBe(values[i]! <= 12.5 ? 1 : 0);
      }
      expect(got).toBe(expected);
    }
  });

  it("compares from the top planes alone when the streams before readFrom were not read", () => {
    // A float64 walk: low planes stored raw, top planes compressed; one block of eight streams.
    const n = 65_536;
    const values = Float64Array.from({ length: n }, (_, i) => 100 + Math.sin(i / 500) * 50 + Math.sin(i * 7.1) * 1e-6);
    const chunk = compress(new Uint8Array(values.buffer), { typesize: 8, cname: "lz4", clevel: 5, shuffle: 1 });
    const plan = planChunk(chunk);
    expect(plan.nblocks).toBe(1);
    // The streams before 4 keep their size prefixes; their bytes are overwritten with garbage.
    const sparse = chunk.slice();
    let at = plan.bstarts[0]!;
    for (let stream = 0; stream < 8; stream++) {
      const size = sparse[at]! | (sparse[at + 1]! << 8) | (sparse[at + 2]! << 16) | (sparse[at + 3]! << 24);
      if (stream < 4) sparse.fill(0xa5, at + 4, at + 4 + size);
      at += 4 + size;
    }
    for (const op of OPS) {
      for (const c of [120.5, 75.25, values[4321]!]) {
        const value = new Uint8Array(new Float64Array([c]).buffer);
        const expected = values.reduce((k, v) => k + (holds(op, v, c) ? 1 : 0), 0);
        const got = comparePlanned(sparse, planChunk(sparse), { kind: "float", op, value, readFrom: 4 });
        // The top four planes decide every value here but one tied with a stored value to its
        // low bytes, which needs a stream that was not read: then the caller reads it whole.
        if (got === undefined) expect(c).toBe(values[4321]);
        else expect(got).toBe(expected);
      }
    }
    // A value tied down to its low planes always needs them.
    expect(comparePlanned(sparse, planChunk(sparse), { kind: "float", op: "==", value: new Uint8Array(values.buffer, 8 * 4321, 8).slice(), readFrom: 4 })).toBeUndefined();
    expect(comparePlanned(chunk, plan, { kind: "float", op: "==", value: new Uint8Array(values.buffer, 8 * 4321, 8).slice() })).toBeGreaterThan(0);
  });

  it("declines chunks it does not compare on planes", () => {
    const values = new Float64Array(4096).map((_, i) => i / 7);
    const bytes = new Uint8Array(values.buffer);
    const value = new Uint8Array(new Float64Array([3]).buffer);
    const comparison = { kind: "float", op: ">", value } as const;
    for (const options of [{ shuffle: 2 }, { shuffle: 0 }, { cname: "zlib" }, { clevel: 0 }] as const) {
      const chunk = compress(bytes, { typesize: 8, cname: "lz4", clevel: 5, shuffle: 1, ...options });
      expect(comparePlanned(chunk, planChunk(chunk), comparison)).toBeUndefined();
    }
    // A constant of the wrong size.
    const chunk = compress(bytes, { typesize: 8, cname: "lz4", clevel: 5, shuffle: 1 });
    expect(comparePlanned(chunk, planChunk(chunk), { ...comparison, value: new Uint8Array(4) })).toBeUndefined();
    // Without the WebAssembly decoder there is no plane kernel.
    setDecodeBackend("js");
    try {
      expect(comparePlanned(chunk, planChunk(chunk), comparison)).toBeUndefined();
    } finally {
      setDecodeBackend("auto");
    }
    expect(comparePlanned(chunk, planChunk(chunk), comparison)).toBe(4096 - 22);
  });

  it("refuses a mask shorter than the chunk's values", () => {
    const chunk = compress(new Uint8Array(new Float64Array(1000).buffer), { typesize: 8, cname: "lz4", clevel: 5, shuffle: 1 });
    expect(() => comparePlanned(chunk, planChunk(chunk), { kind: "float", op: ">", value: new Uint8Array(8) }, new Uint8Array(999))).toThrow(/output buffer/);
  });
});
