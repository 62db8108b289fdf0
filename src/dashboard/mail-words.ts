import type { Config } from '../config/config.js';

/**
 * What a page says of an email it has queued: "on its way" only when an SMTP server is configured;
 * otherwise it will only be written to a file of the mail folder (issue 39, item 6). `sent` and
 * `written` are the two sentences; the second gets why appended.
 */
export function queuedMailWords(config: Pick<Config, 'smtpUrl'>, words: { sent: string; written: string }): string {
  return config.smtpUrl ? words.sent : `${words.written}, not sent: no SMTP server is configured`;
}
