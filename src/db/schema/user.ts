import type { Generated, Insertable, Selectable } from 'kysely';

/** An account: a person who owns tokens and belongs to workspaces. */
export interface UserTable {
  id: string;
  email: string;
  passwordHash: string | null;
  /** 1 for the instance admin (the installation's first account): the dashboard's admin page. */
  isAdmin: Generated<number>;
  /** IANA time zone the dashboard shows times in (migration 0022); null: the browser's. */
  timeZone: Generated<string | null>;
  /** When the instance admin disabled the account: it cannot log in and its sessions and tokens stop working; null: active. */
  disabledAt: Generated<number | null>;
  /** The authenticator app's secret, sealed (services/sealed-values.ts); null: no app (migration 0041). */
  totpSecret: Generated<string | null>;
  /** The time step of the last app code accepted: an older or the same step is refused (replay). */
  totpLastStep: Generated<number | null>;
  /** When the account got a second factor (an app or a passkey); null: it has none. */
  secondFactorAt: Generated<number | null>;
  createdAt: number;
}
export type UserRow = Selectable<UserTable>;
export type NewUserRow = Insertable<UserTable>;

/** Key/value settings of the installation, such as the generated signing secret. */
export interface SettingTable {
  key: string;
  value: string;
  createdAt: Generated<number>;
}
