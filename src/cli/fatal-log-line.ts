// How `formgate serve` reports the error it stops on (src/cli/program.ts): kept apart from logger.ts,
// so that the admin commands, which use it through program.ts, do not load pino-pretty.
import os from 'node:os';
import { type LogFormat, parseLogFormat } from '../config/checks.js';

/** Whether `formgate serve` logs JSON (logger.ts's rule), judged from FORMGATE_LOG_FORMAT as set: the configuration may be what failed. */
export function jsonLogsFromEnvironment(value: string | undefined, stdoutIsTty = process.stdout.isTTY === true): boolean {
  let format: LogFormat = 'auto';
  try {
    format = parseLogFormat(value);
  } catch {}
  return format === 'json' || (format === 'auto' && !stdoutIsTty);
}

/**
 * A fatal error of `formgate serve` as one line shaped as pino writes them (level 60), for stdout:
 * as plain text, the reason a server stopped was the one line a log collector could not parse.
 */
export function fatalLogLine(message: string, fields: Record<string, unknown>): string {
  return `${JSON.stringify({ level: 60, time: Date.now(), pid: process.pid, hostname: os.hostname(), ...fields, msg: message })}\n`;
}
