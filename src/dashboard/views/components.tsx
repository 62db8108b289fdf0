import type { ButtonHTMLAttributes, ComponentChildren, HTMLAttributes } from 'preact';
import { Fragment } from 'preact';
import { formatTime } from '../time-zone.js';
import type { FieldErrors } from '../field-errors.js';

/** The hidden CSRF token every form that changes something carries. */
export function CsrfInput({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}

interface FieldProps {
  label: string;
  name: string;
  type?: 'text' | 'email' | 'password' | 'date' | 'datetime-local' | 'search' | 'url';
  value?: string;
  errors?: FieldErrors;
  hint?: string;
  autocomplete?: string;
  required?: boolean;
  maxLength?: number;
  readOnly?: boolean;
  /** `numeric` for a whole number (a text input, as GOV.UK advises, with the digits keyboard). */
  inputMode?: 'numeric' | 'decimal';
}

/**
 * A labelled input with its hint and its message. The message is tied to the input
 * (aria-describedby, aria-invalid), so a screen reader reads it with the field.
 */
export function Field({ label, name, type = 'text', value, errors, hint, autocomplete, required, maxLength, readOnly, inputMode }: FieldProps) {
  const id = `field-${name}`;
  const error = errors?.[name];
  const described = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <input
        id={id}
        name={name}
        // NOTE: Preact types each input type apart; the union of ours is fine for every one of them.
        {...({ type } as { type: 'text' })}
        value={value}
        autocomplete={autocomplete}
        required={required}
        maxLength={maxLength}
        readOnly={readOnly}
        inputMode={inputMode}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={described}
      />
      {error && (
        <p class="error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** A field of several lines (a list of words, of types), labelled, hinted and with its error, as Field is. */
export function TextArea({
  label,
  name,
  value,
  hint,
  errors,
  rows = 4,
}: {
  label: string;
  name: string;
  value: string;
  hint: string;
  errors?: FieldErrors;
  rows?: number;
}) {
  const id = `field-${name}`;
  const error = errors?.[name];
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <p class="hint" id={`${id}-hint`}>
        {hint}
      </p>
      <textarea id={id} name={name} rows={rows} aria-invalid={error ? 'true' : undefined} aria-describedby={error ? `${id}-hint ${id}-error` : `${id}-hint`}>
        {value}
      </textarea>
      {error && (
        <p class="error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** The message about the form as a whole (a refused login, a conflict), announced when the page loads. */
export function FormError({ errors }: { errors?: FieldErrors }) {
  if (!errors?.form) return null;
  return (
    <div class="alert" role="alert">
      {errors.form}
    </div>
  );
}

/**
 * The end of every page that asks before a change that cannot be undone: the one (danger) button
 * that makes it, and Cancel back to where the person came from. `children`: hidden fields it posts.
 */
export function ConfirmForm({
  csrf,
  action,
  button,
  cancel,
  children,
}: {
  csrf: string;
  action: string;
  button: string;
  cancel: string;
  children?: ComponentChildren;
}) {
  return (
    <form method="post" action={action} class="actions">
      <CsrfInput token={csrf} />
      {children}
      <Button type="submit" variant="danger">
        {button}
      </Button>
      <ButtonLink variant="secondary" href={cancel}>
        Cancel
      </ButtonLink>
    </form>
  );
}

/** A block with a heading of its own: one task of a page. */
export function Panel({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) {
  const headingId = `${id ?? title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-heading`;
  // NOTE: `id` is the panel's anchor: links and redirects lead to `#<id>` (settings#notifications)
  return (
    <section class="panel" id={id} aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      {children}
    </section>
  );
}

/** What to do when a list is empty: a sentence and, where there is one, the next step. */
export function EmptyState({ children }: { children: ComponentChildren }) {
  return <div class="empty">{children}</div>;
}

// NOTE: one formatter for every date: toLocaleString with options builds a new one per call (a fifth
// of a page's time). Made at the first date shown, not at start: building it loads ICU's data (~15 ms).
/** A time in the viewer's zone, with the exact time in a machine-readable attribute and in UTC on hover (time-zone.ts). */
export function Time({ ms, empty = 'Never' }: { ms: number | null; empty?: string }) {
  if (ms === null) return <span>{empty}</span>;
  const { text, utc, iso } = formatTime(ms);
  return (
    <time dateTime={iso} title={utc}>
      {text}
    </time>
  );
}

/** A block of code to copy: scrolls inside itself (never the page) and can be reached from the keyboard to scroll it. */
export function CodeBlock({ id, label, code, copy, wrap }: { id: string; label: string; code: string; copy: string; wrap?: boolean }) {
  return (
    <div class="snippet">
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a block that scrolls sideways must take focus, or a keyboard cannot scroll it (WCAG 2.1.1) */}
      <section class={wrap ? 'snippet-code wrap' : 'snippet-code'} tabIndex={0} aria-label={label}>
        <pre>
          <code id={id}>{code}</code>
        </pre>
      </section>
      <div class="snippet-actions">
        <Button type="button" variant="secondary" data-copy={id} hidden>
          {copy}
        </Button>
        <span id={`${id}-status`} class="muted" aria-live="polite" />
      </div>
    </div>
  );
}

/** A secret shown this once, with Copy (copy.js) and where Copy says it copied: a new token or key, a revealed webhook secret. */
export function SecretValue({ id, secret }: { id: string; secret: string }) {
  return (
    <>
      <div class="secret">
        <code id={id}>{secret}</code>
        <Button type="button" variant="secondary" data-copy={id} hidden>
          Copy
        </Button>
      </div>
      <p id={`${id}-status`} class="muted" aria-live="polite" />
    </>
  );
}

// Where an address or URL may wrap: after each of its separators, but never inside `://`.
const BREAK_AFTER = /(?<=[@./?&=#])(?=[^\s/])/;

/**
 * An email address, URL or other long value that wraps after its separators (`team@` /
 * `example.com`) rather than mid-word (`team@exam` / `ple.com`). Short values stay whole: a break
 * inside them helps no column. A part wider than its column still breaks, as a last resort (CSS).
 */
export function Breakable({ text }: { text: string }) {
  if (text.length < 24 || !BREAK_AFTER.test(text)) return <span class="breakable">{text}</span>;
  return (
    <span class="breakable">
      {text.split(BREAK_AFTER).map((part, i) => (
        <Fragment key={i}>
          {i > 0 && <wbr />}
          {part}
        </Fragment>
      ))}
    </span>
  );
}

/**
 * The dashboard's one set of buttons (app.css): primary, the page's main action (a plain `<button>`
 * is one too); secondary, every other action; danger, what deletes or leads to deleting. `small` for
 * a button inside a list or a line of facts.
 */
export type ButtonVariant = 'primary' | 'secondary' | 'danger';

interface ButtonLook {
  variant?: ButtonVariant;
  small?: boolean;
  /** A further class for the button's place on the page (`keys-button`), never its look. */
  class?: string;
}

function buttonClass({ variant = 'primary', small, class: extra }: ButtonLook, link: boolean): string | undefined {
  const names = [link && 'button', variant !== 'primary' && variant, small && 'small', extra].filter(Boolean);
  return names.length > 0 ? names.join(' ') : undefined;
}

type ButtonProps = ButtonLook & Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'class' | 'className' | 'type'> & { type: 'submit' | 'button' };

/** A button of the set: `<button class="secondary small">`. */
export function Button({ variant, small, class: extra, type, children, ...rest }: ButtonProps) {
  return (
    <button type={type} class={buttonClass({ variant, small, class: extra }, false)} {...rest}>
      {children}
    </button>
  );
}

type ButtonLinkProps = ButtonLook & Omit<HTMLAttributes<HTMLAnchorElement>, 'class' | 'className' | 'role'> & { href: string };

/** A link that looks like a button of the set (it leads to a page: a form, a confirmation): `<a class="button secondary">`. */
export function ButtonLink({ variant, small, class: extra, href, children, ...rest }: ButtonLinkProps) {
  return (
    <a class={buttonClass({ variant, small, class: extra }, true)} href={href} {...rest}>
      {children}
    </a>
  );
}

/**
 * A badge's tone (app.css): accent (the default: on, active, owner), neutral (off, waiting, member),
 * success (delivered), warning (paused, written to a file instead of sent), danger (failed, spam).
 */
export type BadgeTone = 'accent' | 'neutral' | 'success' | 'warning' | 'danger';

/** A short state beside what it qualifies: `<span class="badge neutral">Off</span>`. */
export function Badge({ tone = 'accent', class: extra, children }: { tone?: BadgeTone; class?: string; children: ComponentChildren }) {
  return <span class={['badge', tone !== 'accent' && tone, extra].filter(Boolean).join(' ')}>{children}</span>;
}

/** The lists' search field with its button, and Clear while the list is narrowed (the inbox, the spam folder). */
export function SearchLine({ value, errors, submit, clear }: { value: string; errors: FieldErrors; submit: string; clear: string | null }) {
  return (
    <>
      <Field label="Search" name="search" type="search" value={value} errors={errors} hint="Any field’s name or value" />
      <div class="filter-actions actions">
        <button type="submit">{submit}</button>
        {clear !== null && (
          <a class="button secondary" href={clear}>
            Clear
          </a>
        )}
      </div>
    </>
  );
}
