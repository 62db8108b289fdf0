import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

/** A pino logger whose JSON lines are kept, parsed, in `lines`: for tests that read what was logged. */
export function collectingLogger(level = 'info'): { logger: Logger; lines: Record<string, any>[]; sink: Writable } {
  const lines: Record<string, any>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level }, sink), lines, sink };
}
