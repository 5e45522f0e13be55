// Child process that runs s3rver (npm) on 127.0.0.1: prints {"port": N} on stdout once listening
// and stops on SIGTERM. It runs in its own process because s3rver signs list continuation tokens
// with DES, which Node's OpenSSL 3 offers only with --openssl-legacy-provider, a flag we do not
// want in the test processes themselves.
import S3rver from "s3rver";

const [directory, bucket] = process.argv.slice(2);
const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
const { port } = await server.run();
process.stdout.write(`${JSON.stringify({ port })}\n`);
process.on("SIGTERM", () => {
  server.close().then(() => process.exit(0));
});
