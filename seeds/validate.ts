import { EDITABLE_ENTITIES, validateRecord, type EditableEntityName } from "~/domain/content/editable";

/** A seed record the registry refuses: the seed stops, naming the record, the field and the rule. */
export class SeedRecordError extends Error {
  override name = "SeedRecordError";
}

/**
 * Checks a record the seed is about to insert through the same schemas the console's forms and the
 * draft use (issue 24: "validation is the same schema that the seed data goes through"): the fields
 * the registry lists (app/domain/content/editable.ts), then its rules between fields. Columns the
 * registry does not list (ids, slugs, rates, software ids) and image and reference fields (set by
 * the seed itself) are not checked here. Returns the record unchanged, or throws SeedRecordError.
 */
export function checkSeedRecord<T extends object>(entity: EditableEntityName, record: T, name: string): T {
  const def = EDITABLE_ENTITIES[entity];
  const values = Object.fromEntries(
    Object.entries(record).filter(([k, v]) => {
      const kind = def.fields[k]?.kind;
      return kind !== undefined && v !== undefined && kind !== "image" && kind !== "images" && kind !== "ref";
    }),
  );
  const result = validateRecord(def, values);
  if (!result.ok) {
    const [field, message] = Object.entries(result.errors)[0]!;
    throw new SeedRecordError(`Seed data: ${def.label} “${name}”, field ${field} (${def.fields[field]?.label ?? field}): ${message}`);
  }
  return record;
}
