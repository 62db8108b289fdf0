import { Type } from '@sinclair/typebox';

export const ErasureBody = Type.Object(
  {
    email: Type.String({
      minLength: 1,
      maxLength: 254,
      description:
        'The address to look for, case-insensitively, in every field of every submission of the workspace (and in `_replyto` and `_email.*`): as a whole value or inside a longer text, ' +
        'but never as part of a longer address (`ann@example.com` does not find `joann@example.com` or `ann@example.com.au`).',
    }),
  },
  { additionalProperties: false },
);

export const ErasurePreviewSchema = Type.Object({
  email: Type.String({ description: 'The address looked for, trimmed and lower-cased.' }),
  submissions: Type.Integer({ description: 'How many submissions of the workspace hold it (inbox, held and spam): what erasing it would delete.' }),
});

export const ErasureResultSchema = Type.Object({
  email: Type.String({ description: 'The address looked for, trimmed and lower-cased.' }),
  deleted: Type.Integer({ description: 'Submissions deleted for good, with their deliveries.' }),
  remaining: Type.Integer({
    description:
      'Submissions that hold the address but had a delivery being sent at that moment, so were left; erase again in a minute to delete them. Usually 0.',
  }),
});
