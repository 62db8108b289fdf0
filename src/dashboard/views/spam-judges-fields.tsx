import type { SettingsValues } from '../form-settings-input.js';

interface JudgeCheckProps {
  name: 'spamAssassin' | 'flagDisposableAddresses' | 'flagSameMessage';
  label: string;
  checked: boolean;
  hint: string;
  disabled?: boolean;
}

function JudgeCheck({ name, label, checked, hint, disabled }: JudgeCheckProps) {
  const id = `field-${name}`;
  return (
    <div class="field check">
      <input id={id} type="checkbox" name={name} checked={checked} disabled={disabled} aria-describedby={`${id}-hint`} />
      <label for={id}>{label}</label>
      <p class="hint" id={`${id}-hint`}>
        {hint}
      </p>
    </div>
  );
}

/**
 * The outside spam judges (issue 40, item 4), all off until turned on: part of the settings form
 * (`spamJudgesShown` tells the route they were posted). Each hint says what leaves the machine.
 * Akismet has no switch: it is on while its API key is stored under Secret keys.
 */
export function SpamJudgesFields({ values, spamdAvailable, akismetKeySet }: { values: SettingsValues; spamdAvailable: boolean; akismetKeySet: boolean }) {
  return (
    <fieldset id="spam-judges" aria-describedby="spam-judges-hint">
      <legend>Outside judges</legend>
      <p class="hint" id="spam-judges-hint">
        Extra signals that add to the spam score. Off by default. A judge that is slow or down adds nothing and never holds up a submission.
      </p>
      <input type="hidden" name="spamJudgesShown" value="1" />
      {/* a disabled box is not posted: keep the stored choice while this instance has no spamd */}
      {!spamdAvailable && values.spamAssassin && <input type="hidden" name="spamAssassin" value="on" />}
      <JudgeCheck
        name="spamAssassin"
        label="Ask SpamAssassin"
        checked={values.spamAssassin}
        disabled={!spamdAvailable}
        hint={
          spamdAvailable
            ? 'Each submission’s values, subject and e-mail address are sent to this instance’s SpamAssassin (spamd), which scores them like an e-mail.'
            : 'Not available: this instance has no SpamAssassin (the operator sets FORMGATE_SPAMD_URL).'
        }
      />
      <JudgeCheck
        name="flagDisposableAddresses"
        label="Flag disposable addresses"
        checked={values.flagDisposableAddresses}
        hint="An e-mail address at a throwaway mail service adds points. Checked against a list kept here: nothing leaves this server."
      />
      <JudgeCheck
        name="flagSameMessage"
        label="Same message from many addresses"
        checked={values.flagSameMessage}
        hint="The same message sent from 5 or more addresses within an hour is spam from the fifth on. Leave it off for petitions or forms where people send a shared text."
      />
      <p class="hint" id="akismet-state">
        {akismetKeySet
          ? 'Akismet: on. Each submission’s values, name, e-mail address, IP address, browser and referring page are sent to Akismet with your API key (under Secret keys below).'
          : 'Akismet: off. Store your own Akismet API key under Secret keys below to ask it about each submission.'}
      </p>
    </fieldset>
  );
}
