/** The name of the box in every form that offers it; an unticked box sends nothing. */
export const REVOKE_TOKENS_FIELD = 'revokeTokens';

/** Whether a posted form had "Also revoke my API tokens" ticked. */
export function revokeTokensTicked(body: unknown): boolean {
  return typeof body === 'object' && body !== null && Object.hasOwn(body, REVOKE_TOKENS_FIELD);
}

/**
 * "Also revoke my API tokens", ticked by default, with how many are active: offered wherever a
 * stolen session or password is being shut out (a password reset or change, "log out everywhere"),
 * since a token minted with it would otherwise keep working. `id` tells two boxes on one page apart.
 */
export function RevokeTokensCheck({ id, activeTokens }: { id: string; activeTokens: number }) {
  const hint =
    activeTokens === 0
      ? 'Your account has no active API token now.'
      : `Your account has ${activeTokens} active API token${activeTokens === 1 ? '' : 's'}; programs using ${activeTokens === 1 ? 'it' : 'them'} stop working until you create new ones.`;
  return (
    <div class="field check">
      <input id={id} type="checkbox" name={REVOKE_TOKENS_FIELD} value="on" checked aria-describedby={`${id}-hint`} />
      <label for={id}>Also revoke my API tokens</label>
      <p class="hint" id={`${id}-hint`}>
        {hint}
      </p>
    </div>
  );
}
