import { Type } from '@sinclair/typebox';
import { HOOK_EVENTS } from '../domain/hooks.js';
import { DateTime, NullableString, PageOf, PageQuery, StringEnum } from './common.js';

// An addition to the spec (its section 6 leaves "any event subscription API" open): REST-hook
// subscriptions for automation platforms (issue 42, item 2; docs/integrations.md).

const EVENT = StringEnum(
  HOOK_EVENTS,
  '`submission.created`: a submission accepted into the inbox (after the spam filter); `submission.spam`: one the filter put in the spam folder; `submission.deleted`: one someone deleted.',
);

export const HookSchema = Type.Object(
  {
    id: Type.String(),
    targetUrl: Type.String({ description: 'Where each event is posted.' }),
    event: EVENT,
    formId: NullableString(Type.String({ description: 'The form whose events are posted; null: every form of the workspace.' })),
    workspaceId: Type.String(),
    createdAt: DateTime,
  },
  { $id: 'Hook', description: 'A subscription of an automation platform: an event of a form, or of every form of a workspace, posted to `targetUrl`.' },
);

/** The answer to a subscription: the Hook, and its signing secret this once. */
export const CreatedHookSchema = Type.Object(
  {
    ...HookSchema.properties,
    secret: Type.String({
      description:
        'The Standard Webhooks signing secret (`whsec_…`) of its posts; shown in this answer only. Verify `webhook-signature` with it, or ignore it.',
    }),
  },
  { description: 'The new subscription, with its signing secret.' },
);

export const HookBody = Type.Object(
  {
    targetUrl: Type.String({
      minLength: 1,
      maxLength: 512,
      description: 'An http or https URL that resolves to a public address (or one the operator allows), as a form’s `webhookUrl`.',
    }),
    event: EVENT,
    formId: Type.Optional(NullableString(Type.String({ minLength: 1, description: 'One form’s events; absent or null: every form of the workspace.' }))),
    workspaceId: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'Needed when there is no `formId` and the token reaches several workspaces; an automation-tool key reaches one.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const HookParams = Type.Object({ hookId: Type.String({ minLength: 1 }) });

export const HookListQuery = Type.Object(
  { ...PageQuery, workspaceId: Type.Optional(Type.String({ minLength: 1, description: 'Only this workspace’s subscriptions.' })) },
  { additionalProperties: false },
);

export const HookPageSchema = PageOf(Type.Ref('Hook'), 'A page of subscriptions, newest first.');

export const HookSampleParams = Type.Object({
  event: Type.Unsafe<(typeof HOOK_EVENTS)[number]>({ type: 'string', enum: [...HOOK_EVENTS], minLength: 1, description: 'The event whose body is shown.' }),
});

export const HookSampleQuery = Type.Object(
  {
    formId: Type.Optional(Type.String({ minLength: 1, description: 'A form’s sample; absent: the workspace’s newest.' })),
    workspaceId: Type.Optional(Type.String({ minLength: 1, description: 'Needed as for a subscription when there is no `formId`.' })),
  },
  { additionalProperties: false },
);

export const HookSampleSchema = Type.Object(
  {
    data: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          formId: Type.String(),
          data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
          createdAt: Type.Optional(DateTime),
          deletedAt: Type.Optional(DateTime),
        },
        { description: 'The body a subscription to the event would be posted: a Submission, or for `submission.deleted` its `id`, `formId` and `deletedAt`.' },
      ),
    ),
  },
  { description: 'One body, in a list as the polling trigger’s items are.' },
);
