import { TEAM_MODE_WITH_OPEN_SIGNUP } from '../../services/instance-settings.js';
import type { FieldErrors } from '../field-errors.js';
import { CsrfInput, Field, FormError } from './components.js';
import { PublicLayout } from './layout.js';

interface SetupProps {
  csrf: string;
  email?: string;
  /** The first workspace's name: offered on a first visit, as typed after a refusal. */
  workspaceName?: string;
  /** The choice to show as taken: "team" on a first visit ("hosting" with open sign-up). */
  usage?: string;
  /** FORMGATE_DEFAULT_PLAN is set: plans apply, the question is not asked. */
  plansFromEnvironment: boolean;
  /** FORMGATE_SIGNUP=open: hosting is proposed, and team mode comes with a warning. */
  openSignup?: boolean;
  errors?: FieldErrors;
}

const CHOICES = [
  {
    value: 'team',
    label: 'For me and my team',
    hint: 'Every workspace gets every feature (REST API, autoresponder, unbranded pages, large uploads) with no limit on forms, submissions or members.',
  },
  {
    value: 'hosting',
    label: 'Hosting forms for others',
    hint: 'Workspaces start on the Free plan with its limits; you upgrade them from the admin page, as a payment would.',
  },
] as const;

/** A fresh installation's first page: its first account (the instance admin), its first workspace's name, and how it is used. */
export function SetupPage({ csrf, email, workspaceName, usage, plansFromEnvironment, openSignup = false, errors }: SetupProps) {
  const chosen = usage ?? (openSignup ? 'hosting' : 'team');
  const error = errors?.usage;
  return (
    <PublicLayout title="Set up Formgate" lead="Create the first account of this installation: it becomes the instance admin.">
      <FormError errors={errors} />
      <form method="post" action="/setup" noValidate>
        <CsrfInput token={csrf} />
        <Field label="Email" name="email" type="email" value={email} autocomplete="username" required errors={errors} />
        <Field label="Password" name="password" type="password" autocomplete="new-password" hint="At least 8 characters." required errors={errors} />
        <Field
          label="Workspace name"
          name="workspaceName"
          value={workspaceName}
          hint="Your first workspace, which holds your forms and your team: your organisation’s name, for example. 1 to 128 characters; you can rename it later."
          autocomplete="organization"
          required
          errors={errors}
        />
        {plansFromEnvironment ? (
          <p class="notice">FORMGATE_DEFAULT_PLAN is set, so this installation hosts forms for others: plans and their limits apply.</p>
        ) : (
          <fieldset class="usage-choice" aria-describedby={error ? 'usage-error' : undefined}>
            <legend>How will this installation be used?</legend>
            {CHOICES.map((choice) => (
              <div class="field check" key={choice.value}>
                <input
                  id={`usage-${choice.value}`}
                  type="radio"
                  name="usage"
                  value={choice.value}
                  checked={chosen === choice.value}
                  aria-describedby={`usage-${choice.value}-hint`}
                />
                <label for={`usage-${choice.value}`}>{choice.label}</label>
                <p class="hint" id={`usage-${choice.value}-hint`}>
                  {choice.hint}
                </p>
              </div>
            ))}
            {openSignup && (
              <p class="notice" id="team-mode-open-signup">
                {TEAM_MODE_WITH_OPEN_SIGNUP}
              </p>
            )}
            <p class="hint">You can change this later on the admin page.</p>
            {error && (
              <p class="error" id="usage-error">
                {error}
              </p>
            )}
          </fieldset>
        )}
        <button type="submit">Create the admin account</button>
      </form>
    </PublicLayout>
  );
}
