'use client';

// How long a new token lives, chosen the same way for CI tokens (admin) and
// personal tokens (settings). The server sets nothing the form did not say,
// except where the form sends no expiry at all.

const DAY_MS = 86_400_000;

export const TOKEN_EXPIRIES = [
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: '365', label: '1 year' },
  { value: 'never', label: 'never' },
] as const;

export type TokenExpiryChoice = (typeof TOKEN_EXPIRIES)[number]['value'];

/** The expiry to send: an ISO date, or null for "never". */
export function expiresAtFor(choice: TokenExpiryChoice, now = Date.now()): string | null {
  return choice === 'never' ? null : new Date(now + Number(choice) * DAY_MS).toISOString();
}

export function TokenExpiryField({ value, onChange, testId }: { value: TokenExpiryChoice; onChange: (v: TokenExpiryChoice) => void; testId: string }) {
  return (
    <label className="field admin-narrow">
      Expires after
      <select className="input" value={value} onChange={(e) => onChange(e.target.value as TokenExpiryChoice)} data-testid={testId}>
        {TOKEN_EXPIRIES.map((x) => (
          <option key={x.value} value={x.value}>
            {x.label}
          </option>
        ))}
      </select>
    </label>
  );
}
