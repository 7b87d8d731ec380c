import { checkoutTs } from './checkout-ts';
import { ledgerPy } from './ledger-py';
import type { DemoRepoSpec } from './types';

export type { DemoChangeSpec, DemoChangeKind, DemoRepoSpec, DemoPerson, FileTree } from './types';
export type { DemoRepoSettings } from './settings';
export { checkoutSettings } from './checkout-ts';
export { ledgerSettings } from './ledger-py';

/** The demo's repositories, in the order they are built and seeded. */
export const DEMO_REPOS: readonly DemoRepoSpec[] = [checkoutTs, ledgerPy];
