/**
 * The days a form may keep its submissions before the hourly retention deletes them (issue 27): at
 * least a day (the run is hourly), at most ten years (past that, a number is a typing slip).
 */
export const RETENTION_DAYS = { min: 1, max: 3650 } as const;
