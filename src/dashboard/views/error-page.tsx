import { PublicLayout } from './layout.js';

/** A page that says what went wrong and where to go; never a stack trace. */
/** `home`: where "Go to the dashboard" leads (its own address when the page was reached under another name). */
export function ErrorPage({ title, detail, home = '/' }: { title: string; detail: string; home?: string }) {
  return (
    <PublicLayout title={title}>
      <p>{detail}</p>
      <p>
        <a href={home}>Go to the dashboard</a>
      </p>
    </PublicLayout>
  );
}
