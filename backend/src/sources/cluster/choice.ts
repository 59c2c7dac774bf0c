// Whether the options or the environment name a cluster to watch. No client library here: the CLI
// asks this before it loads @kubernetes/client-node (only when a cluster is wanted).

import { existsSync } from 'node:fs';

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export interface ClusterChoice {
  kubeconfig?: string;
  context?: string;
}

/** Running in a pod with a mounted service account token. */
export function inCluster(): boolean {
  return Boolean(process.env.KUBERNETES_SERVICE_HOST) && existsSync(SERVICE_ACCOUNT_TOKEN);
}

/** --kubeconfig, --context, $KUBECONFIG, or a pod's service account. */
export function clusterRequested(choice: ClusterChoice): boolean {
  return choice.kubeconfig !== undefined || choice.context !== undefined || Boolean(process.env.KUBECONFIG) || inCluster();
}
