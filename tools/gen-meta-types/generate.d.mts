/** Absolute path of the repository root. */
export declare const REPO_ROOT: string;
/** Absolute path of spec/schemas. */
export declare const SCHEMAS_DIR: string;
/** Absolute path of packages/meta/src/generated/schemas.ts. */
export declare const OUTPUT_FILE: string;
/** One schema file: its name and parsed content. */
export interface SchemaEntry {
  file: string;
  schema: Record<string, unknown>;
}
/** Reads every `*.schema.json` of `dir` (default spec/schemas), sorted by file name. */
export declare function loadSchemas(dir?: string): SchemaEntry[];
/** The text of packages/meta/src/generated/schemas.ts for the given schema files. */
export declare function generateSchemasModule(entries?: SchemaEntry[]): string;
