/**
 * Case descriptions of the generated corpus sets (`gen-valid`, `gen-invalid`, `gen-malformed` of
 * format versions 1 and 2), drawn by fast-check from fixed, recorded seeds.
 *
 * This module decides only *what* each case is: the dataset's parameters and values, and for a
 * must-fail case the one damage, its expected error code (spec/errors.md) and the spec rules it
 * pins. The bytes are written by the independent Python builder `conformance/generators/genlib`
 * (c-blosc through python3-blosc), never by the code under test, and the expected values are the
 * described values. Case `i` of a set is `fc.sample(arbitrary, { seed: set seed + i })`, so one
 * seed per set reproduces every description.
 *
 * This module assembles the sets and names the cases; the rest lives in `types.ts` (the
 * description shapes), `values.ts` (arbitraries of element values), `datasets.ts` (arbitraries of
 * valid datasets), `valid-rules.ts` (rules of valid cases) and `damage.ts` (must-fail kinds);
 * the public names of all but `valid-rules.ts` are re-exported from here.
 */
import fc from "fast-check";
import { carrayArb, ctableArb, vlarrayArb, WIDE8 } from "./datasets.js";
import { frac, v1Kinds, v2Kinds } from "./damage.js";
import type { CaseDescription, Json, JsonObject, SetDescription } from "./types.js";
import { V1_WRITE_RULES, V2_WRITE_RULES, v1ReadRules, v2ReadRules } from "./valid-rules.js";

export type { CaseDescription, Json, JsonObject, SetDescription } from "./types.js";
export { elementArb, runsArb, text } from "./values.js";
export { attrsArb, carrayArb, CHECKSUMS, CNAMES, ctableArb, DTYPES, geometryArb, NUMERIC_DTYPES, vlarrayArb } from "./datasets.js";
export { v1Kinds, v2Kinds } from "./damage.js";

const MALFORMED = new Set(["TRUNCATED", "BAD_MAGIC", "UNSUPPORTED_VERSION", "BAD_HEADER", "UNKNOWN_CODEC", "CORRUPT_STREAM", "SIZE_LIMIT", "BAD_JSON", "MISSING_FILE"]);

/** The class of an error code (spec/errors.md, "Classes"); throws for usage and environment codes. */
export function categoryOf(code: string): "invalid" | "malformed" {
  if (MALFORMED.has(code)) return "malformed";
  if (["CHECKSUM_MISMATCH", "BAD_METADATA", "UNSUPPORTED_DTYPE", "INCONSISTENT", "UNSAFE_NAME"].includes(code)) return "invalid";
  throw new Error(`not a data error code: ${code}`);
}

// ------------------------------------------------------------------------------ sets

/** Seeds of the six generated sets (recorded in each manifest). */
export const SEEDS = {
  "v1/gen-valid": 1_170_001,
  "v1/gen-invalid": 1_170_002,
  "v1/gen-malformed": 1_170_003,
  "v2/gen-valid": 2_170_001,
  "v2/gen-invalid": 2_170_002,
  "v2/gen-malformed": 2_170_003,
} as const;

/** Number of cases per generated set. */
export const COUNTS = { valid: 160, invalid: 60, malformed: 60 } as const;

/** The `i`-th value of `arb` under `seed` (fast-check's generator, no shrinking). */
function draw<T>(arb: fc.Arbitrary<T>, seed: number): T {
  const [value] = fc.sample(arb, { seed, numRuns: 1 });
  if (value === undefined) throw new Error("fast-check drew nothing");
  return value;
}

function pad(i: number): string {
  return String(i).padStart(3, "0");
}

function shortName(d: JsonObject): string {
  if (d.kind === "ctable") return `ctable${(d.columns as Json[]).length}`;
  if (d.kind === "vlarray") return `vl_${String(d.vtype)}`;
  const dt = String(d.dtype).replace("<", "le_").replace(">", "be_").replace("|", "").replace("[ns]", "ns");
  const cp = d.cparams as JsonObject;
  return `${dt}_${String(cp.cname)}_s${String(cp.shuffle)}`;
}

function validSet(format: 1 | 2): SetDescription {
  const seed = SEEDS[`v${format}/gen-valid`];
  const arb =
    format === 1
      ? fc.oneof({ weight: 3, arbitrary: carrayArb({ format: 1 }) }, { weight: 1, arbitrary: ctableArb(1) })
      : fc.oneof({ weight: 6, arbitrary: carrayArb({ format: 2 }) }, { weight: 2, arbitrary: vlarrayArb() }, { weight: 2, arbitrary: ctableArb(2) });
  const cases: CaseDescription[] = [];
  for (let i = 0; i < COUNTS.valid; i += 1) {
    const dataset = draw(arb, seed + i);
    cases.push({
      name: `v${format}_${pad(i)}_${shortName(dataset)}`,
      seed: seed + i,
      dataset,
      rules: format === 1 ? v1ReadRules(dataset) : v2ReadRules(dataset),
      write_rules: format === 1 ? V1_WRITE_RULES : V2_WRITE_RULES,
    });
  }
  // leniencies: a valid case and a copy of it with one change a reader must accept (derived_from)
  const lenient: [string, string[], fc.Arbitrary<JsonObject>][] = [
    ["both_shuffle_bits", format === 1 ? ["v1-5.2-2"] : ["v1-5.2-2", "v2-7.4-1"], carrayArb({ format, compressible: true, dtypes: WIDE8, trailing: false }).map((d) => ({ ...d, cparams: { ...(d.cparams as JsonObject), shuffle: 1 } }))],
  ];
  if (format === 1)
    lenient.push(["leftover_extra_rows", ["v1-8.5-1"], carrayArb({ format: 1, minChunks: 1 }).filter((d) => (d.chunklen as number) >= 2 && (d.shape as number[])[0]! % (d.chunklen as number) !== 0)]);
  for (const [kindName, rules, base] of lenient) {
    for (let j = 0; j < 4; j += 1) {
      const i = cases.length;
      const caseSeed = seed + 1000 + i;
      const { dataset, u } = draw(fc.record({ dataset: base, u: frac }), caseSeed);
      const source = `v${format}_${pad(i)}_${shortName(dataset)}`;
      cases.push({ name: source, seed: caseSeed, dataset, rules: format === 1 ? v1ReadRules(dataset) : v2ReadRules(dataset), write_rules: format === 1 ? V1_WRITE_RULES : V2_WRITE_RULES });
      cases.push({ name: `v${format}_${pad(i + 1)}_lenient_${kindName}`, seed: caseSeed, dataset, lenient: { kind: kindName, u, source }, rules });
    }
  }
  return {
    format,
    set: "gen-valid",
    seed,
    notes: [
      "valid datasets drawn by fast-check: dtypes x codecs x shuffles x chunk geometry x leftovers x attrs x ctables" + (format === 2 ? " x vlarrays x superchunk sizes x checksums x spare room" : ""),
      "expected/*.bin hold the described values (little-endian, C order; vlarrays: u64 LE byte length + bytes per element), computed by numpy from the description in `gen`",
      "rules: the spec rules a reader pins by reading the case; write_rules: the rules the runner's write check of the case pins",
    ],
    provenance: `Valid format-version-${format} datasets across dtypes, codecs, shuffles, clevels, chunk geometry and leftover rows, attributes and ctables${format === 2 ? ", vlarrays, superchunk sizes, checksums and spare room" : ""}; small arrays (at most a few hundred elements).`,
    cases,
  };
}

function brokenSet(format: 1 | 2, category: "invalid" | "malformed"): SetDescription {
  const seed = SEEDS[`v${format}/gen-${category}`];
  const kinds = (format === 1 ? v1Kinds() : v2Kinds())[category];
  const cases: CaseDescription[] = [];
  for (let i = 0; i < COUNTS[category]; i += 1) {
    // every kind once, in order, then kinds drawn at random
    const k = i < kinds.length ? kinds[i]! : draw(fc.constantFrom(...kinds), seed + 100_000 + i);
    const drawn = draw(fc.record({ dataset: k.base, d: k.damage }), seed + i);
    if (categoryOf(drawn.d.expect) !== category) throw new Error(`${drawn.d.expect} is not ${category}`);
    cases.push({
      name: `v${format}_${pad(i)}_${String(drawn.d.damage.kind)}_${drawn.d.expect.toLowerCase()}`,
      seed: seed + i,
      dataset: drawn.dataset,
      damage: drawn.d.damage,
      expect: drawn.d.expect,
      category,
      rules: drawn.d.rules,
    });
  }
  return {
    format,
    set: `gen-${category}`,
    seed,
    notes: [
      `${category} cases: a valid dataset drawn by fast-check plus exactly one damage (gen.damage); the expected code is the one spec/errors.md assigns to the rule broken`,
      "the damage parameters are fractions mapped by the builder onto the positions where the damage breaks exactly that rule; `mutation` says what was done",
    ],
    provenance:
      category === "invalid"
        ? `Format-version-${format} datasets whose bytes decode but break one rule (inconsistent sizes, metadata out of its schema, unsupported dtypes, unsafe names, ${format === 2 ? "checksums, vlarray offsets, " : ""}column lengths), each with the code of spec/errors.md.`
        : `Format-version-${format} datasets with damaged bytes (truncation, bit flips and out-of-range values in headers and offsets, unreadable JSON, missing files), each with the code of spec/errors.md.`,
    cases,
  };
}

/** Every generated set, in a fixed order. */
export function describeSets(): SetDescription[] {
  return [validSet(1), brokenSet(1, "invalid"), brokenSet(1, "malformed"), validSet(2), brokenSet(2, "invalid"), brokenSet(2, "malformed")];
}
