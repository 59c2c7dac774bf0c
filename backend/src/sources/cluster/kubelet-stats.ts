// A kubelet's stats/summary, read through the apiserver's node proxy, so the service needs no
// network path to the nodes and no credentials of its own for them: the apiserver reaches the
// kubelet with its --kubelet-client-certificate. It needs RBAC `get` on `nodes/proxy` (README
// "Resource usage" says why that is a wide grant and how to leave it out).

import type { KubeConfig } from '@kubernetes/client-node';
import { getJson } from './list.ts';

/** The apiserver's path to one node's kubelet summary. */
export function kubeletSummaryPath(node: string): string {
  return `/api/v1/nodes/${encodeURIComponent(node)}/proxy/stats/summary`;
}

/** The summary's JSON as the kubelet sent it (parsed by usage/kubelet-summary.ts); an ApiError when the apiserver refuses or cannot reach the kubelet. */
export function fetchKubeletSummary(config: KubeConfig, node: string, signal: AbortSignal): Promise<unknown> {
  return getJson(config, kubeletSummaryPath(node), signal);
}
