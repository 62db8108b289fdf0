// The inbox's keys (issue 41, item 3), as mail clients have them: j and k move between submissions
// (on a submission's page, to the older and the newer one), o or Enter opens, e marks done, # marks
// as spam, u marks unread (or read), / goes to the search, ? lists the keys. A key typed in a field,
// or with Ctrl, Alt or Cmd, is the field's or the browser's: nothing is taken from them.
const list = document.querySelector('table.submission-list');
const help = document.getElementById('keys-help');
const typing = (el) => el instanceof HTMLElement && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
const links = () => (list ? [...list.querySelectorAll('tbody a.who')] : []);
const focused = () => links().indexOf(document.activeElement);

function move(step) {
  const all = links();
  if (all.length === 0) return false;
  const at = focused();
  const next = at < 0 ? 0 : Math.min(all.length - 1, Math.max(0, at + step));
  all[next].focus();
  all[next].scrollIntoView({ block: 'nearest' });
  // with a submission open beside the list, the pane follows (assets/reading-pane.js)
  if (document.getElementById('reading-pane') && window.matchMedia('(min-width: 1100px)').matches) all[next].click();
  return true;
}

// A bulk action on the focused line alone: its box ticked, every other unticked, the action sent.
function act(action) {
  const link = links()[focused()];
  if (!link) return false;
  const form = link.closest('form');
  for (const box of form.querySelectorAll('input[type=checkbox]')) box.checked = false;
  link.closest('tr').querySelector('input[type=checkbox][name=id]').checked = true;
  const field = document.createElement('input');
  field.type = 'hidden';
  field.name = 'action';
  field.value = action;
  form.append(field);
  form.submit();
  return true;
}

// On a submission's page: the element that does what the key says (its data-key), clicked.
function press(key) {
  const target = document.querySelector(`[data-key="${key}"]`);
  if (!target) return false;
  target.click();
  return true;
}

const unreadLine = () => links()[focused()]?.closest('tr')?.classList.contains('unread');
const keys = {
  j: () => (list ? move(1) : press('j')),
  k: () => (list ? move(-1) : press('k')),
  o: () => {
    const link = links()[focused()];
    if (link) link.click();
    return Boolean(link);
  },
  e: () => (list ? act('done') : press('e')),
  '#': () => (list ? act('spam') : press('#')),
  u: () => (list ? act(unreadLine() ? 'read' : 'unread') : press('u')),
  '/': () => {
    const search = document.getElementById('field-search');
    search?.focus();
    return Boolean(search);
  },
  '?': () => {
    if (!help) return false;
    help.showModal();
    return true;
  },
};

document.addEventListener('keydown', (event) => {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || typing(event.target) || help?.open) return;
  const run = Object.hasOwn(keys, event.key) ? keys[event.key] : null;
  if (run?.()) event.preventDefault();
});

for (const button of document.querySelectorAll('[data-keys-help]')) {
  button.hidden = false;
  button.addEventListener('click', () => help?.showModal());
}
