// Test helper: runs the system Python (which has numpy) as an oracle, one process per batch.
import { spawnSync } from "node:child_process";
import { PyFloat, jsonObjectKeys, type JsonValue } from "../src/index.js";

export const PYTHON = "/usr/bin/python3";

/** Runs `script` with the given stdin lines; returns stdout lines. Throws on a Python error. */
export function runPython(script: string, lines: readonly string[] = []): string[] {
  const r = spawnSync(PYTHON, ["-c", script], { input: lines.join("\n") + (lines.length ? "\n" : ""), encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`python failed (${r.status}): ${r.stderr}`);
  const out = r.stdout.split("\n");
  if (out[out.length - 1] === "") out.pop();
  return out;
}

export type Tagged =
  | ["n"]
  | ["b", boolean]
  | ["s", number[]]
  | ["i", string]
  | ["f", string]
  | ["a", Tagged[]]
  | ["o", [number[], Tagged][]];

function codeUnits(s: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) out.push(s.charCodeAt(i));
  return out;
}

function floatHex(x: number): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  let hex = "";
  for (let i = 0; i < 8; i++) hex += view.getUint8(i).toString(16).padStart(2, "0");
  return hex;
}

/**
 * A transport form independent of the code under test: exact code units, exact float bits,
 * integer digits. Also a canonical form for comparing values (number vs bigint ints compare equal,
 * a non-integer plain number equals a PyFloat of the same bits).
 */
export function toTagged(v: JsonValue): Tagged {
  if (v === null) return ["n"];
  if (typeof v === "boolean") return ["b", v];
  if (typeof v === "string") return ["s", codeUnits(v)];
  if (typeof v === "bigint") return ["i", v.toString()];
  if (typeof v === "number") return Number.isSafeInteger(v) && !Object.is(v, -0) ? ["i", String(v)] : ["f", floatHex(v)];
  if (v instanceof PyFloat) return ["f", floatHex(v.value)];
  if (Array.isArray(v)) return ["a", v.map(toTagged)];
  const o = v;
  return ["o", jsonObjectKeys(o).map((k): [number[], Tagged] => [codeUnits(k), toTagged(o[k] as JsonValue)])];
}

/** Python source defining dec(tagged) -> Python value. */
export const PY_DECODE = `
import json, sys, struct
def dec(t):
    k = t[0]
    if k == 'n': return None
    if k == 'b': return t[1]
    if k == 's': return ''.join(map(chr, t[1]))
    if k == 'i': return int(t[1])
    if k == 'f': return struct.unpack('>d', bytes.fromhex(t[1]))[0]
    if k == 'a': return [dec(x) for x in t[1]]
    if k == 'o': return {''.join(map(chr, kk)): dec(v) for kk, v in t[1]}
    raise ValueError(k)
`;
