// The README's model-setting examples (one per dialect) must stay valid: each
// parses against the schema and builds a client of its dialect.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { LlmClient, llmClientOptionsFromSettings } from '@/agent/llm/client';
import { MODEL_DIALECTS, ModelSettingsSchema } from '@/common/settings';

function examples(): unknown[] {
  const readme = readFileSync('README.md', 'utf8');
  const start = readme.indexOf('### Model settings, one per dialect');
  assert.ok(start >= 0, 'the README has the section');
  const end = readme.indexOf('\n## ', start);
  const section = readme.slice(start, end);
  return [...section.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => JSON.parse(m[1]!));
}

describe('README model settings examples', () => {
  test('one working example per dialect', () => {
    const parsed = examples().map((e) => ModelSettingsSchema.parse(e));
    assert.deepEqual(parsed.map((s) => s.dialect).sort(), [...MODEL_DIALECTS].sort());
    for (const settings of parsed) {
      const options = llmClientOptionsFromSettings({ settings, env: { FLOWFIX_MODEL_API_KEY: 'sk-example' } as never });
      assert.ok(options, settings.dialect);
      const client = new LlmClient(options);
      assert.equal(client.options.dialect, settings.dialect);
      assert.ok(settings.policy !== 'offline');
    }
  });
});
