let known: Set<string> | null = null;

/** Whether `name` is an IANA time zone this runtime knows (`Intl.supportedValuesOf('timeZone')`, and UTC). */
export function isTimeZone(name: unknown): name is string {
  if (typeof name !== 'string' || name.length > 64) return false;
  known ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);
  return known.has(name);
}

/** Every zone an account can choose, sorted. */
export function timeZones(): string[] {
  isTimeZone('UTC');
  return [...known!].sort();
}
