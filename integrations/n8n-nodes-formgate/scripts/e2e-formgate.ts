// For scripts/e2e-n8n.sh: a real Formgate on loopback (the test suite's helpers, a fresh SQLite
// database), an upgraded account with a form, an automation-tool key and three submissions. Prints
// one JSON line (baseUrl, key, formId, submissionIds oldest first, "ready") and serves until killed.
import { startApp } from '../../../test/helpers/app.js';
import { createAccount, createForm } from '../../../test/helpers/fixtures.js';
import { postJson } from '../../../test/helpers/submit.js';

const app = await startApp({ allowPrivateWebhooks: '1' }, { delivery: true });
const owner = await createAccount(app);
const form = await createForm(app, owner, { name: 'Contact' });
const { secret: key } = await app.ctx.automationKeys.create(owner.userId, owner.workspaceId, 'n8n e2e');
const submissionIds: string[] = [];
for (const name of ['Ada', 'Grace', 'Edsger']) {
  submissionIds.push((await postJson(app, form.id, { name, message: `Hello from ${name}` })).body.id);
}
process.stdout.write(`${JSON.stringify({ baseUrl: app.baseUrl, key, formId: form.id, submissionIds, ready: true })}\n`);
const stop = async () => {
  await app.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
