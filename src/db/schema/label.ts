/** A workspace's label (migration 0034): a name and one of the palette's colours (domain/labels.ts). */
export interface LabelTable {
  id: string;
  workspaceId: string;
  name: string;
  /** The name in lower case: unique per workspace. */
  folded: string;
  color: string;
  createdAt: number;
}

/** A label on a submission, with the submission's time (a label's view reads its own index newest first). */
export interface SubmissionLabelTable {
  submissionId: string;
  labelId: string;
  createdAt: number;
}
