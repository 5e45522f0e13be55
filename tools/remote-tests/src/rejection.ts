// The StorageError a promise rejects with, for tests that then look at its code, path and fields.
import { expect } from "vitest";
import { StorageError } from "@fmt/errors";

/**
 * Awaits `promise` and returns the `StorageError` it rejects with; fails the test when it resolves
 * or rejects with anything else.
 *
 * @example
 * ```ts
 * const error = await rejection(store.get("k"));
 * expect(error.code).toBe("IO_ERROR");
 * ```
 */
export async function rejection(promise: Promise<unknown>): Promise<StorageError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(StorageError);
    return error as StorageError;
  }
  throw new Error("expected a rejection");
}
