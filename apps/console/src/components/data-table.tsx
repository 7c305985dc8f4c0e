import type { Key, ReactNode } from 'react';
import { Pager, type CursorPages } from './pager';
import { QueryState } from './states';
import { TableBox } from './table-box';

/** A column of a `DataTable`: its header (hidden from sight for a column of buttons) and what each row shows in it. */
export interface Column<Row> {
  header: string;
  cell: (row: Row) => ReactNode;
  /** Right-aligned, in tabular figures. */
  numeric?: boolean;
  /** Long text that may break anywhere (e-mails, ids). */
  wrap?: boolean;
  /** The header is for screen readers only (a column of actions). */
  hiddenHeader?: boolean;
}

/** The console's one table: headers with their scope, a box that scrolls sideways on a narrow screen. */
export function DataTable<Row>({ label, columns, rows, rowKey }: { label: string; columns: Column<Row>[]; rows: Row[]; rowKey: (row: Row) => Key }) {
  return (
    <TableBox label={label}>
      <table>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.header} scope="col" className={column.numeric ? 'number' : undefined}>
                {column.hiddenHeader ? <span className="visually-hidden">{column.header}</span> : column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((column) => (
                <td key={column.header} className={column.numeric ? 'number' : column.wrap ? 'wrap' : undefined}>
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </TableBox>
  );
}

/** A list the API answers by pages: its loading, error and empty states, the table, and the pager. */
export function PagedTable<Row>({
  query,
  pages,
  label,
  empty,
  columns,
  rowKey,
}: {
  query: { isPending: boolean; error: unknown; data: { items: Row[]; nextCursor: string | null } | undefined; refetch: () => unknown };
  pages: CursorPages;
  label: string;
  empty: ReactNode;
  columns: Column<Row>[];
  rowKey: (row: Row) => Key;
}) {
  return (
    <QueryState query={query} isEmpty={(data) => data.items.length === 0} empty={empty}>
      {(data) => (
        <>
          <DataTable label={label} columns={columns} rows={data.items} rowKey={rowKey} />
          <Pager pages={pages} nextCursor={data.nextCursor} label={label} />
        </>
      )}
    </QueryState>
  );
}
