// The browser tier: the plugin's editors in a real Chromium, with @grafana/ui in Grafana's dark and
// light themes, their look-ups answered by a real `upness serve`. Each test drives a flow a Grafana
// user would (pick, type, fail, repair), asserts on what is shown and on what the editor stored, and
// writes a screenshot of every state to test-results/browser/. Any console error fails the test.
//
// Run: npm run test:browser (or npm run e2e; node's test runner: this runs as plain Node 22
// TypeScript, with no jsdom or jest transform between the test and the browser, and starts its own
// processes). Every read that follows an action waits, with a bound, for the state it expects
// (eventually(), Playwright's waits): on a loaded machine React renders and a combobox's options load
// (after a 200 ms debounce) later than the action returns.

import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';

import { eventually } from './eventually.ts';
import { bundle, chromiumArgs, ensureChromium, ROOT, SHOTS, startPageServer, startService, stopAll } from './setup.ts';

const THEMES = ['dark', 'light'] as const;
type Theme = (typeof THEMES)[number];
/** The screenshots the README shows, copied to docs/img when UPNESS_DOCS_IMG=1. */
const DOCS_SHOTS = new Set(['query-series-dark', 'query-groupby-typed-dark', 'query-namespaces-glob-dark', 'query-lookups-failed-dark', 'variable-unreadable-dark', 'config-dark', 'query-states-light']);

let browser: Browser;
let pageUrl: string;
let serviceUrl: string;

/**
 * node:test gives hooks and tests no timeout unless told (Infinity): explicit bounds instead. The
 * hook installs Chromium on a fresh machine (apt-get, which waits up to 600 s for dpkg's lock) and
 * bundles the harness (a minute cold on a loaded machine): that is kept out of every test's time.
 */
const PREPARE_TIMEOUT_MS = 20 * 60_000;
const TEST_TIMEOUT_MS = 3 * 60_000;
/**
 * Playwright's bound for one navigation or wait (its default is 30 s): under a load of 20 on two
 * cores, loading the 7 MB development bundle took longer than that (1 run in 10).
 */
const ACTION_TIMEOUT_MS = 90_000;
const TEST = { timeout: TEST_TIMEOUT_MS };

before(async () => {
  const executablePath = await ensureChromium();
  mkdirSync(SHOTS, { recursive: true });
  const started = Date.now();
  const [service, bundleDir] = await Promise.all([
    startService().then((url) => (console.log(`upness serve ready in ${Date.now() - started} ms`), url)),
    bundle().then((dir) => (console.log(`harness bundled in ${Date.now() - started} ms`), dir)),
  ]);
  serviceUrl = service;
  pageUrl = await startPageServer(serviceUrl, bundleDir);
  browser = await chromium.launch({ executablePath, args: chromiumArgs(), headless: true });
}, { timeout: PREPARE_TIMEOUT_MS });

after(async () => {
  await browser?.close();
  stopAll();
});

/** What the harness page records (src/test/harness.tsx), read inside the page. */
interface Harness {
  upness: { changes: unknown[]; runs: number; lookups: number };
}

/** The page's font faces (the DOM's FontFaceSet: this file is typed without the DOM library). */
interface PageFonts {
  document: { fonts: Iterable<{ family: string; weight: string; style: string; status: string }> & { ready: Promise<unknown> } };
}

interface Opened {
  page: Page;
  editor: Locator;
  context: BrowserContext;
  errors: string[];
  /** Every onChange the editor made, in order. */
  changes: () => Promise<unknown[]>;
  runs: () => Promise<number>;
  shot: (name: string) => Promise<void>;
  close: () => Promise<void>;
}

async function open(
  theme: Theme,
  editor: 'query' | 'variable' | 'config',
  stored: unknown,
  service: 'up' | 'down' = 'up'
): Promise<Opened> {
  const context = await browser.newContext({ viewport: { width: 1240, height: 760 }, deviceScaleFactor: 1 });
  context.setDefaultTimeout(ACTION_TIMEOUT_MS);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    // With the service down, Chromium itself logs each look-up's 502: the failure this test causes.
    const caused = service === 'down' && /status of 502/.test(message.text()) && /\/down\//.test(message.location().url);
    if (message.type() === 'error' && !caused) {
      errors.push(message.text());
    }
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  // A console error about a failed resource does not name it: this does.
  page.on('response', (response) => {
    if (response.status() >= 400 && !(service === 'down' && response.url().includes('/down/'))) {
      errors.push(`${response.status()} ${response.url()}`);
    }
  });
  const search = new URLSearchParams({ editor, theme, service, query: JSON.stringify(stored) });
  await page.goto(`${pageUrl}/?${search}`);
  const root = page.locator('#editor');
  await root.waitFor();
  // Let the look-ups answer (or fail) before anything is judged.
  const lookups = editor === 'query' ? 3 : editor === 'variable' ? 2 : 0;
  await page.waitForFunction((n) => (globalThis as unknown as Harness).upness.lookups >= n, lookups);
  // The fonts the text asked for, loaded (or failed, which the response check reports) before any layout is measured.
  await page.evaluate(() => (globalThis as unknown as PageFonts).document.fonts.ready.then(() => undefined));
  return {
    page,
    editor: root,
    context,
    errors,
    changes: () => page.evaluate(() => (globalThis as unknown as Harness).upness.changes),
    runs: () => page.evaluate(() => (globalThis as unknown as Harness).upness.runs),
    shot: async (name) => {
      const file = `${name}-${theme}.png`;
      // The editor and any menu open below it.
      const box = (await root.boundingBox())!;
      await page.mouse.move(0, 0);
      await page.screenshot({ path: join(SHOTS, file), clip: { x: 0, y: 0, width: box.width, height: Math.max(box.height, await menuBottom(page)) + 8 } });
      if (process.env.UPNESS_DOCS_IMG === '1' && DOCS_SHOTS.has(`${name}-${theme}`)) {
        mkdirSync(join(ROOT, 'docs/img'), { recursive: true });
        copyFileSync(join(SHOTS, file), join(ROOT, 'docs/img', file));
      }
    },
    close: async () => {
      await context.close();
      assert.deepEqual(errors, [], 'the console shows no error');
    },
  };
}

/** The bottom of an open option list, or 0. */
async function menuBottom(page: Page): Promise<number> {
  const menu = page.getByRole('listbox');
  if ((await menu.count()) === 0 || !(await menu.first().isVisible())) {
    return 0;
  }
  const box = await menu.first().boundingBox();
  return box ? box.y + box.height : 0;
}

const NEW_SERIES = { queryType: 'series', metric: 'uptimeRatio', groupBy: 'namespace', aggregate: 'pooled', window: 'step' };

/** The last query the editor stored. */
async function lastChange(o: Opened): Promise<Record<string, unknown> | undefined> {
  const changes = await o.changes();
  return changes.at(-1) as Record<string, unknown> | undefined;
}

/** The open option list's options, as shown now (label and description); none if no list is open. */
async function shownOptions(page: Page): Promise<string[]> {
  return page.getByRole('listbox').getByRole('option').allInnerTexts();
}

/**
 * The open list's options once `check` holds for them. A combobox keeps showing its previous options
 * while it loads the ones a typed text brings, so `check` must say what only the awaited list shows.
 */
async function optionsWhen(o: Opened, check: (shown: string[]) => void): Promise<string[]> {
  return eventually(async () => {
    const shown = await shownOptions(o.page);
    assert.ok(shown.length > 0, 'an option list is open');
    check(shown);
    return shown;
  });
}

async function openList(o: Opened, label: string): Promise<void> {
  await o.editor.getByLabel(label, { exact: true }).click();
  await o.page.getByRole('listbox').waitFor();
}

/** Types into a combobox. Its options follow after a debounce: the caller waits for them with optionsWhen(). */
async function typeInto(o: Opened, label: string, text: string): Promise<void> {
  const input = o.editor.getByLabel(label, { exact: true });
  await input.click();
  await input.fill(text);
}

/** Whether one box lies inside another (the option is in view in its list). */
function inside(inner: { y: number; height: number }, outer: { y: number; height: number }): boolean {
  return inner.y >= outer.y - 1 && inner.y + inner.height <= outer.y + outer.height + 1;
}

/** The flows run in the dark theme (Grafana's default); the light theme renders each editor's states. */
const flow = (theme: Theme): typeof it => (theme === 'dark' ? it : ((() => undefined) as unknown as typeof it));

/** The font faces the page loaded, as `family weight style`. */
async function loadedFonts(page: Page): Promise<string[]> {
  return page.evaluate(() => [...(globalThis as unknown as PageFonts).document.fonts].filter((f) => f.status === 'loaded').map((f) => `${f.family.replace(/"/g, '')} ${f.weight} ${f.style}`));
}

for (const theme of THEMES) {
  describe(`query editor (${theme})`, () => {
    it('a new series query: step series of the pooled uptime ratio per namespace, its purpose in view', TEST, async () => {
      const o = await open(theme, 'query', NEW_SERIES);
      const { editor } = o;
      await eventually(async () => {
        assert.equal(await editor.getByRole('radio', { name: 'Series' }).isChecked(), true);
        assert.match(await editor.getByTestId('upness-query-type-description').innerText(), /one line per JobSet or per group.*Panel: Time series/s);
        assert.equal(await editor.getByLabel('Metric').inputValue(), 'Uptime ratio');
        assert.equal(await editor.getByRole('radio', { name: 'Step' }).isChecked(), true);
        assert.equal(await editor.getByLabel('Group by').inputValue(), 'Namespace');
        assert.equal(await editor.getByLabel('Aggregate').inputValue(), 'Pooled');
      });
      // Grafana's Inter, served from npm as Grafana serves it (a font that failed to load is a console error).
      assert.ok((await loadedFonts(o.page)).includes('Inter 400 normal'), 'the text is set in Inter');
      // Every field's label on one line: none wraps.
      await eventually(async () => {
        for (const label of ['Label selector', 'State at end', 'Namespaces', 'Group by']) {
          const box = (await editor.locator('label', { hasText: label }).first().boundingBox())!;
          assert.ok(box.height < 24, `"${label}" fits on one line (${box.height}px)`);
        }
      });
      await o.shot('query-series');
      assert.deepEqual(await o.changes(), [], 'showing a query changes nothing');
      await o.close();
    });

    flow(theme)('the metric list is grouped, opens with the chosen metric in view, and the aggregate follows the metric', TEST, async () => {
      const o = await open(theme, 'query', NEW_SERIES);
      await openList(o, 'Metric');
      const list = o.page.getByRole('listbox');
      await eventually(async () => {
        for (const group of ['Ratios', 'Durations', 'Counts']) {
          assert.ok(await list.getByText(group, { exact: true }).isVisible(), `group ${group} shown`);
        }
        const chosen = list.getByRole('option', { name: /^Uptime ratio/ });
        assert.ok(inside((await chosen.boundingBox())!, (await list.boundingBox())!), 'the chosen metric is in view');
      });
      await o.shot('query-metric-open');
      await o.page.keyboard.type('MTTR');
      await list.getByRole('option', { name: /^MTTR/ }).click();
      await eventually(async () => assert.deepEqual(await lastChange(o), { refId: 'A', ...NEW_SERIES, metric: 'mttrSeconds', aggregate: 'p50' }));
      await eventually(async () => assert.equal(await o.editor.getByLabel('Aggregate').inputValue(), 'p50'));
      assert.equal(await o.runs(), 1, 'one run for one change');
      await o.close();
    });

    flow(theme)('a metric far down the list is in view when the list opens', TEST, async () => {
      const o = await open(theme, 'query', { ...NEW_SERIES, metric: 'timeToFirstUpSeconds', aggregate: 'p50' });
      await openList(o, 'Metric');
      const list = o.page.getByRole('listbox');
      const chosen = list.getByRole('option', { name: /^Time to first up/ });
      await chosen.waitFor();
      await eventually(async () => assert.ok(inside((await chosen.boundingBox())!, (await list.boundingBox())!), 'the chosen metric is in view'));
      await o.shot('query-metric-far');
      await o.close();
    });

    flow(theme)('group by: a typed label key becomes label:<key>, after the keys the service knows; other text is refused', TEST, async () => {
      const o = await open(theme, 'query', NEW_SERIES);
      await typeInto(o, 'Group by', 'team');
      await optionsWhen(o, (shown) => {
        assert.match(shown[0]!, /Label ml\.example\.com\/team/, 'the service\'s key comes first');
        assert.match(shown.at(-1)!, /Label team.*not listed by the service/s, 'the typed key comes last');
      });
      await o.shot('query-groupby-typed');
      await o.page.keyboard.press('Enter');
      await eventually(async () => assert.equal((await lastChange(o))?.groupBy, 'label:ml.example.com/team'));

      await typeInto(o, 'Group by', 'example.org/tier');
      await optionsWhen(o, (shown) => assert.match(shown[0]!, /Label example\.org\/tier/));
      await o.page.keyboard.press('Enter');
      await eventually(async () => assert.equal((await lastChange(o))?.groupBy, 'label:example.org/tier'));

      const before = (await o.changes()).length;
      await typeInto(o, 'Group by', 'not a key!');
      await optionsWhen(o, (refused) => {
        assert.match(refused[0]!, /not a key!/);
        assert.match(refused.join('\n'), /Not a dimension or a label key/);
      });
      await o.page.keyboard.press('Enter');
      assert.equal((await o.changes()).length, before, 'nothing stored');
      await o.page.keyboard.press('Escape');
      // The service has no clusters: no "Cluster" to group by (judged once the whole list is back).
      await openList(o, 'Group by');
      await optionsWhen(o, (shown) => {
        assert.ok(shown.some((t) => t.startsWith('Namespace')), 'the whole list is shown');
        assert.ok(!shown.some((t) => t.startsWith('Cluster')), 'no Cluster without clusters');
      });
      await o.page.keyboard.press('Escape');
      // Time enough has passed for a refused text's change to show: there is none.
      assert.equal((await o.changes()).length, before, 'nothing stored for the refused text');
      await o.close();
    });

    flow(theme)('namespaces: a pick runs once; a glob is refused with a hint; a typed name is stored and leaves the input; two picks both show', TEST, async () => {
      const o = await open(theme, 'query', NEW_SERIES);
      await openList(o, 'Namespaces');
      await o.page.getByRole('option', { name: 'team-a', exact: true }).click();
      await eventually(async () => assert.deepEqual((await lastChange(o))?.namespaces, ['team-a']));
      assert.equal((await o.changes()).length, 1, 'one change for one pick');
      assert.equal(await o.runs(), 1, 'one run for one pick');

      await typeInto(o, 'Namespaces', 'team-*');
      await optionsWhen(o, (glob) => {
        assert.match(glob[0]!, /team-\*/);
        assert.match(glob[0]!, /Namespaces are exact names: for a pattern use Name/);
      });
      await o.shot('query-namespaces-glob');
      await o.page.keyboard.press('Enter');
      assert.deepEqual((await lastChange(o))?.namespaces, ['team-a'], 'the glob is not stored');

      await typeInto(o, 'Namespaces', 'batch-jobs');
      await optionsWhen(o, (shown) => assert.match(shown[0]!, /batch-jobs/));
      await o.page.getByRole('option', { name: /^batch-jobs/ }).click();
      await eventually(async () => assert.deepEqual((await lastChange(o))?.namespaces, ['team-a', 'batch-jobs']));
      await eventually(async () => assert.equal(await o.editor.getByLabel('Namespaces', { exact: true }).inputValue(), '', 'the typed text left the input'));
      await o.page.keyboard.press('Escape');
      await o.page.mouse.click(1000, 20);
      await eventually(async () => {
        for (const chip of ['team-a', 'batch-jobs']) {
          assert.ok(await o.editor.getByText(chip, { exact: true }).isVisible(), `${chip} shown in full`);
        }
      });
      assert.equal((await o.changes()).length, 2, 'the refused glob stored nothing');
      await o.shot('query-namespaces-two');
      await o.close();
    });

    flow(theme)('failed look-ups say so in the field that needed them, without breaking the row; typing still works', TEST, async () => {
      const up = await open(theme, 'query', NEW_SERIES);
      const nameUp = (await up.editor.getByLabel('Name', { exact: true }).boundingBox())!;
      await up.close();

      const o = await open(theme, 'query', NEW_SERIES, 'down');
      await eventually(async () => {
        assert.match(await o.editor.getByText(/Could not list namespaces:/).innerText(), /ECONNREFUSED.*Type names instead/);
        assert.match(await o.editor.getByText(/Could not list label keys:/).innerText(), /Type a key to group by it/);
      });
      await o.shot('query-lookups-failed');
      // The note sits above the input, inside the field's width: the row keeps its place and shape.
      await eventually(async () => {
        const name = (await o.editor.getByLabel('Name', { exact: true }).boundingBox())!;
        assert.equal(Math.round(name.x), Math.round(nameUp.x), 'the Name field stays where it was');
        const namespaces = (await o.editor.getByLabel('Namespaces', { exact: true }).boundingBox())!;
        assert.ok(namespaces.x + namespaces.width < name.x, 'Namespaces stays left of Name');
        const labels = await Promise.all(['Namespaces', 'Name'].map((l) => o.editor.locator('label', { hasText: new RegExp(`^${l}$`) }).boundingBox()));
        assert.equal(Math.round(labels[0]!.y), Math.round(labels[1]!.y), 'on the same row');
      });

      await typeInto(o, 'Group by', 'ml.example.com/team');
      await optionsWhen(o, (shown) => assert.match(shown[0]!, /Label ml\.example\.com\/team/));
      await eventually(async () => {
        const warning = (await o.editor.getByText(/Could not list label keys:/).boundingBox())!;
        const menu = (await o.page.getByRole('listbox').boundingBox())!;
        assert.ok(warning.y + warning.height <= menu.y, 'the open list does not cover the warning');
      });
      await o.page.keyboard.press('Enter');
      await eventually(async () => assert.equal((await lastChange(o))?.groupBy, 'label:ml.example.com/team'));
      await o.close();
    });

    it('each query type says what it is for and which panel it suits; fleet stores what it shows', TEST, async () => {
      // Per JobSet, which a fleet query cannot be: it shows, and stores, the whole fleet.
      const o = await open(theme, 'query', { ...NEW_SERIES, groupBy: 'none' });
      const panels = { Summary: /Panel: Table/, States: /Panel: State timeline/, Events: /Panel: Annotations/, Fleet: /Panel: Table, Bar chart/ };
      const seen = new Set<string>();
      for (const [type, panel] of Object.entries(panels)) {
        await o.editor.getByRole('radio', { name: type }).click({ force: true });
        const text = await eventually(async () => {
          assert.equal(await o.editor.getByRole('radio', { name: type }).isChecked(), true, `${type} chosen`);
          const shown = await o.editor.getByTestId('upness-query-type-description').innerText();
          assert.match(shown, panel);
          return shown;
        });
        seen.add(text);
        await o.shot(`query-${type.toLowerCase()}`);
      }
      assert.equal(seen.size, 4, 'every type reads differently');
      await eventually(async () => assert.equal(await o.editor.getByLabel('Group by').inputValue(), 'Whole fleet'));
      await eventually(async () => assert.equal((await lastChange(o))?.groupBy, 'all', 'fleet stores the group it shows'));
      assert.equal(await o.runs(), 4);
      await o.close();
    });

    flow(theme)('a bad rolling length or label selector is refused in its field; the repair is stored', TEST, async () => {
      const o = await open(theme, 'query', { ...NEW_SERIES, window: 'rolling', rolling: '24h' });
      const length = o.editor.getByLabel('Length', { exact: true });
      await length.fill('2 days');
      await length.press('Enter');
      await eventually(async () => assert.ok(await o.editor.getByText(/Enter a duration/).isVisible()));
      const selector = o.editor.getByLabel('Label selector', { exact: true });
      await selector.fill('team in (a');
      await selector.press('Enter');
      await eventually(async () => assert.ok(await o.editor.getByText('unbalanced parentheses').isVisible()));
      assert.deepEqual(await o.changes(), [], 'nothing bad stored');
      await o.shot('query-text-errors');

      await length.fill('1h30m');
      await length.press('Enter');
      await selector.fill('ml.example.com/team in (ml,infra)');
      await selector.press('Enter');
      await eventually(async () => assert.equal(await o.editor.getByText(/Enter a duration|unbalanced/).count(), 0, 'the errors are gone'));
      await eventually(async () => {
        const last = await lastChange(o);
        assert.equal(last?.rolling, '1h30m');
        assert.equal(last?.labelSelector, 'ml.example.com/team in (ml,infra)');
      });
      assert.equal(await o.runs(), 2);
      await o.close();
    });
  });

  describe(`variable editor (${theme})`, () => {
    it('an unreadable saved query shows why, and any pick replaces it', TEST, async () => {
      const o = await open(theme, 'variable', 'label_values(namespace)');
      await eventually(async () =>
        assert.match(await o.editor.getByText(/cannot read the variable query "label_values\(namespace\)"/).innerText(), /Pick what to list/)
      );
      await o.shot('variable-unreadable');
      await openList(o, 'Values');
      await optionsWhen(o, (kinds) => assert.match(kinds[0]!, /Namespaces.*Every namespace that holds JobSets/s, 'kinds come with descriptions'));
      await o.page.getByRole('option', { name: /^Namespaces/ }).click();
      await eventually(async () => assert.deepEqual(await lastChange(o), { refId: 'UpnessVariableQuery', what: 'namespaces' }));
      await eventually(async () => assert.equal(await o.editor.getByText(/cannot read/).count(), 0));
      await o.close();
    });

    flow(theme)('label values: the key comes from the service, a partial key finds it, Enter commits; nothing is red before', TEST, async () => {
      const o = await open(theme, 'variable', { refId: 'v', what: 'labelValues' });
      await eventually(async () => assert.ok(await o.editor.getByText('Pick or type the label key').isVisible()));
      assert.equal(await o.editor.locator('[role="alert"]').count(), 0, 'no error before anything is typed');
      await typeInto(o, 'Label key', 'team');
      // The list for "team" (not the whole list it showed while loading): every option has the text.
      await optionsWhen(o, (keys) => {
        assert.ok(keys.every((k) => k.toLowerCase().includes('team')), `only keys with "team": ${keys.join(', ')}`);
        assert.match(keys[0]!, /^ml\.example\.com\/team/);
      });
      await o.shot('variable-label-key');
      await o.page.keyboard.press('Enter');
      await eventually(async () => assert.deepEqual(await lastChange(o), { refId: 'v', what: 'labelValues', key: 'ml.example.com/team' }));
      await o.close();
    });

    flow(theme)('jobsets: namespaces from the service and the dashboard, a glob refused', TEST, async () => {
      const o = await open(theme, 'variable', 'jobsets');
      await openList(o, 'Namespaces');
      await optionsWhen(o, (options) =>
        assert.deepEqual(options.map((t) => t.split('\n')[0]), ['$namespace', '$window', 'ml-platform', 'research', 'team-a', 'team-b'])
      );
      await o.page.getByRole('option', { name: /^\$namespace/ }).click();
      await eventually(async () => assert.deepEqual(await lastChange(o), { refId: 'UpnessVariableQuery', what: 'jobsets', namespace: '$namespace' }));
      await typeInto(o, 'Namespaces', 'team-*');
      await optionsWhen(o, (glob) => {
        assert.match(glob[0]!, /team-\*/);
        assert.match(glob.join('\n'), /Namespaces are exact names/);
      });
      await o.shot('variable-jobsets');
      await o.close();
    });
  });

  describe(`config editor (${theme})`, () => {
    it('Connection and Authentication sections; the URL is judged when left, not while typed; the docs link stays in Grafana', TEST, async () => {
      const o = await open(theme, 'config', {});
      await eventually(async () => {
        for (const section of ['Connection', 'Authentication', 'Additional settings']) {
          assert.ok(await o.editor.getByRole('heading', { name: section }).isVisible(), `${section} shown`);
        }
      });
      const link = o.editor.getByRole('link', { name: 'its page in Grafana' });
      assert.equal(await link.getAttribute('target'), null, 'not opened as an external page');
      assert.equal(await link.getAttribute('href'), '/plugins/upness-jobset-datasource');

      const url = o.editor.getByLabel(/^URL/);
      await url.pressSequentially('upness:80');
      assert.equal(await o.editor.getByText(/Enter the address/).count(), 0, 'no error while typing');
      await url.blur();
      await eventually(async () => assert.ok(await o.editor.getByText(/Enter the address of the Upness service/).isVisible()));
      await o.shot('config-url-error');
      await url.fill('http://upness.upness.svc:8080');
      await url.blur();
      await eventually(async () => assert.equal(await o.editor.getByText(/Enter the address/).count(), 0));
      await eventually(async () => assert.equal(((await lastChange(o))?.jsonData as { url?: string }).url, 'http://upness.upness.svc:8080'));
      await o.shot('config');
      await o.close();
    });
  });
}
