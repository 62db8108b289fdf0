// The `formgate` command line: serve and the admin commands. src/main.ts loads it once the Node.js version is known to be supported.
import { VERSION } from '../version.js';
import { Command, CommanderError, Option } from 'commander';
import * as admin from './admin.js';
import { fatalLogLine, jsonLogsFromEnvironment } from './fatal-log-line.js';
import { buildConfig, ConfigError, type Config } from '../config/config.js';
import { type RawEnv, readEnv } from '../config/env.js';
import { refuseMisspeltVariables, unknownVariableWarnings } from '../config/unknown-variables.js';
import { MissingDatabaseError } from '../db/database.js';
import { NewerSchemaError } from '../db/migrations/newer-schema.js';
import { ProblemError } from '../errors.js';
import { FolderAccessError } from '../private-files.js';

const json = process.argv.includes('--json');
// set once `formgate serve` runs: its fatal errors go where its logs go, as they go
let serving = false;

function fail(code: string, message: string, errors: string[] | undefined, exitCode: number): never {
  if (json) process.stdout.write(`${JSON.stringify({ error: { code, message, ...(errors ? { errors } : {}) } })}\n`);
  else if (serving && jsonLogsFromEnvironment(process.env.FORMGATE_LOG_FORMAT))
    process.stdout.write(fatalLogLine(message, { code, exitCode, ...(errors ? { errors } : {}) }));
  else process.stderr.write(`formgate: ${message}${errors?.length ? `\n  ${errors.join('\n  ')}` : ''}\n`);
  process.exit(exitCode);
}

/** The environment, once a misspelt FORMGATE_* variable has stopped the program (exit 2); read first, so that one in .env is caught too. */
function checkedEnv(): RawEnv {
  const env = readEnv();
  refuseMisspeltVariables(process.env);
  return env;
}

/** The checked configuration; any other variable nothing reads is named on stderr, which --json leaves alone. */
function loadConfig(): Config {
  const config = buildConfig(checkedEnv());
  for (const warning of unknownVariableWarnings(process.env)) process.stderr.write(`formgate: warning: ${warning}\n`);
  return config;
}

/** Runs an admin command and prints its result as one JSON object or as text. */
function run(action: (config: Config) => Promise<admin.CommandResult>) {
  return async () => {
    const result = await action(loadConfig());
    process.stdout.write(json ? `${JSON.stringify(result.json)}\n` : `${result.text.join('\n')}\n`);
  };
}

const program = new Command('formgate')
  .description('Formgate: a self-hosted form backend.')
  .version(VERSION, '-V, --version', 'print the version')
  .exitOverride()
  .configureOutput({ writeErr: (s) => (json ? undefined : process.stderr.write(s)) })
  .showHelpAfterError('(run with --help for usage)');
const jsonOption = () => new Option('--json', 'print one JSON object');

program
  .command('serve')
  .description('run the management API, the submit surface and the workers; migrates the database first')
  .action(async () => {
    serving = true;
    const env = checkedEnv();
    // loaded lazily: the admin commands need none of the HTTP stack
    const { serve } = await import('./serve.js');
    await serve(buildConfig(env), { publicUrl: env.publicUrl !== undefined, submitUrl: env.submitUrl !== undefined });
  });

program
  .command('migrate')
  .description('create the database if it is not there and bring its schema up to date (serve does this too; the other commands only use an existing one)')
  .addOption(jsonOption())
  .action(() => run((c) => admin.migrate(c))());

const users = program.command('users').description('accounts');
users
  .command('create')
  .description('create an account and its free workspace')
  .requiredOption('--email <email>', 'the account’s e-mail address')
  .option('--password <password>', 'dashboard password, at least 8 characters')
  .addOption(jsonOption())
  .action((o) => run((c) => admin.createUser(c, o.email, o.password))());
users
  .command('reset-two-factor')
  .description('turn off an account’s second factors (its app, recovery codes, passkeys, remembered browsers) and end its sessions, when its owner lost them')
  .requiredOption('--email <email>', 'the account’s e-mail address')
  .addOption(jsonOption())
  .action((o) => run((c) => admin.resetTwoFactor(c, o.email))());

const tokens = program.command('tokens').description('API tokens');
tokens
  .command('create')
  .description('create a token and print its secret, once')
  .requiredOption('--email <email>', 'the account the token acts for')
  .requiredOption('--name <name>', 'a name to recognise and revoke it by')
  .requiredOption('--scopes <scopes>', 'comma-separated: workspaces:read,workspaces:write,forms:read,forms:write,submissions:read,submissions:write')
  .option('--expires-at <iso>', 'expiry as an ISO 8601 date-time')
  .addOption(jsonOption())
  .action((o) => run((c) => admin.createToken(c, o))());
tokens
  .command('revoke')
  .description('revoke a token; it stops working at once')
  .requiredOption('--email <email>', 'the account')
  .requiredOption('--name <name>', 'the token’s name')
  .addOption(jsonOption())
  .action((o) => run((c) => admin.revokeToken(c, o.email, o.name))());

const workspaces = program.command('workspaces').description('workspaces');
workspaces
  .command('set-plan')
  .description('change a workspace’s plan (what a payment does)')
  .requiredOption('--workspace <id>', 'the workspace')
  .requiredOption('--plan <plan>', 'FREE, BUNDLE_50000 or DEALIFY')
  .addOption(jsonOption())
  .action((o) => run((c) => admin.setPlan(c, o.workspace, o.plan))());
workspaces
  .command('add-member')
  .description('add an existing account to a workspace’s team')
  .requiredOption('--workspace <id>', 'the workspace')
  .requiredOption('--email <email>', 'the account to add')
  .addOption(jsonOption())
  .action((o) => run((c) => admin.addMember(c, o.workspace, o.email))());

const forms = program.command('forms').description('forms');
forms
  .command('set-secret')
  .description('store a dashboard-only secret: a captcha secret key or the Slack token')
  .requiredOption('--form <id>', 'the form')
  .requiredOption('--provider <provider>', 'BOTPOISON, GOOGLE_RECAPTCHA_V2, HCAPTCHA, TURNSTILE or SLACK')
  .requiredOption('--secret <secret>', 'the secret')
  .addOption(jsonOption())
  .action((o) => run((c) => admin.setSecret(c, o.form, o.provider, o.secret))());
forms
  .command('webhook-secret')
  .description("print the form's webhook signing secret (Standard Webhooks), made on first use")
  .requiredOption('--form <id>', 'the form')
  .addOption(jsonOption())
  .action((o) => run((c) => admin.webhookSecret(c, o.form))());

const deliveries = program.command('deliveries').description('the delivery log: emails, webhooks and Slack messages sent, waiting or failed');
deliveries
  .command('list')
  .description('list deliveries, newest first, with every try')
  .option('--form <id>', 'only the deliveries of this form')
  .option('--status <status>', 'pending, done or failed')
  .option('--limit <n>', 'at most this many, 1 to 1000', '50')
  .addOption(jsonOption())
  .action((o) => run((c) => admin.listDeliveries(c, o))());
deliveries
  .command('retry')
  .description('send failed deliveries again, with a fresh retry budget')
  .option('--job <id>', 'one failed delivery')
  .option('--form <id>', 'every failed delivery of this form')
  .addOption(jsonOption())
  .action((o) => run((c) => admin.retryDeliveries(c, o))());

program
  .command('repair-counts')
  .description('recompute the counts derived from the submissions (day counts, the allowance used), a transaction per workspace')
  .option('--workspace <id>', 'only this workspace')
  .option('--exact', 'set the day counts to exactly the stored submissions, forgetting deleted and purged ones')
  .addOption(jsonOption())
  .action((o) => run((c) => admin.repairCounts(c, o))());

// Backup, restore and the deliveries switch (issue 27): src/cli/backup.ts, restore.ts, delivery-pause.ts
deliveries
  .command('pause')
  .description('stop every instance sending emails, webhooks and Slack messages (within 2 s); submissions are still taken and their deliveries wait')
  .addOption(jsonOption())
  .action(() => run(async (c) => (await import('./delivery-pause.js')).pauseDeliveries(c))());
deliveries
  .command('resume')
  .description('let every instance send again: what waited is sent once, with the same webhook-id and Message-ID')
  .addOption(jsonOption())
  .action(() => run(async (c) => (await import('./delivery-pause.js')).resumeDeliveries(c))());
program
  .command('backup')
  .description('a consistent copy of the running installation: SQLite through its online backup API, PostgreSQL through pg_dump --format=custom')
  .option('--to <file>', 'where to write it (default: FORMGATE_DATA_DIR/backups/formgate-<UTC time>.db or .pgdump)')
  .addOption(jsonOption())
  .action((o) => run(async (c) => (await import('./backup.js')).backup(c, o))());
program
  .command('restore')
  .description('restore a backup into the configured, empty database (FORMGATE_DATABASE_URL); it starts with deliveries paused')
  .argument('<file>', 'a file made by formgate backup')
  .addOption(jsonOption())
  .action((file: string) => run(async (c) => (await import('./restore.js')).restore(c, file))());

program
  .command('move')
  .description('copy the whole installation from its SQLite database into an empty PostgreSQL database, then verify the copy (stop Formgate first)')
  .requiredOption('--to <url>', 'the empty PostgreSQL database to move to, e.g. postgres://formgate:password@127.0.0.1:5432/formgate')
  .option('--dry-run', 'only show what would be copied (each table and its rows); change nothing')
  .option('--yes', 'copy without asking (required when not on a terminal)')
  .addOption(jsonOption())
  .action(async (o) => {
    // loaded lazily, as serve is: the other commands need none of it
    const { move } = await import('./move.js');
    process.exitCode = await move(loadConfig(), o);
  });

program
  .command('import')
  .description(
    'copy workspaces, forms, templates and submissions from the hosted service or another Formgate (its management API) into workspaces of an account here; sends nothing; run again to add what is new',
  )
  .requiredOption('--from <base_url>', 'the source’s management API base URL, with its version path (https://…/public/v1)')
  .requiredOption('--token <token>', 'a token of the source with workspaces:read, forms:read, submissions:read; - reads it from stdin')
  .requiredOption('--owner <email>', 'the account here that owns the imported workspaces (it must exist)')
  .option('--workspace <id>', 'only this workspace of the source')
  .option('--max-answer-mb <mb>', 'the most one answer of the source may hold, in MB (default 128); a longer one stops the import')
  .addOption(jsonOption())
  .action(async (o) => {
    const { importCommand } = await import('./import.js');
    const { SourceError } = await import('./import-source.js');
    try {
      const result = await importCommand(loadConfig(), { ...o, json });
      process.stdout.write(json ? `${JSON.stringify(result.json)}\n` : `${result.text.join('\n')}\n`);
      if (result.stopped) process.exitCode = 1;
    } catch (error) {
      if (error instanceof SourceError) fail(error.code === 'usage' ? 'usage' : 'source', error.message, undefined, error.code === 'usage' ? 2 : 1);
      throw error;
    }
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    if (error.exitCode === 0) process.exit(0);
    // commander has already printed the message and usage hint in text mode
    if (!json) process.exit(2);
    fail('usage', error.message.replace(/^error: /, ''), undefined, 2);
  }
  if (error instanceof ProblemError) fail(error.code, error.detail, error.extra.errors as string[] | undefined, 1);
  // a missing database is the configuration's fault: the command ran from the wrong folder or with the wrong URL;
  // a database migrated by a newer program is the setup's too (a downgrade, or the wrong database)
  // and so is a data folder its user may not write in
  if (error instanceof ConfigError || error instanceof MissingDatabaseError || error instanceof NewerSchemaError || error instanceof FolderAccessError)
    fail('config', error.message, undefined, 2);
  fail('internal_error', (error as Error).message ?? String(error), undefined, 1);
}
