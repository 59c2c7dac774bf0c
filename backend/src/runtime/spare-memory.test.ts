// Memory kept to be used again (spare-memory.ts): a block given back is taken again when it is large
// enough, a new one holds at least `least` and `headroom` more than asked, and no more than `kept` wait.

import { SpareMemory } from './spare-memory.ts';

describe('spare memory', () => {
  it('takes a block given back when it holds what is asked for, else makes one', () => {
    const spare = new SpareMemory();
    const a = spare.take(100);
    expect(a.byteLength).toBe(100);
    spare.give(a);
    expect(spare.take(80)).toBe(a);
    spare.give(a);
    const b = spare.take(101);
    expect(b).not.toBe(a);
    expect(b.byteLength).toBe(101);
    expect(spare.size).toBe(1);
    expect(spare.made).toBe(2);
  });

  it('makes a block of at least `least`, with `headroom` beyond what is asked for', () => {
    expect(new SpareMemory({ least: 4096 }).take(10).byteLength).toBe(4096);
    expect(new SpareMemory({ least: 4096 }).take(5000).byteLength).toBe(5000);
    expect(new SpareMemory({ headroom: 64 }).take(10).byteLength).toBe(74);
    expect(new SpareMemory({ least: 100, headroom: 64 }).take(10).byteLength).toBe(100);
  });

  it('keeps at most `kept` blocks', () => {
    const spare = new SpareMemory({ kept: 2 });
    for (let i = 0; i < 5; i++) spare.give(new ArrayBuffer(8));
    expect(spare.size).toBe(2);
    spare.take(8);
    spare.take(8);
    expect(spare.size).toBe(0);
    expect(spare.made).toBe(0);
  });
});
