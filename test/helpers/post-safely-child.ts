// Run as a child process (test/unit/safe-http.test.ts), e.g. inside a network namespace with no
// route: posts to `url`, its host resolved to `address`, and prints how the call ended as one JSON
// line. Exits 0 when the call settled, whatever its outcome; a crash exits non-zero.
import { postJsonSafely } from '../../src/net/safe-http.js';
import { DeliveryError } from '../../src/domain/delivery-error.js';

const [url, address, allowPrivate] = process.argv.slice(2) as [string, string, string];
const lookup = async () => [{ address, family: address.includes(':') ? 6 : 4 }];
try {
  const result = await postJsonSafely(
    url,
    '{}',
    { 'content-type': 'application/json' },
    { allowPrivate: allowPrivate === 'allow-private', lookup, timeoutMs: 5_000 },
  );
  process.stdout.write(`${JSON.stringify({ outcome: 'answered', status: result.status })}\n`);
} catch (err) {
  const permanent = err instanceof DeliveryError ? err.permanent : null;
  const code = ((err as Error).cause as NodeJS.ErrnoException | undefined)?.code ?? null;
  process.stdout.write(
    `${JSON.stringify({ outcome: 'failed', deliveryError: err instanceof DeliveryError, permanent, code, message: (err as Error).message })}\n`,
  );
}
