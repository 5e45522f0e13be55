/**
 * Python's JSON dialect (spec/v1.md §9.2), gathered from its modules: the values
 * (`json-value.ts`), the parser (`json-parse.ts`), the writer (`json-stringify.ts`), Python's float
 * `repr` (`float-repr.ts`) and JSON pointers (`json-pointer.ts`).
 *
 * @example
 * ```ts
 * import { parsePythonJson, stringifyPythonJson } from "./json.js";
 * stringifyPythonJson(parsePythonJson(text)) === text; // for every metadata file bcolz wrote
 * ```
 * @module
 */
export { PyFloat, pyFloat, createJsonObject, jsonObjectKeys, type JsonObject, type JsonValue } from "./json-value.js";
export { parsePythonJson, DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_JSON_LENGTH, type ParseJsonOptions } from "./json-parse.js";
export { stringifyPythonJson, pythonJsonString } from "./json-stringify.js";
export { pythonFloatRepr } from "./float-repr.js";
export { jsonPointer } from "./json-pointer.js";
