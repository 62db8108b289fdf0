import * as OTPAuth from 'otpauth';

/** The code an authenticator app with this secret (base32, spaces allowed) shows `offsetSteps` 30-second steps from now. */
export function totpCode(secretText: string, offsetSteps = 0): string {
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secretText.replace(/\s/g, '')), digits: 6, period: 30 });
  return totp.generate({ timestamp: Date.now() + offsetSteps * 30_000 });
}

/** Waits out the last 3 seconds of a 30-second step, so that a code made now is judged in the same step. */
export async function awayFromStepEdge(): Promise<void> {
  const intoStep = (Date.now() / 1000) % 30;
  if (intoStep > 27) await new Promise((resolve) => setTimeout(resolve, (30 - intoStep + 0.2) * 1000));
}
