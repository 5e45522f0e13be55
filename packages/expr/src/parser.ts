// The recursive-descent parser: expression text (through the tokenizer) to an ExpressionNode
// tree, with source spans for positioned errors and limits on nesting. Separate from the
// formatter and the compiler, which only consume trees.
import { UsageError } from "@fmt/errors";
import { COMPARE_OPERATORS, KEYWORDS } from "./ast.js";
import type { ArithmeticOperator, CompareOperator, ExpressionNode } from "./ast.js";
import { EXPRESSION_LIMITS, Tokenizer, expressionError } from "./tokenizer.js";
import type { Token } from "./tokenizer.js";

class Parser {
  readonly tokens: Tokenizer;
  readonly text: string;
  token: Token;
  depth = 0;
  readonly heights = new WeakMap<ExpressionNode, number>();

  constructor(text: string) {
    this.text = text;
    this.tokens = new Tokenizer(text);
    this.token = this.tokens.next();
  }

  advance(): Token {
    const t = this.token;
    this.token = this.tokens.next();
    return t;
  }

  isOperator(text: string): boolean {
    return this.token.kind === "operator" && this.token.text === text;
  }

  isWord(word: string): boolean {
    return this.token.kind === "identifier" && this.token.quoted !== true && this.token.text === word;
  }

  fail(token: Token, reason: string, expected: string): never {
    throw expressionError(this.text, token.start, token.end, reason, expected);
  }

  unexpected(expected: string): never {
    const t = this.token;
    if (t.kind === "end") this.fail(t, "unexpected end of expression", expected);
    this.fail(t, `unexpected ${JSON.stringify(t.kind === "identifier" && t.quoted === true ? `\`${t.text}\`` : this.text.slice(t.start, t.end))}`, expected);
  }

  enter(token: Token): void {
    if (++this.depth > EXPRESSION_LIMITS.maxDepth) this.fail(token, "expression nested too deeply", `at most ${EXPRESSION_LIMITS.maxDepth} levels of nesting`);
  }

  /** Records the height of a new node and refuses trees taller than the limit. */
  node<N extends ExpressionNode>(node: N, children: ExpressionNode[], at: Token): N {
    let height = 1;
    for (const child of children) height = Math.max(height, (this.heights.get(child) ?? 1) + 1);
    if (height > EXPRESSION_LIMITS.maxDepth) this.fail(at, "expression nested too deeply", `a syntax tree at most ${EXPRESSION_LIMITS.maxDepth} levels tall`);
    this.heights.set(node, height);
    return node;
  }

  parse(): ExpressionNode {
    if (this.token.kind === "end") this.fail(this.token, "empty expression", "a condition such as price > 10");
    const node = this.or();
    const after: Token = this.token;
    if (after.kind !== "end") {
      this.unexpected(after.kind === "operator" && after.text === ")" ? 'no unmatched ")"' : "an operator (& | == < + ...) or the end of the expression");
    }
    return node;
  }

  logical(kind: "and" | "or", symbol: string, next: () => ExpressionNode): ExpressionNode {
    const first = next();
    const operands = [first];
    let opToken: Token | undefined;
    while (this.isOperator(symbol) || this.isWord(kind)) {
      const t = this.advance();
      opToken ??= t;
      operands.push(next());
    }
    if (opToken === undefined) return first;
    return this.node({ kind, operands, start: first.start, end: operands[operands.length - 1]!.end, opStart: opToken.start, opEnd: opToken.end }, operands, opToken);
  }

  or(): ExpressionNode {
    return this.logical("or", "|", () => this.and());
  }

  and(): ExpressionNode {
    return this.logical("and", "&", () => this.not());
  }

  not(): ExpressionNode {
    if (this.isOperator("~") || this.isWord("not")) {
      const t = this.advance();
      this.enter(t);
      const operand = this.not();
      this.depth--;
      return this.node({ kind: "not", operand, start: t.start, end: operand.end, opStart: t.start, opEnd: t.end }, [operand], t);
    }
    return this.comparison();
  }

  comparison(): ExpressionNode {
    const left = this.additive();
    if (this.token.kind !== "operator" || !COMPARE_OPERATORS.has(this.token.text)) return left;
    const t = this.advance();
    const right = this.additive();
    if (this.token.kind === "operator" && COMPARE_OPERATORS.has(this.token.text)) {
      this.fail(this.token, "comparisons cannot be chained", "parentheses and & between comparisons, e.g. (a < b) & (b < c)");
    }
    return this.node({ kind: "compare", op: t.text as CompareOperator, left, right, start: left.start, end: right.end, opStart: t.start, opEnd: t.end }, [left, right], t);
  }

  binary(ops: readonly string[], next: () => ExpressionNode): ExpressionNode {
    let left = next();
    while (this.token.kind === "operator" && ops.includes(this.token.text)) {
      const t = this.advance();
      const right = next();
      left = this.node({ kind: "arithmetic", op: t.text as ArithmeticOperator, left, right, start: left.start, end: right.end, opStart: t.start, opEnd: t.end }, [left, right], t);
    }
    return left;
  }

  additive(): ExpressionNode {
    return this.binary(["+", "-"], () => this.multiplicative());
  }

  multiplicative(): ExpressionNode {
    return this.binary(["*", "/", "//", "%"], () => this.unary());
  }

  unary(): ExpressionNode {
    if (this.isOperator("-") || this.isOperator("+")) {
      const t = this.advance();
      this.enter(t);
      const operand = this.unary();
      this.depth--;
      if (t.text === "+") {
        // Python's unary + turns a constant boolean into an int (+True is 1) and changes nothing
        // else; written as "* 1" for constants, which does the same, and dropped otherwise.
        if (operand.kind === "integer" || operand.kind === "float" || hasColumn(operand)) return operand;
        const one: ExpressionNode = { kind: "integer", value: 1n };
        return this.node({ kind: "arithmetic", op: "*", left: operand, right: one, start: t.start, end: operand.end, opStart: t.start, opEnd: t.end }, [operand, one], t);
      }
      // A minus directly applied to a literal is part of the literal, so that "-5" is the integer -5.
      if (operand.kind === "integer") return this.node({ kind: "integer", value: -operand.value, start: t.start, end: operand.end }, [], t);
      if (operand.kind === "float") return this.node({ kind: "float", value: -operand.value, start: t.start, end: operand.end }, [], t);
      return this.node({ kind: "negate", operand, start: t.start, end: operand.end, opStart: t.start, opEnd: t.end }, [operand], t);
    }
    return this.primary();
  }

  primary(): ExpressionNode {
    const t = this.token;
    switch (t.kind) {
      case "integer":
        this.advance();
        return this.node({ kind: "integer", value: t.integer!, start: t.start, end: t.end }, [], t);
      case "float":
        this.advance();
        return this.node({ kind: "float", value: t.float!, start: t.start, end: t.end }, [], t);
      case "string":
        this.advance();
        return this.node({ kind: "string", value: t.string!, start: t.start, end: t.end }, [], t);
      case "bytes":
        this.advance();
        return this.node({ kind: "bytes", value: t.bytes!, start: t.start, end: t.end }, [], t);
      case "identifier": {
        if (t.quoted !== true) {
          if (t.text === "true" || t.text === "True" || t.text === "false" || t.text === "False") {
            this.advance();
            return this.node({ kind: "boolean", value: t.text === "true" || t.text === "True", start: t.start, end: t.end }, [], t);
          }
          if (KEYWORDS.has(t.text)) this.unexpected("an operand (a column, a literal or a parenthesis)");
        }
        this.advance();
        return this.node({ kind: "column", name: t.text, start: t.start, end: t.end }, [], t);
      }
      case "operator":
        if (t.text === "(") {
          this.advance();
          this.enter(t);
          const inner = this.or();
          this.depth--;
          if (!this.isOperator(")")) this.unexpected('a closing ")"');
          this.advance();
          return inner;
        }
        return this.unexpected("an operand (a column, a literal or a parenthesis)");
      default:
        return this.unexpected("an operand (a column, a literal or a parenthesis)");
    }
  }
}

/** Does a tree refer to a column? (A tree without columns is a constant, folded as Python does.) */
function hasColumn(node: ExpressionNode): boolean {
  switch (node.kind) {
    case "column":
      return true;
    case "compare":
    case "arithmetic":
      return hasColumn(node.left) || hasColumn(node.right);
    case "negate":
    case "not":
      return hasColumn(node.operand);
    case "and":
    case "or":
      return node.operands.some(hasColumn);
    default:
      return false;
  }
}

/**
 * Parses an expression into its syntax tree (without checking column names or types; see
 * {@link compileExpression}).
 *
 * Grammar, loosest binding first: `|` / `or`; `&` / `and`; `~` / `not`; comparisons
 * (`== != < <= > >=`, not chainable); `+ -`; `* / // %`; unary `-` and `+`; operands. Unlike
 * Python and numexpr, comparisons bind tighter than `&`/`|`, so `a > 1 & b < 2` means
 * `(a > 1) & (b < 2)`. Unary `+` before a column-free operand other than a number literal is
 * kept as `* 1` (Python's `+true` is the integer 1); elsewhere it is dropped. Operands are column names (identifiers, or any name in backticks),
 * integer literals (any size, exact), float literals (`2.5`, `1e-3`, `.5`), string literals in
 * single or double quotes with escapes `\\ \' \" \n \r \t \0 \xNN \uNNNN \u{N}`, bytes literals
 * `b"..."` (ASCII and `\xNN`), `true`/`false`, and parenthesised expressions.
 *
 * Errors are `UsageError` `INVALID_ARGUMENT` with `field: "expression"`, `expected`, `actual`
 * = {@link ExpressionErrorLocation}, and a message that shows the text with a caret under the
 * bad token.
 *
 * @example
 * ```ts
 * const tree = parseExpression('f64 > 2906.5 & (i32 < 10 | name == "x")');
 * tree.kind; // "and"
 * ```
 */
export function parseExpression(text: string): ExpressionNode {
  if (typeof text !== "string") {
    throw new UsageError("INVALID_ARGUMENT", "expression must be a string", { field: "expression", expected: "string", actual: typeof text });
  }
  if (text.length > EXPRESSION_LIMITS.maxLength) {
    throw new UsageError("INVALID_ARGUMENT", "expression is too long", { field: "expression", expected: `at most ${EXPRESSION_LIMITS.maxLength} characters`, actual: text.length });
  }
  return new Parser(text).parse();
}
