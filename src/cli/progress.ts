// Progress of a long command (move, import, backup) on stderr: a bar on a terminal, and a plain line
// now and then otherwise (a log file or CI), so stdout keeps only the command's result.
import cliProgress from 'cli-progress';

export interface Progress {
  /** `done` more items finished (of `total`, when known). */
  advance(done: number): void;
  /** The bar stops and a last line says how many were done. */
  finish(): void;
}

// without a terminal, a line every this many milliseconds at most
const PLAIN_EVERY_MS = 2000;

/** Progress of `label` over `total` items (0 when unknown); quiet = nothing at all (--json). */
export function startProgress(label: string, total: number, opts: { quiet?: boolean; stream?: NodeJS.WriteStream } = {}): Progress {
  const stream = opts.stream ?? process.stderr;
  let count = 0;
  if (opts.quiet) return { advance: () => undefined, finish: () => undefined };
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      { format: `${label} [{bar}] {value}/{total} {percentage}% {eta_formatted} left`, stream, hideCursor: true, etaBuffer: 50 },
      cliProgress.Presets.shades_classic,
    );
    bar.start(Math.max(total, 1), 0);
    return {
      advance: (n) => {
        count += n;
        if (count > bar.getTotal()) bar.setTotal(count);
        bar.update(count);
      },
      finish: () => bar.stop(),
    };
  }
  let lastLine = 0;
  const line = () => stream.write(`formgate: ${label}: ${count}${total > 0 ? ` of ${total}` : ''}\n`);
  return {
    advance: (n) => {
      count += n;
      const now = Date.now();
      if (now - lastLine >= PLAIN_EVERY_MS) {
        lastLine = now;
        line();
      }
    },
    finish: line,
  };
}
