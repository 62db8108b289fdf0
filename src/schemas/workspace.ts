import { Type, type Static } from '@sinclair/typebox';
import { PLANS } from '../domain/plans.js';
import { DateTime, IgnoredDateTime, PageOf, PageQuery, StringEnum } from './common.js';

const WorkspaceName = Type.String({ minLength: 1, maxLength: 128, description: '1 to 128 characters.' });

export const WorkspaceSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    plan: StringEnum(PLANS, 'FREE, or an upgrade (BUNDLE_50000, DEALIFY).'),
    submissionsQuota: Type.Integer({
      description:
        'Submissions left of the plan allowance (250 free, 50,000 upgraded); spam does not count. On an installation for one team (every workspace unlimited, docs/api.md) it is 2147483647.',
    }),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'Workspace' },
);

export const WorkspacePageSchema = PageOf(Type.Ref('Workspace'), 'A page of workspaces, newest first.');
export const WorkspaceListQuery = Type.Object(PageQuery, { additionalProperties: false });
export const WorkspaceParams = Type.Object({ workspaceId: Type.String({ minLength: 1 }) });
export const WorkspaceBody = Type.Object({ name: WorkspaceName }, { additionalProperties: false });
export type WorkspaceBody = Static<typeof WorkspaceBody>;

/** A rename; the Workspace's read-only fields are accepted so that a client can send back the Workspace it read. */
export const WorkspacePatchBody = Type.Object(
  {
    name: WorkspaceName,
    id: Type.Optional(Type.String({ description: 'Read-only: may be sent back; must be the workspace’s id, as in the path.' })),
    plan: Type.Optional(StringEnum(PLANS, 'Read-only: may be sent back; must be the workspace’s plan (a plan changes with a payment, not through the API).')),
    submissionsQuota: Type.Optional(Type.Integer({ description: 'Read-only: accepted, so that a Workspace read from the API can be sent back, and ignored.' })),
    createdAt: IgnoredDateTime(),
    updatedAt: IgnoredDateTime(),
  },
  { additionalProperties: false, description: 'The new `name`. A Workspace read from the API may be sent back whole; any other field is refused.' },
);
export type WorkspacePatchBody = Static<typeof WorkspacePatchBody>;
