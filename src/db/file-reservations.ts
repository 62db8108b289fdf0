// Bytes of a workspace's file allowance held by posts whose files are still arriving (issue 38,
// item 4; migration 0025). `workspaces.file_bytes_reserved` is what the conditional UPDATE checks
// (used + reserved + n within the allowance: atomic on both databases, so concurrent posts cannot
// together pass it); `file_reservations` holds each post's part, so that it is given back when the
// post is not stored, converted when it is, and expired when the process that held it crashed.
import { type SqlBool, sql, type Transaction } from 'kysely';
import type { Database } from './database.js';
import type { DB } from './schema/index.js';

/** A reservation left this long (by a process that crashed mid-post) is given back by the file sweep. */
export const RESERVATION_TTL_MS = 60 * 60 * 1000;

/** One post's reservation: its row's id and its workspace. */
export interface FileReservation {
  id: string;
  workspaceId: string;
}

/**
 * Reserves `bytes` more for the post if the workspace's allowance (`allowance` bytes) holds them
 * beside what is stored and what every other post holds; answers whether it did. Its row is made at
 * the first reservation, in the same transaction.
 */
export async function reserveFileBytes(database: Database, reservation: FileReservation, bytes: number, allowance: number, now = Date.now()): Promise<boolean> {
  return database.transaction(async (trx) => {
    const taken = await trx
      .updateTable('workspaces')
      .set((eb) => ({ fileBytesReserved: eb('fileBytesReserved', '+', bytes) }))
      .where('id', '=', reservation.workspaceId)
      .where(sql<SqlBool>`file_bytes + file_bytes_reserved + ${bytes} <= ${allowance}`)
      .executeTakeFirst();
    if (taken.numUpdatedRows === 0n) return false;
    await trx
      .insertInto('fileReservations')
      .values({ id: reservation.id, workspaceId: reservation.workspaceId, bytes, expiresAt: now + RESERVATION_TTL_MS })
      .onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({ bytes: eb(eb.ref('fileReservations.bytes'), '+', eb.ref('excluded.bytes')) })))
      .execute();
    return true;
  });
}

/** Gives back `bytes` of the post's reservation (a file dropped mid-stream, what the post did not use). */
export async function returnFileBytes(database: Database, reservation: FileReservation, bytes: number): Promise<void> {
  if (bytes <= 0) return;
  await database.transaction(async (trx) => {
    await trx
      .updateTable('workspaces')
      .set((eb) => ({ fileBytesReserved: eb('fileBytesReserved', '-', bytes) }))
      .where('id', '=', reservation.workspaceId)
      .execute();
    await trx
      .updateTable('fileReservations')
      .set((eb) => ({ bytes: eb('bytes', '-', bytes) }))
      .where('id', '=', reservation.id)
      .execute();
  });
}

/** The post is not stored: its whole reservation goes back, with its row. */
export async function releaseFileReservation(database: Database, id: string): Promise<void> {
  await database.transaction(async (trx) => takeOffReserved(trx, await settleFileReservations(trx, [id])));
}

/**
 * Deletes these reservations' rows and takes their bytes off each workspace's reserved bytes
 * (workspaces in id order); answers what each workspace had reserved. Only the transaction that
 * deletes a row gives its bytes back, so the writer, a discard and the sweep cannot both do it.
 */
export async function settleFileReservations(trx: Transaction<DB>, ids: readonly string[]): Promise<Map<string, number>> {
  const byWorkspace = new Map<string, number>();
  if (ids.length === 0) return byWorkspace;
  const rows = await trx.deleteFrom('fileReservations').where('id', 'in', ids).returning(['workspaceId', 'bytes']).execute();
  for (const row of rows) byWorkspace.set(row.workspaceId, (byWorkspace.get(row.workspaceId) ?? 0) + Number(row.bytes));
  return byWorkspace;
}

/** Gives back the reservations that expired (a crash's), a batch at a time; answers how many. */
export async function expireFileReservations(database: Database, now = Date.now(), batch = 500): Promise<number> {
  let expired = 0;
  for (;;) {
    const released = await database.transaction(async (trx) => {
      const ids = (await trx.selectFrom('fileReservations').select('id').where('expiresAt', '<=', now).orderBy('expiresAt').limit(batch).execute()).map(
        (row) => row.id,
      );
      const byWorkspace = await settleFileReservations(trx, ids);
      await takeOffReserved(trx, byWorkspace);
      return ids.length;
    });
    expired += released;
    if (released < batch) return expired;
  }
}

/** Takes settled reservations off each workspace's reserved bytes, in id order (PostgreSQL locks rows in one order). */
export async function takeOffReserved(trx: Transaction<DB>, byWorkspace: Map<string, number>, added: Map<string, number> = new Map()): Promise<void> {
  const workspaces = [...new Set([...byWorkspace.keys(), ...added.keys()])].sort();
  for (const workspaceId of workspaces) {
    const reserved = byWorkspace.get(workspaceId) ?? 0;
    const stored = added.get(workspaceId) ?? 0;
    await trx
      .updateTable('workspaces')
      .set((eb) => ({ fileBytes: eb('fileBytes', '+', stored), fileBytesReserved: eb('fileBytesReserved', '-', reserved) }))
      .where('id', '=', workspaceId)
      .execute();
  }
}
