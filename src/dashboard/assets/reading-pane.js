// The inbox's reading pane (issue 41, item 2). Every line links to its own address, the list with the
// submission open beside it (`?submission=<id>`), which the server renders whole: without this script
// that is the page. With it, at widths where the pane sits beside the list, choosing a line fetches
// that address and swaps in its pane, its line and the form's tabs (the unread count), without a
// reload: the list keeps its scroll, its ticked boxes and the focus. Back and Forward do the same.
const wide = window.matchMedia('(min-width: 1100px)');
const split = document.querySelector('.reading-split');
const status = document.getElementById('pane-status');
let loading = null;

function rowOf(id, root = document) {
  return root.querySelector(`.submission-list tr[data-id="${CSS.escape(id)}"]`);
}

// a line as the server now renders it (read, marked current), its ticked box kept
function swapRow(id, fresh) {
  const old = rowOf(id);
  const next = rowOf(id, fresh);
  if (!old || !next) return;
  const ticked = old.querySelector('input[type=checkbox]')?.checked;
  const box = next.querySelector('input[type=checkbox]');
  if (box) box.checked = Boolean(ticked);
  const hadFocus = old.contains(document.activeElement);
  old.replaceWith(next);
  if (hadFocus) next.querySelector('a.who')?.focus();
}

function swap(fresh, url) {
  const oldPane = document.getElementById('reading-pane');
  const newPane = fresh.getElementById('reading-pane');
  const before = oldPane?.dataset.submission;
  const after = newPane?.dataset.submission;
  if (oldPane) oldPane.remove();
  if (newPane) split.append(newPane);
  split.classList.toggle('has-pane', Boolean(newPane));
  for (const id of new Set([before, after])) if (id) swapRow(id, fresh);
  const tabs = document.querySelector('nav.tabs');
  const freshTabs = fresh.querySelector('nav.tabs');
  if (tabs && freshTabs) tabs.replaceWith(freshTabs);
  document.title = fresh.title;
  if (status) status.textContent = newPane ? `Opened ${newPane.querySelector('h2')?.textContent ?? 'the submission'}` : 'Closed the submission';
  // a link outside the list (Newer, Older) moves the list's focus along, so j and k go on from there
  const focused = after ? rowOf(after)?.querySelector('a.who') : null;
  if (focused && newPane?.contains(document.activeElement)) focused.focus();
  focused?.scrollIntoView({ block: 'nearest' });
  return url;
}

async function open(url, push) {
  loading?.abort();
  const controller = new AbortController();
  loading = controller;
  try {
    const response = await fetch(url, { signal: controller.signal, credentials: 'same-origin' });
    // anything but the inbox page (a moved submission's page, an error, a sign-in): go there for real
    if (!response.ok || response.redirected || !(response.headers.get('content-type') ?? '').startsWith('text/html')) {
      window.location.assign(response.url || url);
      return;
    }
    const fresh = new DOMParser().parseFromString(await response.text(), 'text/html');
    if (!fresh.querySelector('.reading-split')) {
      window.location.assign(url);
      return;
    }
    if (push) history.pushState({ pane: true }, '', url);
    swap(fresh, url);
  } catch (error) {
    if (error.name !== 'AbortError') window.location.assign(url);
  } finally {
    if (loading === controller) loading = null;
  }
}

if (split) {
  // one listener for the lines and the pane's links (Newer, Older, Close), which swapping replaces
  split.addEventListener('click', (event) => {
    const link = event.target instanceof Element ? event.target.closest('a[data-pane], a[data-pane-close]') : null;
    // a new tab, a download, or a phone's width (list, then the page) are the browser's
    if (!link || !wide.matches || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    open(link.href, true);
  });
  window.addEventListener('popstate', () => {
    if (wide.matches) open(window.location.href, false);
    else window.location.reload();
  });
}
