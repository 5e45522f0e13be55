// The error a promise rejects with, for tests that look at it beyond its type.

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
