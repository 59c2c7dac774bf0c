// The answer of ?frames=arrow (arrowAnswer): its layout read back, the head valid JSON for any
// refId, every file 8-byte aligned, and a result whose times Arrow cannot carry (after 2262: no
// fleet reaches it, but a query may ask up to year 9999) keeping its frame JSON. The answers of a
// real service are tested in app.service.test.ts and, through the Go SDK, in pkg/plugin/arrow_test.go.

import { tableFromIPC } from 'apache-arrow';
import { frame, numberField, timeField } from '../frames/frame.ts';
import * as arrow from '../frames/arrow.ts';
import { arrowAnswer, readArrowAnswer } from './query.ts';

const late = Date.UTC(9999, 0, 1);

describe('arrowAnswer', () => {
  it('Arrow for every result it can carry, frame JSON for the one it cannot, errors as they are', () => {
    const now = frame([timeField('time', [0, 60_000]), numberField('v', [1, null])], { refId: 'a "quoted" \\ id' });
    const odd = frame([numberField('w', [3])], { refId: 'odd' });
    const far = frame([timeField('time', [0, late]), numberField('v', [1, 2])], { refId: 'far' });
    const body = arrowAnswer({
      'a "quoted" \\ id': { status: 200, frames: [now, odd] },
      far: { status: 200, frames: [far] },
      bad: { status: 400, error: 'metric: "nope" is not a figure' },
      none: { status: 200, frames: [] },
    }, arrow);
    const headLength = body.readUInt32BE(0);
    const head = JSON.parse(body.subarray(4, 4 + headLength).toString('utf8'));
    expect(Object.keys(head.results)).toEqual(['a "quoted" \\ id', 'far', 'bad', 'none']);
    const places: [number, number][] = head.results['a "quoted" \\ id'].arrowFrames;
    expect(places.map(([offset]) => offset % 8)).toEqual([0, 0]);
    // The files fill the body after the head, each padded to 8 bytes.
    expect(body.length - 4 - headLength).toBe(places.reduce((n, [, length]) => n + Math.ceil(length / 8) * 8, 0));

    const { results } = readArrowAnswer(body);
    const ok = results['a "quoted" \\ id']!;
    expect(ok.status).toBe(200);
    expect(ok.frames).toBeUndefined();
    expect([...tableFromIPC(ok.arrowFiles![0]!).getChild('v')!]).toEqual([1, null]);
    expect([...tableFromIPC(ok.arrowFiles![1]!).getChild('w')!]).toEqual([3]);
    expect(results.far).toEqual({ status: 200, frames: [JSON.parse(JSON.stringify(far))] });
    expect(results.bad).toEqual({ status: 400, error: 'metric: "nope" is not a figure' });
    expect(results.none).toEqual({ status: 200, arrowFiles: [] });
  });
});
