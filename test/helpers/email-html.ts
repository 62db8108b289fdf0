import { HtmlValidate } from 'html-validate';

/**
 * html-validate's recommended rules, as an email's HTML must pass them (issue 39, item 10), with one
 * rule off: `no-inline-style`. Email clients drop or rewrite `<style>` sheets (Gmail keeps only some,
 * Outlook's Word engine others), so inline `style` attributes are how an email is styled; the rule
 * is written for web pages served with a Content-Security-Policy.
 */
const validator = new HtmlValidate({
  extends: ['html-validate:recommended'],
  rules: { 'no-inline-style': 'off' },
});

/** Every finding of the rules above, as `rule: message (line:column)`; none for valid HTML. */
export async function emailHtmlProblems(html: string): Promise<string[]> {
  const report = await validator.validateString(html);
  return report.results.flatMap((result) => result.messages.map((m) => `${m.ruleId}: ${m.message} (${m.line}:${m.column})`));
}
