import { Type } from '@sinclair/typebox';
import { AUDIT_GROUPS, AUDIT_VIA } from '../domain/audit.js';
import { DateTime, NullableString, PageOf, PageQuery, StringEnum } from './common.js';

// An addition to the spec: the audit log (issue 43, item 4; docs/api.md, "The audit log").

const GROUPS = Object.keys(AUDIT_GROUPS) as (keyof typeof AUDIT_GROUPS)[];

export const AuditEventSchema = Type.Object(
  {
    id: Type.String(),
    createdAt: DateTime,
    action: Type.String({
      description:
        'What happened, as `group.verb`: `token.created`, `member.removed`, `form.updated`, `submissions.exported`, … (docs/operations.md lists them).',
    }),
    group: Type.String({ description: 'The part of `action` before its dot; what `group` filters by.' }),
    workspaceId: NullableString(Type.String({ description: 'Null for an account’s or the installation’s event (never listed here).' })),
    actorUserId: NullableString(
      Type.String({
        description: 'The account that acted; null: a command run on the server, the system, or someone not signed in (a sign-up, a signed file link).',
      }),
    ),
    actorEmail: NullableString(Type.String({ description: 'That account’s address when it acted: kept after the account is deleted.' })),
    via: StringEnum(AUDIT_VIA, '`dashboard`, `api`, `cli` (a command run on the server) or `system` (a scheduled job).'),
    ip: NullableString(
      Type.String({ description: 'The client’s address as the server saw it (behind FORMGATE_TRUST_PROXY, the address the proxy reported).' }),
    ),
    userAgent: NullableString(Type.String({ description: 'The client’s User-Agent, cut to 256 characters.' })),
    target: Type.Union(
      [
        Type.Object({
          kind: Type.String({ description: '`form`, `token`, `account`, `workspace`, `submission`, `label`, …' }),
          id: Type.String(),
          name: NullableString(Type.String({ description: 'A short label of the target when it happened (a form’s or token’s name).' })),
        }),
        Type.Null(),
      ],
      { description: 'What the action was done to; null when it is the workspace itself or nothing in particular.' },
    ),
    details: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
      description:
        'What changed, by name (the settings of a form saved, an export’s format and filters): never a submitted value, a visitor’s address or a file’s name.',
    }),
  },
  { $id: 'AuditEvent', description: 'One event of the audit log: who did what, when, from where.' },
);

export const AuditEventPageSchema = PageOf(Type.Ref('AuditEvent'), 'A page of audit events, newest first.');

const Instant = (description: string) => Type.Optional(Type.String({ format: 'date-time', minLength: 1, description }));

export const AuditEventListQuery = Type.Object(
  {
    ...PageQuery,
    group: Type.Optional(
      Type.Unsafe<string>({
        type: 'string',
        enum: GROUPS,
        minLength: 1,
        description: 'Only the events of this group of actions (the part of `action` before its dot).',
      }),
    ),
    actor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 254, description: 'Only the events of the account with this email address (as it was when it acted).' }),
    ),
    from: Instant('Only events at this instant or later (ISO 8601 date-time with a time zone).'),
    to: Instant('Only events before this instant (exclusive).'),
  },
  { additionalProperties: false },
);
