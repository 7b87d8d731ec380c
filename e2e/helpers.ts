import { expect, type Page } from '@playwright/test';
import { E2E_BASE_URL } from '../playwright.config';

/**
 * Headers for a spec's own API call with the page's session cookie: the
 * server refuses a cookie's state-changing request unless it comes from its
 * own origin (lib/http/route.ts), and Playwright's request context sends no
 * Origin of its own.
 */
export const FROM_OUR_PAGE = { origin: E2E_BASE_URL } as const;

export type DemoRole = 'reviewer' | 'grader' | 'manager' | 'admin';

/** Signs in through the real sign-in form as one of the demo users. */
export async function signInAs(page: Page, role: DemoRole): Promise<void> {
  await page.goto('/signin');
  await page.getByTestId('signin-email').fill(`${role}@demo.flowfix`);
  await page.getByTestId('signin-password').fill(`${role}-demo`);
  await page.getByTestId('signin-submit').click();
  await expect(page.getByTestId('current-user')).toBeVisible();
}
