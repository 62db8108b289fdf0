/** One UTC day in milliseconds: daily counts, date ranges and charts step by it. */
export const DAY_MS = 86_400_000;
