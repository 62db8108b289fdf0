import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { OidcError } from '../../services/oidc-client.js';
import type { OidcSettingsInput } from '../../services/oidc-settings.js';
import { fieldErrors } from '../field-errors.js';
import { setFlash } from '../flash.js';
import { frameFor } from '../frame.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { AdminSignInPage } from '../views/admin-sign-in-page.js';

type SignInBody = Partial<Record<keyof OidcSettingsInput, string>>;

/** The instance admin's single sign-on page, `/admin/sign-in` (issue 43, item 3); anyone else gets the 404 page, as on /admin. */
export function registerAdminSignInRoutes(app: FastifyInstance, ctx: AppContext): void {
  const requireAdmin = async (request: FastifyRequest) => ctx.admin.requireAdmin(accountOf(request).user);
  const preHandler = [requireAccount, requireAdmin];

  app.get('/admin/sign-in', { preHandler }, async (request, reply) => page(request, reply));

  app.post<{ Body: SignInBody }>('/admin/sign-in', { preHandler }, async (request, reply) => {
    const body = request.body ?? {};
    const input: OidcSettingsInput = {
      issuer: String(body.issuer ?? ''),
      clientId: String(body.clientId ?? ''),
      clientSecret: String(body.clientSecret ?? ''),
      name: String(body.name ?? ''),
      // an unticked box sends nothing
      signup: body.signup !== undefined,
      only: body.only !== undefined,
      rules: String(body.rules ?? ''),
    };
    const { user } = accountOf(request);
    try {
      await ctx.oidcSettings.save(user, input);
    } catch (error) {
      const { clientSecret: _secret, ...typed } = input;
      return page(request, reply, { errors: fieldErrors(error), typed }, 400);
    }
    ctx.oidcClient.forget();
    const view = await ctx.oidcSettings.view();
    request.log.warn(
      { by: user.email, configured: view.configured, only: view.only, signup: view.signup },
      'single sign-on settings changed from the admin page',
    );
    if (view.configured) setFlash(reply, 'Single sign-on settings saved.');
    else setFlash(reply, 'Saved. Single sign-on stays off until the issuer URL, the client id and the client secret are all set.', 'warning');
    return seeOther(reply, '/admin/sign-in');
  });

  // the discovery document, read now: whether the settings reach a provider
  app.post('/admin/sign-in/check', { preHandler }, async (request, reply) => {
    const setup = await ctx.oidcSettings.setup();
    if (!setup) {
      setFlash(reply, 'Set the issuer URL, the client id and the client secret first.', 'warning');
      return seeOther(reply, '/admin/sign-in#check');
    }
    try {
      const found = await ctx.oidcClient.check(setup);
      setFlash(reply, `The provider answered: issuer ${found.issuer}, sign-in at ${found.endpoint}.`);
    } catch (error) {
      if (!(error instanceof OidcError)) throw error;
      request.log.warn({ issuer: setup.issuer, why: error.message }, 'single sign-on check failed');
      setFlash(reply, `The provider could not be used: ${error.message}.`, 'warning');
    }
    return seeOther(reply, '/admin/sign-in#check');
  });

  async function page(request: FastifyRequest, reply: FastifyReply, refused?: Pick<Parameters<typeof AdminSignInPage>[0], 'errors' | 'typed'>, status = 200) {
    const frame = await frameFor(request, reply, ctx, { section: 'admin' });
    return sendPage(reply, AdminSignInPage({ frame, settings: await ctx.oidcSettings.view(), ...refused }), status);
  }
}
