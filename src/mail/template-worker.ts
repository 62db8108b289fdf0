// The thread that compiles and renders templates (started by template-workers.ts): a template can
// take seconds to compile, and nothing it does must hold the event loop that answers requests.
import { parentPort } from 'node:worker_threads';
import { LRUCache } from 'lru-cache';
import { finishWebhookBody } from '../domain/webhook-body.js';
import { compileTemplate, RenderLimitError, renderTemplate, type CompiledTemplate } from './template-engine.js';
import type { TemplateJob, TemplateOutcome } from './template-workers.js';

// Compiled templates by code: deliveries render the same few templates again and again.
const compiledByCode = new LRUCache<string, CompiledTemplate | { errors: string[] }>({ max: 200 });

function run(job: TemplateJob): TemplateOutcome {
  const limits = { timeMs: job.limits.timeMs, outputChars: job.limits.outputChars, steps: job.limits.steps };
  const as = job.kind === 'render' ? job.as : undefined;
  // a webhook body's code compiles apart from an email's: its placeholders print differently
  const key = as === 'json' || as === 'urlencoded' ? `${as}\u0000${job.code}` : job.code;
  let compiled = job.kind === 'render' ? compiledByCode.get(key) : undefined;
  if (!compiled) {
    // NOTE: no stopwatch here: what a template may hold is counted (template-size.ts), so a write gets the same answer on any machine
    let result: ReturnType<typeof compileTemplate>;
    try {
      result = compileTemplate(job.code, limits, as);
    } catch (error) {
      if (error instanceof RenderLimitError) return { ok: false, problem: 'too_slow', message: error.message };
      throw error;
    }
    compiled = result.ok ? result.template : { errors: result.errors };
    if (job.kind === 'render' && job.keep !== false) compiledByCode.set(key, compiled);
  }
  if ('errors' in compiled) return { ok: false, problem: 'invalid', errors: compiled.errors };
  try {
    const render = job.kind === 'render' ? job : null;
    const out = renderTemplate(compiled, render?.data ?? {}, limits, { files: render?.files, submissionUrl: render?.submissionUrl }, as);
    if (as !== 'json' && as !== 'urlencoded') return { ok: true, ...out };
    // a webhook body is checked as what it is sent as: JSON that parses, a form body of name=value pairs
    const body = finishWebhookBody(as === 'json' ? 'json-template' : 'urlencoded-template', out.html);
    return body.ok ? { ok: true, html: body.body, text: body.body } : { ok: false, problem: 'invalid', errors: [body.error] };
  } catch (error) {
    // past the steps or the output, a render fails the same way every time (too_large); past the time, it was the machine (too_slow)
    if (error instanceof RenderLimitError) return { ok: false, problem: error.limit === 'time' ? 'too_slow' : 'too_large', message: error.message };
    // what Handlebars throws while rendering (a block helper used wrongly) is a fault of the template, whatever the data
    return { ok: false, problem: 'invalid', errors: [error instanceof Error ? error.message.replace(/\s+/g, ' ').trim() : String(error)] };
  }
}

parentPort!.on('message', (job: TemplateJob & { id: number }) => {
  let answer: TemplateOutcome | { ok: false; problem: 'failed'; message: string };
  try {
    answer = run(job);
  } catch (error) {
    answer = { ok: false, problem: 'failed', message: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage({ id: job.id, ...answer });
});

// Handlebars loaded (about 8 MB of code) before the first job, whose watchdog starts when it is sent
compileTemplate('');
parentPort!.postMessage({ ready: true });
