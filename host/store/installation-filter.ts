// The one query behind InstallationStore.listInstallations for every SQL store: the filter's
// fields as conditions, (createdAt, id) order, the `after` position and the limit. Pure: it builds
// the statement text and its values; `placeholder(n)` spells the n-th parameter (`?` or `$n`).

import type { InstallationFilter } from '../installations/model.ts';

/** Columns come from this fixed list, never from the filter: only values are parameters. */
const COLUMNS = [
  ['integration', 'integration'],
  ['organization', 'organization'],
  ['target', 'target'],
  ['parent', 'parent'],
] as const;

export function installationListQuery(
  filter: InstallationFilter,
  placeholder: (index: number) => string,
): { sql: string; values: (string | number)[] } {
  const where: string[] = [];
  const values: (string | number)[] = [];
  const next = (value: string | number): string => {
    values.push(value);
    return placeholder(values.length);
  };
  for (const [field, column] of COLUMNS) {
    const value = filter[field];
    if (value !== undefined) where.push(`${column} = ${next(value)}`);
  }
  if (filter.after !== undefined) {
    const at = next(filter.after.createdAt);
    where.push(
      `(created_at > ${at} OR (created_at = ${next(filter.after.createdAt)} AND id > ${next(filter.after.id)}))`,
    );
  }
  const limit = filter.limit !== undefined ? ` LIMIT ${next(filter.limit)}` : '';
  return {
    sql:
      `SELECT * FROM installations${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ` +
      `ORDER BY created_at, id${limit}`,
    values,
  };
}
