import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { TEST_DIALECT } from './database.js';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];
const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** Where every page's screenshots go (git-ignored): look at them. */
export const SCREENSHOT_DIR = path.resolve('test-results/screenshots', TEST_DIALECT);
/**
 * FORMGATE_TEST_SCREENSHOTS=off: checkPage checks without writing screenshots. npm test's second
 * run (PostgreSQL) sets it: the pages are the same, and one set is what gets looked at.
 */
const TAKES_SCREENSHOTS = process.env.FORMGATE_TEST_SCREENSHOTS !== 'off';

/** The `skip` option of a describe that needs Chromium: a reason when it is not installed. */
export const needsChromium: string | false = !fs.existsSync(CHROMIUM) && `SKIPPED: ${CHROMIUM} is not installed (.ci/run installs it)`;

/** Chromium, headless; `extraArgs` adds switches (a test's own host resolver rules, say). */
export function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: [...FLAGS, ...extraArgs] });
}

/** A new page in a context of its own (its own cookies), at desktop width. */
export async function newPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  return context.newPage();
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * What every dashboard page must pass, at phone width (390 px) and desktop width (1280 px): no
 * serious or critical axe-core violation (in the light and the dark scheme), nothing that needs
 * horizontal scrolling; and a full-page screenshot of each under test-results/screenshots, to be looked at.
 */
export async function checkPage(page: Page, name: string): Promise<void> {
  const original = page.viewportSize() ?? { width: 1280, height: 900 };
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `${name} at ${width} px scrolls sideways by ${overflow} px`);
    await screenshot(page, `${name}-${width}.png`);
  }
  await page.setViewportSize(original);
  await assertAccessible(page, name);
  // the same page in the dark scheme (it follows the system's setting): readable there too
  await page.emulateMedia({ colorScheme: 'dark' });
  try {
    await screenshot(page, `${name}-1280-dark.png`);
    await assertAccessible(page, `${name} (dark)`);
  } finally {
    await page.emulateMedia({ colorScheme: 'light' });
  }
}

/**
 * A full-page screenshot under test-results/screenshots. NOTE: tried again (twice, each after the page's next frame) when
 * Chromium answers "Unable to capture screenshot": under a loaded machine its compositor sometimes
 * has no frame yet right after the viewport changed (seen once in a full CI run); the page is not at fault.
 */
async function screenshot(page: Page, file: string): Promise<void> {
  if (!TAKES_SCREENSHOTS) return;
  for (let attempt = 1; ; attempt++) {
    try {
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, file), fullPage: true });
      return;
    } catch (error) {
      if (attempt >= 3 || !/Unable to capture screenshot/.test(String((error as Error).message))) throw error;
      // the next frame the page paints, which is what the capture lacked
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    }
  }
}

/** No serious or critical axe-core violation (contrast included) on the page as it is shown now. */
async function assertAccessible(page: Page, name: string): Promise<void> {
  // evaluated through the DevTools protocol: the page's CSP (no inline script) does not apply to it
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run()).violations;
  })) as AxeViolation[];
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
    [],
    `${name} has serious accessibility violations`,
  );
}
