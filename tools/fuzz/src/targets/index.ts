/**
 * The registry of fuzz targets. A new target (for example a v2 structure) is one module
 * exporting a {@link FuzzTarget} plus one entry here.
 *
 * @example
 * ```ts
 * import { TARGETS } from "./targets/index.js";
 * console.log(TARGETS.map((t) => t.name).join(", "));
 * ```
 * @packageDocumentation
 */
import type { FuzzTarget } from "../target.js";
import { codecTargets } from "./codecs.js";
import { datasetTarget } from "./dataset.js";
import { expressionTarget } from "./expression.js";
import { blpkHeaderTarget, chunkHeaderTarget } from "./headers.js";
import { dtypeTarget, metaTargets } from "./meta.js";
import { v2Targets } from "./v2.js";

/**
 * Every target, in report order.
 *
 * @example
 * ```ts
 * const target = TARGETS.find((t) => t.name === "dtype");
 * ```
 */
export const TARGETS: readonly FuzzTarget[] = [blpkHeaderTarget, chunkHeaderTarget, ...codecTargets, ...metaTargets, dtypeTarget, expressionTarget, datasetTarget, ...v2Targets];

/**
 * The target of a name, or undefined.
 *
 * @example
 * ```ts
 * findTarget("codec-zstd")?.description;
 * ```
 */
export function findTarget(name: string): FuzzTarget | undefined {
  return TARGETS.find((t) => t.name === name);
}
