import { describe, expect, it } from "vitest";
import { buildMenuTree, type FlatMenuItem, type MenuItem } from "./menu";

let nextId = 1;
const row = (name: string, parentId: number | null, index: number, extra: Partial<FlatMenuItem> = {}): FlatMenuItem => ({
  id: extra.id ?? nextId++,
  name,
  url: `/${name.toLowerCase().replace(/\s+/g, "-")}`,
  index,
  isInternal: true,
  isTargetBlank: false,
  parentId,
  ...extra,
});

/** Names as a nested outline, e.g. ["Locations", ["Lumberton", ["Self Storage", "Portable Storage"]]]. */
type Outline = Array<string | Outline>;
function outline(items: MenuItem[]): Outline {
  return items.flatMap((i) => (i.children.length ? [i.name, outline(i.children)] : [i.name]));
}

describe("buildMenuTree", () => {
  it("nests the Main Menu like the seed: locations with a location of two sub-sites, Resources, Pay Bill", () => {
    const rows = [
      row("Pay Bill", null, 4, { id: 90 }),
      row("Locations", null, 0, { id: 10 }),
      row("Resources", null, 1, { id: 20 }),
      row("Kinston", 10, 3, { id: 14 }),
      row("Lumberton", 10, 0, { id: 11 }),
      row("Jacksonville", 10, 1, { id: 12 }),
      row("Seven Springs", 10, 2, { id: 13 }),
      row("Portable Storage", 11, 1, { id: 32 }),
      row("Self Storage", 11, 0, { id: 31 }),
      row("FAQs", 20, 1, { id: 22 }),
      row("Size Guide", 20, 0, { id: 21 }),
    ];
    expect(outline(buildMenuTree(rows))).toEqual([
      "Locations",
      ["Lumberton", ["Self Storage", "Portable Storage"], "Jacksonville", "Seven Springs", "Kinston"],
      "Resources",
      ["Size Guide", "FAQs"],
      "Pay Bill",
    ]);
  });

  it("orders equal indexes by id and keeps the item fields", () => {
    const tree = buildMenuTree([
      row("B", null, 0, { id: 5, isTargetBlank: true, isInternal: false, url: "https://b.example" }),
      row("A", null, 0, { id: 2 }),
    ]);
    expect(tree.map((i) => i.name)).toEqual(["A", "B"]);
    expect(tree[1]).toEqual({
      id: 5,
      name: "B",
      url: "https://b.example",
      index: 0,
      isInternal: false,
      isTargetBlank: true,
      children: [],
    });
    expect(tree[1]).not.toHaveProperty("parentId");
  });

  it.each([
    ["no rows", [], []],
    ["orphans (parent missing) are dropped", [row("Top", null, 0, { id: 1 }), row("Orphan", 99, 0, { id: 2 })], ["Top"]],
    ["an item that is its own parent never appears", [row("Self", 7, 0, { id: 7 })], []],
  ] as const)("%s", (_name, rows, expected) => {
    expect(outline(buildMenuTree(rows as unknown as FlatMenuItem[]))).toEqual(expected);
  });
});
