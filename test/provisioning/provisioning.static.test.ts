// The provisioned Grafana files (provisioning/), checked as files: they parse, carry what Grafana
// requires (uids, data source references, the query model's fields, rule expressions), load from
// the paths Grafana expands, and docker-compose.yaml and backend/Dockerfile (not runnable here: no
// Docker engine) are right. No service: the unit tier. What they answer against a live service is
// provisioning.live.test.ts and panels.live.test.ts (service tier).

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LIMITS } from '../../backend/src/query/step.ts';
import { AGGREGATES, DEFAULT_QUERY, GROUP_DIMENSIONS, LAYERS, METRICS, parseDuration, QUERY_TYPES, sizeBucketsProblem, SORT_DIRECTIONS, sortColumns, TABLE_QUERY_TYPES, WINDOWS } from '../../backend/src/query/types.ts';
import {
  composeGrafana,
  dashboardFiles,
  dashboards,
  datasourceFiles,
  DS_TYPE,
  DS_UID,
  filesUnder,
  grafanaExpand,
  GRAFANA_FIELDS,
  hostPath,
  isUpness,
  panelsOf,
  PROVISIONING,
  providerFiles,
  QUERY_MODEL_FIELDS,
  readJson,
  readYaml,
  rel,
  ROOT,
  ruleDocs,
  rules,
  type Json,
} from './files.ts';

// ---------------------------------------------------------------------------------------------
// Structure of the files

describe('provisioning files', () => {
  it('are all here and parse', () => {
    expect(dashboards.map((d) => rel(d.path))).toEqual(
      expect.arrayContaining(['provisioning/dashboards/upness/fleet-overview.json', 'provisioning/dashboards/upness/jobset-detail.json']),
    );
    expect(ruleDocs.length).toBeGreaterThan(0);
    expect(datasourceFiles.length).toBe(1);
    expect(providerFiles.length).toBe(1);
  });

  it('provision the Upness data source from the environment', () => {
    const doc = readYaml(datasourceFiles[0]!);
    expect(doc.apiVersion).toBe(1);
    const ds = doc.datasources.find((d: Json) => d.uid === DS_UID);
    expect(ds).toMatchObject({ name: 'Upness', type: DS_TYPE, isDefault: true, access: 'proxy' });
    expect(ds.jsonData.url).toBe('${UPNESS_URL}');
    expect(ds.secureJsonData.token).toBe('${UPNESS_TOKEN}');
    // The Go backend reads jsonData.timeoutSeconds as a positive number of seconds.
    expect(ds.jsonData.timeoutSeconds).toBeGreaterThan(0);
  });

  it('load the dashboards from the folder that holds them, with the path Grafana expands, in the container and outside it', () => {
    const doc = readYaml(providerFiles[0]!);
    expect(doc.apiVersion).toBe(1);
    const [provider] = doc.providers;
    expect(provider).toMatchObject({ type: 'file', folder: 'Upness' });
    // In the container: the environment docker-compose.yaml gives Grafana, then its volumes.
    const env = composeGrafana.environment;
    const inContainer = grafanaExpand(provider.options.path, env);
    expect(inContainer).toBe(`${env.GF_PATHS_PROVISIONING}/dashboards/upness`);
    expect(filesUnder(hostPath(inContainer), ['.json']).sort()).toEqual(dashboardFiles);
    // Outside a container: a Grafana started with GF_PATHS_PROVISIONING at this folder (a fixed
    // /etc/grafana/... path would name a folder that does not exist there).
    expect(filesUnder(grafanaExpand(provider.options.path, { GF_PATHS_PROVISIONING: PROVISIONING }), ['.json']).sort()).toEqual(dashboardFiles);
    // Grafana's home dashboard is one of them, through the same mount.
    expect(dashboardFiles).toContain(hostPath(env.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH));
  });

  it('put the alert rules and the dashboards in one folder, "Upness"', () => {
    // As Grafana provisions (alerting first): a rule group's folder is found by title, or created
    // with that title and a new uid; a dashboard provider's folder is found by folderUid when it
    // gives one (created with that uid and title if there is none), else by title.
    const folders: { uid: string; title: string }[] = [];
    const byTitle = (title: string): { uid: string; title: string } => {
      const found = folders.find((f) => f.title === title);
      if (found) return found;
      const created = { uid: `generated-${folders.length}`, title };
      folders.push(created);
      return created;
    };
    const ruleFolders = rules.map(({ group }) => byTitle(grafanaExpand(group.folder, {})).uid);
    const dashboardFolders = providerFiles.flatMap((f) =>
      readYaml(f).providers.map((p: Json) => {
        const title = grafanaExpand(p.folder, {});
        if (p.folderUid === undefined) return byTitle(title).uid;
        const found = folders.find((x) => x.uid === p.folderUid);
        if (found) return found.uid;
        folders.push({ uid: p.folderUid, title });
        return p.folderUid;
      }),
    );
    expect(folders.map((f) => f.title)).toEqual(['Upness']);
    expect(new Set([...ruleFolders, ...dashboardFolders]).size).toBe(1);
    // Nothing refers to the folder by a uid it does not have (links, rules, providers).
    for (const { json } of dashboards) expect([json.uid, JSON.stringify(json)]).not.toEqual([json.uid, expect.stringMatching(/folderUid|\/dashboards\/f\//)]);
    for (const { rule } of rules) expect([rule.uid, rule.folderUID ?? rule.folderUid]).toEqual([rule.uid, undefined]);
  });

  it('have a plugins folder Grafana reads without complaint (no app plugins: nothing to provision)', () => {
    // Grafana reads the *.yaml and *.yml files of provisioning/plugins and logs an error when the
    // folder is missing; each file is `apiVersion` and a list of `apps`, each with a `type`.
    const folder = join(PROVISIONING, 'plugins');
    expect(statSync(folder).isDirectory()).toBe(true);
    for (const file of filesUnder(folder, ['.yaml', '.yml'])) {
      const doc = readYaml(file);
      expect([rel(file), doc?.apiVersion]).toEqual([rel(file), 1]);
      for (const app of doc.apps ?? []) expect([rel(file), typeof app.type]).toEqual([rel(file), 'string']);
    }
    expect(readdirSync(folder)).toContain('README.md'); // says why it is empty
  });

  describe.each(dashboards.map((d) => [rel(d.path), d.json] as const))('%s', (_name, dashboard) => {
    it('is a dashboard Grafana loads as it is', () => {
      expect(dashboard.uid).toMatch(/^[a-z0-9-]{1,40}$/);
      expect(typeof dashboard.title).toBe('string');
      expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(39);
      expect(dashboard.time).toEqual({ from: 'now-7d', to: 'now' });
      expect(dashboard.id ?? null).toBeNull(); // provisioned dashboards get their id from Grafana
      const ids = panelsOf(dashboard).map((p) => p.id);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('lays its panels out on the grid without overlaps', () => {
      const cells = new Set<string>();
      for (const p of dashboard.panels) {
        const { x, y, w, h } = p.gridPos;
        expect(x + w).toBeLessThanOrEqual(24);
        for (let i = x; i < x + w; i++)
          for (let j = y; j < y + h; j++) {
            expect(cells.has(`${i},${j}`) ? `panel ${p.id} overlaps at ${i},${j}` : 'ok').toBe('ok');
            cells.add(`${i},${j}`);
          }
      }
    });

    it('queries the Upness data source by uid, with the fields of the query model only', () => {
      const variables = new Set((dashboard.templating?.list ?? []).map((v: Json) => v.name));
      for (const panel of panelsOf(dashboard)) {
        expect([panel.id, typeof panel.type, panel.title?.length > 0, typeof panel.description]).toEqual([panel.id, 'string', true, 'string']);
        expect([panel.id, panel.datasource]).toEqual([panel.id, { type: DS_TYPE, uid: DS_UID }]);
        expect(panel.targets.length).toBeGreaterThan(0);
        const refIds = panel.targets.map((t: Json) => t.refId);
        expect(new Set(refIds).size).toBe(refIds.length);
      }
      const targets = [...panelsOf(dashboard).flatMap((p) => p.targets), ...(dashboard.annotations?.list ?? []).filter((a: Json) => isUpness(a.datasource)).map((a: Json) => a.target)];
      for (const target of targets) {
        expect(Object.keys(target).filter((k) => !QUERY_MODEL_FIELDS.includes(k) && !GRAFANA_FIELDS.includes(k))).toEqual([]);
        if (target.datasource !== undefined) expect(target.datasource).toEqual({ type: DS_TYPE, uid: DS_UID });
        if (target.queryType !== undefined) expect(QUERY_TYPES).toContain(target.queryType);
        if (target.metric !== undefined) expect(METRICS).toContain(target.metric);
        if (target.layer !== undefined) expect(LAYERS).toContain(target.layer);
        if (target.aggregate !== undefined) expect(AGGREGATES).toContain(target.aggregate);
        if (target.window !== undefined) expect(WINDOWS).toContain(target.window);
        if (target.rolling !== undefined) expect(parseDuration(target.rolling)).not.toBeNull();
        if (target.groupBy !== undefined) expect([...GROUP_DIMENSIONS, 'label:']).toContain(target.groupBy.startsWith('label:') ? 'label:' : target.groupBy);
        if (target.sizeBuckets !== undefined) expect(sizeBucketsProblem(target.sizeBuckets)).toBeNull();
        for (const [, name] of JSON.stringify(target).matchAll(/\$\{?(\w+)/g)) expect(variables).toContain(name);
      }
    });

    it('sorts and limits in the service every panel that shows a row or a bar per JobSet or JobSet name (issue 21 §2)', () => {
      for (const panel of panelsOf(dashboard)) {
        for (const target of panel.targets as Json[]) {
          const q = { ...DEFAULT_QUERY, ...target };
          if (target.sort !== undefined || target.limit !== undefined) {
            // Only table queries take them, by a column of their rows, a direction and a whole limit.
            expect([panel.title, (TABLE_QUERY_TYPES as readonly string[]).includes(q.queryType)]).toEqual([panel.title, true]);
            if (target.sort !== undefined) {
              expect([panel.title, sortColumns(q)]).toEqual([panel.title, expect.arrayContaining([target.sort.by])]);
              expect(SORT_DIRECTIONS).toContain(target.sort.direction);
            }
            expect([panel.title, Number.isInteger(target.limit) && target.limit >= 1 && target.limit <= 50]).toEqual([panel.title, true]);
          }
          // One row per JobSet (or name) grows with the fleet: it needs a sort and a limit.
          const perJobSet = (TABLE_QUERY_TYPES as readonly string[]).includes(q.queryType) && q.groupBy === 'none';
          if (perJobSet && ['table', 'bargauge'].includes(panel.type)) {
            expect([panel.title, target.sort !== undefined, target.limit !== undefined]).toEqual([panel.title, true, true]);
          }
        }
      }
    });

    it('says why a stat, gauge or bar gauge has no value: its "no value" text is also what null maps to', () => {
      // Grafana shows `noValue` when there is no field; a field whose value is null (no recovery, not
      // burning) shows a value mapping's text, or nothing: every panel with a `noValue` maps null too.
      for (const panel of panelsOf(dashboard).filter((p) => ['stat', 'gauge', 'bargauge'].includes(p.type))) {
        const { noValue, mappings = [] } = panel.fieldConfig?.defaults ?? {};
        if (noValue === undefined) continue;
        const texts = mappings.filter((m: Json) => m.type === 'special' && m.options?.match === 'null+nan').map((m: Json) => m.options.result?.text);
        expect([panel.title, texts]).toEqual([panel.title, [noValue]]);
      }
    });

    it('takes its variables from the data source', () => {
      for (const variable of dashboard.templating?.list ?? []) {
        expect(variable).toMatchObject({ type: 'query', datasource: { type: DS_TYPE, uid: DS_UID } });
        expect(typeof variable.definition).toBe('string');
      }
    });
  });

  it('define alert rules with everything Grafana requires', () => {
    const uids = rules.map((r) => r.rule.uid);
    expect(uids).toEqual(expect.arrayContaining(['upness-jobset-down-10m', 'upness-jobset-uptime-ratio-24h', 'upness-jobset-mttr-24h', 'upness-nodepool-down-10m']));
    expect(new Set(uids).size).toBe(uids.length);
    for (const { doc } of ruleDocs) expect(doc.apiVersion).toBe(1);
    for (const { group, rule } of rules) {
      expect(group).toMatchObject({ name: expect.any(String), folder: expect.any(String), interval: expect.stringMatching(/^\d+[smh]$/) });
      expect(rule).toMatchObject({ uid: expect.stringMatching(/^[a-zA-Z0-9-_]{1,40}$/), title: expect.any(String), condition: expect.any(String), for: expect.stringMatching(/^\d+[smh]$/) });
      expect(['NoData', 'Alerting', 'OK', 'KeepLast']).toContain(rule.noDataState);
      expect(['Error', 'Alerting', 'OK', 'KeepLast']).toContain(rule.execErrState);
      // Titles and labels go through environment-variable expansion when Grafana loads the file.
      expect(JSON.stringify([rule.title, rule.labels])).not.toContain('$');
      expect(rule.labels.severity).toMatch(/^(critical|warning|info)$/);
      // A JobSet rule names its JobSet; a node-pool rule (label layer: nodepools) its pool.
      expect(rule.annotations.summary).toContain(rule.labels.layer === 'nodepools' ? '{{ $labels.pool }}' : '{{ $labels.jobset }}');
      const refIds = rule.data.map((d: Json) => d.refId);
      expect(new Set(refIds).size).toBe(refIds.length);
      expect(refIds).toContain(rule.condition);
      for (const d of rule.data) {
        expect(d.model.refId).toBe(d.refId);
        if (d.datasourceUid === '__expr__') {
          expect(['reduce', 'threshold', 'math']).toContain(d.model.type);
          expect(refIds.slice(0, refIds.indexOf(d.refId))).toContain(d.model.expression);
        } else {
          expect(d.datasourceUid).toBe(DS_UID);
          expect(d.relativeTimeRange.from).toBeGreaterThan(d.relativeTimeRange.to);
          // Grafana's default of 43,200 points is over the service's limit.
          expect(d.model.maxDataPoints).toBeLessThanOrEqual(LIMITS.maxPointsPerSeries);
          // One instance per JobSet run; per pool for a node-pool rule.
          expect(d.model.groupBy).toBe(rule.labels.layer === 'nodepools' ? 'pool' : 'none');
          if (rule.labels.layer === 'nodepools') expect(d.model.layer).toBe('nodepools');
          expect(Object.keys(d.model).filter((k) => !QUERY_MODEL_FIELDS.includes(k) && !GRAFANA_FIELDS.includes(k) && k !== 'intervalMs' && k !== 'maxDataPoints')).toEqual([]);
        }
      }
    }
  });
});

describe("Grafana's environment-variable expansion of provisioning files, as emulated here", () => {
  // Go's os.ExpandEnv, with A=/p; Grafana adds $$ (a literal $) and $__env{NAME}.
  it.each([
    ['${A}/x', '/p/x'],
    ['$A/x', '/p/x'],
    ['x$A-y', 'x/p-y'],
    ['$A.b', '/p.b'],
    ['${A}${A}', '/p/p'],
    ['${UNSET}', ''],
    ['${A:-default}', ''], // no shell defaults: the whole of "A:-default" is the name
    ['${}', ''],
    ['${A', 'A'],
    ['$1', ''],
    ['a$', 'a$'],
    ['$ x', '$ x'],
    ['$$A', '$A'],
    ['cost: $$5 for $A', 'cost: $5 for /p'],
    ['$__env{A}/x', '/p/x'],
    ['no variables', 'no variables'],
  ])('%j → %j', (text, expanded) => {
    expect(grafanaExpand(text, { A: '/p' })).toBe(expanded);
  });
});

describe('template variables', () => {
  it('are refreshed when the time range changes (refresh: 2), so they follow it', () => {
    for (const { json } of dashboards) for (const variable of json.templating?.list ?? []) expect([json.uid, variable.name, variable.refresh]).toEqual([json.uid, variable.name, 2]);
  });
});

describe('alert rule annotations', () => {
  it('are annotations Grafana does not expand environment variables in (nothing in ${...} or $$)', () => {
    for (const { rule: r } of rules) for (const [name, text] of Object.entries(r.annotations ?? {})) expect([r.uid, name, text]).not.toEqual([r.uid, name, expect.stringMatching(/\$\{|\$\$/)]);
  });
});

// ---------------------------------------------------------------------------------------------
// What cannot run here: the compose file and the image

describe('docker-compose.yaml and backend/Dockerfile (not runnable here: checked statically)', () => {
  const compose = readYaml(join(ROOT, 'docker-compose.yaml'));
  const dockerfile = readFileSync(join(ROOT, 'backend', 'Dockerfile'), 'utf8');
  const dockerignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));

  it('runs a pinned Grafana with the plugin, the provisioning and the service', () => {
    const { grafana, upness } = compose.services;
    expect(grafana.image).toMatch(/^grafana\/grafana:(\$\{GRAFANA_VERSION:-)?12\.\d+\.\d+\}?$/);
    // The whole of provisioning/ (datasources, dashboards, alerting, plugins), where Grafana reads it.
    expect(grafana.volumes).toEqual(expect.arrayContaining(['./dist:/var/lib/grafana/plugins/upness-jobset-datasource', './provisioning:/etc/grafana/provisioning:ro']));
    expect(hostPath(grafana.environment.GF_PATHS_PROVISIONING)).toBe(PROVISIONING);
    expect(grafana.environment.GF_PLUGINS_ALLOW_LOADING_UNSIGNED_PLUGINS).toBe(DS_TYPE);
    expect(grafana.environment.GF_AUTH_ANONYMOUS_ENABLED).toBe('true');
    expect(grafana.environment.GF_AUTH_ANONYMOUS_ORG_ROLE).toBe('Admin');
    expect(grafana.ports).toContain('3000:3000');
    // The data source provisioning reads these two; the token is the service's own.
    expect(grafana.environment.UPNESS_URL).toMatch(/^(\$\{UPNESS_URL:-)?http:\/\/upness:8080\}?$/);
    expect(grafana.environment.UPNESS_TOKEN).toBe(upness.environment.UPNESS_TOKEN);
    expect(upness.build).toEqual({ context: '.', dockerfile: 'backend/Dockerfile' });
    expect(upness.ports).toContain('8080:8080');
    expect(grafana.depends_on.upness.condition).toBe('service_healthy');
  });

  it('builds the service image from the workspace, without dev dependencies, as a non-root user', () => {
    expect(dockerfile).toMatch(/^FROM node:22-slim AS \w+$/m);
    expect(dockerfile).toMatch(/npm ci --omit=dev -w backend/);
    expect(dockerfile).toMatch(/^USER (?!root)\w+$/m);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["node", "backend\/bin\/upness\.js"\]$/m);
    expect(dockerfile).toMatch(/^CMD \["serve"\]$/m);
    expect(dockerfile).toMatch(/^EXPOSE 8080$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK [\s\S]*?\/healthz/m);
    expect(dockerfile).toMatch(/^VOLUME \/var\/lib\/upness$/m);
    expect(dockerignore).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git']));
    // Every file the image copies from the build context exists and is not ignored.
    for (const [, sources] of dockerfile.matchAll(/^COPY (?!--from)(?:--\S+ )*(.+) \S+$/gm)) {
      for (const source of sources!.split(/\s+/)) {
        expect([source, existsSync(join(ROOT, source))]).toEqual([source, true]);
        expect(dockerignore).not.toContain(source.replace(/\/$/, ''));
      }
    }
  });

  it('has every package the service imports among the backend dependencies that npm ci installs', () => {
    const dependencies = Object.keys(readJson(join(ROOT, 'backend', 'package.json')).dependencies ?? {});
    const sources = filesUnder(join(ROOT, 'backend', 'src'), ['.ts']).filter((f) => !f.endsWith('.test.ts'));
    const imported = new Set<string>();
    for (const file of sources) {
      for (const [, spec] of readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'/gm)) {
        if (spec!.startsWith('.')) {
          // The image holds backend/ only: the service must not import from elsewhere.
          expect([rel(file), spec, join(file, '..', spec!).startsWith(join(ROOT, 'backend'))]).toEqual([rel(file), spec, true]);
        } else if (!spec!.startsWith('node:')) {
          imported.add(spec!.startsWith('@') ? spec!.split('/').slice(0, 2).join('/') : spec!.split('/')[0]!);
        }
      }
    }
    expect([...imported].filter((p) => !dependencies.includes(p))).toEqual([]);
  });
});
