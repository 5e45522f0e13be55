/**
 * Fuzzing of every bcolz-ts parser and decoder. The command is `pnpm fuzz` (see README.md);
 * this entry point exposes the pieces for tests and for new targets.
 *
 * @example
 * ```ts
 * import { TARGETS } from "@fmt/fuzz";
 * console.log(TARGETS.map((t) => t.name));
 * ```
 * @packageDocumentation
 */
export { Rng, inputRng } from "./rng.js";
export { SINGLE, single, singleBytes, inputSize, toEntries } from "./input.js";
export type { FuzzInput } from "./input.js";
export { mutateBytes, mutateOnce, tokens } from "./mutate.js";
export type { MutateOptions } from "./mutate.js";
export { classifyError, isFinding, signature } from "./outcome.js";
export type { Outcome, OutcomeKind } from "./outcome.js";
export { minimizeInput } from "./minimize.js";
export type { Minimized } from "./minimize.js";
export type { Corpus, CorpusChunk, CorpusDataset, CorpusFile, FuzzTarget } from "./target.js";
export { TARGETS, findTarget } from "./targets/index.js";
