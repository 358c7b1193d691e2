// Hostile integration strings in the console, in a real browser: fixtures/hostile/console-xss puts
// script tags, event-handler attributes, `javascript:`/`data:`/relative URLs, CSS injection and
// breakouts in every string the console shows (manifest, problems, configuration schema,
// completions, ContentKit output, component state, console lines) and frames a page that tries to
// reach its parent. Nothing may run: no dialog, no global set, no request to the beacon, no request
// of the console page beyond its own bundle and API calls, no CSP or Trusted Types violation
// (the DOM code alone keeps it inert), and each string shows as text.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { Page, Request } from 'playwright-core';
import { startTestHost, type TestHost } from '../helpers/host.ts';
import { chromiumMissing, launchBrowser, signIn, waitForText, type TestBrowser } from '../helpers/browser.ts';
import { startReceiver, type Receiver } from '../helpers/receivers.ts';

let host: TestHost;
let beacon: Receiver;
let browser: TestBrowser;
let page: Page;
let consoleUrl: string;
let installationId: string;
let publicEndpoint: string;
const dialogs: string[] = [];
const pageErrors: string[] = [];
const violations: string[] = [];
const requests: { url: string; type: string; main: boolean }[] = [];

describe.skipIf(chromiumMissing !== null)('hostile strings and ContentKit in the console', () => {
  beforeAll(async () => {
    beacon = await startReceiver('beacon');
    host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'], consolePort: 0 });
    consoleUrl = host.consoleUrl!;
    const created = await host.admin('/v1/integrations/console-xss/installations', {
      method: 'POST',
      body: JSON.stringify({ organization: 'acme', target: 'space', space: 'space_acme_docs' }),
    });
    expect(created.status).toBe(201);
    ({
      id: installationId,
      urls: { publicEndpoint },
    } = await created.json());
    browser = await launchBrowser();
    page = browser.page;
    page.on('dialog', (dialog) => {
      dialogs.push(`${dialog.type()}: ${dialog.message()}`);
      void dialog.dismiss();
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (/Refused to|Content Security Policy|TrustedHTML|TrustedScript|Trusted Types/i.test(message.text()))
        violations.push(message.text());
    });
    browser.context.on('request', (request: Request) => {
      let main = true;
      try {
        main = request.frame() === page.mainFrame();
      } catch {
        main = false;
      }
      requests.push({ url: request.url(), type: request.resourceType(), main });
    });
    await signIn(page, consoleUrl);
  });
  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await beacon?.close();
  });

  it('lists the integration with its hostile title, description and warning as text', async () => {
    await page.getByText(`Hostile <img src=x onerror="window.__xss='title'"> console`, { exact: true }).waitFor();
    await page.getByText(`<script>window.__xss='description'</script>`, { exact: false }).first().waitFor();
  });

  it('shows its summary, blocks, schema and warning as text, the summary links inert', async () => {
    await page.goto(`${consoleUrl}/console/integrations/console-xss`);
    await page
      .getByText(`# <img src=x onerror="window.__xss='summary'">`)
      .waitFor({ state: 'detached' })
      .catch(() => undefined);
    await page.locator('.markdown').getByText(`<img src=x onerror="window.__xss='summary'">`).waitFor();
    await page.getByText('[a javascript: link](javascript:', { exact: false }).waitFor();
    await page.getByText(`<svg onload="window.__xss='block-title'">`, { exact: false }).waitFor();
    await page.getByText('unknown<img src=x onerror=alert(1)>', { exact: false }).first().waitFor();
    expect(await page.locator('.markdown a').count()).toBe(0);
  });

  it('shows hostile property titles, enum values, completion labels and button text as text', async () => {
    await page.goto(`${consoleUrl}/console/installations/${installationId}`);
    await page.getByText(`<img src=x onerror="window.__xss='property-title'">`, { exact: false }).waitFor();
    const pick = page.locator('select[id$="-pick"]');
    await pick.locator('option', { hasText: 'Plain' }).waitFor({ state: 'attached' });
    expect(await pick.locator('option').allTextContents()).toEqual([
      '(not set)',
      `<img src=x onerror="window.__xss='completion'">`,
      'Plain',
    ]);
    expect(await pick.locator('option').nth(2).getAttribute('value')).toBe(
      `"><script>window.__xss='completion-value'</script>`,
    );
    expect(await page.locator('select[id$="-choice"] option').allTextContents()).toEqual([
      '(not set)',
      `"><script>window.__xss='enum'</script>`,
      'plain',
    ]);
    await page.getByRole('button', { name: `<img src=x onerror="window.__xss='button'">` }).waitFor();
    // Saving a hostile value: it goes to the host as data and comes back as text.
    await pick.selectOption({ index: 2 });
    await page.getByRole('button', { name: 'Save configuration' }).click();
    await page.getByText(/^Saved\./).waitFor();
    expect((await host.admin(`/v1/installations/${installationId}`).then((r) => r.json())).configuration.pick).toBe(
      `"><script>window.__xss='completion-value'</script>`,
    );
  });

  it('renders the hostile component inert, acts on it, and keeps its webframe in a sandbox', async () => {
    await page.goto(`${consoleUrl}/console/installations/${installationId}/preview`);
    await page.getByLabel('Props (JSON)').fill(JSON.stringify({ beacon: beacon.url }));
    await page.getByRole('button', { name: 'Render' }).click();
    const output = page.locator('.ck-root');
    await output.getByText('Presses: 0', { exact: false }).waitFor();
    await output
      .getByText(`<script>window.__xss='text-script';fetch('${beacon.url}/text-script')</script>`, { exact: false })
      .waitFor();

    // Inputs bound to state, then the hostile button: its action round-trips and the new state renders.
    await output.getByRole('textbox').fill('<b>typed</b>');
    await output.getByRole('combobox').selectOption({ index: 1 });
    await output.getByRole('checkbox').check();
    await output.getByRole('button', { name: /Press$/ }).click();
    await output.getByText('Presses: 1', { exact: false }).waitFor();
    const state = JSON.parse((await page.getByLabel('Component state').textContent()) ?? '{}');
    expect(state).toMatchObject({
      presses: 1,
      html: `<script>window.__xss='action';fetch('${beacon.url}/action')</script>`,
      comment: '<b>typed</b>',
      pick: `"><script>window.__xss='option-id'</script>`,
      flag: [`"><img src="${beacon.url}/checkbox" onerror="window.__xss='checkbox'">`],
    });

    // A confirmation with hostile title and text: shown as text; Cancel sends nothing, confirming sends the action.
    await output.getByRole('button', { name: 'Confirmed press' }).click();
    const confirmation = output.getByRole('alertdialog');
    await confirmation
      .getByText(`<img src="${beacon.url}/confirm-title" onerror="window.__xss='confirm-title'">`)
      .waitFor();
    await confirmation.getByRole('button', { name: 'Cancel' }).click();
    await confirmation.waitFor({ state: 'detached' });
    await output.getByRole('button', { name: 'Confirmed press' }).click();
    await output.getByRole('alertdialog').getByRole('button', { name: '</button>ok' }).click();
    await output.getByText('Presses: 2', { exact: false }).waitFor();
    // The radio's hostile value goes into state only after its confirmation.
    await output.getByRole('radio').click();
    await output.getByRole('alertdialog').getByRole('button', { name: '</button>ok' }).click();
    await page.waitForFunction(() =>
      (document.querySelector('[aria-label="Component state"]')?.textContent ?? '').includes('"choice"'),
    );

    // URLs that are not http(s) never become links, images or frames.
    const hrefs = await output.locator('a').evaluateAll((anchors) => anchors.map((a) => a.getAttribute('href')));
    expect(hrefs).toEqual([]);
    expect(await output.locator('.ck-blocked').count()).toBeGreaterThanOrEqual(12);
    expect(await output.locator('img').count()).toBe(0);

    // The one http(s) webframe: sandboxed (scripts, no same-origin), pointed at the integration's page.
    const frames = output.locator('iframe');
    expect(await frames.count()).toBe(1);
    expect(await frames.getAttribute('sandbox')).toBe('allow-scripts');
    expect(await frames.getAttribute('src')).toBe(`${publicEndpoint}/frame`);
    // The frame's own document may still be on its way: wait for it to arrive rather than look once.
    const frame = await (await frames.elementHandle())!.contentFrame();
    expect(frame).not.toBeNull();
    await frame!.waitForURL(`${publicEndpoint}/frame`);
    await frame!.waitForFunction(() => document.getElementById('result')?.textContent !== 'running');
    const escape = JSON.parse((await frame!.locator('#result').textContent()) ?? '{}');
    expect(escape.parentGlobal).toMatch(/^blocked: /);
    expect(escape.parentDocument).toMatch(/^blocked: /);
    expect(escape.topLocation).toMatch(/^blocked: /);
    expect(escape.cookie).toMatch(/^blocked: /);
    expect(escape.origin).toBe('null');
    expect(escape.open).toBe('null');
    // Its `data` arrived as `{ state }` (GitBook's webframe protocol), the binding resolved; and it may send an action
    // back.
    await frame!.waitForFunction(() => document.getElementById('messages')?.textContent !== 'none');
    const received = JSON.parse((await frame!.locator('#messages').textContent()) ?? '{}');
    expect(received.state.html).toBe(`<script>window.__xss='frame-data';fetch('${beacon.url}/frame-data')</script>`);
    const latest = JSON.parse((await page.getByLabel('Component state').textContent()) ?? '{}');
    expect(received.state.bound).toBe(latest.html);
    await frame!.evaluate(() => parent.postMessage({ action: { action: 'press', note: 'from the frame' } }, '*'));
    await output.getByText('Presses: 3', { exact: false }).waitFor();
  });

  it('shows hostile console lines in the event log as text', async () => {
    await page.goto(`${consoleUrl}/console/events?integration=console-xss&type=ui_render`);
    const entry = page.locator('li.event').first();
    await entry.waitFor();
    await entry.locator('summary').click();
    await entry.getByText(`<script>window.__xss='log-script'</script>`, { exact: false }).first().waitFor();
  });

  it('ran nothing: no dialog, no global, no beacon request, no foreign request, no violation', async () => {
    await waitForText(page, 'h1', 'Event log');
    for (const frame of [page.mainFrame()])
      expect(await frame.evaluate(() => (window as { __xss?: unknown }).__xss)).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(violations).toEqual([]);
    expect(beacon.hits).toEqual([]);
    const foreign = requests.filter(({ url, type, main }) => {
      const parsed = new URL(url);
      if (!main) return !(url === `${publicEndpoint}/frame` && type === 'document');
      if (parsed.origin !== consoleUrl) return true;
      if (type === 'document') return !parsed.pathname.startsWith('/console');
      if (type === 'script') return parsed.pathname !== '/console/assets/console.js';
      if (type === 'stylesheet') return parsed.pathname !== '/console/assets/console.css';
      if (type === 'fetch') return !(parsed.pathname.startsWith('/v1/') || parsed.pathname === '/console/session');
      if (type === 'other' || type === 'image') return parsed.pathname !== '/console/assets/favicon.svg';
      return true;
    });
    expect(foreign).toEqual([]);
  });

  it('left no markup of the guest in the DOM: no handler attribute, script, style or unsafe URL', async () => {
    await page.goto(`${consoleUrl}/console/installations/${installationId}/preview`);
    await page.getByLabel('Props (JSON)').fill(JSON.stringify({ beacon: beacon.url }));
    await page.getByRole('button', { name: 'Render' }).click();
    await page.locator('.ck-root').getByText('Presses: 0', { exact: false }).waitFor();
    const audit = await page.evaluate(() => {
      const all = [...document.querySelectorAll('*')];
      return {
        handlers: all.flatMap((element) =>
          [...element.attributes]
            .filter((attribute) => /^on/i.test(attribute.name))
            .map((attribute) => `${element.tagName}.${attribute.name}`),
        ),
        styles: all
          .filter((element) => element.hasAttribute('style') && !['IMG', 'IFRAME', 'DIV'].includes(element.tagName))
          .map((element) => element.tagName),
        styleTags: document.querySelectorAll('style').length,
        scripts: [...document.querySelectorAll('script')].map((script) => script.getAttribute('src')),
        urls: all.flatMap((element) =>
          ['href', 'src', 'action', 'formaction']
            .map((name) => element.getAttribute(name))
            .filter((value): value is string => value !== null),
        ),
        frames: [...document.querySelectorAll('iframe')].map((frame) => frame.getAttribute('sandbox')),
      };
    });
    expect(audit.handlers).toEqual([]);
    expect(audit.styleTags).toBe(0);
    expect(audit.scripts).toEqual(['/console/assets/console.js']);
    expect(audit.urls.filter((url) => !/^(https?:|\/console\/|#)/.test(url))).toEqual([]);
    expect(audit.frames).toEqual(['allow-scripts']);
    // The only inline styles are the numeric ones the renderer sets through the CSSOM.
    const inline = await page
      .locator('.ck-root [style]')
      .evaluateAll((elements) => elements.map((element) => element.getAttribute('style')));
    for (const style of inline) expect(style).toMatch(/^(flex-grow: \d+(\.\d+)?;|aspect-ratio: \d+(\.\d+)?( \/ 1)?;)$/);
  });
});
