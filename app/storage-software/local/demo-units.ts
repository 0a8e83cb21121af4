/**
 * DEMO inventory (decision 034): a realistic set of unit types and units for a location kept by the
 * local adapter. The seed stocks each live location with it when the account's use_demo_units is on;
 * the console's "Add a location" stocks a new location whose owner chose demo units (decision 621).
 * Everything here is demo data (sizes, names, rates, statuses).
 *
 * Reproducible: every random choice comes from a small PRNG seeded with DEMO_UNITS_SEED and the
 * location's slug, so the same slug gets the same inventory on every machine.
 */
import type { Transaction } from "~/db/client.server";
import { unitTypes, units, type UnitCategory, type UnitStatus } from "~/db/schema";

const DEMO_UNITS_SEED = 20_260_301;

interface CatalogEntry {
  name: string;
  category: UnitCategory;
  width: number;
  length: number;
  floor: number;
  /** Cents per month before the location's adjustment. */
  baseRate: number;
}

/** Every location gets these types (sizes 5x5 to 10x30). DEMO rates. */
const DEMO_CATALOG: readonly CatalogEntry[] = [
  { name: "Climate Controlled", category: "climate_controlled", width: 5, length: 5, floor: 1, baseRate: 4500 },
  { name: "Indoor", category: "indoor", width: 5, length: 5, floor: 1, baseRate: 3500 },
  { name: "Climate Controlled", category: "climate_controlled", width: 5, length: 10, floor: 1, baseRate: 6900 },
  { name: "Drive-Up", category: "drive_up", width: 5, length: 10, floor: 1, baseRate: 5500 },
  { name: "Climate Controlled", category: "climate_controlled", width: 10, length: 10, floor: 2, baseRate: 11900 },
  { name: "Drive-Up", category: "drive_up", width: 10, length: 10, floor: 1, baseRate: 9500 },
  { name: "Climate Controlled", category: "climate_controlled", width: 10, length: 15, floor: 2, baseRate: 14900 },
  { name: "Drive-Up", category: "drive_up", width: 10, length: 15, floor: 1, baseRate: 12500 },
  { name: "Drive-Up", category: "drive_up", width: 10, length: 20, floor: 1, baseRate: 15900 },
  { name: "Drive-Up", category: "drive_up", width: 10, length: 30, floor: 1, baseRate: 21500 },
  { name: "Parking", category: "parking", width: 10, length: 20, floor: 1, baseRate: 5500 },
  { name: "Parking", category: "parking", width: 10, length: 30, floor: 1, baseRate: 7500 },
];

const FEATURES: Record<UnitCategory, (floor: number) => string[]> = {
  climate_controlled: (floor) => ["Climate controlled", "Indoor access", floor > 1 ? "Upper floor, elevator access" : "Ground floor"],
  indoor: () => ["Indoor access", "Ground floor"],
  drive_up: () => ["Drive-up access", "Roll-up door", "Ground floor"],
  parking: () => ["Uncovered space", "Gated access", "Cars, boats and RVs"],
};

const DESCRIPTIONS: Record<UnitCategory, string> = {
  climate_controlled: "Kept cool in summer and dry all year: best for furniture, electronics, documents and photos.",
  indoor: "An inside unit off a clean, well-lit hallway: good for boxes and small items.",
  drive_up: "Park at the door and unload straight from your car or truck.",
  parking: "An outdoor space inside the gate for a car, boat, trailer or RV.",
};

const UNIT_PREFIX: Record<UnitCategory, string> = { climate_controlled: "C", indoor: "B", drive_up: "D", parking: "P" };

/** mulberry32: a tiny, well-known 32-bit PRNG; plenty for demo data. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hashString(text: string): number {
  let h = 2166136261;
  for (const ch of text) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return h >>> 0;
}

interface DemoUnitType {
  entry: CatalogEntry;
  standardRate: number;
  webRate: number;
  statuses: UnitStatus[];
}

/** The demo inventory of one location: pure and deterministic (same slug, same result). */
export function demoInventory(slug: string): DemoUnitType[] {
  const random = seededRandom(DEMO_UNITS_SEED ^ hashString(slug));
  const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const pick = <T>(items: T[], n: number): T[] => {
    const pool = [...items];
    const out: T[] = [];
    while (out.length < n && pool.length) out.push(pool.splice(int(0, pool.length - 1), 1)[0]!);
    return out;
  };
  const indexes = DEMO_CATALOG.map((_, i) => i);
  const storageIndexes = indexes.filter((i) => DEMO_CATALOG[i]!.category !== "parking");
  // Two storage types sold out, two with only a unit or two left; the rest have plenty.
  const soldOut = new Set(pick(storageIndexes, 2));
  const fewLeft = new Set(pick(indexes.filter((i) => !soldOut.has(i)), 2));
  const adjustment = int(-3, 3) * 100;

  return DEMO_CATALOG.map((entry, i) => {
    const total = entry.category === "parking" ? int(6, 10) : int(8, 16);
    const available = soldOut.has(i) ? 0 : fewLeft.has(i) ? int(1, 2) : int(4, Math.min(9, total - 2));
    const statuses: UnitStatus[] = [];
    for (let n = 0; n < total; n++) {
      if (n < available) statuses.push("available");
      else {
        const r = random();
        statuses.push(r < 0.85 ? "rented" : r < 0.95 ? "reserved" : "unavailable");
      }
    }
    // Shuffle so available units are spread over the unit numbers.
    for (let n = statuses.length - 1; n > 0; n--) {
      const k = int(0, n);
      [statuses[n], statuses[k]] = [statuses[k]!, statuses[n]!];
    }
    const standardRate = entry.baseRate + adjustment;
    const webRate = Math.round((standardRate * 0.9) / 100) * 100;
    return { entry, standardRate, webRate, statuses };
  });
}

/**
 * Creates the demo inventory of one location (inside the caller's transaction): its unit types and
 * units. The caller checks the location has none yet. Returns how many of each it made.
 */
export async function stockDemoUnits(tx: Transaction, location: { id: number; slug: string }): Promise<{ unitTypes: number; units: number }> {
  const inventory = demoInventory(location.slug);
  const typeRows = await tx
    .insert(unitTypes)
    .values(
      inventory.map(({ entry, standardRate, webRate }) => ({
        locationId: location.id,
        name: entry.name,
        category: entry.category,
        width: entry.width,
        length: entry.length,
        height: entry.category === "parking" ? null : 8,
        floor: entry.floor,
        features: FEATURES[entry.category](entry.floor),
        description: DESCRIPTIONS[entry.category],
        standardRate,
        webRate,
      })),
    )
    .returning({ id: unitTypes.id });
  const counters = new Map<string, number>();
  const unitRows = inventory.flatMap(({ entry, statuses }, i) =>
    statuses.map((status) => {
      const prefix = UNIT_PREFIX[entry.category];
      const key = `${prefix}${entry.floor}`;
      const n = (counters.get(key) ?? 0) + 1;
      counters.set(key, n);
      const name = entry.category === "parking" ? `${prefix}${String(n).padStart(2, "0")}` : `${prefix}${entry.floor * 100 + n}`;
      return { locationId: location.id, unitTypeId: typeRows[i]!.id, name, floor: entry.floor, status };
    }),
  );
  await tx.insert(units).values(unitRows);
  return { unitTypes: typeRows.length, units: unitRows.length };
}
