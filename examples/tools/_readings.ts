/** Shared by the tools of this directory; the leading underscore keeps it from being loaded as a tool file. */
export function readingsAtOrAbove<T extends { value: number | string }>(rows: readonly T[], goal: number): T[] {
  // PostgreSQL returns `double precision` as a number but `numeric` as a string.
  return rows.filter((row) => Number(row.value) >= goal);
}
