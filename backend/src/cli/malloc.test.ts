// What `upness` adds to its environment before running itself again (backend/bin/malloc.js): glibc's
// malloc variables the caller did not set, by name or as a tunable of GLIBC_TUNABLES.

import { MALLOC_ENV, missingMallocEnv } from '../../bin/malloc.js';

describe('missingMallocEnv', () => {
  it('adds one arena (all threads allocate from one pool) and a fixed mmap threshold of 128 KiB (glibc leaves it dynamic) to an environment without them', () => {
    expect(missingMallocEnv({ PATH: '/bin' })).toEqual({ MALLOC_ARENA_MAX: '1', MALLOC_MMAP_THRESHOLD_: '131072' });
    expect(MALLOC_ENV).toEqual({ MALLOC_ARENA_MAX: '1', MALLOC_MMAP_THRESHOLD_: '131072' });
  });

  it('keeps what the caller set, whatever its value', () => {
    expect(missingMallocEnv({ MALLOC_ARENA_MAX: '16' })).toEqual({ MALLOC_MMAP_THRESHOLD_: '131072' });
    expect(missingMallocEnv({ MALLOC_MMAP_THRESHOLD_: '1048576' })).toEqual({ MALLOC_ARENA_MAX: '1' });
    expect(missingMallocEnv({ MALLOC_ARENA_MAX: '', MALLOC_MMAP_THRESHOLD_: '0' })).toEqual({});
  });

  it('counts a tunable that GLIBC_TUNABLES names as set, and only the one it names', () => {
    expect(missingMallocEnv({ GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=4096' })).toEqual({ MALLOC_ARENA_MAX: '1' });
    expect(missingMallocEnv({ GLIBC_TUNABLES: 'glibc.malloc.check=0:glibc.malloc.arena_max=4' })).toEqual({ MALLOC_MMAP_THRESHOLD_: '131072' });
    expect(missingMallocEnv({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=1:glibc.malloc.mmap_threshold=65536' })).toEqual({});
    // A tunable whose name only begins like one of them is another.
    expect(missingMallocEnv({ GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold_x=1' })).toEqual(MALLOC_ENV);
  });

  it('asks only for what it is given to want (a benchmark peer with the threshold left dynamic)', () => {
    expect(missingMallocEnv({}, { MALLOC_ARENA_MAX: '2' })).toEqual({ MALLOC_ARENA_MAX: '2' });
    expect(missingMallocEnv({ MALLOC_ARENA_MAX: '2' }, { MALLOC_ARENA_MAX: '2' })).toEqual({});
  });
});
