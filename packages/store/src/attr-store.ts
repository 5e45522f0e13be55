// The user attributes of a dataset (`__attrs__`): read by every array and table, rewritten
// through whatever writer owns the dataset.
import { UsageError } from "@fmt/errors";
import { createJsonObject, jsonObjectKeys } from "@fmt/meta";
import type { JsonObject, JsonValue } from "@fmt/meta";

/**
 * What an {@link AttrStore} needs from the dataset that owns it: a way to replace `__attrs__`.
 * A carray's writer and a ctable both provide it.
 *
 * @example
 * ```ts
 * const writer: AttrsWriter = { writeAttrs: async (value) => store.put("__attrs__", encodeMetadata(serializeAttrs(value))) };
 * ```
 */
export interface AttrsWriter {
  /** Replace the attributes file with `value`, atomically. */
  writeAttrs(value: JsonObject): Promise<void>;
}

/**
 * The user attributes of a carray (its `__attrs__` file). Reading works on every array;
 * `set`/`delete` rewrite `__attrs__` at once and need an array open for writing (else
 * `UsageError` `READ_ONLY`). `toJSON()`/`valueOf()` give a plain ordered object.
 *
 * @example
 * ```ts
 * await a.attrs.set("units", "m/s");
 * a.attrs.get("units");   // "m/s"
 * a.attrs.keys();         // ["units"]
 * await a.attrs.delete("units");
 * ```
 */
export class AttrStore {
  #data: JsonObject;
  readonly #path: string;
  readonly #writer: () => AttrsWriter | undefined;

  /** @internal */
  constructor(initial: { [key: string]: JsonValue }, path: string, writer: () => AttrsWriter | undefined) {
    this.#data = initial;
    this.#path = path;
    this.#writer = writer;
  }

  /**
   * The value of attribute `key`, or `undefined`.
   *
   * @example
   * ```ts
   * a.attrs.get("units");
   * ```
   */
  get(key: string): JsonValue | undefined {
    return Object.prototype.hasOwnProperty.call(this.#data, key) ? this.#data[key] : undefined;
  }

  /**
   * Whether attribute `key` exists.
   *
   * @example
   * ```ts
   * a.attrs.has("units");
   * ```
   */
  has(key: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.#data, key);
  }

  /**
   * Attribute names in file order.
   *
   * @example
   * ```ts
   * for (const k of a.attrs.keys()) console.log(k, a.attrs.get(k));
   * ```
   */
  keys(): string[] {
    return jsonObjectKeys(this.#data);
  }

  /**
   * Sets attribute `key` (kept in insertion order) and rewrites `__attrs__`.
   *
   * @example
   * ```ts
   * await a.attrs.set("scale", pyFloat(0.5));
   * ```
   */
  async set(key: string, value: JsonValue): Promise<void> {
    if (typeof key !== "string") throw new UsageError("INVALID_ARGUMENT", "attribute names are strings", { path: this.#path, field: "key", actual: key });
    const writer = this.#require();
    const next = createJsonObject([...this.keys().map((k) => [k, this.#data[k]!] as [string, JsonValue]), [key, value]]);
    await writer.writeAttrs(next);
    this.#data = next;
  }

  /**
   * Removes attribute `key` (no error if absent) and rewrites `__attrs__`.
   *
   * @example
   * ```ts
   * await a.attrs.delete("scale");
   * ```
   */
  async delete(key: string): Promise<void> {
    const writer = this.#require();
    const next = createJsonObject(this.keys().filter((k) => k !== key).map((k) => [k, this.#data[k]!] as [string, JsonValue]));
    await writer.writeAttrs(next);
    this.#data = next;
  }

  /**
   * The attributes as a plain ordered JSON object (what `__attrs__` holds).
   *
   * @example
   * ```ts
   * JSON.stringify(a.attrs); // uses toJSON
   * ```
   */
  toJSON(): JsonObject {
    return this.#data;
  }

  /**
   * Same as {@link AttrStore.toJSON}.
   *
   * @example
   * ```ts
   * const plain = a.attrs.valueOf();
   * ```
   */
  valueOf(): JsonObject {
    return this.#data;
  }

  #require(): AttrsWriter {
    const writer = this.#writer();
    if (writer === undefined) throw new UsageError("READ_ONLY", "attributes of a read-only array cannot change", { path: this.#path, field: "mode", expected: "a", actual: "r" });
    return writer;
  }
}
