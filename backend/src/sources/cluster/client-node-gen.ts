// What client-node's KubeConfig (dist/config.js) takes from its generated API, and nothing else of
// it: lean-client.ts hands config.js this module in place of the generated API's index, which loads
// every API group's client and model (most of client-node's cost). The same modules, so a full
// import of client-node later (the leader's Lease API) shares them.

export { createConfiguration } from '@kubernetes/client-node/dist/gen/configuration.js';
export { ServerConfiguration } from '@kubernetes/client-node/dist/gen/servers.js';
