// Starts a throw-away single-node Ceph cluster with the RADOS Gateway (Ceph's S3 server, from the
// Debian packages radosgw, ceph-mon and ceph-osd) on loopback, for tests that need an S3 server
// which enforces conditional writes (`If-None-Match: *` on PutObject answers 412 when the key
// exists, atomically; s3rver ignores that header). Everything lives under a fresh temporary
// directory: one monitor, one OSD on the in-memory object store (pool size 1, no cephx), and
// radosgw with the beast frontend on a free 127.0.0.1 port. No systemd: the daemons are child
// processes, killed by `stop()` (and when the test process exits). Boots in about 10 s.
import { execFile, spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";

/**
 * The bucket every Ceph RGW started here has.
 *
 * @example
 * ```ts
 * const store = new S3Store({ client, bucket: CEPH_BUCKET, prefix: "t1/" });
 * ```
 */
export const CEPH_BUCKET = "bcolz-test";

/**
 * A running Ceph RADOS Gateway with one user and the bucket {@link CEPH_BUCKET}.
 *
 * @example
 * ```ts
 * const rgw: CephRgw = await startCephRgw();
 * console.log(rgw.endpoint, rgw.bootMs); // http://127.0.0.1:41589 14280
 * await rgw.stop();
 * ```
 */
export interface CephRgw {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  /** Access key of the S3 user (fixed). */
  accessKeyId: string;
  /** Secret key of the S3 user (fixed). */
  secretAccessKey: string;
  /** The bucket created at start. */
  bucket: string;
  /** Milliseconds the boot took (mon, OSD, gateway, user, bucket). */
  bootMs: number;
  /** Kills the daemons and removes the cluster's directory. */
  stop(): Promise<void>;
}

const TOOLS = ["ceph", "ceph-authtool", "monmaptool", "ceph-mon", "ceph-osd", "radosgw", "radosgw-admin"] as const;
const ACCESS_KEY = "BCOLZTESTACCESSKEY01";
const SECRET_KEY = "bcolz-test-secret-key-0123456789abcdefgh";

function onPath(tool: string): boolean {
  const dirs = (process.env.PATH ?? "").split(delimiter).concat(["/usr/bin", "/usr/sbin"]);
  return dirs.some((dir) => dir !== "" && existsSync(join(dir, tool)));
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The cluster's configuration: every path under `dir`, authentication off, one replica. */
function config(dir: string, fsid: string, monPort: number): string {
  return `[global]
fsid = ${fsid}
mon_host = v2:127.0.0.1:${monPort}
public_addr = 127.0.0.1
cluster_addr = 127.0.0.1
ms_bind_msgr1 = false
# Without cephx only the crc connection mode exists; the default for mon clients asks for secure.
ms_mon_client_mode = crc
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
run_dir = ${dir}/run
admin_socket = ${dir}/run/$name.asok
log_file = ${dir}/log/$name.log
pid_file = ${dir}/run/$name.pid
crash_dir = ${dir}/crash
keyring = ${dir}/keyring
osd_pool_default_size = 1
osd_pool_default_min_size = 1
osd_pool_default_pg_num = 1
osd_pool_default_pgp_num = 1
osd_pool_default_pg_autoscale_mode = off
mon_allow_pool_size_one = true
mon_warn_on_pool_no_redundancy = false
mon_data_avail_warn = 1
osd_crush_chooseleaf_type = 0
[mon]
mon_data = ${dir}/mon/$id
[osd]
osd_data = ${dir}/osd/$id
osd_objectstore = memstore
memstore_device_bytes = 1073741824
[client]
rgw_data = ${dir}/rgw
`;
}

/** Environment of the Ceph tools: nothing from the caller's own Ceph setup. */
function cephEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.CEPH_ARGS;
  delete env.CEPH_CONF;
  return env;
}

function run(tool: string, args: string[], timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(tool, args, { env: cephEnv(), timeout: timeoutMs, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`${tool} ${args.join(" ")} failed: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

function lastLines(file: string, n = 15): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-n).join("\n");
  } catch {
    return "(no log)";
  }
}

/**
 * Boots a single-node Ceph cluster with the RADOS Gateway on 127.0.0.1 (see the file comment),
 * creates an S3 user with fixed keys and the bucket {@link CEPH_BUCKET}. Throws a clear error when
 * the Debian packages are not installed (`tools/setup.sh` installs them).
 *
 * @example
 * ```ts
 * const rgw = await startCephRgw();
 * const client = new S3Client({ endpoint: rgw.endpoint, region: "us-east-1", forcePathStyle: true,
 *   credentials: { accessKeyId: rgw.accessKeyId, secretAccessKey: rgw.secretAccessKey } });
 * await rgw.stop();
 * ```
 */
export async function startCephRgw(): Promise<CephRgw> {
  const missing = TOOLS.filter((tool) => !onPath(tool));
  if (missing.length > 0) {
    throw new Error(
      `Ceph RADOS Gateway tests need ${missing.join(", ")}, which are not installed: run tools/setup.sh, ` +
        "or apt-get install radosgw ceph-mon ceph-osd (Debian bookworm has 16.2.15)",
    );
  }
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), "ceph-rgw-"));
  for (const sub of ["run", "log", "crash", "mon/a", "osd/0", "rgw"]) mkdirSync(join(dir, sub), { recursive: true });
  const conf = join(dir, "ceph.conf");
  const fsid = randomUUID();
  const [monPort, rgwPort] = [await freePort(), await freePort()];
  writeFileSync(conf, config(dir, fsid, monPort));
  const c = ["-c", conf];
  const children: ChildProcess[] = [];
  const early: string[] = []; // daemons that exited during the boot, with their logs
  let stopping = false;
  const killAll = () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  // A test process that dies without calling stop() must not leave daemons behind.
  process.once("exit", killAll);
  const daemon = (tool: string, args: string[], name: string): ChildProcess => {
    const child = spawn(tool, [...c, ...args, "-f"], { env: cephEnv(), stdio: "ignore" });
    child.once("exit", (code, signal) => {
      if (!stopping) early.push(`${name} exited (${signal ?? code}) — its log:\n${lastLines(join(dir, "log", `${name}.log`))}`);
    });
    children.push(child);
    return child;
  };
  const stop = async () => {
    stopping = true;
    process.removeListener("exit", killAll);
    const exits = children.map((child) => (child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once("exit", () => resolve()))));
    killAll(); // a throw-away cluster: nothing to shut down cleanly
    await Promise.all(exits);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await run("ceph-authtool", ["--create-keyring", join(dir, "keyring"), "--gen-key", "-n", "mon.", "--cap", "mon", "allow *"]);
    await run("monmaptool", ["--create", "--fsid", fsid, "--addv", "a", `[v2:127.0.0.1:${monPort}]`, join(dir, "monmap")]);
    await run("ceph-mon", [...c, "--mkfs", "-i", "a", "--monmap", join(dir, "monmap"), "--keyring", join(dir, "keyring")]);
    daemon("ceph-mon", ["-i", "a"], "mon.a");
    const osdUuid = randomUUID();
    const osdId = (await run("ceph", [...c, "--connect-timeout", "30", "osd", "new", osdUuid])).trim();
    if (osdId !== "0") throw new Error(`ceph osd new gave id ${JSON.stringify(osdId)}, expected 0`);
    await run("ceph-osd", [...c, "-i", "0", "--mkfs", "--osd-uuid", osdUuid]);
    daemon("ceph-osd", ["-i", "0"], "osd.0");
    daemon("radosgw", ["-n", "client.rgw.a", "--rgw_frontends", `beast endpoint=127.0.0.1:${rgwPort}`], "client.rgw.a");
    const endpoint = `http://127.0.0.1:${rgwPort}`;
    // The gateway listens once it has created its pools, which waits for the OSD.
    for (const deadline = Date.now() + 90_000; ; ) {
      if (early.length > 0) throw new Error(early.join("\n"));
      const answered = await fetch(endpoint, { signal: AbortSignal.timeout(2_000) }).then(
        async (response) => {
          await response.body?.cancel();
          return true;
        },
        () => false,
      );
      if (answered) break;
      if (Date.now() > deadline) throw new Error(`radosgw did not answer on ${endpoint} within 90 s — its log:\n${lastLines(join(dir, "log", "client.rgw.a.log"))}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await run("radosgw-admin", [...c, "user", "create", "--uid", "bcolz-test", "--display-name", "bcolz tests", "--access-key", ACCESS_KEY, "--secret-key", SECRET_KEY]);
    const client = new S3Client({ endpoint, region: "us-east-1", forcePathStyle: true, credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY } });
    try {
      await client.send(new CreateBucketCommand({ Bucket: CEPH_BUCKET }));
    } finally {
      client.destroy();
    }
    return { endpoint, accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY, bucket: CEPH_BUCKET, bootMs: Date.now() - started, stop };
  } catch (error) {
    await stop();
    throw new Error(`could not start a Ceph RADOS Gateway: ${(error as Error).message}`, { cause: error });
  }
}
