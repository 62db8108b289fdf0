import { LABEL_COLORS, LABEL_NAME_MAX, LABELS_PER_WORKSPACE, type Label } from '../../domain/labels.js';
import type { FieldErrors } from '../field-errors.js';
import { CsrfInput, EmptyState, Field, FormError, Panel } from './components.js';
import { type Frame, Layout } from './layout.js';
import { LabelBadge } from './submission-list.js';

interface LabelsPageProps {
  frame: Frame;
  workspaceId: string;
  labels: Label[];
  /** A refused new label: what was typed, and why. */
  typed?: { name: string; color: string };
  errors?: FieldErrors;
}

/** A workspace's labels (issue 41, item 7): each one renamed, recoloured or deleted in place, and a new one below. */
export function LabelsPage({ frame, workspaceId, labels, typed, errors }: LabelsPageProps) {
  const path = `/w/${workspaceId}/labels`;
  return (
    <Layout title="Labels" frame={frame}>
      <p class="breadcrumb">
        <a href={`/w/${workspaceId}/submissions`}>← All submissions</a>
      </p>
      <p class="lead">
        Labels sort the workspace’s submissions your own way (“Quote”, “Urgent”, “Press”). Put them on submissions from the inbox or a submission’s page, and
        filter the inbox by one. Every member sees and uses the same labels.
      </p>
      <Panel title="Labels" id="labels">
        {labels.length === 0 ? (
          <EmptyState>No labels yet: make the first one below.</EmptyState>
        ) : (
          <ul class="label-list">
            {labels.map((label) => (
              <li key={label.id}>
                <LabelBadge label={label} />
                <form method="post" action={`${path}/${label.id}`} class="triage-form" aria-label={`Change ${label.name}`}>
                  <CsrfInput token={frame.csrf} />
                  <label for={`name-${label.id}`} class="visually-hidden">
                    Name of {label.name}
                  </label>
                  <input id={`name-${label.id}`} name="name" value={label.name} maxLength={LABEL_NAME_MAX} required class="label-name" />
                  <ColorSelect id={`color-${label.id}`} label={`Colour of ${label.name}`} selected={label.color} hiddenLabel />
                  <button type="submit" class="secondary small">
                    Save<span class="visually-hidden"> {label.name}</span>
                  </button>
                </form>
                <form method="post" action={`${path}/${label.id}/delete`} class="triage-form">
                  <CsrfInput token={frame.csrf} />
                  <button type="submit" class="secondary small">
                    Delete<span class="visually-hidden"> {label.name}</span>
                  </button>
                </form>
              </li>
            ))}
          </ul>
        )}
      </Panel>
      <Panel title="New label" id="new-label">
        <FormError errors={errors} />
        <form method="post" action={path}>
          <CsrfInput token={frame.csrf} />
          <Field label="Name" name="name" value={typed?.name} errors={errors} maxLength={LABEL_NAME_MAX} hint={`At most ${LABEL_NAME_MAX} characters.`} />
          <div class="field">
            <ColorSelect id="field-color" label="Colour" selected={typed?.color ?? 'blue'} />
            {errors?.color && (
              <p class="error" id="field-color-error">
                {errors.color}
              </p>
            )}
          </div>
          <div class="actions">
            <button type="submit">Add label</button>
          </div>
          <p class="hint">A workspace has at most {LABELS_PER_WORKSPACE} labels.</p>
        </form>
      </Panel>
    </Layout>
  );
}

function ColorSelect({ id, label, selected, hiddenLabel }: { id: string; label: string; selected: string; hiddenLabel?: boolean }) {
  return (
    <>
      <label for={id} class={hiddenLabel ? 'visually-hidden' : undefined}>
        {label}
      </label>
      <select id={id} name="color">
        {LABEL_COLORS.map((color) => (
          <option key={color} value={color} selected={color === selected}>
            {color[0]!.toUpperCase() + color.slice(1)}
          </option>
        ))}
      </select>
    </>
  );
}
