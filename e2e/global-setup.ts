import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { E2E_DATA_DIR } from '../playwright.config';

// The web server answers /api/health as soon as `next start` is up, but the
// demo start-up still reports its failures through the ingestion API after
// that. Wait for the marker it writes when everything is in place.
export default async function globalSetup(): Promise<void> {
  const marker = path.resolve(E2E_DATA_DIR, 'demo-ready.json');
  const deadline = Date.now() + 600_000;
  while (Date.now() < deadline) {
    if (existsSync(marker)) {
      JSON.parse(readFileSync(marker, 'utf8'));
      return;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`The demo did not finish seeding: ${marker} never appeared`);
}
