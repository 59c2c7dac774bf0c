// Which cluster to watch, and as whom: --kubeconfig, $KUBECONFIG, the pod's service account, or
// ~/.kube/config, in that order; --context picks a context of the kubeconfig.

import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
// KubeConfig's own module: the package's index would load the whole generated API as well (lean-client.ts).
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { inCluster, type ClusterChoice } from './choice.ts';

export class KubeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KubeConfigError';
  }
}

export function loadKubeConfig(choice: ClusterChoice): { config: KubeConfig; source: string } {
  const config = new KubeConfig();
  let source: string;
  try {
    if (choice.kubeconfig !== undefined) {
      config.loadFromFile(choice.kubeconfig);
      source = choice.kubeconfig;
    } else if (process.env.KUBECONFIG) {
      config.loadFromDefault();
      source = `$KUBECONFIG (${process.env.KUBECONFIG})`;
    } else if (inCluster()) {
      config.loadFromCluster();
      source = 'in-cluster service account';
    } else {
      const home = join(homedir(), '.kube', 'config');
      // client-node would fall back to http://localhost:8080 without a word.
      if (!existsSync(home)) throw new KubeConfigError('no cluster to watch: give --kubeconfig, set $KUBECONFIG, run in a pod, or create ~/.kube/config');
      config.loadFromFile(home);
      source = home;
    }
  } catch (error) {
    if (error instanceof KubeConfigError) throw error;
    throw new KubeConfigError(`cannot load the kubeconfig: ${(error as Error).message}`);
  }
  if (choice.context !== undefined) {
    const names = config.getContexts().map((c) => c.name);
    if (!names.includes(choice.context)) {
      throw new KubeConfigError(`--context ${choice.context}: no such context (the kubeconfig has ${names.length === 0 ? 'none' : names.join(', ')})`);
    }
    config.setCurrentContext(choice.context);
  }
  const cluster = config.getCurrentCluster();
  if (cluster === null) throw new KubeConfigError(`the kubeconfig from ${source} has no current cluster (set current-context or pass --context)`);
  return { config, source };
}
