import { DEFAULT_QUERY, METRICS, SLO_ANSWER_COLUMNS, SLO_ANSWERS, type SloColumn, type UpnessQuery } from '../../types';
import {
  columnsForAnswer,
  defaultAggregate,
  labelSelectorError,
  METRIC_GROUP,
  NAMESPACE_GLOB_HINT,
  namePatternError,
  namespaceProblem,
  newQuery,
  normalize,
  resolve,
  ROLLING_ERROR,
  rollingError,
  sameQuery,
  shownColumns,
  staleSortColumn,
  toGroupBy,
  withMetric,
  withType,
} from './model';

describe('a new query', () => {
  it('is a step series of the uptime ratio per namespace, pooled: lines, not one dot per JobSet', () => {
    expect(newQuery()).toEqual({
      ...DEFAULT_QUERY,
      queryType: 'series',
      metric: 'uptimeRatio',
      window: 'step',
      groupBy: 'namespace',
      aggregate: 'pooled',
    });
  });

  it('of type fleet spreads across the whole fleet; an annotation is an events query', () => {
    expect(newQuery('fleet').groupBy).toBe('all');
    expect(newQuery('events')).toEqual({ ...DEFAULT_QUERY, queryType: 'events' });
  });

  it('owns its lists (a later push does not change the next new query)', () => {
    const a = newQuery();
    a.namespaces!.push('team-a');
    expect(newQuery().namespaces).toEqual([]);
  });
});

describe('the aggregate that suits a metric', () => {
  it.each([
    ['uptimeRatio', 'pooled'],
    ['upSeconds', 'sum'],
    ['downSeconds', 'sum'],
    ['provisioningSeconds', 'sum'],
    ['interruptionDowntimeSeconds', 'sum'],
    ['suspendedSeconds', 'sum'],
    ['queuedSeconds', 'sum'],
    ['unknownSeconds', 'sum'],
    ['interruptions', 'sum'],
    ['recoveries', 'sum'],
    ['mttrSeconds', 'p50'],
    ['mtbiSeconds', 'p50'],
    ['timeToFirstUpSeconds', 'p50'],
    ['up', 'mean'],
  ] as const)('%s → %s', (metric, aggregate) => {
    expect(defaultAggregate(metric)).toBe(aggregate);
  });

  it('covers every metric with a group', () => {
    expect(Object.keys(METRIC_GROUP).sort()).toEqual([...METRICS].sort());
  });

  it("follows the metric while the aggregate is the old metric's default", () => {
    const q: UpnessQuery = { refId: 'A', ...newQuery() };
    expect(withMetric(q, 'mttrSeconds')).toEqual({ ...q, metric: 'mttrSeconds', aggregate: 'p50' });
    expect(withMetric({ ...q, metric: 'mttrSeconds', aggregate: 'p50' }, 'upSeconds').aggregate).toBe('sum');
    // Stored without an aggregate (the service's mean): the new metric's own.
    expect(withMetric({ refId: 'A', metric: 'uptimeRatio' }, 'interruptions').aggregate).toBe('sum');
  });

  it('stays when the user chose another', () => {
    const q: UpnessQuery = { refId: 'A', ...newQuery(), aggregate: 'max' };
    expect(withMetric(q, 'mttrSeconds')).toEqual({ ...q, metric: 'mttrSeconds' });
  });
});

describe('what the editor shows is what it stores', () => {
  it('reads undefined fields as the service does', () => {
    expect(resolve({ refId: 'A', window: undefined }).window).toBe('range');
  });

  it('stores a fleet query "per JobSet" and of the state as the service reads it: the whole fleet, the uptime ratio', () => {
    const q: UpnessQuery = { refId: 'A', queryType: 'fleet', groupBy: 'none', metric: 'up' };
    expect(normalize(q)).toEqual({ ...q, groupBy: 'all', metric: 'uptimeRatio' });
    expect(normalize({ refId: 'A', queryType: 'fleet' })).toEqual({ refId: 'A', queryType: 'fleet', groupBy: 'all' });
    const ok: UpnessQuery = { refId: 'A', queryType: 'fleet', groupBy: 'namespace' };
    expect(normalize(ok)).toBe(ok);
    const series: UpnessQuery = { refId: 'A', groupBy: 'none', metric: 'up' };
    expect(normalize(series)).toBe(series);
  });

  it('switching to fleet makes the group valid; switching back keeps it', () => {
    const q: UpnessQuery = { refId: 'A', ...newQuery(), groupBy: 'none' };
    const fleet = withType(q, 'fleet');
    expect(fleet.groupBy).toBe('all');
    expect(withType(fleet, 'series')).toEqual({ ...fleet, queryType: 'series' });
  });

  it('counting by cause is for events only: another type gets the default grouping (fleet: all)', () => {
    const events: UpnessQuery = { refId: 'A', ...newQuery('events'), groupBy: 'cause' };
    expect(normalize(events)).toBe(events);
    expect(withType(events, 'series').groupBy).toBe('none');
    expect(withType(events, 'summary').groupBy).toBe('none');
    expect(withType(events, 'fleet').groupBy).toBe('all');
  });
});

describe('sameQuery: a change is a change', () => {
  it('ignores key order and compares lists by value', () => {
    expect(
      sameQuery({ refId: 'A', namespaces: ['a'], metric: 'up' }, { metric: 'up', refId: 'A', namespaces: ['a'] })
    ).toBe(true);
    expect(sameQuery({ refId: 'A', namespaces: ['a'] }, { refId: 'A', namespaces: ['a', 'b'] })).toBe(false);
    expect(sameQuery({ refId: 'A' }, { refId: 'A', name: '' })).toBe(false);
  });
});

describe('Group by holds only what the service accepts', () => {
  it.each([
    ['namespace', 'namespace'],
    ['none', 'none'],
    ['team', 'label:team'],
    ['ml.example.com/team', 'label:ml.example.com/team'],
    ['label:ml.example.com/team', 'label:ml.example.com/team'],
    [' label: team ', 'label:team'],
    ['$groupKey', 'label:$groupKey'],
  ])('%j → %j', (typed, groupBy) => {
    expect(toGroupBy(typed)).toBe(groupBy);
  });

  it.each(['', 'not a key!', 'team=ml', 'label:', '/team', 'Example.com/team'])('refuses %j', (typed) => {
    expect(toGroupBy(typed)).toBeNull();
  });
});

describe('Namespaces hold names and variables, never globs', () => {
  it.each(['team-a', 'a', 'ml-platform', '$namespace', '${namespace}'])('accepts %j', (typed) => {
    expect(namespaceProblem(typed)).toBeUndefined();
  });

  it.each(['team-*', 'team-?', '*', '/team-.*/', 'team-[ab]'])(
    'refuses the pattern %j with a hint to use Name',
    (typed) => {
      expect(namespaceProblem(typed)).toBe(NAMESPACE_GLOB_HINT);
    }
  );

  it('refuses what is not a namespace name', () => {
    expect(namespaceProblem('Team A')).toMatch(/is not a namespace name/);
    expect(namespaceProblem('a,b')).toMatch(/One namespace at a time/);
    expect(namespaceProblem('-a')).toMatch(/is not a namespace name/);
    expect(namespaceProblem('a'.repeat(64))).toMatch(/is not a namespace name/);
  });
});

describe('text fields are checked as the service checks them', () => {
  it('rolling lengths, letting variables through', () => {
    for (const ok of ['30m', '7d', '1h30m', '$window', '${window}']) {
      expect(rollingError(ok)).toBeUndefined();
    }
    for (const bad of ['', '0h', '24', '1y', '2 days']) {
      expect(rollingError(bad)).toBe(ROLLING_ERROR);
    }
  });

  it("label selectors, with the service's own message", () => {
    expect(labelSelectorError('team=ml,tier in (a,b),!canary')).toBeUndefined();
    expect(labelSelectorError('')).toBeUndefined();
    expect(labelSelectorError('team in ($team)')).toBeUndefined();
    expect(labelSelectorError('team in (a')).toBe('unbalanced parentheses');
    expect(labelSelectorError('team=a b')).toMatch(/^cannot read "team=a b"/);
  });

  it('name patterns: globs pass, a bad regular expression is named', () => {
    expect(namePatternError('train-*')).toBeUndefined();
    expect(namePatternError('/^train-\\d+$/')).toBeUndefined();
    expect(namePatternError('/train-(/')).toMatch(/^not a valid regular expression/);
  });
});

describe("a table's columns: shown, sortable, and an slo answer's kept across answers", () => {
  it("shows an slo answer's asked columns in the answer's order, all when none are asked", () => {
    const q = resolve({
      refId: 'A',
      ...newQuery('slo'),
      sloAnswer: 'errorBudget',
      columns: ['burnRate', 'remainingFraction'],
    });
    expect(shownColumns(q)).toEqual(['remainingFraction', 'burnRate']);
    expect(shownColumns(resolve({ ...q, columns: [] }))).toEqual(SLO_ANSWER_COLUMNS.errorBudget);
    expect(shownColumns(resolve({ refId: 'A', ...newQuery('summary'), figures: ['upSeconds'] }))).toEqual([
      'upSeconds',
    ]);
  });

  it('calls a sort stale only when the service would refuse it', () => {
    const summary = resolve({
      refId: 'A',
      ...newQuery('summary'),
      figures: ['upSeconds'],
      sort: { by: 'interruptions', direction: 'desc' },
    });
    expect(staleSortColumn(summary)).toBeUndefined();
    const slo = resolve({
      refId: 'A',
      ...newQuery('slo'),
      sloAnswer: 'errorBudget',
      columns: ['remainingFraction'],
      sort: { by: 'burnRate', direction: 'desc' },
    });
    expect(staleSortColumn(slo)).toBeUndefined();
    expect(staleSortColumn(resolve({ ...slo, sloAnswer: 'sli' }))).toBe('burnRate');
  });

  it('keeps, for every pair of answers, exactly the columns the new answer has, none left meaning all', () => {
    for (const from of SLO_ANSWERS) {
      for (const to of SLO_ANSWERS) {
        const asked = [...SLO_ANSWER_COLUMNS[from]] as SloColumn[];
        const kept = columnsForAnswer(asked, to);
        const expected = asked.filter((c) => (SLO_ANSWER_COLUMNS[to] as readonly string[]).includes(c));
        expect(kept).toEqual(expected.length === 0 ? undefined : expected);
      }
    }
    expect(columnsForAnswer(undefined, 'sli')).toBeUndefined();
  });
});
