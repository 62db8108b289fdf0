import { PublicLayout } from './layout.js';

/** A page that says what went wrong and where to go; never a stack trace. */
export function ErrorPage({ title, detail }: { title: string; detail: string }) {
  return (
    <PublicLayout title={title}>
      <p>{detail}</p>
      <p>
        <a href="/">Go to the dashboard</a>
      </p>
    </PublicLayout>
  );
}
