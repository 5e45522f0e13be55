// The formatter: an ExpressionNode tree back to canonical text that the parser reads to the same
// tree. Also home of badNode, the error for a malformed hand-built tree, which the compiler
// throws too. Separate from the parser: it works on trees, including trees built by hand.
import { UsageError } from "@fmt/errors";
import { ARITHMETIC_OPERATORS, COMPARE_OPERATORS, KEYWORDS } from "./ast.js";
import type { ExpressionNode } from "./ast.js";
import { EXPRESSION_LIMITS, isIdContinue, isIdStart } from "./tokenizer.js";

const PREC_OR = 1;
const PREC_AND = 2;
const PREC_NOT = 3;
const PREC_COMPARE = 4;
const PREC_ADD = 5;
const PREC_MUL = 6;
const PREC_UNARY = 7;
const PREC_ATOM = 8;

/**
 * Options of {@link formatExpression}.
 *
 * @example
 * ```ts
 * formatExpression(tree, { words: true }); // "a > 1 and not b"
 * ```
 */
export interface FormatExpressionOptions {
  /** Write `and`/`or`/`not` instead of `&`/`|`/`~`. Default false. */
  words?: boolean;
}

function formatFloat(value: number): string {
  if (Object.is(value, -0)) return "-0.0";
  const s = String(value);
  return s.includes(".") || s.includes("e") ? s : `${s}.0`;
}

function formatString(value: string): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (code >= 0x20 && code < 0x7f) out += ch;
    else out += `\\u{${code.toString(16)}}`;
  }
  return `${out}"`;
}

function formatBytes(value: Uint8Array): string {
  let out = 'b"';
  for (const code of value) {
    if (code === 34 || code === 92) out += `\\${String.fromCharCode(code)}`;
    else if (code >= 0x20 && code < 0x7f) out += String.fromCharCode(code);
    else out += `\\x${code.toString(16).padStart(2, "0")}`;
  }
  return `${out}"`;
}

function isPlainIdentifier(name: string): boolean {
  if (name === "" || KEYWORDS.has(name)) return false;
  let first = true;
  for (const ch of name) {
    if (first ? !isIdStart(ch) : !isIdContinue(ch)) return false;
    first = false;
  }
  return true;
}

function formatColumn(name: string): string {
  if (typeof name !== "string") badNode(name, "column name must be a string");
  if (isPlainIdentifier(name)) return name;
  if (name.includes("`") || name === "") {
    throw new UsageError("INVALID_ARGUMENT", "column name cannot be written in an expression", { field: "expression", expected: "a name without backticks", actual: name });
  }
  return `\`${name}\``;
}

function precedence(node: ExpressionNode): number {
  switch (node.kind) {
    case "or":
      return PREC_OR;
    case "and":
      return PREC_AND;
    case "not":
      return PREC_NOT;
    case "compare":
      return PREC_COMPARE;
    case "arithmetic":
      return node.op === "+" || node.op === "-" ? PREC_ADD : PREC_MUL;
    case "negate":
      return PREC_UNARY;
    case "integer":
      return node.value < 0n ? PREC_UNARY : PREC_ATOM;
    case "float":
      return node.value < 0 || Object.is(node.value, -0) ? PREC_UNARY : PREC_ATOM;
    default:
      return PREC_ATOM;
  }
}

export function badNode(node: unknown, reason: string): never {
  throw new UsageError("INVALID_ARGUMENT", reason, { field: "expression", expected: "an ExpressionNode", actual: typeof node === "object" && node !== null ? (node as { kind?: unknown }).kind : node });
}

/**
 * Writes a syntax tree back as text that {@link parseExpression} reads to the same tree
 * (spans aside): minimal parentheses, canonical literals, column names in backticks when they
 * are not plain identifiers or clash with a keyword.
 *
 * @example
 * ```ts
 * formatExpression(parseExpression("(a>1)&(b<2|c==-3)")); // "a > 1 & (b < 2 | c == -3)"
 * ```
 */
export function formatExpression(node: ExpressionNode, options: FormatExpressionOptions = {}): string {
  const words = options.words === true;
  const format = (n: ExpressionNode, minPrec: number, depth: number): string => {
    if (depth > EXPRESSION_LIMITS.maxDepth) badNode(n, "expression tree is too deep");
    if (typeof n !== "object" || n === null) badNode(n, "not an expression node");
    const text = formatNode(n, depth);
    return precedence(n) < minPrec ? `(${text})` : text;
  };
  const formatNode = (n: ExpressionNode, depth: number): string => {
    switch (n.kind) {
      case "column":
        return formatColumn(n.name);
      case "integer":
        if (typeof n.value !== "bigint") badNode(n, "integer node value must be a bigint");
        return n.value.toString();
      case "float":
        if (typeof n.value !== "number" || !Number.isFinite(n.value)) badNode(n, "float node value must be a finite number");
        return formatFloat(n.value);
      case "string":
        return formatString(String(n.value));
      case "bytes":
        if (!(n.value instanceof Uint8Array)) badNode(n, "bytes node value must be a Uint8Array");
        return formatBytes(n.value);
      case "boolean":
        return n.value ? "true" : "false";
      case "compare":
        if (!COMPARE_OPERATORS.has(n.op)) badNode(n, "unknown comparison operator");
        return `${format(n.left, PREC_ADD, depth + 1)} ${n.op} ${format(n.right, PREC_ADD, depth + 1)}`;
      case "arithmetic": {
        if (!ARITHMETIC_OPERATORS.has(n.op)) badNode(n, "unknown arithmetic operator");
        const prec = n.op === "+" || n.op === "-" ? PREC_ADD : PREC_MUL;
        return `${format(n.left, prec, depth + 1)} ${n.op} ${format(n.right, prec + 1, depth + 1)}`;
      }
      case "negate": {
        const inner = format(n.operand, PREC_UNARY, depth + 1);
        // A literal operand would fold into a negative literal when read back, so it is parenthesised.
        return n.operand.kind === "integer" || n.operand.kind === "float" || inner.startsWith("-") ? `-(${inner})` : `-${inner}`;
      }
      case "not":
        return words ? `not ${format(n.operand, PREC_NOT, depth + 1)}` : `~${format(n.operand, PREC_NOT, depth + 1)}`;
      case "and":
      case "or": {
        if (!Array.isArray(n.operands) || n.operands.length < 2) badNode(n, `${n.kind} node needs at least two operands`);
        const prec = n.kind === "or" ? PREC_OR : PREC_AND;
        const sep = words ? ` ${n.kind} ` : n.kind === "or" ? " | " : " & ";
        return n.operands.map((o) => format(o, prec + 1, depth + 1)).join(sep);
      }
      default:
        return badNode(n, "unknown expression node kind");
    }
  };
  return format(node, PREC_OR, 0);
}
