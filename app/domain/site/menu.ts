/** A menu item with its children, as rendered (spec §3 nav_menu_items). */
export interface MenuItem {
  id: number;
  name: string;
  url: string;
  index: number;
  isInternal: boolean;
  isTargetBlank: boolean;
  children: MenuItem[];
}

export interface FlatMenuItem extends Omit<MenuItem, "children"> {
  parentId: number | null;
}

/** Builds the nested tree from flat rows, each level ordered by index then id. Orphans are dropped. */
export function buildMenuTree(rows: readonly FlatMenuItem[]): MenuItem[] {
  const byParent = new Map<number | null, FlatMenuItem[]>();
  for (const row of rows) {
    const list = byParent.get(row.parentId) ?? [];
    list.push(row);
    byParent.set(row.parentId, list);
  }
  const build = (parentId: number | null, seen: Set<number>): MenuItem[] =>
    (byParent.get(parentId) ?? [])
      .slice()
      .sort((a, b) => a.index - b.index || a.id - b.id)
      .filter((row) => !seen.has(row.id))
      .map(({ parentId: _parentId, ...row }) => ({
        ...row,
        children: build(row.id, new Set([...seen, row.id])),
      }));
  return build(null, new Set());
}
