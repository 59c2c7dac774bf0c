// Types of malloc.js (plain JavaScript: the bin runs under any Node), for the benchmarks and tests that import it.
type MallocEnv = Partial<Record<'MALLOC_ARENA_MAX' | 'MALLOC_MMAP_THRESHOLD_', string>>;
export declare const MALLOC_ENV: Readonly<Required<MallocEnv>>;
export declare function missingMallocEnv(env: NodeJS.ProcessEnv, wanted?: MallocEnv): MallocEnv;
export declare function execWithServiceMalloc(wanted?: MallocEnv): void;
