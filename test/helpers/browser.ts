// Debian's Chromium driven by playwright-core for the console's browser tests: a fresh profile per
// launch, loopback only, and a clear skip reason when no Chromium is installed (npm test prints it).

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { ADMIN_TOKEN } from './host.ts';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Why the browser tests cannot run here, or null when they can. */
export const chromiumMissing: string | null = existsSync(CHROMIUM_PATH)
  ? null
  : `SKIPPED the console's browser tests: no Chromium at ${CHROMIUM_PATH}. Install it with "apt-get install ` +
    `chromium" (.ci/run does this when it is missing).`;

if (chromiumMissing !== null) process.stderr.write(`\n${chromiumMissing}\n\n`);

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

export interface LaunchOptions {
  /**
   * Names the browser resolves to 127.0.0.1 (a third party's site other than the host's, served by
   * a loopback mock); every other name then fails to resolve, so no DNS query leaves the machine.
   */
  loopbackNames?: string[];
}

/** Chromium's resolver rules answering `names` with 127.0.0.1 and every other name with NOTFOUND. */
function resolverRules(names: string[]): string {
  return [...names.map((name) => `MAP ${name} 127.0.0.1`), 'MAP * ~NOTFOUND', 'EXCLUDE 127.0.0.1'].join(', ');
}

/** A browser with a fresh user-data-dir; `close()` stops it and removes the profile. */
export async function launchBrowser(options: LaunchOptions = {}): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'console-chromium-'));
  const names = options.loopbackNames ?? [];
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: names.length === 0 ? CHROMIUM_ARGS : [...CHROMIUM_ARGS, `--host-resolver-rules=${resolverRules(names)}`],
    viewport: { width: 1280, height: 900 },
  });
  context.setDefaultTimeout(20_000);
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Signs in through the sign-in form, with the keyboard only. */
export async function signIn(page: Page, consoleUrl: string, token = ADMIN_TOKEN): Promise<void> {
  await page.goto(`${consoleUrl}/console`);
  const field = page.getByLabel('Admin token');
  await field.focus();
  await page.keyboard.type(token);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 1, name: 'Integrations' }).waitFor();
}

/** Waits until `locator`'s text content equals (or matches) the expectation. */
export async function waitForText(
  page: Page,
  selector: string,
  expected: string | RegExp,
  timeout = 20_000,
): Promise<void> {
  await page.waitForFunction(
    ({ selector, source, flags, exact }) => {
      const text = document.querySelector(selector)?.textContent ?? '';
      return exact !== null ? text.trim() === exact : new RegExp(source, flags).test(text);
    },
    typeof expected === 'string'
      ? { selector, source: '', flags: '', exact: expected }
      : { selector, source: expected.source, flags: expected.flags, exact: null },
    { timeout },
  );
}
