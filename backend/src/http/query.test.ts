// The answer of ?frames=arrow, written by hand around the base64 text: valid JSON for any refId,
// and a result whose times Arrow cannot carry (after 2262: no fleet reaches it, but a query may
// ask up to year 9999) keeps its frame JSON. The answers of a real service are tested in
// app.service.test.ts and, through the Go SDK, in pkg/plugin/arrow_test.go.

import { tableFromIPC } from 'apache-arrow';
import { frame, numberField, timeField } from '../frames/frame.ts';
import { arrowAnswer } from './query.ts';

const late = Date.UTC(9999, 0, 1);

describe('arrowAnswer', () => {
  it('Arrow for every result it can carry, frame JSON for the one it cannot, errors as they are', () => {
    const now = frame([timeField('time', [0, 60_000]), numberField('v', [1, null])], { refId: 'a "quoted" \\ id' });
    const far = frame([timeField('time', [0, late]), numberField('v', [1, 2])], { refId: 'far' });
    const answer = JSON.parse(
      arrowAnswer({
        'a "quoted" \\ id': { status: 200, frames: [now] },
        far: { status: 200, frames: [far] },
        bad: { status: 400, error: 'metric: "nope" is not a figure' },
        none: { status: 200, frames: [] },
      }),
    );
    expect(Object.keys(answer.results)).toEqual(['a "quoted" \\ id', 'far', 'bad', 'none']);
    const ok = answer.results['a "quoted" \\ id'];
    expect(Object.keys(ok)).toEqual(['status', 'arrowFrames']);
    expect([...tableFromIPC(Buffer.from(ok.arrowFrames[0], 'base64')).getChild('v')!]).toEqual([1, null]);
    expect(answer.results.far).toEqual({ status: 200, frames: [JSON.parse(JSON.stringify(far))] });
    expect(answer.results.bad).toEqual({ status: 400, error: 'metric: "nope" is not a figure' });
    expect(answer.results.none).toEqual({ status: 200, arrowFrames: [] });
  });
});
