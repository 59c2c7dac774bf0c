import type { Metric, UpnessQuery } from '../../types';
import type { Values } from '../useValues';
import type { Resolved } from './model';

/** What every query type's editor gets from the query editor around it. */
export interface EditorProps {
  /** The query as the service reads it (stored fields over the defaults). */
  q: Resolved;
  /** A field's id, unique per query row: `upness-A-metric`. */
  id: (field: string) => string;
  /** Stores a change and runs the query, once per real change. */
  update: (patch: Partial<UpnessQuery>) => void;
  /** Changes the metric; an aggregate left at the old metric's default follows it. */
  setMetric: (metric: Metric) => void;
  lookups: { namespaces: Values; labelKeys: Values; clusters: Values };
  /** The dashboard's variables as `$name`. */
  variables: string[];
}
