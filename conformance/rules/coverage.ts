/**
 * Rule coverage of the conformance corpus (spec/conformance.md §2.3).
 *
 * Extracts every MUST / MUST NOT of spec/v1.md, spec/v2.md and spec/errors.md with the rule id
 * tagged after it, collects the rule ids the corpus manifests name (`rules` for the read case,
 * `write_rules` for the runner's write check of the case) and the tests named in
 * `pinned-elsewhere.json`, and renders conformance/COVERAGE.md. `node conformance/rules/generate.mjs`
 * rewrites the file; conformance/rules/coverage.test.ts fails when a rule has no pin, a manifest
 * names an unknown rule, or the committed file is out of date.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The spec documents whose MUSTs are rules, with the prefix of their rule ids. */
export const RULE_DOCUMENTS = [
  { file: "v1.md", prefix: "v1" },
  { file: "v2.md", prefix: "v2" },
  { file: "errors.md", prefix: "err" },
] as const;

/** One rule: an id defined by a tag in a spec document. */
export interface Rule {
  /** The id, e.g. `v1-4.3-1`. */
  id: string;
  /** The document, e.g. `v1.md`. */
  file: string;
  /** 1-based line of the tag. */
  line: number;
  /** The section the tag is in (`4.3`, or the heading text where the heading has no number). */
  section: string;
  /** The requirement: the text before the tag back to the previous tag or block boundary. */
  text: string;
}

/** A problem of the spec's tagging. */
export interface SpecProblem {
  file: string;
  line: number;
  message: string;
}

/** The result of reading the spec documents. */
export interface SpecRules {
  rules: Rule[];
  /** MUSTs marked `<!-- not-a-rule: … -->`, with the reason. */
  notRules: { file: string; line: number; reason: string }[];
  /** References `<a href="…#id">` that restate a rule elsewhere. */
  references: { file: string; line: number; id: string }[];
  problems: SpecProblem[];
}

const TAG = /<a (?:id="([^"]+)"|href="([^"#]*)#([^"]+)")>\[([^\]]+)\]<\/a>|<!-- not-a-rule: ([^>]*?) -->/g;
const ID = /^(v1|v2|err)-[0-9a-z_.]+-\d+$/;

function lineAt(text: string, pos: number): number {
  let n = 1;
  for (let i = 0; i < pos; i += 1) if (text.charCodeAt(i) === 10) n += 1;
  return n;
}

/** Removes the text of fenced code blocks (keeping newlines, so positions and lines stay). */
function blankCode(text: string): string {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, (block) => block.replace(/[^\n]/g, " "));
}

/** Blanks the heading lines (a MUST in a heading names the rules below it; it is not one). */
function blankHeadings(text: string): string {
  return text.replace(/^#{1,6} [^\n]*$/gm, (h) => h.replace(/[^\n]/g, " "));
}

/** Where the block containing `pos` ends: a blank line, a table cell border, a new list item. */
function blockEnd(text: string, pos: number): number {
  const re = /\n[ \t]*\n|\||\n[ \t]*(?:[-*]|\d+\.)[ \t]/g;
  re.lastIndex = pos;
  const m = re.exec(text);
  return m === null ? text.length : m.index;
}

function sectionsOf(text: string): { pos: number; section: string }[] {
  const out: { pos: number; section: string }[] = [{ pos: 0, section: "0" }];
  const plain = blankCode(text);
  for (const m of plain.matchAll(/^#{2,4} +(.*)$/gm)) {
    const head = m[1] ?? "";
    const num = /^(\d+(?:\.\d+)*)\.?\s/.exec(head);
    const code = /^`?([A-Za-z_]+)`?/.exec(head);
    out.push({ pos: m.index ?? 0, section: num?.[1] ?? (code?.[1] ?? head).toLowerCase() });
  }
  return out;
}

/** Reads the rules of the spec documents in `specDir`. */
export function extractRules(specDir: string): SpecRules {
  const result: SpecRules = { rules: [], notRules: [], references: [], problems: [] };
  const seen = new Map<string, Rule>();
  for (const doc of RULE_DOCUMENTS) {
    const raw = readFileSync(join(specDir, doc.file), "utf8");
    // code spans and escaped pipes can hold `|`, which is not a table border there
    const text = blankHeadings(blankCode(raw))
      .replace(/\\\|/g, "  ")
      .replace(/`[^`\n]*`/g, (span) => " ".repeat(span.length));
    const sections = sectionsOf(raw);
    const tags: { pos: number; end: number }[] = [];
    let previous = 0;
    for (const m of text.matchAll(TAG)) {
      const pos = m.index ?? 0;
      const end = pos + m[0].length;
      tags.push({ pos, end });
      const line = lineAt(raw, pos);
      if (m[5] !== undefined) {
        result.notRules.push({ file: doc.file, line, reason: m[5] });
      } else {
        const [, defined, target, referenced, shown] = m;
        const id = defined ?? referenced;
        if (id === undefined || shown !== id || !ID.test(id)) {
          result.problems.push({ file: doc.file, line, message: `malformed rule tag ${m[0]}` });
        } else if (defined === undefined) {
          result.references.push({ file: target || doc.file, line, id });
        } else {
          if (!id.startsWith(`${doc.prefix}-`)) result.problems.push({ file: doc.file, line, message: `rule ${id} in ${doc.file} must start with ${doc.prefix}-` });
          const section = [...sections].reverse().find((s) => s.pos <= pos)?.section ?? "0";
          const item = [...text.slice(0, pos).matchAll(/\n[ \t]*(?:[-*]|\d+\.)[ \t]/g)].pop();
          let start = Math.max(previous, text.lastIndexOf("\n\n", pos) + 1, text.lastIndexOf("|", pos - 1) + 1, item === undefined ? 0 : (item.index ?? 0) + 1);
          // from the sentence that holds the first MUST
          const firstMust = text.indexOf("MUST", start);
          if (firstMust >= 0 && firstMust < pos) {
            const ends = [...text.slice(start, firstMust).matchAll(/[.;]\s+(?=[A-Z`*(])/g)].pop();
            if (ends !== undefined) start += (ends.index ?? 0) + ends[0].length;
          }
          const body = raw
            .slice(start, pos)
            .replace(/<a (?:id|href)="[^"]*">\[[^\]]*\]<\/a>/g, "")
            .replace(/\s+/g, " ")
            .replace(/^[\s\-*\d.]+(?=\S)/, "")
            .trim();
          const rule: Rule = { id, file: doc.file, line, section, text: body };
          if (seen.has(id)) result.problems.push({ file: doc.file, line, message: `rule ${id} defined twice (also line ${seen.get(id)?.line ?? "?"})` });
          seen.set(id, rule);
          result.rules.push(rule);
        }
      }
      previous = end;
    }
    // every MUST needs a tag after it, inside its block
    for (const m of text.matchAll(/\bMUST\b/g)) {
      const pos = m.index ?? 0;
      const next = tags.find((t) => t.pos > pos);
      if (next === undefined || next.pos > blockEnd(text, pos)) {
        result.problems.push({ file: doc.file, line: lineAt(raw, pos), message: `MUST without a rule tag: ${raw.slice(Math.max(0, pos - 60), pos + 40).replace(/\s+/g, " ")}` });
      }
    }
  }
  for (const ref of result.references) {
    if (!seen.has(ref.id)) result.problems.push({ file: ref.file, line: ref.line, message: `reference to unknown rule ${ref.id}` });
  }
  return result;
}

/** One thing that pins a rule. */
export interface Pin {
  /** `read` (a corpus case), `write` (the write check of a corpus case) or `test` (a named test). */
  how: "read" | "write" | "test";
  /** `v1/set/case`, or for a test `path › name`. */
  what: string;
}

/** A test elsewhere in the repository that pins rules the corpus cannot (writer behaviour, limits). */
export interface ElsewherePin {
  /** The test file, relative to the repository root. */
  test: string;
  /** The test's name, as written in the file (the check looks for it there). */
  name: string;
  /** Why no corpus case can pin the rule. */
  why: string;
}

/** Pins and problems found in the manifests and in pinned-elsewhere.json. */
export interface Pins {
  pins: Map<string, Pin[]>;
  problems: string[];
}

/** Collects the rule ids named by every manifest of `corpusDir` and by `elsewhereFile`. */
export function collectPins(repoRoot: string, corpusDir: string, elsewhereFile: string, known: Set<string>): Pins {
  const pins = new Map<string, Pin[]>();
  const problems: string[] = [];
  const add = (id: string, pin: Pin): void => {
    if (!known.has(id)) problems.push(`${pin.what}: unknown rule ${id}`);
    pins.set(id, [...(pins.get(id) ?? []), pin]);
  };
  for (const version of readdirSync(corpusDir).filter((d) => /^v\d+$/.test(d)).sort()) {
    for (const set of readdirSync(join(corpusDir, version)).sort()) {
      const manifest = join(corpusDir, version, set, "manifest.json");
      if (!existsSync(manifest)) continue;
      const cases = (JSON.parse(readFileSync(manifest, "utf8")) as { cases: Record<string, unknown>[] }).cases;
      for (const c of cases) {
        const what = `${version}/${set}/${String(c.name)}`;
        const rules = c.rules;
        if (!Array.isArray(rules) || rules.length === 0) problems.push(`${what}: no rules`);
        for (const id of Array.isArray(rules) ? rules : []) add(String(id), { how: "read", what });
        const writeRules = c.write_rules;
        if (writeRules !== undefined && (c.expect !== undefined || c.derived_from !== undefined))
          problems.push(`${what}: write_rules on a case the write check leaves out`);
        for (const id of Array.isArray(writeRules) ? writeRules : []) add(String(id), { how: "write", what });
      }
    }
  }
  const elsewhere = JSON.parse(readFileSync(elsewhereFile, "utf8")) as Record<string, ElsewherePin[]>;
  for (const [id, tests] of Object.entries(elsewhere)) {
    if (id.startsWith("$")) continue;
    for (const t of tests) {
      const path = join(repoRoot, t.test);
      if (!existsSync(path)) problems.push(`pinned-elsewhere.json: ${id}: ${t.test} does not exist`);
      else if (!readFileSync(path, "utf8").includes(t.name)) problems.push(`pinned-elsewhere.json: ${id}: ${t.test} has no test named ${JSON.stringify(t.name)}`);
      add(id, { how: "test", what: `${t.test} › ${t.name}` });
    }
  }
  return { pins, problems };
}

const escapeCell = (s: string): string => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

function shorten(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1).trimEnd()}…`;
}

function listPins(pins: Pin[], how: Pin["how"], max: number): string {
  const of = pins.filter((p) => p.how === how).map((p) => p.what);
  if (of.length === 0) return "";
  const shown = of.slice(0, max).map((w) => `\`${w}\``).join(", ");
  return of.length > max ? `${shown} and ${of.length - max} more` : shown;
}

/** Renders COVERAGE.md. */
export function renderCoverage(spec: SpecRules, pins: Pins): string {
  const lines: string[] = [];
  const pinned = spec.rules.filter((r) => (pins.pins.get(r.id) ?? []).length > 0);
  lines.push("# Rule coverage of the conformance suite");
  lines.push("");
  lines.push("Generated by `node conformance/rules/generate.mjs` from the rule tags of `spec/v1.md`, `spec/v2.md`");
  lines.push("and `spec/errors.md` (convention: `spec/conformance.md` §2.3) and from the `rules` and `write_rules` of every");
  lines.push("corpus manifest and `conformance/rules/pinned-elsewhere.json`. Do not edit by hand;");
  lines.push("`conformance/rules/coverage.test.ts` fails when this file is stale or a rule is unpinned.");
  lines.push("");
  lines.push(`Rules: ${spec.rules.length}; pinned: ${pinned.length}; unpinned: ${spec.rules.length - pinned.length}.`);
  lines.push("");
  lines.push("Columns: **read** = corpus cases whose read pins the rule (first five named); **write** = corpus cases whose");
  lines.push("write check (spec/conformance.md §1.3) pins it; **tests** = named tests outside the corpus.");
  for (const doc of RULE_DOCUMENTS) {
    const rules = spec.rules.filter((r) => r.file === doc.file);
    lines.push("");
    lines.push(`## ${doc.file}`);
    lines.push("");
    lines.push("| rule | § | requirement | read | write | tests |");
    lines.push("|---|---|---|---|---|---|");
    for (const r of rules) {
      const p = pins.pins.get(r.id) ?? [];
      const reads = p.filter((x) => x.how === "read").length;
      const writes = p.filter((x) => x.how === "write").length;
      const readCell = reads === 0 ? "—" : `${reads}: ${listPins(p, "read", 5)}`;
      const writeCell = writes === 0 ? "—" : `${writes}: ${listPins(p, "write", 3)}`;
      const testCell = listPins(p, "test", 10) || "—";
      lines.push(`| [${r.id}](../spec/${r.file}#${r.id}) | ${r.section} | ${escapeCell(shorten(r.text, 160))} | ${escapeCell(readCell)} | ${escapeCell(writeCell)} | ${escapeCell(testCell)} |`);
    }
  }
  if (spec.notRules.length > 0) {
    lines.push("");
    lines.push("## MUSTs that are not rules");
    lines.push("");
    for (const n of spec.notRules) lines.push(`- ${n.file} line ${n.line}: ${n.reason}`);
  }
  if (spec.references.length > 0) {
    lines.push("");
    lines.push("## Restatements");
    lines.push("");
    lines.push("MUSTs that repeat a rule stated elsewhere and carry a link to it instead of an id of their own:");
    lines.push("");
    for (const r of spec.references) lines.push(`- ${r.file} line ${r.line} → ${r.id}`);
  }
  lines.push("");
  return lines.join("\n");
}

/** Everything the check needs, from the repository root. */
export function coverage(repoRoot: string): { spec: SpecRules; pins: Pins; markdown: string; unpinned: Rule[] } {
  const spec = extractRules(join(repoRoot, "spec"));
  const known = new Set(spec.rules.map((r) => r.id));
  const pins = collectPins(repoRoot, join(repoRoot, "conformance/corpus"), join(repoRoot, "conformance/rules/pinned-elsewhere.json"), known);
  const unpinned = spec.rules.filter((r) => (pins.pins.get(r.id) ?? []).length === 0);
  return { spec, pins, markdown: renderCoverage(spec, pins), unpinned };
}
