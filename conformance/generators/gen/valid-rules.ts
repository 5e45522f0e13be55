/**
 * The spec rule ids (spec/conformance.md §2.3) a valid generated case pins: by being read, from its
 * parameters, and by the runner's write check.
 */
import type { JsonObject } from "./types.js";

// ------------------------------------------------------------------------------ valid cases

/** Rules a valid format-1 case pins by being read, from its parameters. */
export function v1ReadRules(d: JsonObject): string[] {
  const rules = new Set<string>(["v1-3.1-2", "v1-4.1-1", "v1-13-1"]);
  const arrays = d.kind === "ctable" ? (d.columns as JsonObject[]) : [d];
  for (const a of arrays) addCodecRules(a, rules);
  if (d.kind === "ctable") rules.add("v1-12.3-1");
  if (arrays.some((a) => (a.shape as number[])[0] === 0)) rules.add("v1-3.1-1");
  return [...rules].sort();
}

function addCodecRules(a: JsonObject, rules: Set<string>): void {
  const cp = a.cparams as JsonObject;
  const dtype = String(a.dtype ?? "");
  if (dtype.startsWith(">")) rules.add("v1-13-2");
  if (cp.clevel === 0) rules.add("v1-5.5-1");
  else {
    rules.add("v1-5.5-2");
    rules.add("v1-7-1");
    if (cp.cname === "blosclz") rules.add("v1-6-1");
    if (cp.cname === "snappy") rules.add("v1-7.2-2");
    if (cp.cname === "zstd") rules.add("v1-7.4-1");
  }
  rules.add("v1-11.1-1");
}

export const V1_WRITE_RULES = ["v1-14-1", "v1-11.1-2", "v1-11.1-3", "v1-9.2-1", "v1-12.1-1", "v1-14-3"];
export const V2_WRITE_RULES = ["v2-3.3-1", "v2-5-1", "v2-10.1-1", "v1-9.2-1"];

export function v2ReadRules(d: JsonObject): string[] {
  const rules = new Set<string>(["v2-3.1-1", "v2-3.2-1", "v2-6-1", "v2-10.2-1", "v2-10.4-1", "v1-13-1"]);
  const visit = (a: JsonObject): void => {
    if (typeof a.spare === "number" && a.spare > 0) rules.add("v2-7.3-1");
    if (a.kind === "ctable") {
      rules.add("v2-11-1");
      rules.add("v2-11-2");
      for (const c of a.columns as JsonObject[]) visit(c);
      return;
    }
    if (a.kind === "vlarray") {
      rules.add("v2-12-1");
      rules.add("v2-12-2");
      rules.add("v2-12-3");
      rules.add("v2-15.1-1");
      if (a.vtype === "utf8") rules.add("v2-12-4");
    }
    addCodecRules(a, rules);
  };
  visit(d);
  return [...rules].sort();
}
