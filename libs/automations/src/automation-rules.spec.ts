import type { Pass } from '@app/passes';
import { MAX_ACTIONS, readActions, readTrigger } from './automation-rules';

const PASS = {
  passMetadata: {
    description: 'Loyalty card',
    organizationName: 'Brand',
    topField: { key: 'points', label: 'Points', value: '0' },
  },
} as unknown as Pick<Pass, 'passMetadata'>;

describe('readTrigger', () => {
  it('takes each holder trigger alone and a date trigger with its zone as the database spells it', () => {
    for (const on of [
      'holder.created',
      'holder.installed',
      'holder.uninstalled',
      'holder.entered',
    ]) {
      expect(readTrigger({ on })).toEqual({ trigger: { on } });
    }
    expect(
      readTrigger({
        on: 'date',
        attribute: 'birthday',
        time: '00:00',
        timeZone: 'america/new_york',
      }),
    ).toEqual({
      trigger: { on: 'date', attribute: 'birthday', time: '00:00', timeZone: 'America/New_York' },
    });
  });

  it('keys every problem by its path', () => {
    expect(readTrigger({ on: 'holder.created', time: '09:00' }).problems).toEqual({
      'trigger.time': 'is not a field of the holder.created trigger',
    });
    expect(
      Object.keys(readTrigger({ on: 'date', attribute: 'a-b', time: '12:60' }).problems ?? {}),
    ).toEqual(['trigger.attribute', 'trigger.time', 'trigger.timeZone']);
  });
});

describe('readActions', () => {
  it('moves the bulk change rules’ paths under the action’s', () => {
    const read = readActions(PASS, [
      { set: { fieldValues: { tier: 'Gold' }, attributes: { ok: 1, '9': 2 } } },
      { addTags: ['gold'] },
      { increment: { points: Number.POSITIVE_INFINITY, 'a b': 1 } },
    ]);
    expect(Object.keys(read.problems ?? {}).sort()).toEqual([
      'actions.0.set.attributes.9',
      'actions.0.set.fieldValues.tier',
      'actions.2.increment.a b',
      'actions.2.increment.points',
    ]);
  });

  it('keeps what it read: tags sorted without repeats, increments as given', () => {
    expect(
      readActions(PASS, [
        { addTags: ['b', 'a', 'b'] },
        { increment: { points: 5, visits: -1 } },
        { set: { fieldValues: { points: null } } },
        { notify: { message: 'Hi {{externalId}}' } },
      ]),
    ).toEqual({
      actions: [
        { addTags: ['a', 'b'] },
        { increment: { points: 5, visits: -1 } },
        { set: { fieldValues: { points: null } } },
        { notify: { message: 'Hi {{externalId}}' } },
      ],
    });
  });

  it(`takes 1 to ${MAX_ACTIONS} actions`, () => {
    const tag = { addTags: ['a'] };
    expect(readActions(PASS, []).problems).toEqual({
      actions: 'must be a list of 1 to 10 actions',
    });
    expect(readActions(PASS, Array(MAX_ACTIONS).fill(tag)).problems).toBeUndefined();
    expect(readActions(PASS, Array(MAX_ACTIONS + 1).fill(tag)).problems).toHaveProperty('actions');
  });
});
