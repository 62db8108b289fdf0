import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from '../config/config.js';

// The request line's fields (src/http/request-log.ts) and what Fastify adds: shown in the line itself.
const SHOWN_IN_LINE = ['time', 'level', 'pid', 'hostname', 'reqId', 'method', 'path', 'ip', 'status', 'ms'];
const LABELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** Whether the logs are for a person: asked for, or a terminal when nothing was asked. */
export function prettyLogs(config: Pick<Config, 'logFormat'>, stdoutIsTty = process.stdout.isTTY === true): boolean {
  return config.logFormat === 'pretty' || (config.logFormat === 'auto' && stdoutIsTty);
}

/**
 * The server's logger: JSON lines for machines (log collectors parse them), or one readable line
 * per event for a person. NOTE: pino-pretty runs as a stream in this thread, not as a transport:
 * dist/ is an esbuild bundle, where pino's worker-thread transports cannot resolve their module.
 */
export function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>, destination: NodeJS.WritableStream = process.stdout): Logger {
  if (!prettyLogs(config, (destination as { isTTY?: boolean }).isTTY === true)) {
    // NOTE: stdout by its descriptor, synchronously: pino's default writes through libuv's thread pool,
    // and at process.exit its flush wrote what was queued behind a write still in the pool first (the
    // drain's "stopped" before "drain window over"), or lost that write when the pool was busy.
    return pino({ level: config.logLevel }, destination === process.stdout ? pino.destination({ dest: 1, sync: true }) : destination);
  }
  const colorize = (destination as { isTTY?: boolean }).isTTY === true;
  const stream = pretty({
    // stdout by its descriptor, written synchronously as the JSON lines are: nothing is lost at process.exit
    destination: destination === process.stdout ? 1 : destination,
    sync: true,
    colorize,
    ignore: SHOWN_IN_LINE.join(','),
    messageFormat: (log, messageKey, _label, { colors }) => {
      const label = LABELS[Number(log.level)] ?? String(log.level);
      const level = colorize ? levelColour(label, colors)(label.padEnd(5)) : label.padEnd(5);
      return `${clock(Number(log.time))} ${level} ${describe(log, messageKey)}`;
    },
  });
  return pino({ level: config.logLevel }, stream);
}

/** `POST /abc123 200 3.1 ms 203.0.113.9` for a request line; the message otherwise. */
function describe(log: Record<string, unknown>, messageKey: string): string {
  if (log[messageKey] === 'request' && typeof log.method === 'string') return `${log.method} ${log.path} ${log.status} ${log.ms} ms ${log.ip}`;
  return String(log[messageKey] ?? '');
}

/** Local time, to the second: a person reads the time of day of their own server. */
function clock(epochMs: number): string {
  const time = new Date(epochMs);
  return [time.getHours(), time.getMinutes(), time.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

function levelColour(label: string, colors: Parameters<pretty.MessageFormatFunc>[3]['colors']): (text: string) => string {
  if (label === 'ERROR' || label === 'FATAL') return colors.red;
  if (label === 'WARN') return colors.yellow;
  if (label === 'INFO') return colors.green;
  return colors.gray;
}
