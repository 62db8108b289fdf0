import type { ComponentChildren } from 'preact';
import { CsrfInput } from './components.js';

/**
 * A list's bulk form (the inbox's, the spam folder's): the page to come back to, the page's ids (so
 * that "Select all on this page" works without script: routes' bulkTicks), the select-all box and
 * the list's own `actions` above its lines (`children`).
 */
export function BulkForm({
  action,
  label,
  csrf,
  back,
  ids,
  actions,
  children,
}: {
  action: string;
  label: string;
  csrf: string;
  back: string;
  ids: string[];
  actions: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <form method="post" action={action} aria-label={label}>
      <CsrfInput token={csrf} />
      <input type="hidden" name="back" value={back} />
      {ids.map((id) => (
        <input type="hidden" name="pageId" value={id} key={id} />
      ))}
      <div class="bulk-actions">
        <span class="select-all">
          {/* as mail clients have it: the box above the lines' boxes, its name for a screen reader and on hover */}
          <input type="checkbox" name="all" value="1" id="select-all" data-select-all="id" title="Select all on this page" />
          <label for="select-all" class="visually-hidden">
            Select all on this page
          </label>
        </span>
        {actions}
      </div>
      {children}
    </form>
  );
}
