/**
 * The shape of a fuzz target. A target is one small module: how to make an input from the seed
 * material of the corpus, and what to run on it. Adding a target (a v2 structure, say) means one
 * module exporting a {@link FuzzTarget} and one line in `targets/index.ts`.
 *
 * @example
 * ```ts
 * export const myTarget: FuzzTarget = {
 *   name: "my-header",
 *   description: "v2 header parser",
 *   seeds: (corpus) => corpus.blpkFiles.map((f) => single(f.bytes)),
 *   generate: (rng, seeds) => single(mutateBytes(rng, singleBytes(rng.pick(seeds)), { dictionary: [], stack: 4 })),
 *   run: (input) => { parseV2Header(singleBytes(input)); },
 * };
 * ```
 * @packageDocumentation
 */
import type { FuzzInput } from "./input.js";
import type { Rng } from "./rng.js";

/**
 * A file of the corpus, with the corpus-relative path it came from.
 *
 * @example
 * ```ts
 * const file: CorpusFile = { path: "v1/bcolz-real/x/data.bcolz/meta/sizes", bytes: new Uint8Array(0) };
 * ```
 */
export interface CorpusFile {
  path: string;
  bytes: Uint8Array;
}

/**
 * A Blosc chunk from a real `.blp` file (the blpk header removed) and the codec it was written with.
 *
 * @example
 * ```ts
 * corpus.chunks.filter((c) => c.codec === "zstd");
 * ```
 */
export interface CorpusChunk extends CorpusFile {
  codec: "blosclz" | "lz4" | "lz4hc" | "snappy" | "zlib" | "zstd";
}

/**
 * A whole dataset directory: store keys relative to its root.
 *
 * @example
 * ```ts
 * const store = new MemoryStore(dataset.files);
 * ```
 */
export interface CorpusDataset {
  path: string;
  files: Map<string, Uint8Array>;
  /** Total bytes of its files. */
  size: number;
}

/**
 * The seed material every target draws from, loaded once per worker.
 *
 * @example
 * ```ts
 * const sizes = corpus.metaFiles.sizes;
 * ```
 */
export interface Corpus {
  datasets: CorpusDataset[];
  chunks: CorpusChunk[];
  blpkFiles: CorpusFile[];
  metaFiles: { sizes: CorpusFile[]; storage: CorpusFile[]; attrs: CorpusFile[]; rootdirs: CorpusFile[] };
  /** Regression inputs that once broke a decoder (raw Blosc chunks). */
  regressionChunks: CorpusFile[];
}

/**
 * One fuzz target.
 *
 * @example
 * ```ts
 * const outcome = await target.run(target.generate(inputRng(1, target.name, 0), seeds));
 * ```
 */
export interface FuzzTarget {
  /** Name used by `--target` and in reports. */
  name: string;
  /** One line: what the target feeds and to which function. */
  description: string;
  /** Per-input time limit in ms for this target when the caller sets none. Default 2000. */
  timeoutMs?: number;
  /** Prepares the code under test once per worker (e.g. loads WebAssembly), as an application would. */
  init?(): Promise<void>;
  /** The seed inputs; must not be empty. */
  seeds(corpus: Corpus): FuzzInput[];
  /** Makes input number `index` of a run: `rng` is that input's own generator. */
  generate(rng: Rng, seeds: readonly FuzzInput[]): FuzzInput;
  /** Feeds the input to the code under test; throws what that code throws. */
  run(input: FuzzInput): void | Promise<void>;
}
