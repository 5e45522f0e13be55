// Starts a real S3-protocol server (s3rver, from npm) in a child process on loopback with a
// fresh directory and one bucket, and builds clients for it. Tests call `startS3Server` in
// beforeAll and `stop` in afterAll.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { S3Client } from "@aws-sdk/client-s3";

/** The test bucket every server starts with. */
export const TEST_BUCKET = "bcolz-test";

/** A running s3rver. */
export interface S3Server {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  port: number;
  /** Stops the server process and removes its directory. */
  stop(): Promise<void>;
}

/** Starts s3rver on 127.0.0.1 on a free port with the bucket {@link TEST_BUCKET}. */
export async function startS3Server(): Promise<S3Server> {
  const directory = mkdtempSync(join(tmpdir(), "s3rver-"));
  // "../src/" works both from src/ and from a bundle in artifacts/ (the bench).
  const main = fileURLToPath(new URL("../src/s3rver-main.mjs", import.meta.url));
  const child = spawn(process.execPath, ["--openssl-legacy-provider", main, directory, TEST_BUCKET], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const line = out.split("\n")[0];
      if (out.includes("\n") && line !== undefined) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once("exit", (code) => reject(new Error(`s3rver exited with ${code} before listening`)));
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    async stop() {
      child.kill("SIGTERM");
      // s3rver's close waits for requests in flight; a test that left one open must not hang
      // the suite's teardown.
      const kill = setTimeout(() => {
        console.warn(`s3rver (pid ${child.pid}) had not stopped 5 s after SIGTERM: killed`);
        child.kill("SIGKILL");
      }, 5_000);
      await exited;
      clearTimeout(kill);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Client configuration for a loopback endpoint (s3rver accepts these fixed credentials). */
export function clientConfig(endpoint: string) {
  return {
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
  };
}

/** An SDK client for `endpoint` with the SDK's own retries off (the store retries). */
export function makeClient(endpoint: string): S3Client {
  return new S3Client({ ...clientConfig(endpoint), maxAttempts: 1 });
}
