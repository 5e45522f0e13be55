// Checks of each store-benchmark result, for ours and for the floor: each check returns undefined
// when the result is right, else the reason its cell reads FAIL. The expected values come from
// the source arrays numpy wrote, never from the code under test.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

/** A file of little-endian values as a fresh, aligned typed array (Buffers may sit at any offset of a pool). */
export function readTyped(path, Type = Float64Array) {
  const bytes = readFileSync(path);
  const out = new Type(bytes.length / Type.BYTES_PER_ELEMENT);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

export const sameFloat64 = (a, b) =>
  a instanceof Float64Array && a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/** Σ values with compensation, and Σ |values|: the reference a sum may differ from by rounding only. */
export function referenceSum(values) {
  let sum = 0;
  let carry = 0;
  let magnitude = 0;
  for (const v of values) {
    const y = v - carry;
    const t = sum + y;
    carry = t - sum - y;
    sum = t;
    magnitude += Math.abs(v);
  }
  return { sum, magnitude };
}

export const closeSum = (got, ref) => typeof got === "number" && Math.abs(got - ref.sum) <= 1e-9 * Math.max(1, ref.magnitude);

/** Deterministic indices in [0, n): a small xorshift, so every run and both sides use the same ones. */
export function randomIndices(count, n, seed) {
  let state = seed >>> 0 || 1;
  const out = new Array(count);
  for (let i = 0; i < count; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = Math.floor(((state >>> 0) / 2 ** 32) * n);
  }
  return out;
}

/** Count, sum and SHA-256 of the int64 little-endian bytes of row numbers (what the floor sends back). */
export function rowsDigest(rows) {
  const wide = BigInt64Array.from(rows, (r) => BigInt(r));
  let sum = 0;
  for (const r of rows) sum += r;
  return { count: rows.length, sum, sha256: createHash("sha256").update(Buffer.from(wide.buffer)).digest("hex") };
}

/** The row numbers where `test(i)` holds. */
function matching(n, test) {
  const out = [];
  for (let i = 0; i < n; i++) if (test(i)) out.push(i);
  return out;
}

/**
 * The two where queries, as text both sides evaluate (q90 spelled as Python's repr, so both parse
 * the same double), and their expected row numbers computed here from the source columns.
 */
export function whereQueries(q, f64, i32) {
  const bound = Number(q);
  const one = matching(f64.length, (i) => f64[i] > bound);
  const two = matching(f64.length, (i) => f64[i] > bound && i32[i] < 0);
  return {
    one: { expression: `f64 > ${q}`, columns: ["f64"], rows: one, digest: rowsDigest(one) },
    two: { expression: `(f64 > ${q}) & (i32 < 0)`, columns: ["f64", "i32"], rows: two, digest: rowsDigest(two) },
  };
}

function sameRows(got, expected) {
  if (got === undefined || typeof got.length !== "number") return `not a list of row numbers (${typeof got})`;
  if (got.length !== expected.length) return `${got.length} rows, expected ${expected.length}`;
  for (let i = 0; i < expected.length; i++) {
    if (Number(got[i]) !== expected[i]) return `row ${i}: got ${got[i]}, expected ${expected[i]}`;
  }
  return undefined;
}

function sameDigest(got, expected) {
  for (const field of ["count", "sum", "sha256"]) {
    if (got?.[field] !== expected[field]) return `${field} ${got?.[field]}, expected ${expected[field]}`;
  }
  return undefined;
}

/**
 * `{ [operation]: { ours(result), floor(reply) } }`: `floor` checks the replies of store_native.py
 * and of store_bcolz.py.
 * @param {{root: string, source: Float64Array, column: Float64Array, indices: number[], where: ReturnType<typeof whereQueries>, native: object}} ctx
 */
export function resultChecks(ctx) {
  const { source, column, indices, where, native } = ctx;
  const sourceRef = referenceSum(source);
  const expectedAt = indices.map((i) => source[i]);
  const sameList = (got) => {
    if (got === undefined || got.length !== expectedAt.length) return `${got?.length ?? "no"} values for ${expectedAt.length} indices`;
    for (let i = 0; i < expectedAt.length; i++) {
      if (!Object.is(Number(got[i]), expectedAt[i])) return `index ${indices[i]}: got ${got[i]}, expected ${expectedAt[i]}`;
    }
    return undefined;
  };
  const count = (expected) => (got) => (got === expected ? undefined : `count ${got}, expected ${expected}`);
  // A whole array read elsewhere (the floor, bcolz) comes back as its length, sum and end values.
  const columnRef = referenceSum(column);
  const sameSummary = (r, values, ref) => {
    if (r.length !== values.length) return `${r.length} values, expected ${values.length}`;
    if (r.first !== values[0] || r.last !== values[values.length - 1]) return "first/last values differ";
    return closeSum(r.sum, ref) ? undefined : `sum ${r.sum}, expected ${ref.sum}`;
  };
  return {
    create: {
      // Format 1: the directory our side created, read back by c-blosc + numpy. Format 2: the
      // values read back through @fmt/store (c-blosc cannot read superchunks).
      ours: async (result) => {
        if (typeof result !== "string") return sameFloat64(result, source) ? undefined : "the created carray reads back as something else";
        const reply = await native.request({ cmd: "check_dir", dir: ctx.root, path: result });
        if (!reply.ok) return reply.error;
        return reply.equal ? undefined : `c-blosc + numpy read back something else: ${reply.reason}`;
      },
      floor: (r) => (r.roundTrips ? undefined : "the create did not read back as the source"),
    },
    readall: {
      ours: (values) => (sameFloat64(values, source) ? undefined : "values differ from the source array"),
      floor: (r) => sameSummary(r, source, sourceRef),
    },
    sum: {
      ours: (got) => (closeSum(got, sourceRef) ? undefined : `sum ${got}, expected ${sourceRef.sum}`),
      floor: (r) => (closeSum(r.sum, sourceRef) ? undefined : `sum ${r.sum}, expected ${sourceRef.sum}`),
    },
    column: {
      ours: (values) => (sameFloat64(values, column) ? undefined : "values differ from the column's source"),
      floor: (r) => sameSummary(r, column, columnRef),
    },
    get: { ours: (values) => sameList(values), floor: (r) => sameList(r.values) },
    take: { ours: (values) => sameList(values === undefined ? undefined : Array.from(values)), floor: (r) => sameList(r.values) },
    where: { ours: count(where.one.rows.length), floor: (r) => count(where.one.rows.length)(r.count) },
    whererows: { ours: (rows) => sameRows(rows, where.one.rows), floor: (r) => sameDigest(r, where.one.digest) },
    where2: { ours: count(where.two.rows.length), floor: (r) => count(where.two.rows.length)(r.count) },
    where2rows: { ours: (rows) => sameRows(rows, where.two.rows), floor: (r) => sameDigest(r, where.two.digest) },
  };
}
