/**
 * The JSON shapes of the generated corpus sets: one case description and one set, as the Python
 * builder `conformance/generators/genlib` reads them.
 */

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/** One case description, as the Python builder reads it. */
export interface CaseDescription {
  /** Case directory name. */
  name: string;
  /** The seed fast-check drew the case from. */
  seed: number;
  /** A valid dataset, or the valid base a damage is applied to. */
  dataset: JsonObject;
  /** Must-fail cases: what is damaged (kind and its parameters). */
  damage?: JsonObject;
  /** Must-fail cases: the error code of spec/errors.md. */
  expect?: string;
  /** Must-fail cases: the code's class. */
  category?: "invalid" | "malformed";
  /** Rule ids (spec/conformance.md §2.3) the read case pins. */
  rules: string[];
  /** Rule ids the runner's write check of the case pins (valid cases only). */
  write_rules?: string[];
  /** Valid cases only: one change a reader must accept, applied to the dataset of case `source`. */
  lenient?: JsonObject;
}

/** One generated set. */
export interface SetDescription {
  /** Format version, 1 or 2. */
  format: 1 | 2;
  /** Set directory name under `conformance/corpus/v<format>/`. */
  set: string;
  /** The set's seed; case `i` uses `seed + i`. */
  seed: number;
  /** Manifest notes. */
  notes: string[];
  /** The first paragraph of the set's PROVENANCE.md. */
  provenance: string;
  /** The cases, in manifest order. */
  cases: CaseDescription[];
}
