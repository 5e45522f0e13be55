/**
 * Loads `@aws-sdk/client-s3`, the optional peer dependency of {@link S3Store}, once when this
 * module is imported, and hands out the SDK and the commands the store sends. Without the SDK,
 * importing this module (and so `@fmt/fs-adapters/s3`) rejects with a `UsageError` that says what
 * to install. Browser-safe: no `node:` imports.
 *
 * @internal
 * @packageDocumentation
 */

import { UsageError } from "@fmt/errors";

/** The version range of `@aws-sdk/client-s3` this store is built and tested against. */
const SDK_RANGE = "^3.1169.0";

/**
 * Whether `error` says that the package `@aws-sdk/client-s3` itself could not be found (not one of
 * its own files or dependencies, which would be a broken installation instead).
 */
function isSdkMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  const namesSdk = /@aws-sdk\/client-s3(?![\w/-])/.test(message);
  return namesSdk && (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND" || /cannot find|failed to (resolve|load)|not found/i.test(message));
}

/**
 * Loads the AWS SDK's S3 client, an optional peer dependency: `@fmt/fs-adapters` and
 * `@fmt/fs-adapters/node` never load it, so local-disk users need not install it.
 */
async function loadSdk(): Promise<typeof import("@aws-sdk/client-s3")> {
  try {
    return await import("@aws-sdk/client-s3");
  } catch (error) {
    if (!isSdkMissing(error)) throw error;
    throw new UsageError(
      "INVALID_ARGUMENT",
      `S3Store needs the AWS SDK's S3 client, which is not installed: run \`npm install @aws-sdk/client-s3@${SDK_RANGE}\` ` +
        "(an optional peer dependency of @fmt/fs-adapters, left out so that local-disk users do not pay for it)",
      { field: "@aws-sdk/client-s3", cause: error },
    );
  }
}

export const sdk = await loadSdk();
export const {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
} = sdk;
