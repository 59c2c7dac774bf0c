// The order timelines are listed in: by namespace, name and UID.

import type { Timeline } from './types.ts';

/** Code-unit order: namespaces, names and UIDs are DNS labels and hex, where it is the collation order. */
export function byNamespaceNameUid(a: Timeline, b: Timeline): number {
  if (a.namespace !== b.namespace) return a.namespace < b.namespace ? -1 : 1;
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0;
}
