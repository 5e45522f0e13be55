/**
 * Loads the seed material of the fuzz targets from a corpus directory on disk
 * (conformance/corpus): datasets, their chunks, blpk files and metadata files.
 *
 * @example
 * ```ts
 * const corpus = loadCorpus("conformance/corpus");
 * console.log(corpus.chunks.length);
 * ```
 * @packageDocumentation
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import type { Corpus, CorpusChunk, CorpusDataset, CorpusFile } from "./target.js";

const CODEC_BY_FORMAT: readonly CorpusChunk["codec"][] = ["blosclz", "lz4", "snappy", "zlib", "zstd"];

function isDatasetRoot(dir: string): boolean {
  return existsSync(join(dir, "__rootdirs__")) || existsSync(join(dir, "meta", "sizes"));
}

function filesUnder(dir: string, base: string, out: Map<string, Uint8Array>): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path);
    if (stat.isDirectory()) filesUnder(path, base, out);
    else if (stat.isFile()) out.set(relative(base, path).split("\\").join("/"), new Uint8Array(readFileSync(path)));
  }
}

function findDatasets(dir: string, root: string, out: CorpusDataset[]): void {
  if (isDatasetRoot(dir)) {
    const files = new Map<string, Uint8Array>();
    filesUnder(dir, dir, files);
    let size = 0;
    for (const b of files.values()) size += b.length;
    out.push({ path: relative(root, dir), files, size });
    return;
  }
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) findDatasets(path, root, out);
  }
}

/**
 * Reads every dataset under `corpusDir/v1` and the raw chunks under `corpusDir/regressions/blosc`.
 *
 * @example
 * ```ts
 * const { datasets } = loadCorpus("/work/main/conformance/corpus");
 * ```
 */
export function loadCorpus(corpusDir: string): Corpus {
  const datasets: CorpusDataset[] = [];
  findDatasets(join(corpusDir, "v1"), corpusDir, datasets);
  const corpus: Corpus = { datasets, chunks: [], blpkFiles: [], metaFiles: { sizes: [], storage: [], attrs: [], rootdirs: [] }, regressionChunks: [] };
  const decoder = new TextDecoder();
  for (const dataset of datasets) {
    // Column directories of a ctable carry their own storage: find the codec per directory.
    const lz4hcDirs = new Set<string>();
    for (const [key, bytes] of dataset.files) {
      const file: CorpusFile = { path: `${dataset.path}/${key}`, bytes };
      const name = key.split("/").pop()!;
      if (key.endsWith("meta/storage")) {
        corpus.metaFiles.storage.push(file);
        if (decoder.decode(bytes).includes('"lz4hc"')) lz4hcDirs.add(key.slice(0, -"meta/storage".length));
      } else if (key.endsWith("meta/sizes")) corpus.metaFiles.sizes.push(file);
      else if (name === "__attrs__") corpus.metaFiles.attrs.push(file);
      else if (name === "__rootdirs__") corpus.metaFiles.rootdirs.push(file);
    }
    for (const [key, bytes] of dataset.files) {
      if (!/__\d+\.blp$/.test(key) || bytes.length < 32) continue;
      corpus.blpkFiles.push({ path: `${dataset.path}/${key}`, bytes });
      const chunk = bytes.subarray(16);
      const format = CODEC_BY_FORMAT[(chunk[2]! >> 5) & 7];
      if (format === undefined) continue;
      const dir = key.slice(0, key.indexOf("data/"));
      const codec = format === "lz4" && lz4hcDirs.has(dir) ? "lz4hc" : format;
      corpus.chunks.push({ path: `${dataset.path}/${key}`, bytes: chunk, codec });
    }
  }
  const regressions = join(corpusDir, "regressions", "blosc");
  if (existsSync(regressions)) {
    for (const name of readdirSync(regressions).sort()) {
      if (name.endsWith(".bin")) corpus.regressionChunks.push({ path: `regressions/blosc/${name}`, bytes: new Uint8Array(readFileSync(join(regressions, name))) });
    }
  }
  return corpus;
}
