/** Where a list's pages lead: the next one, and back to the first (null where there is none). */
export interface Pager {
  next: string | null;
  newest: string | null;
}

interface PagerProps {
  pager: Pager;
  /** The navigation's name; a page with two paged lists names each apart ("Pages of accounts"). */
  label?: string;
  /** The link back to the first page: "Back to the newest" where the list is newest first. */
  firstText?: string;
  /** The link to the next page. */
  nextText?: string;
}

/** Every paged list's links: back to the first page and on to the next, as far as there are such pages; nothing on a list of one page. */
export function PagerLinks({ pager, label = 'Pages', firstText = 'Back to the newest', nextText = 'Next page' }: PagerProps) {
  if (!pager.next && !pager.newest) return null;
  return (
    <nav class="pager" aria-label={label}>
      {pager.newest && <a href={pager.newest}>{firstText}</a>}
      {pager.next && <a href={pager.next}>{nextText}</a>}
    </nav>
  );
}
