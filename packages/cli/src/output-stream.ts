/**
 * Writing command output to stdout with back-pressure, ending quietly when the reader goes away
 * (`bcolz-ts cat … | head -1`).
 */

/**
 * Thrown by {@link LineSink.write} once the reader has closed the pipe; the CLI exits 0 on it.
 *
 * @example
 * ```ts
 * if (err instanceof ClosedPipe) process.exitCode = 0;
 * ```
 */
export class ClosedPipe extends Error {
  constructor() {
    super("output closed by the reader");
    this.name = "ClosedPipe";
  }
}

/**
 * The small part of a Node writable stream that {@link LineSink} needs.
 *
 * @example
 * ```ts
 * const s: SinkStream = process.stdout;
 * ```
 */
export interface SinkStream {
  write(chunk: string): boolean;
  once(event: "drain" | "error", listener: (...args: unknown[]) => void): unknown;
  on(event: "error", listener: (err: unknown) => void): unknown;
}

/**
 * Buffers text and writes it in large pieces, waiting for `drain` so that big outputs stay in
 * bounded memory; reports a closed pipe (EPIPE) as {@link ClosedPipe}.
 *
 * @example
 * ```ts
 * const out = new LineSink(process.stdout);
 * await out.write("1\n");
 * await out.flush();
 * ```
 */
export class LineSink {
  readonly #stream: SinkStream;
  #pending = "";
  #closed = false;

  constructor(stream: SinkStream) {
    this.#stream = stream;
    stream.on("error", (err: unknown) => {
      if ((err as { code?: unknown } | null)?.code === "EPIPE") this.#closed = true;
    });
  }

  /** True once the reader closed the pipe. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Queues `text`; writes when 64 KiB are pending.
   *
   * @example
   * ```ts
   * await sink.write("a\tb\n");
   * ```
   */
  async write(text: string): Promise<void> {
    if (this.#closed) throw new ClosedPipe();
    this.#pending += text;
    if (this.#pending.length >= 65536) await this.flush();
  }

  /**
   * Writes what is pending and waits until the stream can take more.
   *
   * @example
   * ```ts
   * await sink.flush();
   * ```
   */
  async flush(): Promise<void> {
    if (this.#closed) throw new ClosedPipe();
    if (this.#pending === "") return;
    const text = this.#pending;
    this.#pending = "";
    if (!this.#stream.write(text)) {
      await new Promise<void>((resolve) => {
        const done = (): void => resolve();
        this.#stream.once("drain", done);
        this.#stream.once("error", done);
      });
    }
    if (this.#closed) throw new ClosedPipe();
  }
}
