// What `upness` adds to its environment before running itself again (backend/bin/malloc.js): glibc's
// malloc variables the caller did not set, by name or as a tunable of GLIBC_TUNABLES, and V8's flags
// the caller did not give, on the command line or in NODE_OPTIONS.

import { MALLOC_ENV, missingMallocEnv, missingV8Flags, SERVICE_V8_FLAGS } from '../../bin/malloc.js';

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

describe('missingV8Flags', () => {
  it("adds a young generation of two 4 MiB semi-spaces (V8's own highest is 16 MiB each) to a command line without one", () => {
    expect(SERVICE_V8_FLAGS).toEqual(['--max-semi-space-size=4']);
    expect(missingV8Flags([])).toEqual(['--max-semi-space-size=4']);
    expect(missingV8Flags(['--expose-gc', '--import', '/x/probe.js'], '--enable-source-maps')).toEqual(['--max-semi-space-size=4']);
  });

  it('keeps a size the caller gave, on the command line or in NODE_OPTIONS, in either spelling, whatever its value', () => {
    expect(missingV8Flags(['--max-semi-space-size=16'])).toEqual([]);
    expect(missingV8Flags(['--max_semi_space_size=1'])).toEqual([]);
    expect(missingV8Flags([], '--max-old-space-size=512  --max-semi-space-size=32')).toEqual([]);
    // A flag whose name only begins like it is another.
    expect(missingV8Flags(['--max-semi-space-size-x=1'])).toEqual(SERVICE_V8_FLAGS);
  });

  it('adds none beside --max-heap-size (V8 refuses it with both sizes it derives)', () => {
    expect(missingV8Flags(['--max-heap-size=600', '--max-old-space-size=500'])).toEqual([]);
    expect(missingV8Flags([], '--max_heap_size=600')).toEqual([]);
  });

  it('asks only for what it is given to want', () => {
    expect(missingV8Flags([], '', [])).toEqual([]);
    expect(missingV8Flags(['--max-semi-space-size=8'], '', ['--max-semi-space-size=4', '--stack-size=2000'])).toEqual(['--stack-size=2000']);
  });
});
