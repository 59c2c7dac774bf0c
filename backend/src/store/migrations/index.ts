// The PostgreSQL schema's versions, oldest first. A migration is never edited once released: a change
// is a new one with the next number. backend/src/store/postgres-migrate.ts applies them.

import { initial } from './001-initial.ts';
import { facts } from './002-facts.ts';
import { goodputAndSuspensions } from './003-goodput-and-suspensions.ts';
import { suspensionFacts } from './004-suspension-facts.ts';
import { jobSizes } from './005-job-sizes.ts';
import { nodePools } from './006-node-pools.ts';
import { usage } from './007-usage.ts';

export interface Migration {
  /** 1, 2, 3, ... without gaps. */
  version: number;
  name: string;
  /** Run in one transaction with the others being applied. */
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [initial, facts, goodputAndSuspensions, suspensionFacts, jobSizes, nodePools, usage];
