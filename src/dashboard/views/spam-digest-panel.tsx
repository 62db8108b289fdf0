import type { DigestFrequency } from '../../domain/spam-digest.js';
import type { DigestSettings } from '../../services/spam-digests.js';
import type { FieldErrors } from '../field-errors.js';
import { CsrfInput, FormError, Panel } from './components.js';

const CHOICES: { value: DigestFrequency; label: string }[] = [
  { value: 'daily', label: 'Daily' },
  { value: 'weekly', label: 'Weekly' },
  { value: 'off', label: 'Off: no digest for anyone' },
];

interface SpamDigestPanelProps {
  workspaceId: string;
  csrf: string;
  settings: DigestSettings;
  errors?: FieldErrors;
}

/** The workspace's spam digest: how often it goes out, for everyone, and whether this member gets it. */
export function SpamDigestPanel({ workspaceId, csrf, settings, errors }: SpamDigestPanelProps) {
  const describedBy = errors?.frequency ? 'field-frequency-hint field-frequency-error' : 'field-frequency-hint';
  return (
    <Panel title="Spam digest" id="spam-digest">
      <p>
        An email listing what the spam filter caught since the last one, with who sent it, its first line and why it was caught. Each has a{' '}
        <strong>Not spam</strong> link that moves it to the inbox and sends its deliveries. No email when nothing was caught.
      </p>
      <FormError errors={errors} />
      <form method="post" action={`/w/${workspaceId}/settings/spam-digest`} noValidate>
        <CsrfInput token={csrf} />
        <div class="field">
          <label for="field-frequency">How often</label>
          <p class="hint" id="field-frequency-hint">
            For every member of this workspace.
          </p>
          <select id="field-frequency" name="frequency" aria-describedby={describedBy} aria-invalid={errors?.frequency ? 'true' : undefined}>
            {CHOICES.map((choice) => (
              <option key={choice.value} value={choice.value} selected={choice.value === settings.frequency}>
                {choice.label}
              </option>
            ))}
          </select>
          {errors?.frequency && (
            <p class="error" id="field-frequency-error">
              {errors.frequency}
            </p>
          )}
        </div>
        <div class="field check">
          <input id="field-mine" type="checkbox" name="mine" value="on" checked={settings.mine} aria-describedby="field-mine-hint" />
          <label for="field-mine">Send the digest to me</label>
          <p class="hint" id="field-mine-hint">
            Only you: the other members choose for themselves.
          </p>
        </div>
        <button type="submit">Save spam digest</button>
      </form>
    </Panel>
  );
}
