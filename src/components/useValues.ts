import { useEffect, useState } from 'react';

import type { DataSource } from '../datasource';
import type { ValueKind } from '../types';

export interface Values {
  values: string[];
  loading: boolean;
  /** Why the list could not be had (the service is unreachable…): the field still takes typed values. */
  error?: string;
}

/** The service's values of one kind, loaded once per data source. */
export function useValues(datasource: DataSource, what: ValueKind): Values {
  const [state, setState] = useState<Values>({ values: [], loading: true });
  useEffect(() => {
    let live = true;
    datasource.getValues(what).then(
      (values) => live && setState({ values, loading: false }),
      (error: unknown) => live && setState({ values: [], loading: false, error: messageOf(error) })
    );
    return () => {
      live = false;
    };
  }, [datasource, what]);
  return state;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) {
    return error.message;
  }
  // Grafana's backend service rejects with the response: {status, data: {message}}.
  const data = (error as { data?: { message?: unknown; error?: unknown } } | undefined)?.data;
  const message = data?.message ?? data?.error;
  return typeof message === 'string' ? message : 'request failed';
}
