import type { ComponentChildren } from 'preact';

/** One column of a DataTable: its header, where its cells' phone-width label comes from too. */
export interface Column<Row> {
  /** The header, and the label each of its cells shows when rows stack at phone width. */
  label: string;
  /** Header and phone labels hidden from sight (an actions column); the label stays the column's accessible name. */
  hideLabel?: boolean;
  /** A class for the header and every cell of the column: its width, its cells' layout. */
  class?: string;
  /** The cells name their rows (`<th scope="row">`), as a day names a row of counts. */
  rowHeader?: boolean;
  /** The cell of one row. */
  cell: (row: Row) => ComponentChildren;
}

/** A column that appears only on some pages (a Plan column when plans apply): `false` leaves it out. */
export type MaybeColumn<Row> = Column<Row> | false | null | undefined;

interface TableName {
  /** A visible caption above the table: what it counts. */
  caption?: string;
  /** The table's accessible name when the heading above it already says it to the eye. */
  label?: string;
}

interface DataTableProps<Row> extends TableName {
  columns: MaybeColumn<Row>[];
  rows: Row[];
  /** A key that tells the rows apart (an id). */
  rowKey: (row: Row) => string;
  /** The table's own class: `deliveries`, `team`, … (CSS). */
  class?: string;
  /** The wrapper's further classes: `listing` (long values wrap anywhere), `panel`. */
  wrapClass?: string;
  /** Each row stacks as "label: value" lines at phone width (default); false for a narrow table that fits as it is. */
  stack?: boolean;
}

const classes = (...names: (string | false | undefined)[]) => names.filter(Boolean).join(' ') || undefined;

/**
 * A table whose columns are declared once: the header row and, in a stacked table, every cell's
 * `data-label` (the "label: value" lines of a row at phone width, app.css) come from the same
 * label, so the phone layout never disagrees with the header.
 */
export function DataTable<Row>({ columns, rows, rowKey, caption, label, class: tableClass, wrapClass, stack = true }: DataTableProps<Row>) {
  const shown = columns.filter((c): c is Column<Row> => Boolean(c));
  return (
    <div class={classes('table-wrap', wrapClass)}>
      <table class={classes(stack && 'stack', tableClass)} aria-label={label}>
        {caption && <caption class="muted">{caption}</caption>}
        <thead>
          <tr>
            {shown.map((c) => (
              <th scope="col" class={c.class} key={c.label}>
                {c.hideLabel ? <span class="visually-hidden">{c.label}</span> : c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {shown.map((c) => {
                const props = { 'data-label': stack ? c.label : undefined, class: classes(c.class, stack && c.hideLabel && 'unlabelled') };
                return c.rowHeader ? (
                  <th scope="row" key={c.label} {...props}>
                    {c.cell(row)}
                  </th>
                ) : (
                  <td key={c.label} {...props}>
                    {c.cell(row)}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
