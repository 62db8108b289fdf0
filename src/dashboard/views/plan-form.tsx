import type { WorkspaceSummary } from '../../services/admin.js';
import { planLabel, PLANS } from '../../domain/plans.js';
import { Button, CsrfInput } from './components.js';

/** The admin's plan change for one workspace: a select labelled with its name, and a button that says what it does. */
export function PlanForm({ workspace, csrf, back, error }: { workspace: WorkspaceSummary; csrf: string; back: string; error?: string }) {
  const id = `plan-${workspace.id}`;
  return (
    <form method="post" action={`/admin/workspaces/${workspace.id}/plan`} class="plan-form">
      <CsrfInput token={csrf} />
      <input type="hidden" name="back" value={back} />
      <label for={id}>Plan for {workspace.name}</label>
      <div class="plan-controls">
        <select id={id} name="plan" aria-invalid={error ? 'true' : undefined} aria-describedby={error ? `${id}-error` : undefined}>
          {PLANS.map((plan) => (
            <option key={plan} value={plan} selected={plan === workspace.plan}>
              {planLabel(plan)}
            </option>
          ))}
        </select>
        <Button type="submit" variant="secondary">
          Change plan
        </Button>
      </div>
      {error && (
        <p class="error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </form>
  );
}
