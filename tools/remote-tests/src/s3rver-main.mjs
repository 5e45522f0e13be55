// Child process that runs s3rver (npm) on 127.0.0.1: prints {"port": N} on stdout once listening
// and stops on SIGTERM. It runs in its own process because s3rver signs list continuation tokens
// with DES, which Node's OpenSSL 3 offers only with --openssl-legacy-provider, a flag we do not
// want in the test processes themselves.
import { createHash, randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rename, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import S3rver from "s3rver";

const [directory, bucket] = process.argv.slice(2);
const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });

// s3rver answers a PUT once it has read the request body, not once the object file is written
// (its filesystem store resolves on the hashing stream's end while the file stream still runs), so
// a GET right after a PUT can see a short or empty object on a busy machine. Real S3 is
// read-after-write consistent and our stores rely on it, so each object is written whole to a
// temporary file (not listed: it lacks s3rver's object suffix) and renamed into place before the
// answer.
server.store.putObject = async function putObjectWhole(object) {
  const objectPath = this.getResourcePath(object.bucket, object.key, "object");
  await mkdir(dirname(objectPath), { recursive: true });
  const temp = `${objectPath}.${randomBytes(6).toString("hex")}.tmp`;
  const md5 = createHash("md5");
  let size = 0;
  const measure = new Transform({
    transform(chunk, _encoding, callback) {
      md5.update(chunk);
      size += chunk.length;
      callback(null, chunk);
    },
  });
  const source = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
  try {
    await pipeline(source, measure, createWriteStream(temp));
    await rename(temp, objectPath);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  const digest = md5.digest("hex");
  await this.putMetadata(object.bucket, object.key, object.metadata, digest);
  return { size, md5: digest };
};

const { port } = await server.run();
process.stdout.write(`${JSON.stringify({ port })}\n`);
process.on("SIGTERM", () => {
  // Idle keep-alive connections are closed by close(); one still sending a body would hold it for
  // Node's 300 s request timeout, so after a short grace every connection is cut.
  // Said on stderr, so that a test leaving a request open is seen rather than hidden by this.
  setTimeout(() => {
    process.stderr.write("s3rver: connections still open 1 s after SIGTERM were cut (a request left unfinished?)\n");
    server.httpServer?.closeAllConnections();
  }, 1_000).unref();
  server.close().then(() => process.exit(0));
});
