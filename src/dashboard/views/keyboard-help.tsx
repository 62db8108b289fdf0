import { Fragment } from 'preact';

/** The inbox's keys (assets/inbox-keys.js), for the `?` key's dialog. */
const KEYS: [string[], string][] = [
  [['j', 'k'], 'Next / previous submission'],
  [['o', 'Enter'], 'Open it'],
  [['e'], 'Mark as done'],
  [['#'], 'Mark as spam'],
  [['u'], 'Mark as unread (or read)'],
  [['/'], 'Search'],
  [['?'], 'This list'],
];

/**
 * The list of keys, in a dialog the `?` key (or its button, shown once the script runs) opens; a
 * native `<dialog>`: focus moves into it, Escape and Close close it.
 */
export function KeyboardHelp() {
  return (
    <dialog id="keys-help" class="keys-help" aria-labelledby="keys-help-title">
      <h2 id="keys-help-title">Keyboard shortcuts</h2>
      <dl class="facts">
        {KEYS.map(([key, what]) => (
          <Fragment key={key[0]}>
            <dt>
              {key.map((one, i) => (
                <Fragment key={one}>
                  {i > 0 && ' '}
                  <kbd>{one}</kbd>
                </Fragment>
              ))}
            </dt>
            <dd>{what}</dd>
          </Fragment>
        ))}
      </dl>
      <p class="muted">Keys typed in a field stay in the field.</p>
      <form method="dialog">
        <button type="submit">Close</button>
      </form>
    </dialog>
  );
}

/** The button that opens the list, hidden until the script can open it. */
export function KeyboardHelpButton() {
  return (
    <button type="button" class="link-button keys-button" data-keys-help hidden>
      Keyboard shortcuts (?)
    </button>
  );
}
