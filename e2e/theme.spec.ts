import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { signInAs } from './helpers';

// The colour theme: System (the default) follows the browser's
// prefers-color-scheme, live; the header's toggle overrides it, survives a
// reload, and is in force before the page's body exists (no flash of the
// light theme); charts and Monaco follow a change at once.

/** The order in which the page's <html data-theme> and <body> came to be, recorded from before the first byte is parsed. */
async function recordThemeBeforeBody(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const order: string[] = [];
    (window as unknown as { __themeOrder: string[] }).__themeOrder = order;
    new MutationObserver((records) => {
      for (const r of records) {
        if (r.type === 'attributes') order.push(`theme=${(r.target as Element).getAttribute('data-theme')}`);
        for (const n of r.addedNodes) if (n.nodeName === 'BODY') order.push('body');
      }
    }).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-theme'] });
  });
}

async function themeOrder(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __themeOrder: string[] }).__themeOrder);
}

/** A CSS token's value as the computed rgb() the browser paints with. */
async function tokenRgb(page: Page, name: string): Promise<string> {
  return page.evaluate((n) => {
    const probe = document.createElement('span');
    probe.style.color = `var(${n})`;
    document.body.appendChild(probe);
    const rgb = getComputedStyle(probe).color;
    probe.remove();
    return rgb;
  }, name);
}

async function firstChangeWithFix(request: APIRequestContext): Promise<{ changeId: string; fixId: string }> {
  const res = await request.get('/api/review-queue?history=include&limit=1');
  expect(res.ok()).toBe(true);
  const { items } = (await res.json()) as { items: Array<{ changeId: string; fixId: string }> };
  expect(items.length, 'the demo has a fix waiting').toBeGreaterThan(0);
  return items[0]!;
}

test.describe('a browser that prefers dark', () => {
  test.use({ colorScheme: 'dark' });

  test('gets the dark theme without touching the toggle, and System follows the system as it changes', async ({ page }) => {
    await recordThemeBeforeBody(page);
    await page.goto('/signin');
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    expect(await themeOrder(page)).toEqual(['theme=dark', 'body']);
    // the tokens switched, and form controls and scrollbars with them
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe('rgb(14, 17, 22)');
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).color)).toBe(await tokenRgb(page, '--text'));
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toBe('dark');

    await signInAs(page, 'reviewer');
    await expect(page.getByTestId('theme-select')).toHaveValue('system');
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toBe('light');
  });

  test('a page rendered in the browser alone (the 403) is dark too, within the CSP', async ({ page }) => {
    const violations: string[] = [];
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => console.error(`csp-violation ${e.violatedDirective} ${e.blockedURI}`));
    });
    page.on('console', (m) => m.text().startsWith('csp-violation') && violations.push(m.text()));
    await signInAs(page, 'reviewer');
    const res = await page.goto('/admin');
    expect(res?.status()).toBe(403);
    await expect(page.getByTestId('forbidden')).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe('rgb(14, 17, 22)');
    expect(violations).toEqual([]);
  });
});

test.describe('a browser that prefers light', () => {
  test.use({ colorScheme: 'light' });

  test('the header toggle overrides the system, survives reloads and applies before the body is parsed', async ({ page }) => {
    await recordThemeBeforeBody(page);
    await signInAs(page, 'reviewer');
    await page.goto('/changes');
    const toggle = page.getByRole('combobox', { name: 'Colour theme' });
    await expect(toggle).toHaveValue('system');
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');

    // from the keyboard, as a person without a mouse would
    await toggle.focus();
    await toggle.selectOption('dark');
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe('rgb(14, 17, 22)');

    await page.reload();
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    await expect(page.getByTestId('theme-select')).toHaveValue('dark');
    expect(await themeOrder(page)).toEqual(['theme=dark', 'body']);

    // a stored Light wins over a system that turns dark
    await page.getByTestId('theme-select').selectOption('light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.reload();
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
    expect(await themeOrder(page)).toEqual(['theme=light', 'body']);

    // back to System: the (now dark) system decides again
    await page.getByTestId('theme-select').selectOption('system');
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    await page.reload();
    await expect(page.getByTestId('theme-select')).toHaveValue('system');
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  });

  test('the inline theme script carries the CSP nonce of its response', async ({ page }) => {
    await signInAs(page, 'reviewer');
    const res = await page.request.get('/changes');
    expect(res.ok()).toBe(true);
    const nonce = /'nonce-([^']+)'/.exec(res.headers()['content-security-policy'] ?? '')?.[1];
    expect(nonce, 'the page has a CSP nonce').toBeTruthy();
    const html = await res.text();
    const head = html.slice(0, html.indexOf('<body'));
    const script = /<script nonce="([^"]*)">\(function \(\) \{\s*var root = document\.documentElement;/.exec(head);
    expect(script, 'the theme script is in <head>').toBeTruthy();
    expect(script![1]).toBe(nonce);
  });

  test("Monaco's diff and the charts follow the toggle while the page is open", async ({ page }) => {
    await signInAs(page, 'admin');
    const { changeId, fixId } = await firstChangeWithFix(page.request);
    await page.goto(`/changes/${changeId}?fix=${fixId}`);
    await page.getByTestId('fix-toggle-diff').click();
    // the editor's text area (its first .monaco-editor is the gutter, which is hidden)
    const editor = page.locator('.monaco-diff-editor .monaco-editor .view-lines').first();
    await expect(editor).toBeVisible();
    const themed = page.locator('.monaco-diff-editor .monaco-editor.vs-dark');
    await expect(themed).toHaveCount(0);
    await page.getByTestId('theme-select').selectOption('dark');
    await expect(themed.first()).toBeAttached();
    // painted on the dark editor background
    await expect.poll(() => editor.evaluate((el) => getComputedStyle(el.closest('.monaco-editor')!).backgroundColor)).toBe('rgb(15, 20, 25)');
    await page.getByTestId('theme-select').selectOption('light');
    await expect(themed).toHaveCount(0);

    await page.goto('/insights/funnel?period=all');
    const bar = page.getByTestId('chart-funnel').locator('.recharts-bar-rectangle path').first();
    await expect(bar).toBeVisible();
    const fill = () => bar.evaluate((el) => getComputedStyle(el).fill);
    expect(await fill()).toBe(await tokenRgb(page, '--chart-slate'));
    const lightFill = await fill();
    await page.getByTestId('theme-select').selectOption('dark');
    await expect.poll(fill).not.toBe(lightFill);
    expect(await fill()).toBe(await tokenRgb(page, '--chart-slate'));
    // the tooltip is drawn on the dark tooltip colour, not recharts' white
    await bar.hover();
    const tooltip = page.getByTestId('chart-funnel').locator('.recharts-default-tooltip');
    await expect(tooltip).toBeVisible();
    expect(await tooltip.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(await tokenRgb(page, '--chart-tooltip-bg'));
  });
});
