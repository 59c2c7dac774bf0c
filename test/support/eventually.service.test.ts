// The browser tier's eventually() (test/browser/eventually.ts): every assertion there goes through
// it, so it must return once the check holds, and fail with the check's own error when it never does.

import assert from 'node:assert/strict';
import { eventually } from '../browser/eventually.ts';

it('retries until the check holds, and returns what it returned', async () => {
  let tries = 0;
  const value = await eventually(
    () => {
      tries++;
      assert.ok(tries >= 3, 'not yet');
      return 'held';
    },
    { timeoutMs: 60_000, intervalMs: 1 }
  );
  expect(value).toBe('held');
  expect(tries).toBe(3);
});

it("fails with the check's last error when it never holds", async () => {
  let tries = 0;
  await expect(
    eventually(
      () => {
        tries++;
        assert.equal(tries, -1, `try ${tries}`);
      },
      { timeoutMs: 50, intervalMs: 1 }
    )
  ).rejects.toThrow(/try \d+.*still so after 50 ms/s);
  expect(tries).toBeGreaterThan(1);
});
