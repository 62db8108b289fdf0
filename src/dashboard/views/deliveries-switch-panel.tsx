import type { DeliveriesStatus } from '../../services/delivery-pause.js';
import { Button, CsrfInput } from './components.js';

const number = (n: number) => n.toLocaleString('en-US');

function waitingText(status: DeliveriesStatus): string {
  const n = `${status.waitingCapped ? 'At least ' : ''}${number(status.waiting)}`;
  return `${n} ${status.waiting === 1 ? 'delivery is' : 'deliveries are'} waiting to be sent.`;
}

/** Who paused deliveries, in words: the environment variable, or the row's author and time. */
export function pausedBy(status: Pick<DeliveriesStatus, 'source' | 'pause'>): string {
  if (status.source === 'environment') return 'FORMGATE_DELIVERIES=paused in this instance’s environment';
  return `${status.pause?.by ?? 'unknown'}${status.pause?.at ? ` at ${status.pause.at.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')}` : ''}`;
}

/** The admin page's switch that holds every instance's deliveries (a restored copy starts paused). */
export function DeliveriesSwitchPanel({ status, csrf }: { status: DeliveriesStatus; csrf: string }) {
  const databasePaused = status.pause !== null;
  return (
    <section class="panel" id="deliveries" aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries</h2>
      <p>
        <strong>{status.paused ? `Paused by ${pausedBy(status)}.` : 'Running: emails, webhooks and Slack messages are sent.'}</strong> {waitingText(status)}
      </p>
      <p class="muted">
        Pausing holds every email, webhook and Slack message of every instance within two seconds, account emails too: password resets, invitations, sign-up
        links. Submissions are still accepted; their deliveries wait and are sent once each when you resume. A restored backup starts paused.
      </p>
      {status.source === 'environment' && (
        <p class="notice">FORMGATE_DELIVERIES=paused holds this instance whatever this switch says: remove it and restart the instance to send.</p>
      )}
      <form method="post" action="/admin/deliveries">
        <CsrfInput token={csrf} />
        <input type="hidden" name="deliveries" value={databasePaused ? 'on' : 'paused'} />
        <Button type="submit" variant={databasePaused ? 'primary' : 'danger'}>
          {databasePaused ? 'Resume deliveries' : 'Pause deliveries'}
        </Button>
      </form>
    </section>
  );
}
