import { expect, type Page } from '@playwright/test';

export type DemoRole = 'reviewer' | 'grader' | 'manager' | 'admin';

/** Signs in through the real sign-in form as one of the demo users. */
export async function signInAs(page: Page, role: DemoRole): Promise<void> {
  await page.goto('/signin');
  await page.getByTestId('signin-email').fill(`${role}@demo.flowfix`);
  await page.getByTestId('signin-password').fill(`${role}-demo`);
  await page.getByTestId('signin-submit').click();
  await expect(page.getByTestId('current-user')).toBeVisible();
}
