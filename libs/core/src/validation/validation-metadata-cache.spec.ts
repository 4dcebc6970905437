import { getMetadataStorage, IsInt, IsString, Min, validate } from 'class-validator';
import { cacheValidationMetadata } from './validation-metadata-cache';

class Base {
  @IsString() name!: string;
}

class Derived extends Base {
  @IsInt() @Min(1) count!: number;
}

const failures = async (value: object): Promise<string[]> =>
  (await validate(value)).map((error) => error.property).sort();

describe('cacheValidationMetadata', () => {
  beforeAll(() => cacheValidationMetadata());

  it("answers a class's own and inherited rules, the same object each time", async () => {
    const storage = getMetadataStorage();
    const first = storage.getTargetValidationMetadatas(Derived, '', false, false);
    expect(first.map((metadata) => metadata.propertyName).sort()).toEqual([
      'count',
      'count',
      'name',
    ]);
    expect(storage.getTargetValidationMetadatas(Derived, '', false, false)).toBe(first);
    expect(storage.groupByPropertyName(first)).toBe(storage.groupByPropertyName(first));
    // Other options are another answer.
    expect(storage.getTargetValidationMetadatas(Derived, '', false, false, ['admin'])).not.toBe(
      first,
    );

    expect(await failures(Object.assign(new Derived(), { name: 'a', count: 2 }))).toEqual([]);
    expect(await failures(Object.assign(new Derived(), { name: 3, count: 0 }))).toEqual([
      'count',
      'name',
    ]);
  });

  it('sees rules added after a lookup (a class defined later)', async () => {
    const storage = getMetadataStorage();
    const before = storage.getTargetValidationMetadatas(Derived, '', false, false);
    class Later extends Derived {
      @IsString() note!: string;
    }
    expect(storage.getTargetValidationMetadatas(Derived, '', false, false)).not.toBe(before);
    expect(await failures(Object.assign(new Later(), { name: 'a', count: 2, note: 1 }))).toEqual([
      'note',
    ]);
  });
});
