// How a value read from SQLite is written to PostgreSQL, and the form both sides' values take in a
// table's checksum, decided by the target column's type. The two schemas differ only in these types
// (both migrations' columns are text, integer/bigint, JSON): SQLite keeps JSON as text where
// PostgreSQL has json or jsonb, and integers where it could have boolean.
import { createHash } from 'node:crypto';

type Kind = 'integer' | 'number' | 'boolean' | 'json' | 'jsonb' | 'bytes' | 'text';

const KINDS: Record<string, Kind> = {
  int2: 'integer',
  int4: 'integer',
  int8: 'integer',
  numeric: 'number',
  float4: 'number',
  float8: 'number',
  bool: 'boolean',
  json: 'json',
  jsonb: 'jsonb',
  bytea: 'bytes',
};

/** How the values of a PostgreSQL column type (`udt_name`) are converted and compared. */
export function kindOf(type: string): Kind {
  return KINDS[type] ?? 'text';
}

/**
 * The value SQLite gave, as a query parameter for a column of `kind`. JSON text is sent as it is
 * (PostgreSQL's json keeps it verbatim, so a submission's fields keep their order); 0/1 become booleans.
 */
export function toPostgres(value: unknown, kind: Kind): unknown {
  if (value === null || value === undefined) return null;
  if (kind === 'boolean') return Number(value) !== 0;
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/**
 * A value as the checksum sees it, the same from either side: integers and numbers as numbers, jsonb
 * (whose key order PostgreSQL changes) as JSON with sorted keys, json and text as their exact text.
 */
function canonical(value: unknown, kind: Kind): unknown {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case 'integer':
      return typeof value === 'bigint' ? value.toString() : String(Number(value));
    case 'number':
      return String(Number(value));
    case 'boolean':
      return Number(value) !== 0;
    case 'jsonb':
      return sortedJson(typeof value === 'string' ? JSON.parse(value) : value);
    case 'json':
      return typeof value === 'string' ? value : JSON.stringify(value);
    case 'bytes':
      return Buffer.isBuffer(value) ? value.toString('base64') : String(value);
    default:
      return Buffer.isBuffer(value) ? value.toString('base64') : String(value);
  }
}

function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${sortedJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

const MASK = (1n << 64n) - 1n;

/**
 * A table's row count and checksum: the sum (mod 2^64) of each row's SHA-256 (its first 8 bytes) over
 * its canonical values. A sum does not depend on the order the rows are read in, which differs
 * between the two databases (rowid, heap order), and a changed, missing or extra row changes it.
 */
export class TableChecksum {
  rows = 0;
  private sum = 0n;

  constructor(private readonly kinds: readonly Kind[]) {}

  /** Adds one row, its values in the order of `kinds`. */
  add(values: readonly unknown[]): void {
    const canonicalValues = values.map((value, i) => canonical(value, this.kinds[i]!));
    const digest = createHash('sha256').update(JSON.stringify(canonicalValues)).digest();
    this.sum = (this.sum + digest.readBigUInt64BE(0)) & MASK;
    this.rows += 1;
  }

  /** 16 hex digits. */
  get hex(): string {
    return this.sum.toString(16).padStart(16, '0');
  }
}
