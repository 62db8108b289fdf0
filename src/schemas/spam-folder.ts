import { Type } from '@sinclair/typebox';
import { PageOf, PageQuery, StringEnum } from './common.js';
import { SubmissionSchema } from './submission.js';

// An addition to the spec (issue 40, item 6): the Submission of 2.4 stays as it is; these extend it.

/** A quarantined submission: the Submission's fields, then why it is spam. */
export const SpamSubmissionSchema = Type.Object(
  {
    ...SubmissionSchema.properties,
    spamReasons: Type.Array(Type.String(), {
      description:
        'Why it is spam, as sentences: the filter’s signals (`customSpamWords`, links, known phrases, …), or `Marked as spam by <email>` when a person or a token marked it. ' +
        'Empty for spam stored before reasons were kept. The wording can change; do not branch on it.',
    }),
  },
  { $id: 'SpamSubmission', description: 'A submission in the spam folder: the Submission, and `spamReasons`.' },
);

/** A submission "Not spam" took out of the spam folder: the Submission's fields, then where it went and what it sent. */
export const ReturnedSubmissionSchema = Type.Object(
  {
    ...SubmissionSchema.properties,
    status: StringEnum(
      ['accepted', 'held'] as const,
      '`accepted`: in the inbox, listed and found by search. `held`: the workspace’s allowance is used up, so it waits (not listed) until the allowance grows, as a new submission would.',
    ),
    deliveries: StringEnum(
      ['queued', 'earlier', 'on_release'] as const,
      '`queued`: the filter had caught it, so nothing had gone out; its notification, autoresponder, webhook and Slack message (those the form has) are queued now, once. ' +
        '`earlier`: it was in the inbox before a person or a token marked it as spam, and had its deliveries then; nothing is sent again and the allowance is not counted again. ' +
        '`on_release`: it is held; it is delivered when it is released.',
    ),
  },
  {
    $id: 'ReturnedSubmission',
    description: 'A submission moved out of the spam folder: the Submission, where it went (`status`) and what it sent (`deliveries`).',
  },
);

/** The spam folder's list: pages as the submission lists do; no `search` (spam is never indexed). */
export const SpamListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });
export const SpamPageSchema = PageOf(Type.Ref('SpamSubmission'), 'A page of the spam folder, newest first.');
