/**
 * What {@link S3Store} needs to follow redirects besides its own request loop: which HTTP statuses
 * are redirects, and the parts of an SDK command and of its HTTP request that the store's redirect
 * middleware touches. Browser-safe: no `node:` imports.
 *
 * @internal
 * @packageDocumentation
 */

export const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The part of an SDK command this store touches: its own middleware stack. */
export interface CommandWithStack {
  middlewareStack: { add(middleware: unknown, options: { step: "build" | "deserialize"; name: string; priority?: "low" }): void };
}

/** The part of an SDK HTTP request a redirect changes. */
export interface RequestLike {
  protocol: string;
  hostname: string;
  port?: number | undefined;
  path: string;
  query?: Record<string, string | string[] | null>;
  headers: Record<string, string>;
}
