// The error a promise rejects with, for tests that look at it beyond its type.
import { expect } from "vitest";
import { StorageError } from "@fmt/errors";

/**
 * Awaits `promise` and returns what it rejected with; throws if it resolved.
 *
 * @example
 * ```ts
 * const error = await rejection(store.get("k"));
 * expect(error).toMatchObject({ code: "IO_ERROR" });
 * ```
 */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

/**
 * {@link rejection}, for a promise that must reject with a `StorageError` (the test fails
 * otherwise), whose code, path and fields the test then reads.
 *
 * @example
 * ```ts
 * const error = await storageRejection(store.get("k"));
 * expect(error.code).toBe("IO_ERROR");
 * ```
 */
export async function storageRejection(promise: Promise<unknown>): Promise<StorageError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(StorageError);
  return error as StorageError;
}
