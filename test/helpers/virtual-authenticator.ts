import type { CDPSession, Page } from 'playwright-core';

export interface VirtualAuthenticator {
  cdp: CDPSession;
  authenticatorId: string;
  /** The passkeys it holds now. */
  credentials(): Promise<{ credentialId: string; isResidentCredential: boolean; signCount: number }[]>;
}

/**
 * Chromium's virtual authenticator on the page (DevTools' WebAuthn domain): a platform
 * authenticator (CTAP2, internal) that keeps discoverable passkeys and verifies the person at once,
 * as a laptop's fingerprint reader would. It lives as long as the page.
 */
export async function addVirtualAuthenticator(page: Page): Promise<VirtualAuthenticator> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    cdp,
    authenticatorId,
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials,
  };
}
