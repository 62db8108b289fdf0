import os from 'node:os';
import type { Config } from '../config/config.js';
import { describeDatabase } from '../db/database.js';
import type { DeliveriesStatus } from '../services/delivery-pause.js';
import { type CommandResult, withContext } from './admin.js';

/** Who a pause from this command is recorded as: what the admin page and /healthz show. */
function commandLineAuthor(): string {
  let user = 'unknown';
  try {
    user = os.userInfo().username;
  } catch {
    // no entry in the password file (a container's arbitrary uid)
  }
  return `formgate deliveries pause (${user}@${os.hostname()})`;
}

function waitingText(status: DeliveriesStatus): string {
  const n = `${status.waitingCapped ? 'at least ' : ''}${status.waiting.toLocaleString('en-US')}`;
  return `${n} ${status.waiting === 1 ? 'delivery waits' : 'deliveries wait'}`;
}

function statusJson(config: Config, status: DeliveriesStatus): Record<string, unknown> {
  return {
    database: describeDatabase(config.database),
    // the database's switch, which every instance reads; this command's own environment apart
    paused: status.pause !== null,
    environment: config.deliveriesPaused ? 'paused' : 'on',
    pausedAt: status.pause?.at ?? null,
    pausedBy: status.pause?.by ?? null,
    waiting: status.waiting,
    waitingCapped: status.waitingCapped,
  };
}

/** What FORMGATE_DELIVERIES=paused in this command's own environment means: instances started with it stay paused whatever the database says. */
function environmentNote(config: Config): string[] {
  return config.deliveriesPaused ? ['FORMGATE_DELIVERIES=paused is set here: instances started with it stay paused until it is removed and they restart.'] : [];
}

/** `formgate deliveries pause`: every instance stops sending within two seconds; submissions are still taken. */
export function pauseDeliveries(config: Config): Promise<CommandResult> {
  return withContext(config, async (ctx) => {
    const status = await ctx.deliveryPause.pause(commandLineAuthor());
    return {
      json: statusJson(config, status),
      text: [
        `Deliveries are paused on ${describeDatabase(config.database)} (since ${status.pause?.at}, by ${status.pause?.by}): every instance stops sending emails, webhooks and Slack messages within 2 seconds.`,
        `Submissions are still taken; their deliveries wait (${waitingText(status)} now). \`formgate deliveries resume\` sends them.`,
      ],
    };
  });
}

/** `formgate deliveries resume`: what waited is sent, each once, with the keys it always had. */
export function resumeDeliveries(config: Config): Promise<CommandResult> {
  return withContext(config, async (ctx) => {
    const status = await ctx.deliveryPause.resume();
    const first = status.wasPaused
      ? `Deliveries resumed on ${describeDatabase(config.database)}`
      : `Deliveries were not paused on ${describeDatabase(config.database)}`;
    return {
      json: { ...statusJson(config, status), resumed: status.wasPaused },
      text: [`${first}: every instance sends within 2 seconds (${waitingText(status)}).`, ...environmentNote(config)],
    };
  });
}
