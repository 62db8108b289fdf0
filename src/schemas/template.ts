import { Type } from '@sinclair/typebox';
import { DateTime, IgnoredDateTime, StringEnum } from './common.js';

const KINDS = ['notification', 'autoresponder'] as const;

export const TemplateSchema = Type.Object(
  {
    kind: StringEnum(KINDS, '`notification` (the email to the recipients) or `autoresponder` (the reply to the submitter).'),
    mode: StringEnum(['visual', 'code'] as const, '`code` for templates written through the API; `visual` ones come from the template editor.'),
    code: Type.String({ description: 'HTML with Handlebars placeholders; a field `x` is `{{data.x}}`.' }),
    updatedAt: DateTime,
    paused: Type.Unsafe<boolean | null>({
      type: ['boolean', 'null'],
      description: 'Whether the content check stopped the autoresponder from sending; null for the notification template.',
    }),
  },
  { $id: 'Template' },
);

export const TemplateParams = Type.Object({
  formId: Type.String({ minLength: 1 }),
  kind: StringEnum(KINDS, '`notification` or `autoresponder`.'),
});

export const TemplatePutBody = Type.Object(
  {
    code: Type.String({ maxLength: 262_144, description: 'HTML with Handlebars placeholders; at most 262,144 characters. Compiled before it is stored.' }),
    mode: Type.Optional(StringEnum(['code', 'visual'] as const, 'Accepted for compatibility and ignored: a template written through the API is `code`.')),
    kind: Type.Optional(StringEnum(KINDS, 'Read-only: may be sent back; must be the kind in the path.')),
    updatedAt: IgnoredDateTime(),
    paused: Type.Optional(
      Type.Unsafe<boolean | null>({
        type: ['boolean', 'null'],
        description: 'Read-only: accepted and ignored; the content check decides it when the code is written.',
      }),
    ),
  },
  { additionalProperties: false, description: 'The `code` to store. A Template read from the API may be sent back whole; any other field is refused.' },
);

export const TemplatePreviewBody = Type.Object(
  {
    data: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description:
            'Field values to render, any shape; without it, the fields of the form’s latest submission (for a token with `submissions:read`), or a sample.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

export const TemplatePreviewSchema = Type.Object({
  html: Type.String(),
  text: Type.String({ description: 'The plain-text alternative.' }),
});
