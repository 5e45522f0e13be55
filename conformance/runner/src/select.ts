/**
 * Choosing cases: `--filter` globs and the known-failures file (spec/conformance.md §4).
 */
import type { CaseResult } from "./run.js";

/**
 * A matcher for `set/case` names. `*` matches any run of characters (including `/`), `?` one
 * character; a pattern with neither matches every name that contains it.
 *
 * @example
 * ```ts
 * const match = globMatcher("bcolz-real/*ctable*");
 * match("bcolz-real/blosc114_ctable_mixed"); // true
 * globMatcher("broken/")("bcolz-broken/blpk_bad_magic"); // true (substring)
 * ```
 */
export function globMatcher(pattern: string): (name: string) => boolean {
  if (!/[*?]/.test(pattern)) return (name) => name.includes(pattern);
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  const re = new RegExp(`^${source}$`);
  return (name) => re.test(name);
}

/** One line of a known-failures file. */
export interface KnownFailure {
  operation: "read" | "write" | "where";
  /** `set/case`. */
  id: string;
}

/**
 * Parse a known-failures file. Plain text: one `set/case` per line (a read case) or
 * `write set/case` (a write check) or `where set/case` (a query case); `#` starts a comment; blank lines are ignored. A Markdown file
 * (`.md`) lists each case as a heading whose code span names it, e.g. ``## `set/case` ``, with
 * the explanation below it.
 *
 * @example
 * ```ts
 * parseKnownFailures("# unclear spec passage\nbcolz-broken/attrs_duplicate_key\nwrite bcolz-real/trim_f4\n", "known.txt");
 * // [{ operation: "read", id: "bcolz-broken/attrs_duplicate_key" }, { operation: "write", id: "bcolz-real/trim_f4" }]
 * ```
 */
export function parseKnownFailures(text: string, fileName: string): KnownFailure[] {
  const lines = fileName.toLowerCase().endsWith(".md")
    ? [...text.matchAll(/^#{1,6}\s+`([^`]+)`/gm)].map((m) => m[1]!)
    : text.split("\n").map((l) => l.replace(/#.*$/, "").trim());
  const out: KnownFailure[] = [];
  for (const line of lines) {
    if (line === "") continue;
    const m = /^(?:(read|write|where)\s+)?(\S+)$/.exec(line.trim());
    if (m === null) throw new Error(`known-failures ${fileName}: cannot read the line ${JSON.stringify(line)} (want "[read|write|where ]set/case")`);
    out.push({ operation: (m[1] as KnownFailure["operation"] | undefined) ?? "read", id: m[2]! });
  }
  return out;
}

/**
 * Apply a known-failures list: a listed case that failed or crashed becomes KNOWN (it does not
 * fail the run); a listed case that passed becomes FAIL (the list is stale). Also returns the
 * entries that matched no case that ran, for a warning.
 *
 * @example
 * ```ts
 * const { results: judged, unmatched } = applyKnownFailures(results, parseKnownFailures(text, file));
 * ```
 */
export function applyKnownFailures(results: readonly CaseResult[], known: readonly KnownFailure[]): { results: CaseResult[]; unmatched: KnownFailure[] } {
  const key = (operation: string, id: string): string => `${operation} ${id}`;
  const listed = new Set(known.map((k) => key(k.operation, k.id)));
  const seen = new Set<string>();
  const out = results.map((r): CaseResult => {
    const k = key(r.operation ?? "read", `${r.set}/${r.name}`);
    if (!listed.has(k) || r.status === "SKIP") return r;
    seen.add(k);
    if (r.status === "PASS") return { ...r, status: "FAIL", detail: "passes, but the known-failures file lists it: remove it from the list (stale entry)" };
    return { ...r, status: "KNOWN", detail: `known failure (${r.status}): ${r.detail}` };
  });
  return { results: out, unmatched: known.filter((k) => !seen.has(key(k.operation, k.id))) };
}
