/** The placeholder canonical address of the project (see the root README). */
export declare const REPOSITORY: string;
/** Packages that may use Node built-ins anywhere. */
export declare const NODE_PACKAGES: Set<string>;
/** Problems with the file list of one tarball (paths without the `package/` prefix). */
export declare function tarballFileProblems(name: string, files: string[]): string[];
/** Problems with the package.json inside a tarball; `dir` is the package's repository directory. */
export declare function manifestProblems(dir: string, pkg: Record<string, unknown>): string[];
/** Import specifiers of a package's JavaScript entry points. */
export declare function jsEntryPoints(pkg: Record<string, unknown>): string[];
/** Entry points a browser bundle may import. */
export declare function browserEntryPoints(pkg: Record<string, unknown>): string[];
/** Entry points a Node program may import (all but the `*-web.js` ones). */
export declare function nodeEntryPoints(pkg: Record<string, unknown>): string[];
/** Node built-ins a bundle still imports or requires. */
export declare function nodeImportsIn(text: string): string[];
/** Problems for the node16-esm and bundler resolutions in `attw --format json` output. */
export declare function attwProblems(report: unknown): string[];
/** The first ```js block under a "## Example" heading. */
export declare function readmeExample(readme: string): string | undefined;
/** Publishable packages to pack for `wanted` (all when empty) plus their workspace dependencies, sorted. */
export declare function packClosure(
  manifests: { name: string; private?: boolean; dependencies?: Record<string, string>; peerDependencies?: Record<string, string> }[],
  wanted: string[],
): string[];
