import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

type Grouped = Record<string, ValidationMetadata[]>;
/** The class whose rules are looked up (class-validator types it as `Function`). */
type Target = Parameters<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[0];

let installed = false;

/**
 * Caches class-validator's lookup of a class's rules. On every object it validates,
 * class-validator filters the class's rules and then tests the class against every class that
 * has rules (`instanceof`) to collect inherited ones, and groups the result by property: work
 * that grows with the number of DTO classes in the application and was 3 % of the API's CPU
 * under bench:api's POST load, for an answer that only changes while decorators run. The cache
 * is emptied whenever a rule, a constraint or a schema is added, so a class defined later (a
 * test's) is seen as before. Callers only read what the lookup returns (class-validator
 * 0.15's ValidationExecutor filters it into new arrays), so sharing one result is safe.
 * Idempotent.
 */
export function cacheValidationMetadata(): void {
  if (installed) return;
  installed = true;
  const storage = getMetadataStorage();
  const lookUp = storage.getTargetValidationMetadatas.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  // Keyed by the DTO classes and the option sets the code validates with: a closed list, so a
  // plain map cannot grow past it.
  let found = new Map<Target, Map<string, ValidationMetadata[]>>();
  let grouped = new WeakMap<ValidationMetadata[], Grouped>();

  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const key = `${schema}\u0000${always}\u0000${strictGroups}\u0000${groups?.join('\u0001') ?? ''}`;
    let byKey = found.get(target);
    if (byKey === undefined) {
      byKey = new Map();
      found.set(target, byKey);
    }
    let metadatas = byKey.get(key);
    if (metadatas === undefined) {
      metadatas = lookUp(target, schema, always, strictGroups, groups);
      byKey.set(key, metadatas);
    }
    return metadatas;
  };
  storage.groupByPropertyName = (metadatas) => {
    let byProperty = grouped.get(metadatas);
    if (byProperty === undefined) {
      byProperty = group(metadatas);
      grouped.set(metadatas, byProperty);
    }
    return byProperty;
  };

  const forget = (): void => {
    found = new Map();
    grouped = new WeakMap();
  };
  const addValidation = storage.addValidationMetadata.bind(storage);
  const addConstraint = storage.addConstraintMetadata.bind(storage);
  const addSchema = storage.addValidationSchema.bind(storage);
  storage.addValidationMetadata = (metadata) => {
    forget();
    addValidation(metadata);
  };
  storage.addConstraintMetadata = (metadata) => {
    forget();
    addConstraint(metadata);
  };
  storage.addValidationSchema = (schema) => {
    forget();
    addSchema(schema);
  };
}
