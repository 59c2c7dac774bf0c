// The form in which the watch holds a Pod or a Node after delivering it (resource-watch.ts). Pure.

import type { KubeObject } from '../../observation/types.ts';

/**
 * What the watch holds of a Pod or a Node once delivered: its identity, labels, timestamps and a
 * pod's node. That is what the node layer reads of one that a relist finds deleted (the causes in
 * its last version were read when that version was delivered) and what the usage sampler reads of
 * a pod; their whole objects (a node's images, a pod's containers) are most of a fleet's bytes.
 * JobSets and Workloads are kept whole: a JobSet found deleted closes with its last status.
 */
export function keepIdentity(object: KubeObject): KubeObject {
  const { uid, name, namespace, labels, resourceVersion, creationTimestamp, deletionTimestamp } = object.metadata;
  const nodeName = (object.spec as { nodeName?: unknown } | undefined)?.nodeName;
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    metadata: {
      uid,
      name,
      ...(namespace !== undefined ? { namespace } : {}),
      ...(labels !== undefined ? { labels } : {}),
      ...(resourceVersion !== undefined ? { resourceVersion } : {}),
      ...(creationTimestamp !== undefined ? { creationTimestamp } : {}),
      ...(deletionTimestamp !== undefined ? { deletionTimestamp } : {}),
    },
    ...(typeof nodeName === 'string' ? { spec: { nodeName } } : {}),
  };
}
