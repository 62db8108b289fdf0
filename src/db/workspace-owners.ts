import type { Queryable } from './database.js';

/**
 * The addresses of a workspace's owners (its creator and any member with the owner role): who
 * decides on its plan and hears when one of its forms' webhooks is turned off. One email each.
 */
export async function ownerAddresses(trx: Queryable, workspace: { id: string; ownerId: string }): Promise<{ email: string }[]> {
  return trx
    .selectFrom('users')
    .select('email')
    .where((eb) =>
      eb.or([
        eb('id', '=', workspace.ownerId),
        eb('id', 'in', eb.selectFrom('workspaceMembers').select('userId').where('workspaceId', '=', workspace.id).where('role', '=', 'owner')),
      ]),
    )
    .orderBy('email')
    .execute();
}
