/**
 * Stripe's request encoding: `application/x-www-form-urlencoded` with bracket nesting
 * (`metadata[order]=1`, `expand[0]=latest_charge`, `expand[]=customer`), the encoding the `stripe`
 * package writes (utils.js `stringifyRequestData`, qs's "indices" format) and Stripe.js posts. GET
 * and DELETE carry the same encoding in the query string. Values stay strings, as Stripe receives them.
 */
export type FormValue = string | FormValue[] | { [key: string]: FormValue };
export type Params = Record<string, FormValue>;

function splitKey(key: string): string[] {
  const first = key.indexOf("[");
  if (first <= 0) return [key];
  const parts = [key.slice(0, first)];
  const re = /\[([^\]]*)\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(key.slice(first))) !== null) parts.push(m[1] ?? "");
  return parts;
}

/** Objects whose keys are all array indices become arrays (in index order). */
function arrays(value: FormValue): FormValue {
  if (typeof value === "string" || Array.isArray(value)) return Array.isArray(value) ? value.map(arrays) : value;
  const keys = Object.keys(value);
  for (const k of keys) value[k] = arrays(value[k] as FormValue);
  if (keys.length && keys.every((k) => /^\d+$/.test(k))) {
    return keys.sort((a, b) => Number(a) - Number(b)).map((k) => value[k] as FormValue);
  }
  return value;
}

export function parseForm(body: string): Params {
  const root: Record<string, FormValue> = {};
  for (const [rawKey, rawValue] of new URLSearchParams(body)) {
    const path = splitKey(rawKey);
    let node: Record<string, FormValue> = root;
    path.forEach((part, i) => {
      const last = i === path.length - 1;
      let key = part;
      if (key === "") key = String(Object.keys(node).length); // `a[]=x` appends
      if (last) {
        node[key] = rawValue;
        return;
      }
      const next = node[key];
      if (next === undefined || typeof next === "string" || Array.isArray(next)) node[key] = {};
      node = node[key] as Record<string, FormValue>;
    });
  }
  return arrays(root) as Params;
}

/** A canonical text of the parameters, for the idempotency comparison (key order ignored). */
export function canonical(value: FormValue | undefined): string {
  if (value === undefined) return "";
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  return `{${Object.keys(value)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
    .join(",")}}`;
}
