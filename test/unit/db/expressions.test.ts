import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { allOf, expressionsOf, is, not, updateExpressionsOf } from '../../../shared/db/expressions';
import { ItemType } from '../../../shared/db/item-type';
import { CorruptItemError } from '../../../shared/db/items';

/**
 * The repository layer renders every expression the stores describe: a reserved word
 * (`status`, `data`) is safe anywhere in a path, a name used twice has one placeholder, and
 * OR inside AND keeps its meaning. Writes through an item type are checked with the schema
 * its reads parse with.
 */
describe('expressions', () => {
  it('renders a conditional update with placeholders for every name and value', () => {
    const rendered = updateExpressionsOf(
      { set: { 'execution.status': 'DONE' }, remove: ['current_node'], add: { ref_tables: -1 } },
      allOf(is.equal('execution.job_id', 'j1'), is.oneOf('execution.status', ['PENDING', 'IN_PROGRESS'])),
    );
    expect(rendered).toEqual({
      UpdateExpression: 'SET #n0.#n1 = :v0 REMOVE #n2 ADD #n3 :v1',
      ConditionExpression: '#n0.#n4 = :v2 AND #n0.#n1 IN (:v3, :v4)',
      ExpressionAttributeNames: {
        '#n0': 'execution',
        '#n1': 'status',
        '#n2': 'current_node',
        '#n3': 'ref_tables',
        '#n4': 'job_id',
      },
      ExpressionAttributeValues: { ':v0': 'DONE', ':v1': -1, ':v2': 'j1', ':v3': 'PENDING', ':v4': 'IN_PROGRESS' },
    });
  });

  it('keeps an absent counter equal to zero inside a conjunction', () => {
    const { ConditionExpression } = expressionsOf({
      condition: allOf(is.equal('lock_version', 2), is.count('ref_x', 0), not(is.containing('ids', 3))),
    });
    expect(ConditionExpression).toBe(
      '#n0 = :v0 AND (attribute_not_exists(#n1) OR #n1 = :v1) AND NOT (contains(#n2, :v2))',
    );
  });

  it('leaves out attribute maps a request does not use', () => {
    expect(expressionsOf({})).toEqual({});
  });
});

describe('item types', () => {
  const Thing = new ItemType(
    'DATASET',
    z.object({ count: z.int(), execution: z.object({ status: z.enum(['DONE', 'FAILED']) }).optional() }),
  );

  it('refuses a value its reads would refuse', () => {
    expect(() => Thing.changes({ set: { 'execution.status': 'LOST' } })).toThrow(CorruptItemError);
    expect(() => Thing.attributes({ count: 1.5 })).toThrow(CorruptItemError);
  });

  it('refuses an attribute its schema does not name', () => {
    expect(() => Thing.changes({ set: { colour: 'red' } })).toThrow(/colour is not an attribute/);
  });

  it('passes what its schema reads', () => {
    expect(Thing.changes({ set: { 'execution.status': 'DONE', count: 2 } })).toEqual({
      set: { 'execution.status': 'DONE', count: 2 },
    });
    expect(Thing.attributes({ count: 1 }, { tenant_id: 't' })).toEqual({ tenant_id: 't', count: 1 });
  });
});
