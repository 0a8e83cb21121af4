/** The common self-storage unit sizes, with what fits in each (size guide). */
interface CommonSize {
  width: number;
  length: number;
  label: string;
  comparable: string;
  fits: string[];
}

export const COMMON_SIZES: readonly CommonSize[] = [
  {
    width: 5,
    length: 5,
    label: "Small",
    comparable: "About the size of a hall closet",
    fits: ["Seasonal decorations", "A few boxes of 30 lbs or less", "Small furniture such as a chair or a nightstand", "Files and records"],
  },
  {
    width: 5,
    length: 10,
    label: "Small",
    comparable: "About the size of a walk-in closet",
    fits: ["A mattress set and a dresser", "Up to 20 boxes", "A bicycle or small garden equipment", "The contents of a studio or dorm room"],
  },
  {
    width: 10,
    length: 10,
    label: "Medium",
    comparable: "About half a one-car garage",
    fits: ["The furniture of a one-bedroom apartment", "A sofa, a bed and a dining set", "Appliances such as a washer and dryer", "Boxes stacked high at the back"],
  },
  {
    width: 10,
    length: 15,
    label: "Medium",
    comparable: "About the size of a small bedroom",
    fits: ["The furniture of a two-bedroom apartment", "Large appliances", "Patio furniture and a grill"],
  },
  {
    width: 10,
    length: 20,
    label: "Large",
    comparable: "About the size of a one-car garage",
    fits: ["The contents of a three-bedroom house", "A car or small boat", "Business inventory and equipment"],
  },
  {
    width: 10,
    length: 30,
    label: "Large",
    comparable: "About one and a half one-car garages",
    fits: ["The contents of a four- or five-bedroom house", "A car, truck or boat with room to spare", "Commercial stock and fixtures"],
  },
];

export function area(size: { width: number; length: number }): number {
  return size.width * size.length;
}

/** "10' x 10'" */
export function sizeLabel(size: { width: number; length: number }): string {
  return `${size.width}' x ${size.length}'`;
}
