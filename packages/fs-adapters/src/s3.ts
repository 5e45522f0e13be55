/**
 * {@link S3Store}: a {@link WritableStore} over an S3-compatible bucket (AWS S3, MinIO, Ceph RGW,
 * Cloudflare R2, GCS interoperability) through `@aws-sdk/client-s3`. Import it from
 * `@fmt/fs-adapters/s3`. Browser-safe: no `node:` imports of its own.
 *
 * `@aws-sdk/client-s3` is an optional peer dependency of `@fmt/fs-adapters`: install it next to
 * this package to use the S3 store (`npm install @aws-sdk/client-s3`). Only this entry point loads
 * it; without it, importing this module rejects with a `UsageError` (`INVALID_ARGUMENT`, field
 * `@aws-sdk/client-s3`) that says what to install.
 *
 * @example
 * ```ts
 * import { S3Store } from "@fmt/fs-adapters/s3";
 * import { open } from "@fmt/store";
 * const store = new S3Store({ client: { region: "eu-west-1" }, bucket: "my-data", prefix: "bcolz/" });
 * const prices = await open(store, "prices.bcolz");
 * ```
 * @packageDocumentation
 */

export { S3Store } from "./s3-store.js";
export type { ConditionalCreate, S3RedirectOptions, S3StoreOptions } from "./s3-options.js";
export type { ByteRange, PutOptions, ReadableStore, WritableStore } from "./index.js";
export { DEFAULT_REMOTE_CONCURRENCY, DEFAULT_S3_RANGE_REQUEST_BYTES, RemoteStats } from "./remote.js";
export type { BodyLimits, RetryOptions } from "./remote.js";
