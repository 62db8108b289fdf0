import type { Plan } from '../../domain/plans.js';
import { uploadCeilings } from '../../domain/uploads.js';
import { megabytes } from '../../services/form-uploads.js';
import type { FieldErrors } from '../field-errors.js';
import type { SettingsValues } from '../form-settings-input.js';
import { Field, TextArea } from './components.js';
import { type SectionState, SettingsSectionPanel } from './settings-section.js';

/** The service names `fileUploads.<key>`; the panel's inputs have their own names. */
function panelErrors(errors: FieldErrors | undefined): FieldErrors | undefined {
  if (!errors) return undefined;
  const found = (prefix: string) => Object.entries(errors).find(([key]) => key === prefix || key.startsWith(`${prefix}[`))?.[1];
  return {
    uploadMaxFileSizeMb: found('fileUploads.maxFileSize') ?? '',
    uploadMaxTotalSizeMb: found('fileUploads.maxTotalSize') ?? '',
    uploadAllowedTypes: found('fileUploads.allowedTypes') ?? found('fileUploads') ?? '',
  };
}

/**
 * A form's `fileUploads`: on or off, the limits in MB within the plan's ceilings, the allowed
 * types. A section of the settings page (saved on its own); `uploadsShown` tells the route it was posted.
 */
export function FileUploadsPanel({
  values,
  plan,
  upgraded,
  team = false,
  errors,
  section,
}: {
  values: SettingsValues;
  section: SectionState;
  plan: Plan;
  upgraded?: boolean;
  /** Team mode speaks no plans (issue 41, item 16): the ceilings are the installation's. */
  team?: boolean;
  errors?: FieldErrors;
}) {
  const ceilings = uploadCeilings(plan, upgraded);
  const allows = team ? 'This installation allows' : 'Your plan allows';
  const shown = panelErrors(errors);
  return (
    <SettingsSectionPanel id="file-uploads" state={section}>
      <input type="hidden" name="uploadsShown" value="1" />
      <div class="field check">
        <input id="field-uploadsEnabled" type="checkbox" name="uploadsEnabled" checked={values.uploadsEnabled} aria-describedby="field-uploadsEnabled-hint" />
        <label for="field-uploadsEnabled">Accept file uploads</label>
        <p class="hint" id="field-uploadsEnabled-hint">
          Files sent with a submission (multipart/form-data) are stored with it. When off, files are dropped and the rest of the submission is kept; the
          submission says which file was dropped.
        </p>
      </div>
      <Field
        label="Largest file (MB)"
        name="uploadMaxFileSizeMb"
        value={values.uploadMaxFileSizeMb}
        errors={shown}
        inputMode="decimal"
        hint={`${allows} up to ${megabytes(ceilings.maxFileSize)} a file. Empty: 10 MB.`}
      />
      <Field
        label="All files of a submission (MB)"
        name="uploadMaxTotalSizeMb"
        value={values.uploadMaxTotalSizeMb}
        errors={shown}
        inputMode="decimal"
        hint={`${allows} up to ${megabytes(ceilings.maxTotalSize)} a submission; at least the largest file. Empty: 25 MB.`}
      />
      {/* the list is long (16 types by default): a textarea shows it whole */}
      <TextArea
        label="Allowed types"
        name="uploadAllowedTypes"
        rows={3}
        value={values.uploadAllowedTypes}
        errors={shown}
        hint="Extensions such as .pdf and content types such as application/pdf or image/*, separated by commas. A submission with a file of any other type is refused. Empty: common documents and images."
      />
      <p class="hint" id="file-uploads-storage">
        {`Files count against the workspace’s storage of ${megabytes(ceilings.storageBytes)} (shown on the workspace’s page); once it is used up, new files are dropped.`}
      </p>
    </SettingsSectionPanel>
  );
}
