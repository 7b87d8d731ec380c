import AxeBuilder from '@axe-core/playwright';
import { expect, test, type APIRequestContext, type Browser, type Cookie, type Page } from '@playwright/test';
import { E2E_BASE_URL } from '../playwright.config';
import { signInAs, type DemoRole } from './helpers';

// WCAG 2.2 AA on every page and the states people meet there, checked by axe
// in the real browser, at a desktop width and at a phone's 390 px, where no
// page may scroll sideways (wide content such as the diff scrolls inside
// itself), in the light theme and in the dark one (the browser says it prefers
// light, then dark; no choice is stored, so the open page follows it; the
// dark theme is held to the rules that read colours, below).
// With FLOWFIX_E2E_SCREENSHOTS=1, a full-page screenshot of each page, width
// and theme lands in test-results/ for a person to look at (off by default:
// they cost a tenth of the spec's time and no assertion reads them). Each role signs in through the form once (the sign-in
// itself is auth.spec.ts's subject); its session cookie opens every page after.

const WCAG = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
const WIDTHS = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;
const SCHEMES = ['light', 'dark'] as const;
const SCREENSHOTS = process.env.FLOWFIX_E2E_SCREENSHOTS === '1';

// A theme changes colours and nothing else (the same markup, the same CSS but
// its colour variables), so after the first theme's full check the second one
// runs the rules that read colours.
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

async function expectAccessible(page: Page, label: string, only: 'all' | 'colours' = 'all'): Promise<void> {
  const axe = new AxeBuilder({ page });
  const results = await (only === 'all' ? axe.withTags(WCAG) : axe.withRules(COLOUR_RULES)).analyze();
  const found = results.violations.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help} — ${v.nodes
        .slice(0, 3)
        .map((n) => `${n.target.join(' ')} [${(n.any[0] ?? n.all[0] ?? n.none[0])?.message ?? ''}]`)
        .join(' | ')}`,
  );
  expect(found, `axe on ${label}`).toEqual([]);
}

async function expectNoSidewaysScroll(page: Page, label: string): Promise<void> {
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  }));
  expect(scrollWidth, `${label} is ${scrollWidth}px wide in a ${clientWidth}px viewport`).toBeLessThanOrEqual(clientWidth);
}

const sessions = new Map<DemoRole, Cookie[]>();

/** Puts the role's session into the page's context, signing in through the form the first time. */
async function signedIn(browser: Browser, page: Page, role: DemoRole): Promise<void> {
  let cookies = sessions.get(role);
  if (!cookies) {
    const context = await browser.newContext({ baseURL: E2E_BASE_URL });
    await signInAs(await context.newPage(), role);
    cookies = await context.cookies();
    await context.close();
    sessions.set(role, cookies);
  }
  await page.context().addCookies(cookies);
}

async function firstChangeWithFix(request: APIRequestContext): Promise<{ changeId: string; fixId: string }> {
  const res = await request.get('/api/review-queue?history=include&limit=1');
  expect(res.ok()).toBe(true);
  const { items } = (await res.json()) as { items: Array<{ changeId: string; fixId: string }> };
  expect(items.length, 'the demo has a fix waiting').toBeGreaterThan(0);
  return items[0]!;
}

async function demoQueueId(request: APIRequestContext): Promise<string> {
  const res = await request.get('/api/grading/queues');
  expect(res.ok()).toBe(true);
  const { queues } = (await res.json()) as { queues: Array<{ id: string }> };
  expect(queues.length, 'the demo seeds a grading queue').toBeGreaterThan(0);
  return queues[0]!.id;
}

async function firstRunId(request: APIRequestContext): Promise<string> {
  const res = await request.get('/api/runs?limit=1');
  expect(res.ok()).toBe(true);
  const { items } = (await res.json()) as { items: Array<{ id: string }> };
  expect(items.length).toBeGreaterThan(0);
  return items[0]!.id;
}

interface PageCase {
  name: string;
  role: DemoRole | null;
  /** opens the page (and the state to check) */
  open: (page: Page) => Promise<void>;
  /** the page's own content is wider than a phone only inside a scroller */
  phone?: boolean;
}

const CASES: PageCase[] = [
  {
    name: 'sign-in',
    role: null,
    open: async (page) => {
      await page.goto('/signin');
      await expect(page.getByTestId('signin-email')).toBeVisible();
    },
  },
  {
    name: 'triage list',
    role: 'reviewer',
    open: async (page) => {
      await page.goto('/changes');
      await expect(page.getByTestId('triage-table')).toBeVisible();
    },
  },
  {
    name: 'triage list, nothing found',
    role: 'reviewer',
    open: async (page) => {
      await page.goto('/changes?q=no-such-change-anywhere');
      await expect(page.getByTestId('triage-empty')).toBeVisible();
    },
  },
  {
    name: 'change page with a fix and its diff',
    role: 'reviewer',
    open: async (page) => {
      const { changeId, fixId } = await firstChangeWithFix(page.request);
      await page.goto(`/changes/${changeId}?fix=${fixId}`);
      await expect(page.getByTestId('fix-card')).toBeVisible();
      await page.getByTestId('fix-toggle-diff').click();
      await expect(page.locator('.monaco-diff-editor')).toBeVisible();
    },
  },
  {
    name: 'review queue',
    role: 'reviewer',
    open: async (page) => {
      await page.goto('/review');
      await page.getByTestId('queue-include-history').check();
      await expect(page.getByRole('listbox', { name: 'Fixes waiting for review' }).getByRole('option').first()).toBeVisible();
    },
  },
  {
    name: 'runs list',
    role: 'reviewer',
    open: async (page) => {
      await page.goto('/runs');
      await expect(page.getByTestId('runs-table')).toBeVisible();
    },
  },
  {
    name: 'run page',
    role: 'reviewer',
    open: async (page) => {
      await page.goto(`/runs/${await firstRunId(page.request)}`);
      await expect(page.getByTestId('run-phase-bar')).toBeVisible();
    },
  },
  {
    name: 'personal tokens',
    role: 'reviewer',
    open: async (page) => {
      await page.goto('/settings/tokens');
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    },
  },
  {
    name: 'grading queues',
    role: 'grader',
    open: async (page) => {
      await page.goto('/grading');
      await expect(page.getByTestId('queue-list')).toBeVisible();
    },
  },
  {
    name: 'grading an item',
    role: 'grader',
    open: async (page) => {
      await page.goto(`/grading/${await demoQueueId(page.request)}/grade`);
      await expect(page.getByTestId('grade-page')).toBeVisible();
      await expect(page.locator('.monaco-diff-editor')).toBeVisible();
    },
  },
  {
    name: 'grading queue: progress, disputes, agreement',
    role: 'manager',
    open: async (page) => {
      await page.goto(`/grading/${await demoQueueId(page.request)}`);
      await expect(page.getByTestId('queue-detail')).toBeVisible();
    },
  },
  {
    name: 'grading: new queue',
    role: 'manager',
    open: async (page) => {
      await page.goto('/grading/new');
      await expect(page.getByTestId('queue-form')).toBeVisible();
    },
  },
  {
    name: 'grading: precision',
    role: 'manager',
    open: async (page) => {
      await page.goto('/grading/precision');
      await expect(page.getByTestId('precision-table').first()).toBeVisible();
    },
  },
  ...(['', '/funnel', '/adoption', '/latency', '/cost', '/quality'] as const).map<PageCase>((section) => ({
    name: `insights${section || ' overview'}`,
    role: 'manager',
    open: async (page) => {
      await page.goto(`/insights${section}?period=all`);
      await expect(page.getByTestId('insights-filters')).toBeVisible();
      await expect(page.locator('.recharts-surface, [data-testid="insights-kpis"]').first()).toBeVisible();
    },
  })),
  ...(['users', 'tokens', 'repositories', 'models', 'hosts', 'audit'] as const).map<PageCase>((tab) => ({
    name: `admin: ${tab}`,
    role: 'admin',
    open: async (page) => {
      await page.goto(`/admin?tab=${tab}`);
      await expect(page.getByTestId(`admin-panel-${tab}`)).toBeVisible();
    },
  })),
  {
    name: 'admin: a new user’s form',
    role: 'admin',
    open: async (page) => {
      await page.goto('/admin?tab=users');
      await page.getByTestId('user-new').click();
      await expect(page.getByTestId('user-create-form')).toBeVisible();
    },
  },
  {
    name: 'admin: the audit log filtered',
    role: 'admin',
    open: async (page) => {
      await page.goto('/admin?tab=audit&action=auth.');
      await expect(page.getByTestId('audit-row').first()).toBeVisible();
    },
  },
  {
    name: 'not allowed (403)',
    role: 'reviewer',
    open: async (page) => {
      const res = await page.goto('/admin');
      expect(res?.status()).toBe(403);
      await expect(page.getByTestId('forbidden')).toBeVisible();
    },
  },
];

for (const viewport of WIDTHS) {
  test.describe(`${viewport.name} (${viewport.width}px)`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height }, colorScheme: SCHEMES[0] });
    for (const c of CASES) {
      test(`${c.name}: no WCAG 2.2 AA violation in either theme${viewport.name === 'phone' ? ', no sideways scrolling' : ''}`, async ({
        browser,
        page,
      }, info) => {
        // two themes' checks on one page
        test.setTimeout(120_000);
        if (c.role) await signedIn(browser, page, c.role);
        await c.open(page);
        for (const scheme of SCHEMES) {
          await page.emulateMedia({ colorScheme: scheme });
          // the page really is in the theme under test
          await expect(page.locator('html')).toHaveAttribute('data-theme', scheme);
          await expectAccessible(page, `${c.name} at ${viewport.width}px, ${scheme}`, scheme === SCHEMES[0] ? 'all' : 'colours');
          if (viewport.name === 'phone') await expectNoSidewaysScroll(page, `${c.name}, ${scheme}`);
          if (SCREENSHOTS) await page.screenshot({ path: info.outputPath(`${c.name.replace(/\W+/g, '-')}-${viewport.width}-${scheme}.png`), fullPage: true });
        }
      });
    }
  });
}

test('a focused filter shows the focus ring, as a focused button does', async ({ page }) => {
  await signInAs(page, 'admin');
  await page.goto('/admin?tab=audit');
  const ring = await page.evaluate(() => {
    const probe = document.createElement('div');
    probe.style.color = 'var(--focus-ring)';
    document.body.append(probe);
    const color = getComputedStyle(probe).color;
    probe.remove();
    return color;
  });
  for (const id of ['audit-filter-action', 'audit-filter-from']) {
    const field = page.getByTestId(id);
    await field.focus();
    const style = await field.evaluate((el) => {
      const s = getComputedStyle(el);
      return { color: s.outlineColor, width: parseFloat(s.outlineWidth), style: s.outlineStyle };
    });
    expect(style, id).toEqual({ color: ring, width: 3, style: 'solid' });
  }
});

test('the skip link takes keyboard users past the header to the page', async ({ page }) => {
  await signInAs(page, 'reviewer');
  await page.goto('/changes');
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to content' });
  await expect(skip).toBeFocused();
  await expect(skip).toBeVisible();
  await page.keyboard.press('Enter');
  await expect(page.locator('#main')).toBeFocused();
});

test("Monaco's accessible diff viewer is reachable from the keyboard", async ({ page }) => {
  await signInAs(page, 'reviewer');
  const { changeId, fixId } = await firstChangeWithFix(page.request);
  await page.goto(`/changes/${changeId}?fix=${fixId}`);
  await page.getByTestId('fix-toggle-diff').click();
  const modified = page.locator('.monaco-diff-editor .editor.modified textarea, .monaco-diff-editor .editor.modified .native-edit-context').first();
  await expect(page.locator('.monaco-diff-editor')).toBeVisible();
  await modified.focus();
  // F7 is Monaco's "go to next difference", which opens the accessible diff viewer
  await page.keyboard.press('F7');
  await expect(page.locator('.monaco-diff-editor .diff-review, .accessible-diff-viewer').first()).toBeVisible();
});
