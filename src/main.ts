#!/usr/bin/env node
// The `formgate` program's entry. It checks the Node.js version before loading anything else:
// static imports all load before a module's first line runs, and on Node.js 20 the SQLite driver's
// native module crashes the process (a segmentation fault, no message). So this module imports
// only the check, and loads the program itself afterwards.
import { unsupportedNodeMessage } from './cli/node-version.js';

const unsupported = unsupportedNodeMessage(process.versions.node);
if (unsupported) {
  // the CLI's contract (src/cli/program.ts): one JSON object with --json, exit code 2 for the setup's fault
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify({ error: { code: 'config', message: unsupported } })}\n`);
  else process.stderr.write(`${unsupported}\n`);
  process.exit(2);
}
await import('./cli/program.js');
