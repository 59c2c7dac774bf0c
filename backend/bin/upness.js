#!/usr/bin/env node
// The CLI runs the TypeScript sources directly: Node 22.18+ strips types without a build step.
import '../src/cli/main.ts';
